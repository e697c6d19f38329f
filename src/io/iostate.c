/*
  The state vectors of the HDF5 files, shared by the output and the checkpoints: on a DMDA in its
  natural ordering and grid shape, otherwise the system's own, permuted into the I/O order that does
  not depend on the partition (MechSystemSetIOOrdering()).
*/
#include <petscdmda.h>
#include "outputimpl.h"

/*
  The state vectors. For a system on a DMDA they are global vectors of that DMDA, so VecView
  writes them in natural ordering with the grid's shape (and VecLoad reads them back on any
  number of ranks); the model's state must then have the DMDA's parallel layout (it lives on the
  DM: MechSystemSetDM()). Shared with the checkpoints (checkpoint.c).
*/
PetscErrorCode MechIOCreateStateVectors(MechSystem sys, Vec *q, Vec *v, PetscInt *dim, PetscInt shape[4])
{
  MPI_Comm  comm;
  DM        dm;
  PetscBool isda;
  Vec       q0, v0;
  PetscInt  n0, n, M, N, P, dof, bad, d = 0;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetComm((PetscObject)sys, &comm));
  PetscCall(MechSystemCreateState(sys, &q0, &v0));
  PetscCall(MechSystemGetDM(sys, &dm));
  isda = PETSC_FALSE;
  if (dm) PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (isda) {
    PetscCall(DMCreateGlobalVector(dm, q));
    PetscCall(VecGetLocalSize(q0, &n0));
    PetscCall(VecGetLocalSize(*q, &n));
    bad = n != n0;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_MAX, comm));
    if (bad) {
      PetscCall(VecDestroy(q));
      PetscCall(VecDestroy(&q0));
      PetscCall(VecDestroy(&v0));
      SETERRQ(comm, PETSC_ERR_ARG_INCOMP, "The state does not have the parallel layout of the system's DMDA (MechSystemSetDM()): it cannot be written on the grid");
    }
    PetscCall(DMDAGetInfo(dm, &d, &M, &N, &P, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
    n = 0;
    if (shape) {
      if (d == 3) shape[n++] = P;
      if (d >= 2) shape[n++] = N;
      shape[n++] = M;
      shape[n++] = dof;
    }
    PetscCall(VecDuplicate(*q, v));
    PetscCall(VecDestroy(&q0));
    PetscCall(VecDestroy(&v0));
  } else {
    *q = q0;
    *v = v0;
  }
  if (dim) *dim = d;
  PetscFunctionReturn(0);
}

PetscErrorCode MechIOPermute(MechSystem sys, Vec x, ScatterMode mode)
{
  VecScatter sc;
  Vec        w;

  PetscFunctionBegin;
  PetscCall(MechSystemGetIOMesh(sys, &sc, NULL, NULL, NULL));
  if (!sc) PetscFunctionReturn(0);
  PetscCall(VecDuplicate(x, &w));
  PetscCall(VecCopy(x, w));
  PetscCall(VecScatterBegin(sc, w, x, INSERT_VALUES, mode));
  PetscCall(VecScatterEnd(sc, w, x, INSERT_VALUES, mode));
  PetscCall(VecDestroy(&w));
  PetscFunctionReturn(0);
}
