#!/usr/bin/python3
"""Cook's membrane with the README's static command against the README's and docs/solid.md §13's
tables (issue 38: today's numbers, from the dynamic route), every element family, N = 1 ... 32.

  /usr/bin/python3 bench/cook_static.py [--build build] [--families p1-ps,...] [--sizes 1,2,4,8,16,32]

The static command: -options_file config/solid_static.opts, Cook's options (README) with the load
ramped over [0, 1]; nothing else, but for the tetrahedra with the z faces free, which buckle: their
table is the buckled equilibrium the load path leads to, followed with -ts_adapt_dt_max 0.05 (in one
step static2 finds another equilibrium). Prints per family and N the corner's u_y (mm), the table's
value, whether they agree to its printed digits, steps, Newton iterations, the equilibrium reached
and CPU seconds (the machine may be shared).
"""
import argparse
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runs  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--build", default="build")
ap.add_argument("--work", default="/tmp/tsmech_cook")
ap.add_argument("--families", default="p1-ps,p2-ps,q1-ps,q2-ps,q1-fz,q2-fz,p1-fz")
ap.add_argument("--sizes", default="1,2,4,8,16,32")
a = ap.parse_args()
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
tsmech = os.path.abspath(os.path.join(a.build, "tsmech"))
os.makedirs(a.work, exist_ok=True)
os.chdir(a.work)

COOK = ("-model solid -solid_material neohookean_split -solid_E 1.0985 -solid_nu 0.3 -solid_density 1e-9 -solid_g 0,0,0 "
        "-solid_load tip -solid_load_tip_group load -solid_load_tip_traction 0,0.0625,0 -solid_load_tip_time ramp:1 -report_equilibrium -quiet")
PS = "-solid_bc clamp,plane -solid_bc_clamp_group clamp -solid_bc_plane_where all -solid_bc_plane_components z"
FZ = "-solid_bc clamp -solid_bc_clamp_group clamp"
# family: (mesh kind, order, constraints, extra, today's table {N: printed value})
FAMILIES = {
    "p1-ps": ("tet", 1, PS, "", {4: "8.165", 8: "11.146", 16: "12.890", 32: "13.523"}),
    "p1-fz": ("tet", 1, FZ, "-ts_dt 0.05 -ts_adapt_dt_max 0.05", {4: "8.382", 8: "13.453", 16: "17.024", 32: "18.389"}),
    "p2-ps": ("tet10", 2, PS, "", {4: "13.501", 8: "13.709", 16: "13.757"}),
    "q1-ps": ("hex", 1, PS, "", {1: "4.989", 2: "8.397", 4: "11.538", 8: "13.069", 16: "13.577", 32: "13.721"}),
    "q2-ps": ("hex27", 2, PS, "", {1: "11.750", 2: "13.348", 4: "13.681", 8: "13.751", 16: "13.767", 32: "13.771"}),
    "q1-fz": ("hex", 1, FZ, "", {1: "5.154", 2: "8.724", 4: "12.024", 8: "13.608", 16: "14.129", 32: "14.278"}),
    "q2-fz": ("hex27", 2, FZ, "", {1: "12.190", 2: "13.831", 4: "14.216", 8: "14.301", 16: "14.323", 32: "14.330"}),
}


def main():
    sizes = [int(x) for x in a.sizes.split(",")]
    print("| family | N | u_y (mm) | table | equal | steps | Newton | equilibrium | CPU s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for fam in a.families.split(","):
        kind, order, bc, extra, table = FAMILIES[fam]
        for n in sizes:
            if n not in table:
                continue
            mesh = f"cook{n}{kind}.msh"
            runs.mesh(root, "cook_mesh.py", [n, mesh, kind], mesh)
            out = f"{fam}_{n}.h5"
            if os.path.exists(out):
                os.remove(out)
            status, text, cpu = runs.run(tsmech, f"-options_file {root}/config/solid_static.opts {COOK} {bc} -solid_mesh {mesh} -solid_order {order} {extra} -output {out}")
            if status:
                print(f"| {fam} | {n} | FAILED: {runs.failure(text)[:80]} | {table[n]} | | | | | {cpu:.1f} |", flush=True)
                continue
            with h5py.File(out, "r") as f:
                X, q = f["mesh/vertices"][()], f["fields/q"][-1]
            c = int(np.argmin(np.linalg.norm(X - np.array([48.0, 60.0, 0.0]), axis=1)))
            uy = q[c, 1] - X[c, 1]
            digits = len(table[n].split(".")[1])
            st, eq = runs.summary(text), runs.equilibrium(text)
            same = "yes" if f"{uy:.{digits}f}" == table[n] else "NO"
            print(f"| {fam} | {n} | {uy:.4f} | {table[n]} | {same} | {st[0]}({st[1]}) | {st[2]} | {eq:.0e} | {cpu:.1f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
