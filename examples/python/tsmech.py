"""tsmech's models and HDF5 output from petsc4py, through ctypes over libtsmech.so.

    import petsc4py, sys
    petsc4py.init(sys.argv)
    from petsc4py import PETSc
    import tsmech                                   # examples/python/tsmech.py

    lib = tsmech.load("/usr/local/lib/x86_64-linux-gnu/libtsmech.so")
    ts = PETSc.TS().create()
    model = tsmech.Model(ts, "chain")               # MechCreateModel + TSMechSetSystem
    ts.setType("midpoint2"); ts.setTimeStep(0.01); ts.setMaxSteps(100)
    ts.setFromOptions()                             # any -ts_type, also alpha2 and first-order types
    q, v = model.create_state()                     # petsc4py Vecs holding the initial state
    model.set_solution(q, v)
    with tsmech.Output(model, "run.h5", every=10):  # the HDF5 layout of the README
        ts.solve(ts.getSolution())
    model.get_solution(q, v)
    kinetic, potential = model.energy(q, v)

load() opens the library with RTLD_GLOBAL and calls TSMechInitializePackage(), which registers
the tsmech TS types: after load() they are available even when PETSc was initialized without
-dll_append. On several ranks it also makes an uncaught exception end the job (the rank's traceback
on stderr, then MPI_Abort), as mpi4py's "python -m mpi4py" does: an exception on some ranks only
would otherwise leave the others waiting in their next collective operation, and the failing
rank's own clean-up at exit (PETSc's finalization) waiting for them. A model's error in a
callback is already raised on every rank alike (the library agrees on it collectively). Every call is collective on the TS's communicator, as in C. A PETSc error raises
tsmech.Error naming the C function (PETSc prints its own trace on stderr as well).
Needs Debian's python3-petsc4py (3.18) and an Open MPI build of PETSc (MPI_Comm is a pointer).
"""
import ctypes
import sys
import traceback

from petsc4py import PETSc

_lib = None
_petsc = None


class Error(RuntimeError):
    pass


_previous_excepthook = None


def _abort_on_uncaught(exc_type, exc, tb):
    """sys.excepthook on several ranks: tell the exception, then end every rank"""
    comm = PETSc.COMM_WORLD
    if comm.getSize() > 1:
        text = "".join(traceback.format_exception(exc_type, exc, tb))
        sys.stderr.write(f"[rank {comm.getRank()}] uncaught exception, ending every rank:\n{text}")
        sys.stderr.flush()
        # MPI_Abort on PETSc's world communicator (an Open MPI MPI_Comm is a pointer)
        _lib.MPI_Abort(ctypes.c_void_p.in_dll(_lib, "PETSC_COMM_WORLD"), ctypes.c_int(1))
    _previous_excepthook(exc_type, exc, tb)


def _check(name, ierr):
    if ierr != 0:
        raise Error(f"{name} failed with PETSc error code {ierr}")


def _call(lib, name, *args):
    _check(name, getattr(lib, name)(*args))


def _handle(obj):
    return ctypes.c_void_p(obj.handle)


def load(path):
    """Opens libtsmech.so (and the PETSc library it is linked with) and registers the TS types."""
    global _lib, _petsc
    if _lib is None:
        _lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        # PETSc's own entry points: dlsym() on libtsmech's handle also searches the libraries it
        # is linked with, the very libpetsc that petsc4py uses
        _petsc = _lib
        _call(_lib, "TSMechInitializePackage")
        global _previous_excepthook
        if _previous_excepthook is None:
            _previous_excepthook = sys.excepthook
            sys.excepthook = _abort_on_uncaught
    return _lib


def _need():
    if _lib is None:
        raise Error("call tsmech.load(path to libtsmech.so) first")
    return _lib


class Model:
    """A tsmech model (MechCreateModel) attached to a petsc4py TS (TSMechSetSystem); its options
    are read with the model's name as prefix (-chain_n, ...), as by the tsmech program."""

    def __init__(self, ts, name):
        lib = _need()
        self.ts = ts
        self.name = name
        comm = ctypes.c_void_p()
        _call(_petsc, "PetscObjectGetComm", _handle(ts), ctypes.byref(comm))
        self.sys = ctypes.c_void_p()
        _call(lib, "MechCreateModel", comm, name.encode(), ctypes.byref(self.sys))
        _call(lib, "TSMechSetSystem", _handle(ts), self.sys)

    def destroy(self):
        if self.sys:
            _call(_need(), "MechSystemDestroy", ctypes.byref(self.sys))

    def __del__(self):
        try:
            self.destroy()
        except Exception:  # at interpreter exit PETSc may already be finalized
            pass

    def create_state(self):
        """New petsc4py Vecs q, v holding the model's initial state (the system's layout)."""
        cq, cv = ctypes.c_void_p(), ctypes.c_void_p()
        _call(_need(), "MechSystemCreateState", self.sys, ctypes.byref(cq), ctypes.byref(cv))
        out = []
        for c in (cq, cv):
            n, N = ctypes.c_int(), ctypes.c_int()
            _call(_petsc, "VecGetLocalSize", c, ctypes.byref(n))
            _call(_petsc, "VecGetSize", c, ctypes.byref(N))
            x = PETSc.Vec().createMPI((n.value, N.value), comm=self.ts.getComm())
            _call(_petsc, "VecCopy", c, _handle(x))
            _call(_petsc, "VecDestroy", ctypes.byref(c))
            out.append(x)
        return out[0], out[1]

    def set_solution(self, q, v):
        """TSMechSetSolution: the second-order form, or [q; v] for a first-order type (after setFromOptions)."""
        _call(_need(), "TSMechSetSolution", _handle(self.ts), _handle(q), _handle(v))

    def get_solution(self, q, v):
        """TSMechGetSolution: the TS's current state into q and v, whichever form it runs."""
        _call(_need(), "TSMechGetSolution", _handle(self.ts), _handle(q), _handle(v))

    def energy(self, q, v, t=0.0):
        """(kinetic, potential) at the state, the same global values on every rank."""
        k, p = ctypes.c_double(), ctypes.c_double()
        _call(_need(), "MechSystemComputeEnergy", self.sys, ctypes.c_double(t), _handle(q), _handle(v), ctypes.byref(k), ctypes.byref(p))
        return k.value, p.value


class Output:
    """MechOutput (HDF5, layout in the README) recording every step of the model's TS; a context
    manager that closes the file (the last snapshot, /monitor, the XDMF file) on leaving."""

    def __init__(self, model, filename, every=10):
        lib = _need()
        self.model = model
        self.out = ctypes.c_void_p()
        _call(lib, "MechOutputCreate", model.sys, _handle(model.ts), filename.encode(), ctypes.c_int(every), ctypes.byref(self.out))
        model.ts.setMonitor(self._record)

    def _record(self, ts, step, t, x):
        _call(_need(), "MechOutputRecord", self.out, _handle(ts))

    def close(self):
        if self.out:
            lib = _need()
            _call(lib, "MechOutputClose", self.out, _handle(self.model.ts))
            _call(lib, "MechOutputDestroy", ctypes.byref(self.out))
            self.model.ts.cancelMonitor()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
