#!/usr/bin/python3
"""Two tsmech runs started together on the same files: exactly one runs, the other is refused.

  run_concurrent.py TSMECH MPIEXEC WORKDIR [ROUNDS]

Scenarios, each a pair of runs started at the same moment, ROUNDS times (default 10; the
scenarios of a round run at the same time, each in a directory of its own):

  same_output      both -output o.h5
  same_checkpoint  both -checkpoint c.h5, each with an output of its own
  crossed          -output x.h5 -checkpoint y.h5 against -output y.h5 -checkpoint x.h5
  rotation         -output r.h5.1 against -checkpoint r.h5 -checkpoint_keep 2 (r.h5.1 is its
                   rotation slot)
  two_restarts     both -restart ck.h5 -checkpoint ck.h5 -output out.h5, continuing one run
  restart_writer   -restart ck.h5 -checkpoint ckA.h5 against -checkpoint ck.h5: a run may not
                   write the checkpoint another one restarts from
  branches         -restart ck.h5 with checkpoints of their own: both run (the restart file is
                   only read: its lock is shared), and ck.h5 is left as it was

For every pair but the branches: one run exits 0, the other exits 2 with the one line
"tsmech: error: ... is in use by another run (process P): ..." naming a file both runs name, P
the process id of the winner; the loser wrote nothing (the directory holds the winner's files
only, with no lock or temporary file left); the winner's files are a valid, complete run (the
output has every step 0..N once and its last snapshot at N, the checkpoint is complete and at
step N). In the last round the runs have 2 ranks (P is then rank 0's, which this script does not
know), and four of the pairs run, one after the other (MPI's ranks wait by spinning: 28 of them
on 2 cores would take minutes).

Before the rounds: a lock file left by a killed run (no process holds its lock) blocks nothing,
and the run removes it. Prints one line per round; exits 1 if a check failed. Needs Debian's
/usr/bin/python3 with h5py and numpy.
"""
import os
import re
import shutil
import subprocess
import sys
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from program_output import program_lines  # noqa: E402  (the output without the launcher's noise)

TSMECH, MPIEXEC, WORK = sys.argv[1:4]
ROUNDS = int(sys.argv[4]) if len(sys.argv) > 4 else 10
TSMECH = os.path.abspath(TSMECH)
# long enough that the winner still runs when the loser, started with it, looks at the files
STEPS = 12000
MODEL = ["-model", "chain", "-chain_n", "12", "-quiet", "-ts_max_time", "1e9"]


class Failure(Exception):
    pass


def need(cond, msg):
    if not cond:
        raise Failure(msg)


def start(cwd, args, ranks):
    cmd = [TSMECH] + MODEL + args
    if ranks > 1:
        cmd = [MPIEXEC, "-q", "-n", str(ranks)] + cmd
    return subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def output_steps(path):
    """The /monitor/step of a valid, complete tsmech output"""
    with h5py.File(path, "r") as f:
        steps = f["monitor/step"][:]
        need(len({len(f["monitor"][k]) for k in f["monitor"]}) == 1, f"{path}: /monitor datasets of unequal lengths")
        need(np.array_equal(steps, np.arange(len(steps))), f"{path}: /monitor/step is not 0, 1, ...: {steps[:5]}...{steps[-5:]}")
        need(int(f["fields/step"][-1]) == int(steps[-1]), f"{path}: its last snapshot is not of its last step")
        need(np.all(np.isfinite(f["monitor/energy"][:])), f"{path}: energies that are not finite")
        return steps


def checkpoint_step(path):
    with h5py.File(path, "r") as f:
        c = f["checkpoint"]
        need(int(c.attrs["complete"]) == 1, f"{path}: an incomplete checkpoint")
        return int(c.attrs["step"])


def scenarios(base):
    """name -> (arguments of run A, of run B, files both name, files of A, files of B, setup)"""
    restart = ["-restart", "ck.h5", "-checkpoint", "ck.h5", "-output", "out.h5"]

    def copy_base(d):
        for f in ("ck.h5", "out.h5"):
            shutil.copy(os.path.join(base, f), os.path.join(d, f))

    return {
        "same_output": (["-output", "o.h5"], ["-output", "o.h5"], ["o.h5"], {"o.h5": "output"}, {"o.h5": "output"}, None),
        "same_checkpoint": (["-checkpoint", "c.h5", "-output", "a.h5"], ["-checkpoint", "c.h5", "-output", "b.h5"], ["c.h5"], {"c.h5": "checkpoint", "a.h5": "output"}, {"c.h5": "checkpoint", "b.h5": "output"}, None),
        "crossed": (["-output", "x.h5", "-checkpoint", "y.h5"], ["-output", "y.h5", "-checkpoint", "x.h5"], ["x.h5", "y.h5"], {"x.h5": "output", "y.h5": "checkpoint"}, {"y.h5": "output", "x.h5": "checkpoint"}, None),
        "rotation": (["-output", "r.h5.1"], ["-checkpoint", "r.h5", "-checkpoint_keep", "2", "-checkpoint_every", str(STEPS // 3)], ["r.h5.1"], {"r.h5.1": "output"}, {"r.h5": "checkpoint", "r.h5.1": "checkpoint"}, None),
        "two_restarts": (restart, restart, ["ck.h5", "out.h5"], {"ck.h5": "checkpoint", "out.h5": "output"}, {"ck.h5": "checkpoint", "out.h5": "output"}, copy_base),
        "restart_writer": (["-restart", "ck.h5", "-checkpoint", "ckA.h5"], ["-checkpoint", "ck.h5"], ["ck.h5"], {"ck.h5": "checkpoint:10", "out.h5": "output:10", "ckA.h5": "checkpoint"}, {"ck.h5": "checkpoint", "out.h5": "output:10"}, copy_base),
        "branches": (["-restart", "ck.h5", "-checkpoint", "ckA.h5"], ["-restart", "ck.h5", "-checkpoint", "ckB.h5"], [], {"ck.h5": "checkpoint:10", "out.h5": "output:10", "ckA.h5": "checkpoint"}, {"ck.h5": "checkpoint:10", "out.h5": "output:10", "ckB.h5": "checkpoint"}, copy_base),
    }


def check_pair(name, d, procs, ranks, shared, files):
    """procs: [(popen, stdout, stderr)] of runs A and B; files: the files of A and of B, as
    {name: "output" | "checkpoint" (of step N) | "output:K" | "checkpoint:K" (of step K)}; no
    shared file: both must run"""
    status = [p.returncode for p, _, _ in procs]
    if not shared:
        need(status == [0, 0], f"exit statuses {status}, expected both 0: {[(o + e).decode(errors='replace') for _, o, e in procs]}")
        expect = dict(files[0], **files[1])
        present = sorted(f for f in os.listdir(d))
        need(present == sorted(expect), f"files {present}, expected {sorted(expect)}")
        check_files(d, expect)
        return "both"
    need(sorted(status) == [0, 2], f"exit statuses {status}, expected one 0 and one 2: {[(o + e).decode(errors='replace') for _, o, e in procs]}")
    win = status.index(0)
    lose = 1 - win
    lines = program_lines(procs[lose][1] + procs[lose][2])
    need(len(lines) == 1, f"the refused run printed {len(lines)} lines: {lines}")
    m = re.match(r"tsmech: error: (.*) is in use by another run \(process (\d+)\): two runs must not write one file", lines[0])
    need(m, f"the refused run's line: {lines[0]}")
    need(any(f in m.group(1) for f in shared), f"the refused run names {m.group(1)}, not one of {shared}")
    if ranks == 1:
        need(int(m.group(2)) == procs[win][0].pid, f"process {m.group(2)} named, the winner is {procs[win][0].pid}")
    present = sorted(f for f in os.listdir(d))
    need(present == sorted(files[win]), f"files {present}, expected the winner's {sorted(files[win])}")
    check_files(d, files[win])
    return "AB"[win]


def check_files(d, files):
    for f, kind in files.items():
        path = os.path.join(d, f)
        kind, _, at = kind.partition(":")
        last = int(at) if at else STEPS
        if kind == "output":
            steps = output_steps(path)
            need(int(steps[-1]) == last, f"{f}: the output ends at step {int(steps[-1])}, not {last}")
        else:
            k = checkpoint_step(path)
            need(k == last or (f.endswith(".1") and k == STEPS - STEPS // 3), f"{f}: a checkpoint of step {k}, not {last}")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    failed = 0
    # a lock file left by a killed run blocks nothing
    stale = os.path.join(WORK, "stale")
    os.makedirs(stale)
    with open(os.path.join(stale, ".s.h5.lock"), "w") as fh:
        fh.write("4194303\n")
    p = start(stale, ["-ts_max_steps", "5", "-output", "s.h5"], 1)
    out, err = p.communicate(timeout=120)
    try:
        need(p.returncode == 0, f"a stale lock file blocked the run ({p.returncode}): {(out + err).decode(errors='replace')}")
        need(sorted(os.listdir(stale)) == ["s.h5"], f"after the run: {sorted(os.listdir(stale))}")
        print("ok   stale lock file: the run works and removes it")
    except Failure as e:
        failed += 1
        print(f"FAIL stale lock file: {e}")
    # the interrupted run the restarts continue
    base = os.path.join(WORK, "base")
    os.makedirs(base)
    p = start(base, ["-ts_max_steps", "10", "-output", "out.h5", "-checkpoint", "ck.h5"], 1)
    out, err = p.communicate(timeout=120)
    need(p.returncode == 0, f"the base run failed: {(out + err).decode(errors='replace')}")
    wins = {}
    for r in range(ROUNDS):
        ranks = 2 if r == ROUNDS - 1 else 1
        t0 = time.time()
        notes, bad = [], 0
        pairs = {}

        def finish():
            nonlocal bad
            for name, (d, procs, shared, files) in pairs.items():
                done = []
                for p in procs:
                    try:
                        out, err = p.communicate(timeout=300)
                    except subprocess.TimeoutExpired:
                        p.kill()
                        out, err = p.communicate()
                    done.append((p, out, err))
                try:
                    w = check_pair(name, d, done, ranks, shared, files)
                    wins[name] = wins.get(name, "") + w
                    notes.append(f"{name} {w}")
                except Failure as e:
                    bad += 1
                    print(f"FAIL round {r} {name} ({ranks} rank{'s' if ranks > 1 else ''}): {e}")
            pairs.clear()

        for name, (a, b, shared, fa, fb, setup) in scenarios(base).items():
            if ranks > 1 and name not in ("same_output", "crossed", "two_restarts", "branches"):
                continue
            d = os.path.join(WORK, f"round{r}", name)
            os.makedirs(d)
            if setup:
                setup(d)
            extra = ["-ts_max_steps", str(STEPS)]
            # started together; which comes first alternates
            order = [(0, a), (1, b)] if r % 2 == 0 else [(1, b), (0, a)]
            procs = [None, None]
            for i, args in order:
                procs[i] = start(d, args + extra, ranks)
            pairs[name] = (d, procs, shared, [fa, fb])
            # one pair at a time: with every pair started at once, 14 processes on 2 cores could
            # start one run of a pair only after the other had finished (then both rightly succeed)
            finish()
        finish()
        failed += bad
        if not bad:
            print(f"ok   round {r} ({ranks} rank{'s' if ranks > 1 else ''}, {time.time() - t0:.1f} s): winners {', '.join(notes)}")
        sys.stdout.flush()
    left = [os.path.join(root, f) for root, _, fs in os.walk(WORK) for f in fs if f.endswith(".lock") or ".tmp-" in f]
    if left:
        failed += 1
        print(f"FAIL lock or temporary files left: {left}")
    print(f"{'FAILED' if failed else 'passed'}: {ROUNDS} rounds of {len(scenarios(base))} pairs, {failed} failure(s); winners (A/B) {wins}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
