// Two boxes sharing a face: two volumes (two entities of dimension 3), for the mesh-reader tests.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Box(2) = {1, 0, 0, 1, 1, 1};
BooleanFragments{ Volume{1}; Delete; }{ Volume{2}; Delete; }
MeshSize{PointsOf{Volume{1, 2};}} = 0.45;
Physical Surface("clamped", 1) = {1};
Physical Volume("left", 7) = {1};
Physical Volume("right", 8) = {2};
