#!/usr/bin/python3
"""A full disk: tsmech says so in one line, keeps the previous checkpoint and leaves no temporary.

  run_diskfull.py TSMECH MPIEXEC WORKDIR SHIM

The "disk" is a small file system at WORKDIR/disk: a tmpfs of 4 MiB, else an ext2 image on a loop
device, else (where nothing can be mounted) the LD_PRELOAD shim SHIM (enospc.c: writes to files
under the directory fail with ENOSPC past a budget, and statvfs() reports what is left). The
environment variable TSMECH_DISKFULL_METHOD=tmpfs|loop|shim picks one. Exits 77 (skipped) only if
no method works, saying why. The cases (the room left is set before each run):

  full_at_start     16 KiB left: refused before anything is written, exit 2, the one line
                    "tsmech: error: -output o.h5 cannot be written: no space left on device (...)"
  full_first_step   room for the checks and the header, not the first snapshot: exit 3, a line
                    naming o.h5 and "no space left on device", "no step was completed", no file
  full_mid_run      the output and checkpoints (cloth 16 x 16, a snapshot every step) fill the
                    disk: exit 3, every error line names o.h5 or c.h5 and "no space left on
                    device", no HDF5, PETSc or Open MPI error text; no temporary file left; c.h5 a
                    complete checkpoint that the output reaches; with the room back, -restart c.h5
                    runs to the end and the output has every step once
  full_mid_run_2ranks  the same on 2 ranks
  full_checkpoints  checkpoints only, -checkpoint_keep 4: exit 3 naming c.h5, the last checkpoint
                    written intact and complete, no temporary file

Prints one line per case; exits 1 if a check failed. Needs Debian's /usr/bin/python3 with h5py
and numpy, and root for the mounts.
"""
import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from program_output import program_lines  # noqa: E402  (the output without the launcher's noise)

TSMECH, MPIEXEC, WORK, SHIM = sys.argv[1:5]
TSMECH = os.path.abspath(TSMECH)
WORK = os.path.abspath(WORK)
SHIM = os.path.abspath(SHIM)
DISK = os.path.join(WORK, "disk")
SIZE = 4 << 20
METHOD = None
ENV = dict(os.environ)
KIB = 1024


class Failure(Exception):
    pass


def need(cond, msg):
    if not cond:
        raise Failure(msg)


def sh(*cmd):
    p = subprocess.run(list(cmd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return p.returncode, p.stdout.decode(errors="replace").strip()


def mounted():
    with open("/proc/mounts") as fh:
        return any(l.split()[1] == DISK for l in fh)


def unmount():
    while mounted():
        if sh("umount", DISK)[0]:
            sh("umount", "-l", DISK)
            break


def setup():
    """Makes the small file system; returns the method, or None and the reasons it could not"""
    global METHOD
    unmount()
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(DISK)
    why = []
    methods = [os.environ["TSMECH_DISKFULL_METHOD"]] if os.environ.get("TSMECH_DISKFULL_METHOD") else ["tmpfs", "loop", "shim"]
    for m in methods:
        if m == "tmpfs":
            rc, out = sh("mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", DISK)
            if rc == 0:
                METHOD = m
                return m
            why.append(f"mount -t tmpfs: {out}")
        elif m == "loop":
            img = os.path.join(WORK, "disk.img")
            with open(img, "wb") as fh:
                fh.truncate(SIZE)
            rc, out = sh("mkfs.ext2", "-q", "-F", "-m", "0", img)
            if rc == 0:
                rc, out = sh("mount", "-o", "loop", img, DISK)
            if rc == 0:
                METHOD = m
                return m
            why.append(f"loop device: {out}")
        elif m == "shim":
            if not os.path.exists(SHIM):
                why.append(f"the shim {SHIM} was not built")
                continue
            counter = os.path.join(WORK, "enospc.counter")
            with open(counter, "wb") as fh:
                fh.write(bytes(8))
            ENV.update(LD_PRELOAD=SHIM, ENOSPC_DIR=DISK, ENOSPC_COUNTER=counter, ENOSPC_BYTES=str(SIZE))
            # the shim must see writes: one that exceeds a tiny budget must fail
            probe = subprocess.run([sys.executable, "-c", f"import os\nfd = os.open({os.path.join(DISK, 'probe')!r}, os.O_WRONLY | os.O_CREAT)\ntry:\n    os.write(fd, bytes(100))\n    print('wrote')\nexcept OSError as e:\n    print(e.errno)"], env=dict(ENV, ENOSPC_BYTES="10"), stdout=subprocess.PIPE)
            os.remove(os.path.join(DISK, "probe"))
            if probe.stdout.strip() == b"28":
                METHOD = m
                return m
            why.append(f"the shim does not work here (a write past its budget gave {probe.stdout.strip().decode()})")
        else:
            why.append(f"unknown method {m}")
    return None, why


def free_bytes():
    st = os.statvfs(DISK)
    return st.f_bavail * st.f_frsize


def leave(nbytes, data=False):
    """Leaves about nbytes of room on the disk for the next run. The shim counts every byte
    written, and HDF5 writes its metadata again and again: for a run that writes its data
    (data=True) the shim's budget is 2.5 times the room (measured: a cloth 16 x 16 run with an
    output and checkpoints writes 2.5 times the size of its files)."""
    filler = os.path.join(DISK, "filler")
    if os.path.exists(filler):
        os.remove(filler)
    if METHOD == "shim":
        with open(ENV["ENOSPC_COUNTER"], "wb") as fh:
            fh.write(bytes(8))
        ENV["ENOSPC_BYTES"] = str(int(nbytes * (2.5 if data else 1)))
        return
    need(free_bytes() > nbytes, f"the disk has {free_bytes()} bytes free, less than the {nbytes} to leave")
    with open(filler, "wb") as fh:
        fh.write(bytes(free_bytes() - nbytes))
        # the file system's own blocks (ext2's indirect blocks) take some room too: cut back
        for _ in range(8):
            fh.flush()
            os.fsync(fh.fileno())
            short = nbytes - free_bytes()
            if short <= 0:
                break
            fh.truncate(max(0, fh.tell() - short))
            fh.seek(0, os.SEEK_END)
    need(abs(free_bytes() - nbytes) <= 16 * KIB, f"{free_bytes()} bytes free after the filler, {nbytes} wanted")


def run(args, ranks=1):
    cmd = [TSMECH, "-quiet"] + args
    if ranks > 1:
        cmd = [MPIEXEC, "-q", "-n", str(ranks)] + cmd
    p = subprocess.run(cmd, cwd=DISK, env=ENV, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def files():
    """The files on the disk but the filler (an ext2 disk also has lost+found)"""
    return sorted(f for f in os.listdir(DISK) if f != "filler" and not os.path.isdir(os.path.join(DISK, f)))


def clean():
    for f in files():
        os.remove(os.path.join(DISK, f))


def output_steps(path):
    with h5py.File(path, "r") as f:
        steps = f["monitor/step"][:]
        need(len({len(f["monitor"][k]) for k in f["monitor"]}) == 1, f"{path}: /monitor datasets of unequal lengths")
        need(np.array_equal(steps, np.arange(len(steps))), f"{path}: /monitor/step is not 0, 1, ...")
        need(int(f["fields/step"][-1]) == int(steps[-1]), f"{path}: its last snapshot is not of its last step")
        return steps


def checkpoint_step(path):
    with h5py.File(path, "r") as f:
        c = f["checkpoint"]
        need(int(c.attrs["complete"]) == 1, f"{path}: an incomplete checkpoint")
        return int(c.attrs["step"])


def no_noise(text):
    """None of HDF5's, PETSc's or Open MPI's own error reports"""
    for bad in ("HDF5-DIAG", "PETSC ERROR", "mca_", "Segmentation", "signal", "#0"):
        need(bad not in text, f"the output holds '{bad}': {text}")


def error_lines(err):
    return [l for l in err.splitlines() if l.startswith("tsmech:") and ("error" in l or "failed" in l)]


CLOTH = ["-model", "cloth", "-cloth_n", "16"]


def full_at_start():
    leave(16 * KIB)
    status, out, err = run(["-model", "chain", "-output", "o.h5", "-checkpoint", "c.h5"])
    lines = program_lines(out + err)
    need(status == 2, f"exit {status}: {out}{err}")
    need(len(lines) == 1 and re.match(r"tsmech: error: -output o.h5 cannot be written: no space left on device \(\d+ bytes free in \.\)$", lines[0]), f"not the one line: {lines}")
    need(files() == [], f"files left: {files()}")
    return lines[0]


def full_first_step():
    leave(72 * KIB)
    status, out, err = run(CLOTH + ["-ts_max_steps", "20", "-output", "o.h5"])
    no_noise(out + err)
    need(status == 3, f"exit {status}: {out}{err}")
    lines = error_lines(err)
    need(lines and all("o.h5" in l and "no space left on device" in l for l in lines), f"error lines: {lines}")
    need("no step was completed: no file was written" in out, f"stdout: {out}")
    need(files() == [], f"files left: {files()}")
    return lines[0]


def full_mid_run(ranks=1):
    leave(400 * KIB, data=True)
    args = CLOTH + ["-ts_max_steps", "60", "-output", "o.h5", "-output_every", "1", "-checkpoint", "c.h5", "-checkpoint_every", "10", "-checkpoint_keep", "2"]
    status, out, err = run(args, ranks)
    no_noise(out + err)
    need(status == 3, f"exit {status}: {out}{err}")
    lines = error_lines(err)
    need(lines and re.search(r"tsmech: step \d+ at t = \S+ \(dt = \S+\) failed: .*Cannot write the (HDF5 output o.h5|checkpoint c.h5): no space left on device", lines[0]), f"the first error line: {lines}")
    need(len(lines) == 1, f"not one error line: {lines}")
    need("the disk is full" in out and "-ts_dt" not in out, f"stdout does not say the disk is full (or suggests another step): {out}")
    need(not [f for f in files() if ".tmp-" in f or f.endswith(".lock")], f"files left: {files()}")
    k = checkpoint_step(os.path.join(DISK, "c.h5"))
    last = int(output_steps(os.path.join(DISK, "o.h5"))[-1])
    need(0 < k <= last < 60, f"the checkpoint is of step {k}, the output ends at step {last}")
    # the room back: the restart runs to the end and continues the output
    leave(2 << 20)
    status, out, err = run(args + ["-restart", "c.h5"], ranks)
    need(status == 0, f"the restart failed ({status}): {out}{err}")
    steps = output_steps(os.path.join(DISK, "o.h5"))
    need(int(steps[-1]) == 60 and checkpoint_step(os.path.join(DISK, "c.h5")) == 60, f"after the restart the output ends at step {int(steps[-1])}")
    return f"failed with the checkpoint of step {k} intact and the output to step {last}; restarted to step 60: {lines[0][:100]}..."


def full_checkpoints():
    leave(200 * KIB, data=True)
    status, out, err = run(CLOTH + ["-ts_max_steps", "60", "-checkpoint", "c.h5", "-checkpoint_every", "5", "-checkpoint_keep", "4"])
    no_noise(out + err)
    need(status == 3, f"exit {status}: {out}{err}")
    lines = error_lines(err)
    need(lines and all("c.h5" in l and "no space left on device" in l for l in lines), f"error lines: {lines}")
    need(not [f for f in files() if ".tmp-" in f or f.endswith(".lock")], f"files left: {files()}")
    ks = [checkpoint_step(os.path.join(DISK, f)) for f in ("c.h5", "c.h5.1", "c.h5.2", "c.h5.3") if os.path.exists(os.path.join(DISK, f))]
    need(ks and ks == sorted(ks, reverse=True) and all(k % 5 == 0 for k in ks) and ks[0] < 60, f"the checkpoints are of steps {ks}")
    return f"the checkpoints of steps {ks} intact: {lines[0][:100]}..."


def main():
    m = setup()
    if isinstance(m, tuple):
        print("skipped: no small file system could be made: " + "; ".join(m[1]))
        return 77
    print(f"the disk: {METHOD}")
    failed = 0
    try:
        for name, case in (("full_at_start", full_at_start), ("full_first_step", full_first_step), ("full_mid_run", full_mid_run), ("full_mid_run_2ranks", lambda: full_mid_run(2)), ("full_checkpoints", full_checkpoints)):
            clean()
            try:
                print(f"ok   {name:20s} {case()}")
            except (Failure, subprocess.TimeoutExpired, OSError) as e:
                failed += 1
                print(f"FAIL {name}: {e}")
            sys.stdout.flush()
    finally:
        unmount()
    print(f"{5 - failed} of 5 cases passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
