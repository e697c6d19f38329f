/*
  The mechanical system M q'' + f(t, q, q') = 0: one description from which every integrator
  (tsmech's, TSALPHA2, PETSc's first-order types) is driven.

  Fixed degrees of freedom are imposed here, once, so that every consumer sees the same
  system: their force is zero, their rows and columns of K and D are zero, and their rows and
  columns of M are decoupled with the diagonal kept. With v = 0 and q at its prescribed value
  at the start, every integrator then keeps them where they are, and symmetric operators stay
  symmetric (CG and AMG remain usable).
*/
/* nanosleep() is POSIX */
#define _POSIX_C_SOURCE 200809L
#include "mechimpl.h"
#include <stdio.h>
#include <string.h>
#include <time.h>

PetscClassId  MECHSYSTEM_CLASSID = 0;
PetscLogEvent MECH_Force = 0, MECH_Patch = 0, MECH_Operator = 0, MECH_MassSolve = 0, MECH_Linearize = 0, MECH_Apply = 0, MECH_Galerkin = 0;
PetscLogStage MECH_StageAssembly = -1, MECH_StageIO = -1;

/*@
  MechSystemCreate - Creates an empty mechanical system M q'' + f(t, q, q') = 0.

  Collective

  Input Parameter:
. comm - the MPI communicator of the system

  Output Parameter:
. sys - the new mechanical system

  Level: beginner

  Notes:
  The system is empty: give it at least the mass matrix (`MechSystemSetMass()`), the force
  (`MechSystemSetForce()`) and the tangent (`MechSystemSetTangent()`), then attach it to a `TS`
  with `TSMechSetSystem()`. `MechCreateModel()` creates the built-in models instead.

  It also registers the package and the TS types of tsmech (`TSMechInitializePackage()`), so a
  program may call `TSSetType()` with a tsmech type (`TSTHETA2`, ...) right after creating its
  system.

.seealso: `MechSystemDestroy()`, `MechSystemSetMass()`, `MechSystemSetForce()`, `MechSystemSetTangent()`,
          `TSMechSetSystem()`, `MechCreateModel()`
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
  s->testerrrank  = -1;
  s->agreetimeout = 5;
  PetscCallMPI(MPI_Comm_dup(comm, &s->agreecomm));
  {
    PetscReal hook[2] = {-1, 0};
    PetscBool set;

    PetscOptionsBegin(comm, NULL, "Mechanical system", "MechSystem");
    PetscCall(MechOptionsReal("-mech_agree_timeout", "Seconds a rank whose model callback failed waits for the others before it ends the job", "MechSystemCreate", s->agreetimeout, &s->agreetimeout, NULL));
    /* test hook: a model error on one rank only (tests/reliability) */
    PetscCall(MechOptionsRealList("-mech_test_force_error", "Test hook: the force fails on rank,from time", "MechSystemCreate", hook, 2, &set));
    PetscOptionsEnd();
    PetscCheck(s->agreetimeout > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-mech_agree_timeout %g must be positive", (double)s->agreetimeout);
    if (set) {
      PetscCheck(hook[0] >= 0, comm, PETSC_ERR_ARG_WRONG, "-mech_test_force_error %g,%g: give a rank and a time", (double)hook[0], (double)hook[1]);
      s->testerrrank = (PetscMPIInt)hook[0];
      s->testerrtime = hook[1];
    }
  }
  *sys = s;
  PetscFunctionReturn(0);
}

/*
  MechSystemAgree - Makes the outcome of a model callback collective: ierr is what the callback
  returned on this rank. A callback that fails on some ranks only (a Python exception, a check of
  local data) would leave the other ranks in the integrator's next collective operation, waiting
  forever; here every rank learns of the failure at once and raises the same error, with the
  error code and message of the lowest failing rank, which then every program (the driver, a C or
  petsc4py program) sees on every rank. One reduction per callback on several ranks (on a
  communicator of its own, so that it can match no other operation), none on one.

  A callback that fails before a collective operation of its own (an assembly) leaves the other
  ranks inside it, where no agreement reaches them: a failing rank that has waited
  -mech_agree_timeout seconds (5) for the others tells its message on stderr and ends the job
  (MPI_Abort() with status 3, as a failed integration). The wait is on this rank's own clock,
  but it decides no collective operation: only whether this rank ends every rank.
*/
PetscErrorCode MechSystemAgree(MechSystem sys, PetscErrorCode ierr, const char what[])
{
  MPI_Comm    comm = sys->agreecomm;
  PetscMPIInt size, rank, mine, first = 0;
  MPI_Request req;
  int         code = (int)ierr, done = 0;
  char        msg[1024] = "";

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size == 1) {
    PetscCall(ierr);
    PetscFunctionReturn(0);
  }
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  mine = ierr ? rank : size;
  PetscCallMPI(MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm, &req));
  if (ierr) {
    const char *text     = NULL;
    char       *specific = NULL;
    double      t0       = MPI_Wtime();

    (void)PetscErrorMessage(ierr, &text, &specific);
    (void)PetscStrncpy(msg, specific && specific[0] ? specific : (text ? text : "unknown error"), sizeof(msg));
    while (!done) {
      PetscCallMPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
      if (!done && MPI_Wtime() - t0 > sys->agreetimeout) {
        (void)fprintf(stderr, "tsmech: error on rank %d: %s (the model's %s failed on this rank only; the other ranks did not follow within %g s: ending the job)\n", (int)rank, msg, what, (double)sys->agreetimeout);
        (void)fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
      if (!done) {
        struct timespec pause = {0, 1000000};
        (void)nanosleep(&pause, NULL);
      }
    }
  } else PetscCallMPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  if (first == size) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Bcast(&code, 1, MPI_INT, first, comm));
  PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)sizeof(msg), MPI_CHAR, first, comm));
  SETERRQ(PetscObjectComm((PetscObject)sys), (PetscErrorCode)code, "%s (the model's %s failed on rank %d)", msg, what, (int)first);
}

/*@
  MechSystemDestroy - Destroys a mechanical system.

  Collective

  Input Parameter:
. sys - address of the mechanical system (it may hold NULL); set to NULL on return

  Level: beginner

  Notes:
  The system is reference counted: the objects that keep it (a `TS` after `TSMechSetSystem()`, an
  operator shell) hold references, and it is freed with the last one. The destroy function given
  with `MechSystemSetApplicationContext()` is then called on the application context.

.seealso: `MechSystemCreate()`, `MechSystemSetApplicationContext()`
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
  PetscCall(VecScatterDestroy(&s->ioscatter));
  PetscCall(VecDestroy(&s->iomesh));
  PetscCall(PetscFree(s->iocells));
  PetscCall(VecDestroy(&s->fixedvalues));
  PetscCall(MatDestroy(&s->Mcouple));
  PetscCall(VecDestroy(&s->apresc));
  PetscCall(VecDestroy(&s->Mdiagfix));
  PetscCall(VecDestroy(&s->qm));
  PetscCall(VecDestroy(&s->vm));
  PetscCall(VecDestroy(&s->fixedmass));
  PetscCall(VecDestroy(&s->rest));
  PetscCall(PetscFree(s->kinks));
  for (PetscInt i = 0; i < s->ninvariants; i++) PetscCall(PetscFree(s->invname[i]));
  for (PetscInt i = 0; i < s->nparams; i++) PetscCall(PetscFree(s->paramname[i]));
  for (PetscInt i = 0; i < s->ntextparams; i++) PetscCall(PetscFree(s->textparamname[i]));
  for (PetscInt i = 0; i < s->ntextparams; i++) PetscCall(PetscFree(s->textparamvalue[i]));
  PetscCall(PetscFree2(s->textparamname, s->textparamvalue));
  for (PetscInt i = 0; i < s->ncellfields; i++) PetscCall(PetscFree(s->cellfieldname[i]));
  for (PetscInt i = 0; i < s->nnodefields; i++) PetscCall(PetscFree(s->nodefieldname[i]));
  PetscCall(PetscFree(s->modelname));
  PetscCall(PetscFree(s->nonsymwhy));
  PetscCall(DMDestroy(&s->dm));
  PetscCall(VecDestroy(&s->q0));
  PetscCall(VecDestroy(&s->v0));
  PetscCall(VecDestroy(&s->work));
  PetscCall(VecDestroy(&s->scalework[0]));
  PetscCall(VecDestroy(&s->scalework[1]));
  PetscCall(VecDestroy(&s->scalework[2]));
  PetscCall(MechSystemDestroyBalance_Private(s));
  if (s->appdestroy) PetscCall((*s->appdestroy)(s->appctx));
  if (s->agreecomm != MPI_COMM_NULL) PetscCallMPI(MPI_Comm_free(&s->agreecomm));
  PetscCall(PetscHeaderDestroy(sys));
  PetscFunctionReturn(0);
}

/*@
  MechSystemView - Prints the model, its parameters, sizes and properties.

  Collective

  Input Parameters:
+ sys    - the mechanical system
- viewer - an ASCII viewer (NULL: standard output of the system's communicator); other viewer
           types print nothing

  Level: beginner

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
  for (PetscInt i = 0; i < sys->ntextparams; i++) PetscCall(PetscViewerASCIIPrintf(viewer, "%s = %s\n", sys->textparamname[i], sys->textparamvalue[i]));
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

/*@
  MechSystemSetMass - Sets the constant mass matrix M.

  Logically Collective

  Input Parameters:
+ sys - the mechanical system
- M   - the mass matrix, assembled, symmetric positive definite: lumped (diagonal) or consistent

  Level: beginner

  Notes:
  The system keeps a reference to M and never changes it; its size and parallel layout are those
  of the state vectors (`MechSystemCreateState()`). When every off-diagonal entry of M is zero the
  mass is lumped: `MechSystemSolveMass()` is then a pointwise division, and every diagonal entry
  must be positive. The fixed dofs (`MechSystemSetFixed()`) are decoupled in a copy of M, keeping
  their own diagonal entry, which must be positive.

.seealso: `MechSystemGetMass()`, `MechSystemSetTangent()`, `MechSystemSolveMass()`, `MechSystemSetFixed()`
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

/*@
  MechSystemGetMass - Gets the mass matrix as it was given.

  Not Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameter:
. M - the mass matrix of `MechSystemSetMass()` (NULL if none was set)

  Level: intermediate

  Note:
  This is the matrix as given, not the copy with the fixed dofs decoupled that the integrators
  use, and no new reference: do not destroy it.

.seealso: `MechSystemSetMass()`, `MechSystemComputeOperator()`
@*/
PetscErrorCode MechSystemGetMass(MechSystem sys, Mat *M)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *M = sys->M;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetForce - Sets the callback computing the force f(t, q, v) of M q'' + f(t, q, q') = 0.

  Logically Collective

  Input Parameters:
+ sys - the mechanical system
. fn  - the force callback
- ctx - its context (may be NULL)

  Calling sequence of fn:
$ PetscErrorCode fn(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
+ t   - the time
. q   - the position
. v   - the velocity
. f   - the force, to be filled (every entry)
- ctx - the context given here

  Level: beginner

  Notes:
  f is the force moved to the left-hand side: a stretched spring gives an f pointing into the
  stretch, gravity enters as -M g and drag as +c v (include/tsmech.h). The entries of the fixed
  dofs are zeroed afterwards by `MechSystemComputeForce()`.

.seealso: `MechSystemComputeForce()`, `MechSystemSetTangent()`, `MechSystemSetMass()`
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
  MechSystemSetTangent - Sets the callback computing the tangent cK K + cD D, K = df/dq and
  D = df/dv, and the matrix holding the sparsity of K + D + M.

  Logically Collective

  Input Parameters:
+ sys        - the mechanical system
. J          - a preallocated matrix with every entry the callback will ever set, the diagonal
               and the pattern of M, all present from the start (explicit zeros where a value is
               zero now); `MechSystemCreateTangentMatrix()` builds one. The system keeps a reference.
               NULL when a pattern builder (`MechSystemSetTangentPattern()`, set first) builds it
               at its first use: a run that never assembles the tangent (the solid's p-multigrid)
               never holds it.
. hasdamping - PETSC_FALSE if D = 0: the callback is then always called with cD = 0
. fn         - the tangent callback
- ctx        - its context (may be NULL)

  Calling sequence of fn:
$ PetscErrorCode fn(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
+ t, q, v - the time and state
. cK, cD  - the coefficients of K and D
. J       - a matrix with the structure of the J given here, zeroed: set or add cK K + cD D, then assemble
- ctx     - the context given here

  Level: beginner

  Notes:
  The system zeroes the matrix before each call (keeping its structure), adds M and decouples
  the fixed dofs in place, so an entry inserted later is a new nonzero (an error or a
  reallocation), missing from the first-order form, whose pattern is copied from J. A coupling
  whose value is zero now (a slack spring) must be there as an explicit zero: preallocation alone
  does not create entries.

.seealso: `MechSystemCreateTangentMatrix()`, `MechSystemComputeOperator()`, `MechSystemCreateOperator()`,
          `MechSystemSetTangentAction()`, `MechSystemSetForce()`
@*/
PetscErrorCode MechSystemSetTangent(MechSystem sys, Mat J, PetscBool hasdamping, MechTangentFn fn, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (J) PetscValidHeaderSpecific(J, MAT_CLASSID, 2);
  PetscCheck(J || sys->patternfn, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_NULL, "MechSystemSetTangent() without a matrix needs a pattern builder (MechSystemSetTangentPattern()) set before");
  if (J) PetscCall(PetscObjectReference((PetscObject)J));
  PetscCall(MatDestroy(&sys->Jpattern));
  sys->Jpattern   = J;
  sys->hasdamping = hasdamping;
  sys->tangent    = fn;
  sys->tangentctx = ctx;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetTangentPattern - Sets an optional builder of the tangent's patterns: the matrix of
  `MechSystemSetTangent()` again, or a sparser one for cheaper preconditioning matrices.

  Logically Collective

  Input Parameters:
+ sys - the mechanical system
. fn  - the builder (NULL removes it)
- ctx - its context (may be NULL)

  Calling sequence of fn:
$ PetscErrorCode fn(MechSystem sys, PetscBool reduced, Mat *J, void *ctx)
+ reduced - PETSC_FALSE: a new matrix like the one given to `MechSystemSetTangent()` (same
            layout, type and couplings, every entry an explicit zero); PETSC_TRUE: a new matrix
            of the same layout with a subset of those couplings (the diagonal and the pattern of
            M kept), as explicit zeros, or NULL when the model has no sparser pattern
. J       - the new matrix
- ctx     - the context given here

  Level: advanced

  Notes:
  With a builder the matrix of `MechSystemSetTangent()` need not stay in memory: the system
  frees it when asked (`MechSystemReleasePattern()`) while no operator holds it, and builds it
  again at the next request for it (`MechSystemCreateOperator()`, the first-order form). The
  reduced pattern gives `MechSystemCreateOperatorReduced()`. The grid models (cloth, lattice)
  provide one, whose reduced pattern keeps the nearest-neighbour couplings.

.seealso: `MechSystemSetTangent()`, `MechSystemCreateOperatorReduced()`, `MechSystemReleasePattern()`, `TSTheta2SetPCReduced()`
@*/
PetscErrorCode MechSystemSetTangentPattern(MechSystem sys, MechTangentPatternFn fn, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  sys->patternfn  = fn;
  sys->patternctx = ctx;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetPatch - Sets an optional evaluation of the force and the tangent on a patch of
  points, for nonlinear elimination (`TSTheta2SetNonlinearElimination()`).

  Logically Collective

  Input Parameters:
+ sys - the mechanical system
. fn  - the evaluation (NULL removes it)
- ctx - its context (may be NULL)

  Calling sequence of fn:
$ PetscErrorCode fn(MechSystem sys, PetscReal t, Vec ql, Vec vl, PetscInt n, const PetscInt pts[], const PetscInt patch[], PetscReal cK, PetscReal cD, PetscScalar f[], Mat J, void *ctx)
+ t       - the time
. ql, vl  - local (ghosted) vectors of the system's DM holding q and v
. n       - the number of patch points
. pts     - the patch points, block indices of ql and vl (blocks of the DM's block size bs), owned by this rank
. patch   - for every block of ql its row in the patch, or -1
. cK, cD  - the coefficients of K and D
. f       - NULL, or bs n reals: f(t, q, v) on the patch points, the values of the force callback's rows
. J       - NULL, or a sequential matrix of n x n blocks of bs (the patch's rows and columns, in the
            order of pts): cK K + cD D of the couplings among patch points is added to it
- ctx     - the context given here

  Level: developer

  Notes:
  The evaluation uses this rank's data only and is not collective: each rank works on its own
  patch points with the ghost values it was given. The grid models (chain, cloth, lattice)
  provide one; docs/solvers.md §3 describes its use.

.seealso: `MechSystemComputePatch()`, `TSTheta2SetNonlinearElimination()`
@*/
PetscErrorCode MechSystemSetPatch(MechSystem sys, MechPatchFn fn, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  sys->patch    = fn;
  sys->patchctx = ctx;
  PetscFunctionReturn(0);
}

/*@
  MechSystemHasPatch - Tells whether the system evaluates force and tangent on a patch
  (`MechSystemSetPatch()`).

  Not Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameter:
. has - PETSC_TRUE if it does

  Level: developer

.seealso: `MechSystemSetPatch()`
@*/
PetscErrorCode MechSystemHasPatch(MechSystem sys, PetscBool *has)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidBoolPointer(has, 2);
  *has = sys->patch ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@
  MechSystemComputePatch - Evaluates the force and the tangent on a patch of points
  (`MechSystemSetPatch()`).

  Not Collective

  Input Parameters:
+ sys    - the mechanical system
. t      - the time
. ql, vl - local (ghosted) vectors of the system's DM holding q and v
. n      - the number of patch points
. pts    - the patch points (block indices of ql, owned by this rank)
. patch  - for every block of ql its row in the patch, or -1
- cK, cD - the coefficients of K and D in J

  Output Parameters:
+ f - NULL, or the force on the patch points (bs n reals)
- J - NULL, or a sequential matrix of n x n blocks to which cK K + cD D of the patch is added

  Level: developer

.seealso: `MechSystemSetPatch()`
@*/
PetscErrorCode MechSystemComputePatch(MechSystem sys, PetscReal t, Vec ql, Vec vl, PetscInt n, const PetscInt pts[], const PetscInt patch[], PetscReal cK, PetscReal cD, PetscScalar f[], Mat J)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCheck(sys->patch, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MechSystemComputePatch(): model %s has no patch evaluation (MechSystemSetPatch())", sys->modelname ? sys->modelname : "(unnamed)");
  PetscCall(PetscLogEventBegin(MECH_Patch, sys, ql, vl, J));
  PetscCall((*sys->patch)(sys, t, ql, vl, n, pts, patch, cK, cD, f, J, sys->patchctx));
  PetscCall(PetscLogEventEnd(MECH_Patch, sys, ql, vl, J));
  PetscFunctionReturn(0);
}

/*@
  MechSystemHasTangentPattern - Tells whether the system has a builder of the tangent's patterns
  (`MechSystemSetTangentPattern()`), hence a reduced preconditioning matrix.

  Not Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameter:
. has - PETSC_TRUE if it has one

  Level: advanced

.seealso: `MechSystemSetTangentPattern()`, `MechSystemCreateOperatorReduced()`
@*/
PetscErrorCode MechSystemHasTangentPattern(MechSystem sys, PetscBool *has)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidBoolPointer(has, 2);
  *has = sys->patternfn ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@
  MechSystemReleasePattern - Frees the matrix of `MechSystemSetTangent()` when the system can build
  it again (`MechSystemSetTangentPattern()`) and no operator holds it.

  Logically Collective

  Input Parameter:
. sys - the mechanical system

  Level: advanced

  Note:
  A run whose operators are matrix-free and whose preconditioning matrix is reduced
  (-ts_theta_pc_reduced) needs no matrix of the full pattern: this frees its memory. The next
  `MechSystemCreateOperator()` builds it again. Without a builder, or while the matrix is lent
  as an operator, it does nothing.

.seealso: `MechSystemSetTangentPattern()`, `MechSystemCreateOperator()`, `MechSystemCreateOperatorReduced()`
@*/
PetscErrorCode MechSystemReleasePattern(MechSystem sys)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (sys->patternfn && sys->Jpattern && ((PetscObject)sys->Jpattern)->refct == 1) {
    PetscCall(PetscInfo(sys, "Releasing the tangent pattern matrix\n"));
    PetscCall(MatDestroy(&sys->Jpattern));
  }
  PetscFunctionReturn(0);
}

/* The matrix of MechSystemSetTangent(), built again by the pattern builder after a release */
PetscErrorCode MechSystemGetPattern(MechSystem sys, Mat *J)
{
  PetscFunctionBegin;
  if (!sys->Jpattern) {
    PetscCheck(sys->patternfn, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_WRONGSTATE, "MechSystem has no tangent pattern: call MechSystemSetTangent()");
    PetscCall((*sys->patternfn)(sys, PETSC_FALSE, &sys->Jpattern, sys->patternctx));
  }
  if (J) *J = sys->Jpattern;
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
  MechSystemSetTangentNonsymmetric - Declares the tangent K not symmetric (a follower load's
  stiffness), with the reason; linear solvers that need a symmetric operator are then refused.

  Logically Collective

  Input Parameters:
+ sys - the mechanical system
- why - why the tangent is not symmetric, a phrase naming the option that makes it so (copied)

  Level: intermediate

  Notes:
  A model assembles its exact, non-symmetric tangent (and applies it matrix-free). CG and its
  variants (cr, minres, symmlq, ...) and the Cholesky and ICC preconditioners assume a symmetric
  operator and would return wrong steps or stall; `TSMechSetSolution()` refuses them
  (`MechSystemCheckSolver()`), recommending GMRES or BiCGStab.

.seealso: `MechSystemGetTangentNonsymmetric()`, `MechSystemCheckSolver()`, `TSMechSetSolution()`
@*/
PetscErrorCode MechSystemSetTangentNonsymmetric(MechSystem sys, const char why[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(PetscFree(sys->nonsymwhy));
  PetscCall(PetscStrallocpy(why && why[0] ? why : "the tangent is not symmetric", &sys->nonsymwhy));
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetTangentNonsymmetric - Whether the tangent is declared not symmetric, and why.

  Not Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameters:
+ nonsym - PETSC_TRUE if `MechSystemSetTangentNonsymmetric()` was called
- why    - its reason (NULL if symmetric; owned by the system; may be NULL)

  Level: intermediate

.seealso: `MechSystemSetTangentNonsymmetric()`
@*/
PetscErrorCode MechSystemGetTangentNonsymmetric(MechSystem sys, PetscBool *nonsym, const char **why)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (nonsym) *nonsym = sys->nonsymwhy ? PETSC_TRUE : PETSC_FALSE;
  if (why) *why = sys->nonsymwhy;
  PetscFunctionReturn(0);
}

/*@
  MechSystemCheckSolver - Refuses a linear solver that needs a symmetric operator (the CG family,
  Chebyshev, the Cholesky and ICC preconditioners: `MechSolverNeedsSymmetric()` probes each type)
  for a system whose tangent is not symmetric.

  Collective

  Input Parameters:
+ sys - the mechanical system
- ksp - the linear solver of its Newton steps (its type set, from the options or otherwise)

  Level: developer

  Notes:
  The error names the option and the system's reason in one line and recommends GMRES (or
  BiCGStab) with GAMG or ILU. The KSP's and PC's types are the same on every rank, so the decision
  is too. `TSMechSetSolution()` calls it for every implicit type.

.seealso: `MechSystemSetTangentNonsymmetric()`
@*/
PetscErrorCode MechSystemCheckSolver(MechSystem sys, KSP ksp)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 2);
  if (!sys->nonsymwhy) PetscFunctionReturn(0);
  /* what the solver needs, probed (src/mech/solverprobe.c), not a list of names */
  PetscCall(MechKSPCheckSymmetric(ksp, sys->nonsymwhy));
  PetscFunctionReturn(0);
}

/*@
  MechSystemSetFixed - Sets the fixed degrees of freedom and, optionally, their prescribed values.

  Collective

  Input Parameters:
+ sys    - the mechanical system
. fixed  - the global indices of the fixed dofs, each rank listing dofs it owns (NULL: none)
- values - a full-size vector of which only the fixed entries are read, copied (NULL: the
           values of the initial state)

  Level: beginner

  Notes:
  The system imposes the fixed dofs for every integrator: their force is zero, their rows and
  columns of K and D are zero, and their rows and columns of M are decoupled with the diagonal
  kept. `TSMechSetSolution()` puts q at the prescribed values and v at rest
  (`MechSystemApplyFixed()`); every integrator then keeps them there. The system keeps a
  reference to fixed.

.seealso: `MechSystemGetFixed()`, `MechSystemApplyFixed()`, `MechSystemSetInitialState()`, `TSMechSetSolution()`
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
  MechSystemSetFixedMotion - Prescribes the motion of the fixed degrees of freedom.

  Logically Collective

  Input Parameters:
+ sys - the mechanical system (with its fixed dofs, `MechSystemSetFixed()`)
. fn  - sets the fixed entries of q, v, a (any may be NULL) to the prescribed position, velocity
        and acceleration at time t; the other entries must be left alone
- ctx - its context

  Calling sequence of fn:
$ PetscErrorCode fn(MechSystem sys, PetscReal t, Vec q, Vec v, Vec a, void *ctx)

  Level: intermediate

  Notes:
  Every integrator then ends each step with the fixed entries of q and v equal to the prescribed
  values at the step's end, exactly (`MechSystemApplyFixedAt()`: the tsmech types, and PETSc's
  types through the post-step `TSMechSetSolution()` installs). Within the step the fixed rows
  follow the prescribed acceleration: their force is -m_ii a_i(t) instead of zero; the tsmech
  implicit types hold the stage's fixed positions at the prescribed ones (docs/solvers.md). With a
  consistent mass, the inertia the moving dofs exert on their neighbours, M_if a_f(t), is part of
  the force of the free rows (the fixed rows and columns of M are otherwise decoupled).

.seealso: `MechSystemSetFixed()`, `MechSystemApplyFixedAt()`, `MechSystemComputeFixedMotion()`
@*/
PetscErrorCode MechSystemSetFixedMotion(MechSystem sys, MechFixedMotionFn fn, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  sys->motion      = fn;
  sys->motionctx   = ctx;
  sys->setupcalled = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@
  MechSystemHasFixedMotion - Whether the fixed dofs have a prescribed motion.

  Not Collective

.seealso: `MechSystemSetFixedMotion()`
@*/
PetscErrorCode MechSystemHasFixedMotion(MechSystem sys, PetscBool *has)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *has = sys->motion && sys->fixed ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@
  MechSystemComputeFixedMotion - The prescribed position, velocity and acceleration of the fixed
  dofs at time t, in the fixed entries of q, v and a (any may be NULL; the others are left alone).
  Without a motion: the held position (`MechSystemApplyFixed()`), zero velocity and acceleration.

  Collective

.seealso: `MechSystemSetFixedMotion()`, `MechSystemApplyFixedAt()`
@*/
PetscErrorCode MechSystemComputeFixedMotion(MechSystem sys, PetscReal t, Vec q, Vec v, Vec a)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (!sys->fixed) PetscFunctionReturn(0);
  if (sys->motion) PetscCall(MechSystemAgree(sys, (*sys->motion)(sys, t, q, v, a, sys->motionctx), "prescribed motion"));
  else {
    PetscCall(MechSystemApplyFixed(sys, q, v));
    if (a) PetscCall(VecISSet(a, sys->fixed, 0.0));
  }
  PetscFunctionReturn(0);
}

/*@
  MechSystemApplyFixedAt - Sets the fixed entries of q and v to their prescribed values at time t:
  the motion's (`MechSystemSetFixedMotion()`), or the held position and zero velocity.

  Collective

  Input Parameters:
+ sys - the mechanical system
. t   - the time
. q   - the position, modified in place (may be NULL)
- v   - the velocity, modified in place (may be NULL)

  Level: intermediate

.seealso: `MechSystemApplyFixed()`, `MechSystemSetFixedMotion()`
@*/
PetscErrorCode MechSystemApplyFixedAt(MechSystem sys, PetscReal t, Vec q, Vec v)
{
  PetscFunctionBegin;
  PetscCall(MechSystemComputeFixedMotion(sys, t, q, v, NULL));
  PetscFunctionReturn(0);
}

/*
  The state a system with a prescribed motion is evaluated at: q and v with the fixed entries at
  their prescribed values at t, so that the force and the tangent never depend on where an
  integrator's unknowns put the fixed dofs (their columns of K and D are zero), and (a, if not
  NULL) the prescribed acceleration, from one evaluation of the motion. Without a motion q and v
  themselves, a untouched.
*/
PetscErrorCode MechSystemMotionState(MechSystem sys, PetscReal t, Vec q, Vec v, Vec *qm, Vec *vm, Vec a)
{
  PetscFunctionBegin;
  *qm = q;
  *vm = v;
  if (!sys->motion || !sys->fixed) PetscFunctionReturn(0);
  if (!sys->qm) PetscCall(VecDuplicate(q, &sys->qm));
  if (!sys->vm) PetscCall(VecDuplicate(q, &sys->vm));
  PetscCall(VecCopy(q, sys->qm));
  if (v) PetscCall(VecCopy(v, sys->vm));
  /* at rest (static equilibrium): the prescribed positions only; v keeps its (zero) velocities */
  PetscCall(MechSystemComputeFixedMotion(sys, t, sys->qm, v && !sys->atrest ? sys->vm : NULL, sys->atrest ? NULL : a));
  *qm = sys->qm;
  *vm = v ? sys->vm : NULL;
  PetscFunctionReturn(0);
}

/*@
  MechSystemGetFixed - Gets the fixed degrees of freedom.

  Not Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameter:
. fixed - the index set of `MechSystemSetFixed()` (NULL if none); not a new reference

  Level: intermediate

.seealso: `MechSystemSetFixed()`, `MechSystemApplyFixed()`
@*/
PetscErrorCode MechSystemGetFixed(MechSystem sys, IS *fixed)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *fixed = sys->fixed;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetPotential - Sets the callback computing the potential energy.

  Logically Collective

  Input Parameters:
+ sys - the mechanical system
. fn  - the potential energy callback
- ctx - its context (may be NULL)

  Calling sequence of fn:
$ PetscErrorCode fn(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *potential, void *ctx)
+ t, q, v   - the time and the (distributed) state
. potential - the GLOBAL potential energy, the same value on every rank
- ctx       - the context given here

  Level: intermediate

  Notes:
  The callback is called on every rank and must return the global value: sum the local parts
  with MPIU_Allreduce() or use `VecDot()`/`VecSum()`, which already return global values. The
  energy drives decisions every rank must take alike (blow-up detection, output, monitors).
  Without a potential, `MechSystemComputeEnergy()` reports 0.

.seealso: `MechSystemComputeEnergy()`, `MechSystemAddInvariant()`
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
  MechSystemSetExactSolution - Sets the callback computing the exact solution, for models that
  have one.

  Logically Collective

  Input Parameters:
+ sys - the mechanical system
. fn  - the exact solution callback
- ctx - its context (may be NULL)

  Calling sequence of fn:
$ PetscErrorCode fn(MechSystem sys, PetscReal t, Vec q, Vec v, void *ctx)
+ t   - the time
. q   - the exact position at t, to be filled
. v   - the exact velocity at t, to be filled
- ctx - the context given here

  Level: intermediate

.seealso: `MechSystemComputeExactSolution()`
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
  MechSystemAddInvariant - Adds a named invariant of the motion (angular momentum, ...), reported
  by monitors and output.

  Logically Collective

  Input Parameters:
+ sys  - the mechanical system
. name - the invariant's name (copied)
. fn   - the callback computing it
- ctx  - its context (may be NULL)

  Calling sequence of fn:
$ PetscErrorCode fn(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *value, void *ctx)
+ t, q, v - the time and the (distributed) state
. value   - the GLOBAL value of the invariant, the same on every rank
- ctx     - the context given here

  Level: intermediate

  Note:
  A system has at most 8 invariants; they are numbered in the order they are added.

.seealso: `MechSystemGetNumInvariants()`, `MechSystemComputeInvariant()`, `MechSystemSetPotential()`
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
  MechSystemSetStateCheck - Sets a check of the states the model can take, such as "no element
  inverted" for a solid: a step of the tsmech types (and, under the run guard, of any type) that
  ends in a state the check refuses is a failed stage, rejected and retried with a smaller step
  under an adaptive controller, the end of the run otherwise; and failure reports give its reason.

  Logically Collective

  Input Parameters:
+ sys - the mechanical system
. fn  - the check, or NULL for none
- ctx - its context

  Calling sequence of fn:
$ PetscErrorCode fn(MechSystem sys, PetscReal t, Vec q, Vec v, PetscBool *admissible, char why[], size_t len, void *ctx)
+ t, q, v    - the state (q NULL: explain why the latest force evaluation at a time >= t failed,
               in why, "" if none did; admissible is then not read)
. admissible - whether the model can take the state
- why        - (len bytes) the reason if not, e.g. "element 7 inverted"

  Notes:
  Collective: every rank must return the same answer (reduce local findings).

  Level: intermediate

.seealso: `MechSystemCheckState()`, `TSMechSetGuard()`, `MechSolidGetInverted()`
@*/
PetscErrorCode MechSystemSetStateCheck(MechSystem sys, MechStateCheckFn fn, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  sys->statecheck    = fn;
  sys->statecheckctx = ctx;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemCheckState - Whether the model can take a state (always, without a check set with
  `MechSystemSetStateCheck()`), or with q NULL why the latest force evaluation at a time >= t
  failed.

  Collective

  Input Parameters:
+ sys  - the mechanical system
. t    - the time
. q, v - the state, or NULL (then only why is set)
- len  - the size of why

  Output Parameters:
+ admissible - whether the model can take the state (may be NULL with q NULL)
- why        - the reason if not ("" if admissible or unknown)

  Level: intermediate

.seealso: `MechSystemSetStateCheck()`
@*/
PetscErrorCode MechSystemCheckState(MechSystem sys, PetscReal t, Vec q, Vec v, PetscBool *admissible, char why[], size_t len)
{
  PetscBool ok = PETSC_TRUE;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (len) why[0] = 0;
  if (sys->statecheck) PetscCall(MechSystemAgree(sys, (*sys->statecheck)(sys, t, q, v, &ok, why, len, sys->statecheckctx), "state check"));
  if (admissible) *admissible = ok;
  PetscFunctionReturn(0);
}

/*@
  MechSystemSetLinear - Declares the force affine in (q, v), so that K and D are constant.

  Logically Collective

  Input Parameters:
+ sys    - the mechanical system
- linear - PETSC_TRUE if f is affine in (q, v) (default PETSC_FALSE)

  Level: intermediate

  Notes:
  Integrators then skip repeated assembly, and `TSMechSetSolution()` declares the problem
  `TS_LINEAR` (one linear solve per step) for every type but `TSALPHA2`. Declaring a nonlinear
  force linear gives wrong results.

.seealso: `MechSystemGetLinear()`, `TSMechSetSolution()`
@*/
PetscErrorCode MechSystemSetLinear(MechSystem sys, PetscBool linear)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  sys->linear = linear;
  PetscFunctionReturn(0);
}

/*@
  MechSystemGetLinear - Tells whether the force was declared affine in (q, v).

  Not Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameter:
. linear - the value of `MechSystemSetLinear()` (default PETSC_FALSE)

  Level: intermediate

.seealso: `MechSystemSetLinear()`
@*/
PetscErrorCode MechSystemGetLinear(MechSystem sys, PetscBool *linear)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *linear = sys->linear;
  PetscFunctionReturn(0);
}

/*@
  MechSystemSetDM - Sets the `DM` the state lives on (grid models).

  Logically Collective

  Input Parameters:
+ sys - the mechanical system
- dm  - the `DM` (NULL: none); the system keeps a reference

  Level: intermediate

  Notes:
  The HDF5 output uses it (the XDMF file of grid models). It is not given to the `TS`: the
  first-order form has 2N unknowns, not N.

.seealso: `MechSystemGetDM()`, `MechOutputCreate()`
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

/*@
  MechSystemSetIOOrdering - Sets the rank-independent order in which the HDF5 output and the
  checkpoints store the state (unstructured meshes: the mesh file's vertex order), so that
  files written on any number of ranks are equal and a checkpoint restarts on any number.

  Collective

  Input Parameters:
+ sys   - the mechanical system
- order - for each locally owned entry of the state, its index in the I/O order (a
          permutation of 0 .. N-1 over all ranks)

  Level: advanced

.seealso: `MechSystemSetIOMesh()`, `MechOutputCreate()`, `MechCheckpointCreate()`
@*/
PetscErrorCode MechSystemSetIOOrdering(MechSystem sys, IS order)
{
  Vec      x;
  IS       from;
  PetscInt n, rstart;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidHeaderSpecific(order, IS_CLASSID, 2);
  PetscCall(VecScatterDestroy(&sys->ioscatter));
  PetscCall(ISGetLocalSize(order, &n));
  PetscCall(VecCreateMPI(PetscObjectComm((PetscObject)sys), n, PETSC_DETERMINE, &x));
  PetscCall(VecGetOwnershipRange(x, &rstart, NULL));
  PetscCall(ISCreateStride(PETSC_COMM_SELF, n, rstart, 1, &from));
  PetscCall(VecScatterCreate(x, from, x, order, &sys->ioscatter));
  PetscCall(ISDestroy(&from));
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(0);
}

/*@
  MechSystemSetIOMesh - Sets the tetrahedral mesh the HDF5 output writes (/mesh) and the
  checkpoints identify: the reference vertex coordinates and the tetrahedra, numbered in the
  I/O order of `MechSystemSetIOOrdering()` (vertex k: entries 3k .. 3k+2).

  Collective

  Input Parameters:
+ sys    - the mechanical system
. X      - reference coordinates of the vertices, a vector like the state (copied)
. ncells - number of local tetrahedra
- cells  - 5 per tetrahedron: its rank-independent number (0 .. total-1, the order of /mesh/tetrahedra),
           then its 4 vertex numbers (copied)

  Level: advanced

.seealso: `MechSystemSetIOOrdering()`
@*/
PetscErrorCode MechSystemSetIOMesh(MechSystem sys, Vec X, PetscInt ncells, const PetscInt cells[])
{
  PetscFunctionBegin;
  PetscCall(MechSystemSetIOMeshCells(sys, X, ncells, 4, "Tetrahedron", cells));
  PetscFunctionReturn(0);
}

/*@
  MechSystemSetIOMeshCells - `MechSystemSetIOMesh()` for a mesh of any one cell kind: nper nodes
  per cell, in the node order of the XDMF topology `topology` ("Tetrahedron", "Tetrahedron_10",
  "Hexahedron", "Hexahedron_27": XDMF's and VTK's orders), node k being entries 3k .. 3k+2 of the
  I/O order. The output writes "Tetrahedron" meshes as /mesh/tetrahedra [nc, 4] and the others as
  /mesh/cells [nc, nper] with the attribute "topology".

  Collective

  Input Parameters:
+ sys      - the mechanical system
. X        - reference positions of the nodes, a vector like the state (copied)
. ncells   - number of local cells
. nper     - nodes per cell (4, 10, 8 or 27)
. topology - the XDMF topology name
- cells    - 1 + nper per cell: its rank-independent number, then its nodes' numbers (copied)

  Level: advanced

.seealso: `MechSystemSetIOMesh()`, `MechSystemSetIOOrdering()`
@*/
PetscErrorCode MechSystemSetIOMeshCells(MechSystem sys, Vec X, PetscInt ncells, PetscInt nper, const char topology[], const PetscInt cells[])
{
  static const char *const known[]  = {"Tetrahedron", "Tetrahedron_10", "Hexahedron", "Hexahedron_27"};
  static const PetscInt    nknown[] = {4, 10, 8, 27};
  PetscBool                ok       = PETSC_FALSE;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidHeaderSpecific(X, VEC_CLASSID, 2);
  for (int k = 0; k < 4; k++)
    if (!strcmp(topology, known[k]) && nper == nknown[k]) ok = PETSC_TRUE;
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MechSystemSetIOMeshCells(): topology %s with %" PetscInt_FMT " nodes per cell is not one of Tetrahedron (4), Tetrahedron_10, Hexahedron (8), Hexahedron_27", topology, nper);
  PetscCall(VecDestroy(&sys->iomesh));
  PetscCall(PetscFree(sys->iocells));
  PetscCall(VecDuplicate(X, &sys->iomesh));
  PetscCall(VecCopy(X, sys->iomesh));
  PetscCall(PetscMalloc1((1 + nper) * ncells + 1, &sys->iocells));
  PetscCall(PetscArraycpy(sys->iocells, cells, (1 + nper) * ncells));
  sys->ioncells = ncells;
  sys->ionper   = nper;
  PetscCall(PetscStrncpy(sys->iotopo, topology, sizeof(sys->iotopo)));
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetIOMeshCells - The nodes per cell and the XDMF topology of the I/O mesh
  (`MechSystemSetIOMeshCells()`; 0 and "" without one).

  Not Collective

  Level: developer
@*/
PetscErrorCode MechSystemGetIOMeshCells(MechSystem sys, PetscInt *nper, const char **topology)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (nper) *nper = sys->iomesh ? sys->ionper : 0;
  if (topology) *topology = sys->iomesh ? sys->iotopo : "";
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetIOMesh - The I/O order and mesh of `MechSystemSetIOOrdering()` and
  `MechSystemSetIOMesh()` (NULL, 0 where not set).

  Not Collective

  Level: developer
@*/
PetscErrorCode MechSystemGetIOMesh(MechSystem sys, VecScatter *order, Vec *X, PetscInt *ncells, const PetscInt *cells[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (order) *order = sys->ioscatter;
  if (X) *X = sys->iomesh;
  if (ncells) *ncells = sys->ioncells;
  if (cells) *cells = sys->iocells;
  PetscFunctionReturn(0);
}

/*@
  MechSystemGetDM - Gets the `DM` the state lives on.

  Not Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameter:
. dm - the `DM` of `MechSystemSetDM()` (NULL if none); not a new reference

  Level: intermediate

.seealso: `MechSystemSetDM()`
@*/
PetscErrorCode MechSystemGetDM(MechSystem sys, DM *dm)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *dm = sys->dm;
  PetscFunctionReturn(0);
}

/*@
  MechSystemSetInitialState - Sets the initial state, copied into the system.

  Collective

  Input Parameters:
+ sys - the mechanical system
. q   - the initial position
- v   - the initial velocity (NULL: at rest)

  Level: beginner

  Note:
  `MechSystemCreateState()` returns copies of it, and it gives the prescribed values of the fixed
  dofs when `MechSystemSetFixed()` was given none.

.seealso: `MechSystemCreateState()`, `MechSystemSetFixed()`, `TSMechSetSolution()`
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

/*@
  MechSystemCreateState - Creates new vectors holding the initial state.

  Collective

  Input Parameter:
. sys - the mechanical system, with its mass matrix or its initial state set

  Output Parameters:
+ q - a new position vector (may be NULL: not created)
- v - a new velocity vector (may be NULL: not created)

  Level: beginner

  Notes:
  The vectors are copies of the state of `MechSystemSetInitialState()`, or zero vectors of the
  layout of the mass matrix if none was given. The caller destroys them.

.seealso: `MechSystemSetInitialState()`, `TSMechSetSolution()`, `TSMechGetSolution()`
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

  Logically Collective

  Input Parameters:
+ sys     - the mechanical system
. ctx     - the data
- destroy - the function that frees it, called by `MechSystemDestroy()` (may be NULL)

  Level: intermediate

.seealso: `MechSystemGetApplicationContext()`, `MechSystemDestroy()`
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
  MechSystemGetApplicationContext - Gets the model's private data.

  Not Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameter:
. ctx - the address of a pointer, set to the data of `MechSystemSetApplicationContext()` (NULL if none)

  Level: intermediate

.seealso: `MechSystemSetApplicationContext()`
@*/
PetscErrorCode MechSystemGetApplicationContext(MechSystem sys, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *(void **)ctx = sys->appctx;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetModelName - Names the model, for views, output and checkpoint metadata.

  Logically Collective

  Input Parameters:
+ sys  - the mechanical system
- name - the model's name (copied)

  Level: intermediate

  Note:
  `MechCheckpointLoad()` refuses a checkpoint of another model name.

.seealso: `MechSystemGetModelName()`, `MechSystemAddParameter()`, `MechSystemView()`
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
  MechSystemGetModelName - Gets the model's name.

  Not Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameter:
. name - the name of `MechSystemSetModelName()`, owned by the system (NULL for a user's system
         that set none)

  Level: intermediate

.seealso: `MechSystemSetModelName()`
@*/
PetscErrorCode MechSystemGetModelName(MechSystem sys, const char **name)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *name = sys->modelname;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemAddParameter - Records a model parameter, for views, output and checkpoint metadata.

  Logically Collective

  Input Parameters:
+ sys   - the mechanical system
. name  - the parameter's name (copied)
- value - its value, not NaN (refused: a checkpoint restarts only a system of equal parameters)

  Level: intermediate

  Notes:
  A system records at most 192 parameters. `MechSystemView()` prints them, the HDF5 output and
  checkpoints store them, and `MechCheckpointLoad()` refuses a checkpoint whose parameters differ.

.seealso: `MechSystemGetParameters()`, `MechSystemSetModelName()`
@*/
PetscErrorCode MechSystemAddParameter(MechSystem sys, const char name[], PetscReal value)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCheck(sys->nparams < MECH_MAX_PARAMS, PetscObjectComm((PetscObject)sys), PETSC_ERR_SUP, "Model %s: parameter %s: a system records at most %d parameters", sys->modelname ? sys->modelname : "(unnamed)", name, MECH_MAX_PARAMS);
  /* a checkpoint restarts only a system of equal parameters, which NaN never is */
  PetscCheck(!PetscIsNanReal(value), PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_OUTOFRANGE, "Model %s: parameter %s is NaN: no checkpoint of the run could be restarted", sys->modelname ? sys->modelname : "(unnamed)", name);
  PetscCall(PetscStrallocpy(name, &sys->paramname[sys->nparams]));
  sys->paramvalue[sys->nparams++] = value;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetParameter - Sets the value of a recorded model parameter (`MechSystemAddParameter()`),
  for a value a model resolves after its system exists (Rayleigh damping from modal ratios).

  Logically Collective

  Input Parameters:
+ sys   - the mechanical system
. name  - the parameter's name, recorded already
- value - its value

  Level: developer

.seealso: `MechSystemAddParameter()`, `MechSystemGetParameters()`
@*/
PetscErrorCode MechSystemSetParameter(MechSystem sys, const char name[], PetscReal value)
{
  PetscBool same = PETSC_FALSE;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  for (PetscInt i = 0; i < sys->nparams && !same; i++) {
    PetscCall(PetscStrcmp(sys->paramname[i], name, &same));
    if (same) sys->paramvalue[i] = value;
  }
  PetscCheck(same, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_WRONG, "Model %s has no parameter %s", sys->modelname ? sys->modelname : "(unnamed)", name);
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetParameters - Gets the recorded model parameters.

  Not Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameters:
+ n      - the number of parameters (may be NULL)
. names  - their names, owned by the system (may be NULL)
- values - their values, owned by the system (may be NULL)

  Level: intermediate

.seealso: `MechSystemAddParameter()`
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
  MechSystemSetOptionsPrefix - Sets the prefix of the system's options.

  Logically Collective

  Input Parameters:
+ sys    - the mechanical system
- prefix - the prefix, without the leading - (NULL: none)

  Level: advanced

  Notes:
  The KSP of the mass solve takes the options prefix <prefix>mass_. `TSMechSetSystem()` gives the
  system the options prefix of its `TS`.

.seealso: `MechSystemSolveMass()`, `TSMechSetSystem()`
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
  PetscCheck(sys->tangent && (sys->Jpattern || sys->patternfn), comm, PETSC_ERR_ARG_WRONGSTATE, "MechSystem has no tangents: call MechSystemSetTangent()");
  PetscCall(MatDestroy(&sys->Mfix));
  PetscCall(VecDestroy(&sys->Mdiag));
  PetscCall(VecDestroy(&sys->fixedmass));
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
  PetscCall(MatDestroy(&sys->Mcouple));
  PetscCall(VecDestroy(&sys->apresc));
  PetscCall(VecDestroy(&sys->Mdiagfix));
  if (sys->motion && sys->fixed) {
    PetscCall(MatCreateVecs(sys->M, &sys->apresc, NULL));
    PetscCall(MatCreateVecs(sys->M, &sys->Mdiagfix, NULL));
    PetscCall(MatGetDiagonal(sys->Mfix, sys->Mdiagfix));
    if (!sys->massdiag) {
      PetscCall(MatDuplicate(sys->M, MAT_COPY_VALUES, &sys->Mcouple));
      PetscCall(MatAXPY(sys->Mcouple, -1.0, sys->Mfix, SUBSET_NONZERO_PATTERN));
    }
  }
  if (sys->massksp) PetscCall(KSPSetOperators(sys->massksp, sys->Mfix, sys->Mfix));
  sys->setupcalled = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*@
  MechSystemComputeResidualScale - The magnitude of the terms of one step's residual at a state, the
  scale below which the residual is round-off (docs/solvers.md §3).

  Collective

  Input Parameters:
+ sys - the mechanical system
. t   - the time
. q   - the position
. v   - the velocity
- tau - the step

  Output Parameter:
. scale - ||M v|| + tau (||f(t, q, v)|| + ||K d|| / h) (2-norms), with d_i = h |q_i| (-1)^i (i the
          global index) and K d by the difference f(t, q + d, v) - f(t, q, v), h = sqrt(eps)

  Level: advanced

  Notes:
  A step's residual M (v+ - v) + tau f(...) is evaluated from terms of this size: a residual of
  eps times it is what a converged state leaves, and no Newton iteration reduces it further. The
  last term is the one a body at rest has: there f and M v vanish, but the forces are sums of
  spring or element forces that cancel, each as large as a stiffness times coordinate differences
  that round with the magnitude of the coordinates (Higham 2002, §3.5: eps |K||q|). The difference
  quotient along a perturbation of every coordinate by its own relative rounding, alternately up and
  down so that neighbours are pulled apart (a uniform scaling mostly moves the body, which costs no
  force), measures that size through the model's force alone (docs/solvers.md §3). Two force
  evaluations and three norms; the perturbation follows the global index, so the result does not
  depend on the partition beyond the order of the sums.

.seealso: `MechSystemComputeForce()`
@*/
PetscErrorCode MechSystemComputeResidualScale(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal tau, PetscReal *scale)
{
  const PetscReal    h = PetscSqrtReal(PETSC_MACHINE_EPSILON);
  const PetscScalar *qa;
  PetscScalar       *d;
  PetscInt           n, rstart;
  PetscReal          nMv, nf, nKd;
  Vec                f0, f1, qd;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidRealPointer(scale, 6);
  PetscCall(MechSystemSetUp(sys));
  for (PetscInt k = 0; k < 3; k++)
    if (!sys->scalework[k]) PetscCall(VecDuplicate(q, &sys->scalework[k]));
  f0 = sys->scalework[0];
  f1 = sys->scalework[1];
  qd = sys->scalework[2];
  PetscCall(MatMult(sys->Mfix, v, f1));
  PetscCall(VecNorm(f1, NORM_2, &nMv));
  PetscCall(MechSystemComputeForce(sys, t, q, v, f0));
  PetscCall(VecNorm(f0, NORM_2, &nf));
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetOwnershipRange(q, &rstart, NULL));
  PetscCall(VecGetArrayRead(q, &qa));
  PetscCall(VecGetArray(qd, &d));
  for (PetscInt i = 0; i < n; i++) d[i] = qa[i] + ((rstart + i) % 2 ? -h : h) * PetscAbsScalar(qa[i]);
  PetscCall(VecRestoreArray(qd, &d));
  PetscCall(VecRestoreArrayRead(q, &qa));
  PetscCall(MechSystemComputeForce(sys, t, qd, v, f1));
  PetscCall(VecAXPY(f1, -1.0, f0));
  PetscCall(VecNorm(f1, NORM_2, &nKd));
  *scale = nMv + tau * (nf + nKd / h);
  PetscFunctionReturn(0);
}

/*@
  MechSystemComputeForce - Computes the force f(t, q, v), zero on the fixed dofs.

  Collective

  Input Parameters:
+ sys - the mechanical system
. t   - the time
. q   - the position
- v   - the velocity

  Output Parameter:
. f - the force

  Level: intermediate

  Note:
  The first evaluation sets the system up: it checks that the mass, the force and the tangent are
  set and decouples the fixed dofs in a copy of M. It is logged as the event MechForce.

.seealso: `MechSystemSetForce()`, `MechSystemComputeOperator()`
@*/
PetscErrorCode MechSystemComputeForce(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(MechSystemSetUp(sys));
  PetscCall(PetscLogEventBegin(MECH_Force, sys, q, v, f));
  /* with a motion: the state where it is prescribed, and its acceleration a_f in apresc */
  if (sys->apresc) PetscCall(VecZeroEntries(sys->apresc));
  PetscCall(MechSystemMotionState(sys, t, q, v, &q, &v, sys->apresc));
  {
    PetscErrorCode ierr = (*sys->force)(sys, t, q, v, f, sys->forcectx);
    PetscMPIInt    rank;

    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)sys), &rank));
    if (!ierr && rank == sys->testerrrank && t >= sys->testerrtime) ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_LIB, PETSC_ERROR_INITIAL, "Test hook -mech_test_force_error: the force fails on rank %d at t = %g", (int)rank, (double)t);
    PetscCall(MechSystemAgree(sys, ierr, "force"));
  }
  if (sys->fixed) PetscCall(VecISSet(f, sys->fixed, 0.0));
  if (sys->motion && sys->fixed) {
    /* the prescribed acceleration a_f: the fixed rows' force -m_ff a_f, and with a consistent
       mass the inertia M_if a_f of the moving dofs on the free rows */
    if (sys->Mcouple) {
      PetscCall(MatMultAdd(sys->Mcouple, sys->apresc, f, f));
      PetscCall(VecISSet(f, sys->fixed, 0.0));
    }
    PetscCall(VecPointwiseMult(sys->apresc, sys->apresc, sys->Mdiagfix));
    PetscCall(VecAXPY(f, -1.0, sys->apresc));
  }
  PetscCall(PetscLogEventEnd(MECH_Force, sys, q, v, f));
  PetscFunctionReturn(0);
}

/*@
  MechSystemCreateOperator - Creates a matrix with the sparsity of K + D + M, for
  `MechSystemComputeOperator()`.

  Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameter:
. J - a new matrix with the structure of the matrix of `MechSystemSetTangent()`, values not copied

  Level: intermediate

  Notes:
  A new nonzero location in J is an error (`MAT_NEW_NONZERO_LOCATION_ERR`), and zeroing keeps
  its structure. The caller destroys it.

  The sparsity is held once: while no one but the system holds the matrix of
  `MechSystemSetTangent()`, that matrix itself, zeroed, is the new operator (the system keeps
  its reference and later operators copy its structure); otherwise J is a duplicate of its
  structure.

.seealso: `MechSystemComputeOperator()`, `MechSystemSetTangent()`, `MechSystemCreateOperatorShell()`
@*/
PetscErrorCode MechSystemCreateOperator(MechSystem sys, Mat *J)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(MechSystemSetUp(sys));
  PetscCall(MechSystemGetPattern(sys, NULL));
  if (((PetscObject)sys->Jpattern)->refct == 1) {
    /* no other holder: lend the template, so that its pattern and values are not stored twice */
    PetscCall(PetscObjectReference((PetscObject)sys->Jpattern));
    *J = sys->Jpattern;
    PetscCall(MatZeroEntries(*J));
  } else PetscCall(MatDuplicate(sys->Jpattern, MAT_DO_NOT_COPY_VALUES, J));
  PetscCall(MatSetOption(*J, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
  PetscCall(MatSetOption(*J, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/*@
  MechSystemCreateOperatorReduced - Creates a preconditioning matrix with the reduced sparsity of
  the system's pattern builder (`MechSystemSetTangentPattern()`), for `MechSystemComputeOperator()`.

  Collective

  Input Parameter:
. sys - the mechanical system, with a pattern builder

  Output Parameter:
. P - a new matrix with a subset of the couplings of K + D + M (the diagonal and M's pattern kept)

  Level: advanced

  Notes:
  Filled by `MechSystemComputeOperator()` or `MechSystemComputeOperatorDefinite()`, P holds the
  operator's entries on its sparsity: those of the couplings it lacks are dropped
  (`MAT_NEW_NONZERO_LOCATIONS` false), while their share of the diagonal blocks is kept. It
  stores and factors for less memory than the full operator, at the price of a weaker
  preconditioner (more linear iterations); as a preconditioning matrix only, it leaves Newton's
  answer unchanged to the solver tolerance. The theta2 family uses it with
  -ts_theta_matrix_free -ts_theta_pc_reduced (`TSTheta2SetPCReduced()`). The caller destroys it.

.seealso: `MechSystemSetTangentPattern()`, `MechSystemCreateOperator()`, `MechSystemComputeOperator()`, `TSTheta2SetPCReduced()`
@*/
PetscErrorCode MechSystemCreateOperatorReduced(MechSystem sys, Mat *P)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidPointer(P, 2);
  PetscCall(MechSystemSetUp(sys));
  PetscCheck(sys->patternfn, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_WRONGSTATE, "Model %s has no reduced tangent pattern (MechSystemSetTangentPattern())", sys->modelname ? sys->modelname : "(unnamed)");
  PetscCall((*sys->patternfn)(sys, PETSC_TRUE, P, sys->patternctx));
  /* a builder of the full pattern only (the solid's) gives none */
  PetscCheck(*P, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_INCOMP, "Model %s has no reduced tangent pattern: its pattern builder gives only the full one (a reduced preconditioning matrix, -pc_reduced, needs cloth or lattice)", sys->modelname ? sys->modelname : "(unnamed)");
  PetscCall(MatSetOption(*P, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
  /* the couplings outside the reduced sparsity are dropped, not inserted */
  PetscCall(MatSetOption(*P, MAT_NEW_NONZERO_LOCATIONS, PETSC_FALSE));
  PetscFunctionReturn(0);
}

/* J = cK K + cD D + cM M at (t, q, v) with the tangent callback fn, fixed dofs decoupled */
static PetscErrorCode MechSystemComputeOperator_Private(MechSystem sys, MechTangentFn fn, void *ctx, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, Mat J)
{
  PetscBool mg;

  PetscFunctionBegin;
  PetscCall(MechSystemSetUp(sys));
  /* the matrix-free multigrid operator: its diagonal and coarse levels (mgoperator.c), exact tangents */
  PetscCall(MechOperatorIsMultigrid_Private(J, &mg));
  if (mg) {
    PetscCall(MechOperatorMultigridCompute_Private(sys, t, q, v, cK, cD, cM, J));
    PetscFunctionReturn(0);
  }
  if (!sys->hasdamping) cD = 0;
  PetscCall(PetscLogStagePush(MECH_StageAssembly));
  PetscCall(PetscLogEventBegin(MECH_Operator, sys, J, 0, 0));
  PetscCall(MatZeroEntries(J));
  if (cK != 0 || cD != 0) {
    PetscCall(MechSystemMotionState(sys, t, q, v, &q, &v, NULL));
    PetscCall(MechSystemAgree(sys, (*fn)(sys, t, q, v, cK, cD, J, ctx), "tangent"));
    if (sys->fixed) PetscCall(MatZeroRowsColumnsIS(J, sys->fixed, 0.0, NULL, NULL));
  } else {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(MechSystemAddMass_Private(sys, cM, J));
  PetscCall(PetscLogEventEnd(MECH_Operator, sys, J, 0, 0));
  PetscCall(PetscLogStagePop());
  PetscFunctionReturn(0);
}

/* J += cM M (the decoupled mass: its diagonal, or its own pattern, a subset of the operator's) */
PetscErrorCode MechSystemAddMass_Private(MechSystem sys, PetscReal cM, Mat J)
{
  PetscFunctionBegin;
  if (cM == 0) PetscFunctionReturn(0);
  if (sys->massdiag) {
    PetscCall(VecAXPBY(sys->work, cM, 0.0, sys->Mdiag));
    PetscCall(MatDiagonalSet(J, sys->work, ADD_VALUES));
  } else PetscCall(MatAXPY(J, cM, sys->Mfix, SUBSET_NONZERO_PATTERN));
  PetscFunctionReturn(0);
}

/*@
  MechSystemComputeOperator - Computes J = cK K + cD D + cM M at (t, q, v), with the fixed dofs
  decoupled.

  Collective

  Input Parameters:
+ sys - the mechanical system
. t   - the time
. q   - the position
. v   - the velocity
. cK  - the coefficient of the stiffness K = df/dq
. cD  - the coefficient of the damping D = df/dv (ignored for a system without damping)
- cM  - the coefficient of the mass matrix

  Output Parameter:
. J - the operator, a matrix from `MechSystemCreateOperator()`

  Level: intermediate

  Notes:
  The tangent callback is not called when cK and cD are both zero. On the fixed dofs the rows and
  columns of K and D are zero and M keeps only its diagonal entry, so the fixed rows of J hold
  cM m_ii on the diagonal: symmetric operators stay symmetric. Logged as the event MechOperator
  in the stage "Mech assembly".

.seealso: `MechSystemCreateOperator()`, `MechSystemSetTangent()`, `MechSystemLinearizeOperatorShell()`
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

/*@
  MechSystemSolveMass - Solves M x = b, with the fixed dofs decoupled.

  Collective

  Input Parameters:
+ sys - the mechanical system
- b   - the right-hand side

  Output Parameter:
. x - the solution

  Options Database Keys:
+ -mass_ksp_type <cg> - the KSP of the mass solve (preonly for a lumped M)
. -mass_pc_type <jacobi> - its preconditioner
- -mass_ksp_rtol <1e-12> - its relative tolerance

  Level: intermediate

  Notes:
  A lumped (diagonal) M is inverted exactly by one Jacobi application. The KSP is created at the
  first solve with the options prefix <prefix>mass_, <prefix> being that of
  `MechSystemSetOptionsPrefix()` (that of the `TS` after `TSMechSetSystem()`). A solve that does
  not converge is an error. The explicit types (`TSEULER2`, `TSSYMEULER2`) use it at every step.

.seealso: `MechSystemSetMass()`, `MechSystemSetOptionsPrefix()`, `MechSystemView()`
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

/*@
  MechSystemComputeEnergy - Computes the kinetic energy 1/2 v^T M v and the model's potential energy.

  Collective

  Input Parameters:
+ sys - the mechanical system
. t   - the time
. q   - the position
- v   - the velocity

  Output Parameters:
+ kinetic   - the kinetic energy (may be NULL)
- potential - the potential energy of `MechSystemSetPotential()`, 0 without one (may be NULL)

  Level: intermediate

  Note:
  The kinetic energy uses M with the fixed dofs decoupled; it equals 1/2 v^T M v when the fixed
  dofs are at rest.

.seealso: `MechSystemSetPotential()`, `MechSystemComputeInvariant()`
@*/
PetscErrorCode MechSystemComputeEnergy(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *kinetic, PetscReal *potential)
{
  PetscScalar vMv;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(MechSystemSetUp(sys));
  /* the whole M: with a prescribed motion the fixed dofs move, coupled to their neighbours */
  PetscCall(MatMult(sys->M, v, sys->work));
  PetscCall(VecDot(v, sys->work, &vMv));
  if (kinetic) *kinetic = 0.5 * PetscRealPart(vMv);
  if (potential) {
    *potential = 0;
    if (sys->potential) PetscCall(MechSystemAgree(sys, (*sys->potential)(sys, t, q, v, potential, sys->potentialctx), "potential"));
  }
  PetscFunctionReturn(0);
}

/*@
  MechSystemComputeExactSolution - Evaluates the exact solution, if the model has one.

  Collective

  Input Parameters:
+ sys - the mechanical system
- t   - the time

  Output Parameters:
+ q   - the exact position at t (unchanged without an exact solution)
. v   - the exact velocity at t (unchanged without an exact solution)
- has - whether the model has an exact solution (may be NULL)

  Level: intermediate

.seealso: `MechSystemSetExactSolution()`
@*/
PetscErrorCode MechSystemComputeExactSolution(MechSystem sys, PetscReal t, Vec q, Vec v, PetscBool *has)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (has) *has = sys->exact ? PETSC_TRUE : PETSC_FALSE;
  if (sys->exact) PetscCall(MechSystemAgree(sys, (*sys->exact)(sys, t, q, v, sys->exactctx), "exact solution"));
  PetscFunctionReturn(0);
}

/*@
  MechSystemGetNumInvariants - Gets the number of named invariants of the model.

  Not Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameter:
. n - the number of invariants added with `MechSystemAddInvariant()`

  Level: intermediate

.seealso: `MechSystemAddInvariant()`, `MechSystemComputeInvariant()`
@*/
PetscErrorCode MechSystemGetNumInvariants(MechSystem sys, PetscInt *n)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *n = sys->ninvariants;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemComputeInvariant - Evaluates one of the named invariants of the model.

  Collective

  Input Parameters:
+ sys - the mechanical system
. i   - the invariant's number, in [0, n) with n from `MechSystemGetNumInvariants()`
. t   - the time
. q   - the position
- v   - the velocity

  Output Parameters:
+ name  - its name, owned by the system (may be NULL)
- value - its value (may be NULL: the callback is then not called)

  Level: intermediate

.seealso: `MechSystemAddInvariant()`, `MechSystemGetNumInvariants()`, `MechSystemComputeEnergy()`
@*/
PetscErrorCode MechSystemComputeInvariant(MechSystem sys, PetscInt i, PetscReal t, Vec q, Vec v, const char **name, PetscReal *value)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCheck(i >= 0 && i < sys->ninvariants, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_OUTOFRANGE, "Invariant %" PetscInt_FMT " does not exist", i);
  if (name) *name = sys->invname[i];
  if (value) PetscCall(MechSystemAgree(sys, (*sys->invariant[i])(sys, t, q, v, value, sys->invariantctx[i]), sys->invname[i]));
  PetscFunctionReturn(0);
}

/*@
  MechSystemApplyFixed - Sets the fixed entries of q to their prescribed values and of v to zero.

  Collective

  Input Parameters:
+ sys - the mechanical system
. q   - the position, modified in place (may be NULL)
- v   - the velocity, modified in place (may be NULL)

  Level: intermediate

  Notes:
  The prescribed values are those of `MechSystemSetFixed()` or, if it was given none, those of the
  initial state (`MechSystemSetInitialState()`); without either, q is left as it is. Nothing is
  done without fixed dofs. `TSMechSetSolution()` calls it.

.seealso: `MechSystemSetFixed()`, `TSMechSetSolution()`
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

/* ------------------------------------------------------------------------------------------ */
/* Text parameters                                                                            */
/* ------------------------------------------------------------------------------------------ */

/*@C
  MechSystemAddTextParameter - Records a model parameter whose value is a name (a material, a
  mesh, a law), for views, output and checkpoint metadata.

  Logically Collective

  Input Parameters:
+ sys  - the mechanical system
. name - the parameter's name (copied): 1 to 127 characters, no comma, not the name of another parameter
- text - its value (copied): 1 to 255 printable ASCII characters

  Level: intermediate

  Notes:
  A system records any number of text parameters. `MechSystemView()` prints them, the HDF5 output
  stores each as a string attribute of / (their names listed in the attribute
  model_text_parameters), checkpoints store them in /checkpoint/model_text_parameters, and
  `MechCheckpointLoad()` and `MechOutputContinue()` refuse a file whose text parameters differ.
  A name stored as text rather than as a numeric code (`MechSystemAddParameter()`) stays
  meaningful whatever order a table of names has.

.seealso: `MechSystemGetTextParameters()`, `MechSystemAddParameter()`
@*/
PetscErrorCode MechSystemAddTextParameter(MechSystem sys, const char name[], const char text[])
{
  MPI_Comm comm;
  size_t   nlen, tlen;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidCharPointer(name, 2);
  PetscValidCharPointer(text, 3);
  comm = PetscObjectComm((PetscObject)sys);
  PetscCall(PetscStrlen(name, &nlen));
  PetscCall(PetscStrlen(text, &tlen));
  /* the names are listed comma-separated in the files, and the values are attributes that the
     strict reader takes only as printable ASCII (src/io/h5read.c) */
  PetscCheck(nlen > 0 && nlen <= MECH_MAX_TEXT_NAME && !strchr(name, ','), comm, PETSC_ERR_ARG_WRONG, "Text parameter name \"%s\": 1 to %d characters, no comma", name, MECH_MAX_TEXT_NAME);
  PetscCheck(tlen > 0 && tlen <= MECH_MAX_TEXT_LEN, comm, PETSC_ERR_ARG_SIZ, "Text parameter %s: its value must have 1 to %d characters, not %zu", name, MECH_MAX_TEXT_LEN, tlen);
  for (size_t i = 0; i < tlen; i++) PetscCheck(text[i] >= 32 && text[i] < 127, comm, PETSC_ERR_ARG_WRONG, "Text parameter %s: its value must be printable ASCII (character %zu is not)", name, i);
  for (PetscInt i = 0; i < sys->nparams; i++) PetscCheck(strcmp(name, sys->paramname[i]), comm, PETSC_ERR_ARG_WRONG, "Text parameter %s: a numeric parameter has that name", name);
  for (PetscInt i = 0; i < sys->ntextparams; i++) PetscCheck(strcmp(name, sys->textparamname[i]), comm, PETSC_ERR_ARG_WRONG, "Text parameter %s is already recorded", name);
  if (sys->ntextparams == sys->textparamcap) {
    char   **names, **values;
    PetscInt cap = sys->textparamcap ? 2 * sys->textparamcap : 16;

    PetscCall(PetscCalloc2(cap, &names, cap, &values));
    PetscCall(PetscArraycpy(names, sys->textparamname, sys->ntextparams));
    PetscCall(PetscArraycpy(values, sys->textparamvalue, sys->ntextparams));
    PetscCall(PetscFree2(sys->textparamname, sys->textparamvalue));
    sys->textparamname  = names;
    sys->textparamvalue = values;
    sys->textparamcap   = cap;
  }
  PetscCall(PetscStrallocpy(name, &sys->textparamname[sys->ntextparams]));
  PetscCall(PetscStrallocpy(text, &sys->textparamvalue[sys->ntextparams]));
  sys->ntextparams++;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetTextParameters - Gets the recorded text parameters.

  Not Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameters:
+ n     - the number of text parameters (may be NULL)
. names - their names, owned by the system (may be NULL)
- texts - their values, owned by the system (may be NULL)

  Level: intermediate

.seealso: `MechSystemAddTextParameter()`, `MechSystemGetParameters()`
@*/
PetscErrorCode MechSystemGetTextParameters(MechSystem sys, PetscInt *n, const char *const **names, const char *const **texts)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (n) *n = sys->ntextparams;
  if (names) *names = (const char *const *)sys->textparamname;
  if (texts) *texts = (const char *const *)sys->textparamvalue;
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Per-cell output fields                                                                     */
/* ------------------------------------------------------------------------------------------ */

/*
  The checks and the record shared by the cell and node fields (kind "cell" or "node"): valid,
  distinct names that are no dataset of /fields and no field of the other kind (other), 1, 3 or
  6 components; the names, components, callback and context stored in n, name, nc, fn, ctx
*/
static PetscErrorCode MechSystemSetFields_Private(MechSystem sys, const char kind[], PetscInt nfields, const char *const names[], const PetscInt ncomp[], PetscBool hasfn, PetscInt nother, char *const other[], PetscInt *n, char *name[], PetscInt nc[])
{
  MPI_Comm                 comm;
  static const char *const reserved[] = {"q", "v", "time", "step"};

  PetscFunctionBegin;
  comm = PetscObjectComm((PetscObject)sys);
  PetscCheck(nfields >= 0 && nfields <= MECH_MAX_CELL_FIELDS, comm, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscInt_FMT " %s fields: give 0 to %d", nfields, kind, MECH_MAX_CELL_FIELDS);
  PetscCheck(!nfields || hasfn, comm, PETSC_ERR_ARG_NULL, "The %s fields need a callback", kind);
  for (PetscInt f = 0; f < nfields; f++) {
    size_t len;

    PetscCall(PetscStrlen(names[f], &len));
    /* the name is a dataset of /fields beside the state's */
    PetscCheck(len > 0 && len < 64 && !strchr(names[f], '/') && !strchr(names[f], ','), comm, PETSC_ERR_ARG_WRONG, "The %s field name \"%s\": 1 to 63 characters, no '/' or ','", kind, names[f]);
    for (size_t k = 0; k < sizeof(reserved) / sizeof(reserved[0]); k++) PetscCheck(strcmp(names[f], reserved[k]), comm, PETSC_ERR_ARG_WRONG, "The %s field name \"%s\" is the name of a dataset of /fields", kind, names[f]);
    for (PetscInt g = 0; g < nother; g++) PetscCheck(strcmp(names[f], other[g]), comm, PETSC_ERR_ARG_WRONG, "The %s field name \"%s\" is the name of a field of the other kind (cell or node)", kind, names[f]);
    for (PetscInt g = 0; g < f; g++) PetscCheck(strcmp(names[f], names[g]), comm, PETSC_ERR_ARG_WRONG, "The %s field name \"%s\" is given twice", kind, names[f]);
    PetscCheck(ncomp[f] == 1 || ncomp[f] == 3 || ncomp[f] == 6, comm, PETSC_ERR_SUP, "The %s field %s: %" PetscInt_FMT " components; 1 (scalar), 3 (vector) or 6 (symmetric tensor) are supported", kind, names[f], ncomp[f]);
  }
  for (PetscInt f = 0; f < *n; f++) PetscCall(PetscFree(name[f]));
  for (PetscInt f = 0; f < nfields; f++) {
    PetscCall(PetscStrallocpy(names[f], &name[f]));
    nc[f] = ncomp[f];
  }
  *n = nfields;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetCellFields - Gives the HDF5 output per-cell fields of the model's mesh (stresses,
  strains, damage, ...), written at every snapshot.

  Logically Collective

  Input Parameters:
+ sys     - the mechanical system, with a mesh (`MechSystemSetIOMesh()`) by the time an output is created
. nfields - the number of fields (at most 8; 0 removes them)
. names   - their names (copied): the datasets /fields/<name>; not q, v, time or step, no '/'
. ncomp   - their numbers of components: 1 (a scalar), 3 (a vector) or 6 (a symmetric tensor,
            in the order xx, yy, zz, yz, xz, xy)
. fn      - the callback that evaluates them (`MechCellFieldsFn`)
- ctx     - its context

  Level: intermediate

  Notes:
  The callback fills the values of the rank's cells in the order of the cells given to
  `MechSystemSetIOMesh()`; the output sends each cell's values to its rank-independent number,
  so /fields/<name> is [nsnap, nc] or [nsnap, nc, ncomp] in the order of /mesh/tetrahedra and the
  same on any number of ranks. The XDMF companion shows them as cell-centred attributes.

.seealso: `MechSystemComputeCellFields()`, `MechSystemGetCellFields()`, `MechSystemSetIOMesh()`, `MechOutputCreate()`
@*/
PetscErrorCode MechSystemSetCellFields(MechSystem sys, PetscInt nfields, const char *const names[], const PetscInt ncomp[], MechCellFieldsFn fn, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(MechSystemSetFields_Private(sys, "cell", nfields, names, ncomp, fn ? PETSC_TRUE : PETSC_FALSE, sys->nnodefields, sys->nodefieldname, &sys->ncellfields, sys->cellfieldname, sys->cellfieldncomp));
  sys->cellfields    = nfields ? fn : NULL;
  sys->cellfieldsctx = nfields ? ctx : NULL;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetCellFields - Gets the per-cell fields of `MechSystemSetCellFields()`.

  Not Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameters:
+ nfields - their number, 0 if none (may be NULL)
. names   - their names, owned by the system (may be NULL)
- ncomp   - their numbers of components, owned by the system (may be NULL)

  Level: intermediate

.seealso: `MechSystemSetCellFields()`, `MechSystemComputeCellFields()`
@*/
PetscErrorCode MechSystemGetCellFields(MechSystem sys, PetscInt *nfields, const char *const **names, const PetscInt **ncomp)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (nfields) *nfields = sys->ncellfields;
  if (names) *names = (const char *const *)sys->cellfieldname;
  if (ncomp) *ncomp = sys->cellfieldncomp;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemComputeCellFields - Evaluates the per-cell fields at a state.

  Collective

  Input Parameters:
+ sys - the mechanical system
. t   - the time
. q   - the position
- v   - the velocity

  Output Parameter:
. values - values[f] receives ncomp[f] reals per local cell of `MechSystemSetIOMesh()`, in its order

  Level: intermediate

  Note:
  An error of the callback on some ranks is raised on every rank, with the failing rank's
  message (as for the force).

.seealso: `MechSystemSetCellFields()`, `MechSystemGetCellFields()`
@*/
PetscErrorCode MechSystemComputeCellFields(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *values[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (!sys->ncellfields) PetscFunctionReturn(0);
  PetscCheck(sys->iomesh, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_WRONGSTATE, "Cell fields need the system's mesh (MechSystemSetIOMesh())");
  PetscCall(MechSystemAgree(sys, (*sys->cellfields)(sys, t, q, v, sys->ioncells, values, sys->cellfieldsctx), "cell fields"));
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetNodeFields - Gives the HDF5 output per-node fields of the model's mesh (recovered
  stresses, ...), written at every snapshot.

  Logically Collective

  Input Parameters:
+ sys     - the mechanical system, with a mesh (`MechSystemSetIOMesh()`) by the time an output is created
. nfields - the number of fields (at most 8; 0 removes them)
. names   - their names (copied): the datasets /fields/<name>; not q, v, time, step or a cell field's name, no '/'
. ncomp   - their numbers of components: 1, 3 or 6 (a symmetric tensor, xx, yy, zz, yz, xz, xy)
. fn      - the callback that evaluates them (`MechNodeFieldsFn`)
- ctx     - its context

  Level: intermediate

  Notes:
  A node is a block of 3 entries of the state. The callback fills the values of the rank's nodes
  in the state's order; the output puts them in the I/O order of `MechSystemSetIOOrdering()`, so
  /fields/<name> is [nsnap, nn] or [nsnap, nn, ncomp] in the node order of /fields/q, the same on
  any number of ranks. The XDMF companion shows them as node-centred attributes.

.seealso: `MechSystemSetCellFields()`, `MechSystemComputeNodeFields()`, `MechOutputCreate()`
@*/
PetscErrorCode MechSystemSetNodeFields(MechSystem sys, PetscInt nfields, const char *const names[], const PetscInt ncomp[], MechNodeFieldsFn fn, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(MechSystemSetFields_Private(sys, "node", nfields, names, ncomp, fn ? PETSC_TRUE : PETSC_FALSE, sys->ncellfields, sys->cellfieldname, &sys->nnodefields, sys->nodefieldname, sys->nodefieldncomp));
  sys->nodefields    = nfields ? fn : NULL;
  sys->nodefieldsctx = nfields ? ctx : NULL;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetNodeFields - Gets the per-node fields of `MechSystemSetNodeFields()`.

  Not Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameters:
+ nfields - their number, 0 if none (may be NULL)
. names   - their names, owned by the system (may be NULL)
- ncomp   - their numbers of components, owned by the system (may be NULL)

  Level: intermediate

.seealso: `MechSystemSetNodeFields()`, `MechSystemComputeNodeFields()`
@*/
PetscErrorCode MechSystemGetNodeFields(MechSystem sys, PetscInt *nfields, const char *const **names, const PetscInt **ncomp)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (nfields) *nfields = sys->nnodefields;
  if (names) *names = (const char *const *)sys->nodefieldname;
  if (ncomp) *ncomp = sys->nodefieldncomp;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemComputeNodeFields - Evaluates the per-node fields at a state.

  Collective

  Input Parameters:
+ sys - the mechanical system
. t   - the time
. q   - the position
- v   - the velocity

  Output Parameter:
. values - values[f] receives ncomp[f] reals per node of this rank's part of the state, in its order

  Level: intermediate

.seealso: `MechSystemSetNodeFields()`, `MechSystemGetNodeFields()`
@*/
PetscErrorCode MechSystemComputeNodeFields(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *values[])
{
  PetscInt n;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (!sys->nnodefields) PetscFunctionReturn(0);
  PetscCheck(sys->iomesh, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_WRONGSTATE, "Node fields need the system's mesh (MechSystemSetIOMesh())");
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(MechSystemAgree(sys, (*sys->nodefields)(sys, t, q, v, n / 3, values, sys->nodefieldsctx), "node fields"));
  PetscFunctionReturn(0);
}
