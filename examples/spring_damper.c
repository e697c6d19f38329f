static const char help[] = "A mass on a spring with a damper, under gravity (docs/schemes.md §5), built with the MechSystem API\n"
                           "and integrated with any TS type (-ts_type, default midpoint2). Prints the final state and\n"
                           "its error against the exact solution.\n"
                           "  -m <1>      mass\n"
                           "  -k <4>      spring stiffness\n"
                           "  -c <0.5>    damping coefficient (under-damped: c^2 < 4 k m)\n"
                           "  -g <9.81>   gravity, pulling toward -q\n"
                           "  -q0 <1>     initial position\n"
                           "  -v0 <0>     initial velocity\n"
                           "  -error_tol <tol>  exit with an error if the final error exceeds tol (for the test suite)\n"
                           "Time: -ts_dt <0.01>, -ts_max_time <2>; any tsmech or PETSc TS type, e.g.\n"
                           "  ./spring_damper -ts_type cn2       trapezoidal rule in velocity form\n"
                           "  ./spring_damper -ts_type symeuler2 symplectic Euler\n"
                           "  ./spring_damper -ts_type alpha2    PETSc's generalized-alpha on the same I2 form\n"
                           "  ./spring_damper -ts_type cn        PETSc's Crank-Nicolson on the first-order form [q; v]\n";

/*
  The equation, with tsmech's sign convention (the force moved to the left-hand side):

      m q'' + f(q, q') = 0,   f = k q + c q' + m g

  so the spring pulls q back to 0, the damper opposes the velocity and gravity pulls toward -q.
  The rest position is q_e = -m g / k. A MechSystem needs:
    - the mass matrix M (here 1 x 1),
    - the force f(t, q, v),
    - the tangents K = df/dq = k and D = df/dv = c, returned combined as cK K + cD D, with a
      matrix that holds their sparsity,
  and optionally the potential energy (for energy monitors and output) and an exact solution.
  Any TS type then integrates it: tsmech's second-order types and PETSc's TSALPHA2 use the form
  M a + f = 0 directly; PETSc's first-order types get [q; v] automatically.
*/
#include <tsmech.h>

typedef struct {
  PetscReal m, k, c, g;
  PetscReal q0, v0;
} SpringDamper;

/* f(t, q, v) = k q + c v + m g. The state vectors have one entry (this example runs on one rank). */
static PetscErrorCode Force(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
{
  const SpringDamper *p = (const SpringDamper *)ctx;
  const PetscScalar  *qa, *va;
  PetscScalar        *fa;

  PetscFunctionBeginUser;
  (void)sys;
  (void)t;
  PetscCall(VecGetArrayRead(q, &qa));
  PetscCall(VecGetArrayRead(v, &va));
  PetscCall(VecGetArray(f, &fa));
  fa[0] = p->k * qa[0] + p->c * va[0] + p->m * p->g;
  PetscCall(VecRestoreArray(f, &fa));
  PetscCall(VecRestoreArrayRead(v, &va));
  PetscCall(VecRestoreArrayRead(q, &qa));
  PetscFunctionReturn(0);
}

/* J = cK K + cD D. The integrators choose cK and cD (e.g. M + theta tau D + theta^2 tau^2 K is
   assembled as cK = theta^2 tau^2, cD = theta tau plus the mass term they add themselves). J
   arrives zeroed: add the values and assemble. */
static PetscErrorCode Tangent(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  const SpringDamper *p = (const SpringDamper *)ctx;

  PetscFunctionBeginUser;
  (void)sys;
  (void)t;
  (void)q;
  (void)v;
  PetscCall(MatSetValue(J, 0, 0, cK * p->k + cD * p->c, ADD_VALUES));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* V(q) = k q^2 / 2 + m g q; the kinetic energy m v^2 / 2 is computed by the system from M. */
static PetscErrorCode Potential(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *V, void *ctx)
{
  const SpringDamper *p = (const SpringDamper *)ctx;
  const PetscScalar  *qa;

  PetscFunctionBeginUser;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(VecGetArrayRead(q, &qa));
  *V = 0.5 * p->k * qa[0] * qa[0] + p->m * p->g * qa[0];
  PetscCall(VecRestoreArrayRead(q, &qa));
  PetscFunctionReturn(0);
}

/*
  Under-damped motion about the rest position: with x = q - q_e, a = c / (2 m) and
  w = sqrt(k / m - a^2),
      x(t) = e^{-a t} (x0 cos wt + (v0 + a x0) sin(wt) / w)
      v(t) = e^{-a t} (v0 cos wt - (a v0 + (a^2 + w^2) x0) sin(wt) / w)
*/
static PetscErrorCode Exact(MechSystem sys, PetscReal t, Vec q, Vec v, void *ctx)
{
  const SpringDamper *p  = (const SpringDamper *)ctx;
  const PetscReal     qe = -p->m * p->g / p->k, x0 = p->q0 - qe;
  const PetscReal     a = p->c / (2 * p->m), w = PetscSqrtReal(p->k / p->m - a * a);
  const PetscReal     decay = PetscExpReal(-a * t), C = PetscCosReal(w * t), S = PetscSinReal(w * t) / w;

  PetscFunctionBeginUser;
  (void)sys;
  PetscCall(VecSetValue(q, 0, qe + decay * (x0 * C + (p->v0 + a * x0) * S), INSERT_VALUES));
  PetscCall(VecSetValue(v, 0, decay * (p->v0 * C - (a * p->v0 + (a * a + w * w) * x0) * S), INSERT_VALUES));
  PetscCall(VecAssemblyBegin(q));
  PetscCall(VecAssemblyEnd(q));
  PetscCall(VecAssemblyBegin(v));
  PetscCall(VecAssemblyEnd(v));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  SpringDamper p      = {1.0, 4.0, 0.5, 9.81, 1.0, 0.0};
  PetscReal    errtol = -1, t, kin, pot, eq, ev;
  PetscMPIInt  size;
  MechSystem   sys;
  Mat          M, J;
  Vec          q, v, qe, ve;
  TS           ts;
  const char  *type;
  PetscInt     steps;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_WRONG_MPI_SIZE, "This example has one degree of freedom: run it on one rank");
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Spring-damper options", "");
  PetscCall(PetscOptionsReal("-m", "Mass", "", p.m, &p.m, NULL));
  PetscCall(PetscOptionsReal("-k", "Spring stiffness", "", p.k, &p.k, NULL));
  PetscCall(PetscOptionsReal("-c", "Damping coefficient", "", p.c, &p.c, NULL));
  PetscCall(PetscOptionsReal("-g", "Gravity, pulling toward -q", "", p.g, &p.g, NULL));
  PetscCall(PetscOptionsReal("-q0", "Initial position", "", p.q0, &p.q0, NULL));
  PetscCall(PetscOptionsReal("-v0", "Initial velocity", "", p.v0, &p.v0, NULL));
  PetscCall(PetscOptionsReal("-error_tol", "Fail if the final error exceeds this (negative: never)", "", errtol, &errtol, NULL));
  PetscOptionsEnd();
  PetscCheck(p.m > 0 && p.k > 0 && p.c >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Need m > 0, k > 0, c >= 0");
  /* the closed form below is the under-damped one */
  PetscCheck(p.c * p.c < 4 * p.k * p.m, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "This example needs an under-damped spring: c^2 < 4 k m");

  /* The mass matrix: 1 x 1, assembled. The system keeps a reference, so we can drop ours. */
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, 1, 1, 1, 1, 1, NULL, 0, NULL, &M));
  PetscCall(MatSetValue(M, 0, 0, p.m, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  /* The tangent matrix only gives the nonzero pattern of K + D + M: here the same single entry
     as M (duplicated without its value, the entry stays in the assembled pattern). */
  PetscCall(MatDuplicate(M, MAT_DO_NOT_COPY_VALUES, &J));
  /* state vectors with the layout of M */
  PetscCall(MatCreateVecs(M, &q, &v));

  PetscCall(MechSystemCreate(PETSC_COMM_WORLD, &sys));
  PetscCall(MechSystemSetMass(sys, M));
  PetscCall(MechSystemSetForce(sys, Force, &p));
  /* hasdamping tells the integrators whether D is worth asking for */
  PetscCall(MechSystemSetTangent(sys, J, p.c > 0 ? PETSC_TRUE : PETSC_FALSE, Tangent, &p));
  PetscCall(MechSystemSetPotential(sys, Potential, &p));
  PetscCall(MechSystemSetExactSolution(sys, Exact, &p));
  /* f is affine in (q, v): K and D are constant, and the implicit integrators need one linear
     solve per step instead of a Newton iteration */
  PetscCall(MechSystemSetLinear(sys, PETSC_TRUE));
  PetscCall(MatDestroy(&M));
  PetscCall(MatDestroy(&J));

  PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
  PetscCall(TSSetType(ts, TSMIDPOINT2));
  /* before TSSetFromOptions(): the system provides the residual M a + f and its Jacobian */
  PetscCall(TSMechSetSystem(ts, sys));
  PetscCall(TSSetTimeStep(ts, 0.01));
  PetscCall(TSSetMaxTime(ts, 2.0));
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetFromOptions(ts));

  /* after TSSetFromOptions(), once the type is known: second-order types get (q, v), first-order
     types the stacked state [q; v] */
  PetscCall(VecSet(q, p.q0));
  PetscCall(VecSet(v, p.v0));
  PetscCall(TSMechSetSolution(ts, q, v));
  PetscCall(MechSystemComputeEnergy(sys, 0.0, q, v, &kin, &pot));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "initial energy %.10g\n", (double)(kin + pot)));

  PetscCall(TSSolve(ts, NULL));

  PetscCall(TSMechGetSolution(ts, q, v));
  PetscCall(TSGetSolveTime(ts, &t));
  PetscCall(TSGetStepNumber(ts, &steps));
  PetscCall(TSGetType(ts, &type));
  PetscCall(VecDuplicate(q, &qe));
  PetscCall(VecDuplicate(v, &ve));
  PetscCall(MechSystemComputeExactSolution(sys, t, qe, ve, NULL));
  PetscCall(MechSystemComputeEnergy(sys, t, q, v, &kin, &pot));
  {
    const PetscScalar *a, *b, *ea, *eb;
    PetscCall(VecGetArrayRead(q, &a));
    PetscCall(VecGetArrayRead(v, &b));
    PetscCall(VecGetArrayRead(qe, &ea));
    PetscCall(VecGetArrayRead(ve, &eb));
    eq = PetscAbsScalar(a[0] - ea[0]);
    ev = PetscAbsScalar(b[0] - eb[0]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, %" PetscInt_FMT " steps to t = %g\n", type, steps, (double)t));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  q = %.10f   exact %.10f   error %.3e\n", (double)PetscRealPart(a[0]), (double)PetscRealPart(ea[0]), (double)eq));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  v = %.10f   exact %.10f   error %.3e\n", (double)PetscRealPart(b[0]), (double)PetscRealPart(eb[0]), (double)ev));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  energy %.10g (the damper dissipates it)\n", (double)(kin + pot)));
    PetscCall(VecRestoreArrayRead(ve, &eb));
    PetscCall(VecRestoreArrayRead(qe, &ea));
    PetscCall(VecRestoreArrayRead(v, &b));
    PetscCall(VecRestoreArrayRead(q, &a));
  }
  PetscCheck(errtol < 0 || PetscMax(eq, ev) <= errtol, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "Error %g exceeds -error_tol %g", (double)PetscMax(eq, ev), (double)errtol);

  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&qe));
  PetscCall(VecDestroy(&ve));
  PetscCall(TSDestroy(&ts));
  PetscCall(MechSystemDestroy(&sys));
  PetscCall(PetscFinalize());
  return 0;
}
