#!/usr/bin/python3
"""Writes a bar of two materials as a Gmsh 2.2 ASCII mesh (no Gmsh needed):

  bar_mesh.py N FILE [tet | hex]

The bar [0, 1] x [0, 0.1] x [0, 0.1] of N x 2 x 2 boxes (N even), each split into the 6 tetrahedra
around its diagonal from (0,0,0) to (1,1,1) (Kuhn: conforming; tet, the default) or one 8-node
hexahedron (hex). Physical volumes "soft" (x < 0.5, tag 1) and "stiff" (x > 0.5, tag 2); nodes in
Gmsh's order, tetrahedra positively oriented ((1-0, 2-0, 3-0) right-handed).
"""
import itertools
import sys

import numpy as np

n, path, kind = int(sys.argv[1]), sys.argv[2], (sys.argv[3] if len(sys.argv) > 3 else "tet")
m = [n, 2, 2]
size = [1.0, 0.1, 0.1]


def node(i, j, k):
    return 1 + i + (m[0] + 1) * (j + (m[1] + 1) * k)


cells = []
for i, j, k in itertools.product(range(m[0]), range(m[1]), range(m[2])):
    tag = 1 if i < m[0] // 2 else 2
    corner = lambda a, b, c: node(i + a, j + b, k + c)
    if kind == "hex":
        cells.append((5, tag, [corner(0, 0, 0), corner(1, 0, 0), corner(1, 1, 0), corner(0, 1, 0), corner(0, 0, 1), corner(1, 0, 1), corner(1, 1, 1), corner(0, 1, 1)]))
        continue
    for perm in itertools.permutations(range(3)):
        p, pts = [0, 0, 0], [corner(0, 0, 0)]
        for d in perm:
            p[d] = 1
            pts.append(corner(*p))
        X = [np.array([(v - 1) % (m[0] + 1) * size[0] / m[0], (v - 1) // (m[0] + 1) % (m[1] + 1) * size[1] / m[1], (v - 1) // ((m[0] + 1) * (m[1] + 1)) * size[2] / m[2]]) for v in pts]
        if np.linalg.det(np.array([X[1] - X[0], X[2] - X[0], X[3] - X[0]])) < 0:
            pts[1], pts[2] = pts[2], pts[1]
        cells.append((4, tag, pts))
with open(path, "w") as f:
    f.write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n")
    f.write('$PhysicalNames\n2\n3 1 "soft"\n3 2 "stiff"\n$EndPhysicalNames\n')
    f.write("$Nodes\n%d\n" % ((m[0] + 1) * (m[1] + 1) * (m[2] + 1)))
    for k, j, i in itertools.product(range(m[2] + 1), range(m[1] + 1), range(m[0] + 1)):
        f.write("%d %.17g %.17g %.17g\n" % (node(i, j, k), i * size[0] / m[0], j * size[1] / m[1], k * size[2] / m[2]))
    f.write("$EndNodes\n$Elements\n%d\n" % len(cells))
    for e, (t, tag, pts) in enumerate(cells):
        f.write("%d %d 2 %d %d %s\n" % (e + 1, t, tag, tag, " ".join(map(str, pts))))
    f.write("$EndElements\n")
