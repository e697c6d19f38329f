static const char help[] = "Kepler orbit (docs/schemes.md §3), e = 0.6, 10^4 steps of 0.01: invariants under midpoint2, cn2, beuler2.\n";

#include "testutil.h"

typedef struct {
  MechSystem sys;
  Vec        q, v;
  PetscInt   n;
  PetscReal *E, *L;
} History;

static PetscErrorCode Record(TS ts, PetscInt step, PetscReal t, Vec X, void *ctx)
{
  History  *h = (History *)ctx;
  PetscReal ke, pe;

  PetscFunctionBegin;
  (void)X;
  PetscCall(TSMechGetSolution(ts, h->q, h->v));
  PetscCall(MechSystemComputeEnergy(h->sys, t, h->q, h->v, &ke, &pe));
  h->E[step] = ke + pe;
  PetscCall(MechSystemComputeInvariant(h->sys, 0, t, h->q, h->v, NULL, &h->L[step]));
  h->n = step + 1;
  PetscFunctionReturn(0);
}

/* Runs type for nsteps steps of dt and records energy and angular momentum at every step. */
static PetscErrorCode Run(MechSystem sys, const char *type, PetscInt nsteps, PetscReal dt, PetscBool mayfail, History *h)
{
  TS ts;

  PetscFunctionBegin;
  h->sys = sys;
  PetscCall(PetscMalloc2(nsteps + 1, &h->E, nsteps + 1, &h->L));
  PetscCall(MechSystemCreateState(sys, &h->q, &h->v));
  PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
  PetscCall(TSSetType(ts, type));
  PetscCall(TSMechSetSystem(ts, sys));
  PetscCall(TSSetTimeStep(ts, dt));
  PetscCall(TSSetMaxSteps(ts, nsteps));
  PetscCall(TSSetMaxTime(ts, nsteps * dt * 2));
  PetscCall(TSMonitorSet(ts, Record, h, NULL));
  PetscCall(TSSetErrorIfStepFails(ts, mayfail ? PETSC_FALSE : PETSC_TRUE));
  {
    SNES snes;
    KSP  ksp;
    PC   pc;
    PetscCall(TSGetSNES(ts, &snes));
    PetscCall(SNESSetTolerances(snes, 1e-14, 1e-14, 1e-14, 50, PETSC_DEFAULT));
    if (mayfail) {
      SNESLineSearch ls;
      TSAdapt        adapt;

      /* the collapse compared with PETSc's beuler under PETSc's defaults: fixed steps (a failed step
         ends the run instead of being cut back) and the backtracking line search on |F|^2 */
      PetscCall(SNESGetLineSearch(snes, &ls));
      PetscCall(SNESLineSearchSetType(ls, SNESLINESEARCHBT));
      PetscCall(TSGetAdapt(ts, &adapt));
      PetscCall(TSAdaptSetType(adapt, TSADAPTNONE));
    }
    PetscCall(SNESGetKSP(snes, &ksp));
    PetscCall(KSPSetType(ksp, KSPPREONLY));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCLU));
  }
  PetscCall(TSSetFromOptions(ts));
  {
    Vec q, v;
    PetscCall(MechSystemCreateState(sys, &q, &v));
    PetscCall(TSMechSetSolution(ts, q, v));
    PetscCall(TSSolve(ts, NULL));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
  }
  PetscCheck(mayfail || h->n == nsteps + 1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: recorded %" PetscInt_FMT " states, expected %" PetscInt_FMT, type, h->n, nsteps + 1);
  PetscCall(TSDestroy(&ts));
  PetscFunctionReturn(0);
}

static PetscErrorCode Free(History *h)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(h->E, h->L));
  PetscCall(VecDestroy(&h->q));
  PetscCall(VecDestroy(&h->v));
  PetscFunctionReturn(0);
}

/* maximum relative energy error over [i0, i1) */
static PetscReal MaxEnergyError(const History *h, PetscInt i0, PetscInt i1)
{
  PetscReal m = 0;
  for (PetscInt i = i0; i < i1; i++) m = PetscMax(m, PetscAbsReal((h->E[i] - h->E[0]) / h->E[0]));
  return m;
}

int main(int argc, char **argv)
{
  const PetscInt  nsteps = 10000, tenth = nsteps / 10;
  const PetscReal dt = 0.01;
  MechSystem      sys;
  History         mid, cn, be;
  PetscReal       Lerr = 0, first, last;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  PetscCall(PetscOptionsSetValue(NULL, "-kepler_e", "0.6"));
  PetscCall(MechCreateKepler(PETSC_COMM_WORLD, &sys));

  PetscCall(Run(sys, TSMIDPOINT2, nsteps, dt, PETSC_FALSE, &mid));
  for (PetscInt i = 0; i <= nsteps; i++) Lerr = PetscMax(Lerr, PetscAbsReal((mid.L[i] - mid.L[0]) / mid.L[0]));
  first = MaxEnergyError(&mid, 1, tenth + 1);
  last  = MaxEnergyError(&mid, nsteps + 1 - tenth, nsteps + 1);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "midpoint2: angular momentum max rel. error %.3e; energy max rel. error first tenth %.3e, last tenth %.3e, whole run %.3e\n", (double)Lerr, (double)first, (double)last, (double)MaxEnergyError(&mid, 0, nsteps + 1)));
  PetscCheck(Lerr <= 1e-10, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "midpoint2 angular momentum drifts: %g > 1e-10", (double)Lerr);
  PetscCheck(last <= 1.5 * first, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "midpoint2 energy drifts: last tenth %g > 1.5 x first tenth %g", (double)last, (double)first);

  PetscCall(Run(sys, TSCN2, nsteps, dt, PETSC_FALSE, &cn));
  Lerr = 0;
  for (PetscInt i = 0; i <= nsteps; i++) Lerr = PetscMax(Lerr, PetscAbsReal((cn.L[i] - cn.L[0]) / cn.L[0]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cn2:       angular momentum max rel. error %.3e; energy max rel. error first tenth %.3e, last tenth %.3e, whole run %.3e\n", (double)Lerr, (double)MaxEnergyError(&cn, 1, tenth + 1), (double)MaxEnergyError(&cn, nsteps + 1 - tenth, nsteps + 1), (double)MaxEnergyError(&cn, 0, nsteps + 1)));

  /* Implicit Euler's dissipation makes the body fall into the centre within a few orbits; the
     discrete solution then ceases to exist (Newton fails as r -> 0), for PETSc's TSBEULER on the
     first-order form exactly as for beuler2. Until then the energy must fall at every step. */
  {
    History pbe;
    PetscCall(Run(sys, TSBEULER2, nsteps, dt, PETSC_TRUE, &be));
    PetscCall(Run(sys, TSBEULER, nsteps, dt, PETSC_TRUE, &pbe));
    for (PetscInt i = 1; i < be.n; i++) PetscCheck(be.E[i] < be.E[i - 1], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "beuler2 energy does not decrease at step %" PetscInt_FMT ": %.17g -> %.17g", i, (double)be.E[i - 1], (double)be.E[i]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "beuler2:   energy decreases at every one of %" PetscInt_FMT " steps, %.6g -> %.6g; the orbit collapses into the centre at t = %.2f (PETSc beuler: after %" PetscInt_FMT " steps)\n", be.n - 1, (double)be.E[0], (double)be.E[be.n - 1], (double)((be.n - 1) * dt), pbe.n - 1));
    PetscCheck(be.n - 1 >= 600, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "beuler2 stopped after %" PetscInt_FMT " steps, before the orbit's collapse", be.n - 1);
    PetscCheck(PetscAbsInt(be.n - pbe.n) <= 2, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "beuler2 (%" PetscInt_FMT " steps) and PETSc's beuler (%" PetscInt_FMT " steps) do not collapse at the same step", be.n - 1, pbe.n - 1);
    PetscCall(Free(&pbe));
  }

  PetscCall(Free(&mid));
  PetscCall(Free(&cn));
  PetscCall(Free(&be));
  PetscCall(MechSystemDestroy(&sys));
  PetscCall(PetscFinalize());
  return 0;
}
