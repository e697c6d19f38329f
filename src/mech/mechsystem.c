/*
  The mechanical system M q'' + f(t, q, q') = 0: one description from which every integrator
  (tsmech's, TSALPHA2, PETSc's first-order types) is driven.

  Fixed degrees of freedom are imposed here, once, so that every consumer sees the same
  system: their force is zero, their rows and columns of K and D are zero, and their rows and
  columns of M are decoupled with the diagonal kept. With v = 0 and q at its prescribed value
  at the start, every integrator then keeps them where they are, and symmetric operators stay
  symmetric (CG and AMG remain usable).
*/
#include "mechimpl.h"

PetscClassId  MECHSYSTEM_CLASSID = 0;
PetscLogEvent MECH_Force = 0, MECH_Operator = 0, MECH_MassSolve = 0, MECH_Linearize = 0, MECH_Apply = 0;
PetscLogStage MECH_StageAssembly = -1, MECH_StageIO = -1;

/*@C
  MechSystemCreate - Creates an empty mechanical system.
@*/
PetscErrorCode MechSystemCreate(MPI_Comm comm, MechSystem *sys)
{
  MechSystem s;

  PetscFunctionBegin;
  PetscValidPointer(sys, 2);
  /* the TS types too, not only the mech package: programs create their system, then call
     TSSetType() with a tsmech type before anything else of tsmech (README, "Using tsmech from C") */
  PetscCall(TSMechInitializePackage());
  PetscCall(PetscHeaderCreate(s, MECHSYSTEM_CLASSID, "MechSystem", "Mechanical system M q'' + f(t,q,q') = 0", "MechSystem", comm, MechSystemDestroy, MechSystemView));
  *sys = s;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemDestroy - Destroys a mechanical system (reference counted).
@*/
PetscErrorCode MechSystemDestroy(MechSystem *sys)
{
  MechSystem s;

  PetscFunctionBegin;
  if (!sys || !*sys) PetscFunctionReturn(0);
  s = *sys;
  PetscValidHeaderSpecific(s, MECHSYSTEM_CLASSID, 1);
  if (--((PetscObject)s)->refct > 0) {
    *sys = NULL;
    PetscFunctionReturn(0);
  }
  PetscCall(MatDestroy(&s->M));
  PetscCall(MatDestroy(&s->Mfix));
  PetscCall(VecDestroy(&s->Mdiag));
  PetscCall(KSPDestroy(&s->massksp));
  PetscCall(MatDestroy(&s->Jpattern));
  PetscCall(ISDestroy(&s->fixed));
  PetscCall(VecDestroy(&s->fixedvalues));
  for (PetscInt i = 0; i < s->ninvariants; i++) PetscCall(PetscFree(s->invname[i]));
  for (PetscInt i = 0; i < s->nparams; i++) PetscCall(PetscFree(s->paramname[i]));
  PetscCall(PetscFree(s->modelname));
  PetscCall(DMDestroy(&s->dm));
  PetscCall(VecDestroy(&s->q0));
  PetscCall(VecDestroy(&s->v0));
  PetscCall(VecDestroy(&s->work));
  if (s->appdestroy) PetscCall((*s->appdestroy)(s->appctx));
  PetscCall(PetscHeaderDestroy(sys));
  PetscFunctionReturn(0);
}

/*@C
  MechSystemView - Prints the model, its parameters, sizes and properties.

  Collective

  Input Parameters:
+ sys    - the mechanical system
- viewer - an ASCII viewer (NULL: standard output of the system's communicator)

  Notes:
  One line gives the model name, the global number of dofs, the number of fixed dofs, whether
  the system is declared linear, whether M is lumped (diagonal) or consistent, and whether it
  has damping; then the model's parameters and, once an explicit type has created it, the KSP
  of the mass solve (options prefix mass_). The views of the tsmech TS types (-ts_view) call it.

.seealso: `MechSystemCreate()`, `MechSystemSolveMass()`, `TSMechSetSystem()`
@*/
PetscErrorCode MechSystemView(MechSystem sys, PetscViewer viewer)
{
  PetscBool iascii;
  PetscInt  N = 0, nfix = 0;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(PetscObjectComm((PetscObject)sys), &viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
  if (sys->M && sys->force && sys->tangent) PetscCall(MechSystemSetUp(sys));
  if (sys->M) PetscCall(MatGetSize(sys->M, &N, NULL));
  if (sys->fixed) {
    PetscInt n = 0;
    PetscCall(ISGetLocalSize(sys->fixed, &n));
    PetscCall(MPIU_Allreduce(&n, &nfix, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)sys)));
  }
  {
    const char *prefix;
    PetscMPIInt size;
    PetscCall(PetscObjectGetOptionsPrefix((PetscObject)sys, &prefix));
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)sys), &size));
    PetscCall(PetscViewerASCIIPrintf(viewer, "MechSystem Object:%s%s %d MPI process%s\n", prefix ? " " : "", prefix ? prefix : "", size, size > 1 ? "es" : ""));
  }
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "model: %s, %" PetscInt_FMT " dofs, %" PetscInt_FMT " fixed, %s, %s mass, %s\n", sys->modelname ? sys->modelname : "(user)", N, nfix, sys->linear ? "linear" : "nonlinear", sys->massdiag ? "lumped" : "consistent", sys->hasdamping ? "damped" : "undamped"));
  for (PetscInt i = 0; i < sys->nparams; i++) PetscCall(PetscViewerASCIIPrintf(viewer, "%s = %g\n", sys->paramname[i], (double)sys->paramvalue[i]));
  /* created by the first MechSystemSolveMass() (explicit types), so shown once it exists */
  if (sys->massksp) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "mass solver (M x = b):\n"));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(KSPView(sys->massksp, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetMass - Sets the constant mass matrix (assembled; lumped or consistent).
@*/
PetscErrorCode MechSystemSetMass(MechSystem sys, Mat M)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidHeaderSpecific(M, MAT_CLASSID, 2);
  PetscCall(PetscObjectReference((PetscObject)M));
  PetscCall(MatDestroy(&sys->M));
  sys->M           = M;
  sys->setupcalled = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetMass - Gets the mass matrix as given (not the fixed-dof decoupled copy).
@*/
PetscErrorCode MechSystemGetMass(MechSystem sys, Mat *M)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *M = sys->M;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetForce - Sets the force callback f(t, q, v).
@*/
PetscErrorCode MechSystemSetForce(MechSystem sys, MechForceFn fn, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  sys->force    = fn;
  sys->forcectx = ctx;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetTangent - Sets the tangent callback J = cK K + cD D and a matrix with the sparsity
  of K + D + M; hasdamping false means D = 0.
@*/
PetscErrorCode MechSystemSetTangent(MechSystem sys, Mat J, PetscBool hasdamping, MechTangentFn fn, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidHeaderSpecific(J, MAT_CLASSID, 2);
  PetscCall(PetscObjectReference((PetscObject)J));
  PetscCall(MatDestroy(&sys->Jpattern));
  sys->Jpattern   = J;
  sys->hasdamping = hasdamping;
  sys->tangent    = fn;
  sys->tangentctx = ctx;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetTangentDefinite - Sets an optional second tangent callback that assembles a positive
  semidefinite approximation of cK K + cD D, for preconditioning matrices only.

  Logically Collective

  Input Parameters:
+ sys - the mechanical system
. fn  - the callback, with the signature and duties of the exact one (MechTangentFn): it fills
        the matrix of MechSystemSetTangent()'s pattern (zeroed on entry) and assembles it; NULL removes it
- ctx - its context

  Notes:
  The tangent of a spring with a rest length is indefinite when the spring is compressed, and then
  M + theta tau D + theta^2 tau^2 K may be too: CG with an incomplete Cholesky or an algebraic
  multigrid preconditioner built from it stagnates or stops with KSP_DIVERGED_INDEFINITE_PC. A
  model can provide the clamped tangent (per spring k [max(0, 1 - L/l)(I - n n^T) + n n^T], Choi &
  Ko, SIGGRAPH 2002; for elements, the element tangent projected onto its semidefinite part, Teran
  et al., SCA 2005) here. Used only for the preconditioning matrix (TSTheta2SetPCDefinite()),
  it changes how fast the linear solver converges, never what Newton converges to.
  MechSystemComputeOperatorDefinite() falls back to the exact tangent when no callback is set.

.seealso: `MechSystemSetTangent()`, `MechSystemComputeOperatorDefinite()`, `TSTheta2SetPCDefinite()`
@*/
PetscErrorCode MechSystemSetTangentDefinite(MechSystem sys, MechTangentFn fn, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  sys->tangentdef    = fn;
  sys->tangentdefctx = ctx;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemHasTangentDefinite - Whether the model gives a semidefinite approximation of its
  tangent (MechSystemSetTangentDefinite()).
@*/
PetscErrorCode MechSystemHasTangentDefinite(MechSystem sys, PetscBool *has)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidBoolPointer(has, 2);
  *has = sys->tangentdef ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetFixed - Sets the fixed degrees of freedom and, optionally, their prescribed values.
@*/
PetscErrorCode MechSystemSetFixed(MechSystem sys, IS fixed, Vec values)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (fixed) PetscCall(PetscObjectReference((PetscObject)fixed));
  PetscCall(ISDestroy(&sys->fixed));
  sys->fixed = fixed;
  PetscCall(VecDestroy(&sys->fixedvalues));
  if (values) PetscCall(VecDuplicate(values, &sys->fixedvalues));
  if (values) PetscCall(VecCopy(values, sys->fixedvalues));
  sys->setupcalled = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetFixed - Gets the fixed degrees of freedom (NULL if none).
@*/
PetscErrorCode MechSystemGetFixed(MechSystem sys, IS *fixed)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *fixed = sys->fixed;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetPotential - Sets the potential energy callback.
@*/
PetscErrorCode MechSystemSetPotential(MechSystem sys, MechPotentialFn fn, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  sys->potential    = fn;
  sys->potentialctx = ctx;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetExactSolution - Sets the exact solution callback of models that have one.
@*/
PetscErrorCode MechSystemSetExactSolution(MechSystem sys, MechExactFn fn, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  sys->exact    = fn;
  sys->exactctx = ctx;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemAddInvariant - Adds a named invariant of the motion, reported by monitors and output.
@*/
PetscErrorCode MechSystemAddInvariant(MechSystem sys, const char name[], MechInvariantFn fn, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCheck(sys->ninvariants < MECH_MAX_INVARIANTS, PetscObjectComm((PetscObject)sys), PETSC_ERR_SUP, "At most %d invariants", MECH_MAX_INVARIANTS);
  PetscCall(PetscStrallocpy(name, &sys->invname[sys->ninvariants]));
  sys->invariant[sys->ninvariants]    = fn;
  sys->invariantctx[sys->ninvariants] = ctx;
  sys->ninvariants++;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetLinear - Declares f affine in (q, v), so K and D are constant.
@*/
PetscErrorCode MechSystemSetLinear(MechSystem sys, PetscBool linear)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  sys->linear = linear;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetLinear - Tells whether f was declared affine.
@*/
PetscErrorCode MechSystemGetLinear(MechSystem sys, PetscBool *linear)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *linear = sys->linear;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetDM - Sets the DM the state lives on (grid models, output).
@*/
PetscErrorCode MechSystemSetDM(MechSystem sys, DM dm)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (dm) PetscCall(PetscObjectReference((PetscObject)dm));
  PetscCall(DMDestroy(&sys->dm));
  sys->dm = dm;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetDM - Gets the DM of the system (NULL if none).
@*/
PetscErrorCode MechSystemGetDM(MechSystem sys, DM *dm)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *dm = sys->dm;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetInitialState - Sets (copies) the initial state.
@*/
PetscErrorCode MechSystemSetInitialState(MechSystem sys, Vec q, Vec v)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (!sys->q0) PetscCall(VecDuplicate(q, &sys->q0));
  if (!sys->v0) PetscCall(VecDuplicate(q, &sys->v0));
  PetscCall(VecCopy(q, sys->q0));
  if (v) PetscCall(VecCopy(v, sys->v0));
  else PetscCall(VecZeroEntries(sys->v0));
  PetscFunctionReturn(0);
}

/*@C
  MechSystemCreateState - Creates vectors holding the initial state (zero if none was set);
  either pointer may be NULL.
@*/
PetscErrorCode MechSystemCreateState(MechSystem sys, Vec *q, Vec *v)
{
  Vec *out[2] = {q, v}, init[2];

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCheck(sys->q0 || sys->M, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_WRONGSTATE, "Set the mass matrix or the initial state before creating state vectors");
  init[0] = sys->q0;
  init[1] = sys->v0;
  for (PetscInt i = 0; i < 2; i++) {
    if (!out[i]) continue;
    if (init[i]) {
      PetscCall(VecDuplicate(init[i], out[i]));
      PetscCall(VecCopy(init[i], *out[i]));
    } else {
      PetscCall(MatCreateVecs(sys->M, out[i], NULL));
      PetscCall(VecZeroEntries(*out[i]));
    }
  }
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetApplicationContext - Attaches a model's private data, destroyed with the system.
@*/
PetscErrorCode MechSystemSetApplicationContext(MechSystem sys, void *ctx, PetscErrorCode (*destroy)(void *))
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  sys->appctx     = ctx;
  sys->appdestroy = destroy;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetApplicationContext - Gets the model's private data (pass the address of a pointer).
@*/
PetscErrorCode MechSystemGetApplicationContext(MechSystem sys, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *(void **)ctx = sys->appctx;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetModelName - Names the model (for views and output metadata).
@*/
PetscErrorCode MechSystemSetModelName(MechSystem sys, const char name[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(PetscFree(sys->modelname));
  PetscCall(PetscStrallocpy(name, &sys->modelname));
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetModelName - Gets the model name (NULL for a user system).
@*/
PetscErrorCode MechSystemGetModelName(MechSystem sys, const char **name)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *name = sys->modelname;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemAddParameter - Records a model parameter (for views and output metadata).
@*/
PetscErrorCode MechSystemAddParameter(MechSystem sys, const char name[], PetscReal value)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCheck(sys->nparams < MECH_MAX_PARAMS, PetscObjectComm((PetscObject)sys), PETSC_ERR_SUP, "At most %d parameters", MECH_MAX_PARAMS);
  PetscCall(PetscStrallocpy(name, &sys->paramname[sys->nparams]));
  sys->paramvalue[sys->nparams++] = value;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetParameters - Gets the recorded model parameters.
@*/
PetscErrorCode MechSystemGetParameters(MechSystem sys, PetscInt *n, const char *const **names, const PetscReal **values)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (n) *n = sys->nparams;
  if (names) *names = (const char *const *)sys->paramname;
  if (values) *values = sys->paramvalue;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetOptionsPrefix - Sets the prefix of the system's options (its mass KSP uses
  <prefix>mass_).
@*/
PetscErrorCode MechSystemSetOptionsPrefix(MechSystem sys, const char prefix[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)sys, prefix));
  PetscFunctionReturn(0);
}

/* A matrix is diagonal when every local row holds at most its diagonal entry. */
static PetscErrorCode MatIsDiagonal_Private(Mat A, PetscBool *diag)
{
  PetscInt  rstart, rend;
  PetscBool isdiag = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend && isdiag; i++) {
    PetscInt           ncols;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscCall(MatGetRow(A, i, &ncols, &cols, &vals));
    for (PetscInt k = 0; k < ncols; k++)
      if (cols[k] != i && vals[k] != 0.0) isdiag = PETSC_FALSE;
    PetscCall(MatRestoreRow(A, i, &ncols, &cols, &vals));
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &isdiag, 1, MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  *diag = isdiag;
  PetscFunctionReturn(0);
}

/*
  MechSystemSetUp - Checks the description and builds the decoupled mass matrix. Called by
  every consumer; cheap when nothing changed.
*/
PetscErrorCode MechSystemSetUp(MechSystem sys)
{
  MPI_Comm comm;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (sys->setupcalled) PetscFunctionReturn(0);
  comm = PetscObjectComm((PetscObject)sys);
  PetscCheck(sys->M, comm, PETSC_ERR_ARG_WRONGSTATE, "MechSystem has no mass matrix: call MechSystemSetMass()");
  PetscCheck(sys->force, comm, PETSC_ERR_ARG_WRONGSTATE, "MechSystem has no force: call MechSystemSetForce()");
  PetscCheck(sys->tangent && sys->Jpattern, comm, PETSC_ERR_ARG_WRONGSTATE, "MechSystem has no tangents: call MechSystemSetTangent()");
  PetscCall(MatDestroy(&sys->Mfix));
  PetscCall(VecDestroy(&sys->Mdiag));
  PetscCall(MatDuplicate(sys->M, MAT_COPY_VALUES, &sys->Mfix));
  PetscCall(MatIsDiagonal_Private(sys->M, &sys->massdiag));
  if (sys->fixed) {
    Vec             d;
    PetscInt        nfix;
    const PetscInt *idx;
    PetscScalar    *da;
    PetscInt        rstart;

    PetscCall(MatCreateVecs(sys->M, &d, NULL));
    PetscCall(MatGetDiagonal(sys->M, d));
    PetscCall(MatSetOption(sys->Mfix, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
    PetscCall(MatZeroRowsColumnsIS(sys->Mfix, sys->fixed, 1.0, NULL, NULL));
    /* keep each fixed dof's own mass on the diagonal, so the decoupled rows scale like the rest */
    PetscCall(ISGetLocalSize(sys->fixed, &nfix));
    PetscCall(ISGetIndices(sys->fixed, &idx));
    PetscCall(VecGetOwnershipRange(d, &rstart, NULL));
    PetscCall(VecGetArray(d, &da));
    for (PetscInt k = 0; k < nfix; k++) {
      PetscCheck(PetscRealPart(da[idx[k] - rstart]) > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "Mass of fixed dof %" PetscInt_FMT " must be positive", idx[k]);
      PetscCall(MatSetValue(sys->Mfix, idx[k], idx[k], da[idx[k] - rstart], INSERT_VALUES));
    }
    PetscCall(VecRestoreArray(d, &da));
    PetscCall(ISRestoreIndices(sys->fixed, &idx));
    PetscCall(MatAssemblyBegin(sys->Mfix, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(sys->Mfix, MAT_FINAL_ASSEMBLY));
    PetscCall(VecDestroy(&d));
  }
  if (sys->massdiag) {
    PetscReal dmin;
    PetscCall(MatCreateVecs(sys->Mfix, &sys->Mdiag, NULL));
    PetscCall(MatGetDiagonal(sys->Mfix, sys->Mdiag));
    PetscCall(VecMin(sys->Mdiag, NULL, &dmin));
    PetscCheck(dmin > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "The lumped mass matrix has a non-positive entry %g: every mass must be positive", (double)dmin);
  }
  if (!sys->work) PetscCall(MatCreateVecs(sys->M, &sys->work, NULL));
  if (sys->massksp) PetscCall(KSPSetOperators(sys->massksp, sys->Mfix, sys->Mfix));
  sys->setupcalled = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemComputeForce - Computes f(t, q, v), zero on fixed dofs.
@*/
PetscErrorCode MechSystemComputeForce(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(MechSystemSetUp(sys));
  PetscCall(PetscLogEventBegin(MECH_Force, sys, q, v, f));
  PetscCall((*sys->force)(sys, t, q, v, f, sys->forcectx));
  if (sys->fixed) PetscCall(VecISSet(f, sys->fixed, 0.0));
  PetscCall(PetscLogEventEnd(MECH_Force, sys, q, v, f));
  PetscFunctionReturn(0);
}

/*@C
  MechSystemCreateOperator - Creates a matrix with the sparsity of K + D + M.
@*/
PetscErrorCode MechSystemCreateOperator(MechSystem sys, Mat *J)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(MechSystemSetUp(sys));
  PetscCall(MatDuplicate(sys->Jpattern, MAT_DO_NOT_COPY_VALUES, J));
  PetscCall(MatSetOption(*J, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
  PetscCall(MatSetOption(*J, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* J = cK K + cD D + cM M at (t, q, v) with the tangent callback fn, fixed dofs decoupled */
static PetscErrorCode MechSystemComputeOperator_Private(MechSystem sys, MechTangentFn fn, void *ctx, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, Mat J)
{
  PetscFunctionBegin;
  PetscCall(MechSystemSetUp(sys));
  if (!sys->hasdamping) cD = 0;
  PetscCall(PetscLogStagePush(MECH_StageAssembly));
  PetscCall(PetscLogEventBegin(MECH_Operator, sys, J, 0, 0));
  PetscCall(MatZeroEntries(J));
  if (cK != 0 || cD != 0) {
    PetscCall((*fn)(sys, t, q, v, cK, cD, J, ctx));
    if (sys->fixed) PetscCall(MatZeroRowsColumnsIS(J, sys->fixed, 0.0, NULL, NULL));
  } else {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
  if (cM != 0) {
    if (sys->massdiag) {
      PetscCall(VecAXPBY(sys->work, cM, 0.0, sys->Mdiag));
      PetscCall(MatDiagonalSet(J, sys->work, ADD_VALUES));
    } else PetscCall(MatAXPY(J, cM, sys->Mfix, SUBSET_NONZERO_PATTERN));
  }
  PetscCall(PetscLogEventEnd(MECH_Operator, sys, J, 0, 0));
  PetscCall(PetscLogStagePop());
  PetscFunctionReturn(0);
}

/*@C
  MechSystemComputeOperator - Computes J = cK K + cD D + cM M at (t, q, v), fixed dofs decoupled.
@*/
PetscErrorCode MechSystemComputeOperator(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, Mat J)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidHeaderSpecific(J, MAT_CLASSID, 8);
  PetscCall(MechSystemSetUp(sys));
  PetscCall(MechSystemComputeOperator_Private(sys, sys->tangent, sys->tangentctx, t, q, v, cK, cD, cM, J));
  PetscFunctionReturn(0);
}

/*@C
  MechSystemComputeOperatorDefinite - Computes P = cK K~ + cD D~ + cM M at (t, q, v), fixed dofs
  decoupled, with the model's semidefinite approximation K~, D~ of its tangents
  (MechSystemSetTangentDefinite()), or the exact tangents when the model gives none.

  Collective

  Notes:
  With cK, cD >= 0 and cM > 0, P is symmetric positive definite whenever the approximation is
  semidefinite and symmetric: a preconditioning matrix for CG, incomplete Cholesky and algebraic
  multigrid where the exact operator of MechSystemComputeOperator() is indefinite.

.seealso: `MechSystemComputeOperator()`, `MechSystemSetTangentDefinite()`, `TSTheta2SetPCDefinite()`
@*/
PetscErrorCode MechSystemComputeOperatorDefinite(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, Mat P)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidHeaderSpecific(P, MAT_CLASSID, 8);
  PetscCall(MechSystemSetUp(sys));
  if (sys->tangentdef) PetscCall(MechSystemComputeOperator_Private(sys, sys->tangentdef, sys->tangentdefctx, t, q, v, cK, cD, cM, P));
  else PetscCall(MechSystemComputeOperator_Private(sys, sys->tangent, sys->tangentctx, t, q, v, cK, cD, cM, P));
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSolveMass - Solves M x = b (fixed dofs decoupled): pointwise for a lumped mass, else
  with the system's KSP (options prefix <prefix>mass_, default CG + Jacobi, rtol 1e-12).
@*/
PetscErrorCode MechSystemSolveMass(MechSystem sys, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(MechSystemSetUp(sys));
  if (!sys->massksp) {
    const char *prefix;
    PC          pc;

    PetscCall(KSPCreate(PetscObjectComm((PetscObject)sys), &sys->massksp));
    PetscCall(PetscObjectGetOptionsPrefix((PetscObject)sys, &prefix));
    PetscCall(KSPSetOptionsPrefix(sys->massksp, prefix));
    PetscCall(KSPAppendOptionsPrefix(sys->massksp, "mass_"));
    PetscCall(KSPGetPC(sys->massksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    /* a diagonal M is inverted exactly by one Jacobi application */
    PetscCall(KSPSetType(sys->massksp, sys->massdiag ? KSPPREONLY : KSPCG));
    PetscCall(KSPSetTolerances(sys->massksp, 1e-12, 1e-50, PETSC_DEFAULT, PETSC_DEFAULT));
    PetscCall(KSPSetOperators(sys->massksp, sys->Mfix, sys->Mfix));
    PetscCall(KSPSetFromOptions(sys->massksp));
  }
  PetscCall(PetscLogEventBegin(MECH_MassSolve, sys, b, x, 0));
  PetscCall(KSPSolve(sys->massksp, b, x));
  PetscCall(PetscLogEventEnd(MECH_MassSolve, sys, b, x, 0));
  {
    KSPConvergedReason reason;
    PetscCall(KSPGetConvergedReason(sys->massksp, &reason));
    PetscCheck(reason >= 0, PetscObjectComm((PetscObject)sys), PETSC_ERR_NOT_CONVERGED, "The mass solve (options prefix mass_) diverged: %s", KSPConvergedReasons[reason]);
  }
  PetscFunctionReturn(0);
}

/*@C
  MechSystemComputeEnergy - Kinetic energy 1/2 v^T M v and the model's potential energy.
@*/
PetscErrorCode MechSystemComputeEnergy(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *kinetic, PetscReal *potential)
{
  PetscScalar vMv;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(MechSystemSetUp(sys));
  PetscCall(MatMult(sys->Mfix, v, sys->work));
  PetscCall(VecDot(v, sys->work, &vMv));
  if (kinetic) *kinetic = 0.5 * PetscRealPart(vMv);
  if (potential) {
    *potential = 0;
    if (sys->potential) PetscCall((*sys->potential)(sys, t, q, v, potential, sys->potentialctx));
  }
  PetscFunctionReturn(0);
}

/*@C
  MechSystemComputeExactSolution - Evaluates the exact solution if the model has one.
@*/
PetscErrorCode MechSystemComputeExactSolution(MechSystem sys, PetscReal t, Vec q, Vec v, PetscBool *has)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (has) *has = sys->exact ? PETSC_TRUE : PETSC_FALSE;
  if (sys->exact) PetscCall((*sys->exact)(sys, t, q, v, sys->exactctx));
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetNumInvariants - Number of named invariants of the model.
@*/
PetscErrorCode MechSystemGetNumInvariants(MechSystem sys, PetscInt *n)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *n = sys->ninvariants;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemComputeInvariant - Evaluates invariant i.
@*/
PetscErrorCode MechSystemComputeInvariant(MechSystem sys, PetscInt i, PetscReal t, Vec q, Vec v, const char **name, PetscReal *value)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCheck(i >= 0 && i < sys->ninvariants, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_OUTOFRANGE, "Invariant %" PetscInt_FMT " does not exist", i);
  if (name) *name = sys->invname[i];
  if (value) PetscCall((*sys->invariant[i])(sys, t, q, v, value, sys->invariantctx[i]));
  PetscFunctionReturn(0);
}

/*@C
  MechSystemApplyFixed - Sets fixed entries of q to their prescribed values and of v to zero.
@*/
PetscErrorCode MechSystemApplyFixed(MechSystem sys, Vec q, Vec v)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (!sys->fixed) PetscFunctionReturn(0);
  {
    /* no prescribed values given: the initial state's */
    Vec values = sys->fixedvalues ? sys->fixedvalues : sys->q0;
    if (q && values && q != values) {
      VecScatter sct;
      PetscCall(VecScatterCreate(values, sys->fixed, q, sys->fixed, &sct));
      PetscCall(VecScatterBegin(sct, values, q, INSERT_VALUES, SCATTER_FORWARD));
      PetscCall(VecScatterEnd(sct, values, q, INSERT_VALUES, SCATTER_FORWARD));
      PetscCall(VecScatterDestroy(&sct));
    }
  }
  if (v) PetscCall(VecISSet(v, sys->fixed, 0.0));
  PetscFunctionReturn(0);
}
