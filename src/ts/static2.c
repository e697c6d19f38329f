/*
  static2: quasi-static analysis of M q'' + f(t, q, q') = 0 (docs/schemes.md §12). Time is a load
  parameter: each step solves the equilibrium of the loads and prescribed motions at its end,

      f(t + tau, q+, 0) = 0,

  with no inertia and no damping. Newton runs on the increment's rate x = (q+ - q)/tau, the
  velocity the state holds afterwards, as the dynamic types run on v+, through the shared Newton
  object (newton2.c, docs/solvers.md §7):

      R(x) = tau f(t + tau, q + tau x, 0)  on the free dofs,   m_ii (x_i - x^_i)  on the fixed ones
      J    = tau^2 K + diag_f(M)                                (cK = tau^2, cMf = 1: the stage has no mass term)

  x^ is the prescribed rate of the fixed dofs, (g(t + tau) - q)/tau; the stage holds them there
  whatever the iterate says, so their rows are decoupled and exact after one iteration. R is
  beuler2's residual without the inertia M (v+ - v) and with f at rest, so the tolerances, the
  round-off floor and the preconditioners behave alike. Every evaluation is at rest
  (MechSystemSetAtRest_Private()): the moving supports bring no inertia and no velocity.

  A tangent that is singular at the start (rigid motions the constraints leave free) is refused
  at set-up, naming them (MechSystemGetFreeMotions()).
*/
#include "tsimpl2.h"
#include "scheme.h"
#include "../mech/mechimpl.h"

typedef struct {
  TSMechStepState st;
  TSMechNewton    newton;  /* options -ts_static2_matrix_free, ... */
  Vec             V;       /* the Newton unknown x = (q+ - q)/tau */
  Vec             q1;      /* q + tau x, the fixed dofs at their prescribed rate */
  Vec             zero;    /* the velocity of every evaluation */
  Vec             xhat;    /* the fixed dofs' prescribed rate (g(t + tau) - q)/tau, zero elsewhere */
  Vec             R, w, u; /* R: the SNES's residual vector (never a work vector); w, u: work */
  PetscReal       xhat_t, xhat_tau;
  PetscBool       extrapolate; /* Newton starts from q + tau v (the last increment's rate), not q */
  PetscBool       haseq;       /* the equilibrium of the last accepted step is known */
  PetscReal       eqtime, eqres, eqload;
} TS_Static2;

/* x^ for this step and step size: the fixed dofs' rate to their prescribed position at t + tau */
static PetscErrorCode Static2PrescribedRate(TS ts)
{
  TS_Static2 *sq  = (TS_Static2 *)ts->data;
  MechSystem  sys = sq->st.sys;
  PetscReal   tau = ts->time_step;

  PetscFunctionBegin;
  if (sq->xhat_t == ts->ptime && sq->xhat_tau == tau) PetscFunctionReturn(0);
  PetscCall(VecZeroEntries(sq->xhat));
  if (sys->fixed) {
    /* g(t + tau) in the fixed entries of w (the held position without a motion), then (g - q)/tau */
    PetscCall(VecCopy(sq->st.q0, sq->w));
    PetscCall(MechSystemComputeFixedMotion(sys, ts->ptime + tau, sq->w, NULL, NULL));
    PetscCall(VecAXPY(sq->w, -1.0, sq->st.q0));
    PetscCall(VecScale(sq->w, 1.0 / tau));
    PetscCall(MechSystemCopyFixed_Private(sys, sq->w, sq->xhat));
  }
  sq->xhat_t   = ts->ptime;
  sq->xhat_tau = tau;
  PetscFunctionReturn(0);
}

/* x with its fixed entries at x^ (in place) */
static PetscErrorCode Static2HoldFixed(TS ts, Vec x)
{
  TS_Static2 *sq = (TS_Static2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(Static2PrescribedRate(ts));
  PetscCall(MechSystemCopyFixed_Private(sq->st.sys, sq->xhat, x));
  PetscFunctionReturn(0);
}

/* q1 = q + tau x with the fixed dofs at their prescribed rate */
static PetscErrorCode Static2StageVecs(TS ts, Vec x)
{
  TS_Static2 *sq  = (TS_Static2 *)ts->data;
  MechSystem  sys = sq->st.sys;

  PetscFunctionBegin;
  PetscCall(VecWAXPY(sq->q1, ts->time_step, x, sq->st.q0));
  if (sys->fixed) {
    PetscCall(Static2PrescribedRate(ts));
    PetscCall(VecWAXPY(sq->w, ts->time_step, sq->xhat, sq->st.q0));
    PetscCall(MechSystemCopyFixed_Private(sys, sq->w, sq->q1));
  }
  PetscFunctionReturn(0);
}

/* R(x) = tau f(t + tau, q + tau x, 0) on the free rows, m_ii (x_i - x^_i) on the fixed ones */
static PetscErrorCode SNESTSFormFunction_Static2(SNES snes, Vec x, Vec R, TS ts)
{
  TS_Static2 *sq  = (TS_Static2 *)ts->data;
  MechSystem  sys = sq->st.sys;

  PetscFunctionBegin;
  (void)snes;
  PetscCall(Static2StageVecs(ts, x));
  PetscCall(MechSystemComputeForce(sys, ts->ptime + ts->time_step, sq->q1, sq->zero, R));
  PetscCall(VecScale(R, ts->time_step));
  if (sys->fixed) {
    Vec m;

    PetscCall(MechSystemGetFixedMass_Private(sys, &m));
    PetscCall(VecWAXPY(sq->w, -1.0, sq->xhat, x));
    PetscCall(VecPointwiseMult(sq->w, sq->w, m));
    PetscCall(VecAXPY(R, 1.0, sq->w));
  }
  PetscFunctionReturn(0);
}

/* The stage operator at the iterate x (TSMechNewtonStageFn): tau^2 K at q + tau x, and the fixed rows' own mass */
static PetscErrorCode Static2Stage(void *ctx, Vec x, TSMechNewtonStage *s)
{
  TS          ts  = (TS)ctx;
  TS_Static2 *sq  = (TS_Static2 *)ts->data;
  PetscReal   tau = ts->time_step;

  PetscFunctionBegin;
  PetscCall(Static2StageVecs(ts, x));
  s->t   = ts->ptime + tau;
  s->q   = sq->q1;
  s->v   = sq->zero;
  s->a   = NULL;
  s->cK  = tau * tau;
  s->cD  = 0;
  s->cM  = 0;
  s->cMf = 1;
  PetscFunctionReturn(0);
}

/*
  The incremental potential at x (the line search "potential", linesearch2.c): the potential energy
  at the step's end and the fixed rows' quadratic,
    Phi(x) = V(t + tau, q + tau x) + 1/2 (x - x^)^T diag_f(M) (x - x^),
  whose gradient is R (tau f on the free rows, m_ii (x_i - x^_i) on the fixed ones); none for a
  model without a potential or with a follower load
*/
static PetscBool Static2HasMerit(MechSystem sys)
{
  return (sys && sys->potential && !sys->nonsymwhy) ? PETSC_TRUE : PETSC_FALSE;
}

static PetscErrorCode Static2Merit(TS ts, Vec x, PetscBool *has, PetscReal *phi)
{
  TS_Static2 *sq   = (TS_Static2 *)ts->data;
  MechSystem  sys  = sq->st.sys;
  PetscScalar held = 0;

  PetscFunctionBegin;
  *has = Static2HasMerit(sys);
  if (!*has) PetscFunctionReturn(0);
  PetscCall(Static2StageVecs(ts, x));
  PetscCall(MechSystemComputeEnergy(sys, ts->ptime + ts->time_step, sq->q1, sq->zero, NULL, phi));
  if (sys->fixed) {
    Vec m;

    PetscCall(MechSystemGetFixedMass_Private(sys, &m));
    PetscCall(VecWAXPY(sq->w, -1.0, sq->xhat, x));
    PetscCall(VecPointwiseMult(sq->u, sq->w, m));
    PetscCall(VecDot(sq->w, sq->u, &held));
  }
  *phi += 0.5 * PetscRealPart(held);
  PetscFunctionReturn(0);
}

static PetscErrorCode SNESTSFormJacobian_Static2(SNES snes, Vec x, Mat J, Mat P, TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSMechNewtonSNESJacobian(snes, x, J, P, ((TS_Static2 *)ts->data)->newton));
  PetscFunctionReturn(0);
}

/* After an accepted step: |f(t, q, 0)| from Newton's last residual (free rows, divided by tau) and the load |f(t, X, 0)| */
static PetscErrorCode Static2RecordEquilibrium(TS ts, PetscReal t1)
{
  TS_Static2 *sq  = (TS_Static2 *)ts->data;
  MechSystem  sys = sq->st.sys;
  Vec         F;

  PetscFunctionBegin;
  PetscCall(SNESGetFunction(ts->snes, &F, NULL, NULL));
  PetscCall(VecCopy(F, sq->w));
  if (sys->fixed) PetscCall(VecISSet(sq->w, sys->fixed, 0.0));
  PetscCall(VecNorm(sq->w, NORM_2, &sq->eqres));
  sq->eqres /= ts->time_step;
  PetscCall(MechSystemComputeEquilibrium(sys, t1, sq->q1, NULL, &sq->eqload));
  sq->eqtime = t1;
  sq->haseq  = PETSC_TRUE;
  PetscCall(PetscInfo(ts, "Equilibrium at t = %g: |f(t, q, 0)| = %g, %g of the load |f(t, X, 0)| = %g\n", (double)t1, (double)sq->eqres, sq->eqload > 0 ? (double)(sq->eqres / sq->eqload) : 0.0, (double)sq->eqload));
  PetscFunctionReturn(0);
}

/* One step, evaluated at rest */
static PetscErrorCode Static2Step(TS ts)
{
  TS_Static2 *sq = (TS_Static2 *)ts->data;

  PetscFunctionBegin;
  /* automatic incrementation lands the step on the next kink of the loads' time functions */
  if (!ts->steprollback) PetscCall(TSMechAdaptLand(ts));
  PetscCall(TSMechStepBegin(ts, &sq->st));
  sq->xhat_tau = 0; /* the prescribed rate from this step's start */
  while (!ts->reason && sq->st.status != TS_STEP_COMPLETE) {
    PetscBool           stageok;
    PetscInt            nits, lits;
    PetscReal           t1 = ts->ptime + ts->time_step;
    SNESConvergedReason snesreason;

    PetscCall(TSPreStage(ts, t1));
    /* an extrapolated guess: Newton's tolerance from the residual at q itself (TSMechNewtonPreSolve()) */
    PetscCall(TSMechNewtonPreSolve(sq->newton, sq->st.q0, sq->zero, sq->extrapolate ? sq->zero : NULL, sq->V));
    if (sq->extrapolate) PetscCall(VecCopy(sq->st.v0, sq->V));
    else PetscCall(VecZeroEntries(sq->V));
    PetscCall(Static2HoldFixed(ts, sq->V));
    PetscCall(SNESSolve(ts->snes, NULL, sq->V));
    PetscCall(SNESGetIterationNumber(ts->snes, &nits));
    PetscCall(SNESGetLinearSolveIterations(ts->snes, &lits));
    PetscCall(SNESGetConvergedReason(ts->snes, &snesreason));
    ts->snes_its += nits;
    ts->ksp_its += lits;
    PetscCall(TSMechNewtonPostSolve(sq->newton, nits, lits, snesreason > 0 ? PETSC_TRUE : PETSC_FALSE));
    /* the position always follows from x, with the fixed dofs exactly at their rate */
    PetscCall(Static2HoldFixed(ts, sq->V));
    PetscCall(Static2StageVecs(ts, sq->V));
    PetscCall(TSPostStage(ts, t1, 0, &sq->q1));
    PetscCall(TSAdaptCheckStage(ts->adapt, ts, t1, sq->q1, &stageok));
    PetscCall(TSMechStepFinish(ts, &sq->st, stageok, sq->q1, sq->V));
    if (sq->st.status == TS_STEP_COMPLETE) PetscCall(Static2RecordEquilibrium(ts, t1));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TSStep_Static2(TS ts)
{
  TS_Static2    *sq = (TS_Static2 *)ts->data;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  /* at rest for the whole step (Newton's convergence test evaluates forces too), and back after it */
  PetscCall(MechSystemSetAtRest_Private(sq->st.sys, PETSC_TRUE));
  ierr = Static2Step(ts);
  PetscCall(MechSystemSetAtRest_Private(sq->st.sys, PETSC_FALSE));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

static PetscErrorCode TSRollBack_Static2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSMechRollBack(ts, &((TS_Static2 *)ts->data)->st));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSReset_Static2(TS ts)
{
  TS_Static2 *sq = (TS_Static2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(TSMechStepStateReset(&sq->st));
  PetscCall(TSMechNewtonReset(sq->newton));
  PetscCall(VecDestroy(&sq->V));
  PetscCall(VecDestroy(&sq->q1));
  PetscCall(VecDestroy(&sq->zero));
  PetscCall(VecDestroy(&sq->xhat));
  PetscCall(VecDestroy(&sq->R));
  PetscCall(VecDestroy(&sq->w));
  PetscCall(VecDestroy(&sq->u));
  sq->haseq = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* The Newton object, for the settings every implicit type shares (newtonapi.c) */
static PetscErrorCode TSMechGetNewton_Static2(TS ts, TSMechNewton *newton)
{
  PetscFunctionBegin;
  *newton = ((TS_Static2 *)ts->data)->newton;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSDestroy_Static2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSReset_Static2(ts));
  PetscCall(TSMechNewtonDestroy(&((TS_Static2 *)ts->data)->newton));
  PetscCall(PetscFree(ts->data));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSStatic2GetEquilibrium_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSMechMerit_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSMechGetNewton_C", NULL));
  PetscFunctionReturn(0);
}

/* A body that is not held: refused before the first step, with the free motions named */
static PetscErrorCode Static2CheckHeld(TS ts)
{
  TS_Static2 *sq = (TS_Static2 *)ts->data;
  PetscInt    nfree;
  char        desc[1024];
  const char *model;

  PetscFunctionBegin;
  PetscCall(MechSystemGetFreeMotions(sq->st.sys, ts->ptime, ts->vec_sol, &nfree, desc, sizeof(desc)));
  PetscCall(MechSystemGetModelName(sq->st.sys, &model));
  PetscCheck(!nfree, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONGSTATE, "-ts_type static2: model %s is not held: its tangent stiffness at t = %g is singular, the constraints leave %" PetscInt_FMT " rigid motion%s free (%s); fix or prescribe dofs that stop %s", model ? model : "(unnamed)", (double)ts->ptime, nfree, nfree == 1 ? "" : "s", desc,
             nfree == 1 ? "it" : "them");
  PetscFunctionReturn(0);
}

static PetscErrorCode TSSetUp_Static2(TS ts)
{
  TS_Static2 *sq   = (TS_Static2 *)ts->data;
  MPI_Comm    comm = PetscObjectComm((PetscObject)ts);
  PetscBool   none, ok;

  PetscFunctionBegin;
  PetscCall(TSMechStepStateSetUp(ts, &sq->st, PETSC_FALSE));
  PetscCheck(sq->st.sys, comm, PETSC_ERR_ARG_WRONGSTATE, "-ts_type static2 needs a MechSystem (TSMechSetSystem()): the equilibrium f(t, q, 0) = 0 is the system's force at rest");
  PetscCall(PetscObjectTypeCompare((PetscObject)ts->adapt, TSADAPTNONE, &none));
  PetscCall(PetscObjectTypeCompare((PetscObject)ts->adapt, TSADAPTINCREMENT, &ok));
  PetscCheck(ok || none, comm, PETSC_ERR_SUP, "-ts_adapt_type %s with -ts_type static2: a quasi-static step has no error estimate (equilibrium at every step has no time-discretization error); use -ts_adapt_type increment (automatic incrementation, the default) or none (fixed steps)", ((PetscObject)ts->adapt)->type_name);
  PetscCall(MechSystemSetUp(sq->st.sys));
  PetscCall(VecDuplicate(ts->vec_sol, &sq->V));
  PetscCall(VecDuplicate(ts->vec_sol, &sq->q1));
  PetscCall(VecDuplicate(ts->vec_sol, &sq->zero));
  PetscCall(VecDuplicate(ts->vec_sol, &sq->xhat));
  PetscCall(VecDuplicate(ts->vec_sol, &sq->R));
  PetscCall(VecDuplicate(ts->vec_sol, &sq->w));
  PetscCall(VecDuplicate(ts->vec_sol, &sq->u));
  PetscCall(VecZeroEntries(sq->zero));
  sq->xhat_tau = 0;
  PetscCall(TSMechSetUpSNES(ts, sq->R));
  PetscCall(TSMechNewtonSetUp(sq->newton, sq->st.sys, TSMECH_NEWTON_FULL, NULL));
  PetscCall(Static2CheckHeld(ts));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSSetFromOptions_Static2(TS ts, PetscOptionItems *PetscOptionsObject)
{
  TS_Static2 *sq = (TS_Static2 *)ts->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Quasi-static (static2) options");
  PetscCall(PetscOptionsBool("-ts_static2_extrapolate", "Newton starts from q + tau v, the last increment's rate continued, instead of q", "TSSTATIC2", sq->extrapolate, &sq->extrapolate, NULL));
  PetscCall(TSMechNewtonSetFromOptions(sq->newton, PetscOptionsObject));
  PetscOptionsHeadEnd();
  /* Newton's line search on the potential energy where there is one (the SNES reads its options next) */
  {
    MechSystem sys;

    PetscCall(TSMechGetSystem(ts, &sys));
    if (sys) PetscCall(MechSystemSetUp(sys));
    PetscCall(TSMechSetDefaultLineSearch(ts, Static2HasMerit(sys)));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TSView_Static2(TS ts, PetscViewer viewer)
{
  TS_Static2 *sq = (TS_Static2 *)ts->data;
  PetscBool   iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (iascii) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  Quasi-static: equilibrium f(t + tau, q+, 0) = 0 at each step's end (no inertia, no damping); Newton on the increment's rate (q+ - q)/tau, starting from %s\n", sq->extrapolate ? "q + tau v (extrapolated)" : "q"));
    if (sq->haseq) PetscCall(PetscViewerASCIIPrintf(viewer, "  Equilibrium at t = %g: |f(t, q, 0)| = %g, %g of the load |f(t, X, 0)| = %g\n", (double)sq->eqtime, (double)sq->eqres, sq->eqload > 0 ? (double)(sq->eqres / sq->eqload) : 0.0, (double)sq->eqload));
  }
  PetscCall(TSMechNewtonView(sq->newton, TSMECH_NEWTON_FULL, viewer));
  if (sq->st.sys) {
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(MechSystemView(sq->st.sys, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TSStatic2GetEquilibrium_Static2(TS ts, PetscBool *has, PetscReal *t, PetscReal *residual, PetscReal *load)
{
  TS_Static2 *sq = (TS_Static2 *)ts->data;

  PetscFunctionBegin;
  if (has) *has = sq->haseq;
  if (t) *t = sq->eqtime;
  if (residual) *residual = sq->eqres;
  if (load) *load = sq->eqload;
  PetscFunctionReturn(0);
}

/*MC
  TSSTATIC2 - "static2": quasi-static analysis of M q'' + f(t, q, q') = 0, a sequence of static
  equilibria f(t, q, 0) = 0 of the loads and prescribed motions at the steps' ends (time is a load
  parameter; no inertia, no damping), docs/schemes.md §12.

  Options Database Keys:
+ -ts_type static2 - selects this type
. -ts_static2_extrapolate - Newton starts from q + tau v (the last increment continued) instead of q
. -ts_static2_matrix_free <false> - the Jacobian applied by the model's tangent action; the assembled operator
    only preconditions, assembled again when the linear iterations grow (the shared Newton object, docs/solvers.md §7)
. -ts_static2_pc_rebuild_growth <1.1> - with -ts_static2_matrix_free: assemble the preconditioning matrix again when
    the linear iterations per Newton iteration exceed this factor times those after the last assembly (0: every Newton iteration)
. -ts_static2_pc_definite <false> - the preconditioning matrix from the model's semidefinite tangent, the Jacobian exact
. -ts_static2_pc_reduced <false> - with -ts_static2_matrix_free: the preconditioning matrix of the model's reduced
    pattern (nearest-neighbour couplings): less memory, more linear iterations
. -ts_static2_pc_lag_coarse <true> - with -ts_static2_matrix_free and -pc_type mg: a rebuild for growing iterations
    renews the finest level only (as -ts_theta_pc_lag_coarse)
- -ts_static2_ew_safeguard <0.5> - with -snes_ksp_ew: a linear solve stops once its residual is below this
    fraction of Newton's tolerance (Kelley's safeguard against oversolving; 0: off)

  Level: beginner

  Notes:
  Newton runs on x = (q+ - q)/tau with the residual tau f(t + tau, q + tau x, 0) and the Jacobian
  tau^2 K (the fixed rows hold their own mass), assembled or matrix-free (the model's tangent
  action), with any KSP and PC; v holds (q+ - q)/tau after each step. The fixed dofs sit where
  their prescribed motion is at the step's end; the moving supports bring neither inertia nor
  velocity. A system whose tangent is singular at the start, a body the constraints do not hold
  (`MechSystemGetFreeMotions()`), is refused at set-up with the free motions named. After each
  step the residual of equilibrium against the load is known (`TSStatic2GetEquilibrium()`).
  Outputs, stresses, checkpoints and restarts work as for every type; a restart continues
  exactly (nothing but the state is kept between steps).

.seealso: `TSBEULER2`, `TSStatic2GetEquilibrium()`, `MechSystemComputeEquilibrium()`, `MechSystemGetFreeMotions()`
M*/
static PetscErrorCode TSCreate_Static2(TS ts)
{
  TS_Static2 *sq;

  PetscFunctionBegin;
  ts->ops->reset          = TSReset_Static2;
  ts->ops->destroy        = TSDestroy_Static2;
  ts->ops->view           = TSView_Static2;
  ts->ops->setup          = TSSetUp_Static2;
  ts->ops->setfromoptions = TSSetFromOptions_Static2;
  ts->ops->step           = TSStep_Static2;
  ts->ops->rollback       = TSRollBack_Static2;
  ts->ops->snesfunction   = SNESTSFormFunction_Static2;
  ts->ops->snesjacobian   = SNESTSFormJacobian_Static2;
  ts->usessnes            = PETSC_TRUE;
  ts->default_adapt_type  = TSADAPTINCREMENT;
  /* at most 5 cut-backs of one step, as Abaqus/Standard (-ts_max_reject) */
  ts->max_reject = 5;
  PetscCall(PetscNew(&sq));
  ts->data = (void *)sq;
  PetscCall(TSMechNewtonCreate(ts, "ts_static2_", &sq->newton));
  /* no nonlinear elimination (its patch solves M a + f); the step is tau */
  PetscCall(TSMechNewtonSetType(sq->newton, TSSTATIC2, TSMECH_NEWTON_FEATURE_LAG_COARSE));
  PetscCall(TSMechNewtonSetStageFunction(sq->newton, Static2Stage, ts));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSStatic2GetEquilibrium_C", TSStatic2GetEquilibrium_Static2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSMechMerit_C", Static2Merit));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSMechGetNewton_C", TSMechGetNewton_Static2));
  PetscFunctionReturn(0);
}

/*
  What static2 reports of itself (scheme.h): implicit, second-order form (q and v), quasi-static;
  no order (each step's equilibrium has no time-discretization error); it keeps nothing between
  steps but the state, so a restart continues exactly (to the solver tolerance where the Newton
  object's lagged preconditioner is assembled anew); it holds the fixed dofs itself.
*/
static PetscErrorCode Static2Properties(TS ts, TSMechProperties *p)
{
  TS_Static2 *sq = (TS_Static2 *)ts->data;

  PetscFunctionBegin;
  p->explicit_   = PETSC_FALSE;
  p->order       = 0;
  p->secondorder = PETSC_TRUE;
  p->restart     = TSMECH_RESTART_EXACT;
  p->ownfixed    = PETSC_TRUE;
  p->owncoarse   = PETSC_TRUE;
  p->quasistatic = PETSC_TRUE;
  if (ts->problem_type != TS_LINEAR) PetscCall(TSMechNewtonRestartNote(sq->newton, p->restartnote, sizeof(p->restartnote)));
  PetscFunctionReturn(0);
}

/* The force of the last step (scheme.h): the equilibrium at its end, at rest */
static PetscErrorCode Static2StepEval(TS ts, TSMechStepEval *e)
{
  PetscFunctionBegin;
  (void)ts;
  PetscCall(VecZeroEntries(e->v[0]));
  PetscCall(TSMechStepEvalAt(e, 0, e->t0 + e->tau, 1, e->q1, e->v[0]));
  e->quasistatic = PETSC_TRUE;
  e->exact       = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static const char *const     Static2Types[]        = {TSSTATIC2, NULL};
static const char *const     Static2Descriptions[] = {"quasi-static: the equilibrium f(t, q, 0) = 0 of the loads at each step's end (no inertia, no damping)", NULL};
static const char *const     Static2Valued[]       = {TSMECH_NEWTON_VALUED_OPTIONS("ts_static2_"), TSMECH_INCREMENT_VALUED_OPTIONS, NULL};
static const TSMechFamilyOps Static2Family         = {TSMECH_FAMILY_OTHER, Static2Types, PETSC_FALSE, NULL, NULL, NULL, NULL, Static2Properties, NULL, NULL, Static2Descriptions, Static2Valued, Static2StepEval};

/* The family's table (scheme.h) and its type (tsimpl2.h, "Adding a TS type") */
PetscErrorCode TSMechRegisterStatic2(void)
{
  PetscFunctionBegin;
  PetscCall(TSMechSchemeRegister(&Static2Family));
  PetscCall(TSRegister(TSSTATIC2, TSCreate_Static2));
  PetscFunctionReturn(0);
}

/*@
  TSStatic2GetEquilibrium - The residual of equilibrium against the load after the last accepted
  step of a `TSSTATIC2`.

  Not Collective

  Input Parameter:
. ts - the TS

  Output Parameters:
+ has      - whether a step was accepted since the set-up (may be NULL)
. t        - the step's end (may be NULL)
. residual - |f(t, q, 0)| over the free dofs, from Newton's last residual (may be NULL)
- load     - the load |f(t, X, 0)| at the initial state (`MechSystemComputeEquilibrium()`; may be NULL)

  Level: intermediate

  Note:
  On a TS of another type, has is PETSC_FALSE.

.seealso: `TSSTATIC2`, `MechSystemComputeEquilibrium()`
@*/
PetscErrorCode TSStatic2GetEquilibrium(TS ts, PetscBool *has, PetscReal *t, PetscReal *residual, PetscReal *load)
{
  PetscErrorCode (*f)(TS, PetscBool *, PetscReal *, PetscReal *, PetscReal *) = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscCall(PetscObjectQueryFunction((PetscObject)ts, "TSStatic2GetEquilibrium_C", &f));
  if (f) PetscCall((*f)(ts, has, t, residual, load));
  else if (has) *has = PETSC_FALSE;
  PetscFunctionReturn(0);
}
