static const char help[] = "The run guard (TSMechSetGuard()) in a program of its own, without the tsmech driver.\n";

/*
  Three runs a program gets wrong without the guard, each with its negative control:
  - blow-up: explicit Euler on the chain past its stability limit. Guarded, the run stops with
    TSMECH_GUARD_BLOWUP at step 10 and gives back a finite state from before the growth; unguarded,
    the same TSSolve() runs on through 20 steps and its energy passes 1e30.
  - a non-finite state at a fixed step (an oscillator with k = 1e300): guarded, the run stops
    with TSMECH_GUARD_NONFINITE and the last good state is the initial one, bit for bit.
  - PETSc's SSP under an adaptive controller with a step far too large: guarded, the non-finite
    steps are retried with smaller ones and the run completes its steps with a finite state;
    with -ts_max_reject 10 the same run gives up (not enough retries), as it must.
  - a NaN on the last rank only (a distributed system whose force there turns NaN at t = 0.05):
    the step that makes it is refused on every rank count. (VecNorm(NORM_INFINITY) loses such a
    NaN in its MPI_MAX reduction; the checks must not.)
*/
#include <tsmech.h>
#include <math.h>

#define Check(cond, ...) PetscCheck(cond, PETSC_COMM_WORLD, PETSC_ERR_PLIB, __VA_ARGS__)

/* A model with options (inserted for this run), a TS of the given type integrating it from its
   initial state; guard: with TSMechSetGuard() */
static PetscErrorCode Run(const char model[], const char opts[], PetscBool guarded, TS *ts, MechSystem *sys, TSMechGuard *guard)
{
  Vec q, v;

  PetscFunctionBegin;
  PetscCall(PetscOptionsClear(NULL));
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(MechCreateModel(PETSC_COMM_WORLD, model, sys));
  PetscCall(TSCreate(PETSC_COMM_WORLD, ts));
  PetscCall(TSMechSetSystem(*ts, *sys));
  PetscCall(TSSetExactFinalTime(*ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetFromOptions(*ts));
  PetscCall(MechSystemCreateState(*sys, &q, &v));
  PetscCall(TSMechSetSolution(*ts, q, v));
  PetscCall(TSSetUp(*ts));
  *guard = NULL;
  if (guarded) PetscCall(TSMechSetGuard(*ts, guard));
  else PetscCall(TSSetErrorIfStepFails(*ts, PETSC_FALSE));
  PetscCall(TSSolve(*ts, NULL));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}

static PetscErrorCode Energy(TS ts, MechSystem sys, PetscReal *E)
{
  Vec       q, v;
  PetscReal t, ke, pe;

  PetscFunctionBegin;
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(TSMechGetSolution(ts, q, v));
  PetscCall(TSGetTime(ts, &t));
  PetscCall(MechSystemComputeEnergy(sys, t, q, v, &ke, &pe));
  *E = ke + pe;
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}

static PetscErrorCode Done(TS *ts, MechSystem *sys)
{
  PetscFunctionBegin;
  PetscCall(TSDestroy(ts));
  PetscCall(MechSystemDestroy(sys));
  PetscFunctionReturn(0);
}

/* f = q, but NaN on the last rank from t = 0.05 on */
static PetscErrorCode LastRankNaNForce(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
{
  PetscMPIInt  rank, size;
  PetscInt     n, i;
  PetscScalar *fa;

  PetscFunctionBeginUser;
  (void)sys;
  (void)v;
  (void)ctx;
  PetscCall(VecCopy(q, f));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (rank == size - 1 && t >= 0.05 - 1e-12) {
    PetscCall(VecGetLocalSize(f, &n));
    PetscCall(VecGetArray(f, &fa));
    for (i = 0; i < n; i++) fa[i] = (PetscScalar)NAN;
    PetscCall(VecRestoreArray(f, &fa));
  }
  PetscFunctionReturn(0);
}

/* K = I (the tangent of f = q) */
static PetscErrorCode IdentityTangent(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  PetscFunctionBeginUser;
  (void)sys;
  (void)t;
  (void)q;
  (void)v;
  (void)cD;
  (void)ctx;
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatShift(J, cK));
  PetscFunctionReturn(0);
}

/* 2 dofs per rank, unit mass, f = q with a NaN on the last rank from t = 0.05 on, linearized
   implicit Euler at dt = 0.01 for 20 steps */
static PetscErrorCode RunLastRankNaN(TSConvergedReason *reason, PetscInt *good)
{
  MechSystem  sys;
  TS          ts;
  Mat         M;
  Vec         q, v;
  TSMechGuard guard;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsClear(NULL));
  PetscCall(MechSystemCreate(PETSC_COMM_WORLD, &sys));
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, 2, 2, PETSC_DETERMINE, PETSC_DETERMINE, 1, NULL, 0, NULL, &M));
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatShift(M, 1.0));
  PetscCall(MechSystemSetMass(sys, M));
  PetscCall(MechSystemSetTangent(sys, M, PETSC_FALSE, IdentityTangent, NULL));
  PetscCall(MatDestroy(&M));
  PetscCall(MechSystemSetForce(sys, LastRankNaNForce, NULL));
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(VecSet(q, 1.0));
  PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
  /* the linearized implicit Euler with a direct (diagonal) solve: no Newton norm and no energy
     check of an explicit method meets the NaN, only the checks of the new state */
  PetscCall(TSSetType(ts, TSBEULER2));
  PetscCall(TSTheta2SetLinearized(ts, PETSC_TRUE, TSTHETA2_GUESS_VELOCITY));
  PetscCall(TSMechSetSystem(ts, sys));
  PetscCall(TSSetTimeStep(ts, 0.01));
  PetscCall(TSSetMaxSteps(ts, 20));
  PetscCall(TSSetMaxTime(ts, 1.0));
  PetscCall(TSMechSetSolution(ts, q, v));
  PetscCall(PetscOptionsInsertString(NULL, "-ksp_type preonly -pc_type jacobi"));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(TSSetUp(ts));
  PetscCall(TSMechSetGuard(ts, &guard));
  PetscCall(TSSolve(ts, NULL));
  PetscCall(TSGetConvergedReason(ts, reason));
  PetscCall(TSMechGuardGetInfo(guard, NULL, NULL, NULL, good, NULL, NULL));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(TSDestroy(&ts));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  TS                 ts;
  MechSystem         sys;
  TSMechGuard        guard;
  TSMechGuardFailure kind;
  TSConvergedReason  reason;
  PetscInt           step, good, start, rejects;
  PetscReal          E, E0, C0, failE;
  const char        *blowup = "-ts_type euler2 -ts_dt 0.05 -ts_max_steps 200 -ts_max_time 100";

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */

  /* blow-up */
  PetscCall(Run("chain", blowup, PETSC_TRUE, &ts, &sys, &guard));
  PetscCall(TSGetConvergedReason(ts, &reason));
  PetscCall(TSMechGuardGetFailure(guard, &kind, NULL, &failE, NULL));
  PetscCall(TSMechGuardGetInfo(guard, &E0, &C0, &start, &good, NULL, NULL));
  Check(reason < 0 && kind == TSMECH_GUARD_BLOWUP, "blow-up: reason %s, guard %s", TSConvergedReasons[reason], TSMechGuardFailures[kind]);
  Check(start == 0 && good == 9, "blow-up: the last good step is %" PetscInt_FMT ", expected 9", good);
  Check(failE - E0 > TSMECH_GUARD_BLOWUP_FACTOR * C0, "blow-up: energy %g from %g is no blow-up", (double)failE, (double)E0);
  PetscCall(TSMechGuardRestore(guard, PETSC_TRUE));
  PetscCall(TSGetStepNumber(ts, &step));
  PetscCall(Energy(ts, sys, &E));
  Check(step <= good && !PetscIsInfOrNanReal(E) && E - E0 <= 1e-2 * PetscMax(C0, PetscAbsReal(E)) + 1e-12, "blow-up: the state before the growth (step %" PetscInt_FMT ") has energy %g, started at %g", step, (double)E, (double)E0);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "blow-up: stopped after step %" PetscInt_FMT " (energy %g from %g); state before the growth: step %" PetscInt_FMT ", energy %g\n", good, (double)failE, (double)E0, step, (double)E));
  PetscCall(Done(&ts, &sys));
  /* negative control: the same run unguarded, 20 steps (further on the state overflows into
     one the model refuses to evaluate, on some ranks only) */
  PetscCall(Run("chain", "-ts_type euler2 -ts_dt 0.05 -ts_max_steps 20 -ts_max_time 100", PETSC_FALSE, &ts, &sys, &guard));
  PetscCall(TSGetStepNumber(ts, &step));
  PetscCall(Energy(ts, sys, &E));
  Check(PetscIsInfOrNanReal(E) || E > 1e30, "unguarded blow-up: energy %g after %" PetscInt_FMT " steps: the negative control failed", (double)E, step);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unguarded: %" PetscInt_FMT " steps, energy %g\n", step, (double)E));
  PetscCall(Done(&ts, &sys));

  /* a non-finite state at a fixed step: the last good state is the initial one, bit for bit */
  PetscCall(Run("oscillator", "-oscillator_k 1e300 -ts_type symeuler2 -ts_dt 1 -ts_max_steps 5", PETSC_TRUE, &ts, &sys, &guard));
  PetscCall(TSMechGuardGetFailure(guard, &kind, NULL, NULL, NULL));
  PetscCall(TSMechGuardGetInfo(guard, NULL, NULL, NULL, &good, NULL, NULL));
  Check(kind == TSMECH_GUARD_NONFINITE && good == 0, "non-finite: guard %s, last good step %" PetscInt_FMT, TSMechGuardFailures[kind], good);
  PetscCall(TSMechGuardRestore(guard, PETSC_FALSE));
  {
    Vec       q, v, q0, v0;
    PetscBool eq, eqv;

    PetscCall(MechSystemCreateState(sys, &q, &v));
    PetscCall(MechSystemCreateState(sys, &q0, &v0));
    PetscCall(TSMechGetSolution(ts, q, v));
    PetscCall(VecEqual(q, q0, &eq));
    PetscCall(VecEqual(v, v0, &eqv));
    Check(eq && eqv, "non-finite: the restored state is not the initial one");
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(VecDestroy(&q0));
    PetscCall(VecDestroy(&v0));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "non-finite: stopped at step 1, initial state restored\n"));
  PetscCall(Done(&ts, &sys));

  /* retries of PETSc's explicit SSP under an adaptive controller */
  PetscCall(Run("oscillator", "-oscillator_g 0 -ts_type ssp -ts_adapt_type basic -ts_dt 1e100 -ts_max_time 1e200 -ts_max_steps 3 -ts_max_reject 1000", PETSC_TRUE, &ts, &sys, &guard));
  PetscCall(TSGetConvergedReason(ts, &reason));
  PetscCall(TSGetStepNumber(ts, &step));
  PetscCall(TSMechGuardGetInfo(guard, NULL, NULL, NULL, NULL, NULL, &rejects));
  PetscCall(Energy(ts, sys, &E));
  Check(reason > 0 && step == 3 && rejects > 0 && !PetscIsInfOrNanReal(E), "retries: reason %s after %" PetscInt_FMT " steps, %" PetscInt_FMT " retried, energy %g", TSConvergedReasons[reason], step, rejects, (double)E);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "retries: %" PetscInt_FMT " steps done after %" PetscInt_FMT " retried, energy %g\n", step, rejects, (double)E));
  PetscCall(Done(&ts, &sys));
  /* negative control: too few retries allowed */
  PetscCall(Run("oscillator", "-oscillator_g 0 -ts_type ssp -ts_adapt_type basic -ts_dt 1e100 -ts_max_time 1e200 -ts_max_steps 3 -ts_max_reject 10", PETSC_TRUE, &ts, &sys, &guard));
  PetscCall(TSGetConvergedReason(ts, &reason));
  PetscCall(TSMechGuardGetFailure(guard, &kind, NULL, NULL, NULL));
  Check(reason < 0 && kind == TSMECH_GUARD_NONFINITE, "retries: with -ts_max_reject 10 the run did not give up (%s)", TSConvergedReasons[reason]);
  PetscCall(Done(&ts, &sys));

  /* a NaN on the last rank only */
  PetscCall(RunLastRankNaN(&reason, &good));
  Check(reason < 0 && good == 5, "NaN on the last rank: the run ended with %s, last good step %" PetscInt_FMT " (expected a failure after step 5)", TSConvergedReasons[reason], good);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "NaN on the last rank: refused at step 6 (%s), last good step %" PetscInt_FMT "\n", TSConvergedReasons[reason], good));

  PetscCall(PetscFinalize());
  return 0;
}
