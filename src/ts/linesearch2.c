/*
  SNESLINESEARCHPOTENTIAL ("potential"): backtracking on the step's incremental potential
  (docs/solvers.md §8). A step of a tsmech type whose system is conservative is a stationary point
  of a potential Phi of its Newton unknown x, whose gradient is the step's residual R (static2:
  Phi = V(q + tau x), the potential energy at the step's end; the theta family:
  Phi = 1/2 (x - v)^T M (x - v) + V(q_theta)/theta^2, or + tau (1 - theta) f_0 . x + V(q+) in the
  endpoint form); Newton's step is a descent direction of Phi wherever the step's operator is
  positive definite. Sufficient decrease of Phi (Armijo: Phi(x - lambda y) <= Phi(x) - alpha lambda
  R . y) accepts the full Newton step where the residual grows on the way to the solution, which
  backtracking on |R|^2 cuts to a sliver (Turek-Hron CSM1: |R| 1e-4 -> 0.3 -> 8e-4 -> 1e-8 in
  three full steps; bt reduces it by 0.4 % per iteration). The type gives Phi by composing
  "TSMechMerit_C" on its TS (the SNES's function context); without one (a damped system, a
  follower load, a prescribed motion, another scheme) the merit is 1/2 |R|^2, and the search is
  PETSc's bt (with its slope F . J y) with the same safeguards.

  A refused full step is retried once on the second-order path x - lambda y - lambda^2/2 z,
  J z = D^2R[y, y] (PotentialCurve()), before backtracking along it: the straight Newton step of a
  bending beam misses the shortening that goes with its rotation, which the path's second-order
  term holds (CSM1: 6 Newton iterations instead of 15).

  Differences of Phi at round-off level (near convergence, |R . y| below 100 eps |Phi|) cannot
  refuse a step: it is then accepted when Phi has not grown beyond that noise. A merit or residual
  that is not finite (an inverted element) halves the step.
*/
#include "tsimpl2.h"
#include <petsc/private/linesearchimpl.h>
#include <petsc/private/snesimpl.h>

typedef struct {
  PetscReal alpha; /* the sufficient decrease parameter */
  PetscBool curve; /* a refused full step is retried on the second-order path (PotentialCurve()) */
  Vec       Z, R;  /* the path's second-order term J^-1 D^2R[y, y]; a residual */
} SNESLineSearch_Potential;

/* The type's merit Phi at x, if its TS has one (has false: none) */
static PetscErrorCode PotentialMerit(SNES snes, Vec x, PetscBool *has, PetscReal *phi)
{
  PetscErrorCode (*fn)(SNES, Vec, Vec, void *)               = NULL;
  PetscErrorCode (*merit)(TS, Vec, PetscBool *, PetscReal *) = NULL;
  void *ctx                                                  = NULL;

  PetscFunctionBegin;
  *has = PETSC_FALSE;
  PetscCall(SNESGetFunction(snes, NULL, &fn, &ctx));
  if (fn != SNESTSFormFunction || !ctx) PetscFunctionReturn(0);
  PetscCall(PetscObjectQueryFunction((PetscObject)ctx, "TSMechMerit_C", &merit));
  if (merit) PetscCall((*merit)((TS)ctx, x, has, phi));
  PetscFunctionReturn(0);
}

/*
  The second-order term of the path x(lambda) = x - lambda y - lambda^2/2 z along which the residual
  falls as (1 - lambda) R(x) to second order (docs/solvers.md §8.2): J z = D^2R(x)[y, y], the second
  derivative by the central difference (R(x + h y) + R(x - h y) - 2 R(x)) / h^2, exact for a force
  cubic in the positions (St. Venant-Kirchhoff, springs) at h = 1, halved where a point is not
  finite (an element inverted), and solved with the iteration's own linear solver (with a
  factorization: one back-substitution). has false: no term (an evaluation or the solve failed).
*/
static PetscErrorCode PotentialCurve(SNESLineSearch ls, SNES snes, Vec X, Vec F, Vec Y, Vec W, Vec G, PetscBool *has)
{
  SNESLineSearch_Potential *pt = (SNESLineSearch_Potential *)ls->data;
  KSP                       ksp;
  KSPConvergedReason        kreason;
  PetscReal                 h = 1, norm;
  PetscInt                  kits, trial;
  PetscBool                 domain;

  PetscFunctionBegin;
  *has = PETSC_FALSE;
  if (!pt->Z) PetscCall(VecDuplicate(X, &pt->Z));
  if (!pt->R) PetscCall(VecDuplicate(X, &pt->R));
  for (trial = 0; trial < 4; trial++, h *= 0.5) {
    PetscCall(VecWAXPY(W, h, Y, X));
    PetscCall((*ls->ops->snesfunc)(snes, W, G));
    PetscCall(SNESGetFunctionDomainError(snes, &domain));
    if (domain) continue;
    PetscCall(VecWAXPY(W, -h, Y, X));
    PetscCall((*ls->ops->snesfunc)(snes, W, pt->R));
    PetscCall(SNESGetFunctionDomainError(snes, &domain));
    if (domain) continue;
    PetscCall(VecAXPBYPCZ(G, 1 / (h * h), -2 / (h * h), 1 / (h * h), pt->R, F));
    PetscCall(VecNorm(G, NORM_2, &norm));
    if (!PetscIsInfOrNanReal(norm)) break;
  }
  if (trial == 4) PetscFunctionReturn(0);
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPSolve(ksp, G, pt->Z));
  PetscCall(KSPGetConvergedReason(ksp, &kreason));
  PetscCall(KSPGetIterationNumber(ksp, &kits));
  snes->linear_its += kits;
  if (kreason < 0) PetscFunctionReturn(0);
  PetscCall(PetscInfo(snes, "Second-order path: |D^2R[y, y]| %g at h = %g\n", (double)norm, (double)h));
  *has = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* W = X - lambda Y (- lambda^2/2 Z on the second-order path) */
static PetscErrorCode PotentialPoint(Vec W, Vec X, Vec Y, Vec Z, PetscReal lambda, PetscBool curved)
{
  PetscFunctionBegin;
  PetscCall(VecWAXPY(W, -lambda, Y, X));
  if (curved) PetscCall(VecAXPY(W, -0.5 * lambda * lambda, Z));
  PetscFunctionReturn(0);
}

static PetscErrorCode SNESLineSearchApply_Potential(SNESLineSearch ls)
{
  SNESLineSearch_Potential *pt = (SNESLineSearch_Potential *)ls->data;
  Vec                       X, F, Y, W, G;
  SNES                      snes;
  PetscReal                 xnorm, fnorm, ynorm, gnorm = 0, lambda, minlambda, m0, m = 0, slope, noise;
  PetscInt                  maxits, it;
  PetscBool                 changed_y, changed_w, merit, accepted = PETSC_FALSE, domain, curved = PETSC_FALSE, tried = PETSC_FALSE;
  PetscViewer               monitor;

  PetscFunctionBegin;
  PetscCall(SNESLineSearchGetVecs(ls, &X, &F, &Y, &W, &G));
  PetscCall(SNESLineSearchGetNorms(ls, &xnorm, &fnorm, &ynorm));
  PetscCall(SNESLineSearchGetLambda(ls, &lambda));
  PetscCall(SNESLineSearchGetSNES(ls, &snes));
  PetscCall(SNESLineSearchGetDefaultMonitor(ls, &monitor));
  PetscCall(SNESLineSearchGetTolerances(ls, &minlambda, NULL, NULL, NULL, NULL, &maxits));
  PetscCall(SNESLineSearchSetReason(ls, SNES_LINESEARCH_SUCCEEDED));
  PetscCall(SNESLineSearchPreCheck(ls, X, Y, &changed_y));

  /* the merit at the start and its slope along -y: Phi with R . y, or 1/2 |R|^2 with R . J y */
  PetscCall(PotentialMerit(snes, X, &merit, &m0));
  if (merit) {
    PetscCall(VecDotRealPart(F, Y, &slope));
    slope = -slope;
    /* not a descent direction of Phi (an indefinite operator): the residual's merit this time; nor
       where the decrease the slope predicts lies below Phi's round-off (near convergence, where Phi,
       a sum over the body, cannot tell the steps apart but the residual can) */
    if (!(slope < 0) || PetscIsInfOrNanReal(m0) || -slope <= 1000 * PETSC_MACHINE_EPSILON * PetscAbsReal(m0)) merit = PETSC_FALSE;
  }
  if (!merit) {
    Mat J;

    m0 = 0.5 * fnorm * fnorm;
    PetscCall(SNESGetJacobian(snes, &J, NULL, NULL, NULL));
    PetscCall(MatMult(J, Y, W));
    PetscCall(VecDotRealPart(F, W, &slope));
    slope = -PetscAbsReal(slope);
    if (slope == 0) slope = -fnorm * fnorm;
  }

  for (it = 0; it < maxits && lambda >= minlambda; it++) {
    PetscBool finite;

    PetscCall(PotentialPoint(W, X, Y, pt->Z, lambda, curved));
    PetscCall(SNESLineSearchPostCheck(ls, X, Y, W, &changed_y, &changed_w));
    if (changed_y) PetscCall(PotentialPoint(W, X, Y, pt->Z, lambda, curved));
    if (snes->nfuncs >= snes->max_funcs && snes->max_funcs >= 0) {
      snes->reason = SNES_DIVERGED_FUNCTION_COUNT;
      PetscCall(SNESLineSearchSetReason(ls, SNES_LINESEARCH_FAILED_FUNCTION));
      PetscFunctionReturn(0);
    }
    if (merit) {
      PetscCall(PotentialMerit(snes, W, &merit, &m));
    } else {
      PetscCall((*ls->ops->snesfunc)(snes, W, G));
      PetscCall(SNESGetFunctionDomainError(snes, &domain));
      PetscCall(VecNorm(G, NORM_2, &gnorm));
      m = domain ? PETSC_INFINITY : 0.5 * gnorm * gnorm;
    }
    finite = PetscIsInfOrNanReal(m) ? PETSC_FALSE : PETSC_TRUE;
    noise  = merit ? 100 * PETSC_MACHINE_EPSILON * (PetscAbsReal(m0) + PetscAbsReal(m)) : 0;
    if (monitor) {
      PetscCall(PetscViewerASCIIAddTab(monitor, ((PetscObject)ls)->tablevel));
      PetscCall(PetscViewerASCIIPrintf(monitor, "    Line search: lambda = %g, %s %18.16e (start %18.16e, slope %g)\n", (double)lambda, merit ? "incremental potential" : "1/2 |F|^2", (double)m, (double)m0, (double)slope));
      PetscCall(PetscViewerASCIISubtractTab(monitor, ((PetscObject)ls)->tablevel));
    }
    if (finite && m <= m0 + pt->alpha * lambda * slope + noise) {
      accepted = PETSC_TRUE;
      break;
    }
    /* the full step refused: once, the same step on the second-order path, where the decrease
       the slope predicts is far above Phi's round-off (away from the solution, where Newton's line
       misses the curvature of the path; near it, Phi's noise would steer the path's search) */
    if (merit && pt->curve && !tried && -slope > 1e6 * PETSC_MACHINE_EPSILON * PetscAbsReal(m0)) {
      tried = PETSC_TRUE;
      PetscCall(PotentialCurve(ls, snes, X, F, Y, W, G, &curved));
      if (curved) continue;
    }
    if (!finite) lambda *= 0.5;
    else {
      /* the minimum of the quadratic through m0, the slope and m, within [0.1, 0.5] lambda */
      PetscReal next = -slope * lambda * lambda / (2 * (m - m0 - slope * lambda));

      lambda = PetscMin(PetscMax(next, 0.1 * lambda), 0.5 * lambda);
    }
  }
  if (!accepted) {
    PetscCall(PetscInfo(snes, "Line search on the %s failed: lambda %g after %" PetscInt_FMT " trials\n", merit ? "incremental potential" : "residual", (double)lambda, it));
    PetscCall(SNESLineSearchSetReason(ls, SNES_LINESEARCH_FAILED_REDUCT));
    PetscFunctionReturn(0);
  }
  /* the residual at the accepted point (the residual's merit has it already) */
  if (merit) {
    PetscCall((*ls->ops->snesfunc)(snes, W, F));
    PetscCall(SNESGetFunctionDomainError(snes, &domain));
    if (domain) {
      PetscCall(SNESLineSearchSetReason(ls, SNES_LINESEARCH_FAILED_DOMAIN));
      PetscFunctionReturn(0);
    }
    PetscCall(VecNorm(F, NORM_2, &gnorm));
  } else PetscCall(VecCopy(G, F));
  PetscCall(SNESLineSearchSetLambda(ls, lambda));
  /* the step's length (SNES's step-length test): lambda |y| on the line, |W - X| on the path */
  if (curved) PetscCall(VecWAXPY(G, -1.0, X, W));
  PetscCall(VecNormBegin(curved ? G : Y, NORM_2, &ynorm));
  PetscCall(VecNormBegin(W, NORM_2, &xnorm));
  PetscCall(VecNormEnd(curved ? G : Y, NORM_2, &ynorm));
  PetscCall(VecNormEnd(W, NORM_2, &xnorm));
  PetscCall(SNESLineSearchSetNorms(ls, xnorm, gnorm, curved ? ynorm : lambda * ynorm));
  PetscCall(VecCopy(W, X));
  PetscFunctionReturn(0);
}

static PetscErrorCode SNESLineSearchDestroy_Potential(SNESLineSearch ls)
{
  PetscFunctionBegin;
  PetscCall(VecDestroy(&((SNESLineSearch_Potential *)ls->data)->Z));
  PetscCall(VecDestroy(&((SNESLineSearch_Potential *)ls->data)->R));
  PetscCall(PetscFree(ls->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode SNESLineSearchSetFromOptions_Potential(SNESLineSearch ls, PetscOptionItems *PetscOptionsObject)
{
  SNESLineSearch_Potential *pt = (SNESLineSearch_Potential *)ls->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "SNESLineSearch potential options");
  PetscCall(PetscOptionsReal("-snes_linesearch_alpha", "Sufficient decrease of the incremental potential (Armijo)", "SNESLINESEARCHPOTENTIAL", pt->alpha, &pt->alpha, NULL));
  PetscCall(PetscOptionsBool("-snes_linesearch_potential_curve", "Retry a refused full Newton step on the second-order path x - lambda y - lambda^2/2 J^-1 D^2R[y,y]", "SNESLINESEARCHPOTENTIAL", pt->curve, &pt->curve, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(0);
}

static PetscErrorCode SNESLineSearchView_Potential(SNESLineSearch ls, PetscViewer viewer)
{
  SNESLineSearch_Potential *pt = (SNESLineSearch_Potential *)ls->data;
  PetscBool                 iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (iascii) PetscCall(PetscViewerASCIIPrintf(viewer, "  backtracking on the step's incremental potential where the TS type has one, else on 1/2 |F|^2; alpha=%e\n", (double)pt->alpha));
  PetscFunctionReturn(0);
}

/*MC
  SNESLINESEARCHPOTENTIAL - "potential": backtracking (Armijo, quadratic interpolation) on the
  incremental potential of a tsmech type's step, whose gradient is the step's residual (static2: the
  potential energy at the step's end; the theta family: the kinetic term plus the potential at the
  stage), docs/solvers.md §8; on 1/2 |F|^2 like PETSc's bt where the type has none (damped systems,
  follower loads, prescribed motions, discgrad2, gauss2).

  Options Database Keys:
+ -snes_linesearch_type potential - selects it
. -snes_linesearch_alpha <1e-4> - the sufficient decrease parameter
. -snes_linesearch_potential_curve <true> - retry a refused full step on the second-order path
. -snes_linesearch_max_it <40> - trials at most
- -snes_linesearch_minlambda - the smallest step fraction

  Level: intermediate

  Notes:
  Where the full Newton step is refused, it is retried once on the path x - lambda y - lambda^2/2 z
  with J z = D^2R[y, y] (a central difference of the residual along y, one more solve with the
  iteration's operator: a back-substitution with a factorization), along which the residual falls
  as (1 - lambda) R to second order; backtracking then goes on along the path. A merit or a residual that is not finite halves the step (an element inverted by a long step). A
  decrease of the potential below its round-off (100 eps |Phi|) is not asked for. Where the step's
  operator is indefinite (Newton's step no descent direction of the potential) that iteration
  searches on 1/2 |F|^2.

.seealso: `TSSTATIC2`, `TSTHETA2`, `SNESLINESEARCHBT`, `SNESLineSearchSetType()`
M*/
PetscErrorCode SNESLineSearchCreate_Potential(SNESLineSearch ls)
{
  SNESLineSearch_Potential *pt;

  PetscFunctionBegin;
  ls->ops->apply          = SNESLineSearchApply_Potential;
  ls->ops->destroy        = SNESLineSearchDestroy_Potential;
  ls->ops->setfromoptions = SNESLineSearchSetFromOptions_Potential;
  ls->ops->view           = SNESLineSearchView_Potential;
  PetscCall(PetscNew(&pt));
  ls->data    = (void *)pt;
  ls->max_its = 40;
  pt->alpha   = 1e-4;
  pt->curve   = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*
  TSMechSetDefaultLineSearch - At a type's TSSetFromOptions() (before its SNES reads its options):
  where its Newton has an incremental potential (merit), the line search on it becomes the SNES's
  default (docs/solvers.md §8), unless a line search was chosen already (in code; -snes_linesearch_type
  still wins); elsewhere PETSc's default (bt) stays
*/
PetscErrorCode TSMechSetDefaultLineSearch(TS ts, PetscBool merit)
{
  SNES           snes;
  SNESLineSearch ls;

  PetscFunctionBegin;
  if (!merit) PetscFunctionReturn(0);
  PetscCall(TSGetSNES(ts, &snes));
  PetscCall(SNESGetLineSearch(snes, &ls));
  if (!((PetscObject)ls)->type_name) PetscCall(SNESLineSearchSetType(ls, SNESLINESEARCHPOTENTIAL));
  PetscFunctionReturn(0);
}
