/*
  Nonlinear elimination near the fixed dofs (docs/solvers.md §3, "Nonlinear elimination"): before
  a step's Newton solve, Newton on the points within a graph distance of the fixed dofs alone, the
  rest of the state held (Lanzkron, Rose and Wilkes 1996; Cai and Li 2011). A constraint starts a
  sharp local motion that no extrapolation predicts, and the global Newton iterations would
  otherwise spend their linear solves on that corner of the problem. Each rank eliminates its own
  patch points with its neighbours' values held, from the model's force and tangent on the patch
  (MechSystemSetPatch()), so the work is local and its cost that of the patch.
*/
#include "tsimpl2.h"
#include <petscdmda.h>

struct _n_TSMechElimination {
  MechSystem   sys;
  DM           dm;
  PetscInt     bs, depth, maxit;
  PetscReal    rtol;
  PetscInt     n, N;   /* patch points of this rank, of all ranks */
  PetscInt    *pts;    /* their block indices in the local (ghosted) vectors */
  PetscInt    *own;    /* their block indices in this rank's part of a global vector */
  PetscInt    *patch;  /* every local block's patch row, or -1 */
  PetscScalar *mass;   /* M's diagonal on the patch dofs */
  PetscScalar *xold;   /* the patch dofs before the last update */
  Vec          ql, vl; /* local stage vectors */
  Vec          r, d;   /* patch residual and correction */
  Mat          J;      /* patch tangent */
  KSP          ksp;
  PetscInt     solves, its, reverts; /* statistics: eliminations, local Newton iterations, updates taken back */
};

/* The checks of a system for elimination: a patch evaluation, a DM, a diagonal mass */
static PetscErrorCode ElimCheckSystem(MPI_Comm comm, MechSystem sys, DM *dm, PetscInt *bs)
{
  Mat                    M;
  MatInfo                info;
  PetscInt               Mrows;
  PetscBool              has;
  const char            *model;
  ISLocalToGlobalMapping ltog;

  PetscFunctionBegin;
  PetscCall(MechSystemHasPatch(sys, &has));
  PetscCall(MechSystemGetModelName(sys, &model));
  PetscCheck(has, comm, PETSC_ERR_SUP, "-ts_theta_ne: model %s has no force and tangent on a patch (MechSystemSetPatch(); the grid models chain, cloth and lattice have)", model ? model : "(unnamed)");
  PetscCall(MechSystemGetDM(sys, dm));
  PetscCheck(*dm, comm, PETSC_ERR_SUP, "-ts_theta_ne: model %s has no DM (MechSystemSetDM()), whose ghost points the patch needs", model ? model : "(unnamed)");
  PetscCall(MechSystemGetMass(sys, &M));
  PetscCall(MatGetSize(M, &Mrows, NULL));
  PetscCall(MatGetInfo(M, MAT_GLOBAL_SUM, &info));
  PetscCheck((PetscInt)info.nz_used == Mrows, comm, PETSC_ERR_SUP, "-ts_theta_ne: model %s has a mass matrix that is not diagonal", model ? model : "(unnamed)");
  PetscCall(DMGetLocalToGlobalMapping(*dm, &ltog));
  PetscCall(ISLocalToGlobalMappingGetBlockSize(ltog, bs));
  PetscFunctionReturn(0);
}

/*
  This rank's points (block indices in its part of a global vector) within graph distance depth of
  the fixed dofs in the pattern of P, the fixed ones left out: the overlap of each rank's fixed
  dofs, gathered on the ranks that own its points. Collective.
*/
static PetscErrorCode ElimPatchPoints(Mat P, IS fixed, PetscInt bs, PetscInt depth, PetscInt *n, PetscInt **own)
{
  IS                 seed;
  Vec                mark;
  const PetscInt    *fidx = NULL, *oidx;
  const PetscScalar *mk;
  PetscInt           nf = 0, no, rstart, rend, b, c, r;
  PetscBool          assembled;

  PetscFunctionBegin;
  PetscCall(MatAssembled(P, &assembled));
  PetscCheck(assembled, PetscObjectComm((PetscObject)P), PETSC_ERR_ARG_WRONGSTATE, "Nonlinear elimination: the preconditioning matrix is not assembled");
  if (fixed) PetscCall(ISGetLocalSize(fixed, &nf));
  if (fixed) PetscCall(ISGetIndices(fixed, &fidx));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nf, fidx, PETSC_COPY_VALUES, &seed));
  if (fixed) PetscCall(ISRestoreIndices(fixed, &fidx));
  /* one pass of overlap at a time, stopped when the patch grows no more: a depth beyond the
     graph's diameter (-ts_theta_ne_depth 1000000000) costs the diameter's passes, not its own */
  for (PetscInt d = 0, before = -1, after; d < depth; d++) {
    PetscInt nlocal;

    PetscCall(ISGetLocalSize(seed, &nlocal));
    PetscCall(MPIU_Allreduce(&nlocal, &after, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)P)));
    if (after == before) break;
    before = after;
    PetscCall(MatIncreaseOverlap(P, 1, &seed, 1));
  }
  PetscCall(MatCreateVecs(P, &mark, NULL));
  PetscCall(ISGetLocalSize(seed, &no));
  PetscCall(ISGetIndices(seed, &oidx));
  for (r = 0; r < no; r++) PetscCall(VecSetValue(mark, oidx[r], 1.0, INSERT_VALUES));
  PetscCall(ISRestoreIndices(seed, &oidx));
  PetscCall(ISDestroy(&seed));
  PetscCall(VecAssemblyBegin(mark));
  PetscCall(VecAssemblyEnd(mark));
  if (fixed) PetscCall(VecISSet(mark, fixed, 0.0));
  PetscCall(VecGetOwnershipRange(mark, &rstart, &rend));
  PetscCheck(rstart % bs == 0 && rend % bs == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Nonlinear elimination: ownership range not in blocks of %" PetscInt_FMT, bs);
  PetscCall(PetscMalloc1((rend - rstart) / bs, own));
  *n = 0;
  PetscCall(VecGetArrayRead(mark, &mk));
  for (b = 0; b < (rend - rstart) / bs; b++) {
    for (c = 1; c < bs; c++) PetscCheck(mk[bs * b + c] == mk[bs * b], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Nonlinear elimination: the patch splits point %" PetscInt_FMT, rstart / bs + b);
    if (mk[bs * b] != 0) (*own)[(*n)++] = b;
  }
  PetscCall(VecRestoreArrayRead(mark, &mk));
  PetscCall(VecDestroy(&mark));
  PetscFunctionReturn(0);
}

/* The points own[n] in the local (ghosted) vectors of dm (pts) and every local block's patch row (patch, -1 outside) */
static PetscErrorCode ElimLocalMaps(DM dm, PetscInt bs, PetscInt rstart, PetscInt nown, PetscInt n, const PetscInt own[], PetscInt **pts, PetscInt **patch)
{
  ISLocalToGlobalMapping ltog;
  const PetscInt        *gidx;
  PetscInt              *loc, nl, b, r;

  PetscFunctionBegin;
  PetscCall(DMGetLocalToGlobalMapping(dm, &ltog));
  PetscCall(ISLocalToGlobalMappingGetSize(ltog, &nl));
  nl /= bs;
  PetscCall(PetscMalloc1(nown, &loc));
  PetscCall(PetscMalloc1(nl, patch));
  PetscCall(PetscMalloc1(n, pts));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(ltog, &gidx));
  for (b = 0; b < nl; b++) {
    const PetscInt g = gidx[b] - rstart / bs;

    (*patch)[b] = -1;
    if (g >= 0 && g < nown) loc[g] = b;
  }
  PetscCall(ISLocalToGlobalMappingRestoreBlockIndices(ltog, &gidx));
  for (r = 0; r < n; r++) {
    (*pts)[r]           = loc[own[r]];
    (*patch)[(*pts)[r]] = r;
  }
  PetscCall(PetscFree(loc));
  PetscFunctionReturn(0);
}

/* The patch's matrix with P's couplings among its points, in the order of own[] (every rank calls: collective) */
static PetscErrorCode ElimPatchMatrix(Mat P, PetscInt bs, PetscInt rstart, PetscInt n, const PetscInt own[], Mat *J)
{
  IS        isrow;
  Mat      *sub;
  PetscInt *gblk, r, b;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, &gblk));
  for (r = 0; r < n; r++) gblk[r] = rstart / bs + own[r];
  PetscCall(ISCreateBlock(PETSC_COMM_SELF, bs, n, gblk, PETSC_OWN_POINTER, &isrow));
  PetscCall(MatCreateSubMatrices(P, 1, &isrow, &isrow, MAT_INITIAL_MATRIX, &sub));
  PetscCall(ISDestroy(&isrow));
  *J = sub[0];
  PetscCall(PetscObjectReference((PetscObject)*J));
  PetscCall(MatDestroySubMatrices(1, &sub));
  PetscCall(MatGetBlockSize(*J, &b));
  PetscCheck(b == bs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Nonlinear elimination: patch tangent of block size %" PetscInt_FMT ", not %" PetscInt_FMT, b, bs);
  PetscCall(MatSetOption(*J, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/*@C
  TSMechEliminationEstimateStiffness - An estimate of k/m next to the fixed dofs at the state (q,
  v): the largest trace(K_ii) / m_i of the points within graph distance 2 of them, the sum of the
  stiffnesses of the springs (or elements) at a point over its mass, the same on every rank.
  Collective.
@*/
PetscErrorCode TSMechEliminationEstimateStiffness(TS ts, MechSystem sys, Mat P, Vec q, Vec v, PetscReal *ratio)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)ts);
  DM                 dm;
  IS                 fixed;
  Mat                J, M;
  Vec                ql, vl, kd, md;
  const PetscScalar *ka, *ma;
  PetscInt           bs, n, *own, *pts, *patch, rstart, rend, r, c;
  PetscReal          mine = 0;

  PetscFunctionBegin;
  PetscCall(ElimCheckSystem(comm, sys, &dm, &bs));
  PetscCall(MechSystemGetFixed(sys, &fixed));
  PetscCall(ElimPatchPoints(P, fixed, bs, 2, &n, &own));
  PetscCall(VecGetOwnershipRange(q, &rstart, &rend));
  PetscCall(ElimLocalMaps(dm, bs, rstart, (rend - rstart) / bs, n, own, &pts, &patch));
  PetscCall(ElimPatchMatrix(P, bs, rstart, n, own, &J));
  PetscCall(MatZeroEntries(J));
  PetscCall(DMCreateLocalVector(dm, &ql));
  PetscCall(VecDuplicate(ql, &vl));
  PetscCall(DMGlobalToLocal(dm, q, INSERT_VALUES, ql));
  PetscCall(DMGlobalToLocal(dm, v, INSERT_VALUES, vl));
  PetscCall(MechSystemComputePatch(sys, ts->ptime, ql, vl, n, pts, patch, 1.0, 0.0, NULL, J));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(J, &kd, NULL));
  PetscCall(MatGetDiagonal(J, kd));
  PetscCall(MechSystemGetMass(sys, &M));
  PetscCall(MatCreateVecs(M, &md, NULL));
  PetscCall(MatGetDiagonal(M, md));
  PetscCall(VecGetArrayRead(kd, &ka));
  PetscCall(VecGetArrayRead(md, &ma));
  for (r = 0; r < n; r++) {
    PetscReal tr = 0, m = 0;

    for (c = 0; c < bs; c++) {
      tr += PetscRealPart(ka[bs * r + c]);
      m += PetscRealPart(ma[bs * own[r] + c]);
    }
    m /= bs; /* the point's mass */
    if (m > 0) mine = PetscMax(mine, tr / m);
  }
  PetscCall(VecRestoreArrayRead(md, &ma));
  PetscCall(VecRestoreArrayRead(kd, &ka));
  PetscCall(MPIU_Allreduce(&mine, ratio, 1, MPIU_REAL, MPIU_MAX, comm));
  PetscCall(VecDestroy(&kd));
  PetscCall(VecDestroy(&md));
  PetscCall(VecDestroy(&ql));
  PetscCall(VecDestroy(&vl));
  PetscCall(MatDestroy(&J));
  PetscCall(PetscFree(own));
  PetscCall(PetscFree(pts));
  PetscCall(PetscFree(patch));
  PetscFunctionReturn(0);
}

/*@C
  TSMechEliminationDepth - The graph distance that covers reach decay lengths of one step's
  operator M + theta^2 tau^2 K near the fixed dofs: a grid point's stiffness is shared by the 2 dim
  directions of the grid, so the decay length is ell = theta tau sqrt(ratio / (2 dim)) grid
  spacings (docs/solvers.md §3), and a graph step of the stencil of width sw covers sw spacings.
@*/
PetscErrorCode TSMechEliminationDepth(MechSystem sys, PetscReal ratio, PetscReal thetatau, PetscReal reach, PetscInt *depth)
{
  DM        dm;
  PetscInt  dim, sw;
  PetscBool isda;
  PetscReal ell;

  PetscFunctionBegin;
  PetscCall(MechSystemGetDM(sys, &dm));
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  PetscCheck(isda, PetscObjectComm((PetscObject)sys), PETSC_ERR_SUP, "-ts_theta_ne: the automatic patch needs a structured grid (DMDA); give -ts_theta_ne_depth");
  PetscCall(DMDAGetInfo(dm, &dim, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &sw, NULL, NULL, NULL, NULL));
  ell = thetatau * PetscSqrtReal(ratio / (2.0 * dim));
  {
    PetscInt  M, N, P;
    PetscReal d = PetscCeilReal(reach * ell / PetscMax(sw, 1));

    /* no graph distance exceeds the number of grid points: a larger one (-ts_theta_ne_reach 1e300)
       is the whole grid, not an overflowing integer */
    PetscCall(DMDAGetInfo(dm, NULL, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    PetscCheck(!PetscIsNanReal(d), PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_OUTOFRANGE, "-ts_theta_ne_reach %g: the automatic patch's depth is not a number (decay length %g)", (double)reach, (double)ell);
    *depth = d >= (PetscReal)M * N * P ? M * N * P : PetscMax(1, (PetscInt)d);
  }
  PetscFunctionReturn(0);
}

/*@C
  TSMechEliminationCreate - The patch of the points within graph distance depth of the system's
  fixed dofs in the pattern of P (this rank's points), its tangent and its linear solver.

  Collective

  Input Parameters:
+ ts     - the TS
. prefix - appended to the TS's options prefix for the patch solver's (ts_theta_ne_ for theta2)
. sys    - the system, with a patch evaluation (MechSystemSetPatch()), a DM and a diagonal mass
. P      - an assembled operator of the system's pattern
. depth  - the graph distance
. maxit  - local Newton iterations at most
- rtol   - their relative tolerance

  Output Parameter:
. ne - the elimination
@*/
PetscErrorCode TSMechEliminationCreate(TS ts, const char neprefix[], MechSystem sys, Mat P, PetscInt depth, PetscInt maxit, PetscReal rtol, TSMechElimination *ne)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)ts);
  TSMechElimination  e;
  IS                 fixed;
  Mat                M;
  Vec                mdiag;
  const PetscScalar *md;
  PetscInt           rstart, rend, c, r;
  const char        *prefix;

  PetscFunctionBegin;
  PetscCall(PetscNew(&e));
  e->sys   = sys;
  e->depth = depth;
  e->maxit = maxit;
  e->rtol  = rtol;
  PetscCall(ElimCheckSystem(comm, sys, &e->dm, &e->bs));
  PetscCall(MechSystemGetFixed(sys, &fixed));
  PetscCall(ElimPatchPoints(P, fixed, e->bs, depth, &e->n, &e->own));
  PetscCall(MPIU_Allreduce(&e->n, &e->N, 1, MPIU_INT, MPI_SUM, comm));
  PetscCall(MatGetOwnershipRange(P, &rstart, &rend));
  PetscCall(ElimLocalMaps(e->dm, e->bs, rstart, (rend - rstart) / e->bs, e->n, e->own, &e->pts, &e->patch));
  PetscCall(ElimPatchMatrix(P, e->bs, rstart, e->n, e->own, &e->J));

  /* M's diagonal on the patch */
  PetscCall(MechSystemGetMass(sys, &M));
  PetscCall(MatCreateVecs(M, &mdiag, NULL));
  PetscCall(MatGetDiagonal(M, mdiag));
  PetscCall(PetscMalloc2(e->bs * e->n, &e->mass, e->bs * e->n, &e->xold));
  PetscCall(VecGetArrayRead(mdiag, &md));
  for (r = 0; r < e->n; r++)
    for (c = 0; c < e->bs; c++) e->mass[e->bs * r + c] = md[e->bs * e->own[r] + c];
  PetscCall(VecRestoreArrayRead(mdiag, &md));
  PetscCall(VecDestroy(&mdiag));

  PetscCall(DMCreateLocalVector(e->dm, &e->ql));
  PetscCall(VecDuplicate(e->ql, &e->vl));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, e->bs * e->n, &e->r));
  PetscCall(VecDuplicate(e->r, &e->d));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &e->ksp));
  PetscCall(TSGetOptionsPrefix(ts, &prefix));
  PetscCall(KSPSetOptionsPrefix(e->ksp, prefix));
  PetscCall(KSPAppendOptionsPrefix(e->ksp, neprefix));
  PetscCall(KSPSetType(e->ksp, KSPGMRES));
  {
    PC pc;

    PetscCall(KSPGetPC(e->ksp, &pc));
    PetscCall(PCSetType(pc, PCILU));
  }
  PetscCall(KSPSetTolerances(e->ksp, 1e-3, PETSC_DEFAULT, PETSC_DEFAULT, 200));
  PetscCall(KSPSetFromOptions(e->ksp));
  PetscCall(PetscInfo(ts, "Nonlinear elimination: %" PetscInt_FMT " points within distance %" PetscInt_FMT " of the fixed dofs, %" PetscInt_FMT " on this rank\n", e->N, depth, e->n));
  *ne = e;
  PetscFunctionReturn(0);
}

/* The graph distance of the patch */
PetscErrorCode TSMechEliminationGetDepth(TSMechElimination e, PetscInt *depth)
{
  PetscFunctionBegin;
  *depth = e ? e->depth : 0;
  PetscFunctionReturn(0);
}

PetscErrorCode TSMechEliminationDestroy(TSMechElimination *ne)
{
  TSMechElimination e = *ne;

  PetscFunctionBegin;
  if (!e) PetscFunctionReturn(0);
  PetscCall(PetscFree(e->own));
  PetscCall(PetscFree(e->patch));
  PetscCall(PetscFree(e->pts));
  PetscCall(PetscFree2(e->mass, e->xold));
  PetscCall(VecDestroy(&e->ql));
  PetscCall(VecDestroy(&e->vl));
  PetscCall(VecDestroy(&e->r));
  PetscCall(VecDestroy(&e->d));
  PetscCall(MatDestroy(&e->J));
  PetscCall(KSPDestroy(&e->ksp));
  PetscCall(PetscFree(*ne));
  PetscFunctionReturn(0);
}

/*
  The patch dofs of x set to xset (or, with xset NULL, moved by -d, the previous values kept in
  e->xold) and the local stage vectors of the patch points made to follow them
*/
static PetscErrorCode ElimUpdate(TSMechElimination e, const TSMechEliminationStage *st, const PetscScalar q[], const PetscScalar v[], const PetscScalar xset[], const PetscScalar d[], PetscScalar xa[])
{
  PetscScalar *qla, *vla;

  PetscFunctionBegin;
  PetscCall(VecGetArray(e->ql, &qla));
  PetscCall(VecGetArray(e->vl, &vla));
  for (PetscInt r = 0; r < e->n; r++) {
    for (PetscInt c = 0; c < e->bs; c++) {
      const PetscInt i = e->bs * r + c, g = e->bs * e->own[r] + c, l = e->bs * e->pts[r] + c;

      if (xset) xa[g] = xset[i];
      else {
        e->xold[i] = xa[g];
        xa[g] -= d[i];
      }
      vla[l] = st->cv0 * v[g] + st->cvx * xa[g];
      qla[l] = q[g] + st->cq0 * v[g] + st->cqx * xa[g];
    }
  }
  PetscCall(VecRestoreArray(e->vl, &vla));
  PetscCall(VecRestoreArray(e->ql, &qla));
  PetscFunctionReturn(0);
}

/*
  Local Newton on this rank's patch points of x, from the stage vectors qs, vs of x (the fixed
  dofs held; their ghost values are what the patch sees outside it) and the stage's coefficients:
  v_s = cv0 v + cvx x, q_s = q + cq0 v + cqx x, a_s = ca (x - v), residual
  R = cr (M a_s + f(t_s, q_s, v_s)) + crt f_start, tangent M + cr (cvx D + cqx K). Stops at
  ||R_patch|| <= max(atol, rtol ||R_patch(x)||), after maxit iterations, or takes the last update
  back when the residual grew or is not finite (and after a failed linear solve makes none).
  Not collective beyond the ghost update at its start.
*/
PetscErrorCode TSMechEliminationSolve(TSMechElimination e, const TSMechEliminationStage *st, Vec q0, Vec v0, Vec fstart, Vec qs, Vec vs, PetscReal atol, Vec x)
{
  const PetscInt     bs = e->bs;
  const PetscScalar *q, *v, *fs = NULL, *dr;
  PetscScalar       *xa, *ra, *da;
  PetscReal          rn = 0, rn0 = 0, rprev = 0;
  PetscInt           k, r, c, lits;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(DMGlobalToLocal(e->dm, qs, INSERT_VALUES, e->ql));
  PetscCall(DMGlobalToLocal(e->dm, vs, INSERT_VALUES, e->vl));
  if (!e->n) PetscFunctionReturn(0);
  e->solves++;
  PetscCall(VecGetArrayRead(q0, &q));
  PetscCall(VecGetArrayRead(v0, &v));
  if (fstart && st->crt != 0) PetscCall(VecGetArrayRead(fstart, &fs));
  PetscCall(VecGetArray(x, &xa));
  for (k = 0;; k++) {
    PetscCall(VecGetArray(e->r, &ra));
    PetscCall(MechSystemComputePatch(e->sys, st->t, e->ql, e->vl, e->n, e->pts, e->patch, 0, 0, ra, NULL));
    for (r = 0; r < e->n; r++) {
      for (c = 0; c < bs; c++) {
        const PetscInt i = bs * r + c, g = bs * e->own[r] + c;

        ra[i] = st->cr * (e->mass[i] * st->ca * (xa[g] - v[g]) + ra[i]) + (fs ? st->crt * fs[g] : 0);
      }
    }
    PetscCall(VecRestoreArray(e->r, &ra));
    PetscCall(VecNorm(e->r, NORM_2, &rn));
    if (k == 0) rn0 = rn;
    if (k > 0 && !(rn <= rprev)) {
      /* the last update made it worse (or not finite): back to the iterate before it */
      PetscCall(ElimUpdate(e, st, q, v, e->xold, NULL, xa));
      e->reverts++;
      break;
    }
    if (!PetscIsInfOrNanReal(rn) && (rn <= PetscMax(atol, e->rtol * rn0) || k == e->maxit)) break;
    if (PetscIsInfOrNanReal(rn)) break; /* the guess itself: left to the global Newton */
    rprev = rn;
    /* the tangent at the current iterate */
    PetscCall(MatZeroEntries(e->J));
    PetscCall(MechSystemComputePatch(e->sys, st->t, e->ql, e->vl, e->n, e->pts, e->patch, st->cr * st->cqx, st->cr * st->cvx, NULL, e->J));
    PetscCall(MatAssemblyBegin(e->J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(e->J, MAT_FINAL_ASSEMBLY));
    PetscCall(VecGetArray(e->d, &da));
    for (r = 0; r < bs * e->n; r++) da[r] = e->mass[r] * st->cr * st->ca;
    PetscCall(VecRestoreArray(e->d, &da));
    PetscCall(MatDiagonalSet(e->J, e->d, ADD_VALUES));
    PetscCall(KSPSetOperators(e->ksp, e->J, e->J));
    PetscCall(KSPSolve(e->ksp, e->r, e->d));
    PetscCall(KSPGetConvergedReason(e->ksp, &reason));
    PetscCall(KSPGetIterationNumber(e->ksp, &lits));
    if (reason < 0) {
      PetscCall(PetscInfo(e->ksp, "Nonlinear elimination: patch solve failed (%s) after %" PetscInt_FMT " iterations; the patch keeps its iterate\n", KSPConvergedReasons[reason], lits));
      break;
    }
    e->its++;
    PetscCall(VecGetArrayRead(e->d, &dr));
    PetscCall(ElimUpdate(e, st, q, v, NULL, dr, xa));
    PetscCall(VecRestoreArrayRead(e->d, &dr));
  }
  PetscCall(VecRestoreArray(x, &xa));
  if (fs) PetscCall(VecRestoreArrayRead(fstart, &fs));
  PetscCall(VecRestoreArrayRead(v0, &v));
  PetscCall(VecRestoreArrayRead(q0, &q));
  PetscCall(PetscInfo(e->ksp, "Nonlinear elimination: patch residual %g -> %g in %" PetscInt_FMT " iterations\n", (double)rn0, (double)rn, k));
  PetscFunctionReturn(0);
}

/* Patch size and the work done, for TSView() */
PetscErrorCode TSMechEliminationView(TSMechElimination e, PetscViewer viewer)
{
  PetscInt its = 0, solves = 0;

  PetscFunctionBegin;
  if (!e) PetscFunctionReturn(0);
  PetscCall(MPIU_Allreduce(&e->its, &its, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)e->dm)));
  PetscCall(MPIU_Allreduce(&e->solves, &solves, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)e->dm)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  Nonlinear elimination: %" PetscInt_FMT " points within distance %" PetscInt_FMT " of the fixed dofs; %" PetscInt_FMT " local Newton iterations in %" PetscInt_FMT " patch solves (all ranks)\n", e->N, e->depth, its, solves));
  PetscFunctionReturn(0);
}

/* Local Newton iterations of this rank so far */
PetscErrorCode TSMechEliminationGetIterations(TSMechElimination e, PetscInt *its)
{
  PetscFunctionBegin;
  *its = e ? e->its : 0;
  PetscFunctionReturn(0);
}
