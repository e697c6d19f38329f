static const char help[] = "The semidefinite preconditioning matrix (-ts_theta_pc_definite, MechSystemSetTangentDefinite()).\n"
                           "1. On the grid models compressed uniformly (every spring shorter than its rest length, at\n"
                           "   rest) the exact operator cK K + cD D + cM M is indefinite (its Cholesky factorization\n"
                           "   meets a non-positive pivot, in plain C), while MechSystemComputeOperatorDefinite() is\n"
                           "   symmetric positive definite and differs from it; stretched, the two are equal.\n"
                           "2. The cloth started compressed, integrated with tight tolerances: the final states with the\n"
                           "   semidefinite preconditioning matrix (assembled Jacobian: a second matrix; matrix-free)\n"
                           "   agree with those of the exact one (the default), and the second matrix\n"
                           "   is positive definite and differs from the exact Jacobian.\n"
                           "Run on several ranks (the operators read ghosts).\n"
                           "  -tol <1e-13> agreement when stretched, -soltol <1e-8> agreement of the final states\n"
                           "  -mass <1e-2> cloth mass, -compress <0.99> initial spacing over rest length\n";

#include "integ.h"

/*
  Cholesky factorization of the symmetric n x n row-major a (overwritten), in plain C: returns the
  smallest pivot relative to the largest diagonal entry, stopping at the first non-positive one
  (then the matrix is not positive definite), and the largest asymmetry |a_ij - a_ji| / max|a_ii|.
*/
static void DenseCholesky(PetscInt n, PetscReal *a, PetscReal *minpivot, PetscReal *asym)
{
  PetscReal dmax = 0, pmin = PETSC_MAX_REAL, as = 0;

  for (PetscInt i = 0; i < n; i++) dmax = PetscMax(dmax, PetscAbsReal(a[i * n + i]));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < i; j++) as = PetscMax(as, PetscAbsReal(a[i * n + j] - a[j * n + i]));
  for (PetscInt j = 0; j < n; j++) {
    PetscReal d = a[j * n + j];

    for (PetscInt k = 0; k < j; k++) d -= a[j * n + k] * a[j * n + k];
    pmin = PetscMin(pmin, d / dmax);
    if (d <= 0) break;
    d            = PetscSqrtReal(d);
    a[j * n + j] = d;
    for (PetscInt i = j + 1; i < n; i++) {
      PetscReal s = a[i * n + j];

      for (PetscInt k = 0; k < j; k++) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / d;
    }
  }
  *minpivot = pmin;
  *asym     = as / dmax;
}

/* Positions of the initial state scaled by factor (about the origin), at rest */
static PetscErrorCode ScaledState(MechSystem sys, PetscReal factor, Vec *q, Vec *v)
{
  PetscFunctionBegin;
  PetscCall(MechSystemCreateState(sys, q, v));
  PetscCall(VecScale(*q, factor));
  PetscCall(VecZeroEntries(*v));
  PetscFunctionReturn(0);
}

/* The smallest relative Cholesky pivot and the asymmetry of A */
static PetscErrorCode MatCholeskyCheck(Mat A, PetscReal *minpivot, PetscReal *asym)
{
  PetscInt   n;
  PetscReal *a;

  PetscFunctionBegin;
  PetscCall(IntegMatToDense(A, &n, &a));
  DenseCholesky(n, a, minpivot, asym);
  PetscCall(PetscFree(a));
  PetscFunctionReturn(0);
}

/*
  The exact and the semidefinite operator cK K + cD D + cM M, compressed (factor 0.9) and stretched
  (factor 1.1); with equal, they must agree when stretched (no penalty term active).
*/
static PetscErrorCode CheckOperators(MechSystem sys, const char name[], PetscBool equal, PetscReal tol)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)sys);
  const PetscReal cK = 1.0, cD = 0.5, cM = 1.0;
  PetscBool       has;
  Mat             A, P;
  Vec             q, v;
  PetscReal       pa, pp, asym, na, nd;

  PetscFunctionBegin;
  PetscCall(MechSystemHasTangentDefinite(sys, &has));
  TestCheck(comm, has, "%s: the model gives no semidefinite tangent", name);
  PetscCall(MechSystemCreateOperator(sys, &A));
  PetscCall(MechSystemCreateOperator(sys, &P));

  PetscCall(ScaledState(sys, 0.9, &q, &v));
  PetscCall(MechSystemComputeOperator(sys, 0.0, q, v, cK, cD, cM, A));
  PetscCall(MechSystemComputeOperatorDefinite(sys, 0.0, q, v, cK, cD, cM, P));
  PetscCall(MatNorm(A, NORM_FROBENIUS, &na));
  PetscCall(MatAXPY(A, -1.0, P, SAME_NONZERO_PATTERN));
  PetscCall(MatNorm(A, NORM_FROBENIUS, &nd));
  PetscCall(MechSystemComputeOperator(sys, 0.0, q, v, cK, cD, cM, A));
  PetscCall(MatCholeskyCheck(A, &pa, &asym));
  PetscCall(MatCholeskyCheck(P, &pp, &asym));
  PetscCall(PetscPrintf(comm, "%-40s compressed: exact pivot %+.2e, definite pivot %+.2e (asymmetry %.1e), difference %.2e\n", name, (double)pa, (double)pp, (double)asym, (double)(nd / na)));
  TestCheck(comm, pa <= 0, "%s: the exact operator of the compressed model should be indefinite (smallest Cholesky pivot %g)", name, (double)pa);
  TestCheck(comm, pp > 0, "%s: the semidefinite operator is not positive definite (Cholesky pivot %g)", name, (double)pp);
  TestCheck(comm, asym <= 1e-14, "%s: the semidefinite operator is not symmetric (%g)", name, (double)asym);
  TestCheck(comm, nd > 1e-3 * na, "%s: compressed, the semidefinite operator should differ from the exact one (%g relative)", name, (double)(nd / na));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));

  PetscCall(ScaledState(sys, 1.1, &q, &v));
  PetscCall(MechSystemComputeOperator(sys, 0.0, q, v, cK, cD, cM, A));
  PetscCall(MechSystemComputeOperatorDefinite(sys, 0.0, q, v, cK, cD, cM, P));
  PetscCall(MatCholeskyCheck(P, &pp, &asym));
  PetscCall(MatNorm(A, NORM_FROBENIUS, &na));
  PetscCall(MatAXPY(A, -1.0, P, SAME_NONZERO_PATTERN));
  PetscCall(MatNorm(A, NORM_FROBENIUS, &nd));
  PetscCall(PetscPrintf(comm, "%-40s stretched:  definite pivot %+.2e, difference from the exact operator %.2e\n", name, (double)pp, (double)(nd / na)));
  TestCheck(comm, pp > 0, "%s: stretched, the semidefinite operator is not positive definite (Cholesky pivot %g)", name, (double)pp);
  if (equal) TestCheck(comm, nd <= tol * na, "%s: stretched, the semidefinite operator should equal the exact one (%g relative, tolerance %g)", name, (double)(nd / na), (double)tol);
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(0);
}

/*
  One midpoint2 run of sys with opts and tight tolerances: CG + block Jacobi/ICC with the
  semidefinite preconditioning matrix, GMRES + LU (MUMPS) with the exact (indefinite) one.
  Returns the final state and the TS (to query).
*/
static PetscErrorCode Run(MechSystem sys, const char prefix[], const char opts[], PetscBool definite, PetscInt nsteps, Vec *q, Vec *v, TS *ts)
{
  const char *tight = "-ksp_rtol 1e-12 -ksp_atol 1e-50 -snes_rtol 1e-11 -snes_atol 1e-30";
  const char *ksp   = definite ? "-ksp_type gmres -pc_type bjacobi -sub_pc_type icc" : "-ksp_type gmres -pc_type lu -pc_factor_mat_solver_type mumps";
  char        o[1024];
  PetscInt    nits, lits;
  PetscBool   def;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(o, sizeof(o), "%s %s %s", opts, ksp, tight));
  PetscCall(TestSolve(sys, "midpoint2", prefix, o, 1e-3, nsteps, 1e30, TS_EXACTFINALTIME_MATCHSTEP, NULL, NULL, q, v, ts));
  PetscCall(TSGetSNESIterations(*ts, &nits));
  PetscCall(TSGetKSPIterations(*ts, &lits));
  PetscCall(TSMechGetPCDefinite(*ts, &def));
  PetscCall(PetscPrintf(PetscObjectComm((PetscObject)sys), "  %-48s pc definite %-5s Newton %3" PetscInt_FMT ", KSP %4" PetscInt_FMT "\n", opts, def ? "true" : "false", nits, lits));
  TestCheck(PetscObjectComm((PetscObject)sys), def == definite, "%s: the preconditioning matrix should %sbe the semidefinite one", opts, definite ? "" : "not ");
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckSolves(MPI_Comm comm, PetscReal mass, PetscReal factor, PetscReal soltol)
{
  char        copts[256];
  const char *runs[][2] = {
      {"b_", "-ts_theta_pc_definite"                      },
      {"c_", "-ts_theta_matrix_free -ts_theta_pc_definite"},
      {"d_", "-ts_theta_matrix_free"                      },
  };
  MechSystem sys;
  Vec        q, v, qa, va, qb, vb;
  TS         tsa, tsb;
  Mat        J, P, D;
  PetscReal  rel, pj, pp, asym, nj, nd;

  PetscFunctionBegin;
  /* a light cloth (theta^2 tau^2 K against M as at larger n) started with every spring at 99 % of
     its rest length: compressed from the first step */
  PetscCall(PetscSNPrintf(copts, sizeof(copts), "-cloth_n 16 -cloth_mass %g", (double)mass));
  PetscCall(IntegCreateModel(comm, "cloth", copts, &sys));
  PetscCall(ScaledState(sys, factor, &q, &v));
  PetscCall(MechSystemSetInitialState(sys, q, v));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));

  PetscCall(Run(sys, "a_", "", PETSC_FALSE, 20, &qa, &va, &tsa));
  PetscCall(TSDestroy(&tsa));
  for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
    PetscCall(Run(sys, runs[r][0], runs[r][1], r < 2 ? PETSC_TRUE : PETSC_FALSE, 20, &qb, &vb, &tsb));
    PetscCall(TestRelDiff(qb, vb, qa, va, &rel));
    PetscCall(PetscPrintf(comm, "  %-48s final state vs the exact preconditioning matrix: %.2e\n", runs[r][1], (double)rel));
    TestCheck(comm, rel <= soltol, "%s: the final state differs from that with the exact preconditioning matrix by %g (tolerance %g)", runs[r][1], (double)rel, (double)soltol);
    if (r == 0) {
      SNES snes;

      /* assembled Jacobian: a second matrix, definite where the (exact) Jacobian is not */
      PetscCall(TSGetSNES(tsb, &snes));
      PetscCall(SNESGetJacobian(snes, &J, &P, NULL, NULL));
      TestCheck(comm, J != P, "-ts_theta_pc_definite with the assembled Jacobian must give a separate preconditioning matrix");
      PetscCall(MatCholeskyCheck(J, &pj, &asym));
      PetscCall(MatCholeskyCheck(P, &pp, &asym));
      PetscCall(MatNorm(J, NORM_FROBENIUS, &nj));
      PetscCall(MatDuplicate(J, MAT_COPY_VALUES, &D));
      PetscCall(MatAXPY(D, -1.0, P, SAME_NONZERO_PATTERN));
      PetscCall(MatNorm(D, NORM_FROBENIUS, &nd));
      PetscCall(MatDestroy(&D));
      PetscCall(PetscPrintf(comm, "  last Jacobian: smallest Cholesky pivot %+.2e, preconditioning matrix %+.2e, difference %.2e\n", (double)pj, (double)pp, (double)(nd / nj)));
      TestCheck(comm, pp > 0, "The semidefinite preconditioning matrix is not positive definite (pivot %g)", (double)pp);
      TestCheck(comm, nd > 1e-6 * nj, "The springs are still compressed: the preconditioning matrix should differ from the exact Jacobian (%g relative)", (double)(nd / nj));
    }
    PetscCall(TSDestroy(&tsb));
    PetscCall(VecDestroy(&qb));
    PetscCall(VecDestroy(&vb));
  }
  PetscCall(VecDestroy(&qa));
  PetscCall(VecDestroy(&va));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  MechSystem  sys;
  PetscReal   tol = 1e-13, soltol = 1e-8, mass = 1e-2, factor = 0.99;
  const char *models[][3] = {
      {"chain",   "-chain_n 8 -chain_c 0.3",                                                            "1"},
      {"cloth",   "-cloth_n 6",                                                                         "1"},
      {"cloth",   "-cloth_n 6 -cloth_k_bend 0 -cloth_pin edge",                                         "1"},
      {"cloth",   "-cloth_n 6 -cloth_sphere -cloth_sphere_center 0.5,0.5,0.1 -cloth_sphere_radius 0.3", "0"},
      {"lattice", "-lattice_n 6",                                                                       "1"},
  };

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-soltol", &soltol, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-mass", &mass, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-compress", &factor, NULL));
  for (size_t m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
    char name[256];

    PetscCall(PetscSNPrintf(name, sizeof(name), "%s %s", models[m][0], models[m][1]));
    PetscCall(IntegCreateModel(comm, models[m][0], models[m][1], &sys));
    PetscCall(CheckOperators(sys, name, models[m][2][0] == '1' ? PETSC_TRUE : PETSC_FALSE, tol));
    PetscCall(MechSystemDestroy(&sys));
  }
  PetscCall(CheckSolves(comm, mass, factor, soltol));
  PetscCall(PetscFinalize());
  return 0;
}
