/*
  The graph of the nodes (two nodes coupled when they share a cell) without MATPREALLOCATOR: its
  hash set takes every pair of every cell (27 x 27 of a Q2 hexahedron), 29 % of the set-up's CPU
  time at 10^6 unknowns (perf, bench/README.md "Set-up at a million unknowns"). When no rank
  has a node it does not own (one rank; the cells of a rank hold all couplings of its rows), each
  node's couplings come from the cells around it, sorted and made unique, and the matrix takes
  them as its CSR pattern. Otherwise (ghost nodes: other ranks add to a row) the caller keeps the
  preallocator.
*/
#include "solidimpl.h"

/* G (m x m local, M global, scalar AIJ, zero values) from the cells when no rank has ghost nodes; *done false otherwise */
PetscErrorCode SolidNodeGraphLocal(Solid *s, PetscInt m, PetscInt M, Mat *G, PetscBool *done)
{
  const PetscInt nen = s->nen;
  PetscInt       rstart, *ncell, *cstart, *cells, *ii, *jj = NULL, *buf = NULL, nnz = 0, cap = 0;
  PetscBool      ghost = PETSC_FALSE;
  MPI_Comm       comm  = PetscObjectComm((PetscObject)s->dm);

  PetscFunctionBegin;
  PetscCallMPI(MPI_Exscan(&m, &rstart, 1, MPIU_INT, MPI_SUM, comm));
  {
    PetscMPIInt rank;

    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    if (!rank) rstart = 0;
  }
  for (PetscInt k = 0; k < nen * s->ncells && !ghost; k++) ghost = s->goff[k] / 3 < rstart || s->goff[k] / 3 >= rstart + m ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ghost, 1, MPIU_BOOL, MPI_LOR, comm));
  *done = ghost ? PETSC_FALSE : PETSC_TRUE;
  if (ghost) PetscFunctionReturn(0);
  /* the cells around each node (CSR) */
  PetscCall(PetscCalloc2(m, &ncell, m + 1, &cstart));
  for (PetscInt k = 0; k < nen * s->ncells; k++) ncell[s->goff[k] / 3 - rstart]++;
  for (PetscInt i = 0; i < m; i++) cstart[i + 1] = cstart[i] + ncell[i];
  PetscCall(PetscMalloc1(cstart[m], &cells));
  for (PetscInt i = 0; i < m; i++) ncell[i] = 0;
  for (PetscInt c = 0; c < s->ncells; c++)
    for (PetscInt a = 0; a < nen; a++) {
      const PetscInt i = s->goff[nen * c + a] / 3 - rstart;

      cells[cstart[i] + ncell[i]++] = c;
    }
  /* each node's couplings: its cells' nodes, sorted and unique (two passes: the count, the columns) */
  PetscCall(PetscMalloc1(m + 1, &ii));
  ii[0] = 0;
  for (PetscInt pass = 0; pass < 2; pass++) {
    if (pass) PetscCall(PetscMalloc1(ii[m], &jj));
    for (PetscInt i = 0; i < m; i++) {
      PetscInt n = nen * ncell[i];

      if (n > cap) {
        cap = 2 * n;
        PetscCall(PetscFree(buf));
        PetscCall(PetscMalloc1(cap, &buf));
      }
      for (PetscInt k = 0; k < ncell[i]; k++)
        for (PetscInt a = 0; a < nen; a++) buf[nen * k + a] = s->goff[nen * cells[cstart[i] + k] + a] / 3;
      PetscCall(PetscSortRemoveDupsInt(&n, buf));
      if (pass) PetscCall(PetscArraycpy(&jj[ii[i]], buf, n));
      else ii[i + 1] = ii[i] + n;
    }
  }
  nnz = ii[m];
  PetscCall(PetscInfo(s->dm, "The node graph from the cells: %" PetscInt_FMT " couplings of %" PetscInt_FMT " nodes\n", nnz, m));
  PetscCall(PetscFree(buf));
  PetscCall(PetscFree(cells));
  PetscCall(PetscFree2(ncell, cstart));
  PetscCall(MatCreate(comm, G));
  PetscCall(MatSetType(*G, MATAIJ));
  PetscCall(MatSetSizes(*G, m, m, M, M));
  PetscCall(MatSeqAIJSetPreallocationCSR(*G, ii, jj, NULL));
  PetscCall(MatMPIAIJSetPreallocationCSR(*G, ii, jj, NULL));
  PetscCall(PetscFree(ii));
  PetscCall(PetscFree(jj));
  PetscFunctionReturn(0);
}
