/*
  What the reactions and the energy balance (src/ts/balance.c) take of the solid (src/mech/reaction.c):

  - its force on the constrained nodes alone: the element forces of the cells that touch one (the
    cells at the constraints, found once), the loads on faces, gravity, the body force and the
    damping; the reactions need nothing else, so they cost a boundary layer of cells per step;
  - the parts of its force: the applied loads (-F_ext: the loads on faces, gravity, the body force)
    and the Rayleigh damping (alpha Ma + beta K0) v;
  - its stored energy, the strain energy of every cell in its region's material.
*/
#include "solidimpl.h"

/* The local cells with a node whose dofs are fixed (held by any rank) */
static PetscErrorCode FindConstrainedCells(Solid *s, MechSystem sys)
{
  IS                 fixed;
  Vec                g, l;
  const PetscScalar *m;
  PetscInt           n = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(s->ncells + 1, &s->bccells));
  s->nbccells = 0;
  PetscCall(MechSystemGetFixed(sys, &fixed));
  if (!fixed) PetscFunctionReturn(0);
  PetscCall(DMGetGlobalVector(s->dm, &g));
  PetscCall(DMGetLocalVector(s->dm, &l));
  PetscCall(VecZeroEntries(g));
  PetscCall(VecISSet(g, fixed, 1.0));
  PetscCall(DMGlobalToLocal(s->dm, g, INSERT_VALUES, l));
  PetscCall(VecGetArrayRead(l, &m));
  for (PetscInt c = 0; c < s->ncells; c++) {
    PetscBool at = PETSC_FALSE;

    for (PetscInt a = 0; a < s->nen && !at; a++)
      for (PetscInt i = 0; i < 3; i++)
        if (m[s->loff[s->nen * c + a] + i] != 0) at = PETSC_TRUE;
    if (at) s->bccells[n++] = c;
  }
  s->nbccells = n;
  PetscCall(VecRestoreArrayRead(l, &m));
  PetscCall(DMRestoreLocalVector(s->dm, &l));
  PetscCall(DMRestoreGlobalVector(s->dm, &g));
  PetscFunctionReturn(0);
}

/* MechForcePartFn of the solid */
static PetscErrorCode SolidForcePart(MechSystem sys, PetscReal t, Vec q, Vec v, MechForcePart part, PetscBool fixedonly, Vec f, void *ctx)
{
  Solid             *s = (Solid *)ctx;
  Vec                ql, fl;
  const PetscScalar *x;
  PetscScalar       *y;

  PetscFunctionBegin;
  if (part == MECH_FORCE_ALL && !fixedonly) {
    PetscCall(SolidForce(sys, t, q, v, f, ctx));
    PetscFunctionReturn(0);
  }
  PetscCall(VecZeroEntries(f));
  if (part == MECH_FORCE_DAMPING) {
    PetscCall(SolidAddDamping(s, v, f));
    PetscFunctionReturn(0);
  }
  if (part == MECH_FORCE_ALL && s->nbccells < 0) PetscCall(FindConstrainedCells(s, sys));
  PetscCall(SolidGetLocal(s, q, &ql, &x));
  PetscCall(DMGetLocalVector(s->dm, &fl));
  PetscCall(VecZeroEntries(fl));
  PetscCall(VecGetArray(fl, &y));
  if (part == MECH_FORCE_ALL) {
    PetscInt  ninv = 0, first = -1;
    PetscReal Jfirst;

    SolidAddElementForces(s, x, s->nbccells, s->bccells, y, &ninv, &first, &Jfirst);
  }
  if (s->nloads) PetscCall(SolidLoadsAddForce(s, t, x, y));
  PetscCall(VecRestoreArray(fl, &y));
  PetscCall(SolidRestoreLocal(s, &ql, &x));
  PetscCall(DMLocalToGlobalBegin(s->dm, fl, ADD_VALUES, f));
  PetscCall(DMLocalToGlobalEnd(s->dm, fl, ADD_VALUES, f));
  PetscCall(DMRestoreLocalVector(s->dm, &fl));
  PetscCall(SolidAddDeadLoads(s, t, f));
  if (part == MECH_FORCE_ALL) PetscCall(SolidAddDamping(s, v, f));
  PetscFunctionReturn(0);
}

/* The strain energy, on every rank (MechSystemSetStoredEnergy()) */
static PetscErrorCode SolidStoredEnergy(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *e, void *ctx)
{
  Solid             *s = (Solid *)ctx;
  Vec                ql;
  const PetscScalar *x;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(SolidGetLocal(s, q, &ql, &x));
  PetscCall(SolidStrainEnergyCached(s, q, x, e));
  PetscCall(SolidRestoreLocal(s, &ql, &x));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, e, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)s->dm)));
  PetscFunctionReturn(0);
}

/* Gives the system the solid's force parts and stored energy */
PetscErrorCode SolidSetUpBalance(Solid *s, MechSystem sys)
{
  PetscFunctionBegin;
  s->nbccells = -1;
  PetscCall(MechSystemSetForcePart(sys, SolidForcePart, s));
  PetscCall(MechSystemSetStoredEnergy(sys, SolidStoredEnergy, s));
  PetscFunctionReturn(0);
}
