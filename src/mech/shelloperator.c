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
  PetscBool  linearized;
  Vec        wz; /* the argument with its fixed dofs zeroed */
} MechOperatorShell;

/*@C
  MechSystemSetTangentAction - Sets the model's own application of the tangent, y = (cK K + cD D) w:
  linearize is called once per state (t, q, v) and coefficients, apply for every product. It must
  agree with the assembled tangent of MechSystemSetTangent(); the system applies the fixed dofs.
  A system holds one linearization at a time.
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

/*@C
  MechSystemHasTangentAction - Whether the model applies its tangent without assembly.
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

    if (sys->fixed) {
      PetscCall(VecCopy(w, sh->wz));
      PetscCall(VecISSet(sh->wz, sys->fixed, 0.0));
      x = sh->wz;
    }
    PetscCall((*sys->apply)(sys, x, y, sys->actionctx));
    if (sys->fixed) PetscCall(VecISSet(y, sys->fixed, 0.0));
  } else PetscCall(VecZeroEntries(y));
  if (sh->cM != 0) {
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
      PetscCall(MatMult(sys->Mfix, w, sh->wz));
      PetscCall(VecAXPY(y, sh->cM, sh->wz));
    }
  }
  PetscCall(PetscLogEventEnd(MECH_Apply, sys, w, y, 0));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDestroy_MechOperatorShell(void *ctx)
{
  MechOperatorShell *sh = (MechOperatorShell *)ctx;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&sh->wz));
  PetscCall(MechSystemDestroy(&sh->sys));
  PetscCall(PetscFree(sh));
  PetscFunctionReturn(0);
}

/*@C
  MechSystemCreateOperatorShell - A MATSHELL applying J = cK K + cD D + cM M through the system's
  tangent action (MechSystemSetTangentAction()), without assembly; symmetric when the tangent is.
  MechSystemLinearizeOperatorShell() sets the state and coefficients before use.
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
  PetscCall(MatCreateVecs(sys->M, &sh->wz, NULL));
  PetscCall(MatGetLocalSize(sys->M, &m, &n));
  PetscCall(MatGetSize(sys->M, &M, &N));
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)sys), m, n, M, N, sh, A));
  PetscCall(MatShellSetContextDestroy(*A, MatDestroy_MechOperatorShell));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT, (void (*)(void))MatMult_MechOperator));
  PetscCall(PetscObjectSetName((PetscObject)*A, "MechOperator"));
  PetscFunctionReturn(0);
}

/*@C
  MechSystemLinearizeOperatorShell - Sets the state (t, q, v) and the coefficients of a shell from
  MechSystemCreateOperatorShell(): it then applies cK K + cD D + cM M at that state.
@*/
PetscErrorCode MechSystemLinearizeOperatorShell(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, Mat A)
{
  MechOperatorShell *sh;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidHeaderSpecific(A, MAT_CLASSID, 8);
  PetscCall(MatShellGetContext(A, &sh));
  PetscCheck(sh && sh->sys == sys, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "The matrix is not an operator shell of this system (MechSystemCreateOperatorShell())");
  if (!sys->hasdamping) cD = 0;
  PetscCall(PetscLogStagePush(MECH_StageAssembly));
  PetscCall(PetscLogEventBegin(MECH_Linearize, sys, q, v, 0));
  if (cK != 0 || cD != 0) PetscCall((*sys->linearize)(sys, t, q, v, cK, cD, sys->actionctx));
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
