#include <tsmech.h>
#include "models/springs.h"

/* Keep in the order of the table below; printed by -help and by the error for an unknown name. */
const char MechModelNames[] = "oscillator, pair, chain, kepler, cloth, lattice";

typedef struct {
  const char *name;
  PetscErrorCode (*create)(MPI_Comm, MechSystem *);
} MechModelEntry;

static const MechModelEntry MechModels[] = {
    {"oscillator", MechCreateOscillator},
    {"pair",       MechCreatePair      },
    {"chain",      MechCreateChain     },
    {"kepler",     MechCreateKepler    },
    {"cloth",      MechCreateCloth     },
    {"lattice",    MechCreateLattice   },
};

/*
  MechCreateModel - create one of the built-in models by name; its options are read with the
  model's name as prefix (-chain_n, ...).

  Collective

  Input: comm, name (one of MechModelNames)
  Output: sys
*/
PetscErrorCode MechCreateModel(MPI_Comm comm, const char name[], MechSystem *sys)
{
  size_t i;

  PetscFunctionBegin;
  PetscCheck(name, comm, PETSC_ERR_ARG_NULL, "No model name given (-model); valid models: %s", MechModelNames);
  for (i = 0; i < sizeof(MechModels) / sizeof(MechModels[0]); i++) {
    PetscBool match;

    PetscCall(PetscStrcmp(name, MechModels[i].name, &match));
    if (match) {
      PetscCall(MechModels[i].create(comm, sys));
      PetscFunctionReturn(0);
    }
  }
  SETERRQ(comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown model \"%s\" (-model); valid models: %s", name, MechModelNames);
}

PetscErrorCode MechModelSetUpSmall(MechSystem sys, PetscInt n, const PetscReal mass[], const PetscReal q0[], const PetscReal v0[], Mat *J)
{
  MPI_Comm     comm = PetscObjectComm((PetscObject)sys);
  PetscMPIInt  rank;
  PetscInt     nloc, i, *idx;
  PetscScalar *zeros, *x, *u;
  Vec          q, v;
  Mat          M;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  /* These models are a handful of dofs: distributing them would only add communication */
  nloc = rank == 0 ? n : 0;
  PetscCall(VecCreateMPI(comm, nloc, n, &q));
  PetscCall(VecDuplicate(q, &v));
  PetscCall(MatCreateAIJ(comm, nloc, nloc, n, n, 1, NULL, 0, NULL, &M));
  PetscCall(MatCreateAIJ(comm, nloc, nloc, n, n, n, NULL, 0, NULL, J));
  if (nloc) {
    PetscCall(PetscMalloc1(n, &idx));
    PetscCall(PetscCalloc1(n * n, &zeros));
    for (i = 0; i < n; i++) idx[i] = i;
    for (i = 0; i < n; i++) PetscCall(MatSetValue(M, i, i, mass[i], INSERT_VALUES));
    /* Explicit zeros fix the nonzero pattern before the first tangent evaluation */
    PetscCall(MatSetValues(*J, n, idx, n, idx, zeros, INSERT_VALUES));
    PetscCall(PetscFree(zeros));
    PetscCall(PetscFree(idx));
  }
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(*J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*J, MAT_FINAL_ASSEMBLY));
  PetscCall(MechSystemSetMass(sys, M));
  PetscCall(VecGetArray(q, &x));
  PetscCall(VecGetArray(v, &u));
  for (i = 0; i < nloc; i++) {
    x[i] = q0[i];
    u[i] = v0[i];
  }
  PetscCall(VecRestoreArray(v, &u));
  PetscCall(VecRestoreArray(q, &x));
  PetscCall(MechSystemSetInitialState(sys, q, v));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(0);
}
