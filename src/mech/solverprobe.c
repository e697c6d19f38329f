/*
  Which linear solvers need a symmetric operator, decided from what each one does rather than from
  a list of names (a list misses members: PETSc 3.18 has 16 Krylov methods of the CG family and
  Chebyshev, besides the Cholesky and ICC preconditioners, and a plug-in may register more).

  The probe: the method (a KSP type with no preconditioner, or a PC type applied once by
  KSPPREONLY) solves A x = b for two 4 x 4 matrices of the same size and scale, the symmetric
  positive definite I + S (S tridiagonal, 1/2 off the diagonal: eigenvalues 0.19 ... 1.81) and the
  non-symmetric I + N (N skew, the same entries with opposite signs below the diagonal:
  eigenvalues 1 +- 0.81 i, 1 +- 0.31 i), within 200 iterations to a relative tolerance of 1e-12.
  A method that solves the first (to 1e-8 in x) and not the second needs a symmetric operator:
  every member of the CG family (cg, pipecg, groppcg, fcg, pipefcg, cr, pipecr, minres, symmlq,
  nash, stcg, gltr, ...), chebyshev (whose polynomial assumes a real spectrum), the Cholesky and
  ICC factorizations. Methods for general matrices solve both (GMRES and BiCG families, TFQMR,
  least squares, Richardson); methods that solve neither on their own (preonly with no
  preconditioner, Jacobi applied once, a trust-region qcg without its radius) are not refused.
  The answer of each type is computed once per process (a few hundred microseconds) and kept.
*/
#include "mechimpl.h"
#include <petscksp.h>

#define PROBE_N 4

typedef struct {
  char      name[64];
  PetscBool ispc, needs;
} ProbeAnswer;

static ProbeAnswer *answers  = NULL;
static PetscInt     nanswers = 0, capanswers = 0;

static PetscErrorCode ProbeAnswersFree(void)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(answers));
  nanswers = capanswers = 0;
  PetscFunctionReturn(0);
}

/* Whether the method solves A x = b (b = 1, 2, 3, 4) to 1e-8 relative in x; an error counts as not */
static PetscErrorCode ProbeSolves(const char type[], PetscBool ispc, PetscBool symmetric, PetscBool *solves)
{
  Mat            A;
  Vec            x, b, r;
  KSP            ksp;
  PC             pc;
  PetscErrorCode ierr;
  PetscReal      nb, nr;

  PetscFunctionBegin;
  *solves = PETSC_FALSE;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, PROBE_N, PROBE_N, 3, NULL, &A));
  for (PetscInt i = 0; i < PROBE_N; i++) {
    PetscCall(MatSetValue(A, i, i, 1.0, INSERT_VALUES));
    if (i + 1 < PROBE_N) {
      PetscCall(MatSetValue(A, i, i + 1, 0.5, INSERT_VALUES));
      PetscCall(MatSetValue(A, i + 1, i, symmetric ? 0.5 : -0.5, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(b, &r));
  for (PetscInt i = 0; i < PROBE_N; i++) PetscCall(VecSetValue(b, i, (PetscScalar)(i + 1), INSERT_VALUES));
  PetscCall(VecAssemblyBegin(b));
  PetscCall(VecAssemblyEnd(b));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  /* an options prefix no one gives: -ksp_view, -ksp_converged_reason, ... of the run's solvers
     are not applied to the probe's */
  PetscCall(KSPSetOptionsPrefix(ksp, "mech_solver_probe_"));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetTolerances(ksp, 1e-12, 1e-50, PETSC_DEFAULT, 200));
  PetscCall(KSPGetPC(ksp, &pc));
  /* quiet: a method may refuse the matrix (an error is an answer, not a failure of the run) */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = KSPSetType(ksp, ispc ? KSPPREONLY : type);
  if (!ierr) ierr = PCSetType(pc, ispc ? type : PCNONE);
  if (!ierr) ierr = KSPSolve(ksp, b, x);
  PetscCall(PetscPopErrorHandler());
  if (!ierr) {
    /* the exact solution, by LU of the same matrix, compared in x */
    Vec xt;
    KSP lu;
    PC  lupc;

    PetscCall(VecDuplicate(x, &xt));
    PetscCall(KSPCreate(PETSC_COMM_SELF, &lu));
    PetscCall(KSPSetOptionsPrefix(lu, "mech_solver_probe_"));
    PetscCall(KSPSetOperators(lu, A, A));
    PetscCall(KSPSetType(lu, KSPPREONLY));
    PetscCall(KSPGetPC(lu, &lupc));
    PetscCall(PCSetType(lupc, PCLU));
    PetscCall(KSPSolve(lu, b, xt));
    PetscCall(KSPDestroy(&lu));
    PetscCall(VecNorm(xt, NORM_2, &nb));
    PetscCall(VecAXPY(xt, -1.0, x));
    PetscCall(VecNorm(xt, NORM_2, &nr));
    PetscCall(VecDestroy(&xt));
    *solves = nr <= 1e-8 * nb ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/*@C
  MechSolverNeedsSymmetric - Whether a Krylov method (a `KSPType`) or a preconditioner (a `PCType`)
  needs a symmetric operator, decided by a probe of what it does (see src/mech/solverprobe.c), not
  by its name.

  Not Collective (the same on every rank: the probe is deterministic)

  Input Parameters:
+ type - the type's name
- ispc - PETSC_TRUE for a `PCType`, PETSC_FALSE for a `KSPType`

  Output Parameter:
. needs - whether it solves a symmetric positive definite system but not a non-symmetric one of
          the same size and conditioning

  Level: developer

.seealso: `MechKSPCheckSymmetric()`, `MechSystemCheckSolver()`
@*/
PetscErrorCode MechSolverNeedsSymmetric(const char type[], PetscBool ispc, PetscBool *needs)
{
  PetscBool sym, non;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < nanswers; i++)
    if (answers[i].ispc == ispc && !strcmp(answers[i].name, type)) {
      *needs = answers[i].needs;
      PetscFunctionReturn(0);
    }
  PetscCall(ProbeSolves(type, ispc, PETSC_TRUE, &sym));
  non = PETSC_FALSE;
  if (sym) PetscCall(ProbeSolves(type, ispc, PETSC_FALSE, &non));
  *needs = sym && !non ? PETSC_TRUE : PETSC_FALSE;
  if (strlen(type) < sizeof(answers[0].name)) {
    if (nanswers == capanswers) {
      ProbeAnswer *a;

      /* kept until PetscFinalize() (facts about the types, owned by no object) */
      if (!capanswers) PetscCall(PetscRegisterFinalize(ProbeAnswersFree));
      capanswers = capanswers ? 2 * capanswers : 16;
      PetscCall(PetscMalloc1(capanswers, &a));
      if (nanswers) PetscCall(PetscArraycpy(a, answers, nanswers));
      PetscCall(PetscFree(answers));
      answers = a;
    }
    PetscCall(PetscStrncpy(answers[nanswers].name, type, sizeof(answers[0].name)));
    answers[nanswers].ispc    = ispc;
    answers[nanswers++].needs = *needs;
  }
  PetscFunctionReturn(0);
}

/*@C
  MechKSPCheckSymmetric - Refuses a linear solver whose Krylov method or preconditioner needs a
  symmetric operator (`MechSolverNeedsSymmetric()`) for an operator that is not symmetric, with
  one line naming the option, the reason and what to use instead.

  Collective

  Input Parameters:
+ ksp - the solver, its types set (from the options or otherwise)
- why - why the operator is not symmetric, a phrase (e.g. "-solid_load p is a follower pressure, ...")

  Level: developer

.seealso: `MechSolverNeedsSymmetric()`, `MechSystemCheckSolver()`
@*/
PetscErrorCode MechKSPCheckSymmetric(KSP ksp, const char why[])
{
  PC          pc;
  PetscBool   symksp, sympc;
  const char *prefix;
  KSPType     ktype;
  PCType      ptype;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscCall(KSPGetType(ksp, &ktype));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetType(pc, &ptype));
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  if (!prefix) prefix = "";
  symksp = sympc = PETSC_FALSE;
  if (ktype) PetscCall(MechSolverNeedsSymmetric(ktype, PETSC_FALSE, &symksp));
  if (ptype) PetscCall(MechSolverNeedsSymmetric(ptype, PETSC_TRUE, &sympc));
  PetscCheck(!symksp, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_INCOMP, "-%sksp_type %s: %s; %s needs a symmetric operator (it solves a symmetric positive definite system, not a non-symmetric one): use -%sksp_type gmres or bcgs", prefix, ktype, why, ktype, prefix);
  PetscCheck(!sympc, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_INCOMP, "-%spc_type %s: %s; %s needs a symmetric operator (a symmetric factorization): use -%spc_type lu, ilu or gamg", prefix, ptype, why, ptype, prefix);
  PetscFunctionReturn(0);
}
