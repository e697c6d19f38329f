/*
  discgrad2: an energy-momentum method for M q'' + f(t, q, q') = 0 in velocity form
  (docs/schemes.md §11; Gonzalez, J. Nonlinear Sci. 6, 1996; Simo & Tarnow, ZAMP 43, 1992)

      q+ = q + tau (v + v+)/2,    M (v+ - v) = -tau fbar(t + tau/2, q, q+, (v + v+)/2)

  fbar is the system's discrete gradient of the potential plus the non-conservative forces at the
  midpoint (MechSystemComputeDiscreteGradient()). Newton runs on v+ as in theta2, with the
  residual R(v+) = M (v+ - v) + tau fbar and the Jacobian M + tau^2/2 dfbar/dq+ + tau/2 dfbar/dv,
  through the shared Newton object (newton2.c, docs/solvers.md §7): the type gives it that exact
  Jacobian (TSMechNewtonSetJacobianFunction()) and, as its stage, the one-stage operator
  M + tau/2 D + tau^2/4 K at the midpoint, the matrix-free mode's preconditioning matrix.
*/
#include "tsimpl2.h"
#include "scheme.h"
#include "../mech/mechimpl.h"
#include <petsc/private/snesimpl.h>

/* Newton's matrix: assembled (exact with the model's derivative of fbar, else the midpoint
   tangent: a linearly converging iteration), or matrix-free by differencing the residual with
   the midpoint's one-stage operator as the (lagged) preconditioning matrix; auto: exact if known,
   else matrix-free */
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
  Vec               qm;      /* midpoint position, the stage of the preconditioning matrix */
  Vec               fbar, R; /* R: the SNES's residual vector, never a work vector (a matrix-free J keeps its base there) */
  Vec               dv;
  Vec               xhat, dvp; /* a prescribed motion: the v+ that puts q+ at g(t + tau), g'(t + tau) - v (fixed entries) */
  PetscReal         xhat_t, xhat_tau;
  DiscGrad2Jacobian jactype;
  PetscBool         mf;     /* the Jacobian in use is matrix-free */
  TSMechNewton      newton; /* options -ts_discgrad2_matrix_free, -ts_discgrad2_pc_definite, ... */
} TS_DiscGrad2;

/*
  A prescribed motion g(t) of the fixed dofs: the step holds them at g(t) and g(t + tau), its ends
  (the discrete gradient is then between the states the body takes), so their midpoint velocity is
  (g(t + tau) - q)/tau and their unknown x^ = 2 (g(t + tau) - q)/tau - v; their inertia on the free
  rows is M_fc (g'(t + tau) - v)_c / tau, the change of the velocities the step ends with: the energy
  the motion feeds in is then exactly the work of the reactions (src/ts/balance.c). Once per step.
*/
static PetscErrorCode DiscGrad2PrescribedMotion(TS ts)
{
  TS_DiscGrad2 *dg  = (TS_DiscGrad2 *)ts->data;
  PetscReal     tau = ts->time_step;

  PetscFunctionBegin;
  if (dg->xhat_t == ts->ptime && dg->xhat_tau == tau) PetscFunctionReturn(0);
  PetscCall(VecCopy(dg->st.q0, dg->xhat));
  PetscCall(MechSystemComputeFixedMotion(dg->st.sys, ts->ptime + tau, dg->xhat, dg->dvp, NULL));
  PetscCall(VecAXPBYPCZ(dg->xhat, -2 / tau, -1, 2 / tau, dg->st.q0, dg->st.v0));
  PetscCall(VecAXPY(dg->dvp, -1, dg->st.v0));
  dg->xhat_t   = ts->ptime;
  dg->xhat_tau = tau;
  PetscFunctionReturn(0);
}

/* y = (u - w) / d on the fixed entries (fixed, the system's IS), the others kept */
static PetscErrorCode DiscGrad2SetFixed(IS fixed, Vec y, Vec u, Vec w, PetscReal d)
{
  const PetscInt    *idx;
  const PetscScalar *ua, *wa;
  PetscScalar       *ya;
  PetscInt           n, rstart;

  PetscFunctionBegin;
  PetscCall(ISGetLocalSize(fixed, &n));
  PetscCall(ISGetIndices(fixed, &idx));
  PetscCall(VecGetOwnershipRange(y, &rstart, NULL));
  PetscCall(VecGetArrayRead(u, &ua));
  PetscCall(VecGetArrayRead(w, &wa));
  PetscCall(VecGetArray(y, &ya));
  for (PetscInt k = 0; k < n; k++) ya[idx[k] - rstart] = (ua[idx[k] - rstart] - wa[idx[k] - rstart]) / d;
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(VecRestoreArrayRead(w, &wa));
  PetscCall(VecRestoreArrayRead(u, &ua));
  PetscCall(ISRestoreIndices(fixed, &idx));
  PetscFunctionReturn(0);
}

/* q+ and the midpoint velocity of the candidate v+ (x); a prescribed motion's fixed dofs at its ends */
static PetscErrorCode DiscGrad2StageVecs(TS ts, Vec x)
{
  TS_DiscGrad2 *dg = (TS_DiscGrad2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(VecAXPBYPCZ(dg->vm, 0.5, 0.5, 0.0, dg->st.v0, x));
  PetscCall(VecWAXPY(dg->q1, ts->time_step, dg->vm, dg->st.q0));
  if (dg->xhat) {
    PetscCall(DiscGrad2PrescribedMotion(ts));
    PetscCall(MechSystemComputeFixedMotion(dg->st.sys, ts->ptime + ts->time_step, dg->q1, NULL, NULL));
    /* the fixed dofs' midpoint velocity (q+ - q)/tau, their q+ prescribed */
    PetscCall(DiscGrad2SetFixed(dg->st.sys->fixed, dg->vm, dg->q1, dg->st.q0, ts->time_step));
  }
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
  /* a prescribed motion: the fixed rows m (x - x^) vanish at x^ (the operator's decoupled rows) */
  if (dg->xhat) PetscCall(DiscGrad2SetFixed(sys->fixed, dg->dv, x, dg->xhat, 1));
  if (sys->massdiag) PetscCall(VecPointwiseMult(R, sys->Mdiag, dg->dv));
  else PetscCall(MatMult(sys->Mfix, dg->dv, R));
  PetscCall(VecAXPY(R, ts->time_step, dg->fbar));
  /* and their inertia on the free rows, M_fc (g'(t + tau) - v)_c */
  if (dg->xhat && sys->Mcouple) {
    PetscCall(MatMult(sys->Mcouple, dg->dvp, dg->fbar));
    PetscCall(VecISSet(dg->fbar, sys->fixed, 0.0));
    PetscCall(VecAXPY(R, 1.0, dg->fbar));
  }
  PetscFunctionReturn(0);
}

/* The exact Jacobian M + tau^2/2 dfbar/dq+ + tau/2 dfbar/dv at the candidate x, into A (TSMechNewtonJacobianFn) */
static PetscErrorCode DiscGrad2ExactJacobian(void *ctx, Vec x, Mat A)
{
  TS            ts  = (TS)ctx;
  TS_DiscGrad2 *dg  = (TS_DiscGrad2 *)ts->data;
  PetscReal     tau = ts->time_step;

  PetscFunctionBegin;
  PetscCall(DiscGrad2StageVecs(ts, x));
  PetscCall(MechSystemComputeDiscreteGradientOperator(dg->st.sys, ts->ptime + 0.5 * tau, dg->st.q0, dg->q1, dg->vm, 0.5 * tau * tau, 0.5 * tau, 1.0, A, NULL));
  PetscFunctionReturn(0);
}

/* The stage of the preconditioning matrix (TSMechNewtonStageFn): M + tau/2 D + tau^2/4 K at the
   midpoint of the candidate x, the operator of the midpoint rule, to which the exact Jacobian tends */
static PetscErrorCode DiscGrad2Stage(void *ctx, Vec x, TSMechNewtonStage *s)
{
  TS            ts  = (TS)ctx;
  TS_DiscGrad2 *dg  = (TS_DiscGrad2 *)ts->data;
  PetscReal     tau = ts->time_step;

  PetscFunctionBegin;
  PetscCall(DiscGrad2StageVecs(ts, x));
  PetscCall(VecAXPBYPCZ(dg->qm, 0.5, 0.5, 0.0, dg->st.q0, dg->q1));
  s->t  = ts->ptime + 0.5 * tau;
  s->q  = dg->qm;
  s->v  = dg->vm;
  s->a  = NULL;
  s->cK = 0.25 * tau * tau;
  s->cD = 0.5 * tau;
  s->cM = 1.0;
  PetscFunctionReturn(0);
}

/* The Newton object's: the EW safeguard, the exact or differenced J and the preconditioning matrix */
static PetscErrorCode SNESTSFormJacobian_DiscGrad2(SNES snes, Vec x, Mat J, Mat P, TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSMechNewtonSNESJacobian(snes, x, J, P, ((TS_DiscGrad2 *)ts->data)->newton));
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
    /* the round-off floor starts afresh; no tolerance scaling: the guess is v itself */
    PetscCall(TSMechNewtonPreSolve(dg->newton, dg->st.q0, dg->st.v0, NULL, dg->V));
    PetscCall(VecCopy(dg->st.v0, dg->V));
    PetscCall(SNESSolve(ts->snes, NULL, dg->V));
    PetscCall(SNESGetIterationNumber(ts->snes, &nits));
    PetscCall(SNESGetLinearSolveIterations(ts->snes, &lits));
    PetscCall(SNESGetConvergedReason(ts->snes, &snesreason));
    ts->snes_its += nits;
    ts->ksp_its += lits;
    PetscCall(TSMechNewtonPostSolve(dg->newton, nits, lits, snesreason > 0 ? PETSC_TRUE : PETSC_FALSE));
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
  PetscCall(TSMechNewtonReset(dg->newton));
  PetscCall(VecDestroy(&dg->V));
  PetscCall(VecDestroy(&dg->q1));
  PetscCall(VecDestroy(&dg->vm));
  PetscCall(VecDestroy(&dg->qm));
  PetscCall(VecDestroy(&dg->fbar));
  PetscCall(VecDestroy(&dg->R));
  PetscCall(VecDestroy(&dg->dv));
  PetscCall(VecDestroy(&dg->xhat));
  PetscCall(VecDestroy(&dg->dvp));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSDestroy_DiscGrad2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSReset_DiscGrad2(ts));
  PetscCall(TSMechNewtonDestroy(&((TS_DiscGrad2 *)ts->data)->newton));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSMechGetNewton_C", NULL));
  PetscCall(PetscFree(ts->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSSetUp_DiscGrad2(TS ts)
{
  TS_DiscGrad2 *dg = (TS_DiscGrad2 *)ts->data;
  PetscBool     exact, ne;
  const char   *model;

  PetscFunctionBegin;
  PetscCall(TSMechStepStateSetUp(ts, &dg->st, PETSC_FALSE));
  PetscCheck(dg->st.sys, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONGSTATE, "-ts_type discgrad2 needs a MechSystem (TSMechSetSystem()): a plain I2Function has no potential energy");
  PetscCall(MechSystemSetUp(dg->st.sys));
  PetscCall(MechSystemGetModelName(dg->st.sys, &model));
  if (!model) model = "(unnamed)";
  PetscCheck(!dg->st.sys->motion || dg->st.sys->discgrad, PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP, "-ts_type discgrad2: model %s has a prescribed motion of its fixed dofs but no discrete gradient of its own; not supported", model);
  PetscCheck(!dg->st.sys->nonsymwhy, PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP, "-ts_type discgrad2: model %s has a non-conservative force (%s), which has no discrete gradient", model, dg->st.sys->nonsymwhy);
  PetscCheck(dg->st.sys->discgrad || dg->st.sys->potential, PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP, "-ts_type discgrad2: model %s has neither a discrete gradient nor a potential energy", model);
  PetscCall(MechSystemGetDiscreteGradient(dg->st.sys, NULL, NULL, &exact));
  PetscCall(VecDuplicate(ts->vec_sol, &dg->V));
  PetscCall(VecDuplicate(ts->vec_sol, &dg->q1));
  PetscCall(VecDuplicate(ts->vec_sol, &dg->vm));
  PetscCall(VecDuplicate(ts->vec_sol, &dg->qm));
  PetscCall(VecDuplicate(ts->vec_sol, &dg->fbar));
  PetscCall(VecDuplicate(ts->vec_sol, &dg->R));
  PetscCall(VecDuplicate(ts->vec_sol, &dg->dv));
  if (dg->st.sys->motion && dg->st.sys->fixed) {
    PetscCall(VecDuplicate(ts->vec_sol, &dg->xhat));
    PetscCall(VecDuplicate(ts->vec_sol, &dg->dvp));
    dg->xhat_t = PETSC_MIN_REAL;
  }
  PetscCall(TSMechSetUpSNES(ts, dg->R));
  dg->mf = (dg->jactype == DISCGRAD2_JACOBIAN_MF || (dg->jactype == DISCGRAD2_JACOBIAN_AUTO && !exact)) ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(TSMechNewtonSetMatrixFree(dg->newton, dg->mf, PETSC_DEFAULT));
  PetscCall(TSMechNewtonGetNonlinearElimination(dg->newton, &ne, NULL, NULL));
  PetscCheck(!ne, PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP, "-ts_discgrad2_ne: nonlinear elimination solves stages of the form M a + f(t, q, v) (theta2); discgrad2's residual has the discrete gradient");
  /* the round-off floor, the matrix-free J or the separate semidefinite preconditioning matrix */
  PetscCall(TSMechNewtonSetUp(dg->newton, dg->st.sys, TSMECH_NEWTON_FULL, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSSetFromOptions_DiscGrad2(TS ts, PetscOptionItems *PetscOptionsObject)
{
  TS_DiscGrad2 *dg = (TS_DiscGrad2 *)ts->data;
  PetscInt      j  = (PetscInt)dg->jactype;
  PetscBool     mf;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Discrete gradient (energy-momentum) options");
  PetscCall(MechOptionsEList("-ts_discgrad2_jacobian", "Newton's matrix: auto (the model's exact derivative of fbar if it has one, else mf), assembled (exact or the midpoint tangent), mf (differenced residual, the midpoint's one-stage operator as lagged preconditioning matrix)", "TSDISCGRAD2", DiscGrad2Jacobians, 3, DiscGrad2Jacobians[j], &j, NULL));
  dg->jactype = (DiscGrad2Jacobian)j;
  /* the Newton object's options under -ts_discgrad2_; its -ts_discgrad2_matrix_free is -ts_discgrad2_jacobian mf */
  PetscCall(TSMechNewtonSetMatrixFree(dg->newton, PETSC_FALSE, PETSC_DEFAULT));
  PetscCall(TSMechNewtonSetFromOptions(dg->newton, PetscOptionsObject));
  PetscOptionsHeadEnd();
  PetscCall(TSMechNewtonGetMatrixFree(dg->newton, &mf, NULL, NULL));
  PetscCheck(!mf || dg->jactype != DISCGRAD2_JACOBIAN_ASSEMBLED, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_INCOMP, "-ts_discgrad2_matrix_free contradicts -ts_discgrad2_jacobian assembled");
  if (mf) dg->jactype = DISCGRAD2_JACOBIAN_MF;
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
      PetscCall(PetscViewerASCIIPrintf(viewer, "  Newton's matrix: %s (-ts_discgrad2_jacobian %s)\n", dg->mf ? "matrix-free (differenced residual), the midpoint's one-stage operator M + tau/2 D + tau^2/4 K as preconditioning matrix" : (exact ? "assembled, exact" : "assembled midpoint tangent (approximate: linear convergence)"), DiscGrad2Jacobians[dg->jactype]));
    }
  }
  PetscCall(TSMechNewtonView(dg->newton, TSMECH_NEWTON_FULL, viewer));
  if (sys) {
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(MechSystemView(sys, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscFunctionReturn(0);
}

/* The Newton object, for the settings every implicit type shares (newtonapi.c) */
static PetscErrorCode TSMechGetNewton_DiscGrad2(TS ts, TSMechNewton *newton)
{
  PetscFunctionBegin;
  *newton = ((TS_DiscGrad2 *)ts->data)->newton;
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
. -ts_discgrad2_jacobian <auto,assembled,mf> - Newton's matrix: assembled is the model's exact derivative of
    fbar (else the midpoint tangent, which converges linearly); mf differences the residual (PETSc's MFFD)
    with the midpoint's one-stage operator M + tau/2 D + tau^2/4 K as preconditioning matrix, assembled
    again only when the linear iterations grow: exact Newton for any fbar; auto: assembled where the
    derivative is known, else mf. The exact derivative is not symmetric: GMRES is the safe Krylov method
. -ts_discgrad2_matrix_free <false> - the same as -ts_discgrad2_jacobian mf (the shared Newton object's name)
. -ts_discgrad2_pc_rebuild_growth <1.1> - with mf: assemble the preconditioning matrix again when the linear
    iterations per Newton iteration exceed this factor times those after the last assembly (0: every Newton iteration)
. -ts_discgrad2_pc_definite <false> - the preconditioning matrix from the model's semidefinite tangent
    (compressed springs clamped), the Jacobian exact
. -ts_discgrad2_pc_reduced <false> - with mf: the preconditioning matrix of the model's reduced pattern
    (nearest-neighbour couplings): less memory, more linear iterations
. -ts_discgrad2_pc_lag_coarse <true> - with mf and -pc_type mg: a rebuild for growing iterations renews the finest
    level only (as -ts_theta_pc_lag_coarse)
- -ts_discgrad2_ew_safeguard <0.5> - with -snes_ksp_ew: a linear solve stops once its residual is below this
    fraction of Newton's tolerance (Kelley's safeguard against oversolving; 0: off)

  Level: intermediate

  Notes:
  fbar is the discrete gradient of the attached system (`MechSystemComputeDiscreteGradient()`):
  V(q+) - V(q) = fbar . (q+ - q), so without dissipation the total energy is conserved to the
  Newton tolerance at any step size, and with dissipation it decreases. With a frame-invariant
  discrete gradient (the spring models, Kepler) linear and angular momentum are conserved as well.
  A model without its own discrete gradient gets Gonzalez's generic midpoint one (energy only).
  Second order, implicit, one Newton solve on v+ per step. Prescribed motions and
  non-conservative loads (follower pressure) are refused. These are the options of the shared Newton
  object (docs/solvers.md §7), with the meaning of theta2's; -ts_discgrad2_ne is refused. Fixed steps or
  -ts_adapt_type basic; a checkpoint restarts it bit for bit at fixed steps (to the solver tolerance with
  mf, whose lagged preconditioning matrix is assembled anew), as at a first step with basic.

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
  /* a failed step is retried with a smaller one (bitwise fixed steps otherwise) */
  ts->default_adapt_type = TSADAPTINCREMENT;
  PetscCall(PetscNew(&dg));
  ts->data    = (void *)dg;
  dg->jactype = DISCGRAD2_JACOBIAN_AUTO;
  PetscCall(TSMechNewtonCreate(ts, "ts_discgrad2_", &dg->newton));
  /* no nonlinear elimination (its patch solves M a + f, not the discrete gradient); tau, not theta tau */
  PetscCall(TSMechNewtonSetType(dg->newton, TSDISCGRAD2, TSMECH_NEWTON_FEATURE_LAG_COARSE));
  PetscCall(TSMechNewtonSetStageFunction(dg->newton, DiscGrad2Stage, ts));
  PetscCall(TSMechNewtonSetJacobianFunction(dg->newton, DiscGrad2ExactJacobian, ts));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSMechGetNewton_C", TSMechGetNewton_DiscGrad2));
  PetscFunctionReturn(0);
}

/*
  What discgrad2 reports of itself (scheme.h): implicit, order 2, second-order form; it keeps
  nothing between steps, so a restart at fixed steps continues it exactly (to the solver tolerance
  where the Newton object's lagged preconditioner is assembled anew); prescribed motions are
  refused at set-up, and the Newton object forms the multigrid coarse operators itself.
*/
static PetscErrorCode DiscGrad2Properties(TS ts, TSMechProperties *p)
{
  TS_DiscGrad2 *dg = (TS_DiscGrad2 *)ts->data;

  PetscFunctionBegin;
  p->explicit_   = PETSC_FALSE;
  p->order       = 2;
  p->secondorder = PETSC_TRUE;
  p->restart     = TSMECH_RESTART_FIXED_STEP;
  p->ownfixed    = PETSC_TRUE;
  p->owncoarse   = PETSC_TRUE;
  if (ts->problem_type != TS_LINEAR) PetscCall(TSMechNewtonRestartNote(dg->newton, p->restartnote, sizeof(p->restartnote)));
  PetscFunctionReturn(0);
}

static const char *const DiscGrad2Types[]        = {TSDISCGRAD2, NULL};
static const char *const DiscGrad2Descriptions[] = {"discrete gradient (energy-momentum) method: conserves the energy of conservative systems (order 2)", NULL};
static const char *const DiscGrad2Valued[]       = {"-ts_discgrad2_jacobian", TSMECH_NEWTON_VALUED_OPTIONS("ts_discgrad2_"), TSMECH_INCREMENT_VALUED_OPTIONS, NULL};
/*
  The force of the last step (scheme.h): the discrete gradient between q and q+ at the midpoint
  velocity and time, recomputed from the converged v+; a prescribed motion's inertia is M_fc times
  the change of the velocities (DiscGrad2PrescribedMotion())
*/
static PetscErrorCode DiscGrad2StepEval(TS ts, TSMechStepEval *e)
{
  TS_DiscGrad2   *dg    = (TS_DiscGrad2 *)ts->data;
  const PetscReal ptime = ts->ptime, dt = ts->time_step;

  PetscFunctionBegin;
  ts->ptime     = e->t0;
  ts->time_step = e->tau;
  PetscCall(DiscGrad2StageVecs(ts, dg->V));
  ts->ptime     = ptime;
  ts->time_step = dt;
  PetscCall(TSMechStepEvalAt(e, 0, e->t0 + 0.5 * e->tau, 1, dg->q1, dg->vm));
  e->discgrad         = PETSC_TRUE;
  e->finitedifference = PETSC_TRUE;
  e->exact            = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static const TSMechFamilyOps DiscGrad2Family = {TSMECH_FAMILY_OTHER, DiscGrad2Types, PETSC_FALSE, NULL, NULL, NULL, NULL, DiscGrad2Properties, NULL, NULL, DiscGrad2Descriptions, DiscGrad2Valued, DiscGrad2StepEval};

/* The family's table (scheme.h) and its type (tsimpl2.h, "Adding a TS type") */
PetscErrorCode TSMechRegisterDiscGrad2(void)
{
  PetscFunctionBegin;
  PetscCall(TSMechSchemeRegister(&DiscGrad2Family));
  PetscCall(TSRegister(TSDISCGRAD2, TSCreate_DiscGrad2));
  PetscFunctionReturn(0);
}
