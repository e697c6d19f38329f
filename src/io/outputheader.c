/*
  The header of an HDF5 output (output.c): the run's metadata as attributes of / (the model, its
  numeric and text parameters, the integrator and its family's parameters, versions) and the mesh
  of a solid, written when the file is created; the names of the /monitor datasets; and the
  check of a continued file's text parameters against this run (outputcontinue.c).
*/
#define _POSIX_C_SOURCE 200809L
#include <petsc/private/viewerhdf5impl.h> /* PetscCallHDF5(); first, as it must precede <hdf5.h> */
#include <petscsf.h>
#include "outputimpl.h"
#include "../ts/scheme.h"
#include <string.h>

#if defined(PETSC_HAVE_HDF5)

const char *const MechOutputRealNames[MECH_OUTPUT_NREAL] = {"time", "dt", "kinetic", "potential", "energy"};
const char *const MechOutputIntNames[MECH_OUTPUT_NINT]   = {"step", "snes_its", "ksp_its"};

/* Attributes of / that are not model parameters (besides the integrator's parameters,
   TSMechSchemeIsParameterName()): a parameter of one of these names is written as param_<name> */
static const char *const MechOutputReserved[] = {"model", "model_parameters", "model_text_parameters", "ts_type", "dt", "nranks", "every", "tsmech_version", "petsc_version", "restarts"};

/* An integrator parameter (TSMechSchemeForEachParameter()) as an attribute of / (also of a continued output) */
PetscErrorCode MechOutputWriteSchemeParameter(void *ctx, const char name[], TSMechParamKind kind, void *value)
{
  PetscViewer viewer = (PetscViewer)ctx;

  PetscFunctionBegin;
  if (kind == TSMECH_PARAM_REAL) PetscCall(PetscViewerHDF5WriteAttribute(viewer, "/", name, PETSC_REAL, value));
  else if (kind == TSMECH_PARAM_FLAG) PetscCall(PetscViewerHDF5WriteAttribute(viewer, "/", name, PETSC_INT, value));
  else PetscCall(PetscViewerHDF5WriteAttribute(viewer, "/", name, PETSC_STRING, value));
  PetscFunctionReturn(0);
}

/* The name under which a model parameter is an attribute of / */
PetscErrorCode MechOutputParameterAttributeName(const char pname[], char name[], size_t len)
{
  PetscBool flg = TSMechSchemeIsParameterName(pname);
  size_t    j;

  PetscFunctionBegin;
  for (j = 0; j < sizeof(MechOutputReserved) / sizeof(MechOutputReserved[0]) && !flg; j++) PetscCall(PetscStrcmp(pname, MechOutputReserved[j], &flg));
  PetscCall(PetscSNPrintf(name, len, "%s%s", flg ? "param_" : "", pname));
  PetscFunctionReturn(0);
}

/*
  Whether the attributes of / of an output (root, open for reading) hold this run's text
  parameters (MechSystemAddTextParameter()), read strictly (h5read.c): problem gets the first
  difference, "" if none. A parameter an older file holds as a number (a code from before it was
  recorded by name) is told as such. Not collective.
*/
PetscErrorCode MechOutputCheckTextParameters(MechSystem sys, hid_t root, char problem[], size_t len)
{
  const char *const *tnames, *const *texts;
  PetscInt nt;

  PetscFunctionBegin;
  problem[0] = 0;
  PetscCall(MechSystemGetTextParameters(sys, &nt, &tnames, &texts));
  for (PetscInt i = 0; i < nt && !problem[0]; i++) {
    char      name[256], value[256] = "", scratch[1024] = "";
    double    number = 0;
    PetscBool has;

    PetscCall(MechOutputParameterAttributeName(tnames[i], name, sizeof(name)));
    /* an older output records the parameter as a number: say so rather than "not a string" */
    PetscCall(MechIOReadAttribute(root, "/", name, MECH_IO_ATTR_REAL, &number, 0, &has, scratch, sizeof(scratch)));
    if (has && !scratch[0]) {
      PetscCall(PetscSNPrintf(problem, len, "it records the model parameter %s as the number %g (an older format), this run records it by name, %s = %s", tnames[i], number, tnames[i], texts[i]));
      break;
    }
    PetscCall(MechIOReadAttribute(root, "/", name, MECH_IO_ATTR_STRING, value, sizeof(value), &has, problem, len));
    if (problem[0]) break;
    if (!has) PetscCall(PetscSNPrintf(problem, len, "it lacks the model parameter %s", tnames[i]));
    else if (strcmp(value, texts[i])) PetscCall(PetscSNPrintf(problem, len, "it holds a run with %s = %s, this run has %s = %s", tnames[i], value, tnames[i], texts[i]));
  }
  PetscFunctionReturn(0);
}

/*
  Writes a [rows, cols] dataset into group, each rank its rows [rstart, rstart + nrows) from data
  (collective: created by all; the ranks' rows are disjoint and together cover the dataset)
*/
static PetscErrorCode WriteRows(MechOutput out, const char group[], const char name[], hid_t memtype, hid_t filetype, PetscInt rows, PetscInt cols, PetscInt rstart, PetscInt nrows, const void *data)
{
  hid_t   fileid, groupid, dset, filespace, memspace;
  hsize_t dims[2], start[2], count[2];

  PetscFunctionBegin;
  PetscCall(PetscHDF5IntCast(rows, &dims[0]));
  PetscCall(PetscHDF5IntCast(cols, &dims[1]));
  PetscCall(PetscHDF5IntCast(rstart, &start[0]));
  PetscCall(PetscHDF5IntCast(nrows, &count[0]));
  start[1] = 0;
  count[1] = dims[1];
  PetscCall(PetscViewerHDF5OpenGroup(out->viewer, group, &fileid, &groupid));
  PetscCallHDF5Return(filespace, H5Screate_simple, (2, dims, NULL));
  PetscCallHDF5Return(dset, H5Dcreate2, (groupid, name, filetype, filespace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  PetscCallHDF5Return(memspace, H5Screate_simple, (2, count, NULL));
  if (nrows > 0) PetscCallHDF5(H5Sselect_hyperslab, (filespace, H5S_SELECT_SET, start, NULL, count, NULL));
  else {
    PetscCallHDF5(H5Sselect_none, (filespace));
    PetscCallHDF5(H5Sselect_none, (memspace));
  }
  PetscCallHDF5(H5Dwrite, (dset, memtype, memspace, filespace, H5P_DEFAULT, data));
  PetscCallHDF5(H5Sclose, (memspace));
  PetscCallHDF5(H5Sclose, (filespace));
  PetscCallHDF5(H5Dclose, (dset));
  if (groupid != fileid) PetscCallHDF5(H5Gclose, (groupid));
  PetscFunctionReturn(0);
}

/*
  /mesh of a system with a mesh (MechSystemSetIOMesh()): /mesh/vertices [nv, 3], the reference
  positions of all nodes (vertices, and the edge, face and cell nodes of quadratic cells: the rows
  of /fields/q), and the cells [nc, nper], 0-based node numbers, both in the rank-independent
  order: /mesh/tetrahedra for linear tetrahedra, else /mesh/cells with the attribute "topology"
  (Tetrahedron_10, Hexahedron, Hexahedron_27: XDMF's node order, MechSystemSetIOMeshCells()).
  Written in parallel, each rank a contiguous block of rows: the nodes from the permuted coordinate
  vector, the cells sent by their numbers to the rank whose block holds them (a PetscSF reduction).
  Collective.
*/
PetscErrorCode MechOutputWriteMesh(MechOutput out)
{
  Vec                X, Xn;
  PetscInt           nc, NC, NV, rstart, rend, *ids, *vtx, *tets, nper;
  const PetscInt    *cells;
  const PetscScalar *x;
  const char        *topo;
  PetscLayout        layout;
  PetscSF            sf;
  MPI_Datatype       row;
  hid_t              inttype;
  PetscBool          tet;

  PetscFunctionBegin;
  PetscCall(MechSystemGetIOMesh(out->sys, NULL, &X, &nc, &cells));
  if (!X) PetscFunctionReturn(0);
  PetscCall(MechSystemGetIOMeshCells(out->sys, &nper, &topo));
  PetscCall(PetscStrcmp(topo, "Tetrahedron", &tet));
  PetscCall(VecDuplicate(X, &Xn));
  PetscCall(VecCopy(X, Xn));
  PetscCall(MechIOPermute(out->sys, Xn, SCATTER_FORWARD));
  PetscCall(VecGetSize(Xn, &NV));
  PetscCall(VecGetOwnershipRange(Xn, &rstart, &rend));
  PetscCheck(rstart % 3 == 0 && rend % 3 == 0, out->comm, PETSC_ERR_PLIB, "The mesh coordinates are not distributed by whole vertices");
  PetscCall(VecGetArrayRead(Xn, &x));
  PetscCall(WriteRows(out, "/mesh", "vertices", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, NV / 3, 3, rstart / 3, (rend - rstart) / 3, x));
  PetscCall(VecRestoreArrayRead(Xn, &x));
  PetscCall(VecDestroy(&Xn));

  /* the cells: cells holds (number, nper nodes) per local cell; numbers 0 .. NC - 1 */
  PetscCall(MPIU_Allreduce(&nc, &NC, 1, MPIU_INT, MPI_SUM, out->comm));
  PetscCall(PetscLayoutCreateFromSizes(out->comm, PETSC_DECIDE, NC, 1, &layout));
  PetscCall(PetscLayoutGetRange(layout, &rstart, &rend));
  PetscCall(PetscMalloc3(nc, &ids, nper * nc + 1, &vtx, nper * (rend - rstart) + 1, &tets));
  for (PetscInt c = 0; c < nc; c++) {
    ids[c] = cells[(1 + nper) * c];
    PetscCheck(ids[c] >= 0 && ids[c] < NC, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cell number %" PetscInt_FMT " out of range [0, %" PetscInt_FMT ")", ids[c], NC);
    for (PetscInt k = 0; k < nper; k++) vtx[nper * c + k] = cells[(1 + nper) * c + 1 + k];
  }
  for (PetscInt k = 0; k < nper * (rend - rstart); k++) tets[k] = -1;
  PetscCall(PetscSFCreate(out->comm, &sf));
  PetscCall(PetscSFSetGraphLayout(sf, layout, nc, NULL, PETSC_COPY_VALUES, ids));
  PetscCallMPI(MPI_Type_contiguous((PetscMPIInt)nper, MPIU_INT, &row));
  PetscCallMPI(MPI_Type_commit(&row));
  PetscCall(PetscSFReduceBegin(sf, row, vtx, tets, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(sf, row, vtx, tets, MPI_REPLACE));
  PetscCallMPI(MPI_Type_free(&row));
  PetscCall(PetscSFDestroy(&sf));
  for (PetscInt k = 0; k < nper * (rend - rstart); k++) PetscCheck(tets[k] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cell %" PetscInt_FMT " was given by no rank", rstart + k / nper);
  PetscCall(PetscDataTypeToHDF5DataType(PETSC_INT, &inttype));
  PetscCall(WriteRows(out, "/mesh", tet ? "tetrahedra" : "cells", inttype, H5T_STD_I64LE, NC, nper, rstart, rend - rstart, tets));
  if (!tet) {
    /* the cells' XDMF topology, for readers of the .h5 alone (every rank: HDF5's metadata calls
       are collective on a parallel file) */
    hid_t fileid, dset, space, stype, attr;

    PetscCall(PetscViewerHDF5GetFileId(out->viewer, &fileid));
    PetscCallHDF5Return(dset, H5Dopen2, (fileid, "/mesh/cells", H5P_DEFAULT));
    PetscCallHDF5Return(space, H5Screate, (H5S_SCALAR));
    PetscCallHDF5Return(stype, H5Tcopy, (H5T_C_S1));
    PetscCallHDF5(H5Tset_size, (stype, strlen(topo)));
    PetscCallHDF5Return(attr, H5Acreate2, (dset, "topology", stype, space, H5P_DEFAULT, H5P_DEFAULT));
    PetscCallHDF5(H5Awrite, (attr, stype, topo));
    PetscCallHDF5(H5Aclose, (attr));
    PetscCallHDF5(H5Tclose, (stype));
    PetscCallHDF5(H5Sclose, (space));
    PetscCallHDF5(H5Dclose, (dset));
  }
  PetscCall(PetscFree3(ids, vtx, tets));
  PetscCall(PetscLayoutDestroy(&layout));
  PetscFunctionReturn(0);
}

/* The run's metadata as attributes of / */
PetscErrorCode MechOutputWriteHeader(MechOutput out, TS ts)
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

    PetscCall(MechOutputParameterAttributeName(pnames[i], name, sizeof(name)));
    PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", name, PETSC_REAL, &pvalues[i]));
    if (i) PetscCall(PetscStrlcat(plist, ",", len));
    PetscCall(PetscStrlcat(plist, name, len));
  }
  /* HDF5 refuses a zero-size string type: an empty list is stored as a single space */
  PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "model_parameters", PETSC_STRING, np ? plist : " "));
  PetscCall(PetscFree(plist));
  {
    const char *const *tnames, *const *texts;
    PetscInt nt;
    char    *tlist;

    /* text parameters: string attributes under their own names (param_ as above), listed in
       model_text_parameters */
    PetscCall(MechSystemGetTextParameters(out->sys, &nt, &tnames, &texts));
    len = 1;
    for (i = 0; i < nt; i++) {
      size_t l;
      PetscCall(PetscStrlen(tnames[i], &l));
      len += l + 8;
    }
    PetscCall(PetscCalloc1(len, &tlist));
    for (i = 0; i < nt; i++) {
      char name[256];

      PetscCall(MechOutputParameterAttributeName(tnames[i], name, sizeof(name)));
      PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", name, PETSC_STRING, texts[i]));
      if (i) PetscCall(PetscStrlcat(tlist, ",", len));
      PetscCall(PetscStrlcat(tlist, name, len));
    }
    PetscCall(PetscViewerHDF5WriteAttribute(out->viewer, "/", "model_text_parameters", PETSC_STRING, nt ? tlist : " "));
    PetscCall(PetscFree(tlist));
  }

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
  PetscCall(TSMechSchemeForEachParameter(&scheme, MechOutputWriteSchemeParameter, out->viewer));
  PetscFunctionReturn(0);
}

#endif
