/*
  The solid's discrete gradient (MechSystemSetDiscreteGradient(), docs/schemes.md §11):
  the elastic forces from the material's discrete stress Pbar(F0, F1) (materials.c: Simo & Tarnow
  1992 for St. Venant-Kirchhoff, Gonzalez 2000 for the other energies of C, the mean F for the
  linear material), the dead loads and gravity as they are (linear potentials: exact), the Rayleigh
  damping at the step's velocity. Follower pressures are not conservative: discgrad2 refuses them
  (MechSystemSetTangentNonsymmetric()).

  The element loop needs, per cell and quadrature point, only F at both states, the point's weight
  and the shape-function gradients: DiscGradPoint() is the point kernel, the loop below runs it on
  the linear tetrahedra (one point of weight V0).
*/
#include "solidimpl.h"

/* fe[a] += w Pbar g[a] for the nb shape functions of one quadrature point; PETSC_FALSE where the
   material's energy is undefined (an inverted element) */
static PetscBool DiscGradPoint(const Solid *s, const PetscReal F0[9], const PetscReal F1[9], PetscReal w, PetscInt nb, const PetscReal g[][3], PetscReal fe[])
{
  PetscReal P[9];

  if (!s->mat->discstress(&s->mod, F0, F1, P)) return PETSC_FALSE;
  for (PetscInt a = 0; a < nb; a++)
    for (PetscInt i = 0; i < 3; i++) fe[3 * a + i] += w * (P[3 * i] * g[a][0] + P[3 * i + 1] * g[a][1] + P[3 * i + 2] * g[a][2]);
  return PETSC_TRUE;
}

/* MechDiscreteGradientFn of the solid: fbar(t, q0, q1, v) */
static PetscErrorCode SolidDiscreteGradient(MechSystem sys, PetscReal t, Vec q0, Vec q1, Vec v, Vec f, void *ctx)
{
  Solid             *s = (Solid *)ctx;
  Vec                q0l, q1l, fl;
  const PetscScalar *x0, *x1;
  PetscScalar       *y;
  PetscReal          g[4][3], F0[9], F1[9], fe[12];

  PetscFunctionBegin;
  (void)sys;
  PetscCall(SolidGetLocal(s, q0, &q0l, &x0));
  PetscCall(SolidGetLocal(s, q1, &q1l, &x1));
  PetscCall(DMGetLocalVector(s->dm, &fl));
  PetscCall(VecZeroEntries(fl));
  PetscCall(VecGetArray(fl, &y));
  for (PetscInt c = 0; c < s->ncells; c++) {
    const PetscInt *o = &s->loff[4 * c];

    SolidDeformation(s, c, x0, g, F0);
    SolidDeformation(s, c, x1, g, F1);
    PetscCall(PetscArrayzero(fe, 12));
    /* like SolidForce(): a non-finite residual fails the stage */
    if (!DiscGradPoint(s, F0, F1, s->vol[c], 4, (const PetscReal(*)[3])g, fe))
      for (PetscInt k = 0; k < 12; k++) fe[k] = (PetscReal)NAN;
    for (PetscInt a = 0; a < 4; a++)
      for (PetscInt i = 0; i < 3; i++) y[o[a] + i] += fe[3 * a + i];
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
