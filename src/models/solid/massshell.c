/*
  The solid's mass stored once for the three components (-solid_mass_matrix scalar): M = M_s x I3
  (docs/solid.md §16), so the scalar M_s on the graph of the nodes holds everything, and PETSc's
  MATMAIJ applies it to the interleaved components: a third of the entries of the AIJ mass with
  the couplings of one component (SolidCreatePattern(), mass), and a third of the memory streamed
  per product. The mass is a shell with MatMult, MatMultAdd and MatGetDiagonal; the system makes
  its decoupled Mfix a shell over it (src/mech/massfixed.c), so no copy of the quadratic mass is
  made either. An assembled operator (cM M added into J) needs the assembled mass: this storage is
  for the matrix-free Newton operator, the p-multigrid's (pmg.c) above all.
*/
#include "solidimpl.h"

typedef struct {
  Mat Ms;   /* the scalar mass on the nodes */
  Mat maij; /* Ms x I3 */
  Vec ds;   /* work: Ms's diagonal */
} SolidMassScalar;

static PetscErrorCode SolidMassScalarMult(Mat M, Vec x, Vec y)
{
  SolidMassScalar *ms;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(M, &ms));
  PetscCall(MatMult(ms->maij, x, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode SolidMassScalarMultAdd(Mat M, Vec x, Vec y, Vec z)
{
  SolidMassScalar *ms;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(M, &ms));
  PetscCall(MatMultAdd(ms->maij, x, y, z));
  PetscFunctionReturn(0);
}

/* the diagonal of M_s repeated for the three components */
static PetscErrorCode SolidMassScalarGetDiagonal(Mat M, Vec d)
{
  SolidMassScalar   *ms;
  const PetscScalar *s;
  PetscScalar       *a;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(M, &ms));
  PetscCall(MatGetDiagonal(ms->Ms, ms->ds));
  PetscCall(VecGetLocalSize(ms->ds, &n));
  PetscCall(VecGetArrayRead(ms->ds, &s));
  PetscCall(VecGetArray(d, &a));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < 3; j++) a[3 * i + j] = s[i];
  PetscCall(VecRestoreArray(d, &a));
  PetscCall(VecRestoreArrayRead(ms->ds, &s));
  PetscFunctionReturn(0);
}

static PetscErrorCode SolidMassScalarDestroy(Mat M)
{
  SolidMassScalar *ms;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(M, &ms));
  PetscCall(MatDestroy(&ms->Ms));
  PetscCall(MatDestroy(&ms->maij));
  PetscCall(VecDestroy(&ms->ds));
  PetscCall(PetscFree(ms));
  PetscFunctionReturn(0);
}

/* The consistent mass (damping: the regions' alpha rho-weighted one) as the shell of M_s x I3 */
PetscErrorCode SolidCreateMassScalar(Solid *s, PetscBool damping, Mat *M)
{
  MPI_Comm         comm = PetscObjectComm((PetscObject)s->dm);
  SolidMassScalar *ms;
  Mat              G;
  PetscInt         m, N;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(s->work, &m));
  PetscCall(VecGetSize(s->work, &N));
  PetscCall(SolidNodeGraph(s, m / 3, N / 3, &G));
  PetscCall(PetscNew(&ms));
  PetscCall(MatDuplicate(G, MAT_DO_NOT_COPY_VALUES, &ms->Ms));
  PetscCall(MatSetOption(ms->Ms, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscCall(SolidAssembleMass(s, PETSC_FALSE, damping, ms->Ms));
  PetscCall(MatCreateMAIJ(ms->Ms, 3, &ms->maij));
  PetscCall(MatCreateVecs(ms->Ms, &ms->ds, NULL));
  PetscCall(MatCreateShell(comm, m, m, N, N, ms, M));
  PetscCall(MatShellSetOperation(*M, MATOP_MULT, (void (*)(void))SolidMassScalarMult));
  PetscCall(MatShellSetOperation(*M, MATOP_MULT_ADD, (void (*)(void))SolidMassScalarMultAdd));
  PetscCall(MatShellSetOperation(*M, MATOP_GET_DIAGONAL, (void (*)(void))SolidMassScalarGetDiagonal));
  PetscCall(MatShellSetOperation(*M, MATOP_DESTROY, (void (*)(void))SolidMassScalarDestroy));
  PetscCall(MatSetOption(*M, MAT_SYMMETRIC, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* The scalar mass M_s of a mass made by SolidCreateMassScalar(); NULL for an assembled mass */
PetscErrorCode SolidMassGetScalar(Mat M, Mat *Ms)
{
  PetscBool        shell;
  SolidMassScalar *ms;

  PetscFunctionBegin;
  *Ms = NULL;
  PetscCall(PetscObjectTypeCompare((PetscObject)M, MATSHELL, &shell));
  if (!shell) PetscFunctionReturn(0);
  PetscCall(MatShellGetContext(M, &ms));
  *Ms = ms->Ms;
  PetscFunctionReturn(0);
}
