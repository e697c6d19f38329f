/*
  The per-step records of a system (MechSystemAddRecords(): the solid's probes, the reactions and
  the energy balance) in the HDF5 output: one row per step beside /monitor's scalars, written as
  /monitor/<name>, [steps] for one component and [steps, ncomp] for more, extendible and chunked
  like the others, flushed with them (output.c), cut back with them when a restart continues the
  file (outputcontinue.c). Rank 0 keeps the rows not yet written.
*/
#define _POSIX_C_SOURCE 200809L
#include <petsc/private/viewerhdf5impl.h> /* PetscCallHDF5(); first, as it must precede <hdf5.h> */
#include "outputimpl.h"
#include <string.h>

#if defined(PETSC_HAVE_HDF5)

struct _n_MechOutputRecords {
  PetscInt   n, nvalues; /* records, and their reals per step */
  char     **names;
  PetscInt  *ncomp, *off;
  PetscReal *now;  /* this step's values (every rank) */
  PetscReal *rows; /* rank 0: rows [out->base, out->nrec), nvalues each */
  PetscInt   maxrows;
  PetscReal *col; /* work: one record's rows, contiguous */
};

/* Whether the top of a record's name is a /monitor dataset of the output (time, energy, an invariant) */
static PetscBool ClashesWithMonitor(MechOutput out, const char name[])
{
  char top[256];

  (void)PetscStrncpy(top, name, sizeof(top));
  if (strchr(top, '/')) *strchr(top, '/') = 0;
  for (PetscInt j = 0; j < out->nreal + MECH_OUTPUT_NINT; j++) {
    const char *m = j < MECH_OUTPUT_NREAL ? MechOutputRealNames[j] : (j < out->nreal ? out->invname[j - MECH_OUTPUT_NREAL] : MechOutputIntNames[j - out->nreal]);

    if (!strcmp(top, m)) return PETSC_TRUE;
  }
  return PETSC_FALSE;
}

/* The system's records (output.c, SetUp()) */
PetscErrorCode MechOutputRecordsSetUp(MechOutput out)
{
  struct _n_MechOutputRecords *r;
  const char *const           *names;
  const PetscInt              *ncomp;
  PetscInt                     n;

  PetscFunctionBegin;
  PetscCall(MechSystemGetRecords(out->sys, &n, &names, &ncomp));
  if (!n) PetscFunctionReturn(0);
  PetscCall(PetscNew(&r));
  out->records = r;
  r->n         = n;
  PetscCall(PetscCalloc3(n, &r->names, n, &r->ncomp, n + 1, &r->off));
  for (PetscInt i = 0; i < n; i++) {
    PetscCheck(!ClashesWithMonitor(out, names[i]), out->comm, PETSC_ERR_ARG_WRONG, "Record \"%s\" has the name of a /monitor dataset", names[i]);
    PetscCall(PetscStrallocpy(names[i], &r->names[i]));
    r->ncomp[i]   = ncomp[i];
    r->off[i + 1] = r->off[i] + ncomp[i];
  }
  r->nvalues = r->off[n];
  PetscCall(PetscMalloc1(r->nvalues, &r->now));
  PetscFunctionReturn(0);
}

/* This step's values (collective: the providers' evaluations), kept on rank 0 as row out->nrec */
PetscErrorCode MechOutputRecordsRecord(MechOutput out, PetscReal t)
{
  struct _n_MechOutputRecords *r = out->records;

  PetscFunctionBegin;
  if (!r) PetscFunctionReturn(0);
  PetscCall(MechSystemComputeRecords(out->sys, t, out->q, out->v, r->now));
  if (out->rank == 0) {
    const PetscInt row = out->nrec - out->base;

    if (row >= r->maxrows) {
      r->maxrows = PetscMax(64, 2 * (row + 1));
      PetscCall(PetscRealloc(sizeof(PetscReal) * r->maxrows * r->nvalues, &r->rows));
    }
    PetscCall(PetscArraycpy(&r->rows[(size_t)row * r->nvalues], r->now, r->nvalues));
  }
  PetscFunctionReturn(0);
}

/* The dataset of record i as a path under the file's root */
static void RecordPath(const struct _n_MechOutputRecords *r, PetscInt i, char path[], size_t len)
{
  (void)PetscSNPrintf(path, len, "/monitor/%s", r->names[i]);
}

/*
  Writes rows [from, n) of every record (rank 0's data; every rank takes part in the dataset's
  creation and extension, collective in parallel HDF5). Collective.
*/
PetscErrorCode MechOutputRecordsFlush(MechOutput out, PetscInt from, PetscInt n)
{
  struct _n_MechOutputRecords *r = out->records;
  hid_t                        fileid;

  PetscFunctionBegin;
  if (!r) PetscFunctionReturn(0);
  PetscCall(PetscViewerHDF5GetFileId(out->viewer, &fileid));
  if (out->rank == 0 && n > from) PetscCall(PetscRealloc(sizeof(PetscReal) * (n - from) * 9, &r->col));
  for (PetscInt i = 0; i < r->n; i++) {
    const int ndims = r->ncomp[i] > 1 ? 2 : 1;
    char      path[PETSC_MAX_PATH_LEN];
    hsize_t   dims[2] = {(hsize_t)n, (hsize_t)r->ncomp[i]}, maxdims[2] = {H5S_UNLIMITED, (hsize_t)r->ncomp[i]}, chunk[2] = {256, (hsize_t)r->ncomp[i]};
    htri_t    exists;
    hid_t     dset, fspace, mspace;

    RecordPath(r, i, path, sizeof(path));
    PetscCall(MechOutputPathExists(fileid, path, &exists));
    if (!exists) {
      hid_t dcpl, lcpl;

      PetscCallHDF5Return(fspace, H5Screate_simple, (ndims, dims, maxdims));
      PetscCallHDF5Return(dcpl, H5Pcreate, (H5P_DATASET_CREATE));
      PetscCallHDF5(H5Pset_chunk, (dcpl, ndims, chunk));
      PetscCallHDF5Return(lcpl, H5Pcreate, (H5P_LINK_CREATE));
      PetscCallHDF5(H5Pset_create_intermediate_group, (lcpl, 1));
      PetscCallHDF5Return(dset, H5Dcreate2, (fileid, path, H5T_IEEE_F64LE, fspace, lcpl, dcpl, H5P_DEFAULT));
      PetscCallHDF5(H5Pclose, (lcpl));
      PetscCallHDF5(H5Pclose, (dcpl));
      PetscCallHDF5(H5Sclose, (fspace));
    } else {
      PetscCallHDF5Return(dset, H5Dopen2, (fileid, path, H5P_DEFAULT));
      PetscCallHDF5(H5Dset_extent, (dset, dims));
    }
    if (n > from) {
      hsize_t start[2] = {(hsize_t)from, 0}, count[2] = {(hsize_t)(n - from), (hsize_t)r->ncomp[i]};

      PetscCallHDF5Return(fspace, H5Dget_space, (dset));
      PetscCallHDF5Return(mspace, H5Screate_simple, (ndims, count, NULL));
      if (out->rank == 0) {
        for (PetscInt k = from; k < n; k++)
          for (PetscInt j = 0; j < r->ncomp[i]; j++) r->col[(k - from) * r->ncomp[i] + j] = r->rows[(size_t)(k - out->base) * r->nvalues + r->off[i] + j];
        PetscCallHDF5(H5Sselect_hyperslab, (fspace, H5S_SELECT_SET, start, NULL, count, NULL));
      } else {
        PetscCallHDF5(H5Sselect_none, (fspace));
        PetscCallHDF5(H5Sselect_none, (mspace));
      }
      PetscCallHDF5(H5Dwrite, (dset, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, out->rank == 0 ? r->col : NULL));
      PetscCallHDF5(H5Sclose, (mspace));
      PetscCallHDF5(H5Sclose, (fspace));
    }
    PetscCallHDF5(H5Dclose, (dset));
  }
  PetscFunctionReturn(0);
}

/* Whether every link of the absolute path exists (H5Lexists() needs its parents to) */
PetscErrorCode MechOutputPathExists(hid_t loc, const char path[], htri_t *exists)
{
  char   buf[PETSC_MAX_PATH_LEN];
  size_t n;

  PetscFunctionBegin;
  *exists = 1;
  PetscCall(PetscStrncpy(buf, path, sizeof(buf)));
  n = strlen(buf);
  for (size_t k = 1; k <= n && *exists > 0; k++) {
    if (k < n && buf[k] != '/') continue;
    buf[k] = 0;
    PetscCallHDF5Return(*exists, H5Lexists, (loc, buf, H5P_DEFAULT));
    if (k < n) buf[k] = '/';
  }
  if (*exists < 0) *exists = 0;
  PetscFunctionReturn(0);
}

/* A continued file: every record's dataset must be there with its shape and reach nrec rows (problem if not). Not collective. */
PetscErrorCode MechOutputRecordsInspect(MechOutput out, hid_t fileid, hsize_t nrec, char problem[], size_t plen)
{
  struct _n_MechOutputRecords *r = out->records;

  PetscFunctionBegin;
  for (PetscInt i = 0; r && i < r->n && !problem[0]; i++) {
    char      path[PETSC_MAX_PATH_LEN], dir[PETSC_MAX_PATH_LEN], *slash;
    htri_t    exists;
    hsize_t   dims[2] = {0, (hsize_t)r->ncomp[i]}, rows;
    hid_t     group;
    PetscBool has;

    RecordPath(r, i, path, sizeof(path));
    PetscCall(MechOutputPathExists(fileid, path, &exists));
    if (!exists) {
      PetscCall(PetscSNPrintf(problem, plen, "it has no dataset %s (the run it holds did not record it: other probes, or without the reactions or the energy balance)", path));
      break;
    }
    PetscCall(PetscStrncpy(dir, path, sizeof(dir)));
    slash  = strrchr(dir, '/');
    *slash = 0;
    PetscCallHDF5Return(group, H5Gopen2, (fileid, dir, H5P_DEFAULT));
    PetscCall(MechIOCheckDataset(group, dir, slash + 1, H5T_IEEE_F64LE, r->ncomp[i] > 1 ? 2 : 1, dims, PETSC_TRUE, &rows, &has, problem, plen));
    PetscCallHDF5(H5Gclose, (group));
    if (!problem[0] && rows < nrec) PetscCall(PetscSNPrintf(problem, plen, "its %s has %llu records, /monitor %llu (the file is damaged)", path, (unsigned long long)rows, (unsigned long long)nrec));
  }
  PetscFunctionReturn(0);
}

/* A continued file cut back to nrec records (collective) */
PetscErrorCode MechOutputRecordsTruncate(MechOutput out, hid_t fileid, PetscInt nrec)
{
  struct _n_MechOutputRecords *r = out->records;

  PetscFunctionBegin;
  for (PetscInt i = 0; r && i < r->n; i++) {
    char    path[PETSC_MAX_PATH_LEN];
    hsize_t dims[2] = {(hsize_t)nrec, (hsize_t)r->ncomp[i]};
    hid_t   dset;

    RecordPath(r, i, path, sizeof(path));
    PetscCallHDF5Return(dset, H5Dopen2, (fileid, path, H5P_DEFAULT));
    PetscCallHDF5(H5Dset_extent, (dset, dims));
    PetscCallHDF5(H5Dclose, (dset));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MechOutputRecordsFree(MechOutput out)
{
  struct _n_MechOutputRecords *r = out->records;

  PetscFunctionBegin;
  if (!r) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < r->n; i++) PetscCall(PetscFree(r->names[i]));
  PetscCall(PetscFree3(r->names, r->ncomp, r->off));
  PetscCall(PetscFree(r->now));
  PetscCall(PetscFree(r->rows));
  PetscCall(PetscFree(r->col));
  PetscCall(PetscFree(out->records));
  PetscFunctionReturn(0);
}

#endif
