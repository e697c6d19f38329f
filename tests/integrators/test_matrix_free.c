static const char help[] = "The matrix-free Jacobian (-ts_theta_matrix_free) of the grid models.\n"
                           "1. The operator shell equals the assembled operator J = cK K + cD D + cM M on random\n"
                           "   vectors at a perturbed state (fixed dofs included) for the nonlinear damped chain,\n"
                           "   the cloth with its sphere, the linear cloth (undamped: constant blocks; damped:\n"
                           "   zero rest length with a turning damper) and the lattice.\n"
                           "2. theta2 types with the matrix-free Jacobian and a lagged preconditioner reach the\n"
                           "   same states as with the assembled Jacobian (tight tolerances), with fewer\n"
                           "   assemblies than Newton iterations, exactly one on a linear model, and one per\n"
                           "   Newton iteration with -ts_theta_pc_rebuild_growth 0.\n"
                           "3. The tangent pattern of the grid models: the first operator is the system's\n"
                           "   template itself, a released template is built again into the same operator, and\n"
                           "   the reduced preconditioning matrix has fewer entries and the same diagonal;\n"
                           "   -ts_theta_pc_reduced reaches the same states.\n"
                           "Run on several ranks (the shell reads ghosts).\n"
                           "  -tol <1e-13> operator agreement, -soltol <1e-9> agreement of the final states\n";

#include "integ.h"
#include <petscdm.h>

/* Random perturbation of the initial state, so that the springs are stretched and moving */
static PetscErrorCode PerturbedState(MechSystem sys, PetscRandom rnd, Vec *q, Vec *v)
{
  Vec dq;

  PetscFunctionBegin;
  PetscCall(MechSystemCreateState(sys, q, v));
  PetscCall(VecDuplicate(*q, &dq));
  PetscCall(VecSetRandom(dq, rnd));
  PetscCall(VecShift(dq, -0.5));
  PetscCall(VecAXPY(*q, 0.02, dq));
  PetscCall(VecSetRandom(*v, rnd));
  PetscCall(VecShift(*v, -0.5));
  PetscCall(VecDestroy(&dq));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckOperator(MechSystem sys, const char name[], PetscRandom rnd, PetscReal tol, PetscReal *worst)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)sys);
  Vec             q, v, w, ya, yb;
  Mat             A, S;
  const PetscReal coef[][3] = {
      {0.3,    0.7,  1.1},
      {1.0,    0.0,  0.0},
      {0.0,    1.0,  0.0},
      {2.5e-7, 5e-4, 1.0}
  };

  PetscFunctionBegin;
  PetscCall(PerturbedState(sys, rnd, &q, &v));
  PetscCall(VecDuplicate(q, &w));
  PetscCall(VecDuplicate(q, &ya));
  PetscCall(VecDuplicate(q, &yb));
  PetscCall(MechSystemCreateOperator(sys, &A));
  PetscCall(MechSystemCreateOperatorShell(sys, &S));
  for (size_t c = 0; c < sizeof(coef) / sizeof(coef[0]); c++) {
    PetscReal nd, nr;

    PetscCall(VecSetRandom(w, rnd));
    PetscCall(MechSystemComputeOperator(sys, 0.1, q, v, coef[c][0], coef[c][1], coef[c][2], A));
    PetscCall(MechSystemLinearizeOperatorShell(sys, 0.1, q, v, coef[c][0], coef[c][1], coef[c][2], S));
    PetscCall(MatMult(A, w, ya));
    PetscCall(MatMult(S, w, yb));
    PetscCall(VecNorm(ya, NORM_INFINITY, &nr));
    PetscCall(VecAXPY(yb, -1.0, ya));
    PetscCall(VecNorm(yb, NORM_INFINITY, &nd));
    PetscCall(PetscPrintf(comm, "%-28s cK %-7g cD %-7g cM %-4g shell vs assembled: %.2e (|y| %.2e)\n", name, (double)coef[c][0], (double)coef[c][1], (double)coef[c][2], (double)(nd / nr), (double)nr));
    TestCheck(comm, nd <= tol * nr, "%s: the operator shell differs from the assembled operator by %g relative (tolerance %g)", name, (double)(nd / nr), (double)tol);
    *worst = PetscMax(*worst, nd / nr);
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&S));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&yb));
  PetscFunctionReturn(0);
}

/* The template lent, released and built again; the reduced operator's entries and diagonal */
static PetscErrorCode CheckPattern(MechSystem sys, const char name[], PetscRandom rnd)
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)sys);
  Vec       q, v, da, dr;
  Mat       A, B, C, R;
  MatInfo   ia, ir;
  PetscBool has, eq;

  PetscFunctionBegin;
  PetscCall(MechSystemHasTangentPattern(sys, &has));
  TestCheck(comm, has, "%s: the grid models give a pattern builder", name);
  PetscCall(PerturbedState(sys, rnd, &q, &v));
  PetscCall(MechSystemCreateOperator(sys, &A));
  PetscCall(MechSystemCreateOperator(sys, &B));
  TestCheck(comm, A != B, "%s: two operators must be two matrices", name);
  PetscCall(MechSystemComputeOperator(sys, 0.1, q, v, 0.3, 0.7, 1.1, A));
  PetscCall(MechSystemComputeOperator(sys, 0.1, q, v, 0.3, 0.7, 1.1, B));
  PetscCall(MatEqual(A, B, &eq));
  TestCheck(comm, eq, "%s: the lent template and a duplicate give different operators", name);
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &C));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  /* nothing holds the template any more: released, then built again by the next request */
  PetscCall(MechSystemReleasePattern(sys));
  PetscCall(MechSystemCreateOperator(sys, &A));
  PetscCall(MechSystemComputeOperator(sys, 0.1, q, v, 0.3, 0.7, 1.1, A));
  PetscCall(MatEqual(A, C, &eq));
  TestCheck(comm, eq, "%s: the template built again gives another operator", name);
  PetscCall(MechSystemCreateOperatorReduced(sys, &R));
  PetscCall(MechSystemComputeOperator(sys, 0.1, q, v, 0.3, 0.7, 1.1, R));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &ia));
  PetscCall(MatGetInfo(R, MAT_GLOBAL_SUM, &ir));
  PetscCall(MatCreateVecs(A, &da, &dr));
  PetscCall(MatGetDiagonal(A, da));
  PetscCall(MatGetDiagonal(R, dr));
  PetscCall(VecEqual(da, dr, &eq));
  PetscCall(PetscPrintf(comm, "%-28s pattern: %.0f entries, reduced %.0f\n", name, (double)ia.nz_used, (double)ir.nz_used));
  TestCheck(comm, ir.nz_used < ia.nz_used, "%s: the reduced pattern has %g entries, the full one %g", name, (double)ir.nz_used, (double)ia.nz_used);
  TestCheck(comm, eq, "%s: the reduced operator must keep the diagonal of the full one", name);
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&R));
  PetscCall(VecDestroy(&da));
  PetscCall(VecDestroy(&dr));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}

/* Runs type with opts (+ tight solver options) with and without the matrix-free Jacobian */
static PetscErrorCode CheckSolve(MechSystem sys, const char type[], const char opts[], const char mfopts[], PetscInt nsteps, PetscReal soltol, PetscBool linear, PetscBool every)
{
  MPI_Comm    comm  = PetscObjectComm((PetscObject)sys);
  const char *tight = "-ksp_type cg -pc_type bjacobi -sub_pc_type icc -ksp_rtol 1e-12 -ksp_atol 1e-50 -snes_rtol 1e-10 -snes_atol 1e-30";
  char        oa[1024], ob[1024];
  Vec         qa, va, qb, vb;
  TS          tsa, tsb;
  PetscInt    na, nb, rebuilds;
  PetscBool   mf;
  PetscReal   rel;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(oa, sizeof(oa), "%s %s", opts, tight));
  PetscCall(PetscSNPrintf(ob, sizeof(ob), "%s %s -ts_theta_matrix_free %s", opts, tight, mfopts));
  PetscCall(TestSolve(sys, type, "a_", oa, 1e-3, nsteps, 1e30, TS_EXACTFINALTIME_MATCHSTEP, NULL, NULL, &qa, &va, &tsa));
  PetscCall(TestSolve(sys, type, "b_", ob, 1e-3, nsteps, 1e30, TS_EXACTFINALTIME_MATCHSTEP, NULL, NULL, &qb, &vb, &tsb));
  PetscCall(TSGetSNESIterations(tsa, &na));
  PetscCall(TSGetSNESIterations(tsb, &nb));
  PetscCall(TSMechGetMatrixFree(tsb, &mf, NULL, &rebuilds));
  PetscCall(TestRelDiff(qb, vb, qa, va, &rel));
  PetscCall(PetscPrintf(comm, "%-9s %-36s %-32s matrix-free vs assembled: %.2e, Newton %" PetscInt_FMT " / %" PetscInt_FMT ", preconditioner assembled %" PetscInt_FMT " times\n", type, opts, mfopts, (double)rel, nb, na, rebuilds));
  TestCheck(comm, mf, "%s: -ts_theta_matrix_free was not taken", type);
  TestCheck(comm, rel <= soltol, "%s %s: matrix-free and assembled runs differ by %g (tolerance %g)", type, opts, (double)rel, (double)soltol);
  if (linear) TestCheck(comm, rebuilds == 1, "%s: a linear model needs one preconditioning matrix, %" PetscInt_FMT " were assembled", type, rebuilds);
  else if (every) TestCheck(comm, rebuilds == nb, "%s: growth 0 must assemble at every Newton iteration (%" PetscInt_FMT "), got %" PetscInt_FMT, type, nb, rebuilds);
  else TestCheck(comm, rebuilds >= 1 && rebuilds < nb / 2, "%s: the preconditioning matrix should be lagged: %" PetscInt_FMT " assemblies for %" PetscInt_FMT " Newton iterations", type, rebuilds, nb);
  PetscCall(TSDestroy(&tsa));
  PetscCall(TSDestroy(&tsb));
  PetscCall(VecDestroy(&qa));
  PetscCall(VecDestroy(&va));
  PetscCall(VecDestroy(&qb));
  PetscCall(VecDestroy(&vb));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  PetscRandom rnd;
  MechSystem  sys;
  PetscReal   tol = 1e-13, soltol = 1e-9, worst = 0;
  const char *models[][2] = {
      {"chain",   "-chain_n 30 -chain_c 0.3"                                    },
      {"cloth",   "-cloth_n 12 -cloth_sphere -cloth_sphere_center 0.5,0.5,0.005"},
      {"cloth",   "-cloth_n 12 -cloth_linear"                                   },
      {"cloth",   "-cloth_n 10 -cloth_linear -cloth_c 0.2"                      },
      {"cloth",   "-cloth_n 9 -cloth_k_bend 0 -cloth_pin edge"                  },
      {"lattice", "-lattice_n 6"                                                },
  };

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-soltol", &soltol, NULL));
  PetscCall(PetscRandomCreate(comm, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 17));
  PetscCall(PetscRandomSeed(rnd));

  for (size_t m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
    char name[256];

    PetscCall(PetscSNPrintf(name, sizeof(name), "%s %s", models[m][0], models[m][1]));
    PetscCall(IntegCreateModel(comm, models[m][0], models[m][1], &sys));
    PetscCall(CheckOperator(sys, models[m][0], rnd, tol, &worst));
    if (m > 0) PetscCall(CheckPattern(sys, models[m][0], rnd));
    PetscCall(MechSystemDestroy(&sys));
  }
  PetscCall(PetscPrintf(comm, "operator: worst relative difference %.2e (tolerance %.0e)\n", (double)worst, (double)tol));

  PetscCall(IntegCreateModel(comm, "cloth", "-cloth_n 16 -cloth_sphere", &sys));
  PetscCall(CheckSolve(sys, "cn2", "", "", 40, soltol, PETSC_FALSE, PETSC_FALSE));
  PetscCall(CheckSolve(sys, "midpoint2", "", "", 40, soltol, PETSC_FALSE, PETSC_FALSE));
  PetscCall(CheckSolve(sys, "beuler2", "-ts_theta_initial_guess_extrapolate", "", 40, soltol, PETSC_FALSE, PETSC_FALSE));
  PetscCall(CheckSolve(sys, "theta2", "-ts_theta_theta 0.6", "-ts_theta_pc_rebuild_growth 0", 10, soltol, PETSC_FALSE, PETSC_TRUE));
  PetscCall(CheckSolve(sys, "cn2", "", "-ts_theta_pc_reduced", 40, soltol, PETSC_FALSE, PETSC_FALSE));
  PetscCall(CheckSolve(sys, "beuler2", "-ts_theta_pc_definite", "-ts_theta_pc_reduced", 20, soltol, PETSC_FALSE, PETSC_FALSE));
  PetscCall(MechSystemDestroy(&sys));
  PetscCall(IntegCreateModel(comm, "cloth", "-cloth_n 16 -cloth_linear", &sys));
  PetscCall(CheckSolve(sys, "cn2", "", "", 40, soltol, PETSC_TRUE, PETSC_FALSE));
  PetscCall(CheckSolve(sys, "midpoint2", "-ts_theta_linearized", "", 40, soltol, PETSC_TRUE, PETSC_FALSE));
  PetscCall(CheckSolve(sys, "midpoint2", "-ts_theta_linearized", "-ts_theta_pc_reduced", 40, soltol, PETSC_TRUE, PETSC_FALSE));
  PetscCall(MechSystemDestroy(&sys));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}
