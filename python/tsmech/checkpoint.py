"""Checkpoint and restart (MechCheckpoint) and the run guard (TSMechSetGuard) from Python: the
same files, the same checks and the same file rules as the tsmech program's -checkpoint,
-checkpoint_keep, -checkpoint_every and -restart."""
import ctypes

from petsc4py import PETSc

from . import _life, _lib
from ._lib import ErrorCode, Handle, Int, Real, call
from .output import Output, end_plan, plan, python_words

_PostStepFn = ctypes.CFUNCTYPE(ErrorCode, Handle, Handle)

GUARD_FAILURES = ("none", "ts", "nonfinite", "blowup", "refused")
# the key of the TS's petsc4py attribute that keeps the guard's post-step function: the C guard
# calls it as long as the TS lives, and petsc4py drops it with the TS (see _life.py)
_POST_STEP = "tsmech.guard.poststep"


class _PostSteps:
    """The functions a guard runs after every kept step, and the exception one raised."""

    def __init__(self):
        self.functions = []
        self.exception = None

    def __call__(self, ts, ctx):
        try:
            for fn in self.functions:
                fn(_lib.wrap("TS", ts))
            return 0
        except BaseException as e:  # noqa: B902 - every exception must become an error code
            self.exception = e
            return _lib.set_error(f"Python post-step raised {type(e).__name__}: {e}")


class Guard:
    """The run guard of a TS (TSMechSetGuard): after every step the state is checked (finite, no
    energy blow-up of an explicit type, the model's state check) and kept; a failure ends the run
    with a negative converged reason instead of spreading NaN (an adaptive run retries the step
    with a quarter of it). Create it after the type and the initial state are set. The guard owns
    the TS's post-step: give functions to run after every kept step with post_step(), not with
    ts.setPostStep(). The guard holds a reference to the TS: it stays usable whatever the program
    does with its own."""

    def __init__(self, ts):
        h = _lib.checked(ts, PETSc.TS, "tsmech.Guard(ts)")
        self.ts = _lib.wrap("TS", h.value)
        self.guard = Handle()
        call("TSMechSetGuard", h, ctypes.byref(self.guard))
        self._steps = _PostSteps()
        self._c = None

    def _handle(self):
        if not self.ts.handle:
            raise _lib.Error("tsmech.Guard: its TS was destroyed (guard.ts.destroy())")
        return self.guard

    @property
    def exception(self):
        """The exception a post-step function raised on this rank (None if none did)."""
        return self._steps.exception

    def post_step(self, fn):
        """Calls fn(ts) after every step whose state the guard kept (in the order given)."""
        if not callable(fn):
            raise TypeError(f"tsmech.Guard.post_step({fn!r}): expected a function")
        if self._c is None:
            self._c = _PostStepFn(self._steps)
            call("TSMechGuardSetPostStep", self._handle(), self._c, None)
            self.ts.setAttr(_POST_STEP, self._c)
        self._steps.functions.append(fn)
        return fn

    @property
    def failure(self):
        """(kind, dt, energy, why): kind one of GUARD_FAILURES ('none' after a good run), the step
        that failed, the energy reached and the model's reason (may be '')."""
        kind, dt, energy, why = ctypes.c_int(), Real(), Real(), ctypes.c_char_p()
        call("TSMechGuardGetFailure", self._handle(), ctypes.byref(kind), ctypes.byref(dt), ctypes.byref(energy), ctypes.byref(why))
        return GUARD_FAILURES[kind.value], dt.value, energy.value, (why.value or b"").decode(errors="replace")

    @property
    def info(self):
        """E0, content, start step, last good step and time, rejected steps."""
        E0, C, start, good, goodtime, rejects = Real(), Real(), Int(), Int(), Real(), Int()
        call("TSMechGuardGetInfo", self._handle(), *(ctypes.byref(x) for x in (E0, C, start, good, goodtime, rejects)))
        return {"E0": E0.value, "content": C.value, "start_step": start.value, "good_step": good.value,
                "good_time": goodtime.value, "rejects": rejects.value}

    def restore(self, before_growth=False):
        """Gives the TS the last good state back (after a failed run, before a checkpoint)."""
        call("TSMechGuardRestore", self._handle(), _lib.Bool(bool(before_growth)))


class Checkpoint:
    """Checkpoints of a run (MechCheckpoint): everything the next step depends on, written
    atomically, restartable by this package or by the tsmech program (-restart), bit for bit on
    the same number of ranks with a deterministic solver.

        ck = tsmech.Checkpoint(system, ts)      # before ts.setFromOptions()
        ck.load("ck.h5")                        # restart only: validates, TS defaults from the file
        ts.setFromOptions()
        ck.restore(q, v)                        # restart; else system.set_solution(q, v)
        ... tsmech.solve(ts) with ck.write("ck.h5") between steps (ck.write_every) ...
        ck.destroy()                            # after the TS is done (else at the exit)

    write_every(path, every, guard, output) writes every `every` steps and at the end of the run
    from the guard's post-step, the output (if given) recorded and flushed first, as the tsmech
    program does with -checkpoint FILE -checkpoint_every N.

    The files obey the tsmech program's rules (MechIOPlanFiles()): a checkpoint path replaces only
    a tsmech checkpoint (never an output, a text file or another HDF5 file), it and its `keep - 1`
    rotation slots are locked against other runs and the program's other writers from its first
    write (or write_every()) until destroy(), and the file load() reads is locked against writers
    while it is read; a refusal raises tsmech.FileError before anything is written.
    """

    def __init__(self, system, ts=None, keep=1):
        from .system import _Mechanical

        if not isinstance(system, _Mechanical):
            raise TypeError(f"tsmech.Checkpoint(system): expected a tsmech.System or tsmech.Model, got {type(system).__name__}")
        sys_ = system._sys
        self.keep = _lib.integer(keep, "tsmech.Checkpoint(keep)", 1)
        ts = system._ts(ts)
        self.system = system
        self.ts = _lib.wrap("TS", ts.handle)
        self._comm = self.ts.getComm()
        self._plans = {}
        self.ck = Handle()
        call("MechCheckpointCreate", sys_, _lib.handle(self.ts), ctypes.byref(self.ck))
        plans = self._plans
        self._token = _life.keep(self.destroy, lambda: [end_plan(p) for p in plans.values()])
        ierr = _lib.lib.MechCheckpointSetKeep(self.ck, Int(self.keep))
        if ierr:
            self.destroy()
            raise ValueError(f"tsmech.Checkpoint: {python_words(_lib.error_message(ierr), {'checkpoint_keep': 'keep'})}")

    def _handle(self, what):
        if not self.ck:
            raise _lib.Error(f"tsmech.Checkpoint.{what}(): used after destroy()")
        return self.ck

    def _plan(self, name, what):
        """The checkpoint path name (bytes) planned as the program plans -checkpoint (with
        -checkpoint_keep), once per path: locked until destroy()."""
        if name not in self._plans:
            self._plans[name] = plan(self._comm, f"tsmech.Checkpoint.{what}", {"checkpoint": "path", "checkpoint_keep": "keep"}, checkpoint=name, keep=self.keep)

    def load(self, path):
        """Reads and validates a checkpoint; its TS type and settings become the defaults of the
        TS. Call before ts.setFromOptions()."""
        ck = self._handle("load")
        name = _lib.path(path, "tsmech.Checkpoint.load(path)")
        # read under a shared lock, as the program's -restart (a file this program writes is
        # covered by the lock it holds)
        p = plan(self._comm, "tsmech.Checkpoint.load", {"restart": "path"}, restart=name)
        try:
            call("MechCheckpointLoad", ck, _lib.handle(self.ts), name)
        finally:
            end_plan(p)

    def restore(self, q, v):
        """Gives the TS the loaded state (into q and v, from system.create_state()), time, step,
        dt and history. Call after ts.setFromOptions()."""
        call("MechCheckpointRestore", self._handle("restore"), _lib.handle(self.ts), _lib.checked(q, PETSc.Vec, "tsmech.Checkpoint.restore(q)"), _lib.checked(v, PETSc.Vec, "tsmech.Checkpoint.restore(v)"))

    def write(self, path, output=None):
        """Writes the TS's state (between steps), atomically; output: a tsmech.Output recorded
        and flushed first, so that it reaches the checkpoint's step."""
        ck = self._handle("write")
        name = _lib.path(path, "tsmech.Checkpoint.write(path)")
        if output is not None and not isinstance(output, Output):
            raise TypeError(f"tsmech.Checkpoint.write(output): expected a tsmech.Output, got {type(output).__name__}")
        self._plan(name, "write")
        if output is not None:
            output.record()
            output.flush()
        call("MechCheckpointWrite", ck, _lib.handle(self.ts), name)

    @property
    def last(self):
        """(step, time) of the checkpoint last loaded or written; (-1, 0.0) if none."""
        step, t = Int(), Real()
        call("MechCheckpointGetLast", self._handle("last"), ctypes.byref(step), ctypes.byref(t))
        return step.value, t.value

    def write_every(self, path, every, guard, output=None):
        """Writes a checkpoint every `every` steps (0: only at the end) and at the last step of
        the run, from the guard's post-step. The path is checked (and locked) now."""
        self._handle("write_every")
        name = _lib.path(path, "tsmech.Checkpoint.write_every(path)")
        every = _lib.integer(every, "tsmech.Checkpoint.write_every(every)", 0)
        if not isinstance(guard, Guard):
            raise TypeError(f"tsmech.Checkpoint.write_every(guard): expected a tsmech.Guard, got {type(guard).__name__}")
        if output is not None and not isinstance(output, Output):
            raise TypeError(f"tsmech.Checkpoint.write_every(output): expected a tsmech.Output, got {type(output).__name__}")
        self._plan(name, "write_every")

        def post(ts):
            step, reason = ts.getStepNumber(), ts.getConvergedReason()
            if (every > 0 and step % every == 0) or reason > 0:
                self.write(path, output)

        guard.post_step(post)

    def destroy(self):
        """Frees the checkpointer and releases its files' locks (collective); at the exit for a
        checkpointer not destroyed before. Using it afterwards raises tsmech.Error."""
        if self.ck:
            _life.released(self._token)
            try:
                call("MechCheckpointDestroy", ctypes.byref(self.ck))
            finally:
                self.ck = Handle()
                for p in self._plans.values():
                    end_plan(p)
                self._plans.clear()
