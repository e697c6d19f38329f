static const char help[] = "The run guard (TSMechSetGuard()) in a program of its own, without the tsmech driver.\n";

/*
  Three runs a program gets wrong without the guard, each with its negative control:
  - blow-up: explicit Euler on the chain past its stability limit. Guarded, the run stops with
    TSMECH_GUARD_BLOWUP at step 10 and gives back a finite state from before the growth; unguarded,
    the same TSSolve() runs on and its energy passes 1e30 (or overflows).
  - a non-finite state at a fixed step (an oscillator with k = 1e300): guarded, the run stops
    with TSMECH_GUARD_NONFINITE and the last good state is the initial one, bit for bit.
  - PETSc's SSP under an adaptive controller with a step far too large: guarded, the non-finite
    steps are retried with smaller ones and the run completes its steps with a finite state;
    with -ts_max_reject 10 the same run gives up (not enough retries), as it must.
*/
#include <tsmech.h>

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

  /* blow-up */
  PetscCall(Run("chain", blowup, PETSC_TRUE, &ts, &sys, &guard));
  PetscCall(TSGetConvergedReason(ts, &reason));
  PetscCall(TSMechGuardGetFailure(guard, &kind, NULL, &failE));
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
  /* negative control: the same run unguarded */
  PetscCall(Run("chain", blowup, PETSC_FALSE, &ts, &sys, &guard));
  PetscCall(TSGetStepNumber(ts, &step));
  PetscCall(Energy(ts, sys, &E));
  Check(PetscIsInfOrNanReal(E) || E > 1e30, "unguarded blow-up: energy %g after %" PetscInt_FMT " steps: the negative control failed", (double)E, step);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unguarded: %" PetscInt_FMT " steps, energy %g\n", step, (double)E));
  PetscCall(Done(&ts, &sys));

  /* a non-finite state at a fixed step: the last good state is the initial one, bit for bit */
  PetscCall(Run("oscillator", "-oscillator_k 1e300 -ts_type symeuler2 -ts_dt 1 -ts_max_steps 5", PETSC_TRUE, &ts, &sys, &guard));
  PetscCall(TSMechGuardGetFailure(guard, &kind, NULL, NULL));
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
  PetscCall(TSMechGuardGetFailure(guard, &kind, NULL, NULL));
  Check(reason < 0 && kind == TSMECH_GUARD_NONFINITE, "retries: with -ts_max_reject 10 the run did not give up (%s)", TSConvergedReasons[reason]);
  PetscCall(Done(&ts, &sys));

  PetscCall(PetscFinalize());
  return 0;
}
