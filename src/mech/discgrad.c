/*
  Discrete gradients of the potential (Gonzalez, J. Nonlinear Sci. 6, 1996; docs/schemes.md,
  "discgrad2"): the model's own, or Gonzalez's generic midpoint one built from the force and the
  potential. Used by the energy-momentum type discgrad2.
*/
#include "mechimpl.h"

/*@C
  MechSystemSetDiscreteGradient - Gives the system its own discrete gradient of the potential.

  Logically Collective

  Input Parameters:
+ sys           - the mechanical system
. fn            - fbar(t, q0, q1, v): a discrete gradient of the potential between q0 and q1 plus the
                  non-conservative forces (damping, drag) at ((q0 + q1)/2, v)
. jac           - J = cK dfbar/dq1 + cD dfbar/dv into a matrix of the tangent's pattern, or NULL
. frameinvariant - whether fbar of rotated and translated states is fbar rotated (then linear and
                  angular momentum are conserved by discgrad2 where the model conserves them)
- ctx           - context of both callbacks

  Level: advanced

  Notes:
  A discrete gradient satisfies V(q1) - V(q0) = fbar . (q1 - q0) exactly and fbar(q, q) = grad V(q).
  Without one the system uses Gonzalez's generic midpoint discrete gradient
  (`MechSystemComputeDiscreteGradient()`), which conserves the energy but in general not the momenta.

.seealso: `MechSystemComputeDiscreteGradient()`, `MechSystemComputeDiscreteGradientOperator()`, `TSDISCGRAD2`
@*/
PetscErrorCode MechSystemSetDiscreteGradient(MechSystem sys, MechDiscreteGradientFn fn, MechDiscreteGradientJacobianFn jac, PetscBool frameinvariant, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  sys->discgrad      = fn;
  sys->discgradjac   = jac;
  sys->discgradctx   = ctx;
  sys->discgradframe = fn ? frameinvariant : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetDiscreteGradient - Tells whether the model gives its own discrete gradient and its
  properties.

  Not Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameters:
+ has            - the model gives one (else the generic midpoint one is used)
. frameinvariant - the discrete gradient in use is frame-invariant (the generic one is not in general)
- exactjacobian  - its derivative is known (else the midpoint tangent stands in for it)

  Level: advanced

.seealso: `MechSystemSetDiscreteGradient()`
@*/
PetscErrorCode MechSystemGetDiscreteGradient(MechSystem sys, PetscBool *has, PetscBool *frameinvariant, PetscBool *exactjacobian)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (has) *has = sys->discgrad ? PETSC_TRUE : PETSC_FALSE;
  if (frameinvariant) *frameinvariant = sys->discgradframe;
  if (exactjacobian) *exactjacobian = sys->discgradjac ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* A work vector like q kept on the system under a name (destroyed with it) */
static PetscErrorCode DiscGradWork(MechSystem sys, const char name[], Vec q, Vec *w)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)sys, name, (PetscObject *)w));
  if (!*w) {
    PetscCall(VecDuplicate(q, w));
    PetscCall(PetscObjectCompose((PetscObject)sys, name, (PetscObject)*w));
    PetscCall(VecDestroy(w)); /* the system holds it */
    PetscCall(PetscObjectQuery((PetscObject)sys, name, (PetscObject *)w));
  }
  PetscFunctionReturn(0);
}

/* Refuses what no discrete gradient of this system can handle, naming the reason */
static PetscErrorCode DiscGradCheck(MechSystem sys)
{
  const char *name = sys->modelname ? sys->modelname : "(unnamed)";

  PetscFunctionBegin;
  /* the model's own is between the states it is given, fixed dofs included; the generic one holds them at rest */
  PetscCheck(!sys->motion || sys->discgrad, PetscObjectComm((PetscObject)sys), PETSC_ERR_SUP, "Model %s: the generic discrete gradient with a prescribed motion of the fixed dofs is not supported (it holds them at rest)", name);
  PetscCheck(!sys->nonsymwhy, PetscObjectComm((PetscObject)sys), PETSC_ERR_SUP, "Model %s has a non-conservative force (%s): it has no discrete gradient", name, sys->nonsymwhy);
  PetscCheck(sys->discgrad || sys->potential, PetscObjectComm((PetscObject)sys), PETSC_ERR_SUP, "Model %s has neither a discrete gradient nor a potential energy (MechSystemSetPotential()): no discrete gradient can be formed", name);
  PetscFunctionReturn(0);
}

/*@
  MechSystemComputeDiscreteGradient - Computes fbar(t, q0, q1, v), zero on the fixed dofs.

  Collective

  Input Parameters:
+ sys - the mechanical system
. t   - the time (the step's midpoint time for discgrad2)
. q0  - the position at the start of the step
. q1  - the position at its end
- v   - the velocity at which the non-conservative forces are evaluated

  Output Parameter:
. fbar - the discrete gradient plus the non-conservative forces at ((q0 + q1)/2, v)

  Level: advanced

  Notes:
  Without the model's own (`MechSystemSetDiscreteGradient()`) this is Gonzalez's generic midpoint
  discrete gradient in the mass inner product, with qm = (q0 + q1)/2, d = q1 - q0 and
  g = f(t, qm, 0) the conservative force:

      fbar = f(t, qm, v) + [V(q1) - V(q0) - g . d] M d / (d . M d)

  (fbar = f(t, qm, v) when d = 0). It assumes that the model's non-conservative forces vanish at
  zero velocity and that its potential (`MechSystemSetPotential()`) is that of f(t, ., 0). Energy is
  exact; the momenta are not conserved in general (the correction is along M d, not a gradient of
  a frame-invariant function). The correction divides a difference of energies by d . M d: its
  round-off grows like eps V / |d| as the step's displacement goes to zero.

.seealso: `MechSystemSetDiscreteGradient()`, `MechSystemComputeDiscreteGradientOperator()`
@*/
PetscErrorCode MechSystemComputeDiscreteGradient(MechSystem sys, PetscReal t, Vec q0, Vec q1, Vec v, Vec fbar)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(MechSystemSetUp(sys));
  PetscCall(DiscGradCheck(sys));
  if (sys->discgrad) {
    PetscCall(PetscLogEventBegin(MECH_Force, sys, q1, v, fbar));
    PetscCall(MechSystemAgree(sys, (*sys->discgrad)(sys, t, q0, q1, v, fbar, sys->discgradctx), "discrete gradient"));
    if (sys->fixed) PetscCall(VecISSet(fbar, sys->fixed, 0.0));
    PetscCall(PetscLogEventEnd(MECH_Force, sys, q1, v, fbar));
  } else {
    Vec         qm, d, g, zero;
    PetscReal   V0, V1;
    PetscScalar gd, dMd;

    PetscCall(DiscGradWork(sys, "DiscGrad_qm", q0, &qm));
    PetscCall(DiscGradWork(sys, "DiscGrad_d", q0, &d));
    PetscCall(DiscGradWork(sys, "DiscGrad_g", q0, &g));
    PetscCall(DiscGradWork(sys, "DiscGrad_zero", q0, &zero));
    PetscCall(VecZeroEntries(zero));
    PetscCall(VecCopy(q0, qm)); /* q0 and q1 may be the same vector */
    PetscCall(VecAXPBY(qm, 0.5, 0.5, q1));
    PetscCall(VecWAXPY(d, -1.0, q0, q1));
    PetscCall(MechSystemComputeForce(sys, t, qm, v, fbar));
    PetscCall(MechSystemComputeForce(sys, t, qm, zero, g));
    PetscCall(MechSystemComputeEnergy(sys, t, q0, zero, NULL, &V0));
    PetscCall(MechSystemComputeEnergy(sys, t, q1, zero, NULL, &V1));
    if (sys->fixed) PetscCall(VecISSet(d, sys->fixed, 0.0));
    PetscCall(VecDot(g, d, &gd));
    PetscCall(MatMult(sys->Mfix, d, qm)); /* qm is free now: M d */
    PetscCall(VecDot(qm, d, &dMd));
    if (PetscRealPart(dMd) > 0) PetscCall(VecAXPY(fbar, (V1 - V0 - PetscRealPart(gd)) / PetscRealPart(dMd), qm));
  }
  PetscFunctionReturn(0);
}

/*@
  MechSystemComputeDiscreteGradientOperator - Computes J = cK dfbar/dq1 + cD dfbar/dv + cM M at
  (t, q0, q1, v), with the fixed dofs decoupled.

  Collective

  Input Parameters:
+ sys - the mechanical system
. t, q0, q1, v - the arguments of fbar (`MechSystemComputeDiscreteGradient()`)
- cK, cD, cM - the coefficients

  Output Parameters:
+ J     - the operator, a matrix from `MechSystemCreateOperator()`
- exact - whether J is the exact derivative (may be NULL)

  Level: advanced

  Notes:
  With the model's derivative (`MechSystemSetDiscreteGradient()`) J is exact. Otherwise it is the
  midpoint tangent cK/2 K + cD D at ((q0 + q1)/2, v), which differs from the exact derivative by
  O(|q1 - q0|) (for the generic discrete gradient also by the rank-2 derivative of its
  correction): good for preconditioning, and as Newton's matrix a linearly converging iteration.

.seealso: `MechSystemComputeDiscreteGradient()`, `MechSystemComputeOperator()`
@*/
PetscErrorCode MechSystemComputeDiscreteGradientOperator(MechSystem sys, PetscReal t, Vec q0, Vec q1, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, Mat J, PetscBool *exact)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidHeaderSpecific(J, MAT_CLASSID, 9);
  PetscCall(MechSystemSetUp(sys));
  PetscCall(DiscGradCheck(sys));
  if (exact) *exact = sys->discgradjac ? PETSC_TRUE : PETSC_FALSE;
  if (!sys->discgradjac) {
    Vec qm;

    PetscCall(DiscGradWork(sys, "DiscGrad_qmJ", q0, &qm));
    PetscCall(VecCopy(q0, qm)); /* q0 and q1 may be the same vector */
    PetscCall(VecAXPBY(qm, 0.5, 0.5, q1));
    PetscCall(MechSystemComputeOperator(sys, t, qm, v, 0.5 * cK, cD, cM, J));
    PetscFunctionReturn(0);
  }
  if (!sys->hasdamping) cD = 0;
  PetscCall(PetscLogStagePush(MECH_StageAssembly));
  PetscCall(PetscLogEventBegin(MECH_Operator, sys, J, 0, 0));
  PetscCall(MatZeroEntries(J));
  PetscCall(MechSystemAgree(sys, (*sys->discgradjac)(sys, t, q0, q1, v, cK, cD, J, sys->discgradctx), "discrete gradient derivative"));
  if (sys->fixed) PetscCall(MatZeroRowsColumnsIS(J, sys->fixed, 0.0, NULL, NULL));
  PetscCall(MechSystemAddMass_Private(sys, cM, J));
  PetscCall(PetscLogEventEnd(MECH_Operator, sys, J, 0, 0));
  PetscCall(PetscLogStagePop());
  PetscFunctionReturn(0);
}
