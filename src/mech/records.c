/*
  Per-step records of a system beside the energies and invariants (MechSystemAddRecords()): named
  rows of a few reals that the HDF5 output writes at every step as /monitor/<name> (the solid's
  probes, the reactions and the energy balance of src/ts/balance.c). Each provider gives a block of
  them and fills their values at a state; names are paths (probe/tip/u) so that each provider's
  records form a group of the file.
*/
#include "mechimpl.h"
#include <ctype.h>

typedef struct {
  MechRecordsFn fn;
  void         *ctx;
  PetscInt      first, n; /* its records: first .. first + n - 1 */
} Provider;

struct _n_MechRecords {
  PetscInt  nprov, nrec, nvalues;
  Provider *prov;
  char    **names;
  PetscInt *ncomp;
};

/* A record's name: letters, digits, _ and / between non-empty parts */
static PetscBool ValidName(const char name[])
{
  size_t n = strlen(name);

  if (!n || name[0] == '/' || name[n - 1] == '/' || strstr(name, "//")) return PETSC_FALSE;
  for (const char *p = name; *p; p++)
    if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '/')) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* Frees the records (the container composed on the system holds them: freed with the system) */
static PetscErrorCode RecordsDestroy(void *ctx)
{
  struct _n_MechRecords *r = (struct _n_MechRecords *)ctx;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < r->nrec; i++) PetscCall(PetscFree(r->names[i]));
  PetscCall(PetscFree(r->names));
  PetscCall(PetscFree(r->ncomp));
  PetscCall(PetscFree(r->prov));
  PetscCall(PetscFree(r));
  PetscFunctionReturn(0);
}

/* The system's records, created at the first use and composed on it */
static PetscErrorCode RecordsGet(MechSystem sys, struct _n_MechRecords **r)
{
  PetscFunctionBegin;
  if (!sys->records) {
    PetscCall(PetscNew(&sys->records));
    PetscCall(MechSystemComposeData_Private(sys, "MechRecords", sys->records, RecordsDestroy));
  }
  *r = sys->records;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemAddRecords - Adds per-step records to the system: rows of ncomp reals the HDF5 output
  writes at every step as /monitor/<name> ([steps, ncomp], or [steps] for one component).

  Logically Collective

  Input Parameters:
+ sys   - the mechanical system
. n     - how many records this provider gives
. names - their names, paths such as "probe/tip/u" (letters, digits, _ and /; copied)
. ncomp - their numbers of components (1 to 9)
. fn    - fills values[] (the records' components one after the other) at the state (t, q, v); it
          must give every rank the same values (the output writes rank 0's)
- ctx   - its context

  Calling sequence of fn:
$ PetscErrorCode fn(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal values[], void *ctx)

  Level: advanced

  Notes:
  Names must be distinct, also from those of other providers. `MechSystemRemoveRecords()` takes a
  provider's records away (by its context).

.seealso: `MechSystemGetRecords()`, `MechSystemComputeRecords()`, `MechOutputCreate()`
@*/
PetscErrorCode MechSystemAddRecords(MechSystem sys, PetscInt n, const char *const names[], const PetscInt ncomp[], MechRecordsFn fn, void *ctx)
{
  struct _n_MechRecords *r = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(RecordsGet(sys, &r));
  for (PetscInt i = 0; i < n; i++) {
    PetscCheck(ValidName(names[i]), PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_WRONG, "Record name \"%s\": letters, digits, _ and / between non-empty parts", names[i]);
    PetscCheck(ncomp[i] >= 1 && ncomp[i] <= 9, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_OUTOFRANGE, "Record %s: %" PetscInt_FMT " components, 1 to 9 allowed", names[i], ncomp[i]);
    for (PetscInt j = 0; j < r->nrec; j++) PetscCheck(strcmp(names[i], r->names[j]), PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_WRONG, "Record name \"%s\" given twice", names[i]);
  }
  PetscCall(PetscRealloc(sizeof(Provider) * (r->nprov + 1), &r->prov));
  PetscCall(PetscRealloc(sizeof(char *) * (r->nrec + n + 1), &r->names));
  PetscCall(PetscRealloc(sizeof(PetscInt) * (r->nrec + n + 1), &r->ncomp));
  r->prov[r->nprov].fn    = fn;
  r->prov[r->nprov].ctx   = ctx;
  r->prov[r->nprov].first = r->nrec;
  r->prov[r->nprov].n     = n;
  r->nprov++;
  for (PetscInt i = 0; i < n; i++) {
    PetscCall(PetscStrallocpy(names[i], &r->names[r->nrec]));
    r->ncomp[r->nrec] = ncomp[i];
    r->nvalues += ncomp[i];
    r->nrec++;
  }
  PetscFunctionReturn(0);
}

/*@C
  MechSystemRemoveRecords - Takes away the records of the provider with context ctx.

  Logically Collective

  Level: advanced

.seealso: `MechSystemAddRecords()`
@*/
PetscErrorCode MechSystemRemoveRecords(MechSystem sys, void *ctx)
{
  struct _n_MechRecords *r = sys->records;

  PetscFunctionBegin;
  if (!r) PetscFunctionReturn(0);
  for (PetscInt p = 0; p < r->nprov; p++) {
    const Provider pv = r->prov[p];

    if (pv.ctx != ctx) continue;
    for (PetscInt i = pv.first; i < pv.first + pv.n; i++) {
      r->nvalues -= r->ncomp[i];
      PetscCall(PetscFree(r->names[i]));
    }
    for (PetscInt i = pv.first; i + pv.n < r->nrec; i++) {
      r->names[i] = r->names[i + pv.n];
      r->ncomp[i] = r->ncomp[i + pv.n];
    }
    r->nrec -= pv.n;
    for (PetscInt q = p; q + 1 < r->nprov; q++) {
      r->prov[q] = r->prov[q + 1];
      r->prov[q].first -= pv.n;
    }
    r->nprov--;
    p--;
  }
  PetscFunctionReturn(0);
}

/*@C
  MechSystemGetRecords - The system's per-step records: how many, their names and components.

  Not Collective

  Level: advanced

.seealso: `MechSystemAddRecords()`
@*/
PetscErrorCode MechSystemGetRecords(MechSystem sys, PetscInt *n, const char *const **names, const PetscInt **ncomp)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (n) *n = sys->records ? sys->records->nrec : 0;
  if (names) *names = sys->records ? (const char *const *)sys->records->names : NULL;
  if (ncomp) *ncomp = sys->records ? sys->records->ncomp : NULL;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemComputeRecords - Every record's values at (t, q, v), one record's components after the
  other in the order of `MechSystemGetRecords()`. Collective.

  Level: advanced

.seealso: `MechSystemAddRecords()`
@*/
PetscErrorCode MechSystemComputeRecords(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal values[])
{
  struct _n_MechRecords *r   = sys->records;
  PetscInt               off = 0;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (!r) PetscFunctionReturn(0);
  for (PetscInt p = 0; p < r->nprov; p++) {
    PetscCall(MechSystemAgree(sys, (*r->prov[p].fn)(sys, t, q, v, values + off, r->prov[p].ctx), "records"));
    for (PetscInt i = r->prov[p].first; i < r->prov[p].first + r->prov[p].n; i++) off += r->ncomp[i];
  }
  PetscFunctionReturn(0);
}
