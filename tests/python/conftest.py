"""Shared helpers of the Python package's tests: the programs under test (from meson's test
environment), runs on several ranks and the comparison of output files."""
import os
import subprocess
import sys

import numpy as np
import pytest

SOURCE = os.environ.get("TSMECH_TEST_SOURCE", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
MPIEXEC = os.environ.get("TSMECH_TEST_MPIEXEC", "mpiexec")
PROGRAM = os.environ.get("TSMECH_TEST_PROGRAM", os.path.join(SOURCE, "build", "tsmech"))
FPU_C = os.environ.get("TSMECH_TEST_FPU_C", os.path.join(SOURCE, "build", "tests", "python", "fpu_chain"))
PYTHON = "/usr/bin/python3"
EXAMPLES = os.path.join(SOURCE, "examples", "python")
# direct solves and tight Newton tolerances: runs then agree to round-off
EXACT = ["-ksp_type", "preonly", "-pc_type", "redundant", "-snes_rtol", "1e-14", "-snes_atol", "1e-12", "-snes_stol", "0"]


def run(args, ranks=1, cwd=None, expect=0, env=None, timeout=120):
    """Runs args on `ranks` ranks; asserts the exit status; returns the output (stdout + stderr)."""
    cmd = [MPIEXEC, "-n", str(ranks)] + [str(a) for a in args]
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    if expect is not None:
        assert p.returncode == expect, f"{' '.join(cmd)}: exit status {p.returncode}, expected {expect}\n{p.stdout}"
    return p


def example(name):
    return os.path.join(EXAMPLES, name)


def difference(a, b, keys=("fields/q", "fields/v", "monitor/energy", "monitor/time")):
    """The largest difference of the datasets of two HDF5 files, relative to b's size."""
    import h5py

    d = 0.0
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        for k in keys:
            x, y = fa[k][()], fb[k][()]
            assert x.shape == y.shape, f"{k}: shapes {x.shape} and {y.shape}"
            d = max(d, float(np.max(np.abs(x - y)) / max(np.max(np.abs(y)), 1e-300)))
    return d


@pytest.fixture
def work(tmp_path):
    return tmp_path


sys.path.insert(0, os.path.dirname(__file__))
