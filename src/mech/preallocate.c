/*
  The tangent matrix of a user's system, preallocated from the couplings the user knows: pairs
  of coupled nodes (springs, dampers, contacts) or the node lists of elements. The tangent
  callback then only adds values; the sparsity is fixed here, once, with explicit zeros, so that
  a coupling whose tangent is momentarily zero (a slack spring, an open contact) keeps its place
  and the operator's structure never changes between assemblies.
*/
#include "mechimpl.h"

/*@C
  MechSystemCreateTangentMatrix - Creates the matrix for `MechSystemSetTangent()` with the
  sparsity of K + D + M: the mass matrix's pattern, the diagonal, and every coupling among the
  nodes of each given element, all filled with explicit zeros.

  Collective

  Input Parameters:
+ sys   - the mechanical system, with its mass matrix set (`MechSystemSetMass()`): it gives the
          sizes and parallel layout
. bs    - dofs per node (3 for particles in 3-D, 1 to list dofs directly); node i owns the dofs
          bs*i, ..., bs*i + bs - 1 in the global numbering of M
. nelem - number of elements given by this rank
. nper  - nodes per element: 2 for coupled pairs (springs), 4 for tetrahedra, ...
- conn  - nelem * nper global node numbers, element by element; a negative number is skipped

  Output Parameter:
. J - a new `MATAIJ` matrix of M's layout and block size bs, every coupling present as an
      explicit zero; inserting an entry outside this sparsity is an error
      (`MAT_NEW_NONZERO_ALLOCATION_ERR`), so a forgotten coupling is reported, not reallocated

  Notes:
  Each rank may list any elements, including ones whose nodes another rank owns (the entries
  are sent to their owners) and elements that other ranks list too. An element couples all dofs
  of all its nodes with each other. Node numbers outside [0, N/bs) and bs or nper below 1 are
  errors on every rank.

  Typical use:
.vb
  MechSystemSetMass(sys, M);
  MechSystemCreateTangentMatrix(sys, 3, nsprings, 2, springs, &J);
  MechSystemSetTangent(sys, J, PETSC_TRUE, MyTangent, ctx);
  MatDestroy(&J);
.ve

  Level: intermediate

.seealso: `MechSystemSetTangent()`, `MechSystemSetMass()`, `MechSystemCreateOperator()`, `MatPreallocatorPreallocate()`
@*/
PetscErrorCode MechSystemCreateTangentMatrix(MechSystem sys, PetscInt bs, PetscInt nelem, PetscInt nper, const PetscInt conn[], Mat *J)
{
  MPI_Comm     comm;
  Mat          pre;
  PetscInt     m, n, M, N, rstart, rend, nnodes, bad[2] = {0, 0}, gbad[2];
  PetscInt    *idx;
  PetscScalar *zeros;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (nelem > 0) PetscValidIntPointer(conn, 5);
  PetscValidPointer(J, 6);
  comm = PetscObjectComm((PetscObject)sys);
  PetscCheck(sys->M, comm, PETSC_ERR_ARG_WRONGSTATE, "MechSystemCreateTangentMatrix: set the mass matrix first (MechSystemSetMass())");
  PetscCheck(bs >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "MechSystemCreateTangentMatrix: dofs per node bs = %" PetscInt_FMT " must be at least 1", bs);
  PetscCheck(nper >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "MechSystemCreateTangentMatrix: nodes per element nper = %" PetscInt_FMT " must be at least 1", nper);
  PetscCall(MatGetSize(sys->M, &M, &N));
  PetscCall(MatGetLocalSize(sys->M, &m, &n));
  PetscCall(MatGetOwnershipRange(sys->M, &rstart, &rend));
  PetscCheck(M % bs == 0, comm, PETSC_ERR_ARG_INCOMP, "MechSystemCreateTangentMatrix: %" PetscInt_FMT " dofs are not a whole number of nodes of bs = %" PetscInt_FMT " dofs", M, bs);
  nnodes = M / bs;
  /* the checks of local data are agreed on by all ranks before any of them errs */
  bad[0] = nelem < 0 ? 1 : 0;
  for (PetscInt e = 0; e < nelem * nper && !bad[0]; e++)
    if (conn[e] >= nnodes) bad[1] = PetscMax(bad[1], conn[e] + 1);
  PetscCall(MPIU_Allreduce(bad, gbad, 2, MPIU_INT, MPI_MAX, comm));
  PetscCheck(!gbad[0], comm, PETSC_ERR_ARG_OUTOFRANGE, "MechSystemCreateTangentMatrix: a negative number of elements was given");
  PetscCheck(!gbad[1], comm, PETSC_ERR_ARG_OUTOFRANGE, "MechSystemCreateTangentMatrix: node %" PetscInt_FMT " in the connectivity is outside the %" PetscInt_FMT " nodes of the system (%" PetscInt_FMT " dofs, bs = %" PetscInt_FMT ")", gbad[1] - 1, nnodes, M, bs);

  /* count the couplings with MATPREALLOCATOR, which also sends the off-process rows to their owners */
  PetscCall(MatCreate(comm, &pre));
  PetscCall(MatSetType(pre, MATPREALLOCATOR));
  PetscCall(MatSetSizes(pre, m, n, M, N));
  PetscCall(MatSetBlockSize(pre, bs));
  PetscCall(MatSetUp(pre));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt           ncols;
    const PetscInt    *cols;
    const PetscScalar *vals;

    PetscCall(MatSetValue(pre, i, i, 0.0, INSERT_VALUES));
    PetscCall(MatGetRow(sys->M, i, &ncols, &cols, &vals));
    PetscCall(MatSetValues(pre, 1, &i, ncols, cols, vals, INSERT_VALUES));
    PetscCall(MatRestoreRow(sys->M, i, &ncols, &cols, &vals));
  }
  PetscCall(PetscMalloc1(nper * bs, &idx));
  PetscCall(PetscCalloc1(nper * bs * nper * bs, &zeros));
  for (PetscInt e = 0; e < nelem; e++) {
    PetscInt k = 0;

    for (PetscInt a = 0; a < nper; a++) {
      const PetscInt node = conn[e * nper + a];

      if (node < 0) continue;
      for (PetscInt c = 0; c < bs; c++) idx[k++] = node * bs + c;
    }
    if (k) PetscCall(MatSetValues(pre, k, idx, k, idx, zeros, INSERT_VALUES));
  }
  PetscCall(PetscFree(idx));
  PetscCall(PetscFree(zeros));
  PetscCall(MatAssemblyBegin(pre, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(pre, MAT_FINAL_ASSEMBLY));

  PetscCall(MatCreate(comm, J));
  PetscCall(MatSetType(*J, MATAIJ));
  PetscCall(MatSetSizes(*J, m, n, M, N));
  PetscCall(MatSetBlockSize(*J, bs));
  /* fill: the couplings become explicit zeros, so MatZeroEntries() between assemblies keeps them */
  PetscCall(MatPreallocatorPreallocate(pre, PETSC_TRUE, *J));
  PetscCall(MatDestroy(&pre));
  PetscCall(MatSetOption(*J, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  PetscCall(MatSetOption(*J, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
  PetscFunctionReturn(0);
}
