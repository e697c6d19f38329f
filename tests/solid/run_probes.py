#!/usr/bin/python3
"""Probes of the solid through the tsmech program (src/models/solid/probes.c).

  run_probes.py TSMECH MPIEXEC WORKDIR

On the built-in beam of P1 and P2 tetrahedra and Q1 and Q2 hexahedra, a St. Venant-Kirchhoff
cantilever swinging under gravity, three probes: "corner", a vertex selected by -probe_NAME_where,
"node", a point given at a vertex, and "inner", a point inside a cell. At every snapshot (every step):
- the probes at vertices equal that vertex's /fields/q - /mesh/vertices bitwise (u) and its
  /fields/v (v);
- the inner probe equals the interpolation with the element's shape functions (computed here from
  the cell's nodes in /mesh: barycentric, P2's quadratic ones, the tensor-product Lagrange ones of
  Q1 and Q2 on the beam's axis-aligned boxes) to 1e-14 of the displacement, and its stress is its
  cell's /fields/stress bitwise;
- on 3 ranks the probe histories agree with 1 rank's: the displacements to 1e-12, the velocities
  and stresses as closely as the states' velocities do (Newton to round-off; measured 2e-13 and
  up to 1.2e-11);
- a point outside the body is refused with its distance (0.5 at x = 1.5), a selection of several
  nodes is refused.
"""
import os
import sys

import h5py
import numpy as np
from program import Program

TSMECH, MPIEXEC, WORK = sys.argv[1:4]
prog = Program(TSMECH, MPIEXEC, WORK)
check, run = prog.check, prog.run
INNER = np.array([0.437, 0.031, 0.077])


def shape(X, cell, P, hexa):
    """The shape functions of the cell (node coordinates X[cell]) at P, the cell's nodes in any order"""
    Y = X[cell]
    if hexa:
        lo, hi = Y.min(0), Y.max(0)
        s = (P - lo) / (hi - lo)
        r = np.rint((Y - lo) / (hi - lo) * (2 if len(cell) == 27 else 1)) / (2 if len(cell) == 27 else 1)
        pts = [0.0, 0.5, 1.0] if len(cell) == 27 else [0.0, 1.0]
        N = np.ones(len(cell))
        for d in range(3):
            for a in range(len(cell)):
                for p in pts:
                    if p != r[a, d]:
                        N[a] *= (s[d] - p) / (r[a, d] - p)
        return N
    # tetrahedra: the corners are the nodes that are no edge's midpoint
    corners = [a for a in range(len(cell)) if not any(np.allclose(Y[a], (Y[b] + Y[c]) / 2, atol=1e-14) for b in range(len(cell)) for c in range(len(cell)) if b < c and b != a and c != a)]
    T = np.array([Y[c] - Y[corners[0]] for c in corners[1:]]).T
    l123 = np.linalg.solve(T, P - Y[corners[0]])
    lam = dict(zip(corners, [1 - l123.sum()] + list(l123)))
    N = np.zeros(len(cell))
    for a in range(len(cell)):
        if a in lam:
            N[a] = lam[a] if len(cell) == 4 else lam[a] * (2 * lam[a] - 1)
        else:
            b, c = [(b, c) for b in corners for c in corners if b < c and np.allclose(Y[a], (Y[b] + Y[c]) / 2, atol=1e-14)][0]
            N[a] = 4 * lam[b] * lam[c]
    return N


BASE = ("-model solid -solid_beam_cells 4,2,2 -solid_material svk -solid_E 1e6 -solid_nu 0.3 -ts_type midpoint2 -ts_dt 2e-3 -ts_max_steps 12 -snes_rtol 1e-14 -snes_atol 1e-16 "
        "-ksp_type preonly -pc_type lu -quiet -output_every 1 "
        f"-probe corner,node,inner -probe_corner_where x=1,y=0,z=0 -probe_node_point 0.5,0.1,0.05 -probe_inner_point {INNER[0]},{INNER[1]},{INNER[2]}")
for cell, order in (("tet", 1), ("tet", 2), ("hex", 1), ("hex", 2)):
    name = f"{cell}{order}"
    hists = []
    for ranks in (1, 3):
        out = f"p_{name}_{ranks}.h5"
        if os.path.exists(out):
            os.remove(out)
        run(f"{BASE} -solid_cell {cell} -solid_order {order} -output {out}", ranks)
        with h5py.File(out, "r") as f:
            hists.append({(p, k): f[f"monitor/probe/{p}/{k}"][()] for p in ("corner", "node", "inner") for k in ("u", "v", "stress", "von_mises")})
            if ranks > 1:
                continue
            X, q, v = f["mesh/vertices"][()], f["fields/q"][()], f["fields/v"][()]
            cells = f["mesh/tetrahedra"][()] if "tetrahedra" in f["mesh"] else f["mesh/cells"][()]
            S = f["fields/stress"][()]
            probe = {p: {k: f[f"monitor/probe/{p}/{k}"][()] for k in ("u", "v", "stress")} for p in ("corner", "node", "inner")}
            check(len(f["monitor/step"]) == q.shape[0], f"{name}: a snapshot every step")
        for p, at in (("corner", [1, 0, 0]), ("node", [0.5, 0.1, 0.05])):
            i = np.where(np.abs(X - at).max(1) < 1e-12)[0][0]
            ok = (probe[p]["u"] == q[:, i] - X[i]).all() and (probe[p]["v"] == v[:, i]).all()
            print(f"{name}: probe {p:6s} at the vertex {at}: u and v bitwise those of /fields: {ok}")
            check(ok, f"{name}: probe {p} differs from its vertex's /fields/q, v")
        # the cell holding the inner point: its nodes' box (hexahedra) or barycentric coordinates >= 0
        hexa = cell == "hex"
        best = None
        for c, nodes in enumerate(cells):
            Y = X[nodes]
            if hexa:
                inside = ((INNER >= Y.min(0) - 1e-12) & (INNER <= Y.max(0) + 1e-12)).all()
            else:
                inside = shape(X, nodes[:4], INNER, False).min() > -1e-12  # VTK's order: the corners first
            if inside:
                best = (c, shape(X, nodes, INNER, hexa))
                break
        c, N = best
        uref = np.einsum("a,sai->si", N, q[:, cells[c]] - X[cells[c]])
        vref = np.einsum("a,sai->si", N, v[:, cells[c]])
        err = max(np.abs(probe["inner"]["u"] - uref).max(), np.abs(probe["inner"]["v"] - vref).max() * 2e-3) / np.abs(uref).max()
        print(f"{name}: probe inner at {INNER} in cell {c}: the interpolation of /fields to {err:.1e} of u, its stress that of its cell bitwise: {(probe['inner']['stress'] == S[:, c]).all()}")
        check(err <= 1e-14, f"{name}: the inner probe differs from the shape-function interpolation by {err:.2e}")
        check((probe["inner"]["stress"] == S[:, c]).all(), f"{name}: the inner probe's stress is not its cell's /fields/stress")
    # each quantity against its largest value over the probes (the free corner's stress is near
    # zero); the displacement to 1e-12, the velocity and stress as closely as the states themselves
    # agree (/fields/v on 3 ranks against 1 rank: the solvers' round-off, amplified by 2/tau)
    scale = {k: max(np.abs(hists[0][(p, k)]).max() for p in ("corner", "node", "inner")) for k in ("u", "v", "stress", "von_mises")}
    diff = {k: max(np.abs(hists[0][(p, k)] - hists[1][(p, k)]).max() for p in ("corner", "node", "inner")) / scale[k] for k in scale}
    with h5py.File(f"p_{name}_1.h5", "r") as a, h5py.File(f"p_{name}_3.h5", "r") as b:
        dv = np.abs(a["fields/v"][()] - b["fields/v"][()]).max() / np.abs(a["fields/v"][()]).max()
    print(f"{name}: probe histories on 3 ranks against 1 rank: u {diff['u']:.1e}, v {diff['v']:.1e}, stress {diff['stress']:.1e}, von Mises {diff['von_mises']:.1e} (the states' v: {dv:.1e})")
    check(diff["u"] <= 1e-12, f"{name}: the probes' displacements on 3 ranks differ from 1 rank's by {diff['u']:.2e}")
    check(max(diff["v"], diff["stress"], diff["von_mises"]) <= max(1e-12, 2 * dv), f"{name}: the probes' v, stress on 3 ranks differ from 1 rank's by more than the states do: {diff}")
out = run("-model solid -probe a -probe_a_point 1.5,0.05,0.05 -ts_max_steps 1 -output bad.h5", expect=2)
check("-probe_a_point 1.5,0.05,0.05: the point is outside the built-in beam, at 0.5 from its nearest cell" in out and not os.path.exists("bad.h5"), f"a point outside: {out}")
out = run("-model solid -probe a -probe_a_where x=1 -ts_max_steps 1 -output bad.h5", expect=2, ranks=2)
check("-probe_a_where x=1: selects 9 nodes" in out, f"a selection of several nodes: {out}")
prog.finish("probes")
