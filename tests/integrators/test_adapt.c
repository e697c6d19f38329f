static const char help[] = "Adaptive stepping (TSAdapt basic with the tsmech error estimate) and rollback after a failed\n"
                           "solve, on the eccentric Kepler orbit (e = 0.9) over one period.\n";

#include "testutil.h"

typedef struct {
  PetscReal dtmin, dtmax;
} Steps;

static PetscErrorCode RecordStep(TS ts, PetscInt step, PetscReal t, Vec X, void *ctx)
{
  Steps    *s = (Steps *)ctx;
  PetscReal dt;

  PetscFunctionBegin;
  (void)t;
  (void)X;
  if (step == 0) PetscFunctionReturn(0);
  PetscCall(TSGetTimeStep(ts, &dt));
  s->dtmin = PetscMin(s->dtmin, dt);
  s->dtmax = PetscMax(s->dtmax, dt);
  PetscFunctionReturn(0);
}

/* One period of the orbit under type/opts; returns the error against the exact solution. */
static PetscErrorCode Orbit(MechSystem sys, const char *type, const char *opts, PetscReal dt, PetscReal *err, Steps *s, PetscInt *steps, PetscInt *rejects, PetscInt *fails)
{
  TS        ts;
  Vec       q, v, qe, ve;
  PetscReal T = 2 * PETSC_PI;

  PetscFunctionBegin;
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
  PetscCall(TSSetType(ts, type));
  PetscCall(TSMechSetSystem(ts, sys));
  PetscCall(TSSetTimeStep(ts, dt));
  PetscCall(TSSetMaxTime(ts, T));
  PetscCall(TSSetMaxSteps(ts, 100000));
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  s->dtmin = PETSC_MAX_REAL;
  s->dtmax = 0;
  PetscCall(TSMonitorSet(ts, RecordStep, s, NULL));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(TSMechSetSolution(ts, q, v));
  PetscCall(TSSolve(ts, NULL));
  PetscCall(TSMechGetSolution(ts, q, v));
  PetscCall(TSGetStepNumber(ts, steps));
  PetscCall(TSGetStepRejections(ts, rejects));
  PetscCall(TSGetSNESFailures(ts, fails));
  {
    PetscReal t;
    PetscCall(TSGetTime(ts, &t));
    PetscCheck(PetscAbsReal(t - T) < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s stopped at t = %g, not %g", type, (double)t, (double)T);
  }
  PetscCall(MechSystemCreateState(sys, &qe, &ve));
  PetscCall(MechSystemComputeExactSolution(sys, T, qe, ve, NULL));
  PetscCall(TestRelDiff(q, v, qe, ve, err));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&qe));
  PetscCall(VecDestroy(&ve));
  PetscCall(TSDestroy(&ts));
  PetscCall(PetscOptionsClear(NULL));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MechSystem sys;
  Steps      s;
  PetscInt   nfixed = 0, nadapt, rejects, fails;
  PetscReal  efixed, eadapt;
  /* first-order types lose the phase of this orbit either way (errors O(1)): they are only required
     to complete with a varying step */
  const char *types[]  = {TSMIDPOINT2, TSCN2, TSBEULER2, TSSYMEULER2};
  PetscBool   second[] = {PETSC_TRUE, PETSC_TRUE, PETSC_FALSE, PETSC_FALSE};
  const char *solve    = "-snes_rtol 1e-12 -snes_atol 1e-14 -ksp_type preonly -pc_type lu";
  char        opts[512];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsSetValue(NULL, "-kepler_e", "0.9"));
  PetscCall(MechCreateKepler(PETSC_COMM_WORLD, &sys));
  PetscCall(PetscOptionsClear(NULL));

  /* adaptive: the step must shrink at pericentre and grow at apocentre, and beat a fixed step
     with the same number of steps */
  for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -ts_adapt_type basic -ts_rtol 1e-5 -ts_atol 1e-5", solve));
    PetscCall(Orbit(sys, types[i], opts, 1e-3, &eadapt, &s, &nadapt, &rejects, &fails));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-9s adaptive steps between %.3e and %.3e\n", types[i], (double)s.dtmin, (double)s.dtmax));
    {
      Steps sf;
      PetscCall(Orbit(sys, types[i], solve, 2 * PETSC_PI / nadapt, &efixed, &sf, &nfixed, &rejects, &fails));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-9s adaptive: %5" PetscInt_FMT " steps, error %.3e; fixed step with as many steps: error %.3e\n", types[i], nadapt, (double)eadapt, (double)efixed));
    PetscCheck(s.dtmax > 5 * s.dtmin, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the adaptive step hardly varies: %g .. %g", types[i], (double)s.dtmin, (double)s.dtmax);
    PetscCheck(!second[i] || eadapt < 0.1 * efixed, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the adaptive run (error %g) is not 10x more accurate than a fixed step with as many steps (%g)", types[i], (double)eadapt, (double)efixed);
  }
  /* rollback: a step far too long for pericentre with Newton limited to 3 iterations fails; the
     TS must reject it, come back to the start of the step and retry with a shorter one */
  for (PetscInt lin = 0; lin < 2; lin++) {
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -snes_max_it 3 -ts_adapt_type basic -ts_max_snes_failures -1 -ts_max_reject -1 -ts_rtol 1e-5 -ts_atol 1e-5%s", solve, lin ? " -ts_theta_linearized" : ""));
    PetscCall(Orbit(sys, TSMIDPOINT2, opts, 0.3, &eadapt, &s, &nadapt, &rejects, &fails));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "midpoint2%s from dt 0.3 with -snes_max_it 3: %" PetscInt_FMT " steps, %" PetscInt_FMT " rejected, %" PetscInt_FMT " failed solves, error %.3e\n", lin ? " linearized" : "", nadapt, rejects, fails, (double)eadapt));
    PetscCheck(rejects > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "no step was rejected");
    PetscCheck(eadapt < 0.1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the run after rejections is wrong: error %g", (double)eadapt);
  }
  PetscCall(MechSystemDestroy(&sys));
  PetscCall(PetscFinalize());
  return 0;
}
