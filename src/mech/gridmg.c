/*
  Geometric multigrid on the grid models (docs/solvers.md §4): the levels are the DMDA's own
  coarsenings (DMCoarsen(), which PCMG also calls to give each level's smoother its DM), the
  interpolation is linear in each direction between them, and the coarse operators are Galerkin
  products of the preconditioning matrix. DMDA's Q1 interpolation needs every n - 1 divisible by
  2 at each level; the interpolation here places the coarse points at their own coordinates, so
  that any grid size has a hierarchy, and equals Q1 where the grids are nested.
*/
#include "mechimpl.h"
#include <petscdmda.h>

/* The coarse points (and weights) of fine point i in one direction: fine M points, coarse Mc */
static PetscInt GridWeights(PetscInt i, PetscInt M, PetscInt Mc, PetscInt J[2], PetscReal w[2])
{
  /* i sits at coarse coordinate i (Mc - 1) / (M - 1), in exact integer arithmetic */
  PetscInt num = i * (Mc - 1), J0 = num / (M - 1), rem = num % (M - 1);

  J[0] = J0;
  w[0] = 1.0;
  if (!rem) return 1;
  J[1] = J0 + 1;
  w[1] = (PetscReal)rem / (PetscReal)(M - 1);
  w[0] = 1.0 - w[1];
  return 2;
}

/*
  The interpolation from coarse to fine, both DMDAs of the same dimension, dof and process grid,
  with no row for the dofs in fixed (fine-grid indices; NULL: none). It is one scalar
  interpolation of the grid points applied to each component (MATMAIJ, as DMDA's own
  DMCreateInterpolation() gives for dof > 1): PETSc's Galerkin product with it works on the scalar
  pattern (at 512^2 the cloth's symbolic product took 0.44 s instead of 1.24 s with the
  component-expanded AIJ matrix, the numeric 0.50 instead of 0.41; on 2 ranks 0.71 and 0.30 against
  1.24 and 1.09), and it keeps the block size for the point-block smoothers. A fixed dof whose
  grid point has free components needs rows of its own: then the matrix is expanded to AIJ.
*/
static PetscErrorCode GridInterpolation(DM coarse, DM fine, IS fixed, Mat *P)
{
  PetscInt               dim, dof, M[3] = {1, 1, 1}, Mc[3] = {1, 1, 1}, xs[3] = {0, 0, 0}, xm[3] = {1, 1, 1}, gs[3] = {0, 0, 0}, gm[3] = {1, 1, 1};
  PetscInt               i, j, k, a, b, c, d, nrow, ncol, rstart, row, nfix = 0, *points = NULL, npoints = 0;
  PetscInt               nJ[3], J[3][2];
  PetscReal              w[3][2];
  PetscBool              partial = PETSC_FALSE;
  ISLocalToGlobalMapping ltog;
  Mat                    S;
  MPI_Comm               comm = PetscObjectComm((PetscObject)fine);

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(fine, &dim, &M[0], &M[1], &M[2], NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetInfo(coarse, NULL, &Mc[0], &Mc[1], &Mc[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(fine, &xs[0], &xs[1], &xs[2], &xm[0], &xm[1], &xm[2]));
  PetscCall(DMDAGetGhostCorners(coarse, &gs[0], &gs[1], &gs[2], &gm[0], &gm[1], &gm[2]));
  PetscCall(DMDAGetCorners(coarse, NULL, NULL, NULL, &a, &b, &c));
  nrow = xm[0] * xm[1] * xm[2];
  ncol = a * b * c;
  PetscCall(DMGetLocalToGlobalMapping(coarse, &ltog));
  /* at most 2^dim coarse points per fine point; the coarse ones of other processes are few */
  PetscCall(MatCreateAIJ(comm, nrow, ncol, PETSC_DETERMINE, PETSC_DETERMINE, 1 << dim, NULL, 1 << dim, NULL, &S));
  PetscCall(MatGetOwnershipRange(S, &rstart, NULL));
  for (d = 0; d < 3; d++) nJ[d] = 1, J[d][0] = 0, w[d][0] = 1.0;
  row = rstart;
  for (k = xs[2]; k < xs[2] + xm[2]; k++) {
    if (dim > 2) nJ[2] = GridWeights(k, M[2], Mc[2], J[2], w[2]);
    for (j = xs[1]; j < xs[1] + xm[1]; j++) {
      if (dim > 1) nJ[1] = GridWeights(j, M[1], Mc[1], J[1], w[1]);
      for (i = xs[0]; i < xs[0] + xm[0]; i++, row++) {
        PetscInt  cols[8], n = 0;
        PetscReal vals[8];

        nJ[0] = GridWeights(i, M[0], Mc[0], J[0], w[0]);
        for (c = 0; c < nJ[2]; c++)
          for (b = 0; b < nJ[1]; b++)
            for (a = 0; a < nJ[0]; a++) {
              PetscInt p[3] = {J[0][a], J[1][b], J[2][c]};

              for (d = 0; d < dim; d++) PetscCheck(p[d] >= gs[d] && p[d] < gs[d] + gm[d], comm, PETSC_ERR_PLIB, "Grid multigrid: coarse point %" PetscInt_FMT " of direction %" PetscInt_FMT " is outside this process's ghosted coarse grid [%" PetscInt_FMT ", %" PetscInt_FMT ")", p[d], d, gs[d], gs[d] + gm[d]);
              cols[n]   = ((p[2] - gs[2]) * gm[1] + (p[1] - gs[1])) * gm[0] + (p[0] - gs[0]);
              vals[n++] = w[0][a] * w[1][b] * w[2][c];
            }
        PetscCall(ISLocalToGlobalMappingApplyBlock(ltog, n, cols, cols));
        PetscCall(MatSetValues(S, 1, &row, n, cols, vals, INSERT_VALUES));
      }
    }
  }
  PetscCall(MatAssemblyBegin(S, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(S, MAT_FINAL_ASSEMBLY));
  /* the grid points all of whose components are fixed (the fixed indices are sorted per point) */
  if (fixed) {
    const PetscInt *idx;

    PetscCall(ISGetLocalSize(fixed, &nfix));
    PetscCall(ISGetIndices(fixed, &idx));
    PetscCall(PetscMalloc1(nfix, &points));
    for (k = 0; k < nfix;) {
      PetscInt pt = idx[k] / dof, n = 0;

      while (k < nfix && idx[k] / dof == pt) k++, n++;
      if (n == dof) points[npoints++] = pt;
      else partial = PETSC_TRUE;
    }
    PetscCall(ISRestoreIndices(fixed, &idx));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &partial, 1, MPIU_BOOL, MPI_LOR, comm));
  }
  if (fixed && !partial) PetscCall(MatZeroRows(S, npoints, points, 0.0, NULL, NULL));
  PetscCall(PetscFree(points));
  PetscCall(MatCreateMAIJ(S, dof, P));
  PetscCall(MatDestroy(&S));
  if (partial) {
    Mat A;

    PetscCall(MatConvert(*P, MATAIJ, MAT_INITIAL_MATRIX, &A));
    PetscCall(MatDestroy(P));
    *P = A;
    PetscCall(MatSetBlockSizes(*P, dof, dof));
    PetscCall(MatZeroRowsIS(*P, fixed, 0.0, NULL, NULL));
  }
  PetscFunctionReturn(0);
}

/*
  A Galerkin product Ac = P^T A P kept for recomputation with A's new values: the local pieces,
  in the coarse points this process touches (cl, sorted global indices), of
    T1 = Pl^T Ad Pl     (A's diagonal block, Pl = Sl (x) I the local rows of P as MATMAIJ),
    T2 = Pl^T (Ao Pg)   (A's off-process columns, Pg the rows of P of those columns; only the
                         rows of Ao Pg on this process's boundary are nonzero, so T2 is added
                         row by row without being formed),
  whose sum over the processes is Ac (docs/solvers.md §4, "Coarse operators").
*/
/* work of the products of a point-block operator (GridBlockPtAPNumeric()) */
typedef struct _n_GridBlockWork GridBlockWork;

typedef struct {
  PetscInt       dof, ncl, *cl2g, *cols, *list;
  PetscScalar   *zeros, *vals, *acc; /* work: one row's indices, zeros, values and accumulator */
  PetscBool     *mark;
  Mat            Ad, Ao, Sl, Pl, Pg, T1;
  PetscReal      fill;
  PetscBool      block; /* A is MATMPIBAIJ: T1 from GridBlockPtAPNumeric() with Slt = Sl^T */
  Mat            Slt;
  PetscScalar   *bvals; /* one block row of T1, by rows */
  GridBlockWork *bw;
} GridGalerkinCtx;

static PetscErrorCode GridBlockWorkDestroy(GridBlockWork *);
static PetscErrorCode GridGetCSR(Mat, PetscBool, const PetscInt **, const PetscInt **);
static PetscErrorCode GridRestoreCSR(Mat, PetscBool, const PetscInt **, const PetscInt **);

static PetscErrorCode GridGalerkinDestroy(void *ptr)
{
  GridGalerkinCtx *gc = (GridGalerkinCtx *)ptr;

  PetscFunctionBegin;
  if (gc->bw) PetscCall(GridBlockWorkDestroy(gc->bw));
  PetscCall(PetscFree(gc->bw));
  PetscCall(PetscFree(gc->bvals));
  PetscCall(MatDestroy(&gc->Slt));
  PetscCall(PetscFree(gc->cl2g));
  PetscCall(PetscFree4(gc->cols, gc->list, gc->zeros, gc->vals));
  PetscCall(PetscFree2(gc->acc, gc->mark));
  PetscCall(MatDestroy(&gc->Sl));
  PetscCall(MatDestroy(&gc->Pl));
  PetscCall(MatDestroy(&gc->Pg));
  PetscCall(MatDestroy(&gc->T1));
  PetscCall(PetscFree(gc));
  PetscFunctionReturn(0);
}

/* Adds the local product T (rows and columns in the numbering cl, dof per point) into M */
static PetscErrorCode GridGalerkinAdd(GridGalerkinCtx *gc, Mat T, Mat M)
{
  PetscInt dof = gc->dof, nr, r;

  PetscFunctionBegin;
  if (!T) PetscFunctionReturn(0);
  PetscCall(MatGetSize(T, &nr, NULL));
  if (gc->block) {
    /* a block row at a time (MATSEQBAIJ stores each block by columns; the panel goes by rows) */
    const PetscInt *ti, *tj;
    PetscScalar    *ta;

    PetscCall(GridGetCSR(T, PETSC_TRUE, &ti, &tj));
    PetscCall(MatSeqBAIJGetArray(T, &ta));
    for (r = 0; r < nr / dof; r++) {
      PetscInt n = ti[r + 1] - ti[r], k, a, b;

      for (k = 0; k < n; k++) {
        const PetscScalar *blk = ta + (ti[r] + k) * dof * dof;

        gc->cols[k] = gc->cl2g[tj[ti[r] + k]];
        for (a = 0; a < dof; a++)
          for (b = 0; b < dof; b++) gc->bvals[a * n * dof + k * dof + b] = blk[b * dof + a];
      }
      if (n) PetscCall(MatSetValuesBlocked(M, 1, &gc->cl2g[r], n, gc->cols, gc->bvals, ADD_VALUES));
    }
    PetscCall(MatSeqBAIJRestoreArray(T, &ta));
    PetscCall(GridRestoreCSR(T, PETSC_TRUE, &ti, &tj));
    PetscFunctionReturn(0);
  }
  for (r = 0; r < nr; r++) {
    const PetscInt    *c;
    const PetscScalar *v;
    PetscInt           n, k, gr = gc->cl2g[r / dof] * dof + r % dof;

    PetscCall(MatGetRow(T, r, &n, &c, &v));
    for (k = 0; k < n; k++) gc->cols[k] = gc->cl2g[c[k] / dof] * dof + c[k] % dof;
    if (n) PetscCall(MatSetValues(M, 1, &gr, n, gc->cols, v, ADD_VALUES));
    PetscCall(MatRestoreRow(T, r, &n, &c, &v));
  }
  PetscFunctionReturn(0);
}

/* Adds the block pattern of T to the MATPREALLOCATOR M (block size dof): one key per block */
static PetscErrorCode GridGalerkinPattern(GridGalerkinCtx *gc, Mat T, Mat M)
{
  PetscInt dof = gc->dof, nr, blk, a, k;

  PetscFunctionBegin;
  if (!T) PetscFunctionReturn(0);
  PetscCall(MatGetSize(T, &nr, NULL));
  if (gc->block) {
    const PetscInt *ti, *tj;

    PetscCall(GridGetCSR(T, PETSC_TRUE, &ti, &tj));
    for (blk = 0; blk < nr / dof; blk++) {
      PetscInt gr = gc->cl2g[blk] * dof, nb = ti[blk + 1] - ti[blk];

      for (k = 0; k < nb; k++) gc->cols[k] = gc->cl2g[tj[ti[blk] + k]] * dof;
      if (nb) PetscCall(MatSetValues(M, 1, &gr, nb, gc->cols, gc->zeros, INSERT_VALUES));
    }
    PetscCall(GridRestoreCSR(T, PETSC_TRUE, &ti, &tj));
    PetscFunctionReturn(0);
  }
  for (blk = 0; blk < nr / dof; blk++) {
    PetscInt nb = 0, gr = gc->cl2g[blk] * dof;

    for (a = 0; a < dof; a++) {
      const PetscInt *c;
      PetscInt        n;

      PetscCall(MatGetRow(T, blk * dof + a, &n, &c, NULL));
      for (k = 0; k < n; k++)
        if (!nb || gc->cols[nb - 1] != c[k] / dof) gc->cols[nb++] = c[k] / dof;
      PetscCall(MatRestoreRow(T, blk * dof + a, &n, &c, NULL));
    }
    if (!nb) continue;
    PetscCall(PetscSortRemoveDupsInt(&nb, gc->cols));
    for (k = 0; k < nb; k++) gc->cols[k] = gc->cl2g[gc->cols[k]] * dof;
    PetscCall(MatSetValues(M, 1, &gr, nb, gc->cols, gc->zeros, INSERT_VALUES));
  }
  PetscFunctionReturn(0);
}

/*
  T2 into M (with pattern, only its pattern, for a MATPREALLOCATOR): for each local fine row r with
  off-process couplings the row (Ao Pg)_r, gathered in a sparse accumulator, goes with the
  interpolation weights of r's grid point into the rows of its coarse points.
*/
static PetscErrorCode GridGalerkinBoundary(GridGalerkinCtx *gc, Mat M, PetscBool pattern)
{
  PetscInt dof = gc->dof, m, r;

  PetscFunctionBegin;
  if (!gc->Pg) PetscFunctionReturn(0);
  PetscCall(MatGetSize(gc->Ao, &m, NULL));
  for (r = 0; r < m; r++) {
    const PetscInt    *c, *pc;
    const PetscScalar *v, *pv;
    PetscInt           n, np, k, t, nt = 0;

    PetscCall(MatGetRow(gc->Ao, r, &n, &c, &v));
    for (k = 0; k < n; k++) {
      PetscCall(MatGetRow(gc->Pg, c[k], &np, &pc, &pv));
      for (t = 0; t < np; t++) {
        if (!gc->mark[pc[t]]) {
          gc->mark[pc[t]] = PETSC_TRUE;
          gc->acc[pc[t]]  = 0;
          gc->list[nt++]  = pc[t];
        }
        gc->acc[pc[t]] += v[k] * pv[t];
      }
      PetscCall(MatRestoreRow(gc->Pg, c[k], &np, &pc, &pv));
    }
    PetscCall(MatRestoreRow(gc->Ao, r, &n, &c, &v));
    if (!nt) continue;
    PetscCall(PetscSortInt(nt, gc->list));
    for (t = 0; t < nt; t++) {
      gc->cols[t]           = gc->cl2g[gc->list[t] / dof] * dof + gc->list[t] % dof;
      gc->mark[gc->list[t]] = PETSC_FALSE;
    }
    PetscCall(MatGetRow(gc->Sl, r / dof, &np, &pc, &pv));
    for (k = 0; k < np; k++) {
      PetscInt gr = gc->cl2g[pc[k]] * dof + r % dof;

      for (t = 0; t < nt && !pattern; t++) gc->vals[t] = pv[k] * gc->acc[gc->list[t]];
      PetscCall(MatSetValues(M, 1, &gr, nt, gc->cols, pattern ? gc->zeros : gc->vals, pattern ? INSERT_VALUES : ADD_VALUES));
    }
    PetscCall(MatRestoreRow(gc->Sl, r / dof, &np, &pc, &pv));
  }
  PetscFunctionReturn(0);
}

/* Ac = the sum of the pieces over the processes */
static PetscErrorCode GridGalerkinSum(GridGalerkinCtx *gc, Mat Ac)
{
  PetscFunctionBegin;
  PetscCall(MatZeroEntries(Ac));
  PetscCall(GridGalerkinAdd(gc, gc->T1, Ac));
  PetscCall(GridGalerkinBoundary(gc, Ac, PETSC_FALSE));
  PetscCall(MatAssemblyBegin(Ac, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Ac, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* Global coarse point g in the sorted local numbering cl */
static PetscErrorCode GridGalerkinLocal(const GridGalerkinCtx *gc, PetscInt g, PetscInt *l)
{
  PetscFunctionBegin;
  PetscCall(PetscFindInt(g, gc->ncl, gc->cl2g, l));
  PetscCheck(*l >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Grid Galerkin product: coarse point %" PetscInt_FMT " is not among this process's", g);
  PetscFunctionReturn(0);
}

/*
  Galerkin products of a point-block operator (MATSEQBAIJ, block size dof) with a per-point
  interpolation P = S (x) I_dof (MATMAIJ): the blocks of P^T A P are
  Ac_IJ = sum_ij S_iI S_jJ A_ij, the scalar product S^T A S on A's block graph with every weight
  applied to a whole block. PETSc has no product for MATBAIJ; this one forms a coarse block row at
  a time from the fine rows in S's column I (S^T, St), accumulating dof x dof blocks, and writes it
  straight into the values of Ac, whose pattern the symbolic phase found the same way.
*/
struct _n_GridBlockWork {
  PetscInt     nc;   /* coarse points */
  PetscInt    *list; /* one coarse row's columns */
  PetscBool   *mark;
  PetscScalar *acc; /* one coarse row's blocks, by coarse point */
};

static PetscErrorCode GridBlockWorkCreate(PetscInt nc, PetscInt dof, GridBlockWork *w)
{
  PetscFunctionBegin;
  w->nc = nc;
  PetscCall(PetscMalloc1(nc, &w->list));
  PetscCall(PetscCalloc1(nc, &w->mark));
  PetscCall(PetscMalloc1(nc * dof * dof, &w->acc));
  PetscFunctionReturn(0);
}

static PetscErrorCode GridBlockWorkDestroy(GridBlockWork *w)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(w->list));
  PetscCall(PetscFree(w->mark));
  PetscCall(PetscFree(w->acc));
  PetscFunctionReturn(0);
}

/*
  The block pattern (values NULL) or the values of row cr of S^T A S into w: the coarse points of
  the row in w->list (nt of them, unsorted), with their blocks in w->acc when values are given.
*/
static inline void GridBlockRow(PetscInt cr, PetscInt bs2, const PetscInt *ti, const PetscInt *tj, const PetscScalar *ta, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, const PetscInt *si, const PetscInt *sj, const PetscScalar *sa, GridBlockWork *w, PetscInt *nt)
{
  PetscInt p, q, r, e, n = 0;

  for (p = ti[cr]; p < ti[cr + 1]; p++) {
    const PetscInt i = tj[p];

    for (q = ai[i]; q < ai[i + 1]; q++) {
      const PetscInt j = aj[q];

      for (r = si[j]; r < si[j + 1]; r++) {
        const PetscInt cc = sj[r];

        if (!w->mark[cc]) {
          w->mark[cc]  = PETSC_TRUE;
          w->list[n++] = cc;
          if (aa)
            for (e = 0; e < bs2; e++) w->acc[cc * bs2 + e] = 0;
        }
        if (aa) {
          const PetscScalar  c = ta[p] * sa[r];
          const PetscScalar *b = aa + q * bs2;
          PetscScalar       *y = w->acc + cc * bs2;

          for (e = 0; e < bs2; e++) y[e] += c * b[e];
        }
      }
    }
  }
  *nt = n;
}

/* The CSR arrays of a sequential matrix: blocks of a MATSEQBAIJ (block), scalar entries of a MATSEQAIJ */
static PetscErrorCode GridGetCSR(Mat A, PetscBool block, const PetscInt **ia, const PetscInt **ja)
{
  PetscInt  n;
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, block, &n, ia, ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Grid Galerkin product: no row structure for %s", ((PetscObject)A)->type_name);
  PetscFunctionReturn(0);
}

static PetscErrorCode GridRestoreCSR(Mat A, PetscBool block, const PetscInt **ia, const PetscInt **ja)
{
  PetscInt  n;
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, block, &n, ia, ja, &done));
  PetscFunctionReturn(0);
}

/* C = S^T A S, a new MATSEQBAIJ of A's block size, of the exact pattern; St = S^T */
static PetscErrorCode GridBlockPtAPSymbolic(Mat A, Mat S, Mat St, GridBlockWork *w, Mat *C)
{
  const PetscInt *ai, *aj, *si, *sj, *ti, *tj;
  PetscInt       *ci, *cj, nc = w->nc, cr, k, nt, cap, bs;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(GridGetCSR(A, PETSC_TRUE, &ai, &aj));
  PetscCall(GridGetCSR(S, PETSC_FALSE, &si, &sj));
  PetscCall(GridGetCSR(St, PETSC_FALSE, &ti, &tj));
  cap = 16 * nc + 16;
  PetscCall(PetscMalloc1(nc + 1, &ci));
  PetscCall(PetscMalloc1(cap, &cj));
  ci[0] = 0;
  for (cr = 0; cr < nc; cr++) {
    GridBlockRow(cr, 0, ti, tj, NULL, ai, aj, NULL, si, sj, NULL, w, &nt);
    if (ci[cr] + nt > cap) {
      PetscInt *t;

      cap = PetscMax(2 * cap, ci[cr] + nt);
      PetscCall(PetscMalloc1(cap, &t));
      PetscCall(PetscArraycpy(t, cj, ci[cr]));
      PetscCall(PetscFree(cj));
      cj = t;
    }
    for (k = 0; k < nt; k++) {
      cj[ci[cr] + k]      = w->list[k];
      w->mark[w->list[k]] = PETSC_FALSE;
    }
    PetscCall(PetscSortInt(nt, cj + ci[cr]));
    ci[cr + 1] = ci[cr] + nt;
  }
  PetscCall(GridRestoreCSR(St, PETSC_FALSE, &ti, &tj));
  PetscCall(GridRestoreCSR(S, PETSC_FALSE, &si, &sj));
  PetscCall(GridRestoreCSR(A, PETSC_TRUE, &ai, &aj));
  PetscCall(MatCreate(PETSC_COMM_SELF, C));
  PetscCall(MatSetSizes(*C, nc * bs, nc * bs, nc * bs, nc * bs));
  PetscCall(MatSetType(*C, MATSEQBAIJ));
  PetscCall(MatSeqBAIJSetPreallocationCSR(*C, bs, ci, cj, NULL));
  PetscCall(PetscFree(ci));
  PetscCall(PetscFree(cj));
  PetscFunctionReturn(0);
}

/* The values of C = S^T A S, C of GridBlockPtAPSymbolic() for an A of the same block pattern (ok: it was) */
static PetscErrorCode GridBlockPtAPNumeric(Mat A, Mat S, Mat St, GridBlockWork *w, Mat C, PetscBool *ok)
{
  const PetscInt    *ai, *aj, *si, *sj, *ti, *tj, *ci, *cj;
  const PetscScalar *sa, *ta;
  PetscScalar       *aa, *ca;
  PetscInt           cr, p, e, nt, found, bs, bs2;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  bs2 = bs * bs;
  PetscCall(GridGetCSR(A, PETSC_TRUE, &ai, &aj));
  PetscCall(GridGetCSR(S, PETSC_FALSE, &si, &sj));
  PetscCall(GridGetCSR(St, PETSC_FALSE, &ti, &tj));
  PetscCall(GridGetCSR(C, PETSC_TRUE, &ci, &cj));
  PetscCall(MatSeqBAIJGetArray(A, &aa));
  PetscCall(MatSeqAIJGetArrayRead(S, &sa));
  PetscCall(MatSeqAIJGetArrayRead(St, &ta));
  PetscCall(MatSeqBAIJGetArray(C, &ca));
  for (cr = 0; cr < w->nc; cr++) {
    GridBlockRow(cr, bs2, ti, tj, ta, ai, aj, aa, si, sj, sa, w, &nt);
    for (found = 0, p = ci[cr]; p < ci[cr + 1]; p++) {
      const PetscInt cc = cj[p];

      if (w->mark[cc]) {
        for (e = 0; e < bs2; e++) ca[p * bs2 + e] = w->acc[cc * bs2 + e];
        w->mark[cc] = PETSC_FALSE;
        found++;
      } else
        for (e = 0; e < bs2; e++) ca[p * bs2 + e] = 0;
    }
    /* a block outside C's pattern: A's pattern is not the one C was made for */
    if (found != nt) break;
  }
  PetscCall(MatSeqBAIJRestoreArray(C, &ca));
  PetscCall(MatSeqAIJRestoreArrayRead(St, &ta));
  PetscCall(MatSeqAIJRestoreArrayRead(S, &sa));
  PetscCall(MatSeqBAIJRestoreArray(A, &aa));
  PetscCall(GridRestoreCSR(C, PETSC_TRUE, &ci, &cj));
  PetscCall(GridRestoreCSR(St, PETSC_FALSE, &ti, &tj));
  PetscCall(GridRestoreCSR(S, PETSC_FALSE, &si, &sj));
  PetscCall(GridRestoreCSR(A, PETSC_TRUE, &ai, &aj));
  *ok = cr == w->nc ? PETSC_TRUE : PETSC_FALSE;
  if (!*ok)
    for (p = 0; p < w->nc; p++) w->mark[p] = PETSC_FALSE;
  PetscCall(PetscObjectStateIncrease((PetscObject)C));
  PetscFunctionReturn(0);
}

/* Whether every block of S^T A S lies in the pattern of C (nothing is written) */
static PetscErrorCode GridBlockPtAPCheck(Mat A, Mat S, Mat St, GridBlockWork *w, Mat C, PetscBool *ok)
{
  const PetscInt *ai, *aj, *si, *sj, *ti, *tj, *ci, *cj;
  PetscInt        cr, p, k, nt, found;

  PetscFunctionBegin;
  PetscCall(GridGetCSR(A, PETSC_TRUE, &ai, &aj));
  PetscCall(GridGetCSR(S, PETSC_FALSE, &si, &sj));
  PetscCall(GridGetCSR(St, PETSC_FALSE, &ti, &tj));
  PetscCall(GridGetCSR(C, PETSC_TRUE, &ci, &cj));
  *ok = PETSC_TRUE;
  for (cr = 0; cr < w->nc && *ok; cr++) {
    GridBlockRow(cr, 0, ti, tj, NULL, ai, aj, NULL, si, sj, NULL, w, &nt);
    for (found = 0, p = ci[cr]; p < ci[cr + 1]; p++) found += w->mark[cj[p]] ? 1 : 0;
    for (k = 0; k < nt; k++) w->mark[w->list[k]] = PETSC_FALSE;
    if (found != nt) *ok = PETSC_FALSE;
  }
  PetscCall(GridRestoreCSR(C, PETSC_TRUE, &ci, &cj));
  PetscCall(GridRestoreCSR(St, PETSC_FALSE, &ti, &tj));
  PetscCall(GridRestoreCSR(S, PETSC_FALSE, &si, &sj));
  PetscCall(GridRestoreCSR(A, PETSC_TRUE, &ai, &aj));
  PetscFunctionReturn(0);
}

/* T1 = Pl^T Ad Pl, the product of this process's rows (first: a new matrix; ok: A kept its pattern) */
static PetscErrorCode GridGalerkinLocalProduct(GridGalerkinCtx *gc, PetscBool first, PetscBool *ok)
{
  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  if (gc->block) {
    if (first) PetscCall(GridBlockPtAPSymbolic(gc->Ad, gc->Sl, gc->Slt, gc->bw, &gc->T1));
    PetscCall(GridBlockPtAPNumeric(gc->Ad, gc->Sl, gc->Slt, gc->bw, gc->T1, ok));
  } else PetscCall(MatPtAP(gc->Ad, gc->Pl, first ? MAT_INITIAL_MATRIX : MAT_REUSE_MATRIX, gc->fill, &gc->T1));
  PetscFunctionReturn(0);
}

/* Pl: this process's rows of the interpolation (S's diagonal and off-diagonal parts Sd, So, the
   global columns gS of So), its columns in cl */
static PetscErrorCode GridGalerkinLocalInterpolation(GridGalerkinCtx *gc, Mat Sd, Mat So, const PetscInt gS[], PetscInt nfl, PetscInt cstart)
{
  Mat       Sl;
  PetscInt *nnz, r, k;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nfl, &nnz));
  for (r = 0; r < nfl; r++) {
    PetscInt n;

    /* (MatRestoreRow() zeroes the count) */
    PetscCall(MatGetRow(Sd, r, &n, NULL, NULL));
    nnz[r] = n;
    PetscCall(MatRestoreRow(Sd, r, &n, NULL, NULL));
    PetscCall(MatGetRow(So, r, &n, NULL, NULL));
    nnz[r] += n;
    PetscCall(MatRestoreRow(So, r, &n, NULL, NULL));
  }
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, nfl, gc->ncl, 0, nnz, &Sl));
  PetscCall(PetscFree(nnz));
  for (r = 0; r < nfl; r++) {
    const PetscInt    *c;
    const PetscScalar *v;
    PetscInt           n, cl;

    PetscCall(MatGetRow(Sd, r, &n, &c, &v));
    for (k = 0; k < n; k++) {
      PetscCall(GridGalerkinLocal(gc, cstart + c[k], &cl));
      PetscCall(MatSetValue(Sl, r, cl, v[k], INSERT_VALUES));
    }
    PetscCall(MatRestoreRow(Sd, r, &n, &c, &v));
    PetscCall(MatGetRow(So, r, &n, &c, &v));
    for (k = 0; k < n; k++) {
      PetscCall(GridGalerkinLocal(gc, gS[c[k]], &cl));
      PetscCall(MatSetValue(Sl, r, cl, v[k], INSERT_VALUES));
    }
    PetscCall(MatRestoreRow(So, r, &n, &c, &v));
  }
  PetscCall(MatAssemblyBegin(Sl, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Sl, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateMAIJ(Sl, gc->dof, &gc->Pl));
  gc->Sl = Sl;
  PetscFunctionReturn(0);
}

/* Pg: for each off-process column of A (point p, component c; gA their global indices) the row
   of S of p (Sg: the rows of the points pts), per component */
static PetscErrorCode GridGalerkinGhostInterpolation(GridGalerkinCtx *gc, Mat Sg, PetscInt nAo, const PetscInt gA[], PetscInt npts, const PetscInt pts[])
{
  PetscInt k, dof = gc->dof;

  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, nAo, dof * gc->ncl, 1 << 3, NULL, &gc->Pg));
  for (k = 0; k < nAo; k++) {
    const PetscInt    *c;
    const PetscScalar *v;
    PetscInt           n, i, cl, row;

    PetscCall(PetscFindInt(gA[k] / dof, npts, pts, &row));
    PetscCall(MatGetRow(Sg, row, &n, &c, &v));
    for (i = 0; i < n; i++) {
      PetscCall(GridGalerkinLocal(gc, c[i], &cl));
      PetscCall(MatSetValue(gc->Pg, k, cl * dof + gA[k] % dof, v[i], INSERT_VALUES));
    }
    PetscCall(MatRestoreRow(Sg, row, &n, &c, &v));
  }
  PetscCall(MatAssemblyBegin(gc->Pg, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(gc->Pg, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* The pieces of the product of a parallel A (MATMPIAIJ or MATMPIBAIJ) with a parallel MATMAIJ P, and Ac */
static PetscErrorCode GridGalerkinSetUp(Mat A, Mat P, PetscReal fill, Mat *Ac)
{
  MPI_Comm         comm = PetscObjectComm((PetscObject)A);
  GridGalerkinCtx *gc;
  Mat              S, Sd, So, Sg = NULL, *Sgs, pre;
  const PetscInt  *gS, *gAb;
  PetscInt        *gA;
  PetscInt         Mp, Ms, Nc, nfl, cstart, cend, nSo, nAo, npts = 0, *pts, k, mc, dof;
  PetscContainer   container;
  PetscBool        ok;

  PetscFunctionBegin;
  PetscCall(PetscNew(&gc));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIBAIJ, &gc->block));
  gc->fill = fill;
  PetscCall(MatMAIJGetAIJ(P, &S));
  PetscCall(MatGetSize(P, &Mp, NULL));
  PetscCall(MatGetSize(S, &Ms, &Nc));
  gc->dof = dof = Mp / Ms;
  PetscCall(MatGetLocalSize(S, &nfl, NULL));
  PetscCall(MatGetOwnershipRangeColumn(S, &cstart, &cend));
  PetscCall(MatMPIAIJGetSeqAIJ(S, &Sd, &So, &gS));
  PetscCall(MatGetSize(So, NULL, &nSo));
  /* gA: the global index of each (scalar) column of Ao */
  if (gc->block) PetscCall(MatMPIBAIJGetSeqBAIJ(A, &gc->Ad, &gc->Ao, &gAb));
  else PetscCall(MatMPIAIJGetSeqAIJ(A, &gc->Ad, &gc->Ao, &gAb));
  PetscCall(MatGetSize(gc->Ao, NULL, &nAo));
  PetscCall(PetscMalloc1(nAo, &gA));
  for (k = 0; k < nAo; k++) gA[k] = gc->block ? gAb[k / dof] * dof + k % dof : gAb[k];

  /* the rows of S of the fine points of A's off-process columns (collective) */
  PetscCall(PetscMalloc1(nAo, &pts));
  for (k = 0; k < nAo; k++)
    if (!npts || pts[npts - 1] != gA[k] / dof) pts[npts++] = gA[k] / dof;
  {
    IS isr, isc;

    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, npts, pts, PETSC_USE_POINTER, &isr));
    PetscCall(ISCreateStride(PETSC_COMM_SELF, Nc, 0, 1, &isc));
    PetscCall(MatCreateSubMatrices(S, 1, &isr, &isc, MAT_INITIAL_MATRIX, &Sgs));
    Sg = Sgs[0];
    PetscCall(PetscObjectReference((PetscObject)Sg));
    PetscCall(MatDestroySubMatrices(1, &Sgs));
    PetscCall(ISDestroy(&isr));
    PetscCall(ISDestroy(&isc));
  }

  /* cl: the coarse points of this process, of its rows of S and of those rows */
  {
    const PetscInt *ia, *ja;
    PetscInt        nr, ns;
    PetscBool       done;

    PetscCall(MatGetRowIJ(Sg, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Grid Galerkin product: no row structure");
    ns = ia[nr];
    PetscCall(PetscMalloc1((cend - cstart) + nSo + ns, &gc->cl2g));
    for (k = cstart; k < cend; k++) gc->cl2g[gc->ncl++] = k;
    for (k = 0; k < nSo; k++) gc->cl2g[gc->ncl++] = gS[k];
    for (k = 0; k < ns; k++) gc->cl2g[gc->ncl++] = ja[k];
    PetscCall(MatRestoreRowIJ(Sg, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
    PetscCall(PetscSortRemoveDupsInt(&gc->ncl, gc->cl2g));
  }

  PetscCall(GridGalerkinLocalInterpolation(gc, Sd, So, gS, nfl, cstart));

  if (nAo) PetscCall(GridGalerkinGhostInterpolation(gc, Sg, nAo, gA, npts, pts));
  PetscCall(PetscFree(pts));
  PetscCall(PetscFree(gA));
  PetscCall(MatDestroy(&Sg));
  PetscCall(PetscMalloc4(dof * gc->ncl, &gc->cols, dof * gc->ncl, &gc->list, dof * gc->ncl, &gc->zeros, dof * gc->ncl, &gc->vals));
  PetscCall(PetscArrayzero(gc->zeros, dof * gc->ncl));
  PetscCall(PetscCalloc2(dof * gc->ncl, &gc->acc, dof * gc->ncl, &gc->mark));

  /* the pieces, and Ac preallocated with the union of their patterns over the processes */
  if (gc->block) {
    PetscCall(PetscNew(&gc->bw));
    PetscCall(GridBlockWorkCreate(gc->ncl, dof, gc->bw));
    PetscCall(PetscMalloc1(gc->ncl * dof * dof, &gc->bvals));
    PetscCall(MatTranspose(gc->Sl, MAT_INITIAL_MATRIX, &gc->Slt));
  }
  PetscCall(GridGalerkinLocalProduct(gc, PETSC_TRUE, &ok));
  PetscCall(MatGetLocalSize(P, NULL, &mc));
  PetscCall(MatCreate(comm, &pre));
  PetscCall(MatSetSizes(pre, mc, mc, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSizes(pre, dof, dof));
  PetscCall(MatSetType(pre, MATPREALLOCATOR));
  PetscCall(MatSetUp(pre));
  PetscCall(GridGalerkinPattern(gc, gc->T1, pre));
  PetscCall(GridGalerkinBoundary(gc, pre, PETSC_TRUE));
  PetscCall(MatAssemblyBegin(pre, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(pre, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreate(comm, Ac));
  PetscCall(MatSetSizes(*Ac, mc, mc, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSizes(*Ac, dof, dof));
  PetscCall(MatSetType(*Ac, gc->block ? MATMPIBAIJ : MATMPIAIJ));
  /* the first additions make the pattern (filling it with zeros first costs more, in blocks) */
  PetscCall(MatPreallocatorPreallocate(pre, PETSC_FALSE, *Ac));
  PetscCall(MatDestroy(&pre));
  PetscCall(GridGalerkinSum(gc, *Ac));

  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &container));
  PetscCall(PetscContainerSetPointer(container, gc));
  PetscCall(PetscContainerSetUserDestroy(container, GridGalerkinDestroy));
  PetscCall(PetscObjectCompose((PetscObject)*Ac, "MechGridGalerkin", (PetscObject)container));
  PetscCall(PetscContainerDestroy(&container));
  PetscFunctionReturn(0);
}

/* The sequential product of a MATSEQBAIJ operator with a MATSEQMAIJ interpolation of its block size */
typedef struct {
  Mat              S, St;
  GridBlockWork    w;
  PetscObjectId    id; /* the operator whose pattern Ac was made for, and its nonzero state */
  PetscObjectState nzstate;
} GridBlockGalerkinCtx;

static PetscErrorCode GridBlockGalerkinDestroy(void *ptr)
{
  GridBlockGalerkinCtx *bc = (GridBlockGalerkinCtx *)ptr;

  PetscFunctionBegin;
  PetscCall(GridBlockWorkDestroy(&bc->w));
  PetscCall(MatDestroy(&bc->S));
  PetscCall(MatDestroy(&bc->St));
  PetscCall(PetscFree(bc));
  PetscFunctionReturn(0);
}

static PetscErrorCode GridBlockGalerkin(Mat A, Mat P, MatReuse reuse, Mat *Ac)
{
  GridBlockGalerkinCtx *bc;
  PetscContainer        container = NULL;
  PetscBool             ok        = PETSC_TRUE;
  PetscObjectId         id;
  PetscObjectState      nzstate;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)A, &id));
  PetscCall(MatGetNonzeroState(A, &nzstate));
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(PetscObjectQuery((PetscObject)*Ac, "MechGridGalerkinBlock", (PetscObject *)&container));
    PetscCheck(container, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MechGridGalerkin(): MAT_REUSE_MATRIX with a coarse operator that is not the product of an earlier call");
    PetscCall(PetscContainerGetPointer(container, (void **)&bc));
    /* another operator, or a new pattern: checked before Ac is touched */
    if (id != bc->id || nzstate != bc->nzstate) PetscCall(GridBlockPtAPCheck(A, bc->S, bc->St, &bc->w, *Ac, &ok));
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MechGridGalerkin(): MAT_REUSE_MATRIX with an operator that has blocks outside the pattern of the first product's");
  }
  PetscCall(PetscLogEventBegin(MECH_Galerkin, A, P, 0, 0));
  if (reuse == MAT_INITIAL_MATRIX) {
    PetscInt bs, nc;

    PetscCall(PetscNew(&bc));
    PetscCall(MatMAIJGetAIJ(P, &bc->S));
    PetscCall(PetscObjectReference((PetscObject)bc->S));
    PetscCall(MatTranspose(bc->S, MAT_INITIAL_MATRIX, &bc->St));
    PetscCall(MatGetSize(bc->S, NULL, &nc));
    PetscCall(MatGetBlockSize(A, &bs));
    PetscCall(GridBlockWorkCreate(nc, bs, &bc->w));
    PetscCall(GridBlockPtAPSymbolic(A, bc->S, bc->St, &bc->w, Ac));
    bc->id      = id;
    bc->nzstate = nzstate;
    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &container));
    PetscCall(PetscContainerSetPointer(container, bc));
    PetscCall(PetscContainerSetUserDestroy(container, GridBlockGalerkinDestroy));
    PetscCall(PetscObjectCompose((PetscObject)*Ac, "MechGridGalerkinBlock", (PetscObject)container));
    PetscCall(PetscContainerDestroy(&container));
  }
  PetscCall(GridBlockPtAPNumeric(A, bc->S, bc->St, &bc->w, *Ac, &ok));
  PetscCall(PetscLogEventEnd(MECH_Galerkin, A, P, 0, 0));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MechGridGalerkin(): MAT_REUSE_MATRIX with an operator that has blocks outside the pattern of the first product's");
  PetscFunctionReturn(0);
}

/*@
  MechGridGalerkin - The Galerkin coarse operator Ac = P^T A P of a grid hierarchy's level.

  Collective

  Input Parameters:
+ A     - the fine operator (`MATAIJ` or `MATBAIJ`)
. P     - the interpolation of `MechSystemSetUpPCMG()` (`PCMGGetInterpolation()`)
. reuse - `MAT_INITIAL_MATRIX`, or `MAT_REUSE_MATRIX` with the Ac of an earlier call for this
          A (the same nonzero pattern, new values) and P
- fill  - expected fill, nnz(Ac) / nnz(A) (`PETSC_DEFAULT`)

  Output Parameter:
. Ac - the coarse operator, with the block size of P, of A's type (`MATAIJ` or `MATBAIJ`)

  Level: developer

  Notes:
  On one process a `MATAIJ` A gives `MatPtAP()`. On more, PETSc's product would expand a
  `MATMAIJ` P to `MATAIJ` and keep intermediates of several times A's size on every process; here
  each process forms the products of its own rows with A's diagonal block plus a thin one with the
  off-process columns, and adds them into Ac (docs/solvers.md §4, "Coarse operators").

  PETSc has no product for a point-block (`MATBAIJ`) A; with a `MATMAIJ` P of A's block size
  tsmech forms it block by block (Ac_IJ = sum S_iI S_jJ A_ij), and Ac is `MATBAIJ` too, so that
  every level keeps the cheaper block storage. With another P a `MATBAIJ` A is converted to
  `MATAIJ` for `MatPtAP()`. The sums run in another order than `MatPtAP()`'s: the entries agree to
  round-off. A reused product refuses an operator with a block outside the first one's pattern
  (on several processes, any other operator), on every process.

.seealso: `MechSystemSetUpPCMG()`, `MatPtAP()`
@*/
PetscErrorCode MechGridGalerkin(Mat A, Mat P, MatReuse reuse, PetscReal fill, Mat *Ac)
{
  PetscMPIInt      size;
  PetscBool        ismaij, isseqmaij, ismpiaij, ismpibaij, isseqbaij, ok;
  PetscContainer   container = NULL;
  GridGalerkinCtx *gc;
  Mat              Ad, Ao;
  PetscInt         bs, Mp, Ms;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATMPIMAIJ, &ismaij));
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSEQMAIJ, &isseqmaij));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIAIJ, &ismpiaij));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIBAIJ, &ismpibaij));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJ, &isseqbaij));
  /* the block products need P to interpolate whole blocks: MAIJ of A's block size */
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(MatGetSize(P, &Mp, NULL));
  if (ismaij || isseqmaij) {
    Mat S;

    PetscCall(MatMAIJGetAIJ(P, &S));
    PetscCall(MatGetSize(S, &Ms, NULL));
    if (Mp / Ms != bs) ismaij = isseqmaij = PETSC_FALSE;
  }
  if (isseqbaij && isseqmaij) {
    PetscCall(GridBlockGalerkin(A, P, reuse, Ac));
    PetscFunctionReturn(0);
  }
  if (reuse == MAT_REUSE_MATRIX) PetscCall(PetscObjectQuery((PetscObject)*Ac, "MechGridGalerkin", (PetscObject *)&container));
  if (size == 1 || !ismaij || !(ismpiaij || ismpibaij) || (reuse == MAT_REUSE_MATRIX && !container)) {
    /* PETSc has no product for MATBAIJ: its MATAIJ copy */
    if (isseqbaij || ismpibaij) {
      Mat Aij;

      PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &Aij));
      PetscCall(MatPtAP(Aij, P, reuse, fill, Ac));
      PetscCall(MatDestroy(&Aij));
    } else PetscCall(MatPtAP(A, P, reuse, fill, Ac));
    PetscFunctionReturn(0);
  }
  if (reuse == MAT_REUSE_MATRIX) {
    PetscBool other;

    /* the pieces belong to the blocks of the first product's operator (decided by all processes) */
    PetscCall(PetscContainerGetPointer(container, (void **)&gc));
    other = gc->block != ismpibaij ? PETSC_TRUE : PETSC_FALSE;
    if (!other) {
      if (gc->block) PetscCall(MatMPIBAIJGetSeqBAIJ(A, &Ad, &Ao, NULL));
      else PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
      other = Ad != gc->Ad || Ao != gc->Ao ? PETSC_TRUE : PETSC_FALSE;
    }
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &other, 1, MPIU_BOOL, MPI_LOR, PetscObjectComm((PetscObject)A)));
    PetscCheck(!other, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "MechGridGalerkin(): MAT_REUSE_MATRIX needs the operator of the first product, with the same nonzero pattern (this one is another matrix, or its pattern changed)");
  }
  PetscCall(PetscLogEventBegin(MECH_Galerkin, A, P, 0, 0));
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(GridGalerkinSetUp(A, P, fill, Ac));
  else {
    PetscCall(GridGalerkinLocalProduct(gc, PETSC_FALSE, &ok));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
    PetscCheck(ok, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "MechGridGalerkin(): the operator has a block outside the pattern of the first product");
    PetscCall(GridGalerkinSum(gc, *Ac));
  }
  PetscCall(PetscLogEventEnd(MECH_Galerkin, A, P, 0, 0));
  PetscFunctionReturn(0);
}

/* Whether DMCoarsen() of this DMDA keeps at least `least` points per direction and two per process */
static PetscErrorCode GridCanCoarsen(DM da, PetscInt least, PetscBool *can)
{
  PetscInt       dim, M[3], m[3], d;
  DMBoundaryType bd[3];

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(da, &dim, &M[0], &M[1], &M[2], &m[0], &m[1], &m[2], NULL, NULL, &bd[0], &bd[1], &bd[2], NULL));
  *can = PETSC_TRUE;
  for (d = 0; d < dim; d++) {
    PetscInt Mc = 1 + (M[d] - 1) / 2;

    if (bd[d] != DM_BOUNDARY_NONE || Mc < least || Mc < 2 * m[d]) *can = PETSC_FALSE;
  }
  PetscFunctionReturn(0);
}

/*@
  MechSystemSetUpPCMG - Gives a `PCMG` the geometric hierarchy of the system's `DMDA` grid, or the
  model's own levels.

  Collective

  Input Parameters:
+ sys - a grid system (`MechSystemSetDM()` with a `DMDA`: chain, cloth, lattice)
- pc  - a `PC` of type `PCMG` whose operators are the system's (N unknowns of the DMDA's layout),
        its options already read (`KSPSetFromOptions()`)

  Level: intermediate

  Notes:
  The levels are the DMDA's successive `DMCoarsen()`s, as many as -pc_mg_levels asks, or, when it
  is not given (one level), until a direction would have fewer than 5 points (or two per process). Between
  them the interpolation is linear in each direction with each coarse point at its own coordinate
  (the Q1 interpolation of `DMCreateInterpolation()` where the grids are nested), so any grid size
  has a hierarchy; it is stored once per grid point (`MATMAIJ`), and the finest one has no rows
  for the system's fixed dofs (`MechSystemSetFixed()`), which no coarse correction then moves.
  Unless given as options, the coarse operators are Galerkin products
  (-pc_mg_galerkin both; tsmech's types with the matrix-free Jacobian form them with
  `MechGridGalerkin()` instead) and the smoothers use the preconditioning matrix (-pc_use_amat 0):
  a matrix-free Jacobian has no entries to multiply. The PC also needs the DMDA as its DM, inactive
  (`KSPSetDM()`, `KSPSetDMActive()`), which `TSMechSetSolution()` gives the KSP of a second-order type.
  Smoothers are PETSc's defaults or the -mg_levels_ options; docs/solvers.md §4 has the measured
  choice for the cloth.

  A model with multigrid levels of its own (`MechSystemSetMultigrid()`: the solid's quadratic
  elements, with a level of linear ones on the same mesh) gets those instead, on any mesh: the PC's
  preconditioning matrix must then be the model's multigrid operator
  (`MechSystemCreateOperatorMultigrid()`, which `TSMechSetSolution()` gives), there are no Galerkin
  products (-pc_mg_galerkin is refused), and the finest level is smoothed with that matrix-free
  operator by Chebyshev with Jacobi (-mg_levels_ options change it).

.seealso: `TSMechSetSolution()`, `MechSystemGetDM()`, `PCMG`, `PCMGSetInterpolation()`, `MechSystemSetMultigrid()`
@*/
PetscErrorCode MechSystemSetUpPCMG(MechSystem sys, PC pc)
{
  PetscInt    levels, maxlevels = 32, l;
  PetscBool   isda, ismg, set, can;
  const char *prefix;
  DM          dms[32];
  MPI_Comm    comm = PetscObjectComm((PetscObject)pc);

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidHeaderSpecific(pc, PC_CLASSID, 2);
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &ismg));
  PetscCheck(ismg, comm, PETSC_ERR_ARG_WRONG, "MechSystemSetUpPCMG() needs a PC of type mg");
  /* a model with levels of its own (the solid's p-multigrid, mgoperator.c) */
  if (sys->mgsetup) {
    PetscCall(MechSystemSetUpPCMGModel_Private(sys, pc));
    PetscFunctionReturn(0);
  }
  PetscCheck(sys->dm, comm, PETSC_ERR_ARG_WRONGSTATE, "-pc_type mg: geometric multigrid needs a grid model (chain, cloth, lattice); this system has no grid (MechSystemSetDM())");
  PetscCall(PetscObjectTypeCompare((PetscObject)sys->dm, DMDA, &isda));
  PetscCheck(isda, comm, PETSC_ERR_ARG_WRONG, "-pc_type mg: geometric multigrid needs a structured grid (DMDA); this model's mesh has no coarse levels: use -pc_type gamg");
  PetscCall(PCGetOptionsPrefix(pc, &prefix));
  /* one level, PCMG's default, is no multigrid: more were asked for (-pc_mg_levels, PCMGSetLevels()) */
  PetscCall(PCMGGetLevels(pc, &levels));
  set = levels > 1 ? PETSC_TRUE : PETSC_FALSE;
  if (set) maxlevels = levels;
  PetscCheck(maxlevels >= 1 && maxlevels <= 32, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_mg_levels %" PetscInt_FMT " must be in [1, 32]", prefix ? prefix : "", maxlevels);

  dms[0] = sys->dm;
  PetscCall(PetscObjectReference((PetscObject)dms[0]));
  for (levels = 1; levels < maxlevels; levels++) {
    PetscCall(GridCanCoarsen(dms[levels - 1], set ? 2 : 5, &can));
    if (!can) break;
    PetscCall(DMCoarsen(dms[levels - 1], MPI_COMM_NULL, &dms[levels]));
  }
  if (set && levels < maxlevels) {
    PetscInt M, m;

    for (l = 0; l < levels; l++) PetscCall(DMDestroy(&dms[l]));
    PetscCall(DMDAGetInfo(sys->dm, NULL, &M, NULL, NULL, &m, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "-%spc_mg_levels %" PetscInt_FMT ": the model's grid (%" PetscInt_FMT " points along x, %" PetscInt_FMT " processes along x) has only %" PetscInt_FMT " levels of at least 2 points per direction and 2 per process", prefix ? prefix : "", maxlevels, M, m, levels);
  }
  PetscCall(PetscInfo(pc, "Grid multigrid: %" PetscInt_FMT " levels\n", levels));
  /* PCMG numbers its levels from the coarsest (0) to the finest (levels - 1) */
  PetscCall(PCMGSetLevels(pc, levels, NULL));
  for (l = 1; l < levels; l++) {
    Mat P;

    /* No coarse correction reaches a fixed dof: their rows of the operator are decoupled
       (MechSystemSetFixed()), so a solve whose right-hand side is zero there keeps them exactly
       where they are, however inexact it is elsewhere (docs/schemes.md §2, "Fixed dofs") */
    PetscCall(GridInterpolation(dms[levels - l], dms[levels - l - 1], l == levels - 1 ? sys->fixed : NULL, &P));
    PetscCall(PCMGSetInterpolation(pc, l, P));
    PetscCall(MatDestroy(&P));
  }
  for (l = 0; l < levels; l++) PetscCall(DMDestroy(&dms[l]));
  PetscCall(PetscOptionsHasName(((PetscObject)pc)->options, prefix, "-pc_mg_galerkin", &set));
  if (!set) PetscCall(PCMGSetGalerkin(pc, PC_MG_GALERKIN_BOTH));
  PetscCall(PetscOptionsHasName(((PetscObject)pc)->options, prefix, "-pc_use_amat", &set));
  if (!set) PetscCall(PCSetUseAmat(pc, PETSC_FALSE));
  PetscFunctionReturn(0);
}
