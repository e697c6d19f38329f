"""A petsc4py program using the package tsmech whose run fails on one rank only must end on
every rank within seconds, with that rank's message:

    rank_error.py monitor   a Python monitor raises on the last rank at step 3
    rank_error.py model     the C model's force fails on the last rank (the test hook
                            -mech_test_force_error): every rank raises, with its message
    rank_error.py python    a model written in Python (tsmech.System) raises in its force on the
                            last rank: every rank raises tsmech.Error with the exception's text
"""
import sys

import petsc4py

petsc4py.init(sys.argv[:1])
from petsc4py import PETSc  # noqa: E402

import tsmech  # noqa: E402

case = sys.argv[1]
comm = PETSc.COMM_WORLD
last = comm.getSize() - 1
if case == "model":
    PETSc.Options().setValue("mech_test_force_error", f"{last},0.005")
ts = PETSc.TS().create(comm=comm)
ts.setType("midpoint2")
if case == "python":
    da = PETSc.DMDA().create([12], dof=1, stencil_width=1, comm=comm)

    def force(t, q, v, f):
        if t >= 0.005 and comm.getRank() == last:
            raise ValueError(f"bad state on rank {last}")
        q.copy(f)

    def tangent(t, q, v, cK, cD, J):
        J.shift(cK)

    model = tsmech.System(dm=da, mass=1.0, force=force, tangent=tangent, damping=False).attach(ts)
else:
    model = tsmech.Model("chain").attach(ts)
ts.setTimeStep(1e-3)
ts.setMaxSteps(50)
ts.setFromOptions()
q, v = model.create_state()
if case == "python":
    q.set(1.0)
model.set_solution(q, v)


def monitor(ts, step, t, x):
    if case == "monitor" and step == 3 and comm.getRank() == last:
        raise RuntimeError(f"monitor: bad value on rank {last}")


ts.setMonitor(monitor)
try:
    tsmech.solve(ts)
except tsmech.Error as e:
    # the model's error: raised on every rank alike, so each can handle it
    print(f"rank {comm.getRank()}: ts.solve raised PETSc error {e.ierr}: {e}", flush=True)
    if case == "python" and comm.getRank() == last:
        assert isinstance(model.exception, ValueError), model.exception
        print(f"rank {last} keeps the exception: {model.exception!r}", flush=True)
    comm.barrier()
    if comm.getRank() == 0:
        print("every rank raised the model's error", flush=True)
    sys.exit(3)
print(f"rank {comm.getRank()}: the run ended without an error", flush=True)
sys.exit(0)
