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
  MechSystemSetUpPCMG - Gives a `PCMG` the geometric hierarchy of the system's `DMDA` grid.

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
  (-pc_mg_galerkin both) and the smoothers use the preconditioning matrix (-pc_use_amat 0): a
  matrix-free Jacobian has no entries to multiply. The PC also needs the DMDA as its DM, inactive
  (`KSPSetDM()`, `KSPSetDMActive()`), which `TSMechSetSolution()` gives the KSP of a second-order type.
  Smoothers are PETSc's defaults or the -mg_levels_ options; docs/solvers.md §4 has the measured
  choice for the cloth.

.seealso: `TSMechSetSolution()`, `MechSystemGetDM()`, `PCMG`, `PCMGSetInterpolation()`
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
