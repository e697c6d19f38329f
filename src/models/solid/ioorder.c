/*
  The solid's I/O order: every node (vertex, edge, face or cell node) numbered by keys that do not
  depend on the partition (its place in the mesh file or the beam), so that the output and the
  checkpoints are the same on any number of ranks (docs/solid.md §12).
*/
#include "solidimpl.h"
#include <stdlib.h>

/* qsort order of (key[0..3], index) records: lexicographic on the key */
static int CompareKeys(const void *a, const void *b)
{
  const PetscInt *x = (const PetscInt *)a, *y = (const PetscInt *)b;

  for (int i = 0; i < 4; i++)
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}

/*
  The rank of each of this rank's n keys (4 integers each, distinct over all ranks) in the
  lexicographic order of all ranks' keys: gathered on rank 0, sorted, the ranks sent back
*/
static PetscErrorCode RankKeys(MPI_Comm comm, PetscInt n, const PetscInt keys[], PetscInt rankof[], PetscInt *total)
{
  PetscMPIInt size, rank, nm, *counts = NULL, *displs = NULL, *c5 = NULL, *d5 = NULL;
  PetscInt   *all = NULL, *rec = NULL, *pos = NULL, N = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMPIIntCast(n, &nm));
  if (rank == 0) PetscCall(PetscMalloc4(size, &counts, size, &displs, size, &c5, size, &d5));
  PetscCallMPI(MPI_Gather(&nm, 1, MPI_INT, counts, 1, MPI_INT, 0, comm));
  if (rank == 0) {
    for (PetscMPIInt r = 0; r < size; r++) {
      displs[r] = (PetscMPIInt)N;
      c5[r]     = 4 * counts[r];
      d5[r]     = 4 * displs[r];
      N += counts[r];
    }
    PetscCall(PetscMalloc3(4 * N + 1, &all, 5 * N + 1, &rec, N + 1, &pos));
  }
  PetscCallMPI(MPI_Gatherv(keys, 4 * nm, MPIU_INT, all, c5, d5, MPIU_INT, 0, comm));
  if (rank == 0) {
    for (PetscInt k = 0; k < N; k++) {
      for (PetscInt i = 0; i < 4; i++) rec[5 * k + i] = all[4 * k + i];
      rec[5 * k + 4] = k;
    }
    qsort(rec, (size_t)N, 5 * sizeof(PetscInt), CompareKeys);
    for (PetscInt k = 0; k < N; k++) pos[rec[5 * k + 4]] = k;
  }
  PetscCallMPI(MPI_Scatterv(pos, counts, displs, MPIU_INT, rankof, nm, MPIU_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(&N, 1, MPIU_INT, 0, comm));
  *total = N;
  if (rank == 0) {
    PetscCall(PetscFree3(all, rec, pos));
    PetscCall(PetscFree4(counts, displs, c5, d5));
  }
  PetscFunctionReturn(0);
}

/*
  The rank-independent I/O order of the state and the mesh (MechSystemSetIOOrdering(),
  MechSystemSetIOMesh()) from the vertices' numbers vertid (per local vertex) and the cells'
  numbers s->cellid; X: the reference positions (global). Nodes in the files: the vertices first,
  in the mesh's order (vertid), then the edge nodes sorted by their two vertices' numbers (smaller
  first, then larger), then the face nodes sorted by their vertices' numbers (each face's four in
  increasing order), then the cell nodes in the cells' order (cellid): the same on any number of
  ranks. The I/O mesh holds each cell's first four vertices (tetrahedra: the cell); hexahedra have
  none (their output holds the nodes' q and v).
*/
PetscErrorCode SolidSetIOOrdering(Solid *s, MechSystem sys, const PetscInt vertid[], Vec X)
{
  MPI_Comm     comm = PetscObjectComm((PetscObject)s->dm);
  PetscSection gs;
  PetscInt     pStart, pEnd, vStart, vEnd, cStart, cEnd, rstart, n, *idx, *cells, nown[4] = {0, 0, 0, 0}, NV, base;
  IS           order;

  PetscFunctionBegin;
  PetscCall(DMGetGlobalSection(s->dm, &gs));
  PetscCall(DMPlexGetChart(s->dm, &pStart, &pEnd));
  PetscCall(DMPlexGetDepthStratum(s->dm, 0, &vStart, &vEnd));
  PetscCall(DMPlexGetHeightStratum(s->dm, 0, &cStart, &cEnd));
  PetscCall(VecGetOwnershipRange(X, &rstart, NULL));
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(PetscMalloc1(n + 1, &idx));
  /* the owned nodes of each kind: 0 vertices, 1 edges, 2 faces, 3 cells */
  for (PetscInt p = pStart; p < pEnd; p++) {
    PetscInt dof, d;

    PetscCall(PetscSectionGetDof(gs, p, &dof));
    if (dof <= 0) continue;
    PetscCall(DMPlexGetPointDepth(s->dm, p, &d));
    nown[d]++;
  }
  PetscCall(MPIU_Allreduce(&nown[0], &NV, 1, MPIU_INT, MPI_SUM, comm));
  base = NV;
  for (PetscInt p = vStart; p < vEnd; p++) {
    PetscInt dof, off;

    PetscCall(PetscSectionGetDof(gs, p, &dof));
    PetscCall(PetscSectionGetOffset(gs, p, &off));
    if (dof <= 0) continue; /* not owned */
    for (PetscInt i = 0; i < 3; i++) idx[off - rstart + i] = 3 * vertid[p - vStart] + i;
  }
  for (PetscInt d = 1; d <= 3; d++) {
    PetscInt *keys, *rk, k = 0, N;
    PetscBool any;

    PetscCall(MPIU_Allreduce(&nown[d], &N, 1, MPIU_INT, MPI_SUM, comm));
    any = N > 0 ? PETSC_TRUE : PETSC_FALSE;
    if (!any) continue;
    PetscCall(PetscMalloc2(4 * nown[d] + 1, &keys, nown[d] + 1, &rk));
    for (PetscInt p = pStart; p < pEnd; p++) {
      PetscInt dof, pd, nv, v[8], key[4] = {-1, -1, -1, -1};

      PetscCall(PetscSectionGetDof(gs, p, &dof));
      if (dof <= 0) continue;
      PetscCall(DMPlexGetPointDepth(s->dm, p, &pd));
      if (pd != d) continue;
      if (d == 3) key[0] = s->cellid[p - cStart];
      else {
        PetscCall(SolidClosureVertices(s->dm, p, &nv, v));
        for (PetscInt j = 0; j < nv && j < 4; j++) key[j] = vertid[v[j] - vStart];
        PetscCall(PetscSortInt(PetscMin(nv, 4), key));
      }
      for (PetscInt j = 0; j < 4; j++) keys[4 * k + j] = key[j];
      k++;
    }
    PetscCall(RankKeys(comm, nown[d], keys, rk, &N));
    k = 0;
    for (PetscInt p = pStart; p < pEnd; p++) {
      PetscInt dof, pd, off;

      PetscCall(PetscSectionGetDof(gs, p, &dof));
      if (dof <= 0) continue;
      PetscCall(DMPlexGetPointDepth(s->dm, p, &pd));
      if (pd != d) continue;
      PetscCall(PetscSectionGetOffset(gs, p, &off));
      for (PetscInt i = 0; i < 3; i++) idx[off - rstart + i] = 3 * (base + rk[k]) + i;
      k++;
    }
    base += N;
    PetscCall(PetscFree2(keys, rk));
  }
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, idx, PETSC_OWN_POINTER, &order));
  PetscCall(MechSystemSetIOOrdering(sys, order));
  PetscCall(ISDestroy(&order));
  if (s->ct != DM_POLYTOPE_TETRAHEDRON || s->order != 1) {
    /* quadratic tetrahedra, hexahedra: their cells in XDMF's node order (iocells.c) */
    PetscCall(SolidSetIOCells(s, sys, X));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMalloc1(5 * (cEnd - cStart) + 1, &cells));
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt nv, v[8];

    cells[5 * (c - cStart)] = s->cellid[c - cStart];
    PetscCall(SolidClosureVertices(s->dm, c, &nv, v));
    for (PetscInt k = 0; k < 4; k++) cells[5 * (c - cStart) + 1 + k] = vertid[v[k] - vStart];
  }
  PetscCall(MechSystemSetIOMesh(sys, X, cEnd - cStart, cells));
  PetscCall(PetscFree(cells));
  PetscFunctionReturn(0);
}
