/*
  The public interface of gauss2 (TSGAUSS2): setters and getters that dispatch to the type's own
  through PetscTryMethod() and PetscUseMethod(), as PETSc's TS types do. The type itself is in
  gauss2.c.
*/
#include "tsimpl2.h"

/*@
  TSGauss2SetStages - Sets the number of stages of `TSGAUSS2`: 1 (the implicit midpoint rule,
  order 2), 2 (order 4) or 3 (order 6).

  Logically Collective

  Input Parameters:
+ ts - the TS, of type `TSGAUSS2` (other types ignore the call)
- s  - the number of stages

  Level: intermediate

  Note:
  The option -ts_gauss2_stages sets the same (`TSGAUSS2`).

.seealso: `TSGAUSS2`, `TSGauss2GetStages()`
@*/
PetscErrorCode TSGauss2SetStages(TS ts, PetscInt s)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidLogicalCollectiveInt(ts, s, 2);
  PetscTryMethod(ts, "TSGauss2SetStages_C", (TS, PetscInt), (ts, s));
  PetscFunctionReturn(0);
}

/*@
  TSGauss2GetStages - Gets the number of stages of `TSGAUSS2`.

  Not Collective

  Input Parameter:
. ts - the TS, of type `TSGAUSS2`

  Output Parameter:
. s - the number of stages

  Level: intermediate

.seealso: `TSGAUSS2`, `TSGauss2SetStages()`
@*/
PetscErrorCode TSGauss2GetStages(TS ts, PetscInt *s)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidIntPointer(s, 2);
  PetscUseMethod(ts, "TSGauss2GetStages_C", (TS, PetscInt *), (ts, s));
  PetscFunctionReturn(0);
}
