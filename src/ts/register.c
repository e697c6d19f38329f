/* Package registration: the TS types (after the mech package they use), and the -dll_append entry point. */
#include "tsimpl2.h"
#include "../mech/mechimpl.h"

static PetscBool TSMechPackageInitialized = PETSC_FALSE;

/*@C
  TSMechFinalizePackage - Marks the package uninitialized (PETSc frees the registrations).
@*/
PetscErrorCode TSMechFinalizePackage(void)
{
  PetscFunctionBegin;
  TSMechPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@C
  TSMechInitializePackage - Registers the TS types theta2, beuler2, cn2, midpoint2, euler2 and
  symeuler2, after the mech package (`MechInitializePackage()`) they use. Called automatically;
  safe to call more than once.
@*/
PetscErrorCode TSMechInitializePackage(void)
{
  PetscFunctionBegin;
  if (TSMechPackageInitialized) PetscFunctionReturn(0);
  TSMechPackageInitialized = PETSC_TRUE;
  PetscCall(TSInitializePackage());
  PetscCall(MechInitializePackage());
  PetscCall(TSRegister(TSTHETA2, TSCreate_Theta2));
  PetscCall(TSRegister(TSBEULER2, TSCreate_BEuler2));
  PetscCall(TSRegister(TSCN2, TSCreate_CN2));
  PetscCall(TSRegister(TSMIDPOINT2, TSCreate_Midpoint2));
  PetscCall(TSRegister(TSEULER2, TSCreate_Euler2));
  PetscCall(TSRegister(TSSYMEULER2, TSCreate_SymEuler2));
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
