#!/usr/bin/python3
"""Runs one of tsmech's built-in models from petsc4py with the package tsmech: what the tsmech
program does (output, checkpoints, restart, the run guard), driven from Python.

    /usr/bin/python3 examples/python/model_from_python.py
    mpiexec -n 3 /usr/bin/python3 examples/python/model_from_python.py -model chain -ts_type cn2 \\
        -ts_dt 0.01 -ts_max_steps 30 -output run.h5 -output_every 10 -checkpoint ck.h5

Options as the tsmech program's: -model (chain; tsmech.MODELS), -output FILE.h5, -output_every
(10), -checkpoint FILE.h5, -checkpoint_every N (0: at the end only), -restart FILE.h5, the model's
options (-chain_n, ...) and every -ts_, -snes_, -ksp_, -pc_ option; defaults midpoint2, dt 1e-3,
final time 1. A checkpoint written here restarts in the tsmech program (-restart) and the
reverse. Prints the run's energy at the start and the end; exit status 2 for bad input, 3 when
the integration fails.
"""
import os
import sys

import petsc4py

petsc4py.init(sys.argv)
from petsc4py import PETSc  # noqa: E402

try:
    import tsmech  # installed, or PYTHONPATH=build/python (meson devenv)
except ImportError:  # run from the source tree after `make demo`: the build tree's copy
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "python"))
    import tsmech


def error(msg, status=2):
    if PETSc.COMM_WORLD.getRank() == 0:
        print(f"model_from_python.py: error: {msg}", file=sys.stderr, flush=True)
    return status


def main():
    opts = PETSc.Options()
    name = opts.getString("model", "chain")
    if name not in tsmech.MODELS:
        return error(f"-model {name}: allowed are {', '.join(tsmech.MODELS)}")
    output, every = opts.getString("output", ""), opts.getInt("output_every", 10)
    ckpath, ckevery = opts.getString("checkpoint", ""), opts.getInt("checkpoint_every", 0)
    restart = opts.getString("restart", "")

    # the tsmech program's defaults
    ts = PETSc.TS().create(comm=PETSc.COMM_WORLD)
    ts.setType("midpoint2")
    model = tsmech.Model(name).attach(ts)
    ts.setTimeStep(1e-3)
    ts.setMaxTime(1.0)
    ts.setExactFinalTime(PETSc.TS.ExactFinalTime.MATCHSTEP)
    ck = tsmech.Checkpoint(model, ts) if (ckpath or restart) else None
    if restart:
        try:
            ck.load(restart)  # validated; its TS settings become the defaults
        except tsmech.Error as e:
            return error(f"-restart {restart}: {e}")
    ts.setFromOptions()
    q, v = model.create_state()
    if restart:
        ck.restore(q, v)
    else:
        model.set_solution(q, v)
    k0, p0 = model.energy(q, v)
    guard = tsmech.Guard(ts)
    out = tsmech.Output(model, output, every, cont=bool(restart)) if output else None
    if ckpath:
        ck.write_every(ckpath, ckevery, guard, out)
    if tsmech.solve(ts) < 0:
        kind, dt, energy, why = guard.failure
        if out:
            out.close(record=False)
        return error(f"the integration failed at t = {ts.getTime():g} ({kind}{': ' + why if why else ''})", 3)
    if out:
        out.close()
    model.get_solution(q, v)
    k1, p1 = model.energy(q, v, ts.getTime())
    PETSc.Sys.Print(f"{name} / {ts.getType()}: {ts.getStepNumber()} steps to t = {ts.getTime():g}, {ts.getSNESIterations()} Newton iterations")
    PETSc.Sys.Print(f"energy K + V: {k0:.10g} + {p0:.10g} -> {k1:.10g} + {p1:.10g}" + (f"; output in {output}" if output else ""))
    if ck:
        ck.destroy()
    return 0


if __name__ == "__main__":
    sys.exit(main())
