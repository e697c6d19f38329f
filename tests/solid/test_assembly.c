static const char help[] = "Tests of the solid's assembly of the tangent (in-place insertion on one rank) and of its mass's pattern.\n";

/*
  On one rank the solid adds its element matrices in place into the sequential AIJ operator
  (src/models/solid/elements.c, SolidCellMatrixSetUp()); on several ranks, or into another matrix
  type, through MatSetValues(). For P1 and P2 tetrahedra, Q1 and Q2 hexahedra (neo-Hookean, and the
  linear material on P2):

  same bits   the operator K + cD D + cM M (Rayleigh damping, fixed dofs) assembled into the model's
              SeqAIJ matrix equals, bit for bit, the one assembled through MatSetValues() into the
              same matrix converted to MPIAIJ (on this one rank): the in-place sums are those of
              MatSetValues().
  mass        the mass has the couplings of M = M_s x I3 only, a third of the tangent's nonzeros
              (it had the tangent's pattern, with explicit zeros), and its product equals, bit for
              bit, that of the same mass in the tangent's pattern: the products the residual and
              the matrix-free operator M + K make stream a third of the entries for the same sums.
  cost        (-cost, registered for P1 and P2 tetrahedra) an assembly of the tangent costs at most
              -max_ratio (default 30) matrix-free tangent actions, in CPU time, the best of 3
              trials of 5 each: 52 (P1) and 43 (P2) before the in-place insertion, 19 after
              (bench/README.md, "The solid's kernels").
*/
#include <time.h>
#include "fdcheck.h"
#include "testutil.h"

static PetscInt failures = 0;

#define CHECK(cond, ...)                                                \
  do {                                                                  \
    if (!(cond)) {                                                      \
      failures++;                                                       \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: " __VA_ARGS__)); \
    }                                                                   \
  } while (0)

#define NKIND 4
static const char *const kinds[NKIND]    = {"-solid_cell tet -solid_order 1", "-solid_cell tet -solid_order 2", "-solid_cell hex -solid_order 1", "-solid_cell hex -solid_order 2"};
static const char *const kindname[NKIND] = {"P1 tet", "P2 tet", "Q1 hex", "Q2 hex"};

/* The process's CPU time (other jobs on the machine weigh less than on the wall clock) */
static PetscLogDouble CPUSeconds(void)
{
  return (PetscLogDouble)clock() / CLOCKS_PER_SEC;
}

/* The model of element kind k and material mat on the given boxes, at a random deformed state q, v */
static PetscErrorCode CreateSolid(PetscInt k, const char mat[], const char cells[], MechSystem *sys, Vec *q, Vec *v)
{
  char        opts[512];
  PetscRandom rnd;
  Vec         r;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_beam_cells %s -solid_beam_size 1,0.5,0.4 -solid_material %s -solid_E 1 -solid_nu 0.3 -solid_density 1 -solid_rayleigh 0.1,0.01 -solid_output_stress false", kinds[k], cells, mat));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, sys));
  PetscCall(FDRandomCreate(PETSC_COMM_WORLD, 7, &rnd));
  PetscCall(MechSystemCreateState(*sys, q, v));
  PetscCall(VecDuplicate(*q, &r));
  PetscCall(VecSetRandom(r, rnd));
  PetscCall(VecAXPY(*q, 1e-3, r));
  PetscCall(VecSetRandom(r, rnd));
  PetscCall(VecAXPY(*v, 1e-3, r));
  PetscCall(VecDestroy(&r));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

/* The operator in place (SeqAIJ) against the same through MatSetValues() (MPIAIJ on one rank) */
static PetscErrorCode SameBits(PetscInt k, const char mat[])
{
  MechSystem sys;
  Vec        q, v;
  Mat        A, B, C;
  PetscBool  seqaij, eq;

  PetscFunctionBegin;
  PetscCall(CreateSolid(k, mat, "6,2,2", &sys, &q, &v));
  PetscCall(MechSystemCreateOperator(sys, &A));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJ, &seqaij));
  CHECK(seqaij, "%s %s: the operator is not SeqAIJ on one rank\n", kindname[k], mat);
  PetscCall(MatConvert(A, MATMPIAIJ, MAT_INITIAL_MATRIX, &B));
  /* twice: the second time the places found by the first are reused */
  for (PetscInt i = 0; i < 2; i++) PetscCall(MechSystemComputeOperator(sys, 0, q, v, 0.7, 0.3, 1.1, A));
  PetscCall(MechSystemComputeOperator(sys, 0, q, v, 0.7, 0.3, 1.1, B));
  PetscCall(MatConvert(B, MATSEQAIJ, MAT_INITIAL_MATRIX, &C));
  /* MatEqual() of two SeqAIJ matrices compares their structure and the bits of their values */
  PetscCall(MatEqual(A, C, &eq));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "same_bits %s %s: %s\n", kindname[k], mat, eq ? "equal" : "DIFFERENT"));
  CHECK(eq, "%s %s: the operator assembled in place differs from MatSetValues()'s\n", kindname[k], mat);
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&C));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/* The mass's pattern (a third of the tangent's) and its product against the same mass in the tangent's pattern */
static PetscErrorCode MassPattern(PetscInt k)
{
  MechSystem sys;
  Vec        q, v, y, z;
  Mat        A, M, F;
  MatInfo    ia, im;
  PetscBool  eq;

  PetscFunctionBegin;
  PetscCall(CreateSolid(k, "neohookean", "6,2,2", &sys, &q, &v));
  PetscCall(MechSystemCreateOperator(sys, &A));
  PetscCall(MechSystemGetMass(sys, &M));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &ia));
  PetscCall(MatGetInfo(M, MAT_GLOBAL_SUM, &im));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "mass %s: %.0f nonzeros, the tangent %.0f\n", kindname[k], im.nz_used, ia.nz_used));
  CHECK(3 * im.nz_used == ia.nz_used, "%s: the mass has %.0f nonzeros, not a third of the tangent's %.0f\n", kindname[k], im.nz_used, ia.nz_used);
  /* the same mass in the tangent's pattern: F = 0 + 1 M */
  PetscCall(MatDuplicate(A, MAT_DO_NOT_COPY_VALUES, &F));
  PetscCall(MatZeroEntries(F));
  PetscCall(MatAXPY(F, 1.0, M, SUBSET_NONZERO_PATTERN));
  PetscCall(VecDuplicate(q, &y));
  PetscCall(VecDuplicate(q, &z));
  PetscCall(MatMult(M, v, y));
  PetscCall(MatMult(F, v, z));
  PetscCall(VecEqual(y, z, &eq));
  CHECK(eq, "%s: the mass's product differs from that of the same mass in the tangent's pattern\n", kindname[k]);
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/* An assembly of the tangent in matrix-free actions (CPU time, best of 3 trials) */
static PetscErrorCode Cost(PetscInt k, PetscReal maxratio)
{
  MechSystem     sys;
  Vec            q, v, w, y;
  Mat            A, S;
  PetscReal      best = PETSC_MAX_REAL;
  const PetscInt reps = 5;

  PetscFunctionBegin;
  PetscCall(CreateSolid(k, "neohookean", k == 0 ? "32,4,4" : "16,2,2", &sys, &q, &v));
  PetscCall(VecDuplicate(q, &w));
  PetscCall(VecDuplicate(q, &y));
  PetscCall(VecCopy(q, w));
  PetscCall(MechSystemCreateOperator(sys, &A));
  PetscCall(MechSystemCreateOperatorShell(sys, &S));
  PetscCall(MechSystemLinearizeOperatorShell(sys, 0, q, v, 1, 0, 0, S));
  /* the first assembly finds the places */
  PetscCall(MechSystemComputeOperator(sys, 0, q, v, 1, 0, 0, A));
  for (PetscInt trial = 0; trial < 3; trial++) {
    PetscLogDouble t0, t1, t2;

    t0 = CPUSeconds();
    for (PetscInt r = 0; r < reps; r++) PetscCall(MechSystemComputeOperator(sys, 0, q, v, 1, 0, 0, A));
    t1 = CPUSeconds();
    for (PetscInt r = 0; r < 20 * reps; r++) PetscCall(MatMult(S, w, y));
    t2 = CPUSeconds();
    if (t2 > t1) best = PetscMin(best, (PetscReal)((t1 - t0) / reps / ((t2 - t1) / (20 * reps))));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cost %s neohookean: an assembly = %.1f actions (at most %.0f)\n", kindname[k], (double)best, (double)maxratio));
  CHECK(best <= maxratio, "%s: an assembly costs %.1f matrix-free actions, more than %.0f\n", kindname[k], (double)best, (double)maxratio);
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&S));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscBool   cost     = PETSC_FALSE;
  PetscReal   maxratio = 30;
  PetscMPIInt size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "test_assembly runs on one rank (the in-place insertion is sequential)");
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-cost", &cost, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-max_ratio", &maxratio, NULL));
  if (cost) {
    for (PetscInt k = 0; k < 2; k++) PetscCall(Cost(k, maxratio));
  } else {
    for (PetscInt k = 0; k < NKIND; k++) PetscCall(SameBits(k, "neohookean"));
    for (PetscInt k = 0; k < NKIND; k++) PetscCall(MassPattern(k));
    PetscCall(SameBits(1, "linear"));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failures\n", failures ? "FAILED" : "passed", failures));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
