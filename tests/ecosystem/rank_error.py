"""A petsc4py program using examples/python/tsmech.py whose run fails on one rank only must end on
every rank within seconds, with that rank's message:

    rank_error.py LIBTSMECH monitor   a Python monitor raises on the last rank at step 3
    rank_error.py LIBTSMECH model     the C model's force fails on the last rank (the test hook
                                      -mech_test_force_error): every rank raises, with its message
"""
import os
import sys

import petsc4py

petsc4py.init(sys.argv[:1])
from petsc4py import PETSc  # noqa: E402

sys.path.insert(0, os.environ["TSMECH_EXAMPLES"])
import tsmech  # noqa: E402

lib, case = sys.argv[1], sys.argv[2]
tsmech.load(lib)
comm = PETSc.COMM_WORLD
last = comm.getSize() - 1
if case == "model":
    PETSc.Options().setValue("mech_test_force_error", f"{last},0.005")
ts = PETSc.TS().create(comm=comm)
ts.setType("midpoint2")
model = tsmech.Model(ts, "chain")
ts.setTimeStep(1e-3)
ts.setMaxSteps(50)
ts.setFromOptions()
q, v = model.create_state()
model.set_solution(q, v)


def monitor(ts, step, t, x):
    if case == "monitor" and step == 3 and comm.getRank() == last:
        raise RuntimeError(f"monitor: bad value on rank {last}")


ts.setMonitor(monitor)
try:
    ts.solve(ts.getSolution())
except PETSc.Error as e:
    # the model's error: raised on every rank alike, so each can handle it
    print(f"rank {comm.getRank()}: ts.solve raised PETSc error {e.ierr}", flush=True)
    comm.barrier()
    if comm.getRank() == 0:
        print("every rank raised the model's error", flush=True)
    sys.exit(3)
print(f"rank {comm.getRank()}: the run ended without an error", flush=True)
sys.exit(0)
