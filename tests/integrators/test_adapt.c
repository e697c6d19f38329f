static const char help[] = "Adaptive stepping (TSAdapt basic with the tsmech error estimate): on the eccentric Kepler orbit\n"
                           "(e = 0.9) over one period the step follows the orbit and a failed solve is rolled back; on\n"
                           "that orbit and a nonlinear chain the tsmech types take as many steps, reject as few and are\n"
                           "as accurate as PETSc's TSBEULER, TSTHETA and TSCN under the same controller.\n"
                           "  -kepler <true>      also the Kepler orbit (false: the chain only, for runs on several ranks)\n"
                           "  -chain_time <1>     the chain's final time\n";

#include "integ.h"
#include <petsc/private/tsimpl.h> /* ts->ops->evaluatewlte, for the negative control */

/* Part 1: the step follows the orbit; rollback after failed solves. */
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
  PetscCall(TestClearOptions(opts));
  PetscFunctionReturn(0);
}

/*
  Part 2: the tsmech types against PETSc's own types under the same controller (TSAdapt basic,
  same tolerances, same initial step), on the first-order form [q; v] for PETSc's: beuler2 and
  TSBEULER, theta2 at theta = 0.6 (one-leg and endpoint) and TSTHETA with the same form, cn2 and
  TSCN, midpoint2 and TSTHETA at 1/2; the linearized mode against the Newton type it linearizes.
  With the same estimate (docs/schemes.md §6) and the same order the controllers must take as many
  steps and reject as few: accepted steps within 2x, rejected steps within 2x (plus 4: PETSc
  accepts its first step unchecked, tsmech checks it), and the error against a reference within
  2x of PETSc's (plus 1e-3 tol, which matters only if both vanish). A negative control reports
  the scheme's order 1 instead of the estimate's 2, as theta2 once did for theta != 1/2: it must
  fail the same comparison.
*/
typedef struct {
  PetscInt  acc, rej;
  PetscReal err;
} Outcome;

static PetscErrorCode (*EvaluateWLTEOriginal)(TS, NormType, PetscInt *, PetscReal *);

static PetscErrorCode EvaluateWLTEOrderOne(TS ts, NormType wnormtype, PetscInt *order, PetscReal *wlte)
{
  PetscFunctionBegin;
  PetscCall(EvaluateWLTEOriginal(ts, wnormtype, order, wlte));
  if (order) *order = 1;
  PetscFunctionReturn(0);
}

/* At step 0 (after TSSetUp()), the negative control replaces the type's estimate by one reporting order 1 */
static PetscErrorCode ReportOrderOne(TS ts, PetscInt step, PetscReal t, Vec X, void *ctx)
{
  PetscFunctionBegin;
  (void)t;
  (void)X;
  (void)ctx;
  if (step == 0 && ts->ops->evaluatewlte != EvaluateWLTEOrderOne) {
    EvaluateWLTEOriginal  = ts->ops->evaluatewlte;
    ts->ops->evaluatewlte = EvaluateWLTEOrderOne;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode RunAdaptive(MechSystem sys, const char type[], const char opts[], PetscReal T, Vec qref, Vec vref, PetscBool order1, Outcome *o)
{
  static int runs = 0;
  char       prefix[32];
  TS         ts;
  Vec        q, v;
  PetscReal  t;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "adapt%d_", runs++));
  PetscCall(TestSolve(sys, type, prefix, opts, 1e-3, 1000000, T, TS_EXACTFINALTIME_MATCHSTEP, order1 ? ReportOrderOne : NULL, NULL, &q, &v, &ts));
  PetscCall(TSGetTime(ts, &t));
  PetscCheck(PetscAbsReal(t - T) < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s (%s) stopped at t = %g, not %g", type, opts, (double)t, (double)T);
  PetscCall(TSGetStepNumber(ts, &o->acc));
  PetscCall(TSGetStepRejections(ts, &o->rej));
  PetscCall(TestRelDiff(q, v, qref, vref, &o->err));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(TSDestroy(&ts));
  PetscFunctionReturn(0);
}

/* Whether a (tsmech) behaves as b (PETSc): accepted and rejected steps and error within 2x */
static PetscBool Matches(const Outcome *a, const Outcome *b, PetscReal errfloor)
{
  PetscBool acc = (a->acc <= 2 * b->acc && b->acc <= 2 * a->acc) ? PETSC_TRUE : PETSC_FALSE;
  PetscBool rej = (a->rej <= 2 * b->rej + 4 && b->rej <= 2 * a->rej + 4) ? PETSC_TRUE : PETSC_FALSE;
  PetscBool err = a->err <= 2 * b->err + errfloor ? PETSC_TRUE : PETSC_FALSE;
  return acc && rej && err ? PETSC_TRUE : PETSC_FALSE;
}

typedef struct {
  const char *tsmech, *tsmech_opts, *petsc, *petsc_opts;
} Pair;

static const Pair pairs[] = {
    {"beuler2",   "",                                         "beuler", ""                                      },
    {"theta2",    "-ts_theta_theta 0.6",                      "theta",  "-ts_theta_theta 0.6"                   },
    {"theta2",    "-ts_theta_theta 0.6 -ts_theta_endpoint",   "theta",  "-ts_theta_theta 0.6 -ts_theta_endpoint"},
    {"cn2",       "",                                         "cn",     ""                                      },
    {"midpoint2", "",                                         "theta",  "-ts_theta_theta 0.5"                   },
    {"beuler2",   "-ts_theta_linearized",                     "beuler", ""                                      },
    {"theta2",    "-ts_theta_theta 0.6 -ts_theta_linearized", "theta",  "-ts_theta_theta 0.6"                   },
};

/* Every pair on sys over [0, T] at tolerance tol; the reference state at T is (qref, vref). */
static PetscErrorCode ComparePairs(MechSystem sys, const char name[], PetscReal T, PetscReal tol, Vec qref, Vec vref)
{
  /* a direct solve on any number of ranks */
  const char *solve = "-snes_rtol 1e-12 -snes_atol 1e-14 -ksp_type preonly -pc_type redundant -ts_adapt_type basic -ts_max_snes_failures -1";
  char        common[512], oa[1024], ob[1024];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(common, sizeof(common), "%s -ts_rtol %g -ts_atol %g", solve, (double)tol, (double)tol));
  for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
    const Pair *p = &pairs[i];
    Outcome     a, b;

    PetscCall(PetscSNPrintf(oa, sizeof(oa), "%s %s", p->tsmech_opts, common));
    PetscCall(PetscSNPrintf(ob, sizeof(ob), "%s %s", p->petsc_opts, common));
    PetscCall(RunAdaptive(sys, p->tsmech, oa, T, qref, vref, PETSC_FALSE, &a));
    PetscCall(RunAdaptive(sys, p->petsc, ob, T, qref, vref, PETSC_FALSE, &b));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-7s %-9s %-40s %5" PetscInt_FMT " accepted %3" PetscInt_FMT " rejected error %.2e | %-6s %-38s %5" PetscInt_FMT " accepted %3" PetscInt_FMT " rejected error %.2e\n", name, p->tsmech, p->tsmech_opts, a.acc, a.rej, (double)a.err, p->petsc, p->petsc_opts, b.acc, b.rej, (double)b.err));
    PetscCheck(Matches(&a, &b, 1e-3 * tol), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: %s %s under TSAdapt basic (%" PetscInt_FMT " accepted, %" PetscInt_FMT " rejected, error %g) is not within 2x of %s %s (%" PetscInt_FMT ", %" PetscInt_FMT ", %g)", name, p->tsmech, p->tsmech_opts, a.acc, a.rej, (double)a.err, p->petsc, p->petsc_opts, b.acc, b.rej, (double)b.err);
  }
  PetscFunctionReturn(0);
}

/*
  symeuler2 and euler2 (explicit, no PETSc counterpart with an estimate): the same order-2
  estimate must not make the controller oscillate (at most 5 % of the steps rejected, plus 4),
  and the error must stay that of a first-order method at this tolerance (below err_max).
*/
static PetscErrorCode CheckExplicit(MechSystem sys, const char name[], PetscReal T, PetscReal tol, Vec qref, Vec vref, PetscReal err_max)
{
  const char *types[] = {TSSYMEULER2, TSEULER2};
  char        opts[256];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-ts_adapt_type basic -ts_rtol %g -ts_atol %g", (double)tol, (double)tol));
  for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
    Outcome a;

    PetscCall(RunAdaptive(sys, types[i], opts, T, qref, vref, PETSC_FALSE, &a));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-7s %-9s %-40s %5" PetscInt_FMT " accepted %3" PetscInt_FMT " rejected error %.2e\n", name, types[i], "", a.acc, a.rej, (double)a.err));
    PetscCheck(20 * (a.rej - 4) <= a.acc, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: %s rejects %" PetscInt_FMT " of %" PetscInt_FMT " steps under TSAdapt basic", name, types[i], a.rej, a.acc + a.rej);
    PetscCheck(a.err <= err_max, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: %s under TSAdapt basic: error %g > %g", name, types[i], (double)a.err, (double)err_max);
  }
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
  MPI_Comm    comm;
  PetscBool   kepler = PETSC_TRUE;
  PetscReal   Tchain = 1;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-kepler", &kepler, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-chain_time", &Tchain, NULL));
  /* the orbit is two unknowns: it is run on one rank only (-kepler false on more) */
  if (kepler) {
    PetscCall(IntegCreateModel(comm, "kepler", "-kepler_e 0.9", &sys));

    /* adaptive: the step must shrink at pericentre and grow at apocentre, and (second-order types)
       beat a fixed step with the same number of steps */
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
      PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -ts_adapt_type basic -ts_rtol 1e-5 -ts_atol 1e-5", solve));
      PetscCall(Orbit(sys, types[i], opts, 1e-3, &eadapt, &s, &nadapt, &rejects, &fails));
      PetscCall(PetscPrintf(comm, "%-9s adaptive steps between %.3e and %.3e\n", types[i], (double)s.dtmin, (double)s.dtmax));
      PetscCheck(s.dtmax > 5 * s.dtmin, comm, PETSC_ERR_PLIB, "%s: the adaptive step hardly varies: %g .. %g", types[i], (double)s.dtmin, (double)s.dtmax);
      /* (a fixed step with as few steps is no comparison for implicit Euler: it spirals into the
         centre, where Newton fails, as it does for PETSc's TSBEULER) */
      if (!second[i]) {
        PetscCall(PetscPrintf(comm, "%-9s adaptive: %5" PetscInt_FMT " steps, error %.3e\n", types[i], nadapt, (double)eadapt));
        continue;
      }
      {
        Steps sf;
        PetscCall(Orbit(sys, types[i], solve, 2 * PETSC_PI / nadapt, &efixed, &sf, &nfixed, &rejects, &fails));
      }
      PetscCall(PetscPrintf(comm, "%-9s adaptive: %5" PetscInt_FMT " steps, error %.3e; fixed step with as many steps: error %.3e\n", types[i], nadapt, (double)eadapt, (double)efixed));
      PetscCheck(eadapt < 0.1 * efixed, comm, PETSC_ERR_PLIB, "%s: the adaptive run (error %g) is not 10x more accurate than a fixed step with as many steps (%g)", types[i], (double)eadapt, (double)efixed);
    }
    /* rollback: a step far too long for pericentre with Newton limited to 3 iterations fails; the
       TS must reject it, come back to the start of the step and retry with a shorter one */
    for (PetscInt lin = 0; lin < 2; lin++) {
      PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -snes_max_it 3 -ts_adapt_type basic -ts_max_snes_failures -1 -ts_max_reject -1 -ts_rtol 1e-5 -ts_atol 1e-5%s", solve, lin ? " -ts_theta_linearized" : ""));
      PetscCall(Orbit(sys, TSMIDPOINT2, opts, 0.3, &eadapt, &s, &nadapt, &rejects, &fails));
      PetscCall(PetscPrintf(comm, "midpoint2%s from dt 0.3 with -snes_max_it 3: %" PetscInt_FMT " steps, %" PetscInt_FMT " rejected, %" PetscInt_FMT " failed solves, error %.3e\n", lin ? " linearized" : "", nadapt, rejects, fails, (double)eadapt));
      PetscCheck(rejects > 0, comm, PETSC_ERR_PLIB, "no step was rejected");
      PetscCheck(eadapt < 0.1, comm, PETSC_ERR_PLIB, "the run after rejections is wrong: error %g", (double)eadapt);
    }

    /* Part 2, Kepler: one period, the exact solution as reference */
    {
      Vec qe, ve;
      PetscCall(MechSystemCreateState(sys, &qe, &ve));
      PetscCall(MechSystemComputeExactSolution(sys, 2 * PETSC_PI, qe, ve, NULL));
      PetscCall(ComparePairs(sys, "kepler", 2 * PETSC_PI, 1e-5, qe, ve));
      PetscCall(CheckExplicit(sys, "kepler", 2 * PETSC_PI, 1e-5, qe, ve, 2));
      PetscCall(VecDestroy(&qe));
      PetscCall(VecDestroy(&ve));
    }
    PetscCall(MechSystemDestroy(&sys));
  }

  /* Part 2, chain: rest-length springs stretched by 10 %, spring damping, drag, gravity and an
     out-of-plane kick; reference: PETSc's adaptive 5th-order Dormand-Prince at tolerance 1e-11 */
  {
    const PetscInt  n = 20;
    const PetscReal T = Tchain;
    Vec             qr, vr;
    TS              ts;
    Outcome         a, b;

    PetscCall(IntegCreateModel(comm, "chain", "-chain_n 20 -chain_stretch 1.1 -chain_c 0.5 -chain_drag 0.2 -chain_g 9.81", &sys));
    PetscCall(IntegKickChain(sys, n, 3));
    PetscCall(TestSolve(sys, TSRK, "reference_", "-ts_rk_type 5dp -ts_adapt_type basic -ts_rtol 1e-11 -ts_atol 1e-11", 1e-4, 1000000, T, TS_EXACTFINALTIME_MATCHSTEP, NULL, NULL, &qr, &vr, &ts));
    PetscCall(TSDestroy(&ts));
    PetscCall(ComparePairs(sys, "chain", T, 1e-4, qr, vr));
    PetscCall(CheckExplicit(sys, "chain", T, 1e-4, qr, vr, 0.3));

    /* negative control: the order of the scheme (1) instead of the estimate's (2) */
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-snes_rtol 1e-12 -snes_atol 1e-14 -ksp_type preonly -pc_type redundant -ts_adapt_type basic -ts_rtol 1e-4 -ts_atol 1e-4"));
    PetscCall(RunAdaptive(sys, TSBEULER2, opts, T, qr, vr, PETSC_FALSE, &b));
    PetscCall(RunAdaptive(sys, TSBEULER2, opts, T, qr, vr, PETSC_TRUE, &a));
    PetscCall(PetscPrintf(comm, "negative control: beuler2 reporting order 1: %" PetscInt_FMT " accepted %" PetscInt_FMT " rejected error %.2e; with order 2: %" PetscInt_FMT " accepted %" PetscInt_FMT " rejected error %.2e\n", a.acc, a.rej, (double)a.err, b.acc, b.rej, (double)b.err));
    PetscCheck(!Matches(&a, &b, 1e-3 * 1e-4), comm, PETSC_ERR_PLIB, "negative control: order 1 against an h^2 estimate went undetected");
    PetscCall(VecDestroy(&qr));
    PetscCall(VecDestroy(&vr));
    PetscCall(MechSystemDestroy(&sys));
  }
  PetscCall(PetscFinalize());
  return 0;
}
