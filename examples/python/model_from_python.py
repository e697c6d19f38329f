#!/usr/bin/python3
"""Runs one of tsmech's models from petsc4py, with its HDF5 output, through examples/python/tsmech.py
(ctypes over libtsmech.so): what the tsmech program does, driven from Python.

    mpiexec -n 3 /usr/bin/python3 model_from_python.py -tsmech_lib build/libtsmech.so -model chain \\
        -ts_type cn2 -ts_dt 0.01 -ts_max_steps 30 -output run.h5 -output_every 10

Options as the tsmech program's: -model (chain), -output FILE.h5, -output_every (10), the model's
options (-chain_n, ...) and every -ts_, -snes_, -ksp_, -pc_ option; defaults midpoint2, dt 1e-3,
final time 1. The library is given by -tsmech_lib or TSMECH_LIB, and loaded after PETSc is
initialized: tsmech.load() registers the TS types itself. Prints the run's energy at the start
and the end.
"""
import os
import sys

import petsc4py

petsc4py.init(sys.argv)
from petsc4py import PETSc  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tsmech  # noqa: E402


def main():
    opts = PETSc.Options()
    path = opts.getString("tsmech_lib", os.environ.get("TSMECH_LIB", ""))
    if not path or not os.path.exists(path):
        if PETSc.COMM_WORLD.getRank() == 0:
            print(f"model_from_python.py: error: -tsmech_lib {path or '(not given)'}: give the path of libtsmech.so", file=sys.stderr)
        return 2
    tsmech.load(path)
    name = opts.getString("model", "chain")
    output = opts.getString("output", "")
    every = opts.getInt("output_every", 10)

    # the tsmech program's defaults
    ts = PETSc.TS().create(comm=PETSc.COMM_WORLD)
    ts.setType("midpoint2")
    model = tsmech.Model(ts, name)
    ts.setTimeStep(1e-3)
    ts.setMaxTime(1.0)
    ts.setExactFinalTime(PETSc.TS.ExactFinalTime.MATCHSTEP)
    ts.setFromOptions()
    q, v = model.create_state()
    k0, p0 = model.energy(q, v)
    model.set_solution(q, v)
    if output:
        with tsmech.Output(model, output, every):
            ts.solve(ts.getSolution())
    else:
        ts.solve(ts.getSolution())
    if ts.getConvergedReason() < 0:
        PETSc.Sys.Print(f"model_from_python.py: the integration failed ({ts.getConvergedReason()})")
        return 3
    model.get_solution(q, v)
    k1, p1 = model.energy(q, v, ts.getTime())
    PETSc.Sys.Print(f"{name} / {ts.getType()}: {ts.getStepNumber()} steps to t = {ts.getTime():g}, {ts.getSNESIterations()} Newton iterations")
    PETSc.Sys.Print(f"energy K + V: {k0:.10g} + {p0:.10g} -> {k1:.10g} + {p1:.10g}" + (f"; output in {output}" if output else ""))
    model.destroy()
    return 0


if __name__ == "__main__":
    sys.exit(main())
