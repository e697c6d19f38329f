#!/usr/bin/python3
"""A model written in Python: the Fermi-Pasta-Ulam-beta chain as a tsmech.System, with the
tsmech program's output, checkpoints and run guard, on any number of ranks.

    /usr/bin/python3 examples/python/fpu_chain.py
    mpiexec -n 3 /usr/bin/python3 examples/python/fpu_chain.py -ts_type cn2 -output fpu.h5

N particles of mass m between two walls (u = 0 beyond both ends) on a 1-D DMDA, neighbours
joined by springs of potential phi(d) = k d^2 / 2 + beta d^4 / 4 (d the stretch), a damper c on
every particle (tsmech's sign convention: the force on the left-hand side):

    m u_i'' + f_i(u, u') = 0,   f_i = phi'(u_i - u_{i-1}) - phi'(u_{i+1} - u_i) + c u_i'

Options: -fpu_n (64), -fpu_m (1), -fpu_k (1), -fpu_beta (1), -fpu_c (0), -fpu_amplitude (1),
-fpu_matrix_free (also give the tangent's action: -ts_theta_matrix_free uses it); the run:
-ts_type (midpoint2), -ts_dt (0.05), -ts_max_steps (200), -output FILE.h5, -output_every (10),
-checkpoint FILE.h5, -checkpoint_every N (0: at the end), -restart FILE.h5, -quiet, and every
-ts_, -snes_, -ksp_, -pc_ option. Prints the energy at the start and the end; exit status 3 when
the integration fails. tests/python/fpu_chain.c is the same chain in C.
"""
import os
import sys

import numpy as np
import petsc4py

petsc4py.init(sys.argv)
from petsc4py import PETSc  # noqa: E402

try:
    import tsmech  # installed, or PYTHONPATH=build/python (meson devenv)
except ImportError:  # run from the source tree after `make demo`: the build tree's copy
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "python"))
    import tsmech


class FPU:
    """The chain's force, tangent and energy on the ghosted arrays of its DMDA."""

    def __init__(self, opts, comm):
        self.n = opts.getInt("fpu_n", 64)
        self.m = opts.getReal("fpu_m", 1.0)
        self.k = opts.getReal("fpu_k", 1.0)
        self.beta = opts.getReal("fpu_beta", 1.0)
        self.c = opts.getReal("fpu_c", 0.0)
        self.amplitude = opts.getReal("fpu_amplitude", 1.0)
        if self.n < 2 or self.m <= 0 or self.k <= 0 or self.beta < 0 or self.c < 0:
            raise ValueError("-fpu_n must be at least 2, -fpu_m and -fpu_k positive, -fpu_beta and -fpu_c not negative")
        self.da = PETSc.DMDA().create([self.n], dof=1, stencil_width=1, comm=comm)
        (self.xs, self.xe), = self.da.getRanges()
        (self.gxs, self.gxe), = self.da.getGhostRanges()
        self.energy_vec = self.da.createGlobalVec()
        self.system = None  # set by main(): its local() gives the ghosted arrays

    def stretches(self, u):
        """The stretches of the springs touching the owned particles: d[j] joins xs-1+j and xs+j."""
        lo, hi = self.xs - self.gxs, self.xe - self.gxs
        left = u[lo - 1] if self.xs > 0 else 0.0  # the wall
        right = u[hi] if self.xe < self.n else 0.0
        return np.diff(np.concatenate(([left], u[lo:hi], [right])))

    def force(self, t, q, v, f):
        d = self.stretches(self.system.local(q))
        dphi = self.k * d + self.beta * d**3
        f.setArray(dphi[:-1] - dphi[1:] + self.c * v.getArray(readonly=True))

    def tangent(self, t, q, v, cK, cD, J):
        s = self.k + 3 * self.beta * self.stretches(self.system.local(q)) ** 2
        for j, i in enumerate(range(self.xs, self.xe)):
            cols, vals = [i], [cK * (s[j] + s[j + 1]) + cD * self.c]
            if i > 0:
                cols.append(i - 1)
                vals.append(-cK * s[j])
            if i < self.n - 1:
                cols.append(i + 1)
                vals.append(-cK * s[j + 1])
            J.setValues([i], cols, vals, addv=PETSc.InsertMode.ADD_VALUES)
        J.assemble()

    # the tangent's action y = (cK K + cD D) w, for matrix-free Jacobians
    def linearize(self, t, q, v, cK, cD):
        self.lin = (cK * (self.k + 3 * self.beta * self.stretches(self.system.local(q)) ** 2), cD * self.c)

    def apply(self, w, y):
        s, dc = self.lin
        wd = self.stretches(self.system.local(w))  # the walls hold: w = 0 beyond the ends
        y.setArray(s[:-1] * wd[:-1] - s[1:] * wd[1:] + dc * w.getArray(readonly=True))

    def potential(self, t, q, v):
        """The springs to the left of the owned particles (and the right wall's on the last
        rank), summed over the ranks by Vec.sum(): the same global value on every rank."""
        d = self.stretches(self.system.local(q))
        phi = 0.5 * self.k * d**2 + 0.25 * self.beta * d**4
        e = phi[:-1].copy()
        if self.xe == self.n:
            e[-1] += phi[-1]
        self.energy_vec.setArray(e)
        return self.energy_vec.sum()

    def initial(self):
        q = self.da.createGlobalVec()
        x = (np.arange(self.xs, self.xe) + 1) / (self.n + 1)
        q.setArray(self.amplitude * (np.sin(np.pi * x) + 0.5 * np.sin(3 * np.pi * x)))
        v = q.duplicate()
        v.set(0.0)
        return q, v


def error(msg, status=2):
    if PETSc.COMM_WORLD.getRank() == 0:
        print(f"fpu_chain.py: error: {msg}", file=sys.stderr, flush=True)
    return status


def main():
    opts = PETSc.Options()
    comm = PETSc.COMM_WORLD
    try:
        chain = FPU(opts, comm)
    except ValueError as e:
        return error(str(e))
    action = (chain.linearize, chain.apply) if opts.getBool("fpu_matrix_free", False) else None
    system = tsmech.System(dm=chain.da, mass=chain.m, force=chain.force, tangent=chain.tangent, damping=chain.c > 0,
                           action=action, potential=chain.potential, initial=chain.initial(), name="fpu",
                           parameters={"n": chain.n, "m": chain.m, "k": chain.k, "beta": chain.beta, "c": chain.c, "amplitude": chain.amplitude})
    chain.system = system
    output, every = opts.getString("output", ""), opts.getInt("output_every", 10)
    ckpath, ckevery = opts.getString("checkpoint", ""), opts.getInt("checkpoint_every", 0)
    restart = opts.getString("restart", "")

    ts = PETSc.TS().create(comm=comm)
    ts.setType("midpoint2")
    system.attach(ts)
    ts.setTimeStep(0.05)
    ts.setMaxSteps(200)
    ts.setMaxTime(1e30)
    ts.setExactFinalTime(PETSc.TS.ExactFinalTime.MATCHSTEP)
    ck = tsmech.Checkpoint(system, ts) if (ckpath or restart) else None
    if restart:
        try:
            ck.load(restart)
        except tsmech.Error as e:
            return error(f"-restart {restart}: {e}")
    ts.setFromOptions()
    q, v = system.create_state()
    if restart:
        ck.restore(q, v)
    else:
        system.set_solution(q, v)
    k0, p0 = system.energy(q, v)
    guard = tsmech.Guard(ts)
    out = tsmech.Output(system, output, every, cont=bool(restart)) if output else None
    if ckpath:
        ck.write_every(ckpath, ckevery, guard, out)
    reason = tsmech.solve(ts)
    if reason < 0:
        kind, dt, energy, why = guard.failure
        if out:
            out.close(record=False)
        return error(f"the integration failed at t = {ts.getTime():g} ({kind}{': ' + why if why else ''})", 3)
    if out:
        out.close()
    system.get_solution(q, v)
    k1, p1 = system.energy(q, v, ts.getTime())
    if not opts.getBool("quiet", False):
        P = PETSc.Sys.Print
        P(f"FPU chain of {chain.n} on {comm.getSize()} rank(s) / {ts.getType()}: {ts.getStepNumber()} steps to t = {ts.getTime():g}, {ts.getSNESIterations()} Newton iterations")
        P(f"energy K + V: {k0:.12g} + {p0:.12g} -> {k1:.12g} + {p1:.12g}" + (f"; output in {output}" if output else ""))
    if ck:
        ck.destroy()
    return 0


if __name__ == "__main__":
    sys.exit(main())
