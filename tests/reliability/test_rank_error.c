/*
  A library program whose model fails on one rank only: independent oscillators (M = I, f = k q)
  whose force raises an error on rank `-fail_rank` from time 0.0045 on. Every rank must leave
  TSSolve() with an error (not wait in the integrator's next collective operation), with the failing
  rank's message, under a tsmech type (midpoint2: its force and its tangent), an explicit one
  (euler2), PETSc's TSALPHA2 and a first-order PETSc type (beuler); the failing rank's tangent and
  potential likewise. After each failure every rank meets in a barrier and goes on with the next
  case: the proof that no rank was left behind. Run under a time limit (meson's), on 2 and 3 ranks.
*/
#include <tsmech.h>
#include <string.h>

static const char help[] = "A model error on one rank ends TSSolve() on every rank.\n";

typedef struct {
  PetscMPIInt fail_rank;
  PetscBool   early; /* the tangent fails before its assembly, a collective operation */
  const char *where; /* "force", "tangent" or "potential" */
} Ctx;

static PetscErrorCode Fail(MechSystem sys, const Ctx *c, const char what[], PetscReal t)
{
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)sys), &rank));
  PetscCheck(!(rank == c->fail_rank && t >= 0.0045 && !strcmp(c->where, what)), PETSC_COMM_SELF, PETSC_ERR_USER, "oscillator %s: no value on this rank at t = %g", what, (double)t);
  PetscFunctionReturn(0);
}

static PetscErrorCode Force(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
{
  PetscFunctionBegin;
  (void)v;
  PetscCall(Fail(sys, (Ctx *)ctx, "force", t));
  PetscCall(VecAXPBY(f, 4.0, 0.0, q));
  PetscFunctionReturn(0);
}

static PetscErrorCode Tangent(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  (void)q;
  (void)v;
  (void)cD;
  if (((Ctx *)ctx)->early) PetscCall(Fail(sys, (Ctx *)ctx, "tangent", t));
  PetscCall(MatGetOwnershipRange(J, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) PetscCall(MatSetValue(J, i, i, 4.0 * cK, ADD_VALUES));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscCall(Fail(sys, (Ctx *)ctx, "tangent", t));
  PetscFunctionReturn(0);
}

static PetscErrorCode Potential(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *V, void *ctx)
{
  PetscReal n;

  PetscFunctionBegin;
  (void)v;
  PetscCall(VecNorm(q, NORM_2, &n));
  PetscCall(Fail(sys, (Ctx *)ctx, "potential", t));
  *V = 2.0 * n * n;
  PetscFunctionReturn(0);
}

/* Energy monitor: the potential is evaluated at every step */
static PetscErrorCode Monitor(TS ts, PetscInt step, PetscReal t, Vec x, void *ctx)
{
  MechSystem sys = (MechSystem)ctx;
  Vec        q, v;
  PetscReal  K, V;

  PetscFunctionBegin;
  (void)step;
  (void)t;
  (void)x;
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(TSMechGetSolution(ts, q, v));
  PetscCall(MechSystemComputeEnergy(sys, t, q, v, &K, &V));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}

/* One run that must fail on every rank with the failing rank's message */
static PetscErrorCode RunCase(Ctx *ctx, const char type[], const char where[], const char opts[])
{
  MPI_Comm       comm = PETSC_COMM_WORLD;
  MechSystem     sys;
  TS             ts;
  Mat            M, J;
  Vec            q, v;
  PetscErrorCode ierr;
  PetscMPIInt    rank;
  double         t0        = MPI_Wtime(), elapsed;
  char           msg[1024] = "";

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  ctx->where = where;
  PetscCall(MechSystemCreate(comm, &sys));
  PetscCall(MatCreateAIJ(comm, 4, 4, PETSC_DETERMINE, PETSC_DETERMINE, 1, NULL, 0, NULL, &M));
  {
    PetscInt rstart, rend;

    PetscCall(MatGetOwnershipRange(M, &rstart, &rend));
    for (PetscInt i = rstart; i < rend; i++) PetscCall(MatSetValue(M, i, i, 1.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(MechSystemSetMass(sys, M));
  PetscCall(MatDuplicate(M, MAT_DO_NOT_COPY_VALUES, &J));
  PetscCall(MechSystemSetForce(sys, Force, ctx));
  PetscCall(MechSystemSetTangent(sys, J, PETSC_FALSE, Tangent, ctx));
  PetscCall(MechSystemSetPotential(sys, Potential, ctx));
  PetscCall(MatCreateVecs(M, &q, &v));
  PetscCall(VecSet(q, 1.0));
  PetscCall(VecSet(v, 0.0));
  PetscCall(MechSystemSetInitialState(sys, q, v));
  PetscCall(TSCreate(comm, &ts));
  PetscCall(TSSetType(ts, type));
  PetscCall(TSMechSetSystem(ts, sys));
  PetscCall(TSSetTimeStep(ts, 1e-3));
  PetscCall(TSSetMaxSteps(ts, 20));
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(TSMonitorSet(ts, Monitor, sys, NULL));
  PetscCall(TSMechSetSolution(ts, q, v));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = TSSolve(ts, NULL);
  PetscCall(PetscPopErrorHandler());
  elapsed = MPI_Wtime() - t0;
  if (ierr) {
    const char *text     = NULL;
    char       *specific = NULL;

    PetscCall(PetscErrorMessage(ierr, &text, &specific));
    PetscCall(PetscStrncpy(msg, specific ? specific : "", sizeof(msg)));
  }
  PetscCall(PetscSynchronizedPrintf(comm, "  rank %d: %-9s %-9s %s: error %d after %.2f s: %s\n", (int)rank, type, where, opts, (int)ierr, elapsed, msg));
  PetscCall(PetscSynchronizedFlush(comm, PETSC_STDOUT));
  PetscCheck(ierr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s (%s failing on rank %d): TSSolve() succeeded on rank %d", type, where, (int)ctx->fail_rank, (int)rank);
  PetscCheck(strstr(msg, "no value on this rank") && strstr(msg, where), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: rank %d has not the failing rank's message: %s", type, (int)rank, msg);
  {
    char who[64];

    PetscCall(PetscSNPrintf(who, sizeof(who), "failed on rank %d", (int)ctx->fail_rank));
    PetscCheck(strstr(msg, who), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: rank %d's message does not name the failing rank %d: %s", type, (int)rank, (int)ctx->fail_rank, msg);
  }
  /* every rank is here: none waits in the integrator */
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(TSDestroy(&ts));
  PetscCall(MechSystemDestroy(&sys));
  PetscCall(MatDestroy(&M));
  PetscCall(MatDestroy(&J));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Ctx         ctx;
  PetscMPIInt size;
  PetscInt    fr = 1;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-fail_rank", &fr, NULL));
  ctx.early = PETSC_FALSE;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-early", &ctx.early, NULL));
  PetscCheck(size > 1 && fr < size, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Run on at least 2 ranks, -fail_rank below the number of ranks");
  ctx.fail_rank = (PetscMPIInt)fr;
  if (ctx.early) {
    /* the failing rank leaves the tangent before the assembly the others wait in: it must end
       the job (tests/reliability/rank_error_early.sh checks the status, the time, the message) */
    PetscCall(RunCase(&ctx, "midpoint2", "tangent", ""));
    SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the run with a tangent failing before its assembly returned");
  }
  PetscCall(RunCase(&ctx, "midpoint2", "force", ""));
  PetscCall(RunCase(&ctx, "midpoint2", "tangent", ""));
  PetscCall(RunCase(&ctx, "euler2", "force", ""));
  PetscCall(RunCase(&ctx, "alpha2", "force", ""));
  PetscCall(RunCase(&ctx, "beuler", "force", ""));
  PetscCall(RunCase(&ctx, "cn2", "potential", ""));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "rank error: every rank left TSSolve() with the failing rank's message\n"));
  PetscCall(PetscFinalize());
  return 0;
}
