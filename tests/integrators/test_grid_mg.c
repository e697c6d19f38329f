static const char help[] = "Geometric multigrid on the grid models (-pc_type mg, MechSystemSetUpPCMG()).\n"
                           "1. The interpolation of every level, on grids whose coarsenings are not nested (n - 1 odd):\n"
                           "   each row sums to 1 and a linear field on the coarse grid (at the coarse points' own\n"
                           "   coordinates) is interpolated exactly, in 1-D (chain), 2-D (cloth) and 3-D (lattice);\n"
                           "   on the finest level the rows of the fixed dofs are zero (no coarse correction reaches them):\n"
                           "   a scalar interpolation per component (MATMAIJ) where every fixed grid point is fixed in all\n"
                           "   components, an AIJ matrix with rows of its own where one is not (the cloth with only the\n"
                           "   z component of some points fixed).\n"
                           "2. The stiff cloth (light, so that theta^2 tau^2 K dominates M) under midpoint2 with the\n"
                           "   matrix-free Jacobian: the final state with -pc_type mg equals that with ICC to solver\n"
                           "   tolerance, and the CG iterations per Newton iteration stay bounded when the grid is\n"
                           "   doubled (mesh independence), while ICC's grow.\n"
                           "3. Lagged coarse levels (-ts_theta_pc_lag_coarse): on the cloth with frequent rebuilds of\n"
                           "   the preconditioning matrix, some rebuilds renew only the finest level, every one does\n"
                           "   without the option, and the final states agree to solver tolerance.\n"
                           "   The Galerkin coarse operators of MechGridGalerkin() equal MatPtAP()'s on every level, also\n"
                           "   recomputed for new values; reusing the product of another operator is refused.\n"
                           "4. Refusals: more levels than the grid has, and a model without a grid.\n"
                           "Run on several ranks (coarse points of neighbouring processes).\n"
                           "  -soltol <1e-8> agreement of the final states, -growth <1.3> bound of the iteration growth\n";

#include "integ.h"
#include <petscdmda.h>

/* A KSP on the system's operator with -pc_type mg set up by MechSystemSetUpPCMG(), levels automatic */
static PetscErrorCode CreateGridMG(MechSystem sys, KSP *ksp)
{
  Mat J;
  PC  pc;
  DM  dm;

  PetscFunctionBegin;
  PetscCall(MechSystemCreateOperator(sys, &J));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)sys), ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, "gridmg_"));
  PetscCall(KSPSetOperators(*ksp, J, J));
  PetscCall(MatDestroy(&J));
  PetscCall(MechSystemGetDM(sys, &dm));
  PetscCall(KSPSetDM(*ksp, dm));
  PetscCall(KSPSetDMActive(*ksp, PETSC_FALSE));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCMG));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscCall(MechSystemSetUpPCMG(sys, pc));
  PetscFunctionReturn(0);
}

/* Fills u on the DMDA da with the linear field a_c + b_c x + c_c y + d_c z (per component c),
   with (x, y, z) the grid coordinates in units of the finest spacing: scale per direction */
static PetscErrorCode LinearField(DM da, const PetscReal scale[3], Vec u)
{
  PetscInt     dim, dof, xs, ys, zs, xm, ym, zm, i, j, k, c;
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(da, &dim, NULL, NULL, NULL, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArray(u, &a));
  for (k = zs; k < zs + zm; k++)
    for (j = ys; j < ys + ym; j++)
      for (i = xs; i < xs + xm; i++)
        for (c = 0; c < dof; c++) {
          PetscReal x = i * scale[0], y = j * scale[1], z = k * scale[2];

          *a++ = (1.0 + c) + (0.5 - c) * x + (0.25 + c) * (dim > 1 ? y : 0) - (0.125 * c) * (dim > 2 ? z : 0);
        }
  PetscCall(VecRestoreArray(u, &a));
  PetscFunctionReturn(0);
}

/* Part 1: every level's interpolation sums to 1 per row and is exact on linear fields */
static PetscErrorCode CheckInterpolation(MPI_Comm comm, const char model[], const char opts[], PetscBool partial)
{
  MechSystem sys;
  KSP        ksp;
  PC         pc;
  DM         dm, dms[16];
  PetscInt   levels, l, M[3], dim;
  IS         fixed;

  PetscFunctionBegin;
  PetscCall(IntegCreateModel(comm, model, opts, &sys));
  if (partial) {
    /* only the last component of every seventh grid point of this rank */
    Vec      q, v;
    PetscInt rstart, rend, n = 0, *idx, bs;
    IS       is;

    PetscCall(MechSystemCreateState(sys, &q, &v));
    PetscCall(VecGetOwnershipRange(q, &rstart, &rend));
    PetscCall(VecGetBlockSize(q, &bs));
    PetscCall(PetscMalloc1(rend - rstart, &idx));
    for (PetscInt i = rstart; i < rend; i += bs)
      if ((i / bs) % 7 == 0) idx[n++] = i + bs - 1;
    PetscCall(ISCreateGeneral(comm, n, idx, PETSC_OWN_POINTER, &is));
    PetscCall(MechSystemSetFixed(sys, is, NULL));
    PetscCall(ISDestroy(&is));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
  }
  PetscCall(MechSystemGetFixed(sys, &fixed));
  PetscCall(CreateGridMG(sys, &ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCMGGetLevels(pc, &levels));
  PetscCall(MechSystemGetDM(sys, &dm));
  PetscCall(DMDAGetInfo(dm, &dim, &M[0], &M[1], &M[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  TestCheck(comm, levels >= 3, "%s %s: only %" PetscInt_FMT " automatic levels", model, opts, levels);
  /* the same coarsenings as MechSystemSetUpPCMG(): level levels-1 is the model's grid */
  dms[levels - 1] = dm;
  PetscCall(PetscObjectReference((PetscObject)dm));
  for (l = levels - 1; l > 0; l--) PetscCall(DMCoarsen(dms[l], MPI_COMM_NULL, &dms[l - 1]));
  for (l = 1; l < levels; l++) {
    Mat       P;
    Vec       uc, uf, ue, ones, rs, sums;
    PetscInt  Mf[3] = {1, 1, 1}, Mc[3] = {1, 1, 1}, d;
    PetscReal sf[3] = {1, 1, 1}, sc[3] = {1, 1, 1}, err, nrm, rerr;

    PetscCall(PCMGGetInterpolation(pc, l, &P));
    {
      PetscBool maij;

      PetscCall(PetscObjectTypeCompareAny((PetscObject)P, &maij, MATSEQMAIJ, MATMPIMAIJ, ""));
      TestCheck(comm, maij == (partial && l == levels - 1 ? PETSC_FALSE : PETSC_TRUE), "%s %s level %" PetscInt_FMT ": the interpolation is %s", model, opts, l, maij ? "MAIJ, with partly fixed grid points" : "not MAIJ");
    }
    PetscCall(DMDAGetInfo(dms[l], NULL, &Mf[0], &Mf[1], &Mf[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    PetscCall(DMDAGetInfo(dms[l - 1], NULL, &Mc[0], &Mc[1], &Mc[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    /* coordinates in units of this fine grid's spacing: the coarse one is (Mf - 1) / (Mc - 1) of it */
    for (d = 0; d < dim; d++) sc[d] = (PetscReal)(Mf[d] - 1) / (PetscReal)(Mc[d] - 1);
    PetscCall(DMCreateGlobalVector(dms[l - 1], &uc));
    PetscCall(DMCreateGlobalVector(dms[l], &uf));
    PetscCall(VecDuplicate(uf, &ue));
    PetscCall(LinearField(dms[l - 1], sc, uc));
    PetscCall(LinearField(dms[l], sf, ue));
    PetscCall(VecDuplicate(uf, &rs));
    PetscCall(VecSet(rs, 1.0));
    if (l == levels - 1 && fixed) {
      /* nothing is interpolated into a fixed dof */
      PetscCall(VecISSet(ue, fixed, 0.0));
      PetscCall(VecISSet(rs, fixed, 0.0));
    }
    PetscCall(MatMult(P, uc, uf));
    PetscCall(VecAXPY(uf, -1.0, ue));
    PetscCall(VecNorm(uf, NORM_INFINITY, &err));
    PetscCall(VecNorm(ue, NORM_INFINITY, &nrm));
    PetscCall(VecDuplicate(uc, &ones));
    PetscCall(VecDuplicate(uf, &sums));
    PetscCall(VecSet(ones, 1.0));
    PetscCall(MatMult(P, ones, sums));
    PetscCall(VecAXPY(rs, -1.0, sums));
    PetscCall(VecNorm(rs, NORM_INFINITY, &rerr));
    PetscCall(PetscPrintf(comm, "  %-8s %-22s%s level %" PetscInt_FMT ": %4" PetscInt_FMT " -> %4" PetscInt_FMT " points along x, linear field error %.1e, row sums - 1 %.1e\n", model, opts, partial ? " (z fixed)" : "", l, Mc[0], Mf[0], (double)(err / nrm), (double)rerr));
    TestCheck(comm, err <= 1e-13 * nrm, "%s %s level %" PetscInt_FMT ": a linear field is not interpolated exactly (error %g)", model, opts, l, (double)(err / nrm));
    TestCheck(comm, rerr <= 1e-14, "%s %s level %" PetscInt_FMT ": interpolation rows do not sum to 1 (0 for a fixed dof; %g)", model, opts, l, (double)rerr);
    PetscCall(VecDestroy(&uc));
    PetscCall(VecDestroy(&uf));
    PetscCall(VecDestroy(&ue));
    PetscCall(VecDestroy(&ones));
    PetscCall(VecDestroy(&rs));
    PetscCall(VecDestroy(&sums));
  }
  /* the coarsest level of a non-nested hierarchy was reached, not only nested halvings */
  TestCheck(comm, (M[0] - 1) % ((PetscInt)1 << (levels - 1)) != 0, "%s %s: the grid's hierarchy is nested; the test wants a non-nested one", model, opts);
  for (l = 0; l < levels; l++) PetscCall(DMDestroy(&dms[l]));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/* ||X - Y||_F / ||Y||_F of two parallel matrices */
static PetscErrorCode RelDiff(Mat X, Mat Y, PetscReal *rel)
{
  Mat       D;
  PetscReal nd, ny;

  PetscFunctionBegin;
  PetscCall(MatDuplicate(Y, MAT_COPY_VALUES, &D));
  PetscCall(MatAXPY(D, -1.0, X, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(D, NORM_FROBENIUS, &nd));
  PetscCall(MatNorm(Y, NORM_FROBENIUS, &ny));
  *rel = nd / ny;
  PetscCall(MatDestroy(&D));
  PetscFunctionReturn(0);
}

/*
  Part 1b: MechGridGalerkin() equals MatPtAP() on every level, first and with new values (reuse);
  with block, of the point-block (MATBAIJ) copy of the operator, for which PETSc has no product
  (the reference is MatPtAP() of the MATAIJ operator), and the coarse operators stay MATBAIJ
*/
static PetscErrorCode CheckGalerkin(MPI_Comm comm, const char model[], const char opts[], PetscBool block)
{
  MechSystem  sys;
  KSP         ksp;
  PC          pc;
  Mat         A, Aref;
  Vec         q, v;
  PetscInt    levels, l, dof;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(IntegCreateModel(comm, model, opts, &sys));
  PetscCall(CreateGridMG(sys, &ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCMGGetLevels(pc, &levels));
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(VecGetBlockSize(q, &dof));
  PetscCall(MechSystemCreateOperator(sys, &A));
  PetscCall(MechSystemComputeOperator(sys, 0.0, q, v, 1e-2, 1e-1, 1.0, A));
  Aref = A;
  if (block) PetscCall(MatConvert(Aref, MATBAIJ, MAT_INITIAL_MATRIX, &A));
  else PetscCall(PetscObjectReference((PetscObject)A));
  for (l = levels - 1; l > 0; l--) {
    Mat       P, Paij, Ac, Ar, Acmp;
    PetscReal rel0, rel1;
    PetscInt  bs;
    PetscBool maij, isbaij;

    PetscCall(PCMGGetInterpolation(pc, l, &P));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)P, &maij, MATSEQMAIJ, MATMPIMAIJ, ""));
    TestCheck(comm, maij, "%s level %" PetscInt_FMT ": the interpolation is not MAIJ", model, l);
    /* the reference with an AIJ copy: PETSc's parallel MatPtAP() converts a MAIJ P to AIJ in place */
    PetscCall(MatConvert(P, MATAIJ, MAT_INITIAL_MATRIX, &Paij));
    PetscCall(MatPtAP(Aref, Paij, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Ar));
    PetscCall(MechGridGalerkin(A, P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Ac));
    PetscCall(MatConvert(Ac, MATAIJ, MAT_INITIAL_MATRIX, &Acmp));
    PetscCall(RelDiff(Acmp, Ar, &rel0));
    PetscCall(MatDestroy(&Acmp));
    PetscCall(MatGetBlockSize(Ac, &bs));
    TestCheck(comm, bs == dof, "%s level %" PetscInt_FMT ": the Galerkin product has block size %" PetscInt_FMT ", not %" PetscInt_FMT, model, l, bs, dof);
    PetscCall(PetscObjectTypeCompareAny((PetscObject)Ac, &isbaij, MATSEQBAIJ, MATMPIBAIJ, ""));
    TestCheck(comm, isbaij == block, "%s level %" PetscInt_FMT ": the Galerkin product is%s point-block (MATBAIJ)", model, l, isbaij ? "" : " not");
    /* new values on the same pattern: both recompute in place */
    PetscCall(MatScale(A, 3.0));
    PetscCall(MatShift(A, 0.5));
    if (Aref != A) {
      PetscCall(MatScale(Aref, 3.0));
      PetscCall(MatShift(Aref, 0.5));
    }
    PetscCall(MatPtAP(Aref, Paij, MAT_REUSE_MATRIX, PETSC_DEFAULT, &Ar));
    PetscCall(MechGridGalerkin(A, P, MAT_REUSE_MATRIX, PETSC_DEFAULT, &Ac));
    PetscCall(MatConvert(Ac, MATAIJ, MAT_INITIAL_MATRIX, &Acmp));
    PetscCall(RelDiff(Acmp, Ar, &rel1));
    PetscCall(MatDestroy(&Acmp));
    PetscCall(PetscPrintf(comm, "  %-8s level %" PetscInt_FMT " -> %" PetscInt_FMT ": Galerkin product%s against MatPtAP() %.1e, recomputed %.1e\n", model, l, l - 1, block ? " (BAIJ)" : "", (double)rel0, (double)rel1));
    TestCheck(comm, rel0 <= 1e-14 && rel1 <= 1e-14, "%s level %" PetscInt_FMT ": MechGridGalerkin() differs from MatPtAP() by %g (recomputed %g)", model, l, (double)rel0, (double)rel1);
    if (l == levels - 1 && block) {
      /* an operator with a block outside the pattern: refused before Ac is touched */
      Mat            B, Ac0;
      PetscInt       nb, r0, r1, row, col;
      PetscScalar    one[81];
      PetscReal      moved;
      PetscErrorCode ierr;

      for (PetscInt k = 0; k < 81; k++) one[k] = 1.0;
      PetscCall(MatDuplicate(Ac, MAT_COPY_VALUES, &Ac0));
      /* other values too, so that any write into Ac would show */
      PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
      PetscCall(MatScale(B, 2.0));
      PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
      PetscCall(MatSetOption(B, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_FALSE));
      PetscCall(MatGetSize(B, &nb, NULL));
      PetscCall(MatGetOwnershipRange(B, &r0, &r1));
      /* free points (the fixed ones have no interpolation rows), a quarter of the grid apart */
      row = (r0 + r1) / 2 / dof;
      col = (row + nb / dof / 4) % (nb / dof);
      PetscCall(MatSetValuesBlocked(B, 1, &row, 1, &col, one, ADD_VALUES));
      PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = MechGridGalerkin(B, P, MAT_REUSE_MATRIX, PETSC_DEFAULT, &Ac);
      PetscCall(PetscPopErrorHandler());
      TestCheck(comm, ierr == PETSC_ERR_ARG_WRONGSTATE, "%s: an operator with a block outside the product's pattern was not refused (error %d)", model, (int)ierr);
      PetscCall(RelDiff(Ac, Ac0, &moved));
      TestCheck(comm, moved == 0, "%s: the refused product changed the coarse operator by %g", model, (double)moved);
      PetscCall(MatDestroy(&B));
      PetscCall(MatDestroy(&Ac0));
    }
    if (l == levels - 1 && size > 1) {
      /* another operator cannot reuse the product's pieces: refused, not recomputed wrong */
      Mat            B;
      PetscErrorCode ierr;

      PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = MechGridGalerkin(B, P, MAT_REUSE_MATRIX, PETSC_DEFAULT, &Ac);
      PetscCall(PetscPopErrorHandler());
      TestCheck(comm, ierr == PETSC_ERR_ARG_WRONGSTATE, "%s: reusing the Galerkin product of another operator was not refused (error %d)", model, (int)ierr);
      PetscCall(MatDestroy(&B));
    }
    PetscCall(MatDestroy(&Paij));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&Aref));
    A    = Ac;
    Aref = Ar;
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/* Part 2: one stiff cloth of n x n particles under midpoint2 MF with pc ("mg" or "icc"): final
   state and CG iterations per Newton iteration */
static PetscErrorCode StiffCloth(MPI_Comm comm, PetscInt n, const char pc[], Vec *q, Vec *v, PetscReal *kspn)
{
  char       copts[128], opts[512];
  MechSystem sys;
  TS         ts;
  PetscInt   its, lits, steps = 10;

  PetscFunctionBegin;
  /* mgb: point-block matrices; -asm: the assembled Jacobian instead of the matrix-free one */
  PetscCall(PetscSNPrintf(copts, sizeof(copts), "-cloth_n %" PetscInt_FMT " -cloth_mass 1e-2%s", n, !strncmp(pc, "mgb", 3) ? " -dm_mat_type baij" : ""));
  PetscCall(IntegCreateModel(comm, "cloth", copts, &sys));
  if (!strncmp(pc, "mg", 2)) PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -ksp_type cg -ksp_rtol 1e-10 -snes_rtol 1e-10 -pc_type mg -mg_levels_ksp_type chebyshev -mg_levels_pc_type pbjacobi", strstr(pc, "-asm") ? "" : "-ts_theta_matrix_free"));
  else PetscCall(PetscSNPrintf(opts, sizeof(opts), "-ts_theta_matrix_free -ksp_type cg -ksp_rtol 1e-10 -snes_rtol 1e-10 -pc_type bjacobi -sub_pc_type icc"));
  PetscCall(TestSolve(sys, TSMIDPOINT2, "stiff_", opts, 1e-3, steps, (steps + 0.5) * 1e-3, TS_EXACTFINALTIME_STEPOVER, NULL, NULL, q, v, &ts));
  PetscCall(TSGetSNESIterations(ts, &its));
  PetscCall(TSGetKSPIterations(ts, &lits));
  *kspn = (PetscReal)lits / (PetscReal)its;
  PetscCall(PetscPrintf(comm, "  cloth %4" PetscInt_FMT "^2 (light), midpoint2 MF, %-4s: %3" PetscInt_FMT " Newton, %4" PetscInt_FMT " CG iterations, %.1f per Newton iteration\n", n, pc, its, lits, (double)*kspn));
  PetscCall(TSDestroy(&ts));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckStiffCloth(MPI_Comm comm, PetscReal soltol, PetscReal growth)
{
  const PetscInt n[2] = {24, 48};
  PetscReal      kmg[2], kicc[2], kmgb, rel, relb;
  Vec            qm, vm, qi, vi, qb, vb;

  PetscFunctionBegin;
  for (PetscInt s = 0; s < 2; s++) {
    PetscCall(StiffCloth(comm, n[s], "mg", &qm, &vm, &kmg[s]));
    PetscCall(StiffCloth(comm, n[s], "icc", &qi, &vi, &kicc[s]));
    /* point-block (BAIJ) matrices on every level: the same operators to round-off */
    PetscCall(StiffCloth(comm, n[s], "mgb", &qb, &vb, &kmgb));
    PetscCall(TestRelDiff(qm, vm, qi, vi, &rel));
    PetscCall(TestRelDiff(qb, vb, qm, vm, &relb));
    PetscCall(PetscPrintf(comm, "  cloth %4" PetscInt_FMT "^2: final states with mg and icc differ by %.2e, mg with BAIJ and AIJ by %.2e\n", n[s], (double)rel, (double)relb));
    TestCheck(comm, rel <= soltol, "cloth %" PetscInt_FMT "^2: the final state with -pc_type mg differs from ICC's by %g (tolerance %g)", n[s], (double)rel, (double)soltol);
    TestCheck(comm, relb <= soltol && PetscAbsReal(kmgb - kmg[s]) <= 0.05 * kmg[s], "cloth %" PetscInt_FMT "^2: -pc_type mg with -dm_mat_type baij differs from aij: final states by %g, CG per Newton iteration %g against %g", n[s], (double)relb, (double)kmgb, (double)kmg[s]);
    PetscCall(VecDestroy(&qb));
    PetscCall(VecDestroy(&vb));
    if (s == 0) {
      PetscReal ka, kb;
      Vec       qa, va;

      /* the assembled Jacobian: tsmech forms the coarse operators of every new J, AIJ or BAIJ */
      PetscCall(StiffCloth(comm, n[s], "mg-asm", &qa, &va, &ka));
      PetscCall(StiffCloth(comm, n[s], "mgb-asm", &qb, &vb, &kb));
      PetscCall(TestRelDiff(qb, vb, qa, va, &relb));
      PetscCall(TestRelDiff(qa, va, qm, vm, &rel));
      PetscCall(PetscPrintf(comm, "  cloth %4" PetscInt_FMT "^2, assembled J: final states with BAIJ and AIJ differ by %.2e, from the matrix-free run's by %.2e\n", n[s], (double)relb, (double)rel));
      TestCheck(comm, relb <= soltol && rel <= soltol && PetscAbsReal(kb - ka) <= 0.05 * ka, "cloth %" PetscInt_FMT "^2, assembled J with -pc_type mg: BAIJ and AIJ differ by %g (from the matrix-free run by %g), CG per Newton iteration %g against %g", n[s], (double)relb, (double)rel, (double)kb, (double)ka);
      PetscCall(VecDestroy(&qa));
      PetscCall(VecDestroy(&va));
      PetscCall(VecDestroy(&qb));
      PetscCall(VecDestroy(&vb));
    }
    PetscCall(VecDestroy(&qm));
    PetscCall(VecDestroy(&vm));
    PetscCall(VecDestroy(&qi));
    PetscCall(VecDestroy(&vi));
  }
  PetscCall(PetscPrintf(comm, "  CG iterations per Newton iteration, %" PetscInt_FMT "^2 -> %" PetscInt_FMT "^2: mg x%.2f, icc x%.2f\n", n[0], n[1], (double)(kmg[1] / kmg[0]), (double)(kicc[1] / kicc[0])));
  TestCheck(comm, kmg[1] <= growth * kmg[0], "-pc_type mg: CG iterations per Newton iteration grew %g times when the grid was doubled (bound %g)", (double)(kmg[1] / kmg[0]), (double)growth);
  /* the test case is one where the grid matters: the one-level preconditioner degrades */
  TestCheck(comm, kicc[1] > growth * kicc[0], "ICC's iterations grew only %g times: the case does not test mesh independence", (double)(kicc[1] / kicc[0]));
  PetscFunctionReturn(0);
}

/* Part 3: one cloth run with frequent rebuilds, the coarse levels lagged or not: final state and
   the rebuilds (all, and of every level) */
static PetscErrorCode LagCloth(MPI_Comm comm, PetscBool lag, Vec *q, Vec *v, PetscInt *rebuilds, PetscInt *coarse)
{
  char       opts[512];
  MechSystem sys;
  TS         ts;
  PetscBool  flg;

  PetscFunctionBegin;
  PetscCall(IntegCreateModel(comm, "cloth", "-cloth_n 40", &sys));
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-ts_theta_matrix_free -ts_theta_pc_rebuild_growth 1.01 -ts_theta_pc_lag_coarse %d -ksp_type cg -ksp_rtol 1e-10 -snes_rtol 1e-10 -pc_type mg -mg_levels_ksp_type chebyshev -mg_levels_pc_type pbjacobi", (int)lag));
  PetscCall(TestSolve(sys, TSMIDPOINT2, "lag_", opts, 1e-3, 20, 20.5e-3, TS_EXACTFINALTIME_STEPOVER, NULL, NULL, q, v, &ts));
  PetscCall(TSMechGetMatrixFree(ts, NULL, NULL, rebuilds));
  PetscCall(TSMechGetPCLagCoarse(ts, &flg, coarse));
  TestCheck(comm, flg == lag, "TSMechGetPCLagCoarse() gives %d, -ts_theta_pc_lag_coarse was %d", (int)flg, (int)lag);
  PetscCall(PetscPrintf(comm, "  cloth 40^2, midpoint2 MF, mg, coarse levels %s: preconditioning matrix assembled %" PetscInt_FMT " times, every level %" PetscInt_FMT " times\n", lag ? "lagged" : "rebuilt", *rebuilds, *coarse));
  PetscCall(TSDestroy(&ts));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckLagCoarse(MPI_Comm comm, PetscReal soltol)
{
  Vec       q[2], v[2];
  PetscInt  rebuilds[2], coarse[2];
  PetscReal rel;

  PetscFunctionBegin;
  for (PetscInt lag = 0; lag < 2; lag++) PetscCall(LagCloth(comm, lag ? PETSC_TRUE : PETSC_FALSE, &q[lag], &v[lag], &rebuilds[lag], &coarse[lag]));
  PetscCall(TestRelDiff(q[1], v[1], q[0], v[0], &rel));
  PetscCall(PetscPrintf(comm, "  final states with lagged and rebuilt coarse levels differ by %.2e\n", (double)rel));
  TestCheck(comm, rel <= soltol, "lagged coarse levels change the final state by %g (tolerance %g)", (double)rel, (double)soltol);
  TestCheck(comm, coarse[0] == rebuilds[0] && rebuilds[0] > 2, "without -ts_theta_pc_lag_coarse every rebuild must renew every level (%" PetscInt_FMT " of %" PetscInt_FMT "), and the case must rebuild more than twice", coarse[0], rebuilds[0]);
  TestCheck(comm, coarse[1] >= 1 && coarse[1] < rebuilds[1], "with -ts_theta_pc_lag_coarse some rebuilds must keep the coarse levels (%" PetscInt_FMT " of %" PetscInt_FMT " renewed every level)", coarse[1], rebuilds[1]);
  for (PetscInt i = 0; i < 2; i++) {
    PetscCall(VecDestroy(&q[i]));
    PetscCall(VecDestroy(&v[i]));
  }
  PetscFunctionReturn(0);
}

/* Part 4: refusals, with the option named */
static PetscErrorCode CheckRefusals(MPI_Comm comm)
{
  MechSystem     sys;
  KSP            ksp;
  PC             pc;
  Mat            J;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(IntegCreateModel(comm, "cloth", "-cloth_n 12", &sys));
  PetscCall(PetscOptionsSetValue(NULL, "-gridmg_pc_mg_levels", "9"));
  PetscCall(MechSystemCreateOperator(sys, &J));
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, "gridmg_"));
  PetscCall(KSPSetOperators(ksp, J, J));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCMG));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(PetscOptionsClearValue(NULL, "-gridmg_pc_mg_levels"));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MechSystemSetUpPCMG(sys, pc);
  PetscCall(PetscPopErrorHandler());
  TestCheck(comm, ierr == PETSC_ERR_ARG_OUTOFRANGE, "-pc_mg_levels 9 on a 12 x 12 grid was accepted (error %d)", (int)ierr);
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&J));
  PetscCall(MechSystemDestroy(&sys));

  PetscCall(IntegCreateModel(comm, "pair", "", &sys));
  PetscCall(PCCreate(comm, &pc));
  PetscCall(PCSetType(pc, PCMG));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MechSystemSetUpPCMG(sys, pc);
  PetscCall(PetscPopErrorHandler());
  TestCheck(comm, ierr == PETSC_ERR_ARG_WRONGSTATE, "-pc_type mg on a model without a grid was accepted (error %d)", (int)ierr);
  PetscCall(PCDestroy(&pc));
  PetscCall(MechSystemDestroy(&sys));
  PetscCall(PetscPrintf(comm, "  refusals: too many levels, no grid\n"));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  PetscReal   soltol = 1e-8, growth = 1.3;
  const char *grids[][2] = {
      {"chain",   "-chain_n 62"  },
      {"cloth",   "-cloth_n 30"  },
      {"lattice", "-lattice_n 24"},
  };

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-soltol", &soltol, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-growth", &growth, NULL));
  for (size_t g = 0; g < sizeof(grids) / sizeof(grids[0]); g++) PetscCall(CheckInterpolation(comm, grids[g][0], grids[g][1], PETSC_FALSE));
  PetscCall(CheckInterpolation(comm, "cloth", "-cloth_n 30", PETSC_TRUE));
  for (size_t g = 0; g < sizeof(grids) / sizeof(grids[0]); g++) PetscCall(CheckGalerkin(comm, grids[g][0], grids[g][1], PETSC_FALSE));
  for (size_t g = 0; g < sizeof(grids) / sizeof(grids[0]); g++) PetscCall(CheckGalerkin(comm, grids[g][0], grids[g][1], PETSC_TRUE));
  PetscCall(CheckStiffCloth(comm, soltol, growth));
  PetscCall(CheckLagCoarse(comm, soltol));
  PetscCall(CheckRefusals(comm));
  PetscCall(PetscFinalize());
  return 0;
}
