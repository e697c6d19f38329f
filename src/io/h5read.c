/*
  Strict reading of HDF5 metadata, shared by the checkpoint (checkpoint.c, ckheader.c) and the
  continuation of an output (outputcontinue.c): an attribute read with its datatype and
  dataspace checked exactly, a dataset's datatype, layout and shape checked, the shape VecView()
  gives a vector, a read-only open without MPI-IO or file locks, the objects a failed read left
  open closed, HDF5's close at exit silenced after a damaged file, and the ranks' agreement on
  the first problem found. Problems go to `problem`, failures of HDF5 calls are returned.
*/
#define _POSIX_C_SOURCE 200809L
#include <petsc/private/viewerhdf5impl.h> /* PetscCallHDF5(); first, as it must precede <hdf5.h> */
#include <petscdmda.h>
#include "outputimpl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#if defined(PETSC_HAVE_HDF5)

/* obj + name for messages: "/checkpoint" + "dt" -> "/checkpoint/dt", "/" + "model" -> "/model" */
static void JoinName(const char obj[], const char name[], char buf[], size_t len)
{
  size_t n = strlen(obj);
  (void)snprintf(buf, len, "%s%s%s", obj, n && obj[n - 1] == '/' ? "" : "/", name);
}

/* A datatype in words, for messages ("32-bit little-endian float", "string of 9 bytes", ...) */
static void DescribeType(hid_t type, char buf[], size_t len)
{
  H5T_class_t cls  = H5Tget_class(type);
  size_t      size = H5Tget_size(type);
  H5T_order_t order;

  switch (cls) {
  case H5T_INTEGER:
    order = H5Tget_order(type);
    (void)snprintf(buf, len, "%zu-bit %s-endian %s integer", 8 * size, order == H5T_ORDER_BE ? "big" : "little", H5Tget_sign(type) == H5T_SGN_NONE ? "unsigned" : "signed");
    break;
  case H5T_FLOAT:
    order = H5Tget_order(type);
    (void)snprintf(buf, len, "%zu-bit %s-endian float", 8 * size, order == H5T_ORDER_BE ? "big" : "little");
    break;
  case H5T_STRING:
    if (H5Tis_variable_str(type) > 0) (void)snprintf(buf, len, "variable-length string");
    else (void)snprintf(buf, len, "string of %zu bytes", size);
    break;
  default:
    (void)snprintf(buf, len, "datatype of class %d and %zu bytes", (int)cls, size);
  }
}

/* "its ... has the datatype X, not Y": a type that reads like the expected one differs in its bit layout */
static void TypeProblem(const char what[], hid_t type, hid_t expected, const char expect[], char problem[], size_t plen)
{
  char have[128], want[128];

  DescribeType(type, have, sizeof(have));
  DescribeType(expected, want, sizeof(want));
  if (!strcmp(have, want)) (void)PetscStrlcat(have, " of a nonstandard bit layout", sizeof(have));
  (void)snprintf(problem, plen, "its %s has the datatype %s, not a %s (the file is damaged)", what, have, expect);
}

/*
  MechIOReadAttribute - Reads the attribute `name` of the open object obj (named objname in
  messages) with its datatype and dataspace checked exactly: one value (a scalar dataspace, or a
  simple one of one element) of

    MECH_IO_ATTR_INT64  H5T_STD_I64LE, into an int64_t
    MECH_IO_ATTR_INT    H5T_STD_I32LE or H5T_STD_I64LE (PETSC_INT as PETSc writes it), into an int64_t
    MECH_IO_ATTR_REAL   H5T_IEEE_F64LE, into a double
    MECH_IO_ATTR_STRING a fixed-length, NUL-terminated ASCII string of at most len bytes with its
                        NUL, printable, NUL only at its end, into char[len]

  A missing attribute sets *found to false (found NULL: it is a problem). A wrong datatype or
  dataspace sets problem (reading nothing); errors of HDF5 calls (a damaged file) are returned.
  Not collective.
*/
PetscErrorCode MechIOReadAttribute(hid_t obj, const char objname[], const char name[], MechIOAttrKind kind, void *value, size_t len, PetscBool *found, char problem[], size_t plen)
{
  hid_t       attr, space, type, mtype = -1;
  htri_t      e, eq = 0;
  H5S_class_t sclass;
  hssize_t    npoints;
  char        full[PETSC_MAX_PATH_LEN], what[PETSC_MAX_PATH_LEN + 32];

  PetscFunctionBegin;
  if (found) *found = PETSC_FALSE;
  JoinName(objname, name, full, sizeof(full));
  PetscCallHDF5Return(e, H5Aexists, (obj, name));
  if (!e) {
    if (!found) PetscCall(PetscSNPrintf(problem, plen, "it lacks the attribute %s", full));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscSNPrintf(what, sizeof(what), "attribute %s", full));
  PetscCallHDF5Return(attr, H5Aopen, (obj, name, H5P_DEFAULT));
  PetscCallHDF5Return(space, H5Aget_space, (attr));
  PetscCallHDF5Return(sclass, H5Sget_simple_extent_type, (space));
  PetscCallHDF5Return(npoints, H5Sget_simple_extent_npoints, (space));
  PetscCallHDF5(H5Sclose, (space));
  if (!(sclass == H5S_SCALAR || (sclass == H5S_SIMPLE && npoints == 1))) {
    PetscCallHDF5(H5Aclose, (attr));
    PetscCall(PetscSNPrintf(problem, plen, "its %s is not a single value (the file is damaged)", what));
    PetscFunctionReturn(0);
  }
  PetscCallHDF5Return(type, H5Aget_type, (attr));
  switch (kind) {
  case MECH_IO_ATTR_INT64:
    PetscCallHDF5Return(eq, H5Tequal, (type, H5T_STD_I64LE));
    if (!eq) TypeProblem(what, type, H5T_STD_I64LE, "64-bit little-endian signed integer", problem, plen);
    else PetscCallHDF5(H5Aread, (attr, H5T_NATIVE_INT64, value));
    break;
  case MECH_IO_ATTR_INT:
    PetscCallHDF5Return(eq, H5Tequal, (type, H5T_STD_I64LE));
    if (!eq) PetscCallHDF5Return(eq, H5Tequal, (type, H5T_STD_I32LE));
    if (!eq) TypeProblem(what, type, H5T_STD_I32LE, "32- or 64-bit little-endian signed integer", problem, plen);
    else PetscCallHDF5(H5Aread, (attr, H5T_NATIVE_INT64, value));
    break;
  case MECH_IO_ATTR_REAL:
    PetscCallHDF5Return(eq, H5Tequal, (type, H5T_IEEE_F64LE));
    if (!eq) TypeProblem(what, type, H5T_IEEE_F64LE, "64-bit little-endian float", problem, plen);
    else PetscCallHDF5(H5Aread, (attr, H5T_NATIVE_DOUBLE, value));
    break;
  case MECH_IO_ATTR_STRING: {
    char  *s = (char *)value, desc[128];
    size_t size, i;
    htri_t var;

    PetscCallHDF5Return(var, H5Tis_variable_str, (type));
    size = H5Tget_size(type);
    if (H5Tget_class(type) != H5T_STRING || var || H5Tget_strpad(type) != H5T_STR_NULLTERM || H5Tget_cset(type) != H5T_CSET_ASCII || size < 1) {
      DescribeType(type, desc, sizeof(desc));
      PetscCall(PetscSNPrintf(problem, plen, "its %s has the datatype %s, not a fixed-length NUL-terminated ASCII string (the file is damaged)", what, desc));
      break;
    }
    if (size > len) {
      PetscCall(PetscSNPrintf(problem, plen, "its %s is a string of %zu bytes, longer than the %zu allowed (the file is damaged)", what, size, len));
      break;
    }
    PetscCall(PetscMemzero(s, len));
    PetscCallHDF5Return(mtype, H5Tcopy, (type));
    PetscCallHDF5(H5Aread, (attr, mtype, s));
    PetscCallHDF5(H5Tclose, (mtype));
    /* the NUL at its end only (HDF5 reads a NULLTERM string as stored) */
    for (i = 0; i + 1 < size; i++)
      if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e) break;
    if (i + 1 < size || s[size - 1]) {
      PetscCall(PetscMemzero(s, len));
      PetscCall(PetscSNPrintf(problem, plen, "its %s is not a NUL-terminated string of printable characters (the file is damaged)", what));
    }
  } break;
  }
  PetscCallHDF5(H5Tclose, (type));
  PetscCallHDF5(H5Aclose, (attr));
  if (found) *found = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* "(4, 12, 3)" */
static void FormatDims(int ndims, const hsize_t dims[], char buf[], size_t len)
{
  int i;

  buf[0] = 0;
  (void)PetscStrlcat(buf, "(", len);
  for (i = 0; i < ndims; i++) {
    char item[32];
    (void)snprintf(item, sizeof(item), "%s%llu", i ? ", " : "", (unsigned long long)dims[i]);
    (void)PetscStrlcat(buf, item, len);
  }
  (void)PetscStrlcat(buf, ")", len);
}

/*
  MechIOCheckDataset - Checks the dataset `name` of the open group loc (named locname in
  messages): its datatype exactly `type`, no filters, a simple dataspace of ndims dimensions
  equal to dims (for an extendible one, from the second on: its first is unlimited, with chunked
  storage, and its length is returned in *rows). A missing object sets *found to false (found
  NULL: it is a problem); any other mismatch sets problem. Errors of HDF5 calls are returned.
  Not collective.
*/
PetscErrorCode MechIOCheckDataset(hid_t loc, const char locname[], const char name[], hid_t type, int ndims, const hsize_t dims[], PetscBool extendible, hsize_t *rows, PetscBool *found, char problem[], size_t plen)
{
  hid_t        obj, dtype, space, dcpl;
  htri_t       e, eq;
  H5I_type_t   itype;
  H5S_class_t  sclass;
  H5D_layout_t layout;
  int          rank = 0, i, nfilters, crank;
  hsize_t      fdims[H5S_MAX_RANK], maxdims[H5S_MAX_RANK], chunk[H5S_MAX_RANK];
  char         full[PETSC_MAX_PATH_LEN], what[PETSC_MAX_PATH_LEN + 32], have[256], want[256];

  PetscFunctionBegin;
  if (found) *found = PETSC_FALSE;
  if (rows) *rows = 0;
  JoinName(locname, name, full, sizeof(full));
  PetscCallHDF5Return(e, H5Lexists, (loc, name, H5P_DEFAULT));
  if (!e) {
    if (!found) PetscCall(PetscSNPrintf(problem, plen, "it lacks the dataset %s", full));
    PetscFunctionReturn(0);
  }
  PetscCallHDF5Return(obj, H5Oopen, (loc, name, H5P_DEFAULT));
  PetscCallHDF5Return(itype, H5Iget_type, (obj));
  if (itype != H5I_DATASET) {
    PetscCallHDF5(H5Oclose, (obj));
    PetscCall(PetscSNPrintf(problem, plen, "its %s is not a dataset (the file is damaged)", full));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscSNPrintf(what, sizeof(what), "dataset %s", full));
  PetscCallHDF5Return(dtype, H5Dget_type, (obj));
  PetscCallHDF5Return(eq, H5Tequal, (dtype, type));
  if (!eq) {
    char expect[128];
    DescribeType(type, expect, sizeof(expect));
    TypeProblem(what, dtype, type, expect, problem, plen);
  }
  PetscCallHDF5(H5Tclose, (dtype));
  if (!eq) {
    PetscCallHDF5(H5Oclose, (obj));
    PetscFunctionReturn(0);
  }
  PetscCallHDF5Return(dcpl, H5Dget_create_plist, (obj));
  PetscCallHDF5Return(layout, H5Pget_layout, (dcpl));
  PetscCallHDF5Return(nfilters, H5Pget_nfilters, (dcpl));
  crank = layout == H5D_CHUNKED ? H5Pget_chunk(dcpl, H5S_MAX_RANK, chunk) : 0;
  PetscCallHDF5(H5Pclose, (dcpl));
  PetscCallHDF5Return(space, H5Dget_space, (obj));
  PetscCallHDF5Return(sclass, H5Sget_simple_extent_type, (space));
  if (sclass == H5S_SIMPLE) PetscCallHDF5Return(rank, H5Sget_simple_extent_dims, (space, fdims, maxdims));
  PetscCallHDF5(H5Sclose, (space));
  PetscCallHDF5(H5Oclose, (obj));
  if (nfilters != 0 || !(layout == H5D_CHUNKED || (layout == H5D_CONTIGUOUS && !extendible)) || (layout == H5D_CHUNKED && crank != rank)) {
    PetscCall(PetscSNPrintf(problem, plen, "its %s has an unexpected storage layout (the file is damaged)", what));
    PetscFunctionReturn(0);
  }
  for (i = 0; i < crank; i++)
    if (chunk[i] < 1) {
      PetscCall(PetscSNPrintf(problem, plen, "its %s has an unexpected storage layout (the file is damaged)", what));
      PetscFunctionReturn(0);
    }
  if (sclass != H5S_SIMPLE || rank != ndims) {
    if (sclass != H5S_SIMPLE) rank = 0;
    FormatDims(rank, fdims, have, sizeof(have));
    FormatDims(ndims, dims, want, sizeof(want));
    if (extendible) (void)snprintf(want, sizeof(want), "%d dimensions", ndims);
    PetscCall(PetscSNPrintf(problem, plen, "its %s has the shape %s, not %s", what, sclass == H5S_SIMPLE ? have : "of a single value", want));
    PetscFunctionReturn(0);
  }
  for (i = extendible ? 1 : 0; i < ndims; i++)
    if (fdims[i] != dims[i]) break;
  if (i < ndims || (extendible && maxdims[0] != H5S_UNLIMITED)) {
    hsize_t n = 1, m = 1;

    for (i = extendible ? 1 : 0; i < ndims; i++) {
      n *= fdims[i];
      m *= dims[i];
    }
    FormatDims(ndims, fdims, have, sizeof(have));
    if (extendible) {
      char tail[200];

      FormatDims(ndims - 1, dims + 1, tail, sizeof(tail));
      (void)snprintf(want, sizeof(want), "(unlimited%s%s", ndims > 1 ? ", " : ")", ndims > 1 ? tail + 1 : "");
    } else FormatDims(ndims, dims, want, sizeof(want));
    if (n != m) PetscCall(PetscSNPrintf(problem, plen, "its %s has %llu values%s, this run's state %llu (shape %s, expected %s)", what, (unsigned long long)n, extendible ? " per row" : "", (unsigned long long)m, have, want));
    else PetscCall(PetscSNPrintf(problem, plen, "its %s has the shape %s, expected %s", what, have, want));
    PetscFunctionReturn(0);
  }
  {
    hid_t      file;
    haddr_t    eoa;
    H5O_info_t oinfo;
    PetscBool  beyond;

    /* the dataset's header and, for a chunked one, its whole chunk index (verified where its
       format has checksums) and every chunk lie within the file as its superblock gives it: a
       write would otherwise allocate over them */
    PetscCallHDF5Return(file, H5Iget_file_id, (loc));
    PetscCallHDF5(H5Fget_eoa, (file, &eoa));
    PetscCallHDF5(H5Fclose, (file));
    PetscCallHDF5Return(obj, H5Dopen2, (loc, name, H5P_DEFAULT));
    PetscCallHDF5(H5Oget_info2, (obj, &oinfo, H5O_INFO_BASIC));
    beyond = oinfo.addr >= eoa ? PETSC_TRUE : PETSC_FALSE;
#if H5_VERSION_GE(1, 10, 5)
    if (layout == H5D_CHUNKED) {
      hsize_t  nchunks, c, coffset[H5S_MAX_RANK], csize;
      haddr_t  caddr;
      unsigned mask;

      PetscCallHDF5Return(space, H5Dget_space, (obj));
      PetscCallHDF5(H5Dget_num_chunks, (obj, space, &nchunks));
      for (c = 0; c < nchunks && !beyond; c++) {
        PetscCallHDF5(H5Dget_chunk_info, (obj, space, c, coffset, &mask, &caddr, &csize));
        if (caddr == HADDR_UNDEF || caddr + csize > eoa) beyond = PETSC_TRUE;
      }
      PetscCallHDF5(H5Sclose, (space));
    }
#endif
    PetscCallHDF5(H5Dclose, (obj));
    if (beyond) {
      PetscCall(PetscSNPrintf(problem, plen, "its %s lies beyond the end of the file (the file is truncated or damaged)", what));
      PetscFunctionReturn(0);
    }
  }
  if (rows) *rows = fdims[0];
  if (found) *found = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*
  MechIOVecDims - The shape in which VecView() stores x in HDF5 (without timestepping): a DMDA
  vector in natural ordering with the grid's shape, slowest first ([P,] [N,] M [, dof > 1]),
  another vector as [n / bs [, bs > 1]].
*/
PetscErrorCode MechIOVecDims(Vec x, int *ndims, hsize_t dims[4])
{
  DM        dm;
  PetscBool isda = PETSC_FALSE;
  PetscInt  dim, M, N, P, dof, n, bs;
  int       d = 0;

  PetscFunctionBegin;
  PetscCall(VecGetDM(x, &dm));
  if (dm) PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (isda) {
    PetscCall(DMDAGetInfo(dm, &dim, &M, &N, &P, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
    if (dim == 3) dims[d++] = (hsize_t)P;
    if (dim >= 2) dims[d++] = (hsize_t)N;
    dims[d++] = (hsize_t)M;
    if (dof > 1) dims[d++] = (hsize_t)dof;
  } else {
    PetscCall(VecGetSize(x, &n));
    PetscCall(VecGetBlockSize(x, &bs));
    dims[d++] = (hsize_t)(n / bs);
    if (bs > 1) dims[d++] = (hsize_t)bs;
  }
  *ndims = d;
  PetscFunctionReturn(0);
}

/*
  MechIOCloseObjects - Closes every object (group, dataset, named datatype, attribute) left open
  in the file, as a read that failed midway leaves them: the file can then be closed, and HDF5
  does not loop at exit over a file it cannot close. Errors are ignored.
*/
void MechIOCloseObjects(hid_t file)
{
  unsigned types = H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE | H5F_OBJ_ATTR;
  ssize_t  n, i;
  hid_t   *ids;

  if (file <= 0) return;
  n = H5Fget_obj_count(file, types);
  if (n <= 0) return;
  ids = (hid_t *)malloc((size_t)n * sizeof(hid_t));
  if (!ids) return;
  n = H5Fget_obj_ids(file, types, (size_t)n, ids);
  for (i = 0; i < n; i++) {
    if (H5Iget_type(ids[i]) == H5I_ATTR) (void)H5Aclose(ids[i]);
    else (void)H5Oclose(ids[i]);
  }
  free(ids);
}

/*
  MechIOOpenReadOnly - Opens path read-only with HDF5's default (POSIX) driver, on this rank
  alone: no MPI-IO, whose failed reads at the addresses of a damaged file print messages, and no
  file lock (the files of a run are locked by MechIOPlanFiles(); some parallel file systems
  refuse locks). Returns the file, or a negative id if HDF5 cannot open it (errors not printed
  if the caller silenced them).
*/
hid_t MechIOOpenReadOnly(const char path[])
{
  hid_t fapl, file;

  fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) return fapl;
#if H5_VERSION_GE(1, 10, 7)
  (void)H5Pset_file_locking(fapl, 0, 1);
#endif
  file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  (void)H5Pclose(fapl);
  return file;
}

/* Closes the HDF5 library with its messages to stderr discarded (PetscRegisterFinalize()) */
static PetscErrorCode QuietHDF5Close(void)
{
  int saved, null;

  PetscFunctionBegin;
  fflush(stderr);
  saved = dup(2);
  null  = open("/dev/null", O_WRONLY);
  if (saved >= 0 && null >= 0 && dup2(null, 2) >= 0) {
    (void)H5close();
    fflush(stderr);
    (void)dup2(saved, 2);
  }
  if (null >= 0) (void)close(null);
  if (saved >= 0) (void)close(saved);
  PetscFunctionReturn(0);
}

/*
  MechIOQuietExit - After HDF5 gave up on a damaged file: HDF5 1.10 does not release all of its
  internal memory on some of those error paths, and its close at the program's exit then prints
  "HDF5: infinite loop closing library" and a list of its interfaces, which is no news for a run
  that told what was wrong. The library is closed at PetscFinalize() instead, silently.
*/
PetscErrorCode MechIOQuietExit(void)
{
  static PetscBool registered = PETSC_FALSE;

  PetscFunctionBegin;
  if (!registered) PetscCall(PetscRegisterFinalize(QuietHDF5Close));
  registered = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*
  MechIOAgreeProblem - The ranks agree: on whether every read succeeded (*ok) and on the problem, which
  becomes the first one found by the lowest rank that found one, so that all ranks take the same
  path. Collective.
*/
PetscErrorCode MechIOAgreeProblem(MPI_Comm comm, PetscBool *ok, char problem[], size_t len)
{
  PetscMPIInt rank, size, first;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, ok, 1, MPIU_BOOL, MPI_LAND, comm));
  first = problem[0] ? rank : size;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first < size) PetscCallMPI(MPI_Bcast(problem, (PetscMPIInt)len, MPI_CHAR, first, comm));
  PetscFunctionReturn(0);
}

#endif
