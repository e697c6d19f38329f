"""HDF5 output of a run (MechOutput, the README's layout) and solve(), TSSolve with tsmech's errors;
the files of a run planned as the tsmech program plans them (plan())."""
import ctypes
import re

from petsc4py import PETSc

from . import _life, _lib
from ._lib import Handle, Int, call

# the program's options in MechIOPlanFiles()'s messages, and the Python arguments they are
_OPTION_WORDS = re.compile(r"(?<![^\s(])-(checkpoint_keep|checkpoint|output|restart)\b")


def plan(comm, what, arguments, output=None, checkpoint=None, keep=1, restart=None):
    """The plan of a run's files (MechIOPlanFiles(): the tsmech program's rules for -output,
    -checkpoint, -checkpoint_keep and -restart: lengths, collisions, kinds, locks against other
    runs and the program's other writers, writability, room), or FileError naming the Python
    arguments (arguments: the option's name -> the argument's) instead of the options."""
    p = Handle()
    ierr = _lib.lib.MechIOPlanFiles(_lib.comm_handle(comm), output, checkpoint, Int(keep), restart, ctypes.byref(p))
    if ierr:
        raise _lib.FileError(f"{what}: {python_words(_lib.error_message(ierr), arguments)}", ierr)
    return p


def python_words(message, arguments):
    """A message of the library with the program's options (-output, -checkpoint, ...) named as
    the Python arguments they are (arguments: option name -> argument)."""
    return _OPTION_WORDS.sub(lambda m: arguments.get(m.group(1), m.group(0)), message)


def end_plan(p):
    call("MechIOPlanDestroy", ctypes.byref(p))


class Output:
    """MechOutput recording every step of the system's TS in FILE.h5 (/monitor every step,
    /fields every `every` steps, the first and last always; XDMF beside it for grid models).

    The file obeys the tsmech program's rules for -output (MechIOPlanFiles()): an existing file
    is replaced only if it is a tsmech output (never a checkpoint, a text file or another HDF5
    file), and no other run nor another Output or Checkpoint of this program may write it while
    it is open; a refusal raises tsmech.FileError before anything is written.

    A context manager: leaving it closes the file (the last snapshot, /monitor). With
    cont=True the output of an interrupted run is continued after a checkpoint's restore
    (MechOutputContinue: the records after the restart step are removed, the run appends).
    Create it after the TS's type and initial state are set (ts.setFromOptions(),
    set_solution() or Checkpoint.restore()). An Output that is never closed records its TS
    until the end of the program, which closes it.

    Leaving the `with` block with an exception closes the file without recording the state
    (not a step of the run); on several ranks only once every rank has an exception: a rank
    whose exception is its own alone tells it and ends the job (see tsmech.solve()).
    """

    def __init__(self, system, filename, every=10, ts=None, cont=False):
        from .system import _Mechanical

        if not isinstance(system, _Mechanical):
            raise TypeError(f"tsmech.Output(system): expected a tsmech.System or tsmech.Model, got {type(system).__name__}")
        sys_ = system._sys
        name = _lib.path(filename, "tsmech.Output(filename)")
        every = _lib.integer(every, "tsmech.Output(every)", 1)
        ts = system._ts(ts)
        self.system = system
        # a reference of its own: the TS (and the state it records at the close) lives as long as
        # the output is open, whatever the program does with its own
        self.ts = _lib.wrap("TS", ts.handle)
        self._comm = self.ts.getComm()
        _life.agree_setup(self._comm)
        self._plan = plan(self._comm, "tsmech.Output", {"output": "filename"}, output=name)
        out = Handle()
        fn = "MechOutputContinue" if cont else "MechOutputCreate"
        try:
            call(fn, sys_, _lib.handle(self.ts), name, Int(every), ctypes.byref(out))
        except BaseException:
            end_plan(self._plan)
            raise
        # the monitor holds the output's handle, not this object (which may go first); it records
        # through the library's own, which ignores the interpolated final call and the call after
        # a failed step
        self._cell = [out]
        cell = self._cell

        def record(ts, step, t, x):
            if cell[0]:
                call("TSMonitorMechOutput", _lib.handle(ts), Int(step), _lib.Real(t), _lib.handle(x), cell[0])

        self.ts.setMonitor(record)
        plan_ = self._plan
        self._token = _life.keep(self._end_at_exit, lambda: end_plan(plan_))

    @property
    def out(self):
        """The C MechOutput (a NULL handle once closed)."""
        return self._cell[0]

    def _open(self, what):
        if not self._cell[0]:
            raise _lib.Error(f"tsmech.Output.{what}(): the output is closed")
        return self._cell[0]

    def record(self):
        """Records the TS's current state now (a second record of the same step is ignored)."""
        call("MechOutputRecord", self._open("record"), _lib.handle(self.ts))

    def flush(self):
        """Writes the pending /monitor records and flushes the file."""
        call("MechOutputFlush", self._open("flush"))

    def close(self, record=True):
        """Records the final state (unless record is False: after a failed run) and closes; does
        nothing if closed already. Collective."""
        out = self._cell[0]
        if not out:
            return
        self._cell[0] = Handle()
        _life.released(self._token)
        try:
            call("MechOutputClose", out, _lib.handle(self.ts) if record else None)
        finally:
            try:
                call("MechOutputDestroy", ctypes.byref(out))
            finally:
                end_plan(self._plan)

    def _end_at_exit(self):
        # a run that ended (converged reason > 0) has its last state recorded; any other state
        # may be half a step
        self.close(record=bool(self.ts.handle) and self.ts.getConvergedReason() > 0)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.close()
        elif not PETSc.Sys.isFinalized():
            # after an exception the state is not a step of the run: the file is closed without
            # it, once every rank is here
            _life.agree(self._comm, exc)
            self.close(record=False)
        return False


def solve(ts, x=None):
    """ts.solve() raising tsmech.Error with PETSc's message (for a model's error the message of
    the lowest failing rank, the same on every rank) instead of a bare PETSc.Error; a Python
    callback's own exception is chained where it happened. Returns the converged reason (negative:
    a failed integration, e.g. a step the run guard refused).

    On several ranks an exception leaves solve() only once every rank has one (a model's error,
    which the library makes every rank's): then the program may catch it and go on collectively.
    An exception of this rank's own (a Python monitor that raised here only) leaves the other
    ranks inside the integration: after waiting for them at most 1 s (3 s for a PETSc error) the
    rank tells its exception and ends the job (MPI_Abort, status 1)."""
    _lib.checked(ts, PETSc.TS, "tsmech.solve(ts)")
    if x is not None:
        _lib.checked(x, PETSc.Vec, "tsmech.solve(x)")
    comm = ts.getComm()
    _life.agree_setup(comm)
    try:
        ts.solve(x if x is not None else ts.getSolution())
    except PETSc.Error as e:
        _life.agree(comm, e)
        err = _lib.Error(f"TSSolve: {_lib.error_message(e.ierr)} (PETSc error {e.ierr})", e.ierr)
        setattr(err, _life._AGREED, _life.agreed(e))
        raise err from e
    except BaseException as e:
        _life.agree(comm, e)
        raise
    return ts.getConvergedReason()
