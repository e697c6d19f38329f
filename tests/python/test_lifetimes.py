"""The README's Python patterns (lifetimes.py: a built-in model with its output, a model written in
Python with the run guard and its output, checkpoints and a restart) with every object created in
functions, in exceptions, deleted early and left to the garbage collector at the exit, on 1 and 2
ranks: no signal, exit 0, every file complete and no lock or temporary file left.

One interpreter per (pattern, ranks) runs each structure TSMECH_LIFETIMES_COUNT times (3: each
variant of guard and output once; the objects of the runs before stay alive or in petsc4py's
garbage until the exit), in TSMECH_LIFETIMES_PROCESSES interpreters one after the other (1). The
measurement of issue 37 (50 each): TSMECH_LIFETIMES_COUNT=50, and TSMECH_LIFETIMES_PROCESSES=50
with a count of 1. On the package before issue 37 the Python models' runs end in SIGSEGV at the
exit."""
import os
import signal

import h5py
import numpy as np
import pytest
from conftest import PYTHON, run

HERE = os.path.dirname(os.path.abspath(__file__))
COUNT = int(os.environ.get("TSMECH_LIFETIMES_COUNT", "3"))
PROCESSES = int(os.environ.get("TSMECH_LIFETIMES_PROCESSES", "1"))
STEPS = 6


@pytest.mark.parametrize("ranks", [1, 2])
@pytest.mark.parametrize("pattern", ["model", "system", "checkpoint"])
def test_lifetimes(pattern, ranks, tmp_path):
    for k in range(PROCESSES):
        where = tmp_path / str(k)
        where.mkdir()
        # interpreter k numbers its runs from k * COUNT: the variants and kinds of exception go round
        p = run([PYTHON, os.path.join(HERE, "lifetimes.py"), pattern, COUNT, where, f"--first={k * COUNT}"], ranks=ranks, expect=None, timeout=120 + 30 * COUNT)
        assert p.returncode == 0, f"process {k}: exit status {p.returncode}" + (f" ({signal.Signals(p.returncode - 128).name})" if p.returncode > 128 else "") + f"\n{p.stdout}"
        assert f"lifetimes: {4 * COUNT} runs of {pattern} on {ranks} rank(s)" in p.stdout, p.stdout
        print(p.stdout.strip().splitlines()[-1])
        # the outputs left open to the exit were closed by it, with the run's last state
        # (read with h5py: this process starts no MPI of its own)
        for i in range(k * COUNT, (k + 1) * COUNT):
            if i % 3 != 2:  # the runs with an output (lifetimes.py's VARIANTS)
                with h5py.File(where / f"{pattern}_exit_{i}.h5", "r") as f:
                    assert list(f["monitor/step"][()]) == list(range(STEPS + 1)), i
                    assert list(f["fields/step"][()]) == [0, 2, 4, 6] and np.all(np.isfinite(f["monitor/energy"][()]))
            if pattern == "checkpoint":
                with h5py.File(where / f"{pattern}_exit_{i}.h5.ck", "r") as f:
                    assert f["checkpoint"].attrs["step"] == STEPS
        left = sorted(f for f in os.listdir(where) if not (f.endswith(".h5") or f.endswith(".h5.ck")))
        assert not left, f"files left behind: {left}"
