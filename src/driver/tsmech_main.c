/* isatty() and clock_gettime() are POSIX */
#define _POSIX_C_SOURCE 200809L
static const char help[] = "tsmech: integrate M q'' + f(t, q, q') = 0 for a model with any PETSc TS type.\n"
                           "  mpirun -n P tsmech -model cloth [-output run.h5] [PETSc options]\n"
                           "Every -ts_, -snes_, -ksp_, -pc_ option applies; the integrator is chosen with -ts_type\n"
                           "(theta2, beuler2, cn2, midpoint2, euler2, symeuler2, alpha2, or PETSc's first-order types).\n";

#include <tsmech.h>
#include <unistd.h>
#include <stdio.h>

/* The progress line: in place on a terminal, plain lines otherwise. */
typedef struct {
  MechSystem     sys;
  PetscBool      tty;
  PetscLogDouble start, last;
  PetscReal      E0, t0, tmax;
  PetscInt       maxsteps;
  PetscBool      printed;
} Progress;

static PetscErrorCode ProgressMonitor(TS ts, PetscInt step, PetscReal t, Vec X, void *ctx)
{
  Progress      *p = (Progress *)ctx;
  PetscLogDouble now;
  PetscReal      dt, ke, pe, frac = 0, tmax = p->tmax;
  PetscInt       its, kits, maxsteps = p->maxsteps;
  Vec            q, v;
  char           remaining[64] = "";

  PetscFunctionBegin;
  (void)X;
  PetscCall(PetscTime(&now));
  /* a line at most every 0.2 s on a terminal and every 5 s in a log, plus the first and last */
  if (step > 0 && now - p->last < (p->tty ? 0.2 : 5.0)) {
    PetscBool last = (t >= tmax * (1 - 1e-12) || step >= maxsteps) ? PETSC_TRUE : PETSC_FALSE;
    if (!last) PetscFunctionReturn(0);
  }
  p->last = now;
  PetscCall(MechSystemCreateState(p->sys, &q, &v));
  PetscCall(TSMechGetSolution(ts, q, v));
  PetscCall(MechSystemComputeEnergy(p->sys, t, q, v, &ke, &pe));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(TSGetTimeStep(ts, &dt));
  PetscCall(TSGetSNESIterations(ts, &its));
  PetscCall(TSGetKSPIterations(ts, &kits));
  if (tmax > p->t0 && tmax < PETSC_MAX_REAL) frac = (t - p->t0) / (tmax - p->t0);
  if (maxsteps > 0 && maxsteps < PETSC_MAX_INT) frac = PetscMax(frac, (PetscReal)step / maxsteps);
  if (frac > 0 && frac < 1) PetscCall(PetscSNPrintf(remaining, sizeof(remaining), "  remaining ~%.1f s", (double)((now - p->start) * (1 - frac) / frac)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%sstep %6" PetscInt_FMT "  t %-10.4g dt %-9.3g E %-13.6g newton %-6" PetscInt_FMT " ksp %-8" PetscInt_FMT " elapsed %.1f s%s%s", p->tty ? "\r" : "", step, (double)t, (double)dt, (double)(ke + pe), its, kits, (double)(now - p->start), remaining, p->tty ? "\033[K" : "\n"));
  p->printed = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode Summary(TS ts, MechSystem sys, Progress *p, PetscReal E0, PetscLogDouble start)
{
  PetscInt          steps, rejected, its, kits;
  PetscReal         t, ke, pe, E1;
  PetscLogDouble    now;
  TSConvergedReason reason;
  TSType            type;
  Vec               q, v;

  PetscFunctionBegin;
  PetscCall(PetscTime(&now));
  PetscCall(TSGetStepNumber(ts, &steps));
  PetscCall(TSGetStepRejections(ts, &rejected));
  PetscCall(TSGetSNESIterations(ts, &its));
  PetscCall(TSGetKSPIterations(ts, &kits));
  PetscCall(TSGetTime(ts, &t));
  PetscCall(TSGetConvergedReason(ts, &reason));
  PetscCall(TSGetType(ts, &type));
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(TSMechGetSolution(ts, q, v));
  PetscCall(MechSystemComputeEnergy(sys, t, q, v, &ke, &pe));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  E1 = ke + pe;
  if (p && p->printed && p->tty) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "tsmech: %s, %" PetscInt_FMT " steps (%" PetscInt_FMT " rejected) to t = %g, %" PetscInt_FMT " Newton / %" PetscInt_FMT " KSP iterations, %.2f s wall, energy %.6g -> %.6g (change relative to the larger %.3e), %s\n", type, steps, rejected, (double)t, its, kits, (double)(now - start), (double)E0, (double)E1, (double)((E1 - E0) / PetscMax(PetscMax(PetscAbsReal(E0), PetscAbsReal(E1)), PETSC_SMALL)), TSConvergedReasons[reason]));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm       comm;
  char           model[64] = "cloth", output[PETSC_MAX_PATH_LEN] = "";
  PetscInt       every = 10;
  PetscBool      quiet = PETSC_FALSE, hasoutput = PETSC_FALSE;
  MechSystem     sys;
  MechOutput     out = NULL;
  TS             ts;
  Vec            q, v;
  Progress       prog;
  PetscReal      ke, pe, E0;
  PetscLogDouble start;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCall(TSMechInitializePackage());
  PetscOptionsBegin(comm, NULL, "tsmech driver options", "tsmech");
  PetscCall(PetscOptionsString("-model", "Model to integrate", "MechCreateModel", model, model, sizeof(model), NULL));
  PetscCall(PetscOptionsString("-output", "HDF5 output file (with an .xmf beside it for grid models)", "MechOutputCreate", output, output, sizeof(output), &hasoutput));
  PetscCall(PetscOptionsInt("-output_every", "Write the fields every N steps (first and last always)", "MechOutputCreate", every, &every, NULL));
  PetscCall(PetscOptionsBool("-quiet", "No progress line", NULL, quiet, &quiet, NULL));
  PetscOptionsEnd();
  PetscCheck(every >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-output_every %" PetscInt_FMT " must be at least 1", every);
  PetscCheck(!hasoutput || output[0], comm, PETSC_ERR_ARG_WRONG, "-output needs a file name");

  PetscCall(MechCreateModel(comm, model, &sys));
  PetscCall(TSCreate(comm, &ts));
  PetscCall(TSSetType(ts, TSMIDPOINT2));
  PetscCall(TSMechSetSystem(ts, sys));
  PetscCall(TSSetTimeStep(ts, 1e-3));
  PetscCall(TSSetMaxTime(ts, 1.0));
  PetscCall(TSSetMaxSteps(ts, PETSC_MAX_INT));
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetFromOptions(ts));
  {
    PetscReal dt;
    PetscCall(TSGetTimeStep(ts, &dt));
    PetscCheck(dt > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ts_dt %g must be positive", (double)dt);
  }
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(TSMechSetSolution(ts, q, v));
  PetscCall(MechSystemComputeEnergy(sys, 0.0, q, v, &ke, &pe));
  E0 = ke + pe;

  PetscCall(PetscTime(&start));
  PetscCall(PetscMemzero(&prog, sizeof(prog)));
  if (!quiet) {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    prog.sys = sys;
    prog.tty = (rank == 0 && isatty(fileno(stdout))) ? PETSC_TRUE : PETSC_FALSE;
    PetscCallMPI(MPI_Bcast(&prog.tty, 1, MPIU_BOOL, 0, comm));
    prog.start = start;
    prog.last  = start;
    prog.E0    = E0;
    PetscCall(TSGetTime(ts, &prog.t0));
    PetscCall(TSGetMaxTime(ts, &prog.tmax));
    PetscCall(TSGetMaxSteps(ts, &prog.maxsteps));
    PetscCall(TSMonitorSet(ts, ProgressMonitor, &prog, NULL));
  }
  if (hasoutput) {
    PetscCall(MechOutputCreate(sys, ts, output, every, &out));
    PetscCall(TSMonitorSet(ts, TSMonitorMechOutput, out, NULL));
  }
  PetscCall(TSSolve(ts, NULL));
  if (out) PetscCall(MechOutputClose(out, ts));
  PetscCall(Summary(ts, sys, quiet ? NULL : &prog, E0, start));
  if (hasoutput) PetscCall(PetscPrintf(comm, "tsmech: results in %s\n", output));
  {
    TSConvergedReason reason;
    PetscCall(TSGetConvergedReason(ts, &reason));
    PetscCheck(reason >= 0, comm, PETSC_ERR_NOT_CONVERGED, "The time integration stopped: %s", TSConvergedReasons[reason]);
  }
  PetscCall(MechOutputDestroy(&out));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(TSDestroy(&ts));
  PetscCall(MechSystemDestroy(&sys));
  PetscCall(PetscFinalize());
  return 0;
}
