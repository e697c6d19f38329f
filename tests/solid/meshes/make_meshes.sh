#!/bin/sh
# Regenerates the Gmsh-written meshes of tests/solid/meshes (Gmsh 4.8.4; not a build dependency):
# the same unit box in formats 2.2, 4.0 and 4.1, ASCII and binary, with all elements saved, with
# parametric nodes; two volumes. Gmsh 4.8 writes format 4.0 in ASCII only; msh40_binary.py makes
# the binary 4.0 files (the layout Gmsh 4.0 wrote, as PETSc's gmsh-3d-binary.msh4 has it). The hand-made variants (comments, sparse and shuffled node tags,
# unused nodes, interleaved element types) are made from box_msh22.msh by make_variants.py.
set -e
cd "$(dirname "$0")"
gmsh -3 -format msh22 box.geo -o box_msh22.msh
gmsh -3 -format msh22 -bin box.geo -o box_msh22_bin.msh
gmsh -3 -format msh41 box.geo -o box_msh41.msh
gmsh -3 -format msh41 -bin box.geo -o box_msh41_bin.msh
gmsh -3 -format msh41 -save_all box.geo -o box_msh41_saveall.msh
gmsh -3 -format msh22 -save_all -bin box.geo -o box_msh22_saveall_bin.msh
gmsh -3 -format msh41 -parametric box.geo -o box_msh41_param.msh
gmsh -3 -format msh22 -parametric box.geo -o box_msh22_param.msh
gmsh -3 -format msh41 -bin -parametric box.geo -o box_msh41_param_bin.msh
gmsh -3 -format msh40 box.geo -o box_msh40.msh
gmsh -3 -format msh40 -parametric box.geo -o box_msh40_param.msh
/usr/bin/python3 msh40_binary.py box_msh40.msh box_msh40_bin.msh
gmsh -3 -format msh41 twovol.geo -o twovol_msh41.msh
gmsh -3 -format msh22 -bin twovol.geo -o twovol_msh22_bin.msh
/usr/bin/python3 make_variants.py
# quadratic and hexahedral meshes: a cylinder of 10-node tetrahedra with curved edges and a box of
# 8- and 27-node hexahedra, each in 2.2, 4.0 and 4.1, ASCII and binary
for f in msh22 msh41; do
  gmsh -3 -order 2 -format $f cylinder.geo -o cyl_tet10_$f.msh
  gmsh -3 -order 2 -format $f -bin cylinder.geo -o cyl_tet10_${f}_bin.msh
  gmsh -3 -format $f hexbox.geo -o hex8_$f.msh
  gmsh -3 -format $f -bin hexbox.geo -o hex8_${f}_bin.msh
  gmsh -3 -order 2 -format $f hexbox.geo -o hex27_$f.msh
  gmsh -3 -order 2 -format $f -bin hexbox.geo -o hex27_${f}_bin.msh
done
gmsh -3 -order 2 -format msh40 cylinder.geo -o cyl_tet10_msh40.msh
gmsh -3 -format msh40 hexbox.geo -o hex8_msh40.msh
gmsh -3 -order 2 -format msh40 hexbox.geo -o hex27_msh40.msh
for m in cyl_tet10 hex8 hex27; do
  /usr/bin/python3 msh40_binary.py ${m}_msh40.msh ${m}_msh40_bin.msh
done
