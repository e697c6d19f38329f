#!/usr/bin/python3
"""gauss2 benchmark (issue 31): error at the end against time to solution, side by side, for

    midpoint2                      the implicit midpoint rule in velocity form (N unknowns)
    gauss2 s = 2, 3                Gauss-Legendre in velocity form (s N unknowns, docs/schemes.md §10)
    irk gauss s = 2, 3             PETSc's TSIRK on the first-order form [q; v] (2 s N unknowns)
    rk 5dp                         PETSc's TSRK Dormand-Prince 5(4), adaptive (-ts_rtol = -ts_atol = tol)

on two problems:

    kepler   e = 0.6, 100 orbits (t = 200 pi); the exact end state is the initial one
    chain    the nonlinear chain (-chain_n 100, rest-length springs stretched 10 %, damping, drag,
             gravity), to t = 2; the reference is gauss2 s = 3 at 8000 steps, Newton to round-off

Both with unit masses (Kepler's are; the chain gets -chain_mass 100): PETSc 3.18's TSIRK forms its
Jacobian as if dF/dUdot = I, which the first-order form has only for M = I (docs/schemes.md §10).
gauss2 runs with its defaults: Kepler (s N = 4, 6) in the direct mode (-ts_gauss2_direct_max 32:
Newton with the assembled s N Jacobian and LU), the chain (s N = 600, 900) with the block
preconditioner; --tsmech-args '-ts_gauss2_direct_max 0' measures Kepler with the blocks.

Run with Debian's interpreter (h5py, numpy), from the repository root after `meson compile -C build`:

    /usr/bin/python3 bench/gauss2.py                 # both problems (~2 min on 1 core)
    /usr/bin/python3 bench/gauss2.py --cases kepler  # one of them
    /usr/bin/python3 bench/gauss2.py --quick         # fewer, shorter runs (a smoke test)

Every run is one `build/tsmech` process on one rank. Two times are printed: TSStep's wall time from
the run's -log_view (the steps alone), and the process's CPU time (user + system, start-up
included: about 0.05 s). The comparisons use the CPU time, which other load on a shared machine
does not inflate (the wall time did, by up to 2x, in our runs); its error the relative 2-norm of
(q, v) - (q, v)_ref at the end, read from the run's HDF5 output. For each peer the report gives
the time to reach an error of --target (1e-8): interpolated log-log between the two runs that
bracket it, or extrapolated from its most accurate run
(its CPU time per step times the steps its observed order needs; marked "extrapolated"), and the speed-ups of gauss2 against midpoint2 and TSIRK.
"""
import argparse
import math
import os
import re
import resource
import subprocess
import sys
import tempfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Newton to 1e-12 for every implicit peer; no step tolerance (SNES's default -snes_stol 1e-8, relative
# to the unknowns, stopped TSIRK's Newton on its stage values early: Kepler's energy drifted 1e4
# times more than under gauss2, whose unknowns are the small increments Z)
NEWTON = ["-snes_rtol", "1e-12", "-snes_atol", "1e-14", "-snes_stol", "1e-16"]
DIRECT = ["-ksp_type", "preonly", "-pc_type", "lu"]
PEERS = {
    # name: (options, sweep kind)
    "midpoint2": (["-ts_type", "midpoint2", *NEWTON, *DIRECT], "steps"),
    "gauss2 s=2": (["-ts_type", "gauss2", "-ts_gauss2_stages", "2", *NEWTON, *DIRECT], "steps"),
    "gauss2 s=3": (["-ts_type", "gauss2", "-ts_gauss2_stages", "3", *NEWTON, *DIRECT], "steps"),
    # TSIRK's KAIJ operator has no LU in PETSc 3.18: GMRES without preconditioner
    "irk gauss s=2": (["-ts_type", "irk", "-ts_irk_type", "gauss", "-ts_irk_nstages", "2", *NEWTON, "-ksp_type", "gmres",
                       "-pc_type", "none", "-ksp_rtol", "1e-12"], "steps"),
    "irk gauss s=3": (["-ts_type", "irk", "-ts_irk_type", "gauss", "-ts_irk_nstages", "3", *NEWTON, "-ksp_type", "gmres",
                       "-pc_type", "none", "-ksp_rtol", "1e-12"], "steps"),
    "rk 5dp": (["-ts_type", "rk", "-ts_rk_type", "5dp", "-ts_adapt_type", "basic"], "tol"),
}

KEPLER_T = 200 * math.pi
CASES = {
    "kepler": {
        "model": ["-model", "kepler", "-kepler_e", "0.6"],
        "T": KEPLER_T,
        "sweeps": {
            "midpoint2": [200000, 400000, 800000, 1600000],
            "gauss2 s=2": [5000, 10000, 20000, 40000],
            "gauss2 s=3": [2500, 5000, 10000, 20000],
            "irk gauss s=2": [5000, 10000, 20000, 40000],
            "irk gauss s=3": [2500, 5000, 10000, 20000],
            "rk 5dp": [1e-8, 1e-10, 1e-12, 1e-13],
        },
    },
    "chain": {
        "model": ["-model", "chain", "-chain_n", "100", "-chain_mass", "100", "-chain_stretch", "1.1"],
        "T": 2.0,
        "sweeps": {
            "midpoint2": [8000, 16000, 32000, 64000, 128000],
            "gauss2 s=2": [500, 1000, 2000, 4000],
            "gauss2 s=3": [250, 500, 1000, 2000],
            "irk gauss s=2": [500, 1000, 2000, 4000],
            "irk gauss s=3": [250, 500, 1000, 2000],
            "rk 5dp": [1e-8, 1e-10, 1e-12, 1e-13],
        },
        "reference": ("gauss2 s=3", 8000),
    },
}

WALL = re.compile(r"tsmech: \S+, (\d+) steps \((\d+) rejected\) to t = (\S+), (\d+) Newton / (\d+) KSP iterations, ([0-9.]+) s wall")


def run(exe, args, work, tag):
    """One tsmech run: (q, v) at the end, the summary's numbers."""
    out = os.path.join(work, tag + ".h5")
    cmd = [exe, *args, "-output", out, "-output_every", "100000000", "-quiet", "-log_view"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    m = WALL.search(p.stdout)
    step = re.search(r"^TSStep\s+(\d+)\s+\S+\s+(\S+)", p.stdout, re.M)
    if p.returncode != 0 or not m or not step:
        sys.exit(f"bench/gauss2.py: failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout}{p.stderr}")
    with h5py.File(out, "r") as f:
        q, v = f["/fields/q"][-1].ravel(), f["/fields/v"][-1].ravel()
        t = f["/fields/time"][-1]
    os.remove(out)
    xmf = os.path.splitext(out)[0] + ".xmf"
    if os.path.exists(xmf):
        os.remove(xmf)
    steps, _, _, newton, ksp, _ = m.groups()
    return np.concatenate([q, v]), float(t), int(steps), int(newton), int(ksp), float(step.group(2)), cpu


def args_for(case, peer, value):
    """The options of one run: fixed steps n (dt = T/n), or the adaptive tolerance"""
    opts, kind = PEERS[peer]
    T = CASES[case]["T"]
    if kind == "steps":
        return [*CASES[case]["model"], *opts, "-ts_dt", repr(T / value), "-ts_max_steps", str(value), "-ts_max_time", "1e9"]
    return [*CASES[case]["model"], *opts, "-ts_dt", "1e-3", "-ts_rtol", repr(value), "-ts_atol", repr(value),
            "-ts_max_time", repr(T), "-ts_exact_final_time", "matchstep", "-ts_max_steps", "100000000"]


def time_to(points, target):
    """CPU time at error `target` from (error, time, steps) points: log-log interpolation between the
    runs that bracket it, else extrapolation from the most accurate run: its time per step times
    the steps its observed order (from the two most accurate runs) needs."""
    pts = sorted(p for p in points if p[0] > 0)
    for (e1, w1, _), (e2, w2, _) in zip(pts, pts[1:]):
        if e1 <= target <= e2:
            s = (math.log(target) - math.log(e1)) / (math.log(e2) - math.log(e1)) if e2 > e1 else 0
            return math.exp(math.log(w1) + s * (math.log(w2) - math.log(w1))), False
    (e1, w1, n1), (e2, _, n2) = pts[0], pts[1]
    if e1 >= e2 or n1 == n2:
        return float("nan"), True
    order = math.log(e2 / e1) / math.log(n1 / n2)
    return w1 * (e1 / target) ** (1 / order), True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", default="kepler,chain")
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--target", type=float, default=1e-8)
    ap.add_argument("--quick", action="store_true", help="the two coarsest runs of each sweep")
    ap.add_argument("--tsmech-args", default="", help="extra options for every run (e.g. '-gauss2_ksp_rtol 1e-3')")
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "tsmech"))
    a = ap.parse_args()
    peers = [p for p in a.peers.split(",") if p]
    for p in peers:
        if p not in PEERS:
            sys.exit(f"bench/gauss2.py: --peers: unknown peer {p!r} (one of {', '.join(PEERS)})")
    with tempfile.TemporaryDirectory() as work:
        for case in [c for c in a.cases.split(",") if c]:
            if case not in CASES:
                sys.exit(f"bench/gauss2.py: --cases: unknown case {case!r} (kepler, chain)")
            c = CASES[case]
            if "reference" in c:
                rp, rn = c["reference"]
                ref, tref, *_ = run(a.exe, args_for(case, rp, rn) + ["-snes_rtol", "1e-14"], work, "ref")
            else:
                # Kepler after whole orbits: q0 = (1 - e, 0), v0 = (0, sqrt((1 + e) / (1 - e))) (src/models/kepler.c)
                e = 0.6
                ref = np.array([1 - e, 0, 0, math.sqrt((1 + e) / (1 - e))])
            print(f"\n== {case}: {' '.join(c['model'])}, to t = {c['T']:.6g}; reference "
                  f"{'the initial state (exact)' if 'reference' not in c else ' '.join(map(str, c['reference'])) + ' steps'}")
            print(f"{'peer':<15} {'steps/tol':>10} {'steps':>8} {'Newton':>8} {'KSP':>9} {'TSStep s':>8} {'CPU s':>7} {'error':>10}")
            best = {}
            for p in peers:
                sweep = c["sweeps"][p][:2] if a.quick else c["sweeps"][p]
                pts = []
                for val in sweep:
                    x, t, steps, newton, ksp, wall, cpu = run(a.exe, args_for(case, p, val) + a.tsmech_args.split(), work, "run")
                    if abs(t - c["T"]) > 1e-9 * c["T"]:
                        sys.exit(f"bench/gauss2.py: {p} ended at t = {t}, not {c['T']}")
                    err = np.linalg.norm(x - ref) / np.linalg.norm(ref)
                    pts.append((err, cpu, steps))
                    print(f"{p:<15} {val:>10.3g} {steps:>8} {newton:>8} {ksp:>9} {wall:>8.3f} {cpu:>7.3f} {err:>10.3e}", flush=True)
                best[p] = time_to(pts, a.target)
            print(f"\nCPU time to an error of {a.target:g}:")
            for p in peers:
                w, extra = best[p]
                print(f"  {p:<15} {w:10.3g} s{'  (extrapolated)' if extra else ''}")
            for g in [p for p in peers if p.startswith("gauss2")]:
                for other in [p for p in peers if p == "midpoint2" or p.startswith("irk")]:
                    print(f"  {g} is {best[other][0] / best[g][0]:8.3g} times faster than {other}")


if __name__ == "__main__":
    main()
