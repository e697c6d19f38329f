"""HDF5 output of a run (MechOutput, the README's layout) and solve(), TSSolve with tsmech's errors."""
import ctypes

from petsc4py import PETSc

from . import _lib
from ._lib import Handle, Int, call, handle


class Output:
    """MechOutput recording every step of the system's TS in FILE.h5 (/monitor every step,
    /fields every `every` steps, the first and last always; XDMF beside it for grid models).

    A context manager: leaving it closes the file (the last snapshot, /monitor). With
    cont=True the output of an interrupted run is continued after a checkpoint's restore
    (MechOutputContinue: the records after the restart step are removed, the run appends).
    Create it after the TS's type and initial state are set (ts.setFromOptions(),
    set_solution() or Checkpoint.restore()).
    """

    def __init__(self, system, filename, every=10, ts=None, cont=False):
        self.system = system
        self.ts = system._ts(ts)
        self.out = Handle()
        fn = "MechOutputContinue" if cont else "MechOutputCreate"
        call(fn, system._sys, handle(self.ts), str(filename).encode(), Int(every), ctypes.byref(self.out))
        # a Python monitor (petsc4py keeps the list) calling the library's own, which ignores the
        # interpolated final call and the call after a failed step
        self.ts.setMonitor(self._record)

    def _record(self, ts, step, t, x):
        if self.out:
            call("TSMonitorMechOutput", handle(ts), Int(step), _lib.Real(t), handle(x), self.out)

    def record(self):
        """Records the TS's current state now (a second record of the same step is ignored)."""
        call("MechOutputRecord", self.out, handle(self.ts))

    def flush(self):
        """Writes the pending /monitor records and flushes the file."""
        call("MechOutputFlush", self.out)

    def close(self, record=True):
        """Records the final state (unless record is False: after a failed run) and closes."""
        if self.out:
            try:
                call("MechOutputClose", self.out, handle(self.ts) if record else None)
            finally:
                call("MechOutputDestroy", ctypes.byref(self.out))
                self.out = Handle()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        # after an exception the state is not a step of the run: close without recording it
        if exc_type is None:
            self.close()
        elif not PETSc.Sys.isFinalized():
            self.close(record=False)
        return False


def solve(ts, x=None):
    """ts.solve() raising tsmech.Error with PETSc's message (for a model's error the message of
    the lowest failing rank, the same on every rank) instead of a bare PETSc.Error; a Python
    callback's own exception is chained where it happened. Returns the converged reason (negative:
    a failed integration, e.g. a step the run guard refused)."""
    try:
        ts.solve(x if x is not None else ts.getSolution())
    except PETSc.Error as e:
        raise _lib.Error(f"TSSolve: {_lib.error_message(e.ierr)} (PETSc error {e.ierr})", e.ierr) from e
    return ts.getConvergedReason()
