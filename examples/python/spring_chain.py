#!/usr/bin/python3
"""A nonlinear spring chain written in plain petsc4py, integrated by a tsmech type.

    mpiexec -n 3 /usr/bin/python3 examples/python/spring_chain.py -chain_type cn2
    /usr/bin/python3 examples/python/spring_chain.py -chain_dll_only -dll_append build/libtsmech.so

The system is a Fermi-Pasta-Ulam-beta chain between two walls, distributed on a 1-D DMDA:
N particles of mass m, neighbours joined by springs of potential
phi(d) = k d^2 / 2 + beta d^4 / 4 (d the stretch), walls at u = 0 beyond both ends, a light
damper c on every particle:

    m u_i'' + f_i(u, u') = 0,   f_i = phi'(u_i - u_{i-1}) - phi'(u_{i+1} - u_i) + c u_i'

It is given to PETSc the way any TSALPHA2 program gives it, with TSSetI2Function and
TSSetI2Jacobian; nothing of tsmech's C API is used, only its TS types, which `import tsmech`
registers (with -chain_dll_only the package is not imported: then only -dll_append, given when
PETSc initializes, registers them, as for any PETSc plug-in). The program runs three integrators
on the same chain:

    the tsmech type (-chain_type, default midpoint2) on the second-order form,
    PETSc's TSALPHA2 (generalized-alpha) on the same second-order form,
    PETSc's own first-order type on X = [u; u'] with the same scheme, the oracle:
        midpoint2 = TSTHETA, theta = 1/2 (implicit midpoint); cn2 = TSCN; beuler2 = TSBEULER.

tsmech solves the velocity form of the scheme (N unknowns instead of 2N), so it must agree with
the oracle to the Newton tolerance; TSALPHA2, another second-order scheme, agrees to its
discretization error. The program exits with status 1 when the tsmech type and the oracle differ
by more than -chain_rtol (relative, default 1e-8) or the tsmech types are not registered.

Options: -chain_n (40), -chain_m (1), -chain_k (1), -chain_beta (10), -chain_c (0.01),
-chain_amplitude (1), -chain_dt (0.05), -chain_steps (100), -chain_type (midpoint2),
-chain_rtol (1e-8), -chain_dll_only; the solvers of each run take the prefixes tsmech_, alpha_
and oracle_ (e.g. -tsmech_snes_monitor). Needs Debian's python3-petsc4py (run with /usr/bin/python3).
"""
import os
import sys
import time

import numpy as np
import petsc4py

# Without the package, the library must be named before PETSc initializes: PETSc opens the
# -dll_append libraries in PetscInitialize() and never again, so an option set later
# (PETSc.Options().setValue) has no effect.
petsc4py.init(sys.argv)
from petsc4py import PETSc  # noqa: E402

if not PETSc.Options().getBool("chain_dll_only", False):
    try:
        import tsmech  # noqa: F401 - registers the TS types; installed, or PYTHONPATH=build/python
    except ImportError:  # run from the source tree after `make demo`: the build tree's copy
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "python"))
        import tsmech  # noqa: F401


def error(msg):
    """One line on stderr from rank 0 (every rank reaches the same decision)"""
    if PETSc.COMM_WORLD.getRank() == 0:
        print(f"spring_chain.py: error: {msg}", file=sys.stderr, flush=True)


ORACLES = {"midpoint2": ("theta", 0.5), "cn2": ("cn", None), "beuler2": ("beuler", None)}


class Chain:
    """The chain's force, tangent and energy on ghosted local arrays of the DMDA."""

    def __init__(self, opts, comm):
        self.n = opts.getInt("chain_n", 40)
        self.m = opts.getReal("chain_m", 1.0)
        self.k = opts.getReal("chain_k", 1.0)
        self.beta = opts.getReal("chain_beta", 10.0)
        self.c = opts.getReal("chain_c", 0.01)
        self.amplitude = opts.getReal("chain_amplitude", 1.0)
        if self.n < 2 or self.m <= 0 or self.k <= 0 or self.beta < 0 or self.c < 0:
            raise ValueError("-chain_n must be at least 2, -chain_m and -chain_k positive, -chain_beta and -chain_c not negative")
        # dof 1: the second-order form u; dof 2: the first-order form [u, u'] interleaved
        self.da = PETSc.DMDA().create([self.n], dof=1, stencil_width=1, comm=comm)
        self.da2 = PETSc.DMDA().create([self.n], dof=2, stencil_width=1, comm=comm)
        self.ul = self.da.createLocalVec()
        self.xl = self.da2.createLocalVec()
        (self.xs, self.xe), = self.da.getRanges()
        (self.gxs, self.gxe), = self.da.getGhostRanges()

    def stretches(self, ughost):
        """The stretches of the springs touching the owned particles: d[j] joins xs-1+j and xs+j."""
        lo, hi = self.xs - self.gxs, self.xe - self.gxs
        left = ughost[lo - 1] if self.xs > 0 else 0.0  # the wall
        right = ughost[hi] if self.xe < self.n else 0.0
        return np.diff(np.concatenate(([left], ughost[lo:hi], [right])))

    def force(self, ughost, v):
        d = self.stretches(ughost)
        dphi = self.k * d + self.beta * d**3
        return dphi[:-1] - dphi[1:] + self.c * v

    def stiffness_entries(self, ughost):
        """For each owned particle: its local (ghosted) index and the K entries to i-1, i, i+1."""
        s = self.k + 3 * self.beta * self.stretches(ughost) ** 2
        for j, i in enumerate(range(self.xs, self.xe)):
            li = i - self.gxs
            cols, vals = [li], [s[j] + s[j + 1]]
            if i > 0:
                cols.append(li - 1)
                vals.append(-s[j])
            if i < self.n - 1:
                cols.append(li + 1)
                vals.append(-s[j + 1])
            yield li, cols, vals

    def energy_density(self, ughost, v):
        """Kinetic energy of each particle and potential of the spring on its left (and the right
        wall's spring on the last particle); their sum over all ranks (Vec.sum) is the energy."""
        d = self.stretches(ughost)
        phi = 0.5 * self.k * d**2 + 0.25 * self.beta * d**4
        e = 0.5 * self.m * v**2 + phi[:-1]
        if self.xe == self.n:
            e[-1] += phi[-1]
        return e

    def initial(self):
        x = (np.arange(self.xs, self.xe) + 1) / (self.n + 1)
        return self.amplitude * np.sin(np.pi * x) + 0.5 * self.amplitude * np.sin(3 * np.pi * x)

    # ---- second-order form: F = m A + f(U, V), J = shiftA m I + shiftV c I + K -------------
    def i2function(self, ts, t, U, V, A, F):
        self.da.globalToLocal(U, self.ul)
        F.setArray(self.m * A.getArray(readonly=True) + self.force(self.ul.getArray(readonly=True), V.getArray(readonly=True)))

    def i2jacobian(self, ts, t, U, V, A, shiftV, shiftA, J, P):
        self.da.globalToLocal(U, self.ul)
        P.zeroEntries()
        for li, cols, vals in self.stiffness_entries(self.ul.getArray(readonly=True)):
            vals[0] += shiftA * self.m + shiftV * self.c
            P.setValuesLocal([li], cols, vals, addv=PETSc.InsertMode.INSERT_VALUES)
        P.assemble()
        if J != P:
            J.assemble()
        return True

    # ---- first-order form X = [u, w]: G = [u' - w; m w' + f(u, w)] ---------------------------
    def ifunction(self, ts, t, X, Xdot, G):
        self.da2.globalToLocal(X, self.xl)
        xg = self.xl.getArray(readonly=True).reshape(-1, 2)
        x = X.getArray(readonly=True).reshape(-1, 2)
        xd = Xdot.getArray(readonly=True).reshape(-1, 2)
        g = np.empty_like(x)
        g[:, 0] = xd[:, 0] - x[:, 1]
        g[:, 1] = self.m * xd[:, 1] + self.force(xg[:, 0], x[:, 1])
        G.setArray(g.ravel())

    def ijacobian(self, ts, t, X, Xdot, shift, J, P):
        self.da2.globalToLocal(X, self.xl)
        xg = self.xl.getArray(readonly=True).reshape(-1, 2)
        P.zeroEntries()
        for li, cols, vals in self.stiffness_entries(xg[:, 0]):
            P.setValuesLocal([2 * li], [2 * li, 2 * li + 1], [shift, -1.0], addv=PETSc.InsertMode.INSERT_VALUES)
            rowv = [2 * c for c in cols] + [2 * li + 1]
            P.setValuesLocal([2 * li + 1], rowv, vals + [shift * self.m + self.c], addv=PETSc.InsertMode.INSERT_VALUES)
        P.assemble()
        if J != P:
            J.assemble()
        return True


def configure(ts, prefix, dt, steps):
    ts.setOptionsPrefix(prefix)
    ts.setTimeStep(dt)
    ts.setMaxSteps(steps)
    ts.setMaxTime(dt * steps * 2)
    ts.setExactFinalTime(PETSc.TS.ExactFinalTime.MATCHSTEP)
    # fixed steps (TSALPHA2 would adapt its own): petsc4py 3.18 has no TS.getAdapt(), so an option
    opts = PETSc.Options()
    if not opts.hasName(f"{prefix}ts_adapt_type"):
        opts.setValue(f"{prefix}ts_adapt_type", "none")
    # a direct solve and tight Newton tolerances: the schemes' own difference is then all that is left
    snes = ts.getSNES()
    snes.setTolerances(rtol=1e-12, atol=1e-12, stol=1e-14, max_it=50)
    ksp = snes.getKSP()
    ksp.setType("preonly")
    ksp.getPC().setType("redundant")


def run(ts, label):
    t0 = time.perf_counter()
    ts.setFromOptions()
    ts.solve(ts.getSolution())
    if ts.getConvergedReason() < 0 or ts.getStepNumber() != ts.getMaxSteps():
        raise RuntimeError(f"{label}: the integration failed ({ts.getConvergedReason()}) after {ts.getStepNumber()} steps")
    return time.perf_counter() - t0


def main():
    opts = PETSc.Options()
    comm = PETSc.COMM_WORLD
    tstype = opts.getString("chain_type", "midpoint2")
    dt = opts.getReal("chain_dt", 0.05)
    steps = opts.getInt("chain_steps", 100)
    rtol = opts.getReal("chain_rtol", 1e-8)
    if tstype not in ORACLES:
        error(f"-chain_type {tstype}: allowed are {', '.join(ORACLES)} (the implicit tsmech types with a PETSc first-order twin)")
        return 2
    try:
        chain = Chain(opts, comm)
    except ValueError as e:
        error(str(e))
        return 2
    da, da2 = chain.da, chain.da2

    def second_order(prefix, typename):
        ts = PETSc.TS().create(comm=comm)
        # each TS its own copy of the DM: PETSc keeps the TS's and SNES's callbacks on the DM
        ts.setDM(da.clone())
        try:
            ts.setType(typename)
        except PETSc.Error:
            error(
                f"TS type {typename} is not registered: import tsmech, or load the library when PETSc "
                "initializes, with -dll_append /path/to/libtsmech.so on the command line or in PETSC_OPTIONS"
            )
            raise SystemExit(1)
        ts.setI2Function(chain.i2function, da.createGlobalVec())
        J = da.createMat()
        ts.setI2Jacobian(chain.i2jacobian, J, J)
        configure(ts, prefix, dt, steps)
        u, v = da.createGlobalVec(), da.createGlobalVec()
        u.setArray(chain.initial())
        v.set(0.0)
        ts.setSolution2(u, v)
        return ts, u, v

    # the tsmech type and TSALPHA2 on the second-order form
    ts_mech, u_mech, v_mech = second_order("tsmech_", tstype)
    ts_alpha, u_alpha, v_alpha = second_order("alpha_", PETSc.TS.Type.ALPHA2)
    # the oracle: PETSc's first-order type with the same scheme on X = [u; u']
    ts_ref = PETSc.TS().create(comm=comm)
    ts_ref.setDM(da2)
    reftype, theta = ORACLES[tstype]
    ts_ref.setType(reftype)
    if theta is not None:
        ts_ref.setTheta(theta)
        ts_ref.setThetaEndpoint(False)
    ts_ref.setIFunction(chain.ifunction, da2.createGlobalVec())
    J2 = da2.createMat()
    ts_ref.setIJacobian(chain.ijacobian, J2, J2)
    configure(ts_ref, "oracle_", dt, steps)
    X = da2.createGlobalVec()
    x = np.zeros((chain.xe - chain.xs, 2))
    x[:, 0] = chain.initial()
    X.setArray(x.ravel())
    ts_ref.setSolution(X)

    timing = {}
    timing["mech"] = run(ts_mech, tstype)
    timing["alpha"] = run(ts_alpha, "alpha2")
    timing["ref"] = run(ts_ref, reftype)
    if ts_mech.getType() != tstype:
        error(f"the run used TS type {ts_mech.getType()}, not {tstype}")
        raise SystemExit(1)

    # the oracle's state as two Vecs laid out like the second-order ones
    u_ref, v_ref = da.createGlobalVec(), da.createGlobalVec()
    xr = ts_ref.getSolution().getArray(readonly=True).reshape(-1, 2)
    u_ref.setArray(xr[:, 0])
    v_ref.setArray(xr[:, 1])

    def difference(u, v):
        """max(|u - u_ref|, |v - v_ref|) relative to the size of the reference state"""
        du, dv = u.copy(), v.copy()
        du.axpy(-1.0, u_ref)
        dv.axpy(-1.0, v_ref)
        scale = max(u_ref.norm(PETSc.NormType.INFINITY), v_ref.norm(PETSc.NormType.INFINITY))
        return max(du.norm(PETSc.NormType.INFINITY), dv.norm(PETSc.NormType.INFINITY)) / scale

    def energy(u, v):
        ul = da.createLocalVec()
        da.globalToLocal(u, ul)
        e = da.createGlobalVec()
        e.setArray(chain.energy_density(ul.getArray(readonly=True), v.getArray(readonly=True)))
        return e.sum()

    e0u, e0v = da.createGlobalVec(), da.createGlobalVec()
    e0u.setArray(chain.initial())
    e0v.set(0.0)
    e0 = energy(e0u, e0v)
    d_mech, d_alpha = difference(u_mech, v_mech), difference(u_alpha, v_alpha)
    oracle = f"{reftype}" + (f" (theta {theta})" if theta is not None else "")
    P = PETSc.Sys.Print
    P(f"FPU-beta chain: {chain.n} particles on {comm.getSize()} rank(s), beta = {chain.beta:g}, {steps} steps of {dt:g} to t = {ts_ref.getTime():g}")
    P(f"oracle: PETSc {oracle} on the first-order form [u; u'] (2N = {2 * chain.n} unknowns)")
    P(f"{'type':<10} {'unknowns':>8} {'Newton its':>10} {'energy':>12} {'rel. difference to the oracle':>30} {'time [s]':>9}")
    for name, ts, u, v, d, key, nunk in (
        (tstype, ts_mech, u_mech, v_mech, d_mech, "mech", chain.n),
        ("alpha2", ts_alpha, u_alpha, v_alpha, d_alpha, "alpha", chain.n),
    ):
        P(f"{name:<10} {nunk:>8} {ts.getSNESIterations():>10} {energy(u, v):>12.8f} {d:>30.3e} {timing[key]:>9.3f}")
    P(f"{reftype:<10} {2 * chain.n:>8} {ts_ref.getSNESIterations():>10} {energy(u_ref, v_ref):>12.8f} {0.0:>30.3e} {timing['ref']:>9.3f}")
    P(f"initial energy {e0:.8f} (the dampers take some)")
    if not d_mech <= rtol:
        error(f"{tstype} differs from PETSc's {oracle} by {d_mech:.3e} > -chain_rtol {rtol:g}")
        return 1
    P(f"{tstype} agrees with PETSc's {oracle} to {d_mech:.1e} (-chain_rtol {rtol:g})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
