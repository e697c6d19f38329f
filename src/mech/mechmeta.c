/*
  The mechanical system's run metadata and output layout: its grid and I/O ordering, the mesh the
  output writes, the initial state, the model's name and parameters (numbers and text) and the
  fields per cell and per node. The system object itself is in mechsystem.c.
*/
#include "mechimpl.h"
#include <string.h>

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
