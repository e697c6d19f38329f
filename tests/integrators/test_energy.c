static const char help[] = "Energy behaviour on an undamped linear chain (zero-rest-length springs, gravity, no damping,\n"
                           "no drag) over many steps, total energy from MechSystemComputeEnergy() at every step:\n"
                           "cn2 and midpoint2 conserve it to round-off, beuler2 strictly decreases it every step,\n"
                           "euler2 strictly increases it every step, symeuler2 keeps a bounded, non-growing error.\n"
                           "  -n <6> -k <1e4> -steps <10000> -dt <1e-4>   chain size, spring stiffness, steps\n"
                           "  -conserve_tol <1e-10>   cn2 / midpoint2: max |E - E0| / |E0|\n"
                           "  -symplectic_tol <1e-2>  symeuler2: max |E - E0| / |E0|\n";

#include "integ.h"

/*
  The default chain: 6 particles of mass 1/6 (5 free), k = 1e4, so the free-pinned modes have
  omega_j = 2 sqrt(k/m) sin((2j-1) pi / 22): 70 to 483 rad/s. With dt = 1e-4, omega_max dt = 0.05:
  symplectic Euler is stable, explicit Euler grows (its energy by ~1e7 over the 1e4 steps: no
  overflow), and a tenth of the run (0.1 s) spans more than one period of the slowest mode
  (0.09 s), so that the first and last tenths of symeuler2's oscillating error are comparable.
*/

typedef struct {
  MechSystem sys;
  PetscInt   nsteps;
  PetscReal *E; /* total energy at steps 0..nsteps */
  Vec        q, v;
} EnergyCtx;

static PetscErrorCode EnergyMonitor(TS ts, PetscInt step, PetscReal t, Vec u, void *ctx)
{
  EnergyCtx *ec = (EnergyCtx *)ctx;
  PetscReal  ke, pe;

  PetscFunctionBegin;
  (void)u;
  PetscCheck(step >= 0 && step <= ec->nsteps, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Unexpected step %" PetscInt_FMT, step);
  PetscCall(TSMechGetSolution(ts, ec->q, ec->v));
  PetscCall(MechSystemComputeEnergy(ec->sys, t, ec->q, ec->v, &ke, &pe));
  ec->E[step] = ke + pe;
  PetscFunctionReturn(0);
}

typedef enum {
  CONSERVES,
  DECREASES,
  INCREASES,
  BOUNDED
} Behaviour;

int main(int argc, char **argv)
{
  MPI_Comm  comm;
  EnergyCtx ec;
  PetscInt  n = 6, steps = 10000, failures = 0;
  PetscReal dt = 1e-4, ctol = 1e-10, stol = 1e-2, k = 1e4;
  char      model[256];
  const struct {
    const char *type;
    Behaviour   b;
  } cases[] = {
      {"cn2",       CONSERVES},
      {"midpoint2", CONSERVES},
      {"beuler2",   DECREASES},
      {"euler2",    INCREASES},
      {"symeuler2", BOUNDED  },
  };

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &steps, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-dt", &dt, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-k", &k, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-conserve_tol", &ctol, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-symplectic_tol", &stol, NULL));
  PetscCall(PetscSNPrintf(model, sizeof(model), "-chain_n %" PetscInt_FMT " -chain_k %g -chain_linear -chain_c 0 -chain_drag 0 -chain_g 9.81", n, (double)k));
  PetscCall(IntegCreateModel(comm, "chain", model, &ec.sys));
  {
    PetscBool linear;
    PetscCall(MechSystemGetLinear(ec.sys, &linear));
    TestCheck(comm, linear, "The chain of this test must be linear");
  }
  PetscCall(MechSystemCreateState(ec.sys, &ec.q, &ec.v));
  ec.nsteps = steps;
  PetscCall(PetscMalloc1(steps + 1, &ec.E));
  PetscCall(PetscPrintf(comm, "undamped linear chain (%s), %" PetscInt_FMT " steps of %g\n", model, steps, (double)dt));
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    Vec            q, v;
    PetscReal      E0, maxrel = 0, first = 0, last = 0, mind = PETSC_MAX_REAL, maxd = -PETSC_MAX_REAL;
    PetscInt       bad = 0, tenth = steps / 10;
    PetscLogDouble t0, t1;

    for (PetscInt i = 0; i <= steps; i++) ec.E[i] = PETSC_MAX_REAL;
    PetscCall(PetscTime(&t0));
    PetscCall(IntegRun(ec.sys, cases[c].type, "-ksp_type preonly -pc_type lu", dt, steps, EnergyMonitor, &ec, &q, &v, NULL));
    PetscCall(PetscTime(&t1));
    E0 = ec.E[0];
    for (PetscInt i = 1; i <= steps; i++) {
      const PetscReal rel = PetscAbsReal(ec.E[i] - E0) / PetscAbsReal(E0), d = ec.E[i] - ec.E[i - 1];
      TestCheck(comm, ec.E[i] != PETSC_MAX_REAL, "%s: no energy recorded at step %" PetscInt_FMT, cases[c].type, i);
      maxrel = PetscMax(maxrel, rel);
      mind   = PetscMin(mind, d);
      maxd   = PetscMax(maxd, d);
      if (i <= tenth) first = PetscMax(first, rel);
      if (i > steps - tenth) last = PetscMax(last, rel);
      if (cases[c].b == DECREASES && !(d < 0)) bad++;
      if (cases[c].b == INCREASES && !(d > 0)) bad++;
    }
    PetscCall(PetscPrintf(comm, "%-9s E0 %.10g  E_end %.10g  max|E-E0|/|E0| %.3e (first tenth %.3e, last tenth %.3e)  step changes in [%.3e, %.3e]  %.2f s\n", cases[c].type, (double)E0, (double)ec.E[steps], (double)maxrel, (double)first, (double)last, (double)mind, (double)maxd, t1 - t0));
    switch (cases[c].b) {
    case CONSERVES:
      if (!(maxrel <= ctol)) {
        failures++;
        PetscCall(PetscPrintf(comm, "FAILED: %s does not conserve the energy: %.3e > %.1e\n", cases[c].type, (double)maxrel, (double)ctol));
      }
      break;
    case DECREASES:
    case INCREASES:
      if (bad) {
        failures++;
        PetscCall(PetscPrintf(comm, "FAILED: %s: the energy did not strictly %s at %" PetscInt_FMT " steps\n", cases[c].type, cases[c].b == DECREASES ? "decrease" : "increase", bad));
      }
      break;
    case BOUNDED:
      if (!(maxrel <= stol) || !(last <= 1.5 * first)) {
        failures++;
        PetscCall(PetscPrintf(comm, "FAILED: %s: energy error %.3e (bound %.1e), last tenth %.3e vs 1.5 x first tenth %.3e\n", cases[c].type, (double)maxrel, (double)stol, (double)last, (double)(1.5 * first)));
      }
      break;
    }
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
  }
  PetscCall(PetscFree(ec.E));
  PetscCall(VecDestroy(&ec.q));
  PetscCall(VecDestroy(&ec.v));
  PetscCall(MechSystemDestroy(&ec.sys));
  TestCheck(comm, !failures, "%" PetscInt_FMT " energy checks failed", failures);
  PetscCall(PetscPrintf(comm, "all energy checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
