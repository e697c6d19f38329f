/*
  The continuation of an HDF5 output after a restart (MechOutputContinue()): the existing file is
  inspected read-only and checked strictly (h5read.c) against this run and the restart's step,
  and only opened for writing, and cut back to that step, at the first new record
  (MechOutputEnsureOpen(), output.c).
*/
#define _POSIX_C_SOURCE 200809L
#include <petsc/private/viewerhdf5impl.h> /* PetscCallHDF5(); first, as it must precede <hdf5.h> */
#include "outputimpl.h"
#include <string.h>

#if defined(PETSC_HAVE_HDF5)

/* Reads the first n entries of the 1-D dataset path into data (every rank reads them) */
static PetscErrorCode ReadSeries(hid_t fileid, const char path[], hid_t memtype, PetscInt n, void *data)
{
  hid_t   dset, filespace, memspace;
  hsize_t start = 0, count;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(0);
  PetscCall(PetscHDF5IntCast(n, &count));
  PetscCallHDF5Return(dset, H5Dopen2, (fileid, path, H5P_DEFAULT));
  PetscCallHDF5Return(filespace, H5Dget_space, (dset));
  PetscCallHDF5(H5Sselect_hyperslab, (filespace, H5S_SELECT_SET, &start, NULL, &count, NULL));
  PetscCallHDF5Return(memspace, H5Screate_simple, (1, &count, NULL));
  PetscCallHDF5(H5Dread, (dset, memtype, memspace, filespace, H5P_DEFAULT, data));
  PetscCallHDF5(H5Sclose, (memspace));
  PetscCallHDF5(H5Sclose, (filespace));
  PetscCallHDF5(H5Dclose, (dset));
  PetscFunctionReturn(0);
}

/* What ContinueInspect() finds in an output file to be continued at a step */
typedef struct {
  PetscInt   nrec;     /* /monitor records kept: steps first .. step */
  PetscInt   nsnap;    /* snapshots kept */
  PetscReal *snaptime; /* their times and steps */
  PetscInt  *snapstep;
  PetscInt   restarts;      /* the file's restart count */
  char       problem[1024]; /* why the file cannot be continued ("" if it can) */
} ContinueInfo;

/* The group `name` of the file, or -1 with a problem if it is missing or not a group */
static PetscErrorCode OpenGroup(hid_t fileid, const char name[], hid_t *group, char problem[], size_t len)
{
  htri_t     e;
  hid_t      obj;
  H5I_type_t type = H5I_BADID;

  PetscFunctionBegin;
  *group = -1;
  PetscCallHDF5Return(e, H5Lexists, (fileid, name, H5P_DEFAULT));
  if (e) {
    PetscCallHDF5Return(obj, H5Oopen, (fileid, name, H5P_DEFAULT));
    PetscCallHDF5Return(type, H5Iget_type, (obj));
    PetscCallHDF5(H5Oclose, (obj));
  }
  if (type != H5I_GROUP) PetscCall(PetscSNPrintf(problem, len, "it has no group %s", name));
  else PetscCallHDF5Return(*group, H5Gopen2, (fileid, name, H5P_DEFAULT));
  PetscFunctionReturn(0);
}

/* The file's size and root attributes: the model, its parameters and text parameters, the
   snapshot interval every of the interrupted run (this run's if the file has none) and its count
   of restarts */
static PetscErrorCode ContinueInspectRoot(MechOutput out, hid_t fileid, PetscInt *every, ContinueInfo *info)
{
  hid_t              root = -1;
  const char        *model;
  char               fmodel[256], *problem = info->problem;
  size_t             plen = sizeof(info->problem);
  const char *const *pnames;
  const PetscReal   *pvalues;
  PetscInt           np, i;
  int64_t            v;
  PetscBool          has;

  PetscFunctionBegin;
  *every     = out->every;
  problem[0] = 0;
  {
    haddr_t eoa;
    hsize_t size;

    /* the end of the file its superblock gives is where the continuation's writes go: within
       the file (a file killed after a flush may have bytes beyond it, which nothing refers to) */
    PetscCallHDF5(H5Fget_eoa, (fileid, &eoa));
    PetscCallHDF5(H5Fget_filesize, (fileid, &size));
    if (eoa > size) {
      PetscCall(PetscSNPrintf(problem, plen, "its superblock gives it %llu bytes, it has %llu (the file is truncated or damaged)", (unsigned long long)eoa, (unsigned long long)size));
      PetscFunctionReturn(0);
    }
  }
  PetscCallHDF5Return(root, H5Gopen2, (fileid, "/", H5P_DEFAULT));
  /* the model and its parameters */
  PetscCall(MechSystemGetModelName(out->sys, &model));
  if (!model) model = "user";
  PetscCall(MechIOReadAttribute(root, "/", "model", MECH_IO_ATTR_STRING, fmodel, sizeof(fmodel), &has, problem, plen));
  if (!problem[0] && !has) PetscCall(PetscSNPrintf(problem, plen, "it is not a tsmech output file (no attribute /model)"));
  if (!problem[0] && strcmp(fmodel, model)) PetscCall(PetscSNPrintf(problem, plen, "it holds a run of model %s, this run is model %s", fmodel, model));
  PetscCall(MechSystemGetParameters(out->sys, &np, &pnames, &pvalues));
  for (i = 0; i < np && !problem[0]; i++) {
    char   name[256];
    double value = 0;

    PetscCall(MechOutputParameterAttributeName(pnames[i], name, sizeof(name)));
    PetscCall(MechIOReadAttribute(root, "/", name, MECH_IO_ATTR_REAL, &value, 0, &has, problem, plen));
    if (problem[0]) break;
    if (!has) PetscCall(PetscSNPrintf(problem, plen, "it lacks the model parameter %s", pnames[i]));
    else if (!(value == pvalues[i])) PetscCall(PetscSNPrintf(problem, plen, "it holds a run with %s = %.17g, this run has %s = %.17g", pnames[i], value, pnames[i], (double)pvalues[i]));
  }
  /* the text parameters (a material's name, ...) */
  if (!problem[0]) PetscCall(MechOutputCheckTextParameters(out->sys, root, problem, plen));
  /* the snapshot interval of the interrupted run, and the count of continuations */
  if (!problem[0]) PetscCall(MechIOReadAttribute(root, "/", "every", MECH_IO_ATTR_INT, &v, 0, &has, problem, plen));
  if (!problem[0] && has) {
    if (v < 0 || v > PETSC_MAX_INT) PetscCall(PetscSNPrintf(problem, plen, "its attribute /every = %lld is not a snapshot interval (the file is damaged)", (long long)v));
    else *every = (PetscInt)v;
  }
  info->restarts = 0;
  if (!problem[0]) PetscCall(MechIOReadAttribute(root, "/", "restarts", MECH_IO_ATTR_INT, &v, 0, &has, problem, plen));
  if (!problem[0] && has) {
    if (v < 0 || v >= PETSC_MAX_INT) PetscCall(PetscSNPrintf(problem, plen, "its attribute /restarts = %lld is not a count of restarts (the file is damaged)", (long long)v));
    else info->restarts = (PetscInt)v;
  }
  PetscCallHDF5(H5Gclose, (root));
  PetscFunctionReturn(0);
}

/* /monitor: its records (and the system's per-step records) up to the restart step; first, the
   step of its first record, and times, the times of its records (freed by the caller; NULL with a
   problem) */
static PetscErrorCode ContinueInspectMonitor(MechOutput out, hid_t fileid, PetscInt step, PetscReal t, ContinueInfo *info, PetscInt *first, PetscReal **times_out)
{
  hid_t      monitor = -1;
  char      *problem = info->problem;
  size_t     plen    = sizeof(info->problem);
  PetscInt   i, j;
  hsize_t    nrows = 0, rows, dims[5];
  int64_t   *steps = NULL;
  PetscReal *times = NULL;
  PetscBool  has;

  PetscFunctionBegin;
  *first     = 0;
  *times_out = NULL;
  /* /monitor: the complete records (a run killed during a flush may leave columns of unequal
     length) must be consecutive steps and reach the restart step */
  PetscCall(OpenGroup(fileid, "/monitor", &monitor, problem, plen));
  for (j = 0; j < out->nreal + MECH_OUTPUT_NINT && !problem[0]; j++) {
    const char *name = j < MECH_OUTPUT_NREAL ? MechOutputRealNames[j] : (j < out->nreal ? out->invname[j - MECH_OUTPUT_NREAL] : MechOutputIntNames[j - out->nreal]);

    PetscCall(MechIOCheckDataset(monitor, "/monitor", name, j < out->nreal ? H5T_IEEE_F64LE : H5T_STD_I64LE, 1, dims, PETSC_TRUE, &rows, &has, problem, plen));
    if (!problem[0] && !has) PetscCall(PetscSNPrintf(problem, plen, "it has no dataset /monitor/%s", name));
    nrows = j ? PetscMin(nrows, rows) : rows;
  }
  if (monitor >= 0) PetscCallHDF5(H5Gclose, (monitor));
  /* the system's per-step records (outputrecords.c) */
  if (!problem[0]) PetscCall(MechOutputRecordsInspect(out, fileid, nrows, problem, plen));
  if (problem[0]) PetscFunctionReturn(0);
  if (nrows == 0) {
    PetscCall(PetscSNPrintf(problem, plen, "its /monitor is empty: the run continues from step %" PetscInt_FMT " and the steps before would be missing", step));
    PetscFunctionReturn(0);
  }
  PetscCheck(nrows < (hsize_t)PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "The /monitor of the file has %llu records", (unsigned long long)nrows);
  PetscCall(PetscMalloc1(nrows, &steps));
  PetscCall(PetscMalloc1(nrows, &times));
  PetscCall(ReadSeries(fileid, "/monitor/step", H5T_NATIVE_INT64, (PetscInt)nrows, steps));
  PetscCall(ReadSeries(fileid, "/monitor/time", H5T_NATIVE_DOUBLE, (PetscInt)nrows, times));
  for (i = 1; i < (PetscInt)nrows; i++)
    if (steps[i] != steps[0] + i) break;
  if (steps[0] < 0 || steps[0] + (int64_t)nrows > PETSC_MAX_INT) {
    PetscCall(PetscSNPrintf(problem, plen, "its /monitor/step starts at step %lld (the file is damaged)", (long long)steps[0]));
  } else if (i < (PetscInt)nrows) {
    PetscCall(PetscSNPrintf(problem, plen, "its /monitor/step is not consecutive (step %lld follows step %lld)", (long long)steps[i], (long long)steps[i - 1]));
  } else if (step < steps[0] || step > steps[0] + (int64_t)nrows - 1) {
    PetscCall(PetscSNPrintf(problem, plen, "its /monitor covers steps %lld to %lld and the run continues from step %" PetscInt_FMT ": %s", (long long)steps[0], (long long)(steps[0] + (int64_t)nrows - 1), step, step > steps[0] ? "the steps in between would be missing" : "it starts after that step"));
  } else if (!(PetscAbsReal(times[step - steps[0]] - t) <= 1e-12 * PetscMax(1, PetscAbsReal(t)))) {
    PetscCall(PetscSNPrintf(problem, plen, "its step %" PetscInt_FMT " is at t = %.17g, the checkpoint's at t = %.17g: they are not the same run", step, (double)times[step - steps[0]], (double)t));
  }
  *first     = problem[0] ? 0 : (PetscInt)steps[0];
  info->nrec = step - *first + 1;
  PetscCall(PetscFree(steps));
  if (problem[0]) PetscCall(PetscFree(times));
  *times_out = times;
  PetscFunctionReturn(0);
}

/* /fields: the snapshots kept, those before the restart step (and at it if it is a regular
   snapshot step), checked against /monitor's steps from first at times */
static PetscErrorCode ContinueInspectFields(MechOutput out, hid_t fileid, PetscInt step, PetscInt every, PetscInt first, const PetscReal times[], ContinueInfo *info)
{
  hid_t     fields  = -1;
  char     *problem = info->problem;
  size_t    plen    = sizeof(info->problem);
  PetscInt  i, j, nsnap;
  hsize_t   nrows     = 0, rows;
  int64_t  *snapsteps = NULL, v;
  PetscBool has;
  htri_t    e;
  int       ndims;

  PetscFunctionBegin;
  /* /fields: complete snapshots (q, v, time and step all written) of this run's shape */
  info->nsnap = 0;
  PetscCallHDF5Return(e, H5Lexists, (fileid, "/fields", H5P_DEFAULT));
  if (e) PetscCall(OpenGroup(fileid, "/fields", &fields, problem, plen));
  if (fields >= 0 && !problem[0]) PetscCallHDF5Return(e, H5Lexists, (fields, "step", H5P_DEFAULT));
  if (fields >= 0 && !problem[0] && e) {
    hsize_t sdims[5];
    int     vdims;

    /* time, step, then the vectors VecView() appends a snapshot to, [unlimited, the vector's
       shape]: q, v and the per-cell fields (MechSystemSetCellFields()) */
    for (j = 0; j < 4 + out->ncf && !problem[0]; j++) {
      const char *name;
      char        full[PETSC_MAX_PATH_LEN];
      Vec         x = NULL;

      if (j == 2) x = out->q;
      else if (j == 3) x = out->v;
      else if (j > 3) x = out->cf[j - 4];
      if (x) PetscCall(PetscObjectGetName((PetscObject)x, &name));
      else name = j ? "step" : "time";
      ndims = 1;
      if (x) {
        PetscCall(MechIOVecDims(x, &vdims, sdims + 1));
        ndims = vdims + 1;
      }
      PetscCall(MechIOCheckDataset(fields, "/fields", name, j == 1 ? H5T_STD_I64LE : H5T_IEEE_F64LE, ndims, sdims, PETSC_TRUE, &rows, &has, problem, plen));
      if (!problem[0] && !has) PetscCall(PetscSNPrintf(problem, plen, "it has no dataset /fields/%s%s", name, j > 3 ? " (the output of a tsmech without per-cell fields, or of another model)" : ""));
      if (!problem[0] && x) {
        hid_t dset;

        /* PETSc's VecView() reads it before it appends */
        PetscCall(PetscSNPrintf(full, sizeof(full), "/fields/%s", name));
        PetscCallHDF5Return(dset, H5Dopen2, (fields, name, H5P_DEFAULT));
        PetscCall(MechIOReadAttribute(dset, full, "timestepping", MECH_IO_ATTR_INT, &v, 0, NULL, problem, plen));
        PetscCallHDF5(H5Dclose, (dset));
        if (!problem[0] && v != 1) PetscCall(PetscSNPrintf(problem, plen, "its attribute /fields/%s/timestepping = %lld is not 1 (the file is damaged)", name, (long long)v));
      }
      nrows = j ? PetscMin(nrows, rows) : rows;
    }
    if (!problem[0]) {
      PetscCheck(nrows < (hsize_t)PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "The /fields of the file have %llu snapshots", (unsigned long long)nrows);
      nsnap = (PetscInt)nrows;
      PetscCall(PetscMalloc1(PetscMax(nsnap, 1), &snapsteps));
      PetscCall(PetscMalloc1(PetscMax(nsnap, 1), &info->snapstep));
      PetscCall(PetscMalloc1(PetscMax(nsnap, 1), &info->snaptime));
      PetscCall(ReadSeries(fileid, "/fields/step", H5T_NATIVE_INT64, nsnap, snapsteps));
      PetscCall(ReadSeries(fileid, "/fields/time", H5T_NATIVE_DOUBLE, nsnap, info->snaptime));
      /* the last snapshot of an interrupted run is at the restart step; the uninterrupted run
         has one there only if it is a regular snapshot step. The ones kept are steps of
         /monitor, increasing, at its times. */
      for (i = 0; i < nsnap; i++) {
        int64_t s = snapsteps[i];

        if (s > step || (s == step && i > 0 && !(every > 0 && step % every == 0))) break;
        if (s < first || (i > 0 && s <= snapsteps[i - 1])) {
          PetscCall(PetscSNPrintf(problem, plen, "its /fields/step holds step %lld at snapshot %" PetscInt_FMT ", not a later step of /monitor (the file is damaged)", (long long)s, i));
          break;
        }
        if (!(info->snaptime[i] == times[s - first])) {
          PetscCall(PetscSNPrintf(problem, plen, "its snapshot %" PetscInt_FMT " (step %lld) is at t = %.17g, /monitor/time at t = %.17g (the file is damaged)", i, (long long)s, (double)info->snaptime[i], (double)times[s - first]));
          break;
        }
        info->snapstep[i] = (PetscInt)s;
      }
      info->nsnap = i;
    }
  }
  if (fields >= 0) PetscCallHDF5(H5Gclose, (fields));
  PetscCall(PetscFree(snapsteps));
  PetscFunctionReturn(0);
}

/*
  Reads an existing output file (opened read-only) and decides what is kept when the run
  continues from step `step` at time t: /monitor records up to that step, snapshots before it
  (and at it if it is a regular snapshot step, not only the last snapshot of the interrupted run).
  Everything the continuation reads or appends to is checked first: the attributes model, the
  model parameters and text parameters, every and restarts (their datatypes exactly, their values
  against this run or their ranges), the datasets of /monitor and /fields (datatype, chunked and
  extendible, the shape of a snapshot, the attribute timestepping of q, v and the per-cell
  fields), the steps (consecutive) and times
  (finite, the snapshots' those of /monitor). A file that is damaged, cannot be continued
  without a gap, or belongs to another model, size or run, gets a reason in info->problem.
  Not collective: every rank reads the same and decides the same.
*/
static PetscErrorCode ContinueInspect(MechOutput out, hid_t fileid, PetscInt step, PetscReal t, ContinueInfo *info)
{
  PetscInt   every, first;
  PetscReal *times;

  PetscFunctionBegin;
  info->problem[0] = 0;
  info->nsnap      = 0;
  PetscCall(ContinueInspectRoot(out, fileid, &every, info));
  if (info->problem[0]) PetscFunctionReturn(0);
  PetscCall(ContinueInspectMonitor(out, fileid, step, t, info, &first, &times));
  if (info->problem[0]) PetscFunctionReturn(0);
  PetscCall(ContinueInspectFields(out, fileid, step, every, first, times, info));
  PetscCall(PetscFree(times));
  PetscFunctionReturn(0);
}

/*@C
  MechOutputContinue - Continues the HDF5 output of an interrupted run after a restart: opens
  the existing file, removes what follows the restart step (the run recomputes it) and appends
  from there, so /monitor holds every step exactly once.

  Collective

  Input Parameters:
+ sys      - the system (NULL: the one attached to ts)
. ts       - the TS, restored from the checkpoint (its step number and time are the restart's)
. filename - the output file of the interrupted run; if it does not exist, a new one is created
             (`MechOutputCreate()`) whose /monitor starts at the restart step
- every    - snapshot interval in steps, as for `MechOutputCreate()`

  Output Parameter:
. out - the output; record, close and destroy it as one of `MechOutputCreate()`

  Level: intermediate

  Notes:
  Kept: the /monitor records up to and including the restart step (consecutive steps, reaching
  the restart step: the checkpoint writer flushes the output first, see `MechOutputFlush()`), the
  snapshots before the restart step and the one at it if it is a multiple of the file's `every`
  (the extra last snapshot an interrupted run writes at its last step is removed; the per-cell
  fields are cut with q and v). Refused, before anything in the file is changed: a file that is
  not a tsmech output, of another model, model parameters, text parameters or state size,
  without the system's per-cell fields or with other shapes of them, whose /monitor does not
  reach the restart step (the steps in between would be missing) or whose time at the restart
  step differs from the TS's.
  The attribute /restarts counts the continuations; ts_type and the integrator's parameters
  (gauss2_stages, theta, ...) become the continuing run's (those of another family are removed);
  the other attributes of / are the first run's. The file is changed (cut back and its count raised) only when the first new record is
  written, so a run that fails at its first step leaves it as it was.

.seealso: `MechOutputCreate()`, `MechOutputFlush()`, `MechCheckpointLoad()`, `MechCheckpointRestore()`
@*/
PetscErrorCode MechOutputContinue(MechSystem sys, TS ts, const char filename[], PetscInt every, MechOutput *outp)
{
  MPI_Comm       comm;
  PetscMPIInt    rank;
  MechOutput     out;
  PetscErrorCode ierr;
  PetscBool      exists = PETSC_FALSE, ok;
  hid_t          fileid;
  ContinueInfo   info;
  PetscInt       step;
  PetscReal      t;
  H5E_auto2_t    efunc;
  void          *edata;

  PetscFunctionBegin;
  PetscCall(MechOutputCheckArguments(&sys, ts, filename, outp, "MechOutputContinue", &comm, &rank));
  if (rank == 0) PetscCall(PetscTestFile(filename, 'r', &exists));
  PetscCallMPI(MPI_Bcast(&exists, 1, MPIU_BOOL, 0, comm));
  if (!exists) {
    PetscCall(MechOutputCreate(sys, ts, filename, every, outp));
    PetscFunctionReturn(0);
  }
  PetscCall(TSGetStepNumber(ts, &step));
  PetscCall(TSGetTime(ts, &t));
  PetscCall(MechOutputNew(comm, rank, sys, every, filename, &out));

  /* inspect the file read-only, each rank by itself (MechIOOpenReadOnly()); HDF5's own error
     stack is silenced meanwhile; the ranks agree on the outcome */
  PetscCall(PetscMemzero(&info, sizeof(info)));
  PetscCallHDF5(H5Eget_auto2, (H5E_DEFAULT, &efunc, &edata));
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, NULL, NULL));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  fileid = MechIOOpenReadOnly(filename);
  ierr   = fileid < 0 ? PETSC_ERR_FILE_OPEN : ContinueInspect(out, fileid, step, t, &info);
  ok     = ierr ? PETSC_FALSE : PETSC_TRUE;
  if (fileid >= 0) {
    /* a read that failed midway leaves objects open, which would keep the file open */
    MechIOCloseObjects(fileid);
    (void)H5Fclose(fileid);
  }
  PetscCall(PetscPopErrorHandler());
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, efunc, edata));
  PetscCall(MechIOAgreeProblem(comm, &ok, info.problem, sizeof(info.problem)));
  if (!ok || info.problem[0]) {
    PetscCall(MechIOQuietExit());
    (void)PetscFree(info.snaptime);
    (void)PetscFree(info.snapstep);
    (void)MechOutputFree(out);
    PetscCheck(ok, comm, PETSC_ERR_FILE_UNEXPECTED, "Cannot continue the output file %s: it cannot be read as a tsmech HDF5 output (damaged or not HDF5); nothing was changed. Give another -output", filename);
    SETERRQ(comm, PETSC_ERR_ARG_INCOMP, "Cannot continue the output file %s from step %" PetscInt_FMT ": %s. Nothing was changed; give another -output", filename, step, info.problem);
  }

  /* opened for writing, and cut back to the restart step, when the first new record is
     written (MechOutputEnsureOpen()): a run that fails before leaves the file as it was */
  out->pending          = PETSC_TRUE;
  out->pending_nrec     = info.nrec;
  out->pending_nsnap    = info.snapstep ? info.nsnap : -1;
  out->pending_restarts = info.restarts + 1;
  {
    TSMechScheme *scheme;

    PetscCall(PetscNew(&scheme));
    PetscCall(TSMechSchemeGet(ts, scheme));
    out->pending_scheme = scheme;
  }

  /* the records up to the restart step are in the file; the next one is step + 1 */
  out->nrec     = info.nrec;
  out->nflushed = info.nrec;
  out->base     = info.nrec;
  out->laststep = step;
  out->lasttime = t;
  PetscCall(TSGetSNESIterations(ts, &out->lastsnes));
  PetscCall(TSGetKSPIterations(ts, &out->lastksp));
  out->nsnap    = info.nsnap;
  out->maxsnap  = info.nsnap;
  out->snaptime = info.snaptime;
  out->snapstep = info.snapstep;
  *outp         = out;
  PetscFunctionReturn(0);
}

#endif
