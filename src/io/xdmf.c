/*
  XDMF (version 2) description of the snapshots of a grid model, so ParaView and VisIt open the
  HDF5 output as an animated surface (2-D DMDA, e.g. the cloth) or volume (3-D DMDA, e.g. the
  lattice) without a conversion step. The heavy data stays in the .h5: every grid of the temporal
  collection selects its snapshot of /fields/q and /fields/v as a hyperslab, and its displacement
  from the first snapshot as the difference of two hyperslabs of /fields/q (an XDMF Function item).
  A model on a mesh (the solid) is an unstructured grid: Topology "Tetrahedron" from
  /mesh/tetrahedra (0-based vertex numbers, the order of /fields), nodes [nv, 3]
  (https://www.xdmf.org/index.php/XDMF_Model_and_Format, "Topology"); quadratic tetrahedra and
  hexahedra are "Tetrahedron_10", "Hexahedron" or "Hexahedron_27" from /mesh/cells, their nodes in
  XDMF's order, which is VTK's (VTK_QUADRATIC_TETRA, VTK_HEXAHEDRON, VTK_TRIQUADRATIC_HEXAHEDRON:
  ParaView's XDMF reader hands the connectivity to VTK unchanged; docs/solid.md "Output of
  quadratic fields" lists the orders), so ParaView draws the curved cells. Its per-cell fields
  (MechSystemSetCellFields(), /fields/<name>) are cell-centred attributes of each grid, hyperslabs
  of their snapshot as well; its per-node fields (MechSystemSetNodeFields()) are node-centred
  attributes over the nodes of /fields/q, in the same way.
*/
#define _POSIX_C_SOURCE 200809L
#include "outputimpl.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A hyperslab DataItem selecting snapshot k of dataset /fields/<name>, shape [nsnap, shape] */
static PetscErrorCode WriteSlab(FILE *fp, const char h5name[], const char name[], PetscInt rank, const PetscInt shape[], PetscInt nsnap, PetscInt k, const char indent[])
{
  PetscInt d;

  PetscFunctionBegin;
  /* The item has the shape of the grid's nodes (3-D, see MechOutputWriteXDMF()) times the
     components: the shape ParaView's reader expects of a node attribute of a 3DSMesh. */
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%s<DataItem ItemType=\"HyperSlab\" Dimensions=\"%s", indent, rank == 3 ? "1 " : ""));
  for (d = 0; d < rank; d++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%s%" PetscInt_FMT, d ? " " : "", shape[d]));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "\" Type=\"HyperSlab\">\n"));
  /* start, stride and count, one row each, over the rank + 1 dimensions of the dataset */
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%s  <DataItem Dimensions=\"3 %" PetscInt_FMT "\" Format=\"XML\">%" PetscInt_FMT, indent, rank + 1, k));
  for (d = 0; d < rank; d++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, " 0"));
  for (d = 0; d <= rank; d++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, " 1"));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, " 1"));
  for (d = 0; d < rank; d++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, " %" PetscInt_FMT, shape[d]));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "</DataItem>\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%s  <DataItem Dimensions=\"%" PetscInt_FMT, indent, nsnap));
  for (d = 0; d < rank; d++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, " %" PetscInt_FMT, shape[d]));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:/fields/%s</DataItem>\n", h5name, name));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%s</DataItem>\n", indent));
  PetscFunctionReturn(0);
}

/*
  A cell (or node) attribute of snapshot k: a hyperslab of /fields/<name> ([nsnap, nc] for one component,
  [nsnap, nc, ncomp] otherwise, nc cells or nodes) selecting snapshot k, all cells and either every component
  (comp < 0) or component comp alone
*/
static PetscErrorCode WriteCellSlab(FILE *fp, const char h5name[], const char name[], PetscInt nc, PetscInt ncomp, PetscInt nsnap, PetscInt k, PetscInt comp, const char indent[])
{
  PetscFunctionBegin;
  if (ncomp == 1) {
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%s<DataItem ItemType=\"HyperSlab\" Dimensions=\"%" PetscInt_FMT "\" Type=\"HyperSlab\">\n", indent, nc));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%s  <DataItem Dimensions=\"3 2\" Format=\"XML\">%" PetscInt_FMT " 0 1 1 1 %" PetscInt_FMT "</DataItem>\n", indent, k, nc));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%s  <DataItem Dimensions=\"%" PetscInt_FMT " %" PetscInt_FMT "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:/fields/%s</DataItem>\n", indent, nsnap, nc, h5name, name));
  } else {
    const PetscInt cnt = comp < 0 ? ncomp : 1;

    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%s<DataItem ItemType=\"HyperSlab\" Dimensions=\"%" PetscInt_FMT " %" PetscInt_FMT "\" Type=\"HyperSlab\">\n", indent, nc, cnt));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%s  <DataItem Dimensions=\"3 3\" Format=\"XML\">%" PetscInt_FMT " 0 %" PetscInt_FMT " 1 1 1 1 %" PetscInt_FMT " %" PetscInt_FMT "</DataItem>\n", indent, k, comp < 0 ? 0 : comp, nc, cnt));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%s  <DataItem Dimensions=\"%" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:/fields/%s</DataItem>\n", indent, nsnap, nc, ncomp, h5name, name));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%s</DataItem>\n", indent));
  PetscFunctionReturn(0);
}

/*
  The cell (center "Cell") or node ("Node") attributes of snapshot k: a scalar, a vector, or a symmetric tensor as six scalars
  <name>_xx ... (XDMF's Tensor6 leaves the order of its components to the reader; six named
  scalars leave no doubt)
*/
static PetscErrorCode WriteCellAttributes(FILE *fp, const char h5name[], const char center[], PetscInt nc, PetscInt nsnap, PetscInt k, PetscInt nfields, const char *const fields[], const PetscInt ncomp[])
{
  static const char *const voigt[6] = {"xx", "yy", "zz", "yz", "xz", "xy"};

  PetscFunctionBegin;
  for (PetscInt f = 0; f < nfields; f++) {
    if (ncomp[f] == 1 || ncomp[f] == 3) {
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "        <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"%s\">\n", fields[f], ncomp[f] == 1 ? "Scalar" : "Vector", center));
      PetscCall(WriteCellSlab(fp, h5name, fields[f], nc, ncomp[f], nsnap, k, -1, "          "));
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "        </Attribute>\n"));
    } else {
      PetscCheck(ncomp[f] == 6, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cell field %s: %" PetscInt_FMT " components cannot be described in XDMF (1, 3 or 6)", fields[f], ncomp[f]);
      for (PetscInt j = 0; j < 6; j++) {
        PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "        <Attribute Name=\"%s_%s\" AttributeType=\"Scalar\" Center=\"%s\">\n", fields[f], voigt[j], center));
        PetscCall(WriteCellSlab(fp, h5name, fields[f], nc, 6, nsnap, k, j, "          "));
        PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "        </Attribute>\n"));
      }
    }
  }
  PetscFunctionReturn(0);
}

/* The XDMF text, written to fp */
static PetscErrorCode WriteText(FILE *fp, const char h5name[], const char grid[], PetscInt dim, const PetscInt shape[], PetscInt ncells, PetscInt nper, const char topology[], PetscInt nsnap, const PetscReal times[], PetscInt nfields, const char *const fields[], const PetscInt ncomp[], PetscInt nnode, const char *const nodefields[], const PetscInt nodencomp[])
{
  PetscInt k, d, rank = dim ? dim + 1 : 2; /* dimensions of one snapshot: the grid's (or the vertices') and the dof's */

  PetscFunctionBegin;
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"));
  /* the mark by which a later run knows the file as its own to replace (MechIOIsOwnXDMF()) */
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%sa tsmech HDF5 output, written by tsmech %s -->\n", MECH_XDMF_MARKER, TSMECH_VERSION));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "<Xdmf Version=\"2.0\">\n  <Domain>\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "    <Grid Name=\"%s\" GridType=\"Collection\" CollectionType=\"Temporal\">\n", grid));
  for (k = 0; k < nsnap; k++) {
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "      <Grid Name=\"snapshot %" PetscInt_FMT "\" GridType=\"Uniform\">\n", k));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "        <Time Value=\"%.17g\"/>\n", (double)times[k]));
    /* Node counts, slowest first as in the dataset. A 2-D grid is a 3DSMesh of one layer (a
       surface to ParaView): its XDMF2 reader selects node attributes of a 2DSMesh with a
       hyperslab that does not fit vector data. */
    if (!dim) {
      const PetscBool tet = !strcmp(topology, "Tetrahedron") ? PETSC_TRUE : PETSC_FALSE;

      PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "        <Topology TopologyType=\"%s\" NumberOfElements=\"%" PetscInt_FMT "\">\n", topology, ncells));
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "          <DataItem Dimensions=\"%" PetscInt_FMT " %" PetscInt_FMT "\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">%s:/mesh/%s</DataItem>\n", ncells, nper, h5name, tet ? "tetrahedra" : "cells"));
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "        </Topology>\n"));
    } else if (dim == 2) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "        <Topology TopologyType=\"3DSMesh\" Dimensions=\"1 %" PetscInt_FMT " %" PetscInt_FMT "\"/>\n", shape[0], shape[1]));
    else PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "        <Topology TopologyType=\"3DSMesh\" Dimensions=\"%" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT "\"/>\n", shape[0], shape[1], shape[2]));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "        <Geometry GeometryType=\"XYZ\">\n"));
    PetscCall(WriteSlab(fp, h5name, "q", rank, shape, nsnap, k, "          "));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "        </Geometry>\n"));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "        <Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Node\">\n"));
    PetscCall(WriteSlab(fp, h5name, "v", rank, shape, nsnap, k, "          "));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "        </Attribute>\n"));
    /* the displacement from the first snapshot (the run's initial state), what users colour by:
       an XDMF function of two hyperslabs of /fields/q, so the .h5 stores no third field */
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "        <Attribute Name=\"displacement\" AttributeType=\"Vector\" Center=\"Node\">\n"));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "          <DataItem ItemType=\"Function\" Function=\"$0 - $1\" Dimensions=\"%s", rank == 3 ? "1 " : ""));
    for (d = 0; d < rank; d++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%s%" PetscInt_FMT, d ? " " : "", shape[d]));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "\">\n"));
    PetscCall(WriteSlab(fp, h5name, "q", rank, shape, nsnap, k, "            "));
    PetscCall(WriteSlab(fp, h5name, "q", rank, shape, nsnap, 0, "            "));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "          </DataItem>\n"));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "        </Attribute>\n"));
    if (!dim) PetscCall(WriteCellAttributes(fp, h5name, "Cell", ncells, nsnap, k, nfields, fields, ncomp));
    if (!dim) PetscCall(WriteCellAttributes(fp, h5name, "Node", shape[0], nsnap, k, nnode, nodefields, nodencomp));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "      </Grid>\n"));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "    </Grid>\n  </Domain>\n</Xdmf>\n"));
  PetscFunctionReturn(0);
}

/*
  The file is written to xmfpath.tmp-<pid> and renamed over xmfpath, so a failed write (a full
  disk) leaves the previous file as it was and no partial one. Errors name the file.
*/
PetscErrorCode MechOutputWriteXDMF(const char xmfpath[], const char h5name[], const char grid[], PetscInt dim, const PetscInt shape[], PetscInt ncells, PetscInt nper, const char topology[], PetscInt nsnap, const PetscReal times[], PetscInt nfields, const char *const fields[], const PetscInt ncomp[], PetscInt nnode, const char *const nodefields[], const PetscInt nodencomp[])
{
  FILE          *fp;
  char           tmp[PETSC_MAX_PATH_LEN + 32];
  PetscErrorCode ierr;
  int            err = 0;

  PetscFunctionBegin;
  PetscCheck(dim == 2 || dim == 3 || (dim == 0 && ncells > 0), PETSC_COMM_SELF, PETSC_ERR_SUP, "XDMF output is for 2-D and 3-D grids and tetrahedral meshes, not %" PetscInt_FMT "-D", dim);
  PetscCheck(shape[dim ? dim : 1] == 3, PETSC_COMM_SELF, PETSC_ERR_SUP, "XDMF output needs 3 dofs per node (x, y, z), not %" PetscInt_FMT, shape[dim ? dim : 1]);
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp-%d", xmfpath, (int)getpid()));
  fp = fopen(tmp, "w");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write the XDMF file %s: %s", xmfpath, strerror(errno));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = WriteText(fp, h5name, grid, dim, shape, ncells, nper, topology, nsnap, times, nfields, fields, ncomp, nnode, nodefields, nodencomp);
  PetscCall(PetscPopErrorHandler());
  if (fflush(fp) || ferror(fp)) err = errno ? errno : EIO;
  if (fclose(fp) && !err) err = errno;
  if (!err && !ierr) {
    char what[2 * PETSC_MAX_PATH_LEN + 96];

    err = MechIOCommitFile(tmp, xmfpath, 1, PETSC_FALSE, what, sizeof(what));
  }
  if (err || ierr) {
    (void)remove(tmp);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write the XDMF file %s: %s", xmfpath, err == ENOSPC ? "no space left on device" : strerror(err));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write the XDMF file %s", xmfpath);
  }
  PetscFunctionReturn(0);
}
