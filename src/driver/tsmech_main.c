/* isatty(), clock_gettime(), sigaction() and nanosleep() are POSIX */
#define _POSIX_C_SOURCE 200809L
static const char help[] = "tsmech: integrate M q'' + f(t, q, q') = 0 for a model with any PETSc TS type.\n"
                           "  mpirun -n P tsmech -model cloth [-output run.h5] [-checkpoint ck.h5 -checkpoint_every N] [PETSc options]\n"
                           "  mpirun -n P tsmech <the same options> -restart ck.h5    continues an interrupted run exactly\n"
                           "Every -ts_, -snes_, -ksp_, -pc_ option applies; the integrator is chosen with -ts_type\n"
                           "(theta2, beuler2, cn2, midpoint2, euler2, symeuler2, alpha2, or PETSc's first-order types).\n";

#include <tsmech.h>
#include "../io/outputimpl.h" /* MechTestPause(): -checkpoint_test_pause_at_step */
#include <unistd.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <time.h>

/* The signal (SIGTERM or SIGINT) that asked the run to stop, 0 if none: set by the handler,
   read after every step. The handler is installed with SA_RESETHAND: a second signal acts as
   if tsmech had no handler (it ends the run at once). */
static volatile sig_atomic_t stop_signal = 0;

static void StopHandler(int sig)
{
  stop_signal = sig;
}

static PetscErrorCode InstallStopHandlers(void)
{
  struct sigaction sa;

  PetscFunctionBegin;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = StopHandler;
  sa.sa_flags   = SA_RESETHAND | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  PetscCheck(!sigaction(SIGTERM, &sa, NULL) && !sigaction(SIGINT, &sa, NULL), PETSC_COMM_SELF, PETSC_ERR_SYS, "Cannot install the SIGTERM and SIGINT handlers");
  PetscFunctionReturn(0);
}

/* Checkpoints and interruption: what the post-step callback needs */
typedef struct {
  MechCheckpoint ck;     /* NULL without -checkpoint */
  char          *ckpath; /* -checkpoint FILE */
  PetscInt       every;  /* -checkpoint_every, 0 none */
  PetscReal      interval;
  PetscLogDouble lastwrite;
  MechOutput     out;
  PetscInt       pause_at_step; /* test hook, -1 none */
  int            interrupted;   /* the signal that stopped the run, 0 none */
  PetscBool      written;       /* a checkpoint was written by this run */
} Run;
static Run *run_ctx; /* TSSetPostStep() passes no context */

/* Records the step in the output and flushes it (so the output reaches the checkpoint's step),
   then writes the checkpoint */
static PetscErrorCode WriteCheckpoint(Run *r, TS ts)
{
  PetscFunctionBegin;
  if (r->out) {
    PetscCall(MechOutputRecord(r->out, ts));
    PetscCall(MechOutputFlush(r->out));
  }
  PetscCall(MechCheckpointWrite(r->ck, ts, r->ckpath));
  PetscCall(PetscTime(&r->lastwrite));
  r->written = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*
  After every step: a checkpoint every -checkpoint_every steps, after -checkpoint_interval
  seconds (rank 0's clock), at the last step and when a signal asked the run to stop; then the
  run stops (TS_CONVERGED_USER). The ranks agree on every decision (one reduction per step).
*/
static PetscErrorCode CheckpointPostStep(TS ts)
{
  Run              *r = run_ctx;
  MPI_Comm          comm;
  PetscMPIInt       rank;
  PetscInt          step;
  TSConvergedReason reason;
  int               flags[2] = {0, 0};

  PetscFunctionBegin;
  PetscCall(PetscObjectGetComm((PetscObject)ts, &comm));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(TSGetStepNumber(ts, &step));
  PetscCall(TSGetConvergedReason(ts, &reason));
  if (step == r->pause_at_step) {
    char marker[PETSC_MAX_PATH_LEN];
    PetscCall(PetscSNPrintf(marker, sizeof(marker), "%s.pause", r->ckpath[0] ? r->ckpath : "tsmech"));
    PetscCall(MechTestPause(comm, marker, &stop_signal));
  }
  flags[0] = (int)stop_signal;
  if (r->ck && r->interval > 0 && rank == 0) {
    PetscLogDouble now;
    PetscCall(PetscTime(&now));
    flags[1] = now - r->lastwrite >= r->interval;
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MAX, comm));
  if (r->ck && (flags[0] || flags[1] || (r->every > 0 && step % r->every == 0) || reason > 0)) PetscCall(WriteCheckpoint(r, ts));
  if (flags[0]) {
    r->interrupted = flags[0];
    PetscCall(TSSetConvergedReason(ts, TS_CONVERGED_USER));
  }
  PetscFunctionReturn(0);
}

/* The progress line: in place on a terminal, plain lines otherwise. */
typedef struct {
  MechSystem     sys;
  PetscBool      tty;
  PetscLogDouble start, last;
  PetscReal      E0, t0, tmax;
  PetscInt       maxsteps;
  PetscBool      printed;
} Progress;

static PetscErrorCode ProgressMonitor(TS ts, PetscInt step, PetscReal t, Vec X, void *ctx)
{
  Progress      *p = (Progress *)ctx;
  PetscLogDouble now;
  PetscReal      dt, ke, pe, frac = 0, tmax = p->tmax;
  PetscInt       its, kits, maxsteps = p->maxsteps;
  Vec            q, v;
  char           remaining[64] = "";

  PetscFunctionBegin;
  (void)X;
  PetscCall(PetscTime(&now));
  /* a line at most every 0.2 s on a terminal and every 5 s in a log, plus the first and last */
  if (step > 0 && now - p->last < (p->tty ? 0.2 : 5.0)) {
    PetscBool last = (t >= tmax * (1 - 1e-12) || step >= maxsteps) ? PETSC_TRUE : PETSC_FALSE;
    if (!last) PetscFunctionReturn(0);
  }
  p->last = now;
  PetscCall(MechSystemCreateState(p->sys, &q, &v));
  PetscCall(TSMechGetSolution(ts, q, v));
  PetscCall(MechSystemComputeEnergy(p->sys, t, q, v, &ke, &pe));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(TSGetTimeStep(ts, &dt));
  PetscCall(TSGetSNESIterations(ts, &its));
  PetscCall(TSGetKSPIterations(ts, &kits));
  if (tmax > p->t0 && tmax < PETSC_MAX_REAL) frac = (t - p->t0) / (tmax - p->t0);
  if (maxsteps > 0 && maxsteps < PETSC_MAX_INT) frac = PetscMax(frac, (PetscReal)step / maxsteps);
  if (frac > 0 && frac < 1) PetscCall(PetscSNPrintf(remaining, sizeof(remaining), "  remaining ~%.1f s", (double)((now - p->start) * (1 - frac) / frac)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%sstep %6" PetscInt_FMT "  t %-10.4g dt %-9.3g E %-13.6g newton %-6" PetscInt_FMT " ksp %-8" PetscInt_FMT " elapsed %.1f s%s%s", p->tty ? "\r" : "", step, (double)t, (double)dt, (double)(ke + pe), its, kits, (double)(now - p->start), remaining, p->tty ? "\033[K" : "\n"));
  p->printed = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode Summary(TS ts, MechSystem sys, Progress *p, PetscReal E0, PetscLogDouble start)
{
  PetscInt          steps, rejected, its, kits;
  PetscReal         t, ke, pe, E1;
  PetscLogDouble    now;
  TSConvergedReason reason;
  TSType            type;
  Vec               q, v;

  PetscFunctionBegin;
  PetscCall(PetscTime(&now));
  PetscCall(TSGetStepNumber(ts, &steps));
  PetscCall(TSGetStepRejections(ts, &rejected));
  PetscCall(TSGetSNESIterations(ts, &its));
  PetscCall(TSGetKSPIterations(ts, &kits));
  PetscCall(TSGetTime(ts, &t));
  PetscCall(TSGetConvergedReason(ts, &reason));
  PetscCall(TSGetType(ts, &type));
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(TSMechGetSolution(ts, q, v));
  PetscCall(MechSystemComputeEnergy(sys, t, q, v, &ke, &pe));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  E1 = ke + pe;
  if (p && p->printed && p->tty) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "tsmech: %s, %" PetscInt_FMT " steps (%" PetscInt_FMT " rejected) to t = %g, %" PetscInt_FMT " Newton / %" PetscInt_FMT " KSP iterations, %.2f s wall, energy %.6g -> %.6g (change relative to the larger %.3e), %s\n", type, steps, rejected, (double)t, its, kits, (double)(now - start), (double)E0, (double)E1, (double)((E1 - E0) / PetscMax(PetscMax(PetscAbsReal(E0), PetscAbsReal(E1)), PETSC_SMALL)), TSConvergedReasons[reason]));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm       comm;
  char           model[64] = "cloth", output[PETSC_MAX_PATH_LEN] = "", ckpath[PETSC_MAX_PATH_LEN] = "", restart[PETSC_MAX_PATH_LEN] = "";
  PetscInt       every = 10, ckevery = 0, keep = 1;
  PetscReal      interval = 0;
  PetscBool      quiet = PETSC_FALSE, hasoutput = PETSC_FALSE, hasck = PETSC_FALSE, hasrestart = PETSC_FALSE, set;
  MechSystem     sys;
  MechOutput     out = NULL;
  MechCheckpoint ck  = NULL;
  TS             ts;
  Vec            q, v;
  Progress       prog;
  Run            run;
  PetscReal      ke, pe, E0;
  PetscLogDouble start;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCall(TSMechInitializePackage());
  PetscOptionsBegin(comm, NULL, "tsmech driver options", "tsmech");
  PetscCall(PetscOptionsString("-model", "Model to integrate", "MechCreateModel", model, model, sizeof(model), NULL));
  PetscCall(PetscOptionsString("-output", "HDF5 output file (with an .xmf beside it for grid models)", "MechOutputCreate", output, output, sizeof(output), &hasoutput));
  PetscCall(PetscOptionsInt("-output_every", "Write the fields every N steps (first and last always)", "MechOutputCreate", every, &every, NULL));
  PetscCall(PetscOptionsBool("-quiet", "No progress line", NULL, quiet, &quiet, NULL));
  PetscCall(PetscOptionsString("-checkpoint", "Checkpoint file (HDF5), written atomically at the end, on SIGTERM/SIGINT and as below", "MechCheckpointWrite", ckpath, ckpath, sizeof(ckpath), &hasck));
  PetscCall(PetscOptionsInt("-checkpoint_every", "Write a checkpoint every N steps (0: no)", "MechCheckpointWrite", ckevery, &ckevery, &set));
  PetscCheck(!set || hasck, comm, PETSC_ERR_ARG_WRONG, "-checkpoint_every needs -checkpoint FILE.h5");
  PetscCall(PetscOptionsReal("-checkpoint_interval", "Write a checkpoint when S seconds of wall-clock time have passed since the last (0: no)", "MechCheckpointWrite", interval, &interval, &set));
  PetscCheck(!set || hasck, comm, PETSC_ERR_ARG_WRONG, "-checkpoint_interval needs -checkpoint FILE.h5");
  PetscCall(PetscOptionsInt("-checkpoint_keep", "Keep the last K checkpoints: FILE.h5, FILE.h5.1, ...", "MechCheckpointSetKeep", keep, &keep, &set));
  PetscCheck(!set || hasck, comm, PETSC_ERR_ARG_WRONG, "-checkpoint_keep needs -checkpoint FILE.h5");
  PetscCall(PetscOptionsString("-restart", "Continue the run from this checkpoint (with the options of the interrupted run)", "MechCheckpointLoad", restart, restart, sizeof(restart), &hasrestart));
  PetscOptionsEnd();
  PetscCheck(every >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-output_every %" PetscInt_FMT " must be at least 1", every);
  PetscCheck(!hasoutput || output[0], comm, PETSC_ERR_ARG_WRONG, "-output needs a file name");
  PetscCheck(!hasck || ckpath[0], comm, PETSC_ERR_ARG_WRONG, "-checkpoint needs a file name");
  PetscCheck(!hasrestart || restart[0], comm, PETSC_ERR_ARG_WRONG, "-restart needs a checkpoint file");
  PetscCheck(ckevery >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-checkpoint_every %" PetscInt_FMT " must be 0 (none) or positive", ckevery);
  PetscCheck(interval >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-checkpoint_interval %g must be 0 (none) or positive", (double)interval);
  PetscCheck(keep >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-checkpoint_keep %" PetscInt_FMT " must be at least 1", keep);
  PetscCall(PetscMemzero(&run, sizeof(run)));
  run.pause_at_step = -1;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-checkpoint_test_pause_at_step", &run.pause_at_step, NULL)); /* test hook */

  PetscCall(MechCreateModel(comm, model, &sys));
  PetscCall(TSCreate(comm, &ts));
  PetscCall(TSSetType(ts, TSMIDPOINT2));
  PetscCall(TSMechSetSystem(ts, sys));
  PetscCall(TSSetTimeStep(ts, 1e-3));
  PetscCall(TSSetMaxTime(ts, 1.0));
  PetscCall(TSSetMaxSteps(ts, PETSC_MAX_INT));
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  if (hasck || hasrestart) PetscCall(MechCheckpointCreate(sys, ts, &ck));
  if (hasck) PetscCall(MechCheckpointSetKeep(ck, keep));
  /* validated before anything is written; its TS settings become the defaults */
  if (hasrestart) PetscCall(MechCheckpointLoad(ck, ts, restart));
  PetscCall(TSSetFromOptions(ts));
  {
    PetscReal dt;
    PetscCall(TSGetTimeStep(ts, &dt));
    PetscCheck(dt > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ts_dt %g must be positive", (double)dt);
  }
  PetscCall(MechSystemCreateState(sys, &q, &v));
  /* the energy of the initial state, also for a restarted run */
  PetscCall(MechSystemComputeEnergy(sys, 0.0, q, v, &ke, &pe));
  E0 = ke + pe;
  if (hasrestart) {
    PetscInt  step;
    PetscReal t;

    PetscCall(MechCheckpointRestore(ck, ts, q, v));
    PetscCall(TSGetStepNumber(ts, &step));
    PetscCall(TSGetTime(ts, &t));
    PetscCall(PetscPrintf(comm, "tsmech: restarting from %s at step %" PetscInt_FMT ", t = %.10g\n", restart, step, (double)t));
  } else PetscCall(TSMechSetSolution(ts, q, v));

  PetscCall(PetscTime(&start));
  PetscCall(PetscMemzero(&prog, sizeof(prog)));
  if (!quiet) {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    prog.sys = sys;
    prog.tty = (rank == 0 && isatty(fileno(stdout))) ? PETSC_TRUE : PETSC_FALSE;
    PetscCallMPI(MPI_Bcast(&prog.tty, 1, MPIU_BOOL, 0, comm));
    prog.start = start;
    prog.last  = start;
    prog.E0    = E0;
    PetscCall(TSGetTime(ts, &prog.t0));
    PetscCall(TSGetMaxTime(ts, &prog.tmax));
    PetscCall(TSGetMaxSteps(ts, &prog.maxsteps));
    PetscCall(TSMonitorSet(ts, ProgressMonitor, &prog, NULL));
  }
  if (hasoutput) {
    /* a restarted run continues the output of the interrupted one */
    if (hasrestart) PetscCall(MechOutputContinue(sys, ts, output, every, &out));
    else PetscCall(MechOutputCreate(sys, ts, output, every, &out));
    PetscCall(TSMonitorSet(ts, TSMonitorMechOutput, out, NULL));
  }
  run.ck        = hasck ? ck : NULL;
  run.ckpath    = ckpath;
  run.every     = ckevery;
  run.interval  = interval;
  run.lastwrite = start;
  run.out       = out;
  run_ctx       = &run;
  PetscCall(TSSetPostStep(ts, CheckpointPostStep));
  PetscCall(InstallStopHandlers());
  PetscCall(TSSolve(ts, NULL));
  {
    TSConvergedReason reason;
    PetscInt          step, last;

    /* the final checkpoint, if the last step did not write it (a run with no step to do) */
    PetscCall(TSGetConvergedReason(ts, &reason));
    PetscCall(TSGetStepNumber(ts, &step));
    if (run.ck && reason >= 0) {
      PetscCall(MechCheckpointGetLast(ck, &last, NULL));
      if (!run.written || last != step) PetscCall(WriteCheckpoint(&run, ts));
    }
  }
  if (out) PetscCall(MechOutputClose(out, ts));
  PetscCall(Summary(ts, sys, quiet ? NULL : &prog, E0, start));
  if (hasoutput) PetscCall(PetscPrintf(comm, "tsmech: results in %s\n", output));
  if (hasck) PetscCall(PetscPrintf(comm, "tsmech: checkpoint in %s\n", ckpath));
  if (run.interrupted) {
    PetscInt  step;
    PetscReal t;

    PetscCall(TSGetStepNumber(ts, &step));
    PetscCall(TSGetTime(ts, &t));
    if (hasck) PetscCall(PetscPrintf(comm, "tsmech: interrupted by %s at step %" PetscInt_FMT ", t = %.10g; continue with: tsmech <same options> -restart %s\n", run.interrupted == SIGTERM ? "SIGTERM" : "SIGINT", step, (double)t, ckpath));
    else PetscCall(PetscPrintf(comm, "tsmech: interrupted by %s at step %" PetscInt_FMT ", t = %.10g; no -checkpoint was given, so the run cannot be continued\n", run.interrupted == SIGTERM ? "SIGTERM" : "SIGINT", step, (double)t));
  }
  {
    TSConvergedReason reason;
    PetscCall(TSGetConvergedReason(ts, &reason));
    PetscCheck(reason >= 0, comm, PETSC_ERR_NOT_CONVERGED, "The time integration stopped: %s", TSConvergedReasons[reason]);
  }
  PetscCall(MechOutputDestroy(&out));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(TSDestroy(&ts));
  PetscCall(MechCheckpointDestroy(&ck));
  PetscCall(MechSystemDestroy(&sys));
  PetscCall(PetscFinalize());
  /* an interrupted run ends with 128 + the signal number, as if the signal had ended it */
  return run.interrupted ? 128 + run.interrupted : 0;
}
