"""Checkpoint and restart (MechCheckpoint) and the run guard (TSMechSetGuard) from Python: the
same files and the same checks as the tsmech program's -checkpoint, -restart."""
import ctypes

from petsc4py import PETSc

from . import _lib
from ._lib import ErrorCode, Handle, Int, Real, call, handle

_PostStepFn = ctypes.CFUNCTYPE(ErrorCode, Handle, Handle)

GUARD_FAILURES = ("none", "ts", "nonfinite", "blowup", "refused")
# the post-step functions given to guards: the TS holds them, which may outlive a Guard object
_KEEP = []


class Guard:
    """The run guard of a TS (TSMechSetGuard): after every step the state is checked (finite, no
    energy blow-up of an explicit type, the model's state check) and kept; a failure ends the run
    with a negative converged reason instead of spreading NaN (an adaptive run retries the step
    with a quarter of it). Create it after the type and the initial state are set. The guard owns
    the TS's post-step: give functions to run after every kept step with post_step(), not with
    ts.setPostStep()."""

    def __init__(self, ts):
        self.ts = ts
        self.guard = Handle()
        call("TSMechSetGuard", handle(ts), ctypes.byref(self.guard))
        self._functions = []
        self._c = _PostStepFn(self._post_step)
        _KEEP.append(self._c)
        self.exception = None

    def _post_step(self, ts, ctx):
        try:
            for fn in self._functions:
                fn(self.ts)
            return 0
        except BaseException as e:  # noqa: B902 - every exception must become an error code
            self.exception = e
            return _lib.set_error(f"Python post-step raised {type(e).__name__}: {e}")

    def post_step(self, fn):
        """Calls fn(ts) after every step whose state the guard kept (in the order given)."""
        if not self._functions:
            call("TSMechGuardSetPostStep", self.guard, self._c, None)
        self._functions.append(fn)
        return fn

    @property
    def failure(self):
        """(kind, dt, energy, why): kind one of GUARD_FAILURES ('none' after a good run), the step
        that failed, the energy reached and the model's reason (may be '')."""
        kind, dt, energy, why = ctypes.c_int(), Real(), Real(), ctypes.c_char_p()
        call("TSMechGuardGetFailure", self.guard, ctypes.byref(kind), ctypes.byref(dt), ctypes.byref(energy), ctypes.byref(why))
        return GUARD_FAILURES[kind.value], dt.value, energy.value, (why.value or b"").decode(errors="replace")

    @property
    def info(self):
        """E0, content, start step, last good step and time, rejected steps."""
        E0, C, start, good, goodtime, rejects = Real(), Real(), Int(), Int(), Real(), Int()
        call("TSMechGuardGetInfo", self.guard, *(ctypes.byref(x) for x in (E0, C, start, good, goodtime, rejects)))
        return {"E0": E0.value, "content": C.value, "start_step": start.value, "good_step": good.value,
                "good_time": goodtime.value, "rejects": rejects.value}

    def restore(self, before_growth=False):
        """Gives the TS the last good state back (after a failed run, before a checkpoint)."""
        call("TSMechGuardRestore", self.guard, _lib.Bool(bool(before_growth)))


class Checkpoint:
    """Checkpoints of a run (MechCheckpoint): everything the next step depends on, written
    atomically, restartable by this package or by the tsmech program (-restart), bit for bit on
    the same number of ranks with a deterministic solver.

        ck = tsmech.Checkpoint(system, ts)      # before ts.setFromOptions()
        ck.load("ck.h5")                        # restart only: validates, TS defaults from the file
        ts.setFromOptions()
        ck.restore(q, v)                        # restart; else system.set_solution(q, v)
        ... tsmech.solve(ts) with ck.write("ck.h5") between steps (ck.write_every) ...
        ck.destroy()                            # after the TS is done

    write_every(path, every, guard, output) writes every `every` steps and at the end of the run
    from the guard's post-step, the output (if given) recorded and flushed first, as the tsmech
    program does with -checkpoint FILE -checkpoint_every N.
    """

    def __init__(self, system, ts=None, keep=1):
        self.system = system
        self.ts = system._ts(ts)
        self.ck = Handle()
        call("MechCheckpointCreate", system._sys, handle(self.ts), ctypes.byref(self.ck))
        if keep != 1:
            call("MechCheckpointSetKeep", self.ck, Int(keep))

    def load(self, path):
        """Reads and validates a checkpoint; its TS type and settings become the defaults of the
        TS. Call before ts.setFromOptions()."""
        call("MechCheckpointLoad", self.ck, handle(self.ts), str(path).encode())

    def restore(self, q, v):
        """Gives the TS the loaded state (into q and v, from system.create_state()), time, step,
        dt and history. Call after ts.setFromOptions()."""
        call("MechCheckpointRestore", self.ck, handle(self.ts), handle(q), handle(v))

    def write(self, path, output=None):
        """Writes the TS's state (between steps), atomically; output: a tsmech.Output recorded
        and flushed first, so that it reaches the checkpoint's step."""
        if output is not None:
            output.record()
            output.flush()
        call("MechCheckpointWrite", self.ck, handle(self.ts), str(path).encode())

    @property
    def last(self):
        """(step, time) of the checkpoint last loaded or written; (-1, 0.0) if none."""
        step, t = Int(), Real()
        call("MechCheckpointGetLast", self.ck, ctypes.byref(step), ctypes.byref(t))
        return step.value, t.value

    def write_every(self, path, every, guard, output=None):
        """Writes a checkpoint every `every` steps (0: only at the end) and at the last step of
        the run, from the guard's post-step."""

        def post(ts):
            step, reason = ts.getStepNumber(), ts.getConvergedReason()
            if (every > 0 and step % every == 0) or reason > 0:
                self.write(path, output)

        guard.post_step(post)

    def destroy(self):
        if self.ck:
            call("MechCheckpointDestroy", ctypes.byref(self.ck))
            self.ck = Handle()

    def __del__(self):
        try:
            if not PETSc.Sys.isFinalized():
                self.destroy()
        except Exception:
            pass
