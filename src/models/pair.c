/*
  Two particles in 3-D joined by one spring (docs/schemes.md §5), gravity along -z. q = (x0, x1), 6 dofs.
  With zero rest length and no damping the motion is known in closed form: the centre of mass
  falls freely and the separation r = x1 - x0 obeys r'' = -omega^2 r, omega^2 = k (1/m0 + 1/m1).
*/
#include <tsmech.h>
#include "models/springs.h"

typedef struct {
  MechSpring spring;
  PetscReal  m[2], g;
  PetscReal  x0[3], x1[3], v0[3], v1[3]; /* initial state */
} Pair;

/* J += [B -B; -B B] with B = cK K + cD D: the spring's block between the two particles */
static PetscErrorCode PairAddBlock(Mat J, PetscReal cK, const PetscReal K[9], PetscReal cD, const PetscReal D[9])
{
  const PetscInt idx[6] = {0, 1, 2, 3, 4, 5};
  PetscScalar    vals[36];

  PetscFunctionBegin;
  for (PetscInt i = 0; i < 3; i++) {
    for (PetscInt j = 0; j < 3; j++) {
      const PetscReal b = cK * K[3 * i + j] + cD * D[3 * i + j];

      vals[6 * i + j]             = b;
      vals[6 * i + 3 + j]         = -b;
      vals[6 * (3 + i) + j]       = -b;
      vals[6 * (3 + i) + (3 + j)] = b;
    }
  }
  PetscCall(MatSetValues(J, 6, idx, 6, idx, vals, ADD_VALUES));
  PetscFunctionReturn(0);
}

static PetscErrorCode PairForce(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
{
  const Pair        *p = (const Pair *)ctx;
  const PetscScalar *x, *u;
  PetscScalar       *fa;
  PetscReal          fs[3];
  PetscInt           n, i;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArrayRead(q, &x));
  PetscCall(VecGetArrayRead(v, &u));
  PetscCall(VecGetArray(f, &fa));
  if (n) {
    PetscCall(MechSpringEvaluate(&p->spring, &x[0], &x[3], &u[0], &u[3], fs, NULL, NULL, NULL));
    for (i = 0; i < 3; i++) {
      fa[i]     = fs[i];
      fa[3 + i] = -fs[i];
    }
    fa[2] += p->m[0] * p->g;
    fa[5] += p->m[1] * p->g;
  }
  PetscCall(VecRestoreArray(f, &fa));
  PetscCall(VecRestoreArrayRead(v, &u));
  PetscCall(VecRestoreArrayRead(q, &x));
  PetscFunctionReturn(0);
}

static PetscErrorCode PairTangent(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  const Pair        *p = (const Pair *)ctx;
  const PetscScalar *x, *u;
  PetscReal          K[9], D[9];
  PetscInt           n;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  PetscCall(VecGetLocalSize(q, &n));
  if (n) {
    PetscCall(VecGetArrayRead(q, &x));
    PetscCall(VecGetArrayRead(v, &u));
    PetscCall(MechSpringEvaluate(&p->spring, &x[0], &x[3], &u[0], &u[3], NULL, K, D, NULL));
    PetscCall(VecRestoreArrayRead(v, &u));
    PetscCall(VecRestoreArrayRead(q, &x));
    PetscCall(PairAddBlock(J, cK, K, cD, D));
  }
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode PairPotential(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *potential, void *ctx)
{
  const Pair        *p = (const Pair *)ctx;
  const PetscScalar *x;
  PetscReal          e = 0;
  PetscInt           n;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArrayRead(q, &x));
  if (n) {
    PetscCall(MechSpringEvaluate(&p->spring, &x[0], &x[3], NULL, NULL, NULL, NULL, NULL, &e));
    e += p->g * (p->m[0] * x[2] + p->m[1] * x[5]);
  }
  PetscCall(VecRestoreArrayRead(q, &x));
  PetscCall(MPIU_Allreduce(&e, potential, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)q)));
  PetscFunctionReturn(0);
}

/* The spring's exact discrete gradient (springs.h) between q0 and q1, its damping at the midpoint
   and velocity v; gravity is linear, its force the same at every state */
static PetscErrorCode PairDiscreteGradient(MechSystem sys, PetscReal t, Vec q0, Vec q1, Vec v, Vec f, void *ctx)
{
  const Pair        *p = (const Pair *)ctx;
  const PetscScalar *x0, *x1, *u;
  PetscScalar       *fa;
  PetscReal          fs[3];
  PetscInt           n, i;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  PetscCall(VecGetLocalSize(q0, &n));
  PetscCall(VecGetArrayRead(q0, &x0));
  PetscCall(VecGetArrayRead(q1, &x1));
  PetscCall(VecGetArrayRead(v, &u));
  PetscCall(VecGetArray(f, &fa));
  if (n) {
    PetscCall(MechSpringDiscreteGradient(&p->spring, &x0[0], &x0[3], &x1[0], &x1[3], &u[0], &u[3], fs, NULL, NULL));
    for (i = 0; i < 3; i++) {
      fa[i]     = fs[i];
      fa[3 + i] = -fs[i];
    }
    fa[2] += p->m[0] * p->g;
    fa[5] += p->m[1] * p->g;
  }
  PetscCall(VecRestoreArray(f, &fa));
  PetscCall(VecRestoreArrayRead(v, &u));
  PetscCall(VecRestoreArrayRead(q1, &x1));
  PetscCall(VecRestoreArrayRead(q0, &x0));
  PetscFunctionReturn(0);
}

/* cK dfbar/dq1 + cD dfbar/dv: one block describes the spring, as in PairTangent() */
static PetscErrorCode PairDiscreteGradientJacobian(MechSystem sys, PetscReal t, Vec q0, Vec q1, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  const Pair        *p = (const Pair *)ctx;
  const PetscScalar *x0, *x1, *u;
  PetscReal          K[9], D[9];
  PetscInt           n;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  PetscCall(VecGetLocalSize(q0, &n));
  if (n) {
    PetscCall(VecGetArrayRead(q0, &x0));
    PetscCall(VecGetArrayRead(q1, &x1));
    PetscCall(VecGetArrayRead(v, &u));
    PetscCall(MechSpringDiscreteGradient(&p->spring, &x0[0], &x0[3], &x1[0], &x1[3], &u[0], &u[3], NULL, K, D));
    PetscCall(VecRestoreArrayRead(v, &u));
    PetscCall(VecRestoreArrayRead(q1, &x1));
    PetscCall(VecRestoreArrayRead(q0, &x0));
    PetscCall(PairAddBlock(J, cK, K, cD, D));
  }
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* Valid only for L = 0 and c = 0 (then the system is linear); installed only in that case. */
static PetscErrorCode PairExact(MechSystem sys, PetscReal t, Vec q, Vec v, void *ctx)
{
  const Pair     *p  = (const Pair *)ctx;
  const PetscReal mt = p->m[0] + p->m[1];
  const PetscReal w  = PetscSqrtReal(p->spring.k * (1 / p->m[0] + 1 / p->m[1]));
  const PetscReal cw = PetscCosReal(w * t), sw = PetscSinReal(w * t);
  PetscScalar    *x, *u;
  PetscInt        n, i;

  PetscFunctionBegin;
  (void)sys;
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArray(q, &x));
  PetscCall(VecGetArray(v, &u));
  if (n) {
    for (i = 0; i < 3; i++) {
      const PetscReal X0 = (p->m[0] * p->x0[i] + p->m[1] * p->x1[i]) / mt;
      const PetscReal V0 = (p->m[0] * p->v0[i] + p->m[1] * p->v1[i]) / mt;
      const PetscReal r0 = p->x1[i] - p->x0[i], u0 = p->v1[i] - p->v0[i];
      const PetscReal fall = i == 2 ? p->g : 0; /* the centre of mass falls freely */
      const PetscReal X = X0 + V0 * t - 0.5 * fall * t * t, V = V0 - fall * t;
      const PetscReal r = r0 * cw + u0 / w * sw, rdot = -r0 * w * sw + u0 * cw;

      x[i]     = X - p->m[1] / mt * r;
      x[3 + i] = X + p->m[0] / mt * r;
      u[i]     = V - p->m[1] / mt * rdot;
      u[3 + i] = V + p->m[0] / mt * rdot;
    }
  }
  PetscCall(VecRestoreArray(v, &u));
  PetscCall(VecRestoreArray(q, &x));
  PetscFunctionReturn(0);
}

/*@
  MechCreatePair - Creates two particles in 3-D joined by one spring (docs/schemes.md §5), with
  gravity along -z.

  Collective

  Input Parameter:
. comm - the communicator of the model

  Output Parameter:
. sys - the new mechanical system, named "pair"

  Options Database Keys:
+ -pair_m0 <1> - mass of particle 0, positive
. -pair_m1 <2> - mass of particle 1, positive
. -pair_k <10> - spring stiffness, positive
. -pair_L <0> - rest length (0: zero-rest-length spring, the system is then linear)
. -pair_c <0> - damping along the spring (makes the system nonlinear)
. -pair_g <0> - gravity along -z
. -pair_x0 <0,0,0> - initial position of particle 0, 3 values
. -pair_x1 <1,0.5,0> - initial position of particle 1, 3 values
- -pair_v1 <0.3> - initial y-velocity of particle 1 (particle 0 starts at rest)

  Level: beginner

  Notes:
  q = (x0, x1), 6 dofs, all on rank 0. The system is linear when L = 0 and c = 0, and it then has
  an exact solution: the centre of mass falls freely and the separation r = x1 - x0 obeys
  r'' = -omega^2 r, omega^2 = k (1/m0 + 1/m1). With L > 0 the initial positions must differ.

.seealso: `MechCreateModel()`, `MechCreateOscillator()`, `MechSystemComputeExactSolution()`
@*/
PetscErrorCode MechCreatePair(MPI_Comm comm, MechSystem *sys)
{
  Pair       opt, *p;
  MechSystem s;
  Mat        J;
  PetscReal  mass[6], q0[6], v0[6];
  PetscInt   i;
  PetscBool  linear;

  PetscFunctionBegin;
  /* defaults; x0, v0 and the other components are zero */
  PetscCall(PetscMemzero(&opt, sizeof(opt)));
  opt.spring.k = 10.0;
  opt.m[0]     = 1.0;
  opt.m[1]     = 2.0;
  opt.x1[0]    = 1.0;
  opt.x1[1]    = 0.5;
  opt.v1[1]    = 0.3;
  PetscOptionsBegin(comm, NULL, "Pair model options", "MechSystem");
  PetscCall(MechOptionsReal("-pair_m0", "Mass of particle 0", "MechCreatePair", opt.m[0], &opt.m[0], NULL));
  PetscCall(MechOptionsReal("-pair_m1", "Mass of particle 1", "MechCreatePair", opt.m[1], &opt.m[1], NULL));
  PetscCall(MechOptionsReal("-pair_k", "Spring stiffness", "MechCreatePair", opt.spring.k, &opt.spring.k, NULL));
  PetscCall(MechOptionsReal("-pair_L", "Spring rest length (0: zero-rest-length, linear)", "MechCreatePair", opt.spring.L, &opt.spring.L, NULL));
  PetscCall(MechOptionsReal("-pair_c", "Spring damping along the spring", "MechCreatePair", opt.spring.c, &opt.spring.c, NULL));
  PetscCall(MechOptionsReal("-pair_g", "Gravity along -z", "MechCreatePair", opt.g, &opt.g, NULL));
  PetscCall(MechOptionsRealList("-pair_x0", "Initial position of particle 0", "MechCreatePair", opt.x0, 3, NULL));
  PetscCall(MechOptionsRealList("-pair_x1", "Initial position of particle 1", "MechCreatePair", opt.x1, 3, NULL));
  PetscCall(MechOptionsReal("-pair_v1", "Initial y-velocity of particle 1", "MechCreatePair", opt.v1[1], &opt.v1[1], NULL));
  PetscOptionsEnd();
  PetscCheck(opt.m[0] > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-pair_m0 %g must be positive", (double)opt.m[0]);
  PetscCheck(opt.m[1] > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-pair_m1 %g must be positive", (double)opt.m[1]);
  PetscCheck(opt.spring.k > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-pair_k %g must be positive", (double)opt.spring.k);
  PetscCheck(opt.spring.L >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-pair_L %g must be non-negative", (double)opt.spring.L);
  PetscCheck(opt.spring.c >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-pair_c %g must be non-negative", (double)opt.spring.c);
  PetscCheck(opt.spring.L == 0 || opt.x0[0] != opt.x1[0] || opt.x0[1] != opt.x1[1] || opt.x0[2] != opt.x1[2], comm, PETSC_ERR_ARG_INCOMP, "-pair_x0 and -pair_x1 coincide: a spring of rest length -pair_L %g has no direction", (double)opt.spring.L);
  /* The damper acts along the spring direction, which turns with the motion */
  linear = opt.spring.L == 0 && opt.spring.c == 0 ? PETSC_TRUE : PETSC_FALSE;

  PetscCall(PetscNew(&p));
  *p = opt;
  PetscCall(MechSystemCreate(comm, &s));
  PetscCall(MechSystemSetApplicationContext(s, p, PetscContainerUserDestroyDefault)); /* PetscFree() of p */
  PetscCall(MechSystemSetModelName(s, "pair"));
  PetscCall(MechSystemAddParameter(s, "m0", p->m[0]));
  PetscCall(MechSystemAddParameter(s, "m1", p->m[1]));
  PetscCall(MechSystemAddParameter(s, "k", p->spring.k));
  PetscCall(MechSystemAddParameter(s, "L", p->spring.L));
  PetscCall(MechSystemAddParameter(s, "c", p->spring.c));
  PetscCall(MechSystemAddParameter(s, "g", p->g));
  PetscCall(MechSystemAddParameter(s, "v1", p->v1[1]));

  for (i = 0; i < 3; i++) {
    mass[i]     = p->m[0];
    mass[3 + i] = p->m[1];
    q0[i]       = p->x0[i];
    q0[3 + i]   = p->x1[i];
    v0[i]       = p->v0[i];
    v0[3 + i]   = p->v1[i];
  }
  PetscCall(MechModelSetUpSmall(s, 6, mass, q0, v0, &J));
  PetscCall(MechSystemSetForce(s, PairForce, p));
  PetscCall(MechSystemSetTangent(s, J, p->spring.c > 0 ? PETSC_TRUE : PETSC_FALSE, PairTangent, p));
  PetscCall(MechSystemSetPotential(s, PairPotential, p));
  PetscCall(MechSystemSetDiscreteGradient(s, PairDiscreteGradient, PairDiscreteGradientJacobian, PETSC_TRUE, p));
  if (linear) PetscCall(MechSystemSetExactSolution(s, PairExact, p));
  PetscCall(MechSystemSetLinear(s, linear));
  PetscCall(MatDestroy(&J));
  *sys = s;
  PetscFunctionReturn(0);
}
