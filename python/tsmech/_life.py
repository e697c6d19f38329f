"""How the package's objects end, and its error paths, the same on every rank whatever the
program's structure (objects in functions, in exceptions, deleted early, left to the garbage
collector at the exit).

Three things would otherwise crash or hang a valid program:

- C calling into Python after the interpreter has ended. petsc4py finalizes PETSc after the
  interpreter (Py_AtExit), and PETSc then destroys what Python let go last. So the package keeps
  no Python function in C that C calls when it destroys an object: the callbacks of a System and
  the post-step of a Guard live in the attribute dictionary petsc4py keeps on the C object
  (PETSc.Object.setAttr()), which petsc4py drops with the object, or not at all once the
  interpreter has ended. The MechSystem, a PETSc object, is held through a petsc4py object, so it
  ends as petsc4py's own objects do: PETSc.garbage_cleanup() destroys it collectively, at the
  exit at the latest.
- Collective operations at moments that differ between ranks: Python's garbage collector runs
  when it likes, so nothing collective happens there. The C objects that are not PETSc objects
  and end collectively (an Output's file, a Checkpoint, the locks of their files) end at close()
  or destroy(), or else at the exit (keep()): an atexit function, registered after petsc4py's
  (the package imports petsc4py.PETSc first), so it runs before petsc4py's garbage cleanup and
  PETSc's finalization; they end in the reverse order of their creation, the same on every rank.
- An error on some ranks only (README, "An error on some ranks only"): the other ranks are in a
  collective operation the failing ones will never join. Before anything collective on an error
  path (tsmech.solve() failing, a `with tsmech.Output(...)` block ending in an exception) every
  rank must be on it: agree() waits for the others (MechErrorAgree()) at most 1 s for a Python
  exception, 3 s for an error of PETSc's (which every rank may raise at once, some later than
  others); a rank left alone tells its exception
  and ends the job (MPI_Abort, status 1, Python's status for an uncaught exception). An exception
  all ranks agreed on may be caught, or left uncaught: then the program exits with status 1
  after its normal clean-up, the traceback printed by rank 0.
"""
import atexit
import ctypes
import sys
import traceback

from petsc4py import PETSc

from . import _lib

# seconds a rank on its error path waits for the others: an error of PETSc's own may be raised by
# every rank of the communicator at once, a Python exception (also one a callback of the package
# turned into PETSC_ERR_USER) is more likely the rank's own
AGREE_SECONDS_PETSC = 3.0
AGREE_SECONDS_PYTHON = 1.0
_AGREED = "_tsmech_agreed"

# ---- what ends collectively, at close()/destroy() or at the exit ------------------------------
_ends = {}
_local_ends = {}
_count = [0]


def keep(end, local_end=None):
    """Registers end() (collective) to run at the exit unless released() first; returns a token.
    local_end(), if given, is what this rank alone can release when it ends the job (agree()): the
    file locks rank 0 holds."""
    _count[0] += 1
    _ends[_count[0]] = end
    if local_end is not None:
        _local_ends[_count[0]] = local_end
    return _count[0]


def released(token):
    """end() of token has run (or is no longer needed)."""
    _ends.pop(token, None)
    _local_ends.pop(token, None)


def _end_all():
    if PETSc.Sys.isFinalized():
        return
    for token in sorted(_ends, reverse=True):
        end = _ends.pop(token)
        try:
            end()
        except Exception as e:  # noqa: BLE001 - tell and go on: the others must end too
            sys.stderr.write(f"tsmech: at the exit: {e}\n")


atexit.register(_end_all)


# ---- error paths -------------------------------------------------------------------------------
def agree_setup(comm):
    """Prepares the agreement on comm's error paths (collective: call where every rank passes)."""
    _lib.call("MechErrorAgreeSetUp", _lib.comm_handle(comm))


def agreed(exc):
    """Whether every rank of the communicator raised exc alike (it went through agree())."""
    return getattr(exc, _AGREED, False)


def agree(comm, exc):
    """On an error path of comm: returns once every rank is on one (collective clean-up may
    follow); a rank left alone tells exc and ends the job. Nothing happens on one rank or for an
    exception already agreed on."""
    if agreed(exc) or comm.getSize() == 1 or PETSc.Sys.isFinalized():
        return
    seconds = AGREE_SECONDS_PETSC if _petsc_error(exc) else AGREE_SECONDS_PYTHON
    everyone = _lib.Bool(1)
    ierr = _lib.lib.MechErrorAgree(_lib.comm_handle(comm), _lib.Real(seconds), ctypes.byref(everyone))
    if ierr == 0 and everyone.value:
        try:
            setattr(exc, _AGREED, True)
        except AttributeError:
            pass
        return
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    _abort(f"[rank {comm.getRank()}] tsmech: {_describe(exc)}\n  raised on this rank only: the other ranks did not reach an error within {seconds:g} s; ending every rank\n{text}")


def _petsc_error(exc):
    """An error PETSc raised, which every rank may raise at once; not a Python exception turned
    into one by the package's callbacks (PETSC_ERR_USER)."""
    return isinstance(exc, (PETSc.Error, _lib.Error)) and getattr(exc, "ierr", 0) != _lib.PETSC_ERR_USER


def _describe(exc):
    """An exception in one line: a bare PETSc.Error by the library's message for its code."""
    if isinstance(exc, PETSc.Error):
        return f"PETSc error {exc.ierr}: {_lib.error_message(exc.ierr)}"
    return f"{type(exc).__name__}: {exc}"


def _abort(message):
    """Tells message and ends every rank (status 1), this rank's file locks released first."""
    sys.stderr.write(message)
    sys.stderr.flush()
    for token in sorted(_local_ends, reverse=True):
        try:
            _local_ends.pop(token)()
        except Exception:  # noqa: BLE001 - the job ends anyway
            pass
    _lib.lib.MPI_Abort(ctypes.c_void_p.in_dll(_lib.lib, "PETSC_COMM_WORLD"), ctypes.c_int(1))


_previous_excepthook = None


def _uncaught(exc_type, exc, tb):
    """sys.excepthook on several ranks: an exception every rank raised alike (agreed()) ends the
    program normally (status 1, its clean-up collective on every rank), its traceback printed by
    rank 0; any other may be this rank's alone, the others waiting in their next collective
    operation and this rank's own clean-up at the exit waiting for them: it is told and every rank
    ends at once (as mpi4py's "python -m mpi4py" does)."""
    comm = PETSc.COMM_WORLD
    if PETSc.Sys.isFinalized() or comm.getSize() == 1:
        _previous_excepthook(exc_type, exc, tb)
    elif agreed(exc):
        if comm.getRank() == 0:
            _previous_excepthook(exc_type, exc, tb)
    else:
        text = "".join(traceback.format_exception(exc_type, exc, tb))
        _abort(f"[rank {comm.getRank()}] uncaught exception, ending every rank: {_describe(exc)}\n{text}")


def install_excepthook():
    global _previous_excepthook
    if _previous_excepthook is None:
        _previous_excepthook = sys.excepthook
        sys.excepthook = _uncaught
