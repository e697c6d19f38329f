"""What the tests of the tsmech program in tests/solid share (run_balance.py, run_probes.py,
run_regions.py, run_initial.py): a count of failed checks, a run of the program on some ranks
with its exit status checked, and the end of the test with the count."""
import os
import subprocess
import sys


class Program:
    def __init__(self, tsmech, mpiexec, work):
        self.tsmech, self.mpiexec, self.failures = tsmech, mpiexec, 0
        os.makedirs(work, exist_ok=True)
        os.chdir(work)

    def check(self, cond, msg):
        if not cond:
            self.failures += 1
            print("FAILED: " + msg, flush=True)

    def run(self, args, ranks=1, expect=0):
        """The program's output (stdout and stderr) for args, checking its exit status"""
        cmd = ([self.mpiexec, "-n", str(ranks)] if ranks > 1 else []) + [self.tsmech] + args.split()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
        out = p.stdout.decode(errors="replace")
        self.check(p.returncode == expect, f"exit {p.returncode} (expected {expect}): {' '.join(cmd)}\n{out}")
        return out

    def finish(self, name):
        print(f"{name}: {self.failures} failures")
        sys.exit(1 if self.failures else 0)
