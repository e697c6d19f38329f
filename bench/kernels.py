#!/usr/bin/python3
"""The solid's matrix-free operator per element type against the roofline of this machine (issue 40).

  /usr/bin/python3 bench/kernels.py [--builds build,/tmp/base/build] [--names after,before]
                                    [--kinds 0,1,2,3] [--materials linear,neohookean]
                                    [--size large|1m] [--repeat 5] [--reps 30] [--roofline]

For each build (side by side: the runs of the builds alternate, --repeat rounds, and each figure is
the smallest CPU time of the rounds, so that other jobs on the shared machine weigh least), each
element (0 P1 tetrahedra, 1 P2 tetrahedra, 2 Q1 hexahedra, 3 Q2 hexahedra) and material:
tests/solid/test_elements -bench_action -bench_matrix_free_only on the built-in beam with 111 843
unknowns (P1, Q1 on 128 x 16 x 16 boxes, P2, Q2 on 64 x 8 x 8; --size 1m: 1 048 707 unknowns for
Q2 on 160 x 16 x 16 boxes and P2 likewise), the action alone (cK K) and the operator of a step
M + K (the mass inside the action where the build has it), ns per unknown and 10^9 / ns unknowns
per second per core. --roofline builds bench/roofline.c and prints the machine's triad bandwidth
and peak multiply-add rates. The ratios are printed against the first build.
"""
import argparse
import os
import re
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--builds", default="build")
ap.add_argument("--names", default=None)
ap.add_argument("--kinds", default="0,1,2,3")
ap.add_argument("--materials", default="linear,neohookean")
ap.add_argument("--size", choices=("large", "1m"), default="large")
ap.add_argument("--repeat", type=int, default=5)
ap.add_argument("--reps", type=int, default=30)
ap.add_argument("--roofline", action="store_true")
a = ap.parse_args()
builds = a.builds.split(",")
names = a.names.split(",") if a.names else builds
KINDS = {0: "P1 tet", 1: "P2 tet", 2: "Q1 hex", 3: "Q2 hex"}
CELLS = {"large": {0: "128,16,16", 1: "64,8,8", 2: "128,16,16", 3: "64,8,8"},
         "1m": {0: "256,32,32", 1: "160,16,16", 2: "256,32,32", 3: "160,16,16"}}[a.size]
here = os.path.dirname(os.path.abspath(__file__))

if a.roofline:
    exe = "/tmp/tsmech_roofline"
    subprocess.run(["cc", "-O2", "-o", exe, os.path.join(here, "roofline.c")], check=True)
    best = {}
    for r in range(3):
        out = subprocess.run([exe, "512", "3"], capture_output=True, text=True).stdout
        for k, v in re.findall(r"roofline (\S+) (\S+)", out):
            best[k] = max(best.get(k, 0), float(v))
    for k, v in best.items():
        print(f"roofline {k} {v:.2f}")
    sys.stdout.flush()

res = {}
for kind in [int(k) for k in a.kinds.split(",")]:
    for mat in a.materials.split(","):
        for r in range(a.repeat):
            for b, name in zip(builds, names):
                cmd = [os.path.join(b, "tests/solid/test_elements"), "-bench_action", "-bench_matrix_free_only", "-bench_kind", str(kind),
                       "-bench_material", mat, "-bench_cells", CELLS[kind], "-bench_reps", str(a.reps)]
                out = subprocess.run(cmd, capture_output=True, text=True).stdout
                m = re.search(r"unknowns (\d+) .* linearize_ns (\S+) action_ns (\S+) .* operator_ns (\S+)", out)
                if not m:
                    print("failed:", " ".join(cmd), out[-500:])
                    continue
                n, lin, act, op = int(m[1]), float(m[2]), float(m[3]), float(m[4])
                key = (kind, mat, name)
                old = res.get(key)
                res[key] = (n, min(lin, old[1]) if old else lin, min(act, old[2]) if old else act, min(op, old[3]) if old else op)
        for name in names:
            n, lin, act, op = res[(kind, mat, names[0])] if False else res[(kind, mat, name)]
            ref = res[(kind, mat, names[0])]
            print(f"{KINDS[kind]:7s} {mat:11s} {name:>10s} {n:8d} unknowns  linearize {lin:7.1f}  action {act:7.1f} ns ({1e3 / act:6.2f}e6/s)"
                  f"  M+K {op:7.1f} ns ({1e3 / op:6.2f}e6/s)  first/this: action {ref[2] / act:5.2f} M+K {ref[3] / op:5.2f}")
            sys.stdout.flush()
