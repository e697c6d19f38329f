/*
  HDF5 output of a run, its create, record, flush and close: per-step scalars in /monitor, snapshots of (q, v) in /fields, the run's
  metadata as attributes of /, and for 2-D and 3-D grid models an XDMF file for ParaView. The
  layout is documented in the manual block MechOutputFormat in outputimpl.h (docs/manual/formats/).

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
  first step leaves an existing FILE as it was. A continued file (MechOutputContinue(),
  outputcontinue.c) is only opened for writing, and cut back to the restart step, when the first
  new record is written (MechOutputEnsureOpen(), here). The attributes of / and the mesh a new file
  gets are in outputheader.c; the file's creation, its guarded writes and its commit in
  outputguard.c.
*/
#define _POSIX_C_SOURCE 200809L
#include <petsc/private/viewerhdf5impl.h> /* PetscCallHDF5(); first, as it must precede <hdf5.h> */
#include <petsc/private/petscimpl.h>
#include <petscdmda.h>
#include <petscsf.h>
#include "outputimpl.h"
#include "../ts/scheme.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* The names of the attributes of / that are parameters of an integrator's family */
static herr_t CollectSchemeAttribute(hid_t loc, const char *name, const H5A_info_t *info, void *ctx)
{
  char(*names)[TSMECH_SCHEME_NAMELEN] = (char(*)[TSMECH_SCHEME_NAMELEN])((void **)ctx)[0];
  size_t *n                           = (size_t *)((void **)ctx)[1];

  (void)loc;
  (void)info;
  if (*n < 4 * TSMECH_SCHEME_MAXPARAM && strlen(name) < TSMECH_SCHEME_NAMELEN && TSMechSchemeIsParameterName(name)) strcpy(names[(*n)++], name);
  return 0;
}

/*
  The attributes of / that say how the run integrates (ts_type and its family's parameters, such
  as gauss2_stages) become the continuing run's: a run continued with another integrator, or with
  other gauss2 stages, no longer carries the first run's. The parameters of the first run's family
  that the new one has not are removed.
*/
static PetscErrorCode UpdateRunAttributes(MechOutput out, hid_t fileid)
{
  TSMechScheme *scheme = (TSMechScheme *)out->pending_scheme;
  char          names[4 * TSMECH_SCHEME_MAXPARAM][TSMECH_SCHEME_NAMELEN];
  size_t        n      = 0;
  void         *ctx[2] = {names, &n};
  hid_t         root;
  hsize_t       idx = 0;

  PetscFunctionBegin;
  if (!scheme) PetscFunctionReturn(0);
  PetscCallHDF5Return(root, H5Gopen2, (fileid, "/", H5P_DEFAULT));
  PetscCallHDF5(H5Aiterate2, (root, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, CollectSchemeAttribute, ctx));
  for (size_t i = 0; i < n; i++) PetscCallHDF5(H5Adelete, (root, names[i]));
  /* a string attribute written again keeps its old size (PETSc opens the existing one): removed first */
  PetscCallHDF5(H5Adelete, (root, "ts_type"));
  PetscCallHDF5(H5Gclose, (root));
  PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "ts_type", PETSC_STRING, scheme->type));
  PetscCall(TSMechSchemeForEachParameter(scheme, MechOutputWriteSchemeParameter, out->viewer));
  PetscCall(PetscFree(out->pending_scheme));
  PetscFunctionReturn(0);
}

/*
  A continued file is opened for writing at its first write: the records after the restart step
  (which the run recomputes) are removed and the restart count is raised. Collective.
*/
PetscErrorCode MechOutputEnsureOpen(MechOutput out)
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
  PetscCall(MechOutputRecordsTruncate(out, fileid, out->pending_nrec));
  if (out->pending_nsnap >= 0) {
    PetscCall(TruncateDataset(fileid, "/fields/q", out->pending_nsnap));
    PetscCall(TruncateDataset(fileid, "/fields/v", out->pending_nsnap));
    PetscCall(TruncateDataset(fileid, "/fields/time", out->pending_nsnap));
    PetscCall(TruncateDataset(fileid, "/fields/step", out->pending_nsnap));
    for (j = 0; j < out->ncf; j++) {
      const char *name;

      PetscCall(PetscObjectGetName((PetscObject)out->cf[j], &name));
      PetscCall(PetscSNPrintf(path, sizeof(path), "/fields/%s", name));
      PetscCall(TruncateDataset(fileid, path, out->pending_nsnap));
    }
  }
  PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "restarts", PETSC_INT, &out->pending_restarts));
  PetscCall(UpdateRunAttributes(out, fileid));
  PetscCallHDF5(H5Fflush, (fileid, H5F_SCOPE_GLOBAL));
  PetscFunctionReturn(0);
}

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
  PetscCall(MechOutputEnsureOpen(out));
  PetscCall(PetscDataTypeToHDF5DataType(PETSC_INT, &inttype));
  PetscCall(PetscDataTypeToHDF5DataType(PETSC_REAL, &realtype));
  for (j = 0; j < out->nreal; j++) {
    const char *name = j < MECH_OUTPUT_NREAL ? MechOutputRealNames[j] : out->invname[j - MECH_OUTPUT_NREAL];
    PetscCall(WriteSeries(out, "/monitor", name, realtype, H5T_IEEE_F64LE, out->nflushed, out->nrec, out->rank == 0 && out->nrec > out->nflushed ? out->real[j] + (out->nflushed - out->base) : NULL));
  }
  for (j = 0; j < MECH_OUTPUT_NINT; j++) PetscCall(WriteSeries(out, "/monitor", MechOutputIntNames[j], inttype, H5T_STD_I64LE, out->nflushed, out->nrec, out->rank == 0 && out->nrec > out->nflushed ? out->ints[j] + (out->nflushed - out->base) : NULL));
  PetscCall(MechOutputRecordsFlush(out, out->nflushed, out->nrec));
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
  PetscCall(MechOutputEnsureOpen(out));
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
  for (PetscInt f = 0; f < out->ncf; f++) PetscCall(VecView(out->cf[f], out->viewer));
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

/*
  The per-cell fields at the state (out->q, out->v) in their vectors: the model's values of this
  rank's cells sent to the rows of their rank-independent numbers (a PetscSF reduction, each row
  from exactly one cell). Collective.
*/
static PetscErrorCode ComputeCellFields(MechOutput out, PetscReal t, long long *bytes)
{
  PetscFunctionBegin;
  *bytes = 0;
  if (!out->ncf) PetscFunctionReturn(0);
  PetscCall(MechSystemComputeCellFields(out->sys, t, out->q, out->v, out->cfval));
  PetscCall(MechSystemComputeNodeFields(out->sys, t, out->q, out->v, out->cfval + out->ncellf));
  for (PetscInt f = 0; f < out->ncf; f++) {
    PetscInt     bs, N, n;
    PetscScalar *a;
    MPI_Datatype unit;

    PetscCall(VecGetBlockSize(out->cf[f], &bs));
    PetscCall(VecGetSize(out->cf[f], &N));
    *bytes += (long long)N * (long long)sizeof(PetscScalar);
    if (f >= out->ncellf) {
      /* a node field: one component at a time at entry 3i of node i, through the I/O order */
      PetscCall(VecGetLocalSize(out->cf[f], &n));
      n /= bs;
      for (PetscInt j = 0; j < bs; j++) {
        PetscScalar *w;

        PetscCall(VecGetArray(out->nfwork, &w));
        for (PetscInt i = 0; i < n; i++) w[3 * i] = out->cfval[f][bs * i + j];
        PetscCall(VecRestoreArray(out->nfwork, &w));
        PetscCall(MechIOPermute(out->sys, out->nfwork, SCATTER_FORWARD));
        PetscCall(VecGetArray(out->nfwork, &w));
        PetscCall(VecGetArray(out->cf[f], &a));
        for (PetscInt i = 0; i < n; i++) a[bs * i + j] = w[3 * i];
        PetscCall(VecRestoreArray(out->cf[f], &a));
        PetscCall(VecRestoreArray(out->nfwork, &w));
      }
      continue;
    }
    PetscCallMPI(MPI_Type_contiguous((PetscMPIInt)bs, MPIU_REAL, &unit));
    PetscCallMPI(MPI_Type_commit(&unit));
    PetscCall(VecGetArray(out->cf[f], &a));
    PetscCall(PetscSFReduceBegin(out->cfsf, unit, out->cfval[f], a, MPI_REPLACE));
    PetscCall(PetscSFReduceEnd(out->cfsf, unit, out->cfval[f], a, MPI_REPLACE));
    PetscCall(VecRestoreArray(out->cf[f], &a));
    PetscCallMPI(MPI_Type_free(&unit));
  }
  PetscFunctionReturn(0);
}

/* WriteSnapshotData() as one guarded write */
static PetscErrorCode WriteSnapshot(MechOutput out, PetscInt step, PetscReal t)
{
  MechOutputQuiet q;
  PetscInt        N;
  long long       cfbytes;

  PetscFunctionBegin;
  PetscCall(VecGetSize(out->q, &N));
  /* the model's per-cell fields, at the state in its own order, before any write: a model error
     here is the model's, not the file's */
  PetscCall(ComputeCellFields(out, t, &cfbytes));
  /* the snapshot in the system's rank-independent order (MechSystemSetIOOrdering()) */
  PetscCall(MechIOPermute(out->sys, out->q, SCATTER_FORWARD));
  PetscCall(MechIOPermute(out->sys, out->v, SCATTER_FORWARD));
  PetscCall(MechOutputBeginWrite(out, 2LL * N * (long long)sizeof(PetscScalar) + cfbytes + MonitorBytes(out), &q));
  PetscCall(MechOutputEndWrite(out, &q, WriteSnapshotData(out, step, t)));
  PetscCall(MechIOPermute(out->sys, out->q, SCATTER_REVERSE));
  PetscCall(MechIOPermute(out->sys, out->v, SCATTER_REVERSE));
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
  MechOutputQuiet q;

  PetscFunctionBegin;
  PetscCall(MechOutputBeginWrite(out, MonitorBytes(out), &q));
  PetscCall(MechOutputEndWrite(out, &q, FlushFileData(out)));
  PetscFunctionReturn(0);
}

/* Frees everything but closes nothing */
PETSC_INTERN PetscErrorCode MechOutputFree(MechOutput out)
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
  PetscCall(MechOutputRecordsFree(out));
  PetscCall(PetscFree(out->pending_scheme));
  PetscCall(VecDestroy(&out->q));
  PetscCall(VecDestroy(&out->v));
  for (j = 0; j < out->ncf; j++) {
    if (out->cf) PetscCall(VecDestroy(&out->cf[j]));
    if (out->cfval) PetscCall(PetscFree(out->cfval[j]));
  }
  PetscCall(PetscFree(out->cf));
  PetscCall(PetscFree(out->cfval));
  PetscCall(PetscSFDestroy(&out->cfsf));
  PetscCall(VecDestroy(&out->nfwork));
  PetscCall(MechSystemDestroy(&out->sys));
  PetscCall(PetscFree(out->h5path));
  PetscCall(PetscFree(out->tmppath));
  PetscCall(PetscFree(out->xmfpath));
  PetscCall(PetscFree(out->h5name));
  if (out->agree != MPI_COMM_NULL) PetscCallMPI(MPI_Comm_free(&out->agree));
  PetscCall(PetscFree(out));
  PetscFunctionReturn(0);
}

static PetscErrorCode CreateStateVectors(MechOutput out)
{
  PetscFunctionBegin;
  PetscCall(MechIOCreateStateVectors(out->sys, &out->q, &out->v, &out->dim, out->shape));
  {
    Vec      X;
    PetscInt nc;

    /* a system on a tetrahedral mesh: its vertices' positions, [nv, 3], and its tetrahedra */
    PetscCall(MechSystemGetIOMesh(out->sys, NULL, &X, &nc, NULL));
    if (X) {
      PetscCall(MPIU_Allreduce(&nc, &out->ncells, 1, MPIU_INT, MPI_SUM, out->comm));
      PetscCall(MechSystemGetIOMeshCells(out->sys, &out->nper, NULL));
      PetscCall(VecGetSize(X, &out->shape[0]));
      out->shape[0] /= 3;
      out->shape[1] = 3;
    }
  }
  /* the names of the datasets in /fields */
  PetscCall(PetscObjectSetName((PetscObject)out->q, "q"));
  PetscCall(PetscObjectSetName((PetscObject)out->v, "v"));
  PetscFunctionReturn(0);
}

/*
  The vectors of the per-cell fields (MechSystemSetCellFields()): [nc * ncomp], block size ncomp,
  a contiguous block of cells per rank in the rank-independent order of MechSystemSetIOMesh(), and
  the PetscSF from this rank's cells (in the system's order) to their rows there
*/
static PetscErrorCode CreateCellFields(MechOutput out)
{
  const char *const *names, *const *nnames;
  const PetscInt *ncomp, *nncomp, *cells;
  PetscInt        nf, nn, nc, NC = 0, rstart = 0, rend = 0, *ids, nloc;
  PetscLayout     layout;
  Vec             X;

  PetscFunctionBegin;
  PetscCall(MechSystemGetCellFields(out->sys, &nf, &names, &ncomp));
  PetscCall(MechSystemGetNodeFields(out->sys, &nn, &nnames, &nncomp));
  if (!nf && !nn) PetscFunctionReturn(0);
  for (PetscInt g = 0; g < nn; g++)
    for (PetscInt f = 0; f < nf; f++) PetscCheck(strcmp(nnames[g], names[f]), out->comm, PETSC_ERR_ARG_WRONG, "Node field name \"%s\" is the name of a cell field", nnames[g]);
  PetscCall(MechSystemGetIOMesh(out->sys, NULL, &X, &nc, &cells));
  PetscCheck(X, out->comm, PETSC_ERR_ARG_WRONGSTATE, "The system has cell or node fields but no mesh (MechSystemSetIOMesh()): they cannot be written");
  PetscCall(PetscCalloc1(nf + nn, &out->cf));
  PetscCall(PetscCalloc1(nf + nn, &out->cfval));
  out->ncf    = nf + nn;
  out->ncellf = nf;
  if (nf) {
    PetscCall(MPIU_Allreduce(&nc, &NC, 1, MPIU_INT, MPI_SUM, out->comm));
    PetscCall(PetscLayoutCreateFromSizes(out->comm, PETSC_DECIDE, NC, 1, &layout));
    PetscCall(PetscLayoutGetRange(layout, &rstart, &rend));
    PetscCall(PetscMalloc1(nc + 1, &ids));
    for (PetscInt c = 0; c < nc; c++) {
      ids[c] = cells[(1 + out->nper) * c];
      PetscCheck(ids[c] >= 0 && ids[c] < NC, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cell number %" PetscInt_FMT " out of range [0, %" PetscInt_FMT ")", ids[c], NC);
    }
    PetscCall(PetscSFCreate(out->comm, &out->cfsf));
    PetscCall(PetscSFSetGraphLayout(out->cfsf, layout, nc, NULL, PETSC_COPY_VALUES, ids));
    PetscCall(PetscFree(ids));
    PetscCall(PetscLayoutDestroy(&layout));
  }
  for (PetscInt f = 0; f < nf; f++) {
    PetscCall(VecCreateMPI(out->comm, (rend - rstart) * ncomp[f], NC * ncomp[f], &out->cf[f]));
    PetscCall(VecSetBlockSize(out->cf[f], ncomp[f]));
    PetscCall(PetscObjectSetName((PetscObject)out->cf[f], names[f]));
    PetscCall(PetscMalloc1(nc * ncomp[f] + 1, &out->cfval[f]));
  }
  /* node fields: the rows of the state's layout, ncomp per node (the I/O order keeps the layout) */
  PetscCall(VecGetLocalSize(out->q, &nloc));
  if (nn) PetscCall(VecDuplicate(out->q, &out->nfwork));
  for (PetscInt f = 0; f < nn; f++) {
    PetscCall(VecCreateMPI(out->comm, (nloc / 3) * nncomp[f], PETSC_DETERMINE, &out->cf[nf + f]));
    PetscCall(VecSetBlockSize(out->cf[nf + f], nncomp[f]));
    PetscCall(PetscObjectSetName((PetscObject)out->cf[nf + f], nnames[f]));
    PetscCall(PetscMalloc1((nloc / 3) * nncomp[f] + 1, &out->cfval[nf + f]));
  }
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

/* What MechOutputCreate() prepares before it opens the file: errors here leave nothing behind */
static PetscErrorCode SetUp(MechOutput out, const char filename[])
{
  PetscInt ninv, j, k;

  PetscFunctionBegin;
  PetscCall(SetPaths(out, filename));
  PetscCall(CreateStateVectors(out));
  PetscCall(CreateCellFields(out));
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
  PetscCall(MechOutputRecordsSetUp(out));
  PetscFunctionReturn(0);
}

/*
  The checks MechOutputCreate() and MechOutputContinue() (caller, named in the messages) share:
  their arguments (the numbers in the messages are the callers' argument positions) and a TS with
  its type set. Takes the system from ts when *sys is NULL; gives the communicator and rank.
*/
PETSC_INTERN PetscErrorCode MechOutputCheckArguments(MechSystem *sys, TS ts, const char filename[], MechOutput *outp, const char caller[], MPI_Comm *comm, PetscMPIInt *rank)
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
PETSC_INTERN PetscErrorCode MechOutputNew(MPI_Comm comm, PetscMPIInt rank, MechSystem sys, PetscInt every, const char filename[], MechOutput *outp)
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
. out - the output; record with `MechOutputRecord()` or `TSMonitorMechOutput()`, then
        `MechOutputClose()` and `MechOutputDestroy()`

  Level: intermediate

  Notes:
  Fails, without leaving a file behind, if the file cannot be created (`MechIOCheckWritable()`).
  The file is written as filename.tmp-<pid of rank 0> and renamed to filename when the first
  completed step is recorded or at `MechOutputClose()`, so an existing filename is only replaced
  once the run has taken a step. The layout is documented in the README.

.seealso: `MechOutputRecord()`, `TSMonitorMechOutput()`, `MechOutputFlush()`, `MechOutputClose()`,
          `MechOutputDestroy()`, `MechOutputContinue()`
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
  PetscCall(MechOutputCheckArguments(&sys, ts, filename, outp, "MechOutputCreate", &comm, &rank));
  PetscCall(MechOutputNew(comm, rank, sys, every, filename, &out));
  /* the temporary name is rank 0's */
  PetscCallMPI(MPI_Bcast(&pid, 1, MPI_INT, 0, comm));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp-%d", filename, pid));
  PetscCall(PetscStrallocpy(tmp, &out->tmppath));
  ierr = MechOutputOpenFile(comm, rank, filename, out->tmppath, &out->viewer);
  if (ierr) {
    (void)MechOutputFree(out);
    PetscCall(ierr);
  }
  {
    MechOutputQuiet q;

    /* a file with a partial header is not left behind (MechOutputEndWrite() removes it) */
    ierr = MechOutputBeginWrite(out, 0, &q);
    if (!ierr) ierr = MechOutputEndWrite(out, &q, MechOutputWriteHeader(out, ts));
    if (!ierr && out->ncells > 0) {
      /* the mesh (a system with MechSystemSetIOMesh()): its vertices and tetrahedra */
      ierr = MechOutputBeginWrite(out, (long long)out->shape[0] * 3 * 8 + (long long)out->ncells * out->nper * 8, &q);
      if (!ierr) ierr = MechOutputEndWrite(out, &q, MechOutputWriteMesh(out));
    }
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

  Input Parameter:
. out - the output, open and not failed

  Level: intermediate

  Notes:
  tsmech calls it before every checkpoint (after recording the checkpoint's step), so the
  output file of an interrupted run always reaches the step its last checkpoint holds.
  It is an error to flush an output that is closed or whose write failed.

.seealso: `MechOutputRecord()`, `MechOutputClose()`, `MechCheckpointWrite()`
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
    PetscCall(MechOutputCommit(out));
  }
  PetscCall(TSMechGetSolution(ts, out->q, out->v));
  PetscCall(MechSystemComputeEnergy(out->sys, t, out->q, out->v, &ke, &pe));
  for (j = 0; j < ninv; j++) PetscCall(MechSystemComputeInvariant(out->sys, j, t, out->q, out->v, NULL, &out->invval[j]));
  PetscCall(MechOutputRecordsRecord(out, t));
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

  Input Parameters:
+ out - the output, open and not failed
- ts  - the TS whose current state, time and step number are recorded

  Level: intermediate

  Notes:
  Works for every TS type (the state is read with `TSMechGetSolution()`). A second call for the same
  step number is ignored; step numbers must increase. A new file takes its name (it is renamed
  from its temporary one) at the record of the first completed step, the second record. Logged
  in the stage "Mech I/O".

.seealso: `MechOutputCreate()`, `TSMonitorMechOutput()`, `MechOutputFlush()`, `MechOutputClose()`
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
  TSMonitorMechOutput - A TSMonitor recording every step with `MechOutputRecord()`; ctx is the
  MechOutput. Use with TSMonitorSet(ts, TSMonitorMechOutput, out, NULL).

  Collective

  Input Parameters:
+ ts   - the TS
. step - the step number (negative: ignored)
. t    - the time (not used: it is read from ts)
. X    - the solution vector (not used: the state is read from ts)
- ctx  - the `MechOutput`

  Level: intermediate

  Notes:
  The state is read from the TS, so X may be the first-order vector [q; v]. The call with a
  negative step that TSSolve() makes after interpolating to the final time is ignored: that
  state is not a step of the integration; nor is the call after a failed step (the TS's
  converged reason is then negative).

.seealso: `MechOutputRecord()`, `MechOutputCreate()`, `TSMonitorSet()`
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

  Level: intermediate

  Notes:
  Closing twice is harmless. An output whose write failed (`MechOutputRecord()` or
  `MechOutputFlush()` returned an error) is closed as it is, without writing anything more: it
  holds what its last successful flush wrote (a file still under its temporary name was removed
  at the failure); the close then fails if ts is at a step after the last one flushed. The file
  takes its final name at the close if no step renamed it before.

.seealso: `MechOutputCreate()`, `MechOutputRecord()`, `MechOutputDestroy()`
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
  PetscCall(MechOutputCommit(out));
  /* the XDMF only describes the closed file, so it is written once the .h5 is complete; rank 0
     writes it, every rank raises its error */
  PetscCall(MechSystemGetModelName(out->sys, &model));
  if (((out->dim >= 2 && out->shape[out->dim] == 3) || out->ncells > 0) && out->nsnap > 0) {
    PetscErrorCode ierr                          = 0;
    char           msg[PETSC_MAX_PATH_LEN + 256] = "";

    if (out->rank == 0) {
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      const char *const *cfnames = NULL;
      const PetscInt    *cfncomp = NULL;

      const char *const *nfnames = NULL;
      const PetscInt    *nfncomp = NULL;
      PetscInt           nnf     = 0;

      PetscCall(MechSystemGetCellFields(out->sys, NULL, &cfnames, &cfncomp));
      PetscCall(MechSystemGetNodeFields(out->sys, &nnf, &nfnames, &nfncomp));
      const char *topo = NULL;

      PetscCall(MechSystemGetIOMeshCells(out->sys, NULL, &topo));
      ierr = MechOutputWriteXDMF(out->xmfpath, out->h5name, model ? model : "user", out->dim, out->shape, out->ncells, out->nper, topo, out->nsnap, out->snaptime, out->ncellf, cfnames, cfncomp, nnf, nfnames, nfncomp);
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

  Input Parameter:
. out - address of the output (it may hold NULL); set to NULL on return

  Level: intermediate

.seealso: `MechOutputCreate()`, `MechOutputClose()`
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
