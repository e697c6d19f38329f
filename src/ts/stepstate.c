/*
  The step bookkeeping shared by the tsmech types: set-up checks, start-of-step state, step
  acceptance and rejection through TSAdapt, rollback, and the local error estimate.
*/
#include "tsimpl2.h"
#include <math.h>

/*
  TSMechStepStateSetUp - Checks what the type needs and allocates the state vectors.
*/
PetscErrorCode TSMechStepStateSetUp(TS ts, TSMechStepState *st, PetscBool needmass)
{
  MPI_Comm     comm = PetscObjectComm((PetscObject)ts);
  const char  *type;
  DM           dm;
  TSI2Function i2f;
  PetscBool    none;

  PetscFunctionBegin;
  PetscCall(TSGetType(ts, &type));
  PetscCall(TSMechGetSystem(ts, &st->sys));
  PetscCheck(ts->vec_sol && ts->vec_dot, comm, PETSC_ERR_ARG_WRONGSTATE, "TS type %s integrates M q'' + f = 0: give it the position and velocity with TS2SetSolution() or TSMechSetSolution()", type);
  PetscCheck(!needmass || st->sys, comm, PETSC_ERR_ARG_WRONGSTATE, "TS type %s (explicit) needs the mass matrix M: attach a MechSystem with TSMechSetSystem(); a plain I2Function does not provide M", type);
  PetscCall(TSGetDM(ts, &dm));
  PetscCall(DMTSGetI2Function(dm, &i2f, NULL));
  PetscCheck(i2f, comm, PETSC_ERR_ARG_WRONGSTATE, "TS type %s needs the residual F(t, q, v, a) = M a + f(t, q, v): call TSSetI2Function() or TSMechSetSystem()", type);
  if (!st->q0) PetscCall(VecDuplicate(ts->vec_sol, &st->q0));
  if (!st->v0) PetscCall(VecDuplicate(ts->vec_sol, &st->v0));
  if (!st->qprev) PetscCall(VecDuplicate(ts->vec_sol, &st->qprev));
  if (!st->vprev) PetscCall(VecDuplicate(ts->vec_sol, &st->vprev));
  PetscCall(TSGetAdapt(ts, &ts->adapt));
  PetscCall(TSAdaptCandidatesClear(ts->adapt));
  PetscCall(TSMechAdaptSetUp(ts));
  PetscCall(PetscObjectTypeCompare((PetscObject)ts->adapt, TSADAPTNONE, &none));
  if (!none) {
    PetscCall(VecDuplicate(ts->vec_sol, &st->lteq));
    PetscCall(VecDuplicate(ts->vec_sol, &st->ltev));
  }
  PetscFunctionReturn(0);
}

/*
  TSMechStepStateReset - Frees the state vectors.
*/
PetscErrorCode TSMechStepStateReset(TSMechStepState *st)
{
  PetscFunctionBegin;
  PetscCall(VecDestroy(&st->q0));
  PetscCall(VecDestroy(&st->v0));
  PetscCall(VecDestroy(&st->qprev));
  PetscCall(VecDestroy(&st->vprev));
  PetscCall(VecDestroy(&st->lteq));
  PetscCall(VecDestroy(&st->ltev));
  st->hasprev = PETSC_FALSE;
  st->started = PETSC_FALSE;
  st->sys     = NULL;
  PetscFunctionReturn(0);
}

/*
  TSMechSetUpSNES - Gives the TS's SNES the residual vector and the I2Jacobian's matrices (or
  the attached system's operator).
*/
PetscErrorCode TSMechSetUpSNES(TS ts, Vec R)
{
  Mat        J = NULL, P = NULL;
  MechSystem sys;

  PetscFunctionBegin;
  PetscCall(TSGetSNES(ts, &ts->snes));
  PetscCall(SNESSetFunction(ts->snes, R, SNESTSFormFunction, ts));
  PetscCall(SNESGetJacobian(ts->snes, &J, &P, NULL, NULL));
  if (!J) PetscCall(TSGetI2Jacobian(ts, &J, &P, NULL, NULL));
  PetscCall(TSMechGetSystem(ts, &sys));
  if (!J && sys) {
    PetscCall(MechSystemCreateOperator(sys, &J));
    PetscCall(SNESSetJacobian(ts->snes, J, J, SNESTSFormJacobian, ts));
    PetscCall(MatDestroy(&J));
  } else {
    const char *type;
    PetscCall(TSGetType(ts, &type));
    PetscCheck(J, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONGSTATE, "TS type %s needs the Jacobian K + shiftV D + shiftA M: call TSSetI2Jacobian() or TSMechSetSystem()", type);
    PetscCall(SNESSetJacobian(ts->snes, J, P ? P : J, SNESTSFormJacobian, ts));
  }
  PetscFunctionReturn(0);
}

/*
  TSMechStepBegin - Records the start-of-step state (not again after a rollback).
*/
PetscErrorCode TSMechStepBegin(TS ts, TSMechStepState *st)
{
  PetscFunctionBegin;
  if (!ts->steprollback) {
    if (st->started) {
      PetscCall(VecCopy(st->q0, st->qprev));
      PetscCall(VecCopy(st->v0, st->vprev));
      st->hasprev = PETSC_TRUE;
      st->dtprev  = ts->ptime - st->t0;
    }
    PetscCall(VecCopy(ts->vec_sol, st->q0));
    PetscCall(VecCopy(ts->vec_dot, st->v0));
    st->t0      = ts->ptime;
    st->started = PETSC_TRUE;
  }
  st->status     = TS_STEP_INCOMPLETE;
  st->rejections = 0;
  PetscFunctionReturn(0);
}

/*
  The largest |x_i| over every rank, +Inf if any entry on any rank is not finite. VecNorm() with
  NORM_INFINITY reduces with MPI_MAX, and a NaN held by a rank other than the first can lose that
  comparison: the norm comes back finite (and VecNorm()'s local loop skips a NaN). Here a non-finite entry is
  +Inf before the reduction.
*/
PetscErrorCode TSMechVecNormInfinity(Vec x, PetscReal *norm)
{
  const PetscScalar *a;
  PetscInt           n, i;
  PetscReal          m = 0;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(x, &a));
  for (i = 0; i < n; i++) {
    PetscReal v = PetscAbsScalar(a[i]);
    if (PetscIsInfOrNanReal(v)) {
      m = (PetscReal)INFINITY; /* not PETSC_INFINITY, a finite number */
      break;
    }
    m = PetscMax(m, v);
  }
  PetscCall(VecRestoreArrayRead(x, &a));
  PetscCall(MPIU_Allreduce(&m, norm, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)x)));
  PetscFunctionReturn(0);
}

/*
  TSMechStepFinish - Accepts (q1, v1) or rejects the step through the TSAdapt; on rejection the
  TS is back at the start of the step with the step size the controller chose.
*/
PetscErrorCode TSMechStepFinish(TS ts, TSMechStepState *st, PetscBool stageok, Vec q1, Vec v1)
{
  PetscReal next = ts->time_step;
  /* TSAdapt basic reads it: a retried step is more cautious, as in PETSc's own types */
  PetscBool accept = st->rejections ? PETSC_FALSE : PETSC_TRUE;

  PetscFunctionBegin;
  /* a prescribed motion of the fixed dofs is met exactly at the step's end: the position where
     the scheme put it up to rounding, the velocity where it oscillates (the trapezoidal rule's
     v+ = 2 (q+ - q) / tau - v on a prescribed position), as prescribed */
  if (stageok && st->sys) {
    PetscBool motion;

    PetscCall(MechSystemHasFixedMotion(st->sys, &motion));
    if (motion) PetscCall(MechSystemApplyFixedAt(st->sys, ts->ptime + ts->time_step, q1, v1));
  }
  if (stageok) {
    PetscReal nq, nv;
    /* a state that is no longer finite (an explicit method past its stability limit, a solver
       that returned garbage) is a failed stage: rejected and retried with a smaller step when
       the controller adapts, the end of the run otherwise; never accepted */
    PetscCall(TSMechVecNormInfinity(q1, &nq));
    PetscCall(TSMechVecNormInfinity(v1, &nv));
    if (PetscIsInfOrNanReal(nq) || PetscIsInfOrNanReal(nv)) {
      PetscCall(PetscInfo(ts, "Step=%" PetscInt_FMT ", t=%g: the new state is not finite\n", ts->steps, (double)ts->ptime));
      PetscCall(TSMechStageFailed(ts));
      stageok = PETSC_FALSE;
    }
  }
  if (stageok && st->sys) {
    PetscBool ok;
    char      why[256];

    /* a state the model cannot take (an inverted element) is a failed stage as well */
    PetscCall(MechSystemCheckState(st->sys, ts->ptime + ts->time_step, q1, v1, &ok, why, sizeof(why)));
    if (!ok) {
      PetscCall(PetscInfo(ts, "Step=%" PetscInt_FMT ", t=%g: the model refuses the new state: %s\n", ts->steps, (double)ts->ptime, why));
      PetscCall(TSMechStageFailed(ts));
      stageok = PETSC_FALSE;
    }
  }
  if (stageok) {
    st->status = TS_STEP_PENDING;
    PetscCall(VecCopy(q1, ts->vec_sol));
    PetscCall(VecCopy(v1, ts->vec_dot));
    PetscCall(TSAdaptChoose(ts->adapt, ts, ts->time_step, NULL, &next, &accept));
    if (accept) {
      st->status = TS_STEP_COMPLETE;
      ts->ptime += ts->time_step;
      ts->time_step = next;
      PetscFunctionReturn(0);
    }
    st->status = TS_STEP_INCOMPLETE;
    PetscCall(VecCopy(st->q0, ts->vec_sol));
    PetscCall(VecCopy(st->v0, ts->vec_dot));
    ts->time_step = next;
  }
  ts->reject++;
  if (!ts->reason && ++st->rejections > ts->max_reject && ts->max_reject >= 0) {
    ts->reason = TS_DIVERGED_STEP_REJECTED;
    PetscCall(PetscInfo(ts, "Step=%" PetscInt_FMT ", step rejections %" PetscInt_FMT " greater than current TS allowed, stopping solve\n", ts->steps, st->rejections));
  } else if (!ts->reason && ts->time_step < ts->adapt->dt_min) {
    /* the minimum step (-ts_adapt_dt_min): a retry below it is not made */
    ts->reason = TS_DIVERGED_STEP_REJECTED;
    PetscCall(PetscInfo(ts, "Step=%" PetscInt_FMT ", the retry's step %g is below the minimum %g, stopping solve\n", ts->steps, (double)ts->time_step, (double)ts->adapt->dt_min));
  }
  PetscFunctionReturn(0);
}

/*
  TSMechStageFailed - A failed stage (a failed linear solve of a single-solve step, a state that
  is not finite or that the model refuses) counts as a nonlinear solve failure, exactly as
  TSAdaptCheckStage() counts a failed SNES: the end of the run after -ts_max_snes_failures, else
  a retry with a smaller step.
*/
PetscErrorCode TSMechStageFailed(TS ts)
{
  PetscFunctionBegin;
  if (++ts->num_snes_failures >= ts->max_snes_failures && ts->max_snes_failures > 0) {
    ts->reason = TS_DIVERGED_NONLINEAR_SOLVE;
    PetscCall(PetscInfo(ts, "Step=%" PetscInt_FMT ", stage failures %" PetscInt_FMT " greater than current TS allowed, stopping solve\n", ts->steps, ts->num_snes_failures));
  } else {
    PetscCall(TSSetTimeStep(ts, ts->time_step * ts->adapt->scale_solve_failed));
  }
  PetscFunctionReturn(0);
}

/*
  TSMechEvaluateWLTE - Local error estimate of the step just taken, for TSAdapt
  (docs/schemes.md §6).

  The estimate is the backward difference of PETSc's TSTHETA and TSALPHA2, applied to q and to v:
  with h = tau, h_prev the previous step and a = 1 + h_prev/h,

    E = x1/a - x0/(a - 1) + x_prev/(a (a - 1)) = (h^2/2) x''(t1) - (h^3/6)(a + 1) x'''(t1) + ...

  for any h_prev, and on the first step, with no history, E_q = (h/2)(v1 - v0) = (h^2/2) q'' + O(h^3)
  (E_v is then not estimated). The leading term is (h^2/2) x'' whatever the scheme, so the
  estimate scales as h^2 for every theta, linearized or not, and for symplectic Euler: order is
  2, the exponent TSAdapt basic needs in hfac = safety enorm^(-1/order) (PETSc 3.18's TSTHETA
  reports 2 for the same estimate). It is the local error of a first-order step up to a
  constant factor, and bounds the O(h^3) local error of the second-order ones (theta = 1/2), as
  in TSCN and TSALPHA2.
*/
PetscErrorCode TSMechEvaluateWLTE(TS ts, TSMechStepState *st, NormType wnormtype, PetscInt *order, PetscReal *wlte)
{
  PetscReal   h = ts->time_step, a, ex, exa, exr, ev, eva, evr;
  PetscScalar scal[3];
  Vec         vq[3], vv[3];

  PetscFunctionBegin;
  if (order) *order = 2;
  if (!st->lteq) {
    *wlte = -1;
    PetscFunctionReturn(0);
  }
  {
    /* a finite but huge state (an explicit method running away) would make the weighted norm
       raise an error; it is an infinitely bad step instead */
    PetscReal nq, nv;
    PetscCall(TSMechVecNormInfinity(ts->vec_sol, &nq));
    PetscCall(TSMechVecNormInfinity(ts->vec_dot, &nv));
    if (PetscIsInfOrNanReal(nq) || PetscIsInfOrNanReal(nv) || nq > 1e150 || nv > 1e150) {
      *wlte = PETSC_INFINITY;
      PetscFunctionReturn(0);
    }
  }
  if (!st->hasprev || st->dtprev <= 0) {
    /* (h/2)(v1 - v0) rather than q1 - (q0 + h v0): the latter is theta h (v1 - v0) for the theta
       family, identically zero for explicit Euler, whose first step would go unchecked */
    PetscCall(VecWAXPY(st->lteq, -1.0, st->v0, ts->vec_dot));
    PetscCall(VecAYPX(st->lteq, 0.5 * h, ts->vec_sol));
    PetscCall(TSErrorWeightedNorm(ts, ts->vec_sol, st->lteq, wnormtype, wlte, &exa, &exr));
    PetscFunctionReturn(0);
  }
  a       = 1 + st->dtprev / h;
  scal[0] = 1 / a;
  scal[1] = -1 / (a - 1);
  scal[2] = 1 / (a * (a - 1));
  vq[0]   = ts->vec_sol;
  vq[1]   = st->q0;
  vq[2]   = st->qprev;
  vv[0]   = ts->vec_dot;
  vv[1]   = st->v0;
  vv[2]   = st->vprev;
  /* lteq = q1 + E_q, so that the weighted norm of their difference is that of E_q */
  PetscCall(VecCopy(ts->vec_sol, st->lteq));
  PetscCall(VecMAXPY(st->lteq, 3, scal, vq));
  PetscCall(VecCopy(ts->vec_dot, st->ltev));
  PetscCall(VecMAXPY(st->ltev, 3, scal, vv));
  PetscCall(TSErrorWeightedNorm(ts, ts->vec_sol, st->lteq, wnormtype, &ex, &exa, &exr));
  PetscCall(TSErrorWeightedNorm(ts, ts->vec_dot, st->ltev, wnormtype, &ev, &eva, &evr));
  /* the norm of the first-order state [q; v]: the mean of squares over both halves, or the max */
  *wlte = wnormtype == NORM_2 ? PetscSqrtReal(0.5 * (ex * ex + ev * ev)) : PetscMax(ex, ev);
  PetscFunctionReturn(0);
}

/*
  TSMechRollBack - Returns the TS to the start of the step.
*/
PetscErrorCode TSMechRollBack(TS ts, TSMechStepState *st)
{
  PetscFunctionBegin;
  PetscCall(VecCopy(st->q0, ts->vec_sol));
  PetscCall(VecCopy(st->v0, ts->vec_dot));
  PetscFunctionReturn(0);
}

/*
  TSMechGetPrevious - Copies the velocity at the start of the last completed step, if any.
  Between steps that is the v0 of the step just taken.
*/
PetscErrorCode TSMechGetPrevious(TS ts, TSMechStepState *st, Vec v, PetscBool *has)
{
  PetscFunctionBegin;
  (void)ts;
  *has = st->started;
  if (st->started) PetscCall(VecCopy(st->v0, v));
  PetscFunctionReturn(0);
}

/*
  TSMechSetPrevious - Restores the velocity at the start of the previous step (restart): the
  next step then extrapolates exactly as the uninterrupted run did.
*/
PetscErrorCode TSMechSetPrevious(TS ts, TSMechStepState *st, Vec v)
{
  PetscFunctionBegin;
  if (!st->v0) PetscCall(VecDuplicate(v, &st->v0));
  if (!st->q0) PetscCall(VecDuplicate(v, &st->q0));
  PetscCall(VecCopy(v, st->v0));
  /* q0 is only used by the error estimate's backward difference; the current position is the
     best available stand-in */
  if (ts->vec_sol) PetscCall(VecCopy(ts->vec_sol, st->q0));
  st->t0      = ts->ptime - ts->time_step;
  st->started = PETSC_TRUE;
  PetscFunctionReturn(0);
}
