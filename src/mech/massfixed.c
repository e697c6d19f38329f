/*
  The decoupled mass of a mass given as a shell (a model that stores its mass matrix-free or in a
  smaller format than AIJ, e.g. the solid's M_s x I3 with -solid_mass_matrix scalar): Mfix and Mcouple
  as shells over M instead of copies of an assembled M. Mfix w = M w0 on the free rows, w0 the
  direction with its fixed entries zeroed, and M_ii w_i on a fixed row i: the products of the
  assembled Mfix of MechSystemSetUp() (fixed rows and columns zeroed, each fixed dof's own mass kept
  on the diagonal). Mcouple w = M w - Mfix w, the inertial coupling of a prescribed motion. A mass
  given as a shell must be M_s x I (no coupling between a node's components, as every model's mass
  here): the point-block Jacobi of the multigrid operator (mgoperator.c) takes its diagonal blocks
  from its diagonal.
*/
#include "mechimpl.h"

typedef struct {
  Mat       M;      /* the mass (a reference) */
  IS        fixed;  /* the fixed dofs (a reference) */
  Vec       d;      /* diag(M) */
  Vec       w0, y0; /* work */
  PetscBool couple; /* Mcouple = M - Mfix instead of Mfix */
} MassFixed;

/* y = Mfix w */
static PetscErrorCode MassFixedMultFix(MassFixed *mf, Vec w, Vec y)
{
  const PetscInt    *idx;
  PetscInt           nfix, rstart;
  const PetscScalar *wa, *da;
  PetscScalar       *w0, *ya;

  PetscFunctionBegin;
  PetscCall(ISGetLocalSize(mf->fixed, &nfix));
  PetscCall(ISGetIndices(mf->fixed, &idx));
  PetscCall(VecGetOwnershipRange(w, &rstart, NULL));
  PetscCall(VecCopy(w, mf->w0));
  PetscCall(VecGetArray(mf->w0, &w0));
  for (PetscInt k = 0; k < nfix; k++) w0[idx[k] - rstart] = 0;
  PetscCall(VecRestoreArray(mf->w0, &w0));
  PetscCall(MatMult(mf->M, mf->w0, y));
  PetscCall(VecGetArrayRead(w, &wa));
  PetscCall(VecGetArrayRead(mf->d, &da));
  PetscCall(VecGetArray(y, &ya));
  for (PetscInt k = 0; k < nfix; k++) {
    const PetscInt i = idx[k] - rstart;

    ya[i] = da[i] * wa[i];
  }
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(VecRestoreArrayRead(mf->d, &da));
  PetscCall(VecRestoreArrayRead(w, &wa));
  PetscCall(ISRestoreIndices(mf->fixed, &idx));
  PetscFunctionReturn(0);
}

static PetscErrorCode MassFixedMult(Mat A, Vec w, Vec y)
{
  MassFixed *mf;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &mf));
  if (!mf->couple) PetscCall(MassFixedMultFix(mf, w, y));
  else {
    PetscCall(MassFixedMultFix(mf, w, mf->y0));
    PetscCall(MatMult(mf->M, w, y));
    PetscCall(VecAXPY(y, -1.0, mf->y0));
  }
  PetscFunctionReturn(0);
}

/* z = y + A w (z may be y) */
static PetscErrorCode MassFixedMultAdd(Mat A, Vec w, Vec y, Vec z)
{
  MassFixed *mf;
  Vec        t;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &mf));
  PetscCall(VecDuplicate(y, &t));
  PetscCall(MassFixedMult(A, w, t));
  if (z == y) PetscCall(VecAXPY(z, 1.0, t));
  else PetscCall(VecWAXPY(z, 1.0, t, y));
  PetscCall(VecDestroy(&t));
  PetscFunctionReturn(0);
}

/* Mfix's diagonal is M's; Mcouple's is zero */
static PetscErrorCode MassFixedGetDiagonal(Mat A, Vec d)
{
  MassFixed *mf;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &mf));
  if (mf->couple) PetscCall(VecZeroEntries(d));
  else PetscCall(VecCopy(mf->d, d));
  PetscFunctionReturn(0);
}

static PetscErrorCode MassFixedDestroy(Mat A)
{
  MassFixed *mf;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &mf));
  PetscCall(MatDestroy(&mf->M));
  PetscCall(ISDestroy(&mf->fixed));
  PetscCall(VecDestroy(&mf->d));
  PetscCall(VecDestroy(&mf->w0));
  PetscCall(VecDestroy(&mf->y0));
  PetscCall(PetscFree(mf));
  PetscFunctionReturn(0);
}

/*
  The decoupled mass Mfix (couple false) or the coupling M - Mfix (couple true) of a system whose
  mass is not AIJ, as a shell with MatMult, MatMultAdd and MatGetDiagonal (all that the matrix-free
  operators, the residuals and the Jacobi-preconditioned mass solve ask of it). The checks of
  MechSystemSetUp() on the fixed dofs' masses hold for it too.
*/
PetscErrorCode MechMassCreateFixedShell_Private(MechSystem sys, PetscBool couple, Mat *A)
{
  MassFixed *mf;
  PetscInt   m, n, M, N;
  IS         none = NULL;

  PetscFunctionBegin;
  PetscCall(PetscNew(&mf));
  PetscCall(PetscObjectReference((PetscObject)sys->M));
  mf->M      = sys->M;
  mf->couple = couple;
  if (sys->fixed) {
    PetscCall(PetscObjectReference((PetscObject)sys->fixed));
    mf->fixed = sys->fixed;
  } else {
    PetscCall(ISCreateGeneral(PetscObjectComm((PetscObject)sys), 0, NULL, PETSC_COPY_VALUES, &none));
    mf->fixed = none;
  }
  PetscCall(MatCreateVecs(sys->M, &mf->d, &mf->w0));
  PetscCall(VecDuplicate(mf->w0, &mf->y0));
  PetscCall(MatGetDiagonal(sys->M, mf->d));
  PetscCall(MatGetLocalSize(sys->M, &m, &n));
  PetscCall(MatGetSize(sys->M, &M, &N));
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)sys), m, n, M, N, mf, A));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT, (void (*)(void))MassFixedMult));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_ADD, (void (*)(void))MassFixedMultAdd));
  PetscCall(MatShellSetOperation(*A, MATOP_GET_DIAGONAL, (void (*)(void))MassFixedGetDiagonal));
  PetscCall(MatShellSetOperation(*A, MATOP_DESTROY, (void (*)(void))MassFixedDestroy));
  PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscFunctionReturn(0);
}
