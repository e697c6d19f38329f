#!/usr/bin/python3
"""Newton's globalization on every structural benchmark of the project, quasi-static and dynamic
(issue 38; docs/solvers.md §8), side by side in one run.

  /usr/bin/python3 bench/globalization.py [--build build] [--only NAME,...] [--globs bt,basic,...] [--cpu S]

Globalizations: PETSc's line searches bt (backtracking on |F|^2, PETSc's default), basic (the full
Newton step), cp (critical point of the line's potential, by secant), l2 (secant on |F|^2), tsmech's
potential (backtracking on the step's incremental potential, a refused full step retried once on the
second-order path, src/ts/linesearch2.c), potential-line (the same on the straight line only), and PETSc's
trust region (-snes_type newtontr). Each benchmark runs with a direct solver (PETSc's LU on one rank)
unless its configuration file chooses one, so that only Newton's globalization differs:

  quasi-static (static2, the load ramped over the run, automatic incrementation from one step):
    csm1       Turek-Hron CSM1 (the beam behind the cylinder, St. Venant-Kirchhoff, g = 2 m/s^2),
               P2 on the 35 x 2 mesh of tests/solid/csm1_mesh.py (bench/csm1.py: 70 x 4)
    cook-*     Cook's membrane (README), P1 and Q1 at N = 8, P2 and Q2 at N = 4, plane strain
               (-ps) and with the z faces free (-fz); Q1 plane strain at N = 1 (cook-q1-ps-1)
    beam       the built-in neo-Hookean cantilever (20 x 2 x 2 boxes) under 100 m/s^2
    lattice    the 8^3 lattice on its base under gravity (constant: one step of the whole load)
  dynamic (fixed steps, -ts_adapt_type none, as measured in issue 38):
    csm1-be    CSM1 brought to rest by beuler2, dt 0.5, 40 steps, gravity ramped over 4 s
    csm3       Turek-Hron CSM3 (the same beam swinging under gravity from rest), midpoint2, dt 0.01, 50 steps
    cook-be-*  Cook's membrane brought to rest by beuler2 (README: dt 0.5 to t = 8, ramp over 5), N = 8
    beam-mid   config/solid.opts, 40 steps
    cloth      config/cloth.opts at 24^2, 150 steps
    lattice-cn config/lattice.opts at 8^3, 100 steps

Prints per benchmark and globalization: steps (rejected), Newton iterations, CPU seconds (of the
child: the machine may be shared), or what failed; and the equilibrium residual against the load
for the runs that bring a body to rest. Meshes are written into --work (default /tmp/tsmech_glob).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runs  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--build", default="build")
ap.add_argument("--work", default="/tmp/tsmech_glob")
ap.add_argument("--only", default="")
ap.add_argument("--globs", default="bt,basic,cp,l2,potential,potential-line,tr")
ap.add_argument("--cpu", type=float, default=300, help="CPU seconds a run may take (the machine may be shared: not wall time)")
ap.add_argument("--extra", default="", help="options added to every run")
a = ap.parse_args()
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
tsmech = os.path.abspath(os.path.join(a.build, "tsmech"))
os.makedirs(a.work, exist_ok=True)
os.chdir(a.work)

GLOBS = {"bt": "-snes_linesearch_type bt", "basic": "-snes_linesearch_type basic", "cp": "-snes_linesearch_type cp", "l2": "-snes_linesearch_type l2",
         "potential": "-snes_linesearch_type potential", "potential-line": "-snes_linesearch_type potential -snes_linesearch_potential_curve 0",
         "tr": "-snes_type newtontr"}
LU = "-ksp_type preonly -pc_type lu"
CSM = ("-model solid -solid_material svk -solid_E 1.4e6 -solid_nu 0.4 -solid_density 1000 -solid_g 0,-2,0 -solid_bc clamp,plane "
       "-solid_bc_clamp_group clamp -solid_bc_plane_where all -solid_bc_plane_components z -solid_mesh csm1_35x2_p2.msh -solid_order 2")
COOK = ("-model solid -solid_material neohookean_split -solid_E 1.0985 -solid_nu 0.3 -solid_density 1e-9 -solid_g 0,0,0 "
        "-solid_load tip -solid_load_tip_group load -solid_load_tip_traction 0,0.0625,0")
PS = "-solid_bc clamp,plane -solid_bc_clamp_group clamp -solid_bc_plane_where all -solid_bc_plane_components z"
FZ = "-solid_bc clamp -solid_bc_clamp_group clamp"
STATIC = "-ts_type static2 -ts_max_time 1"


def cook(kind, n, bc, extra):
    order = "-solid_order 2" if kind in ("tet10", "hex27") else ""
    return f"{COOK} {bc} -solid_mesh cook{n}{kind}.msh {order} {extra}"


CASES = [
    ("csm1", f"{CSM} {STATIC} -solid_g_time ramp:1 {LU}"),
    ("cook-p1-ps", cook("tet", 8, PS, f"{STATIC} -solid_load_tip_time ramp:1 {LU}")),
    ("cook-p2-ps", cook("tet10", 4, PS, f"{STATIC} -solid_load_tip_time ramp:1 {LU}")),
    ("cook-q1-ps", cook("hex", 8, PS, f"{STATIC} -solid_load_tip_time ramp:1 {LU}")),
    ("cook-q1-ps-1", cook("hex", 1, PS, f"{STATIC} -solid_load_tip_time ramp:1 {LU}")),
    ("cook-q2-ps", cook("hex27", 4, PS, f"{STATIC} -solid_load_tip_time ramp:1 {LU}")),
    ("cook-q1-fz", cook("hex", 8, FZ, f"{STATIC} -solid_load_tip_time ramp:1 {LU}")),
    ("cook-q2-fz", cook("hex27", 4, FZ, f"{STATIC} -solid_load_tip_time ramp:1 {LU}")),
    ("beam", f"-model solid -solid_g 0,0,-100 -solid_g_time ramp:1 {STATIC} {LU}"),
    ("lattice", f"-model lattice -lattice_n 8 {STATIC} {LU}"),
    ("csm1-be", f"{CSM} -ts_type beuler2 -ts_dt 0.5 -ts_max_time 20 -solid_g_time ramp:4 -ts_adapt_type none {LU}"),
    ("csm3", f"{CSM} -ts_type midpoint2 -ts_dt 0.01 -ts_max_steps 50 -ts_max_time 10 -ts_adapt_type none {LU}"),
    ("cook-be-p1-ps", cook("tet", 8, PS, f"-ts_type beuler2 -ts_dt 0.5 -ts_max_time 8 -solid_load_tip_time ramp:5 -ts_adapt_type none {LU}")),
    ("cook-be-q1-fz", cook("hex", 8, FZ, f"-ts_type beuler2 -ts_dt 0.5 -ts_max_time 8 -solid_load_tip_time ramp:5 -ts_adapt_type none {LU}")),
    ("beam-mid", f"-options_file {root}/config/solid.opts -ts_max_steps 40 -ts_adapt_type none"),
    ("cloth", f"-options_file {root}/config/cloth.opts -cloth_n 24 -ts_max_steps 150 -ts_adapt_type none"),
    ("lattice-cn", f"-options_file {root}/config/lattice.opts -lattice_n 8 -ts_max_steps 100 -ts_adapt_type none"),
]


def meshes():
    runs.mesh(root, "csm1_mesh.py", [35, 2, "csm1_35x2_p2.msh", "tet10"], "csm1_35x2_p2.msh")
    for kind, n in (("tet", 8), ("tet10", 4), ("hex", 8), ("hex", 1), ("hex27", 4)):
        runs.mesh(root, "cook_mesh.py", [n, f"cook{n}{kind}.msh", kind], f"cook{n}{kind}.msh")


def cell(status, out, cpu):
    s, eq = runs.summary(out), runs.equilibrium(out)
    steps = f"{s[0]}({s[1]}) {s[2]} N" if s else ""
    if status == 0:
        return f"{steps}, {cpu:.1f} s" + (f", eq {eq:.0e}" if eq is not None else "")
    if status == -1:
        return f"CPU limit ({cpu:.0f} s)"
    return f"FAIL {steps}: {runs.failure(out)[:60]}"


def main():
    meshes()
    only = [x for x in a.only.split(",") if x]
    globs = a.globs.split(",")
    print(f"| benchmark | {' | '.join(globs)} |")
    print("|---" * (len(globs) + 1) + "|")
    for name, args in CASES:
        if only and name not in only:
            continue
        cells = []
        for g in globs:
            status, out, cpu = runs.run(tsmech, f"{args} {GLOBS[g]} {a.extra} -quiet -report_equilibrium", a.cpu)
            cells.append(cell(status, out, cpu))
        print(f"| {name} | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
