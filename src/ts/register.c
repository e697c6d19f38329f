/* Package registration: the TS types (after the mech package they use), and the -dll_append entry point. */
#include "tsimpl2.h"
#include "../mech/mechimpl.h"
#include "scheme.h"

static PetscBool TSMechPackageInitialized = PETSC_FALSE;

/*@C
  TSMechFinalizePackage - Marks the tsmech TS package uninitialized, so that a later
  `PetscInitialize()` registers the types anew (PETSc frees the registrations itself).

  Not Collective

  Level: developer

  Note:
  Registered with `PetscRegisterFinalize()` by `TSMechInitializePackage()`.

.seealso: `TSMechInitializePackage()`, `MechFinalizePackage()`
@*/
PetscErrorCode TSMechFinalizePackage(void)
{
  PetscFunctionBegin;
  TSMechPackageInitialized = PETSC_FALSE;
  PetscCall(TSMechSchemeRegistryReset());
  PetscFunctionReturn(0);
}

/*@C
  TSMechInitializePackage - Registers the TS types of tsmech, family by family (each family's
  registration lists its types: `TSMechGetTypeNames()`).

  Not Collective

  Level: developer

  Notes:
  It initializes PETSc's TS package and then the mech package (`MechInitializePackage()`) that the
  types use. It is called automatically, by `MechSystemCreate()` and by
  PetscDLLibraryRegister_tsmech() when the library is loaded with -dll_append; safe to call more
  than once.

.seealso: `TSMechFinalizePackage()`, `MechInitializePackage()`, `MechSystemCreate()`, `TSSetType()`, `TSMechGetTypeNames()`
@*/
PetscErrorCode TSMechInitializePackage(void)
{
  PetscFunctionBegin;
  if (TSMechPackageInitialized) PetscFunctionReturn(0);
  TSMechPackageInitialized = PETSC_TRUE;
  PetscCall(TSInitializePackage());
  PetscCall(MechInitializePackage());
  /* each family registers its table (scheme.h: recorded parameters, properties, history) and its types */
  PetscCall(TSMechRegisterTheta2());
  PetscCall(TSMechRegisterSymEuler2());
  PetscCall(TSMechRegisterGauss2());
  PetscCall(TSMechRegisterDiscGrad2());
  PetscCall(TSMechRegisterStatic2());
  /* automatic incrementation, the step-size controller of static2 and tsmech's implicit dynamic types */
  PetscCall(TSAdaptRegister(TSADAPTINCREMENT, TSAdaptCreate_Increment));
  /* the line search on the step's incremental potential */
  PetscCall(SNESLineSearchRegister(SNESLINESEARCHPOTENTIAL, SNESLineSearchCreate_Potential));
  PetscCall(PetscRegisterFinalize(TSMechFinalizePackage));
  PetscFunctionReturn(0);
}

/*
  PetscDLLibraryRegister_tsmech - Entry point PETSc calls when the library is loaded with
  -dll_append <path>/libtsmech.so, so any PETSc program (petsc4py included) gets the types.
*/
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_tsmech(void)
{
  PetscFunctionBegin;
  PetscCall(TSMechInitializePackage());
  PetscFunctionReturn(0);
}
