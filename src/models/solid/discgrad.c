/*
  The solid's discrete gradient (MechSystemSetDiscreteGradient(), docs/schemes.md §11):
  the elastic forces from the material's discrete stress Pbar(F0, F1) (materials.c: Simo & Tarnow
  1992 for St. Venant-Kirchhoff, Gonzalez 2000 for the other energies of C, the mean F for the
  linear material), the dead loads and gravity as they are (linear potentials: exact), the Rayleigh
  damping at the step's velocity. Follower pressures are not conservative: discgrad2 refuses them
  (MechSystemSetTangentNonsymmetric()).

  The element loop is SolidForce()'s, per cell and quadrature point (every order and cell of the
  element layout, solidimpl.h), with the discrete stress in place of P(F); that of its exact
  derivative is the tangent's, with dPbar/dF1 in place of dP/dF (SolidDiscreteGradientJacobian()).
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
    const SolidRegion *r = SolidCellRegion(s, c);

    for (PetscInt k = 0; k < s->nq; k++) {
      SolidDeformationAt(s, c, k, x0, F0);
      SolidDeformationAt(s, c, k, x1, F1);
      if (!r->mat->discstress(&r->mod, F0, F1, P)) {
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
  /* gravity and the body force, dead loads: exact; the damping at the step's velocity */
  PetscCall(SolidAddDeadLoadsAndDamping(s, t, v, f));
  PetscFunctionReturn(0);
}

/*
  MechDiscreteGradientJacobianFn of the solid: J = cK dfbar/dq1 + cD dfbar/dv. fbar_a = sum_k w_k
  Pbar(F0, F1) g_a and F1 = sum_b x1_b g_b^T, so per quadrature point
  (dfbar/dq1)_{ai,bk} = w_k sum_jl g_aj (dPbar/dF1)_{ij,kl} g_bl, with the material's exact
  dPbar/dF1 (materials.c, docs/schemes.md §11): not symmetric, in the tangent's pattern. Dead
  loads and gravity do not depend on the state; dfbar/dv is the Rayleigh damping alpha M + beta K0.
*/
static PetscErrorCode SolidDiscreteGradientJacobian(MechSystem sys, PetscReal t, Vec q0, Vec q1, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  Solid             *s = (Solid *)ctx;
  const PetscInt     n = 3 * s->nen;
  Vec                q0l, q1l;
  const PetscScalar *x0, *x1;
  PetscReal          F0[9], F1[9], P[9], A[81], dP[9], *Ke;
  PetscScalar       *aa;
  const PetscInt    *ia;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(PetscMalloc1(n * n, &Ke));
  PetscCall(SolidGetLocal(s, q0, &q0l, &x0));
  PetscCall(SolidGetLocal(s, q1, &q1l, &x1));
  PetscCall(SolidCellMatrixSetUp(s, J, &aa, &ia));
  for (PetscInt c = 0; c < s->ncells; c++) {
    const SolidRegion *r  = SolidCellRegion(s, c);
    PetscBool          ok = PETSC_TRUE;

    PetscCall(PetscArrayzero(Ke, n * n));
    for (PetscInt k = 0; k < s->nq; k++) {
      const PetscReal *g = SolidGrad(s, c, k);
      const PetscReal  V = cK * SolidWeight(s, c, k);

      SolidDeformationAt(s, c, k, x0, F0);
      SolidDeformationAt(s, c, k, x1, F1);
      /* an inverted element has no derivative: its residual is not finite and has failed the stage */
      if (!r->mat->discstressjac(&r->mod, F0, F1, P, A)) {
        ok = PETSC_FALSE;
        break;
      }
      /* column (b, kk): dPbar for dF1 = e_kk g_b^T, which has only row kk */
      for (PetscInt b = 0; b < s->nen; b++) {
        for (PetscInt kk = 0; kk < 3; kk++) {
          for (PetscInt p = 0; p < 9; p++) dP[p] = A[9 * p + 3 * kk] * g[3 * b] + A[9 * p + 3 * kk + 1] * g[3 * b + 1] + A[9 * p + 3 * kk + 2] * g[3 * b + 2];
          for (PetscInt a = 0; a < s->nen; a++)
            for (PetscInt i = 0; i < 3; i++) Ke[(3 * a + i) * n + 3 * b + kk] += V * (dP[3 * i] * g[3 * a] + dP[3 * i + 1] * g[3 * a + 1] + dP[3 * i + 2] * g[3 * a + 2]);
        }
      }
    }
    if (!ok) continue;
    PetscCall(SolidCellMatrixAdd(s, c, Ke, aa, ia, J));
  }
  PetscCall(SolidCellMatrixEnd(J, &aa, &ia));
  PetscCall(SolidRestoreLocal(s, &q1l, &x1));
  PetscCall(SolidRestoreLocal(s, &q0l, &x0));
  PetscCall(PetscFree(Ke));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscCall(SolidAddDampingTangent(s, cD, J));
  PetscFunctionReturn(0);
}

/*
  Gives the solid its discrete gradient and its exact derivative (every region's material has
  both): frame-invariant for the materials of C (Pbar Fm^T symmetric), not for linear elasticity.
*/
PetscErrorCode SolidSetUpDiscreteGradient(Solid *s, MechSystem sys)
{
  PetscBool linear, frame;

  PetscFunctionBegin;
  for (PetscInt r = 0; r < s->nreg; r++)
    if (!s->reg[r].mat->discstress || !s->reg[r].mat->discstressjac) PetscFunctionReturn(0);
  PetscCall(SolidRegionsFlags(s, &linear, NULL, &frame));
  PetscCall(MechSystemSetDiscreteGradient(sys, SolidDiscreteGradient, SolidDiscreteGradientJacobian, frame, s));
  PetscFunctionReturn(0);
}
