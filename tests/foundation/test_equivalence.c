static const char help[] = "Equivalence of PETSc's TSCN on the first-order form [q; v] and TSALPHA2 at\n"
                           "-ts_alpha_radius 1 on the I2 form M a + f = 0.\n"
                           "  -suite linear|nonlinear|all\n"
                           "linear: on linear models both are the same discrete scheme (trapezoidal rule =\n"
                           "  Newmark average acceleration): they must agree to 1e-8 relative after 100 steps.\n"
                           "nonlinear: on the 3-D chain with rest-length springs they are different schemes\n"
                           "  (endpoint vs one-leg) of order 2: their difference must shrink ~4x as dt halves;\n"
                           "  TSALPHA2 must agree with the one-leg midpoint rule (midpoint2, TSTHETA) to 1e-9.\n";

/*
  Why the start-up estimate of TSALPHA2 does not matter here: at radius 1 (alpha_m = alpha_f =
  gamma = 1/2, beta = 1/4) the stage acceleration is Aa = (A0 + A1)/2 = 2 (X1 - X0 - dt V0)/dt^2,
  which does not depend on A0, and V1 = 2 (X1 - X0)/dt - V0. The step is therefore
      X1 = X0 + dt (V0 + V1)/2,   M (V1 - V0)/dt + f((X0 + X1)/2, (V0 + V1)/2) = 0,
  the one-leg implicit midpoint rule, whatever A0 is: A0 only enters through round-off. For
  affine f, f at the midpoint is the mean of f at both ends, which is TSCN.
*/
#include "foundation.h"

/* Newton and Krylov tolerances tight enough that solver error stays far below what is compared */
static const char solver_opts[] = "-snes_rtol 1e-13 -snes_atol 1e-15 -snes_max_it 20 -ksp_rtol 1e-14 -ksp_atol 1e-16";

static PetscErrorCode RunPair(MechSystem sys, const char *opts_a, const char *opts_b, PetscReal dt, PetscReal T, PetscReal *rel, PetscInt *its_b)
{
  Vec  qa, va, qb, vb;
  char oa[512], ob[512];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(oa, sizeof(oa), "%s %s", solver_opts, opts_a));
  PetscCall(PetscSNPrintf(ob, sizeof(ob), "%s %s", solver_opts, opts_b));
  PetscCall(TestIntegrate(sys, TSCN, oa, dt, T, &qa, &va, NULL, NULL));
  PetscCall(TestIntegrate(sys, TSALPHA2, ob, dt, T, &qb, &vb, its_b, NULL));
  PetscCall(TestRelDiff(qb, vb, qa, va, rel));
  PetscCall(VecDestroy(&qa));
  PetscCall(VecDestroy(&va));
  PetscCall(VecDestroy(&qb));
  PetscCall(VecDestroy(&vb));
  PetscFunctionReturn(0);
}

typedef struct {
  const char *label, *model, *model_opts;
  PetscReal   dt;
} LinearCase;

/* The chain is linear only with zero-rest-length springs and no damper along them; the drag
   keeps it damped (D = drag I). */
static const LinearCase linear_cases[] = {
    {"oscillator undamped", "oscillator", "-oscillator_c 0",                                      0.02},
    {"oscillator damped",   "oscillator", "-oscillator_c 0.5 -oscillator_v0 1",                   0.02},
    {"chain linear damped", "chain",      "-chain_n 50 -chain_linear -chain_c 0 -chain_drag 0.5", 1e-3},
};

static PetscErrorCode CheckLinear(PetscInt *failures)
{
  const PetscInt  nsteps = 100;
  const PetscReal tol    = 1e-8;

  PetscFunctionBegin;
  for (size_t i = 0; i < sizeof(linear_cases) / sizeof(linear_cases[0]); i++) {
    const LinearCase *c = &linear_cases[i];
    MechSystem        sys;
    PetscBool         linear, ischain;
    PetscReal         rel;
    PetscInt          its;

    PetscCall(FoundationCreateModel(PETSC_COMM_WORLD, c->model, c->model_opts, &sys));
    PetscCall(MechSystemGetLinear(sys, &linear));
    TestCheck(PETSC_COMM_WORLD, linear, "%s: the model is expected to be linear", c->label);
    PetscCall(PetscStrcmp(c->model, "chain", &ischain));
    if (ischain) PetscCall(FoundationKickChain(sys, 0.5));
    PetscCall(RunPair(sys, "", "-ts_alpha_radius 1 -snes_type newtonls", c->dt, nsteps * c->dt, &rel, &its));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "linear    %-22s dt %.1e %3" PetscInt_FMT " steps: |alpha2 - cn| / |cn| = %.3e (alpha2: %" PetscInt_FMT " Newton its)\n", c->label, (double)c->dt, nsteps, (double)rel, its));
    if (!(rel <= tol)) {
      (*failures)++;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: %s: difference %.3e exceeds %.0e\n", c->label, (double)rel, (double)tol));
    }
    PetscCall(MechSystemDestroy(&sys));
  }
  PetscFunctionReturn(0);
}

/* Rest-length springs (nonlinear), damping along them, drag, gravity, a 3-D start */
static PetscErrorCode CheckNonlinear(PetscInt *failures)
{
  const PetscReal dt0 = 4e-3, T = 0.4, minratio = 3;
  PetscReal       d[3];
  MechSystem      sys;

  PetscFunctionBegin;
  PetscCall(FoundationCreateModel(PETSC_COMM_WORLD, "chain", "-chain_n 20 -chain_c 0.5 -chain_stretch 1.05", &sys));
  PetscCall(FoundationKickChain(sys, 0.5));
  for (PetscInt k = 0; k < 3; k++) {
    PetscInt its;
    PetscCall(RunPair(sys, "", "-ts_alpha_radius 1", dt0 / (1 << k), T, &d[k], &its));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "nonlinear chain dt %.2e: |alpha2 - cn| / |cn| = %.4e (alpha2: %" PetscInt_FMT " Newton its)\n", (double)(dt0 / (1 << k)), (double)d[k], its));
  }
  for (PetscInt k = 0; k < 2; k++) {
    const PetscReal ratio = d[k] / d[k + 1];
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "nonlinear chain ratio dt/%d -> dt/%d: %.3f (order %.3f)\n", 1 << k, 2 << k, (double)ratio, (double)PetscLog2Real(ratio)));
    if (!(ratio > minratio)) {
      (*failures)++;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: the difference shrank only %.3fx (> %g expected of two second-order schemes)\n", (double)ratio, (double)minratio));
    }
  }
  /* At radius 1 TSALPHA2 is the one-leg midpoint rule for any f (see the top of this file): it
     must agree with tsmech's midpoint2 and PETSc's one-leg TSTHETA to solver tolerance. */
  for (PetscInt k = 0; k < 2; k++) {
    const char *type = k ? TSTHETA : TSMIDPOINT2, *opts = k ? "-ts_theta_theta 0.5" : "";
    Vec         qa, va, qb, vb;
    char        oa[512], ob[512];
    PetscReal   rel;

    PetscCall(PetscSNPrintf(oa, sizeof(oa), "%s %s", solver_opts, opts));
    PetscCall(PetscSNPrintf(ob, sizeof(ob), "%s -ts_alpha_radius 1", solver_opts));
    PetscCall(TestIntegrate(sys, type, oa, dt0, T, &qa, &va, NULL, NULL));
    PetscCall(TestIntegrate(sys, TSALPHA2, ob, dt0, T, &qb, &vb, NULL, NULL));
    PetscCall(TestRelDiff(qb, vb, qa, va, &rel));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "nonlinear chain dt %.2e: |alpha2 - %s| / |%s| = %.3e (one-leg midpoint, same scheme)\n", (double)dt0, type, type, (double)rel));
    if (!(rel <= 1e-9)) {
      (*failures)++;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: alpha2 at radius 1 and %s differ by %.3e > 1e-9\n", type, (double)rel));
    }
    PetscCall(VecDestroy(&qa));
    PetscCall(VecDestroy(&va));
    PetscCall(VecDestroy(&qb));
    PetscCall(VecDestroy(&vb));
  }
  /* the difference must be a discretization difference, not round-off or solver noise */
  if (!(d[2] > 1e-9)) {
    (*failures)++;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: difference %.3e too small to measure an order: is the model linear?\n", (double)d[2]));
  }
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt  failures  = 0;
  char      suite[32] = "all";
  PetscBool lin, nonlin;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  PetscCall(PetscOptionsGetString(NULL, NULL, "-suite", suite, sizeof(suite), NULL));
  PetscCall(PetscStrcmp(suite, "linear", &lin));
  PetscCall(PetscStrcmp(suite, "nonlinear", &nonlin));
  if (!lin && !nonlin) lin = nonlin = PETSC_TRUE;
  if (lin) PetscCall(CheckLinear(&failures));
  if (nonlin) PetscCall(CheckNonlinear(&failures));
  PetscCheck(!failures, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " equivalence checks failed", failures);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all equivalence checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
