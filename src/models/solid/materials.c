/*
  The solid's materials, one record each (SolidMaterialOps): the first Piola-Kirchhoff stress
  P = dW/dF with the energy density W, the directional derivative dP(dF), and what the matrix-free
  tangent action keeps per cell. Materials are chosen and stored (output, checkpoints) by name.

      linear            P = lambda tr(eps) I + 2 mu eps,  eps = (H + H^T)/2, H = F - I
      svk               P = F S,  S = lambda tr(E) I + 2 mu E,  E = (F^T F - I)/2
      neohookean        P = mu (F - F^-T) + lambda ln J F^-T
      neohookean_split  W = mu/2 (J^-2/3 I1 - 3) + kappa/4 (J^2 - 1 - 2 ln J)
      mooney_rivlin     W = c1 (J^-2/3 I1 - 3) + c2 (J^-4/3 I2 - 3) + kappa/4 (J^2 - 1 - 2 ln J)

  I1 = tr C, I2 = (I1^2 - tr C^2)/2, C = F^T F, J = det F (docs/solid.md §1, §3 and §9; Bonet and
  Wood, Nonlinear Continuum Mechanics for Finite Element Analysis, 2nd ed., ch. 6; Holzapfel,
  Nonlinear Solid Mechanics, 2000, §6.5 for the isochoric-volumetric split and Mooney-Rivlin).
  With the derivatives dI1 = 2 F:dF, dJ = J tr(F^-1 dF) and d(F^-T) = -F^-T dF^T F^-T:

      P_iso(c, m)  = 2 c J^(-2m/3) dIm/dF/2 - (2m/3) c J^(-2m/3) Im F^-T    (m = 1: dI1/dF = 2F;
                                                                              m = 2: dI2/dF = 2 (I1 F - F C))
      P_vol        = kappa/2 (J^2 - 1) F^-T
*/
#include "solidimpl.h"

/* ------------------------------------------------------------------------------------------ */
/* Small dense algebra                                                                        */
/* ------------------------------------------------------------------------------------------ */

/* F^-T and J of F; PETSC_FALSE when J <= 0 */
static PetscBool InverseTranspose(const PetscReal F[9], PetscReal FinvT[9], PetscReal *J)
{
  PetscReal Finv[9];

  *J = SolidDet3(F);
  if (!(*J > 0)) return PETSC_FALSE;
  SolidInv3(F, *J, Finv);
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) FinvT[3 * i + j] = Finv[3 * j + i];
  return PETSC_TRUE;
}

/* A:B */
static inline PetscReal Contract(const PetscReal A[9], const PetscReal B[9])
{
  PetscReal s = 0;

  for (PetscInt i = 0; i < 9; i++) s += A[i] * B[i];
  return s;
}

/* F^-T dF^T F^-T */
static inline void InvTDiff(const PetscReal FinvT[9], const PetscReal dF[9], PetscReal out[9])
{
  PetscReal dFT[9], A[9];

  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) dFT[3 * i + j] = dF[3 * j + i];
  SolidMul3(FinvT, dFT, A);
  SolidMul3(A, FinvT, out);
}

/* C = F^T F */
static inline void RightCauchyGreen(const PetscReal F[9], PetscReal C[9])
{
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) C[3 * i + j] = F[i] * F[j] + F[3 + i] * F[3 + j] + F[6 + i] * F[6 + j];
}

/* ------------------------------------------------------------------------------------------ */
/* linear                                                                                     */
/* ------------------------------------------------------------------------------------------ */

static PetscBool LinearSetUp(const SolidModuli *m, const PetscReal F[9], SolidPoint *p)
{
  (void)m;
  for (PetscInt i = 0; i < 9; i++) p->F[i] = F[i];
  p->J = SolidDet3(F);
  return PETSC_TRUE;
}

static void LinearStress(const SolidModuli *m, const SolidPoint *p, PetscReal P[9], PetscReal *W)
{
  const PetscReal *F = p->F;
  PetscReal        eps[9], tr, ee = 0;

  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) eps[3 * i + j] = 0.5 * (F[3 * i + j] + F[3 * j + i]) - (i == j ? 1.0 : 0.0);
  tr = eps[0] + eps[4] + eps[8];
  for (PetscInt i = 0; i < 9; i++) {
    P[i] = 2 * m->mu * eps[i];
    ee += eps[i] * eps[i];
  }
  for (PetscInt i = 0; i < 3; i++) P[4 * i] += m->lambda * tr;
  if (W) *W = 0.5 * m->lambda * tr * tr + m->mu * ee;
}

static void LinearStressDiff(const SolidModuli *m, const SolidPoint *p, const PetscReal dF[9], PetscReal dP[9])
{
  const PetscReal tr = dF[0] + dF[4] + dF[8];

  (void)p;
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) dP[3 * i + j] = m->mu * (dF[3 * i + j] + dF[3 * j + i]) + (i == j ? m->lambda * tr : 0.0);
}

/* ------------------------------------------------------------------------------------------ */
/* svk                                                                                        */
/* ------------------------------------------------------------------------------------------ */

static void SvkGreen(const PetscReal F[9], PetscReal E[9])
{
  RightCauchyGreen(F, E);
  for (PetscInt i = 0; i < 3; i++) E[4 * i] -= 1;
  for (PetscInt i = 0; i < 9; i++) E[i] *= 0.5;
}

static PetscBool SvkSetUp(const SolidModuli *m, const PetscReal F[9], SolidPoint *p)
{
  PetscReal E[9], trE;

  for (PetscInt i = 0; i < 9; i++) p->F[i] = F[i];
  p->J = SolidDet3(F);
  SvkGreen(F, E);
  trE = E[0] + E[4] + E[8];
  for (PetscInt i = 0; i < 9; i++) p->S[i] = 2 * m->mu * E[i];
  for (PetscInt i = 0; i < 3; i++) p->S[4 * i] += m->lambda * trE;
  return PETSC_TRUE;
}

static void SvkStress(const SolidModuli *m, const SolidPoint *p, PetscReal P[9], PetscReal *W)
{
  SolidMul3(p->F, p->S, P);
  if (W) {
    PetscReal E[9], tr;

    SvkGreen(p->F, E);
    tr = E[0] + E[4] + E[8];
    *W = 0.5 * m->lambda * tr * tr + m->mu * Contract(E, E);
  }
}

/* dP = dF S + F dS,  dS = lambda tr(dE) I + 2 mu dE,  dE = (dF^T F + F^T dF)/2 */
static void SvkStressDiff(const SolidModuli *m, const SolidPoint *p, const PetscReal dF[9], PetscReal dP[9])
{
  const PetscReal *F = p->F;
  PetscReal        dE[9], dS[9], A[9], B[9], tr;

  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) dE[3 * i + j] = 0.5 * (dF[i] * F[j] + dF[3 + i] * F[3 + j] + dF[6 + i] * F[6 + j] + F[i] * dF[j] + F[3 + i] * dF[3 + j] + F[6 + i] * dF[6 + j]);
  tr = dE[0] + dE[4] + dE[8];
  for (PetscInt i = 0; i < 9; i++) dS[i] = 2 * m->mu * dE[i];
  for (PetscInt i = 0; i < 3; i++) dS[4 * i] += m->lambda * tr;
  SolidMul3(dF, p->S, A);
  SolidMul3(F, dS, B);
  for (PetscInt i = 0; i < 9; i++) dP[i] = A[i] + B[i];
}

/* the matrix-free action keeps F and S */
static void SvkPack(const SolidModuli *m, const SolidPoint *p, PetscReal st[])
{
  (void)m;
  for (PetscInt i = 0; i < 9; i++) st[i] = p->F[i];
  for (PetscInt i = 0; i < 9; i++) st[9 + i] = p->S[i];
}

static void SvkUnpack(const SolidModuli *m, const PetscReal st[], SolidPoint *p)
{
  (void)m;
  for (PetscInt i = 0; i < 9; i++) p->F[i] = st[i];
  for (PetscInt i = 0; i < 9; i++) p->S[i] = st[9 + i];
}

/* ------------------------------------------------------------------------------------------ */
/* neohookean                                                                                 */
/* ------------------------------------------------------------------------------------------ */

static PetscBool NeoHookeanSetUp(const SolidModuli *m, const PetscReal F[9], SolidPoint *p)
{
  (void)m;
  for (PetscInt i = 0; i < 9; i++) p->F[i] = F[i];
  if (!InverseTranspose(F, p->FinvT, &p->J)) return PETSC_FALSE;
  p->lnJ = PetscLogReal(p->J);
  return PETSC_TRUE;
}

static void NeoHookeanStress(const SolidModuli *m, const SolidPoint *p, PetscReal P[9], PetscReal *W)
{
  for (PetscInt i = 0; i < 9; i++) P[i] = m->mu * (p->F[i] - p->FinvT[i]) + m->lambda * p->lnJ * p->FinvT[i];
  if (W) *W = 0.5 * m->mu * (Contract(p->F, p->F) - 3) - m->mu * p->lnJ + 0.5 * m->lambda * p->lnJ * p->lnJ;
}

/* dP = mu dF + (mu - lambda ln J) F^-T dF^T F^-T + lambda tr(F^-1 dF) F^-T */
static void NeoHookeanStressDiff(const SolidModuli *m, const SolidPoint *p, const PetscReal dF[9], PetscReal dP[9])
{
  const PetscReal tr = Contract(p->FinvT, dF);
  PetscReal       B[9];

  InvTDiff(p->FinvT, dF, B);
  for (PetscInt i = 0; i < 9; i++) dP[i] = m->mu * dF[i] + (m->mu - m->lambda * p->lnJ) * B[i] + m->lambda * tr * p->FinvT[i];
}

/* the matrix-free action keeps F^-T and ln J, all dP needs (P1 tetrahedra keep their spatial
   gradients instead: SolidApplyNeoHookean() in elements.c, as many reals) */
static void NeoHookeanPack(const SolidModuli *m, const SolidPoint *p, PetscReal st[])
{
  (void)m;
  for (PetscInt i = 0; i < 9; i++) st[i] = p->FinvT[i];
  st[9] = p->lnJ;
}

static void NeoHookeanUnpack(const SolidModuli *m, const PetscReal st[], SolidPoint *p)
{
  (void)m;
  for (PetscInt i = 0; i < 9; i++) p->FinvT[i] = st[i];
  p->lnJ = st[9];
}

/* ------------------------------------------------------------------------------------------ */
/* neohookean_split and mooney_rivlin: isochoric invariants and the volumetric term           */
/* ------------------------------------------------------------------------------------------ */

PetscBool SolidIsochoricSetUp(const SolidModuli *m, const PetscReal F[9], SolidPoint *p)
{
  PetscReal C[9];

  (void)m;
  for (PetscInt i = 0; i < 9; i++) p->F[i] = F[i];
  if (!InverseTranspose(F, p->FinvT, &p->J)) return PETSC_FALSE;
  p->lnJ = PetscLogReal(p->J);
  RightCauchyGreen(F, C);
  p->I1 = C[0] + C[4] + C[8];
  p->I2 = 0.5 * (p->I1 * p->I1 - Contract(C, C));
  p->a  = PetscExpReal(-2.0 / 3.0 * p->lnJ);
  p->b  = p->a * p->a;
  return PETSC_TRUE;
}

/* dI2/dF = 2 (I1 F - F C) */
static inline void DI2(const SolidPoint *p, PetscReal D[9])
{
  PetscReal C[9], FC[9];

  RightCauchyGreen(p->F, C);
  SolidMul3(p->F, C, FC);
  for (PetscInt i = 0; i < 9; i++) D[i] = 2 * (p->I1 * p->F[i] - FC[i]);
}

/* P and W of c1 (J^-2/3 I1 - 3) + c2 (J^-4/3 I2 - 3) + kappa/4 (J^2 - 1 - 2 ln J) */
void SolidInvariantStress(PetscReal c1, PetscReal c2, PetscReal kappa, const SolidPoint *p, PetscReal P[9], PetscReal *W)
{
  PetscReal       D2[9] = {0};
  const PetscReal vol   = 0.5 * kappa * (p->J * p->J - 1);

  if (c2 != 0) DI2(p, D2);
  for (PetscInt i = 0; i < 9; i++) P[i] = 2 * c1 * p->a * (p->F[i] - p->I1 / 3 * p->FinvT[i]) + c2 * p->b * (D2[i] - 4.0 / 3.0 * p->I2 * p->FinvT[i]) + vol * p->FinvT[i];
  if (W) *W = c1 * (p->a * p->I1 - 3) + c2 * (p->b * p->I2 - 3) + 0.25 * kappa * (p->J * p->J - 1 - 2 * p->lnJ);
}

/*
  dP of SolidInvariantStress() for the direction dF, with tau = F^-T:dF = tr(F^-1 dF), da = -2/3 a tau,
  db = -4/3 b tau, dI1 = 2 F:dF, dI2 = D2:dF, dD2 = 2 (dI1 F + I1 dF - dF C - F dC), dC = dF^T F + F^T dF
*/
void SolidInvariantStressDiff(PetscReal c1, PetscReal c2, PetscReal kappa, const SolidPoint *p, const PetscReal dF[9], PetscReal dP[9])
{
  const PetscReal tau = Contract(p->FinvT, dF), dI1 = 2 * Contract(p->F, dF), J2 = p->J * p->J;
  PetscReal       B[9], iso1, vol;

  InvTDiff(p->FinvT, dF, B); /* d(F^-T) = -B */
  iso1 = 2 * c1 * p->a;
  vol  = 0.5 * kappa * (J2 - 1);
  for (PetscInt i = 0; i < 9; i++) {
    const PetscReal G1 = p->F[i] - p->I1 / 3 * p->FinvT[i], dG1 = dF[i] - dI1 / 3 * p->FinvT[i] + p->I1 / 3 * B[i];

    dP[i] = iso1 * (-2.0 / 3.0 * tau * G1 + dG1) + kappa * J2 * tau * p->FinvT[i] - vol * B[i];
  }
  if (c2 != 0) {
    PetscReal D2[9], C[9], FC[9], dC[9], dFC[9], FdC[9], dI2;

    DI2(p, D2);
    dI2 = Contract(D2, dF);
    RightCauchyGreen(p->F, C);
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) dC[3 * i + j] = dF[i] * p->F[j] + dF[3 + i] * p->F[3 + j] + dF[6 + i] * p->F[6 + j] + p->F[i] * dF[j] + p->F[3 + i] * dF[3 + j] + p->F[6 + i] * dF[6 + j];
    SolidMul3(p->F, C, FC);
    SolidMul3(dF, C, dFC);
    SolidMul3(p->F, dC, FdC);
    for (PetscInt i = 0; i < 9; i++) {
      const PetscReal G2 = D2[i] - 4.0 / 3.0 * p->I2 * p->FinvT[i], dD2 = 2 * (dI1 * p->F[i] + p->I1 * dF[i] - dFC[i] - FdC[i]), dG2 = dD2 - 4.0 / 3.0 * (dI2 * p->FinvT[i] - p->I2 * B[i]);

      dP[i] += c2 * p->b * (-4.0 / 3.0 * tau * G2 + dG2);
    }
    (void)FC;
  }
}

static void SplitStress(const SolidModuli *m, const SolidPoint *p, PetscReal P[9], PetscReal *W)
{
  SolidInvariantStress(0.5 * m->mu, 0, m->kappa, p, P, W);
}

static void SplitStressDiff(const SolidModuli *m, const SolidPoint *p, const PetscReal dF[9], PetscReal dP[9])
{
  SolidInvariantStressDiff(0.5 * m->mu, 0, m->kappa, p, dF, dP);
}

static void MooneyRivlinStress(const SolidModuli *m, const SolidPoint *p, PetscReal P[9], PetscReal *W)
{
  SolidInvariantStress(m->c1, m->c2, m->kappa, p, P, W);
}

static void MooneyRivlinStressDiff(const SolidModuli *m, const SolidPoint *p, const PetscReal dF[9], PetscReal dP[9])
{
  SolidInvariantStressDiff(m->c1, m->c2, m->kappa, p, dF, dP);
}

/* the matrix-free action keeps F; the rest is recomputed per application (an inverse and a power) */
void SolidInvariantPack(const SolidModuli *m, const SolidPoint *p, PetscReal st[])
{
  (void)m;
  for (PetscInt i = 0; i < 9; i++) st[i] = p->F[i];
}

void SolidInvariantUnpack(const SolidModuli *m, const PetscReal st[], SolidPoint *p)
{
  (void)SolidIsochoricSetUp(m, st, p);
}

/* ------------------------------------------------------------------------------------------ */
/* Discrete stresses (docs/schemes.md §10)                                            */
/* ------------------------------------------------------------------------------------------ */

/* The linear material's energy is quadratic in F: the stress at the mean F is exact */
static PetscBool LinearDiscreteStress(const SolidModuli *m, const PetscReal F0[9], const PetscReal F1[9], PetscReal Pbar[9])
{
  SolidPoint p;
  PetscReal  Fm[9];

  for (PetscInt i = 0; i < 9; i++) Fm[i] = 0.5 * (F0[i] + F1[i]);
  (void)LinearSetUp(m, Fm, &p);
  LinearStress(m, &p, Pbar, NULL);
  return PETSC_TRUE;
}

/* The material at C: Fh = L^T with C = L L^T (Cholesky; W depends on C only), its point, Fh^-1 and S */
typedef struct {
  SolidPoint p;
  PetscReal  Fh[9], Fhinv[9], S[9];
} SolidPointOfC;

/* S = 2 dW/dC at C from the material at Fh: S = Fh^-1 P(Fh), symmetrized; keeps what DStressOfC() needs */
static PetscBool PointOfC(const SolidModuli *m, PetscBool (*setup)(const SolidModuli *, const PetscReal[9], SolidPoint *), void (*stress)(const SolidModuli *, const SolidPoint *, PetscReal[9], PetscReal *), const PetscReal C[9], SolidPointOfC *pc)
{
  PetscReal L[9] = {0}, Ph[9], A[9], det;

  L[0] = PetscSqrtReal(C[0]);
  L[3] = C[3] / L[0];
  L[6] = C[6] / L[0];
  L[4] = PetscSqrtReal(C[4] - L[3] * L[3]);
  L[7] = (C[7] - L[6] * L[3]) / L[4];
  L[8] = PetscSqrtReal(C[8] - L[6] * L[6] - L[7] * L[7]);
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) pc->Fh[3 * i + j] = L[3 * j + i];
  det = SolidDet3(pc->Fh);
  if (!(det > 0) || !setup(m, pc->Fh, &pc->p)) return PETSC_FALSE;
  stress(m, &pc->p, Ph, NULL);
  SolidInv3(pc->Fh, det, pc->Fhinv);
  SolidMul3(pc->Fhinv, Ph, A);
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) pc->S[3 * i + j] = 0.5 * (A[3 * i + j] + A[3 * j + i]);
  return PETSC_TRUE;
}

/* S = 2 dW/dC at C (PointOfC()) */
static PetscBool StressOfC(const SolidModuli *m, PetscBool (*setup)(const SolidModuli *, const PetscReal[9], SolidPoint *), void (*stress)(const SolidModuli *, const SolidPoint *, PetscReal[9], PetscReal *), const PetscReal C[9], PetscReal S[9])
{
  SolidPointOfC pc;

  if (!PointOfC(m, setup, stress, C, &pc)) return PETSC_FALSE;
  for (PetscInt i = 0; i < 9; i++) S[i] = pc.S[i];
  return PETSC_TRUE;
}

/*
  dS = (dS/dC) X at the point of C for a symmetric X, from the material's dP: dFh = Fh^-T X / 2
  satisfies Fh^T dFh + dFh^T Fh = X (a change of C by X), and P = Fh S gives dS = Fh^-1 (dP - dFh S)
*/
static void DStressOfC(const SolidModuli *m, void (*dstress)(const SolidModuli *, const SolidPoint *, const PetscReal[9], PetscReal[9]), const SolidPointOfC *pc, const PetscReal X[9], PetscReal dS[9])
{
  PetscReal dFh[9], dP[9], B[9], A[9];

  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) dFh[3 * i + j] = 0.5 * (pc->Fhinv[i] * X[j] + pc->Fhinv[3 + i] * X[3 + j] + pc->Fhinv[6 + i] * X[6 + j]);
  dstress(m, &pc->p, dFh, dP);
  SolidMul3(dFh, pc->S, B);
  for (PetscInt i = 0; i < 9; i++) dP[i] -= B[i];
  SolidMul3(pc->Fhinv, dP, A);
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) dS[3 * i + j] = 0.5 * (A[3 * i + j] + A[3 * j + i]);
}

/* The states of a step as the discrete stresses of C use them: C0, C1, their mean Cm and
   difference dC, the mean F, dC : dC and Cm : Cm */
static void DiscreteStressStates(const PetscReal F0[9], const PetscReal F1[9], PetscReal C0[9], PetscReal C1[9], PetscReal Cm[9], PetscReal dC[9], PetscReal Fm[9], PetscReal *dd, PetscReal *cc)
{
  RightCauchyGreen(F0, C0);
  RightCauchyGreen(F1, C1);
  *dd = *cc = 0;
  for (PetscInt i = 0; i < 9; i++) {
    Cm[i] = 0.5 * (C0[i] + C1[i]);
    dC[i] = C1[i] - C0[i];
    Fm[i] = 0.5 * (F0[i] + F1[i]);
    *dd += dC[i] * dC[i];
    *cc += Cm[i] * Cm[i];
  }
}

/*
  Pbar = Fm Sbar, Fm = (F0 + F1)/2, for an energy W(C) (Gonzalez, Comput. Methods Appl. Mech.
  Engrg. 190, 2000): with Cm = (C0 + C1)/2, dC = C1 - C0 and S(C) = 2 dW/dC,

      Sbar = S(Cm) + 2 [W(C1) - W(C0) - S(Cm) : dC / 2] dC / (dC : dC),

  so that Pbar : dF = Sbar : dC / 2 = W(C1) - W(C0) (dC = Fm^T dF + dF^T Fm), and Pbar Fm^T is
  symmetric (angular momentum). quadratic: W quadratic in C (St. Venant-Kirchhoff, Simo & Tarnow,
  ZAMP 43, 1992), the correction vanishes.

  Round-off: the bracket is O(|dC|^3) while W(C1) - W(C0) carries the rounding of W itself
  (eps mu for the neo-Hookean I1 - 3), which the division by dC : dC would turn into stress noise
  eps mu / |dC|, above Newton's tolerance for small steps. Below |dC| = 1e-3 |Cm| the bracket is
  computed as the difference of 3-point Gauss-Legendre quadrature of W(C1) - W(C0) =
  1/2 int_0^1 S(C0 + s dC) : dC ds and the midpoint rule, (5/36) (S- + S+ - 2 S(Cm)) : dC, whose
  rounding is eps |S| |dC| (stress noise eps |S|) and whose error against the exact difference is
  O(|dC|^7), below round-off there.
*/
PetscBool SolidDiscreteStressC(const SolidModuli *m, PetscBool (*setup)(const SolidModuli *, const PetscReal[9], SolidPoint *), void (*stress)(const SolidModuli *, const SolidPoint *, PetscReal[9], PetscReal *), PetscBool quadratic, const PetscReal F0[9], const PetscReal F1[9], PetscReal Pbar[9])
{
  PetscReal C0[9], C1[9], Cm[9], dC[9], Sm[9], Fm[9], dd = 0, cc = 0, br;

  DiscreteStressStates(F0, F1, C0, C1, Cm, dC, Fm, &dd, &cc);
  if (!StressOfC(m, setup, stress, Cm, Sm)) return PETSC_FALSE;
  if (!quadratic && dd > 0) {
    if (dd > 1e-6 * cc) {
      PetscReal  W0, W1, P[9];
      SolidPoint p;

      /* the materials with an energy correction need J > 0 (their W has ln J or J^-2/3) */
      if (!setup(m, F0, &p) || !(p.J > 0)) return PETSC_FALSE;
      stress(m, &p, P, &W0);
      if (!setup(m, F1, &p) || !(p.J > 0)) return PETSC_FALSE;
      stress(m, &p, P, &W1);
      br = W1 - W0 - 0.5 * Contract(Sm, dC);
    } else {
      const PetscReal h = 0.5 * PetscSqrtReal(0.6);
      PetscReal       Cs[9], Sa[9], Sb[9], sum[9];

      if (SolidDet3(F0) <= 0 || SolidDet3(F1) <= 0) return PETSC_FALSE;
      for (PetscInt i = 0; i < 9; i++) Cs[i] = Cm[i] - h * dC[i];
      if (!StressOfC(m, setup, stress, Cs, Sa)) return PETSC_FALSE;
      for (PetscInt i = 0; i < 9; i++) Cs[i] = Cm[i] + h * dC[i];
      if (!StressOfC(m, setup, stress, Cs, Sb)) return PETSC_FALSE;
      for (PetscInt i = 0; i < 9; i++) sum[i] = (Sa[i] - Sm[i]) + (Sb[i] - Sm[i]);
      br = 5.0 / 36.0 * Contract(sum, dC);
    }
    for (PetscInt i = 0; i < 9; i++) Sm[i] += 2 * br / dd * dC[i];
  }
  SolidMul3(Fm, Sm, Pbar);
  return PETSC_TRUE;
}

static PetscBool SvkDiscreteStress(const SolidModuli *m, const PetscReal F0[9], const PetscReal F1[9], PetscReal Pbar[9])
{
  return SolidDiscreteStressC(m, SvkSetUp, SvkStress, PETSC_TRUE, F0, F1, Pbar);
}

static PetscBool NeoHookeanDiscreteStress(const SolidModuli *m, const PetscReal F0[9], const PetscReal F1[9], PetscReal Pbar[9])
{
  return SolidDiscreteStressC(m, NeoHookeanSetUp, NeoHookeanStress, PETSC_FALSE, F0, F1, Pbar);
}

static PetscBool SplitDiscreteStress(const SolidModuli *m, const PetscReal F0[9], const PetscReal F1[9], PetscReal Pbar[9])
{
  return SolidDiscreteStressC(m, SolidIsochoricSetUp, SplitStress, PETSC_FALSE, F0, F1, Pbar);
}

static PetscBool MooneyRivlinDiscreteStress(const SolidModuli *m, const PetscReal F0[9], const PetscReal F1[9], PetscReal Pbar[9])
{
  return SolidDiscreteStressC(m, SolidIsochoricSetUp, MooneyRivlinStress, PETSC_FALSE, F0, F1, Pbar);
}

/*
  The derivatives of the discrete stresses in F1 (the Jacobian of discgrad2's Newton, discgrad.c;
  docs/schemes.md §11): A = dPbar/dF1, 9 x 9 row-major, A[9 p + r] = dPbar_p / dF1_r with p, r the
  row-major places of the 3 x 3 matrices. Generally not symmetric.
*/

/* The linear material: Pbar = P(Fm) is linear in F1 with the slope half the tangent */
static PetscBool LinearDiscreteStressJacobian(const SolidModuli *m, const PetscReal F0[9], const PetscReal F1[9], PetscReal Pbar[9], PetscReal A[81])
{
  SolidPoint p;
  PetscReal  H[9] = {0}, dP[9];

  (void)LinearDiscreteStress(m, F0, F1, Pbar);
  (void)LinearSetUp(m, F1, &p); /* LinearStressDiff() reads none of it */
  for (PetscInt r = 0; r < 9; r++) {
    H[r] = 1;
    LinearStressDiff(m, &p, H, dP);
    H[r] = 0;
    for (PetscInt q = 0; q < 9; q++) A[9 * q + r] = 0.5 * dP[q];
  }
  return PETSC_TRUE;
}

/*
  Pbar and dPbar/dF1 of SolidDiscreteStressC(), differentiating what it computes, branch by branch.
  A change H of F1 changes C1 by G = F1^T H + H^T F1, Cm by G/2, dC by G and dC:dC by 2 dC:G;
  dPbar = H Sbar / 2 + Fm dSbar with, for the correction Sbar = Sm + 2 br dC / (dC:dC),

      dSbar = dSm + 2 [dbr / (dC:dC) - 2 br (dC:G) / (dC:dC)^2] dC + 2 br G / (dC:dC),   dSm = S'(Cm) G/2,

  Gonzalez's bracket br = W(C1) - W(C0) - Sm:dC/2:  dbr = P(F1):H - (dSm:dC + Sm:G)/2,
  the Gauss bracket br = 5/36 (Sa + Sb - 2 Sm):dC, Sa,b = S(Cm -+ h dC):
      dbr = 5/36 [(S'(Ca) (1/2 - h) G + S'(Cb) (1/2 + h) G - 2 dSm):dC + (Sa + Sb - 2 Sm):G].
  S' X (DStressOfC()) is the material's own dP at the Cholesky point of C; PETSC_FALSE where
  SolidDiscreteStressC() fails.
*/
PetscBool SolidDiscreteStressCJacobian(const SolidModuli *m, PetscBool (*setup)(const SolidModuli *, const PetscReal[9], SolidPoint *), void (*stress)(const SolidModuli *, const SolidPoint *, PetscReal[9], PetscReal *), void (*dstress)(const SolidModuli *, const SolidPoint *, const PetscReal[9], PetscReal[9]), PetscBool quadratic, const PetscReal F0[9], const PetscReal F1[9], PetscReal Pbar[9], PetscReal A[81])
{
  const PetscReal h = 0.5 * PetscSqrtReal(0.6);
  PetscReal       C0[9], C1[9], Cm[9], dC[9], Fm[9], Sbar[9], P1[9], Sab[9], dd = 0, cc = 0, br = 0;
  SolidPointOfC   pm, pa, pb;
  PetscInt        branch = 0; /* 0: Sbar = Sm, 1: Gonzalez's bracket, 2: the Gauss bracket */

  DiscreteStressStates(F0, F1, C0, C1, Cm, dC, Fm, &dd, &cc);
  if (!PointOfC(m, setup, stress, Cm, &pm)) return PETSC_FALSE;
  if (!quadratic && dd > 0) {
    if (dd > 1e-6 * cc) {
      PetscReal  W0, W1;
      SolidPoint p;

      if (!setup(m, F0, &p) || !(p.J > 0)) return PETSC_FALSE;
      stress(m, &p, P1, &W0);
      if (!setup(m, F1, &p) || !(p.J > 0)) return PETSC_FALSE;
      stress(m, &p, P1, &W1);
      br     = W1 - W0 - 0.5 * Contract(pm.S, dC);
      branch = 1;
    } else {
      PetscReal Cs[9];

      if (SolidDet3(F0) <= 0 || SolidDet3(F1) <= 0) return PETSC_FALSE;
      for (PetscInt i = 0; i < 9; i++) Cs[i] = Cm[i] - h * dC[i];
      if (!PointOfC(m, setup, stress, Cs, &pa)) return PETSC_FALSE;
      for (PetscInt i = 0; i < 9; i++) Cs[i] = Cm[i] + h * dC[i];
      if (!PointOfC(m, setup, stress, Cs, &pb)) return PETSC_FALSE;
      for (PetscInt i = 0; i < 9; i++) Sab[i] = (pa.S[i] - pm.S[i]) + (pb.S[i] - pm.S[i]);
      br     = 5.0 / 36.0 * Contract(Sab, dC);
      branch = 2;
    }
  }
  for (PetscInt i = 0; i < 9; i++) Sbar[i] = pm.S[i] + (branch ? 2 * br / dd * dC[i] : 0);
  SolidMul3(Fm, Sbar, Pbar);
  for (PetscInt r = 0; r < 9; r++) {
    const PetscInt ri = r / 3, rl = r % 3; /* H = e_ri e_rl^T */
    PetscReal      G[9], G2[9], dSm[9], dSbar[9], dP[9];

    for (PetscInt j = 0; j < 3; j++)
      for (PetscInt k = 0; k < 3; k++) G[3 * j + k] = (k == rl ? F1[3 * ri + j] : 0) + (j == rl ? F1[3 * ri + k] : 0);
    for (PetscInt i = 0; i < 9; i++) G2[i] = 0.5 * G[i];
    DStressOfC(m, dstress, &pm, G2, dSm);
    for (PetscInt i = 0; i < 9; i++) dSbar[i] = dSm[i];
    if (branch) {
      const PetscReal dGd = Contract(dC, G);
      PetscReal       dbr, c1, c2;

      if (branch == 1) dbr = P1[r] - 0.5 * (Contract(dSm, dC) + Contract(pm.S, G));
      else {
        PetscReal X[9], dSa[9], dSb[9];

        for (PetscInt i = 0; i < 9; i++) X[i] = (0.5 - h) * G[i];
        DStressOfC(m, dstress, &pa, X, dSa);
        for (PetscInt i = 0; i < 9; i++) X[i] = (0.5 + h) * G[i];
        DStressOfC(m, dstress, &pb, X, dSb);
        for (PetscInt i = 0; i < 9; i++) X[i] = (dSa[i] - dSm[i]) + (dSb[i] - dSm[i]);
        dbr = 5.0 / 36.0 * (Contract(X, dC) + Contract(Sab, G));
      }
      c1 = 2 * (dbr / dd - 2 * br * dGd / (dd * dd));
      c2 = 2 * br / dd;
      for (PetscInt i = 0; i < 9; i++) dSbar[i] += c1 * dC[i] + c2 * G[i];
    }
    /* dPbar = H Sbar / 2 + Fm dSbar; H Sbar is row rl of Sbar in row ri */
    SolidMul3(Fm, dSbar, dP);
    for (PetscInt j = 0; j < 3; j++) dP[3 * ri + j] += 0.5 * Sbar[3 * rl + j];
    for (PetscInt q = 0; q < 9; q++) A[9 * q + r] = dP[q];
  }
  return PETSC_TRUE;
}

static PetscBool SvkDiscreteStressJacobian(const SolidModuli *m, const PetscReal F0[9], const PetscReal F1[9], PetscReal Pbar[9], PetscReal A[81])
{
  return SolidDiscreteStressCJacobian(m, SvkSetUp, SvkStress, SvkStressDiff, PETSC_TRUE, F0, F1, Pbar, A);
}

static PetscBool NeoHookeanDiscreteStressJacobian(const SolidModuli *m, const PetscReal F0[9], const PetscReal F1[9], PetscReal Pbar[9], PetscReal A[81])
{
  return SolidDiscreteStressCJacobian(m, NeoHookeanSetUp, NeoHookeanStress, NeoHookeanStressDiff, PETSC_FALSE, F0, F1, Pbar, A);
}

static PetscBool SplitDiscreteStressJacobian(const SolidModuli *m, const PetscReal F0[9], const PetscReal F1[9], PetscReal Pbar[9], PetscReal A[81])
{
  return SolidDiscreteStressCJacobian(m, SolidIsochoricSetUp, SplitStress, SplitStressDiff, PETSC_FALSE, F0, F1, Pbar, A);
}

static PetscBool MooneyRivlinDiscreteStressJacobian(const SolidModuli *m, const PetscReal F0[9], const PetscReal F1[9], PetscReal Pbar[9], PetscReal A[81])
{
  return SolidDiscreteStressCJacobian(m, SolidIsochoricSetUp, MooneyRivlinStress, MooneyRivlinStressDiff, PETSC_FALSE, F0, F1, Pbar, A);
}

/* ------------------------------------------------------------------------------------------ */
/* The table                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/* The materials of this file (registered in materialtable.c) */
const SolidMaterialOps SolidMaterialsBuiltin[] = {
    {"linear",           "small-strain linear elasticity (E, nu or mu, lambda); the system is linear",                                            SOLID_MODULI_LAME,          PETSC_TRUE,  PETSC_FALSE, PETSC_FALSE, 0,  LinearSetUp,         LinearStress,       LinearStressDiff,       NULL,               NULL,                 LinearDiscreteStress,       LinearDiscreteStressJacobian,       SolidLinearStressDiffBatch,     PETSC_FALSE},
    {"svk",              "St. Venant-Kirchhoff (E, nu or mu, lambda)",                                                                            SOLID_MODULI_LAME,          PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 18, SvkSetUp,            SvkStress,          SvkStressDiff,          SvkPack,            SvkUnpack,            SvkDiscreteStress,          SvkDiscreteStressJacobian,          NULL,                           PETSC_FALSE},
    {"neohookean",       "compressible neo-Hookean mu/2 (I1 - 3) - mu ln J + lambda/2 ln^2 J (E, nu or mu, lambda)",                              SOLID_MODULI_LAME,          PETSC_FALSE, PETSC_TRUE,  PETSC_TRUE,  10, NeoHookeanSetUp,     NeoHookeanStress,   NeoHookeanStressDiff,   NeoHookeanPack,     NeoHookeanUnpack,     NeoHookeanDiscreteStress,   NeoHookeanDiscreteStressJacobian,   SolidNeoHookeanStressDiffBatch, PETSC_FALSE},
    {"neohookean_split", "neo-Hookean with an isochoric-volumetric split mu/2 (J^-2/3 I1 - 3) + kappa/4 (J^2 - 1 - 2 ln J) (E, nu or mu, kappa)", SOLID_MODULI_MU_KAPPA,      PETSC_FALSE, PETSC_TRUE,  PETSC_FALSE, 9,  SolidIsochoricSetUp, SplitStress,        SplitStressDiff,        SolidInvariantPack, SolidInvariantUnpack, SplitDiscreteStress,        SplitDiscreteStressJacobian,        NULL,                           PETSC_FALSE},
    {"mooney_rivlin",    "Mooney-Rivlin c1 (J^-2/3 I1 - 3) + c2 (J^-4/3 I2 - 3) + kappa/4 (J^2 - 1 - 2 ln J) (c1, c2, kappa, or E, nu)",          SOLID_MODULI_MOONEY_RIVLIN, PETSC_FALSE, PETSC_TRUE,  PETSC_FALSE, 9,  SolidIsochoricSetUp, MooneyRivlinStress, MooneyRivlinStressDiff, SolidInvariantPack, SolidInvariantUnpack, MooneyRivlinDiscreteStress, MooneyRivlinDiscreteStressJacobian, NULL,                           PETSC_FALSE},
};

/*
  The moduli of material mat from the options given (set*): E and nu, or the material's own
  (mu, lambda; mu, kappa; c1, c2, kappa); every combination another material's moduli or a
  modulus out of range is refused naming the options. E and nu (derived if not given) are what
  the output records.
*/
PetscErrorCode SolidModuliFromOptions(MPI_Comm comm, const char o[], const SolidMaterialOps *mat, PetscBool setE, PetscReal E, PetscBool setnu, PetscReal nu, PetscBool setmu, PetscReal mu, PetscBool setlambda, PetscReal lambda, PetscBool setkappa, PetscReal kappa, PetscBool setc1, PetscReal c1, PetscBool setc2, PetscReal c2, SolidModuli *mod, PetscReal *Eout, PetscReal *nuout)
{
  const PetscBool split = mat->moduli == SOLID_MODULI_MU_KAPPA ? PETSC_TRUE : PETSC_FALSE, mr = mat->moduli == SOLID_MODULI_MOONEY_RIVLIN ? PETSC_TRUE : PETSC_FALSE, lame = !split && !mr;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(mod, sizeof(*mod)));
  PetscCheck(!(setkappa && lame), comm, PETSC_ERR_ARG_INCOMP, "%s_kappa: material %s takes E, nu or mu, lambda (kappa is for neohookean_split and mooney_rivlin)", o, mat->name);
  PetscCheck(!((setc1 || setc2) && !mr), comm, PETSC_ERR_ARG_INCOMP, "%s_c1, %s_c2: only materials mooney_rivlin and yeoh take them, not %s", o, o, mat->name);
  PetscCheck(!(setlambda && !lame), comm, PETSC_ERR_ARG_INCOMP, "%s_lambda: material %s takes %s_kappa for its volume, not lambda", o, mat->name, o);
  PetscCheck(!(setmu && mr), comm, PETSC_ERR_ARG_INCOMP, "%s_mu: material %s takes %s_c1 and %s_c2 (mu = 2 (c1 + c2), yeoh: 2 c1)", o, mat->name, o, o);
  PetscCheck(!setE || E > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s_E %g must be positive", o, (double)E);
  PetscCheck(!setnu || (nu > -1 && nu < 0.5), comm, PETSC_ERR_ARG_OUTOFRANGE, "%s_nu %g must be in (-1, 1/2)", o, (double)nu);
  if (lame) {
    PetscCheck(!(setmu || setlambda) || !(setE || setnu), comm, PETSC_ERR_ARG_INCOMP, "Give either %s_E and %s_nu or %s_mu and %s_lambda, not both", o, o, o, o);
    if (setmu || setlambda) {
      PetscCheck(setmu && setlambda, comm, PETSC_ERR_ARG_WRONG, "%s_mu and %s_lambda go together: give both", o, o);
      PetscCheck(mu > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s_mu %g must be positive", o, (double)mu);
      PetscCheck(3 * lambda + 2 * mu > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s_lambda %g: the bulk modulus lambda + 2 mu / 3 must be positive", o, (double)lambda);
      E  = mu * (3 * lambda + 2 * mu) / (lambda + mu);
      nu = lambda / (2 * (lambda + mu));
    } else {
      mu     = E / (2 * (1 + nu));
      lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
    }
    kappa = lambda + 2 * mu / 3;
  } else {
    if (split) {
      PetscCheck(!(setmu || setkappa) || !(setE || setnu), comm, PETSC_ERR_ARG_INCOMP, "Give either %s_E and %s_nu or %s_mu and %s_kappa, not both", o, o, o, o);
      if (setmu || setkappa) PetscCheck(setmu && setkappa, comm, PETSC_ERR_ARG_WRONG, "%s_mu and %s_kappa go together: give both", o, o);
      if (!setmu) mu = E / (2 * (1 + nu));
    } else {
      PetscCheck(!((setc1 || setc2) && setE), comm, PETSC_ERR_ARG_INCOMP, "Give either %s_E or %s_c1 and %s_c2, not both", o, o, o);
      if (!setc1 && !setc2) {
        c1 = E / (4 * (1 + nu));
        c2 = 0;
      }
      PetscCheck(c1 >= 0 && c2 >= 0 && c1 + c2 > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s_c1 %g %s_c2 %g: both must be non-negative and their sum positive", o, (double)c1, o, (double)c2);
      mu = 2 * (c1 + (mat->c2notshear ? 0 : c2));
      PetscCheck(!(setkappa && setnu), comm, PETSC_ERR_ARG_INCOMP, "Give either %s_nu or %s_kappa, not both", o, o);
    }
    PetscCheck(mu > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s_mu %g must be positive", o, (double)mu);
    if (!setkappa) kappa = 2 * mu * (1 + nu) / (3 * (1 - 2 * nu));
    PetscCheck(kappa > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s_kappa %g must be positive", o, (double)kappa);
    lambda = kappa - 2 * mu / 3;
    E      = 9 * kappa * mu / (3 * kappa + mu);
    nu     = (3 * kappa - 2 * mu) / (2 * (3 * kappa + mu));
  }
  mod->mu     = mu;
  mod->lambda = lambda;
  mod->kappa  = kappa;
  mod->c1     = mr ? c1 : mu / 2;
  mod->c2     = mr ? c2 : 0;
  *Eout       = E;
  *nuout      = nu;
  PetscFunctionReturn(0);
}
