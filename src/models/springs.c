#include "models/springs.h"

/*
  MechSpringEvaluate - force, tangent blocks and energy of one spring; see springs.h.

  The elastic force is F = k (d - L d / r), whose derivative with respect to d is
  k [I - (L / r) P] with P = I - dhat dhat^T the projector across the spring. The damping force
  G = c (u . dhat) dhat turns with the spring, so it also depends on d:
  dG/dd = (c / r) [dhat (P u)^T + (u . dhat) P]. Since d = xb - xa and f_a = -F_a, these are
  exactly df_a/dxa.
*/
PetscErrorCode MechSpringEvaluate(const MechSpring *s, const PetscReal xa[3], const PetscReal xb[3], const PetscReal va[3], const PetscReal vb[3], PetscReal fa[3], PetscReal Kaa[9], PetscReal Daa[9], PetscReal *energy)
{
  PetscReal d[3], u[3] = {0, 0, 0}, e[3] = {0, 0, 0}, Pu[3] = {0, 0, 0}, P[9] = {0};
  PetscReal r, ud = 0;
  PetscBool hasdir;
  PetscInt  i, j;

  PetscFunctionBegin;
  for (i = 0; i < 3; i++) d[i] = xb[i] - xa[i];
  if (va && vb)
    for (i = 0; i < 3; i++) u[i] = vb[i] - va[i];
  r      = PetscSqrtReal(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  hasdir = r > 0 ? PETSC_TRUE : PETSC_FALSE;
  MechSpringCheckDirection(s, r);
  if (hasdir) {
    for (i = 0; i < 3; i++) e[i] = d[i] / r;
    ud = u[0] * e[0] + u[1] * e[1] + u[2] * e[2];
    for (i = 0; i < 3; i++)
      for (j = 0; j < 3; j++) P[3 * i + j] = (i == j ? 1.0 : 0.0) - e[i] * e[j];
    for (i = 0; i < 3; i++) Pu[i] = u[i] - ud * e[i];
  }

  if (energy) *energy = s->L == 0 ? 0.5 * s->k * r * r : 0.5 * s->k * (r - s->L) * (r - s->L);

  if (fa) PetscCall(MechSpringForce(s, xa, xb, va, vb, fa));

  if (Kaa) {
    for (i = 0; i < 3; i++)
      for (j = 0; j < 3; j++) Kaa[3 * i + j] = i == j ? s->k : 0.0;
    if (hasdir && s->L != 0)
      for (i = 0; i < 9; i++) Kaa[i] -= s->k * s->L / r * P[i];
    if (hasdir && s->c != 0)
      for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) Kaa[3 * i + j] += s->c / r * (e[i] * Pu[j] + ud * P[3 * i + j]);
  }

  if (Daa) {
    for (i = 0; i < 3; i++)
      for (j = 0; j < 3; j++) Daa[3 * i + j] = s->c * e[i] * e[j];
  }
  PetscFunctionReturn(0);
}

/*
  MechSpringTangentDefinite - the clamped spring tangent of springs.h: k [max(0, 1 - L / r) P + dhat dhat^T]
  with P = I - dhat dhat^T, i.e. k I - k min(L / r, 1) P.
*/
PetscErrorCode MechSpringTangentDefinite(const MechSpring *s, const PetscReal xa[3], const PetscReal xb[3], PetscReal Kaa[9], PetscBool *clamped)
{
  PetscReal d[3], r, a;
  PetscInt  i, j;

  PetscFunctionBegin;
  for (i = 0; i < 3; i++) d[i] = xb[i] - xa[i];
  r = PetscSqrtReal(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  MechSpringCheckDirection(s, r);
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) Kaa[3 * i + j] = i == j ? s->k : 0.0;
  if (clamped) *clamped = s->L > r ? PETSC_TRUE : PETSC_FALSE;
  if (s->L == 0) PetscFunctionReturn(0);
  /* a = k min(L / r, 1): the part of k I taken away across the spring */
  a = s->k * PetscMin(s->L / r, 1.0);
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) Kaa[3 * i + j] -= a * ((i == j ? 1.0 : 0.0) - d[i] * d[j] / (r * r));
  PetscFunctionReturn(0);
}

/*
  MechSpringDiscreteGradient - the exact discrete gradient of one spring (Gonzalez 1996,
  docs/schemes.md §11); see springs.h. With d0, d1 the separations at the two states,
  dm = (d0 + d1)/2 and r0, r1 their lengths, the elastic part is f_a = -s dm with

      s = [phi(r1) - phi(r0)] / [(r1^2 - r0^2)/2] = k (1 - 2 L / (r0 + r1)),   phi = k/2 (r - L)^2,

  a closed form without the cancellation of the quotient (s = k for L = 0). Its derivative with
  respect to the end state, s/2 I + dm (ds/dd1)^T with ds/dd1 = 2 k L d1 / (r1 (r0 + r1)^2), is not
  symmetric; at d0 = d1 it is half the spring's tangent. The damping force is that of
  MechSpringEvaluate() at the midpoint positions, whose derivative with respect to the end state
  is half of its Kaa there.
*/
PetscErrorCode MechSpringDiscreteGradient(const MechSpring *s, const PetscReal xa0[3], const PetscReal xb0[3], const PetscReal xa1[3], const PetscReal xb1[3], const PetscReal va[3], const PetscReal vb[3], PetscReal fa[3], PetscReal Kaa[9], PetscReal Daa[9])
{
  PetscReal d0[3], d1[3], dm[3], xam[3], xbm[3], r0, r1, sc = s->k, ds = 0;
  PetscInt  i, j;

  PetscFunctionBegin;
  for (i = 0; i < 3; i++) {
    d0[i]  = xb0[i] - xa0[i];
    d1[i]  = xb1[i] - xa1[i];
    dm[i]  = 0.5 * (d0[i] + d1[i]);
    xam[i] = 0.5 * (xa0[i] + xa1[i]);
    xbm[i] = 0.5 * (xb0[i] + xb1[i]);
  }
  r0 = PetscSqrtReal(d0[0] * d0[0] + d0[1] * d0[1] + d0[2] * d0[2]);
  r1 = PetscSqrtReal(d1[0] * d1[0] + d1[1] * d1[1] + d1[2] * d1[2]);
  MechSpringCheckDirection(s, r0);
  MechSpringCheckDirection(s, r1);
  if (s->L != 0) {
    sc = s->k * (1 - 2 * s->L / (r0 + r1));
    ds = 2 * s->k * s->L / (r1 * (r0 + r1) * (r0 + r1));
  }
  if (s->c != 0 && (fa || Kaa || Daa)) {
    /* the damper at the midpoint positions: the spring's damping part alone (k = 0) */
    MechSpring damper = *s;

    damper.k = 0;
    PetscCall(MechSpringEvaluate(&damper, xam, xbm, va, vb, fa, Kaa, Daa, NULL));
    if (Kaa)
      for (i = 0; i < 9; i++) Kaa[i] *= 0.5;
  } else {
    if (fa)
      for (i = 0; i < 3; i++) fa[i] = 0;
    if (Kaa)
      for (i = 0; i < 9; i++) Kaa[i] = 0;
    if (Daa)
      for (i = 0; i < 9; i++) Daa[i] = 0;
  }
  if (fa)
    for (i = 0; i < 3; i++) fa[i] -= sc * dm[i];
  if (Kaa)
    for (i = 0; i < 3; i++)
      for (j = 0; j < 3; j++) Kaa[3 * i + j] += (i == j ? 0.5 * sc : 0.0) + ds * dm[i] * d1[j];
  PetscFunctionReturn(0);
}

/* MechModelSetUpSmall - the set-up the small models share (springs.h) */
PetscErrorCode MechModelSetUpSmall(MechSystem sys, PetscInt n, const PetscReal mass[], const PetscReal q0[], const PetscReal v0[], Mat *J)
{
  MPI_Comm     comm = PetscObjectComm((PetscObject)sys);
  PetscMPIInt  rank;
  PetscInt     nloc, i, *idx;
  PetscScalar *zeros, *x, *u;
  Vec          q, v;
  Mat          M;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  /* These models are a handful of dofs: distributing them would only add communication */
  nloc = rank == 0 ? n : 0;
  PetscCall(VecCreateMPI(comm, nloc, n, &q));
  PetscCall(VecDuplicate(q, &v));
  PetscCall(MatCreateAIJ(comm, nloc, nloc, n, n, 1, NULL, 0, NULL, &M));
  PetscCall(MatCreateAIJ(comm, nloc, nloc, n, n, n, NULL, 0, NULL, J));
  if (nloc) {
    PetscCall(PetscMalloc1(n, &idx));
    PetscCall(PetscCalloc1(n * n, &zeros));
    for (i = 0; i < n; i++) idx[i] = i;
    for (i = 0; i < n; i++) PetscCall(MatSetValue(M, i, i, mass[i], INSERT_VALUES));
    /* Explicit zeros fix the nonzero pattern before the first tangent evaluation */
    PetscCall(MatSetValues(*J, n, idx, n, idx, zeros, INSERT_VALUES));
    PetscCall(PetscFree(zeros));
    PetscCall(PetscFree(idx));
  }
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(*J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*J, MAT_FINAL_ASSEMBLY));
  PetscCall(MechSystemSetMass(sys, M));
  PetscCall(VecGetArray(q, &x));
  PetscCall(VecGetArray(v, &u));
  for (i = 0; i < nloc; i++) {
    x[i] = q0[i];
    u[i] = v0[i];
  }
  PetscCall(VecRestoreArray(v, &u));
  PetscCall(VecRestoreArray(q, &x));
  PetscCall(MechSystemSetInitialState(sys, q, v));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(0);
}
