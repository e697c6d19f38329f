/*
  The solid's stresses for the output (MechSystemSetCellFields()): per cell, at the cell's uniform
  deformation gradient F (P1 tetrahedra), the Cauchy stress

      sigma = P F^T / J,  J = det F                   (P the material's first Piola-Kirchhoff stress)

  (Bonet and Wood, Nonlinear Continuum Mechanics for Finite Element Analysis, 2nd ed., the
  chapter on stress; docs/solid.md §11), its von Mises equivalent (von Mises 1913)

      s_vm = sqrt(((s11 - s22)^2 + (s22 - s33)^2 + (s33 - s11)^2 + 6 (s12^2 + s23^2 + s13^2)) / 2)

  and J. The linear material's stress is the small-strain stress P itself (P = S = sigma in that
  theory; P F^T / J would add terms of the order of |F - I| |P| that the theory drops, and would not
  be symmetric). P F^T is symmetric for an isotropic hyperelastic material (balance of angular
  momentum); its mean with its transpose removes the rounding of the product. A cell whose material
  has no stress there (J <= 0 for the neo-Hookean family: a state the model refuses anyway) gets
  NaN stresses and its J.
*/
#include "solidimpl.h"

/* The fields, in the order of the callback's values */
static const char *const SolidCellFieldNames[] = {"stress", "von_mises", "J"};
static const PetscInt    SolidCellFieldComps[] = {6, 1, 1};

/* sigma (Voigt order xx, yy, zz, yz, xz, xy), von Mises and J of one cell at F */
static void CellStress(const Solid *s, const PetscReal F[9], PetscReal sig[6], PetscReal *vm, PetscReal *J)
{
  SolidPoint p;
  PetscReal  P[9], T[9];

  *J = SolidDet3(F);
  if (!s->mat->setup(&s->mod, F, &p)) {
    for (PetscInt i = 0; i < 6; i++) sig[i] = (PetscReal)NAN;
    *vm = (PetscReal)NAN;
    return;
  }
  s->mat->stress(&s->mod, &p, P, NULL);
  if (s->mat->linear) {
    for (PetscInt i = 0; i < 9; i++) T[i] = P[i];
  } else {
    /* T = P F^T / J */
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) T[3 * i + j] = (P[3 * i] * F[3 * j] + P[3 * i + 1] * F[3 * j + 1] + P[3 * i + 2] * F[3 * j + 2]) / *J;
  }
  sig[0] = T[0];
  sig[1] = T[4];
  sig[2] = T[8];
  sig[3] = 0.5 * (T[5] + T[7]);
  sig[4] = 0.5 * (T[2] + T[6]);
  sig[5] = 0.5 * (T[1] + T[3]);
  *vm    = PetscSqrtReal(0.5 * ((sig[0] - sig[1]) * (sig[0] - sig[1]) + (sig[1] - sig[2]) * (sig[1] - sig[2]) + (sig[2] - sig[0]) * (sig[2] - sig[0])) + 3 * (sig[3] * sig[3] + sig[4] * sig[4] + sig[5] * sig[5]));
}

/* The MechCellFieldsFn of the solid: its cells are those of MechSystemSetIOMesh() (SolidSetIOOrdering()), in the same order */
static PetscErrorCode SolidCellFields(MechSystem sys, PetscReal t, Vec q, Vec v, PetscInt ncells, PetscReal *values[], void *ctx)
{
  Solid             *s = (Solid *)ctx;
  Vec                ql;
  const PetscScalar *x;
  PetscReal          F[9];

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCheck(ncells == s->ncells, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The output asks for %" PetscInt_FMT " cells, the solid has %" PetscInt_FMT " on this rank", ncells, s->ncells);
  PetscCall(SolidGetLocal(s, q, &ql, &x));
  for (PetscInt c = 0; c < s->ncells; c++) {
    /* quadratic cells: the volume average of the quadrature points' values */
    for (PetscInt i = 0; i < 6; i++) values[0][6 * c + i] = 0;
    values[1][c] = values[2][c] = 0;
    for (PetscInt k = 0; k < s->nq; k++) {
      const PetscReal w = SolidWeight(s, c, k) / s->vol[c];
      PetscReal       sig[6], vm, J;

      SolidDeformationAt(s, c, k, x, F);
      CellStress(s, F, sig, &vm, &J);
      if (s->nq == 1) {
        /* P1 tetrahedra: as before, bit for bit */
        for (PetscInt i = 0; i < 6; i++) values[0][6 * c + i] = sig[i];
        values[1][c] = vm;
        values[2][c] = J;
        break;
      }
      for (PetscInt i = 0; i < 6; i++) values[0][6 * c + i] += w * sig[i];
      values[1][c] += w * vm;
      values[2][c] += w * J;
    }
  }
  PetscCall(SolidRestoreLocal(s, &ql, &x));
  PetscFunctionReturn(0);
}

/* Gives the system the solid's per-cell output fields: stress [6], von_mises and J */
PetscErrorCode SolidSetCellFields(Solid *s, MechSystem sys)
{
  PetscFunctionBegin;
  PetscCall(MechSystemSetCellFields(sys, 3, SolidCellFieldNames, SolidCellFieldComps, SolidCellFields, s));
  PetscFunctionReturn(0);
}
