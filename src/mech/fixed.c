/*
  The fixed degrees of freedom of a mechanical system and their prescribed motion: which dofs are
  fixed and at what values (MechSystemSetFixed()), the motion that moves them (MechSystemSetFixedMotion()),
  the state with them at their prescribed values (MechSystemApplyFixed(), MechSystemMotionState()),
  and their own mass on the decoupled rows (the set-up's Mfix). The system itself is in mechsystem.c.
*/
#include "mechimpl.h"

/*@
  MechSystemSetFixed - Sets the fixed degrees of freedom and, optionally, their prescribed values.

  Collective

  Input Parameters:
+ sys    - the mechanical system
. fixed  - the global indices of the fixed dofs, each rank listing dofs it owns (NULL: none)
- values - a full-size vector of which only the fixed entries are read, copied (NULL: the
           values of the initial state)

  Level: beginner

  Notes:
  The system imposes the fixed dofs for every integrator: their force is zero, their rows and
  columns of K and D are zero, and their rows and columns of M are decoupled with the diagonal
  kept. `TSMechSetSolution()` puts q at the prescribed values and v at rest
  (`MechSystemApplyFixed()`); every integrator then keeps them there. The system keeps a
  reference to fixed.

.seealso: `MechSystemGetFixed()`, `MechSystemApplyFixed()`, `MechSystemSetInitialState()`, `TSMechSetSolution()`
@*/
PetscErrorCode MechSystemSetFixed(MechSystem sys, IS fixed, Vec values)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (fixed) PetscCall(PetscObjectReference((PetscObject)fixed));
  PetscCall(ISDestroy(&sys->fixed));
  sys->fixed = fixed;
  PetscCall(VecDestroy(&sys->fixedvalues));
  if (values) PetscCall(VecDuplicate(values, &sys->fixedvalues));
  if (values) PetscCall(VecCopy(values, sys->fixedvalues));
  sys->setupcalled = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@
  MechSystemApplyFixed - Sets the fixed entries of q to their prescribed values and of v to zero.

  Collective

  Input Parameters:
+ sys - the mechanical system
. q   - the position, modified in place (may be NULL)
- v   - the velocity, modified in place (may be NULL)

  Level: intermediate

  Notes:
  The prescribed values are those of `MechSystemSetFixed()` or, if it was given none, those of the
  initial state (`MechSystemSetInitialState()`); without either, q is left as it is. Nothing is
  done without fixed dofs. `TSMechSetSolution()` calls it.

.seealso: `MechSystemSetFixed()`, `TSMechSetSolution()`
@*/
PetscErrorCode MechSystemApplyFixed(MechSystem sys, Vec q, Vec v)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (!sys->fixed) PetscFunctionReturn(0);
  {
    /* no prescribed values given: the initial state's */
    Vec values = sys->fixedvalues ? sys->fixedvalues : sys->q0;
    if (q && values && q != values) {
      VecScatter sct;
      PetscCall(VecScatterCreate(values, sys->fixed, q, sys->fixed, &sct));
      PetscCall(VecScatterBegin(sct, values, q, INSERT_VALUES, SCATTER_FORWARD));
      PetscCall(VecScatterEnd(sct, values, q, INSERT_VALUES, SCATTER_FORWARD));
      PetscCall(VecScatterDestroy(&sct));
    }
  }
  if (v) PetscCall(VecISSet(v, sys->fixed, 0.0));
  PetscFunctionReturn(0);
}
/*@C
  MechSystemSetFixedMotion - Prescribes the motion of the fixed degrees of freedom.

  Logically Collective

  Input Parameters:
+ sys - the mechanical system (with its fixed dofs, `MechSystemSetFixed()`)
. fn  - sets the fixed entries of q, v, a (any may be NULL) to the prescribed position, velocity
        and acceleration at time t; the other entries must be left alone
- ctx - its context

  Calling sequence of fn:
$ PetscErrorCode fn(MechSystem sys, PetscReal t, Vec q, Vec v, Vec a, void *ctx)

  Level: intermediate

  Notes:
  Every integrator then ends each step with the fixed entries of q and v equal to the prescribed
  values at the step's end, exactly (`MechSystemApplyFixedAt()`: the tsmech types, and PETSc's
  types through the post-step `TSMechSetSolution()` installs). Within the step the fixed rows
  follow the prescribed acceleration: their force is -m_ii a_i(t) instead of zero; the tsmech
  implicit types hold the stage's fixed positions at the prescribed ones (docs/solvers.md). With a
  consistent mass, the inertia the moving dofs exert on their neighbours, M_if a_f(t), is part of
  the force of the free rows (the fixed rows and columns of M are otherwise decoupled).

.seealso: `MechSystemSetFixed()`, `MechSystemApplyFixedAt()`, `MechSystemComputeFixedMotion()`
@*/
PetscErrorCode MechSystemSetFixedMotion(MechSystem sys, MechFixedMotionFn fn, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  sys->motion      = fn;
  sys->motionctx   = ctx;
  sys->setupcalled = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@
  MechSystemHasFixedMotion - Whether the fixed dofs have a prescribed motion.

  Not Collective

.seealso: `MechSystemSetFixedMotion()`
@*/
PetscErrorCode MechSystemHasFixedMotion(MechSystem sys, PetscBool *has)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *has = sys->motion && sys->fixed ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@
  MechSystemComputeFixedMotion - The prescribed position, velocity and acceleration of the fixed
  dofs at time t, in the fixed entries of q, v and a (any may be NULL; the others are left alone).
  Without a motion: the held position (`MechSystemApplyFixed()`), zero velocity and acceleration.

  Collective

.seealso: `MechSystemSetFixedMotion()`, `MechSystemApplyFixedAt()`
@*/
PetscErrorCode MechSystemComputeFixedMotion(MechSystem sys, PetscReal t, Vec q, Vec v, Vec a)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (!sys->fixed) PetscFunctionReturn(0);
  if (sys->motion) PetscCall(MechSystemAgree(sys, (*sys->motion)(sys, t, q, v, a, sys->motionctx), "prescribed motion"));
  else {
    PetscCall(MechSystemApplyFixed(sys, q, v));
    if (a) PetscCall(VecISSet(a, sys->fixed, 0.0));
  }
  PetscFunctionReturn(0);
}

/*@
  MechSystemApplyFixedAt - Sets the fixed entries of q and v to their prescribed values at time t:
  the motion's (`MechSystemSetFixedMotion()`), or the held position and zero velocity.

  Collective

  Input Parameters:
+ sys - the mechanical system
. t   - the time
. q   - the position, modified in place (may be NULL)
- v   - the velocity, modified in place (may be NULL)

  Level: intermediate

.seealso: `MechSystemApplyFixed()`, `MechSystemSetFixedMotion()`
@*/
PetscErrorCode MechSystemApplyFixedAt(MechSystem sys, PetscReal t, Vec q, Vec v)
{
  PetscFunctionBegin;
  PetscCall(MechSystemComputeFixedMotion(sys, t, q, v, NULL));
  PetscFunctionReturn(0);
}

/*
  The state a system with a prescribed motion is evaluated at: q and v with the fixed entries at
  their prescribed values at t, so that the force and the tangent never depend on where an
  integrator's unknowns put the fixed dofs (their columns of K and D are zero), and (a, if not
  NULL) the prescribed acceleration, from one evaluation of the motion. Without a motion q and v
  themselves, a untouched.
*/
PetscErrorCode MechSystemMotionState(MechSystem sys, PetscReal t, Vec q, Vec v, Vec *qm, Vec *vm, Vec a)
{
  PetscFunctionBegin;
  *qm = q;
  *vm = v;
  if (!sys->motion || !sys->fixed) PetscFunctionReturn(0);
  if (!sys->qm) PetscCall(VecDuplicate(q, &sys->qm));
  if (!sys->vm) PetscCall(VecDuplicate(q, &sys->vm));
  PetscCall(VecCopy(q, sys->qm));
  if (v) PetscCall(VecCopy(v, sys->vm));
  /* at rest (static equilibrium): the prescribed positions only; v keeps its (zero) velocities */
  PetscCall(MechSystemComputeFixedMotion(sys, t, sys->qm, v && !sys->atrest ? sys->vm : NULL, sys->atrest ? NULL : a));
  *qm = sys->qm;
  *vm = v ? sys->vm : NULL;
  PetscFunctionReturn(0);
}

/*@
  MechSystemGetFixed - Gets the fixed degrees of freedom.

  Not Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameter:
. fixed - the index set of `MechSystemSetFixed()` (NULL if none); not a new reference

  Level: intermediate

.seealso: `MechSystemSetFixed()`, `MechSystemApplyFixed()`
@*/
PetscErrorCode MechSystemGetFixed(MechSystem sys, IS *fixed)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *fixed = sys->fixed;
  PetscFunctionReturn(0);
}

/* MechSystemCopyFixed_Private - dst_i = src_i on the fixed dofs (full-size vectors of the system's layout) */
PetscErrorCode MechSystemCopyFixed_Private(MechSystem sys, Vec src, Vec dst)
{
  const PetscInt    *idx;
  const PetscScalar *s;
  PetscScalar       *d;
  PetscInt           n, rstart;

  PetscFunctionBegin;
  if (!sys->fixed) PetscFunctionReturn(0);
  PetscCall(ISGetLocalSize(sys->fixed, &n));
  PetscCall(ISGetIndices(sys->fixed, &idx));
  PetscCall(VecGetOwnershipRange(dst, &rstart, NULL));
  PetscCall(VecGetArrayRead(src, &s));
  PetscCall(VecGetArray(dst, &d));
  for (PetscInt k = 0; k < n; k++) d[idx[k] - rstart] = s[idx[k] - rstart];
  PetscCall(VecRestoreArray(dst, &d));
  PetscCall(VecRestoreArrayRead(src, &s));
  PetscCall(ISRestoreIndices(sys->fixed, &idx));
  PetscFunctionReturn(0);
}

/* MechSystemGetFixedMass_Private - diag(Mfix) on the fixed dofs, zero elsewhere (built once per set-up) */
PetscErrorCode MechSystemGetFixedMass_Private(MechSystem sys, Vec *m)
{
  PetscFunctionBegin;
  PetscCall(MechSystemSetUp(sys));
  if (!sys->fixedmass) {
    Vec d;

    PetscCall(MatCreateVecs(sys->Mfix, &sys->fixedmass, &d));
    PetscCall(MatGetDiagonal(sys->Mfix, d));
    PetscCall(VecZeroEntries(sys->fixedmass));
    PetscCall(MechSystemCopyFixed_Private(sys, d, sys->fixedmass));
    PetscCall(VecDestroy(&d));
  }
  *m = sys->fixedmass;
  PetscFunctionReturn(0);
}
