/* Helpers shared by the integrator tests (tests/integrators). */
#ifndef TSMECH_TESTS_INTEG_H
#define TSMECH_TESTS_INTEG_H
#include "testutil.h"

/* Create the model `name` with the model options `opts` (e.g. "-chain_n 30 -chain_c 0.1"), which
   are inserted for the creation only and cleared afterwards. */
PetscErrorCode IntegCreateModel(MPI_Comm, const char name[], const char opts[], MechSystem *);
/* Gives the chain of n particles sys an out-of-plane initial velocity, for a genuinely 3-D motion:
   particle i gets v_y = 2 sin(pi i / (n - 1)) and v_z = 0.5 cos(mode pi i / (n - 1)). */
PetscErrorCode IntegKickChain(MechSystem, PetscInt n, PetscInt mode);
/* Dense copy (row-major, n x n, on every rank) of a matrix of global size n x n. */
PetscErrorCode IntegMatToDense(Mat, PetscInt *n, PetscReal **a);
/* Dense copy of a vector of global size n on every rank. */
PetscErrorCode IntegVecToArray(Vec, PetscReal *a);
/* Solve A x = b by Gaussian elimination with partial pivoting (A row-major n x n, overwritten;
   b overwritten by x). Plain C doubles: an oracle independent of PETSc's solvers. */
PetscErrorCode IntegDenseSolve(PetscInt n, PetscReal *A, PetscReal *b);
/* max_i |a_i - b_i| / max_i |b_i| */
PetscReal IntegRelDiffArray(PetscInt n, const PetscReal *a, const PetscReal *b);
/* TestIntegrate() with a monitor and a fixed number of steps: runs sys under `type` with the
   options `opts` (inserted under a fresh prefix, cleared afterwards), calling monitor (if not
   NULL) at every step. q, v (created here) hold the final state; its the Newton iterations. */
PetscErrorCode IntegRun(MechSystem, const char type[], const char opts[], PetscReal dt, PetscInt nsteps, PetscErrorCode (*monitor)(TS, PetscInt, PetscReal, Vec, void *), void *ctx, Vec *q, Vec *v, PetscInt *its);
/* The number after key in the text file name (read on the first rank, given to every rank): 0 if
   none follows key, -1 if key is not there (a -ts_view's counts) */
PetscErrorCode IntegNumberAfter(MPI_Comm, const char name[], const char key[], PetscInt *num);
#endif
