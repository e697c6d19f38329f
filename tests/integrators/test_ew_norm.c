static const char help[] = "Eisenstat-Walker linear tolerances and CG's residual norm (docs/solvers.md §3).\n"
                           "The cloth 128^2 under midpoint2 (matrix-free, extrapolated guess, ICC), 30 steps:\n"
                           "1. with -snes_ksp_ew, CG tests the unpreconditioned residual (KSPGetNormType()) and every\n"
                           "   step converges, to within -acc of a tight run without EW;\n"
                           "2. a user's -ksp_norm_type is kept; on one rank the preconditioned norm accepts a linear\n"
                           "   step that raises the true residual and Newton stalls (SNES DIVERGED_LOCAL_MIN): the\n"
                           "   case does test the failure the default avoids;\n"
                           "3. without EW the norm stays CG's default (preconditioned);\n"
                           "4. Kelley's safeguard (-ts_theta_ew_safeguard, default 0.5): with EW the linear solves stop\n"
                           "   at half of Newton's tolerance, the KSP's absolute tolerance; the run takes fewer linear\n"
                           "   iterations than with the safeguard off, both within -acc of the tight run; off, the user's\n"
                           "   -ksp_atol stays, and turned off during a run it comes back; a factor outside [0, 1) is\n"
                           "   refused.\n"
                           "  -acc <1e-6> bound of the distance to the tight run\n";

#include "integ.h"

/* What a run leaves: the KSP's norm type and absolute tolerance, the safeguard factor, the linear iterations */
typedef struct {
  KSPNormType norm;
  PetscReal   katol, guard;
  PetscInt    lits;
} RunInfo;

/* Runs the cloth under midpoint2 with opts (the safeguard turned off after offat steps if offat > 0);
   returns what it leaves (RunInfo), the TS's reason and, if it converged, the final state */
static PetscErrorCode Run(MechSystem sys, const char opts[], PetscInt offat, RunInfo *info, TSConvergedReason *reason, Vec *q, Vec *v)
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
  PetscCall(KSPGetNormType(ksp, &info->norm));
  if (offat > 0) {
    PetscCall(TSSetMaxSteps(ts, offat));
    PetscCall(TSSolve(ts, NULL));
    PetscCall(TSMechSetEWSafeguard(ts, 0.0));
    PetscCall(TSSetMaxSteps(ts, 30));
  }
  PetscCall(TSSolve(ts, NULL));
  PetscCall(TSGetConvergedReason(ts, reason));
  PetscCall(KSPGetTolerances(ksp, NULL, &info->katol, NULL, NULL));
  PetscCall(TSMechGetEWSafeguard(ts, &info->guard));
  PetscCall(TSGetKSPIterations(ts, &info->lits));
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
  RunInfo           info, off;
  TSConvergedReason reason;
  Vec               qr, vr, q, v;
  const char       *base = "-ts_theta_matrix_free -ts_theta_initial_guess_extrapolate -ksp_type cg -pc_type bjacobi -sub_pc_type icc -ksp_rtol 1e-8";
  char              opts[512];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-acc", &acc, NULL));
  PetscCall(IntegCreateModel(comm, "cloth", "-cloth_n 128", &sys));

  /* the tight run, without EW */
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -ksp_rtol 1e-12 -snes_rtol 1e-10", base));
  PetscCall(Run(sys, opts, 0, &info, &reason, &qr, &vr));
  TestCheck(comm, reason > 0, "the tight run diverged: %s", TSConvergedReasons[reason]);
  TestCheck(comm, info.norm == KSP_NORM_PRECONDITIONED, "without -snes_ksp_ew CG's norm must stay its default (preconditioned), not %s", KSPNormTypes[info.norm]);

  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -snes_ksp_ew", base));
  PetscCall(Run(sys, opts, 0, &info, &reason, &q, &v));
  PetscCall(TestRelDiff(q, v, qr, vr, &rel));
  PetscCall(PetscPrintf(comm, "  -snes_ksp_ew: %s norm, %s, distance to the tight run %.1e\n", KSPNormTypes[info.norm], TSConvergedReasons[reason], (double)rel));
  TestCheck(comm, info.norm == KSP_NORM_UNPRECONDITIONED, "with -snes_ksp_ew CG must test the unpreconditioned residual, not the %s one", KSPNormTypes[info.norm]);
  TestCheck(comm, reason > 0, "with -snes_ksp_ew the run diverged: %s", TSConvergedReasons[reason]);
  TestCheck(comm, rel <= acc, "with -snes_ksp_ew the final state is %g from the tight run (bound %g)", (double)rel, (double)acc);
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));

  /* 4. the safeguard: on by default, the KSP's absolute tolerance; off, the user's stays */
  TestCheck(comm, info.guard == 0.5, "TSMechGetEWSafeguard() gives %g, the default is 0.5", (double)info.guard);
  TestCheck(comm, info.katol > 1e-30 && info.katol < 1e-6, "with the safeguard the KSP's absolute tolerance must be half of Newton's (a small positive number), not %g", (double)info.katol);
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -snes_ksp_ew -ts_theta_ew_safeguard 0 -ksp_atol 1e-40", base));
  PetscCall(Run(sys, opts, 0, &off, &reason, &q, &v));
  PetscCall(TestRelDiff(q, v, qr, vr, &rel));
  PetscCall(PetscPrintf(comm, "  safeguard 0.5 / off: %" PetscInt_FMT " / %" PetscInt_FMT " linear iterations, off: distance to the tight run %.1e\n", info.lits, off.lits, (double)rel));
  TestCheck(comm, reason > 0 && rel <= acc, "with the safeguard off the run must converge (%s) within %g of the tight run (%g)", TSConvergedReasons[reason], (double)acc, (double)rel);
  TestCheck(comm, off.guard == 0 && off.katol == 1e-40, "with the safeguard off the user's -ksp_atol 1e-40 must stay (%g, factor %g)", (double)off.katol, (double)off.guard);
  TestCheck(comm, info.lits < off.lits, "the safeguard must save linear iterations (%" PetscInt_FMT " with, %" PetscInt_FMT " without)", info.lits, off.lits);
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  /* turned off after 10 steps: the user's tolerance is back for the remaining 20 */
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -snes_ksp_ew -ksp_atol 1e-40", base));
  PetscCall(Run(sys, opts, 10, &off, &reason, &q, &v));
  TestCheck(comm, reason > 0 && off.guard == 0 && off.katol == 1e-40, "the safeguard turned off after 10 steps must give the user's -ksp_atol 1e-40 back (%g, factor %g, %s)", (double)off.katol, (double)off.guard, TSConvergedReasons[reason]);
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  {
    TS             ts;
    PetscErrorCode ierr;

    PetscCall(TSCreate(comm, &ts));
    PetscCall(TSSetType(ts, TSMIDPOINT2));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = TSMechSetEWSafeguard(ts, 1.0);
    PetscCall(PetscPopErrorHandler());
    TestCheck(comm, ierr == PETSC_ERR_ARG_OUTOFRANGE, "a safeguard factor of 1 was accepted (error %d)", (int)ierr);
    PetscCall(TSDestroy(&ts));
  }

  /* fixed steps: under the implicit types' default, automatic incrementation, the stalled step would be retried */
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -snes_ksp_ew -ksp_norm_type preconditioned -ts_adapt_type none", base));
  PetscCall(Run(sys, opts, 0, &info, &reason, &q, &v));
  PetscCall(PetscPrintf(comm, "  -snes_ksp_ew -ksp_norm_type preconditioned: %s norm, %s\n", KSPNormTypes[info.norm], TSConvergedReasons[reason]));
  TestCheck(comm, info.norm == KSP_NORM_PRECONDITIONED, "the user's -ksp_norm_type preconditioned was replaced by %s", KSPNormTypes[info.norm]);
  if (size == 1) TestCheck(comm, reason < 0, "with the preconditioned norm the run no longer stalls (%s): the case does not test what the default avoids", TSConvergedReasons[reason]);
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&qr));
  PetscCall(VecDestroy(&vr));
  PetscCall(MechSystemDestroy(&sys));
  PetscCall(PetscFinalize());
  return 0;
}
