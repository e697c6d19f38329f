/*
  Checkpoint and restart: the create, write, load and restore of a checkpoint, everything the next
  step of a run depends on, in an HDF5 file written in parallel through PetscViewerHDF5,
  atomically (a new file, then MechIOCommitFile()), and read back on any number of ranks. Its
  header is written, read and validated in ckheader.c, the theta2 family's start of the last step
  is tracked in history.c. The layout (format version 3) is the manual block MechCheckpointFormat
  below (docs/manual/formats/).

  What a type that keeps history (the theta2 family; its family's table, scheme.h) keeps between
  steps is the start of the last step: its velocity (the extrapolating guesses), its position
  (the adaptive error estimate) and its time (the ratio tau / tau_prev of the extrapolation). The
  type's own savehistory/loadhistory operations (TSMechSaveHistory(), TSMechLoadHistory()) carry
  the velocity; the position and time are tracked by a TSMonitor (history.c) (the monitor of step
  k sees the state at which step k + 1 starts) and restored through TSMechLoadHistory(), which
  takes the position from the TS's solution and the time as ptime - time_step: both are set for
  the call (see RestorePrevious()).

  What TSAdapt (basic, 3.18) keeps between steps: only the step size (the TS's dt) and the
  counter of -ts_adapt_time_step_increase_delay (timestepjustdecreased), both stored. (Its
  dt_span_cached serves TSSetTimeSpan(), which tsmech does not use.)
*/
#define _POSIX_C_SOURCE 200809L
#include <petsc/private/viewerhdf5impl.h> /* PetscCallHDF5(); first, as it must precede <hdf5.h> */
#include <petsc/private/tsimpl.h>         /* the iteration counters and the TSAdapt counter */
#include <petscdmda.h>
#include "checkpointimpl.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#if defined(PETSC_HAVE_HDF5)

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
    uint64_t             h = MechCkptMix64((uint64_t)(rstart + i) + 0x9e3779b97f4a7c15ULL);
    const unsigned char *b = (const unsigned char *)&a[i];
    size_t               k;

    for (k = 0; k < sizeof(PetscScalar); k += 8) {
      uint64_t w = 0;
      memcpy(&w, b + k, PetscMin(8, sizeof(PetscScalar) - k));
      h = MechCkptMix64(h ^ w);
    }
    local += h;
  }
  PetscCall(VecRestoreArrayRead(y, &a));
  PetscCall(VecDestroy(&nat));
  PetscCallMPI(MPI_Allreduce(&local, sum, 1, MPI_UINT64_T, MPI_SUM, PetscObjectComm((PetscObject)x)));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Create, destroy                                                                            */
/* ------------------------------------------------------------------------------------------ */

/* The names of a list of parameters joined by commas must fit the header's field (checkpointimpl.h):
   refused with the reason, not cut short (a restart would then compare other parameters) */
static PetscErrorCode CheckListLength(MechCheckpoint ck, const char kind[], PetscInt n, const char *const names[], size_t room)
{
  size_t len = 0, l;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    PetscCall(PetscStrlen(names[i], &l));
    len += l + (i ? 1 : 0);
  }
  PetscCheck(len < room, ck->comm, PETSC_ERR_SUP, "Checkpoint: the model's %" PetscInt_FMT " %s names take %zu characters; a checkpoint holds at most %zu", n, kind, len, room - 1);
  PetscFunctionReturn(0);
}

/*MC
  MechCheckpointFormat - the checkpoint file of a run (-checkpoint FILE.h5, `MechCheckpointWrite()`,
  Python's tsmech.Checkpoint), format version 3: everything the next step depends on

  Level: intermediate

  Notes:
  The layout:
.vb
  /checkpoint                  group; attributes: format = "tsmech-checkpoint", format_version (3),
                               complete (written last), tsmech_version, petsc_version, nranks, model,
                               model_parameters (names, comma-separated), model_text_parameters,
                               global_size, step, time, dt (the next step's), ts_type, adapt_type,
                               ts_family (1 theta2 family, 2 PETSc's theta family, 3 alpha2, 0 other) and
                               the TS parameters (theta, endpoint, linearized, guess, extrapolate |
                               alpha_m, alpha_f, gamma, beta | gauss2_stages), has_previous,
                               has_previous_position, previous_time, snes_its, ksp_its, rejected,
                               snes_failures, adapt_decrease_count, failed_step (1: written after a
                               failed step, with the last good state), checksum_<vector> (hex) and
                               checksum_header (of every attribute)
  /checkpoint/model_parameters       group; one float64 attribute per model parameter
  /checkpoint/model_text_parameters  group; one string attribute per text parameter
                               (`MechSystemAddTextParameter()`: the solid's material, its constraints'
                               nodes bc_NAME_vertices, its loads load_NAME, load_NAME_faces, load_NAME_time)
  /checkpoint/balance          group (with -monitor_reactions or an energy balance): attributes
                               accumulated (the work terms so far) and flags
  /checkpoint/q, v             the state (grid models: natural ordering, the grid's shape; the solid:
                               the mesh's node order, so a checkpoint restarts on any number of ranks)
  /checkpoint/v_previous       the velocity at the start of the last step (theta2 family)
  /checkpoint/q_previous       the position there (theta2 family, for the error estimate)
.ve
  Format version 2 (tsmech before the text parameters) is still read, as a checkpoint without text
  parameters: a model that records one (the solid's material) refuses it, saying that it holds the
  parameter as a number. A checkpoint is written in parallel through PetscViewerHDF5 to
  FILE.h5.tmp-<pid>, closed, synced and renamed over FILE.h5: a crash or kill -9 during the write
  leaves the previous checkpoint intact (and a stale .tmp-* file that may be deleted; a write that
  fails, e.g. on a full disk, removes its own). With -checkpoint_keep K the older ones are FILE.h5.1
  (the previous) ... FILE.h5.<K-1>. What a restart refuses and what it reproduces bit for bit is in
  docs/program.md ("Checkpoint and restart").

.seealso: `MechCheckpointCreate()`, `MechCheckpointLoad()`, `MechCheckpointWrite()`, `MechOutputFormat`, `TSMechDriverOptions`
M*/

/*@C
  MechCheckpointCreate - Creates the checkpointer of a run.

  Collective

  Input Parameters:
+ sys - the system (NULL: the one attached to ts with TSMechSetSystem())
- ts  - the TS

  Output Parameter:
. ck - the checkpointer; it keeps 1 checkpoint (`MechCheckpointSetKeep()`)

  Level: intermediate

  Notes:
  Test hook (read outside the options blocks, so -help does not print it):
  -checkpoint_test_pause_in_write step makes `MechCheckpointWrite()` stop midway through the write at
  that step, after the state datasets and before the attributes that complete the file, and wait a
  minute to be killed; the file <path>.pause then lists the process ids of the ranks (default -1: never).
  The program's -checkpoint_test_pause_at_step N stops the run after step N the same way.

  Installs a TSMonitor that keeps the position and time at the start of the last step (for the
  theta2 family), so create it before `TSSolve()`. The monitor holds its own reference to what it
  keeps: the checkpointer may be destroyed before or after the TS.

.seealso: `MechCheckpointDestroy()`, `MechCheckpointSetKeep()`, `MechCheckpointWrite()`,
          `MechCheckpointLoad()`, `MechCheckpointRestore()`
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
  {
    const char *const *names;
    PetscInt           n;

    /* refused before the first step, not at the first write */
    PetscCall(MechSystemGetParameters(sys, &n, &names, NULL));
    PetscCall(CheckListLength(ck, "parameter", n, names, MECH_CKPT_LISTLEN));
    PetscCall(MechSystemGetTextParameters(sys, &n, &names, NULL));
    PetscCall(CheckListLength(ck, "text parameter", n, names, MECH_CKPT_LISTLEN));
  }
  PetscCall(MechIOCreateStateVectors(sys, &ck->vec[0], &ck->vec[1], NULL, NULL));
  PetscCall(VecDuplicate(ck->vec[1], &ck->vec[2]));
  PetscCall(VecDuplicate(ck->vec[0], &ck->vec[3]));
  for (k = 0; k < MECH_CKPT_NVEC; k++) PetscCall(PetscObjectSetName((PetscObject)ck->vec[k], MechCkptVecNames[k]));
  PetscCall(PetscNew(&ck->tr));
  ck->tr->refct = 2;
  ck->tr->last  = -1;
  PetscCall(TSMonitorSet(ts, MechCkptTrackerMonitor, ck->tr, MechCkptTrackerMonitorDestroy));
  *ckp = ck;
  PetscFunctionReturn(0);
}

/*@C
  MechCheckpointDestroy - Destroys the checkpointer.

  Collective

  Input Parameter:
. ck - address of the checkpointer (it may hold NULL); set to NULL on return

  Level: intermediate

  Notes:
  The TSMonitor installed by `MechCheckpointCreate()` keeps its own reference to what it tracks,
  so the TS may outlive the checkpointer.

.seealso: `MechCheckpointCreate()`
@*/
PetscErrorCode MechCheckpointDestroy(MechCheckpoint *ck)
{
  PetscInt k;

  PetscFunctionBegin;
  if (!*ck) PetscFunctionReturn(0);
  for (k = 0; k < MECH_CKPT_NVEC; k++) PetscCall(VecDestroy(&(*ck)->vec[k]));
  PetscCall(MechCkptTrackerRelease(&(*ck)->tr));
  PetscCall(MechSystemDestroy(&(*ck)->sys));
  PetscCall(PetscFree(*ck));
  PetscFunctionReturn(0);
}

/*@C
  MechCheckpointSetKeep - How many checkpoints are kept: the newest is FILE, the older ones
  FILE.1 (the previous), FILE.2, ..., FILE.<keep-1>. Default 1.

  Logically Collective

  Input Parameters:
+ ck   - the checkpointer
- keep - the number of checkpoints kept, 1 to MECH_IO_MAX_KEEP (100)

  Level: intermediate

  Notes:
  The tsmech program sets it from -checkpoint_keep.

.seealso: `MechCheckpointCreate()`, `MechCheckpointWrite()`
@*/
PetscErrorCode MechCheckpointSetKeep(MechCheckpoint ck, PetscInt keep)
{
  PetscFunctionBegin;
  PetscValidPointer(ck, 1);
  PetscCheck(keep >= 1 && keep <= MECH_IO_MAX_KEEP, ck->comm, PETSC_ERR_ARG_OUTOFRANGE, "-checkpoint_keep %" PetscInt_FMT ": must be between 1 and %d", keep, MECH_IO_MAX_KEEP);
  ck->keep = keep;
  PetscFunctionReturn(0);
}

/*@C
  MechCheckpointGetLast - The step number and time of the checkpoint last loaded or written
  (-1 and 0 if none).

  Not Collective

  Input Parameter:
. ck - the checkpointer

  Output Parameters:
+ step - the step number of the checkpoint (NULL if not wanted)
- t    - its time (NULL if not wanted)

  Level: intermediate

.seealso: `MechCheckpointWrite()`, `MechCheckpointLoad()`
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

/* Writes the checkpoint into the new file of viewer (collective) */
static PetscErrorCode WriteContents(MechCheckpoint ck, PetscViewer viewer, const char path[], const Header *h)
{
  const char        *model;
  const char *const *pnames;
  const PetscReal   *pvalues;
  PetscInt           np, i, N;
  PetscMPIInt        size;
  char               marker[PETSC_MAX_PATH_LEN];
  hid_t              fileid, gcpl;
  HeaderIO           io;
  HeaderFile        *f;
  char               none[8] = ""; /* the writer finds no problems */

  PetscFunctionBegin;
  PetscCall(PetscViewerHDF5GetFileId(viewer, &fileid));
  /* HDF5's newest object formats: their metadata carry checksums that HDF5 verifies on reading,
     so a damaged header or dataset description is refused by HDF5 itself */
  PetscCallHDF5(H5Fset_libver_bounds, (fileid, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST));
  PetscCall(PetscNew(&f));
  PetscCall(PetscMemzero(&io, sizeof(io)));
  io.write   = PETSC_TRUE;
  io.digest  = MECH_CKPT_DIGEST_SEED;
  io.problem = none;
  io.plen    = sizeof(none);
  f->h       = *h;
  PetscCall(PetscStrncpy(f->format, MECH_CHECKPOINT_FORMAT, sizeof(f->format)));
  f->version = MECH_CHECKPOINT_FORMAT_VERSION;
  PetscCall(PetscStrncpy(f->tsmech_version, TSMECH_VERSION, sizeof(f->tsmech_version)));
  PetscCall(PetscGetVersion(f->petsc_version, sizeof(f->petsc_version)));
  PetscCallMPI(MPI_Comm_size(ck->comm, &size));
  f->nranks = size;
  PetscCall(MechSystemGetModelName(ck->sys, &model));
  PetscCall(PetscStrncpy(f->model, model ? model : "user", sizeof(f->model)));
  PetscCall(MechSystemGetParameters(ck->sys, &np, &pnames, &pvalues));
  PetscCall(CheckListLength(ck, "parameter", np, pnames, sizeof(f->plist)));
  for (i = 0; i < np; i++) {
    if (i) PetscCall(PetscStrlcat(f->plist, ",", sizeof(f->plist)));
    PetscCall(PetscStrlcat(f->plist, pnames[i], sizeof(f->plist)));
  }
  f->np      = np;
  f->pvalues = (PetscReal *)pvalues;
  {
    const char *const *tnames, *const *texts;
    PetscInt nt;

    PetscCall(MechSystemGetTextParameters(ck->sys, &nt, &tnames, &texts));
    PetscCall(CheckListLength(ck, "text parameter", nt, tnames, sizeof(f->tlist)));
    PetscCall(PetscCalloc1(nt + 1, &f->tvalues));
    for (i = 0; i < nt; i++) {
      if (i) PetscCall(PetscStrlcat(f->tlist, ",", sizeof(f->tlist)));
      PetscCall(PetscStrlcat(f->tlist, tnames[i], sizeof(f->tlist)));
      PetscCall(PetscStrncpy(f->tvalues[i], texts[i], sizeof(f->tvalues[i])));
    }
    f->nt = nt;
  }
  PetscCall(VecGetSize(ck->vec[0], &N));
  f->global_size = N;
  for (i = 0; i < MECH_CKPT_NVEC; i++) PetscCall(PetscSNPrintf(f->sum[i], sizeof(f->sum[i]), "%016llx", (unsigned long long)h->sum[i]));

  /* first what makes it a checkpoint (a reader then calls an interrupted write incomplete),
     last the attribute `complete`. The attributes stay in the group's object header (no dense
     storage, however many): one checksummed block. */
  PetscCallHDF5Return(gcpl, H5Pcreate, (H5P_GROUP_CREATE));
  PetscCallHDF5(H5Pset_attr_phase_change, (gcpl, 65535, 0));
  PetscCallHDF5Return(io.group, H5Gcreate2, (fileid, "checkpoint", H5P_DEFAULT, gcpl, H5P_DEFAULT));
  PetscCall(MechCkptIOString(&io, "format", f->format, sizeof(f->format)));
  PetscCall(MechCkptIOInt(&io, "format_version", &f->version));
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
  PetscCallHDF5Return(io.params, H5Gcreate2, (io.group, "model_parameters", H5P_DEFAULT, gcpl, H5P_DEFAULT));
  PetscCallHDF5Return(io.texts, H5Gcreate2, (io.group, "model_text_parameters", H5P_DEFAULT, gcpl, H5P_DEFAULT));
  PetscCallHDF5(H5Pclose, (gcpl));
  PetscCall(MechCkptHeaderFields(&io, f));
  {
    char     hex[32];
    PetscInt one = 1;

    PetscCall(PetscSNPrintf(hex, sizeof(hex), "%016llx", (unsigned long long)io.digest));
    PetscCall(MechCkptIOString(&io, "checksum_header", hex, sizeof(hex)));
    PetscCall(MechCkptWriteBalance(io.group, h));
    /* last: a file without it was not completely written */
    PetscCall(MechCkptIOInt(&io, "complete", &one));
  }
  PetscCallHDF5(H5Gclose, (io.params));
  PetscCallHDF5(H5Gclose, (io.texts));
  PetscCallHDF5(H5Gclose, (io.group));
  PetscCall(PetscFree(f->tvalues));
  PetscCall(PetscFree(f));
  /* everything written here, where a failure is caught: the close then has nothing to write */
  PetscCall(PetscViewerHDF5GetFileId(viewer, &fileid));
  PetscCallHDF5(H5Fflush, (fileid, H5F_SCOPE_GLOBAL));
  PetscFunctionReturn(0);
}

/*
  Writes the checkpoint file `tmp` (collective). A failure, in the open, a write or the close,
  gives up the file (MechIODiscardViewer(): removed, and closed so that HDF5 does not crash at
  exit) and raises one error naming the checkpoint: "no space left on device" when the file
  system is full, else the first error's message; HDF5's error stack is not printed.
*/
static PetscErrorCode WriteFile(MechCheckpoint ck, const char tmp[], const char path[], const Header *h)
{
  PetscViewer    viewer = NULL;
  PetscErrorCode ierr;
  PetscBool      ok, all;
  H5E_auto2_t    efunc;
  void          *edata;
  char           what[PETSC_MAX_PATH_LEN + 256];
  int            err;
  MPI_Comm       agree;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_dup(ck->comm, &agree));
  PetscCallHDF5(H5Eget_auto2, (H5E_DEFAULT, &efunc, &edata));
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, NULL, NULL));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  errno = 0; /* a write that fails on a full disk leaves ENOSPC */
  ierr  = PetscViewerHDF5Open(ck->comm, tmp, FILE_MODE_WRITE, &viewer);
  if (!ierr) ierr = WriteContents(ck, viewer, path, h);
  err = errno;
  PetscCall(PetscPopErrorHandler());
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, efunc, edata));
  ok = ierr ? PETSC_FALSE : PETSC_TRUE;
  PetscCall(MechIOAgree(agree, MECH_IO_AGREE_SECONDS, &ok, &all));
  if (ok) {
    PetscCallMPI(MPI_Comm_free(&agree));
    PetscCall(PetscViewerDestroy(&viewer));
    PetscFunctionReturn(0);
  }
  if (!all) {
    /* the other ranks are stuck in a collective call of HDF5's: no collective clean-up; the
       temporary file is removed, the error raised here alone */
    MechIODescribeWriteFailureLocal(tmp, err, what, sizeof(what));
    if (!what[0]) {
      const char *text     = NULL;
      char       *specific = NULL;

      if (ierr) (void)PetscErrorMessage(ierr, &text, &specific);
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s", specific && specific[0] ? specific : "the write failed"));
    }
    if (ck->rank == 0) (void)remove(tmp);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write the checkpoint %s: %s (the other ranks did not end the write)", path, what);
  }
  PetscCallMPI(MPI_Comm_free(&agree));
  PetscCall(MechIODescribeWriteFailure(ck->comm, tmp, err, what, sizeof(what)));
  if (!what[0]) {
    const char *text     = NULL;
    char       *specific = NULL;

    if (ierr) (void)PetscErrorMessage(ierr, &text, &specific);
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s", specific && specific[0] ? specific : (ierr ? (text ? text : "the write failed") : "the write failed on another rank")));
  }
  PetscCall(MechIODiscardViewer(&viewer, tmp));
  SETERRQ(ck->comm, PETSC_ERR_FILE_WRITE, "Cannot write the checkpoint %s: %s", path, what);
}

/* MechCheckpointWrite() without its log stage */
static PetscErrorCode CheckpointWrite(MechCheckpoint ck, TS ts, const char path[])
{
  Header    h;
  PetscBool history;
  char      tmp[PETSC_MAX_PATH_LEN], what[2 * PETSC_MAX_PATH_LEN + 64] = "";
  int       pid, err;
  PetscInt  k;

  PetscFunctionBegin;
  PetscValidPointer(ck, 1);
  PetscValidHeaderSpecific(ts, TS_CLASSID, 2);
  PetscValidCharPointer(path, 3);
  PetscCheck(path[0], ck->comm, PETSC_ERR_ARG_WRONG, "Empty checkpoint file name");
  PetscCall(PetscMemzero(&h, sizeof(h)));
  PetscCall(TSGetStepNumber(ts, &h.step));
  PetscCall(TSGetTime(ts, &h.time));
  PetscCall(TSGetTimeStep(ts, &h.dt));
  PetscCall(TSMechSchemeGet(ts, &h.tsp));
  PetscCall(TSMechGetSolution(ts, ck->vec[0], ck->vec[1]));
  PetscCall(MechCkptKeepsHistory(ts, &history));
  {
    TSConvergedReason reason;

    /* After a failed step the TS holds the last good state (the caller restores it and its
       step number if the type does not), but the theta2 family's record of the start of the
       last step is that of the failed step: the checkpoint then holds no history, and the
       restart proceeds as from a first step. */
    PetscCall(TSGetConvergedReason(ts, &reason));
    if (reason < 0) {
      h.failed = 1;
      history  = PETSC_FALSE;
    }
  }
  if (history) {
    PetscCall(TSMechSaveHistory(ts, ck->vec[2], &h.hasvprev));
    if (h.hasvprev) {
      k = MechCkptTrackerFind(ck->tr, h.step - 1);
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
  PetscCall(MechCkptGetBalance(ts, &h));
  /* the vectors in the system's rank-independent order (MechSystemSetIOOrdering()) */
  for (k = 0; k < h.nvec; k++) PetscCall(MechIOPermute(ck->sys, ck->vec[k], SCATTER_FORWARD));
  PetscCall(VecChecksum(ck->vec[0], &h.sum[0]));
  PetscCall(VecChecksum(ck->vec[1], &h.sum[1]));
  if (h.hasvprev) PetscCall(VecChecksum(ck->vec[2], &h.sum[2]));
  if (h.hasqprev) PetscCall(VecChecksum(ck->vec[3], &h.sum[3]));

  /* the directory must be writable; the name of the new file is rank 0's */
  pid = (int)getpid();
  PetscCallMPI(MPI_Bcast(&pid, 1, MPI_INT, 0, ck->comm));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp-%d", path, pid));
  {
    char     problem[PETSC_MAX_PATH_LEN + 256];
    PetscInt N;

    PetscCall(MechIOCheckWritable(ck->comm, path, problem, sizeof(problem)));
    PetscCheck(!problem[0], ck->comm, PETSC_ERR_FILE_OPEN, "Cannot write the checkpoint %s: %s", path, problem);
    /* a write that ran out of space midway would cost HDF5's close; the old file stays until
       the rename, so the new one needs its whole size */
    PetscCall(VecGetSize(ck->vec[0], &N));
    PetscCall(MechIOCheckSpace(ck->comm, tmp, (long long)h.nvec * N * (long long)sizeof(PetscScalar), problem, sizeof(problem)));
    PetscCheck(!problem[0], ck->comm, PETSC_ERR_FILE_WRITE, "Cannot write the checkpoint %s: %s", path, problem);
  }

  PetscCall(WriteFile(ck, tmp, path, &h));
  /* every rank has closed the file: rank 0 commits it */
  PetscCallMPI(MPI_Barrier(ck->comm));
  err = ck->rank == 0 ? MechIOCommitFile(tmp, path, ck->keep, PETSC_TRUE, what, sizeof(what)) : 0;
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

  Level: intermediate

  Notes:
  Atomic: the file is written as path.tmp-<pid of rank 0>, closed by all ranks, synced, and
  renamed over path by rank 0; a crash (or kill -9) before the rename leaves the previous
  checkpoint as it was (and a stale path.tmp-<pid>, which may be deleted). With keep > 1 the
  previous checkpoints are kept as path.1, path.2, ...
  After a failed step (TSGetConvergedReason() negative) the caller gives the TS its last good
  state, time and step number back first; the checkpoint is then marked (attribute failed_step)
  and holds no history of the last step, which was the failed one: MechCheckpointRestore() starts
  it as at a first step and lets a -ts_dt of the restart's command line replace its dt.

.seealso: `MechCheckpointCreate()`, `MechCheckpointSetKeep()`, `MechCheckpointLoad()`,
          `MechCheckpointRestore()`, `MechOutputFlush()`
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

/*
  Reads the dataset /checkpoint/<name>, of the shape MechIOVecDims() gives (checked), into x:
  each rank its part, the block of the grid it owns (a DMDA vector, stored in natural ordering)
  or its range of entries. Not collective.
*/
static PetscErrorCode ReadVector(hid_t group, const char name[], Vec x)
{
  DM           dm;
  PetscBool    isda = PETSC_FALSE;
  hid_t        dset, filespace, memspace;
  hsize_t      offset[4], count[4];
  int          d = 0;
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCheck(sizeof(PetscScalar) == sizeof(double), PETSC_COMM_SELF, PETSC_ERR_SUP, "Checkpoints hold real double precision vectors");
  PetscCall(VecGetDM(x, &dm));
  if (dm) PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (isda) {
    PetscInt dim, dof, xs, ys, zs, xm, ym, zm;

    PetscCall(DMDAGetInfo(dm, &dim, NULL, NULL, NULL, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
    PetscCall(DMDAGetCorners(dm, &xs, &ys, &zs, &xm, &ym, &zm));
    if (dim == 3) {
      offset[d]  = (hsize_t)zs;
      count[d++] = (hsize_t)zm;
    }
    if (dim >= 2) {
      offset[d]  = (hsize_t)ys;
      count[d++] = (hsize_t)ym;
    }
    offset[d]  = (hsize_t)xs;
    count[d++] = (hsize_t)xm;
    if (dof > 1) {
      offset[d]  = 0;
      count[d++] = (hsize_t)dof;
    }
  } else {
    PetscInt rstart, rend, bs;

    PetscCall(VecGetOwnershipRange(x, &rstart, &rend));
    PetscCall(VecGetBlockSize(x, &bs));
    offset[d]  = (hsize_t)(rstart / bs);
    count[d++] = (hsize_t)((rend - rstart) / bs);
    if (bs > 1) {
      offset[d]  = 0;
      count[d++] = (hsize_t)bs;
    }
  }
  PetscCallHDF5Return(dset, H5Dopen2, (group, name, H5P_DEFAULT));
  PetscCallHDF5Return(filespace, H5Dget_space, (dset));
  PetscCallHDF5Return(memspace, H5Screate_simple, (d, count, NULL));
  PetscCallHDF5(H5Sselect_hyperslab, (filespace, H5S_SELECT_SET, offset, NULL, count, NULL));
  PetscCall(VecGetArray(x, &a));
  PetscCallHDF5(H5Dread, (dset, H5T_NATIVE_DOUBLE, memspace, filespace, H5P_DEFAULT, a));
  PetscCall(VecRestoreArray(x, &a));
  PetscCallHDF5(H5Sclose, (memspace));
  PetscCallHDF5(H5Sclose, (filespace));
  PetscCallHDF5(H5Dclose, (dset));
  PetscFunctionReturn(0);
}

static PetscErrorCode LoadVectors(MechCheckpoint ck, hid_t fileid, const Header *h)
{
  hid_t    group;
  PetscInt i;

  PetscFunctionBegin;
  PetscCallHDF5Return(group, H5Gopen2, (fileid, "checkpoint", H5P_DEFAULT));
  for (i = 0; i < h->nvec; i++) PetscCall(ReadVector(group, MechCkptVecNames[i], ck->vec[i]));
  PetscCallHDF5(H5Gclose, (group));
  PetscFunctionReturn(0);
}

/* Runs read() with HDF5's error stack silenced and PETSc's errors returned, not printed */
typedef struct {
  H5E_auto2_t efunc;
  void       *edata;
} Silence;

static PetscErrorCode SilenceBegin(Silence *s)
{
  PetscFunctionBegin;
  PetscCallHDF5(H5Eget_auto2, (H5E_DEFAULT, &s->efunc, &s->edata));
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, NULL, NULL));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode SilenceEnd(Silence *s)
{
  PetscFunctionBegin;
  PetscCall(PetscPopErrorHandler());
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, s->efunc, s->edata));
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

  Level: intermediate

  Notes:
  Every attribute is read with its datatype checked exactly (class, size, sign, byte order, one
  value; strings NUL-terminated and bounded) and its value against its range, and the header as
  a whole against its checksum; the datasets' datatype and shape against this run's state, and
  their data against their checksums.
  Refused with an error naming the file and what is wrong, changing nothing: a missing file,
  one that is not HDF5 or is truncated or damaged, not a tsmech checkpoint, of another format
  version, incompletely written, with a damaged datatype, a header that does not match its
  checksum or a value out of its range, of another model, with another value of any model
  parameter, of another state size, or whose vectors do not match their checksums.
  The state is kept for `MechCheckpointRestore()`.

.seealso: `MechCheckpointRestore()`, `MechCheckpointWrite()`, `MechCheckpointGetLast()`
@*/
PetscErrorCode MechCheckpointLoad(MechCheckpoint ck, TS ts, const char path[])
{
  hid_t          fileid = -1;
  PetscErrorCode ierr   = 0;
  PetscBool      ok;
  HeaderFile    *f;
  Header         h;
  char           problem[1024] = "";
  Silence        s;
  PetscInt       i;
  int            stage = 0; /* 0 open, 1 header, 2 vectors */

  PetscFunctionBegin;
  PetscValidPointer(ck, 1);
  PetscValidHeaderSpecific(ts, TS_CLASSID, 2);
  PetscValidCharPointer(path, 3);
  PetscCheck(path[0], ck->comm, PETSC_ERR_ARG_WRONG, "Empty checkpoint file name (-restart)");
  /* a regular, readable file (a FIFO would block HDF5's open) */
  if (ck->rank == 0) MechFileProblem(path, 0, problem, sizeof(problem));
  PetscCallMPI(MPI_Bcast(problem, (PetscMPIInt)sizeof(problem), MPI_CHAR, 0, ck->comm));
  PetscCheck(!problem[0], ck->comm, PETSC_ERR_FILE_OPEN, "Cannot restart from %s: %s", path, problem);
  PetscCall(PetscNew(&f));

  /* everything read silently, so a damaged file gives one clear message; the ranks agree on the
     outcome of each stage before the next. Each rank reads the file by itself (HDF5's default
     driver, not MPI-IO, whose failed reads at the addresses of a damaged file would print). */
  PetscCall(SilenceBegin(&s));
  fileid = MechIOOpenReadOnly(path);
  if (fileid < 0) ierr = PETSC_ERR_FILE_OPEN;
  else {
    stage = 1;
    ierr  = MechCkptReadHeader(ck, fileid, f, problem, sizeof(problem));
  }
  PetscCall(SilenceEnd(&s));
  ok = ierr ? PETSC_FALSE : PETSC_TRUE;
  PetscCall(MechIOAgreeProblem(ck->comm, &ok, problem, sizeof(problem)));
  if (ok && !problem[0]) {
    stage = 2;
    PetscCall(SilenceBegin(&s));
    ierr = LoadVectors(ck, fileid, &f->h);
    if (!ierr) ierr = MechCkptReadBalance(fileid, &f->h);
    PetscCall(SilenceEnd(&s));
    ok = ierr ? PETSC_FALSE : PETSC_TRUE;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, MPIU_BOOL, MPI_LAND, ck->comm));
  }
  if (!ok || problem[0]) PetscCall(MechIOQuietExit());
  h = f->h;
  PetscCall(PetscFree(f->pvalues));
  PetscCall(PetscFree(f->tvalues));
  PetscCall(PetscFree(f));
  /* a read that failed midway leaves objects open, which would keep the file open */
  PetscCall(SilenceBegin(&s));
  if (fileid >= 0) {
    MechIOCloseObjects(fileid);
    (void)H5Fclose(fileid);
  }
  PetscCall(SilenceEnd(&s));
  PetscCheck(ok || stage != 0, ck->comm, PETSC_ERR_FILE_UNEXPECTED, "Cannot restart from %s: it cannot be opened as an HDF5 file (truncated, damaged or not HDF5)", path);
  PetscCheck(ok, ck->comm, PETSC_ERR_FILE_UNEXPECTED, "Cannot restart from %s: reading its %s failed (the file is truncated or damaged)", path, stage == 1 ? "header" : "state vectors");
  PetscCheck(!problem[0], ck->comm, PETSC_ERR_ARG_INCOMP, "Cannot restart from %s: %s", path, problem);
  for (i = 0; i < h.nvec; i++) {
    uint64_t sum;
    PetscCall(VecChecksum(ck->vec[i], &sum));
    PetscCheck(sum == h.sum[i], ck->comm, PETSC_ERR_FILE_UNEXPECTED, "Cannot restart from %s: the data of /checkpoint/%s do not match their checksum (the file is corrupted)", path, MechCkptVecNames[i]);
  }

  PetscCall(TSMechSchemeSet(ts, &h.tsp));
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
  ck->balflags       = h.balflags;
  for (PetscInt i = 0; i < 4; i++) ck->balacc[i] = h.balacc[i];
  ck->last_step = h.step;
  ck->last_time = h.time;
  PetscFunctionReturn(0);
}

/*
  The start of the last step of a type that keeps it: TSMechLoadHistory() records the velocity
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
  PetscCall(TSMechLoadHistory(ts, vprev));
  ts->ptime     = t;
  ts->time_step = dt;
  if (save) {
    PetscCall(VecCopy(save, qs));
    PetscCall(VecDestroy(&save));
  }
  PetscFunctionReturn(0);
}

/*@C
  MechCheckpointRestore - Gives ts the state of the checkpoint loaded with `MechCheckpointLoad()`.

  Collective

  Input Parameters:
+ ck   - the checkpointer
. ts   - the TS, after `TSSetFromOptions()`
. q    - a vector of the system's layout (`MechSystemCreateState()`): it receives the position
         and is given to ts with `TSMechSetSolution()`
- v    - the same for the velocity

  Level: intermediate

  Notes:
  Sets the time, step number, dt (the next step's, as the interrupted run had chosen it; it
  overrides -ts_dt, except for a checkpoint written after a failed step, whose dt failed: then a
  -ts_dt given wins, with a note), the iteration and rejection counters, the TSAdapt's counter and, for the
  theta2 family, the start of the last step. With the same TS settings and a deterministic
  solver configuration the run then continues bit for bit on the same number of ranks.
  Types whose history cannot be restored (TSALPHA2's acceleration, multistep and FSAL methods)
  are restarted (TSRestartStep()) as at a first step: they continue correctly, not bit for bit.
  Prints a note on stdout for each TS setting that differs from the checkpoint's.

.seealso: `MechCheckpointLoad()`, `MechCheckpointWrite()`, `TSMechSetSolution()`, `MechOutputContinue()`
@*/
PetscErrorCode MechCheckpointRestore(MechCheckpoint ck, TS ts, Vec q, Vec v)
{
  TSMechScheme now;
  PetscBool    history;
  char         diff[2048];

  PetscFunctionBegin;
  PetscValidPointer(ck, 1);
  PetscValidHeaderSpecific(ts, TS_CLASSID, 2);
  PetscCheck(ck->loaded, ck->comm, PETSC_ERR_ARG_WRONGSTATE, "No checkpoint loaded: call MechCheckpointLoad() first");
  PetscCall(TSMechSchemeGet(ts, &now));
  PetscCall(TSMechSchemeDiff(&ck->tsp, &now, diff, sizeof(diff)));
  if (diff[0]) PetscCall(PetscPrintf(ck->comm, "tsmech: note: this run continues %s with %s: not the integrator of the interrupted run\n", ck->path, diff));

  {
    /* exact: the theta2 family, whose history the checkpoint holds, and one-step types without
       history at fixed steps; the others restart as at a first step (TSRestartStep() below) */
    PetscBool        exact, none;
    TSMechProperties p;

    /* automatic incrementation keeps its state in what a checkpoint holds (dt and its counter) */
    PetscCall(PetscObjectTypeCompareAny((PetscObject)ts->adapt, &none, TSADAPTNONE, TSADAPTINCREMENT, ""));
    PetscCall(TSMechSchemeRestartsExactly(ts, none, &exact));
    PetscCall(TSMechGetProperties(ts, &p));
    if (!exact) PetscCall(PetscPrintf(ck->comm, "tsmech: note: %s with the %s step-size controller keeps history that a checkpoint does not hold: it restarts from %s as at a first step, so the run continues correctly but not bit for bit as the uninterrupted run\n", now.type, now.adapt, ck->path));
    else if (p.restartnote[0]) PetscCall(PetscPrintf(ck->comm, "tsmech: note: %s at the state of %s, so the run continues to the solver tolerances, not bit for bit as the uninterrupted run\n", p.restartnote, ck->path));
  }

  for (PetscInt i = 0; i < MECH_CKPT_NVEC; i++) PetscCall(MechIOPermute(ck->sys, ck->vec[i], SCATTER_REVERSE));
  PetscCall(VecCopy(ck->vec[0], q));
  PetscCall(VecCopy(ck->vec[1], v));
  /* the time first: TSMechSetSolution() puts prescribed motions where they are at that time */
  PetscCall(TSSetStepNumber(ts, ck->step));
  PetscCall(TSSetTime(ts, ck->time));
  PetscCall(TSSetTimeStep(ts, ck->dt));
  PetscCall(TSMechSetSolution(ts, q, v));
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
  PetscCall(MechCkptKeepsHistory(ts, &history));
  if (history && ck->hasvprev && ck->tsp.family == now.family) {
    PetscCall(RestorePrevious(ts, ck->time, ck->dt, ck->tprev, ck->hasqprev ? ck->vec[3] : NULL, ck->vec[2]));
    if (ck->hasqprev) PetscCall(MechCkptTrackerRecord(ck->tr, ck->step - 1, ck->tprev, ck->vec[3]));
  } else if (!history) {
    PetscCall(TSRestartStep(ts));
  }
  if (ck->hasvprev) ts->ptime_prev = ck->tprev;
  ts->snes_its          = ck->snes_its;
  ts->ksp_its           = ck->ksp_its;
  ts->reject            = ck->reject;
  ts->num_snes_failures = ck->snes_failures;
  PetscCall(MechCkptRestoreBalance(ck, ts));
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
