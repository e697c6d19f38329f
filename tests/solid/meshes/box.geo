// A unit box of tetrahedra with named physical groups, for the mesh-reader tests
// (tests/solid/meshes/make_meshes.sh writes every variant with Gmsh 4.8).
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
MeshSize{PointsOf{Volume{1};}} = 0.4;
Physical Surface("clamped", 1) = {1};
Physical Surface("loaded", 2) = {2};
Physical Curve("edge", 5) = {1};
Physical Point("corner", 6) = {1};
Physical Volume("body", 7) = {1};
