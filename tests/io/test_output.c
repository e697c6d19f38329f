static const char help[] = "Writes the HDF5 output of a short run, for tests/io/check_output.py to check.\n"
                           "  -o FILE              output file (FILE.h5; grid models also get FILE.xmf)\n"
                           "  -model NAME          a built-in model, or grid2d / grid3d (test models defined here)\n"
                           "  -steps N -dt DT      run length\n"
                           "  -every K             snapshot interval\n"
                           "  -abort_after_step S  MPI_Abort() once step S is recorded (a run killed mid-way)\n"
                           "  -no_monitor          record by hand: the initial state before TSSolve(), the final one at close\n"
                           "  -deform F11,...,F33  start from the positions F q0 (models whose q holds positions, the solid:\n"
                           "                       a uniform deformation gradient F, row-major)\n"
                           "  -deform_quadratic C  then x += C (Y^2 + Z^2, X Y, X Z) at every node: a non-uniform state\n"
                           "  -check_errors        check that unwritable paths fail cleanly, then exit\n";

/*
  The test models grid2d and grid3d are n x n (x n) nodes on a 2-D (3-D) DMDA with 3 dofs per
  node, each node tied to its rest position by a linear spring: M = I, f = k (q - q_rest). They
  exercise the grid paths of the output (natural ordering, XDMF) without depending on the cloth
  and lattice models.
*/
#include <tsmech.h>
#include <petscdmda.h>

typedef struct {
  DM        da;
  PetscReal k;
  Vec       rest;
} Grid;

static PetscErrorCode GridDestroy(void *ctx)
{
  Grid *g = (Grid *)ctx;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&g->rest));
  PetscCall(DMDestroy(&g->da));
  PetscCall(PetscFree(g));
  PetscFunctionReturn(0);
}

static PetscErrorCode GridForce(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
{
  Grid *g = (Grid *)ctx;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(VecWAXPY(f, -1.0, g->rest, q));
  PetscCall(VecScale(f, g->k));
  PetscFunctionReturn(0);
}

static PetscErrorCode GridTangent(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  Grid *g = (Grid *)ctx;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)q;
  (void)v;
  (void)cD;
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatShift(J, cK * g->k));
  PetscFunctionReturn(0);
}

static PetscErrorCode GridPotential(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *e, void *ctx)
{
  Grid     *g = (Grid *)ctx;
  Vec       d;
  PetscReal nrm;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(VecDuplicate(q, &d));
  PetscCall(VecWAXPY(d, -1.0, g->rest, q));
  PetscCall(VecNorm(d, NORM_2, &nrm));
  PetscCall(VecDestroy(&d));
  *e = 0.5 * g->k * nrm * nrm;
  PetscFunctionReturn(0);
}

/* A sheet (dim 2) or block (dim 3) of n nodes a side, spacing 1/(n-1), displaced by a bump */
static PetscErrorCode CreateGrid(MPI_Comm comm, PetscInt dim, MechSystem *sys)
{
  PetscInt        n = 6, xs, ys, zs, xm, ym, zm, i, j, k, rstart, rend;
  Grid           *g;
  MechSystem      s;
  Vec             q, v;
  Mat             M, J;
  PetscScalar ****x4 = NULL, ***x3 = NULL;
  PetscReal       h, bump;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-grid_n", &n, NULL));
  PetscCall(PetscNew(&g));
  g->k = 50;
  if (dim == 2) PetscCall(DMDACreate2d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, n, n, PETSC_DECIDE, PETSC_DECIDE, 3, 0, NULL, NULL, &g->da));
  else PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 3, 0, NULL, NULL, NULL, &g->da));
  PetscCall(DMSetMatType(g->da, MATAIJ));
  PetscCall(DMSetUp(g->da));
  h = 1.0 / (n - 1);
  PetscCall(DMCreateGlobalVector(g->da, &g->rest));
  PetscCall(VecDuplicate(g->rest, &q));
  PetscCall(DMDAGetCorners(g->da, &xs, &ys, &zs, &xm, &ym, &zm));
  /* rest positions at the nodes; q adds a bump along z (2-D) or x (3-D) */
  if (dim == 2) PetscCall(DMDAVecGetArrayDOF(g->da, g->rest, &x3));
  else PetscCall(DMDAVecGetArrayDOF(g->da, g->rest, &x4));
  for (k = zs; k < zs + zm; k++)
    for (j = ys; j < ys + ym; j++)
      for (i = xs; i < xs + xm; i++) {
        PetscScalar *p = dim == 2 ? x3[j][i] : x4[k][j][i];
        p[0]           = i * h;
        p[1]           = j * h;
        p[2]           = dim == 2 ? 0 : k * h;
      }
  if (dim == 2) PetscCall(DMDAVecRestoreArrayDOF(g->da, g->rest, &x3));
  else PetscCall(DMDAVecRestoreArrayDOF(g->da, g->rest, &x4));
  PetscCall(VecCopy(g->rest, q));
  if (dim == 2) PetscCall(DMDAVecGetArrayDOF(g->da, q, &x3));
  else PetscCall(DMDAVecGetArrayDOF(g->da, q, &x4));
  for (k = zs; k < zs + zm; k++)
    for (j = ys; j < ys + ym; j++)
      for (i = xs; i < xs + xm; i++) {
        bump = 0.1 * PetscSinReal(PETSC_PI * i * h) * PetscSinReal(PETSC_PI * j * h);
        if (dim == 2) x3[j][i][2] += bump;
        else x4[k][j][i][0] += bump * PetscSinReal(PETSC_PI * k * h);
      }
  if (dim == 2) PetscCall(DMDAVecRestoreArrayDOF(g->da, q, &x3));
  else PetscCall(DMDAVecRestoreArrayDOF(g->da, q, &x4));
  PetscCall(VecDuplicate(q, &v));
  PetscCall(VecSet(v, 0.0));

  PetscCall(MechSystemCreate(comm, &s));
  PetscCall(MechSystemSetApplicationContext(s, g, GridDestroy));
  PetscCall(MechSystemSetModelName(s, dim == 2 ? "grid2d" : "grid3d"));
  PetscCall(MechSystemAddParameter(s, "n", (PetscReal)n));
  PetscCall(MechSystemAddParameter(s, "k", g->k));
  PetscCall(MechSystemSetDM(s, g->da));
  PetscCall(VecGetOwnershipRange(q, &rstart, &rend));
  PetscCall(MatCreateAIJ(comm, rend - rstart, rend - rstart, PETSC_DETERMINE, PETSC_DETERMINE, 1, NULL, 0, NULL, &M));
  for (i = rstart; i < rend; i++) PetscCall(MatSetValue(M, i, i, 1.0, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MechSystemSetMass(s, M));
  PetscCall(DMCreateMatrix(g->da, &J));
  PetscCall(MechSystemSetForce(s, GridForce, g));
  PetscCall(MechSystemSetTangent(s, J, PETSC_FALSE, GridTangent, g));
  PetscCall(MechSystemSetPotential(s, GridPotential, g));
  PetscCall(MechSystemSetLinear(s, PETSC_TRUE));
  PetscCall(MechSystemSetInitialState(s, q, v));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&M));
  PetscCall(MatDestroy(&J));
  *sys = s;
  PetscFunctionReturn(0);
}

static PetscErrorCode AbortMonitor(TS ts, PetscInt step, PetscReal t, Vec X, void *ctx)
{
  PetscFunctionBegin;
  (void)t;
  (void)X;
  if (step == *(PetscInt *)ctx) {
    PetscCall(PetscPrintf(PetscObjectComm((PetscObject)ts), "Aborting after step %" PetscInt_FMT " as asked\n", step));
    PetscCallMPI(MPI_Barrier(PetscObjectComm((PetscObject)ts)));
    PetscCallMPI(MPI_Abort(PetscObjectComm((PetscObject)ts), 42));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ClashInvariant(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *value, void *ctx)
{
  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)q;
  (void)v;
  (void)ctx;
  *value = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode CellFieldsNone(MechSystem sys, PetscReal t, Vec q, Vec v, PetscInt ncells, PetscReal *values[], void *ctx)
{
  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)q;
  (void)v;
  (void)ncells;
  (void)values;
  (void)ctx;
  PetscFunctionReturn(0);
}

/* MechOutputCreate() on path must fail, with an error naming the path if namespath, and (if
   mustnotexist) leave no file */
static PetscErrorCode CheckRefused(MechSystem sys, TS ts, const char path[], PetscBool namespath, PetscBool mustnotexist)
{
  MechOutput     out = NULL;
  PetscErrorCode ierr;
  const char    *text;
  char          *specific = NULL;
  PetscBool      exists;
  MPI_Comm       comm = PetscObjectComm((PetscObject)ts);

  PetscFunctionBegin;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MechOutputCreate(sys, ts, path, 1, &out);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr, comm, PETSC_ERR_PLIB, "MechOutputCreate() accepted the path %s", path);
  PetscCheck(!out, comm, PETSC_ERR_PLIB, "MechOutputCreate() failed on %s but returned an output", path);
  PetscCall(PetscErrorMessage(ierr, &text, &specific));
  PetscCall(PetscPrintf(comm, "refused %s: %s\n", path, specific ? specific : text));
  PetscCheck(!namespath || (specific && strstr(specific, path)), comm, PETSC_ERR_PLIB, "The error for %s does not name the path: %s", path, specific ? specific : "(none)");
  if (mustnotexist) {
    PetscCall(PetscTestFile(path, 'r', &exists));
    PetscCheck(!exists, comm, PETSC_ERR_PLIB, "A refused MechOutputCreate() left the file %s behind", path);
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char       model[64] = "chain", file[PETSC_MAX_PATH_LEN] = "";
  PetscInt   steps = 30, every = 7, abortstep = -1;
  PetscReal  dt          = 0.01;
  PetscBool  checkerrors = PETSC_FALSE, nomonitor = PETSC_FALSE, has;
  MechSystem sys;
  MechOutput out;
  TS         ts;
  Vec        q, v;
  MPI_Comm   comm;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-model", model, sizeof(model), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", file, sizeof(file), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &steps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-every", &every, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-abort_after_step", &abortstep, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-dt", &dt, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check_errors", &checkerrors, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-no_monitor", &nomonitor, NULL));

  PetscCall(PetscStrcmp(model, "grid2d", &has));
  if (has) PetscCall(CreateGrid(comm, 2, &sys));
  else {
    PetscCall(PetscStrcmp(model, "grid3d", &has));
    if (has) PetscCall(CreateGrid(comm, 3, &sys));
    else {
      PetscCall(MechCreateModel(comm, model, &sys));
    }
  }

  PetscCall(TSCreate(comm, &ts));
  PetscCall(TSSetType(ts, TSTHETA2));
  PetscCall(TSMechSetSystem(ts, sys));
  PetscCall(TSSetTimeStep(ts, dt));
  PetscCall(TSSetMaxSteps(ts, steps));
  PetscCall(TSSetMaxTime(ts, 2 * steps * dt)); /* the step count ends the run */
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(MechSystemCreateState(sys, &q, &v));
  {
    PetscReal F[9];
    PetscInt  nF = 9;
    PetscBool deform;

    /* x = F X for every vertex: the patch test of the per-cell stresses */
    PetscCall(PetscOptionsGetRealArray(NULL, NULL, "-deform", F, &nF, &deform));
    if (deform) {
      PetscScalar *x;
      PetscInt     n;

      PetscCheck(nF == 9, comm, PETSC_ERR_ARG_WRONG, "-deform: give the 9 entries of F, row-major");
      PetscCall(VecGetLocalSize(q, &n));
      PetscCall(VecGetArray(q, &x));
      for (PetscInt i = 0; i + 2 < n; i += 3) {
        const PetscReal X[3] = {x[i], x[i + 1], x[i + 2]};

        for (PetscInt r = 0; r < 3; r++) x[i + r] = F[3 * r] * X[0] + F[3 * r + 1] * X[1] + F[3 * r + 2] * X[2];
      }
      PetscCall(VecRestoreArray(q, &x));
    }
  }
  {
    PetscReal c = 0;
    PetscBool bend;

    /* x += c (Y^2 + Z^2, X Y, X Z) at every node (X the node's position so far): a non-uniform
       state, a function of the node alone, so the same on any number of ranks */
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-deform_quadratic", &c, &bend));
    if (bend) {
      PetscScalar *x;
      PetscInt     n;

      PetscCall(VecGetLocalSize(q, &n));
      PetscCall(VecGetArray(q, &x));
      for (PetscInt i = 0; i + 2 < n; i += 3) {
        const PetscReal X[3] = {x[i], x[i + 1], x[i + 2]};

        x[i] += c * (X[1] * X[1] + X[2] * X[2]);
        x[i + 1] += c * X[0] * X[1];
        x[i + 2] += c * X[0] * X[2];
      }
      PetscCall(VecRestoreArray(q, &x));
    }
  }
  PetscCall(TSMechSetSolution(ts, q, v));

  if (checkerrors) {
    PetscCall(CheckRefused(sys, ts, "/nonexistent-tsmech-dir/run.h5", PETSC_TRUE, PETSC_TRUE));
    PetscCall(CheckRefused(sys, ts, "no-such-dir/sub/run.h5", PETSC_TRUE, PETSC_TRUE));
    /* an existing directory: the directory test passes, HDF5 itself refuses */
    PetscCall(CheckRefused(sys, ts, ".", PETSC_TRUE, PETSC_FALSE));
    {
      const char *const names[] = {"stress"}, *const clash[] = {"q"};
      const PetscInt six[] = {6}, two[] = {2};
      PetscErrorCode ierr;

      /* per-cell fields: a name of /fields and an unsupported component count are refused at
         once; fields of a system without a mesh are refused before the file is created */
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = MechSystemSetCellFields(sys, 1, clash, six, CellFieldsNone, NULL);
      PetscCheck(ierr, comm, PETSC_ERR_PLIB, "A cell field named q was accepted");
      ierr = MechSystemSetCellFields(sys, 1, names, two, CellFieldsNone, NULL);
      PetscCheck(ierr, comm, PETSC_ERR_PLIB, "A cell field of 2 components was accepted");
      ierr = MechSystemAddTextParameter(sys, "material", "");
      PetscCheck(ierr, comm, PETSC_ERR_PLIB, "An empty text parameter was accepted");
      ierr = MechSystemAddTextParameter(sys, "a,b", "steel");
      PetscCheck(ierr, comm, PETSC_ERR_PLIB, "A text parameter name with a comma was accepted");
      PetscCall(PetscPopErrorHandler());
      PetscCall(MechSystemSetCellFields(sys, 1, names, six, CellFieldsNone, NULL));
      PetscCall(CheckRefused(sys, ts, "io-cellfields-refused.h5", PETSC_FALSE, PETSC_TRUE));
      {
        MechOutput  out = NULL;
        const char *text;
        char       *specific = NULL;

        PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
        ierr = MechOutputCreate(sys, ts, "io-cellfields-refused.h5", 1, &out);
        PetscCall(PetscPopErrorHandler());
        PetscCall(PetscErrorMessage(ierr, &text, &specific));
        PetscCheck(ierr && specific && strstr(specific, "no mesh"), comm, PETSC_ERR_PLIB, "Cell fields without a mesh: not refused for that reason (%s)", specific ? specific : "no error");
      }
      PetscCall(MechSystemSetCellFields(sys, 0, NULL, NULL, NULL, NULL));
    }
    /* an invariant named like a /monitor dataset: refused before the file is created */
    PetscCall(MechSystemAddInvariant(sys, "energy", ClashInvariant, NULL));
    PetscCall(CheckRefused(sys, ts, "io-clash-refused.h5", PETSC_FALSE, PETSC_TRUE));
    PetscCall(PetscPrintf(comm, "error paths: OK\n"));
  } else {
    PetscCheck(file[0], comm, PETSC_ERR_ARG_WRONG, "Give the output file with -o");
    PetscCall(MechOutputCreate(sys, ts, file, every, &out));
    if (nomonitor) {
      /* twice: the second call for the same step is ignored */
      PetscCall(MechOutputRecord(out, ts));
      PetscCall(MechOutputRecord(out, ts));
    } else PetscCall(TSMonitorSet(ts, TSMonitorMechOutput, out, NULL));
    if (abortstep >= 0) PetscCall(TSMonitorSet(ts, AbortMonitor, &abortstep, NULL));
    PetscCall(TSSolve(ts, NULL));
    PetscCall(MechOutputClose(out, ts));
    PetscCall(MechOutputDestroy(&out));
  }
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(TSDestroy(&ts));
  PetscCall(MechSystemDestroy(&sys));
  PetscCall(PetscFinalize());
  return 0;
}
