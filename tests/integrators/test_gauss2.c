static const char help[] = "gauss2 (Gauss-Legendre collocation in velocity form, docs/schemes.md §10):\n"
                           "  1. s = 1 equals midpoint2 to round-off on a nonlinear damped 3-D chain;\n"
                           "  2. s = 1, 2, 3 equal PETSc's TSIRK (-ts_irk_type gauss -ts_irk_nstages s) on the first-order\n"
                           "     form of the same chain, to solver tolerance;\n"
                           "  3. observed orders 2, 4, 6 on the undamped and damped oscillator and on Kepler (e = 0.6);\n"
                           "  4. Kepler over -long_steps steps: angular momentum to 1e-13, energy bounded without drift;\n"
                           "  5. the blocks from the shared Newton object on the cloth: the reduced pattern and, with the\n"
                           "     matrix-free stage Jacobian, blocks lagged across steps, both to solver tolerance.\n"
                           "  6. the direct mode (-ts_gauss2_direct_max: Newton with the assembled s N Jacobian and LU) gives\n"
                           "     the block preconditioner's result to solver tolerance, s = 1, 2, 3; Kepler (s N = 6) takes it\n"
                           "     by default.\n"
                           "  7. the Newton settings every implicit type shares (TSMechSetPCDefinite(), ...) reach the\n"
                           "     Newton objects of gauss2, discgrad2 and midpoint2; an explicit type has none.\n"
                           "  -part <0>        run only part 1, 2, ..., 7 (0: all)\n"
                           "  -long_steps <100000>\n";

#include "integ.h"
#include <stdio.h>
#include <string.h>

/* Newton to round-off; the blocks and the stage system solved exactly */
static const char *const Tight = "-snes_rtol 1e-14 -snes_atol 1e-15 -ksp_type preonly -pc_type lu -gauss2_ksp_rtol 1e-14 -gauss2_ksp_atol 1e-16";

/* max |a - b| / max |b| over (q, v) */
static PetscErrorCode RelDiff(Vec qa, Vec va, Vec qb, Vec vb, PetscReal *rel)
{
  PetscFunctionBegin;
  PetscCall(TestRelDiff(qa, va, qb, vb, rel));
  PetscFunctionReturn(0);
}

/* Parts 1 and 2: the same chain under gauss2 and under midpoint2 / TSIRK */
static PetscErrorCode CheckEquivalence(MPI_Comm comm, PetscBool one, PetscBool two, PetscInt *failures)
{
  MechSystem      sys;
  const PetscInt  n = 8, steps = 20;
  const PetscReal dt = 2e-3;

  PetscFunctionBegin;
  /* the lumped mass 1 per particle (-chain_mass n): TSIRK's Jacobian in PETSc 3.18 takes dF/dUdot = I
     (irk.c: "Support explicit formulas only"), which the first-order form [q' - v; M v' + f] has only for M = I */
  PetscCall(IntegCreateModel(comm, "chain", "-chain_n 8 -chain_mass 8 -chain_stretch 1.1 -chain_c 0.5 -chain_drag 0.2 -chain_g 9.81", &sys));
  PetscCall(IntegKickChain(sys, n, 3));
  if (one) {
    Vec       qa, va, qb, vb;
    PetscReal rel;
    char      opts[512];

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-ts_gauss2_stages 1 %s", Tight));
    PetscCall(IntegRun(sys, "gauss2", opts, dt, steps, NULL, NULL, &qa, &va, NULL));
    PetscCall(IntegRun(sys, "midpoint2", Tight, dt, steps, NULL, NULL, &qb, &vb, NULL));
    PetscCall(RelDiff(qa, va, qb, vb, &rel));
    PetscCall(PetscPrintf(comm, "gauss2 s = 1 against midpoint2 (chain): relative difference %.3e (tolerance 1e-12)\n", (double)rel));
    if (!(rel <= 1e-12)) {
      (*failures)++;
      PetscCall(PetscPrintf(comm, "FAILED: gauss2 s = 1 is not midpoint2\n"));
    }
    PetscCall(VecDestroy(&qa));
    PetscCall(VecDestroy(&va));
    PetscCall(VecDestroy(&qb));
    PetscCall(VecDestroy(&vb));
  }
  if (two) {
    for (PetscInt s = 1; s <= 3; s++) {
      Vec       qa, va, qb, vb;
      PetscReal rel, diff;
      char      opts[512];

      PetscCall(PetscSNPrintf(opts, sizeof(opts), "-ts_gauss2_stages %" PetscInt_FMT " %s", s, Tight));
      PetscCall(IntegRun(sys, "gauss2", opts, dt, steps, NULL, NULL, &qa, &va, NULL));
      /* TSIRK's operator is a KAIJ matrix: no LU in 3.18, GMRES without preconditioner to round-off */
      PetscCall(PetscSNPrintf(opts, sizeof(opts), "-ts_irk_type gauss -ts_irk_nstages %" PetscInt_FMT " -snes_rtol 1e-14 -snes_atol 1e-15 -ksp_type gmres -pc_type none -ksp_rtol 1e-15 -ksp_atol 1e-18 -ksp_max_it 2000 -ksp_gmres_restart 200", s));
      PetscCall(IntegRun(sys, "irk", opts, dt, steps, NULL, NULL, &qb, &vb, NULL));
      PetscCall(RelDiff(qa, va, qb, vb, &rel));
      /* and the comparison can tell: the distance to midpoint2's (a scheme of another order) is far larger */
      PetscCall(VecDestroy(&qb));
      PetscCall(VecDestroy(&vb));
      PetscCall(IntegRun(sys, "midpoint2", Tight, dt, steps, NULL, NULL, &qb, &vb, NULL));
      PetscCall(RelDiff(qa, va, qb, vb, &diff));
      PetscCall(PetscPrintf(comm, "gauss2 s = %" PetscInt_FMT " against TSIRK gauss (first-order form, chain): relative difference %.3e (tolerance 1e-10); against midpoint2 %.3e\n", s, (double)rel, (double)diff));
      if (!(rel <= 1e-10)) {
        (*failures)++;
        PetscCall(PetscPrintf(comm, "FAILED: gauss2 differs from TSIRK\n"));
      }
      if (s > 1 && !(diff > 1e3 * rel)) {
        (*failures)++;
        PetscCall(PetscPrintf(comm, "FAILED: gauss2 s = %" PetscInt_FMT " is as close to midpoint2 as to TSIRK\n", s));
      }
      PetscCall(VecDestroy(&qa));
      PetscCall(VecDestroy(&va));
      PetscCall(VecDestroy(&qb));
      PetscCall(VecDestroy(&vb));
    }
  }
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/* Part 3: errors against the exact solution at T for dt, dt/2, dt/4; the last ratio's order within 0.2 of 2s */
static PetscErrorCode CheckOrder(MPI_Comm comm, const char model[], const char opts[], PetscReal T, const PetscReal dt0[3], PetscInt *failures)
{
  MechSystem sys;
  Vec        qe, ve;

  PetscFunctionBegin;
  PetscCall(IntegCreateModel(comm, model, opts, &sys));
  PetscCall(MechSystemCreateState(sys, &qe, &ve));
  PetscCall(MechSystemComputeExactSolution(sys, T, qe, ve, NULL));
  for (PetscInt s = 1; s <= 3; s++) {
    PetscReal err[3], p1, p2;
    char      o[512];

    PetscCall(PetscSNPrintf(o, sizeof(o), "-ts_gauss2_stages %" PetscInt_FMT " %s", s, Tight));
    for (PetscInt k = 0; k < 3; k++) {
      Vec q, v;

      PetscCall(TestIntegrate(sys, "gauss2", o, dt0[s - 1] / (1 << k), T, &q, &v, NULL, NULL));
      PetscCall(TestRelDiff(q, v, qe, ve, &err[k]));
      PetscCall(VecDestroy(&q));
      PetscCall(VecDestroy(&v));
    }
    p1 = PetscLog2Real(err[0] / err[1]);
    p2 = PetscLog2Real(err[1] / err[2]);
    PetscCall(PetscPrintf(comm, "%-10s %-18s s = %" PetscInt_FMT " errors %.3e %.3e %.3e  orders %.3f %.3f (theory %d)\n", model, opts, s, (double)err[0], (double)err[1], (double)err[2], (double)p1, (double)p2, (int)(2 * s)));
    if (!(PetscAbsReal(p2 - 2 * s) <= 0.2)) {
      (*failures)++;
      PetscCall(PetscPrintf(comm, "FAILED: observed order %.3f is not %d\n", (double)p2, (int)(2 * s)));
    }
  }
  PetscCall(VecDestroy(&qe));
  PetscCall(VecDestroy(&ve));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

typedef struct {
  MechSystem sys;
  PetscReal  E0, L0, dLmax, dE[2]; /* largest energy errors in the first and the second half */
  PetscInt   half;
} LongCtx;

static PetscErrorCode LongMonitor(TS ts, PetscInt step, PetscReal t, Vec X, void *ctx)
{
  LongCtx    *lc = (LongCtx *)ctx;
  Vec         q, v;
  PetscReal   K, V, L;
  const char *name;

  PetscFunctionBegin;
  (void)X;
  PetscCall(TS2GetSolution(ts, &q, &v));
  PetscCall(MechSystemComputeEnergy(lc->sys, t, q, v, &K, &V));
  PetscCall(MechSystemComputeInvariant(lc->sys, 0, t, q, v, &name, &L));
  if (step == 0) {
    lc->E0 = K + V;
    lc->L0 = L;
  }
  lc->dLmax                       = PetscMax(lc->dLmax, PetscAbsReal(L - lc->L0) / PetscAbsReal(lc->L0));
  lc->dE[step > lc->half ? 1 : 0] = PetscMax(lc->dE[step > lc->half ? 1 : 0], PetscAbsReal(K + V - lc->E0) / PetscAbsReal(lc->E0));
  PetscFunctionReturn(0);
}

/* Part 4: s = 2 on Kepler (e = 0.6) for nsteps steps of 1/16 (a binary fraction: the times add up exactly) */
static PetscErrorCode CheckLong(MPI_Comm comm, PetscInt nsteps, PetscInt *failures)
{
  LongCtx lc = {0};
  Vec     q, v;

  PetscFunctionBegin;
  PetscCall(IntegCreateModel(comm, "kepler", "", &lc.sys));
  lc.half = nsteps / 2;
  PetscCall(IntegRun(lc.sys, "gauss2", "-ts_gauss2_stages 2 -snes_rtol 1e-20 -snes_atol 1e-20 -ksp_type preonly -pc_type lu -gauss2_ksp_rtol 1e-14 -gauss2_ksp_atol 1e-16", 0.0625, nsteps, LongMonitor, &lc, &q, &v, NULL));
  PetscCall(PetscPrintf(comm, "kepler e = 0.6, %" PetscInt_FMT " steps of 1/16 (%.0f orbits), s = 2: angular momentum relative error at most %.3e (tolerance 1e-13); energy relative error at most %.3e in the first half, %.3e in the second\n", nsteps, (double)(nsteps * 0.0625 / (2 * PETSC_PI)), (double)lc.dLmax, (double)lc.dE[0], (double)lc.dE[1]));
  if (!(lc.dLmax <= 1e-13)) {
    (*failures)++;
    PetscCall(PetscPrintf(comm, "FAILED: the angular momentum is not kept to 1e-13\n"));
  }
  /* bounded without drift: the second half's largest error no larger than 1.5 times the first's */
  if (!(lc.dE[1] <= 1.5 * lc.dE[0] && lc.dE[0] < 1e-4)) {
    (*failures)++;
    PetscCall(PetscPrintf(comm, "FAILED: the energy error drifts or is not small\n"));
  }
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MechSystemDestroy(&lc.sys));
  PetscFunctionReturn(0);
}

/* The TS's -ts_view at step nsteps, written to the file name */
typedef struct {
  PetscInt    nsteps;
  const char *name;
} ViewCtx;

static PetscErrorCode ViewMonitor(TS ts, PetscInt step, PetscReal t, Vec X, void *ctx)
{
  ViewCtx    *vc = (ViewCtx *)ctx;
  PetscViewer viewer;

  PetscFunctionBegin;
  (void)t;
  (void)X;
  if (step != vc->nsteps) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIOpen(PetscObjectComm((PetscObject)ts), vc->name, &viewer));
  PetscCall(TSView(ts, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  PetscFunctionReturn(0);
}

/*
  Part 5: gauss2's blocks from the shared Newton object (newton2.c, docs/solvers.md §7) on the cloth,
  s = 2: -ts_gauss2_pc_reduced (blocks of the reduced pattern) and -ts_gauss2_matrix_free (blocks
  lagged across steps until the linear iterations grow) give the default run's result to solver
  tolerance, the lagged blocks assembled at fewer steps than there are
*/
static PetscErrorCode CheckNewtonObject(MPI_Comm comm, PetscInt *failures)
{
  MechSystem      sys;
  const PetscInt  steps = 20;
  const PetscReal dt    = 1e-2;
  const char     *base  = "-ts_gauss2_stages 2 -snes_rtol 1e-12 -snes_atol 1e-13 -snes_stol 0 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-12 -gauss2_ksp_rtol 1e-12";
  Vec             qa, va, qb, vb;
  PetscReal       rel;
  PetscInt        blocks, reduced;
  ViewCtx         vc = {steps, "test_gauss2_view.txt"};
  char            opts[512];

  PetscFunctionBegin;
  PetscCall(IntegCreateModel(comm, "cloth", "-cloth_n 8", &sys));
  PetscCall(IntegRun(sys, "gauss2", base, dt, steps, NULL, NULL, &qa, &va, NULL));
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -ts_gauss2_pc_reduced", base));
  PetscCall(IntegRun(sys, "gauss2", opts, dt, steps, ViewMonitor, &vc, &qb, &vb, NULL));
  PetscCall(IntegNumberAfter(comm, vc.name, "Blocks of the model's reduced pattern", &reduced));
  PetscCall(RelDiff(qb, vb, qa, va, &rel));
  PetscCall(PetscPrintf(comm, "gauss2 s = 2 on the cloth, -ts_gauss2_pc_reduced: relative difference %.3e to the full blocks (tolerance 1e-8); %s\n", (double)rel, reduced < 0 ? "the view does not name the reduced blocks" : "the view names the reduced blocks"));
  if (reduced < 0) {
    (*failures)++;
    PetscCall(PetscPrintf(comm, "FAILED: -ts_gauss2_pc_reduced did not reach the Newton object\n"));
  }
  PetscCall(VecDestroy(&qb));
  PetscCall(VecDestroy(&vb));
  if (!(rel <= 1e-8)) {
    (*failures)++;
    PetscCall(PetscPrintf(comm, "FAILED: the reduced blocks change the result\n"));
  }
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -ts_gauss2_matrix_free", base));
  PetscCall(IntegRun(sys, "gauss2", opts, dt, steps, ViewMonitor, &vc, &qb, &vb, NULL));
  PetscCall(IntegNumberAfter(comm, vc.name, "Preconditioner's blocks assembled at ", &blocks));
  PetscCall(RelDiff(qb, vb, qa, va, &rel));
  PetscCall(PetscPrintf(comm, "gauss2 s = 2 on the cloth, -ts_gauss2_matrix_free: blocks assembled at %" PetscInt_FMT " of %" PetscInt_FMT " steps, relative difference %.3e (tolerance 1e-8)\n", blocks, steps, (double)rel));
  if (!(blocks >= 1 && blocks < steps)) {
    (*failures)++;
    PetscCall(PetscPrintf(comm, "FAILED: the matrix-free stage Jacobian's blocks are not lagged by the Newton object\n"));
  }
  if (!(rel <= 1e-8)) {
    (*failures)++;
    PetscCall(PetscPrintf(comm, "FAILED: the lagged blocks change the result\n"));
  }
  PetscCall(VecDestroy(&qa));
  PetscCall(VecDestroy(&va));
  PetscCall(VecDestroy(&qb));
  PetscCall(VecDestroy(&vb));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/*
  Part 6: the direct mode for small systems (-ts_gauss2_direct_max, docs/schemes.md §10) on the
  damped nonlinear chain, s = 1, 2, 3: the assembled s N Jacobian with LU against the block
  preconditioner (-ts_gauss2_direct_max 0), the same result to solver tolerance, and the view names
  the mode. Kepler (s N = 6) takes the direct mode by default, its Newton converging as exact Newton.
*/
static PetscErrorCode CheckDirect(MPI_Comm comm, PetscInt *failures)
{
  MechSystem      sys, kep;
  const PetscInt  steps = 20;
  const PetscReal dt    = 2e-3;
  ViewCtx         vc    = {steps, "test_gauss2_direct.txt"};

  PetscFunctionBegin;
  PetscCall(IntegCreateModel(comm, "chain", "-chain_n 8 -chain_mass 8 -chain_stretch 1.1 -chain_c 0.5 -chain_drag 0.2 -chain_g 9.81", &sys));
  PetscCall(IntegKickChain(sys, 8, 3));
  for (PetscInt s = 1; s <= 3; s++) {
    Vec       qa, va, qb, vb;
    PetscReal rel;
    PetscInt  direct, blocks;
    char      opts[512];

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-ts_gauss2_stages %" PetscInt_FMT " -ts_gauss2_direct_max 0 %s", s, Tight));
    PetscCall(IntegRun(sys, "gauss2", opts, dt, steps, ViewMonitor, &vc, &qa, &va, NULL));
    PetscCall(IntegNumberAfter(comm, vc.name, "Stage system solved directly", &blocks));
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-ts_gauss2_stages %" PetscInt_FMT " -ts_gauss2_direct_max 1000 %s", s, Tight));
    PetscCall(IntegRun(sys, "gauss2", opts, dt, steps, ViewMonitor, &vc, &qb, &vb, NULL));
    PetscCall(IntegNumberAfter(comm, vc.name, "Stage system solved directly", &direct));
    PetscCall(RelDiff(qb, vb, qa, va, &rel));
    PetscCall(PetscPrintf(comm, "gauss2 s = %" PetscInt_FMT " on the chain, direct mode against the blocks: relative difference %.3e (tolerance 1e-10); the view %s the direct mode (and %s it with -ts_gauss2_direct_max 0)\n", s, (double)rel, direct >= 0 ? "names" : "does not name", blocks >= 0 ? "names" : "does not name"));
    if (!(rel <= 1e-10)) {
      (*failures)++;
      PetscCall(PetscPrintf(comm, "FAILED: the direct mode changes the result\n"));
    }
    if (direct < 0 || blocks >= 0) {
      (*failures)++;
      PetscCall(PetscPrintf(comm, "FAILED: -ts_gauss2_direct_max does not choose the mode\n"));
    }
    PetscCall(VecDestroy(&qa));
    PetscCall(VecDestroy(&va));
    PetscCall(VecDestroy(&qb));
    PetscCall(VecDestroy(&vb));
  }
  PetscCall(MechSystemDestroy(&sys));
  /* Kepler by default: the direct mode, Newton to 1e-12 in at most 3 iterations a step */
  PetscCall(IntegCreateModel(comm, "kepler", "-kepler_e 0.6", &kep));
  {
    Vec      q, v;
    PetscInt direct, nits;

    PetscCall(IntegRun(kep, "gauss2", "-ts_gauss2_stages 3 -snes_rtol 1e-12 -snes_atol 1e-14", 0.05, steps, ViewMonitor, &vc, &q, &v, &nits));
    PetscCall(IntegNumberAfter(comm, vc.name, "Stage system solved directly", &direct));
    PetscCall(PetscPrintf(comm, "gauss2 s = 3 on Kepler by default: %s, %" PetscInt_FMT " Newton iterations in %" PetscInt_FMT " steps\n", direct >= 0 ? "the direct mode" : "not the direct mode", nits, steps));
    if (direct < 0 || nits > 3 * steps) {
      (*failures)++;
      PetscCall(PetscPrintf(comm, "FAILED: Kepler does not take the direct mode by default, or its Newton does not converge as exact Newton\n"));
    }
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
  }
  PetscCall(MechSystemDestroy(&kep));
  PetscFunctionReturn(0);
}

/*
  Part 7: the Newton settings every implicit type shares (src/ts/newtonapi.c): set on gauss2,
  discgrad2, midpoint2 and static2 they are read back from each type's Newton object; an explicit type has
  none, so its setters do nothing and its getters fail. (When they were the theta2 family's, the
  getters failed on gauss2 and discgrad2 and the setters did nothing there.)
*/
static PetscErrorCode CheckNewtonSettings(MPI_Comm comm, PetscInt *failures)
{
  const char *const types[] = {TSGAUSS2, TSDISCGRAD2, TSMIDPOINT2, TSSTATIC2};
  TS                ts;
  PetscBool         definite, lag;
  PetscReal         guard;
  PetscErrorCode    ierr;

  PetscFunctionBegin;
  for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
    PetscCall(TSCreate(comm, &ts));
    PetscCall(TSSetType(ts, types[i]));
    PetscCall(TSMechSetPCDefinite(ts, PETSC_TRUE));
    PetscCall(TSMechSetEWSafeguard(ts, 0.25));
    PetscCall(TSMechSetPCLagCoarse(ts, PETSC_FALSE));
    PetscCall(TSMechGetPCDefinite(ts, &definite));
    PetscCall(TSMechGetEWSafeguard(ts, &guard));
    PetscCall(TSMechGetPCLagCoarse(ts, &lag, NULL));
    PetscCall(PetscPrintf(comm, "%s: the Newton settings read back: pc_definite %s, ew_safeguard %g, pc_lag_coarse %s\n", types[i], definite ? "true" : "false", (double)guard, lag ? "true" : "false"));
    if (!definite || guard != 0.25 || lag) {
      (*failures)++;
      PetscCall(PetscPrintf(comm, "FAILED: %s's Newton object did not take the settings\n", types[i]));
    }
    PetscCall(TSDestroy(&ts));
  }
  PetscCall(TSCreate(comm, &ts));
  PetscCall(TSSetType(ts, TSSYMEULER2));
  PetscCall(TSMechSetPCDefinite(ts, PETSC_TRUE));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = TSMechGetPCDefinite(ts, &definite);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscPrintf(comm, "symeuler2: the setter is ignored, the getter %s\n", ierr ? "fails" : "does not fail"));
  if (!ierr) {
    (*failures)++;
    PetscCall(PetscPrintf(comm, "FAILED: an explicit type answered a Newton setting\n"));
  }
  PetscCall(TSDestroy(&ts));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt  failures = 0, part = 0, nlong = 100000;
  MPI_Comm  comm;
  PetscReal dtosc[3] = {0.02, 0.1, 0.2}, dtkep[3] = {0.01, 0.05, 0.1};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-part", &part, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-long_steps", &nlong, NULL));
  if (!part || part == 1 || part == 2) PetscCall(CheckEquivalence(comm, !part || part == 1, !part || part == 2, &failures));
  if (!part || part == 3) {
    PetscCall(CheckOrder(comm, "oscillator", "-oscillator_c 0", 2.0, dtosc, &failures));
    PetscCall(CheckOrder(comm, "oscillator", "-oscillator_c 0.5", 2.0, dtosc, &failures));
    PetscCall(CheckOrder(comm, "kepler", "", 2.0, dtkep, &failures));
  }
  if (!part || part == 4) PetscCall(CheckLong(comm, nlong, &failures));
  if (!part || part == 5) PetscCall(CheckNewtonObject(comm, &failures));
  if (!part || part == 6) PetscCall(CheckDirect(comm, &failures));
  if (!part || part == 7) PetscCall(CheckNewtonSettings(comm, &failures));
  TestCheck(comm, !failures, "%" PetscInt_FMT " gauss2 checks failed", failures);
  PetscCall(PetscPrintf(comm, "all gauss2 checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
