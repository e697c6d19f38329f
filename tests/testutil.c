#include "testutil.h"

/* An option name, not a value: values may be negative numbers such as -1 or -.5 */
static PetscBool TestIsOptionName(const char tok[])
{
  return tok[0] == '-' && !(tok[1] >= '0' && tok[1] <= '9') && tok[1] != '.' ? PETSC_TRUE : PETSC_FALSE;
}

/* Sets (set) or clears the options of opts ("-name [value] ...") under the prefix */
static PetscErrorCode TestPrefixedOptions(MPI_Comm comm, const char prefix[], const char opts[], PetscBool set)
{
  char **args = NULL;
  int    argc = 0;

  PetscFunctionBegin;
  if (!opts) PetscFunctionReturn(0);
  PetscCall(PetscStrToArray(opts, ' ', &argc, &args));
  for (int i = 0; i < argc; i++) {
    char        name[256];
    const char *value = NULL;

    if (!TestIsOptionName(args[i])) {
      PetscCheck(!set, comm, PETSC_ERR_ARG_WRONG, "Test options must start with an option name: %s", args[i]);
      continue;
    }
    PetscCall(PetscSNPrintf(name, sizeof(name), "-%s%s", prefix, args[i] + 1));
    if (!set) {
      PetscCall(PetscOptionsClearValue(NULL, name));
      continue;
    }
    if (i + 1 < argc && !TestIsOptionName(args[i + 1])) value = args[++i];
    PetscCall(PetscOptionsSetValue(NULL, name, value));
  }
  PetscCall(PetscStrToArrayDestroy(argc, args));
  PetscFunctionReturn(0);
}

PetscErrorCode TestSetPrefixedOptions(MPI_Comm comm, const char prefix[], const char opts[])
{
  PetscFunctionBegin;
  PetscCall(TestPrefixedOptions(comm, prefix, opts, PETSC_TRUE));
  PetscFunctionReturn(0);
}

PetscErrorCode TestClearPrefixedOptions(const char prefix[], const char opts[])
{
  PetscFunctionBegin;
  PetscCall(TestPrefixedOptions(PETSC_COMM_SELF, prefix, opts, PETSC_FALSE));
  PetscFunctionReturn(0);
}

PetscErrorCode TestSolve(MechSystem sys, const char type[], const char prefix[], const char opts[], PetscReal dt, PetscInt nsteps, PetscReal tmax, TSExactFinalTimeOption final, PetscErrorCode (*monitor)(TS, PetscInt, PetscReal, Vec, void *), void *ctx, Vec *q, Vec *v, TS *ts)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)sys);

  PetscFunctionBegin;
  /* every option of opts under this run's prefix, removed again at the end of the run */
  PetscCall(TestSetPrefixedOptions(comm, prefix, opts));
  PetscCall(TSCreate(comm, ts));
  PetscCall(TSSetOptionsPrefix(*ts, prefix));
  PetscCall(TSSetType(*ts, type));
  PetscCall(TSMechSetSystem(*ts, sys));
  PetscCall(TSSetTimeStep(*ts, dt));
  PetscCall(TSSetMaxSteps(*ts, nsteps));
  PetscCall(TSSetMaxTime(*ts, tmax));
  PetscCall(TSSetExactFinalTime(*ts, final));
  if (monitor) PetscCall(TSMonitorSet(*ts, monitor, ctx, NULL));
  PetscCall(TSSetFromOptions(*ts));
  PetscCall(MechSystemCreateState(sys, q, v));
  PetscCall(TSMechSetSolution(*ts, *q, *v));
  PetscCall(TSSolve(*ts, NULL));
  {
    TSConvergedReason reason;
    PetscCall(TSGetConvergedReason(*ts, &reason));
    PetscCheck(reason >= 0, comm, PETSC_ERR_NOT_CONVERGED, "TS %s (%s) diverged: %s", type, opts ? opts : "", TSConvergedReasons[reason]);
  }
  PetscCall(TSMechGetSolution(*ts, *q, *v));
  PetscCall(TestClearPrefixedOptions(prefix, opts));
  PetscFunctionReturn(0);
}

PetscErrorCode TestIntegrate(MechSystem sys, const char type[], const char opts[], PetscReal dt, PetscReal T, Vec *q, Vec *v, PetscInt *its, PetscInt *kits)
{
  static int runs = 0;
  char       prefix[32];
  TS         ts;
  PetscInt   nsteps = (PetscInt)(T / dt + 0.5);

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "run%d_", runs++));
  PetscCall(TestSolve(sys, type, prefix, opts, dt, nsteps, nsteps * dt, TS_EXACTFINALTIME_MATCHSTEP, NULL, NULL, q, v, &ts));
  if (its) PetscCall(TSGetSNESIterations(ts, its));
  if (kits) PetscCall(TSGetKSPIterations(ts, kits));
  PetscCall(TSDestroy(&ts));
  PetscFunctionReturn(0);
}

PetscErrorCode TestRelDiff(Vec qa, Vec va, Vec qb, Vec vb, PetscReal *rel)
{
  PetscReal nq, nv, dq, dv;
  Vec       w;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(qa, &w));
  PetscCall(VecWAXPY(w, -1.0, qb, qa));
  PetscCall(VecNorm(w, NORM_2, &dq));
  PetscCall(VecWAXPY(w, -1.0, vb, va));
  PetscCall(VecNorm(w, NORM_2, &dv));
  PetscCall(VecNorm(qb, NORM_2, &nq));
  PetscCall(VecNorm(vb, NORM_2, &nv));
  PetscCall(VecDestroy(&w));
  *rel = PetscSqrtReal(dq * dq + dv * dv);
  if (nq * nq + nv * nv > 0) *rel /= PetscSqrtReal(nq * nq + nv * nv);
  PetscFunctionReturn(0);
}

PetscErrorCode TestClearOptions(const char options[])
{
  char  *copy, *tok;
  size_t len;

  PetscFunctionBegin;
  PetscCall(PetscStrlen(options, &len));
  if (!len) PetscFunctionReturn(0);
  PetscCall(PetscStrallocpy(options, &copy));
  for (tok = strtok(copy, " "); tok; tok = strtok(NULL, " "))
    if (TestIsOptionName(tok)) PetscCall(PetscOptionsClearValue(NULL, tok));
  PetscCall(PetscFree(copy));
  PetscFunctionReturn(0);
}

PetscErrorCode TestCreateModel(MPI_Comm comm, const char model[], const char opts[], MechSystem *sys)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(MechCreateModel(comm, model, sys));
  PetscCall(TestClearOptions(opts));
  PetscFunctionReturn(0);
}

PetscErrorCode TestGatherAll(Vec x, Vec *all)
{
  VecScatter sct;

  PetscFunctionBegin;
  PetscCall(VecScatterCreateToAll(x, &sct, all));
  PetscCall(VecScatterBegin(sct, x, *all, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sct, x, *all, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterDestroy(&sct));
  PetscFunctionReturn(0);
}

PetscErrorCode TestCompareByPosition(Vec X, Vec q, Vec v, Vec Xref, Vec qref, Vec vref, PetscReal match, PetscReal *rel, PetscInt *unmatched)
{
  PetscInt           n, nref;
  PetscReal          num = 0, den = 0;
  const PetscScalar *x, *xs, *a, *as, *b, *bs;

  PetscFunctionBegin;
  *unmatched = 0;
  PetscCall(VecGetSize(X, &n));
  PetscCall(VecGetSize(Xref, &nref));
  if (n != nref) *unmatched = nref / 3;
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(VecGetArrayRead(Xref, &xs));
  PetscCall(VecGetArrayRead(q, &a));
  PetscCall(VecGetArrayRead(qref, &as));
  PetscCall(VecGetArrayRead(v, &b));
  PetscCall(VecGetArrayRead(vref, &bs));
  for (PetscInt i = 0; i < nref && n == nref; i += 3) {
    PetscInt j;

    for (j = 0; j < n; j += 3)
      if (PetscAbsReal(x[j] - xs[i]) <= match && PetscAbsReal(x[j + 1] - xs[i + 1]) <= match && PetscAbsReal(x[j + 2] - xs[i + 2]) <= match) break;
    if (j == n) {
      (*unmatched)++;
      continue;
    }
    /* displacements, so that a reference position matched within match does not count */
    for (int c = 0; c < 3; c++) {
      num += PetscSqr(a[j + c] - as[i + c] - (x[j + c] - xs[i + c])) + PetscSqr(b[j + c] - bs[i + c]);
      den += PetscSqr(as[i + c] - xs[i + c]) + PetscSqr(bs[i + c]);
    }
  }
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(VecRestoreArrayRead(Xref, &xs));
  PetscCall(VecRestoreArrayRead(q, &a));
  PetscCall(VecRestoreArrayRead(qref, &as));
  PetscCall(VecRestoreArrayRead(v, &b));
  PetscCall(VecRestoreArrayRead(vref, &bs));
  *rel = den > 0 ? PetscSqrtReal(num / den) : PETSC_INFINITY;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, rel, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, unmatched, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
  PetscFunctionReturn(0);
}
