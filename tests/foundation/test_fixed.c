static const char help[] = "Fixed degrees of freedom stay where they are prescribed under every integrator:\n"
                           "the pinned end of the chain (prescribed value = initial state) and a hand-built\n"
                           "system whose fixed dof is given a value by MechSystemSetFixed(sys, is, values);\n"
                           "the Newton residual of midpoint2 and cn2 does not see the fixed dofs of a candidate move, and\n"
                           "the cloth's pinned corners stay bitwise under inexact multigrid solves (geometric: no\n"
                           "coarse correction reaches them; algebraic under TSALPHA2: the Newton step's exact fixed rows).\n";

/*
  Checks, for each TS type (tsmech's second-order types, TSALPHA2 and PETSc's first-order types
  on [q; v]):
  - the pinned particle of the chain ends bitwise at its initial position with velocity exactly
    0, although its initial velocity was given non-zero (TSMechSetSolution() must zero it);
  - on a two-dof system  m q1'' + k (q1 - q0) = 0  with q0 fixed at a prescribed value a that
    differs from the initial state, q0 ends bitwise at a, v0 at 0, and q1 follows the exact
    solution a + (q1(0) - a) cos(w t): the prescribed value is imposed and felt by the rest.
*/
#include "foundation.h"

typedef struct {
  const char *type, *opts;
} Case;

static const Case cases[] = {
    {TSTHETA2,    "-ts_theta_theta 0.7"              },
    {TSBEULER2,   ""                                 },
    {TSCN2,       ""                                 },
    {TSMIDPOINT2, ""                                 },
    {TSEULER2,    ""                                 },
    {TSSYMEULER2, ""                                 },
    {TSALPHA2,    ""                                 },
    {TSBEULER,    ""                                 },
    {TSCN,        ""                                 },
    {TSTHETA,     "-ts_theta_theta 0.7"              },
    {TSRK,        "-ts_rk_type 4 -ts_adapt_type none"},
};

static const char solver_opts[] = "-snes_rtol 1e-12 -snes_atol 1e-14 -ksp_rtol 1e-13 -ksp_atol 1e-16";

/* Are the entries idx of a and b (owned by this rank) bitwise equal, on every rank? */
static PetscErrorCode EqualAt(IS is, Vec a, Vec b, PetscBool *equal)
{
  const PetscInt    *idx;
  const PetscScalar *x, *y;
  PetscInt           n, rstart;
  PetscBool          eq = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(ISGetLocalSize(is, &n));
  PetscCall(ISGetIndices(is, &idx));
  PetscCall(VecGetOwnershipRange(a, &rstart, NULL));
  PetscCall(VecGetArrayRead(a, &x));
  PetscCall(VecGetArrayRead(b, &y));
  for (PetscInt k = 0; k < n; k++)
    if (x[idx[k] - rstart] != y[idx[k] - rstart]) eq = PETSC_FALSE;
  PetscCall(VecRestoreArrayRead(b, &y));
  PetscCall(VecRestoreArrayRead(a, &x));
  PetscCall(ISRestoreIndices(is, &idx));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &eq, 1, MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)a)));
  *equal = eq;
  PetscFunctionReturn(0);
}

/* Checks q = qref and v = 0 bitwise on the fixed dofs; also that the free dofs moved. */
static PetscErrorCode CheckFixed(MechSystem sys, const char *label, const Case *c, Vec q, Vec v, Vec qref, Vec q0, PetscInt *failures)
{
  IS        fixed;
  Vec       zero;
  PetscBool qok, vok;
  PetscReal moved;

  PetscFunctionBegin;
  PetscCall(MechSystemGetFixed(sys, &fixed));
  PetscCall(VecDuplicate(v, &zero));
  PetscCall(VecZeroEntries(zero));
  PetscCall(EqualAt(fixed, q, qref, &qok));
  PetscCall(EqualAt(fixed, v, zero, &vok));
  PetscCall(VecDestroy(&zero));
  PetscCall(VecDuplicate(q, &zero));
  PetscCall(VecWAXPY(zero, -1.0, q0, q));
  PetscCall(VecNorm(zero, NORM_INFINITY, &moved));
  PetscCall(VecDestroy(&zero));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-6s %-10s %-36s fixed q %s, fixed v %s, free dofs moved by %.3e\n", label, c->type, c->opts, qok ? "exact" : "WRONG", vok ? "0" : "NON-ZERO", (double)moved));
  if (!qok || !vok || !(moved > 1e-6)) {
    (*failures)++;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: %s under %s %s\n", label, c->type, !qok ? "moved a fixed position" : !vok ? "left a fixed velocity non-zero"
                                                                                                                               : "did not move the free dofs"));
  }
  PetscFunctionReturn(0);
}

/* Integrates sys from its initial state under each case (options common, then the case's) and
   checks the fixed dofs against the initial positions q0 */
static PetscErrorCode CheckCases(MechSystem sys, const char *label, const Case cases[], size_t n, const char common[], PetscReal dt, PetscReal T, Vec q0, PetscInt *failures)
{
  PetscFunctionBegin;
  for (size_t i = 0; i < n; i++) {
    Vec  q, v;
    char opts[512];

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s", common, cases[i].opts));
    PetscCall(TestIntegrate(sys, cases[i].type, opts, dt, T, &q, &v, NULL, NULL));
    PetscCall(CheckFixed(sys, label, &cases[i], q, v, q0, q0, failures));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
  }
  PetscFunctionReturn(0);
}

/* The chain, moved away from the origin (so that a fixed position is not a trivial 0) and
   given a velocity everywhere, the pinned particle included. */
static PetscErrorCode CheckChain(PetscInt *failures)
{
  const PetscReal dt = 1e-3, T = 0.05, shift[3] = {0.3, -0.7, 1.1};
  MechSystem      sys;
  Vec             q0, v0;
  PetscScalar    *x, *u;
  PetscInt        rstart, rend;

  PetscFunctionBegin;
  PetscCall(FoundationCreateModel(PETSC_COMM_WORLD, "chain", "-chain_n 30 -chain_c 0.5 -chain_stretch 1.1", &sys));
  PetscCall(MechSystemCreateState(sys, &q0, &v0));
  PetscCall(VecGetOwnershipRange(q0, &rstart, &rend));
  PetscCall(VecGetArray(q0, &x));
  PetscCall(VecGetArray(v0, &u));
  for (PetscInt i = rstart; i < rend; i++) {
    x[i - rstart] += shift[i % 3];
    u[i - rstart] = 0.1 * (1 + i % 3) + 0.01 * (i / 3);
  }
  PetscCall(VecRestoreArray(v0, &u));
  PetscCall(VecRestoreArray(q0, &x));
  PetscCall(MechSystemSetInitialState(sys, q0, v0));
  PetscCall(CheckCases(sys, "chain", cases, sizeof(cases) / sizeof(cases[0]), solver_opts, dt, T, q0, failures));
  PetscCall(VecDestroy(&q0));
  PetscCall(VecDestroy(&v0));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/*
  The Newton residual of the theta2 family must not see a fixed dof move: the tangent has the
  fixed columns of K and D zeroed, so a candidate v+ with x_f != v_f (an inexact Newton step)
  must leave the residual's other rows unchanged, bitwise; its own row changes (M a_f).
*/
static PetscErrorCode CheckStageHoldsFixed(PetscInt *failures)
{
  const char *types[] = {TSMIDPOINT2, TSCN2};
  MechSystem  sys;
  IS          fixed;

  PetscFunctionBegin;
  PetscCall(FoundationCreateModel(PETSC_COMM_WORLD, "chain", "-chain_n 30 -chain_c 0.5 -chain_stretch 1.1", &sys));
  PetscCall(MechSystemGetFixed(sys, &fixed));
  for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
    TS              ts;
    SNES            snes;
    Vec             q, v, x, R1, R2;
    PetscInt        n, rstart;
    const PetscInt *idx;
    PetscReal       all, others;

    PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
    PetscCall(TSSetType(ts, types[t]));
    PetscCall(TSMechSetSystem(ts, sys));
    PetscCall(TSSetTimeStep(ts, 1e-3));
    PetscCall(TSSetMaxSteps(ts, 1));
    PetscCall(TSSetFromOptions(ts));
    PetscCall(MechSystemCreateState(sys, &q, &v));
    PetscCall(TSMechSetSolution(ts, q, v));
    PetscCall(TSSolve(ts, NULL));
    PetscCall(TSMechGetSolution(ts, q, v));
    PetscCall(TSGetSNES(ts, &snes));
    PetscCall(VecDuplicate(v, &x));
    PetscCall(VecDuplicate(v, &R1));
    PetscCall(VecDuplicate(v, &R2));
    PetscCall(VecCopy(v, x));
    PetscCall(SNESComputeFunction(snes, x, R1));
    /* move every fixed dof of the candidate */
    PetscCall(ISGetLocalSize(fixed, &n));
    PetscCall(ISGetIndices(fixed, &idx));
    PetscCall(VecGetOwnershipRange(x, &rstart, NULL));
    for (PetscInt k = 0; k < n; k++) PetscCall(VecSetValue(x, idx[k], 1e-3 * (k + 1), ADD_VALUES));
    PetscCall(ISRestoreIndices(fixed, &idx));
    PetscCall(VecAssemblyBegin(x));
    PetscCall(VecAssemblyEnd(x));
    PetscCall(SNESComputeFunction(snes, x, R2));
    PetscCall(VecAXPY(R2, -1.0, R1));
    PetscCall(VecNorm(R2, NORM_INFINITY, &all));
    PetscCall(VecISSet(R2, fixed, 0.0));
    PetscCall(VecNorm(R2, NORM_INFINITY, &others));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: residual change when the fixed dofs of v+ move: %g in their rows, %g elsewhere\n", types[t], (double)all, (double)others));
    if (!(all > 0) || others != 0) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: moving the fixed dofs of the candidate must change their own rows only (%g, elsewhere %g)\n", types[t], (double)all, (double)others));
      (*failures)++;
    }
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&R1));
    PetscCall(VecDestroy(&R2));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(TSDestroy(&ts));
  }
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/* The cloth's pinned corners under inexact multigrid solves: one V-cycle per Newton iteration
   with Eisenstat-Walker tolerances, or a loose linear tolerance; GAMG's coarse correction reaches
   the corners, geometric multigrid's does not */
static PetscErrorCode CheckInexact(PetscInt *failures)
{
  const Case cloth[] = {
      {TSMIDPOINT2, "-ts_theta_matrix_free -ksp_type cg -pc_type mg -mg_levels_ksp_max_it 1 -snes_ksp_ew -snes_rtol 1e-5"},
      {TSCN2,       "-ksp_type cg -pc_type mg -ksp_rtol 1e-2"                                                            },
      {TSALPHA2,    "-ksp_type cg -pc_type mg -ksp_rtol 1e-2"                                                            },
      {TSALPHA2,    "-ksp_type cg -pc_type gamg -ksp_rtol 1e-2"                                                          },
  };
  MechSystem sys;
  Vec        q0, v0;

  PetscFunctionBegin;
  PetscCall(FoundationCreateModel(PETSC_COMM_WORLD, "cloth", "-cloth_n 17", &sys));
  PetscCall(MechSystemCreateState(sys, &q0, &v0));
  PetscCall(CheckCases(sys, "cloth", cloth, sizeof(cloth) / sizeof(cloth[0]), "", 1e-3, 0.02, q0, failures));
  PetscCall(VecDestroy(&q0));
  PetscCall(VecDestroy(&v0));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/* Two dofs on rank 0: a spring of stiffness k and zero rest length from dof 0 to dof 1. */
typedef struct {
  PetscReal k;
} Spring;

static PetscErrorCode SpringForce(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
{
  const Spring      *s = (const Spring *)ctx;
  const PetscScalar *x;
  PetscScalar       *fa;
  PetscInt           n;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArrayRead(q, &x));
  PetscCall(VecGetArray(f, &fa));
  if (n) {
    fa[0] = s->k * (x[0] - x[1]);
    fa[1] = s->k * (x[1] - x[0]);
  }
  PetscCall(VecRestoreArray(f, &fa));
  PetscCall(VecRestoreArrayRead(q, &x));
  PetscFunctionReturn(0);
}

static PetscErrorCode SpringTangent(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  const Spring  *s      = (const Spring *)ctx;
  const PetscInt idx[2] = {0, 1};
  PetscScalar    K[4];
  PetscInt       n;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  (void)cD;
  PetscCall(VecGetLocalSize(q, &n));
  K[0] = K[3] = cK * s->k;
  K[1] = K[2] = -cK * s->k;
  if (n) PetscCall(MatSetValues(J, 2, idx, 2, idx, K, ADD_VALUES));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckPrescribed(PetscInt *failures)
{
  const PetscReal m = 1, a = 0.5, q1start = 1.5, dt = 1e-3, T = 1, tol = 1e-4;
  Spring          spring = {4.0};
  const PetscReal w      = PetscSqrtReal(spring.k / m);
  MPI_Comm        comm   = PETSC_COMM_WORLD;
  PetscMPIInt     rank;
  PetscInt        nloc;
  MechSystem      sys;
  Mat             M, J;
  Vec             q0, v0, values, qexact;
  IS              fixed;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  nloc = rank == 0 ? 2 : 0;
  PetscCall(MatCreateAIJ(comm, nloc, nloc, 2, 2, 1, NULL, 0, NULL, &M));
  PetscCall(MatCreateAIJ(comm, nloc, nloc, 2, 2, 2, NULL, 0, NULL, &J));
  if (nloc) {
    const PetscInt    idx[2]   = {0, 1};
    const PetscScalar zeros[4] = {0, 0, 0, 0};
    PetscCall(MatSetValue(M, 0, 0, m, INSERT_VALUES));
    PetscCall(MatSetValue(M, 1, 1, m, INSERT_VALUES));
    PetscCall(MatSetValues(J, 2, idx, 2, idx, zeros, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));

  PetscCall(MechSystemCreate(comm, &sys));
  PetscCall(MechSystemSetMass(sys, M));
  PetscCall(MechSystemSetForce(sys, SpringForce, &spring));
  PetscCall(MechSystemSetTangent(sys, J, PETSC_FALSE, SpringTangent, &spring));
  PetscCall(MechSystemSetLinear(sys, PETSC_TRUE));

  /* the initial state puts dof 0 at 0 and moving; the prescribed value a must win */
  PetscCall(MatCreateVecs(M, &q0, &v0));
  PetscCall(VecDuplicate(q0, &values));
  PetscCall(VecDuplicate(q0, &qexact));
  if (nloc) {
    PetscCall(VecSetValue(q0, 1, q1start, INSERT_VALUES));
    PetscCall(VecSetValue(v0, 0, 1.0, INSERT_VALUES));
    PetscCall(VecSetValue(values, 0, a, INSERT_VALUES));
    PetscCall(VecSetValue(values, 1, -100.0, INSERT_VALUES)); /* not fixed: must be ignored */
    PetscCall(VecSetValue(qexact, 0, a, INSERT_VALUES));
    PetscCall(VecSetValue(qexact, 1, a + (q1start - a) * PetscCosReal(w * T), INSERT_VALUES));
  }
  PetscCall(VecAssemblyBegin(q0));
  PetscCall(VecAssemblyEnd(q0));
  PetscCall(VecAssemblyBegin(v0));
  PetscCall(VecAssemblyEnd(v0));
  PetscCall(VecAssemblyBegin(values));
  PetscCall(VecAssemblyEnd(values));
  PetscCall(VecAssemblyBegin(qexact));
  PetscCall(VecAssemblyEnd(qexact));
  PetscCall(MechSystemSetInitialState(sys, q0, v0));
  PetscCall(ISCreateStride(comm, nloc ? 1 : 0, 0, 1, &fixed));
  PetscCall(MechSystemSetFixed(sys, fixed, values));

  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const Case *c = &cases[i];
    PetscBool   second_order_accurate;
    Vec         q, v, w1;
    char        opts[512];
    PetscReal   err, ctol;

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s", solver_opts, c->opts));
    PetscCall(TestIntegrate(sys, c->type, opts, dt, T, &q, &v, NULL, NULL));
    PetscCall(CheckFixed(sys, "given", c, q, v, qexact, q0, failures));
    /* the free dof oscillates about a. First-order schemes change the amplitude by about
       w^2 dt t / 2 relative, so they get a tolerance of that size; ignoring a would be off by
       a (1 - cos(w T)) = 0.7 */
    PetscCall(VecDuplicate(q, &w1));
    PetscCall(VecWAXPY(w1, -1.0, qexact, q));
    PetscCall(VecNorm(w1, NORM_INFINITY, &err));
    PetscCall(VecDestroy(&w1));
    PetscCall(PetscStrInList(c->type, "cn2,midpoint2,alpha2,cn,rk", ',', &second_order_accurate));
    ctol = second_order_accurate ? tol : dt * w * w * T * (q1start - a) + tol;
    PetscCall(PetscPrintf(comm, "       q1 error against a + (q1(0) - a) cos(w t): %.3e (tolerance %.1e)\n", (double)err, (double)ctol));
    if (!(err <= ctol)) {
      (*failures)++;
      PetscCall(PetscPrintf(comm, "FAILED: under %s the free dof does not oscillate about the prescribed value\n", c->type));
    }
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
  }
  PetscCall(ISDestroy(&fixed));
  PetscCall(VecDestroy(&q0));
  PetscCall(VecDestroy(&v0));
  PetscCall(VecDestroy(&values));
  PetscCall(VecDestroy(&qexact));
  PetscCall(MatDestroy(&M));
  PetscCall(MatDestroy(&J));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt failures = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  PetscCall(CheckChain(&failures));
  PetscCall(CheckPrescribed(&failures));
  PetscCall(CheckStageHoldsFixed(&failures));
  PetscCall(CheckInexact(&failures));
  PetscCheck(!failures, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " fixed-dof checks failed", failures);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all fixed-dof checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
