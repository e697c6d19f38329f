/*
  Package registration: the TS types (after the mech package they use), the -dll_append entry
  point, and the public calls on the registry that register the package first (the registry itself,
  which the types' files fill, is scheme.c).
*/
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
  types use. A program calls it after `PetscInitialize()` and before `TSSetType()` or
  `TSSetFromOptions()` with a tsmech type; PetscDLLibraryRegister_tsmech() calls it when the
  library is loaded with -dll_append, and the Python package on import. Safe to call more than
  once. (`MechSystemCreate()` registers the mech package only: src/mech depends on nothing in
  src/ts.)

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

/*@C
  TSMechRegister - Registers a TS type of one's own (`TSRegister()`) together with the properties
  it reports (`TSMechGetProperties()`), so that tsmech treats it as it says: the state given in the
  second-order form or as [q; v] (`TSMechSetSolution()`), the run guard's energy check of explicit
  types, the step of a restart from a checkpoint, the driver.

  Not Collective

  Input Parameters:
+ name        - the type's name
. description - one line that says what the type is (`TSMechGetTypeNames()`, the driver's -help)
. create      - its create function, as for `TSRegister()`
. properties  - fills in its properties for a TS of the type (called with those of an implicit
                first-order-form type that restarts as at a first step); NULL keeps them
- valued      - its options that take a value, with their "-", NULL-terminated; NULL if none.
                The driver refuses them given without a value (`TSMechGetValuedOptions()`)

  Level: advanced

  Notes:
  The type records no parameters in outputs and checkpoints and keeps no history in them (a
  restart with `TSMECH_RESTART_EXACT` is treated as `TSMECH_RESTART_FIXED_STEP`); tsmech's own
  types do both through their family's table (src/ts/scheme.h, src/ts/tsimpl2.h, "Adding a TS
  type"). A name tsmech or an earlier call registered is refused. The description and the list
  are copied.

.seealso: `TSMechGetProperties()`, `TSMechGetTypeNames()`, `TSMechGetValuedOptions()`, `TSRegister()`
@*/
PetscErrorCode TSMechRegister(const char name[], const char description[], PetscErrorCode (*create)(TS), PetscErrorCode (*properties)(TS, TSMechProperties *), const char *const valued[])
{
  PetscFunctionBegin;
  PetscCall(TSMechInitializePackage());
  PetscCall(TSMechSchemeRegisterType(name, description, create, properties, valued));
  PetscFunctionReturn(0);
}

/*@C
  TSMechGetTypeNames - The TS types of tsmech and those registered with `TSMechRegister()`, in the
  order of their registration, with the one-line description each gives of itself.

  Not Collective

  Output Parameters:
+ n            - the number of types
. names        - their names (NULL-terminated; pass NULL if not wanted)
- descriptions - their descriptions, in the same order (NULL-terminated; pass NULL if not wanted)

  Level: intermediate

  Notes:
  It registers tsmech's types first (`TSMechInitializePackage()`). The arrays belong to tsmech: do
  not free them; a later registration may change them. PETSc's own types (alpha2, theta, rk, ...)
  are not listed: `TSList` holds every type.

.seealso: `TSMechGetValuedOptions()`, `TSMechRegister()`, `TSMechGetProperties()`
@*/
PetscErrorCode TSMechGetTypeNames(PetscInt *n, const char *const **names, const char *const **descriptions)
{
  PetscFunctionBegin;
  PetscCall(TSMechInitializePackage());
  PetscCall(TSMechSchemeGetTypeNames(n, names, descriptions));
  PetscFunctionReturn(0);
}

/*@C
  TSMechGetValuedOptions - The options of the TS types tsmech knows (its own, those registered with
  `TSMechRegister()`, and PETSc's theta, alpha2, rk and ssp) that take a value, each once: what
  `MechOptionsCheckValuesGiven()` refuses when given without a value, since PETSc then keeps the
  default silently.

  Not Collective

  Output Parameters:
+ n     - the number of options
- names - the options, with their "-" (NULL-terminated)

  Level: intermediate

  Notes:
  Each type lists its own (its family's table, src/ts/scheme.h). PETSc's generic options (-ts_dt,
  -snes_rtol, ...) are not in the list. The array belongs to tsmech: do not free it.

.seealso: `TSMechGetTypeNames()`, `MechOptionsCheckValuesGiven()`, `TSMechRegister()`
@*/
PetscErrorCode TSMechGetValuedOptions(PetscInt *n, const char *const **names)
{
  PetscFunctionBegin;
  PetscCall(TSMechInitializePackage());
  PetscCall(TSMechSchemeGetValuedOptions(n, names));
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
