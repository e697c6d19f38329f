/* Helpers shared by the foundation tests (tests/foundation). */
#ifndef TSMECH_FOUNDATION_H
#define TSMECH_FOUNDATION_H
#include "testutil.h"

/* Creates the built-in model `name` with the model options `opts` (e.g. "-chain_n 50
   -chain_linear"), read from a private options database so that they do not leak into the
   runs or models that follow. */
PetscErrorCode FoundationCreateModel(MPI_Comm comm, const char name[], const char opts[], MechSystem *sys);
/* Gives the chain a fully 3-D start: every particle gets a small velocity across the rope
   (y and z, varying along it), so that the motion leaves the vertical plane. */
PetscErrorCode FoundationKickChain(MechSystem sys, PetscReal amplitude);
#endif
