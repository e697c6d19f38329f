"""The README's start of a run, shared by the Python package's test programs: a midpoint2 TS with
the system attached, `steps` fixed steps of dt, its type set and the system's initial state given.
Import it after petsc4py.init()."""
from petsc4py import PETSc


def started(system, steps, dt=0.01):
    ts = PETSc.TS().create(comm=system.comm)
    ts.setType("midpoint2")
    ts.setTimeStep(dt)
    ts.setMaxSteps(steps)
    ts.setMaxTime(1e9)
    ts.setExactFinalTime(PETSc.TS.ExactFinalTime.MATCHSTEP)
    system.attach(ts)
    ts.setFromOptions()
    q, v = system.create_state()
    system.set_solution(q, v)
    return ts
