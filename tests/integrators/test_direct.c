static const char help[] = "PETSc's first-order types with direct solvers (issue 28, item 3).\n"
                           "Every model of the grid and mesh families (chain, cloth, lattice, solid) under beuler, cn,\n"
                           "theta (0.7), bdf and arkimex on the first-order form [q; v], with LU from every package that\n"
                           "takes the matrix on this number of ranks (PETSc's own and UMFPACK on 1 rank, MUMPS and\n"
                           "SuperLU_dist on any): the run completes and its final state equals that of GMRES with a\n"
                           "tight tolerance to the solver tolerance. A Cholesky factorization, which needs a symmetric\n"
                           "matrix, is refused with PETSC_ERR_ARG_INCOMP (the Jacobian [[s I, -I], [K, s M + D]] is not).\n"
                           "  -tol <1e-9> bound of the relative distance between the direct and the iterative run\n";

#include "integ.h"

typedef struct {
  const char *name, *opts;
} Model;

/* The run with solver options `solver` must end where the iterative reference does */
static PetscErrorCode Compare(MechSystem sys, const char model[], const char type[], const char typeopts[], const char solver[], Vec qr, Vec vr, PetscReal tol)
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)sys);
  char      opts[512];
  Vec       q, v;
  PetscReal d;
  PetscInt  its;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s -snes_rtol 1e-12 -snes_atol 1e-50 -ts_adapt_type none", typeopts, solver));
  PetscCall(IntegRun(sys, type, opts, 1e-3, 3, NULL, NULL, &q, &v, &its));
  PetscCall(TestRelDiff(q, v, qr, vr, &d));
  PetscCall(PetscPrintf(comm, "  %-8s %-8s %-50s %2" PetscInt_FMT " Newton, distance %.1e\n", model, type, solver, its, (double)d));
  TestCheck(comm, d <= tol, "%s %s %s: distance %g from GMRES (bound %g)", model, type, solver, (double)d, (double)tol);
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}

/* A Cholesky factorization of the first-order Jacobian is refused at set-up, before any step */
static PetscErrorCode ExpectCholeskyRefused(MechSystem sys, const char type[], const char solver[])
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)sys);
  TS             ts   = NULL;
  Vec            q = NULL, v = NULL;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = TestSolve(sys, type, "chol_", solver, 1e-3, 2, 2.5e-3, TS_EXACTFINALTIME_STEPOVER, NULL, NULL, &q, &v, &ts);
  PetscCall(PetscPopErrorHandler());
  TestCheck(comm, ierr == PETSC_ERR_ARG_INCOMP, "%s %s: error %d, expected %d (PETSC_ERR_ARG_INCOMP)", type, solver, (int)ierr, (int)PETSC_ERR_ARG_INCOMP);
  if (ts) {
    PetscInt steps;
    PetscCall(TSGetStepNumber(ts, &steps));
    TestCheck(comm, steps == 0, "%s %s: refused after %" PetscInt_FMT " steps, not before the first", type, solver, steps);
  }
  PetscCall(PetscPrintf(comm, "  refused: %s %s\n", type, solver));
  PetscCall(TestClearPrefixedOptions("chol_", solver));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(TSDestroy(&ts));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  PetscMPIInt size;
  PetscReal   tol      = 1e-9;
  const Model models[] = {
      {"chain",   "-chain_n 12"                                            },
      {"cloth",   "-cloth_n 6"                                             },
      {"lattice", "-lattice_n 4"                                           },
      {"solid",   "-solid_beam_cells 3,1,1 -solid_E 1e5 -solid_g 0,0,-9.81"},
  };
  const char *types[][2] = {
      {TSBEULER,  ""                   },
      {TSCN,      ""                   },
      {TSTHETA,   "-ts_theta_theta 0.7"},
      {TSBDF,     ""                   },
      {TSARKIMEX, ""                   },
  };
  const char *seq[] = {"-ksp_type preonly -pc_type lu", "-ksp_type preonly -pc_type lu -pc_factor_mat_solver_type petsc", "-ksp_type preonly -pc_type lu -pc_factor_mat_solver_type umfpack"};
  const char *par[] = {"-ksp_type preonly -pc_type lu -pc_factor_mat_solver_type mumps", "-ksp_type preonly -pc_type lu -pc_factor_mat_solver_type superlu_dist"};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  for (size_t m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
    MechSystem sys;

    PetscCall(IntegCreateModel(comm, models[m].name, models[m].opts, &sys));
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
      char opts[512];
      Vec  qr, vr;

      /* the reference: GMRES (block-Jacobi ILU) far below Newton's tolerance */
      PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -ksp_type gmres -ksp_gmres_restart 200 -pc_type bjacobi -sub_pc_type ilu -ksp_rtol 1e-14 -ksp_atol 1e-50 -ksp_max_it 2000 -snes_rtol 1e-12 -snes_atol 1e-50 -ts_adapt_type none", types[t][1]));
      PetscCall(IntegRun(sys, types[t][0], opts, 1e-3, 3, NULL, NULL, &qr, &vr, NULL));
      if (size == 1)
        for (size_t s = 0; s < sizeof(seq) / sizeof(seq[0]); s++) PetscCall(Compare(sys, models[m].name, types[t][0], types[t][1], seq[s], qr, vr, tol));
      for (size_t s = 0; s < sizeof(par) / sizeof(par[0]); s++) PetscCall(Compare(sys, models[m].name, types[t][0], types[t][1], par[s], qr, vr, tol));
      PetscCall(VecDestroy(&qr));
      PetscCall(VecDestroy(&vr));
    }
    if (m == 0) {
      PetscCall(ExpectCholeskyRefused(sys, TSBEULER, "-ksp_type preonly -pc_type cholesky"));
      PetscCall(ExpectCholeskyRefused(sys, TSCN, "-ksp_type gmres -pc_type cholesky -pc_factor_mat_solver_type mumps"));
    }
    PetscCall(MechSystemDestroy(&sys));
  }
  PetscCall(PetscPrintf(comm, "first-order types with direct solvers: OK\n"));
  PetscCall(PetscFinalize());
  return 0;
}
