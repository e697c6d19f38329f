#!/usr/bin/python3
"""Checks the HDF5 (and XDMF) output written by MechOutput (src/io/output.c).

  check_output.py layout RUN.h5 --steps N --every K [--model M] [--nranks R] [--ts-type T]
                                [--invariant NAME ...] [--shape S ...] [--mesh]
                                [--cell-fields NAME:NCOMP ...] [--text NAME=VALUE ...]
  check_output.py compare A.h5 B.h5 [--tol 1e-12] [--only DATASET ...]
  check_output.py crash RUN.h5 --every K --last S
  check_output.py xdmf RUN.xmf
  check_output.py stress RUN.h5 [--F F11,...,F33] [--uniaxial EPS] [--tol 1e-12]

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
        for spec in args.cell_fields:
            name, ncomp = spec.split(":")
            nc = dataset(f, "mesh/tetrahedra" if "tetrahedra" in f["mesh"] else "mesh/cells").shape[0]
            if name.endswith("_vertex"):
                nc = q.shape[1]  # a node field: the nodes of /fields/q
            want = (len(snaps), nc) + ((int(ncomp),) if int(ncomp) > 1 else ())
            d = dataset(f, "fields/" + name)
            check(d.shape == want and d.dtype == np.float64, f"/fields/{name}: shape {d.shape}, dtype {d.dtype}; expected {want}, float64")
            check(np.all(np.isfinite(d[:])), f"/fields/{name} is not finite")
        texts = text(f.attrs.get("model_text_parameters", b" ")).strip()
        texts = texts.split(",") if texts else []
        for p in texts:
            check(p in f.attrs and isinstance(f.attrs[p], (bytes, str)), f"text parameter attribute /{p} missing or not a string")
        for spec in args.text:
            name, value = spec.split("=", 1)
            check(name in texts, f"{name} is not in /model_text_parameters ({texts})")
            check(text(f.attrs[name]) == value, f"/{name} is {text(f.attrs[name])}, expected {value}")
    print(f"{args.file}: layout OK ({len(snaps)} snapshots at steps {snaps}, /fields/q shape {q.shape})")


def check_mesh(f, q):
    """/mesh of a model on a tetrahedral mesh (docs/manual/formats/MechOutputFormat.md): the reference
    vertices [nv, 3] (the initial positions /fields/q[0], as many as the attribute /vertices) and
    the tetrahedra [nc, 4] (as many as /cells), 0-based vertex numbers using every vertex, of
    nonzero volume. Quadratic tetrahedra and hexahedra: /mesh/cells [nc, 10, 8 or 27] with the
    attribute topology (Tetrahedron_10, Hexahedron, Hexahedron_27), every node (/vertices: all
    nodes) used; the volume check on the corners (0..3, the first four of a hexahedron)."""
    if "cells" in f["mesh"]:
        T = dataset(f, "mesh/cells")
        topo = text(T.attrs.get("topology", b""))
        want = {"Tetrahedron_10": 10, "Hexahedron": 8, "Hexahedron_27": 27}
        check(topo in want and T.shape[1:] == (want.get(topo),), f"/mesh/cells: topology {topo!r}, shape {T.shape}")
        check("tetrahedra" not in f["mesh"], "/mesh has both tetrahedra and cells")
    else:
        T = dataset(f, "mesh/tetrahedra")
        check(T.ndim == 2 and T.shape[1] == 4, f"/mesh/tetrahedra: shape {T.shape}")
    X = dataset(f, "mesh/vertices")
    check(X.dtype == np.float64 and X.ndim == 2 and X.shape[1] == 3, f"/mesh/vertices: shape {X.shape}, dtype {X.dtype}")
    check(T.dtype == np.int64 and T.ndim == 2, f"{T.name}: shape {T.shape}, dtype {T.dtype}")
    X, T = X[:], T[:]
    check(X.shape[0] == int(f.attrs["vertices"]), f"/mesh/vertices has {X.shape[0]} rows, the attribute /vertices is {f.attrs['vertices']}")
    check(T.shape[0] == int(f.attrs["cells"]), f"/mesh/tetrahedra has {T.shape[0]} rows, the attribute /cells is {f.attrs['cells']}")
    check(q.shape[1:] == X.shape, f"/fields/q snapshot shape {q.shape[1:]}, /mesh/vertices {X.shape}")
    check(np.array_equal(q[0], X), "/fields/q[0] is not /mesh/vertices (the reference positions)")
    check(T.min() >= 0 and T.max() < X.shape[0], "/mesh/tetrahedra has vertex numbers outside [0, nv)")
    check(np.array_equal(np.unique(T), np.arange(X.shape[0])), "/mesh/tetrahedra does not use every vertex")
    e = X[T[:, 1:4]] - X[T[:, :1]] if T.shape[1] != 8 and T.shape[1] != 27 else X[T[:, [1, 3, 4]]] - X[T[:, :1]]
    vol = np.abs(np.linalg.det(e)) / 6
    check(np.all(vol > 0), "/mesh/tetrahedra has degenerate tetrahedra")
    print(f"/mesh: {X.shape[0]} vertices, {T.shape[0]} tetrahedra, volume {vol.sum():.6g}")


def check_compare(args):
    with h5py.File(args.a, "r") as fa, h5py.File(args.b, "r") as fb:
        names = ["fields/q", "fields/v", "fields/time", "fields/step", "monitor/time", "monitor/energy"]
        # the per-cell fields (the solid's stresses), which must be in both files or neither
        cells = sorted((set(fa["fields"].keys()) | set(fb["fields"].keys())) - {"q", "v", "time", "step"})
        names += ["fields/" + k for k in cells]
        for name in args.only or names:
            a, b = dataset(fa, name)[:], dataset(fb, name)[:]
            check(a.shape == b.shape, f"{name}: shapes {a.shape} and {b.shape} differ")
            # relative to the dataset's size where it exceeds 1 (stresses of a stiff body)
            diff = np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(a)))) if a.size else 0.0
            check(diff <= args.tol, f"{name}: {args.a} and {args.b} differ by {diff:.3g} > {args.tol:g}")
            print(f"{name}: max difference {diff:.3g}")
        for name in ("mesh/vertices", "mesh/tetrahedra", "mesh/cells"):
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


VOIGT = ["xx", "yy", "zz", "yz", "xz", "xy"]


def check_cell_attributes(f, atts, k, nc, node=False):
    """The cell attributes of snapshot k of a mesh: every per-cell field of /fields (those beyond
    q, v, time, step and the node fields) and nothing else, a scalar ([nsnap, nc]), a vector ([nsnap, nc, 3]) or six
    scalars NAME_xx ... ([nsnap, nc, 6], Voigt order); each a hyperslab of its dataset that selects
    snapshot k (and the component), whose values, selected here as the XDMF says, are that slice.
    With node, the node attributes likewise: the fields named *_vertex (the solid's recovered
    stresses, MechSystemSetNodeFields()), nc the nodes of /fields/q."""
    want = {}
    for name in f["fields"]:
        if name in ("q", "v", "time", "step") or name.endswith("_vertex") != node:
            continue
        d = f["fields"][name]
        check(d.ndim in (2, 3) and d.shape[1] == nc, f"/fields/{name}: shape {d.shape} is not per cell of {nc}")
        ncomp = d.shape[2] if d.ndim == 3 else 1
        check(ncomp in (1, 3, 6), f"/fields/{name}: {ncomp} components")
        if ncomp == 6:
            for j, c in enumerate(VOIGT):
                want[f"{name}_{c}"] = (name, "Scalar", j)
        else:
            want[name] = (name, "Scalar" if ncomp == 1 else "Vector", None)
    check(sorted(atts) == sorted(want), f"snapshot {k}: cell attributes {sorted(atts)}, expected {sorted(want)}")
    for aname, (dname, atype, comp) in want.items():
        a = atts[aname]
        check(a.get("AttributeType") == atype, f"{aname}: AttributeType {a.get('AttributeType')}, expected {atype}")
        item = a.find("DataItem")
        check(item.get("ItemType") == "HyperSlab", f"{aname}: not a hyperslab")
        params, heavy = item.findall("DataItem")
        check(heavy.get("Format") == "HDF" and heavy.get("NumberType") == "Float" and heavy.get("Precision") == "8", f"{aname}: heavy item malformed")
        path = heavy.text.strip().split(":", 1)[1]
        check(path == "/fields/" + dname, f"{aname}: names {path}, not /fields/{dname}")
        d = f["fields"][dname]
        hdims = tuple(int(x) for x in heavy.get("Dimensions").split())
        check(hdims == d.shape, f"{aname}: the XDMF states {hdims}, the file has {d.shape}")
        p = np.array([int(x) for x in params.text.split()]).reshape(3, d.ndim)
        start, stride, count = p
        check(np.all(start >= 0) and np.all(start + (count - 1) * stride < np.array(d.shape)), f"{aname}: hyperslab {p.tolist()} outside {d.shape}")
        want_start = [k, 0] + ([] if d.ndim == 2 else [0 if comp is None else comp])
        want_count = [1, nc] + ([] if d.ndim == 2 else [d.shape[2] if comp is None else 1])
        check(list(start) == want_start and list(count) == want_count and np.all(stride == 1), f"{aname}: hyperslab {p.tolist()}, expected start {want_start}, count {want_count}, stride 1")
        sel = d[tuple(slice(s0, s0 + (c - 1) * st + 1, st) for s0, st, c in zip(start, stride, count))]
        truth = d[k] if comp is None else d[k][:, comp]
        sdims = [int(x) for x in item.get("Dimensions").split()]
        check(int(np.prod(sdims)) == truth.size and sdims[0] == nc, f"{aname}: Dimensions {sdims} for {truth.size} values of {nc} cells")
        check(np.array_equal(sel.reshape(truth.shape), truth), f"{aname}: the hyperslab of snapshot {k} does not select /fields/{dname}[{k}]" + ("" if comp is None else f"[:, {comp}]"))


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
        meshtopo = {"Tetrahedron": "/mesh/tetrahedra", "Tetrahedron_10": "/mesh/cells", "Hexahedron": "/mesh/cells", "Hexahedron_27": "/mesh/cells"}
        if topo.get("TopologyType") in meshtopo:
            # a mesh (the solid): the cells of /mesh/tetrahedra (or /mesh/cells of that topology),
            # the nodes of /mesh/vertices
            item = topo.find("DataItem")
            check(item is not None and item.get("Format") == "HDF" and item.get("NumberType") == "Int" and item.get("Precision") == "8", "tetrahedra item malformed")
            fname, path = item.text.strip().split(":", 1)
            full = os.path.join(xdir, fname)
            want = meshtopo[topo.get("TopologyType")]
            check(path == want and os.path.exists(full), f"the topology is {item.text.strip()}, not {want} of a file beside the XDMF")
            if full not in h5files:
                h5files[full] = h5py.File(full, "r")
            T, X = dataset(h5files[full], want.lstrip("/")), dataset(h5files[full], "mesh/vertices")
            if want == "/mesh/cells":
                check(text(T.attrs.get("topology", b"")) == topo.get("TopologyType"), f"/mesh/cells has the topology {T.attrs.get('topology')}, the XDMF {topo.get('TopologyType')}")
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
        atts = {a.get("Name"): a for a in g.findall("Attribute") if a.get("Center") != "Cell" and a.get("Name") in ("displacement", "velocity")}
        nodeatts = {a.get("Name"): a for a in g.findall("Attribute") if a.get("Center") == "Node" and a.get("Name") not in ("displacement", "velocity")}
        others = [a.get("Name") for a in g.findall("Attribute") if a.get("Center") not in ("Cell", "Node")]
        check(sorted(atts) == ["displacement", "velocity"] and not others, f"snapshot {k}: attributes {sorted(atts) + others}, expected displacement and velocity")
        check(not nodeatts or topo.get("TopologyType") in meshtopo, f"snapshot {k}: node fields on a grid")
        if topo.get("TopologyType") in meshtopo:
            check_cell_attributes(h5files[full], nodeatts, k, dataset(h5files[full], "fields/q").shape[1], node=True)
        cellatts = {a.get("Name"): a for a in g.findall("Attribute") if a.get("Center") == "Cell"}
        check(not cellatts or topo.get("TopologyType") in meshtopo, f"snapshot {k}: cell attributes on a grid")
        if topo.get("TopologyType") in meshtopo:
            check_cell_attributes(h5files[full], cellatts, k, T.shape[0])
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


def cauchy(material, F, a):
    """The Cauchy stress of the solid's materials at F, from their energies' closed forms
    (docs/solid.md), with the moduli of the file's attributes a"""
    E, nu = float(a["E"]), float(a["nu"])
    mu, lam = E / (2 * (1 + nu)), E * nu / ((1 + nu) * (1 - 2 * nu))
    I = np.eye(3)
    J = np.linalg.det(F)
    B = F @ F.T
    if material == "linear":  # the small-strain stress
        eps = 0.5 * (F + F.T) - I
        return lam * np.trace(eps) * I + 2 * mu * eps
    if material == "svk":
        Eg = 0.5 * (F.T @ F - I)
        return F @ (lam * np.trace(Eg) * I + 2 * mu * Eg) @ F.T / J
    if material == "neohookean":
        return (mu * (B - I) + lam * np.log(J) * I) / J
    kappa = float(a["kappa"])
    c1, c2 = (mu / 2, 0.0) if material == "neohookean_split" else (float(a["c1"]), float(a["c2"]))
    # W = c1 (J^-2/3 I1 - 3) + c2 (J^-4/3 I2 - 3) + kappa/4 (J^2 - 1 - 2 ln J)
    Bb = J ** (-2.0 / 3) * B
    I1b = np.trace(Bb)
    dev = lambda A: A - np.trace(A) / 3 * I
    return 2 / J * dev((c1 + c2 * I1b) * Bb - c2 * Bb @ Bb) + kappa / 2 * (J - 1 / J) * I


def check_stress(args):
    """/fields/stress, von_mises and J of the solid against the closed forms, cell by cell, at every
    snapshot: F of each tetrahedron from /mesh and /fields/q (so the cells must be in the order of
    /mesh/tetrahedra), sigma, sqrt(3/2 s:s) of its deviator, det F. With --F, snapshot 0 must be
    that uniform deformation and its stresses those of F itself; with --uniaxial EPS (linear
    material, F = diag(1 + EPS, 1 - nu EPS, 1 - nu EPS)) sigma = diag(E EPS, 0, 0)."""
    with h5py.File(args.file, "r") as f:
        a = f.attrs
        material = text(a["material"])
        X, T = dataset(f, "mesh/vertices")[:], dataset(f, "mesh/tetrahedra")[:]
        q = dataset(f, "fields/q")[:]
        S, VM, JJ = dataset(f, "fields/stress")[:], dataset(f, "fields/von_mises")[:], dataset(f, "fields/J")[:]
        E = float(a["E"])
        Dm = np.transpose(X[T[:, 1:]] - X[T[:, :1]], (0, 2, 1))
        Dminv = np.linalg.inv(Dm)
        worst = 0.0
        for k in range(q.shape[0]):
            Ds = np.transpose(q[k][T[:, 1:]] - q[k][T[:, :1]], (0, 2, 1))
            Fs = Ds @ Dminv
            if k == 0 and args.F:
                F0 = np.array(args.F).reshape(3, 3)
                check(np.max(np.abs(Fs - F0)) < 1e-13, f"snapshot 0 is not the uniform deformation F (max |F_cell - F| = {np.max(np.abs(Fs - F0)):.3g})")
                Fs = np.broadcast_to(F0, Fs.shape)
            sig = np.array([cauchy(material, Fc, a) for Fc in Fs])
            voigt = np.stack([sig[:, 0, 0], sig[:, 1, 1], sig[:, 2, 2], sig[:, 1, 2], sig[:, 0, 2], sig[:, 0, 1]], axis=1)
            dev = sig - np.trace(sig, axis1=1, axis2=2)[:, None, None] / 3 * np.eye(3)
            vm = np.sqrt(1.5 * np.einsum("cij,cij->c", dev, dev))
            # the exact F: relative to the stress; F of the snapshot's positions (rounding of about
            # 1e-16 |F|): relative to the modulus E
            scale = max(float(np.max(np.abs(voigt))), 1e-300) if (k == 0 and args.F) else E
            err = max(np.max(np.abs(S[k] - voigt)), np.max(np.abs(VM[k] - vm))) / scale
            errJ = np.max(np.abs(JJ[k] - np.linalg.det(Fs)))
            check(err <= args.tol, f"snapshot {k}: the stresses differ from the closed form ({material}) by {err:.3g} > {args.tol:g} (relative)")
            check(errJ <= 1e-13, f"snapshot {k}: J differs from det F by {errJ:.3g}")
            worst = max(worst, err)
            if k == 0 and args.uniaxial is not None:
                e = args.uniaxial
                check(material == "linear", "--uniaxial is for the linear material")
                want = np.zeros(6)
                want[0] = E * e
                check(np.max(np.abs(S[0] - want)) <= 1e-10 * E * e, f"uniaxial: sigma is {S[0][np.argmax(np.max(np.abs(S[0] - want), axis=1))]}, expected E eps = {E * e:.17g} along x only")
                check(np.max(np.abs(VM[0] - E * e)) <= 1e-10 * E * e, "uniaxial: the von Mises stress is not E eps")
                print(f"uniaxial bar: sigma_xx = E eps = {E * e:.6g} in all {S.shape[1]} cells (max error {np.max(np.abs(S[0] - want)) / (E * e):.2g} relative)")
    print(f"{args.file}: stress, von_mises and J of {S.shape[1]} cells at {S.shape[0]} snapshots equal the closed form ({material}) to {worst:.2g}")


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
    p.add_argument("--cell-fields", nargs="+", default=[], help="per-cell fields NAME:NCOMP, [nsnap, nc(, ncomp)]")
    p.add_argument("--text", nargs="+", default=[], help="text parameters NAME=VALUE")
    p.set_defaults(fn=check_layout)
    p = sub.add_parser("compare")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--tol", type=float, default=1e-12)
    p.add_argument("--only", nargs="+", help="compare these datasets only")
    p.set_defaults(fn=check_compare)
    p = sub.add_parser("stress")
    p.add_argument("file")
    p.add_argument("--F", type=lambda s: [float(x) for x in s.split(",")], help="the uniform deformation gradient of snapshot 0, row-major")
    p.add_argument("--uniaxial", type=float, help="snapshot 0 is a uniaxial stretch EPS of the linear material")
    p.add_argument("--tol", type=float, default=1e-12)
    p.set_defaults(fn=check_stress)
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
