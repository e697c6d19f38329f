static const char help[] = "Eisenstat-Walker linear tolerances and CG's residual norm (docs/solvers.md §3).\n"
                           "The cloth 128^2 under midpoint2 (matrix-free, extrapolated guess, ICC), 30 steps:\n"
                           "1. with -snes_ksp_ew, CG tests the unpreconditioned residual (KSPGetNormType()) and every\n"
                           "   step converges, to within -acc of a tight run without EW;\n"
                           "2. a user's -ksp_norm_type is kept; on one rank the preconditioned norm accepts a linear\n"
                           "   step that raises the true residual and Newton stalls (SNES DIVERGED_LOCAL_MIN): the\n"
                           "   case does test the failure the default avoids;\n"
                           "3. without EW the norm stays CG's default (preconditioned).\n"
                           "  -acc <1e-6> bound of the distance to the tight run\n";

#include "integ.h"

/* Runs the cloth under midpoint2 with opts; returns the KSP's norm type, the TS's reason and, if
   it converged, the final state */
static PetscErrorCode Run(MechSystem sys, const char opts[], KSPNormType *norm, TSConvergedReason *reason, Vec *q, Vec *v)
{
  static int runs = 0;
  char       prefix[32];
  TS         ts;
  SNES       snes;
  KSP        ksp;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "ew%d_", runs++));
  PetscCall(TestSetPrefixedOptions(PetscObjectComm((PetscObject)sys), prefix, opts));
  PetscCall(TSCreate(PetscObjectComm((PetscObject)sys), &ts));
  PetscCall(TSSetOptionsPrefix(ts, prefix));
  PetscCall(TSSetType(ts, TSMIDPOINT2));
  PetscCall(TSMechSetSystem(ts, sys));
  PetscCall(TSSetTimeStep(ts, 1e-3));
  PetscCall(TSSetMaxSteps(ts, 30));
  PetscCall(TSSetMaxTime(ts, 1.0));
  PetscCall(TSSetErrorIfStepFails(ts, PETSC_FALSE));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(MechSystemCreateState(sys, q, v));
  PetscCall(TSMechSetSolution(ts, *q, *v));
  PetscCall(TSGetSNES(ts, &snes));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPGetNormType(ksp, norm));
  PetscCall(TSSolve(ts, NULL));
  PetscCall(TSGetConvergedReason(ts, reason));
  PetscCall(TSMechGetSolution(ts, *q, *v));
  PetscCall(TSDestroy(&ts));
  PetscCall(TestClearPrefixedOptions(prefix, opts));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm          comm;
  MechSystem        sys;
  PetscMPIInt       size;
  PetscReal         acc = 1e-6, rel;
  KSPNormType       norm;
  TSConvergedReason reason;
  Vec               qr, vr, q, v;
  const char       *base = "-ts_theta_matrix_free -ts_theta_initial_guess_extrapolate -ksp_type cg -pc_type bjacobi -sub_pc_type icc -ksp_rtol 1e-8";
  char              opts[512];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-acc", &acc, NULL));
  PetscCall(IntegCreateModel(comm, "cloth", "-cloth_n 128", &sys));

  /* the tight run, without EW */
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -ksp_rtol 1e-12 -snes_rtol 1e-10", base));
  PetscCall(Run(sys, opts, &norm, &reason, &qr, &vr));
  TestCheck(comm, reason > 0, "the tight run diverged: %s", TSConvergedReasons[reason]);
  TestCheck(comm, norm == KSP_NORM_PRECONDITIONED, "without -snes_ksp_ew CG's norm must stay its default (preconditioned), not %s", KSPNormTypes[norm]);

  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -snes_ksp_ew", base));
  PetscCall(Run(sys, opts, &norm, &reason, &q, &v));
  PetscCall(TestRelDiff(q, v, qr, vr, &rel));
  PetscCall(PetscPrintf(comm, "  -snes_ksp_ew: %s norm, %s, distance to the tight run %.1e\n", KSPNormTypes[norm], TSConvergedReasons[reason], (double)rel));
  TestCheck(comm, norm == KSP_NORM_UNPRECONDITIONED, "with -snes_ksp_ew CG must test the unpreconditioned residual, not the %s one", KSPNormTypes[norm]);
  TestCheck(comm, reason > 0, "with -snes_ksp_ew the run diverged: %s", TSConvergedReasons[reason]);
  TestCheck(comm, rel <= acc, "with -snes_ksp_ew the final state is %g from the tight run (bound %g)", (double)rel, (double)acc);
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));

  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -snes_ksp_ew -ksp_norm_type preconditioned", base));
  PetscCall(Run(sys, opts, &norm, &reason, &q, &v));
  PetscCall(PetscPrintf(comm, "  -snes_ksp_ew -ksp_norm_type preconditioned: %s norm, %s\n", KSPNormTypes[norm], TSConvergedReasons[reason]));
  TestCheck(comm, norm == KSP_NORM_PRECONDITIONED, "the user's -ksp_norm_type preconditioned was replaced by %s", KSPNormTypes[norm]);
  if (size == 1) TestCheck(comm, reason < 0, "with the preconditioned norm the run no longer stalls (%s): the case does not test what the default avoids", TSConvergedReasons[reason]);
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&qr));
  PetscCall(VecDestroy(&vr));
  PetscCall(MechSystemDestroy(&sys));
  PetscCall(PetscFinalize());
  return 0;
}
