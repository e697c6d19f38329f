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
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSMechMerit_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSMechGetNewton_C", NULL));
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

/* The Newton object, for the settings every implicit type shares (newtonapi.c) */
static PetscErrorCode TSMechGetNewton_Theta2(TS ts, TSMechNewton *newton)
{
  PetscFunctionBegin;
  *newton = ((TS_Theta2 *)ts->data)->newton;
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

  With tau the step, v = q' and the position recomputed from v+ after every Newton iterate (so the
  position residual is always zero):
.vb
  q+ = q + tau ((1 - theta) v + theta v+)
  endpoint:  R(v+) = M (v+ - v) + tau ((1 - theta) f(t, q, v) + theta f(t + tau, q+, v+))
  one-leg:   R(v+) = M (v+ - v) + tau f(t + theta tau, q_theta, v_theta),
             v_theta = (1 - theta) v + theta v+,  q_theta = q + theta tau v_theta
  J = dR/dv+ = M + theta tau D + theta^2 tau^2 K
.ve

  Level: beginner

  Notes:
  beuler2, cn2, midpoint2 and euler2 fix theta and the form (`TSBEULER2`, `TSCN2`, `TSMIDPOINT2`,
  `TSEULER2`), so -ts_theta_theta and -ts_theta_endpoint are not read for them, and take the other
  options. The options (the names are those of PETSc's TSTHETA), each on the page of its setter:
  -ts_theta_theta (`TSTheta2SetTheta()`), -ts_theta_endpoint (`TSTheta2SetEndpoint()`),
  -ts_theta_initial_guess_extrapolate (`TSTheta2SetInitialGuessExtrapolate()`), -ts_theta_linearized and
  -ts_theta_linearized_guess (`TSTheta2SetLinearized()`), -ts_theta_matrix_free and
  -ts_theta_pc_rebuild_growth (`TSTheta2SetMatrixFree()`), -ts_theta_pc_definite
  (`TSTheta2SetPCDefinite()`), -ts_theta_pc_reduced (`TSTheta2SetPCReduced()`),
  -ts_theta_pc_lag_coarse (`TSTheta2SetPCLagCoarse()`), -ts_theta_ew_safeguard
  (`TSTheta2SetEWSafeguard()`), -ts_theta_ne and its -ts_theta_ne_* (`TSTheta2SetNonlinearElimination()`);
  the mass solve of theta = 0: -mass_ksp_*, -mass_pc_* (`MechSystemSolveMass()`). What they do in
  practice, measured: docs/ts-types.md.

.seealso: `TSMIDPOINT2`, `TSCN2`, `TSBEULER2`, `TSEULER2`, `TSMechSetSystem()`
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
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSMechMerit_C", Theta2Merit));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSMechGetNewton_C", TSMechGetNewton_Theta2));
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
