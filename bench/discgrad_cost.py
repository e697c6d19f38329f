#!/usr/bin/python3
"""discgrad2's cost per step against midpoint2 (issue 31): the nonlinear cloth (rest lengths,
spring damping, drag; the default cloth) at n x n, 10 steps of 1 ms, the same linear solver for
both, each run --repeat times alternately and the fastest kept (the machine is shared).

The time is that of TSStep in -log_view, divided by the steps. discgrad2 evaluates the springs'
discrete gradient (two states, ghosted) instead of the force, and assembles the exact derivative
of the discrete gradient instead of the tangent; its Newton iterations are those of midpoint2 at
this step (the two schemes agree to O(tau^3) per step).

    /usr/bin/python3 bench/discgrad_cost.py [--n 256] [--steps 10] [--repeat 2] [--configs cg+icc,gmres+ilu]
"""
import argparse
import re
import subprocess
import sys

SOLVERS = {"cg+icc": ["-ksp_type", "cg", "-pc_type", "icc"],
           "gmres+ilu": ["-ksp_type", "gmres", "-pc_type", "ilu"],
           "cg+mg": ["-ksp_type", "cg", "-pc_type", "mg"]}


def run(tsmech, n, steps, typ, solver, extra):
    cmd = [tsmech, "-model", "cloth", "-cloth_n", str(n), "-ts_type", typ, "-ts_dt", "1e-3",
           "-ts_max_steps", str(steps), "-ksp_rtol", "1e-8", "-log_view"] + SOLVERS[solver] + extra
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    tstep = float(re.search(r"^TSStep\s+\d+\s+[\d.]+\s+([\d.e+-]+)", out, re.M).group(1))
    its = re.search(r"(\d+) Newton / (\d+) KSP iterations", out)
    return tstep / steps, int(its.group(1)), int(its.group(2))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tsmech", default="build/tsmech")
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--configs", default="cg+icc,gmres+ilu")
    a = ap.parse_args()
    rows = []
    for solver in a.configs.split(","):
        best = {}
        for _ in range(a.repeat):
            for typ, extra in (("midpoint2", []), ("discgrad2", [])):
                t, nits, kits = run(a.tsmech, a.n, a.steps, typ, solver, extra)
                if typ not in best or t < best[typ][0]:
                    best[typ] = (t, nits, kits)
        rows.append((solver, best))
    print(f"cloth {a.n}^2 (nonlinear), {a.steps} steps of 1 ms, fastest of {a.repeat}")
    print(f"{'solver':<10} {'type':<10} {'s/step':>8} {'Newton':>7} {'KSP':>6} {'ratio':>6}")
    for solver, best in rows:
        for typ in ("midpoint2", "discgrad2"):
            t, nits, kits = best[typ]
            print(f"{solver:<10} {typ:<10} {t:8.3f} {nits:7d} {kits:6d} {t / best['midpoint2'][0]:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
