#include <tsmech.h>
#include "models/springs.h"

/* The models by name: the built-in ones, and any a program registers with MechModelRegister() */
PetscFunctionList MechModelList              = NULL;
static PetscBool  MechModelRegisterAllCalled = PETSC_FALSE;
/* The names as MechModelGetNames() gives them: the list's own strings, NULL-terminated */
static const char **MechModelNames = NULL;

/*@C
  MechModelRegister - Adds a model that `MechCreateModel()` and the tsmech program's `-model`
  option can create by name.

  Not Collective

  Input Parameters:
+ name   - the model's name (its options then conventionally take the prefix -name_)
- create - the function that creates the model's `MechSystem` on a communicator

  Calling sequence of create:
$ PetscErrorCode create(MPI_Comm comm, MechSystem *sys)

  Level: intermediate

  Note:
  The built-in models are registered first (`MechModelRegisterAll()`); a name registered again
  replaces the earlier function.

.seealso: `MechCreateModel()`, `MechModelRegisterAll()`
@*/
PetscErrorCode MechModelRegister(const char name[], PetscErrorCode (*create)(MPI_Comm, MechSystem *))
{
  PetscFunctionBegin;
  PetscCall(MechModelRegisterAll());
  PetscCall(PetscFunctionListAdd(&MechModelList, name, create));
  PetscFunctionReturn(0);
}

/*@C
  MechModelRegisterAll - Registers the built-in models: oscillator, pair, chain, kepler, cloth,
  lattice, solid.

  Not Collective

  Level: advanced

  Note:
  Called by `MechCreateModel()` and `MechModelRegister()`; safe to call more than once.
  `MechModelList` is then the list for `PetscOptionsFList()`. `MechModelFinalizePackage()` is
  registered with `PetscRegisterFinalize()`.

.seealso: `MechModelRegister()`, `MechCreateModel()`, `MechModelFinalizePackage()`
@*/
PetscErrorCode MechModelRegisterAll(void)
{
  PetscFunctionBegin;
  if (MechModelRegisterAllCalled) PetscFunctionReturn(0);
  MechModelRegisterAllCalled = PETSC_TRUE;
  PetscCall(PetscFunctionListAdd(&MechModelList, "oscillator", MechCreateOscillator));
  PetscCall(PetscFunctionListAdd(&MechModelList, "pair", MechCreatePair));
  PetscCall(PetscFunctionListAdd(&MechModelList, "chain", MechCreateChain));
  PetscCall(PetscFunctionListAdd(&MechModelList, "kepler", MechCreateKepler));
  PetscCall(PetscFunctionListAdd(&MechModelList, "cloth", MechCreateCloth));
  PetscCall(PetscFunctionListAdd(&MechModelList, "lattice", MechCreateLattice));
  PetscCall(PetscFunctionListAdd(&MechModelList, "solid", MechCreateSolid));
  PetscCall(PetscRegisterFinalize(MechModelFinalizePackage));
  PetscFunctionReturn(0);
}

/*@C
  MechModelFinalizePackage - Frees the list of registered models, so that a later
  `PetscInitialize()` registers them anew.

  Not Collective

  Level: developer

  Note:
  Registered with `PetscRegisterFinalize()` by `MechModelRegisterAll()`; models registered with
  `MechModelRegister()` must then be registered again.

.seealso: `MechModelRegisterAll()`, `MechModelRegister()`
@*/
PetscErrorCode MechModelFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscCall(PetscFunctionListDestroy(&MechModelList));
  PetscCall(PetscFree(MechModelNames));
  MechModelRegisterAllCalled = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@C
  MechModelGetNames - Gets the names of the registered models: the built-in ones, then those
  registered with `MechModelRegister()`, in the order of their registration.

  Not Collective

  Output Parameters:
+ n     - the number of models (may be NULL)
- names - their names, NULL-terminated (may be NULL); owned by the library, valid until the next
          call or `PetscFinalize()`

  Level: intermediate

  Note:
  What `MechCreateModel()` accepts and the tsmech program's `-model` lists; the Python package's
  `tsmech.MODELS`.

.seealso: `MechModelRegister()`, `MechCreateModel()`
@*/
PetscErrorCode MechModelGetNames(PetscInt *n, const char *const **names)
{
  const char **list;
  int          count;

  PetscFunctionBegin;
  PetscCall(MechModelRegisterAll());
  /* PETSc 3.18 counts the array's terminating NULL in `count` */
  PetscCall(PetscFunctionListGet(MechModelList, &list, &count));
  PetscCall(PetscFree(MechModelNames));
  MechModelNames = list;
  for (count = 0; list[count];) count++;
  if (n) *n = count;
  if (names) *names = MechModelNames;
  PetscFunctionReturn(0);
}

/* The registered names, comma separated, for messages */
static PetscErrorCode ModelNames(char names[], size_t len)
{
  const char *const *list;
  PetscInt           n;

  PetscFunctionBegin;
  names[0] = 0;
  PetscCall(MechModelGetNames(&n, &list));
  for (PetscInt i = 0; i < n; i++) {
    if (i) PetscCall(PetscStrlcat(names, ", ", len));
    PetscCall(PetscStrlcat(names, list[i], len));
  }
  PetscFunctionReturn(0);
}

/*@C
  MechCreateModel - Creates a registered model by name.

  Collective

  Input Parameters:
+ comm - the communicator of the model
- name - a registered model (`MechModelRegister()`): oscillator, pair, chain, kepler, cloth,
         lattice, solid, or one of the program's own

  Output Parameter:
. sys - the model's mechanical system

  Level: beginner

  Notes:
  The model reads its options with its name as prefix (-chain_n, ...); their values are first
  checked by `MechOptionsCheckNumbers()` with the prefix -name_. A missing or unknown name is an
  error that lists the registered models. The tsmech program takes the name from its option
  -model.

.seealso: `MechModelRegister()`, `MechOptionsCheckNumbers()`, `TSMechSetSystem()`, `MechCreateOscillator()`,
          `MechCreatePair()`, `MechCreateChain()`, `MechCreateKepler()`, `MechCreateCloth()`, `MechCreateLattice()`,
          `MechCreateSolid()`
@*/
PetscErrorCode MechCreateModel(MPI_Comm comm, const char name[], MechSystem *sys)
{
  PetscErrorCode (*create)(MPI_Comm, MechSystem *) = NULL;
  char prefix[256], names[1024];

  PetscFunctionBegin;
  PetscCall(MechModelRegisterAll());
  if (name) PetscCall(PetscFunctionListFind(MechModelList, name, &create));
  if (!create) {
    PetscCall(ModelNames(names, sizeof(names)));
    PetscCheck(name, comm, PETSC_ERR_ARG_NULL, "No model name given (-model); valid models: %s", names);
    SETERRQ(comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown model \"%s\" (-model); valid models: %s", name, names);
  }
  /* the model's options are checked as text before it reads them (PETSc would wrap or accept them) */
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "-%s_", name));
  PetscCall(MechOptionsCheckNumbers(comm, prefix));
  PetscCall((*create)(comm, sys));
  PetscFunctionReturn(0);
}
