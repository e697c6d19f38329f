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

/*@C
  TSMechEliminationCreate - The patch of the points within graph distance depth of the system's
  fixed dofs in the pattern of P (this rank's points), its tangent and its linear solver.

  Collective

  Input Parameters:
+ ts     - the TS (options prefix of the patch solver: -<prefix>ts_theta_ne_)
. sys    - the system, with a patch evaluation (MechSystemSetPatch()), a DM and a diagonal mass
. P      - an assembled operator of the system's pattern
. depth  - the graph distance
. maxit  - local Newton iterations at most
- rtol   - their relative tolerance

  Output Parameter:
. ne - the elimination
@*/
PetscErrorCode TSMechEliminationCreate(TS ts, MechSystem sys, Mat P, PetscInt depth, PetscInt maxit, PetscReal rtol, TSMechElimination *ne)
{
  MPI_Comm               comm = PetscObjectComm((PetscObject)ts);
  TSMechElimination      e;
  IS                     fixed, seed, isrow;
  Mat                    M, *sub;
  MatInfo                info;
  Vec                    mark, mdiag;
  ISLocalToGlobalMapping ltog;
  const PetscInt        *gidx, *fidx, *oidx;
  const PetscScalar     *mk, *md;
  PetscInt              *loc, *gblk, nf, no, nl, rstart, rend, Mrows, b, c, r;
  PetscBool              has, assembled;
  const char            *prefix, *model;

  PetscFunctionBegin;
  PetscCall(MechSystemHasPatch(sys, &has));
  PetscCall(MechSystemGetModelName(sys, &model));
  PetscCheck(has, comm, PETSC_ERR_SUP, "-ts_theta_ne_depth: model %s has no force and tangent on a patch (MechSystemSetPatch(); the grid models chain, cloth and lattice have)", model ? model : "(unnamed)");
  PetscCall(PetscNew(&e));
  e->sys   = sys;
  e->depth = depth;
  e->maxit = maxit;
  e->rtol  = rtol;
  PetscCall(MechSystemGetDM(sys, &e->dm));
  PetscCheck(e->dm, comm, PETSC_ERR_SUP, "-ts_theta_ne_depth: model %s has no DM (MechSystemSetDM()), whose ghost points the patch needs", model ? model : "(unnamed)");
  PetscCall(MechSystemGetMass(sys, &M));
  PetscCall(MatGetSize(M, &Mrows, NULL));
  PetscCall(MatGetInfo(M, MAT_GLOBAL_SUM, &info));
  PetscCheck((PetscInt)info.nz_used == Mrows, comm, PETSC_ERR_SUP, "-ts_theta_ne_depth: model %s has a mass matrix that is not diagonal", model ? model : "(unnamed)");
  PetscCall(MatAssembled(P, &assembled));
  PetscCheck(assembled, comm, PETSC_ERR_ARG_WRONGSTATE, "Nonlinear elimination: the preconditioning matrix is not assembled");
  PetscCall(DMGetLocalToGlobalMapping(e->dm, &ltog));
  PetscCall(ISLocalToGlobalMappingGetBlockSize(ltog, &e->bs));

  /* the patch: the overlap of this rank's fixed dofs, gathered on the ranks that own its points */
  PetscCall(MechSystemGetFixed(sys, &fixed));
  nf = 0;
  if (fixed) PetscCall(ISGetLocalSize(fixed, &nf));
  if (fixed) PetscCall(ISGetIndices(fixed, &fidx));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nf, nf ? fidx : NULL, PETSC_COPY_VALUES, &seed));
  if (fixed) PetscCall(ISRestoreIndices(fixed, &fidx));
  PetscCall(MatIncreaseOverlap(P, 1, &seed, depth));
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
  PetscCheck(rstart % e->bs == 0 && rend % e->bs == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Nonlinear elimination: ownership range not in blocks of %" PetscInt_FMT, e->bs);
  PetscCall(PetscMalloc1((rend - rstart) / e->bs, &e->own));
  PetscCall(VecGetArrayRead(mark, &mk));
  for (b = 0; b < (rend - rstart) / e->bs; b++) {
    for (c = 1; c < e->bs; c++) PetscCheck(mk[e->bs * b + c] == mk[e->bs * b], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Nonlinear elimination: the patch splits point %" PetscInt_FMT, rstart / e->bs + b);
    if (mk[e->bs * b] != 0) e->own[e->n++] = b;
  }
  PetscCall(VecRestoreArrayRead(mark, &mk));
  PetscCall(MPIU_Allreduce(&e->n, &e->N, 1, MPIU_INT, MPI_SUM, comm));

  /* the patch points in the local vectors, and every local block's patch row */
  PetscCall(ISLocalToGlobalMappingGetSize(ltog, &nl));
  nl /= e->bs;
  PetscCall(PetscMalloc1((rend - rstart) / e->bs, &loc));
  PetscCall(PetscMalloc2(nl, &e->patch, e->n, &e->pts));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(ltog, &gidx));
  for (b = 0; b < nl; b++) {
    const PetscInt g = gidx[b] - rstart / e->bs;

    e->patch[b] = -1;
    if (g >= 0 && g < (rend - rstart) / e->bs) loc[g] = b;
  }
  PetscCall(ISLocalToGlobalMappingRestoreBlockIndices(ltog, &gidx));
  for (r = 0; r < e->n; r++) {
    e->pts[r]          = loc[e->own[r]];
    e->patch[e->pts[r]] = r;
  }
  PetscCall(PetscFree(loc));

  /* the patch tangent with P's couplings among patch points (every rank calls: collective) */
  PetscCall(PetscMalloc1(e->n, &gblk));
  for (r = 0; r < e->n; r++) gblk[r] = rstart / e->bs + e->own[r];
  PetscCall(ISCreateBlock(PETSC_COMM_SELF, e->bs, e->n, gblk, PETSC_OWN_POINTER, &isrow));
  PetscCall(MatCreateSubMatrices(P, 1, &isrow, &isrow, MAT_INITIAL_MATRIX, &sub));
  PetscCall(ISDestroy(&isrow));
  e->J = sub[0];
  PetscCall(PetscObjectReference((PetscObject)e->J));
  PetscCall(MatDestroySubMatrices(1, &sub));
  PetscCall(MatGetBlockSize(e->J, &b));
  PetscCheck(b == e->bs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Nonlinear elimination: patch tangent of block size %" PetscInt_FMT ", not %" PetscInt_FMT, b, e->bs);
  PetscCall(MatSetOption(e->J, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));

  /* M's diagonal on the patch */
  PetscCall(VecDuplicate(mark, &mdiag));
  PetscCall(MatGetDiagonal(M, mdiag));
  PetscCall(PetscMalloc2(e->bs * e->n, &e->mass, e->bs * e->n, &e->xold));
  PetscCall(VecGetArrayRead(mdiag, &md));
  for (r = 0; r < e->n; r++)
    for (c = 0; c < e->bs; c++) e->mass[e->bs * r + c] = md[e->bs * e->own[r] + c];
  PetscCall(VecRestoreArrayRead(mdiag, &md));
  PetscCall(VecDestroy(&mdiag));
  PetscCall(VecDestroy(&mark));

  PetscCall(DMCreateLocalVector(e->dm, &e->ql));
  PetscCall(VecDuplicate(e->ql, &e->vl));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, e->bs * e->n, &e->r));
  PetscCall(VecDuplicate(e->r, &e->d));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &e->ksp));
  PetscCall(TSGetOptionsPrefix(ts, &prefix));
  PetscCall(KSPSetOptionsPrefix(e->ksp, prefix));
  PetscCall(KSPAppendOptionsPrefix(e->ksp, "ts_theta_ne_"));
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

PetscErrorCode TSMechEliminationDestroy(TSMechElimination *ne)
{
  TSMechElimination e = *ne;

  PetscFunctionBegin;
  if (!e) PetscFunctionReturn(0);
  PetscCall(PetscFree(e->own));
  PetscCall(PetscFree2(e->patch, e->pts));
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
  const PetscScalar *q, *v, *fs = NULL;
  PetscScalar       *xa, *qla, *vla, *ra, *da;
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
      PetscCall(VecGetArray(e->ql, &qla));
      PetscCall(VecGetArray(e->vl, &vla));
      for (r = 0; r < e->n; r++) {
        for (c = 0; c < bs; c++) {
          const PetscInt i = bs * r + c, g = bs * e->own[r] + c, l = bs * e->pts[r] + c;

          xa[g]  = e->xold[i];
          vla[l] = st->cv0 * v[g] + st->cvx * xa[g];
          qla[l] = q[g] + st->cq0 * v[g] + st->cqx * xa[g];
        }
      }
      PetscCall(VecRestoreArray(e->vl, &vla));
      PetscCall(VecRestoreArray(e->ql, &qla));
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
    PetscCall(VecGetArrayRead(e->d, (const PetscScalar **)&da));
    PetscCall(VecGetArray(e->ql, &qla));
    PetscCall(VecGetArray(e->vl, &vla));
    for (r = 0; r < e->n; r++) {
      for (c = 0; c < bs; c++) {
        const PetscInt i = bs * r + c, g = bs * e->own[r] + c, l = bs * e->pts[r] + c;

        e->xold[i] = xa[g];
        xa[g] -= da[i];
        vla[l] = st->cv0 * v[g] + st->cvx * xa[g];
        qla[l] = q[g] + st->cq0 * v[g] + st->cqx * xa[g];
      }
    }
    PetscCall(VecRestoreArray(e->vl, &vla));
    PetscCall(VecRestoreArray(e->ql, &qla));
    PetscCall(VecRestoreArrayRead(e->d, (const PetscScalar **)&da));
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
