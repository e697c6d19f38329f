#!/usr/bin/python3
"""Table-driven test of bad command lines, damaged files and failing runs of the tsmech program.

  run_table.py TSMECH MPIEXEC TABLE WORKDIR [NAME ...]

Makes the fixtures in WORKDIR (a chain run's output and checkpoint, a kepler output, a 4 x 4 cloth
checkpoint, a solid's checkpoint and output, damaged copies: truncated, without a dataset, with a dataset of the wrong size, with a
wrong size attribute, with a flipped bit; a text file, an empty file, a foreign HDF5 file, a
directory), then runs every row of TABLE (bad_input.tsv; only the rows NAME if given) there. For
each row:

  - the hashes, sizes and modification times of every file under WORKDIR are taken;
  - tsmech runs with -quiet and the row's arguments, on 1 rank (directly) or 2 (mpiexec -q);
  - its exit status must be the row's, its output (stdout and stderr) must contain the row's
    regular expression; for status 2 (bad input) the whole output must be that one line
    "tsmech: error: ...";
  - no file may have changed or appeared, except the row's "creates" files, which must exist;
  - @LONG:N@ in the arguments, the created files, the checks and the regular expression is a relative path of
    N characters (under lp/ddd.../, file name N - 124 characters), @NAME:N@ a file name of N
    characters, @PID@ the process id of a helper that holds the lock of busy.h5 (on the lock
    file .busy.h5.lock, as another run would);
  - the row's extra checks run (column 5, ';'-separated):
      needs:chattr       the row is skipped where the work directory takes no chattr +a/+i
      unused:OPT         the only "given but never used" warning is about OPT
      rejected           the summary counts at least one rejected step
      stable:TRUTH       the stable step the message estimates is within a factor 2 of TRUTH
      within:S           the run ended within S seconds (a hang or a long wait is a failure)
      valid:FILE         FILE is a valid tsmech output (datasets of equal lengths, consecutive
                         steps, finite values, a last snapshot at the last step)
      diverged:ARGS      (after a failed run with -output and -checkpoint) the output is valid and
                         ends at the last good step; the checkpoint holds that step K (after a
                         blow-up an earlier one, the last before the energy grew), is marked as
                         written after a failure, and its q and v are bit for bit those of a run
                         stopped at K; a restart with ARGS added runs to the end and continues the
                         output, every step once
  - the row's created files are removed.

Prints one line per row and a summary; exits 1 if a row failed. Needs Debian's /usr/bin/python3
with h5py and numpy.
"""
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from program_output import program_lines  # noqa: E402  (the output without the launcher's noise)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "checkpoint"))
import check_checkpoint as cc  # noqa: E402  (string attributes as tsmech writes them)

TSMECH, MPIEXEC, TABLE, WORK = sys.argv[1:5]
ONLY = set(sys.argv[5:])
TSMECH = os.path.abspath(TSMECH)
CAPS = set()  # what the fixtures could make: "chattr"
BUSY = None  # the helper process that holds the lock of busy.h5
LONGDIR = "lp/" + "d" * 120  # @LONG:N@ paths are LONGDIR/<N - 124 characters>


class RowFailure(Exception):
    pass


def need(cond, msg):
    if not cond:
        raise RowFailure(msg)


def run(np_, args, timeout=120):
    """Runs tsmech on np_ ranks in WORK; returns (status, output)."""
    cmd = [TSMECH, "-quiet"] + args
    if np_ > 1:
        cmd = [MPIEXEC, "-q", "-n", str(np_)] + cmd
    p = subprocess.run(cmd, cwd=WORK, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace")


def must_run(args, np_=1):
    status, out = run(np_, args)
    if status != 0:
        raise RuntimeError(f"fixture run failed ({status}): tsmech {' '.join(args)}\n{out}")
    return out


def snapshot():
    """{path: (size, mtime_ns, sha256)} of every file under WORK"""
    snap = {}
    for root, dirs, files in os.walk(WORK):
        for f in files:
            path = os.path.join(root, f)
            st = os.stat(path)
            with open(path, "rb") as fh:
                digest = hashlib.sha256(fh.read()).hexdigest()
            snap[os.path.relpath(path, WORK)] = (st.st_size, st.st_mtime_ns, digest)
    return snap


def unprotect():
    """Takes chattr +a/+i off the fixtures, so that the directory can be removed"""
    if os.path.isdir(WORK):
        subprocess.run(["chattr", "-R", "-a", "-i", WORK], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def expand(text):
    """@LONG:N@, @NAME:N@ and @PID@ (see the top)"""
    text = re.sub(r"@LONG:(\d+)@", lambda m: LONGDIR + "/" + "e" * (int(m.group(1)) - len(LONGDIR) - 4) + ".h5", text)
    text = re.sub(r"@NAME:(\d+)@", lambda m: "n" * (int(m.group(1)) - 3) + ".h5", text)
    return text.replace("@PID@", str(BUSY.pid) if BUSY else "@PID@")


def make_file_fixtures():
    """The fixtures of the files a run derives: rotation slots, XDMF files, hard links, long
    paths, append-only and immutable files, a lock held by this process"""
    w = lambda name: os.path.join(WORK, name)
    must_run(["-model", "cloth", "-cloth_n", "4", "-ts_max_steps", "3", "-output", "cloth_out.h5"])
    shutil.copy(w("notes.txt"), w("rot.h5.1"))  # a text file in a rotation slot
    shutil.copy(w("out.h5"), w("rot2.h5.2"))  # an output in a rotation slot
    os.makedirs(w("rot3.h5.1"))  # a directory in a rotation slot
    with open(w("foreign.xmf"), "w") as fh:  # an XDMF file of another program beside foreign.h5
        fh.write('<?xml version="1.0" ?>\n<Xdmf Version="2.0"><Domain/></Xdmf>\n')
    os.makedirs(w("dirx.xmf"))
    # an XDMF file tsmech wrote before it marked them: known by its reference to legacy.h5
    shutil.copy(w("cloth_out.h5"), w("legacy.h5"))
    text = open(w("cloth_out.xmf")).read().replace("cloth_out.h5:", "legacy.h5:")
    open(w("legacy.xmf"), "w").write("".join(l for l in text.splitlines(True) if "<!-- tsmech" not in l))
    shutil.copy(w("out.h5"), w("linko.h5"))
    os.link(w("linko.h5"), w("linko2.h5"))
    os.makedirs(w(LONGDIR))
    # append-only and immutable files and directories, where the file system has them
    shutil.copy(w("out.h5"), w("appendonly.h5"))
    shutil.copy(w("ck.h5"), w("immutable.h5"))
    shutil.copy(w("ck.h5"), w("rotA.h5"))
    shutil.copy(w("ck.h5"), w("rotA.h5.1"))
    shutil.copy(w("cloth_out.h5"), w("immx.h5"))
    shutil.copy(w("cloth_out.xmf"), w("immx.xmf"))
    os.makedirs(w("adir_a"))
    ok = True
    for attr, name in (("+a", "appendonly.h5"), ("+i", "immutable.h5"), ("+a", "rotA.h5.1"), ("+i", "immx.xmf"), ("+a", "adir_a")):
        ok = ok and subprocess.run(["chattr", attr, w(name)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    if ok:
        CAPS.add("chattr")
    # the lock another run would hold on busy.h5, held by a helper process (an fcntl() lock of
    # this process would go when snapshot() closes the file; the helper ends when this script
    # does, which closes its stdin)
    global BUSY
    holder = "import fcntl, sys\nf = open(sys.argv[1], 'a')\nfcntl.lockf(f, fcntl.LOCK_EX)\nprint('locked', flush=True)\nsys.stdin.read()\n"
    open(w(".busy.h5.lock"), "w").close()
    BUSY = subprocess.Popen([sys.executable, "-c", holder, w(".busy.h5.lock")], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    need(BUSY.stdout.readline().strip() == b"locked", "the helper holding the lock of busy.h5 did not start")


def make_fixtures():
    unprotect()
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    chain = ["-model", "chain", "-chain_n", "12"]
    must_run(chain + ["-ts_max_steps", "10", "-output", "out.h5", "-checkpoint", "ck.h5"])
    must_run(["-model", "kepler", "-ts_max_steps", "10", "-output", "kepler_out.h5"])
    must_run(["-model", "cloth", "-cloth_n", "4", "-ts_max_steps", "3", "-checkpoint", "cloth4.h5"])
    # the solid (its material a text parameter): a checkpoint and output, and the checkpoint with
    # its material damaged (the value changed, the checksum not)
    must_run(["-model", "solid", "-solid_beam_cells", "2,1,1", "-ts_dt", "1e-4", "-ts_max_steps", "3", "-checkpoint", "solid_ck.h5", "-output", "solid_out.h5"])
    w = lambda name: os.path.join(WORK, name)
    data = open(w("ck.h5"), "rb").read()
    open(w("truncated.h5"), "wb").write(data[: len(data) // 2])
    data = open(w("out.h5"), "rb").read()
    open(w("out_truncated.h5"), "wb").write(data[: len(data) // 2])
    shutil.copy(w("ck.h5"), w("no_v.h5"))
    with h5py.File(w("no_v.h5"), "r+") as f:
        del f["checkpoint/v"]
    shutil.copy(w("ck.h5"), w("short_q.h5"))
    with h5py.File(w("short_q.h5"), "r+") as f:
        q = f["checkpoint/q"][...].ravel()[:33]
        del f["checkpoint/q"]
        f["checkpoint/q"] = q
    shutil.copy(w("ck.h5"), w("size37.h5"))
    with h5py.File(w("size37.h5"), "r+") as f:
        f["checkpoint"].attrs["global_size"] = np.int64(37)
    shutil.copy(w("ck.h5"), w("corrupted.h5"))
    with h5py.File(w("corrupted.h5"), "r+") as f:
        q = f["checkpoint/q"]
        a = q[...]
        a.ravel()[5] = np.nextafter(a.ravel()[5], np.inf)
        q[...] = a
    shutil.copy(w("solid_ck.h5"), w("solid_text.h5"))
    with h5py.File(w("solid_text.h5"), "r+") as f:
        cc.set_string(f["checkpoint/model_text_parameters"], "material", "svk")
    with open(w("notes.txt"), "w") as fh:
        fh.write("# a text file: neither an output nor a checkpoint\n")
    open(w("empty.h5"), "wb").close()
    with h5py.File(w("other.h5"), "w") as f:
        f["mesh"] = np.arange(10.0)
    os.makedirs(w("adir"))
    make_file_fixtures()


def output_steps(path):
    """Checks that path is a valid, complete tsmech output; returns its /monitor/step"""
    with h5py.File(path, "r") as f:
        need("model" in f.attrs, f"{path}: no attribute /model")
        n = {len(f["monitor"][k]) for k in f["monitor"]}
        need(len(n) == 1, f"{path}: /monitor datasets of unequal lengths {sorted(n)}")
        steps = f["monitor/step"][:]
        need(np.array_equal(steps, np.arange(steps[0], steps[0] + len(steps))), f"{path}: /monitor/step is not consecutive: {steps}")
        nsnap = len(f["fields/step"])
        need(f["fields/q"].shape[0] == nsnap and f["fields/v"].shape[0] == nsnap and len(f["fields/time"]) == nsnap, f"{path}: /fields datasets of unequal lengths")
        need(int(f["fields/step"][-1]) == int(steps[-1]), f"{path}: the last snapshot is not of the last step")
        need(np.all(np.isfinite(f["fields/q"][...])) and np.all(np.isfinite(f["monitor/energy"][:])), f"{path}: values that are not finite")
        return steps


def check_diverged(row, args, created, extra):
    out_h5, ck_h5 = [c for c in created if c.endswith(".h5")]
    steps = output_steps(os.path.join(WORK, out_h5))
    last = int(steps[-1])
    with h5py.File(os.path.join(WORK, ck_h5), "r") as f:
        c = f["checkpoint"]
        need(int(c.attrs["complete"]) == 1, f"{ck_h5}: incomplete")
        k = int(c.attrs["step"])
        # the last good step; after a blow-up an earlier one, before the energy grew
        need(k == last or ("blow-up" in row["regex"] and 0 < k < last), f"{ck_h5}: step {k}, the output ends at step {last}")
        need(int(c.attrs["failed_step"]) == 1, f"{ck_h5}: not marked as written after a failed step")
        q, v = c["q"][...], c["v"][...]
    # the same run stopped at step k: its state is the last good state
    ref = [a for a in args]
    for opt in ("-output", "-checkpoint"):
        i = ref.index(opt)
        del ref[i : i + 2]
    status, out = run(row["np"], ref + ["-ts_max_steps", str(k), "-checkpoint", "refck.h5"])
    need(status == 0, f"the reference run to step {k} failed: {out}")
    with h5py.File(os.path.join(WORK, "refck.h5"), "r") as f:
        need(np.array_equal(f["checkpoint/q"][...], q) and np.array_equal(f["checkpoint/v"][...], v), f"{ck_h5}: not the state of step {k} (the last good one)")
    os.remove(os.path.join(WORK, "refck.h5"))
    # the restart with the fix runs to the end and continues the output
    status, out = run(row["np"], args + ["-restart", ck_h5] + shlex.split(extra))
    need(status == 0, f"the restart from {ck_h5} with {extra} failed ({status}): {out}")
    need(re.search(r"holds the last good state \(step %d\) of a run that failed" % k, out), f"the restart does not say the checkpoint was written after a failure: {out}")
    steps2 = output_steps(os.path.join(WORK, out_h5))
    need(steps2[0] == 0 and steps2[-1] > k, f"{out_h5}: after the restart /monitor covers steps {steps2[0]}..{steps2[-1]}")
    return f"output to step {last}, checkpoint of step {k} bit for bit, restarted with {extra} to step {int(steps2[-1])}"


def check_output(row, status, out):
    need(status == row["exit"], f"exit status {status}, expected {row['exit']}")
    need(re.search(row["regex"], out), f"the output does not match /{row['regex']}/")
    if row["exit"] == 2:
        lines = program_lines(out)
        need(len(lines) == 1 and lines[0].startswith("tsmech: error: "), f"not one line 'tsmech: error: ...' but {len(lines)} lines")


def check_stable(out, truth):
    m = re.search(r"the stable step is below ([0-9.eE+-]+) \(2/omega = ([0-9.eE+-]+)\)", out)
    need(m, "no stable-step estimate in the message")
    est = float(m.group(1))
    ratio = est / truth
    need(0.5 <= ratio <= 2, f"the estimated stable step {est:g} is not within a factor 2 of {truth:g}")
    return f"stable step {est:.6g} vs true {truth:.6g} (ratio {ratio:.5f})"


def run_row(row):
    row = dict(row, creates=expand(row["creates"]), check=expand(row["check"]), regex=expand(row["regex"]), args=expand(row["args"]))
    for need_ in [c[6:] for c in row["check"].split(";") if c.startswith("needs:")]:
        if need_ not in CAPS:
            return None, f"skipped: the work directory has no {need_}"
    args = shlex.split(row["args"])
    before = snapshot()
    try:
        return check_row(row, args, before)
    finally:
        # the files the row created go, so that the next row starts from the fixtures
        for root, dirs, files in os.walk(WORK):
            for f in files:
                rel = os.path.relpath(os.path.join(root, f), WORK)
                if rel not in before:
                    os.remove(os.path.join(root, f))


def check_row(row, args, before):
    t0 = time.time()
    status, out = run(row["np"], args)
    elapsed = time.time() - t0
    try:
        check_output(row, status, out)
    except RowFailure as e:
        raise RowFailure(f"{e}\n     output (exit {status}):\n" + "\n".join("       " + l for l in out.splitlines()))
    after = snapshot()
    created = [c for c in row["creates"].split(",") if c and c != "-"]
    for c in created:
        need(c in after, f"{c} was not created")
    changed = sorted(k for k in set(before) | set(after) if k not in created and before.get(k) != after.get(k))
    need(not changed, f"files changed or appeared: {', '.join(changed)}")
    notes = []
    for chk in [c for c in row["check"].split(";") if c and c != "-"]:
        name, _, arg = chk.partition(":")
        if name == "needs":
            continue
        if name == "unused":
            warnings = [l for l in out.splitlines() if "was given but never used" in l]
            need(len(warnings) == 1 and f"option {arg} was given" in warnings[0], f"warnings about unused options: {warnings}")
        elif name == "rejected":
            m = re.search(r"\((\d+) rejected\)", out)
            need(m and int(m.group(1)) > 0, "no rejected step")
            notes.append(f"{m.group(1)} rejected steps")
        elif name == "stable":
            notes.append(check_stable(out, float(arg)))
        elif name == "valid":
            steps = output_steps(os.path.join(WORK, arg))
            notes.append(f"{arg} valid, steps {int(steps[0])}..{int(steps[-1])}")
        elif name == "diverged":
            notes.append(check_diverged(row, args, created, arg))
        elif name == "within":
            need(elapsed <= float(arg), f"took {elapsed:.1f} s, more than {arg} s")
        else:
            raise RowFailure(f"unknown check {name}")
    return elapsed, "; ".join(notes)


def main():
    rows = []
    with open(TABLE) as fh:
        for line in fh:
            if not line.strip() or line.startswith("#"):
                continue
            name, np_, exit_, creates, check, regex, args = line.rstrip("\n").split("\t")
            rows.append(dict(name=name, np=int(np_), exit=int(exit_), creates=creates, check=check, regex=regex, args=args))
    if ONLY:
        rows = [r for r in rows if r["name"] in ONLY]
    make_fixtures()
    failed = 0
    for row in rows:
        try:
            elapsed, notes = run_row(row)
            if elapsed is None:
                print(f"skip {row['name']:34s} {notes}")
                continue
            print(f"ok   {row['name']:34s} {elapsed:5.2f} s  {notes}")
        except (RowFailure, subprocess.TimeoutExpired) as e:
            failed += 1
            print(f"FAIL {row['name']}: {e}\n     tsmech {row['args']}")
        sys.stdout.flush()
    print(f"{len(rows) - failed} of {len(rows)} rows passed")
    if BUSY:
        BUSY.kill()
    unprotect()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
