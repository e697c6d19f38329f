#!/usr/bin/python3
"""Writes Cook's membrane as a Gmsh 2.2 ASCII mesh of linear tetrahedra (no Gmsh needed):

  cook_mesh.py N FILE

The trapezoid (0, 0), (48, 44), (48, 60), (0, 44) (mm), 1 mm thick (0 <= z <= 1), one layer of
N x N quadrilateral prisms (the bilinear map of the unit square), each split into the 6 tetrahedra
around its diagonal from its corner (0, 0, 0) to (1, 1, 1) (Kuhn: conforming), the boundary
triangles of the faces x = 0 and x = 48 split along the same diagonals. Physical groups: surfaces
"clamp" (x = 0, tag 1) and "load" (x = 48, tag 2), volume "body" (tag 3).
"""
import sys

P = [(0.0, 0.0), (48.0, 44.0), (48.0, 60.0), (0.0, 44.0)]


def point(xi, eta):
    x = (1 - xi) * (1 - eta) * P[0][0] + xi * (1 - eta) * P[1][0] + xi * eta * P[2][0] + (1 - xi) * eta * P[3][0]
    y = (1 - xi) * (1 - eta) * P[0][1] + xi * (1 - eta) * P[1][1] + xi * eta * P[2][1] + (1 - xi) * eta * P[3][1]
    return x, y


def main(n, path):
    node = lambda i, j, k: 1 + i + (n + 1) * (j + (n + 1) * k)  # noqa: E731
    nodes = []
    for k in range(2):
        for j in range(n + 1):
            for i in range(n + 1):
                x, y = point(i / n, j / n)
                nodes.append((node(i, j, k), x, y, float(k)))
    xyz = {t: (x, y, z) for t, x, y, z in nodes}
    perms = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    tets, tris = [], []
    for j in range(n):
        for i in range(n):
            for p in perms:
                c = [0, 0, 0]
                v = [node(i, j, 0)]
                for d in p:
                    c[d] += 1
                    v.append(node(i + c[0], j + c[1], c[2]))
                a, b, cc, d = (xyz[t] for t in v)
                u = [b[m] - a[m] for m in range(3)]
                w = [cc[m] - a[m] for m in range(3)]
                s = [d[m] - a[m] for m in range(3)]
                det = u[0] * (w[1] * s[2] - w[2] * s[1]) - u[1] * (w[0] * s[2] - w[2] * s[0]) + u[2] * (w[0] * s[1] - w[1] * s[0])
                if det < 0:
                    v[1], v[2] = v[2], v[1]
                tets.append(v)
    for j in range(n):
        for i, tag in ((0, 1), (n, 2)):
            a, b, c, d = node(i, j, 0), node(i, j + 1, 0), node(i, j + 1, 1), node(i, j, 1)
            tris += [(tag, (a, b, c)), (tag, (a, c, d))]
    with open(path, "w") as f:
        f.write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n")
        f.write('$PhysicalNames\n3\n2 1 "clamp"\n2 2 "load"\n3 3 "body"\n$EndPhysicalNames\n')
        f.write("$Nodes\n%d\n" % len(nodes))
        for t, x, y, z in nodes:
            f.write("%d %.16g %.16g %.16g\n" % (t, x, y, z))
        f.write("$EndNodes\n$Elements\n%d\n" % (len(tris) + len(tets)))
        e = 0
        for tag, t in tris:
            e += 1
            f.write("%d 2 2 %d %d %d %d %d\n" % (e, tag, tag, *t))
        for t in tets:
            e += 1
            f.write("%d 4 2 3 3 %d %d %d %d\n" % (e, *t))
        f.write("$EndElements\n")


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
