/* Helpers shared by the test programs: run a model under a TS type chosen by name. */
#ifndef TSMECH_TESTUTIL_H
#define TSMECH_TESTUTIL_H
#include <tsmech.h>

/* Integrates sys from its initial state to time T with step dt under TS type `type`. The TS gets
   the options prefix `prefix` (so each run can carry its own options) and `opts` (options
   written without the prefix, e.g. "-ts_theta_theta 0.3") are inserted under that prefix.
   On return q, v hold the final state (created here); its/kits the Newton/KSP iterations. */
PetscErrorCode TestIntegrate(MechSystem sys, const char type[], const char opts[], PetscReal dt, PetscReal T, Vec *q, Vec *v, PetscInt *its, PetscInt *kits);
/* The core of TestIntegrate() and IntegRun(): solves sys from its initial state under TS type
   `type` with the options prefix `prefix`, the options opts set under it for the run only, step
   dt, at most nsteps steps up to time tmax with exact final time `final`, and monitor (if not
   NULL). Fails if the TS diverged. q, v (created here) hold the final state; the caller queries
   and destroys *ts. */
PetscErrorCode TestSolve(MechSystem sys, const char type[], const char prefix[], const char opts[], PetscReal dt, PetscInt nsteps, PetscReal tmax, TSExactFinalTimeOption final, PetscErrorCode (*monitor)(TS, PetscInt, PetscReal, Vec, void *), void *ctx, Vec *q, Vec *v, TS *ts);
/* Sets the options opts (written without a prefix, e.g. "-ksp_type cg -snes_rtol 1e-8") under
   prefix in the options database; values may be negative numbers */
PetscErrorCode TestSetPrefixedOptions(MPI_Comm comm, const char prefix[], const char opts[]);
/* Removes them again */
PetscErrorCode TestClearPrefixedOptions(const char prefix[], const char opts[]);
/* ||a - b||_2 / ||b||_2 (||a - b|| when b = 0) over the pair (q, v) */
PetscErrorCode TestRelDiff(Vec qa, Vec va, Vec qb, Vec vb, PetscReal *rel);
/* Removes from the options database the options named in `options` (a string as given to
   PetscOptionsInsertString(); values, including negative numbers, are skipped) */
PetscErrorCode TestClearOptions(const char options[]);
/* A model created with the options opts inserted for its creation only */
PetscErrorCode TestCreateModel(MPI_Comm comm, const char model[], const char opts[], MechSystem *sys);
/* All of a distributed vector on every rank (created here) */
PetscErrorCode TestGatherAll(Vec x, Vec *all);
/* |(u, v) - (u, v)_ref| / |(u, v)_ref| over the vertices (u = q - X), each vertex of the reference
   matched by its reference position within match (unmatched: how many are not; all of them when
   the sizes differ); every vector whole on this rank (TestGatherAll()); the largest over the ranks */
PetscErrorCode TestCompareByPosition(Vec X, Vec q, Vec v, Vec Xref, Vec qref, Vec vref, PetscReal match, PetscReal *rel, PetscInt *unmatched);
/* Fails with a message when cond is false */
#define TestCheck(comm, cond, ...) PetscCheck(cond, comm, PETSC_ERR_PLIB, __VA_ARGS__)
/* A check that counts a failure in the counter failures and goes on, so that a test reports every
   failed check before it fails */
#define TestCount(failures, cond, ...)                                  \
  do {                                                                  \
    if (!(cond)) {                                                      \
      (failures)++;                                                     \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: " __VA_ARGS__)); \
    }                                                                   \
  } while (0)
#endif
