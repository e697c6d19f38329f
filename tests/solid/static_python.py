#!/usr/bin/python3
"""The quasi-static type from Python (issue 38): petsc4py with the package tsmech runs static2 on the
solid beam (the gravity ramped, automatic incrementation) and equals the tsmech program's run with the
same options to round-off; the types the package lists include static2.

  static_python.py TSMECH WORKDIR      (PYTHONPATH: the build tree's python/)
"""
import os
import subprocess
import sys

import h5py
import numpy as np
import petsc4py

OPTS = "-solid_beam_cells 6,1,1 -solid_g 0,0,-50 -solid_g_time ramp:1 -ksp_type preonly -pc_type lu -snes_rtol 1e-12".split()
petsc4py.init([sys.argv[0]] + OPTS)
from petsc4py import PETSc  # noqa: E402

import tsmech  # noqa: E402

TSMECH, WORK = sys.argv[1:3]
os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)
assert "static2" in tsmech.TS_TYPES, tsmech.TS_TYPES
model = tsmech.Model("solid")
ts = PETSc.TS().create()
ts.setType("static2")
model.attach(ts)
ts.setMaxTime(1.0)
ts.setTimeStep(1.0)
ts.setExactFinalTime(PETSc.TS.ExactFinalTime.MATCHSTEP)
ts.setFromOptions()
q, v = model.create_state()
model.set_solution(q, v)
reason = tsmech.solve(ts)
steps = ts.getStepNumber()
mine = q.getArray().copy()
ts.destroy()
if os.path.exists("prog.h5"):
    os.remove("prog.h5")
subprocess.run([TSMECH, "-model", "solid", "-ts_type", "static2", "-ts_max_time", "1", "-ts_dt", "1", "-output", "prog.h5", "-quiet"] + OPTS, check=True)
with h5py.File("prog.h5", "r") as f:
    prog = f["fields/q"][-1].reshape(-1)
    psteps = int(f["monitor/step"][-1])
    X = f["fields/q"][0].reshape(-1)
diff = np.abs(mine - prog).max() / np.abs(prog - X).max()
print(f"static2 from Python: reason {reason}, {steps} steps; the program: {psteps} steps; difference {diff:.1e} of the displacement")
ok = reason > 0 and steps == psteps and diff < 1e-12
print("static_python: " + ("OK" if ok else "FAILED"))
sys.exit(0 if ok else 1)
