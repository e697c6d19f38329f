/*
  discgrad2: an energy-momentum method for M q'' + f(t, q, q') = 0 in velocity form
  (docs/schemes.md §11; Gonzalez, J. Nonlinear Sci. 6, 1996; Simo & Tarnow, ZAMP 43, 1992)

      q+ = q + tau (v + v+)/2,    M (v+ - v) = -tau fbar(t + tau/2, q, q+, (v + v+)/2)

  fbar is the system's discrete gradient of the potential plus the non-conservative forces at the
  midpoint (MechSystemComputeDiscreteGradient()). Newton runs on v+ as in theta2, with the
  residual R(v+) = M (v+ - v) + tau fbar and the Jacobian M + tau^2/2 dfbar/dq+ + tau/2 dfbar/dv.
*/
#include "tsimpl2.h"
#include "scheme.h"
#include "../mech/mechimpl.h"
#include <petsc/private/snesimpl.h>

/* Newton's matrix: assembled (exact with the model's derivative of fbar, else the midpoint
   tangent: a linearly converging iteration), or matrix-free by differencing the residual with
   the assembled operator as preconditioning matrix; auto: exact if known, else matrix-free */
typedef enum {
  DISCGRAD2_JACOBIAN_AUTO,
  DISCGRAD2_JACOBIAN_ASSEMBLED,
  DISCGRAD2_JACOBIAN_MF
} DiscGrad2Jacobian;
static const char *const DiscGrad2Jacobians[] = {"auto", "assembled", "mf", "DiscGrad2Jacobian", "DISCGRAD2_JACOBIAN_", NULL};

typedef struct {
  TSMechStepState   st;
  Vec               V;       /* Newton unknown v+ */
  Vec               q1, vm;  /* end position and midpoint velocity of the candidate v+ */
  Vec               fbar, R; /* R: the SNES's residual vector, never a work vector (a matrix-free J keeps its base there) */
  Vec               dv;
  DiscGrad2Jacobian jactype;
  PetscBool         mf;         /* the Jacobian in use is matrix-free */
  PetscReal         rscale;     /* the step's residual scale for the round-off floor (< 0: not evaluated) */
  PetscReal         rscaleprev; /* that of the last step that evaluated one (< 0: none yet) */
  PetscReal         fnormprev;
} TS_DiscGrad2;

/* q+ and the midpoint velocity of the candidate v+ (x) */
static PetscErrorCode DiscGrad2StageVecs(TS ts, Vec x)
{
  TS_DiscGrad2 *dg = (TS_DiscGrad2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(VecAXPBYPCZ(dg->vm, 0.5, 0.5, 0.0, dg->st.v0, x));
  PetscCall(VecWAXPY(dg->q1, ts->time_step, dg->vm, dg->st.q0));
  PetscFunctionReturn(0);
}

/* R(v+) = M (v+ - v) + tau fbar(t + tau/2, q, q+, vm), M with the fixed dofs decoupled */
static PetscErrorCode SNESTSFormFunction_DiscGrad2(SNES snes, Vec x, Vec R, TS ts)
{
  TS_DiscGrad2 *dg  = (TS_DiscGrad2 *)ts->data;
  MechSystem    sys = dg->st.sys;

  PetscFunctionBegin;
  (void)snes;
  PetscCall(DiscGrad2StageVecs(ts, x));
  PetscCall(MechSystemComputeDiscreteGradient(sys, ts->ptime + 0.5 * ts->time_step, dg->st.q0, dg->q1, dg->vm, dg->fbar));
  PetscCall(VecWAXPY(dg->dv, -1.0, dg->st.v0, x));
  if (sys->massdiag) PetscCall(VecPointwiseMult(R, sys->Mdiag, dg->dv));
  else PetscCall(MatMult(sys->Mfix, dg->dv, R));
  PetscCall(VecAXPY(R, ts->time_step, dg->fbar));
  PetscFunctionReturn(0);
}

/* P = M + tau^2/2 dfbar/dq+ + tau/2 dfbar/dv at the candidate; a matrix-free J takes its base point */
static PetscErrorCode SNESTSFormJacobian_DiscGrad2(SNES snes, Vec x, Mat J, Mat P, TS ts)
{
  TS_DiscGrad2 *dg  = (TS_DiscGrad2 *)ts->data;
  PetscReal     tau = ts->time_step;

  PetscFunctionBegin;
  (void)snes;
  PetscCall(DiscGrad2StageVecs(ts, x));
  PetscCall(MechSystemComputeDiscreteGradientOperator(dg->st.sys, ts->ptime + 0.5 * tau, dg->st.q0, dg->q1, dg->vm, 0.5 * tau * tau, 0.5 * tau, 1.0, P, NULL));
  if (J != P) {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(0);
}

/*
  SNES's default test, and a residual at the round-off of its terms (TSMECH_ROUNDOFF_FACTOR eps
  times MechSystemComputeResidualScale(), as theta2, docs/solvers.md §3), so that a body at rest
  does not iterate to -snes_max_it. The scale costs two force evaluations: at most once a step, at
  the first step, near the last step's floor, or when Newton stagnates.
*/
static PetscErrorCode DiscGrad2SNESConverged(SNES snes, PetscInt it, PetscReal xnorm, PetscReal snorm, PetscReal fnorm, SNESConvergedReason *reason, void *ctx)
{
  TS            ts = (TS)ctx;
  TS_DiscGrad2 *dg = (TS_DiscGrad2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(SNESConvergedDefault(snes, it, xnorm, snorm, fnorm, reason, NULL));
  if (*reason == SNES_CONVERGED_ITERATING && !PetscIsInfOrNanReal(fnorm)) {
    /* fnorm is global: every rank decides alike */
    PetscBool near  = (dg->rscaleprev < 0 || fnorm <= TSMECH_ROUNDOFF_GATE * TSMECH_ROUNDOFF_FACTOR * PETSC_MACHINE_EPSILON * dg->rscaleprev) ? PETSC_TRUE : PETSC_FALSE;
    PetscBool stuck = (it > 0 && dg->fnormprev >= 0 && fnorm > 0.5 * dg->fnormprev) ? PETSC_TRUE : PETSC_FALSE;

    if (dg->rscale < 0 && (near || stuck)) {
      PetscCall(MechSystemComputeResidualScale(dg->st.sys, ts->ptime, dg->st.q0, dg->st.v0, ts->time_step, &dg->rscale));
      dg->rscaleprev = dg->rscale;
    }
    if (dg->rscale >= 0 && fnorm <= TSMECH_ROUNDOFF_FACTOR * PETSC_MACHINE_EPSILON * dg->rscale) {
      PetscCall(PetscInfo(snes, "Converged: residual norm %g at the round-off of its terms (residual scale %g)\n", (double)fnorm, (double)dg->rscale));
      *reason = SNES_CONVERGED_FNORM_ABS;
    }
  }
  dg->fnormprev = fnorm;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSStep_DiscGrad2(TS ts)
{
  TS_DiscGrad2 *dg = (TS_DiscGrad2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(TSMechStepBegin(ts, &dg->st));
  while (!ts->reason && dg->st.status != TS_STEP_COMPLETE) {
    PetscBool           stageok;
    PetscInt            nits, lits;
    PetscReal           t1 = ts->ptime + ts->time_step;
    SNESConvergedReason snesreason;

    PetscCall(TSPreStage(ts, ts->ptime + 0.5 * ts->time_step));
    dg->rscale    = -1;
    dg->fnormprev = -1;
    PetscCall(VecCopy(dg->st.v0, dg->V));
    PetscCall(SNESSolve(ts->snes, NULL, dg->V));
    PetscCall(SNESGetIterationNumber(ts->snes, &nits));
    PetscCall(SNESGetLinearSolveIterations(ts->snes, &lits));
    PetscCall(SNESGetConvergedReason(ts->snes, &snesreason));
    ts->snes_its += nits;
    ts->ksp_its += lits;
    /* the position always follows from v+, whatever the solver evaluated last */
    PetscCall(DiscGrad2StageVecs(ts, dg->V));
    PetscCall(TSPostStage(ts, t1, 0, &dg->q1));
    PetscCall(TSAdaptCheckStage(ts->adapt, ts, t1, dg->q1, &stageok));
    PetscCall(TSMechStepFinish(ts, &dg->st, stageok, dg->q1, dg->V));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TSEvaluateWLTE_DiscGrad2(TS ts, NormType wnormtype, PetscInt *order, PetscReal *wlte)
{
  PetscFunctionBegin;
  PetscCall(TSMechEvaluateWLTE(ts, &((TS_DiscGrad2 *)ts->data)->st, wnormtype, order, wlte));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSRollBack_DiscGrad2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSMechRollBack(ts, &((TS_DiscGrad2 *)ts->data)->st));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSReset_DiscGrad2(TS ts)
{
  TS_DiscGrad2 *dg = (TS_DiscGrad2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(TSMechStepStateReset(&dg->st));
  PetscCall(VecDestroy(&dg->V));
  PetscCall(VecDestroy(&dg->q1));
  PetscCall(VecDestroy(&dg->vm));
  PetscCall(VecDestroy(&dg->fbar));
  PetscCall(VecDestroy(&dg->R));
  PetscCall(VecDestroy(&dg->dv));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSDestroy_DiscGrad2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSReset_DiscGrad2(ts));
  PetscCall(PetscFree(ts->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSSetUp_DiscGrad2(TS ts)
{
  TS_DiscGrad2 *dg = (TS_DiscGrad2 *)ts->data;
  PetscBool     exact;
  Mat           J, P;
  const char   *model;

  PetscFunctionBegin;
  PetscCall(TSMechStepStateSetUp(ts, &dg->st, PETSC_FALSE));
  PetscCheck(dg->st.sys, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONGSTATE, "-ts_type discgrad2 needs a MechSystem (TSMechSetSystem()): a plain I2Function has no potential energy");
  PetscCall(MechSystemSetUp(dg->st.sys));
  PetscCall(MechSystemGetModelName(dg->st.sys, &model));
  if (!model) model = "(unnamed)";
  PetscCheck(!dg->st.sys->motion, PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP, "-ts_type discgrad2: model %s has a prescribed motion of its fixed dofs, which feeds energy in; not supported", model);
  PetscCheck(!dg->st.sys->nonsymwhy, PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP, "-ts_type discgrad2: model %s has a non-conservative force (%s), which has no discrete gradient", model, dg->st.sys->nonsymwhy);
  PetscCheck(dg->st.sys->discgrad || dg->st.sys->potential, PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP, "-ts_type discgrad2: model %s has neither a discrete gradient nor a potential energy", model);
  PetscCall(MechSystemGetDiscreteGradient(dg->st.sys, NULL, NULL, &exact));
  PetscCall(VecDuplicate(ts->vec_sol, &dg->V));
  PetscCall(VecDuplicate(ts->vec_sol, &dg->q1));
  PetscCall(VecDuplicate(ts->vec_sol, &dg->vm));
  PetscCall(VecDuplicate(ts->vec_sol, &dg->fbar));
  PetscCall(VecDuplicate(ts->vec_sol, &dg->R));
  PetscCall(VecDuplicate(ts->vec_sol, &dg->dv));
  PetscCall(TSMechSetUpSNES(ts, dg->R));
  if (ts->snes->ops->converged == SNESConvergedDefault) PetscCall(SNESSetConvergenceTest(ts->snes, DiscGrad2SNESConverged, ts, NULL));
  dg->rscaleprev = -1;
  dg->mf         = (dg->jactype == DISCGRAD2_JACOBIAN_MF || (dg->jactype == DISCGRAD2_JACOBIAN_AUTO && !exact)) ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(SNESGetJacobian(ts->snes, &J, &P, NULL, NULL));
  if (dg->mf) {
    PetscBool ismffd;

    PetscCall(PetscObjectTypeCompare((PetscObject)J, MATMFFD, &ismffd));
    if (!ismffd) {
      PetscCall(MatCreateSNESMF(ts->snes, &J));
      PetscCall(SNESSetJacobian(ts->snes, J, P, SNESTSFormJacobian, ts));
      PetscCall(MatDestroy(&J));
    }
  } else if (J != P) PetscCall(SNESSetJacobian(ts->snes, P, P, SNESTSFormJacobian, ts));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSSetFromOptions_DiscGrad2(TS ts, PetscOptionItems *PetscOptionsObject)
{
  TS_DiscGrad2 *dg = (TS_DiscGrad2 *)ts->data;
  PetscInt      j  = (PetscInt)dg->jactype;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Discrete gradient (energy-momentum) options");
  PetscCall(MechOptionsEList("-ts_discgrad2_jacobian", "Newton's matrix: auto (the model's exact derivative of fbar if it has one, else mf), assembled (exact or the midpoint tangent), mf (differenced, assembled preconditioning matrix)", "TSDISCGRAD2", DiscGrad2Jacobians, 3, DiscGrad2Jacobians[j], &j, NULL));
  dg->jactype = (DiscGrad2Jacobian)j;
  PetscOptionsHeadEnd();
  PetscFunctionReturn(0);
}

static PetscErrorCode TSView_DiscGrad2(TS ts, PetscViewer viewer)
{
  TS_DiscGrad2 *dg = (TS_DiscGrad2 *)ts->data;
  PetscBool     iascii;
  MechSystem    sys;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  PetscCall(TSMechGetSystem(ts, &sys));
  if (iascii) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  Discrete gradient (energy-momentum): q+ = q + tau (v + v+)/2, M (v+ - v) = -tau fbar(q, q+) - tau (dissipative forces at the midpoint)\n"));
    if (sys) {
      PetscBool has, frame, exact;

      PetscCall(MechSystemGetDiscreteGradient(sys, &has, &frame, &exact));
      if (has) PetscCall(PetscViewerASCIIPrintf(viewer, "  The model's discrete gradient: energy conserved; %s\n", frame ? "frame-invariant: linear and angular momentum conserved where the model conserves them" : "not frame-invariant: momenta not guaranteed"));
      else PetscCall(PetscViewerASCIIPrintf(viewer, "  Gonzalez's generic midpoint discrete gradient: energy conserved; momenta not guaranteed\n"));
      PetscCall(PetscViewerASCIIPrintf(viewer, "  Newton's matrix: %s (-ts_discgrad2_jacobian %s)\n", dg->mf ? "matrix-free (differenced residual), assembled preconditioning matrix" : (exact ? "assembled, exact" : "assembled midpoint tangent (approximate: linear convergence)"), DiscGrad2Jacobians[dg->jactype]));
    }
  }
  if (sys) {
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(MechSystemView(sys, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscFunctionReturn(0);
}

/*MC
  TSDISCGRAD2 - "discgrad2": an energy-momentum method for M q'' + f(t, q, q') = 0 in velocity
  form (docs/schemes.md; Gonzalez 1996, Simo & Tarnow 1992).

.vb
  q+ = q + tau (v + v+)/2,    M (v+ - v) = -tau fbar(t + tau/2, q, q+, (v + v+)/2)
.ve

  Options Database Keys:
+ -ts_type discgrad2 - selects this type
- -ts_discgrad2_jacobian <auto,assembled,mf> - Newton's matrix

  Level: intermediate

  Notes:
  fbar is the discrete gradient of the attached system (`MechSystemComputeDiscreteGradient()`):
  V(q+) - V(q) = fbar . (q+ - q), so without dissipation the total energy is conserved to the
  Newton tolerance at any step size, and with dissipation it decreases. With a frame-invariant
  discrete gradient (the spring models, Kepler) linear and angular momentum are conserved as well.
  A model without its own discrete gradient gets Gonzalez's generic midpoint one (energy only).
  Second order, implicit, one Newton solve on v+ per step. Prescribed motions and
  non-conservative loads (follower pressure) are refused.

.seealso: `TSMIDPOINT2`, `MechSystemSetDiscreteGradient()`, `MechSystemComputeDiscreteGradient()`
M*/
static PetscErrorCode TSCreate_DiscGrad2(TS ts)
{
  TS_DiscGrad2 *dg;

  PetscFunctionBegin;
  ts->ops->reset          = TSReset_DiscGrad2;
  ts->ops->destroy        = TSDestroy_DiscGrad2;
  ts->ops->view           = TSView_DiscGrad2;
  ts->ops->setup          = TSSetUp_DiscGrad2;
  ts->ops->setfromoptions = TSSetFromOptions_DiscGrad2;
  ts->ops->step           = TSStep_DiscGrad2;
  ts->ops->evaluatewlte   = TSEvaluateWLTE_DiscGrad2;
  ts->ops->rollback       = TSRollBack_DiscGrad2;
  ts->ops->snesfunction   = SNESTSFormFunction_DiscGrad2;
  ts->ops->snesjacobian   = SNESTSFormJacobian_DiscGrad2;
  ts->usessnes            = PETSC_TRUE;
  ts->default_adapt_type  = TSADAPTNONE;
  PetscCall(PetscNew(&dg));
  ts->data       = (void *)dg;
  dg->jactype    = DISCGRAD2_JACOBIAN_AUTO;
  dg->rscaleprev = -1;
  PetscFunctionReturn(0);
}

/*
  What discgrad2 reports of itself (scheme.h): implicit, order 2, second-order form; it keeps
  nothing between steps, so a restart at fixed steps continues it exactly; prescribed motions are
  refused at set-up, and its Newton forms no multigrid coarse operators itself.
*/
static PetscErrorCode DiscGrad2Properties(TS ts, TSMechProperties *p)
{
  PetscFunctionBegin;
  (void)ts;
  p->explicit_   = PETSC_FALSE;
  p->order       = 2;
  p->secondorder = PETSC_TRUE;
  p->restart     = TSMECH_RESTART_FIXED_STEP;
  p->ownfixed    = PETSC_TRUE;
  p->owncoarse   = PETSC_FALSE;
  PetscFunctionReturn(0);
}

static const char *const     DiscGrad2Types[] = {TSDISCGRAD2, NULL};
static const TSMechFamilyOps DiscGrad2Family  = {TSMECH_FAMILY_OTHER, DiscGrad2Types, PETSC_FALSE, NULL, NULL, NULL, NULL, DiscGrad2Properties, NULL, NULL};

/* The family's table (scheme.h) and its type (tsimpl2.h, "Adding a TS type") */
PetscErrorCode TSMechRegisterDiscGrad2(void)
{
  PetscFunctionBegin;
  PetscCall(TSMechSchemeRegister(&DiscGrad2Family));
  PetscCall(TSRegister(TSDISCGRAD2, TSCreate_DiscGrad2));
  PetscFunctionReturn(0);
}
