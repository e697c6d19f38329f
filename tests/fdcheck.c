#include "fdcheck.h"

#define NDIRECTIONS 3

PetscErrorCode FDRandomCreate(MPI_Comm comm, unsigned long seed, PetscRandom *rnd)
{
  PetscFunctionBegin;
  PetscCall(PetscRandomCreate(comm, rnd));
  PetscCall(PetscRandomSetInterval(*rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(*rnd, seed));
  PetscCall(PetscRandomSeed(*rnd));
  PetscFunctionReturn(0);
}

PetscErrorCode FDRelativeError(Vec a, Vec b, Vec work, PetscReal *err)
{
  PetscReal na, nb, nd;

  PetscFunctionBegin;
  PetscCall(VecNorm(a, NORM_2, &na));
  PetscCall(VecNorm(b, NORM_2, &nb));
  PetscCall(VecWAXPY(work, -1.0, a, b));
  PetscCall(VecNorm(work, NORM_2, &nd));
  *err = PetscMax(na, nb) > 0 ? nd / PetscMax(na, nb) : 0;
  PetscFunctionReturn(0);
}

PetscErrorCode FDCheckTangent(MechSystem sys, PetscInt which, PetscReal h, Vec q, Vec v, PetscRandom rnd, PetscReal *maxerr, PetscBool *symmetric)
{
  const PetscReal t = 0.25;
  Mat             J;
  IS              fixed;
  Vec             w, s, fp, fm, Aw, work;
  PetscInt        d;
  PetscReal       err = 0;

  PetscFunctionBegin;
  *maxerr = 0;
  PetscCall(MechSystemCreateOperator(sys, &J));
  PetscCall(MechSystemComputeOperator(sys, t, q, v, which == 0 ? 1.0 : 0.0, which == 1 ? 1.0 : 0.0, 0.0, J));
  if (symmetric) PetscCall(MatIsSymmetric(J, 1e-12, symmetric));
  PetscCall(MechSystemGetFixed(sys, &fixed));
  PetscCall(VecDuplicate(q, &w));
  PetscCall(VecDuplicate(q, &s));
  PetscCall(VecDuplicate(q, &fp));
  PetscCall(VecDuplicate(q, &fm));
  PetscCall(VecDuplicate(q, &Aw));
  PetscCall(VecDuplicate(q, &work));
  for (d = 0; d < NDIRECTIONS; d++) {
    PetscCall(VecSetRandom(w, rnd));
    if (fixed) PetscCall(VecISSet(w, fixed, 0.0));
    PetscCall(VecWAXPY(s, h, w, which == 0 ? q : v));
    PetscCall(MechSystemComputeForce(sys, t, which == 0 ? s : q, which == 0 ? v : s, fp));
    PetscCall(VecWAXPY(s, -h, w, which == 0 ? q : v));
    PetscCall(MechSystemComputeForce(sys, t, which == 0 ? s : q, which == 0 ? v : s, fm));
    PetscCall(VecAXPY(fp, -1.0, fm));
    PetscCall(VecScale(fp, 1 / (2 * h)));
    PetscCall(MatMult(J, w, Aw));
    PetscCall(FDRelativeError(Aw, fp, work, &err));
    *maxerr = PetscMax(*maxerr, err);
  }
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&s));
  PetscCall(VecDestroy(&fp));
  PetscCall(VecDestroy(&fm));
  PetscCall(VecDestroy(&Aw));
  PetscCall(VecDestroy(&work));
  PetscCall(MatDestroy(&J));
  PetscFunctionReturn(0);
}

PetscErrorCode FDCheckTangents(MechSystem sys, Vec q, Vec v, PetscRandom rnd, PetscReal hK, PetscReal hD, PetscReal *errK, PetscReal *errD, PetscBool *linear, PetscReal *errL, PetscBool *symmetric)
{
  PetscReal err;

  PetscFunctionBegin;
  *errL = 0;
  PetscCall(FDCheckTangent(sys, 0, hK, q, v, rnd, errK, symmetric));
  PetscCall(FDCheckTangent(sys, 1, hD, q, v, rnd, errD, NULL));
  PetscCall(MechSystemGetLinear(sys, linear));
  if (*linear) {
    PetscCall(FDCheckTangent(sys, 0, 1.0, q, v, rnd, errL, NULL));
    PetscCall(FDCheckTangent(sys, 1, 1.0, q, v, rnd, &err, NULL));
    *errL = PetscMax(*errL, err);
  }
  PetscFunctionReturn(0);
}

/*
  The difference is sum_k weight[k] V(q + step[k] h w) / (denominator h): (V(q + hw) - V(q - hw)) / 2h
  or (V(q - 2hw) - 8 V(q - hw) + 8 V(q + hw) - V(q + 2hw)) / 12h.
*/
PetscErrorCode FDCheckPotential(MechSystem sys, Vec q, PetscRandom rnd, PetscReal h, PetscInt order, PetscReal *maxerr)
{
  const PetscReal  t = 0.25, step2[2] = {-1, 1}, weight2[2] = {-1, 1}, step4[4] = {-2, -1, 1, 2}, weight4[4] = {1, -8, 8, -1};
  const PetscReal *step = order == 4 ? step4 : step2, *weight = order == 4 ? weight4 : weight2, denominator = order == 4 ? 12 : 2;
  const PetscInt   npoints = order == 4 ? 4 : 2;
  IS               fixed;
  Vec              zero, w, s, f;
  PetscReal        V, fd, fw;
  PetscScalar      dot;
  PetscInt         d, k;

  PetscFunctionBegin;
  PetscCheck(order == 2 || order == 4, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Difference of order %" PetscInt_FMT ": only 2 and 4 are implemented", order);
  *maxerr = 0;
  PetscCall(MechSystemGetFixed(sys, &fixed));
  PetscCall(VecDuplicate(q, &zero));
  PetscCall(VecDuplicate(q, &w));
  PetscCall(VecDuplicate(q, &s));
  PetscCall(VecDuplicate(q, &f));
  PetscCall(VecSet(zero, 0.0));
  PetscCall(MechSystemComputeForce(sys, t, q, zero, f));
  for (d = 0; d < NDIRECTIONS; d++) {
    PetscCall(VecSetRandom(w, rnd));
    if (fixed) PetscCall(VecISSet(w, fixed, 0.0));
    fd = 0;
    for (k = 0; k < npoints; k++) {
      PetscCall(VecWAXPY(s, step[k] * h, w, q));
      PetscCall(MechSystemComputeEnergy(sys, t, s, zero, NULL, &V));
      fd += weight[k] * V;
    }
    fd /= denominator * h;
    PetscCall(VecDot(f, w, &dot));
    fw = PetscRealPart(dot);
    if (PetscMax(PetscAbsReal(fd), PetscAbsReal(fw)) > 0) *maxerr = PetscMax(*maxerr, PetscAbsReal(fd - fw) / PetscMax(PetscAbsReal(fd), PetscAbsReal(fw)));
  }
  PetscCall(VecDestroy(&zero));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&s));
  PetscCall(VecDestroy(&f));
  PetscFunctionReturn(0);
}

PetscErrorCode FDRandomState(MechSystem sys, PetscRandom rnd, PetscReal amp, Vec *q, Vec *v)
{
  Vec r;

  PetscFunctionBegin;
  PetscCall(MechSystemCreateState(sys, q, v));
  PetscCall(VecDuplicate(*q, &r));
  PetscCall(VecSetRandom(r, rnd));
  PetscCall(VecAXPY(*q, amp, r));
  PetscCall(VecSetRandom(r, rnd));
  PetscCall(VecAXPY(*v, amp, r));
  PetscCall(MechSystemApplyFixed(sys, *q, *v));
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(0);
}

PetscErrorCode FDCheckOperatorShell(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, PetscRandom rnd, PetscReal *err, PetscReal *norm)
{
  Mat A, S;
  Vec w, y1, y2;

  PetscFunctionBegin;
  PetscCall(MechSystemCreateOperator(sys, &A));
  PetscCall(MechSystemCreateOperatorShell(sys, &S));
  PetscCall(MechSystemComputeOperator(sys, t, q, v, cK, cD, cM, A));
  PetscCall(MechSystemLinearizeOperatorShell(sys, t, q, v, cK, cD, cM, S));
  PetscCall(VecDuplicate(q, &w));
  PetscCall(VecDuplicate(q, &y1));
  PetscCall(VecDuplicate(q, &y2));
  PetscCall(VecSetRandom(w, rnd));
  PetscCall(MatMult(A, w, y1));
  PetscCall(MatMult(S, w, y2));
  PetscCall(FDRelativeError(y2, y1, w, err));
  if (norm) PetscCall(VecNorm(y1, NORM_2, norm));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&y1));
  PetscCall(VecDestroy(&y2));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&S));
  PetscFunctionReturn(0);
}
