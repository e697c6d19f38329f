#!/usr/bin/python3
"""Damaged variants of the committed Gmsh meshes, for test_meshes (tests/solid/meson.build).

  make_corpus.py MESHDIR OUTDIR

Writes OUTDIR/*.msh and OUTDIR/manifest.txt, one line per file: name, TAB, what the reader must
do (refuse: one line naming the file that contains the text after the second TAB; accept; either:
a truncation after the last section, which may still be a whole mesh), TAB, the expected text.
Families (the first word of each name): trunc (cut at many offsets), count (a section's count
huge, negative or one off), tag (a node tag negative; a huge one with its references, accepted),
ref (an element's node negative or undefined), coord (NaN, Inf), repeat (a node twice in a
tetrahedron), missing (a node line removed), ntags (an element with 100 000 000 tags), entity (a
node or element block of an undeclared entity), type (a 10-node tetrahedron or a hexahedron among
linear tetrahedra, an unknown type), endian (the binary marker swapped). The quadratic and
hexahedral meshes (cyl_tet10_*, hex8_*, hex27_*) get the same families, and shape (a cell
inverted, distorted by an edge node moved near a corner, degenerate by a corner moved onto
another), kind (a prism, a pyramid, a 20-node hexahedron, a linear cell among quadratic ones) and
face (a quadrangle or triangle whose corners are no face of the cells).
"""
import os
import struct
import sys

MESHDIR, OUT = sys.argv[1:3]
os.makedirs(OUT, exist_ok=True)
for f in os.listdir(OUT):
    os.remove(os.path.join(OUT, f))
manifest = []


def emit(name, data, mode, text=""):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    manifest.append("%s\t%s\t%s" % (name, mode, text))


def load(name):
    return open(os.path.join(MESHDIR, name), "rb").read()


def truncations(base, data):
    """Cut at 40 offsets spread over the file and one byte either side of every section marker"""
    end = data.index(b"$EndElements") + len(b"$EndElements")
    offs = set(range(0, len(data), max(1, len(data) // 40)))
    p = data.find(b"$")
    while p >= 0:
        offs.update([p - 1, p, p + 1])
        p = data.find(b"$", p + 1)
    for k, o in enumerate(sorted(x for x in offs if 0 <= x < len(data))):
        emit("trunc_%s_%05d.msh" % (base, o), data[:o], "refuse" if o < end else "either", "")


# nodes per element of the Gmsh types in the meshes
NNODES = {15: 1, 1: 2, 8: 3, 2: 3, 9: 6, 3: 4, 10: 9, 4: 4, 11: 10, 5: 8, 12: 27}
CELLS = (4, 11, 5, 12)


def lines22(data):
    return data.decode().split("\n")


def ascii22(base, data):
    L = lines22(data)
    i, j = L.index("$Nodes"), L.index("$Elements")
    nn, ne = int(L[i + 1]), int(L[j + 1])
    tets = [k for k in range(j + 2, j + 2 + ne) if int(L[k].split()[1]) in CELLS]
    t0 = tets[0]

    def out(name, M, mode, text):
        emit("%s_%s.msh" % (name, base), "\n".join(M).encode(), mode, text)

    def edit(k, f):
        M = list(L)
        M[k] = f(M[k].split())
        return M

    for v, text in [("999999999999", "cannot hold them"), ("-5", "negative"), (str(nn - 1), ""), (str(nn + 1), "")]:
        M = list(L)
        M[i + 1] = v
        out("count_nodes%s" % v.replace("-", "m"), M, "refuse", text)
    for v, text in [("999999999999", "cannot hold them"), ("-5", "negative"), (str(ne + 1), "")]:
        M = list(L)
        M[j + 1] = v
        out("count_elements%s" % v.replace("-", "m"), M, "refuse", text)
    out("tag_negative", edit(i + 2, lambda w: " ".join(["-3"] + w[1:])), "refuse", "")
    # a huge but consistent node tag: a valid file, read at once
    old = L[i + 2].split()[0]
    M = list(L)
    M[i + 2] = " ".join(["2000000000"] + L[i + 2].split()[1:])
    for k in range(j + 2, j + 2 + ne):
        w = M[k].split()
        nt = int(w[2])
        M[k] = " ".join(w[:3 + nt] + ["2000000000" if x == old else x for x in w[3 + nt:]])
    out("tag_huge", M, "accept", "")
    M = list(L)
    M[i + 3] = " ".join([L[i + 2].split()[0]] + L[i + 3].split()[1:])
    out("tag_twice", M, "refuse", "appears twice")
    for v, text in [("-4", "refers to node -4"), ("99999", "refers to node 99999"), ("0", "refers to node 0")]:
        out("ref_%s" % v.replace("-", "m"), edit(t0, lambda w: " ".join(w[:-1] + [v])), "refuse", text)
    node = L[t0].split()[-1]
    nk = [k for k in range(i + 2, i + 2 + nn) if L[k].split()[0] == node][0]
    for v in ["nan", "inf", "-inf", "NaN"]:
        out("coord_%s" % v.replace("-", "m"), edit(nk, lambda w: " ".join(w[:2] + [v] + w[3:])), "refuse", "node %s has a coordinate that is not a finite number" % node)
    out("repeat", edit(t0, lambda w: " ".join(w[:-1] + [w[-2]])), "refuse", "twice")
    M = list(L)
    del M[nk]
    M[i + 1] = str(nn - 1)
    out("missing", M, "refuse", "refers to node %s, which $Nodes does not define" % node)
    out("ntags", edit(t0, lambda w: " ".join(w[:2] + ["100000000"] + w[3:])), "refuse", "tags for one element")
    others = [x.split()[0] for x in L[i + 2:i + 8]]
    if L[t0].split()[1] == "4":
        out("type_tet10", edit(t0, lambda w: " ".join([w[0], "11"] + w[2:] + others)), "refuse", "mixed cells")
        out("type_hex", edit(t0, lambda w: " ".join([w[0], "5"] + w[2:] + others[:4])), "refuse", "mixed cells")
    out("type_unknown", edit(t0, lambda w: " ".join([w[0], "77"] + w[2:])), "refuse", "unknown Gmsh element type 77")
    out("format_30", [x.replace("2.2 0 8", "3 0 8") for x in L], "refuse", "Gmsh format 3")


def ascii41(base, data):
    L = lines22(data)
    i, j = L.index("$Nodes"), L.index("$Elements")
    h = L[i + 1].split()
    M = list(L)
    M[i + 1] = " ".join([h[0], "1099511627776"] + h[2:])
    emit("count_nodes40_%s.msh" % base, "\n".join(M).encode(), "refuse", "cannot hold them")
    M = list(L)
    b = L[i + 2].split()
    M[i + 2] = " ".join([b[0], "999"] + b[2:])
    emit("entity_nodes_%s.msh" % base, "\n".join(M).encode(), "refuse", "names entity (dimension %s, tag 999), which $Entities does not declare" % b[0])
    M = list(L)
    b = L[j + 2].split()
    M[j + 2] = " ".join([b[0], "999"] + b[2:])
    emit("entity_elements_%s.msh" % base, "\n".join(M).encode(), "refuse", "which $Entities does not declare")
    M = [x for x in L]
    e0, e1 = L.index("$Entities"), L.index("$EndEntities")
    del M[e0:e1 + 1]
    emit("entity_none_%s.msh" % base, "\n".join(M).encode(), "refuse", "no $Entities section comes before")
    M = list(L)
    h = L[j + 1].split()
    M[j + 1] = " ".join([h[0], "-7"] + h[2:])
    emit("count_elementsm7_%s.msh" % base, "\n".join(M).encode(), "refuse", "negative")


def binary41(base, data):
    i = data.index(b"$Nodes\n") + 7
    d = bytearray(data)
    d[i + 8:i + 16] = struct.pack("<Q", 1 << 40)
    emit("count_nodes40_%s.msh" % base, bytes(d), "refuse", "cannot hold them")
    d = bytearray(data)
    d[i + 8:i + 16] = struct.pack("<Q", (1 << 64) - 5)
    emit("count_nodesm5_%s.msh" % base, bytes(d), "refuse", "too large")
    d = bytearray(data)
    d[i:i + 8] = struct.pack("<Q", 1 << 40)
    emit("count_blocks40_%s.msh" % base, bytes(d), "refuse", "cannot hold them")
    d = bytearray(data)
    d[i + 32 + 4:i + 32 + 8] = struct.pack("<i", 999)
    emit("entity_nodes_%s.msh" % base, bytes(d), "refuse", "which $Entities does not declare")
    # the first block of tetrahedra: one node reference made -4 (as size_t: huge), one undefined
    j = data.index(b"$Elements\n") + 10
    p = j + 32
    while True:
        dim, tag, typ = struct.unpack("<iii", data[p:p + 12])
        n = struct.unpack("<Q", data[p + 12:p + 20])[0]
        nn = NNODES[typ]
        if typ in CELLS:
            break
        p += 20 + n * (1 + nn) * 8
    d = bytearray(data)
    d[p + 4:p + 8] = struct.pack("<i", 999)
    emit("entity_elements_%s.msh" % base, bytes(d), "refuse", "which $Entities does not declare")
    e = p + 20
    for name, v, text in [("ref_m4", (1 << 64) - 4, "too large"), ("ref_99999", 99999, "refers to node 99999")]:
        d = bytearray(data)
        d[e + 8:e + 16] = struct.pack("<Q", v)
        emit("%s_%s.msh" % (name, base), bytes(d), "refuse", text)
    d = bytearray(data)
    d[e + 16:e + 24] = d[e + 8:e + 16]
    emit("repeat_%s.msh" % base, bytes(d), "refuse", "twice")
    if typ == 4:
        d = bytearray(data)
        d[p + 8:p + 12] = struct.pack("<i", 11)
        emit("type_tet10_%s.msh" % base, bytes(d), "refuse", "")
    # the coordinates of the first node
    n0 = struct.unpack("<Q", data[i + 32 + 12:i + 32 + 20])[0]
    c = i + 32 + 20 + 8 * n0
    for name, v in [("nan", float("nan")), ("inf", float("inf"))]:
        d = bytearray(data)
        d[c:c + 8] = struct.pack("<d", v)
        emit("coord_%s_%s.msh" % (name, base), bytes(d), "refuse", "is not a finite number")
    k = data.index(b"\n", data.index(b"$MeshFormat")) + 1
    k = data.index(b"\n", k) + 1
    d = bytearray(data)
    d[k:k + 4] = struct.pack(">i", 1)
    emit("endian_%s.msh" % base, bytes(d), "refuse", "other byte order")


def binary22(base, data):
    i = data.index(b"$Nodes\n") + 7
    eol = data.index(b"\n", i)
    nn = int(data[i:eol])
    for name, v, text in [("count_nodes_huge", b"999999999999", "cannot hold them"), ("count_nodes_m5", b"-5", "negative")]:
        emit("%s_%s.msh" % (name, base), data[:i] + v + data[eol:], "refuse", text)
    first = eol + 1
    d = bytearray(data)
    d[first:first + 4] = struct.pack("<i", -3)
    emit("tag_negative_%s.msh" % base, bytes(d), "refuse", "is not positive")
    j = data.index(b"$Elements\n") + 10
    eol = data.index(b"\n", j)
    p = eol + 1
    while True:
        typ, nf, nt = struct.unpack("<iii", data[p:p + 12])
        nn_ = NNODES[typ]
        if typ in CELLS:
            break
        p += 12 + nf * (1 + nt + nn_) * 4
    d = bytearray(data)
    d[p + 8:p + 12] = struct.pack("<i", 100000000)
    emit("ntags_%s.msh" % base, bytes(d), "refuse", "tags for one element")
    d = bytearray(data)
    d[p + 4:p + 8] = struct.pack("<i", 1 << 30)
    emit("count_block_%s.msh" % base, bytes(d), "refuse", "")
    e = p + 12 + (1 + nt) * 4
    for name, v, text in [("ref_m4", -4, "refers to node -4"), ("ref_99999", 99999, "refers to node 99999")]:
        d = bytearray(data)
        d[e:e + 4] = struct.pack("<i", v)
        emit("%s_%s.msh" % (name, base), bytes(d), "refuse", text)
    d = bytearray(data)
    d[e + 4:e + 8] = d[e:e + 4]
    emit("repeat_%s.msh" % base, bytes(d), "refuse", "twice")
    c = first + 4
    d = bytearray(data)
    d[c:c + 8] = struct.pack("<d", float("nan"))
    emit("coord_nan_%s.msh" % base, bytes(d), "refuse", "is not a finite number")


def shapes22(base, data):
    """Cells of a quadratic or hexahedral mesh of format 2.2 ASCII damaged in shape or kind"""
    L = lines22(data)
    i, j = L.index("$Nodes"), L.index("$Elements")
    nn, ne = int(L[i + 1]), int(L[j + 1])
    node = {L[k].split()[0]: k for k in range(i + 2, i + 2 + nn)}
    els = [L[k].split() for k in range(j + 2, j + 2 + ne)]
    cells = [k for k in range(ne) if int(els[k][1]) in CELLS]
    c = cells[0]
    w = els[c]
    typ, nt = int(w[1]), int(w[2])
    head, nodes = w[:3 + nt], w[3 + nt:]
    tag = w[0]

    def out(name, M, mode, text):
        emit("%s_%s.msh" % (name, base), "\n".join(M).encode(), mode, text)

    def with_cell(nodes2, typ2=None):
        M = list(L)
        h = list(head)
        if typ2 is not None:
            h[1] = str(typ2)
        M[j + 2 + c] = " ".join(h + nodes2)
        return M

    def xyz(t):
        return [float(x) for x in L[node[t]].split()[1:4]]

    def moved(M, t, x):
        M = list(M)
        M[node[t]] = "%s %.17g %.17g %.17g" % (t, x[0], x[1], x[2])
        return M

    # inverted: the mirror image of the first cell (its nodes permuted, Gmsh's order kept)
    mirror = {4: [0, 2, 1, 3], 11: [0, 2, 1, 3, 6, 5, 4, 7, 9, 8], 5: [4, 5, 6, 7, 0, 1, 2, 3],
              12: [4, 5, 6, 7, 0, 1, 2, 3, 16, 17, 10, 18, 12, 19, 14, 15, 8, 9, 11, 13, 25, 21, 22, 23, 24, 20, 26]}[typ]
    out("shape_inverted", with_cell([nodes[m] for m in mirror]), "refuse", "1 inverted (negative-volume)")
    # degenerate: every node of the first cell projected onto the plane of its corners 0, 1, 2
    p0, p1, p2 = xyz(nodes[0]), xyz(nodes[1]), xyz(nodes[2])
    u = [p1[k] - p0[k] for k in range(3)]
    v = [p2[k] - p0[k] for k in range(3)]
    n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
    nn2 = sum(x * x for x in n)
    M = L
    for t in nodes:
        x = xyz(t)
        d = sum((x[k] - p0[k]) * n[k] for k in range(3)) / nn2
        M = moved(M, t, [x[k] - d * n[k] for k in range(3)])
    out("shape_degenerate", M, "refuse", "degenerate (zero-volume)")
    if typ in (11, 12):
        # distorted: the edge node of edge (0, 1) moved to 5 % of the edge from corner 0
        a, b = xyz(nodes[0]), xyz(nodes[1])
        e = nodes[4 if typ == 11 else 8]
        out("shape_distorted", moved(L, e, [a[k] + 0.05 * (b[k] - a[k]) for k in range(3)]), "refuse", "distorted")
        # a linear cell among quadratic ones: mixed
        out("kind_mixed", with_cell(nodes[:4 if typ == 11 else 8], 4 if typ == 11 else 5), "refuse", "mixed cells")
    if typ in (5, 12):
        out("kind_prism", with_cell(nodes[:6], 6), "refuse", "element %s, is a prism, Gmsh element type 6" % tag)
        out("kind_pyramid", with_cell(nodes[:5], 7), "refuse", "is a pyramid")
        if typ == 12:
            out("kind_hex20", with_cell(nodes[:20], 17), "refuse", "is a 20-node hexahedron")
    else:
        out("kind_hex", with_cell(nodes[:8] if len(nodes) >= 8 else nodes + nodes[:8 - len(nodes)], 5), "refuse", "")
    # a boundary element whose corners are cell corners but no face: the first face element's
    # corners replaced by corners of the first cell that span its interior
    f = [k for k in range(ne) if int(els[k][1]) in (2, 9, 3, 10)][0]
    fw = els[f]
    fnt, ftyp = int(fw[2]), int(fw[1])
    fn = fw[3 + fnt:]
    corners = {4: [0, 1, 2], 11: [0, 1, 2], 5: [0, 1, 6, 7], 12: [0, 1, 6, 7]}[typ]
    if ftyp in (2, 9):
        new = [nodes[k] for k in corners[:3]] + fn[3:]
    else:
        new = [nodes[k] for k in corners] + fn[4:]
    M = list(L)
    if ftyp in (2, 9):
        # a triangle through a tetrahedron's corners 0, 1, 2 is its face: take 0, 1 and a far corner
        # of the next cell not on that face
        other = [x for x in els[cells[1]][3 + nt:][:4] if x not in nodes[:4]]
        new = [nodes[0], nodes[1], other[0] if other else nodes[3]] + fn[3:]
    M[j + 2 + f] = " ".join(fw[:3 + fnt] + new)
    out("face_notaface", M, "refuse", "is not one of their faces" if ftyp in (3, 10) else "")


for f, kind in [("box_msh22.msh", ascii22), ("box_msh41.msh", ascii41), ("box_msh41_bin.msh", binary41), ("box_msh22_bin.msh", binary22)]:
    data = load(f)
    base = f[4:-4]
    truncations(base, data)
    kind(base, data)
# the quadratic and hexahedral meshes
for f, kinds in [("cyl_tet10_msh22.msh", [ascii22, shapes22]), ("cyl_tet10_msh41_bin.msh", [binary41]), ("hex8_msh22.msh", [ascii22, shapes22]),
                 ("hex27_msh22.msh", [ascii22, shapes22]), ("hex27_msh41.msh", [ascii41]), ("hex27_msh41_bin.msh", [binary41]),
                 ("hex27_msh22_bin.msh", [binary22]), ("cyl_tet10_msh22_bin.msh", [binary22])]:
    data = load(f)
    base = f[:-4]
    if f in ("cyl_tet10_msh41_bin.msh", "hex27_msh22.msh"):
        truncations(base, data)
    for kind in kinds:
        kind(base, data)
with open(os.path.join(OUT, "manifest.txt"), "w") as f:
    f.write("\n".join(manifest) + "\n")
print("make_corpus.py: %d files in %s" % (len(manifest), OUT))
