/*
  The solid's element kernels on the element layout of solidimpl.h (tetrahedra P1, P2; hexahedra
  Q1, Q2): per cell, per quadrature point k with reference gradients g_a = dN_a/dX and weight
  w_k = (quadrature weight) det dX/dxi,

      F = sum_a x_a g_a^T,   f_a += w_k P(F) g_a,   K_{ai,bk} += w_k (dP/dF)_{ijkl} g_aj g_bl,

  with P = dW/dF the material's first Piola-Kirchhoff stress (materials.c) and the tangent from the
  directional derivatives dP of the material, evaluated for dF = e_k g_b^T (docs/solid.md, §1, §3,
  §4). On P1 tetrahedra (one point, w = V0, g_1..g_3 the rows of Dm^-1) this is the classical
  constant-strain element, computed as before the layout.

  Each cell belongs to exactly one rank (no overlap); element contributions are summed in local
  vectors and added into the global ones (DMLocalToGlobal with ADD_VALUES), and matrices are
  assembled with global indices. Rayleigh damping D = alpha M + beta K0 (K0 the tangent at the
  reference configuration), gravity -M g. Invariants: the three components of the linear momentum
  sum_i (M v)_i and of the angular momentum sum_i q_i x (M v)_i (§5, §8); an element with J <= 0 at
  any quadrature point is inverted and fails the stage (§7).
*/
#include "solidimpl.h"

/* Adds the tangent of cell c at quadrature point k (the point p), times V, into Ke (3 nen square; row (a, i), column (b, k)) */
static void SolidElementTangent(const Solid *s, PetscInt c, PetscInt k, const SolidPoint *p, PetscReal V, PetscReal Ke[])
{
  const PetscInt     nen = s->nen, n = 3 * nen;
  const PetscReal   *g = SolidGrad(s, c, k);
  const SolidRegion *r = SolidCellRegion(s, c);
  PetscReal          dF[9], dP[9];

  for (PetscInt b = 0; b < nen; b++) {
    for (PetscInt kk = 0; kk < 3; kk++) {
      for (PetscInt i = 0; i < 9; i++) dF[i] = 0;
      for (PetscInt l = 0; l < 3; l++) dF[3 * kk + l] = g[3 * b + l];
      r->mat->dstress(&r->mod, p, dF, dP);
      for (PetscInt a = 0; a < nen; a++)
        for (PetscInt i = 0; i < 3; i++) Ke[(3 * a + i) * n + 3 * b + kk] += V * (dP[3 * i] * g[3 * a] + dP[3 * i + 1] * g[3 * a + 1] + dP[3 * i + 2] * g[3 * a + 2]);
    }
  }
}

/*
  Prepares the insertion of element matrices into J. On one rank, into a SeqAIJ matrix whose every
  node's 3 rows hold the 3 columns of every node it shares a cell with (SolidCreatePattern()'s
  pattern), the values are added in place: the places of the node pairs of every cell are found
  once per matrix and nonzero state (s->aijoff) and each entry is then one addition, where
  MatSetValues() searched its column in the row (two thirds of the assembly: bench/README.md, "The
  solid's kernels"). The entries receive the same sums in the same order: the matrix is bitwise
  the same. Otherwise (several ranks, another matrix type or pattern) *aa stays NULL and the cells
  go through MatSetValues().
*/
PetscErrorCode SolidCellMatrixSetUp(Solid *s, Mat J, PetscScalar **aa, const PetscInt **ia)
{
  const PetscInt   nen = s->nen;
  PetscMPIInt      size;
  PetscBool        seqaij, assembled, done, ok = PETSC_TRUE;
  PetscObjectId    id;
  PetscObjectState st;
  PetscInt         nr;
  const PetscInt  *ja;

  PetscFunctionBegin;
  *aa = NULL;
  *ia = NULL;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)J), &size));
  PetscCall(PetscObjectTypeCompare((PetscObject)J, MATSEQAIJ, &seqaij));
  if (size > 1 || !seqaij) PetscFunctionReturn(0);
  PetscCall(MatAssembled(J, &assembled));
  if (!assembled) PetscFunctionReturn(0);
  PetscCall(PetscObjectGetId((PetscObject)J, &id));
  PetscCall(MatGetNonzeroState(J, &st));
  PetscCall(MatGetRowIJ(J, 0, PETSC_FALSE, PETSC_FALSE, &nr, ia, &ja, &done));
  if (!done) PetscFunctionReturn(0);
  if (!s->aijoff || id != s->aijid || st != s->aijstate) {
    if (!s->aijoff) PetscCall(PetscMalloc1((size_t)nen * nen * s->ncells, &s->aijoff));
    for (PetscInt c = 0; c < s->ncells && ok; c++) {
      const PetscInt *go = &s->goff[nen * c];

      for (PetscInt a = 0; a < nen && ok; a++) {
        for (PetscInt b = 0; b < nen && ok; b++) {
          const PetscInt r = go[a], col = go[b];
          PetscInt       lo = (*ia)[r], hi = (*ia)[r + 1] - 1, off;

          /* the column's place in the first row, then the same place in the node's other rows */
          while (lo < hi) {
            const PetscInt mid = (lo + hi) / 2;

            if (ja[mid] < col) lo = mid + 1;
            else hi = mid;
          }
          off = lo - (*ia)[r];
          for (PetscInt i = 0; i < 3 && ok; i++)
            for (PetscInt k = 0; k < 3 && ok; k++) {
              const PetscInt q = (*ia)[r + i] + off + k;

              if (r + i >= nr || q >= (*ia)[r + i + 1] || ja[q] != col + k) ok = PETSC_FALSE;
            }
          s->aijoff[((size_t)c * nen + a) * nen + b] = off;
        }
      }
    }
    s->aijid    = ok ? id : 0;
    s->aijstate = st;
  }
  if (!ok) {
    PetscCall(MatRestoreRowIJ(J, 0, PETSC_FALSE, PETSC_FALSE, &nr, ia, &ja, &done));
    *ia = NULL;
    PetscFunctionReturn(0);
  }
  PetscCall(MatSeqAIJGetArray(J, aa));
  PetscFunctionReturn(0);
}

/* Ends what SolidCellMatrixSetUp() began */
PetscErrorCode SolidCellMatrixEnd(Mat J, PetscScalar **aa, const PetscInt **ia)
{
  PetscInt        nr;
  const PetscInt *ja = NULL;
  PetscBool       done;

  PetscFunctionBegin;
  if (!*aa) PetscFunctionReturn(0);
  PetscCall(MatSeqAIJRestoreArray(J, aa));
  PetscCall(MatRestoreRowIJ(J, 0, PETSC_FALSE, PETSC_FALSE, &nr, ia, &ja, &done));
  *ia = NULL;
  PetscFunctionReturn(0);
}

/* Adds the element matrix Ke (3 nen square; row (a, i), column (b, k)) of cell c into J: in place
   where SolidCellMatrixSetUp() gave the values aa, otherwise by MatSetValues() */
PetscErrorCode SolidCellMatrixAdd(const Solid *s, PetscInt c, const PetscReal Ke[], PetscScalar *aa, const PetscInt *ia, Mat J)
{
  const PetscInt nen = s->nen, n = 3 * nen;

  PetscFunctionBegin;
  if (aa) {
    const PetscInt *go = &s->goff[nen * c], *off = &s->aijoff[(size_t)c * nen * nen];

    for (PetscInt a = 0; a < nen; a++)
      for (PetscInt i = 0; i < 3; i++) {
        PetscScalar     *row = aa + ia[go[a] + i];
        const PetscReal *ke  = &Ke[(3 * a + i) * n];

        for (PetscInt b = 0; b < nen; b++)
          for (PetscInt k = 0; k < 3; k++) row[off[a * nen + b] + k] += ke[3 * b + k];
      }
  } else {
    PetscInt idx[3 * SOLID_MAX_NEN];

    SolidCellIndices(s, c, idx);
    PetscCall(MatSetValues(J, n, idx, n, idx, Ke, ADD_VALUES));
  }
  PetscFunctionReturn(0);
}

/*
  y (a local array) += the element forces of the cells cells[0 .. n-1] (NULL: cells 0 .. n-1) at
  the positions x (the ghosted local array), each with its region's material. A neo-Hookean element
  with J <= 0 at a quadrature point has no stress: its nodes get NaN. The elements with J <= 0 are
  counted (ninv), the first by rank-independent number (first, a local cell, and its J).
*/
void SolidAddElementForces(const Solid *s, const PetscScalar x[], PetscInt n, const PetscInt cells[], PetscScalar y[], PetscInt *ninv, PetscInt *first, PetscReal *Jfirst)
{
  PetscReal  F[9], P[9];
  SolidPoint p;

  for (PetscInt j = 0; j < n; j++) {
    const PetscInt     c    = cells ? cells[j] : j;
    const PetscInt    *o    = &s->loff[s->nen * c];
    const SolidRegion *r    = SolidCellRegion(s, c);
    PetscBool          inv  = PETSC_FALSE;
    PetscReal          Jmin = PETSC_MAX_REAL;

    for (PetscInt k = 0; k < s->nq; k++) {
      SolidDeformationAt(s, c, k, x, F);
      if (!r->mat->setup(&r->mod, F, &p)) {
        for (PetscInt a = 0; a < s->nen; a++)
          for (PetscInt i = 0; i < 3; i++) y[o[a] + i] = (PetscReal)NAN;
      }
      if (!(p.J > 0)) {
        inv  = PETSC_TRUE;
        Jmin = PetscMin(Jmin, p.J);
        if (r->mat->positiveJ) continue;
      }
      r->mat->stress(&r->mod, &p, P, NULL);
      SolidAddStress(s, c, k, SolidWeight(s, c, k), P, y);
    }
    if (inv) {
      (*ninv)++;
      if (*first < 0 || s->cellid[c] < s->cellid[*first]) {
        *first  = c;
        *Jfirst = Jmin;
      }
    }
  }
}

/*
  f = elastic forces + gravity + Rayleigh damping. A neo-Hookean element with J <= 0 at a quadrature
  point has no stress: its nodes get a NaN force, so that the residual is not finite and the solver
  fails the stage (rejected and retried under an adaptive controller) instead of accepting it. A
  model has no handle on the SNES that evaluates it, so it cannot call SNESSetFunctionDomainError();
  the non-finite residual is the signal the SNES and src/ts/stepstate.c act on. The elements with
  J <= 0 (any material) are recorded, without communication, for MechSolidGetInverted(), and -info
  names the first.
*/
PetscErrorCode SolidForce(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
{
  Solid             *s = (Solid *)ctx;
  Vec                ql, fl;
  const PetscScalar *x;
  PetscScalar       *y;
  PetscReal          Jfirst = 0;
  PetscInt           ninv = 0, first = -1;

  PetscFunctionBegin;
  (void)sys;
  PetscCall(SolidGetLocal(s, q, &ql, &x));
  PetscCall(DMGetLocalVector(s->dm, &fl));
  PetscCall(VecZeroEntries(fl));
  PetscCall(VecGetArray(fl, &y));
  SolidAddElementForces(s, x, s->ncells, NULL, y, &ninv, &first, &Jfirst);
  /* loads on boundary faces (loads.c) */
  if (s->nloads) PetscCall(SolidLoadsAddForce(s, t, x, y));
  if (ninv) {
    s->ninv     = ninv;
    s->firstinv = s->cellid[first];
    s->Jinv     = Jfirst;
    s->tinv     = t;
    PetscCall(PetscInfo(s->dm, "element %" PetscInt_FMT " inverted (J = %g <= 0, reference centroid (%g, %g, %g)); %" PetscInt_FMT " inverted on this rank%s\n", s->firstinv, (double)s->Jinv, (double)s->ctr[3 * first], (double)s->ctr[3 * first + 1], (double)s->ctr[3 * first + 2], ninv, SolidCellRegion(s, first)->mat->positiveJ ? ": the stage fails" : ""));
  }
  PetscCall(VecRestoreArray(fl, &y));
  PetscCall(SolidRestoreLocal(s, &ql, &x));
  PetscCall(VecZeroEntries(f));
  PetscCall(DMLocalToGlobalBegin(s->dm, fl, ADD_VALUES, f));
  PetscCall(DMLocalToGlobalEnd(s->dm, fl, ADD_VALUES, f));
  PetscCall(DMRestoreLocalVector(s->dm, &fl));
  PetscCall(SolidAddDeadLoadsAndDamping(s, t, v, f));
  PetscFunctionReturn(0);
}

/*
  Adds to the global force f what does not depend on the position: gravity times its time function
  (-solid_g_time), the body force b(t, X) (bodyforce.c) and the Rayleigh damping
  (alpha M + beta K0) v. The force and the discrete gradient (discgrad.c) share it; the energy
  balance's parts (parts.c) take the dead loads and the damping apart.
*/
PetscErrorCode SolidAddDeadLoadsAndDamping(Solid *s, PetscReal t, Vec v, Vec f)
{
  PetscFunctionBegin;
  PetscCall(SolidAddDeadLoads(s, t, f));
  PetscCall(SolidAddDamping(s, v, f));
  PetscFunctionReturn(0);
}

/* f += gravity times its time function and the body force at t */
PetscErrorCode SolidAddDeadLoads(Solid *s, PetscReal t, Vec f)
{
  PetscFunctionBegin;
  if (s->fg) {
    PetscReal phi;

    PetscCall(MechTimeFunctionEvaluate(s->gtime, t, &phi, NULL, NULL));
    PetscCall(VecAXPY(f, phi, s->fg));
  }
  PetscCall(SolidBodyAddForce(s, t, f));
  PetscFunctionReturn(0);
}

/* f += the Rayleigh damping (alpha Ma + beta K0) v */
PetscErrorCode SolidAddDamping(Solid *s, Vec v, Vec f)
{
  PetscFunctionBegin;
  if (s->alpha != 0) {
    PetscCall(MatMult(SolidDampingMass(s), v, s->work));
    PetscCall(VecAXPY(f, s->alpha, s->work));
  }
  if (s->beta != 0) {
    PetscCall(MatMult(s->K0, v, s->work));
    PetscCall(VecAXPY(f, s->beta, s->work));
  }
  PetscFunctionReturn(0);
}

/* Adds scale times the element tangents at (t, q) (the ghosted local array x; NULL: the reference
   configuration, without loads) and the follower loads' stiffness into the assembled J */
PetscErrorCode SolidAddElementTangents(Solid *s, PetscReal t, const PetscScalar x[], PetscReal scale, Mat J)
{
  const PetscInt  n = 3 * s->nen;
  PetscReal       F[9], *Ke;
  PetscScalar    *aa;
  const PetscInt *ia;
  SolidPoint      p;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n * n, &Ke));
  PetscCall(SolidCellMatrixSetUp(s, J, &aa, &ia));
  for (PetscInt c = 0; c < s->ncells; c++) {
    const SolidRegion *r = SolidCellRegion(s, c);
    /* the reference tangent of the damping with each region's beta (regions.c) */
    const PetscReal cscale = !x && s->K0weighted ? scale * r->beta : scale;
    PetscBool       ok     = PETSC_TRUE;

    PetscCall(PetscArrayzero(Ke, n * n));
    for (PetscInt k = 0; k < s->nq && ok; k++) {
      if (x) {
        SolidDeformationAt(s, c, k, x, F);
        /* an inverted neo-Hookean element has no tangent; the force has failed the stage already */
        if (!r->mat->setup(&r->mod, F, &p)) ok = PETSC_FALSE;
      } else {
        /* the reference configuration */
        for (PetscInt i = 0; i < 9; i++) F[i] = i % 4 == 0 ? 1.0 : 0.0;
        (void)r->mat->setup(&r->mod, F, &p);
      }
      if (ok) SolidElementTangent(s, c, k, &p, SolidWeight(s, c, k) * cscale, Ke);
    }
    if (!ok) continue;
    PetscCall(SolidCellMatrixAdd(s, c, Ke, aa, ia, J));
  }
  PetscCall(SolidCellMatrixEnd(J, &aa, &ia));
  PetscCall(PetscFree(Ke));
  if (x && s->follower) PetscCall(SolidLoadsAddTangent(s, t, x, scale, J));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* J = cK K + cD (alpha M + beta K0); the rigid-body modes become J's near-null space */
PetscErrorCode SolidTangent(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  Solid             *s = (Solid *)ctx;
  Vec                ql;
  const PetscScalar *x;

  PetscFunctionBegin;
  (void)sys;
  (void)v;
  PetscCall(SolidGetLocal(s, q, &ql, &x));
  PetscCall(SolidAddElementTangents(s, t, x, cK, J));
  PetscCall(SolidRestoreLocal(s, &ql, &x));
  PetscCall(SolidAddDampingTangent(s, cD, J));
  PetscFunctionReturn(0);
}

/*
  Adds cD (alpha M + beta K0), the Rayleigh damping's derivative, to the assembled J and makes the
  rigid-body modes J's near-null space (the tangent's and the discrete gradient's derivative's)
*/
PetscErrorCode SolidAddDampingTangent(Solid *s, PetscReal cD, Mat J)
{
  MatNullSpace nsp;

  PetscFunctionBegin;
  /* the mass has a third of the tangent's couplings (SolidCreatePattern(), mass) */
  if (cD != 0 && s->alpha != 0) PetscCall(MatAXPY(J, cD * s->alpha, SolidDampingMass(s), SUBSET_NONZERO_PATTERN));
  if (cD != 0 && s->beta != 0) PetscCall(MatAXPY(J, cD * s->beta, s->K0, SAME_NONZERO_PATTERN));
  PetscCall(MatGetNearNullSpace(J, &nsp));
  if (!nsp) PetscCall(MatSetNearNullSpace(J, s->nullsp));
  PetscFunctionReturn(0);
}

/* P1 tetrahedra with the neo-Hookean material (region r's): the tangent action in spatial form, keeping per cell
   the spatial gradients G_b = F^-T g_b (b = 1, 2, 3) and mu - lambda ln J (10 reals, the material's nstate) */
static inline PetscBool SolidSpatial(const Solid *s, const SolidRegion *r)
{
  return r->mat->spatial && s->cell->spatial ? PETSC_TRUE : PETSC_FALSE;
}

/*
  The neo-Hookean tangent action of cell c in spatial form (docs/solid.md, §4): with d_b = w_b - w_0,
  dF = sum_b d_b g_b^T and H = dF F^-1 = sum_b d_b G_b^T, the force increments are
  y_a = V (mu dF g_a + (mu - lambda ln J) H^T G_a + lambda tr(H) G_a), and y_0 = -(y_1 + y_2 + y_3).
*/
static inline void SolidApplyNeoHookean(const Solid *s, PetscInt c, const PetscScalar x[], const PetscReal st[], PetscReal V, PetscScalar y[])
{
  const SolidModuli *mod = &SolidCellRegion(s, c)->mod;
  const PetscInt    *o   = &s->loff[4 * c];
  const PetscReal   *g = SolidGrad(s, c, 0) + 3, *G = st;
  PetscReal          d[9], dF[9], H[9], trH, r[3];

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
      const PetscReal ya = V * (mod->mu * (dF[3 * i] * ga[0] + dF[3 * i + 1] * ga[1] + dF[3 * i + 2] * ga[2]) + st[9] * (H[i] * Ga[0] + H[3 + i] * Ga[1] + H[6 + i] * Ga[2]) + mod->lambda * trH * Ga[i]);

      y[o[a + 1] + i] += ya;
      r[i] += ya;
    }
  }
  for (PetscInt i = 0; i < 3; i++) y[o[0] + i] -= r[i];
}

/*
  Keeps, per cell and quadrature point, what the material's dP needs at q (SolidTangentApply());
  cM: the coefficient of the mass that the action applies cell by cell (0: none)
*/
static PetscErrorCode SolidLinearize(Solid *s, PetscReal t, Vec q, PetscReal cK, PetscReal cD, PetscReal cM)
{
  const PetscInt     ns = s->nstate;
  Vec                ql;
  const PetscScalar *x;
  PetscReal          F[9];
  SolidPoint         p;

  PetscFunctionBegin;
  s->cK = cK;
  s->cD = cD;
  s->cM = cM;
  if (s->follower) {
    PetscCall(SolidGetLocal(s, q, &ql, &x));
    PetscCall(SolidLoadsLinearize(s, t, x, cK));
    PetscCall(SolidRestoreLocal(s, &ql, &x));
  }
  if (!ns) PetscFunctionReturn(0);
  if (s->tensor) {
    PetscCall(SolidGetLocal(s, q, &ql, &x));
    PetscCall(SolidTensorLinearize(s, x));
    PetscCall(SolidRestoreLocal(s, &ql, &x));
    PetscFunctionReturn(0);
  }
  if (!s->store) PetscCall(PetscMalloc1((size_t)ns * s->nq * s->ncells, &s->store));
  PetscCall(SolidGetLocal(s, q, &ql, &x));
  for (PetscInt c = 0; c < s->ncells; c++) {
    const SolidRegion *r = SolidCellRegion(s, c);

    if (!r->mat->nstate) continue;
    for (PetscInt k = 0; k < s->nq; k++) {
      PetscReal *st = &s->store[((size_t)c * s->nq + k) * ns];

      SolidDeformationAt(s, c, k, x, F);
      /* an inverted neo-Hookean cell (its force has failed the stage): a zero state (docs/solid.md, §7) */
      if (!r->mat->setup(&r->mod, F, &p)) {
        PetscCall(PetscArrayzero(st, ns));
        continue;
      }
      if (SolidSpatial(s, r)) {
        const PetscReal *g = SolidGrad(s, c, 0);

        for (PetscInt b = 0; b < 3; b++)
          for (PetscInt i = 0; i < 3; i++) st[3 * b + i] = p.FinvT[3 * i] * g[3 * (b + 1)] + p.FinvT[3 * i + 1] * g[3 * (b + 1) + 1] + p.FinvT[3 * i + 2] * g[3 * (b + 1) + 2];
        st[9] = r->mod.mu - r->mod.lambda * p.lnJ;
      } else r->mat->pack(&r->mod, &p, st);
    }
  }
  PetscCall(SolidRestoreLocal(s, &ql, &x));
  PetscFunctionReturn(0);
}

PetscErrorCode SolidTangentLinearize(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, void *ctx)
{
  PetscFunctionBegin;
  (void)sys;
  (void)v;
  PetscCall(SolidLinearize((Solid *)ctx, t, q, cK, cD, 0));
  PetscFunctionReturn(0);
}

/* The linearization of J = cK K + cD D + cM M with the mass inside the action (MechSystemSetOperatorLinearize()) */
PetscErrorCode SolidOperatorLinearize(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, void *ctx)
{
  PetscFunctionBegin;
  (void)sys;
  (void)v;
  PetscCall(SolidLinearize((Solid *)ctx, t, q, cK, cD, cM));
  PetscFunctionReturn(0);
}

/* y += m M_e w of P1 tetrahedron c, M_e = V/20 (1 + delta_ab) its consistent element mass over rho (M = M_s x I3) */
static inline void SolidCellMass(const Solid *s, PetscInt c, PetscReal m, const PetscScalar x[], PetscScalar y[])
{
  const PetscInt *o = &s->loff[4 * c];
  const PetscReal V = m * s->vol[c];

  for (PetscInt i = 0; i < 3; i++) {
    const PetscReal sum = x[o[0] + i] + x[o[1] + i] + x[o[2] + i] + x[o[3] + i];

    for (PetscInt a = 0; a < 4; a++) y[o[a] + i] += V / 20 * (sum + x[o[a] + i]);
  }
}

/*
  y = (cK K + cD (alpha M + beta K0) + cM M) w at the state of the last linearization: hexahedra
  by sum factorization (sumfact.c), tetrahedra point by point; the mass cell by cell when the
  linearization gave it a coefficient (SolidOperatorLinearize(): hexahedra and P1 tetrahedra),
  Rayleigh's alpha M with it
*/
PetscErrorCode SolidTangentApply(MechSystem sys, Vec w, Vec y, void *ctx)
{
  Solid             *s  = (Solid *)ctx;
  const PetscInt     ns = s->nstate;
  Vec                wl, yl;
  const PetscScalar *x;
  PetscScalar       *ya;
  SolidPoint         p;
  /* the mass inside the action (SolidOperatorLinearize()); Rayleigh's alpha M with it when the
     damping mass is M (one alpha for every region) */
  const PetscBool fusealpha = s->cM != 0 && !s->Ma ? PETSC_TRUE : PETSC_FALSE;
  const PetscReal cmass     = s->cM != 0 ? s->cM + (fusealpha ? s->cD * s->alpha : 0) : 0;

  PetscFunctionBegin;
  (void)sys;
  PetscCall(PetscMemzero(&p, sizeof(p))); /* the linear material reads none of it */
  PetscCall(SolidGetLocal(s, w, &wl, &x));
  PetscCall(DMGetLocalVector(s->dm, &yl));
  PetscCall(VecZeroEntries(yl));
  PetscCall(VecGetArray(yl, &ya));
  if (s->tensor) PetscCall(SolidTensorApply(s, s->cK, cmass, x, ya));
  else {
    for (PetscInt c = 0; c < s->ncells; c++) {
      const SolidRegion *r = SolidCellRegion(s, c);

      if (SolidSpatial(s, r)) SolidApplyNeoHookean(s, c, x, &s->store[ns * c], s->cK * SolidWeight(s, c, 0), ya);
      else {
        for (PetscInt k = 0; k < s->nq; k++) {
          PetscReal dF[9], dP[9];

          /* dF = sum_a w_a g_a^T: the deformation of the direction w */
          SolidDeformationAt(s, c, k, x, dF);
          if (r->mat->nstate && r->mat->unpack) r->mat->unpack(&r->mod, &s->store[((size_t)c * s->nq + k) * ns], &p);
          r->mat->dstress(&r->mod, &p, dF, dP);
          SolidAddStress(s, c, k, s->cK * SolidWeight(s, c, k), dP, ya);
        }
      }
      if (cmass != 0) SolidCellMass(s, c, cmass * r->rho, x, ya);
    }
  }
  if (s->follower) PetscCall(SolidLoadsApply(s, x, ya));
  PetscCall(VecRestoreArray(yl, &ya));
  PetscCall(SolidRestoreLocal(s, &wl, &x));
  PetscCall(VecZeroEntries(y));
  PetscCall(DMLocalToGlobalBegin(s->dm, yl, ADD_VALUES, y));
  PetscCall(DMLocalToGlobalEnd(s->dm, yl, ADD_VALUES, y));
  PetscCall(DMRestoreLocalVector(s->dm, &yl));
  if (s->cD != 0 && s->alpha != 0 && !fusealpha) {
    PetscCall(MatMult(SolidDampingMass(s), w, s->work));
    PetscCall(VecAXPY(y, s->cD * s->alpha, s->work));
  }
  if (s->cD != 0 && s->beta != 0) {
    PetscCall(MatMult(s->K0, w, s->work));
    PetscCall(VecAXPY(y, s->cD * s->beta, s->work));
  }
  PetscFunctionReturn(0);
}

/* This rank's part of the elastic (strain) energy at the positions x (the ghosted local array),
   each cell with its region's material; +Inf where a neo-Hookean element inverts */
PetscReal SolidStrainEnergy(const Solid *s, const PetscScalar x[])
{
  PetscReal  F[9], P[9], W, e = 0;
  SolidPoint p;

  for (PetscInt c = 0; c < s->ncells && e < PETSC_INFINITY; c++) {
    const SolidRegion *r = SolidCellRegion(s, c);

    for (PetscInt k = 0; k < s->nq; k++) {
      SolidDeformationAt(s, c, k, x, F);
      if (!r->mat->setup(&r->mod, F, &p)) {
        /* the neo-Hookean energy grows without bound as J -> 0 */
        e = PETSC_INFINITY;
        break;
      }
      r->mat->stress(&r->mod, &p, P, &W);
      e += SolidWeight(s, c, k) * W;
    }
  }
  return e;
}

/*
  This rank's part of the strain energy at q (x: its ghosted local array), kept for the next call at
  the same positions: the output's potential and the energy balance's stored energy ask for it at
  every step at the same state (in vectors of their own), and it costs an element loop. Collective
  (the comparison of q with the positions kept).
*/
PetscErrorCode SolidStrainEnergyCached(Solid *s, Vec q, const PetscScalar x[], PetscReal *e)
{
  PetscBool same = PETSC_FALSE;

  PetscFunctionBegin;
  if (!s->ecache) PetscCall(VecDuplicate(q, &s->ecache));
  else PetscCall(VecEqual(q, s->ecache, &same));
  if (same && s->ecached) {
    *e = s->estrain;
    PetscFunctionReturn(0);
  }
  *e = SolidStrainEnergy(s, x);
  PetscCall(VecCopy(q, s->ecache));
  s->estrain = *e;
  s->ecached = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Elastic energy plus the gravitational potential -g . (M q) = fg . q, the loads' (loads.c) and the body force's (bodyforce.c) */
PetscErrorCode SolidPotential(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *potential, void *ctx)
{
  Solid             *s = (Solid *)ctx;
  Vec                ql;
  const PetscScalar *x;
  PetscReal          e, eg = 0;

  PetscFunctionBegin;
  (void)sys;
  (void)v;
  PetscCall(SolidGetLocal(s, q, &ql, &x));
  PetscCall(SolidStrainEnergyCached(s, q, x, &e));
  if (s->nloads && e < PETSC_INFINITY) {
    PetscReal el;

    PetscCall(SolidLoadsPotential(s, t, x, &el));
    e += el;
  }
  PetscCall(SolidRestoreLocal(s, &ql, &x));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &e, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)s->dm)));
  if (s->fg) {
    PetscReal phi;

    PetscCall(MechTimeFunctionEvaluate(s->gtime, t, &phi, NULL, NULL));
    PetscCall(VecDot(s->fg, q, &eg));
    eg *= phi;
  }
  /* the body force's -int b . u dV0 (bodyforce.c) */
  {
    PetscReal eb;

    PetscCall(SolidBodyPotential(s, t, q, &eb));
    eg += eb;
  }
  *potential = e + eg;
  PetscFunctionReturn(0);
}

/* Component comp of the linear (0-2) or angular (3-5) momentum, on every rank */
PetscErrorCode SolidMomentum(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *value, void *ctx)
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

/*
  A matrix with the node couplings of the mesh, block size 3, every coupling present (explicit
  zeros). The couplings of the nodes are counted once, node by node, with MATPREALLOCATOR from
  the cells' nodes (it sends the rows of nodes owned elsewhere to their owners): a graph of the
  nodes, nen^2 insertions per cell, where the scalar pattern took 9 nen^2 (and 3 nen^2 more for the
  mass; 40 % of the set-up of Q2 hexahedra at 139 587 unknowns in perf). Each node's row of the
  graph then gives its three rows of the matrix, counted and filled directly (rows owned here
  only). DMCreateMatrix() derives the same pattern from the mesh's adjacency, at several times
  the cost (26 s against 3 s for 1.6 million cells).
  mass: the mass's couplings only, component i of a node with component i of every node it shares
  a cell with (M = M_s x I3), a third of the tangent's pattern, so that the products with the mass
  (the residual, and the matrix-free operator M + K of every Krylov iteration) stream a third of
  the entries: the sums are those of the full pattern without its explicit zeros, the same bits.
*/
/* The graph of the nodes (a matrix of the node couplings, explicit zeros), built once while the patterns are made (s->graph) */
PetscErrorCode SolidNodeGraph(Solid *s, PetscInt m, PetscInt M, Mat *G)
{
  MPI_Comm     comm = PetscObjectComm((PetscObject)s->dm);
  PetscScalar *zeros;
  PetscInt     idx[SOLID_MAX_NEN];
  Mat          pre;
  PetscBool    done = s->graph ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBegin;
  /* without ghost nodes from the cells directly (nodegraph.c) */
  if (!done) PetscCall(SolidNodeGraphLocal(s, m, M, &s->graph, &done));
  if (!done) {
    PetscCall(MatCreate(comm, &pre));
    PetscCall(MatSetType(pre, MATPREALLOCATOR));
    PetscCall(MatSetSizes(pre, m, m, M, M));
    PetscCall(MatSetUp(pre));
    PetscCall(PetscCalloc1(s->nen * s->nen, &zeros));
    for (PetscInt c = 0; c < s->ncells; c++) {
      for (PetscInt a = 0; a < s->nen; a++) idx[a] = s->goff[s->nen * c + a] / 3;
      PetscCall(MatSetValues(pre, s->nen, idx, s->nen, idx, zeros, INSERT_VALUES));
    }
    PetscCall(PetscFree(zeros));
    PetscCall(MatAssemblyBegin(pre, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(pre, MAT_FINAL_ASSEMBLY));
    PetscCall(MatCreate(comm, &s->graph));
    PetscCall(MatSetType(s->graph, MATAIJ));
    PetscCall(MatSetSizes(s->graph, m, m, M, M));
    PetscCall(MatPreallocatorPreallocate(pre, PETSC_TRUE, s->graph));
    PetscCall(MatDestroy(&pre));
  }
  *G = s->graph;
  PetscFunctionReturn(0);
}

PetscErrorCode SolidCreatePattern(Solid *s, PetscBool mass, Mat *A)
{
  MPI_Comm     comm = PetscObjectComm((PetscObject)s->dm);
  PetscScalar *zeros;
  PetscInt     m, M, rstart, cstart, cend, *dnz, *onz, *cols, maxc = 0;
  Vec          x;
  Mat          G = NULL;

  PetscFunctionBegin;
  PetscCall(DMGetGlobalVector(s->dm, &x));
  PetscCall(VecGetLocalSize(x, &m));
  PetscCall(VecGetSize(x, &M));
  PetscCall(VecGetOwnershipRange(x, &rstart, NULL));
  PetscCall(DMRestoreGlobalVector(s->dm, &x));
  PetscCall(SolidNodeGraph(s, m / 3, M / 3, &G));
  /* each node's row gives its 3 rows: columns 3 j + i (mass) or 3 j .. 3 j + 2 */
  cstart = rstart;
  cend   = rstart + m;
  PetscCall(PetscMalloc2(m, &dnz, m, &onz));
  for (PetscInt r = 0; r < m / 3; r++) {
    const PetscInt *gc;
    PetscInt        nc, nd = 0;

    PetscCall(MatGetRow(G, rstart / 3 + r, &nc, &gc, NULL));
    for (PetscInt k = 0; k < nc; k++)
      if (3 * gc[k] >= cstart && 3 * gc[k] < cend) nd++;
    for (PetscInt i = 0; i < 3; i++) {
      dnz[3 * r + i] = (mass ? 1 : 3) * nd;
      onz[3 * r + i] = (mass ? 1 : 3) * (nc - nd);
    }
    maxc = PetscMax(maxc, 3 * nc);
    PetscCall(MatRestoreRow(G, rstart / 3 + r, &nc, &gc, NULL));
  }
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSetSizes(*A, m, m, M, M));
  PetscCall(MatSetBlockSize(*A, 3));
  PetscCall(MatSeqAIJSetPreallocation(*A, 0, dnz));
  PetscCall(MatMPIAIJSetPreallocation(*A, 0, dnz, 0, onz));
  PetscCall(PetscFree2(dnz, onz));
  PetscCall(PetscMalloc1(maxc, &cols));
  PetscCall(PetscCalloc1(maxc, &zeros));
  for (PetscInt r = 0; r < m / 3; r++) {
    const PetscInt *gc;
    PetscInt        nc;

    PetscCall(MatGetRow(G, rstart / 3 + r, &nc, &gc, NULL));
    for (PetscInt i = 0; i < 3; i++) {
      const PetscInt row = rstart + 3 * r + i;
      PetscInt       n   = 0;

      for (PetscInt k = 0; k < nc; k++) {
        if (mass) cols[n++] = 3 * gc[k] + i;
        else
          for (PetscInt l = 0; l < 3; l++) cols[n++] = 3 * gc[k] + l;
      }
      PetscCall(MatSetValues(*A, 1, &row, n, cols, zeros, INSERT_VALUES));
    }
    PetscCall(MatRestoreRow(G, rstart / 3 + r, &nc, &gc, NULL));
  }
  PetscCall(PetscFree(cols));
  PetscCall(PetscFree(zeros));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/*
  The mass (damping: the mass of the regions' alpha rho, regions.c). P1 tetrahedra: consistent rho V0/20 (1 + delta_ab) I3 per element, or lumped rho V0/4
  per vertex. Other cells: consistent M_ab = sum_k rho N_a N_b w_k I3 with a rule exact for the
  integrand on affine cells (degree 2 order on tetrahedra, order + 1 Gauss points per direction on
  hexahedra); lumped by HRZ diagonal scaling (Hinton, Rock and Zienkiewicz 1976, docs/solid.md):
  m_a = M_aa m / sum_b M_bb with m the element's mass, positive where the row sums of P2
  tetrahedra are not (they are negative at the vertices). On P1 tetrahedra HRZ is the rho V0/4 above.
*/
PetscErrorCode SolidAssembleMass(Solid *s, PetscBool lumped, PetscBool damping, Mat M)
{
  const PetscInt     nen = s->nen;
  PetscReal         *Ms;
  PetscInt           nq   = 0, idx[SOLID_MAX_NEN];
  PetscQuadrature    quad = NULL;
  PetscTabulation    T    = NULL;
  const PetscReal   *qw   = NULL;
  const PetscScalar *X    = NULL;
  const PetscBool    p1   = s->cell->simplex && s->cell->order == 1 ? PETSC_TRUE : PETSC_FALSE;
  PetscInt           bs;

  PetscFunctionBegin;
  /* block size 1: M is the scalar M_s on the nodes (massshell.c) */
  PetscCall(MatGetBlockSize(M, &bs));
  PetscCall(PetscMalloc1(nen * nen, &Ms));
  if (!p1) {
    const PetscReal *qp;

    PetscCall(SolidCellQuadrature(s->cell, 0, &quad));
    PetscCall(PetscQuadratureGetData(quad, NULL, NULL, &nq, &qp, &qw));
    PetscCall(PetscFECreateTabulation(s->fe, 1, nq, qp, 1, &T));
    PetscCall(VecGetArrayRead(s->Xref, &X));
  }
  for (PetscInt c = 0; c < s->ncells; c++) {
    /* each cell's density (regions.c); damping: the alpha rho of its region */
    const PetscReal rho = damping ? SolidCellRegion(s, c)->rho * SolidCellRegion(s, c)->alpha : SolidCellRegion(s, c)->rho;

    if (p1) {
      const PetscReal m = rho * s->vol[c];

      for (PetscInt a = 0; a < 4; a++)
        for (PetscInt b = 0; b < 4; b++) Ms[4 * a + b] = lumped ? (a == b ? m / 4 : 0.0) : m / 20 * (a == b ? 2.0 : 1.0);
    } else {
      const PetscInt *o = &s->loff[nen * c];

      PetscCall(PetscArrayzero(Ms, nen * nen));
      for (PetscInt k = 0; k < nq; k++) {
        const PetscReal *B = &T->T[0][k * nen], *D = &T->T[1][k * nen * 3];
        PetscReal        Jm[9] = {0}, w;

        for (PetscInt a = 0; a < nen; a++)
          for (PetscInt i = 0; i < 3; i++)
            for (PetscInt j = 0; j < 3; j++) Jm[3 * i + j] += PetscRealPart(X[o[a] + i]) * D[3 * s->perm[a] + j];
        w = rho * qw[k] * SolidDet3(Jm);
        for (PetscInt a = 0; a < nen; a++)
          for (PetscInt b = 0; b < nen; b++) Ms[a * nen + b] += w * B[s->perm[a]] * B[s->perm[b]];
      }
      if (lumped) {
        PetscReal m = 0, d = 0;

        for (PetscInt a = 0; a < nen; a++) {
          d += Ms[a * nen + a];
          for (PetscInt b = 0; b < nen; b++) m += Ms[a * nen + b];
        }
        for (PetscInt a = 0; a < nen; a++)
          for (PetscInt b = 0; b < nen; b++) Ms[a * nen + b] = a == b ? Ms[a * nen + a] * m / d : 0.0;
      }
    }
    /* M = M_s x I3: the scalar element mass into each component's couplings (SolidCreatePattern(), mass) */
    for (PetscInt i = 0; i < (bs == 1 ? 1 : 3); i++) {
      for (PetscInt a = 0; a < nen; a++) idx[a] = bs == 1 ? s->goff[nen * c + a] / 3 : s->goff[nen * c + a] + i;
      PetscCall(MatSetValues(M, nen, idx, nen, idx, Ms, ADD_VALUES));
    }
  }
  if (!p1) {
    PetscCall(VecRestoreArrayRead(s->Xref, &X));
    PetscCall(PetscTabulationDestroy(&T));
    PetscCall(PetscQuadratureDestroy(&quad));
  }
  PetscCall(PetscFree(Ms));
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/*
  The states a neo-Hookean solid can take: no inverted element (MechSystemSetStateCheck()). With
  q NULL, why the latest force evaluation or refused state at a time >= t failed.
*/
PetscErrorCode SolidStateCheck(MechSystem sys, PetscReal t, Vec q, Vec v, PetscBool *ok, char why[], size_t len, void *ctx)
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
    PetscReal          F[9];

    loc[0] = 0;
    loc[1] = -1;
    tl     = PETSC_MIN_REAL;
    PetscCall(SolidGetLocal(s, q, &ql, &x));
    for (PetscInt c = 0; c < s->ncells; c++) {
      PetscBool inv = PETSC_FALSE;

      /* inverted: J <= 0 at any quadrature point */
      for (PetscInt k = 0; k < s->nq && !inv; k++) {
        SolidDeformationAt(s, c, k, x, F);
        if (!(SolidDet3(F) > 0)) inv = PETSC_TRUE;
      }
      if (!inv) continue;
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
