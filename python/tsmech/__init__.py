"""tsmech from Python: PETSc time steppers for mechanical systems M q'' + f(t, q, q') = 0.

    import sys, petsc4py
    petsc4py.init(sys.argv)
    from petsc4py import PETSc
    import tsmech                       # registers the TS types (midpoint2, cn2, ...) and models

    ts = PETSc.TS().create()
    model = tsmech.Model("chain").attach(ts)        # a built-in model, options -chain_n ...
    ts.setType("midpoint2"); ts.setTimeStep(0.01); ts.setMaxSteps(100)
    ts.setFromOptions()                             # any -ts_type: tsmech's, alpha2, first-order ones
    q, v = model.create_state()
    model.set_solution(q, v)
    with tsmech.Output(model, "run.h5", every=10):  # the HDF5 layout of the README
        tsmech.solve(ts)
    run = tsmech.read("run.h5")                     # numpy arrays: run.time, run.q, run.energy ...

A model of one's own is a tsmech.System of Python callbacks (force, tangent, potential); see its
documentation. Every call is collective on the communicator of its objects, as in C.

The library is $TSMECH_LIB if set, else the libtsmech.so this package was configured with.
Importing the package registers the TS types in the running PETSc (no -dll_append needed) and,
on several ranks, makes an uncaught exception end every rank (the rank's traceback on stderr,
then MPI_Abort) unless every rank raised it alike.

The package's objects may be created anywhere (in functions, in exceptions), deleted early or
left to the garbage collector at the exit: nothing of theirs runs collectively at a moment that
differs between ranks, and nothing calls Python after the interpreter has ended (_life.py says
how). A destroyed or closed object raises tsmech.Error when used; arguments are checked before
they reach C (a ValueError or TypeError naming the argument), files by the tsmech program's
rules (tsmech.FileError).
"""
import ctypes

from petsc4py import PETSc

from . import _life, _lib
from ._lib import Error, FileError, library_path
from .balance import ENERGY_NAMES, energy_balance, reaction, set_balance
from .checkpoint import Checkpoint, Guard
from .output import Output, solve
from .reader import Run, read
from .system import Model, System, get_solution, set_solution

__version__ = "0.1.0"
__all__ = ["MODELS", "TS_TYPES", "TS_TYPE_DESCRIPTIONS", "Error", "FileError", "Model", "System", "Output", "Checkpoint", "Guard", "Run", "read", "solve",
           "set_solution", "get_solution", "library_path", "set_balance", "reaction", "energy_balance", "ENERGY_NAMES"]

_lib.call("TSMechInitializePackage")
_life.install_excepthook()
# the error paths of the world's objects need their communicator prepared where every rank passes
_life.agree_setup(PETSc.COMM_WORLD)


def _type_names():
    """The TS types as their registration lists them (TSMechGetTypeNames()), with their descriptions."""
    n = _lib.Int()
    names, descriptions = ctypes.POINTER(ctypes.c_char_p)(), ctypes.POINTER(ctypes.c_char_p)()
    _lib.call("TSMechGetTypeNames", ctypes.byref(n), ctypes.byref(names), ctypes.byref(descriptions))
    return tuple(names[i].decode() for i in range(n.value)), {names[i].decode(): descriptions[i].decode() for i in range(n.value)}


#: the TS types tsmech registers (besides PETSc's own, which run a system too: alpha2, theta, cn, ...),
#: read from the library at import: each type lists itself at its registration
#: (with those a program registered with TSMechRegister() before the import)
TS_TYPES, TS_TYPE_DESCRIPTIONS = _type_names()


def _model_names():
    """The registered models (MechModelGetNames())."""
    n, names = _lib.Int(), ctypes.POINTER(ctypes.c_char_p)()
    _lib.call("MechModelGetNames", ctypes.byref(n), ctypes.byref(names))
    return tuple(names[i].decode() for i in range(n.value))


#: the built-in models, for tsmech.Model(name)
MODELS = _model_names()
