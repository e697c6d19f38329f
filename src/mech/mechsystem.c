/*
  The mechanical system M q'' + f(t, q, q') = 0: one description from which every integrator
  (tsmech's, TSALPHA2, PETSc's first-order types) is driven.

  Fixed degrees of freedom are imposed here, once, so that every consumer sees the same
  system: their force is zero, their rows and columns of K and D are zero, and their rows and
  columns of M are decoupled with the diagonal kept. With v = 0 and q at its prescribed value
  at the start, every integrator then keeps them where they are, and symmetric operators stay
  symmetric (CG and AMG remain usable).

  This file holds the object, its setters and its set-up; the other jobs have files of their own:
  the fixed dofs and their motion (fixed.c), the evaluations (mecheval.c), the run metadata and
  output layout (mechmeta.c), the cross-rank agreement on a callback's error (erroragree.c), the
  class and its log events (package.c). Of these it calls only package.c: the others call it.
*/
#include "mechimpl.h"
#include <stdio.h>
#include <string.h>

/*@
  MechSystemCreate - Creates an empty mechanical system M q'' + f(t, q, q') = 0.

  Collective

  Input Parameter:
. comm - the MPI communicator of the system

  Output Parameter:
. sys - the new mechanical system

  Options Database Keys:
+ -mech_agree_timeout <5> - seconds a rank whose model callback failed waits for the others before it
    ends the job (`MPI_Abort()`, status 3): a callback that fails on some ranks only, before a collective
    operation of its own (an assembly), leaves the others inside it, where no agreement reaches them
- -mech_test_force_error <rank,time> - test hook: the force fails on that rank from that time on
    (the tests of the agreement on model errors)

  Level: beginner

  Notes:
  The system is empty: give it at least the mass matrix (`MechSystemSetMass()`), the force
  (`MechSystemSetForce()`) and the tangent (`MechSystemSetTangent()`), then attach it to a `TS`
  with `TSMechSetSystem()`. `MechCreateModel()` creates the built-in models instead.

  It registers the mech package (`MechInitializePackage()`), not the TS types: a program that
  sets a tsmech type (`TSTHETA2`, ...) calls `TSMechInitializePackage()` after `PetscInitialize()`,
  or loads the library with -dll_append.

.seealso: `MechSystemDestroy()`, `MechSystemSetMass()`, `MechSystemSetForce()`, `MechSystemSetTangent()`,
          `TSMechSetSystem()`, `MechCreateModel()`
@*/
PetscErrorCode MechSystemCreate(MPI_Comm comm, MechSystem *sys)
{
  MechSystem s;

  PetscFunctionBegin;
  PetscValidPointer(sys, 2);
  PetscCall(MechInitializePackage());
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
  if (s->appdestroy) PetscCall((*s->appdestroy)(s->appctx));
  if (s->agreecomm != MPI_COMM_NULL) PetscCallMPI(MPI_Comm_free(&s->agreecomm));
  PetscCall(PetscHeaderDestroy(sys));
  PetscFunctionReturn(0);
}

/*
  MechSystemComposeData_Private - Gives the system data of another file (reaction.c, records.c) in a
  container composed on it under name, so that destroy frees them with the system
*/
PetscErrorCode MechSystemComposeData_Private(MechSystem sys, const char name[], void *data, PetscErrorCode (*destroy)(void *))
{
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, data));
  PetscCall(PetscContainerSetUserDestroy(c, destroy));
  PetscCall(PetscObjectCompose((PetscObject)sys, name, (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
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
  MPI_Comm  comm;
  PetscBool shell;

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
  PetscCall(PetscObjectTypeCompare((PetscObject)sys->M, MATSHELL, &shell));
  /* a mass given as a shell (stored matrix-free or smaller than AIJ) is consistent; Mfix is a shell over it (massfixed.c) */
  if (shell) {
    sys->massdiag = PETSC_FALSE;
    PetscCall(MechMassCreateFixedShell_Private(sys, PETSC_FALSE, &sys->Mfix));
  } else {
    PetscCall(MatDuplicate(sys->M, MAT_COPY_VALUES, &sys->Mfix));
    PetscCall(MatIsDiagonal_Private(sys->M, &sys->massdiag));
  }
  if (sys->fixed && shell) {
    Vec              d;
    const PetscReal *da;
    PetscInt         nfix, rstart;
    const PetscInt  *idx;

    PetscCall(MatCreateVecs(sys->M, &d, NULL));
    PetscCall(MatGetDiagonal(sys->M, d));
    PetscCall(VecGetOwnershipRange(d, &rstart, NULL));
    PetscCall(ISGetLocalSize(sys->fixed, &nfix));
    PetscCall(ISGetIndices(sys->fixed, &idx));
    PetscCall(VecGetArrayRead(d, &da));
    for (PetscInt k = 0; k < nfix; k++) PetscCheck(da[idx[k] - rstart] > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "Mass of fixed dof %" PetscInt_FMT " must be positive", idx[k]);
    PetscCall(VecRestoreArrayRead(d, &da));
    PetscCall(ISRestoreIndices(sys->fixed, &idx));
    PetscCall(VecDestroy(&d));
  } else if (sys->fixed) {
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
    if (shell) PetscCall(MechMassCreateFixedShell_Private(sys, PETSC_TRUE, &sys->Mcouple));
    else if (!sys->massdiag) {
      PetscCall(MatDuplicate(sys->M, MAT_COPY_VALUES, &sys->Mcouple));
      PetscCall(MatAXPY(sys->Mcouple, -1.0, sys->Mfix, SUBSET_NONZERO_PATTERN));
    }
  }
  if (sys->massksp) PetscCall(KSPSetOperators(sys->massksp, sys->Mfix, sys->Mfix));
  sys->setupcalled = PETSC_TRUE;
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

.seealso: `MechSystemSetTangent()`, `MechSystemCreateOperatorReduced()`, `MechSystemReleasePattern()`, `TSMechSetPCReduced()`
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
  points, for nonlinear elimination (`TSMechSetNonlinearElimination()`).

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

.seealso: `MechSystemComputePatch()`, `TSMechSetNonlinearElimination()`
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
  et al., SCA 2005) here. Used only for the preconditioning matrix (TSMechSetPCDefinite()),
  it changes how fast the linear solver converges, never what Newton converges to.
  MechSystemComputeOperatorDefinite() falls back to the exact tangent when no callback is set.

.seealso: `MechSystemSetTangent()`, `MechSystemComputeOperatorDefinite()`, `TSMechSetPCDefinite()`
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
