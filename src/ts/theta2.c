/*
  theta2: the theta method for M q'' + f(t, q, q') = 0 in velocity form (docs/schemes.md §2).

  The unknown is the end-of-step velocity v+; the position is recomputed from it after every
  iterate, q+ = q + tau ((1 - theta) v + theta v+), so the position residual is always zero.

    endpoint form:                 R = M (v+ - v) + tau ((1-theta) f(t, q, v) + theta f(t+tau, q+, v+))
    one-leg form:                  R = M (v+ - v) + tau f(t + theta tau, q_theta, v_theta),
                                   v_theta = (1-theta) v + theta v+,  q_theta = q + theta tau v_theta
    Jacobian (both):               J = M + theta tau D + theta^2 tau^2 K

  Everything is expressed through the second-order residual F(t, q, v, a) = M a + f(t, q, v)
  of TSSetI2Function(), so a program written for TSALPHA2 runs unchanged:
    endpoint:  R = theta tau F(t+tau, q+, v+, (v+ - v)/(theta tau)) + (1-theta) tau F(t, q, v, 0)
    one-leg:   R = tau F(t+theta tau, q_theta, v_theta, (v+ - v)/tau)
    J = (theta tau)^2 dF/dq + shiftV dF/dv + shiftA dF/da,  shiftV = 1/(theta tau), shiftA = shiftV^2
  When a MechSystem is attached, J is assembled directly from K, D and M (no rescaling), and
  theta = 0 (explicit Euler) is one solve with M.

  The linearized mode (docs/schemes.md §4) does one linear solve per step from an initial guess
  (q0, v0) with f0 = f(t, q, v) and K, D at the start of the step:
    J dv = -R_v0 + theta tau K R_q0,  R_v0 = M (v0 - v) + tau f(t, q, v),
    R_q0 = q0 - q - tau ((1-theta) v + theta v0),  v+ = v0 + dv.
*/
#include "tsimpl2.h"
#include "../mech/mechimpl.h"
#include <petsc/private/snesimpl.h>
#include "scheme.h"
#include <stdio.h>

const char *const TSTheta2Guesses[] = {"zero", "velocity", "predictor", "predictor_zero", "predictor_extrapolate", "extrapolate", "TSTheta2Guess", "TSTHETA2_GUESS_", NULL};

typedef struct {
  PetscReal     Theta;
  PetscBool     endpoint;
  PetscBool     extrapolate;
  PetscBool     linearized;
  TSTheta2Guess guess;
  PetscBool     lock_theta, lock_endpoint; /* set by the wrappers beuler2, cn2, midpoint2, euler2 */
  char          badguess[64];              /* an unknown -ts_theta_linearized_guess, refused at set-up */

  TSMechStepState st;     /* start-of-step state, previous step, error estimate */
  TSMechNewton    newton; /* Newton and preconditioner policy (newton2.c) */

  Vec       V;                 /* Newton unknown v+ */
  Vec       qs, vs, as;        /* arguments of F at the stage */
  Vec       xhat, ahat, a0hat; /* a prescribed motion: x^_f and a^_f of the step (Theta2PrescribedVelocity()) */
  PetscReal xhat_t, xhat_tau;  /* the step they belong to */
  Vec       ft;                /* F(t, q, v, 0) = f at the start of the step */
  Vec       R;                 /* work */
  Vec       rhs, w;            /* work of the linearized mode, created at its first step */
  Mat       K;                 /* K alone, for the linearized mode with a position residual */
  PetscBool Kvalid;            /* K holds K (linear problems) */
  PetscReal stage_time;
} TS_Theta2;

/*
  A prescribed motion g(t) of the fixed dofs (MechSystemSetFixedMotion()): the unknown x_f that puts
  the step's end position q+ = q + tau ((1 - theta) v + theta x) at g(t + tau) exactly,
  x^_f = (g(t + tau) - q_f - tau (1 - theta) v_f) / (theta tau), and the prescribed acceleration at
  the stage time, a^_f (in the endpoint form plus (1 - theta) / theta a(t), which the start's force
  brings into the fixed rows). Computed once per step and step size.
*/
static PetscErrorCode Theta2PrescribedVelocity(TS ts)
{
  TS_Theta2 *th  = (TS_Theta2 *)ts->data;
  PetscReal  tau = ts->time_step, theta = th->Theta;

  PetscFunctionBegin;
  if (th->xhat && th->xhat_t == ts->ptime && th->xhat_tau == tau) PetscFunctionReturn(0);
  if (!th->xhat) PetscCall(VecDuplicate(th->st.v0, &th->xhat));
  if (!th->ahat) PetscCall(VecDuplicate(th->st.v0, &th->ahat));
  /* g(t + tau) in xhat's fixed entries, then x^ = (g - q - tau (1 - theta) v) / (theta tau) */
  PetscCall(MechSystemComputeFixedMotion(th->st.sys, ts->ptime + tau, th->xhat, NULL, NULL));
  PetscCall(VecAXPBYPCZ(th->xhat, -1.0, -tau * (1 - theta), 1.0, th->st.q0, th->st.v0));
  PetscCall(VecScale(th->xhat, 1.0 / (theta * tau)));
  /* the endpoint form weighs the start's force, -m a^(t), by 1 - theta: a^ carries it too */
  PetscCall(MechSystemComputeFixedMotion(th->st.sys, ts->ptime + (th->endpoint ? 1.0 : theta) * tau, NULL, NULL, th->ahat));
  if (th->endpoint && theta < 1) {
    if (!th->a0hat) PetscCall(VecDuplicate(th->st.v0, &th->a0hat));
    PetscCall(MechSystemComputeFixedMotion(th->st.sys, ts->ptime, NULL, NULL, th->a0hat));
    PetscCall(VecAXPY(th->ahat, (1 - theta) / theta, th->a0hat));
  }
  th->xhat_t   = ts->ptime;
  th->xhat_tau = tau;
  PetscFunctionReturn(0);
}

/*
  The fixed dofs stay at the stage where the step began, whatever the candidate x holds there: the
  system's tangent has their columns of K and D zeroed (MechSystemSetFixed()), so the residual
  must not see them move either, or J would not be its derivative along a step with x_f != v_f.
  An exact Newton step keeps x_f = v_f, but an inexact one need not: a multigrid coarse correction
  reaches the fixed dofs, and the next residual then missed the linear prediction by 1.4-7x
  (cloth 128^2, one V-cycle per Newton iteration). The acceleration a_f still follows x, so the
  residual's own rows M a_f drive x_f back; their exact solution x_f = v_f is also set after the
  solve (qs NULL), so that an inexact solve leaves no trace in the fixed positions. With a
  prescribed motion the same holds with x^_f (Theta2PrescribedVelocity()) in place of v_f: the
  stage's fixed positions are the prescribed ones (at the step's end, or their theta-average), and
  the fixed rows, whose force is -m a^_f(t) (MechSystemComputeForce()), vanish at x_f = x^_f.
*/
static PetscErrorCode Theta2HoldFixed(TS ts, Vec qs, Vec vs)
{
  TS_Theta2         *th = (TS_Theta2 *)ts->data;
  IS                 fixed;
  const PetscInt    *idx;
  const PetscScalar *q0, *v0, *xh = NULL, *ap = NULL;
  PetscScalar       *qa = NULL, *va, *aa = NULL;
  PetscInt           n, rstart;
  PetscReal          tau = ts->time_step, theta = th->Theta;
  PetscBool          motion;

  PetscFunctionBegin;
  if (!th->st.sys) PetscFunctionReturn(0);
  PetscCall(MechSystemGetFixed(th->st.sys, &fixed));
  if (!fixed) PetscFunctionReturn(0);
  PetscCall(MechSystemHasFixedMotion(th->st.sys, &motion));
  motion = motion && theta > 0 ? PETSC_TRUE : PETSC_FALSE;
  if (motion) PetscCall(Theta2PrescribedVelocity(ts));
  PetscCall(ISGetLocalSize(fixed, &n));
  PetscCall(ISGetIndices(fixed, &idx));
  PetscCall(VecGetOwnershipRange(vs, &rstart, NULL));
  PetscCall(VecGetArrayRead(th->st.q0, &q0));
  PetscCall(VecGetArrayRead(th->st.v0, &v0));
  if (motion) {
    PetscCall(VecGetArrayRead(th->xhat, &xh));
    if (qs) PetscCall(VecGetArrayRead(th->ahat, &ap));
    if (qs) PetscCall(VecGetArray(th->as, &aa));
  }
  if (qs) PetscCall(VecGetArray(qs, &qa));
  PetscCall(VecGetArray(vs, &va));
  for (PetscInt k = 0; k < n; k++) {
    const PetscInt i = idx[k] - rstart;

    if (!xh) {
      if (qa) qa[i] = q0[i];
      va[i] = v0[i];
    } else if (!qa) {
      va[i] = xh[i];
    } else {
      /* the stage as if x_f were the prescribed x^_f; the row M a_f - M a^_f(t) vanishes there */
      if (th->endpoint) {
        va[i] = xh[i];
        qa[i] = q0[i] + tau * ((1 - theta) * v0[i] + theta * xh[i]);
        aa[i] += ap[i] - (xh[i] - v0[i]) / (theta * tau);
      } else {
        va[i] = (1 - theta) * v0[i] + theta * xh[i];
        qa[i] = q0[i] + theta * tau * va[i];
        aa[i] += ap[i] - (xh[i] - v0[i]) / tau;
      }
    }
  }
  PetscCall(VecRestoreArray(vs, &va));
  if (qs) PetscCall(VecRestoreArray(qs, &qa));
  if (xh) {
    PetscCall(VecRestoreArrayRead(th->xhat, &xh));
    if (qs) PetscCall(VecRestoreArrayRead(th->ahat, &ap));
    if (qs) PetscCall(VecRestoreArray(th->as, &aa));
  }
  PetscCall(VecRestoreArrayRead(th->st.v0, &v0));
  PetscCall(VecRestoreArrayRead(th->st.q0, &q0));
  PetscCall(ISRestoreIndices(fixed, &idx));
  PetscFunctionReturn(0);
}

/* Stage arguments of F from the candidate v+ (x). */
static PetscErrorCode Theta2StageVecs(TS ts, Vec x)
{
  TS_Theta2 *th  = (TS_Theta2 *)ts->data;
  PetscReal  tau = ts->time_step, theta = th->Theta;
  Vec        q0 = th->st.q0, v0 = th->st.v0;

  PetscFunctionBegin;
  if (th->endpoint) {
    th->stage_time = ts->ptime + tau;
    PetscCall(VecCopy(x, th->vs));
    PetscCall(VecWAXPY(th->as, -1.0, v0, x));
    PetscCall(VecScale(th->as, 1.0 / (theta * tau)));
  } else {
    th->stage_time = ts->ptime + theta * tau;
    PetscCall(VecAXPBYPCZ(th->vs, 1.0 - theta, theta, 0.0, v0, x));
    PetscCall(VecWAXPY(th->as, -1.0, v0, x));
    PetscCall(VecScale(th->as, 1.0 / tau));
  }
  /* q_theta = q + theta tau v_theta (one-leg), q+ = q + tau ((1-theta) v + theta v+) (endpoint) */
  PetscCall(VecCopy(q0, th->qs));
  if (th->endpoint) PetscCall(VecAXPBYPCZ(th->qs, tau * (1.0 - theta), tau * theta, 1.0, v0, x));
  else PetscCall(VecAXPY(th->qs, theta * tau, th->vs));
  PetscCall(Theta2HoldFixed(ts, th->qs, th->vs));
  PetscFunctionReturn(0);
}

/* q+ = q + tau ((1 - theta) v + theta v+) */
static PetscErrorCode Theta2ProjectPosition(TS ts, Vec x, Vec q)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(VecCopy(th->st.q0, q));
  PetscCall(VecAXPBYPCZ(q, ts->time_step * (1.0 - th->Theta), ts->time_step * th->Theta, 1.0, th->st.v0, x));
  PetscFunctionReturn(0);
}

static PetscErrorCode SNESTSFormFunction_Theta2(SNES snes, Vec x, Vec R, TS ts)
{
  TS_Theta2 *th  = (TS_Theta2 *)ts->data;
  PetscReal  tau = ts->time_step, theta = th->Theta;

  PetscFunctionBegin;
  (void)snes;
  PetscCall(Theta2StageVecs(ts, x));
  PetscCall(TSComputeI2Function(ts, th->stage_time, th->qs, th->vs, th->as, R));
  if (th->endpoint) {
    PetscCall(VecAXPBY(R, (1.0 - theta) * tau, theta * tau, th->ft));
  } else PetscCall(VecScale(R, tau));
  PetscFunctionReturn(0);
}

/*
  The step's incremental potential at x (the line search "potential", linesearch2.c), whose gradient
  is R for a conservative system (docs/solvers.md §8):
    one-leg:   Phi = 1/2 (x - v)^T M (x - v) + V(t + theta tau, q_theta)/theta^2   (dq_theta/dx = theta^2 tau)
    endpoint:  Phi = 1/2 (x - v)^T M (x - v) + V(t + tau, q+) + (1 - theta) tau f_0 . x   (dq+/dx = theta tau)
  with M decoupled on the fixed dofs (held in the stage), and with linear damping D v (Rayleigh,
  MechSystemSetDampingLinear()) + tau/(2 theta) v_theta^T D v_theta (one-leg) or theta tau/2 x^T D x
  (endpoint). None (has false) with other damping, a follower load, a prescribed motion (its inertia
  on the free rows), the explicit and the linearized modes.
*/
static PetscBool Theta2HasMerit(TS ts, MechSystem sys)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  return (sys && sys->potential && (!sys->hasdamping || sys->lineardamping) && !sys->nonsymwhy && !(sys->motion && sys->fixed) && th->Theta > 0 && !th->linearized) ? PETSC_TRUE : PETSC_FALSE;
}

static PetscErrorCode Theta2Merit(TS ts, Vec x, PetscBool *has, PetscReal *phi)
{
  TS_Theta2  *th    = (TS_Theta2 *)ts->data;
  MechSystem  sys   = th->st.sys;
  PetscReal   theta = th->Theta, pe;
  PetscScalar kin, work = 0;

  PetscFunctionBegin;
  *has = Theta2HasMerit(ts, sys);
  if (!*has) PetscFunctionReturn(0);
  if (!th->rhs) PetscCall(VecDuplicate(ts->vec_sol, &th->rhs));
  if (!th->w) PetscCall(VecDuplicate(ts->vec_sol, &th->w));
  PetscCall(Theta2StageVecs(ts, x));
  PetscCall(VecWAXPY(th->rhs, -1.0, th->st.v0, x));
  PetscCall(MatMult(sys->Mfix, th->rhs, th->w));
  PetscCall(VecDot(th->rhs, th->w, &kin));
  PetscCall(MechSystemComputeEnergy(sys, th->stage_time, th->qs, th->vs, NULL, &pe));
  if (th->endpoint && theta < 1) PetscCall(VecDot(th->ft, x, &work));
  *phi = 0.5 * PetscRealPart(kin) + (th->endpoint ? pe + (1 - theta) * ts->time_step * PetscRealPart(work) : pe / (theta * theta));
  if (sys->hasdamping) {
    PetscScalar dis;

    /* linear damping: v_s^T D v_s = v_s . (f(q_s, v_s) - f(q_s, 0)), weighted by tau/(2 theta) (one-leg,
       dv_theta/dx = theta) or theta tau/2 (endpoint, v_s = x) */
    PetscCall(MechSystemComputeForce(sys, th->stage_time, th->qs, th->vs, th->rhs));
    PetscCall(VecZeroEntries(th->as)); /* the stage's acceleration is not needed here: a zero velocity */
    PetscCall(MechSystemComputeForce(sys, th->stage_time, th->qs, th->as, th->w));
    PetscCall(VecAYPX(th->w, -1.0, th->rhs));
    PetscCall(VecDot(th->vs, th->w, &dis));
    *phi += (th->endpoint ? 0.5 * theta * ts->time_step : 0.5 * ts->time_step / theta) * PetscRealPart(dis);
  }
  PetscFunctionReturn(0);
}

/* P = M + theta tau D + theta^2 tau^2 K at (t, q, v, a), assembled; with definite, from the
   system's semidefinite approximation of K and D (MechSystemComputeOperatorDefinite()) */
/* The stage operator at the iterate x for the Newton object: M + theta tau D + theta^2 tau^2 K at
   the stage's arguments (the same J in both forms) */
static PetscErrorCode Theta2Stage(void *ctx, Vec x, TSMechNewtonStage *s)
{
  TS         ts = (TS)ctx;
  TS_Theta2 *th = (TS_Theta2 *)ts->data;
  PetscReal  h  = th->Theta * ts->time_step;

  PetscFunctionBegin;
  PetscCall(Theta2StageVecs(ts, x));
  s->t  = th->stage_time;
  s->q  = th->qs;
  s->v  = th->vs;
  s->a  = th->as;
  s->cK = h * h;
  s->cD = h;
  s->cM = 1.0;
  PetscFunctionReturn(0);
}

static PetscErrorCode SNESTSFormJacobian_Theta2(SNES snes, Vec x, Mat J, Mat P, TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSMechNewtonSNESJacobian(snes, x, J, P, ((TS_Theta2 *)ts->data)->newton));
  PetscFunctionReturn(0);
}

/* f at the start of the step, F(t, q, v, 0) */
static PetscErrorCode Theta2ComputeStartForce(TS ts)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(VecZeroEntries(th->as));
  PetscCall(TSComputeI2Function(ts, ts->ptime, th->st.q0, th->st.v0, th->as, th->ft));
  PetscFunctionReturn(0);
}

/* Newton's initial guess for v+: v, or v extrapolated from the previous step. */
static PetscErrorCode Theta2Extrapolated(TS ts, Vec x)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(VecCopy(th->st.v0, x));
  if (th->st.hasprev && th->st.dtprev > 0) PetscCall(VecAXPBYPCZ(x, ts->time_step / th->st.dtprev, -ts->time_step / th->st.dtprev, 1.0, th->st.v0, th->st.vprev));
  PetscFunctionReturn(0);
}

/* Explicit Euler (theta = 0): v+ = v - tau M^{-1} f(t, q, v). */
static PetscErrorCode Theta2SolveExplicit(TS ts, Vec x)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(MechSystemComputeForce(th->st.sys, ts->ptime, th->st.q0, th->st.v0, th->ft));
  PetscCall(MechSystemSolveMass(th->st.sys, th->ft, x));
  PetscCall(VecAYPX(x, -ts->time_step, th->st.v0));
  PetscFunctionReturn(0);
}

/* One linear solve from the chosen guess (docs/schemes.md §4, and the top of this file). */
static PetscErrorCode Theta2SolveLinearized(TS ts, Vec x, PetscBool *ok)
{
  TS_Theta2         *th  = (TS_Theta2 *)ts->data;
  PetscReal          tau = ts->time_step, theta = th->Theta, t = ts->ptime;
  Vec                q0 = th->st.q0, v0 = th->st.v0, Rq;
  PetscBool          omitq = PETSC_FALSE;
  KSP                ksp;
  Mat                J, P;
  PetscInt           its;
  PetscReal          nrq = 0;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  /* the linearized mode's work vectors, only for it */
  if (!th->rhs) PetscCall(VecDuplicate(ts->vec_sol, &th->rhs));
  if (!th->w) PetscCall(VecDuplicate(ts->vec_sol, &th->w));
  Rq = th->w;
  /* the guess v0' in x, the position offset q0' - q in Rq */
  switch (th->guess) {
  case TSTHETA2_GUESS_ZERO:
    PetscCall(VecZeroEntries(x));
    PetscCall(VecZeroEntries(Rq));
    omitq = PETSC_TRUE; /* R_q0 omitted, as customary for this guess (docs/schemes.md §4) */
    break;
  case TSTHETA2_GUESS_VELOCITY:
    PetscCall(VecCopy(v0, x));
    PetscCall(VecZeroEntries(Rq));
    break;
  case TSTHETA2_GUESS_PREDICTOR:
    PetscCall(VecCopy(v0, x));
    PetscCall(VecAXPBY(Rq, tau, 0.0, v0));
    break;
  case TSTHETA2_GUESS_PREDICTOR_ZERO:
    PetscCall(VecZeroEntries(x));
    PetscCall(VecAXPBY(Rq, tau, 0.0, v0));
    break;
  case TSTHETA2_GUESS_PREDICTOR_EXTRAPOLATE:
    PetscCall(Theta2Extrapolated(ts, x));
    PetscCall(VecAXPBY(Rq, tau, 0.0, v0));
    break;
  case TSTHETA2_GUESS_EXTRAPOLATE:
    PetscCall(Theta2Extrapolated(ts, x));
    PetscCall(VecAXPBY(Rq, tau, 0.0, x));
    break;
  }
  /* R_q0 = (q0' - q) - tau ((1-theta) v + theta v0') */
  PetscCall(VecAXPBYPCZ(Rq, -tau * (1.0 - theta), -tau * theta, 1.0, v0, x));
  if (!omitq) PetscCall(VecNorm(Rq, NORM_INFINITY, &nrq));

  /* rhs = -R_v0 = -tau F(t, q, v, (v0' - v)/tau) = -(M (v0' - v) + tau f(t, q, v)) */
  PetscCall(VecWAXPY(th->as, -1.0, v0, x));
  PetscCall(VecScale(th->as, 1.0 / tau));
  PetscCall(TSComputeI2Function(ts, t, q0, v0, th->as, th->rhs));
  PetscCall(VecScale(th->rhs, -tau));
  if (nrq > 0) {
    PetscBool shell;

    /* K as the system's operator shell (a matrix-free multigrid preconditioner): linearized each
       time, since the Newton operator's linearization replaces it */
    PetscCall(PetscObjectTypeCompare((PetscObject)th->K, MATSHELL, &shell));
    if (shell) PetscCall(MechSystemLinearizeOperatorShell(th->st.sys, t, q0, v0, 1.0, 0.0, 0.0, th->K));
    else if (!(ts->problem_type == TS_LINEAR && th->Kvalid)) {
      if (th->st.sys) PetscCall(MechSystemComputeOperator(th->st.sys, t, q0, v0, 1.0, 0.0, 0.0, th->K));
      else PetscCall(TSComputeI2Jacobian(ts, t, q0, v0, th->as, 0.0, 0.0, th->K, th->K));
      th->Kvalid = PETSC_TRUE;
    }
    PetscCall(MatMult(th->K, Rq, th->R));
    PetscCall(VecAXPY(th->rhs, theta * tau, th->R));
  }

  PetscCall(SNESGetKSP(ts->snes, &ksp));
  PetscCall(SNESGetJacobian(ts->snes, &J, &P, NULL, NULL));
  PetscCall(VecZeroEntries(th->as));
  {
    PetscReal         h  = theta * tau;
    TSMechNewtonStage st = {t, q0, v0, th->as, h * h, h, 1.0, 0.0};

    PetscCall(TSMechNewtonComputeOperators(th->newton, &st, J, P));
  }
  PetscCall(KSPSetOperators(ksp, J, P));
  PetscCall(VecZeroEntries(th->R));
  PetscCall(KSPSolve(ksp, th->rhs, th->R));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(VecAXPY(x, 1.0, th->R));
  ts->snes_its += 1;
  ts->ksp_its += its;
  *ok = reason >= 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(TSMechNewtonPostSolve(th->newton, 1, its, *ok));
  if (!*ok) PetscCall(PetscInfo(ts, "Linearized step: linear solve failed (%s)\n", KSPConvergedReasons[reason]));
  PetscFunctionReturn(0);
}

/*
  Nonlinear elimination (TSMechNewtonEliminate(), docs/solvers.md §3) from the guess x. The stage
  of x as in Theta2StageVecs(): one-leg v_s = (1-theta) v + theta x, q_s = q + theta tau v_s,
  a_s = (x - v) / tau, R = tau F; endpoint v_s = x, q_s = q + tau ((1-theta) v + theta x),
  a_s = (x - v) / (theta tau), R = theta tau F + (1-theta) tau f_start. The patch's reach follows
  theta tau.
*/
static PetscErrorCode Theta2Eliminate(TS ts, Vec x)
{
  TS_Theta2             *th  = (TS_Theta2 *)ts->data;
  PetscReal              tau = ts->time_step, theta = th->Theta;
  TSMechEliminationStage st;

  PetscFunctionBegin;
  PetscCall(Theta2StageVecs(ts, x));
  if (th->endpoint) {
    st.t   = ts->ptime + tau;
    st.cv0 = 0;
    st.cvx = 1;
    st.cq0 = tau * (1 - theta);
    st.cqx = tau * theta;
    st.ca  = 1 / (theta * tau);
    st.cr  = theta * tau;
    st.crt = (1 - theta) * tau;
  } else {
    st.t   = ts->ptime + theta * tau;
    st.cv0 = 1 - theta;
    st.cvx = theta;
    st.cq0 = theta * tau * (1 - theta);
    st.cqx = theta * theta * tau;
    st.ca  = 1 / tau;
    st.cr  = tau;
    st.crt = 0;
  }
  PetscCall(TSMechNewtonEliminate(th->newton, theta * tau, &st, th->st.q0, th->st.v0, th->endpoint ? th->ft : NULL, th->qs, th->vs, x));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSStep_Theta2(TS ts)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(TSMechStepBegin(ts, &th->st));
  while (!ts->reason && th->st.status != TS_STEP_COMPLETE) {
    PetscBool stageok = PETSC_TRUE;

    th->stage_time = ts->ptime + (th->endpoint ? 1.0 : th->Theta) * ts->time_step;
    PetscCall(TSPreStage(ts, th->stage_time));
    if (th->Theta == 0) {
      PetscCall(Theta2SolveExplicit(ts, th->V));
    } else if (th->linearized) {
      PetscCall(Theta2SolveLinearized(ts, th->V, &stageok));
      if (!stageok) PetscCall(TSMechStageFailed(ts));
    } else {
      PetscInt            nits, lits;
      PetscBool           ne;
      SNESConvergedReason snesreason;

      if (th->endpoint) PetscCall(Theta2ComputeStartForce(ts));
      /* an extrapolated guess: Newton's tolerance from the residual at v (TSMechNewtonPreSolve()) */
      PetscCall(TSMechNewtonPreSolve(th->newton, th->st.q0, th->st.v0, th->extrapolate ? th->st.v0 : NULL, th->V));
      if (th->extrapolate) PetscCall(Theta2Extrapolated(ts, th->V));
      else PetscCall(VecCopy(th->st.v0, th->V));
      PetscCall(TSMechNewtonGetNonlinearElimination(th->newton, &ne, NULL, NULL));
      if (ne) PetscCall(Theta2Eliminate(ts, th->V));
      PetscCall(SNESSolve(ts->snes, NULL, th->V));
      PetscCall(SNESGetIterationNumber(ts->snes, &nits));
      PetscCall(SNESGetLinearSolveIterations(ts->snes, &lits));
      PetscCall(SNESGetConvergedReason(ts->snes, &snesreason));
      PetscCall(TSMechNewtonPostSolve(th->newton, nits, lits, snesreason > 0 ? PETSC_TRUE : PETSC_FALSE));
      ts->snes_its += nits;
      ts->ksp_its += lits;
    }
    /* the position always follows from v+, whatever the solver evaluated last */
    if (th->Theta > 0) PetscCall(Theta2HoldFixed(ts, NULL, th->V));
    PetscCall(Theta2ProjectPosition(ts, th->V, th->qs));
    PetscCall(TSPostStage(ts, th->stage_time, 0, &th->qs));
    if (stageok) PetscCall(TSAdaptCheckStage(ts->adapt, ts, th->stage_time, th->qs, &stageok));
    PetscCall(TSMechStepFinish(ts, &th->st, stageok, th->qs, th->V));
  }
  PetscFunctionReturn(0);
}

/*
  The order reported is that of the estimate's leading term (h^2/2) x'', 2 for every theta and
  mode, not the order of the scheme: TSAdapt basic takes enorm^(-1/order) as the step factor, and
  an order of 1 against an estimate in h^2 makes every accepted step grow until the next one is
  rejected (docs/schemes.md §6).
*/
static PetscErrorCode TSEvaluateWLTE_Theta2(TS ts, NormType wnormtype, PetscInt *order, PetscReal *wlte)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(TSMechEvaluateWLTE(ts, &th->st, wnormtype, order, wlte));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSRollBack_Theta2(TS ts)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(TSMechRollBack(ts, &th->st));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSReset_Theta2(TS ts)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(TSMechStepStateReset(&th->st));
  PetscCall(VecDestroy(&th->V));
  PetscCall(VecDestroy(&th->qs));
  PetscCall(VecDestroy(&th->vs));
  PetscCall(VecDestroy(&th->as));
  PetscCall(VecDestroy(&th->xhat));
  PetscCall(VecDestroy(&th->ahat));
  PetscCall(VecDestroy(&th->a0hat));
  PetscCall(VecDestroy(&th->ft));
  PetscCall(VecDestroy(&th->R));
  PetscCall(VecDestroy(&th->rhs));
  PetscCall(VecDestroy(&th->w));
  PetscCall(MatDestroy(&th->K));
  PetscCall(TSMechNewtonReset(th->newton));
  th->Kvalid = PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSDestroy_Theta2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSReset_Theta2(ts));
  PetscCall(TSMechNewtonDestroy(&((TS_Theta2 *)ts->data)->newton));
  PetscCall(PetscFree(ts->data));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetTheta_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetTheta_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetEndpoint_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetEndpoint_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetInitialGuessExtrapolate_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetInitialGuessExtrapolate_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetLinearized_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetLinearized_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetPreviousVelocity_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetPreviousVelocity_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetMatrixFree_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetMatrixFree_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetPCDefinite_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetPCDefinite_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetPCReduced_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetPCReduced_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetPCLagCoarse_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetPCLagCoarse_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetEWSafeguard_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetEWSafeguard_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetNonlinearElimination_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetNonlinearElimination_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSMechMerit_C", NULL));
  PetscFunctionReturn(0);
}

/* What the step does with the Newton object: nothing (theta 0), one linear solve, or Newton */
static TSMechNewtonMode Theta2NewtonMode(const TS_Theta2 *th)
{
  if (th->Theta == 0) return TSMECH_NEWTON_NONE;
  return th->linearized ? TSMECH_NEWTON_LINEAR : TSMECH_NEWTON_FULL;
}

static PetscErrorCode TSSetUp_Theta2(TS ts)
{
  TS_Theta2  *th = (TS_Theta2 *)ts->data;
  const char *type;

  PetscFunctionBegin;
  PetscCall(TSGetType(ts, &type));
  PetscCheck(th->Theta >= 0 && th->Theta <= 1, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "-ts_theta_theta %g is outside [0, 1]", (double)th->Theta);
  if (th->badguess[0]) {
    char     allowed[256] = "";
    PetscInt g;

    for (g = 0; g <= (PetscInt)TSTHETA2_GUESS_EXTRAPOLATE; g++) {
      if (g) PetscCall(PetscStrlcat(allowed, ", ", sizeof(allowed)));
      PetscCall(PetscStrlcat(allowed, TSTheta2Guesses[g], sizeof(allowed)));
    }
    SETERRQ(PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_UNKNOWN_TYPE, "-ts_theta_linearized_guess %s: unknown linearized guess; allowed: %s", th->badguess, allowed);
  }
  PetscCall(TSMechStepStateSetUp(ts, &th->st, th->Theta == 0 ? PETSC_TRUE : PETSC_FALSE));
  PetscCall(VecDuplicate(ts->vec_sol, &th->V));
  PetscCall(VecDuplicate(ts->vec_sol, &th->qs));
  PetscCall(VecDuplicate(ts->vec_sol, &th->vs));
  PetscCall(VecDuplicate(ts->vec_sol, &th->as));
  PetscCall(VecDuplicate(ts->vec_sol, &th->ft));
  PetscCall(VecDuplicate(ts->vec_sol, &th->R));
  PetscCall(TSMechSetUpSNES(ts, th->R));
  PetscCall(TSMechNewtonSetUp(th->newton, th->st.sys, Theta2NewtonMode(th), th->Theta == 0 ? "an explicit step (theta 0)" : "the linearized mode (-ts_theta_linearized)"));
  if (th->linearized && th->Theta > 0) {
    Mat       P;
    PetscBool reduced, shell;

    PetscCall(SNESGetJacobian(ts->snes, NULL, &P, NULL, NULL));
    PetscCall(TSMechNewtonGetPCReduced(th->newton, NULL, &reduced));
    PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSHELL, &shell));
    /* K holds every coupling: not of the reduced preconditioning matrix's pattern; a matrix-free
       preconditioning operator (-pc_type mg on the solid's quadratic elements): the operator shell */
    if (shell && th->st.sys) PetscCall(MechSystemCreateOperatorShell(th->st.sys, &th->K));
    else if (reduced) PetscCall(MechSystemCreateOperator(th->st.sys, &th->K));
    else PetscCall(MatDuplicate(P, MAT_DO_NOT_COPY_VALUES, &th->K));
  }
  th->Kvalid = PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSSetFromOptions_Theta2(TS ts, PetscOptionItems *PetscOptionsObject)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Theta2 (velocity-form theta method for M q'' + f = 0) options");
  if (!th->lock_theta) PetscCall(MechOptionsReal("-ts_theta_theta", "Location of the stage, theta in [0, 1]: 0 explicit Euler, 1/2 midpoint/trapezoidal, 1 implicit Euler", "TSTheta2SetTheta", th->Theta, &th->Theta, NULL));
  if (!th->lock_endpoint) PetscCall(MechOptionsBool("-ts_theta_endpoint", "Endpoint form: f averaged at both ends (trapezoidal); false: one-leg form, f at the theta point", "TSTheta2SetEndpoint", th->endpoint, &th->endpoint, NULL));
  PetscCall(MechOptionsBool("-ts_theta_initial_guess_extrapolate", "Newton's initial guess for v+ extrapolated from the previous step", "TSTheta2SetInitialGuessExtrapolate", th->extrapolate, &th->extrapolate, NULL));
  PetscCall(MechOptionsBool("-ts_theta_linearized", "Exactly one linear solve per step, K and D at the start of the step", "TSTheta2SetLinearized", th->linearized, &th->linearized, NULL));
  {
    char      name[64];
    PetscBool set, match = PETSC_FALSE;
    PetscInt  g;

    /* read as a name, so that an unknown one is refused at set-up with the list (an error inside
       PETSc's options block would leak the block's bookkeeping) */
    PetscCall(PetscStrncpy(name, TSTheta2Guesses[th->guess], sizeof(name)));
    PetscCall(MechOptionsString("-ts_theta_linearized_guess", "Initial guess of the linearized step: zero, velocity, predictor, predictor_zero, predictor_extrapolate, extrapolate", "TSTheta2SetLinearized", name, name, sizeof(name), &set));
    if (set) {
      for (g = 0; g <= (PetscInt)TSTHETA2_GUESS_EXTRAPOLATE && !match; g++) PetscCall(PetscStrcasecmp(name, TSTheta2Guesses[g], &match));
      if (match) th->guess = (TSTheta2Guess)(g - 1);
      PetscCall(PetscStrncpy(th->badguess, match ? "" : name, sizeof(th->badguess)));
    }
  }
  PetscCall(TSMechNewtonSetFromOptions(th->newton, PetscOptionsObject));
  PetscOptionsHeadEnd();
  /* the step-size controller's default (TSSetFromOptions() applies it next): explicit Euler keeps fixed steps */
  ts->default_adapt_type = th->Theta > 0 ? TSADAPTINCREMENT : TSADAPTNONE;
  /* Newton's line search on the step's incremental potential where there is one (the SNES reads its options next) */
  {
    MechSystem sys;

    PetscCall(TSMechGetSystem(ts, &sys));
    if (sys) PetscCall(MechSystemSetUp(sys));
    PetscCall(TSMechSetDefaultLineSearch(ts, Theta2HasMerit(ts, sys)));
  }
  /* theta and the guess are checked in TSSetUp_Theta2(): an error inside the options block would leak it */
  PetscFunctionReturn(0);
}

static PetscErrorCode TSView_Theta2(TS ts, PetscViewer viewer)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;
  PetscBool  iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (iascii) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  Theta=%g, %s form (velocity unknown, position projected)\n", (double)th->Theta, th->endpoint ? "endpoint (trapezoidal)" : "one-leg"));
    if (th->Theta == 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  Explicit: one mass solve per step\n"));
    else if (th->linearized) PetscCall(PetscViewerASCIIPrintf(viewer, "  Linearized: one linear solve per step, initial guess %s\n", TSTheta2Guesses[th->guess]));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  Newton on v+ (SNES)%s\n", th->extrapolate ? ", initial guess extrapolated" : ""));
    PetscCall(TSMechNewtonView(th->newton, Theta2NewtonMode(th), viewer));
  }
  {
    MechSystem sys;

    PetscCall(TSMechGetSystem(ts, &sys));
    if (sys) {
      PetscCall(PetscViewerASCIIPushTab(viewer));
      PetscCall(MechSystemView(sys, viewer));
      PetscCall(PetscViewerASCIIPopTab(viewer));
    } else if (iascii) PetscCall(PetscViewerASCIIPrintf(viewer, "  No MechSystem: a plain I2Function/I2Jacobian\n"));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2SetTheta_Theta2(TS ts, PetscReal theta)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  PetscCheck(theta >= 0 && theta <= 1, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "Theta %g is outside [0, 1] (-ts_theta_theta)", (double)theta);
  PetscCheck(!th->lock_theta || theta == th->Theta, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONGSTATE, "The theta of this TS type is fixed at %g; use -ts_type theta2", (double)th->Theta);
  th->Theta = theta;
  PetscCall(TSMechNewtonInvalidate(th->newton));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2GetTheta_Theta2(TS ts, PetscReal *theta)
{
  PetscFunctionBegin;
  *theta = ((TS_Theta2 *)ts->data)->Theta;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2SetEndpoint_Theta2(TS ts, PetscBool flg)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  PetscCheck(!th->lock_endpoint || flg == th->endpoint, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONGSTATE, "The form of this TS type is fixed; use -ts_type theta2");
  th->endpoint = flg;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2GetEndpoint_Theta2(TS ts, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((TS_Theta2 *)ts->data)->endpoint;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2SetInitialGuessExtrapolate_Theta2(TS ts, PetscBool flg)
{
  PetscFunctionBegin;
  ((TS_Theta2 *)ts->data)->extrapolate = flg;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2GetInitialGuessExtrapolate_Theta2(TS ts, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((TS_Theta2 *)ts->data)->extrapolate;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2SetLinearized_Theta2(TS ts, PetscBool flg, TSTheta2Guess guess)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  PetscCheck(guess >= TSTHETA2_GUESS_ZERO && guess <= TSTHETA2_GUESS_EXTRAPOLATE, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "Unknown linearized guess %d (-ts_theta_linearized_guess)", (int)guess);
  th->linearized = flg;
  th->guess      = guess;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2GetLinearized_Theta2(TS ts, PetscBool *flg, TSTheta2Guess *guess)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  if (flg) *flg = th->linearized;
  if (guess) *guess = th->guess;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2GetPreviousVelocity_Theta2(TS ts, Vec v, PetscBool *has)
{
  PetscFunctionBegin;
  PetscCall(TSMechGetPrevious(ts, &((TS_Theta2 *)ts->data)->st, v, has));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2SetPreviousVelocity_Theta2(TS ts, Vec v)
{
  PetscFunctionBegin;
  PetscCall(TSMechSetPrevious(ts, &((TS_Theta2 *)ts->data)->st, v));
  PetscFunctionReturn(0);
}

/* The solver settings belong to the Newton object (newton2.c): forwarded */
static PetscErrorCode TSTheta2SetMatrixFree_Theta2(TS ts, PetscBool flg, PetscReal growth)
{
  PetscFunctionBegin;
  PetscCall(TSMechNewtonSetMatrixFree(((TS_Theta2 *)ts->data)->newton, flg, growth));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2GetMatrixFree_Theta2(TS ts, PetscBool *flg, PetscReal *growth, PetscInt *rebuilds)
{
  PetscFunctionBegin;
  PetscCall(TSMechNewtonGetMatrixFree(((TS_Theta2 *)ts->data)->newton, flg, growth, rebuilds));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2SetPCDefinite_Theta2(TS ts, PetscBool flg)
{
  PetscFunctionBegin;
  PetscCall(TSMechNewtonSetPCDefinite(((TS_Theta2 *)ts->data)->newton, flg));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2GetPCDefinite_Theta2(TS ts, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscCall(TSMechNewtonGetPCDefinite(((TS_Theta2 *)ts->data)->newton, flg));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2SetPCReduced_Theta2(TS ts, PetscBool flg)
{
  PetscFunctionBegin;
  PetscCall(TSMechNewtonSetPCReduced(((TS_Theta2 *)ts->data)->newton, flg));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2GetPCReduced_Theta2(TS ts, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscCall(TSMechNewtonGetPCReduced(((TS_Theta2 *)ts->data)->newton, flg, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2SetPCLagCoarse_Theta2(TS ts, PetscBool flg)
{
  PetscFunctionBegin;
  PetscCall(TSMechNewtonSetPCLagCoarse(((TS_Theta2 *)ts->data)->newton, flg));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2GetPCLagCoarse_Theta2(TS ts, PetscBool *flg, PetscInt *coarse)
{
  PetscFunctionBegin;
  PetscCall(TSMechNewtonGetPCLagCoarse(((TS_Theta2 *)ts->data)->newton, flg, coarse));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2SetEWSafeguard_Theta2(TS ts, PetscReal factor)
{
  PetscFunctionBegin;
  PetscCall(TSMechNewtonSetEWSafeguard(((TS_Theta2 *)ts->data)->newton, factor));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2GetEWSafeguard_Theta2(TS ts, PetscReal *factor)
{
  PetscFunctionBegin;
  PetscCall(TSMechNewtonGetEWSafeguard(((TS_Theta2 *)ts->data)->newton, factor));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2SetNonlinearElimination_Theta2(TS ts, PetscBool flg, PetscInt depth, PetscReal reach)
{
  PetscFunctionBegin;
  PetscCall(TSMechNewtonSetNonlinearElimination(((TS_Theta2 *)ts->data)->newton, flg, depth, reach));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2GetNonlinearElimination_Theta2(TS ts, PetscBool *flg, PetscInt *depth, PetscInt *its)
{
  PetscFunctionBegin;
  PetscCall(TSMechNewtonGetNonlinearElimination(((TS_Theta2 *)ts->data)->newton, flg, depth, its));
  PetscFunctionReturn(0);
}

/*
  The family's scheme parameters (scheme.h): what the HDF5 output and a checkpoint record of a
  theta2-family TS and a restart gives back. A new setting of the family is added here (declare,
  get, set, check) and nowhere else.
*/
static const char *const Theta2FamilyTypes[] = {TSTHETA2, TSBEULER2, TSCN2, TSMIDPOINT2, TSEULER2, NULL};

static PetscErrorCode Theta2SchemeDeclare(TSMechScheme *s)
{
  PetscFunctionBegin;
  PetscCall(TSMechSchemeAddParameter(s, "theta", TSMECH_PARAM_REAL));
  PetscCall(TSMechSchemeAddParameter(s, "endpoint", TSMECH_PARAM_FLAG));
  PetscCall(TSMechSchemeAddParameter(s, "linearized", TSMECH_PARAM_FLAG));
  PetscCall(TSMechSchemeAddParameter(s, "guess", TSMECH_PARAM_NAME));
  PetscCall(TSMechSchemeAddParameter(s, "extrapolate", TSMECH_PARAM_FLAG));
  PetscFunctionReturn(0);
}

static PetscErrorCode Theta2SchemeGet(TS ts, TSMechScheme *s)
{
  TS_Theta2   *th = (TS_Theta2 *)ts->data;
  TSMechParam *p;

  PetscFunctionBegin;
  PetscCall(Theta2SchemeDeclare(s));
  PetscCall(TSMechSchemeFindParameter(s, "theta", &p));
  p->real = th->Theta;
  PetscCall(TSMechSchemeFindParameter(s, "endpoint", &p));
  p->flag = th->endpoint;
  PetscCall(TSMechSchemeFindParameter(s, "linearized", &p));
  p->flag = th->linearized;
  PetscCall(TSMechSchemeFindParameter(s, "guess", &p));
  PetscCall(PetscStrncpy(p->text, TSTheta2Guesses[th->guess], sizeof(p->text)));
  PetscCall(TSMechSchemeFindParameter(s, "extrapolate", &p));
  p->flag = th->extrapolate;
  PetscFunctionReturn(0);
}

/* The guess of that name (-1: none) */
static PetscErrorCode Theta2GuessOfName(const char name[], PetscInt *g)
{
  PetscBool match = PETSC_FALSE;
  PetscInt  i;

  PetscFunctionBegin;
  *g = -1;
  for (i = 0; i <= (PetscInt)TSTHETA2_GUESS_EXTRAPOLATE && !match; i++) {
    PetscCall(PetscStrcasecmp(name, TSTheta2Guesses[i], &match));
    if (match) *g = i;
  }
  PetscFunctionReturn(0);
}

/* The fixed members of the family (beuler2, ...) accept their own theta and form only */
static PetscErrorCode Theta2SchemeSet(TS ts, const TSMechScheme *s)
{
  TS_Theta2   *th = (TS_Theta2 *)ts->data;
  TSMechParam *theta, *endpoint, *linearized, *guess, *extrapolate;
  PetscInt     g;

  PetscFunctionBegin;
  PetscCall(TSMechSchemeFindParameter(s, "theta", &theta));
  PetscCall(TSMechSchemeFindParameter(s, "endpoint", &endpoint));
  PetscCall(TSMechSchemeFindParameter(s, "linearized", &linearized));
  PetscCall(TSMechSchemeFindParameter(s, "guess", &guess));
  PetscCall(TSMechSchemeFindParameter(s, "extrapolate", &extrapolate));
  if (!th->lock_theta) PetscCall(TSTheta2SetTheta(ts, theta->real));
  if (!th->lock_endpoint) PetscCall(TSTheta2SetEndpoint(ts, endpoint->flag ? PETSC_TRUE : PETSC_FALSE));
  PetscCall(Theta2GuessOfName(guess->text, &g));
  if (g >= 0) PetscCall(TSTheta2SetLinearized(ts, linearized->flag ? PETSC_TRUE : PETSC_FALSE, (TSTheta2Guess)g));
  PetscCall(TSTheta2SetInitialGuessExtrapolate(ts, extrapolate->flag ? PETSC_TRUE : PETSC_FALSE));
  PetscFunctionReturn(0);
}

static PetscErrorCode Theta2SchemeCheck(const TSMechScheme *s, char problem[], size_t len)
{
  TSMechParam *theta, *guess;
  PetscInt     g;

  PetscFunctionBegin;
  PetscCall(TSMechSchemeFindParameter(s, "theta", &theta));
  PetscCall(TSMechSchemeFindParameter(s, "guess", &guess));
  PetscCall(Theta2GuessOfName(guess->text, &g));
  if (PetscIsInfOrNanReal(theta->real) || theta->real < 0 || theta->real > 1) (void)snprintf(problem, len, "its theta %g is outside [0, 1]", (double)theta->real);
  else if (g < 0) (void)snprintf(problem, len, "its guess \"%s\" is not a linearized guess of theta2", guess->text);
  PetscFunctionReturn(0);
}

/*
  What the family reports of itself (scheme.h): explicit at theta 0; order 2 at theta 1/2 (the
  linearized mode only with the velocity guess, docs/schemes.md §4), else 1; second-order form; its
  history (the start of the last step) is saved, so a restart is exact, to the solver tolerance
  where the Newton object's lagged preconditioner is assembled anew.
*/
static PetscErrorCode Theta2Properties(TS ts, TSMechProperties *p)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  p->explicit_   = th->Theta == 0 ? PETSC_TRUE : PETSC_FALSE;
  p->order       = th->Theta == 0.5 && (!th->linearized || th->guess == TSTHETA2_GUESS_VELOCITY) ? 2 : 1;
  p->secondorder = PETSC_TRUE;
  p->restart     = TSMECH_RESTART_EXACT;
  p->ownfixed    = PETSC_TRUE;
  p->owncoarse   = PETSC_TRUE;
  if (ts->problem_type != TS_LINEAR) PetscCall(TSMechNewtonRestartNote(th->newton, p->restartnote, sizeof(p->restartnote)));
  PetscFunctionReturn(0);
}

/* What the types say of themselves (TSMechGetTypeNames()), in the order of Theta2FamilyTypes, and their options that take a value */
static const char *const Theta2Descriptions[] = {"theta method in velocity form, theta from -ts_theta_theta (order 2 at 1/2, else 1)", "implicit Euler (theta2 at theta = 1)", "trapezoidal rule in f (theta2 at theta = 1/2, endpoint form)", "implicit midpoint rule, symplectic (theta2 at theta = 1/2, one-leg form)", "explicit Euler (theta2 at theta = 0): one mass solve per step", NULL};
static const char *const Theta2Valued[]       = {"-ts_theta_theta", "-ts_theta_linearized_guess", TSMECH_NEWTON_VALUED_OPTIONS("ts_theta_"), TSMECH_INCREMENT_VALUED_OPTIONS, NULL};

/*
  The force evaluations of the last step (scheme.h, for its reactions and energy balance): its stage
  recomputed from the converged v+ with the step's time and size, as the solve had it: one-leg
  f(t + theta tau, q_theta, v_theta); endpoint (1 - theta) f(t, q, v) + theta f(t + tau, q+, v+);
  explicit Euler f(t, q, v). The linearized mode linearized f at the start of the step: for a
  linear f that is f(t, q_theta, v_theta) at the start's time t (exact only for linear problems).
*/
static PetscErrorCode Theta2StepEval(TS ts, TSMechStepEval *e)
{
  TS_Theta2      *th    = (TS_Theta2 *)ts->data;
  const PetscReal ptime = ts->ptime, dt = ts->time_step, theta = th->Theta;

  PetscFunctionBegin;
  e->exact = !th->linearized || ts->problem_type == TS_LINEAR ? PETSC_TRUE : PETSC_FALSE;
  if (th->linearized && theta > 0) {
    PetscCall(TSMechStepEvalBetween(e, 0, theta, e->t0, 1));
    PetscFunctionReturn(0);
  }
  if (theta == 0) {
    PetscCall(TSMechStepEvalAt(e, 0, e->t0, 1, th->st.q0, th->st.v0));
    PetscFunctionReturn(0);
  }
  ts->ptime     = e->t0;
  ts->time_step = e->tau;
  PetscCall(Theta2StageVecs(ts, th->V));
  ts->ptime     = ptime;
  ts->time_step = dt;
  if (th->endpoint && theta < 1) PetscCall(TSMechStepEvalAt(e, 0, e->t0, 1 - theta, th->st.q0, th->st.v0));
  PetscCall(TSMechStepEvalAt(e, th->endpoint && theta < 1 ? 1 : 0, e->t0 + (th->endpoint ? 1 : theta) * e->tau, th->endpoint ? theta : 1, th->qs, th->vs));
  PetscFunctionReturn(0);
}

static const TSMechFamilyOps Theta2Family = {TSMECH_FAMILY_THETA2, Theta2FamilyTypes, PETSC_TRUE, Theta2SchemeDeclare, Theta2SchemeGet, Theta2SchemeSet, Theta2SchemeCheck, Theta2Properties, TSTheta2GetPreviousVelocity_Theta2, TSTheta2SetPreviousVelocity_Theta2, Theta2Descriptions, Theta2Valued, Theta2StepEval};

/*MC
  TSTHETA2 - "theta2": the theta method for M q'' + f(t, q, q') = 0 in velocity form.

  Options: -ts_theta_theta, -ts_theta_endpoint, -ts_theta_initial_guess_extrapolate,
  -ts_theta_linearized, -ts_theta_linearized_guess <zero,velocity,predictor,predictor_zero,
  predictor_extrapolate,extrapolate>, -ts_theta_matrix_free, -ts_theta_pc_rebuild_growth <1.1>,
  -ts_theta_pc_definite, -ts_theta_pc_reduced.
M*/
static PetscErrorCode TSCreate_Theta2(TS ts)
{
  TS_Theta2 *th;

  PetscFunctionBegin;
  ts->ops->reset          = TSReset_Theta2;
  ts->ops->destroy        = TSDestroy_Theta2;
  ts->ops->view           = TSView_Theta2;
  ts->ops->setup          = TSSetUp_Theta2;
  ts->ops->setfromoptions = TSSetFromOptions_Theta2;
  ts->ops->step           = TSStep_Theta2;
  ts->ops->evaluatewlte   = TSEvaluateWLTE_Theta2;
  ts->ops->rollback       = TSRollBack_Theta2;
  ts->ops->snesfunction   = SNESTSFormFunction_Theta2;
  ts->ops->snesjacobian   = SNESTSFormJacobian_Theta2;
  ts->usessnes            = PETSC_TRUE;
  /* a failed step is retried with a smaller one, the step the run asked for kept otherwise (bitwise
     that of fixed steps); explicit Euler (theta 0) keeps fixed steps */
  ts->default_adapt_type = TSADAPTINCREMENT;

  PetscCall(PetscNew(&th));
  ts->data        = (void *)th;
  th->Theta       = 0.5;
  th->endpoint    = PETSC_FALSE;
  th->extrapolate = PETSC_FALSE;
  th->linearized  = PETSC_FALSE;
  th->guess       = TSTHETA2_GUESS_VELOCITY;
  PetscCall(TSMechNewtonCreate(ts, "ts_theta_", &th->newton));
  PetscCall(TSMechNewtonSetStageFunction(th->newton, Theta2Stage, ts));

  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetTheta_C", TSTheta2SetTheta_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetTheta_C", TSTheta2GetTheta_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetEndpoint_C", TSTheta2SetEndpoint_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetEndpoint_C", TSTheta2GetEndpoint_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetInitialGuessExtrapolate_C", TSTheta2SetInitialGuessExtrapolate_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetInitialGuessExtrapolate_C", TSTheta2GetInitialGuessExtrapolate_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetLinearized_C", TSTheta2SetLinearized_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetLinearized_C", TSTheta2GetLinearized_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetPreviousVelocity_C", TSTheta2GetPreviousVelocity_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetPreviousVelocity_C", TSTheta2SetPreviousVelocity_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetMatrixFree_C", TSTheta2SetMatrixFree_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetMatrixFree_C", TSTheta2GetMatrixFree_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetPCDefinite_C", TSTheta2SetPCDefinite_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetPCDefinite_C", TSTheta2GetPCDefinite_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetPCReduced_C", TSTheta2SetPCReduced_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetPCReduced_C", TSTheta2GetPCReduced_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetPCLagCoarse_C", TSTheta2SetPCLagCoarse_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetEWSafeguard_C", TSTheta2SetEWSafeguard_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetEWSafeguard_C", TSTheta2GetEWSafeguard_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2SetNonlinearElimination_C", TSTheta2SetNonlinearElimination_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetNonlinearElimination_C", TSTheta2GetNonlinearElimination_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSTheta2GetPCLagCoarse_C", TSTheta2GetPCLagCoarse_Theta2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSMechMerit_C", Theta2Merit));
  PetscFunctionReturn(0);
}

/* The fixed-parameter members of the family, as PETSc's TSBEULER and TSCN wrap TSTHETA. */
static PetscErrorCode TSCreate_Theta2Fixed(TS ts, PetscReal theta, PetscBool endpoint)
{
  TS_Theta2 *th;

  PetscFunctionBegin;
  PetscCall(TSCreate_Theta2(ts));
  th                = (TS_Theta2 *)ts->data;
  th->Theta         = theta;
  th->endpoint      = endpoint;
  th->lock_theta    = PETSC_TRUE;
  th->lock_endpoint = PETSC_TRUE;
  if (theta == 0) ts->default_adapt_type = TSADAPTNONE;
  PetscFunctionReturn(0);
}

/*MC
  TSBEULER2 - "beuler2": implicit Euler in velocity form (theta2 with theta = 1), docs/schemes.md §3.
M*/
static PetscErrorCode TSCreate_BEuler2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSCreate_Theta2Fixed(ts, 1.0, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/*MC
  TSCN2 - "cn2": trapezoidal rule in f (theta2, theta = 1/2, endpoint form), docs/schemes.md §3.
M*/
static PetscErrorCode TSCreate_CN2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSCreate_Theta2Fixed(ts, 0.5, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/*MC
  TSMIDPOINT2 - "midpoint2": the symplectic implicit midpoint rule (theta2, theta = 1/2, one-leg
  form), docs/schemes.md §3.
M*/
static PetscErrorCode TSCreate_Midpoint2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSCreate_Theta2Fixed(ts, 0.5, PETSC_FALSE));
  PetscFunctionReturn(0);
}

/*MC
  TSEULER2 - "euler2": explicit Euler (theta2 with theta = 0): one mass solve per step.
M*/
static PetscErrorCode TSCreate_Euler2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSCreate_Theta2Fixed(ts, 0.0, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* The family's table (scheme.h) and its five types (tsimpl2.h, "Adding a TS type") */
PetscErrorCode TSMechRegisterTheta2(void)
{
  PetscFunctionBegin;
  PetscCall(TSMechSchemeRegister(&Theta2Family));
  PetscCall(TSRegister(TSTHETA2, TSCreate_Theta2));
  PetscCall(TSRegister(TSBEULER2, TSCreate_BEuler2));
  PetscCall(TSRegister(TSCN2, TSCreate_CN2));
  PetscCall(TSRegister(TSMIDPOINT2, TSCreate_Midpoint2));
  PetscCall(TSRegister(TSEULER2, TSCreate_Euler2));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2SetTheta - Sets theta, the location of the stage of the theta method in velocity form
  (docs/schemes.md §2): 0 explicit Euler, 1/2 the midpoint (one-leg) or trapezoidal (endpoint)
  rule, 1 implicit Euler.

  Logically Collective

  Input Parameters:
+ ts    - the TS of type `TSTHETA2` (the fixed members `TSBEULER2`, `TSCN2`, `TSMIDPOINT2`,
          `TSEULER2` accept their own theta only)
- theta - theta in [0, 1]

  Options Database Key:
. -ts_theta_theta <0.5> - theta

  Level: beginner

.seealso: `TSTheta2GetTheta()`, `TSTheta2SetEndpoint()`, `TSTHETA2`
@*/
PetscErrorCode TSTheta2SetTheta(TS ts, PetscReal theta)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscTryMethod(ts, "TSTheta2SetTheta_C", (TS, PetscReal), (ts, theta));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetTheta - Gets theta of a TS of the theta2 family.

  Not Collective

  Input Parameter:
. ts - the TS (`TSTHETA2`, `TSBEULER2`, `TSCN2`, `TSMIDPOINT2`, `TSEULER2`)

  Output Parameter:
. theta - theta in [0, 1]

  Level: beginner

.seealso: `TSTheta2SetTheta()`
@*/
PetscErrorCode TSTheta2GetTheta(TS ts, PetscReal *theta)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscUseMethod(ts, "TSTheta2GetTheta_C", (TS, PetscReal *), (ts, theta));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2SetEndpoint - Chooses the endpoint form, f averaged at both ends of the step
  (trapezoidal in f at theta = 1/2), or the one-leg form, f once at the theta point (the
  symplectic midpoint rule at theta = 1/2) (docs/schemes.md §2, §3).

  Logically Collective

  Input Parameters:
+ ts  - the TS of type `TSTHETA2` (`TSCN2` and `TSMIDPOINT2` have their form fixed)
- flg - PETSC_TRUE for the endpoint form, PETSC_FALSE (default) for the one-leg form

  Options Database Key:
. -ts_theta_endpoint <false> - the endpoint form

  Level: intermediate

.seealso: `TSTheta2GetEndpoint()`, `TSTheta2SetTheta()`
@*/
PetscErrorCode TSTheta2SetEndpoint(TS ts, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscTryMethod(ts, "TSTheta2SetEndpoint_C", (TS, PetscBool), (ts, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetEndpoint - Whether a TS of the theta2 family uses the endpoint form.

  Not Collective

  Input Parameter:
. ts - the TS

  Output Parameter:
. flg - PETSC_TRUE for the endpoint form, PETSC_FALSE for the one-leg form

  Level: intermediate

.seealso: `TSTheta2SetEndpoint()`
@*/
PetscErrorCode TSTheta2GetEndpoint(TS ts, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscUseMethod(ts, "TSTheta2GetEndpoint_C", (TS, PetscBool *), (ts, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2SetInitialGuessExtrapolate - Starts Newton from v+ extrapolated linearly from the
  previous step, instead of from v.

  Logically Collective

  Input Parameters:
+ ts  - the TS of the theta2 family
- flg - PETSC_TRUE to extrapolate

  Options Database Key:
. -ts_theta_initial_guess_extrapolate <false> - extrapolate the initial guess

  Level: intermediate

.seealso: `TSTheta2GetInitialGuessExtrapolate()`, `TSTheta2SetLinearized()`
@*/
PetscErrorCode TSTheta2SetInitialGuessExtrapolate(TS ts, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscTryMethod(ts, "TSTheta2SetInitialGuessExtrapolate_C", (TS, PetscBool), (ts, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetInitialGuessExtrapolate - Whether Newton's initial guess is extrapolated from the
  previous step.

  Not Collective

  Input Parameter:
. ts - the TS of the theta2 family

  Output Parameter:
. flg - PETSC_TRUE if extrapolated

  Level: intermediate

.seealso: `TSTheta2SetInitialGuessExtrapolate()`
@*/
PetscErrorCode TSTheta2GetInitialGuessExtrapolate(TS ts, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscUseMethod(ts, "TSTheta2GetInitialGuessExtrapolate_C", (TS, PetscBool *), (ts, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2SetLinearized - Makes every step exactly one linear solve, with K and D at the start of
  the step, from the given initial guess (the "linearized implicit Euler" of Baraff and Witkin
  1998 and its variants; docs/schemes.md §4 lists the guesses, their right-hand sides and their
  stability).

  Logically Collective

  Input Parameters:
+ ts    - the TS of the theta2 family
. flg   - PETSC_TRUE for one linear solve per step
- guess - the initial guess, `TSTHETA2_GUESS_ZERO`, `_VELOCITY`, `_PREDICTOR`, `_PREDICTOR_ZERO`,
          `_PREDICTOR_EXTRAPOLATE` or `_EXTRAPOLATE`

  Options Database Keys:
+ -ts_theta_linearized <false> - one linear solve per step
- -ts_theta_linearized_guess <velocity> - zero, velocity, predictor, predictor_zero,
  predictor_extrapolate, extrapolate

  Level: intermediate

.seealso: `TSTheta2GetLinearized()`, `TSTheta2Guess`
@*/
PetscErrorCode TSTheta2SetLinearized(TS ts, PetscBool flg, TSTheta2Guess guess)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscTryMethod(ts, "TSTheta2SetLinearized_C", (TS, PetscBool, TSTheta2Guess), (ts, flg, guess));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetLinearized - Whether a TS of the theta2 family takes one linear solve per step, and
  from which initial guess.

  Not Collective

  Input Parameter:
. ts - the TS

  Output Parameters:
+ flg   - PETSC_TRUE in the linearized mode (may be NULL)
- guess - its initial guess (may be NULL)

  Level: intermediate

.seealso: `TSTheta2SetLinearized()`
@*/
PetscErrorCode TSTheta2GetLinearized(TS ts, PetscBool *flg, TSTheta2Guess *guess)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscUseMethod(ts, "TSTheta2GetLinearized_C", (TS, PetscBool *, TSTheta2Guess *), (ts, flg, guess));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetPreviousVelocity - Copies the velocity at the start of the previous step, which the
  extrapolating guesses use, for a checkpoint.

  Collective

  Input Parameters:
+ ts - the TS of the theta2 family
- v  - a vector like the TS's velocity, filled if there is a previous step

  Output Parameter:
. has - whether there is a previous step

  Level: developer

.seealso: `TSTheta2SetPreviousVelocity()`, `MechCheckpointWrite()`
@*/
PetscErrorCode TSTheta2GetPreviousVelocity(TS ts, Vec v, PetscBool *has)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscUseMethod(ts, "TSTheta2GetPreviousVelocity_C", (TS, Vec, PetscBool *), (ts, v, has));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2SetPreviousVelocity - Gives a restarted TS the velocity at the start of the previous
  step (its position is taken from the TS's solution and its time as the current time minus the
  time step, both set before the call), so the run continues as it would have.

  Collective

  Input Parameters:
+ ts - the TS of the theta2 family
- v  - the velocity at the start of the previous step

  Level: developer

.seealso: `TSTheta2GetPreviousVelocity()`, `MechCheckpointRestore()`
@*/
PetscErrorCode TSTheta2SetPreviousVelocity(TS ts, Vec v)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscUseMethod(ts, "TSTheta2SetPreviousVelocity_C", (TS, Vec), (ts, v));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2SetMatrixFree - Applies the Jacobian through the attached system's tangent action
  (`MechSystemSetTangentAction()`) and uses the assembled M + theta tau D + theta^2 tau^2 K only as
  the preconditioning matrix.

  Logically Collective

  Input Parameters:
+ ts     - the TS of the theta2 family
. flg    - PETSC_TRUE for the matrix-free Jacobian
- growth - the preconditioning matrix is assembled again when the linear iterations per Newton
           iteration exceed growth times those of the first step after the last assembly (0: at
           every Newton iteration; PETSC_DEFAULT keeps the current value, 1.1 unless set)

  Options Database Keys:
+ -ts_theta_matrix_free <false> - the matrix-free Jacobian
- -ts_theta_pc_rebuild_growth <1.1> - the growth factor

  Notes:
  The preconditioning matrix is also assembled again when theta tau changes and after a failed
  solve; on a linear system, once. A model without a tangent action is refused at set-up.

  Level: intermediate

.seealso: `TSTheta2GetMatrixFree()`, `TSTheta2SetPCDefinite()`, `MechSystemCreateOperatorShell()`
@*/
PetscErrorCode TSTheta2SetMatrixFree(TS ts, PetscBool flg, PetscReal growth)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscTryMethod(ts, "TSTheta2SetMatrixFree_C", (TS, PetscBool, PetscReal), (ts, flg, growth));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetMatrixFree - Whether the Jacobian is matrix-free, the rebuild growth, and how many
  times the preconditioning matrix has been assembled.

  Not Collective

  Input Parameter:
. ts - the TS of the theta2 family

  Output Parameters (each may be NULL):
+ flg      - PETSC_TRUE for the matrix-free Jacobian
. growth   - the rebuild growth factor
- rebuilds - the assemblies of the preconditioning matrix so far

  Level: intermediate

.seealso: `TSTheta2SetMatrixFree()`
@*/
PetscErrorCode TSTheta2GetMatrixFree(TS ts, PetscBool *flg, PetscReal *growth, PetscInt *rebuilds)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscUseMethod(ts, "TSTheta2GetMatrixFree_C", (TS, PetscBool *, PetscReal *, PetscInt *), (ts, flg, growth, rebuilds));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2SetPCDefinite - Builds the preconditioning matrix M + theta tau D~ + theta^2 tau^2 K~ from
  the attached system's semidefinite approximation of its tangents (MechSystemSetTangentDefinite():
  compressed springs clamped) while the Jacobian stays exact, so Newton converges to the same
  answer and CG with incomplete Cholesky or algebraic multigrid keeps a definite preconditioner.

  Logically Collective

  Input Parameters:
+ ts  - the TS (theta2, beuler2, cn2, midpoint2)
- flg - PETSC_TRUE to use the semidefinite approximation

  Options Database Key:
. -ts_theta_pc_definite <bool> - default false

  Notes:
  With the matrix-free Jacobian (TSTheta2SetMatrixFree()) the assembled preconditioning matrix is
  the semidefinite one, at no extra cost. With the assembled Jacobian the option adds a second
  matrix of the same size, assembled at every Jacobian evaluation beside the exact one. A system
  without the approximation (or with none attached) keeps its exact tangent.

  Level: intermediate

.seealso: `TSTheta2SetMatrixFree()`, `MechSystemSetTangentDefinite()`, `MechSystemComputeOperatorDefinite()`
@*/
PetscErrorCode TSTheta2SetPCDefinite(TS ts, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ts, flg, 2);
  PetscTryMethod(ts, "TSTheta2SetPCDefinite_C", (TS, PetscBool), (ts, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetPCDefinite - Whether the preconditioning matrix is built from the semidefinite
  tangent approximation.

  Not Collective

  Input Parameter:
. ts - the TS of the theta2 family

  Output Parameter:
. flg - PETSC_TRUE if it is

  Level: intermediate

.seealso: `TSTheta2SetPCDefinite()`
@*/
PetscErrorCode TSTheta2GetPCDefinite(TS ts, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidBoolPointer(flg, 2);
  PetscUseMethod(ts, "TSTheta2GetPCDefinite_C", (TS, PetscBool *), (ts, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2SetPCReduced - With the matrix-free Jacobian, builds the preconditioning matrix on the
  attached system's reduced pattern (`MechSystemCreateOperatorReduced()`: the nearest-neighbour
  couplings of the grid models) and lets the system free the matrix of its full pattern, for a
  smaller resident memory.

  Logically Collective

  Input Parameters:
+ ts  - the TS (theta2, beuler2, cn2, midpoint2)
- flg - PETSC_TRUE to use the reduced preconditioning matrix

  Options Database Key:
. -ts_theta_pc_reduced <bool> - default false

  Notes:
  Only with -ts_theta_matrix_free (`TSTheta2SetMatrixFree()`); the model must give a pattern
  builder (`MechSystemSetTangentPattern()`), or set-up fails. The preconditioning matrix and its
  factorization then hold only the kept couplings (on the cloth 5 of 13 blocks per row): the
  Jacobian stays exact, so Newton converges to the same answer to the solver tolerance, with
  more linear iterations. It combines with `TSTheta2SetPCDefinite()`. Set it before `TSSetUp()`.

  Level: intermediate

.seealso: `TSTheta2SetMatrixFree()`, `TSTheta2SetPCDefinite()`, `MechSystemSetTangentPattern()`, `MechSystemCreateOperatorReduced()`
@*/
PetscErrorCode TSTheta2SetPCReduced(TS ts, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ts, flg, 2);
  PetscTryMethod(ts, "TSTheta2SetPCReduced_C", (TS, PetscBool), (ts, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetPCReduced - Whether the matrix-free mode's preconditioning matrix has the system's
  reduced pattern.

  Not Collective

  Input Parameter:
. ts - the TS of the theta2 family

  Output Parameter:
. flg - PETSC_TRUE if it has

  Level: intermediate

.seealso: `TSTheta2SetPCReduced()`
@*/
PetscErrorCode TSTheta2GetPCReduced(TS ts, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidBoolPointer(flg, 2);
  PetscUseMethod(ts, "TSTheta2GetPCReduced_C", (TS, PetscBool *), (ts, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2SetPCLagCoarse - With the matrix-free Jacobian and a `PCMG` with Galerkin coarse
  operators (-pc_type mg on the grid models), lets a rebuild of the preconditioning matrix for
  growing linear iterations renew only the finest level, the coarse levels keeping the Galerkin
  products of an earlier preconditioning matrix.

  Logically Collective

  Input Parameters:
+ ts  - the TS (theta2, beuler2, cn2, midpoint2)
- flg - PETSC_TRUE to lag the coarse levels

  Options Database Key:
. -ts_theta_pc_lag_coarse <bool> - default true

  Notes:
  Every level is rebuilt for the first preconditioning matrix, when theta tau changes, after a
  failed solve, and when the first step after a finest-level rebuild still needs more than twice
  the linear iterations per Newton iteration of the step after the last full rebuild. The Jacobian is unchanged, so the answer is the same to
  the solver tolerance (docs/solvers.md §4). Without `PCMG` it has no effect.

  Level: intermediate

.seealso: `TSTheta2GetPCLagCoarse()`, `TSTheta2SetMatrixFree()`, `MechSystemSetUpPCMG()`
@*/
PetscErrorCode TSTheta2SetPCLagCoarse(TS ts, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ts, flg, 2);
  PetscTryMethod(ts, "TSTheta2SetPCLagCoarse_C", (TS, PetscBool), (ts, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetPCLagCoarse - Whether a rebuild for growing iterations keeps the multigrid coarse
  levels, and how many rebuilds renewed every level.

  Not Collective

  Input Parameter:
. ts - the TS of the theta2 family

  Output Parameters (each may be NULL):
+ flg    - PETSC_TRUE if the coarse levels are lagged
- coarse - the rebuilds of the preconditioning matrix that renewed every level so far (all of
           them without `PCMG`; see `TSTheta2GetMatrixFree()` for the total)

  Level: intermediate

.seealso: `TSTheta2SetPCLagCoarse()`
@*/
PetscErrorCode TSTheta2GetPCLagCoarse(TS ts, PetscBool *flg, PetscInt *coarse)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscUseMethod(ts, "TSTheta2GetPCLagCoarse_C", (TS, PetscBool *, PetscInt *), (ts, flg, coarse));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2SetEWSafeguard - With Eisenstat-Walker forcing terms (`SNESKSPSetUseEW()`), stops each
  linear solve of Newton's method once its residual ||F + J s|| is below factor times Newton's
  tolerance max(atol, rtol ||F_0||): Kelley's safeguard against oversolving the last Newton
  iteration of a step.

  Logically Collective

  Input Parameters:
+ ts     - the TS (theta2, beuler2, cn2, midpoint2)
- factor - in [0, 1); 0 turns the safeguard off

  Options Database Key:
. -ts_theta_ew_safeguard <0.5> - the factor

  Notes:
  It is the KSP's absolute tolerance, set at every Newton iteration (never below the user's
  -ksp_atol). CG tests the unpreconditioned residual under EW, so that is ||F + J s||; a KSP that
  tests another norm, and a run without EW, are left alone (docs/solvers.md §3).

  Level: intermediate

.seealso: `TSTheta2GetEWSafeguard()`, `SNESKSPSetUseEW()`
@*/
PetscErrorCode TSTheta2SetEWSafeguard(TS ts, PetscReal factor)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidLogicalCollectiveReal(ts, factor, 2);
  PetscCheck(factor >= 0 && factor < 1, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "Eisenstat-Walker safeguard %g must be in [0, 1) (-ts_theta_ew_safeguard)", (double)factor);
  PetscTryMethod(ts, "TSTheta2SetEWSafeguard_C", (TS, PetscReal), (ts, factor));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetEWSafeguard - The fraction of Newton's tolerance at which a linear solve stops under
  Eisenstat-Walker forcing terms.

  Not Collective

  Input Parameter:
. ts - the TS of the theta2 family

  Output Parameter:
. factor - the factor (0: off)

  Level: intermediate

.seealso: `TSTheta2SetEWSafeguard()`
@*/
PetscErrorCode TSTheta2GetEWSafeguard(TS ts, PetscReal *factor)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidRealPointer(factor, 2);
  PetscUseMethod(ts, "TSTheta2GetEWSafeguard_C", (TS, PetscReal *), (ts, factor));
  PetscFunctionReturn(0);
}

/*@
  TSTheta2SetNonlinearElimination - Before each step's Newton solve, runs Newton on the points near
  the system's fixed dofs alone, the rest of the state held (nonlinear elimination): the sharp local
  motion a constraint starts, which no extrapolated guess predicts, is then solved for on its patch
  instead of by global Newton iterations.

  Logically Collective

  Input Parameters:
+ ts    - the TS (theta2, beuler2, cn2, midpoint2; Newton mode, not -ts_theta_linearized)
. flg   - PETSC_TRUE to use it
. depth - graph distance of the patch from the fixed dofs in the pattern of the preconditioning
          matrix, or PETSC_DECIDE: the distance that covers reach decay lengths of the step
- reach - the patch's radius in decay lengths theta tau sqrt(k/m) of one step's operator, for the
          automatic depth (PETSC_DEFAULT: 8)

  Options Database Keys:
+ -ts_theta_ne <false> - use it
. -ts_theta_ne_depth <d> - the distance (turns it on)
. -ts_theta_ne_reach <8> - the automatic patch's radius in decay lengths
. -ts_theta_ne_max_it <3> - local Newton iterations at most
. -ts_theta_ne_rtol <1e-4> - reduction of the patch residual at which they stop
- -ts_theta_ne_ksp_type, -ts_theta_ne_pc_type, ... - the patch's linear solver (default GMRES with ILU)

  Notes:
  The model provides its force and tangent on a patch (`MechSystemSetPatch()`: the grid models
  chain, cloth and lattice) and a diagonal mass. The automatic depth estimates k/m from the
  tangent next to the fixed dofs at the first step (grid models: a structured grid, whose stencil
  width gives the spacings per graph step) and follows theta tau; on the cloth at 1 ms it is about
  n/16. Each rank eliminates its own patch points with the values of other ranks held, so the work
  falls on the ranks that hold the fixed dofs. The result is the same to Newton's tolerance
  (docs/solvers.md §3).

  Level: intermediate

.seealso: `TSTheta2GetNonlinearElimination()`, `MechSystemSetPatch()`, `MechSystemSetFixed()`
@*/
PetscErrorCode TSTheta2SetNonlinearElimination(TS ts, PetscBool flg, PetscInt depth, PetscReal reach)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ts, flg, 2);
  PetscValidLogicalCollectiveInt(ts, depth, 3);
  PetscValidLogicalCollectiveReal(ts, reach, 4);
  PetscCheck(depth >= 1 || depth == PETSC_DECIDE, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "Nonlinear elimination depth %" PetscInt_FMT " must be at least 1, or PETSC_DECIDE (-ts_theta_ne_depth)", depth);
  PetscCheck(reach > 0 || reach == (PetscReal)PETSC_DEFAULT, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "Nonlinear elimination reach %g must be positive (-ts_theta_ne_reach)", (double)reach);
  PetscTryMethod(ts, "TSTheta2SetNonlinearElimination_C", (TS, PetscBool, PetscInt, PetscReal), (ts, flg, depth, reach));
  PetscFunctionReturn(0);
}

/*@
  TSTheta2GetNonlinearElimination - Whether nonlinear elimination is on, the depth of its patch and
  the local Newton iterations it has done.

  Collective

  Input Parameter:
. ts - the TS (theta2 family)

  Output Parameters:
+ flg   - whether it is on, or NULL
. depth - the graph distance of the patch in use (0 before the first step), or NULL
- its   - local Newton iterations so far, summed over the ranks, or NULL

  Level: intermediate

.seealso: `TSTheta2SetNonlinearElimination()`
@*/
PetscErrorCode TSTheta2GetNonlinearElimination(TS ts, PetscBool *flg, PetscInt *depth, PetscInt *its)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscUseMethod(ts, "TSTheta2GetNonlinearElimination_C", (TS, PetscBool *, PetscInt *, PetscInt *), (ts, flg, depth, its));
  PetscFunctionReturn(0);
}
