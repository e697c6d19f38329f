#!/usr/bin/python3
"""Binary Gmsh 4.0 files from ASCII ones: Gmsh 4.8 writes format 4.0 only in ASCII, and binary 4.0
files (written by Gmsh 4.0, as PETSc's share/petsc/datafiles/meshes/gmsh-3d-binary.msh4) exist.

  msh40_binary.py IN.msh OUT.msh

The layout of format 4.0's binary sections (little-endian; "long" is the data size of
$MeshFormat, 8): $Entities: 4 longs (the counts), then per entity its tag (int), a box of 6
doubles, its physical tags (a long and ints) and, for curves, surfaces and volumes, its bounding
entities (a long and ints); $Nodes: 2 longs (blocks, nodes), per block its entity's tag, dimension
and parametric flag (ints) and count (long), per node its tag (int), x, y, z and parameters
(doubles); $Elements: 2 longs, per block its entity's tag, dimension and element type (ints) and
count (long), per element its tag and nodes (ints). Each binary section ends with a newline before
its $End line; $MeshFormat gets the marker 1 (an int) after its line; other sections stay ASCII.
"""
import struct
import sys

NNODES = {15: 1, 1: 2, 8: 3, 2: 3, 9: 6, 3: 4, 10: 9, 4: 4, 11: 10, 5: 8, 12: 27}


def convert(lines):
    out = bytearray()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line == "$MeshFormat":
            out += b"$MeshFormat\n4 1 8\n" + struct.pack("<i", 1) + b"\n$EndMeshFormat\n"
            i += 3
            continue
        if line not in ("$Entities", "$Nodes", "$Elements"):
            out += (line + "\n").encode()
            i += 1
            continue
        end = lines.index("$End" + line[1:], i)
        words = " ".join(lines[i + 1 : end]).split()
        pos = 0

        def take(n=1):
            nonlocal pos
            pos += n
            return words[pos - n : pos]

        data = bytearray()
        if line == "$Entities":
            counts = [int(w) for w in take(4)]
            data += struct.pack("<4Q", *counts)
            for d, c in enumerate(counts):
                for _ in range(c):
                    data += struct.pack("<i", int(take()[0]))
                    data += struct.pack("<6d", *map(float, take(6)))
                    nphys = int(take()[0])
                    data += struct.pack("<Q", nphys) + struct.pack("<%di" % nphys, *map(int, take(nphys)))
                    if d:
                        nb = int(take()[0])
                        data += struct.pack("<Q", nb) + struct.pack("<%di" % nb, *map(int, take(nb)))
        elif line == "$Nodes":
            nblocks, n = map(int, take(2))
            data += struct.pack("<2Q", nblocks, n)
            for _ in range(nblocks):
                tag, dim, par, m = map(int, take(4))
                data += struct.pack("<3iQ", tag, dim, par, m)
                for _ in range(m):
                    data += struct.pack("<i", int(take()[0]))
                    data += struct.pack("<%dd" % (3 + (dim if par else 0)), *map(float, take(3 + (dim if par else 0))))
        else:
            nblocks, n = map(int, take(2))
            data += struct.pack("<2Q", nblocks, n)
            for _ in range(nblocks):
                tag, dim, typ, m = map(int, take(4))
                data += struct.pack("<3iQ", tag, dim, typ, m)
                for _ in range(m):
                    data += struct.pack("<%di" % (1 + NNODES[typ]), *map(int, take(1 + NNODES[typ])))
        assert pos == len(words), f"{line}: {len(words) - pos} numbers left over"
        out += (line + "\n").encode() + data + b"\n" + ("$End" + line[1:] + "\n").encode()
        i = end + 1
    return bytes(out)


if __name__ == "__main__":
    src, dst = sys.argv[1:3]
    with open(src) as f:
        lines = f.read().rstrip("\n").split("\n")
    assert lines[1].split()[:2] == ["4", "0"], f"{src} is not an ASCII file of format 4.0"
    with open(dst, "wb") as f:
        f.write(convert(lines))
