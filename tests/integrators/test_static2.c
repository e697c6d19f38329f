static const char help[] = "The quasi-static type static2, automatic incrementation and the line search on the incremental\n"
                           "potential (issue 38):\n"
                           "  free motions: MechSystemGetFreeMotions() names the rigid motions the constraints leave free\n"
                           "    (the solid beam: none clamped, all six unheld, a translation, a translation and a rotation\n"
                           "    about the axis through the held edge), the same on every rank count, and static2 refuses them;\n"
                           "  merit: the potentials of static2 and of the theta family (one-leg, endpoint; undamped and\n"
                           "    Rayleigh-damped) have the step's residual as gradient (central differences, 1e-6);\n"
                           "  equilibrium: static2 on the beam under a ramped load equals beuler2 damped to rest (1e-8),\n"
                           "    TSStatic2GetEquilibrium() equals MechSystemComputeEquilibrium(), the steps land on the\n"
                           "    ramp's end;\n"
                           "  retry: a dynamic step that fails at fixed steps is retried under -ts_adapt_type increment,\n"
                           "    and without a failure increment is bitwise fixed steps.\n";

#include "integ.h"
#include <petsc/private/tsimpl.h>

static PetscInt failures = 0;

/* the free motions of the solid beam with these options, checked against count and a phrase in their description */
static PetscErrorCode CheckFree(MPI_Comm comm, const char opts[], PetscInt expect, const char phrase[])
{
  MechSystem sys;
  Vec        q, v;
  PetscInt   n;
  char       desc[1024];

  PetscFunctionBegin;
  PetscCall(IntegCreateModel(comm, "solid", opts, &sys));
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(MechSystemApplyFixedAt(sys, 0, q, v));
  PetscCall(MechSystemGetFreeMotions(sys, 0, q, &n, desc, sizeof(desc)));
  PetscCall(PetscPrintf(comm, "  %-90s %" PetscInt_FMT " free: %s\n", opts, n, n ? desc : "(held)"));
  TestCount(failures, n == expect, "%s: %" PetscInt_FMT " free motions, expected %" PetscInt_FMT "\n", opts, n, expect);
  TestCount(failures, !phrase || strstr(desc, phrase), "%s: the description \"%s\" lacks \"%s\"\n", opts, desc, phrase ? phrase : "");
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/* static2 refuses the unheld beam at set-up with the free motions named */
static PetscErrorCode CheckRefused(MPI_Comm comm)
{
  MechSystem     sys;
  TS             ts;
  Vec            q, v;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(IntegCreateModel(comm, "solid", "-solid_beam_cells 4,1,1 -solid_fix none", &sys));
  PetscCall(TSCreate(comm, &ts));
  PetscCall(TSSetType(ts, TSSTATIC2));
  PetscCall(TSMechSetSystem(ts, sys));
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(TSMechSetSolution(ts, q, v));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = TSSetUp(ts);
  PetscCall(PetscPopErrorHandler());
  TestCount(failures, ierr == PETSC_ERR_ARG_WRONGSTATE, "static2 on an unheld body: set-up returned %d, expected a refusal\n", (int)ierr);
  PetscCall(PetscPrintf(comm, "  static2 refuses the unheld beam at set-up: %s\n", ierr == PETSC_ERR_ARG_WRONGSTATE ? "yes" : "NO"));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(TSDestroy(&ts));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/* In a step's pre-stage (its start state set): the type's merit against its residual along random directions */
typedef struct {
  PetscReal err;
  PetscBool has;
} MeritCheck;

static PetscErrorCode MeritPreStage(TS ts, PetscReal t)
{
  PetscErrorCode (*merit)(TS, Vec, PetscBool *, PetscReal *) = NULL;
  MeritCheck *mc;
  SNES        snes;
  Vec         x, d, R, y;
  PetscRandom rnd;
  PetscReal   h = 1e-5, pp, pm, slope, fd, scale;
  PetscScalar dot;

  PetscFunctionBegin;
  (void)t;
  PetscCall(TSGetApplicationContext(ts, &mc));
  PetscCall(PetscObjectQueryFunction((PetscObject)ts, "TSMechMerit_C", &merit));
  if (!merit || mc->err >= 0) PetscFunctionReturn(0);
  PetscCall(TSGetSNES(ts, &snes));
  PetscCall(VecDuplicate(ts->vec_sol, &x));
  PetscCall(VecDuplicate(ts->vec_sol, &d));
  PetscCall(VecDuplicate(ts->vec_sol, &R));
  PetscCall(VecDuplicate(ts->vec_sol, &y));
  PetscCall(PetscRandomCreate(PetscObjectComm((PetscObject)ts), &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1, 1));
  /* a candidate near the start (v, or 0 for static2) and a direction of the same size */
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecScale(x, 1e-3));
  PetscCall(VecAXPY(x, 1.0, ts->vec_dot));
  PetscCall(VecSetRandom(d, rnd));
  PetscCall(SNESComputeFunction(snes, x, R));
  PetscCall(VecDot(R, d, &dot));
  slope = PetscRealPart(dot);
  PetscCall(VecWAXPY(y, h, d, x));
  PetscCall((*merit)(ts, y, &mc->has, &pp));
  PetscCall(VecWAXPY(y, -h, d, x));
  PetscCall((*merit)(ts, y, &mc->has, &pm));
  fd = (pp - pm) / (2 * h);
  PetscCall(VecNorm(R, NORM_2, &scale));
  PetscCall(VecNorm(d, NORM_2, &pp));
  mc->err = PetscAbsReal(fd - slope) / (scale * pp);
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&R));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckMerit(MPI_Comm comm, const char model[], const char mopts[], const char type[], const char opts[], PetscReal dt)
{
  MechSystem sys;
  TS         ts;
  Vec        q, v;
  MeritCheck mc = {-1, PETSC_FALSE};

  PetscFunctionBegin;
  PetscCall(IntegCreateModel(comm, model, mopts, &sys));
  PetscCall(TestSetPrefixedOptions(comm, "merit_", opts));
  PetscCall(TSCreate(comm, &ts));
  PetscCall(TSSetOptionsPrefix(ts, "merit_"));
  PetscCall(TSSetType(ts, type));
  PetscCall(TSMechSetSystem(ts, sys));
  PetscCall(TSSetTimeStep(ts, dt));
  PetscCall(TSSetMaxSteps(ts, 2));
  PetscCall(TSSetApplicationContext(ts, &mc));
  PetscCall(TSSetPreStage(ts, MeritPreStage));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(TSMechSetSolution(ts, q, v));
  PetscCall(TSSolve(ts, NULL));
  PetscCall(PetscPrintf(comm, "  merit of %-9s %-22s on %-8s %s: gradient = residual to %.1e\n", type, opts, model, mc.has ? "has one" : "has none", (double)mc.err));
  TestCount(failures, mc.has && mc.err >= 0 && mc.err < 1e-6, "the merit of %s %s on %s is not the potential of its residual (%g)\n", type, opts, model, (double)mc.err);
  PetscCall(TestClearPrefixedOptions("merit_", opts));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(TSDestroy(&ts));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/* The times a run's steps end at */
typedef struct {
  PetscInt  n;
  PetscReal t[64];
} Times;

static PetscErrorCode RecordTimes(TS ts, PetscInt step, PetscReal t, Vec x, void *ctx)
{
  Times *tm = (Times *)ctx;

  PetscFunctionBegin;
  (void)ts;
  (void)step;
  (void)x;
  if (tm->n < 64) tm->t[tm->n++] = t;
  PetscFunctionReturn(0);
}

/* static2 on the beam under a ramped gravity against beuler2 damped to rest; its equilibrium; the steps land on the ramp's end */
static PetscErrorCode CheckEquilibrium(MPI_Comm comm)
{
  MechSystem sys;
  TS         ts;
  Vec        qs, vs, qd, vd;
  PetscReal  rel, res, load, eres, eload, teq;
  PetscBool  has, landed = PETSC_FALSE;
  Times      tm   = {0, {0}};
  const char lu[] = "-ksp_type preonly -pc_type lu -pc_factor_mat_solver_type mumps -snes_rtol 1e-12";
  char       opts[256];

  PetscFunctionBegin;
  PetscCall(IntegCreateModel(comm, "solid", "-solid_beam_cells 6,1,1 -solid_material svk -solid_g 0,0,-60 -solid_g_time ramp:0.3 -solid_rayleigh 40,0", &sys));
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -snes_linesearch_type basic", lu));
  PetscCall(TestSolve(sys, TSSTATIC2, "st_", opts, 0.25, 100, 1.0, TS_EXACTFINALTIME_MATCHSTEP, RecordTimes, &tm, &qs, &vs, &ts));
  for (PetscInt i = 0; i < tm.n; i++) landed = landed || tm.t[i] == 0.3;
  PetscCall(TSStatic2GetEquilibrium(ts, &has, &teq, &res, &load));
  PetscCall(MechSystemComputeEquilibrium(sys, teq, qs, &eres, &eload));
  PetscCall(TSDestroy(&ts));
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -ts_adapt_type none", lu));
  PetscCall(TestSolve(sys, TSBEULER2, "dyn_", opts, 0.05, 2000, 30.0, TS_EXACTFINALTIME_MATCHSTEP, NULL, NULL, &qd, &vd, &ts));
  PetscCall(TSDestroy(&ts));
  PetscCall(VecAXPY(qd, -1.0, qs));
  PetscCall(VecNorm(qd, NORM_INFINITY, &rel));
  PetscCall(PetscPrintf(comm, "  static2 against beuler2 damped to rest: %.1e; equilibrium %.1e of the load (MechSystemComputeEquilibrium: %.1e of %.4g); steps land on t = 0.3: %s\n", (double)rel, (double)(res / load), (double)(eres / eload), (double)eload, landed ? "yes" : "NO"));
  TestCount(failures, rel < 1e-8, "static2 differs from the damped dynamic rest state by %g\n", (double)rel);
  TestCount(failures, has && PetscAbsReal(load - eload) <= 1e-12 * eload && eres <= 1e-9 * eload && res <= 1e-9 * load, "the equilibrium of static2 (%g of %g) is not that of MechSystemComputeEquilibrium() (%g of %g)\n", (double)res, (double)load, (double)eres, (double)eload);
  TestCount(failures, landed, "no step of static2 ended at the ramp's end t = 0.3\n");
  PetscCall(VecDestroy(&qs));
  PetscCall(VecDestroy(&vs));
  PetscCall(VecDestroy(&qd));
  PetscCall(VecDestroy(&vd));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/* A dynamic step that fails at fixed steps is retried under increment; without a failure increment is bitwise fixed steps */
static PetscErrorCode CheckRetry(MPI_Comm comm)
{
  MechSystem        sys;
  TS                ts;
  Vec               qa, va, qb, vb;
  PetscInt          rejected;
  PetscReal         diff;
  PetscErrorCode    ierr;
  TSConvergedReason reason = TS_CONVERGED_ITERATING;

  PetscFunctionBegin;
  PetscCall(IntegCreateModel(comm, "chain", "-chain_n 20", &sys));
  PetscCall(TestSolve(sys, TSMIDPOINT2, "fix_", "-ts_adapt_type none", 1e-3, 30, 1.0, TS_EXACTFINALTIME_MATCHSTEP, NULL, NULL, &qa, &va, &ts));
  PetscCall(TSDestroy(&ts));
  PetscCall(TestSolve(sys, TSMIDPOINT2, "inc_", "", 1e-3, 30, 1.0, TS_EXACTFINALTIME_MATCHSTEP, NULL, NULL, &qb, &vb, &ts));
  PetscCall(TSDestroy(&ts));
  PetscCall(VecAXPY(qb, -1.0, qa));
  PetscCall(VecNorm(qb, NORM_INFINITY, &diff));
  PetscCall(PetscPrintf(comm, "  midpoint2 on the chain, increment (the default) against fixed steps: %g\n", (double)diff));
  TestCount(failures, diff == 0, "without a failed step increment differs from fixed steps by %g\n", (double)diff);
  PetscCall(VecDestroy(&qa));
  PetscCall(VecDestroy(&va));
  PetscCall(VecDestroy(&qb));
  PetscCall(VecDestroy(&vb));
  /* two Newton iterations at most: the long steps fail; fixed steps end the run */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = TestSolve(sys, TSBEULER2, "fail_", "-ts_adapt_type none -snes_max_it 2", 0.05, 10, 1.0, TS_EXACTFINALTIME_MATCHSTEP, NULL, NULL, &qa, &va, &ts);
  PetscCall(PetscPopErrorHandler());
  if (!ierr) {
    PetscCall(TSGetConvergedReason(ts, &reason));
    PetscCall(VecDestroy(&qa));
    PetscCall(VecDestroy(&va));
  }
  PetscCall(TSDestroy(&ts));
  PetscCall(TestClearPrefixedOptions("fail_", "-ts_adapt_type none -snes_max_it 2"));
  TestCount(failures, ierr != 0 || reason < 0, "beuler2 with fixed steps and two Newton iterations did not fail\n");
  PetscCall(TestSolve(sys, TSBEULER2, "retry_", "-snes_max_it 2", 0.05, 10, 1.0, TS_EXACTFINALTIME_MATCHSTEP, NULL, NULL, &qa, &va, &ts));
  PetscCall(TSGetStepRejections(ts, &rejected));
  PetscCall(PetscPrintf(comm, "  beuler2 with two Newton iterations at most: fixed steps fail, increment completes with %" PetscInt_FMT " retries\n", rejected));
  TestCount(failures, rejected > 0, "increment retried no step\n");
  PetscCall(TSDestroy(&ts));
  PetscCall(VecDestroy(&qa));
  PetscCall(VecDestroy(&va));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  const char *beam = "-solid_beam_cells 4,1,1";
  char        opts[512];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscPrintf(comm, "free motions:\n"));
  PetscCall(CheckFree(comm, beam, 0, NULL));
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_fix none", beam));
  PetscCall(CheckFree(comm, opts, 6, "translation along (1, 0, 0); translation along (0, 1, 0); translation along (0, 0, 1); rotation about the axis along (1, 0, 0)"));
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_bc pin,plane -solid_bc_pin_where x=0 -solid_bc_pin_components x -solid_bc_plane_where all -solid_bc_plane_components z", beam));
  PetscCall(CheckFree(comm, opts, 1, "translation along (0, 1, 0)"));
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_bc a,b -solid_bc_a_where x=0 -solid_bc_a_components yz -solid_bc_b_where x=1 -solid_bc_b_components z", beam));
  PetscCall(CheckFree(comm, opts, 2, "translation along (1, 0, 0); rotation about the axis along (0, 0, 1) through (0, 0.05, 0.05)"));
  PetscCall(CheckRefused(comm));
  PetscCall(PetscPrintf(comm, "merits:\n"));
  PetscCall(CheckMerit(comm, "solid", "-solid_beam_cells 4,1,1 -solid_g 0,0,-50", TSSTATIC2, "", 0.5));
  PetscCall(CheckMerit(comm, "solid", "-solid_beam_cells 4,1,1 -solid_g 0,0,-50", TSMIDPOINT2, "", 2e-3));
  PetscCall(CheckMerit(comm, "solid", "-solid_beam_cells 4,1,1 -solid_g 0,0,-50", TSTHETA2, "-ts_theta_theta 0.7 -ts_theta_endpoint", 2e-3));
  PetscCall(CheckMerit(comm, "solid", "-solid_beam_cells 4,1,1 -solid_g 0,0,-50 -solid_rayleigh 3,1e-3", TSMIDPOINT2, "", 2e-3));
  PetscCall(CheckMerit(comm, "solid", "-solid_beam_cells 4,1,1 -solid_g 0,0,-50 -solid_rayleigh 3,1e-3", TSCN2, "", 2e-3));
  PetscCall(CheckMerit(comm, "lattice", "-lattice_n 4 -lattice_c 0 -lattice_drag 0", TSBEULER2, "", 1e-2));
  PetscCall(PetscPrintf(comm, "equilibrium:\n"));
  PetscCall(CheckEquilibrium(comm));
  PetscCall(PetscPrintf(comm, "retry:\n"));
  PetscCall(CheckRetry(comm));
  TestCheck(comm, failures == 0, "%" PetscInt_FMT " checks failed", failures);
  PetscCall(PetscPrintf(comm, "static2: OK\n"));
  PetscCall(PetscFinalize());
  return 0;
}
