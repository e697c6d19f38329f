static const char help[] = "The FPU-beta chain of examples/python/fpu_chain.py in C: the oracle of the Python-defined model\n"
                           "(tests/python/test_fpu.py). Options as the example's: -fpu_n, -fpu_m, -fpu_k, -fpu_beta, -fpu_c,\n"
                           "-fpu_amplitude, -output FILE.h5, -output_every N and the TS's options.\n";

/*
  N particles between two walls on a 1-D DMDA, springs of potential k d^2/2 + beta d^4/4, a
  damper c on every particle; the same name ("fpu"), parameters, initial state and defaults as
  the Python example, so that the two output files can be compared entry by entry.
*/
#include <tsmech.h>
#include <petscdmda.h>

typedef struct {
  PetscInt  n;
  PetscReal m, k, beta, c, amplitude;
  DM        da;
  Vec       ql;
} FPU;

/* The stretch of the spring between particles i-1 and i (i = 0 and i = n: the walls) */
static PetscReal Stretch(const FPU *p, const PetscScalar *u, PetscInt i)
{
  PetscReal left = i > 0 ? u[i - 1] : 0, right = i < p->n ? u[i] : 0;

  return right - left;
}

/* f_i = phi'(d_i) - phi'(d_{i+1}) + c v_i, d_i = u_i - u_{i-1} */
static PetscErrorCode Force(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
{
  FPU               *p = (FPU *)ctx;
  const PetscScalar *u, *va;
  PetscScalar       *fa;
  PetscInt           xs, xm;

  PetscFunctionBeginUser;
  (void)sys;
  (void)t;
  PetscCall(DMGlobalToLocal(p->da, q, INSERT_VALUES, p->ql));
  PetscCall(DMDAVecGetArrayRead(p->da, p->ql, &u));
  PetscCall(VecGetArrayRead(v, &va));
  PetscCall(VecGetArray(f, &fa));
  PetscCall(DMDAGetCorners(p->da, &xs, NULL, NULL, &xm, NULL, NULL));
  for (PetscInt i = xs; i < xs + xm; i++) {
    PetscReal dl = Stretch(p, u, i), dr = Stretch(p, u, i + 1);
    PetscReal pl = p->k * dl + p->beta * dl * dl * dl, pr = p->k * dr + p->beta * dr * dr * dr;

    fa[i - xs] = pl - pr + p->c * va[i - xs];
  }
  PetscCall(VecRestoreArray(f, &fa));
  PetscCall(VecRestoreArrayRead(v, &va));
  PetscCall(DMDAVecRestoreArrayRead(p->da, p->ql, &u));
  PetscFunctionReturn(0);
}

/* J = cK K + cD c I, K tridiagonal with the springs' stiffnesses k + 3 beta d^2 */
static PetscErrorCode Tangent(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  FPU               *p = (FPU *)ctx;
  const PetscScalar *u;
  PetscInt           xs, xm;

  PetscFunctionBeginUser;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(DMGlobalToLocal(p->da, q, INSERT_VALUES, p->ql));
  PetscCall(DMDAVecGetArrayRead(p->da, p->ql, &u));
  PetscCall(DMDAGetCorners(p->da, &xs, NULL, NULL, &xm, NULL, NULL));
  for (PetscInt i = xs; i < xs + xm; i++) {
    PetscReal dl = Stretch(p, u, i), dr = Stretch(p, u, i + 1);
    PetscReal sl = p->k + 3 * p->beta * dl * dl, sr = p->k + 3 * p->beta * dr * dr;

    PetscCall(MatSetValue(J, i, i, cK * (sl + sr) + cD * p->c, ADD_VALUES));
    if (i > 0) PetscCall(MatSetValue(J, i, i - 1, -cK * sl, ADD_VALUES));
    if (i < p->n - 1) PetscCall(MatSetValue(J, i, i + 1, -cK * sr, ADD_VALUES));
  }
  PetscCall(DMDAVecRestoreArrayRead(p->da, p->ql, &u));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* The springs to the left of the owned particles and the right wall's, summed over the ranks */
static PetscErrorCode Potential(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *V, void *ctx)
{
  FPU               *p = (FPU *)ctx;
  const PetscScalar *u;
  PetscInt           xs, xm;
  PetscReal          mine = 0;

  PetscFunctionBeginUser;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(DMGlobalToLocal(p->da, q, INSERT_VALUES, p->ql));
  PetscCall(DMDAVecGetArrayRead(p->da, p->ql, &u));
  PetscCall(DMDAGetCorners(p->da, &xs, NULL, NULL, &xm, NULL, NULL));
  for (PetscInt i = xs; i <= xs + xm; i++) {
    PetscReal d = Stretch(p, u, i);

    if (i < xs + xm || i == p->n) mine += 0.5 * p->k * d * d + 0.25 * p->beta * d * d * d * d;
  }
  PetscCall(DMDAVecRestoreArrayRead(p->da, p->ql, &u));
  PetscCall(MPIU_Allreduce(&mine, V, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)p->da)));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  FPU               p = {64, 1.0, 1.0, 1.0, 0.0, 1.0, NULL, NULL};
  MechSystem        sys;
  MechOutput        out = NULL;
  TS                ts;
  Mat               M, J;
  Vec               q, v, mass;
  PetscInt          xs, xm, every = 10;
  PetscScalar      *qa;
  char              output[PETSC_MAX_PATH_LEN] = "";
  PetscBool         hasout;
  TSConvergedReason reason;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "FPU chain options", "");
  PetscCall(PetscOptionsInt("-fpu_n", "Number of particles", "", p.n, &p.n, NULL));
  PetscCall(PetscOptionsReal("-fpu_m", "Mass of a particle", "", p.m, &p.m, NULL));
  PetscCall(PetscOptionsReal("-fpu_k", "Linear spring stiffness", "", p.k, &p.k, NULL));
  PetscCall(PetscOptionsReal("-fpu_beta", "Quartic spring coefficient", "", p.beta, &p.beta, NULL));
  PetscCall(PetscOptionsReal("-fpu_c", "Damping of every particle", "", p.c, &p.c, NULL));
  PetscCall(PetscOptionsReal("-fpu_amplitude", "Amplitude of the initial displacement", "", p.amplitude, &p.amplitude, NULL));
  PetscCall(PetscOptionsString("-output", "HDF5 output file", "MechOutputCreate", output, output, sizeof(output), &hasout));
  PetscCall(PetscOptionsInt("-output_every", "Write the fields every N steps", "MechOutputCreate", every, &every, NULL));
  PetscOptionsEnd();
  PetscCheck(p.n >= 2 && p.m > 0 && p.k > 0 && p.beta >= 0 && p.c >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-fpu_n must be at least 2, -fpu_m and -fpu_k positive, -fpu_beta and -fpu_c not negative");

  PetscCall(DMDACreate1d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, p.n, 1, 1, NULL, &p.da));
  PetscCall(DMSetUp(p.da));
  PetscCall(DMCreateLocalVector(p.da, &p.ql));
  PetscCall(MechSystemCreate(PETSC_COMM_WORLD, &sys));
  PetscCall(MechSystemSetDM(sys, p.da));
  /* the lumped mass, as tsmech.System builds it from a number: an AIJ diagonal */
  PetscCall(DMCreateGlobalVector(p.da, &mass));
  PetscCall(VecSet(mass, p.m));
  PetscCall(VecGetLocalSize(mass, &xm));
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, xm, xm, p.n, p.n, 1, NULL, 0, NULL, &M));
  PetscCall(MatDiagonalSet(M, mass, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MechSystemSetMass(sys, M));
  PetscCall(MechSystemSetForce(sys, Force, &p));
  PetscCall(DMCreateMatrix(p.da, &J));
  PetscCall(MechSystemSetTangent(sys, J, p.c > 0 ? PETSC_TRUE : PETSC_FALSE, Tangent, &p));
  PetscCall(MechSystemSetPotential(sys, Potential, &p));
  PetscCall(MechSystemSetModelName(sys, "fpu"));
  PetscCall(MechSystemAddParameter(sys, "n", (PetscReal)p.n));
  PetscCall(MechSystemAddParameter(sys, "m", p.m));
  PetscCall(MechSystemAddParameter(sys, "k", p.k));
  PetscCall(MechSystemAddParameter(sys, "beta", p.beta));
  PetscCall(MechSystemAddParameter(sys, "c", p.c));
  PetscCall(MechSystemAddParameter(sys, "amplitude", p.amplitude));
  PetscCall(DMCreateGlobalVector(p.da, &q));
  PetscCall(VecDuplicate(q, &v));
  PetscCall(VecSet(v, 0));
  PetscCall(DMDAGetCorners(p.da, &xs, NULL, NULL, &xm, NULL, NULL));
  PetscCall(VecGetArray(q, &qa));
  for (PetscInt i = xs; i < xs + xm; i++) {
    PetscReal x = (PetscReal)(i + 1) / (PetscReal)(p.n + 1);

    qa[i - xs] = p.amplitude * (PetscSinReal(PETSC_PI * x) + 0.5 * PetscSinReal(3 * PETSC_PI * x));
  }
  PetscCall(VecRestoreArray(q, &qa));
  PetscCall(MechSystemSetInitialState(sys, q, v));

  /* the example's defaults */
  PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
  PetscCall(TSSetType(ts, TSMIDPOINT2));
  PetscCall(TSMechSetSystem(ts, sys));
  PetscCall(TSSetTimeStep(ts, 0.05));
  PetscCall(TSSetMaxSteps(ts, 200));
  PetscCall(TSSetMaxTime(ts, 1e30));
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(TSMechSetSolution(ts, q, v));
  PetscCall(TSMechSetGuard(ts, NULL));
  if (hasout) {
    PetscCall(MechOutputCreate(sys, ts, output, every, &out));
    PetscCall(TSMonitorSet(ts, TSMonitorMechOutput, out, NULL));
  }
  PetscCall(TSSolve(ts, NULL));
  PetscCall(TSGetConvergedReason(ts, &reason));
  PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "The integration failed: %s", TSConvergedReasons[reason]);
  if (out) {
    PetscCall(MechOutputClose(out, ts));
    PetscCall(MechOutputDestroy(&out));
  }
  PetscCall(TSDestroy(&ts));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&mass));
  PetscCall(VecDestroy(&p.ql));
  PetscCall(MatDestroy(&M));
  PetscCall(MatDestroy(&J));
  PetscCall(MechSystemDestroy(&sys));
  PetscCall(DMDestroy(&p.da));
  PetscCall(PetscFinalize());
  return 0;
}
