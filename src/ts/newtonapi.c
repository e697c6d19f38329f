/*
  The Newton settings every implicit type of tsmech shares: public setters and getters on a TS
  that reach the Newton object of its type (newton2.c) through the function the type composes,
  "TSMechGetNewton_C" (the theta2 family, gauss2, discgrad2). One API for the types' common
  policy, where each type once forwarded its own; the options keep each type's prefix
  (-ts_theta_, -ts_gauss2_, -ts_discgrad2_). A type without the object (explicit, or PETSc's)
  ignores the setters, as PETSc's TS<Type>Set functions ignore other types; its getters fail.
*/
#include "tsimpl2.h"

/* The Newton object of the type of ts, or NULL */
static PetscErrorCode TSMechQueryNewton(TS ts, TSMechNewton *newton)
{
  PetscErrorCode (*get)(TS, TSMechNewton *) = NULL;

  PetscFunctionBegin;
  *newton = NULL;
  PetscCall(PetscObjectQueryFunction((PetscObject)ts, "TSMechGetNewton_C", &get));
  if (get) PetscCall((*get)(ts, newton));
  PetscFunctionReturn(0);
}

/* The Newton object of the type of ts, which must have one */
static PetscErrorCode TSMechUseNewton(TS ts, TSMechNewton *newton)
{
  const char *type;

  PetscFunctionBegin;
  PetscCall(TSMechQueryNewton(ts, newton));
  PetscCall(TSGetType(ts, &type));
  PetscCheck(*newton, PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP, "TS type %s has no Newton solver of tsmech (an implicit tsmech type has one)", type ? type : "(not set)");
  PetscFunctionReturn(0);
}

/*@C
  TSMechSetMatrixFree - Applies the Jacobian through the attached system's tangent action
  (`MechSystemSetTangentAction()`) and uses the assembled M + theta tau D + theta^2 tau^2 K only as
  the preconditioning matrix.

  Logically Collective

  Input Parameters:
+ ts     - the TS of an implicit tsmech type
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

  The settings of the Newton object (this one and the other TSMechSet functions) are shared by
  every implicit type of tsmech; their options carry the type's prefix (ts_theta_ above, the
  theta2 family's; ts_gauss2_ and ts_discgrad2_ for those types).

  Level: intermediate

.seealso: `TSMechGetMatrixFree()`, `TSMechSetPCDefinite()`, `MechSystemCreateOperatorShell()`
@*/
PetscErrorCode TSMechSetMatrixFree(TS ts, PetscBool flg, PetscReal growth)
{
  TSMechNewton newton;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscCall(TSMechQueryNewton(ts, &newton));
  if (newton) PetscCall(TSMechNewtonSetMatrixFree(newton, flg, growth));
  PetscFunctionReturn(0);
}

/*@C
  TSMechGetMatrixFree - Whether the Jacobian is matrix-free, the rebuild growth, and how many
  times the preconditioning matrix has been assembled.

  Not Collective

  Input Parameter:
. ts - the TS of an implicit tsmech type

  Output Parameters (each may be NULL):
+ flg      - PETSC_TRUE for the matrix-free Jacobian
. growth   - the rebuild growth factor
- rebuilds - the assemblies of the preconditioning matrix so far

  Level: intermediate

.seealso: `TSMechSetMatrixFree()`
@*/
PetscErrorCode TSMechGetMatrixFree(TS ts, PetscBool *flg, PetscReal *growth, PetscInt *rebuilds)
{
  TSMechNewton newton;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscCall(TSMechUseNewton(ts, &newton));
  PetscCall(TSMechNewtonGetMatrixFree(newton, flg, growth, rebuilds));
  PetscFunctionReturn(0);
}

/*@C
  TSMechSetPCDefinite - Builds the preconditioning matrix M + theta tau D~ + theta^2 tau^2 K~ from
  the attached system's semidefinite approximation of its tangents (MechSystemSetTangentDefinite():
  compressed springs clamped) while the Jacobian stays exact, so Newton converges to the same
  answer and CG with incomplete Cholesky or algebraic multigrid keeps a definite preconditioner.

  Logically Collective

  Input Parameters:
+ ts  - the TS of an implicit tsmech type
- flg - PETSC_TRUE to use the semidefinite approximation

  Options Database Key:
. -ts_theta_pc_definite <bool> - default false

  Notes:
  With the matrix-free Jacobian (TSMechSetMatrixFree()) the assembled preconditioning matrix is
  the semidefinite one, at no extra cost. With the assembled Jacobian the option adds a second
  matrix of the same size, assembled at every Jacobian evaluation beside the exact one. A system
  without the approximation (or with none attached) keeps its exact tangent.

  Level: intermediate

.seealso: `TSMechSetMatrixFree()`, `MechSystemSetTangentDefinite()`, `MechSystemComputeOperatorDefinite()`
@*/
PetscErrorCode TSMechSetPCDefinite(TS ts, PetscBool flg)
{
  TSMechNewton newton;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ts, flg, 2);
  PetscCall(TSMechQueryNewton(ts, &newton));
  if (newton) PetscCall(TSMechNewtonSetPCDefinite(newton, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSMechGetPCDefinite - Whether the preconditioning matrix is built from the semidefinite
  tangent approximation.

  Not Collective

  Input Parameter:
. ts - the TS of an implicit tsmech type

  Output Parameter:
. flg - PETSC_TRUE if it is

  Level: intermediate

.seealso: `TSMechSetPCDefinite()`
@*/
PetscErrorCode TSMechGetPCDefinite(TS ts, PetscBool *flg)
{
  TSMechNewton newton;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidBoolPointer(flg, 2);
  PetscCall(TSMechUseNewton(ts, &newton));
  PetscCall(TSMechNewtonGetPCDefinite(newton, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSMechSetPCReduced - With the matrix-free Jacobian, builds the preconditioning matrix on the
  attached system's reduced pattern (`MechSystemCreateOperatorReduced()`: the nearest-neighbour
  couplings of the grid models) and lets the system free the matrix of its full pattern, for a
  smaller resident memory.

  Logically Collective

  Input Parameters:
+ ts  - the TS of an implicit tsmech type
- flg - PETSC_TRUE to use the reduced preconditioning matrix

  Options Database Key:
. -ts_theta_pc_reduced <bool> - default false

  Notes:
  Only with -ts_theta_matrix_free (`TSMechSetMatrixFree()`); the model must give a pattern
  builder (`MechSystemSetTangentPattern()`), or set-up fails. The preconditioning matrix and its
  factorization then hold only the kept couplings (on the cloth 5 of 13 blocks per row): the
  Jacobian stays exact, so Newton converges to the same answer to the solver tolerance, with
  more linear iterations. It combines with `TSMechSetPCDefinite()`. Set it before `TSSetUp()`.

  Level: intermediate

.seealso: `TSMechSetMatrixFree()`, `TSMechSetPCDefinite()`, `MechSystemSetTangentPattern()`, `MechSystemCreateOperatorReduced()`
@*/
PetscErrorCode TSMechSetPCReduced(TS ts, PetscBool flg)
{
  TSMechNewton newton;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ts, flg, 2);
  PetscCall(TSMechQueryNewton(ts, &newton));
  if (newton) PetscCall(TSMechNewtonSetPCReduced(newton, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSMechGetPCReduced - Whether the matrix-free mode's preconditioning matrix has the system's
  reduced pattern.

  Not Collective

  Input Parameter:
. ts - the TS of an implicit tsmech type

  Output Parameter:
. flg - PETSC_TRUE if it has

  Level: intermediate

.seealso: `TSMechSetPCReduced()`
@*/
PetscErrorCode TSMechGetPCReduced(TS ts, PetscBool *flg)
{
  TSMechNewton newton;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidBoolPointer(flg, 2);
  PetscCall(TSMechUseNewton(ts, &newton));
  PetscCall(TSMechNewtonGetPCReduced(newton, flg, NULL));
  PetscFunctionReturn(0);
}

/*@C
  TSMechSetPCLagCoarse - With the matrix-free Jacobian and a `PCMG` with Galerkin coarse
  operators (-pc_type mg on the grid models), lets a rebuild of the preconditioning matrix for
  growing linear iterations renew only the finest level, the coarse levels keeping the Galerkin
  products of an earlier preconditioning matrix.

  Logically Collective

  Input Parameters:
+ ts  - the TS of an implicit tsmech type
- flg - PETSC_TRUE to lag the coarse levels

  Options Database Key:
. -ts_theta_pc_lag_coarse <bool> - default true

  Notes:
  Every level is rebuilt for the first preconditioning matrix, when theta tau changes, after a
  failed solve, and when the first step after a finest-level rebuild still needs more than twice
  the linear iterations per Newton iteration of the step after the last full rebuild. The Jacobian is unchanged, so the answer is the same to
  the solver tolerance (docs/solvers.md §4). Without `PCMG` it has no effect.

  Level: intermediate

.seealso: `TSMechGetPCLagCoarse()`, `TSMechSetMatrixFree()`, `MechSystemSetUpPCMG()`
@*/
PetscErrorCode TSMechSetPCLagCoarse(TS ts, PetscBool flg)
{
  TSMechNewton newton;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ts, flg, 2);
  PetscCall(TSMechQueryNewton(ts, &newton));
  if (newton) PetscCall(TSMechNewtonSetPCLagCoarse(newton, flg));
  PetscFunctionReturn(0);
}

/*@C
  TSMechGetPCLagCoarse - Whether a rebuild for growing iterations keeps the multigrid coarse
  levels, and how many rebuilds renewed every level.

  Not Collective

  Input Parameter:
. ts - the TS of an implicit tsmech type

  Output Parameters (each may be NULL):
+ flg    - PETSC_TRUE if the coarse levels are lagged
- coarse - the rebuilds of the preconditioning matrix that renewed every level so far (all of
           them without `PCMG`; see `TSMechGetMatrixFree()` for the total)

  Level: intermediate

.seealso: `TSMechSetPCLagCoarse()`
@*/
PetscErrorCode TSMechGetPCLagCoarse(TS ts, PetscBool *flg, PetscInt *coarse)
{
  TSMechNewton newton;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscCall(TSMechUseNewton(ts, &newton));
  PetscCall(TSMechNewtonGetPCLagCoarse(newton, flg, coarse));
  PetscFunctionReturn(0);
}

/*@C
  TSMechSetEWSafeguard - With Eisenstat-Walker forcing terms (`SNESKSPSetUseEW()`), stops each
  linear solve of Newton's method once its residual ||F + J s|| is below factor times Newton's
  tolerance max(atol, rtol ||F_0||): Kelley's safeguard against oversolving the last Newton
  iteration of a step.

  Logically Collective

  Input Parameters:
+ ts     - the TS of an implicit tsmech type
- factor - in [0, 1); 0 turns the safeguard off

  Options Database Key:
. -ts_theta_ew_safeguard <0.5> - the factor

  Notes:
  It is the KSP's absolute tolerance, set at every Newton iteration (never below the user's
  -ksp_atol). CG tests the unpreconditioned residual under EW, so that is ||F + J s||; a KSP that
  tests another norm, and a run without EW, are left alone (docs/solvers.md §3).

  Level: intermediate

.seealso: `TSMechGetEWSafeguard()`, `SNESKSPSetUseEW()`
@*/
PetscErrorCode TSMechSetEWSafeguard(TS ts, PetscReal factor)
{
  TSMechNewton newton;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidLogicalCollectiveReal(ts, factor, 2);
  PetscCheck(factor >= 0 && factor < 1, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "Eisenstat-Walker safeguard %g must be in [0, 1) (-ts_theta_ew_safeguard)", (double)factor);
  PetscCall(TSMechQueryNewton(ts, &newton));
  if (newton) PetscCall(TSMechNewtonSetEWSafeguard(newton, factor));
  PetscFunctionReturn(0);
}

/*@C
  TSMechGetEWSafeguard - The fraction of Newton's tolerance at which a linear solve stops under
  Eisenstat-Walker forcing terms.

  Not Collective

  Input Parameter:
. ts - the TS of an implicit tsmech type

  Output Parameter:
. factor - the factor (0: off)

  Level: intermediate

.seealso: `TSMechSetEWSafeguard()`
@*/
PetscErrorCode TSMechGetEWSafeguard(TS ts, PetscReal *factor)
{
  TSMechNewton newton;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidRealPointer(factor, 2);
  PetscCall(TSMechUseNewton(ts, &newton));
  PetscCall(TSMechNewtonGetEWSafeguard(newton, factor));
  PetscFunctionReturn(0);
}

/*@
  TSMechSetNonlinearElimination - Before each step's Newton solve, runs Newton on the points near
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

.seealso: `TSMechGetNonlinearElimination()`, `MechSystemSetPatch()`, `MechSystemSetFixed()`
@*/
PetscErrorCode TSMechSetNonlinearElimination(TS ts, PetscBool flg, PetscInt depth, PetscReal reach)
{
  TSMechNewton newton;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ts, flg, 2);
  PetscValidLogicalCollectiveInt(ts, depth, 3);
  PetscValidLogicalCollectiveReal(ts, reach, 4);
  PetscCheck(depth >= 1 || depth == PETSC_DECIDE, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "Nonlinear elimination depth %" PetscInt_FMT " must be at least 1, or PETSC_DECIDE (-ts_theta_ne_depth)", depth);
  PetscCheck(reach > 0 || reach == (PetscReal)PETSC_DEFAULT, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "Nonlinear elimination reach %g must be positive (-ts_theta_ne_reach)", (double)reach);
  PetscCall(TSMechQueryNewton(ts, &newton));
  if (newton) PetscCall(TSMechNewtonSetNonlinearElimination(newton, flg, depth, reach));
  PetscFunctionReturn(0);
}

/*@
  TSMechGetNonlinearElimination - Whether nonlinear elimination is on, the depth of its patch and
  the local Newton iterations it has done.

  Collective

  Input Parameter:
. ts - the TS of an implicit tsmech type

  Output Parameters:
+ flg   - whether it is on, or NULL
. depth - the graph distance of the patch in use (0 before the first step), or NULL
- its   - local Newton iterations so far, summed over the ranks, or NULL

  Level: intermediate

.seealso: `TSMechSetNonlinearElimination()`
@*/
PetscErrorCode TSMechGetNonlinearElimination(TS ts, PetscBool *flg, PetscInt *depth, PetscInt *its)
{
  TSMechNewton newton;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscCall(TSMechUseNewton(ts, &newton));
  PetscCall(TSMechNewtonGetNonlinearElimination(newton, flg, depth, its));
  PetscFunctionReturn(0);
}
