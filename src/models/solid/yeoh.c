/*
  yeoh: the two-term Yeoh material (O. H. Yeoh, "Some forms of the strain energy function for
  rubber", Rubber Chemistry and Technology 66 (1993) 754-771), with the isochoric-volumetric split
  and the volumetric energy of neohookean_split and mooney_rivlin (materials.c; Holzapfel,
  Nonlinear Solid Mechanics, 2000, §6.5):

      W = c1 (I1b - 3) + c2 (I1b - 3)^2 + kappa/4 (J^2 - 1 - 2 ln J),  I1b = J^-2/3 I1,  I1 = tr F^T F

  given by -solid_c1 (Yeoh's C10), -solid_c2 (C20) and -solid_kappa, or by -solid_E and -solid_nu
  (then c1 = mu/2, c2 = 0: neohookean_split). Its small-strain shear modulus is mu = 2 c1 (c2 enters
  only at finite strain: SolidMaterialOps.c2notshear). With W1 = dW/dI1b = c1 + 2 c2 (I1b - 3) and
  dI1b/dF = 2 a G, a = J^-2/3, G = F - I1/3 F^-T,

      P  = W1 dI1b/dF + P_vol                      (the isochoric stress of c1 = W1, c2 = 0)
      dP = dP|W1 fixed + 2 c2 (dI1b/dF : dF) dI1b/dF

  The material is this file and its line in materialtable.c.
*/
#include "solidimpl.h"

/* dI1b/dF = 2 a (F - I1/3 F^-T) and W1 = c1 + 2 c2 (I1b - 3) at the point */
static PetscReal YeohSlope(const SolidModuli *m, const SolidPoint *p, PetscReal D[9])
{
  for (PetscInt i = 0; i < 9; i++) D[i] = 2 * p->a * (p->F[i] - p->I1 / 3 * p->FinvT[i]);
  return m->c1 + 2 * m->c2 * (p->a * p->I1 - 3);
}

static void SolidYeohStress(const SolidModuli *m, const SolidPoint *p, PetscReal P[9], PetscReal *W)
{
  PetscReal       D[9];
  const PetscReal W1 = YeohSlope(m, p, D), d = p->a * p->I1 - 3;

  SolidInvariantStress(W1, 0, m->kappa, p, P, NULL);
  if (W) *W = m->c1 * d + m->c2 * d * d + 0.25 * m->kappa * (p->J * p->J - 1 - 2 * p->lnJ);
}

static void SolidYeohStressDiff(const SolidModuli *m, const SolidPoint *p, const PetscReal dF[9], PetscReal dP[9])
{
  PetscReal       D[9], dI = 0;
  const PetscReal W1 = YeohSlope(m, p, D);

  SolidInvariantStressDiff(W1, 0, m->kappa, p, dF, dP);
  for (PetscInt i = 0; i < 9; i++) dI += D[i] * dF[i];
  for (PetscInt i = 0; i < 9; i++) dP[i] += 2 * m->c2 * dI * D[i];
}

static PetscBool SolidYeohDiscreteStress(const SolidModuli *m, const PetscReal F0[9], const PetscReal F1[9], PetscReal Pbar[9])
{
  return SolidDiscreteStressC(m, SolidIsochoricSetUp, SolidYeohStress, PETSC_FALSE, F0, F1, Pbar);
}

static PetscBool SolidYeohDiscreteStressJacobian(const SolidModuli *m, const PetscReal F0[9], const PetscReal F1[9], PetscReal Pbar[9], PetscReal A[81])
{
  return SolidDiscreteStressCJacobian(m, SolidIsochoricSetUp, SolidYeohStress, SolidYeohStressDiff, PETSC_FALSE, F0, F1, Pbar, A);
}

const SolidMaterialOps SolidMaterialYeoh = {
    .name          = "yeoh",
    .help          = "two-term Yeoh c1 (J^-2/3 I1 - 3) + c2 (J^-2/3 I1 - 3)^2 + kappa/4 (J^2 - 1 - 2 ln J) (c1, c2, kappa, or E, nu)",
    .moduli        = SOLID_MODULI_MOONEY_RIVLIN,
    .linear        = PETSC_FALSE,
    .positiveJ     = PETSC_TRUE,
    .spatial       = PETSC_FALSE,
    .nstate        = 9,
    .setup         = SolidIsochoricSetUp,
    .stress        = SolidYeohStress,
    .dstress       = SolidYeohStressDiff,
    .pack          = SolidInvariantPack,
    .unpack        = SolidInvariantUnpack,
    .discstress    = SolidYeohDiscreteStress,
    .discstressjac = SolidYeohDiscreteStressJacobian,
    .c2notshear    = PETSC_TRUE,
};
