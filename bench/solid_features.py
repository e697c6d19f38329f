#!/usr/bin/python3
"""The cost of the solid's loads and constraints per step (issue 29's target: a traction and a
constraint make a step at most 5 % dearer), side by side in one run.

  /usr/bin/python3 bench/solid_features.py [--tsmech build/tsmech] [--baseline OTHER_TSMECH]
        [--cells 40,4,4] [--steps 20] [--repeat 3]

Runs the built-in neo-Hookean beam (config/solid.opts: midpoint2, matrix-free, CG + GAMG) three
ways: plain (the default clamp), with a constraint of its own (-solid_bc, the same clamp) and a
dead traction on its end, and (with --baseline) the plain run of another tsmech program, e.g. an
older build. Each the best of --repeat runs (wall time of the TS, from the summary line); checks
that the plain runs agree with the baseline's (energy and iterations); prints seconds per step,
the iterations and the ratios (the traction is small, so that the iterations are the plain run's
and the ratio is the cost per iteration of the loads and constraints).
"""
import argparse
import re
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--tsmech", default="build/tsmech")
ap.add_argument("--baseline")
ap.add_argument("--cells", default="40,4,4")
ap.add_argument("--steps", type=int, default=20)
ap.add_argument("--repeat", type=int, default=3)
a = ap.parse_args()

common = f"-options_file config/solid.opts -solid_beam_cells {a.cells} -ts_max_steps {a.steps} -ts_max_time 10 -quiet"
# a traction small against the beam's weight (0.1 %), so that Newton's and CG's iterations are those
# of the plain run and the times compare the work per iteration
loaded = "-solid_bc clamp -solid_bc_clamp_where x=0 -solid_load tip -solid_load_tip_where x=1 -solid_load_tip_traction 0,0,-10"


def best(prog, extra):
    times, energy = [], None
    for _ in range(a.repeat):
        out = subprocess.run([prog] + common.split() + extra.split(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=True).stdout.decode()
        m = re.search(r"(\d+) Newton / (\d+) KSP iterations, ([0-9.]+) s wall, energy \S+ -> (\S+)", out)
        times.append(float(m.group(3)))
        energy, its = m.group(4), (int(m.group(1)), int(m.group(2)))
    return min(times) / a.steps, energy, its


runs = [("plain", a.tsmech, ""), ("traction + constraint", a.tsmech, loaded)]
if a.baseline:
    runs.insert(0, ("baseline plain", a.baseline, ""))
res = {name: best(prog, extra) for name, prog, extra in runs}
for name, (t, e, its) in res.items():
    print(f"{name:24s} {t * 1e3:8.2f} ms/step   {its[0]} Newton / {its[1]} KSP iterations   final energy {e}")
ok = True
if a.baseline:
    print(f"plain / baseline          {res['plain'][0] / res['baseline plain'][0]:.3f}")
    ok &= res["plain"][1] == res["baseline plain"][1] and res["plain"][2] == res["baseline plain"][2]
print(f"loaded / plain            {res['traction + constraint'][0] / res['plain'][0]:.3f}")
if res["traction + constraint"][2] != res["plain"][2]:
    print("(the loaded run took other iteration counts: the ratio is not the cost per iteration)")
sys.exit(0 if ok else 1)
