/*
  The run guard: what keeps a long run safe, for any program that integrates a MechSystem with a
  TS (the tsmech program, a C program, petsc4py through the ctypes module). After every step it
  checks the new state; a state that is not finite, or the energy blow-up of an explicit method,
  ends the run with a failed converged reason, or, for a non-finite state under an adaptive
  controller (PETSc's explicit types cannot reject such a step themselves), the step is retried
  from the last good state with a quarter of its size. It keeps the last state that passed the
  checks, and for explicit types the last one whose energy had not yet grown, so a program can
  save them after a failure. Every decision is taken from reductions, the same on every rank.
*/
#include "tsimpl2.h"
#include "../mech/mechimpl.h" /* the system's state check */

const char *const TSMechGuardFailures[] = {"none", "ts", "nonfinite", "blowup", "refused", "TSMechGuardFailure", "TSMECH_GUARD_", NULL};

/* The energy gained since the start that counts as a blow-up, relative to what the state holds
   otherwise (GuardCheckState()); the first steps are not judged */
#define BLOWUP_FACTOR   TSMECH_GUARD_BLOWUP_FACTOR
#define BLOWUP_MINSTEPS 10
/* The energy gain, relative to the same scale, up to which a state of an explicit method counts as
   not yet touched by a growing mode */
#define SANE_FACTOR 1e-2

/* A state of the TS kept aside: its solution vectors (q and v, or X = [q; v]), step and time */
typedef struct {
  Vec       x, v;
  PetscInt  step;
  PetscReal time;
} GuardState;

struct _n_TSMechGuard {
  TS                 ts; /* not referenced: the TS holds the guard */
  MechSystem         sys;
  PetscBool          explicit_, adaptive, second;
  Vec                qw, vw;  /* work vectors in the system's layout, created at their first use */
  PetscReal          E0, C0;  /* initial energy and energy content K + |V| */
  PetscReal          restmax; /* the largest energy scale of a good state */
  GuardState         good, sane;
  PetscInt           startstep, retries, rejects;
  TSMechGuardFailure fail;
  PetscReal          faildt, failE;
  char               why[256]; /* the model's reason for the failure (MechSystemCheckState()), "" none */
  PetscErrorCode (*poststep)(TS, void *);
  void *ctx;
};

static PetscErrorCode GuardSolutionVectors(TSMechGuard g, Vec *x, Vec *v)
{
  PetscFunctionBegin;
  *v = NULL;
  if (g->second) PetscCall(TS2GetSolution(g->ts, x, v));
  else PetscCall(TSGetSolution(g->ts, x));
  PetscFunctionReturn(0);
}

/* The state of the TS in the system's layout, in the work vectors created at their first use */
static PetscErrorCode GuardGetState(TSMechGuard g, Vec *q, Vec *v)
{
  PetscFunctionBegin;
  if (!g->qw) PetscCall(MechSystemCreateState(g->sys, &g->qw, &g->vw));
  PetscCall(TSMechGetSolution(g->ts, g->qw, g->vw));
  *q = g->qw;
  *v = g->vw;
  PetscFunctionReturn(0);
}

static PetscErrorCode GuardSave(TSMechGuard g, GuardState *st)
{
  Vec x, v;

  PetscFunctionBegin;
  PetscCall(GuardSolutionVectors(g, &x, &v));
  if (!st->x) PetscCall(VecDuplicate(x, &st->x));
  PetscCall(VecCopy(x, st->x));
  if (v) {
    if (!st->v) PetscCall(VecDuplicate(v, &st->v));
    PetscCall(VecCopy(v, st->v));
  }
  PetscCall(TSGetStepNumber(g->ts, &st->step));
  PetscCall(TSGetTime(g->ts, &st->time));
  PetscFunctionReturn(0);
}

/* Gives the TS a saved state, its time and its step number back */
static PetscErrorCode GuardRestore(TSMechGuard g, GuardState *st)
{
  Vec x, v;

  PetscFunctionBegin;
  if (!st->x) PetscFunctionReturn(0);
  PetscCall(GuardSolutionVectors(g, &x, &v));
  PetscCall(VecCopy(st->x, x));
  if (v && st->v) PetscCall(VecCopy(st->v, v));
  PetscCall(TSSetTime(g->ts, st->time));
  PetscCall(TSSetStepNumber(g->ts, st->step));
  PetscFunctionReturn(0);
}

static PetscErrorCode GuardDestroy(void *ctx)
{
  TSMechGuard g = (TSMechGuard)ctx;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&g->qw));
  PetscCall(VecDestroy(&g->vw));
  PetscCall(VecDestroy(&g->good.x));
  PetscCall(VecDestroy(&g->good.v));
  PetscCall(VecDestroy(&g->sane.x));
  PetscCall(VecDestroy(&g->sane.v));
  PetscCall(MechSystemDestroy(&g->sys));
  PetscCall(PetscFree(g));
  PetscFunctionReturn(0);
}

/*
  Whether the state after a step may be kept: finite, and, for explicit types, without an energy
  blow-up. A blow-up: the energy gained since the start, E - E0, exceeds BLOWUP_FACTOR times what
  the state holds otherwise, 2 max(E0, 0) + 2 max(-PE, 0) (so that E - E0 plus it is
  KE + |PE| + |E0|), and as many times the start's content KE0 + |PE0| and the largest such
  scale of the good states before (a chain falling from rest, whose scale starts at zero, has
  one then). A stable run, whose energy does not grow, never gets there, while an unstable mode,
  whose energy swamps everything else, does within a few dozen steps, long before it overflows.
  The first BLOWUP_MINSTEPS steps of a run are not judged: from rest (E0 = 0) an explicit
  method's first step gains energy (explicit Euler moves v, not q) before any scale exists.
*/
static PetscErrorCode GuardCheckState(TSMechGuard g, TSMechGuardFailure *kind, PetscBool *sane)
{
  Vec       x, v, qg, vg;
  PetscReal nx, nv = 0, t, ke, pe;
  PetscInt  step;

  PetscFunctionBegin;
  *kind = TSMECH_GUARD_NONE;
  *sane = PETSC_FALSE;
  PetscCall(GuardSolutionVectors(g, &x, &v));
  PetscCall(TSMechVecNormInfinity(x, &nx));
  if (v) PetscCall(TSMechVecNormInfinity(v, &nv));
  if (PetscIsInfOrNanReal(nx) || PetscIsInfOrNanReal(nv)) {
    *kind = TSMECH_GUARD_NONFINITE;
    PetscFunctionReturn(0);
  }
  PetscCall(TSGetTime(g->ts, &t));
  if (g->sys->statecheck) {
    PetscBool ok;

    /* a state the model cannot take (an inverted element) */
    PetscCall(GuardGetState(g, &qg, &vg));
    PetscCall(MechSystemCheckState(g->sys, t, qg, vg, &ok, g->why, sizeof(g->why)));
    if (!ok) {
      *kind = TSMECH_GUARD_REFUSED;
      PetscFunctionReturn(0);
    }
  }
  if (!g->explicit_) PetscFunctionReturn(0);
  PetscCall(GuardGetState(g, &qg, &vg));
  PetscCall(MechSystemComputeEnergy(g->sys, t, qg, vg, &ke, &pe));
  if (PetscIsInfOrNanReal(ke + pe)) *kind = TSMECH_GUARD_NONFINITE;
  else {
    PetscReal gain = ke + pe - g->E0, rest = 2 * PetscMax(g->E0, 0) + 2 * PetscMax(-pe, 0);
    PetscReal scale = PetscMax(PetscMax(rest, g->C0), g->restmax);

    PetscCall(TSGetStepNumber(g->ts, &step));
    if (step - g->startstep >= BLOWUP_MINSTEPS && gain > BLOWUP_FACTOR * scale && gain > 0) {
      *kind    = TSMECH_GUARD_BLOWUP;
      g->failE = ke + pe;
    } else {
      g->restmax = PetscMax(g->restmax, rest);
      /* not yet polluted by a growing mode: the state a checkpoint after a blow-up holds */
      *sane = gain <= SANE_FACTOR * scale ? PETSC_TRUE : PETSC_FALSE;
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode GuardGet(TS ts, TSMechGuard *g)
{
  PetscContainer c;

  PetscFunctionBegin;
  *g = NULL;
  PetscCall(PetscObjectQuery((PetscObject)ts, "TSMech_Guard", (PetscObject *)&c));
  if (c) PetscCall(PetscContainerGetPointer(c, (void **)g));
  PetscFunctionReturn(0);
}

/* The TSPostStep of a guarded TS (also called after a step the TS gave up on) */
static PetscErrorCode GuardPostStep(TS ts)
{
  TSMechGuard        g;
  TSConvergedReason  reason;
  TSMechGuardFailure kind;
  PetscBool          sane;

  PetscFunctionBegin;
  PetscCall(GuardGet(ts, &g));
  PetscCheck(g, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONGSTATE, "The TS has lost its run guard");
  PetscCall(TSGetConvergedReason(ts, &reason));
  /* a PETSc type's step ends with the prescribed motion met (the post-step it replaces did so) */
  if (reason >= 0) PetscCall(TSMechApplyFixedMotion(ts));
  if (reason < 0) {
    /* the TS gave up on this step: its state is not kept; the model may know why */
    g->fail = TSMECH_GUARD_TS;
    PetscCall(MechSystemCheckState(g->sys, g->good.time, NULL, NULL, NULL, g->why, sizeof(g->why)));
    PetscFunctionReturn(0);
  }
  PetscCall(GuardCheckState(g, &kind, &sane));
  if (kind != TSMECH_GUARD_NONE) {
    PetscReal t;
    PetscInt  maxreject = ts->max_reject; /* PETSc 3.18 has no getter */

    PetscCall(TSGetTime(ts, &t));
    g->faildt = t - g->good.time;
    if ((kind == TSMECH_GUARD_NONFINITE || kind == TSMECH_GUARD_REFUSED) && g->adaptive && (maxreject < 0 || g->retries < maxreject)) {
      /* a rejection of the step, as the tsmech types and PETSc's implicit ones make it */
      PetscCall(PetscInfo(ts, "Step %" PetscInt_FMT ": the state is not finite; retried with dt %g\n", g->good.step + 1, (double)(0.25 * g->faildt)));
      PetscCall(GuardRestore(g, &g->good));
      PetscCall(TSSetTimeStep(ts, 0.25 * g->faildt));
      PetscCall(TSRestartStep(ts));
      g->retries++;
      g->rejects++;
      PetscFunctionReturn(0);
    }
    g->fail = kind;
    PetscCall(TSSetConvergedReason(ts, TS_DIVERGED_NONLINEAR_SOLVE));
    PetscFunctionReturn(0);
  }
  g->retries = 0;
  PetscCall(GuardSave(g, &g->good));
  if (sane) PetscCall(GuardSave(g, &g->sane));
  if (g->poststep) PetscCall((*g->poststep)(ts, g->ctx));
  PetscFunctionReturn(0);
}

/*@C
  TSMechSetGuard - Guards a run: after every step the state is checked and kept, and a failure
  ends the run cleanly instead of spreading NaN or overflowing.

  Collective

  Input Parameter:
. ts - the TS, with its type set (TSSetFromOptions()), a MechSystem attached (TSMechSetSystem())
       and its initial state given (TSMechSetSolution(), or a checkpoint restored)

  Output Parameter:
. guard - the guard (held by the TS; valid until the TS is destroyed), or NULL

  Notes:
  What the guard does after every step (a TSPostStep it installs; give your own with
  TSMechGuardSetPostStep(), not TSSetPostStep()):
+ a non-finite state (NaN or Inf) - under an adaptive controller the step is rejected and retried
  from the last good state with a quarter of the step (-ts_max_reject bounds the retries of one
  step); otherwise the run ends with TS_DIVERGED_NONLINEAR_SOLVE
. an energy blow-up of an explicit method - the energy gained since the start exceeds 1e6 times
  what the state holds otherwise (an unstable step size): the run ends
- a good state - kept as the last good state (TSMechGuardRestore())

  A model with a state check (`MechSystemSetStateCheck()`) has it applied to every new state as
  well: a refused state is handled like a non-finite one, and the model's reason is kept.

  It also makes a failed step a converged reason instead of an error (TSSetErrorIfStepFails()
  false) and, under an adaptive controller, a failed Newton solve a rejected step however often
  it happens in a run (-ts_max_snes_failures -1 unless given).

  Level: intermediate

.seealso: `TSMechGuardGetFailure()`, `TSMechGuardRestore()`, `TSMechGuardSetPostStep()`, `TSMechIsExplicit()`
@*/
PetscErrorCode TSMechSetGuard(TS ts, TSMechGuard *guard)
{
  TSMechGuard    g;
  PetscContainer c;
  TSAdapt        adapt;
  PetscBool      none, set;
  const char    *prefix;
  Vec            q, v;
  PetscReal      ke, pe;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscCall(GuardGet(ts, &g));
  if (!g) {
    PetscCall(PetscNew(&g));
    g->ts = ts;
    PetscCall(TSMechGetSystem(ts, &g->sys));
    PetscCheck(g->sys, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONGSTATE, "TSMechSetGuard() needs a MechSystem attached to the TS (TSMechSetSystem())");
    PetscCall(PetscObjectReference((PetscObject)g->sys));
    PetscCall(PetscContainerCreate(PetscObjectComm((PetscObject)ts), &c));
    PetscCall(PetscContainerSetPointer(c, g));
    PetscCall(PetscContainerSetUserDestroy(c, GuardDestroy));
    PetscCall(PetscObjectCompose((PetscObject)ts, "TSMech_Guard", (PetscObject)c));
    PetscCall(PetscContainerDestroy(&c));
  }
  PetscCall(TSMechIsExplicit(ts, &g->explicit_));
  PetscCall(TSMechIsSecondOrder(ts, &g->second));
  /* A failed step is reported by the TS (TSGetConvergedReason()), not raised as an error. With an
     adaptive controller a failed Newton solve or a non-finite state is a rejected step, retried
     with a smaller one, however often it happens in a run; PETSc's default of 1 would end the run
     at the first. */
  PetscCall(TSSetErrorIfStepFails(ts, PETSC_FALSE));
  PetscCall(TSGetAdapt(ts, &adapt));
  PetscCall(PetscObjectTypeCompare((PetscObject)adapt, TSADAPTNONE, &none));
  g->adaptive = none ? PETSC_FALSE : PETSC_TRUE;
  PetscCall(TSGetOptionsPrefix(ts, &prefix));
  PetscCall(PetscOptionsHasName(((PetscObject)ts)->options, prefix, "-ts_max_snes_failures", &set));
  if (g->adaptive && !set) PetscCall(TSSetMaxSNESFailures(ts, -1));
  /* the energy of the system's initial state, also for a restarted run */
  PetscCall(MechSystemCreateState(g->sys, &q, &v));
  PetscCall(MechSystemComputeEnergy(g->sys, 0.0, q, v, &ke, &pe));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  g->E0      = ke + pe;
  g->C0      = PetscAbsReal(ke) + PetscAbsReal(pe);
  g->restmax = 0;
  g->fail    = TSMECH_GUARD_NONE;
  g->why[0]  = 0;
  g->retries = g->rejects = 0;
  PetscCall(GuardSave(g, &g->good));
  if (g->explicit_) PetscCall(GuardSave(g, &g->sane));
  g->startstep = g->good.step;
  PetscCall(TSSetPostStep(ts, GuardPostStep));
  if (guard) *guard = g;
  PetscFunctionReturn(0);
}

/*@C
  TSMechGuardSetPostStep - Sets a function called after every step whose state the guard kept
  (the guard owns the TS's TSPostStep).

  Logically Collective

  Input Parameters:
+ guard - the guard (TSMechSetGuard())
. fn    - the function, called with the TS and ctx; it may stop the run with TSSetConvergedReason()
- ctx   - its context

  Level: intermediate

.seealso: `TSMechSetGuard()`
@*/
PetscErrorCode TSMechGuardSetPostStep(TSMechGuard guard, PetscErrorCode (*fn)(TS, void *), void *ctx)
{
  PetscFunctionBegin;
  PetscValidPointer(guard, 1);
  guard->poststep = fn;
  guard->ctx      = ctx;
  PetscFunctionReturn(0);
}

/*@C
  TSMechGuardGetFailure - What ended the run, if the guard or the TS ended it.

  Not Collective

  Input Parameter:
. guard - the guard

  Output Parameters:
+ kind   - TSMECH_GUARD_NONE, TSMECH_GUARD_TS (the TS gave up on a step), TSMECH_GUARD_NONFINITE,
           TSMECH_GUARD_BLOWUP or TSMECH_GUARD_REFUSED (the model's state check refused the state)
. dt     - the size of the step that failed the guard's checks (NULL: not wanted)
. energy - the energy that counted as a blow-up (NULL: not wanted)
- why    - the model's reason (`MechSystemCheckState()`), "" if it gave none (NULL: not wanted)

  Level: intermediate

.seealso: `TSMechSetGuard()`, `TSMechGuardRestore()`
@*/
PetscErrorCode TSMechGuardGetFailure(TSMechGuard guard, TSMechGuardFailure *kind, PetscReal *dt, PetscReal *energy, const char **why)
{
  PetscFunctionBegin;
  PetscValidPointer(guard, 1);
  if (why) *why = guard->why;
  if (kind) *kind = guard->fail;
  if (dt) *dt = guard->faildt;
  if (energy) *energy = guard->failE;
  PetscFunctionReturn(0);
}

/*@C
  TSMechGuardGetInfo - The numbers a report of the run needs.

  Not Collective

  Input Parameter:
. guard - the guard

  Output Parameters (each may be NULL):
+ E0        - the energy of the system's initial state
. content   - its energy content K + |V|
. startstep - the step the guarded run started from (a restarted run: the checkpoint's)
. goodstep  - the step of the last good state
. goodtime  - its time
- rejects   - the steps the guard rejected (non-finite states retried)

  Level: intermediate

.seealso: `TSMechSetGuard()`
@*/
PetscErrorCode TSMechGuardGetInfo(TSMechGuard guard, PetscReal *E0, PetscReal *content, PetscInt *startstep, PetscInt *goodstep, PetscReal *goodtime, PetscInt *rejects)
{
  PetscFunctionBegin;
  PetscValidPointer(guard, 1);
  if (E0) *E0 = guard->E0;
  if (content) *content = guard->C0;
  if (startstep) *startstep = guard->startstep;
  if (goodstep) *goodstep = guard->good.step;
  if (goodtime) *goodtime = guard->good.time;
  if (rejects) *rejects = guard->rejects;
  PetscFunctionReturn(0);
}

/*@C
  TSMechGuardRestore - Gives the TS its last good state back (solution, time and step number).

  Collective

  Input Parameters:
+ guard        - the guard
- beforegrowth - after an energy blow-up, the last state whose energy had not grown yet instead
                 (the states in between hold the growing mode)

  Level: intermediate

.seealso: `TSMechSetGuard()`, `TSMechGuardGetFailure()`
@*/
PetscErrorCode TSMechGuardRestore(TSMechGuard guard, PetscBool beforegrowth)
{
  PetscFunctionBegin;
  PetscValidPointer(guard, 1);
  PetscCall(GuardRestore(guard, beforegrowth && guard->fail == TSMECH_GUARD_BLOWUP && guard->sane.x ? &guard->sane : &guard->good));
  PetscFunctionReturn(0);
}
