#!/usr/bin/python3
"""tsmech against deal.II on the linear Q2 beam, the static solve (issue 40), side by side in one run.

  /usr/bin/python3 bench/dealii_beam.py [--tsmech build/tsmech] [--refinements 2,3,4]
                                        [--tsmech-options "..."] [--name NAME]

The body: the built-in beam 1 x 0.1 x 0.1 of 10 x 1 x 1 boxes refined r times (10·2^r x 2^r x 2^r
Q2 hexahedra: 19 683, 139 587 and 1 048 707 unknowns for r = 2, 3, 4), the linear material
(E 1e7, nu 0.3), density 1000 under gravity (0, 0, -9.81), clamped at x = 0. The static solve K u = f
to a relative residual of 1e-8:

deal.II  bench/dealii_beam.cc (built here with Debian's libdeal.ii-dev, which must be installed:
         flock /tmp/apt.lock apt-get install -y --no-install-recommends libdeal.ii-dev; no part of
         tsmech's build): matrix-free CG with geometric multigrid, Chebyshev(5) on the diagonal,
         single-precision levels, the coarse mesh solved by CG.
tsmech   one backward-Euler step of 10^4 s from rest (-ts_type beuler2 -ts_dt 1e4 -ts_max_time 1e4):
         its operator M + tau^2 K is K to 1e-16 (rho h^2 / (E tau^2)), so q - X is the static
         displacement; with config/solid_linear.opts's solver (M + K assembled once, CG + GAMG,
         -ksp_rtol 1e-8) unless --tsmech-options replaces it (e.g. the matrix-free operator with
         another preconditioner).

Each run is one process under /usr/bin/time: total CPU time (user + system: set-up, solve, output)
and peak resident memory; the Krylov iterations (deal.II's CG, tsmech's KSP total from its summary
line) and the displacement of the corner (1, 0.1, 0.1), which must agree (relative difference of
the two tip vectors printed, target 1e-6 at rtol 1e-8). Prints a table with the ratios
tsmech / deal.II of CPU time and memory.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--tsmech", default="build/tsmech")
ap.add_argument("--refinements", default="2,3,4")
ap.add_argument("--tsmech-options", default="")
ap.add_argument("--dealii", default=None, help="an already built deal.II peer (default: build bench/dealii_beam.cc)")
ap.add_argument("--name", default="tsmech")
a = ap.parse_args()
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
work = tempfile.mkdtemp(prefix="dealii_beam_")
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def build_dealii():
    """bench/dealii_beam.cc against Debian's deal.II (its libraries from deal.IIConfig.cmake)"""
    exe = os.path.join(work, "dealii_beam")
    cfg = "/usr/share/cmake/deal.II/deal.IIConfig.cmake"
    if not os.path.exists(cfg):
        sys.exit("deal.II is not installed: flock /tmp/apt.lock apt-get install -y --no-install-recommends libdeal.ii-dev")
    libs = re.search(r'SET\(DEAL_II_LIBRARIES_RELEASE "([^"]*)"', open(cfg).read())[1].replace("${DEAL_II_PATH}", "/usr").split(";")
    libs = [x if x.startswith("/") else "-l" + x for x in libs]
    petsc = subprocess.run(["pkg-config", "--cflags", "petsc"], capture_output=True, text=True).stdout.split()
    inc = ["-I/usr/lib/x86_64-linux-gnu/openmpi/include", "-I/usr/lib/x86_64-linux-gnu/openmpi/include/openmpi", "-I/usr/include/trilinos",
           "-I/usr/include/hdf5/openmpi", "-I/usr/include/suitesparse", "-I/usr/include/slepc"]
    obj = exe + ".o"
    subprocess.run(["g++", "-std=c++17", "-O2", "-w"] + petsc + inc + ["-c", "-o", obj, os.path.join(here, "dealii_beam.cc")], check=True)
    subprocess.run(["g++", "-o", exe, obj, "-fuse-ld=gold"] + libs, check=True)
    return exe


def timed(cmd):
    """stdout, CPU seconds (user + system) and peak resident MB of one process"""
    tf = os.path.join(work, "time.txt")
    p = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", tf] + cmd, capture_output=True, text=True, env=env, cwd=work)
    if p.returncode:
        print("failed:", " ".join(cmd), p.stdout[-2000:], p.stderr[-2000:])
        return None, None, None
    u, s, m = open(tf).read().split()[-3:]
    return p.stdout, float(u) + float(s), float(m) / 1024


def tsmech_tip(h5, n):
    """the displacement of the beam's corner (1, 0.1, 0.1): the last vertex of the beam (vertices first in the output)"""
    out = subprocess.run(["/usr/bin/python3", "-c", f"""
import h5py
f = h5py.File('{h5}', 'r')
q = f['/fields/q'][-1].reshape(-1, 3)
q0 = f['/fields/q'][0].reshape(-1, 3)
nv = {(n[0] + 1) * (n[1] + 1) * (n[2] + 1)}
print(*(q[nv - 1] - q0[nv - 1]))
"""], capture_output=True, text=True).stdout.split()
    return [float(x) for x in out]


dealii = a.dealii or build_dealii()
rows = []
for r in [int(x) for x in a.refinements.split(",")]:
    n = (10 * 2 ** r, 2 ** r, 2 ** r)
    out, dcpu, dmem = timed([dealii, str(r)])
    m = re.search(r"dealii unknowns (\d+) cg_its (\d+) setup_cpu (\S+) solve_cpu (\S+) apply_ns (\S+) tip (\S+) (\S+) (\S+)", out or "")
    if not m:
        continue
    dn, dits, dapply, dtip = int(m[1]), int(m[2]), float(m[5]), [float(m[6]), float(m[7]), float(m[8])]
    h5 = os.path.join(work, f"t{r}.h5")
    opts = (f"-model solid -solid_cell hex -solid_order 2 -solid_beam_cells {n[0]},{n[1]},{n[2]} -solid_beam_size 1,0.1,0.1 -solid_material linear "
            f"-solid_E 1e7 -solid_nu 0.3 -solid_density 1000 -solid_g 0,0,-9.81 -solid_output_stress false -ts_type beuler2 -ts_dt 1e4 -ts_max_time 1e4 -ts_max_steps 1 "
            f"-snes_rtol 1e-8 -ksp_rtol 1e-8 -output {h5} -output_every 1 ")
    opts += a.tsmech_options or "-ksp_type cg -pc_type gamg"
    out, tcpu, tmem = timed([os.path.abspath(a.tsmech)] + opts.split())
    if out is None:
        continue
    k = re.search(r"(\d+) KSP", out)
    tits = int(k[1]) if k else -1
    ttip = tsmech_tip(h5, n)
    diff = max(abs(x - y) for x, y in zip(ttip, dtip)) / max(abs(x) for x in dtip)
    rows.append((dn, dcpu, dits, dmem, tcpu, tits, tmem, diff, dapply))
    print(f"r {r}: {dn} unknowns  deal.II {dcpu:.2f} s CPU, {dits} CG, {dmem:.0f} MB (operator {dapply:.1f} ns/unknown)  "
          f"{a.name} {tcpu:.2f} s, {tits} KSP, {tmem:.0f} MB  tip {ttip[2]:.9e} vs {dtip[2]:.9e} (rel {diff:.1e})")
    sys.stdout.flush()
print(f"\n| unknowns | deal.II CPU / CG its / memory | {a.name} CPU / KSP its / memory | {a.name} / deal.II CPU, memory | tip agreement |")
print("|---|---|---|---|---|")
for dn, dcpu, dits, dmem, tcpu, tits, tmem, diff, dapply in rows:
    print(f"| {dn:,} | {dcpu:.2f} s / {dits} / {dmem:.0f} MB | {tcpu:.2f} s / {tits} / {tmem:.0f} MB | {tcpu / dcpu:.1f}× CPU, {tmem / dmem:.1f}× memory | {diff:.1e} |".replace(f"{dn:,}", f"{dn:,}".replace(",", " ")))
