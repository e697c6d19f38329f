// A 1 x 0.1 x 0.1 cantilever beam of tetrahedra for the solid model (tsmech -model solid).
// Regenerate (Gmsh 4.8.4 writes these files byte for byte):
//   gmsh -3 -format msh22 beam.geo -o beam.msh                    (format 2.2 ASCII)
//   gmsh -3 -format msh41 beam.geo -o beam_msh4.msh               (format 4.1 ASCII)
//   gmsh -3 -format msh41 -bin beam.geo -o beam_msh4_bin.msh      (format 4.1 binary)
//   gmsh -3 -format msh22 -bin beam.geo -o beam_msh2_bin.msh      (format 2.2 binary)
// The four give the same run (tests/solid/test_solid.c, "formats").
// Physical groups become DMPlex labels: the clamped end x = 0 is "Face Sets" value 1
// (-solid_fix_label "Face Sets" -solid_fix_value 1), the free end x = 1 value 2, the body
// "Cell Sets" value 1.
SetFactory("OpenCASCADE");
L = 1.0;
b = 0.1;
h = 0.05; // target element size
Box(1) = {0, 0, 0, L, b, b};
MeshSize{PointsOf{Volume{1};}} = h;
eps = 1e-6;
clamped[] = Surface In BoundingBox{-eps, -eps, -eps, eps, b + eps, b + eps};
tip[] = Surface In BoundingBox{L - eps, -eps, -eps, L + eps, b + eps, b + eps};
Physical Surface(1) = {clamped[]};
Physical Surface(2) = {tip[]};
Physical Volume(1) = {1};
