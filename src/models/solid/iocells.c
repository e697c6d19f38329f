/*
  The cells of the solid's output for quadratic tetrahedra and for hexahedra (MechSystemSetIOMeshCells()):
  per cell its rank-independent number and its nodes' numbers in the rank-independent I/O order
  (mesh.c, SolidSetIOOrdering()), in the node order of the XDMF topology, which is VTK's
  (docs/solid.md, "Output of quadratic fields"):

    Tetrahedron_10  corners 0..3 (right-handed: (x1 - x0) x (x2 - x0) . (x3 - x0) > 0), then the
                    edges (0,1) (1,2) (2,0) (0,3) (1,3) (2,3)
    Hexahedron      corners 0..3 around the bottom, 4..7 above them (right-handed: 0->1, 0->3, 0->4)
    Hexahedron_27   then the edges (0,1) (1,2) (3,2) (0,3) (4,5) (5,6) (7,6) (4,7) (0,4) (1,5)
                    (2,6) (3,7), the faces (0,4,7,3) (1,2,6,5) (0,1,5,4) (3,7,6,2) (0,3,2,1)
                    (4,5,6,7), the centre

  The corners come from the cell's topology and the reference positions (the orientation), the
  other nodes are the edge, face and cell points found by their corners; a node's I/O number is
  read from a vector holding, at every dof, the I/O number of its node (the I/O order's scatter
  run in reverse). P1 tetrahedra keep the writer of mesh.c.
*/
#include "solidimpl.h"

static const PetscInt SolidVTKTetEdges[6][2] = {
    {0, 1},
    {1, 2},
    {2, 0},
    {0, 3},
    {1, 3},
    {2, 3}
};
static const PetscInt SolidVTKHexEdges[12][2] = {
    {0, 1},
    {1, 2},
    {3, 2},
    {0, 3},
    {4, 5},
    {5, 6},
    {7, 6},
    {4, 7},
    {0, 4},
    {1, 5},
    {2, 6},
    {3, 7}
};
static const PetscInt SolidVTKHexFaces[6][4] = {
    {0, 4, 7, 3},
    {1, 2, 6, 5},
    {0, 1, 5, 4},
    {3, 7, 6, 2},
    {0, 3, 2, 1},
    {4, 5, 6, 7}
};

/* The point of cell c's closure (cl, n points) of depth d whose vertices are exactly v[0..nv) */
static PetscErrorCode SolidFindPoint(DM dm, const PetscInt cl[], PetscInt n, PetscInt d, PetscInt nv, const PetscInt v[], PetscInt *pt)
{
  PetscInt vStart, vEnd;

  PetscFunctionBegin;
  *pt = -1;
  /* from the supports, without closures: an edge is the join of its two vertices (their common
     support), a face the join of two of its edges (the pairs of its vertices that have one) */
  {
    const PetscInt *join;
    PetscInt        nj, e[2], ne = 0, pair[2];

    for (PetscInt i = 0; i < nv && ne < 2; i++)
      for (PetscInt j = i + 1; j < nv && ne < 2; j++) {
        pair[0] = v[i];
        pair[1] = v[j];
        PetscCall(DMPlexGetJoin(dm, 2, pair, &nj, &join));
        if (nj == 1) e[ne++] = join[0];
        PetscCall(DMPlexRestoreJoin(dm, 2, pair, &nj, &join));
      }
    if (d == 1 && nv == 2 && ne == 1) *pt = e[0];
    else if (d == 2 && ne == 2) {
      PetscCall(DMPlexGetJoin(dm, 2, e, &nj, &join));
      if (nj == 1) *pt = join[0];
      PetscCall(DMPlexRestoreJoin(dm, 2, e, &nj, &join));
    }
    if (*pt >= 0) PetscFunctionReturn(0);
  }
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  for (PetscInt k = 0; k < n && *pt < 0; k++) {
    PetscInt *pcl = NULL, npcl, depth, hit = 0, cnt = 0;

    PetscCall(DMPlexGetPointDepth(dm, cl[2 * k], &depth));
    if (depth != d) continue;
    PetscCall(DMPlexGetTransitiveClosure(dm, cl[2 * k], PETSC_TRUE, &npcl, &pcl));
    for (PetscInt j = 0; j < npcl; j++)
      if (pcl[2 * j] >= vStart && pcl[2 * j] < vEnd) {
        cnt++;
        for (PetscInt i = 0; i < nv; i++) hit += pcl[2 * j] == v[i];
      }
    PetscCall(DMPlexRestoreTransitiveClosure(dm, cl[2 * k], PETSC_TRUE, &npcl, &pcl));
    if (cnt == nv && hit == nv) *pt = cl[2 * k];
  }
  PetscCheck(*pt >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No point of depth %" PetscInt_FMT " on the given %" PetscInt_FMT " vertices", d, nv);
  PetscFunctionReturn(0);
}

/* det [b - a, c - a, d - a] */
static PetscReal SolidOrient(const PetscReal a[3], const PetscReal b[3], const PetscReal c[3], const PetscReal d[3])
{
  const PetscReal M[9] = {b[0] - a[0], c[0] - a[0], d[0] - a[0], b[1] - a[1], c[1] - a[1], d[1] - a[1], b[2] - a[2], c[2] - a[2], d[2] - a[2]};

  return SolidDet3(M);
}

/*
  SolidSetIOCells - The I/O mesh of quadratic tetrahedra (Tetrahedron_10) and hexahedra
  (Hexahedron, Hexahedron_27), once the I/O order is set; X: the reference positions (global).
  Collective.
*/
PetscErrorCode SolidSetIOCells(Solid *s, MechSystem sys, Vec X)
{
  DM                 dm = s->dm;
  VecScatter         sc;
  Vec                io, loc;
  PetscSection       ls;
  const PetscScalar *ia, *xr;
  PetscScalar       *a;
  PetscInt           n, rstart, cStart, cEnd, vStart, vEnd, nper, *cells;
  const char        *topo = s->cell->xdmf;
  const PetscBool    tet  = s->cell->simplex;

  PetscFunctionBegin;
  nper = s->cell->nen;
  PetscCheck(!(s->cell->simplex && s->cell->order == 1), PETSC_COMM_SELF, PETSC_ERR_PLIB, "P1 tetrahedra have their own I/O mesh");
  /* every dof's node's I/O number: k at entries 3k .. 3k+2 of the I/O order, scattered back */
  PetscCall(VecDuplicate(X, &io));
  PetscCall(VecGetLocalSize(io, &n));
  PetscCall(VecGetOwnershipRange(io, &rstart, NULL));
  PetscCall(VecGetArray(io, &a));
  for (PetscInt i = 0; i < n; i++) a[i] = (PetscScalar)((rstart + i) / 3);
  PetscCall(VecRestoreArray(io, &a));
  PetscCall(MechSystemGetIOMesh(sys, &sc, NULL, NULL, NULL));
  if (sc) {
    Vec w;

    PetscCall(VecDuplicate(io, &w));
    PetscCall(VecScatterBegin(sc, io, w, INSERT_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterEnd(sc, io, w, INSERT_VALUES, SCATTER_REVERSE));
    PetscCall(VecDestroy(&io));
    io = w;
  }
  PetscCall(DMGetLocalVector(dm, &loc));
  PetscCall(DMGlobalToLocal(dm, io, INSERT_VALUES, loc));
  PetscCall(DMGetLocalSection(dm, &ls));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(PetscMalloc1((1 + nper) * (cEnd - cStart) + 1, &cells));
  PetscCall(VecGetArrayRead(loc, &ia));
  PetscCall(VecGetArrayRead(s->Xref, &xr));
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt *cl = NULL, ncl, nv = 0, v[8], w[8], node[27], off;
    PetscReal Xv[8][3];

    PetscCall(DMPlexGetTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
    for (PetscInt k = 0; k < ncl; k++)
      if (cl[2 * k] >= vStart && cl[2 * k] < vEnd && nv < 8) v[nv++] = cl[2 * k];
    for (PetscInt k = 0; k < nv; k++) {
      PetscCall(PetscSectionGetOffset(ls, v[k], &off));
      for (PetscInt i = 0; i < 3; i++) Xv[k][i] = PetscRealPart(xr[off + i]);
    }
    if (tet) {
      for (PetscInt k = 0; k < 4; k++) w[k] = k;
      if (SolidOrient(Xv[0], Xv[1], Xv[2], Xv[3]) < 0) {
        w[1] = 2;
        w[2] = 1;
      }
    } else {
      /* corner 0: the closure's first vertex; 1, 3, 4: its neighbours along the cell's edges,
         right-handed; then 2 (next to 1 and 3), 5 (1, 4), 7 (3, 4), 6 the last */
      PetscInt nb[8][3], nnb[8] = {0, 0, 0, 0, 0, 0, 0, 0};

      for (PetscInt k = 0; k < ncl; k++) {
        PetscInt depth, cs;

        PetscCall(DMPlexGetPointDepth(dm, cl[2 * k], &depth));
        if (depth != 1) continue;
        {
          const PetscInt *ev;
          PetscInt        e[2] = {-1, -1};

          PetscCall(DMPlexGetConeSize(dm, cl[2 * k], &cs));
          PetscCall(DMPlexGetCone(dm, cl[2 * k], &ev));
          for (PetscInt j = 0; j < 8; j++) {
            if (v[j] == ev[0]) e[0] = j;
            if (v[j] == ev[1]) e[1] = j;
          }
          PetscCheck(cs == 2 && e[0] >= 0 && e[1] >= 0 && nnb[e[0]] < 3 && nnb[e[1]] < 3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cell %" PetscInt_FMT ": an edge not between two of its corners", c);
          nb[e[0]][nnb[e[0]]++] = e[1];
          nb[e[1]][nnb[e[1]]++] = e[0];
        }
      }
      w[0] = 0;
      w[1] = nb[0][0];
      w[3] = nb[0][1];
      w[4] = nb[0][2];
      if (SolidOrient(Xv[0], Xv[w[1]], Xv[w[3]], Xv[w[4]]) < 0) {
        w[3] = nb[0][2];
        w[4] = nb[0][1];
      }
      for (PetscInt j = 0; j < 8; j++) {
        PetscBool n1 = PETSC_FALSE, n3 = PETSC_FALSE, n4 = PETSC_FALSE;

        if (j == 0) continue;
        for (PetscInt i = 0; i < 3; i++) {
          n1 = n1 || nb[j][i] == w[1] ? PETSC_TRUE : PETSC_FALSE;
          n3 = n3 || nb[j][i] == w[3] ? PETSC_TRUE : PETSC_FALSE;
          n4 = n4 || nb[j][i] == w[4] ? PETSC_TRUE : PETSC_FALSE;
        }
        if (n1 && n3) w[2] = j;
        else if (n1 && n4) w[5] = j;
        else if (n3 && n4) w[7] = j;
        else if (j != w[1] && j != w[3] && j != w[4]) w[6] = j;
      }
    }
    for (PetscInt k = 0; k < (tet ? 4 : 8); k++) node[k] = v[w[k]];
    if (nper > 8) {
      const PetscInt ne = tet ? 6 : 12;

      for (PetscInt e = 0; e < ne; e++) {
        const PetscInt ev[2] = {node[tet ? SolidVTKTetEdges[e][0] : SolidVTKHexEdges[e][0]], node[tet ? SolidVTKTetEdges[e][1] : SolidVTKHexEdges[e][1]]};

        PetscCall(SolidFindPoint(dm, cl, ncl, 1, 2, ev, &node[(tet ? 4 : 8) + e]));
      }
      for (PetscInt f = 0; f < 6 && !tet; f++) {
        PetscInt fv[4];

        for (PetscInt j = 0; j < 4; j++) fv[j] = node[SolidVTKHexFaces[f][j]];
        PetscCall(SolidFindPoint(dm, cl, ncl, 2, 4, fv, &node[20 + f]));
      }
      if (!tet) node[26] = c;
    }
    PetscCall(DMPlexRestoreTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
    cells[(1 + nper) * (c - cStart)] = s->cellid[c - cStart];
    for (PetscInt k = 0; k < nper; k++) {
      PetscCall(PetscSectionGetOffset(ls, node[k], &off));
      cells[(1 + nper) * (c - cStart) + 1 + k] = (PetscInt)PetscRealPart(ia[off]);
    }
  }
  PetscCall(VecRestoreArrayRead(s->Xref, &xr));
  PetscCall(VecRestoreArrayRead(loc, &ia));
  PetscCall(DMRestoreLocalVector(dm, &loc));
  PetscCall(VecDestroy(&io));
  PetscCall(MechSystemSetIOMeshCells(sys, X, cEnd - cStart, nper, topo, cells));
  PetscCall(PetscFree(cells));
  PetscFunctionReturn(0);
}
