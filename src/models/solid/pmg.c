/*
  The solid's p-multigrid (docs/solid.md §16, docs/solvers.md §4): for quadratic elements (P2
  tetrahedra, Q2 hexahedra) a PCMG of two levels,

    level 1  the quadratic space with the matrix-free operator J = cM M + cD D + cK K (the system's
             multigrid operator, mgoperator.c), smoothed by Chebyshev with Jacobi on its diagonal,
             computed here element by element (SolidTangentDiagonal());
    level 0  the linear space on the same mesh (P1, Q1: the cells' vertices), its operator assembled
             (SolidPMGUpdate()) and solved by PETSc's GAMG with the rigid-body modes of the vertices
             as near-null space (-mg_coarse_ options),

  and between them the interpolation by the elements' own shape functions: a node of the quadratic
  layout at reference point xi gets N1_b(xi) of each vertex b (a vertex itself, the mean of an
  edge's two vertices, of a face's four, of a hexahedron's eight), in parallel through the global
  numbering of the vertices' dofs. The interpolation has no rows for the fixed dofs and no columns
  for the fixed vertex dofs, whose rows of the linear level are decoupled (the diagonal kept): no
  coarse correction moves a fixed dof.

  The linear level's operator, -solid_pmg_coarse:
    galerkin      P^T J P, exactly: the quadratic tangent's Galerkin product computed cell by cell,
                  the linear basis's gradients as combinations of the quadratic ones at the
                  quadratic quadrature points, at the quadratic state (K); the mass and Rayleigh's
                  reference tangent as Galerkin products formed once (M, K0);
    rediscretized the linear element's own tangent (one point per tetrahedron, 2 x 2 x 2 per
                  hexahedron) at the vertices' positions, the same M and K0.
  A follower pressure's load stiffness is left out of the linear level (it is in the finest level's
  products; GMRES, which the non-symmetric operator needs anyway, absorbs the difference).

  Per quadrature point the tangent enters as the 81 entries C_iJkL = dP_iJ/dF_kL, nine of the
  material's directional derivatives dstress(e_k e_L^T), whatever the material: the diagonal of a
  node's component, g_a . C_i.i. g_a, and the linear level's element matrices come from it.
*/
#include "solidimpl.h"

static const char *const SolidPMGCoarseTypes[] = {"galerkin", "rediscretized", "SolidPMGCoarse", "SOLID_PMG_COARSE_", NULL};

/* The interpolation of one node of the quadratic layout: its vertices and their weights */
typedef struct {
  PetscInt  n, b[8];
  PetscReal w[8];
} SolidPMGNode;

/* The linear level of one PCMG (the data of MechSystemSetMultigrid()'s setup) */
typedef struct {
  Solid       *s;
  PetscInt     nv;                   /* vertices per cell: 4, 8 */
  SolidPMGNode node[SOLID_MAX_NEN];  /* the quadratic layout's nodes in the vertices */
  PetscInt     nvlist[8], *vlist[8]; /* per vertex, the nodes that hold it (for the gradients) */
  PetscReal   *vw[8];                /* and their weights */
  PetscInt    *goff1;                /* per cell and vertex, its first dof in the linear level */
  Mat          A1, M1;               /* the linear level's operator and its mass */
  Mat          P;                    /* the interpolation linear -> quadratic */
  Mat          Pc[3];                /* with the scalar mass (massshell.c), per component: P's rows of it on the nodes, until M1 is formed */
  PetscInt     npc;                  /* 1 where the components are fixed together (every Pc the same), else 3 */
  IS           fixed1;               /* the linear level's fixed dofs */
  Vec          d1;                   /* work: the linear level's diagonal */
  PetscInt     nq1;                  /* rediscretized: points per cell, gradients and weights */
  PetscReal   *g1, *w1;
} SolidPMG;

/* C_iJkL = dP_iJ / dF_kL at the point p of a cell of region r (row-major 9 x 9: C[9 (3 i + J) + 3 k + L]) */
static inline void SolidPointTensor(const SolidRegion *r, const SolidPoint *p, PetscReal C[81])
{
  PetscReal dF[9], dP[9];

  for (PetscInt e = 0; e < 9; e++) {
    for (PetscInt i = 0; i < 9; i++) dF[i] = i == e ? 1.0 : 0.0;
    r->mat->dstress(&r->mod, p, dF, dP);
    for (PetscInt i = 0; i < 9; i++) C[9 * i + e] = dP[i];
  }
}

/* Ke (3 n square) += V B^T C B for n nodes with gradients g (n x 3) */
static inline void SolidTensorMatrixAdd(PetscInt n, const PetscReal g[], const PetscReal C[81], PetscReal V, PetscReal Ke[])
{
  for (PetscInt b = 0; b < n; b++) {
    PetscReal T[27]; /* T[(3 i + J) 3 + k] = sum_L C_iJkL g_bL */

    for (PetscInt iJ = 0; iJ < 9; iJ++)
      for (PetscInt k = 0; k < 3; k++) T[3 * iJ + k] = C[9 * iJ + 3 * k] * g[3 * b] + C[9 * iJ + 3 * k + 1] * g[3 * b + 1] + C[9 * iJ + 3 * k + 2] * g[3 * b + 2];
    for (PetscInt a = 0; a < n; a++)
      for (PetscInt i = 0; i < 3; i++)
        for (PetscInt k = 0; k < 3; k++) Ke[(3 * a + i) * 3 * n + 3 * b + k] += V * (g[3 * a] * T[9 * i + k] + g[3 * a + 1] * T[9 * i + 3 + k] + g[3 * a + 2] * T[9 * i + 6 + k]);
  }
}

/* The material point of cell c at quadrature point k of state x (NULL: the reference); false where inverted */
static inline PetscBool SolidPMGPoint(const Solid *s, PetscInt c, PetscInt k, const PetscScalar x[], SolidPoint *p)
{
  const SolidRegion *r = SolidCellRegion(s, c);
  PetscReal          F[9];

  if (!x) {
    for (PetscInt i = 0; i < 9; i++) F[i] = i % 4 == 0 ? 1.0 : 0.0;
    (void)r->mat->setup(&r->mod, F, p);
    return PETSC_TRUE;
  }
  SolidDeformationAt(s, c, k, x, F);
  return r->mat->setup(&r->mod, F, p);
}

/* The reference configuration's tensor (F = I) of cell c's material, times its region's beta where
   the regions' differ: that of K0, the same at every point of the cell */
static void SolidReferenceTensor(const Solid *s, PetscInt c, PetscReal C0[81])
{
  const SolidRegion *r = SolidCellRegion(s, c);
  SolidPoint         p;
  PetscReal          F[9];

  PetscMemzero(&p, sizeof(p));
  for (PetscInt i = 0; i < 9; i++) F[i] = i % 4 == 0 ? 1.0 : 0.0;
  (void)r->mat->setup(&r->mod, F, &p);
  SolidPointTensor(r, &p, C0);
  /* regions of different betas: K0 holds each cell's (regions.c), beta is then 1 */
  if (s->K0weighted)
    for (PetscInt e = 0; e < 81; e++) C0[e] *= r->beta;
}

/*
  One pass over the cells at the state x (ghosted local array) with the tensor C = cK C(F) + cB C(I)
  per point (cB = cD beta: K0 is the tangent at the reference on the same points): into the local
  arrays y (NULL: none) the diagonal of cK K + cD beta K0 (bs 1: y[0]) or its 3 x 3 diagonal blocks
  (bs 3: y[i] their row i), per point and node a w g_a^T C_i.k. g_a; with the linear level mg (NULL:
  none) of the Galerkin kind, its element matrices (16.2) into A. A cell with an inverted point
  adds nothing (its force has failed the stage already). A follower pressure's load stiffness has no
  diagonal entries (a cross product) and is left out of the blocks and of A.
*/
static PetscErrorCode SolidPMGPass(const Solid *s, const SolidPMG *mg, const PetscScalar x[], PetscReal cK, PetscReal cB, PetscInt bs, PetscScalar *y[], Mat A)
{
  const PetscInt nen = s->nen, nv = mg ? mg->nv : 0, n1 = 3 * nv;
  PetscReal      C[81], C0[81] = {0}, B[9 * SOLID_MAX_NEN], Ke[24 * 24], g1[24];
  PetscInt       idx[8];
  SolidPoint     p;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&p, sizeof(p)));
  for (PetscInt c = 0; c < s->ncells; c++) {
    if (cB != 0) SolidReferenceTensor(s, c, C0);
    const PetscInt *o  = &s->loff[nen * c];
    PetscBool       ok = PETSC_TRUE;

    if (y) PetscCall(PetscArrayzero(B, 9 * nen));
    if (mg) PetscCall(PetscArrayzero(Ke, n1 * n1));
    for (PetscInt k = 0; k < s->nq && ok; k++) {
      const PetscReal *g = SolidGrad(s, c, k), w = SolidWeight(s, c, k);

      if (!(ok = SolidPMGPoint(s, c, k, x, &p))) break;
      SolidPointTensor(SolidCellRegion(s, c), &p, C);
      for (PetscInt e = 0; e < 81; e++) C[e] = cK * C[e] + cB * C0[e];
      if (y && bs == 1) {
        for (PetscInt a = 0; a < nen; a++)
          for (PetscInt i = 0; i < 3; i++) {
            const PetscReal *Ci = &C[9 * 3 * i + 3 * i]; /* C_iJiL at Ci[9 J + L] */
            const PetscReal *ga = &g[3 * a];

            B[3 * a + i] += w * (ga[0] * (Ci[0] * ga[0] + Ci[1] * ga[1] + Ci[2] * ga[2]) + ga[1] * (Ci[9] * ga[0] + Ci[10] * ga[1] + Ci[11] * ga[2]) + ga[2] * (Ci[18] * ga[0] + Ci[19] * ga[1] + Ci[20] * ga[2]));
          }
      } else if (y) {
        /* a node's block is SolidTensorMatrixAdd() of that node alone */
        for (PetscInt a = 0; a < nen; a++) SolidTensorMatrixAdd(1, &g[3 * a], C, w, &B[9 * a]);
      }
      if (mg) {
        /* the linear gradients at this point: (16.1) */
        for (PetscInt b = 0; b < nv; b++)
          for (PetscInt j = 0; j < 3; j++) {
            g1[3 * b + j] = 0;
            for (PetscInt l = 0; l < mg->nvlist[b]; l++) g1[3 * b + j] += mg->vw[b][l] * g[3 * mg->vlist[b][l] + j];
          }
        SolidTensorMatrixAdd(nv, g1, C, w, Ke);
      }
    }
    if (!ok) continue;
    if (y)
      for (PetscInt a = 0; a < nen; a++)
        for (PetscInt i = 0; i < bs; i++)
          for (PetscInt k = 0; k < 3; k++) y[i][o[a] + k] += bs == 1 ? B[3 * a + k] : B[9 * a + 3 * i + k];
    if (mg) {
      for (PetscInt a = 0; a < nv; a++) idx[a] = mg->goff1[nv * c + a] / 3;
      PetscCall(MatSetValuesBlocked(A, nv, idx, nv, idx, Ke, ADD_VALUES));
    }
  }
  PetscFunctionReturn(0);
}

/* d[i] (global) += the local arrays' sum over the ranks, and cD alpha times the mass's diagonal (M = M_s x I3: no other entry in a block) */
static PetscErrorCode SolidPMGDiagonalEnd(const Solid *s, PetscReal cD, PetscInt bs, Vec dl[], PetscScalar *y[], Vec d[])
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < bs; i++) {
    PetscCall(VecRestoreArray(dl[i], &y[i]));
    PetscCall(DMLocalToGlobalBegin(s->dm, dl[i], ADD_VALUES, d[i]));
    PetscCall(DMLocalToGlobalEnd(s->dm, dl[i], ADD_VALUES, d[i]));
    PetscCall(DMRestoreLocalVector(s->dm, &dl[i]));
  }
  if (cD != 0 && s->alpha != 0) {
    PetscScalar       *di;
    const PetscScalar *m;
    PetscInt           n;

    PetscCall(MatGetDiagonal(SolidDampingMass(s), s->work));
    PetscCall(VecGetLocalSize(s->work, &n));
    PetscCall(VecGetArrayRead(s->work, &m));
    for (PetscInt i = 0; i < bs; i++) {
      PetscCall(VecGetArray(d[i], &di));
      for (PetscInt r = bs == 1 ? 0 : i; r < n; r += bs == 1 ? 1 : 3) di[r] += cD * s->alpha * m[r];
      PetscCall(VecRestoreArray(d[i], &di));
    }
    PetscCall(VecRestoreArrayRead(s->work, &m));
  }
  PetscFunctionReturn(0);
}

/* bs local vectors of the layout, zeroed, and their arrays */
static PetscErrorCode SolidPMGDiagonalBegin(const Solid *s, PetscInt bs, Vec dl[], PetscScalar *y[])
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < bs; i++) {
    PetscCall(DMGetLocalVector(s->dm, &dl[i]));
    PetscCall(VecZeroEntries(dl[i]));
    PetscCall(VecGetArray(dl[i], &y[i]));
  }
  PetscFunctionReturn(0);
}

/*
  The diagonal (bs 1) or 3 x 3 diagonal blocks (bs 3) of cK K + cD (alpha M + beta K0) at q,
  element by element (MechSystemSetTangentDiagonal(), SolidPMGPass(), (16.3))
*/
static PetscErrorCode SolidTangentDiagonal(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscInt bs, Vec d[], void *ctx)
{
  Solid             *s = (Solid *)ctx;
  Vec                ql, dl[3];
  const PetscScalar *x;
  PetscScalar       *y[3];

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCheck(bs == 1 || bs == 3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The solid's diagonal blocks are 1 x 1 or 3 x 3, not %" PetscInt_FMT, bs);
  PetscCall(SolidGetLocal(s, q, &ql, &x));
  PetscCall(SolidPMGDiagonalBegin(s, bs, dl, y));
  if (cK != 0 || cD * s->beta != 0) PetscCall(SolidPMGPass(s, NULL, x, cK, cD * s->beta, bs, y, NULL));
  PetscCall(SolidRestoreLocal(s, &ql, &x));
  PetscCall(SolidPMGDiagonalEnd(s, cD, bs, dl, y, d));
  PetscFunctionReturn(0);
}

/*
  The interpolation weights of the layout's nodes, N1_b(xi_a): the quadratic element's nodes xi_a
  (its dual basis, point evaluations) tabulated by the linear Lagrange element of the same cell,
  whose basis function 1 at vertex b is perm1[b]
*/
static PetscErrorCode SolidPMGWeights(const Solid *s, SolidPMG *mg)
{
  const PetscBool simplex = s->ct == DM_POLYTOPE_TETRAHEDRON ? PETSC_TRUE : PETSC_FALSE;
  PetscDualSpace  sp;
  PetscFE         fe1;
  PetscTabulation T;
  PetscReal       xi[3 * SOLID_MAX_NEN];
  PetscInt        nb, perm1[8];
  const PetscInt  nen = s->nen;

  PetscFunctionBegin;
  PetscCall(PetscFEGetDualSpace(s->fe, &sp));
  for (PetscInt a = 0; a < nen; a++) {
    PetscQuadrature  q;
    const PetscReal *pt;
    PetscInt         np;

    PetscCall(PetscDualSpaceGetFunctional(sp, s->perm[a], &q));
    PetscCall(PetscQuadratureGetData(q, NULL, NULL, &np, &pt, NULL));
    PetscCheck(np == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The quadratic element's functional %" PetscInt_FMT " is not a point evaluation", s->perm[a]);
    for (PetscInt i = 0; i < 3; i++) xi[3 * a + i] = pt[i];
  }
  PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, 3, 1, simplex, 1, PETSC_DETERMINE, &fe1));
  PetscCall(PetscFEGetDimension(fe1, &nb));
  mg->nv = nb;
  PetscCall(PetscFECreateTabulation(fe1, 1, nen, xi, 0, &T));
  /* the layout's first nv nodes are the cell's vertices (solidimpl.h) */
  for (PetscInt b = 0; b < nb; b++) {
    perm1[b] = -1;
    for (PetscInt j = 0; j < nb; j++)
      if (PetscAbsReal(T->T[0][b * nb + j] - 1) < 1e-10) perm1[b] = j;
    PetscCheck(perm1[b] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No linear basis function is 1 at vertex %" PetscInt_FMT, b);
  }
  for (PetscInt a = 0; a < nen; a++) {
    mg->node[a].n = 0;
    for (PetscInt b = 0; b < nb; b++) {
      const PetscReal w = T->T[0][a * nb + perm1[b]];

      if (PetscAbsReal(w) < 1e-12) continue;
      mg->node[a].b[mg->node[a].n]   = b;
      mg->node[a].w[mg->node[a].n++] = w;
    }
  }
  PetscCall(PetscTabulationDestroy(&T));
  PetscCall(PetscFEDestroy(&fe1));
  /* per vertex, the nodes that hold it: the linear gradients from the quadratic ones */
  for (PetscInt b = 0; b < nb; b++) {
    mg->nvlist[b] = 0;
    PetscCall(PetscMalloc2(nen, &mg->vlist[b], nen, &mg->vw[b]));
    for (PetscInt a = 0; a < nen; a++)
      for (PetscInt j = 0; j < mg->node[a].n; j++)
        if (mg->node[a].b[j] == b) {
          mg->vlist[b][mg->nvlist[b]] = a;
          mg->vw[b][mg->nvlist[b]++]  = mg->node[a].w[j];
        }
  }
  PetscFunctionReturn(0);
}

/*
  The linear level's numbering: the vertices owned here, in the order of their quadratic dofs,
  numbered after those of the lower ranks; every cell's vertices get their first dof (goff1) and
  which of their components are fixed (fix1, bits), through a vector of the quadratic layout that
  carries each owned vertex's code, -1 - index where fixed, to the ghosts. ffix: this rank's fixed
  quadratic dofs (local index); n1: the linear level's local size.
*/
static PetscErrorCode SolidPMGNumbering(const Solid *s, SolidPMG *mg, const PetscBool ffix[], PetscInt fix1[], PetscInt *n1)
{
  const PetscInt nen = s->nen, nv = mg->nv;
  PetscInt       rstart, rend, m, *cmap, cnt = 0, cstart = 0;
  Vec            code, codel;
  PetscScalar   *ca;
  MPI_Comm       comm = PetscObjectComm((PetscObject)s->dm);

  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(s->work, &rstart, &rend));
  m = (rend - rstart) / 3;
  PetscCall(PetscMalloc1(m, &cmap));
  for (PetscInt i = 0; i < m; i++) cmap[i] = -1;
  for (PetscInt c = 0; c < s->ncells; c++)
    for (PetscInt a = 0; a < nv; a++) {
      const PetscInt g = s->goff[nen * c + a];

      if (g >= rstart && g < rend) cmap[(g - rstart) / 3] = 0;
    }
  for (PetscInt i = 0; i < m; i++) cnt += cmap[i] == 0 ? 3 : 0;
  PetscCallMPI(MPI_Exscan(&cnt, &cstart, 1, MPIU_INT, MPI_SUM, comm));
  *n1 = cnt;
  cnt = cstart;
  PetscCall(DMGetGlobalVector(s->dm, &code));
  PetscCall(VecGetArray(code, &ca));
  for (PetscInt i = 0; i < m; i++) {
    if (cmap[i] < 0) continue;
    for (PetscInt j = 0; j < 3; j++) ca[3 * i + j] = ffix[3 * i + j] ? -1.0 - (cnt + j) : (PetscScalar)(cnt + j);
    cnt += 3;
  }
  PetscCall(VecRestoreArray(code, &ca));
  PetscCall(PetscFree(cmap));
  PetscCall(DMGetLocalVector(s->dm, &codel));
  PetscCall(DMGlobalToLocalBegin(s->dm, code, INSERT_VALUES, codel));
  PetscCall(DMGlobalToLocalEnd(s->dm, code, INSERT_VALUES, codel));
  PetscCall(DMRestoreGlobalVector(s->dm, &code));
  PetscCall(VecGetArray(codel, &ca));
  for (PetscInt c = 0; c < s->ncells; c++)
    for (PetscInt a = 0; a < nv; a++) {
      const PetscInt lo = s->loff[nen * c + a];
      PetscInt       f  = 0;

      for (PetscInt j = 0; j < 3; j++) {
        const PetscInt k = (PetscInt)PetscRealPart(ca[lo + j]);

        if (k < 0) f |= 1 << j;
        if (j == 0) mg->goff1[nv * c + a] = k < 0 ? -1 - k : k;
      }
      fix1[nv * c + a] = f;
    }
  PetscCall(VecRestoreArray(codel, &ca));
  PetscCall(DMRestoreLocalVector(s->dm, &codel));
  PetscFunctionReturn(0);
}

/*
  An interpolation's matrix, m x n local, block size bs (3: the dofs, 1: the nodes), preallocated for
  the number of vertices of each owned node of the quadratic layout (its weights: 1 to 8)
*/
static PetscErrorCode SolidPMGInterpolationCreate(const Solid *s, const SolidPMG *mg, PetscInt m, PetscInt n, PetscInt bs, Mat *P)
{
  const PetscInt nen = s->nen;
  PetscInt       rstart, rend, *dnz, *onz;

  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(s->work, &rstart, &rend));
  PetscCall(PetscCalloc2(m, &dnz, m, &onz));
  for (PetscInt c = 0; c < s->ncells; c++)
    for (PetscInt a = 0; a < nen; a++) {
      const PetscInt g = s->goff[nen * c + a];

      if (g < rstart || g >= rend) continue;
      for (PetscInt j = 0; j < bs; j++) dnz[(g - rstart) / 3 * bs + j] = onz[(g - rstart) / 3 * bs + j] = mg->node[a].n;
    }
  PetscCall(MatCreate(PetscObjectComm((PetscObject)s->dm), P));
  PetscCall(MatSetSizes(*P, m, n, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSizes(*P, bs, bs));
  PetscCall(MatSetType(*P, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*P, 0, dnz));
  PetscCall(MatMPIAIJSetPreallocation(*P, 0, dnz, 0, onz));
  PetscCall(PetscFree2(dnz, onz));
  PetscFunctionReturn(0);
}

/* The interpolation linear -> quadratic (AIJ, block size 3): one row per owned free quadratic dof;
   with the scalar mass also its rows of each component on the nodes (Pc, for M1) */
static PetscErrorCode SolidPMGInterpolation(const Solid *s, SolidPMG *mg, const PetscBool ffix[], const PetscInt fix1[], PetscInt n1)
{
  const PetscInt nen = s->nen, nv = mg->nv;
  PetscInt       rstart, rend;
  PetscBool     *done;
  Mat            Ms;

  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(s->work, &rstart, &rend));
  PetscCall(SolidMassGetScalar(s->M, &Ms));
  PetscCall(SolidPMGInterpolationCreate(s, mg, rend - rstart, n1, 3, &mg->P));
  /* a node's components fixed together everywhere (a clamp): one Pc serves the three */
  {
    PetscBool same = PETSC_TRUE;

    for (PetscInt i = 0; i < rend - rstart; i += 3) same = same && ffix[i] == ffix[i + 1] && ffix[i] == ffix[i + 2] ? PETSC_TRUE : PETSC_FALSE;
    for (PetscInt k = 0; k < nv * s->ncells; k++) same = same && (fix1[k] == 0 || fix1[k] == 7) ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &same, 1, MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)s->dm)));
    mg->npc = same ? 1 : 3;
  }
  for (PetscInt j = 0; j < mg->npc && Ms; j++) PetscCall(SolidPMGInterpolationCreate(s, mg, (rend - rstart) / 3, n1 / 3, 1, &mg->Pc[j]));
  PetscCall(PetscCalloc1((rend - rstart) / 3, &done));
  for (PetscInt c = 0; c < s->ncells; c++)
    for (PetscInt a = 0; a < nen; a++) {
      const PetscInt g = s->goff[nen * c + a];

      if (g < rstart || g >= rend || done[(g - rstart) / 3]) continue;
      done[(g - rstart) / 3] = PETSC_TRUE;
      for (PetscInt j = 0; j < 3; j++) {
        const PetscInt row = g + j;
        PetscInt       cols[8], n = 0;
        PetscReal      vals[8];

        if (ffix[g - rstart + j]) continue;
        for (PetscInt k = 0; k < mg->node[a].n; k++) {
          const PetscInt b = mg->node[a].b[k];

          if (fix1[nv * c + b] & (1 << j)) continue;
          cols[n]   = mg->goff1[nv * c + b] + j;
          vals[n++] = mg->node[a].w[k];
        }
        if (n) PetscCall(MatSetValues(mg->P, 1, &row, n, cols, vals, INSERT_VALUES));
        if (n && Ms && j < mg->npc) {
          const PetscInt srow = g / 3;

          for (PetscInt k = 0; k < n; k++) cols[k] /= 3;
          PetscCall(MatSetValues(mg->Pc[j], 1, &srow, n, cols, vals, INSERT_VALUES));
        }
      }
    }
  PetscCall(PetscFree(done));
  PetscCall(MatAssemblyBegin(mg->P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(mg->P, MAT_FINAL_ASSEMBLY));
  for (PetscInt j = 0; j < mg->npc && Ms; j++) {
    PetscCall(MatAssemblyBegin(mg->Pc[j], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(mg->Pc[j], MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(0);
}

/* The linear level's operator with its couplings (every vertex pair of a cell), its fixed dofs and rigid-body modes */
static PetscErrorCode SolidPMGOperator(const Solid *s, SolidPMG *mg, const PetscInt fix1[], PetscInt n1)
{
  const PetscInt     nen = s->nen, nv = mg->nv;
  MPI_Comm           comm = PetscObjectComm((PetscObject)s->dm);
  Mat                pre;
  PetscReal         *zeros;
  PetscInt           idx[8], cstart, nfix = 0, *fidx;
  Vec                X1;
  PetscScalar       *xa;
  const PetscScalar *X;
  MatNullSpace       nsp;

  PetscFunctionBegin;
  PetscCall(MatCreate(comm, &pre));
  PetscCall(MatSetType(pre, MATPREALLOCATOR));
  PetscCall(MatSetSizes(pre, n1, n1, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(pre, 3));
  PetscCall(MatSetUp(pre));
  PetscCall(PetscCalloc1(9 * nv * nv, &zeros));
  for (PetscInt c = 0; c < s->ncells; c++) {
    for (PetscInt a = 0; a < nv; a++) idx[a] = mg->goff1[nv * c + a] / 3;
    PetscCall(MatSetValuesBlocked(pre, nv, idx, nv, idx, zeros, INSERT_VALUES));
  }
  PetscCall(PetscFree(zeros));
  PetscCall(MatAssemblyBegin(pre, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(pre, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreate(comm, &mg->A1));
  PetscCall(MatSetType(mg->A1, MATAIJ));
  PetscCall(MatSetSizes(mg->A1, n1, n1, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(mg->A1, 3));
  PetscCall(MatPreallocatorPreallocate(pre, PETSC_TRUE, mg->A1));
  PetscCall(MatDestroy(&pre));
  PetscCall(MatSetOption(mg->A1, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscCall(MatSetOption(mg->A1, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
  if (!s->follower) PetscCall(MatSetOption(mg->A1, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatCreateVecs(mg->A1, &mg->d1, &X1));
  /* the owned vertices' reference positions and fixed dofs */
  PetscCall(MatGetOwnershipRange(mg->A1, &cstart, NULL));
  PetscCall(PetscMalloc1(n1, &fidx));
  PetscCall(VecGetArray(X1, &xa));
  PetscCall(VecGetArrayRead(s->Xref, &X));
  for (PetscInt r = 0; r < n1; r++) fidx[r] = 0;
  for (PetscInt c = 0; c < s->ncells; c++)
    for (PetscInt a = 0; a < nv; a++) {
      const PetscInt r = mg->goff1[nv * c + a] - cstart;

      if (r < 0 || r >= n1) continue;
      for (PetscInt j = 0; j < 3; j++) {
        xa[r + j]   = X[s->loff[nen * c + a] + j];
        fidx[r + j] = fix1[nv * c + a] & (1 << j) ? 1 : 0;
      }
    }
  for (PetscInt r = 0; r < n1; r++)
    if (fidx[r]) fidx[nfix++] = r + cstart;
  PetscCall(VecRestoreArrayRead(s->Xref, &X));
  PetscCall(VecRestoreArray(X1, &xa));
  PetscCall(ISCreateGeneral(comm, nfix, fidx, PETSC_OWN_POINTER, &mg->fixed1));
  PetscCall(VecSetBlockSize(X1, 3));
  PetscCall(MatNullSpaceCreateRigidBody(X1, &nsp));
  PetscCall(MatSetNearNullSpace(mg->A1, nsp));
  PetscCall(MatNullSpaceDestroy(&nsp));
  PetscCall(VecDestroy(&X1));
  PetscFunctionReturn(0);
}

/*
  The rediscretized linear element's geometry: per cell and point of the linear rule (the
  centroid of a tetrahedron, 2 x 2 x 2 Gauss points of a hexahedron), the vertices' gradients dN_b/dX
  (nv x 3) and the weight times det dX/dxi of the straight cell
*/
static PetscErrorCode SolidPMGRediscretize(const Solid *s, SolidPMG *mg)
{
  const PetscBool    simplex = s->ct == DM_POLYTOPE_TETRAHEDRON ? PETSC_TRUE : PETSC_FALSE;
  const PetscInt     nv = mg->nv, nen = s->nen;
  PetscQuadrature    quad;
  PetscFE            fe1;
  PetscTabulation    T;
  const PetscReal   *qp, *qw;
  PetscReal          vxi[3 * 8];
  PetscInt           nq, perm1[8];
  const PetscScalar *X;

  PetscFunctionBegin;
  if (simplex) PetscCall(PetscDTSimplexQuadrature(3, 1, PETSCDTSIMPLEXQUAD_DEFAULT, &quad));
  else PetscCall(PetscDTGaussTensorQuadrature(3, 1, 2, -1.0, 1.0, &quad));
  PetscCall(PetscQuadratureGetData(quad, NULL, NULL, &nq, &qp, &qw));
  PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, 3, 1, simplex, 1, PETSC_DETERMINE, &fe1));
  /* the linear basis function of each vertex: 1 at the vertex, whose reference point the quadratic element's dual basis gives */
  {
    PetscDualSpace sp;

    PetscCall(PetscFEGetDualSpace(s->fe, &sp));
    for (PetscInt b = 0; b < nv; b++) {
      PetscQuadrature  q;
      const PetscReal *pt;

      PetscCall(PetscDualSpaceGetFunctional(sp, s->perm[b], &q));
      PetscCall(PetscQuadratureGetData(q, NULL, NULL, NULL, &pt, NULL));
      for (PetscInt i = 0; i < 3; i++) vxi[3 * b + i] = pt[i];
    }
    PetscCall(PetscFECreateTabulation(fe1, 1, nv, vxi, 0, &T));
    for (PetscInt b = 0; b < nv; b++)
      for (PetscInt j = 0; j < nv; j++)
        if (PetscAbsReal(T->T[0][b * nv + j] - 1) < 1e-10) perm1[b] = j;
    PetscCall(PetscTabulationDestroy(&T));
  }
  PetscCall(PetscFECreateTabulation(fe1, 1, nq, qp, 1, &T));
  mg->nq1 = nq;
  PetscCall(PetscMalloc2((size_t)3 * nv * nq * s->ncells, &mg->g1, (size_t)nq * s->ncells, &mg->w1));
  PetscCall(VecGetArrayRead(s->Xref, &X));
  for (PetscInt c = 0; c < s->ncells; c++) {
    for (PetscInt k = 0; k < nq; k++) {
      const PetscReal *D     = &T->T[1][k * nv * 3];
      PetscReal        Jm[9] = {0}, Ji[9], det, *g = &mg->g1[((size_t)c * nq + k) * 3 * nv];

      for (PetscInt b = 0; b < nv; b++)
        for (PetscInt i = 0; i < 3; i++)
          for (PetscInt j = 0; j < 3; j++) Jm[3 * i + j] += PetscRealPart(X[s->loff[nen * c + b] + i]) * D[3 * perm1[b] + j];
      det = SolidDet3(Jm);
      SolidInv3(Jm, det, Ji);
      for (PetscInt b = 0; b < nv; b++)
        for (PetscInt j = 0; j < 3; j++) g[3 * b + j] = D[3 * perm1[b]] * Ji[j] + D[3 * perm1[b] + 1] * Ji[3 + j] + D[3 * perm1[b] + 2] * Ji[6 + j];
      mg->w1[(size_t)c * nq + k] = qw[k] * PetscAbsReal(det);
    }
  }
  PetscCall(VecRestoreArrayRead(s->Xref, &X));
  PetscCall(PetscTabulationDestroy(&T));
  PetscCall(PetscFEDestroy(&fe1));
  PetscCall(PetscQuadratureDestroy(&quad));
  PetscFunctionReturn(0);
}

/*
  -solid_pmg_coarse rediscretized: the linear element's own tangent cK K1 + cB K0_1 at the vertices'
  positions x (ghosted local array), on its own points (SolidPMGRediscretize()), added into A
*/
static PetscErrorCode SolidPMGRediscretizedTangents(const Solid *s, const SolidPMG *mg, const PetscScalar x[], PetscReal cK, PetscReal cB, Mat A)
{
  const PetscInt nv = mg->nv, nen = s->nen, n = 3 * nv;
  PetscReal      Ke[24 * 24], C[81], C0[81]   = {0};
  PetscInt       idx[8];
  SolidPoint     p;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&p, sizeof(p)));
  for (PetscInt c = 0; c < s->ncells; c++) {
    if (cB != 0) SolidReferenceTensor(s, c, C0);
    PetscBool ok = PETSC_TRUE;

    PetscCall(PetscArrayzero(Ke, n * n));
    for (PetscInt k = 0; k < mg->nq1 && ok; k++) {
      const PetscReal *g    = &mg->g1[((size_t)c * mg->nq1 + k) * 3 * nv];
      PetscReal        F[9] = {0};

      for (PetscInt b = 0; b < nv; b++)
        for (PetscInt i = 0; i < 3; i++)
          for (PetscInt j = 0; j < 3; j++) F[3 * i + j] += x[s->loff[nen * c + b] + i] * g[3 * b + j];
      if (!(ok = SolidCellRegion(s, c)->mat->setup(&SolidCellRegion(s, c)->mod, F, &p))) break;
      SolidPointTensor(SolidCellRegion(s, c), &p, C);
      for (PetscInt e = 0; e < 81; e++) C[e] = cK * C[e] + cB * C0[e];
      SolidTensorMatrixAdd(nv, g, C, mg->w1[(size_t)c * mg->nq1 + k], Ke);
    }
    if (!ok) continue;
    for (PetscInt a = 0; a < nv; a++) idx[a] = mg->goff1[nv * c + a] / 3;
    PetscCall(MatSetValuesBlocked(A, nv, idx, nv, idx, Ke, ADD_VALUES));
  }
  PetscFunctionReturn(0);
}

/* Frees the linear level (MechSystemSetMultigrid()'s destroy) */
static PetscErrorCode SolidPMGDestroy(void **levels)
{
  SolidPMG *mg = (SolidPMG *)*levels;

  PetscFunctionBegin;
  if (!mg) PetscFunctionReturn(0);
  for (PetscInt b = 0; b < mg->nv; b++) PetscCall(PetscFree2(mg->vlist[b], mg->vw[b]));
  PetscCall(PetscFree(mg->goff1));
  PetscCall(PetscFree2(mg->g1, mg->w1));
  PetscCall(MatDestroy(&mg->A1));
  PetscCall(MatDestroy(&mg->M1));
  PetscCall(MatDestroy(&mg->P));
  for (PetscInt j = 0; j < 3; j++) PetscCall(MatDestroy(&mg->Pc[j]));
  PetscCall(ISDestroy(&mg->fixed1));
  PetscCall(VecDestroy(&mg->d1));
  PetscCall(PetscFree(mg));
  *levels = NULL;
  PetscFunctionReturn(0);
}

/* A (assembled) gets each component's scalar Mt[j] at the rows and columns 3 r + j */
static PetscErrorCode SolidPMGMassSpread(Mat Mt[3], Mat A)
{
  PetscFunctionBegin;
  for (PetscInt j = 0; j < 3; j++) {
    PetscInt rstart, rend, *c3 = NULL, cap = 0;

    PetscCall(MatGetOwnershipRange(Mt[j], &rstart, &rend));
    for (PetscInt r = rstart; r < rend; r++) {
      const PetscInt    *cols;
      const PetscScalar *vals;
      PetscInt           nc, row = 3 * r + j;

      PetscCall(MatGetRow(Mt[j], r, &nc, &cols, &vals));
      if (nc > cap) {
        cap = 2 * nc;
        PetscCall(PetscFree(c3));
        PetscCall(PetscMalloc1(cap, &c3));
      }
      for (PetscInt k = 0; k < nc; k++) c3[k] = 3 * cols[k] + j;
      PetscCall(MatSetValues(A, 1, &row, nc, c3, vals, INSERT_VALUES));
      PetscCall(MatRestoreRow(Mt[j], r, &nc, &cols, &vals));
    }
    PetscCall(PetscFree(c3));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* The linear level's mass: the Galerkin product P^T M P, formed once (in A1's pattern; with the scalar mass in its own) */
static PetscErrorCode SolidPMGMass(const Solid *s, SolidPMG *mg)
{
  Mat      Mt[3], Ms, pre;
  PetscInt n1;

  PetscFunctionBegin;
  PetscCall(SolidMassGetScalar(s->M, &Ms));
  if (!Ms) {
    PetscCall(MatPtAP(s->M, mg->P, MAT_INITIAL_MATRIX, 2.0, &Mt[0]));
    PetscCall(MatDuplicate(mg->A1, MAT_DO_NOT_COPY_VALUES, &mg->M1));
    PetscCall(MatAXPY(mg->M1, 1.0, Mt[0], SUBSET_NONZERO_PATTERN));
    PetscCall(MatDestroy(&Mt[0]));
    PetscFunctionReturn(0);
  }
  /* M = M_s x I3: component j of P^T M P is Pc_j^T M_s Pc_j (P's rows and columns of component j),
     and M1 keeps only these couplings of one component (a third of A1's entries) */
  for (PetscInt j = 0; j < 3; j++) {
    if (j < mg->npc) {
      PetscCall(MatPtAP(Ms, mg->Pc[j], MAT_INITIAL_MATRIX, 2.0, &Mt[j]));
      PetscCall(MatDestroy(&mg->Pc[j]));
    } else Mt[j] = Mt[0];
  }
  PetscCall(MatGetLocalSize(mg->A1, &n1, NULL));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)mg->A1), &pre));
  PetscCall(MatSetType(pre, MATPREALLOCATOR));
  PetscCall(MatSetSizes(pre, n1, n1, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetUp(pre));
  PetscCall(SolidPMGMassSpread(Mt, pre));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)mg->A1), &mg->M1));
  PetscCall(MatSetType(mg->M1, MATAIJ));
  PetscCall(MatSetSizes(mg->M1, n1, n1, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatPreallocatorPreallocate(pre, PETSC_FALSE, mg->M1));
  PetscCall(MatDestroy(&pre));
  PetscCall(SolidPMGMassSpread(Mt, mg->M1));
  for (PetscInt j = 0; j < mg->npc; j++) PetscCall(MatDestroy(&Mt[j]));
  PetscFunctionReturn(0);
}

/*
  MechSystemSetMultigrid()'s setup: the linear level of the PCMG pc, its interpolation, operator
  (computed by SolidPMGUpdate()) and default solver, one preconditioner application of GAMG
*/
static PetscErrorCode SolidPMGSetUp(MechSystem sys, PC pc, void **levels, void *ctx)
{
  Solid      *s    = (Solid *)ctx;
  MPI_Comm    comm = PetscObjectComm((PetscObject)pc);
  SolidPMG   *mg;
  PetscBool  *ffix, set;
  PetscInt   *fix1, n1 = 0, rstart, rend, nlev;
  IS          fixed;
  const char *prefix;
  KSP         coarse;
  PC          cpc;

  PetscFunctionBegin;
  PetscCall(PCGetOptionsPrefix(pc, &prefix));
  PetscCall(PetscOptionsGetInt(NULL, prefix, "-pc_mg_levels", &nlev, &set));
  PetscCheck(!set || nlev == 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_mg_levels %" PetscInt_FMT ": the solid's p-multigrid has 2 levels, its quadratic elements and their linear ones; the linear level's solver is -%smg_coarse_pc_type (gamg)", prefix ? prefix : "", nlev, prefix ? prefix : "");
  PetscCall(PetscNew(&mg));
  mg->s = s;
  PetscCall(SolidPMGWeights(s, mg));
  /* the fixed quadratic dofs of this rank */
  PetscCall(VecGetOwnershipRange(s->work, &rstart, &rend));
  PetscCall(PetscCalloc1(rend - rstart, &ffix));
  PetscCall(MechSystemGetFixed(sys, &fixed));
  if (fixed) {
    const PetscInt *idx;
    PetscInt        n;

    PetscCall(ISGetLocalSize(fixed, &n));
    PetscCall(ISGetIndices(fixed, &idx));
    for (PetscInt k = 0; k < n; k++) ffix[idx[k] - rstart] = PETSC_TRUE;
    PetscCall(ISRestoreIndices(fixed, &idx));
  }
  PetscCall(PetscMalloc1((size_t)mg->nv * s->ncells, &mg->goff1));
  PetscCall(PetscMalloc1((size_t)mg->nv * s->ncells, &fix1));
  PetscCall(SolidPMGNumbering(s, mg, ffix, fix1, &n1));
  PetscCall(SolidPMGInterpolation(s, mg, ffix, fix1, n1));
  PetscCall(SolidPMGOperator(s, mg, fix1, n1));
  PetscCall(PetscFree(ffix));
  PetscCall(PetscFree(fix1));
  if (s->pmgcoarse == 1) PetscCall(SolidPMGRediscretize(s, mg));
  PetscCall(SolidPMGMass(s, mg));
  {
    PetscInt N1;

    PetscCall(MatGetSize(mg->A1, &N1, NULL));
    PetscCall(PetscInfo(pc, "Solid p-multigrid: %" PetscInt_FMT " unknowns on the linear level (%s)\n", N1, SolidPMGCoarseTypes[s->pmgcoarse]));
  }

  PetscCall(PCMGSetLevels(pc, 2, NULL));
  PetscCall(PCMGSetInterpolation(pc, 1, mg->P));
  PetscCall(PCMGGetCoarseSolve(pc, &coarse));
  PetscCall(KSPSetOperators(coarse, mg->A1, mg->A1));
  /* one V-cycle of GAMG on the linear level unless -mg_coarse_ options say otherwise */
  PetscCall(KSPSetType(coarse, KSPPREONLY));
  PetscCall(KSPGetPC(coarse, &cpc));
  PetscCall(PCSetType(cpc, PCGAMG));
  *levels = mg;
  PetscFunctionReturn(0);
}

/* A1's fixed rows and columns decoupled, each keeping its diagonal entry (as the quadratic level's) */
static PetscErrorCode SolidPMGDecouple(SolidPMG *mg)
{
  const PetscInt    *idx;
  const PetscScalar *d1;
  PetscScalar       *df;
  PetscInt           nfix, cstart;
  Vec                dfix;

  PetscFunctionBegin;
  PetscCall(ISGetLocalSize(mg->fixed1, &nfix));
  PetscCall(MatGetDiagonal(mg->A1, mg->d1));
  PetscCall(MatZeroRowsColumnsIS(mg->A1, mg->fixed1, 0.0, NULL, NULL));
  PetscCall(VecDuplicate(mg->d1, &dfix));
  PetscCall(VecGetOwnershipRange(mg->d1, &cstart, NULL));
  PetscCall(ISGetIndices(mg->fixed1, &idx));
  PetscCall(VecGetArray(dfix, &df));
  PetscCall(VecGetArrayRead(mg->d1, &d1));
  for (PetscInt k = 0; k < nfix; k++) df[idx[k] - cstart] = d1[idx[k] - cstart];
  PetscCall(VecRestoreArrayRead(mg->d1, &d1));
  PetscCall(VecRestoreArray(dfix, &df));
  PetscCall(ISRestoreIndices(mg->fixed1, &idx));
  PetscCall(MatDiagonalSet(mg->A1, dfix, ADD_VALUES));
  PetscCall(VecDestroy(&dfix));
  PetscFunctionReturn(0);
}

/*
  MechSystemSetMultigrid()'s update: A1 = cK K1 + cD (alpha M1 + beta K0_1) + cM M1 at the state,
  fixed rows decoupled; with d, the quadratic level's diagonal of cK K + cD D in the same pass (Galerkin)
*/
static PetscErrorCode SolidPMGUpdate(MechSystem sys, void *levels, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, Vec d, void *ctx)
{
  Solid             *s  = (Solid *)ctx;
  SolidPMG          *mg = (SolidPMG *)levels;
  Mat                Ms;
  Vec                ql, dl[1];
  const PetscScalar *x;
  PetscScalar       *y[1];

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(MatZeroEntries(mg->A1));
  PetscCall(SolidGetLocal(s, q, &ql, &x));
  if (d) PetscCall(SolidPMGDiagonalBegin(s, 1, dl, y));
  if (cK != 0 || cD * s->beta != 0) {
    if (mg->g1) {
      PetscCall(SolidPMGRediscretizedTangents(s, mg, x, cK, cD * s->beta, mg->A1));
      if (d) PetscCall(SolidPMGPass(s, NULL, x, cK, cD * s->beta, 1, y, NULL));
    } else PetscCall(SolidPMGPass(s, mg, x, cK, cD * s->beta, 1, d ? y : NULL, mg->A1));
  }
  PetscCall(SolidRestoreLocal(s, &ql, &x));
  if (d) PetscCall(SolidPMGDiagonalEnd(s, cD, 1, dl, y, &d));
  PetscCall(MatAssemblyBegin(mg->A1, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(mg->A1, MAT_FINAL_ASSEMBLY));
  /* M1 in A1's pattern, or in its own with the scalar mass (SolidPMGMass()) */
  PetscCall(SolidMassGetScalar(s->M, &Ms));
  PetscCall(MatAXPY(mg->A1, cM + cD * s->alpha, mg->M1, Ms ? SUBSET_NONZERO_PATTERN : SAME_NONZERO_PATTERN));
  PetscCall(SolidPMGDecouple(mg));
  PetscFunctionReturn(0);
}

/*MC
  SOLIDPMG - The solid's p-multigrid for quadratic elements: -pc_type mg with -solid_order 2 (P2
  tetrahedra, Q2 hexahedra) gives the PCMG two levels, the quadratic space with its matrix-free
  operator and the linear space (P1, Q1) on the same mesh with its tangent assembled.

  Options Database Keys:
. -solid_pmg_coarse <galerkin> - the linear level's operator: galerkin (the quadratic operator's
                                 Galerkin product P^T J P, formed cell by cell at the quadratic
                                 state and quadrature points) or rediscretized (the linear
                                 elements' own tangent at the vertices' positions, one point per
                                 tetrahedron, 2 x 2 x 2 per hexahedron)

  Level: intermediate

  Notes:
  The finest level is smoothed by -mg_levels_ksp_type (Chebyshev) with -mg_levels_pc_type
  (Jacobi, on the diagonal computed element by element, mass, damping and fixed dofs included);
  the linear level is solved by -mg_coarse_ksp_type (preonly) with -mg_coarse_pc_type (gamg, with
  the vertices' rigid-body modes as near-null space). The interpolation is the elements' own
  shape functions; no matrix of the quadratic space is ever assembled. config/solid_quadratic.opts
  has the measured configuration; docs/solid.md §16 the mathematics and the measurements.

.seealso: `MechCreateSolid()`, `MechSystemSetMultigrid()`, `MechSystemCreateOperatorMultigrid()`, `MechSystemSetUpPCMG()`
M*/
PetscErrorCode SolidSetUpMultigrid(Solid *s, MechSystem sys)
{
  PetscInt coarse = s->pmgcoarse;

  PetscFunctionBegin;
  PetscCall(MechSystemSetTangentDiagonal(sys, 3, SolidTangentDiagonal, s));
  if (s->order != 2) PetscFunctionReturn(0);
  PetscOptionsBegin(PetscObjectComm((PetscObject)sys), NULL, "The solid's p-multigrid (-pc_type mg with -solid_order 2)", "SOLIDPMG");
  PetscCall(PetscOptionsEList("-solid_pmg_coarse", "The linear level's operator: the Galerkin product of the quadratic one, or the linear elements' own", "SOLIDPMG", SolidPMGCoarseTypes, 2, SolidPMGCoarseTypes[coarse], &coarse, NULL));
  PetscOptionsEnd();
  s->pmgcoarse = coarse;
  PetscCall(MechSystemSetMultigrid(sys, SolidPMGSetUp, SolidPMGUpdate, SolidPMGDestroy, s));
  PetscFunctionReturn(0);
}
