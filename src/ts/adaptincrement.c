/*
  TSADAPTINCREMENT: automatic incrementation as engineers know it from Abaqus/Standard (Analysis
  User's Guide, "Convergence criteria for nonlinear problems": time incrementation) and FEBio
  (the auto time stepper and its must points), docs/solvers.md §8:

  - a step whose solve fails is retried with the step cut back (TSAdaptCheckStage(), by
    -ts_adapt_scale_solve_failed, 0.25), at most -ts_max_reject times in a row (static2: 5), never
    below -ts_adapt_dt_min (TSMechStepFinish());
  - after -ts_adapt_increment_easy_steps (2) steps in a row that Newton solved in at most
    -ts_adapt_increment_easy_its (3) iterations, without a cut-back, the step grows by
    -ts_adapt_increment_growth (1.5), up to -ts_adapt_dt_max and, for a dynamic type, never beyond
    the step the run asked for (-ts_dt, its accuracy): a dynamic run without a failed step is
    bitwise that of fixed steps;
  - a quasi-static type lands its steps exactly on the kinks of the loads' and motions' time
    functions (MechSystemGetKinks()), on -ts_adapt_increment_times and on PETSc's time span
    (-ts_time_span): TSMechAdaptLand() shortens the step before it is taken, and the step after a
    landing continues from the step before it.

  Every converged step is accepted: there is no error estimate. What the controller keeps between
  steps is the count of easy steps, kept in the TSAdapt's own counter (timestepjustdecreased, which
  a checkpoint holds), and the next step (the TS's dt): a restart continues exactly.
*/
#include "tsimpl2.h"
#include "../mech/mechimpl.h"

typedef struct {
  PetscReal  growth;   /* the factor of a growing step */
  PetscInt   easyits;  /* a step is easy when Newton took at most this many iterations */
  PetscInt   easyrun;  /* grow after this many easy steps in a row */
  PetscInt   land;     /* land on must points: 1, 0, or -1 (quasi-static types do) */
  PetscInt   ntimes;   /* further must points (-ts_adapt_increment_times) */
  PetscReal *times;    /* ntimes of them */
  PetscReal  nominal;  /* a dynamic type's cap: the step the run asked for (0: none) */
  PetscReal  proposed; /* the step chosen last (0: none yet, or a restart) */
  PetscReal  clipped;  /* the step TSMechAdaptLand() shortened this one to (0: not shortened) */
  PetscReal  unclipped;
} TSAdapt_Increment;

static PetscErrorCode TSAdaptChoose_Increment(TSAdapt adapt, TS ts, PetscReal h, PetscInt *next_sc, PetscReal *next_h, PetscBool *accept, PetscReal *wlte, PetscReal *wltea, PetscReal *wlter)
{
  TSAdapt_Increment *ai        = (TSAdapt_Increment *)adapt->data;
  PetscReal          reference = ai->clipped > 0 ? ai->clipped : ai->proposed, next;
  PetscInt           nits      = 0;
  PetscBool          cut;

  PetscFunctionBegin;
  *accept  = PETSC_TRUE;
  *next_sc = 0;
  *wlte = *wltea = *wlter = -1;
  /* a step shorter than the one it started as was cut back: it continues at the shorter one */
  cut = (reference > 0 && h < reference) ? PETSC_TRUE : PETSC_FALSE;
  if (ts->snes) PetscCall(SNESGetIterationNumber(ts->snes, &nits));
  if (cut || nits > ai->easyits) adapt->timestepjustdecreased = 0;
  else adapt->timestepjustdecreased++;
  next = cut ? h : (ai->clipped > 0 ? ai->unclipped : h);
  if (adapt->timestepjustdecreased >= ai->easyrun) {
    next *= ai->growth;
    adapt->timestepjustdecreased = 0;
  }
  next = PetscMin(next, adapt->dt_max);
  /* a dynamic step at the step asked for stays bitwise that step */
  if (ai->nominal > 0) next = PetscMin(next, ai->nominal);
  *next_h       = next;
  ai->proposed  = next;
  ai->clipped   = 0;
  ai->unclipped = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSAdaptReset_Increment(TSAdapt adapt)
{
  TSAdapt_Increment *ai = (TSAdapt_Increment *)adapt->data;

  PetscFunctionBegin;
  ai->proposed = ai->clipped = ai->unclipped = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSAdaptDestroy_Increment(TSAdapt adapt)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(((TSAdapt_Increment *)adapt->data)->times));
  PetscCall(PetscFree(adapt->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSAdaptSetFromOptions_Increment(TSAdapt adapt, PetscOptionItems *PetscOptionsObject)
{
  TSAdapt_Increment *ai = (TSAdapt_Increment *)adapt->data;
  PetscBool          set, flg, given;
  const char        *value;
  PetscReal         *times;
  PetscInt           n = 1;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Automatic incrementation (increment) options");
  PetscCall(PetscOptionsReal("-ts_adapt_increment_growth", "Factor of a growing step, after enough easy steps in a row", "TSADAPTINCREMENT", ai->growth, &ai->growth, NULL));
  PetscCall(PetscOptionsInt("-ts_adapt_increment_easy_its", "A step is easy when Newton took at most this many iterations", "TSADAPTINCREMENT", ai->easyits, &ai->easyits, NULL));
  PetscCall(PetscOptionsInt("-ts_adapt_increment_easy_steps", "The step grows after this many easy steps in a row", "TSADAPTINCREMENT", ai->easyrun, &ai->easyrun, NULL));
  PetscCall(PetscOptionsBool("-ts_adapt_increment_land", "Land the steps exactly on the kinks of the loads' time functions and the must points (default: for quasi-static types)", "TSADAPTINCREMENT", ai->land == 1, &flg, &set));
  if (set) ai->land = flg ? 1 : 0;
  /* as many must points as the value lists: room for one per comma-separated entry */
  PetscCall(PetscOptionsFindPair(PetscOptionsObject->options, PetscOptionsObject->prefix, "-ts_adapt_increment_times", &value, &given));
  if (given && value)
    for (const char *c = value; *c; c++) n += *c == ',';
  n = PetscMax(n, ai->ntimes);
  PetscCall(PetscCalloc1(n, &times));
  if (ai->ntimes) PetscCall(PetscArraycpy(times, ai->times, ai->ntimes));
  PetscCall(PetscOptionsRealArray("-ts_adapt_increment_times", "Further times the steps land on exactly (must points, e.g. the times of the results wanted)", "TSADAPTINCREMENT", times, &n, &set));
  if (set) {
    PetscCall(PetscFree(ai->times));
    ai->times  = times;
    ai->ntimes = n;
  } else PetscCall(PetscFree(times));
  PetscOptionsHeadEnd();
  /* the values are checked in TSMechAdaptSetUp(): an error inside the options block would leak it */
  PetscFunctionReturn(0);
}

static PetscErrorCode TSAdaptView_Increment(TSAdapt adapt, PetscViewer viewer)
{
  TSAdapt_Increment *ai = (TSAdapt_Increment *)adapt->data;
  PetscBool          iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  automatic incrementation: a failed step is retried with %g of its step; after %" PetscInt_FMT " steps in a row of at most %" PetscInt_FMT " Newton iterations the step grows by %g", (double)adapt->scale_solve_failed, ai->easyrun, ai->easyits, (double)ai->growth));
  if (ai->nominal > 0) PetscCall(PetscViewerASCIIPrintf(viewer, ", up to the step asked for, %g", (double)ai->nominal));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n  steps between %g and %g%s\n", (double)adapt->dt_min, (double)adapt->dt_max, ai->land == 1 ? "; steps land on the kinks of the loads' time functions and the must points" : ""));
  PetscFunctionReturn(0);
}

/*MC
  TSADAPTINCREMENT - "increment": automatic incrementation (Abaqus/Standard's, FEBio's auto time
  stepper): a failed step is cut back and retried, easy steps make the step grow, and quasi-static
  steps land on the kinks of the loads' time functions (docs/solvers.md §8).

  Options Database Keys:
+ -ts_adapt_type increment - selects it (the default of static2 and of tsmech's implicit dynamic types)
. -ts_adapt_increment_growth <1.5> - the factor of a growing step
. -ts_adapt_increment_easy_its <3> - a step is easy when Newton took at most this many iterations
. -ts_adapt_increment_easy_steps <2> - the step grows after this many easy steps in a row, none cut back
. -ts_adapt_increment_land <bool> - land on the kinks of the time functions (`MechSystemGetKinks()`), the
  must points and PETSc's time span (default: for quasi-static types)
- -ts_adapt_increment_times <t1,t2,...> - further must points, any number
  and the generic ones: -ts_adapt_scale_solve_failed <0.25> (the cut-back), -ts_max_reject (cut-backs of
  one step; static2: 5), -ts_adapt_dt_min (static2: min(-ts_dt, 1e-5 of the run's span)), -ts_adapt_dt_max

  Level: intermediate

  Notes:
  Every step whose solve converged is accepted: there is no error estimate. A failed solve is
  retried however often in a run (the TS's -ts_max_snes_failures becomes -1 unless given); the limit
  is per step, -ts_max_reject. A dynamic type's step
  never grows beyond the step the run asked for (-ts_dt, or the TS's step at set-up): it only
  grows back after a cut-back, so a dynamic run in which no step fails is bitwise that of fixed
  steps. A run that cannot go on (more cut-backs in a row than -ts_max_reject, or a step below
  -ts_adapt_dt_min) ends with the TS's reason TS_DIVERGED_STEP_REJECTED and the last converged
  state kept. The count of easy steps is kept in the TSAdapt's counter that checkpoints hold, so
  a restart continues exactly.

.seealso: `TSSTATIC2`, `MechSystemAddKinks()`, `TSAdaptSetStepLimits()`, `TSSetMaxStepRejections()`
M*/
PetscErrorCode TSAdaptCreate_Increment(TSAdapt adapt)
{
  TSAdapt_Increment *ai;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ai));
  adapt->data                = (void *)ai;
  adapt->ops->choose         = TSAdaptChoose_Increment;
  adapt->ops->reset          = TSAdaptReset_Increment;
  adapt->ops->destroy        = TSAdaptDestroy_Increment;
  adapt->ops->setfromoptions = TSAdaptSetFromOptions_Increment;
  adapt->ops->view           = TSAdaptView_Increment;
  ai->growth                 = 1.5;
  ai->easyits                = 3;
  ai->easyrun                = 2;
  ai->land                   = -1;
  PetscFunctionReturn(0);
}

/*
  TSMechAdaptSetUp - At a tsmech type's set-up (TSMechStepStateSetUp()), with the TS's step known:
  under TSADAPTINCREMENT a dynamic type's cap (the step asked for: -ts_dt if given, so that a
  restart from a cut-back step grows back to it, else the TS's step), whether to land, and a
  quasi-static type's minimum step
*/
PetscErrorCode TSMechAdaptSetUp(TS ts)
{
  TSAdapt_Increment *ai;
  TSMechProperties   p;
  PetscBool          is, set;
  PetscReal          dt;
  const char        *prefix;
  MPI_Comm           comm = PetscObjectComm((PetscObject)ts);

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)ts->adapt, TSADAPTINCREMENT, &is));
  if (!is) PetscFunctionReturn(0);
  ai = (TSAdapt_Increment *)ts->adapt->data;
  PetscCheck(ai->growth >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ts_adapt_increment_growth %g: must be at least 1", (double)ai->growth);
  PetscCheck(ai->easyits >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ts_adapt_increment_easy_its %" PetscInt_FMT ": must be non-negative", ai->easyits);
  PetscCheck(ai->easyrun >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ts_adapt_increment_easy_steps %" PetscInt_FMT ": must be at least 1", ai->easyrun);
  for (PetscInt i = 0; i < ai->ntimes; i++) PetscCheck(!PetscIsInfOrNanReal(ai->times[i]), comm, PETSC_ERR_ARG_OUTOFRANGE, "-ts_adapt_increment_times: every time must be finite");
  PetscCall(TSMechGetProperties(ts, &p));
  if (ai->land < 0) ai->land = p.quasistatic ? 1 : 0;
  PetscCall(TSGetOptionsPrefix(ts, &prefix));
  /* a failed solve is a step to retry, however often in a run (PETSc's default, 1, ends the run at
     the first); the limit is per step, -ts_max_reject */
  PetscCall(PetscOptionsHasName(((PetscObject)ts)->options, prefix, "-ts_max_snes_failures", &set));
  if (!set && ts->max_snes_failures == 1) PetscCall(TSSetMaxSNESFailures(ts, -1));
  PetscCall(PetscOptionsGetReal(((PetscObject)ts)->options, prefix, "-ts_dt", &dt, &set));
  if (!set) dt = ts->time_step;
  ai->nominal = p.quasistatic ? 0 : dt;
  /* Abaqus's default minimum increment, min(initial increment, 1e-5 of the step's time); PETSc's default is 1e-20 */
  if (p.quasistatic && ts->adapt->dt_min <= 1e-20) {
    PetscReal span = ts->max_time - ts->ptime;

    ts->adapt->dt_min = (span > 0 && span < PETSC_MAX_REAL) ? PetscMin(dt, 1e-5 * span) : 1e-5 * dt;
  }
  PetscFunctionReturn(0);
}

/* The first must point after t (+ a rounding margin), or PETSC_MAX_REAL */
static PetscReal NextMustPoint(const PetscReal t[], PetscInt n, PetscReal after, PetscReal margin, PetscReal best)
{
  for (PetscInt i = 0; i < n; i++)
    if (t[i] > after + margin && t[i] < best) best = t[i];
  return best;
}

/*
  TSMechAdaptLand - Before a quasi-static type's step (under TSADAPTINCREMENT with landing): the
  step shortened to end on the next must point (a kink of the loads' time functions, a time of
  -ts_adapt_increment_times or of the time span) that it would pass, or split in two equal steps
  when it would stop short of it by less than half a step (no sliver); the step before is kept
  for the step after the landing
*/
PetscErrorCode TSMechAdaptLand(TS ts)
{
  TSAdapt_Increment *ai;
  PetscBool          is;
  PetscReal          t = ts->ptime, h = ts->time_step, tm = PETSC_MAX_REAL, margin;
  MechSystem         sys;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)ts->adapt, TSADAPTINCREMENT, &is));
  if (!is) PetscFunctionReturn(0);
  ai = (TSAdapt_Increment *)ts->adapt->data;
  if (ai->land != 1) PetscFunctionReturn(0);
  margin = 1e-10 * PetscMax(PetscAbsReal(t), h);
  PetscCall(TSMechGetSystem(ts, &sys));
  if (sys) {
    PetscInt         n;
    const PetscReal *kinks;

    PetscCall(MechSystemGetKinks(sys, &n, &kinks));
    tm = NextMustPoint(kinks, n, t, margin, tm);
  }
  tm = NextMustPoint(ai->times, ai->ntimes, t, margin, tm);
  if (ts->tspan) tm = NextMustPoint(ts->tspan->span_times, ts->tspan->num_span_times, t, margin, tm);
  if (tm >= ts->max_time) PetscFunctionReturn(0); /* the end: PETSc's TSAdaptChoose() matches it */
  if (t + h > tm - margin) {
    ai->unclipped = h;
    h             = tm - t;
  } else if (t + 1.5 * h > tm) {
    ai->unclipped = h;
    h             = 0.5 * (tm - t);
  } else PetscFunctionReturn(0);
  PetscCall(PetscInfo(ts, "Step %g shortened to %g to land on the must point t = %g\n", (double)ai->unclipped, (double)h, (double)(t + h)));
  ai->clipped   = h;
  ts->time_step = h;
  PetscFunctionReturn(0);
}
