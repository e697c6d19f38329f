#include "foundation.h"

PetscErrorCode FoundationCreateModel(MPI_Comm comm, const char name[], const char opts[], MechSystem *sys)
{
  PetscOptions options;

  PetscFunctionBegin;
  PetscCall(PetscOptionsCreate(&options));
  if (opts) PetscCall(PetscOptionsInsertString(options, opts));
  PetscCall(PetscOptionsPush(options));
  PetscCall(MechCreateModel(comm, name, sys));
  PetscCall(PetscOptionsPop());
  PetscCall(PetscOptionsDestroy(&options));
  PetscFunctionReturn(0);
}

PetscErrorCode FoundationKickChain(MechSystem sys, PetscReal amplitude)
{
  Vec          q, v;
  PetscScalar *va;
  PetscInt     rstart, rend, N;

  PetscFunctionBegin;
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(VecGetSize(v, &N));
  PetscCall(VecGetOwnershipRange(v, &rstart, &rend));
  PetscCall(VecGetArray(v, &va));
  /* dof 3 i + c belongs to particle i, component c (the chain's natural DMDA ordering) */
  for (PetscInt i = rstart; i < rend; i++) {
    const PetscReal s = (PetscReal)(i / 3) / (N / 3);
    if (i % 3 == 1) va[i - rstart] = amplitude * PetscSinReal(PETSC_PI * s);
    if (i % 3 == 2) va[i - rstart] = 0.5 * amplitude * PetscSinReal(2 * PETSC_PI * s);
  }
  PetscCall(VecRestoreArray(v, &va));
  PetscCall(MechSystemSetInitialState(sys, q, v));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}
