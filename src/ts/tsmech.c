/*
  Attaching a MechSystem to a TS: the I2Function/I2Jacobian that TSALPHA2 and the tsmech types
  use, and the choice between the second-order and the automatic first-order form.
*/
#include "tsimpl2.h"
#include "../mech/mechimpl.h"
#include "scheme.h"
#include <petsc/private/tsimpl.h>
#include <petscdmda.h>

static PetscErrorCode MechMotionPostStep(TS);

/* F(t, q, v, a) = M a + f(t, q, v) */
static PetscErrorCode MechI2Function(TS ts, PetscReal t, Vec q, Vec v, Vec a, Vec F, void *ctx)
{
  MechSystem sys = (MechSystem)ctx;

  PetscFunctionBegin;
  (void)ts;
  PetscCall(MechSystemComputeForce(sys, t, q, v, F));
  PetscCall(MatMultAdd(sys->Mfix, a, F, F));
  PetscFunctionReturn(0);
}

/* dF/dq + shiftV dF/dv + shiftA dF/da = K + shiftV D + shiftA M */
static PetscErrorCode MechI2Jacobian(TS ts, PetscReal t, Vec q, Vec v, Vec a, PetscReal shiftV, PetscReal shiftA, Mat J, Mat P, void *ctx)
{
  MechSystem sys = (MechSystem)ctx;

  PetscFunctionBegin;
  (void)ts;
  (void)a;
  PetscCall(MechSystemComputeOperator(sys, t, q, v, 1.0, shiftV, shiftA, P));
  if (J != P) {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(0);
}

/*@
  TSMechSetSystem - Attaches a mechanical system to a `TS` and installs the residual and Jacobian
  of M q'' + f(t, q, q') = 0 in the second-order form.

  Collective

  Input Parameters:
+ ts  - the time stepper
- sys - the mechanical system, with its mass, force and tangent set

  Level: beginner

  Notes:
  Call it before `TSSetFromOptions()`. It installs, with `TSSetI2Function()` and
  `TSSetI2Jacobian()`, F(t, q, v, a) = M a + f(t, q, v) and its Jacobian
  K + shiftV D + shiftA M, which `TSALPHA2` and the tsmech types integrate. The Jacobian's matrix
  (from `MechSystemCreateOperator()`) is given by `TSMechSetSolution()`, once the type and with it
  the form (N or 2N unknowns) is known. The `TS` keeps a reference to the system, and the system
  takes the options prefix of the `TS`. The system's `DM` is not given to the `TS`.

  Once the type is known (after `TSSetFromOptions()`), give the initial state with
  `TSMechSetSolution()`, which also sets up PETSc's first-order types.

.seealso: `TSMechGetSystem()`, `TSMechSetSolution()`, `TSMechGetSolution()`, `MechSystemCreate()`, `MechCreateModel()`
@*/
PetscErrorCode TSMechSetSystem(TS ts, MechSystem sys)
{
  Vec         r;
  const char *prefix;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 2);
  PetscCall(MechSystemSetUp(sys));
  PetscCall(TSGetOptionsPrefix(ts, &prefix));
  PetscCall(MechSystemSetOptionsPrefix(sys, prefix));
  PetscCall(PetscObjectCompose((PetscObject)ts, "TSMech_System", (PetscObject)sys));
  PetscCall(MatCreateVecs(sys->M, &r, NULL));
  PetscCall(TSSetI2Function(ts, r, MechI2Function, sys));
  /* No matrix yet: SNESSetFromOptions() (inside TSSetFromOptions()) hands the SNES's matrix to
     the KSP, and a factorization PC gets its factor from it at once (MatGetFactor() in
     PCSetFromOptions_Factor()). An N x N matrix given here, under a type that turns out to be a
     first-order one (2N unknowns), left the LU/Cholesky/MUMPS factor N x N ("global dimensions
     are different"), and a SuperLU_dist factor that is never factored cannot even be destroyed
     in PETSc 3.18 (MatDestroy_SuperLU_DIST() looks for a communicator attribute only its
     symbolic factorization sets). TSMechSetSolution() gives the matrix of the form in use. */
  PetscCall(TSSetI2Jacobian(ts, NULL, NULL, MechI2Jacobian, sys));
  PetscCall(VecDestroy(&r));
  /* the system's DM is not given to the TS: the first-order form has 2N unknowns, not N */
  PetscFunctionReturn(0);
}

/*@
  TSMechGetSystem - Gets the mechanical system attached to a `TS`.

  Not Collective

  Input Parameter:
. ts - the time stepper

  Output Parameter:
. sys - the system of `TSMechSetSystem()` (NULL if none); not a new reference

  Level: intermediate

.seealso: `TSMechSetSystem()`
@*/
PetscErrorCode TSMechGetSystem(TS ts, MechSystem *sys)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscCall(PetscObjectQuery((PetscObject)ts, "TSMech_System", (PetscObject *)sys));
  PetscFunctionReturn(0);
}

/*
  TSALPHA2's Newton steps solve the rows of the fixed dofs exactly. Those rows are decoupled
  (MechSystemSetFixed(): zero force, the fixed rows and columns of K and D zero, M's decoupled)
  and affine in the unknown, so the exact Newton step there is Y_f = F_f / J_ff, with J_ff the
  diagonal of the Jacobian. A preconditioner that couples them to the rest (GAMG's smoothed
  aggregation) solves them only to the linear tolerance, and the fixed dofs drifted from step to
  step (17^2 cloth, 20 steps, -pc_type gamg -ksp_rtol 1e-2: 4e-10); a step from the exact values
  gives F_f = 0 and leaves them bitwise. The tsmech types hold the fixed dofs themselves
  (docs/schemes.md §2). Installed as the line search's pre-check, unless one is set.
*/
static PetscErrorCode MechFixedPreCheck(SNESLineSearch ls, Vec X, Vec Y, PetscBool *changed, void *ctx)
{
  MechSystem         sys = (MechSystem)ctx;
  SNES               snes;
  Mat                P;
  Vec                F;
  const PetscInt    *idx;
  const PetscScalar *f, *dm = NULL;
  PetscScalar       *y;
  PetscInt           n, rstart;
  PetscBool          mg;

  PetscFunctionBegin;
  (void)X;
  PetscCall(SNESLineSearchGetSNES(ls, &snes));
  PetscCall(SNESLineSearchGetVecs(ls, NULL, &F, NULL, NULL, NULL));
  /* the preconditioning matrix has the same fixed rows as J and always has entries, or (the
     matrix-free multigrid operator) its diagonal */
  PetscCall(SNESGetJacobian(snes, NULL, &P, NULL, NULL));
  PetscCall(MechOperatorIsMultigrid_Private(P, &mg));
  if (mg) {
    PetscCall(MatGetDiagonal(P, sys->work));
    PetscCall(VecGetArrayRead(sys->work, &dm));
  }
  PetscCall(ISGetLocalSize(sys->fixed, &n));
  PetscCall(ISGetIndices(sys->fixed, &idx));
  PetscCall(VecGetOwnershipRange(Y, &rstart, NULL));
  PetscCall(VecGetArrayRead(F, &f));
  PetscCall(VecGetArray(Y, &y));
  for (PetscInt k = 0; k < n; k++) {
    const PetscInt i = idx[k] - rstart;
    PetscScalar    d;

    if (dm) d = dm[i];
    else PetscCall(MatGetValues(P, 1, &idx[k], 1, &idx[k], &d));
    PetscCheck(d != 0.0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The Jacobian's diagonal entry of fixed dof %" PetscInt_FMT " is zero", idx[k]);
    y[i] = f[i] / d;
  }
  PetscCall(VecRestoreArray(Y, &y));
  PetscCall(VecRestoreArrayRead(F, &f));
  PetscCall(ISRestoreIndices(sys->fixed, &idx));
  if (dm) PetscCall(VecRestoreArrayRead(sys->work, &dm));
  *changed = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*
  The N x N Jacobian matrix of the second-order form, for the implicit second-order types: given
  only now that the type is known (TSMechSetSystem() explains why), unless the SNES has one.
*/
static PetscErrorCode TSMechSetUpSecondOrderJacobian(TS ts, MechSystem sys)
{
  PetscBool isexplicit;
  SNES      snes;
  Mat       J;

  PetscFunctionBegin;
  if (!sys) PetscFunctionReturn(0);
  PetscCall(TSMechIsExplicit(ts, &isexplicit));
  if (isexplicit) PetscFunctionReturn(0);
  PetscCall(TSGetSNES(ts, &snes));
  PetscCall(SNESGetJacobian(snes, &J, NULL, NULL, NULL));
  if (J) PetscFunctionReturn(0);
  {
    KSP       ksp;
    PC        pc;
    PetscBool ismg, has;

    /* -pc_type mg on a model with levels of its own: the matrix-free multigrid operator, never assembled */
    PetscCall(SNESGetKSP(snes, &ksp));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &ismg));
    PetscCall(MechSystemHasMultigrid(sys, &has));
    if (ismg && has) PetscCall(MechSystemCreateOperatorMultigrid(sys, &J));
    else PetscCall(MechSystemCreateOperator(sys, &J));
  }
  PetscCall(TSSetI2Jacobian(ts, J, J, MechI2Jacobian, sys));
  PetscCall(MatDestroy(&J));
  PetscFunctionReturn(0);
}

/*
  The linear solver of a second-order implicit type.

  With Eisenstat-Walker forcing terms (-snes_ksp_ew) the linear solve only needs to reduce the
  true residual by the forcing term, ||F + J s|| <= eta ||F||, which makes s a descent direction
  for the line search (Eisenstat & Walker, SIAM J. Sci. Comput. 17, 1996; docs/solvers.md §3).
  CG's default test on the preconditioned residual does not bound the true one: with a loose eta
  and a lagged ICC it accepted, after one iteration, a step that doubled the true residual, and
  Newton stalled (cloth 512^2, SNES DIVERGED_LOCAL_MIN). So CG tests the unpreconditioned
  residual under EW, unless -ksp_norm_type is given.

  The KSP works on the N unknowns of the system's grid, so it gets the DMDA, inactive (the
  operators stay the TS's): PCMG and other DM-aware preconditioners see the grid, and -pc_type mg
  gets its geometric hierarchy (MechSystemSetUpPCMG()). The first-order form has 2N unknowns and
  gets no DM.
*/

static PetscErrorCode TSMechSetUpSecondOrderSolver(TS ts, MechSystem sys)
{
  PetscBool   isda, isexplicit, ismg, iscg, ew, normset, isalpha2;
  SNES        snes;
  KSP         ksp;
  PC          pc;
  const char *prefix;

  PetscFunctionBegin;
  PetscCall(TSMechIsExplicit(ts, &isexplicit));
  if (isexplicit) PetscFunctionReturn(0);
  PetscCall(TSGetSNES(ts, &snes));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(SNESKSPGetUseEW(snes, &ew));
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPCG, &iscg));
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  PetscCall(PetscOptionsHasName(((PetscObject)ksp)->options, prefix, "-ksp_norm_type", &normset));
  if (ew && iscg && !normset) PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSALPHA2, &isalpha2));
  if (isalpha2 && sys && sys->fixed) {
    SNESLineSearch ls;
    PetscErrorCode (*pre)(SNESLineSearch, Vec, Vec, PetscBool *, void *);

    PetscCall(SNESGetLineSearch(snes, &ls));
    PetscCall(SNESLineSearchGetPreCheck(ls, &pre, NULL));
    if (!pre || pre == MechFixedPreCheck) PetscCall(SNESLineSearchSetPreCheck(ls, MechFixedPreCheck, sys));
  }
  if (!sys) PetscFunctionReturn(0);
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &ismg));
  if (ismg && sys->mgsetup) {
    Mat J, P;

    /* the model's own levels hang on the multigrid operator, the preconditioning matrix */
    PetscCall(SNESGetJacobian(snes, &J, &P, NULL, NULL));
    PetscCall(KSPSetOperators(ksp, J, P));
    PetscCall(MechSystemSetUpPCMG(sys, pc));
    PetscFunctionReturn(0);
  }
  if (!sys->dm) PetscFunctionReturn(0);
  PetscCall(PetscObjectTypeCompare((PetscObject)sys->dm, DMDA, &isda));
  if (isda) {
    PetscCall(KSPSetDM(ksp, sys->dm));
    PetscCall(KSPSetDMActive(ksp, PETSC_FALSE));
  }
  /* on a mesh without levels this refuses -pc_type mg with its reason */
  if (ismg) PetscCall(MechSystemSetUpPCMG(sys, pc));
  if (ismg && isda) {
    PetscBool        ours, baij;
    MatType          mtype;
    const char      *type;
    TSMechProperties p;

    /* the types of the Newton object form the coarse operators themselves (MechGridGalerkin());
       PCMG's own Galerkin products, which other types get, have no MATBAIJ version in PETSc */
    PetscCall(TSMechGetProperties(ts, &p));
    ours = p.owncoarse;
    PetscCall(DMGetMatType(sys->dm, &mtype));
    PetscCall(PetscStrendswith(mtype, "baij", &baij));
    PetscCall(TSGetType(ts, &type));
    PetscCheck(ours || !baij, PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP, "-dm_mat_type %s with -pc_type mg: PCMG's Galerkin products, which -ts_type %s uses, have no point-block (BAIJ) version in PETSc; use -dm_mat_type aij, or a tsmech type that forms them itself (TSMechGetProperties(): owncoarse; the implicit tsmech types of -help)", mtype, type);
  }
  PetscFunctionReturn(0);
}

/*@
  TSMechSetSolution - Gives a `TS` the initial state (q, v), in the form its type integrates.

  Collective

  Input Parameters:
+ ts - the time stepper, with its type set (after `TSSetFromOptions()`)
. q  - the initial position
- v  - the initial velocity

  Level: beginner

  Notes:
  The fixed dofs of the attached system are first set to their prescribed values in q and v at
  the TS's time (`MechSystemApplyFixedAt()`, in place: at rest, or where a prescribed motion is;
  a motion also gets a post-step that meets it at every step's end under PETSc's types, unless
  the TS has a post-step, which then must meet it itself with `MechSystemApplyFixedAt()`; the run
  guard's does). Second-order types (`TSMechIsSecondOrder()`)
  then get q and v themselves through `TS2SetSolution()` and, if implicit, the N x N Jacobian
  matrix (`MechSystemCreateOperator()`, unless the SNES has one); the KSP of an implicit one also gets the
  system's `DMDA` (inactive), and with -pc_type mg its grid hierarchy (`MechSystemSetUpPCMG()`);
  with Eisenstat-Walker linear tolerances (-snes_ksp_ew) a CG tests the unpreconditioned residual
  unless -ksp_norm_type is given (docs/solvers.md §3); under `TSALPHA2` a system with fixed dofs
  gets a line-search pre-check (unless one is set) that solves their decoupled rows of every
  Newton step exactly (docs/schemes.md §2). So call this after `TSSetFromOptions()`. PETSc's first-order types get the
  automatic form X = [q; v] (2N unknowns): an RHSFunction for the explicit types (`TSEULER`,
  `TSRK`, `TSSSP`, `TSMPRK`, `TSGLEE`), an IFunction and the 2N x 2N IJacobian for the others
  (`-pc_type cholesky` is refused: that Jacobian is not symmetric); they need an attached system
  (`TSMechSetSystem()`).

  For a linear system (`MechSystemSetLinear()`) the problem is declared `TS_LINEAR` (one linear
  solve per step) for every type but `TSALPHA2`, which updates its stage in the residual and
  would return a stale state (docs/schemes.md §7); the SNES options are read again, so an
  explicit -snes_type still wins.

.seealso: `TSMechGetSolution()`, `TSMechSetSystem()`, `MechSystemCreateState()`, `MechSystemApplyFixed()`, `MechSystemSetUpPCMG()`
@*/
PetscErrorCode TSMechSetSolution(TS ts, Vec q, Vec v)
{
  MechSystem sys;
  PetscBool  second;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscCall(TSMechGetSystem(ts, &sys));
  if (sys) PetscCall(MechSystemApplyFixedAt(sys, ts->ptime, q, v));
  if (sys && sys->motion && !ts->poststep) PetscCall(TSSetPostStep(ts, MechMotionPostStep));
  PetscCall(TSMechIsSecondOrder(ts, &second));
  if (sys && sys->linear) {
    PetscBool alpha2;
    /* A linear system needs one linear solve per step (SNESKSPONLY), except under TSALPHA2,
       which updates its stage in the residual callback and would return a stale state
       (docs/schemes.md §7). The options are read again so that an explicit -snes_type still wins. */
    PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSALPHA2, &alpha2));
    if (!alpha2) {
      SNES snes;
      PetscCall(TSSetProblemType(ts, TS_LINEAR));
      PetscCall(TSGetSNES(ts, &snes));
      PetscCall(SNESSetFromOptions(snes));
    }
  }
  if (sys && sys->nonsymwhy) {
    PetscBool isexplicit;

    /* a non-symmetric tangent (a follower load): CG, Cholesky, ICC refused with the reason */
    PetscCall(TSMechIsExplicit(ts, &isexplicit));
    if (!isexplicit) {
      SNES snes;
      KSP  ksp;

      PetscCall(TSGetSNES(ts, &snes));
      PetscCall(SNESGetKSP(snes, &ksp));
      PetscCall(MechSystemCheckSolver(sys, ksp));
    }
  }
  if (second) {
    PetscCall(TS2SetSolution(ts, q, v));
    PetscCall(TSMechSetUpSecondOrderJacobian(ts, sys));
    PetscCall(TSMechSetUpSecondOrderSolver(ts, sys));
  } else {
    const char *type;
    PetscCall(TSGetType(ts, &type));
    PetscCheck(sys, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONGSTATE, "TS type %s is a first-order type: it needs a MechSystem (TSMechSetSystem()) to build the form [q; v]", type);
    PetscCall(TSMechSetUpFirstOrder(ts, sys, q, v));
  }
  PetscFunctionReturn(0);
}

/*
  TSMechApplyFixedMotion - The end of a step of a PETSc type (TSALPHA2, the first-order types) with
  a prescribed motion: the fixed entries of q and v put where the motion is at the step's end. The
  tsmech types do so themselves (TSMechStepFinish()). The post-step TSMechSetSolution() installs,
  and the run guard's.
*/
PetscErrorCode TSMechApplyFixedMotion(TS ts)
{
  MechSystem       sys;
  PetscBool        motion = PETSC_FALSE;
  TSMechProperties p;

  PetscFunctionBegin;
  PetscCall(TSMechGetSystem(ts, &sys));
  if (sys) PetscCall(MechSystemHasFixedMotion(sys, &motion));
  if (!motion) PetscFunctionReturn(0);
  PetscCall(TSMechGetProperties(ts, &p));
  if (p.ownfixed) PetscFunctionReturn(0);
  if (p.secondorder) {
    Vec q, v;

    PetscCall(TS2GetSolution(ts, &q, &v));
    PetscCall(MechSystemApplyFixedAt(sys, ts->ptime, q, v));
  } else {
    Vec X;

    PetscCall(TSGetSolution(ts, &X));
    if (!sys->qm) PetscCall(VecDuplicate(sys->work, &sys->qm));
    if (!sys->vm) PetscCall(VecDuplicate(sys->work, &sys->vm));
    PetscCall(TSMechFirstOrderUnpack(ts, X, sys->qm, sys->vm));
    PetscCall(MechSystemApplyFixedAt(sys, ts->ptime, sys->qm, sys->vm));
    PetscCall(TSMechFirstOrderPack(ts, sys->qm, sys->vm, X));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MechMotionPostStep(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSMechApplyFixedMotion(ts));
  PetscFunctionReturn(0);
}

/*@
  TSMechGetSolution - Copies the current state of a `TS` into q and v, whichever form it integrates.

  Logically Collective

  Input Parameter:
. ts - the time stepper, whose solution was given with `TSMechSetSolution()`

  Output Parameters:
+ q - the position (may be NULL)
- v - the velocity (may be NULL)

  Level: beginner

.seealso: `TSMechSetSolution()`, `TSMechIsSecondOrder()`
@*/
PetscErrorCode TSMechGetSolution(TS ts, Vec q, Vec v)
{
  PetscBool second;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscCall(TSMechIsSecondOrder(ts, &second));
  if (second) {
    Vec qs, vs;
    PetscCall(TS2GetSolution(ts, &qs, &vs));
    if (q) PetscCall(VecCopy(qs, q));
    if (v) PetscCall(VecCopy(vs, v));
  } else {
    Vec X;
    PetscCall(TSGetSolution(ts, &X));
    PetscCall(TSMechFirstOrderUnpack(ts, X, q, v));
  }
  PetscFunctionReturn(0);
}
