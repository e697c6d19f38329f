#!/usr/bin/python3
"""Writes the elastic beam of Turek & Hron's CSM benchmarks as a Gmsh 2.2 ASCII mesh (no Gmsh needed):

  csm1_mesh.py NX NY FILE [tet | tet10 | hex | hex27] [DZ] [centre]

The beam behind the rigid cylinder of radius 0.05 m centred at (0.2, 0.2) (Turek & Hron 2006): from
the cylinder to x = 0.6 (0.35 m from the cylinder's rightmost point), 0.19 <= y <= 0.21, clamped along
its arc on the cylinder (the cylinder itself is not meshed). One layer of NX x NY prisms DZ thick
(default 0.005 m, z from 0), the map x = x_c(y) + xi (0.6 - x_c(y)), y = 0.19 + 0.02 eta with x_c(y)
on the arc, so NX x NY = 70 x 4 gives square cells of 5 mm; the kinds and the node orders as
cook_mesh.py (quadratic nodes at the straight edges' midpoints). Physical groups: surfaces "clamp"
(the arc, tag 1) and "load" (x = 0.6, tag 2), volume "body" (tag 3). The point A (0.6, 0.2) of the
benchmark is a node when NY is even. With "centre" the mesh is moved by (-0.425, -0.2, -DZ/2), the
beam's centre to the origin: the same body, whose positions round to less (the residual of
equilibrium of a state held as positions cannot go below about eps |K| |x|: docs/solvers.md §8).
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cook_mesh  # noqa: E402

CENTRE, RADIUS, XEND, Y0, H = (0.2, 0.2), 0.05, 0.6, 0.19, 0.02


def point(xi, eta):
    y = Y0 + H * eta
    xc = CENTRE[0] + math.sqrt(RADIUS * RADIUS - (y - CENTRE[1]) ** 2)
    return xc + xi * (XEND - xc), y


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    dz = float(sys.argv[5]) if len(sys.argv) > 5 else 0.005
    shift = (-0.425, -0.2, -0.5 * dz) if len(sys.argv) > 6 and sys.argv[6] == "centre" else (0, 0, 0)
    centred = lambda xi, eta: tuple(c + s for c, s in zip(point(xi, eta), shift))  # noqa: E731
    cook_mesh.mesh(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "tet", centred, dz, shift[2])
