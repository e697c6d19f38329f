/*
  The automatic first-order form of M q'' + f(t, q, q') = 0 for PETSc's own first-order types:

      X = [q; v],   F(t, X, X') = [q' - v; M v' + f(t, q, v)] = 0           (implicit types)
                    X' = G(t, X) = [v; -M^{-1} f(t, q, v)]                  (explicit types)

  Each rank stores its own block of q followed by its own block of v, so packing and unpacking
  never communicate. The Jacobian [[shift I, -I], [K, shift M + D]] is assembled from the
  system's K, D and M with the column map q_j -> j + rstart(owner of j) and
  v_j -> j + rend(owner of j).
*/
#include "tsimpl2.h"
#include "../mech/mechimpl.h"
#include "scheme.h"

typedef struct {
  MechSystem      sys;
  PetscInt        n, rstart; /* local size and first global row of q */
  const PetscInt *ranges;    /* ownership ranges of q */
  PetscMPIInt     size;
  Vec             q, v, qd, vd, Fq, Fv; /* views into the halves of X, X', F (arrays placed) */
  Mat             K, D;
} MechFirstOrder;

static PetscErrorCode MechFirstOrderDestroy(void *ctx)
{
  MechFirstOrder *fo = (MechFirstOrder *)ctx;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&fo->q));
  PetscCall(VecDestroy(&fo->v));
  PetscCall(VecDestroy(&fo->qd));
  PetscCall(VecDestroy(&fo->vd));
  PetscCall(VecDestroy(&fo->Fq));
  PetscCall(VecDestroy(&fo->Fv));
  PetscCall(MatDestroy(&fo->K));
  PetscCall(MatDestroy(&fo->D));
  PetscCall(MechSystemDestroy(&fo->sys));
  PetscCall(PetscFree(fo));
  PetscFunctionReturn(0);
}

static PetscErrorCode MechFirstOrderGet(TS ts, MechFirstOrder **fo)
{
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)ts, "TSMech_FirstOrder", (PetscObject *)&c));
  PetscCheck(c, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONGSTATE, "The TS has no first-order form: call TSMechSetSolution() first");
  PetscCall(PetscContainerGetPointer(c, (void **)fo));
  PetscFunctionReturn(0);
}

/* Point the half-views at the two halves of X's local array. */
static PetscErrorCode PlaceHalves(MechFirstOrder *fo, Vec X, Vec lo, Vec hi, const PetscScalar **a)
{
  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(X, a));
  PetscCall(VecPlaceArray(lo, (PetscScalar *)*a));
  PetscCall(VecPlaceArray(hi, (PetscScalar *)*a + fo->n));
  PetscFunctionReturn(0);
}

static PetscErrorCode ResetHalves(Vec X, Vec lo, Vec hi, const PetscScalar **a)
{
  PetscFunctionBegin;
  PetscCall(VecResetArray(lo));
  PetscCall(VecResetArray(hi));
  PetscCall(VecRestoreArrayRead(X, a));
  PetscFunctionReturn(0);
}

static PetscErrorCode MechFirstOrderIFunction(TS ts, PetscReal t, Vec X, Vec Xdot, Vec F, void *ctx)
{
  MechFirstOrder    *fo = (MechFirstOrder *)ctx;
  const PetscScalar *x, *xd;
  PetscScalar       *f;

  PetscFunctionBegin;
  (void)ts;
  PetscCall(PlaceHalves(fo, X, fo->q, fo->v, &x));
  PetscCall(PlaceHalves(fo, Xdot, fo->qd, fo->vd, &xd));
  PetscCall(VecGetArray(F, &f));
  PetscCall(VecPlaceArray(fo->Fq, f));
  PetscCall(VecPlaceArray(fo->Fv, f + fo->n));
  PetscCall(VecWAXPY(fo->Fq, -1.0, fo->v, fo->qd));
  PetscCall(MechSystemComputeForce(fo->sys, t, fo->q, fo->v, fo->Fv));
  PetscCall(MatMultAdd(fo->sys->Mfix, fo->vd, fo->Fv, fo->Fv));
  PetscCall(VecResetArray(fo->Fq));
  PetscCall(VecResetArray(fo->Fv));
  PetscCall(VecRestoreArray(F, &f));
  PetscCall(ResetHalves(Xdot, fo->qd, fo->vd, &xd));
  PetscCall(ResetHalves(X, fo->q, fo->v, &x));
  PetscFunctionReturn(0);
}

static PetscErrorCode MechFirstOrderRHSFunction(TS ts, PetscReal t, Vec X, Vec G, void *ctx)
{
  MechFirstOrder    *fo = (MechFirstOrder *)ctx;
  const PetscScalar *x;
  PetscScalar       *g;

  PetscFunctionBegin;
  (void)ts;
  PetscCall(PlaceHalves(fo, X, fo->q, fo->v, &x));
  PetscCall(VecGetArray(G, &g));
  PetscCall(VecPlaceArray(fo->Fq, g));
  PetscCall(VecPlaceArray(fo->Fv, g + fo->n));
  PetscCall(VecCopy(fo->v, fo->Fq));
  PetscCall(MechSystemComputeForce(fo->sys, t, fo->q, fo->v, fo->sys->work));
  PetscCall(MechSystemSolveMass(fo->sys, fo->sys->work, fo->Fv));
  PetscCall(VecScale(fo->Fv, -1.0));
  PetscCall(VecResetArray(fo->Fq));
  PetscCall(VecResetArray(fo->Fv));
  PetscCall(VecRestoreArray(G, &g));
  PetscCall(ResetHalves(X, fo->q, fo->v, &x));
  PetscFunctionReturn(0);
}

/*
  A KSP that already holds operators of another size (a program that gave the SNES the N x N
  matrix of the second-order form and set it up from the options) has built from them what the
  2N operators do not replace, such as a factorization PC's factor matrix (MatGetFactor() in
  PCSetFromOptions_Factor()): the first factorization would fail ("global dimensions are
  different"). It is reset (KSPReset(): types, tolerances and options are kept). TSMechSetSystem()
  gives no matrix, so that this does not happen in the ordinary order of calls, where it could not
  help a SuperLU_dist factor: PETSc 3.18 cannot destroy one that was never factored.
*/
static PetscErrorCode MechFirstOrderResetKSP(TS ts, PetscInt N2)
{
  SNES      snes;
  KSP       ksp;
  PetscBool mat, pmat;
  Mat       A, P;
  PetscInt  m = N2, n = N2;

  PetscFunctionBegin;
  PetscCall(TSGetSNES(ts, &snes));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPGetOperatorsSet(ksp, &mat, &pmat));
  if (!mat && !pmat) PetscFunctionReturn(0);
  PetscCall(KSPGetOperators(ksp, &A, &P));
  PetscCall(MatGetSize(pmat ? P : A, &m, &n));
  if (m != N2 || n != N2) PetscCall(KSPReset(ksp));
  PetscFunctionReturn(0);
}

/*
  The first-order Jacobian [[shift I, -I], [K, shift M + D]] is not symmetric (its off-diagonal
  blocks are -I and K), so a solver that needs a symmetric operator (the CG family, Chebyshev,
  Cholesky and ICC: MechKSPCheckSymmetric() probes each type) would solve another system (PETSc's
  Cholesky reads one triangle as the whole, MUMPS silently) or not converge; a run with one is
  refused before any work. Checked when the form is installed and again at every Jacobian, for a
  solver type set after TSMechSetSolution().
*/
static PetscErrorCode MechFirstOrderCheckPC(TS ts)
{
  SNES        snes;
  KSP         ksp;
  const char *type;
  char        why[512];

  PetscFunctionBegin;
  PetscCall(TSGetSNES(ts, &snes));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(TSGetType(ts, &type));
  PetscCall(PetscSNPrintf(why, sizeof(why), "PETSc's %s integrates the first-order form [q; v], whose Jacobian [[shift I, -I], [K, shift M + D]] is not symmetric (a second-order type, midpoint2, cn2, beuler2, theta2 or alpha2, has the symmetric M + theta tau D + theta^2 tau^2 K)", type));
  PetscCall(MechKSPCheckSymmetric(ksp, why));
  PetscFunctionReturn(0);
}

/* Position in X of q_j (half = 0) or v_j (half = 1). */
static inline PetscInt MapColumn(const MechFirstOrder *fo, PetscInt j, PetscInt half)
{
  PetscInt lo = 0, hi = fo->size;

  while (hi - lo > 1) {
    PetscInt mid = (lo + hi) / 2;
    if (fo->ranges[mid] <= j) lo = mid;
    else hi = mid;
  }
  return j + (half ? fo->ranges[lo + 1] : fo->ranges[lo]);
}

/* Add the local rows of A, scaled by s, into the v-rows of P with columns in the given half. */
static PetscErrorCode AddBlock(MechFirstOrder *fo, Mat A, PetscScalar s, PetscInt half, Mat P)
{
  PetscInt    *cols = NULL, maxcols = 0;
  PetscScalar *vals = NULL;

  PetscFunctionBegin;
  for (PetscInt li = 0; li < fo->n; li++) {
    PetscInt           i = fo->rstart + li, ncols, row = 2 * fo->rstart + fo->n + li;
    const PetscInt    *c;
    const PetscScalar *a;

    PetscCall(MatGetRow(A, i, &ncols, &c, &a));
    if (ncols > maxcols) {
      PetscCall(PetscFree2(cols, vals));
      maxcols = ncols;
      PetscCall(PetscMalloc2(maxcols, &cols, maxcols, &vals));
    }
    for (PetscInt k = 0; k < ncols; k++) {
      cols[k] = MapColumn(fo, c[k], half);
      vals[k] = s * a[k];
    }
    PetscCall(MatSetValues(P, 1, &row, ncols, cols, vals, ADD_VALUES));
    PetscCall(MatRestoreRow(A, i, &ncols, &c, &a));
  }
  PetscCall(PetscFree2(cols, vals));
  PetscFunctionReturn(0);
}

static PetscErrorCode MechFirstOrderIJacobian(TS ts, PetscReal t, Vec X, Vec Xdot, PetscReal shift, Mat J, Mat P, void *ctx)
{
  MechFirstOrder    *fo  = (MechFirstOrder *)ctx;
  MechSystem         sys = fo->sys;
  const PetscScalar *x;

  PetscFunctionBegin;
  (void)Xdot;
  PetscCall(MechFirstOrderCheckPC(ts));
  PetscCall(PlaceHalves(fo, X, fo->q, fo->v, &x));
  PetscCall(MechSystemComputeOperator(sys, t, fo->q, fo->v, 1.0, 0.0, 0.0, fo->K));
  if (sys->hasdamping) PetscCall(MechSystemComputeOperator(sys, t, fo->q, fo->v, 0.0, 1.0, 0.0, fo->D));
  PetscCall(ResetHalves(X, fo->q, fo->v, &x));

  PetscCall(MatZeroEntries(P));
  for (PetscInt li = 0; li < fo->n; li++) {
    PetscInt    row     = 2 * fo->rstart + li;
    PetscInt    cols[2] = {row, row + fo->n};
    PetscScalar vals[2] = {shift, -1.0};
    PetscCall(MatSetValues(P, 1, &row, 2, cols, vals, ADD_VALUES));
  }
  PetscCall(AddBlock(fo, fo->K, 1.0, 0, P));
  if (sys->hasdamping) PetscCall(AddBlock(fo, fo->D, 1.0, 1, P));
  PetscCall(AddBlock(fo, sys->Mfix, shift, 1, P));
  PetscCall(MatAssemblyBegin(P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(P, MAT_FINAL_ASSEMBLY));
  if (J != P) {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(0);
}

/* The 2N Jacobian, preallocated from the sparsity of K + D + M (twice per v-row). */
static PetscErrorCode MechFirstOrderCreateJacobian(MechFirstOrder *fo, Mat *P)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)fo->sys);
  PetscInt   *dnz, *onz, N;
  PetscMPIInt rank;
  Mat         pattern;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(MechSystemGetPattern(fo->sys, &pattern));
  PetscCall(MatGetSize(pattern, &N, NULL));
  PetscCall(PetscCalloc2(2 * fo->n, &dnz, 2 * fo->n, &onz));
  for (PetscInt li = 0; li < fo->n; li++) {
    PetscInt        ncols;
    const PetscInt *c;

    dnz[li] = 2;
    PetscCall(MatGetRow(pattern, fo->rstart + li, &ncols, &c, NULL));
    for (PetscInt k = 0; k < ncols; k++) {
      if (c[k] >= fo->ranges[rank] && c[k] < fo->ranges[rank + 1]) dnz[fo->n + li] += 2;
      else onz[fo->n + li] += 2;
    }
    PetscCall(MatRestoreRow(pattern, fo->rstart + li, &ncols, &c, NULL));
  }
  PetscCall(MatCreate(comm, P));
  PetscCall(MatSetSizes(*P, 2 * fo->n, 2 * fo->n, 2 * N, 2 * N));
  PetscCall(MatSetType(*P, MATAIJ));
  PetscCall(MatSetFromOptions(*P));
  PetscCall(MatSeqAIJSetPreallocation(*P, 0, dnz));
  PetscCall(MatMPIAIJSetPreallocation(*P, 0, dnz, 0, onz));
  PetscCall(MatSetOption(*P, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  PetscCall(PetscFree2(dnz, onz));
  PetscFunctionReturn(0);
}

/* Copy between X = [q; v] and (q, v): local blocks only. */
static PetscErrorCode MechFirstOrderCopy(MechFirstOrder *fo, Vec X, Vec q, Vec v, PetscBool pack)
{
  PetscScalar *x, *a;

  PetscFunctionBegin;
  PetscCall(VecGetArray(X, &x));
  if (q) {
    PetscCall(VecGetArray(q, &a));
    if (pack) PetscCall(PetscArraycpy(x, a, fo->n));
    else PetscCall(PetscArraycpy(a, x, fo->n));
    PetscCall(VecRestoreArray(q, &a));
  }
  if (v) {
    PetscCall(VecGetArray(v, &a));
    if (pack) PetscCall(PetscArraycpy(x + fo->n, a, fo->n));
    else PetscCall(PetscArraycpy(a, x + fo->n, fo->n));
    PetscCall(VecRestoreArray(v, &a));
  }
  PetscCall(VecRestoreArray(X, &x));
  PetscFunctionReturn(0);
}

/*
  PETSc 3.18's TSIRK treats the implicit function as F(t, U, Udot) = Udot - G(t, U): it never asks
  for dF/dUdot (its source says "explicit formulas only"), so on the first-order form
  [qdot - v; M vdot + f], whose dF/dUdot is diag(I, M), it runs the right method only when M = I.
  With another mass it converges linearly and accepts wrong steps (on the default chain, 65 % off
  gauss2 with the same stages over 2 s); the run is refused, saying why and what to use.
*/
static PetscErrorCode MechFirstOrderCheckIRK(MechSystem sys, TS ts)
{
  PetscBool   irk, unit = PETSC_FALSE;
  const char *model;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSIRK, &irk));
  if (!irk) PetscFunctionReturn(0);
  if (sys->massdiag) {
    Vec       d;
    PetscReal lo, hi;

    PetscCall(MatCreateVecs(sys->Mfix, &d, NULL));
    PetscCall(MatGetDiagonal(sys->Mfix, d));
    PetscCall(VecMin(d, NULL, &lo));
    PetscCall(VecMax(d, NULL, &hi));
    PetscCall(VecDestroy(&d));
    unit = lo == 1 && hi == 1 ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscCall(MechSystemGetModelName(sys, &model));
  PetscCheck(unit, PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP, "-ts_type irk: PETSc 3.18's TSIRK takes dF/dUdot = I (explicit equations only), and the first-order form [q; v] of model %s has the mass matrix M, which is not the identity, in that place: its steps would converge linearly to a wrong answer; use -ts_type gauss2 (the same Gauss-Legendre methods, -ts_gauss2_stages 1 to 3)", model ? model : "(unnamed)");
  PetscFunctionReturn(0);
}

/*
  TSMechSetUpFirstOrder - Installs the first-order form of sys on ts and gives it X = [q; v].
*/
PetscErrorCode TSMechSetUpFirstOrder(TS ts, MechSystem sys, Vec q, Vec v)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)ts);
  MechFirstOrder *fo;
  PetscContainer  c;
  PetscInt        N;
  PetscBool       isexplicit;
  Vec             X, R;

  PetscFunctionBegin;
  PetscCall(MechSystemSetUp(sys));
  PetscCall(MechFirstOrderCheckIRK(sys, ts));
  PetscCall(PetscNew(&fo));
  PetscCall(PetscObjectReference((PetscObject)sys));
  fo->sys = sys;
  PetscCall(VecGetLocalSize(q, &fo->n));
  PetscCall(VecGetSize(q, &N));
  PetscCall(VecGetOwnershipRange(q, &fo->rstart, NULL));
  PetscCall(VecGetOwnershipRanges(q, &fo->ranges));
  PetscCallMPI(MPI_Comm_size(comm, &fo->size));
  PetscCall(VecCreateMPIWithArray(comm, 1, fo->n, N, NULL, &fo->q));
  PetscCall(VecCreateMPIWithArray(comm, 1, fo->n, N, NULL, &fo->v));
  PetscCall(VecCreateMPIWithArray(comm, 1, fo->n, N, NULL, &fo->qd));
  PetscCall(VecCreateMPIWithArray(comm, 1, fo->n, N, NULL, &fo->vd));
  PetscCall(VecCreateMPIWithArray(comm, 1, fo->n, N, NULL, &fo->Fq));
  PetscCall(VecCreateMPIWithArray(comm, 1, fo->n, N, NULL, &fo->Fv));
  PetscCall(PetscContainerCreate(comm, &c));
  PetscCall(PetscContainerSetPointer(c, fo));
  PetscCall(PetscContainerSetUserDestroy(c, MechFirstOrderDestroy));
  PetscCall(PetscObjectCompose((PetscObject)ts, "TSMech_FirstOrder", (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));

  PetscCall(VecCreateMPI(comm, 2 * fo->n, 2 * N, &X));
  PetscCall(MechFirstOrderCopy(fo, X, q, v, PETSC_TRUE));
  PetscCall(TSMechIsExplicit(ts, &isexplicit));
  /* the residual vector must be given: TSSetI2Function() left one of size N in the SNES */
  PetscCall(VecDuplicate(X, &R));
  if (isexplicit) {
    PetscCall(TSSetRHSFunction(ts, R, MechFirstOrderRHSFunction, fo));
  } else {
    Mat P;
    PetscCall(MechSystemCreateOperator(sys, &fo->K));
    if (sys->hasdamping) PetscCall(MechSystemCreateOperator(sys, &fo->D));
    PetscCall(MechFirstOrderCreateJacobian(fo, &P));
    PetscCall(TSSetIFunction(ts, R, MechFirstOrderIFunction, fo));
    PetscCall(TSSetIJacobian(ts, P, P, MechFirstOrderIJacobian, fo));
    PetscCall(MatDestroy(&P));
    PetscCall(MechFirstOrderCheckPC(ts));
    PetscCall(MechFirstOrderResetKSP(ts, 2 * N));
  }
  PetscCall(TSSetSolution(ts, X));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&R));
  PetscFunctionReturn(0);
}

/*
  TSMechFirstOrderUnpack - Copies the halves of X = [q; v] into q and v (either may be NULL).
*/
PetscErrorCode TSMechFirstOrderUnpack(TS ts, Vec X, Vec q, Vec v)
{
  MechFirstOrder *fo;

  PetscFunctionBegin;
  PetscCall(MechFirstOrderGet(ts, &fo));
  PetscCall(MechFirstOrderCopy(fo, X, q, v, PETSC_FALSE));
  PetscFunctionReturn(0);
}

/*
  TSMechFirstOrderPack - Copies q and v (either may be NULL) into the halves of X = [q; v].
*/
PetscErrorCode TSMechFirstOrderPack(TS ts, Vec q, Vec v, Vec X)
{
  MechFirstOrder *fo;

  PetscFunctionBegin;
  PetscCall(MechFirstOrderGet(ts, &fo));
  PetscCall(MechFirstOrderCopy(fo, X, q, v, PETSC_TRUE));
  PetscFunctionReturn(0);
}
