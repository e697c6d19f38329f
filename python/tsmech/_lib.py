"""The shared library and the bridges to petsc4py: opening libtsmech.so, the C types, error
checks, petsc4py objects around C handles, and the end of every rank on an uncaught exception.

The library is found through the environment variable TSMECH_LIB, else at the path recorded when
the package was configured (_config.py: the build tree's libtsmech.so for the copy in the build
tree, the installed one for the installed package). It must be linked with the libpetsc that
petsc4py uses (Debian's python3-petsc4py and petsc-dev: the same PETSc 3.18), and PETSc must be
built with Open MPI (MPI_Comm is a pointer).
"""
import ctypes
import os
import sys
import traceback

import numpy as np
from petsc4py import PETSc

from . import _config


class Error(RuntimeError):
    """A tsmech or PETSc call failed; the message is PETSc's (the lowest failing rank's for a
    model error, which every rank raises alike)."""

    def __init__(self, message, ierr=0):
        super().__init__(message)
        self.ierr = ierr


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
_NEW = {cls: _capsule(f"PyPetsc{cls}_New", ctypes.py_object, Handle) for cls in ("Vec", "Mat", "DM", "TS", "IS", "KSP")}
_comm_get = _capsule("PyPetscComm_Get", Handle, ctypes.py_object)


def wrap(cls, handle):
    """The petsc4py object (class name cls: Vec, Mat, DM, TS, IS, KSP) of a C handle; it holds a
    reference of its own, so it stays valid after the C caller lets go."""
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


_previous_excepthook = None


def _abort_on_uncaught(exc_type, exc, tb):
    """sys.excepthook on several ranks: tell the exception, then end every rank (as mpi4py's
    "python -m mpi4py" does): an exception on some ranks only would leave the others waiting in
    their next collective operation, and the failing rank's own clean-up at exit (PETSc's
    finalization) waiting for them."""
    comm = PETSc.COMM_WORLD
    if not PETSc.Sys.isFinalized() and comm.getSize() > 1:
        text = "".join(traceback.format_exception(exc_type, exc, tb))
        if isinstance(exc, PETSc.Error):
            text += f"PETSc's message: {error_message(exc.ierr)}\n"
        sys.stderr.write(f"[rank {comm.getRank()}] uncaught exception, ending every rank:\n{text}")
        sys.stderr.flush()
        lib.MPI_Abort(ctypes.c_void_p.in_dll(lib, "PETSC_COMM_WORLD"), ctypes.c_int(1))
    _previous_excepthook(exc_type, exc, tb)


def install_excepthook():
    global _previous_excepthook
    if _previous_excepthook is None:
        _previous_excepthook = sys.excepthook
        sys.excepthook = _abort_on_uncaught
