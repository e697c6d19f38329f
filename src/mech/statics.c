/*
  Static equilibrium f(t, q, 0) = 0 of a MechSystem: what the quasi-static type (static2) and the
  equilibrium report need (docs/solvers.md §8):

  - evaluations at rest: a prescribed motion of the fixed dofs gives their positions at t only,
    no velocity and no acceleration (no inertia of the moving supports);
  - the fixed rows' own mass as the diagonal of a stage without inertia, J = cK K + cMf diag_f(M);
  - the rigid motions the constraints leave free (a tangent that is singular at the start);
  - the kinks of the time functions of the loads and motions, which automatic incrementation
    (TSADAPTINCREMENT) lands on;
  - the residual of equilibrium against the load.
*/
#include "mechimpl.h"
#include <stdio.h>
#include <string.h>

/* MechSystemSetAtRest_Private - Evaluations at rest on (static equilibrium) or off */
PetscErrorCode MechSystemSetAtRest_Private(MechSystem sys, PetscBool flg)
{
  PetscFunctionBegin;
  sys->atrest = flg;
  PetscFunctionReturn(0);
}

/*
  MechSystemAddFixedMass_Private - J += c diag(M) on the fixed rows only: a stage without inertia
  (cM = 0) has zero fixed rows (MechSystemComputeOperator() decouples them); their own mass is the
  diagonal that keeps J regular without touching the free rows
*/
PetscErrorCode MechSystemAddFixedMass_Private(MechSystem sys, PetscReal c, Mat J)
{
  Vec m;

  PetscFunctionBegin;
  if (c == 0 || !sys->fixed) PetscFunctionReturn(0);
  PetscCall(MechSystemGetFixedMass_Private(sys, &m));
  PetscCall(VecAXPBY(sys->work, c, 0.0, m));
  PetscCall(MatDiagonalSet(J, sys->work, ADD_VALUES));
  PetscFunctionReturn(0);
}

/*@
  MechSystemComputeStaticForce - Computes f(t, q, 0) at rest: the fixed dofs at their prescribed
  positions at t, every velocity zero, no inertia of a prescribed motion; zero on the fixed dofs.

  Collective

  Input Parameters:
+ sys - the mechanical system
. t   - the time (of the loads and the prescribed positions)
- q   - the position

  Output Parameter:
. f - the force; static equilibrium is f = 0

  Level: intermediate

  Note:
  `MechSystemComputeForce()` with v = 0 differs where the fixed dofs move: there their prescribed
  velocity enters the damping and their acceleration the inertia of the free rows (a consistent
  mass couples them).

.seealso: `MechSystemComputeEquilibrium()`, `MechSystemComputeForce()`, `TSSTATIC2`
@*/
PetscErrorCode MechSystemComputeStaticForce(MechSystem sys, PetscReal t, Vec q, Vec f)
{
  PetscBool      was;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(MechSystemSetUp(sys));
  if (!sys->rest) {
    PetscCall(VecDuplicate(q, &sys->rest));
    PetscCall(VecZeroEntries(sys->rest));
  }
  was         = sys->atrest;
  sys->atrest = PETSC_TRUE;
  ierr        = MechSystemComputeForce(sys, t, q, sys->rest, f);
  sys->atrest = was;
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/*@
  MechSystemComputeEquilibrium - How far a state is from static equilibrium: the residual
  |f(t, q, 0)| over the free dofs against the load |f(t, X, 0)| at the initial state X at rest
  (the reference configuration, where the internal forces vanish, with the fixed dofs where they
  are prescribed at t).

  Collective

  Input Parameters:
+ sys - the mechanical system
. t   - the time
- q   - the position

  Output Parameters:
+ residual - |f(t, q, 0)| (2-norm, `MechSystemComputeStaticForce()`)
- load     - |f(t, X, 0)|

  Level: intermediate

.seealso: `MechSystemComputeStaticForce()`, `TSSTATIC2`, `TSStatic2GetEquilibrium()`
@*/
PetscErrorCode MechSystemComputeEquilibrium(MechSystem sys, PetscReal t, Vec q, PetscReal *residual, PetscReal *load)
{
  Vec X, v, f;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(MechSystemCreateState(sys, &X, &v));
  PetscCall(VecDuplicate(X, &f));
  if (residual) {
    PetscCall(MechSystemComputeStaticForce(sys, t, q, f));
    PetscCall(VecNorm(f, NORM_2, residual));
  }
  if (load) {
    PetscCall(MechSystemApplyFixedAt(sys, t, X, NULL));
    PetscCall(MechSystemComputeStaticForce(sys, t, X, f));
    PetscCall(VecNorm(f, NORM_2, load));
  }
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&f));
  PetscFunctionReturn(0);
}

/*@
  MechSystemSetDampingLinear - Declares that the system's damping force is D v with D constant and
  symmetric (Rayleigh damping D = alpha M + beta K_0): it then has the dissipation potential
  1/2 v^T D v, and a step of the theta family has an incremental potential (the line search on it,
  docs/solvers.md §8) although the system is damped.

  Logically Collective

  Input Parameters:
+ sys - the mechanical system
- flg - whether the damping is such

  Level: intermediate

  Note:
  The solid declares its Rayleigh damping (-solid_rayleigh).

.seealso: `MechSystemSetTangent()`, `SNESLINESEARCHPOTENTIAL`
@*/
PetscErrorCode MechSystemSetDampingLinear(MechSystem sys, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  sys->lineardamping = flg;
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Kinks of the time functions                                                                */
/* ------------------------------------------------------------------------------------------ */

/*@
  MechSystemAddKinks - Declares times where the loads or the prescribed motions of the system are
  not smooth in time (a ramp's end, a table's rows): automatic incrementation lands a step on each
  (`TSADAPTINCREMENT`).

  Logically Collective

  Input Parameters:
+ sys   - the mechanical system
. n     - how many
- times - the times (any order; repeated ones are kept once)

  Level: intermediate

  Note:
  A model declares those of its time functions with `MechSystemAddTimeFunctionKinks()`; the solid
  declares its gravity's, its loads' and its constraints'.

.seealso: `MechSystemGetKinks()`, `MechSystemAddTimeFunctionKinks()`, `MechTimeFunctionGetKinks()`, `TSADAPTINCREMENT`
@*/
PetscErrorCode MechSystemAddKinks(MechSystem sys, PetscInt n, const PetscReal times[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  for (PetscInt i = 0; i < n; i++) {
    PetscReal t = times[i];
    PetscInt  k;

    PetscCheck(!PetscIsInfOrNanReal(t), PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_OUTOFRANGE, "A kink's time must be finite");
    for (k = 0; k < sys->nkinks && sys->kinks[k] < t; k++) {}
    if (k < sys->nkinks && sys->kinks[k] == t) continue;
    if (sys->nkinks == sys->maxkinks) {
      sys->maxkinks = PetscMax(16, 2 * sys->maxkinks);
      PetscCall(PetscRealloc(sys->maxkinks * sizeof(PetscReal), &sys->kinks));
    }
    PetscCall(PetscArraymove(sys->kinks + k + 1, sys->kinks + k, sys->nkinks - k));
    sys->kinks[k] = t;
    sys->nkinks++;
  }
  PetscFunctionReturn(0);
}

/*@
  MechSystemAddTimeFunctionKinks - Declares the kinks of a time function of the system's loads or
  motions (`MechTimeFunctionGetKinks()`, `MechSystemAddKinks()`).

  Logically Collective

  Level: intermediate

.seealso: `MechSystemAddKinks()`, `MechTimeFunctionGetKinks()`
@*/
PetscErrorCode MechSystemAddTimeFunctionKinks(MechSystem sys, MechTimeFunction tf)
{
  PetscInt         n;
  const PetscReal *t;

  PetscFunctionBegin;
  PetscCall(MechTimeFunctionGetKinks(tf, &n, &t));
  PetscCall(MechSystemAddKinks(sys, n, t));
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetKinks - The times of `MechSystemAddKinks()`, increasing.

  Not Collective

  Output Parameters:
+ n     - how many
- times - the times, owned by the system

  Level: intermediate

.seealso: `MechSystemAddKinks()`
@*/
PetscErrorCode MechSystemGetKinks(MechSystem sys, PetscInt *n, const PetscReal *times[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *n     = sys->nkinks;
  *times = sys->kinks;
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Free rigid motions                                                                         */
/* ------------------------------------------------------------------------------------------ */

/*
  The eigenvalues (ascending) and eigenvectors (columns of A, column-major n x n) of the symmetric A
  (n <= 6), by cyclic Jacobi rotations (Golub & Van Loan, Matrix Computations, §8.5): for matrices
  this small as accurate as LAPACK's syev, without linking LAPACK itself
*/
static PetscErrorCode SymEig(PetscInt n, PetscReal A[], PetscReal w[])
{
  PetscReal V[36], off, tot;

  PetscFunctionBegin;
  PetscCheck(n <= 6, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SymEig: n = %" PetscInt_FMT " > 6", n);
  for (PetscInt i = 0; i < n * n; i++) V[i] = (i % (n + 1)) ? 0 : 1;
  for (PetscInt sweep = 0; sweep < 64; sweep++) {
    off = tot = 0;
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt j = 0; j < n; j++) {
        tot += A[j * n + i] * A[j * n + i];
        if (i != j) off += A[j * n + i] * A[j * n + i];
      }
    if (off <= 1e-32 * tot) break;
    for (PetscInt p = 0; p < n - 1; p++)
      for (PetscInt q = p + 1; q < n; q++) {
        PetscReal apq = A[q * n + p], theta, t, c, sn;

        if (apq == 0) continue;
        theta = (A[q * n + q] - A[p * n + p]) / (2 * apq);
        t     = (theta >= 0 ? 1 : -1) / (PetscAbsReal(theta) + PetscSqrtReal(theta * theta + 1));
        c     = 1 / PetscSqrtReal(t * t + 1);
        sn    = t * c;
        /* A <- J^T A J, V <- V J with the rotation J in the (p, q) plane */
        for (PetscInt k = 0; k < n; k++) {
          PetscReal akp = A[p * n + k], akq = A[q * n + k];

          A[p * n + k] = c * akp - sn * akq;
          A[q * n + k] = sn * akp + c * akq;
        }
        for (PetscInt k = 0; k < n; k++) {
          PetscReal apk = A[k * n + p], aqk = A[k * n + q];

          A[k * n + p] = c * apk - sn * aqk;
          A[k * n + q] = sn * apk + c * aqk;
        }
        for (PetscInt k = 0; k < n; k++) {
          PetscReal vkp = V[p * n + k], vkq = V[q * n + k];

          V[p * n + k] = c * vkp - sn * vkq;
          V[q * n + k] = sn * vkp + c * vkq;
        }
      }
  }
  /* ascending, eigenvectors with them */
  for (PetscInt i = 0; i < n; i++) w[i] = A[i * n + i];
  for (PetscInt i = 0; i < n; i++) {
    PetscInt k = i;

    for (PetscInt j = i + 1; j < n; j++)
      if (w[j] < w[k]) k = j;
    if (k != i) {
      PetscReal tw = w[i];

      w[i] = w[k];
      w[k] = tw;
      for (PetscInt r = 0; r < n; r++) {
        PetscReal tv = V[i * n + r];

        V[i * n + r] = V[k * n + r];
        V[k * n + r] = tv;
      }
    }
  }
  for (PetscInt i = 0; i < n * n; i++) A[i] = V[i];
  PetscFunctionReturn(0);
}

#define MECH_FREE_MAXMODES 6

/*
  The rigid motions of the positions q that the model's tangent cannot tell from rest. Candidates:
  for a state of points in 2 or 3 dimensions (the vector's block size) the translations and the
  rotations about the centroid c, else the uniform motion of every unknown; each with its fixed
  entries zeroed (the constraints stop what moves them) and scaled to unit norm (dropped if
  nothing is left). W = K Z with K the tangent at rest, the fixed dofs decoupled. A combination Z a
  is free where |K Z a| <= tol sigma |Z a|, sigma = |K r|/|r| along a vector r that alternates
  from one unknown to the next (a high mode: the tangent's scale, as in
  MechSystemComputeResidualScale()). That is the generalized eigenproblem (W^T W) a = lambda (Z^T Z) a,
  solved on rank 0 after the global reductions: fm[m k + i] are the coefficients of the free
  motions (raw candidates, not the scaled ones), *nfree how many.
*/
typedef struct {
  PetscInt  dim, m;  /* the points' dimension (0: not points), the candidates */
  PetscReal c[3], L; /* the centroid and the RMS distance from it */
  PetscReal norm[MECH_FREE_MAXMODES];
  PetscReal G[MECH_FREE_MAXMODES * MECH_FREE_MAXMODES], A[MECH_FREE_MAXMODES * MECH_FREE_MAXMODES];
  PetscReal sigma;
} FreeCandidates;

/* The candidates Z (fixed entries zeroed) and their centroid, RMS size and norms */
static PetscErrorCode FreeBuild(MechSystem sys, Vec q, FreeCandidates *fc, Vec Z[])
{
  PetscInt           n, bs, np;
  const PetscScalar *x;
  PetscReal          loc[4] = {0, 0, 0, 0}, tot[4];
  MPI_Comm           comm   = PetscObjectComm((PetscObject)sys);

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetBlockSize(q, &bs));
  fc->dim = (bs == 2 || bs == 3) ? bs : 0;
  fc->m   = fc->dim == 3 ? 6 : fc->dim == 2 ? 3
                                            : 1;
  np      = fc->dim ? n / fc->dim : n;
  PetscCall(VecGetArrayRead(q, &x));
  for (PetscInt i = 0; i < np && fc->dim; i++)
    for (PetscInt d = 0; d < fc->dim; d++) loc[d] += x[i * fc->dim + d];
  loc[3] = (PetscReal)np;
  PetscCall(MPIU_Allreduce(loc, tot, 4, MPIU_REAL, MPIU_SUM, comm));
  for (PetscInt d = 0; d < 3; d++) fc->c[d] = tot[3] > 0 ? tot[d] / tot[3] : 0;
  loc[0] = 0;
  for (PetscInt k = 0; k < fc->m; k++) {
    PetscScalar *z;

    PetscCall(VecGetArray(Z[k], &z));
    for (PetscInt i = 0; i < np; i++) {
      PetscReal r[3] = {0, 0, 0};

      if (!fc->dim) {
        z[i] = 1;
        continue;
      }
      for (PetscInt d = 0; d < fc->dim; d++) r[d] = x[i * fc->dim + d] - fc->c[d];
      if (k == 0) loc[0] += r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
      for (PetscInt d = 0; d < fc->dim; d++) z[i * fc->dim + d] = 0;
      if (k < fc->dim) z[i * fc->dim + k] = 1; /* translation along axis k */
      else if (fc->dim == 2) {
        z[i * 2]     = -r[1]; /* rotation about z */
        z[i * 2 + 1] = r[0];
      } else {
        /* rotation about axis a: e_a x r */
        const PetscInt a = k - 3, b = (a + 1) % 3, e = (a + 2) % 3;

        z[i * 3 + b] = -r[e];
        z[i * 3 + e] = r[b];
      }
    }
    PetscCall(VecRestoreArray(Z[k], &z));
    if (sys->fixed) PetscCall(VecISSet(Z[k], sys->fixed, 0.0));
    PetscCall(VecNorm(Z[k], NORM_2, &fc->norm[k]));
    if (fc->norm[k] > 0) PetscCall(VecScale(Z[k], 1.0 / fc->norm[k]));
  }
  PetscCall(VecRestoreArrayRead(q, &x));
  PetscCall(MPIU_Allreduce(loc, &fc->L, 1, MPIU_REAL, MPIU_SUM, comm));
  fc->L = tot[3] > 0 ? PetscSqrtReal(fc->L / tot[3]) : 0;
  PetscFunctionReturn(0);
}

/* W = K Z and sigma = |K r| / |r| with the tangent at rest at (t, q): the model's action if it has one, else assembled */
static PetscErrorCode FreeApply(MechSystem sys, PetscReal t, Vec q, FreeCandidates *fc, Vec Z[], Vec W[])
{
  Mat          K;
  Vec          v, r;
  PetscScalar *ra;
  PetscInt     n, rstart;
  PetscReal    nr, nkr;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(q, &v));
  PetscCall(VecDuplicate(q, &r));
  PetscCall(VecZeroEntries(v));
  sys->atrest = PETSC_TRUE;
  if (sys->apply) {
    PetscCall(MechSystemCreateOperatorShell(sys, &K));
    PetscCall(MechSystemLinearizeOperatorShell(sys, t, q, v, 1.0, 0.0, 0.0, K));
  } else {
    PetscCall(MechSystemCreateOperator(sys, &K));
    PetscCall(MechSystemComputeOperator(sys, t, q, v, 1.0, 0.0, 0.0, K));
  }
  sys->atrest = PETSC_FALSE;
  for (PetscInt k = 0; k < fc->m; k++) PetscCall(MatMult(K, Z[k], W[k]));
  PetscCall(VecGetLocalSize(r, &n));
  PetscCall(VecGetOwnershipRange(r, &rstart, NULL));
  PetscCall(VecGetArray(r, &ra));
  for (PetscInt i = 0; i < n; i++) ra[i] = (rstart + i) % 2 ? -1.0 : 1.0;
  PetscCall(VecRestoreArray(r, &ra));
  if (sys->fixed) PetscCall(VecISSet(r, sys->fixed, 0.0));
  PetscCall(MatMult(K, r, v));
  PetscCall(VecNorm(r, NORM_2, &nr));
  PetscCall(VecNorm(v, NORM_2, &nkr));
  fc->sigma = nr > 0 ? nkr / nr : 0;
  PetscCall(MatDestroy(&K));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(0);
}

/*
  On rank 0: the free combinations of the scaled candidates (the generalized eigenproblem above)
  as raw coefficients, columns of free (m x nfree, column-major)
*/
static PetscErrorCode FreeSolve(FreeCandidates *fc, PetscReal tol, PetscInt *nfree, PetscReal fm[])
{
  const PetscInt m = fc->m;
  PetscReal      U[MECH_FREE_MAXMODES * MECH_FREE_MAXMODES], s[MECH_FREE_MAXMODES], B[MECH_FREE_MAXMODES * MECH_FREE_MAXMODES], lam[MECH_FREE_MAXMODES];
  PetscInt       keep[MECH_FREE_MAXMODES], nk = 0;

  PetscFunctionBegin;
  *nfree = 0;
  /* G = U S U^T; the directions with s ~ 0 are combinations that vanish on the free dofs */
  PetscCall(PetscArraycpy(U, fc->G, m * m));
  PetscCall(SymEig(m, U, s));
  for (PetscInt i = 0; i < m; i++)
    if (s[i] > 1e-10 * m) keep[nk++] = i;
  /* B = S^-1/2 U^T A U S^-1/2 on the kept directions */
  for (PetscInt a = 0; a < nk; a++)
    for (PetscInt b = 0; b < nk; b++) {
      PetscReal sum = 0;

      for (PetscInt i = 0; i < m; i++)
        for (PetscInt j = 0; j < m; j++) sum += U[keep[a] * m + i] * fc->A[j * m + i] * U[keep[b] * m + j];
      B[b * nk + a] = sum / PetscSqrtReal(s[keep[a]] * s[keep[b]]);
    }
  PetscCall(SymEig(nk, B, lam));
  for (PetscInt j = 0; j < nk; j++) {
    if (!(PetscSqrtReal(PetscMax(lam[j], 0)) <= tol * fc->sigma)) continue;
    /* coefficients of the scaled candidates U S^-1/2 b_j, then of the raw ones */
    for (PetscInt i = 0; i < m; i++) {
      PetscReal sum = 0;

      for (PetscInt a = 0; a < nk; a++) sum += U[keep[a] * m + i] * B[j * nk + a] / PetscSqrtReal(s[keep[a]]);
      fm[*nfree * m + i] = fc->norm[i] > 0 ? sum / fc->norm[i] : 0;
    }
    (*nfree)++;
  }
  PetscFunctionReturn(0);
}

/* Appends "(x, y, z)" with tiny components (against scale) printed as 0 */
static void AppendPoint(char desc[], size_t len, const PetscReal x[], PetscInt dim, PetscReal scale)
{
  size_t l = strlen(desc);

  for (PetscInt d = 0; d < dim && l < len; d++) {
    PetscReal v = PetscAbsReal(x[d]) <= 1e-9 * scale ? 0 : x[d];

    l += (size_t)snprintf(desc + l, len - l, "%s%.4g%s", d ? ", " : "(", (double)v, d == dim - 1 ? ")" : "");
    if (l >= len) l = len - 1;
  }
}

/*
  An orthonormal basis B (dim x k, columns) of a subspace, replaced by the coordinate axes it
  holds when it holds k of them (a free translation along y is named (0, 1, 0), not an arbitrary
  basis of a degenerate eigenspace); C (k x k) gets the axes' coordinates in B (E = B C), the
  identity when nothing is replaced
*/
static void SnapToAxes(PetscInt dim, PetscInt k, PetscReal B[], PetscReal C[])
{
  PetscReal E[9], Cn[9];
  PetscInt  n = 0;

  for (PetscInt a = 0; a < k * k; a++) C[a] = (a % (k + 1)) ? 0 : 1;
  for (PetscInt d = 0; d < dim && n < k; d++) {
    PetscReal p2 = 0;

    /* |B^T e_d|^2 = 1: the axis lies in the subspace */
    for (PetscInt j = 0; j < k; j++) p2 += B[j * dim + d] * B[j * dim + d];
    if (p2 < 1 - 1e-8) continue;
    for (PetscInt r = 0; r < dim; r++) E[n * dim + r] = r == d ? 1 : 0;
    for (PetscInt j = 0; j < k; j++) Cn[n * k + j] = B[j * dim + d];
    n++;
  }
  if (n < k) return;
  for (PetscInt a = 0; a < dim * k; a++) B[a] = E[a];
  for (PetscInt a = 0; a < k * k; a++) C[a] = Cn[a];
}

/*
  The free motions in words. With the free motions' coefficients (translation a_j, rotation w_j
  about the centroid c), the combinations y without rotation (the null space of Omega = [w_j], by
  the eigenvectors of Omega^T Omega) are the free translations; each other eigenvector is a free
  rotation w = Omega y with the translation a = A y, less its free-translation part, and
  u(x) = a + w x (x - c) leaves the axis through p = c + (w x a)/|w|^2 along w in place (up to a
  slide along it). The rotations are compared with translations in length units (w times the
  body's RMS size L); axes are named as coordinate axes where the free ones include them.
*/
static PetscErrorCode FreeDescribe(const FreeCandidates *fc, PetscInt k, const PetscReal F[], char desc[], size_t len)
{
  const PetscInt m = fc->m, dim = fc->dim, nrot                                             = dim == 3 ? 3 : 1;
  PetscReal      OtO[MECH_FREE_MAXMODES * MECH_FREE_MAXMODES], mu[MECH_FREE_MAXMODES], T[9] = {0}, eT[3], top = 0, thr;
  PetscReal      Bt[9], Ct[9], W[9], Aw[9], Cw[9];
  PetscInt       nitem = 0, ntr = 0, nw = 0;
  char           item[64];

  PetscFunctionBegin;
  desc[0] = 0;
  if (!dim) {
    (void)snprintf(desc, len, "the uniform motion of every unknown");
    PetscFunctionReturn(0);
  }
  for (PetscInt j = 0; j < k; j++)
    for (PetscInt i = 0; i < m; i++) top = PetscMax(top, PetscAbsReal(F[j * m + i]) * (i < dim ? 1 : fc->L));
  thr = 1e-12 * top * top;
  for (PetscInt a = 0; a < k; a++)
    for (PetscInt b = 0; b < k; b++) {
      PetscReal sum = 0;

      for (PetscInt r = 0; r < nrot; r++) sum += F[a * m + dim + r] * F[b * m + dim + r];
      OtO[b * k + a] = sum * fc->L * fc->L;
    }
  PetscCall(SymEig(k, OtO, mu));
  /* the free translations: the span of A y over the null space of Omega */
  for (PetscInt i = 0; i < k; i++) {
    PetscReal a[3] = {0, 0, 0};

    if (mu[i] > thr) continue;
    for (PetscInt j = 0; j < k; j++)
      for (PetscInt d = 0; d < dim; d++) a[d] += OtO[i * k + j] * F[j * m + d];
    for (PetscInt d = 0; d < dim; d++)
      for (PetscInt e = 0; e < dim; e++) T[e * dim + d] += a[d] * a[e];
  }
  PetscCall(SymEig(dim, T, eT));
  for (PetscInt d = dim - 1; d >= 0; d--)
    if (eT[d] > thr) {
      for (PetscInt r = 0; r < dim; r++) Bt[ntr * dim + r] = T[d * dim + r];
      ntr++;
    }
  SnapToAxes(dim, ntr, Bt, Ct);
  for (PetscInt t = 0; t < ntr; t++) {
    (void)snprintf(item, sizeof(item), "%stranslation along ", nitem++ ? "; " : "");
    PetscCall(PetscStrlcat(desc, item, len));
    AppendPoint(desc, len, Bt + t * dim, dim, 1.0);
  }
  /* the free rotations: unit axes W and the translation at the centroid per unit rotation, Aw */
  for (PetscInt i = k - 1; i >= 0; i--) {
    PetscReal a[3] = {0, 0, 0}, w[3] = {0, 0, 0}, ww = 0;

    if (mu[i] <= thr) continue;
    for (PetscInt j = 0; j < k; j++) {
      for (PetscInt d = 0; d < dim; d++) a[d] += OtO[i * k + j] * F[j * m + d];
      for (PetscInt r = 0; r < nrot; r++) w[dim == 3 ? r : 2] += OtO[i * k + j] * F[j * m + dim + r];
    }
    /* less its free-translation part: the axis through the nearest point */
    for (PetscInt t = 0; t < ntr; t++) {
      PetscReal ae = 0;

      for (PetscInt d = 0; d < dim; d++) ae += a[d] * Bt[t * dim + d];
      for (PetscInt d = 0; d < dim; d++) a[d] -= ae * Bt[t * dim + d];
    }
    for (PetscInt d = 0; d < 3; d++) ww += w[d] * w[d];
    ww = PetscSqrtReal(ww);
    for (PetscInt d = 0; d < 3; d++) {
      W[nw * 3 + d]  = w[d] / ww;
      Aw[nw * 3 + d] = a[d] / ww;
    }
    nw++;
  }
  if (dim == 3) SnapToAxes(3, nw, W, Cw);
  else Cw[0] = 1;
  for (PetscInt r = 0; r < nw; r++) {
    PetscReal a[3] = {0, 0, 0}, w[3], p[3];

    /* the axis W_r = sum_i Cw[r][i] (old axis i): its translation the same sum of theirs */
    for (PetscInt i = 0; i < nw; i++)
      for (PetscInt d = 0; d < 3; d++) a[d] += Cw[r * nw + i] * Aw[i * 3 + d];
    for (PetscInt d = 0; d < 3; d++) w[d] = W[r * 3 + d];
    p[0] = fc->c[0] + (w[1] * a[2] - w[2] * a[1]);
    p[1] = fc->c[1] + (w[2] * a[0] - w[0] * a[2]);
    p[2] = fc->c[2] + (w[0] * a[1] - w[1] * a[0]);
    (void)snprintf(item, sizeof(item), "%srotation about the axis ", nitem++ ? "; " : "");
    PetscCall(PetscStrlcat(desc, item, len));
    if (dim == 3) {
      PetscCall(PetscStrlcat(desc, "along ", len));
      AppendPoint(desc, len, w, 3, 1.0);
      PetscCall(PetscStrlcat(desc, " ", len));
    } else PetscCall(PetscStrlcat(desc, "normal to the plane ", len));
    PetscCall(PetscStrlcat(desc, "through ", len));
    AppendPoint(desc, len, p, dim, fc->L);
  }
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetFreeMotions - The rigid motions that the constraints leave free at a state: the
  directions in which the tangent stiffness at rest is singular, among the translations and
  rotations of the positions (or the uniform motion of every unknown for a state that is not
  points in 2 or 3 dimensions).

  Collective

  Input Parameters:
+ sys - the mechanical system
. t   - the time
. q   - the positions (their vector's block size, 2 or 3, gives the points' dimension)
- len - the size of desc

  Output Parameters:
+ nfree - how many independent free motions (0: the body is held)
- desc  - them in words, e.g. "translation along (0, 0, 1); rotation about the axis along (0, 0, 1) through (0.5, 0.05, 0)" (may be NULL)

  Level: intermediate

  Notes:
  Each candidate has its fixed entries zeroed and the tangent K at (t, q, 0), the fixed dofs
  decoupled, is applied to it (the model's tangent action, else the assembled tangent): a
  combination z is free where |K z| <= sqrt(eps) sigma |z|, sigma the tangent's scale |K r|/|r|
  along a vector r that alternates sign from one unknown to the next. Costs one linearization
  (or assembly) and m + 1 products, m = 6 in 3-D; the decision is rank 0's, broadcast. A body
  under stress rotates against its geometric stiffness, so only a state at rest is refused this
  way; mechanisms other than rigid motions (a slack cloth's folds) are not detected.

.seealso: `TSSTATIC2`, `MechSystemSetFixed()`
@*/
PetscErrorCode MechSystemGetFreeMotions(MechSystem sys, PetscReal t, Vec q, PetscInt *nfree, char desc[], size_t len)
{
  FreeCandidates fc;
  Vec            Z[MECH_FREE_MAXMODES], W[MECH_FREE_MAXMODES];
  PetscReal      fm[MECH_FREE_MAXMODES * MECH_FREE_MAXMODES];
  PetscMPIInt    rank;
  MPI_Comm       comm;
  char           text[1024] = "";
  PetscInt       n          = 0;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidHeaderSpecific(q, VEC_CLASSID, 3);
  comm = PetscObjectComm((PetscObject)sys);
  PetscCall(MechSystemSetUp(sys));
  PetscCall(PetscMemzero(&fc, sizeof(fc)));
  for (PetscInt k = 0; k < MECH_FREE_MAXMODES; k++) {
    PetscCall(VecDuplicate(q, &Z[k]));
    PetscCall(VecDuplicate(q, &W[k]));
  }
  PetscCall(FreeBuild(sys, q, &fc, Z));
  PetscCall(FreeApply(sys, t, q, &fc, Z, W));
  for (PetscInt k = 0; k < fc.m; k++) {
    PetscScalar g[MECH_FREE_MAXMODES], a[MECH_FREE_MAXMODES];

    PetscCall(VecMDot(Z[k], fc.m, Z, g));
    PetscCall(VecMDot(W[k], fc.m, W, a));
    for (PetscInt j = 0; j < fc.m; j++) {
      fc.G[k * fc.m + j] = PetscRealPart(g[j]);
      fc.A[k * fc.m + j] = PetscRealPart(a[j]);
    }
  }
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    PetscCall(FreeSolve(&fc, PETSC_SQRT_MACHINE_EPSILON, &n, fm));
    if (n) PetscCall(FreeDescribe(&fc, n, fm, text, sizeof(text)));
  }
  PetscCallMPI(MPI_Bcast(&n, 1, MPIU_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(text, (PetscMPIInt)sizeof(text), MPI_CHAR, 0, comm));
  *nfree = n;
  if (desc) PetscCall(PetscStrncpy(desc, text, len));
  for (PetscInt k = 0; k < MECH_FREE_MAXMODES; k++) {
    PetscCall(VecDestroy(&Z[k]));
    PetscCall(VecDestroy(&W[k]));
  }
  PetscFunctionReturn(0);
}
