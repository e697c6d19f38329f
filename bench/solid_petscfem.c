static const char help[] = "PETSc's own finite-element residual, Jacobian and Jacobian action (DMPlexSNESComputeResidualFEM, DMPlexSNESComputeJacobianFEM, DMSNESComputeJacobianAction) on a box of hexahedra, to compare with the solid model's kernels (bench/solid_order.py).\n";

/*
  The same discretization as tsmech's -solid_cell hex -solid_order k beam: Lagrange Q_k hexahedra
  (PetscFECreateLagrange(), Gauss-Legendre with k + 1 points per direction), 3 components, the
  displacement u as unknown (F = I + grad u), with the pointwise functions of PETSc's elasticity
  examples (SNES tutorials ex17, ex77): the stress P(F) as f1 and dP/dF as g3, for the linear and
  the neo-Hookean materials of src/models/solid/materials.c (E = 1e7, nu = 0.3).

    bench_petscfem -order 2 -cells 16,4,4 -material neohookean -reps 10

  Prints, per unknown, the time of a residual, of an assembled Jacobian, of a Jacobian action and
  of a product with the assembled Jacobian, and the matrix's nonzeros.
*/
#include <petscdmplex.h>
#include <petscsnes.h>
#include <petscds.h>

static const PetscReal E = 1e7, nu = 0.3;
#define MU     (E / (2 * (1 + nu)))
#define LAMBDA (E * nu / ((1 + nu) * (1 - 2 * nu)))

static void f1_linear(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar f1[])
{
  const PetscReal tr = u_x[0] + u_x[4] + u_x[8];

  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) f1[3 * i + j] = MU * (u_x[3 * i + j] + u_x[3 * j + i]) + (i == j ? LAMBDA * tr : 0.0);
}

static void g3_linear(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g3[])
{
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt k = 0; k < 3; k++)
      for (PetscInt j = 0; j < 3; j++)
        for (PetscInt l = 0; l < 3; l++) g3[((i * 3 + k) * 3 + j) * 3 + l] = MU * ((i == k && j == l) + (i == l && j == k)) + LAMBDA * (i == j && k == l);
}

/* F = I + grad u, its inverse and J */
static void Deformation(const PetscScalar u_x[], PetscReal F[9], PetscReal Finv[9], PetscReal *J)
{
  for (PetscInt i = 0; i < 9; i++) F[i] = u_x[i] + (i % 4 == 0);
  *J      = F[0] * (F[4] * F[8] - F[5] * F[7]) - F[1] * (F[3] * F[8] - F[5] * F[6]) + F[2] * (F[3] * F[7] - F[4] * F[6]);
  Finv[0] = (F[4] * F[8] - F[5] * F[7]) / *J;
  Finv[1] = (F[2] * F[7] - F[1] * F[8]) / *J;
  Finv[2] = (F[1] * F[5] - F[2] * F[4]) / *J;
  Finv[3] = (F[5] * F[6] - F[3] * F[8]) / *J;
  Finv[4] = (F[0] * F[8] - F[2] * F[6]) / *J;
  Finv[5] = (F[2] * F[3] - F[0] * F[5]) / *J;
  Finv[6] = (F[3] * F[7] - F[4] * F[6]) / *J;
  Finv[7] = (F[1] * F[6] - F[0] * F[7]) / *J;
  Finv[8] = (F[0] * F[4] - F[1] * F[3]) / *J;
}

/* P = mu (F - F^-T) + lambda ln J F^-T */
static void f1_neohookean(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar f1[])
{
  PetscReal F[9], Fi[9], J, lnJ;

  Deformation(u_x, F, Fi, &J);
  lnJ = PetscLogReal(J);
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) f1[3 * i + j] = MU * (F[3 * i + j] - Fi[3 * j + i]) + LAMBDA * lnJ * Fi[3 * j + i];
}

/* dP_ij/dF_kl = mu d_ik d_jl + (mu - lambda ln J) Finv_li Finv_jk + lambda Finv_lk Finv_ji */
static void g3_neohookean(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g3[])
{
  PetscReal F[9], Fi[9], J, c;

  Deformation(u_x, F, Fi, &J);
  c = MU - LAMBDA * PetscLogReal(J);
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt k = 0; k < 3; k++)
      for (PetscInt j = 0; j < 3; j++)
        for (PetscInt l = 0; l < 3; l++) g3[((i * 3 + k) * 3 + j) * 3 + l] = MU * (i == k && j == l) + c * Fi[3 * l + i] * Fi[3 * j + k] + LAMBDA * Fi[3 * l + k] * Fi[3 * j + i];
}

int main(int argc, char **argv)
{
  DM             dm;
  PetscFE        fe;
  PetscDS        ds;
  PetscInt       order = 2, cells[3] = {16, 4, 4}, three = 3, reps = 10, N;
  PetscReal      lower[3] = {0, 0, 0}, upper[3] = {1, 0.1, 0.1};
  char           mat[64] = "neohookean";
  PetscBool      neo;
  Vec            X, Xl, Fl, Yl, Zl, y, w;
  Mat            J;
  PetscRandom    rnd;
  PetscLogDouble t[5], tm0, tm1;
  MatInfo        info;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "PETSc FEM benchmark", NULL);
  PetscCall(PetscOptionsInt("-order", "Lagrange order of the hexahedra", NULL, order, &order, NULL));
  PetscCall(PetscOptionsIntArray("-cells", "Hexahedra along x, y, z", NULL, cells, &three, NULL));
  PetscCall(PetscOptionsInt("-reps", "Repetitions of each operation", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsString("-material", "linear or neohookean", NULL, mat, mat, sizeof(mat), NULL));
  PetscOptionsEnd();
  PetscCheck(order == 1 || order == 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-order %" PetscInt_FMT ": 1 or 2", order);
  PetscCall(PetscStrcmp(mat, "neohookean", &neo));
  PetscCall(DMPlexCreateBoxMesh(PETSC_COMM_WORLD, 3, PETSC_FALSE, cells, lower, upper, NULL, PETSC_TRUE, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(PetscFECreateLagrange(PETSC_COMM_WORLD, 3, 3, PETSC_FALSE, order, 2 * order, &fe));
  PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(dm));
  PetscCall(DMGetDS(dm, &ds));
  PetscCall(PetscDSSetResidual(ds, 0, NULL, neo ? f1_neohookean : f1_linear));
  PetscCall(PetscDSSetJacobian(ds, 0, 0, NULL, NULL, NULL, neo ? g3_neohookean : g3_linear));
  PetscCall(DMCreateGlobalVector(dm, &X));
  PetscCall(VecGetSize(X, &N));
  PetscCall(DMCreateLocalVector(dm, &Xl));
  PetscCall(VecDuplicate(Xl, &Fl));
  PetscCall(VecDuplicate(Xl, &Yl));
  PetscCall(VecDuplicate(Xl, &Zl));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1e-3, 1e-3));
  PetscCall(VecSetRandom(X, rnd));
  PetscCall(DMGlobalToLocal(dm, X, INSERT_VALUES, Xl));
  PetscCall(VecSetRandom(X, rnd));
  PetscCall(DMGlobalToLocal(dm, X, INSERT_VALUES, Yl));
  PetscCall(DMCreateMatrix(dm, &J));
  PetscCall(MatCreateVecs(J, &w, &y));
  PetscCall(VecSetRandom(w, rnd));
  PetscCall(PetscTime(&t[0]));
  for (PetscInt r = 0; r < reps; r++) PetscCall(DMPlexSNESComputeResidualFEM(dm, Xl, Fl, NULL));
  PetscCall(PetscTime(&t[1]));
  for (PetscInt r = 0; r < reps; r++) PetscCall(DMPlexSNESComputeJacobianFEM(dm, Xl, J, J, NULL));
  PetscCall(PetscTime(&t[2]));
  for (PetscInt r = 0; r < reps; r++) PetscCall(DMSNESComputeJacobianAction(dm, Xl, Yl, Zl, NULL));
  PetscCall(PetscTime(&t[3]));
  PetscCall(PetscTime(&tm0));
  for (PetscInt r = 0; r < reps; r++) PetscCall(MatMult(J, w, y));
  PetscCall(PetscTime(&tm1));
  PetscCall(MatGetInfo(J, MAT_GLOBAL_SUM, &info));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "petscfem Q%" PetscInt_FMT " hex %s unknowns %" PetscInt_FMT " residual_ns %.1f assembly_ns %.1f action_ns %.1f matmult_ns %.1f nnz %.0f\n", order, mat, N, 1e9 * (t[1] - t[0]) / reps / N, 1e9 * (t[2] - t[1]) / reps / N, 1e9 * (t[3] - t[2]) / reps / N, 1e9 * (tm1 - tm0) / reps / N, info.nz_used));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&Xl));
  PetscCall(VecDestroy(&Fl));
  PetscCall(VecDestroy(&Yl));
  PetscCall(VecDestroy(&Zl));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&w));
  PetscCall(MatDestroy(&J));
  PetscCall(PetscFEDestroy(&fe));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}
