#!/usr/bin/python3
"""The quasi-static type static2 through the tsmech program (issue 38), with the README's static
command: config/solid_static.opts and the model's options, nothing else.

  run_static.py TSMECH MPIEXEC CONFIG_DIR MESH_DIR WORKDIR

Checks:
- every element family (small N) of Cook's membrane (cook_mesh.py) against the table of today's
  numbers (README, docs/solid.md §13: the dynamic route, beuler2 brought to rest) to its printed
  digits: P1 and P2 tetrahedra, Q1 and Q2 hexahedra in plane strain, Q1 and Q2 with the z faces free
  (the deal.II gallery's table), each at rest to 1e-8 of the load, the z constraint exact;
- Turek-Hron CSM1 (csm1_mesh.py: P2 on 70 x 4) within 0.3 % of the published -66.10 mm at the tip,
  and to 1e-4 of today's -66.0212 mm (beuler2 brought to rest);
- a body not held is refused before the first step, on 1 and 2 ranks: exit status 2, one line naming
  the free motion, no output file;
- a load too large to carry (beyond a St. Venant-Kirchhoff cube's limit load) ends after the
  cut-backs with one line, exit status 3, and the last converged state in the output (its last time
  the one the message names);
- a restart from a checkpoint continues the output bit for bit (the same ranks);
- the steps land on the kink of a table's load (t = 0.35).
"""
import os
import re
import subprocess
import sys

import h5py
import numpy as np

TSMECH, MPIEXEC, CONFIG, MESHES, WORK = (os.path.abspath(x) if i != 1 else x for i, x in enumerate(sys.argv[1:6]))
os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)
failures = 0
STATIC = ["-options_file", os.path.join(CONFIG, "solid_static.opts")]


def check(cond, msg):
    global failures
    if not cond:
        failures += 1
        print("FAILED: " + msg, flush=True)


def run(args, np_=1, timeout=300):
    cmd = ([MPIEXEC, "-n", str(np_)] if np_ > 1 else []) + [TSMECH] + STATIC + args
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def fresh(*names):
    for f in names:
        if os.path.exists(f):
            os.remove(f)


def mesh(script, args, name):
    if not os.path.exists(name):
        subprocess.run(["/usr/bin/python3", os.path.join(MESHES, script)] + args, check=True)


def node(X, p):
    return int(np.argmin(np.linalg.norm(X - np.array(p), axis=1)))


def equilibrium(out):
    m = re.search(r", ([0-9.e+-]+) of the load", out)
    return float(m.group(1)) if m else 1.0


COOK = ("-model solid -solid_material neohookean_split -solid_E 1.0985 -solid_nu 0.3 -solid_density 1e-9 -solid_g 0,0,0 "
        "-solid_load tip -solid_load_tip_group load -solid_load_tip_traction 0,0.0625,0 -solid_load_tip_time ramp:1 -report_equilibrium").split()
PS = "-solid_bc clamp,plane -solid_bc_clamp_group clamp -solid_bc_plane_where all -solid_bc_plane_components z".split()
FZ = "-solid_bc clamp -solid_bc_clamp_group clamp".split()
# (kind, N, constraints, today's corner displacement in mm as printed)
TABLE = [("tet", 4, PS, "8.165"), ("tet10", 8, PS, "13.709"), ("hex", 1, PS, "4.989"), ("hex", 2, PS, "8.397"), ("hex27", 1, PS, "11.750"),
         ("hex", 2, FZ, "8.724"), ("hex27", 1, FZ, "12.190")]
for kind, n, bc, want in TABLE:
    name = f"cook{n}{kind}"
    mesh("cook_mesh.py", [str(n), f"{name}.msh", kind], f"{name}.msh")
    fresh(f"{name}.h5", f"{name}.xmf")
    order = ["-solid_order", "2"] if kind in ("tet10", "hex27") else []
    status, out, err = run(COOK + bc + order + ["-solid_mesh", f"{name}.msh", "-output", f"{name}.h5", "-quiet"])
    check(status == 0, f"Cook {kind} N = {n}: exit {status}\n{out}{err}")
    if status:
        continue
    with h5py.File(f"{name}.h5", "r") as f:
        X, q = f["mesh/vertices"][()], f["fields/q"][-1]
    c = node(X, (48, 60, 0))
    uy = q[c, 1] - X[c, 1]
    rel = equilibrium(out)
    digits = len(want.split(".")[1])
    what = "plane strain" if bc is PS else "z faces free"
    print(f"Cook {kind:5s} N = {n} {what}: u_y = {uy:.4f} mm (today: {want}), equilibrium {rel:.1e} of the load")
    check(f"{uy:.{digits}f}" == want, f"Cook {kind} N = {n} {what}: {uy:.{digits + 1}f} mm, today's table prints {want}")
    check(rel <= 1e-8, f"Cook {kind} N = {n}: {rel:.1e} of the load from equilibrium")
    if bc is PS:
        check(np.abs(q[:, 2] - X[:, 2]).max() == 0, f"Cook {kind} N = {n}: the plane-strain constraint let z move")

# CSM1 on the 70 x 4 mesh of P2 tetrahedra
CSM = ("-model solid -solid_material svk -solid_E 1.4e6 -solid_nu 0.4 -solid_density 1000 -solid_g 0,-2,0 -solid_g_time ramp:1 "
       "-solid_bc clamp,plane -solid_bc_clamp_group clamp -solid_bc_plane_where all -solid_bc_plane_components z -report_equilibrium").split()
mesh("csm1_mesh.py", ["70", "4", "csm1.msh", "tet10"], "csm1.msh")
fresh("csm1.h5", "csm1.xmf")
status, out, err = run(CSM + ["-solid_mesh", "csm1.msh", "-solid_order", "2", "-output", "csm1.h5", "-quiet"])
check(status == 0, f"CSM1: exit {status}\n{out}{err}")
if status == 0:
    with h5py.File("csm1.h5", "r") as f:
        X, q = f["mesh/vertices"][()], f["fields/q"][-1]
        its = f["monitor/snes_its"][1:]
    a = node(X, (0.6, 0.2, 0))
    ux, uy = 1e3 * (q[a, 0] - X[a, 0]), 1e3 * (q[a, 1] - X[a, 1])
    print(f"CSM1 P2 70 x 4: u_A = ({ux:.4f}, {uy:.4f}) mm (published -7.187, -66.10; today -7.1723, -66.0212), equilibrium {equilibrium(out):.1e} of the load")
    check(abs(uy + 66.10) <= 0.003 * 66.10, f"CSM1: u_y(A) = {uy:.4f} mm, not within 0.3 % of -66.10")
    check(abs(uy + 66.0212) <= 1e-4 * 66.0212, f"CSM1: u_y(A) = {uy:.4f} mm, not today's -66.0212")
    # the second-order path of the line search (docs/solvers.md §8.2): one load step, 6 Newton
    # iterations (15 on the straight line)
    check(len(its) == 1 and its.sum() <= 8, f"CSM1: {len(its)} steps, {int(its.sum())} Newton iterations, expected 1 step and at most 8")

# a body not held, 1 and 2 ranks
for np_ in (1, 2):
    fresh("free.h5")
    status, out, err = run(["-model", "solid", "-solid_beam_cells", "4,1,1", "-solid_bc", "pin,plane", "-solid_bc_pin_where", "x=0", "-solid_bc_pin_components", "x",
                            "-solid_bc_plane_where", "all", "-solid_bc_plane_components", "z", "-output", "free.h5"], np_)
    lines = [x for x in err.splitlines() if x.startswith("tsmech")]
    print(f"not held, {np_} rank{'s' if np_ > 1 else ''}: exit {status}: {lines[0] if lines else err.strip()[:200]}")
    check(status == 2, f"not held on {np_} ranks: exit {status}, expected 2")
    check(len(lines) == 1 and "is not held" in lines[0] and "translation along (0, 1, 0)" in lines[0], f"not held on {np_} ranks: not one line naming the free translation:\n{err}")
    check(not os.path.exists("free.h5"), f"not held on {np_} ranks: the output was written")

# a load too large: a cube of St. Venant-Kirchhoff material pushed beyond its limit load (its
# compressive stress peaks at a stretch of 1/sqrt(3)), the load path followed in steps of at most
# 0.05 (a longer step can jump to the inverted equilibrium beyond): the cut-backs end the run, the
# last converged state in the output
fresh("large.h5")
status, out, err = run(["-model", "solid", "-solid_material", "svk", "-solid_beam_cells", "2,2,2", "-solid_beam_size", "1,1,1", "-solid_g", "0,0,0", "-solid_load", "end",
                        "-solid_load_end_where", "x=1", "-solid_load_end_traction", "-2e6,0,0", "-solid_load_end_time", "ramp:1", "-ts_adapt_dt_max", "0.05", "-output", "large.h5"])
fail = [x for x in err.splitlines() if x.startswith("tsmech") and "failed" in x]
saved = re.search(r"results up to step (\d+) \(t = ([0-9.e+-]+)\)", out)
print(f"a load too large: exit {status}: {fail[0] if fail else '?'}; {saved.group(0) if saved else 'no results line'}")
check(status == 3, f"a load too large: exit {status}, expected 3\n{out}{err}")
check(len(fail) == 1 and ("rejected" in fail[0] or "minimum" in fail[0]), f"a load too large: not one line telling the cut-backs:\n{err}")
if saved and os.path.exists("large.h5"):
    with h5py.File("large.h5", "r") as f:
        times, steps = f["monitor/time"][()], f["monitor/step"][()]
    check(int(steps[-1]) == int(saved.group(1)) and abs(times[-1] - float(saved.group(2))) <= 1e-6 * float(saved.group(2)), "a load too large: the output does not end at the last converged state the message names")
else:
    check(False, "a load too large: no output of the converged steps")

# a restart continues the output bit for bit; the steps land on a table's kink
with open("load.tab", "w") as f:
    f.write("0 0\n0.35 0.7\n1 1\n")
BEAM = ["-model", "solid", "-solid_beam_cells", "6,1,1", "-solid_g", "0,0,-50", "-solid_g_time", "table:load.tab", "-ts_dt", "0.2"]
fresh("full.h5", "part.h5", "ck.h5")
status, out, err = run(BEAM + ["-output", "full.h5", "-output_every", "1", "-quiet"])
check(status == 0, f"restart: the uninterrupted run: exit {status}\n{err}")
status, out, err = run(BEAM + ["-output", "part.h5", "-output_every", "1", "-checkpoint", "ck.h5", "-ts_max_steps", "2", "-quiet"])
status2, out2, err2 = run(BEAM + ["-output", "part.h5", "-output_every", "1", "-checkpoint", "ck.h5", "-restart", "ck.h5", "-quiet"])
check(status == 0 and status2 == 0, f"restart: exit {status}, {status2}\n{err}{err2}")
if os.path.exists("full.h5") and os.path.exists("part.h5"):
    with h5py.File("full.h5", "r") as f, h5py.File("part.h5", "r") as g:
        same = f["fields/q"].shape == g["fields/q"].shape and np.array_equal(f["fields/q"][()], g["fields/q"][()]) and np.array_equal(f["monitor/time"][()], g["monitor/time"][()])
        times = f["monitor/time"][()]
    print(f"restart after 2 steps: the output {'bitwise the same' if same else 'DIFFERS'}; step times {', '.join('%g' % t for t in times)}")
    check(same, "restart: the continued output is not bitwise the uninterrupted one")
    check(0.35 in times, "the steps do not land on the table's kink t = 0.35")
print(f"static: {failures} failures")
sys.exit(1 if failures else 0)
