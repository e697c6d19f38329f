static const char help[] = "Two particles joined by a spring (docs/schemes.md §5), from the built-in model MechCreatePair(),\n"
                           "integrated with any TS type (-ts_type, default midpoint2). Prints the final positions, the\n"
                           "energy drift over the run and, where the model has one, the error against the exact solution.\n"
                           "  -pair_m0 <1> -pair_m1 <2> -pair_k <10> -pair_L <0> -pair_c <0> -pair_g <0>\n"
                           "  -pair_x0 <0,0,0> -pair_x1 <1,0.5,0> -pair_v1 <0.3>   the model (src/models/pair.c)\n"
                           "  -drift_tol <tol>  exit with an error if the largest relative energy drift exceeds tol\n"
                           "  -error_tol <tol>  exit with an error if the final error exceeds tol (when there is an exact solution)\n"
                           "Time: -ts_dt <0.01>, -ts_max_time <10>. Try\n"
                           "  ./two_particles -ts_type midpoint2   energy of this linear spring kept to round-off\n"
                           "  ./two_particles -ts_type symeuler2   bounded, oscillating energy error\n"
                           "  ./two_particles -ts_type euler2      energy grows\n"
                           "  ./two_particles -ts_type beuler2     energy decays\n"
                           "  ./two_particles -pair_L 0.5 -pair_g 9.81   a spring with rest length under gravity (nonlinear)\n";

/*
  Without damping the total energy (kinetic + spring + gravity) is conserved by the exact motion,
  so its drift measures what the integrator does to it. A TS monitor records the largest drift
  seen over the run; TSMechGetSolution() gives the monitor (q, v) whatever form the TS integrates
  (second-order types store q and v, first-order types the stacked [q; v]).
*/
#include <tsmech.h>

typedef struct {
  MechSystem sys;
  Vec        q, v;  /* work vectors for the monitor */
  PetscReal  E0;    /* initial energy */
  PetscReal  drift; /* largest |E - E0| seen */
} Monitor;

static PetscErrorCode EnergyMonitor(TS ts, PetscInt step, PetscReal t, Vec X, void *ctx)
{
  Monitor  *mon = (Monitor *)ctx;
  PetscReal kin, pot;

  PetscFunctionBeginUser;
  (void)step;
  (void)X;
  PetscCall(TSMechGetSolution(ts, mon->q, mon->v));
  PetscCall(MechSystemComputeEnergy(mon->sys, t, mon->q, mon->v, &kin, &pot));
  mon->drift = PetscMax(mon->drift, PetscAbsReal(kin + pot - mon->E0));
  PetscFunctionReturn(0);
}

/* Prints the two positions; all six dofs of the pair live on rank 0, so rank 0 prints them. */
static PetscErrorCode PrintPositions(const char *label, Vec q)
{
  const PetscScalar *x;
  PetscInt           n;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArrayRead(q, &x));
  if (n == 6) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %s x0 = (% .8f, % .8f, % .8f)  x1 = (% .8f, % .8f, % .8f)\n", label, (double)PetscRealPart(x[0]), (double)PetscRealPart(x[1]), (double)PetscRealPart(x[2]), (double)PetscRealPart(x[3]), (double)PetscRealPart(x[4]), (double)PetscRealPart(x[5])));
  PetscCall(VecRestoreArrayRead(q, &x));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Monitor     mon = {NULL, NULL, NULL, 0, 0};
  MechSystem  sys;
  TS          ts;
  Vec         q, v;
  PetscReal   drifttol = -1, errtol = -1, kin, pot, t, scale, err = 0;
  PetscBool   hasexact;
  const char *type;
  PetscInt    steps;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Two-particle example options", "");
  PetscCall(PetscOptionsReal("-drift_tol", "Fail if the largest relative energy drift exceeds this (negative: never)", "", drifttol, &drifttol, NULL));
  PetscCall(PetscOptionsReal("-error_tol", "Fail if the final error exceeds this (negative: never)", "", errtol, &errtol, NULL));
  PetscOptionsEnd();

  /* The model reads its -pair_ options and sets its initial state */
  PetscCall(MechCreatePair(PETSC_COMM_WORLD, &sys));
  PetscCall(MechSystemView(sys, NULL));

  PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
  PetscCall(TSSetType(ts, TSMIDPOINT2));
  PetscCall(TSMechSetSystem(ts, sys));
  PetscCall(TSSetTimeStep(ts, 0.01));
  PetscCall(TSSetMaxTime(ts, 10.0));
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetFromOptions(ts));

  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(TSMechSetSolution(ts, q, v));
  PetscCall(PrintPositions("initial", q));

  mon.sys = sys;
  PetscCall(VecDuplicate(q, &mon.q));
  PetscCall(VecDuplicate(v, &mon.v));
  PetscCall(MechSystemComputeEnergy(sys, 0.0, q, v, &kin, &pot));
  mon.E0 = kin + pot;
  PetscCall(TSMonitorSet(ts, EnergyMonitor, &mon, NULL));

  PetscCall(TSSolve(ts, NULL));

  PetscCall(TSMechGetSolution(ts, q, v));
  PetscCall(TSGetSolveTime(ts, &t));
  PetscCall(TSGetStepNumber(ts, &steps));
  PetscCall(TSGetType(ts, &type));
  PetscCall(MechSystemComputeEnergy(sys, t, q, v, &kin, &pot));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, %" PetscInt_FMT " steps to t = %g\n", type, steps, (double)t));
  PetscCall(PrintPositions("final  ", q));
  /* relative to the kinetic-plus-spring scale of the start: E0 itself may be near 0 with gravity */
  scale = PetscMax(PetscAbsReal(mon.E0), PETSC_SMALL);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  energy %.12g -> %.12g, final drift %.3e, largest drift %.3e (relative %.3e)\n", (double)mon.E0, (double)(kin + pot), (double)(kin + pot - mon.E0), (double)mon.drift, (double)(mon.drift / scale)));

  {
    Vec qe, ve;
    PetscCall(VecDuplicate(q, &qe));
    PetscCall(VecDuplicate(v, &ve));
    PetscCall(MechSystemComputeExactSolution(sys, t, qe, ve, &hasexact));
    if (hasexact) {
      PetscCall(VecAXPY(qe, -1.0, q));
      PetscCall(VecNorm(qe, NORM_INFINITY, &err));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  largest position error against the exact solution %.3e\n", (double)err));
    }
    PetscCall(VecDestroy(&qe));
    PetscCall(VecDestroy(&ve));
  }
  PetscCheck(drifttol < 0 || mon.drift / scale <= drifttol, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "Relative energy drift %g exceeds -drift_tol %g", (double)(mon.drift / scale), (double)drifttol);
  PetscCheck(errtol < 0 || !hasexact || err <= errtol, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "Error %g exceeds -error_tol %g", (double)err, (double)errtol);

  PetscCall(VecDestroy(&mon.q));
  PetscCall(VecDestroy(&mon.v));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(TSDestroy(&ts));
  PetscCall(MechSystemDestroy(&sys));
  PetscCall(PetscFinalize());
  return 0;
}
