// A 2 x 1 x 1 box of 4 x 2 x 2 hexahedra (transfinite, recombined), for the hexahedral
// mesh-reader tests: gmsh -3 (8-node) and gmsh -3 -order 2 (27-node), make_meshes.sh.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 2, 1, 1};
Transfinite Curve{:} = 3;
Transfinite Curve{9, 10, 11, 12} = 5;
Transfinite Surface{:};
Recombine Surface{:};
Transfinite Volume{1};
Physical Surface("clamped", 1) = {1};
Physical Surface("loaded", 2) = {2};
Physical Volume("body", 7) = {1};
