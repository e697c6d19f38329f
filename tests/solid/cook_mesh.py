#!/usr/bin/python3
"""Writes Cook's membrane as a Gmsh 2.2 ASCII mesh (no Gmsh needed):

  cook_mesh.py N FILE [tet | tet10 | hex | hex27]

The trapezoid (0, 0), (48, 44), (48, 60), (0, 44) (mm), 1 mm thick (0 <= z <= 1), one layer of
N x N quadrilateral prisms (the bilinear map of the unit square).
tet (the default): each prism split into the 6 tetrahedra around its diagonal from its corner
(0, 0, 0) to (1, 1, 1) (Kuhn: conforming), the boundary triangles of the faces x = 0 and x = 48
split along the same diagonals. tet10: the same with a node at the midpoint of every edge (10-node
tetrahedra, 6-node triangles). hex, hex27: the prisms as 8- or 27-node hexahedra (their nodes at
the bilinear map of the half-integer grid points: straight, exactly the trilinear cells), 4- or
9-node quadrangles on x = 0 and x = 48. Nodes in Gmsh's order (src/models/solid/gmsh.h).
Physical groups: surfaces "clamp" (x = 0, tag 1) and "load" (x = 48, tag 2), volume "body" (tag 3).
"""
import sys

P = [(0.0, 0.0), (48.0, 44.0), (48.0, 60.0), (0.0, 44.0)]
# Gmsh's reference hexahedron (the node order of types 5 and 12)
HEXREF = [(-1, -1, -1), (1, -1, -1), (1, 1, -1), (-1, 1, -1), (-1, -1, 1), (1, -1, 1), (1, 1, 1), (-1, 1, 1),
          (0, -1, -1), (-1, 0, -1), (-1, -1, 0), (1, 0, -1), (1, -1, 0), (0, 1, -1), (1, 1, 0), (-1, 1, 0),
          (0, -1, 1), (-1, 0, 1), (1, 0, 1), (0, 1, 1), (0, 0, -1), (0, -1, 0), (-1, 0, 0), (1, 0, 0), (0, 1, 0),
          (0, 0, 1), (0, 0, 0)]
# the edges of the 10-node tetrahedron (its nodes 4..9) and of the 6-node triangle (3..5)
TET10 = [(0, 1), (1, 2), (2, 0), (3, 0), (3, 2), (3, 1)]
TRI6 = [(0, 1), (1, 2), (2, 0)]


def point(xi, eta):
    """Cook's trapezoid: the bilinear map of the unit square"""
    x = (1 - xi) * (1 - eta) * P[0][0] + xi * (1 - eta) * P[1][0] + xi * eta * P[2][0] + (1 - xi) * eta * P[3][0]
    y = (1 - xi) * (1 - eta) * P[0][1] + xi * (1 - eta) * P[1][1] + xi * eta * P[2][1] + (1 - xi) * eta * P[3][1]
    return x, y


def write(path, nodes, faces, cells, ftype, ctype):
    """nodes: coordinates (tag = index + 1); faces: (physical tag, nodes); cells: nodes (0-based)"""
    with open(path, "w") as f:
        f.write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n")
        f.write('$PhysicalNames\n3\n2 1 "clamp"\n2 2 "load"\n3 3 "body"\n$EndPhysicalNames\n')
        f.write("$Nodes\n%d\n" % len(nodes))
        for t, (x, y, z) in enumerate(nodes):
            f.write("%d %.16g %.16g %.16g\n" % (t + 1, x, y, z))
        f.write("$EndNodes\n$Elements\n%d\n" % (len(faces) + len(cells)))
        e = 0
        for tag, t in faces:
            e += 1
            f.write("%d %d 2 %d %d %s\n" % (e, ftype, tag, tag, " ".join(str(x + 1) for x in t)))
        for t in cells:
            e += 1
            f.write("%d %d 2 3 3 %s\n" % (e, ctype, " ".join(str(x + 1) for x in t)))
        f.write("$EndElements\n")


def hexahedra(nx, ny, path, order, point=point, dz=1.0, z0=0.0):
    """nx x ny hexahedra of the map point(xi, eta) of the unit square, dz thick from z0"""
    mx, my = 2 * nx, 2 * ny  # the grid of half cells
    node = lambda I, J, K: I + (mx + 1) * (J + (my + 1) * K)  # noqa: E731
    nodes = []
    for K in range(3):
        for J in range(my + 1):
            for I in range(mx + 1):
                x, y = point(I / mx, J / my)
                nodes.append((x, y, z0 + dz * K / 2))
    nn = 8 if order == 1 else 27
    cells = [[node(2 * i + 1 + r[0], 2 * j + 1 + r[1], 1 + r[2]) for r in HEXREF[:nn]] for j in range(ny) for i in range(nx)]
    # the quadrangles in (y, z): corners, then the edges' nodes, the centre (Gmsh's order of type 10)
    qref = [(-1, -1), (1, -1), (1, 1), (-1, 1), (0, -1), (1, 0), (0, 1), (-1, 0), (0, 0)][:4 if order == 1 else 9]
    faces = [(tag, [node(I, 2 * j + 1 + r[0], 1 + r[1]) for r in qref]) for j in range(ny) for I, tag in ((0, 1), (mx, 2))]
    used = sorted({t for c in cells for t in c} | {t for _, f in faces for t in f})
    renum = {t: k for k, t in enumerate(used)}
    write(path, [nodes[t] for t in used], [(tag, [renum[t] for t in f]) for tag, f in faces], [[renum[t] for t in c] for c in cells],
          3 if order == 1 else 10, 5 if order == 1 else 12)


def mesh(nx, ny, path, kind="tet", point=point, dz=1.0, z0=0.0):
    """One layer of nx x ny prisms of the map point(xi, eta) of the unit square, dz thick from z0, as kind"""
    if kind in ("hex", "hex27"):
        return hexahedra(nx, ny, path, 1 if kind == "hex" else 2, point, dz, z0)
    if kind not in ("tet", "tet10"):
        sys.exit("%s: the kind is tet, tet10, hex or hex27, not %s" % (sys.argv[0], kind))
    node = lambda i, j, k: i + (nx + 1) * (j + (ny + 1) * k)  # noqa: E731
    pts = []
    for k in range(2):
        for j in range(ny + 1):
            for i in range(nx + 1):
                x, y = point(i / nx, j / ny)
                pts.append((x, y, z0 + dz * k))
    perms = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    tets, tris = [], []
    for j in range(ny):
        for i in range(nx):
            for p in perms:
                c = [0, 0, 0]
                v = [node(i, j, 0)]
                for d in p:
                    c[d] += 1
                    v.append(node(i + c[0], j + c[1], c[2]))
                a, b, cc, d = (pts[t] for t in v)
                u = [b[m] - a[m] for m in range(3)]
                w = [cc[m] - a[m] for m in range(3)]
                s = [d[m] - a[m] for m in range(3)]
                det = u[0] * (w[1] * s[2] - w[2] * s[1]) - u[1] * (w[0] * s[2] - w[2] * s[0]) + u[2] * (w[0] * s[1] - w[1] * s[0])
                if det < 0:
                    v[1], v[2] = v[2], v[1]
                tets.append(v)
    for j in range(ny):
        for i, tag in ((0, 1), (nx, 2)):
            a, b, c, d = node(i, j, 0), node(i, j + 1, 0), node(i, j + 1, 1), node(i, j, 1)
            tris += [(tag, [a, b, c]), (tag, [a, c, d])]
    if kind == "tet":
        return write(path, pts, tris, tets, 2, 4)
    # 10-node tetrahedra: a node at the midpoint of every edge (straight edges), shared by key
    mid = {}

    def edge(a, b):
        key = (min(a, b), max(a, b))
        if key not in mid:
            mid[key] = len(pts)
            pts.append(tuple(0.5 * (pts[a][m] + pts[b][m]) for m in range(3)))
        return mid[key]

    cells = [v + [edge(v[a], v[b]) for a, b in TET10] for v in tets]
    faces = [(tag, v + [edge(v[a], v[b]) for a, b in TRI6]) for tag, v in tris]
    write(path, pts, faces, cells, 9, 11)


def main(n, path, kind="tet"):
    mesh(n, n, path, kind)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2], *sys.argv[3:4])
