/*
  Solid: a hyperelastic body meshed with linear (P1) tetrahedra on a distributed DMPlex.

  q holds the current position of every vertex (3 dofs per vertex), the mesh coordinates are the
  reference configuration. On a tetrahedron with reference vertices X0..X3 and current x0..x3

      Dm = [X1 - X0, X2 - X0, X3 - X0],  Ds = [x1 - x0, ...],  F = Ds Dm^-1,  V0 = |det Dm| / 6,

  and the nodal forces (moved to the left-hand side, f = dW/dq) are f_a = V0 P(F) g_a, with g_a
  (a = 1, 2, 3) the rows of Dm^-1 and g_0 = -(g_1 + g_2 + g_3): the gradients of the linear shape
  functions. P = dW/dF is the first Piola-Kirchhoff stress of the material:

      linear       P = lambda tr(eps) I + 2 mu eps,  eps = (H + H^T)/2, H = F - I
      svk          P = F S,  S = lambda tr(E) I + 2 mu E,  E = (F^T F - I)/2
      neohookean   P = mu (F - F^-T) + lambda ln J F^-T,  J = det F

  (docs/solid.md, §1 and §3; Bonet and Wood, Nonlinear Continuum Mechanics for Finite Element
  Analysis, 2nd ed., the chapter on hyperelasticity). The consistent tangent (§4)
  K_{ai,bk} = V0 (dP/dF)_{ijkl} g_aj g_bl comes from the directional derivatives dP of each law,
  evaluated for dF = e_k g_b^T.

  Each cell belongs to exactly one rank (no overlap); element contributions are summed in local
  vectors and added into the global ones (DMLocalToGlobal with ADD_VALUES), and matrices are
  assembled with global indices.

  Rayleigh damping D = alpha M + beta K0 (K0 the tangent at the reference configuration),
  gravity -M g, an initial velocity uniform plus a rigid spin about the centroid. Invariants:
  the three components of the linear momentum sum_i (M v)_i and of the angular momentum
  sum_i q_i x (M v)_i (§5, §8). The rigid-body modes are the tangent's near-null space (§6); an
  inverted element fails the stage (§7).
*/
#include <tsmech.h>
#include <petscdmplex.h>
#include <petscsf.h>
#include "solidmesh.h"
#include <stdint.h>
#include <string.h>

#if defined(PETSC_USE_COMPLEX)
#error "The solid model needs a real PETSc build (PetscScalar == PetscReal)"
#endif

typedef enum {
  SOLID_LINEAR,
  SOLID_SVK,
  SOLID_NEOHOOKEAN
} SolidMaterial;
static const char *const SolidMaterials[] = {"linear", "svk", "neohookean", "SolidMaterial", "SOLID_", NULL};
static const char *const SolidMassTypes[] = {"consistent", "lumped", "SolidMass", "SOLID_MASS_", NULL};

typedef struct _n_Solid Solid;

/* Context of one invariant: which component of which momentum */
typedef struct {
  Solid   *s;
  PetscInt comp; /* 0, 1, 2: linear momentum; 3, 4, 5: angular momentum */
} SolidInvariant;

struct _n_Solid {
  DM             dm;
  SolidMaterial  material;
  PetscReal      mu, lambda, rho, alpha, beta, g[3];
  PetscInt       ncells;   /* local cells */
  PetscInt      *loff;     /* per cell, 4 offsets of the vertices' dofs in the local vector */
  PetscInt      *goff;     /* the same in the global numbering */
  PetscReal     *Dinv;     /* per cell, Dm^-1 (row-major 3 x 3): its rows are g_1, g_2, g_3 */
  PetscReal     *vol;      /* per cell, V0 */
  PetscReal     *ctr;      /* per cell, the reference centroid (names an inverted element) */
  PetscInt      *cellid;   /* per cell, its rank-independent number (order in the mesh file or beam) */
  PetscInt       ninv;     /* J <= 0 elements at this rank's last force evaluation that met any */
  PetscInt       firstinv; /* the smallest cellid among them (-1: none) */
  PetscReal      Jinv;     /* and its J */
  PetscReal      tinv;     /* and the time of that force evaluation */
  PetscInt       erefused; /* the last state the state check refused: its first inverted element */
  PetscReal      trefused; /* and its time (PETSC_MIN_REAL: none) */
  Mat            M, K0;    /* mass and reference tangent (K0 only with beta != 0) */
  Vec            fg;       /* gravity force -M g */
  Vec            work;     /* global work vector */
  MatNullSpace   nullsp;   /* rigid-body modes of the reference configuration */
  PetscReal     *store;    /* tangent action: per cell, what dP(dF) needs (SolidStateSize() reals) */
  PetscReal      cK, cD;   /* coefficients of the last linearization */
  SolidInvariant inv[6];
};

static PetscErrorCode SolidDestroy(void *ctx)
{
  Solid *s = (Solid *)ctx;

  PetscFunctionBegin;
  PetscCall(DMDestroy(&s->dm));
  PetscCall(PetscFree5(s->loff, s->goff, s->Dinv, s->vol, s->ctr));
  PetscCall(PetscFree(s->cellid));
  PetscCall(MatDestroy(&s->M));
  PetscCall(MatDestroy(&s->K0));
  PetscCall(VecDestroy(&s->fg));
  PetscCall(VecDestroy(&s->work));
  PetscCall(MatNullSpaceDestroy(&s->nullsp));
  PetscCall(PetscFree(s->store));
  PetscCall(PetscFree(s));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Materials                                                                                  */
/* ------------------------------------------------------------------------------------------ */

static inline PetscReal Det3(const PetscReal A[9])
{
  return A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
}

/* B = A^-1 given det A */
static inline void Inv3(const PetscReal A[9], PetscReal det, PetscReal B[9])
{
  B[0] = (A[4] * A[8] - A[5] * A[7]) / det;
  B[1] = (A[2] * A[7] - A[1] * A[8]) / det;
  B[2] = (A[1] * A[5] - A[2] * A[4]) / det;
  B[3] = (A[5] * A[6] - A[3] * A[8]) / det;
  B[4] = (A[0] * A[8] - A[2] * A[6]) / det;
  B[5] = (A[2] * A[3] - A[0] * A[5]) / det;
  B[6] = (A[3] * A[7] - A[4] * A[6]) / det;
  B[7] = (A[1] * A[6] - A[0] * A[7]) / det;
  B[8] = (A[0] * A[4] - A[1] * A[3]) / det;
}

/* C = A B (3 x 3, row-major) */
static inline void Mul3(const PetscReal A[9], const PetscReal B[9], PetscReal C[9])
{
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/*
  What the stress and its derivative at F need: for svk S, for neohookean F^-T and ln J. Returns
  PETSC_FALSE (and nothing else) when a neo-Hookean element is inverted (J <= 0).
*/
typedef struct {
  PetscReal F[9], S[9], FinvT[9], lnJ, J;
} SolidPoint;

static PetscBool SolidPointSetUp(const Solid *s, const PetscReal F[9], SolidPoint *p)
{
  PetscReal Finv[9], E[9], trE;

  for (PetscInt i = 0; i < 9; i++) p->F[i] = F[i];
  p->J = Det3(F);
  switch (s->material) {
  case SOLID_LINEAR:
    break;
  case SOLID_SVK:
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) E[3 * i + j] = 0.5 * (F[i] * F[j] + F[3 + i] * F[3 + j] + F[6 + i] * F[6 + j] - (i == j ? 1.0 : 0.0));
    trE = E[0] + E[4] + E[8];
    for (PetscInt i = 0; i < 9; i++) p->S[i] = 2 * s->mu * E[i];
    for (PetscInt i = 0; i < 3; i++) p->S[4 * i] += s->lambda * trE;
    break;
  case SOLID_NEOHOOKEAN:
    if (!(p->J > 0)) return PETSC_FALSE;
    Inv3(F, p->J, Finv);
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) p->FinvT[3 * i + j] = Finv[3 * j + i];
    p->lnJ = PetscLogReal(p->J);
    break;
  }
  return PETSC_TRUE;
}

/* P(F) and the energy density W(F) */
static void SolidStress(const Solid *s, const SolidPoint *p, PetscReal P[9], PetscReal *W)
{
  const PetscReal *F = p->F;
  PetscReal        eps[9], tr, ee = 0, E[9];

  switch (s->material) {
  case SOLID_LINEAR:
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) eps[3 * i + j] = 0.5 * (F[3 * i + j] + F[3 * j + i]) - (i == j ? 1.0 : 0.0);
    tr = eps[0] + eps[4] + eps[8];
    for (PetscInt i = 0; i < 9; i++) {
      P[i] = 2 * s->mu * eps[i];
      ee += eps[i] * eps[i];
    }
    for (PetscInt i = 0; i < 3; i++) P[4 * i] += s->lambda * tr;
    if (W) *W = 0.5 * s->lambda * tr * tr + s->mu * ee;
    break;
  case SOLID_SVK:
    Mul3(F, p->S, P);
    if (W) {
      /* S = lambda tr(E) I + 2 mu E gives back E */
      for (PetscInt i = 0; i < 3; i++)
        for (PetscInt j = 0; j < 3; j++) E[3 * i + j] = 0.5 * (F[i] * F[j] + F[3 + i] * F[3 + j] + F[6 + i] * F[6 + j] - (i == j ? 1.0 : 0.0));
      tr = E[0] + E[4] + E[8];
      for (PetscInt i = 0; i < 9; i++) ee += E[i] * E[i];
      *W = 0.5 * s->lambda * tr * tr + s->mu * ee;
    }
    break;
  case SOLID_NEOHOOKEAN:
    for (PetscInt i = 0; i < 9; i++) P[i] = s->mu * (F[i] - p->FinvT[i]) + s->lambda * p->lnJ * p->FinvT[i];
    if (W) {
      for (PetscInt i = 0; i < 9; i++) ee += F[i] * F[i];
      *W = 0.5 * s->mu * (ee - 3) - s->mu * p->lnJ + 0.5 * s->lambda * p->lnJ * p->lnJ;
    }
    break;
  }
}

/*
  dP for the direction dF:
    linear      dP = lambda tr(dF) I + mu (dF + dF^T)
    svk         dP = dF S + F dS,  dS = lambda tr(dE) I + 2 mu dE,  dE = (dF^T F + F^T dF)/2
    neohookean  dP = mu dF + (mu - lambda ln J) F^-T dF^T F^-T + lambda tr(F^-1 dF) F^-T
*/
static void SolidStressDiff(const Solid *s, const SolidPoint *p, const PetscReal dF[9], PetscReal dP[9])
{
  const PetscReal *F = p->F;
  PetscReal        tr, dE[9], dS[9], A[9], B[9], dFT[9];

  switch (s->material) {
  case SOLID_LINEAR:
    tr = dF[0] + dF[4] + dF[8];
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) dP[3 * i + j] = s->mu * (dF[3 * i + j] + dF[3 * j + i]) + (i == j ? s->lambda * tr : 0.0);
    break;
  case SOLID_SVK:
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) dE[3 * i + j] = 0.5 * (dF[i] * F[j] + dF[3 + i] * F[3 + j] + dF[6 + i] * F[6 + j] + F[i] * dF[j] + F[3 + i] * dF[3 + j] + F[6 + i] * dF[6 + j]);
    tr = dE[0] + dE[4] + dE[8];
    for (PetscInt i = 0; i < 9; i++) dS[i] = 2 * s->mu * dE[i];
    for (PetscInt i = 0; i < 3; i++) dS[4 * i] += s->lambda * tr;
    Mul3(dF, p->S, A);
    Mul3(F, dS, B);
    for (PetscInt i = 0; i < 9; i++) dP[i] = A[i] + B[i];
    break;
  case SOLID_NEOHOOKEAN:
    /* tr(F^-1 dF) = sum_ij F^-T_ij dF_ij */
    tr = 0;
    for (PetscInt i = 0; i < 9; i++) tr += p->FinvT[i] * dF[i];
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) dFT[3 * i + j] = dF[3 * j + i];
    Mul3(p->FinvT, dFT, A);
    Mul3(A, p->FinvT, B);
    for (PetscInt i = 0; i < 9; i++) dP[i] = s->mu * dF[i] + (s->mu - s->lambda * p->lnJ) * B[i] + s->lambda * tr * p->FinvT[i];
    break;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Elements                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* The shape-function gradients g[4][3] of cell c */
static inline void SolidGradients(const Solid *s, PetscInt c, PetscReal g[4][3])
{
  const PetscReal *G = &s->Dinv[9 * c];

  for (PetscInt j = 0; j < 3; j++) {
    g[1][j] = G[j];
    g[2][j] = G[3 + j];
    g[3][j] = G[6 + j];
    g[0][j] = -(G[j] + G[3 + j] + G[6 + j]);
  }
}

/* F = sum_a x_a g_a^T of cell c from the ghosted local array x */
static inline void SolidDeformation(const Solid *s, PetscInt c, const PetscScalar x[], PetscReal g[4][3], PetscReal F[9])
{
  const PetscInt *o = &s->loff[4 * c];

  SolidGradients(s, c, g);
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) F[3 * i + j] = x[o[0] + i] * g[0][j] + x[o[1] + i] * g[1][j] + x[o[2] + i] * g[2][j] + x[o[3] + i] * g[3][j];
}

/* The element tangent Ke[12][12] (row (a, i), column (b, k)) at the point p, times scale */
static void SolidElementTangent(const Solid *s, PetscInt c, const SolidPoint *p, PetscReal g[4][3], PetscReal scale, PetscReal Ke[144])
{
  const PetscReal V = s->vol[c] * scale;
  PetscReal       dF[9], dP[9];

  for (PetscInt b = 0; b < 4; b++) {
    for (PetscInt k = 0; k < 3; k++) {
      for (PetscInt i = 0; i < 9; i++) dF[i] = 0;
      for (PetscInt l = 0; l < 3; l++) dF[3 * k + l] = g[b][l];
      SolidStressDiff(s, p, dF, dP);
      for (PetscInt a = 0; a < 4; a++)
        for (PetscInt i = 0; i < 3; i++) Ke[(3 * a + i) * 12 + 3 * b + k] = V * (dP[3 * i] * g[a][0] + dP[3 * i + 1] * g[a][1] + dP[3 * i + 2] * g[a][2]);
    }
  }
}

/* The global indices of the 12 dofs of cell c */
static inline void SolidCellIndices(const Solid *s, PetscInt c, PetscInt idx[12])
{
  for (PetscInt a = 0; a < 4; a++)
    for (PetscInt i = 0; i < 3; i++) idx[3 * a + i] = s->goff[4 * c + a] + i;
}

static PetscErrorCode SolidGetLocal(const Solid *s, Vec x, Vec *xl, const PetscScalar **a)
{
  PetscFunctionBegin;
  PetscCall(DMGetLocalVector(s->dm, xl));
  PetscCall(DMGlobalToLocalBegin(s->dm, x, INSERT_VALUES, *xl));
  PetscCall(DMGlobalToLocalEnd(s->dm, x, INSERT_VALUES, *xl));
  PetscCall(VecGetArrayRead(*xl, a));
  PetscFunctionReturn(0);
}

static PetscErrorCode SolidRestoreLocal(const Solid *s, Vec *xl, const PetscScalar **a)
{
  PetscFunctionBegin;
  PetscCall(VecRestoreArrayRead(*xl, a));
  PetscCall(DMRestoreLocalVector(s->dm, xl));
  PetscFunctionReturn(0);
}

/*
  f = elastic forces + gravity + Rayleigh damping. A neo-Hookean element with J <= 0 has no
  stress: its vertices get a NaN force, so that the residual is not finite and the solver fails
  the stage (rejected and retried under an adaptive controller) instead of accepting it. A model
  has no handle on the SNES that evaluates it, so it cannot call SNESSetFunctionDomainError(); the
  non-finite residual is the signal the SNES and src/ts/stepstate.c act on. The elements with
  J <= 0 (any material) are recorded, without communication, for MechSolidGetInverted(), and
  -info names the first.
*/
static PetscErrorCode SolidForce(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
{
  Solid             *s = (Solid *)ctx;
  Vec                ql, fl;
  const PetscScalar *x;
  PetscScalar       *y;
  PetscReal          g[4][3], F[9], P[9];
  SolidPoint         p;
  PetscInt           ninv = 0, first = -1;

  PetscFunctionBegin;
  (void)sys;
  PetscCall(SolidGetLocal(s, q, &ql, &x));
  PetscCall(DMGetLocalVector(s->dm, &fl));
  PetscCall(VecZeroEntries(fl));
  PetscCall(VecGetArray(fl, &y));
  for (PetscInt c = 0; c < s->ncells; c++) {
    const PetscInt *o = &s->loff[4 * c];

    SolidDeformation(s, c, x, g, F);
    if (!SolidPointSetUp(s, F, &p)) {
      for (PetscInt a = 0; a < 4; a++)
        for (PetscInt i = 0; i < 3; i++) y[o[a] + i] = (PetscReal)NAN;
    }
    if (!(p.J > 0)) {
      ninv++;
      if (first < 0 || s->cellid[c] < s->cellid[first]) first = c;
      if (s->material == SOLID_NEOHOOKEAN) continue;
    }
    SolidStress(s, &p, P, NULL);
    for (PetscInt a = 0; a < 4; a++)
      for (PetscInt i = 0; i < 3; i++) y[o[a] + i] += s->vol[c] * (P[3 * i] * g[a][0] + P[3 * i + 1] * g[a][1] + P[3 * i + 2] * g[a][2]);
  }
  if (ninv) {
    SolidDeformation(s, first, x, g, F);
    s->ninv     = ninv;
    s->firstinv = s->cellid[first];
    s->Jinv     = Det3(F);
    s->tinv     = t;
    PetscCall(PetscInfo(s->dm, "element %" PetscInt_FMT " inverted (J = %g <= 0, reference centroid (%g, %g, %g)); %" PetscInt_FMT " inverted on this rank%s\n", s->firstinv, (double)s->Jinv, (double)s->ctr[3 * first], (double)s->ctr[3 * first + 1], (double)s->ctr[3 * first + 2], ninv, s->material == SOLID_NEOHOOKEAN ? ": the stage fails" : ""));
  }
  PetscCall(VecRestoreArray(fl, &y));
  PetscCall(SolidRestoreLocal(s, &ql, &x));
  PetscCall(VecZeroEntries(f));
  PetscCall(DMLocalToGlobalBegin(s->dm, fl, ADD_VALUES, f));
  PetscCall(DMLocalToGlobalEnd(s->dm, fl, ADD_VALUES, f));
  PetscCall(DMRestoreLocalVector(s->dm, &fl));
  if (s->fg) PetscCall(VecAXPY(f, 1.0, s->fg));
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

/* Adds scale times the element tangents at q (the ghosted local array x) into the assembled J */
static PetscErrorCode SolidAddElementTangents(Solid *s, const PetscScalar x[], PetscReal scale, Mat J)
{
  PetscReal  g[4][3], F[9], Ke[144];
  PetscInt   idx[12];
  SolidPoint p;

  PetscFunctionBegin;
  for (PetscInt c = 0; c < s->ncells; c++) {
    if (x) {
      SolidDeformation(s, c, x, g, F);
      /* an inverted neo-Hookean element has no tangent; the force has failed the stage already */
      if (!SolidPointSetUp(s, F, &p)) continue;
    } else {
      /* the reference configuration */
      SolidGradients(s, c, g);
      for (PetscInt i = 0; i < 9; i++) F[i] = i % 4 == 0 ? 1.0 : 0.0;
      (void)SolidPointSetUp(s, F, &p);
    }
    SolidElementTangent(s, c, &p, g, scale, Ke);
    SolidCellIndices(s, c, idx);
    PetscCall(MatSetValues(J, 12, idx, 12, idx, Ke, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* J = cK K + cD (alpha M + beta K0); the rigid-body modes become J's near-null space */
static PetscErrorCode SolidTangent(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  Solid             *s = (Solid *)ctx;
  Vec                ql;
  const PetscScalar *x;
  MatNullSpace       nsp;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(SolidGetLocal(s, q, &ql, &x));
  PetscCall(SolidAddElementTangents(s, x, cK, J));
  PetscCall(SolidRestoreLocal(s, &ql, &x));
  if (cD != 0 && s->alpha != 0) PetscCall(MatAXPY(J, cD * s->alpha, s->M, SAME_NONZERO_PATTERN));
  if (cD != 0 && s->beta != 0) PetscCall(MatAXPY(J, cD * s->beta, s->K0, SAME_NONZERO_PATTERN));
  PetscCall(MatGetNearNullSpace(J, &nsp));
  if (!nsp) PetscCall(MatSetNearNullSpace(J, s->nullsp));
  PetscFunctionReturn(0);
}

/*
  The matrix-free tangent keeps, per cell, only what the stress derivative needs at the
  linearization point (svk: F and S, 18 reals; neohookean: the spatial gradients and
  mu - lambda ln J, 10; linear: nothing), not the 144 entries of the element tangent, and stores
  less than the assembled matrix does (docs/solid.md, §4).
*/
static inline PetscInt SolidStateSize(const Solid *s)
{
  return s->material == SOLID_SVK ? 18 : (s->material == SOLID_NEOHOOKEAN ? 10 : 0);
}

static inline void SolidStatePack(const Solid *s, const SolidPoint *p, PetscReal g[4][3], PetscReal st[])
{
  switch (s->material) {
  case SOLID_LINEAR:
    break;
  case SOLID_SVK:
    for (PetscInt i = 0; i < 9; i++) st[i] = p->F[i];
    for (PetscInt i = 0; i < 9; i++) st[9 + i] = p->S[i];
    break;
  case SOLID_NEOHOOKEAN:
    /* the spatial gradients G_b = F^-T g_b (b = 1, 2, 3) and mu - lambda ln J */
    for (PetscInt b = 0; b < 3; b++)
      for (PetscInt i = 0; i < 3; i++) st[3 * b + i] = p->FinvT[3 * i] * g[b + 1][0] + p->FinvT[3 * i + 1] * g[b + 1][1] + p->FinvT[3 * i + 2] * g[b + 1][2];
    st[9] = s->mu - s->lambda * p->lnJ;
    break;
  }
}

/*
  The neo-Hookean tangent action of cell c in spatial form (docs/solid.md, §4): with d_b = w_b - w_0,
  dF = sum_b d_b g_b^T and H = dF F^-1 = sum_b d_b G_b^T, the force increments are
  y_a = V (mu dF g_a + (mu - lambda ln J) H^T G_a + lambda tr(H) G_a), and y_0 = -(y_1 + y_2 + y_3).
*/
static inline void SolidApplyNeoHookean(const Solid *s, PetscInt c, const PetscScalar x[], const PetscReal st[], PetscReal V, PetscScalar y[])
{
  const PetscInt  *o = &s->loff[4 * c];
  const PetscReal *g = &s->Dinv[9 * c], *G = st;
  PetscReal        d[9], dF[9], H[9], trH, r[3];

  for (PetscInt b = 0; b < 3; b++)
    for (PetscInt i = 0; i < 3; i++) d[3 * b + i] = x[o[b + 1] + i] - x[o[0] + i];
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) {
      dF[3 * i + j] = d[i] * g[j] + d[3 + i] * g[3 + j] + d[6 + i] * g[6 + j];
      H[3 * i + j]  = d[i] * G[j] + d[3 + i] * G[3 + j] + d[6 + i] * G[6 + j];
    }
  trH = H[0] + H[4] + H[8];
  for (PetscInt i = 0; i < 3; i++) r[i] = 0;
  for (PetscInt a = 0; a < 3; a++) {
    const PetscReal *ga = &g[3 * a], *Ga = &G[3 * a];

    for (PetscInt i = 0; i < 3; i++) {
      const PetscReal ya = V * (s->mu * (dF[3 * i] * ga[0] + dF[3 * i + 1] * ga[1] + dF[3 * i + 2] * ga[2]) + st[9] * (H[i] * Ga[0] + H[3 + i] * Ga[1] + H[6 + i] * Ga[2]) + s->lambda * trH * Ga[i]);

      y[o[a + 1] + i] += ya;
      r[i] += ya;
    }
  }
  for (PetscInt i = 0; i < 3; i++) y[o[0] + i] -= r[i];
}

/* The generic tangent action reads the svk state back (the neo-Hookean one has its own kernel) */
static inline void SolidStateUnpack(const Solid *s, const PetscReal st[], SolidPoint *p)
{
  if (s->material != SOLID_SVK) return;
  for (PetscInt i = 0; i < 9; i++) p->F[i] = st[i];
  for (PetscInt i = 0; i < 9; i++) p->S[i] = st[9 + i];
}

static PetscErrorCode SolidTangentLinearize(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, void *ctx)
{
  Solid             *s  = (Solid *)ctx;
  const PetscInt     ns = SolidStateSize(s);
  Vec                ql;
  const PetscScalar *x;
  PetscReal          g[4][3], F[9];
  SolidPoint         p;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  s->cK = cK;
  s->cD = cD;
  if (!ns) PetscFunctionReturn(0);
  if (!s->store) PetscCall(PetscMalloc1(ns * s->ncells, &s->store));
  PetscCall(SolidGetLocal(s, q, &ql, &x));
  for (PetscInt c = 0; c < s->ncells; c++) {
    SolidDeformation(s, c, x, g, F);
    /* an inverted neo-Hookean cell (its force has failed the stage): a zero state (docs/solid.md, §7) */
    if (!SolidPointSetUp(s, F, &p)) {
      PetscCall(PetscArrayzero(&s->store[ns * c], ns));
      continue;
    }
    SolidStatePack(s, &p, g, &s->store[ns * c]);
  }
  PetscCall(SolidRestoreLocal(s, &ql, &x));
  PetscFunctionReturn(0);
}

static PetscErrorCode SolidTangentApply(MechSystem sys, Vec w, Vec y, void *ctx)
{
  Solid             *s  = (Solid *)ctx;
  const PetscInt     ns = SolidStateSize(s);
  Vec                wl, yl;
  const PetscScalar *x;
  PetscScalar       *ya;
  SolidPoint         p;

  PetscFunctionBegin;
  (void)sys;
  PetscCall(PetscMemzero(&p, sizeof(p))); /* the linear material reads none of it */
  PetscCall(SolidGetLocal(s, w, &wl, &x));
  PetscCall(DMGetLocalVector(s->dm, &yl));
  PetscCall(VecZeroEntries(yl));
  PetscCall(VecGetArray(yl, &ya));
  for (PetscInt c = 0; c < s->ncells; c++) {
    const PetscInt *o = &s->loff[4 * c];
    const PetscReal V = s->cK * s->vol[c];
    PetscReal       g[4][3], dF[9], dP[9];

    if (s->material == SOLID_NEOHOOKEAN) {
      SolidApplyNeoHookean(s, c, x, &s->store[ns * c], V, ya);
      continue;
    }
    /* dF = sum_a w_a g_a^T: the deformation of the direction w */
    SolidDeformation(s, c, x, g, dF);
    if (ns) SolidStateUnpack(s, &s->store[ns * c], &p);
    SolidStressDiff(s, &p, dF, dP);
    for (PetscInt a = 0; a < 4; a++)
      for (PetscInt i = 0; i < 3; i++) ya[o[a] + i] += V * (dP[3 * i] * g[a][0] + dP[3 * i + 1] * g[a][1] + dP[3 * i + 2] * g[a][2]);
  }
  PetscCall(VecRestoreArray(yl, &ya));
  PetscCall(SolidRestoreLocal(s, &wl, &x));
  PetscCall(VecZeroEntries(y));
  PetscCall(DMLocalToGlobalBegin(s->dm, yl, ADD_VALUES, y));
  PetscCall(DMLocalToGlobalEnd(s->dm, yl, ADD_VALUES, y));
  PetscCall(DMRestoreLocalVector(s->dm, &yl));
  if (s->cD != 0 && s->alpha != 0) {
    PetscCall(MatMult(s->M, w, s->work));
    PetscCall(VecAXPY(y, s->cD * s->alpha, s->work));
  }
  if (s->cD != 0 && s->beta != 0) {
    PetscCall(MatMult(s->K0, w, s->work));
    PetscCall(VecAXPY(y, s->cD * s->beta, s->work));
  }
  PetscFunctionReturn(0);
}

/* Elastic energy plus the gravitational potential -g . (M q) = fg . q */
static PetscErrorCode SolidPotential(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *potential, void *ctx)
{
  Solid             *s = (Solid *)ctx;
  Vec                ql;
  const PetscScalar *x;
  PetscReal          g[4][3], F[9], P[9], W, e = 0, eg = 0;
  SolidPoint         p;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(SolidGetLocal(s, q, &ql, &x));
  for (PetscInt c = 0; c < s->ncells; c++) {
    SolidDeformation(s, c, x, g, F);
    if (!SolidPointSetUp(s, F, &p)) {
      /* the neo-Hookean energy grows without bound as J -> 0 */
      e = PETSC_INFINITY;
      break;
    }
    SolidStress(s, &p, P, &W);
    e += s->vol[c] * W;
  }
  PetscCall(SolidRestoreLocal(s, &ql, &x));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &e, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)s->dm)));
  if (s->fg) PetscCall(VecDot(s->fg, q, &eg));
  *potential = e + eg;
  PetscFunctionReturn(0);
}

/* Component comp of the linear (0-2) or angular (3-5) momentum, on every rank */
static PetscErrorCode SolidMomentum(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *value, void *ctx)
{
  SolidInvariant    *inv = (SolidInvariant *)ctx;
  Solid             *s   = inv->s;
  const PetscScalar *x, *p;
  PetscInt           n, c = inv->comp % 3;
  PetscReal          sum = 0;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  PetscCall(MatMult(s->M, v, s->work));
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArrayRead(q, &x));
  PetscCall(VecGetArrayRead(s->work, &p));
  for (PetscInt i = 0; i < n; i += 3) {
    if (inv->comp < 3) sum += p[i + c];
    else sum += x[i + (c + 1) % 3] * p[i + (c + 2) % 3] - x[i + (c + 2) % 3] * p[i + (c + 1) % 3];
  }
  PetscCall(VecRestoreArrayRead(s->work, &p));
  PetscCall(VecRestoreArrayRead(q, &x));
  PetscCall(MPIU_Allreduce(&sum, value, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)q)));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Set-up                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/*
  The built-in beam [0, Lx] x [0, Ly] x [0, Lz]: nx x ny x nz boxes, each split into the 6
  tetrahedra around its diagonal from (0, 0, 0) to (1, 1, 1) (Kuhn's triangulation, conforming
  because every box is split alike). Built on rank 0 and distributed by the caller: Debian's PETSc
  has no tetrahedral mesh generator, which DMPlexCreateBoxMesh() would need for simplices.
*/
static PetscErrorCode SolidCreateBeam(MPI_Comm comm, const PetscInt n[3], const PetscReal L[3], DM *dm)
{
  const PetscInt perm[6][3] = {
      {0, 1, 2},
      {0, 2, 1},
      {1, 0, 2},
      {1, 2, 0},
      {2, 0, 1},
      {2, 1, 0},
  };
  PetscMPIInt rank;
  PetscInt    nv = 0, nc = 0, *cells = NULL;
  PetscReal  *X = NULL;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    const PetscInt sx = 1, sy = n[0] + 1, sz = (n[0] + 1) * (n[1] + 1), st[3] = {sx, sy, sz};

    nv = (n[0] + 1) * (n[1] + 1) * (n[2] + 1);
    nc = 6 * n[0] * n[1] * n[2];
    PetscCall(PetscMalloc2(3 * nv, &X, 4 * nc, &cells));
    for (PetscInt k = 0; k <= n[2]; k++)
      for (PetscInt j = 0; j <= n[1]; j++)
        for (PetscInt i = 0; i <= n[0]; i++) {
          const PetscInt v = i * sx + j * sy + k * sz;

          X[3 * v]     = L[0] * i / n[0];
          X[3 * v + 1] = L[1] * j / n[1];
          X[3 * v + 2] = L[2] * k / n[2];
        }
    /* cells numbered along x slowest: the simple partitioner then cuts the beam across its length */
    nc = 0;
    for (PetscInt i = 0; i < n[0]; i++)
      for (PetscInt j = 0; j < n[1]; j++)
        for (PetscInt k = 0; k < n[2]; k++)
          for (PetscInt t = 0; t < 6; t++) {
            PetscInt *c = &cells[4 * nc++], odd;

            c[0] = i * sx + j * sy + k * sz;
            c[1] = c[0] + st[perm[t][0]];
            c[2] = c[1] + st[perm[t][1]];
            c[3] = c[2] + st[perm[t][2]];
            /* the even permutations (right-handed Dm) have the orientation opposite to PETSc's
               reference tetrahedron: swapping two vertices gives a positive PETSc volume */
            odd = (perm[t][0] == 0 && perm[t][1] == 2) || (perm[t][0] == 1 && perm[t][1] == 0) || (perm[t][0] == 2 && perm[t][1] == 1);
            if (!odd) {
              const PetscInt tmp = c[1];

              c[1] = c[2];
              c[2] = tmp;
            }
          }
  }
  /* not interpolated: the model needs cells and vertices only (no face labels on the beam), and
     interpolation took 10 s of the set-up at 1.6 million cells */
  PetscCall(DMPlexCreateFromCellListPetsc(comm, 3, nc, nv, 4, PETSC_FALSE, cells, 3, X, dm));
  PetscCall(PetscFree2(X, cells));
  PetscFunctionReturn(0);
}

/*
  The mesh: read (after checking on rank 0 that the file exists) or the built-in beam, and the
  rank-independent number of each of its cells (cellid, allocated here): its place among the
  file's tetrahedra (tsmech's Gmsh reader, SolidMeshReadGmsh(), and PETSc's HDF5 reader keep the
  file's order), or in the beam's construction order; and of each of its vertices (vertid,
  allocated here), likewise (a Gmsh file: the nodes of its tetrahedra in file order)
*/
static PetscErrorCode SolidCreateMesh(MPI_Comm comm, const char file[], const PetscInt cells[3], const PetscReal size[3], DM *dm, PetscInt **cellid, PetscInt **vertid)
{
  PetscInt cStart, cEnd, vStart, vEnd;

  PetscFunctionBegin;
  if (file[0]) {
    PetscBool   exists = PETSC_FALSE;
    PetscMPIInt rank;

    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    if (rank == 0) PetscCall(PetscTestFile(file, 'r', &exists));
    PetscCallMPI(MPI_Bcast(&exists, 1, MPIU_BOOL, 0, comm));
    PetscCheck(exists, comm, PETSC_ERR_FILE_OPEN, "-solid_mesh %s: the file does not exist or cannot be read", file);
    {
      const char *ext[] = {".msh", ".msh2", ".msh4", ".h5", ".hdf5"};
      PetscBool   known = PETSC_FALSE;
      size_t      len, el;

      PetscCall(PetscStrlen(file, &len));
      for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]) && !known; i++) {
        PetscCall(PetscStrlen(ext[i], &el));
        if (len > el) PetscCall(PetscStrcasecmp(file + len - el, ext[i], &known));
      }
      PetscCheck(known, comm, PETSC_ERR_ARG_WRONG, "-solid_mesh %s: not a mesh file tsmech reads (Gmsh .msh, format 2 or 4, or PETSc's DMPlex HDF5 .h5)", file);
    }
    {
      /* the signature of the file (read on rank 0): an HDF5 file, or text starting with a Gmsh
         section ($MeshFormat, or $Comments or another section before it) */
      static const unsigned char hdf5sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
      unsigned char              head[16]   = {0};
      PetscInt                   kind       = 0; /* 0: neither, 1: Gmsh, 2: HDF5 */
      char                       what[PETSC_MAX_PATH_LEN + 16];

      if (rank == 0) {
        FILE *fp = fopen(file, "rb");

        if (fp) {
          size_t nread = fread(head, 1, sizeof(head), fp), k = 0;

          (void)fclose(fp);
          while (k < nread && (head[k] == ' ' || head[k] == '\t' || head[k] == '\r' || head[k] == '\n')) k++;
          if (nread >= 8 && !memcmp(head, hdf5sig, 8)) kind = 2;
          else if (k < nread && head[k] == '$') kind = 1;
        }
      }
      PetscCallMPI(MPI_Bcast(&kind, 1, MPIU_INT, 0, comm));
      PetscCheck(kind, comm, PETSC_ERR_ARG_WRONG, "-solid_mesh %s: neither a Gmsh mesh (no $MeshFormat header) nor an HDF5 file", file);
      PetscCall(PetscSNPrintf(what, sizeof(what), "-solid_mesh %s", file));
      /* Gmsh files: tsmech's own reader (src/models/solidmesh.c), which checks what PETSc's
         trusts; DMPlex HDF5: PETSc's reader, quiet */
      if (kind == 1) PetscCall(SolidMeshReadGmsh(comm, file, what, dm));
      else PetscCall(SolidMeshReadHDF5(comm, file, what, dm));
    }
    {
      /* a mesh generator numbers cells in no spatial order; in reverse Cuthill-McKee order the
         simple partitioner's runs of consecutive cells are compact pieces of the body */
      IS perm;
      DM pdm;

      PetscCall(DMPlexGetOrdering(*dm, MATORDERINGRCM, NULL, &perm));
      PetscCall(DMPlexPermute(*dm, perm, &pdm));
      /* perm[old point] = new point: the new cell perm[c] is the file's cell c */
      PetscCall(DMPlexGetHeightStratum(*dm, 0, &cStart, &cEnd));
      PetscCall(PetscMalloc1(cEnd - cStart, cellid));
      {
        const PetscInt *pa;
        PetscInt        nStart, nEnd;

        PetscCall(DMPlexGetHeightStratum(pdm, 0, &nStart, &nEnd));
        PetscCheck(nStart == cStart && nEnd == cEnd, comm, PETSC_ERR_PLIB, "The reordering moved the cells from [%" PetscInt_FMT ", %" PetscInt_FMT ") to [%" PetscInt_FMT ", %" PetscInt_FMT ")", cStart, cEnd, nStart, nEnd);
        PetscCall(ISGetIndices(perm, &pa));
        for (PetscInt c = cStart; c < cEnd; c++) {
          PetscCheck(pa[c] >= cStart && pa[c] < cEnd, comm, PETSC_ERR_PLIB, "The reordering made cell %" PetscInt_FMT " point %" PetscInt_FMT ", not a cell", c, pa[c]);
          (*cellid)[pa[c] - cStart] = c - cStart;
        }
        /* and the new vertex perm[v] is the file's vertex v (the order of PETSc's reader) */
        PetscCall(DMPlexGetDepthStratum(*dm, 0, &vStart, &vEnd));
        PetscCall(PetscMalloc1(vEnd - vStart + 1, vertid));
        for (PetscInt v = vStart; v < vEnd; v++) {
          PetscCheck(pa[v] >= vStart && pa[v] < vEnd, comm, PETSC_ERR_PLIB, "The reordering made vertex %" PetscInt_FMT " point %" PetscInt_FMT ", not a vertex", v, pa[v]);
          (*vertid)[pa[v] - vStart] = v - vStart;
        }
        PetscCall(ISRestoreIndices(perm, &pa));
      }
      PetscCall(ISDestroy(&perm));
      PetscCall(SolidMeshCopyPhysicalGroups(*dm, pdm));
      PetscCall(DMDestroy(dm));
      *dm = pdm;
    }
  } else {
    PetscCall(SolidCreateBeam(comm, cells, size, dm));
    PetscCall(DMPlexGetHeightStratum(*dm, 0, &cStart, &cEnd));
    PetscCall(PetscMalloc1(cEnd - cStart, cellid));
    for (PetscInt c = cStart; c < cEnd; c++) (*cellid)[c - cStart] = c - cStart;
    PetscCall(DMPlexGetDepthStratum(*dm, 0, &vStart, &vEnd));
    PetscCall(PetscMalloc1(vEnd - vStart + 1, vertid));
    for (PetscInt v = vStart; v < vEnd; v++) (*vertid)[v - vStart] = v - vStart;
  }
  PetscFunctionReturn(0);
}

/*
  Refuses a mesh that is not 3-D, has cells other than tetrahedra, or inverted or degenerate cells,
  naming the first offending cell by its rank-independent number cellid (its place among the
  file's cells; a Gmsh file's reader has refused such cells already, naming their element tags)
*/
static PetscErrorCode SolidCheckMesh(DM dm, const char what[], const PetscInt cellid[])
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)dm);
  PetscInt  dim, cdim, cStart, cEnd, bad[3] = {0, 0, 0}, first[3] = {PETSC_MAX_INT, PETSC_MAX_INT, PETSC_MAX_INT}, n, N;
  PetscReal v0[3], J[9], invJ[9], detJ, vmax = 0;

  PetscFunctionBegin;
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCheck(dim == 3 && cdim == 3, comm, PETSC_ERR_ARG_WRONG, "%s: the mesh is %" PetscInt_FMT "-D (coordinates in %" PetscInt_FMT "-D); the solid model needs a 3-D tetrahedral mesh", what, dim, cdim);
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  n = cEnd - cStart;
  PetscCall(MPIU_Allreduce(&n, &N, 1, MPIU_INT, MPI_SUM, comm));
  PetscCheck(N > 0, comm, PETSC_ERR_ARG_WRONG, "%s: the mesh has no cells", what);
  for (PetscInt c = cStart; c < cEnd; c++) {
    DMPolytopeType ct;

    PetscCall(DMPlexGetCellType(dm, c, &ct));
    if (ct != DM_POLYTOPE_TETRAHEDRON) {
      bad[0]++;
      first[0] = PetscMin(first[0], cellid[c - cStart]);
      continue;
    }
    PetscCall(DMPlexComputeCellGeometryAffineFEM(dm, c, v0, J, invJ, &detJ));
    vmax = PetscMax(vmax, PetscAbsReal(detJ));
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &vmax, 1, MPIU_REAL, MPIU_MAX, comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad[0], 1, MPIU_INT, MPI_SUM, comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &first[0], 1, MPIU_INT, MPI_MIN, comm));
  PetscCheck(!bad[0], comm, PETSC_ERR_ARG_WRONG, "%s: %" PetscInt_FMT " of the %" PetscInt_FMT " cells are not tetrahedra (the first: cell %" PetscInt_FMT " of the file); the solid model needs a tetrahedral mesh", what, bad[0], N, first[0]);
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt k = -1;

    PetscCall(DMPlexComputeCellGeometryAffineFEM(dm, c, v0, J, invJ, &detJ));
    /* a volume below 1e-12 of the largest is round-off: degenerate */
    if (PetscAbsReal(detJ) <= 1e-12 * vmax) k = 1;
    else if (detJ < 0) k = 2;
    if (k > 0) {
      bad[k]++;
      first[k] = PetscMin(first[k], cellid[c - cStart]);
    }
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad[1], 2, MPIU_INT, MPI_SUM, comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &first[1], 2, MPIU_INT, MPI_MIN, comm));
  PetscCheck(!bad[1], comm, PETSC_ERR_ARG_WRONG, "%s: %" PetscInt_FMT " degenerate (zero-volume) tetrahedra, the first cell %" PetscInt_FMT " of the file", what, bad[1], first[1]);
  PetscCheck(!bad[2], comm, PETSC_ERR_ARG_WRONG, "%s: %" PetscInt_FMT " inverted (negative-volume) tetrahedra, the first cell %" PetscInt_FMT " of the file", what, bad[2], first[2]);
  PetscFunctionReturn(0);
}

/* The element data: vertex offsets, Dm^-1, V0 and centroid of every local cell */
static PetscErrorCode SolidSetUpCells(Solid *s, PetscReal *hmin)
{
  DM           dm = s->dm, cdm;
  PetscSection ls, gs, cs;
  Vec          coords;
  PetscInt     cStart, cEnd, vStart, vEnd;
  PetscReal    h = PETSC_MAX_REAL;

  PetscFunctionBegin;
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMGetLocalSection(dm, &ls));
  PetscCall(DMGetGlobalSection(dm, &gs));
  PetscCall(DMGetCoordinateDM(dm, &cdm));
  PetscCall(DMGetLocalSection(cdm, &cs));
  PetscCall(DMGetCoordinatesLocal(dm, &coords));
  s->ncells = cEnd - cStart;
  PetscCall(PetscMalloc5(4 * s->ncells, &s->loff, 4 * s->ncells, &s->goff, 9 * s->ncells, &s->Dinv, s->ncells, &s->vol, 3 * s->ncells, &s->ctr));
  for (PetscInt c = cStart; c < cEnd; c++) {
    const PetscInt cl      = c - cStart;
    PetscInt      *closure = NULL, nc, nv = 0;
    PetscReal      X[4][3], Dm[9], det;
    PetscScalar   *xa;

    PetscCall(DMPlexGetTransitiveClosure(dm, c, PETSC_TRUE, &nc, &closure));
    PetscCall(VecGetArray(coords, &xa));
    for (PetscInt k = 0; k < nc; k++) {
      const PetscInt pt = closure[2 * k];
      PetscInt       off;

      if (pt < vStart || pt >= vEnd) continue;
      PetscCheck(nv < 4, PetscObjectComm((PetscObject)dm), PETSC_ERR_PLIB, "Cell %" PetscInt_FMT " has more than 4 vertices", c);
      PetscCall(PetscSectionGetOffset(ls, pt, &s->loff[4 * cl + nv]));
      PetscCall(PetscSectionGetOffset(gs, pt, &off));
      s->goff[4 * cl + nv] = off >= 0 ? off : -(off + 1);
      PetscCall(PetscSectionGetOffset(cs, pt, &off));
      for (PetscInt i = 0; i < 3; i++) X[nv][i] = PetscRealPart(xa[off + i]);
      nv++;
    }
    PetscCall(VecRestoreArray(coords, &xa));
    PetscCall(DMPlexRestoreTransitiveClosure(dm, c, PETSC_TRUE, &nc, &closure));
    PetscCheck(nv == 4, PetscObjectComm((PetscObject)dm), PETSC_ERR_PLIB, "Cell %" PetscInt_FMT " has %" PetscInt_FMT " vertices", c, nv);
    for (PetscInt i = 0; i < 3; i++) {
      for (PetscInt a = 0; a < 3; a++) Dm[3 * i + a] = X[a + 1][i] - X[0][i];
      s->ctr[3 * cl + i] = 0.25 * (X[0][i] + X[1][i] + X[2][i] + X[3][i]);
    }
    det = Det3(Dm);
    Inv3(Dm, det, &s->Dinv[9 * cl]);
    s->vol[cl] = PetscAbsReal(det) / 6;
    h          = PetscMin(h, PetscCbrtReal(PetscAbsReal(det)));
  }
  PetscCall(MPIU_Allreduce(&h, hmin, 1, MPIU_REAL, MPIU_MIN, PetscObjectComm((PetscObject)dm)));
  PetscFunctionReturn(0);
}

/*
  A matrix with the vertex couplings of the mesh, block size 3, every coupling present (explicit
  zeros). The couplings are counted with MATPREALLOCATOR from the cells' vertices (it sends the
  rows of vertices owned elsewhere to their owners): DMCreateMatrix() derives the same pattern
  from the mesh's adjacency, at several times the cost (26 s against 3 s for 1.6 million cells).
*/
static PetscErrorCode SolidCreatePattern(Solid *s, Mat *A)
{
  MPI_Comm  comm       = PetscObjectComm((PetscObject)s->dm);
  PetscReal zeros[144] = {0};
  PetscInt  m, M, bidx[4];
  Vec       x;
  Mat       pre;

  PetscFunctionBegin;
  PetscCall(DMGetGlobalVector(s->dm, &x));
  PetscCall(VecGetLocalSize(x, &m));
  PetscCall(VecGetSize(x, &M));
  PetscCall(DMRestoreGlobalVector(s->dm, &x));
  PetscCall(MatCreate(comm, &pre));
  PetscCall(MatSetType(pre, MATPREALLOCATOR));
  PetscCall(MatSetSizes(pre, m, m, M, M));
  PetscCall(MatSetBlockSize(pre, 3));
  PetscCall(MatSetUp(pre));
  for (PetscInt c = 0; c < s->ncells; c++) {
    for (PetscInt a = 0; a < 4; a++) bidx[a] = s->goff[4 * c + a] / 3;
    PetscCall(MatSetValuesBlocked(pre, 4, bidx, 4, bidx, zeros, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(pre, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(pre, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSetSizes(*A, m, m, M, M));
  PetscCall(MatSetBlockSize(*A, 3));
  PetscCall(MatPreallocatorPreallocate(pre, PETSC_TRUE, *A));
  PetscCall(MatDestroy(&pre));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* Consistent mass rho V0/20 (1 + delta_ab) I3 per element, or lumped rho V0/4 per vertex */
static PetscErrorCode SolidAssembleMass(Solid *s, PetscBool lumped, Mat M)
{
  PetscReal Me[144];
  PetscInt  idx[12];

  PetscFunctionBegin;
  for (PetscInt c = 0; c < s->ncells; c++) {
    const PetscReal m = s->rho * s->vol[c];

    for (PetscInt r = 0; r < 12; r++)
      for (PetscInt k = 0; k < 12; k++) {
        const PetscInt a = r / 3, i = r % 3, b = k / 3, j = k % 3;

        Me[12 * r + k] = i != j ? 0.0 : (lumped ? (a == b ? m / 4 : 0.0) : m / 20 * (a == b ? 2.0 : 1.0));
      }
    SolidCellIndices(s, c, idx);
    PetscCall(MatSetValues(M, 12, idx, 12, idx, Me, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/*
  Marks (mark[i] = 1, i an owned vertex in the order of the global vector) the vertices of the
  closures of the points of label NAME with value VALUE; returns how many, over all ranks.
*/
static PetscErrorCode SolidMarkLabel(Solid *s, const char name[], PetscInt value, PetscInt mark[], PetscInt *count)
{
  DM              dm   = s->dm;
  MPI_Comm        comm = PetscObjectComm((PetscObject)dm);
  PetscSection    gs;
  DMLabel         label;
  IS              is;
  const PetscInt *pts;
  PetscInt        npts = 0, vStart, vEnd, rstart, n = 0;

  PetscFunctionBegin;
  PetscCall(DMGetLabel(dm, name, &label));
  PetscCheck(label, comm, PETSC_ERR_ARG_WRONG, "-solid_fix_label %s: the mesh has no such label", name);
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMGetGlobalSection(dm, &gs));
  PetscCall(VecGetOwnershipRange(s->work, &rstart, NULL));
  PetscCall(DMLabelGetStratumIS(label, value, &is));
  if (is) {
    PetscCall(ISGetLocalSize(is, &npts));
    PetscCall(ISGetIndices(is, &pts));
  }
  for (PetscInt k = 0; k < npts; k++) {
    PetscInt *closure = NULL, nc;

    PetscCall(DMPlexGetTransitiveClosure(dm, pts[k], PETSC_TRUE, &nc, &closure));
    for (PetscInt j = 0; j < nc; j++) {
      const PetscInt pt = closure[2 * j];
      PetscInt       off, dof;

      if (pt < vStart || pt >= vEnd) continue;
      PetscCall(PetscSectionGetDof(gs, pt, &dof));
      PetscCall(PetscSectionGetOffset(gs, pt, &off));
      if (dof <= 0 || off < 0) continue;
      if (!mark[(off - rstart) / 3]) n++;
      mark[(off - rstart) / 3] = 1;
    }
    PetscCall(DMPlexRestoreTransitiveClosure(dm, pts[k], PETSC_TRUE, &nc, &closure));
  }
  if (is) {
    PetscCall(ISRestoreIndices(is, &pts));
    PetscCall(ISDestroy(&is));
  }
  PetscCall(MPIU_Allreduce(&n, count, 1, MPIU_INT, MPI_SUM, comm));
  PetscFunctionReturn(0);
}

/*
  A checksum of the reference coordinates that does not depend on the partition: the sum, in
  exact integer arithmetic modulo 2^48, of a hash of the bits of every vertex's coordinates.
  Output and checkpoints record it, so that a file of another mesh is recognized.
*/
static PetscErrorCode SolidMeshChecksum(Vec X, PetscReal *sum)
{
  const PetscScalar *x;
  PetscInt           n;
  uint64_t           loc = 0, tot = 0;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArrayRead(X, &x));
  for (PetscInt i = 0; i < n; i += 3) {
    uint64_t h = 1469598103934665603ULL; /* FNV-1a over the 24 bytes of the vertex */

    for (int c = 0; c < 3; c++) {
      double        d = (double)PetscRealPart(x[i + c]);
      unsigned char b[sizeof(double)];

      if (d == 0) d = 0; /* -0 and +0 alike */
      memcpy(b, &d, sizeof(d));
      for (size_t k = 0; k < sizeof(d); k++) h = (h ^ b[k]) * 1099511628211ULL;
    }
    loc += h & 0xFFFFFFFFFFFFULL;
  }
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCallMPI(MPI_Allreduce(&loc, &tot, 1, MPI_UINT64_T, MPI_SUM, PetscObjectComm((PetscObject)X)));
  *sum = (PetscReal)(tot & 0xFFFFFFFFFFFFULL);
  PetscFunctionReturn(0);
}

static const char *const SolidAxes = "xyz";

/* The rank-independent I/O order of the state and the mesh (MechSystemSetIOOrdering(),
   MechSystemSetIOMesh()) from the vertices' numbers vertid (per local vertex) and the cells'
   numbers s->cellid; X: the reference coordinates */
static PetscErrorCode SolidSetIOOrdering(Solid *s, MechSystem sys, const PetscInt vertid[], Vec X)
{
  PetscSection gs;
  PetscInt     vStart, vEnd, cStart, cEnd, rstart, n, *idx, *cells;
  IS           order;

  PetscFunctionBegin;
  PetscCall(DMGetGlobalSection(s->dm, &gs));
  PetscCall(DMPlexGetDepthStratum(s->dm, 0, &vStart, &vEnd));
  PetscCall(DMPlexGetHeightStratum(s->dm, 0, &cStart, &cEnd));
  PetscCall(VecGetOwnershipRange(X, &rstart, NULL));
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(PetscMalloc1(n + 1, &idx));
  for (PetscInt p = vStart; p < vEnd; p++) {
    PetscInt dof, off;

    PetscCall(PetscSectionGetDof(gs, p, &dof));
    PetscCall(PetscSectionGetOffset(gs, p, &off));
    if (dof <= 0) continue; /* not owned */
    for (PetscInt i = 0; i < 3; i++) idx[off - rstart + i] = 3 * vertid[p - vStart] + i;
  }
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, idx, PETSC_OWN_POINTER, &order));
  PetscCall(MechSystemSetIOOrdering(sys, order));
  PetscCall(ISDestroy(&order));
  PetscCall(PetscMalloc1(5 * (cEnd - cStart) + 1, &cells));
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt *cl = NULL, ncl, k = 0;

    cells[5 * (c - cStart)] = s->cellid[c - cStart];
    PetscCall(DMPlexGetTransitiveClosure(s->dm, c, PETSC_TRUE, &ncl, &cl));
    for (PetscInt j = 0; j < ncl; j++) {
      const PetscInt pt = cl[2 * j];

      if (pt >= vStart && pt < vEnd && k < 4) cells[5 * (c - cStart) + 1 + k++] = vertid[pt - vStart];
    }
    PetscCall(DMPlexRestoreTransitiveClosure(s->dm, c, PETSC_TRUE, &ncl, &cl));
  }
  PetscCall(MechSystemSetIOMesh(sys, X, cEnd - cStart, cells));
  PetscCall(PetscFree(cells));
  PetscFunctionReturn(0);
}

/*
  The states a neo-Hookean solid can take: no inverted element (MechSystemSetStateCheck()). With
  q NULL, why the latest force evaluation or refused state at a time >= t failed.
*/
static PetscErrorCode SolidStateCheck(MechSystem sys, PetscReal t, Vec q, Vec v, PetscBool *ok, char why[], size_t len, void *ctx)
{
  Solid    *s = (Solid *)ctx;
  PetscInt  n, e;
  PetscReal tf;

  PetscFunctionBegin;
  (void)v;
  if (q) {
    PetscCall(MechSolidGetInverted(sys, q, &n, &e, NULL));
    *ok = n ? PETSC_FALSE : PETSC_TRUE;
    if (n) {
      PetscCall(PetscSNPrintf(why, len, "element %" PetscInt_FMT " inverted%s", e, n > 1 ? " (and others)" : ""));
      s->erefused = e;
      s->trefused = t;
    }
    PetscFunctionReturn(0);
  }
  PetscCall(MechSolidGetInverted(sys, NULL, &n, &e, &tf));
  if (n && tf >= t) PetscCall(PetscSNPrintf(why, len, "element %" PetscInt_FMT " inverted", e));
  else if (s->trefused >= t) PetscCall(PetscSNPrintf(why, len, "element %" PetscInt_FMT " inverted", s->erefused));
  PetscFunctionReturn(0);
}

/*@
  MechCreateSolid - Creates a hyperelastic solid of linear tetrahedra on a distributed DMPlex: a
  mesh read from a file, or a cantilever beam built in.

  Collective

  Input Parameter:
. comm - the MPI communicator of the system

  Output Parameter:
. sys - the new mechanical system, with its mass, force, tangent, initial state and fixed dofs set

  Options Database Keys:
+ -solid_mesh <file>                  - a tetrahedral mesh: Gmsh .msh (format 2 or 4) or PETSc's DMPlex HDF5;
                                        without it, the built-in beam below, clamped at x = 0
. -solid_beam_cells <20,2,2>          - the beam's boxes along x, y, z (each split into 6 tetrahedra; each at least 1)
. -solid_beam_size <1,0.1,0.1>        - the beam's extent along x, y, z (each positive)
. -solid_material <neohookean>        - linear (small strain; the system is then linear), svk or neohookean
. -solid_E <1e7>                      - Young's modulus (> 0)
. -solid_nu <0.3>                     - Poisson's ratio (-1 < nu < 1/2)
. -solid_mu <mu>                      - Lame's shear modulus (mu > 0), with -solid_lambda instead of E and nu
. -solid_lambda <lambda>              - Lame's first parameter (3 lambda + 2 mu > 0), with -solid_mu
. -solid_density <1000>               - mass per unit reference volume (> 0)
. -solid_mass <consistent>            - consistent or lumped mass matrix
. -solid_rayleigh <0,0>               - Rayleigh damping alpha,beta (both >= 0): D = alpha M + beta K0 (K0: the
                                        tangent at the reference)
. -solid_g <0,0,-9.81>                - gravity (the force -M g is moved to the left-hand side)
. -solid_v0 <0,0,0>                   - uniform initial velocity
. -solid_spin <0,0,0>                 - initial rigid spin about the centroid (added to v0)
. -solid_fix <x=0 | none>             - fix the vertices on a coordinate plane (tolerance 1e-3 of the smallest
                                        cell size); default x=0 for the beam, none for a mesh file
. -solid_fix_label <name>             - fix the vertices of the points of a mesh label (Gmsh physical groups:
                                        "Cell Sets", "Face Sets", "Vertex Sets"); not with -solid_fix
- -solid_fix_value <1>                - the value of that label

  Level: intermediate

  Notes:
  The mesh is distributed with `DMPlexDistribute()` (-petscpartitioner_type); the vertices' and
  cells' numbers in the mesh file (or the beam) travel with them, and the output and checkpoints
  use them (`MechSystemSetIOOrdering()`, `MechSystemSetIOMesh()`): files in the file's vertex order,
  the same on any number of ranks. A mesh that is not 3-D, has
  cells other than tetrahedra or inverted or degenerate cells is refused, as is a fixing that
  catches no vertex. A neo-Hookean element that inverts (J <= 0) during a Newton iterate makes the
  force non-finite: the stage fails; -info and `MechSolidGetInverted()` name the element by its
  rank-independent number (its place among the mesh file's tetrahedra, from 0). midpoint2 does
  not evaluate the force at the step's end: a TS domain check (`TSSetFunctionDomainError()`) with
  `MechSolidGetInverted()` rejects an endpoint that inverts an element (tests/solid/test_solid.c).

.seealso: `MechCreateModel()`, `MechSolidGetInverted()`, `MechSystemSetTangentAction()`, `MechSystemView()`
@*/
PetscErrorCode MechCreateSolid(MPI_Comm comm, MechSystem *sys)
{
  char         file[PETSC_MAX_PATH_LEN] = "", fix[64] = "", label[256] = "";
  PetscInt     cells[3] = {20, 2, 2}, material = SOLID_NEOHOOKEAN, masstype = 0, fixvalue = 1;
  PetscReal    size[3] = {1, 0.1, 0.1}, E = 1e7, nu = 0.3, mu = 0, lambda = 0, rho = 1000, ray[2] = {0, 0}, g[3] = {0, 0, -9.81}, v0[3] = {0, 0, 0}, w[3] = {0, 0, 0};
  PetscBool    hasfile, setcells, setsize, setmu, setlambda, setE, setnu, setg, setv, setw, setr, setfix, setlabel;
  Solid       *s;
  MechSystem   sy;
  DM           dm, dmdist = NULL;
  PetscSection sec;
  PetscInt     pStart, pEnd, vStart, vEnd, nloc, nfix = 0, nfixall = 0, *mark, *fidx, *cellid = NULL, *vertid = NULL;
  PetscSF      sfmig = NULL;
  PetscReal    hmin;
  Mat          J;
  Vec          q, v, Xl, rs;
  IS           fixed;
  char         what[PETSC_MAX_PATH_LEN + 32];

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "Solid model options", "MechSystem");
  PetscCall(MechOptionsString("-solid_mesh", "Tetrahedral mesh file (Gmsh .msh, DMPlex HDF5); default: the built-in beam", "MechCreateSolid", file, file, sizeof(file), &hasfile));
  PetscCall(MechOptionsIntList("-solid_beam_cells", "Boxes of the built-in beam along x, y, z", "MechCreateSolid", cells, 3, &setcells));
  PetscCall(MechOptionsRealList("-solid_beam_size", "Extent of the built-in beam along x, y, z", "MechCreateSolid", size, 3, &setsize));
  PetscCall(MechOptionsEList("-solid_material", "Material", "MechCreateSolid", SolidMaterials, 3, SolidMaterials[material], &material, NULL));
  PetscCall(MechOptionsReal("-solid_E", "Young's modulus", "MechCreateSolid", E, &E, &setE));
  PetscCall(MechOptionsReal("-solid_nu", "Poisson's ratio", "MechCreateSolid", nu, &nu, &setnu));
  PetscCall(MechOptionsReal("-solid_mu", "Lame's shear modulus (instead of E, nu)", "MechCreateSolid", mu, &mu, &setmu));
  PetscCall(MechOptionsReal("-solid_lambda", "Lame's first parameter (instead of E, nu)", "MechCreateSolid", lambda, &lambda, &setlambda));
  PetscCall(MechOptionsReal("-solid_density", "Density (mass per reference volume)", "MechCreateSolid", rho, &rho, NULL));
  PetscCall(MechOptionsEList("-solid_mass", "Mass matrix", "MechCreateSolid", SolidMassTypes, 2, SolidMassTypes[masstype], &masstype, NULL));
  PetscCall(MechOptionsRealList("-solid_rayleigh", "Rayleigh damping alpha,beta: D = alpha M + beta K0", "MechCreateSolid", ray, 2, &setr));
  PetscCall(MechOptionsRealList("-solid_g", "Gravity gx,gy,gz", "MechCreateSolid", g, 3, &setg));
  PetscCall(MechOptionsRealList("-solid_v0", "Uniform initial velocity", "MechCreateSolid", v0, 3, &setv));
  PetscCall(MechOptionsRealList("-solid_spin", "Initial rigid spin about the centroid", "MechCreateSolid", w, 3, &setw));
  PetscCall(MechOptionsString("-solid_fix", "Fix the vertices on a plane (x=0, y=1.5, ...) or none", "MechCreateSolid", fix, fix, sizeof(fix), &setfix));
  PetscCall(MechOptionsString("-solid_fix_label", "Fix the vertices of a mesh label", "MechCreateSolid", label, label, sizeof(label), &setlabel));
  PetscCall(MechOptionsInt("-solid_fix_value", "Value of the label -solid_fix_label", "MechCreateSolid", fixvalue, &fixvalue, NULL));
  PetscOptionsEnd();
  /* checked after PetscOptionsEnd(), which must run to free the options object */
  PetscCheck(cells[0] >= 1 && cells[1] >= 1 && cells[2] >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-solid_beam_cells %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ": each must be at least 1", cells[0], cells[1], cells[2]);
  if (!hasfile) {
    /* the beam's 6 n0 n1 n2 tetrahedra (4 vertices each) and 3 (n0 + 1)(n1 + 1)(n2 + 1) unknowns
       are counted in PETSc's 32-bit indices: a larger beam would wrap them */
    const double tets = 6.0 * cells[0] * cells[1] * cells[2], dofs = 3.0 * (cells[0] + 1.0) * (cells[1] + 1.0) * (cells[2] + 1.0);

    PetscCheck(4 * tets <= PETSC_MAX_INT && dofs <= PETSC_MAX_INT, comm, PETSC_ERR_ARG_OUTOFRANGE, "-solid_beam_cells %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ": the beam would have %.0f tetrahedra and %.0f unknowns, more than PETSc's 32-bit indices can count (%d)", cells[0], cells[1], cells[2], tets, dofs, (int)PETSC_MAX_INT);
  }
  PetscCheck(size[0] > 0 && size[1] > 0 && size[2] > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-solid_beam_size %g,%g,%g: each must be positive", (double)size[0], (double)size[1], (double)size[2]);
  PetscCheck(ray[0] >= 0 && ray[1] >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-solid_rayleigh %g,%g: both must be non-negative", (double)ray[0], (double)ray[1]);
  PetscCheck(rho > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-solid_density %g must be positive", (double)rho);
  PetscCheck(!(setmu || setlambda) || !(setE || setnu), comm, PETSC_ERR_ARG_INCOMP, "Give either -solid_E and -solid_nu or -solid_mu and -solid_lambda, not both");
  if (setmu || setlambda) {
    PetscCheck(setmu && setlambda, comm, PETSC_ERR_ARG_WRONG, "-solid_mu and -solid_lambda go together: give both");
    PetscCheck(mu > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-solid_mu %g must be positive", (double)mu);
    PetscCheck(3 * lambda + 2 * mu > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-solid_lambda %g: the bulk modulus lambda + 2 mu / 3 must be positive", (double)lambda);
    E  = mu * (3 * lambda + 2 * mu) / (lambda + mu);
    nu = lambda / (2 * (lambda + mu));
  } else {
    PetscCheck(E > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-solid_E %g must be positive", (double)E);
    PetscCheck(nu > -1 && nu < 0.5, comm, PETSC_ERR_ARG_OUTOFRANGE, "-solid_nu %g must be in (-1, 1/2)", (double)nu);
    mu     = E / (2 * (1 + nu));
    lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
  }
  /* the stress and the tangent add and multiply the moduli: a P-wave modulus lambda + 2 mu beyond
     1e200 leaves no room below the largest double (1.8e308) */
  PetscCheck(PetscIsNormalReal(E) && PetscIsNormalReal(mu) && PetscIsNormalReal(lambda + 2 * mu) && lambda + 2 * mu <= 1e200, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: the moduli mu = %g, lambda = %g are too large for floating point (lambda + 2 mu must be at most 1e200)", setmu || setlambda ? "-solid_mu, -solid_lambda" : "-solid_E, -solid_nu", (double)mu, (double)lambda);
  if (!setfix && !hasfile && !setlabel) PetscCall(PetscStrcpy(fix, "x=0"));
  {
    PetscBool none;

    PetscCall(PetscStrcmp(fix, "none", &none));
    if (none) fix[0] = 0;
  }
  PetscCheck(!(fix[0] && setlabel), comm, PETSC_ERR_ARG_INCOMP, "Give -solid_fix or -solid_fix_label, not both (-solid_fix none with -solid_fix_label)");

  /* the mesh: 3 dofs per vertex; the section exists before the distribution so that the natural
     (file) order of the vertices can be recovered */
  PetscCall(SolidCreateMesh(comm, file, cells, size, &dm, &cellid, &vertid));
  PetscCall(PetscSNPrintf(what, sizeof(what), hasfile ? "-solid_mesh %s" : "the built-in beam%s", file));
  {
    PetscErrorCode ierr = SolidCheckMesh(dm, what, cellid);

    if (ierr) {
      PetscCall(PetscFree(cellid));
      PetscCall(PetscFree(vertid));
      PetscCall(DMDestroy(&dm));
      PetscFunctionReturn(ierr);
    }
  }
  PetscCall(PetscObjectSetName((PetscObject)dm, "solid"));
  PetscCall(DMSetUseNatural(dm, PETSC_TRUE));
  PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(PetscSectionCreate(comm, &sec));
  PetscCall(PetscSectionSetChart(sec, pStart, pEnd));
  for (PetscInt p = vStart; p < vEnd; p++) PetscCall(PetscSectionSetDof(sec, p, 3));
  PetscCall(PetscSectionSetUp(sec));
  PetscCall(DMSetLocalSection(dm, sec));
  PetscCall(PetscSectionDestroy(&sec));
  {
    PetscPartitioner part;

    /* the default partitioner of Debian's PETSc, PTScotch, partitions differently from run to
       run; the simple one (consecutive cells) is reproducible, so a checkpoint of a run can be
       restarted on the same ranks. -petscpartitioner_type chooses another. */
    PetscCall(DMPlexGetPartitioner(dm, &part));
    PetscCall(PetscPartitionerSetType(part, PETSCPARTITIONERSIMPLE));
    PetscCall(PetscPartitionerSetFromOptions(part));
  }
  PetscCall(DMPlexDistribute(dm, 0, &sfmig, &dmdist));
  if (dmdist) {
    PetscSection osec, nsec;
    PetscInt    *odata, *ndata = NULL, cStart, cEnd, off;

    /* the cells' and vertices' numbers travel with them: a field of one integer per cell and
       per vertex (vertices: their order in the mesh file or beam, the serial mesh's order) */
    PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
    PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
    PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
    PetscCall(PetscSectionCreate(comm, &osec));
    PetscCall(PetscSectionSetChart(osec, pStart, pEnd));
    for (PetscInt c = cStart; c < cEnd; c++) PetscCall(PetscSectionSetDof(osec, c, 1));
    for (PetscInt p = vStart; p < vEnd; p++) PetscCall(PetscSectionSetDof(osec, p, 1));
    PetscCall(PetscSectionSetUp(osec));
    PetscCall(PetscMalloc1(cEnd - cStart + vEnd - vStart, &odata));
    for (PetscInt c = cStart; c < cEnd; c++) {
      PetscCall(PetscSectionGetOffset(osec, c, &off));
      odata[off] = cellid[c - cStart];
    }
    for (PetscInt p = vStart; p < vEnd; p++) {
      PetscCall(PetscSectionGetOffset(osec, p, &off));
      odata[off] = vertid[p - vStart];
    }
    PetscCall(PetscSectionCreate(comm, &nsec));
    PetscCall(DMPlexDistributeData(dm, sfmig, osec, MPIU_INT, odata, nsec, (void **)&ndata));
    PetscCall(PetscFree(cellid));
    PetscCall(PetscFree(vertid));
    PetscCall(DMPlexGetHeightStratum(dmdist, 0, &cStart, &cEnd));
    PetscCall(DMPlexGetDepthStratum(dmdist, 0, &vStart, &vEnd));
    PetscCall(PetscMalloc1(cEnd - cStart, &cellid));
    PetscCall(PetscMalloc1(vEnd - vStart + 1, &vertid));
    for (PetscInt c = cStart; c < cEnd; c++) {
      PetscCall(PetscSectionGetOffset(nsec, c, &off));
      cellid[c - cStart] = ndata[off];
    }
    for (PetscInt p = vStart; p < vEnd; p++) {
      PetscCall(PetscSectionGetOffset(nsec, p, &off));
      vertid[p - vStart] = ndata[off];
    }
    PetscCall(PetscFree(ndata));
    PetscCall(PetscFree(odata));
    PetscCall(PetscSectionDestroy(&osec));
    PetscCall(PetscSectionDestroy(&nsec));
    PetscCall(PetscSFDestroy(&sfmig));
    PetscCall(SolidMeshCopyPhysicalGroups(dm, dmdist));
    PetscCall(DMDestroy(&dm));
    dm = dmdist;
  }
  PetscCall(PetscSFDestroy(&sfmig));
  {
    PetscSection ls;

    PetscCall(DMGetLocalSection(dm, &ls));
    if (!ls) {
      PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
      PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
      PetscCall(PetscSectionCreate(comm, &sec));
      PetscCall(PetscSectionSetChart(sec, pStart, pEnd));
      for (PetscInt p = vStart; p < vEnd; p++) PetscCall(PetscSectionSetDof(sec, p, 3));
      PetscCall(PetscSectionSetUp(sec));
      PetscCall(DMSetLocalSection(dm, sec));
      PetscCall(PetscSectionDestroy(&sec));
    }
  }
  PetscCall(DMSetMatType(dm, MATAIJ));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));

  PetscCall(PetscNew(&s));
  s->dm       = dm;
  s->cellid   = cellid;
  s->firstinv = -1;
  s->material = (SolidMaterial)material;
  s->mu       = mu;
  s->lambda   = lambda;
  s->rho      = rho;
  s->alpha    = ray[0];
  s->beta     = ray[1];
  for (PetscInt i = 0; i < 3; i++) s->g[i] = g[i];
  PetscCall(SolidSetUpCells(s, &hmin));
  {
    Vec      g;
    PetscInt n;

    PetscCall(DMGetGlobalVector(dm, &g));
    PetscCall(VecGetLocalSize(g, &n));
    PetscCall(DMRestoreGlobalVector(dm, &g));
    PetscCall(VecCreateMPI(comm, n, PETSC_DETERMINE, &s->work));
    PetscCall(VecSetBlockSize(s->work, 3));
  }

  PetscCall(MechSystemCreate(comm, &sy));
  PetscCall(MechSystemSetApplicationContext(sy, s, SolidDestroy));
  PetscCall(MechSystemSetModelName(sy, "solid"));
  {
    PetscInt nc = s->ncells, NC, nvtx, NV;

    PetscCall(VecGetLocalSize(s->work, &nvtx));
    nvtx /= 3;
    PetscCall(MPIU_Allreduce(&nc, &NC, 1, MPIU_INT, MPI_SUM, comm));
    PetscCall(MPIU_Allreduce(&nvtx, &NV, 1, MPIU_INT, MPI_SUM, comm));
    PetscCall(MechSystemAddParameter(sy, "vertices", (PetscReal)NV));
    PetscCall(MechSystemAddParameter(sy, "cells", (PetscReal)NC));
  }
  if (!hasfile) {
    for (PetscInt i = 0; i < 3; i++) {
      const char *cn[] = {"beam_nx", "beam_ny", "beam_nz"}, *sn[] = {"beam_lx", "beam_ly", "beam_lz"};

      PetscCall(MechSystemAddParameter(sy, cn[i], (PetscReal)cells[i]));
      PetscCall(MechSystemAddParameter(sy, sn[i], size[i]));
    }
  }
  PetscCall(MechSystemAddParameter(sy, "material", (PetscReal)material));
  PetscCall(MechSystemAddParameter(sy, "E", E));
  PetscCall(MechSystemAddParameter(sy, "nu", nu));
  PetscCall(MechSystemAddParameter(sy, "density", rho));
  PetscCall(MechSystemAddParameter(sy, "lumped", (PetscReal)masstype));
  PetscCall(MechSystemAddParameter(sy, "rayleigh_alpha", ray[0]));
  PetscCall(MechSystemAddParameter(sy, "rayleigh_beta", ray[1]));
  PetscCall(MechSystemAddParameter(sy, "gx", g[0]));
  PetscCall(MechSystemAddParameter(sy, "gy", g[1]));
  PetscCall(MechSystemAddParameter(sy, "gz", g[2]));
  PetscCall(MechSystemSetDM(sy, dm));

  /* matrices: the exact vertex couplings of the mesh, block size 3 */
  PetscCall(SolidCreatePattern(s, &J));
  PetscCall(MatDuplicate(J, MAT_DO_NOT_COPY_VALUES, &s->M));
  PetscCall(SolidAssembleMass(s, masstype == 1 ? PETSC_TRUE : PETSC_FALSE, s->M));
  if (s->beta != 0) {
    PetscCall(MatDuplicate(J, MAT_DO_NOT_COPY_VALUES, &s->K0));
    PetscCall(SolidAddElementTangents(s, NULL, 1.0, s->K0));
  }

  /* the reference positions: the initial q and the rigid-body modes */
  /* plain vectors with the DM's layout: a vector of a DMPlex would be viewed (output,
     checkpoints) by DMPlex's own HDF5 writer, in its own layout */
  PetscCall(VecGetLocalSize(s->work, &nloc));
  PetscCall(VecCreateMPI(comm, nloc, PETSC_DETERMINE, &q));
  PetscCall(VecSetBlockSize(q, 3));
  {
    DM                 cdm;
    PetscSection       ls, cs;
    Vec                coords;
    PetscScalar       *xl;
    const PetscScalar *ca;

    PetscCall(DMGetLocalVector(dm, &Xl));
    PetscCall(DMGetLocalSection(dm, &ls));
    PetscCall(DMGetCoordinateDM(dm, &cdm));
    PetscCall(DMGetLocalSection(cdm, &cs));
    PetscCall(DMGetCoordinatesLocal(dm, &coords));
    PetscCall(VecGetArray(Xl, &xl));
    PetscCall(VecGetArrayRead(coords, &ca));
    for (PetscInt p = vStart; p < vEnd; p++) {
      PetscInt off, coff;

      PetscCall(PetscSectionGetOffset(ls, p, &off));
      PetscCall(PetscSectionGetOffset(cs, p, &coff));
      for (PetscInt i = 0; i < 3; i++) xl[off + i] = ca[coff + i];
    }
    PetscCall(VecRestoreArrayRead(coords, &ca));
    PetscCall(VecRestoreArray(Xl, &xl));
    PetscCall(DMLocalToGlobalBegin(dm, Xl, INSERT_VALUES, q));
    PetscCall(DMLocalToGlobalEnd(dm, Xl, INSERT_VALUES, q));
    PetscCall(DMRestoreLocalVector(dm, &Xl));
  }
  PetscCall(MatNullSpaceCreateRigidBody(q, &s->nullsp));
  {
    PetscReal sum = 0;

    PetscCall(SolidMeshChecksum(q, &sum));
    PetscCall(MechSystemAddParameter(sy, "mesh_checksum", sum));
  }
  /* the I/O order: the vertices' numbers in the mesh file (or the beam), so that the output and
     the checkpoints do not depend on the partition (BRIEF.md section 7) */
  PetscCall(SolidSetIOOrdering(s, sy, vertid, q));
  PetscCall(PetscFree(vertid));
  PetscCall(MatSetNearNullSpace(J, s->nullsp));

  /* gravity and the initial velocity: uniform plus the spin about the mass centroid */
  PetscCall(VecDuplicate(q, &v));
  PetscCall(VecDuplicate(q, &rs));
  PetscCall(MatGetRowSum(s->M, rs));
  {
    PetscScalar       *u;
    const PetscScalar *x, *m;
    PetscReal          loc[4] = {0, 0, 0, 0}, tot[4], cen[3];

    PetscCall(VecGetLocalSize(q, &nloc));
    PetscCall(VecGetArrayRead(q, &x));
    PetscCall(VecGetArrayRead(rs, &m));
    for (PetscInt i = 0; i < nloc; i += 3) {
      for (PetscInt c = 0; c < 3; c++) loc[c] += m[i] * x[i + c];
      loc[3] += m[i];
    }
    PetscCall(MPIU_Allreduce(loc, tot, 4, MPIU_REAL, MPIU_SUM, comm));
    for (PetscInt c = 0; c < 3; c++) cen[c] = tot[c] / tot[3];
    PetscCall(VecGetArray(v, &u));
    for (PetscInt i = 0; i < nloc; i += 3) {
      const PetscReal r[3] = {x[i] - cen[0], x[i + 1] - cen[1], x[i + 2] - cen[2]};

      u[i]     = v0[0] + w[1] * r[2] - w[2] * r[1];
      u[i + 1] = v0[1] + w[2] * r[0] - w[0] * r[2];
      u[i + 2] = v0[2] + w[0] * r[1] - w[1] * r[0];
    }
    PetscCall(VecRestoreArray(v, &u));
    PetscCall(VecRestoreArrayRead(rs, &m));
    PetscCall(VecRestoreArrayRead(q, &x));
  }
  if (g[0] != 0 || g[1] != 0 || g[2] != 0) {
    PetscScalar *a;

    PetscCall(VecDuplicate(q, &s->fg));
    PetscCall(VecGetArray(rs, &a));
    for (PetscInt i = 0; i < nloc; i += 3)
      for (PetscInt c = 0; c < 3; c++) a[i + c] = -g[c];
    PetscCall(VecRestoreArray(rs, &a));
    PetscCall(MatMult(s->M, rs, s->fg));
  }
  PetscCall(VecDestroy(&rs));

  /* fixed vertices: a plane or a label */
  PetscCall(PetscCalloc1(nloc / 3, &mark));
  if (fix[0]) {
    PetscInt  axis = -1, count = 0;
    PetscReal value = 0;
    char     *end   = NULL;

    for (PetscInt a = 0; a < 3; a++)
      if ((fix[0] == SolidAxes[a] || fix[0] == SolidAxes[a] - 'a' + 'A') && fix[1] == '=') axis = a;
    if (axis >= 0) value = strtod(fix + 2, &end);
    if (axis < 0 || !end || end == fix + 2 || *end) {
      PetscCall(PetscFree(mark));
      PetscCall(VecDestroy(&q));
      PetscCall(VecDestroy(&v));
      PetscCall(MatDestroy(&J));
      PetscCall(MechSystemDestroy(&sy));
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "-solid_fix %s: expected a coordinate plane such as x=0, y=1.5 or z=-2, or none", fix);
    }
    {
      const PetscScalar *x;
      PetscInt           n = 0;

      PetscCall(VecGetArrayRead(q, &x));
      for (PetscInt i = 0; i < nloc; i += 3)
        if (PetscAbsReal(x[i + axis] - value) <= 1e-3 * hmin) {
          mark[i / 3] = 1;
          n++;
        }
      PetscCall(VecRestoreArrayRead(q, &x));
      PetscCall(MPIU_Allreduce(&n, &count, 1, MPIU_INT, MPI_SUM, comm));
    }
    if (!count) {
      PetscCall(PetscFree(mark));
      PetscCall(VecDestroy(&q));
      PetscCall(VecDestroy(&v));
      PetscCall(MatDestroy(&J));
      PetscCall(MechSystemDestroy(&sy));
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "-solid_fix %s: no vertex of %s lies on the plane %c = %g", fix, what, SolidAxes[axis], (double)value);
    }
  } else if (setlabel) {
    PetscInt       count = 0;
    PetscErrorCode ierr;

    ierr = SolidMarkLabel(s, label, fixvalue, mark, &count);
    if (ierr || !count) {
      PetscCall(PetscFree(mark));
      PetscCall(VecDestroy(&q));
      PetscCall(VecDestroy(&v));
      PetscCall(MatDestroy(&J));
      PetscCall(MechSystemDestroy(&sy));
      if (ierr) PetscFunctionReturn(ierr);
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "-solid_fix_label %s -solid_fix_value %" PetscInt_FMT ": no vertex of %s carries it", label, fixvalue, what);
    }
  }
  {
    PetscInt     rstart;
    PetscScalar *u;

    for (PetscInt i = 0; i < nloc / 3; i++) nfix += mark[i];
    PetscCall(PetscMalloc1(3 * nfix, &fidx));
    PetscCall(VecGetOwnershipRange(q, &rstart, NULL));
    PetscCall(VecGetArray(v, &u));
    nfix = 0;
    for (PetscInt i = 0; i < nloc / 3; i++) {
      if (!mark[i]) continue;
      for (PetscInt c = 0; c < 3; c++) {
        fidx[nfix++] = rstart + 3 * i + c;
        u[3 * i + c] = 0;
      }
    }
    PetscCall(VecRestoreArray(v, &u));
    PetscCall(PetscFree(mark));
    PetscCall(MPIU_Allreduce(&nfix, &nfixall, 1, MPIU_INT, MPI_SUM, comm));
    if (nfixall) {
      PetscCall(ISCreateGeneral(comm, nfix, fidx, PETSC_OWN_POINTER, &fixed));
      PetscCall(MechSystemSetFixed(sy, fixed, NULL));
      PetscCall(ISDestroy(&fixed));
    } else PetscCall(PetscFree(fidx));
    PetscCall(MechSystemAddParameter(sy, "fixed_vertices", (PetscReal)(nfixall / 3)));
  }

  PetscCall(MechSystemSetMass(sy, s->M));
  PetscCall(MechSystemSetForce(sy, SolidForce, s));
  PetscCall(MechSystemSetTangent(sy, J, s->alpha != 0 || s->beta != 0 ? PETSC_TRUE : PETSC_FALSE, SolidTangent, s));
  PetscCall(MechSystemSetTangentAction(sy, SolidTangentLinearize, SolidTangentApply, s));
  PetscCall(MechSystemSetPotential(sy, SolidPotential, s));
  PetscCall(MechSystemSetLinear(sy, s->material == SOLID_LINEAR ? PETSC_TRUE : PETSC_FALSE));
  /* a neo-Hookean element has no energy at J <= 0: such a state is refused, not accepted */
  s->trefused = PETSC_MIN_REAL;
  if (s->material == SOLID_NEOHOOKEAN) PetscCall(MechSystemSetStateCheck(sy, SolidStateCheck, s));
  for (PetscInt c = 0; c < 6; c++) {
    const char *names[] = {"momentum_x", "momentum_y", "momentum_z", "angular_momentum_x", "angular_momentum_y", "angular_momentum_z"};

    s->inv[c].s    = s;
    s->inv[c].comp = c;
    PetscCall(MechSystemAddInvariant(sy, names[c], SolidMomentum, &s->inv[c]));
  }
  PetscCall(MechSystemSetInitialState(sy, q, v));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&J));
  *sys = sy;
  PetscFunctionReturn(0);
}

/*@
  MechSolidGetInverted - The inverted elements (J = det F <= 0) of a solid: at the positions q,
  or, with q NULL, at the last force evaluation (the one that failed a stage)

  Collective

  Input Parameters:
+ sys - a system of `MechCreateSolid()`
- q   - positions, or NULL: then the elements met by the force evaluations at the latest time
        (stage time) at which any was met, each rank's last such evaluation

  Output Parameters:
+ count   - how many elements are inverted, over all ranks (or NULL)
. element - the smallest rank-independent number among them (the element's place among the
            mesh file's tetrahedra, from 0, or in the built-in beam), -1 if none (or NULL)
- time    - with q NULL, the time at which that force evaluation took place (a stage time, so
            a caller can tell whether it belongs to the step that failed), PETSC_MIN_REAL if
            none; with q, PETSC_MIN_REAL (or NULL)

  Level: intermediate

  Notes:
  A neo-Hookean element has no stress at J <= 0: its force is not finite and the stage that met
  it fails. The number is the same on any number of ranks and under any partitioner.

.seealso: `MechCreateSolid()`, `MechSystemCheckState()`, `TSSetFunctionDomainError()`
@*/
PetscErrorCode MechSolidGetInverted(MechSystem sys, Vec q, PetscInt *count, PetscInt *element, PetscReal *time)
{
  Solid      *s = NULL;
  const char *model;
  PetscBool   solid = PETSC_FALSE;
  PetscInt    loc[2], tot[2];
  PetscReal   tl, tg;

  PetscFunctionBegin;
  PetscCall(MechSystemGetModelName(sys, &model));
  if (model) PetscCall(PetscStrcmp(model, "solid", &solid));
  PetscCheck(solid, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_WRONG, "MechSolidGetInverted() needs a system of MechCreateSolid(), not of model %s", model ? model : "(unnamed)");
  PetscCall(MechSystemGetApplicationContext(sys, &s));
  loc[0] = s->ninv;
  loc[1] = s->firstinv;
  tl     = s->ninv ? s->tinv : PETSC_MIN_REAL;
  if (q) {
    Vec                ql;
    const PetscScalar *x;
    PetscReal          g[4][3], F[9];

    loc[0] = 0;
    loc[1] = -1;
    tl     = PETSC_MIN_REAL;
    PetscCall(SolidGetLocal(s, q, &ql, &x));
    for (PetscInt c = 0; c < s->ncells; c++) {
      SolidDeformation(s, c, x, g, F);
      if (Det3(F) > 0) continue;
      loc[0]++;
      if (loc[1] < 0 || s->cellid[c] < loc[1]) loc[1] = s->cellid[c];
    }
    PetscCall(SolidRestoreLocal(s, &ql, &x));
  }
  /* each rank keeps its own last record: only those of the latest time count (a rank's record
     from an earlier stage is stale) */
  PetscCall(MPIU_Allreduce(&tl, &tg, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)sys)));
  if (tl != tg) {
    loc[0] = 0;
    loc[1] = -1;
  }
  /* the smallest number as the largest of its negation (-1: none becomes the smallest) */
  loc[1] = loc[1] < 0 ? PETSC_MIN_INT : -loc[1];
  PetscCall(MPIU_Allreduce(&loc[0], &tot[0], 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)sys)));
  PetscCall(MPIU_Allreduce(&loc[1], &tot[1], 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)sys)));
  if (count) *count = tot[0];
  if (element) *element = tot[1] == PETSC_MIN_INT ? -1 : -tot[1];
  if (time) *time = tg;
  PetscFunctionReturn(0);
}
