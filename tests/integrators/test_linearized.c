static const char help[] = "The linearized mode of theta2 (docs/schemes.md §4), step by step against the right-hand sides of the\n"
                           "note solved densely in plain C, for every initial guess, at theta = 1 (the note's formulas)\n"
                           "and theta = 1/2 and 0.3 (the general-theta formula); and the linearized mode as one Newton\n"
                           "iteration: on linear models equal to the converged theta2 result, on a nonlinear model equal\n"
                           "to one Newton iteration of PETSc's theta methods on [q; v] from (q, v).\n"
                           "  -tol <1e-12>\n";

#include "integ.h"

/* ------------------------------------------------------------------------------------------ */
/* A small linear system built by hand: consistent (non-diagonal) mass, non-diagonal K and D,  */
/* f = K q + D v + b                                                                          */
/* ------------------------------------------------------------------------------------------ */
#define NS 4
static const PetscReal Ms[NS][NS] = {
    {2.0, 0.5, 0.0, 0.0},
    {0.5, 3.0, 0.2, 0.0},
    {0.0, 0.2, 1.5, 0.1},
    {0.0, 0.0, 0.1, 1.0}
};
static const PetscReal Ks[NS][NS] = {
    {30.0,  -10.0, 0.0,  0.0 },
    {-10.0, 25.0,  -8.0, 0.0 },
    {0.0,   -8.0,  20.0, -5.0},
    {0.0,   0.0,   -5.0, 12.0}
};
static const PetscReal Ds[NS][NS] = {
    {1.0,  -0.3, 0.0,  0.1 },
    {-0.3, 0.8,  -0.2, 0.0 },
    {0.0,  -0.2, 0.6,  -0.1},
    {0.1,  0.0,  -0.1, 0.5 }
};
static const PetscReal bs[NS] = {0.5, -1.0, 2.0, 0.3};

static PetscErrorCode SmallForce(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
{
  const PetscScalar *qa, *va;
  PetscScalar       *fa;
  PetscInt           n;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)ctx;
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArrayRead(q, &qa));
  PetscCall(VecGetArrayRead(v, &va));
  PetscCall(VecGetArray(f, &fa));
  if (n)
    for (PetscInt i = 0; i < NS; i++) {
      fa[i] = bs[i];
      for (PetscInt j = 0; j < NS; j++) fa[i] += Ks[i][j] * qa[j] + Ds[i][j] * va[j];
    }
  PetscCall(VecRestoreArray(f, &fa));
  PetscCall(VecRestoreArrayRead(v, &va));
  PetscCall(VecRestoreArrayRead(q, &qa));
  PetscFunctionReturn(0);
}

static PetscErrorCode SmallTangent(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  PetscInt n;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  (void)ctx;
  PetscCall(VecGetLocalSize(q, &n));
  if (n)
    for (PetscInt i = 0; i < NS; i++)
      for (PetscInt j = 0; j < NS; j++) PetscCall(MatSetValue(J, i, j, cK * Ks[i][j] + cD * Ds[i][j], ADD_VALUES));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode CreateSmallLinear(MPI_Comm comm, MechSystem *sys)
{
  PetscMPIInt     rank;
  PetscInt        nloc;
  Mat             M, J;
  Vec             q, v;
  const PetscReal q0[NS] = {0.1, -0.2, 0.3, 0.05}, v0[NS] = {1.0, -0.5, 0.25, 2.0};

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  nloc = rank == 0 ? NS : 0;
  PetscCall(MatCreateAIJ(comm, nloc, nloc, NS, NS, NS, NULL, 0, NULL, &M));
  PetscCall(MatCreateAIJ(comm, nloc, nloc, NS, NS, NS, NULL, 0, NULL, &J));
  PetscCall(MatCreateVecs(M, &q, &v));
  if (nloc) {
    for (PetscInt i = 0; i < NS; i++) {
      for (PetscInt j = 0; j < NS; j++) {
        PetscCall(MatSetValue(M, i, j, Ms[i][j], INSERT_VALUES));
        PetscCall(MatSetValue(J, i, j, 0.0, INSERT_VALUES));
      }
      PetscCall(VecSetValue(q, i, q0[i], INSERT_VALUES));
      PetscCall(VecSetValue(v, i, v0[i], INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscCall(VecAssemblyBegin(q));
  PetscCall(VecAssemblyEnd(q));
  PetscCall(VecAssemblyBegin(v));
  PetscCall(VecAssemblyEnd(v));
  PetscCall(MechSystemCreate(comm, sys));
  PetscCall(MechSystemSetModelName(*sys, "small-linear"));
  PetscCall(MechSystemSetMass(*sys, M));
  PetscCall(MechSystemSetForce(*sys, SmallForce, NULL));
  PetscCall(MechSystemSetTangent(*sys, J, PETSC_TRUE, SmallTangent, NULL));
  PetscCall(MechSystemSetLinear(*sys, PETSC_TRUE));
  PetscCall(MechSystemSetInitialState(*sys, q, v));
  PetscCall(MatDestroy(&M));
  PetscCall(MatDestroy(&J));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Trajectory recorder                                                                        */
/* ------------------------------------------------------------------------------------------ */
typedef struct {
  PetscInt   n, nsteps;
  PetscReal *q, *v; /* (nsteps + 1) x n */
  Vec        qt, vt;
} Traj;

static PetscErrorCode Record(TS ts, PetscInt step, PetscReal t, Vec u, void *ctx)
{
  Traj *tr = (Traj *)ctx;

  PetscFunctionBegin;
  (void)t;
  (void)u;
  PetscCheck(step >= 0 && step <= tr->nsteps, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Unexpected step %" PetscInt_FMT, step);
  PetscCall(TSMechGetSolution(ts, tr->qt, tr->vt));
  PetscCall(IntegVecToArray(tr->qt, tr->q + step * tr->n));
  PetscCall(IntegVecToArray(tr->vt, tr->v + step * tr->n));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Oracles                                                                                    */
/* ------------------------------------------------------------------------------------------ */
/* y = alpha A x + y, A dense row-major n x n */
static void MatVecAdd(PetscInt n, PetscReal alpha, const PetscReal *A, const PetscReal *x, PetscReal *y)
{
  for (PetscInt i = 0; i < n; i++) {
    PetscReal s = 0;
    for (PetscInt j = 0; j < n; j++) s += A[i * n + j] * x[j];
    y[i] += alpha * s;
  }
}

/* The theta = 1 right-hand sides of docs/schemes.md §4 (theta = 1, with the sign typo of the last one corrected):
     zero:                  M v - tau f
     velocity:              (M + tau D) v - tau f
     predictor:             (M + tau D + tau^2 K) v - tau f
     predictor_zero:        (M + tau^2 K) v - tau f
     predictor_extrapolate: (M + tau D + tau^2 K) v + tau D (v - v_prev) - tau f
     extrapolate:           (M + 2 tau D + 2 tau^2 K) v - (tau D + tau^2 K) v_prev - tau f
   The note prints -(tau D - tau^2 K) v_prev in the last one. Derivation: v0' = 2 v - v_prev and
   q0' = q + tau v0' make R_q0 = 0, and the first Newton step from (q0', v0') with f0 = f(q, v) is
   J v+ = J v0' - M (v0' - v) - tau f = M v + (tau D + tau^2 K)(2 v - v_prev) - tau f. */
static void NoteRHS(TSTheta2Guess g, PetscInt n, PetscReal tau, const PetscReal *M, const PetscReal *D, const PetscReal *K, const PetscReal *f, const PetscReal *v, const PetscReal *vp, PetscReal *rhs)
{
  for (PetscInt i = 0; i < n; i++) rhs[i] = -tau * f[i];
  MatVecAdd(n, 1.0, M, v, rhs);
  switch (g) {
  case TSTHETA2_GUESS_ZERO:
    break;
  case TSTHETA2_GUESS_VELOCITY:
    MatVecAdd(n, tau, D, v, rhs);
    break;
  case TSTHETA2_GUESS_PREDICTOR:
    MatVecAdd(n, tau, D, v, rhs);
    MatVecAdd(n, tau * tau, K, v, rhs);
    break;
  case TSTHETA2_GUESS_PREDICTOR_ZERO:
    MatVecAdd(n, tau * tau, K, v, rhs);
    break;
  case TSTHETA2_GUESS_PREDICTOR_EXTRAPOLATE:
    MatVecAdd(n, tau, D, v, rhs);
    MatVecAdd(n, tau * tau, K, v, rhs);
    MatVecAdd(n, tau, D, v, rhs);
    MatVecAdd(n, -tau, D, vp, rhs);
    break;
  case TSTHETA2_GUESS_EXTRAPOLATE:
    MatVecAdd(n, 2 * tau, D, v, rhs);
    MatVecAdd(n, 2 * tau * tau, K, v, rhs);
    MatVecAdd(n, -tau, D, vp, rhs);
    MatVecAdd(n, -tau * tau, K, vp, rhs);
    break;
  }
}

/* General theta: guess (q0', v0'), R_q0 = q0' - q - tau ((1-theta) v + theta v0') (omitted for
   the zero guess), J = M + theta tau D + theta^2 tau^2 K,
   rhs = J v0' - M (v0' - v) - tau f + theta tau K R_q0. */
static void GeneralRHS(TSTheta2Guess g, PetscInt n, PetscReal theta, PetscReal tau, const PetscReal *M, const PetscReal *D, const PetscReal *K, const PetscReal *f, const PetscReal *v, const PetscReal *vp, PetscReal *rhs, PetscReal *w)
{
  PetscReal *v0 = w, *dq = w + n, *Rq = w + 2 * n; /* v0', q0' - q, R_q0 */

  for (PetscInt i = 0; i < n; i++) {
    switch (g) {
    case TSTHETA2_GUESS_ZERO:
    case TSTHETA2_GUESS_PREDICTOR_ZERO:
      v0[i] = 0;
      break;
    case TSTHETA2_GUESS_VELOCITY:
    case TSTHETA2_GUESS_PREDICTOR:
      v0[i] = v[i];
      break;
    default:
      v0[i] = 2 * v[i] - vp[i];
      break;
    }
    switch (g) {
    case TSTHETA2_GUESS_ZERO:
    case TSTHETA2_GUESS_VELOCITY:
      dq[i] = 0;
      break;
    case TSTHETA2_GUESS_EXTRAPOLATE:
      dq[i] = tau * v0[i];
      break;
    default:
      dq[i] = tau * v[i];
      break;
    }
    Rq[i]  = g == TSTHETA2_GUESS_ZERO ? 0 : dq[i] - tau * ((1 - theta) * v[i] + theta * v0[i]);
    rhs[i] = -tau * f[i];
  }
  /* J v0' - M (v0' - v) = theta tau D v0' + theta^2 tau^2 K v0' + M v */
  MatVecAdd(n, 1.0, M, v, rhs);
  MatVecAdd(n, theta * tau, D, v0, rhs);
  MatVecAdd(n, theta * theta * tau * tau, K, v0, rhs);
  MatVecAdd(n, theta * tau, K, Rq, rhs);
}

/* Dense M, D, K and f of sys at (q, v). */
static PetscErrorCode Evaluate(MechSystem sys, const PetscReal *qa, const PetscReal *va, PetscReal **M, PetscReal **D, PetscReal **K, PetscReal *f)
{
  Mat      A;
  Vec      q, v, fv;
  PetscInt n, rs, re;

  PetscFunctionBegin;
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(VecDuplicate(q, &fv));
  PetscCall(VecGetOwnershipRange(q, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    PetscCall(VecSetValue(q, i, qa[i], INSERT_VALUES));
    PetscCall(VecSetValue(v, i, va[i], INSERT_VALUES));
  }
  PetscCall(VecAssemblyBegin(q));
  PetscCall(VecAssemblyEnd(q));
  PetscCall(VecAssemblyBegin(v));
  PetscCall(VecAssemblyEnd(v));
  PetscCall(MechSystemCreateOperator(sys, &A));
  PetscCall(MechSystemComputeOperator(sys, 0.0, q, v, 0.0, 0.0, 1.0, A));
  PetscCall(IntegMatToDense(A, &n, M));
  PetscCall(MechSystemComputeOperator(sys, 0.0, q, v, 0.0, 1.0, 0.0, A));
  PetscCall(IntegMatToDense(A, &n, D));
  PetscCall(MechSystemComputeOperator(sys, 0.0, q, v, 1.0, 0.0, 0.0, A));
  PetscCall(IntegMatToDense(A, &n, K));
  PetscCall(MechSystemComputeForce(sys, 0.0, q, v, fv));
  PetscCall(IntegVecToArray(fv, f));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&fv));
  PetscFunctionReturn(0);
}

typedef struct {
  PetscReal worst;
  PetscInt  failures, checks;
} Stats;

static PetscErrorCode Verdict(MPI_Comm comm, Stats *st, PetscReal rel, PetscReal tol, const char *what)
{
  PetscFunctionBegin;
  st->checks++;
  st->worst = PetscMax(st->worst, rel);
  if (!(rel <= tol)) {
    st->failures++;
    PetscCall(PetscPrintf(comm, "FAILED: %s: %.3e > %.1e\n", what, (double)rel, (double)tol));
  }
  PetscFunctionReturn(0);
}

/* Run `steps` linearized steps and check every one against the dense oracle(s). */
static PetscErrorCode CheckGuess(MechSystem sys, const char *label, const char *type, const char *form, PetscReal theta, TSTheta2Guess g, PetscReal tau, PetscInt steps, PetscReal tol, Stats *st)
{
  MPI_Comm   comm = PetscObjectComm((PetscObject)sys);
  Traj       tr;
  Vec        q, v;
  char       opts[512];
  PetscInt   n;
  PetscReal *M, *D, *K, *f, *rhs, *rhs2, *J, *w, worst = 0, worstnote = 0, worstq = 0;

  PetscFunctionBegin;
  PetscCall(MechSystemCreateState(sys, &tr.qt, &tr.vt));
  PetscCall(VecGetSize(tr.qt, &n));
  tr.n      = n;
  tr.nsteps = steps;
  PetscCall(PetscCalloc2((steps + 1) * n, &tr.q, (steps + 1) * n, &tr.v));
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -ts_theta_linearized -ts_theta_linearized_guess %s -ksp_type preonly -pc_type lu", form, TSTheta2Guesses[g]));
  if (!strcmp(type, "theta2")) {
    char th[64];
    PetscCall(PetscSNPrintf(th, sizeof(th), " -ts_theta_theta %g", (double)theta));
    PetscCall(PetscStrlcat(opts, th, sizeof(opts)));
  }
  PetscCall(IntegRun(sys, type, opts, tau, steps, Record, &tr, &q, &v, NULL));
  PetscCall(PetscMalloc5(n, &f, n, &rhs, n, &rhs2, n * n, &J, 3 * n, &w));
  for (PetscInt k = 1; k <= steps; k++) {
    const PetscReal *q0 = tr.q + (k - 1) * n, *v0 = tr.v + (k - 1) * n, *vp = k >= 2 ? tr.v + (k - 2) * n : v0;
    const PetscReal *q1 = tr.q + k * n, *v1 = tr.v + k * n;
    PetscReal       *qref = w, rel, relq; /* w is free again once the right-hand side is built */

    PetscCall(Evaluate(sys, q0, v0, &M, &D, &K, f));
    for (PetscInt i = 0; i < n * n; i++) J[i] = M[i] + theta * tau * D[i] + theta * theta * tau * tau * K[i];
    GeneralRHS(g, n, theta, tau, M, D, K, f, v0, vp, rhs, w);
    PetscCall(IntegDenseSolve(n, J, rhs));
    rel = IntegRelDiffArray(n, v1, rhs);
    for (PetscInt i = 0; i < n; i++) qref[i] = q0[i] + tau * ((1 - theta) * v0[i] + theta * rhs[i]);
    relq   = IntegRelDiffArray(n, q1, qref);
    worst  = PetscMax(worst, rel);
    worstq = PetscMax(worstq, relq);
    if (theta == 1) {
      /* the note's own formulas: the same J, its right-hand sides */
      for (PetscInt i = 0; i < n * n; i++) J[i] = M[i] + tau * D[i] + tau * tau * K[i];
      NoteRHS(g, n, tau, M, D, K, f, v0, vp, rhs2);
      PetscCall(IntegDenseSolve(n, J, rhs2));
      worstnote = PetscMax(worstnote, IntegRelDiffArray(n, v1, rhs2));
    }
    PetscCall(PetscFree(M));
    PetscCall(PetscFree(D));
    PetscCall(PetscFree(K));
  }
  PetscCall(PetscPrintf(comm, "%-13s %-9s theta %-4g %-18s guess %-22s v+: %.3e (general formula)", label, type, (double)theta, form, TSTheta2Guesses[g], (double)worst));
  if (theta == 1) PetscCall(PetscPrintf(comm, " %.3e (docs/schemes.md §4, theta = 1)", (double)worstnote));
  PetscCall(PetscPrintf(comm, "  q+: %.3e\n", (double)worstq));
  PetscCall(Verdict(comm, st, worst, tol, "linearized step vs general-theta right-hand side"));
  PetscCall(Verdict(comm, st, worstq, tol, "linearized position vs q + tau((1-theta) v + theta v+)"));
  if (theta == 1) PetscCall(Verdict(comm, st, worstnote, tol, "linearized step vs the right-hand side of docs/schemes.md §4"));
  PetscCall(PetscFree5(f, rhs, rhs2, J, w));
  PetscCall(PetscFree2(tr.q, tr.v));
  PetscCall(VecDestroy(&tr.qt));
  PetscCall(VecDestroy(&tr.vt));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}

/* Final states of two runs, relative difference. */
static PetscErrorCode CompareRuns(MechSystem sys, const char *label, const char *ta, const char *oa, const char *tb, const char *ob, PetscReal dt, PetscInt steps, PetscReal tol, PetscBool assert, Stats *st)
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)sys);
  Vec       qa, va, qb, vb;
  PetscInt  ia, ib;
  PetscReal rel;

  PetscFunctionBegin;
  PetscCall(IntegRun(sys, ta, oa, dt, steps, NULL, NULL, &qa, &va, &ia));
  PetscCall(IntegRun(sys, tb, ob, dt, steps, NULL, NULL, &qb, &vb, &ib));
  PetscCall(TestRelDiff(qa, va, qb, vb, &rel));
  PetscCall(PetscPrintf(comm, "%-13s %s %s\n              vs %s %s\n              rel diff %.3e after %" PetscInt_FMT " steps (Newton its %" PetscInt_FMT " / %" PetscInt_FMT ")%s\n", label, ta, oa, tb, ob, (double)rel, steps, ia, ib, assert ? "" : "  [not asserted]"));
  if (assert) PetscCall(Verdict(comm, st, rel, tol, "linearized step vs one Newton iteration"));
  PetscCall(VecDestroy(&qa));
  PetscCall(VecDestroy(&va));
  PetscCall(VecDestroy(&qb));
  PetscCall(VecDestroy(&vb));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  MechSystem  small, chain, lchain;
  PetscReal   tol = 1e-12;
  Stats       st  = {0, 0, 0};
  const char *lu  = "-ksp_type preonly -pc_type lu";
  /* one Newton iteration: -snes_convergence_test skip makes SNES report CONVERGED_ITS at max_it;
     without it SNES reports DIVERGED_MAX_IT, the TS rejects the step and, with
     -ts_max_snes_failures -1, silently retries it with dt / 4 (IntegRun checks the final time) */
  const char *one    = "-snes_type newtonls -snes_max_it 1 -snes_linesearch_type basic -snes_convergence_test skip -ksp_type preonly -pc_type lu";
  const char *newton = "-snes_type newtonls -snes_rtol 1e-14 -snes_atol 1e-15 -ksp_type preonly -pc_type lu";
  const struct {
    const char *opts;
    PetscReal   theta;
  } forms[] = {
      {"-ts_theta_theta 1",                      1.0},
      {"-ts_theta_theta 0.5",                    0.5},
      {"-ts_theta_theta 0.5 -ts_theta_endpoint", 0.5},
      {"-ts_theta_theta 0.3",                    0.3},
      {"-ts_theta_theta 0.3 -ts_theta_endpoint", 0.3},
  };

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(CreateSmallLinear(comm, &small));
  /* nonlinear: rest-length springs stretched 20 %, spring damping, drag */
  PetscCall(IntegCreateModel(comm, "chain", "-chain_n 5 -chain_stretch 1.2 -chain_c 0.5 -chain_drag 0.3", &chain));
  /* linear with D != 0: zero-rest-length springs, no spring damping, drag */
  PetscCall(IntegCreateModel(comm, "chain", "-chain_n 6 -chain_linear -chain_c 0 -chain_drag 0.3", &lchain));

  PetscCall(PetscPrintf(comm, "=== Note 001: the linearized right-hand sides, every step of 4, relative max-norm differences\n"));
  for (PetscInt g = TSTHETA2_GUESS_ZERO; g <= TSTHETA2_GUESS_EXTRAPOLATE; g++) {
    PetscCall(CheckGuess(small, "small-linear", "beuler2", "", 1.0, (TSTheta2Guess)g, 0.05, 4, tol, &st));
    PetscCall(CheckGuess(small, "small-linear", "theta2", "", 1.0, (TSTheta2Guess)g, 0.05, 4, tol, &st));
    PetscCall(CheckGuess(small, "small-linear", "theta2", "", 0.5, (TSTheta2Guess)g, 0.05, 4, tol, &st));
    PetscCall(CheckGuess(small, "small-linear", "theta2", "-ts_theta_endpoint", 0.5, (TSTheta2Guess)g, 0.05, 4, tol, &st));
    PetscCall(CheckGuess(small, "small-linear", "theta2", "", 0.3, (TSTheta2Guess)g, 0.05, 4, tol, &st));
    PetscCall(CheckGuess(lchain, "linear-chain", "beuler2", "", 1.0, (TSTheta2Guess)g, 5e-3, 4, tol, &st));
    PetscCall(CheckGuess(chain, "nonlin-chain", "beuler2", "", 1.0, (TSTheta2Guess)g, 5e-3, 4, tol, &st));
    PetscCall(CheckGuess(chain, "nonlin-chain", "theta2", "-ts_theta_endpoint", 0.5, (TSTheta2Guess)g, 5e-3, 4, tol, &st));
  }

  PetscCall(PetscPrintf(comm, "=== Linearized (guess velocity) = one Newton iteration\n"));
  for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
    char lin[256], a[256], b[256];
    PetscCall(PetscSNPrintf(lin, sizeof(lin), "%s -ts_theta_linearized -ts_theta_linearized_guess velocity %s", forms[i].opts, lu));
    /* linear models: the converged full-Newton result, and a single Newton iteration */
    PetscCall(PetscSNPrintf(a, sizeof(a), "%s %s", forms[i].opts, newton));
    PetscCall(PetscSNPrintf(b, sizeof(b), "%s %s", forms[i].opts, one));
    PetscCall(CompareRuns(small, "small-linear", "theta2", lin, "theta2", a, 0.05, 20, tol, PETSC_TRUE, &st));
    PetscCall(CompareRuns(small, "small-linear", "theta2", lin, "theta2", b, 0.05, 20, tol, PETSC_TRUE, &st));
    PetscCall(CompareRuns(lchain, "linear-chain", "theta2", lin, "theta2", a, 5e-3, 20, tol, PETSC_TRUE, &st));
    PetscCall(CompareRuns(lchain, "linear-chain", "theta2", lin, "theta2", b, 5e-3, 20, tol, PETSC_TRUE, &st));
    /* nonlinear model: one Newton iteration of PETSc's theta method on [q; v] from X = (q, v) is
       the two-field Newton step of docs/schemes.md §4 with f, K, D at the start of the step */
    PetscCall(PetscSNPrintf(b, sizeof(b), "%s %s", forms[i].opts, one));
    PetscCall(CompareRuns(chain, "nonlin-chain", "theta2", lin, "theta", b, 5e-3, 20, tol, PETSC_TRUE, &st));
    /* theta2's own Newton iterates on v+ with the position projected, so its first iterate
       evaluates f, K, D at q + theta tau v (one-leg) or q + tau v (endpoint), not at q: the
       same only for linear f */
    PetscCall(CompareRuns(chain, "nonlin-chain", "theta2", lin, "theta2", b, 5e-3, 20, tol, PETSC_FALSE, &st));
  }
  {
    char lin[256];
    PetscCall(PetscSNPrintf(lin, sizeof(lin), "-ts_theta_linearized -ts_theta_linearized_guess velocity %s", lu));
    PetscCall(CompareRuns(chain, "nonlin-chain", "beuler2", lin, "beuler", one, 5e-3, 20, tol, PETSC_TRUE, &st));
  }

  PetscCall(MechSystemDestroy(&small));
  PetscCall(MechSystemDestroy(&chain));
  PetscCall(MechSystemDestroy(&lchain));
  TestCheck(comm, !st.failures, "%" PetscInt_FMT " of %" PetscInt_FMT " linearized checks failed", st.failures, st.checks);
  PetscCall(PetscPrintf(comm, "all %" PetscInt_FMT " linearized checks passed: largest relative difference %.3e (tolerance %.1e)\n", st.checks, (double)st.worst, (double)tol));
  PetscCall(PetscFinalize());
  return 0;
}
