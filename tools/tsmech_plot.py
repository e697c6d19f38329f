#!/usr/bin/python3
"""Plots tsmech HDF5 output (MechOutput, layout in the README).

  tsmech_plot.py energy RUN.h5 [RUN2.h5 ...] -o energy.png
      total energy against time (top; for a single run also its kinetic and potential parts) and
      its change (E - E0)/S (bottom), one line per run, labelled model / ts_type from the file's
      attributes. The scale S is the largest K + |V| the run reached (kinetic plus the magnitude
      of the potential energy): the energy the system holds, which E0 alone need not measure (a
      cloth starting flat at z = 0 has E0 = 0 up to round-off). S is given in the legend.
  tsmech_plot.py snapshot RUN.h5 [--index -1 | --time T] -o snapshot.png
      the positions /fields/q of one snapshot (by index, or the one nearest to time T): a surface for a 2-D grid model (cloth), a 3-D
      scatter for a 3-D grid model (lattice), the particles (and their path over the snapshots
      up to this one) for the other models; obstacles recorded in the file's attributes (the
      cloth's sphere: sphere = 1, sphere_x, sphere_y, sphere_z, sphere_radius) are drawn; a model
      on a mesh (the solid) as its deformed surface, coloured (--color) by the
      displacement |q - q0| or speed |v| of its vertices, or by a per-cell field of its
      cells: von_mises (the von Mises stress) or J (det F). Linear tetrahedra come from
      /mesh/tetrahedra, the other cells from /mesh/cells (Tetrahedron_10, Hexahedron,
      Hexahedron_27): their corners are drawn, the straight cells through the vertices (an edge,
      face or cell node of a quadratic cell is not drawn; a curved edge is drawn straight)
  tsmech_plot.py modes RUN.h5 [--count 6] [--amplitude 0.1] -o modes.png
      the first mode shapes of /modes (tsmech -modes N -output RUN.h5): one panel per mode, the body's
      surface at the state of the modes displaced by the shape scaled to the amplitude times the body's
      size, coloured by the shape's magnitude, titled by the frequency ("rigid" for a rigid-body mode)
  tsmech_plot.py history RUN.h5 -o history.png [--csv history.csv] [--only reaction,probe,balance]
      the per-step records of the run against time, one panel each: the force of every constraint
      (/monitor/reaction/NAME/force, -monitor_reactions), the displacement and von Mises stress of
      every probe (/monitor/probe/NAME, -probe), the terms of the energy balance
      (/monitor/balance, -monitor_energy_balance) with its ratio; and every column in a CSV file
      (default: the plot's name with .csv): step, time, then reaction_NAME_fx .. _mz,
      probe_NAME_ux .. _vz, _sxx .. _sxy, _von_mises, balance_TERM
  tsmech_plot.py animate RUN.h5 -o run.gif [--fps 10]
      every snapshot of /fields as one frame of an animated GIF (Pillow), with fixed axes and
      colours, the obstacles and the time of each frame

Needs h5py, numpy and matplotlib (Debian's /usr/bin/python3), and Pillow (python3-pil) for
animate. Writes PNG with the Agg backend. Exits with status 1 and a message for a missing file,
dataset or snapshot.
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

try:
    import h5py  # noqa: E402
except ImportError:  # pragma: no cover - depends on the interpreter
    sys.exit("tsmech_plot.py needs h5py: run it with Debian's /usr/bin/python3 (apt-get install python3-h5py)")


class PlotError(Exception):
    pass


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def open_run(path):
    if not os.path.exists(path):
        raise PlotError(f"{path}: no such file")
    try:
        return h5py.File(path, "r")
    except OSError as e:
        raise PlotError(f"{path}: not a readable HDF5 file ({e})")


def read(f, name):
    if name not in f or not isinstance(f[name], h5py.Dataset):
        raise PlotError(f"{f.filename}: dataset /{name} missing (is this tsmech output?)")
    return f[name][()]


def label(f):
    model = text(f.attrs.get("model", "?"))
    ts = text(f.attrs.get("ts_type", "?"))
    return f"{model} / {ts}"


def energy_scale(f, e):
    """S = max over the run of K + |V|, and how it was found; max |E| when the parts are missing."""
    if "monitor/kinetic" in f and "monitor/potential" in f:
        k, v = f["monitor/kinetic"][()], f["monitor/potential"][()]
        return float(np.max(np.abs(k) + np.abs(v))), "max(K + |V|)"
    return float(np.max(np.abs(e))), "max |E|"


def plot_energy(args):
    runs = []
    for path in args.runs:
        with open_run(path) as f:
            t, e = read(f, "monitor/time"), read(f, "monitor/energy")
            if len(t) == 0:
                raise PlotError(f"{path}: /monitor is empty")
            scale, how = energy_scale(f, e)
            parts = (f["monitor/kinetic"][()], f["monitor/potential"][()]) if "monitor/kinetic" in f and "monitor/potential" in f else None
            runs.append((path, label(f), t, e, scale, how, parts))
    labels = [r[1] for r in runs]
    fig, (ax, axr) = plt.subplots(2, 1, sharex=True, figsize=(8, 6.5))
    hows = set()
    absolute = False
    for path, lab, t, e, scale, how, parts in runs:
        # runs with the same model and type are told apart by their file name
        if labels.count(lab) > 1:
            lab = f"{lab} ({os.path.basename(path)})"
        (line,) = ax.plot(t, e, label=f"{lab}: total E" if len(runs) == 1 and parts else lab)
        if len(runs) == 1 and parts is not None:
            ax.plot(t, parts[0], "--", color=line.get_color(), lw=1, label="kinetic K")
            ax.plot(t, parts[1], ":", color=line.get_color(), lw=1.2, label="potential V")
        if scale > 0:
            hows.add(how)
            axr.plot(t, (e - e[0]) / scale, color=line.get_color(), label=f"{lab}: S = {how} = {scale:.4g}")
        else:  # nothing ever moved and nothing holds energy: the change itself
            absolute = True
            axr.plot(t, e - e[0], color=line.get_color(), label=f"{lab}: E - E0 (no energy, S = 0)")
    ax.set_ylabel("energy")
    ax.set_title("Energy")
    ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)
    how = " or ".join(sorted(hows)) if hows else "max(K + |V|)"
    axr.set_ylabel(f"(E - E0) / S\nS = {how} over the run" + ("\n(E - E0 where S = 0)" if absolute else ""))
    axr.set_xlabel("time")
    axr.legend(fontsize="small")
    axr.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.output, dpi=args.dpi)
    print(f"wrote {args.output}")


def obstacles(f):
    """The obstacles a model records in its attributes: [(centre, radius)] of spheres."""
    a = f.attrs
    keys = ("sphere_x", "sphere_y", "sphere_z", "sphere_radius")
    if float(a.get("sphere", 0)) != 0 and all(k in a for k in keys):
        c = np.array([float(a[k]) for k in keys[:3]])
        r = float(a["sphere_radius"])
        if r > 0:
            return [(c, r)]
    return []


class Run:
    """The snapshots of /fields of one run and what is needed to draw them."""

    def __init__(self, path):
        with open_run(path) as f:
            if "fields/q" not in f:
                raise PlotError(f"{path}: dataset /fields/q missing (is this tsmech output?)")
            qd = f["fields/q"]
            nsnap = qd.shape[0]
            if "fields/step" in f:
                nsnap = min(nsnap, f["fields/step"].shape[0])  # complete snapshots only
            if nsnap == 0:
                raise PlotError(f"{path}: no snapshot in /fields")
            self.q = qd[:nsnap]
            self.times = read(f, "fields/time")[:nsnap]
            self.label = label(f)
            self.model = text(f.attrs.get("model", ""))
            self.obstacles = obstacles(f)
            # a model on a mesh (the solid): its cells' corners (tets: [nc, 4] or [nc, 8]) and velocities
            self.tets = mesh_corners(f, path)
            self.v = f["fields/v"][:nsnap] if self.tets is not None else None
            # per-cell scalar fields of a mesh (/fields/von_mises, /fields/J: [nsnap, nc])
            self.cells = {}
            if self.tets is not None:
                for name in ("von_mises", "J"):
                    if f"fields/{name}" in f and f[f"fields/{name}"].ndim == 2:
                        self.cells[name] = f[f"fields/{name}"][:nsnap]
        self.colour = "displacement"
        self.path = path
        self.nsnap = nsnap
        q0 = self.q[0]
        if not ((q0.ndim in (2, 3, 4) and q0.shape[-1] == 3) or q0.ndim == 1):
            raise PlotError(f"{path}: cannot draw /fields/q snapshots of shape {q0.shape}")

    def index(self, i):
        k = i if i >= 0 else self.nsnap + i
        if not 0 <= k < self.nsnap:
            raise PlotError(f"{self.path}: snapshot index {i} out of range (the file has {self.nsnap})")
        return k

    def dim(self):
        """particles' dimension for plain vectors (pair, kepler, oscillator)"""
        n = self.q.shape[-1]
        if self.model == "kepler":
            return 2
        return 3 if n % 3 == 0 else 2 if n % 2 == 0 else 1

    def bounds(self, ks):
        """the box holding the given snapshots and the obstacles"""
        p = self.q[ks].reshape(-1, 3)
        lo, hi = p.min(axis=0), p.max(axis=0)
        for c, r in self.obstacles:
            lo, hi = np.minimum(lo, c - r), np.maximum(hi, c + r)
        return lo, hi


# the corners of each kind of cell of /mesh/cells (XDMF's, VTK's node order: the corners first)
CORNERS = {"Tetrahedron_10": 4, "Hexahedron": 8, "Hexahedron_27": 8}
# the faces of a hexahedron by its corners (VTK's order)
HEX_FACES = np.array([[0, 4, 7, 3], [1, 2, 6, 5], [0, 1, 5, 4], [3, 7, 6, 2], [0, 3, 2, 1], [4, 5, 6, 7]])


def mesh_corners(f, path):
    """The corners of a mesh's cells ([nc, 4] tetrahedra or [nc, 8] hexahedra, rows of /fields/q),
    from /mesh/tetrahedra or /mesh/cells (by its attribute topology); None without a mesh"""
    if "mesh/tetrahedra" in f:
        return f["mesh/tetrahedra"][()]
    if "mesh/cells" not in f:
        return None
    d = f["mesh/cells"]
    topo = text(d.attrs.get("topology", b""))
    if topo not in CORNERS:
        raise PlotError(f"{path}: /mesh/cells has the topology '{topo}', not one of {', '.join(CORNERS)}")
    if d.ndim != 2 or d.shape[1] < CORNERS[topo]:
        raise PlotError(f"{path}: /mesh/cells has the shape {d.shape}, too few nodes for {topo}")
    return d[()][:, : CORNERS[topo]]


def surface_triangles(tets, X, cells=False):
    """The boundary of a mesh of tetrahedra ([nc, 4]) or hexahedra ([nc, 8] corners, VTK's order):
    the faces that belong to one cell only, oriented outwards in the reference configuration X, as
    triangles (a hexahedron's quadrilateral as two), shape (m, 3) of vertex numbers (and, with
    cells, the number of each triangle's cell)"""
    if tets.shape[1] == 8:
        faces = np.concatenate([tets[:, fc] for fc in HEX_FACES])
        owner = np.tile(np.arange(len(tets)), 6)
        _, first, count = np.unique(np.sort(faces, axis=1), axis=0, return_index=True, return_counts=True)
        keep = first[count == 1]
        quad, own = faces[keep], owner[keep]
        n = np.cross(X[quad[:, 2]] - X[quad[:, 0]], X[quad[:, 3]] - X[quad[:, 1]])
        inward = np.einsum("ij,ij->i", n, X[tets[own]].mean(axis=1) - X[quad].mean(axis=1)) > 0
        quad[inward] = quad[inward][:, ::-1]
        tri = np.concatenate([quad[:, [0, 1, 2]], quad[:, [0, 2, 3]]])
        own = np.concatenate([own, own])
        return (tri, own) if cells else tri
    faces = np.concatenate([tets[:, [1, 2, 3]], tets[:, [0, 3, 2]], tets[:, [0, 1, 3]], tets[:, [0, 2, 1]]])
    owner = np.tile(np.arange(len(tets)), 4)
    opposite = np.concatenate([tets[:, 0], tets[:, 1], tets[:, 2], tets[:, 3]])
    key = np.sort(faces, axis=1)
    _, first, count = np.unique(key, axis=0, return_index=True, return_counts=True)
    keep = first[count == 1]
    tri, opp = faces[keep], opposite[keep]
    n = np.cross(X[tri[:, 1]] - X[tri[:, 0]], X[tri[:, 2]] - X[tri[:, 0]])
    inward = np.einsum("ij,ij->i", n, X[opp] - X[tri[:, 0]]) > 0
    tri[inward] = tri[inward][:, [0, 2, 1]]
    return (tri, owner[keep]) if cells else tri


LIGHT = np.array([-0.4, -0.5, 0.77])
LIGHT = LIGHT / np.linalg.norm(LIGHT)


def quads(X, Y, Z):
    """the quadrilaterals of a structured surface, shape (m, 4, 3)"""
    P = np.stack([X, Y, Z], axis=-1)
    return np.stack([P[:-1, :-1], P[:-1, 1:], P[1:, 1:], P[1:, :-1]], axis=2).reshape(-1, 4, 3)


def shaded(polys, rgba):
    """Lambert shading of each polygon's colour by its normal (two-sided), for depth cues"""
    n = np.cross(polys[:, 2] - polys[:, 0], polys[:, 3] - polys[:, 1])
    n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-300)
    f = 0.45 + 0.55 * np.abs(n @ LIGHT)
    out = np.array(rgba, dtype=float)
    out[:, :3] *= f[:, None]
    return out


def draw_grid_surface(ax, q, obst, norm, cmap):
    """A cloth [ny, nx, 3] and sphere obstacles as one polygon collection, so that matplotlib
    depth-sorts their faces together (separate collections are drawn whole, one over the other)."""
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    cloth = quads(q[..., 0], q[..., 1], q[..., 2])
    colours = shaded(cloth, cmap(norm(cloth[:, :, 2].mean(axis=1))))
    # opaque edges (the cloth's a darker shade of each face, the sphere's its face colour) cover
    # the hairline seams between polygons through which the faces behind would show
    dark = colours.copy()
    dark[:, :3] *= 0.7
    polys, faces, edges = [cloth], [colours], [dark]
    for c, r in obst:
        # a penalty contact lets the cloth sink into the sphere a little: drawn no larger than
        # the cloth's nearest node allows (and 1 % smaller), the sphere does not show through it
        r = 0.99 * min(r, float(np.min(np.linalg.norm(q.reshape(-1, 3) - c, axis=1))))
        u, v = np.meshgrid(np.linspace(0, 2 * np.pi, 49), np.linspace(0, np.pi, 25))
        sph = quads(c[0] + r * np.cos(u) * np.sin(v), c[1] + r * np.sin(u) * np.sin(v), c[2] + r * np.cos(v))
        polys.append(sph)
        faces.append(shaded(sph, np.tile([0.85, 0.35, 0.3, 1.0], (len(sph), 1))))
        edges.append(faces[-1])
    coll = Poly3DCollection(np.concatenate(polys), facecolors=np.concatenate(faces), edgecolors=np.concatenate(edges), linewidths=0.25)
    ax.add_collection3d(coll)


CELL_COLOURS = {"von_mises": "von Mises stress", "J": "J = det F"}


def mesh_colour(run, k):
    """per vertex: the speed |v| or the displacement |q - q[0]| of snapshot k; per cell: a
    cell field (von_mises, J) (mesh models)"""
    if run.colour in CELL_COLOURS:
        if run.colour not in run.cells:
            raise PlotError(f"{run.path}: --color {run.colour}: the file has no /fields/{run.colour} (an output of the solid holds it)")
        return run.cells[run.colour][k]
    if run.colour == "speed":
        return np.linalg.norm(run.v[k], axis=1)
    return np.linalg.norm(run.q[k] - run.q[0], axis=1)


def face_colour(run, k):
    """per boundary triangle (surface_triangles()): the mean of its vertices' values, or its
    cell's value of a cell field"""
    tri, owner = surface_triangles(run.tets, run.q[0], cells=True)
    c = mesh_colour(run, k)
    return tri, (c[owner] if run.colour in CELL_COLOURS else c[tri].mean(axis=1))


def draw_mesh_surface(ax, run, k, norm, cmap):
    """The deformed surface of a mesh: its boundary triangles at the positions of
    snapshot k, each coloured by the mean of its vertices' speed or displacement, or by its
    cell's von Mises stress or J, and shaded"""
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    tri, value = face_colour(run, k)
    polys = run.q[k][tri]
    colours = np.array(cmap(norm(value)), dtype=float)
    n = np.cross(polys[:, 1] - polys[:, 0], polys[:, 2] - polys[:, 0])
    n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-300)
    colours[:, :3] *= (0.45 + 0.55 * np.abs(n @ LIGHT))[:, None]
    dark = colours.copy()
    dark[:, :3] *= 0.7
    ax.add_collection3d(Poly3DCollection(polys, facecolors=colours, edgecolors=dark, linewidths=0.3))


def draw(fig, run, k, lim, norm, title):
    """one snapshot k of run into a new axes of fig; lim: (lo, hi) of the axes (grid models)"""
    q = run.q[k]
    cmap = plt.get_cmap("viridis")
    if run.tets is not None:  # a mesh [nn, 3] (its cells' corners): its deformed surface
        ax = fig.add_subplot(projection="3d")
        draw_mesh_surface(ax, run, k, norm, cmap)
        set_equal(ax, *lim)
        unit = CELL_COLOURS.get(run.colour, "speed |v|" if run.colour == "speed" else "displacement |q - q0|")
        fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, shrink=0.6, pad=0.1, label=unit)
    elif q.ndim == 3:  # 2-D grid [ny, nx, 3]: a surface
        ax = fig.add_subplot(projection="3d")
        draw_grid_surface(ax, q, run.obstacles, norm, cmap)
        set_equal(ax, *lim)
        fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, shrink=0.6, pad=0.1, label="height z")
        if run.obstacles:
            fig.text(0.01, 0.01, "red: the sphere obstacle", fontsize="small", color=(0.7, 0.2, 0.15))
    elif q.ndim == 4:  # 3-D grid [nz, ny, nx, 3]: the nodes
        ax = fig.add_subplot(projection="3d")
        p = q.reshape(-1, 3)
        ax.scatter(p[:, 0], p[:, 1], p[:, 2], c=p[:, 2], cmap=cmap, norm=norm, s=8)
        set_equal(ax, *lim)
    elif q.ndim == 2:  # 1-D grid [n, 3] (chain): a polyline
        ax = fig.add_subplot(projection="3d")
        ax.plot(q[:, 0], q[:, 1], q[:, 2], "-o", ms=3)
        set_equal(ax, *lim)
    else:  # plain vector: particles of dimension 3, 2 or 1 (pair, kepler, oscillator)
        d = run.dim()
        pts = q.reshape(-1, d)
        hist = run.q[: k + 1].reshape(k + 1, -1, d)
        if d == 3:
            ax = fig.add_subplot(projection="3d")
            for j in range(pts.shape[0]):
                ax.plot(hist[:, j, 0], hist[:, j, 1], hist[:, j, 2], color="0.7", lw=0.8)
            ax.scatter(pts[:, 0], pts[:, 1], pts[:, 2], s=30)
            set_equal(ax, *lim)
        elif d == 2:
            ax = fig.add_subplot()
            for j in range(pts.shape[0]):
                ax.plot(hist[:, j, 0], hist[:, j, 1], color="0.7", lw=0.8)
            ax.plot(pts[:, 0], pts[:, 1], "o")
            ax.set_xlim(lim[0][0], lim[1][0])
            ax.set_ylim(lim[0][1], lim[1][1])
            ax.set_aspect("equal", adjustable="datalim")
        else:
            ax = fig.add_subplot()
            ax.plot(np.arange(hist.shape[0]), hist[:, :, 0], color="0.7", lw=0.8)
            ax.plot([hist.shape[0] - 1] * pts.shape[0], pts[:, 0], "o")
            ax.set_xlim(-0.5, run.nsnap - 0.5)
            ax.set_ylim(lim[0][0], lim[1][0])
            ax.set_xlabel("snapshot")
            ax.set_ylabel("q")
    ax.set_title(title, fontsize="medium")
    return ax


def limits(run, ks):
    """axes box and colour scale (heights; speed or displacement of a mesh) covering snapshots ks
    and the obstacles"""
    if run.tets is not None:
        lo, hi = run.bounds(ks)
        c = np.concatenate([mesh_colour(run, k) for k in ks])
        norm = matplotlib.colors.Normalize(vmin=float(c.min()), vmax=float(max(c.max(), c.min() + 1e-12)))
        return (lo, hi), norm
    if run.q.ndim >= 3:
        lo, hi = run.bounds(ks)
        z = run.q[ks][..., 2]
        norm = matplotlib.colors.Normalize(vmin=float(z.min()), vmax=float(max(z.max(), z.min() + 1e-12)))
        return (lo, hi), norm
    d = run.dim()
    p = run.q[: max(ks) + 1].reshape(-1, d)
    lo, hi = p.min(axis=0), p.max(axis=0)
    pad = 0.05 * np.maximum(hi - lo, 1e-12)
    return (lo - pad, hi + pad), None


def plot_snapshot(args):
    run = Run(args.run)
    run.colour = args.color
    if args.time is not None:  # the snapshot nearest to that time
        if not np.isfinite(args.time):
            raise PlotError(f"--time {args.time}: not a number")
        k = int(np.argmin(np.abs(run.times - args.time)))
    else:
        k = run.index(args.index)
    lim, norm = limits(run, [k])
    fig = plt.figure(figsize=(7.5, 6))
    draw(fig, run, k, lim, norm, f"{run.label}, snapshot {k} at t = {run.times[k]:.6g}")
    fig.tight_layout()
    fig.savefig(args.output, dpi=args.dpi)
    print(f"wrote {args.output}")


def plot_animation(args):
    from matplotlib.animation import PillowWriter

    if not args.output.lower().endswith(".gif"):
        raise PlotError(f"{args.output}: animate writes an animated GIF: give a .gif name")
    if args.fps <= 0:
        raise PlotError(f"--fps {args.fps}: must be positive")
    run = Run(args.run)
    ks = list(range(run.nsnap))
    lim, norm = limits(run, ks)  # the same axes and colours in every frame
    fig = plt.figure(figsize=(6.4, 5.2))
    writer = PillowWriter(fps=args.fps)
    tmp = f"{args.output}.tmp-{os.getpid()}.gif"
    try:
        with writer.saving(fig, tmp, dpi=args.dpi):
            for k in ks:
                fig.clear()
                draw(fig, run, k, lim, norm, f"{run.label}, t = {run.times[k]:.3f}  ({k + 1}/{run.nsnap})")
                writer.grab_frame()
        os.replace(tmp, args.output)  # a failed run leaves no partial GIF under the name
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    print(f"wrote {args.output} ({run.nsnap} frames, {args.fps:g} per second)")


def plot_modes(args):
    """One panel per mode: the surface displaced by the scaled shape, coloured by its magnitude"""
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    f = open_run(args.run)
    if "modes/shape" not in f:
        raise PlotError(f"{args.run} has no /modes: write it with tsmech -modes N -output {args.run}")
    shapes, freq = f["modes/shape"][()], f["modes/frequency"][()]
    rigid = f["modes/rigid"][()] if "modes/rigid" in f else np.zeros(len(freq), dtype=int)
    cells = mesh_corners(f, args.run)
    if cells is None or shapes.shape[2] != 3:
        raise PlotError(f"{args.run}: the modes of a model without a mesh of points in 3-D are not drawn")
    times, q = f["fields/time"][()], f["fields/q"]
    X = q[int(np.argmin(np.abs(times - float(f["modes"].attrs.get("time", 0)))))]
    tri = surface_triangles(cells, X)
    size = float(np.max(X.max(axis=0) - X.min(axis=0)))
    count = min(args.count, len(freq))
    cols = min(count, 3)
    rows = (count + cols - 1) // cols
    fig = plt.figure(figsize=(4.2 * cols, 3.6 * rows))
    for k in range(count):
        phi = shapes[k]
        mag = np.linalg.norm(phi, axis=1)
        Y = X + args.amplitude * size / max(mag.max(), 1e-300) * phi
        ax = fig.add_subplot(rows, cols, k + 1, projection="3d")
        colour = plt.cm.viridis(mag[tri].mean(axis=1) / max(mag.max(), 1e-300))
        ax.add_collection3d(Poly3DCollection(Y[tri], facecolors=colour, edgecolors="none"))
        lo, hi = np.minimum(X.min(axis=0), Y.min(axis=0)), np.maximum(X.max(axis=0), Y.max(axis=0))
        set_equal(ax, lo, hi)
        ax.set_title(f"mode {k + 1}: " + ("rigid" if rigid[k] else f"{freq[k]:.6g} Hz"), fontsize=10)
    fig.suptitle(f"{label(f)}: {count} of {len(freq)} modes", fontsize=11)
    fig.tight_layout()
    fig.savefig(args.output, dpi=args.dpi)
    print(f"tsmech_plot.py: {args.output}")


def set_equal(ax, lo, hi):
    """Equal scales on the three axes, so a cloth is not stretched by the plot."""
    c, r = (lo + hi) / 2, max((hi - lo).max() / 2, 1e-12)
    ax.set_xlim(c[0] - r, c[0] + r)
    ax.set_ylim(c[1] - r, c[1] + r)
    ax.set_zlim(c[2] - r, c[2] + r)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_zlabel("z")


HISTORY_KINDS = ("reaction", "probe", "balance")
# the CSV columns of a record of 3 or 6 components (the stress in Voigt order, docs/solid.md)
COMPONENTS = {"force": ("fx", "fy", "fz"), "moment": ("mx", "my", "mz"), "u": ("ux", "uy", "uz"), "v": ("vx", "vy", "vz"),
              "stress": ("sxx", "syy", "szz", "syz", "sxz", "sxy")}


# the records in their natural order (TSMechEnergyNames for the balance), others after them by name
RECORD_ORDER = ("force", "moment", "u", "v", "stress", "von_mises", "kinetic", "stored", "external_work", "prescribed_work", "damping", "numerical", "ratio")


def history_columns(f, kinds):
    """[(column name, values [steps+1])] of the run's per-step records of the given kinds, in file order."""
    cols = []
    m = f["monitor"] if "monitor" in f else {}
    for kind in kinds:
        if kind not in m:
            continue
        g = m[kind]
        groups = [(kind, g)] if kind == "balance" else [(f"{kind}_{n}", g[n]) for n in g]
        for prefix, grp in groups:
            order = {n: i for i, n in enumerate(RECORD_ORDER)}
            for name in sorted(grp, key=lambda n: (order.get(n, len(order)), n)):
                a = grp[name][()]
                if a.ndim == 1:
                    cols.append((f"{prefix}_{name}", a))
                else:
                    comps = COMPONENTS.get(name, tuple(str(i) for i in range(a.shape[1])))
                    cols += [(f"{prefix}_{c}", a[:, i]) for i, c in enumerate(comps)]
    return cols


def plot_history(args):
    kinds = [k.strip() for k in args.only.split(",")] if args.only else list(HISTORY_KINDS)
    bad = [k for k in kinds if k not in HISTORY_KINDS]
    if bad:
        raise PlotError(f"--only {','.join(bad)}: not one of {', '.join(HISTORY_KINDS)}")
    with open_run(args.run) as f:
        t, step = read(f, "monitor/time"), read(f, "monitor/step")
        cols = history_columns(f, kinds)
        lab = label(f)
    if not cols:
        raise PlotError(f"{args.run}: no /monitor/{{{','.join(kinds)}}} records (run with -monitor_reactions, -probe or -monitor_energy_balance)")
    for name, a in cols:
        if len(a) != len(t):
            raise PlotError(f"{args.run}: /monitor/{name} has {len(a)} rows and /monitor/time {len(t)}")
    csv = args.csv or os.path.splitext(args.output)[0] + ".csv"
    with open(csv, "w") as out:
        out.write(",".join(["step", "time"] + [n for n, _ in cols]) + "\n")
        for i in range(len(t)):
            out.write(",".join([str(int(step[i])), repr(float(t[i]))] + [repr(float(a[i])) for _, a in cols]) + "\n")
    # one panel per kind present: the reactions' forces, the probes' u and von Mises, the balance
    panels = []
    for kind in kinds:
        if kind == "reaction":
            sel = [(n, a) for n, a in cols if n.startswith("reaction_") and n[-3:] in ("_fx", "_fy", "_fz")]
            panels.append(("reaction force", sel))
        elif kind == "probe":
            sel = [(n, a) for n, a in cols if n.startswith("probe_") and n[-3:] in ("_ux", "_uy", "_uz")]
            vm = [(n, a) for n, a in cols if n.startswith("probe_") and n.endswith("_von_mises")]
            panels += [("probe displacement", sel), ("probe von Mises stress", vm)]
        else:
            sel = [(n, a) for n, a in cols if n.startswith("balance_") and n != "balance_ratio"]
            ratio = [(n, a) for n, a in cols if n == "balance_ratio"]
            panels += [("energy balance", sel), ("energy ratio", ratio)]
    panels = [p for p in panels if p[1]]
    fig, axes = plt.subplots(len(panels), 1, sharex=True, figsize=(8, 2.6 * len(panels)), squeeze=False)
    for ax, (title, sel) in zip(axes[:, 0], panels):
        for n, a in sel:
            ax.plot(t, a, label=n.split("_", 1)[1])
        ax.set_ylabel(title)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small", ncol=3)
    axes[0, 0].set_title(f"{lab}: histories")
    axes[-1, 0].set_xlabel("time")
    fig.tight_layout()
    fig.savefig(args.output, dpi=args.dpi)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("energy", help="total energy and its relative change against time")
    p.add_argument("runs", nargs="+", metavar="RUN.h5")
    p.add_argument("-o", "--output", default="energy.png")
    p.add_argument("--dpi", type=int, default=120)
    p.set_defaults(fn=plot_energy)
    p = sub.add_parser("snapshot", help="positions of one snapshot")
    p.add_argument("run", metavar="RUN.h5")
    p.add_argument("--index", type=int, default=-1, help="snapshot index, negative from the end (default -1: the last)")
    p.add_argument("--time", type=float, default=None, help="the snapshot nearest to this time (instead of --index)")
    p.add_argument("--color", choices=["displacement", "speed", "von_mises", "J"], default="displacement", help="colour of a mesh's surface (the solid): |q - q0| or |v| of the vertices, or the von Mises stress or J of the cells")
    p.add_argument("-o", "--output", default="snapshot.png")
    p.add_argument("--dpi", type=int, default=120)
    p.set_defaults(fn=plot_snapshot)
    p = sub.add_parser("modes", help="the first mode shapes of /modes")
    p.add_argument("run", metavar="RUN.h5")
    p.add_argument("--count", type=int, default=6, help="how many modes (default 6)")
    p.add_argument("--amplitude", type=float, default=0.1, help="the largest displacement drawn, a fraction of the body's size (default 0.1)")
    p.add_argument("-o", "--output", default="modes.png")
    p.add_argument("--dpi", type=int, default=110)
    p.set_defaults(fn=plot_modes)
    p = sub.add_parser("history", help="reactions, probes and the energy balance against time (plot and CSV)")
    p.add_argument("run", metavar="RUN.h5")
    p.add_argument("-o", "--output", default="history.png")
    p.add_argument("--csv", default=None, help="the CSV file (default: the plot's name with .csv)")
    p.add_argument("--only", default=None, help="comma-separated kinds among reaction, probe, balance (default: all)")
    p.add_argument("--dpi", type=int, default=120)
    p.set_defaults(fn=plot_history)
    p = sub.add_parser("animate", help="every snapshot as a frame of an animated GIF")
    p.add_argument("run", metavar="RUN.h5")
    p.add_argument("-o", "--output", default="run.gif")
    p.add_argument("--fps", type=float, default=10, help="frames per second (default 10)")
    p.add_argument("--dpi", type=int, default=90)
    p.set_defaults(fn=plot_animation)
    args = ap.parse_args(argv)
    try:
        args.fn(args)
    except PlotError as e:
        print(f"tsmech_plot.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
