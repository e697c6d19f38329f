/*
  1-D spring-damper with gravity (docs/schemes.md §5):  m q'' + c q' + k q + m g = 0.
  Gravity pulls toward -q, so it enters f as +m g; the equilibrium is q_e = -m g / k.
*/
#include <tsmech.h>
#include "models/springs.h"

typedef struct {
  PetscReal m, k, c, g, q0, v0;
} Oscillator;

static PetscErrorCode OscillatorForce(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
{
  const Oscillator  *o = (const Oscillator *)ctx;
  const PetscScalar *qa, *va;
  PetscScalar       *fa;
  PetscInt           n;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArrayRead(q, &qa));
  PetscCall(VecGetArrayRead(v, &va));
  PetscCall(VecGetArray(f, &fa));
  if (n) fa[0] = o->k * qa[0] + o->c * va[0] + o->m * o->g;
  PetscCall(VecRestoreArray(f, &fa));
  PetscCall(VecRestoreArrayRead(v, &va));
  PetscCall(VecRestoreArrayRead(q, &qa));
  PetscFunctionReturn(0);
}

static PetscErrorCode OscillatorTangent(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  const Oscillator *o = (const Oscillator *)ctx;
  PetscInt          n;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(VecGetLocalSize(q, &n));
  if (n) PetscCall(MatSetValue(J, 0, 0, cK * o->k + cD * o->c, ADD_VALUES));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode OscillatorPotential(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *potential, void *ctx)
{
  const Oscillator  *o = (const Oscillator *)ctx;
  const PetscScalar *qa;
  PetscInt           n;
  PetscReal          e = 0;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArrayRead(q, &qa));
  if (n) e = 0.5 * o->k * qa[0] * qa[0] + o->m * o->g * qa[0];
  PetscCall(VecRestoreArrayRead(q, &qa));
  /* Only rank 0 holds the dof; every rank must return the same energy */
  PetscCall(MPIU_Allreduce(&e, potential, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)q)));
  PetscFunctionReturn(0);
}

/*
  With x = q - q_e, a = c / (2 m) and beta2 = k / m - a^2, the solution of x'' + 2 a x' + (k/m) x = 0 is

      x(t) = e^{-a t} [x0 C(t) + (v0 + a x0) S(t)]
      v(t) = e^{-a t} [v0 C(t) - (a (v0 + a x0) + beta2 x0) S(t)]

  with (C, S) = (cos bt, sin(bt)/b), (1, t) or (cosh bt, sinh(bt)/b) for beta2 = b^2 > 0, = 0 or
  = -b^2 < 0. One formula for the three cases keeps it continuous through critical damping,
  where round-off decides which branch is taken.
*/
static PetscErrorCode OscillatorExact(MechSystem sys, PetscReal t, Vec q, Vec v, void *ctx)
{
  const Oscillator *o     = (const Oscillator *)ctx;
  const PetscReal   qe    = -o->m * o->g / o->k;
  const PetscReal   x0    = o->q0 - qe;
  const PetscReal   a     = o->c / (2 * o->m);
  const PetscReal   beta2 = o->k / o->m - a * a;
  const PetscReal   w     = o->v0 + a * x0;
  PetscReal         C, S;
  PetscScalar      *qa, *va;
  PetscInt          n;

  PetscFunctionBegin;
  (void)sys;
  if (beta2 > 0) {
    const PetscReal b = PetscSqrtReal(beta2), decay = PetscExpReal(-a * t);

    C = decay * PetscCosReal(b * t);
    S = decay * PetscSinReal(b * t) / b;
  } else if (beta2 < 0) {
    const PetscReal b = PetscSqrtReal(-beta2);

    if (PetscAbsReal(b * t) < 1) {
      const PetscReal decay = PetscExpReal(-a * t);

      C = decay * PetscCoshReal(b * t);
      S = decay * PetscSinhReal(b * t) / b;
    } else {
      /* Separate exponentials: e^{-at} cosh(bt) would overflow long before the product does */
      const PetscReal ep = PetscExpReal((b - a) * t), em = PetscExpReal(-(a + b) * t);

      C = 0.5 * (ep + em);
      S = 0.5 * (ep - em) / b;
    }
  } else {
    const PetscReal decay = PetscExpReal(-a * t);

    C = decay;
    S = decay * t;
  }
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArray(q, &qa));
  PetscCall(VecGetArray(v, &va));
  if (n) {
    qa[0] = qe + x0 * C + w * S;
    va[0] = o->v0 * C - (a * w + beta2 * x0) * S;
  }
  PetscCall(VecRestoreArray(v, &va));
  PetscCall(VecRestoreArray(q, &qa));
  PetscFunctionReturn(0);
}

/*@
  MechCreateOscillator - Creates the 1-D spring-damper with gravity of docs/schemes.md §5,
  m q'' + c q' + k q + m g = 0.

  Collective

  Input Parameter:
. comm - the communicator of the model

  Output Parameter:
. sys - the new mechanical system, named "oscillator"

  Options Database Keys:
+ -oscillator_m <1> - mass, positive
. -oscillator_k <4> - stiffness, positive
. -oscillator_c <0> - damping, non-negative (under-, critically or over-damped; the exact solution covers all three)
. -oscillator_g <9.81> - gravity, pulling toward -q
. -oscillator_q0 <1> - initial position
- -oscillator_v0 <0> - initial velocity

  Level: beginner

  Notes:
  One dof, on rank 0. Gravity enters f as +m g, so the equilibrium is q_e = -m g / k. The system
  is linear, has the potential energy and an exact solution, and has damping when c > 0.

.seealso: `MechCreateModel()`, `MechCreatePair()`, `MechSystemComputeExactSolution()`
@*/
PetscErrorCode MechCreateOscillator(MPI_Comm comm, MechSystem *sys)
{
  Oscillator opt = {1.0, 4.0, 0.0, 9.81, 1.0, 0.0}, *o;
  MechSystem s;
  Mat        J;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "Oscillator model options", "MechSystem");
  PetscCall(MechOptionsReal("-oscillator_m", "Mass", "MechCreateOscillator", opt.m, &opt.m, NULL));
  PetscCall(MechOptionsReal("-oscillator_k", "Spring stiffness", "MechCreateOscillator", opt.k, &opt.k, NULL));
  PetscCall(MechOptionsReal("-oscillator_c", "Damping coefficient", "MechCreateOscillator", opt.c, &opt.c, NULL));
  PetscCall(MechOptionsReal("-oscillator_g", "Gravity, pulling toward -q", "MechCreateOscillator", opt.g, &opt.g, NULL));
  PetscCall(MechOptionsReal("-oscillator_q0", "Initial position", "MechCreateOscillator", opt.q0, &opt.q0, NULL));
  PetscCall(MechOptionsReal("-oscillator_v0", "Initial velocity", "MechCreateOscillator", opt.v0, &opt.v0, NULL));
  PetscOptionsEnd();
  PetscCheck(opt.m > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-oscillator_m %g must be positive", (double)opt.m);
  PetscCheck(opt.k > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-oscillator_k %g must be positive", (double)opt.k);
  PetscCheck(opt.c >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-oscillator_c %g must be non-negative", (double)opt.c);

  PetscCall(PetscNew(&o));
  *o = opt;
  PetscCall(MechSystemCreate(comm, &s));
  PetscCall(MechSystemSetApplicationContext(s, o, PetscContainerUserDestroyDefault)); /* PetscFree() of o */
  PetscCall(MechSystemSetModelName(s, "oscillator"));
  PetscCall(MechSystemAddParameter(s, "m", o->m));
  PetscCall(MechSystemAddParameter(s, "k", o->k));
  PetscCall(MechSystemAddParameter(s, "c", o->c));
  PetscCall(MechSystemAddParameter(s, "g", o->g));
  PetscCall(MechSystemAddParameter(s, "q0", o->q0));
  PetscCall(MechSystemAddParameter(s, "v0", o->v0));

  PetscCall(MechModelSetUpSmall(s, 1, &o->m, &o->q0, &o->v0, &J));
  PetscCall(MechSystemSetForce(s, OscillatorForce, o));
  PetscCall(MechSystemSetTangent(s, J, o->c > 0 ? PETSC_TRUE : PETSC_FALSE, OscillatorTangent, o));
  PetscCall(MechSystemSetPotential(s, OscillatorPotential, o));
  PetscCall(MechSystemSetExactSolution(s, OscillatorExact, o));
  PetscCall(MechSystemSetLinear(s, PETSC_TRUE));
  PetscCall(MatDestroy(&J));
  *sys = s;
  PetscFunctionReturn(0);
}
