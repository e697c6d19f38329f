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
*/
#include <petsc/private/viewerhdf5impl.h> /* PetscCallHDF5(); first, as it must precede <hdf5.h> */
#include <petsc/private/petscimpl.h>
#include <petscdmda.h>
#include "outputimpl.h"

#define MECH_OUTPUT_NREAL 5 /* time, dt, kinetic, potential, energy; the invariants follow */
#define MECH_OUTPUT_NINT  3 /* step, snes_its, ksp_its */

static const char *const MechOutputRealNames[MECH_OUTPUT_NREAL] = {"time", "dt", "kinetic", "potential", "energy"};
static const char *const MechOutputIntNames[MECH_OUTPUT_NINT]   = {"step", "snes_its", "ksp_its"};

struct _n_MechOutput {
  MechSystem  sys;
  PetscViewer viewer; /* NULL once closed */
  MPI_Comm    comm;
  PetscMPIInt rank;
  char       *h5path, *xmfpath, *h5name; /* h5name: the .h5 relative to the .xmf */
  PetscInt    every;

  Vec      q, v;     /* the state copied out of the TS; DMDA global vectors for grid models */
  PetscInt dim;      /* dimension of the system's DMDA, 0 without one */
  PetscInt shape[4]; /* one snapshot, slowest first: [(P,) (N,) M, dof] */

  /* /monitor: one record per step; the values are kept on rank 0 only, the counts everywhere */
  PetscInt    nrec, maxrec, nflushed;
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
  extension are collective in parallel HDF5; only rank 0's data (entries [from, n)) are read.
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
    PetscCallHDF5(H5Dwrite, (dset, memtype, memspace, filespace, H5P_DEFAULT, out->rank == 0 ? (const char *)data + (size_t)from * H5Tget_size(memtype) : NULL));
    PetscCallHDF5(H5Sclose, (memspace));
    PetscCallHDF5(H5Sclose, (filespace));
  }
  PetscCallHDF5(H5Dclose, (dset));
  if (groupid != fileid) PetscCallHDF5(H5Gclose, (groupid));
  PetscFunctionReturn(0);
}

/* Writes the /monitor records not yet in the file. Collective. */
static PetscErrorCode FlushMonitor(MechOutput out)
{
  hid_t    inttype, realtype;
  PetscInt j;

  PetscFunctionBegin;
  PetscCall(PetscDataTypeToHDF5DataType(PETSC_INT, &inttype));
  PetscCall(PetscDataTypeToHDF5DataType(PETSC_REAL, &realtype));
  for (j = 0; j < out->nreal; j++) {
    const char *name = j < MECH_OUTPUT_NREAL ? MechOutputRealNames[j] : out->invname[j - MECH_OUTPUT_NREAL];
    PetscCall(WriteSeries(out, "/monitor", name, realtype, H5T_IEEE_F64LE, out->nflushed, out->nrec, out->real[j]));
  }
  for (j = 0; j < MECH_OUTPUT_NINT; j++) PetscCall(WriteSeries(out, "/monitor", MechOutputIntNames[j], inttype, H5T_STD_I64LE, out->nflushed, out->nrec, out->ints[j]));
  out->nflushed = out->nrec;
  PetscFunctionReturn(0);
}

/* Appends the snapshot (out->q, out->v) of the given step and time to /fields, then brings
   /monitor up to date and flushes the file. Collective. */
static PetscErrorCode WriteSnapshot(MechOutput out, PetscInt step, PetscReal t)
{
  hid_t fileid, inttype, realtype;

  PetscFunctionBegin;
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
  PetscCall(WriteSeries(out, "/fields", "time", realtype, H5T_IEEE_F64LE, out->nsnap - 1, out->nsnap, out->snaptime));
  PetscCall(WriteSeries(out, "/fields", "step", inttype, H5T_STD_I64LE, out->nsnap - 1, out->nsnap, out->snapstep));
  PetscCall(FlushMonitor(out));
  PetscCall(PetscViewerHDF5GetFileId(out->viewer, &fileid));
  PetscCallHDF5(H5Fflush, (fileid, H5F_SCOPE_GLOBAL));
  PetscFunctionReturn(0);
}

/* The run's metadata as attributes of / */
static PetscErrorCode WriteHeader(MechOutput out, TS ts)
{
  static const char *const reserved[] = {"model", "model_parameters", "ts_type", "dt", "nranks", "every", "tsmech_version", "petsc_version", "theta", "endpoint", "linearized", "guess", "alpha_m", "alpha_f", "gamma", "beta"};
  const char              *model, *type;
  const char *const       *pnames;
  const PetscReal         *pvalues;
  PetscInt                 np, i, j, ival;
  PetscMPIInt              size;
  PetscReal                dt;
  PetscBool                flg;
  char                     version[256], *plist;
  size_t                   len = 1;

  PetscFunctionBegin;
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

    flg = PETSC_FALSE;
    for (j = 0; j < (PetscInt)(sizeof(reserved) / sizeof(reserved[0])) && !flg; j++) PetscCall(PetscStrcmp(pnames[i], reserved[j], &flg));
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s%s", flg ? "param_" : "", pnames[i]));
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

  /* parameters of the integrator, for the types that have getters; the type test keeps other
     types from erroring in the getters */
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ts, &flg, TSTHETA2, TSBEULER2, TSCN2, TSMIDPOINT2, TSEULER2, ""));
  if (flg) {
    PetscReal     theta;
    PetscBool     endpoint, linearized;
    TSTheta2Guess guess;

    PetscCall(TSTheta2GetTheta(ts, &theta));
    PetscCall(TSTheta2GetEndpoint(ts, &endpoint));
    PetscCall(TSTheta2GetLinearized(ts, &linearized, &guess));
    PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "theta", PETSC_REAL, &theta));
    ival = endpoint;
    PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "endpoint", PETSC_INT, &ival));
    ival = linearized;
    PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "linearized", PETSC_INT, &ival));
    PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "guess", PETSC_STRING, TSTheta2Guesses[guess]));
  }
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ts, &flg, TSTHETA, TSBEULER, TSCN, ""));
  if (flg) {
    PetscReal theta;
    PetscBool endpoint;

    PetscCall(TSThetaGetTheta(ts, &theta));
    PetscCall(TSThetaGetEndpoint(ts, &endpoint));
    PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "theta", PETSC_REAL, &theta));
    ival = endpoint;
    PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "endpoint", PETSC_INT, &ival));
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSALPHA2, &flg));
  if (flg) {
    PetscReal alpha_m, alpha_f, gamma, beta;

    PetscCall(TSAlpha2GetParams(ts, &alpha_m, &alpha_f, &gamma, &beta));
    PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "alpha_m", PETSC_REAL, &alpha_m));
    PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "alpha_f", PETSC_REAL, &alpha_f));
    PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "gamma", PETSC_REAL, &gamma));
    PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "beta", PETSC_REAL, &beta));
  }
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
  PetscCall(PetscFree(out->xmfpath));
  PetscCall(PetscFree(out->h5name));
  PetscCall(PetscFree(out));
  PetscFunctionReturn(0);
}

/*
  The state vectors. For a system on a DMDA they are global vectors of that DMDA, so VecView
  writes them in natural ordering with the grid's shape; the model's state must then have the
  DMDA's parallel layout (it lives on the DM: MechSystemSetDM()).
*/
static PetscErrorCode CreateStateVectors(MechOutput out)
{
  DM        dm;
  PetscBool isda;
  Vec       q0, v0;
  PetscInt  n0, n, M, N, P, dof, bad;

  PetscFunctionBegin;
  PetscCall(MechSystemCreateState(out->sys, &q0, &v0));
  PetscCall(MechSystemGetDM(out->sys, &dm));
  isda = PETSC_FALSE;
  if (dm) PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (isda) {
    PetscCall(DMCreateGlobalVector(dm, &out->q));
    PetscCall(VecGetLocalSize(q0, &n0));
    PetscCall(VecGetLocalSize(out->q, &n));
    bad = n != n0;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_MAX, out->comm));
    PetscCheck(!bad, out->comm, PETSC_ERR_ARG_INCOMP, "The state does not have the parallel layout of the system's DMDA (MechSystemSetDM()): it cannot be written on the grid");
    PetscCall(DMDAGetInfo(dm, &out->dim, &M, &N, &P, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
    n = 0;
    if (out->dim == 3) out->shape[n++] = P;
    if (out->dim >= 2) out->shape[n++] = N;
    out->shape[n++] = M;
    out->shape[n++] = dof;
    PetscCall(VecDuplicate(out->q, &out->v));
    PetscCall(VecDestroy(&q0));
    PetscCall(VecDestroy(&v0));
  } else {
    out->dim = 0;
    out->q   = q0;
    out->v   = v0;
  }
  /* the names of the datasets in /fields */
  PetscCall(PetscObjectSetName((PetscObject)out->q, "q"));
  PetscCall(PetscObjectSetName((PetscObject)out->v, "v"));
  PetscFunctionReturn(0);
}

/* Path of the XDMF file (FILE.h5 -> FILE.xmf) and name of the .h5 relative to it */
static PetscErrorCode SetPaths(MechOutput out, const char filename[])
{
  size_t    len, base = 0, i;
  PetscBool h5;

  PetscFunctionBegin;
  PetscCall(PetscStrallocpy(filename, &out->h5path));
  PetscCall(PetscStrlen(filename, &len));
  for (i = 0; i < len; i++)
    if (filename[i] == '/') base = i + 1;
  PetscCall(PetscStrallocpy(filename + base, &out->h5name));
  PetscCall(PetscStrendswith(filename, ".h5", &h5));
  PetscCall(PetscMalloc1(len + 5, &out->xmfpath));
  PetscCall(PetscStrncpy(out->xmfpath, filename, h5 ? len - 1 : len + 1)); /* FILE. or FILE */
  PetscCall(PetscStrlcat(out->xmfpath, h5 ? "xmf" : ".xmf", len + 5));
  PetscFunctionReturn(0);
}

/*
  Opens the file: refuses up front a path whose directory is missing or not writable, and turns
  a failure of the HDF5 open itself into an error naming the path (HDF5's own error stack is
  silenced meanwhile). Removes a file the failed attempt may have created.
*/
static PetscErrorCode OpenFile(MPI_Comm comm, PetscMPIInt rank, const char filename[], PetscViewer *viewer)
{
  PetscErrorCode ierr;
  PetscBool      ok = PETSC_TRUE, flags[2] = {PETSC_FALSE, PETSC_FALSE};
  H5E_auto2_t    efunc;
  void          *edata;

  PetscFunctionBegin;
  if (rank == 0) {
    char      dir[PETSC_MAX_PATH_LEN];
    size_t    len, i, slash = 0;
    PetscBool has = PETSC_FALSE;

    PetscCall(PetscStrlen(filename, &len));
    for (i = 0; i < len; i++)
      if (filename[i] == '/') {
        slash = i;
        has   = PETSC_TRUE;
      }
    if (!has) PetscCall(PetscStrncpy(dir, ".", sizeof(dir)));
    else PetscCall(PetscStrncpy(dir, filename, PetscMin(sizeof(dir), slash ? slash + 1 : 2)));
    PetscCall(PetscTestDirectory(dir, 'w', &flags[0]));
    PetscCall(PetscTestFile(filename, 'r', &flags[1]));
  }
  PetscCallMPI(MPI_Bcast(flags, 2, MPIU_BOOL, 0, comm));
  PetscCheck(flags[0], comm, PETSC_ERR_FILE_OPEN, "Cannot create the HDF5 output file %s: its directory does not exist or is not writable", filename);
  PetscCallHDF5(H5Eget_auto2, (H5E_DEFAULT, &efunc, &edata));
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, NULL, NULL));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  /* no PetscViewerSetFromOptions(): -viewer_hdf5_sp_output or _base_dimension2 would change the
     documented layout */
  *viewer = NULL;
  ierr    = PetscViewerCreate(comm, viewer);
  if (!ierr) ierr = PetscViewerSetType(*viewer, PETSCVIEWERHDF5);
  if (!ierr) ierr = PetscViewerFileSetMode(*viewer, FILE_MODE_WRITE);
  if (!ierr) ierr = PetscViewerFileSetName(*viewer, filename);
  if (ierr) ok = PETSC_FALSE;
  PetscCall(PetscPopErrorHandler());
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, efunc, edata));
  if (!ok) {
    /* PETSc 3.18 keeps the negative id of the failed H5Fcreate() and would flush and close it
       when the viewer is destroyed */
    if (*viewer && ((PetscViewer_HDF5 *)(*viewer)->data)->file_id < 0) ((PetscViewer_HDF5 *)(*viewer)->data)->file_id = 0;
    PetscCall(PetscViewerDestroy(viewer));
    if (rank == 0 && !flags[1]) {
      PetscBool now;
      PetscCall(PetscTestFile(filename, 'r', &now));
      if (now) (void)remove(filename);
    }
    SETERRQ(comm, PETSC_ERR_FILE_OPEN, "Cannot create the HDF5 output file %s", filename);
  }
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
  Fails, without leaving a file behind, if the file cannot be created.
  The layout is documented in the README.
@*/
PetscErrorCode MechOutputCreate(MechSystem sys, TS ts, const char filename[], PetscInt every, MechOutput *outp)
{
  MPI_Comm       comm;
  PetscMPIInt    rank;
  const char    *type;
  MechOutput     out;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 2);
  PetscValidCharPointer(filename, 3);
  PetscValidPointer(outp, 5);
  *outp = NULL;
  PetscCall(PetscObjectGetComm((PetscObject)ts, &comm));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!sys) PetscCall(TSMechGetSystem(ts, &sys));
  PetscCheck(sys, comm, PETSC_ERR_ARG_WRONGSTATE, "No MechSystem given nor attached to the TS (TSMechSetSystem())");
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(TSGetType(ts, &type));
  PetscCheck(type, comm, PETSC_ERR_ARG_WRONGSTATE, "Set the TS type (TSSetType() or TSSetFromOptions()) before MechOutputCreate(): it is recorded in the file");
  PetscCheck(filename[0], comm, PETSC_ERR_ARG_WRONG, "Empty file name for the HDF5 output");
  PetscCall(PetscNew(&out));
  out->comm  = comm;
  out->rank  = rank;
  out->every = every > 0 ? every : 0;
  PetscCall(PetscObjectReference((PetscObject)sys));
  out->sys = sys;
  ierr     = SetUp(out, filename);
  if (!ierr) ierr = OpenFile(comm, rank, filename, &out->viewer);
  if (ierr) {
    (void)MechOutputFree(out);
    PetscCall(ierr);
  }
  ierr = WriteHeader(out, ts);
  if (ierr) {
    /* do not leave a file with a partial header behind */
    (void)PetscViewerDestroy(&out->viewer);
    if (rank == 0) (void)remove(filename);
    (void)MechOutputFree(out);
    PetscCall(ierr);
  }
  *outp = out;
  PetscFunctionReturn(0);
}

/*@C
  MechOutputRecord - Records the current state of ts: one /monitor entry (time, step size,
  energies, iterations of the step, invariants) and, every `every` steps and at the first record,
  a snapshot of (q, v) in /fields.

  Collective

  Notes:
  Works for every TS type (the state is read with TSMechGetSolution()). A second call for the same
  step number is ignored; step numbers must increase.
@*/
PetscErrorCode MechOutputRecord(MechOutput out, TS ts)
{
  PetscInt  step, sits, kits, j, ninv = out ? out->nreal - MECH_OUTPUT_NREAL : 0;
  PetscReal t, ke, pe;
  PetscBool first;

  PetscFunctionBegin;
  PetscValidPointer(out, 1);
  PetscValidHeaderSpecific(ts, TS_CLASSID, 2);
  PetscCheck(out->viewer, out->comm, PETSC_ERR_ARG_WRONGSTATE, "The output to %s is closed", out->h5path);
  PetscCall(TSGetStepNumber(ts, &step));
  PetscCall(TSGetTime(ts, &t));
  first = out->nrec ? PETSC_FALSE : PETSC_TRUE;
  if (!first) {
    /* a monitor called twice for one step, e.g. by hand before TSSolve() and by TSSolve() */
    if (step == out->laststep) PetscFunctionReturn(0);
    PetscCheck(step > out->laststep, out->comm, PETSC_ERR_ARG_WRONGSTATE, "Step %" PetscInt_FMT " recorded after step %" PetscInt_FMT ": the output needs increasing step numbers", step, out->laststep);
  }
  PetscCall(TSMechGetSolution(ts, out->q, out->v));
  PetscCall(MechSystemComputeEnergy(out->sys, t, out->q, out->v, &ke, &pe));
  for (j = 0; j < ninv; j++) PetscCall(MechSystemComputeInvariant(out->sys, j, t, out->q, out->v, NULL, &out->invval[j]));
  PetscCall(TSGetSNESIterations(ts, &sits));
  PetscCall(TSGetKSPIterations(ts, &kits));
  if (out->rank == 0) {
    PetscInt n = out->nrec;

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
  TSMonitorMechOutput - A TSMonitor recording every step with MechOutputRecord(); ctx is the
  MechOutput. Use with TSMonitorSet(ts, TSMonitorMechOutput, out, NULL).

  Notes:
  The state is read from the TS, so X may be the first-order vector [q; v]. The call with a
  negative step that TSSolve() makes after interpolating to the final time is ignored: that
  state is not a step of the integration.
@*/
PetscErrorCode TSMonitorMechOutput(TS ts, PetscInt step, PetscReal t, Vec X, void *ctx)
{
  PetscFunctionBegin;
  (void)t;
  (void)X;
  if (step < 0) PetscFunctionReturn(0);
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
  Closing twice is harmless.
@*/
PetscErrorCode MechOutputClose(MechOutput out, TS ts)
{
  const char *model;

  PetscFunctionBegin;
  PetscValidPointer(out, 1);
  if (!out->viewer) PetscFunctionReturn(0);
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
  PetscCall(FlushMonitor(out));
  PetscCall(PetscViewerDestroy(&out->viewer));
  /* the XDMF only describes the closed file, so it is written once the .h5 is complete */
  PetscCall(MechSystemGetModelName(out->sys, &model));
  if (out->rank == 0 && out->dim >= 2 && out->shape[out->dim] == 3 && out->nsnap > 0) PetscCall(MechOutputWriteXDMF(out->xmfpath, out->h5name, model ? model : "user", out->dim, out->shape, out->nsnap, out->snaptime));
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
#endif
