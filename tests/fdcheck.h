/* Finite-difference checks of a model's tangents and potential, shared by the model tests. */
#ifndef TSMECH_TESTS_FDCHECK_H
#define TSMECH_TESTS_FDCHECK_H
#include <tsmech.h>

/* A random generator, uniform in [-1, 1], with a fixed seed so that every run draws the same numbers */
PetscErrorCode FDRandomCreate(MPI_Comm comm, unsigned long seed, PetscRandom *rnd);
/* ||a - b|| / max(||a||, ||b||) (0 when both vanish); work: a vector like a */
PetscErrorCode FDRelativeError(Vec a, Vec b, Vec work, PetscReal *err);
/*
  At (q, v) and t = 0.25: the largest over random directions w (zero on fixed dofs) of the
  FDRelativeError() of A w against the central difference of f with step h, A = K (which = 0) or
  D (which = 1). For a system marked linear the difference is exact for any step, so h = 1 tests
  the linear flag as well. symmetric (may be NULL): whether the operator is symmetric (1e-12).
*/
PetscErrorCode FDCheckTangent(MechSystem sys, PetscInt which, PetscReal h, Vec q, Vec v, PetscRandom rnd, PetscReal *maxerr, PetscBool *symmetric);
/*
  FDCheckTangent() of K with step hK (symmetric as there) and of D with step hD and, for a system
  marked linear (*linear), of both with step 1: *errL the larger of those two (0 if not linear).
*/
PetscErrorCode FDCheckTangents(MechSystem sys, Vec q, Vec v, PetscRandom rnd, PetscReal hK, PetscReal hD, PetscReal *errK, PetscReal *errD, PetscBool *linear, PetscReal *errL, PetscBool *symmetric);
/*
  f(q, 0) must be the gradient of the potential: the largest relative difference over random
  directions w between f.w and the central difference of the potential along w with step h, of
  order 2 or 4 (t = 0.25; at v = 0 damping and drag vanish, so only conservative forces act).
*/
PetscErrorCode FDCheckPotential(MechSystem sys, Vec q, PetscRandom rnd, PetscReal h, PetscInt order, PetscReal *maxerr);
/* A random state: q = X + amp r, v = amp r' with random r, r' (the fixed dofs where the system holds them) */
PetscErrorCode FDRandomState(MechSystem sys, PetscRandom rnd, PetscReal amp, Vec *q, Vec *v);
/*
  The operator shell (the tangent action) against the assembled operator J = cK K + cD D + cM M at
  (t, q, v): FDRelativeError() of their products with a random w, and ||J w|| (norm may be NULL)
*/
PetscErrorCode FDCheckOperatorShell(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, PetscRandom rnd, PetscReal *err, PetscReal *norm);
#endif
