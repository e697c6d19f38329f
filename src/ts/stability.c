/*
  Step-size stability of the integrators: the largest frequency of a system linearized at a
  state, omega_max = sqrt(lambda_max(M^{-1} K)) (MechSystemEstimateMaxFrequency(), the highest mode
  of the modal analysis of src/mech/modes.c), and the largest stable step of a TS for that mode.

  The amplification of a TS type is measured rather than tabulated: the type itself (with the
  parameters of the given TS: theta, endpoint and linearized mode, the RK or SSP scheme, the
  alpha2 parameters) takes one step of the oscillator q'' + c q' + omega^2 q = 0 from (1, 0) and
  from (0, 1); the spectral radius of the resulting 2 x 2 matrix is the growth per step of the
  mode. This covers every one-step type, tsmech's and PETSc's, without a formula per scheme.
  (Types with history, such as the extrapolating guesses or multistep methods, are measured at a
  first step, where they have none.)
*/
#include "scheme.h"
#include <tsmech.h>
#include <petsc/private/petscimpl.h> /* PetscValidHeaderSpecific() */

/* The mode q'' + c q' + omega^2 q = 0 as a one-dof MechSystem */
typedef struct {
  PetscReal omega2, c;
} Mode;

static PetscErrorCode ModeForce(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
{
  Mode *m = (Mode *)ctx;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  PetscCall(VecAXPBYPCZ(f, m->omega2, m->c, 0.0, q, v));
  PetscFunctionReturn(0);
}

static PetscErrorCode ModeTangent(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  Mode *m = (Mode *)ctx;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)q;
  (void)v;
  PetscCall(MatSetValue(J, 0, 0, cK * m->omega2 + cD * m->c, ADD_VALUES));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode ModePotential(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *pe, void *ctx)
{
  Mode       *m = (Mode *)ctx;
  PetscScalar qq;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(VecDot(q, q, &qq));
  *pe = 0.5 * m->omega2 * PetscRealPart(qq);
  PetscFunctionReturn(0);
}

/* One step of size dt of the scheme of `ref` on the system `sys` (one dof) from (q0, v0) */
static PetscErrorCode ModeStep(TS ref, MechSystem sys, PetscReal dt, PetscReal q0, PetscReal v0, PetscReal *q1, PetscReal *v1)
{
  TS                 ts;
  TSAdapt            adapt;
  Vec                q, v;
  const PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(TSCreate(PETSC_COMM_SELF, &ts));
  /* a prefix nobody uses: the run's -ts_, -snes_, -ksp_ options do not apply to this problem */
  PetscCall(TSSetOptionsPrefix(ts, "tsmech_stability_"));
  PetscCall(TSMechSchemeCopy(ref, ts));
  PetscCall(TSMechSetSystem(ts, sys));
  PetscCall(TSSetTimeStep(ts, dt));
  PetscCall(TSSetMaxSteps(ts, 1));
  PetscCall(TSSetMaxTime(ts, 2 * dt));
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetErrorIfStepFails(ts, PETSC_FALSE));
  PetscCall(TSGetAdapt(ts, &adapt));
  PetscCall(TSAdaptSetType(adapt, TSADAPTNONE));
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(VecSet(q, q0));
  PetscCall(VecSet(v, v0));
  PetscCall(TSMechSetSolution(ts, q, v));
  PetscCall(TSSolve(ts, NULL));
  PetscCall(TSMechGetSolution(ts, q, v));
  PetscCall(VecGetArrayRead(q, &a));
  *q1 = PetscRealPart(a[0]);
  PetscCall(VecRestoreArrayRead(q, &a));
  PetscCall(VecGetArrayRead(v, &a));
  *v1 = PetscRealPart(a[0]);
  PetscCall(VecRestoreArrayRead(v, &a));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(TSDestroy(&ts));
  PetscFunctionReturn(0);
}

/* The oscillator q'' + c q' + omega^2 q = 0 as a one-dof system on PETSC_COMM_SELF */
static PetscErrorCode ModeCreate(Mode *mode, MechSystem *sys)
{
  MechSystem s;
  Mat        M, J;
  Vec        q, v;

  PetscFunctionBegin;
  PetscCall(MechSystemCreate(PETSC_COMM_SELF, &s));
  PetscCall(MechSystemSetOptionsPrefix(s, "tsmech_stability_"));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, 1, 1, 1, NULL, &M));
  PetscCall(MatSetValue(M, 0, 0, 1.0, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatDuplicate(M, MAT_COPY_VALUES, &J));
  PetscCall(MechSystemSetMass(s, M));
  PetscCall(MechSystemSetForce(s, ModeForce, mode));
  PetscCall(MechSystemSetTangent(s, J, mode->c > 0 ? PETSC_TRUE : PETSC_FALSE, ModeTangent, mode));
  PetscCall(MechSystemSetPotential(s, ModePotential, mode));
  PetscCall(MechSystemSetLinear(s, PETSC_TRUE));
  PetscCall(MatCreateVecs(M, &q, &v));
  PetscCall(VecSet(q, 0.0));
  PetscCall(VecSet(v, 0.0));
  PetscCall(MechSystemSetInitialState(s, q, v));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&M));
  PetscCall(MatDestroy(&J));
  *sys = s;
  PetscFunctionReturn(0);
}

/* The spectral radius of the step matrix [q1; v1] = G [q0; v0] of the mode at step dt */
static PetscErrorCode ModeAmplification(TS ref, MechSystem sys, PetscReal dt, PetscReal *rho)
{
  PetscReal g[4], tr, det, disc;

  PetscFunctionBegin;
  PetscCall(ModeStep(ref, sys, dt, 1.0, 0.0, &g[0], &g[2]));
  PetscCall(ModeStep(ref, sys, dt, 0.0, 1.0, &g[1], &g[3]));
  tr   = g[0] + g[3];
  det  = g[0] * g[3] - g[1] * g[2];
  disc = tr * tr - 4 * det;
  if (PetscIsInfOrNanReal(tr) || PetscIsInfOrNanReal(det)) *rho = PETSC_INFINITY;
  else if (disc >= 0) *rho = PetscMax(PetscAbsReal(tr + PetscSqrtReal(disc)), PetscAbsReal(tr - PetscSqrtReal(disc))) / 2;
  else *rho = PetscSqrtReal(PetscAbsReal(det)); /* a complex pair: |mu|^2 = det */
  PetscFunctionReturn(0);
}

/*@
  TSMechComputeAmplification - The growth per step of the scheme of a TS on the damped oscillator
  q'' + c q' + omega^2 q = 0: the spectral radius of its one-step matrix at step dt.

  Not Collective (the computation is local to each rank)

  Input Parameters:
+ ts    - a TS whose type and scheme parameters are used (it is not changed)
. omega - the frequency
. c     - the damping rate (0: undamped)
- dt    - the step

  Output Parameter:
. rho - the spectral radius; above 1 the mode grows, and the scheme is unstable at dt

  Level: advanced

  Notes:
  Measured by letting the TS type take one step of the oscillator from (1, 0) and from (0, 1),
  so it holds for any one-step type: explicit Euler sqrt(1 + (dt omega)^2) (undamped),
  symplectic Euler 1 up to dt omega = 2, the midpoint rule 1 for every dt, RK types their
  stability function on the mode's eigenvalues. Schemes with history are measured at a first
  step. A non-finite result of the step gives rho = PETSC_INFINITY.

.seealso: `TSMechEstimateStableStep()`, `MechSystemEstimateMaxFrequency()`
@*/
PetscErrorCode TSMechComputeAmplification(TS ts, PetscReal omega, PetscReal c, PetscReal dt, PetscReal *rho)
{
  Mode       mode;
  MechSystem sys;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidRealPointer(rho, 5);
  PetscCheck(dt > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The step %g must be positive", (double)dt);
  mode.omega2 = omega * omega;
  mode.c      = c;
  PetscCall(ModeCreate(&mode, &sys));
  PetscCall(ModeAmplification(ts, sys, dt, rho));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/*@
  TSMechEstimateStableStep - The largest step at which the scheme of a TS keeps the highest
  mode of the system, linearized at a state, from growing.

  Collective

  Input Parameters:
+ ts   - a TS whose type and scheme parameters are used (it is not changed)
. sys  - the system
. t    - the time
. q    - the positions of the state at which the system is linearized
- v    - its velocities

  Output Parameters:
+ dtmax   - the stable step: every step up to it amplifies the mode by at most 1 + 1e-8; 0 if even
            a step of 1e-3/omega amplifies it (explicit Euler without damping), PETSC_MAX_REAL if
            no step up to 1e4/omega does (an A-stable scheme) or the system does not oscillate
. omega   - the largest frequency (`MechSystemEstimateMaxFrequency()`); may be NULL
- damping - the damping rate of that mode; may be NULL

  Level: advanced

  Notes:
  For symplectic Euler the answer is 2/omega (undamped), for explicit Euler c/omega^2 (damped
  with rate c, 0 undamped), for RK types the reach of their stability region along the mode's
  eigenvalues. The growth is measured with `TSMechComputeAmplification()` on a grid of steps
  1.2 apart from 1e-3/omega, then bisected. The highest mode is the binding one for schemes whose
  stability region is bounded; lower modes with less damping can be the ones that grow under
  explicit Euler.

.seealso: `MechSystemEstimateMaxFrequency()`, `TSMechComputeAmplification()`
@*/
PetscErrorCode TSMechEstimateStableStep(TS ts, MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *dtmax, PetscReal *omega, PetscReal *damping)
{
  Mode            mode;
  MechSystem      msys;
  PetscReal       w, c, lo, hi, h, rho;
  PetscInt        k;
  const PetscReal tol = 1e-8;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 2);
  PetscValidRealPointer(dtmax, 6);
  PetscCall(MechSystemEstimateMaxFrequency(sys, t, q, v, &w, &c));
  if (omega) *omega = w;
  if (damping) *damping = c;
  *dtmax = PETSC_MAX_REAL;
  if (w <= 0) PetscFunctionReturn(0);
  mode.omega2 = w * w;
  mode.c      = c;
  PetscCall(ModeCreate(&mode, &msys));
  lo = 0;
  hi = -1;
  for (k = 0, h = 1e-3 / w; h <= 1e4 / w; k++, h *= 1.2) {
    PetscCall(ModeAmplification(ts, msys, h, &rho));
    if (rho > 1 + tol) {
      hi = h;
      break;
    }
    lo = h;
  }
  if (hi > 0 && lo > 0) {
    /* the first growing step lies in (lo, hi] */
    for (k = 0; k < 40 && hi - lo > 1e-6 * hi; k++) {
      h = 0.5 * (lo + hi);
      PetscCall(ModeAmplification(ts, msys, h, &rho));
      if (rho > 1 + tol) hi = h;
      else lo = h;
    }
    *dtmax = lo;
  } else if (hi > 0) *dtmax = 0;
  PetscCall(MechSystemDestroy(&msys));
  PetscFunctionReturn(0);
}
