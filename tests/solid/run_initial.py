#!/usr/bin/python3
"""An initial state from a file (-solid_initial, src/models/solid/initial.c, src/io/initialstate.c)
through the tsmech program: settle under gravity, then release.

  run_initial.py TSMECH MPIEXEC WORKDIR

A linear cantilever (the built-in beam, 10 x 2 x 2 boxes) settles under gravity. The settling
integrator is an option, the environment's TSMECH_SETTLE (default the quasi-static type static2, one
step; a strongly damped beuler2 with long steps reaches the same state): it must come to rest (-report_equilibrium below
1e-10 of the load). Then it is started from that state (q and v of the last snapshot) with gravity
removed, under midpoint2 with 100 steps a period of its first bending mode, for ten periods:
- it starts from the settled state bitwise (q and v: at rest), with the settled strain energy;
- it oscillates about the unloaded shape: the tip's mean over the ten periods is within 3 % of the
  settled deflection of zero, its extremes +-1 within 5 % of it;
- the amplitude is kept: the energy (the modes' amplitudes squared; midpoint2 keeps each mode's on
  a linear system) to 1e-6 over the ten periods.
On 2 ranks the released run starts from the same state (the file is read in its node order).
Refused, exit status 2: another mesh (vertex count), another order, no snapshot at the time given.
"""
import os
import re
import sys

import h5py
import numpy as np
from program import Program

TSMECH, MPIEXEC, WORK = sys.argv[1:4]
prog = Program(TSMECH, MPIEXEC, WORK)
check, run = prog.check, prog.run
SETTLE = os.environ.get("TSMECH_SETTLE", "-ts_type static2 -ts_max_time 1")


for f in ("settle.h5", "release.h5", "release2.h5", "bad.h5"):
    if os.path.exists(f):
        os.remove(f)
BEAM = "-model solid -solid_beam_cells 10,2,2 -solid_material linear -solid_E 1e7 -solid_nu 0.3 -solid_density 1000 -ksp_type preonly -pc_type lu -quiet"
out = run(f"{BEAM} {SETTLE} -report_equilibrium -output settle.h5 -output_every 1000")
m = re.search(r", ([0-9.e+-]+) of the load", out)
check(m and float(m.group(1)) <= 1e-10, f"the settling run did not come to rest:\n{out}")
with h5py.File("settle.h5", "r") as f:
    X = f["mesh/vertices"][()]
    qs, vs = f["fields/q"][-1], f["fields/v"][-1]
tip = np.where((np.abs(X[:, 0] - 1) < 1e-12) & (np.abs(X[:, 1] - 0.05) < 1e-12) & (np.abs(X[:, 2] - 0.05) < 1e-12))[0][0]
delta = qs[tip, 2] - X[tip, 2]
# the first bending mode: f1 = 1.8751^2 / (2 pi) sqrt(E I / (rho A L^4)), I = b^4 / 12
period = 2 * np.pi / (1.8751 ** 2 * np.sqrt(1e7 * 0.1 ** 4 / 12 / (1000 * 0.01)))
dt = period / 100
REL = f"{BEAM} -solid_g 0,0,0 -solid_initial settle.h5 -ts_type midpoint2 -ts_dt {dt!r} -ts_max_steps 1000 -ts_max_time 1e9 -output_every 1 -probe tip -probe_tip_point 1,0.05,0.05"
run(f"{REL} -output release.h5")
with h5py.File("release.h5", "r") as f:
    q0 = f["fields/q"][0]
    v0 = f["fields/v"][0]
    E = f["monitor/energy"][()]
    V0 = f["monitor/potential"][0]
    uz = f["monitor/probe/tip/u"][:, 2]
print(f"settled tip deflection {delta:.6e}; released: starts at {uz[0]:.6e}, tip mean over ten periods {uz.mean():.3e}, "
      f"extremes {uz.min():.6e}, {uz.max():.6e}; energy {E[0]:.9e}, kept to {np.abs(E - E[0]).max() / E[0]:.1e}")
# a quasi-static settling run's v is its rate of loading: the release starts at rest without it
rest = (v0 == 0).all() if "static2" in SETTLE else (v0 == vs).all() and np.abs(vs).max() <= 1e-8
check((q0 == qs).all() and rest, "the released run does not start from the settled state (bitwise), at rest")
check(abs(uz.mean()) <= 0.03 * abs(delta), f"the tip does not oscillate about the unloaded shape: mean {uz.mean():.3e}, deflection {delta:.3e}")
check(abs(uz.min() - delta) <= 0.05 * abs(delta) and abs(uz.max() + delta) <= 0.05 * abs(delta), f"the tip's extremes {uz.min():.4e}, {uz.max():.4e} are not +-{abs(delta):.4e}")
check(np.abs(E - E[0]).max() <= 1e-6 * E[0] and E[0] == V0, f"the energy is not kept to 1e-6: {np.abs(E - E[0]).max() / E[0]:.2e}")
run(f"{REL.replace('-ts_max_steps 1000', '-ts_max_steps 5')} -output release2.h5", ranks=2)
with h5py.File("release2.h5", "r") as f:
    check((f["fields/q"][0] == qs).all(), "2 ranks: the released run does not start from the settled state")
for args, msg in (("-solid_beam_cells 8,2,2 -solid_initial settle.h5", "-solid_initial settle.h5: it holds a run with vertices = 99, this run has vertices = 81"),
                  ("-solid_beam_cells 10,2,2 -solid_order 2 -solid_initial settle.h5", "-solid_initial settle.h5: it holds a run with order = 1, this run has order = 2"),
                  ("-solid_beam_cells 10,2,2 -solid_cell hex -solid_initial settle.h5", "-solid_initial settle.h5: it holds a run with cell = tet, this run has cell = hex"),
                  ("-solid_beam_cells 10,2,2 -solid_initial settle.h5 -solid_initial_time 3.5", "-solid_initial settle.h5: it has no snapshot at t = 3.5"),
                  ("-solid_initial_time 3", "-solid_initial_time: needs -solid_initial FILE.h5"),
                  ("-solid_initial nofile.h5", "-solid_initial nofile.h5: the file does not exist")):
    o = run(f"-model solid {args} -ts_max_steps 1 -output bad.h5", expect=2)
    check(msg in o and not os.path.exists("bad.h5"), f"{args}: expected \"{msg}\"\n{o}")
prog.finish("initial")
