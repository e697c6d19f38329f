"""One use of the package after an object's end, or with an argument C would crash on:

    misuse.py CASE

Sets up the README's objects (a system written in Python attached to a TS, its guard, checkpoint
and output, one step run), ends one of them as CASE says, uses it, and prints what it raised:
"raised Error: ...", exit status 0. "no exception" and status 1 if nothing was raised; a crash (an
optimized PETSc checks no argument) is a signal. Each case runs in a process of its own
(tests/python/test_errors.py)."""
import os
import sys
import tempfile

import petsc4py

petsc4py.init(sys.argv[:1])
from petsc4py import PETSc  # noqa: E402

import tsmech  # noqa: E402
from scene import started  # noqa: E402

where = tempfile.mkdtemp()


def force(t, q, v, f):
    q.copy(f)


system = tsmech.System(PETSc.COMM_SELF, size=3, mass=1.0, force=force, tangent=lambda t, q, v, cK, cD, J: J.shift(cK), damping=False)
ts = started(system, 1)
q, v = system.create_state()
guard = tsmech.Guard(ts)
ck = tsmech.Checkpoint(system, ts)
out = tsmech.Output(system, os.path.join(where, "run.h5"), every=1)
tsmech.solve(ts)

# CASE: (what ends first, the use afterwards)
CASES = {
    "system-energy": ("system.destroy()", "system.energy(q, v)"),
    "system-name": ("system.destroy()", "system.name"),
    "system-parameters": ("system.destroy()", "system.parameters"),
    "system-dm": ("system.destroy()", "system.dm"),
    "system-state": ("system.destroy()", "system.create_state()"),
    "system-force": ("system.destroy()", "system.force(q, v)"),
    "system-attach": ("system.destroy()", "system.attach(ts)"),
    "system-output": ("system.destroy()", "tsmech.Output(system, os.path.join(where, 'b.h5'))"),
    "system-checkpoint": ("system.destroy()", "tsmech.Checkpoint(system, ts)"),
    "ts-set-solution": ("ts.destroy()", "system.set_solution(q, v)"),
    "ts-solve": ("ts.destroy()", "tsmech.solve(ts)"),
    "ts-guard": ("ts.destroy()", "tsmech.Guard(ts)"),
    "ts-get-solution": ("ts.destroy()", "tsmech.get_solution(ts, q, v)"),
    "guard-ts": ("guard.ts.destroy()", "guard.failure"),
    "output-record": ("out.close()", "out.record()"),
    "output-flush": ("out.close()", "out.flush()"),
    "checkpoint-write": ("ck.destroy()", "ck.write(os.path.join(where, 'ck.h5'))"),
    "checkpoint-last": ("ck.destroy()", "ck.last"),
    "checkpoint-restore": ("ck.destroy()", "ck.restore(q, v)"),
    "vec-energy": ("q.destroy()", "system.energy(q, v)"),
    "vec-set-solution": ("v.destroy()", "system.set_solution(q, v)"),
    "wrong-vec": ("", "system.energy(q, None)"),
    "wrong-ts": ("", "tsmech.solve(q)"),
    "wrong-system": ("", "tsmech.Output(ts, os.path.join(where, 'c.h5'))"),
}

first, then = CASES[sys.argv[1]]
exec(first)
try:
    exec(then)
except (tsmech.Error, TypeError, ValueError) as e:
    print(f"raised {type(e).__name__}: {e}")
    sys.exit(0)
print(f"{sys.argv[1]}: no exception")
sys.exit(1)
