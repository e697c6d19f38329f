/*
  A state read from a snapshot of a tsmech output (MechOutputReadState()): the start of a run from
  where another ended (a body settled under gravity and then released, a prestressed start). The
  file is checked strictly (h5read.c) against the system before anything is read: the model, the
  parameters that fix the mesh (the caller names them: the solid's vertices, cells, order, cell and
  mesh_checksum), the shape of /fields/q; then each rank reads its rows of the snapshot, in the
  file's rank-independent node order, and puts them into the state's order (MechIOPermute()).
*/
#define _POSIX_C_SOURCE 200809L
#include <petsc/private/viewerhdf5impl.h> /* PetscCallHDF5(); first, as it must precede <hdf5.h> */
#include "outputimpl.h"
#include <string.h>

#if defined(PETSC_HAVE_HDF5)

/* The run's value of parameter name, as text (numeric or text parameter; "" if it has none) */
static PetscErrorCode OwnParameter(MechSystem sys, const char name[], char text[], size_t len, PetscBool *isnum, PetscReal *num)
{
  const char *const *names, *const *texts;
  const PetscReal *values;
  PetscInt         n;

  PetscFunctionBegin;
  text[0] = 0;
  *isnum  = PETSC_TRUE;
  PetscCall(MechSystemGetParameters(sys, &n, &names, &values));
  for (PetscInt i = 0; i < n; i++)
    if (!strcmp(names[i], name)) {
      *num = values[i];
      PetscCall(PetscSNPrintf(text, len, "%.17g", (double)values[i]));
    }
  if (text[0]) PetscFunctionReturn(0);
  PetscCall(MechSystemGetTextParameters(sys, &n, &names, &texts));
  for (PetscInt i = 0; i < n; i++)
    if (!strcmp(names[i], name)) {
      *isnum = PETSC_FALSE;
      PetscCall(PetscStrncpy(text, texts[i], len));
    }
  PetscFunctionReturn(0);
}

/* What the file says of the run: problem gets the first difference from this system ("" none) */
static PetscErrorCode CheckFile(MechSystem sys, hid_t file, PetscInt N, PetscInt nmatch, const char *const match[], PetscInt *nsnap, char problem[], size_t plen)
{
  hid_t       root, fields;
  const char *model;
  char        fmodel[256];
  PetscBool   has;
  hsize_t     dims[3], rows;
  htri_t      e;

  PetscFunctionBegin;
  *nsnap = 0;
  PetscCallHDF5Return(root, H5Gopen2, (file, "/", H5P_DEFAULT));
  PetscCall(MechSystemGetModelName(sys, &model));
  PetscCall(MechIOReadAttribute(root, "/", "model", MECH_IO_ATTR_STRING, fmodel, sizeof(fmodel), &has, problem, plen));
  if (!problem[0] && !has) PetscCall(PetscSNPrintf(problem, plen, "it is not a tsmech output (no attribute /model)"));
  if (!problem[0] && strcmp(fmodel, model ? model : "user")) PetscCall(PetscSNPrintf(problem, plen, "it holds a run of model %s, this run is model %s", fmodel, model ? model : "user"));
  for (PetscInt i = 0; i < nmatch && !problem[0]; i++) {
    char        own[512], ftext[256] = "", scratch[256] = "", name[128];
    const char *dflt = strchr(match[i], '=');
    PetscBool   isnum, fhas;
    PetscReal   num  = 0;
    double      fnum = 0;

    /* "name=default": a parameter a run records only when it differs from its default */
    PetscCall(PetscStrncpy(name, match[i], dflt ? PetscMin(sizeof(name), (size_t)(dflt - match[i] + 1)) : sizeof(name)));
    PetscCall(OwnParameter(sys, name, own, sizeof(own), &isnum, &num));
    if (dflt && !own[0]) {
      char *end;

      PetscCall(PetscStrncpy(own, dflt + 1, sizeof(own)));
      (void)strtod(own, &end);
      isnum = own[0] && !*end ? PETSC_TRUE : PETSC_FALSE;
    }
    if (isnum) {
      PetscCall(MechIOReadAttribute(root, "/", name, MECH_IO_ATTR_REAL, &fnum, 0, &fhas, scratch, sizeof(scratch)));
      fhas = fhas && !scratch[0] ? PETSC_TRUE : PETSC_FALSE;
      if (fhas) PetscCall(PetscSNPrintf(ftext, sizeof(ftext), "%.17g", fnum));
    } else PetscCall(MechIOReadAttribute(root, "/", name, MECH_IO_ATTR_STRING, ftext, sizeof(ftext), &fhas, scratch, sizeof(scratch)));
    if (dflt && !ftext[0]) PetscCall(PetscStrncpy(ftext, dflt + 1, sizeof(ftext)));
    if (strcmp(own, ftext)) PetscCall(PetscSNPrintf(problem, plen, "it holds a run with %s %s%s, this run has %s %s%s", name, ftext[0] ? "= " : "not given", ftext, name, own[0] ? "= " : "not given", own));
  }
  PetscCallHDF5(H5Gclose, (root));
  if (problem[0]) PetscFunctionReturn(0);
  PetscCallHDF5Return(e, H5Lexists, (file, "/fields", H5P_DEFAULT));
  if (!e) {
    PetscCall(PetscSNPrintf(problem, plen, "it has no snapshots (/fields)"));
    PetscFunctionReturn(0);
  }
  PetscCallHDF5Return(fields, H5Gopen2, (file, "fields", H5P_DEFAULT));
  dims[1] = (hsize_t)(N / 3);
  dims[2] = 3;
  PetscCall(MechIOCheckDataset(fields, "/fields", "q", H5T_IEEE_F64LE, 3, dims, PETSC_TRUE, &rows, NULL, problem, plen));
  if (!problem[0]) PetscCall(MechIOCheckDataset(fields, "/fields", "v", H5T_IEEE_F64LE, 3, dims, PETSC_TRUE, NULL, NULL, problem, plen));
  if (!problem[0]) {
    hsize_t trows;

    dims[0] = 0;
    PetscCall(MechIOCheckDataset(fields, "/fields", "time", H5T_IEEE_F64LE, 1, dims, PETSC_TRUE, &trows, NULL, problem, plen));
    rows = PetscMin(rows, trows);
  }
  PetscCallHDF5(H5Gclose, (fields));
  if (!problem[0] && !rows) PetscCall(PetscSNPrintf(problem, plen, "it has no snapshots (/fields/q is empty)"));
  *nsnap = (PetscInt)rows;
  PetscFunctionReturn(0);
}

/* Reads rows [rstart, rend) of snapshot k of /fields/<name> ([nsnap, nn, 3]) into a */
static PetscErrorCode ReadRows(hid_t file, const char name[], PetscInt k, PetscInt rstart, PetscInt rend, PetscScalar a[])
{
  hid_t   dset, fspace, mspace;
  hsize_t start[3] = {(hsize_t)k, (hsize_t)rstart, 0}, count[3] = {1, (hsize_t)(rend - rstart), 3};

  PetscFunctionBegin;
  PetscCallHDF5Return(dset, H5Dopen2, (file, name, H5P_DEFAULT));
  PetscCallHDF5Return(fspace, H5Dget_space, (dset));
  PetscCallHDF5Return(mspace, H5Screate_simple, (3, count, NULL));
  PetscCallHDF5(H5Sselect_hyperslab, (fspace, H5S_SELECT_SET, start, NULL, count, NULL));
  PetscCallHDF5(H5Dread, (dset, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, a));
  PetscCallHDF5(H5Sclose, (mspace));
  PetscCallHDF5(H5Sclose, (fspace));
  PetscCallHDF5(H5Dclose, (dset));
  PetscFunctionReturn(0);
}

/*@C
  MechOutputReadState - Reads a state from a snapshot of a tsmech output file: the start of a run
  from where another one ended.

  Collective

  Input Parameters:
+ sys    - the system (with a mesh and its rank-independent node order, `MechSystemSetIOOrdering()`,
           or plain state vectors of 3 dofs a node; not a grid model's DMDA)
. path   - the output file (`MechOutputCreate()`) of a run of the same model on the same mesh
. opt    - the option that named the file, for messages (e.g. "-solid_initial")
. nmatch, match - the model parameters (numeric or text) that must be equal in the file: those that
           fix the mesh and the element layout (the solid: vertices, cells, order=1, cell=tet,
           mesh_checksum); "name=default" gives the value of a parameter a run records only when
           it differs from default
. index  - the snapshot: 0, 1, ... from the first, -1, -2, ... from the last (used when time is NULL)
- time   - or the snapshot at this time (within 1e-12 relative), NULL: by index

  Output Parameters:
+ q     - the positions of the snapshot (state order)
. v     - its velocities (or NULL: not read)
. tsnap - the snapshot's time (or NULL)
- ksnap - its index from 0 (or NULL)

  Level: intermediate

  Notes:
  Refused, reading nothing, with one line naming opt, the file and the difference: a missing or
  damaged file, another model, any parameter of match different (or present in only one of the
  two), another shape of /fields/q, no snapshot at that time or index.

.seealso: `MechOutputCreate()`, `MechSystemSetInitialState()`
@*/
PetscErrorCode MechOutputReadState(MechSystem sys, const char path[], const char opt[], PetscInt nmatch, const char *const match[], PetscInt index, const PetscReal *time, Vec q, Vec v, PetscReal *tsnap, PetscInt *ksnap)
{
  MPI_Comm       comm          = PetscObjectComm((PetscObject)sys);
  hid_t          file          = -1;
  char           problem[1024] = "";
  PetscInt       nsnap = 0, k = -1, rstart, rend, N;
  PetscReal     *times = NULL, tk = 0;
  PetscBool      ok, exists       = PETSC_FALSE;
  PetscErrorCode ierr;
  H5E_auto2_t    efunc;
  void          *edata;
  DM             dm;

  PetscFunctionBegin;
  PetscCall(MechSystemGetDM(sys, &dm));
  if (dm) {
    PetscBool isda;

    PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
    PetscCheck(!isda, comm, PETSC_ERR_SUP, "%s %s: a grid model's state cannot be read from an output yet", opt, path);
  }
  PetscCall(PetscTestFile(path, 'r', &exists));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &exists, 1, MPIU_BOOL, MPI_LAND, comm));
  PetscCheck(exists, comm, PETSC_ERR_FILE_OPEN, "%s %s: the file does not exist or is not readable", opt, path);
  /* every rank reads the metadata itself, silently; the ranks agree on the verdict */
  PetscCallHDF5(H5Eget_auto2, (H5E_DEFAULT, &efunc, &edata));
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, NULL, NULL));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  file = MechIOOpenReadOnly(path);
  PetscCall(VecGetSize(q, &N));
  ierr = file < 0 ? PETSC_ERR_FILE_OPEN : CheckFile(sys, file, N, nmatch, match, &nsnap, problem, sizeof(problem));
  if (!ierr && !problem[0]) {
    ierr = PetscMalloc1(nsnap, &times);
    if (!ierr) {
      hid_t dset = H5Dopen2(file, "/fields/time", H5P_DEFAULT);
      hid_t fsp  = dset < 0 ? -1 : H5Dget_space(dset);
      hid_t msp;

      hsize_t start = 0, count = (hsize_t)nsnap;
      msp = H5Screate_simple(1, &count, NULL);
      if (dset < 0 || fsp < 0 || msp < 0 || H5Sselect_hyperslab(fsp, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0 || H5Dread(dset, H5T_NATIVE_DOUBLE, msp, fsp, H5P_DEFAULT, times) < 0) ierr = PETSC_ERR_FILE_READ;
      if (msp >= 0) (void)H5Sclose(msp);
      if (fsp >= 0) (void)H5Sclose(fsp);
      if (dset >= 0) (void)H5Dclose(dset);
    }
  }
  PetscCall(PetscPopErrorHandler());
  ok = ierr ? PETSC_FALSE : PETSC_TRUE;
  PetscCall(MechIOAgreeProblem(comm, &ok, problem, sizeof(problem)));
  if (ok && !problem[0]) {
    /* the snapshot: at the time given, or by its index */
    if (time) {
      for (PetscInt i = 0; i < nsnap && k < 0; i++)
        if (PetscAbsReal(times[i] - *time) <= 1e-12 * PetscMax(1, PetscAbsReal(*time))) k = i;
      if (k < 0) PetscCall(PetscSNPrintf(problem, sizeof(problem), "it has no snapshot at t = %g (its %" PetscInt_FMT " snapshots are at t = %g ... %g)", (double)*time, nsnap, (double)times[0], (double)times[nsnap - 1]));
    } else {
      k = index < 0 ? nsnap + index : index;
      if (k < 0 || k >= nsnap) PetscCall(PetscSNPrintf(problem, sizeof(problem), "it has %" PetscInt_FMT " snapshots, no snapshot %" PetscInt_FMT, nsnap, index));
    }
    if (!problem[0]) tk = times[k];
  }
  if (ok && !problem[0]) {
    PetscScalar *a;

    /* this rank's rows of the rank-independent order, then into the state's order */
    PetscCall(VecGetOwnershipRange(q, &rstart, &rend));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = VecGetArray(q, &a);
    if (!ierr) ierr = ReadRows(file, "/fields/q", k, rstart / 3, rend / 3, a);
    (void)VecRestoreArray(q, &a);
    if (!ierr && v) {
      ierr = VecGetArray(v, &a);
      if (!ierr) ierr = ReadRows(file, "/fields/v", k, rstart / 3, rend / 3, a);
      (void)VecRestoreArray(v, &a);
    }
    PetscCall(PetscPopErrorHandler());
    ok = ierr ? PETSC_FALSE : PETSC_TRUE;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, MPIU_BOOL, MPI_LAND, comm));
  }
  if (file >= 0) {
    MechIOCloseObjects(file);
    (void)H5Fclose(file);
  }
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, efunc, edata));
  PetscCall(PetscFree(times));
  if (!ok || problem[0]) PetscCall(MechIOQuietExit());
  PetscCheck(ok, comm, PETSC_ERR_FILE_READ, "%s %s: the file cannot be read as a tsmech output (damaged or not HDF5)", opt, path);
  PetscCheck(!problem[0], comm, PETSC_ERR_ARG_INCOMP, "%s %s: %s", opt, path, problem);
  PetscCall(MechIOPermute(sys, q, SCATTER_REVERSE));
  if (v) PetscCall(MechIOPermute(sys, v, SCATTER_REVERSE));
  if (tsnap) *tsnap = tk;
  if (ksnap) *ksnap = k;
  PetscFunctionReturn(0);
}

#else

PetscErrorCode MechOutputReadState(MechSystem sys, const char path[], const char opt[], PetscInt nmatch, const char *const match[], PetscInt index, const PetscReal *time, Vec q, Vec v, PetscReal *tsnap, PetscInt *ksnap)
{
  PetscFunctionBegin;
  SETERRQ(PetscObjectComm((PetscObject)sys), PETSC_ERR_SUP_SYS, "%s %s: PETSc was configured without HDF5", opt, path);
}

#endif
