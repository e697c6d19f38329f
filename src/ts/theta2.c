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

  TSMechStepState st; /* start-of-step state, previous step, error estimate */

  Vec       V;                 /* Newton unknown v+ */
  Vec       qs, vs, as;        /* arguments of F at the stage */
  Vec       xhat, ahat, a0hat; /* a prescribed motion: x^_f and a^_f of the step (Theta2PrescribedVelocity()) */
  PetscReal xhat_t, xhat_tau;  /* the step they belong to */
  Vec       ft;                /* F(t, q, v, 0) = f at the start of the step */
  Vec       R;                 /* work */
  Vec       rhs, w;            /* work of the linearized mode, created at its first step */
  Mat       K;                 /* K alone, for the linearized mode with a position residual */
  PetscReal stage_time;

  PetscReal Jscale; /* theta tau of the assembled Jacobian, for reuse on linear problems */
  PetscBool Jvalid; /* J holds M + theta tau D + theta^2 tau^2 K for Jscale */
  PetscBool Kvalid; /* K holds K (linear problems) */

  /* matrix-free Jacobian: the model's tangent action, with the assembled operator as the
     preconditioning matrix, rebuilt only when theta tau changes or the linear iterations grow */
  PetscBool matrixfree;
  PetscReal pcgrowth; /* rebuild when KSP iterations per Newton iteration exceed pcgrowth * its0; 0: always */
  PetscBool Pvalid, pcstale;
  PetscReal Pscale;
  PetscReal its0;     /* KSP iterations per Newton iteration of the first step after a rebuild (< 0: to be measured) */
  PetscInt  rebuilds; /* preconditioning matrices assembled */
  /* -pc_type mg: a rebuild for growing iterations keeps the coarse levels (Theta2RebuildCoarse()) */
  PetscBool        lagcoarse, coarsestale, lastfull;
  PetscReal        its0full;       /* its0 after the last rebuild of every level */
  PetscInt         coarserebuilds; /* rebuilds of every level */
  PCMGGalerkinType galerkin;       /* PCMG's own Galerkin type (-pc_mg_galerkin); PC_MG_GALERKIN_EXTERNAL: not PCMG */

  /* preconditioning matrix from the system's semidefinite tangent (MechSystemSetTangentDefinite()) */
  PetscBool pcdefinite;
  PetscBool Psep; /* the assembled mode's separate preconditioning matrix is ours */

  /* matrix-free: the preconditioning matrix of the system's reduced pattern (MechSystemCreateOperatorReduced()) */
  PetscBool pcreduced;
  PetscBool Pred; /* the preconditioning matrix is the reduced one */

  /* Newton's absolute tolerance while extrapolating: the one last given to the SNES (< 0: none), and the user's */
  PetscReal atol_applied, atol_user;

  /* Newton's round-off floor (Theta2SNESConverged()): the residual scale of this step and of the
     last step that evaluated one (< 0: not evaluated), the previous iterate's residual norm */
  PetscReal rscale, rscaleprev, fnormprev;

  /* -snes_ksp_ew: a linear solve stops at ewguard times Newton's tolerance (Theta2GuardOversolve()) */
  PetscReal ewguard;
  PetscReal newtontol;                 /* Newton's tolerance of this solve, max(atol, rtol ||F_0||) */
  PetscReal katol_applied, katol_user; /* the KSP's absolute tolerance set here last, and the user's */

  /* nonlinear elimination near the fixed dofs (elimination.c): on, graph distance (PETSC_DECIDE: from
     nereach decay lengths of the step, with the estimate neratio of k/m, < 0 unknown), local Newton iterations, tolerance */
  PetscBool         neon;
  PetscInt          nedepth, nemaxit;
  PetscReal         nereach, neratio, nertol;
  TSMechElimination ne; /* created at the first step that uses it */
} TS_Theta2;

/* Whether the preconditioning matrix is the semidefinite one */
static inline PetscBool Theta2PCDefinite(const TS_Theta2 *th)
{
  return th->pcdefinite;
}

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

/* P = M + theta tau D + theta^2 tau^2 K at (t, q, v, a), assembled; with definite, from the
   system's semidefinite approximation of K and D (MechSystemComputeOperatorDefinite()) */
static PetscErrorCode Theta2AssembleJacobian(TS ts, PetscReal t, Vec q, Vec v, Vec a, Mat P, PetscBool definite)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;
  PetscReal  s  = th->Theta * ts->time_step;

  PetscFunctionBegin;
  if (th->st.sys && definite) {
    PetscCall(MechSystemComputeOperatorDefinite(th->st.sys, t, q, v, s * s, s, 1.0, P));
  } else if (th->st.sys) {
    PetscCall(MechSystemComputeOperator(th->st.sys, t, q, v, s * s, s, 1.0, P));
  } else {
    PetscCall(TSComputeI2Jacobian(ts, t, q, v, a, 1.0 / s, 1.0 / (s * s), P, P));
    PetscCall(MatScale(P, s * s));
  }
  PetscFunctionReturn(0);
}

/*
  The coarse operators of a PCMG from the finest P, each the Galerkin product of the next finer
  (MechGridGalerkin(): on several processes cheaper than PCMG's own MatPtAP()), given to the
  levels' smoothers; later calls recompute them in place.
*/
static PetscErrorCode Theta2GalerkinLevels(PC pc, Mat P)
{
  PetscInt n, l;
  Mat      Af = P;

  PetscFunctionBegin;
  PetscCall(PCMGGetLevels(pc, &n));
  for (l = n - 1; l > 0; l--) {
    Mat       Interp, Ac = NULL;
    KSP       smoother;
    PetscBool set;

    PetscCall(PCMGGetInterpolation(pc, l, &Interp));
    PetscCall(PCMGGetSmoother(pc, l - 1, &smoother));
    PetscCall(KSPGetOperatorsSet(smoother, NULL, &set));
    if (set) {
      PetscCall(KSPGetOperators(smoother, NULL, &Ac));
      PetscCall(MechGridGalerkin(Af, Interp, MAT_REUSE_MATRIX, PETSC_DEFAULT, &Ac));
    } else {
      PetscCall(MechGridGalerkin(Af, Interp, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Ac));
      PetscCall(KSPSetOperators(smoother, Ac, Ac));
      PetscCall(MatDestroy(&Ac));
      PetscCall(KSPGetOperators(smoother, NULL, &Ac));
    }
    Af = Ac;
  }
  PetscFunctionReturn(0);
}

/*
  Whether a new preconditioning matrix P also rebuilds the coarse levels of a PCMG (Galerkin
  products of P, Theta2GalerkinLevels(); PCMG's own products are switched off) or keeps those of
  an earlier P (docs/solvers.md §4, "Lagged coarse levels"). A
  rebuild for growing iterations keeps them: the finest level's smoother (its diagonal blocks and
  Chebyshev bounds) follows the new P, and the Galerkin products, 1.7 s of a 4.9 s rebuild at 1024²,
  are skipped. Every level is rebuilt for the first P, a new theta tau (the coarse operators are
  M + theta tau D + theta^2 tau^2 K of another tau), after a failed solve, and when the first step
  after a finest-level rebuild still needs more than twice the iterations of the last full one
  (Theta2WatchPreconditioner()). Nothing changes when the PC is not PCMG or has no Galerkin
  products of its own.
*/
static PetscErrorCode Theta2RebuildCoarse(TS ts, Mat P, PetscBool full)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;
  SNES       snes;
  KSP        ksp;
  PC         pc;
  PetscBool  ismg;

  PetscFunctionBegin;
  th->lastfull = PETSC_TRUE;
  PetscCall(TSGetSNES(ts, &snes));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &ismg));
  if (ismg && th->coarserebuilds == 0) PetscCall(PCMGGetGalerkin(pc, &th->galerkin));
  if (ismg && th->galerkin < PC_MG_GALERKIN_NONE) {
    PetscCall(PCMGSetGalerkin(pc, PC_MG_GALERKIN_NONE));
    if (full) PetscCall(Theta2GalerkinLevels(pc, P));
    th->lastfull = full;
  }
  if (th->lastfull) {
    th->coarserebuilds++;
    th->coarsestale = PETSC_FALSE;
  } else PetscCall(PetscInfo(ts, "Finest multigrid level only: the coarse levels keep the Galerkin products of an earlier preconditioning matrix\n"));
  PetscFunctionReturn(0);
}

/*
  Matrix-free: J, the system's operator shell, is linearized at every call (once on linear
  problems); the preconditioning matrix P only when there is none for this theta tau or the
  previous steps marked it stale (Theta2WatchPreconditioner()). Since theta tau is fixed within
  a step, a lagged P is the exact Jacobian of a nearby state, never of another equation.
*/
static PetscErrorCode Theta2ComputeJacobianMF(TS ts, PetscReal t, Vec q, Vec v, Vec a, Mat J, Mat P)
{
  TS_Theta2 *th    = (TS_Theta2 *)ts->data;
  PetscReal  s     = th->Theta * ts->time_step;
  PetscBool  fixed = ts->problem_type == TS_LINEAR ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBegin;
  if (!(fixed && th->Jvalid && th->Jscale == s)) {
    PetscCall(MechSystemLinearizeOperatorShell(th->st.sys, t, q, v, s * s, s, 1.0, J));
    th->Jscale = s;
    th->Jvalid = PETSC_TRUE;
  }
  if (th->Pvalid && th->Pscale == s && (fixed || !th->pcstale)) PetscFunctionReturn(0);
  PetscCall(PetscInfo(ts, "Assembling the preconditioning matrix (%s)\n", !th->Pvalid ? "first" : (th->Pscale != s ? "new theta tau" : "linear iterations grew")));
  PetscCall(Theta2AssembleJacobian(ts, t, q, v, a, P, Theta2PCDefinite(th)));
  PetscCall(Theta2RebuildCoarse(ts, P, !th->Pvalid || th->Pscale != s || th->coarsestale || !th->lagcoarse));
  th->Pvalid  = PETSC_TRUE;
  th->Pscale  = s;
  th->pcstale = th->pcgrowth == 0 ? PETSC_TRUE : PETSC_FALSE;
  th->its0    = -1;
  th->rebuilds++;
  PetscFunctionReturn(0);
}

/*
  After a solve of nits Newton iterations with lits linear iterations: the first step after a
  rebuild sets the reference its0, a later one with more than pcgrowth its0 per Newton iteration
  (or a failed solve) marks P stale for the next Jacobian evaluation.
*/
static PetscErrorCode Theta2WatchPreconditioner(TS ts, PetscInt nits, PetscInt lits, PetscBool ok)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;
  PetscReal  per;

  PetscFunctionBegin;
  if (!th->matrixfree) PetscFunctionReturn(0);
  if (!ok) {
    th->pcstale     = PETSC_TRUE;
    th->coarsestale = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  if (nits <= 0) PetscFunctionReturn(0);
  per = (PetscReal)lits / (PetscReal)nits;
  if (th->its0 < 0) {
    th->its0 = PetscMax(per, 1.0);
    if (th->lastfull) th->its0full = th->its0;
    else if (th->pcgrowth > 0 && th->its0 > 2.0 * th->its0full) {
      /* a new finest level did not bring the iterations back: the coarse levels are stale. Twice,
         not pcgrowth: the iterations after a full rebuild also grow with the state (2.7 to 4.7 in
         10 steps of the 1024² cloth with fixed linear tolerances) */
      PetscCall(PetscInfo(ts, "%g linear iterations per Newton iteration after a finest-level rebuild against %g after the last full one: coarse levels stale\n", (double)th->its0, (double)th->its0full));
      th->pcstale     = PETSC_TRUE;
      th->coarsestale = PETSC_TRUE;
    }
  } else if (th->pcgrowth > 0 && per > th->pcgrowth * th->its0) {
    PetscCall(PetscInfo(ts, "%g linear iterations per Newton iteration against %g after the last rebuild: preconditioner stale\n", (double)per, (double)th->its0));
    th->pcstale = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/*
  P = M + theta tau D + theta^2 tau^2 K at (t, q, v, a); reused on linear problems. With the
  semidefinite preconditioning matrix and the assembled Jacobian, J (exact) and P (semidefinite)
  are two matrices (TSSetUp_Theta2()); a J of the user's (-snes_mf_operator) is only assembled.
*/
static PetscErrorCode Theta2ComputeJacobian(TS ts, PetscReal t, Vec q, Vec v, Vec a, Mat J, Mat P)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;
  PetscReal  s  = th->Theta * ts->time_step;

  PetscFunctionBegin;
  if (th->matrixfree) {
    PetscCall(Theta2ComputeJacobianMF(ts, t, q, v, a, J, P));
    PetscFunctionReturn(0);
  }
  if (ts->problem_type == TS_LINEAR && th->Jvalid && th->Jscale == s) PetscFunctionReturn(0);
  if (th->Psep) {
    PetscCall(Theta2AssembleJacobian(ts, t, q, v, a, J, PETSC_FALSE));
    PetscCall(Theta2AssembleJacobian(ts, t, q, v, a, P, PETSC_TRUE));
  } else {
    PetscCall(Theta2AssembleJacobian(ts, t, q, v, a, P, J != P && Theta2PCDefinite(th) ? PETSC_TRUE : PETSC_FALSE));
  }
  if (J != P && !th->Psep) {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
  /* a PCMG's coarse operators are tsmech's Galerkin products of every new P, as PCMG's own would be */
  PetscCall(Theta2RebuildCoarse(ts, P, PETSC_TRUE));
  th->Jscale = s;
  th->Jvalid = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*
  Eisenstat-Walker forcing terms know nothing of Newton's own tolerance: the last Newton iteration
  of a step asks for a forcing term that takes the nonlinear residual far below it (1e-12 against
  a tolerance of 1e-10 on the 1024^2 cloth), and that solve is the most expensive of the step.
  Kelley's safeguard (docs/solvers.md §3) stops the linear solve once its residual
  ||F + J s||, which the next nonlinear residual follows up to second-order terms, is below
  ewguard times Newton's tolerance max(atol, rtol ||F_0||): the KSP's absolute tolerance. CG tests
  the unpreconditioned residual under EW (TSMechSetUpSecondOrderSolver()), so that is ||F + J s||;
  a KSP that tests another norm (a user's -ksp_norm_type preconditioned) is left alone.
*/
static PetscErrorCode Theta2GuardOversolve(TS ts, SNES snes)
{
  TS_Theta2  *th = (TS_Theta2 *)ts->data;
  PetscBool   ew;
  PetscInt    it;
  PetscReal   atol, rtol, fnorm, katol;
  KSP         ksp;
  KSPNormType norm;

  PetscFunctionBegin;
  PetscCall(SNESKSPGetUseEW(snes, &ew));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPGetNormType(ksp, &norm));
  PetscCall(KSPGetTolerances(ksp, NULL, &katol, NULL, NULL));
  /* a tolerance other than the one set here last is the user's */
  if (katol != th->katol_applied) th->katol_user = katol;
  if (th->ewguard <= 0 || !ew || norm != KSP_NORM_UNPRECONDITIONED) {
    /* off (or turned off since): the user's tolerance back */
    if (th->katol_applied >= 0 && katol == th->katol_applied) PetscCall(KSPSetTolerances(ksp, PETSC_DEFAULT, th->katol_user, PETSC_DEFAULT, PETSC_DEFAULT));
    th->katol_applied = -1;
    PetscFunctionReturn(0);
  }
  PetscCall(SNESGetIterationNumber(snes, &it));
  if (it == 0) {
    PetscCall(SNESGetTolerances(snes, &atol, &rtol, NULL, NULL, NULL));
    PetscCall(SNESGetFunctionNorm(snes, &fnorm));
    th->newtontol = PetscMax(atol, rtol * fnorm);
  }
  th->katol_applied = PetscMax(th->katol_user, th->ewguard * th->newtontol);
  if (th->katol_applied != katol) PetscCall(KSPSetTolerances(ksp, PETSC_DEFAULT, th->katol_applied, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscFunctionReturn(0);
}

static PetscErrorCode SNESTSFormJacobian_Theta2(SNES snes, Vec x, Mat J, Mat P, TS ts)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(Theta2GuardOversolve(ts, snes));
  PetscCall(Theta2StageVecs(ts, x));
  PetscCall(Theta2ComputeJacobian(ts, th->stage_time, th->qs, th->vs, th->as, J, P));
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

/*
  Newton's tolerance for an extrapolated guess (docs/solvers.md §3). SNES tests the residual
  against rtol times the residual of its own initial guess; the extrapolated guess starts far
  closer than v (residual 1e-2 to 1e-3 of it on the cloth), so the relative test would ask the
  better guess for a far smaller residual, down to round-off, and spend an extra iteration. The
  step's scale is the residual at v, the guess without extrapolation: the absolute tolerance of
  this step becomes rtol ||R(v)|| (never below the user's -snes_atol), the accuracy asked of
  every step without extrapolation, which a good guess now reaches in one Newton iteration.
  Also starts the step's round-off floor afresh (Theta2SNESConverged()).
*/
static PetscErrorCode Theta2ScaleNewtonTolerance(TS ts)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;
  PetscReal  atol, rtol, fnorm;

  PetscFunctionBegin;
  th->rscale    = -1;
  th->fnormprev = -1;
  PetscCall(SNESGetTolerances(ts->snes, &atol, &rtol, NULL, NULL, NULL));
  /* a tolerance other than the one set here last is the user's */
  if (atol != th->atol_applied) th->atol_user = atol;
  if (th->extrapolate) {
    PetscCall(VecCopy(th->st.v0, th->V));
    PetscCall(SNESComputeFunction(ts->snes, th->V, th->R));
    PetscCall(VecNorm(th->R, NORM_2, &fnorm));
    th->atol_applied = PetscMax(th->atol_user, rtol * fnorm);
  } else th->atol_applied = th->atol_user;
  if (th->atol_applied != atol) PetscCall(SNESSetTolerances(ts->snes, th->atol_applied, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscFunctionReturn(0);
}

/*
  Newton's convergence test (docs/solvers.md §3): SNES's default, and besides it a residual at
  the round-off of its terms, at most TSMECH_ROUNDOFF_FACTOR eps times the step's residual scale
  S (MechSystemComputeResidualScale(): ||M v|| + tau (||f|| + ||K d||/h) at the start of the
  step). No iteration reduces such a residual: a body at rest has one (7e-16 per dof on the
  solid), and the relative test, which asks to reduce it by rtol, iterated to -snes_max_it and
  failed the step. S costs two force evaluations, so it is evaluated at most once a step and only
  where it can decide: at the first step, when the residual is within TSMECH_ROUNDOFF_GATE of the
  floor of the last step that evaluated it (S moves little from step to step), or when Newton
  stagnates (the residual not halved), which also covers a scale that jumped (contact). Ordinary
  steps converge by the default test before any of this. fnorm and S are global: every rank
  decides alike.
*/
static PetscErrorCode Theta2SNESConverged(SNES snes, PetscInt it, PetscReal xnorm, PetscReal snorm, PetscReal fnorm, SNESConvergedReason *reason, void *ctx)
{
  TS         ts  = (TS)ctx;
  TS_Theta2 *th  = (TS_Theta2 *)ts->data;
  PetscReal  eps = PETSC_MACHINE_EPSILON;

  PetscFunctionBegin;
  PetscCall(SNESConvergedDefault(snes, it, xnorm, snorm, fnorm, reason, NULL));
  if (*reason == SNES_CONVERGED_ITERATING && th->st.sys && !PetscIsInfOrNanReal(fnorm)) {
    PetscBool near  = (th->rscaleprev < 0 || fnorm <= TSMECH_ROUNDOFF_GATE * TSMECH_ROUNDOFF_FACTOR * eps * th->rscaleprev) ? PETSC_TRUE : PETSC_FALSE;
    PetscBool stuck = (it > 0 && th->fnormprev >= 0 && fnorm > 0.5 * th->fnormprev) ? PETSC_TRUE : PETSC_FALSE;

    if (th->rscale < 0 && (near || stuck)) {
      PetscCall(MechSystemComputeResidualScale(th->st.sys, ts->ptime, th->st.q0, th->st.v0, ts->time_step, &th->rscale));
      th->rscaleprev = th->rscale;
    }
    if (th->rscale >= 0 && fnorm <= TSMECH_ROUNDOFF_FACTOR * eps * th->rscale) {
      PetscCall(PetscInfo(snes, "Converged: residual norm %g at the round-off of its terms (%g eps times the residual scale %g)\n", (double)fnorm, (double)TSMECH_ROUNDOFF_FACTOR, (double)th->rscale));
      *reason = SNES_CONVERGED_FNORM_ABS;
    }
  }
  th->fnormprev = fnorm;
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
    if (!(ts->problem_type == TS_LINEAR && th->Kvalid)) {
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
  PetscCall(Theta2ComputeJacobian(ts, t, q0, v0, th->as, J, P));
  PetscCall(KSPSetOperators(ksp, J, P));
  PetscCall(VecZeroEntries(th->R));
  PetscCall(KSPSolve(ksp, th->rhs, th->R));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(VecAXPY(x, 1.0, th->R));
  ts->snes_its += 1;
  ts->ksp_its += its;
  *ok = reason >= 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(Theta2WatchPreconditioner(ts, 1, its, *ok));
  if (!*ok) PetscCall(PetscInfo(ts, "Linearized step: linear solve failed (%s)\n", KSPConvergedReasons[reason]));
  PetscFunctionReturn(0);
}

/*
  Nonlinear elimination (elimination.c, docs/solvers.md §3): Newton on the patch near the fixed
  dofs from the guess x, the rest held, before the global Newton iterations. The stage of x as in
  Theta2StageVecs(): one-leg v_s = (1-theta) v + theta x, q_s = q + theta tau v_s, a_s = (x - v) / tau,
  R = tau F; endpoint v_s = x, q_s = q + tau ((1-theta) v + theta x), a_s = (x - v) / (theta tau),
  R = theta tau F + (1-theta) tau f_start. The patch stops at half Newton's tolerance of the step.
  Its depth is given, or covers nereach decay lengths theta tau sqrt(k/m) of the step's operator
  (TSMechEliminationDepth(), with k/m estimated once next to the fixed dofs).
*/
static PetscErrorCode Theta2Eliminate(TS ts, Vec x)
{
  TS_Theta2             *th  = (TS_Theta2 *)ts->data;
  PetscReal              tau = ts->time_step, theta = th->Theta, atol;
  PetscInt               depth = th->nedepth, current;
  TSMechEliminationStage st;
  Mat                    P;

  PetscFunctionBegin;
  PetscCall(SNESGetJacobian(ts->snes, NULL, &P, NULL, NULL));
  /* the automatic patch follows theta tau: built again when the step has moved its reach by a quarter */
  if (depth == PETSC_DECIDE) {
    if (th->neratio < 0) PetscCall(TSMechEliminationEstimateStiffness(ts, th->st.sys, P, th->st.q0, th->st.v0, &th->neratio));
    PetscCall(TSMechEliminationDepth(th->st.sys, th->neratio, theta * tau, th->nereach, &depth));
  }
  PetscCall(TSMechEliminationGetDepth(th->ne, &current));
  if (th->ne && (4.0 * depth > 5.0 * current || 4.0 * depth < 3.0 * current)) PetscCall(TSMechEliminationDestroy(&th->ne));
  if (!th->ne) PetscCall(TSMechEliminationCreate(ts, th->st.sys, P, depth, th->nemaxit, th->nertol, &th->ne));
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
  PetscCall(SNESGetTolerances(ts->snes, &atol, NULL, NULL, NULL, NULL));
  PetscCall(TSMechEliminationSolve(th->ne, &st, th->st.q0, th->st.v0, th->endpoint ? th->ft : NULL, th->qs, th->vs, 0.5 * atol, x));
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
      SNESConvergedReason snesreason;

      if (th->endpoint) PetscCall(Theta2ComputeStartForce(ts));
      PetscCall(Theta2ScaleNewtonTolerance(ts));
      if (th->extrapolate) PetscCall(Theta2Extrapolated(ts, th->V));
      else PetscCall(VecCopy(th->st.v0, th->V));
      if (th->neon) PetscCall(Theta2Eliminate(ts, th->V));
      PetscCall(SNESSolve(ts->snes, NULL, th->V));
      PetscCall(SNESGetIterationNumber(ts->snes, &nits));
      PetscCall(SNESGetLinearSolveIterations(ts->snes, &lits));
      PetscCall(SNESGetConvergedReason(ts->snes, &snesreason));
      PetscCall(Theta2WatchPreconditioner(ts, nits, lits, snesreason > 0 ? PETSC_TRUE : PETSC_FALSE));
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
  PetscCall(TSMechEliminationDestroy(&th->ne));
  th->neratio = -1;
  th->Jvalid  = PETSC_FALSE;
  th->Kvalid  = PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSDestroy_Theta2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSReset_Theta2(ts));
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
  PetscFunctionReturn(0);
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
  PetscCheck(th->ewguard >= 0 && th->ewguard < 1, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "-ts_theta_ew_safeguard %g must be in [0, 1): the fraction of Newton's tolerance at which a linear solve stops", (double)th->ewguard);
  PetscCheck(th->pcgrowth >= 0, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "-ts_theta_pc_rebuild_growth %g must be non-negative", (double)th->pcgrowth);
  PetscCheck(th->nedepth >= 1 || th->nedepth == PETSC_DECIDE, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "-ts_theta_ne_depth %" PetscInt_FMT " must be at least 1 (or -1: from -ts_theta_ne_reach)", th->nedepth);
  PetscCheck(th->nereach > 0, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "-ts_theta_ne_reach %g must be positive", (double)th->nereach);
  PetscCheck(th->nemaxit >= 1, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "-ts_theta_ne_max_it %" PetscInt_FMT " must be at least 1", th->nemaxit);
  PetscCheck(th->nertol > 0 && th->nertol < 1, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "-ts_theta_ne_rtol %g must be in (0, 1)", (double)th->nertol);
  PetscCall(TSMechEliminationDestroy(&th->ne));
  PetscCall(TSMechStepStateSetUp(ts, &th->st, th->Theta == 0 ? PETSC_TRUE : PETSC_FALSE));
  if (th->neon) {
    PetscBool   has   = PETSC_FALSE;
    const char *model = NULL;

    PetscCheck(th->Theta > 0 && !th->linearized, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_INCOMP, "-ts_theta_ne: nonlinear elimination works before Newton's iterations; %s has none", th->Theta == 0 ? "an explicit step (theta 0)" : "the linearized mode (-ts_theta_linearized)");
    if (th->st.sys) PetscCall(MechSystemHasPatch(th->st.sys, &has));
    if (th->st.sys) PetscCall(MechSystemGetModelName(th->st.sys, &model));
    PetscCheck(has, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_INCOMP, "-ts_theta_ne needs a model that evaluates its force and tangent on a patch (MechSystemSetPatch(): chain, cloth, lattice); %s%s", th->st.sys ? "model " : "this TS has no MechSystem (TSMechSetSystem())", th->st.sys ? (model ? model : "(unnamed)") : "");
  }
  PetscCall(VecDuplicate(ts->vec_sol, &th->V));
  PetscCall(VecDuplicate(ts->vec_sol, &th->qs));
  PetscCall(VecDuplicate(ts->vec_sol, &th->vs));
  PetscCall(VecDuplicate(ts->vec_sol, &th->as));
  PetscCall(VecDuplicate(ts->vec_sol, &th->ft));
  PetscCall(VecDuplicate(ts->vec_sol, &th->R));
  PetscCall(TSMechSetUpSNES(ts, th->R));
  /* the round-off floor joins SNES's default test, not a test of the user's (-snes_convergence_test) */
  if (ts->snes->ops->converged == SNESConvergedDefault) PetscCall(SNESSetConvergenceTest(ts->snes, Theta2SNESConverged, ts, NULL));
  th->rscaleprev = -1;
  if (th->matrixfree && th->Theta > 0) {
    PetscBool   has   = PETSC_FALSE;
    const char *model = NULL;
    Mat         J, P;
    KSP         ksp;

    if (th->st.sys) PetscCall(MechSystemHasTangentAction(th->st.sys, &has));
    if (th->st.sys) PetscCall(MechSystemGetModelName(th->st.sys, &model));
    PetscCheck(has, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_INCOMP, "-ts_theta_matrix_free needs a model that applies its tangent itself (MechSystemSetTangentAction(): chain, cloth, lattice); %s%s%s. PETSc's -snes_mf_operator is the finite-difference alternative", th->st.sys ? "model " : "this TS has no MechSystem (TSMechSetSystem())", th->st.sys ? (model ? model : "(unnamed)") : "", th->st.sys ? " only assembles it" : "");
    PetscCall(SNESGetJacobian(ts->snes, &J, &P, NULL, NULL));
    if (J == P) {
      PetscCall(MechSystemCreateOperatorShell(th->st.sys, &J));
      PetscCall(SNESSetJacobian(ts->snes, J, P, NULL, NULL));
      PetscCall(MatDestroy(&J));
    }
    /* the reduced preconditioning matrix replaces the full one, whose pattern the system may then free */
    if (th->pcreduced && !th->Pred) {
      PetscCall(MechSystemHasTangentPattern(th->st.sys, &has));
      PetscCheck(has, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_INCOMP, "-ts_theta_pc_reduced needs a model with a reduced tangent pattern (MechSystemSetTangentPattern(): cloth, lattice); model %s has none", model ? model : "(unnamed)");
      /* the SNES, and its KSP since SNESSetFromOptions(), hold the full matrix: they let go of it
         first, so that the system frees it before the reduced one is built and the two never coexist */
      PetscCall(SNESGetJacobian(ts->snes, &J, NULL, NULL, NULL));
      PetscCall(SNESGetKSP(ts->snes, &ksp));
      PetscCall(SNESSetJacobian(ts->snes, J, J, NULL, NULL));
      PetscCall(KSPSetOperators(ksp, J, J));
      PetscCall(MechSystemReleasePattern(th->st.sys));
      PetscCall(MechSystemCreateOperatorReduced(th->st.sys, &P));
      PetscCall(SNESSetJacobian(ts->snes, J, P, NULL, NULL));
      PetscCall(KSPSetOperators(ksp, J, P));
      PetscCall(MatDestroy(&P));
      th->Pred = PETSC_TRUE;
    } else if (!th->pcreduced && th->Pred) {
      PetscCall(SNESGetJacobian(ts->snes, &J, NULL, NULL, NULL));
      PetscCall(MechSystemCreateOperator(th->st.sys, &P));
      PetscCall(SNESSetJacobian(ts->snes, J, P, NULL, NULL));
      PetscCall(MatDestroy(&P));
      th->Pred = PETSC_FALSE;
    }
  }
  /* assembled Jacobian with the semidefinite preconditioning matrix: P becomes a second matrix */
  if (!th->matrixfree && th->Theta > 0 && th->st.sys) {
    PetscBool has = PETSC_FALSE;
    Mat       J, P;

    PetscCall(MechSystemHasTangentDefinite(th->st.sys, &has));
    PetscCall(SNESGetJacobian(ts->snes, &J, &P, NULL, NULL));
    if (Theta2PCDefinite(th) && has && J == P) {
      PetscCall(MechSystemCreateOperator(th->st.sys, &P));
      PetscCall(SNESSetJacobian(ts->snes, J, P, NULL, NULL));
      PetscCall(MatDestroy(&P));
      th->Psep = PETSC_TRUE;
    } else if (!(Theta2PCDefinite(th) && has) && th->Psep) {
      PetscCall(SNESSetJacobian(ts->snes, J, J, NULL, NULL));
      th->Psep = PETSC_FALSE;
    }
  }
  th->Pvalid  = PETSC_FALSE;
  th->pcstale = PETSC_FALSE;
  if (th->linearized && th->Theta > 0) {
    Mat P;
    PetscCall(SNESGetJacobian(ts->snes, NULL, &P, NULL, NULL));
    /* K holds every coupling: not of the reduced preconditioning matrix's pattern */
    if (th->Pred) PetscCall(MechSystemCreateOperator(th->st.sys, &th->K));
    else PetscCall(MatDuplicate(P, MAT_DO_NOT_COPY_VALUES, &th->K));
  }
  th->Jvalid = PETSC_FALSE;
  th->Kvalid = PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSSetFromOptions_Theta2(TS ts, PetscOptionItems *PetscOptionsObject)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Theta2 (velocity-form theta method for M q'' + f = 0) options");
  if (!th->lock_theta) PetscCall(PetscOptionsReal("-ts_theta_theta", "Location of the stage, theta in [0, 1]: 0 explicit Euler, 1/2 midpoint/trapezoidal, 1 implicit Euler", "TSTheta2SetTheta", th->Theta, &th->Theta, NULL));
  if (!th->lock_endpoint) PetscCall(PetscOptionsBool("-ts_theta_endpoint", "Endpoint form: f averaged at both ends (trapezoidal); false: one-leg form, f at the theta point", "TSTheta2SetEndpoint", th->endpoint, &th->endpoint, NULL));
  PetscCall(PetscOptionsBool("-ts_theta_initial_guess_extrapolate", "Newton's initial guess for v+ extrapolated from the previous step", "TSTheta2SetInitialGuessExtrapolate", th->extrapolate, &th->extrapolate, NULL));
  PetscCall(PetscOptionsBool("-ts_theta_linearized", "Exactly one linear solve per step, K and D at the start of the step", "TSTheta2SetLinearized", th->linearized, &th->linearized, NULL));
  {
    char      name[64];
    PetscBool set, match = PETSC_FALSE;
    PetscInt  g;

    /* read as a name, so that an unknown one is refused at set-up with the list (an error inside
       PETSc's options block would leak the block's bookkeeping) */
    PetscCall(PetscStrncpy(name, TSTheta2Guesses[th->guess], sizeof(name)));
    PetscCall(PetscOptionsString("-ts_theta_linearized_guess", "Initial guess of the linearized step: zero, velocity, predictor, predictor_zero, predictor_extrapolate, extrapolate", "TSTheta2SetLinearized", name, name, sizeof(name), &set));
    if (set) {
      for (g = 0; g <= (PetscInt)TSTHETA2_GUESS_EXTRAPOLATE && !match; g++) PetscCall(PetscStrcasecmp(name, TSTheta2Guesses[g], &match));
      if (match) th->guess = (TSTheta2Guess)(g - 1);
      PetscCall(PetscStrncpy(th->badguess, match ? "" : name, sizeof(th->badguess)));
    }
  }
  PetscCall(PetscOptionsBool("-ts_theta_matrix_free", "Jacobian applied by the model's kernel; the assembled operator only preconditions, rebuilt when the linear iterations grow", "TSTheta2SetMatrixFree", th->matrixfree, &th->matrixfree, NULL));
  {
    PetscBool flg, set;

    PetscCall(PetscOptionsBool("-ts_theta_pc_definite", "Preconditioning matrix from the system's semidefinite tangent (clamped compressed springs), the Jacobian exact", "TSTheta2SetPCDefinite", Theta2PCDefinite(th), &flg, &set));
    if (set) PetscCall(TSTheta2SetPCDefinite(ts, flg));
    PetscCall(PetscOptionsBool("-ts_theta_pc_reduced", "With -ts_theta_matrix_free: preconditioning matrix of the model's reduced pattern (nearest-neighbour couplings), less memory, more linear iterations", "TSTheta2SetPCReduced", th->pcreduced, &flg, &set));
    if (set) PetscCall(TSTheta2SetPCReduced(ts, flg));
  }
  PetscCall(PetscOptionsReal("-ts_theta_pc_rebuild_growth", "With -ts_theta_matrix_free: rebuild the preconditioner when the linear iterations per Newton iteration exceed this factor times those after the last rebuild (0: at every Newton iteration)", "TSTheta2SetMatrixFree", th->pcgrowth, &th->pcgrowth, NULL));
  PetscCall(PetscOptionsReal("-ts_theta_ew_safeguard", "With -snes_ksp_ew: a linear solve stops once its residual is below this fraction of Newton's tolerance, Kelley's safeguard against oversolving (0: off)", "TSTheta2SetEWSafeguard", th->ewguard, &th->ewguard, NULL));
  {
    PetscBool set;

    PetscCall(PetscOptionsBool("-ts_theta_ne", "Nonlinear elimination: Newton on the points near the fixed dofs alone before each step's Newton solve", "TSTheta2SetNonlinearElimination", th->neon, &th->neon, NULL));
    PetscCall(PetscOptionsInt("-ts_theta_ne_depth", "Nonlinear elimination: graph distance of the patch from the fixed dofs; given, turns it on (-1: from -ts_theta_ne_reach)", "TSTheta2SetNonlinearElimination", th->nedepth, &th->nedepth, &set));
    if (set) th->neon = PETSC_TRUE;
    PetscCall(PetscOptionsReal("-ts_theta_ne_reach", "Nonlinear elimination: radius of the automatic patch in decay lengths theta tau sqrt(k/m) of one step", "TSTheta2SetNonlinearElimination", th->nereach, &th->nereach, NULL));
  }
  PetscCall(PetscOptionsInt("-ts_theta_ne_max_it", "Nonlinear elimination: local Newton iterations at most", "TSTheta2SetNonlinearElimination", th->nemaxit, &th->nemaxit, NULL));
  PetscCall(PetscOptionsReal("-ts_theta_ne_rtol", "Nonlinear elimination: reduction of the patch residual at which the local Newton stops", "TSTheta2SetNonlinearElimination", th->nertol, &th->nertol, NULL));
  PetscCall(PetscOptionsBool("-ts_theta_pc_lag_coarse", "With -ts_theta_matrix_free and -pc_type mg: a rebuild for growing iterations renews the finest level only, the coarse levels keep their Galerkin products until theta tau changes, a solve fails or the finest level alone no longer helps", "TSTheta2SetPCLagCoarse", th->lagcoarse, &th->lagcoarse, NULL));
  PetscOptionsHeadEnd();
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
    else {
      PetscBool ew = PETSC_FALSE;

      if (ts->snes) PetscCall(SNESKSPGetUseEW(ts->snes, &ew));
      PetscCall(PetscViewerASCIIPrintf(viewer, "  Newton on v+ (SNES)%s\n", th->extrapolate ? ", initial guess extrapolated" : ""));
      if (ew && th->ewguard > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  Eisenstat-Walker safeguard: a linear solve stops at %g times Newton's tolerance\n", (double)th->ewguard));
    }
    if (th->matrixfree && th->Theta > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  Matrix-free Jacobian (model's tangent action); preconditioning matrix assembled %" PetscInt_FMT " times, rebuilt when linear iterations grow %g-fold\n", th->rebuilds, (double)th->pcgrowth));
    if (th->matrixfree && th->Theta > 0 && th->galerkin < PC_MG_GALERKIN_NONE && th->coarserebuilds) PetscCall(PetscViewerASCIIPrintf(viewer, "  Multigrid coarse levels rebuilt %" PetscInt_FMT " of those times%s\n", th->coarserebuilds, th->lagcoarse ? " (-ts_theta_pc_lag_coarse)" : ""));
    if (th->matrixfree && th->pcreduced && th->Theta > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  Preconditioning matrix of the model's reduced pattern\n"));
    if (th->neon && !th->ne && th->nedepth == PETSC_DECIDE) PetscCall(PetscViewerASCIIPrintf(viewer, "  Nonlinear elimination within %g decay lengths of one step from the fixed dofs (patch built at the first step)\n", (double)th->nereach));
    if (th->neon && !th->ne && th->nedepth != PETSC_DECIDE) PetscCall(PetscViewerASCIIPrintf(viewer, "  Nonlinear elimination within distance %" PetscInt_FMT " of the fixed dofs (patch built at the first step)\n", th->nedepth));
    if (th->neon && th->ne) PetscCall(TSMechEliminationView(th->ne, viewer));
    if (Theta2PCDefinite(th) && th->Theta > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  Preconditioning matrix from the semidefinite tangent approximation%s\n", th->matrixfree ? "" : (th->Psep ? " (a second matrix beside the exact Jacobian)" : " (where the model has one and the preconditioning matrix is not the Jacobian itself)")));
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
  th->Theta  = theta;
  th->Jvalid = PETSC_FALSE;
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

static PetscErrorCode TSTheta2SetMatrixFree_Theta2(TS ts, PetscBool flg, PetscReal growth)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  PetscCheck(growth == (PetscReal)PETSC_DEFAULT || growth >= 0, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "Preconditioner rebuild growth %g must be non-negative (-ts_theta_pc_rebuild_growth)", (double)growth);
  th->matrixfree = flg;
  if (growth != (PetscReal)PETSC_DEFAULT) th->pcgrowth = growth;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2SetPCDefinite_Theta2(TS ts, PetscBool flg)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  th->pcdefinite = flg;
  th->Jvalid     = PETSC_FALSE;
  th->Pvalid     = PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2GetPCDefinite_Theta2(TS ts, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = Theta2PCDefinite((TS_Theta2 *)ts->data);
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2SetPCReduced_Theta2(TS ts, PetscBool flg)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  th->pcreduced = flg;
  th->Pvalid    = PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2GetPCReduced_Theta2(TS ts, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((TS_Theta2 *)ts->data)->pcreduced;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2SetPCLagCoarse_Theta2(TS ts, PetscBool flg)
{
  PetscFunctionBegin;
  ((TS_Theta2 *)ts->data)->lagcoarse = flg;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2GetPCLagCoarse_Theta2(TS ts, PetscBool *flg, PetscInt *coarse)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  if (flg) *flg = th->lagcoarse;
  if (coarse) *coarse = th->coarserebuilds;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2SetEWSafeguard_Theta2(TS ts, PetscReal factor)
{
  PetscFunctionBegin;
  ((TS_Theta2 *)ts->data)->ewguard = factor;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2GetEWSafeguard_Theta2(TS ts, PetscReal *factor)
{
  PetscFunctionBegin;
  *factor = ((TS_Theta2 *)ts->data)->ewguard;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2SetNonlinearElimination_Theta2(TS ts, PetscBool flg, PetscInt depth, PetscReal reach)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  if (depth != th->nedepth || !flg || (reach != (PetscReal)PETSC_DEFAULT && reach != th->nereach)) PetscCall(TSMechEliminationDestroy(&th->ne));
  th->neon    = flg;
  th->nedepth = depth;
  if (reach != (PetscReal)PETSC_DEFAULT) th->nereach = reach;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2GetNonlinearElimination_Theta2(TS ts, PetscBool *flg, PetscInt *depth, PetscInt *its)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  if (flg) *flg = th->neon;
  if (depth) PetscCall(TSMechEliminationGetDepth(th->ne, depth));
  if (its) {
    PetscInt mine;

    PetscCall(TSMechEliminationGetIterations(th->ne, &mine));
    PetscCall(MPIU_Allreduce(&mine, its, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)ts)));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTheta2GetMatrixFree_Theta2(TS ts, PetscBool *flg, PetscReal *growth, PetscInt *rebuilds)
{
  TS_Theta2 *th = (TS_Theta2 *)ts->data;

  PetscFunctionBegin;
  if (flg) *flg = th->matrixfree;
  if (growth) *growth = th->pcgrowth;
  if (rebuilds) *rebuilds = th->rebuilds;
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

const TSMechFamilyOps TSMechFamilyTheta2 = {Theta2FamilyTypes, Theta2SchemeDeclare, Theta2SchemeGet, Theta2SchemeSet, Theta2SchemeCheck};

/*MC
  TSTHETA2 - "theta2": the theta method for M q'' + f(t, q, q') = 0 in velocity form.

  Options: -ts_theta_theta, -ts_theta_endpoint, -ts_theta_initial_guess_extrapolate,
  -ts_theta_linearized, -ts_theta_linearized_guess <zero,velocity,predictor,predictor_zero,
  predictor_extrapolate,extrapolate>, -ts_theta_matrix_free, -ts_theta_pc_rebuild_growth <1.1>,
  -ts_theta_pc_definite, -ts_theta_pc_reduced.
M*/
PetscErrorCode TSCreate_Theta2(TS ts)
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
  ts->default_adapt_type  = TSADAPTNONE;

  PetscCall(PetscNew(&th));
  ts->data          = (void *)th;
  th->Theta         = 0.5;
  th->endpoint      = PETSC_FALSE;
  th->extrapolate   = PETSC_FALSE;
  th->linearized    = PETSC_FALSE;
  th->guess         = TSTHETA2_GUESS_VELOCITY;
  th->pcgrowth      = 1.1;
  th->lagcoarse     = PETSC_TRUE;
  th->galerkin      = PC_MG_GALERKIN_EXTERNAL;
  th->atol_applied  = -1;
  th->ewguard       = 0.5;
  th->katol_applied = -1;
  th->nedepth       = PETSC_DECIDE;
  th->nereach       = 8;
  th->neratio       = -1;
  th->nemaxit       = 3;
  th->nertol        = 1e-4;

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
  PetscFunctionReturn(0);
}

/*MC
  TSBEULER2 - "beuler2": implicit Euler in velocity form (theta2 with theta = 1), docs/schemes.md §3.
M*/
PetscErrorCode TSCreate_BEuler2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSCreate_Theta2Fixed(ts, 1.0, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/*MC
  TSCN2 - "cn2": trapezoidal rule in f (theta2, theta = 1/2, endpoint form), docs/schemes.md §3.
M*/
PetscErrorCode TSCreate_CN2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSCreate_Theta2Fixed(ts, 0.5, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/*MC
  TSMIDPOINT2 - "midpoint2": the symplectic implicit midpoint rule (theta2, theta = 1/2, one-leg
  form), docs/schemes.md §3.
M*/
PetscErrorCode TSCreate_Midpoint2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSCreate_Theta2Fixed(ts, 0.5, PETSC_FALSE));
  PetscFunctionReturn(0);
}

/*MC
  TSEULER2 - "euler2": explicit Euler (theta2 with theta = 0): one mass solve per step.
M*/
PetscErrorCode TSCreate_Euler2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSCreate_Theta2Fixed(ts, 0.0, PETSC_TRUE));
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
