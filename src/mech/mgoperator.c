/*
  The multigrid operator of a model with coarse levels of its own (the solid's p-multigrid,
  docs/solvers.md §4, "A model's own levels"): a matrix-free preconditioning operator

    A = cK K + cD D + cM M   at the state of its last "assembly" (MechSystemComputeOperator()),

  whose products are the model's tangent action (as the operator shell's, shelloperator.c), whose
  diagonal is the model's, computed element by element (MechSystemSetTangentDiagonal()), and whose
  assembly updates the coarse operators of the PCMG that uses it (MechSystemSetMultigrid()).
  No matrix of the finest level is ever assembled.

  Its products are those of an operator shell of its own (shelloperator.c), which the Newton
  object of the matrix-free mode (-ts_theta_matrix_free) makes its Newton operator: as the lagged
  preconditioning matrix, the multigrid operator's object state changes only when it is assembled,
  so the PCMG keeps its smoothers (the Jacobi diagonal, the Chebyshev bounds) and coarse solvers
  between rebuilds, while its products are the Newton iteration's current tangent: the finest level
  smooths with the exact Jacobian. When the system holds another shell's linearization (gauss2's
  blocks, one multigrid operator per pair of stages), a product first linearizes its own shell again
  at the operator's state.
*/
#include "mechimpl.h"
#include <petsc/private/pcmgimpl.h>
#include <petsc/private/kernels/blockinvert.h>

typedef struct {
  MechSystem   sys;
  Mat          shell; /* the operator shell whose products these are (MechSystemCreateOperatorShell()) */
  PetscBool    computed;
  PetscReal    t, cK, cD, cM; /* the state and coefficients of the last assembly */
  Vec          q, v;          /* copies of that state */
  PetscInt     bs, nb;        /* the diagonal blocks' size (MechSystemSetTangentDiagonal()) and local number */
  Vec         *rows;          /* the blocks' rows, from the model (when asked for) */
  PetscScalar *blocks;        /* the diagonal blocks at the last assembly (row-major), when asked for */
  PetscScalar *inverse;       /* their inverses (MatInvertBlockDiagonal()) */
  PetscBool    inverted;      /* blocks and inverse are those of the last assembly */
  Vec          mdiag;         /* the diagonal of the decoupled mass */
  Vec          diag;          /* the diagonal at the last assembly */
  void        *levels;        /* the model's coarse levels (MechSystemSetUpPCMG()) */
  PetscBool    keepcoarse;    /* the next assembly keeps them (MechOperatorMultigridKeepCoarse_Private()) */
} MechOperatorMG;

/*@C
  MechSystemSetTangentDiagonal - Sets the model's diagonal blocks of cK K + cD D, computed without
  assembly, for the smoothers of matrix-free operators (Jacobi, point-block Jacobi).

  Logically Collective

  Input Parameters:
+ sys - the mechanical system
. bs  - the size of the blocks (the dofs of a node; the local size a multiple of it)
. fn  - the diagonal blocks (NULL removes them)
- ctx - its context (may be NULL)

  Calling sequence of fn:
$ PetscErrorCode fn(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscInt bs, Vec d[], void *ctx)
+ t, q, v - the state (the fixed dofs at their prescribed motion)
. cK, cD  - the coefficients of K and D
. bs      - 1: the diagonal only, into d[0] (what Jacobi needs, and all the multigrid operator
            computes at its assembly); or the blocks' size given here (point-block Jacobi asks)
. d       - bs vectors of the state's layout, zeroed: d[i] gets row i of every diagonal block,
            entry bs n + k the entry (i, k) of block n (bs n .. bs n + bs - 1 the rows and
            columns of block n)
- ctx     - the context given here

  Level: advanced

  Notes:
  The blocks must be those of the tangent that `MechSystemSetTangent()` assembles. The system
  takes care of the fixed dofs and of the mass term (`MechSystemCreateOperatorMultigrid()`).

.seealso: `MechSystemCreateOperatorMultigrid()`, `MechSystemSetMultigrid()`, `MechSystemSetTangentAction()`
@*/
PetscErrorCode MechSystemSetTangentDiagonal(MechSystem sys, PetscInt bs, MechTangentDiagonalFn fn, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCheck(bs >= 1 && bs <= 64, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_OUTOFRANGE, "Diagonal block size %" PetscInt_FMT " must be in [1, 64]", bs);
  sys->diagonalbs  = bs;
  sys->diagonal    = fn;
  sys->diagonalctx = ctx;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemSetMultigrid - Sets a model's own multigrid levels below its matrix-free operator.

  Logically Collective

  Input Parameters:
+ sys     - the mechanical system, with a tangent action and a diagonal
            (`MechSystemSetTangentAction()`, `MechSystemSetTangentDiagonal()`)
. setup   - gives a `PCMG` its levels below the finest
. update  - computes the coarse operators at a state
. destroy - frees the levels' data
- ctx     - the context of setup and update (may be NULL)

  Calling sequence of setup:
$ PetscErrorCode setup(MechSystem sys, PC pc, void **levels, void *ctx)
+ pc     - a `PCMG` whose finest level is the system's multigrid operator (`MechSystemCreateOperatorMultigrid()`)
- levels - the model's data of these levels, given back to update and destroy

  Calling sequence of update:
$ PetscErrorCode update(MechSystem sys, void *levels, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, Vec d, void *ctx)
+ levels     - the data of setup
. t, q, v    - the state (the fixed dofs at their prescribed motion)
. cK, cD, cM - the coefficients of the operator cK K + cD D + cM M
- d          - NULL, or a vector (zeroed) for the diagonal of cK K + cD D at the state, which a
               model computes in the same pass over its elements (the diagonal callback is then
               not called)

  Level: advanced

  Notes:
  setup calls `PCMGSetLevels()` and `PCMGSetInterpolation()` and gives the coarse levels'
  smoothers their operators; the system has set the PCMG's Galerkin type to none (the finest
  level has no entries) and the finest smoother to Chebyshev with Jacobi (the only smoother a
  matrix-free operator takes), which options may change. The finest level's interpolation must
  have no rows for the fixed dofs. update then computes the coarse operators in place at each
  assembly of the multigrid operator. The solid (`MechCreateSolid()`) gives its quadratic
  elements a level of linear ones on the same mesh (p-multigrid).

.seealso: `MechSystemCreateOperatorMultigrid()`, `MechSystemSetUpPCMG()`, `MechSystemSetTangentDiagonal()`
@*/
PetscErrorCode MechSystemSetMultigrid(MechSystem sys, MechMultigridSetUpFn setup, MechMultigridUpdateFn update, MechMultigridDestroyFn destroy, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCheck(!setup == !update, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_NULL, "A model's multigrid needs both its setup and its update callback");
  sys->mgsetup   = setup;
  sys->mgupdate  = update;
  sys->mgdestroy = destroy;
  sys->mgctx     = ctx;
  PetscFunctionReturn(0);
}

/*@
  MechSystemHasMultigrid - Tells whether the model has multigrid levels of its own.

  Not Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameter:
. has - PETSC_TRUE after `MechSystemSetMultigrid()`

  Level: advanced

.seealso: `MechSystemSetMultigrid()`, `MechSystemCreateOperatorMultigrid()`
@*/
PetscErrorCode MechSystemHasMultigrid(MechSystem sys, PetscBool *has)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *has = sys->mgsetup ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMult_MechOperatorMG(Mat A, Vec w, Vec y)
{
  MechOperatorMG *mg;
  PetscObjectId   id;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &mg));
  PetscCheck(mg->computed, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "The multigrid operator has no state: compute it with MechSystemComputeOperator() first");
  /* the system holds another shell's linearization (another block of gauss2's): this one's again */
  PetscCall(PetscObjectGetId((PetscObject)mg->shell, &id));
  if (mg->sys->linshell != id) PetscCall(MechSystemLinearizeOperatorShell(mg->sys, mg->t, mg->q, mg->v, mg->cK, mg->cD, mg->cM, mg->shell));
  PetscCall(MatMult(mg->shell, w, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatGetDiagonal_MechOperatorMG(Mat A, Vec d)
{
  MechOperatorMG *mg;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &mg));
  PetscCheck(mg->computed, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "The multigrid operator has no state: compute it with MechSystemComputeOperator() first");
  PetscCall(VecCopy(mg->diag, d));
  PetscFunctionReturn(0);
}

/* A = A^-1 in place (n x n, row-major, n <= 64) by Gauss-Jordan elimination with partial pivoting */
static PetscErrorCode MechInvertBlock(PetscInt n, PetscScalar A[], PetscBool *singular)
{
  PetscInt perm[64];

  PetscFunctionBegin;
  *singular = PETSC_FALSE;
  for (PetscInt k = 0; k < n; k++) {
    PetscInt  p = k;
    PetscReal piv;

    for (PetscInt i = k + 1; i < n; i++)
      if (PetscAbsScalar(A[i * n + k]) > PetscAbsScalar(A[p * n + k])) p = i;
    perm[k] = p;
    if (p != k)
      for (PetscInt j = 0; j < n; j++) {
        const PetscScalar t = A[k * n + j];

        A[k * n + j] = A[p * n + j];
        A[p * n + j] = t;
      }
    piv = PetscRealPart(A[k * n + k]);
    if (piv == 0) {
      *singular = PETSC_TRUE;
      PetscFunctionReturn(0);
    }
    A[k * n + k] = 1.0;
    for (PetscInt j = 0; j < n; j++) A[k * n + j] /= piv;
    for (PetscInt i = 0; i < n; i++) {
      const PetscScalar f = A[i * n + k];

      if (i == k || f == 0) continue;
      A[i * n + k] = 0;
      for (PetscInt j = 0; j < n; j++) A[i * n + j] -= f * A[k * n + j];
    }
  }
  /* the row exchanges become column exchanges of the inverse, in reverse order */
  for (PetscInt k = n - 1; k >= 0; k--)
    if (perm[k] != k)
      for (PetscInt i = 0; i < n; i++) {
        const PetscScalar t = A[i * n + k];

        A[i * n + k]       = A[i * n + perm[k]];
        A[i * n + perm[k]] = t;
      }
  PetscFunctionReturn(0);
}

/*
  The diagonal blocks at the state of the last assembly: the model's of cK K + cD D, the fixed dofs'
  rows and columns zeroed, plus cM times the decoupled mass's (its values in the owned diagonal
  blocks: a fixed row keeps cM m_ii, as in the assembled operator)
*/
static PetscErrorCode MechOperatorBlocks(MechSystem sys, MechOperatorMG *mg)
{
  const PetscInt bs = mg->bs, bs2 = bs * bs;
  PetscInt       rstart, rows[64];
  Vec            q, v;
  PetscBool      shell;

  PetscFunctionBegin;
  if (!mg->rows) {
    PetscCall(VecDuplicateVecs(mg->diag, bs, &mg->rows));
    PetscCall(PetscMalloc2(mg->nb * bs2, &mg->blocks, mg->nb * bs2, &mg->inverse));
  }
  for (PetscInt i = 0; i < bs; i++) PetscCall(VecZeroEntries(mg->rows[i]));
  PetscCall(MechSystemMotionState(sys, mg->t, mg->q, mg->v, &q, &v, NULL));
  if (mg->cK != 0 || mg->cD != 0) PetscCall(MechSystemAgree(sys, (*sys->diagonal)(sys, mg->t, q, v, mg->cK, mg->cD, bs, mg->rows, sys->diagonalctx), "tangent diagonal"));
  for (PetscInt i = 0; i < bs; i++) {
    const PetscScalar *r;

    PetscCall(VecGetArrayRead(mg->rows[i], &r));
    for (PetscInt n = 0; n < mg->nb; n++)
      for (PetscInt k = 0; k < bs; k++) mg->blocks[n * bs2 + i * bs + k] = r[n * bs + k];
    PetscCall(VecRestoreArrayRead(mg->rows[i], &r));
  }
  PetscCall(MatGetOwnershipRange(sys->Mfix, &rstart, NULL));
  if (sys->fixed) {
    const PetscInt *idx;
    PetscInt        nfix;

    PetscCall(ISGetLocalSize(sys->fixed, &nfix));
    PetscCall(ISGetIndices(sys->fixed, &idx));
    for (PetscInt f = 0; f < nfix; f++) {
      const PetscInt r = idx[f] - rstart, n = r / bs, i = r % bs;

      for (PetscInt k = 0; k < bs; k++) mg->blocks[n * bs2 + i * bs + k] = mg->blocks[n * bs2 + k * bs + i] = 0;
    }
    PetscCall(ISRestoreIndices(sys->fixed, &idx));
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)sys->Mfix, MATSHELL, &shell));
  if (shell) {
    /* a mass given as a shell is M_s x I (massfixed.c): its diagonal blocks are diagonal */
    const PetscScalar *d;

    PetscCall(MatGetDiagonal(sys->Mfix, mg->rows[0]));
    PetscCall(VecGetArrayRead(mg->rows[0], &d));
    for (PetscInt n = 0; n < mg->nb; n++)
      for (PetscInt i = 0; i < bs; i++) mg->blocks[n * bs2 + i * bs + i] += mg->cM * d[n * bs + i];
    PetscCall(VecRestoreArrayRead(mg->rows[0], &d));
    PetscFunctionReturn(0);
  }
  for (PetscInt n = 0; n < mg->nb; n++) {
    PetscScalar mb[64 * 64];

    for (PetscInt i = 0; i < bs; i++) rows[i] = rstart + bs * n + i;
    PetscCall(MatGetValues(sys->Mfix, bs, rows, bs, rows, mb));
    for (PetscInt e = 0; e < bs2; e++) mg->blocks[n * bs2 + e] += mg->cM * mb[e];
  }
  PetscFunctionReturn(0);
}

/* The inverses of the diagonal blocks, for point-block Jacobi (PCPBJACOBI) */
static PetscErrorCode MatInvertBlockDiagonal_MechOperatorMG(Mat A, const PetscScalar **values)
{
  MechOperatorMG *mg;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &mg));
  PetscCheck(mg->computed, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "The multigrid operator has no state: compute it with MechSystemComputeOperator() first");
  if (!mg->inverted) {
    const PetscInt bs = mg->bs;

    /* the blocks only when a smoother asks for them (point-block Jacobi): the diagonal costs less */
    PetscCall(MechOperatorBlocks(mg->sys, mg));
    PetscCall(PetscArraycpy(mg->inverse, mg->blocks, mg->nb * bs * bs));
    for (PetscInt n = 0; n < mg->nb; n++) {
      PetscScalar *blk  = mg->inverse + n * bs * bs;
      PetscBool    zero = PETSC_FALSE;

      if (bs == 3) PetscCall(PetscKernel_A_gets_inverse_A_3(blk, 0.0, PETSC_FALSE, &zero));
      else PetscCall(MechInvertBlock(bs, blk, &zero));
      PetscCheck(!zero, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Diagonal block %" PetscInt_FMT " of the multigrid operator is singular", n);
    }
    mg->inverted = PETSC_TRUE;
  }
  *values = mg->inverse;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDestroy_MechOperatorMG(void *ctx)
{
  MechOperatorMG *mg = (MechOperatorMG *)ctx;

  PetscFunctionBegin;
  if (mg->levels && mg->sys->mgdestroy) PetscCall((*mg->sys->mgdestroy)(&mg->levels));
  PetscCall(MatDestroy(&mg->shell));
  PetscCall(VecDestroy(&mg->q));
  PetscCall(VecDestroy(&mg->v));
  PetscCall(VecDestroy(&mg->diag));
  PetscCall(VecDestroy(&mg->mdiag));
  if (mg->rows) PetscCall(VecDestroyVecs(mg->bs, &mg->rows));
  PetscCall(PetscFree2(mg->blocks, mg->inverse));
  PetscCall(MechSystemDestroy(&mg->sys));
  PetscCall(PetscFree(mg));
  PetscFunctionReturn(0);
}

/*@
  MechSystemCreateOperatorMultigrid - Creates the matrix-free operator J = cK K + cD D + cM M of a
  model with multigrid levels of its own: its products are the model's tangent action, its
  diagonal the model's, and its assembly also computes the coarse levels.

  Collective

  Input Parameter:
. sys - the mechanical system, with a tangent action, a diagonal and multigrid levels
        (`MechSystemSetTangentAction()`, `MechSystemSetTangentDiagonal()`, `MechSystemSetMultigrid()`)

  Output Parameter:
. A - the new operator (a `MATSHELL` named "MechOperatorMG"); it keeps a reference to sys

  Level: advanced

  Notes:
  `MechSystemComputeOperator()` "assembles" it: the system is linearized at the state, the
  diagonal blocks computed (the fixed dofs' rows decoupled as in the assembled operator: cM m_ii;
  `MatGetDiagonal()` gives the diagonal, `MatInvertBlockDiagonal()` the blocks' inverses, so
  -mg_levels_pc_type jacobi or pbjacobi smooth with it), and
  the coarse operators of the `PCMG` that `MechSystemSetUpPCMG()` gave it levels are updated. Its
  object state changes only then: as a lagged preconditioning matrix its smoothers and coarse
  solvers are kept, while its products apply the system's current linearization (the operator's
  own, linearized again, when the system holds one of other coefficients). No matrix of its size
  is assembled. `TSMechSetSolution()` makes it the Jacobian matrix of a second-order implicit type
  whose KSP has -pc_type mg on such a model; with -ts_theta_matrix_free the Jacobian itself is the
  operator shell and this is the preconditioning matrix.

.seealso: `MechSystemSetMultigrid()`, `MechSystemSetUpPCMG()`, `MechSystemCreateOperatorShell()`, `MechSystemComputeOperator()`
@*/
PetscErrorCode MechSystemCreateOperatorMultigrid(MechSystem sys, Mat *A)
{
  MechOperatorMG *mg;
  PetscInt        m, n, M, N;
  MPI_Comm        comm = PetscObjectComm((PetscObject)sys);
  const char     *model;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(MechSystemSetUp(sys));
  model = sys->modelname ? sys->modelname : "(unnamed)";
  PetscCheck(sys->apply, comm, PETSC_ERR_ARG_WRONGSTATE, "Model %s has no tangent action (MechSystemSetTangentAction()): no matrix-free multigrid operator", model);
  PetscCheck(sys->diagonal, comm, PETSC_ERR_ARG_WRONGSTATE, "Model %s has no tangent diagonal (MechSystemSetTangentDiagonal()): no matrix-free multigrid operator", model);
  PetscCall(PetscNew(&mg));
  PetscCall(PetscObjectReference((PetscObject)sys));
  mg->sys = sys;
  PetscCall(MechSystemCreateOperatorShell(sys, &mg->shell));
  PetscCall(MatCreateVecs(sys->M, &mg->diag, NULL));
  PetscCall(VecDuplicate(mg->diag, &mg->q));
  PetscCall(VecDuplicate(mg->diag, &mg->v));
  mg->bs = sys->diagonalbs;
  PetscCall(VecDuplicate(mg->diag, &mg->mdiag));
  PetscCall(MatGetDiagonal(sys->Mfix, mg->mdiag));
  PetscCall(MatGetLocalSize(sys->M, &m, &n));
  PetscCheck(m % mg->bs == 0, comm, PETSC_ERR_ARG_SIZ, "Model %s: the local size %" PetscInt_FMT " is not a multiple of its diagonal blocks' size %" PetscInt_FMT, model, m, mg->bs);
  mg->nb = m / mg->bs;
  PetscCall(MatGetSize(sys->M, &M, &N));
  PetscCall(MatCreateShell(comm, m, n, M, N, mg, A));
  PetscCall(MatShellSetContextDestroy(*A, MatDestroy_MechOperatorMG));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT, (void (*)(void))MatMult_MechOperatorMG));
  PetscCall(MatShellSetOperation(*A, MATOP_GET_DIAGONAL, (void (*)(void))MatGetDiagonal_MechOperatorMG));
  PetscCall(MatShellSetOperation(*A, MATOP_INVERT_BLOCK_DIAGONAL, (void (*)(void))MatInvertBlockDiagonal_MechOperatorMG));
  PetscCall(MatSetBlockSizes(*A, mg->bs, mg->bs));
  PetscCall(PetscObjectSetName((PetscObject)*A, "MechOperatorMG"));
  if (!sys->nonsymwhy) PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* Whether A is a multigrid operator (of MechSystemCreateOperatorMultigrid()) */
PetscErrorCode MechOperatorIsMultigrid_Private(Mat A, PetscBool *is)
{
  PetscBool shell;

  PetscFunctionBegin;
  *is = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSHELL, &shell));
  if (shell) {
    void (*mult)(void) = NULL;

    PetscCall(MatShellGetOperation(A, MATOP_MULT, &mult));
    *is = mult == (void (*)(void))MatMult_MechOperatorMG ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscFunctionReturn(0);
}

/*
  The multigrid operator's assembly at (t, q, v) (MechSystemComputeOperator()): the system's
  linearization, the diagonal with the fixed dofs' rows decoupled (cM m_ii there, the diagonal of the
  decoupled mass elsewhere added), the model's coarse levels; then a new object state
*/
PetscErrorCode MechOperatorMultigridCompute_Private(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, Mat A)
{
  MechOperatorMG *mg;
  Vec             qm, vm;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &mg));
  PetscCheck(mg->sys == sys, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "The multigrid operator belongs to another system");
  if (!sys->hasdamping) cD = 0;
  PetscCall(MechSystemLinearizeOperatorShell(sys, t, q, v, cK, cD, cM, mg->shell));
  mg->t  = t;
  mg->cK = cK;
  mg->cD = cD;
  mg->cM = cM;
  PetscCall(VecCopy(q, mg->q));
  PetscCall(VecCopy(v, mg->v));
  PetscCall(PetscLogStagePush(MECH_StageAssembly));
  PetscCall(PetscLogEventBegin(MECH_Operator, sys, A, 0, 0));
  PetscCall(MechSystemMotionState(sys, t, q, v, &qm, &vm, NULL));
  /* the diagonal: in the pass that updates the coarse levels, or alone */
  PetscCall(VecZeroEntries(mg->diag));
  if (mg->levels && !mg->keepcoarse) PetscCall(MechSystemAgree(sys, (*sys->mgupdate)(sys, mg->levels, t, qm, vm, cK, cD, cM, mg->diag, sys->mgctx), "multigrid levels"));
  else {
    if (mg->levels) PetscCall(PetscInfo(A, "Finest level only: the model's coarse levels are kept\n"));
    if (cK != 0 || cD != 0) PetscCall(MechSystemAgree(sys, (*sys->diagonal)(sys, t, qm, vm, cK, cD, 1, &mg->diag, sys->diagonalctx), "tangent diagonal"));
  }
  mg->keepcoarse = PETSC_FALSE;
  /* the fixed rows decoupled: cM m_ii, the diagonal of the decoupled mass elsewhere added */
  if (sys->fixed) PetscCall(VecISSet(mg->diag, sys->fixed, 0.0));
  PetscCall(VecAXPY(mg->diag, cM, mg->mdiag));
  mg->inverted = PETSC_FALSE;
  PetscCall(PetscLogEventEnd(MECH_Operator, sys, A, 0, 0));
  PetscCall(PetscLogStagePop());
  mg->computed = PETSC_TRUE;
  /* a new state for the PC that uses it: its smoothers and coarse solvers are set up again */
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* The operator shell whose products are the multigrid operator's (not a new reference) */
PetscErrorCode MechOperatorMultigridGetShell_Private(Mat A, Mat *shell)
{
  MechOperatorMG *mg;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &mg));
  *shell = mg->shell;
  PetscFunctionReturn(0);
}

/* Whether the next assembly of the multigrid operator A keeps its coarse levels (one assembly only) */
PetscErrorCode MechOperatorMultigridKeepCoarse_Private(Mat A, PetscBool keep)
{
  MechOperatorMG *mg;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &mg));
  mg->keepcoarse = keep;
  PetscFunctionReturn(0);
}

/*
  The PCMG of a model with levels of its own (MechSystemSetUpPCMG()): its finest operator, the
  PC's preconditioning matrix, must be the multigrid operator, which keeps the levels' data. The
  finest level has no entries: no Galerkin products, smoothing with the preconditioning operator
  (-pc_use_amat 0 unless given) by Chebyshev with Jacobi unless options say otherwise.
*/
PetscErrorCode MechSystemSetUpPCMGModel_Private(MechSystem sys, PC pc)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)pc);
  const char     *prefix, *model = sys->modelname ? sys->modelname : "(unnamed)";
  PetscBool       set, is        = PETSC_FALSE;
  Mat             P = NULL;
  MechOperatorMG *mg;
  PetscInt        levels;
  KSP             smoother;
  PC              spc;

  PetscFunctionBegin;
  PetscCall(PCGetOptionsPrefix(pc, &prefix));
  PetscCall(PCGetOperatorsSet(pc, NULL, &set));
  if (set) PetscCall(PCGetOperators(pc, NULL, &P));
  if (P) PetscCall(MechOperatorIsMultigrid_Private(P, &is));
  PetscCheck(is, comm, PETSC_ERR_ARG_WRONG, "-%spc_type mg on model %s: its multigrid levels need the model's multigrid operator as the preconditioning matrix (MechSystemCreateOperatorMultigrid(); TSMechSetSolution() gives it to the tsmech types and TSALPHA2)", prefix ? prefix : "", model);
  PetscCall(PetscOptionsHasName(((PetscObject)pc)->options, prefix, "-pc_mg_galerkin", &set));
  PetscCheck(!set, comm, PETSC_ERR_ARG_INCOMP, "-%spc_mg_galerkin: model %s forms its coarse levels itself (its finest operator is matrix-free, with no entries to multiply)", prefix ? prefix : "", model);
  PetscCall(PCMGSetGalerkin(pc, PC_MG_GALERKIN_NONE));
  /* no DM: PCMG would restrict the DM's vectors (the SNES's solution) to levels that have none,
     and count its levels from the DM's refinements (PCSetFromOptions_MG() decided so when the PC had
     the SNES's DM; PETSc 3.18 has no call that undoes it) */
  PetscCall(PCSetDM(pc, NULL));
  ((PC_MG *)pc->data)->usedmfornumberoflevels = PETSC_FALSE;
  PetscCall(PetscOptionsHasName(((PetscObject)pc)->options, prefix, "-pc_use_amat", &set));
  if (!set) PetscCall(PCSetUseAmat(pc, PETSC_FALSE));
  PetscCall(MatShellGetContext(P, &mg));
  if (mg->levels && sys->mgdestroy) PetscCall((*sys->mgdestroy)(&mg->levels));
  PetscCall((*sys->mgsetup)(sys, pc, &mg->levels, sys->mgctx));
  /* the PCMG options that act on the levels (-pc_mg_cycle_type, -pc_mg_distinct_smoothup, ...)
     were read when the PC had one level: read again for these */
  PetscCall(PCSetFromOptions(pc));
  /* the finest smoother: PCMG's default SOR needs entries; Jacobi takes the operator's diagonal */
  PetscCall(PCMGGetLevels(pc, &levels));
  PetscCall(PCMGGetSmoother(pc, levels - 1, &smoother));
  PetscCall(KSPGetPC(smoother, &spc));
  PetscCall(PetscObjectTypeCompare((PetscObject)spc, PCSOR, &set));
  if (set) PetscCall(PCSetType(spc, PCJACOBI));
  /* the levels are computed with the operator: a state computed before has none yet */
  if (mg->computed) {
    Vec qm, vm;

    PetscCall(MechSystemMotionState(sys, mg->t, mg->q, mg->v, &qm, &vm, NULL));
    PetscCall(MechSystemAgree(sys, (*sys->mgupdate)(sys, mg->levels, mg->t, qm, vm, mg->cK, mg->cD, mg->cM, NULL, sys->mgctx), "multigrid levels"));
  }
  PetscFunctionReturn(0);
}
