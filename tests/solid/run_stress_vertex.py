#!/usr/bin/python3
"""The stresses recovered at the nodes (src/models/solid/stress.c, docs/solid.md §11): the output's
/fields/stress_vertex [nsnap, nn, 6], von_mises_vertex and J_vertex, for P1 and P2 tetrahedra, Q1
and Q2 hexahedra (the beam, 3 x 2 x 2 cells), written by tests/io/test_output.c.

  run_stress_vertex.py TEST_OUTPUT MPIEXEC CHECK_OUTPUT WORKDIR

  uniaxial   a uniformly stretched bar of the linear material (eps = 1e-2, F = diag(1 + eps, 1 - nu eps,
             1 - nu eps)): sigma = diag(E eps, 0, 0), von Mises E eps and J = det F at every node
             (<= 1e-12 relative to E eps)
  recovery   a non-uniform state (x = X + c (Y^2 + Z^2, X Y, X Z), neo-Hookean): at every vertex
             the reference-volume-weighted mean of the cell averages /fields/stress of the cells
             at it (the cells' corners from /mesh, their volumes from /mesh/vertices), at an edge,
             face or cell node the mean of its corners' values (<= 1e-12 relative); non-uniform
  ranks      the vertex fields of 2 and 3 ranks equal those of 1 rank (<= 1e-12 relative)
  xdmf       the XDMF has them as node attributes (stress_vertex_xx ... _xy, von_mises_vertex,
             J_vertex) and check_output.py's XDMF check passes
"""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

EXE, MPIEXEC, CHECK, WORK = sys.argv[1:5]
os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)
failures = 0
BASE = "-model solid -solid_beam_cells 3,2,2 -solid_beam_size 1,0.3,0.2 -solid_fix none -steps 0 -every 1"
CASES = [("P1", ""), ("P2", "-solid_order 2"), ("Q1", "-solid_cell hex"), ("Q2", "-solid_cell hex -solid_order 2")]
# VTK's edges and faces of the XDMF topologies (docs/solid.md §13), by corner
TET_EDGES = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)]
HEX_EDGES = [(0, 1), (1, 2), (3, 2), (0, 3), (4, 5), (5, 6), (7, 6), (4, 7), (0, 4), (1, 5), (2, 6), (3, 7)]
HEX_FACES = [(0, 4, 7, 3), (1, 2, 6, 5), (0, 1, 5, 4), (3, 7, 6, 2), (0, 3, 2, 1), (4, 5, 6, 7)]
E, NU, EPS = 2e9, 0.25, 1e-2


def check(cond, msg):
    global failures
    if not cond:
        failures += 1
        print("FAILED: " + msg, flush=True)


def run(args, ranks=1):
    cmd = [EXE] + args.split()
    if ranks > 1:
        cmd = [MPIEXEC, "-q", "--oversubscribe", "-n", str(ranks)] + cmd
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    check(p.returncode == 0, f"{' '.join(cmd)}: exit {p.returncode}\n{p.stdout.decode(errors='replace')}")


def cells_of(f):
    """The cells' node numbers and the number of corners per cell"""
    if "tetrahedra" in f["mesh"]:
        return f["mesh/tetrahedra"][:], 4
    T = f["mesh/cells"][:]
    return T, 4 if T.shape[1] == 10 else 8


def volumes(X, T, nc):
    """Reference volumes of straight cells: tetrahedra, and the beam's hexahedra (boxes) as six tetrahedra"""
    tet = lambda a, b, c, d: np.abs(np.einsum("ij,ij->i", np.cross(X[b] - X[a], X[c] - X[a]), X[d] - X[a])) / 6
    if nc == 4:
        return tet(T[:, 0], T[:, 1], T[:, 2], T[:, 3])
    return sum(tet(T[:, 0], T[:, a], T[:, b], T[:, 6]) for a, b in ((1, 2), (2, 3), (3, 7), (7, 4), (4, 5), (5, 1)))


def expected(f, k):
    """The recovery at snapshot k computed here from the cell fields and the mesh"""
    X = f["mesh/vertices"][:]
    T, nc = cells_of(f)
    nn = f["fields/q"].shape[1]
    V = volumes(X, T, nc)
    cell = np.concatenate([f["fields/stress"][k], f["fields/von_mises"][k][:, None], f["fields/J"][k][:, None]], axis=1)
    num, den = np.zeros((nn, 8)), np.zeros(nn)
    for a in range(nc):
        np.add.at(num, T[:, a], V[:, None] * cell)
        np.add.at(den, T[:, a], V)
    corner = den > 0
    out = np.full((nn, 8), np.nan)
    out[corner] = num[corner] / den[corner][:, None]
    if T.shape[1] > nc:
        groups = [TET_EDGES] if nc == 4 else [HEX_EDGES, HEX_FACES, [tuple(range(8))]]
        j = nc
        for g in groups:
            for corners in g:
                out[T[:, j]] = np.mean([out[T[:, c]] for c in corners], axis=0)
                j += 1
    return out, int(np.count_nonzero(corner))


def vertex_fields(f, k):
    return np.concatenate([f["fields/stress_vertex"][k], f["fields/von_mises_vertex"][k][:, None], f["fields/J_vertex"][k][:, None]], axis=1)


for name, opts in CASES:
    # uniaxial: the exact stress at every node
    F = f"{1 + EPS},0,0,0,{1 - NU * EPS},0,0,0,{1 - NU * EPS}"
    run(f"{BASE} {opts} -o bar_{name}.h5 -solid_material linear -solid_E {E} -solid_nu {NU} -deform {F}", 2)
    with h5py.File(f"bar_{name}.h5", "r") as f:
        S = vertex_fields(f, 0)
        nn = f["fields/q"].shape[1]
        want = np.zeros(8)
        want[0], want[6], want[7] = E * EPS, E * EPS, (1 + EPS) * (1 - NU * EPS) ** 2
        check(S.shape == (nn, 8), f"{name}: the vertex fields have {S.shape[0]} rows, /fields/q {nn} nodes")
        err = np.max(np.abs(S[:, :7] - want[:7])) / (E * EPS)
        errJ = np.max(np.abs(S[:, 7] - want[7]))
        check(err <= 1e-12 and errJ <= 1e-14, f"{name} uniaxial: the node stresses differ from diag(E eps, 0, 0) by {err:.3g} (relative), J by {errJ:.3g}")
        print(f"{name} uniaxial bar: sigma_xx = E eps at all {nn} nodes, max error {err:.2g} relative, J {errJ:.2g}")
    # the recovery of a non-uniform state, on 1, 2 and 3 ranks
    ref = None
    for ranks in (1, 2, 3):
        run(f"{BASE} {opts} -o bend_{name}_{ranks}.h5 -solid_material neohookean -deform_quadratic 0.05", ranks)
        with h5py.File(f"bend_{name}_{ranks}.h5", "r") as f:
            S = vertex_fields(f, 0)
            want, nv = expected(f, 0)
            scale = np.max(np.abs(want[:, :7]))
            err = np.max(np.abs(S - want) / np.array([scale] * 7 + [1.0]))
            check(err <= 1e-12, f"{name} on {ranks} ranks: the node fields differ from the volume-weighted mean of the cell averages by {err:.3g} (relative)")
            spread = np.ptp(S[:nv, 0]) / scale
            check(spread > 1e-2, f"{name}: the state is not far from uniform (spread of sigma_xx {spread:.3g})")
            if ref is None:
                ref = S
                print(f"{name}: {S.shape[0]} nodes ({nv} vertices): the recovery to {err:.2g}, sigma_xx spread {spread:.2g} of the largest stress")
            else:
                d = np.max(np.abs(S - ref) / np.array([scale] * 7 + [1.0]))
                check(d <= 1e-12, f"{name}: {ranks} ranks differ from 1 rank by {d:.3g} (relative)")
                print(f"{name}: {ranks} ranks = 1 rank to {d:.2g}")
    # the XDMF: node attributes of those names, and check_output.py's check of every attribute
    xmf = f"bend_{name}_3.xmf"
    grid = ET.parse(xmf).getroot().find(".//Grid[@GridType='Uniform']")
    nodes = {a.get("Name") for a in grid.findall("Attribute") if a.get("Center") == "Node"}
    want = {f"stress_vertex_{c}" for c in ("xx", "yy", "zz", "yz", "xz", "xy")} | {"von_mises_vertex", "J_vertex"}
    check(want <= nodes, f"{name}: the XDMF's node attributes {sorted(nodes)} lack {sorted(want - nodes)}")
    p = subprocess.run([sys.executable, CHECK, "xdmf", xmf], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    check(p.returncode == 0, f"{name}: check_output.py xdmf {xmf}: {p.stdout.decode(errors='replace')}")

if failures:
    print(f"{failures} failure(s)")
    sys.exit(1)
print("node stresses: OK")
