/* Helpers shared by the test programs: run a model under a TS type chosen by name. */
#ifndef TSMECH_TESTUTIL_H
#define TSMECH_TESTUTIL_H
#include <tsmech.h>

/* Integrates sys from its initial state to time T with step dt under TS type `type`. The TS gets
   the options prefix `prefix` (so each run can carry its own options) and `opts` (options
   written without the prefix, e.g. "-ts_theta_theta 0.3") are inserted under that prefix.
   On return q, v hold the final state (created here); its/kits the Newton/KSP iterations. */
PetscErrorCode TestIntegrate(MechSystem sys, const char type[], const char opts[], PetscReal dt, PetscReal T, Vec *q, Vec *v, PetscInt *its, PetscInt *kits);
/* ||a - b||_2 / ||b||_2 (||a - b|| when b = 0) over the pair (q, v) */
PetscErrorCode TestRelDiff(Vec qa, Vec va, Vec qb, Vec vb, PetscReal *rel);
/* Fails with a message when cond is false */
#define TestCheck(comm, cond, ...) PetscCheck(cond, comm, PETSC_ERR_PLIB, __VA_ARGS__)
#endif
