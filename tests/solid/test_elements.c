static const char help[] = "Tests of the solid model's elements: P1 and P2 tetrahedra, Q1 and Q2 hexahedra.\n";

/*
  Every check prints its measured number and counts a failure when it misses its bound. For each
  element (-solid_cell tet|hex, -solid_order 1|2 on the built-in beam):

  tangents      K and D of each material against central differences of f at a random deformed
                state (<= 1e-8 relative), f against the potential (<= 1e-6), the tangent action
                equal to the assembled tangent (<= 1e-14 relative), K symmetric.
  patch         a translation and a rotation give zero force (svk); a uniform deformation
                gradient F = A gives P(A) exactly (f . w = V P : B along w = B X, <= 1e-12) and no
                force on any node inside the body (<= 1e-12 of the force scale); the consistent and
                the lumped mass carry rho V along each direction, the lumped one positive.
  conservation  a free spinning neo-Hookean body under midpoint2 keeps its linear and angular
                momentum over 1000 steps (<= 1e-12 relative).
  meshes        (-dir tests/solid/meshes, also with -mpi) the matrix-free operator cK K + cD D + cM M
                (hexahedra by sum factorization, the mass inside the action) equal to the assembled
                one (<= 1e-13: other sums of the same terms) on Cook's membrane of 2 x 2 trilinear hex8 and hex27 cells (J per
                point) and on the hex27 mesh with a curved edge (4 points per direction).
  ranks         (-mpi, on several ranks) the final state of a run equals one rank's, node by node
                in the I/O order (which therefore does not depend on the ranks, <= 1e-10), and the
                reference positions in the I/O order are the same bits.
  bending       the cantilever's first bending frequency (L/b = 10, nu = 0, inverse iteration)
                against Euler-Bernoulli's: quadratic elements within 1 % of the converged
                frequency on 8 x 1 x 1 boxes, and converging (-bending_table: the table of
                docs/solid.md, 4 meshes, every element).
*/
#include <petscdmplex.h>
#include "fdcheck.h"
#include "testutil.h"
#include <time.h>

static PetscInt failures = 0;

#define CHECK(cond, ...) TestCount(failures, cond, __VA_ARGS__)

#define NKIND 4
static const char *const kinds[NKIND]    = {"-solid_cell tet -solid_order 1", "-solid_cell tet -solid_order 2", "-solid_cell hex -solid_order 1", "-solid_cell hex -solid_order 2"};
static const char *const kindname[NKIND] = {"P1 tet", "P2 tet", "Q1 hex", "Q2 hex"};

#define NMAT 5
static const char *const materials[NMAT] = {"linear", "svk", "neohookean", "neohookean_split", "mooney_rivlin"};
static const char *const moduli[NMAT]    = {"-solid_E 1 -solid_nu 0.3", "-solid_E 1 -solid_nu 0.3", "-solid_E 1 -solid_nu 0.3", "-solid_E 1 -solid_nu 0.3", "-solid_c1 0.15 -solid_c2 0.05 -solid_kappa 1.2"};

static const char geom[] = "-solid_beam_size 1,0.5,0.4 -solid_density 1 -solid_g 0,0,0";

/* Tangents against finite differences and the matrix-free action against the assembled tangent */
static PetscErrorCode TestTangents(void)
{
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscCall(FDRandomCreate(PETSC_COMM_WORLD, 7, &rnd));
  for (PetscInt e = 0; e < NKIND; e++) {
    for (PetscInt m = 0; m < NMAT; m++) {
      MechSystem sys;
      Vec        q, v;
      PetscReal  errK, errD, errL, errV, erra, n2;
      PetscBool  linear, sym;
      char       opts[512];

      PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s -solid_beam_cells 2,1,1 %s -solid_material %s -solid_rayleigh 0.3,0.02 -solid_fix x=0", kinds[e], geom, moduli[m], materials[m]));
      PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
      PetscCall(FDRandomState(sys, rnd, 0.03, &q, &v));
      PetscCall(FDCheckTangents(sys, q, v, rnd, 1e-6, 1e-6, &errK, &errD, &linear, &errL, &sym));
      PetscCall(FDCheckPotential(sys, q, rnd, 1e-4, 4, &errV));
      PetscCall(FDCheckOperatorShell(sys, 0.25, q, v, 0.7, 1.3, 2.1, rnd, &erra, &n2));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "tangents %s %-16s |K - FD| %.2e  |D - FD| %.2e  symmetric %s  |f - dV| %.2e  |action - assembled| %.2e\n", kindname[e], materials[m], (double)errK, (double)errD, sym ? "yes" : "no", (double)errV, (double)erra));
      CHECK(errK <= 1e-8 && errD <= 1e-8, "%s %s tangent errors %.2e %.2e > 1e-8\n", kindname[e], materials[m], (double)errK, (double)errD);
      CHECK(errV <= 1e-6, "%s %s force is not the gradient of the potential: %.2e\n", kindname[e], materials[m], (double)errV);
      CHECK(sym, "%s %s tangent not symmetric\n", kindname[e], materials[m]);
      CHECK(erra <= 1e-14 && n2 > 0, "%s %s tangent action differs from the assembled tangent by %.2e\n", kindname[e], materials[m], (double)erra);
      CHECK(m != 0 || (linear && errL <= 1e-9), "%s linear material not linear: %.2e\n", kindname[e], (double)errL);
      PetscCall(VecDestroy(&q));
      PetscCall(VecDestroy(&v));
      PetscCall(MechSystemDestroy(&sys));
    }
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

/* y = A X + c node by node */
static PetscErrorCode AffineMap(Vec X, const PetscReal A[9], const PetscReal c[3], Vec y)
{
  const PetscScalar *x;
  PetscScalar       *a;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(VecGetArray(y, &a));
  for (PetscInt i = 0; i < n; i += 3)
    for (int r = 0; r < 3; r++) a[i + r] = A[3 * r] * x[i] + A[3 * r + 1] * x[i + 1] + A[3 * r + 2] * x[i + 2] + c[r];
  PetscCall(VecRestoreArray(y, &a));
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscFunctionReturn(0);
}

/* P of the St. Venant-Kirchhoff material (E = 1, nu = 0.3) at F, written independently of the model */
static void SvkStress(const PetscReal F[9], PetscReal P[9])
{
  const PetscReal E = 1, nu = 0.3, mu = E / (2 * (1 + nu)), lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
  PetscReal       Eg[9], S[9], tr;

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) Eg[3 * i + j] = 0.5 * (F[i] * F[j] + F[3 + i] * F[3 + j] + F[6 + i] * F[6 + j] - (i == j));
  tr = Eg[0] + Eg[4] + Eg[8];
  for (int i = 0; i < 9; i++) S[i] = 2 * mu * Eg[i] + (i % 4 == 0 ? lambda * tr : 0);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) P[3 * i + j] = F[3 * i] * S[j] + F[3 * i + 1] * S[3 + j] + F[3 * i + 2] * S[6 + j];
}

/* Patch tests on a free 2 x 2 x 2 beam (nodes inside the body) and the mass matrices */
static PetscErrorCode TestPatch(void)
{
  const PetscReal Id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, R[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1}, zero[3] = {0, 0, 0}, shift[3] = {0.3, -2, 5};
  const PetscReal Fu[9] = {1.1, 0.05, -0.02, 0.03, 0.95, 0.04, -0.01, 0.02, 1.02}, L[3] = {1, 0.5, 0.4};
  const PetscReal V = L[0] * L[1] * L[2], scale = PetscPowReal(V, 2.0 / 3);

  PetscFunctionBegin;
  for (PetscInt e = 0; e < NKIND; e++) {
    MechSystem         sys;
    Vec                X, v, q, f, w;
    PetscReal          nt, nr, Pex[9], perr = 0, pn = 0, fin = 0;
    PetscInt           nin = 0, n;
    const PetscScalar *x, *fa;
    char               opts[512];

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s -solid_beam_cells 2,2,2 -solid_material svk -solid_E 1 -solid_nu 0.3 -solid_fix none", kinds[e], geom));
    PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
    PetscCall(MechSystemCreateState(sys, &X, &v));
    {
      /* the element's unknowns and couplings: 3 x 3 x 3 vertices (order 1) or 5 x 5 x 5 nodes (order 2);
         the blocks of the tangent: P1 (Kuhn) the vertices and twice the 98 edges, Q1 (7 x 7 x 7)
         and Q2 (17 x 17 x 17) every pair of nodes of a common cell, counted per direction */
      const PetscInt Nexp[NKIND] = {81, 375, 81, 375}, nzexp[NKIND] = {9 * (27 + 2 * 98), -1, 9 * 343, 9 * 4913};
      PetscInt       Ng;
      Mat            A;
      MatInfo        info;

      PetscCall(VecGetSize(X, &Ng));
      PetscCall(MechSystemCreateOperator(sys, &A));
      PetscCall(MechSystemComputeOperator(sys, 0, X, v, 1, 0, 0, A));
      PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "patch %s 2 x 2 x 2 boxes: %" PetscInt_FMT " unknowns (expected %" PetscInt_FMT "), %.0f nonzeros in the tangent\n", kindname[e], Ng, Nexp[e], info.nz_used));
      CHECK(Ng == Nexp[e], "%s: %" PetscInt_FMT " unknowns, expected %" PetscInt_FMT "\n", kindname[e], Ng, Nexp[e]);
      CHECK(nzexp[e] < 0 || (PetscInt)info.nz_used == nzexp[e], "%s: %.0f nonzeros in the tangent, expected %" PetscInt_FMT "\n", kindname[e], info.nz_used, nzexp[e]);
      PetscCall(MatDestroy(&A));
    }
    PetscCall(VecDuplicate(X, &q));
    PetscCall(VecDuplicate(X, &f));
    PetscCall(VecDuplicate(X, &w));
    PetscCall(AffineMap(X, Id, shift, q));
    PetscCall(MechSystemComputeForce(sys, 0, q, v, f));
    PetscCall(VecNorm(f, NORM_INFINITY, &nt));
    PetscCall(AffineMap(X, R, shift, q));
    PetscCall(MechSystemComputeForce(sys, 0, q, v, f));
    PetscCall(VecNorm(f, NORM_INFINITY, &nr));
    PetscCall(AffineMap(X, Fu, zero, q));
    PetscCall(MechSystemComputeForce(sys, 0, q, v, f));
    SvkStress(Fu, Pex);
    for (int k = 0; k < 9; k++) {
      PetscReal   B[9] = {0};
      PetscScalar d;

      B[k] = 1;
      PetscCall(AffineMap(X, B, zero, w));
      PetscCall(VecDot(f, w, &d));
      perr = PetscMax(perr, PetscAbsReal(PetscRealPart(d) / V - Pex[k]));
      pn   = PetscMax(pn, PetscAbsReal(Pex[k]));
    }
    /* the nodes inside the body carry no force under a uniform stress */
    PetscCall(VecGetLocalSize(X, &n));
    PetscCall(VecGetArrayRead(X, &x));
    PetscCall(VecGetArrayRead(f, &fa));
    for (PetscInt i = 0; i < n; i += 3) {
      PetscBool inside = PETSC_TRUE;

      for (int c = 0; c < 3; c++)
        if (PetscAbsReal(x[i + c]) < 1e-12 || PetscAbsReal(x[i + c] - L[c]) < 1e-12) inside = PETSC_FALSE;
      if (!inside) continue;
      nin++;
      for (int c = 0; c < 3; c++) fin = PetscMax(fin, PetscAbsReal(fa[i + c]));
    }
    PetscCall(VecRestoreArrayRead(f, &fa));
    PetscCall(VecRestoreArrayRead(X, &x));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &nin, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &fin, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "patch %s |f| translation %.2e  rotation %.2e  uniform F: |P - P_exact| / |P| = %.2e, max |f| on %" PetscInt_FMT " inner nodes %.2e (relative to E L^2)\n", kindname[e], (double)(nt / scale), (double)(nr / scale), (double)(perr / pn), nin, (double)(fin / scale)));
    CHECK(nt / scale <= 1e-13 && nr / scale <= 1e-13, "%s: a rigid motion gives a force %.2e, %.2e\n", kindname[e], (double)(nt / scale), (double)(nr / scale));
    CHECK(perr / pn <= 1e-12, "%s: uniform F gives P off by %.2e\n", kindname[e], (double)(perr / pn));
    CHECK(nin > 0 && fin / scale <= 1e-12, "%s: uniform F leaves a force %.2e on the %" PetscInt_FMT " inner nodes\n", kindname[e], (double)(fin / scale), nin);
    PetscCall(VecDestroy(&X));
    PetscCall(VecDestroy(&v));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&f));
    PetscCall(VecDestroy(&w));
    PetscCall(MechSystemDestroy(&sys));
    /* the masses: rho V along each direction; lumped diagonal and positive */
    for (PetscInt k = 0; k < 2; k++) {
      Mat       M;
      Vec       one, Mone;
      PetscReal total, offdiag, dmin;

      PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s -solid_beam_cells 2,2,2 -solid_mass %s -solid_fix none", kinds[e], geom, k ? "lumped" : "consistent"));
      PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
      PetscCall(MechSystemGetMass(sys, &M));
      PetscCall(MatCreateVecs(M, &one, &Mone));
      PetscCall(VecSet(one, 1.0));
      PetscCall(MatMult(M, one, Mone));
      PetscCall(VecSum(Mone, &total));
      PetscCall(MatGetDiagonal(M, one));
      PetscCall(VecMin(one, NULL, &dmin));
      PetscCall(VecAXPY(Mone, -1.0, one));
      PetscCall(VecNorm(Mone, NORM_INFINITY, &offdiag));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "patch %s %-10s mass: total %.15g (3 rho V = %.15g), off-diagonal row sums %.2e, smallest diagonal %.3e\n", kindname[e], k ? "lumped" : "consistent", (double)total, (double)(3 * V), (double)offdiag, (double)dmin));
      CHECK(PetscAbsReal(total - 3 * V) <= 1e-14, "%s %s mass total %.15g\n", kindname[e], k ? "lumped" : "consistent", (double)total);
      CHECK(k ? offdiag == 0 && dmin > 0 : offdiag > 0, "%s %s mass: off-diagonal row sums %.2e, smallest diagonal %.2e\n", kindname[e], k ? "lumped" : "consistent", (double)offdiag, (double)dmin);
      PetscCall(VecDestroy(&one));
      PetscCall(VecDestroy(&Mone));
      PetscCall(MechSystemDestroy(&sys));
    }
  }
  PetscFunctionReturn(0);
}

static const char tight[] = "-snes_rtol 1e-14 -snes_atol 1e-13 -snes_stol 0 -snes_max_it 30 -ksp_type gmres -ksp_rtol 1e-15 -ksp_atol 1e-16 -ksp_max_it 2000 -pc_type jacobi";

/* A free spinning neo-Hookean body: momenta over 1000 midpoint2 steps */
static PetscErrorCode TestConservation(void)
{
  PetscFunctionBegin;
  for (PetscInt e = 0; e < NKIND; e++) {
    MechSystem sys;
    Vec        q0, v0, q, v;
    PetscReal  m0[6], m1[6], pn = 0, ln = 0, dp = 0, dl = 0;
    char       opts[512];

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_beam_cells 2,1,1 -solid_beam_size 1,0.5,0.4 -solid_E 100 -solid_density 1 -solid_g 0,0,0 -solid_fix none -solid_v0 0.3,-0.2,0.1 -solid_spin 0.5,1,3 -solid_material neohookean", kinds[e]));
    PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
    PetscCall(MechSystemCreateState(sys, &q0, &v0));
    for (PetscInt i = 0; i < 6; i++) PetscCall(MechSystemComputeInvariant(sys, i, 0, q0, v0, NULL, &m0[i]));
    PetscCall(TestIntegrate(sys, TSMIDPOINT2, tight, 0.01, 10.0, &q, &v, NULL, NULL));
    for (PetscInt i = 0; i < 6; i++) PetscCall(MechSystemComputeInvariant(sys, i, 0, q, v, NULL, &m1[i]));
    for (int i = 0; i < 3; i++) {
      pn += m0[i] * m0[i];
      ln += m0[3 + i] * m0[3 + i];
      dp += PetscSqr(m1[i] - m0[i]);
      dl += PetscSqr(m1[3 + i] - m0[3 + i]);
    }
    dp = PetscSqrtReal(dp / pn);
    dl = PetscSqrtReal(dl / ln);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "conservation %s neohookean spin, 1000 midpoint2 steps: momentum drift %.2e, angular momentum drift %.2e\n", kindname[e], (double)dp, (double)dl));
    CHECK(dp <= 1e-12 && dl <= 1e-12, "%s: momentum drifts %.2e, %.2e > 1e-12\n", kindname[e], (double)dp, (double)dl);
    PetscCall(VecDestroy(&q0));
    PetscCall(VecDestroy(&v0));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(MechSystemDestroy(&sys));
  }
  PetscFunctionReturn(0);
}

/* x in the I/O order (MechSystemGetIOMesh()'s scatter), whole on every rank */
static PetscErrorCode NaturalAll(MechSystem sys, Vec x, Vec *all)
{
  VecScatter sc;
  Vec        y;

  PetscFunctionBegin;
  PetscCall(MechSystemGetIOMesh(sys, &sc, NULL, NULL, NULL));
  PetscCheck(sc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The solid has no I/O order");
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecScatterBegin(sc, x, y, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, x, y, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(TestGatherAll(y, all));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(0);
}

/* The same run on all ranks and on one: equal node by node in the I/O order */
static PetscErrorCode TestRanks(void)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (PetscInt e = 0; e < NKIND; e++) {
    MechSystem         sys[2];
    Vec                X[2], q[2], v[2], Xa[2], qa[2], va[2], v0;
    PetscReal          num = 0, den = 0, xdiff = 0;
    PetscInt           N[2], nloc, nmin;
    const PetscScalar *x0, *x1, *a0, *a1, *b0, *b1;
    char               opts[512];

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_beam_cells 3,2,1 -solid_beam_size 1,0.5,0.4 -solid_E 100 -solid_density 1 -solid_g 0,0,-1 -solid_material neohookean -solid_v0 0,0.5,0.2", kinds[e]));
    for (int k = 0; k < 2; k++) {
      PetscCall(TestCreateModel(k ? PETSC_COMM_SELF : PETSC_COMM_WORLD, "solid", opts, &sys[k]));
      PetscCall(MechSystemCreateState(sys[k], &X[k], &v0));
      PetscCall(VecDestroy(&v0));
      PetscCall(TestIntegrate(sys[k], TSMIDPOINT2, tight, 2e-3, 0.1, &q[k], &v[k], NULL, NULL));
      PetscCall(NaturalAll(sys[k], X[k], &Xa[k]));
      PetscCall(NaturalAll(sys[k], q[k], &qa[k]));
      PetscCall(NaturalAll(sys[k], v[k], &va[k]));
      PetscCall(VecGetSize(Xa[k], &N[k]));
    }
    PetscCall(VecGetLocalSize(X[0], &nloc));
    PetscCall(MPIU_Allreduce(&nloc, &nmin, 1, MPIU_INT, MPI_MIN, PETSC_COMM_WORLD));
    CHECK(N[0] == N[1] && nmin > 0, "%s: %" PetscInt_FMT " unknowns on %d ranks, %" PetscInt_FMT " on one; fewest on a rank %" PetscInt_FMT "\n", kindname[e], N[0], size, N[1], nmin);
    if (N[0] == N[1]) {
      PetscCall(VecGetArrayRead(Xa[0], &x0));
      PetscCall(VecGetArrayRead(Xa[1], &x1));
      PetscCall(VecGetArrayRead(qa[0], &a0));
      PetscCall(VecGetArrayRead(qa[1], &a1));
      PetscCall(VecGetArrayRead(va[0], &b0));
      PetscCall(VecGetArrayRead(va[1], &b1));
      for (PetscInt i = 0; i < N[0]; i++) {
        xdiff = PetscMax(xdiff, PetscAbsReal(x0[i] - x1[i]));
        num += PetscSqr(a0[i] - x0[i] - (a1[i] - x1[i])) + PetscSqr(b0[i] - b1[i]);
        den += PetscSqr(a1[i] - x1[i]) + PetscSqr(b1[i]);
      }
      PetscCall(VecRestoreArrayRead(Xa[0], &x0));
      PetscCall(VecRestoreArrayRead(Xa[1], &x1));
      PetscCall(VecRestoreArrayRead(qa[0], &a0));
      PetscCall(VecRestoreArrayRead(qa[1], &a1));
      PetscCall(VecRestoreArrayRead(va[0], &b0));
      PetscCall(VecRestoreArrayRead(va[1], &b1));
    }
    num = den > 0 ? PetscSqrtReal(num / den) : PETSC_INFINITY;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &num, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &xdiff, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ranks: %s, %d ranks against 1 in the I/O order, 50 midpoint2 steps: reference positions differ by %.1e, |(u, v) - (u, v)_serial| / |(u, v)_serial| = %.2e\n", kindname[e], size, (double)xdiff, (double)num));
    CHECK(xdiff == 0, "%s: the I/O order differs between %d ranks and 1 (reference positions %.2e apart)\n", kindname[e], size, (double)xdiff);
    CHECK(num <= 1e-10, "%s: %d ranks differ from 1 by %.2e\n", kindname[e], size, (double)num);
    for (int k = 0; k < 2; k++) {
      PetscCall(VecDestroy(&X[k]));
      PetscCall(VecDestroy(&q[k]));
      PetscCall(VecDestroy(&v[k]));
      PetscCall(VecDestroy(&Xa[k]));
      PetscCall(VecDestroy(&qa[k]));
      PetscCall(VecDestroy(&va[k]));
      PetscCall(MechSystemDestroy(&sys[k]));
    }
  }
  PetscFunctionReturn(0);
}

/*
  The cantilever's first bending frequency (1 x 0.1 x 0.1, E = 1, nu = 0, rho = 1, clamped at
  x = 0) by inverse iteration on K0 x = omega^2 M x (the fixed dofs' rows and columns of K0 get a
  large diagonal), started from a transverse field along (0, 1, -1)
*/
static PetscErrorCode BendingFrequency(const char kind[], PetscInt nx, PetscInt nyz, PetscReal *f1, PetscInt *ndofs)
{
  MechSystem sys;
  Mat        K, M;
  Vec        q, v, x, y, d;
  KSP        ksp;
  PC         pc;
  IS         fixed;
  PetscReal  lam = 0, dmax;
  char       opts[512];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_beam_cells %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT " -solid_beam_size 1,0.1,0.1 -solid_material linear -solid_E 1 -solid_nu 0 -solid_density 1 -solid_g 0,0,0", kind, nx, nyz, nyz));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(VecGetSize(q, ndofs));
  PetscCall(MechSystemCreateOperator(sys, &K));
  PetscCall(MechSystemComputeOperator(sys, 0, q, v, 1, 0, 0, K));
  PetscCall(MechSystemGetMass(sys, &M));
  PetscCall(MechSystemGetFixed(sys, &fixed));
  PetscCall(VecDuplicate(q, &d));
  PetscCall(MatGetDiagonal(K, d));
  PetscCall(VecMax(d, NULL, &dmax));
  PetscCall(VecDestroy(&d));
  PetscCall(MatZeroRowsColumnsIS(K, fixed, 1e3 * dmax, NULL, NULL));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, "bend_"));
  PetscCall(KSPSetOperators(ksp, K, K));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCCHOLESKY));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecDuplicate(q, &x));
  PetscCall(VecDuplicate(q, &y));
  PetscCall(VecSet(x, 0));
  PetscCall(VecStrideSet(x, 1, 1.0));
  PetscCall(VecStrideSet(x, 2, -1.0));
  for (PetscInt it = 0; it < 40; it++) {
    PetscScalar xKx, xMx;

    PetscCall(VecISSet(x, fixed, 0.0));
    PetscCall(MatMult(M, x, y));
    PetscCall(VecISSet(y, fixed, 0.0));
    PetscCall(KSPSolve(ksp, y, x));
    PetscCall(VecISSet(x, fixed, 0.0));
    PetscCall(MatMult(K, x, y));
    PetscCall(VecDot(x, y, &xKx));
    PetscCall(MatMult(M, x, y));
    PetscCall(VecDot(x, y, &xMx));
    lam = PetscRealPart(xKx / xMx);
    PetscCall(VecScale(x, 1 / PetscSqrtReal(PetscRealPart(xMx))));
  }
  *f1 = PetscSqrtReal(lam) / (2 * PETSC_PI);
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&K));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/*
  Quadratic elements on 8 x 1 x 1 boxes within 1 % of the converged frequency (the Q2 hexahedra on
  32 x 4 x 4 boxes, themselves within 1e-4 of the 16 x 2 x 2 ones), from above, and P1 tetrahedra
  locking (100 % above on 8 x 1 x 1); with -bending_table every element on 4 meshes and the
  observed rates of |f - f_ref|
*/
static PetscErrorCode TestBending(PetscBool table)
{
  const PetscReal b = 0.1, fEB = 1.8751040687119611 * 1.8751040687119611 / (2 * PETSC_PI) * PetscSqrtReal(b * b / 12 / PetscPowReal(1.0, 4));
  PetscReal       fref, f16, fconv, f[NKIND][4];
  PetscInt        nd;

  PetscFunctionBegin;
  PetscCall(BendingFrequency(kinds[3], 32, 4, &fref, &nd));
  PetscCall(BendingFrequency(kinds[3], 16, 2, &f16, &nd));
  /* Q2 eigenvalues converge as h^4: Richardson's extrapolation of the two (the table's rates) */
  fconv = fref - (f16 - fref) / 15;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bending reference: Q2 hexahedra 32 x 4 x 4 f1 = %.8f (16 x 2 x 2: %.8f, %+.2e; extrapolated %.8f), Euler-Bernoulli %.8f (%+.3e)\n", (double)fref, (double)f16, (double)(f16 / fref - 1), (double)fconv, (double)fEB, (double)(fref / fEB - 1)));
  CHECK(PetscAbsReal(f16 / fref - 1) <= 1e-4, "the reference frequency is not converged: 16 x 2 x 2 %.8f, 32 x 4 x 4 %.8f\n", (double)f16, (double)fref);
  for (PetscInt e = 0; e < NKIND; e++) {
    /* the table: 3 meshes (P1 tetrahedra 4: they converge slowly) */
    const PetscInt nmesh = table ? (e == 0 ? 4 : 3) : 1;

    for (PetscInt k = 0; k < nmesh; k++) {
      PetscLogDouble t0, t1;

      PetscCall(PetscTime(&t0));
      PetscCall(BendingFrequency(kinds[e], 8 << k, 1 << k, &f[e][k], &nd));
      PetscCall(PetscTime(&t1));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bending %s %3d x %d x %d boxes, %7" PetscInt_FMT " unknowns: f1 = %.8f, against the converged %+.3e, against Euler-Bernoulli %+.3e (%.2f s)", kindname[e], 8 << k, 1 << k, 1 << k, nd, (double)f[e][k], (double)(f[e][k] / fconv - 1), (double)(f[e][k] / fEB - 1), (double)(t1 - t0)));
      if (k) PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", observed rate %.2f", (double)(PetscLog2Real((f[e][k - 1] - fconv) / (f[e][k] - fconv)))));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
    }
  }
  CHECK(f[1][0] >= fref && f[1][0] / fref - 1 <= 1e-2, "P2 tetrahedra on 8 x 1 x 1: f1 %.8f, %+.2e from the converged %.8f (1 %% allowed)\n", (double)f[1][0], (double)(f[1][0] / fref - 1), (double)fref);
  CHECK(f[3][0] >= fref && f[3][0] / fref - 1 <= 1e-2, "Q2 hexahedra on 8 x 1 x 1: f1 %.8f, %+.2e from the converged %.8f (1 %% allowed)\n", (double)f[3][0], (double)(f[3][0] / fref - 1), (double)fref);
  CHECK(f[0][0] / fref - 1 >= 0.5, "P1 tetrahedra on 8 x 1 x 1 should lock (f1 %.8f, %+.2e)\n", (double)f[0][0], (double)(f[0][0] / fref - 1));
  PetscFunctionReturn(0);
}

/*
  The matrix-free operator J = cK K + cD D + cM M (with the mass and Rayleigh's alpha M inside the
  hexahedra's sum-factorized action, src/models/solid/sumfact.c) against the assembled one on
  hexahedra that are not parallelepipeds (J per point): Cook's membrane of 2 x 2 trilinear cells
  (tests/solid/cook_mesh.py 2, hex and hex27) and the hex27 mesh with one edge node moved (curved:
  4 points per direction, the mass applied by its own matrix), clamped at x = 0, on any number of ranks
*/
static PetscErrorCode TestActionMeshes(const char dir[])
{
  const char *mesh[] = {"cook2_hex8.msh", "cook2_hex27.msh", "cook2_hex27_curved.msh"}, *order[] = {"1", "2", "2"}, *mats[] = {"linear", "svk", "neohookean"};
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscCall(FDRandomCreate(PETSC_COMM_WORLD, 11, &rnd));
  for (PetscInt f = 0; f < 3; f++)
    for (PetscInt m = 0; m < 3; m++) {
      MechSystem sys;
      Vec        q, v;
      PetscReal  erra, n2;
      char       opts[PETSC_MAX_PATH_LEN + 256];

      PetscCall(PetscSNPrintf(opts, sizeof(opts), "-solid_mesh %s/%s -solid_order %s -solid_material %s -solid_E 1 -solid_density 1 -solid_g 0,0,0 -solid_rayleigh 0.3,0.02 -solid_fix x=0", dir, mesh[f], order[f], mats[m]));
      PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
      PetscCall(FDRandomState(sys, rnd, 0.03, &q, &v));
      PetscCall(FDCheckOperatorShell(sys, 0.25, q, v, 0.7, 1.3, 2.1, rnd, &erra, &n2));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "action %-22s %-10s |action - assembled| %.2e\n", mesh[f], mats[m], (double)erra));
      CHECK(erra <= 1e-13 && n2 > 0, "%s %s: the matrix-free operator differs from the assembled one by %.2e\n", mesh[f], mats[m], (double)erra);
      PetscCall(VecDestroy(&q));
      PetscCall(VecDestroy(&v));
      PetscCall(MechSystemDestroy(&sys));
    }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

/*
  Benchmark modes (bench/solid_order.py): -bending_one (-bending_kind k -bending_nx n -bending_nyz m)
  prints one frequency and its time; -bench_action (-bench_kind k -bench_material name
  -bench_cells a,b,c -bench_reps n, -bench_matrix_free_only) times, per unknown, the force, the assembly of the tangent,
  the matrix-free action and the assembled product at a deformed state (CPU time), the matrix's size,
  and the matrix-free operator M + K of a step (the action and the consistent mass's product)
*/
static PetscErrorCode BenchOne(void)
{
  PetscInt       k = 1, nx = 8, nyz = 1, nd;
  PetscReal      f1;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bending_kind", &k, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bending_nx", &nx, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bending_nyz", &nyz, NULL));
  PetscCheck(k >= 0 && k < NKIND, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bending_kind %" PetscInt_FMT ": 0 to 3", k);
  PetscCall(PetscTime(&t0));
  PetscCall(BendingFrequency(kinds[k], nx, nyz, &f1, &nd));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bending_one %s f1 %.10f unknowns %" PetscInt_FMT " seconds %.3f\n", kindname[k], (double)f1, nd, (double)(t1 - t0)));
  PetscFunctionReturn(0);
}

/* The process's CPU time: on a machine shared with other jobs the wall time measures the load more than the kernels */
static PetscErrorCode BenchClock(PetscLogDouble *t)
{
  PetscFunctionBegin;
  *t = (PetscLogDouble)clock() / CLOCKS_PER_SEC;
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchAction(void)
{
  PetscInt       k = 1, cells[3] = {16, 4, 4}, three = 3, reps = 20, N;
  char           mat[64] = "neohookean", opts[512];
  MechSystem     sys;
  Vec            q, v, w, y, f;
  Mat            A = NULL, S;
  PetscRandom    rnd;
  PetscLogDouble t[5];
  MatInfo        info   = {0};
  PetscBool      mfonly = PETSC_FALSE; /* -bench_matrix_free_only: the matrix-free operator alone (no assembly, no product) */

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bench_kind", &k, NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-bench_cells", cells, &three, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bench_reps", &reps, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bench_material", mat, sizeof(mat), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-bench_matrix_free_only", &mfonly, NULL));
  PetscCheck(k >= 0 && k < NKIND, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_kind %" PetscInt_FMT ": 0 to 3", k);
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_beam_cells %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT " -solid_material %s -solid_output_stress false", kinds[k], cells[0], cells[1], cells[2], mat));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
  PetscCall(FDRandomCreate(PETSC_COMM_WORLD, 3, &rnd));
  PetscCall(FDRandomState(sys, rnd, 1e-3, &q, &v));
  PetscCall(VecGetSize(q, &N));
  PetscCall(VecDuplicate(q, &w));
  PetscCall(VecDuplicate(q, &y));
  PetscCall(VecDuplicate(q, &f));
  PetscCall(VecSetRandom(w, rnd));
  if (!mfonly) PetscCall(MechSystemCreateOperator(sys, &A));
  PetscCall(MechSystemCreateOperatorShell(sys, &S));
  PetscCall(BenchClock(&t[0]));
  for (PetscInt r = 0; r < reps && !mfonly; r++) PetscCall(MechSystemComputeForce(sys, 0, q, v, f));
  PetscCall(BenchClock(&t[1]));
  for (PetscInt r = 0; r < reps && !mfonly; r++) PetscCall(MechSystemComputeOperator(sys, 0, q, v, 1, 0, 0, A));
  PetscCall(BenchClock(&t[2]));
  PetscCall(MechSystemLinearizeOperatorShell(sys, 0, q, v, 1, 0, 0, S));
  PetscCall(BenchClock(&t[3]));
  for (PetscInt r = 0; r < reps; r++) PetscCall(MatMult(S, w, y));
  PetscCall(BenchClock(&t[4]));
  {
    PetscLogDouble tm0, tm1, tj0, tj1;

    PetscCall(BenchClock(&tm0));
    for (PetscInt r = 0; r < reps && !mfonly; r++) PetscCall(MatMult(A, w, y));
    PetscCall(BenchClock(&tm1));
    if (!mfonly) PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
    /* the operator of a step, M + K, matrix-free: the action plus the product with the assembled consistent mass */
    PetscCall(MechSystemLinearizeOperatorShell(sys, 0, q, v, 1, 0, 1, S));
    PetscCall(BenchClock(&tj0));
    for (PetscInt r = 0; r < reps; r++) PetscCall(MatMult(S, w, y));
    PetscCall(BenchClock(&tj1));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bench_action %s %s unknowns %" PetscInt_FMT " force_ns %.1f assembly_ns %.1f linearize_ns %.1f action_ns %.1f matmult_ns %.1f nnz %.0f nnz_per_row %.1f operator_ns %.1f\n", kindname[k], mat, N, 1e9 * (t[1] - t[0]) / reps / N, 1e9 * (t[2] - t[1]) / reps / N, 1e9 * (t[3] - t[2]) / N, 1e9 * (t[4] - t[3]) / reps / N, 1e9 * (tm1 - tm0) / reps / N, info.nz_used, info.nz_used / N, 1e9 * (tj1 - tj0) / reps / N));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&f));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&S));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscBool   mpi = PETSC_FALSE, table = PETSC_FALSE, one = PETSC_FALSE, action = PETSC_FALSE, hasdir;
  PetscMPIInt size;
  char        dir[PETSC_MAX_PATH_LEN];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-mpi", &mpi, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-bending_table", &table, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-bending_one", &one, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-bench_action", &action, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dir", dir, sizeof(dir), &hasdir));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (one) PetscCall(BenchOne());
  else if (action) PetscCall(BenchAction());
  else if (table) PetscCall(TestBending(PETSC_TRUE));
  else if (mpi) {
    PetscCall(TestTangents());
    PetscCall(TestPatch());
    PetscCall(TestRanks());
    if (hasdir) PetscCall(TestActionMeshes(dir));
  } else {
    PetscCall(TestTangents());
    PetscCall(TestPatch());
    PetscCall(TestConservation());
    PetscCall(TestBending(PETSC_FALSE));
    if (hasdir) PetscCall(TestActionMeshes(dir));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failures\n", failures ? "FAILED" : "passed", failures));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
