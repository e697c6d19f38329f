/*
  The solid's discrete gradient (MechSystemSetDiscreteGradient(), docs/schemes.md §11):
  the elastic forces from the material's discrete stress Pbar(F0, F1) (materials.c: Simo & Tarnow
  1992 for St. Venant-Kirchhoff, Gonzalez 2000 for the other energies of C, the mean F for the
  linear material), the dead loads and gravity as they are (linear potentials: exact), the Rayleigh
  damping at the step's velocity. Follower pressures are not conservative: discgrad2 refuses them
  (MechSystemSetTangentNonsymmetric()).

  The element loop is SolidForce()'s, per cell and quadrature point (every order and cell of the
  element layout, solidimpl.h), with the discrete stress in place of P(F).
*/
#include "solidimpl.h"

/* MechDiscreteGradientFn of the solid: fbar(t, q0, q1, v) */
static PetscErrorCode SolidDiscreteGradient(MechSystem sys, PetscReal t, Vec q0, Vec q1, Vec v, Vec f, void *ctx)
{
  Solid             *s = (Solid *)ctx;
  Vec                q0l, q1l, fl;
  const PetscScalar *x0, *x1;
  PetscScalar       *y;
  PetscReal          F0[9], F1[9], P[9];

  PetscFunctionBegin;
  (void)sys;
  PetscCall(SolidGetLocal(s, q0, &q0l, &x0));
  PetscCall(SolidGetLocal(s, q1, &q1l, &x1));
  PetscCall(DMGetLocalVector(s->dm, &fl));
  PetscCall(VecZeroEntries(fl));
  PetscCall(VecGetArray(fl, &y));
  for (PetscInt c = 0; c < s->ncells; c++) {
    for (PetscInt k = 0; k < s->nq; k++) {
      SolidDeformationAt(s, c, k, x0, F0);
      SolidDeformationAt(s, c, k, x1, F1);
      if (!s->mat->discstress(&s->mod, F0, F1, P)) {
        /* like SolidForce(): an inverted element gives a non-finite residual, which fails the stage */
        for (PetscInt a = 0; a < s->nen; a++)
          for (PetscInt i = 0; i < 3; i++) y[s->loff[s->nen * c + a] + i] = (PetscReal)NAN;
        break;
      }
      SolidAddStress(s, c, k, SolidWeight(s, c, k), P, y);
    }
  }
  /* dead loads do not depend on the state */
  if (s->nloads) PetscCall(SolidLoadsAddForce(s, t, x1, y));
  PetscCall(VecRestoreArray(fl, &y));
  PetscCall(SolidRestoreLocal(s, &q1l, &x1));
  PetscCall(SolidRestoreLocal(s, &q0l, &x0));
  PetscCall(VecZeroEntries(f));
  PetscCall(DMLocalToGlobalBegin(s->dm, fl, ADD_VALUES, f));
  PetscCall(DMLocalToGlobalEnd(s->dm, fl, ADD_VALUES, f));
  PetscCall(DMRestoreLocalVector(s->dm, &fl));
  if (s->fg) {
    PetscReal phi;

    PetscCall(MechTimeFunctionEvaluate(s->gtime, t, &phi, NULL, NULL));
    PetscCall(VecAXPY(f, phi, s->fg));
  }
  /* the body force, a dead load: exact */
  PetscCall(SolidBodyAddForce(s, t, f));
  if (s->alpha != 0) {
    PetscCall(MatMult(s->M, v, s->work));
    PetscCall(VecAXPY(f, s->alpha, s->work));
  }
  if (s->beta != 0) {
    PetscCall(MatMult(s->K0, v, s->work));
    PetscCall(VecAXPY(f, s->beta, s->work));
  }
  PetscFunctionReturn(0);
}

/*
  Gives the solid its discrete gradient: frame-invariant for the materials of C (Pbar Fm^T
  symmetric), not for linear elasticity. Its derivative is left to the system (the midpoint
  tangent as preconditioning matrix, discgrad2's matrix-free Newton).
*/
PetscErrorCode SolidSetUpDiscreteGradient(Solid *s, MechSystem sys)
{
  PetscFunctionBegin;
  if (!s->mat->discstress) PetscFunctionReturn(0);
  PetscCall(MechSystemSetDiscreteGradient(sys, SolidDiscreteGradient, NULL, s->mat->linear ? PETSC_FALSE : PETSC_TRUE, s));
  PetscFunctionReturn(0);
}
