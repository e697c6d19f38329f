static const char help[] = "Tests of the solid's p-multigrid for quadratic elements (src/models/solid/pmg.c, src/mech/mgoperator.c).\n";

/*
  Every check prints its measured number and counts a failure when it misses its bound. For P2
  tetrahedra and Q2 hexahedra on the built-in beam, on any number of ranks:

  interpolation  the PCMG's interpolation P (linear -> quadratic) reproduces the linear functions:
                 with the linear level's vertex coordinates X1 (read off P's injection rows), P X1
                 is every node's reference position and P 1 = 1 (a free body, <= 1e-14); with the
                 beam clamped, the fixed dofs' rows of P are empty.
  galerkin       the linear level's operator equals the Galerkin product P^T J P of the assembled
                 quadratic operator J = cK K + cD D + cM M (every material, Rayleigh damping, the
                 clamped beam, a random state; <= 1e-12 of the largest entry) on the rows of the
                 free vertex dofs; the fixed ones are decoupled with a positive diagonal.
  rediscretized  -solid_pmg_coarse rediscretized equals the Galerkin product for the linear
                 material (the linear element's own rule is exact for it on these straight cells).
  diagonal       the multigrid operator's diagonal and its 3 x 3 diagonal blocks equal the
                 assembled J's (every material, damping, fixed dofs; <= 1e-13 relative), its
                 product equals J's (<= 1e-14), and MatInvertBlockDiagonal() inverts the blocks; with
                 the rediscretized linear level too (its diagonal is not that of the Galerkin pass).
*/
#include "fdcheck.h"
#include "testutil.h"

static PetscInt failures = 0;

#define CHECK(cond, ...) TestCount(failures, cond, __VA_ARGS__)

#define NKIND 2
static const char *const kinds[NKIND]    = {"-solid_cell tet -solid_order 2", "-solid_cell hex -solid_order 2"};
static const char *const kindname[NKIND] = {"P2 tet", "Q2 hex"};

#define NMAT 5
static const char *const materials[NMAT] = {"linear", "svk", "neohookean", "neohookean_split", "mooney_rivlin"};
static const char *const moduli[NMAT]    = {"-solid_E 1 -solid_nu 0.3", "-solid_E 1 -solid_nu 0.3", "-solid_E 1 -solid_nu 0.3", "-solid_E 1 -solid_nu 0.3", "-solid_c1 0.15 -solid_c2 0.05 -solid_kappa 1.2"};

static const char geom[] = "-solid_beam_cells 3,2,2 -solid_beam_size 1,0.5,0.4 -solid_density 1 -solid_g 0,0,0";

/* The stage's coefficients (cK, cD, cM) */
static const PetscReal cK = 0.09, cD = 0.3, cM = 1.0;

/* The multigrid operator W at (q, v), a PCMG with the system's levels, its interpolation P and linear level A1 */
static PetscErrorCode SetUpLevels(MechSystem sys, Vec q, Vec v, Mat *W, KSP *ksp, Mat *P, Mat *A1)
{
  PC  pc;
  KSP coarse;

  PetscFunctionBegin;
  PetscCall(MechSystemCreateOperatorMultigrid(sys, W));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)sys), ksp));
  PetscCall(KSPSetOperators(*ksp, *W, *W));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCMG));
  PetscCall(MechSystemSetUpPCMG(sys, pc));
  PetscCall(MechSystemComputeOperator(sys, 0.1, q, v, cK, cD, cM, *W));
  PetscCall(PCMGGetInterpolation(pc, 1, P));
  PetscCall(PCMGGetCoarseSolve(pc, &coarse));
  PetscCall(KSPGetOperators(coarse, A1, NULL));
  PetscFunctionReturn(0);
}

/* The linear level's vertex coordinates from P's injection rows (a vertex node's row is a single 1) */
static PetscErrorCode CoarseCoordinates(Mat P, Vec X, Vec X1)
{
  PetscInt           rstart, rend, cstart;
  const PetscScalar *x;
  PetscScalar       *x1;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(P, &rstart, &rend));
  PetscCall(MatGetOwnershipRangeColumn(P, &cstart, NULL));
  PetscCall(VecSet(X1, PETSC_MAX_REAL));
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(VecGetArray(X1, &x1));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           n;

    PetscCall(MatGetRow(P, r, &n, &cols, &vals));
    if (n == 1 && vals[0] == 1.0) x1[cols[0] - cstart] = x[r - rstart];
    PetscCall(MatRestoreRow(P, r, &n, &cols, &vals));
  }
  PetscCall(VecRestoreArray(X1, &x1));
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscFunctionReturn(0);
}

/* Interpolation: P X1 = X and P 1 = 1 on a free body; the clamped beam's fixed rows empty */
static PetscErrorCode TestInterpolation(void)
{
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  for (PetscInt e = 0; e < NKIND; e++) {
    for (PetscInt fixed = 0; fixed < 2; fixed++) {
      MechSystem sys;
      Vec        q, v, X1, Y, ones1, ones;
      Mat        W, P, A1;
      KSP        ksp;
      PetscReal  err, err1, xmax;
      PetscInt   n, empty = 0, nfix = 0;
      IS         fix;
      char       opts[512];

      PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s -solid_material neohookean %s %s", kinds[e], geom, moduli[2], fixed ? "-solid_fix x=0" : "-solid_fix none"));
      PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
      PetscCall(FDRandomState(sys, rnd, 0.01, &q, &v));
      PetscCall(SetUpLevels(sys, q, v, &W, &ksp, &P, &A1));
      PetscCall(MechSystemCreateState(sys, &Y, NULL));
      PetscCall(MatCreateVecs(P, &X1, &ones));
      PetscCall(VecDuplicate(X1, &ones1));
      if (!fixed) {
        Vec X;

        /* the reference positions (the initial state) */
        PetscCall(MechSystemCreateState(sys, &X, NULL));
        PetscCall(CoarseCoordinates(P, X, X1));
        PetscCall(MatMult(P, X1, Y));
        PetscCall(VecAXPY(Y, -1.0, X));
        PetscCall(VecNorm(Y, NORM_INFINITY, &err));
        PetscCall(VecNorm(X, NORM_INFINITY, &xmax));
        PetscCall(VecSet(ones1, 1.0));
        PetscCall(MatMult(P, ones1, ones));
        PetscCall(VecShift(ones, -1.0));
        PetscCall(VecNorm(ones, NORM_INFINITY, &err1));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "interpolation %s: |P X1 - X| = %.2e of |X|, |P 1 - 1| = %.2e\n", kindname[e], (double)(err / xmax), (double)err1));
        CHECK(err <= 1e-14 * xmax && err1 <= 1e-14, "interpolation %s: P does not reproduce the linear functions\n", kindname[e]);
        PetscCall(VecDestroy(&X));
      } else {
        const PetscInt *idx;

        PetscCall(MechSystemGetFixed(sys, &fix));
        PetscCall(ISGetLocalSize(fix, &nfix));
        PetscCall(ISGetIndices(fix, &idx));
        for (PetscInt k = 0; k < nfix; k++) {
          PetscCall(MatGetRow(P, idx[k], &n, NULL, NULL));
          if (!n) empty++;
          PetscCall(MatRestoreRow(P, idx[k], &n, NULL, NULL));
        }
        PetscCall(ISRestoreIndices(fix, &idx));
        PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &nfix, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
        PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &empty, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "interpolation %s clamped: %" PetscInt_FMT " of %" PetscInt_FMT " fixed rows empty\n", kindname[e], empty, nfix));
        CHECK(nfix > 0 && empty == nfix, "interpolation %s: a fixed dof has a row\n", kindname[e]);
      }
      PetscCall(VecDestroy(&X1));
      PetscCall(VecDestroy(&ones1));
      PetscCall(VecDestroy(&ones));
      PetscCall(VecDestroy(&Y));
      PetscCall(KSPDestroy(&ksp));
      PetscCall(MatDestroy(&W));
      PetscCall(VecDestroy(&q));
      PetscCall(VecDestroy(&v));
      PetscCall(MechSystemDestroy(&sys));
    }
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

/*
  max |A1 - P^T J P| over the rows of P^T J P that are not empty (the free vertex dofs), against
  the largest entry; the empty ones (fixed) must be decoupled in A1 with a positive diagonal
*/
static PetscErrorCode CompareGalerkin(Mat A1, Mat G, PetscReal *err, PetscInt *baddecoupled)
{
  PetscInt  rstart, rend;
  PetscReal gmax = 0, dmax = 0;

  PetscFunctionBegin;
  *baddecoupled = 0;
  PetscCall(MatGetOwnershipRange(A1, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt    *gc, *ac;
    const PetscScalar *gv, *av;
    PetscInt           ng, na;
    PetscBool          gempty = PETSC_TRUE;

    PetscCall(MatGetRow(G, r, &ng, &gc, &gv));
    for (PetscInt k = 0; k < ng; k++) {
      gmax = PetscMax(gmax, PetscAbsScalar(gv[k]));
      if (gv[k] != 0) gempty = PETSC_FALSE;
    }
    PetscCall(MatGetRow(A1, r, &na, &ac, &av));
    for (PetscInt k = 0; k < na; k++) {
      PetscScalar g = 0;

      if (gempty) {
        if ((ac[k] == r) != (av[k] != 0) || (ac[k] == r && PetscRealPart(av[k]) <= 0)) (*baddecoupled)++;
        continue;
      }
      for (PetscInt j = 0; j < ng; j++)
        if (gc[j] == ac[k]) g = gv[j];
      dmax = PetscMax(dmax, PetscAbsScalar(av[k] - g));
    }
    PetscCall(MatRestoreRow(A1, r, &na, &ac, &av));
    PetscCall(MatRestoreRow(G, r, &ng, &gc, &gv));
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &gmax, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &dmax, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, baddecoupled, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  *err = dmax / gmax;
  PetscFunctionReturn(0);
}

/* The linear level against P^T J P; -solid_pmg_coarse rediscretized against it for the linear material */
static PetscErrorCode TestGalerkin(void)
{
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  for (PetscInt e = 0; e < NKIND; e++) {
    for (PetscInt m = 0; m < NMAT + 1; m++) {
      const PetscBool redisc = m == NMAT ? PETSC_TRUE : PETSC_FALSE;
      MechSystem      sys;
      Vec             q, v;
      Mat             W, P, A1, J, G;
      KSP             ksp;
      PetscReal       err = 0;
      PetscInt        bad = 0;
      char            opts[512];

      PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s %s -solid_material %s -solid_rayleigh 0.3,0.02 -solid_fix x=0 %s", kinds[e], geom, moduli[redisc ? 0 : m], materials[redisc ? 0 : m], redisc ? "-solid_pmg_coarse rediscretized" : ""));
      PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
      PetscCall(FDRandomState(sys, rnd, 0.03, &q, &v));
      PetscCall(SetUpLevels(sys, q, v, &W, &ksp, &P, &A1));
      PetscCall(MechSystemCreateOperator(sys, &J));
      PetscCall(MechSystemComputeOperator(sys, 0.1, q, v, cK, cD, cM, J));
      PetscCall(MatPtAP(J, P, MAT_INITIAL_MATRIX, 2.0, &G));
      PetscCall(CompareGalerkin(A1, G, &err, &bad));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %s %s: |A1 - P^T J P| = %.2e of its largest entry, %" PetscInt_FMT " badly decoupled fixed rows\n", redisc ? "rediscretized" : "galerkin", kindname[e], materials[redisc ? 0 : m], (double)err, bad));
      CHECK(err <= 1e-12 && bad == 0, "%s %s %s: the linear level is not the Galerkin product\n", redisc ? "rediscretized" : "galerkin", kindname[e], materials[redisc ? 0 : m]);
      PetscCall(MatDestroy(&G));
      PetscCall(MatDestroy(&J));
      PetscCall(KSPDestroy(&ksp));
      PetscCall(MatDestroy(&W));
      PetscCall(VecDestroy(&q));
      PetscCall(VecDestroy(&v));
      PetscCall(MechSystemDestroy(&sys));
    }
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

/* max |blocks of W - blocks of J| / max |J| over the owned 3 x 3 diagonal blocks, and |B^-1 B - I| */
static PetscErrorCode CompareBlocks(Mat W, Mat J, PetscReal *err, PetscReal *inv)
{
  PetscInt           rstart, rend;
  const PetscScalar *B;
  Vec                dw, dj;
  PetscReal          jmax = 0, dmax = 0, imax = 0;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(J, &rstart, &rend));
  PetscCall(MatCreateVecs(J, &dw, &dj));
  PetscCall(MatGetDiagonal(W, dw));
  PetscCall(MatInvertBlockDiagonal(W, &B));
  for (PetscInt n = 0; n < (rend - rstart) / 3; n++) {
    PetscInt    rows[3] = {rstart + 3 * n, rstart + 3 * n + 1, rstart + 3 * n + 2};
    PetscScalar b[9], d;

    PetscCall(MatGetValues(J, 3, rows, 3, rows, b));
    for (PetscInt i = 0; i < 3; i++) {
      PetscCall(VecGetValues(dw, 1, &rows[i], &d));
      dmax = PetscMax(dmax, PetscAbsScalar(d - b[4 * i]));
      for (PetscInt k = 0; k < 3; k++) {
        PetscScalar p = 0;

        jmax = PetscMax(jmax, PetscAbsScalar(b[3 * i + k]));
        /* (B^-1 B)_ik */
        for (PetscInt j = 0; j < 3; j++) p += B[9 * n + 3 * i + j] * b[3 * j + k];
        imax = PetscMax(imax, PetscAbsScalar(p - (i == k ? 1.0 : 0.0)));
      }
    }
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &jmax, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &dmax, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &imax, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  *err = dmax / jmax;
  *inv = imax;
  PetscCall(VecDestroy(&dw));
  PetscCall(VecDestroy(&dj));
  PetscFunctionReturn(0);
}

/* The multigrid operator's diagonal, blocks and product against the assembled J */
static PetscErrorCode TestDiagonal(void)
{
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  for (PetscInt e = 0; e < NKIND; e++) {
    /* the last pass: neo-Hookean with the rediscretized linear level, whose diagonal is a pass of its own */
    for (PetscInt m = 0; m < NMAT + 1; m++) {
      const PetscBool redisc = m == NMAT ? PETSC_TRUE : PETSC_FALSE;
      const PetscInt  mat    = redisc ? 2 : m;
      MechSystem      sys;
      Vec             q, v, w, y1, y2;
      Mat             W, P, A1, J;
      KSP             ksp;
      PetscReal       errd = 0, erri = 0, errp = 0, n2;
      char            opts[512];

      PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s %s -solid_material %s -solid_rayleigh 0.3,0.02 -solid_fix x=0 %s", kinds[e], geom, moduli[mat], materials[mat], redisc ? "-solid_pmg_coarse rediscretized" : ""));
      PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
      PetscCall(FDRandomState(sys, rnd, 0.03, &q, &v));
      PetscCall(SetUpLevels(sys, q, v, &W, &ksp, &P, &A1));
      PetscCall(MechSystemCreateOperator(sys, &J));
      PetscCall(MechSystemComputeOperator(sys, 0.1, q, v, cK, cD, cM, J));
      PetscCall(CompareBlocks(W, J, &errd, &erri));
      PetscCall(MatCreateVecs(J, &w, &y1));
      PetscCall(VecDuplicate(y1, &y2));
      PetscCall(VecSetRandom(w, rnd));
      PetscCall(MatMult(W, w, y1));
      PetscCall(MatMult(J, w, y2));
      PetscCall(VecNorm(y2, NORM_2, &n2));
      PetscCall(VecAXPY(y1, -1.0, y2));
      PetscCall(VecNorm(y1, NORM_2, &errp));
      errp /= n2;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "diagonal %s %s%s: blocks %.2e, inverse blocks %.2e, product %.2e\n", kindname[e], materials[mat], redisc ? " rediscretized" : "", (double)errd, (double)erri, (double)errp));
      CHECK(errd <= 1e-13 && erri <= 1e-10 && errp <= 1e-14, "diagonal %s %s%s: the multigrid operator is not the assembled one\n", kindname[e], materials[mat], redisc ? " rediscretized" : "");
      PetscCall(VecDestroy(&w));
      PetscCall(VecDestroy(&y1));
      PetscCall(VecDestroy(&y2));
      PetscCall(MatDestroy(&J));
      PetscCall(KSPDestroy(&ksp));
      PetscCall(MatDestroy(&W));
      PetscCall(VecDestroy(&q));
      PetscCall(VecDestroy(&v));
      PetscCall(MechSystemDestroy(&sys));
    }
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage());
  PetscCall(TestInterpolation());
  PetscCall(TestGalerkin());
  PetscCall(TestDiagonal());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failures\n", failures ? "FAILED" : "passed", failures));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
