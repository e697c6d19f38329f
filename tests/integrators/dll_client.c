static const char help[] = "A plain PETSc program (petscts.h only, not linked with libtsmech) that integrates a 2-dof\n"
                           "oscillator through TSSetI2Function/TSSetI2Jacobian/TS2SetSolution and gets the tsmech\n"
                           "types through -dll_append <path>/libtsmech.so. Runs dt, dt/2, dt/4 and checks the\n"
                           "observed order of convergence against the exact solution.\n"
                           "  -ts_type <midpoint2>   the TS type (e.g. midpoint2, cn2, beuler2, theta2)\n"
                           "  -expected_order <2>    order to check (within 0.1)\n"
                           "  -dt <0.05> -T <2>\n";

/*
  M q'' + K q = 0 with M = I and K = [5 -2; -2 5] (eigenvalues 3 and 7, eigenvectors (1, 1) and
  (1, -1)); from q(0) = (1, 0), v(0) = 0:
    q(t) = 1/2 (cos(w1 t) + cos(w2 t), cos(w1 t) - cos(w2 t)),  w1 = sqrt 3, w2 = sqrt 7.
*/
#include <petscts.h>

static const PetscReal Kmat[2][2] = {
    {5.0,  -2.0},
    {-2.0, 5.0 }
};

static PetscErrorCode I2Function(TS ts, PetscReal t, Vec q, Vec v, Vec a, Vec F, void *ctx)
{
  const PetscScalar *qa, *aa;
  PetscScalar       *fa;
  PetscInt           n;

  PetscFunctionBeginUser;
  (void)ts;
  (void)t;
  (void)v;
  (void)ctx;
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArrayRead(q, &qa));
  PetscCall(VecGetArrayRead(a, &aa));
  PetscCall(VecGetArray(F, &fa));
  if (n)
    for (PetscInt i = 0; i < 2; i++) fa[i] = aa[i] + Kmat[i][0] * qa[0] + Kmat[i][1] * qa[1];
  PetscCall(VecRestoreArray(F, &fa));
  PetscCall(VecRestoreArrayRead(a, &aa));
  PetscCall(VecRestoreArrayRead(q, &qa));
  PetscFunctionReturn(0);
}

/* dF/dq + shiftV dF/dv + shiftA dF/da = K + shiftA M */
static PetscErrorCode I2Jacobian(TS ts, PetscReal t, Vec q, Vec v, Vec a, PetscReal shiftV, PetscReal shiftA, Mat J, Mat P, void *ctx)
{
  PetscInt n;

  PetscFunctionBeginUser;
  (void)ts;
  (void)t;
  (void)v;
  (void)a;
  (void)shiftV;
  (void)ctx;
  PetscCall(VecGetLocalSize(q, &n));
  if (n)
    for (PetscInt i = 0; i < 2; i++)
      for (PetscInt j = 0; j < 2; j++) PetscCall(MatSetValue(P, i, j, Kmat[i][j] + (i == j ? shiftA : 0.0), INSERT_VALUES));
  PetscCall(MatAssemblyBegin(P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(P, MAT_FINAL_ASSEMBLY));
  if (J != P) {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(0);
}

/* Integrate to T with step dt; error of (q, v) against the exact solution (2-norm). */
static PetscErrorCode Run(PetscReal dt, PetscReal T, PetscReal *err, char type[], size_t len)
{
  MPI_Comm    comm = PETSC_COMM_WORLD;
  PetscMPIInt rank;
  PetscInt    nloc;
  TS          ts;
  SNES        snes;
  KSP         ksp;
  PC          pc;
  Vec         q, v, r, qs, vs;
  Mat         J;
  PetscReal   t, e = 0;
  const char *tstype;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  nloc = rank == 0 ? 2 : 0;
  PetscCall(VecCreateMPI(comm, nloc, 2, &q));
  PetscCall(VecDuplicate(q, &v));
  PetscCall(VecDuplicate(q, &r));
  PetscCall(VecZeroEntries(q));
  PetscCall(VecZeroEntries(v));
  if (rank == 0) PetscCall(VecSetValue(q, 0, 1.0, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(q));
  PetscCall(VecAssemblyEnd(q));
  PetscCall(MatCreateAIJ(comm, nloc, nloc, 2, 2, 2, NULL, 0, NULL, &J));

  PetscCall(TSCreate(comm, &ts));
  PetscCall(TSSetI2Function(ts, r, I2Function, NULL));
  PetscCall(TSSetI2Jacobian(ts, J, J, I2Jacobian, NULL));
  PetscCall(TSSetTimeStep(ts, dt));
  PetscCall(TSSetMaxTime(ts, T));
  PetscCall(TSSetMaxSteps(ts, (PetscInt)(T / dt + 0.5)));
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSGetSNES(ts, &snes));
  PetscCall(SNESSetTolerances(snes, 1e-14, 1e-14, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCLU));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(TS2SetSolution(ts, q, v));
  PetscCall(TSSolve(ts, NULL));
  PetscCall(TSGetType(ts, &tstype));
  PetscCall(PetscStrncpy(type, tstype, len));
  {
    TSConvergedReason reason;
    PetscCall(TSGetConvergedReason(ts, &reason));
    PetscCheck(reason >= 0, comm, PETSC_ERR_NOT_CONVERGED, "TS %s diverged: %s", tstype, TSConvergedReasons[reason]);
  }
  PetscCall(TSGetTime(ts, &t));
  PetscCheck(PetscAbsReal(t - T) < 1e-10, comm, PETSC_ERR_PLIB, "TS stopped at t = %g instead of %g", (double)t, (double)T);
  PetscCall(TS2GetSolution(ts, &qs, &vs));
  if (rank == 0) {
    const PetscReal    w1 = PetscSqrtReal(3.0), w2 = PetscSqrtReal(7.0);
    const PetscReal    c1 = PetscCosReal(w1 * t), c2 = PetscCosReal(w2 * t), s1 = PetscSinReal(w1 * t), s2 = PetscSinReal(w2 * t);
    const PetscReal    qe[2] = {0.5 * (c1 + c2), 0.5 * (c1 - c2)}, ve[2] = {-0.5 * (w1 * s1 + w2 * s2), -0.5 * (w1 * s1 - w2 * s2)};
    const PetscScalar *qa, *va;
    PetscCall(VecGetArrayRead(qs, &qa));
    PetscCall(VecGetArrayRead(vs, &va));
    for (PetscInt i = 0; i < 2; i++) e += PetscSqr(PetscRealPart(qa[i]) - qe[i]) + PetscSqr(PetscRealPart(va[i]) - ve[i]);
    PetscCall(VecRestoreArrayRead(vs, &va));
    PetscCall(VecRestoreArrayRead(qs, &qa));
  }
  PetscCallMPI(MPI_Bcast(&e, 1, MPIU_REAL, 0, comm));
  *err = PetscSqrtReal(e);
  PetscCall(TSDestroy(&ts));
  PetscCall(MatDestroy(&J));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscReal dt = 0.05, T = 2.0, expected = 2.0, err[3], p1, p2;
  char      type[64] = "";

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-dt", &dt, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-T", &T, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-expected_order", &expected, NULL));
  for (PetscInt k = 0; k < 3; k++) PetscCall(Run(dt / (1 << k), T, &err[k], type, sizeof(type)));
  p1 = PetscLog2Real(err[0] / err[1]);
  p2 = PetscLog2Real(err[1] / err[2]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TS type %s (loaded with -dll_append): errors %.4e %.4e %.4e, observed orders %.3f %.3f (expected %g)\n", type, (double)err[0], (double)err[1], (double)err[2], (double)p1, (double)p2, (double)expected));
  PetscCheck(PetscAbsReal(p2 - expected) <= 0.1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Observed order %.3f of TS type %s differs from %g by more than 0.1", (double)p2, type, (double)expected);
  PetscCall(PetscFinalize());
  return 0;
}
