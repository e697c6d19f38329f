#!/usr/bin/python3
"""Hand-made variants of box_msh22.msh for the mesh-reader tests (make_meshes.sh runs this):

  box_comments.msh  $Comments sections before $MeshFormat and after $Elements, and an unknown
                    section ($TsmechNotes) in between: all skipped
  box_sparse.msh    node tags sparse (1000 t + 7, one of them 2e9), the nodes listed in a shuffled
                    order, five nodes that no element uses
  box_mixed.msh     as other meshers write format 2.2: the tetrahedra first, then triangles, lines
                    and points interleaved, element tags not consecutive, two tags per element
"""
import os

os.chdir(os.path.dirname(os.path.abspath(__file__)))
lines = open("box_msh22.msh").read().split("\n")
i = lines.index("$Nodes")
nn = int(lines[i + 1])
nodes = [l.split() for l in lines[i + 2:i + 2 + nn]]
j = lines.index("$Elements")
ne = int(lines[j + 1])
elems = [l.split() for l in lines[j + 2:j + 2 + ne]]
head = lines[:i]  # $MeshFormat and $PhysicalNames


def write(name, head, nodes, elems, pre="", post=""):
    with open(name, "w") as f:
        f.write(pre)
        f.write("\n".join(head) + "\n")
        f.write("$Nodes\n%d\n" % len(nodes) + "".join(" ".join(n) + "\n" for n in nodes) + "$EndNodes\n")
        f.write("$Elements\n%d\n" % len(elems) + "".join(" ".join(e) + "\n" for e in elems) + "$EndElements\n")
        f.write(post)


write("box_comments.msh", head[:3] + ["$TsmechNotes", "an unknown section: skipped", "$EndTsmechNotes"] + head[3:], nodes, elems,
      pre="$Comments\nwritten by hand: comments before the format line\n$EndComments\n",
      post="$Comments\nand after the elements\n$EndComments\n")

# sparse, shuffled tags and unused nodes
newtag = {n[0]: str(1000 * int(n[0]) + 7) for n in nodes}
newtag[nodes[len(nodes) // 2][0]] = "2000000000"
order = [(k * 37) % nn for k in range(nn)]  # 37 is prime to nn: a permutation
assert len(set(order)) == nn
sparse = [[newtag[nodes[k][0]]] + nodes[k][1:] for k in order]
for u in range(5):
    sparse.insert(3 * u + 1, [str(999000 + u), "5", "5", "%d" % u])
tagged = []
for e in elems:
    nt = int(e[2])
    tagged.append(e[:3 + nt] + [newtag[t] for t in e[3 + nt:]])
write("box_sparse.msh", head, sparse, tagged)

# tetrahedra first, then the rest interleaved; element tags 10, 20, ...
tets = [e for e in elems if e[1] == "4"]
rest = [e for e in elems if e[1] != "4"]
rest = rest[1::2] + rest[0::2]
mixed = []
for k, e in enumerate(tets + rest):
    nt = int(e[2])
    mixed.append([str(10 * (k + 1)), e[1], "2"] + e[3:5] + e[3 + nt:])
write("box_mixed.msh", head, nodes, mixed)
