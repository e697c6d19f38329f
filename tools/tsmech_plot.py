#!/usr/bin/python3
"""Plots tsmech HDF5 output (MechOutput, layout in the README).

  tsmech_plot.py energy RUN.h5 [RUN2.h5 ...] -o energy.png
      total energy against time (top) and its relative change (E - E0)/|E0| (bottom), one line
      per run, labelled model / ts_type from the file's attributes
  tsmech_plot.py snapshot RUN.h5 [--index -1] -o snapshot.png
      the positions /fields/q of one snapshot: a surface for a 2-D grid model (cloth), a 3-D
      scatter for a 3-D grid model (lattice), the particles (and their path over the snapshots
      up to this one) for the other models

Needs h5py, numpy and matplotlib (Debian's /usr/bin/python3). Writes PNG with the Agg backend.
Exits with status 1 and a message for a missing file, dataset or snapshot.
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


def plot_energy(args):
    fig, (ax, axr) = plt.subplots(2, 1, sharex=True, figsize=(8, 6.5))
    labels = []
    runs = []
    for path in args.runs:
        with open_run(path) as f:
            t, e = read(f, "monitor/time"), read(f, "monitor/energy")
            if len(t) == 0:
                raise PlotError(f"{path}: /monitor is empty")
            runs.append((path, label(f), t, e))
            labels.append(label(f))
    relabs = False
    for path, lab, t, e in runs:
        # runs with the same model and type are told apart by their file name
        if labels.count(lab) > 1:
            lab = f"{lab} ({os.path.basename(path)})"
        ax.plot(t, e, label=lab)
        if e[0] != 0:
            axr.plot(t, (e - e[0]) / abs(e[0]), label=lab)
        else:
            relabs = True
            axr.plot(t, e - e[0], label=lab)
    ax.set_ylabel("total energy")
    ax.set_title("Energy")
    ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)
    axr.set_ylabel("(E - E0) / |E0|" + ("\n(E - E0 where E0 = 0)" if relabs else ""))
    axr.set_xlabel("time")
    axr.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.output, dpi=args.dpi)
    print(f"wrote {args.output}")


def plot_snapshot(args):
    with open_run(args.run) as f:
        qd = f["fields/q"] if "fields/q" in f else None
        if qd is None:
            raise PlotError(f"{args.run}: dataset /fields/q missing (is this tsmech output?)")
        nsnap = qd.shape[0]
        if "fields/step" in f:
            nsnap = min(nsnap, f["fields/step"].shape[0])  # complete snapshots only
        if nsnap == 0:
            raise PlotError(f"{args.run}: no snapshot in /fields")
        k = args.index if args.index >= 0 else nsnap + args.index
        if not 0 <= k < nsnap:
            raise PlotError(f"{args.run}: snapshot index {args.index} out of range (the file has {nsnap})")
        q = qd[k]
        times = read(f, "fields/time")
        title = f"{label(f)}, snapshot {k} at t = {times[k]:.6g}"
        model = text(f.attrs.get("model", ""))
        path = qd[: k + 1] if q.ndim == 1 else None

    fig = plt.figure(figsize=(7, 6))
    if q.ndim == 3 and q.shape[-1] == 3:  # 2-D grid [ny, nx, 3]: a surface
        ax = fig.add_subplot(projection="3d")
        ax.plot_surface(q[..., 0], q[..., 1], q[..., 2], cmap="viridis", edgecolor="k", linewidth=0.3, alpha=0.9)
        set_equal(ax, q.reshape(-1, 3))
    elif q.ndim == 4 and q.shape[-1] == 3:  # 3-D grid [nz, ny, nx, 3]: the nodes
        ax = fig.add_subplot(projection="3d")
        p = q.reshape(-1, 3)
        ax.scatter(p[:, 0], p[:, 1], p[:, 2], c=p[:, 2], cmap="viridis", s=8)
        set_equal(ax, p)
    elif q.ndim == 2 and q.shape[-1] == 3:  # 1-D grid [n, 3] (chain): a polyline
        ax = fig.add_subplot(projection="3d")
        ax.plot(q[:, 0], q[:, 1], q[:, 2], "-o", ms=3)
        set_equal(ax, q)
    elif q.ndim == 1:  # plain vector: particles of dimension 3, 2 or 1 (pair, kepler, oscillator)
        d = 3 if q.size % 3 == 0 else 2 if q.size % 2 == 0 else 1
        if model == "kepler":
            d = 2
        pts = q.reshape(-1, d)
        hist = path.reshape(path.shape[0], -1, d)
        if d == 3:
            ax = fig.add_subplot(projection="3d")
            for j in range(pts.shape[0]):
                ax.plot(hist[:, j, 0], hist[:, j, 1], hist[:, j, 2], color="0.7", lw=0.8)
            ax.scatter(pts[:, 0], pts[:, 1], pts[:, 2], s=30)
        elif d == 2:
            ax = fig.add_subplot()
            for j in range(pts.shape[0]):
                ax.plot(hist[:, j, 0], hist[:, j, 1], color="0.7", lw=0.8)
            ax.plot(pts[:, 0], pts[:, 1], "o")
            ax.set_aspect("equal", adjustable="datalim")
        else:
            ax = fig.add_subplot()
            ax.plot(np.arange(hist.shape[0]), hist[:, :, 0], color="0.7", lw=0.8)
            ax.plot([hist.shape[0] - 1] * pts.shape[0], pts[:, 0], "o")
            ax.set_xlabel("snapshot")
            ax.set_ylabel("q")
    else:
        raise PlotError(f"{args.run}: cannot draw /fields/q snapshots of shape {q.shape}")
    ax.set_title(title, fontsize="medium")
    fig.tight_layout()
    fig.savefig(args.output, dpi=args.dpi)
    print(f"wrote {args.output}")


def set_equal(ax, p):
    """Equal scales on the three axes, so a cloth is not stretched by the plot."""
    lo, hi = p.min(axis=0), p.max(axis=0)
    c, r = (lo + hi) / 2, max((hi - lo).max() / 2, 1e-12)
    ax.set_xlim(c[0] - r, c[0] + r)
    ax.set_ylim(c[1] - r, c[1] + r)
    ax.set_zlim(c[2] - r, c[2] + r)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_zlabel("z")


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
    p.add_argument("-o", "--output", default="snapshot.png")
    p.add_argument("--dpi", type=int, default=120)
    p.set_defaults(fn=plot_snapshot)
    args = ap.parse_args(argv)
    try:
        args.fn(args)
    except PlotError as e:
        print(f"tsmech_plot.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
