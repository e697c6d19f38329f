static const char help[] = "Sets up a TS on the oscillator for the bad-parameter checks of bad_params.sh: every bad\n"
                           "option must stop the program with a PETSc error that names it.\n"
                           "  -plain            give the TS a plain I2Function/I2Jacobian instead of a MechSystem\n"
                           "  -api_theta <th>   call TSTheta2SetTheta(ts, th) after TSSetFromOptions()\n"
                           "  -steps <10>       steps to take (-ts_type etc. as usual)\n";

#include <tsmech.h>

/* the plain second-order residual of the oscillator: F = m a + c v + k q + m g */
typedef struct {
  MechSystem sys;
} Plain;

static PetscErrorCode PlainI2Function(TS ts, PetscReal t, Vec q, Vec v, Vec a, Vec F, void *ctx)
{
  Plain *p = (Plain *)ctx;
  Mat    M;

  PetscFunctionBeginUser;
  (void)ts;
  PetscCall(MechSystemComputeForce(p->sys, t, q, v, F));
  PetscCall(MechSystemGetMass(p->sys, &M));
  PetscCall(MatMultAdd(M, a, F, F));
  PetscFunctionReturn(0);
}

static PetscErrorCode PlainI2Jacobian(TS ts, PetscReal t, Vec q, Vec v, Vec a, PetscReal shiftV, PetscReal shiftA, Mat J, Mat P, void *ctx)
{
  Plain *p = (Plain *)ctx;

  PetscFunctionBeginUser;
  (void)ts;
  (void)a;
  PetscCall(MechSystemComputeOperator(p->sys, t, q, v, 1.0, shiftV, shiftA, P));
  if (J != P) {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  TS        ts;
  Plain     p;
  Vec       q, v, r;
  Mat       J;
  PetscBool plain = PETSC_FALSE, api = PETSC_FALSE;
  PetscReal th    = 0.5;
  PetscInt  steps = 10;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-plain", &plain, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-api_theta", &th, &api));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &steps, NULL));
  PetscCall(MechCreateOscillator(PETSC_COMM_WORLD, &p.sys));
  PetscCall(MechSystemCreateState(p.sys, &q, &v));
  PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
  PetscCall(TSSetType(ts, TSTHETA2));
  if (plain) {
    PetscCall(VecDuplicate(q, &r));
    PetscCall(MechSystemCreateOperator(p.sys, &J));
    PetscCall(TSSetI2Function(ts, r, PlainI2Function, &p));
    PetscCall(TSSetI2Jacobian(ts, J, J, PlainI2Jacobian, &p));
    PetscCall(VecDestroy(&r));
    PetscCall(MatDestroy(&J));
  } else PetscCall(TSMechSetSystem(ts, p.sys));
  PetscCall(TSSetTimeStep(ts, 0.01));
  PetscCall(TSSetMaxSteps(ts, steps));
  PetscCall(TSSetMaxTime(ts, 1e3));
  PetscCall(TSSetFromOptions(ts));
  if (api) PetscCall(TSTheta2SetTheta(ts, th));
  if (plain) PetscCall(TS2SetSolution(ts, q, v));
  else PetscCall(TSMechSetSolution(ts, q, v));
  PetscCall(TSSolve(ts, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "completed %" PetscInt_FMT " steps without error\n", steps));
  PetscCall(TSDestroy(&ts));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MechSystemDestroy(&p.sys));
  PetscCall(PetscFinalize());
  return 0;
}
