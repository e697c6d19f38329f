#!/usr/bin/python3
"""The cost of what engineers read (issue 41's target: reactions, three probes and the energy
balance together add at most 3 % to a step of the solid benchmark), side by side.

  /usr/bin/python3 bench/balance_cost.py [--tsmech build/tsmech] [--cells 32,4,4] [--steps 5]
        [--mode callgrind | cpu] [--repeat 3] [--work DIR]

Runs the built-in neo-Hookean beam with config/solid.opts (midpoint2, matrix-free, CG + GAMG) and
its default clamp twice, both writing an output file (whose /monitor rows are where the records are
taken): plain, and with -monitor_reactions, -monitor_energy_balance and three probes (an inner
point, a point on a face, a vertex). --mode callgrind (default) counts the instructions of TSSolve
under valgrind's callgrind (--toggle-collect=TSSolve: the steps, their monitors and the output's
records; set-up excluded), which a loaded machine does not disturb; --mode cpu takes the smallest
CPU time of the whole program over --repeat alternating runs. Checks that both runs end in the
same state, bitwise (/fields/q and /fields/v of the last snapshot), and prints the ratio.
"""
import argparse
import os
import re
import resource
import subprocess
import sys

import h5py
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--tsmech", default="build/tsmech")
ap.add_argument("--cells", default="32,4,4")
ap.add_argument("--steps", type=int, default=5)
ap.add_argument("--mode", choices=["callgrind", "cpu"], default="callgrind")
ap.add_argument("--repeat", type=int, default=3)
ap.add_argument("--work", default="/tmp/tsmech_balance_cost")
a = ap.parse_args()
os.makedirs(a.work, exist_ok=True)
tsmech = os.path.abspath(a.tsmech)
opts = os.path.abspath("config/solid.opts")

common = f"-options_file {opts} -solid_beam_cells {a.cells} -ts_max_steps {a.steps} -ts_max_time 10 -quiet -output_every 1000"
features = ("-monitor_reactions -monitor_energy_balance -probe inner,face,corner -probe_inner_point 0.43,0.031,0.077 "
            "-probe_face_point 0.61,0.1,0.05 -probe_corner_where x=1,y=0,z=0")


def run(name, extra):
    out = os.path.join(a.work, name + ".h5")
    cmd = [tsmech] + common.split() + extra.split() + ["-output", out]
    if a.mode == "callgrind":
        cg = os.path.join(a.work, name + ".callgrind")
        subprocess.run(["valgrind", "--tool=callgrind", "--toggle-collect=TSSolve", f"--callgrind-out-file={cg}"] + cmd,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=True)
        with open(cg) as f:
            m = re.search(r"^(?:summary|totals): (\d+)", f.read(), re.M)
        cost = int(m.group(1))
    else:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cost = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    with h5py.File(out, "r") as f:
        state = (f["fields/q"][-1], f["fields/v"][-1])
    return cost, state


res = {"plain": [], "features": []}
states = {}
for _ in range(1 if a.mode == "callgrind" else a.repeat):
    for name, extra in (("plain", ""), ("features", features)):
        cost, states[name] = run(name, extra)
        res[name].append(cost)
unit = "instructions in TSSolve" if a.mode == "callgrind" else "s CPU (whole program)"
for name in res:
    print(f"{name:9s} {min(res[name]):.6g} {unit}")
ratio = min(res["features"]) / min(res["plain"])
same = all(np.array_equal(x, y) for x, y in zip(states["plain"], states["features"]))
print(f"reactions + 3 probes + energy balance: {100 * (ratio - 1):+.2f} % (target <= 3 %); final states bitwise equal: {same}")
sys.exit(0 if same else 1)
