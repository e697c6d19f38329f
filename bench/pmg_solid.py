#!/usr/bin/python3
"""The solid's p-multigrid against the configuration it replaces, side by side in one run (issue 40).

  /usr/bin/python3 bench/pmg_solid.py [--tsmech build/tsmech] [--cells tet,hex] [--n 8,16] [--steps 3]

The neo-Hookean beam of bench/dolfinx_solid.py (1 x 0.1 x 0.1, 8n x n x n boxes, clamped at x = 0,
released under gravity; E = 1e7, nu = 0.3, rho = 1000) on quadratic elements (-solid_order 2: P2
tetrahedra, Q2 hexahedra; n = 8 gives 111 843 unknowns, n = 16 839 619), --steps steps of the
implicit midpoint rule (midpoint2, dt = --dt), Newton to -snes_rtol 1e-8 and every linear solve to
-ksp_rtol 1e-8, by each peer:

  gamg  the configuration before issue 40 (config/solid_quadratic.opts of commit 2b9a91d): the
        matrix-free Newton operator, CG, GAMG on the assembled quadratic operator (lagged), smoothed
        with it (-pc_use_amat 0); with --material linear that of config/solid_linear.opts of
        2b9a91d (M + K assembled once, CG + GAMG set up once)
  pmg   the solver of config/solid_quadratic.opts now (--material linear: of config/solid_linear.opts):
        CG with the p-multigrid (-pc_type mg: the matrix-free quadratic level smoothed by
        Chebyshev-Jacobi, the linear level with GAMG)

For each peer and size: CPU time per step (the run's user + system time less that of the same run
without steps: the set-up and the output; the best of --repeat runs), Newton and Krylov iterations,
Krylov iterations per Newton iteration, the run's peak resident memory, and the final displacement,
which must equal the gamg peer's to --agree of its size (the solvers' tolerance). Then the ratios
gamg / pmg (time per step, memory) and the growth of the Krylov iterations per Newton iteration
from the first size to the last. The peers run alternately, size after size, so that the load of a
shared machine falls on both; the load average is printed before and after.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np

MODEL = ("-model solid -solid_beam_size 1,0.1,0.1 -solid_E 1e7 -solid_nu 0.3 "
         "-solid_density 1000 -solid_g 0,0,-9.81 -solid_order 2 -ts_type midpoint2 -snes_rtol 1e-8 -ksp_rtol 1e-8")
PEERS = {
    "gamg": "-ts_theta_matrix_free -ksp_type cg -pc_type gamg -pc_use_amat 0",
    "pmg": "",  # the solver options of config/solid_quadratic.opts (read from the file)
}
# the linear material's configuration before issue 40 (config/solid_linear.opts of 2b9a91d: M + K
# assembled once, GAMG set up once) and now (config/solid_linear.opts)
LINEAR_GAMG = "-ksp_type cg -pc_type gamg"
SOLVER_PREFIXES = ("-ts_theta_", "-snes_", "-ksp_", "-pc_", "-mg_", "-solid_pmg_", "-solid_mass_matrix")


def config_solver(path):
    """the solver options of an options file (its -ts_theta_, -snes_, -ksp_, -pc_, -mg_ lines)"""
    opts = []
    with open(path) as f:
        for line in f:
            line = line.split("#")[0].strip()
            if line and line.startswith(SOLVER_PREFIXES):
                opts.append(line)
    return " ".join(opts)


def run(cmd):
    """(stdout + stderr, CPU seconds, peak resident MB) of a child"""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.read().decode(errors="replace")
    _, status, ru = os.wait4(p.pid, 0)
    if status:
        sys.exit("failed (%d): %s\n%s" % (status, " ".join(cmd), out[-3000:]))
    return out, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def peer_run(a, peer, cell, n, h5):
    base = [a.tsmech] + MODEL.split() + ["-solid_material", a.material, "-solid_cell", cell, "-solid_beam_cells", "%d,%d,%d" % (8 * n, n, n),
                                         "-ts_dt", str(a.dt)] + PEERS[peer].split()
    best = None
    for _ in range(a.repeat):
        out, cpu, mem = run(base + ["-ts_max_steps", str(a.steps), "-output", h5, "-output_every", str(a.steps)])
        _, cpu0, _ = run(base + ["-ts_max_steps", "0"])
        its = re.search(r"(\d+) Newton / (\d+) KSP iterations", out)
        r = dict(cpu=(cpu - cpu0) / a.steps, setup=cpu0, mem=mem, newton=int(its.group(1)), ksp=int(its.group(2)))
        if best is None or r["cpu"] < best["cpu"]:
            best = r
    with h5py.File(h5, "r") as f:
        best["u"] = f["/fields/q"][-1] - f["/fields/q"][0]
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tsmech", default="build/tsmech")
    ap.add_argument("--config", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "config", "solid_quadratic.opts"),
                    help="the pmg peer's solver options are those of this file")
    ap.add_argument("--material", default="neohookean", help="neohookean, or linear: then the peers are config/solid_linear.opts's")
    ap.add_argument("--cells", default="tet,hex")
    ap.add_argument("--n", default="8", help="beam sizes: 8n x n x n boxes (8: 111 843 unknowns, 16: 839 619)")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--dt", type=float, default=1e-3)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--peers", default="gamg,pmg", help="the peers, in order (the first is the reference of the ratios)")
    ap.add_argument("--pmg-options", default=None, help="the pmg peer's options instead of the config file's")
    ap.add_argument("--peer", action="append", default=[], metavar="NAME=OPTIONS",
                    help="another peer: its name and solver options (e.g. gamg_ew='-ts_theta_matrix_free -ksp_type cg -pc_type gamg -pc_use_amat 0 -snes_ksp_ew')")
    ap.add_argument("--agree", type=float, default=1e-6, help="bound of the final displacements' difference (relative)")
    a = ap.parse_args()
    if a.material == "linear":
        PEERS["gamg"] = LINEAR_GAMG
        if a.config.endswith("solid_quadratic.opts"):
            a.config = a.config.replace("solid_quadratic.opts", "solid_linear.opts")
    PEERS["pmg"] = a.pmg_options if a.pmg_options is not None else config_solver(a.config)
    for extra in a.peer:
        name, opts = extra.split("=", 1)
        PEERS[name] = opts
    peers = a.peers.split(",")
    for p in peers:
        print("%-5s %s" % (p, PEERS[p]))
    print("load average before: %s" % load(), flush=True)
    rows = {}
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        for cell in a.cells.split(","):
            for n in [int(x) for x in a.n.split(",")]:
                for p in peers:
                    r = peer_run(a, p, cell, n, os.path.join(tmp, "%s.h5" % p))
                    r["dofs"] = r["u"].size
                    rows[(cell, n, p)] = r
                    ref = rows[(cell, n, peers[0])]["u"]
                    rel = np.abs(r["u"] - ref).max() / np.abs(ref).max()
                    r["rel"] = rel
                    if rel > a.agree:
                        bad.append("%s n=%d %s: %.1e" % (cell, n, p, rel))
                    print("%s %8d unknowns %-5s: %7.2f s CPU/step (set-up %6.2f s), %3d Newton / %4d KSP, %5.1f KSP/Newton, "
                          "peak %7.0f MB, |u - u_%s| %.1e" % (cell, r["dofs"], p, r["cpu"], r["setup"], r["newton"], r["ksp"],
                                                                r["ksp"] / r["newton"], r["mem"], peers[0], rel), flush=True)
    print("load average after: %s" % load())
    print()
    print("| cells | unknowns | peer | CPU s/step | Newton | KSP | KSP/Newton | peak MB | time ratio | memory ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (cell, n, p), r in rows.items():
        b = rows[(cell, n, peers[0])]
        print("| %s | %d | %s | %.2f | %d | %d | %.1f | %.0f | %.2f | %.2f |" % (
            "P2" if cell == "tet" else "Q2", r["dofs"], p, r["cpu"], r["newton"], r["ksp"], r["ksp"] / r["newton"], r["mem"],
            b["cpu"] / r["cpu"], b["mem"] / r["mem"]))
    sizes = sorted({n for (_, n, _) in rows})
    if len(sizes) > 1:
        for cell in a.cells.split(","):
            for p in peers:
                f, l = rows[(cell, sizes[0], p)], rows[(cell, sizes[-1], p)]
                print("%s %s: KSP/Newton %.1f -> %.1f, growth %.2f" % (cell, p, f["ksp"] / f["newton"], l["ksp"] / l["newton"],
                                                                     (l["ksp"] / l["newton"]) / (f["ksp"] / f["newton"])))
    if bad:
        sys.exit("the peers disagree: " + ", ".join(bad))


if __name__ == "__main__":
    main()
