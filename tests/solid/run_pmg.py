#!/usr/bin/python3
"""The solid's p-multigrid (-pc_type mg on quadratic elements, src/models/solid/pmg.c) through the
tsmech program: its answers equal those of a direct solve.

  run_pmg.py TSMECH MPIEXEC WORKDIR [ranks]

Every case runs a small quadratic beam (P2 tetrahedra or Q2 hexahedra, 4 x 1 x 1 boxes, clamped,
under gravity) for a few steps twice, with Newton to -snes_rtol 1e-10 and each linear solve to
-ksp_rtol 1e-10: once with LU (the reference, one rank) and once with the p-multigrid (the
matrix-free quadratic operator, Chebyshev-Jacobi, the linear level with GAMG); the final
displacements must agree to 1e-7 of their size (the solvers' tolerance; they agree to 1e-9).

  materials  linear, svk, neohookean, neohookean_split, mooney_rivlin, on P2 and Q2 (midpoint2)
  types      beuler2, cn2, theta2 (0.7), the linearized midpoint rule, discgrad2 (its residual
             differenced), gauss2 (2 and 3 stages: one and two blocks), TSALPHA2; the assembled
             Newton Jacobian too (the multigrid operator rebuilt at every Newton iteration)
  mass       stored once for the three components (-solid_mass_matrix scalar: the shells of
             src/models/solid/massshell.c and src/mech/massfixed.c) with the matrix-free operators,
             assembled in the cases named so and with the assembled Newton operators
  features   Rayleigh damping, the lumped mass, a prescribed motion of the free end, a follower
             pressure (non-symmetric: GMRES), the rediscretized linear level, point-block Jacobi
  ranks      (with the ranks argument) P2 and Q2, damping with a motion, a follower pressure on that
             many ranks against the one-rank reference: the parallel interpolation and linear level
  refused    -pc_mg_levels 3, -pc_mg_galerkin, discgrad2's assembled Jacobian, the scalar mass with
             the assembled Newton operator: one line, exit 2
"""
import os
import subprocess
import sys

import h5py
import numpy as np

TSMECH, MPIEXEC, WORK = sys.argv[1:4]
RANKS = int(sys.argv[4]) if len(sys.argv) > 4 else 1
os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)
failures = 0
BEAM = ("-model solid -solid_beam_cells 4,1,1 -solid_beam_size 1,0.1,0.1 -solid_order 2 -solid_E 1e7 -solid_nu 0.3 "
        "-solid_density 1000 -solid_g 0,0,-9.81 -ts_dt 2e-3 -ts_max_steps 4 -quiet -output_every 4 "
        "-snes_rtol 1e-10 -ksp_rtol 1e-10 -ksp_atol 1e-30")
REF = "-ksp_type preonly -pc_type lu"
PMG = "-ksp_type cg -pc_type mg"
CELLS = {"P2": "-solid_cell tet", "Q2": "-solid_cell hex"}
MOVE = "-solid_bc clamp,tip -solid_bc_clamp_where x=0 -solid_bc_tip_where x=1 -solid_bc_tip_u 0,0,0.002 -solid_bc_tip_time sin:300"
FOLLOWER = "-solid_load p -solid_load_p_where x=1 -solid_load_p_pressure 2e4 -solid_load_p_time ramp:0.01"


def check(cond, msg):
    global failures
    if not cond:
        failures += 1
        print("FAILED: " + msg, flush=True)


def run(args, ranks=1, expect=0):
    cmd = [TSMECH] + args.split()
    if ranks > 1:
        cmd = [MPIEXEC, "-q", "--oversubscribe", "-n", str(ranks)] + cmd
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    out = p.stdout.decode(errors="replace")
    check(p.returncode == expect, f"tsmech {args} on {ranks}: exit {p.returncode}, expected {expect}\n{out}")
    return out


def displacement(path):
    with h5py.File(path, "r") as f:
        return f["fields/q"][-1] - f["fields/q"][0]


REFS = {}


def reference(case):
    """the case's final displacement with LU on one rank (each case run once)"""
    if case not in REFS:
        if os.path.exists("ref.h5"):
            os.remove("ref.h5")
        run(f"{BEAM} {case} {REF} -output ref.h5")
        REFS[case] = displacement("ref.h5") if os.path.exists("ref.h5") else None
    return REFS[case]


def compare(name, case, mg, ranks):
    """the case with LU on one rank against it with the p-multigrid (options mg) on ranks"""
    if os.path.exists("mg.h5"):
        os.remove("mg.h5")
    u = reference(case)
    run(f"{BEAM} {case} {mg} -output mg.h5", ranks)
    if u is None or not os.path.exists("mg.h5"):
        check(False, f"{name}: no output")
        return
    w = displacement("mg.h5")
    rel = np.abs(w - u).max() / np.abs(u).max()
    print(f"{name:40s} ranks {ranks}: |u_mg - u_lu| = {rel:.1e} of |u| = {np.abs(u).max():.2e}", flush=True)
    check(rel <= 1e-7, f"{name} on {ranks} ranks: the p-multigrid's answer differs from LU's by {rel:.1e}")


# the matrix-free operator with the mass stored once for the three components (-solid_mass_matrix
# scalar, config/solid_quadratic.opts); the assembled mass in the cases named so
SCALAR = "-solid_mass_matrix scalar "
MF = "-ts_theta_matrix_free " + SCALAR + PMG
MF_ASSEMBLED = "-ts_theta_matrix_free " + PMG
cases = []
for cell in ("P2", "Q2"):
    for mat in ("linear", "svk", "neohookean", "neohookean_split", "mooney_rivlin"):
        cases.append((f"{cell} {mat}", f"{CELLS[cell]} -solid_material {mat}", MF))
    cases.append((f"{cell} rayleigh, motion", f"{CELLS[cell]} -solid_rayleigh 20,1e-4 {MOVE}", MF))
    cases.append((f"{cell} follower pressure (gmres)", f"{CELLS[cell]} {FOLLOWER}", MF.replace("-ksp_type cg", "-ksp_type gmres")))
    cases.append((f"{cell} neohookean, assembled mass", f"{CELLS[cell]} -solid_material neohookean", MF_ASSEMBLED))
    cases.append((f"{cell} rayleigh, motion, assembled mass", f"{CELLS[cell]} -solid_rayleigh 20,1e-4 {MOVE}", MF_ASSEMBLED))
if RANKS > 1:
    # on several ranks: each element once, with damping, a motion and a follower pressure among them
    keep = ("P2 neohookean", "Q2 rayleigh, motion", "P2 follower pressure (gmres)", "Q2 neohookean")
    cases = [c for c in cases if c[0] in keep]
else:
    P2 = CELLS["P2"]
    cases += [("P2 beuler2", f"{P2} -ts_type beuler2", MF),
              ("P2 cn2", f"{P2} -ts_type cn2", MF),
              ("P2 theta2 0.7", f"{P2} -ts_type theta2 -ts_theta_theta 0.7", MF),
              ("P2 midpoint2 linearized", f"{P2} -ts_theta_linearized -ts_theta_linearized_guess extrapolate", MF),
              ("P2 midpoint2 assembled Newton", f"{P2} -solid_material neohookean", PMG),
              ("P2 discgrad2 (differenced)", f"{P2} -ts_type discgrad2", "-ts_discgrad2_matrix_free " + SCALAR + PMG),
              ("P2 gauss2 s = 2", f"{P2} -ts_type gauss2 -ts_gauss2_stages 2 -ts_gauss2_direct_max 0", "-ts_gauss2_matrix_free " + SCALAR + PMG),
              ("P2 gauss2 s = 3", f"{P2} -ts_type gauss2 -ts_gauss2_stages 3 -ts_gauss2_direct_max 0", "-ts_gauss2_matrix_free " + SCALAR + PMG),
              ("P2 alpha2 (radius 1)", f"{P2} -ts_type alpha2 -ts_alpha_radius 1", PMG),
              ("P2 lumped mass", f"{P2} -solid_mass lumped", MF),
              ("P2 rediscretized linear level", f"{P2} -solid_material neohookean", "-solid_pmg_coarse rediscretized " + MF),
              ("Q2 rediscretized linear level", f"{CELLS['Q2']} -solid_material neohookean", "-solid_pmg_coarse rediscretized " + MF),
              ("P2 point-block Jacobi", f"{P2} -solid_material neohookean", "-mg_levels_pc_type pbjacobi " + MF)]
for name, case, mg in cases:
    compare(name, case, mg, RANKS)

if RANKS == 1:
    for opt, what in (("-pc_mg_levels 3", "-pc_mg_levels 3: the solid's p-multigrid has 2 levels"),
                      ("-pc_mg_galerkin both", "-pc_mg_galerkin: model solid forms its coarse levels itself"),
                      ("-ts_type discgrad2", "give -ts_discgrad2_matrix_free"),
                      ("-solid_mass_matrix scalar -pc_type gamg", "An assembled operator needs an assembled mass matrix")):
        out = run(f"{BEAM} {PMG} {opt}", expect=2)
        check(what in out, f"{opt}: the message does not say '{what}':\n{out}")
        print(f"refused {opt:30s}: {out.strip().splitlines()[0] if out.strip() else ''}", flush=True)

print(f"{'FAILED' if failures else 'passed'}: {failures} failures")
sys.exit(1 if failures else 0)
