#!/usr/bin/python3
"""Checks the HDF5 (and XDMF) output written by MechOutput (src/io/output.c).

  check_output.py layout RUN.h5 --steps N --every K [--model M] [--nranks R] [--ts-type T]
                                [--invariant NAME ...] [--shape S ...] [--mesh]
  check_output.py compare A.h5 B.h5 [--tol 1e-12]
  check_output.py crash RUN.h5 --every K --last S
  check_output.py xdmf RUN.xmf

Exits non-zero, with a message, at the first failed check. Needs h5py and numpy (Debian's
/usr/bin/python3).
"""
import argparse
import os
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

MONITOR_REAL = ["time", "dt", "kinetic", "potential", "energy"]
MONITOR_INT = ["step", "snes_its", "ksp_its"]
ROOT_ATTRS = ["model", "model_parameters", "ts_type", "dt", "nranks", "every", "tsmech_version", "petsc_version"]


class CheckError(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise CheckError(msg)


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def dataset(f, name):
    check(name in f and isinstance(f[name], h5py.Dataset), f"{f.filename}: dataset {name} missing")
    return f[name]


def expected_snapshots(steps, every):
    snaps = set(range(0, steps + 1, every)) if every > 0 else set()
    return sorted(snaps | {0, steps})


def check_layout(args):
    with h5py.File(args.file, "r") as f:
        for a in ROOT_ATTRS:
            check(a in f.attrs, f"{args.file}: attribute /{a} missing")
        model = text(f.attrs["model"])
        if args.model:
            check(model == args.model, f"model {model}, expected {args.model}")
        if args.ts_type:
            check(text(f.attrs["ts_type"]) == args.ts_type, f"ts_type {text(f.attrs['ts_type'])}, expected {args.ts_type}")
        if args.nranks:
            check(int(f.attrs["nranks"]) == args.nranks, f"nranks {f.attrs['nranks']}, expected {args.nranks}")
        check(int(f.attrs["every"]) == args.every, f"every {f.attrs['every']}, expected {args.every}")
        check(text(f.attrs["tsmech_version"]).count(".") == 2, "tsmech_version is not x.y.z")
        params = text(f.attrs["model_parameters"]).strip()
        for p in params.split(",") if params else []:
            check(p in f.attrs, f"model parameter attribute /{p} missing")
            check(np.asarray(f.attrs[p]).dtype == np.float64, f"model parameter /{p} is not a double")
        if text(f.attrs["ts_type"]) in ("theta2", "beuler2", "cn2", "midpoint2", "euler2"):
            for a in ("theta", "endpoint", "linearized", "guess"):
                check(a in f.attrs, f"theta2 attribute /{a} missing")

        n = args.steps + 1
        for name in MONITOR_REAL + args.invariant:
            d = dataset(f, "monitor/" + name)
            check(d.shape == (n,), f"/monitor/{name} has shape {d.shape}, expected ({n},)")
            check(d.dtype == np.float64, f"/monitor/{name} has dtype {d.dtype}")
            check(np.all(np.isfinite(d[:])), f"/monitor/{name} is not finite")
        for name in MONITOR_INT:
            d = dataset(f, "monitor/" + name)
            check(d.shape == (n,), f"/monitor/{name} has shape {d.shape}, expected ({n},)")
            check(d.dtype == np.int64, f"/monitor/{name} has dtype {d.dtype}")
        mon = {k: f["monitor/" + k][:] for k in MONITOR_REAL + MONITOR_INT}
        check(np.array_equal(mon["step"], np.arange(n)), f"/monitor/step is {mon['step']}")
        check(mon["time"][0] == 0 and np.all(np.diff(mon["time"]) > 0), "/monitor/time does not increase from 0")
        check(mon["dt"][0] == 0, "/monitor/dt[0] is not 0")
        check(np.allclose(mon["dt"][1:], np.diff(mon["time"]), rtol=0, atol=1e-14), "/monitor/dt is not the difference of /monitor/time")
        scale = np.maximum(np.abs(mon["kinetic"]) + np.abs(mon["potential"]), 1.0)
        err = np.max(np.abs(mon["energy"] - mon["kinetic"] - mon["potential"]) / scale)
        check(err < 1e-12, f"energy != kinetic + potential (relative error {err:.3g})")
        for k in ("snes_its", "ksp_its"):
            check(mon[k][0] == 0 and np.all(mon[k] >= 0), f"/monitor/{k} is {mon[k]}")

        snaps = expected_snapshots(args.steps, args.every)
        step = dataset(f, "fields/step")[:]
        check(step.dtype == np.int64, "/fields/step is not int64")
        check(list(step) == snaps, f"/fields/step is {list(step)}, expected {snaps}")
        t = dataset(f, "fields/time")[:]
        check(np.array_equal(t, mon["time"][snaps]), "/fields/time differs from /monitor/time at the snapshot steps")
        q, v = dataset(f, "fields/q"), dataset(f, "fields/v")
        check(q.shape == v.shape, f"/fields/q {q.shape} and /fields/v {v.shape} differ")
        check(q.shape[0] == len(snaps), f"/fields/q has {q.shape[0]} snapshots, expected {len(snaps)}")
        check(q.dtype == np.float64, f"/fields/q has dtype {q.dtype}")
        if args.shape:
            check(tuple(q.shape[1:]) == tuple(args.shape), f"/fields/q snapshot shape {q.shape[1:]}, expected {tuple(args.shape)}")
        check(np.all(np.isfinite(q[:])) and np.all(np.isfinite(v[:])), "/fields are not finite")
        if model == "chain":
            # the initial state: particle i at (i stretch length / (n - 1), 0, 0), at rest
            nn, h = int(f.attrs["n"]), f.attrs["stretch"] * f.attrs["length"] / (f.attrs["n"] - 1)
            x0 = np.zeros((nn, 3))
            x0[:, 0] = np.arange(nn) * h
            check(np.allclose(q[0], x0, rtol=0, atol=1e-14), "/fields/q[0] is not the chain's initial state")
            check(np.all(v[0] == 0), "/fields/v[0] is not zero")
        if args.mesh:
            check_mesh(f, q)
    print(f"{args.file}: layout OK ({len(snaps)} snapshots at steps {snaps}, /fields/q shape {q.shape})")


def check_mesh(f, q):
    """/mesh of a model on a tetrahedral mesh (README.md, "The solid's output"): the reference
    vertices [nv, 3] (the initial positions /fields/q[0], as many as the attribute /vertices) and
    the tetrahedra [nc, 4] (as many as /cells), 0-based vertex numbers using every vertex, of
    nonzero volume."""
    X, T = dataset(f, "mesh/vertices"), dataset(f, "mesh/tetrahedra")
    check(X.dtype == np.float64 and X.ndim == 2 and X.shape[1] == 3, f"/mesh/vertices: shape {X.shape}, dtype {X.dtype}")
    check(T.dtype == np.int64 and T.ndim == 2 and T.shape[1] == 4, f"/mesh/tetrahedra: shape {T.shape}, dtype {T.dtype}")
    X, T = X[:], T[:]
    check(X.shape[0] == int(f.attrs["vertices"]), f"/mesh/vertices has {X.shape[0]} rows, the attribute /vertices is {f.attrs['vertices']}")
    check(T.shape[0] == int(f.attrs["cells"]), f"/mesh/tetrahedra has {T.shape[0]} rows, the attribute /cells is {f.attrs['cells']}")
    check(q.shape[1:] == X.shape, f"/fields/q snapshot shape {q.shape[1:]}, /mesh/vertices {X.shape}")
    check(np.array_equal(q[0], X), "/fields/q[0] is not /mesh/vertices (the reference positions)")
    check(T.min() >= 0 and T.max() < X.shape[0], "/mesh/tetrahedra has vertex numbers outside [0, nv)")
    check(np.array_equal(np.unique(T), np.arange(X.shape[0])), "/mesh/tetrahedra does not use every vertex")
    e = X[T[:, 1:]] - X[T[:, :1]]
    vol = np.abs(np.linalg.det(e)) / 6
    check(np.all(vol > 0), "/mesh/tetrahedra has degenerate tetrahedra")
    print(f"/mesh: {X.shape[0]} vertices, {T.shape[0]} tetrahedra, volume {vol.sum():.6g}")


def check_compare(args):
    with h5py.File(args.a, "r") as fa, h5py.File(args.b, "r") as fb:
        for name in ("fields/q", "fields/v", "fields/time", "fields/step", "monitor/time", "monitor/energy"):
            a, b = dataset(fa, name)[:], dataset(fb, name)[:]
            check(a.shape == b.shape, f"{name}: shapes {a.shape} and {b.shape} differ")
            diff = np.max(np.abs(a - b)) if a.size else 0.0
            check(diff <= args.tol, f"{name}: {args.a} and {args.b} differ by {diff:.3g} > {args.tol:g}")
            print(f"{name}: max difference {diff:.3g}")
        for name in ("mesh/vertices", "mesh/tetrahedra"):
            check((name in fa) == (name in fb), f"{name} is in one file only")
            if name in fa:
                check(np.array_equal(fa[name][:], fb[name][:]), f"{name}: {args.a} and {args.b} differ")
                print(f"{name}: equal")
        for a in ("model", "model_parameters", "ts_type", "dt"):
            check(text(fa.attrs[a]) == text(fb.attrs[a]), f"attribute /{a} differs")
    print(f"{args.a} and {args.b}: equal to {args.tol:g}")


def check_crash(args):
    """A run aborted after step S > last snapshot step: the file opens, holds the snapshots up
    to the last one and /monitor up to that snapshot's step."""
    with h5py.File(args.file, "r") as f:
        snaps = expected_snapshots(args.last, args.every)
        step = dataset(f, "fields/step")[:]
        check(list(step) == snaps, f"/fields/step is {list(step)}, expected {snaps}")
        check(dataset(f, "fields/q").shape[0] >= len(snaps), "/fields/q lacks snapshots")
        check(dataset(f, "fields/time").shape == (len(snaps),), "/fields/time has the wrong length")
        for name in MONITOR_REAL + MONITOR_INT:
            d = dataset(f, "monitor/" + name)
            check(d.shape == (args.last + 1,), f"/monitor/{name} has shape {d.shape}, expected ({args.last + 1},)")
        check(np.array_equal(f["monitor/step"][:], np.arange(args.last + 1)), "/monitor/step is not 0..last")
        mon = f["monitor/time"][:]
        check(np.array_equal(f["fields/time"][:], mon[snaps]), "/fields/time inconsistent with /monitor/time")
        e = f["monitor/energy"][:]
        check(np.allclose(e, f["monitor/kinetic"][:] + f["monitor/potential"][:], rtol=1e-12, atol=1e-12), "energy != kinetic + potential")
    print(f"{args.file}: readable after the abort, snapshots {snaps}, /monitor up to step {args.last}")


def check_xdmf(args):
    """Every HDF dataset the XDMF names exists in the .h5 beside it with the shape it states;
    every hyperslab lies in its dataset and selects as many values as its grid needs; snapshot k
    has the geometry /fields/q[k], the node vectors velocity = /fields/v[k] and displacement =
    /fields/q[k] - /fields/q[0] (a Function item of two hyperslabs)."""
    xdir = os.path.dirname(os.path.abspath(args.file))
    root = ET.parse(args.file).getroot()
    check(root.tag == "Xdmf", "root element is not Xdmf")
    temporal = root.find("Domain/Grid")
    check(temporal is not None and temporal.get("GridType") == "Collection" and temporal.get("CollectionType") == "Temporal", "no temporal collection")
    grids = temporal.findall("Grid")
    check(grids, "the collection has no grid")
    h5files = {}
    times = []

    def slab(item, nodes):
        """(dataset path, selected snapshot) of a hyperslab item, after checking it"""
        check(item.get("ItemType") == "HyperSlab", "expected a hyperslab")
        sdims = [int(x) for x in item.get("Dimensions").split()]
        params, heavy = item.findall("DataItem")
        check(heavy.get("Format") == "HDF" and params.get("Format") == "XML", "hyperslab items malformed")
        fname, path = heavy.text.strip().split(":", 1)
        check(os.path.basename(fname) == fname, f"the XDMF names {fname}, not a relative file name")
        full = os.path.join(xdir, fname)
        check(os.path.exists(full), f"{fname} named by the XDMF does not exist beside it")
        if full not in h5files:
            h5files[full] = h5py.File(full, "r")
        d = dataset(h5files[full], path)
        hdims = tuple(int(x) for x in heavy.get("Dimensions").split())
        check(d.shape == hdims, f"{path}: the XDMF states {hdims}, the file has {d.shape}")
        check(heavy.get("NumberType") == "Float" and heavy.get("Precision") == "8" and d.dtype == np.float64, f"{path}: type mismatch")
        p = np.array([int(x) for x in params.text.split()]).reshape(3, len(hdims))
        start, stride, count = p
        check(np.all(start + (count - 1) * stride < np.array(hdims)) and np.all(start >= 0), f"{path}: hyperslab {p.tolist()} outside {hdims}")
        check(count[0] == 1 and list(count[1:]) == list(hdims[1:]), f"{path}: hyperslab count {list(count)} is not one snapshot")
        check(list(start[1:]) == [0] * (len(hdims) - 1), f"{path}: hyperslab start {list(start)} is not a whole snapshot")
        check(sdims == nodes + [3], f"{path}: hyperslab Dimensions {sdims}, expected the nodes {nodes} times 3 components")
        check(np.prod(count) == np.prod(sdims), f"{path}: the hyperslab selects {np.prod(count)} values, its Dimensions say {np.prod(sdims)}")
        return path.lstrip("/"), int(start[0])

    for k, g in enumerate(grids):
        times.append(float(g.find("Time").get("Value")))
        topo = g.find("Topology")
        if topo.get("TopologyType") == "Tetrahedron":
            # a mesh (the solid): the tetrahedra of /mesh/tetrahedra, the nodes of /mesh/vertices
            item = topo.find("DataItem")
            check(item is not None and item.get("Format") == "HDF" and item.get("NumberType") == "Int" and item.get("Precision") == "8", "tetrahedra item malformed")
            fname, path = item.text.strip().split(":", 1)
            full = os.path.join(xdir, fname)
            check(path == "/mesh/tetrahedra" and os.path.exists(full), f"the topology is {item.text.strip()}, not /mesh/tetrahedra of a file beside the XDMF")
            if full not in h5files:
                h5files[full] = h5py.File(full, "r")
            T, X = dataset(h5files[full], "mesh/tetrahedra"), dataset(h5files[full], "mesh/vertices")
            check(T.dtype == np.int64, "/mesh/tetrahedra is not int64")
            check(tuple(int(x) for x in item.get("Dimensions").split()) == T.shape, f"tetrahedra: the XDMF states {item.get('Dimensions')}, the file has {T.shape}")
            check(int(topo.get("NumberOfElements")) == T.shape[0], "NumberOfElements is not the number of tetrahedra")
            nodes = [X.shape[0]]
        else:
            # 3DSMesh for both grids: a 2-D grid is one layer, Dimensions "1 N M" (ParaView's XDMF2
            # reader cannot read node vectors of a 2DSMesh)
            check(topo.get("TopologyType") == "3DSMesh", f"topology {topo.get('TopologyType')}, expected 3DSMesh or Tetrahedron")
            nodes = [int(x) for x in topo.get("Dimensions").split()]
            check(len(nodes) == 3, "3DSMesh dimensions are not three numbers")
        geo = g.find("Geometry")
        check(geo.get("GeometryType") == "XYZ", "geometry is not XYZ")
        check(slab(geo.find("DataItem"), nodes) == ("fields/q", k), f"snapshot {k}: the geometry is not /fields/q[{k}]")
        atts = {a.get("Name"): a for a in g.findall("Attribute")}
        check(sorted(atts) == ["displacement", "velocity"], f"snapshot {k}: attributes {sorted(atts)}, expected displacement and velocity")
        for a in atts.values():
            check(a.get("Center") == "Node" and a.get("AttributeType") == "Vector", f"{a.get('Name')} is not a node vector")
        check(slab(atts["velocity"].find("DataItem"), nodes) == ("fields/v", k), f"snapshot {k}: velocity is not /fields/v[{k}]")
        fn = atts["displacement"].find("DataItem")
        check(fn.get("ItemType") == "Function" and fn.get("Function").replace(" ", "") == "$0-$1", f"snapshot {k}: displacement is not the function $0 - $1")
        check([int(x) for x in fn.get("Dimensions").split()] == nodes + [3], f"snapshot {k}: displacement Dimensions")
        args_ = [slab(item, nodes) for item in fn.findall("DataItem")]
        check(args_ == [("fields/q", k), ("fields/q", 0)], f"snapshot {k}: displacement is {args_}, not /fields/q[{k}] - /fields/q[0]")
    for f in h5files.values():
        check(np.allclose(f["fields/time"][:], times, rtol=1e-15, atol=0), "XDMF times differ from /fields/time")
        check(len(grids) == f["fields/q"].shape[0], "the XDMF does not describe every snapshot")
        f.close()
    print(f"{args.file}: XDMF OK ({len(grids)} grids)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("layout")
    p.add_argument("file")
    p.add_argument("--steps", type=int, required=True)
    p.add_argument("--every", type=int, required=True)
    p.add_argument("--model")
    p.add_argument("--ts-type")
    p.add_argument("--nranks", type=int)
    p.add_argument("--invariant", action="append", default=[])
    p.add_argument("--shape", type=int, nargs="+")
    p.add_argument("--mesh", action="store_true", help="check /mesh (models on tetrahedral meshes)")
    p.set_defaults(fn=check_layout)
    p = sub.add_parser("compare")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--tol", type=float, default=1e-12)
    p.set_defaults(fn=check_compare)
    p = sub.add_parser("crash")
    p.add_argument("file")
    p.add_argument("--every", type=int, required=True)
    p.add_argument("--last", type=int, required=True)
    p.set_defaults(fn=check_crash)
    p = sub.add_parser("xdmf")
    p.add_argument("file")
    p.set_defaults(fn=check_xdmf)
    args = ap.parse_args()
    try:
        args.fn(args)
    except (CheckError, OSError, KeyError) as e:
        print(f"FAILED: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
