/*
  The mech package: the MechSystem class, its log events and the log stages of assembly and I/O.
  It depends on PETSc alone; the TS types (src/ts/register.c) initialize it before registering
  themselves, and MechSystemCreate() initializes it. Nothing in src/mech calls into src/ts: a
  program registers the TS types with TSMechInitializePackage() (or -dll_append).
*/
#include "mechimpl.h"

PetscClassId  MECHSYSTEM_CLASSID = 0;
PetscLogEvent MECH_Force = 0, MECH_Patch = 0, MECH_Operator = 0, MECH_MassSolve = 0, MECH_Linearize = 0, MECH_Apply = 0, MECH_Galerkin = 0;
PetscLogStage MECH_StageAssembly = -1, MECH_StageIO = -1;

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
