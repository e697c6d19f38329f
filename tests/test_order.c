static const char help[] = "Observed order of convergence on the damped and undamped oscillator, for\n"
                           "PETSc's own types on the first-order and I2 forms and for every tsmech type.\n"
                           "  -suite petsc|tsmech|all   which types to check\n";

#include "testutil.h"

typedef struct {
  const char *type, *opts;
  PetscReal   order;
  PetscBool   undamped_only; /* the zero guess (docs/schemes.md §4) keeps f0 = f(q, v): inconsistent when D != 0 */
} Case;

static const Case petsc_cases[] = {
    {"beuler", "",                                       1, PETSC_FALSE},
    {"cn",     "",                                       2, PETSC_FALSE},
    {"theta",  "-ts_theta_theta 0.3",                    1, PETSC_FALSE},
    {"theta",  "-ts_theta_theta 0.3 -ts_theta_endpoint", 1, PETSC_FALSE},
    {"rk",     "-ts_rk_type 3bs -ts_adapt_type none",    3, PETSC_FALSE},
    {"alpha2", "-ts_alpha_radius 1",                     2, PETSC_FALSE},
};

static const Case tsmech_cases[] = {
    {"theta2",    "-ts_theta_theta 0.3",                                                          1, PETSC_FALSE},
    {"theta2",    "-ts_theta_theta 0.3 -ts_theta_endpoint",                                       1, PETSC_FALSE},
    {"theta2",    "-ts_theta_theta 0.5",                                                          2, PETSC_FALSE},
    {"theta2",    "-ts_theta_theta 0.5 -ts_theta_endpoint",                                       2, PETSC_FALSE},
    {"theta2",    "-ts_theta_theta 0.7",                                                          1, PETSC_FALSE},
    {"theta2",    "-ts_theta_theta 0.7 -ts_theta_endpoint",                                       1, PETSC_FALSE},
    {"theta2",    "-ts_theta_theta 1",                                                            1, PETSC_FALSE},
    {"theta2",    "-ts_theta_theta 1 -ts_theta_endpoint",                                         1, PETSC_FALSE},
    {"theta2",    "-ts_theta_theta 0.5 -ts_theta_initial_guess_extrapolate",                      2, PETSC_FALSE},
    {"theta2",    "-ts_theta_theta 0.5 -ts_theta_linearized -ts_theta_linearized_guess velocity", 2, PETSC_FALSE},
    {"beuler2",   "",                                                                             1, PETSC_FALSE},
    {"cn2",       "",                                                                             2, PETSC_FALSE},
    {"midpoint2", "",                                                                             2, PETSC_FALSE},
    {"euler2",    "",                                                                             1, PETSC_FALSE},
    {"symeuler2", "",                                                                             1, PETSC_FALSE},
    {"beuler2",   "-ts_theta_linearized -ts_theta_linearized_guess zero",                         1, PETSC_TRUE },
    {"beuler2",   "-ts_theta_linearized -ts_theta_linearized_guess predictor",                    1, PETSC_FALSE},
};

/* Observed orders between dt, dt/2 and dt/4 against the exact solution at T. */
static PetscErrorCode CheckOrder(MechSystem sys, const char *label, const Case *c, PetscInt *failures)
{
  const PetscReal T = 2.0, dt0 = 0.02;
  PetscReal       err[3], p1, p2;
  Vec             qe, ve;

  PetscFunctionBegin;
  if (c->undamped_only && label[0] == 'd') PetscFunctionReturn(0);
  PetscCall(MechSystemCreateState(sys, &qe, &ve));
  PetscCall(MechSystemComputeExactSolution(sys, T, qe, ve, NULL));
  for (PetscInt k = 0; k < 3; k++) {
    Vec  q, v;
    char opts[512];
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -snes_rtol 1e-13 -snes_atol 1e-15 -ksp_rtol 1e-14 -ksp_atol 1e-16", c->opts));
    PetscCall(TestIntegrate(sys, c->type, opts, dt0 / (1 << k), T, &q, &v, NULL, NULL));
    PetscCall(TestRelDiff(q, v, qe, ve, &err[k]));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
  }
  p1 = PetscLog2Real(err[0] / err[1]);
  p2 = PetscLog2Real(err[1] / err[2]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-9s %-10s %-72s errors %.3e %.3e %.3e  orders %.3f %.3f (theory %g)\n", label, c->type, c->opts, (double)err[0], (double)err[1], (double)err[2], (double)p1, (double)p2, (double)c->order));
  if (PetscAbsReal(p2 - c->order) > 0.1) {
    (*failures)++;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: observed order %.3f differs from %g by more than 0.1\n", (double)p2, (double)c->order));
  }
  PetscCall(VecDestroy(&qe));
  PetscCall(VecDestroy(&ve));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt  failures  = 0;
  char      suite[32] = "all";
  PetscBool petsc, tsmech;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  PetscCall(PetscOptionsGetString(NULL, NULL, "-suite", suite, sizeof(suite), NULL));
  PetscCall(PetscStrcmp(suite, "petsc", &petsc));
  PetscCall(PetscStrcmp(suite, "tsmech", &tsmech));
  if (!petsc && !tsmech) petsc = tsmech = PETSC_TRUE;
  for (PetscInt damped = 0; damped < 2; damped++) {
    MechSystem sys;
    PetscCall(PetscOptionsSetValue(NULL, "-oscillator_c", damped ? "0.5" : "0"));
    PetscCall(MechCreateOscillator(PETSC_COMM_WORLD, &sys));
    if (petsc)
      for (size_t i = 0; i < sizeof(petsc_cases) / sizeof(petsc_cases[0]); i++) PetscCall(CheckOrder(sys, damped ? "damped" : "undamped", &petsc_cases[i], &failures));
    if (tsmech)
      for (size_t i = 0; i < sizeof(tsmech_cases) / sizeof(tsmech_cases[0]); i++) PetscCall(CheckOrder(sys, damped ? "damped" : "undamped", &tsmech_cases[i], &failures));
    PetscCall(MechSystemDestroy(&sys));
  }
  PetscCheck(!failures, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " order checks failed", failures);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all order checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
