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
