/*
  Spring kernel shared by the particle models (the pair, and the chain, cloth and lattice through
  the spring grid of gridsprings.h).

  A spring joins particle a to particle b in 3-D. With d = xb - xa, r = |d|, dhat = d / r and
  u = vb - va, the physical force on a is

      F_a = k (r - L) dhat + c (u . dhat) dhat          (L > 0)
      F_a = k d            + c (u . dhat) dhat          (L = 0, zero rest length: linear part)

  and F_b = -F_a. Following tsmech's sign convention the kernel returns f_a = -F_a, the force
  moved to the left-hand side. Because f_a depends on (xa, xb, va, vb) only through d and u,

      df_a/dxa = Kaa,  df_a/dxb = -Kaa,  df_b/dxa = -Kaa,  df_b/dxb = Kaa,

  and likewise for the velocity blocks, so one 3x3 block of each kind describes the spring.
*/
#ifndef TSMECH_SPRINGS_H
#define TSMECH_SPRINGS_H

#include <tsmech.h>

/* Parameters of one spring: stiffness k > 0, rest length L >= 0, damping c >= 0 along the spring. */
typedef struct {
  PetscReal k, L, c;
} MechSpring;

/*
  Evaluate one spring between particles a and b.

  Input:  xa, xb positions, va, vb velocities (va and vb may be NULL when c = 0 or when only the
          elastic part is wanted; then u = 0).
  Output (each may be NULL):
    fa     f_a = -F_a (3 entries); f_b = -f_a
    Kaa    df_a/dxa, 3x3 row-major; includes the derivative of the damping direction, so it is the
           exact derivative (not symmetric when c > 0 and u != 0)
    Daa    df_a/dva = c dhat dhat^T, 3x3 row-major
    energy 1/2 k (r - L)^2

  Errors: a spring of positive rest length with coincident ends (r = 0) has no direction; that is
  reported as PETSC_ERR_FP. For L = 0 the elastic force k d is defined everywhere and the damping
  vanishes at r = 0.
*/
PETSC_INTERN PetscErrorCode MechSpringEvaluate(const MechSpring *, const PetscReal xa[3], const PetscReal xb[3], const PetscReal va[3], const PetscReal vb[3], PetscReal fa[3], PetscReal Kaa[9], PetscReal Daa[9], PetscReal *energy);

/*
  The exact discrete gradient of one spring between the states (xa0, xb0) and (xa1, xb1) (Gonzalez
  1996; docs/schemes.md §11): fa (3, may be NULL) such that, with fb = -fa,
      fa . (xa1 - xa0) + fb . (xb1 - xb0) = 1/2 k (r1 - L)^2 - 1/2 k (r0 - L)^2
  exactly, along the midpoint separation (frame-invariant), plus the damping force at the midpoint
  positions and the velocities va, vb (NULL: none). Kaa = dfa/dxa1 (not symmetric; df_a/dxb1 = -Kaa,
  and f_b likewise as in MechSpringEvaluate()) and Daa = dfa/dva (each may be NULL). Errors as
  MechSpringEvaluate() (coincident ends of a spring of positive rest length at either state).
*/
PETSC_INTERN PetscErrorCode MechSpringDiscreteGradient(const MechSpring *, const PetscReal xa0[3], const PetscReal xb0[3], const PetscReal xa1[3], const PetscReal xb1[3], const PetscReal va[3], const PetscReal vb[3], PetscReal fa[3], PetscReal Kaa[9], PetscReal Daa[9]);

/* The error of a spring of positive rest length whose ends coincide: no direction (r: the
   spring's length or its square) */
#define MechSpringCheckDirection(s, r) PetscCheck((r) > 0 || (s)->L == 0, PETSC_COMM_SELF, PETSC_ERR_FP, "Spring of rest length %g has coincident ends: its direction is undefined", (double)(s)->L)

/*
  f_a of MechSpringEvaluate() alone, inline for the loops of the spring grids (the same operations,
  so the same bits). For L = 0 the elastic force is written as k d so that it stays linear and
  defined at r = 0.
*/
static inline PetscErrorCode MechSpringForce(const MechSpring *s, const PetscReal xa[3], const PetscReal xb[3], const PetscReal va[3], const PetscReal vb[3], PetscReal fa[3])
{
  PetscReal d[3], e[3] = {0, 0, 0}, r2, r, ud = 0;
  PetscInt  i;

  PetscFunctionBeginHot;
  for (i = 0; i < 3; i++) d[i] = xb[i] - xa[i];
  r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
  MechSpringCheckDirection(s, r2);
  r = PetscSqrtReal(r2);
  if (r > 0) {
    for (i = 0; i < 3; i++) e[i] = d[i] / r;
    if (va && vb) ud = (vb[0] - va[0]) * e[0] + (vb[1] - va[1]) * e[1] + (vb[2] - va[2]) * e[2];
  }
  for (i = 0; i < 3; i++) fa[i] = -((s->L == 0 ? s->k * d[i] : s->k * (r - s->L) * e[i]) + s->c * ud * e[i]);
  PetscFunctionReturn(0);
}

/*
  The block B = cK Kaa + cD Daa of MechSpringEvaluate() as three numbers, for applying it without
  storing it: with d = xb - xa and u = vb - va (0 when va or vb is NULL),

      B w = coef[0] w + d (coef[1] (d . w) + coef[2] (u . w)).

  A matrix-free product that keeps the state can so store 3 reals per spring instead of 9. With
  P = I - dhat dhat^T and p = cK (c u.dhat - k L) / r,
      B = (cK k + p) I + (cD c - p) dhat dhat^T + (cK c / r) dhat (P u)^T,
  and dhat = d / r, P u = u - (u.d) d / r^2 give the coefficients. Errors as MechSpringEvaluate().
*/
static inline PetscErrorCode MechSpringTangentAction(const MechSpring *s, const PetscReal xa[3], const PetscReal xb[3], const PetscReal va[3], const PetscReal vb[3], PetscReal cK, PetscReal cD, PetscReal coef[3])
{
  PetscReal d[3], r2, r, ud = 0, p;
  PetscInt  i;

  PetscFunctionBeginHot;
  for (i = 0; i < 3; i++) d[i] = xb[i] - xa[i];
  r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
  MechSpringCheckDirection(s, r2);
  if (r2 == 0) {
    /* zero rest length at r = 0: Kaa = k I and the damping vanishes */
    coef[0] = cK * s->k;
    coef[1] = coef[2] = 0;
    PetscFunctionReturn(0);
  }
  r = PetscSqrtReal(r2);
  if (va && vb)
    for (i = 0; i < 3; i++) ud += (vb[i] - va[i]) * d[i];
  p       = cK * (s->c * ud / r - s->k * s->L) / r;
  coef[0] = cK * s->k + p;
  coef[1] = (cD * s->c - p) / r2 - cK * s->c * ud / (r2 * r2);
  coef[2] = cK * s->c / r2;
  PetscFunctionReturn(0);
}

/*
  The clamped (positive semidefinite) elastic tangent of one spring, for preconditioning:

      Kaa~ = k [max(0, 1 - L / r) (I - dhat dhat^T) + dhat dhat^T]

  Compared with the Kaa of MechSpringEvaluate() the transverse stiffness k (1 - L / r), negative
  when the spring is compressed (r < L), is clamped at zero, and the derivative of the damping
  direction (not symmetric) is left out, so Kaa~ = Kaa for a stretched (r >= L) spring at zero
  relative velocity or without damping. This is the usual cure for the indefinite Jacobian of
  compressed springs in implicit cloth simulation (Choi & Ko, "Stable but responsive cloth",
  SIGGRAPH 2002). The damping block Daa = c dhat dhat^T is already semidefinite.
  Errors as MechSpringEvaluate() (coincident ends of a spring of positive rest length).
  clamped (may be NULL) tells whether the spring is compressed, i.e. Kaa~ differs from Kaa.
*/
PETSC_INTERN PetscErrorCode MechSpringTangentDefinite(const MechSpring *, const PetscReal xa[3], const PetscReal xb[3], PetscReal Kaa[9], PetscBool *clamped);

/*
  Helper of the small models (oscillator, pair, kepler), defined in springs.c: all n dofs live on
  rank 0. Gives sys its diagonal mass matrix with entries mass[] and its initial state q0[], v0[],
  and creates a tangent template J whose n x n block is dense (explicit zeros, assembled) so that
  its sparsity holds K + D + M (for MechSystemSetTangent(); the caller destroys it).
*/
PETSC_INTERN PetscErrorCode MechModelSetUpSmall(MechSystem sys, PetscInt n, const PetscReal mass[], const PetscReal q0[], const PetscReal v0[], Mat *J);

#endif
