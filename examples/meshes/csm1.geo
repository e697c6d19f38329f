// The elastic beam of Turek & Hron's CSM benchmarks (CSM1: at rest under gravity), behind the rigid
// cylinder of radius 0.05 m centred at (0.2, 0.2): from the cylinder to x = 0.6, 0.19 <= y <= 0.21,
// one layer of tetrahedra 5 mm thick (held in z: plane strain). The cylinder is not meshed: the beam is
// clamped along its arc on it.
//   gmsh -3 -format msh22 csm1.geo -o csm1_p1.msh                 (4-node tetrahedra)
//   gmsh -3 -order 2 -format msh22 csm1.geo -o csm1_p2.msh        (10-node tetrahedra, the arc curved)
//   gmsh -3 -setnumber h 0.0025 ... : another element size (default 5 mm)
// Physical groups: surface "clamp" (the arc, tag 1), surface "tip" (x = 0.6, tag 2), volume "body"
// (tag 3). The point A (0.6, 0.2) of the benchmark is a node.
DefineConstant[ h = 0.005, dz = 0.005 ];
xc = 0.2 + Sqrt(0.05 * 0.05 - 0.01 * 0.01);
Point(1) = {0.2, 0.2, 0, h};
Point(2) = {xc, 0.19, 0, h};
Point(3) = {0.6, 0.19, 0, h};
Point(4) = {0.6, 0.2, 0, h};
Point(5) = {0.6, 0.21, 0, h};
Point(6) = {xc, 0.21, 0, h};
Line(1) = {2, 3};
Line(2) = {3, 4};
Line(3) = {4, 5};
Line(4) = {5, 6};
Circle(5) = {6, 1, 2};
Curve Loop(1) = {1, 2, 3, 4, 5};
Plane Surface(1) = {1};
// one layer; without Recombine each prism is split into tetrahedra
out[] = Extrude {0, 0, dz} { Surface{1}; Layers{1}; };
// out[0]: the top surface, out[1]: the volume, out[2..6]: the sides of curves 1..5
Physical Surface("clamp", 1) = {out[6]};
Physical Surface("tip", 2) = {out[3], out[4]};
Physical Volume("body", 3) = {out[1]};
