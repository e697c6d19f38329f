/*
  Checkpoint and restart: everything the next step of a run depends on, in an HDF5 file written
  in parallel through PetscViewerHDF5, atomically (a new file, then a rename), and read back on
  any number of ranks. The layout (format version 1) is documented in the README ("Checkpoint
  and restart"):

    /checkpoint                 group; attributes: format = "tsmech-checkpoint", format_version,
                                complete (written last), tsmech_version, petsc_version, nranks,
                                model, model_parameters (names, comma separated), global_size,
                                step, time, dt (the next step's), ts_type, adapt_type, ts_family
                                (1 theta2 family, 2 PETSc's theta family, 3 alpha2, 0 other) and
                                the TS parameters (theta, endpoint, linearized, guess, extrapolate |
                                alpha_m, alpha_f, gamma, beta), has_previous, has_previous_position,
                                previous_time, snes_its, ksp_its, rejected, snes_failures,
                                adapt_decrease_count, failed_step (1: written after a failed
                                step, with the last good state), checksum_<vector> (hex)
    /checkpoint/model_parameters  group; one double attribute per model parameter
    /checkpoint/q, v            the state (grid models: natural ordering, the grid's shape)
    /checkpoint/v_previous      the velocity at the start of the last step (theta2 family)
    /checkpoint/q_previous      the position there (theta2 family, for the error estimate)

  What the theta2 family keeps between steps is the start of the last step: its velocity (the
  extrapolating guesses), its position (the adaptive error estimate) and its time (the ratio
  tau / tau_prev of the extrapolation). TSTheta2Get/SetPreviousVelocity() carry the velocity;
  the position and time are tracked here by a TSMonitor (the monitor of step k sees the state at
  which step k + 1 starts) and restored through TSTheta2SetPreviousVelocity(), which takes the
  position from the TS's solution and the time as ptime - time_step: both are set for the call
  (see RestorePrevious()).

  What TSAdapt (basic, 3.18) keeps between steps: only the step size (the TS's dt) and the
  counter of -ts_adapt_time_step_increase_delay (timestepjustdecreased), both stored. (Its
  dt_span_cached serves TSSetTimeSpan(), which tsmech does not use.)
*/
#define _POSIX_C_SOURCE 200809L
#include <petsc/private/viewerhdf5impl.h> /* PetscCallHDF5(); first, as it must precede <hdf5.h> */
#include <petsc/private/tsimpl.h>         /* the iteration counters and the TSAdapt counter */
#include <petscdmda.h>
#include "outputimpl.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#if defined(PETSC_HAVE_HDF5)

#define MECH_CHECKPOINT_FORMAT "tsmech-checkpoint"
#define MECH_CKPT_NVEC         4

static const char *const VecNames[MECH_CKPT_NVEC] = {"q", "v", "v_previous", "q_previous"};

/* The TS settings a checkpoint records (and a restart takes as defaults) */
typedef struct {
  char      type[64], adapt[64];
  PetscInt  family; /* 0 other, 1 the theta2 family, 2 PETSc's theta family, 3 alpha2 */
  PetscReal theta;
  PetscInt  endpoint, linearized, extrapolate;
  char      guess[64];
  PetscReal alpha_m, alpha_f, gamma, beta;
} TSParams;

/* The start of the last step: (step, time, position) of the two latest monitor calls */
typedef struct {
  PetscInt  refct; /* held by the checkpointer and by the TS's monitor */
  PetscInt  step[2];
  PetscReal time[2];
  Vec       q[2];
  PetscInt  last; /* slot of the newest entry, -1 if none */
} Tracker;

struct _n_MechCheckpoint {
  MPI_Comm    comm;
  PetscMPIInt rank;
  MechSystem  sys;
  PetscInt    keep;
  PetscInt    pause_in_write; /* test hook: the step whose write stops midway, -1 none */
  Tracker    *tr;
  Vec         vec[MECH_CKPT_NVEC]; /* q, v, v_previous, q_previous in the I/O layout */

  /* the checkpoint last loaded (for MechCheckpointRestore()) */
  PetscBool loaded;
  char      path[PETSC_MAX_PATH_LEN];
  PetscReal time, dt, tprev;
  PetscInt  step;
  PetscBool hasvprev, hasqprev;
  TSParams  tsp;
  PetscInt  snes_its, ksp_its, reject, snes_failures, adapt_decrease;
  PetscInt  failed; /* it was written after a failed step */

  PetscInt  last_step; /* of the last checkpoint loaded or written, -1 none */
  PetscReal last_time;
};

/* ------------------------------------------------------------------------------------------ */
/* Small helpers                                                                              */
/* ------------------------------------------------------------------------------------------ */

static PetscErrorCode IsTheta2Family(TS ts, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ts, flg, TSTHETA2, TSBEULER2, TSCN2, TSMIDPOINT2, TSEULER2, ""));
  PetscFunctionReturn(0);
}

/* splitmix64's finalizer */
static uint64_t Mix64(uint64_t x)
{
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

/*
  A checksum of the vector's bits that does not depend on the number of ranks: the sum, modulo
  2^64, of a hash of (natural index, bits of the value) over all entries. Grid vectors are
  hashed in the natural ordering of their DMDA, the ordering of the file. Collective.
*/
static PetscErrorCode VecChecksum(Vec x, uint64_t *sum)
{
  DM                 dm;
  PetscBool          isda = PETSC_FALSE;
  Vec                nat = NULL, y = x;
  PetscInt           rstart, n, i;
  const PetscScalar *a;
  uint64_t           local = 0;

  PetscFunctionBegin;
  PetscCall(VecGetDM(x, &dm));
  if (dm) PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (isda) {
    PetscCall(DMDACreateNaturalVector(dm, &nat));
    PetscCall(DMDAGlobalToNaturalBegin(dm, x, INSERT_VALUES, nat));
    PetscCall(DMDAGlobalToNaturalEnd(dm, x, INSERT_VALUES, nat));
    y = nat;
  }
  PetscCall(VecGetOwnershipRange(y, &rstart, NULL));
  PetscCall(VecGetLocalSize(y, &n));
  PetscCall(VecGetArrayRead(y, &a));
  for (i = 0; i < n; i++) {
    uint64_t             h = Mix64((uint64_t)(rstart + i) + 0x9e3779b97f4a7c15ULL);
    const unsigned char *b = (const unsigned char *)&a[i];
    size_t               k;

    for (k = 0; k < sizeof(PetscScalar); k += 8) {
      uint64_t w = 0;
      memcpy(&w, b + k, PetscMin(8, sizeof(PetscScalar) - k));
      h = Mix64(h ^ w);
    }
    local += h;
  }
  PetscCall(VecRestoreArrayRead(y, &a));
  PetscCall(VecDestroy(&nat));
  PetscCallMPI(MPI_Allreduce(&local, sum, 1, MPI_UINT64_T, MPI_SUM, PetscObjectComm((PetscObject)x)));
  PetscFunctionReturn(0);
}

/* The directory of a path ("." for a bare name) */
static PetscErrorCode DirName(const char path[], char dir[], size_t len)
{
  size_t    n, i, slash = 0;
  PetscBool has = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscStrlen(path, &n));
  for (i = 0; i < n; i++)
    if (path[i] == '/') {
      slash = i;
      has   = PETSC_TRUE;
    }
  if (!has) PetscCall(PetscStrncpy(dir, ".", len));
  else PetscCall(PetscStrncpy(dir, path, PetscMin(len, slash ? slash + 1 : 2)));
  PetscFunctionReturn(0);
}

/*
  MechTestPause - Test hook: writes `marker` (the process ids of all ranks, one a line, written to
  a temporary name and renamed, so it appears complete) and waits, up to a minute, to be killed
  or, when stop is given, until *stop becomes non-zero (a signal handler's flag). Collective.
*/
PetscErrorCode MechTestPause(MPI_Comm comm, const char marker[], volatile sig_atomic_t *stop)
{
  PetscMPIInt size, rank, i;
  int         pid = (int)getpid(), *pids = NULL;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) PetscCall(PetscMalloc1(size, &pids));
  PetscCallMPI(MPI_Gather(&pid, 1, MPI_INT, pids, 1, MPI_INT, 0, comm));
  if (rank == 0) {
    char  tmp[PETSC_MAX_PATH_LEN];
    FILE *fp;

    PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp", marker));
    fp = fopen(tmp, "w");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write the test marker %s", tmp);
    for (i = 0; i < size; i++) fprintf(fp, "%d\n", pids[i]);
    fclose(fp);
    PetscCheck(!rename(tmp, marker), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename %s", tmp);
    PetscCall(PetscFree(pids));
  }
  for (i = 0; i < 6000 && !(stop && *stop); i++) {
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
  }
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* The start of the last step                                                                 */
/* ------------------------------------------------------------------------------------------ */

static PetscErrorCode TrackerRelease(Tracker **tr)
{
  PetscInt k;

  PetscFunctionBegin;
  if (!*tr) PetscFunctionReturn(0);
  if (--(*tr)->refct == 0) {
    for (k = 0; k < 2; k++) PetscCall(VecDestroy(&(*tr)->q[k]));
    PetscCall(PetscFree(*tr));
  }
  *tr = NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode TrackerMonitorDestroy(void **ctx)
{
  PetscFunctionBegin;
  PetscCall(TrackerRelease((Tracker **)ctx));
  PetscFunctionReturn(0);
}

static PetscErrorCode TrackerRecord(Tracker *tr, PetscInt step, PetscReal t, Vec q)
{
  PetscInt k;

  PetscFunctionBegin;
  k = (tr->last >= 0 && tr->step[tr->last] == step) ? tr->last : (tr->last == 0 ? 1 : 0);
  if (!tr->q[k]) PetscCall(VecDuplicate(q, &tr->q[k]));
  PetscCall(VecCopy(q, tr->q[k]));
  tr->step[k] = step;
  tr->time[k] = t;
  tr->last    = k;
  PetscFunctionReturn(0);
}

/* The entry of the given step, if any (slot -1 if none) */
static PetscInt TrackerFind(Tracker *tr, PetscInt step)
{
  PetscInt k;

  for (k = 0; k < 2; k++)
    if (tr->q[k] && tr->step[k] == step) return k;
  return -1;
}

/* The monitor of step k sees the state (and time) at which step k + 1 starts */
static PetscErrorCode TrackerMonitor(TS ts, PetscInt step, PetscReal t, Vec X, void *ctx)
{
  Tracker  *tr = (Tracker *)ctx;
  PetscBool theta2;
  Vec       q;

  PetscFunctionBegin;
  (void)X;
  if (step < 0) PetscFunctionReturn(0);
  /* after a failed step TSSolve() calls the monitors once more, with the step counter advanced
     but the state of the start of the failed step: not a step */
  {
    TSConvergedReason reason;
    PetscCall(TSGetConvergedReason(ts, &reason));
    if (reason < 0) PetscFunctionReturn(0);
  }
  PetscCall(IsTheta2Family(ts, &theta2));
  if (!theta2) PetscFunctionReturn(0);
  PetscCall(TS2GetSolution(ts, &q, NULL));
  PetscCall(TrackerRecord(tr, step, t, q));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* TS settings                                                                                */
/* ------------------------------------------------------------------------------------------ */

static PetscErrorCode GetTSParams(TS ts, TSParams *p)
{
  const char *type;
  TSAdapt     adapt;
  TSAdaptType atype = NULL;
  PetscBool   flg;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(p, sizeof(*p)));
  PetscCall(TSGetType(ts, &type));
  PetscCall(PetscStrncpy(p->type, type ? type : "", sizeof(p->type)));
  PetscCall(TSGetAdapt(ts, &adapt));
  PetscCall(TSAdaptGetType(adapt, &atype));
  PetscCall(PetscStrncpy(p->adapt, atype ? atype : "", sizeof(p->adapt)));
  PetscCall(IsTheta2Family(ts, &flg));
  if (flg) {
    PetscBool     endpoint, linearized, extrapolate = PETSC_FALSE, set;
    TSTheta2Guess guess;
    const char   *prefix;

    p->family = 1;
    PetscCall(TSTheta2GetTheta(ts, &p->theta));
    PetscCall(TSTheta2GetEndpoint(ts, &endpoint));
    PetscCall(TSTheta2GetLinearized(ts, &linearized, &guess));
    /* theta2 has no getter for the extrapolation: it is read where TSSetFromOptions() read it */
    PetscCall(TSGetOptionsPrefix(ts, &prefix));
    PetscCall(PetscOptionsGetBool(((PetscObject)ts)->options, prefix, "-ts_theta_initial_guess_extrapolate", &extrapolate, &set));
    p->endpoint    = endpoint;
    p->linearized  = linearized;
    p->extrapolate = extrapolate;
    PetscCall(PetscStrncpy(p->guess, TSTheta2Guesses[guess], sizeof(p->guess)));
  }
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ts, &flg, TSTHETA, TSBEULER, TSCN, ""));
  if (flg) {
    PetscBool endpoint;

    p->family = 2;
    PetscCall(TSThetaGetTheta(ts, &p->theta));
    PetscCall(TSThetaGetEndpoint(ts, &endpoint));
    p->endpoint = endpoint;
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSALPHA2, &flg));
  if (flg) {
    p->family = 3;
    PetscCall(TSAlpha2GetParams(ts, &p->alpha_m, &p->alpha_f, &p->gamma, &p->beta));
  }
  PetscFunctionReturn(0);
}

/* Makes the recorded settings those of ts (before TSSetFromOptions(), which may change them) */
static PetscErrorCode SetTSParams(TS ts, const TSParams *p)
{
  PetscBool flg;

  PetscFunctionBegin;
  PetscCall(TSSetType(ts, p->type));
  if (p->family == 1) {
    PetscInt g;

    PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSTHETA2, &flg));
    if (flg) {
      PetscCall(TSTheta2SetTheta(ts, p->theta));
      PetscCall(TSTheta2SetEndpoint(ts, p->endpoint ? PETSC_TRUE : PETSC_FALSE));
    }
    for (g = 0; g <= (PetscInt)TSTHETA2_GUESS_EXTRAPOLATE; g++) {
      PetscCall(PetscStrcmp(p->guess, TSTheta2Guesses[g], &flg));
      if (flg) break;
    }
    if (g <= (PetscInt)TSTHETA2_GUESS_EXTRAPOLATE) PetscCall(TSTheta2SetLinearized(ts, p->linearized ? PETSC_TRUE : PETSC_FALSE, (TSTheta2Guess)g));
    PetscCall(TSTheta2SetInitialGuessExtrapolate(ts, p->extrapolate ? PETSC_TRUE : PETSC_FALSE));
    {
      /* theta2 has no getter for the extrapolation: GetTSParams() reads the option, so the
         checkpoint's value is also put there, unless the command line gives one */
      const char *prefix;
      char        name[256];
      PetscBool   set;

      PetscCall(TSGetOptionsPrefix(ts, &prefix));
      PetscCall(PetscSNPrintf(name, sizeof(name), "-%sts_theta_initial_guess_extrapolate", prefix ? prefix : ""));
      PetscCall(PetscOptionsHasName(((PetscObject)ts)->options, NULL, name, &set));
      if (!set) PetscCall(PetscOptionsSetValue(((PetscObject)ts)->options, name, p->extrapolate ? "true" : "false"));
    }
  } else if (p->family == 2) {
    PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSTHETA, &flg));
    if (flg) {
      PetscCall(TSThetaSetTheta(ts, p->theta));
      PetscCall(TSThetaSetEndpoint(ts, p->endpoint ? PETSC_TRUE : PETSC_FALSE));
    }
  } else if (p->family == 3) {
    PetscCall(TSAlpha2SetParams(ts, p->alpha_m, p->alpha_f, p->gamma, p->beta));
  }
  if (p->adapt[0]) {
    TSAdapt adapt;
    PetscCall(TSGetAdapt(ts, &adapt));
    PetscCall(TSAdaptSetType(adapt, p->adapt));
  }
  PetscFunctionReturn(0);
}

/* Appends to msg the settings in which b (this run) differs from a (the checkpoint) */
static PetscErrorCode DiffTSParams(const TSParams *a, const TSParams *b, char msg[], size_t len)
{
  PetscBool same;
  char      item[256];

  PetscFunctionBegin;
  msg[0] = 0;
#define MECH_CKPT_DIFF(cond, ...)                                \
  do {                                                           \
    if (cond) {                                                  \
      PetscCall(PetscSNPrintf(item, sizeof(item), __VA_ARGS__)); \
      if (msg[0]) PetscCall(PetscStrlcat(msg, ", ", len));       \
      PetscCall(PetscStrlcat(msg, item, len));                   \
    }                                                            \
  } while (0)
  PetscCall(PetscStrcmp(a->type, b->type, &same));
  MECH_CKPT_DIFF(!same, "ts_type %s (checkpoint: %s)", b->type, a->type);
  if (same) {
    MECH_CKPT_DIFF((a->family == 1 || a->family == 2) && a->theta != b->theta, "theta %g (checkpoint: %g)", (double)b->theta, (double)a->theta);
    MECH_CKPT_DIFF((a->family == 1 || a->family == 2) && a->endpoint != b->endpoint, "endpoint %d (checkpoint: %d)", (int)b->endpoint, (int)a->endpoint);
    MECH_CKPT_DIFF(a->family == 1 && a->linearized != b->linearized, "linearized %d (checkpoint: %d)", (int)b->linearized, (int)a->linearized);
    PetscCall(PetscStrcmp(a->guess, b->guess, &same));
    MECH_CKPT_DIFF(a->family == 1 && b->linearized && !same, "linearized guess %s (checkpoint: %s)", b->guess, a->guess);
    MECH_CKPT_DIFF(a->family == 1 && a->extrapolate != b->extrapolate, "initial guess extrapolation %d (checkpoint: %d)", (int)b->extrapolate, (int)a->extrapolate);
    MECH_CKPT_DIFF(a->family == 3 && (a->alpha_m != b->alpha_m || a->alpha_f != b->alpha_f || a->gamma != b->gamma || a->beta != b->beta), "alpha2 parameters %g %g %g %g (checkpoint: %g %g %g %g)", (double)b->alpha_m, (double)b->alpha_f, (double)b->gamma, (double)b->beta, (double)a->alpha_m, (double)a->alpha_f, (double)a->gamma,
                   (double)a->beta);
  }
  PetscCall(PetscStrcmp(a->adapt, b->adapt, &same));
  MECH_CKPT_DIFF(!same, "ts_adapt_type %s (checkpoint: %s)", b->adapt, a->adapt);
#undef MECH_CKPT_DIFF
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Create, destroy                                                                            */
/* ------------------------------------------------------------------------------------------ */

/*@C
  MechCheckpointCreate - Creates the checkpointer of a run.

  Collective

  Input Parameters:
+ sys - the system (NULL: the one attached to ts with TSMechSetSystem())
- ts  - the TS

  Output Parameter:
. ck - the checkpointer

  Notes:
  Installs a TSMonitor that keeps the position and time at the start of the last step (for the
  theta2 family), so create it before TSSolve(). The monitor holds its own reference to what it
  keeps: the checkpointer may be destroyed before or after the TS.

  Options: -checkpoint_test_pause_in_write STEP (test hook) makes MechCheckpointWrite() stop
  midway through the write at that step, after the state datasets and before the attributes
  that complete the file, and wait a minute to be killed; the file <path>.pause then lists the
  process ids of the ranks.
@*/
PetscErrorCode MechCheckpointCreate(MechSystem sys, TS ts, MechCheckpoint *ckp)
{
  MechCheckpoint ck;
  PetscInt       k;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 2);
  PetscValidPointer(ckp, 3);
  if (!sys) PetscCall(TSMechGetSystem(ts, &sys));
  PetscCheck(sys, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONGSTATE, "No MechSystem given nor attached to the TS (TSMechSetSystem())");
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(PetscNew(&ck));
  PetscCall(PetscObjectGetComm((PetscObject)ts, &ck->comm));
  PetscCallMPI(MPI_Comm_rank(ck->comm, &ck->rank));
  PetscCall(PetscObjectReference((PetscObject)sys));
  ck->sys            = sys;
  ck->keep           = 1;
  ck->pause_in_write = -1;
  ck->last_step      = -1;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-checkpoint_test_pause_in_write", &ck->pause_in_write, NULL));
  PetscCall(MechIOCreateStateVectors(sys, &ck->vec[0], &ck->vec[1], NULL, NULL));
  PetscCall(VecDuplicate(ck->vec[1], &ck->vec[2]));
  PetscCall(VecDuplicate(ck->vec[0], &ck->vec[3]));
  for (k = 0; k < MECH_CKPT_NVEC; k++) PetscCall(PetscObjectSetName((PetscObject)ck->vec[k], VecNames[k]));
  PetscCall(PetscNew(&ck->tr));
  ck->tr->refct = 2;
  ck->tr->last  = -1;
  PetscCall(TSMonitorSet(ts, TrackerMonitor, ck->tr, TrackerMonitorDestroy));
  *ckp = ck;
  PetscFunctionReturn(0);
}

/*@C
  MechCheckpointDestroy - Destroys the checkpointer.
@*/
PetscErrorCode MechCheckpointDestroy(MechCheckpoint *ck)
{
  PetscInt k;

  PetscFunctionBegin;
  if (!*ck) PetscFunctionReturn(0);
  for (k = 0; k < MECH_CKPT_NVEC; k++) PetscCall(VecDestroy(&(*ck)->vec[k]));
  PetscCall(TrackerRelease(&(*ck)->tr));
  PetscCall(MechSystemDestroy(&(*ck)->sys));
  PetscCall(PetscFree(*ck));
  PetscFunctionReturn(0);
}

/*@C
  MechCheckpointSetKeep - How many checkpoints are kept: the newest is FILE, the older ones
  FILE.1 (the previous), FILE.2, ..., FILE.<keep-1>. Default 1.
@*/
PetscErrorCode MechCheckpointSetKeep(MechCheckpoint ck, PetscInt keep)
{
  PetscFunctionBegin;
  PetscValidPointer(ck, 1);
  PetscCheck(keep >= 1, ck->comm, PETSC_ERR_ARG_OUTOFRANGE, "-checkpoint_keep %" PetscInt_FMT " must be at least 1", keep);
  ck->keep = keep;
  PetscFunctionReturn(0);
}

/*@C
  MechCheckpointGetLast - The step number and time of the checkpoint last loaded or written
  (-1 and 0 if none).
@*/
PetscErrorCode MechCheckpointGetLast(MechCheckpoint ck, PetscInt *step, PetscReal *t)
{
  PetscFunctionBegin;
  PetscValidPointer(ck, 1);
  if (step) *step = ck->last_step;
  if (t) *t = ck->last_step >= 0 ? ck->last_time : 0;
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Write                                                                                      */
/* ------------------------------------------------------------------------------------------ */

/* What one checkpoint holds besides the vectors */
typedef struct {
  PetscInt  step, nvec;
  PetscReal time, dt, tprev;
  PetscBool hasvprev, hasqprev;
  TSParams  tsp;
  PetscInt  snes_its, ksp_its, reject, snes_failures, adapt_decrease;
  PetscInt  failed; /* written after a failed step (attribute failed_step) */
  uint64_t  sum[MECH_CKPT_NVEC];
} Header;

static PetscErrorCode WriteString(PetscViewer viewer, const char name[], const char value[])
{
  PetscFunctionBegin;
  /* HDF5 refuses a zero-size string type: an empty string is stored as a single space */
  PetscCall(PetscViewerHDF5WriteAttribute(viewer, "/checkpoint", name, PETSC_STRING, value[0] ? value : " "));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteInt(PetscViewer viewer, const char name[], PetscInt value)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerHDF5WriteAttribute(viewer, "/checkpoint", name, PETSC_INT, &value));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteReal(PetscViewer viewer, const char name[], PetscReal value)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerHDF5WriteAttribute(viewer, "/checkpoint", name, PETSC_REAL, &value));
  PetscFunctionReturn(0);
}

/* Writes the checkpoint file `tmp` (collective) */
static PetscErrorCode WriteFile(MechCheckpoint ck, const char tmp[], const char path[], const Header *h)
{
  PetscViewer        viewer;
  const char        *model;
  const char *const *pnames;
  const PetscReal   *pvalues;
  PetscInt           np, i, N;
  PetscMPIInt        size;
  char               version[256], *plist, marker[PETSC_MAX_PATH_LEN];
  size_t             len = 2;

  PetscFunctionBegin;
  PetscCall(PetscViewerHDF5Open(ck->comm, tmp, FILE_MODE_WRITE, &viewer));
  /* first what makes it a checkpoint (a reader then calls an interrupted write incomplete),
     last the attribute `complete` */
  PetscCall(PetscViewerHDF5WriteGroup(viewer, "/checkpoint"));
  PetscCall(WriteString(viewer, "format", MECH_CHECKPOINT_FORMAT));
  PetscCall(WriteInt(viewer, "format_version", MECH_CHECKPOINT_FORMAT_VERSION));
  PetscCall(PetscViewerHDF5PushGroup(viewer, "/checkpoint"));
  PetscCall(VecView(ck->vec[0], viewer));
  PetscCall(VecView(ck->vec[1], viewer));
  if (h->step == ck->pause_in_write) {
    PetscCall(PetscSNPrintf(marker, sizeof(marker), "%s.pause", path));
    PetscCall(MechTestPause(ck->comm, marker, NULL));
  }
  if (h->hasvprev) PetscCall(VecView(ck->vec[2], viewer));
  if (h->hasqprev) PetscCall(VecView(ck->vec[3], viewer));
  PetscCall(PetscViewerHDF5PopGroup(viewer));

  PetscCall(WriteString(viewer, "tsmech_version", TSMECH_VERSION));
  PetscCall(PetscGetVersion(version, sizeof(version)));
  PetscCall(WriteString(viewer, "petsc_version", version));
  PetscCallMPI(MPI_Comm_size(ck->comm, &size));
  PetscCall(WriteInt(viewer, "nranks", size));
  PetscCall(MechSystemGetModelName(ck->sys, &model));
  PetscCall(WriteString(viewer, "model", model ? model : "user"));
  PetscCall(MechSystemGetParameters(ck->sys, &np, &pnames, &pvalues));
  for (i = 0; i < np; i++) {
    size_t l;
    PetscCall(PetscStrlen(pnames[i], &l));
    len += l + 1;
  }
  PetscCall(PetscCalloc1(len, &plist));
  PetscCall(PetscViewerHDF5WriteGroup(viewer, "/checkpoint/model_parameters"));
  for (i = 0; i < np; i++) {
    if (i) PetscCall(PetscStrlcat(plist, ",", len));
    PetscCall(PetscStrlcat(plist, pnames[i], len));
    PetscCall(PetscViewerHDF5WriteAttribute(viewer, "/checkpoint/model_parameters", pnames[i], PETSC_REAL, &pvalues[i]));
  }
  PetscCall(WriteString(viewer, "model_parameters", plist));
  PetscCall(PetscFree(plist));
  PetscCall(VecGetSize(ck->vec[0], &N));
  PetscCall(WriteInt(viewer, "global_size", N));

  PetscCall(WriteInt(viewer, "step", h->step));
  PetscCall(WriteReal(viewer, "time", h->time));
  PetscCall(WriteReal(viewer, "dt", h->dt));
  PetscCall(WriteString(viewer, "ts_type", h->tsp.type));
  PetscCall(WriteString(viewer, "adapt_type", h->tsp.adapt));
  PetscCall(WriteInt(viewer, "ts_family", h->tsp.family));
  if (h->tsp.family == 1 || h->tsp.family == 2) {
    PetscCall(WriteReal(viewer, "theta", h->tsp.theta));
    PetscCall(WriteInt(viewer, "endpoint", h->tsp.endpoint));
  }
  if (h->tsp.family == 1) {
    PetscCall(WriteInt(viewer, "linearized", h->tsp.linearized));
    PetscCall(WriteString(viewer, "guess", h->tsp.guess));
    PetscCall(WriteInt(viewer, "extrapolate", h->tsp.extrapolate));
  }
  if (h->tsp.family == 3) {
    PetscCall(WriteReal(viewer, "alpha_m", h->tsp.alpha_m));
    PetscCall(WriteReal(viewer, "alpha_f", h->tsp.alpha_f));
    PetscCall(WriteReal(viewer, "gamma", h->tsp.gamma));
    PetscCall(WriteReal(viewer, "beta", h->tsp.beta));
  }
  PetscCall(WriteInt(viewer, "has_previous", h->hasvprev));
  PetscCall(WriteInt(viewer, "has_previous_position", h->hasqprev));
  PetscCall(WriteReal(viewer, "previous_time", h->tprev));
  PetscCall(WriteInt(viewer, "snes_its", h->snes_its));
  PetscCall(WriteInt(viewer, "ksp_its", h->ksp_its));
  PetscCall(WriteInt(viewer, "rejected", h->reject));
  PetscCall(WriteInt(viewer, "snes_failures", h->snes_failures));
  PetscCall(WriteInt(viewer, "adapt_decrease_count", h->adapt_decrease));
  PetscCall(WriteInt(viewer, "failed_step", h->failed));
  for (i = 0; i < h->nvec; i++) {
    char name[64], hex[32];
    PetscCall(PetscSNPrintf(name, sizeof(name), "checksum_%s", VecNames[i]));
    PetscCall(PetscSNPrintf(hex, sizeof(hex), "%016llx", (unsigned long long)h->sum[i]));
    PetscCall(WriteString(viewer, name, hex));
  }
  /* last: a file without it was not completely written */
  PetscCall(WriteInt(viewer, "complete", 1));
  PetscCall(PetscViewerDestroy(&viewer));
  PetscFunctionReturn(0);
}

/* fsync() of a file or directory; errors ignored (not every file system supports it) */
static void SyncPath(const char path[])
{
  int fd = open(path, O_RDONLY);
  if (fd >= 0) {
    (void)fsync(fd);
    (void)close(fd);
  }
}

/*
  Rank 0: moves `tmp` to `path`, keeping `keep` checkpoints. The older ones move up (FILE.i ->
  FILE.i+1, renames that replace atomically), the current FILE gets a second name FILE.1 (a hard
  link, so FILE itself never disappears; a rename where links are not supported), and the
  rename of tmp over FILE is the commit. Returns errno (0 on success) and the failed operation.
*/
static int CommitFile(const char tmp[], const char path[], PetscInt keep, char what[], size_t len)
{
  char      older[PETSC_MAX_PATH_LEN], newer[PETSC_MAX_PATH_LEN], dir[PETSC_MAX_PATH_LEN];
  PetscInt  i;
  PetscBool exists;

  SyncPath(tmp);
  if (keep > 1 && !access(path, F_OK)) {
    for (i = keep - 1; i >= 2; i--) {
      (void)PetscSNPrintf(newer, sizeof(newer), "%s.%" PetscInt_FMT, path, i - 1);
      (void)PetscSNPrintf(older, sizeof(older), "%s.%" PetscInt_FMT, path, i);
      exists = access(newer, F_OK) ? PETSC_FALSE : PETSC_TRUE;
      if (exists && rename(newer, older)) {
        (void)PetscSNPrintf(what, len, "rename %s to %s", newer, older);
        return errno;
      }
    }
    (void)PetscSNPrintf(older, sizeof(older), "%s.1", path);
    if (!access(older, F_OK) && unlink(older)) {
      (void)PetscSNPrintf(what, len, "remove %s", older);
      return errno;
    }
    if (link(path, older) && rename(path, older)) {
      (void)PetscSNPrintf(what, len, "rename %s to %s", path, older);
      return errno;
    }
  }
  if (rename(tmp, path)) {
    (void)PetscSNPrintf(what, len, "rename %s to %s", tmp, path);
    return errno;
  }
  if (!DirName(path, dir, sizeof(dir))) SyncPath(dir);
  return 0;
}

/* MechCheckpointWrite() without its log stage */
static PetscErrorCode CheckpointWrite(MechCheckpoint ck, TS ts, const char path[])
{
  Header         h;
  PetscBool      theta2;
  PetscErrorCode ierr;
  char           tmp[PETSC_MAX_PATH_LEN], what[2 * PETSC_MAX_PATH_LEN + 64] = "";
  int            pid, err;
  PetscInt       k;

  PetscFunctionBegin;
  PetscValidPointer(ck, 1);
  PetscValidHeaderSpecific(ts, TS_CLASSID, 2);
  PetscValidCharPointer(path, 3);
  PetscCheck(path[0], ck->comm, PETSC_ERR_ARG_WRONG, "Empty checkpoint file name");
  PetscCall(PetscMemzero(&h, sizeof(h)));
  PetscCall(TSGetStepNumber(ts, &h.step));
  PetscCall(TSGetTime(ts, &h.time));
  PetscCall(TSGetTimeStep(ts, &h.dt));
  PetscCall(GetTSParams(ts, &h.tsp));
  PetscCall(TSMechGetSolution(ts, ck->vec[0], ck->vec[1]));
  PetscCall(IsTheta2Family(ts, &theta2));
  {
    TSConvergedReason reason;

    /* After a failed step the TS holds the last good state (the caller restores it and its
       step number if the type does not), but the theta2 family's record of the start of the
       last step is that of the failed step: the checkpoint then holds no history, and the
       restart proceeds as from a first step. */
    PetscCall(TSGetConvergedReason(ts, &reason));
    if (reason < 0) {
      h.failed = 1;
      theta2   = PETSC_FALSE;
    }
  }
  if (theta2) {
    PetscCall(TSTheta2GetPreviousVelocity(ts, ck->vec[2], &h.hasvprev));
    if (h.hasvprev) {
      k = TrackerFind(ck->tr, h.step - 1);
      if (k >= 0) {
        PetscCall(VecCopy(ck->tr->q[k], ck->vec[3]));
        h.tprev    = ck->tr->time[k];
        h.hasqprev = PETSC_TRUE;
      } else PetscCall(TSGetPrevTime(ts, &h.tprev));
    }
  }
  h.snes_its       = ts->snes_its;
  h.ksp_its        = ts->ksp_its;
  h.reject         = ts->reject;
  h.snes_failures  = ts->num_snes_failures;
  h.adapt_decrease = ts->adapt ? ts->adapt->timestepjustdecreased : 0;
  h.nvec           = 2 + (h.hasvprev ? 1 : 0) + (h.hasqprev ? 1 : 0);
  PetscCall(VecChecksum(ck->vec[0], &h.sum[0]));
  PetscCall(VecChecksum(ck->vec[1], &h.sum[1]));
  if (h.hasvprev) PetscCall(VecChecksum(ck->vec[2], &h.sum[2]));
  if (h.hasqprev) PetscCall(VecChecksum(ck->vec[3], &h.sum[3]));

  /* the directory must be writable; the name of the new file is rank 0's */
  pid = (int)getpid();
  PetscCallMPI(MPI_Bcast(&pid, 1, MPI_INT, 0, ck->comm));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp-%d", path, pid));
  {
    char problem[PETSC_MAX_PATH_LEN + 256];

    PetscCall(MechIOCheckWritable(ck->comm, path, problem, sizeof(problem)));
    PetscCheck(!problem[0], ck->comm, PETSC_ERR_FILE_OPEN, "Cannot write the checkpoint %s: %s", path, problem);
  }

  ierr = WriteFile(ck, tmp, path, &h);
  if (ierr) {
    if (ck->rank == 0) (void)remove(tmp);
    PetscCall(ierr);
  }
  /* every rank has closed the file: rank 0 commits it */
  PetscCallMPI(MPI_Barrier(ck->comm));
  err = ck->rank == 0 ? CommitFile(tmp, path, ck->keep, what, sizeof(what)) : 0;
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, ck->comm));
  if (err) {
    if (ck->rank == 0) (void)remove(tmp);
    SETERRQ(ck->comm, PETSC_ERR_FILE_WRITE, "Cannot commit the checkpoint %s: %s failed (%s)", path, what, strerror(err));
  }
  ck->last_step = h.step;
  ck->last_time = h.time;
  PetscFunctionReturn(0);
}

/*@C
  MechCheckpointWrite - Writes a checkpoint of ts to path: the state between two steps and
  everything the next step depends on (see the top of src/io/checkpoint.c and the README).

  Collective

  Input Parameters:
+ ck   - the checkpointer
. ts   - the TS, between two steps (after TSSolve() or in a TSPostStep)
- path - the checkpoint file

  Notes:
  Atomic: the file is written as path.tmp-<pid of rank 0>, closed by all ranks, synced, and
  renamed over path by rank 0; a crash (or kill -9) before the rename leaves the previous
  checkpoint as it was (and a stale path.tmp-<pid>, which may be deleted). With keep > 1 the
  previous checkpoints are kept as path.1, path.2, ...
  After a failed step (TSGetConvergedReason() negative) the caller gives the TS its last good
  state, time and step number back first; the checkpoint is then marked (attribute failed_step)
  and holds no history of the last step, which was the failed one: MechCheckpointRestore() starts
  it as at a first step and lets a -ts_dt of the restart's command line replace its dt.
@*/
PetscErrorCode MechCheckpointWrite(MechCheckpoint ck, TS ts, const char path[])
{
  PetscFunctionBegin;
  PetscCall(PetscLogStagePush(MECH_StageIO));
  PetscCall(CheckpointWrite(ck, ts, path));
  PetscCall(PetscLogStagePop());
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Load and restore                                                                           */
/* ------------------------------------------------------------------------------------------ */

/* The number of values of dataset /checkpoint/<name> (-1 if it does not exist) */
static PetscErrorCode DatasetSize(PetscViewer viewer, const char name[], PetscInt *N)
{
  hid_t   fileid, dset, space;
  hsize_t dims[8];
  int     ndims, i;
  char    path[256];
  htri_t  e;

  PetscFunctionBegin;
  *N = -1;
  PetscCall(PetscViewerHDF5GetFileId(viewer, &fileid));
  PetscCall(PetscSNPrintf(path, sizeof(path), "/checkpoint/%s", name));
  PetscCallHDF5Return(e, H5Lexists, (fileid, path, H5P_DEFAULT));
  if (e <= 0) PetscFunctionReturn(0);
  PetscCallHDF5Return(dset, H5Dopen2, (fileid, path, H5P_DEFAULT));
  PetscCallHDF5Return(space, H5Dget_space, (dset));
  PetscCallHDF5Return(ndims, H5Sget_simple_extent_ndims, (space));
  PetscCheck(ndims >= 1 && ndims <= 8, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Dataset %s has %d dimensions", path, ndims);
  PetscCallHDF5(H5Sget_simple_extent_dims, (space, dims, NULL));
  PetscCallHDF5(H5Sclose, (space));
  PetscCallHDF5(H5Dclose, (dset));
  *N = 1;
  for (i = 0; i < ndims; i++) *N *= (PetscInt)dims[i];
  PetscFunctionReturn(0);
}

/* Reads a string attribute of /checkpoint into value (len bytes); missing: "" */
static PetscErrorCode ReadString(PetscViewer viewer, const char name[], char value[], size_t len)
{
  PetscBool has;
  char     *s = NULL;

  PetscFunctionBegin;
  value[0] = 0;
  PetscCall(PetscViewerHDF5HasAttribute(viewer, "/checkpoint", name, &has));
  if (!has) PetscFunctionReturn(0);
  PetscCall(PetscViewerHDF5ReadAttribute(viewer, "/checkpoint", name, PETSC_STRING, NULL, &s));
  PetscCall(PetscStrncpy(value, s, len));
  PetscCall(PetscFree(s));
  if (!strcmp(value, " ")) value[0] = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadInt(PetscViewer viewer, const char name[], PetscInt def, PetscInt *value)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerHDF5ReadAttribute(viewer, "/checkpoint", name, PETSC_INT, &def, value));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadReal(PetscViewer viewer, const char name[], PetscReal def, PetscReal *value)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerHDF5ReadAttribute(viewer, "/checkpoint", name, PETSC_REAL, &def, value));
  PetscFunctionReturn(0);
}

/*
  Reads the header of an open checkpoint and validates it against the system: sets `problem`
  (empty if none) for a file that is not a complete checkpoint of this format, model,
  parameters and size. Errors of the reads themselves are returned (a damaged file).
*/
static PetscErrorCode ReadHeader(MechCheckpoint ck, PetscViewer viewer, Header *h, char problem[], size_t len)
{
  PetscBool          has;
  char               str[PETSC_MAX_PATH_LEN], *plist = NULL, *tok, *save = NULL;
  const char        *model;
  const char *const *pnames;
  const PetscReal   *pvalues;
  PetscInt           version, complete, np, i, N, Nfile, n;

  PetscFunctionBegin;
  problem[0] = 0;
  PetscCall(PetscViewerHDF5HasGroup(viewer, "/checkpoint", &has));
  if (has) PetscCall(ReadString(viewer, "format", str, sizeof(str)));
  if (!has || strcmp(str, MECH_CHECKPOINT_FORMAT)) {
    PetscCall(PetscSNPrintf(problem, len, "it is not a tsmech checkpoint (no /checkpoint group with format \"%s\")", MECH_CHECKPOINT_FORMAT));
    PetscFunctionReturn(0);
  }
  PetscCall(ReadInt(viewer, "format_version", -1, &version));
  if (version != MECH_CHECKPOINT_FORMAT_VERSION) {
    PetscCall(PetscSNPrintf(problem, len, "its format version is %" PetscInt_FMT ", this tsmech (%s) reads version %d", version, TSMECH_VERSION, MECH_CHECKPOINT_FORMAT_VERSION));
    PetscFunctionReturn(0);
  }
  PetscCall(ReadInt(viewer, "complete", 0, &complete));
  if (complete != 1) {
    PetscCall(PetscSNPrintf(problem, len, "it is incomplete (its write was interrupted)"));
    PetscFunctionReturn(0);
  }
  /* the model and each of its parameters */
  PetscCall(MechSystemGetModelName(ck->sys, &model));
  if (!model) model = "user";
  PetscCall(ReadString(viewer, "model", str, sizeof(str)));
  if (strcmp(str, model)) {
    PetscCall(PetscSNPrintf(problem, len, "it was written for model %s, this run is model %s", str, model));
    PetscFunctionReturn(0);
  }
  PetscCall(MechSystemGetParameters(ck->sys, &np, &pnames, &pvalues));
  {
    PetscBool ph = PETSC_FALSE;
    PetscCall(PetscViewerHDF5HasAttribute(viewer, "/checkpoint", "model_parameters", &ph));
    if (ph) PetscCall(PetscViewerHDF5ReadAttribute(viewer, "/checkpoint", "model_parameters", PETSC_STRING, NULL, &plist));
  }
  n = 0;
  for (tok = plist ? strtok_r(plist, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
    if (!strcmp(tok, " ")) continue;
    for (i = 0; i < np; i++)
      if (!strcmp(tok, pnames[i])) break;
    if (i == np) {
      PetscCall(PetscSNPrintf(problem, len, "it has the model parameter %s, which this run's %s does not have", tok, model));
      break;
    }
    n++;
  }
  PetscCall(PetscFree(plist));
  if (problem[0]) PetscFunctionReturn(0);
  for (i = 0; i < np; i++) {
    PetscReal value;

    PetscCall(PetscViewerHDF5HasAttribute(viewer, "/checkpoint/model_parameters", pnames[i], &has));
    if (!has) {
      PetscCall(PetscSNPrintf(problem, len, "it lacks the model parameter %s of this run", pnames[i]));
      PetscFunctionReturn(0);
    }
    PetscCall(PetscViewerHDF5ReadAttribute(viewer, "/checkpoint/model_parameters", pnames[i], PETSC_REAL, NULL, &value));
    if (value != pvalues[i]) {
      PetscCall(PetscSNPrintf(problem, len, "it was written with the model parameter %s = %.17g, this run has %s = %.17g", pnames[i], (double)value, pnames[i], (double)pvalues[i]));
      PetscFunctionReturn(0);
    }
  }
  if (n != np) {
    PetscCall(PetscSNPrintf(problem, len, "it has %" PetscInt_FMT " model parameters, this run %" PetscInt_FMT, n, np));
    PetscFunctionReturn(0);
  }
  /* the size, declared and actual */
  PetscCall(VecGetSize(ck->vec[0], &N));
  PetscCall(ReadInt(viewer, "global_size", -1, &Nfile));
  if (Nfile != N) {
    PetscCall(PetscSNPrintf(problem, len, "its state has %" PetscInt_FMT " values, this run's %" PetscInt_FMT, Nfile, N));
    PetscFunctionReturn(0);
  }
  PetscCall(ReadInt(viewer, "has_previous", 0, &n));
  h->hasvprev = n ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(ReadInt(viewer, "has_previous_position", 0, &n));
  h->hasqprev = n ? PETSC_TRUE : PETSC_FALSE;
  h->nvec     = 2 + (h->hasvprev ? 1 : 0) + (h->hasqprev ? 1 : 0);
  for (i = 0; i < MECH_CKPT_NVEC; i++) {
    if ((i == 2 && !h->hasvprev) || (i == 3 && !h->hasqprev)) continue;
    PetscCall(DatasetSize(viewer, VecNames[i], &Nfile));
    if (Nfile != N) {
      if (Nfile < 0) PetscCall(PetscSNPrintf(problem, len, "it lacks the dataset /checkpoint/%s", VecNames[i]));
      else PetscCall(PetscSNPrintf(problem, len, "its dataset /checkpoint/%s has %" PetscInt_FMT " values, this run's state %" PetscInt_FMT, VecNames[i], Nfile, N));
      PetscFunctionReturn(0);
    }
  }

  PetscCall(ReadInt(viewer, "step", -1, &h->step));
  PetscCall(ReadReal(viewer, "time", 0, &h->time));
  PetscCall(ReadReal(viewer, "dt", 0, &h->dt));
  if (h->step < 0 || !(h->dt > 0)) {
    PetscCall(PetscSNPrintf(problem, len, "its step %" PetscInt_FMT " or dt %g is invalid", h->step, (double)h->dt));
    PetscFunctionReturn(0);
  }
  PetscCall(ReadReal(viewer, "previous_time", 0, &h->tprev));
  PetscCall(ReadString(viewer, "ts_type", h->tsp.type, sizeof(h->tsp.type)));
  PetscCall(ReadString(viewer, "adapt_type", h->tsp.adapt, sizeof(h->tsp.adapt)));
  PetscCall(ReadInt(viewer, "ts_family", 0, &h->tsp.family));
  PetscCall(ReadReal(viewer, "theta", 0, &h->tsp.theta));
  PetscCall(ReadInt(viewer, "endpoint", 0, &h->tsp.endpoint));
  PetscCall(ReadInt(viewer, "linearized", 0, &h->tsp.linearized));
  PetscCall(ReadString(viewer, "guess", h->tsp.guess, sizeof(h->tsp.guess)));
  PetscCall(ReadInt(viewer, "extrapolate", 0, &h->tsp.extrapolate));
  PetscCall(ReadReal(viewer, "alpha_m", 0, &h->tsp.alpha_m));
  PetscCall(ReadReal(viewer, "alpha_f", 0, &h->tsp.alpha_f));
  PetscCall(ReadReal(viewer, "gamma", 0, &h->tsp.gamma));
  PetscCall(ReadReal(viewer, "beta", 0, &h->tsp.beta));
  PetscCall(ReadInt(viewer, "snes_its", 0, &h->snes_its));
  PetscCall(ReadInt(viewer, "ksp_its", 0, &h->ksp_its));
  PetscCall(ReadInt(viewer, "rejected", 0, &h->reject));
  PetscCall(ReadInt(viewer, "snes_failures", 0, &h->snes_failures));
  PetscCall(ReadInt(viewer, "adapt_decrease_count", 0, &h->adapt_decrease));
  PetscCall(ReadInt(viewer, "failed_step", 0, &h->failed));
  for (i = 0; i < h->nvec; i++) {
    char               name[64];
    unsigned long long v = 0;

    PetscCall(PetscSNPrintf(name, sizeof(name), "checksum_%s", VecNames[i]));
    PetscCall(ReadString(viewer, name, str, sizeof(str)));
    if (sscanf(str, "%llx", &v) != 1) {
      PetscCall(PetscSNPrintf(problem, len, "it lacks the checksum of /checkpoint/%s", VecNames[i]));
      PetscFunctionReturn(0);
    }
    h->sum[i] = (uint64_t)v;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode LoadVectors(MechCheckpoint ck, PetscViewer viewer, const Header *h)
{
  PetscInt i;

  PetscFunctionBegin;
  PetscCall(PetscViewerHDF5PushGroup(viewer, "/checkpoint"));
  for (i = 0; i < h->nvec; i++) PetscCall(VecLoad(ck->vec[i], viewer));
  PetscCall(PetscViewerHDF5PopGroup(viewer));
  PetscFunctionReturn(0);
}

/*@C
  MechCheckpointLoad - Reads and validates a checkpoint for a restart, and makes the TS type,
  TS parameters and TSAdapt type it records the defaults of ts.

  Collective

  Input Parameters:
+ ck   - the checkpointer (created for the system of this run)
. ts   - the TS, before TSSetFromOptions()
- path - the checkpoint

  Notes:
  Refused with an error naming the file and the difference, changing nothing: a missing file,
  one that is not HDF5 or is truncated or damaged, not a tsmech checkpoint, of another format
  version, incompletely written, of another model, with another value of any model parameter,
  of another state size, or whose vectors do not match their checksums (corrupted).
  The state is kept for MechCheckpointRestore().
@*/
PetscErrorCode MechCheckpointLoad(MechCheckpoint ck, TS ts, const char path[])
{
  PetscViewer    viewer = NULL;
  PetscErrorCode ierr;
  PetscBool      exists = PETSC_FALSE, ok;
  Header         h;
  char           problem[1024] = "";
  H5E_auto2_t    efunc;
  void          *edata;
  PetscInt       i;
  int            stage = 0; /* 0 open, 1 header, 2 vectors */

  PetscFunctionBegin;
  PetscValidPointer(ck, 1);
  PetscValidHeaderSpecific(ts, TS_CLASSID, 2);
  PetscValidCharPointer(path, 3);
  PetscCheck(path[0], ck->comm, PETSC_ERR_ARG_WRONG, "Empty checkpoint file name (-restart)");
  if (ck->rank == 0) PetscCall(PetscTestFile(path, 'r', &exists));
  PetscCallMPI(MPI_Bcast(&exists, 1, MPIU_BOOL, 0, ck->comm));
  PetscCheck(exists, ck->comm, PETSC_ERR_FILE_OPEN, "Cannot restart from %s: the file does not exist or is not readable", path);
  PetscCall(PetscMemzero(&h, sizeof(h)));

  /* everything read with HDF5's error stack silenced and PETSc's errors returned, so a damaged
     file gives one clear message */
  PetscCallHDF5(H5Eget_auto2, (H5E_DEFAULT, &efunc, &edata));
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, NULL, NULL));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PetscViewerHDF5Open(ck->comm, path, FILE_MODE_READ, &viewer);
  if (!ierr) {
    stage = 1;
    ierr  = ReadHeader(ck, viewer, &h, problem, sizeof(problem));
  }
  if (!ierr && !problem[0]) {
    stage = 2;
    ierr  = LoadVectors(ck, viewer, &h);
  }
  if (viewer && ((PetscViewer_HDF5 *)viewer->data)->file_id < 0) ((PetscViewer_HDF5 *)viewer->data)->file_id = 0;
  (void)PetscViewerDestroy(&viewer);
  PetscCall(PetscPopErrorHandler());
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, efunc, edata));
  ok = ierr ? PETSC_FALSE : PETSC_TRUE;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, MPIU_BOOL, MPI_LAND, ck->comm));
  PetscCheck(ok || stage != 0, ck->comm, PETSC_ERR_FILE_UNEXPECTED, "Cannot restart from %s: it cannot be opened as an HDF5 file (truncated, damaged or not HDF5)", path);
  PetscCheck(ok, ck->comm, PETSC_ERR_FILE_UNEXPECTED, "Cannot restart from %s: reading its %s failed (the file is truncated or damaged)", path, stage == 1 ? "header" : "state vectors");
  PetscCheck(!problem[0], ck->comm, PETSC_ERR_ARG_INCOMP, "Cannot restart from %s: %s", path, problem);
  for (i = 0; i < h.nvec; i++) {
    uint64_t sum;
    PetscCall(VecChecksum(ck->vec[i], &sum));
    PetscCheck(sum == h.sum[i], ck->comm, PETSC_ERR_FILE_UNEXPECTED, "Cannot restart from %s: the data of /checkpoint/%s do not match their checksum (the file is corrupted)", path, VecNames[i]);
  }

  PetscCall(SetTSParams(ts, &h.tsp));
  ck->loaded = PETSC_TRUE;
  PetscCall(PetscStrncpy(ck->path, path, sizeof(ck->path)));
  ck->step           = h.step;
  ck->time           = h.time;
  ck->dt             = h.dt;
  ck->tprev          = h.tprev;
  ck->hasvprev       = h.hasvprev;
  ck->hasqprev       = h.hasqprev;
  ck->tsp            = h.tsp;
  ck->snes_its       = h.snes_its;
  ck->ksp_its        = h.ksp_its;
  ck->reject         = h.reject;
  ck->snes_failures  = h.snes_failures;
  ck->adapt_decrease = h.adapt_decrease;
  ck->failed         = h.failed;
  ck->last_step      = h.step;
  ck->last_time      = h.time;
  PetscFunctionReturn(0);
}

/*
  The theta2 family's start of the last step: TSTheta2SetPreviousVelocity() records the velocity
  given, the TS's current position and the time ptime - time_step. For the exact position and
  time (the error estimate uses the position, the extrapolation tau / (t - t_prev)) the TS is
  given the previous position, ptime = t_prev and time_step = 0 for the call, then its state back.
*/
static PetscErrorCode RestorePrevious(TS ts, PetscReal t, PetscReal dt, PetscReal tprev, Vec qprev, Vec vprev)
{
  Vec qs, save = NULL;

  PetscFunctionBegin;
  PetscCall(TS2GetSolution(ts, &qs, NULL));
  if (qprev) {
    PetscCall(VecDuplicate(qs, &save));
    PetscCall(VecCopy(qs, save));
    PetscCall(VecCopy(qprev, qs));
  }
  ts->ptime     = tprev;
  ts->time_step = 0;
  PetscCall(TSTheta2SetPreviousVelocity(ts, vprev));
  ts->ptime     = t;
  ts->time_step = dt;
  if (save) {
    PetscCall(VecCopy(save, qs));
    PetscCall(VecDestroy(&save));
  }
  PetscFunctionReturn(0);
}

/*@C
  MechCheckpointRestore - Gives ts the state of the checkpoint loaded with MechCheckpointLoad().

  Collective

  Input Parameters:
+ ck   - the checkpointer
. ts   - the TS, after TSSetFromOptions()
. q, v - vectors of the system's layout (MechSystemCreateState()): they receive the state and
         are given to ts with TSMechSetSolution()

  Notes:
  Sets the time, step number, dt (the next step's, as the interrupted run had chosen it; it
  overrides -ts_dt, except for a checkpoint written after a failed step, whose dt failed: then a
  -ts_dt given wins, with a note), the iteration and rejection counters, the TSAdapt's counter and, for the
  theta2 family, the start of the last step. With the same TS settings and a deterministic
  solver configuration the run then continues bit for bit on the same number of ranks.
  Types whose history cannot be restored (TSALPHA2's acceleration, multistep and FSAL methods)
  are restarted (TSRestartStep()) as at a first step: they continue correctly, not bit for bit.
  Prints a note on stdout for each TS setting that differs from the checkpoint's.
@*/
PetscErrorCode MechCheckpointRestore(MechCheckpoint ck, TS ts, Vec q, Vec v)
{
  TSParams  now;
  PetscBool theta2;
  char      diff[2048];

  PetscFunctionBegin;
  PetscValidPointer(ck, 1);
  PetscValidHeaderSpecific(ts, TS_CLASSID, 2);
  PetscCheck(ck->loaded, ck->comm, PETSC_ERR_ARG_WRONGSTATE, "No checkpoint loaded: call MechCheckpointLoad() first");
  PetscCall(GetTSParams(ts, &now));
  PetscCall(DiffTSParams(&ck->tsp, &now, diff, sizeof(diff)));
  if (diff[0]) PetscCall(PetscPrintf(ck->comm, "tsmech: note: this run continues %s with %s: not the integrator of the interrupted run\n", ck->path, diff));

  {
    /* exact: the theta2 family, whose history the checkpoint holds, and one-step types without
       history at fixed steps; the others restart as at a first step (TSRestartStep() below) */
    PetscBool exact, none, family;

    PetscCall(IsTheta2Family(ts, &family));
    exact = family;
    PetscCall(PetscObjectTypeCompare((PetscObject)ts->adapt, TSADAPTNONE, &none));
    if (!exact && none) PetscCall(PetscObjectTypeCompareAny((PetscObject)ts, &exact, TSSYMEULER2, TSEULER, TSBEULER, TSCN, TSTHETA, ""));
    if (!exact) PetscCall(PetscPrintf(ck->comm, "tsmech: note: %s with the %s step-size controller keeps history that a checkpoint does not hold: it restarts from %s as at a first step, so the run continues correctly but not bit for bit as the uninterrupted run\n", now.type, now.adapt, ck->path));
    else if (family) {
      PetscBool mf;

      PetscCall(TSTheta2GetMatrixFree(ts, &mf, NULL, NULL));
      if (mf && ts->problem_type != TS_LINEAR) PetscCall(PetscPrintf(ck->comm, "tsmech: note: with -ts_theta_matrix_free the lagged preconditioning matrix is assembled anew at the state of %s, so the run continues to the solver tolerances, not bit for bit as the uninterrupted run\n", ck->path));
    }
  }

  PetscCall(VecCopy(ck->vec[0], q));
  PetscCall(VecCopy(ck->vec[1], v));
  PetscCall(TSMechSetSolution(ts, q, v));
  PetscCall(TSSetStepNumber(ts, ck->step));
  PetscCall(TSSetTime(ts, ck->time));
  PetscCall(TSSetTimeStep(ts, ck->dt));
  if (ck->failed) {
    const char *prefix;
    PetscBool   set;
    PetscReal   dt;

    /* the step after this checkpoint failed with its dt: a -ts_dt given now is the next step */
    PetscCall(TSGetOptionsPrefix(ts, &prefix));
    PetscCall(PetscOptionsGetReal(((PetscObject)ts)->options, prefix, "-ts_dt", &dt, &set));
    if (set && dt > 0) PetscCall(TSSetTimeStep(ts, dt));
    PetscCall(PetscPrintf(ck->comm, "tsmech: note: %s holds the last good state (step %" PetscInt_FMT ") of a run that failed with dt = %g; the run continues with dt = %g%s\n", ck->path, ck->step, (double)ck->dt, (double)(set && dt > 0 ? dt : ck->dt), set && dt > 0 ? " (-ts_dt)" : ": give a smaller -ts_dt or other solver options, or it fails again"));
  }
  PetscCall(IsTheta2Family(ts, &theta2));
  if (theta2 && ck->hasvprev && ck->tsp.family == 1) {
    PetscCall(RestorePrevious(ts, ck->time, ck->dt, ck->tprev, ck->hasqprev ? ck->vec[3] : NULL, ck->vec[2]));
    if (ck->hasqprev) PetscCall(TrackerRecord(ck->tr, ck->step - 1, ck->tprev, ck->vec[3]));
  } else if (!theta2) {
    PetscCall(TSRestartStep(ts));
  }
  if (ck->hasvprev) ts->ptime_prev = ck->tprev;
  ts->snes_its          = ck->snes_its;
  ts->ksp_its           = ck->ksp_its;
  ts->reject            = ck->reject;
  ts->num_snes_failures = ck->snes_failures;
  {
    TSAdapt adapt;
    PetscCall(TSGetAdapt(ts, &adapt));
    adapt->timestepjustdecreased = ck->adapt_decrease;
  }
  PetscFunctionReturn(0);
}

#else /* PETSc without HDF5: the API exists and says why it cannot work */

struct _n_MechCheckpoint {
  PetscInt dummy;
};

PetscErrorCode MechCheckpointCreate(MechSystem sys, TS ts, MechCheckpoint *ck)
{
  PetscFunctionBegin;
  (void)sys;
  *ck = NULL;
  SETERRQ(PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP_SYS, "Checkpoints need PETSc configured with HDF5");
}

PetscErrorCode MechCheckpointDestroy(MechCheckpoint *ck)
{
  PetscFunctionBegin;
  if (ck) *ck = NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode MechCheckpointSetKeep(MechCheckpoint ck, PetscInt keep)
{
  PetscFunctionBegin;
  (void)ck;
  (void)keep;
  PetscFunctionReturn(0);
}

PetscErrorCode MechCheckpointGetLast(MechCheckpoint ck, PetscInt *step, PetscReal *t)
{
  PetscFunctionBegin;
  (void)ck;
  if (step) *step = -1;
  if (t) *t = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode MechCheckpointWrite(MechCheckpoint ck, TS ts, const char path[])
{
  PetscFunctionBegin;
  (void)ck;
  SETERRQ(PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP_SYS, "Cannot write the checkpoint %s: PETSc was configured without HDF5", path);
}

PetscErrorCode MechCheckpointLoad(MechCheckpoint ck, TS ts, const char path[])
{
  PetscFunctionBegin;
  (void)ck;
  SETERRQ(PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP_SYS, "Cannot restart from %s: PETSc was configured without HDF5", path);
}

PetscErrorCode MechCheckpointRestore(MechCheckpoint ck, TS ts, Vec q, Vec v)
{
  PetscFunctionBegin;
  (void)ck;
  (void)q;
  (void)v;
  SETERRQ(PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP_SYS, "PETSc was configured without HDF5");
}
#endif
