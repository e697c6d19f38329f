"""The shared library and the bridges to petsc4py: opening libtsmech.so, the C types, error
checks, petsc4py objects around C handles and the checks of the arguments passed to C.

The library is found through the environment variable TSMECH_LIB, else at the path recorded when
the package was configured (_config.py: the build tree's libtsmech.so for the copy in the build
tree, the installed one for the installed package). It must be linked with the libpetsc that
petsc4py uses (Debian's python3-petsc4py and petsc-dev: the same PETSc 3.18), and PETSc must be
built with Open MPI (MPI_Comm is a pointer).
"""
import ctypes
import math
import numbers
import os

import numpy as np
from petsc4py import PETSc

from . import _config


class Error(RuntimeError):
    """A tsmech or PETSc call failed, or a package object was used after its end (destroy(),
    close()); the message is PETSc's (the lowest failing rank's for a model error, which every
    rank raises alike)."""

    def __init__(self, message, ierr=0):
        super().__init__(message)
        self.ierr = ierr


class FileError(Error, OSError):
    """A file a tsmech.Output or tsmech.Checkpoint would write or read is refused by the program's
    rules (MechIOPlanFiles(): not of the kind it replaces, in use by another run or by another
    writer of this program, too long a path, not writable, no room)."""


# PETSc's scalar types, as this PETSc was configured (Debian: 32-bit indices, real double)
Int = ctypes.c_int64 if np.dtype(PETSc.IntType).itemsize == 8 else ctypes.c_int32
Real = ctypes.c_double
Bool = ctypes.c_int  # PetscBool is an enum
Handle = ctypes.c_void_p
ErrorCode = ctypes.c_int
PETSC_ERR_USER = 83  # petscerror.h: the user's code failed
PETSC_ERROR_INITIAL = 0


def library_path():
    """The libtsmech.so this package opens: $TSMECH_LIB, else the configured path."""
    return os.environ.get("TSMECH_LIB") or _config.LIBTSMECH


def _open():
    path = library_path()
    if not os.path.exists(path):
        how = "TSMECH_LIB" if os.environ.get("TSMECH_LIB") else f"the path recorded at build time ({_config.WHERE})"
        raise ImportError(f"tsmech: libtsmech.so not found at {path} (from {how}); set TSMECH_LIB to the library's path")
    # RTLD_GLOBAL: the library's symbols (and PETSc's, MPI's through it) serve later lookups;
    # dlsym() on this handle also finds the libraries libtsmech is linked with, the very libpetsc
    # that petsc4py uses
    return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)


lib = _open()
_path = library_path()


def _capsule(name, restype, *argtypes):
    """A function of petsc4py's C API (PETSc.__pyx_capi__, the functions petsc4py.h exports)."""
    cap = PETSc.__pyx_capi__[name]
    getname = ctypes.pythonapi.PyCapsule_GetName
    getname.restype, getname.argtypes = ctypes.c_char_p, [ctypes.py_object]
    getptr = ctypes.pythonapi.PyCapsule_GetPointer
    getptr.restype, getptr.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return ctypes.PYFUNCTYPE(restype, *argtypes)(getptr(cap, getname(cap)))


# PyPetsc<Class>_New(handle): a new petsc4py object holding a new reference to the C object
_NEW = {cls: _capsule(f"PyPetsc{cls}_New", ctypes.py_object, Handle) for cls in ("Object", "Vec", "Mat", "DM", "TS", "IS", "KSP")}
_comm_get = _capsule("PyPetscComm_Get", Handle, ctypes.py_object)


def wrap(cls, handle):
    """The petsc4py object (class name cls: Object, Vec, Mat, DM, TS, IS, KSP) of a C handle; it
    holds a reference of its own, so it stays valid after the C caller lets go, and lets it go as
    petsc4py lets its own objects go (PETSc.garbage_cleanup(), at the latest at the exit)."""
    if not handle:
        return None
    return _NEW[cls](handle)


def handle(obj):
    """The C handle of a petsc4py object."""
    return Handle(obj.handle)


def comm_handle(comm):
    """The MPI_Comm of a petsc4py communicator (PETSc.COMM_WORLD if None)."""
    return Handle(_comm_get(comm if comm is not None else PETSc.COMM_WORLD))


def error_message(ierr):
    """PETSc's text for ierr and the latest specific message on this rank."""
    text, specific = ctypes.c_char_p(), ctypes.c_char_p()
    lib.PetscErrorMessage(ErrorCode(ierr), ctypes.byref(text), ctypes.byref(specific))
    t = text.value.decode(errors="replace") if text.value else ""
    s = specific.value.decode(errors="replace") if specific.value else ""
    return s or t or f"PETSc error {ierr}"


def check(name, ierr):
    if ierr != 0:
        raise Error(f"{name}: {error_message(ierr)} (PETSc error {ierr})", ierr)


def call(name, *args):
    """Calls the C function name; a non-zero error code raises Error with PETSc's message."""
    check(name, getattr(lib, name)(*args))


def set_error(text):
    """Raises a PETSc error with this text on this rank (PetscError(), PETSC_ERR_USER) and returns
    its code: what a callback returns to the library after a Python exception."""
    fn = lib.PetscError
    fn.restype = ErrorCode
    return fn(comm_handle(PETSc.COMM_SELF), ctypes.c_int(0), b"tsmech Python callback", b"tsmech/system.py", ErrorCode(PETSC_ERR_USER), ctypes.c_int(PETSC_ERROR_INITIAL), b"%s", text.encode(errors="replace")[:1000])


# return types of the getters used below
lib.TSMechInitializePackage.restype = ErrorCode


# ---- the arguments passed to C ---------------------------------------------------------------
# An optimized PETSc (Debian's) compiles its argument checks out, and so does the library built
# against it: a destroyed, missing or wrong object reaching C would crash the program. Every
# object, number and path is checked here first, with an exception naming the argument.


def checked(obj, cls, what):
    """The C handle of a live petsc4py object of class cls (PETSc.Vec, PETSc.TS, ...)."""
    if not isinstance(obj, cls):
        raise TypeError(f"{what}: expected a PETSc.{cls.__name__}, got {type(obj).__name__}")
    if not obj.handle:
        raise Error(f"{what}: the PETSc.{cls.__name__} was destroyed")
    return Handle(obj.handle)


def integer(value, what, minimum):
    """value as an int of at least minimum (bool and float are refused: every=2.5 is no count)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what}={value!r}: expected an integer")
    if value < minimum:
        raise ValueError(f"{what}={value}: must be at least {minimum}")
    return int(value)


def finite(value, what):
    """value as a finite float (a NaN or infinite value is refused, naming the argument)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what}={value!r}: expected a real number")
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"{what}={x}: not a finite number")
    return x


def text(value, what):
    """A non-empty string without NUL as bytes (C strings end at the first NUL)."""
    if not isinstance(value, str):
        raise TypeError(f"{what}={value!r}: expected a string")
    if not value or "\0" in value:
        raise ValueError(f"{what}={value!r}: must be a non-empty string without NUL characters")
    return value.encode()


def path(value, what):
    """A file path (str or os.PathLike) as bytes."""
    try:
        value = os.fspath(value)
    except TypeError:
        raise TypeError(f"{what}={value!r}: expected a file path (str or os.PathLike)") from None
    if isinstance(value, bytes):
        value = os.fsdecode(value)
    return text(value, what)
