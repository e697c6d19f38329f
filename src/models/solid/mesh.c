/*
  The solid's mesh: the built-in beam or a file (Gmsh through gmsh.c, DMPlex HDF5 through PETSc),
  its checks, its distribution with the rank-independent numbers of cells and vertices (their
  places in the file or the beam), which the output and the checkpoints use, and the element
  geometry of every local cell.
*/
#include "solidimpl.h"

/*
  The built-in beam [0, Lx] x [0, Ly] x [0, Lz]: nx x ny x nz boxes, each split into the 6
  tetrahedra around its diagonal from (0, 0, 0) to (1, 1, 1) (Kuhn's triangulation, conforming
  because every box is split alike). Built on rank 0 and distributed by the caller: Debian's PETSc
  has no tetrahedral mesh generator, which DMPlexCreateBoxMesh() would need for simplices.
*/
static PetscErrorCode SolidCreateBeam(MPI_Comm comm, const PetscInt n[3], const PetscReal L[3], DM *dm)
{
  const PetscInt perm[6][3] = {
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
    nc = 6 * n[0] * n[1] * n[2];
    PetscCall(PetscMalloc2(3 * nv, &X, 4 * nc, &cells));
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
        for (PetscInt k = 0; k < n[2]; k++)
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
  /* not interpolated: the model needs cells and vertices only (no face labels on the beam), and
     interpolation took 10 s of the set-up at 1.6 million cells */
  PetscCall(DMPlexCreateFromCellListPetsc(comm, 3, nc, nv, 4, PETSC_FALSE, cells, 3, X, dm));
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
PetscErrorCode SolidCreateMesh(MPI_Comm comm, const char file[], const PetscInt cells[3], const PetscReal size[3], DM *dm, PetscInt **cellid, PetscInt **vertid)
{
  PetscInt cStart, cEnd, vStart, vEnd;

  PetscFunctionBegin;
  if (file[0]) {
    PetscBool   exists = PETSC_FALSE;
    PetscMPIInt rank;

    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    if (rank == 0) PetscCall(PetscTestFile(file, 'r', &exists));
    PetscCallMPI(MPI_Bcast(&exists, 1, MPIU_BOOL, 0, comm));
    PetscCheck(exists, comm, PETSC_ERR_FILE_OPEN, "-solid_mesh %s: the file does not exist or cannot be read", file);
    {
      const char *ext[] = {".msh", ".msh2", ".msh4", ".h5", ".hdf5"};
      PetscBool   known = PETSC_FALSE;
      size_t      len, el;

      PetscCall(PetscStrlen(file, &len));
      for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]) && !known; i++) {
        PetscCall(PetscStrlen(ext[i], &el));
        if (len > el) PetscCall(PetscStrcasecmp(file + len - el, ext[i], &known));
      }
      PetscCheck(known, comm, PETSC_ERR_ARG_WRONG, "-solid_mesh %s: not a mesh file tsmech reads (Gmsh .msh, format 2 or 4, or PETSc's DMPlex HDF5 .h5)", file);
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
      PetscCheck(kind, comm, PETSC_ERR_ARG_WRONG, "-solid_mesh %s: neither a Gmsh mesh (no $MeshFormat header) nor an HDF5 file", file);
      PetscCall(PetscSNPrintf(what, sizeof(what), "-solid_mesh %s", file));
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
      PetscCall(DMDestroy(dm));
      *dm = pdm;
    }
  } else {
    PetscCall(SolidCreateBeam(comm, cells, size, dm));
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
  Refuses a mesh that is not 3-D, has cells other than tetrahedra, or inverted or degenerate cells,
  naming the first offending cell by its rank-independent number cellid (its place among the
  file's cells; a Gmsh file's reader has refused such cells already, naming their element tags)
*/
PetscErrorCode SolidCheckMesh(DM dm, const char what[], const PetscInt cellid[])
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)dm);
  PetscInt  dim, cdim, cStart, cEnd, bad[3] = {0, 0, 0}, first[3] = {PETSC_MAX_INT, PETSC_MAX_INT, PETSC_MAX_INT}, n, N;
  PetscReal v0[3], J[9], invJ[9], detJ, vmax = 0;

  PetscFunctionBegin;
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCheck(dim == 3 && cdim == 3, comm, PETSC_ERR_ARG_WRONG, "%s: the mesh is %" PetscInt_FMT "-D (coordinates in %" PetscInt_FMT "-D); the solid model needs a 3-D tetrahedral mesh", what, dim, cdim);
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  n = cEnd - cStart;
  PetscCall(MPIU_Allreduce(&n, &N, 1, MPIU_INT, MPI_SUM, comm));
  PetscCheck(N > 0, comm, PETSC_ERR_ARG_WRONG, "%s: the mesh has no cells", what);
  for (PetscInt c = cStart; c < cEnd; c++) {
    DMPolytopeType ct;

    PetscCall(DMPlexGetCellType(dm, c, &ct));
    if (ct != DM_POLYTOPE_TETRAHEDRON) {
      bad[0]++;
      first[0] = PetscMin(first[0], cellid[c - cStart]);
      continue;
    }
    PetscCall(DMPlexComputeCellGeometryAffineFEM(dm, c, v0, J, invJ, &detJ));
    vmax = PetscMax(vmax, PetscAbsReal(detJ));
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &vmax, 1, MPIU_REAL, MPIU_MAX, comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad[0], 1, MPIU_INT, MPI_SUM, comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &first[0], 1, MPIU_INT, MPI_MIN, comm));
  PetscCheck(!bad[0], comm, PETSC_ERR_ARG_WRONG, "%s: %" PetscInt_FMT " of the %" PetscInt_FMT " cells are not tetrahedra (the first: cell %" PetscInt_FMT " of the file); the solid model needs a tetrahedral mesh", what, bad[0], N, first[0]);
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

/* The element data: vertex offsets, Dm^-1, V0 and centroid of every local cell */
PetscErrorCode SolidSetUpCells(Solid *s, PetscReal *hmin)
{
  DM           dm = s->dm, cdm;
  PetscSection ls, gs, cs;
  Vec          coords;
  PetscInt     cStart, cEnd, vStart, vEnd;
  PetscReal    h = PETSC_MAX_REAL;

  PetscFunctionBegin;
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMGetLocalSection(dm, &ls));
  PetscCall(DMGetGlobalSection(dm, &gs));
  PetscCall(DMGetCoordinateDM(dm, &cdm));
  PetscCall(DMGetLocalSection(cdm, &cs));
  PetscCall(DMGetCoordinatesLocal(dm, &coords));
  s->ncells = cEnd - cStart;
  PetscCall(PetscMalloc5(4 * s->ncells, &s->loff, 4 * s->ncells, &s->goff, 9 * s->ncells, &s->Dinv, s->ncells, &s->vol, 3 * s->ncells, &s->ctr));
  for (PetscInt c = cStart; c < cEnd; c++) {
    const PetscInt cl      = c - cStart;
    PetscInt      *closure = NULL, nc, nv = 0;
    PetscReal      X[4][3], Dm[9], det;
    PetscScalar   *xa;

    PetscCall(DMPlexGetTransitiveClosure(dm, c, PETSC_TRUE, &nc, &closure));
    PetscCall(VecGetArray(coords, &xa));
    for (PetscInt k = 0; k < nc; k++) {
      const PetscInt pt = closure[2 * k];
      PetscInt       off;

      if (pt < vStart || pt >= vEnd) continue;
      PetscCheck(nv < 4, PetscObjectComm((PetscObject)dm), PETSC_ERR_PLIB, "Cell %" PetscInt_FMT " has more than 4 vertices", c);
      PetscCall(PetscSectionGetOffset(ls, pt, &s->loff[4 * cl + nv]));
      PetscCall(PetscSectionGetOffset(gs, pt, &off));
      s->goff[4 * cl + nv] = off >= 0 ? off : -(off + 1);
      PetscCall(PetscSectionGetOffset(cs, pt, &off));
      for (PetscInt i = 0; i < 3; i++) X[nv][i] = PetscRealPart(xa[off + i]);
      nv++;
    }
    PetscCall(VecRestoreArray(coords, &xa));
    PetscCall(DMPlexRestoreTransitiveClosure(dm, c, PETSC_TRUE, &nc, &closure));
    PetscCheck(nv == 4, PetscObjectComm((PetscObject)dm), PETSC_ERR_PLIB, "Cell %" PetscInt_FMT " has %" PetscInt_FMT " vertices", c, nv);
    for (PetscInt i = 0; i < 3; i++) {
      for (PetscInt a = 0; a < 3; a++) Dm[3 * i + a] = X[a + 1][i] - X[0][i];
      s->ctr[3 * cl + i] = 0.25 * (X[0][i] + X[1][i] + X[2][i] + X[3][i]);
    }
    det = SolidDet3(Dm);
    SolidInv3(Dm, det, &s->Dinv[9 * cl]);
    s->vol[cl] = PetscAbsReal(det) / 6;
    h          = PetscMin(h, PetscCbrtReal(PetscAbsReal(det)));
  }
  PetscCall(MPIU_Allreduce(&h, hmin, 1, MPIU_REAL, MPIU_MIN, PetscObjectComm((PetscObject)dm)));
  PetscFunctionReturn(0);
}

/*
  Marks (mark[i] = 1, i an owned vertex in the order of the global vector) the vertices of the
  closures of the points of label NAME with value VALUE; returns how many, over all ranks.
*/
PetscErrorCode SolidMarkLabel(Solid *s, const char name[], PetscInt value, PetscInt mark[], PetscInt *count)
{
  DM              dm   = s->dm;
  MPI_Comm        comm = PetscObjectComm((PetscObject)dm);
  PetscSection    gs;
  DMLabel         label;
  IS              is;
  const PetscInt *pts;
  PetscInt        npts = 0, vStart, vEnd, rstart, n = 0;

  PetscFunctionBegin;
  PetscCall(DMGetLabel(dm, name, &label));
  PetscCheck(label, comm, PETSC_ERR_ARG_WRONG, "-solid_fix_label %s: the mesh has no such label", name);
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
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

      if (pt < vStart || pt >= vEnd) continue;
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
    uint64_t h = 1469598103934665603ULL; /* FNV-1a over the 24 bytes of the vertex */

    for (int c = 0; c < 3; c++) {
      double        d = (double)PetscRealPart(x[i + c]);
      unsigned char b[sizeof(double)];

      if (d == 0) d = 0; /* -0 and +0 alike */
      memcpy(b, &d, sizeof(d));
      for (size_t k = 0; k < sizeof(d); k++) h = (h ^ b[k]) * 1099511628211ULL;
    }
    loc += h & 0xFFFFFFFFFFFFULL;
  }
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCallMPI(MPI_Allreduce(&loc, &tot, 1, MPI_UINT64_T, MPI_SUM, PetscObjectComm((PetscObject)X)));
  *sum = (PetscReal)(tot & 0xFFFFFFFFFFFFULL);
  PetscFunctionReturn(0);
}

/* The rank-independent I/O order of the state and the mesh (MechSystemSetIOOrdering(),
   MechSystemSetIOMesh()) from the vertices' numbers vertid (per local vertex) and the cells'
   numbers s->cellid; X: the reference coordinates */
PetscErrorCode SolidSetIOOrdering(Solid *s, MechSystem sys, const PetscInt vertid[], Vec X)
{
  PetscSection gs;
  PetscInt     vStart, vEnd, cStart, cEnd, rstart, n, *idx, *cells;
  IS           order;

  PetscFunctionBegin;
  PetscCall(DMGetGlobalSection(s->dm, &gs));
  PetscCall(DMPlexGetDepthStratum(s->dm, 0, &vStart, &vEnd));
  PetscCall(DMPlexGetHeightStratum(s->dm, 0, &cStart, &cEnd));
  PetscCall(VecGetOwnershipRange(X, &rstart, NULL));
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(PetscMalloc1(n + 1, &idx));
  for (PetscInt p = vStart; p < vEnd; p++) {
    PetscInt dof, off;

    PetscCall(PetscSectionGetDof(gs, p, &dof));
    PetscCall(PetscSectionGetOffset(gs, p, &off));
    if (dof <= 0) continue; /* not owned */
    for (PetscInt i = 0; i < 3; i++) idx[off - rstart + i] = 3 * vertid[p - vStart] + i;
  }
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, idx, PETSC_OWN_POINTER, &order));
  PetscCall(MechSystemSetIOOrdering(sys, order));
  PetscCall(ISDestroy(&order));
  PetscCall(PetscMalloc1(5 * (cEnd - cStart) + 1, &cells));
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt *cl = NULL, ncl, k = 0;

    cells[5 * (c - cStart)] = s->cellid[c - cStart];
    PetscCall(DMPlexGetTransitiveClosure(s->dm, c, PETSC_TRUE, &ncl, &cl));
    for (PetscInt j = 0; j < ncl; j++) {
      const PetscInt pt = cl[2 * j];

      if (pt >= vStart && pt < vEnd && k < 4) cells[5 * (c - cStart) + 1 + k++] = vertid[pt - vStart];
    }
    PetscCall(DMPlexRestoreTransitiveClosure(s->dm, c, PETSC_TRUE, &ncl, &cl));
  }
  PetscCall(MechSystemSetIOMesh(sys, X, cEnd - cStart, cells));
  PetscCall(PetscFree(cells));
  PetscFunctionReturn(0);
}

/* The local section of the solid's unknowns: 3 dofs per vertex */
static PetscErrorCode SolidSetVertexSection(DM dm)
{
  PetscSection sec;
  PetscInt     pStart, pEnd, vStart, vEnd;

  PetscFunctionBegin;
  PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(PetscSectionCreate(PetscObjectComm((PetscObject)dm), &sec));
  PetscCall(PetscSectionSetChart(sec, pStart, pEnd));
  for (PetscInt p = vStart; p < vEnd; p++) PetscCall(PetscSectionSetDof(sec, p, 3));
  PetscCall(PetscSectionSetUp(sec));
  PetscCall(DMSetLocalSection(dm, sec));
  PetscCall(PetscSectionDestroy(&sec));
  PetscFunctionReturn(0);
}

/*
  Distributes the mesh (3 dofs per vertex; the section exists before the distribution so that the
  natural (file) order of the vertices can be recovered); the cells' and vertices' numbers
  (cellid, vertid: their places in the file or the beam) travel with them
*/
PetscErrorCode SolidDistribute(DM *pdm, PetscInt **pcellid, PetscInt **pvertid)
{
  DM        dm = *pdm, dmdist = NULL;
  MPI_Comm  comm   = PetscObjectComm((PetscObject)dm);
  PetscInt *cellid = *pcellid, *vertid = *pvertid, pStart, pEnd, vStart, vEnd;
  PetscSF   sfmig = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectSetName((PetscObject)dm, "solid"));
  PetscCall(DMSetUseNatural(dm, PETSC_TRUE));
  PetscCall(SolidSetVertexSection(dm));
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
    PetscSection osec, nsec;
    PetscInt    *odata, *ndata = NULL, cStart, cEnd, off;

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
    PetscCall(PetscSFDestroy(&sfmig));
    PetscCall(SolidMeshCopyPhysicalGroups(dm, dmdist));
    PetscCall(DMDestroy(&dm));
    dm = dmdist;
  }
  PetscCall(PetscSFDestroy(&sfmig));
  {
    PetscSection ls;

    PetscCall(DMGetLocalSection(dm, &ls));
    if (!ls) PetscCall(SolidSetVertexSection(dm));
  }
  PetscCall(DMSetMatType(dm, MATAIJ));
  *pdm     = dm;
  *pcellid = cellid;
  *pvertid = vertid;
  PetscFunctionReturn(0);
}
