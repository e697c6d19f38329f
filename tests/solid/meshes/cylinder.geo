// A cylinder (radius 0.5, height 1, axis z) of 10-node tetrahedra with curved edges
// (gmsh -3 -order 2), for the quadratic mesh-reader tests (tests/solid/meshes/make_meshes.sh).
SetFactory("OpenCASCADE");
Cylinder(1) = {0, 0, 0, 0, 0, 1, 0.5};
MeshSize{PointsOf{Volume{1};}} = 0.45;
Physical Surface("side", 1) = {1};
Physical Surface("top", 2) = {2};
Physical Surface("bottom", 3) = {3};
Physical Volume("body", 7) = {1};
