/*
  The tsmech program's modal analysis: the options -modes and -modes_at, the computation at the
  start or the end of the run (src/mech/modes.c does it), the table on standard output and the
  modes in the -output file (src/io/modesio.c). tsmech_main.c calls the four functions of modes.h.
*/
#include "modes.h"
#include <stdio.h>
#include <string.h>

static const char *const ModesAt[] = {"initial", "end", "ModesAt", "MODES_AT_", NULL};

struct _n_DriverModes {
  MPI_Comm  comm;
  PetscInt  n;
  PetscInt  at; /* 0: the initial state, 1: the end of the run */
  PetscBool only;
  MechModes modes;
};

/*MC
  TSMechModesOptions - The tsmech program's modal analysis: the natural frequencies and mode shapes of the
  model linearized at its initial state, or at the end of the run (a prestressed state), with the
  constraints' dofs removed (`MechModesCompute()`, docs/modes.md).

  Options Database Keys:
+ -modes <N>            - compute the N lowest modes (N at least 1, at most the free dofs); without -ts_max_steps,
                          -ts_max_time, -restart and -modes_at end the run is the modal analysis only (no step)
- -modes_at <initial>   - initial: the state the run starts from (the model's initial state, a -restart's); end: the
                          state at the end of the run, its tangent with the geometric stiffness of the stresses and the
                          load stiffness of follower loads

  Notes:
  The frequencies are printed as a table (`MechModesView()`); with -output they are added to the HDF5
  file as /modes and to its XDMF as one node attribute per mode (`MechOutputWriteModes()`). The
  eigensolver's options are those of `MechModesCompute()` (-modes_solver, -modes_eps_*, -modes_st_*,
  -modes_st_ksp_*, -modes_st_pc_*). Refused in one line with exit status 2 and nothing written: N < 1,
  N above the free dofs, a model without a tangent, a target at which K - sigma M is singular
  (for -modes_at end the run's output is then kept, without /modes).

  Level: beginner

.seealso: `MechModesCompute()`, `MechModesView()`, `MechOutputWriteModes()`
M*/
PetscErrorCode DriverModesCreate(MPI_Comm comm, DriverModes *dmp)
{
  DriverModes dm;
  PetscInt    n = 0, at = 0;
  PetscBool   set, setat, steps, time, restart;

  PetscFunctionBegin;
  *dmp = NULL;
  PetscOptionsBegin(comm, NULL, "Modal analysis (TSMechModesOptions)", "MechModes");
  PetscCall(MechOptionsInt("-modes", "Compute the N lowest natural frequencies and mode shapes", "MechModesCompute", n, &n, &set));
  PetscCall(MechOptionsEList("-modes_at", "State of the modal analysis: initial or end (of the run)", "MechModesCompute", ModesAt, 2, ModesAt[at], &at, &setat));
  PetscOptionsEnd();
  PetscCheck(!setat || set, comm, PETSC_ERR_ARG_WRONG, "-modes_at %s: needs -modes N", ModesAt[at]);
  if (!set) PetscFunctionReturn(0);
  PetscCheck(n >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-modes %" PetscInt_FMT ": the number of modes must be at least 1", n);
  PetscCall(PetscOptionsHasName(NULL, NULL, "-ts_max_steps", &steps));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-ts_max_time", &time));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-restart", &restart));
  PetscCall(PetscNew(&dm));
  dm->comm = comm;
  dm->n    = n;
  dm->at   = at;
  dm->only = !steps && !time && !restart && at == 0 ? PETSC_TRUE : PETSC_FALSE;
  *dmp     = dm;
  PetscFunctionReturn(0);
}

PetscBool DriverModesOnly(DriverModes dm)
{
  return dm && dm->only ? PETSC_TRUE : PETSC_FALSE;
}

/* The modes of (t, q, v), printed */
static PetscErrorCode Compute(DriverModes dm, PetscReal t, Vec q, Vec v)
{
  PetscFunctionBegin;
  PetscCall(MechModesCompute(dm->modes, t, q, v));
  PetscCall(PetscPrintf(dm->comm, "tsmech: modes of the %s state: ", dm->at ? "final" : "initial"));
  PetscCall(MechModesView(dm->modes, PETSC_VIEWER_STDOUT_(dm->comm)));
  PetscFunctionReturn(0);
}

/* An error of the library told with the option it is about */
static PetscErrorCode OptionError(DriverModes dm, PetscErrorCode ierr)
{
  const char *text     = NULL;
  char       *specific = NULL;

  PetscFunctionBegin;
  (void)PetscErrorMessage(ierr, &text, &specific);
  /* the singular target's message names its option already */
  if (specific && !strncmp(specific, "-", 1)) SETERRQ(dm->comm, ierr, "%s", specific);
  SETERRQ(dm->comm, ierr, "-modes %" PetscInt_FMT ": %s", dm->n, specific && specific[0] ? specific : (text ? text : "error"));
}

PetscErrorCode DriverModesSetUp(DriverModes dm, MechSystem sys, TS ts, Vec q, Vec v)
{
  PetscErrorCode ierr;
  PetscReal      t;

  PetscFunctionBegin;
  PetscCall(MechModesCreate(sys, &dm->modes));
  PetscCall(MechModesSetDimension(dm->modes, dm->n));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MechModesSetUp(dm->modes, q);
  PetscCall(PetscPopErrorHandler());
  if (ierr) PetscCall(OptionError(dm, ierr));
  if (dm->at) PetscFunctionReturn(0);
  PetscCall(TSGetTime(ts, &t));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = Compute(dm, t, q, v);
  PetscCall(PetscPopErrorHandler());
  if (ierr) PetscCall(OptionError(dm, ierr));
  /* the modal analysis only: no step (the output holds the initial state, the mesh and the modes) */
  if (dm->only) PetscCall(TSSetMaxSteps(ts, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode DriverModesFinish(DriverModes dm, MechSystem sys, TS ts, MechOutput out)
{
  PetscFunctionBegin;
  if (dm->at) {
    Vec       q, v;
    PetscReal t;

    PetscCall(MechSystemCreateState(sys, &q, &v));
    PetscCall(TSMechGetSolution(ts, q, v));
    PetscCall(TSGetTime(ts, &t));
    PetscCall(Compute(dm, t, q, v));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
  }
  if (out) PetscCall(MechOutputWriteModes(out, dm->modes));
  PetscFunctionReturn(0);
}

PetscErrorCode DriverModesDestroy(DriverModes *dm)
{
  PetscFunctionBegin;
  if (!*dm) PetscFunctionReturn(0);
  PetscCall(MechModesDestroy(&(*dm)->modes));
  PetscCall(PetscFree(*dm));
  PetscFunctionReturn(0);
}
