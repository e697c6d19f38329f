static const char help[] = "A manufactured solution of linear elasticity: the solid's displacement error rates for P1, P2 tetrahedra and Q1, Q2 hexahedra.\n";

/*
  The body force of MechSolidSetBodyForce() and the error norms of MechSolidComputeError()
  (src/models/solid/bodyforce.c, docs/solid.md §14). Every check prints its measured number and
  counts a failure when it misses its bound.

  rates      linear elasticity (mu = 1, lambda = 1.5) on the unit cube, all six faces clamped,
             exact u = A sin(pi x) sin(pi y) sin(pi z) (1, 2, 3), body force b = -div sigma(u)
             computed here; static solve K u = F (K the system's tangent at q = X, F = -f(X) from
             the body force; CG with block Jacobi and ICC, -mms_ksp_*, -mms_pc_*). n = 2, 4, 8 boxes per side (and 16 for P1, Q1).
             The observed rates on the finest pair within 0.25 of p + 1 (L2) and p (H1), the
             quadratic elements' errors below the linear ones' on the finest common mesh, f(q) = 0
             at the solution, the L2 errors equal to PETSc's DMComputeL2Diff() (PETSc's Lagrange
             element on a clone of the solid's DM, the same rule; the cube's cells are straight)
             to 1e-11. The table (n, errors, rates) is printed.
  potential  f is the gradient of the potential with the body force (fourth-order differences),
             the potential's body-force part -int b . u = F . u exact, and the discrete gradient
             meets V(q1) - V(q0) = fbar . (q1 - q0); on P2 tetrahedra and Q2 hexahedra.
  time       b(t, X) = (1 + t) b(X): f(X) at t = 1 is twice f(X) at t = 0, and at t = 0 again the
             same (the assembled load is kept per time).
  norms      MechSolidComputeError() at q = X gives the exact field's own norms (to 1e-8 on n = 4),
             and no error for an affine field, which every element interpolates exactly.
  dynamics   a neo-Hookean cube released under the body force: discgrad2 keeps the energy with
             its potential (1e-10 relative over 20 steps), on P2 tetrahedra and Q2 hexahedra.
  box        -solid_bc_NAME_where box holds exactly the nodes of the cube's surface.
  refusals   (several ranks) an error of the body force on the last rank only ends the
             force evaluation on every rank with its message; a body force that is not finite is
             refused with its point; MechSolidSetBodyForce() on another model and with NULL refused,
             -solid_fix box refused (a plane only).
*/
#include <petscfe.h>
#include "fdcheck.h"
#include "testutil.h"

static PetscInt failures = 0;

#define CHECK(cond, ...) TestCount(failures, cond, __VA_ARGS__)

#define NKIND 4
static const char *const kinds[NKIND]     = {"-solid_cell tet -solid_order 1", "-solid_cell tet -solid_order 2", "-solid_cell hex -solid_order 1", "-solid_cell hex -solid_order 2"};
static const char *const kindname[NKIND]  = {"P1 tet", "P2 tet", "Q1 hex", "Q2 hex"};
static const PetscInt    kindorder[NKIND] = {1, 2, 1, 2};

/* The manufactured solution: u = A s(X) c, s = sin(pi x) sin(pi y) sin(pi z), c = (1, 2, 3) */
typedef struct {
  PetscReal mu, lambda, A;
  PetscReal tscale; /* b is multiplied by 1 + tscale t */
  PetscInt  fail;   /* the body force fails on this rank (-1: never) */
  PetscBool nan;    /* the body force returns NaN */
} MMS;

static const PetscReal mmsc[3] = {1, 2, 3};

/* b = -div sigma(u) = -(mu lap u + (lambda + mu) grad div u) */
static PetscErrorCode MMSBody(PetscReal t, const PetscReal X[], PetscReal b[], void *ctx)
{
  MMS        *m = (MMS *)ctx;
  PetscReal   sn[3], cs[3], H[9], s;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCheck(m->fail != rank, PETSC_COMM_SELF, PETSC_ERR_USER, "the test's body force fails on rank %d", (int)rank);
  for (PetscInt d = 0; d < 3; d++) {
    sn[d] = PetscSinReal(PETSC_PI * X[d]);
    cs[d] = PetscCosReal(PETSC_PI * X[d]);
  }
  s = sn[0] * sn[1] * sn[2];
  /* H_ij = d_i d_j s */
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) H[3 * i + j] = i == j ? -PETSC_PI * PETSC_PI * s : PETSC_PI * PETSC_PI * cs[i] * cs[j] * sn[3 - i - j];
  for (PetscInt i = 0; i < 3; i++) {
    PetscReal gd = 0;

    for (PetscInt j = 0; j < 3; j++) gd += mmsc[j] * H[3 * i + j];
    b[i] = -m->A * (1 + m->tscale * t) * (m->mu * (-3 * PETSC_PI * PETSC_PI) * mmsc[i] * s + (m->lambda + m->mu) * gd);
  }
  if (m->nan) b[1] = (PetscReal)NAN;
  PetscFunctionReturn(0);
}

static PetscErrorCode MMSExact(PetscReal t, const PetscReal X[], PetscReal u[], PetscReal gu[], void *ctx)
{
  MMS      *m = (MMS *)ctx;
  PetscReal sn[3], cs[3], g[3];

  PetscFunctionBegin;
  (void)t;
  for (PetscInt d = 0; d < 3; d++) {
    sn[d] = PetscSinReal(PETSC_PI * X[d]);
    cs[d] = PetscCosReal(PETSC_PI * X[d]);
  }
  g[0] = PETSC_PI * cs[0] * sn[1] * sn[2];
  g[1] = PETSC_PI * sn[0] * cs[1] * sn[2];
  g[2] = PETSC_PI * sn[0] * sn[1] * cs[2];
  for (PetscInt i = 0; i < 3; i++) {
    u[i] = m->A * mmsc[i] * sn[0] * sn[1] * sn[2];
    for (PetscInt j = 0; j < 3; j++) gu[3 * i + j] = m->A * mmsc[i] * g[j];
  }
  PetscFunctionReturn(0);
}

/* The exact displacement for DMComputeL2Diff() */
static PetscErrorCode MMSExactPETSc(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar u[], void *ctx)
{
  PetscReal gu[9], ur[3];

  PetscFunctionBegin;
  (void)dim;
  (void)Nc;
  PetscCall(MMSExact(t, x, ur, gu, ctx));
  for (PetscInt i = 0; i < 3; i++) u[i] = ur[i];
  PetscFunctionReturn(0);
}

/*
  The L2 error of q - X by PETSc's DMComputeL2Diff() on a clone of the solid's DM given PETSc's
  Lagrange element of order p (3 components, quadrature of degree 2 p + 2): the same number on the
  built-in cube, whose cells are straight and whose nodes are PETSc's (one per vertex, edge, face,
  cell)
*/
static PetscErrorCode PETScL2(MechSystem sys, PetscInt e, Vec q, MMS *m, PetscReal *l2)
{
  DM       dm, cdm;
  PetscFE  fe;
  Vec      u, X, v;
  PetscInt n, nc;
  void    *ctxs[1]                                                                                    = {m};
  PetscErrorCode (*funcs[1])(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar[], void *) = {MMSExactPETSc};

  PetscFunctionBegin;
  PetscCall(MechSystemGetDM(sys, &dm));
  PetscCall(DMClone(dm, &cdm));
  PetscCall(PetscFECreateLagrange(PETSC_COMM_WORLD, 3, 3, e < 2 ? PETSC_TRUE : PETSC_FALSE, kindorder[e], PETSC_DETERMINE, &fe));
  /* the rule of MechSolidComputeError() (bodyforce.c), so that both compute the same sum */
  {
    PetscQuadrature quad;

    if (e < 2) PetscCall(PetscDTSimplexQuadrature(3, 2 * kindorder[e] + 2, PETSCDTSIMPLEXQUAD_DEFAULT, &quad));
    else PetscCall(PetscDTGaussTensorQuadrature(3, 1, kindorder[e] + 2, -1.0, 1.0, &quad));
    PetscCall(PetscFESetQuadrature(fe, quad));
    PetscCall(PetscQuadratureDestroy(&quad));
  }
  PetscCall(DMSetField(cdm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(cdm));
  PetscCall(DMCreateGlobalVector(cdm, &u));
  PetscCall(VecGetLocalSize(u, &n));
  PetscCall(VecGetLocalSize(q, &nc));
  PetscCheck(n == nc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PETSc's layout has %" PetscInt_FMT " local dofs, the solid's %" PetscInt_FMT, n, nc);
  PetscCall(MechSystemCreateState(sys, &X, &v));
  PetscCall(VecWAXPY(u, -1, X, q));
  PetscCall(DMComputeL2Diff(cdm, 0, funcs, ctxs, u, l2));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&u));
  PetscCall(PetscFEDestroy(&fe));
  PetscCall(DMDestroy(&cdm));
  PetscFunctionReturn(0);
}

/* The unit cube of n^3 boxes of element kind e, linear elasticity, all six faces clamped, with the body force of m */
static PetscErrorCode CreateCube(PetscInt e, PetscInt n, MMS *m, MechSystem *sys)
{
  char opts[1024];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opts, sizeof(opts),
                          "%s -solid_beam_cells %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT " -solid_beam_size 1,1,1 -solid_material linear -solid_mu %g -solid_lambda %g -solid_density 1 -solid_g 0,0,0 -solid_output_stress false "
                          "-solid_bc wall -solid_bc_wall_where box",
                          kinds[e], n, n, n, (double)m->mu, (double)m->lambda));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, sys));
  PetscCall(MechSolidSetBodyForce(*sys, MMSBody, m));
  PetscFunctionReturn(0);
}

/*
  The static solution q of f(q) = 0 (one linear solve: the material is linear) of the cube of element
  e and its errors, pl2 the L2 error by DMComputeL2Diff(); res: |f(q)| / |f(X)|
*/
static PetscErrorCode SolveStatic(MechSystem sys, PetscInt e, MMS *m, PetscReal *l2, PetscReal *h1, PetscReal *pl2, PetscReal *res, PetscInt *ndofs)
{
  Vec          q, v, f, du;
  Mat          K;
  IS           fixed;
  KSP          ksp;
  PC           pc;
  MatNullSpace nsp;
  PetscReal    f0, f1;

  PetscFunctionBegin;
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(VecGetSize(q, ndofs));
  PetscCall(VecDuplicate(q, &f));
  PetscCall(VecDuplicate(q, &du));
  PetscCall(MechSystemComputeForce(sys, 0, q, v, f));
  PetscCall(VecNorm(f, NORM_2, &f0));
  PetscCall(MechSystemCreateOperator(sys, &K));
  PetscCall(MechSystemComputeOperator(sys, 0, q, v, 1, 0, 0, K));
  /* the fixed dofs' rows and columns are decoupled with a zero diagonal: give them 1 (du = 0 there) */
  PetscCall(MechSystemGetFixed(sys, &fixed));
  PetscCall(MatZeroRowsColumnsIS(K, fixed, 1.0, NULL, NULL));
  PetscCall(MatNullSpaceCreateRigidBody(q, &nsp));
  PetscCall(MatSetNearNullSpace(K, nsp));
  PetscCall(MatNullSpaceDestroy(&nsp));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, "mms_"));
  PetscCall(KSPSetOperators(ksp, K, K));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  /* block Jacobi with incomplete Cholesky: half the time of GAMG (-mms_pc_type gamg) on these sizes */
  PetscCall(PCSetType(pc, PCBJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-12, 1e-50, PETSC_DEFAULT, 5000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  {
    PetscBool bj, given;

    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCBJACOBI, &bj));
    PetscCall(PetscOptionsHasName(NULL, "mms_sub_", "-pc_type", &given));
    if (bj && !given) {
      KSP     *sub;
      PetscInt nl;

      PetscCall(PCBJacobiGetSubKSP(pc, &nl, NULL, &sub));
      for (PetscInt i = 0; i < nl; i++) {
        PC spc;

        PetscCall(KSPGetPC(sub[i], &spc));
        PetscCall(PCSetType(spc, PCICC));
      }
    }
  }
  PetscCall(VecScale(f, -1));
  PetscCall(KSPSolve(ksp, f, du));
  {
    KSPConvergedReason reason;

    PetscCall(KSPGetConvergedReason(ksp, &reason));
    CHECK(reason > 0, "the static solve did not converge (%s)\n", KSPConvergedReasons[reason]);
  }
  PetscCall(VecAXPY(q, 1, du));
  PetscCall(MechSystemComputeForce(sys, 0, q, v, f));
  PetscCall(VecNorm(f, NORM_2, &f1));
  *res = f1 / f0;
  PetscCall(MechSolidComputeError(sys, 0, q, MMSExact, m, l2, h1));
  PetscCall(PETScL2(sys, e, q, m, pl2));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&K));
  PetscCall(VecDestroy(&du));
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}

/* The error table and its rates for every element */
static PetscErrorCode TestRates(void)
{
  MMS       m = {1.0, 1.5, 0.01, 0, -1, PETSC_FALSE};
  PetscReal err[NKIND][4][2];
  PetscInt  only = -1;

  PetscFunctionBegin;
  /* -only E: the rates of element E (0..3) only, without the comparisons between elements */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-only", &only, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "manufactured solution u = %g sin(pi x) sin(pi y) sin(pi z) (1, 2, 3), mu = %g, lambda = %g, unit cube clamped on all faces\n", (double)m.A, (double)m.mu, (double)m.lambda));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "| element | n | dofs | L2 error | L2 rate | H1 error | H1 rate |\n|---|---|---|---|---|---|---|\n"));
  for (PetscInt e = 0; e < NKIND; e++) {
    const PetscInt p = kindorder[e], nmesh = p == 1 ? 4 : 3;
    PetscReal      dpetsc = 0;

    if (only >= 0 && e != only) continue;
    for (PetscInt k = 0; k < nmesh; k++) {
      const PetscInt n = 2 << k;
      MechSystem     sys;
      PetscReal      res, r[2] = {0, 0}, pl2;
      PetscInt       ndofs;
      char           rate[2][16] = {"", ""};

      PetscLogDouble t0, t1, t2;

      PetscCall(PetscTime(&t0));
      PetscCall(CreateCube(e, n, &m, &sys));
      PetscCall(PetscTime(&t1));
      PetscCall(SolveStatic(sys, e, &m, &err[e][k][0], &err[e][k][1], &pl2, &res, &ndofs));
      dpetsc = PetscMax(dpetsc, PetscAbsReal(pl2 - err[e][k][0]) / err[e][k][0]);
      PetscCall(MechSystemDestroy(&sys));
      PetscCall(PetscTime(&t2));
      PetscCall(PetscInfo(NULL, "%s n = %" PetscInt_FMT ": set-up %.2f s, solve %.2f s\n", kindname[e], n, t1 - t0, t2 - t1));
      for (PetscInt j = 0; j < 2 && k > 0; j++) {
        r[j] = PetscLog2Real(err[e][k - 1][j] / err[e][k][j]);
        PetscCall(PetscSNPrintf(rate[j], sizeof(rate[j]), "%.2f", (double)r[j]));
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "| %s | %" PetscInt_FMT " | %" PetscInt_FMT " | %.3e | %s | %.3e | %s |\n", kindname[e], n, ndofs, (double)err[e][k][0], rate[0], (double)err[e][k][1], rate[1]));
      CHECK(res <= 1e-9, "%s n = %" PetscInt_FMT ": f(q) at the static solution %.2e of f(X)\n", kindname[e], n, (double)res);
      if (k == nmesh - 1) {
        CHECK(PetscAbsReal(r[0] - (p + 1)) <= 0.25, "%s: observed L2 rate %.2f, expected %d +- 0.25\n", kindname[e], (double)r[0], (int)(p + 1));
        CHECK(PetscAbsReal(r[1] - p) <= 0.25, "%s: observed H1 rate %.2f, expected %d +- 0.25\n", kindname[e], (double)r[1], (int)p);
      }
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: MechSolidComputeError() against DMComputeL2Diff() with the same rule: %.1e relative at most\n", kindname[e], (double)dpetsc));
    CHECK(dpetsc <= 1e-11, "%s: the L2 error differs from DMComputeL2Diff()'s by %.2e\n", kindname[e], (double)dpetsc);
  }
  /* on n = 8 (index 2), the finest mesh of every element */
  for (PetscInt e = 1; e < NKIND && only < 0; e += 2)
    for (PetscInt j = 0; j < 2; j++) CHECK(err[e][2][j] < err[e - 1][2][j], "%s's %s error %.3e not below %s's %.3e on n = 8\n", kindname[e], j ? "H1" : "L2", (double)err[e][2][j], kindname[e - 1], (double)err[e - 1][2][j]);
  PetscFunctionReturn(0);
}

/* An affine displacement u = G X + c, which every element interpolates exactly */
static const PetscReal affG[9] = {0.1, -0.2, 0.05, 0.3, 0.02, -0.1, -0.05, 0.15, 0.2}, affc[3] = {0.01, -0.02, 0.03};

static PetscErrorCode AffineExact(PetscReal t, const PetscReal X[], PetscReal u[], PetscReal gu[], void *ctx)
{
  PetscFunctionBegin;
  (void)t;
  (void)ctx;
  for (PetscInt i = 0; i < 3; i++) {
    u[i] = affc[i];
    for (PetscInt j = 0; j < 3; j++) {
      u[i] += affG[3 * i + j] * X[j];
      gu[3 * i + j] = affG[3 * i + j];
    }
  }
  PetscFunctionReturn(0);
}

/*
  MechSolidComputeError() against closed forms on n = 4: at q = X (u_h = 0) the norms of (14.2),
  ||u||_L2 = A sqrt(14 / 8) and |u|_H1 = A pi sqrt(42 / 8); the affine field, interpolated
  exactly, has no error
*/
static PetscErrorCode TestNorms(void)
{
  MMS       m  = {1.0, 1.5, 0.01, 0, -1, PETSC_FALSE};
  PetscReal L2 = m.A * PetscSqrtReal(14.0 / 8), H1 = m.A * PETSC_PI * PetscSqrtReal(42.0 / 8);

  PetscFunctionBegin;
  for (PetscInt e = 0; e < NKIND; e++) {
    MechSystem   sys;
    Vec          q, v;
    PetscReal    l2, h1, al2, ah1;
    PetscScalar *x;
    PetscInt     n;

    PetscCall(CreateCube(e, 4, &m, &sys));
    {
      /* -solid_bc_wall_where box holds the (4 p + 1)^3 - (4 p - 1)^3 nodes of the cube's surface */
      const PetscInt k = 4 * kindorder[e];
      IS             fixed;
      PetscInt       nfix;

      PetscCall(MechSystemGetFixed(sys, &fixed));
      PetscCall(ISGetSize(fixed, &nfix));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "box %s: %" PetscInt_FMT " fixed dofs, the surface's nodes have %" PetscInt_FMT "\n", kindname[e], nfix, 3 * ((k + 1) * (k + 1) * (k + 1) - (k - 1) * (k - 1) * (k - 1))));
      CHECK(nfix == 3 * ((k + 1) * (k + 1) * (k + 1) - (k - 1) * (k - 1) * (k - 1)), "%s: -solid_bc_wall_where box holds %" PetscInt_FMT " dofs\n", kindname[e], nfix);
    }
    PetscCall(MechSystemCreateState(sys, &q, &v));
    PetscCall(MechSolidComputeError(sys, 0, q, MMSExact, &m, &l2, &h1));
    PetscCall(VecGetLocalSize(q, &n));
    PetscCall(VecGetArray(q, &x));
    for (PetscInt k = 0; k < n; k += 3) {
      PetscReal X[3] = {PetscRealPart(x[k]), PetscRealPart(x[k + 1]), PetscRealPart(x[k + 2])};

      for (PetscInt i = 0; i < 3; i++) x[k + i] += affc[i] + affG[3 * i] * X[0] + affG[3 * i + 1] * X[1] + affG[3 * i + 2] * X[2];
    }
    PetscCall(VecRestoreArray(q, &x));
    PetscCall(MechSolidComputeError(sys, 0, q, AffineExact, NULL, &al2, &ah1));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "norms %s: ||u|| %.10e, |u|_1 %.10e: %.1e, %.1e from the exact; the affine field's errors %.1e, %.1e\n", kindname[e], (double)l2, (double)h1, (double)(PetscAbsReal(l2 - L2) / L2), (double)(PetscAbsReal(h1 - H1) / H1), (double)al2, (double)ah1));
    CHECK(PetscAbsReal(l2 - L2) <= 1e-8 * L2 && PetscAbsReal(h1 - H1) <= 1e-8 * H1, "%s: the norms of the exact field are off: %.3e, %.3e relative\n", kindname[e], (double)(PetscAbsReal(l2 - L2) / L2), (double)(PetscAbsReal(h1 - H1) / H1));
    CHECK(al2 <= 1e-14 && ah1 <= 1e-13, "%s: the affine field's interpolation has errors %.2e, %.2e\n", kindname[e], (double)al2, (double)ah1);
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(MechSystemDestroy(&sys));
  }
  PetscFunctionReturn(0);
}

/* The body force in the potential and the discrete gradient, and its time dependence */
static PetscErrorCode TestPotential(void)
{
  MMS         m = {1.0, 1.5, 0.01, 0.5, -1, PETSC_FALSE};
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscCall(FDRandomCreate(PETSC_COMM_WORLD, 11, &rnd));
  for (PetscInt e = 1; e < NKIND; e += 2) {
    MechSystem  sys;
    Vec         q0, q1, v, f, r, X;
    PetscReal   errV, V0, V1, Vx, T, dg, fu, ratio, back, n0, scale;
    PetscScalar d;

    PetscCall(CreateCube(e, 2, &m, &sys));
    PetscCall(MechSystemCreateState(sys, &q0, &v));
    PetscCall(VecDuplicate(q0, &X));
    PetscCall(VecCopy(q0, X));
    PetscCall(VecDuplicate(q0, &q1));
    PetscCall(VecDuplicate(q0, &f));
    PetscCall(VecDuplicate(q0, &r));
    /* the potential's body-force part: at q = X + w (w free, the clamped faces at rest) the elastic
       energy is 1/2 w.K w = 1/2 w.(f(X + w) - f(X)), the rest is F . w = f(X) . w; w along -f(X)
       and a random field, so that F . w is not small */
    PetscCall(MechSystemComputeForce(sys, 0.25, X, v, f));
    PetscCall(VecSetRandom(r, rnd));
    PetscCall(VecAXPBY(r, -0.1, 0.01, f));
    PetscCall(VecWAXPY(q1, 1, r, X));
    PetscCall(MechSystemApplyFixed(sys, q1, v));
    PetscCall(VecWAXPY(r, -1, X, q1));
    PetscCall(MechSystemComputeEnergy(sys, 0.25, q1, v, &T, &V1));
    PetscCall(MechSystemComputeEnergy(sys, 0.25, X, v, &T, &Vx));
    PetscCall(VecDot(f, r, &d));
    fu = PetscRealPart(d);
    PetscCall(MechSystemComputeForce(sys, 0.25, q1, v, q0));
    PetscCall(VecAXPY(q0, -1, f));
    PetscCall(VecDot(q0, r, &d));
    scale = PetscAbsReal(fu) + PetscAbsReal(0.5 * PetscRealPart(d));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "potential %s: V(X) = %.2e, V(X + w) - (w.K w / 2 + f(X) . w) = %.2e, f(X) . w = %.2e of %.2e\n", kindname[e], (double)Vx, (double)(V1 - 0.5 * PetscRealPart(d) - fu), (double)fu, (double)scale));
    CHECK(PetscAbsReal(Vx) <= 1e-14 * scale && PetscAbsReal(V1 - 0.5 * PetscRealPart(d) - fu) <= 1e-10 * scale && PetscAbsReal(fu) > 0.1 * scale, "%s: the body force's potential is not -int b . u\n", kindname[e]);
    /* f is the gradient of the potential */
    PetscCall(FDCheckPotential(sys, q1, rnd, 1e-3, 4, &errV));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "potential %s: |f - dV| %.2e\n", kindname[e], (double)errV));
    CHECK(errV <= 1e-8, "%s: the force with the body force is not the gradient of the potential: %.2e\n", kindname[e], (double)errV);
    /* the discrete gradient: V(q1) - V(q0) = fbar . (q1 - q0) */
    PetscCall(VecCopy(X, q0));
    PetscCall(VecSetRandom(r, rnd));
    PetscCall(VecAXPY(q0, 0.02, r));
    PetscCall(MechSystemApplyFixed(sys, q0, v));
    PetscCall(MechSystemComputeEnergy(sys, 0.25, q0, v, &T, &V0));
    PetscCall(MechSystemComputeEnergy(sys, 0.25, q1, v, &T, &V1));
    PetscCall(MechSystemComputeDiscreteGradient(sys, 0.25, q0, q1, v, f));
    PetscCall(VecWAXPY(r, -1, q0, q1));
    PetscCall(VecDot(f, r, &d));
    dg = PetscAbsReal(V1 - V0 - PetscRealPart(d)) / (PetscAbsReal(V1) + PetscAbsReal(V0));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "potential %s: |V(q1) - V(q0) - fbar . (q1 - q0)| %.2e relative\n", kindname[e], (double)dg));
    CHECK(dg <= 1e-12, "%s: the discrete gradient misses the body force: %.2e\n", kindname[e], (double)dg);
    /* b (1 + t/2): f(X) at t = 2 is twice f(X) at t = 0, and t = 0 again gives the first */
    PetscCall(MechSystemComputeForce(sys, 0, X, v, f));
    PetscCall(MechSystemComputeForce(sys, 2, X, v, r));
    PetscCall(VecNorm(f, NORM_2, &n0));
    PetscCall(VecAXPY(r, -2, f));
    PetscCall(VecNorm(r, NORM_2, &ratio));
    PetscCall(MechSystemComputeForce(sys, 0, X, v, r));
    PetscCall(VecAXPY(r, -1, f));
    PetscCall(VecNorm(r, NORM_2, &back));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "time %s: |f(2) - 2 f(0)| %.2e, |f(0) again - f(0)| %.2e of |f(0)| %.2e\n", kindname[e], (double)ratio, (double)back, (double)n0));
    CHECK(n0 > 0 && ratio <= 1e-13 * n0 && back == 0, "%s: the body force does not follow its time dependence\n", kindname[e]);
    PetscCall(VecDestroy(&X));
    PetscCall(VecDestroy(&q0));
    PetscCall(VecDestroy(&q1));
    PetscCall(VecDestroy(&f));
    PetscCall(VecDestroy(&r));
    PetscCall(VecDestroy(&v));
    PetscCall(MechSystemDestroy(&sys));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

static const char tight[] = "-snes_rtol 1e-14 -snes_atol 1e-15 -snes_stol 0 -snes_max_it 30 -ksp_type gmres -ksp_rtol 1e-15 -ksp_atol 1e-17 -ksp_max_it 2000 -pc_type jacobi";

/*
  A neo-Hookean cube (P2 tetrahedra and Q2 hexahedra, n = 2) released from rest under the body
  force of (14.2) (A = 0.05, constant in time): discgrad2 keeps the energy, kinetic plus elastic
  plus -int b . u, over 20 steps
*/
static PetscErrorCode TestDynamics(void)
{
  MMS m = {1.0, 1.5, 0.05, 0, -1, PETSC_FALSE};

  PetscFunctionBegin;
  for (PetscInt e = 1; e < NKIND; e += 2) {
    MechSystem sys;
    Vec        q0, v0, q, v;
    PetscReal  T0, V0, T1, V1, drift;
    char       opts[512];

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_beam_cells 2,2,2 -solid_beam_size 1,1,1 -solid_material neohookean -solid_mu 1 -solid_lambda 1.5 -solid_density 1 -solid_g 0,0,0 -solid_output_stress false -solid_bc wall -solid_bc_wall_where box", kinds[e]));
    PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
    PetscCall(MechSolidSetBodyForce(sys, MMSBody, &m));
    PetscCall(MechSystemCreateState(sys, &q0, &v0));
    PetscCall(MechSystemComputeEnergy(sys, 0, q0, v0, &T0, &V0));
    PetscCall(TestIntegrate(sys, TSDISCGRAD2, tight, 0.05, 1.0, &q, &v, NULL, NULL));
    PetscCall(MechSystemComputeEnergy(sys, 1.0, q, v, &T1, &V1));
    drift = PetscAbsReal(T1 + V1 - T0 - V0) / (PetscAbsReal(T1) + PetscAbsReal(V1));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "dynamics %s neohookean, 20 discgrad2 steps: kinetic %.3e, potential %.3e, energy drift %.1e relative\n", kindname[e], (double)T1, (double)V1, (double)drift));
    CHECK(T1 > 0 && drift <= 1e-10, "%s: discgrad2 with the body force does not keep the energy: %.2e\n", kindname[e], (double)drift);
    PetscCall(VecDestroy(&q0));
    PetscCall(VecDestroy(&v0));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(MechSystemDestroy(&sys));
  }
  PetscFunctionReturn(0);
}

/* The refusals: an error on one rank reaches every rank; NaN; another model; NULL */
static PetscErrorCode TestRefusals(void)
{
  MMS            m = {1.0, 1.5, 0.01, 0, -1, PETSC_FALSE};
  MechSystem     sys, osc;
  Vec            q, v, f;
  PetscErrorCode ierr;
  PetscMPIInt    size;
  const char    *text;
  char          *msg = NULL;
  PetscBool      found;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(CreateCube(0, 2, &m, &sys));
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(VecDuplicate(q, &f));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  /* the last rank fails */
  m.fail = size - 1;
  ierr   = MechSystemComputeForce(sys, 0, q, v, f);
  (void)PetscErrorMessage(ierr, &text, &msg);
  found = msg && strstr(msg, "the test's body force fails on rank") ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "refusal (rank of %d): error %d \"%s\"\n", (int)size, (int)ierr, msg ? msg : ""));
  CHECK(ierr && found, "an error of the body force on rank %d did not reach every rank\n", (int)(size - 1));
  m.fail = -1;
  m.nan  = PETSC_TRUE;
  ierr   = MechSystemComputeForce(sys, 1, q, v, f);
  (void)PetscErrorMessage(ierr, &text, &msg);
  found = msg && strstr(msg, "the body force is not finite at t = 1") ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "refusal: NaN body force: \"%s\"\n", msg ? msg : ""));
  CHECK(ierr && found, "a body force that is not finite was not refused\n");
  m.nan = PETSC_FALSE;
  ierr  = MechSolidSetBodyForce(sys, NULL, NULL);
  CHECK(ierr == PETSC_ERR_ARG_NULL, "MechSolidSetBodyForce(NULL) was not refused\n");
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "oscillator", "", &osc));
  ierr = MechSolidSetBodyForce(osc, MMSBody, &m);
  (void)PetscErrorMessage(ierr, &text, &msg);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "refusal: another model: \"%s\"\n", msg ? msg : ""));
  CHECK(ierr == PETSC_ERR_ARG_WRONG, "MechSolidSetBodyForce() on the oscillator was not refused\n");
  /* box is a constraint's selection, not a plane of -solid_fix */
  PetscCall(PetscOptionsInsertString(NULL, "-solid_fix box"));
  ierr = MechCreateModel(PETSC_COMM_WORLD, "solid", &osc);
  PetscCall(TestClearOptions("-solid_fix box"));
  (void)PetscErrorMessage(ierr, &text, &msg);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "refusal: -solid_fix box: \"%s\"\n", msg ? msg : ""));
  CHECK(ierr == PETSC_ERR_ARG_WRONG && msg && strstr(msg, "-solid_fix box: expected a coordinate plane"), "-solid_fix box was not refused\n");
  PetscCall(PetscPopErrorHandler());
  /* the system still works after the refusals */
  PetscCall(MechSystemComputeForce(sys, 2, q, v, f));
  PetscCall(MechSystemDestroy(&osc));
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage());
  PetscCall(TestRates());
  {
    PetscBool only;

    PetscCall(PetscOptionsHasName(NULL, NULL, "-only", &only));
    if (!only) {
      PetscCall(TestNorms());
      PetscCall(TestPotential());
      PetscCall(TestDynamics());
      PetscCall(TestRefusals());
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failure(s)\n", failures ? "FAILED" : "passed", failures));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
