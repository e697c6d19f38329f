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

/* Nonlinear elimination near the fixed dofs (elimination.c) */
typedef struct _n_TSMechElimination *TSMechElimination;
/* the stage as a function of the unknown x: v_s = cv0 v + cvx x, q_s = q + cq0 v + cqx x,
   a_s = ca (x - v) at time t; residual cr (M a_s + f(t, q_s, v_s)) + crt f_start */
typedef struct {
  PetscReal t, cv0, cvx, cq0, cqx, ca, cr, crt;
} TSMechEliminationStage;
PETSC_INTERN PetscErrorCode TSMechEliminationCreate(TS, MechSystem, Mat P, PetscInt depth, PetscInt maxit, PetscReal rtol, TSMechElimination *);
PETSC_INTERN PetscErrorCode TSMechEliminationSolve(TSMechElimination, const TSMechEliminationStage *, Vec q0, Vec v0, Vec fstart, Vec qs, Vec vs, PetscReal atol, Vec x);
PETSC_INTERN PetscErrorCode TSMechEliminationView(TSMechElimination, PetscViewer);
PETSC_INTERN PetscErrorCode TSMechEliminationGetIterations(TSMechElimination, PetscInt *);
PETSC_INTERN PetscErrorCode TSMechEliminationGetDepth(TSMechElimination, PetscInt *);
PETSC_INTERN PetscErrorCode TSMechEliminationEstimateStiffness(TS, MechSystem, Mat P, Vec q, Vec v, PetscReal *ratio);
PETSC_INTERN PetscErrorCode TSMechEliminationDepth(MechSystem, PetscReal ratio, PetscReal thetatau, PetscReal reach, PetscInt *depth);
PETSC_INTERN PetscErrorCode TSMechEliminationDestroy(TSMechElimination *);

PETSC_INTERN PetscErrorCode TSCreate_Theta2(TS);
PETSC_INTERN PetscErrorCode TSCreate_BEuler2(TS);
PETSC_INTERN PetscErrorCode TSCreate_CN2(TS);
PETSC_INTERN PetscErrorCode TSCreate_Midpoint2(TS);
PETSC_INTERN PetscErrorCode TSCreate_Euler2(TS);
PETSC_INTERN PetscErrorCode TSCreate_SymEuler2(TS);
PETSC_INTERN PetscErrorCode TSCreate_DiscGrad2(TS);

#endif
