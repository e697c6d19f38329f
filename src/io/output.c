/*
  HDF5 output of a run: per-step scalars in /monitor, snapshots of (q, v) in /fields, the run's
  metadata as attributes of /, and for 2-D and 3-D grid models an XDMF file for ParaView. The
  layout is documented in the README (section "HDF5 output").

  Fields are written by all ranks through PetscViewerHDF5 (VecView with timestepping), so the file
  does not depend on the number of ranks: a DMDA vector is stored in natural ordering with the
  grid's shape. The per-step scalars are identical on all ranks (energies and invariants are
  reductions); rank 0 keeps them in memory and they are written when a snapshot is written and
  at close, by extending one-dimensional datasets. PETSc has no API for such growing 1-D series,
  so they are written with raw HDF5 calls on the viewer's file; everything else goes through the
  viewer. Every snapshot ends with a flush of the file, so a run killed mid-way leaves a readable
  file whose /monitor covers the steps up to its last snapshot.

  A new file is written under a temporary name, FILE.tmp-<pid>, and renamed to FILE when the
  first completed step is recorded (or at the close): a run that fails or is killed before its
  first step leaves an existing FILE as it was. A continued file (MechOutputContinue()) is only
  opened for writing, and cut back to the restart step, when the first new record is written.
*/
#define _POSIX_C_SOURCE 200809L
#include <petsc/private/viewerhdf5impl.h> /* PetscCallHDF5(); first, as it must precede <hdf5.h> */
#include <petsc/private/petscimpl.h>
#include <petscdmda.h>
#include "outputimpl.h"
#include "../ts/scheme.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MECH_OUTPUT_NREAL 5 /* time, dt, kinetic, potential, energy; the invariants follow */
#define MECH_OUTPUT_NINT  3 /* step, snes_its, ksp_its */

static const char *const MechOutputRealNames[MECH_OUTPUT_NREAL] = {"time", "dt", "kinetic", "potential", "energy"};
static const char *const MechOutputIntNames[MECH_OUTPUT_NINT]   = {"step", "snes_its", "ksp_its"};

struct _n_MechOutput {
  MechSystem  sys;
  PetscViewer viewer; /* NULL once closed */
  MPI_Comm    comm;
  MPI_Comm    agree; /* a duplicate of comm for MechIOAgree() only */
  PetscMPIInt rank;
  char       *h5path, *xmfpath, *h5name; /* h5name: the .h5 relative to the .xmf */
  char       *tmppath;                   /* a new file's temporary name until it is renamed, else NULL */
  PetscInt    every;
  PetscBool   failed;       /* a write failed: nothing more is written, the file is closed as it is */
  char        failmsg[512]; /* why */
  PetscInt    flushstep;    /* the step of the last record in the file, -1 if none */

  /* a continued file, not opened for writing yet (MechOutputContinue()): the records and
     snapshots to keep and the new restart count */
  PetscBool pending;
  PetscInt  pending_nrec, pending_nsnap, pending_restarts;

  Vec      q, v;     /* the state copied out of the TS; DMDA global vectors for grid models */
  PetscInt dim;      /* dimension of the system's DMDA, 0 without one */
  PetscInt shape[4]; /* one snapshot, slowest first: [(P,) (N,) M, dof] */

  /* /monitor: one record per step; the values are kept on rank 0 only, the counts everywhere.
     Rank 0 holds records [base, nrec) in memory (base > 0 for an output continued after a
     restart: the records before it are in the file only). */
  PetscInt    nrec, maxrec, nflushed, base;
  PetscInt    nreal;  /* MECH_OUTPUT_NREAL + number of invariants */
  PetscReal **real;   /* nreal columns */
  PetscReal  *invval; /* work: the invariants of one record */
  PetscInt   *ints[MECH_OUTPUT_NINT];
  char      **invname;
  PetscInt    laststep;
  PetscReal   lasttime;
  PetscInt    lastsnes, lastksp; /* the cumulative TS counters at the previous record */

  /* /fields: snapshot times and steps (on every rank) */
  PetscInt   nsnap, maxsnap;
  PetscReal *snaptime;
  PetscInt  *snapstep;
};

#if defined(PETSC_HAVE_HDF5)

/*
  Writes entries [from, n) of the 1-D dataset group/name, created chunked and unlimited on first
  use and extended afterwards, so each flush only appends. Collective: dataset creation and
  extension are collective in parallel HDF5; only rank 0's data are read: data points to entry
  `from` (n - from values).
*/
static PetscErrorCode WriteSeries(MechOutput out, const char group[], const char name[], hid_t memtype, hid_t filetype, PetscInt from, PetscInt n, const void *data)
{
  hid_t   fileid, groupid, dset, filespace, memspace, dcpl;
  hsize_t dims, maxdims = H5S_UNLIMITED, chunk = 256, start, count;
  htri_t  exists = 0;

  PetscFunctionBegin;
  PetscCall(PetscHDF5IntCast(n, &dims));
  PetscCall(PetscViewerHDF5OpenGroup(out->viewer, group, &fileid, &groupid));
  PetscCallHDF5Return(exists, H5Lexists, (groupid, name, H5P_DEFAULT));
  if (!exists) {
    PetscCallHDF5Return(filespace, H5Screate_simple, (1, &dims, &maxdims));
    PetscCallHDF5Return(dcpl, H5Pcreate, (H5P_DATASET_CREATE));
    PetscCallHDF5(H5Pset_chunk, (dcpl, 1, &chunk));
    PetscCallHDF5Return(dset, H5Dcreate2, (groupid, name, filetype, filespace, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    PetscCallHDF5(H5Pclose, (dcpl));
    PetscCallHDF5(H5Sclose, (filespace));
  } else {
    PetscCallHDF5Return(dset, H5Dopen2, (groupid, name, H5P_DEFAULT));
    PetscCallHDF5(H5Dset_extent, (dset, &dims));
  }
  if (n > from) {
    PetscCall(PetscHDF5IntCast(from, &start));
    PetscCall(PetscHDF5IntCast(n - from, &count));
    PetscCallHDF5Return(filespace, H5Dget_space, (dset));
    PetscCallHDF5Return(memspace, H5Screate_simple, (1, &count, NULL));
    if (out->rank == 0) {
      PetscCallHDF5(H5Sselect_hyperslab, (filespace, H5S_SELECT_SET, &start, NULL, &count, NULL));
    } else {
      PetscCallHDF5(H5Sselect_none, (filespace));
      PetscCallHDF5(H5Sselect_none, (memspace));
    }
    /* the other ranks select nothing and their data pointer is not read */
    PetscCallHDF5(H5Dwrite, (dset, memtype, memspace, filespace, H5P_DEFAULT, out->rank == 0 ? data : NULL));
    PetscCallHDF5(H5Sclose, (memspace));
    PetscCallHDF5(H5Sclose, (filespace));
  }
  PetscCallHDF5(H5Dclose, (dset));
  if (groupid != fileid) PetscCallHDF5(H5Gclose, (groupid));
  PetscFunctionReturn(0);
}

static PetscErrorCode EnsureOpen(MechOutput);

/* Writes of the file are guarded (see BeginWrite() and EndWrite()): HDF5's error reporting,
   saved while a write runs silenced */
typedef struct {
  H5E_auto2_t efunc;
  void       *edata;
} Quiet;
static PetscErrorCode BeginWrite(MechOutput, long long, Quiet *);
static PetscErrorCode EndWrite(MechOutput, Quiet *, PetscErrorCode);

/* The bytes of the /monitor records not yet in the file, and of one more */
static long long MonitorBytes(MechOutput out)
{
  return (long long)(out->nrec - out->nflushed + 1) * (out->nreal + MECH_OUTPUT_NINT) * 8;
}

/* Writes the /monitor records not yet in the file. Collective. */
static PetscErrorCode FlushMonitor(MechOutput out)
{
  hid_t    inttype, realtype;
  PetscInt j;

  PetscFunctionBegin;
  PetscCall(EnsureOpen(out));
  PetscCall(PetscDataTypeToHDF5DataType(PETSC_INT, &inttype));
  PetscCall(PetscDataTypeToHDF5DataType(PETSC_REAL, &realtype));
  for (j = 0; j < out->nreal; j++) {
    const char *name = j < MECH_OUTPUT_NREAL ? MechOutputRealNames[j] : out->invname[j - MECH_OUTPUT_NREAL];
    PetscCall(WriteSeries(out, "/monitor", name, realtype, H5T_IEEE_F64LE, out->nflushed, out->nrec, out->rank == 0 && out->nrec > out->nflushed ? out->real[j] + (out->nflushed - out->base) : NULL));
  }
  for (j = 0; j < MECH_OUTPUT_NINT; j++) PetscCall(WriteSeries(out, "/monitor", MechOutputIntNames[j], inttype, H5T_STD_I64LE, out->nflushed, out->nrec, out->rank == 0 && out->nrec > out->nflushed ? out->ints[j] + (out->nflushed - out->base) : NULL));
  out->nflushed = out->nrec;
  if (out->nrec) out->flushstep = out->laststep;
  PetscFunctionReturn(0);
}

/* Appends the snapshot (out->q, out->v) of the given step and time to /fields, then brings
   /monitor up to date and flushes the file. Collective. */
static PetscErrorCode WriteSnapshotData(MechOutput out, PetscInt step, PetscReal t)
{
  hid_t fileid, inttype, realtype;

  PetscFunctionBegin;
  PetscCall(EnsureOpen(out));
  if (out->nsnap == out->maxsnap) {
    out->maxsnap = PetscMax(64, 2 * out->maxsnap);
    PetscCall(PetscRealloc(out->maxsnap * sizeof(PetscReal), &out->snaptime));
    PetscCall(PetscRealloc(out->maxsnap * sizeof(PetscInt), &out->snapstep));
  }
  out->snaptime[out->nsnap] = t;
  out->snapstep[out->nsnap] = step;
  out->nsnap++;

  PetscCall(PetscViewerHDF5PushGroup(out->viewer, "/fields"));
  PetscCall(PetscViewerHDF5PushTimestepping(out->viewer));
  PetscCall(PetscViewerHDF5SetTimestep(out->viewer, out->nsnap - 1));
  PetscCall(VecView(out->q, out->viewer));
  PetscCall(VecView(out->v, out->viewer));
  PetscCall(PetscViewerHDF5PopTimestepping(out->viewer));
  PetscCall(PetscViewerHDF5PopGroup(out->viewer));
  /* time and step last: their length is the number of complete snapshots */
  PetscCall(PetscDataTypeToHDF5DataType(PETSC_INT, &inttype));
  PetscCall(PetscDataTypeToHDF5DataType(PETSC_REAL, &realtype));
  PetscCall(WriteSeries(out, "/fields", "time", realtype, H5T_IEEE_F64LE, out->nsnap - 1, out->nsnap, out->snaptime + out->nsnap - 1));
  PetscCall(WriteSeries(out, "/fields", "step", inttype, H5T_STD_I64LE, out->nsnap - 1, out->nsnap, out->snapstep + out->nsnap - 1));
  PetscCall(FlushMonitor(out));
  PetscCall(PetscViewerHDF5GetFileId(out->viewer, &fileid));
  PetscCallHDF5(H5Fflush, (fileid, H5F_SCOPE_GLOBAL));
  PetscFunctionReturn(0);
}

/* WriteSnapshotData() as one guarded write */
static PetscErrorCode WriteSnapshot(MechOutput out, PetscInt step, PetscReal t)
{
  Quiet    q;
  PetscInt N;

  PetscFunctionBegin;
  PetscCall(VecGetSize(out->q, &N));
  PetscCall(BeginWrite(out, 2LL * N * (long long)sizeof(PetscScalar) + MonitorBytes(out), &q));
  PetscCall(EndWrite(out, &q, WriteSnapshotData(out, step, t)));
  PetscFunctionReturn(0);
}

/* Writes the /monitor records not yet in the file and flushes the file. Collective. */
static PetscErrorCode FlushFileData(MechOutput out)
{
  hid_t fileid;

  PetscFunctionBegin;
  PetscCall(FlushMonitor(out));
  PetscCall(PetscViewerHDF5GetFileId(out->viewer, &fileid));
  PetscCallHDF5(H5Fflush, (fileid, H5F_SCOPE_GLOBAL));
  PetscFunctionReturn(0);
}

/* FlushFileData() as one guarded write */
static PetscErrorCode FlushFile(MechOutput out)
{
  Quiet q;

  PetscFunctionBegin;
  PetscCall(BeginWrite(out, MonitorBytes(out), &q));
  PetscCall(EndWrite(out, &q, FlushFileData(out)));
  PetscFunctionReturn(0);
}

/* Attributes of / that are not model parameters (besides the integrator's parameters,
   TSMechSchemeIsParameterName()): a parameter of one of these names is written as param_<name> */
static const char *const MechOutputReserved[] = {"model", "model_parameters", "ts_type", "dt", "nranks", "every", "tsmech_version", "petsc_version", "restarts"};

/* An integrator parameter (TSMechSchemeForEachParameter()) as an attribute of / */
static PetscErrorCode WriteSchemeParameter(void *ctx, const char name[], TSMechParamKind kind, void *value)
{
  PetscViewer viewer = (PetscViewer)ctx;

  PetscFunctionBegin;
  if (kind == TSMECH_PARAM_REAL) PetscCall(PetscViewerHDF5WriteAttribute(viewer, "/", name, PETSC_REAL, value));
  else if (kind == TSMECH_PARAM_FLAG) PetscCall(PetscViewerHDF5WriteAttribute(viewer, "/", name, PETSC_INT, value));
  else PetscCall(PetscViewerHDF5WriteAttribute(viewer, "/", name, PETSC_STRING, value));
  PetscFunctionReturn(0);
}

/* The name under which a model parameter is an attribute of / */
static PetscErrorCode ParameterAttributeName(const char pname[], char name[], size_t len)
{
  PetscBool flg = TSMechSchemeIsParameterName(pname);
  size_t    j;

  PetscFunctionBegin;
  for (j = 0; j < sizeof(MechOutputReserved) / sizeof(MechOutputReserved[0]) && !flg; j++) PetscCall(PetscStrcmp(pname, MechOutputReserved[j], &flg));
  PetscCall(PetscSNPrintf(name, len, "%s%s", flg ? "param_" : "", pname));
  PetscFunctionReturn(0);
}

/* The run's metadata as attributes of / */
static PetscErrorCode WriteHeader(MechOutput out, TS ts)
{
  const char        *model, *type;
  const char *const *pnames;
  const PetscReal   *pvalues;
  PetscInt           np, i, ival;
  PetscMPIInt        size;
  PetscReal          dt;
  TSMechScheme       scheme;
  char               version[256], *plist;
  size_t             len = 1;
  hid_t              fileid;

  PetscFunctionBegin;
  /* the groups and datasets in HDF5's newest object formats, whose metadata carry checksums that
     HDF5 verifies on reading: a damaged dataset description is refused by a continuation instead
     of being decoded (HDF5 1.10 can crash on a damaged one of the older formats) */
  PetscCall(PetscViewerHDF5GetFileId(out->viewer, &fileid));
  PetscCallHDF5(H5Fset_libver_bounds, (fileid, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST));
  PetscCall(MechSystemGetModelName(out->sys, &model));
  PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "model", PETSC_STRING, model ? model : "user"));
  /* model parameters, as double attributes under their own names; a name that a run attribute
     already uses gets the prefix param_. model_parameters lists the names as written. */
  PetscCall(MechSystemGetParameters(out->sys, &np, &pnames, &pvalues));
  for (i = 0; i < np; i++) {
    size_t l;
    PetscCall(PetscStrlen(pnames[i], &l));
    len += l + 8;
  }
  PetscCall(PetscCalloc1(len, &plist));
  for (i = 0; i < np; i++) {
    char name[256];

    PetscCall(ParameterAttributeName(pnames[i], name, sizeof(name)));
    PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", name, PETSC_REAL, &pvalues[i]));
    if (i) PetscCall(PetscStrlcat(plist, ",", len));
    PetscCall(PetscStrlcat(plist, name, len));
  }
  /* HDF5 refuses a zero-size string type: an empty list is stored as a single space */
  PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "model_parameters", PETSC_STRING, np ? plist : " "));
  PetscCall(PetscFree(plist));

  PetscCall(TSGetType(ts, &type));
  PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "ts_type", PETSC_STRING, type));
  PetscCall(TSGetTimeStep(ts, &dt));
  PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "dt", PETSC_REAL, &dt));
  PetscCallMPI(MPI_Comm_size(out->comm, &size));
  ival = size;
  PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "nranks", PETSC_INT, &ival));
  PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "every", PETSC_INT, &out->every));
  PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "tsmech_version", PETSC_STRING, TSMECH_VERSION));
  PetscCall(PetscGetVersion(version, sizeof(version)));
  PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "petsc_version", PETSC_STRING, version));

  /* the parameters of the integrator's family (none for the types outside the families) */
  PetscCall(TSMechSchemeGet(ts, &scheme));
  PetscCall(TSMechSchemeForEachParameter(&scheme, WriteSchemeParameter, out->viewer));
  PetscFunctionReturn(0);
}

/* Frees everything but closes nothing */
static PetscErrorCode MechOutputFree(MechOutput out)
{
  PetscInt j;

  PetscFunctionBegin;
  if (out->real) {
    for (j = 0; j < out->nreal; j++) PetscCall(PetscFree(out->real[j]));
  }
  PetscCall(PetscFree(out->real));
  for (j = 0; j < MECH_OUTPUT_NINT; j++) PetscCall(PetscFree(out->ints[j]));
  if (out->invname) {
    for (j = 0; j < out->nreal - MECH_OUTPUT_NREAL; j++) PetscCall(PetscFree(out->invname[j]));
  }
  PetscCall(PetscFree(out->invname));
  PetscCall(PetscFree(out->invval));
  PetscCall(PetscFree(out->snaptime));
  PetscCall(PetscFree(out->snapstep));
  PetscCall(VecDestroy(&out->q));
  PetscCall(VecDestroy(&out->v));
  PetscCall(MechSystemDestroy(&out->sys));
  PetscCall(PetscFree(out->h5path));
  PetscCall(PetscFree(out->tmppath));
  PetscCall(PetscFree(out->xmfpath));
  PetscCall(PetscFree(out->h5name));
  if (out->agree != MPI_COMM_NULL) PetscCallMPI(MPI_Comm_free(&out->agree));
  PetscCall(PetscFree(out));
  PetscFunctionReturn(0);
}

/*
  The state vectors. For a system on a DMDA they are global vectors of that DMDA, so VecView
  writes them in natural ordering with the grid's shape (and VecLoad reads them back on any
  number of ranks); the model's state must then have the DMDA's parallel layout (it lives on the
  DM: MechSystemSetDM()). Shared with the checkpoints (checkpoint.c).
*/
PetscErrorCode MechIOCreateStateVectors(MechSystem sys, Vec *q, Vec *v, PetscInt *dim, PetscInt shape[4])
{
  MPI_Comm  comm;
  DM        dm;
  PetscBool isda;
  Vec       q0, v0;
  PetscInt  n0, n, M, N, P, dof, bad, d = 0;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetComm((PetscObject)sys, &comm));
  PetscCall(MechSystemCreateState(sys, &q0, &v0));
  PetscCall(MechSystemGetDM(sys, &dm));
  isda = PETSC_FALSE;
  if (dm) PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (isda) {
    PetscCall(DMCreateGlobalVector(dm, q));
    PetscCall(VecGetLocalSize(q0, &n0));
    PetscCall(VecGetLocalSize(*q, &n));
    bad = n != n0;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_MAX, comm));
    if (bad) {
      PetscCall(VecDestroy(q));
      PetscCall(VecDestroy(&q0));
      PetscCall(VecDestroy(&v0));
      SETERRQ(comm, PETSC_ERR_ARG_INCOMP, "The state does not have the parallel layout of the system's DMDA (MechSystemSetDM()): it cannot be written on the grid");
    }
    PetscCall(DMDAGetInfo(dm, &d, &M, &N, &P, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
    n = 0;
    if (shape) {
      if (d == 3) shape[n++] = P;
      if (d >= 2) shape[n++] = N;
      shape[n++] = M;
      shape[n++] = dof;
    }
    PetscCall(VecDuplicate(*q, v));
    PetscCall(VecDestroy(&q0));
    PetscCall(VecDestroy(&v0));
  } else {
    *q = q0;
    *v = v0;
  }
  if (dim) *dim = d;
  PetscFunctionReturn(0);
}

static PetscErrorCode CreateStateVectors(MechOutput out)
{
  PetscFunctionBegin;
  PetscCall(MechIOCreateStateVectors(out->sys, &out->q, &out->v, &out->dim, out->shape));
  /* the names of the datasets in /fields */
  PetscCall(PetscObjectSetName((PetscObject)out->q, "q"));
  PetscCall(PetscObjectSetName((PetscObject)out->v, "v"));
  PetscFunctionReturn(0);
}

/* Path of the XDMF file (FILE.h5 -> FILE.xmf) and name of the .h5 relative to it */
static PetscErrorCode SetPaths(MechOutput out, const char filename[])
{
  size_t len, base = 0, i;

  PetscFunctionBegin;
  PetscCall(PetscStrallocpy(filename, &out->h5path));
  PetscCall(PetscStrlen(filename, &len));
  for (i = 0; i < len; i++)
    if (filename[i] == '/') base = i + 1;
  PetscCall(PetscStrallocpy(filename + base, &out->h5name));
  /* the name MechIOPlanFiles() checked and locked */
  PetscCall(PetscMalloc1(len + 5, &out->xmfpath));
  MechIOXDMFPath(filename, out->xmfpath, len + 5);
  PetscFunctionReturn(0);
}

/*
  Opens a new file at `path` (the temporary name of `filename`): refuses up front a `filename`
  that cannot be written (MechIOCheckWritable()), and turns a failure of the HDF5 open itself into
  an error naming the file (HDF5's own error stack is silenced meanwhile). Removes a file the
  failed attempt may have created.
*/
static PetscErrorCode OpenFile(MPI_Comm comm, PetscMPIInt rank, const char filename[], const char path[], PetscViewer *viewer)
{
  PetscErrorCode ierr;
  PetscBool      ok = PETSC_TRUE;
  H5E_auto2_t    efunc;
  void          *edata;
  char           problem[PETSC_MAX_PATH_LEN + 256];

  PetscFunctionBegin;
  PetscCall(MechIOCheckWritable(comm, filename, problem, sizeof(problem)));
  PetscCheck(!problem[0], comm, PETSC_ERR_FILE_OPEN, "Cannot create the HDF5 output file %s: %s", filename, problem);
  /* the header and HDF5's first metadata */
  PetscCall(MechIOCheckSpace(comm, filename, 0, problem, sizeof(problem)));
  PetscCheck(!problem[0], comm, PETSC_ERR_FILE_WRITE, "Cannot create the HDF5 output file %s: %s", filename, problem);
  PetscCallHDF5(H5Eget_auto2, (H5E_DEFAULT, &efunc, &edata));
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, NULL, NULL));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  /* no PetscViewerSetFromOptions(): -viewer_hdf5_sp_output or _base_dimension2 would change the
     documented layout */
  *viewer = NULL;
  ierr    = PetscViewerCreate(comm, viewer);
  if (!ierr) ierr = PetscViewerSetType(*viewer, PETSCVIEWERHDF5);
  if (!ierr) ierr = PetscViewerFileSetMode(*viewer, FILE_MODE_WRITE);
  if (!ierr) ierr = PetscViewerFileSetName(*viewer, path);
  if (ierr) ok = PETSC_FALSE;
  PetscCall(PetscPopErrorHandler());
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, efunc, edata));
  if (!ok) {
    /* PETSc 3.18 keeps the negative id of the failed H5Fcreate() and would flush and close it
       when the viewer is destroyed */
    if (*viewer && ((PetscViewer_HDF5 *)(*viewer)->data)->file_id < 0) ((PetscViewer_HDF5 *)(*viewer)->data)->file_id = 0;
    PetscCall(PetscViewerDestroy(viewer));
    if (rank == 0) (void)remove(path);
    SETERRQ(comm, PETSC_ERR_FILE_OPEN, "Cannot create the HDF5 output file %s", filename);
  }
  PetscFunctionReturn(0);
}

/*
  Begins a write of about `bytes` bytes: refused, and the output marked failed, if an earlier
  write failed or if the file system lacks the room (MechIOCheckSpace(): a write that runs out
  of space midway leaves a file HDF5 cannot close). Until EndWrite(), HDF5's error stack is
  silenced and PETSc's errors are returned, not printed: a failure becomes one message.
*/
static PetscErrorCode BeginWrite(MechOutput out, long long bytes, Quiet *q)
{
  char problem[PETSC_MAX_PATH_LEN + 256];

  PetscFunctionBegin;
  PetscCheck(!out->failed, out->comm, PETSC_ERR_FILE_WRITE, "Cannot write the HDF5 output %s: %s", out->h5path, out->failmsg);
  PetscCall(MechIOCheckSpace(out->comm, out->h5path, bytes, problem, sizeof(problem)));
  if (problem[0]) {
    out->failed = PETSC_TRUE;
    PetscCall(PetscStrncpy(out->failmsg, problem, sizeof(out->failmsg)));
    if (out->tmppath) {
      PetscCall(MechIODiscardViewer(&out->viewer, out->tmppath));
      PetscCall(PetscFree(out->tmppath));
    }
    SETERRQ(out->comm, PETSC_ERR_FILE_WRITE, "Cannot write the HDF5 output %s: %s", out->h5path, problem);
  }
  PetscCallHDF5(H5Eget_auto2, (H5E_DEFAULT, &q->efunc, &q->edata));
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, NULL, NULL));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  errno = 0; /* a write that fails on a full disk leaves ENOSPC */
  PetscFunctionReturn(0);
}

/*
  Ends a write begun with BeginWrite(), whose result on this rank is ierr. The ranks agree on
  the outcome (MechIOAgree()); a failure marks the output failed, gives up a file not yet
  renamed from its temporary name (MechIODiscardViewer()), and is raised as one error naming the
  file: "no space left on device" when the file system is full, else the first error's own
  message. When the other ranks do not answer (parallel HDF5 left them in a collective call),
  this rank raises its error alone, after removing a temporary file.
*/
static PetscErrorCode EndWrite(MechOutput out, Quiet *q, PetscErrorCode ierr)
{
  PetscBool   ok = ierr ? PETSC_FALSE : PETSC_TRUE;
  char        what[PETSC_MAX_PATH_LEN + 256];
  const char *text     = NULL;
  char       *specific = NULL;
  int         err      = errno;
  PetscBool   all;

  PetscFunctionBegin;
  PetscCall(PetscPopErrorHandler());
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, q->efunc, q->edata));
  PetscCall(MechIOAgree(out->agree, MECH_IO_AGREE_SECONDS, &ok, &all));
  if (ok) PetscFunctionReturn(0);
  out->failed = PETSC_TRUE;
  if (!all) {
    MechIODescribeWriteFailureLocal(out->tmppath ? out->tmppath : out->h5path, err, what, sizeof(what));
    if (!what[0]) {
      if (ierr) (void)PetscErrorMessage(ierr, &text, &specific);
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s", specific && specific[0] ? specific : "the write failed"));
    }
    if (out->rank == 0 && out->tmppath) (void)remove(out->tmppath);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write the HDF5 output %s: %s (the other ranks did not end the write)", out->h5path, what);
  }
  PetscCall(MechIODescribeWriteFailure(out->comm, out->h5path, err, what, sizeof(what)));
  if (!what[0]) {
    if (ierr) (void)PetscErrorMessage(ierr, &text, &specific);
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s", specific && specific[0] ? specific : (ierr ? (text ? text : "the write failed") : "the write failed on another rank")));
  }
  PetscCall(PetscStrncpy(out->failmsg, what, sizeof(out->failmsg)));
  if (out->tmppath) {
    PetscCall(MechIODiscardViewer(&out->viewer, out->tmppath));
    PetscCall(PetscFree(out->tmppath));
  }
  SETERRQ(out->comm, PETSC_ERR_FILE_WRITE, "Cannot write the HDF5 output %s: %s", out->h5path, what);
}

/* Renames a new file from its temporary name to its name, once. Collective. */
static PetscErrorCode Commit(MechOutput out)
{
  int err = 0;

  PetscFunctionBegin;
  if (!out->tmppath) PetscFunctionReturn(0);
  if (out->rank == 0) {
    char what[2 * PETSC_MAX_PATH_LEN + 64];

    err = MechIOCommitFile(out->tmppath, out->h5path, 1, PETSC_FALSE, what, sizeof(what));
  }
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, out->comm));
  PetscCheck(!err, out->comm, PETSC_ERR_FILE_WRITE, "Cannot rename the HDF5 output %s to %s: %s", out->tmppath, out->h5path, strerror(err));
  PetscCall(PetscFree(out->tmppath));
  PetscFunctionReturn(0);
}

/* What MechOutputCreate() prepares before it opens the file: errors here leave nothing behind */
static PetscErrorCode SetUp(MechOutput out, const char filename[])
{
  PetscInt ninv, j, k;

  PetscFunctionBegin;
  PetscCall(SetPaths(out, filename));
  PetscCall(CreateStateVectors(out));
  PetscCall(MechSystemGetNumInvariants(out->sys, &ninv));
  out->nreal = MECH_OUTPUT_NREAL + ninv;
  PetscCall(PetscCalloc1(out->nreal, &out->real));
  PetscCall(PetscCalloc1(ninv ? ninv : 1, &out->invname));
  PetscCall(PetscCalloc1(ninv ? ninv : 1, &out->invval));
  for (j = 0; j < ninv; j++) {
    const char *name;
    PetscReal   value;
    PetscBool   clash = PETSC_FALSE;

    /* the name only: the value at the initial state is not needed here */
    PetscCall(MechSystemComputeInvariant(out->sys, j, 0.0, out->q, out->v, &name, &value));
    for (k = 0; k < MECH_OUTPUT_NREAL && !clash; k++) PetscCall(PetscStrcmp(name, MechOutputRealNames[k], &clash));
    for (k = 0; k < MECH_OUTPUT_NINT && !clash; k++) PetscCall(PetscStrcmp(name, MechOutputIntNames[k], &clash));
    PetscCheck(!clash, out->comm, PETSC_ERR_ARG_WRONG, "Invariant \"%s\" has the name of a /monitor dataset", name);
    PetscCall(PetscStrallocpy(name, &out->invname[j]));
  }
  PetscFunctionReturn(0);
}

/*
  The checks MechOutputCreate() and MechOutputContinue() (caller, named in the messages) share:
  their arguments (the numbers in the messages are the callers' argument positions) and a TS with
  its type set. Takes the system from ts when *sys is NULL; gives the communicator and rank.
*/
static PetscErrorCode CheckArguments(MechSystem *sys, TS ts, const char filename[], MechOutput *outp, const char caller[], MPI_Comm *comm, PetscMPIInt *rank)
{
  const char *type;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 2);
  PetscValidCharPointer(filename, 3);
  PetscValidPointer(outp, 5);
  *outp = NULL;
  PetscCall(PetscObjectGetComm((PetscObject)ts, comm));
  PetscCallMPI(MPI_Comm_rank(*comm, rank));
  if (!*sys) PetscCall(TSMechGetSystem(ts, sys));
  PetscCheck(*sys, *comm, PETSC_ERR_ARG_WRONGSTATE, "No MechSystem given nor attached to the TS (TSMechSetSystem())");
  PetscValidHeaderSpecific(*sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(TSGetType(ts, &type));
  PetscCheck(type, *comm, PETSC_ERR_ARG_WRONGSTATE, "Set the TS type (TSSetType() or TSSetFromOptions()) before %s(): it is recorded in the file", caller);
  PetscCheck(filename[0], *comm, PETSC_ERR_ARG_WRONG, "Empty file name for the HDF5 output");
  PetscFunctionReturn(0);
}

/* A new output of sys for filename, prepared by SetUp(); on failure nothing is left behind */
static PetscErrorCode OutputNew(MPI_Comm comm, PetscMPIInt rank, MechSystem sys, PetscInt every, const char filename[], MechOutput *outp)
{
  MechOutput     out;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscNew(&out));
  out->comm      = comm;
  out->rank      = rank;
  out->every     = every > 0 ? every : 0;
  out->flushstep = -1;
  out->agree     = MPI_COMM_NULL;
  PetscCallMPI(MPI_Comm_dup(comm, &out->agree));
  PetscCall(PetscObjectReference((PetscObject)sys));
  out->sys = sys;
  ierr     = SetUp(out, filename);
  if (ierr) {
    (void)MechOutputFree(out);
    PetscCall(ierr);
  }
  *outp = out;
  PetscFunctionReturn(0);
}

/*@C
  MechOutputCreate - Creates the HDF5 output of a run and records its metadata on /.

  Collective

  Input Parameters:
+ sys      - the system (NULL: the one attached to ts)
. ts       - the TS, with its type set (its type and parameters are recorded)
. filename - the HDF5 file (conventionally FILE.h5; grid models also get FILE.xmf beside it)
- every    - snapshot interval in steps: steps that are multiples of every, plus the first and
             the last recorded step; 0 or negative: the first and last only

  Output Parameter:
. out - the output; record with MechOutputRecord() or TSMonitorMechOutput(), then
        MechOutputClose() and MechOutputDestroy()

  Notes:
  Fails, without leaving a file behind, if the file cannot be created (MechIOCheckWritable()).
  The file is written as filename.tmp-<pid of rank 0> and renamed to filename when the first
  completed step is recorded or at MechOutputClose(), so an existing filename is only replaced
  once the run has taken a step. The layout is documented in the README.
@*/
PetscErrorCode MechOutputCreate(MechSystem sys, TS ts, const char filename[], PetscInt every, MechOutput *outp)
{
  MPI_Comm       comm;
  PetscMPIInt    rank;
  MechOutput     out;
  PetscErrorCode ierr;
  char           tmp[PETSC_MAX_PATH_LEN];
  int            pid = (int)getpid();

  PetscFunctionBegin;
  PetscCall(CheckArguments(&sys, ts, filename, outp, "MechOutputCreate", &comm, &rank));
  PetscCall(OutputNew(comm, rank, sys, every, filename, &out));
  /* the temporary name is rank 0's */
  PetscCallMPI(MPI_Bcast(&pid, 1, MPI_INT, 0, comm));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp-%d", filename, pid));
  PetscCall(PetscStrallocpy(tmp, &out->tmppath));
  ierr = OpenFile(comm, rank, filename, out->tmppath, &out->viewer);
  if (ierr) {
    (void)MechOutputFree(out);
    PetscCall(ierr);
  }
  {
    Quiet q;

    /* a file with a partial header is not left behind (EndWrite() removes it) */
    ierr = BeginWrite(out, 0, &q);
    if (!ierr) ierr = EndWrite(out, &q, WriteHeader(out, ts));
    if (ierr) {
      (void)MechOutputFree(out);
      PetscCall(ierr);
    }
  }
  *outp = out;
  PetscFunctionReturn(0);
}

/*@C
  MechOutputFlush - Writes the /monitor records not yet in the file and flushes the file, so a
  run killed afterwards leaves /monitor complete up to the last recorded step.

  Collective

  Notes:
  tsmech calls it before every checkpoint (after recording the checkpoint's step), so the
  output file of an interrupted run always reaches the step its last checkpoint holds.
@*/
PetscErrorCode MechOutputFlush(MechOutput out)
{
  PetscFunctionBegin;
  PetscValidPointer(out, 1);
  PetscCheck(!out->failed, out->comm, PETSC_ERR_FILE_WRITE, "Cannot write the HDF5 output %s: %s", out->h5path, out->failmsg);
  PetscCheck(out->viewer || out->pending, out->comm, PETSC_ERR_ARG_WRONGSTATE, "The output to %s is closed", out->h5path);
  PetscCall(FlushFile(out));
  PetscFunctionReturn(0);
}

/* The dimensions of dataset path (at most 5) */
static PetscErrorCode DatasetDims(hid_t fileid, const char path[], int *ndims, hsize_t dims[5])
{
  hid_t dset, space;

  PetscFunctionBegin;
  PetscCallHDF5Return(dset, H5Dopen2, (fileid, path, H5P_DEFAULT));
  PetscCallHDF5Return(space, H5Dget_space, (dset));
  PetscCallHDF5Return(*ndims, H5Sget_simple_extent_ndims, (space));
  PetscCheck(*ndims >= 1 && *ndims <= 5, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Dataset %s has %d dimensions", path, *ndims);
  PetscCallHDF5(H5Sget_simple_extent_dims, (space, dims, NULL));
  PetscCallHDF5(H5Sclose, (space));
  PetscCallHDF5(H5Dclose, (dset));
  PetscFunctionReturn(0);
}

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

/* Sets the first dimension of dataset path to n (collective) */
static PetscErrorCode TruncateDataset(hid_t fileid, const char path[], PetscInt n)
{
  hid_t   dset;
  int     ndims;
  hsize_t dims[5];

  PetscFunctionBegin;
  PetscCall(DatasetDims(fileid, path, &ndims, dims));
  PetscCall(PetscHDF5IntCast(n, &dims[0]));
  PetscCallHDF5Return(dset, H5Dopen2, (fileid, path, H5P_DEFAULT));
  PetscCallHDF5(H5Dset_extent, (dset, dims));
  PetscCallHDF5(H5Dclose, (dset));
  PetscFunctionReturn(0);
}

/*
  A continued file is opened for writing at its first write: the records after the restart step
  (which the run recomputes) are removed and the restart count is raised. Collective.
*/
static PetscErrorCode EnsureOpen(MechOutput out)
{
  hid_t    fileid;
  PetscInt j;
  char     path[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  if (!out->pending) PetscFunctionReturn(0);
  out->pending = PETSC_FALSE;
  PetscCall(PetscViewerHDF5Open(out->comm, out->h5path, FILE_MODE_APPEND, &out->viewer));
  PetscCall(PetscViewerHDF5GetFileId(out->viewer, &fileid));
  for (j = 0; j < out->nreal + MECH_OUTPUT_NINT; j++) {
    const char *name = j < MECH_OUTPUT_NREAL ? MechOutputRealNames[j] : (j < out->nreal ? out->invname[j - MECH_OUTPUT_NREAL] : MechOutputIntNames[j - out->nreal]);

    PetscCall(PetscSNPrintf(path, sizeof(path), "/monitor/%s", name));
    PetscCall(TruncateDataset(fileid, path, out->pending_nrec));
  }
  if (out->pending_nsnap >= 0) {
    PetscCall(TruncateDataset(fileid, "/fields/q", out->pending_nsnap));
    PetscCall(TruncateDataset(fileid, "/fields/v", out->pending_nsnap));
    PetscCall(TruncateDataset(fileid, "/fields/time", out->pending_nsnap));
    PetscCall(TruncateDataset(fileid, "/fields/step", out->pending_nsnap));
  }
  PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "restarts", PETSC_INT, &out->pending_restarts));
  PetscCallHDF5(H5Fflush, (fileid, H5F_SCOPE_GLOBAL));
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

/*
  Reads an existing output file (opened read-only) and decides what is kept when the run
  continues from step `step` at time t: /monitor records up to that step, snapshots before it
  (and at it if it is a regular snapshot step, not only the last snapshot of the interrupted run).
  Everything the continuation reads or appends to is checked first: the attributes model, the
  model parameters, every and restarts (their datatypes exactly, their values against this run
  or their ranges), the datasets of /monitor and /fields (datatype, chunked and extendible, the
  shape of a snapshot, the attribute timestepping of q and v), the steps (consecutive) and times
  (finite, the snapshots' those of /monitor). A file that is damaged, cannot be continued
  without a gap, or belongs to another model, size or run, gets a reason in info->problem.
  Not collective: every rank reads the same and decides the same.
*/
static PetscErrorCode ContinueInspect(MechOutput out, hid_t fileid, PetscInt step, PetscReal t, ContinueInfo *info)
{
  hid_t              root = -1, monitor = -1, fields = -1;
  const char        *model;
  char               fmodel[256], *problem = info->problem;
  size_t             plen = sizeof(info->problem);
  const char *const *pnames;
  const PetscReal   *pvalues;
  PetscInt           np, i, j, every = out->every, first, nsnap;
  hsize_t            nrows = 0, rows, dims[5];
  int64_t           *steps = NULL, *snapsteps = NULL, v;
  PetscReal         *times = NULL;
  PetscBool          has;
  htri_t             e;
  int                ndims;

  PetscFunctionBegin;
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

    PetscCall(ParameterAttributeName(pnames[i], name, sizeof(name)));
    PetscCall(MechIOReadAttribute(root, "/", name, MECH_IO_ATTR_REAL, &value, 0, &has, problem, plen));
    if (problem[0]) break;
    if (!has) PetscCall(PetscSNPrintf(problem, plen, "it lacks the model parameter %s", pnames[i]));
    else if (!(value == pvalues[i])) PetscCall(PetscSNPrintf(problem, plen, "it holds a run with %s = %.17g, this run has %s = %.17g", pnames[i], value, pnames[i], (double)pvalues[i]));
  }
  /* the snapshot interval of the interrupted run, and the count of continuations */
  if (!problem[0]) PetscCall(MechIOReadAttribute(root, "/", "every", MECH_IO_ATTR_INT, &v, 0, &has, problem, plen));
  if (!problem[0] && has) {
    if (v < 0 || v > PETSC_MAX_INT) PetscCall(PetscSNPrintf(problem, plen, "its attribute /every = %lld is not a snapshot interval (the file is damaged)", (long long)v));
    else every = (PetscInt)v;
  }
  info->restarts = 0;
  if (!problem[0]) PetscCall(MechIOReadAttribute(root, "/", "restarts", MECH_IO_ATTR_INT, &v, 0, &has, problem, plen));
  if (!problem[0] && has) {
    if (v < 0 || v >= PETSC_MAX_INT) PetscCall(PetscSNPrintf(problem, plen, "its attribute /restarts = %lld is not a count of restarts (the file is damaged)", (long long)v));
    else info->restarts = (PetscInt)v;
  }
  PetscCallHDF5(H5Gclose, (root));
  if (problem[0]) PetscFunctionReturn(0);

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
  first      = problem[0] ? 0 : (PetscInt)steps[0];
  info->nrec = step - first + 1;
  PetscCall(PetscFree(steps));
  if (problem[0]) {
    PetscCall(PetscFree(times));
    PetscFunctionReturn(0);
  }

  /* /fields: complete snapshots (q, v, time and step all written) of this run's shape */
  info->nsnap = 0;
  PetscCallHDF5Return(e, H5Lexists, (fileid, "/fields", H5P_DEFAULT));
  if (e) PetscCall(OpenGroup(fileid, "/fields", &fields, problem, plen));
  if (fields >= 0 && !problem[0]) PetscCallHDF5Return(e, H5Lexists, (fields, "step", H5P_DEFAULT));
  if (fields >= 0 && !problem[0] && e) {
    hsize_t sdims[5];
    int     vdims;

    /* a snapshot of q or v as VecView() appends it: [unlimited, the vector's shape] */
    PetscCall(MechIOVecDims(out->q, &vdims, sdims + 1));
    ndims = vdims + 1;
    for (j = 0; j < 4 && !problem[0]; j++) {
      const char *name = j == 0 ? "q" : j == 1 ? "v"
                                    : j == 2   ? "time"
                                               : "step";

      PetscCall(MechIOCheckDataset(fields, "/fields", name, j < 3 ? H5T_IEEE_F64LE : H5T_STD_I64LE, j < 2 ? ndims : 1, sdims, PETSC_TRUE, &rows, &has, problem, plen));
      if (!problem[0] && !has) PetscCall(PetscSNPrintf(problem, plen, "it has no dataset /fields/%s", name));
      if (!problem[0] && j < 2) {
        hid_t dset;

        /* PETSc's VecView() reads it before it appends */
        PetscCallHDF5Return(dset, H5Dopen2, (fields, name, H5P_DEFAULT));
        PetscCall(MechIOReadAttribute(dset, j ? "/fields/v" : "/fields/q", "timestepping", MECH_IO_ATTR_INT, &v, 0, NULL, problem, plen));
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
             (MechOutputCreate()) whose /monitor starts at the restart step
- every    - snapshot interval in steps, as for MechOutputCreate()

  Output Parameter:
. out - the output

  Notes:
  Kept: the /monitor records up to and including the restart step (consecutive steps, reaching
  the restart step: the checkpoint writer flushes the output first, see MechOutputFlush()), the
  snapshots before the restart step and the one at it if it is a multiple of the file's `every`
  (the extra last snapshot an interrupted run writes at its last step is removed). Refused,
  before anything in the file is changed: a file that is not a tsmech output, of another model,
  model parameters or state size, whose /monitor does not reach the restart step (the steps in
  between would be missing) or whose time at the restart step differs from the TS's.
  The attribute /restarts counts the continuations; the other attributes of / are the first
  run's. The file is changed (cut back and its count raised) only when the first new record is
  written, so a run that fails at its first step leaves it as it was.
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
  PetscCall(CheckArguments(&sys, ts, filename, outp, "MechOutputContinue", &comm, &rank));
  if (rank == 0) PetscCall(PetscTestFile(filename, 'r', &exists));
  PetscCallMPI(MPI_Bcast(&exists, 1, MPIU_BOOL, 0, comm));
  if (!exists) {
    PetscCall(MechOutputCreate(sys, ts, filename, every, outp));
    PetscFunctionReturn(0);
  }
  PetscCall(TSGetStepNumber(ts, &step));
  PetscCall(TSGetTime(ts, &t));
  PetscCall(OutputNew(comm, rank, sys, every, filename, &out));

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
     written (EnsureOpen()): a run that fails before leaves the file as it was */
  out->pending          = PETSC_TRUE;
  out->pending_nrec     = info.nrec;
  out->pending_nsnap    = info.snapstep ? info.nsnap : -1;
  out->pending_restarts = info.restarts + 1;

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

/* MechOutputRecord() without its log stage */
static PetscErrorCode OutputRecord(MechOutput out, TS ts)
{
  PetscInt  step, sits, kits, j, ninv = out ? out->nreal - MECH_OUTPUT_NREAL : 0;
  PetscReal t, ke, pe;
  PetscBool first;

  PetscFunctionBegin;
  PetscValidPointer(out, 1);
  PetscValidHeaderSpecific(ts, TS_CLASSID, 2);
  PetscCheck(!out->failed, out->comm, PETSC_ERR_FILE_WRITE, "Cannot write the HDF5 output %s: %s", out->h5path, out->failmsg);
  PetscCheck(out->viewer || out->pending, out->comm, PETSC_ERR_ARG_WRONGSTATE, "The output to %s is closed", out->h5path);
  PetscCall(TSGetStepNumber(ts, &step));
  PetscCall(TSGetTime(ts, &t));
  first = out->nrec ? PETSC_FALSE : PETSC_TRUE;
  if (!first) {
    /* a monitor called twice for one step, e.g. by hand before TSSolve() and by TSSolve() */
    if (step == out->laststep) PetscFunctionReturn(0);
    PetscCheck(step > out->laststep, out->comm, PETSC_ERR_ARG_WRONGSTATE, "Step %" PetscInt_FMT " recorded after step %" PetscInt_FMT ": the output needs increasing step numbers", step, out->laststep);
    /* a step was completed: the new file takes its name */
    PetscCall(Commit(out));
  }
  PetscCall(TSMechGetSolution(ts, out->q, out->v));
  PetscCall(MechSystemComputeEnergy(out->sys, t, out->q, out->v, &ke, &pe));
  for (j = 0; j < ninv; j++) PetscCall(MechSystemComputeInvariant(out->sys, j, t, out->q, out->v, NULL, &out->invval[j]));
  PetscCall(TSGetSNESIterations(ts, &sits));
  PetscCall(TSGetKSPIterations(ts, &kits));
  if (out->rank == 0) {
    PetscInt n = out->nrec - out->base; /* the record's index in memory */

    if (n == out->maxrec) {
      out->maxrec = PetscMax(64, 2 * out->maxrec);
      for (j = 0; j < out->nreal; j++) PetscCall(PetscRealloc(out->maxrec * sizeof(PetscReal), &out->real[j]));
      for (j = 0; j < MECH_OUTPUT_NINT; j++) PetscCall(PetscRealloc(out->maxrec * sizeof(PetscInt), &out->ints[j]));
    }
    out->real[0][n] = t;
    out->real[1][n] = first ? 0 : t - out->lasttime;
    out->real[2][n] = ke;
    out->real[3][n] = pe;
    out->real[4][n] = ke + pe;
    for (j = 0; j < ninv; j++) out->real[MECH_OUTPUT_NREAL + j][n] = out->invval[j];
    out->ints[0][n] = step;
    /* the TS counters are cumulative over a TSSolve() and restart at 0 with a new one */
    out->ints[1][n] = first ? 0 : (sits >= out->lastsnes ? sits - out->lastsnes : sits);
    out->ints[2][n] = first ? 0 : (kits >= out->lastksp ? kits - out->lastksp : kits);
  }
  out->nrec++;
  out->laststep = step;
  out->lasttime = t;
  out->lastsnes = sits;
  out->lastksp  = kits;
  if (first || (out->every && step % out->every == 0)) PetscCall(WriteSnapshot(out, step, t));
  PetscFunctionReturn(0);
}

/*@C
  MechOutputRecord - Records the current state of ts: one /monitor entry (time, step size,
  energies, iterations of the step, invariants) and, every `every` steps and at the first record,
  a snapshot of (q, v) in /fields.

  Collective

  Notes:
  Works for every TS type (the state is read with TSMechGetSolution()). A second call for the same
  step number is ignored; step numbers must increase. Logged in the stage "Mech I/O".
@*/
PetscErrorCode MechOutputRecord(MechOutput out, TS ts)
{
  PetscFunctionBegin;
  PetscCall(PetscLogStagePush(MECH_StageIO));
  PetscCall(OutputRecord(out, ts));
  PetscCall(PetscLogStagePop());
  PetscFunctionReturn(0);
}

/*@C
  TSMonitorMechOutput - A TSMonitor recording every step with MechOutputRecord(); ctx is the
  MechOutput. Use with TSMonitorSet(ts, TSMonitorMechOutput, out, NULL).

  Notes:
  The state is read from the TS, so X may be the first-order vector [q; v]. The call with a
  negative step that TSSolve() makes after interpolating to the final time is ignored: that
  state is not a step of the integration; nor is the call after a failed step (the TS's
  converged reason is then negative).
@*/
PetscErrorCode TSMonitorMechOutput(TS ts, PetscInt step, PetscReal t, Vec X, void *ctx)
{
  TSConvergedReason reason;

  PetscFunctionBegin;
  (void)t;
  (void)X;
  if (step < 0) PetscFunctionReturn(0);
  /* after a failed step TSSolve() calls the monitors once more, with the step counter advanced
     and the state of the start of the failed step (or, for a type that cannot reject, the
     failed state): neither is a step of the integration */
  PetscCall(TSGetConvergedReason(ts, &reason));
  if (reason < 0) PetscFunctionReturn(0);
  PetscCall(MechOutputRecord((MechOutput)ctx, ts));
  PetscFunctionReturn(0);
}

/*@C
  MechOutputClose - Completes and closes the output: records the final state of ts if it was not
  recorded and writes it as the last snapshot, writes /monitor and, for grid models (2-D or 3-D
  DMDA with 3 dofs per node), FILE.xmf beside FILE.h5.

  Collective

  Input Parameters:
+ out - the output
- ts  - the TS after TSSolve() (NULL: close without recording the final state)

  Notes:
  Closing twice is harmless. An output whose write failed (MechOutputRecord() or
  MechOutputFlush() returned an error) is closed as it is, without writing anything more: it
  holds what its last successful flush wrote (a file still under its temporary name was removed
  at the failure).
@*/
PetscErrorCode MechOutputClose(MechOutput out, TS ts)
{
  const char *model;

  PetscFunctionBegin;
  PetscValidPointer(out, 1);
  if (out->failed) {
    PetscInt step = -1;

    if (ts) PetscCall(TSGetStepNumber(ts, &step));
    out->pending = PETSC_FALSE;
    if (out->viewer) {
      H5E_auto2_t efunc;
      void       *edata;

      /* what a failed write left unwritten is not tried again: HDF5 may be unable to write it */
      PetscCallHDF5(H5Eget_auto2, (H5E_DEFAULT, &efunc, &edata));
      PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, NULL, NULL));
      if (((PetscViewer_HDF5 *)out->viewer->data)->file_id > 0) (void)H5Fclose(((PetscViewer_HDF5 *)out->viewer->data)->file_id);
      ((PetscViewer_HDF5 *)out->viewer->data)->file_id = 0;
      PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, efunc, edata));
      PetscCall(PetscViewerDestroy(&out->viewer));
    }
    /* the state asked for is not in the file: whoever closes it must know (a checkpoint of that
       state would be ahead of the output, which a restart could not continue) */
    PetscCheck(step <= out->flushstep, out->comm, PETSC_ERR_FILE_WRITE, "Cannot write the HDF5 output %s: %s", out->h5path, out->failmsg);
    PetscFunctionReturn(0);
  }
  if (!out->viewer && !out->pending) PetscFunctionReturn(0);
  if (ts) {
    PetscInt step;

    PetscValidHeaderSpecific(ts, TS_CLASSID, 2);
    PetscCall(TSGetStepNumber(ts, &step));
    if (!out->nrec || step > out->laststep) PetscCall(MechOutputRecord(out, ts));
    if (!out->nsnap || out->snapstep[out->nsnap - 1] != out->laststep) {
      PetscCall(TSMechGetSolution(ts, out->q, out->v));
      PetscCall(WriteSnapshot(out, out->laststep, out->lasttime));
    }
  }
  /* after the flush HDF5 holds nothing unwritten: the close itself writes nothing */
  PetscCall(FlushFile(out));
  PetscCall(PetscViewerDestroy(&out->viewer));
  PetscCall(Commit(out));
  /* the XDMF only describes the closed file, so it is written once the .h5 is complete; rank 0
     writes it, every rank raises its error */
  PetscCall(MechSystemGetModelName(out->sys, &model));
  if (out->dim >= 2 && out->shape[out->dim] == 3 && out->nsnap > 0) {
    PetscErrorCode ierr                          = 0;
    char           msg[PETSC_MAX_PATH_LEN + 256] = "";

    if (out->rank == 0) {
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = MechOutputWriteXDMF(out->xmfpath, out->h5name, model ? model : "user", out->dim, out->shape, out->nsnap, out->snaptime);
      PetscCall(PetscPopErrorHandler());
      if (ierr) {
        const char *text     = NULL;
        char       *specific = NULL;
        (void)PetscErrorMessage(ierr, &text, &specific);
        PetscCall(PetscStrncpy(msg, specific && specific[0] ? specific : (text ? text : "Cannot write the XDMF file"), sizeof(msg)));
      }
    }
    PetscCallMPI(MPI_Bcast(&ierr, 1, MPI_INT, 0, out->comm));
    PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)sizeof(msg), MPI_CHAR, 0, out->comm));
    PetscCheck(!ierr, out->comm, PETSC_ERR_FILE_WRITE, "%s", msg);
  }
  PetscFunctionReturn(0);
}

/*@C
  MechOutputDestroy - Closes the output if needed (without recording a final state) and frees it.

  Collective
@*/
PetscErrorCode MechOutputDestroy(MechOutput *out)
{
  PetscFunctionBegin;
  if (!*out) PetscFunctionReturn(0);
  PetscCall(MechOutputClose(*out, NULL));
  PetscCall(MechOutputFree(*out));
  *out = NULL;
  PetscFunctionReturn(0);
}

/*
  MechOutputDiscard - Closes the output without writing anything more and frees it, for a run
  that failed before completing a step: a new file still under its temporary name is removed (an
  existing file of that name is left as it was), a continued file not yet opened for writing is
  untouched. A file already renamed (a step was recorded) is closed as it is, valid up to its last
  flush. Collective.
*/
PetscErrorCode MechOutputDiscard(MechOutput *out)
{
  PetscFunctionBegin;
  if (!*out) PetscFunctionReturn(0);
  (*out)->pending = PETSC_FALSE;
  if ((*out)->tmppath) PetscCall(MechIODiscardViewer(&(*out)->viewer, (*out)->tmppath));
  else if ((*out)->failed) PetscCall(MechOutputClose(*out, NULL));
  else if ((*out)->viewer) PetscCall(PetscViewerDestroy(&(*out)->viewer));
  PetscCall(MechOutputFree(*out));
  *out = NULL;
  PetscFunctionReturn(0);
}

#else /* PETSc without HDF5: the API exists and says why it cannot work */

PetscErrorCode MechOutputCreate(MechSystem sys, TS ts, const char filename[], PetscInt every, MechOutput *out)
{
  PetscFunctionBegin;
  (void)sys;
  (void)every;
  *out = NULL;
  SETERRQ(PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP_SYS, "Cannot write %s: PETSc was configured without HDF5", filename);
}

PetscErrorCode MechOutputRecord(MechOutput out, TS ts)
{
  PetscFunctionBegin;
  (void)out;
  SETERRQ(PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP_SYS, "PETSc was configured without HDF5");
}

PetscErrorCode TSMonitorMechOutput(TS ts, PetscInt step, PetscReal t, Vec X, void *ctx)
{
  PetscFunctionBegin;
  (void)step;
  (void)t;
  (void)X;
  PetscCall(MechOutputRecord((MechOutput)ctx, ts));
  PetscFunctionReturn(0);
}

PetscErrorCode MechOutputClose(MechOutput out, TS ts)
{
  PetscFunctionBegin;
  (void)out;
  (void)ts;
  PetscFunctionReturn(0);
}

PetscErrorCode MechOutputDestroy(MechOutput *out)
{
  PetscFunctionBegin;
  if (out) *out = NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode MechOutputContinue(MechSystem sys, TS ts, const char filename[], PetscInt every, MechOutput *out)
{
  PetscFunctionBegin;
  PetscCall(MechOutputCreate(sys, ts, filename, every, out));
  PetscFunctionReturn(0);
}

PetscErrorCode MechOutputFlush(MechOutput out)
{
  PetscFunctionBegin;
  (void)out;
  PetscFunctionReturn(0);
}

PetscErrorCode MechOutputDiscard(MechOutput *out)
{
  PetscFunctionBegin;
  if (out) *out = NULL;
  PetscFunctionReturn(0);
}
#endif
