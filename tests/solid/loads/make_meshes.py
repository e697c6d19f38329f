#!/usr/bin/python3
"""Writes the meshes of the load tests (tests/solid/test_loads.c) with Gmsh's Python module (4.8):

  bar.msh            the bar [0, 1] x [0, 0.2] x [0, 0.2], size 0.1, physical surfaces "left" (x = 0)
                     and "right" (x = 1), volume "body"
  sphere_hH.msh      the hollow sphere a = 1 < r < b = 1.5, sizes H = 0.35, 0.25, 0.18 (and finer
                     ones with -fine: 0.125, 0.09, for the table of docs/solid.md), physical
                     surfaces "inner" and "outer", volume "body"

  make_meshes.py DIR [-fine]

Gmsh is not a dependency of tsmech: the meshes are committed; this script says how they were made.
Format 2.2 ASCII, coordinates with 16 digits.
"""
import sys

import gmsh


def start(name):
    gmsh.initialize()
    gmsh.option.setNumber("General.Terminal", 0)
    gmsh.option.setNumber("Mesh.MshFileVersion", 2.2)
    gmsh.option.setNumber("Mesh.Binary", 0)
    gmsh.model.add(name)


def bar(path):
    start("bar")
    v = gmsh.model.occ.addBox(0, 0, 0, 1, 0.2, 0.2)
    gmsh.model.occ.synchronize()
    left, right = [], []
    for dim, tag in gmsh.model.getBoundary([(3, v)], oriented=False):
        x = gmsh.model.occ.getCenterOfMass(dim, tag)[0]
        if abs(x) < 1e-9:
            left.append(tag)
        elif abs(x - 1) < 1e-9:
            right.append(tag)
    gmsh.model.addPhysicalGroup(2, left, 1)
    gmsh.model.setPhysicalName(2, 1, "left")
    gmsh.model.addPhysicalGroup(2, right, 2)
    gmsh.model.setPhysicalName(2, 2, "right")
    gmsh.model.addPhysicalGroup(3, [v], 3)
    gmsh.model.setPhysicalName(3, 3, "body")
    gmsh.option.setNumber("Mesh.MeshSizeMax", 0.1)
    gmsh.model.mesh.generate(3)
    gmsh.write(path)
    gmsh.finalize()


def sphere(path, h, a=1.0, b=1.5):
    start("sphere")
    outer = gmsh.model.occ.addSphere(0, 0, 0, b)
    inner = gmsh.model.occ.addSphere(0, 0, 0, a)
    shell, _ = gmsh.model.occ.cut([(3, outer)], [(3, inner)])
    gmsh.model.occ.synchronize()
    vol = shell[0][1]
    ins, outs = [], []
    for dim, tag in gmsh.model.getBoundary([(3, vol)], oriented=False):
        bb = gmsh.model.getBoundingBox(dim, tag)
        (ins if bb[3] - bb[0] < 2 * a + 1e-6 else outs).append(tag)
    gmsh.model.addPhysicalGroup(2, ins, 1)
    gmsh.model.setPhysicalName(2, 1, "inner")
    gmsh.model.addPhysicalGroup(2, outs, 2)
    gmsh.model.setPhysicalName(2, 2, "outer")
    gmsh.model.addPhysicalGroup(3, [vol], 3)
    gmsh.model.setPhysicalName(3, 3, "body")
    gmsh.option.setNumber("Mesh.MeshSizeMin", h)
    gmsh.option.setNumber("Mesh.MeshSizeMax", h)
    gmsh.option.setNumber("Mesh.MeshSizeFromCurvature", 0)
    gmsh.model.mesh.generate(3)
    gmsh.write(path)
    gmsh.finalize()


if __name__ == "__main__":
    d = sys.argv[1]
    bar(d + "/bar.msh")
    for h in ["0.35", "0.25", "0.18"] + (["0.125", "0.09"] if "-fine" in sys.argv else []):
        sphere(d + "/sphere_h" + h + ".msh", float(h))
