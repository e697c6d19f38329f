static const char help[] = "Tests of the solid model: tangents, patch tests, conservation, rank independence, physics, equivalences, bad meshes.\n";

/*
  Every check prints its measured number and counts a failure when it misses its bound:

  tangents      K and D (Rayleigh damping) of each material against central differences of f
                at a random deformed state (<= 1e-6 relative), f against the potential, the
                linear material exactly linear; the tangent action equals the assembled tangent
                (<= 1e-13).
  patch         rigid translation and a 90 degree rotation give zero force (svk, neohookean); a
                uniform deformation gradient F gives the exact P(F) of each material, read off
                from f . w = V P : A along the affine fields w = A X; linear = svk to first order.
  conservation  a free spinning body under midpoint2 keeps its linear and angular momentum over
                1000 steps (<= 1e-10 relative); the linear material keeps its energy to solver
                tolerance under midpoint2 and loses it under beuler2.
  ranks         (run with -mpi on several ranks) the final state equals that of the same run on
                one rank, vertex by vertex (<= 1e-10 relative).
  physics       the axial period of a fixed-free bar with nu = 0 against 4 L / c; the first
                bending frequency of the cantilever (inverse iteration on K x = omega^2 M x)
                above Euler-Bernoulli's and converging to it under refinement; the same in the
                time domain (zero crossings of the tip of the beam swinging under midpoint2), on
                4 meshes: from above, monotone, observed rates in [1.4, 2.5], equal to the inverse
                iteration's through the midpoint rule's period elongation (<= 1e-3).
  equivalence   midpoint2 = TSALPHA2 (radius 1), beuler2 = TSBEULER and cn2 = TSCN on the
                first-order form, on a small neo-Hookean beam.
  formats       the beam in Gmsh 4.1 ASCII, 4.1 binary and 2.2 binary gives the final state of
                beam.msh (2.2 ASCII) on one rank (<= 1e-12), on one rank and with -mpi on several.
  inversion     the inverted element's number is the same on any ranks (built-in beam: its box;
                beam.msh: computed from the file); a neo-Hookean element inverting in a step
                fails it with a fixed step (state finite, element named) and is rejected and
                retried under TSAdapt basic (the run completes, nothing inverted), on 1, 2, 3 ranks.
  meshes        2-D, hexahedral, inverted and missing mesh files are refused with the right
                message (files in this directory, -dir).
*/
#include <petscdmplex.h>
#include "fdcheck.h"
#include "testutil.h"

static PetscInt failures = 0;

#define CHECK(cond, ...) TestCount(failures, cond, __VA_ARGS__)

#define NMAT 6
static const char *const materials[NMAT] = {"linear", "svk", "neohookean", "neohookean_split", "mooney_rivlin", "yeoh"};
/* the materials' moduli: E = 1, nu = 0.3 for all but Mooney-Rivlin and Yeoh (c1, c2 and kappa of their own) */
static const char *const moduli[NMAT] = {"-solid_E 1 -solid_nu 0.3", "-solid_E 1 -solid_nu 0.3", "-solid_E 1 -solid_nu 0.3", "-solid_E 1 -solid_nu 0.3", "-solid_c1 0.15 -solid_c2 0.05 -solid_kappa 1.2", "-solid_c1 0.15 -solid_c2 0.05 -solid_kappa 1.2"};
/* a small free beam, 3 x 2 x 2 boxes (72 tetrahedra), unit-size moduli */
static const char small[] = "-solid_beam_cells 3,2,2 -solid_beam_size 1,0.5,0.4 -solid_E 1 -solid_nu 0.3 -solid_density 1 -solid_g 0,0,0";
/* the same without moduli (given per material: moduli[]) */
static const char smallgeom[] = "-solid_beam_cells 3,2,2 -solid_beam_size 1,0.5,0.4 -solid_density 1 -solid_g 0,0,0";

static PetscErrorCode TestTangents(void)
{
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscCall(FDRandomCreate(PETSC_COMM_WORLD, 7, &rnd));
  for (PetscInt m = 0; m < NMAT; m++) {
    MechSystem sys;
    Vec        q, v, w, y1, y2;
    Mat        A, S;
    PetscReal  errK, errD, errL, errV, erra, n2;
    PetscBool  linear, sym;
    char       opts[512];

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s -solid_material %s -solid_rayleigh 0.3,0.02 -solid_fix x=0 -solid_g 1,2,-3", smallgeom, moduli[m], materials[m]));
    PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
    PetscCall(FDRandomState(sys, rnd, 0.03, &q, &v));
    PetscCall(FDCheckTangents(sys, q, v, rnd, 1e-6, 1e-6, &errK, &errD, &linear, &errL, &sym));
    PetscCall(FDCheckPotential(sys, q, rnd, 1e-4, 4, &errV));
    /* the tangent action against the assembled operator, at the same state and coefficients */
    PetscCall(MechSystemCreateOperator(sys, &A));
    PetscCall(MechSystemCreateOperatorShell(sys, &S));
    PetscCall(MechSystemComputeOperator(sys, 0.25, q, v, 0.7, 1.3, 2.1, A));
    PetscCall(MechSystemLinearizeOperatorShell(sys, 0.25, q, v, 0.7, 1.3, 2.1, S));
    PetscCall(VecDuplicate(q, &w));
    PetscCall(VecDuplicate(q, &y1));
    PetscCall(VecDuplicate(q, &y2));
    PetscCall(VecSetRandom(w, rnd));
    PetscCall(MatMult(A, w, y1));
    PetscCall(MatMult(S, w, y2));
    PetscCall(FDRelativeError(y2, y1, w, &erra));
    PetscCall(VecNorm(y1, NORM_2, &n2));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "tangents %-10s |K - FD| %.2e  |D - FD| %.2e  %s%.2e  symmetric %s  |f - dV| %.2e  |action - assembled| %.2e\n", materials[m], (double)errK, (double)errD, linear ? "linear step 1: " : "(nonlinear) ", (double)errL, sym ? "yes" : "no", (double)errV, (double)erra));
    CHECK(errK <= 1e-6 && errD <= 1e-6, "%s tangent errors %.2e %.2e > 1e-6\n", materials[m], (double)errK, (double)errD);
    CHECK(errV <= 1e-6, "%s force is not the gradient of the potential: %.2e\n", materials[m], (double)errV);
    CHECK(sym, "%s tangent not symmetric\n", materials[m]);
    CHECK(erra <= 1e-13 && n2 > 0, "%s tangent action differs from the assembled tangent by %.2e\n", materials[m], (double)erra);
    CHECK((m == 0) == (linear == PETSC_TRUE), "%s: declared %s\n", materials[m], linear ? "linear" : "nonlinear");
    CHECK(m != 0 || errL <= 1e-9, "linear material not linear: %.2e\n", (double)errL);
    {
      MatNullSpace nsp;
      PetscInt     bs;

      PetscCall(MatGetNearNullSpace(A, &nsp));
      PetscCall(MatGetBlockSize(A, &bs));
      CHECK(nsp != NULL, "%s: no near-null space on the operator\n", materials[m]);
      CHECK(bs == 3, "%s: operator block size %" PetscInt_FMT "\n", materials[m], bs);
    }
    PetscCall(VecDestroy(&w));
    PetscCall(VecDestroy(&y1));
    PetscCall(VecDestroy(&y2));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&S));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(MechSystemDestroy(&sys));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

/*
  The energy densities of the isochoric-volumetric materials, written independently of the model:
  neohookean_split at E = 1, nu = 0.3 (mu = 1/2.6, kappa = 1/1.2), mooney_rivlin and yeoh at
  c1 = 0.15, c2 = 0.05, kappa = 1.2 (yeoh: c1 (I1b - 3) + c2 (I1b - 3)^2, I1b = J^-2/3 I1)
*/
static PetscReal ExactEnergy(PetscInt m, const PetscReal F[9])
{
  const PetscReal c1 = m == 3 ? 0.5 / 2.6 : 0.15, c2 = m == 3 ? 0 : 0.05, kappa = m == 3 ? 1 / 1.2 : 1.2;
  PetscReal       C[9], I1 = 0, trC2 = 0, I2, J;

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      C[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) C[3 * i + j] += F[3 * k + i] * F[3 * k + j];
    }
  for (int i = 0; i < 3; i++) I1 += C[4 * i];
  for (int i = 0; i < 9; i++) trC2 += C[i] * C[i];
  I2 = 0.5 * (I1 * I1 - trC2);
  J  = F[0] * (F[4] * F[8] - F[5] * F[7]) - F[1] * (F[3] * F[8] - F[5] * F[6]) + F[2] * (F[3] * F[7] - F[4] * F[6]);
  if (m == 5) return c1 * (PetscPowReal(J, -2.0 / 3) * I1 - 3) + c2 * PetscSqr(PetscPowReal(J, -2.0 / 3) * I1 - 3) + kappa / 4 * (J * J - 1 - 2 * PetscLogReal(J));
  return c1 * (PetscPowReal(J, -2.0 / 3) * I1 - 3) + c2 * (PetscPowReal(J, -4.0 / 3) * I2 - 3) + kappa / 4 * (J * J - 1 - 2 * PetscLogReal(J));
}

/* Stress of the materials, written independently of the model (mu = E / 2.6, lambda = E 0.3 / 0.52 at E = 1, nu = 0.3) */
static void ExactStress(PetscInt m, const PetscReal F[9], PetscReal P[9])
{
  const PetscReal mu = 1 / 2.6, la = 0.3 / (1.3 * 0.4);
  PetscReal       C[9], E[9], S[9], J, Finv[9], tr = 0;

  if (m >= 3) {
    /* P = dW/dF by fourth-order central differences of the energy */
    const PetscReal h = 1e-3;

    for (int k = 0; k < 9; k++) {
      PetscReal       Fp[9], W[4];
      const PetscReal d[4] = {2 * h, h, -h, -2 * h};

      for (int s = 0; s < 4; s++) {
        for (int i = 0; i < 9; i++) Fp[i] = F[i];
        Fp[k] += d[s];
        W[s] = ExactEnergy(m, Fp);
      }
      P[k] = (-W[0] + 8 * W[1] - 8 * W[2] + W[3]) / (12 * h);
    }
    return;
  }

  if (m == 0) {
    for (int i = 0; i < 3; i++) tr += F[4 * i] - 1;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) P[3 * i + j] = mu * (F[3 * i + j] + F[3 * j + i] - 2 * (i == j)) + la * tr * (i == j);
    return;
  }
  if (m == 1) {
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        C[3 * i + j] = 0;
        for (int k = 0; k < 3; k++) C[3 * i + j] += F[3 * k + i] * F[3 * k + j];
        E[3 * i + j] = 0.5 * (C[3 * i + j] - (i == j));
      }
    tr = E[0] + E[4] + E[8];
    for (int i = 0; i < 9; i++) S[i] = 2 * mu * E[i] + (i % 4 == 0 ? la * tr : 0);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) P[3 * i + j] = F[3 * i] * S[j] + F[3 * i + 1] * S[3 + j] + F[3 * i + 2] * S[6 + j];
    return;
  }
  J       = F[0] * (F[4] * F[8] - F[5] * F[7]) - F[1] * (F[3] * F[8] - F[5] * F[6]) + F[2] * (F[3] * F[7] - F[4] * F[6]);
  Finv[0] = (F[4] * F[8] - F[5] * F[7]) / J;
  Finv[1] = (F[2] * F[7] - F[1] * F[8]) / J;
  Finv[2] = (F[1] * F[5] - F[2] * F[4]) / J;
  Finv[3] = (F[5] * F[6] - F[3] * F[8]) / J;
  Finv[4] = (F[0] * F[8] - F[2] * F[6]) / J;
  Finv[5] = (F[2] * F[3] - F[0] * F[5]) / J;
  Finv[6] = (F[3] * F[7] - F[4] * F[6]) / J;
  Finv[7] = (F[1] * F[6] - F[0] * F[7]) / J;
  Finv[8] = (F[0] * F[4] - F[1] * F[3]) / J;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) P[3 * i + j] = mu * (F[3 * i + j] - Finv[3 * j + i]) + la * PetscLogReal(J) * Finv[3 * j + i];
}

/* y = A x + c per vertex (x: the reference positions X) */
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

static PetscErrorCode TestPatch(void)
{
  const PetscReal Id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, R[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1}, zero[3] = {0, 0, 0}, shift[3] = {0.3, -2, 5};
  const PetscReal Fu[9] = {1.1, 0.05, -0.02, 0.03, 0.95, 0.04, -0.01, 0.02, 1.02};
  const PetscReal V     = 1 * 0.5 * 0.4;

  PetscFunctionBegin;
  for (PetscInt m = 0; m < NMAT; m++) {
    MechSystem sys;
    Vec        X, v, q, f, w;
    PetscReal  nt, nr, Pex[9], Pm[9], perr = 0, pn = 0, scale;
    char       opts[512];

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s -solid_material %s -solid_fix none", smallgeom, moduli[m], materials[m]));
    PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
    PetscCall(MechSystemCreateState(sys, &X, &v));
    PetscCall(VecDuplicate(X, &q));
    PetscCall(VecDuplicate(X, &f));
    PetscCall(VecDuplicate(X, &w));
    /* the force scale of a unit strain: E times the surface of the body ~ V^(2/3) */
    scale = PetscPowReal(V, 2.0 / 3);
    PetscCall(AffineMap(X, Id, shift, q));
    PetscCall(MechSystemComputeForce(sys, 0, q, v, f));
    PetscCall(VecNorm(f, NORM_INFINITY, &nt));
    PetscCall(AffineMap(X, R, shift, q));
    PetscCall(MechSystemComputeForce(sys, 0, q, v, f));
    PetscCall(VecNorm(f, NORM_INFINITY, &nr));
    /* the uniform F: f . w = V P : A for w = A X, A = e_i e_j^T */
    PetscCall(AffineMap(X, Fu, zero, q));
    PetscCall(MechSystemComputeForce(sys, 0, q, v, f));
    ExactStress(m, Fu, Pex);
    for (int k = 0; k < 9; k++) {
      PetscReal   A[9] = {0};
      PetscScalar d;

      A[k] = 1;
      PetscCall(AffineMap(X, A, zero, w));
      PetscCall(VecDot(f, w, &d));
      Pm[k] = PetscRealPart(d) / V;
      perr  = PetscMax(perr, PetscAbsReal(Pm[k] - Pex[k]));
      pn    = PetscMax(pn, PetscAbsReal(Pex[k]));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "patch %-10s |f| translation %.2e  rotation 90 deg %.2e (relative to E L^2)  uniform F: |P - P_exact| / |P| = %.2e\n", materials[m], (double)(nt / scale), (double)(nr / scale), (double)(perr / pn)));
    CHECK(nt / scale <= 1e-13, "%s: a translation gives a force %.2e\n", materials[m], (double)(nt / scale));
    CHECK(m == 0 || nr / scale <= 1e-13, "%s: a rotation gives a force %.2e\n", materials[m], (double)(nr / scale));
    /* negative control: small-strain elasticity is not rotation invariant */
    CHECK(m != 0 || nr / scale > 1e-2, "linear: a 90 degree rotation should stress the body, got %.2e\n", (double)(nr / scale));
    /* the isochoric materials' exact P comes from differences of their energy: 1e-9 */
    CHECK(perr / pn <= (m < 3 ? 1e-12 : 1e-9), "%s: uniform F gives P off by %.2e\n", materials[m], (double)(perr / pn));
    PetscCall(VecDestroy(&X));
    PetscCall(VecDestroy(&v));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&f));
    PetscCall(VecDestroy(&w));
    PetscCall(MechSystemDestroy(&sys));
  }
  /* both mass matrices carry the body's mass rho V along each direction; lumped is diagonal */
  for (PetscInt k = 0; k < 2; k++) {
    MechSystem sys;
    Mat        M;
    Vec        one, Mone;
    PetscReal  total, offdiag;
    char       opts[512];

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_mass %s -solid_fix none", small, k ? "lumped" : "consistent"));
    PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
    PetscCall(MechSystemGetMass(sys, &M));
    PetscCall(MatCreateVecs(M, &one, &Mone));
    PetscCall(VecSet(one, 1.0));
    PetscCall(MatMult(M, one, Mone));
    PetscCall(VecSum(Mone, &total));
    PetscCall(MatGetDiagonal(M, one));
    PetscCall(VecAXPY(Mone, -1.0, one));
    PetscCall(VecNorm(Mone, NORM_INFINITY, &offdiag));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "patch %-10s mass: total %.15g (expected 3 rho V = %.15g), off-diagonal row sums %.2e\n", k ? "lumped" : "consistent", (double)total, (double)(3 * V), (double)offdiag));
    CHECK(PetscAbsReal(total - 3 * V) <= 1e-14, "%s mass total %.15g\n", k ? "lumped" : "consistent", (double)total);
    CHECK(k ? offdiag == 0 : offdiag > 0, "%s mass: off-diagonal row sums %.2e\n", k ? "lumped" : "consistent", (double)offdiag);
    PetscCall(VecDestroy(&one));
    PetscCall(VecDestroy(&Mone));
    PetscCall(MechSystemDestroy(&sys));
  }
  /* linear = svk to first order: their difference is O(eps^2) at a displacement eps r */
  {
    MechSystem  lin, svk;
    Vec         X, v, q, r, fl, fs;
    PetscRandom rnd;
    PetscReal   rel[2];
    char        opts[512];

    /* on one rank: two systems distributed separately need not share a vertex layout */
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_material linear -solid_fix none", small));
    PetscCall(TestCreateModel(PETSC_COMM_SELF, "solid", opts, &lin));
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_material svk -solid_fix none", small));
    PetscCall(TestCreateModel(PETSC_COMM_SELF, "solid", opts, &svk));
    PetscCall(FDRandomCreate(PETSC_COMM_SELF, 11, &rnd));
    PetscCall(MechSystemCreateState(lin, &X, &v));
    PetscCall(VecDuplicate(X, &q));
    PetscCall(VecDuplicate(X, &r));
    PetscCall(VecDuplicate(X, &fl));
    PetscCall(VecDuplicate(X, &fs));
    PetscCall(VecSetRandom(r, rnd));
    for (int k = 0; k < 2; k++) {
      const PetscReal eps = k ? 1e-5 : 1e-3;

      PetscCall(VecWAXPY(q, eps, r, X));
      PetscCall(MechSystemComputeForce(lin, 0, q, v, fl));
      PetscCall(MechSystemComputeForce(svk, 0, q, v, fs));
      PetscCall(FDRelativeError(fs, fl, q, &rel[k]));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "patch linear vs svk (one rank): |f_svk - f_lin| / |f_lin| = %.2e at strain 1e-3, %.2e at 1e-5 (first order: ratio %.0f, expected ~100)\n", (double)rel[0], (double)rel[1], (double)(rel[0] / rel[1])));
    CHECK(rel[0] < 1e-1 && rel[1] < 1e-3 && rel[0] / rel[1] > 30, "linear and svk do not agree to first order: %.2e, %.2e\n", (double)rel[0], (double)rel[1]);
    PetscCall(VecDestroy(&X));
    PetscCall(VecDestroy(&v));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&r));
    PetscCall(VecDestroy(&fl));
    PetscCall(VecDestroy(&fs));
    PetscCall(PetscRandomDestroy(&rnd));
    PetscCall(MechSystemDestroy(&lin));
    PetscCall(MechSystemDestroy(&svk));
  }
  PetscFunctionReturn(0);
}

static const char tight[] = "-snes_rtol 1e-14 -snes_atol 1e-13 -snes_stol 0 -snes_max_it 30 -ksp_type gmres -ksp_rtol 1e-15 -ksp_atol 1e-16 -ksp_max_it 2000 -pc_type jacobi";

/* The invariants (6 momenta) and the energy of sys at (q, v) */
static PetscErrorCode Invariants(MechSystem sys, Vec q, Vec v, PetscReal mom[6], PetscReal *energy)
{
  PetscReal K, V;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < 6; i++) PetscCall(MechSystemComputeInvariant(sys, i, 0, q, v, NULL, &mom[i]));
  PetscCall(MechSystemComputeEnergy(sys, 0, q, v, &K, &V));
  *energy = K + V;
  PetscFunctionReturn(0);
}

/*
  A free body (no fixed vertex, no gravity, no damping). The spin is a strain-free motion for the
  linear material (its infinitesimal rotation), so the linear cases start instead from a random
  velocity field, which deforms the body.
*/
static PetscErrorCode TestConservation(void)
{
  const char spin[] = "-solid_beam_cells 3,2,2 -solid_beam_size 1,0.5,0.4 -solid_E 100 -solid_density 1 -solid_g 0,0,0 -solid_fix none -solid_v0 0.3,-0.2,0.1 -solid_spin 0.5,1,3";
  const struct {
    const char *mat, *type;
    PetscBool   randomv;
  } cases[] = {
      {"linear",     TSMIDPOINT2, PETSC_TRUE },
      {"svk",        TSMIDPOINT2, PETSC_FALSE},
      {"neohookean", TSMIDPOINT2, PETSC_FALSE},
      {"linear",     TSBEULER2,   PETSC_TRUE },
  };
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscCall(FDRandomCreate(PETSC_COMM_WORLD, 5, &rnd));
  for (size_t m = 0; m < sizeof(cases) / sizeof(cases[0]); m++) {
    MechSystem sys;
    Vec        q0, v0, q, v;
    PetscReal  m0[6], m1[6], e0, e1, pn = 0, ln = 0, dp = 0, dl = 0;
    char       opts[512];

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_material %s", spin, cases[m].mat));
    PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
    PetscCall(MechSystemCreateState(sys, &q0, &v0));
    if (cases[m].randomv) {
      PetscCall(VecSetRandom(v0, rnd));
      PetscCall(VecScale(v0, 0.3));
      PetscCall(MechSystemSetInitialState(sys, q0, v0));
    }
    PetscCall(Invariants(sys, q0, v0, m0, &e0));
    PetscCall(TestIntegrate(sys, cases[m].type, tight, 0.01, 10.0, &q, &v, NULL, NULL));
    PetscCall(Invariants(sys, q, v, m1, &e1));
    for (int i = 0; i < 3; i++) {
      pn += m0[i] * m0[i];
      ln += m0[3 + i] * m0[3 + i];
      dp += PetscSqr(m1[i] - m0[i]);
      dl += PetscSqr(m1[3 + i] - m0[3 + i]);
    }
    dp = PetscSqrtReal(dp / pn);
    dl = PetscSqrtReal(dl / ln);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "conservation %-10s %-9s %s, 1000 steps: momentum drift %.2e, angular momentum drift %.2e, energy %.6e -> %.6e (relative change %.2e)\n", cases[m].mat, cases[m].type, cases[m].randomv ? "random v0" : "spin     ", (double)dp, (double)dl, (double)e0, (double)e1, (double)((e1 - e0) / e0)));
    CHECK(dp <= 1e-10, "%s %s: linear momentum drift %.2e\n", cases[m].mat, cases[m].type, (double)dp);
    /* small-strain elasticity is not rotation invariant: its angular momentum is not conserved */
    if (!cases[m].randomv) CHECK(dl <= 1e-10, "%s %s: angular momentum drift %.2e\n", cases[m].mat, cases[m].type, (double)dl);
    if (m == 0) CHECK(PetscAbsReal(e1 - e0) <= 1e-10 * e0, "linear midpoint2: energy drift %.2e\n", (double)((e1 - e0) / e0));
    if (m == 3) CHECK(e1 < 0.9 * e0, "linear beuler2: energy did not decrease (%.6e -> %.6e)\n", (double)e0, (double)e1);
    PetscCall(VecDestroy(&q0));
    PetscCall(VecDestroy(&v0));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(MechSystemDestroy(&sys));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

/*
  The final states of the same midpoint2 run (50 steps of 2e-3, tight tolerances) of par (on all
  ranks) and ser (on each rank alone), compared vertex by vertex, the vertices matched by their
  reference positions to within `match` (0: equal): |(u, v) - (u, v)_ser| / |(u, v)_ser| over the
  matched vertices (the largest over the ranks; +Inf if ser is at rest), how many vertices of ser
  have no match (largest over the ranks; not counted if the sizes differ), the sizes of par and
  ser, and the fewest vertex entries a rank of par owns.
*/
static PetscErrorCode CompareWithSerial(MechSystem par, MechSystem ser, PetscReal match, PetscReal *rel, PetscInt *unmatched, PetscInt *N, PetscInt *n, PetscInt *nmin)
{
  Vec      X, Xs, v0, q, v, qs, vs, Xa, qa, va;
  PetscInt nloc;

  PetscFunctionBegin;
  PetscCall(MechSystemCreateState(par, &X, &v0));
  PetscCall(VecDestroy(&v0));
  PetscCall(MechSystemCreateState(ser, &Xs, &v0));
  PetscCall(VecDestroy(&v0));
  PetscCall(TestIntegrate(par, TSMIDPOINT2, tight, 2e-3, 0.1, &q, &v, NULL, NULL));
  PetscCall(TestIntegrate(ser, TSMIDPOINT2, tight, 2e-3, 0.1, &qs, &vs, NULL, NULL));
  PetscCall(VecGetLocalSize(X, &nloc));
  PetscCall(MPIU_Allreduce(&nloc, nmin, 1, MPIU_INT, MPI_MIN, PETSC_COMM_WORLD));
  PetscCall(TestGatherAll(X, &Xa));
  PetscCall(TestGatherAll(q, &qa));
  PetscCall(TestGatherAll(v, &va));
  PetscCall(VecGetSize(Xs, n));
  PetscCall(VecGetSize(Xa, N));
  PetscCall(TestCompareByPosition(Xa, qa, va, Xs, qs, vs, match, rel, unmatched));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&Xs));
  PetscCall(VecDestroy(&Xa));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&qs));
  PetscCall(VecDestroy(&vs));
  PetscCall(VecDestroy(&qa));
  PetscCall(VecDestroy(&va));
  PetscFunctionReturn(0);
}

/*
  The same run on all ranks and on one (each rank runs the serial twin): the final states are
  compared vertex by vertex, the vertices matched by their reference positions.
*/
static PetscErrorCode TestRanks(const char label[], const char opts[])
{
  MechSystem  par, ser;
  PetscInt    N, n, nmin, unmatched;
  PetscReal   num;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &par));
  PetscCall(TestCreateModel(PETSC_COMM_SELF, "solid", opts, &ser));
  PetscCall(CompareWithSerial(par, ser, 0.0, &num, &unmatched, &N, &n, &nmin));
  CHECK(nmin > 0, "%s: a rank owns no vertex: the mesh was not distributed\n", label);
  CHECK(N == n && !unmatched, "%s: %" PetscInt_FMT " vertices of the serial mesh are not in the distributed one\n", label, unmatched);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ranks: %d ranks against 1, %s, 50 midpoint2 steps: |(u, v) - (u, v)_serial| / |(u, v)_serial| = %.2e\n", size, label, (double)num));
  CHECK(num <= 1e-10, "%d ranks differ from 1 by %.2e\n", size, (double)num);
  PetscCall(MechSystemDestroy(&par));
  PetscCall(MechSystemDestroy(&ser));
  PetscFunctionReturn(0);
}

/*
  The same beam in other Gmsh formats: the final state of a run on the mesh `file` (on all ranks)
  equals that of the same run on beam.msh (format 2.2 ASCII) on one rank, vertex by vertex, the
  vertices matched by their reference positions (to 1e-14 of the beam's size: ASCII coordinates
  are written with 16 digits, binary ones exactly).
*/
static PetscErrorCode TestMeshFormat(const char dir[], const char file[])
{
  const char  run[] = "-solid_fix_label \"Face Sets\" -solid_fix_value 1 -solid_E 1e5 -solid_material svk -solid_v0 0,0,-0.5";
  MechSystem  par, ser;
  PetscInt    n, N, nmin, unmatched;
  PetscReal   num;
  PetscMPIInt size;
  char        opts[PETSC_MAX_PATH_LEN + 256];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-solid_mesh %s/../../examples/meshes/%s %s", dir, file, run));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &par));
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-solid_mesh %s/../../examples/meshes/beam.msh %s", dir, run));
  PetscCall(TestCreateModel(PETSC_COMM_SELF, "solid", opts, &ser));
  PetscCall(CompareWithSerial(par, ser, 1e-14, &num, &unmatched, &N, &n, &nmin));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "formats: %-18s on %d rank%s against beam.msh on 1, svk, 50 midpoint2 steps: %" PetscInt_FMT " vertices (beam.msh %" PetscInt_FMT "), %" PetscInt_FMT " unmatched, |(u, v) - (u, v)_beam.msh| / |(u, v)_beam.msh| = %.2e\n", file, size, size > 1 ? "s" : "", N / 3, n / 3, unmatched, (double)num));
  CHECK(N == n && !unmatched, "%s: %" PetscInt_FMT " vertices, %" PetscInt_FMT " not in beam.msh (%" PetscInt_FMT " vertices)\n", file, N / 3, unmatched, n / 3);
  CHECK(num <= 1e-12, "%s on %d ranks differs from beam.msh on 1 by %.2e\n", file, size, (double)num);
  PetscCall(MechSystemDestroy(&par));
  PetscCall(MechSystemDestroy(&ser));
  PetscFunctionReturn(0);
}

/* The mean displacement, along dir, of the vertices at x = L (X: reference positions): the tip of
   the bar and of the cantilever */
static PetscErrorCode TipDisplacement(TS ts, Vec X, Vec q, Vec v, PetscReal L, const PetscReal dir[3], PetscReal *d)
{
  const PetscScalar *x, *a;
  PetscReal          loc[2] = {0, 0}, tot[2];
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(TSMechGetSolution(ts, q, v));
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(VecGetArrayRead(q, &a));
  for (PetscInt i = 0; i < n; i += 3)
    if (PetscAbsReal(x[i] - L) < 1e-9) {
      for (PetscInt c = 0; c < 3; c++) loc[0] += dir[c] * (a[i + c] - x[i + c]);
      loc[1] += 1;
    }
  PetscCall(VecRestoreArrayRead(q, &a));
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(MPIU_Allreduce(loc, tot, 2, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)ts)));
  *d = tot[0] / tot[1];
  PetscFunctionReturn(0);
}

/* Tip history of the axial bar: the mean x displacement of the vertices at x = L */
typedef struct {
  Vec       X, q, v;
  PetscReal L, prev, tprev, cross;
} TipCtx;

static PetscErrorCode TipMonitor(TS ts, PetscInt step, PetscReal t, Vec u, void *ctx)
{
  TipCtx         *tc      = (TipCtx *)ctx;
  const PetscReal axis[3] = {1, 0, 0};
  PetscReal       d;

  PetscFunctionBegin;
  (void)u;
  PetscCall(TipDisplacement(ts, tc->X, tc->q, tc->v, tc->L, axis, &d));
  /* the first downward zero crossing, interpolated linearly */
  if (step > 0 && tc->cross < 0 && tc->prev > 0 && d <= 0) tc->cross = tc->tprev + (t - tc->tprev) * tc->prev / (tc->prev - d);
  tc->prev  = d;
  tc->tprev = t;
  PetscFunctionReturn(0);
}

/*
  Axial vibration of a fixed-free bar (nu = 0, E = rho = L = 1: c = 1) started with a uniform
  velocity: the tip displacement of the continuum returns to zero at t = 2 L / c, half of the
  period 4 L / c of every mode it excites.
*/
static PetscErrorCode TestAxialBar(void)
{
  PetscReal prevErr = -1;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < 2; k++) {
    const PetscInt nx = 10 << k;
    MechSystem     sys;
    TipCtx         tc;
    Vec            q, v;
    TS             ts;
    PetscReal      T, err;
    char           opts[512];

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-solid_beam_cells %" PetscInt_FMT ",1,1 -solid_beam_size 1,0.1,0.1 -solid_material linear -solid_E 1 -solid_nu 0 -solid_density 1 -solid_g 0,0,0 -solid_v0 1,0,0", nx));
    PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
    PetscCall(MechSystemCreateState(sys, &tc.X, NULL));
    PetscCall(VecDuplicate(tc.X, &tc.q));
    PetscCall(VecDuplicate(tc.X, &tc.v));
    tc.L     = 1;
    tc.prev  = 0;
    tc.tprev = 0;
    tc.cross = -1;
    PetscCall(TestSolve(sys, TSMIDPOINT2, "bar_", "-ksp_type preonly -pc_type lu", 1e-3, 2500, 2.5, TS_EXACTFINALTIME_STEPOVER, TipMonitor, &tc, &q, &v, &ts));
    T   = 2 * tc.cross;
    err = (T - 4) / 4;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "physics axial bar %2" PetscInt_FMT " cells: period %.5f against 4 L / c = 4: error %+.3e\n", nx, (double)T, (double)err));
    CHECK(tc.cross > 0 && PetscAbsReal(err) <= 0.02, "axial bar with %" PetscInt_FMT " cells: period %.5f off 4 by %.2e > 2%%\n", nx, (double)T, (double)err);
    CHECK(prevErr < 0 || PetscAbsReal(err) < PetscAbsReal(prevErr), "axial bar: the period error did not shrink under refinement (%.2e -> %.2e)\n", (double)prevErr, (double)err);
    prevErr = err;
    PetscCall(TSDestroy(&ts));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(VecDestroy(&tc.X));
    PetscCall(VecDestroy(&tc.q));
    PetscCall(VecDestroy(&tc.v));
    PetscCall(MechSystemDestroy(&sys));
  }
  PetscFunctionReturn(0);
}

/*
  The linear beam (E = 1, nu = 0, rho = 1, 1 x 0.1 x 0.1, nx x nyz x nyz boxes) of the bending
  tests: its initial state, its stiffness K0 with the fixed dofs' rows and columns given a large
  diagonal (so K0 x = omega^2 M x has only the free modes), the mass, and a Cholesky solver with K0
  (options prefix `prefix`)
*/
static PetscErrorCode BeamStiffness(PetscInt nx, PetscInt nyz, const char prefix[], MechSystem *sys, Vec *q, Vec *v, Mat *K, Mat *M, KSP *ksp)
{
  IS        fixed;
  Vec       d;
  PetscReal dmax;
  PC        pc;
  char      opts[512];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-solid_beam_cells %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT " -solid_beam_size 1,0.1,0.1 -solid_material linear -solid_E 1 -solid_nu 0 -solid_density 1 -solid_g 0,0,0", nx, nyz, nyz));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, sys));
  PetscCall(MechSystemCreateState(*sys, q, v));
  PetscCall(MechSystemCreateOperator(*sys, K));
  PetscCall(MechSystemComputeOperator(*sys, 0, *q, *v, 1, 0, 0, *K));
  PetscCall(MechSystemGetMass(*sys, M));
  PetscCall(MechSystemGetFixed(*sys, &fixed));
  PetscCall(VecDuplicate(*q, &d));
  PetscCall(MatGetDiagonal(*K, d));
  PetscCall(VecMax(d, NULL, &dmax));
  PetscCall(VecDestroy(&d));
  PetscCall(MatZeroRowsColumnsIS(*K, fixed, 1e3 * dmax, NULL, NULL));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPSetOperators(*ksp, *K, *K));
  PetscCall(KSPSetType(*ksp, KSPPREONLY));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCCHOLESKY));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscFunctionReturn(0);
}

/*
  The cantilever's first bending frequency from inverse iteration on K0 x = omega^2 M x (fixed
  dofs removed: their rows of K0 get a large diagonal), against Euler-Bernoulli's
  f1 = (1.8751^2 / 2 pi) sqrt(E I / (rho A L^4)), I = b^4 / 12: P1 tetrahedra are too stiff in
  bending, so the discrete frequency lies above and decreases toward it under refinement.
*/
static PetscErrorCode BendingFrequency(PetscInt nx, PetscInt nyz, PetscReal *f1)
{
  MechSystem sys;
  Mat        K, M;
  Vec        q, v, x, y;
  KSP        ksp;
  IS         fixed;
  PetscReal  lam = 0;

  PetscFunctionBegin;
  PetscCall(BeamStiffness(nx, nyz, "bend_", &sys, &q, &v, &K, &M, &ksp));
  PetscCall(MechSystemGetFixed(sys, &fixed));
  PetscCall(VecDuplicate(q, &x));
  PetscCall(VecDuplicate(q, &y));
  /* start from a transverse load along (0, 1, -1), the direction of the lowest bending mode of
     the Kuhn mesh (see BendingFrequencyTime()): along z the start holds both bending modes,
     whose frequencies meet under refinement, and 40 iterations no longer separate them */
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

/* Tip history of the bending cantilever: the zero crossings of the mean z displacement of the vertices at x = L */
#define BEND_CROSSINGS 9
typedef struct {
  Vec       X, q, v;
  PetscReal L, dir[3], prev, tprev, cross[BEND_CROSSINGS];
  PetscInt  ncross;
} BendCtx;

static PetscErrorCode BendMonitor(TS ts, PetscInt step, PetscReal t, Vec u, void *ctx)
{
  BendCtx  *bc = (BendCtx *)ctx;
  PetscReal d;

  PetscFunctionBegin;
  (void)u;
  PetscCall(TipDisplacement(ts, bc->X, bc->q, bc->v, bc->L, bc->dir, &d));
  /* every sign change, interpolated linearly: the displacement is nearly sinusoidal, so its
     curvature vanishes at a crossing and the interpolation error is third order in dt */
  if (step > 0 && bc->ncross < BEND_CROSSINGS && ((bc->prev > 0 && d <= 0) || (bc->prev < 0 && d >= 0))) bc->cross[bc->ncross++] = bc->tprev + (t - bc->tprev) * bc->prev / (bc->prev - d);
  bc->prev  = d;
  bc->tprev = t;
  PetscFunctionReturn(0);
}

/*
  The cantilever's first bending frequency in the time domain: released from rest out of its
  static deflection under a uniform transverse load along (0, 1, sign 1) / sqrt 2 (K u = M d,
  nearly the first mode), the beam swings under midpoint2 with step dt; the frequency is 4
  half-periods over the time from the first to the ninth zero crossing of the tip displacement
  along the load (the higher modes the release excites shift single crossings; over 8
  half-periods their effect is divided by 8).

  Why the diagonals: the built-in beam's Kuhn triangulation (6 tetrahedra around each box's
  (1, 1, 1) diagonal) is symmetric under the swap of y and z, not under y -> -y, so the principal
  bending directions of the discrete beam are (0, 1, 1) and (0, 1, -1), with two frequencies that
  differ on a coarse mesh and meet under refinement. A release along z excites both and the tip
  beats; along a diagonal only one is excited.
*/
static PetscErrorCode BendingFrequencyTime(PetscInt nx, PetscInt nyz, PetscInt sign, PetscReal dt, PetscReal tmax, PetscReal *f1, PetscInt *ncross)
{
  MechSystem sys;
  Mat        K, M;
  Vec        q, v, u, y, qT, vT;
  KSP        ksp;
  IS         fixed;
  TS         ts;
  BendCtx    bc;
  PetscReal  tip;

  PetscFunctionBegin;
  PetscCall(BeamStiffness(nx, nyz, "bendt_", &sys, &q, &v, &K, &M, &ksp));
  PetscCall(MechSystemGetFixed(sys, &fixed));
  PetscCall(VecDuplicate(q, &u));
  PetscCall(VecDuplicate(q, &y));
  PetscCall(VecSet(u, 0));
  PetscCall(VecStrideSet(u, 1, (PETSC_SQRT2 / 2)));
  PetscCall(VecStrideSet(u, 2, sign * (PETSC_SQRT2 / 2)));
  PetscCall(MatMult(M, u, y));
  PetscCall(VecISSet(y, fixed, 0.0));
  PetscCall(KSPSolve(ksp, y, u));
  PetscCall(VecISSet(u, fixed, 0.0));
  /* a tip deflection of 1e-3 L (the material is linear: the scale only sets the units) */
  PetscCall(VecStrideMax(u, 1, NULL, &tip));
  tip *= PETSC_SQRT2;
  PetscCall(VecAXPY(q, 1e-3 / tip, u));
  PetscCall(MechSystemSetInitialState(sys, q, v));
  PetscCall(MechSystemCreateState(sys, &bc.X, NULL));
  PetscCall(VecCopy(q, bc.X));
  PetscCall(VecAXPY(bc.X, -1e-3 / tip, u));
  PetscCall(VecDuplicate(q, &bc.q));
  PetscCall(VecDuplicate(q, &bc.v));
  bc.L      = 1;
  bc.dir[0] = 0;
  bc.dir[1] = (PETSC_SQRT2 / 2);
  bc.dir[2] = sign * (PETSC_SQRT2 / 2);
  bc.prev   = 0;
  bc.tprev  = 0;
  bc.ncross = 0;
  PetscCall(TestSolve(sys, TSMIDPOINT2, "bendt_", "-ksp_type preonly -pc_type lu", dt, (PetscInt)(tmax / dt) + 2, tmax, TS_EXACTFINALTIME_STEPOVER, BendMonitor, &bc, &qT, &vT, &ts));
  *ncross = bc.ncross;
  *f1     = bc.ncross == BEND_CROSSINGS ? (BEND_CROSSINGS - 1) / (2 * (bc.cross[BEND_CROSSINGS - 1] - bc.cross[0])) : 0;
  PetscCall(TSDestroy(&ts));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&K));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&qT));
  PetscCall(VecDestroy(&vT));
  PetscCall(VecDestroy(&bc.X));
  PetscCall(VecDestroy(&bc.q));
  PetscCall(VecDestroy(&bc.v));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/*
  The first bending frequency of the cantilever on 4 meshes (each refinement halves h), by
  inverse iteration and in the time domain, against Euler-Bernoulli's f1. The time-domain
  frequency also carries the midpoint rule's period elongation: on a mode of frequency omega the
  implicit midpoint (trapezoidal) rule oscillates at Omega = (2 / dt) atan(omega dt / 2) (Hughes,
  The Finite Element Method, 2000, sec. 9.3; docs/schemes.md), which the comparison with the
  inverse iteration's frequency takes into account.
*/
static PetscErrorCode TestBending(void)
{
  const PetscReal b = 0.1, feb = 1.8751 * 1.8751 / (2 * PETSC_PI) * PetscSqrtReal(b * b * b * b / 12 / (b * b));
  /* 200 steps per Euler-Bernoulli period; 4 periods of the slowest (finest) mesh and a margin */
  const PetscReal Teb = 1 / feb, dt = Teb / 200, tmax = 4.4 * Teb;
  PetscReal       f[4], e[4], ft[2][4], et[2][4];
  PetscInt        nk = 4;

  PetscFunctionBegin;
  /* 4 meshes, three refinements (-bending_levels 3 skips the finest, 64 x 8 x 8 boxes, which
     takes two thirds of the ~10 s) */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bending_levels", &nk, NULL));
  nk = PetscMin(nk, 4);
  for (PetscInt k = 0; k < nk; k++) {
    PetscCall(BendingFrequency(8 << k, 1 << k, &f[k]));
    e[k] = (f[k] - feb) / feb;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "physics cantilever %3d x %d x %d boxes: f1 = %.6f, Euler-Bernoulli %.6f, error %+.4e%s\n", 8 << k, 1 << k, 1 << k, (double)f[k], (double)feb, (double)e[k], k ? "" : ""));
    if (k) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "physics cantilever observed rate %.2f\n", (double)PetscLog2Real(e[k - 1] / e[k])));
    CHECK(e[k] > 0, "cantilever: f1 %.6f below Euler-Bernoulli's %.6f\n", (double)f[k], (double)feb);
    CHECK(k == 0 || e[k] < e[k - 1], "cantilever: the error did not decrease under refinement\n");

    /* d = 0: along (0, 1, -1), the lower frequency (the first); d = 1: along (0, 1, 1), on the
       3 coarser meshes (it shows the split, which shrinks) */
    for (PetscInt d = 0; d < (k < 3 ? 2 : 1); d++) {
      const char *name = d ? "(0,1,1) " : "(0,1,-1)";
      PetscInt    nc;

      PetscCall(BendingFrequencyTime(8 << k, 1 << k, d ? 1 : -1, dt, tmax, &ft[d][k], &nc));
      et[d][k] = (ft[d][k] - feb) / feb;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "physics cantilever time domain %3d x %d x %d boxes, along %s, midpoint2 dt = T_EB/200: %" PetscInt_FMT " zero crossings of the tip, f = %.6f, error %+.4e\n", 8 << k, 1 << k, 1 << k, name, nc, (double)ft[d][k], (double)et[d][k]));
      CHECK(nc == BEND_CROSSINGS, "cantilever time domain along %s: %" PetscInt_FMT " zero crossings of the tip by t = %g, expected %d\n", name, nc, (double)tmax, BEND_CROSSINGS);
      CHECK(et[d][k] > 0, "cantilever time domain along %s: f %.6f below Euler-Bernoulli's %.6f\n", name, (double)ft[d][k], (double)feb);
      if (k) {
        const PetscReal rate = et[d][k] < et[d][k - 1] && et[d][k] > 0 ? PetscLog2Real(et[d][k - 1] / et[d][k]) : 0;

        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "physics cantilever time domain along %s observed rate %.2f\n", name, (double)rate));
        CHECK(et[d][k] < et[d][k - 1], "cantilever time domain along %s: the error did not decrease under refinement (%.4e -> %.4e)\n", name, (double)et[d][k - 1], (double)et[d][k]);
        /* P1 eigenvalue errors are O(h^2) (Strang and Fix, An Analysis of the Finite Element
           Method, ch. 6); the coarse meshes lock in bending and are still pre-asymptotic */
        if (!d) CHECK(rate >= 1.4 && rate <= 2.5, "cantilever time domain: observed rate %.2f outside [1.4, 2.5]\n", (double)rate);
      }
    }
    {
      /* what the midpoint rule makes of the inverse iteration's (lowest) frequency */
      const PetscReal fpred = PetscAtanReal(PETSC_PI * f[k] * dt) / (PETSC_PI * dt), dev = (ft[0][k] - fpred) / fpred, split = k < 3 ? (ft[1][k] - ft[0][k]) / ft[0][k] : 0;

      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "physics cantilever time domain %3d x %d x %d boxes: f1 %.6f against inverse iteration with the midpoint rule's period elongation %.6f: %+.2e; split of the two bending directions %.3e\n", 8 << k, 1 << k, 1 << k, (double)ft[0][k], (double)fpred, (double)dev, (double)split));
      CHECK(PetscAbsReal(dev) <= 1e-3, "cantilever time domain: f1 %.6f differs from the inverse iteration's (through the midpoint rule) %.6f by %.2e > 1e-3\n", (double)ft[0][k], (double)fpred, (double)dev);
      if (k < 3) CHECK(split > 0, "cantilever time domain: the (0,1,1) frequency %.6f is not above the (0,1,-1) one %.6f\n", (double)ft[1][k], (double)ft[0][k]);
      if (k && k < 3) CHECK(split < (ft[1][k - 1] - ft[0][k - 1]) / ft[0][k - 1], "cantilever time domain: the split of the bending directions did not shrink under refinement\n");
    }
  }
  PetscFunctionReturn(0);
}

/* midpoint2 = TSALPHA2 (radius 1), beuler2 = TSBEULER, cn2 = TSCN on a small neo-Hookean beam */
static PetscErrorCode TestEquivalence(void)
{
  const char opts[] = "-solid_beam_cells 4,1,1 -solid_beam_size 1,0.2,0.2 -solid_E 1e5 -solid_material neohookean -solid_v0 0,0,-1";
  const char eq[]   = "-snes_rtol 1e-13 -snes_atol 1e-10 -snes_stol 0 -snes_max_it 30 -ksp_type preonly -pc_type lu";
  const struct {
    const char *a, *b, *optb;
  } pairs[] = {
      {TSMIDPOINT2, TSALPHA2, "-ts_alpha_radius 1"},
      {TSBEULER2,   TSBEULER, ""                  },
      {TSCN2,       TSCN,     ""                  },
  };
  MechSystem sys;

  PetscFunctionBegin;
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
  for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
    Vec       qa, va, qb, vb;
    PetscReal rel;
    char      ob[512];

    PetscCall(PetscSNPrintf(ob, sizeof(ob), "%s %s", eq, pairs[i].optb));
    PetscCall(TestIntegrate(sys, pairs[i].a, eq, 2e-3, 0.04, &qa, &va, NULL, NULL));
    PetscCall(TestIntegrate(sys, pairs[i].b, ob, 2e-3, 0.04, &qb, &vb, NULL, NULL));
    PetscCall(TestRelDiff(qa, va, qb, vb, &rel));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "equivalence %-9s = %-6s neo-Hookean beam, 20 steps: relative difference %.2e\n", pairs[i].a, pairs[i].b, (double)rel));
    CHECK(rel <= 1e-9, "%s and %s differ by %.2e\n", pairs[i].a, pairs[i].b, (double)rel);
    PetscCall(VecDestroy(&qa));
    PetscCall(VecDestroy(&va));
    PetscCall(VecDestroy(&qb));
    PetscCall(VecDestroy(&vb));
  }
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/* The message of the first error raised while a handler of this kind is pushed */
static char lastError[1024];

static PetscErrorCode CatchError(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  (void)comm;
  (void)line;
  (void)fun;
  (void)file;
  (void)ctx;
  if (p == PETSC_ERROR_INITIAL && mess) PetscStrncpy(lastError, mess, sizeof(lastError));
  return n;
}

/* Creating the solid with opts must fail with a message matching `expect` (a substring), or succeed if expect is NULL */
static PetscErrorCode ExpectRefusal(const char label[], const char opts[], const char expect[])
{
  MechSystem     sys = NULL;
  PetscErrorCode ierr;
  PetscBool      found = PETSC_FALSE;

  PetscFunctionBegin;
  lastError[0] = 0;
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(PetscPushErrorHandler(CatchError, NULL));
  ierr = MechCreateModel(PETSC_COMM_WORLD, "solid", &sys);
  PetscCall(PetscPopErrorHandler());
  PetscCall(TestClearOptions(opts));
  if (expect) {
    char *at;

    PetscCall(PetscStrstr(lastError, expect, &at));
    found = at ? PETSC_TRUE : PETSC_FALSE;
  }
  if (expect) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "meshes %-22s refused (error %d): %s\n", label, (int)ierr, lastError));
    CHECK(ierr && found, "%s: expected an error containing \"%s\", got %d \"%s\"\n", label, expect, (int)ierr, lastError);
  } else {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "meshes %-22s accepted%s%s\n", label, ierr ? ": " : "", ierr ? lastError : ""));
    CHECK(!ierr, "%s: refused: %s\n", label, lastError);
    PetscCall(MechSystemDestroy(&sys));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TestMeshes(const char dir[])
{
  char opts[PETSC_MAX_PATH_LEN + 256];

  PetscFunctionBegin;
#define MESH(label, file, extra, expect)                                                    \
  do {                                                                                      \
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-solid_mesh %s/%s %s", dir, file, extra)); \
    PetscCall(ExpectRefusal(label, opts, expect));                                          \
  } while (0)
  MESH("two tetrahedra", "tet_ok.msh", "", NULL);
  MESH("shipped beam, label", "../../examples/meshes/beam.msh", "-solid_fix_label \"Face Sets\" -solid_fix_value 1", NULL);
  MESH("2-D mesh", "square2d.msh", "", "the mesh is 2-D");
  MESH("one hexahedron", "hexahedra.msh", "", NULL);
  MESH("a prism", "prism.msh", "", "is a prism, Gmsh element type 6");
  MESH("inverted cell", "inverted.msh", "", "1 inverted (negative-volume) tetrahedra");
  MESH("missing file", "no_such_mesh.msh", "", "the file does not exist");
  MESH("not a mesh", "meson.build", "", "not a mesh file tsmech reads");
  MESH("unknown label", "../../examples/meshes/beam.msh", "-solid_fix_label bogus", "-solid_fix_label bogus: the mesh has no such label");
  MESH("label value empty", "../../examples/meshes/beam.msh", "-solid_fix_label \"Face Sets\" -solid_fix_value 9", "no vertex of");
#undef MESH
  PetscCall(ExpectRefusal("plane off the body", "-solid_fix x=2", "-solid_fix x=2: no vertex"));
  PetscCall(ExpectRefusal("bad plane", "-solid_fix w=1", "-solid_fix w=1: expected a coordinate plane"));
  PetscCall(ExpectRefusal("nu = 0.5", "-solid_nu 0.5", "-solid_nu 0.5 must be in (-1, 1/2)"));
  PetscCall(ExpectRefusal("E = 0", "-solid_E 0", "-solid_E 0"));
  PetscFunctionReturn(0);
}

/*
  A neo-Hookean element pushed through its opposite face has no stress: the force is not finite
  (the stage fails) while svk, defined for any F, stays finite.
*/
static PetscErrorCode TestInversion(void)
{
  PetscFunctionBegin;
  for (PetscInt m = 1; m < NMAT; m++) {
    MechSystem sys;
    Vec        q, v, f;
    PetscReal  nf;
    PetscInt   n;
    char       opts[512];

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s -solid_material %s -solid_fix none", smallgeom, moduli[m], materials[m]));
    PetscCall(TestCreateModel(PETSC_COMM_SELF, "solid", opts, &sys));
    PetscCall(MechSystemCreateState(sys, &q, &v));
    PetscCall(VecDuplicate(q, &f));
    PetscCall(VecGetSize(q, &n));
    /* the last vertex far beyond the body along -x, -y, -z flips its cells */
    PetscCall(VecSetValue(q, n - 1, -10.0, INSERT_VALUES));
    PetscCall(VecSetValue(q, n - 2, -10.0, INSERT_VALUES));
    PetscCall(VecSetValue(q, n - 3, -10.0, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(q));
    PetscCall(VecAssemblyEnd(q));
    PetscCall(MechSystemComputeForce(sys, 0, q, v, f));
    PetscCall(VecNorm(f, NORM_INFINITY, &nf));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "inversion %-10s |f| = %g\n", materials[m], (double)nf));
    CHECK(m >= 2 ? PetscIsInfOrNanReal(nf) : !PetscIsInfOrNanReal(nf), "%s: inverted element gives |f| = %g\n", materials[m], (double)nf);
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(VecDestroy(&f));
    PetscCall(MechSystemDestroy(&sys));
  }
  PetscFunctionReturn(0);
}

/*
  The tetrahedra of a Gmsh 2.2 ASCII file (element type 4) in file order: their node coordinates
  (12 reals each), read independently of PETSc's reader, on every rank
*/
static PetscErrorCode ReadMsh2Tets(const char path[], PetscInt *ntet, PetscReal **tets)
{
  FILE      *fp;
  char       line[512];
  PetscInt   nn = 0, ne = 0, nt = 0;
  PetscReal *X   = NULL;
  long      *ids = NULL;

  PetscFunctionBegin;
  fp = fopen(path, "r");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", path);
  *tets = NULL;
  while (fgets(line, sizeof(line), fp)) {
    if (!strncmp(line, "$Nodes", 6)) {
      PetscCheck(fgets(line, sizeof(line), fp) && sscanf(line, "%" PetscInt_FMT, &nn) == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: bad $Nodes", path);
      PetscCall(PetscMalloc2(3 * nn, &X, nn, &ids));
      for (PetscInt i = 0; i < nn; i++) {
        double x, y, z;

        PetscCheck(fgets(line, sizeof(line), fp) && sscanf(line, "%ld %lf %lf %lf", &ids[i], &x, &y, &z) == 4, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: bad node line", path);
        X[3 * i]     = x;
        X[3 * i + 1] = y;
        X[3 * i + 2] = z;
      }
    } else if (!strncmp(line, "$Elements", 9)) {
      PetscCheck(fgets(line, sizeof(line), fp) && sscanf(line, "%" PetscInt_FMT, &ne) == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: bad $Elements", path);
      PetscCall(PetscMalloc1(12 * ne, tets));
      for (PetscInt e = 0; e < ne; e++) {
        long id, type, ntags, v[4], tag;
        int  pos, adv;

        PetscCheck(fgets(line, sizeof(line), fp) && sscanf(line, "%ld %ld %ld%n", &id, &type, &ntags, &pos) == 3, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: bad element line", path);
        if (type != 4) continue;
        for (long k = 0; k < ntags; k++) {
          PetscCheck(sscanf(line + pos, "%ld%n", &tag, &adv) == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: bad tags", path);
          pos += adv;
        }
        PetscCheck(sscanf(line + pos, "%ld %ld %ld %ld", &v[0], &v[1], &v[2], &v[3]) == 4, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: bad tetrahedron", path);
        for (int a = 0; a < 4; a++) {
          PetscInt i;

          for (i = 0; i < nn && ids[i] != v[a]; i++) {}
          PetscCheck(i < nn, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: node %ld not found", path, v[a]);
          for (int c = 0; c < 3; c++) (*tets)[12 * nt + 3 * a + c] = X[3 * i + c];
        }
        nt++;
      }
    }
  }
  (void)fclose(fp);
  PetscCall(PetscFree2(X, ids));
  *ntet = nt;
  PetscFunctionReturn(0);
}

/* 6 times the signed volume of the tetrahedron x[0..3] */
static PetscReal SignedVolume6(const PetscReal x[4][3])
{
  PetscReal a[3], b[3], c[3];

  for (int i = 0; i < 3; i++) {
    a[i] = x[1][i] - x[0][i];
    b[i] = x[2][i] - x[0][i];
    c[i] = x[3][i] - x[0][i];
  }
  return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
}

/* q = X with the vertex at reference position P moved to Y (on whichever rank owns it) */
static PetscErrorCode MoveVertex(Vec X, Vec q, const PetscReal P[3], const PetscReal Y[3], PetscInt *found)
{
  const PetscScalar *x;
  PetscScalar       *a;
  PetscInt           n, loc = 0;

  PetscFunctionBegin;
  PetscCall(VecCopy(X, q));
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(VecGetArray(q, &a));
  for (PetscInt i = 0; i < n; i += 3)
    if (PetscAbsReal(x[i] - P[0]) < 1e-12 && PetscAbsReal(x[i + 1] - P[1]) < 1e-12 && PetscAbsReal(x[i + 2] - P[2]) < 1e-12) {
      for (int c = 0; c < 3; c++) a[i + c] = Y[c];
      loc++;
    }
  PetscCall(VecRestoreArray(q, &a));
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(MPIU_Allreduce(&loc, found, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)X)));
  PetscFunctionReturn(0);
}

/*
  The inverted element is named by a number that does not depend on the ranks: the built-in
  beam's construction order, the mesh file's order of tetrahedra (through the reverse
  Cuthill-McKee reordering and the distribution). One vertex is moved far through the body; the
  expected elements are computed from the file itself (signed volumes before and after).
*/
static PetscErrorCode TestInvertedElement(const char dir[])
{
  const PetscReal far[3] = {-10, -7, -13};
  MechSystem      sys;
  Vec             X, v, q, f;
  PetscReal       nf;
  PetscInt        found, n1, e1, n2, e2;
  char            opts[PETSC_MAX_PATH_LEN + 256];

  PetscFunctionBegin;
  /* the beam: 3 x 2 x 2 boxes; the far corner (1, 0.5, 0.4) lies in the last box, number 11,
     whose 6 tetrahedra (66 to 71) all hold the box's (1, 1, 1) corner */
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_material neohookean -solid_fix none", small));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
  PetscCall(MechSystemCreateState(sys, &X, &v));
  PetscCall(VecDuplicate(X, &q));
  PetscCall(VecDuplicate(X, &f));
  {
    const PetscReal P[3] = {1, 0.5, 0.4};

    PetscCall(MoveVertex(X, q, P, far, &found));
  }
  PetscCall(MechSystemComputeForce(sys, 0, q, v, f));
  /* the 2-norm: a sum, which keeps a NaN on any rank (the max-norm's MPI_MAX may drop it) */
  PetscCall(VecNorm(f, NORM_2, &nf));
  PetscCall(MechSolidGetInverted(sys, NULL, &n1, &e1, NULL));
  PetscCall(MechSolidGetInverted(sys, q, &n2, &e2, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "inversion beam corner moved: |f| = %g, last force evaluation: %" PetscInt_FMT " inverted, first element %" PetscInt_FMT "; at q: %" PetscInt_FMT ", %" PetscInt_FMT " (expected among 66..71)\n", (double)nf, n1, e1, n2, e2));
  CHECK(found == 1 && PetscIsInfOrNanReal(nf), "beam: corner found %" PetscInt_FMT " times, |f| = %g\n", found, (double)nf);
  CHECK(n1 >= 1 && n1 <= 6 && e1 >= 66 && e1 <= 71 && n2 == n1 && e2 == e1, "beam: inverted %" PetscInt_FMT " element(s), first %" PetscInt_FMT "; at q %" PetscInt_FMT ", %" PetscInt_FMT "\n", n1, e1, n2, e2);
  {
    PetscReal tm;

    PetscCall(MechSolidGetInverted(sys, NULL, NULL, NULL, &tm));
    CHECK(tm == 0, "beam: the inversion was met at t = %g, the force was evaluated at 0\n", (double)tm);
  }
  PetscCall(MechSolidGetInverted(sys, X, &n2, &e2, NULL));
  CHECK(n2 == 0 && e2 == -1, "beam: the reference configuration has %" PetscInt_FMT " inverted elements (first %" PetscInt_FMT ")\n", n2, e2);
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&f));
  PetscCall(MechSystemDestroy(&sys));

  /* beam.msh: a vertex inside the body, moved far away */
  {
    PetscInt   ntet, nexp = 0, eexp = -1;
    PetscReal *tets, P[3];
    char       path[PETSC_MAX_PATH_LEN];

    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/../../examples/meshes/beam.msh", dir));
    PetscCall(ReadMsh2Tets(path, &ntet, &tets));
    /* the first vertex of the file's tetrahedron 100 */
    for (int c = 0; c < 3; c++) P[c] = tets[12 * 100 + c];
    for (PetscInt e = 0; e < ntet; e++) {
      PetscReal x[4][3], y[4][3];
      PetscBool has = PETSC_FALSE;

      for (int a = 0; a < 4; a++) {
        PetscBool is = PETSC_TRUE;

        for (int c = 0; c < 3; c++) {
          x[a][c] = y[a][c] = tets[12 * e + 3 * a + c];
          if (x[a][c] != P[c]) is = PETSC_FALSE;
        }
        if (is) {
          has = PETSC_TRUE;
          for (int c = 0; c < 3; c++) y[a][c] = far[c];
        }
      }
      if (has && SignedVolume6(x) * SignedVolume6(y) <= 0) {
        if (eexp < 0) eexp = e;
        nexp++;
      }
    }
    PetscCall(PetscFree(tets));
    /* the same beam in the other formats: Gmsh wrote its tetrahedra in the same order */
    for (int k = 0; k < 4; k++) {
      const char *files[] = {"beam.msh", "beam_msh4.msh", "beam_msh4_bin.msh", "beam_msh2_bin.msh"};

      PetscCall(PetscSNPrintf(opts, sizeof(opts), "-solid_mesh %s/../../examples/meshes/%s -solid_material neohookean -solid_E 1e5", dir, files[k]));
      PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
      PetscCall(MechSystemCreateState(sys, &X, &v));
      PetscCall(VecDuplicate(X, &q));
      PetscCall(VecDuplicate(X, &f));
      PetscCall(MoveVertex(X, q, P, far, &found));
      PetscCall(MechSystemComputeForce(sys, 0, q, v, f));
      PetscCall(MechSolidGetInverted(sys, NULL, &n1, &e1, NULL));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "inversion %-17s: vertex (%g, %g, %g) moved: %" PetscInt_FMT " inverted, first element %" PetscInt_FMT " (from beam.msh itself: %" PetscInt_FMT ", first %" PetscInt_FMT ")\n", files[k], (double)P[0], (double)P[1], (double)P[2], n1, e1, nexp, eexp));
      CHECK(found == 1 && nexp > 0 && n1 == nexp && e1 == eexp, "%s: %" PetscInt_FMT " inverted, first %" PetscInt_FMT "; expected %" PetscInt_FMT ", first %" PetscInt_FMT "\n", files[k], n1, e1, nexp, eexp);
      PetscCall(VecDestroy(&X));
      PetscCall(VecDestroy(&v));
      PetscCall(VecDestroy(&q));
      PetscCall(VecDestroy(&f));
      PetscCall(MechSystemDestroy(&sys));
    }
  }
  PetscFunctionReturn(0);
}

/* TS domain check: a step whose new positions Y invert an element is not accepted */
static PetscErrorCode SolidDomain(TS ts, PetscReal t, Vec Y, PetscBool *accept)
{
  MechSystem sys;
  PetscInt   n;

  PetscFunctionBegin;
  (void)t;
  PetscCall(TSMechGetSystem(ts, &sys));
  PetscCall(MechSolidGetInverted(sys, Y, &n, NULL, NULL));
  *accept = n ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*
  An element that inverts during the Newton iterations of a step: a clamped beam thrown down at
  3000 m/s (the bad-input table's solid_inverted_step). The stage fails: the neo-Hookean force is
  not finite (SNES DIVERGED_FNORM_NAN), or the SNES fails to converge while its iterates invert
  elements. midpoint2 evaluates the force at the midpoint only, so an endpoint q1 may invert an
  element with a converged solve: the TS's domain check (TSSetFunctionDomainError(), called by
  TSAdaptCheckStage() on q1) asks MechSolidGetInverted() and rejects the step, and PETSc 3.18
  then retries it with dt times -ts_adapt_scale_solve_failed. With TSAdapt none and one SNES
  failure allowed, the run stops at the failed step, its state the last good one (finite, nothing
  inverted) and the model names the element; under TSAdapt basic (SNES failures allowed, as the
  driver allows them) the failed stages are rejected and retried with smaller steps and the run
  reaches its end with no inverted element. Run on 1 rank and (-mpi) on 2 and 3, with a direct
  solve so that the Newton iterates do not depend on the partition.
*/
static PetscErrorCode TestInversionStep(void)
{
  const char opts[] = "-solid_beam_cells 4,1,1 -solid_material neohookean -solid_v0 0,0,-3000";

  PetscFunctionBegin;
  for (PetscInt adaptive = 0; adaptive < 2; adaptive++) {
    MechSystem          sys;
    TS                  ts;
    SNES                snes;
    Vec                 q, v;
    PetscReal           t, nq, nv;
    PetscInt            steps, rejects, fails, ninv, einv, nq1, eq1;
    PetscReal           tinv;
    TSConvergedReason   reason;
    SNESConvergedReason sreason;

    PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
    PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
    PetscCall(TSSetOptionsPrefix(ts, "inv_"));
    PetscCall(TSSetType(ts, TSMIDPOINT2));
    PetscCall(TSMechSetSystem(ts, sys));
    PetscCall(TSSetTimeStep(ts, 0.01));
    PetscCall(TSSetMaxSteps(ts, adaptive ? 500 : 5));
    PetscCall(TSSetMaxTime(ts, adaptive ? 5e-3 : 0.05));
    PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
    {
      TSAdapt adapt;

      PetscCall(TSGetAdapt(ts, &adapt));
      PetscCall(TSAdaptSetType(adapt, adaptive ? TSADAPTBASIC : TSADAPTNONE));
    }
    if (adaptive) PetscCall(TSSetMaxSNESFailures(ts, -1));
    PetscCall(TSSetErrorIfStepFails(ts, PETSC_FALSE));
    PetscCall(TSSetFunctionDomainError(ts, SolidDomain));
    PetscCall(TSGetSNES(ts, &snes));
    {
      /* the same Newton iterates on any number of ranks: a direct solve (MUMPS, in Debian's
         PETSc), which does not depend on the partition */
      KSP ksp;
      PC  pc;

      PetscCall(SNESGetKSP(snes, &ksp));
      PetscCall(KSPSetType(ksp, KSPPREONLY));
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(PCSetType(pc, PCLU));
      PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
    }
    /* the error estimate alone would reject the first steps before any stage fails */
    if (adaptive) PetscCall(TSSetTolerances(ts, 1e3, NULL, 1e3, NULL));
    {
      /* PETSc's bt, which lets the inverting Newton step fail the stage: the line search on the
         incremental potential (the theta family's default) halves a step to an inverted state and
         the stage converges, so there would be no failed stage for the controller to retry */
      SNESLineSearch ls;

      PetscCall(SNESGetLineSearch(snes, &ls));
      PetscCall(SNESLineSearchSetType(ls, SNESLINESEARCHBT));
    }
    PetscCall(TSSetFromOptions(ts));
    PetscCall(MechSystemCreateState(sys, &q, &v));
    PetscCall(TSMechSetSolution(ts, q, v));
    PetscCall(TSSolve(ts, NULL));
    PetscCall(TSGetConvergedReason(ts, &reason));
    PetscCall(SNESGetConvergedReason(snes, &sreason));
    PetscCall(TSGetStepNumber(ts, &steps));
    PetscCall(TSGetTime(ts, &t));
    PetscCall(TSGetStepRejections(ts, &rejects));
    PetscCall(TSGetSNESFailures(ts, &fails));
    PetscCall(TSMechGetSolution(ts, q, v));
    PetscCall(VecNorm(q, NORM_INFINITY, &nq));
    PetscCall(VecNorm(v, NORM_INFINITY, &nv));
    PetscCall(MechSolidGetInverted(sys, NULL, &ninv, &einv, &tinv));
    PetscCall(MechSolidGetInverted(sys, q, &nq1, &eq1, NULL));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "inversion step %-8s: TS %s after %" PetscInt_FMT " steps to t = %g (%" PetscInt_FMT " rejected, %" PetscInt_FMT " SNES failures), last SNES %s; last force evaluation with an inversion: t = %g, %" PetscInt_FMT " inverted, element %" PetscInt_FMT "; final state |q| %g |v| %g, %" PetscInt_FMT " inverted\n", adaptive ? "adaptive" : "fixed", TSConvergedReasons[reason], steps, (double)t, rejects, fails, SNESConvergedReasons[sreason], (double)tinv, ninv, einv, (double)nq, (double)nv, nq1));
    if (!adaptive) {
      CHECK(reason == TS_DIVERGED_NONLINEAR_SOLVE && sreason < 0, "fixed step: TS %s, SNES %s: expected a failed nonlinear solve\n", TSConvergedReasons[reason], SNESConvergedReasons[sreason]);
      CHECK(ninv > 0 && einv >= 0 && einv < 24, "fixed step: the failed stage names element %" PetscInt_FMT " (%" PetscInt_FMT " inverted)\n", einv, ninv);
      CHECK(nq1 == 0, "fixed step: %" PetscInt_FMT " inverted elements in the last accepted state\n", nq1);
      /* the inversion belongs to the failed step, which starts at the last good time t */
      CHECK(tinv > t && tinv <= t + 0.01, "fixed step: the inversion was met at t = %g, not in the failed step after t = %g\n", (double)tinv, (double)t);
    } else {
      CHECK(reason > 0 && t >= 5e-3 * (1 - 1e-12), "adaptive: TS %s at t = %g\n", TSConvergedReasons[reason], (double)t);
      CHECK(fails > 0 && rejects >= fails, "adaptive: %" PetscInt_FMT " SNES failures, %" PetscInt_FMT " rejections: no failed stage was retried\n", fails, rejects);
      CHECK(nq1 == 0, "adaptive: %" PetscInt_FMT " inverted elements at the end\n", nq1);
    }
    CHECK(!PetscIsInfOrNanReal(nq) && !PetscIsInfOrNanReal(nv), "%s: the state is not finite\n", adaptive ? "adaptive" : "fixed step");
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(TSDestroy(&ts));
    PetscCall(MechSystemDestroy(&sys));
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscBool mpi                     = PETSC_FALSE;
  char      dir[PETSC_MAX_PATH_LEN] = ".";

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-mpi", &mpi, NULL));
  PetscCall(TestTangents());
  PetscCall(TestPatch());
  /* under MPI: the parallel assembly (tangents, patch) and the comparison with one rank; the
     serial run covers the long integrations */
  if (!mpi) PetscCall(TestConservation());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dir", dir, sizeof(dir), NULL));
  if (mpi) {
    char opts[PETSC_MAX_PATH_LEN + 256];

    PetscCall(TestRanks("neo-Hookean beam", "-solid_beam_cells 4,2,2 -solid_beam_size 1,0.2,0.2 -solid_E 1e5 -solid_material neohookean -solid_g 0,0,-9.81 -solid_v0 0,0.5,0"));
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-solid_mesh %s/../../examples/meshes/beam.msh -solid_fix_label \"Face Sets\" -solid_fix_value 1 -solid_E 1e5 -solid_material svk -solid_v0 0,0,-0.5", dir));
    PetscCall(TestRanks("svk beam.msh", opts));
  }
  /* on one rank and (-mpi) on several: the inverted element's number; the beam in Gmsh 4.1
     ASCII and binary, 2.2 binary */
  PetscCall(TestInvertedElement(dir));
  PetscCall(TestInversionStep());
  PetscCall(TestMeshFormat(dir, "beam_msh4.msh"));
  PetscCall(TestMeshFormat(dir, "beam_msh4_bin.msh"));
  PetscCall(TestMeshFormat(dir, "beam_msh2_bin.msh"));
  if (!mpi) {
    PetscCall(TestAxialBar());
    PetscCall(TestBending());
    PetscCall(TestEquivalence());
    PetscCall(TestInversion());
    PetscCall(TestMeshes(dir));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failure%s\n", failures ? "FAILED" : "passed", failures, failures == 1 ? "" : "s"));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
