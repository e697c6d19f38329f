/*
  newton2: the Newton and preconditioner policy shared by the implicit tsmech types
  (docs/solvers.md §7).

  A type solves, at each stage, R(x) = 0 with the TS's SNES, whose Jacobian is

    J = cM M + cD D + cK K   at (t, q, v)      (TSMechNewtonStage)

  (theta2: cM = 1, cD = theta tau, cK = (theta tau)^2; a stage of another scheme has its own
  coefficients). The object owns everything about J and its preconditioner and nothing about
  the scheme: it never sees the type's context (ts->data), only the TS, the attached MechSystem
  and the stages the type hands it. Its options keep the names of theta2's (-ts_theta_matrix_free,
  ...), or take the prefix the type gives; a type other than theta2 names itself and the options it
  honours beyond the common ones (TSMechNewtonSetType(): nonlinear elimination, lagged coarse
  levels), so that its -help lists only those, in its words, and set-up refuses the others.

  Life cycle, for a type (theta2.c is the example):

    TSCreate_X:           TSMechNewtonCreate(ts, "ts_theta_", &nw);
                          TSMechNewtonSetType(nw, TSX, features)  (not theta2: gauss2.c, discgrad2.c)
                          TSMechNewtonSetStageFunction(nw, XStage, ts);  the stage at an iterate x
                          TSMechNewtonSetJacobianFunction(nw, XJac, ts)  only if R's derivative is
                          not the stage operator (discgrad2.c): XJac assembles it, the stage gives
                          the preconditioning matrix, the matrix-free mode differences R (MATMFFD)
    TSSetFromOptions_X:   inside the type's options block, TSMechNewtonSetFromOptions(nw, PetscOptionsObject)
                          (the settings also through TSMechNewtonSet/Get...(), as TSTheta2Set... do)
    TSSetUp_X:            after TSMechSetUpSNES(ts, R):
                          TSMechNewtonSetUp(nw, sys, TSMECH_NEWTON_FULL, NULL)  (checks the options
                          against the system, sets up the matrix-free operator, the separate
                          preconditioning matrix and the SNES convergence test)
    ts->ops->snesjacobian:  return TSMechNewtonSNESJacobian(snes, x, J, P, nw)  (the EW safeguard,
                          then XStage(x), then TSMechNewtonComputeOperators())
    TSStep_X, each stage: TSMechNewtonPreSolve(nw, q0, v0, xref, x)   (tolerance scaling against the
                          residual at xref, or NULL; the round-off floor starts afresh)
                          [guess in x]; if elimination is on: TSMechNewtonEliminate(nw, s, &est, ...)
                          SNESSolve(ts->snes, NULL, x)
                          TSMechNewtonPostSolve(nw, nits, lits, converged)  (preconditioner lagging)
                          A single linear solve with J instead (a linearized scheme):
                          TSMechNewtonComputeOperators(nw, &stage, J, P); KSPSolve; PostSolve(nw, 1, its, ok)
    TSView_X:             TSMechNewtonView(nw, mode, viewer)
    the family's properties (scheme.h): TSMechNewtonRestartNote(nw, p->restartnote, len) on a
                          nonlinear problem (a restart rebuilds the lagged preconditioner)
    TSReset_X/Destroy_X:  TSMechNewtonReset(nw) / TSMechNewtonDestroy(&nw)

  A type whose Newton runs on several stages at once (gauss2.c: s N unknowns, its own matrices and
  block preconditioner) sets up with TSMECH_NEWTON_BLOCKS: the object installs its convergence test
  (TSMechNewtonSetRoundoffFloor(): the floor at s times the scale, where Newton stagnates) and
  leaves the SNES's matrices alone; the type's Jacobian callback calls TSMechNewtonSNESGuard(), and
  at each step TSMechNewtonBlocksBegin() says whether to assemble the blocks anew, each with
  TSMechNewtonComputeBlock() into a matrix of TSMechNewtonCreateBlockMatrix(); Pre/PostSolve as above.

  Reuse: J and P are reused only while the stage coefficients (cK, cD, cM) are unchanged, so a
  lagged matrix is always the operator of the same equation at a nearby state (a Jacobian lagged
  across TSALPHA2's start-up half steps kept the wrong shift: 186 Newton iterations instead of 24).
*/
#include "tsimpl2.h"
#include "../mech/mechimpl.h"
#include <petsc/private/snesimpl.h>
#include <stdio.h>
#include <ctype.h>

struct _n_TSMechNewton {
  TS                  ts;
  MechSystem          sys;
  char                prefix[64];  /* of the options, e.g. "ts_theta_" */
  char                tsname[32];  /* the type using it, for the help and the messages (TSMechNewtonSetType()) */
  PetscInt            features;    /* TSMechNewtonFeature: the options beyond the common ones it offers */
  char                refused[96]; /* an option of another type's that was given (refused at set-up), or "" */
  const char         *refusedwhy;
  TSMechNewtonStageFn stagefn;
  void               *stagectx;

  /* the type's own Jacobian of its residual (TSMechNewtonSetJacobianFunction()), or NULL: then J is
     the stage operator; ownmf: J is the differenced residual (MATMFFD) made here */
  TSMechNewtonJacobianFn jacfn;
  void                  *jacctx;
  PetscBool              ownmf;
  PetscBool              differenced; /* the matrix-free mode differences the type's residual (MATMFFD) */

  PetscReal Jc[4];  /* (cK, cD, cM, cMf) of the assembled or linearized Jacobian, for reuse on linear problems */
  PetscBool Jvalid; /* J holds the operator of Jc */

  /* matrix-free Jacobian: the model's tangent action, with the assembled operator as the
     preconditioning matrix, rebuilt only when the coefficients change or the linear iterations grow */
  PetscBool matrixfree;
  PetscReal pcgrowth; /* rebuild when KSP iterations per Newton iteration exceed pcgrowth * its0; 0: always */
  PetscBool Pvalid, pcstale;
  PetscReal Pc[4];
  PetscReal its0;     /* KSP iterations per Newton iteration of the first step after a rebuild (< 0: to be measured) */
  PetscInt  rebuilds; /* preconditioning matrices assembled */
  /* -pc_type mg: a rebuild for growing iterations keeps the coarse levels (NewtonRebuildCoarse()) */
  PetscBool        lagcoarse, coarsestale, lastfull;
  PetscReal        its0full;       /* its0 after the last rebuild of every level */
  PetscInt         coarserebuilds; /* rebuilds of every level */
  PCMGGalerkinType galerkin;       /* PCMG's own Galerkin type (-pc_mg_galerkin); PC_MG_GALERKIN_EXTERNAL: not PCMG */
  PetscBool        modelmg;        /* P is a model's multigrid operator (the solid's p-multigrid): its levels lagged alike */

  /* preconditioning matrix from the system's semidefinite tangent (MechSystemSetTangentDefinite()) */
  PetscBool pcdefinite;
  PetscBool Psep; /* the assembled mode's separate preconditioning matrix is ours */

  /* matrix-free: the preconditioning matrix of the system's reduced pattern (MechSystemCreateOperatorReduced()) */
  PetscBool pcreduced;
  PetscBool Pred; /* the preconditioning matrix is the reduced one */

  /* Newton's absolute tolerance while extrapolating: the one last given to the SNES (< 0: none), and the user's */
  PetscReal atol_applied, atol_user;

  /* Newton's round-off floor (NewtonSNESConverged()): the start of the step, the residual scale
     of this step and of the last step that evaluated one (< 0: not evaluated), the previous
     iterate's residual norm */
  Vec       q0, v0;
  PetscReal rscale, rscaleprev, fnormprev;
  PetscReal floorfactor; /* the floor's multiple of the scale: the number of stages an unknown holds (gauss2: s) */
  PetscBool floorstuck;  /* the floor only where Newton stagnates (TSMechNewtonSetRoundoffFloor()) */

  /* -snes_ksp_ew: a linear solve stops at ewguard times Newton's tolerance (NewtonGuardOversolve()) */
  PetscReal ewguard;
  PetscReal newtontol;                 /* Newton's tolerance of this solve, max(atol, rtol ||F_0||) */
  PetscReal katol_applied, katol_user; /* the KSP's absolute tolerance set here last, and the user's */

  /* nonlinear elimination near the fixed dofs (elimination.c): on, graph distance (PETSC_DECIDE: from
     nereach decay lengths of the step, with the estimate neratio of k/m, < 0 unknown), local Newton iterations, tolerance */
  PetscBool         neon;
  PetscInt          nedepth, nemaxit;
  PetscReal         nereach, neratio, nertol;
  TSMechElimination ne; /* created at the first step that uses it */
};

/* The coefficients of a stage, compared exactly: a reused matrix belongs to the same equation */
static inline PetscBool SameCoefficients(const PetscReal a[4], const TSMechNewtonStage *s)
{
  return (a[0] == s->cK && a[1] == s->cD && a[2] == s->cM && a[3] == s->cMf) ? PETSC_TRUE : PETSC_FALSE;
}

static inline void SetCoefficients(PetscReal a[4], const TSMechNewtonStage *s)
{
  a[0] = s->cK;
  a[1] = s->cD;
  a[2] = s->cM;
  a[3] = s->cMf;
}

/*
  TSMechNewtonCreate - The Newton object of a TS, with the defaults of theta2; prefix is that of
  its options after the TS's own ("ts_theta_" gives -ts_theta_matrix_free, ...).
*/
PetscErrorCode TSMechNewtonCreate(TS ts, const char prefix[], TSMechNewton *newton)
{
  TSMechNewton nw;

  PetscFunctionBegin;
  PetscCall(PetscNew(&nw));
  nw->ts = ts;
  PetscCall(PetscStrncpy(nw->prefix, prefix ? prefix : "", sizeof(nw->prefix)));
  PetscCall(PetscStrncpy(nw->tsname, "theta2", sizeof(nw->tsname)));
  nw->features      = TSMECH_NEWTON_FEATURE_ELIMINATION | TSMECH_NEWTON_FEATURE_LAG_COARSE | TSMECH_NEWTON_FEATURE_THETA;
  nw->pcgrowth      = 1.1;
  nw->lagcoarse     = PETSC_TRUE;
  nw->galerkin      = PC_MG_GALERKIN_EXTERNAL;
  nw->atol_applied  = -1;
  nw->ewguard       = 0.5;
  nw->katol_applied = -1;
  nw->rscaleprev    = -1;
  nw->floorfactor   = 1;
  nw->nedepth       = PETSC_DECIDE;
  nw->nereach       = 8;
  nw->neratio       = -1;
  nw->nemaxit       = 3;
  nw->nertol        = 1e-4;
  *newton           = nw;
  PetscFunctionReturn(0);
}

/*
  TSMechNewtonSetType - The type that uses the object (default: theta2, with every feature) and the
  options beyond the common ones it honours (TSMechNewtonFeature): -help lists only those, in the
  type's words, and set-up refuses the others if given
*/
PetscErrorCode TSMechNewtonSetType(TSMechNewton nw, const char type[], PetscInt features)
{
  PetscFunctionBegin;
  PetscCall(PetscStrncpy(nw->tsname, type, sizeof(nw->tsname)));
  nw->features = features;
  PetscFunctionReturn(0);
}

/* TSMechNewtonSetStageFunction - How the SNES Jacobian callback gets the stage at an iterate */
PetscErrorCode TSMechNewtonSetStageFunction(TSMechNewton nw, TSMechNewtonStageFn fn, void *ctx)
{
  PetscFunctionBegin;
  nw->stagefn  = fn;
  nw->stagectx = ctx;
  PetscFunctionReturn(0);
}

/*
  TSMechNewtonSetJacobianFunction - For a type whose residual's derivative is not the stage
  operator (discgrad2: M + tau^2/2 dfbar/dq+ + tau/2 dfbar/dv, two states, non-symmetric): fn
  assembles the exact Jacobian at the iterate x into the matrix it is given. The assembled mode
  then takes J from fn (P = J, or with -pc_definite the stage operator's semidefinite version);
  the matrix-free mode differences the SNES's residual (MATMFFD) and preconditions with the stage
  operator, lagged as for theta2. Everything else (convergence test, EW safeguard, tolerance
  scaling, view) stays the object's.
*/
PetscErrorCode TSMechNewtonSetJacobianFunction(TSMechNewton nw, TSMechNewtonJacobianFn fn, void *ctx)
{
  PetscFunctionBegin;
  nw->jacfn       = fn;
  nw->jacctx      = ctx;
  nw->differenced = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* TSMechNewtonSetDifferenced - The type's matrix-free mode differences its residual (gauss2), for the help and the view */
PetscErrorCode TSMechNewtonSetDifferenced(TSMechNewton nw, PetscBool flg)
{
  PetscFunctionBegin;
  nw->differenced = flg;
  PetscFunctionReturn(0);
}

/*
  P = cM M + cD D + cK K at the stage, assembled; with definite, from the system's semidefinite
  approximation of K and D (MechSystemComputeOperatorDefinite()). A plain I2Jacobian has K's
  coefficient 1: its shifts are cD/cK and cM/cK and the result is scaled by cK.
*/
static PetscErrorCode NewtonAssemble(TSMechNewton nw, const TSMechNewtonStage *s, Mat P, PetscBool definite)
{
  PetscFunctionBegin;
  if (nw->sys && definite) {
    PetscCall(MechSystemComputeOperatorDefinite(nw->sys, s->t, s->q, s->v, s->cK, s->cD, s->cM, P));
    PetscCall(MechSystemAddFixedMass_Private(nw->sys, s->cMf, P));
  } else if (nw->sys) {
    PetscCall(MechSystemComputeOperator(nw->sys, s->t, s->q, s->v, s->cK, s->cD, s->cM, P));
    PetscCall(MechSystemAddFixedMass_Private(nw->sys, s->cMf, P));
  } else {
    PetscReal shiftV, shiftA;

    PetscCheck(s->cK != 0, PetscObjectComm((PetscObject)nw->ts), PETSC_ERR_SUP, "A stage without stiffness term (cK = 0) needs a MechSystem (TSMechSetSystem()): the I2Jacobian has K's coefficient 1");
    /* the one-parameter stages M + s D + s^2 K (every scheme so far) get the shifts 1/s and 1/s^2 as
       computed there, so that the result does not depend on how the coefficients are divided */
    if (s->cD * s->cD == s->cK * s->cM && s->cD != 0) shiftV = s->cM / s->cD;
    else shiftV = s->cD / s->cK;
    shiftA = s->cM / s->cK;
    PetscCall(TSComputeI2Jacobian(nw->ts, s->t, s->q, s->v, s->a, shiftV, shiftA, P, P));
    PetscCall(MatScale(P, s->cK));
  }
  PetscFunctionReturn(0);
}

/*
  The coarse operators of a PCMG from the finest P, each the Galerkin product of the next finer
  (MechGridGalerkin(): on several processes cheaper than PCMG's own MatPtAP()), given to the
  levels' smoothers; later calls recompute them in place.
*/
static PetscErrorCode NewtonGalerkinLevels(PC pc, Mat P)
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
  products of P, NewtonGalerkinLevels(); PCMG's own products are switched off) or keeps those of
  an earlier P (docs/solvers.md §4, "Lagged coarse levels"). A rebuild for growing iterations
  keeps them: the finest level's smoother (its diagonal blocks and Chebyshev bounds) follows the
  new P, and the Galerkin products, 1.7 s of a 4.9 s rebuild at 1024², are skipped. Every level is
  rebuilt for the first P, new stage coefficients (the coarse operators are those of another
  tau), after a failed solve, and when the first step after a finest-level rebuild still needs
  more than twice the iterations of the last full one (TSMechNewtonPostSolve()). Nothing changes
  when the PC is not PCMG or has no Galerkin products of its own.
*/
static PetscErrorCode NewtonRebuildCoarse(TSMechNewton nw, Mat P, PetscBool full)
{
  TS        ts = nw->ts;
  SNES      snes;
  KSP       ksp;
  PC        pc;
  PetscBool ismg;

  PetscFunctionBegin;
  nw->lastfull = PETSC_TRUE;
  PetscCall(TSGetSNES(ts, &snes));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &ismg));
  if (ismg && nw->coarserebuilds == 0) PetscCall(PCMGGetGalerkin(pc, &nw->galerkin));
  if (ismg && nw->galerkin < PC_MG_GALERKIN_NONE) {
    PetscCall(PCMGSetGalerkin(pc, PC_MG_GALERKIN_NONE));
    if (full) PetscCall(NewtonGalerkinLevels(pc, P));
    nw->lastfull = full;
  }
  /* a model's levels were computed with P, or kept (NewtonLagP()) */
  if (ismg && nw->modelmg) nw->lastfull = full;
  if (nw->lastfull) {
    nw->coarserebuilds++;
    nw->coarsestale = PETSC_FALSE;
  } else PetscCall(PetscInfo(ts, "Finest multigrid level only: the coarse levels keep the Galerkin products of an earlier preconditioning matrix\n"));
  PetscFunctionReturn(0);
}

/*
  Matrix-free: J, the system's operator shell, is linearized at every call (once on linear
  problems); the preconditioning matrix P only when there is none for these coefficients or the
  previous steps marked it stale (TSMechNewtonPostSolve()). Since the coefficients are fixed
  within a step, a lagged P is the exact Jacobian of a nearby state, never of another equation.
*/
static PetscErrorCode NewtonLagP(TSMechNewton, const TSMechNewtonStage *, Mat);

static PetscErrorCode NewtonComputeMF(TSMechNewton nw, const TSMechNewtonStage *s, Mat J, Mat P)
{
  TS        ts    = nw->ts;
  PetscBool fixed = ts->problem_type == TS_LINEAR ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBegin;
  if (!(fixed && nw->Jvalid && SameCoefficients(nw->Jc, s))) {
    PetscCall(MechSystemLinearizeOperatorShell(nw->sys, s->t, s->q, s->v, s->cK, s->cD, s->cM, J));
    PetscCall(MechSystemSetOperatorShellFixedMass_Private(J, s->cMf));
    SetCoefficients(nw->Jc, s);
    nw->Jvalid = PETSC_TRUE;
  }
  PetscCall(NewtonLagP(nw, s, P));
  PetscFunctionReturn(0);
}

/* The matrix-free mode's preconditioning matrix: the stage operator, assembled only when there is
   none for these coefficients or the previous steps marked it stale (TSMechNewtonPostSolve()) */
static PetscErrorCode NewtonLagP(TSMechNewton nw, const TSMechNewtonStage *s, Mat P)
{
  TS        ts    = nw->ts;
  PetscBool fixed = ts->problem_type == TS_LINEAR ? PETSC_TRUE : PETSC_FALSE, full;

  PetscFunctionBegin;
  if (nw->Pvalid && SameCoefficients(nw->Pc, s) && (fixed || !nw->pcstale)) PetscFunctionReturn(0);
  PetscCall(PetscInfo(ts, "Assembling the preconditioning matrix (%s)\n", !nw->Pvalid ? "first" : (!SameCoefficients(nw->Pc, s) ? "new theta tau" : "linear iterations grew")));
  full = !nw->Pvalid || !SameCoefficients(nw->Pc, s) || nw->coarsestale || !nw->lagcoarse ? PETSC_TRUE : PETSC_FALSE;
  /* a model's multigrid operator (-pc_type mg on the solid's quadratic elements) keeps its coarse
     levels (and their solvers) when only the finest is renewed */
  PetscCall(MechOperatorIsMultigrid_Private(P, &nw->modelmg));
  if (nw->modelmg) PetscCall(MechOperatorMultigridKeepCoarse_Private(P, full ? PETSC_FALSE : PETSC_TRUE));
  PetscCall(NewtonAssemble(nw, s, P, nw->pcdefinite));
  PetscCall(NewtonRebuildCoarse(nw, P, full));
  nw->Pvalid = PETSC_TRUE;
  SetCoefficients(nw->Pc, s);
  nw->pcstale = nw->pcgrowth == 0 ? PETSC_TRUE : PETSC_FALSE;
  nw->its0    = -1;
  nw->rebuilds++;
  PetscFunctionReturn(0);
}

/*
  TSMechNewtonComputeOperators - J and P of the stage: cM M + cD D + cK K; reused on linear
  problems while the coefficients hold. With the semidefinite preconditioning matrix and the
  assembled Jacobian, J (exact) and P (semidefinite) are two matrices (TSMechNewtonSetUp()); a J
  of the user's (-snes_mf_operator) is only assembled.
*/
PetscErrorCode TSMechNewtonComputeOperators(TSMechNewton nw, const TSMechNewtonStage *s, Mat J, Mat P)
{
  PetscFunctionBegin;
  if (nw->matrixfree) {
    PetscCall(NewtonComputeMF(nw, s, J, P));
    PetscFunctionReturn(0);
  }
  if (nw->ts->problem_type == TS_LINEAR && nw->Jvalid && SameCoefficients(nw->Jc, s)) PetscFunctionReturn(0);
  if (nw->Psep) {
    PetscCall(NewtonAssemble(nw, s, J, PETSC_FALSE));
    PetscCall(NewtonAssemble(nw, s, P, PETSC_TRUE));
  } else {
    PetscCall(NewtonAssemble(nw, s, P, J != P && nw->pcdefinite ? PETSC_TRUE : PETSC_FALSE));
  }
  if (J != P && !nw->Psep) {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
  /* a PCMG's coarse operators are tsmech's Galerkin products of every new P, as PCMG's own would be */
  PetscCall(NewtonRebuildCoarse(nw, P, PETSC_TRUE));
  SetCoefficients(nw->Jc, s);
  nw->Jvalid = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*
  TSMechNewtonPostSolve - After a solve of nits Newton iterations with lits linear iterations
  (ok: it converged): the first step after a rebuild sets the reference its0, a later one with
  more than pcgrowth its0 per Newton iteration (or a failed solve) marks P stale for the next
  Jacobian evaluation.
*/
PetscErrorCode TSMechNewtonPostSolve(TSMechNewton nw, PetscInt nits, PetscInt lits, PetscBool ok)
{
  TS        ts = nw->ts;
  PetscReal per;

  PetscFunctionBegin;
  if (!nw->matrixfree) PetscFunctionReturn(0);
  if (!ok) {
    nw->pcstale     = PETSC_TRUE;
    nw->coarsestale = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  if (nits <= 0) PetscFunctionReturn(0);
  per = (PetscReal)lits / (PetscReal)nits;
  if (nw->its0 < 0) {
    nw->its0 = PetscMax(per, 1.0);
    if (nw->lastfull) nw->its0full = nw->its0;
    else if (nw->pcgrowth > 0 && nw->its0 > 2.0 * nw->its0full) {
      /* a new finest level did not bring the iterations back: the coarse levels are stale. Twice,
         not pcgrowth: the iterations after a full rebuild also grow with the state (2.7 to 4.7 in
         10 steps of the 1024² cloth with fixed linear tolerances) */
      PetscCall(PetscInfo(ts, "%g linear iterations per Newton iteration after a finest-level rebuild against %g after the last full one: coarse levels stale\n", (double)nw->its0, (double)nw->its0full));
      nw->pcstale     = PETSC_TRUE;
      nw->coarsestale = PETSC_TRUE;
    }
  } else if (nw->pcgrowth > 0 && per > nw->pcgrowth * nw->its0) {
    PetscCall(PetscInfo(ts, "%g linear iterations per Newton iteration against %g after the last rebuild: preconditioner stale\n", (double)per, (double)nw->its0));
    nw->pcstale = PETSC_TRUE;
  }
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
static PetscErrorCode NewtonGuardOversolve(TSMechNewton nw, SNES snes)
{
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
  if (katol != nw->katol_applied) nw->katol_user = katol;
  if (nw->ewguard <= 0 || !ew || norm != KSP_NORM_UNPRECONDITIONED) {
    /* off (or turned off since): the user's tolerance back */
    if (nw->katol_applied >= 0 && katol == nw->katol_applied) PetscCall(KSPSetTolerances(ksp, PETSC_DEFAULT, nw->katol_user, PETSC_DEFAULT, PETSC_DEFAULT));
    nw->katol_applied = -1;
    PetscFunctionReturn(0);
  }
  PetscCall(SNESGetIterationNumber(snes, &it));
  if (it == 0) {
    PetscCall(SNESGetTolerances(snes, &atol, &rtol, NULL, NULL, NULL));
    PetscCall(SNESGetFunctionNorm(snes, &fnorm));
    nw->newtontol = PetscMax(atol, rtol * fnorm);
  }
  nw->katol_applied = PetscMax(nw->katol_user, nw->ewguard * nw->newtontol);
  if (nw->katol_applied != katol) PetscCall(KSPSetTolerances(ksp, PETSC_DEFAULT, nw->katol_applied, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscFunctionReturn(0);
}

/*
  TSMechNewtonSNESGuard - The EW safeguard alone, for a type whose SNES Jacobian callback is its
  own (gauss2: the s N stage system, TSMECH_NEWTON_BLOCKS)
*/
PetscErrorCode TSMechNewtonSNESGuard(TSMechNewton nw, SNES snes)
{
  PetscFunctionBegin;
  PetscCall(NewtonGuardOversolve(nw, snes));
  PetscFunctionReturn(0);
}

/*
  TSMechNewtonSetRoundoffFloor - The round-off floor at factor times the residual scale (a residual
  of s stage equations, each at the round-off of one step's terms: s, gauss2), and with stuck only
  where Newton stagnates (the residual not halved), not already when the residual reaches it: a
  tolerance below round-off (gauss2's long runs at -snes_rtol 1e-20) then iterates as long as
  Newton still gains
*/
PetscErrorCode TSMechNewtonSetRoundoffFloor(TSMechNewton nw, PetscReal factor, PetscBool stuck)
{
  PetscFunctionBegin;
  PetscCheck(factor > 0, PetscObjectComm((PetscObject)nw->ts), PETSC_ERR_ARG_OUTOFRANGE, "Residual scale factor %g must be positive", (double)factor);
  nw->floorfactor = factor;
  nw->floorstuck  = stuck;
  PetscFunctionReturn(0);
}

/*
  TSMechNewtonCreateBlockMatrix - A matrix for a one-stage operator of TSMECH_NEWTON_BLOCKS (a
  preconditioner's block): of the system's reduced pattern with pc_reduced, else of its full one
*/
PetscErrorCode TSMechNewtonCreateBlockMatrix(TSMechNewton nw, Mat *P)
{
  PetscBool   has;
  const char *model = NULL;

  PetscFunctionBegin;
  PetscCheck(nw->sys, PetscObjectComm((PetscObject)nw->ts), PETSC_ERR_ORDER, "The Newton object has no MechSystem: call TSMechNewtonSetUp() first");
  if (nw->pcreduced) {
    PetscCall(MechSystemHasTangentPattern(nw->sys, &has));
    PetscCall(MechSystemGetModelName(nw->sys, &model));
    PetscCheck(has, PetscObjectComm((PetscObject)nw->ts), PETSC_ERR_ARG_INCOMP, "-%spc_reduced needs a model with a reduced tangent pattern (MechSystemSetTangentPattern(): cloth, lattice); model %s has none", nw->prefix, model ? model : "(unnamed)");
    PetscCall(MechSystemCreateOperatorReduced(nw->sys, P));
    nw->Pred = PETSC_TRUE;
  } else PetscCall(MechSystemCreateOperator(nw->sys, P));
  PetscFunctionReturn(0);
}

/*
  TSMechNewtonBlocksBegin - At the start of a step of TSMECH_NEWTON_BLOCKS: whether the blocks are
  to be assembled anew (TSMechNewtonComputeBlock() for each). With the matrix-free stage Jacobian
  they are lagged as theta2's preconditioning matrix: kept while tau holds and the linear
  iterations do not grow (TSMechNewtonPostSolve()); with the assembled one, rebuilt every step.
*/
PetscErrorCode TSMechNewtonBlocksBegin(TSMechNewton nw, PetscReal tau, PetscBool *rebuild)
{
  PetscFunctionBegin;
  *rebuild = (nw->matrixfree && nw->Pvalid && nw->Pc[0] == tau && !nw->pcstale) ? PETSC_FALSE : PETSC_TRUE;
  if (!*rebuild) PetscFunctionReturn(0);
  if (nw->matrixfree) PetscCall(PetscInfo(nw->ts, "Assembling the preconditioner's blocks (%s)\n", !nw->Pvalid ? "first" : (nw->Pc[0] != tau ? "new tau" : "linear iterations grew")));
  nw->Pvalid   = PETSC_TRUE;
  nw->Pc[0]    = tau;
  nw->pcstale  = nw->pcgrowth == 0 ? PETSC_TRUE : PETSC_FALSE;
  nw->its0     = -1;
  nw->lastfull = PETSC_TRUE;
  nw->rebuilds++;
  PetscFunctionReturn(0);
}

/*
  TSMechNewtonComputeBlock - One block of TSMECH_NEWTON_BLOCKS: P = cM M + cD D + cK K at the stage,
  assembled (semidefinite with pc_definite), for the type to give its block solver
*/
PetscErrorCode TSMechNewtonComputeBlock(TSMechNewton nw, const TSMechNewtonStage *s, Mat P)
{
  PetscFunctionBegin;
  PetscCall(NewtonAssemble(nw, s, P, nw->pcdefinite));
  PetscFunctionReturn(0);
}

/*
  J and P with the type's own Jacobian (TSMechNewtonSetJacobianFunction()). Matrix-free: J, the
  differenced residual, takes the SNES's iterate and residual as its base when assembled, P is the
  lagged stage operator. Assembled: J from the type, P = J, or the semidefinite stage operator.
*/
static PetscErrorCode NewtonComputeOwn(TSMechNewton nw, Vec x, const TSMechNewtonStage *s, Mat J, Mat P)
{
  PetscFunctionBegin;
  if (nw->matrixfree) {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
    PetscCall(NewtonLagP(nw, s, P));
    PetscFunctionReturn(0);
  }
  if (nw->Psep) {
    PetscCall((*nw->jacfn)(nw->jacctx, x, J));
    PetscCall(NewtonAssemble(nw, s, P, PETSC_TRUE));
  } else {
    PetscCall((*nw->jacfn)(nw->jacctx, x, P));
    if (J != P) {
      PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
    }
  }
  PetscCall(NewtonRebuildCoarse(nw, P, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/*
  TSMechNewtonSNESJacobian - A Jacobian callback of SNESSetJacobian()'s form (ctx: the Newton
  object): the EW safeguard, the type's stage at x (TSMechNewtonSetStageFunction()), J and P.
*/
PetscErrorCode TSMechNewtonSNESJacobian(SNES snes, Vec x, Mat J, Mat P, void *ctx)
{
  TSMechNewton      nw = (TSMechNewton)ctx;
  TSMechNewtonStage s;

  PetscFunctionBegin;
  PetscCheck(nw->stagefn, PetscObjectComm((PetscObject)snes), PETSC_ERR_ORDER, "The TS type gave its Newton object no stage function (TSMechNewtonSetStageFunction())");
  PetscCall(PetscMemzero(&s, sizeof(s)));
  PetscCall(NewtonGuardOversolve(nw, snes));
  PetscCall((*nw->stagefn)(nw->stagectx, x, &s));
  if (nw->jacfn) PetscCall(NewtonComputeOwn(nw, x, &s, J, P));
  else PetscCall(TSMechNewtonComputeOperators(nw, &s, J, P));
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
  stagnates (the residual not halved), which also covers a scale that jumped (contact); a
  stagnating Newton is accepted up to TSMECH_ROUNDOFF_STUCK eps S (a residual that no iteration
  halves is round-off: the solid's discrete gradient stagnates at 16 eps S). Ordinary
  steps converge by the default test before any of this. fnorm and S are global: every rank
  decides alike. A type may set the floor to a multiple of S and test it only where Newton
  stagnates (TSMechNewtonSetRoundoffFloor(), gauss2).
*/
static PetscErrorCode NewtonSNESConverged(SNES snes, PetscInt it, PetscReal xnorm, PetscReal snorm, PetscReal fnorm, SNESConvergedReason *reason, void *ctx)
{
  TSMechNewton nw  = (TSMechNewton)ctx;
  TS           ts  = nw->ts;
  PetscReal    eps = PETSC_MACHINE_EPSILON;

  PetscFunctionBegin;
  PetscCall(SNESConvergedDefault(snes, it, xnorm, snorm, fnorm, reason, NULL));
  if (*reason == SNES_CONVERGED_ITERATING && nw->sys && nw->q0 && !PetscIsInfOrNanReal(fnorm)) {
    PetscBool near  = (nw->rscaleprev < 0 || fnorm <= TSMECH_ROUNDOFF_GATE * TSMECH_ROUNDOFF_FACTOR * eps * nw->floorfactor * nw->rscaleprev) ? PETSC_TRUE : PETSC_FALSE;
    PetscBool stuck = (it > 0 && nw->fnormprev >= 0 && fnorm > 0.5 * nw->fnormprev) ? PETSC_TRUE : PETSC_FALSE;

    if (nw->floorstuck) near = PETSC_FALSE;
    if (nw->rscale < 0 && (near || stuck)) {
      PetscCall(MechSystemComputeResidualScale(nw->sys, ts->ptime, nw->q0, nw->v0, ts->time_step, &nw->rscale));
      nw->rscaleprev = nw->rscale;
    }
    if (nw->rscale >= 0 && (stuck || !nw->floorstuck) && fnorm <= (stuck ? TSMECH_ROUNDOFF_STUCK : TSMECH_ROUNDOFF_FACTOR) * eps * nw->floorfactor * nw->rscale) {
      PetscCall(PetscInfo(snes, "Converged: residual norm %g at the round-off of its terms (%g eps times the residual scale %g%s)\n", (double)fnorm, (double)(stuck ? TSMECH_ROUNDOFF_STUCK : TSMECH_ROUNDOFF_FACTOR), (double)nw->rscale, stuck ? ", Newton stagnating" : ""));
      *reason = SNES_CONVERGED_FNORM_ABS;
    }
  }
  nw->fnormprev = fnorm;
  PetscFunctionReturn(0);
}

/*
  TSMechNewtonPreSolve - Before a stage's SNESSolve(): records the start of the step (q0, v0) for
  the round-off floor (NewtonSNESConverged()), which starts afresh, and scales Newton's tolerance
  when the guess is better than xref (docs/solvers.md §3; xref NULL: no scaling). SNES tests the
  residual against rtol times the residual of its own initial guess; an extrapolated guess starts
  far closer than v (residual 1e-2 to 1e-3 of it on the cloth), so the relative test would ask
  the better guess for a far smaller residual, down to round-off, and spend an extra iteration.
  The step's scale is the residual at xref, the guess without extrapolation: the absolute
  tolerance of this step becomes rtol ||R(xref)|| (never below the user's -snes_atol), the
  accuracy asked of every step without extrapolation, which a good guess reaches in one Newton
  iteration. x is the Newton unknown's vector, overwritten here (the type puts its guess there
  afterwards).
*/
PetscErrorCode TSMechNewtonPreSolve(TSMechNewton nw, Vec q0, Vec v0, Vec xref, Vec x)
{
  SNES      snes = nw->ts->snes;
  PetscReal atol, rtol, fnorm;

  PetscFunctionBegin;
  nw->q0        = q0;
  nw->v0        = v0;
  nw->rscale    = -1;
  nw->fnormprev = -1;
  PetscCall(SNESGetTolerances(snes, &atol, &rtol, NULL, NULL, NULL));
  /* a tolerance other than the one set here last is the user's */
  if (atol != nw->atol_applied) nw->atol_user = atol;
  if (xref) {
    Vec r;

    /* evaluated in x, not xref: a type's residual may combine xref (its start state) with the iterate */
    PetscCall(VecCopy(xref, x));
    PetscCall(SNESGetFunction(snes, &r, NULL, NULL));
    PetscCall(SNESComputeFunction(snes, x, r));
    PetscCall(VecNorm(r, NORM_2, &fnorm));
    nw->atol_applied = PetscMax(nw->atol_user, rtol * fnorm);
  } else nw->atol_applied = nw->atol_user;
  if (nw->atol_applied != atol) PetscCall(SNESSetTolerances(snes, nw->atol_applied, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscFunctionReturn(0);
}

/*
  TSMechNewtonEliminate - Nonlinear elimination (elimination.c, docs/solvers.md §3): Newton on the
  patch near the fixed dofs from the guess x, the rest held, before the global Newton iterations.
  est describes the stage as a function of x (TSMechEliminationStage), fstart the start's force
  (when est->crt != 0), qs and vs work holding the stage of x. The patch stops at half Newton's
  tolerance of the step. Its depth is given, or covers nereach decay lengths s sqrt(k/m) of the
  step's operator M + s D + s^2 K (theta2: s = theta tau; TSMechEliminationDepth(), with k/m
  estimated once next to the fixed dofs).
*/
PetscErrorCode TSMechNewtonEliminate(TSMechNewton nw, PetscReal s, const TSMechEliminationStage *est, Vec q0, Vec v0, Vec fstart, Vec qs, Vec vs, Vec x)
{
  TS        ts    = nw->ts;
  PetscInt  depth = nw->nedepth, current;
  PetscReal atol;
  Mat       P;
  char      neprefix[80];

  PetscFunctionBegin;
  if (!nw->neon) PetscFunctionReturn(0);
  PetscCall(SNESGetJacobian(ts->snes, NULL, &P, NULL, NULL));
  /* the automatic patch follows s: built again when the step has moved its reach by a quarter */
  if (depth == PETSC_DECIDE) {
    if (nw->neratio < 0) PetscCall(TSMechEliminationEstimateStiffness(ts, nw->sys, P, q0, v0, &nw->neratio));
    PetscCall(TSMechEliminationDepth(nw->sys, nw->neratio, s, nw->nereach, &depth));
  }
  PetscCall(TSMechEliminationGetDepth(nw->ne, &current));
  if (nw->ne && (4.0 * depth > 5.0 * current || 4.0 * depth < 3.0 * current)) PetscCall(TSMechEliminationDestroy(&nw->ne));
  (void)snprintf(neprefix, sizeof(neprefix), "%sne_", nw->prefix);
  if (!nw->ne) PetscCall(TSMechEliminationCreate(ts, neprefix, nw->sys, P, depth, nw->nemaxit, nw->nertol, &nw->ne));
  PetscCall(SNESGetTolerances(ts->snes, &atol, NULL, NULL, NULL, NULL));
  PetscCall(TSMechEliminationSolve(nw->ne, est, q0, v0, fstart, qs, vs, 0.5 * atol, x));
  PetscFunctionReturn(0);
}

/* The full option name -<prefix><name> */
static void OptionName(TSMechNewton nw, const char name[], char opt[], size_t len)
{
  (void)snprintf(opt, len, "-%s%s", nw->prefix, name);
}

/*
  An option of the object's that this type does not honour: not in its -help, and if given, refused
  at set-up (TSMechNewtonSetUp()) rather than ignored; looked up without registering it
*/
static PetscErrorCode NewtonRefuseOption(TSMechNewton nw, const char name[], const char why[])
{
  char      opt[96];
  PetscBool set;

  PetscFunctionBegin;
  OptionName(nw, name, opt, sizeof(opt));
  PetscCall(PetscOptionsHasName(((PetscObject)nw->ts)->options, ((PetscObject)nw->ts)->prefix, opt, &set));
  if (set && !nw->refused[0]) {
    PetscCall(PetscStrncpy(nw->refused, opt, sizeof(nw->refused)));
    nw->refusedwhy = why;
  }
  PetscFunctionReturn(0);
}

/*
  TSMechNewtonSetFromOptions - The object's options, inside the type's options block (so -help
  lists them under the type): those the type honours (TSMechNewtonSetType()), with help in its
  words (theta2's step theta tau, gauss2's blocks) and the manual page of its setters
*/
PetscErrorCode TSMechNewtonSetFromOptions(TSMechNewton nw, PetscOptionItems *PetscOptionsObject)
{
  char        opt[96], mf[96], help[512], man[64];
  PetscBool   flg, set, isth = (nw->features & TSMECH_NEWTON_FEATURE_THETA) ? PETSC_TRUE : PETSC_FALSE;
  PetscBool   blocks = (nw->features & TSMECH_NEWTON_FEATURE_BLOCKS) ? PETSC_TRUE : PETSC_FALSE;
  const char *step   = isth ? "theta tau" : "tau";
  size_t      i;

  PetscFunctionBegin;
  nw->refused[0] = 0;
  /* theta2's settings have their functions (TSTheta2Set...()); another type's options its manual page, TS<TYPE> */
  (void)snprintf(man, sizeof(man), "TS%s", nw->tsname);
  for (i = 2; man[i]; i++) man[i] = (char)toupper((unsigned char)man[i]);
#define NEWTON_MAN(theta2fn) (isth ? (theta2fn) : man)
  OptionName(nw, "matrix_free", mf, sizeof(mf));
  if (blocks) (void)snprintf(help, sizeof(help), "The stage Jacobian by finite differences of the %s stage residual (MATMFFD); the preconditioner's blocks are kept across steps, reassembled when the linear iterations grow", nw->tsname);
  else if (nw->differenced) (void)snprintf(help, sizeof(help), "Jacobian by differencing the residual (MATMFFD); the assembled stage operator only preconditions, rebuilt when the linear iterations grow");
  else (void)snprintf(help, sizeof(help), "Jacobian applied by the model's kernel; the assembled operator only preconditions, rebuilt when the linear iterations grow");
  PetscCall(MechOptionsBool(mf, help, NEWTON_MAN("TSMechSetMatrixFree"), nw->matrixfree, &nw->matrixfree, NULL));
  OptionName(nw, "pc_definite", opt, sizeof(opt));
  PetscCall(MechOptionsBool(opt, blocks ? "The preconditioner's blocks from the system's semidefinite tangent (clamped compressed springs)" : "Preconditioning matrix from the system's semidefinite tangent (clamped compressed springs), the Jacobian exact", NEWTON_MAN("TSMechSetPCDefinite"), nw->pcdefinite, &flg, &set));
  if (set) PetscCall(TSMechNewtonSetPCDefinite(nw, flg));
  OptionName(nw, "pc_reduced", opt, sizeof(opt));
  if (blocks) (void)snprintf(help, sizeof(help), "The preconditioner's blocks of the model's reduced pattern (nearest-neighbour couplings): less memory, more linear iterations");
  else (void)snprintf(help, sizeof(help), "With %s: preconditioning matrix of the model's reduced pattern (nearest-neighbour couplings), less memory, more linear iterations", mf);
  PetscCall(MechOptionsBool(opt, help, NEWTON_MAN("TSMechSetPCReduced"), nw->pcreduced, &flg, &set));
  if (set) PetscCall(TSMechNewtonSetPCReduced(nw, flg));
  OptionName(nw, "pc_rebuild_growth", opt, sizeof(opt));
  if (blocks) (void)snprintf(help, sizeof(help), "With %s: reassemble the preconditioner's blocks when the linear iterations per Newton iteration exceed this factor times those after the last assembly (0: at every step)", mf);
  else (void)snprintf(help, sizeof(help), "With %s: rebuild the preconditioner when the linear iterations per Newton iteration exceed this factor times those after the last rebuild (0: at every Newton iteration)", mf);
  PetscCall(MechOptionsReal(opt, help, NEWTON_MAN("TSMechSetMatrixFree"), nw->pcgrowth, &nw->pcgrowth, NULL));
  OptionName(nw, "ew_safeguard", opt, sizeof(opt));
  PetscCall(MechOptionsReal(opt, "With -snes_ksp_ew: a linear solve stops once its residual is below this fraction of Newton's tolerance, Kelley's safeguard against oversolving (0: off)", NEWTON_MAN("TSMechSetEWSafeguard"), nw->ewguard, &nw->ewguard, NULL));
  if (nw->features & TSMECH_NEWTON_FEATURE_ELIMINATION) {
    OptionName(nw, "ne", opt, sizeof(opt));
    PetscCall(MechOptionsBool(opt, "Nonlinear elimination: Newton on the points near the fixed dofs alone before each step's Newton solve", NEWTON_MAN("TSMechSetNonlinearElimination"), nw->neon, &nw->neon, NULL));
    OptionName(nw, "ne_depth", opt, sizeof(opt));
    (void)snprintf(help, sizeof(help), "Nonlinear elimination: graph distance of the patch from the fixed dofs; given, turns it on (-1: from -%sne_reach)", nw->prefix);
    PetscCall(MechOptionsInt(opt, help, NEWTON_MAN("TSMechSetNonlinearElimination"), nw->nedepth, &nw->nedepth, &set));
    if (set) nw->neon = PETSC_TRUE;
    OptionName(nw, "ne_reach", opt, sizeof(opt));
    (void)snprintf(help, sizeof(help), "Nonlinear elimination: radius of the automatic patch in decay lengths %s sqrt(k/m) of one step", step);
    PetscCall(MechOptionsReal(opt, help, NEWTON_MAN("TSMechSetNonlinearElimination"), nw->nereach, &nw->nereach, NULL));
    OptionName(nw, "ne_max_it", opt, sizeof(opt));
    PetscCall(MechOptionsInt(opt, "Nonlinear elimination: local Newton iterations at most", NEWTON_MAN("TSMechSetNonlinearElimination"), nw->nemaxit, &nw->nemaxit, NULL));
    OptionName(nw, "ne_rtol", opt, sizeof(opt));
    PetscCall(MechOptionsReal(opt, "Nonlinear elimination: reduction of the patch residual at which the local Newton stops", NEWTON_MAN("TSMechSetNonlinearElimination"), nw->nertol, &nw->nertol, NULL));
  } else {
    const char *names[] = {"ne", "ne_depth", "ne_reach", "ne_max_it", "ne_rtol"};
    const char *why     = "nonlinear elimination solves the one-stage equations M a + f(t, q, v) of theta2 before its Newton iterations";

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) PetscCall(NewtonRefuseOption(nw, names[i], why));
  }
  OptionName(nw, "pc_lag_coarse", opt, sizeof(opt));
  if (nw->features & TSMECH_NEWTON_FEATURE_LAG_COARSE) {
    (void)snprintf(help, sizeof(help), "With %s and -pc_type mg: a rebuild for growing iterations renews the finest level only, the coarse levels keep their Galerkin products until %s changes, a solve fails or the finest level alone no longer helps", mf, step);
    PetscCall(MechOptionsBool(opt, help, NEWTON_MAN("TSMechSetPCLagCoarse"), nw->lagcoarse, &nw->lagcoarse, NULL));
  } else PetscCall(NewtonRefuseOption(nw, "pc_lag_coarse", "its multigrid coarse levels are PCMG's own Galerkin products, never lagged"));
#undef NEWTON_MAN
  /* the values are checked in TSMechNewtonSetUp(): an error inside the options block would leak it */
  PetscFunctionReturn(0);
}

/*
  TSMechNewtonSetUp - Checks the options against the system and the type's mode (why: what the
  type does instead of Newton's iterations, for the messages, when mode is not TSMECH_NEWTON_FULL),
  and sets up the SNES the type has given its function and matrices (TSMechSetUpSNES()): the
  round-off convergence test, the matrix-free operator with its (reduced) preconditioning matrix,
  or the separate semidefinite preconditioning matrix of the assembled mode.
*/
PetscErrorCode TSMechNewtonSetUp(TSMechNewton nw, MechSystem sys, TSMechNewtonMode mode, const char why[])
{
  TS          ts   = nw->ts;
  MPI_Comm    comm = PetscObjectComm((PetscObject)ts);
  const char *pre  = nw->prefix;

  PetscFunctionBegin;
  nw->sys = sys;
  PetscCheck(!nw->refused[0], comm, PETSC_ERR_ARG_INCOMP, "%s: not an option of -ts_type %s: %s", nw->refused, nw->tsname, nw->refusedwhy ? nw->refusedwhy : "");
  PetscCheck(nw->ewguard >= 0 && nw->ewguard < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sew_safeguard %g must be in [0, 1): the fraction of Newton's tolerance at which a linear solve stops", pre, (double)nw->ewguard);
  PetscCheck(nw->pcgrowth >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_rebuild_growth %g must be non-negative", pre, (double)nw->pcgrowth);
  PetscCheck(nw->nedepth >= 1 || nw->nedepth == PETSC_DECIDE, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sne_depth %" PetscInt_FMT " must be at least 1 (or -1: from -%sne_reach)", pre, nw->nedepth, pre);
  PetscCheck(nw->nereach > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sne_reach %g must be positive", pre, (double)nw->nereach);
  PetscCheck(nw->nemaxit >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sne_max_it %" PetscInt_FMT " must be at least 1", pre, nw->nemaxit);
  PetscCheck(nw->nertol > 0 && nw->nertol < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sne_rtol %g must be in (0, 1)", pre, (double)nw->nertol);
  PetscCall(TSMechEliminationDestroy(&nw->ne));
  if (nw->neon) {
    PetscBool   has   = PETSC_FALSE;
    const char *model = NULL;

    PetscCheck(mode == TSMECH_NEWTON_FULL, comm, PETSC_ERR_ARG_INCOMP, "-%sne: nonlinear elimination works before Newton's iterations; %s has none", pre, why ? why : "this TS type");
    if (sys) PetscCall(MechSystemHasPatch(sys, &has));
    if (sys) PetscCall(MechSystemGetModelName(sys, &model));
    PetscCheck(has, comm, PETSC_ERR_ARG_INCOMP, "-%sne needs a model that evaluates its force and tangent on a patch (MechSystemSetPatch(): chain, cloth, lattice); %s%s", pre, sys ? "model " : "this TS has no MechSystem (TSMechSetSystem())", sys ? (model ? model : "(unnamed)") : "");
  }
  /* the round-off floor joins SNES's default test, not a test of the user's (-snes_convergence_test) */
  if (ts->snes->ops->converged == SNESConvergedDefault) PetscCall(SNESSetConvergenceTest(ts->snes, NewtonSNESConverged, nw, NULL));
  nw->rscaleprev = -1;
  if (mode == TSMECH_NEWTON_BLOCKS) {
    /* the type's SNES is not N x N: its matrices stay the type's, the blocks come from here */
    nw->Pvalid  = PETSC_FALSE;
    nw->pcstale = PETSC_FALSE;
    nw->Jvalid  = PETSC_FALSE;
    nw->Pred    = PETSC_FALSE;
    PetscFunctionReturn(0);
  }
  if (nw->matrixfree && mode != TSMECH_NEWTON_NONE) {
    PetscBool   has   = PETSC_FALSE;
    const char *model = NULL;
    Mat         J, P;
    KSP         ksp;

    if (sys) PetscCall(MechSystemGetModelName(sys, &model));
    PetscCall(SNESGetJacobian(ts->snes, &J, &P, NULL, NULL));
    if (nw->jacfn) {
      /* the type's residual differenced: no tangent action needed; a J of the user's (-snes_mf_operator) stays */
      PetscCheck(sys, comm, PETSC_ERR_ARG_INCOMP, "-%smatrix_free: the preconditioning matrix is the stage operator of a MechSystem (TSMechSetSystem())", pre);
      if (J == P) {
        PetscCall(MatCreateSNESMF(ts->snes, &J));
        PetscCall(SNESSetJacobian(ts->snes, J, P, NULL, NULL));
        PetscCall(MatDestroy(&J));
        nw->ownmf = PETSC_TRUE;
      }
    } else {
      if (sys) PetscCall(MechSystemHasTangentAction(sys, &has));
      PetscCheck(has, comm, PETSC_ERR_ARG_INCOMP, "-%smatrix_free needs a model that applies its tangent itself (MechSystemSetTangentAction(): chain, cloth, lattice); %s%s%s. PETSc's -snes_mf_operator is the finite-difference alternative", pre, sys ? "model " : "this TS has no MechSystem (TSMechSetSystem())", sys ? (model ? model : "(unnamed)") : "", sys ? " only assembles it" : "");
      if (J == P) {
        PetscBool mg;

        /* a model's multigrid operator (-pc_type mg) applies its own shell: that is the Newton operator */
        PetscCall(MechOperatorIsMultigrid_Private(P, &mg));
        if (mg) {
          PetscCall(MechOperatorMultigridGetShell_Private(P, &J));
          PetscCall(PetscObjectReference((PetscObject)J));
        } else PetscCall(MechSystemCreateOperatorShell(sys, &J));
        PetscCall(SNESSetJacobian(ts->snes, J, P, NULL, NULL));
        PetscCall(MatDestroy(&J));
      }
    }
    /* the reduced preconditioning matrix replaces the full one, whose pattern the system may then free */
    if (nw->pcreduced && !nw->Pred) {
      PetscCall(MechSystemHasTangentPattern(sys, &has));
      PetscCheck(has, comm, PETSC_ERR_ARG_INCOMP, "-%spc_reduced needs a model with a reduced tangent pattern (MechSystemSetTangentPattern(): cloth, lattice); model %s has none", pre, model ? model : "(unnamed)");
      /* the SNES, and its KSP since SNESSetFromOptions(), hold the full matrix: they let go of it
         first, so that the system frees it before the reduced one is built and the two never coexist */
      PetscCall(SNESGetJacobian(ts->snes, &J, NULL, NULL, NULL));
      PetscCall(SNESGetKSP(ts->snes, &ksp));
      PetscCall(SNESSetJacobian(ts->snes, J, J, NULL, NULL));
      PetscCall(KSPSetOperators(ksp, J, J));
      PetscCall(MechSystemReleasePattern(sys));
      PetscCall(MechSystemCreateOperatorReduced(sys, &P));
      PetscCall(SNESSetJacobian(ts->snes, J, P, NULL, NULL));
      PetscCall(KSPSetOperators(ksp, J, P));
      PetscCall(MatDestroy(&P));
      nw->Pred = PETSC_TRUE;
    } else if (!nw->pcreduced && nw->Pred) {
      PetscCall(SNESGetJacobian(ts->snes, &J, NULL, NULL, NULL));
      PetscCall(MechSystemCreateOperator(sys, &P));
      PetscCall(SNESSetJacobian(ts->snes, J, P, NULL, NULL));
      PetscCall(MatDestroy(&P));
      nw->Pred = PETSC_FALSE;
    }
  }
  /* the type's own assembled Jacobian cannot be a model's matrix-free multigrid operator (-pc_type mg) */
  if (!nw->matrixfree && nw->jacfn && mode != TSMECH_NEWTON_NONE) {
    Mat       P;
    PetscBool mg;

    PetscCall(SNESGetJacobian(ts->snes, NULL, &P, NULL, NULL));
    PetscCall(MechOperatorIsMultigrid_Private(P, &mg));
    PetscCheck(!mg, comm, PETSC_ERR_ARG_INCOMP, "-pc_type mg: the model's multigrid has no assembled matrix, which the assembled Jacobian of -ts_type %s is; give -%smatrix_free (its residual differenced, the multigrid on the stage operator)", nw->tsname, pre);
  }
  /* assembled Jacobian with the semidefinite preconditioning matrix: P becomes a second matrix */
  if (!nw->matrixfree && mode != TSMECH_NEWTON_NONE && sys) {
    PetscBool has = PETSC_FALSE;
    Mat       J, P;

    PetscCall(MechSystemHasTangentDefinite(sys, &has));
    PetscCall(SNESGetJacobian(ts->snes, &J, &P, NULL, NULL));
    if (nw->ownmf) {
      /* back from the matrix-free mode with the type's own Jacobian: J is P again */
      PetscCall(SNESSetJacobian(ts->snes, P, P, NULL, NULL));
      nw->ownmf = PETSC_FALSE;
      J         = P;
    }
    if (nw->pcdefinite && has && J == P) {
      PetscCall(MechSystemCreateOperator(sys, &P));
      PetscCall(SNESSetJacobian(ts->snes, J, P, NULL, NULL));
      PetscCall(MatDestroy(&P));
      nw->Psep = PETSC_TRUE;
    } else if (!(nw->pcdefinite && has) && nw->Psep) {
      PetscCall(SNESSetJacobian(ts->snes, J, J, NULL, NULL));
      nw->Psep = PETSC_FALSE;
    }
  }
  nw->Pvalid  = PETSC_FALSE;
  nw->pcstale = PETSC_FALSE;
  nw->Jvalid  = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* TSMechNewtonInvalidate - The next Jacobian evaluation assembles J and P anew (a scheme parameter changed) */
PetscErrorCode TSMechNewtonInvalidate(TSMechNewton nw)
{
  PetscFunctionBegin;
  nw->Jvalid = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*
  TSMechNewtonView - The object's lines of a -ts_view, after the type's own, for the type's
  current mode (the EW safeguard only with Newton's iterations, no solver lines when explicit)
*/
PetscErrorCode TSMechNewtonView(TSMechNewton nw, TSMechNewtonMode mode, PetscViewer viewer)
{
  PetscBool iascii, on = mode != TSMECH_NEWTON_NONE ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
  if (mode == TSMECH_NEWTON_FULL || mode == TSMECH_NEWTON_BLOCKS) {
    PetscBool ew = PETSC_FALSE;

    if (nw->ts->snes) PetscCall(SNESKSPGetUseEW(nw->ts->snes, &ew));
    if (ew && nw->ewguard > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  Eisenstat-Walker safeguard: a linear solve stops at %g times Newton's tolerance\n", (double)nw->ewguard));
  }
  if (mode == TSMECH_NEWTON_BLOCKS) {
    if (nw->matrixfree) PetscCall(PetscViewerASCIIPrintf(viewer, "  Preconditioner's blocks assembled at %" PetscInt_FMT " steps, rebuilt when linear iterations grow %g-fold\n", nw->rebuilds, (double)nw->pcgrowth));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  Preconditioner's blocks assembled at every step (%" PetscInt_FMT ")\n", nw->rebuilds));
    if (nw->pcreduced) PetscCall(PetscViewerASCIIPrintf(viewer, "  Blocks of the model's reduced pattern\n"));
    if (nw->pcdefinite) PetscCall(PetscViewerASCIIPrintf(viewer, "  Blocks from the semidefinite tangent approximation\n"));
    PetscFunctionReturn(0);
  }
  if (nw->matrixfree && on) PetscCall(PetscViewerASCIIPrintf(viewer, "  Matrix-free Jacobian (%s); preconditioning matrix assembled %" PetscInt_FMT " times, rebuilt when linear iterations grow %g-fold\n", nw->jacfn ? "differenced residual" : "model's tangent action", nw->rebuilds, (double)nw->pcgrowth));
  if (nw->matrixfree && on && (nw->galerkin < PC_MG_GALERKIN_NONE || nw->modelmg) && nw->coarserebuilds) PetscCall(PetscViewerASCIIPrintf(viewer, "  Multigrid coarse levels rebuilt %" PetscInt_FMT " of those times%s%s%s\n", nw->coarserebuilds, nw->lagcoarse ? " (-" : "", nw->lagcoarse ? nw->prefix : "", nw->lagcoarse ? "pc_lag_coarse)" : ""));
  if (nw->matrixfree && nw->pcreduced && on) PetscCall(PetscViewerASCIIPrintf(viewer, "  Preconditioning matrix of the model's reduced pattern\n"));
  if (nw->neon && !nw->ne && nw->nedepth == PETSC_DECIDE) PetscCall(PetscViewerASCIIPrintf(viewer, "  Nonlinear elimination within %g decay lengths of one step from the fixed dofs (patch built at the first step)\n", (double)nw->nereach));
  if (nw->neon && !nw->ne && nw->nedepth != PETSC_DECIDE) PetscCall(PetscViewerASCIIPrintf(viewer, "  Nonlinear elimination within distance %" PetscInt_FMT " of the fixed dofs (patch built at the first step)\n", nw->nedepth));
  if (nw->neon && nw->ne) PetscCall(TSMechEliminationView(nw->ne, viewer));
  if (nw->pcdefinite && on) PetscCall(PetscViewerASCIIPrintf(viewer, "  Preconditioning matrix from the semidefinite tangent approximation%s\n", nw->matrixfree ? "" : (nw->Psep ? " (a second matrix beside the exact Jacobian)" : " (where the model has one and the preconditioning matrix is not the Jacobian itself)")));
  PetscFunctionReturn(0);
}

/*
  TSMechNewtonRestartNote - Why a restart from a checkpoint continues only to the solver tolerance
  ("" if it continues bit for bit): the matrix-free mode's lagged preconditioning matrix, which a
  checkpoint does not hold, is assembled anew at the restart's state (nonlinear problems; the
  caller tells)
*/
PetscErrorCode TSMechNewtonRestartNote(TSMechNewton nw, char note[], size_t len)
{
  PetscFunctionBegin;
  note[0] = 0;
  if (nw->matrixfree) (void)snprintf(note, len, "with -%smatrix_free the lagged preconditioning matrix is assembled anew", nw->prefix);
  PetscFunctionReturn(0);
}

/* TSMechNewtonReset - Drops what belongs to the TS's vectors and state (TSReset()) */
PetscErrorCode TSMechNewtonReset(TSMechNewton nw)
{
  PetscFunctionBegin;
  PetscCall(TSMechEliminationDestroy(&nw->ne));
  nw->neratio = -1;
  nw->Jvalid  = PETSC_FALSE;
  nw->q0      = NULL;
  nw->v0      = NULL;
  PetscFunctionReturn(0);
}

/* TSMechNewtonDestroy - Frees the object; the SNES keeps no test that points to it */
PetscErrorCode TSMechNewtonDestroy(TSMechNewton *newton)
{
  TSMechNewton nw = *newton;

  PetscFunctionBegin;
  if (!nw) PetscFunctionReturn(0);
  PetscCall(TSMechNewtonReset(nw));
  if (nw->ts->snes && nw->ts->snes->ops->converged == NewtonSNESConverged && nw->ts->snes->cnvP == (void *)nw) PetscCall(SNESSetConvergenceTest(nw->ts->snes, SNESConvergedDefault, NULL, NULL));
  PetscCall(PetscFree(*newton));
  PetscFunctionReturn(0);
}

PetscErrorCode TSMechNewtonSetMatrixFree(TSMechNewton nw, PetscBool flg, PetscReal growth)
{
  PetscFunctionBegin;
  PetscCheck(growth == (PetscReal)PETSC_DEFAULT || growth >= 0, PetscObjectComm((PetscObject)nw->ts), PETSC_ERR_ARG_OUTOFRANGE, "Preconditioner rebuild growth %g must be non-negative (-%spc_rebuild_growth)", (double)growth, nw->prefix);
  nw->matrixfree = flg;
  if (growth != (PetscReal)PETSC_DEFAULT) nw->pcgrowth = growth;
  PetscFunctionReturn(0);
}

PetscErrorCode TSMechNewtonGetMatrixFree(TSMechNewton nw, PetscBool *flg, PetscReal *growth, PetscInt *rebuilds)
{
  PetscFunctionBegin;
  if (flg) *flg = nw->matrixfree;
  if (growth) *growth = nw->pcgrowth;
  if (rebuilds) *rebuilds = nw->rebuilds;
  PetscFunctionReturn(0);
}

PetscErrorCode TSMechNewtonSetPCDefinite(TSMechNewton nw, PetscBool flg)
{
  PetscFunctionBegin;
  nw->pcdefinite = flg;
  nw->Jvalid     = PETSC_FALSE;
  nw->Pvalid     = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode TSMechNewtonGetPCDefinite(TSMechNewton nw, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = nw->pcdefinite;
  PetscFunctionReturn(0);
}

PetscErrorCode TSMechNewtonSetPCReduced(TSMechNewton nw, PetscBool flg)
{
  PetscFunctionBegin;
  nw->pcreduced = flg;
  nw->Pvalid    = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* set: asked for; inuse: the preconditioning matrix is the reduced one (after set-up) */
PetscErrorCode TSMechNewtonGetPCReduced(TSMechNewton nw, PetscBool *set, PetscBool *inuse)
{
  PetscFunctionBegin;
  if (set) *set = nw->pcreduced;
  if (inuse) *inuse = nw->Pred;
  PetscFunctionReturn(0);
}

PetscErrorCode TSMechNewtonSetPCLagCoarse(TSMechNewton nw, PetscBool flg)
{
  PetscFunctionBegin;
  nw->lagcoarse = flg;
  PetscFunctionReturn(0);
}

PetscErrorCode TSMechNewtonGetPCLagCoarse(TSMechNewton nw, PetscBool *flg, PetscInt *coarse)
{
  PetscFunctionBegin;
  if (flg) *flg = nw->lagcoarse;
  if (coarse) *coarse = nw->coarserebuilds;
  PetscFunctionReturn(0);
}

PetscErrorCode TSMechNewtonSetEWSafeguard(TSMechNewton nw, PetscReal factor)
{
  PetscFunctionBegin;
  nw->ewguard = factor;
  PetscFunctionReturn(0);
}

PetscErrorCode TSMechNewtonGetEWSafeguard(TSMechNewton nw, PetscReal *factor)
{
  PetscFunctionBegin;
  *factor = nw->ewguard;
  PetscFunctionReturn(0);
}

PetscErrorCode TSMechNewtonSetNonlinearElimination(TSMechNewton nw, PetscBool flg, PetscInt depth, PetscReal reach)
{
  PetscFunctionBegin;
  if (depth != nw->nedepth || !flg || (reach != (PetscReal)PETSC_DEFAULT && reach != nw->nereach)) PetscCall(TSMechEliminationDestroy(&nw->ne));
  nw->neon    = flg;
  nw->nedepth = depth;
  if (reach != (PetscReal)PETSC_DEFAULT) nw->nereach = reach;
  PetscFunctionReturn(0);
}

/* its: summed over the ranks (collective) */
PetscErrorCode TSMechNewtonGetNonlinearElimination(TSMechNewton nw, PetscBool *flg, PetscInt *depth, PetscInt *its)
{
  PetscFunctionBegin;
  if (flg) *flg = nw->neon;
  if (depth) PetscCall(TSMechEliminationGetDepth(nw->ne, depth));
  if (its) {
    PetscInt mine;

    PetscCall(TSMechEliminationGetIterations(nw->ne, &mine));
    PetscCall(MPIU_Allreduce(&mine, its, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)nw->ts)));
  }
  PetscFunctionReturn(0);
}
