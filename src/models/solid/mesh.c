/*
  The solid's mesh: the built-in beam or a file (Gmsh through gmsh.c, DMPlex HDF5 through PETSc),
  its checks, its distribution with the rank-independent numbers of cells and vertices (their
  places in the file or the beam), which the output and the checkpoints use, and the element
  geometry of every local cell.
*/
#include "solidimpl.h"

static PetscErrorCode SolidMeshCopyNodes(DM, DM, const PetscInt[]);

/*
  The built-in beam [0, Lx] x [0, Ly] x [0, Lz]: nx x ny x nz boxes, each split into the 6
  tetrahedra around its diagonal from (0, 0, 0) to (1, 1, 1) (Kuhn's triangulation, conforming
  because every box is split alike). Built on rank 0 and distributed by the caller: Debian's PETSc
  has no tetrahedral mesh generator, which DMPlexCreateBoxMesh() would need for simplices.
*/
static PetscErrorCode SolidCreateBeam(MPI_Comm comm, const PetscInt n[3], const PetscReal L[3], DMPolytopeType ct, PetscInt order, DM *dm)
{
  /* a hexahedron's vertices in the order of PETSc's reference hexahedron (DMPlexCreateReferenceCell()):
     the box's corners (i + dx, j + dy, k + dz), so that every cell is positively oriented */
  const PetscInt hexv[8][3] = {
      {0, 0, 0},
      {0, 1, 0},
      {1, 1, 0},
      {1, 0, 0},
      {0, 0, 1},
      {1, 0, 1},
      {1, 1, 1},
      {0, 1, 1},
  };
  const PetscBool hex        = ct == DM_POLYTOPE_HEXAHEDRON ? PETSC_TRUE : PETSC_FALSE;
  const PetscInt  nvc        = hex ? 8 : 4;
  const PetscInt  perm[6][3] = {
       {0, 1, 2},
       {0, 2, 1},
       {1, 0, 2},
       {1, 2, 0},
       {2, 0, 1},
       {2, 1, 0},
  };
  PetscMPIInt rank;
  PetscInt    nv = 0, nc = 0, *cells = NULL;
  PetscReal  *X = NULL;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    const PetscInt sx = 1, sy = n[0] + 1, sz = (n[0] + 1) * (n[1] + 1), st[3] = {sx, sy, sz};

    nv = (n[0] + 1) * (n[1] + 1) * (n[2] + 1);
    nc = (hex ? 1 : 6) * n[0] * n[1] * n[2];
    PetscCall(PetscMalloc2(3 * nv, &X, nvc * nc, &cells));
    for (PetscInt k = 0; k <= n[2]; k++)
      for (PetscInt j = 0; j <= n[1]; j++)
        for (PetscInt i = 0; i <= n[0]; i++) {
          const PetscInt v = i * sx + j * sy + k * sz;

          X[3 * v]     = L[0] * i / n[0];
          X[3 * v + 1] = L[1] * j / n[1];
          X[3 * v + 2] = L[2] * k / n[2];
        }
    /* cells numbered along x slowest: the simple partitioner then cuts the beam across its length */
    nc = 0;
    for (PetscInt i = 0; i < n[0]; i++)
      for (PetscInt j = 0; j < n[1]; j++)
        for (PetscInt k = 0; k < n[2]; k++) {
          if (hex) {
            PetscInt *c = &cells[8 * nc++];

            for (PetscInt a = 0; a < 8; a++) c[a] = (i + hexv[a][0]) * sx + (j + hexv[a][1]) * sy + (k + hexv[a][2]) * sz;
            continue;
          }
          for (PetscInt t = 0; t < 6; t++) {
            PetscInt *c = &cells[4 * nc++], odd;

            c[0] = i * sx + j * sy + k * sz;
            c[1] = c[0] + st[perm[t][0]];
            c[2] = c[1] + st[perm[t][1]];
            c[3] = c[2] + st[perm[t][2]];
            /* the even permutations (right-handed Dm) have the orientation opposite to PETSc's
               reference tetrahedron: swapping two vertices gives a positive PETSc volume */
            odd = (perm[t][0] == 0 && perm[t][1] == 2) || (perm[t][0] == 1 && perm[t][1] == 0) || (perm[t][0] == 2 && perm[t][1] == 1);
            if (!odd) {
              const PetscInt tmp = c[1];

              c[1] = c[2];
              c[2] = tmp;
            }
          }
        }
  }
  /* interpolated (docs/solid.md, the element layout in solidimpl.h) where nodes sit on edges and
     faces (order 2) and for hexahedra; P1 tetrahedra need their vertices only, and the
     interpolation would cost 1.9 of the 5.5 s of the set-up of 128 x 16 x 16 boxes (faces for
     loads come from an interpolated copy, loads.c) */
  PetscCall(DMPlexCreateFromCellListPetsc(comm, 3, nc, nv, nvc, (order == 2 || ct == DM_POLYTOPE_HEXAHEDRON) ? PETSC_TRUE : PETSC_FALSE, cells, 3, X, dm));
  PetscCall(PetscFree2(X, cells));
  PetscFunctionReturn(0);
}

/*
  The mesh: read (after checking on rank 0 that the file exists) or the built-in beam, and the
  rank-independent number of each of its cells (cellid, allocated here): its place among the
  file's tetrahedra (tsmech's Gmsh reader, SolidMeshReadGmsh(), and PETSc's HDF5 reader keep the
  file's order), or in the beam's construction order; and of each of its vertices (vertid,
  allocated here), likewise (a Gmsh file: the nodes of its tetrahedra in file order)
*/
PetscErrorCode SolidCreateMesh(MPI_Comm comm, const char file[], const PetscInt cells[3], const PetscReal size[3], DMPolytopeType ct, PetscInt order, DM *dm, PetscInt **cellid, PetscInt **vertid)
{
  PetscInt cStart, cEnd, vStart, vEnd;

  PetscFunctionBegin;
  if (file[0]) {
    PetscMPIInt rank;
    char        shown[160];

    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    /* a regular, readable file that the reader (which holds it whole) can hold */
    PetscCall(MechFileCheckRead(comm, "-solid_mesh", NULL, file, MechFileMemoryLimit()));
    (void)MechOptionsShortValue(file, shown, sizeof(shown));
    {
      const char *ext[] = {".msh", ".msh2", ".msh4", ".h5", ".hdf5"};
      PetscBool   known = PETSC_FALSE;
      size_t      len, el;

      PetscCall(PetscStrlen(file, &len));
      for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]) && !known; i++) {
        PetscCall(PetscStrlen(ext[i], &el));
        if (len > el) PetscCall(PetscStrcasecmp(file + len - el, ext[i], &known));
      }
      PetscCheck(known, comm, PETSC_ERR_ARG_WRONG, "-solid_mesh %s: not a mesh file tsmech reads (Gmsh .msh, format 2 or 4, or PETSc's DMPlex HDF5 .h5)", shown);
    }
    {
      /* the signature of the file (read on rank 0): an HDF5 file, or text starting with a Gmsh
         section ($MeshFormat, or $Comments or another section before it) */
      static const unsigned char hdf5sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
      unsigned char              head[16]   = {0};
      PetscInt                   kind       = 0; /* 0: neither, 1: Gmsh, 2: HDF5 */
      char                       what[PETSC_MAX_PATH_LEN + 16];

      if (rank == 0) {
        FILE *fp = fopen(file, "rb");

        if (fp) {
          size_t nread = fread(head, 1, sizeof(head), fp), k = 0;

          (void)fclose(fp);
          while (k < nread && (head[k] == ' ' || head[k] == '\t' || head[k] == '\r' || head[k] == '\n')) k++;
          if (nread >= 8 && !memcmp(head, hdf5sig, 8)) kind = 2;
          else if (k < nread && head[k] == '$') kind = 1;
        }
      }
      PetscCallMPI(MPI_Bcast(&kind, 1, MPIU_INT, 0, comm));
      PetscCheck(kind, comm, PETSC_ERR_ARG_WRONG, "-solid_mesh %s: neither a Gmsh mesh (no $MeshFormat header) nor an HDF5 file", shown);
      PetscCall(PetscSNPrintf(what, sizeof(what), "-solid_mesh %s", shown));
      /* Gmsh files: tsmech's own reader (src/models/solid/gmsh.c), which checks what PETSc's
         trusts; DMPlex HDF5: PETSc's reader, quiet */
      if (kind == 1) PetscCall(SolidMeshReadGmsh(comm, file, what, dm));
      else PetscCall(SolidMeshReadHDF5(comm, file, what, dm));
    }
    {
      /* a mesh generator numbers cells in no spatial order; in reverse Cuthill-McKee order the
         simple partitioner's runs of consecutive cells are compact pieces of the body */
      IS perm;
      DM pdm;

      PetscCall(DMPlexGetOrdering(*dm, MATORDERINGRCM, NULL, &perm));
      PetscCall(DMPlexPermute(*dm, perm, &pdm));
      /* perm[old point] = new point: the new cell perm[c] is the file's cell c */
      PetscCall(DMPlexGetHeightStratum(*dm, 0, &cStart, &cEnd));
      PetscCall(PetscMalloc1(cEnd - cStart, cellid));
      {
        const PetscInt *pa;
        PetscInt        nStart, nEnd;

        PetscCall(DMPlexGetHeightStratum(pdm, 0, &nStart, &nEnd));
        PetscCheck(nStart == cStart && nEnd == cEnd, comm, PETSC_ERR_PLIB, "The reordering moved the cells from [%" PetscInt_FMT ", %" PetscInt_FMT ") to [%" PetscInt_FMT ", %" PetscInt_FMT ")", cStart, cEnd, nStart, nEnd);
        PetscCall(ISGetIndices(perm, &pa));
        for (PetscInt c = cStart; c < cEnd; c++) {
          PetscCheck(pa[c] >= cStart && pa[c] < cEnd, comm, PETSC_ERR_PLIB, "The reordering made cell %" PetscInt_FMT " point %" PetscInt_FMT ", not a cell", c, pa[c]);
          (*cellid)[pa[c] - cStart] = c - cStart;
        }
        /* and the new vertex perm[v] is the file's vertex v (the order of PETSc's reader) */
        PetscCall(DMPlexGetDepthStratum(*dm, 0, &vStart, &vEnd));
        PetscCall(PetscMalloc1(vEnd - vStart + 1, vertid));
        for (PetscInt v = vStart; v < vEnd; v++) {
          PetscCheck(pa[v] >= vStart && pa[v] < vEnd, comm, PETSC_ERR_PLIB, "The reordering made vertex %" PetscInt_FMT " point %" PetscInt_FMT ", not a vertex", v, pa[v]);
          (*vertid)[pa[v] - vStart] = v - vStart;
        }
        PetscCall(ISRestoreIndices(perm, &pa));
      }
      PetscCall(ISDestroy(&perm));
      PetscCall(SolidMeshCopyPhysicalGroups(*dm, pdm));
      PetscCall(SolidMeshCopyNodes(*dm, pdm, *cellid));
      PetscCall(DMDestroy(dm));
      *dm = pdm;
    }
  } else {
    PetscCall(SolidCreateBeam(comm, cells, size, ct, order, dm));
    PetscCall(DMPlexGetHeightStratum(*dm, 0, &cStart, &cEnd));
    PetscCall(PetscMalloc1(cEnd - cStart, cellid));
    for (PetscInt c = cStart; c < cEnd; c++) (*cellid)[c - cStart] = c - cStart;
    PetscCall(DMPlexGetDepthStratum(*dm, 0, &vStart, &vEnd));
    PetscCall(PetscMalloc1(vEnd - vStart + 1, vertid));
    for (PetscInt v = vStart; v < vEnd; v++) (*vertid)[v - vStart] = v - vStart;
  }
  PetscFunctionReturn(0);
}

/*
  Refuses a mesh that is not 3-D, has cells other than tetrahedra or hexahedra or both kinds, or
  inverted or degenerate tetrahedra, naming the first offending cell by its rank-independent number
  cellid (its place among the file's cells; a Gmsh file's reader has refused such cells already,
  naming their element tags). The cell type found is returned in ct (on every rank). Hexahedra are
  checked at their quadrature points by SolidSetUpCells().
*/
PetscErrorCode SolidCheckMesh(DM dm, const char what[], const PetscInt cellid[], DMPolytopeType *ct)
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)dm);
  PetscInt  dim, cdim, cStart, cEnd, bad[3] = {0, 0, 0}, first[3] = {PETSC_MAX_INT, PETSC_MAX_INT, PETSC_MAX_INT}, n, N, kinds[2] = {0, 0};
  PetscReal v0[3], J[9], invJ[9], detJ, vmax = 0;

  PetscFunctionBegin;
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCheck(dim == 3 && cdim == 3, comm, PETSC_ERR_ARG_WRONG, "%s: the mesh is %" PetscInt_FMT "-D (coordinates in %" PetscInt_FMT "-D); the solid model needs a 3-D mesh of tetrahedra or hexahedra", what, dim, cdim);
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  n = cEnd - cStart;
  PetscCall(MPIU_Allreduce(&n, &N, 1, MPIU_INT, MPI_SUM, comm));
  PetscCheck(N > 0, comm, PETSC_ERR_ARG_WRONG, "%s: the mesh has no cells", what);
  for (PetscInt c = cStart; c < cEnd; c++) {
    DMPolytopeType t;

    PetscCall(DMPlexGetCellType(dm, c, &t));
    if (t == DM_POLYTOPE_TETRAHEDRON) kinds[0]++;
    else if (t == DM_POLYTOPE_HEXAHEDRON) kinds[1]++;
    else {
      bad[0]++;
      first[0] = PetscMin(first[0], cellid[c - cStart]);
    }
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, kinds, 2, MPIU_INT, MPI_SUM, comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad[0], 1, MPIU_INT, MPI_SUM, comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &first[0], 1, MPIU_INT, MPI_MIN, comm));
  PetscCheck(!bad[0], comm, PETSC_ERR_ARG_WRONG, "%s: %" PetscInt_FMT " of the %" PetscInt_FMT " cells are neither tetrahedra nor hexahedra (the first: cell %" PetscInt_FMT " of the file); the solid model needs a mesh of tetrahedra or of hexahedra", what, bad[0], N, first[0]);
  PetscCheck(!kinds[0] || !kinds[1], comm, PETSC_ERR_ARG_WRONG, "%s: the mesh mixes %" PetscInt_FMT " tetrahedra and %" PetscInt_FMT " hexahedra; the solid model takes one kind of cell", what, kinds[0], kinds[1]);
  *ct = kinds[1] ? DM_POLYTOPE_HEXAHEDRON : DM_POLYTOPE_TETRAHEDRON;
  if (*ct == DM_POLYTOPE_HEXAHEDRON) PetscFunctionReturn(0);
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscCall(DMPlexComputeCellGeometryAffineFEM(dm, c, v0, J, invJ, &detJ));
    vmax = PetscMax(vmax, PetscAbsReal(detJ));
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &vmax, 1, MPIU_REAL, MPIU_MAX, comm));
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt k = -1;

    PetscCall(DMPlexComputeCellGeometryAffineFEM(dm, c, v0, J, invJ, &detJ));
    /* a volume below 1e-12 of the largest is round-off: degenerate */
    if (PetscAbsReal(detJ) <= 1e-12 * vmax) k = 1;
    else if (detJ < 0) k = 2;
    if (k > 0) {
      bad[k]++;
      first[k] = PetscMin(first[k], cellid[c - cStart]);
    }
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad[1], 2, MPIU_INT, MPI_SUM, comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &first[1], 2, MPIU_INT, MPI_MIN, comm));
  PetscCheck(!bad[1], comm, PETSC_ERR_ARG_WRONG, "%s: %" PetscInt_FMT " degenerate (zero-volume) tetrahedra, the first cell %" PetscInt_FMT " of the file", what, bad[1], first[1]);
  PetscCheck(!bad[2], comm, PETSC_ERR_ARG_WRONG, "%s: %" PetscInt_FMT " inverted (negative-volume) tetrahedra, the first cell %" PetscInt_FMT " of the file", what, bad[2], first[2]);
  PetscFunctionReturn(0);
}

/* The higher-order nodes a mesh file supplies (SolidMeshSetNodes()), kept with the serial DM */
typedef struct {
  PetscInt   nc, nper; /* cells, Gmsh nodes per cell */
  PetscReal *X;        /* per cell in the DM's order, its nper nodes' coordinates in Gmsh's order */
} SolidNodes;

static PetscErrorCode SolidNodesDestroy(void *ctx)
{
  SolidNodes *n = (SolidNodes *)ctx;

  PetscFunctionBegin;
  PetscCall(PetscFree(n->X));
  PetscCall(PetscFree(n));
  PetscFunctionReturn(0);
}

static PetscErrorCode SolidNodesAttach(DM dm, SolidNodes *n)
{
  PetscContainer cont;

  PetscFunctionBegin;
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &cont));
  PetscCall(PetscContainerSetPointer(cont, n));
  PetscCall(PetscContainerSetUserDestroy(cont, SolidNodesDestroy));
  PetscCall(PetscObjectCompose((PetscObject)dm, "tsmech_solid_nodes", (PetscObject)cont));
  PetscCall(PetscContainerDestroy(&cont));
  PetscFunctionReturn(0);
}

static PetscErrorCode SolidNodesGet(DM dm, SolidNodes **n)
{
  PetscContainer cont = NULL;

  PetscFunctionBegin;
  *n = NULL;
  PetscCall(PetscObjectQuery((PetscObject)dm, "tsmech_solid_nodes", (PetscObject *)&cont));
  if (cont) PetscCall(PetscContainerGetPointer(cont, (void **)n));
  PetscFunctionReturn(0);
}

/*
  SolidMeshSetNodes - The hook of a mesh reader for curved (second-order) meshes: on the serial DM
  as read (all cells on rank 0, in the file's order), the coordinates X of each cell's nper nodes in
  Gmsh's node order (nper = 10: 10-node tetrahedra, element type 11; 27: 27-node hexahedra, type
  12); ranks without cells pass nc = 0. SolidDistribute() matches the vertex nodes to the cell's
  vertices by their coordinates, the other nodes to the edges, faces and cell by Gmsh's tables, and
  carries the positions to the ranks. Collective on the DM's communicator only through the caller.
*/
PetscErrorCode SolidMeshSetNodes(DM dm, PetscInt nc, PetscInt nper, const PetscInt cellorder[], const PetscReal X[])
{
  SolidNodes *n;
  PetscInt    cStart, cEnd;

  PetscFunctionBegin;
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCheck(nc == cEnd - cStart, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "SolidMeshSetNodes(): %" PetscInt_FMT " cells given, the mesh has %" PetscInt_FMT " on this rank", nc, cEnd - cStart);
  PetscCheck(nper == 10 || nper == 27, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SolidMeshSetNodes(): %" PetscInt_FMT " nodes per cell; 10 (tetrahedra) or 27 (hexahedra)", nper);
  PetscCall(PetscNew(&n));
  n->nc   = nc;
  n->nper = nper;
  PetscCall(PetscMalloc1(3 * nper * nc + 1, &n->X));
  /* cellorder[k]: the DM cell of the k-th cell given (NULL: the same) */
  for (PetscInt k = 0; k < nc; k++) {
    const PetscInt c = cellorder ? cellorder[k] : k;

    PetscCheck(c >= 0 && c < nc, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SolidMeshSetNodes(): cell %" PetscInt_FMT " out of range", c);
    PetscCall(PetscArraycpy(&n->X[3 * nper * c], &X[3 * nper * k], 3 * nper));
  }
  PetscCall(SolidNodesAttach(dm, n));
  PetscFunctionReturn(0);
}

/*
  SolidMeshUseGmshNodes - The glue of the file's higher-order nodes and the model: with order 2
  (-solid_order 2) and a file of 10- or 27-node cells, their edge, face and centre nodes (curved
  edges as the file has them) go to the model's element layout (SolidMeshSetNodes());
  cellid[c] is the file's number of the DM's cell c (after the model's permutation). Order 2 on a
  linear file: the model puts the nodes at their entities' centroids (straight). Order 1 on a
  quadratic file: the cells' corners make the linear mesh, the other nodes are left out. A DM not
  read by SolidMeshReadGmsh() is left alone. Collective.
*/
PetscErrorCode SolidMeshUseGmshNodes(DM dm, PetscInt order, const PetscInt cellid[])
{
  PetscBool        found;
  PetscInt         forder, nnodes, nc, *given = NULL;
  const PetscReal *X;

  PetscFunctionBegin;
  PetscCall(SolidMeshGetGmshCells(dm, &found, NULL, &forder, &nnodes, &nc, &X));
  if (!found) PetscFunctionReturn(0);
  if (order == 2 && forder == 2) {
    /* the k-th cell given (the file's cell k) is the DM's cell given[k] */
    PetscCall(PetscMalloc1(nc + 1, &given));
    for (PetscInt c = 0; c < nc; c++) given[cellid[c]] = c;
    PetscCall(SolidMeshSetNodes(dm, nc, nnodes, given, X));
    PetscCall(PetscFree(given));
  }
  /* the nodes are copied or not needed: rank 0 does not keep a second copy of them with the DM */
  PetscCall(SolidMeshReleaseGmshNodes(dm));
  PetscFunctionReturn(0);
}

/* The nodes of SolidMeshSetNodes() carried to a permuted copy of the DM: the new cell c is the old cellid[c] */
static PetscErrorCode SolidMeshCopyNodes(DM odm, DM ndm, const PetscInt cellid[])
{
  SolidNodes *o, *n;

  PetscFunctionBegin;
  PetscCall(SolidNodesGet(odm, &o));
  if (!o) PetscFunctionReturn(0);
  PetscCall(PetscNew(&n));
  n->nc   = o->nc;
  n->nper = o->nper;
  PetscCall(PetscMalloc1(3 * n->nper * n->nc + 1, &n->X));
  for (PetscInt c = 0; c < n->nc; c++) PetscCall(PetscArraycpy(&n->X[3 * n->nper * c], &o->X[3 * o->nper * cellid[c]], 3 * n->nper));
  PetscCall(SolidNodesAttach(ndm, n));
  PetscFunctionReturn(0);
}

/* Gmsh's node order (gmsh.info, "Node ordering"): the vertices of each higher-order node (-1: unused) */
static const PetscInt GmshTet10[6][4] = {
    {0, 1, -1, -1},
    {1, 2, -1, -1},
    {2, 0, -1, -1},
    {3, 0, -1, -1},
    {3, 2, -1, -1},
    {3, 1, -1, -1},
};
static const PetscInt GmshHex27[19][4] = {
    {0,  1,  -1, -1},
    {0,  3,  -1, -1},
    {0,  4,  -1, -1},
    {1,  2,  -1, -1},
    {1,  5,  -1, -1},
    {2,  3,  -1, -1},
    {2,  6,  -1, -1},
    {3,  7,  -1, -1},
    {4,  5,  -1, -1},
    {4,  7,  -1, -1},
    {5,  6,  -1, -1},
    {6,  7,  -1, -1},
    {0,  1,  2,  3 },
    {0,  1,  4,  5 },
    {0,  3,  4,  7 },
    {1,  2,  5,  6 },
    {2,  3,  6,  7 },
    {4,  5,  6,  7 },
    {-1, -1, -1, -1},
};

/* The vertices (points) of the closure of point p, at most 8 */
PetscErrorCode SolidClosureVertices(DM dm, PetscInt p, PetscInt *nv, PetscInt v[8])
{
  PetscInt *cl = NULL, ncl, vStart, vEnd;

  PetscFunctionBegin;
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  *nv = 0;
  PetscCall(DMPlexGetTransitiveClosure(dm, p, PETSC_TRUE, &ncl, &cl));
  for (PetscInt k = 0; k < ncl; k++)
    if (cl[2 * k] >= vStart && cl[2 * k] < vEnd && *nv < 8) v[(*nv)++] = cl[2 * k];
  PetscCall(DMPlexRestoreTransitiveClosure(dm, p, PETSC_TRUE, &ncl, &cl));
  PetscFunctionReturn(0);
}

/*
  The reference positions of the nodes of the serial (undistributed) DM in a local vector X with
  section sec: vertices from the coordinates, the other nodes at the centroid of their vertices or
  where a mesh file put them (SolidMeshSetNodes()). A node of the file that is not near its edge,
  face or cell (a quarter of its size) is refused: the file's node order is not Gmsh's.
*/
static PetscErrorCode SolidReferenceField(DM dm, PetscSection sec, const char what[], Vec X)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)dm);
  PetscSection       cs;
  Vec                coords;
  PetscScalar       *x;
  const PetscScalar *ca;
  PetscInt           pStart, pEnd, vStart, vEnd, cStart, cEnd, bad = 0, badcell = -1;
  SolidNodes        *nodes;

  PetscFunctionBegin;
  PetscCall(DMGetCoordinateSection(dm, &cs));
  PetscCall(DMGetCoordinatesLocal(dm, &coords));
  PetscCall(PetscSectionGetChart(sec, &pStart, &pEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(VecGetArray(X, &x));
  PetscCall(VecGetArrayRead(coords, &ca));
  for (PetscInt p = pStart; p < pEnd; p++) {
    PetscInt dof, off, nv, v[8], coff;

    PetscCall(PetscSectionGetDof(sec, p, &dof));
    if (dof <= 0) continue;
    PetscCall(PetscSectionGetOffset(sec, p, &off));
    if (p >= vStart && p < vEnd) {
      PetscCall(PetscSectionGetOffset(cs, p, &coff));
      for (PetscInt i = 0; i < 3; i++) x[off + i] = ca[coff + i];
      continue;
    }
    PetscCall(SolidClosureVertices(dm, p, &nv, v));
    for (PetscInt i = 0; i < 3; i++) x[off + i] = 0;
    for (PetscInt k = 0; k < nv; k++) {
      PetscCall(PetscSectionGetOffset(cs, v[k], &coff));
      for (PetscInt i = 0; i < 3; i++) x[off + i] += ca[coff + i] / nv;
    }
  }
  PetscCall(SolidNodesGet(dm, &nodes));
  if (nodes) {
    const PetscInt nvc = nodes->nper == 10 ? 4 : 8, nho = nodes->nper - nvc;

    for (PetscInt c = cStart; c < cEnd && !bad; c++) {
      const PetscReal *Xn = &nodes->X[3 * nodes->nper * (c - cStart)];
      PetscInt         nv, v[8], map[8];

      PetscCall(SolidClosureVertices(dm, c, &nv, v));
      if (nv != nvc) {
        bad     = 1;
        badcell = c - cStart;
        break;
      }
      /* Gmsh's vertex node k is the cell's vertex with the same coordinates */
      for (PetscInt k = 0; k < nvc && !bad; k++) {
        map[k] = -1;
        for (PetscInt j = 0; j < nv; j++) {
          PetscInt coff;

          PetscCall(PetscSectionGetOffset(cs, v[j], &coff));
          if (ca[coff] == Xn[3 * k] && ca[coff + 1] == Xn[3 * k + 1] && ca[coff + 2] == Xn[3 * k + 2]) map[k] = v[j];
        }
        if (map[k] < 0) {
          bad     = 2;
          badcell = c - cStart;
        }
      }
      for (PetscInt k = 0; k < nho && !bad; k++) {
        const PetscInt *tv = nvc == 4 ? GmshTet10[k] : GmshHex27[k];
        PetscInt        pts[4], np = 0, nj, p, off;
        const PetscInt *join;
        PetscReal       d = 0, size = 0;

        while (np < 4 && tv[np] >= 0) {
          pts[np] = map[tv[np]];
          np++;
        }
        if (np) {
          PetscCall(DMPlexGetFullJoin(dm, np, pts, &nj, &join));
          p = nj == 1 ? join[0] : -1;
          PetscCall(DMPlexRestoreJoin(dm, np, pts, &nj, &join));
        } else p = c;
        if (p < 0) {
          bad     = 3;
          badcell = c - cStart;
          break;
        }
        PetscCall(PetscSectionGetOffset(sec, p, &off));
        /* near the centroid of the entity (in x[off], computed above): a quarter of its size */
        for (PetscInt j = 0; j < nv; j++) {
          PetscInt coff;

          PetscCall(PetscSectionGetOffset(cs, v[j], &coff));
          for (PetscInt i = 0; i < 3; i++) size = PetscMax(size, PetscAbsReal(PetscRealPart(ca[coff + i] - x[off + i])));
        }
        for (PetscInt i = 0; i < 3; i++) d = PetscMax(d, PetscAbsReal(Xn[3 * (nvc + k) + i] - PetscRealPart(x[off + i])));
        if (d > 0.25 * size) {
          bad     = 4;
          badcell = c - cStart;
          break;
        }
        for (PetscInt i = 0; i < 3; i++) x[off + i] = Xn[3 * (nvc + k) + i];
      }
    }
  }
  PetscCall(VecRestoreArrayRead(coords, &ca));
  PetscCall(VecRestoreArray(X, &x));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_MAX, comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &badcell, 1, MPIU_INT, MPI_MAX, comm));
  PetscCheck(!bad, comm, PETSC_ERR_ARG_WRONG, "%s: the higher-order nodes of cell %" PetscInt_FMT " do not fit its %s", what, badcell, bad == 1 ? "vertices (wrong count)" : bad == 2 ? "vertices (a vertex node is not a vertex of the cell)"
                                                                                                                                                                         : bad == 3   ? "edges and faces"
                                                                                                                                                                                      : "edges and faces (a node lies far from its edge or face: not in Gmsh's node order)");
  PetscFunctionReturn(0);
}

/*
  A checksum of the reference coordinates that does not depend on the partition: the sum, in
  exact integer arithmetic modulo 2^48, of a hash of the bits of every vertex's coordinates.
  Output and checkpoints record it, so that a file of another mesh is recognized.
*/
PetscErrorCode SolidMeshChecksum(Vec X, PetscReal *sum)
{
  const PetscScalar *x;
  PetscInt           n;
  uint64_t           loc = 0, tot = 0;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArrayRead(X, &x));
  for (PetscInt i = 0; i < n; i += 3) {
    const PetscReal X3[3] = {PetscRealPart(x[i]), PetscRealPart(x[i + 1]), PetscRealPart(x[i + 2])};

    loc += SolidPointHash(X3) & 0xFFFFFFFFFFFFULL;
  }
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCallMPI(MPI_Allreduce(&loc, &tot, 1, MPI_UINT64_T, MPI_SUM, PetscObjectComm((PetscObject)X)));
  *sum = (PetscReal)(tot & 0xFFFFFFFFFFFFULL);
  PetscFunctionReturn(0);
}

/*
  The element layout of solidimpl.h for the reference cell of type ct and order: each node's
  vertices (the reference cell's vertex numbers, -1 padded: nodes x 4) and its reference
  coordinates (nodev[a][0]: how many vertices, nodev[a][1..]: which); the Lagrange element fe and perm (node a is fe's basis function perm[a]), found by
  tabulating fe at the nodes (a Kronecker delta, checked)
*/
static PetscErrorCode SolidReferenceLayout(DMPolytopeType ct, PetscInt order, PetscInt *nen, PetscInt nodev[][9], PetscReal xi[][3], PetscFE *fe, PetscInt perm[])
{
  DM                 rdm;
  Vec                rc;
  const PetscScalar *ra;
  PetscInt          *cl = NULL, ncl, vStart, vEnd, nv = 0, vpt[8], n;
  PetscTabulation    T;
  const PetscBool    simplex = ct == DM_POLYTOPE_TETRAHEDRON ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(DMPlexCreateReferenceCell(PETSC_COMM_SELF, ct, &rdm));
  PetscCall(DMGetCoordinatesLocal(rdm, &rc));
  PetscCall(VecGetArrayRead(rc, &ra));
  PetscCall(DMPlexGetDepthStratum(rdm, 0, &vStart, &vEnd));
  PetscCall(DMPlexGetTransitiveClosure(rdm, 0, PETSC_TRUE, &ncl, &cl));
  for (PetscInt k = 0; k < ncl; k++)
    if (cl[2 * k] >= vStart && cl[2 * k] < vEnd) vpt[nv++] = cl[2 * k];
  n = 0;
  /* vertices, then (order 2) edges, faces (hexahedra), the cell (hexahedra) */
  for (PetscInt depth = 0; depth <= 3; depth++) {
    if (depth > 0 && order == 1) break;
    if (depth > 1 && simplex) break;
    for (PetscInt k = 0; k < ncl; k++) {
      PetscInt pd, nvp, vp[8];

      PetscCall(DMPlexGetPointDepth(rdm, cl[2 * k], &pd));
      if (pd != depth) continue;
      if (depth == 0) {
        nvp   = 1;
        vp[0] = cl[2 * k];
      } else PetscCall(SolidClosureVertices(rdm, cl[2 * k], &nvp, vp));
      nodev[n][0] = nvp;
      for (PetscInt i = 0; i < 3; i++) xi[n][i] = 0;
      for (PetscInt j = 0; j < nvp; j++) {
        PetscInt l = 0;

        while (vpt[l] != vp[j]) l++;
        nodev[n][1 + j] = l;
        for (PetscInt i = 0; i < 3; i++) xi[n][i] += PetscRealPart(ra[3 * (vp[j] - vStart) + i]) / nvp;
      }
      n++;
    }
  }
  PetscCall(DMPlexRestoreTransitiveClosure(rdm, 0, PETSC_TRUE, &ncl, &cl));
  PetscCall(VecRestoreArrayRead(rc, &ra));
  PetscCall(DMDestroy(&rdm));
  *nen = n;
  PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, 3, 1, simplex, order, PETSC_DETERMINE, fe));
  {
    PetscInt nb;

    PetscCall(PetscFEGetDimension(*fe, &nb));
    PetscCheck(nb == n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The Lagrange element has %" PetscInt_FMT " basis functions, the layout %" PetscInt_FMT " nodes", nb, n);
  }
  PetscCall(PetscFECreateTabulation(*fe, 1, n, &xi[0][0], 0, &T));
  for (PetscInt a = 0; a < n; a++) {
    perm[a] = -1;
    for (PetscInt b = 0; b < n; b++) {
      const PetscReal t = T->T[0][a * n + b];

      if (PetscAbsReal(t - 1) < 1e-10) perm[a] = b;
      else PetscCheck(PetscAbsReal(t) < 1e-10, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Basis function %" PetscInt_FMT " is %g at node %" PetscInt_FMT ": not a Lagrange basis of the nodes", b, (double)t, a);
    }
    PetscCheck(perm[a] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No basis function is 1 at node %" PetscInt_FMT, a);
  }
  PetscCall(PetscTabulationDestroy(&T));
  PetscFunctionReturn(0);
}

/*
  The nodes of cell c in the element layout: lo[a] (go[a]) the local (global) offset of node a;
  the vertices in closure order, then the edges, faces and cell by their vertex sets nodev
  (SolidReferenceLayout()). v[] gets the cell's vertices in closure order.
*/
static PetscErrorCode SolidCellNodes(DM dm, PetscInt c, PetscSection ls, PetscSection gs, PetscInt nen, PetscInt nodev[][9], PetscInt lo[], PetscInt go[])
{
  PetscInt *closure = NULL, ncl, nv = 0, v[8], vStart, vEnd;

  PetscFunctionBegin;
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMPlexGetTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &closure));
  for (PetscInt k = 0; k < ncl; k++)
    if (closure[2 * k] >= vStart && closure[2 * k] < vEnd && nv < 8) v[nv++] = closure[2 * k];
  for (PetscInt k = 0; k < nen; k++) lo[k] = -1;
  for (PetscInt k = 0; k < ncl; k++) {
    const PetscInt pt = closure[2 * k];
    PetscInt       dof, nvp, vp[8], which[8], a = -1, off;

    PetscCall(PetscSectionGetDof(ls, pt, &dof));
    if (dof <= 0) continue;
    if (pt >= vStart && pt < vEnd) {
      nvp   = 1;
      vp[0] = pt;
    } else PetscCall(SolidClosureVertices(dm, pt, &nvp, vp));
    for (PetscInt j = 0; j < nvp; j++) {
      PetscInt l = 0;

      while (l < nv && v[l] != vp[j]) l++;
      which[j] = l;
    }
    /* the node whose vertex set is the same (as sets: the closure may orient the point otherwise) */
    for (PetscInt b = 0; b < nen && a < 0; b++) {
      PetscInt match = 0;

      if (nodev[b][0] != nvp) continue;
      for (PetscInt j = 0; j < nvp; j++)
        for (PetscInt l = 0; l < nvp; l++)
          if (nodev[b][1 + j] == which[l]) match++;
      if (match == nvp) a = b;
    }
    PetscCheck(a >= 0 && lo[a] < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cell %" PetscInt_FMT ": point %" PetscInt_FMT " of its closure matches no node of the reference cell", c, pt);
    PetscCall(PetscSectionGetOffset(ls, pt, &lo[a]));
    if (go) {
      PetscCall(PetscSectionGetOffset(gs, pt, &off));
      go[a] = off >= 0 ? off : -(off + 1);
    }
  }
  PetscCall(DMPlexRestoreTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &closure));
  for (PetscInt a = 0; a < nen; a++) PetscCheck(lo[a] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cell %" PetscInt_FMT " has no node %" PetscInt_FMT, c, a);
  PetscFunctionReturn(0);
}

/*
  Whether any cell of the mesh is curved: a higher-order node away from the mean of its vertex set
  (an edge's midpoint, a quadrangle's or hexahedron's centre: where the linear or trilinear map of
  the vertices puts it) by more than 1e-10 of the cell's extent. Collective: every rank gets the
  same answer.
*/
static PetscErrorCode SolidMeshIsCurved(Solid *s, PetscInt nen, PetscInt nodev[][9], const PetscScalar X[], PetscBool *curved)
{
  DM           dm = s->dm;
  PetscSection ls;
  PetscInt     cStart, cEnd, lo[SOLID_MAX_NEN], local = 0, any;

  PetscFunctionBegin;
  PetscCall(DMGetLocalSection(dm, &ls));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  for (PetscInt c = cStart; c < cEnd && !local; c++) {
    PetscReal vx[8][3] = {{0}}, ext = 0;

    PetscCall(SolidCellNodes(dm, c, ls, NULL, nen, nodev, lo, NULL));
    for (PetscInt a = 0; a < nen; a++)
      if (nodev[a][0] == 1)
        for (PetscInt i = 0; i < 3; i++) vx[nodev[a][1]][i] = PetscRealPart(X[lo[a] + i]);
    for (PetscInt a = 0; a < nen; a++)
      if (nodev[a][0] == 1)
        for (PetscInt i = 0; i < 3; i++) ext = PetscMax(ext, PetscAbsReal(vx[nodev[a][1]][i] - vx[0][i]));
    for (PetscInt a = 0; a < nen && !local; a++) {
      if (nodev[a][0] == 1) continue;
      for (PetscInt i = 0; i < 3; i++) {
        PetscReal m = 0;

        for (PetscInt j = 0; j < nodev[a][0]; j++) m += vx[nodev[a][1 + j]][i] / nodev[a][0];
        if (PetscAbsReal(PetscRealPart(X[lo[a] + i]) - m) > 1e-10 * ext) local = 1;
      }
    }
  }
  PetscCall(MPIU_Allreduce(&local, &any, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)dm)));
  *curved = any ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*
  The element data of every local cell (the layout of solidimpl.h): its nodes' dof offsets, the
  reference gradients and weights at the quadrature points, the volume and centroid; a cell with
  det dX/dxi <= 0 at a quadrature point is refused (inverted or degenerate), named by its number.
  hmin: the smallest cube root of a cell's volume, over all ranks.
*/
PetscErrorCode SolidSetUpCells(Solid *s, const char what[], PetscReal *hmin)
{
  DM                 dm   = s->dm;
  MPI_Comm           comm = PetscObjectComm((PetscObject)dm);
  PetscSection       ls, gs;
  PetscInt           cStart, cEnd, nodev[SOLID_MAX_NEN][9], nen, nq, bad = 0, first = PETSC_MAX_INT;
  PetscReal          xi[SOLID_MAX_NEN][3], h = PETSC_MAX_REAL, vmax = 0;
  PetscQuadrature    quad;
  PetscTabulation    T;
  const PetscReal   *qw;
  const PetscScalar *X;
  const PetscBool    p1 = s->ct == DM_POLYTOPE_TETRAHEDRON && s->order == 1 ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMGetLocalSection(dm, &ls));
  PetscCall(DMGetGlobalSection(dm, &gs));
  PetscCall(PetscMalloc1(SOLID_MAX_NEN, &s->perm));
  PetscCall(SolidReferenceLayout(s->ct, s->order, &nen, nodev, xi, &s->fe, s->perm));
  s->nen = nen;
  /* the stiffness's quadrature: exact for the linear material's integrand on affine cells (and for
     a uniform F's nodal forces on trilinear hexahedra: Q2 with 3 points per direction, the rule of
     deal.II and DOLFINx, docs/solid.md); on the curved cells of a second-order mesh file (gmsh.c)
     exact for a uniform F's nodal forces cof(dX/dxi) grad N (P2: degree 3; Q2: 4 points per
     direction), so the patch test holds there too. A second-order file whose cells are all
     straight gets the rule of straight cells: its results are those of the first-order mesh. */
  {
    PetscBool found;
    PetscInt  forder;

    PetscCall(SolidMeshGetGmshCells(dm, &found, NULL, &forder, NULL, NULL, NULL));
    found = found && forder == 2 && s->order == 2 ? PETSC_TRUE : PETSC_FALSE;
    if (found) {
      PetscCall(VecGetArrayRead(s->Xref, &X));
      PetscCall(SolidMeshIsCurved(s, nen, nodev, X, &found));
      PetscCall(VecRestoreArrayRead(s->Xref, &X));
    }
    s->curved = found;
    if (s->ct == DM_POLYTOPE_TETRAHEDRON) PetscCall(PetscDTSimplexQuadrature(3, found ? 3 : PetscMax(1, 2 * (s->order - 1)), PETSCDTSIMPLEXQUAD_DEFAULT, &quad));
    else PetscCall(PetscDTGaussTensorQuadrature(3, 1, s->order + (found ? 2 : 1), -1.0, 1.0, &quad));
  }
  {
    const PetscReal *qp;

    PetscCall(PetscQuadratureGetData(quad, NULL, NULL, &nq, &qp, &qw));
    PetscCall(PetscFECreateTabulation(s->fe, 1, nq, qp, 1, &T));
  }
  s->nq = p1 ? 1 : nq;
  PetscCall(PetscInfo(dm, "%s of order %" PetscInt_FMT ": %" PetscInt_FMT " nodes, %" PetscInt_FMT " quadrature points per cell\n", s->ct == DM_POLYTOPE_TETRAHEDRON ? "tetrahedra" : "hexahedra", s->order, nen, s->nq));
  s->ncells = cEnd - cStart;
  PetscCall(PetscMalloc6(nen * s->ncells, &s->loff, nen * s->ncells, &s->goff, (size_t)3 * nen * s->nq * s->ncells, &s->grad, (size_t)s->nq * s->ncells, &s->wdet, s->ncells, &s->vol, 3 * s->ncells, &s->ctr));
  PetscCall(VecGetArrayRead(s->Xref, &X));
  for (PetscInt c = cStart; c < cEnd; c++) {
    const PetscInt cl = c - cStart;
    PetscInt      *lo = &s->loff[nen * cl], *go = &s->goff[nen * cl], nv = 0;
    PetscReal      Xa[SOLID_MAX_NEN][3], vol = 0;
    PetscBool      inverted = PETSC_FALSE;

    PetscCall(SolidCellNodes(dm, c, ls, gs, nen, nodev, lo, go));
    for (PetscInt a = 0; a < nen; a++) {
      if (nodev[a][0] == 1) nv++;
      for (PetscInt i = 0; i < 3; i++) Xa[a][i] = PetscRealPart(X[lo[a] + i]);
    }
    for (PetscInt i = 0; i < 3; i++) {
      s->ctr[3 * cl + i] = 0;
      for (PetscInt a = 0; a < nv; a++) s->ctr[3 * cl + i] += Xa[a][i] / nv;
    }
    if (p1) {
      /* P1 tetrahedra as before the layout, bit for bit: g_1..g_3 the rows of Dm^-1 */
      PetscReal Dm[9], G[9], det, *g = &s->grad[12 * cl];

      for (PetscInt i = 0; i < 3; i++)
        for (PetscInt a = 0; a < 3; a++) Dm[3 * i + a] = Xa[a + 1][i] - Xa[0][i];
      det = SolidDet3(Dm);
      SolidInv3(Dm, det, G);
      for (PetscInt j = 0; j < 3; j++) {
        g[3 + j] = G[j];
        g[6 + j] = G[3 + j];
        g[9 + j] = G[6 + j];
        g[j]     = -(G[j] + G[3 + j] + G[6 + j]);
      }
      vol         = PetscAbsReal(det) / 6;
      s->wdet[cl] = vol;
    } else {
      for (PetscInt k = 0; k < nq; k++) {
        const PetscReal *D     = &T->T[1][k * nen * 3];
        PetscReal        Jm[9] = {0}, Ji[9], det, *g = &s->grad[((size_t)cl * nq + k) * 3 * nen];

        /* dX/dxi = sum_a X_a (dN_a/dxi)^T (isoparametric) */
        for (PetscInt a = 0; a < nen; a++)
          for (PetscInt i = 0; i < 3; i++)
            for (PetscInt j = 0; j < 3; j++) Jm[3 * i + j] += Xa[a][i] * D[3 * s->perm[a] + j];
        det = SolidDet3(Jm);
        if (!(det > 0)) {
          inverted = PETSC_TRUE;
          det      = 1;
        }
        SolidInv3(Jm, det, Ji);
        /* dN_a/dX = (dN_a/dxi)^T (dX/dxi)^-1 */
        for (PetscInt a = 0; a < nen; a++)
          for (PetscInt j = 0; j < 3; j++) g[3 * a + j] = D[3 * s->perm[a]] * Ji[j] + D[3 * s->perm[a] + 1] * Ji[3 + j] + D[3 * s->perm[a] + 2] * Ji[6 + j];
        s->wdet[(size_t)cl * nq + k] = qw[k] * det;
        vol += qw[k] * det;
      }
    }
    if (inverted) {
      bad++;
      first = PetscMin(first, s->cellid[cl]);
    }
    s->vol[cl] = vol;
    vmax       = PetscMax(vmax, vol);
    h          = PetscMin(h, PetscCbrtReal(vol));
  }
  PetscCall(VecRestoreArrayRead(s->Xref, &X));
  PetscCall(PetscTabulationDestroy(&T));
  PetscCall(PetscQuadratureDestroy(&quad));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_SUM, comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &first, 1, MPIU_INT, MPI_MIN, comm));
  PetscCheck(!bad, comm, PETSC_ERR_ARG_WRONG, "%s: %" PetscInt_FMT " cells are inverted or degenerate (det dX/dxi <= 0 at a quadrature point), the first cell %" PetscInt_FMT " of the file", what, bad, first);
  PetscCall(MPIU_Allreduce(&h, hmin, 1, MPIU_REAL, MPIU_MIN, comm));
  /* hexahedra: the matrix-free operator by sum factorization, on the same points (sumfact.c) */
  if (s->ct == DM_POLYTOPE_HEXAHEDRON) PetscCall(SolidTensorSetUp(s, s->order + (s->curved ? 2 : 1), (const PetscReal(*)[3])xi));
  PetscFunctionReturn(0);
}

/*
  Marks (mark[i] = 1, i an owned node in the order of the global vector) the nodes (vertices, and
  edges, faces, cells holding dofs) of the closures of the points of label NAME with value VALUE;
  returns how many, over all ranks.
*/
PetscErrorCode SolidMarkLabel(Solid *s, const char name[], PetscInt value, PetscInt mark[], PetscInt *count)
{
  DM              dm   = s->dm;
  MPI_Comm        comm = PetscObjectComm((PetscObject)dm);
  PetscSection    gs;
  DMLabel         label;
  IS              is;
  const PetscInt *pts;
  PetscInt        npts = 0, rstart, n = 0;

  PetscFunctionBegin;
  PetscCall(DMGetLabel(dm, name, &label));
  PetscCheck(label, comm, PETSC_ERR_ARG_WRONG, "-solid_fix_label %s: the mesh has no such label", name);
  PetscCall(DMGetGlobalSection(dm, &gs));
  PetscCall(VecGetOwnershipRange(s->work, &rstart, NULL));
  PetscCall(DMLabelGetStratumIS(label, value, &is));
  if (is) {
    PetscCall(ISGetLocalSize(is, &npts));
    PetscCall(ISGetIndices(is, &pts));
  }
  for (PetscInt k = 0; k < npts; k++) {
    PetscInt *closure = NULL, nc;

    PetscCall(DMPlexGetTransitiveClosure(dm, pts[k], PETSC_TRUE, &nc, &closure));
    for (PetscInt j = 0; j < nc; j++) {
      const PetscInt pt = closure[2 * j];
      PetscInt       off, dof;

      PetscCall(PetscSectionGetDof(gs, pt, &dof));
      PetscCall(PetscSectionGetOffset(gs, pt, &off));
      if (dof <= 0 || off < 0) continue;
      if (!mark[(off - rstart) / 3]) n++;
      mark[(off - rstart) / 3] = 1;
    }
    PetscCall(DMPlexRestoreTransitiveClosure(dm, pts[k], PETSC_TRUE, &nc, &closure));
  }
  if (is) {
    PetscCall(ISRestoreIndices(is, &pts));
    PetscCall(ISDestroy(&is));
  }
  PetscCall(MPIU_Allreduce(&n, count, 1, MPIU_INT, MPI_SUM, comm));
  PetscFunctionReturn(0);
}

/* The local section of the solid's unknowns: 3 dofs per node (solidimpl.h) */
static PetscErrorCode SolidSetSection(DM dm, PetscInt order)
{
  PetscSection sec;
  PetscInt     pStart, pEnd;

  PetscFunctionBegin;
  PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
  PetscCall(PetscSectionCreate(PetscObjectComm((PetscObject)dm), &sec));
  PetscCall(PetscSectionSetChart(sec, pStart, pEnd));
  for (PetscInt p = pStart; p < pEnd; p++) {
    PetscInt d;

    PetscCall(DMPlexGetPointDepth(dm, p, &d));
    /* order 2: every edge; hexahedra (Q2) also faces and cells; tetrahedra have no face or cell nodes */
    if (d == 0 || (order == 2 && d == 1)) PetscCall(PetscSectionSetDof(sec, p, 3));
    else if (order == 2 && d >= 2) {
      DMPolytopeType t;

      PetscCall(DMPlexGetCellType(dm, p, &t));
      if (t == DM_POLYTOPE_QUADRILATERAL || t == DM_POLYTOPE_HEXAHEDRON) PetscCall(PetscSectionSetDof(sec, p, 3));
    }
  }
  PetscCall(PetscSectionSetUp(sec));
  PetscCall(DMSetLocalSection(dm, sec));
  PetscCall(PetscSectionDestroy(&sec));
  PetscFunctionReturn(0);
}

/*
  Distributes the mesh (3 dofs per node; the section exists before the distribution so that the
  natural (file) order can be recovered); the cells' and vertices' numbers (cellid, vertid: their
  places in the file or the beam) travel with them, and so do the reference positions of all
  nodes (SolidReferenceField(): a field of the serial mesh, DMPlexDistributeField()), returned in
  Xref, a local vector of the distributed DM. what names the mesh in messages.
*/
PetscErrorCode SolidDistribute(DM *pdm, PetscInt order, PetscInt **pcellid, PetscInt **pvertid, Vec *Xref, const char what[])
{
  DM           dm = *pdm, dmdist = NULL;
  MPI_Comm     comm   = PetscObjectComm((PetscObject)dm);
  PetscInt    *cellid = *pcellid, *vertid = *pvertid, pStart, pEnd, vStart, vEnd;
  PetscSF      sfmig = NULL;
  PetscSection sec0;
  Vec          X0;

  PetscFunctionBegin;
  PetscCall(PetscObjectSetName((PetscObject)dm, "solid"));
  PetscCall(DMSetUseNatural(dm, PETSC_TRUE));
  PetscCall(SolidSetSection(dm, order));
  /* the reference positions on the serial mesh */
  PetscCall(DMGetLocalSection(dm, &sec0));
  PetscCall(PetscObjectReference((PetscObject)sec0));
  PetscCall(DMCreateLocalVector(dm, &X0));
  {
    PetscErrorCode ierr = SolidReferenceField(dm, sec0, what, X0);

    if (ierr) {
      PetscCall(VecDestroy(&X0));
      PetscCall(PetscSectionDestroy(&sec0));
      PetscFunctionReturn(ierr);
    }
  }
  {
    PetscPartitioner part;

    /* the default partitioner of Debian's PETSc, PTScotch, partitions differently from run to
       run; the simple one (consecutive cells) is reproducible, so a checkpoint of a run can be
       restarted on the same ranks. -petscpartitioner_type chooses another. */
    PetscCall(DMPlexGetPartitioner(dm, &part));
    PetscCall(PetscPartitionerSetType(part, PETSCPARTITIONERSIMPLE));
    PetscCall(PetscPartitionerSetFromOptions(part));
  }
  PetscCall(DMPlexDistribute(dm, 0, &sfmig, &dmdist));
  if (dmdist) {
    PetscSection osec, nsec, xsec;
    PetscInt    *odata, *ndata = NULL, cStart, cEnd, off;
    Vec          Xd;

    /* the cells' and vertices' numbers travel with them: a field of one integer per cell and
       per vertex (vertices: their order in the mesh file or beam, the serial mesh's order) */
    PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
    PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
    PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
    PetscCall(PetscSectionCreate(comm, &osec));
    PetscCall(PetscSectionSetChart(osec, pStart, pEnd));
    for (PetscInt c = cStart; c < cEnd; c++) PetscCall(PetscSectionSetDof(osec, c, 1));
    for (PetscInt p = vStart; p < vEnd; p++) PetscCall(PetscSectionSetDof(osec, p, 1));
    PetscCall(PetscSectionSetUp(osec));
    PetscCall(PetscMalloc1(cEnd - cStart + vEnd - vStart, &odata));
    for (PetscInt c = cStart; c < cEnd; c++) {
      PetscCall(PetscSectionGetOffset(osec, c, &off));
      odata[off] = cellid[c - cStart];
    }
    for (PetscInt p = vStart; p < vEnd; p++) {
      PetscCall(PetscSectionGetOffset(osec, p, &off));
      odata[off] = vertid[p - vStart];
    }
    PetscCall(PetscSectionCreate(comm, &nsec));
    PetscCall(DMPlexDistributeData(dm, sfmig, osec, MPIU_INT, odata, nsec, (void **)&ndata));
    PetscCall(PetscFree(cellid));
    PetscCall(PetscFree(vertid));
    PetscCall(DMPlexGetHeightStratum(dmdist, 0, &cStart, &cEnd));
    PetscCall(DMPlexGetDepthStratum(dmdist, 0, &vStart, &vEnd));
    PetscCall(PetscMalloc1(cEnd - cStart, &cellid));
    PetscCall(PetscMalloc1(vEnd - vStart + 1, &vertid));
    for (PetscInt c = cStart; c < cEnd; c++) {
      PetscCall(PetscSectionGetOffset(nsec, c, &off));
      cellid[c - cStart] = ndata[off];
    }
    for (PetscInt p = vStart; p < vEnd; p++) {
      PetscCall(PetscSectionGetOffset(nsec, p, &off));
      vertid[p - vStart] = ndata[off];
    }
    PetscCall(PetscFree(ndata));
    PetscCall(PetscFree(odata));
    PetscCall(PetscSectionDestroy(&osec));
    PetscCall(PetscSectionDestroy(&nsec));
    /* the reference positions */
    PetscCall(PetscSectionCreate(comm, &xsec));
    PetscCall(VecCreate(PETSC_COMM_SELF, &Xd));
    PetscCall(DMPlexDistributeField(dm, sfmig, sec0, X0, xsec, Xd));
    PetscCall(VecDestroy(&X0));
    PetscCall(PetscSectionDestroy(&sec0));
    sec0 = xsec;
    X0   = Xd;
    PetscCall(PetscSFDestroy(&sfmig));
    PetscCall(SolidMeshCopyPhysicalGroups(dm, dmdist));
    PetscCall(DMDestroy(&dm));
    dm = dmdist;
  }
  PetscCall(PetscSFDestroy(&sfmig));
  {
    PetscSection       ls;
    PetscScalar       *xa;
    const PetscScalar *x0;

    PetscCall(DMGetLocalSection(dm, &ls));
    if (!ls) PetscCall(SolidSetSection(dm, order));
    PetscCall(DMGetLocalSection(dm, &ls));
    /* the field in the DM's local layout, point by point */
    PetscCall(DMCreateLocalVector(dm, Xref));
    PetscCall(VecGetArray(*Xref, &xa));
    PetscCall(VecGetArrayRead(X0, &x0));
    PetscCall(PetscSectionGetChart(ls, &pStart, &pEnd));
    for (PetscInt p = pStart; p < pEnd; p++) {
      PetscInt dof, off, off0, dof0;

      PetscCall(PetscSectionGetDof(ls, p, &dof));
      if (dof <= 0) continue;
      PetscCall(PetscSectionGetDof(sec0, p, &dof0));
      PetscCheck(dof0 == dof, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Point %" PetscInt_FMT ": %" PetscInt_FMT " reference dofs, %" PetscInt_FMT " in the section", p, dof0, dof);
      PetscCall(PetscSectionGetOffset(ls, p, &off));
      PetscCall(PetscSectionGetOffset(sec0, p, &off0));
      for (PetscInt i = 0; i < dof; i++) xa[off + i] = x0[off0 + i];
    }
    PetscCall(VecRestoreArrayRead(X0, &x0));
    PetscCall(VecRestoreArray(*Xref, &xa));
    PetscCall(VecDestroy(&X0));
    PetscCall(PetscSectionDestroy(&sec0));
  }
  PetscCall(DMSetMatType(dm, MATAIJ));
  *pdm     = dm;
  *pcellid = cellid;
  *pvertid = vertid;
  PetscFunctionReturn(0);
}
