/* Private declarations shared by the tsmech TS types. */
#ifndef TSMECH_TSIMPL2_H
#define TSMECH_TSIMPL2_H

#include <tsmech.h>
#include <petsc/private/tsimpl.h>

/* What every tsmech type keeps across a step: the start-of-step state for rollback, the
   previous step for extrapolation and the error estimate, and the attached system. */
typedef struct {
  MechSystem   sys;          /* attached with TSMechSetSystem(), or NULL (plain I2Function) */
  Vec          q0, v0;       /* state at the start of the step */
  Vec          qprev, vprev; /* state at the start of the previous step */
  PetscBool    hasprev;
  PetscBool    started;
  PetscReal    t0, dtprev;
  Vec          lteq, ltev; /* error-estimate work, only with an adaptive controller */
  TSStepStatus status;
  PetscInt     rejections;
} TSMechStepState;

PETSC_INTERN PetscErrorCode TSMechVecNormInfinity(Vec, PetscReal *);
PETSC_INTERN PetscErrorCode TSMechStepStateSetUp(TS, TSMechStepState *, PetscBool needmass);
PETSC_INTERN PetscErrorCode TSMechStepStateReset(TSMechStepState *);
PETSC_INTERN PetscErrorCode TSMechSetUpSNES(TS, Vec);
PETSC_INTERN PetscErrorCode TSMechStepBegin(TS, TSMechStepState *);
PETSC_INTERN PetscErrorCode TSMechStepFinish(TS, TSMechStepState *, PetscBool stageok, Vec q1, Vec v1);
PETSC_INTERN PetscErrorCode TSMechStageFailed(TS);
PETSC_INTERN PetscErrorCode TSMechEvaluateWLTE(TS, TSMechStepState *, NormType, PetscInt *order, PetscReal *);
PETSC_INTERN PetscErrorCode TSMechRollBack(TS, TSMechStepState *);
PETSC_INTERN PetscErrorCode TSMechGetPrevious(TS, TSMechStepState *, Vec, PetscBool *);
PETSC_INTERN PetscErrorCode TSMechSetPrevious(TS, TSMechStepState *, Vec);

/* Automatic incrementation (adaptincrement.c): the controller, its set-up with the TS's step known
   (TSMechStepStateSetUp()) and the landing on must points before a quasi-static step */
PETSC_INTERN PetscErrorCode TSAdaptCreate_Increment(TSAdapt);
PETSC_INTERN PetscErrorCode TSMechAdaptSetUp(TS);
PETSC_INTERN PetscErrorCode TSMechAdaptLand(TS);
/* The line search on the step's incremental potential (linesearch2.c); a type gives its potential of
   the Newton unknown x by composing "TSMechMerit_C", PetscErrorCode (*)(TS, Vec x, PetscBool *has, PetscReal *phi) */
PETSC_INTERN PetscErrorCode SNESLineSearchCreate_Potential(SNESLineSearch);
PETSC_INTERN PetscErrorCode TSMechSetDefaultLineSearch(TS, PetscBool merit);

/* Nonlinear elimination near the fixed dofs (elimination.c) */
typedef struct _n_TSMechElimination *TSMechElimination;
/* the stage as a function of the unknown x: v_s = cv0 v + cvx x, q_s = q + cq0 v + cqx x,
   a_s = ca (x - v) at time t; residual cr (M a_s + f(t, q_s, v_s)) + crt f_start */
typedef struct {
  PetscReal t, cv0, cvx, cq0, cqx, ca, cr, crt;
} TSMechEliminationStage;
PETSC_INTERN PetscErrorCode TSMechEliminationCreate(TS, const char prefix[], MechSystem, Mat P, PetscInt depth, PetscInt maxit, PetscReal rtol, TSMechElimination *);
PETSC_INTERN PetscErrorCode TSMechEliminationSolve(TSMechElimination, const TSMechEliminationStage *, Vec q0, Vec v0, Vec fstart, Vec qs, Vec vs, PetscReal atol, Vec x);
PETSC_INTERN PetscErrorCode TSMechEliminationView(TSMechElimination, PetscViewer);
PETSC_INTERN PetscErrorCode TSMechEliminationGetIterations(TSMechElimination, PetscInt *);
PETSC_INTERN PetscErrorCode TSMechEliminationGetDepth(TSMechElimination, PetscInt *);
PETSC_INTERN PetscErrorCode TSMechEliminationEstimateStiffness(TS, MechSystem, Mat P, Vec q, Vec v, PetscReal *ratio);
PETSC_INTERN PetscErrorCode TSMechEliminationDepth(MechSystem, PetscReal ratio, PetscReal thetatau, PetscReal reach, PetscInt *depth);
PETSC_INTERN PetscErrorCode TSMechEliminationDestroy(TSMechElimination *);

/*
  The shared Newton object (newton2.c): the Newton and preconditioner policy of every implicit
  tsmech type. A type describes each stage's linear operator by coefficients,

    J = cM M + cD D + cK K   at (t, q, v)        (theta2: cM = 1, cD = theta tau, cK = (theta tau)^2)

  and the object assembles it (or applies it matrix-free), chooses and lags the preconditioning
  matrix, guards Eisenstat-Walker against oversolving, scales Newton's tolerance, tests for the
  round-off floor and runs nonlinear elimination. It never sees a type's context: the type owns
  the scheme (residual, stage vectors, history), the object the linear algebra around it. The API
  and the life cycle are documented at the top of newton2.c.
*/
typedef struct _n_TSMechNewton *TSMechNewton;

/* What a type does with the stage operator: nothing (explicit), one linear solve per step
   (linearized), Newton's iterations, or Newton on a system of several stages (gauss2: s N) whose
   matrices are the type's and whose preconditioner's blocks the object builds
   (TSMechNewtonCreateBlockMatrix(), TSMechNewtonBlocksBegin(), TSMechNewtonComputeBlock()) */
typedef enum {
  TSMECH_NEWTON_NONE,
  TSMECH_NEWTON_LINEAR,
  TSMECH_NEWTON_FULL,
  TSMECH_NEWTON_BLOCKS
} TSMechNewtonMode;

/* A stage's linear operator J = cM M + cD D + cK K, linearized at (t, q, v); a is the acceleration
   argument a plain I2Jacobian (no MechSystem) is evaluated with. A stage without inertia (cM = 0,
   static2) keeps its fixed rows regular with their own mass: J += cMf diag(M) on the fixed rows
   only (0 for every other stage) */
typedef struct {
  PetscReal t;
  Vec       q, v, a;
  PetscReal cK, cD, cM;
  PetscReal cMf;
} TSMechNewtonStage;

/* The type's stage at the Newton iterate x (for the SNES Jacobian callback) */
typedef PetscErrorCode (*TSMechNewtonStageFn)(void *ctx, Vec x, TSMechNewtonStage *);
/* A type's own Jacobian of its residual at the Newton iterate x, assembled into the matrix given
   (discgrad2: not the stage operator; the stage then gives the preconditioning matrix) */
typedef PetscErrorCode (*TSMechNewtonJacobianFn)(void *ctx, Vec x, Mat);

/* What a type's Newton object offers beyond the options every type honours (matrix_free,
   pc_definite, pc_reduced, pc_rebuild_growth, ew_safeguard): its -help lists, and it accepts, only
   these (TSMechNewtonSetType()); the wording follows the type */
typedef enum {
  TSMECH_NEWTON_FEATURE_ELIMINATION = 0x1, /* -<prefix>ne*: nonlinear elimination (theta2) */
  TSMECH_NEWTON_FEATURE_LAG_COARSE  = 0x2, /* -<prefix>pc_lag_coarse: lagged multigrid coarse levels (theta2, discgrad2) */
  TSMECH_NEWTON_FEATURE_THETA       = 0x4, /* the stage's step is theta tau (theta2) */
  TSMECH_NEWTON_FEATURE_BLOCKS      = 0x8  /* the options act on the blocks of a stage system's preconditioner (gauss2) */
} TSMechNewtonFeature;

PETSC_INTERN PetscErrorCode TSMechNewtonCreate(TS, const char prefix[], TSMechNewton *);
PETSC_INTERN PetscErrorCode TSMechNewtonSetType(TSMechNewton, const char type[], PetscInt features);
PETSC_INTERN PetscErrorCode TSMechNewtonSetStageFunction(TSMechNewton, TSMechNewtonStageFn, void *ctx);
PETSC_INTERN PetscErrorCode TSMechNewtonSetJacobianFunction(TSMechNewton, TSMechNewtonJacobianFn, void *ctx);
PETSC_INTERN PetscErrorCode TSMechNewtonSetRoundoffFloor(TSMechNewton, PetscReal factor, PetscBool stuck);
PETSC_INTERN PetscErrorCode TSMechNewtonSNESGuard(TSMechNewton, SNES);
PETSC_INTERN PetscErrorCode TSMechNewtonSetDifferenced(TSMechNewton, PetscBool);
PETSC_INTERN PetscErrorCode TSMechNewtonCreateBlockMatrix(TSMechNewton, Mat *);
PETSC_INTERN PetscErrorCode TSMechNewtonBlocksBegin(TSMechNewton, PetscReal tau, PetscBool *rebuild);
PETSC_INTERN PetscErrorCode TSMechNewtonComputeBlock(TSMechNewton, const TSMechNewtonStage *, Mat);
PETSC_INTERN PetscErrorCode TSMechNewtonSetFromOptions(TSMechNewton, PetscOptionItems *);
/* The options of TSMechNewtonSetFromOptions() that take a value, under the prefix p (a literal, that
   of TSMechNewtonCreate()): for the list of the type's valued options in its family's table */
#define TSMECH_NEWTON_VALUED_OPTIONS(p) "-" p "pc_rebuild_growth", "-" p "ew_safeguard", "-" p "ne_depth", "-" p "ne_reach", "-" p "ne_max_it", "-" p "ne_rtol"
/* the valued options of automatic incrementation (TSADAPTINCREMENT), the default controller of the types that list them */
#define TSMECH_INCREMENT_VALUED_OPTIONS "-ts_adapt_increment_growth", "-ts_adapt_increment_easy_its", "-ts_adapt_increment_easy_steps", "-ts_adapt_increment_times"
PETSC_INTERN PetscErrorCode TSMechNewtonSetUp(TSMechNewton, MechSystem, TSMechNewtonMode, const char why[]);
PETSC_INTERN PetscErrorCode TSMechNewtonComputeOperators(TSMechNewton, const TSMechNewtonStage *, Mat J, Mat P);
PETSC_INTERN PetscErrorCode TSMechNewtonSNESJacobian(SNES, Vec, Mat, Mat, void *);
PETSC_INTERN PetscErrorCode TSMechNewtonPreSolve(TSMechNewton, Vec q0, Vec v0, Vec xref, Vec x);
PETSC_INTERN PetscErrorCode TSMechNewtonEliminate(TSMechNewton, PetscReal s, const TSMechEliminationStage *, Vec q0, Vec v0, Vec fstart, Vec qs, Vec vs, Vec x);
PETSC_INTERN PetscErrorCode TSMechNewtonPostSolve(TSMechNewton, PetscInt nits, PetscInt lits, PetscBool ok);
PETSC_INTERN PetscErrorCode TSMechNewtonInvalidate(TSMechNewton);
PETSC_INTERN PetscErrorCode TSMechNewtonRestartNote(TSMechNewton, char note[], size_t len);
PETSC_INTERN PetscErrorCode TSMechNewtonView(TSMechNewton, TSMechNewtonMode, PetscViewer);
PETSC_INTERN PetscErrorCode TSMechNewtonReset(TSMechNewton);
PETSC_INTERN PetscErrorCode TSMechNewtonDestroy(TSMechNewton *);
/* the settings behind the options (the TSTheta2Set/Get*() functions forward to these) */
PETSC_INTERN PetscErrorCode TSMechNewtonSetMatrixFree(TSMechNewton, PetscBool, PetscReal growth);
PETSC_INTERN PetscErrorCode TSMechNewtonGetMatrixFree(TSMechNewton, PetscBool *, PetscReal *growth, PetscInt *rebuilds);
PETSC_INTERN PetscErrorCode TSMechNewtonSetPCDefinite(TSMechNewton, PetscBool);
PETSC_INTERN PetscErrorCode TSMechNewtonGetPCDefinite(TSMechNewton, PetscBool *);
PETSC_INTERN PetscErrorCode TSMechNewtonSetPCReduced(TSMechNewton, PetscBool);
PETSC_INTERN PetscErrorCode TSMechNewtonGetPCReduced(TSMechNewton, PetscBool *set, PetscBool *inuse);
PETSC_INTERN PetscErrorCode TSMechNewtonSetPCLagCoarse(TSMechNewton, PetscBool);
PETSC_INTERN PetscErrorCode TSMechNewtonGetPCLagCoarse(TSMechNewton, PetscBool *, PetscInt *coarse);
PETSC_INTERN PetscErrorCode TSMechNewtonSetEWSafeguard(TSMechNewton, PetscReal);
PETSC_INTERN PetscErrorCode TSMechNewtonGetEWSafeguard(TSMechNewton, PetscReal *);
PETSC_INTERN PetscErrorCode TSMechNewtonSetNonlinearElimination(TSMechNewton, PetscBool, PetscInt depth, PetscReal reach);
PETSC_INTERN PetscErrorCode TSMechNewtonGetNonlinearElimination(TSMechNewton, PetscBool *, PetscInt *depth, PetscInt *its);

/*
  Adding a TS type (docs/solvers.md §7): one file, src/ts/<type>.c, holds

  - the type: TSCreate_X() with its ops (step, setup, setfromoptions, view, reset, destroy,
    rollback, evaluatewlte), TSMechStepState for the start of the step (stepstate.c), and for an
    implicit scheme the Newton object (TSMechNewton above, newton2.c: the header there is the
    recipe; theta2.c gives it stages, discgrad2.c also its own exact Jacobian, gauss2.c
    takes its convergence test and its preconditioner's blocks, TSMECH_NEWTON_BLOCKS);
  - its family's table, a TSMechFamilyOps (scheme.h): the family number files record (a free one,
    or TSMECH_FAMILY_OTHER without recorded parameters), the parameters a checkpoint and the output
    record (declare/get/set/check), the properties (explicit, order, second-order form, how a
    restart continues it, whether it puts prescribed motions and multigrid coarse operators itself)
    and, if it keeps history, its savehistory/loadhistory (the velocity at the start of the last
    step; checkpoints hold it without a change of format);
  - TSMechRegister<X>(): TSMechSchemeRegister(&table), then TSRegister() of each of its types;
    the table also gives each type's one-line description and the type's options that take a
    value (TSMECH_NEWTON_VALUED_OPTIONS() for the Newton object's): the driver's -help, its check
    of options given without a value and the Python package read them there.

  and the registration is one line here (the declaration below), one call in
  TSMechInitializePackage() (register.c), the file in src/meson.build and its type name in
  include/tsmech.h. Nothing in src/io, scheme.c, tsmech.c, the driver or python/ names a type.
*/
PETSC_INTERN PetscErrorCode TSMechRegisterTheta2(void);    /* theta2, beuler2, cn2, midpoint2, euler2 */
PETSC_INTERN PetscErrorCode TSMechRegisterSymEuler2(void); /* symeuler2 */
PETSC_INTERN PetscErrorCode TSMechRegisterGauss2(void);    /* gauss2 */
PETSC_INTERN PetscErrorCode TSMechRegisterDiscGrad2(void); /* discgrad2 */
PETSC_INTERN PetscErrorCode TSMechRegisterStatic2(void);   /* static2 */

/* firstorder.c: the automatic first-order form X = [q; v] of a system on a PETSc type (installed
   on the TS, (q, v) packed into X), and the copies between X and its halves */
PETSC_INTERN PetscErrorCode TSMechSetUpFirstOrder(TS, MechSystem, Vec q, Vec v);
PETSC_INTERN PetscErrorCode TSMechFirstOrderUnpack(TS, Vec X, Vec q, Vec v);
PETSC_INTERN PetscErrorCode TSMechFirstOrderPack(TS, Vec q, Vec v, Vec X);
/* tsmech.c: the prescribed motion met at the end of a step of a PETSc type (its post-step) */
PETSC_INTERN PetscErrorCode TSMechApplyFixedMotion(TS);

#endif
