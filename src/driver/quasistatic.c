/*
  The tsmech program's quasi-static behaviours (docs/solvers.md §8): the first step of a
  quasi-static type, the equilibrium on the progress line, and -report_equilibrium.
*/
#include "quasistatic.h"
#include <stdio.h>

/*
  DriverQuasiStaticStep - A quasi-static type (static2) without -ts_dt takes the whole run as its
  first step (Abaqus/Standard's default initial increment is the step's time); automatic
  incrementation cuts it back where Newton fails and lands on the loads' kinks. A restart keeps
  the checkpoint's step.
*/
PetscErrorCode DriverQuasiStaticStep(TS ts, PetscBool restart)
{
  TSMechProperties p;
  PetscBool        given;
  PetscReal        t, tmax;
  const char      *prefix;

  PetscFunctionBegin;
  PetscCall(TSMechGetProperties(ts, &p));
  PetscCall(TSGetOptionsPrefix(ts, &prefix));
  PetscCall(PetscOptionsHasName(NULL, prefix, "-ts_dt", &given));
  if (!p.quasistatic || given || restart) PetscFunctionReturn(0);
  PetscCall(TSGetTime(ts, &t));
  PetscCall(TSGetMaxTime(ts, &tmax));
  if (tmax > t && tmax < PETSC_MAX_REAL) PetscCall(TSSetTimeStep(ts, tmax - t));
  PetscFunctionReturn(0);
}

/*
  DriverEquilibriumColumn - The progress line's field of a quasi-static type, the residual of
  equilibrium against the load after the last step ("" for other types, which show the energy)
*/
PetscErrorCode DriverEquilibriumColumn(TS ts, char text[], size_t len)
{
  PetscBool has;
  PetscReal res, load;

  PetscFunctionBegin;
  text[0] = 0;
  PetscCall(TSStatic2GetEquilibrium(ts, &has, NULL, &res, &load));
  if (has) (void)snprintf(text, len, "eq %-9.2e", load > 0 ? (double)(res / load) : (double)res);
  PetscFunctionReturn(0);
}

/*
  DriverReportEquilibrium - -report_equilibrium: how far the final state is from static
  equilibrium, |f(t, q, 0)| over the free dofs against the load |f(t, X, 0)| at the initial state
  at rest (MechSystemComputeEquilibrium(): no inertia or velocity of moving supports), for every
  type: what a run that damps out to rest reports as its answer's quality
*/
PetscErrorCode DriverReportEquilibrium(MPI_Comm comm, MechSystem sys, TS ts)
{
  Vec       q, v;
  PetscReal t, nf, nl;
  char      line[256];

  PetscFunctionBegin;
  PetscCall(TSGetTime(ts, &t));
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(TSMechGetSolution(ts, q, NULL));
  PetscCall(MechSystemComputeEquilibrium(sys, t, q, &nf, &nl));
  /* the C library's formats (PETSc's print %g of 4 as "4.") */
  (void)snprintf(line, sizeof(line), "tsmech: equilibrium at t = %g: |f(t, q, 0)| = %.3e, %.3e of the load |f(t, X, 0)| = %.3e\n", (double)t, (double)nf, nl > 0 ? (double)(nf / nl) : 0.0, (double)nl);
  PetscCall(PetscPrintf(comm, "%s", line));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}
