/*
  symeuler2: symplectic Euler for M q'' + f(t, q, q') = 0 (docs/schemes.md §5; Hairer, Lubich & Wanner 2006, §VI.3)

      v+ = v - tau M^{-1} f(t, q, v),    q+ = q + tau v+

  (explicit Euler, euler2, differs only in using v in the position update). M^{-1} is the
  attached system's mass solve: exact and pointwise for a lumped mass, a KSP with the options
  prefix mass_ for a consistent one.
*/
#include "tsimpl2.h"
#include "scheme.h"

typedef struct {
  TSMechStepState st;
  Vec             f, q1, v1;
} TS_SymEuler2;

static PetscErrorCode TSStep_SymEuler2(TS ts)
{
  TS_SymEuler2 *se = (TS_SymEuler2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(TSMechStepBegin(ts, &se->st));
  while (!ts->reason && se->st.status != TS_STEP_COMPLETE) {
    PetscBool stageok;
    PetscReal t1 = ts->ptime + ts->time_step;

    PetscCall(TSPreStage(ts, ts->ptime));
    PetscCall(MechSystemComputeForce(se->st.sys, ts->ptime, se->st.q0, se->st.v0, se->f));
    PetscCall(MechSystemSolveMass(se->st.sys, se->f, se->v1));
    PetscCall(VecAYPX(se->v1, -ts->time_step, se->st.v0));
    PetscCall(VecWAXPY(se->q1, ts->time_step, se->v1, se->st.q0));
    PetscCall(TSPostStage(ts, t1, 0, &se->q1));
    PetscCall(TSAdaptCheckStage(ts->adapt, ts, t1, se->q1, &stageok));
    PetscCall(TSMechStepFinish(ts, &se->st, stageok, se->q1, se->v1));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TSEvaluateWLTE_SymEuler2(TS ts, NormType wnormtype, PetscInt *order, PetscReal *wlte)
{
  PetscFunctionBegin;
  /* the estimate's own order (2, docs/schemes.md §6), not the scheme's (1) */
  PetscCall(TSMechEvaluateWLTE(ts, &((TS_SymEuler2 *)ts->data)->st, wnormtype, order, wlte));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSRollBack_SymEuler2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSMechRollBack(ts, &((TS_SymEuler2 *)ts->data)->st));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSReset_SymEuler2(TS ts)
{
  TS_SymEuler2 *se = (TS_SymEuler2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(TSMechStepStateReset(&se->st));
  PetscCall(VecDestroy(&se->f));
  PetscCall(VecDestroy(&se->q1));
  PetscCall(VecDestroy(&se->v1));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSDestroy_SymEuler2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSReset_SymEuler2(ts));
  PetscCall(PetscFree(ts->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSSetUp_SymEuler2(TS ts)
{
  TS_SymEuler2 *se = (TS_SymEuler2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(TSMechStepStateSetUp(ts, &se->st, PETSC_TRUE));
  PetscCall(VecDuplicate(ts->vec_sol, &se->f));
  PetscCall(VecDuplicate(ts->vec_sol, &se->q1));
  PetscCall(VecDuplicate(ts->vec_sol, &se->v1));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSView_SymEuler2(TS ts, PetscViewer viewer)
{
  PetscBool  iascii;
  MechSystem sys;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (iascii) PetscCall(PetscViewerASCIIPrintf(viewer, "  Symplectic Euler: v+ = v - tau M^-1 f(t, q, v), q+ = q + tau v+ (mass solve prefix mass_)\n"));
  PetscCall(TSMechGetSystem(ts, &sys));
  if (sys) {
    /* the system's view shows the mass solver's KSP once the first step has created it */
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(MechSystemView(sys, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscFunctionReturn(0);
}

/*
  What symeuler2 reports of itself (scheme.h): explicit, first order, second-order form; it keeps
  nothing a fixed-step restart needs (its error estimate's previous step is not saved).
*/
static PetscErrorCode SymEuler2Properties(TS ts, TSMechProperties *p)
{
  PetscFunctionBegin;
  (void)ts;
  p->explicit_   = PETSC_TRUE;
  p->order       = 1;
  p->secondorder = PETSC_TRUE;
  p->restart     = TSMECH_RESTART_FIXED_STEP;
  p->ownfixed    = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static const char *const SymEuler2Types[] = {TSSYMEULER2, NULL};

static const char *const SymEuler2Descriptions[] = {"symplectic Euler, explicit: one mass solve per step (order 1)", NULL};

/* its options that take a value are the mass solve's (-mass_ksp_type, -mass_pc_type), every explicit type's */
/* The force evaluation of the last step (scheme.h): f(t, q, v) at its start */
static PetscErrorCode SymEuler2StepEval(TS ts, TSMechStepEval *e)
{
  TS_SymEuler2 *se = (TS_SymEuler2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(TSMechStepEvalAt(e, 0, e->t0, 1, se->st.q0, se->st.v0));
  e->exact = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static const TSMechFamilyOps SymEuler2Family = {TSMECH_FAMILY_OTHER, SymEuler2Types, PETSC_FALSE, NULL, NULL, NULL, NULL, SymEuler2Properties, NULL, NULL, SymEuler2Descriptions, NULL, SymEuler2StepEval};

/*MC
  TSSYMEULER2 - "symeuler2": symplectic Euler for M q'' + f(t, q, q') = 0 (docs/schemes.md §5;
  Hairer, Lubich & Wanner 2006, §VI.3).

.vb
  v+ = v - tau M^{-1} f(t, q, v),    q+ = q + tau v+
.ve

  Options Database Keys:
+ -ts_type symeuler2 - selects this type
. -mass_ksp_type <cg> - the KSP of the mass solve (preonly for a lumped M)
- -mass_pc_type <jacobi> - its preconditioner

  Level: beginner

  Notes:
  An explicit first-order scheme: one force evaluation and one mass solve (`MechSystemSolveMass()`)
  per step, no tangent and no nonlinear solve. It needs the mass matrix, so a `MechSystem` must be
  attached with `TSMechSetSystem()` (a plain I2Function is refused), and the state given with
  `TSMechSetSolution()` (or `TS2SetSolution()`). The mass solve is exact and pointwise for a lumped M, a `KSP` with the
  options prefix mass_ (CG + Jacobi by default) for a consistent one.

  For a conservative force the map is symplectic: the energy error stays bounded and oscillates.
  With a velocity-dependent force it uses the velocity at the start of the step. Undamped, it is
  stable for tau omega < 2 (`TSMechEstimateStableStep()`). It differs from `TSEULER2` only in
  using v+ in the position update.

  The default `TSAdapt` is none; with -ts_adapt_type basic the steps are controlled by the local
  error estimate of docs/schemes.md §6 (order 2).

.seealso: `TSEULER2`, `TSMIDPOINT2`, `TSTHETA2`, `TSMechSetSystem()`, `TSMechSetSolution()`, `MechSystemSolveMass()`,
          `TSMechEstimateStableStep()`
M*/
static PetscErrorCode TSCreate_SymEuler2(TS ts)
{
  TS_SymEuler2 *se;

  PetscFunctionBegin;
  ts->ops->reset         = TSReset_SymEuler2;
  ts->ops->destroy       = TSDestroy_SymEuler2;
  ts->ops->view          = TSView_SymEuler2;
  ts->ops->setup         = TSSetUp_SymEuler2;
  ts->ops->step          = TSStep_SymEuler2;
  ts->ops->evaluatewlte  = TSEvaluateWLTE_SymEuler2;
  ts->ops->rollback      = TSRollBack_SymEuler2;
  ts->default_adapt_type = TSADAPTNONE;
  PetscCall(PetscNew(&se));
  ts->data = (void *)se;
  PetscFunctionReturn(0);
}

/* The family's table (scheme.h) and its type (tsimpl2.h, "Adding a TS type") */
PetscErrorCode TSMechRegisterSymEuler2(void)
{
  PetscFunctionBegin;
  PetscCall(TSMechSchemeRegister(&SymEuler2Family));
  PetscCall(TSRegister(TSSYMEULER2, TSCreate_SymEuler2));
  PetscFunctionReturn(0);
}
