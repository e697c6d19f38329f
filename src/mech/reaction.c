/*
  What the reactions and the energy balance (src/ts/balance.c) need of a model, beyond its force:

  - the groups of its fixed dofs, each with a name (the solid's constraints: -solid_bc NAME, "fix";
    another model's fixed dofs form one group, "fixed") and the point moments are taken about;
  - its force on the fixed rows as the model computes it, before the system zeroes those rows (the
    reaction there is the step's residual), and the parts of the force the energy balance tells
    apart: the applied loads (external work) and the damping (dissipation) (MechSystemSetForcePart());
  - its stored energy, the potential of its internal forces alone (MechSystemSetStoredEnergy()).

  A model that gives neither part nor stored energy is balanced with all of its force internal and
  its potential as the stored energy: the work of its loads and of its damping then show in what
  is left (the numerical dissipation).
*/
#include "mechimpl.h"

struct _n_MechBalanceModel {
  MechForcePartFn part;
  void           *partctx;
  MechPotentialFn stored;
  void           *storedctx;
  PetscInt        ngroups;
  char          **names;    /* ngroups */
  PetscInt       *group;    /* per fixed dof of this rank, in the order of the fixed IS */
  PetscReal      *about;    /* 3 per group */
  PetscBool      *hasabout; /* given; else the centroid of the group's nodes at the initial state */
  PetscBool       centroid; /* the centroids are computed */
};

static PetscErrorCode FreeGroups(struct _n_MechBalanceModel *b)
{
  PetscFunctionBegin;
  for (PetscInt g = 0; g < b->ngroups; g++) PetscCall(PetscFree(b->names[g]));
  PetscCall(PetscFree(b->names));
  PetscCall(PetscFree(b->group));
  PetscCall(PetscFree(b->about));
  PetscCall(PetscFree(b->hasabout));
  b->ngroups  = 0;
  b->centroid = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* Frees the balance model (the container composed on the system holds it: freed with the system) */
static PetscErrorCode BalanceModelDestroy(void *ctx)
{
  struct _n_MechBalanceModel *b = (struct _n_MechBalanceModel *)ctx;

  PetscFunctionBegin;
  PetscCall(FreeGroups(b));
  PetscCall(PetscFree(b));
  PetscFunctionReturn(0);
}

/* The system's balance model, created at the first use and composed on it */
static PetscErrorCode BalanceModel(MechSystem sys, struct _n_MechBalanceModel **b)
{
  PetscFunctionBegin;
  if (!sys->balance) {
    PetscCall(PetscNew(&sys->balance));
    PetscCall(MechSystemComposeData_Private(sys, "MechBalanceModel", sys->balance, BalanceModelDestroy));
  }
  *b = sys->balance;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetForcePart - Gives the system the parts of the model's force that the energy balance
  tells apart, and the force on its fixed rows.

  Logically Collective

  Input Parameters:
+ sys - the mechanical system
. fn  - computes into f (the whole vector, fixed rows included: they are not zeroed) the part asked:
        `MECH_FORCE_ALL` the whole force, as the force callback; `MECH_FORCE_EXTERNAL` the applied
        loads' part, -F_ext (gravity, loads on faces, body forces); `MECH_FORCE_DAMPING` the damping
        forces' part, D v. With fixedonly only the entries of the fixed rows need to be right, so a
        model may skip the work elsewhere (the solid then visits only the cells at its constraints)
- ctx - its context

  Calling sequence of fn:
$ PetscErrorCode fn(MechSystem sys, PetscReal t, Vec q, Vec v, MechForcePart part, PetscBool fixedonly, Vec f, void *ctx)

  Level: advanced

  Notes:
  Without it the whole force is the model's force callback and the external and damping parts are
  zero (the energy balance counts every force as internal).

.seealso: `MechSystemSetStoredEnergy()`, `MechSystemComputeForcePart()`, `TSMechSetBalance()`
@*/
PetscErrorCode MechSystemSetForcePart(MechSystem sys, MechForcePartFn fn, void *ctx)
{
  struct _n_MechBalanceModel *b = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(BalanceModel(sys, &b));
  b->part    = fn;
  b->partctx = ctx;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetStoredEnergy - Gives the system the model's stored energy: the potential of its
  internal forces alone (the strain energy of a solid), without that of its loads.

  Logically Collective

  Input Parameters:
+ sys - the mechanical system
. fn  - returns the global stored energy at (t, q, v), the same on every rank
- ctx - its context

  Level: advanced

  Notes:
  Without it the energy balance takes the potential (`MechSystemSetPotential()`) as the stored energy.

.seealso: `MechSystemSetForcePart()`, `MechSystemComputeStoredEnergy()`
@*/
PetscErrorCode MechSystemSetStoredEnergy(MechSystem sys, MechPotentialFn fn, void *ctx)
{
  struct _n_MechBalanceModel *b = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(BalanceModel(sys, &b));
  b->stored    = fn;
  b->storedctx = ctx;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetFixedGroups - Names the groups of the fixed dofs, whose reactions are told apart.

  Logically Collective

  Input Parameters:
+ sys      - the mechanical system, its fixed dofs set (`MechSystemSetFixed()`)
. n        - the number of groups
. names    - their names (copied)
. group    - per fixed dof of this rank, in the order of the index set of `MechSystemSetFixed()`, its group
. about    - per group the point its reaction's moment is taken about (3 reals), or NULL
- hasabout - per group whether about gives it (else the centroid of the group's nodes at the
             initial state), or NULL (none given)

  Level: advanced

  Notes:
  Without groups every fixed dof is in the one group "fixed". A node is a block of the state's
  block size (3 for the solid and the grid models, whose q holds positions: the moments are taken
  with them); with another block size the reactions have that many components and no moment.

.seealso: `MechSystemSetFixed()`, `TSMechGetReaction()`
@*/
PetscErrorCode MechSystemSetFixedGroups(MechSystem sys, PetscInt n, const char *const names[], const PetscInt group[], const PetscReal about[], const PetscBool hasabout[])
{
  struct _n_MechBalanceModel *b    = NULL;
  PetscInt                    nfix = 0;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(BalanceModel(sys, &b));
  PetscCall(FreeGroups(b));
  if (sys->fixed) PetscCall(ISGetLocalSize(sys->fixed, &nfix));
  PetscCall(PetscCalloc1(n, &b->names));
  PetscCall(PetscCalloc1(3 * n, &b->about));
  PetscCall(PetscCalloc1(n, &b->hasabout));
  PetscCall(PetscMalloc1(nfix + 1, &b->group));
  b->ngroups = n;
  for (PetscInt g = 0; g < n; g++) {
    PetscCall(PetscStrallocpy(names[g], &b->names[g]));
    b->hasabout[g] = hasabout ? hasabout[g] : PETSC_FALSE;
    for (PetscInt i = 0; i < 3 && about && b->hasabout[g]; i++) b->about[3 * g + i] = about[3 * g + i];
  }
  for (PetscInt k = 0; k < nfix; k++) {
    PetscCheck(group[k] >= 0 && group[k] < n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Fixed dof %" PetscInt_FMT " is in group %" PetscInt_FMT ", not one of the %" PetscInt_FMT, k, group[k], n);
    b->group[k] = group[k];
  }
  PetscFunctionReturn(0);
}

/* The centroids of the groups that have no point given: of their nodes at the initial state (each node once) */
static PetscErrorCode Centroids(MechSystem sys, struct _n_MechBalanceModel *b)
{
  const PetscInt    *idx;
  const PetscScalar *x;
  PetscInt           nfix = 0, rstart, bs = 1, last = -1;
  PetscReal         *sum;
  Vec                q, v;

  PetscFunctionBegin;
  if (b->centroid) PetscFunctionReturn(0);
  PetscCall(PetscCalloc1(4 * b->ngroups, &sum));
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(VecGetBlockSize(q, &bs));
  PetscCall(VecGetOwnershipRange(q, &rstart, NULL));
  if (sys->fixed) PetscCall(ISGetLocalSize(sys->fixed, &nfix));
  if (nfix) PetscCall(ISGetIndices(sys->fixed, &idx));
  PetscCall(VecGetArrayRead(q, &x));
  for (PetscInt k = 0; k < nfix && bs == 3; k++) {
    const PetscInt node = idx[k] / 3, g = b->group[k];

    if (node == last) continue;
    last = node;
    for (PetscInt i = 0; i < 3; i++) sum[4 * g + i] += PetscRealPart(x[3 * node - rstart + i]);
    sum[4 * g + 3] += 1;
  }
  PetscCall(VecRestoreArrayRead(q, &x));
  if (nfix) PetscCall(ISRestoreIndices(sys->fixed, &idx));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, sum, 4 * b->ngroups, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)sys)));
  for (PetscInt g = 0; g < b->ngroups; g++)
    if (!b->hasabout[g])
      for (PetscInt i = 0; i < 3; i++) b->about[3 * g + i] = sum[4 * g + 3] > 0 ? sum[4 * g + i] / sum[4 * g + 3] : 0;
  PetscCall(PetscFree(sum));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  b->centroid = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetFixedGroups - The groups of the fixed dofs (`MechSystemSetFixedGroups()`, or the one
  group "fixed" of every fixed dof when the model named none; none without fixed dofs).

  Collective (the first call computes the centroids)

  Output Parameters:
+ n     - the number of groups
. names - their names
. group - per fixed dof of this rank, its group
- about - per group the point moments are taken about (3 reals)

  Level: advanced

.seealso: `MechSystemSetFixedGroups()`
@*/
PetscErrorCode MechSystemGetFixedGroups(MechSystem sys, PetscInt *n, const char *const **names, const PetscInt **group, const PetscReal **about)
{
  struct _n_MechBalanceModel *b    = NULL;
  PetscInt                    nfix = 0, NF = 0;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(BalanceModel(sys, &b));
  if (sys->fixed) PetscCall(ISGetLocalSize(sys->fixed, &nfix));
  PetscCall(MPIU_Allreduce(&nfix, &NF, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)sys)));
  if (!b->ngroups && NF) {
    const char *fixed = "fixed";
    PetscInt   *zero;

    PetscCall(PetscCalloc1(nfix + 1, &zero));
    PetscCall(MechSystemSetFixedGroups(sys, 1, &fixed, zero, NULL, NULL));
    PetscCall(PetscFree(zero));
  }
  PetscCall(Centroids(sys, b));
  if (n) *n = b->ngroups;
  if (names) *names = (const char *const *)b->names;
  if (group) *group = b->group;
  if (about) *about = b->about;
  PetscFunctionReturn(0);
}

/*@
  MechSystemComputeForcePart - A part of the model's force at (t, q, v), the fixed rows not zeroed
  (the force there is what the constraint must balance), the fixed dofs where a prescribed motion
  puts them at t; without the motion's inertia coupling (the reactions add it themselves).

  Collective

  Input Parameters:
+ sys       - the mechanical system
. t, q, v   - the state
. part      - `MECH_FORCE_ALL`, `MECH_FORCE_EXTERNAL` or `MECH_FORCE_DAMPING`
- fixedonly - only the fixed rows are read (a model may skip the work elsewhere)

  Output Parameter:
. f - the part (zero for the external and damping parts of a model without `MechSystemSetForcePart()`)

  Level: advanced

.seealso: `MechSystemSetForcePart()`, `MechSystemComputeForce()`
@*/
PetscErrorCode MechSystemComputeForcePart(MechSystem sys, PetscReal t, Vec q, Vec v, MechForcePart part, PetscBool fixedonly, Vec f)
{
  struct _n_MechBalanceModel *b = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(MechSystemSetUp(sys));
  PetscCall(BalanceModel(sys, &b));
  PetscCall(MechSystemMotionState(sys, t, q, v, &q, &v, NULL));
  if (b->part) PetscCall(MechSystemAgree(sys, (*b->part)(sys, t, q, v, part, fixedonly, f, b->partctx), "force part"));
  else if (part == MECH_FORCE_ALL) PetscCall(MechSystemAgree(sys, (*sys->force)(sys, t, q, v, f, sys->forcectx), "force"));
  else PetscCall(VecZeroEntries(f));
  PetscFunctionReturn(0);
}

/*@
  MechSystemComputeStoredEnergy - The model's stored energy (`MechSystemSetStoredEnergy()`), or its
  potential without one.

  Collective

  Level: advanced

.seealso: `MechSystemSetStoredEnergy()`, `MechSystemComputeEnergy()`
@*/
PetscErrorCode MechSystemComputeStoredEnergy(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *stored)
{
  struct _n_MechBalanceModel *b = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(BalanceModel(sys, &b));
  if (b->stored) PetscCall(MechSystemAgree(sys, (*b->stored)(sys, t, q, v, stored, b->storedctx), "stored energy"));
  else PetscCall(MechSystemComputeEnergy(sys, t, q, v, NULL, stored));
  PetscFunctionReturn(0);
}

/*
  The model's discrete gradient fbar(t, q0, q1, v) with the fixed rows not zeroed (the reactions of
  discgrad2); exact: the model gives its own. Without one, the force at the midpoint stands in
  (exact PETSC_FALSE). Collective.
*/
PetscErrorCode MechSystemComputeDiscreteGradientRaw_Private(MechSystem sys, PetscReal t, Vec q0, Vec q1, Vec v, Vec f, PetscBool *exact)
{
  PetscFunctionBegin;
  *exact = sys->discgrad ? PETSC_TRUE : PETSC_FALSE;
  if (sys->discgrad) {
    PetscCall(MechSystemAgree(sys, (*sys->discgrad)(sys, t, q0, q1, v, f, sys->discgradctx), "discrete gradient"));
  } else {
    Vec qm;

    PetscCall(VecDuplicate(q0, &qm));
    PetscCall(VecAXPBYPCZ(qm, 0.5, 0.5, 0.0, q0, q1));
    PetscCall(MechSystemComputeForcePart(sys, t, qm, v, MECH_FORCE_ALL, PETSC_TRUE, f));
    PetscCall(VecDestroy(&qm));
  }
  PetscFunctionReturn(0);
}
