#!/usr/bin/python3
"""The tsmech program's -modes (src/driver/modes.c, src/io/modesio.c, docs/modes.md §4).

  run_driver.py TSMECH MPIEXEC WORKDIR

  - a -modes run without -ts_max_steps does no step: its output holds one snapshot, the mesh and /modes
    (frequency, eigenvalue, rigid, residual, shape [N, nodes, 3], participation, effective_mass), the
    printed table the same frequencies; the shapes mass-normalized (P1 lumped mass from /mesh, 1e-12),
    the effective masses the squares of the participation factors;
  - its XDMF parses and has a grid "modes" with one node attribute per mode, each a hyperslab of
    /modes/shape of the right size;
  - on 2 and 3 ranks the frequencies (1e-10) and the shapes (1e-8: the P1 beam's modes are simple) are
    one rank's;
  - a run without -modes has no /modes and no modes grid (the format of before);
  - -modes_at end after a run: /modes at the run's final time;
  - tools/tsmech_plot.py modes draws the shapes;
  - -solid_damping_ratio with two frequencies records alpha and beta of docs/modes.md (5.2) (1e-9).
Needs Debian's /usr/bin/python3 with h5py and numpy.
"""
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

fails = 0


def check(cond, msg):
    global fails
    if not cond:
        print("FAILED: " + msg)
        fails += 1


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit("run_driver: %s failed (%d):\n%s%s" % (" ".join(cmd), r.returncode, r.stdout, r.stderr))
    return r.stdout


def lumped_mass(f, rho):
    """P1 lumped mass per vertex: rho V / 4 from each tetrahedron"""
    X = f["/mesh/vertices"][...]
    T = f["/mesh/tetrahedra"][...]
    d = np.cross(X[T[:, 1]] - X[T[:, 0]], X[T[:, 2]] - X[T[:, 0]])
    V = np.abs(np.einsum("ij,ij->i", d, X[T[:, 3]] - X[T[:, 0]])) / 6
    m = np.zeros(len(X))
    for k in range(4):
        np.add.at(m, T[:, k], rho * V / 4)
    return m


def main():
    tsmech, mpiexec, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    base = [tsmech, "-model", "solid", "-solid_material", "linear", "-solid_beam_cells", "12,2,2", "-solid_g", "0,0,0",
            "-solid_mass", "lumped", "-quiet"]
    n = 8
    freq, shape = {}, {}
    for ranks in (1, 2, 3):
        out = os.path.join(work, "m%d.h5" % ranks)
        cmd = ([mpiexec, "-n", str(ranks)] if ranks > 1 else []) + base + ["-modes", str(n), "-output", out]
        text = run(cmd)
        with h5py.File(out, "r") as f:
            freq[ranks] = f["/modes/frequency"][...]
            shape[ranks] = f["/modes/shape"][...]
            if ranks == 1:
                check(f["/fields/q"].shape[0] == 1, "a modal analysis only made %d snapshots" % f["/fields/q"].shape[0])
                check(shape[1].shape == (n, f["/mesh/vertices"].shape[0], 3), "/modes/shape is %s" % (shape[1].shape,))
                for name in ("eigenvalue", "rigid", "residual", "participation", "effective_mass"):
                    check(name in f["/modes"], "/modes/%s missing" % name)
                m = lumped_mass(f, 1000.0)
                norms = np.einsum("kij,i->k", shape[1] ** 2, m)
                check(np.max(abs(norms - 1)) < 1e-12, "the shapes' M-norms differ from 1 by %.2e" % np.max(abs(norms - 1)))
                gam = np.einsum("kij,i->kj", shape[1], m)
                check(np.allclose(gam, f["/modes/participation"][...], rtol=1e-10, atol=1e-12), "the participation factors are not x^T M r")
                check(np.allclose(f["/modes/effective_mass"][...], gam**2, rtol=1e-10, atol=1e-14), "the effective masses are not their squares")
                printed = [float(x) for x in re.findall(r"^\s+\d+\s+([0-9.eE+-]+)\s", text, re.M)]
                check(len(printed) == n and np.allclose(printed, freq[1], rtol=1e-9), "the table %s is not /modes/frequency %s" % (printed, freq[1]))
                print("driver: %d modes, M-norms 1 to %.1e, frequencies %s Hz" % (n, np.max(abs(norms - 1)), np.array2string(freq[1], precision=5)))
        xmf = ET.parse(out.replace(".h5", ".xmf")).getroot()
        grids = [g for g in xmf.iter("Grid") if g.get("Name") == "modes"]
        check(len(grids) == 1, "%d modes grids in the XDMF" % len(grids))
        attrs = grids[0].findall("Attribute") if grids else []
        check(len(attrs) == n, "%d mode attributes in the XDMF" % len(attrs))
        for a in attrs:
            dims = a.find("DataItem").get("Dimensions").split()
            check(int(dims[0]) == shape[ranks].shape[1] and dims[1] == "3", "a mode attribute of dimensions %s" % dims)
    for ranks in (2, 3):
        df = np.max(abs(freq[ranks] / freq[1] - 1))
        ds = np.max(abs(shape[ranks] - shape[1])) / np.max(abs(shape[1]))
        print("  %d ranks: frequencies %.1e, shapes %.1e from one rank's" % (ranks, df, ds))
        check(df < 1e-10 and ds < 1e-8, "%d ranks: frequencies %.2e, shapes %.2e from one rank's" % (ranks, df, ds))
    # Rayleigh damping from two ratios: alpha and beta of (5.2) recorded as the model's parameters
    out = os.path.join(work, "damped.h5")
    run(base + ["-ts_max_steps", "1", "-solid_damping_ratio", "0.02,0.05", "-solid_damping_frequencies", "2,30", "-output", out])
    w1, w2, z1, z2 = 2 * np.pi * 2, 2 * np.pi * 30, 0.02, 0.05
    alpha = 2 * w1 * w2 * (z1 * w2 - z2 * w1) / (w2**2 - w1**2)
    beta = 2 * (z2 * w2 - z1 * w1) / (w2**2 - w1**2)
    with h5py.File(out, "r") as f:
        a, b = f.attrs["rayleigh_alpha"], f.attrs["rayleigh_beta"]
        check(abs(a / alpha - 1) < 1e-9 and abs(b / beta - 1) < 1e-9, "recorded alpha, beta %r %r, expected %r %r" % (a, b, alpha, beta))
        check(f.attrs["damping_ratio_j"] == 0.05 and f.attrs["damping_frequency_j"] == 30, "the damping options are not recorded")
    # tools/tsmech_plot.py modes draws the shapes
    png = os.path.join(work, "modes.png")
    plot = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "tsmech_plot.py")
    r = subprocess.run([sys.executable, plot, "modes", os.path.join(work, "m1.h5"), "--count", "4", "-o", png], capture_output=True, text=True)
    check(r.returncode == 0 and os.path.getsize(png) > 10000, "tsmech_plot.py modes failed: %s" % r.stderr)
    # no -modes: no /modes, no modes grid
    out = os.path.join(work, "plain.h5")
    run(base + ["-ts_max_steps", "2", "-output", out])
    with h5py.File(out, "r") as f:
        check("modes" not in f, "a run without -modes wrote /modes")
    check("\"modes\"" not in open(out.replace(".h5", ".xmf")).read(), "a run without -modes has a modes grid")
    # at the end of a run
    out = os.path.join(work, "end.h5")
    run(base + ["-ts_type", "beuler2", "-ts_dt", "0.5", "-ts_max_time", "1", "-modes", "2", "-modes_at", "end", "-output", out])
    with h5py.File(out, "r") as f:
        t = f["/modes"].attrs["time"]
        check(abs(t - 1) < 1e-12 and f["/fields/q"].shape[0] >= 2, "-modes_at end: the modes at t = %g" % t)
    print("%s: %d failed check(s)" % ("FAILED" if fails else "passed", fails))
    sys.exit(1 if fails else 0)


main()
