#!/usr/bin/python3
"""tsmech's solid against DOLFINx on the same mesh and the same physics, side by side.

The built-in beam of tsmech (1 x 0.1 x 0.1, 8n x n x n boxes of 6 tetrahedra, clamped at x = 0,
released from rest under gravity), E = 1e7, nu = 0.3, rho = 1000, a few steps of the implicit
midpoint rule, CG preconditioned by GAMG with the rigid-body modes as near-null space, on one
process. DOLFINx (Debian's python3-dolfinx-real; a cross-check, not a dependency of tsmech) reads
the mesh tsmech wrote (/mesh/vertices, /mesh/tetrahedra of its HDF5 output), so both solve on the
same tetrahedra; for order 2 both place the edge nodes at the edge midpoints. The midpoint rule in
DOLFINx's unknowns: u+ the displacement, v+ = 2 (u+ - u)/dt - v, and

    rho (v+ - v)/dt . w + P(F((u + u+)/2)) : grad w - rho g . w = 0   for every test function w,

which is tsmech's midpoint2 (docs/schemes.md) for the same mass and forces. Both stop Newton at
the same relative residual and the KSP at the same relative tolerance; the tip displacements are
compared (they must agree to the solver tolerance), then the time per step of each peer and their
ratio are printed, in wall time and in CPU time (on a shared machine the CPU time is the one to compare:
tsmech's is that of its run less that of the same run without steps, DOLFINx's that of its step loop). Both integrate with the same rules: degree 2 (order - 1) for the stiffness, 2 order
for the mass. Materials: linear (small-strain) and neohookean,
W = mu/2 (I1 - 3) - mu ln J + lambda/2 (ln J)^2 (tsmech's `neohookean`).

    /usr/bin/python3 bench/dolfinx_solid.py --tsmech build/tsmech --n 16 --orders 1,2
"""
import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

E, NU, RHO, G = 1e7, 0.3, 1000.0, np.array([0.0, 0.0, -9.81])


def child_cpu():
    """The CPU seconds (user + system) of this process's finished children"""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def tsmech_command(a, n, order, material, h5, steps):
    """The tsmech peer's command line for the given number of steps"""
    cmd = [a.tsmech, "-model", "solid", "-solid_beam_cells", "%d,%d,%d" % (8 * n, n, n), "-solid_beam_size", "1,0.1,0.1",
           "-solid_material", material, "-solid_E", str(E), "-solid_nu", str(NU), "-solid_density", str(RHO),
           "-solid_g", "0,0,-9.81", "-ts_type", "midpoint2", "-ts_dt", str(a.dt), "-ts_max_steps", str(steps),
           "-snes_rtol", str(a.snes_rtol), "-snes_atol", "1e-50", "-ksp_type", "cg", "-ksp_rtol", str(a.ksp_rtol),
           "-pc_type", "gamg", "-output", h5, "-output_every", str(max(steps, 1)), "-log_view"]
    if order != 1:
        cmd += ["-solid_order", str(order)]
    return cmd + tsmech_options(a, order, material).split()


def run_tsmech(a, n, order, material, h5):
    """The tsmech peer: the driver, timed by -log_view's TSStep (the steps, not the set-up), and its CPU time per
    step: that of the run less that of the same run without steps (the set-up and the output)"""
    cmd = tsmech_command(a, n, order, material, h5, a.steps)
    c0, t0 = child_cpu(), time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, child_cpu() - c0
    if p.returncode:
        sys.exit("tsmech failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr[-2000:]))
    if a.log_view:
        print(p.stdout, flush=True)
    m = re.search(r"^TSStep\s+\d+\s+\S+\s+(\S+)", p.stdout, re.M)
    its = re.search(r"(\d+) Newton / (\d+) KSP iterations", p.stdout + p.stderr)
    with h5py.File(h5, "r") as f:
        q = f["/fields/q"][-1]
        X = f["/fields/q"][0]
    c0 = child_cpu()
    p0 = subprocess.run(tsmech_command(a, n, order, material, h5 + ".0", 0), capture_output=True, text=True)
    if p0.returncode:
        sys.exit("tsmech failed (%d) without steps:\n%s" % (p0.returncode, p0.stderr[-2000:]))
    cpu -= child_cpu() - c0
    return dict(step=float(m.group(1)) / a.steps, cpu=cpu / a.steps, wall=wall, snes=int(its.group(1)),
                ksp=int(its.group(2)), q=q, X=X)


def rigid_body_modes(V):
    """The six rigid-body modes of the vector space V as a PETSc near-null space."""
    from dolfinx import la
    from petsc4py import PETSc

    index_map, bs = V.dofmap.index_map, V.dofmap.index_map_bs
    nloc = index_map.size_local
    basis = [la.create_petsc_vector(index_map, bs) for _ in range(6)]
    x = V.tabulate_dof_coordinates()[:nloc]
    arrays = [b.array for b in basis]
    # translations, and the rotations (-y, x, 0), (0, -z, y), (z, 0, -x) (blocked: dof 3 node + component)
    for i in range(3):
        arrays[i][i::3] = 1.0
    arrays[3][0::3], arrays[3][1::3] = -x[:, 1], x[:, 0]
    arrays[4][1::3], arrays[4][2::3] = -x[:, 2], x[:, 1]
    arrays[5][2::3], arrays[5][0::3] = -x[:, 0], x[:, 2]
    la.orthonormalize(basis)
    return PETSc.NullSpace().create(vectors=basis)


def run_dolfinx(a, order, material, X, cells):
    """The DOLFINx peer on the tetrahedra (X, cells) that tsmech wrote, SNES + CG + GAMG."""
    import ufl
    from dolfinx import fem, mesh as dmesh
    from dolfinx.fem.petsc import (assemble_matrix, assemble_vector, apply_lifting, create_matrix, create_vector,
                                   set_bc)
    from mpi4py import MPI
    from petsc4py import PETSc

    t0 = time.perf_counter()
    domain = ufl.Mesh(ufl.VectorElement("Lagrange", ufl.tetrahedron, 1))
    msh = dmesh.create_mesh(MPI.COMM_SELF, cells.astype(np.int64), X, domain)
    V = fem.VectorFunctionSpace(msh, ("Lagrange", order))
    u, u0, v0 = fem.Function(V), fem.Function(V), fem.Function(V)
    w = ufl.TestFunction(V)
    dt = a.dt
    mu, lam = E / (2 * (1 + NU)), E * NU / ((1 + NU) * (1 - 2 * NU))
    um = 0.5 * (u + u0)
    vnew = 2.0 / dt * (u - u0) - v0
    F = ufl.variable(ufl.Identity(3) + ufl.grad(um))
    if material == "linear":
        eps = ufl.sym(ufl.grad(um))
        P = 2 * mu * eps + lam * ufl.tr(eps) * ufl.Identity(3)
    else:
        J = ufl.det(F)
        W = mu / 2 * (ufl.tr(F.T * F) - 3) - mu * ufl.ln(J) + lam / 2 * ufl.ln(J) ** 2
        P = ufl.diff(W, F)
    g = fem.Constant(msh, PETSc.ScalarType(tuple(G)))
    # tsmech's quadrature: degree 2 (order - 1) for the stiffness, 2 order for the mass (docs/solid.md §12)
    dxk = ufl.dx(metadata={"quadrature_degree": 2 * (order - 1)})
    dxm = ufl.dx(metadata={"quadrature_degree": 2 * order})
    R = (RHO * ufl.dot(vnew - v0, w) / dt - RHO * ufl.dot(g, w)) * dxm + ufl.inner(P, ufl.grad(w)) * dxk
    Rform = fem.form(R)
    Jform = fem.form(ufl.derivative(R, u))
    clamped = dmesh.locate_entities_boundary(msh, 2, lambda x: np.isclose(x[0], 0.0))
    bc = fem.dirichletbc(np.zeros(3, dtype=PETSc.ScalarType), fem.locate_dofs_topological(V, 2, clamped), V)

    A, b = create_matrix(Jform), create_vector(Rform)
    A.setNearNullSpace(rigid_body_modes(V))

    def residual(snes, x, r):
        x.copy(u.vector)
        u.vector.ghostUpdate(addv=PETSc.InsertMode.INSERT, mode=PETSc.ScatterMode.FORWARD)
        with r.localForm() as rl:
            rl.set(0.0)
        assemble_vector(r, Rform)
        apply_lifting(r, [Jform], [[bc]], x0=[x], scale=-1.0)
        r.ghostUpdate(addv=PETSc.InsertMode.ADD, mode=PETSc.ScatterMode.REVERSE)
        set_bc(r, [bc], x, -1.0)

    def jacobian(snes, x, Jm, Pm):
        Jm.zeroEntries()
        assemble_matrix(Jm, Jform, bcs=[bc])
        Jm.assemble()

    snes = PETSc.SNES().create(MPI.COMM_SELF)
    snes.setFunction(residual, b)
    snes.setJacobian(jacobian, A)
    snes.setTolerances(rtol=a.snes_rtol, atol=1e-50, max_it=50)
    ksp = snes.getKSP()
    ksp.setType("cg")
    ksp.setTolerances(rtol=a.ksp_rtol)
    ksp.getPC().setType("gamg")
    opts = PETSc.Options()
    given = list(zip(*[iter(dolfinx_options(a, material).split())] * 2))
    for k, val in given:
        opts[k.lstrip("-")] = val
    snes.setOptionsPrefix("dx_")
    snes.setFromOptions()
    for k, _ in given:
        opts.delValue(k.lstrip("-"))
    x = u.vector.copy()
    setup = time.perf_counter() - t0
    if a.log_view:
        PETSc.Log.begin()
    snesits = kspits = 0
    t1, c1 = time.perf_counter(), time.process_time()
    for _ in range(a.steps):
        x.copy(u0.vector)
        snes.solve(None, x)
        if snes.getConvergedReason() <= 0:
            sys.exit("DOLFINx: SNES failed (%d)" % snes.getConvergedReason())
        snesits += snes.getIterationNumber()
        kspits += snes.getLinearSolveIterations()
        x.copy(u.vector)
        u.vector.ghostUpdate(addv=PETSc.InsertMode.INSERT, mode=PETSc.ScatterMode.FORWARD)
        # v+ = 2 (u+ - u)/dt - v
        v0.vector.scale(-1.0)
        v0.vector.axpy(2.0 / dt, u.vector)
        v0.vector.axpy(-2.0 / dt, u0.vector)
        u0.vector.ghostUpdate(addv=PETSc.InsertMode.INSERT, mode=PETSc.ScatterMode.FORWARD)
    step, cpu = (time.perf_counter() - t1) / a.steps, (time.process_time() - c1) / a.steps
    if a.log_view:
        PETSc.Log.view()
    # the tip: the displacement at the vertices of x = 1, averaged
    xy = V.tabulate_dof_coordinates()
    tip = np.isclose(xy[:, 0], 1.0)
    uz = u.x.array.reshape(-1, 3)[: len(xy)][tip, 2].mean()
    return dict(step=step, cpu=cpu, setup=setup, snes=snesits, ksp=kspits, uz=uz, ndofs=3 * V.dofmap.index_map.size_global)


def dolfinx_options(a, material):
    """The DOLFINx peer's SNES options (prefix dx_): for the linear material its best configuration, one linear
    solve per step with the matrix and GAMG set up once (the operator does not change)"""
    if a.dolfinx_options is not None:
        return a.dolfinx_options
    if material == "linear":
        return ("-dx_snes_type ksponly -dx_snes_lag_jacobian -2 -dx_snes_lag_jacobian_persists 1 "
                "-dx_snes_lag_preconditioner -2 -dx_snes_lag_preconditioner_persists 1")
    return ""


def tsmech_options(a, order, material):
    """The tsmech peer's configuration: README's recommended one for the material and order (config/solid.opts for
    the neo-Hookean material on linear elements, config/solid_quadratic.opts on quadratic ones; config/solid_linear.opts for the linear one: a linear problem takes one Newton iteration per
    step whatever the norm, so CG tests its natural preconditioned norm, and the operator M + K, which never changes,
    is assembled once: its product is cheaper than the matrix-free action plus the consistent mass's product)"""
    if a.tsmech_options is not None:
        return a.tsmech_options
    if material == "linear":
        return ""
    if order == 2:
        # config/solid_quadratic.opts: on quadratic elements CG's natural norm costs no Newton iteration
        return "-ts_theta_matrix_free -pc_use_amat 0"
    return "-ts_theta_matrix_free -ksp_norm_type unpreconditioned -pc_use_amat 0"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tsmech", default="build/tsmech")
    ap.add_argument("--n", type=int, default=16, help="the beam of 8n x n x n boxes (default 16: 128 x 16 x 16)")
    ap.add_argument("--orders", default="1", help="element orders (1, 2; 2 needs tsmech's -solid_order)")
    ap.add_argument("--materials", default="linear,neohookean")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--dt", type=float, default=1e-3)
    ap.add_argument("--snes-rtol", type=float, default=1e-8)
    ap.add_argument("--ksp-rtol", type=float, default=1e-8)
    ap.add_argument("--tsmech-options", default=None,
                    help="the tsmech peer's configuration (default: the recommended one for the material and order, "
                    "config/solid.opts's for the neo-Hookean material)")
    ap.add_argument("--dolfinx-options", default=None,
                    help="PETSc options of the DOLFINx peer, prefix dx_ (default: for the linear material one linear "
                    "solve per step with the matrix and preconditioner set up once, otherwise SNES's defaults)")
    ap.add_argument("--log-view", action="store_true",
                    help="print PETSc's -log_view of both peers (DOLFINx's: its steps, through petsc4py's PETSc.Log)")
    a = ap.parse_args()
    try:
        import dolfinx  # noqa: F401
    except ImportError:
        sys.exit("DOLFINx is not installed: apt-get install python3-dolfinx-real (a cross-check only)")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for order in [int(o) for o in a.orders.split(",")]:
            for material in a.materials.split(","):
                h5 = os.path.join(tmp, "run.h5")
                ts = run_tsmech(a, a.n, order, material, h5)
                with h5py.File(h5, "r") as f:
                    X = f["/mesh/vertices"][...]
                    # quadratic tetrahedra: /mesh/cells, the 4 corners first, the vertices first in /mesh/vertices
                    cells = f["/mesh/tetrahedra"][...] if "/mesh/tetrahedra" in f else f["/mesh/cells"][:, :4]
                X = X[: cells.max() + 1]
                dx = run_dolfinx(a, order, material, X, cells)
                tipmask = np.isclose(ts["X"][:, 0], 1.0)
                uz_ts = (ts["q"][tipmask, 2] - ts["X"][tipmask, 2]).mean()
                rel = abs(uz_ts - dx["uz"]) / abs(dx["uz"])
                rows.append((order, material, dx["ndofs"], ts, dx, uz_ts, rel))
                print("order %d %-10s %8d dofs: tsmech %.3f s/step, CPU %.3f s (%d Newton, %d KSP), DOLFINx %.3f s/step, "
                      "CPU %.3f s (%d Newton, %d KSP); tip uz %.6e vs %.6e (rel. diff %.1e); DOLFINx/tsmech %.2f, CPU %.2f" %
                      (order, material, dx["ndofs"], ts["step"], ts["cpu"], ts["snes"], ts["ksp"], dx["step"], dx["cpu"],
                       dx["snes"], dx["ksp"], uz_ts, dx["uz"], rel, dx["step"] / ts["step"], dx["cpu"] / ts["cpu"]),
                      flush=True)
    bad = [r for r in rows if r[6] > 1e-4]
    if bad:
        sys.exit("the peers disagree: %s" % ", ".join("order %d %s (%.1e)" % (r[0], r[1], r[6]) for r in bad))


if __name__ == "__main__":
    main()
