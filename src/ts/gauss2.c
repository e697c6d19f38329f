/*
  gauss2: Gauss-Legendre collocation with s = 1, 2, 3 stages for M q'' + f(t, q, q') = 0 in
  velocity form (docs/schemes.md §10; Hairer, Lubich & Wanner 2006, §II.1.3 and §VI.4; Hairer &
  Wanner 1996, §IV.8). With stage velocities V_i = v + Z_i,

      Q_i = q + tau sum_j a_ij V_j,    M A_i = -f(t + c_i tau, Q_i, V_i),    V_i = v + tau sum_j a_ij A_j

  multiplied by W = A^{-1} (x) M / tau, the stage equations need no mass solve and have the s N
  increments Z_i as unknowns (not the 2 s N of the first-order form):

      R_i(Z) = sum_j w_ij M Z_j + tau f(t + c_i tau, Q_i, v + Z_i) = 0
      q+ = q + tau (v + sum_i b_i Z_i),    v+ = v + sum_j d_j Z_j,  d = W^T b

  Newton (SNES) runs on R with the stage Jacobian, applied from the assembled stage tangents or by
  finite differences (-ts_gauss2_matrix_free). Its linear systems are preconditioned in the real
  eigenbasis of A (Butcher 1976, Bickart 1977): A = T L T^{-1} with L block diagonal (a real
  eigenvalue, or a 2 x 2 block [[alpha, beta], [-beta, alpha]] per complex pair), and with K, D
  frozen at the start of the step the preconditioner solves, per block, the one-stage operator

      P = cM M + tau D + cK tau^2 K,   cM = Re(1/lambda),  cK = Re(lambda)

  (exact for a real eigenvalue, the block's diagonal for a complex pair), each with a KSP of the
  options the user gives for the linear solver (-ksp_type, -pc_type: the one-stage operator's, as
  under midpoint2); the stage system's own KSP has the prefix gauss2_ (FGMRES). s = 1 is the
  implicit midpoint rule (midpoint2).

  The direct mode (-ts_gauss2_direct_max, docs/schemes.md §10): a small system (s N at most that,
  Kepler, the pair) runs Newton with the stage Jacobian assembled as one s N AIJ matrix and the
  stage KSP preonly + LU (PCREDUNDANT in parallel), exact Newton where the blocks' Krylov iterations
  and per-block solves cost more than the whole factorization.

  The shared Newton object (newton2.c, docs/solvers.md §7, mode TSMECH_NEWTON_BLOCKS) gives the
  convergence test with the round-off floor (at s times the residual scale), the EW safeguard and
  the blocks with its options under -ts_gauss2_ (matrix_free, pc_definite, pc_reduced,
  pc_rebuild_growth: lagged blocks with the matrix-free stage Jacobian).
*/
#include "tsimpl2.h"
#include "scheme.h"
#include "../mech/mechimpl.h"
#include <petsc/private/snesimpl.h>
#include <petscdmda.h>
#include <stdio.h>

#define GAUSS2_MAXS 3
/* the family number files record (scheme.h reserves 4 for gauss2) */
#define TSMECH_FAMILY_GAUSS2 4

/* Why the stage system's solver must take non-symmetric operators (MechKSPCheckSymmetric()) */
static const char Gauss2StageNonsymmetric[] = "the stage system of -ts_type gauss2 is never symmetric (its stages are coupled through the Runge-Kutta matrix, which is not)";

typedef struct {
  TSMechStepState st;
  PetscInt        s;                                                            /* stages */
  PetscReal       A[GAUSS2_MAXS * GAUSS2_MAXS], b[GAUSS2_MAXS], c[GAUSS2_MAXS]; /* the tableau, row-major */
  PetscReal       W[GAUSS2_MAXS * GAUSS2_MAXS], d[GAUSS2_MAXS];                 /* A^{-1} and W^T b */
  PetscReal       T[GAUSS2_MAXS * GAUSS2_MAXS], Ti[GAUSS2_MAXS * GAUSS2_MAXS];  /* the real eigenbasis of A and its inverse */
  PetscInt        nblk, blk[GAUSS2_MAXS];                                       /* distinct block operators; the block of each transformed stage */
  PetscReal       cM[GAUSS2_MAXS], cK[GAUSS2_MAXS];                             /* their coefficients */
  PetscBool       matrixfree, pcdefinite;                                       /* options */
  PetscInt        directmax;                                                    /* -ts_gauss2_direct_max: largest s N solved directly */
  PetscBool       direct;                                                       /* this set-up solves the assembled s N system directly */
  PetscInt        wlen, *wcols;                                                 /* row work of the direct mode's assembly */
  PetscScalar    *wvals;
  PetscBool       setup;                                                         /* the tableau is that of s */
  Vec             X, R;                                                          /* stage velocities and residual, s N */
  Vec             xs[GAUSS2_MAXS], ys[GAUSS2_MAXS];                              /* views of one stage of an s N vector */
  Vec             Q[GAUSS2_MAXS], V[GAUSS2_MAXS], MU[GAUSS2_MAXS], F, w, q1, v1; /* N */
  Mat             J;                                                             /* the stage Jacobian: shell (assembled stage tangents) or MFFD */
  Mat             K[GAUSS2_MAXS], D[GAUSS2_MAXS];                                /* stage tangents (assembled Jacobian) */
  Mat             P[GAUSS2_MAXS];                                                /* block operators */
  KSP             ksp[GAUSS2_MAXS];                                              /* their solvers */
  TSMechNewton    newton;                                                        /* convergence test, EW safeguard, blocks */
  PetscInt        blockits;                                                      /* linear iterations in the blocks, for -ts_view */
  PetscBool       prefixed;                                                      /* the stage KSP has its prefix gauss2_ */
  char            uprefix[256];                                                  /* the blocks' prefix: the stage KSP's before */
} TS_Gauss2;

/* The Gauss-Legendre tableau of s stages (Hairer, Norsett & Wanner 1993, Table II.7.3-4) */
static PetscErrorCode Gauss2Tableau(PetscInt s, PetscReal A[], PetscReal b[], PetscReal c[])
{
  PetscFunctionBegin;
  if (s == 1) {
    A[0] = 0.5;
    b[0] = 1;
    c[0] = 0.5;
  } else if (s == 2) {
    const PetscReal r3 = PetscSqrtReal(3.0);

    A[0] = 0.25;
    A[1] = 0.25 - r3 / 6;
    A[2] = 0.25 + r3 / 6;
    A[3] = 0.25;
    b[0] = b[1] = 0.5;
    c[0]        = 0.5 - r3 / 6;
    c[1]        = 0.5 + r3 / 6;
  } else if (s == 3) {
    const PetscReal r15 = PetscSqrtReal(15.0);

    A[0] = 5.0 / 36;
    A[1] = 2.0 / 9 - r15 / 15;
    A[2] = 5.0 / 36 - r15 / 30;
    A[3] = 5.0 / 36 + r15 / 24;
    A[4] = 2.0 / 9;
    A[5] = 5.0 / 36 - r15 / 24;
    A[6] = 5.0 / 36 + r15 / 30;
    A[7] = 2.0 / 9 + r15 / 15;
    A[8] = 5.0 / 36;
    b[0] = b[2] = 5.0 / 18;
    b[1]        = 4.0 / 9;
    c[0]        = 0.5 - r15 / 10;
    c[1]        = 0.5;
    c[2]        = 0.5 + r15 / 10;
  } else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-ts_gauss2_stages %" PetscInt_FMT ": gauss2 has 1, 2 or 3 stages (orders 2, 4, 6)", s);
  PetscFunctionReturn(0);
}

/* The inverse of the n x n row-major matrix a (n <= 3), by Gauss-Jordan with partial pivoting */
static PetscErrorCode Gauss2Invert(PetscInt n, const PetscReal a[], PetscReal ai[])
{
  PetscReal m[GAUSS2_MAXS][2 * GAUSS2_MAXS];
  PetscInt  i, j, k;

  PetscFunctionBegin;
  for (i = 0; i < n; i++)
    for (j = 0; j < 2 * n; j++) m[i][j] = j < n ? a[i * n + j] : (j - n == i ? 1 : 0);
  for (k = 0; k < n; k++) {
    PetscInt  p = k;
    PetscReal piv;

    for (i = k + 1; i < n; i++)
      if (PetscAbsReal(m[i][k]) > PetscAbsReal(m[p][k])) p = i;
    PetscCheck(m[p][k] != 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A tableau matrix of gauss2 is singular");
    for (j = 0; j < 2 * n; j++) {
      PetscReal t = m[k][j];
      m[k][j]     = m[p][j];
      m[p][j]     = t;
    }
    piv = m[k][k];
    for (j = 0; j < 2 * n; j++) m[k][j] /= piv;
    for (i = 0; i < n; i++)
      if (i != k) {
        PetscReal f = m[i][k];
        for (j = 0; j < 2 * n; j++) m[i][j] -= f * m[k][j];
      }
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) ai[i * n + j] = m[i][j + n];
  PetscFunctionReturn(0);
}

/* y = A x for the s x s row-major A */
static void Gauss2MatVec(PetscInt s, const PetscReal A[], const PetscReal x[], PetscReal y[])
{
  PetscInt i, j;

  for (i = 0; i < s; i++) {
    y[i] = 0;
    for (j = 0; j < s; j++) y[i] += A[i * s + j] * x[j];
  }
}

/* c = a x b */
static void Gauss2Cross(const PetscReal a[], const PetscReal b[], PetscReal c[])
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/*
  The real eigenbasis of the tableau's A (s <= 3): at most one real eigenvalue r and one complex
  pair alpha +- i beta (Gauss methods have no other, Hairer & Wanner 1996, §IV.8). The pair's
  invariant plane is the null space of B = (A - alpha I)^2 + beta^2 I; x_r in it and
  x_i = (alpha x_r - A x_r) / beta give A [x_r x_i] = [x_r x_i] [[alpha, beta], [-beta, alpha]].
  The real eigenvalue of s = 3 is the real root of the characteristic cubic (bisection to round-off).
  Everything in real arithmetic, checked against A T = T L.
*/
static PetscErrorCode Gauss2Eigenbasis(TS_Gauss2 *gs)
{
  PetscInt         s = gs->s, i, j, k, col = 0;
  PetscReal        tr = 0, m = 0, det = 0, alpha, beta2, L[GAUSS2_MAXS * GAUSS2_MAXS] = {0}, err = 0;
  const PetscReal *A = gs->A;

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(gs->T, s * s));
  for (i = 0; i < s; i++) tr += A[i * s + i];
  if (s == 1) {
    gs->T[0]   = 1;
    gs->nblk   = 1;
    gs->blk[0] = 0;
    gs->cM[0]  = 1 / A[0];
    gs->cK[0]  = A[0];
    L[0]       = A[0];
  } else {
    PetscReal r = 0, xr[GAUSS2_MAXS] = {0}, ax[GAUSS2_MAXS], beta;

    if (s == 2) {
      det   = A[0] * A[3] - A[1] * A[2];
      alpha = tr / 2;
      beta2 = det - alpha * alpha;
      xr[0] = 1;
    } else {
      PetscReal lo, hi, B[9], row[3] = {0}, best = -1, e[3];
      PetscInt  it, kr = 0;

      m   = A[0] * A[4] - A[1] * A[3] + A[0] * A[8] - A[2] * A[6] + A[4] * A[8] - A[5] * A[7];
      det = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
      /* p(l) = l^3 - tr l^2 + m l - det changes sign on [-h, h], h = 1 + max(|tr|, |m|, |det|) */
      hi = 1 + PetscMax(PetscAbsReal(tr), PetscMax(PetscAbsReal(m), PetscAbsReal(det)));
      lo = -hi;
      for (it = 0; it < 200; it++) {
        PetscReal mid = 0.5 * (lo + hi), p = ((mid - tr) * mid + m) * mid - det;

        if (p > 0) hi = mid;
        else lo = mid;
      }
      r = 0.5 * (lo + hi);
      PetscCheck(r != 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The gauss2 tableau has a zero eigenvalue");
      alpha = (tr - r) / 2;
      beta2 = det / r - alpha * alpha;
      /* the eigenvector of r: the cross product of two rows of A - r I (the pair of largest product) */
      for (i = 0; i < 3; i++) {
        PetscReal ra[3], rb[3], x[3], nx;

        for (k = 0; k < 3; k++) {
          ra[k] = A[i * 3 + k] - (i == k ? r : 0);
          rb[k] = A[((i + 1) % 3) * 3 + k] - ((i + 1) % 3 == k ? r : 0);
        }
        Gauss2Cross(ra, rb, x);
        nx = PetscSqrtReal(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        if (nx > best) {
          best = nx;
          for (k = 0; k < 3; k++) gs->T[k * 3 + 0] = x[k] / nx;
        }
      }
      L[0]       = r;
      gs->cM[0]  = 1 / r;
      gs->cK[0]  = r;
      gs->blk[0] = 0;
      col        = 1;
      /* the pair's plane: orthogonal to the (one-dimensional) row space of B */
      for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) {
          B[i * 3 + j] = (i == j ? beta2 : 0);
          for (k = 0; k < 3; k++) B[i * 3 + j] += (A[i * 3 + k] - (i == k ? alpha : 0)) * (A[k * 3 + j] - (k == j ? alpha : 0));
        }
      best = -1;
      for (i = 0; i < 3; i++) {
        PetscReal n2 = B[i * 3] * B[i * 3] + B[i * 3 + 1] * B[i * 3 + 1] + B[i * 3 + 2] * B[i * 3 + 2];
        if (n2 > best) {
          best = n2;
          for (k = 0; k < 3; k++) row[k] = B[i * 3 + k];
        }
      }
      for (k = 1; k < 3; k++)
        if (PetscAbsReal(row[k]) < PetscAbsReal(row[kr])) kr = k;
      for (k = 0; k < 3; k++) e[k] = k == kr ? 1 : 0;
      Gauss2Cross(row, e, xr);
    }
    PetscCheck(beta2 > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The gauss2 tableau has no complex pair of eigenvalues");
    beta = PetscSqrtReal(beta2);
    Gauss2MatVec(s, A, xr, ax);
    for (k = 0; k < s; k++) {
      gs->T[k * s + col]     = xr[k];
      gs->T[k * s + col + 1] = (alpha * xr[k] - ax[k]) / beta;
    }
    L[col * s + col]           = alpha;
    L[col * s + col + 1]       = beta;
    L[(col + 1) * s + col]     = -beta;
    L[(col + 1) * s + col + 1] = alpha;
    gs->cM[col ? 1 : 0]        = alpha / (alpha * alpha + beta2);
    gs->cK[col ? 1 : 0]        = alpha;
    gs->blk[col]               = col ? 1 : 0;
    gs->blk[col + 1]           = col ? 1 : 0;
    gs->nblk                   = col ? 2 : 1;
  }
  /* A T = T L to round-off */
  for (i = 0; i < s; i++)
    for (j = 0; j < s; j++) {
      PetscReal at = 0, tl = 0;

      for (k = 0; k < s; k++) {
        at += A[i * s + k] * gs->T[k * s + j];
        tl += gs->T[i * s + k] * L[k * s + j];
      }
      err = PetscMax(err, PetscAbsReal(at - tl));
    }
  PetscCheck(err < 1e-13, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The real eigenbasis of the gauss2 tableau is off by %g", (double)err);
  PetscFunctionReturn(0);
}

/* The tableau of s stages, W = A^{-1}, d = W^T b, and the real eigenbasis of A with its inverse */
static PetscErrorCode Gauss2SetUpTableau(TS_Gauss2 *gs)
{
  PetscInt s = gs->s, i, j;

  PetscFunctionBegin;
  PetscCall(Gauss2Tableau(s, gs->A, gs->b, gs->c));
  PetscCall(Gauss2Invert(s, gs->A, gs->W));
  for (j = 0; j < s; j++) {
    gs->d[j] = 0;
    for (i = 0; i < s; i++) gs->d[j] += gs->b[i] * gs->W[i * s + j];
  }
  PetscCall(Gauss2Eigenbasis(gs));
  PetscCall(Gauss2Invert(s, gs->T, gs->Ti));
  gs->setup = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Views ys[i] of the stages of an s N vector X: stage i is the i-th part of each rank's local block */
static PetscErrorCode Gauss2GetStages(TS_Gauss2 *gs, Vec X, Vec views[], PetscScalar **arr)
{
  PetscInt i, n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(gs->st.q0, &n));
  PetscCall(VecGetArray(X, arr));
  for (i = 0; i < gs->s; i++) PetscCall(VecPlaceArray(views[i], *arr + i * n));
  PetscFunctionReturn(0);
}

static PetscErrorCode Gauss2RestoreStages(TS_Gauss2 *gs, Vec X, Vec views[], PetscScalar **arr)
{
  PetscInt i;

  PetscFunctionBegin;
  for (i = 0; i < gs->s; i++) PetscCall(VecResetArray(views[i]));
  PetscCall(VecRestoreArray(X, arr));
  PetscFunctionReturn(0);
}

/* y += scale sum_k coef[k * stride] x[k], in one pass over y (VecMAXPY) */
static PetscErrorCode Gauss2Combine(Vec y, PetscInt s, PetscReal scale, const PetscReal coef[], PetscInt stride, Vec x[])
{
  PetscScalar a[GAUSS2_MAXS];
  PetscInt    k;

  PetscFunctionBegin;
  for (k = 0; k < s; k++) a[k] = scale * coef[k * stride];
  PetscCall(VecMAXPY(y, s, a, x));
  PetscFunctionReturn(0);
}

/*
  The unknowns are the stage velocity increments Z_i = V_i - v (Hairer & Wanner 1996, §IV.8: small
  unknowns keep the round-off of the solve small against the state): V_i = v + Z_i and
  Q_i = q + tau (c_i v + sum_j a_ij Z_j), the increment formed before it is added to q.
*/
static PetscErrorCode Gauss2StageStates(TS ts, Vec X)
{
  TS_Gauss2   *gs = (TS_Gauss2 *)ts->data;
  PetscScalar *x;
  PetscInt     i, s = gs->s;
  PetscReal    tau = ts->time_step;

  PetscFunctionBegin;
  PetscCall(Gauss2GetStages(gs, X, gs->xs, &x));
  for (i = 0; i < s; i++) {
    PetscCall(VecWAXPY(gs->V[i], 1.0, gs->st.v0, gs->xs[i]));
    PetscCall(VecAXPBY(gs->w, tau * gs->c[i], 0.0, gs->st.v0));
    PetscCall(Gauss2Combine(gs->w, s, tau, &gs->A[i * s], 1, gs->xs));
    PetscCall(VecWAXPY(gs->Q[i], 1.0, gs->st.q0, gs->w));
  }
  PetscCall(Gauss2RestoreStages(gs, X, gs->xs, &x));
  PetscFunctionReturn(0);
}

/* R_i = sum_j w_ij M Z_j + tau f(t + c_i tau, Q_i, V_i), M with the fixed dofs decoupled */
static PetscErrorCode SNESTSFormFunction_Gauss2(SNES snes, Vec X, Vec R, TS ts)
{
  TS_Gauss2   *gs  = (TS_Gauss2 *)ts->data;
  MechSystem   sys = gs->st.sys;
  PetscScalar *r, *x;
  PetscInt     i, j, s = gs->s;

  PetscFunctionBegin;
  (void)snes;
  PetscCall(Gauss2StageStates(ts, X));
  PetscCall(Gauss2GetStages(gs, X, gs->xs, &x));
  for (j = 0; j < s; j++) PetscCall(MatMult(sys->Mfix, gs->xs[j], gs->MU[j]));
  PetscCall(Gauss2RestoreStages(gs, X, gs->xs, &x));
  PetscCall(Gauss2GetStages(gs, R, gs->ys, &r));
  for (i = 0; i < s; i++) {
    PetscCall(MechSystemComputeForce(sys, ts->ptime + gs->c[i] * ts->time_step, gs->Q[i], gs->V[i], gs->F));
    PetscCall(VecAXPBY(gs->ys[i], ts->time_step, 0.0, gs->F));
    PetscCall(Gauss2Combine(gs->ys[i], s, 1.0, &gs->W[i * s], 1, gs->MU));
  }
  PetscCall(Gauss2RestoreStages(gs, R, gs->ys, &r));
  PetscFunctionReturn(0);
}

/* The stage Jacobian from assembled stage tangents: (J X)_i = sum_k w_ik M X_k + tau^2 K_i sum_k a_ik X_k + tau D_i X_i */
static PetscErrorCode MatMult_Gauss2(Mat J, Vec X, Vec Y)
{
  TS           ts;
  TS_Gauss2   *gs;
  MechSystem   sys;
  PetscScalar *x, *y;
  PetscInt     i, k, s;
  PetscReal    tau;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(J, &ts));
  gs  = (TS_Gauss2 *)ts->data;
  sys = gs->st.sys;
  s   = gs->s;
  tau = ts->time_step;
  PetscCall(Gauss2GetStages(gs, X, gs->xs, &x));
  PetscCall(Gauss2GetStages(gs, Y, gs->ys, &y));
  for (k = 0; k < s; k++) PetscCall(MatMult(sys->Mfix, gs->xs[k], gs->MU[k]));
  for (i = 0; i < s; i++) {
    PetscCall(VecSet(gs->w, 0));
    PetscCall(Gauss2Combine(gs->w, s, tau * tau, &gs->A[i * s], 1, gs->xs));
    PetscCall(MatMult(gs->K[i], gs->w, gs->ys[i]));
    if (gs->D[i]) PetscCall(MatMultAdd(gs->D[i], gs->xs[i], gs->ys[i], gs->ys[i]));
    PetscCall(Gauss2Combine(gs->ys[i], s, 1.0, &gs->W[i * s], 1, gs->MU));
  }
  PetscCall(Gauss2RestoreStages(gs, Y, gs->ys, &y));
  PetscCall(Gauss2RestoreStages(gs, X, gs->xs, &x));
  PetscFunctionReturn(0);
}

/*
  The global row or column of stage k of the N-numbered dof j in the s N layout, where each rank's
  local block holds its s stages one after another (Gauss2GetStages()); j's owner by bisection on
  the ownership ranges of q (the last rank whose range starts at or before j: empty ranks skipped)
*/
static inline PetscInt Gauss2Index(const PetscInt ranges[], PetscMPIInt size, PetscInt s, PetscInt k, PetscInt j)
{
  PetscMPIInt lo = 0, hi = size - 1;

  while (lo < hi) {
    PetscMPIInt mid = (lo + hi + 1) / 2;

    if (ranges[mid] <= j) lo = mid;
    else hi = mid - 1;
  }
  return s * ranges[lo] + k * (ranges[lo + 1] - ranges[lo]) + (j - ranges[lo]);
}

/* Adds coef[k] B(r, :) to row `row` of J in the columns of stage k, for every k with coef[k] != 0 */
static PetscErrorCode Gauss2AddRow(TS ts, Mat J, Mat B, PetscInt r, PetscInt row, const PetscReal coef[])
{
  TS_Gauss2         *gs = (TS_Gauss2 *)ts->data;
  const PetscInt    *cols, *ranges;
  const PetscScalar *vals;
  PetscInt           nc, c, k;
  PetscMPIInt        size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ts), &size));
  PetscCall(VecGetOwnershipRanges(ts->vec_sol, &ranges));
  PetscCall(MatGetRow(B, r, &nc, &cols, &vals));
  PetscCheck(nc <= gs->wlen, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row %" PetscInt_FMT " of a stage operator has %" PetscInt_FMT " entries, more than the %" PetscInt_FMT " of the pattern", r, nc, gs->wlen);
  for (k = 0; k < gs->s; k++) {
    if (coef[k] == 0) continue;
    for (c = 0; c < nc; c++) {
      gs->wcols[c] = Gauss2Index(ranges, size, gs->s, k, cols[c]);
      gs->wvals[c] = coef[k] * vals[c];
    }
    PetscCall(MatSetValues(J, 1, &row, nc, gs->wcols, gs->wvals, ADD_VALUES));
  }
  PetscCall(MatRestoreRow(B, r, &nc, &cols, &vals));
  PetscFunctionReturn(0);
}

/*
  The direct mode's stage Jacobian, assembled: block (i, k) is w_ik M + tau^2 a_ik K_i + delta_ik
  tau D_i (the operator MatMult_Gauss2() applies), from the stage tangents K_i, D_i (D already
  scaled by tau) and the mass with the fixed dofs decoupled
*/
static PetscErrorCode Gauss2AssembleDirect(TS ts, Mat J)
{
  TS_Gauss2      *gs  = (TS_Gauss2 *)ts->data;
  MechSystem      sys = gs->st.sys;
  const PetscInt *ranges;
  PetscInt        i, k, r, rstart, rend, s = gs->s;
  PetscMPIInt     size;
  PetscReal       tau = ts->time_step, ck[GAUSS2_MAXS], cd[GAUSS2_MAXS];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ts), &size));
  PetscCall(VecGetOwnershipRanges(ts->vec_sol, &ranges));
  PetscCall(VecGetOwnershipRange(ts->vec_sol, &rstart, &rend));
  PetscCall(MatZeroEntries(J));
  for (i = 0; i < s; i++) {
    for (k = 0; k < s; k++) {
      ck[k] = tau * tau * gs->A[i * s + k];
      cd[k] = k == i ? 1 : 0;
    }
    for (r = rstart; r < rend; r++) {
      PetscInt row = Gauss2Index(ranges, size, s, i, r);

      PetscCall(Gauss2AddRow(ts, J, gs->K[i], r, row, ck));
      if (gs->D[i]) PetscCall(Gauss2AddRow(ts, J, gs->D[i], r, row, cd));
      PetscCall(Gauss2AddRow(ts, J, sys->Mfix, r, row, &gs->W[i * s]));
    }
  }
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/*
  The direct mode's s N matrix, preallocated from the pattern of the stage operators (that of
  K + D + M, which holds M's): each block (i, k) has it
*/
static PetscErrorCode Gauss2CreateDirect(TS ts)
{
  TS_Gauss2      *gs   = (TS_Gauss2 *)ts->data;
  MPI_Comm        comm = PetscObjectComm((PetscObject)ts);
  const PetscInt *cols, *ranges;
  PetscInt        i, r, c, n, N, rstart, rend, nc, *dnnz, *onnz, s = gs->s;
  PetscMPIInt     size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(VecGetOwnershipRanges(ts->vec_sol, &ranges));
  PetscCall(VecGetOwnershipRange(ts->vec_sol, &rstart, &rend));
  PetscCall(VecGetSize(ts->vec_sol, &N));
  n = rend - rstart;
  PetscCall(PetscCalloc2(s * n, &dnnz, s * n, &onnz));
  gs->wlen = 0;
  for (r = rstart; r < rend; r++) {
    PetscInt nd = 0, nm;

    PetscCall(MatGetRow(gs->K[0], r, &nc, &cols, NULL));
    for (c = 0; c < nc; c++)
      if (cols[c] >= rstart && cols[c] < rend) nd++;
    for (i = 0; i < s; i++) {
      dnnz[i * n + r - rstart] = s * nd;
      onnz[i * n + r - rstart] = s * (nc - nd);
    }
    gs->wlen = PetscMax(gs->wlen, nc);
    PetscCall(MatRestoreRow(gs->K[0], r, &nc, &cols, NULL));
    PetscCall(MatGetRow(gs->st.sys->Mfix, r, &nm, NULL, NULL));
    gs->wlen = PetscMax(gs->wlen, nm);
    PetscCall(MatRestoreRow(gs->st.sys->Mfix, r, &nm, NULL, NULL));
  }
  PetscCall(MatCreateAIJ(comm, s * n, s * n, s * N, s * N, 0, dnnz, 0, onnz, &gs->J));
  PetscCall(PetscFree2(dnnz, onnz));
  /* the pattern is that of the stage operators; should a model's row outgrow it, a malloc, not an error */
  PetscCall(MatSetOption(gs->J, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(PetscMalloc2(gs->wlen, &gs->wcols, gs->wlen, &gs->wvals));
  PetscFunctionReturn(0);
}

/* The stage tangents at the stage states of X (the damping's scaled by tau, as it enters J) */
static PetscErrorCode SNESTSFormJacobian_Gauss2(SNES snes, Vec X, Mat J, Mat P, TS ts)
{
  TS_Gauss2 *gs = (TS_Gauss2 *)ts->data;
  PetscInt   i;

  PetscFunctionBegin;
  (void)P;
  PetscCall(TSMechNewtonSNESGuard(gs->newton, snes));
  if (gs->matrixfree) {
    PetscCall(MatMFFDComputeJacobian(snes, X, J, J, NULL));
    PetscFunctionReturn(0);
  }
  PetscCall(Gauss2StageStates(ts, X));
  for (i = 0; i < gs->s; i++) {
    PetscReal t = ts->ptime + gs->c[i] * ts->time_step;

    PetscCall(MechSystemComputeOperator(gs->st.sys, t, gs->Q[i], gs->V[i], 1, 0, 0, gs->K[i]));
    if (gs->D[i]) PetscCall(MechSystemComputeOperator(gs->st.sys, t, gs->Q[i], gs->V[i], 0, ts->time_step, 0, gs->D[i]));
  }
  if (gs->direct) {
    PetscCall(Gauss2AssembleDirect(ts, J));
    PetscFunctionReturn(0);
  }
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/*
  The preconditioner: z = (T (x) I) diag(P_k^{-1}) (T^{-1} (x) I) r, the blocks P_k frozen at the
  start of the step (Gauss2BuildBlocks()).
*/
static PetscErrorCode PCApply_Gauss2(PC pc, Vec r, Vec z)
{
  TS           ts;
  TS_Gauss2   *gs;
  PetscScalar *ra, *za;
  PetscInt     i, k, s, its;

  PetscFunctionBegin;
  PetscCall(PCShellGetContext(pc, &ts));
  gs = (TS_Gauss2 *)ts->data;
  s  = gs->s;
  PetscCall(Gauss2GetStages(gs, r, gs->xs, &ra));
  PetscCall(Gauss2GetStages(gs, z, gs->ys, &za));
  for (k = 0; k < s; k++) {
    KSPConvergedReason reason;

    PetscCall(VecSet(gs->w, 0));
    PetscCall(Gauss2Combine(gs->w, s, 1.0, &gs->Ti[k * s], 1, gs->xs));
    PetscCall(KSPSolve(gs->ksp[gs->blk[k]], gs->w, gs->MU[k]));
    PetscCall(KSPGetConvergedReason(gs->ksp[gs->blk[k]], &reason));
    PetscCall(KSPGetIterationNumber(gs->ksp[gs->blk[k]], &its));
    gs->blockits += its;
    /* a failed block solve fails the outer linear solve, and so the stage, with its reason */
    if (reason < 0) PetscCall(PCSetFailedReason(pc, PC_SUBPC_ERROR));
  }
  for (i = 0; i < s; i++) {
    PetscCall(VecSet(gs->ys[i], 0));
    PetscCall(Gauss2Combine(gs->ys[i], s, 1.0, &gs->T[i * s], 1, gs->MU));
  }
  PetscCall(Gauss2RestoreStages(gs, z, gs->ys, &za));
  PetscCall(Gauss2RestoreStages(gs, r, gs->xs, &ra));
  PetscFunctionReturn(0);
}

/* The block operators cM M + tau D + cK tau^2 K at the start of the step, from the Newton object
   (semidefinite with -ts_gauss2_pc_definite; kept while lagged, TSMechNewtonBlocksBegin()) */
static PetscErrorCode Gauss2BuildBlocks(TS ts)
{
  TS_Gauss2 *gs  = (TS_Gauss2 *)ts->data;
  PetscReal  tau = ts->time_step;
  PetscInt   k;
  PetscBool  rebuild;

  PetscFunctionBegin;
  if (gs->direct) PetscFunctionReturn(0);
  PetscCall(TSMechNewtonBlocksBegin(gs->newton, tau, &rebuild));
  if (!rebuild) PetscFunctionReturn(0);
  for (k = 0; k < gs->nblk; k++) {
    TSMechNewtonStage st;

    PetscCall(PetscMemzero(&st, sizeof(st)));
    st.t  = ts->ptime + 0.5 * tau;
    st.q  = gs->st.q0;
    st.v  = gs->st.v0;
    st.a  = NULL;
    st.cK = gs->cK[k] * tau * tau;
    st.cD = tau;
    st.cM = gs->cM[k];
    PetscCall(TSMechNewtonComputeBlock(gs->newton, &st, gs->P[k]));
    PetscCall(KSPSetOperators(gs->ksp[k], gs->P[k], gs->P[k]));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TSStep_Gauss2(TS ts)
{
  TS_Gauss2 *gs = (TS_Gauss2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(TSMechStepBegin(ts, &gs->st));
  while (!ts->reason && gs->st.status != TS_STEP_COMPLETE) {
    PetscBool           stageok;
    PetscInt            nits, lits, s = gs->s;
    SNESConvergedReason snesreason;
    PetscScalar        *x;
    PetscReal           t1 = ts->ptime + ts->time_step;

    PetscCall(TSPreStage(ts, ts->ptime + 0.5 * ts->time_step));
    PetscCall(Gauss2BuildBlocks(ts));
    /* the round-off floor starts afresh; no tolerance scaling (the guess is Z = 0) */
    PetscCall(TSMechNewtonPreSolve(gs->newton, gs->st.q0, gs->st.v0, NULL, gs->X));
    /* initial guess: every stage velocity v (Z = 0) */
    PetscCall(VecSet(gs->X, 0));
    PetscCall(SNESSolve(ts->snes, NULL, gs->X));
    PetscCall(SNESGetIterationNumber(ts->snes, &nits));
    PetscCall(SNESGetLinearSolveIterations(ts->snes, &lits));
    PetscCall(SNESGetConvergedReason(ts->snes, &snesreason));
    ts->snes_its += nits;
    ts->ksp_its += lits;
    stageok = snesreason > 0 ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(TSMechNewtonPostSolve(gs->newton, nits, lits, stageok));
    if (!stageok) PetscCall(TSMechStageFailed(ts));
    /* the new state from the stage velocities, whatever the solver evaluated last */
    /* q+ = q + tau (v + sum_i b_i Z_i), v+ = v + sum_j d_j Z_j (sum_i b_i = 1): the increments summed
       first and added once */
    PetscCall(VecAXPBY(gs->q1, ts->time_step, 0.0, gs->st.v0));
    PetscCall(VecSet(gs->v1, 0));
    PetscCall(Gauss2GetStages(gs, gs->X, gs->xs, &x));
    PetscCall(Gauss2Combine(gs->q1, s, ts->time_step, gs->b, 1, gs->xs));
    PetscCall(Gauss2Combine(gs->v1, s, 1.0, gs->d, 1, gs->xs));
    PetscCall(Gauss2RestoreStages(gs, gs->X, gs->xs, &x));
    PetscCall(VecAXPY(gs->q1, 1.0, gs->st.q0));
    PetscCall(VecAXPY(gs->v1, 1.0, gs->st.v0));
    PetscCall(TSPostStage(ts, t1, 0, &gs->q1));
    if (stageok) PetscCall(TSAdaptCheckStage(ts->adapt, ts, t1, gs->q1, &stageok));
    PetscCall(TSMechStepFinish(ts, &gs->st, stageok, gs->q1, gs->v1));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TSRollBack_Gauss2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSMechRollBack(ts, &((TS_Gauss2 *)ts->data)->st));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSReset_Gauss2(TS ts)
{
  TS_Gauss2 *gs = (TS_Gauss2 *)ts->data;
  PetscInt   i;

  PetscFunctionBegin;
  PetscCall(TSMechStepStateReset(&gs->st));
  PetscCall(TSMechNewtonReset(gs->newton));
  PetscCall(VecDestroy(&gs->X));
  PetscCall(VecDestroy(&gs->R));
  for (i = 0; i < GAUSS2_MAXS; i++) {
    PetscCall(VecDestroy(&gs->xs[i]));
    PetscCall(VecDestroy(&gs->ys[i]));
    PetscCall(VecDestroy(&gs->Q[i]));
    PetscCall(VecDestroy(&gs->V[i]));
    PetscCall(VecDestroy(&gs->MU[i]));
    PetscCall(MatDestroy(&gs->K[i]));
    PetscCall(MatDestroy(&gs->D[i]));
    PetscCall(MatDestroy(&gs->P[i]));
    PetscCall(KSPDestroy(&gs->ksp[i]));
  }
  PetscCall(VecDestroy(&gs->F));
  PetscCall(VecDestroy(&gs->w));
  PetscCall(VecDestroy(&gs->q1));
  PetscCall(VecDestroy(&gs->v1));
  PetscCall(MatDestroy(&gs->J));
  PetscCall(PetscFree2(gs->wcols, gs->wvals));
  gs->wlen = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSDestroy_Gauss2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSReset_Gauss2(ts));
  PetscCall(TSMechNewtonDestroy(&((TS_Gauss2 *)ts->data)->newton));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSGauss2SetStages_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSGauss2GetStages_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSMechGetNewton_C", NULL));
  PetscCall(PetscFree(ts->data));
  PetscFunctionReturn(0);
}

/* A view of one stage of an s N vector: the layout of q, no storage of its own */
static PetscErrorCode Gauss2CreateView(TS ts, Vec *v)
{
  PetscInt    n, N, bs;
  PetscMPIInt size;
  MPI_Comm    comm = PetscObjectComm((PetscObject)ts->vec_sol);

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(ts->vec_sol, &n));
  PetscCall(VecGetSize(ts->vec_sol, &N));
  PetscCall(VecGetBlockSize(ts->vec_sol, &bs));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  /* of the type of q (sequential on one rank), so that VecCopy() between them is plain */
  if (size == 1) PetscCall(VecCreateSeqWithArray(comm, bs, n, NULL, v));
  else PetscCall(VecCreateMPIWithArray(comm, bs, n, N, NULL, v));
  PetscFunctionReturn(0);
}

/* The block solvers of the block preconditioner: the user's linear solver options (no prefix of
   gauss2's own), on the blocks cM M + tau D + cK tau^2 K or the model's multigrid operators */
static PetscErrorCode Gauss2SetUpBlockSolvers(TS ts, KSP ksp)
{
  TS_Gauss2 *gs   = (TS_Gauss2 *)ts->data;
  MPI_Comm   comm = PetscObjectComm((PetscObject)ts);
  PetscInt   i;

  PetscFunctionBegin;
  for (i = 0; i < gs->nblk; i++) {
    PC        bpc;
    PetscBool ismg, isda, hasmg;

    PetscCall(KSPCreate(comm, &gs->ksp[i]));
    PetscCall(PetscObjectIncrementTabLevel((PetscObject)gs->ksp[i], (PetscObject)ksp, 1));
    PetscCall(KSPSetOptionsPrefix(gs->ksp[i], gs->uprefix[0] ? gs->uprefix : NULL));
    PetscCall(KSPSetFromOptions(gs->ksp[i]));
    /* the blocks cM M + tau D + cK tau^2 K are symmetric when the tangent is */
    PetscCall(MechSystemCheckSolver(gs->st.sys, gs->ksp[i]));
    /* -pc_type mg on a model with levels of its own: the blocks are its matrix-free multigrid operators */
    PetscCall(KSPGetPC(gs->ksp[i], &bpc));
    PetscCall(PetscObjectTypeCompare((PetscObject)bpc, PCMG, &ismg));
    PetscCall(MechSystemHasMultigrid(gs->st.sys, &hasmg));
    if (ismg && hasmg) {
      PetscCall(MechSystemCreateOperatorMultigrid(gs->st.sys, &gs->P[i]));
      PetscCall(KSPSetOperators(gs->ksp[i], gs->P[i], gs->P[i]));
      PetscCall(MechSystemSetUpPCMG(gs->st.sys, bpc));
      continue;
    }
    PetscCall(TSMechNewtonCreateBlockMatrix(gs->newton, &gs->P[i]));
    /* the system's grid for the blocks' preconditioner, as for midpoint2's Newton solver (TSMechSetSolution()) */
    if (gs->st.sys->dm) {
      PetscCall(KSPGetPC(gs->ksp[i], &bpc));
      PetscCall(PetscObjectTypeCompare((PetscObject)gs->st.sys->dm, DMDA, &isda));
      PetscCall(PetscObjectTypeCompare((PetscObject)bpc, PCMG, &ismg));
      if (isda) {
        PetscCall(KSPSetDM(gs->ksp[i], gs->st.sys->dm));
        PetscCall(KSPSetDMActive(gs->ksp[i], PETSC_FALSE));
      }
      if (ismg) PetscCall(MechSystemSetUpPCMG(gs->st.sys, bpc));
    }
  }
  PetscFunctionReturn(0);
}

/*
  The solver of the stage system: the direct mode's LU, or FGMRES with the block preconditioner.
  The linear solver options the user gives (-ksp_type, -pc_type, ...) are those of the one-stage
  operator, as under midpoint2: they go to the block solvers. The solver of the stage system
  itself gets the prefix gauss2_ (FGMRES by default: the block solves may be iterative) and the
  block preconditioner (-gauss2_pc_type none turns it off).
*/
static PetscErrorCode Gauss2SetUpSolver(TS ts)
{
  TS_Gauss2  *gs   = (TS_Gauss2 *)ts->data;
  MPI_Comm    comm = PetscObjectComm((PetscObject)ts);
  PetscInt    N, s = gs->s;
  KSP         ksp;
  PC          pc;
  const char *prefix;
  char        bprefix[256];

  PetscFunctionBegin;
  PetscCall(VecGetSize(ts->vec_sol, &N));
  PetscCall(SNESGetKSP(ts->snes, &ksp));
  if (!gs->prefixed) {
    PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
    PetscCall(PetscStrncpy(gs->uprefix, prefix ? prefix : "", sizeof(gs->uprefix)));
    PetscCall(KSPAppendOptionsPrefix(ksp, "gauss2_"));
    gs->prefixed = PETSC_TRUE;
  }
  PetscCall(PetscSNPrintf(bprefix, sizeof(bprefix), "%sgauss2_", gs->uprefix));
  if (gs->direct) {
    PetscMPIInt size;

    /* LU of the assembled s N system (gathered onto every rank in parallel: it is small) */
    PetscCallMPI(MPI_Comm_size(comm, &size));
    PetscCall(KSPSetType(ksp, KSPPREONLY));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, size == 1 ? PCLU : PCREDUNDANT));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(MechKSPCheckSymmetric(ksp, Gauss2StageNonsymmetric));
    {
      PetscBool preonly, none;

      PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPPREONLY, &preonly));
      PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCNONE, &none));
      PetscCheck(!(preonly && none), comm, PETSC_ERR_ARG_INCOMP, "-%spc_type none with the direct mode of -ts_type gauss2 (s N = %" PetscInt_FMT " <= -ts_gauss2_direct_max %" PetscInt_FMT "): its KSP is preonly, so Newton would take the residual as its step; give -%sksp_type gmres or -ts_gauss2_direct_max 0", bprefix, s * N, gs->directmax, bprefix);
    }
    gs->blockits = 0;
    PetscFunctionReturn(0);
  }
  PetscCall(KSPSetType(ksp, KSPFGMRES));
  PetscCall(KSPSetTolerances(ksp, 1e-5, 1e-50, 1e4, 10000));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCSHELL));
  PetscCall(PCShellSetContext(pc, ts));
  PetscCall(PCShellSetApply(pc, PCApply_Gauss2));
  PetscCall(PCShellSetName(pc, "gauss2 block preconditioner (real eigenbasis of the tableau)"));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(MechKSPCheckSymmetric(ksp, Gauss2StageNonsymmetric));
  {
    PetscBool isshell, isnone;

    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCSHELL, &isshell));
    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCNONE, &isnone));
    PetscCheck(isshell || isnone, comm, PETSC_ERR_ARG_INCOMP, "-%spc_type %s with -ts_type gauss2: the stage system has no assembled matrix; its preconditioner is the block preconditioner (or none), and -%spc_type sets the blocks' solvers", bprefix, ((PetscObject)pc)->type_name, gs->uprefix);
  }
  PetscCall(Gauss2SetUpBlockSolvers(ts, ksp));
  gs->blockits = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSSetUp_Gauss2(TS ts)
{
  TS_Gauss2 *gs   = (TS_Gauss2 *)ts->data;
  MPI_Comm   comm = PetscObjectComm((PetscObject)ts);
  PetscInt   i, n, N, s;
  PetscBool  none, motion, reduced;

  PetscFunctionBegin;
  PetscCheck(gs->s >= 1 && gs->s <= GAUSS2_MAXS, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ts_gauss2_stages %" PetscInt_FMT ": gauss2 has 1, 2 or 3 stages (orders 2, 4, 6)", gs->s);
  s = gs->s;
  PetscCall(TSMechStepStateSetUp(ts, &gs->st, PETSC_FALSE));
  PetscCheck(gs->st.sys, comm, PETSC_ERR_ARG_WRONGSTATE, "TS type gauss2 needs the mass matrix M and the force f separately: attach a MechSystem with TSMechSetSystem(); a plain I2Function does not provide them");
  /* fixed steps, or automatic incrementation's retry of a failed step (no error estimate either) */
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ts->adapt, &none, TSADAPTNONE, TSADAPTINCREMENT, ""));
  PetscCheck(none, comm, PETSC_ERR_SUP, "-ts_adapt_type %s with -ts_type gauss2: gauss2 has no embedded error estimate (a Gauss method of order 2s has no embedded formula of lower order from its own stages, Hairer & Wanner II, §IV.8); use fixed steps (-ts_adapt_type none) or the retry of failed steps (-ts_adapt_type increment, the default)", ((PetscObject)ts->adapt)->type_name);
  PetscCall(MechSystemHasFixedMotion(gs->st.sys, &motion));
  PetscCheck(!motion, comm, PETSC_ERR_SUP, "-ts_type gauss2 with a prescribed motion of the fixed dofs: its stages would need the motion at every stage time; use midpoint2");
  PetscCall(MechSystemSetUp(gs->st.sys));
  PetscCall(Gauss2SetUpTableau(gs));
  PetscCall(TSMechNewtonGetMatrixFree(gs->newton, &gs->matrixfree, NULL, NULL));
  PetscCall(TSMechNewtonGetPCDefinite(gs->newton, &gs->pcdefinite));
  PetscCall(TSReset_Gauss2(ts));
  PetscCall(TSMechStepStateSetUp(ts, &gs->st, PETSC_FALSE));
  PetscCall(VecGetLocalSize(ts->vec_sol, &n));
  PetscCall(VecGetSize(ts->vec_sol, &N));
  PetscCall(VecCreateMPI(comm, s * n, s * N, &gs->X));
  PetscCall(VecDuplicate(gs->X, &gs->R));
  for (i = 0; i < s; i++) {
    PetscCall(Gauss2CreateView(ts, &gs->xs[i]));
    PetscCall(Gauss2CreateView(ts, &gs->ys[i]));
    PetscCall(VecDuplicate(ts->vec_sol, &gs->Q[i]));
    PetscCall(VecDuplicate(ts->vec_sol, &gs->V[i]));
    PetscCall(VecDuplicate(ts->vec_sol, &gs->MU[i]));
  }
  PetscCall(VecDuplicate(ts->vec_sol, &gs->F));
  PetscCall(VecDuplicate(ts->vec_sol, &gs->w));
  PetscCall(VecDuplicate(ts->vec_sol, &gs->q1));
  PetscCall(VecDuplicate(ts->vec_sol, &gs->v1));

  /*
    The direct mode (-ts_gauss2_direct_max): a small system's Newton runs with the assembled s N
    Jacobian and a direct solve, where the block preconditioner's Krylov iterations and s block
    solves per iteration cost more than the whole factorization (Kepler, N = 2). Decided from the
    global size and the options, alike on every rank; the blocks' own options (matrix-free,
    semidefinite or reduced blocks) keep the block preconditioner.
  */
  PetscCheck(gs->directmax >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ts_gauss2_direct_max %" PetscInt_FMT " must be non-negative (0: never solve the stage system directly)", gs->directmax);
  PetscCall(TSMechNewtonGetPCReduced(gs->newton, &reduced, NULL));
  gs->direct = (!gs->matrixfree && !gs->pcdefinite && !reduced && s * N <= gs->directmax) ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(TSGetSNES(ts, &ts->snes));
  PetscCall(SNESSetFunction(ts->snes, gs->R, SNESTSFormFunction, ts));
  if (gs->matrixfree) {
    PetscCall(MatCreateSNESMF(ts->snes, &gs->J));
  } else {
    for (i = 0; i < s; i++) {
      PetscCall(MechSystemCreateOperator(gs->st.sys, &gs->K[i]));
      if (gs->st.sys->hasdamping) PetscCall(MechSystemCreateOperator(gs->st.sys, &gs->D[i]));
    }
    if (gs->direct) {
      PetscBool rowsK, rowsM;

      /* the direct mode reads the operators by rows: a model's shell operators keep the blocks */
      PetscCall(MatHasOperation(gs->K[0], MATOP_GET_ROW, &rowsK));
      PetscCall(MatHasOperation(gs->st.sys->Mfix, MATOP_GET_ROW, &rowsM));
      if (!rowsK || !rowsM) gs->direct = PETSC_FALSE;
    }
    if (gs->direct) PetscCall(Gauss2CreateDirect(ts));
    else {
      PetscCall(MatCreateShell(comm, s * n, s * n, s * N, s * N, ts, &gs->J));
      PetscCall(MatShellSetOperation(gs->J, MATOP_MULT, (void (*)(void))MatMult_Gauss2));
    }
  }
  PetscCall(SNESSetJacobian(ts->snes, gs->J, gs->J, SNESTSFormJacobian, ts));
  /* the Newton object's convergence test, its floor at s times the residual scale (s stage equations), tested where Newton stagnates */
  PetscCall(TSMechNewtonSetRoundoffFloor(gs->newton, (PetscReal)s, PETSC_TRUE));
  PetscCall(TSMechNewtonSetUp(gs->newton, gs->st.sys, TSMECH_NEWTON_BLOCKS, "-ts_type gauss2 (Newton on the s N stage system)"));

  PetscCall(Gauss2SetUpSolver(ts));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSSetFromOptions_Gauss2(TS ts, PetscOptionItems *PetscOptionsObject)
{
  TS_Gauss2 *gs = (TS_Gauss2 *)ts->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Gauss2 (Gauss-Legendre collocation in velocity form for M q'' + f = 0) options");
  PetscCall(MechOptionsInt("-ts_gauss2_stages", "Number of stages s: 1 (midpoint rule, order 2), 2 (order 4), 3 (order 6)", "TSGauss2SetStages", gs->s, &gs->s, NULL));
  PetscCall(MechOptionsInt("-ts_gauss2_direct_max", "Largest s N (global) whose stage system Newton solves with the assembled s N Jacobian and a direct solver (-gauss2_pc_type, LU), not with the block preconditioner (0: never; -ts_gauss2_matrix_free, _pc_definite, _pc_reduced keep the blocks)", "TSGAUSS2", gs->directmax, &gs->directmax, NULL));
  /* -ts_gauss2_matrix_free (the stage Jacobian by finite differences of the stage residual),
     -ts_gauss2_pc_definite, -ts_gauss2_pc_reduced, ...: the Newton object's */
  PetscCall(TSMechNewtonSetFromOptions(gs->newton, PetscOptionsObject));
  PetscOptionsHeadEnd();
  /* the number of stages is checked in TSSetUp_Gauss2(): an error inside the options block would leak it */
  PetscFunctionReturn(0);
}

static PetscErrorCode TSView_Gauss2(TS ts, PetscViewer viewer)
{
  TS_Gauss2 *gs = (TS_Gauss2 *)ts->data;
  PetscBool  iascii;
  MechSystem sys;
  PetscInt   k;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (iascii) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  Gauss-Legendre collocation, %" PetscInt_FMT " stage%s (order %" PetscInt_FMT "), velocity form: Newton on the %" PetscInt_FMT " stage velocities (s N unknowns)\n", gs->s, gs->s > 1 ? "s" : "", 2 * gs->s, gs->s));
    if (gs->direct) {
      PetscInt N;

      PetscCall(VecGetSize(ts->vec_sol, &N));
      PetscCall(PetscViewerASCIIPrintf(viewer, "  Stage system solved directly: Newton with the assembled s N Jacobian (s N = %" PetscInt_FMT ", at most -ts_gauss2_direct_max %" PetscInt_FMT "), its KSP (prefix gauss2_) below\n", gs->s * N, gs->directmax));
      PetscCall(TSMechNewtonView(gs->newton, TSMECH_NEWTON_FULL, viewer));
    } else PetscCall(PetscViewerASCIIPrintf(viewer, "  Stage Jacobian %s; preconditioner: %" PetscInt_FMT " block operator%s cM M + tau D + cK tau^2 K%s at the start of the step\n", gs->matrixfree ? "by finite differences (MFFD)" : "from the assembled stage tangents", gs->setup ? gs->nblk : (gs->s + 1) / 2, (gs->setup ? gs->nblk : (gs->s + 1) / 2) > 1 ? "s" : "", gs->pcdefinite ? " (semidefinite tangent)" : ""));
    if (gs->setup && !gs->direct) {
      for (k = 0; k < gs->nblk; k++) PetscCall(PetscViewerASCIIPrintf(viewer, "    block %" PetscInt_FMT ": cM = %.6g, cK = %.6g\n", k, (double)gs->cM[k], (double)gs->cK[k]));
      PetscCall(PetscViewerASCIIPrintf(viewer, "  Linear iterations in the blocks: %" PetscInt_FMT "\n", gs->blockits));
      PetscCall(TSMechNewtonView(gs->newton, TSMECH_NEWTON_BLOCKS, viewer));
      if (gs->ksp[0]) {
        PetscCall(PetscViewerASCIIPushTab(viewer));
        PetscCall(KSPView(gs->ksp[0], viewer));
        PetscCall(PetscViewerASCIIPopTab(viewer));
      }
    }
  }
  PetscCall(TSMechGetSystem(ts, &sys));
  if (sys) {
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(MechSystemView(sys, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TSGauss2SetStages_Gauss2(TS ts, PetscInt s)
{
  TS_Gauss2 *gs = (TS_Gauss2 *)ts->data;

  PetscFunctionBegin;
  PetscCheck(s >= 1 && s <= GAUSS2_MAXS, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "-ts_gauss2_stages %" PetscInt_FMT ": gauss2 has 1, 2 or 3 stages (orders 2, 4, 6)", s);
  if (s != gs->s) {
    gs->s           = s;
    gs->setup       = PETSC_FALSE;
    ts->setupcalled = PETSC_FALSE;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TSGauss2GetStages_Gauss2(TS ts, PetscInt *s)
{
  PetscFunctionBegin;
  *s = ((TS_Gauss2 *)ts->data)->s;
  PetscFunctionReturn(0);
}

/*
  The family's scheme parameters (scheme.h): the number of stages, recorded by the HDF5 output and
  a checkpoint (as a real, the kind files store) and given back on restart.
*/
static const char *const Gauss2FamilyTypes[] = {TSGAUSS2, NULL};
static PetscErrorCode    Gauss2SchemeDeclare(TSMechScheme *s)
{
  PetscFunctionBegin;
  PetscCall(TSMechSchemeAddParameter(s, "gauss2_stages", TSMECH_PARAM_REAL));
  PetscFunctionReturn(0);
}

static PetscErrorCode Gauss2SchemeGet(TS ts, TSMechScheme *s)
{
  TSMechParam *p;
  PetscInt     stages;

  PetscFunctionBegin;
  PetscCall(Gauss2SchemeDeclare(s));
  PetscCall(TSGauss2GetStages(ts, &stages));
  PetscCall(TSMechSchemeFindParameter(s, "gauss2_stages", &p));
  p->real = (PetscReal)stages;
  PetscFunctionReturn(0);
}

static PetscErrorCode Gauss2SchemeSet(TS ts, const TSMechScheme *s)
{
  TSMechParam *p;

  PetscFunctionBegin;
  PetscCall(TSMechSchemeFindParameter(s, "gauss2_stages", &p));
  PetscCall(TSGauss2SetStages(ts, (PetscInt)p->real));
  PetscFunctionReturn(0);
}

static PetscErrorCode Gauss2SchemeCheck(const TSMechScheme *s, char problem[], size_t len)
{
  TSMechParam *p;

  PetscFunctionBegin;
  PetscCall(TSMechSchemeFindParameter(s, "gauss2_stages", &p));
  if (!(p->real == 1 || p->real == 2 || p->real == 3)) (void)snprintf(problem, len, "its gauss2_stages %g is not 1, 2 or 3", (double)p->real);
  PetscFunctionReturn(0);
}

/*
  What gauss2 reports of itself (scheme.h): implicit, order 2s, second-order form; it keeps nothing
  between steps and runs at fixed steps only, so a restart continues it exactly (with
  -ts_gauss2_matrix_free to the solver tolerance: the lagged blocks are assembled anew). Its blocks'
  multigrid takes PCMG's own Galerkin products (no point-block version: refused with BAIJ, tsmech.c).
*/
static PetscErrorCode Gauss2Properties(TS ts, TSMechProperties *p)
{
  PetscInt s;

  PetscFunctionBegin;
  PetscCall(TSGauss2GetStages(ts, &s));
  p->explicit_   = PETSC_FALSE;
  p->order       = 2 * s;
  p->secondorder = PETSC_TRUE;
  p->restart     = TSMECH_RESTART_FIXED_STEP;
  p->ownfixed    = PETSC_TRUE; /* a prescribed motion is refused at set-up */
  p->owncoarse   = PETSC_FALSE;
  /* with -ts_gauss2_matrix_free the lagged blocks are assembled anew: to the solver tolerance */
  if (ts->problem_type != TS_LINEAR) PetscCall(TSMechNewtonRestartNote(((TS_Gauss2 *)ts->data)->newton, p->restartnote, sizeof(p->restartnote)));
  PetscFunctionReturn(0);
}

static const char *const Gauss2Descriptions[] = {"Gauss-Legendre collocation in velocity form, s stages from -ts_gauss2_stages (order 2s), symplectic", NULL};
/* the stage system's solver has the prefix gauss2_ (TSSetUp_Gauss2()) */
static const char *const Gauss2Valued[] = {"-ts_gauss2_stages", "-ts_gauss2_direct_max", "-gauss2_ksp_type", "-gauss2_ksp_rtol", "-gauss2_ksp_atol", "-gauss2_ksp_max_it", "-gauss2_pc_type", TSMECH_NEWTON_VALUED_OPTIONS("ts_gauss2_"), TSMECH_INCREMENT_VALUED_OPTIONS, NULL};

/* The force evaluations of the last step (scheme.h): its stages from the converged increments, sum_i b_i f(t + c_i tau, Q_i, V_i) */
static PetscErrorCode Gauss2StepEval(TS ts, TSMechStepEval *e)
{
  TS_Gauss2      *gs = (TS_Gauss2 *)ts->data;
  const PetscReal dt = ts->time_step;

  PetscFunctionBegin;
  ts->time_step = e->tau;
  PetscCall(Gauss2StageStates(ts, gs->X));
  ts->time_step = dt;
  for (PetscInt i = 0; i < gs->s; i++) PetscCall(TSMechStepEvalAt(e, i, e->t0 + gs->c[i] * e->tau, gs->b[i], gs->Q[i], gs->V[i]));
  e->exact = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static const TSMechFamilyOps Gauss2Family = {TSMECH_FAMILY_GAUSS2, Gauss2FamilyTypes, PETSC_FALSE, Gauss2SchemeDeclare, Gauss2SchemeGet, Gauss2SchemeSet, Gauss2SchemeCheck, Gauss2Properties, NULL, NULL, Gauss2Descriptions, Gauss2Valued, Gauss2StepEval};

/* The Newton object, for the settings every implicit type shares (newtonapi.c) */
static PetscErrorCode TSMechGetNewton_Gauss2(TS ts, TSMechNewton *newton)
{
  PetscFunctionBegin;
  *newton = ((TS_Gauss2 *)ts->data)->newton;
  PetscFunctionReturn(0);
}

/*MC
  TSGAUSS2 - "gauss2": Gauss-Legendre collocation for M q'' + f(t, q, q') = 0 in velocity form
  (docs/schemes.md §10; Hairer, Lubich & Wanner 2006, §II.1.3, §VI.4).

  Options Database Keys:
+ -ts_type gauss2 - selects this type
. -ts_gauss2_stages <2> - 1 (implicit midpoint rule, order 2), 2 (order 4), 3 (order 6) (`TSGauss2SetStages()`);
    recorded in outputs and checkpoints (gauss2_stages)
. -ts_gauss2_matrix_free - the stage Jacobian by finite differences of the stage residual
. -ts_gauss2_pc_definite - the preconditioner's block operators from the semidefinite tangent
. -ts_gauss2_pc_reduced - the blocks of the model's reduced pattern (cloth, lattice)
. -ts_gauss2_pc_rebuild_growth <1.1> - with -ts_gauss2_matrix_free: the blocks kept across steps until the linear iterations grow this much (0: every step)
. -ts_gauss2_direct_max <32> - s N at most this (and no matrix_free, pc_definite, pc_reduced): Newton with the assembled s N Jacobian and LU instead of the blocks (0: never)
. -ts_gauss2_ew_safeguard <0.5> - with -snes_ksp_ew: a linear solve stops once its residual is below this fraction of Newton's tolerance (Kelley's safeguard against oversolving; 0: off)
. -ksp_type, -pc_type - the solver of each block operator cM M + tau D + cK tau^2 K (as for midpoint2)
- -gauss2_ksp_type <fgmres>, -gauss2_ksp_rtol <1e-5> - the solver of the stage system (-gauss2_pc_type none: no preconditioner)

  Level: intermediate

  Notes:
  Newton runs on the s stage velocities (s N unknowns); its linear solver (-gauss2_ksp_type, FGMRES
  by default) is preconditioned block by block in the real eigenbasis of the tableau's matrix A
  (Butcher 1976, Bickart 1977), each block a one-stage operator of the system at the start of the
  step. The update needs no mass solve. Symplectic, A-stable, order 2s; quadratic invariants
  (angular momentum) are kept to the Newton tolerance. Fixed steps only: an adaptive controller
  is refused (no embedded error estimate), and so is a prescribed motion of the fixed dofs. Needs a
  `MechSystem` (`TSMechSetSystem()`).

.seealso: `TSMIDPOINT2`, `TSGauss2SetStages()`, `TSMechSetSystem()`
M*/
static PetscErrorCode TSCreate_Gauss2(TS ts)
{
  TS_Gauss2 *gs;

  PetscFunctionBegin;
  ts->ops->reset          = TSReset_Gauss2;
  ts->ops->destroy        = TSDestroy_Gauss2;
  ts->ops->view           = TSView_Gauss2;
  ts->ops->setup          = TSSetUp_Gauss2;
  ts->ops->setfromoptions = TSSetFromOptions_Gauss2;
  ts->ops->step           = TSStep_Gauss2;
  ts->ops->rollback       = TSRollBack_Gauss2;
  ts->ops->snesfunction   = SNESTSFormFunction_Gauss2;
  ts->ops->snesjacobian   = SNESTSFormJacobian_Gauss2;
  ts->usessnes            = PETSC_TRUE;
  ts->default_adapt_type  = TSADAPTINCREMENT;
  PetscCall(PetscNew(&gs));
  ts->data = (void *)gs;
  gs->s    = 2;
  /* the direct mode for small systems (Kepler, a pair; bench/README.md, "gauss2 against midpoint2 ...") */
  gs->directmax = 32;
  PetscCall(TSMechNewtonCreate(ts, "ts_gauss2_", &gs->newton));
  /* its options act on the preconditioner's blocks; no nonlinear elimination, no lagged coarse levels */
  PetscCall(TSMechNewtonSetType(gs->newton, TSGAUSS2, TSMECH_NEWTON_FEATURE_BLOCKS));
  PetscCall(TSMechNewtonSetDifferenced(gs->newton, PETSC_TRUE));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSGauss2SetStages_C", TSGauss2SetStages_Gauss2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSGauss2GetStages_C", TSGauss2GetStages_Gauss2));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "TSMechGetNewton_C", TSMechGetNewton_Gauss2));
  PetscFunctionReturn(0);
}

/* The family's table (scheme.h) and its type (tsimpl2.h, "Adding a TS type") */
PetscErrorCode TSMechRegisterGauss2(void)
{
  PetscFunctionBegin;
  PetscCall(TSMechSchemeRegister(&Gauss2Family));
  PetscCall(TSRegister(TSGAUSS2, TSCreate_Gauss2));
  PetscFunctionReturn(0);
}
