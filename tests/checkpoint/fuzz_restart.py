#!/usr/bin/python3
"""Fuzzing of the restart: damaged checkpoints and damaged continued outputs (issue 11, family 4).

  fuzz_restart.py TSMECH FUZZ_LOAD MPIEXEC WORKDIR

A chain of 12 particles on 2 ranks (adaptive steps, extrapolated guesses: the integrator with the
most history), run to step END with a checkpoint and an output, and interrupted at step K
(-ts_max_steps K). Then, from the interrupted run's files:

  1. every byte of the checkpoint, and every STRIDE_OUT-th byte of the output, changed in turn
     (one bit), each copy restarted to step END in one process (fuzz_load.c: the library calls of
     the tsmech program, thousands of cases in seconds);
  2. a deterministic sample of bytes of each file (the byte complemented) restarted by the tsmech
     program itself;
  3. each header attribute of the checkpoint changed by h5py, in value and in datatype (float64 ->
     float32, int64 -> int32, little -> big endian, strings padded instead of NUL-terminated, or of
     variable length), the vectors' datatypes, and values out of their ranges in a header whose
     checksum was recomputed (a forged file); the output's datasets and attributes likewise.

Each case must end in one of two ways:
  - refused: exit status 2, the whole output one line "tsmech: error: ..." naming the file, no file
    changed or created (in fuzz_load: the library's error, nothing printed, no HDF5 object left open);
  - accepted: exit status 0, the final q and v bit for bit those of the uninterrupted run, the
    output valid: /monitor every step 0..END once, the records and snapshots after K bit for bit the
    uninterrupted run's, those up to K the damaged file's own (none removed).
Anything else fails the test: another status (a crash is >= 128 or 59, PETSc's signal handler), a
glibc heap message, a run that hangs (timeout), a result that differs. The forged in-range header
(a changed tsmech_version) must be accepted: a negative control of the checksum's reimplementation.

Prints the counts (tried, refused, identical, failures) per part and the result per attribute.
"""
import concurrent.futures
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from program_output import program_lines  # noqa: E402  (the output without the launcher's noise)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_checkpoint as cc  # noqa: E402  (the header digest and the string attributes)

TSMECH, FUZZ_LOAD, MPIEXEC, WORK = [os.path.abspath(a) if i < 2 or i == 3 else a for i, a in enumerate(sys.argv[1:5])]
NP, END, K, EVERY = 2, 36, 24, 7
STRIDE_OUT = 97  # output bytes fuzzed in process: every STRIDE_OUT-th
SAMPLE_CK, SAMPLE_OUT = 40, 24  # bytes of each file fuzzed through the tsmech program
FILE_ID = 10**7  # the case numbers of fuzz_load's cases with files of their own
# the targeted cases also run through the tsmech program (all run in process)
TSMECH_TARGETED = re.compile(r"^(value_(step|time|dt|linearized|extrapolate|theta|ts_type|param_k|checksum_q)|type_(dt_<f4|step_<i4|step_>i8|linearized_<i4|theta_>f8|ts_type_nullpad"
                             r"|dataset_q_<f4)|forged_(step|dt|theta|linearized|control_tsmech_version)|out_type_fields_v_>f8|out_type_monitor_step_<i4|out_value_every_-1)$")
JOBS = 4  # tsmech runs at a time (most of a run's time is MPI's start-up and exit, not work)
SOLVE = "-ksp_type preonly -pc_type redundant -snes_rtol 1e-14 -snes_atol 1e-12 -snes_stol 0".split()
OPTS = ["-model", "chain", "-chain_n", "12"] + SOLVE + "-ts_adapt_type basic -ts_theta_initial_guess_extrapolate -ts_dt 1e-2".split()
CRASH = re.compile(r"corrupted size|double free|free\(\): |malloc\(\): |malloc_consolidate|munmap_chunk|Segmentation|SEGV|Caught signal|stack smashing|Aborted|HDF5: infinite loop")

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)
    sys.stdout.flush()


def tsmech(args, cwd, timeout=120):
    """tsmech on NP ranks in cwd: (status, output); status None if it hung"""
    cmd = [MPIEXEC, "-q", "-n", str(NP), TSMECH, "-quiet"] + args
    try:
        p = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, ""
    return p.returncode, p.stdout.decode(errors="replace")


def files_of(d):
    """{name: sha256} of the files in d"""
    return {f: hashlib.sha256(open(os.path.join(d, f), "rb").read()).hexdigest() for f in sorted(os.listdir(d))}


def same_bits(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


# ------------------------------------------------------------------------------------------------
# The runs and the checks of a restart's result


def make_fixtures():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    for name, steps in (("ref", END), ("int", K)):
        status, out = tsmech(OPTS + ["-ts_max_steps", str(steps), "-output_every", str(EVERY), "-checkpoint", name + "_ck.h5", "-output", name + "_out.h5"], WORK)
        if status != 0:
            raise SystemExit(f"fuzz_restart.py: the {name} run failed ({status}):\n{out}")
    with h5py.File(os.path.join(WORK, "ref_ck.h5"), "r") as f:
        ref_q, ref_v = f["checkpoint/q"][...], f["checkpoint/v"][...]
    return ref_q, ref_v


class Reference:
    def __init__(self):
        self.q, self.v = make_fixtures()
        self.ck = open(os.path.join(WORK, "int_ck.h5"), "rb").read()
        self.out = open(os.path.join(WORK, "int_out.h5"), "rb").read()
        self.refout = h5py.File(os.path.join(WORK, "ref_out.h5"), "r")


def check_output(ref, path, damaged):
    """'' if the continued output at path is valid and holds the uninterrupted run after K and the
    damaged input's records and snapshots up to K; else what is wrong. damaged: the input's bytes."""
    r = ref.refout
    try:
        src = h5py.File(io.BytesIO(damaged), "r")
    except Exception:
        src = None
    try:
        with h5py.File(path, "r") as f:
            steps = f["monitor/step"][:]
            if not np.array_equal(steps, np.arange(END + 1)):
                return f"/monitor/step is {steps}"
            if sorted(f["monitor"].keys()) != sorted(r["monitor"].keys()):
                return "the /monitor datasets differ"
            for k in r["monitor"]:
                a, b = f["monitor"][k][:], r["monitor"][k][:]
                if not same_bits(a[K + 1 :], b[K + 1 :]):
                    return f"/monitor/{k} after step {K} differs from the uninterrupted run's"
                try:
                    old = src["monitor"][k][: K + 1] if src is not None else b[: K + 1]
                except Exception:
                    old = b[: K + 1]
                if not same_bits(a[: K + 1], old):
                    return f"/monitor/{k} up to step {K} is not the damaged file's"
            fs, rs = f["fields/step"][:], r["fields/step"][:]
            if not np.array_equal(fs, rs):
                return f"/fields/step is {list(fs)}, the uninterrupted run's {list(rs)}"
            for k in ("q", "v", "time"):
                a, b = f["fields"][k][...], r["fields"][k][...]
                after = fs > K
                if not same_bits(a[after], b[after]):
                    return f"/fields/{k} after step {K} differs from the uninterrupted run's"
            if int(f.attrs["restarts"]) != 1:
                return f"/restarts is {f.attrs['restarts']}"
    except Exception as e:
        return f"cannot be read: {e}"
    finally:
        if src is not None:
            src.close()
    return ""


# ------------------------------------------------------------------------------------------------
# 1. In process: every byte of the checkpoint, a stride of the output


def fuzz_in_process(ref, targeted):
    """Part 1, and every targeted case: {targeted name: outcome}"""
    d = os.path.join(WORK, "inproc")
    os.makedirs(d)
    cases = [("ck", o, 1 << (o % 8), "") for o in range(len(ref.ck))] + [("out", o, 1 << (o % 8), "") for o in range(0, len(ref.out), STRIDE_OUT)]
    ids = {}
    for i, (name, ck, out, expect) in enumerate(targeted):
        kind, data = ("ck", ck) if ck != ref.ck else ("out", out)
        open(os.path.join(d, f"t{i}.h5"), "wb").write(data)
        ids[(kind, FILE_ID + i)] = (name, data, expect)
        cases.append((kind, FILE_ID + i, 0, f"t{i}.h5"))
    with open(os.path.join(d, "cases.txt"), "w") as fh:
        fh.writelines(f"{k} {o} {x} {f}\n" for k, o, x, f in cases)
    cmd = [MPIEXEC, "-n", str(NP), FUZZ_LOAD] + OPTS + ["-ts_max_steps", str(END), "-fuzz_checkpoint", "../int_ck.h5", "-fuzz_output", "../int_out.h5", "-fuzz_final", "../ref_ck.h5",
                                                      "-fuzz_cases", "cases.txt", "-fuzz_dir", ".", "-fuzz_report", "report.txt", "-fuzz_every", str(EVERY)]
    try:
        p = subprocess.run(cmd, cwd=d, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
        status, out = p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired:
        status, out = None, "(timeout)"
    lines = open(os.path.join(d, "report.txt")).read().splitlines() if os.path.exists(os.path.join(d, "report.txt")) else []
    counts, outcomes, started = {}, {}, None
    for line in lines:
        w = line.split(" ", 4)
        if w[0] in ("start", "done"):
            started = line if w[0] == "start" else None
            continue
        kind, off, xor, result = w[0], int(w[1]), int(w[2]), w[3]
        msg = w[4] if len(w) > 4 else ""
        started = None
        if (kind, off) in ids:
            name, damaged, expect = ids[(kind, off)]
            part = "targeted"
        else:
            name, expect, part = f"{kind} {off} {xor}", None, kind
            damaged = bytearray(ref.out)
            damaged[off] ^= xor
        counts[(part, result)] = counts.get((part, result), 0) + 1
        if result not in ("refused", "same"):
            fail(f"in process: {name}: {result} {msg}")
        elif result == "refused" and not re.match(r"Cannot (restart from|continue the output file) \S+", msg):
            fail(f"in process: {name}: the refusal does not name the file: {msg}")
        elif result == "same" and kind == "out":
            path = os.path.join(d, f"out_{off}_{xor}.h5")
            why = check_output(ref, path, bytes(damaged))
            if why:
                fail(f"in process: {name} accepted, but the continued output {why}")
                result = "different"
            os.remove(path)
        outcome = {"refused": "refused", "same": "identical"}.get(result, result)
        if part == "targeted":
            outcomes[name] = outcome + (": " + msg if outcome == "refused" else "")
            if expect and outcome != expect:
                fail(f"in process: {name}: {outcome}, expected {expect}: {msg}")
    if started or status != 0:
        fail(f"in process: fuzz_load ended with status {status} during '{started}':\n{out[-3000:]}")
    for part in ("ck", "out", "targeted"):
        tried = sum(n for (k, r), n in counts.items() if k == part)
        print(f"in process, {part:8s}: {tried} cases: {counts.get((part, 'refused'), 0)} refused, {counts.get((part, 'same'), 0)} identical, "
              f"{tried - counts.get((part, 'refused'), 0) - counts.get((part, 'same'), 0)} failures")
    sys.stdout.flush()
    return outcomes


# ------------------------------------------------------------------------------------------------
# 2. and 3. Through the tsmech program


def restart_case(ref, name, ck_bytes, out_bytes, expect=None):
    """A restart from copies of the interrupted run's files (given as bytes): its outcome
    ('refused' or 'identical') or a failure; expect: the outcome it must have"""
    d = os.path.join(WORK, "cases", name)
    os.makedirs(d)
    open(os.path.join(d, "ck.h5"), "wb").write(ck_bytes)
    open(os.path.join(d, "out.h5"), "wb").write(out_bytes)
    before = files_of(d)
    status, out = tsmech(OPTS + ["-ts_max_steps", str(END), "-output_every", str(EVERY), "-checkpoint", "ck.h5", "-output", "out.h5", "-restart", "ck.h5"], d)
    lines = program_lines(out)
    if status is None:
        return f"FAIL {name}: hung (no end in 120 s)"
    if CRASH.search(out):
        return f"FAIL {name}: exit {status} with a crash or heap message:\n{out[-2000:]}"
    if status == 2:
        if len(lines) != 1 or not re.match(r"tsmech: error: -(restart|output|checkpoint) (ck|out)\.h5[: ]", lines[0]):
            return f"FAIL {name}: exit 2 but not one line naming the file:\n{out}"
        after = files_of(d)
        if after != before:
            return f"FAIL {name}: refused, but files changed or appeared: {sorted(set(before.items()) ^ set(after.items()))}"
        outcome = "refused"
    elif status == 0:
        with h5py.File(os.path.join(d, "ck.h5"), "r") as f:
            q, v = f["checkpoint/q"][...], f["checkpoint/v"][...]
        if not (same_bits(q, ref.q) and same_bits(v, ref.v)):
            return f"FAIL {name}: exit 0 with a final state that differs from the uninterrupted run's"
        why = check_output(ref, os.path.join(d, "out.h5"), out_bytes)
        if why:
            return f"FAIL {name}: exit 0, but the continued output {why}"
        outcome = "identical"
    else:
        return f"FAIL {name}: exit status {status}:\n{out[-2000:]}"
    shutil.rmtree(d)
    if expect and outcome != expect:
        return f"FAIL {name}: {outcome}, expected {expect}: {lines[:1]}"
    return outcome + (": " + lines[0][len("tsmech: error: ") :] if outcome == "refused" else "")


def run_cases(ref, cases):
    """cases: [(name, ck bytes, out bytes, expected outcome or None)] -> {name: outcome}"""
    with concurrent.futures.ThreadPoolExecutor(JOBS) as ex:
        futures = {name: ex.submit(restart_case, ref, name, c, o, e) for name, c, o, e in cases}
        results = {name: fu.result() for name, fu in futures.items()}
    for name, r in results.items():
        if r.startswith("FAIL"):
            fail(r[5:])
    return results


def sampled_bytes(ref):
    cases = []
    for kind, data, n in (("ck", ref.ck, SAMPLE_CK), ("out", ref.out, SAMPLE_OUT)):
        for i in range(n):
            off = (i * len(data)) // n + (i * 7) % max(1, len(data) // n)
            b = bytearray(data)
            b[off] ^= 0xFF
            cases.append((f"{kind}_byte_{off}", bytes(b) if kind == "ck" else ref.ck, bytes(b) if kind == "out" else ref.out, None))
    return cases


def edited(data, edit):
    """data (an HDF5 file's bytes) changed by edit(h5py.File) -> bytes"""
    buf = io.BytesIO(data)
    with h5py.File(buf, "r+") as f:
        edit(f)
    return buf.getvalue()


def retype(obj, name, dtype):
    """the attribute obj.attrs[name] with the same value in another datatype"""
    value = obj.attrs[name]
    del obj.attrs[name]
    obj.attrs.create(name, np.asarray(value).astype(dtype), dtype=dtype)


def restring(obj, name, how):
    """a string attribute NUL-padded instead of NUL-terminated, or of variable length"""
    value = cc.text(obj.attrs[name])
    del obj.attrs[name]
    if how == "nullpad":
        obj.attrs.create(name, np.bytes_(value), dtype=h5py.string_dtype("ascii", len(value) + 1))
    else:
        obj.attrs.create(name, value, dtype=h5py.string_dtype("ascii"))


def redataset(group, name, dtype):
    """the dataset with the same values (and attributes) in another datatype"""
    a = group[name][...]
    attrs = {k: group[name].attrs[k] for k in group[name].attrs}
    extendible = group.name != "/checkpoint"
    del group[name]
    d = group.create_dataset(name, data=a.astype(dtype), dtype=dtype, chunks=True, maxshape=(None,) + a.shape[1:] if extendible else None)
    for k, v in attrs.items():
        d.attrs[k] = v


def targeted_cases(ref):
    cases, rows = [], []
    ck = ref.ck
    with h5py.File(io.BytesIO(ck), "r") as f:
        attrs = {k: f["checkpoint"].attrs[k] for k in f["checkpoint"].attrs}
        params = list(f["checkpoint/model_parameters"].attrs)
    changes = {
        "step": 25, "time": float(attrs["time"]) * (1 + 1e-15), "dt": float(attrs["dt"]) * 1.5, "previous_time": float(attrs["previous_time"]) * 0.999,
        "linearized": 1, "extrapolate": 0, "endpoint": 1, "theta": 0.6, "has_previous": 0, "has_previous_position": 0, "failed_step": 1,
        "snes_its": 46, "ksp_its": 44, "rejected": 2, "snes_failures": 1, "adapt_decrease_count": 1, "ts_family": 2, "global_size": 37, "nranks": 3,
        "format_version": 4, "complete": 0,
    }
    strings = {"ts_type": "theta2", "adapt_type": "none", "guess": "zero", "model": "chaim", "model_parameters": "n,length,mass,k,c,drag,g,linear", "model_text_parameters": "material",
               "tsmech_version": "0.1.1", "petsc_version": "Petsc Release Version 3.18.6", "format": "tsmech-checkpoinT"}
    sums = [k for k in attrs if k.startswith("checksum_")]

    def value_edit(name, value):
        def e(f):
            c = f["checkpoint"]
            if name in strings:
                cc.set_string(c, name, value)
            elif name.startswith("checksum_"):
                cc.set_string(c, name, "0" + cc.text(c.attrs[name])[1:] if cc.text(c.attrs[name])[0] != "0" else "1" + cc.text(c.attrs[name])[1:])
            else:
                c.attrs[name] = np.asarray(value).astype(c.attrs[name].dtype)
        return e

    for name, value in list(changes.items()) + list(strings.items()) + [(s, None) for s in sums]:
        cases.append((f"value_{name}", edited(ck, value_edit(name, value)), ref.out, "refused"))
    for p in params:
        def e(f, p=p):
            a = f["checkpoint/model_parameters"].attrs
            a[p] = np.float64(a[p]) * 2 + 1
        cases.append((f"value_param_{p}", edited(ck, e), ref.out, "refused"))
    # datatypes: the same value in another type
    for name in attrs:
        if name in strings or name.startswith("checksum_"):
            for how in ("nullpad", "vlen"):
                cases.append((f"type_{name}_{how}", edited(ck, lambda f, n=name, h=how: restring(f["checkpoint"], n, h)), ref.out, "refused"))
        elif attrs[name].dtype.kind == "f":
            for t in ("<f4", ">f8"):
                cases.append((f"type_{name}_{t}", edited(ck, lambda f, n=name, t=t: retype(f["checkpoint"], n, t)), ref.out, "refused"))
        else:
            for t in ("<i4", ">i8", "<u8"):
                cases.append((f"type_{name}_{t}", edited(ck, lambda f, n=name, t=t: retype(f["checkpoint"], n, t)), ref.out, "refused"))
    cases.append(("type_param_k_<f4", edited(ck, lambda f: retype(f["checkpoint/model_parameters"], "k", "<f4")), ref.out, "refused"))
    for v in ("q", "v", "v_previous", "q_previous"):
        for t in ("<f4", ">f8"):
            cases.append((f"type_dataset_{v}_{t}", edited(ck, lambda f, v=v, t=t: redataset(f["checkpoint"], v, t)), ref.out, "refused"))
    # forged: values out of range in a header whose checksum was recomputed; the control is accepted
    forged = {"step": -1, "dt": 0.0, "time": float("inf"), "previous_time": float("nan"), "linearized": 2, "extrapolate": 7, "theta": 1.5,
              "ts_family": 0, "has_previous": 5, "snes_its": -1, "nranks": 0, "ts_type": "bogus", "adapt_type": "bogus", "guess": "bogus",
              "checksum_q": "not-a-checksum!!"}
    for name, value in forged.items():
        def e(f, name=name, value=value):
            c = f["checkpoint"]
            if isinstance(value, str):
                cc.set_string(c, name, value)
            else:
                c.attrs[name] = np.asarray(value).astype(c.attrs[name].dtype)
            cc.set_header_checksum(c)
        cases.append((f"forged_{name}", edited(ck, e), ref.out, "refused"))

    def control(f):
        cc.set_string(f["checkpoint"], "tsmech_version", "9.9.9")
        cc.set_header_checksum(f["checkpoint"])
    cases.append(("forged_control_tsmech_version", edited(ck, control), ref.out, "identical"))
    # the continued output: what the continuation reads or appends to
    out = ref.out
    for grp, name in (("fields", "v"), ("fields", "q"), ("fields", "time"), ("fields", "step"), ("monitor", "step"), ("monitor", "time"), ("monitor", "energy"), ("monitor", "ksp_its")):
        with h5py.File(io.BytesIO(out), "r") as f:
            kind = f[grp][name].dtype.kind
        for t in ((">f8", "<f4") if kind == "f" else (">i8", "<i4")):
            cases.append((f"out_type_{grp}_{name}_{t}", None, edited(out, lambda f, g=grp, n=name, t=t: redataset(f[g], n, t)), "refused"))
    cases.append(("out_type_every_<f8", None, edited(out, lambda f: retype(f, "every", "<f8")), "refused"))
    cases.append(("out_type_every_>i4", None, edited(out, lambda f: retype(f, "every", ">i4")), "refused"))
    cases.append(("out_type_model_vlen", None, edited(out, lambda f: restring(f, "model", "vlen")), "refused"))
    cases.append(("out_type_param_k_<f4", None, edited(out, lambda f: retype(f, "k", "<f4")), "refused"))
    cases.append(("out_type_timestepping_>i4", None, edited(out, lambda f: retype(f["fields/v"], "timestepping", ">i4")), "refused"))
    cases.append(("out_value_every_-1", None, edited(out, lambda f: f.attrs.__setitem__("every", np.int32(-1))), "refused"))
    cases.append(("out_value_restarts_-5", None, edited(out, lambda f: f.attrs.__setitem__("restarts", np.int32(-5))), "refused"))
    cases.append(("out_value_fields_time", None, edited(out, lambda f: f["fields/time"].__setitem__(1, f["fields/time"][1] * 1.5)), "refused"))
    cases.append(("out_value_fields_step", None, edited(out, lambda f: f["fields/step"].__setitem__(2, 3)), "refused"))
    cases.append(("out_value_monitor_step", None, edited(out, lambda f: f["monitor/step"].__setitem__(5, 7)), "refused"))
    cases.append(("out_value_monitor_time", None, edited(out, lambda f: f["monitor/time"].__setitem__(K, float("nan"))), "refused"))
    return [(n, c if c is not None else ref.ck, o if o is not None else ref.out, e) for n, c, o, e in cases]


def main():
    ref = Reference()
    # the restart from the intact files reproduces the uninterrupted run (the premise of the rest)
    r = restart_case(ref, "intact", ref.ck, ref.out, "identical")
    if r.startswith("FAIL"):
        raise SystemExit("fuzz_restart.py: " + r)
    targeted = targeted_cases(ref)
    outcomes = fuzz_in_process(ref, targeted)

    sample = run_cases(ref, sampled_bytes(ref))
    for kind in ("ck", "out"):
        res = [r for n, r in sample.items() if n.startswith(kind + "_")]
        print(f"tsmech, {kind:3s} bytes: {len(res)} cases: {sum(r.startswith('refused') for r in res)} refused, {sum(r == 'identical' for r in res)} identical, "
              f"{sum(r.startswith('FAIL') for r in res)} failures")
    chosen = [c for c in targeted if TSMECH_TARGETED.match(c[0])]
    results = run_cases(ref, chosen)
    print(f"tsmech, targeted: {len(results)} cases: {sum(r.startswith('refused') for r in results.values())} refused, "
          f"{sum(r == 'identical' for r in results.values())} identical (the control), {sum(r.startswith('FAIL') for r in results.values())} failures")
    print("targeted cases (in process; + the same through tsmech):")
    for name, _, _, _ in targeted:
        print(f"  {name:36s} {outcomes.get(name, 'MISSING')[:130]}{'  +' if name in results else ''}")
        if name not in outcomes:
            fail(f"targeted case {name} has no result")
    ref.refout.close()
    if failures:
        print(f"{len(failures)} failures")
        return 1
    shutil.rmtree(WORK, ignore_errors=True)
    print("fuzz_restart: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
