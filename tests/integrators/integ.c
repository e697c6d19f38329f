#include "integ.h"

PetscErrorCode IntegCreateModel(MPI_Comm comm, const char name[], const char opts[], MechSystem *sys)
{
  PetscFunctionBegin;
  if (opts) PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(MechCreateModel(comm, name, sys));
  PetscCall(TestClearOptions(opts));
  PetscFunctionReturn(0);
}

PetscErrorCode IntegKickChain(MechSystem sys, PetscInt n, PetscInt mode)
{
  Vec          q, v;
  PetscScalar *va;
  PetscInt     rs, re;

  PetscFunctionBegin;
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(VecGetOwnershipRange(v, &rs, &re));
  PetscCall(VecGetArray(v, &va));
  for (PetscInt j = rs; j < re; j++) {
    PetscInt i = j / 3, c = j % 3;
    if (c == 1) va[j - rs] = 2.0 * PetscSinReal(PETSC_PI * i / (n - 1));
    if (c == 2) va[j - rs] = 0.5 * PetscCosReal(mode * PETSC_PI * i / (n - 1));
  }
  PetscCall(VecRestoreArray(v, &va));
  PetscCall(MechSystemSetInitialState(sys, q, v));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}

PetscErrorCode IntegMatToDense(Mat A, PetscInt *n, PetscReal **a)
{
  Mat                D;
  const PetscScalar *d;
  PetscInt           N, M;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &N, &M));
  PetscCheck(N == M, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_SIZ, "Square matrix expected");
  /* gather the whole matrix on every rank through a redundant dense copy */
  {
    IS   is;
    Mat *sub;
    PetscCall(ISCreateStride(PETSC_COMM_SELF, N, 0, 1, &is));
    PetscCall(MatCreateSubMatrices(A, 1, &is, &is, MAT_INITIAL_MATRIX, &sub));
    PetscCall(MatConvert(sub[0], MATSEQDENSE, MAT_INITIAL_MATRIX, &D));
    PetscCall(MatDestroySubMatrices(1, &sub));
    PetscCall(ISDestroy(&is));
  }
  PetscCall(PetscMalloc1(N * N, a));
  PetscCall(MatDenseGetArrayRead(D, &d));
  /* column-major (leading dimension N) to row-major */
  for (PetscInt i = 0; i < N; i++)
    for (PetscInt j = 0; j < N; j++) (*a)[i * N + j] = PetscRealPart(d[j * N + i]);
  PetscCall(MatDenseRestoreArrayRead(D, &d));
  PetscCall(MatDestroy(&D));
  *n = N;
  PetscFunctionReturn(0);
}

PetscErrorCode IntegVecToArray(Vec x, PetscReal *a)
{
  VecScatter         sc;
  Vec                all;
  const PetscScalar *xa;
  PetscInt           N;

  PetscFunctionBegin;
  PetscCall(VecGetSize(x, &N));
  PetscCall(VecScatterCreateToAll(x, &sc, &all));
  PetscCall(VecScatterBegin(sc, x, all, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, x, all, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(all, &xa));
  for (PetscInt i = 0; i < N; i++) a[i] = PetscRealPart(xa[i]);
  PetscCall(VecRestoreArrayRead(all, &xa));
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&all));
  PetscFunctionReturn(0);
}

PetscErrorCode IntegDenseSolve(PetscInt n, PetscReal *A, PetscReal *b)
{
  PetscFunctionBegin;
  for (PetscInt k = 0; k < n; k++) {
    PetscInt  p    = k;
    PetscReal amax = PetscAbsReal(A[k * n + k]);
    for (PetscInt i = k + 1; i < n; i++)
      if (PetscAbsReal(A[i * n + k]) > amax) {
        amax = PetscAbsReal(A[i * n + k]);
        p    = i;
      }
    PetscCheck(amax > 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Singular matrix in the dense test solve (column %" PetscInt_FMT ")", k);
    if (p != k) {
      for (PetscInt j = 0; j < n; j++) {
        PetscReal t  = A[k * n + j];
        A[k * n + j] = A[p * n + j];
        A[p * n + j] = t;
      }
      PetscReal t = b[k];
      b[k]        = b[p];
      b[p]        = t;
    }
    for (PetscInt i = k + 1; i < n; i++) {
      PetscReal l = A[i * n + k] / A[k * n + k];
      if (l == 0) continue;
      for (PetscInt j = k; j < n; j++) A[i * n + j] -= l * A[k * n + j];
      b[i] -= l * b[k];
    }
  }
  for (PetscInt k = n - 1; k >= 0; k--) {
    PetscReal s = b[k];
    for (PetscInt j = k + 1; j < n; j++) s -= A[k * n + j] * b[j];
    b[k] = s / A[k * n + k];
  }
  PetscFunctionReturn(0);
}

PetscReal IntegRelDiffArray(PetscInt n, const PetscReal *a, const PetscReal *b)
{
  PetscReal d = 0, s = 0;
  for (PetscInt i = 0; i < n; i++) {
    d = PetscMax(d, PetscAbsReal(a[i] - b[i]));
    s = PetscMax(s, PetscAbsReal(b[i]));
  }
  return s > 0 ? d / s : d;
}

PetscErrorCode IntegRun(MechSystem sys, const char type[], const char opts[], PetscReal dt, PetscInt nsteps, PetscErrorCode (*monitor)(TS, PetscInt, PetscReal, Vec, void *), void *ctx, Vec *q, Vec *v, PetscInt *its)
{
  static int runs = 0;
  char       prefix[32];
  TS         ts;
  PetscInt   steps;
  PetscReal  t;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "integ%d_", runs++));
  PetscCall(TestSolve(sys, type, prefix, opts, dt, nsteps, (nsteps + 0.5) * dt, TS_EXACTFINALTIME_STEPOVER, monitor, ctx, q, v, &ts));
  PetscCall(TSGetStepNumber(ts, &steps));
  PetscCall(TSGetTime(ts, &t));
  /* a rejected step (e.g. a SNES failure with -ts_max_snes_failures -1) silently shrinks dt */
  PetscCheck(steps == nsteps && PetscAbsReal(t - nsteps * dt) <= 1e-12 * nsteps * dt, PetscObjectComm((PetscObject)sys), PETSC_ERR_PLIB, "TS %s (%s) took %" PetscInt_FMT " steps to t = %g instead of %" PetscInt_FMT " steps of %g", type, opts ? opts : "", steps, (double)t, nsteps, (double)dt);
  if (its) PetscCall(TSGetSNESIterations(ts, its));
  PetscCall(TSDestroy(&ts));
  PetscFunctionReturn(0);
}

PetscErrorCode IntegNumberAfter(MPI_Comm comm, const char name[], const char key[], PetscInt *num)
{
  PetscMPIInt rank;
  long        val = -1;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    FILE *fp;
    char  line[1024], *at;

    fp = fopen(name, "r");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot read %s", name);
    while (fgets(line, sizeof(line), fp))
      if ((at = strstr(line, key))) {
        if (sscanf(at + strlen(key), "%ld", &val) != 1) val = 0;
        break;
      }
    (void)fclose(fp);
  }
  PetscCallMPI(MPI_Bcast(&val, 1, MPI_LONG, 0, comm));
  *num = (PetscInt)val;
  PetscFunctionReturn(0);
}
