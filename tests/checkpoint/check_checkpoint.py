#!/usr/bin/python3
"""Checks the checkpoints (src/io/checkpoint.c) and continued outputs of tsmech, and makes the
damaged checkpoints the refusal tests need.

  check_checkpoint.py same A.h5 B.h5 [--rtol R]       two checkpoints hold the same state
                                                       (bit for bit; with --rtol, to R relative)
  check_checkpoint.py output A.h5 B.h5 [--rtol R]      two output files agree (bit for bit, or
                                                       to R), B's /monitor has every step once
  check_checkpoint.py at CK.h5 --step N                a complete checkpoint of step N
  check_checkpoint.py monitor OUT.h5 --last N [--snap S ...]
                                                       /monitor holds steps 0..N once each
                                                       (and /fields the snapshot steps S)
  check_checkpoint.py xmf A.xmf B.xmf                  two XDMF files describe the same snapshots
                                                       (up to the name of their .h5)
  check_checkpoint.py mutate SRC DST KIND [NAME VALUE] a damaged copy: KIND corrupt (one bit
                                                       of /checkpoint/q's data), truncate (half
                                                       the file), setattr, delattr, or resum
                                                       (setattr with checksum_header recomputed:
                                                       a consistent file with another value);
                                                       settext, forgetext (a text parameter's
                                                       value, without or with the checksum),
                                                       nullpadtext (its datatype), v2 (the file
                                                       as format version 2 wrote it, the text
                                                       parameter NAME as the number VALUE)

Exits non-zero, with a message, at the first failed check. Needs h5py and numpy (Debian's
/usr/bin/python3).
"""
import argparse
import re
import shutil
import sys

import h5py
import numpy as np

VECTORS = ["q", "v", "v_previous", "q_previous"]
MASK = (1 << 64) - 1


def mix64(x):
    """splitmix64's finalizer, as in src/io/ckheader.c"""
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & MASK
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


class Digest:
    """The digest of a checkpoint's header (HeaderIO in src/io/checkpointimpl.h, ckheader.c)"""

    def __init__(self):
        self.h, self.n = 0x243F6A8885A308D3, 0

    def word(self, w):
        self.n += 1
        self.h = mix64(self.h ^ ((w + self.n * 0x9E3779B97F4A7C15) & MASK))

    def bytes(self, b):
        self.word(len(b))
        for i in range(0, len(b), 8):
            self.word(int.from_bytes(b[i : i + 8].ljust(8, b"\0"), "little"))

    def field(self, name, tag):
        self.bytes(name.encode())
        self.word(tag)


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def header_digest(c):
    """The digest of the header attributes of the group /checkpoint c, in the writer's order"""
    d = Digest()
    a = c.attrs

    def i(name):
        d.field(name, 1)
        d.word(int(a[name]) & MASK)

    def r(name, value=None, prefix=""):
        d.field(prefix + name, 2)
        d.word(int.from_bytes(np.float64(a[name] if value is None else value).tobytes(), "little"))

    def s(name, value=None, prefix=""):
        d.field(prefix + name, 3)
        d.bytes(text(a[name] if value is None else value).encode())

    s("format")
    i("format_version")
    s("tsmech_version")
    s("petsc_version")
    i("nranks")
    s("model")
    s("model_parameters")
    for p in [p for p in text(a["model_parameters"]).split(",") if p]:
        r(p, c["model_parameters"].attrs[p], "model_parameters/")
    if int(a["format_version"]) >= 3:
        # the text parameters (format version 3 on)
        s("model_text_parameters")
        for p in [p for p in text(a["model_text_parameters"]).split(",") if p]:
            s(p, c["model_text_parameters"].attrs[p], "model_text_parameters/")
    i("global_size")
    i("step")
    r("time")
    r("dt")
    s("ts_type")
    s("adapt_type")
    i("ts_family")
    family = int(a["ts_family"])
    if family in (1, 2):
        r("theta")
        i("endpoint")
    if family == 1:
        i("linearized")
        s("guess")
        i("extrapolate")
    if family == 3:
        for k in ("alpha_m", "alpha_f", "gamma", "beta"):
            r(k)
    for k in ("has_previous", "has_previous_position"):
        i(k)
    r("previous_time")
    for k in ("snes_its", "ksp_its", "rejected", "snes_failures", "adapt_decrease_count", "failed_step"):
        i(k)
    for k in VECTORS:
        if k in ("q", "v") or (k == "v_previous" and int(a["has_previous"])) or (k == "q_previous" and int(a["has_previous_position"])):
            s("checksum_" + k)
    return d.h


def set_string(obj, name, value):
    """A string attribute as tsmech writes one: fixed length, NUL-terminated ASCII, scalar"""
    data = value.encode() + b"\0"
    t = h5py.h5t.C_S1.copy()
    t.set_size(len(data))
    t.set_strpad(h5py.h5t.STR_NULLTERM)
    if name in obj.attrs:
        del obj.attrs[name]
    a = h5py.h5a.create(obj.id, name.encode(), t, h5py.h5s.create(h5py.h5s.SCALAR))
    a.write(np.array(data, dtype=f"S{len(data)}"), mtype=t)


def set_header_checksum(c):
    """Makes checksum_header that of the attributes (a consistent header with changed values)"""
    set_string(c, "checksum_header", f"{header_digest(c):016x}")


class CheckError(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise CheckError(msg)


def rel(a, b):
    """max |a - b| relative to max |a| (0 for two empty or equal arrays)"""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.size == 0 or np.array_equal(a, b):
        return 0.0
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(a)), 1e-300))


def compare(name, a, b, rtol):
    """bit for bit (rtol 0) or to rtol relative; returns the relative difference"""
    a, b = np.asarray(a), np.asarray(b)
    check(a.shape == b.shape, f"{name}: shapes {a.shape} and {b.shape} differ")
    d = rel(a, b)
    if rtol == 0:
        check(np.array_equal(a, b), f"{name}: not bit for bit equal (relative difference {d:.3g})")
    else:
        check(d <= rtol, f"{name}: relative difference {d:.3g} > {rtol:g}")
    return d


def cmd_same(args):
    with h5py.File(args.a, "r") as fa, h5py.File(args.b, "r") as fb:
        ca, cb = fa["checkpoint"], fb["checkpoint"]
        check(int(ca.attrs["complete"]) == 1 and int(cb.attrs["complete"]) == 1, "a checkpoint is incomplete")
        check(int(ca.attrs["step"]) == int(cb.attrs["step"]), f"steps {ca.attrs['step']} and {cb.attrs['step']} differ")
        worst = 0.0
        for k in VECTORS:
            check((k in ca) == (k in cb), f"/checkpoint/{k} is in one checkpoint only")
            if k in ca:
                worst = max(worst, compare(f"/checkpoint/{k}", ca[k][:], cb[k][:], args.rtol))
        for k in ("time", "dt"):
            worst = max(worst, compare(f"attribute {k}", ca.attrs[k], cb.attrs[k], args.rtol))
        how = "bit for bit" if args.rtol == 0 else f"to {worst:.3g} relative (<= {args.rtol:g})"
        step = int(ca.attrs["step"])
    print(f"{args.a} and {args.b}: the same state at step {step}, {how}")


def monitor_steps_once(f, name):
    steps = f["monitor/step"][:]
    check(np.array_equal(steps, np.arange(len(steps))), f"{name}: /monitor/step is not 0..{len(steps) - 1} once each: {steps}")
    for k in f["monitor"]:
        check(f["monitor"][k].shape == steps.shape, f"{name}: /monitor/{k} has {f['monitor'][k].shape[0]} entries, /monitor/step {len(steps)}")
    return steps


def cmd_output(args):
    with h5py.File(args.a, "r") as fa, h5py.File(args.b, "r") as fb:
        monitor_steps_once(fa, args.a)
        steps = monitor_steps_once(fb, args.b)
        check(sorted(fa["monitor"].keys()) == sorted(fb["monitor"].keys()), "the /monitor datasets differ")
        worst = 0.0
        for k in fa["monitor"]:
            a, b = fa["monitor"][k][:], fb["monitor"][k][:]
            if args.rtol and k in ("snes_its", "ksp_its"):
                check(a.shape == b.shape, f"/monitor/{k}: shapes differ")
                continue  # iteration counts may differ by one on other rank counts
            worst = max(worst, compare(f"/monitor/{k}", a, b, args.rtol))
        # the state and every per-cell field (the solid's stress, von_mises, J)
        check(sorted(fa["fields"].keys()) == sorted(fb["fields"].keys()), f"the /fields datasets differ: {sorted(fa['fields'].keys())} and {sorted(fb['fields'].keys())}")
        for k in fa["fields"]:
            worst = max(worst, compare(f"/fields/{k}", fa["fields"][k][:], fb["fields"][k][:], args.rtol))
        how = "bit for bit" if args.rtol == 0 else f"to {worst:.3g} relative (<= {args.rtol:g})"
        snaps = list(fb["fields/step"][:])
    print(f"{args.a} and {args.b}: equal {how}; /monitor has steps 0..{steps[-1]} once each, snapshots {snaps}")


def cmd_at(args):
    with h5py.File(args.file, "r") as f:
        c = f["checkpoint"]
        check(c.attrs["format"] in (b"tsmech-checkpoint", "tsmech-checkpoint"), "not a tsmech checkpoint")
        check(int(c.attrs["complete"]) == 1, "incomplete")
        check(int(c.attrs["step"]) == args.step, f"step {c.attrs['step']}, expected {args.step}")
        for k in VECTORS:
            if k in c:
                check(np.all(np.isfinite(c[k][:])), f"/checkpoint/{k} is not finite")
    print(f"{args.file}: a complete checkpoint of step {args.step}")


def cmd_monitor(args):
    with h5py.File(args.file, "r") as f:
        steps = monitor_steps_once(f, args.file)
        check(steps[-1] == args.last, f"/monitor ends at step {steps[-1]}, expected {args.last}")
        if args.snap:
            s = list(f["fields/step"][:])
            check(s == args.snap, f"/fields/step is {s}, expected {args.snap}")
            for k in f["fields"]:
                check(f["fields"][k].shape[0] == len(s), f"/fields/{k} has {f['fields'][k].shape[0]} snapshots, /fields/step {len(s)}")
            check(np.array_equal(f["fields/time"][:], f["monitor/time"][:][s]), "/fields/time differs from /monitor/time")
    print(f"{args.file}: /monitor holds steps 0..{args.last} once each" + (f", snapshots {args.snap}" if args.snap else ""))


def cmd_xmf(args):
    texts = []
    for name in (args.a, args.b):
        with open(name) as f:
            texts.append(re.sub(r">[^<>:]+\.h5:", ">FILE.h5:", f.read()))
    check(texts[0] == texts[1], f"{args.a} and {args.b} describe different snapshots")
    print(f"{args.a} and {args.b}: the same {texts[0].count('<Time ')} snapshots")


def cmd_mutate(args):
    if args.kind == "truncate":
        data = open(args.src, "rb").read()
        open(args.dst, "wb").write(data[: len(data) // 2])
    elif args.kind == "corrupt":
        with h5py.File(args.src, "r") as f:
            raw = np.ascontiguousarray(f["checkpoint/q"][:], dtype="<f8").tobytes()
        data = bytearray(open(args.src, "rb").read())
        off = bytes(data).find(raw)
        check(off >= 0, "the data of /checkpoint/q are not stored contiguously")
        data[off + len(raw) // 2] ^= 0x10  # one bit of a value in the middle
        open(args.dst, "wb").write(bytes(data))
    else:
        shutil.copy(args.src, args.dst)
        with h5py.File(args.dst, "a") as f:
            if args.kind in ("setattr", "resum"):
                f["checkpoint"].attrs[args.name] = type(f["checkpoint"].attrs[args.name].item())(args.value)
                if args.kind == "resum":
                    set_header_checksum(f["checkpoint"])
            elif args.kind == "delattr":
                del f["checkpoint"].attrs[args.name]
            elif args.kind in ("settext", "forgetext"):
                # a text parameter's value: without (settext) or with (forgetext) a matching checksum
                set_string(f["checkpoint/model_text_parameters"], args.name, args.value)
                if args.kind == "forgetext":
                    set_header_checksum(f["checkpoint"])
            elif args.kind == "nullpadtext":
                # the same value as a NUL-padded string (not the datatype tsmech writes)
                t = f["checkpoint/model_text_parameters"]
                value = text(t.attrs[args.name])
                del t.attrs[args.name]
                t.attrs.create(args.name, np.bytes_(value), dtype=h5py.string_dtype("ascii", len(value) + 1))
            elif args.kind == "v2":
                # as format version 2 wrote it: no text parameters; a text parameter NAME given is
                # recorded as the number VALUE instead, as the solid's material code was
                c = f["checkpoint"]
                if args.name:
                    names = [p for p in text(c.attrs["model_parameters"]).split(",") if p] + [args.name]
                    set_string(c, "model_parameters", ",".join(names))
                    c["model_parameters"].attrs[args.name] = np.float64(args.value)
                del c.attrs["model_text_parameters"]
                del c["model_text_parameters"]
                c.attrs["format_version"] = np.int64(2)
                set_header_checksum(c)
            else:
                raise CheckError(f"unknown mutation {args.kind}")
    print(f"{args.dst}: {args.kind} copy of {args.src}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("same", "output", "xmf"):
        p = sub.add_parser(name)
        p.add_argument("a")
        p.add_argument("b")
        p.add_argument("--rtol", type=float, default=0.0)
    p = sub.add_parser("at")
    p.add_argument("file")
    p.add_argument("--step", type=int, required=True)
    p = sub.add_parser("monitor")
    p.add_argument("file")
    p.add_argument("--last", type=int, required=True)
    p.add_argument("--snap", type=int, nargs="*")
    p = sub.add_parser("mutate")
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("kind", choices=["corrupt", "truncate", "setattr", "delattr", "resum", "settext", "forgetext", "nullpadtext", "v2"])
    p.add_argument("name", nargs="?")
    p.add_argument("value", nargs="?")
    args = ap.parse_args()
    try:
        {"same": cmd_same, "output": cmd_output, "at": cmd_at, "monitor": cmd_monitor, "xmf": cmd_xmf, "mutate": cmd_mutate}[args.cmd](args)
    except (CheckError, OSError, KeyError) as e:
        print(f"check_checkpoint.py {args.cmd}: FAILED: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
