/*
  The Kepler problem (Hairer, Lubich & Wanner 2006, §I.2): one body of unit mass around a fixed centre, GM = 1, q = (x, y).
  The semi-major axis is 1, so the period is 2 pi; the body starts at pericentre on the +x axis
  and moves counter-clockwise. Moved to the left-hand side, gravity is f = GM q / |q|^3.
*/
#include <tsmech.h>
#include "models/springs.h"

typedef struct {
  PetscReal GM, e;
} Kepler;

static PetscErrorCode KeplerRadius(const PetscScalar x[2], PetscReal *r)
{
  PetscFunctionBegin;
  *r = PetscSqrtReal(x[0] * x[0] + x[1] * x[1]);
  PetscCheck(*r > 0, PETSC_COMM_SELF, PETSC_ERR_FP, "Kepler model: the body reached the centre, where gravity is singular");
  PetscFunctionReturn(0);
}

static PetscErrorCode KeplerForce(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
{
  const Kepler      *kp = (const Kepler *)ctx;
  const PetscScalar *x;
  PetscScalar       *fa;
  PetscReal          r;
  PetscInt           n;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArrayRead(q, &x));
  PetscCall(VecGetArray(f, &fa));
  if (n) {
    PetscCall(KeplerRadius(x, &r));
    fa[0] = kp->GM * x[0] / (r * r * r);
    fa[1] = kp->GM * x[1] / (r * r * r);
  }
  PetscCall(VecRestoreArray(f, &fa));
  PetscCall(VecRestoreArrayRead(q, &x));
  PetscFunctionReturn(0);
}

/* K = GM (I / r^3 - 3 q q^T / r^5); there is no damping, so cD is never used. */
static PetscErrorCode KeplerTangent(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  const Kepler      *kp = (const Kepler *)ctx;
  const PetscScalar *x;
  const PetscInt     idx[2] = {0, 1};
  PetscScalar        K[4];
  PetscReal          r, r3, r5;
  PetscInt           n, i, j;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  (void)cD;
  PetscCall(VecGetLocalSize(q, &n));
  if (n) {
    PetscCall(VecGetArrayRead(q, &x));
    PetscCall(KeplerRadius(x, &r));
    r3 = r * r * r;
    r5 = r3 * r * r;
    for (i = 0; i < 2; i++)
      for (j = 0; j < 2; j++) K[2 * i + j] = cK * kp->GM * ((i == j ? 1 / r3 : 0) - 3 * x[i] * x[j] / r5);
    PetscCall(VecRestoreArrayRead(q, &x));
    PetscCall(MatSetValues(J, 2, idx, 2, idx, K, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode KeplerPotential(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *potential, void *ctx)
{
  const Kepler      *kp = (const Kepler *)ctx;
  const PetscScalar *x;
  PetscReal          r, e = 0;
  PetscInt           n;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArrayRead(q, &x));
  if (n) {
    PetscCall(KeplerRadius(x, &r));
    e = -kp->GM / r;
  }
  PetscCall(VecRestoreArrayRead(q, &x));
  PetscCall(MPIU_Allreduce(&e, potential, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)q)));
  PetscFunctionReturn(0);
}

/*
  The exact discrete gradient of the central potential -GM/r (Gonzalez 1996, docs/schemes.md
  "discgrad2"): fbar = s qm along the midpoint position qm = (q0 + q1)/2, with
  s = [V(r1) - V(r0)] / [(r1^2 - r0^2)/2] = 2 GM / (r0 r1 (r0 + r1)) (GM / r^3 at r0 = r1).
*/
static PetscErrorCode KeplerDiscreteGradient(MechSystem sys, PetscReal t, Vec q0, Vec q1, Vec v, Vec f, void *ctx)
{
  const Kepler      *kp = (const Kepler *)ctx;
  const PetscScalar *x0, *x1;
  PetscScalar       *fa;
  PetscReal          r0, r1, s;
  PetscInt           n, i;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(VecGetLocalSize(q0, &n));
  PetscCall(VecGetArrayRead(q0, &x0));
  PetscCall(VecGetArrayRead(q1, &x1));
  PetscCall(VecGetArray(f, &fa));
  if (n) {
    PetscCall(KeplerRadius(x0, &r0));
    PetscCall(KeplerRadius(x1, &r1));
    s = 2 * kp->GM / (r0 * r1 * (r0 + r1));
    for (i = 0; i < 2; i++) fa[i] = s * 0.5 * (x0[i] + x1[i]);
  }
  PetscCall(VecRestoreArray(f, &fa));
  PetscCall(VecRestoreArrayRead(q1, &x1));
  PetscCall(VecRestoreArrayRead(q0, &x0));
  PetscFunctionReturn(0);
}

/* cK dfbar/dq1 = cK [s/2 I + qm (ds/dr1) q1^T / r1], ds/dr1 = -2 GM r0 (r0 + 2 r1) / (r0 r1 (r0 + r1))^2 */
static PetscErrorCode KeplerDiscreteGradientJacobian(MechSystem sys, PetscReal t, Vec q0, Vec q1, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  const Kepler      *kp = (const Kepler *)ctx;
  const PetscScalar *x0, *x1;
  const PetscInt     idx[2] = {0, 1};
  PetscScalar        K[4];
  PetscReal          r0, r1, s, ds, den;
  PetscInt           n, i, j;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  (void)cD;
  PetscCall(VecGetLocalSize(q0, &n));
  if (n) {
    PetscCall(VecGetArrayRead(q0, &x0));
    PetscCall(VecGetArrayRead(q1, &x1));
    PetscCall(KeplerRadius(x0, &r0));
    PetscCall(KeplerRadius(x1, &r1));
    den = r0 * r1 * (r0 + r1);
    s   = 2 * kp->GM / den;
    ds  = -2 * kp->GM * r0 * (r0 + 2 * r1) / (den * den);
    for (i = 0; i < 2; i++)
      for (j = 0; j < 2; j++) K[2 * i + j] = cK * ((i == j ? 0.5 * s : 0) + 0.5 * (x0[i] + x1[i]) * ds * x1[j] / r1);
    PetscCall(VecRestoreArrayRead(q1, &x1));
    PetscCall(VecRestoreArrayRead(q0, &x0));
    PetscCall(MatSetValues(J, 2, idx, 2, idx, K, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* Angular momentum per unit mass, x v_y - y v_x */
static PetscErrorCode KeplerAngularMomentum(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *value, void *ctx)
{
  const PetscScalar *x, *u;
  PetscReal          l = 0;
  PetscInt           n;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)ctx;
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArrayRead(q, &x));
  PetscCall(VecGetArrayRead(v, &u));
  if (n) l = x[0] * u[1] - x[1] * u[0];
  PetscCall(VecRestoreArrayRead(v, &u));
  PetscCall(VecRestoreArrayRead(q, &x));
  PetscCall(MPIU_Allreduce(&l, value, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)q)));
  PetscFunctionReturn(0);
}

/*
  The orbit through Kepler's equation E - e sin E = t (mean motion 1): x = cos E - e,
  y = sqrt(1 - e^2) sin E. The equation is odd in (E, t), so it is solved for a mean anomaly in
  [0, pi], where Newton from E = pi converges for every e in [0, 1); that also keeps E small near
  pericentre, where round-off in the residual would otherwise be amplified by 1 / (1 - e).
*/
static PetscErrorCode KeplerExact(MechSystem sys, PetscReal t, Vec q, Vec v, void *ctx)
{
  const Kepler   *kp = (const Kepler *)ctx;
  const PetscReal e = kp->e, b = PetscSqrtReal(1 - e * e);
  PetscReal       mean, sign = 1, E = PETSC_PI, dE, res, Edot;
  PetscScalar    *x, *u;
  PetscInt        n, it;

  PetscFunctionBegin;
  (void)sys;
  mean = PetscFmodReal(t, 2 * PETSC_PI);
  if (mean > PETSC_PI) mean -= 2 * PETSC_PI;
  if (mean < -PETSC_PI) mean += 2 * PETSC_PI;
  if (mean < 0) {
    sign = -1;
    mean = -mean;
  }
  for (it = 0; it < 100; it++) {
    dE = (E - e * PetscSinReal(E) - mean) / (1 - e * PetscCosReal(E));
    E -= dE;
    if (PetscAbsReal(dE) <= 1e-15 * (1 + E)) break;
  }
  res = E - e * PetscSinReal(E) - mean;
  PetscCheck(PetscAbsReal(res) <= 1e-13, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "Kepler's equation did not converge at t = %g for -kepler_e %g: residual %g", (double)t, (double)e, (double)res);
  E *= sign;
  Edot = 1 / (1 - e * PetscCosReal(E));
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArray(q, &x));
  PetscCall(VecGetArray(v, &u));
  if (n) {
    x[0] = PetscCosReal(E) - e;
    x[1] = b * PetscSinReal(E);
    u[0] = -PetscSinReal(E) * Edot;
    u[1] = b * PetscCosReal(E) * Edot;
  }
  PetscCall(VecRestoreArray(v, &u));
  PetscCall(VecRestoreArray(q, &x));
  PetscFunctionReturn(0);
}

/*@
  MechCreateKepler - Creates the Kepler problem (Hairer, Lubich & Wanner 2006, §I.2): one body of
  unit mass in the plane around a fixed centre, GM = 1, semi-major axis 1, period 2 pi.

  Collective

  Input Parameter:
. comm - the communicator of the model

  Output Parameter:
. sys - the new mechanical system, named "kepler"

  Options Database Key:
. -kepler_e <0.6> - eccentricity, in [0, 1)

  Level: beginner

  Notes:
  q = (x, y), both dofs on rank 0, and f = GM q / |q|^3. The body starts at pericentre,
  q0 = (1 - e, 0), v0 = (0, sqrt((1 + e) / (1 - e))), and moves counter-clockwise. The system has
  the potential energy, the invariant "angular_momentum" and an exact solution (through Kepler's
  equation); it is nonlinear and undamped. Reaching the centre is an error.

.seealso: `MechCreateModel()`, `MechSystemComputeExactSolution()`, `MechSystemComputeInvariant()`
@*/
PetscErrorCode MechCreateKepler(MPI_Comm comm, MechSystem *sys)
{
  Kepler     opt = {1.0, 0.6}, *kp;
  MechSystem s;
  Mat        J;
  PetscReal  mass[2] = {1, 1}, q0[2], v0[2];

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "Kepler model options", "MechSystem");
  PetscCall(MechOptionsReal("-kepler_e", "Eccentricity, in [0, 1)", "MechCreateKepler", opt.e, &opt.e, NULL));
  PetscOptionsEnd();
  PetscCheck(opt.e >= 0 && opt.e < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-kepler_e %g must be in [0, 1)", (double)opt.e);

  PetscCall(PetscNew(&kp));
  *kp = opt;
  PetscCall(MechSystemCreate(comm, &s));
  PetscCall(MechSystemSetApplicationContext(s, kp, PetscContainerUserDestroyDefault)); /* PetscFree() of kp */
  PetscCall(MechSystemSetModelName(s, "kepler"));
  PetscCall(MechSystemAddParameter(s, "GM", kp->GM));
  PetscCall(MechSystemAddParameter(s, "e", kp->e));

  /* at pericentre */
  q0[0] = 1 - kp->e;
  q0[1] = 0;
  v0[0] = 0;
  v0[1] = PetscSqrtReal((1 + kp->e) / (1 - kp->e));
  PetscCall(MechModelSetUpSmall(s, 2, mass, q0, v0, &J));
  PetscCall(MechSystemSetForce(s, KeplerForce, kp));
  PetscCall(MechSystemSetTangent(s, J, PETSC_FALSE, KeplerTangent, kp));
  PetscCall(MechSystemSetPotential(s, KeplerPotential, kp));
  PetscCall(MechSystemSetDiscreteGradient(s, KeplerDiscreteGradient, KeplerDiscreteGradientJacobian, PETSC_TRUE, kp));
  PetscCall(MechSystemSetExactSolution(s, KeplerExact, kp));
  PetscCall(MechSystemAddInvariant(s, "angular_momentum", KeplerAngularMomentum, kp));
  PetscCall(MechSystemSetLinear(s, PETSC_FALSE));
  PetscCall(MatDestroy(&J));
  *sys = s;
  PetscFunctionReturn(0);
}
