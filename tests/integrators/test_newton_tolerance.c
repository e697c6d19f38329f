static const char help[] = "Newton's tolerance with the extrapolated initial guess (docs/solvers.md §3).\n"
                           "The cloth under cn2 and midpoint2 (matrix-free), Newton started from v and from the\n"
                           "extrapolated velocity, -snes_rtol 1e-8: both final states are as close to a tight run\n"
                           "(-snes_rtol 1e-10) as the run from v is (the same accuracy is asked of every step), while the\n"
                           "extrapolated start needs fewer Newton iterations; a user's -snes_atol larger than the scaled\n"
                           "tolerance still wins (a step already converged at its start takes no iteration).\n"
                           "  -acc <1e-7> bound of the distance to the tight run, -fewer <0.9> bound of the ratio of Newton\n"
                           "  iterations (extrapolated / from v)\n";

#include "integ.h"

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  MechSystem  sys;
  PetscReal   acc = 1e-7, fewer = 0.9;
  const char *types[] = {TSCN2, TSMIDPOINT2};
  const char *base    = "-ts_theta_matrix_free -ksp_type cg -pc_type bjacobi -sub_pc_type icc -ksp_rtol 1e-12";

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-acc", &acc, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-fewer", &fewer, NULL));
  PetscCall(IntegCreateModel(comm, "cloth", "-cloth_n 32", &sys));
  for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
    char      opts[512];
    Vec       qr, vr, qv, vv, qx, vx;
    PetscInt  itr, itv, itx, itu;
    PetscReal ev, ex;

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -snes_rtol 1e-10 -snes_atol 0 -snes_linesearch_type basic -snes_max_it 50", base));
    PetscCall(IntegRun(sys, types[t], opts, 1e-3, 20, NULL, NULL, &qr, &vr, &itr));
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -snes_rtol 1e-8", base));
    PetscCall(IntegRun(sys, types[t], opts, 1e-3, 20, NULL, NULL, &qv, &vv, &itv));
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -snes_rtol 1e-8 -ts_theta_initial_guess_extrapolate", base));
    PetscCall(IntegRun(sys, types[t], opts, 1e-3, 20, NULL, NULL, &qx, &vx, &itx));
    PetscCall(TestRelDiff(qv, vv, qr, vr, &ev));
    PetscCall(TestRelDiff(qx, vx, qr, vr, &ex));
    PetscCall(PetscPrintf(comm, "  %-10s tight %3" PetscInt_FMT " Newton; from v %3" PetscInt_FMT ", distance %.1e; extrapolated %3" PetscInt_FMT ", distance %.1e\n", types[t], itr, itv, (double)ev, itx, (double)ex));
    TestCheck(comm, ev <= acc && ex <= acc, "%s: final states %g (from v) and %g (extrapolated) from the tight run (bound %g)", types[t], (double)ev, (double)ex, (double)acc);
    TestCheck(comm, itx <= fewer * itv, "%s: the extrapolated guess took %" PetscInt_FMT " Newton iterations against %" PetscInt_FMT " from v (ratio bound %g)", types[t], itx, itv, (double)fewer);

    /* a user's absolute tolerance above every residual: no step iterates */
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -snes_rtol 1e-8 -snes_atol 1e3 -ts_theta_initial_guess_extrapolate", base));
    PetscCall(VecDestroy(&qx));
    PetscCall(VecDestroy(&vx));
    PetscCall(IntegRun(sys, types[t], opts, 1e-3, 20, NULL, NULL, &qx, &vx, &itu));
    PetscCall(PetscPrintf(comm, "  %-10s -snes_atol 1e3: %" PetscInt_FMT " Newton iterations\n", types[t], itu));
    TestCheck(comm, itu == 0, "%s: with -snes_atol 1e3 the steps took %" PetscInt_FMT " Newton iterations: the user's tolerance was lowered", types[t], itu);
    PetscCall(VecDestroy(&qr));
    PetscCall(VecDestroy(&vr));
    PetscCall(VecDestroy(&qv));
    PetscCall(VecDestroy(&vv));
    PetscCall(VecDestroy(&qx));
    PetscCall(VecDestroy(&vx));
  }
  PetscCall(MechSystemDestroy(&sys));
  PetscCall(PetscFinalize());
  return 0;
}
