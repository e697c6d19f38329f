/*
  The mech package: the MechSystem class, its log events and the log stages of assembly and I/O.
  It depends on PETSc alone; the TS types (src/ts/register.c) initialize it before registering
  themselves. The one call from src/mech into src/ts left is MechSystemCreate() registering the
  TS types for the convenience of programs that call TSSetType() before anything else of tsmech.
*/
#include "mechimpl.h"

static PetscBool MechPackageInitialized = PETSC_FALSE;

/*@C
  MechFinalizePackage - Marks the mech package uninitialized, so that a later
  `PetscInitialize()` registers it anew. Registered with `PetscRegisterFinalize()`.

  Not Collective

  Level: developer

.seealso: `MechInitializePackage()`, `TSMechFinalizePackage()`
@*/
PetscErrorCode MechFinalizePackage(void)
{
  PetscFunctionBegin;
  MechPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@C
  MechInitializePackage - Registers the `MechSystem` class, its log events (MechForce,
  MechOperator, MechMassSolve, MechLinearize, MechOpApply) and the log stages "Mech assembly" and
  "Mech I/O" that -log_view reports. Called by `MechSystemCreate()` and
  `TSMechInitializePackage()`; safe to call more than once.

  Not Collective

  Level: developer

.seealso: `MechFinalizePackage()`, `TSMechInitializePackage()`, `MechSystemCreate()`
@*/
PetscErrorCode MechInitializePackage(void)
{
  PetscFunctionBegin;
  if (MechPackageInitialized) PetscFunctionReturn(0);
  MechPackageInitialized = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("MechSystem", &MECHSYSTEM_CLASSID));
  PetscCall(PetscLogEventRegister("MechForce", MECHSYSTEM_CLASSID, &MECH_Force));
  PetscCall(PetscLogEventRegister("MechOperator", MECHSYSTEM_CLASSID, &MECH_Operator));
  PetscCall(PetscLogEventRegister("MechMassSolve", MECHSYSTEM_CLASSID, &MECH_MassSolve));
  PetscCall(PetscLogEventRegister("MechLinearize", MECHSYSTEM_CLASSID, &MECH_Linearize));
  PetscCall(PetscLogEventRegister("MechOpApply", MECHSYSTEM_CLASSID, &MECH_Apply));
  PetscCall(PetscLogEventRegister("MechGalerkin", MECHSYSTEM_CLASSID, &MECH_Galerkin));
  PetscCall(PetscLogEventRegister("MechPatch", MECHSYSTEM_CLASSID, &MECH_Patch));
  PetscCall(PetscLogStageRegister("Mech assembly", &MECH_StageAssembly));
  PetscCall(PetscLogStageRegister("Mech I/O", &MECH_StageIO));
  PetscCall(PetscRegisterFinalize(MechFinalizePackage));
  PetscFunctionReturn(0);
}
