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

/*@C
  TSTheta2SetMatrixFree - Applies the Jacobian through the attached system's tangent action
  (`MechSystemSetTangentAction()`) and uses the assembled M + theta tau D + theta^2 tau^2 K only as
  the preconditioning matrix.

  Logically Collective

  Input Parameters:
+ ts     - the TS of the theta2 family
. flg    - PETSC_TRUE for the matrix-free Jacobian
- growth - the preconditioning matrix is assembled again when the linear iterations per Newton
           iteration exceed growth times those of the first step after the last assembly (0: at
           every Newton iteration; PETSC_DEFAULT keeps the current value, 1.1 unless set)

  Options Database Keys:
+ -ts_theta_matrix_free <false> - the matrix-free Jacobian
- -ts_theta_pc_rebuild_growth <1.1> - the growth factor

  Notes:
  The preconditioning matrix is also assembled again when theta tau changes and after a failed
  solve; on a linear system, once. A model without a tangent action is refused at set-up.

  Level: intermediate

.seealso: `TSTheta2GetMatrixFree()`, `TSTheta2SetPCDefinite()`, `MechSystemCreateOperatorShell()`
@*/
PetscErrorCode TSTheta2SetMatrixFree(TS ts, PetscBool flg, PetscReal growth)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscTryMethod(ts, "TSTheta2SetMatrixFree_C", (TS, PetscBool, PetscReal), (ts, flg, growth));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetMatrixFree - Whether the Jacobian is matrix-free, the rebuild growth, and how many
  times the preconditioning matrix has been assembled.

  Not Collective

  Input Parameter:
. ts - the TS of the theta2 family

  Output Parameters (each may be NULL):
+ flg      - PETSC_TRUE for the matrix-free Jacobian
. growth   - the rebuild growth factor
- rebuilds - the assemblies of the preconditioning matrix so far

  Level: intermediate

.seealso: `TSTheta2SetMatrixFree()`
@*/
PetscErrorCode TSTheta2GetMatrixFree(TS ts, PetscBool *flg, PetscReal *growth, PetscInt *rebuilds)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscUseMethod(ts, "TSTheta2GetMatrixFree_C", (TS, PetscBool *, PetscReal *, PetscInt *), (ts, flg, growth, rebuilds));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2SetPCDefinite - Builds the preconditioning matrix M + theta tau D~ + theta^2 tau^2 K~ from
  the attached system's semidefinite approximation of its tangents (MechSystemSetTangentDefinite():
  compressed springs clamped) while the Jacobian stays exact, so Newton converges to the same
  answer and CG with incomplete Cholesky or algebraic multigrid keeps a definite preconditioner.

  Logically Collective

  Input Parameters:
+ ts  - the TS (theta2, beuler2, cn2, midpoint2)
- flg - PETSC_TRUE to use the semidefinite approximation

  Options Database Key:
. -ts_theta_pc_definite <bool> - default false

  Notes:
  With the matrix-free Jacobian (TSTheta2SetMatrixFree()) the assembled preconditioning matrix is
  the semidefinite one, at no extra cost. With the assembled Jacobian the option adds a second
  matrix of the same size, assembled at every Jacobian evaluation beside the exact one. A system
  without the approximation (or with none attached) keeps its exact tangent.

  Level: intermediate

.seealso: `TSTheta2SetMatrixFree()`, `MechSystemSetTangentDefinite()`, `MechSystemComputeOperatorDefinite()`
@*/
PetscErrorCode TSTheta2SetPCDefinite(TS ts, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ts, flg, 2);
  PetscTryMethod(ts, "TSTheta2SetPCDefinite_C", (TS, PetscBool), (ts, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetPCDefinite - Whether the preconditioning matrix is built from the semidefinite
  tangent approximation.

  Not Collective

  Input Parameter:
. ts - the TS of the theta2 family

  Output Parameter:
. flg - PETSC_TRUE if it is

  Level: intermediate

.seealso: `TSTheta2SetPCDefinite()`
@*/
PetscErrorCode TSTheta2GetPCDefinite(TS ts, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidBoolPointer(flg, 2);
  PetscUseMethod(ts, "TSTheta2GetPCDefinite_C", (TS, PetscBool *), (ts, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2SetPCReduced - With the matrix-free Jacobian, builds the preconditioning matrix on the
  attached system's reduced pattern (`MechSystemCreateOperatorReduced()`: the nearest-neighbour
  couplings of the grid models) and lets the system free the matrix of its full pattern, for a
  smaller resident memory.

  Logically Collective

  Input Parameters:
+ ts  - the TS (theta2, beuler2, cn2, midpoint2)
- flg - PETSC_TRUE to use the reduced preconditioning matrix

  Options Database Key:
. -ts_theta_pc_reduced <bool> - default false

  Notes:
  Only with -ts_theta_matrix_free (`TSTheta2SetMatrixFree()`); the model must give a pattern
  builder (`MechSystemSetTangentPattern()`), or set-up fails. The preconditioning matrix and its
  factorization then hold only the kept couplings (on the cloth 5 of 13 blocks per row): the
  Jacobian stays exact, so Newton converges to the same answer to the solver tolerance, with
  more linear iterations. It combines with `TSTheta2SetPCDefinite()`. Set it before `TSSetUp()`.

  Level: intermediate

.seealso: `TSTheta2SetMatrixFree()`, `TSTheta2SetPCDefinite()`, `MechSystemSetTangentPattern()`, `MechSystemCreateOperatorReduced()`
@*/
PetscErrorCode TSTheta2SetPCReduced(TS ts, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ts, flg, 2);
  PetscTryMethod(ts, "TSTheta2SetPCReduced_C", (TS, PetscBool), (ts, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetPCReduced - Whether the matrix-free mode's preconditioning matrix has the system's
  reduced pattern.

  Not Collective

  Input Parameter:
. ts - the TS of the theta2 family

  Output Parameter:
. flg - PETSC_TRUE if it has

  Level: intermediate

.seealso: `TSTheta2SetPCReduced()`
@*/
PetscErrorCode TSTheta2GetPCReduced(TS ts, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidBoolPointer(flg, 2);
  PetscUseMethod(ts, "TSTheta2GetPCReduced_C", (TS, PetscBool *), (ts, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2SetPCLagCoarse - With the matrix-free Jacobian and a `PCMG` with Galerkin coarse
  operators (-pc_type mg on the grid models), lets a rebuild of the preconditioning matrix for
  growing linear iterations renew only the finest level, the coarse levels keeping the Galerkin
  products of an earlier preconditioning matrix.

  Logically Collective

  Input Parameters:
+ ts  - the TS (theta2, beuler2, cn2, midpoint2)
- flg - PETSC_TRUE to lag the coarse levels

  Options Database Key:
. -ts_theta_pc_lag_coarse <bool> - default true

  Notes:
  Every level is rebuilt for the first preconditioning matrix, when theta tau changes, after a
  failed solve, and when the first step after a finest-level rebuild still needs more than twice
  the linear iterations per Newton iteration of the step after the last full rebuild. The Jacobian is unchanged, so the answer is the same to
  the solver tolerance (docs/solvers.md §4). Without `PCMG` it has no effect.

  Level: intermediate

.seealso: `TSTheta2GetPCLagCoarse()`, `TSTheta2SetMatrixFree()`, `MechSystemSetUpPCMG()`
@*/
PetscErrorCode TSTheta2SetPCLagCoarse(TS ts, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ts, flg, 2);
  PetscTryMethod(ts, "TSTheta2SetPCLagCoarse_C", (TS, PetscBool), (ts, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetPCLagCoarse - Whether a rebuild for growing iterations keeps the multigrid coarse
  levels, and how many rebuilds renewed every level.

  Not Collective

  Input Parameter:
. ts - the TS of the theta2 family

  Output Parameters (each may be NULL):
+ flg    - PETSC_TRUE if the coarse levels are lagged
- coarse - the rebuilds of the preconditioning matrix that renewed every level so far (all of
           them without `PCMG`; see `TSTheta2GetMatrixFree()` for the total)

  Level: intermediate

.seealso: `TSTheta2SetPCLagCoarse()`
@*/
PetscErrorCode TSTheta2GetPCLagCoarse(TS ts, PetscBool *flg, PetscInt *coarse)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscUseMethod(ts, "TSTheta2GetPCLagCoarse_C", (TS, PetscBool *, PetscInt *), (ts, flg, coarse));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2SetEWSafeguard - With Eisenstat-Walker forcing terms (`SNESKSPSetUseEW()`), stops each
  linear solve of Newton's method once its residual ||F + J s|| is below factor times Newton's
  tolerance max(atol, rtol ||F_0||): Kelley's safeguard against oversolving the last Newton
  iteration of a step.

  Logically Collective

  Input Parameters:
+ ts     - the TS (theta2, beuler2, cn2, midpoint2)
- factor - in [0, 1); 0 turns the safeguard off

  Options Database Key:
. -ts_theta_ew_safeguard <0.5> - the factor

  Notes:
  It is the KSP's absolute tolerance, set at every Newton iteration (never below the user's
  -ksp_atol). CG tests the unpreconditioned residual under EW, so that is ||F + J s||; a KSP that
  tests another norm, and a run without EW, are left alone (docs/solvers.md §3).

  Level: intermediate

.seealso: `TSTheta2GetEWSafeguard()`, `SNESKSPSetUseEW()`
@*/
PetscErrorCode TSTheta2SetEWSafeguard(TS ts, PetscReal factor)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidLogicalCollectiveReal(ts, factor, 2);
  PetscCheck(factor >= 0 && factor < 1, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "Eisenstat-Walker safeguard %g must be in [0, 1) (-ts_theta_ew_safeguard)", (double)factor);
  PetscTryMethod(ts, "TSTheta2SetEWSafeguard_C", (TS, PetscReal), (ts, factor));
  PetscFunctionReturn(0);
}

/*@C
  TSTheta2GetEWSafeguard - The fraction of Newton's tolerance at which a linear solve stops under
  Eisenstat-Walker forcing terms.

  Not Collective

  Input Parameter:
. ts - the TS of the theta2 family

  Output Parameter:
. factor - the factor (0: off)

  Level: intermediate

.seealso: `TSTheta2SetEWSafeguard()`
@*/
PetscErrorCode TSTheta2GetEWSafeguard(TS ts, PetscReal *factor)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidRealPointer(factor, 2);
  PetscUseMethod(ts, "TSTheta2GetEWSafeguard_C", (TS, PetscReal *), (ts, factor));
  PetscFunctionReturn(0);
}

/*@
  TSTheta2SetNonlinearElimination - Before each step's Newton solve, runs Newton on the points near
  the system's fixed dofs alone, the rest of the state held (nonlinear elimination): the sharp local
  motion a constraint starts, which no extrapolated guess predicts, is then solved for on its patch
  instead of by global Newton iterations.

  Logically Collective

  Input Parameters:
+ ts    - the TS (theta2, beuler2, cn2, midpoint2; Newton mode, not -ts_theta_linearized)
. flg   - PETSC_TRUE to use it
. depth - graph distance of the patch from the fixed dofs in the pattern of the preconditioning
          matrix, or PETSC_DECIDE: the distance that covers reach decay lengths of the step
- reach - the patch's radius in decay lengths theta tau sqrt(k/m) of one step's operator, for the
          automatic depth (PETSC_DEFAULT: 8)

  Options Database Keys:
+ -ts_theta_ne <false> - use it
. -ts_theta_ne_depth <d> - the distance (turns it on)
. -ts_theta_ne_reach <8> - the automatic patch's radius in decay lengths
. -ts_theta_ne_max_it <3> - local Newton iterations at most
. -ts_theta_ne_rtol <1e-4> - reduction of the patch residual at which they stop
- -ts_theta_ne_ksp_type, -ts_theta_ne_pc_type, ... - the patch's linear solver (default GMRES with ILU)

  Notes:
  The model provides its force and tangent on a patch (`MechSystemSetPatch()`: the grid models
  chain, cloth and lattice) and a diagonal mass. The automatic depth estimates k/m from the
  tangent next to the fixed dofs at the first step (grid models: a structured grid, whose stencil
  width gives the spacings per graph step) and follows theta tau; on the cloth at 1 ms it is about
  n/16. Each rank eliminates its own patch points with the values of other ranks held, so the work
  falls on the ranks that hold the fixed dofs. The result is the same to Newton's tolerance
  (docs/solvers.md §3).

  Level: intermediate

.seealso: `TSTheta2GetNonlinearElimination()`, `MechSystemSetPatch()`, `MechSystemSetFixed()`
@*/
PetscErrorCode TSTheta2SetNonlinearElimination(TS ts, PetscBool flg, PetscInt depth, PetscReal reach)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ts, flg, 2);
  PetscValidLogicalCollectiveInt(ts, depth, 3);
  PetscValidLogicalCollectiveReal(ts, reach, 4);
  PetscCheck(depth >= 1 || depth == PETSC_DECIDE, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "Nonlinear elimination depth %" PetscInt_FMT " must be at least 1, or PETSC_DECIDE (-ts_theta_ne_depth)", depth);
  PetscCheck(reach > 0 || reach == (PetscReal)PETSC_DEFAULT, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "Nonlinear elimination reach %g must be positive (-ts_theta_ne_reach)", (double)reach);
  PetscTryMethod(ts, "TSTheta2SetNonlinearElimination_C", (TS, PetscBool, PetscInt, PetscReal), (ts, flg, depth, reach));
  PetscFunctionReturn(0);
}

/*@
  TSTheta2GetNonlinearElimination - Whether nonlinear elimination is on, the depth of its patch and
  the local Newton iterations it has done.

  Collective

  Input Parameter:
. ts - the TS (theta2 family)

  Output Parameters:
+ flg   - whether it is on, or NULL
. depth - the graph distance of the patch in use (0 before the first step), or NULL
- its   - local Newton iterations so far, summed over the ranks, or NULL

  Level: intermediate

.seealso: `TSTheta2SetNonlinearElimination()`
@*/
PetscErrorCode TSTheta2GetNonlinearElimination(TS ts, PetscBool *flg, PetscInt *depth, PetscInt *its)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscUseMethod(ts, "TSTheta2GetNonlinearElimination_C", (TS, PetscBool *, PetscInt *, PetscInt *), (ts, flg, depth, its));
  PetscFunctionReturn(0);
}
