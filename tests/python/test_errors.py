"""Errors of a Python program that must end it cleanly (issue 37, items 1 and 2b), each in a process
of its own (a crash must not take the test with it):

- an object used after its end (destroy(), close(), its TS destroyed) or a wrong argument raises a
  Python exception: misuse.py, every case; an optimized PETSc checks no argument, so before the
  package checked them these ended in SIGSEGV;
- on 2 ranks, an exception on one rank in the README's `with tsmech.Output(...)` pattern (a
  monitor, the with block, a guard post-step) ends every rank within seconds with that rank's
  message (before: the monitor's case never ended); one on every rank is caught and the program
  goes on collectively, or left uncaught ends it with status 1 after its clean-up
  (rank_exception.py)."""
import os
import re
import subprocess
import time

import pytest
from conftest import MPIEXEC, PYTHON

HERE = os.path.dirname(os.path.abspath(__file__))
MISUSE = re.findall(r'^    "([a-z-]+)": \(', open(os.path.join(HERE, "misuse.py")).read(), re.M)


def test_misuse_cases_are_listed():
    assert len(MISUSE) >= 20


@pytest.mark.parametrize("case", MISUSE)
def test_misuse_raises(case):
    p = subprocess.run([PYTHON, os.path.join(HERE, "misuse.py"), case], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    assert p.returncode == 0, f"{case}: exit status {p.returncode}\n{p.stdout}"
    assert re.search(r"^raised (Error|TypeError|ValueError): ", p.stdout, re.M), p.stdout


def ranks2(case, where, bound=60):
    """rank_exception.py CASE on 2 ranks, ended by timeout(1) after `bound` seconds (status 124:
    it hung): (status, output, seconds)."""
    start = time.monotonic()
    cmd = ["timeout", "-k", "5", str(bound), MPIEXEC, "-n", "2", PYTHON, os.path.join(HERE, "rank_exception.py"), case, str(where)]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout, time.monotonic() - start


@pytest.mark.parametrize("case, message, wait", [
    ("monitor-one", "RuntimeError: monitor: bad value on rank 1", 1),
    ("block-one", "RuntimeError: block: bad value on rank 1", 1),
    ("post-step-one", "PETSc error 83: Python post-step raised RuntimeError: post-step: bad value on rank 1", 1),
])
def test_exception_on_one_rank_ends_every_rank(case, message, wait, tmp_path):
    status, out, seconds = ranks2(case, tmp_path)
    print(f"{case}: status {status} after {seconds:.1f} s")
    assert status != 124, f"{case} hung\n{out}"
    assert status == 1, f"{case}: exit status {status}\n{out}"
    assert f"[rank 1] tsmech: {message}\n  raised on this rank only: the other ranks did not reach an error within {wait} s; ending every rank" in out, out
    assert "Traceback" in out


def test_exception_on_every_rank_is_collective(tmp_path):
    status, out, seconds = ranks2("monitor-all", tmp_path)
    assert status == 0, f"exit status {status} after {seconds:.1f} s\n{out}"
    assert "caught on every rank: monitor: bad value on rank 0" in out
    assert sorted(os.listdir(tmp_path)) == ["run.h5"]  # closed, its locks released


def test_model_error_left_uncaught_ends_cleanly(tmp_path):
    """A model's error on one rank is every rank's (MechSystemAgree()): uncaught, the program exits
    with status 1 after closing its output, the traceback printed by rank 0 alone, no MPI_Abort."""
    status, out, seconds = ranks2("model-uncaught", tmp_path)
    assert status == 1, f"exit status {status} after {seconds:.1f} s\n{out}"
    assert "MPI_ABORT" not in out and "ending every rank" not in out, out
    assert out.count("tsmech._lib.Error: TSSolve: ") == 1, out
    assert "Python force callback raised ValueError: force: bad state on rank 1 (the model's force failed on rank 1)" in out, out
    assert sorted(os.listdir(tmp_path)) == ["run.h5"]
