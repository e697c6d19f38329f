static const char help[] = "Stable-step estimates (src/mech/stability.c) against closed forms:\n"
                           "  the largest frequency of the oscillator (sqrt(k/m)), of a pair and of a linear chain,\n"
                           "  and the stable steps of symplectic and explicit Euler, RK and implicit types.\n";

#include <tsmech.h>

/* |got - want| <= rtol |want| */
static PetscErrorCode CheckClose(const char what[], PetscReal got, PetscReal want, PetscReal rtol)
{
  PetscFunctionBegin;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-58s %.8g (expected %.8g, ratio %.6f)\n", what, (double)got, (double)want, want != 0 ? (double)(got / want) : 0.0));
  PetscCheck(PetscAbsReal(got - want) <= rtol * PetscAbsReal(want), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: %g, expected %g to %g", what, (double)got, (double)want, (double)rtol);
  PetscFunctionReturn(0);
}

/* The stable step of the TS type `type` (with extra options set on ts by the caller) for sys */
static PetscErrorCode StableStep(MechSystem sys, const char type[], const char rktype[], PetscReal *dtmax, PetscReal *omega, PetscReal *c)
{
  TS  ts;
  Vec q, v;

  PetscFunctionBegin;
  PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
  PetscCall(TSSetType(ts, type));
  if (rktype) PetscCall(TSRKSetType(ts, rktype));
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(TSMechEstimateStableStep(ts, sys, 0.0, q, v, dtmax, omega, c));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(TSDestroy(&ts));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MechSystem sys;
  PetscReal  dtmax, omega, c, rho, w;
  TS         ts;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */

  /* oscillator m = 2, k = 200: omega = 10 */
  PetscCall(PetscOptionsSetValue(NULL, "-oscillator_m", "2"));
  PetscCall(PetscOptionsSetValue(NULL, "-oscillator_k", "200"));
  PetscCall(MechCreateModel(PETSC_COMM_WORLD, "oscillator", &sys));
  PetscCall(StableStep(sys, TSSYMEULER2, NULL, &dtmax, &omega, &c));
  PetscCall(CheckClose("oscillator omega = sqrt(k/m)", omega, 10.0, 1e-10));
  PetscCall(CheckClose("oscillator symeuler2 stable step 2/omega", dtmax, 0.2, 1e-5));
  PetscCall(StableStep(sys, TSEULER2, NULL, &dtmax, NULL, NULL));
  PetscCall(CheckClose("oscillator euler2 stable step (undamped: none)", dtmax, 0.0, 0.0));
  PetscCall(StableStep(sys, TSEULER, NULL, &dtmax, NULL, NULL));
  PetscCall(CheckClose("oscillator PETSc euler stable step (undamped: none)", dtmax, 0.0, 0.0));
  PetscCall(StableStep(sys, TSRK, TSRK4, &dtmax, NULL, NULL));
  PetscCall(CheckClose("oscillator rk 4 stable step 2 sqrt(2)/omega", dtmax, 2 * PetscSqrtReal(2.0) / 10, 1e-5));
  PetscCall(StableStep(sys, TSRK, TSRK3BS, &dtmax, NULL, NULL));
  PetscCall(CheckClose("oscillator rk 3bs stable step sqrt(3)/omega", dtmax, PetscSqrtReal(3.0) / 10, 1e-5));
  PetscCall(StableStep(sys, TSMIDPOINT2, NULL, &dtmax, NULL, NULL));
  PetscCall(CheckClose("oscillator midpoint2 stable step (A-stable: none)", dtmax, PETSC_MAX_REAL, 0.0));
  PetscCall(StableStep(sys, TSBEULER, NULL, &dtmax, NULL, NULL));
  PetscCall(CheckClose("oscillator PETSc beuler stable step (A-stable: none)", dtmax, PETSC_MAX_REAL, 0.0));
  /* growth per step of symplectic Euler at dt omega = 2.5: the root -4 of mu^2 + 4.25 mu + 1 */
  PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
  PetscCall(TSSetType(ts, TSSYMEULER2));
  PetscCall(TSMechComputeAmplification(ts, 10.0, 0.0, 0.25, &rho));
  PetscCall(CheckClose("symeuler2 growth per step at dt omega = 2.5", rho, 4.0, 1e-12));
  /* explicit Euler with damping c < 2 omega is stable below c/omega^2 */
  PetscCall(TSSetType(ts, TSEULER2));
  PetscCall(TSMechComputeAmplification(ts, 10.0, 0.0, 0.01, &rho));
  PetscCall(CheckClose("euler2 growth per step at dt omega = 0.1", rho, PetscSqrtReal(1.01), 1e-12));
  PetscCall(TSDestroy(&ts));
  PetscCall(MechSystemDestroy(&sys));
  PetscCall(PetscOptionsSetValue(NULL, "-oscillator_c", "4"));
  PetscCall(MechCreateModel(PETSC_COMM_WORLD, "oscillator", &sys));
  PetscCall(StableStep(sys, TSEULER2, NULL, &dtmax, &omega, &c));
  PetscCall(CheckClose("damped oscillator damping rate c/m", c, 2.0, 1e-10));
  PetscCall(CheckClose("damped oscillator euler2 stable step c/omega^2", dtmax, 2.0 / 100, 1e-5));
  PetscCall(MechSystemDestroy(&sys));

  /* pair, zero rest length: omega^2 = k (1/m0 + 1/m1) */
  PetscCall(PetscOptionsSetValue(NULL, "-pair_L", "0"));
  PetscCall(PetscOptionsSetValue(NULL, "-pair_k", "300"));
  PetscCall(PetscOptionsSetValue(NULL, "-pair_m0", "1"));
  PetscCall(PetscOptionsSetValue(NULL, "-pair_m1", "2"));
  PetscCall(MechCreateModel(PETSC_COMM_WORLD, "pair", &sys));
  PetscCall(StableStep(sys, TSSYMEULER2, NULL, &dtmax, &omega, NULL));
  w = PetscSqrtReal(300 * 1.5);
  PetscCall(CheckClose("pair omega = sqrt(k (1/m0 + 1/m1))", omega, w, 1e-8));
  PetscCall(CheckClose("pair symeuler2 stable step 2/omega", dtmax, 2 / w, 1e-5));
  PetscCall(MechSystemDestroy(&sys));

  /* linear chain of n = 20 (particle 0 pinned): 19 masses m = 1/20 on springs k = 1000,
     fixed-free: omega_max = 2 sqrt(k/m) sin((2N - 1) pi / (4N + 2)), N = 19 */
  PetscCall(PetscOptionsSetValue(NULL, "-chain_linear", "1"));
  PetscCall(PetscOptionsSetValue(NULL, "-chain_c", "0"));
  PetscCall(PetscOptionsSetValue(NULL, "-chain_drag", "0"));
  PetscCall(MechCreateModel(PETSC_COMM_WORLD, "chain", &sys));
  PetscCall(StableStep(sys, TSSYMEULER2, NULL, &dtmax, &omega, NULL));
  w = 2 * PetscSqrtReal(1000 / 0.05) * PetscSinReal(37 * PETSC_PI / 78);
  /* the highest mode by SLEPc (src/mech/modes.c): to its tolerance, where power iterations stopped
     at a relative change of 1e-6 of the Rayleigh quotient (1.2e-5 below omega_max here) */
  PetscCall(CheckClose("linear chain omega_max (SLEPc, to 1e-9)", omega, w, 1e-9));
  PetscCall(CheckClose("linear chain symeuler2 stable step 2/omega_max (to 1e-5)", dtmax, 2 / w, 1e-5));
  PetscCall(MechSystemDestroy(&sys));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "stable steps: OK\n"));
  PetscCall(PetscFinalize());
  return 0;
}
