/* isatty(), clock_gettime(), sigaction(), nanosleep() and realpath() are POSIX */
#define _POSIX_C_SOURCE 200809L
static const char help[] = "tsmech: integrate M q'' + f(t, q, q') = 0 for a model with any PETSc TS type.\n"
                           "  mpirun -n P tsmech -model cloth [-output run.h5] [-checkpoint ck.h5 -checkpoint_every N] [PETSc options]\n"
                           "  mpirun -n P tsmech <the same options> -restart ck.h5    continues an interrupted run exactly\n"
                           "Every -ts_, -snes_, -ksp_, -pc_ option applies; the integrator is chosen with -ts_type\n"
                           "(tsmech's types, listed with -help under \"TS types\", alpha2, or PETSc's first-order types).\n"
                           "Exit status: 0 done, 2 bad input (nothing written), 3 the integration failed, 1 another error,\n"
                           "128 + N interrupted by signal N.\n";

#include <tsmech.h>
#include <petsc/private/tsimpl.h> /* ts->max_reject: PETSc 3.18 has no getter */
#include "../io/outputimpl.h"     /* MechTestPause(), MechIOCheckWritable(), MechIOFileKind(), MechOutputDiscard() */
#include "modes.h"                /* -modes: the modal analysis (modes.c) */
#include "driver.h"
#include "quasistatic.h"
#include <unistd.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <limits.h>
#include <errno.h>
#include <sys/stat.h>

/* Exit statuses (documented in the README and in -help) */
#define EXIT_TSMECH_ERROR  1 /* an error after the run started that is none of the below */
#define EXIT_TSMECH_INPUT  2 /* bad input: an option, a file; nothing was written */
#define EXIT_TSMECH_FAILED 3 /* the integration failed: a step diverged, a method was unstable */
/* the step an unstable explicit run is advised to take: this fraction below the stable step */
#define STABLE_STEP_MARGIN 0.1

/* What ended a run early, besides the TS's own failures */
typedef enum {
  FAIL_NONE,
  FAIL_TS,        /* the TS gave up on a step (its converged reason is negative) */
  FAIL_NONFINITE, /* a step the TS accepted left a NaN or Inf in the state (types that cannot reject it) */
  FAIL_BLOWUP,    /* the energy of an explicit method grew without bound */
  FAIL_REFUSED,   /* the model refused the new state (an inverted element) */
  FAIL_ERROR      /* an error was raised during a step */
} FailKind;

/* The signal (SIGTERM or SIGINT) that asked the run to stop, 0 if none: set by the handler,
   read after every step. Installed before the files are locked: during the set-up (no step to
   end at), at a second signal and at SIGPIPE (the reader of the standard output went away) the
   handler removes the run's lock files and temporaries and lets the signal end the process as
   if tsmech had no handler; during the steps the first SIGTERM or SIGINT only asks the run to
   stop after the step (a checkpoint is written). */
static volatile sig_atomic_t stop_signal = 0, stepping = 0;

static void StopHandler(int sig)
{
  /* SIGPIPE: the reader of the output went away (tsmech ... | head); it ends the run as it ends
     any program, without PETSc's crash report, and leaves no lock file */
  if (stepping && !stop_signal && sig != SIGPIPE) {
    stop_signal = sig;
    return;
  }
  MechIOPlanRemoveLocksOnSignal();
  (void)signal(sig, SIG_DFL);
  (void)raise(sig);
}

static PetscErrorCode InstallStopHandlers(void)
{
  struct sigaction sa;

  PetscFunctionBegin;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = StopHandler;
  sa.sa_flags   = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  PetscCheck(!sigaction(SIGTERM, &sa, NULL) && !sigaction(SIGINT, &sa, NULL) && !sigaction(SIGPIPE, &sa, NULL), PETSC_COMM_SELF, PETSC_ERR_SYS, "Cannot install the SIGTERM, SIGINT and SIGPIPE handlers");
  PetscFunctionReturn(0);
}

/* The state (q, v) of ts, for reading: the TS's own vectors for the second-order types, else
   unpacked into the work vectors *qw, *vw, created at their first use */
static PetscErrorCode ReadState(MechSystem sys, TS ts, Vec *qw, Vec *vw, Vec *q, Vec *v)
{
  PetscBool second;

  PetscFunctionBegin;
  PetscCall(TSMechIsSecondOrder(ts, &second));
  if (second) {
    PetscCall(TS2GetSolution(ts, q, v));
    PetscFunctionReturn(0);
  }
  if (!*qw) PetscCall(MechSystemCreateState(sys, qw, vw));
  PetscCall(TSMechGetSolution(ts, *qw, *vw));
  *q = *qw;
  *v = *vw;
  PetscFunctionReturn(0);
}

/* The progress line: in place on a terminal, plain lines otherwise. */
typedef struct {
  MechSystem     sys;
  Vec           *qw, *vw; /* the run's work vectors (App), not the monitor's own */
  PetscBool      tty;
  PetscLogDouble start, last;
  PetscReal      E0, t0, tmax;
  PetscInt       maxsteps;
  PetscBool      printed;
} Progress;

/* Everything of one run: the options, the objects, and what the post-step callback keeps */
typedef struct {
  MPI_Comm comm;
  /* options */
  char          model[64], output[PETSC_MAX_PATH_LEN], ckpath[PETSC_MAX_PATH_LEN], restart[PETSC_MAX_PATH_LEN];
  PetscInt      every, ckevery, keep;
  PetscReal     interval;
  PetscBool     quiet, hasoutput, hasck, hasrestart, help, equilibrium;
  DriverBalance balance; /* the reactions and the energy balance (balance.c) */
  /* objects */
  MechSystem     sys;
  TS             ts;
  Vec            q, v;   /* the initial state, given to the TS (second-order types keep these vectors) */
  Vec            qw, vw; /* work vectors in the system's layout, created at their first use (ReadState()) */
  MechOutput     out;
  MechCheckpoint ck;
  MechIOPlan     plan;  /* the run's files, locked until Destroy() */
  DriverModes    modes; /* -modes, NULL without */
  TSMechGuard    guard; /* held by the TS: the checks after every step, the last good state */
  Progress       prog;
  PetscLogDouble start;
  PetscBool      explicit_; /* the integrator is explicit */
  /* checkpoints and interruption (the post-step callback) */
  PetscLogDouble lastwrite;
  PetscInt       pause_at_step; /* test hook, -1 none */
  int            interrupted;   /* the signal that stopped the run, 0 none */
  PetscBool      written;       /* a checkpoint was written by this run */
  PetscInt       ckstep;        /* the step and time of the checkpoint after a failure */
  PetscReal      cktime;
  /* failure */
  FailKind  fail;
  PetscReal faildt; /* the step that failed */
  char      failmsg[1024];
} App;

/*
  Whether every rank has reached the error path, waited for at most `seconds` on a communicator
  of its own (an error on some ranks only leaves the others in a collective operation, where
  they would wait forever).
*/
static PetscBool AllRanksFailed(MPI_Comm errcomm, double seconds)
{
  MPI_Request req;
  int         done = 0, i;

  if (MPI_Ibarrier(errcomm, &req) != MPI_SUCCESS) return PETSC_FALSE;
  for (i = 0; i < (int)(seconds * 100) && !done; i++) {
    struct timespec ts = {0, 10000000};
    if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return PETSC_FALSE;
    if (!done) nanosleep(&ts, NULL);
  }
  if (!done) MPI_Test(&req, &done, MPI_STATUS_IGNORE);
  return done ? PETSC_TRUE : PETSC_FALSE;
}

/*
  The size of the communicator of the error raised first (PETSC_ERROR_INITIAL), recorded by the
  driver's error handler: an error of one rank's own (PETSC_COMM_SELF) may leave the other ranks
  in a collective operation, an error on the whole communicator is raised by every rank at once.
*/
static PetscMPIInt error_comm_size = 0;

static PetscErrorCode RecordingErrorHandler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  if (p == PETSC_ERROR_INITIAL) {
    PetscMPIInt size = 1;

    if (comm != MPI_COMM_NULL && MPI_Comm_size(comm, &size) != MPI_SUCCESS) size = 1;
    error_comm_size = size;
  }
  /* -traceback: PETSc's trace as without a handler of ours; else returned, told in one line */
  if (*(PetscBool *)ctx) return PetscTraceBackErrorHandler(comm, line, fun, file, n, p, mess, NULL);
  return PetscReturnErrorHandler(comm, line, fun, file, n, p, mess, NULL);
}

/* ------------------------------------------------------------------------------------------ */
/* Checks before any work                                                                     */
/* ------------------------------------------------------------------------------------------ */

/* A value of a -<x>_type option that names no registered type: refused with the list */
static PetscErrorCode CheckTypeOption(MPI_Comm comm, const char opt[], PetscFunctionList list, const char what[])
{
  char      value[256];
  PetscBool set;
  void (*f)(void) = NULL;
  const char **names;
  int          n, i;
  char        *allowed;
  size_t       len = 1;

  PetscFunctionBegin;
  PetscCall(MechOptionsGetString(comm, opt, value, sizeof(value), &set));
  if (!set) PetscFunctionReturn(0);
  PetscCall(PetscFunctionListFind(list, value, &f));
  if (f) PetscFunctionReturn(0);
  /* the array is NULL-terminated (PETSc 3.18 counts the NULL in n) */
  PetscCall(PetscFunctionListGet(list, &names, &n));
  for (i = 0; i < n && names[i]; i++) len += strlen(names[i]) + 2;
  PetscCall(PetscCalloc1(len, &allowed));
  for (i = 0; i < n && names[i]; i++) {
    if (i) PetscCall(PetscStrlcat(allowed, ", ", len));
    PetscCall(PetscStrlcat(allowed, names[i], len));
  }
  PetscCall(PetscFree(names));
  /* the message is built before the list is freed */
  {
    char msg[4096];
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s %s: unknown %s; allowed: %s", opt, value[0] ? value : "(empty)", what, allowed));
    PetscCall(PetscFree(allowed));
    SETERRQ(comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "%s", msg);
  }
}

/* PETSc's step-size controllers that need a setting no option gives, and what they need */
static const char *const AdaptNeeds[][2] = {
    {"history", "the controller replays the steps of a recorded run (TSAdaptHistorySetHistory())"}
};

/* -ts_adapt_type: PETSc keeps its list private; a type is tried on a scratch controller */
static PetscErrorCode CheckAdaptType(MPI_Comm comm)
{
  char           value[256];
  PetscBool      set;
  TSAdapt        adapt;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MechOptionsGetString(comm, "-ts_adapt_type", value, sizeof(value), &set));
  if (!set) PetscFunctionReturn(0);
  PetscCall(TSAdaptCreate(comm, &adapt));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = TSAdaptSetType(adapt, value);
  PetscCall(PetscPopErrorHandler());
  PetscCall(TSAdaptDestroy(&adapt));
  PetscCheck(!ierr, comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "-ts_adapt_type %s: unknown step-size controller; allowed: none, basic, dsp, cfl, glee, history, increment", value);
  /* controllers that need what only a program can give them (PETSc checks it at the first step) */
  for (size_t i = 0; i < sizeof(AdaptNeeds) / sizeof(AdaptNeeds[0]); i++) {
    PetscBool same;

    PetscCall(PetscStrcmp(value, AdaptNeeds[i][0], &same));
    PetscCheck(!same, comm, PETSC_ERR_ARG_INCOMP, "-ts_adapt_type %s: %s, which the tsmech program has no option to give; use basic, dsp or none", value, AdaptNeeds[i][1]);
  }
  PetscFunctionReturn(0);
}

/* Whether two paths name one file (canonical paths, hard links): MechIOSameFile() */
static PetscErrorCode SamePath(MPI_Comm comm, const char a[], const char b[], PetscBool *same)
{
  PetscFunctionBegin;
  PetscCall(MechIOSameFile(comm, a, b, same));
  PetscFunctionReturn(0);
}

/*
  The files of the run, before anything is created (MechIOPlanFiles()): every file the run writes
  (-output, its .xmf, -checkpoint and its -checkpoint_keep rotation slots, their temporaries) must
  be writable, short enough for the I/O stack, distinct from the others and from -restart, free of
  any other run (locked until the run ends), and an existing file there must be of the kind the
  run would replace: a run never overwrites a checkpoint with an output, an output with a
  checkpoint, or a file that is not its own (a typo must not cost a file).
*/
static PetscErrorCode CheckFiles(App *app)
{
  PetscFunctionBegin;
  /* the -restart file's contents are checked by MechCheckpointLoad(), against the model */
  PetscCall(MechIOPlanFiles(app->comm, app->hasoutput ? app->output : NULL, app->hasck ? app->ckpath : NULL, app->hasck ? app->keep : 1, app->hasrestart ? app->restart : NULL, &app->plan));
  PetscFunctionReturn(0);
}

/* An error of a library call about the file of an option: the message gets "-option file: " */
static PetscErrorCode OptionError(MPI_Comm comm, PetscErrorCode ierr, const char opt[], const char value[])
{
  char line[2048];

  PetscFunctionBegin;
  ErrorLine(ierr, PETSC_FALSE, line, sizeof(line));
  SETERRQ(comm, ierr, "%s %s: %s", opt, value, line);
}

/* ------------------------------------------------------------------------------------------ */
/* After every step                                                                           */
/* ------------------------------------------------------------------------------------------ */

/* Records the step in the output and flushes it (so the output reaches the checkpoint's step),
   then writes the checkpoint */
static PetscErrorCode WriteCheckpoint(App *app)
{
  PetscFunctionBegin;
  if (app->out) {
    PetscCall(MechOutputRecord(app->out, app->ts));
    PetscCall(MechOutputFlush(app->out));
  }
  PetscCall(MechCheckpointWrite(app->ck, app->ts, app->ckpath));
  PetscCall(PetscTime(&app->lastwrite));
  app->written = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*
  After every step the run guard kept (TSMechGuardSetPostStep(); the guard checked the state
  and keeps it as the last good one): writes a checkpoint every -checkpoint_every steps, after
  -checkpoint_interval seconds (rank 0's clock), at the last step and when a signal asked the run
  to stop; then the run stops (TS_CONVERGED_USER). The ranks agree on every decision (reductions).
*/
static PetscErrorCode PostStep(TS ts, void *ctx)
{
  App              *app = (App *)ctx;
  MPI_Comm          comm;
  PetscMPIInt       rank;
  PetscInt          step;
  TSConvergedReason reason;
  int               flags[2] = {0, 0};

  PetscFunctionBegin;
  PetscCall(PetscObjectGetComm((PetscObject)ts, &comm));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(TSGetConvergedReason(ts, &reason));
  PetscCall(TSGetStepNumber(ts, &step));
  if (step == app->pause_at_step) {
    char marker[PETSC_MAX_PATH_LEN];
    PetscCall(PetscSNPrintf(marker, sizeof(marker), "%s.pause", app->ckpath[0] ? app->ckpath : "tsmech"));
    PetscCall(MechTestPause(comm, marker, &stop_signal));
  }
  flags[0] = (int)stop_signal;
  if (app->hasck && app->interval > 0 && rank == 0) {
    PetscLogDouble now;
    PetscCall(PetscTime(&now));
    flags[1] = now - app->lastwrite >= app->interval;
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MAX, comm));
  if (app->hasck && (flags[0] || flags[1] || (app->ckevery > 0 && step % app->ckevery == 0) || reason > 0)) PetscCall(WriteCheckpoint(app));
  if (flags[0]) {
    app->interrupted = flags[0];
    PetscCall(TSSetConvergedReason(ts, TS_CONVERGED_USER));
  }
  PetscFunctionReturn(0);
}

/* The step and time of the last good state and the step the run started from (0 before the
   guard exists) */
static PetscErrorCode GoodState(App *app, PetscInt *good, PetscReal *goodtime, PetscInt *start)
{
  PetscFunctionBegin;
  if (good) *good = 0;
  if (goodtime) *goodtime = 0;
  if (start) *start = 0;
  if (app->guard) PetscCall(TSMechGuardGetInfo(app->guard, NULL, NULL, start, good, goodtime, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode ProgressMonitor(TS ts, PetscInt step, PetscReal t, Vec X, void *ctx)
{
  Progress         *p = (Progress *)ctx;
  PetscLogDouble    now;
  PetscReal         dt, ke, pe, frac = 0, tmax = p->tmax;
  PetscInt          its, kits, maxsteps = p->maxsteps;
  Vec               q, v;
  char              remaining[64] = "", eq[32];
  TSConvergedReason reason;

  PetscFunctionBegin;
  (void)X;
  /* the call after a failed step is not a step */
  PetscCall(TSGetConvergedReason(ts, &reason));
  if (reason < 0) PetscFunctionReturn(0);
  /* a line at most every 0.2 s on a terminal and every 5 s in a log, plus the first and last.
     The energy below is a reduction: rank 0's clock decides for every rank (the ranks' clocks
     differ, and a rank that skipped it would meet another collective call). */
  PetscCall(PetscTime(&now));
  PetscCallMPI(MPI_Bcast(&now, 1, MPI_DOUBLE, 0, PetscObjectComm((PetscObject)ts)));
  if (step > 0 && now - p->last < (p->tty ? 0.2 : 5.0)) {
    PetscBool last = (t >= tmax * (1 - 1e-12) || step >= maxsteps) ? PETSC_TRUE : PETSC_FALSE;
    if (!last) PetscFunctionReturn(0);
  }
  p->last = now;
  PetscCall(ReadState(p->sys, ts, p->qw, p->vw, &q, &v));
  PetscCall(MechSystemComputeEnergy(p->sys, t, q, v, &ke, &pe));
  PetscCall(TSGetTimeStep(ts, &dt));
  PetscCall(TSGetSNESIterations(ts, &its));
  PetscCall(TSGetKSPIterations(ts, &kits));
  if (tmax > p->t0 && tmax < PETSC_MAX_REAL) frac = (t - p->t0) / (tmax - p->t0);
  if (maxsteps > 0 && maxsteps < PETSC_MAX_INT) frac = PetscMax(frac, (PetscReal)step / maxsteps);
  if (frac > 0 && frac < 1) PetscCall(PetscSNPrintf(remaining, sizeof(remaining), "  remaining ~%.1f s", (double)((now - p->start) * (1 - frac) / frac)));
  /* a quasi-static type: the residual of equilibrium against the load instead of the energy */
  PetscCall(DriverEquilibriumColumn(ts, eq, sizeof(eq)));
  if (eq[0]) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%sstep %6" PetscInt_FMT "  t %-10.4g dt %-9.3g %s    newton %-6" PetscInt_FMT " ksp %-8" PetscInt_FMT " elapsed %.1f s%s%s", p->tty ? "\r" : "", step, (double)t, (double)dt, eq, its, kits, (double)(now - p->start), remaining, p->tty ? "\033[K" : "\n"));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%sstep %6" PetscInt_FMT "  t %-10.4g dt %-9.3g E %-13.6g newton %-6" PetscInt_FMT " ksp %-8" PetscInt_FMT " elapsed %.1f s%s%s", p->tty ? "\r" : "", step, (double)t, (double)dt, (double)(ke + pe), its, kits, (double)(now - p->start), remaining, p->tty ? "\033[K" : "\n"));
  p->printed = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode Summary(App *app)
{
  TS                ts = app->ts;
  PetscInt          steps, rejected, its, kits;
  PetscReal         t, ke, pe, E1, E0, C0, scale;
  PetscInt          driverrejects;
  Vec               q, v;
  PetscLogDouble    now;
  TSConvergedReason reason;
  TSType            type;

  PetscFunctionBegin;
  PetscCall(PetscTime(&now));
  PetscCall(TSMechGuardGetInfo(app->guard, &E0, &C0, NULL, NULL, NULL, &driverrejects));
  PetscCall(TSGetStepNumber(ts, &steps));
  PetscCall(TSGetStepRejections(ts, &rejected));
  PetscCall(TSGetSNESIterations(ts, &its));
  PetscCall(TSGetKSPIterations(ts, &kits));
  PetscCall(TSGetTime(ts, &t));
  PetscCall(TSGetConvergedReason(ts, &reason));
  PetscCall(TSGetType(ts, &type));
  PetscCall(ReadState(app->sys, ts, &app->qw, &app->vw, &q, &v));
  PetscCall(MechSystemComputeEnergy(app->sys, t, q, v, &ke, &pe));
  {
    TSMechProperties p;

    /* a quasi-static run's v is the rate of loading (q_{n+1} - q_n) / tau: no kinetic energy */
    PetscCall(TSMechGetProperties(ts, &p));
    if (p.quasistatic) ke = 0;
  }
  E1 = ke + pe;
  /* the change is measured against the energy the state holds, K + |V| (the larger of the start
     and the end), not against E0: a cloth released flat from rest starts with E0 = 0 */
  scale = PetscMax(PetscMax(C0, PetscAbsReal(ke) + PetscAbsReal(pe)), PETSC_SMALL);
  if (!app->quiet && app->prog.printed && app->prog.tty) PetscCall(Say(app->comm, PETSC_STDOUT, "\n"));
  PetscCall(Say(app->comm, PETSC_STDOUT, "tsmech: %s, %" PetscInt_FMT " steps (%" PetscInt_FMT " rejected) to t = %g, %" PetscInt_FMT " Newton / %" PetscInt_FMT " KSP iterations, %.2f s wall, energy %.6g -> %.6g (change %.3e of the energy content K + |V| = %.4g), %s\n", type, steps, rejected + driverrejects, (double)t, its, kits, (double)(now - app->start), (double)E0, (double)E1, (double)((E1 - E0) / scale), (double)scale, TSConvergedReasons[reason]));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Set-up: every check before any file is written                                             */
/* ------------------------------------------------------------------------------------------ */

/* -help: the TS types as they describe themselves (TSMechGetTypeNames(): a new type is listed without a word here) */
static PetscErrorCode PrintTypesHelp(MPI_Comm comm)
{
  const char *const *names, *const *descriptions;
  PetscInt n;
  char     line[4608] = "";

  PetscFunctionBegin;
  PetscCall(TSMechGetTypeNames(&n, &names, &descriptions));
  for (PetscInt i = 0; i < n; i++) {
    PetscCall(PetscStrlcat(line, names[i], sizeof(line)));
    PetscCall(PetscStrlcat(line, ", ", sizeof(line)));
  }
  PetscCall((*PetscHelpPrintf)(comm, "----------------------------------------\nTS types (-ts_type): %salpha2, or PETSc's first-order types\n", line));
  for (PetscInt i = 0; i < n; i++) PetscCall((*PetscHelpPrintf)(comm, "  %s: %s\n", names[i], descriptions[i]));
  PetscFunctionReturn(0);
}

/*MC
  TSMechDriverOptions - the options of the tsmech program (src/driver): the model, the output, the
  checkpoints; besides them every -ts_, -snes_, -ksp_, -pc_ option of PETSc applies (docs/program.md)

  Options Database Keys:
+ -model <cloth> - the model: oscillator, pair, chain, kepler, cloth, lattice, solid (-help lists them; `MechModelRegister()` adds a model of one's own)
. -output <FILE.h5> - HDF5 output (`MechOutputFormat`), with FILE.xmf beside it for the grid models and the solid (none by default)
. -output_every <10> - the fields every N steps (the first and the last step always)
. -quiet - no progress line
. -report_equilibrium - at the end, the residual of static equilibrium |f(t, q, 0)| against the load |f(t, X, 0)|
. -checkpoint <FILE.h5> - the checkpoint file (`MechCheckpointFormat`), written atomically at the end, on SIGTERM/SIGINT, after a failed step and as below (none by default)
. -checkpoint_every <0> - a checkpoint every N steps (0: none)
. -checkpoint_interval <0> - a checkpoint when S seconds of wall-clock time (rank 0's clock) have passed since the last (0: none)
. -checkpoint_keep <1> - keep the last K checkpoints (at most 100): FILE.h5 (the newest), FILE.h5.1, ..., FILE.h5.<K-1>
. -restart <FILE.h5> - continue the run of this checkpoint (give the options of the interrupted run; docs/program.md, "Checkpoint and restart")
. -traceback - on an error, PETSc's full error trace besides the one-line message
. -ts_type <midpoint2> - any tsmech type (`TSTHETA2` ...), alpha2, or a PETSc first-order type
. -ts_dt <1e-3>, -ts_max_time <1>, -ts_max_steps - the step, the final time, the step limit (none by default)
- -ts_max_snes_failures <1> - failed steps a run survives: -1 (unlimited) by default with a -ts_adapt_type other than none (tsmech's implicit types retry by default, `TSADAPTINCREMENT`), where each is a rejected step

  Level: beginner

  Notes:
  -help lists every option (the model's, the integrator's, the solvers') and exits without running
  or writing anything; -ts_view shows the integrator. Per-model option files are in config/
  (-options_file config/cloth.opts). Exit status: 0 done, 2 bad input (nothing was written), 3 the
  integration failed, 1 another error, 128 + N interrupted by signal N. The checks of the input,
  failed steps, errors on some ranks, the progress line and the program's modal analysis
  (`TSMechModesOptions`), reactions and energy balance (`TSMechProgramBalance`) are in docs/program.md.

.seealso: `TSMechModesOptions`, `TSMechProgramBalance`, `MechOutputFormat`, `MechCheckpointFormat`
M*/

/* The driver's own options, read in one options block (so -help documents them) and checked */
static PetscErrorCode ReadOptions(App *app)
{
  MPI_Comm  comm = app->comm;
  PetscBool set;

  PetscFunctionBegin;
  /* numbers no option may take (NaN, Inf, overflow, subnormal, wrapping integers), before any is read */
  PetscCall(MechOptionsCheckNumbers(comm, NULL));
  (void)PetscStrncpy(app->model, "cloth", sizeof(app->model));
  app->every         = 10;
  app->keep          = 1;
  app->pause_at_step = -1;
  PetscCall(PetscOptionsHasHelp(NULL, &set));
  if (set) PetscCall(PrintTypesHelp(comm));
  PetscOptionsBegin(comm, NULL, "tsmech driver options", "tsmech");
  PetscCall(MechModelRegisterAll());
  PetscCall(MechOptionsFList("-model", "Model to integrate", "MechCreateModel", MechModelList, app->model, app->model, sizeof(app->model), NULL));
  PetscCall(MechOptionsString("-output", "HDF5 output file (with an .xmf beside it for grid models)", "MechOutputCreate", app->output, app->output, sizeof(app->output), &app->hasoutput));
  PetscCall(MechOptionsInt("-output_every", "Write the fields every N steps (first and last always)", "MechOutputCreate", app->every, &app->every, NULL));
  PetscCall(MechOptionsBool("-quiet", "No progress line", NULL, app->quiet, &app->quiet, NULL));
  PetscCall(MechOptionsBool("-report_equilibrium", "At the end, the residual |f(t, q, 0)| of static equilibrium against the load |f(t, X, 0)|", NULL, app->equilibrium, &app->equilibrium, NULL));
  PetscCall(MechOptionsString("-checkpoint", "Checkpoint file (HDF5), written atomically at the end, on SIGTERM/SIGINT, after a failed step and as below", "MechCheckpointWrite", app->ckpath, app->ckpath, sizeof(app->ckpath), &app->hasck));
  PetscCall(MechOptionsInt("-checkpoint_every", "Write a checkpoint every N steps (0: no)", "MechCheckpointWrite", app->ckevery, &app->ckevery, &set));
  PetscCheck(!set || app->hasck, comm, PETSC_ERR_ARG_WRONG, "-checkpoint_every %" PetscInt_FMT ": needs -checkpoint FILE.h5", app->ckevery);
  PetscCall(MechOptionsReal("-checkpoint_interval", "Write a checkpoint when S seconds of wall-clock time have passed since the last (0: no)", "MechCheckpointWrite", app->interval, &app->interval, &set));
  PetscCheck(!set || app->hasck, comm, PETSC_ERR_ARG_WRONG, "-checkpoint_interval %g: needs -checkpoint FILE.h5", (double)app->interval);
  PetscCall(MechOptionsInt("-checkpoint_keep", "Keep the last K checkpoints: FILE.h5, FILE.h5.1, ...", "MechCheckpointSetKeep", app->keep, &app->keep, &set));
  PetscCheck(!set || app->hasck, comm, PETSC_ERR_ARG_WRONG, "-checkpoint_keep %" PetscInt_FMT ": needs -checkpoint FILE.h5", app->keep);
  PetscCall(MechOptionsString("-restart", "Continue the run from this checkpoint (with the options of the interrupted run)", "MechCheckpointLoad", app->restart, app->restart, sizeof(app->restart), &app->hasrestart));
  PetscCall(PetscOptionsName("-traceback", "On an error, PETSc's full error trace besides tsmech's one-line message", NULL, &set));
  PetscOptionsEnd();
  PetscCheck(app->every >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-output_every %" PetscInt_FMT ": must be at least 1", app->every);
  PetscCheck(!app->hasoutput || app->output[0], comm, PETSC_ERR_ARG_WRONG, "-output: needs a file name");
  PetscCheck(!app->hasck || app->ckpath[0], comm, PETSC_ERR_ARG_WRONG, "-checkpoint: needs a file name");
  PetscCheck(!app->hasrestart || app->restart[0], comm, PETSC_ERR_ARG_WRONG, "-restart: needs a checkpoint file");
  PetscCheck(app->ckevery >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-checkpoint_every %" PetscInt_FMT ": must be 0 (none) or positive", app->ckevery);
  PetscCheck(app->interval >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-checkpoint_interval %g: must be 0 (none) or positive", (double)app->interval);
  PetscCheck(app->keep >= 1 && app->keep <= MECH_IO_MAX_KEEP, comm, PETSC_ERR_ARG_OUTOFRANGE, "-checkpoint_keep %" PetscInt_FMT ": must be between 1 and %d", app->keep, MECH_IO_MAX_KEEP);
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-checkpoint_test_pause_at_step", &app->pause_at_step, NULL)); /* test hook */
  PetscCall(DriverModesCreate(comm, &app->modes));
  PetscCall(DriverBalanceOptions(comm, &app->balance));

  PetscFunctionReturn(0);
}

/*
  Options of PETSc's and of the TS types that take a value, given without one: PETSc reads
  "-ts_dt" and "-ts_dt ''" alike as not given and keeps the default, so a run would silently
  differ from what was asked. The types list their own (TSMechGetValuedOptions()); the generic
  ones are below. (The models' and the driver's own options check themselves: MechOptionsReal()
  and its kind.)
*/
static PetscErrorCode CheckValuesGiven(MPI_Comm comm)
{
  static const char *const valued[] = {"-ts_type", "-ts_dt", "-ts_max_time", "-ts_max_steps", "-ts_max_snes_failures", "-ts_max_reject", "-ts_rtol", "-ts_atol", "-ts_adapt_type", "-ts_adapt_dt_min", "-ts_adapt_dt_max", "-ts_adapt_safety", "-ts_adapt_clip", "-snes_type", "-snes_rtol", "-snes_atol", "-snes_stol", "-snes_max_it", "-snes_max_funcs", "-snes_linesearch_type", "-ksp_type", "-ksp_rtol", "-ksp_atol", "-ksp_max_it", "-pc_type", "-pc_factor_mat_solver_type", "-mass_ksp_type", "-mass_pc_type", "-dm_mat_type", "-da_processors_x", "-da_processors_y", "-da_processors_z", "-options_file"};
  const char *const       *typevalued;
  PetscInt                 n;

  PetscFunctionBegin;
  PetscCall(MechOptionsCheckValuesGiven(comm, (PetscInt)(sizeof(valued) / sizeof(valued[0])), valued));
  PetscCall(TSMechGetValuedOptions(&n, &typevalued));
  PetscCall(MechOptionsCheckValuesGiven(comm, n, typevalued));
  PetscFunctionReturn(0);
}

/* The values of -<x>_type options, against the lists of registered types, before anything reads them */
static PetscErrorCode CheckTypes(MPI_Comm comm)
{
  PetscFunctionBegin;
  PetscCall(TSInitializePackage());
  PetscCall(SNESInitializePackage());
  PetscCall(KSPInitializePackage());
  PetscCall(PCInitializePackage());
  PetscCall(CheckTypeOption(comm, "-ts_type", TSList, "TS type (integrator)"));
  PetscCall(CheckTypeOption(comm, "-snes_type", SNESList, "SNES type (nonlinear solver)"));
  PetscCall(CheckTypeOption(comm, "-ksp_type", KSPList, "KSP type (linear solver)"));
  PetscCall(CheckTypeOption(comm, "-pc_type", PCList, "PC type (preconditioner)"));
  PetscCall(CheckAdaptType(comm));

  PetscFunctionReturn(0);
}

/* The model and the TS (with a restart: the checkpoint's settings as defaults), the TS's
   options, and the checks of what they imply */
static PetscErrorCode CreateObjects(App *app)
{
  MPI_Comm  comm = app->comm;
  PetscBool set;
  PetscReal dt, tmax;
  PetscInt  maxsteps;

  PetscFunctionBegin;
  PetscCall(MechCreateModel(comm, app->model, &app->sys));
  PetscCall(TSCreate(comm, &app->ts));
  PetscCall(TSSetType(app->ts, TSMIDPOINT2));
  PetscCall(TSMechSetSystem(app->ts, app->sys));
  PetscCall(TSSetTimeStep(app->ts, 1e-3));
  PetscCall(TSSetMaxTime(app->ts, 1.0));
  PetscCall(TSSetMaxSteps(app->ts, PETSC_MAX_INT));
  PetscCall(TSSetExactFinalTime(app->ts, TS_EXACTFINALTIME_MATCHSTEP));
  if (app->hasck || app->hasrestart) PetscCall(MechCheckpointCreate(app->sys, app->ts, &app->ck));
  if (app->hasck) PetscCall(MechCheckpointSetKeep(app->ck, app->keep));
  /* validated before anything is written; its TS settings become the defaults */
  if (app->hasrestart) {
    PetscErrorCode ierr = MechCheckpointLoad(app->ck, app->ts, app->restart);
    if (ierr) PetscCall(OptionError(comm, ierr, "-restart", app->restart));
    if (app->hasoutput) {
      PetscCall(SamePath(comm, app->output, app->restart, &set));
      PetscCheck(!set, comm, PETSC_ERR_ARG_INCOMP, "-output %s and -restart %s name the same file: -restart takes the checkpoint (-checkpoint FILE), -output the results", app->output, app->restart);
    }
  }
  PetscCall(TSSetFromOptions(app->ts));
  PetscCall(DriverQuasiStaticStep(app->ts, app->hasrestart));
  PetscCall(TSGetTimeStep(app->ts, &dt));
  PetscCheck(dt > 0 && !PetscIsInfOrNanReal(dt), comm, PETSC_ERR_ARG_OUTOFRANGE, "-ts_dt %g: the step must be positive", (double)dt);
  PetscCall(TSGetMaxSteps(app->ts, &maxsteps));
  PetscCheck(maxsteps >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ts_max_steps %" PetscInt_FMT ": must be non-negative", maxsteps);
  PetscCall(TSGetMaxTime(app->ts, &tmax));
  PetscCheck(app->hasrestart || (tmax > 0 && !PetscIsNanReal(tmax)), comm, PETSC_ERR_ARG_OUTOFRANGE, "-ts_max_time %g: must be positive (the run starts at t = 0)", (double)tmax);
  if (app->hasrestart) {
    PetscInt  ckstep;
    PetscReal cktime;

    /* a restart continues: its end must lie beyond the checkpoint, or it would only rewrite the
       checkpoint and cut the continued output back */
    PetscBool givent, givens;

    PetscCall(MechCheckpointGetLast(app->ck, &ckstep, &cktime));
    PetscCall(PetscOptionsHasName(NULL, NULL, "-ts_max_time", &givent));
    PetscCall(PetscOptionsHasName(NULL, NULL, "-ts_max_steps", &givens));
    if (givent) PetscCheck(tmax > cktime, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ts_max_time %g: the checkpoint %s is at t = %.10g; a restart must run to a later time", (double)tmax, app->restart, (double)cktime);
    if (givens) PetscCheck(maxsteps > ckstep, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ts_max_steps %" PetscInt_FMT ": the checkpoint %s is at step %" PetscInt_FMT "; a restart must run to a later step", maxsteps, app->restart, ckstep);
    PetscCheck(tmax > cktime && maxsteps > ckstep, comm, PETSC_ERR_ARG_OUTOFRANGE, "-restart %s: the checkpoint is the end of its run (step %" PetscInt_FMT ", t = %.10g, with -ts_max_steps %" PetscInt_FMT " -ts_max_time %g): give a later -ts_max_steps or -ts_max_time to continue it", app->restart, ckstep, (double)cktime, maxsteps, (double)tmax);
  }
  PetscCall(TSMechIsExplicit(app->ts, &app->explicit_));
  PetscCall(PetscObjectTypeCompare((PetscObject)app->ts, TSTHETA, &set));
  if (set) {
    PetscReal theta;

    /* PETSc's theta divides by theta; its check comes only at the first step */
    PetscCall(TSThetaGetTheta(app->ts, &theta));
    PetscCheck(theta > 0 && theta <= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ts_theta_theta %g: PETSc's theta type needs theta in (0, 1]; for explicit Euler use -ts_type euler2 or euler", (double)theta);
  }
  if (app->explicit_) {
    /* the explicit types solve with M: its solver, created at the first step, is checked now */
    PetscCall(CheckTypeOption(comm, "-mass_ksp_type", KSPList, "KSP type (the mass solve's)"));
    PetscCall(CheckTypeOption(comm, "-mass_pc_type", PCList, "PC type (the mass solve's)"));
  }
  PetscCall(MechSystemCreateState(app->sys, &app->q, &app->v));
  /* before a restart gives it what it accumulated, and before the output records it */
  PetscCall(DriverBalanceSetUp(&app->balance, app->ts));
  if (app->hasrestart) PetscCall(MechCheckpointRestore(app->ck, app->ts, app->q, app->v));
  else PetscCall(TSMechSetSolution(app->ts, app->q, app->v));
  /* the type's own set-up checks (PETSc's theta range, a first-order form) before files exist */
  PetscCall(TSSetUp(app->ts));
  /* the checks after every step, the last good state; the checkpoints after a kept step */
  PetscCall(TSMechSetGuard(app->ts, &app->guard));
  PetscCall(TSMechGuardSetPostStep(app->guard, PostStep, app));

  PetscFunctionReturn(0);
}

/* The progress line and the output: the last of the set-up, nothing is written before */
static PetscErrorCode StartMonitors(App *app)
{
  MPI_Comm    comm = app->comm;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscTime(&app->start));
  PetscCallMPI(MPI_Bcast(&app->start, 1, MPI_DOUBLE, 0, comm));
  if (!app->quiet) {
    Progress *p = &app->prog;
    p->sys      = app->sys;
    p->qw       = &app->qw;
    p->vw       = &app->vw;
    p->tty      = (rank == 0 && isatty(fileno(stdout))) ? PETSC_TRUE : PETSC_FALSE;
    PetscCallMPI(MPI_Bcast(&p->tty, 1, MPIU_BOOL, 0, comm));
    p->start = app->start;
    p->last  = app->start;
    PetscCall(TSMechGuardGetInfo(app->guard, &p->E0, NULL, NULL, NULL, NULL, NULL));
    PetscCall(TSGetTime(app->ts, &p->t0));
    PetscCall(TSGetMaxTime(app->ts, &p->tmax));
    PetscCall(TSGetMaxSteps(app->ts, &p->maxsteps));
    PetscCall(TSMonitorSet(app->ts, ProgressMonitor, p, NULL));
  }
  app->lastwrite = app->start;
  /* last: the output file (a new one under a temporary name until the first step is done) */
  if (app->hasoutput) {
    /* a restarted run continues the output of the interrupted one */
    PetscErrorCode ierr;

    if (app->hasrestart) ierr = MechOutputContinue(app->sys, app->ts, app->output, app->every, &app->out);
    else ierr = MechOutputCreate(app->sys, app->ts, app->output, app->every, &app->out);
    if (ierr) PetscCall(OptionError(comm, ierr, "-output", app->output));
    PetscCall(TSMonitorSet(app->ts, TSMonitorMechOutput, app->out, NULL));
  }
  if (app->hasrestart) {
    PetscInt  step;
    PetscReal t;

    PetscCall(TSGetStepNumber(app->ts, &step));
    PetscCall(TSGetTime(app->ts, &t));
    PetscCall(Say(comm, PETSC_STDOUT, "tsmech: restarting from %s at step %" PetscInt_FMT ", t = %.10g\n", app->restart, step, (double)t));
  }
  PetscFunctionReturn(0);
}

/* Every check before any file is written, then the objects, then the output (created last) */
static PetscErrorCode Setup(App *app)
{
  PetscFunctionBegin;
  /* before the files are locked: a signal during the set-up removes the locks */
  PetscCall(InstallStopHandlers());
  PetscCall(ReadOptions(app));
  PetscCall(CheckValuesGiven(app->comm));
  PetscCall(CheckTypes(app->comm));
  /* the files, before the model (which may be large) is built */
  PetscCall(CheckFiles(app));
  PetscCall(CreateObjects(app));
  /* rank 0's clock is the run's clock (ProgressMonitor()) */
  /* -help: every option was printed while it was read; nothing runs and no file is written */
  PetscCall(PetscOptionsHasHelp(NULL, &app->help));
  if (app->help) PetscFunctionReturn(0);
  /* -modes: checked, and the modes of the initial state computed, before any file is written */
  if (app->modes) PetscCall(DriverModesSetUp(app->modes, app->sys, app->ts, app->q, app->v));
  if (DriverModesOnly(app->modes)) app->quiet = PETSC_TRUE;

  PetscCall(StartMonitors(app));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Failures                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* What the solver of the failed step reported, for the one-line message */
static PetscErrorCode DescribeSolver(App *app, char msg[], size_t len)
{
  TS        ts                                                      = app->ts;
  PetscBool linearized                                              = PETSC_FALSE;
  PetscErrorCode (*getlinearized)(TS, PetscBool *, TSTheta2Guess *) = NULL;
  SNES                snes;
  KSP                 ksp;
  SNESConvergedReason sreason;
  KSPConvergedReason  kreason;
  PetscInt            sits, kits;

  PetscFunctionBegin;
  msg[0] = 0;
  if (app->explicit_) PetscFunctionReturn(0); /* no solver but the mass solve */
  /* the theta2 family has a linearized mode */
  PetscCall(PetscObjectQueryFunction((PetscObject)ts, "TSTheta2GetLinearized_C", &getlinearized));
  if (getlinearized) PetscCall(TSTheta2GetLinearized(ts, &linearized, NULL));
  PetscCall(TSGetSNES(ts, &snes));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPGetConvergedReason(ksp, &kreason));
  PetscCall(KSPGetIterationNumber(ksp, &kits));
  if (linearized) {
    if (kreason < 0) PetscCall(PetscSNPrintf(msg, len, "KSP %s after %" PetscInt_FMT " iteration%s (the linearized step's linear solve)", KSPConvergedReasons[kreason], kits, kits == 1 ? "" : "s"));
    PetscFunctionReturn(0);
  }
  PetscCall(SNESGetConvergedReason(snes, &sreason));
  PetscCall(SNESGetIterationNumber(snes, &sits));
  if (sreason < 0) {
    if (sreason == SNES_DIVERGED_LINEAR_SOLVE && kreason < 0) PetscCall(PetscSNPrintf(msg, len, "SNES %s after %" PetscInt_FMT " iteration%s (KSP %s after %" PetscInt_FMT " iteration%s)", SNESConvergedReasons[sreason], sits, sits == 1 ? "" : "s", KSPConvergedReasons[kreason], kits, kits == 1 ? "" : "s"));
    else PetscCall(PetscSNPrintf(msg, len, "SNES %s after %" PetscInt_FMT " iteration%s", SNESConvergedReasons[sreason], sits, sits == 1 ? "" : "s"));
  }
  PetscFunctionReturn(0);
}

/* The one line that says why the run stopped (app->failmsg) */
static PetscErrorCode DescribeFailure(App *app)
{
  TSConvergedReason reason;
  char              solver[512], what[768];
  PetscReal         dt, E0, failE, goodtime;
  PetscInt          maxreject, good;
  const char       *why;

  PetscFunctionBegin;
  PetscCall(TSMechGuardGetInfo(app->guard, &E0, NULL, NULL, &good, &goodtime, NULL));
  PetscCall(TSMechGuardGetFailure(app->guard, NULL, NULL, &failE, &why));
  PetscCall(TSGetConvergedReason(app->ts, &reason));
  PetscCall(TSGetTimeStep(app->ts, &dt));
  if (app->fail == FAIL_TS || app->fail == FAIL_ERROR) app->faildt = dt;
  switch (app->fail) {
  case FAIL_NONFINITE:
    PetscCall(Format(what, sizeof(what), "the new state is not finite (NaN or Inf)"));
    break;
  case FAIL_BLOWUP:
    PetscCall(Format(what, sizeof(what), "energy blow-up: the energy rose from %g to %g, more than %g times what the state holds otherwise", (double)E0, (double)failE, (double)TSMECH_GUARD_BLOWUP_FACTOR));
    break;
  case FAIL_REFUSED:
    PetscCall(Format(what, sizeof(what), "%s", why));
    break;
  case FAIL_ERROR:
    PetscCall(PetscStrncpy(what, app->failmsg, sizeof(what)));
    break;
  default:
    PetscCall(DescribeSolver(app, solver, sizeof(solver)));
    if (reason == TS_DIVERGED_STEP_REJECTED) {
      TSAdapt   adapt;
      PetscReal dtmin;

      maxreject = app->ts->max_reject;
      PetscCall(TSGetAdapt(app->ts, &adapt));
      PetscCall(TSAdaptGetStepLimits(adapt, &dtmin, NULL));
      if (dt < dtmin) PetscCall(Format(what, sizeof(what), "the retry's step %g fell below the minimum %g (-ts_adapt_dt_min)%s%s", (double)dt, (double)dtmin, solver[0] ? "; last attempt: " : "", solver));
      else PetscCall(Format(what, sizeof(what), "rejected %" PetscInt_FMT " times in a row (-ts_max_reject), dt down to %g%s%s", maxreject + 1, (double)dt, solver[0] ? "; last attempt: " : "", solver));
    } else if (reason == TS_DIVERGED_NONLINEAR_SOLVE) {
      /* a converged solve and a failed step: the model refused the state, or it was not finite */
      if (why[0]) PetscCall(Format(what, sizeof(what), "%s%s%s", why, solver[0] ? "; " : "", solver));
      else PetscCall(Format(what, sizeof(what), "%s", solver[0] ? solver : "the new state is not finite (NaN or Inf)"));
      if (!solver[0] && !why[0]) app->fail = FAIL_NONFINITE;
    } else PetscCall(Format(what, sizeof(what), "%s%s%s%s%s", why, why[0] ? "; " : "", TSConvergedReasons[reason], solver[0] ? ", " : "", solver));
  }
  PetscCall(Format(app->failmsg, sizeof(app->failmsg), "step %" PetscInt_FMT " at t = %g (dt = %g) failed: %s", good + 1, (double)goodtime, (double)app->faildt, what));
  PetscFunctionReturn(0);
}

/*
  After a failure from a non-finite state or a blow-up, or of an explicit type: the largest
  frequency of the last good state and the stable step of the integrator for it, when the step
  taken was beyond it (or for any step, for explicit Euler without damping).
*/
static PetscErrorCode ReportStability(App *app)
{
  PetscReal   dtmax, omega, c, rho, t, dt = app->faildt;
  const char *type;
  char        kind[64];

  PetscFunctionBegin;
  if (!(app->fail == FAIL_NONFINITE || app->fail == FAIL_BLOWUP || (app->explicit_ && app->fail == FAIL_TS)) || !(dt > 0)) PetscFunctionReturn(0);
  PetscCall(TSGetType(app->ts, &type));
  PetscCall(PetscSNPrintf(kind, sizeof(kind), "%s %s", app->explicit_ ? "the explicit method" : "the method", type));
  /* at the last good state, or after a blow-up at the last one before the energy grew */
  PetscCall(TSMechGuardRestore(app->guard, PETSC_TRUE));
  PetscCall(TSGetTime(app->ts, &t));
  if (!app->qw) PetscCall(MechSystemCreateState(app->sys, &app->qw, &app->vw));
  PetscCall(TSMechGetSolution(app->ts, app->qw, app->vw));
  PetscCall(TSMechEstimateStableStep(app->ts, app->sys, t, app->qw, app->vw, &dtmax, &omega, &c));
  if (omega <= 0) PetscFunctionReturn(0);
  PetscCall(TSMechComputeAmplification(app->ts, omega, c, dt, &rho));
  if (rho <= 1 + 1e-8) {
    if (app->explicit_) PetscCall(Say(app->comm, PETSC_STDERR, "tsmech: %s is stable at dt = %g for the largest frequency omega = %g of the last good state (stable step %g, 2/omega = %g): the failure is not its step-size limit\n", kind, (double)dt, (double)omega, dtmax < PETSC_MAX_REAL ? (double)dtmax : (double)PETSC_INFINITY, (double)(2 / omega)));
    PetscFunctionReturn(0);
  }
  /* omega is SLEPc's highest mode to its tolerance (1e-8): the margin is for the state's changes */
  if (dtmax > 0) PetscCall(Say(app->comm, PETSC_STDERR, "tsmech: %s is unstable at dt = %g (largest frequency omega = %g, amplified %.4g times per step): the stable step is below %.6g (2/omega = %.6g); -ts_dt %.4g keeps a margin of %g %%\n", kind, (double)dt, (double)omega, (double)rho, (double)dtmax, (double)(2 / omega), (double)(dtmax * (1 - STABLE_STEP_MARGIN)), (double)(100 * STABLE_STEP_MARGIN)));
  else PetscCall(Say(app->comm, PETSC_STDERR, "tsmech: %s amplifies the largest frequency omega = %g at every step size (%.4g times per step at dt = %g%s): it has no stable step; use symeuler2 (stable below 2/omega = %.6g) or an implicit type\n", kind, (double)omega, (double)rho, (double)dt, c > 0 ? "" : ", undamped", (double)(2 / omega)));
  PetscFunctionReturn(0);
}

/*
  After the run stopped on a failure: the output is closed at the last good state, and the
  checkpoint holds that state or, after a blow-up, the last state whose energy had not grown yet
  (the states in between hold a growing mode). A run that failed at its first step leaves no
  file behind: a new output is removed, a continued one is left as it was.
*/
static PetscErrorCode SaveAfterFailure(App *app)
{
  PetscInt good, start;

  PetscFunctionBegin;
  PetscCall(GoodState(app, &good, NULL, &start));
  PetscCall(TSMechGuardRestore(app->guard, PETSC_FALSE));
  if (good == start) {
    if (app->out) PetscCall(MechOutputDiscard(&app->out));
    PetscFunctionReturn(0);
  }
  if (app->out) {
    PetscCall(MechOutputClose(app->out, app->ts));
    PetscCall(MechOutputDestroy(&app->out));
  }
  PetscCall(TSMechGuardRestore(app->guard, PETSC_TRUE));
  PetscCall(TSGetStepNumber(app->ts, &app->ckstep));
  PetscCall(TSGetTime(app->ts, &app->cktime));
  if (app->hasck && app->ckstep > start) PetscCall(WriteCheckpoint(app));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Options given but never used                                                               */
/* ------------------------------------------------------------------------------------------ */

/* Every option nobody read is named on stderr (rank 0). Options PETSc reads in PetscFinalize(),
   after this report, are marked as read first. */
static PetscErrorCode ReportUnused(MPI_Comm comm)
{
  static const char *const late[] = {"-citations", "-options_left", "-options_view", "-get_total_flops", "-log_view", "-log_all", "-log", "-log_mpe", "-log_perfstubs", "-log_summary", "-memory_view", "-malloc_dump", "-malloc_view", "-malloc_view_threshold", "-malloc_debug", "-malloc_test", "-objects_dump", "-python"};
  PetscInt                 n, i;
  char                   **names, **values;
  PetscBool                has;

  PetscFunctionBegin;
  for (i = 0; i < (PetscInt)(sizeof(late) / sizeof(late[0])); i++) PetscCall(PetscOptionsHasName(NULL, NULL, late[i], &has));
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  for (i = 0; i < n; i++) PetscCall(Say(comm, PETSC_STDERR, "tsmech: warning: option -%s%s%s was given but never used\n", names[i], values[i] ? " " : "", values[i] ? values[i] : ""));
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */

static PetscErrorCode Destroy(App *app)
{
  PetscFunctionBegin;
  if (app->out) PetscCall(MechOutputDestroy(&app->out));
  PetscCall(DriverModesDestroy(&app->modes));
  PetscCall(VecDestroy(&app->q));
  PetscCall(VecDestroy(&app->v));
  PetscCall(VecDestroy(&app->qw));
  PetscCall(VecDestroy(&app->vw));
  PetscCall(TSDestroy(&app->ts));
  PetscCall(MechCheckpointDestroy(&app->ck));
  PetscCall(MechSystemDestroy(&app->sys));
  /* last: the files are no longer written, other runs may take them */
  PetscCall(MechIOPlanDestroy(&app->plan));
  PetscFunctionReturn(0);
}

/* The run itself, after Setup(): TSSolve(), the final checkpoint and the output's close */
static PetscErrorCode Run(App *app)
{
  TSConvergedReason reason;
  PetscInt          step, last;
  PetscLogStage     stage;

  PetscFunctionBegin;
  /* from now on a first signal stops the run after its step (or lets its end come). Every rank
     switches together: a rank still in its set-up ends at a signal, and a rank already stepping
     would wait for it in the step's collectives until mpiexec kills it, locks and all */
  PetscCallMPI(MPI_Barrier(app->comm));
  stepping = 1;
  /* -log_view: the time stepping as its own stage, with assembly and I/O nested in theirs */
  PetscCall(PetscLogStageRegister("Time stepping", &stage));
  PetscCall(PetscLogStagePush(stage));
  PetscCall(TSSolve(app->ts, NULL));
  PetscCall(PetscLogStagePop());
  PetscCall(TSGetConvergedReason(app->ts, &reason));
  if (reason < 0) PetscFunctionReturn(0); /* the caller reports and saves */
  /* the final checkpoint, if the last step did not write it (a run with no step to do) */
  PetscCall(TSGetStepNumber(app->ts, &step));
  if (app->hasck) {
    PetscCall(MechCheckpointGetLast(app->ck, &last, NULL));
    if (!app->written || last != step) PetscCall(WriteCheckpoint(app));
  }
  if (app->out) PetscCall(MechOutputClose(app->out, app->ts));
  PetscFunctionReturn(0);
}

/*
  The files of -options_file and -options_file_yaml, checked before PetscInitialize() reads them:
  PETSc's own error there is a page of trace and exit 83. MPI is initialized already; rank 0 looks
  and tells. Returns 0, or EXIT_TSMECH_INPUT after printing the one-line error.
*/
static int CheckOptionsFiles(int argc, char **argv)
{
  int  rank, i, bad = 0;
  char msg[PETSC_MAX_PATH_LEN + 256] = "";

  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    for (i = 1; i < argc && !bad; i++) {
      char why[256];

      if (strcmp(argv[i], "-options_file") && strcmp(argv[i], "-options_file_yaml")) continue;
      if (i + 1 >= argc || argv[i + 1][0] == '-') {
        (void)snprintf(msg, sizeof(msg), "%s: needs a file name", argv[i]);
        bad = 1;
        continue;
      }
      /* the check of every input file (a FIFO would block PETSc's read) */
      MechFileProblem(argv[i + 1], 0, why, sizeof(why));
      if (why[0]) {
        char shown[160];

        (void)snprintf(msg, sizeof(msg), "%s %s: %s", argv[i], MechOptionsShortValue(argv[i + 1], shown, sizeof(shown)), why);
        bad = 1;
      }
    }
    if (bad) {
      fprintf(stderr, "tsmech: error: %s\n", msg);
      fflush(stderr);
    }
  }
  (void)MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return bad ? EXIT_TSMECH_INPUT : 0;
}

/* After a failed run: the one line that says why, the stability report of explicit methods, the
   summary, and what was saved (the last good state in the output and the checkpoint) */
static void ReportFailure(App *app)
{
  char           line[2048];
  PetscErrorCode e;
  PetscBool      diskfull;
  PetscInt       good = 0, start = 0;
  PetscReal      goodtime = 0;

  diskfull = app->fail == FAIL_ERROR && strstr(app->failmsg, "no space left") ? PETSC_TRUE : PETSC_FALSE;
  e        = DescribeFailure(app);
  if (!e) e = Say(app->comm, PETSC_STDERR, "tsmech: %s\n", app->failmsg);
  if (!e) e = ReportStability(app);
  if (!e) e = GoodState(app, &good, &goodtime, &start);
  if (!e) e = TSMechGuardRestore(app->guard, PETSC_FALSE);
  if (!e) e = Summary(app);
  if (!e && diskfull && good > start) {
    PetscInt  ckstep = -1;
    PetscReal cktime = 0;

    /* a full disk: writing the last good state again would fail the same way (and a second
       message would only repeat it); what was written stays as it was */
    if (app->ck) e = MechCheckpointGetLast(app->ck, &ckstep, &cktime);
    if (!e && app->hasck && ckstep > start) e = Say(app->comm, PETSC_STDOUT, "tsmech: the disk is full: the checkpoint of step %" PetscInt_FMT " (t = %g) in %s is intact; free some space and continue with: tsmech <same options> -restart %s\n", ckstep, (double)cktime, app->ckpath, app->ckpath);
    else if (!e) e = Say(app->comm, PETSC_STDOUT, "tsmech: the disk is full: %s\n", app->hasck ? "no checkpoint was written before it filled" : "no -checkpoint was given, so the run cannot be continued");
  } else {
    if (!e) e = SaveAfterFailure(app);
    if (!e && good > start) {
      if (app->out || app->hasoutput) e = Say(app->comm, PETSC_STDOUT, "tsmech: results up to step %" PetscInt_FMT " (t = %g) in %s\n", good, (double)goodtime, app->output);
      if (!e && app->hasck && app->ckstep > start) e = Say(app->comm, PETSC_STDOUT, "tsmech: checkpoint of step %" PetscInt_FMT " (t = %g), %s, in %s; continue with: tsmech <same options, a smaller -ts_dt or other solver options> -restart %s\n", app->ckstep, (double)app->cktime, app->fail == FAIL_BLOWUP ? "the last state before the energy grew" : "the last good state", app->ckpath, app->ckpath);
      else if (!e && app->hasck) e = Say(app->comm, PETSC_STDOUT, "tsmech: no checkpoint was written: the energy grew from the start\n");
    } else if (!e) e = Say(app->comm, PETSC_STDOUT, "tsmech: no step was completed: %s\n", app->hasrestart ? "the output and checkpoint files are as they were" : "no file was written");
  }
  if (e) {
    ErrorLine(e, PETSC_TRUE, line, sizeof(line));
    (void)Say(app->comm, PETSC_STDERR, "tsmech: error while saving the last good state: %s\n", line);
  }
  (void)ReportUnused(app->comm);
}

/* After a run that ended normally or by a signal: the summary, the equilibrium (quasistatic.c) and
   where the results are; the exit status (EXIT_TSMECH_ERROR if the report itself failed) */
static int ReportDone(App *app)
{
  char           line[2048];
  PetscErrorCode e;

  e = DriverModesOnly(app->modes) ? 0 : Summary(app);
  if (!e && !DriverModesOnly(app->modes)) e = DriverBalanceReport(&app->balance, app->ts, app->comm);
  if (!e && app->equilibrium) e = DriverReportEquilibrium(app->comm, app->sys, app->ts);
  /* the modes at the end of the run, and into the output */
  if (!e && app->modes) e = DriverModesFinish(app->modes, app->sys, app->ts, app->out);
  if (!e && app->hasoutput) e = Say(app->comm, PETSC_STDOUT, "tsmech: results in %s\n", app->output);
  if (!e && app->hasck) e = Say(app->comm, PETSC_STDOUT, "tsmech: checkpoint in %s\n", app->ckpath);
  if (!e && app->interrupted) {
    PetscInt  step;
    PetscReal t;

    e = TSGetStepNumber(app->ts, &step);
    if (!e) e = TSGetTime(app->ts, &t);
    if (!e && app->hasck) e = Say(app->comm, PETSC_STDOUT, "tsmech: interrupted by %s at step %" PetscInt_FMT ", t = %.10g; continue with: tsmech <same options> -restart %s\n", app->interrupted == SIGTERM ? "SIGTERM" : "SIGINT", step, (double)t, app->ckpath);
    else if (!e) e = Say(app->comm, PETSC_STDOUT, "tsmech: interrupted by %s at step %" PetscInt_FMT ", t = %.10g; no -checkpoint was given, so the run cannot be continued\n", app->interrupted == SIGTERM ? "SIGTERM" : "SIGINT", step, (double)t);
  }
  if (!e) e = ReportUnused(app->comm);
  if (e) {
    ErrorLine(e, PETSC_TRUE, line, sizeof(line));
    (void)Say(app->comm, PETSC_STDERR, "tsmech: error: %s\n", line);
    /* a refused request (the modes' target at the end of the run) is bad input */
    return IsInputError(e) ? EXIT_TSMECH_INPUT : EXIT_TSMECH_ERROR;
  }
  return 0;
}

int main(int argc, char **argv)
{
  App               app;
  MPI_Comm          errcomm;
  PetscErrorCode    ierr;
  PetscBool         traceback = PETSC_FALSE, failed = PETSC_FALSE;
  int               status = 0;
  char              line[2048];
  TSConvergedReason reason = TS_CONVERGED_ITERATING;

  /* MPI first, so that a bad -options_file is told once, before PETSc reads it */
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return EXIT_TSMECH_ERROR;
  status = CheckOptionsFiles(argc, argv);
  if (status) {
    MPI_Finalize();
    return status;
  }
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscMemzero(&app, sizeof(app)));
  app.comm = PETSC_COMM_WORLD;
  /* a communicator of its own for the agreement on errors, so that it cannot match another
     collective operation of a rank that is still running */
  PetscCallMPI(MPI_Comm_dup(PETSC_COMM_WORLD, &errcomm));
  PetscCall(TSMechInitializePackage());
  /* errors are returned, not printed, and told in one line; -traceback also prints PETSc's trace */
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-traceback", &traceback, NULL));
  PetscCall(PetscPushErrorHandler(RecordingErrorHandler, &traceback));

  ierr = Setup(&app);
  if (!ierr && app.help) {
    /* -help printed the options; the run is not made */
  } else if (ierr) {
    /* bad input: nothing was written (the output is created last) */
    ErrorLine(ierr, PETSC_TRUE, line, sizeof(line));
    status = EXIT_TSMECH_INPUT;
  } else {
    PetscInt           good = 0, start = 0;
    TSMechGuardFailure kind = TSMECH_GUARD_NONE;

    ierr = Run(&app);
    (void)GoodState(&app, &good, NULL, &start);
    /* what the guard saw: a step the TS gave up on, a state that is not finite, a blow-up */
    if (app.guard) (void)TSMechGuardGetFailure(app.guard, &kind, &app.faildt, NULL, NULL);
    app.fail = kind == TSMECH_GUARD_TS ? FAIL_TS : kind == TSMECH_GUARD_NONFINITE ? FAIL_NONFINITE
                                               : kind == TSMECH_GUARD_BLOWUP      ? FAIL_BLOWUP
                                               : kind == TSMECH_GUARD_REFUSED     ? FAIL_REFUSED
                                                                                  : FAIL_NONE;
    if (ierr && good == start && IsInputError(ierr)) {
      /* an error of the kind bad input raises, before the first step was done: a solver or
         controller option that is checked only when used (no file was kept) */
      ErrorLine(ierr, PETSC_TRUE, line, sizeof(line));
      status = EXIT_TSMECH_INPUT;
    } else if (ierr) {
      /* an error in a step or in the output or checkpoint writes: the state of the last good
         step is saved if that still works */
      ErrorLine(ierr, PETSC_TRUE, line, sizeof(line));
      (void)PetscSNPrintf(app.failmsg, sizeof(app.failmsg), "%s", line);
      app.fail = FAIL_ERROR;
      if (app.ts) (void)TSSetConvergedReason(app.ts, TS_DIVERGED_NONLINEAR_SOLVE);
    }
    if (app.ts) (void)TSGetConvergedReason(app.ts, &reason);
    if (reason < 0 || app.fail != FAIL_NONE) failed = PETSC_TRUE;
  }
  /* every rank must be on the error path before anything collective happens there; a rank that
     waits alone tells its message and ends the job. An error raised on the whole communicator
     (the models' errors are made so by MechSystemAgree()) finds every rank there within
     milliseconds; one of this rank's own may have no partner, so the wait is short. */
  if (ierr) {
    PetscMPIInt size;

    MPI_Comm_size(PETSC_COMM_WORLD, &size);
    if (size > 1 && !AllRanksFailed(errcomm, error_comm_size < size ? 1.0 : 3.0)) {
      PetscMPIInt rank;
      MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
      fprintf(stderr, "tsmech: error on rank %d: %s\n", (int)rank, line);
      fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, status ? status : EXIT_TSMECH_FAILED);
    }
  }
  if (status == EXIT_TSMECH_INPUT) {
    (void)Say(app.comm, PETSC_STDERR, "tsmech: error: %s\n", line);
  } else if (failed) {
    status = EXIT_TSMECH_FAILED;
    ReportFailure(&app);
  } else if (!app.help) {
    status = ReportDone(&app);
    /* an interrupted run ends with 128 + the signal number, as if the signal had ended it */
    if (!status && app.interrupted) status = 128 + app.interrupted;
  }
  /* a new output file of a run that failed before writing anything is not kept */
  if (app.out && status == EXIT_TSMECH_INPUT) (void)MechOutputDiscard(&app.out);
  ierr = Destroy(&app);
  if (ierr && !status) status = EXIT_TSMECH_ERROR;
  (void)PetscPopErrorHandler();
  MPI_Comm_free(&errcomm);
  PetscCall(PetscFinalize());
  MPI_Finalize();
  return status;
}
