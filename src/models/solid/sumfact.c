/*
  The matrix-free operator of hexahedra (Q1, Q2) by sum factorization, in batches of
  SOLID_LANES cells (docs/solid.md, "The matrix-free operator of hexahedra").

  The Lagrange basis of Q_p on the reference cube [-1, 1]^3 is the tensor product of the 1-D
  Lagrange polynomials l_i on the p + 1 equispaced nodes, and the quadrature the tensor product of
  Gauss-Legendre's nq points: N_(ijk)(xi) = l_i(xi_0) l_j(xi_1) l_k(xi_2). The action of a cell,

      y_a = sum_k w_k det_k [ cK dP(dF_k) : (g_a J_k^-1) + cM rho u_k N_a(xi_k) ],
      dF_k = sum_b w_b (grad_xi N_b)^T J_k^-1,   u_k = sum_b w_b N_b(xi_k),

  is evaluated in steps of one direction at a time (Orszag 1980; the sum factorization of
  deal.II's FEEvaluation, Kronbichler and Kormann 2012, and of libCEED's tensor bases): the
  direction's values at the points, u_k = (B x B x B) w, with B (nq x (p + 1)) the 1-D basis at the
  points, three products of a small matrix along one direction of the cell's tensor; then the
  reference gradients from those values with the 1-D derivative of the Lagrange polynomials of the
  points at the points (the collocation derivative D, nq x nq; exact, since nq >= p + 1), three
  more; the transposed steps integrate back. A Q2 cell costs about 3 x 2 x 6 x 81 multiply-adds
  in the steps instead of the 27 x 27 x 9 x 2 of the point-by-point gradients, and needs no
  gradients stored per point: only J^-1 and det J (per cell where the cells are parallelepipeds).

  The mass, cM M w, is the values at the points times cM rho w_k det_k, integrated back with the
  same steps: the consistent mass of SolidAssembleMass() (the same rule: order + 1 points per
  direction on straight hexahedra), to round-off.

  Batches: the steps run on SOLID_LANES cells at once, the cell index innermost (arrays [..][lane]),
  so that every loop over the lanes is one vector operation for the compiler's vectorizer; a
  batch holds consecutive cells of one material (SolidBatchModuli()).
*/
#include "solidimpl.h"

#define W SOLID_LANES

/* the tensor data of the hexahedra (Solid.tensor) */
struct _n_SolidTensor {
  PetscInt   n1, q1, n3, q3; /* nodes and points per direction and per cell */
  PetscReal  B[4 * 3];       /* B[k][i] = l_i(x_k) (q1 x n1) */
  PetscReal  D[4 * 4];       /* D[k][j] = l'_j(x_k), the Lagrange polynomials of the points (q1 x q1) */
  PetscReal  w[64];          /* the weights of the q3 points */
  PetscInt   lex[27];        /* the tensor node i + n1 (j + n1 k) is the layout's node lex[.] */
  PetscInt   nb;             /* batches */
  PetscBool  affine;         /* every cell a parallelepiped: J per cell */
  PetscInt  *off;            /* per batch, node (tensor order) and lane: the node's local offset */
  PetscReal *geo;            /* per batch [(affine ? 1 : q3)][10][W]: J^-1 (9, row d, column j: dxi_d/dX_j) and det J */
  PetscReal *st;             /* per batch [q3][nstate][W]: what the material's dP needs (the linearization) */
};

/* The region of every local cell: the tensor path is kept only where a rank's cells share one (SolidTensorUseRegions()) */
static inline const SolidRegion *SolidTensorRegion(const Solid *s)
{
  return &s->reg[s->ncells ? s->creg[0] : 0];
}

/* The moduli of the cells of batch b (one material per batch) */
static inline const SolidModuli *SolidBatchModuli(const Solid *s, PetscInt b)
{
  (void)b;
  return &SolidTensorRegion(s)->mod;
}

/*
  out[o][r][i][l] (+)= sum_j A(r, j) in[o][j][i][l]: the 1-D matrix A (nr x nc, or its transpose
  when tr: A(r, j) = A[j][r]) applied along one direction of a tensor seen as outer x nc x inner
  (the directions before it inner, those after it outer), lanes innermost
*/
static inline __attribute__((always_inline)) void Sweep(PetscInt outer, PetscInt nr, PetscInt nc, PetscInt inner, const PetscReal *A, PetscBool tr, const PetscReal *restrict in, PetscReal *restrict out, PetscBool add)
{
  for (PetscInt o = 0; o < outer; o++)
    for (PetscInt r = 0; r < nr; r++)
      for (PetscInt i = 0; i < inner; i++) {
        PetscReal *restrict y = &out[((o * nr + r) * inner + i) * W];
        PetscReal acc[W];

        for (PetscInt l = 0; l < W; l++) acc[l] = add ? y[l] : 0;
        for (PetscInt j = 0; j < nc; j++) {
          const PetscReal  a = tr ? A[j * nr + r] : A[r * nc + j];
          const PetscReal *x = &in[((o * nc + j) * inner + i) * W];

          for (PetscInt l = 0; l < W; l++) acc[l] += a * x[l];
        }
        for (PetscInt l = 0; l < W; l++) y[l] = acc[l];
      }
}

/* The values (uq, q3) and reference gradients (g[d], q3 each) at the points of the nodal values u (n3) */
static inline __attribute__((always_inline)) void Forward(PetscInt n1, PetscInt q1, const struct _n_SolidTensor *t, const PetscReal *u, PetscReal *uq, PetscReal *g, PetscReal *t1, PetscReal *t2)
{
  const PetscInt q3 = q1 * q1 * q1;

  Sweep(n1 * n1, q1, n1, 1, t->B, PETSC_FALSE, u, t1, PETSC_FALSE);
  Sweep(n1, q1, n1, q1, t->B, PETSC_FALSE, t1, t2, PETSC_FALSE);
  Sweep(1, q1, n1, q1 * q1, t->B, PETSC_FALSE, t2, uq, PETSC_FALSE);
  Sweep(q1 * q1, q1, q1, 1, t->D, PETSC_FALSE, uq, g, PETSC_FALSE);
  Sweep(q1, q1, q1, q1, t->D, PETSC_FALSE, uq, g + q3 * W, PETSC_FALSE);
  Sweep(1, q1, q1, q1 * q1, t->D, PETSC_FALSE, uq, g + 2 * q3 * W, PETSC_FALSE);
}

/* The transpose of Forward(): y (n3) = B^T (v + D^T g) with v the values' weights at the points (overwritten) */
static inline __attribute__((always_inline)) void Backward(PetscInt n1, PetscInt q1, const struct _n_SolidTensor *t, PetscReal *v, const PetscReal *g, PetscReal *y, PetscReal *t1, PetscReal *t2)
{
  const PetscInt q3 = q1 * q1 * q1;

  Sweep(q1 * q1, q1, q1, 1, t->D, PETSC_TRUE, g, v, PETSC_TRUE);
  Sweep(q1, q1, q1, q1, t->D, PETSC_TRUE, g + q3 * W, v, PETSC_TRUE);
  Sweep(1, q1, q1, q1 * q1, t->D, PETSC_TRUE, g + 2 * q3 * W, v, PETSC_TRUE);
  Sweep(1, n1, q1, q1 * q1, t->B, PETSC_TRUE, v, t2, PETSC_FALSE);
  Sweep(n1, n1, q1, q1, t->B, PETSC_TRUE, t2, t1, PETSC_FALSE);
  Sweep(n1 * n1, n1, q1, 1, t->B, PETSC_TRUE, t1, y, PETSC_FALSE);
}

/* The batch's nodal values of the ghosted local array x: u[i][a][l], component i, tensor node a, lane l */
static inline __attribute__((always_inline)) void Gather(PetscInt n3, const PetscInt *off, const PetscScalar *x, PetscReal *u)
{
  for (PetscInt a = 0; a < n3; a++)
    for (PetscInt l = 0; l < W; l++) {
      const PetscInt o = off[a * W + l];

      for (PetscInt i = 0; i < 3; i++) u[(i * n3 + a) * W + l] = x[o + i];
    }
}

/* The point's J^-1 and det J of lane l: the cell's (affine) or the point's */
static inline const PetscReal *BatchGeometry(const struct _n_SolidTensor *t, PetscInt b, PetscInt k)
{
  return &t->geo[((size_t)b * (t->affine ? 1 : t->q3) + (t->affine ? 0 : k)) * 10 * W];
}

/* The kernels are compiled for every vector width the processor may have (the function's clones:
   the loader picks the widest the processor runs; docs/solid.md); -DSOLID_NO_CLONES compiles one
   version for the -march given (bench/kernels.py's comparisons) */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && !defined(SOLID_NO_CLONES)
#define SOLID_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SOLID_CLONES
#endif

/* The linear material's dP (materials.c) of SOLID_LANES points at once, lanes innermost */
static inline __attribute__((always_inline)) void LinearBatch(const SolidModuli *m, const PetscReal *st, const PetscReal dF[][SOLID_LANES], PetscReal dP[][SOLID_LANES])
{
  (void)st;
  for (PetscInt l = 0; l < SOLID_LANES; l++) {
    const PetscReal tr = m->lambda * (dF[0][l] + dF[4][l] + dF[8][l]);

    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) dP[3 * i + j][l] = m->mu * (dF[3 * i + j][l] + dF[3 * j + i][l]) + (i == j ? tr : 0.0);
  }
}

/* The neo-Hookean dP (materials.c) of SOLID_LANES points at once, the state F^-T, ln J (NeoHookeanPack()) lanes innermost */
static inline __attribute__((always_inline)) void NeoHookeanBatch(const SolidModuli *m, const PetscReal *st, const PetscReal dF[][SOLID_LANES], PetscReal dP[][SOLID_LANES])
{
  const PetscReal(*G)[SOLID_LANES] = (const PetscReal(*)[SOLID_LANES])st; /* G = F^-T, then ln J */

  for (PetscInt l = 0; l < SOLID_LANES; l++) {
    PetscReal tr = 0, A[9], c = m->mu - m->lambda * G[9][l];

    for (PetscInt i = 0; i < 9; i++) tr += G[i][l] * dF[i][l];
    /* A = F^-T dF^T, then dP = mu dF + c A F^-T + lambda tr F^-T */
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) A[3 * i + j] = G[3 * i][l] * dF[3 * j][l] + G[3 * i + 1][l] * dF[3 * j + 1][l] + G[3 * i + 2][l] * dF[3 * j + 2][l];
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) dP[3 * i + j][l] = m->mu * dF[3 * i + j][l] + c * (A[3 * i] * G[j][l] + A[3 * i + 1] * G[3 + j][l] + A[3 * i + 2] * G[6 + j][l]) + m->lambda * tr * G[3 * i + j][l];
  }
}

/* the materials' table (materials.c) names them by these */
SOLID_CLONES void SolidLinearStressDiffBatch(const SolidModuli *m, const PetscReal *st, const PetscReal dF[][SOLID_LANES], PetscReal dP[][SOLID_LANES])
{
  LinearBatch(m, st, dF, dP);
}

SOLID_CLONES void SolidNeoHookeanStressDiffBatch(const SolidModuli *m, const PetscReal *st, const PetscReal dF[][SOLID_LANES], PetscReal dP[][SOLID_LANES])
{
  NeoHookeanBatch(m, st, dF, dP);
}

/* dP of a batch (lanes innermost): the material's own batch kernel (those of this file inlined), or its dP lane by lane */
static inline __attribute__((always_inline)) void BatchStress(const Solid *s, const SolidModuli *m, const PetscReal *st, const PetscReal dF[9][W], PetscReal dP[9][W])
{
  const PetscInt ns = SolidTensorRegion(s)->mat->nstate;

  if (SolidTensorRegion(s)->mat->dstressbatch == SolidLinearStressDiffBatch) LinearBatch(m, st, dF, dP);
  else if (SolidTensorRegion(s)->mat->dstressbatch == SolidNeoHookeanStressDiffBatch) NeoHookeanBatch(m, st, dF, dP);
  else if (SolidTensorRegion(s)->mat->dstressbatch) {
    SolidTensorRegion(s)->mat->dstressbatch(m, st, dF, dP);
    return;
  }
  for (PetscInt l = 0; l < W; l++) {
    SolidPoint p;
    PetscReal  a[9], b[9], sl[32];

    for (PetscInt i = 0; i < ns; i++) sl[i] = st[i * W + l];
    if (ns && SolidTensorRegion(s)->mat->unpack) SolidTensorRegion(s)->mat->unpack(m, sl, &p);
    for (PetscInt i = 0; i < 9; i++) a[i] = dF[i][l];
    SolidTensorRegion(s)->mat->dstress(m, &p, a, b);
    for (PetscInt i = 0; i < 9; i++) dP[i][l] = b[i];
  }
}

/*
  y += (cK K + cM M) w for batch b (ya, x: ghosted local arrays); nl: the batch's real lanes
  (the others repeat lane 0 and are not added)
*/
static inline __attribute__((always_inline)) void ApplyBatch(PetscInt n1, PetscInt q1, const Solid *s, PetscInt b, PetscInt nl, PetscReal cK, PetscReal cMrho, const PetscScalar *x, PetscScalar *ya)
{
  const struct _n_SolidTensor *t  = s->tensor;
  const PetscInt               n3 = n1 * n1 * n1, q3 = q1 * q1 * q1, ns = SolidTensorRegion(s)->mat->nstate;
  const PetscInt              *off = &t->off[(size_t)b * n3 * W];
  const SolidModuli           *m   = SolidBatchModuli(s, b);
  PetscReal                    u[3 * 27 * W], uq[3 * 64 * W], g[9 * 64 * W], t1[48 * W], t2[48 * W], ye[27 * W];

  Gather(n3, off, x, u);
  for (PetscInt i = 0; i < 3; i++) Forward(n1, q1, t, &u[i * n3 * W], &uq[i * q3 * W], &g[3 * i * q3 * W], t1, t2);
  /* g[3 i + d] holds d u_i / d xi_d at the points */
  for (PetscInt k = 0; k < q3; k++) {
    const PetscReal *Ji = BatchGeometry(t, b, k), *det = Ji + 9 * W;
    PetscReal        dF[9][W], dP[9][W], V[W];

    for (PetscInt l = 0; l < W; l++) V[l] = t->affine ? t->w[k] * det[l] : det[l];
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++)
        for (PetscInt l = 0; l < W; l++) dF[3 * i + j][l] = g[((3 * i + 0) * q3 + k) * W + l] * Ji[(0 + j) * W + l] + g[((3 * i + 1) * q3 + k) * W + l] * Ji[(3 + j) * W + l] + g[((3 * i + 2) * q3 + k) * W + l] * Ji[(6 + j) * W + l];
    BatchStress(s, m, ns ? &t->st[((size_t)b * q3 + k) * ns * W] : NULL, (const PetscReal(*)[W])dF, dP);
    /* the flux cK V dP J^-T on the reference gradients, the mass cM rho V u on the values */
    for (PetscInt i = 0; i < 3; i++) {
      for (PetscInt d = 0; d < 3; d++)
        for (PetscInt l = 0; l < W; l++) g[((3 * i + d) * q3 + k) * W + l] = cK * V[l] * (dP[3 * i][l] * Ji[(3 * d) * W + l] + dP[3 * i + 1][l] * Ji[(3 * d + 1) * W + l] + dP[3 * i + 2][l] * Ji[(3 * d + 2) * W + l]);
      for (PetscInt l = 0; l < W; l++) uq[(i * q3 + k) * W + l] *= cMrho * V[l];
    }
  }
  for (PetscInt i = 0; i < 3; i++) {
    Backward(n1, q1, t, &uq[i * q3 * W], &g[3 * i * q3 * W], ye, t1, t2);
    for (PetscInt a = 0; a < n3; a++)
      for (PetscInt l = 0; l < nl; l++) ya[off[a * W + l] + i] += ye[a * W + l];
  }
}

/* F at the points of batch b of the positions x, and the material's state there (zero where the cell is inverted) */
static inline __attribute__((always_inline)) void LinearizeBatch(PetscInt n1, PetscInt q1, const Solid *s, PetscInt b, const PetscScalar *x)
{
  const struct _n_SolidTensor *t  = s->tensor;
  const PetscInt               n3 = n1 * n1 * n1, q3 = q1 * q1 * q1, ns = SolidTensorRegion(s)->mat->nstate;
  const PetscInt              *off = &t->off[(size_t)b * n3 * W];
  const SolidModuli           *m   = SolidBatchModuli(s, b);
  PetscReal                    u[3 * 27 * W], uq[3 * 64 * W], g[9 * 64 * W], t1[48 * W], t2[48 * W];

  Gather(n3, off, x, u);
  for (PetscInt i = 0; i < 3; i++) Forward(n1, q1, t, &u[i * n3 * W], &uq[i * q3 * W], &g[3 * i * q3 * W], t1, t2);
  for (PetscInt k = 0; k < q3; k++) {
    const PetscReal *Ji = BatchGeometry(t, b, k);
    PetscReal       *st = &t->st[((size_t)b * q3 + k) * ns * W];

    for (PetscInt l = 0; l < W; l++) {
      PetscReal  F[9], sl[32];
      SolidPoint p;

      for (PetscInt i = 0; i < 3; i++)
        for (PetscInt j = 0; j < 3; j++) F[3 * i + j] = g[((3 * i + 0) * q3 + k) * W + l] * Ji[(0 + j) * W + l] + g[((3 * i + 1) * q3 + k) * W + l] * Ji[(3 + j) * W + l] + g[((3 * i + 2) * q3 + k) * W + l] * Ji[(6 + j) * W + l];
      if (!SolidTensorRegion(s)->mat->setup(m, F, &p)) {
        for (PetscInt i = 0; i < ns; i++) st[i * W + l] = 0;
        continue;
      }
      SolidTensorRegion(s)->mat->pack(m, &p, sl);
      for (PetscInt i = 0; i < ns; i++) st[i * W + l] = sl[i];
    }
  }
}

#define SOLID_TENSOR_KERNELS(N1, Q1)                                                                                               \
  SOLID_CLONES static void ApplyAll_##N1##Q1(const Solid *s, PetscReal cK, PetscReal cMrho, const PetscScalar *x, PetscScalar *ya) \
  {                                                                                                                                \
    for (PetscInt b = 0; b < s->tensor->nb; b++) ApplyBatch(N1, Q1, s, b, PetscMin(W, s->ncells - b * W), cK, cMrho, x, ya);       \
  }                                                                                                                                \
  SOLID_CLONES static void LinearizeAll_##N1##Q1(const Solid *s, const PetscScalar *x)                                             \
  {                                                                                                                                \
    for (PetscInt b = 0; b < s->tensor->nb; b++) LinearizeBatch(N1, Q1, s, b, x);                                                  \
  }

SOLID_TENSOR_KERNELS(2, 2)
SOLID_TENSOR_KERNELS(3, 3)
SOLID_TENSOR_KERNELS(3, 4)

/* ------------------------------------------------------------------------------------------ */
/* Set-up                                                                                      */
/* ------------------------------------------------------------------------------------------ */

/* The 1-D Lagrange polynomial j of the n points x at xi, and its derivative */
static void Lagrange1D(PetscInt n, const PetscReal x[], PetscInt j, PetscReal xi, PetscReal *val, PetscReal *der)
{
  PetscReal v = 1, d = 0;

  for (PetscInt m = 0; m < n; m++) {
    if (m == j) continue;
    d = d * (xi - x[m]) / (x[j] - x[m]) + v / (x[j] - x[m]);
    v *= (xi - x[m]) / (x[j] - x[m]);
  }
  *val = v;
  *der = d;
}

/*
  The tensor data of the hexahedra: the 1-D basis of order s->order at q1 Gauss points per
  direction (those of SolidSetUpCells()), the tensor order of the layout's nodes (xi: their
  reference coordinates, checked against PETSc's element), the batches and their geometry from
  the reference positions. Cells are parallelepipeds (affine) when J at every point equals the
  first point's to 1e-13 of its size.
*/
PetscErrorCode SolidTensorSetUp(Solid *s, PetscInt q1, const PetscReal xi[][3])
{
  struct _n_SolidTensor *t;
  const PetscInt         n1 = s->order + 1, n3 = n1 * n1 * n1, q3 = q1 * q1 * q1;
  PetscReal              nodes[3], gx[4], gw[4];
  const PetscScalar     *X;
  PetscInt               local = 1, affine;

  PetscFunctionBegin;
  PetscCheck(q1 >= n1 && q1 <= 4 && n1 <= 3, PETSC_COMM_SELF, PETSC_ERR_SUP, "Sum factorization with %" PetscInt_FMT " nodes and %" PetscInt_FMT " points per direction", n1, q1);
  PetscCall(PetscNew(&t));
  t->n1 = n1;
  t->q1 = q1;
  t->n3 = n3;
  t->q3 = q3;
  for (PetscInt i = 0; i < n1; i++) nodes[i] = -1 + 2.0 * i / (n1 - 1);
  PetscCall(PetscDTGaussQuadrature(q1, -1, 1, gx, gw));
  for (PetscInt k = 0; k < q1; k++) {
    for (PetscInt i = 0; i < n1; i++) {
      PetscReal d;

      Lagrange1D(n1, nodes, i, gx[k], &t->B[k * n1 + i], &d);
    }
    for (PetscInt j = 0; j < q1; j++) {
      PetscReal v;

      Lagrange1D(q1, gx, j, gx[k], &v, &t->D[k * q1 + j]);
    }
  }
  for (PetscInt k = 0; k < q3; k++) t->w[k] = gw[k % q1] * gw[(k / q1) % q1] * gw[k / (q1 * q1)];
  /* the tensor order of the layout's nodes from their reference coordinates */
  for (PetscInt a = 0; a < n3; a++) t->lex[a] = -1;
  for (PetscInt a = 0; a < s->nen; a++) {
    PetscInt idx[3], lx;

    for (PetscInt d = 0; d < 3; d++) idx[d] = (PetscInt)PetscFloorReal((xi[a][d] + 1) * (n1 - 1) / 2 + 0.5);
    lx = idx[0] + n1 * (idx[1] + n1 * idx[2]);
    PetscCheck(lx >= 0 && lx < n3 && t->lex[lx] < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Node %" PetscInt_FMT " of the layout is not a node of the tensor grid", a);
    t->lex[lx] = a;
  }
  {
    /* the tensor basis is PETSc's element (SolidReferenceLayout(): the layout's node a is fe's perm[a]) */
    PetscTabulation T;
    PetscReal       pts[3 * 64];

    for (PetscInt k = 0; k < q3; k++) {
      pts[3 * k]     = gx[k % q1];
      pts[3 * k + 1] = gx[(k / q1) % q1];
      pts[3 * k + 2] = gx[k / (q1 * q1)];
    }
    PetscCall(PetscFECreateTabulation(s->fe, 1, q3, pts, 0, &T));
    for (PetscInt k = 0; k < q3; k++)
      for (PetscInt a = 0; a < n3; a++) {
        const PetscReal N = t->B[(k % q1) * n1 + a % n1] * t->B[((k / q1) % q1) * n1 + (a / n1) % n1] * t->B[(k / (q1 * q1)) * n1 + a / (n1 * n1)];

        PetscCheck(PetscAbsReal(N - T->T[0][k * n3 + s->perm[t->lex[a]]]) < 1e-12, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The tensor basis differs from PETSc's element at point %" PetscInt_FMT ", node %" PetscInt_FMT, k, a);
      }
    PetscCall(PetscTabulationDestroy(&T));
  }
  t->nb     = (s->ncells + W - 1) / W;
  s->tensor = t;
  PetscCall(PetscMalloc1((size_t)t->nb * n3 * W, &t->off));
  for (PetscInt b = 0; b < t->nb; b++)
    for (PetscInt l = 0; l < W; l++) {
      const PetscInt c = PetscMin(b * W + l, s->ncells - 1) == b * W + l ? b * W + l : b * W; /* padded lanes repeat lane 0 */

      for (PetscInt a = 0; a < n3; a++) t->off[((size_t)b * n3 + a) * W + l] = s->loff[s->nen * c + t->lex[a]];
    }
  /* J at the points of every cell: the forward steps on the reference positions */
  {
    PetscReal *geo;

    PetscCall(PetscMalloc1((size_t)t->nb * q3 * 10 * W, &geo));
    PetscCall(VecGetArrayRead(s->Xref, &X));
    for (PetscInt b = 0; b < t->nb; b++) {
      PetscReal u[3 * 27 * W], uq[3 * 64 * W], g[9 * 64 * W], t1[48 * W], t2[48 * W];

      Gather(n3, &t->off[(size_t)b * n3 * W], X, u);
      for (PetscInt i = 0; i < 3; i++) Forward(n1, q1, t, &u[i * n3 * W], &uq[i * q3 * W], &g[3 * i * q3 * W], t1, t2);
      for (PetscInt k = 0; k < q3; k++)
        for (PetscInt l = 0; l < W; l++) {
          PetscReal Jm[9], Ji[9], det, *G = &geo[((size_t)b * q3 + k) * 10 * W];

          for (PetscInt i = 0; i < 3; i++)
            for (PetscInt d = 0; d < 3; d++) Jm[3 * i + d] = g[((3 * i + d) * q3 + k) * W + l];
          det = SolidDet3(Jm);
          SolidInv3(Jm, det > 0 ? det : 1, Ji);
          for (PetscInt i = 0; i < 9; i++) G[i * W + l] = Ji[i];
          G[9 * W + l] = t->w[k] * det;
          if (k && local) {
            const PetscReal *G0   = &geo[(size_t)b * q3 * 10 * W];
            PetscReal        size = 0, diff = 0;

            for (PetscInt i = 0; i < 9; i++) {
              size = PetscMax(size, PetscAbsReal(G0[i * W + l]));
              diff = PetscMax(diff, PetscAbsReal(G0[i * W + l] - Ji[i]));
            }
            if (diff > 1e-13 * size || PetscAbsReal(G0[9 * W + l] / t->w[0] - det) > 1e-13 * PetscAbsReal(det)) local = 0;
          }
        }
    }
    PetscCall(VecRestoreArrayRead(s->Xref, &X));
    PetscCall(MPIU_Allreduce(&local, &affine, 1, MPIU_INT, MPI_MIN, PetscObjectComm((PetscObject)s->dm)));
    t->affine = affine ? PETSC_TRUE : PETSC_FALSE;
    if (t->affine) {
      /* one J^-1 and det J per cell */
      PetscCall(PetscMalloc1((size_t)t->nb * 10 * W, &t->geo));
      for (PetscInt b = 0; b < t->nb; b++)
        for (PetscInt i = 0; i < 10 * W; i++) t->geo[(size_t)b * 10 * W + i] = geo[(size_t)b * q3 * 10 * W + i];
      for (PetscInt b = 0; b < t->nb; b++)
        for (PetscInt l = 0; l < W; l++) t->geo[((size_t)b * 10 + 9) * W + l] /= t->w[0];
      PetscCall(PetscFree(geo));
    } else t->geo = geo;
  }
  PetscCall(PetscInfo(s->dm, "Sum factorization: %" PetscInt_FMT " nodes and %" PetscInt_FMT " points per direction, %" PetscInt_FMT " batches of %d cells, %s\n", n1, q1, t->nb, W, t->affine ? "parallelepipeds (J per cell)" : "J per point"));
  PetscFunctionReturn(0);
}

PetscErrorCode SolidTensorDestroy(Solid *s)
{
  PetscFunctionBegin;
  if (!s->tensor) PetscFunctionReturn(0);
  PetscCall(PetscFree(s->tensor->off));
  PetscCall(PetscFree(s->tensor->geo));
  PetscCall(PetscFree(s->tensor->st));
  PetscCall(PetscFree(s->tensor));
  PetscFunctionReturn(0);
}

/* The material's state at the points of every cell at the positions x (ghosted local array) */
PetscErrorCode SolidTensorLinearize(Solid *s, const PetscScalar *x)
{
  struct _n_SolidTensor *t  = s->tensor;
  const PetscInt         ns = SolidTensorRegion(s)->mat->nstate;

  PetscFunctionBegin;
  if (!ns) PetscFunctionReturn(0);
  PetscCheck(ns <= 32, PETSC_COMM_SELF, PETSC_ERR_SUP, "A material state of %" PetscInt_FMT " reals", ns);
  if (!t->st) PetscCall(PetscMalloc1((size_t)t->nb * t->q3 * ns * W, &t->st));
  if (t->n1 == 2) LinearizeAll_22(s, x);
  else if (t->q1 == 3) LinearizeAll_33(s, x);
  else LinearizeAll_34(s, x);
  PetscFunctionReturn(0);
}

/* ya += (cK K + cM M) w, w the ghosted local array x, at the last SolidTensorLinearize() */
PetscErrorCode SolidTensorApply(const Solid *s, PetscReal cK, PetscReal cM, const PetscScalar *x, PetscScalar *ya)
{
  const struct _n_SolidTensor *t = s->tensor;

  PetscFunctionBegin;
  if (t->n1 == 2) ApplyAll_22(s, cK, cM * SolidTensorRegion(s)->rho, x, ya);
  else if (t->q1 == 3) ApplyAll_33(s, cK, cM * SolidTensorRegion(s)->rho, x, ya);
  else ApplyAll_34(s, cK, cM * SolidTensorRegion(s)->rho, x, ya);
  PetscFunctionReturn(0);
}

/*
  SolidTensorUseRegions - Keeps the sum-factorized path only where all of this rank's cells lie in
  one material region: a batch of W cells shares one material's moduli (a rank whose cells are of
  several regions applies its tangent cell by cell). Local: the path is this rank's choice alone.
*/
PetscErrorCode SolidTensorUseRegions(Solid *s)
{
  PetscFunctionBegin;
  if (!s->tensor) PetscFunctionReturn(0);
  for (PetscInt c = 1; c < s->ncells; c++) {
    if (s->creg[c] != s->creg[0]) {
      PetscCall(SolidTensorDestroy(s));
      break;
    }
  }
  PetscFunctionReturn(0);
}
