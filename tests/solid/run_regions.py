#!/usr/bin/python3
"""Materials per region of the solid through the tsmech program (src/models/solid/regions.c).

  run_regions.py TSMECH MPIEXEC BAR_MESHER WORKDIR

A bar [0, 1] x [0, 0.1] x [0, 0.1] of two linear materials in series, E1 = 1e7 for x < 0.5 and
E2 = 4e7 for x > 0.5 (nu = 0), on rollers on the planes x = 0, y = 0, z = 0, under a uniform end
traction t = 1e4 on x = 1, brought to rest by beuler2 with long steps: the end displacement is
t (L1/E1 + L2/E2), every cell's stress sigma_xx = t and the others 0, the strain energy
t^2 A (L1/E1 + L2/E2)/2, each to 1e-10; P1 tetrahedra and Q2 hexahedra of the built-in beam (the
regions by -solid_region_NAME_where x<0.5), and P1 and Q2 from Gmsh files with two physical volumes
(bar_mesh.py: the regions by -solid_region_NAME_group), on 1 and 2 ranks. The mass follows each
region's density (the momentum of a uniform velocity). Refused, exit status 2: overlapping regions,
a region without cells, a plane as a cell selection, an unknown material, a region's bad modulus.
-help lists the options of every named region, probe, constraint and load once (before, the
second load's options were missing: PETSc prints no option of a block whose title it printed).
"""
import os
import re
import subprocess
import sys

import h5py
import numpy as np
from program import Program

TSMECH, MPIEXEC, MESHER, WORK = sys.argv[1:5]
prog = Program(TSMECH, MPIEXEC, WORK)
check, run = prog.check, prog.run
T, E1, E2 = 1e4, 1e7, 4e7


BAR = (f"-model solid -solid_material linear -solid_E {E1} -solid_nu 0 -solid_g 0,0,0 "
       "-solid_bc rx,ry,rz -solid_bc_rx_where x=0 -solid_bc_rx_components x -solid_bc_ry_where y=0 -solid_bc_ry_components y "
       f"-solid_bc_rz_where z=0 -solid_bc_rz_components z -solid_load end -solid_load_end_where x=1 -solid_load_end_traction {T},0,0 "
       "-ts_type beuler2 -ts_dt 1e3 -ts_max_time 1e9 -ts_max_steps 4 -ksp_type preonly -pc_type lu -quiet -monitor_energy_balance -output_every 1000")
subprocess.run(["/usr/bin/python3", MESHER, "8", "bar_tet.msh", "tet"], check=True)
subprocess.run(["/usr/bin/python3", MESHER, "4", "bar_hex.msh", "hex"], check=True)
cases = [("P1 built-in", "-solid_beam_cells 10,2,2 -solid_region stiff -solid_region_stiff_where x>0.5"),
         ("Q2 built-in", "-solid_beam_cells 4,1,1 -solid_cell hex -solid_order 2 -solid_region soft,stiff -solid_region_soft_where x<0.5 -solid_region_stiff_where x>0.5"),
         ("P1 Gmsh", "-solid_mesh bar_tet.msh -solid_region stiff -solid_region_stiff_group stiff"),
         ("Q2 Gmsh", "-solid_mesh bar_hex.msh -solid_order 2 -solid_region stiff -solid_region_stiff_group stiff")]
want = T * (0.5 / E1 + 0.5 / E2)
for name, args in cases:
    for ranks in (1, 2):
        out = f"bar_{name.replace(' ', '_')}_{ranks}.h5"
        for f in (out, out.replace(".h5", ".xmf")):
            if os.path.exists(f):
                os.remove(f)
        # the stiff region gives E alone: its nu is the global material's (0)
        run(f"{BAR} {args} -solid_region_stiff_E {E2} -output {out}", ranks)
        with h5py.File(out, "r") as f:
            X, q, S = f["mesh/vertices"][()], f["fields/q"][-1], f["fields/stress"][-1]
            stored = f["monitor/balance/stored"][-1]
        end = np.abs(X[:, 0] - 1) < 1e-12
        du = np.abs(q[end, 0] - X[end, 0] - want).max() / want
        ds = max(np.abs(S[:, 0] - T).max(), np.abs(S[:, 1:]).max()) / T
        de = abs(stored - 0.5 * T * T * 0.01 * (0.5 / E1 + 0.5 / E2)) / (0.5 * T * T * 0.01 * (0.5 / E1 + 0.5 / E2))
        print(f"{name:12s} on {ranks} ranks: end displacement {du:.1e}, stress {ds:.1e}, strain energy {de:.1e} from the closed forms")
        check(du <= 1e-10 and ds <= 1e-10 and de <= 1e-10, f"{name}, {ranks} ranks: {du:.2e}, {ds:.2e}, {de:.2e} from t (L1/E1 + L2/E2), t, the energy")
# the mass follows the regions' densities: the momentum of a uniform velocity 1 along x
run("-model solid -solid_beam_cells 10,2,2 -solid_fix none -solid_g 0,0,0 -solid_v0 1,0,0 -solid_density 1000 -solid_region heavy "
    "-solid_region_heavy_where x>0.7 -solid_region_heavy_density 7800 -ts_max_steps 1 -quiet -output mass.h5")
with h5py.File("mass.h5", "r") as f:
    P = f["monitor/momentum_x"][0]
want_p = 0.01 * (0.7 * 1000 + 0.3 * 7800)
print(f"momentum of a uniform velocity: {P!r}, closed form {want_p!r}")
check(abs(P - want_p) <= 1e-12 * want_p, f"the mass does not follow the regions' densities: momentum {P!r}, expected {want_p!r}")
# refusals: one line, exit status 2, no file
B = "-model solid -solid_beam_cells 10,2,2 -ts_max_steps 1 -output bad.h5"
for args, msg in (("-solid_region a,b -solid_region_a_where x<0.6 -solid_region_b_where x>0.4", "-solid_region: the regions a and b overlap"),
                  ("-solid_region a -solid_region_a_where x>2", "-solid_region_a_where x>2: selects no cell of the built-in beam"),
                  ("-solid_region a -solid_region_a_where x=0.5", "-solid_region_a_where x=0.5: cells are selected by inequalities"),
                  ("-solid_region a -solid_region_a_where x<0.5 -solid_region_a_material rubber", "-solid_region_a_material rubber: unknown material"),
                  ("-solid_region a -solid_region_a_where x<0.5 -solid_region_a_E -1", "-solid_region_a_E -1 must be positive"),
                  ("-solid_region a -solid_region_a_where x<0.5 -solid_region_a_group g", "-solid_region a: give its cells with one of"),
                  ("-solid_region a,a -solid_region_a_where x<0.5", "-solid_region: the name a is given twice"),
                  ("-solid_region a -solid_region_a_where x<0.5,y>5", "selects no cell")):
    out = run(f"{B} {args}", expect=2, ranks=2 if "overlap" in msg else 1)
    check(msg in out and not os.path.exists("bad.h5"), f"{args}: expected \"{msg}\"\n{out}")
# -help lists the options of every named region, probe, constraint and load once (PETSc prints a
# block's options only under a title it has not printed: each entity's block has its own)
out = run("-model solid -solid_beam_cells 4,1,1 -ts_max_steps 1 -help -solid_region a,b -solid_region_a_where x<0.5 -solid_region_b_where x>0.5 "
          "-probe p,q -probe_p_point 0.5,0.05,0.05 -probe_q_point 0.7,0.05,0.05 -solid_bc c,d -solid_bc_c_where x=0 -solid_bc_d_where x=1 "
          "-solid_load l,m -solid_load_l_where y=0 -solid_load_l_force 0,1,0 -solid_load_m_where z=0 -solid_load_m_force 0,0,1")
listed = re.findall(r"^\s+(-[a-z_A-Z0-9]+)", out, re.M)
for opt in ("-solid_region_a_E", "-solid_region_b_E", "-solid_region_b_where", "-probe_p_point", "-probe_q_point", "-probe_q_where",
            "-solid_bc_c_where", "-solid_bc_d_where", "-solid_bc_d_moment_about", "-solid_load_l_force", "-solid_load_m_force", "-solid_load_m_where"):
    check(listed.count(opt) == 1, f"-help lists {opt} {listed.count(opt)} times")
prog.finish("regions")
