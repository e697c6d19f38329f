#!/usr/bin/python3
"""tsmech's modal analysis against DOLFINx + SLEPc on the same mesh, side by side (docs/modes.md §7).

The clamped beam of bench/dolfinx_solid.py (1 x 0.1 x 0.1, 8n x n x n boxes of 6 tetrahedra, clamped at
x = 0; linear elasticity, E = 1e7, nu = 0.3, rho = 1000): the lowest modes of K x = omega^2 M x.

  tsmech   tsmech -modes N (its default: Krylov-Schur, shift-and-invert below zero, MUMPS Cholesky on the free dofs),
           or the presets of -modes_solver given with --variants
  DOLFINx  the usual set-up of its modal analyses: K assembled with the clamp's rows and columns set to the
           identity, M with them zero (their eigenvalue is infinite), SLEPc's Krylov-Schur with shift-and-invert
           at the target 0, KSP preonly and LU with MUMPS; on the tetrahedra tsmech wrote (/mesh of its output),
           P1 or P2, the mass integrated exactly (degree 2 order), the stiffness with degree 2 (order - 1)

Both run in their own process, one after the other; each process's CPU time (user + system, from wait4) and
peak resident memory are measured, and the CPU time of what precedes the eigenproblem (tsmech: the same command
with -ts_max_steps 0 and no -modes; DOLFINx: its mesh and function space) is subtracted, so that the compared time
is the assembly of K (and for DOLFINx M) plus the eigensolve. The frequencies must agree (1e-8 relative).

    /usr/bin/python3 bench/modes_bench.py --tsmech build/tsmech --n 8 --order 2 --nev 10
(n = 8, order 2: the 111 843-unknown P2 beam)
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

E, NU, RHO = 1e7, 0.3, 1000.0


def run_measured(cmd):
    """Runs cmd[:-1] with its output into the file cmd[-1]; returns the output, the CPU seconds (user + system),
    the peak resident memory (MB) and the wall seconds of that process (wait4)"""
    pid = os.fork()
    if pid == 0:
        fd = os.open(cmd[-1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execv(cmd[0], cmd[:-1])
    t0 = time.perf_counter()
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    text = open(cmd[-1]).read()
    if os.waitstatus_to_exitcode(status):
        sys.exit("failed: %s\n%s" % (" ".join(cmd[:-1]), text[-3000:]))
    return text, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, wall


def tsmech_base(a):
    cmd = [a.tsmech, "-model", "solid", "-solid_beam_cells", "%d,%d,%d" % (8 * a.n, a.n, a.n), "-solid_beam_size", "1,0.1,0.1",
           "-solid_material", "linear", "-solid_E", str(E), "-solid_nu", str(NU), "-solid_density", str(RHO), "-solid_g", "0,0,0",
           "-solid_output_stress", "0"]
    return cmd + (["-solid_order", str(a.order)] if a.order != 1 else [])


def run_tsmech(a, work, variant):
    h5 = os.path.join(work, "modes.h5")
    cmd = tsmech_base(a) + ["-modes", str(a.nev), "-output", h5] + variant.split() + [os.path.join(work, "ts.log")]
    text, cpu, mem, wall = run_measured(cmd)
    _, cpu0, mem0, _ = run_measured(tsmech_base(a) + ["-ts_max_steps", "0", "-quiet", os.path.join(work, "ts0.log")])
    with h5py.File(h5, "r") as f:
        freq = f["/modes/frequency"][...]
        X = f["/mesh/vertices"][...]
        T = f["/mesh/tetrahedra"][...] if "tetrahedra" in f["/mesh"] else f["/mesh/cells"][:, :4]
    m = re.search(r"\((\w+), (\d+) free dofs\): (.*), target", text)
    return dict(freq=freq, cpu=cpu - cpu0, total=cpu, mem=mem, mem0=mem0, wall=wall, solver=m.group(3) if m else "?", X=X, T=T)


DOLFINX = r'''
import sys, time, resource
import numpy as np, h5py
import ufl
from mpi4py import MPI
from petsc4py import PETSc
from slepc4py import SLEPc
from dolfinx import fem, mesh as dmesh
from dolfinx.fem.petsc import assemble_matrix
E, NU, RHO = %(E)r, %(NU)r, %(RHO)r
order, nev, h5 = %(order)d, %(nev)d, %(h5)r
with h5py.File(h5, "r") as f:
    X = f["/mesh/vertices"][...]
    # the vertices of the tetrahedra: the first four nodes of quadratic ones (Tetrahedron_10)
    T = f["/mesh/tetrahedra"][...] if "tetrahedra" in f["/mesh"] else f["/mesh/cells"][:, :4]
# the vertices only (tsmech's order-2 output has the edge nodes after them)
used = np.unique(T)
X = X[: used.max() + 1]
c0 = time.process_time()
domain = ufl.Mesh(ufl.VectorElement("Lagrange", ufl.tetrahedron, 1))
msh = dmesh.create_mesh(MPI.COMM_SELF, T.astype(np.int64), X, domain)
V = fem.VectorFunctionSpace(msh, ("Lagrange", order))
u, w = ufl.TrialFunction(V), ufl.TestFunction(V)
mu, lam = E / (2 * (1 + NU)), E * NU / ((1 + NU) * (1 - 2 * NU))
eps = lambda v: ufl.sym(ufl.grad(v))
sig = 2 * mu * eps(u) + lam * ufl.tr(eps(u)) * ufl.Identity(3)
# a concurrent run compiling the same forms: wait for its result (FFCx's cache), not 10 s only
jit = {"timeout": 900}
k = fem.form(ufl.inner(sig, eps(w)) * ufl.dx(metadata={"quadrature_degree": 2 * (order - 1)}), jit_params=jit)
m = fem.form(RHO * ufl.dot(u, w) * ufl.dx(metadata={"quadrature_degree": 2 * order}), jit_params=jit)
clamped = dmesh.locate_entities_boundary(msh, 2, lambda x: np.isclose(x[0], 0.0))
bc = fem.dirichletbc(np.zeros(3, dtype=PETSc.ScalarType), fem.locate_dofs_topological(V, 2, clamped), V)
c1 = time.process_time()
K = assemble_matrix(k, bcs=[bc], diagonal=1.0)
K.assemble()
M = assemble_matrix(m, bcs=[bc], diagonal=0.0)
M.assemble()
c2 = time.process_time()
eps_ = SLEPc.EPS().create(MPI.COMM_SELF)
eps_.setOperators(K, M)
eps_.setProblemType(SLEPc.EPS.ProblemType.GHEP)
eps_.setDimensions(nev)
eps_.setWhichEigenpairs(SLEPc.EPS.Which.TARGET_MAGNITUDE)
eps_.setTarget(0.0)
st = eps_.getST()
st.setType(SLEPc.ST.Type.SINVERT)
ksp = st.getKSP()
ksp.setType("preonly")
pc = ksp.getPC()
pc.setType("lu")
pc.setFactorSolverType("mumps")
eps_.setFromOptions()
eps_.solve()
c3 = time.process_time()
lam_ = sorted(eps_.getEigenvalue(i).real for i in range(eps_.getConverged()))[:nev]
print("FREQ", " ".join("%%.17g" %% (np.sqrt(l) / (2 * np.pi)) for l in lam_))
print("TIMES %%.6f %%.6f %%.6f" %% (c1 - c0, c2 - c1, c3 - c2))
print("DOFS", 3 * V.dofmap.index_map.size_global)
'''


def run_dolfinx(a, work, h5):
    script = os.path.join(work, "dolfinx_modes.py")
    open(script, "w").write(DOLFINX % dict(E=E, NU=NU, RHO=RHO, order=a.order, nev=a.nev, h5=h5))
    text, cpu, mem, wall = run_measured(["/usr/bin/python3", script, os.path.join(work, "dx.log")])
    freq = np.array([float(x) for x in re.search(r"^FREQ (.*)$", text, re.M).group(1).split()])
    setup, assemble, solve = (float(x) for x in re.search(r"^TIMES (.*)$", text, re.M).group(1).split())
    dofs = int(re.search(r"^DOFS (\d+)", text, re.M).group(1))
    return dict(freq=freq, cpu=assemble + solve, assemble=assemble, solve=solve, total=cpu, mem=mem, wall=wall, dofs=dofs)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tsmech", default="build/tsmech")
    p.add_argument("--n", type=int, default=8)
    p.add_argument("--order", type=int, default=2)
    p.add_argument("--nev", type=int, default=10)
    p.add_argument("--variants", default="", help="';'-separated tsmech option sets to measure besides the default")
    a = p.parse_args()
    a.tsmech = os.path.abspath(a.tsmech)
    work = tempfile.mkdtemp(prefix="modes_bench_")
    variants = [""] + [v for v in a.variants.split(";") if v.strip()]
    ts = [run_tsmech(a, work, v) for v in variants]
    dx = run_dolfinx(a, work, os.path.join(work, "modes.h5"))
    print("beam %d x %d x %d boxes, P%d, %d unknowns (DOLFINx), %d lowest modes; CPU seconds of assembly + eigensolve, "
          "peak memory of the process (the machine is shared: CPU time, not wall time)" % (8 * a.n, a.n, a.n, a.order, dx["dofs"], a.nev))
    print("  %-58s %9s %9s %9s %9s" % ("peer", "CPU [s]", "total [s]", "wall [s]", "peak [MB]"))
    for v, r in zip(variants, ts):
        print("  %-58s %9.2f %9.2f %9.1f %9.0f" % ("tsmech " + (v or "(default: %s)" % r["solver"]), r["cpu"], r["total"], r["wall"], r["mem"]))
    print("  %-58s %9.2f %9.2f %9.1f %9.0f   (assembly %.2f, solve %.2f)" % ("DOLFINx + SLEPc (krylovschur sinvert preonly lu mumps)", dx["cpu"], dx["total"], dx["wall"], dx["mem"], dx["assemble"], dx["solve"]))
    for v, r in zip(variants, ts):
        diff = np.max(np.abs(r["freq"] / dx["freq"] - 1))
        print("  tsmech %-20s / DOLFINx: CPU %.2fx, frequencies agree to %.1e" % (v or "(default)", r["cpu"] / dx["cpu"], diff))
        if diff > 1e-8:
            sys.exit("the frequencies differ: %s against %s" % (r["freq"], dx["freq"]))
    print("  frequencies [Hz]: " + " ".join("%.8g" % f for f in ts[0]["freq"]))


main()
