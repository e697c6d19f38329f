/*
  The public interface of the theta family (TSTHETA2 and its fixed members beuler2, cn2, midpoint2,
  euler2): setters and getters that dispatch to the type's own through PetscTryMethod() and
  PetscUseMethod(), as PETSc's TS types do. The type itself is in theta2.c.
*/
#include "tsimpl2.h"

/*@C
  TSTheta2SetTheta - Sets theta, the location of the stage of the theta method in velocity form
  (docs/schemes.md §2): 0 explicit Euler, 1/2 the midpoint (one-leg) or trapezoidal (endpoint)
  rule, 1 implicit Euler.

  Logically Collective

  Input Parameters:
+ ts    - the TS of type `TSTHETA2` (the fixed members `TSBEULER2`, `TSCN2`, `TSMIDPOINT2`,
          `TSEULER2` accept their own theta only)
- theta - theta in [0, 1]

  Options Database Key:
. -ts_theta_theta <0.5> - theta

  Level: beginner

.seealso: `TSTheta2GetTheta()`, `TSTheta2SetEndpoint()`, `TSTHETA2`
@*/
PetscErrorCode TSTheta2SetTheta(TS ts, PetscReal theta)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscTryMethod(ts, "TSTheta2SetTheta_C", (TS, PetscReal), (ts, theta));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetTheta - Gets theta of a TS of the theta2 family.

  Not Collective

  Input Parameter:
. ts - the TS (`TSTHETA2`, `TSBEULER2`, `TSCN2`, `TSMIDPOINT2`, `TSEULER2`)

  Output Parameter:
. theta - theta in [0, 1]

  Level: beginner

.seealso: `TSTheta2SetTheta()`
@*/
PetscErrorCode TSTheta2GetTheta(TS ts, PetscReal *theta)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscUseMethod(ts, "TSTheta2GetTheta_C", (TS, PetscReal *), (ts, theta));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2SetEndpoint - Chooses the endpoint form, f averaged at both ends of the step
  (trapezoidal in f at theta = 1/2), or the one-leg form, f once at the theta point (the
  symplectic midpoint rule at theta = 1/2) (docs/schemes.md §2, §3).

  Logically Collective

  Input Parameters:
+ ts  - the TS of type `TSTHETA2` (`TSCN2` and `TSMIDPOINT2` have their form fixed)
- flg - PETSC_TRUE for the endpoint form, PETSC_FALSE (default) for the one-leg form

  Options Database Key:
. -ts_theta_endpoint <false> - the endpoint form

  Level: intermediate

.seealso: `TSTheta2GetEndpoint()`, `TSTheta2SetTheta()`
@*/
PetscErrorCode TSTheta2SetEndpoint(TS ts, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscTryMethod(ts, "TSTheta2SetEndpoint_C", (TS, PetscBool), (ts, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetEndpoint - Whether a TS of the theta2 family uses the endpoint form.

  Not Collective

  Input Parameter:
. ts - the TS

  Output Parameter:
. flg - PETSC_TRUE for the endpoint form, PETSC_FALSE for the one-leg form

  Level: intermediate

.seealso: `TSTheta2SetEndpoint()`
@*/
PetscErrorCode TSTheta2GetEndpoint(TS ts, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscUseMethod(ts, "TSTheta2GetEndpoint_C", (TS, PetscBool *), (ts, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2SetInitialGuessExtrapolate - Starts Newton from v+ extrapolated linearly from the
  previous step, instead of from v.

  Logically Collective

  Input Parameters:
+ ts  - the TS of the theta2 family
- flg - PETSC_TRUE to extrapolate

  Options Database Key:
. -ts_theta_initial_guess_extrapolate <false> - extrapolate the initial guess

  Level: intermediate

.seealso: `TSTheta2GetInitialGuessExtrapolate()`, `TSTheta2SetLinearized()`
@*/
PetscErrorCode TSTheta2SetInitialGuessExtrapolate(TS ts, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscTryMethod(ts, "TSTheta2SetInitialGuessExtrapolate_C", (TS, PetscBool), (ts, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetInitialGuessExtrapolate - Whether Newton's initial guess is extrapolated from the
  previous step.

  Not Collective

  Input Parameter:
. ts - the TS of the theta2 family

  Output Parameter:
. flg - PETSC_TRUE if extrapolated

  Level: intermediate

.seealso: `TSTheta2SetInitialGuessExtrapolate()`
@*/
PetscErrorCode TSTheta2GetInitialGuessExtrapolate(TS ts, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscUseMethod(ts, "TSTheta2GetInitialGuessExtrapolate_C", (TS, PetscBool *), (ts, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2SetLinearized - Makes every step exactly one linear solve, with K and D at the start of
  the step, from the given initial guess (the "linearized implicit Euler" of Baraff and Witkin
  1998 and its variants; docs/schemes.md §4 lists the guesses, their right-hand sides and their
  stability).

  Logically Collective

  Input Parameters:
+ ts    - the TS of the theta2 family
. flg   - PETSC_TRUE for one linear solve per step
- guess - the initial guess, `TSTHETA2_GUESS_ZERO`, `_VELOCITY`, `_PREDICTOR`, `_PREDICTOR_ZERO`,
          `_PREDICTOR_EXTRAPOLATE` or `_EXTRAPOLATE`

  Options Database Keys:
+ -ts_theta_linearized <false> - one linear solve per step
- -ts_theta_linearized_guess <velocity> - zero, velocity, predictor, predictor_zero,
  predictor_extrapolate, extrapolate

  Level: intermediate

.seealso: `TSTheta2GetLinearized()`, `TSTheta2Guess`
@*/
PetscErrorCode TSTheta2SetLinearized(TS ts, PetscBool flg, TSTheta2Guess guess)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscTryMethod(ts, "TSTheta2SetLinearized_C", (TS, PetscBool, TSTheta2Guess), (ts, flg, guess));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetLinearized - Whether a TS of the theta2 family takes one linear solve per step, and
  from which initial guess.

  Not Collective

  Input Parameter:
. ts - the TS

  Output Parameters:
+ flg   - PETSC_TRUE in the linearized mode (may be NULL)
- guess - its initial guess (may be NULL)

  Level: intermediate

.seealso: `TSTheta2SetLinearized()`
@*/
PetscErrorCode TSTheta2GetLinearized(TS ts, PetscBool *flg, TSTheta2Guess *guess)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscUseMethod(ts, "TSTheta2GetLinearized_C", (TS, PetscBool *, TSTheta2Guess *), (ts, flg, guess));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetPreviousVelocity - Copies the velocity at the start of the previous step, which the
  extrapolating guesses use, for a checkpoint.

  Collective

  Input Parameters:
+ ts - the TS of the theta2 family
- v  - a vector like the TS's velocity, filled if there is a previous step

  Output Parameter:
. has - whether there is a previous step

  Level: developer

.seealso: `TSTheta2SetPreviousVelocity()`, `MechCheckpointWrite()`
@*/
PetscErrorCode TSTheta2GetPreviousVelocity(TS ts, Vec v, PetscBool *has)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscUseMethod(ts, "TSTheta2GetPreviousVelocity_C", (TS, Vec, PetscBool *), (ts, v, has));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2SetPreviousVelocity - Gives a restarted TS the velocity at the start of the previous
  step (its position is taken from the TS's solution and its time as the current time minus the
  time step, both set before the call), so the run continues as it would have.

  Collective

  Input Parameters:
+ ts - the TS of the theta2 family
- v  - the velocity at the start of the previous step

  Level: developer

.seealso: `TSTheta2GetPreviousVelocity()`, `MechCheckpointRestore()`
@*/
PetscErrorCode TSTheta2SetPreviousVelocity(TS ts, Vec v)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscUseMethod(ts, "TSTheta2SetPreviousVelocity_C", (TS, Vec), (ts, v));
  PetscFunctionReturn(0);
}
