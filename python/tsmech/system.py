"""Mechanical systems from Python: tsmech's built-in models by name (Model) and models written in
Python (System), both attached to a petsc4py TS and run by any TS type."""
import ctypes
import math
import traceback

import numpy as np
from petsc4py import PETSc

from . import _lib
from ._lib import Bool, ErrorCode, Handle, Int, Real, call, handle, wrap

# the callback types of include/tsmech.h
_ForceFn = ctypes.CFUNCTYPE(ErrorCode, Handle, Real, Handle, Handle, Handle, Handle)
_TangentFn = ctypes.CFUNCTYPE(ErrorCode, Handle, Real, Handle, Handle, Real, Real, Handle, Handle)
_LinearizeFn = ctypes.CFUNCTYPE(ErrorCode, Handle, Real, Handle, Handle, Real, Real, Handle)
_ApplyFn = ctypes.CFUNCTYPE(ErrorCode, Handle, Handle, Handle, Handle)
_ScalarFn = ctypes.CFUNCTYPE(ErrorCode, Handle, Real, Handle, Handle, ctypes.POINTER(Real), Handle)
_ExactFn = ctypes.CFUNCTYPE(ErrorCode, Handle, Real, Handle, Handle, Handle)

# The key of the C system's petsc4py attribute that keeps its Python callbacks: they live exactly
# as long as the C system (a TS holds a reference to it, and may outlive the Python object), and
# petsc4py drops them with it, never after the interpreter has ended (see _life.py)
_CALLBACKS = "tsmech.callbacks"


class _Mechanical:
    """What a built-in model and a Python system share: the C MechSystem, its TS, state and energy."""

    _obj = None  # the petsc4py object holding the C MechSystem
    ts = None

    def _hold(self, handle):
        """Holds the C system of a new reference (handle) through a petsc4py object, whose end
        is petsc4py's (see _life.py), and lets the handle's reference go."""
        self._obj = _lib.wrap("Object", handle.value)
        call("MechSystemDestroy", ctypes.byref(handle))

    @property
    def _sys(self):
        if self._obj is None or not self._obj.handle:
            raise _lib.Error(f"tsmech.{type(self).__name__}: used after destroy()")
        return Handle(self._obj.handle)

    def _vec(self, x, what):
        return _lib.checked(x, PETSc.Vec, f"tsmech.{type(self).__name__}.{what}")

    def attach(self, ts):
        """Attaches the system to ts (TSMechSetSystem: I2Function/I2Jacobian for the second-order
        types and alpha2, the first-order form for PETSc's others); before ts.setFromOptions().
        Returns self."""
        call("TSMechSetSystem", _lib.checked(ts, PETSc.TS, "attach(ts)"), self._sys)
        self.ts = ts
        return self

    def _ts(self, ts):
        ts = ts if ts is not None else self.ts
        if ts is None:
            raise _lib.Error("no TS: attach the system to one first (system.attach(ts))")
        _lib.checked(ts, PETSc.TS, "ts")
        return ts

    @property
    def comm(self):
        return self._comm

    def create_state(self):
        """New petsc4py Vecs q, v holding the initial state, in the system's layout."""
        cq, cv = Handle(), Handle()
        call("MechSystemCreateState", self._sys, ctypes.byref(cq), ctypes.byref(cv))
        q, v = wrap("Vec", cq.value), wrap("Vec", cv.value)
        call("VecDestroy", ctypes.byref(cq))  # the petsc4py objects hold their own references
        call("VecDestroy", ctypes.byref(cv))
        return q, v

    def set_solution(self, q, v, ts=None):
        """TSMechSetSolution: the initial state for the TS's type (after ts.setFromOptions())."""
        set_solution(self._ts(ts), q, v)

    def get_solution(self, q, v, ts=None):
        """TSMechGetSolution: the TS's current state into q and v, whichever form it runs."""
        get_solution(self._ts(ts), q, v)

    def energy(self, q, v, t=0.0):
        """(kinetic, potential) at the state: global values, the same on every rank."""
        k, p = Real(), Real()
        call("MechSystemComputeEnergy", self._sys, Real(_lib.finite(t, "energy(t)")), self._vec(q, "energy(q)"), self._vec(v, "energy(v)"), ctypes.byref(k), ctypes.byref(p))
        return k.value, p.value

    def force(self, q, v, t=0.0, f=None):
        """f(t, q, v) as the integrators see it (fixed dofs zeroed) in f or a new Vec."""
        sys_, hq, hv = self._sys, self._vec(q, "force(q)"), self._vec(v, "force(v)")
        f = f if f is not None else q.duplicate()
        call("MechSystemComputeForce", sys_, Real(_lib.finite(t, "force(t)")), hq, hv, self._vec(f, "force(f)"))
        return f

    def operator(self, q, v, cK, cD=0.0, cM=0.0, t=0.0):
        """A new matrix cK K + cD D + cM M at (t, q, v) (fixed dofs decoupled)."""
        hq, hv = self._vec(q, "operator(q)"), self._vec(v, "operator(v)")
        c = [_lib.finite(x, f"operator({n})") for x, n in ((cK, "cK"), (cD, "cD"), (cM, "cM"), (t, "t"))]
        J = Handle()
        call("MechSystemCreateOperator", self._sys, ctypes.byref(J))
        A = wrap("Mat", J.value)
        call("MatDestroy", ctypes.byref(J))
        call("MechSystemComputeOperator", self._sys, Real(c[3]), hq, hv, Real(c[0]), Real(c[1]), Real(c[2]), handle(A))
        return A

    def modes(self, n, q=None, v=None, t=0.0):
        """The n lowest natural frequencies and mode shapes of K(t, q, v) x = omega^2 M x with the fixed
        dofs removed (MechModesCompute; q, v: the initial state if not given; SLEPc's options under the
        prefix modes_). Returns a dict: frequency (Hz; 0 for a rigid mode), eigenvalue (omega^2), rigid
        (bool), shapes (M-normalized petsc4py Vecs like the state), participation and effective_mass
        (n x 3: per direction, for a state of points in 3-D)."""
        if q is None or v is None:
            q0, v0 = self.create_state()
            q, v = q if q is not None else q0, v if v is not None else v0
        m = Handle()
        call("MechModesCreate", self._sys, ctypes.byref(m))
        try:
            call("MechModesSetDimension", m, Int(n))
            call("MechModesCompute", m, Real(t), handle(q), handle(v))
            out = dict(frequency=np.zeros(n), eigenvalue=np.zeros(n), rigid=np.zeros(n, dtype=bool), shapes=[],
                       participation=np.zeros((n, 3)), effective_mass=np.zeros((n, 3)))
            hz, lam, rigid = Real(), Real(), Bool()
            gamma, meff = (Real * 3)(), (Real * 3)()
            for i in range(n):
                call("MechModesGetFrequency", m, Int(i), ctypes.byref(hz), ctypes.byref(lam), ctypes.byref(rigid))
                call("MechModesGetParticipation", m, Int(i), gamma, meff, None)
                x = q.duplicate()
                call("MechModesGetShape", m, Int(i), handle(x))
                out["frequency"][i], out["eigenvalue"][i], out["rigid"][i] = hz.value, lam.value, bool(rigid.value)
                out["participation"][i], out["effective_mass"][i] = list(gamma), list(meff)
                out["shapes"].append(x)
            return out
        finally:
            call("MechModesDestroy", ctypes.byref(m))

    @property
    def name(self):
        s = ctypes.c_char_p()
        call("MechSystemGetModelName", self._sys, ctypes.byref(s))
        return s.value.decode() if s.value else ""

    @property
    def parameters(self):
        """The model's parameters (name: value), as recorded in output files and checkpoints."""
        n, names, values = Int(), ctypes.POINTER(ctypes.c_char_p)(), ctypes.POINTER(Real)()
        call("MechSystemGetParameters", self._sys, ctypes.byref(n), ctypes.byref(names), ctypes.byref(values))
        return {names[i].decode(): values[i] for i in range(n.value)}

    @property
    def dm(self):
        d = Handle()
        call("MechSystemGetDM", self._sys, ctypes.byref(d))
        return wrap("DM", d.value)

    def destroy(self):
        """Drops this object's reference to the C system (a TS keeps its own); using the object
        afterwards raises tsmech.Error."""
        if self._obj is not None and self._obj.handle:
            self._obj.destroy()


def set_solution(ts, q, v):
    """TSMechSetSolution: (q, v) for a second-order type, [q; v] for a first-order one."""
    call("TSMechSetSolution", _lib.checked(ts, PETSc.TS, "set_solution(ts)"), _lib.checked(q, PETSc.Vec, "set_solution(q)"), _lib.checked(v, PETSc.Vec, "set_solution(v)"))


def get_solution(ts, q, v):
    """TSMechGetSolution: the current state of ts into q and v."""
    call("TSMechGetSolution", _lib.checked(ts, PETSc.TS, "get_solution(ts)"), _lib.checked(q, PETSc.Vec, "get_solution(q)"), _lib.checked(v, PETSc.Vec, "get_solution(v)"))


class Model(_Mechanical):
    """A built-in model by name (tsmech.MODELS: oscillator, pair, chain, kepler, cloth, lattice,
    solid), its options read with the name as prefix (-chain_n ...), as by the tsmech program."""

    def __init__(self, name, comm=None, ts=None):
        self._comm = comm if comm is not None else PETSc.COMM_WORLD
        h = Handle()
        call("MechCreateModel", _lib.comm_handle(self._comm), _lib.text(name, "tsmech.Model(name)"), ctypes.byref(h))
        self._hold(h)
        if ts is not None:
            self.attach(ts)


class System(_Mechanical):
    """A mechanical system M q'' + f(t, q, q') = 0 written in Python.

    Its state lives on a petsc4py DM (dm=, e.g. a DMDA: the state is a global vector of the DM,
    and output and checkpoints store it in the DM's natural ordering) or on plain Vecs of a
    given layout (size= the global size, or (local, global)).

    mass       the constant mass matrix: a PETSc.Mat, or a number or Vec for a lumped (diagonal) mass
    force      force(t, q, v, f): fill the Vec f with f(t, q, v) (q, v, f are petsc4py Vecs in the
               system's layout; entries of fixed dofs are zeroed afterwards)
    tangent    tangent(t, q, v, cK, cD, J): J = cK K + cD D, with K = df/dq, D = df/dv. J arrives
               zeroed with its structure kept: set or add the values (it is assembled afterwards
               if the callback did not). Called with cD = 0 only if damping is False.
    matrix     the tangent's matrix, preallocated with every entry the callback will set and the
               diagonal (default: dm.createMat(), or a diagonal matrix without a DM)
    damping    whether D can be non-zero (False: the tangent is never asked for D)
    action     (linearize, apply) for matrix-free Jacobians (-ts_theta_matrix_free):
               linearize(t, q, v, cK, cD) prepares, apply(w, y) sets y = (cK K + cD D) w
    potential  potential(t, q, v) -> float: the GLOBAL potential energy, the same on every rank
               (use Vec.dot/Vec.sum or a reduction); the kinetic energy comes from M
    exact      exact(t, q, v): fill q and v with the exact solution
    invariants {name: fn(t, q, v) -> float (global)} recorded in the output's /monitor
    fixed      global indices owned by this rank held fixed, at fixed_values (a Vec; default:
               the initial state)
    initial    (q0, v0) the initial state (default zero; also set_initial())
    name, parameters  the model's name and {parameter: float}, recorded in output and checkpoints
               (a checkpoint restarts only a system of the same name and parameters)
    linear     f affine in (q, v): K and D constant, the integrators assemble once

    Every callback runs on every rank with the distributed Vecs. A Python exception in a callback
    makes the library call fail with the exception's text (PETSc error 83, PETSC_ERR_USER) on
    every rank at once; system.exception keeps the exception on the rank where it happened.
    """

    def __init__(self, comm=None, *, mass, force, tangent, matrix=None, damping=True, action=None, potential=None,
                 exact=None, invariants=None, dm=None, size=None, fixed=None, fixed_values=None, initial=None,
                 name="python", parameters=None, linear=False, prefix=None):
        what = "tsmech.System"
        if dm is not None:
            _lib.checked(dm, PETSc.DM, f"{what}(dm)")
            comm = comm if comm is not None else dm.getComm()
        if comm is not None and not isinstance(comm, PETSc.Comm):
            raise TypeError(f"{what}(comm): expected a PETSc.Comm, got {type(comm).__name__}")
        self._comm = comm if comm is not None else PETSc.COMM_WORLD
        if dm is None and size is None and not isinstance(mass, PETSc.Mat):
            raise ValueError(f"{what}: give dm=, size= or the mass as a PETSc.Mat (the layout of the state)")
        for fn, n in ((force, "force"), (tangent, "tangent"), (potential, "potential"), (exact, "exact")):
            if fn is not None and not callable(fn):
                raise TypeError(f"{what}({n}={fn!r}): expected a function")
        if action is not None and (len(action) != 2 or not all(callable(fn) for fn in action)):
            raise TypeError(f"{what}(action={action!r}): expected (linearize, apply), two functions")
        invariants, parameters = dict(invariants or {}), dict(parameters or {})
        for iname, fn in invariants.items():
            _lib.text(iname, f"{what}(invariants) name")
            if not callable(fn):
                raise TypeError(f"{what}(invariants[{iname!r}]={fn!r}): expected a function")
        # a checkpoint restarts only a system of equal parameters, which NaN never is
        values = {p: _lib.finite(v, f"{what}(parameters[{p!r}])") for p, v in parameters.items()}
        names = {p: _lib.text(p, f"{what}(parameters) name") for p in parameters}
        # what the callbacks use lives in its own object, not in self: the C system keeps the
        # callbacks (and so this object) alive, and self may go before it
        self._cb = cb = _Callbacks(dm)
        h = Handle()
        call("MechSystemCreate", _lib.comm_handle(self._comm), ctypes.byref(h))
        self._hold(h)
        keep = []
        self._obj.setAttr(_CALLBACKS, keep)
        if prefix is not None:
            call("MechSystemSetOptionsPrefix", self._sys, _lib.text(prefix, f"{what}(prefix)"))
        if dm is not None:
            call("MechSystemSetDM", self._sys, handle(dm))
        M = self._mass(mass, dm, size)
        call("MechSystemSetMass", self._sys, handle(M))
        self._layout = M
        keep.append(cb.callback(_ForceFn, _force_cb(cb, force), "force"))
        call("MechSystemSetForce", self._sys, keep[-1], None)
        if matrix is None:
            matrix = dm.createMat() if dm is not None else self._diagonal_matrix(M)
        keep.append(cb.callback(_TangentFn, _tangent_cb(cb, tangent), "tangent"))
        call("MechSystemSetTangent", self._sys, _lib.checked(matrix, PETSc.Mat, f"{what}(matrix)"), Bool(bool(damping)), keep[-1], None)
        if action is not None:
            linearize, apply = action
            keep.append(cb.callback(_LinearizeFn, lambda s, t, q, v, cK, cD, ctx: linearize(t, cb.vec(q), cb.vec(v), cK, cD), "tangent linearization"))
            keep.append(cb.callback(_ApplyFn, lambda s, w, y, ctx: apply(cb.vec(w), cb.vec(y)), "tangent action"))
            call("MechSystemSetTangentAction", self._sys, keep[-2], keep[-1], None)
        if potential is not None:
            keep.append(cb.callback(_ScalarFn, _scalar_cb(cb, potential, "potential"), "potential"))
            call("MechSystemSetPotential", self._sys, keep[-1], None)
        if exact is not None:
            keep.append(cb.callback(_ExactFn, lambda s, t, q, v, ctx: exact(t, cb.vec(q), cb.vec(v)), "exact solution"))
            call("MechSystemSetExactSolution", self._sys, keep[-1], None)
        for iname, fn in invariants.items():
            keep.append(cb.callback(_ScalarFn, _scalar_cb(cb, fn, f"invariant {iname}"), f"invariant {iname}"))
            call("MechSystemAddInvariant", self._sys, iname.encode(), keep[-1], None)
        call("MechSystemSetModelName", self._sys, _lib.text(name, f"{what}(name)"))
        for pname, value in values.items():
            call("MechSystemAddParameter", self._sys, names[pname], Real(value))
        if linear:
            call("MechSystemSetLinear", self._sys, Bool(1))
        if initial is not None:
            if len(initial) != 2:
                raise TypeError(f"{what}(initial={initial!r}): expected (q0, v0), two PETSc.Vecs")
            self.set_initial(*initial)
        if fixed is not None:
            indices = np.asarray(fixed, dtype=PETSc.IntType)
            iset = PETSc.IS().createGeneral(indices, comm=self._comm)
            hfixed = _lib.checked(fixed_values, PETSc.Vec, f"{what}(fixed_values)") if fixed_values is not None else None
            call("MechSystemSetFixed", self._sys, handle(iset), hfixed)

    # ---- construction ---------------------------------------------------------------------
    def _mass(self, mass, dm, size):
        """The mass matrix: the Mat given, or a diagonal one of a lumped mass, whose entries must
        be positive and finite (M is symmetric positive definite)."""
        what = "tsmech.System(mass)"
        if isinstance(mass, PETSc.Mat):
            _lib.checked(mass, PETSc.Mat, what)
            return mass
        if dm is not None:
            d = dm.createGlobalVec()
        else:
            if isinstance(size, tuple):
                size = tuple(_lib.integer(n, "tsmech.System(size)", 0) if n is not None else None for n in size)
            else:
                size = _lib.integer(size, "tsmech.System(size)", 1)
            d = PETSc.Vec().createMPI(size, comm=self._comm)
        if isinstance(mass, PETSc.Vec):
            _lib.checked(mass, PETSc.Vec, what)
            mass.copy(d)
        elif np.isscalar(mass):
            if not _lib.finite(mass, what) > 0:
                raise ValueError(f"{what}={mass}: must be positive (the mass matrix is positive definite)")
            d.set(float(mass))
        else:
            d.setArray(np.asarray(mass, dtype=float))
        # one reduction: the number of entries that are not positive and finite
        a = d.getArray(readonly=True)
        bad = d.duplicate()
        bad.setArray((~(np.isfinite(a) & (a > 0))).astype(float))
        nbad = bad.sum()
        bad.destroy()
        if nbad > 0:
            raise ValueError(f"{what}: {int(nbad)} entr{'y is' if nbad == 1 else 'ies are'} not positive and finite (the mass matrix is positive definite)")
        return self._diagonal_matrix(d, d)

    def _diagonal_matrix(self, layout, diag=None):
        """An AIJ matrix with the layout of the Vec or Mat given and only its diagonal."""
        if isinstance(layout, PETSc.Mat):
            layout = layout.createVecs("right")
        A = PETSc.Mat().createAIJ((layout.getSizes(), layout.getSizes()), nnz=(1, 0), comm=self._comm)
        if diag is None:
            diag = layout.duplicate()
            diag.set(0.0)
        A.setDiagonal(diag)
        A.assemble()
        return A

    def set_initial(self, q, v):
        """The initial state (copied): what create_state() returns and checkpoints compare with."""
        call("MechSystemSetInitialState", self._sys, self._vec(q, "initial q"), self._vec(v, "initial v"))

    # ---- helpers for callbacks --------------------------------------------------------------
    @property
    def exception(self):
        """The exception a callback raised on this rank (None if none did)."""
        return self._cb.exception

    @property
    def traceback(self):
        return self._cb.traceback

    def local(self, x):
        """The ghosted local array of the global Vec x on the system's DM (globalToLocal into a
        work vector kept per shape): read-only numpy array."""
        dm = self._cb.dm
        if dm is None:
            return x.getArray(readonly=True)
        if self._cb.xl is None:
            self._cb.xl = dm.createLocalVec()
        dm.globalToLocal(x, self._cb.xl)
        return self._cb.xl.getArray(readonly=True)


class _Callbacks:
    """The state of a Python system's callbacks: the petsc4py objects of the handles the library
    passes and the last exception."""

    def __init__(self, dm):
        self.dm = dm
        self.xl = None
        self.cache = {}
        self.exception = None
        self.traceback = None

    def vec(self, h):
        """The petsc4py Vec of a handle; cached (the integrators pass the same work vectors every
        step, and the cache's reference keeps a handle from being reused while cached)."""
        obj = self.cache.get(h)
        if obj is None:
            if len(self.cache) > 256:
                self.cache.clear()
            obj = self.cache[h] = wrap("Vec", h)
        return obj

    def mat(self, h):
        obj = self.cache.get(h)
        if obj is None:
            obj = self.cache[h] = wrap("Mat", h)
        return obj

    def callback(self, ctype, fn, what):
        """The C function of a Python callback: 0 on success; a Python exception is kept and
        becomes a PETSc error with its text, which the library raises on every rank."""

        def guarded(*args):
            try:
                fn(*args)
                return 0
            except BaseException as e:  # noqa: B902 - every exception must become an error code
                self.exception = e
                self.traceback = traceback.format_exc()
                return _lib.set_error(f"Python {what} callback raised {type(e).__name__}: {e}")

        return ctype(guarded)


def _force_cb(cb, force):
    return lambda s, t, q, v, f, ctx: force(t, cb.vec(q), cb.vec(v), cb.vec(f))


def _tangent_cb(cb, tangent):
    def run(s, t, q, v, cK, cD, J, ctx):
        A = cb.mat(J)
        tangent(t, cb.vec(q), cb.vec(v), cK, cD, A)
        if not A.assembled:
            A.assemble()

    return run


def _scalar_cb(cb, fn, what):
    def run(s, t, q, v, out, ctx):
        value = float(fn(t, cb.vec(q), cb.vec(v)))
        if math.isnan(value):
            # recorded as the energy it would pass silently; an infinite one is the run guard's
            raise ValueError(f"the {what} is NaN at t = {t:g}")
        out[0] = value

    return run
