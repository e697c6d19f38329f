#!/usr/bin/python3
"""Linear solvers on thin bodies (issue 38, item 4; docs/solvers.md §8), side by side in one run.

  /usr/bin/python3 bench/thin_solvers.py [--build build] [--only CASE,...] [--solvers NAME,...] [--cpu S]

The quasi-static problems (static2, the load ramped over the run) of Cook's membrane, one element
thick (1 mm against cells of 3 mm at N = 16), at N = 16 and 32: P1 tetrahedra in plane strain and Q1
hexahedra with the z faces free (the membrane's compressed edge makes the tangent indefinite from
about 5 % of the load: CG stops); and Turek-Hron CSM1 (a beam 20 mm high, one layer 5 mm thick, P2
on the 70 x 4 mesh of tests/solid/csm1_mesh.py). Each with the same Newton (-snes_linesearch_type
basic, automatic incrementation) and these linear solvers (-ksp_rtol 1e-8 unless the solver is direct):

  lu          MUMPS LU
  gmres-gamg  GMRES(30) with GAMG and the model's rigid-body near-null space (PETSc's defaults)
  cg-gamg     CG with the same GAMG (fails where the tangent is indefinite)
  gmres-gamg-t  GMRES with GAMG, -pc_gamg_threshold 0.02 (keeps the weak through-thickness couplings out of the aggregates' graph)
  gmres-gamg-s  GMRES with GAMG and 4 Chebyshev/Jacobi smoothing steps per level
  gmres-hypre BoomerAMG (HMIS, ext+i, P_max 4, nodal coarsening of the 3 components)
  gmres-ilu   GMRES(100) with ILU(0)

Prints per case and solver: steps (rejected), Newton and KSP iterations, KSP iterations per Newton
iteration and CPU seconds of the child (the machine may be shared), or what failed.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runs  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--build", default="build")
ap.add_argument("--work", default="/tmp/tsmech_thin")
ap.add_argument("--only", default="")
ap.add_argument("--solvers", default="lu,gmres-gamg,cg-gamg,gmres-gamg-t,gmres-gamg-s,gmres-hypre,gmres-ilu")
ap.add_argument("--cpu", type=float, default=300, help="CPU seconds a run may take (the machine may be shared: not wall time)")
ap.add_argument("--extra", default="-snes_linesearch_type basic")
a = ap.parse_args()
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
tsmech = os.path.abspath(os.path.join(a.build, "tsmech"))
os.makedirs(a.work, exist_ok=True)
os.chdir(a.work)

ITER = "-ksp_rtol 1e-8 -ksp_max_it 2000"
SOLVERS = {
    "lu": "-ksp_type preonly -pc_type lu -pc_factor_mat_solver_type mumps",
    "gmres-gamg": f"-ksp_type gmres -pc_type gamg {ITER}",
    "cg-gamg": f"-ksp_type cg -pc_type gamg {ITER}",
    "gmres-gamg-t": f"-ksp_type gmres -pc_type gamg -pc_gamg_threshold 0.02 {ITER}",
    "gmres-gamg-s": f"-ksp_type gmres -pc_type gamg -mg_levels_ksp_max_it 4 {ITER}",
    "gmres-hypre": f"-ksp_type gmres -pc_type hypre -pc_hypre_boomeramg_coarsen_type HMIS -pc_hypre_boomeramg_interp_type ext+i -pc_hypre_boomeramg_P_max 4 -pc_hypre_boomeramg_nodal_coarsen 1 -pc_hypre_boomeramg_vec_interp_variant 2 {ITER}",
    "gmres-ilu": f"-ksp_type gmres -ksp_gmres_restart 100 -pc_type ilu {ITER}",
}
COOK = ("-model solid -solid_material neohookean_split -solid_E 1.0985 -solid_nu 0.3 -solid_density 1e-9 -solid_g 0,0,0 "
        "-solid_load tip -solid_load_tip_group load -solid_load_tip_traction 0,0.0625,0 -solid_load_tip_time ramp:1 -ts_type static2 -ts_max_time 1")
PS = "-solid_bc clamp,plane -solid_bc_clamp_group clamp -solid_bc_plane_where all -solid_bc_plane_components z"
FZ = "-solid_bc clamp -solid_bc_clamp_group clamp"
CSM = ("-model solid -solid_material svk -solid_E 1.4e6 -solid_nu 0.4 -solid_density 1000 -solid_g 0,-2,0 -solid_bc clamp,plane "
       "-solid_bc_clamp_group clamp -solid_bc_plane_where all -solid_bc_plane_components z -solid_order 2 -solid_g_time ramp:1 -ts_type static2 -ts_max_time 1")
CASES = [
    ("cook-p1-ps-16", f"{COOK} {PS} -solid_mesh cook16tet.msh"),
    ("cook-p1-ps-32", f"{COOK} {PS} -solid_mesh cook32tet.msh"),
    ("cook-q1-fz-16", f"{COOK} {FZ} -solid_mesh cook16hex.msh"),
    ("cook-q1-fz-32", f"{COOK} {FZ} -solid_mesh cook32hex.msh"),
    ("csm1-p2", f"{CSM} -solid_mesh csm1_70x4_p2.msh"),
]


def meshes():
    runs.mesh(root, "csm1_mesh.py", [70, 4, "csm1_70x4_p2.msh", "tet10"], "csm1_70x4_p2.msh")
    for kind, n in (("tet", 16), ("tet", 32), ("hex", 16), ("hex", 32)):
        runs.mesh(root, "cook_mesh.py", [n, f"cook{n}{kind}.msh", kind], f"cook{n}{kind}.msh")


def cell(status, out, cpu):
    s = runs.summary(out)
    if status == 0 and s:
        return f"{s[0]}({s[1]}) {s[2]} N {s[3]} K ({s[3] / max(s[2], 1):.0f}/N), {cpu:.1f} s"
    if status == -1:
        return f"CPU limit ({cpu:.0f} s)"
    return "FAIL: " + runs.failure(out)[:70]


def main():
    meshes()
    only = [x for x in a.only.split(",") if x]
    solvers = a.solvers.split(",")
    print(f"| case | {' | '.join(solvers)} |")
    print("|---" * (len(solvers) + 1) + "|")
    for name, args in CASES:
        if only and name not in only:
            continue
        print(f"| {name} | " + " | ".join(cell(*runs.run(tsmech, f"{args} {SOLVERS[s]} {a.extra} -quiet -report_equilibrium", a.cpu)) for s in solvers) + " |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
