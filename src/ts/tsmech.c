/*
  Attaching a MechSystem to a TS: the I2Function/I2Jacobian that TSALPHA2 and the tsmech types
  use, and the choice between the second-order and the automatic first-order form.
*/
#include "../mech/mechimpl.h"
#include "scheme.h"
#include <petsc/private/tsimpl.h>

/* F(t, q, v, a) = M a + f(t, q, v) */
static PetscErrorCode MechI2Function(TS ts, PetscReal t, Vec q, Vec v, Vec a, Vec F, void *ctx)
{
  MechSystem sys = (MechSystem)ctx;

  PetscFunctionBegin;
  (void)ts;
  PetscCall(MechSystemComputeForce(sys, t, q, v, F));
  PetscCall(MatMultAdd(sys->Mfix, a, F, F));
  PetscFunctionReturn(0);
}

/* dF/dq + shiftV dF/dv + shiftA dF/da = K + shiftV D + shiftA M */
static PetscErrorCode MechI2Jacobian(TS ts, PetscReal t, Vec q, Vec v, Vec a, PetscReal shiftV, PetscReal shiftA, Mat J, Mat P, void *ctx)
{
  MechSystem sys = (MechSystem)ctx;

  PetscFunctionBegin;
  (void)ts;
  (void)a;
  PetscCall(MechSystemComputeOperator(sys, t, q, v, 1.0, shiftV, shiftA, P));
  if (J != P) {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(0);
}

/*@C
  TSMechSetSystem - Attaches a mechanical system to a TS and installs the I2Function/I2Jacobian.
  Call before TSSetFromOptions().
@*/
PetscErrorCode TSMechSetSystem(TS ts, MechSystem sys)
{
  Vec         r;
  Mat         J;
  const char *prefix;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 2);
  PetscCall(MechSystemSetUp(sys));
  PetscCall(TSGetOptionsPrefix(ts, &prefix));
  PetscCall(MechSystemSetOptionsPrefix(sys, prefix));
  PetscCall(PetscObjectCompose((PetscObject)ts, "TSMech_System", (PetscObject)sys));
  PetscCall(MatCreateVecs(sys->M, &r, NULL));
  PetscCall(MechSystemCreateOperator(sys, &J));
  PetscCall(TSSetI2Function(ts, r, MechI2Function, sys));
  PetscCall(TSSetI2Jacobian(ts, J, J, MechI2Jacobian, sys));
  PetscCall(VecDestroy(&r));
  PetscCall(MatDestroy(&J));
  /* the system's DM is not given to the TS: the first-order form has 2N unknowns, not N */
  PetscFunctionReturn(0);
}

/*@C
  TSMechGetSystem - Gets the system attached with TSMechSetSystem() (NULL if none).
@*/
PetscErrorCode TSMechGetSystem(TS ts, MechSystem *sys)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscCall(PetscObjectQuery((PetscObject)ts, "TSMech_System", (PetscObject *)sys));
  PetscFunctionReturn(0);
}

/*@C
  TSMechSetSolution - Gives the TS the initial state (q, v), in the form its type integrates.
  Fixed dofs are set to their prescribed values (q) and to rest (v) first. For a linear system
  the problem is declared TS_LINEAR (one linear solve per step) for every type but TSALPHA2.
@*/
PetscErrorCode TSMechSetSolution(TS ts, Vec q, Vec v)
{
  MechSystem sys;
  PetscBool  second;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscCall(TSMechGetSystem(ts, &sys));
  if (sys) PetscCall(MechSystemApplyFixed(sys, q, v));
  PetscCall(TSMechIsSecondOrder(ts, &second));
  if (sys && sys->linear) {
    PetscBool alpha2;
    /* A linear system needs one linear solve per step (SNESKSPONLY), except under TSALPHA2,
       which updates its stage in the residual callback and would return a stale state
       (docs/schemes.md §7). The options are read again so that an explicit -snes_type still wins. */
    PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSALPHA2, &alpha2));
    if (!alpha2) {
      SNES snes;
      PetscCall(TSSetProblemType(ts, TS_LINEAR));
      PetscCall(TSGetSNES(ts, &snes));
      PetscCall(SNESSetFromOptions(snes));
    }
  }
  if (second) {
    PetscCall(TS2SetSolution(ts, q, v));
  } else {
    const char *type;
    PetscCall(TSGetType(ts, &type));
    PetscCheck(sys, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONGSTATE, "TS type %s is a first-order type: it needs a MechSystem (TSMechSetSystem()) to build the form [q; v]", type);
    PetscCall(MechSystemSetUpFirstOrder(sys, ts, q, v));
  }
  PetscFunctionReturn(0);
}

/*@C
  TSMechGetSolution - Copies the current state of the TS into q and v.
@*/
PetscErrorCode TSMechGetSolution(TS ts, Vec q, Vec v)
{
  PetscBool second;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscCall(TSMechIsSecondOrder(ts, &second));
  if (second) {
    Vec qs, vs;
    PetscCall(TS2GetSolution(ts, &qs, &vs));
    if (q) PetscCall(VecCopy(qs, q));
    if (v) PetscCall(VecCopy(vs, v));
  } else {
    Vec X;
    PetscCall(TSGetSolution(ts, &X));
    PetscCall(MechFirstOrderUnpack(ts, X, q, v));
  }
  PetscFunctionReturn(0);
}
