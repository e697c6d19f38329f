#!/usr/bin/python3
"""The output and checkpoints of quadratic tetrahedra and hexahedra through the tsmech program.

  run_quadratic_io.py TSMECH MPIEXEC CHECK_OUTPUT CYLINDER WORKDIR

  cells      the built-in beam with P2 tetrahedra, Q1 and Q2 hexahedra and the cylinder of curved
             10-node tetrahedra (Gmsh, -solid_order 2), on 1 and 2 ranks: /fields/q holds every
             node, /mesh/cells [nc, 10, 8 or 27] with its topology uses every node once or more;
             the nodes in XDMF's (VTK's) order: a straight cell's node k at the image of VTK's
             reference point k (tetrahedra: the edge midpoints; hexahedra: the trilinear map of the
             corners) to 1e-14, the corners right-handed; the cylinder's edge nodes on its curved
             side (r = 0.5) where both corners are; check_output.py's layout (with the stresses)
             and XDMF checks; 2 ranks write what 1 rank writes (<= 1e-10)
  constraints every node of a constrained face held, edge (and face) nodes included: the beam with
             P2 tetrahedra and Q2 hexahedra clamped at x = 0 (-solid_bc_NAME_where) and its end
             x = 1 moved along z alone (_components z, _u, _time sin:50): all 25 nodes of each end,
             the clamped ones at X, the moved ones' z at Z + u sin(50 t) and x, y free (<= 1e-14 of
             u); the cylinder clamped by its Gmsh group "bottom" (-solid_bc_NAME_group): every node
             with Z = 0 (vertices and the curved edges' nodes) stays at X
  restart    P2 tetrahedra and Q2 hexahedra: 5 steps on 2 ranks with a checkpoint, 5 more from
             it on 3 ranks, against 10 steps uninterrupted on 1 rank (<= 1e-10)
"""
import os
import subprocess
import sys

import h5py
import numpy as np

TSMECH, MPIEXEC, CHECK, CYL, WORK = sys.argv[1:6]
os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)
failures = 0
BEAM = "-model solid -solid_beam_cells 4,2,2 -solid_beam_size 1,0.2,0.2 -solid_material neohookean -ts_dt 1e-3 -quiet -output_every 1 -snes_rtol 1e-12 -ksp_rtol 1e-13 -ksp_atol 1e-30"
CASES = [("P2 tetrahedra", BEAM + " -solid_order 2"), ("Q1 hexahedra", BEAM + " -solid_cell hex"), ("Q2 hexahedra", BEAM + " -solid_cell hex -solid_order 2"),
         ("curved P2 cylinder", f"-model solid -solid_mesh {CYL} -solid_order 2 -solid_fix z=0 -ts_dt 1e-3 -quiet -output_every 1 -snes_rtol 1e-12 -ksp_rtol 1e-13 -ksp_atol 1e-30")]
# VTK's reference points (unit cube, unit tetrahedron) of the XDMF topologies' nodes
TET = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
TET += [tuple((np.array(TET[a]) + np.array(TET[b])) / 2) for a, b in ((0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3))]
HEX = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
HEX27 = HEX + [tuple((np.array(HEX[a]) + np.array(HEX[b])) / 2) for a, b in ((0, 1), (1, 2), (3, 2), (0, 3), (4, 5), (5, 6), (7, 6), (4, 7), (0, 4), (1, 5), (2, 6), (3, 7))]
HEX27 += [tuple(np.mean([HEX[i] for i in f], axis=0)) for f in ((0, 4, 7, 3), (1, 2, 6, 5), (0, 1, 5, 4), (3, 7, 6, 2), (0, 3, 2, 1), (4, 5, 6, 7))] + [(0.5, 0.5, 0.5)]


def check(cond, msg):
    global failures
    if not cond:
        failures += 1
        print("FAILED: " + msg, flush=True)


def run(args, ranks=1):
    cmd = [TSMECH] + args.split()
    if ranks > 1:
        cmd = [MPIEXEC, "-q", "--oversubscribe", "-n", str(ranks)] + cmd
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    out = p.stdout.decode(errors="replace")
    check(p.returncode == 0, f"tsmech {args} on {ranks}: exit {p.returncode}\n{out}")
    return out


def clean(*names):
    for n in names:
        if os.path.exists(n):
            os.remove(n)


def node_order(name, X, C, topo):
    """How far the cells' nodes are from VTK's order (straight cells), and the smallest corner volume"""
    P = X[C]
    if topo == "Tetrahedron_10":
        vol = np.einsum("ij,ij->i", np.cross(P[:, 1] - P[:, 0], P[:, 2] - P[:, 0]), P[:, 3] - P[:, 0])
        lam = lambda r: [1 - sum(r), r[0], r[1], r[2]]  # noqa: E731
        ref = TET
    else:
        vol = np.einsum("ij,ij->i", np.cross(P[:, 1] - P[:, 0], P[:, 3] - P[:, 0]), P[:, 4] - P[:, 0])
        lam = lambda r: [np.prod([r[d] if HEX[a][d] else 1 - r[d] for d in range(3)]) for a in range(8)]  # noqa: E731
        ref = HEX27 if topo == "Hexahedron_27" else HEX
    err = np.zeros(len(C))
    for k, r in enumerate(ref):
        w = lam(r)
        y = sum(P[:, a] * w[a] for a in range(len(w)))
        err = np.maximum(err, np.abs(y - P[:, k]).max(axis=1))
    return err, vol.min()


finals = {}
for name, args in CASES:
    outs = []
    for n in (1, 2):
        h5 = f"io{n}.h5"
        clean(h5, f"io{n}.xmf")
        run(f"{args} -ts_max_steps 3 -output {h5}", n)
        with h5py.File(h5, "r") as f:
            X, C, q = f["mesh/vertices"][()], f["mesh/cells"][()], f["fields/q"][()]
            topo = f["mesh/cells"].attrs["topology"].decode()
            outs.append(np.concatenate([q.ravel(), f["fields/v"][()].ravel(), f["fields/stress"][()].ravel()]))
        used = np.array_equal(np.unique(C), np.arange(len(X)))
        err, vmin = node_order(name, X, C, topo)
        if "curved" in name:
            # straight cells (away from the side) exact; on the side the edge nodes on r = 0.5
            r = np.hypot(X[:, 0], X[:, 1])
            E = ((0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3))
            side = sum(int(np.sum((np.abs(r[C[:, a]] - 0.5) < 1e-9) & (np.abs(r[C[:, b]] - 0.5) < 1e-9) & (np.abs(r[C[:, 4 + k]] - 0.5) < 1e-9))) for k, (a, b) in enumerate(E))
            straight = err[np.all(r[C[:, :4]] < 0.5 - 1e-9, axis=1)]
            ok = used and vmin > 0 and side > 0 and (straight.size == 0 or straight.max() <= 1e-14)
            print(f"cells      {name:18s} {n} rank{'s' if n > 1 else ' '}: {topo}, {C.shape[0]} cells, {len(X)} nodes (all used: {used}), "
                  f"inner cells' node order {straight.max() if straight.size else 0:.1e}, {side} edge nodes on the curved side, smallest corner volume {vmin:.2e}")
        else:
            ok = used and vmin > 0 and err.max() <= 1e-14
            print(f"cells      {name:18s} {n} rank{'s' if n > 1 else ' '}: {topo}, {C.shape[0]} cells, {len(X)} nodes (all used: {used}), node order {err.max():.1e}, smallest corner volume {vmin:.2e}")
        check(ok, f"{name} on {n} ranks: the cells' nodes are not in XDMF's order or not all used")
        for cmd in [] if n == 1 else (["layout", h5, "--steps", "3", "--every", "1", "--mesh", "--cell-fields", "stress:6", "von_mises:1", "J:1"], ["xdmf", f"io{n}.xmf"]):
            p = subprocess.run(["/usr/bin/python3", CHECK] + cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            check(p.returncode == 0, f"{name} on {n} ranks: check_output.py {cmd[0]}: {p.stdout.decode()}")
    rel = np.abs(outs[1] - outs[0]).max() / np.abs(outs[0]).max()
    print(f"cells      {name:18s} 2 ranks against 1: {rel:.1e}")
    check(rel <= 1e-10, f"{name}: 2 ranks differ from 1 by {rel:.2e}")

U, W = 0.01, 50.0
for name, args in CASES[0:3:2]:
    clean("bc.h5", "bc.xmf")
    run(f"{args} -solid_bc clamp,tip -solid_bc_clamp_where x=0 -solid_bc_tip_where x=1 -solid_bc_tip_components z -solid_bc_tip_u 0,0,{U} -solid_bc_tip_time sin:{W} -ts_max_steps 5 -output bc.h5")
    with h5py.File("bc.h5", "r") as f:
        X, q, t = f["mesh/vertices"][()], f["fields/q"][()], f["fields/time"][()]
    left, right = np.abs(X[:, 0]) < 1e-12, np.abs(X[:, 0] - 1) < 1e-12
    el = max(np.abs(q[k][left] - X[left]).max() for k in range(len(t)))
    er = max(np.abs(q[k][right, 2] - X[right, 2] - U * np.sin(W * t[k])).max() for k in range(len(t)))
    free = np.abs(q[-1][right, :2] - X[right, :2]).max()
    print(f"constraints {name:17s} {left.sum()} nodes at x = 0 held ({el:.1e}), {right.sum()} at x = 1 follow u sin: {er / U:.1e} of u, their x, y moved {free:.1e}")
    check(left.sum() == 25 and right.sum() == 25 and el == 0 and er <= 1e-14 * U and free > 0, f"{name}: the constraints do not hold every node of their faces")
clean("bc.h5", "bc.xmf")
run(f"{CASES[3][1].replace('-solid_fix z=0', '-solid_bc b -solid_bc_b_group bottom')} -ts_max_steps 5 -output bc.h5")
with h5py.File("bc.h5", "r") as f:
    X, q = f["mesh/vertices"][()], f["fields/q"][()]
bottom = np.abs(X[:, 2]) < 1e-12
eb = np.abs(q[:, bottom] - X[bottom]).max()
moved = np.abs(q[-1][~bottom] - X[~bottom]).max()
print(f"constraints curved P2 cylinder   group bottom: {bottom.sum()} nodes with Z = 0 held ({eb:.1e}), the others moved {moved:.1e}")
check(bottom.sum() > 0 and eb == 0 and moved > 0, "the cylinder's group bottom does not hold its nodes")

for name, args in CASES[0:3:2]:
    clean("full.h5", "full.xmf", "half.h5", "half.xmf", "ck.h5")
    run(f"{args} -ts_max_steps 10 -output full.h5")
    run(f"{args} -ts_max_steps 5 -output half.h5 -checkpoint ck.h5", 2)
    run(f"{args} -ts_max_steps 10 -output half.h5 -checkpoint ck.h5 -restart ck.h5", 3)
    with h5py.File("full.h5", "r") as a, h5py.File("half.h5", "r") as b:
        rel = max(np.abs(a[k][()] - b[k][()]).max() / np.abs(a[k][()]).max() for k in ("fields/q", "fields/v"))
        same = a["fields/q"].shape == b["fields/q"].shape
    print(f"restart    {name:18s} 5 steps on 2 ranks, 5 more on 3: {rel:.1e} from 10 on 1")
    check(same and rel <= 1e-10, f"{name}: a restart on 3 ranks of a checkpoint of 2 differs by {rel:.2e}")
print(f"quadratic io: {failures} failures")
sys.exit(1 if failures else 0)
