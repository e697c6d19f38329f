#!/usr/bin/python3
"""Prestressed modes (docs/modes.md §6): a slender clamped column (1 x 0.05 x 0.05, St. Venant-Kirchhoff,
Q2 hexahedra 20 x 1 x 1) under an axial dead load P on its free end, brought to rest quasi-statically and
then analysed with -modes_at end (the tangent with the geometric stiffness of the axial stress).

  run_prestress.py TSMECH WORKDIR [--settle "OPTIONS"]

--settle: how the loaded state is reached (default: the quasi-static type static2, one load step; a
strongly damped beuler2, "-ts_type beuler2 -ts_dt 10 -ts_max_steps 3 -ts_max_time 30", reaches the same).

Checks:
  - f1^2 at the compressive loads 0.5, 0.7 and 0.9 P_E falls linearly (the fit's residuals below 1 % of
    f1^2(0)) and its zero, extrapolated from them, is Euler's P_E = pi^2 EI / (4 L^2) within 2 %;
  - at each load, compressive and tensile (0.5 P_E), f1^2(P) / f1^2(0) is the Euler-Bernoulli
    beam-column's within 0.01 (1 % of f1^2(0); near P_E the ratio itself is small) (EI w'''' - P w'' = rho A omega^2 w, clamped-free, with the free end's
    shear EI w''' - P w' = 0: a 4 x 4 determinant's root); tension raises f1.
Needs Debian's /usr/bin/python3 with h5py and numpy.
"""
import math
import os
import shlex
import subprocess
import sys

import h5py
import numpy as np

E, RHO, L, B = 1e7, 1000.0, 1.0, 0.05
EI, RHOA = E * B**4 / 12, RHO * B * B
PE = math.pi**2 * EI / (4 * L * L)


def beam_column_omega2(T):
    """The first omega^2 of the clamped-free Euler-Bernoulli beam-column under the tension T (<0: compression)"""
    def det(w2):
        root = math.sqrt(T * T / 4 + EI * RHOA * w2) / EI
        a = math.sqrt(T / (2 * EI) + root)
        b = math.sqrt(-T / (2 * EI) + root)
        m = np.array([[1, 0, 1, 0],
                      [0, a, 0, b],
                      [a * a * math.cosh(a * L), a * a * math.sinh(a * L), -b * b * math.cos(b * L), -b * b * math.sin(b * L)],
                      [a * b * b * math.sinh(a * L), a * b * b * math.cosh(a * L), b * a * a * math.sin(b * L), -b * a * a * math.cos(b * L)]])
        return np.linalg.det(m)
    w0 = (1.8751**2) ** 2 * EI / (RHOA * L**4)
    grid = np.linspace(1e-6 * w0, 3 * w0, 3000)
    vals = [det(w) for w in grid]
    for i in range(len(grid) - 1):
        if vals[i] * vals[i + 1] < 0:
            lo, hi = grid[i], grid[i + 1]
            for _ in range(80):
                mid = 0.5 * (lo + hi)
                if det(lo) * det(mid) <= 0:
                    hi = mid
                else:
                    lo = mid
            return 0.5 * (lo + hi)
    raise RuntimeError("no root")


def run(tsmech, work, settle, P, k):
    out = os.path.join(work, "col%d.h5" % k)
    args = [tsmech, "-model", "solid", "-solid_material", "svk", "-solid_cell", "hex", "-solid_order", "2",
            "-solid_beam_cells", "20,1,1", "-solid_beam_size", "%g,%g,%g" % (L, B, B), "-solid_E", str(E), "-solid_nu", "0.3",
            "-solid_density", str(RHO), "-solid_g", "0,0,0", "-solid_load", "tip", "-solid_load_tip_where", "x=1",
            "-solid_load_tip_force", "%.12g,0,0" % (-P), "-modes", "1", "-modes_at", "end", "-quiet", "-output", out] + shlex.split(settle)
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        sys.exit("run_prestress: tsmech failed (%d): %s\n%s" % (r.returncode, " ".join(args), r.stderr))
    with h5py.File(out, "r") as f:
        return 4 * math.pi**2 * f["/modes/frequency"][0] ** 2


def main():
    tsmech, work = sys.argv[1], sys.argv[2]
    settle = "-ts_type static2 -ts_max_time 1 -ksp_type preonly -pc_type lu"
    if "--settle" in sys.argv:
        settle = sys.argv[sys.argv.index("--settle") + 1]
    os.makedirs(work, exist_ok=True)
    loads = [0.0, 0.5 * PE, 0.7 * PE, 0.9 * PE, -0.5 * PE]
    w2 = [run(tsmech, work, settle, P, k) for k, P in enumerate(loads)]
    fails = 0
    comp = np.array(loads[1:4])
    c = np.polyfit(comp, w2[1:4], 1)
    root = -c[1] / c[0]
    resid = max(abs(np.polyval(c, comp) - w2[1:4])) / w2[0]
    print("prestress: P_E = %.6g N; f1^2 linear in P to %.2e of f1^2(0); its zero at %.6g N = %.4f P_E" % (PE, resid, root, root / PE))
    if resid > 0.01 or abs(root / PE - 1) > 0.02:
        print("FAILED: the extrapolated critical load is not Euler's within 2 % (or f1^2 not linear)")
        fails += 1
    th0 = beam_column_omega2(0.0)
    for P, w in zip(loads, w2):
        th = beam_column_omega2(-P) / th0
        fe = w / w2[0]
        print("  P = %+8.4f P_E: f1 = %.6f Hz, f1^2(P)/f1^2(0) = %.5f, beam-column theory %.5f (%+.2e)" % (P / PE, math.sqrt(w) / (2 * math.pi), fe, th, fe - th))
        if abs(fe - th) > 0.01:
            print("FAILED: the ratio differs from the theory's by more than 0.01")
            fails += 1
    if not w2[4] > w2[0]:
        print("FAILED: tension did not raise f1")
        fails += 1
    print("%s: %d failed check(s)" % ("FAILED" if fails else "passed", fails))
    sys.exit(1 if fails else 0)


main()
