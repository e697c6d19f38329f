/*
  leapfrog2, Stormer-Verlet in velocity form written with the public API only: a TS type of one's
  own for test_type_ops (registered there with TSMechRegister()) and, built as libleapfrog2.so, a
  plug-in of the driver (-dll_append, PetscDLLibraryRegister_leapfrog2()).
    v1/2 = v - tau/2 M^{-1} f(t, q, v),  q+ = q + tau v1/2,  v+ = v1/2 - tau/2 M^{-1} f(t + tau, q+, v1/2)
  Its option -ts_leapfrog2_substeps <n> makes each step n substeps of tau/n.
*/
#include "leapfrog2.h"
#include <petsc/private/tsimpl.h>

typedef struct {
  Vec      f, a;
  PetscInt substeps;
} TS_Leapfrog2;

/* a = -M^{-1} f(t, q, v) */
static PetscErrorCode Leapfrog2Accel(TS ts, PetscReal t, Vec q, Vec v, Vec a)
{
  TS_Leapfrog2 *lf = (TS_Leapfrog2 *)ts->data;
  MechSystem    sys;

  PetscFunctionBegin;
  PetscCall(TSMechGetSystem(ts, &sys));
  PetscCall(MechSystemComputeForce(sys, t, q, v, lf->f));
  PetscCall(MechSystemSolveMass(sys, lf->f, a));
  PetscCall(VecScale(a, -1.0));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSStep_Leapfrog2(TS ts)
{
  TS_Leapfrog2 *lf  = (TS_Leapfrog2 *)ts->data;
  PetscReal     tau = ts->time_step / lf->substeps, t = ts->ptime;
  Vec           q, v;

  PetscFunctionBegin;
  PetscCall(TS2GetSolution(ts, &q, &v));
  PetscCheck(v, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONGSTATE, "leapfrog2 needs the state as (q, v) (TS2SetSolution()): it was given a first-order form");
  for (PetscInt i = 0; i < lf->substeps; i++, t += tau) {
    PetscCall(Leapfrog2Accel(ts, t, q, v, lf->a));
    PetscCall(VecAXPY(v, 0.5 * tau, lf->a));
    PetscCall(VecAXPY(q, tau, v));
    PetscCall(Leapfrog2Accel(ts, t + tau, q, v, lf->a));
    PetscCall(VecAXPY(v, 0.5 * tau, lf->a));
  }
  ts->ptime += ts->time_step;
  PetscFunctionReturn(0);
}

/* Its option that takes a value (Leapfrog2Valued: listed at its registration) */
static PetscErrorCode TSSetFromOptions_Leapfrog2(TS ts, PetscOptionItems *PetscOptionsObject)
{
  TS_Leapfrog2 *lf = (TS_Leapfrog2 *)ts->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Leapfrog2 (Stormer-Verlet in velocity form) options");
  PetscCall(PetscOptionsInt("-ts_leapfrog2_substeps", "Leapfrog substeps of tau/n per step", "TSLEAPFROG2", lf->substeps, &lf->substeps, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(0);
}

static PetscErrorCode TSSetUp_Leapfrog2(TS ts)
{
  TS_Leapfrog2 *lf = (TS_Leapfrog2 *)ts->data;

  PetscFunctionBegin;
  PetscCheck(lf->substeps >= 1, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "-ts_leapfrog2_substeps %" PetscInt_FMT ": must be at least 1", lf->substeps);
  PetscCall(VecDuplicate(ts->vec_sol, &lf->f));
  PetscCall(VecDuplicate(ts->vec_sol, &lf->a));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSReset_Leapfrog2(TS ts)
{
  TS_Leapfrog2 *lf = (TS_Leapfrog2 *)ts->data;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&lf->f));
  PetscCall(VecDestroy(&lf->a));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSDestroy_Leapfrog2(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSReset_Leapfrog2(ts));
  PetscCall(PetscFree(ts->data));
  PetscFunctionReturn(0);
}

PetscErrorCode TSCreate_Leapfrog2(TS ts)
{
  TS_Leapfrog2 *lf;

  PetscFunctionBegin;
  ts->ops->setup          = TSSetUp_Leapfrog2;
  ts->ops->setfromoptions = TSSetFromOptions_Leapfrog2;
  ts->ops->step           = TSStep_Leapfrog2;
  ts->ops->reset          = TSReset_Leapfrog2;
  ts->ops->destroy        = TSDestroy_Leapfrog2;
  ts->default_adapt_type  = TSADAPTNONE;
  PetscCall(PetscNew(&lf));
  ts->data     = (void *)lf;
  lf->substeps = 1;
  PetscFunctionReturn(0);
}

PetscErrorCode Leapfrog2Properties(TS ts, TSMechProperties *p)
{
  PetscFunctionBegin;
  (void)ts;
  p->explicit_   = PETSC_TRUE;
  p->order       = 2;
  p->secondorder = PETSC_TRUE;
  p->restart     = TSMECH_RESTART_FIXED_STEP;
  PetscFunctionReturn(0);
}

/* What leapfrog2 says of itself at its registration */
const char        Leapfrog2Description[] = "Stormer-Verlet (leapfrog) in velocity form, explicit, order 2";
const char *const Leapfrog2Valued[]      = {"-ts_leapfrog2_substeps", NULL};

/*
  PetscDLLibraryRegister_leapfrog2 - The entry point PETSc calls when libleapfrog2.so is loaded with
  -dll_append: leapfrog2 is then a type of the driver (its -help, its check of options given
  without a value, its runs) with no line of the driver changed.
*/
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_leapfrog2(void)
{
  PetscFunctionBegin;
  PetscCall(TSMechRegister("leapfrog2", Leapfrog2Description, TSCreate_Leapfrog2, Leapfrog2Properties, Leapfrog2Valued));
  PetscFunctionReturn(0);
}
