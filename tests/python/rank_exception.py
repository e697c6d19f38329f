"""The README's pattern (a model written in Python, its guard, `with tsmech.Output(...)` around
tsmech.solve()) with a Python exception on the last rank only, or on every rank:

    rank_exception.py CASE DIR

CASE  monitor-one     a monitor raises on the last rank at step 3 (the others go on stepping)
      block-one       the with block raises on the last rank after the solve (the others close)
      post-step-one   a guard post-step function raises on the last rank at step 3
      monitor-all     a monitor raises on every rank at step 3; the program catches it and goes
                      on collectively (prints "caught on every rank", exit 0)
      model-uncaught  the model's force raises on the last rank at t = 0.03: the library gives the
                      error to every rank, the program does not catch it: it ends with status 1
                      after its clean-up (the output closed), the traceback printed once

A case on one rank must end every rank within seconds with that rank's message (exit status 1);
before issue 37, monitor-one never ended (Output.__exit__ entered a collective close while the
other ranks were inside the step)."""
import os
import sys

import petsc4py

petsc4py.init(sys.argv[:1])
from petsc4py import PETSc  # noqa: E402

import tsmech  # noqa: E402
from scene import started  # noqa: E402

case, where = sys.argv[1], sys.argv[2]
comm = PETSc.COMM_WORLD
rank, last = comm.getRank(), comm.getSize() - 1
failing = case == "monitor-all" or rank == last

da = PETSc.DMDA().create([16], dof=1, stencil_width=1, comm=comm)


def force(t, q, v, f):
    if case == "model-uncaught" and t >= 0.03 and rank == last:
        raise ValueError(f"force: bad state on rank {rank}")
    q.copy(f)


def potential(t, q, v):
    return 0.5 * q.dot(q)


q0 = da.createGlobalVec()
q0.set(1.0)
v0 = q0.duplicate()
v0.set(0.0)
system = tsmech.System(dm=da, mass=1.0, force=force, tangent=lambda t, q, v, cK, cD, J: J.shift(cK), damping=False,
                       potential=potential, initial=(q0, v0), name="spring")
ts = started(system, 40)


def monitor(ts, step, t, x):
    if case.startswith("monitor") and step == 3 and failing:
        raise RuntimeError(f"monitor: bad value on rank {rank}")


ts.setMonitor(monitor)
guard = tsmech.Guard(ts)


@guard.post_step
def post(ts):
    if case == "post-step-one" and ts.getStepNumber() == 3 and failing:
        raise RuntimeError(f"post-step: bad value on rank {rank}")


try:
    with tsmech.Output(system, os.path.join(where, "run.h5"), every=5):
        tsmech.solve(ts)
        if case == "block-one" and failing:
            raise RuntimeError(f"block: bad value on rank {rank}")
except RuntimeError as e:
    if case != "monitor-all":
        raise
    # every rank is here: collective work may follow
    comm.barrier()
    PETSc.Sys.Print(f"caught on every rank: {e}")
    r = tsmech.read(os.path.join(where, "run.h5")) if rank == 0 else None
    if r is not None:
        # the steps before the exception: the monitor raised before the output's recorded step 3
        assert list(r.step) == [0, 1, 2], r.step
    sys.exit(0)
PETSc.Sys.Print("the run ended without an exception")
sys.exit(0)
