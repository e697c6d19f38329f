/*
  The matrix-free operator J = cK K + cD D + cM M of a MechSystem: a MATSHELL applied through the
  model's tangent action (MechSystemSetTangentAction()), with the fixed dofs decoupled exactly as
  MechSystemComputeOperator() decouples them in the assembled matrix (their rows and columns of
  K and D zeroed, M replaced by the decoupled Mfix). A Krylov iteration with it streams the state
  vectors and whatever the model keeps from its linearization instead of every entry of an
  assembled matrix; an assembled operator can still serve as the preconditioning matrix.
*/
#include "mechimpl.h"

typedef struct {
  MechSystem sys;
  PetscReal  cK, cD, cM;
  PetscReal  cMf; /* c diag(M) on the fixed rows only (MechSystemSetOperatorShellFixedMass_Private()) */
  PetscBool  linearized;
  PetscBool  fused; /* the model's apply adds cM M itself (operatormass.c) */
  Vec        dfix;  /* with fused: the diagonal of Mfix, for the fixed rows */
} MechOperatorShell;

/*@C
  MechSystemSetTangentAction - Sets the model's own application of the tangent,
  y = (cK K + cD D) w, for matrix-free operators.

  Logically Collective

  Input Parameters:
+ sys       - the mechanical system
. linearize - called once per state (t, q, v) and coefficients
. apply     - called for every product
- ctx       - the context of both (may be NULL)

  Calling sequence of linearize:
$ PetscErrorCode linearize(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, void *ctx)
+ t, q, v - the state to linearize at
. cK, cD  - the coefficients of K and D
- ctx     - the context given here

  Calling sequence of apply:
$ PetscErrorCode apply(MechSystem sys, Vec w, Vec y, void *ctx)
+ w   - the vector to apply the tangent to
. y   - the result (cK K + cD D) w at the last linearization
- ctx - the context given here

  Level: advanced

  Notes:
  Both callbacks are given, or neither (NULL, NULL removes the action). The action must equal
  the assembled tangent of `MechSystemSetTangent()`; the system handles the fixed dofs (their
  entries of w are zeroed before apply and those of y after it), so the callbacks ignore them. A
  system holds one linearization at a time.

.seealso: `MechSystemHasTangentAction()`, `MechSystemCreateOperatorShell()`, `MechSystemLinearizeOperatorShell()`,
          `MechSystemSetTangent()`, `TSMechSetMatrixFree()`
@*/
PetscErrorCode MechSystemSetTangentAction(MechSystem sys, MechTangentLinearizeFn linearize, MechTangentApplyFn apply, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCheck(!linearize == !apply, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_NULL, "A tangent action needs both its linearize and its apply callback");
  sys->linearize = linearize;
  sys->apply     = apply;
  sys->actionctx = ctx;
  PetscFunctionReturn(0);
}

/*@
  MechSystemHasTangentAction - Tells whether the model applies its tangent without assembly.

  Not Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameter:
. has - PETSC_TRUE if `MechSystemSetTangentAction()` gave it a tangent action

  Level: advanced

.seealso: `MechSystemSetTangentAction()`, `MechSystemCreateOperatorShell()`
@*/
PetscErrorCode MechSystemHasTangentAction(MechSystem sys, PetscBool *has)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *has = sys->apply ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMult_MechOperator(Mat A, Vec w, Vec y)
{
  MechOperatorShell *sh;
  MechSystem         sys;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &sh));
  sys = sh->sys;
  PetscCheck(sh->linearized, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Call MechSystemLinearizeOperatorShell() before applying the operator");
  PetscCall(PetscLogEventBegin(MECH_Apply, sys, w, y, 0));
  if (sh->cK != 0 || sh->cD != 0) {
    Vec x = w;

    /* the argument with its fixed dofs zeroed, in the system's work vector (free outside its own calls) */
    if (sys->fixed) {
      PetscCall(VecCopy(w, sys->work));
      PetscCall(VecISSet(sys->work, sys->fixed, 0.0));
      x = sys->work;
    }
    PetscCall(MechSystemAgree(sys, (*sys->apply)(sys, x, y, sys->actionctx), "tangent action"));
    if (sys->fixed) PetscCall(VecISSet(y, sys->fixed, 0.0));
  } else PetscCall(VecZeroEntries(y));
  if (sh->cM != 0 && sh->fused) PetscCall(MechOperatorFixedMass_Private(sys, sh->cM, &sh->dfix, w, y));
  else if (sh->cM != 0) {
    if (sys->massdiag) {
      const PetscScalar *wa, *ma;
      PetscScalar       *ya;
      PetscInt           n;

      /* y += cM Mdiag .* w in one pass */
      PetscCall(VecGetLocalSize(y, &n));
      PetscCall(VecGetArrayRead(w, &wa));
      PetscCall(VecGetArrayRead(sys->Mdiag, &ma));
      PetscCall(VecGetArray(y, &ya));
      for (PetscInt i = 0; i < n; i++) ya[i] += sh->cM * ma[i] * wa[i];
      PetscCall(VecRestoreArray(y, &ya));
      PetscCall(VecRestoreArrayRead(sys->Mdiag, &ma));
      PetscCall(VecRestoreArrayRead(w, &wa));
    } else {
      PetscCall(MatMult(sys->Mfix, w, sys->work));
      PetscCall(VecAXPY(y, sh->cM, sys->work));
    }
  }
  if (sh->cMf != 0) {
    Vec m;

    /* a stage without inertia (static2): the fixed rows' own mass alone */
    PetscCall(MechSystemGetFixedMass_Private(sys, &m));
    PetscCall(VecPointwiseMult(sys->work, m, w));
    PetscCall(VecAXPY(y, sh->cMf, sys->work));
  }
  PetscCall(PetscLogEventEnd(MECH_Apply, sys, w, y, 0));
  PetscFunctionReturn(0);
}

/*
  MechSystemSetOperatorShellFixedMass_Private - The shell A then also applies cMf diag(M) on the
  fixed rows (J = cK K + cD D + cM M + cMf diag_f(M)): a stage without inertia (cM = 0) keeps its
  fixed rows' own mass as the diagonal that decouples them (static2). Set after each
  MechSystemLinearizeOperatorShell(), which does not change it.
*/
PetscErrorCode MechSystemSetOperatorShellFixedMass_Private(Mat A, PetscReal cMf)
{
  MechOperatorShell *sh;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &sh));
  PetscCheck(sh && sh->sys, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "The matrix is not an operator shell of a MechSystem (MechSystemCreateOperatorShell())");
  sh->cMf = cMf;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDestroy_MechOperatorShell(void *ctx)
{
  MechOperatorShell *sh = (MechOperatorShell *)ctx;

  PetscFunctionBegin;
  PetscCall(MechSystemDestroy(&sh->sys));
  PetscCall(VecDestroy(&sh->dfix));
  PetscCall(PetscFree(sh));
  PetscFunctionReturn(0);
}

/*@
  MechSystemCreateOperatorShell - Creates a `MATSHELL` applying J = cK K + cD D + cM M through the
  system's tangent action, without assembly.

  Collective

  Input Parameter:
. sys - the mechanical system, with a tangent action (`MechSystemSetTangentAction()`)

  Output Parameter:
. A - the new shell matrix (named "MechOperator"); it keeps a reference to sys

  Level: advanced

  Notes:
  The fixed dofs are decoupled exactly as `MechSystemComputeOperator()` decouples them in the
  assembled matrix, so A is symmetric when the tangent is. It provides only `MatMult()`:
  preconditioners that need entries take an assembled matrix (`MechSystemComputeOperator()`) as
  the preconditioning matrix. Give it a state and coefficients with
  `MechSystemLinearizeOperatorShell()` before applying it; applying it before is an error. The
  theta2 family uses it with -ts_theta_matrix_free (`TSMechSetMatrixFree()`).

.seealso: `MechSystemLinearizeOperatorShell()`, `MechSystemSetTangentAction()`, `MechSystemCreateOperator()`,
          `TSMechSetMatrixFree()`
@*/
PetscErrorCode MechSystemCreateOperatorShell(MechSystem sys, Mat *A)
{
  MechOperatorShell *sh;
  PetscInt           m, n, M, N;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(MechSystemSetUp(sys));
  PetscCheck(sys->apply, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_WRONGSTATE, "Model %s has no tangent action (MechSystemSetTangentAction()): its operator can only be assembled", sys->modelname ? sys->modelname : "(unnamed)");
  PetscCall(PetscNew(&sh));
  PetscCall(PetscObjectReference((PetscObject)sys));
  sh->sys = sys;
  PetscCall(MatGetLocalSize(sys->M, &m, &n));
  PetscCall(MatGetSize(sys->M, &M, &N));
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)sys), m, n, M, N, sh, A));
  PetscCall(MatShellSetContextDestroy(*A, MatDestroy_MechOperatorShell));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT, (void (*)(void))MatMult_MechOperator));
  PetscCall(PetscObjectSetName((PetscObject)*A, "MechOperator"));
  PetscFunctionReturn(0);
}

/*@
  MechSystemLinearizeOperatorShell - Sets the state and the coefficients at which a shell from
  `MechSystemCreateOperatorShell()` applies J = cK K + cD D + cM M.

  Collective

  Input Parameters:
+ sys - the mechanical system
. t   - the time
. q   - the position
. v   - the velocity
. cK  - the coefficient of K
. cD  - the coefficient of D (ignored for a system without damping)
. cM  - the coefficient of M
- A   - a shell of this system, from `MechSystemCreateOperatorShell()`

  Level: advanced

  Notes:
  The model's linearize callback is called unless cK and cD are both zero; it is logged as the
  event MechLinearize in the stage "Mech assembly". A is then marked as changed (assembled), so
  the `KSP` and `PC` that use it see a new operator. The linearization is the system's: a second
  shell of the same system linearized elsewhere changes what this one applies.

.seealso: `MechSystemCreateOperatorShell()`, `MechSystemComputeOperator()`, `MechSystemSetTangentAction()`
@*/
PetscErrorCode MechSystemLinearizeOperatorShell(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, Mat A)
{
  MechOperatorShell *sh;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidHeaderSpecific(A, MAT_CLASSID, 8);
  PetscCall(MatShellGetContext(A, &sh));
  PetscCheck(sh && sh->sys == sys, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "The matrix is not an operator shell of this system (MechSystemCreateOperatorShell())");
  /* the system holds this shell's linearization from now on (mgoperator.c asks) */
  PetscCall(PetscObjectGetId((PetscObject)A, &sys->linshell));
  if (!sys->hasdamping) cD = 0;
  PetscCall(PetscLogStagePush(MECH_StageAssembly));
  PetscCall(PetscLogEventBegin(MECH_Linearize, sys, q, v, 0));
  sh->fused = PETSC_FALSE;
  if (cK != 0 || cD != 0) {
    PetscCall(MechSystemMotionState(sys, t, q, v, &q, &v, NULL));
    PetscCall(MechOperatorLinearize_Private(sys, t, q, v, cK, cD, cM, &sh->fused));
  }
  PetscCall(PetscLogEventEnd(MECH_Linearize, sys, q, v, 0));
  PetscCall(PetscLogStagePop());
  sh->cK         = cK;
  sh->cD         = cD;
  sh->cM         = cM;
  sh->linearized = PETSC_TRUE;
  /* a new state for the objects that watch the operator (KSP, PC) */
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}
