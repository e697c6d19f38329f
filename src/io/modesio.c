/*
  The modes in the HDF5 output (docs/modes.md §4): the group /modes of a closed output file, written
  in parallel through PetscViewerHDF5, and a grid of the XDMF companion with one node attribute per
  mode, so that ParaView lists the modes by name ("mode 3: 12.5 Hz") and warps the body by any.

    /modes/frequency       [N]         Hz (negative: a negative eigenvalue, -sqrt(-lambda) / 2 pi)
    /modes/eigenvalue      [N]         omega^2
    /modes/rigid           [N]         1 for a rigid-body mode (reported at 0 Hz)
    /modes/residual        [N]         relative residual of each pair
    /modes/shape           [N, n, bs]  M-normalized shapes, the nodes in the order of /fields/q
    /modes/participation   [N, 3]      x^T M r_d (bs 3)
    /modes/effective_mass  [N, 3]      its square
    attributes of /modes: time, problem, solver, target, mass_x, mass_y, mass_z

  The output's own datasets are not touched: a run without modes writes the format it always wrote.
*/
#define _POSIX_C_SOURCE 200809L
#include <petsc/private/viewerhdf5impl.h> /* PetscCallHDF5(); first, as it must precede <hdf5.h> */
#include <petsc/private/petscimpl.h>
#include "outputimpl.h"
#include <petscdmda.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A dataset of small arrays written by rank 0 (collective: every rank creates it) */
static PetscErrorCode WriteSmall(PetscViewer viewer, const char name[], hid_t memtype, hid_t filetype, int ndims, const hsize_t dims[], const void *data)
{
  hid_t       fileid, groupid, dset, space;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)viewer), &rank));
  PetscCall(PetscViewerHDF5OpenGroup(viewer, "/modes", &fileid, &groupid));
  PetscCallHDF5Return(space, H5Screate_simple, (ndims, dims, NULL));
  PetscCallHDF5Return(dset, H5Dcreate2, (groupid, name, filetype, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (rank) {
    PetscCallHDF5(H5Sselect_none, (space));
    PetscCallHDF5(H5Dwrite, (dset, memtype, space, space, H5P_DEFAULT, data));
  } else PetscCallHDF5(H5Dwrite, (dset, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
  PetscCallHDF5(H5Sclose, (space));
  PetscCallHDF5(H5Dclose, (dset));
  if (groupid != fileid) PetscCallHDF5(H5Gclose, (groupid));
  PetscFunctionReturn(0);
}

/* A shape in the output's node order: the system's I/O order (meshes), a DMDA's natural order */
static PetscErrorCode ShapeInIOOrder(MechSystem sys, Vec x, Vec *io)
{
  DM        dm;
  PetscBool isda = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MechSystemGetDM(sys, &dm));
  if (dm) PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (isda) {
    PetscCall(DMDACreateNaturalVector(dm, io));
    PetscCall(DMDAGlobalToNaturalBegin(dm, x, INSERT_VALUES, *io));
    PetscCall(DMDAGlobalToNaturalEnd(dm, x, INSERT_VALUES, *io));
  } else {
    PetscCall(VecDuplicate(x, io));
    PetscCall(VecCopy(x, *io));
    PetscCall(MechIOPermute(sys, *io, SCATTER_FORWARD));
  }
  PetscFunctionReturn(0);
}

/* /modes/shape [N, n, bs], each rank its rows of every mode */
static PetscErrorCode WriteShapes(PetscViewer viewer, MechSystem sys, MechModes modes, PetscInt N, Vec q)
{
  hid_t              fileid, groupid, dset = -1, filespace = -1, memspace;
  hsize_t            dims[3], start[3], count[3];
  PetscInt           bs, size, rstart, rend;
  Vec                x, io;
  const PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(VecGetBlockSize(q, &bs));
  PetscCall(VecDuplicate(q, &x));
  PetscCall(PetscViewerHDF5OpenGroup(viewer, "/modes", &fileid, &groupid));
  for (PetscInt k = 0; k < N; k++) {
    PetscCall(MechModesGetShape(modes, k, x));
    PetscCall(ShapeInIOOrder(sys, x, &io));
    PetscCall(VecGetSize(io, &size));
    PetscCall(VecGetOwnershipRange(io, &rstart, &rend));
    PetscCheck(rstart % bs == 0 && rend % bs == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The shapes are not distributed by whole nodes");
    if (!k) {
      dims[0] = (hsize_t)N;
      dims[1] = (hsize_t)(size / bs);
      dims[2] = (hsize_t)bs;
      PetscCallHDF5Return(filespace, H5Screate_simple, (3, dims, NULL));
      PetscCallHDF5Return(dset, H5Dcreate2, (groupid, "shape", H5T_IEEE_F64LE, filespace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    }
    start[0] = (hsize_t)k;
    start[1] = (hsize_t)(rstart / bs);
    start[2] = 0;
    count[0] = 1;
    count[1] = (hsize_t)((rend - rstart) / bs);
    count[2] = (hsize_t)bs;
    PetscCallHDF5Return(memspace, H5Screate_simple, (3, count, NULL));
    if (rend > rstart) PetscCallHDF5(H5Sselect_hyperslab, (filespace, H5S_SELECT_SET, start, NULL, count, NULL));
    else {
      PetscCallHDF5(H5Sselect_none, (filespace));
      PetscCallHDF5(H5Sselect_none, (memspace));
    }
    PetscCall(VecGetArrayRead(io, &a));
    PetscCallHDF5(H5Dwrite, (dset, H5T_NATIVE_DOUBLE, memspace, filespace, H5P_DEFAULT, a));
    PetscCall(VecRestoreArrayRead(io, &a));
    PetscCallHDF5(H5Sclose, (memspace));
    PetscCall(VecDestroy(&io));
  }
  PetscCallHDF5(H5Sclose, (filespace));
  PetscCallHDF5(H5Dclose, (dset));
  if (groupid != fileid) PetscCallHDF5(H5Gclose, (groupid));
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(0);
}

/* The small datasets and the attributes of /modes */
static PetscErrorCode WriteTables(PetscViewer viewer, MechModes modes, PetscInt N)
{
  PetscReal  *hz, *lambda, *res, *gamma, *meff, mass[3], t, target, seconds;
  int        *rigid;
  hsize_t     dims[2] = {(hsize_t)N, 3};
  const char *problem, *mname[3] = {"mass_x", "mass_y", "mass_z"};
  char        solver[256];

  PetscFunctionBegin;
  PetscCall(PetscMalloc6(N, &hz, N, &lambda, N, &res, 3 * N, &gamma, 3 * N, &meff, N, &rigid));
  for (PetscInt k = 0; k < N; k++) {
    PetscBool r;

    PetscCall(MechModesGetFrequency(modes, k, &hz[k], &lambda[k], &r));
    PetscCall(MechModesGetParticipation(modes, k, &gamma[3 * k], &meff[3 * k], mass));
    rigid[k] = r ? 1 : 0;
  }
  for (PetscInt k = 0; k < N; k++) PetscCall(MechModesGetResidual(modes, k, &res[k]));
  PetscCall(MechModesGetInfo(modes, &t, &problem, solver, sizeof(solver), &target, NULL, &seconds));
  PetscCall(WriteSmall(viewer, "frequency", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, dims, hz));
  PetscCall(WriteSmall(viewer, "eigenvalue", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, dims, lambda));
  PetscCall(WriteSmall(viewer, "rigid", H5T_NATIVE_INT, H5T_STD_I32LE, 1, dims, rigid));
  PetscCall(WriteSmall(viewer, "residual", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, dims, res));
  PetscCall(WriteSmall(viewer, "participation", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 2, dims, gamma));
  PetscCall(WriteSmall(viewer, "effective_mass", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 2, dims, meff));
  PetscCall(PetscViewerHDF5WriteAttribute(viewer, "/modes", "time", PETSC_REAL, &t));
  PetscCall(PetscViewerHDF5WriteAttribute(viewer, "/modes", "target", PETSC_REAL, &target));
  PetscCall(PetscViewerHDF5WriteAttribute(viewer, "/modes", "problem", PETSC_STRING, problem));
  PetscCall(PetscViewerHDF5WriteAttribute(viewer, "/modes", "solver", PETSC_STRING, solver[0] ? solver : "rigid motions only"));
  for (PetscInt d = 0; d < 3; d++) PetscCall(PetscViewerHDF5WriteAttribute(viewer, "/modes", mname[d], PETSC_REAL, &mass[d]));
  PetscCall(PetscFree6(hz, lambda, res, gamma, meff, rigid));
  PetscFunctionReturn(0);
}

/* The XDMF grid of the modes: the mesh at the snapshot nearest the modes' time, one node vector
   attribute per mode (a hyperslab of /modes/shape) */
static PetscErrorCode ModesGridText(MechOutput out, MechModes modes, PetscInt N, PetscInt nn, char **text)
{
  PetscInt    nper, snap = 0;
  const char *topo;
  PetscReal   t;
  size_t      len = (size_t)(2048 + 1024 * N), used = 0;
  char       *s;

  PetscFunctionBegin;
  PetscCall(MechSystemGetIOMeshCells(out->sys, &nper, &topo));
  PetscCall(MechModesGetInfo(modes, &t, NULL, NULL, 0, NULL, NULL, NULL));
  for (PetscInt k = 0; k < out->nsnap; k++)
    if (PetscAbsReal(out->snaptime[k] - t) < PetscAbsReal(out->snaptime[snap] - t)) snap = k;
  PetscCall(PetscMalloc1(len, &s));
#define APPEND(...) used += (size_t)snprintf(s + used, len - used, __VA_ARGS__)
  APPEND("    <Grid Name=\"modes\" GridType=\"Uniform\">\n");
  APPEND("      <Topology TopologyType=\"%s\" NumberOfElements=\"%" PetscInt_FMT "\">\n", topo, out->ncells);
  APPEND("        <DataItem Dimensions=\"%" PetscInt_FMT " %" PetscInt_FMT "\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">%s:/mesh/%s</DataItem>\n", out->ncells, nper, out->h5name, strcmp(topo, "Tetrahedron") ? "cells" : "tetrahedra");
  APPEND("      </Topology>\n      <Geometry GeometryType=\"XYZ\">\n");
  APPEND("        <DataItem ItemType=\"HyperSlab\" Dimensions=\"%" PetscInt_FMT " 3\" Type=\"HyperSlab\">\n", nn);
  APPEND("          <DataItem Dimensions=\"3 3\" Format=\"XML\">%" PetscInt_FMT " 0 0 1 1 1 1 %" PetscInt_FMT " 3</DataItem>\n", snap, nn);
  APPEND("          <DataItem Dimensions=\"%" PetscInt_FMT " %" PetscInt_FMT " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:/fields/q</DataItem>\n", out->nsnap, nn, out->h5name);
  APPEND("        </DataItem>\n      </Geometry>\n");
  for (PetscInt k = 0; k < N; k++) {
    PetscReal hz;
    PetscBool rigid;

    PetscCall(MechModesGetFrequency(modes, k, &hz, NULL, &rigid));
    if (rigid) APPEND("      <Attribute Name=\"mode %" PetscInt_FMT ": rigid\" AttributeType=\"Vector\" Center=\"Node\">\n", k + 1);
    else APPEND("      <Attribute Name=\"mode %" PetscInt_FMT ": %.6g Hz\" AttributeType=\"Vector\" Center=\"Node\">\n", k + 1, (double)hz);
    APPEND("        <DataItem ItemType=\"HyperSlab\" Dimensions=\"%" PetscInt_FMT " 3\" Type=\"HyperSlab\">\n", nn);
    APPEND("          <DataItem Dimensions=\"3 3\" Format=\"XML\">%" PetscInt_FMT " 0 0 1 1 1 1 %" PetscInt_FMT " 3</DataItem>\n", k, nn);
    APPEND("          <DataItem Dimensions=\"%" PetscInt_FMT " %" PetscInt_FMT " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:/modes/shape</DataItem>\n", N, nn, out->h5name);
    APPEND("        </DataItem>\n      </Attribute>\n");
  }
  APPEND("    </Grid>\n");
#undef APPEND
  *text = s;
  PetscFunctionReturn(0);
}

/* Rank 0: the XDMF file with the modes' grid inserted before the end of its domain, written under
   a temporary name and renamed over it. Returns errno (0 on success) */
static int InsertGrid(const char xmfpath[], const char grid[], char what[], size_t len)
{
  FILE *fp;
  long  size;
  char *old, *end, tmp[PETSC_MAX_PATH_LEN + 32];
  int   err = 0;

  if (!(fp = fopen(xmfpath, "r"))) return errno;
  if (fseek(fp, 0, SEEK_END) || (size = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET)) {
    err = errno;
    fclose(fp);
    return err;
  }
  old = (char *)malloc((size_t)size + 1);
  if (!old || fread(old, 1, (size_t)size, fp) != (size_t)size) err = old ? EIO : ENOMEM;
  fclose(fp);
  if (err) {
    free(old);
    return err;
  }
  old[size] = 0;
  end       = strstr(old, "  </Domain>");
  if (!end) {
    free(old);
    return EINVAL;
  }
  (void)snprintf(tmp, sizeof(tmp), "%s.tmp-%d", xmfpath, (int)getpid());
  if (!(fp = fopen(tmp, "w"))) err = errno;
  else {
    if (fwrite(old, 1, (size_t)(end - old), fp) != (size_t)(end - old) || fputs(grid, fp) < 0 || fputs(end, fp) < 0 || fflush(fp)) err = errno ? errno : EIO;
    if (fclose(fp) && !err) err = errno;
    if (!err) err = MechIOCommitFile(tmp, xmfpath, 1, PETSC_FALSE, what, len);
    if (err) (void)remove(tmp);
  }
  free(old);
  return err;
}

/*@C
  MechOutputWriteModes - Adds the modes to an output file closed by `MechOutputClose()`: the group
  /modes (frequencies, eigenvalues, rigidity, M-normalized shapes [N, nodes, 3] in the node order of
  /fields/q, participation factors and effective masses per direction) and, for a system on a mesh,
  a grid "modes" in its XDMF file with one node attribute per mode named by its frequency.

  Collective

  Input Parameters:
+ out   - the output, closed
- modes - computed modes (`MechModesCompute()`) of the output's system

  Level: intermediate

  Note:
  The rest of the file is as the run wrote it: a run without modes writes the same format as before.

.seealso: `MechModesCompute()`, `MechOutputClose()`, `MechModesView()`
@*/
PetscErrorCode MechOutputWriteModes(MechOutput out, MechModes modes)
{
  PetscViewer viewer;
  PetscInt    N, bs, size;
  Vec         q, v;
  char        msg[PETSC_MAX_PATH_LEN + 256] = "";
  int         err                           = 0;

  PetscFunctionBegin;
  PetscValidPointer(out, 1);
  PetscValidPointer(modes, 2);
  PetscCheck(!out->viewer && !out->tmppath, out->comm, PETSC_ERR_ARG_WRONGSTATE, "The output %s must be closed (MechOutputClose()) before its modes are written", out->h5path);
  PetscCall(MechModesGetSize(modes, &N, NULL));
  PetscCheck(N > 0, out->comm, PETSC_ERR_ARG_WRONGSTATE, "No modes computed (MechModesCompute())");
  PetscCall(MechSystemCreateState(out->sys, &q, &v));
  PetscCall(VecGetBlockSize(q, &bs));
  PetscCall(VecGetSize(q, &size));
  PetscCall(PetscLogStagePush(MECH_StageIO));
  PetscCall(PetscViewerHDF5Open(out->comm, out->h5path, FILE_MODE_APPEND, &viewer));
  PetscCall(WriteTables(viewer, modes, N));
  PetscCall(WriteShapes(viewer, out->sys, modes, N, q));
  PetscCall(PetscViewerDestroy(&viewer));
  PetscCall(PetscLogStagePop());
  if (out->ncells > 0 && bs == 3 && out->nsnap > 0) {
    if (out->rank == 0) {
      char *grid = NULL;

      PetscCall(ModesGridText(out, modes, N, size / 3, &grid));
      err = InsertGrid(out->xmfpath, grid, msg, sizeof(msg));
      PetscCall(PetscFree(grid));
      if (err && !msg[0]) (void)snprintf(msg, sizeof(msg), "%s", err == EINVAL ? "it has no </Domain>" : strerror(err));
    }
    PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, out->comm));
    PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)sizeof(msg), MPI_CHAR, 0, out->comm));
    PetscCheck(!err, out->comm, PETSC_ERR_FILE_WRITE, "Cannot add the modes to the XDMF file %s: %s", out->xmfpath, msg);
  }
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}
