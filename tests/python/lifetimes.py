"""The README's Python patterns with their objects living every way a valid program lets them:

    lifetimes.py PATTERN COUNT DIR [--first=K] [STRUCTURE ...]

PATTERN    model       a built-in model (tsmech.Model("chain")), tsmech.Output in a with block,
                       tsmech.read() (the package's docstring)
           system      a model written in Python on a DMDA (tsmech.System with potential and an
                       invariant), tsmech.Guard, tsmech.Output in a with block (README)
           checkpoint  the system with tsmech.Checkpoint: write_every() with its output, then a
                       restart from the file (load, restore, Output(cont=True)) (README)
           Run k has the guard and the output (k % 3 == 0), the output alone (1: without a guard
           a checkpoint is written after the solve) or the guard alone (2).
STRUCTURE  function    every object created in a function that returns
           exception   created in a function that raises in the with block (on every rank, or a
                       model error raised on the last rank, which the library gives every rank);
                       the exception, and with its traceback every object, is kept to the end
           deleted     objects deleted or destroyed early, in varied orders (the TS before the
                       system, the system before the solve, ...)
           exit        objects left to the exit: kept in module globals and in reference
                       cycles, the Output never closed, the Checkpoint never destroyed
           (default: all four, COUNT times each, in one interpreter; the runs are numbered from
           K, 0 by default: a run's number chooses its variant and kind of exception)

Each run is 6 steps of 0.01; its output file is checked after each closed run (steps, energy).
Ends with status 0 and "lifetimes: N runs" on rank 0; the files of `exit` are checked by the
caller after the process has ended (tests/python/test_lifetimes.py).
"""
import gc
import os
import sys
import time

import numpy as np
import petsc4py

petsc4py.init(sys.argv[:1])
from petsc4py import PETSc  # noqa: E402

import tsmech  # noqa: E402
from scene import started  # noqa: E402

STEPS = 6
comm = PETSc.COMM_WORLD
rank, last = comm.getRank(), comm.getSize() - 1
kept = []  # what `exception` and `exit` leave to the end


class ModelError(Exception):
    pass


def chain_system(fail_at=None):
    """The README's model written in Python: linear springs on a DMDA, a potential and an
    invariant; its force raises on the last rank from fail_at on (a model error)."""
    da = PETSc.DMDA().create([8], dof=1, stencil_width=1, comm=comm)

    def force(t, q, v, f):
        if fail_at is not None and t >= fail_at and rank == last:
            raise ModelError(f"the model fails on rank {last}")
        q.copy(f)
        f.scale(4.0)

    def tangent(t, q, v, cK, cD, J):
        J.shift(4.0 * cK)

    def potential(t, q, v):
        return 2.0 * q.dot(q)

    def momentum(t, q, v):
        return v.sum()

    q0 = da.createGlobalVec()
    q0.setArray(np.linspace(0.1, 0.2, q0.getLocalSize()) + rank)
    v0 = q0.duplicate()
    v0.set(0.0)
    return tsmech.System(dm=da, mass=1.0, force=force, tangent=tangent, damping=False, potential=potential,
                         invariants={"momentum": momentum}, initial=(q0, v0), name="lifechain", parameters={"k": 4.0})


def start(pattern, fail_at=None, steps=STEPS):
    """TS and system of a pattern, attached, the type set, the initial state given."""
    system = tsmech.Model("chain", comm=comm) if pattern == "model" else chain_system(fail_at)
    return started(system, steps), system


# which of the optional objects a run has (by its number): both as in the README, the output
# alone (the package's docstring), the guard alone
VARIANTS = (("guard", "output"), ("output",), ("guard",))


def objects(pattern, path, i, fail_at=None):
    """A run's TS and system and, as its variant has them, guard, checkpoint and output (None
    when not); the checkpoint is written from the guard's post-step (every 2 steps and at the
    end) or, without a guard, by finish()."""
    ts, system = start(pattern, fail_at)
    variant = VARIANTS[i % len(VARIANTS)]
    guard = tsmech.Guard(ts) if "guard" in variant else None
    ck = tsmech.Checkpoint(system, ts) if pattern == "checkpoint" else None
    out = tsmech.Output(system, path, every=2) if "output" in variant else None
    if ck is not None and guard is not None:
        ck.write_every(path + ".ck", 2, guard, out)
    return ts, system, guard, ck, out


def solve(ts, guard, ck, out, path):
    reason = tsmech.solve(ts)
    assert reason > 0 and (guard is None or guard.failure[0] == "none")
    if ck is not None and guard is None:
        ck.write(path + ".ck", out)


def check(path, steps=STEPS):
    """The files of a closed run: the output's every step and finite energy, the checkpoint's
    step (the files a run has)."""
    comm.barrier()
    if rank == 0:
        if os.path.exists(path):
            r = tsmech.read(path)
            assert list(r.step) == list(range(steps + 1)), (path, r.step)
            assert np.all(np.isfinite(r.energy)), path
        if os.path.exists(path + ".ck"):
            assert tsmech.read(path + ".ck").checkpoint["attrs"]["step"] == steps, path


def run(pattern, path, i, extra=None):
    """The pattern's run, its output in a with block; `extra()` runs inside it, after the solve.
    A checkpoint pattern then restarts from the file in a new TS and system, continuing the
    output."""
    ts, system, guard, ck, out = objects(pattern, path, i)
    if out is None:
        solve(ts, guard, ck, out, path)
        if extra:
            extra()
    else:
        with out:
            solve(ts, guard, ck, out, path)
            if extra:
                extra()
    if pattern == "checkpoint":
        ck.destroy()
        ts2, system2 = start(pattern, steps=STEPS + 2)
        ck2 = tsmech.Checkpoint(system2, ts2)
        ck2.load(path + ".ck")
        q, v = system2.create_state()
        ck2.restore(q, v)
        if out is None:
            tsmech.solve(ts2)
        else:
            with tsmech.Output(system2, path, every=2, cont=True):
                tsmech.solve(ts2)
        ck2.write(path + ".ck")
        ck2.destroy()
        check(path, STEPS + 2)
    else:
        check(path)


def structure_function(pattern, path, i):
    def scope():
        run(pattern, path, i)

    scope()


def structure_exception(pattern, path, i):
    # even runs: a Python exception on every rank after the solve; odd runs: a model error on the
    # last rank, raised by the library on every rank (patterns with a Python model)
    model_error = i % 2 == 1 and pattern != "model"

    def raising():
        raise RuntimeError("raised after the solve")

    def scope():
        if model_error:
            ts, system, guard, ck, out = objects(pattern, path, i, fail_at=0.025)
            if out is None:
                tsmech.solve(ts)
            else:
                with out:
                    tsmech.solve(ts)
        else:
            run(pattern, path, i, extra=raising)

    try:
        scope()
    except (RuntimeError, tsmech.Error) as e:
        if model_error:
            assert isinstance(e, tsmech.Error) and f"the model fails on rank {last}" in str(e), e
        kept.append(e)  # its traceback keeps every object of the scope to the end
    else:
        raise AssertionError("no exception")
    comm.barrier()
    if rank == 0 and os.path.exists(path):
        # closed without the state at the exception: the steps before it recorded
        r = tsmech.read(path)
        assert len(r.step) >= 3 and np.all(np.isfinite(r.energy)), path


def structure_deleted(pattern, path, i):
    order = i % 4
    ts, system, guard, ck, out = objects(pattern, path, i)
    if order == 0:
        del guard  # the guard goes before the run it guards
        guard = None
    elif order == 1:
        system.destroy()  # the TS keeps its own reference
        del system
    elif order == 2:
        handle = ts
        del ts  # the run goes on through another reference
        ts = handle
    gc.collect()
    solve(ts, guard, ck, out, path)
    if order == 3:
        ts.destroy()  # before the output closes: it keeps the TS it records
    if ck is not None and order % 2 == 0:
        ck.destroy()  # else the exit does
    del ck
    if out is not None:
        out.close()
    del out
    gc.collect()
    check(path)


def structure_exit(pattern, path, i):
    ts, system, guard, ck, out = objects(pattern, path, i)  # the output never closed, the
    solve(ts, guard, ck, out, path)  # checkpoint never destroyed: the exit ends them
    cycle = {"ts": ts, "system": system, "guard": guard, "ck": ck, "out": out}
    cycle["self"] = cycle  # freed by the garbage collector only
    if i % 2:
        kept.append(cycle)


STRUCTURES = {"function": structure_function, "exception": structure_exception, "deleted": structure_deleted,
              "exit": structure_exit}


def main():
    pattern, count, where = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    first = int(sys.argv[4][len("--first="):]) if sys.argv[4:5] and sys.argv[4].startswith("--first=") else 0
    structures = [a for a in sys.argv[4:] if not a.startswith("--")] or list(STRUCTURES)
    runs, seconds = 0, {}
    for s in structures:
        t0 = time.perf_counter()
        for i in range(first, first + count):
            STRUCTURES[s](pattern, os.path.join(where, f"{pattern}_{s}_{i}.h5"), i)
            runs += 1
        seconds[s] = time.perf_counter() - t0
    times = ", ".join(f"{s} {t:.2f} s" for s, t in seconds.items())
    PETSc.Sys.Print(f"lifetimes: {runs} runs of {pattern} on {comm.getSize()} rank(s) ({times})")


main()
