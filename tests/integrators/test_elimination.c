static const char help[] = "Nonlinear elimination near the fixed dofs (-ts_theta_ne_depth, MechSystemSetPatch()).\n"
                           "1. The grid models' force and tangent on a patch (every other owned point that is not\n"
                           "   fixed, so that couplings to points outside it are left out) against the whole system's:\n"
                           "   the force rows bit for bit, the tangent block to round-off, for the chain, the damped\n"
                           "   cloth with its sphere, and the lattice, at a perturbed state.\n"
                           "2. The light cloth (48^2, theta^2 tau^2 k / m = 5.8, as the 128^2 cloth of the benchmark) under\n"
                           "   midpoint2 and cn2 with the matrix-free Jacobian, the extrapolated guess and Eisenstat-Walker:\n"
                           "   with the elimination (depth 12, and the automatic patch) the final positions are those of\n"
                           "   the plain run to Newton's tolerance, the patch took local Newton iterations, and the global\n"
                           "   CG iterations drop (Newton's do not grow).\n"
                           "   The automatic patch covers 8 decay lengths theta tau sqrt(k/m) of the step (depth about 11).\n"
                           "   With a patch solver that overshoots, every local update makes the patch residual grow and is\n"
                           "   taken back: the run is the plain one bit for bit.\n"
                           "3. Refusals: a depth below 1, a reach of 0, a model without a patch evaluation, the linearized mode.\n"
                           "Run on several ranks (each rank eliminates its own patch points).\n"
                           "  -soltol <1e-8> agreement of the final positions\n";

#include "integ.h"

/* Part 1: force and tangent of a patch against the system's on the same state */
static PetscErrorCode CheckPatch(MPI_Comm comm, const char model[], const char copts[])
{
  MechSystem             sys;
  DM                     dm;
  Vec                    q, v, f, ql, vl;
  Mat                    J, *sub, Jp;
  IS                     fixed, isrow;
  ISLocalToGlobalMapping ltog;
  PetscRandom            rnd;
  const PetscInt        *gidx, *fidx;
  const PetscScalar     *fa;
  PetscScalar           *fp;
  PetscInt              *pts, *patch, *gblk, *loc, bs, nl, rstart, rend, nb, n = 0, nf = 0, b, c, r;
  PetscBool             *isfixed;
  PetscReal              fdiff = 0, jdiff, jnorm;
  const PetscReal        cK = 0.7, cD = 0.3;

  PetscFunctionBegin;
  PetscCall(IntegCreateModel(comm, model, copts, &sys));
  PetscCall(MechSystemGetDM(sys, &dm));
  PetscCall(MechSystemCreateState(sys, &q, &v));
  /* a state away from the initial one: every spring stretched or compressed, moving */
  PetscCall(PetscRandomCreate(comm, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -0.02, 0.02));
  PetscCall(VecDuplicate(q, &f));
  PetscCall(VecSetRandom(f, rnd));
  PetscCall(VecAXPY(q, 1.0, f));
  PetscCall(VecSetRandom(v, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MechSystemComputeForce(sys, 0.1, q, v, f));
  PetscCall(MechSystemCreateOperator(sys, &J));
  PetscCall(MechSystemComputeOperator(sys, 0.1, q, v, cK, cD, 0.0, J));

  /* the patch: every other owned point that is not fixed */
  PetscCall(DMGetLocalToGlobalMapping(dm, &ltog));
  PetscCall(ISLocalToGlobalMappingGetBlockSize(ltog, &bs));
  PetscCall(ISLocalToGlobalMappingGetSize(ltog, &nl));
  nl /= bs;
  PetscCall(VecGetOwnershipRange(q, &rstart, &rend));
  nb = (rend - rstart) / bs;
  PetscCall(PetscCalloc1(nb, &isfixed));
  PetscCall(MechSystemGetFixed(sys, &fixed));
  if (fixed) PetscCall(ISGetLocalSize(fixed, &nf));
  if (fixed) PetscCall(ISGetIndices(fixed, &fidx));
  for (r = 0; r < nf; r++) isfixed[(fidx[r] - rstart) / bs] = PETSC_TRUE;
  if (fixed) PetscCall(ISRestoreIndices(fixed, &fidx));
  PetscCall(PetscMalloc4(nb, &loc, nl, &patch, nb, &pts, nb, &gblk));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(ltog, &gidx));
  for (b = 0; b < nl; b++) {
    patch[b] = -1;
    if (gidx[b] >= rstart / bs && gidx[b] < rend / bs) loc[gidx[b] - rstart / bs] = b;
  }
  PetscCall(ISLocalToGlobalMappingRestoreBlockIndices(ltog, &gidx));
  for (b = 0; b < nb; b += 2) {
    if (isfixed[b]) continue;
    gblk[n]       = rstart / bs + b;
    pts[n]        = loc[b];
    patch[loc[b]] = n;
    n++;
  }
  TestCheck(comm, bs == 3, "%s: block size %" PetscInt_FMT ", not 3", model, bs);

  /* the force rows, bit for bit */
  PetscCall(DMCreateLocalVector(dm, &ql));
  PetscCall(VecDuplicate(ql, &vl));
  PetscCall(DMGlobalToLocal(dm, q, INSERT_VALUES, ql));
  PetscCall(DMGlobalToLocal(dm, v, INSERT_VALUES, vl));
  PetscCall(PetscMalloc1(bs * n, &fp));
  PetscCall(MechSystemComputePatch(sys, 0.1, ql, vl, n, pts, patch, 0, 0, fp, NULL));
  PetscCall(VecGetArrayRead(f, &fa));
  for (r = 0; r < n; r++)
    for (c = 0; c < bs; c++) fdiff = PetscMax(fdiff, PetscAbsScalar(fp[bs * r + c] - fa[bs * (gblk[r] - rstart / bs) + c]));
  PetscCall(VecRestoreArrayRead(f, &fa));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &fdiff, 1, MPIU_REAL, MPIU_MAX, comm));
  TestCheck(comm, fdiff == 0, "%s: the patch force differs from the system's rows by %g (must be bit for bit)", model, (double)fdiff);

  /* the tangent block, against the system's operator restricted to the patch */
  PetscCall(ISCreateBlock(PETSC_COMM_SELF, bs, n, gblk, PETSC_COPY_VALUES, &isrow));
  PetscCall(MatCreateSubMatrices(J, 1, &isrow, &isrow, MAT_INITIAL_MATRIX, &sub));
  PetscCall(MatDuplicate(sub[0], MAT_DO_NOT_COPY_VALUES, &Jp));
  PetscCall(MatZeroEntries(Jp));
  PetscCall(MechSystemComputePatch(sys, 0.1, ql, vl, n, pts, patch, cK, cD, NULL, Jp));
  PetscCall(MatAssemblyBegin(Jp, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Jp, MAT_FINAL_ASSEMBLY));
  PetscCall(MatNorm(sub[0], NORM_FROBENIUS, &jnorm));
  PetscCall(MatAXPY(Jp, -1.0, sub[0], SAME_NONZERO_PATTERN));
  PetscCall(MatNorm(Jp, NORM_FROBENIUS, &jdiff));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &jdiff, 1, MPIU_REAL, MPIU_MAX, comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &jnorm, 1, MPIU_REAL, MPIU_MAX, comm));
  TestCheck(comm, jnorm > 0 && jdiff <= 1e-13 * jnorm, "%s: the patch tangent differs from the system's by %g (norm %g)", model, (double)jdiff, (double)jnorm);
  PetscCall(PetscPrintf(comm, "  %-7s patch force: bit for bit; tangent: %.1e relative\n", model, (double)(jdiff / jnorm)));

  PetscCall(MatDestroy(&Jp));
  PetscCall(MatDestroySubMatrices(1, &sub));
  PetscCall(ISDestroy(&isrow));
  PetscCall(PetscFree(fp));
  PetscCall(PetscFree4(loc, patch, pts, gblk));
  PetscCall(PetscFree(isfixed));
  PetscCall(VecDestroy(&ql));
  PetscCall(VecDestroy(&vl));
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&J));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/* Part 2: the light cloth under type, without the elimination (depth 0), with the automatic patch
   (depth -1) or with a given depth; depth returns the one used */
static PetscErrorCode LightCloth(MPI_Comm comm, const char type[], PetscInt *depth, Vec *q, Vec *v, PetscInt *its, PetscInt *lits, PetscInt *neits)
{
  char       opts[512], ne[256] = "";
  MechSystem sys;
  TS         ts;
  PetscInt   steps = 10;

  PetscFunctionBegin;
  PetscCall(IntegCreateModel(comm, "cloth", "-cloth_n 48 -cloth_mass 0.1", &sys));
  /* depth -2: a patch solver that overshoots (four times a Jacobi step): every local update makes
     the patch residual grow and must be taken back */
  if (*depth == -2) PetscCall(PetscStrncpy(ne, "-ts_theta_ne -ts_theta_ne_ksp_type richardson -ts_theta_ne_ksp_richardson_scale 4 -ts_theta_ne_pc_type jacobi -ts_theta_ne_ksp_max_it 1 -ts_theta_ne_ksp_norm_type none", sizeof(ne)));
  else if (*depth < 0) PetscCall(PetscStrncpy(ne, "-ts_theta_ne", sizeof(ne)));
  else if (*depth > 0) PetscCall(PetscSNPrintf(ne, sizeof(ne), "-ts_theta_ne_depth %" PetscInt_FMT, *depth));
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-ts_theta_matrix_free -ts_theta_initial_guess_extrapolate -ksp_type cg -snes_ksp_ew -snes_rtol 1e-6 -pc_type bjacobi -sub_pc_type icc %s", ne));
  PetscCall(TestSolve(sys, type, "ne_", opts, 1e-3, steps, (steps + 0.5) * 1e-3, TS_EXACTFINALTIME_STEPOVER, NULL, NULL, q, v, &ts));
  PetscCall(TSGetSNESIterations(ts, its));
  PetscCall(TSGetKSPIterations(ts, lits));
  PetscCall(TSMechGetNonlinearElimination(ts, NULL, depth, neits));
  PetscCall(PetscPrintf(comm, "  cloth 48^2 (light), %-9s %-20.20s depth %2" PetscInt_FMT ": %3" PetscInt_FMT " Newton, %4" PetscInt_FMT " CG, %3" PetscInt_FMT " local Newton iterations\n", type, ne[0] ? ne : "(plain)", *depth, *its, *lits, *neits));
  PetscCall(TSDestroy(&ts));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckLightCloth(MPI_Comm comm, PetscReal soltol)
{
  const char    *types[3]  = {TSMIDPOINT2, TSMIDPOINT2, TSCN2};
  const PetscInt depths[3] = {12, -1, -1}; /* given, automatic */

  PetscFunctionBegin;
  for (PetscInt t = 0; t < 3; t++) {
    Vec       q0, v0, q1, v1;
    PetscInt  d0 = 0, d1 = depths[t], its0, lits0, ne0, its1, lits1, ne1;
    PetscReal dq, nq;

    PetscCall(LightCloth(comm, types[t], &d0, &q0, &v0, &its0, &lits0, &ne0));
    PetscCall(LightCloth(comm, types[t], &d1, &q1, &v1, &its1, &lits1, &ne1));
    PetscCall(VecAXPY(q1, -1.0, q0));
    PetscCall(VecNorm(q1, NORM_INFINITY, &dq));
    PetscCall(VecNorm(q0, NORM_INFINITY, &nq));
    TestCheck(comm, dq <= soltol * nq, "%s: the final positions with nonlinear elimination differ by %g (relative) from the plain run's", types[t], (double)(dq / nq));
    TestCheck(comm, ne0 == 0 && d0 == 0 && ne1 > 0, "%s: local Newton iterations %" PetscInt_FMT " without and %" PetscInt_FMT " with the elimination", types[t], ne0, ne1);
    TestCheck(comm, its1 <= its0 && lits1 < lits0, "%s: the elimination did not save global iterations (%" PetscInt_FMT " / %" PetscInt_FMT " Newton / CG against %" PetscInt_FMT " / %" PetscInt_FMT ")", types[t], its1, lits1, its0, lits0);
    /* the automatic patch: 8 decay lengths theta tau sqrt(k/m) = 8 x 2.5 spacings, 2 spacings per graph step */
    if (depths[t] < 0) TestCheck(comm, d1 >= 9 && d1 <= 13, "%s: automatic patch of depth %" PetscInt_FMT ", expected about 11", types[t], d1);
    else TestCheck(comm, d1 == depths[t], "%s: patch of depth %" PetscInt_FMT ", %" PetscInt_FMT " was given", types[t], d1, depths[t]);
    PetscCall(PetscPrintf(comm, "  %-9s final states %.1e apart\n", types[t], (double)(dq / nq)));
    PetscCall(VecDestroy(&q0));
    PetscCall(VecDestroy(&v0));
    PetscCall(VecDestroy(&q1));
    PetscCall(VecDestroy(&v1));
  }
  PetscFunctionReturn(0);
}

/* Part 2b: updates that make the patch residual grow are taken back: the run is the plain one, bit for bit */
static PetscErrorCode CheckTakeBack(MPI_Comm comm)
{
  Vec       q0, v0, q1, v1;
  PetscInt  d0 = 0, d1 = -2, its0, lits0, ne0, its1, lits1, ne1;
  PetscReal dq, dv;

  PetscFunctionBegin;
  PetscCall(LightCloth(comm, TSMIDPOINT2, &d0, &q0, &v0, &its0, &lits0, &ne0));
  PetscCall(LightCloth(comm, TSMIDPOINT2, &d1, &q1, &v1, &its1, &lits1, &ne1));
  PetscCall(VecAXPY(q1, -1.0, q0));
  PetscCall(VecAXPY(v1, -1.0, v0));
  PetscCall(VecNorm(q1, NORM_INFINITY, &dq));
  PetscCall(VecNorm(v1, NORM_INFINITY, &dv));
  TestCheck(comm, ne1 > 0, "the overshooting patch solver took no local iteration");
  TestCheck(comm, dq == 0 && dv == 0 && its1 == its0 && lits1 == lits0, "updates that made the patch residual grow were not all taken back: final state %g / %g from the plain run's, %" PetscInt_FMT " / %" PetscInt_FMT " Newton / CG against %" PetscInt_FMT " / %" PetscInt_FMT, (double)dq, (double)dv, its1, lits1, its0, lits0);
  PetscCall(PetscPrintf(comm, "  overshooting patch solver: every update taken back, the plain run bit for bit\n"));
  PetscCall(VecDestroy(&q0));
  PetscCall(VecDestroy(&v0));
  PetscCall(VecDestroy(&q1));
  PetscCall(VecDestroy(&v1));
  PetscFunctionReturn(0);
}

/* Part 3: what is refused at set-up, with the error code */
static PetscErrorCode ExpectRefusal(MPI_Comm comm, const char model[], const char copts[], const char type[], const char opts[], PetscErrorCode expected)
{
  MechSystem     sys;
  TS             ts = NULL;
  Vec            q = NULL, v = NULL;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(IntegCreateModel(comm, model, copts, &sys));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = TestSolve(sys, type, "nebad_", opts, 1e-3, 2, 2.5e-3, TS_EXACTFINALTIME_STEPOVER, NULL, NULL, &q, &v, &ts);
  PetscCall(PetscPopErrorHandler());
  TestCheck(comm, ierr == expected, "%s %s %s: error %d, expected %d", model, type, opts, (int)ierr, (int)expected);
  PetscCall(PetscPrintf(comm, "  refused: %s, %s %s\n", model, type, opts));
  PetscCall(TestClearPrefixedOptions("nebad_", opts));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(TSDestroy(&ts));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm  comm;
  PetscReal soltol = 1e-8;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-soltol", &soltol, NULL));
  PetscCall(CheckPatch(comm, "chain", "-chain_n 40 -chain_c 0.2"));
  PetscCall(CheckPatch(comm, "cloth", "-cloth_n 13 -cloth_c 0.2 -cloth_sphere -cloth_sphere_radius 0.6"));
  PetscCall(CheckPatch(comm, "lattice", "-lattice_n 6"));
  PetscCall(CheckLightCloth(comm, soltol));
  PetscCall(CheckTakeBack(comm));
  PetscCall(ExpectRefusal(comm, "cloth", "-cloth_n 8", TSMIDPOINT2, "-ts_theta_ne_depth 0", PETSC_ERR_ARG_OUTOFRANGE));
  PetscCall(ExpectRefusal(comm, "cloth", "-cloth_n 8", TSMIDPOINT2, "-ts_theta_ne -ts_theta_ne_reach 0", PETSC_ERR_ARG_OUTOFRANGE));
  PetscCall(ExpectRefusal(comm, "kepler", "", TSMIDPOINT2, "-ts_theta_ne", PETSC_ERR_ARG_INCOMP));
  PetscCall(ExpectRefusal(comm, "cloth", "-cloth_n 8", TSMIDPOINT2, "-ts_theta_ne_depth 2 -ts_theta_linearized", PETSC_ERR_ARG_INCOMP));
  PetscCall(PetscPrintf(comm, "nonlinear elimination: OK\n"));
  PetscCall(PetscFinalize());
  return 0;
}
