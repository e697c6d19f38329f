#!/usr/bin/python3
"""system.modes(n) of the Python package (python/tsmech/system.py): the clamped P1 beam's first bending
frequency (docs/solid.md §12: 0.0215688197 on 16 x 2 x 2 boxes), the shapes M-normalized and zero on the fixed
dofs, a free body's six rigid modes at 0 Hz."""
import sys

import numpy as np
from petsc4py import PETSc

import tsmech

fails = 0


def check(cond, msg):
    global fails
    if not cond:
        print("FAILED: " + msg)
        fails += 1


opts = PETSc.Options()
for k, v in dict(solid_beam_cells="16,2,2", solid_beam_size="1,0.1,0.1", solid_material="linear", solid_E="1", solid_nu="0",
                 solid_density="1", solid_g="0,0,0").items():
    opts[k] = v
model = tsmech.Model("solid")
q, v = model.create_state()
r = model.modes(4)
check(abs(r["frequency"][0] / 0.0215688197 - 1) < 1e-9, "f1 = %.10g, not 0.0215688197" % r["frequency"][0])
M = model.operator(q, v, 0.0, 0.0, 1.0)
y = q.duplicate()
for x in r["shapes"]:
    M.mult(x, y)
    check(abs(x.dot(y) - 1) < 1e-12, "a shape's M-norm is %.15g" % x.dot(y))
print("python: frequencies %s Hz, shapes M-normalized" % np.array2string(r["frequency"], precision=8))
opts["solid_fix"] = "none"
free = tsmech.Model("solid")
rf = free.modes(8)
check(list(rf["rigid"]) == [True] * 6 + [False] * 2 and all(rf["frequency"][:6] == 0), "free body: rigid %s, frequencies %s" % (rf["rigid"], rf["frequency"]))
check(np.allclose(rf["effective_mass"][:6].sum(axis=0), 0.01, rtol=1e-10), "the rigid modes' effective masses %s" % rf["effective_mass"][:6].sum(axis=0))
print("%s: %d failed check(s)" % ("FAILED" if fails else "passed", fails))
sys.exit(1 if fails else 0)
