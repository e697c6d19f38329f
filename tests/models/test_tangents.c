static const char help[] = "Checks the models' tangents K = df/dq and D = df/dv, potentials and exact solutions against finite differences.\n";

/*
  For each model configuration, at a random state near the initial one and along random
  directions w (zero on fixed dofs, whose rows and columns the system decouples):

    K w   vs  (f(q + h w, v) - f(q - h w, v)) / 2h
    D w   vs  (f(q, v + h w) - f(q, v - h w)) / 2h
    f.w   vs  (V(q + h w) - V(q - h w)) / 2h        at v = 0, where only conservative forces act

  and, where the model has an exact solution, M q'' + f = 0 and q' = v along it (fourth-order
  differences in time), q(0) equal to the initial state, and its invariants constant along it.
  Under MPI, the chain's force is also compared bit for bit with the same chain on one rank.
  For systems marked linear, the same differences with step 1 must match to round-off.
  Exits non-zero when any check fails.
*/
#include "fdcheck.h"
#include "testutil.h"

#define TOL 1e-6

typedef struct {
  const char *label;
  const char *model;
  const char *options;   /* inserted before creation, cleared afterwards */
  PetscReal   amplitude; /* size of the random perturbation of q */
} Config;

static const Config configs[] = {
    {"oscillator",                 "oscillator", "",                                                   0.1 },
    {"oscillator underdamped",     "oscillator", "-oscillator_c 1.5 -oscillator_v0 0.5",               0.1 },
    {"oscillator critical",        "oscillator", "-oscillator_c 4 -oscillator_v0 -2",                  0.1 },
    {"oscillator overdamped",      "oscillator", "-oscillator_c 10 -oscillator_g 1 -oscillator_q0 -3", 0.1 },
    {"pair linear",                "pair",       "",                                                   0.1 },
    {"pair linear gravity",        "pair",       "-pair_g 9.81 -pair_x1 1,0.5,0.25",                   0.1 },
    {"pair rest length damped",    "pair",       "-pair_L 0.7 -pair_c 0.5 -pair_g 9.81",               0.1 },
    {"chain linear undamped",      "chain",      "-chain_n 7 -chain_linear -chain_c 0 -chain_drag 0",  0.03},
    {"chain linear damped",        "chain",      "-chain_n 7 -chain_linear -chain_c 2",                0.03},
    {"chain nonlinear damped",     "chain",      "-chain_n 7 -chain_c 2 -chain_stretch 1.1",           0.03},
    {"chain nonlinear compressed", "chain",      "-chain_n 7 -chain_c 0.5 -chain_stretch 0.8",         0.03},
    {"kepler",                     "kepler",     "",                                                   0.05},
    {"kepler eccentric",           "kepler",     "-kepler_e 0.9",                                      0.01},
};

/*
  Along the exact solution: residual |M q'' + f| / |M q''| and |q' - v| / |v| from fourth-order
  central differences, summed over a few times; |q(0) - q0|; drift of every invariant.
*/
static PetscErrorCode CheckExact(MechSystem sys, PetscBool *has, PetscReal *ode, PetscReal *init, PetscReal *inv)
{
  const PetscReal times[] = {0.3, 0.7, 1.1, 2.0, 4.5}, h = 1e-3;
  const PetscReal c2[5] = {-1.0 / 12, 4.0 / 3, -5.0 / 2, 4.0 / 3, -1.0 / 12}, c1[5] = {1.0 / 12, -2.0 / 3, 0, 2.0 / 3, -1.0 / 12};
  Mat             M;
  Vec             q0, v0, q, v, qs, vs, a, va, Ma, f;
  PetscReal       rsum = 0, asum = 0, dvsum = 0, vsum = 0, nrm, nrm0, l0, l;
  PetscInt        it, j, i, ninv;

  PetscFunctionBegin;
  *ode = *init = *inv = 0;
  PetscCall(MechSystemCreateState(sys, &q0, &v0));
  PetscCall(VecDuplicate(q0, &q));
  PetscCall(VecDuplicate(q0, &v));
  PetscCall(MechSystemComputeExactSolution(sys, 0.0, q, v, has));
  if (!*has) {
    PetscCall(VecDestroy(&q0));
    PetscCall(VecDestroy(&v0));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscFunctionReturn(0);
  }
  PetscCall(VecNorm(q0, NORM_2, &nrm0));
  PetscCall(VecAXPY(q, -1.0, q0));
  PetscCall(VecNorm(q, NORM_2, &nrm));
  *init = nrm / (1 + nrm0);
  PetscCall(VecNorm(v0, NORM_2, &nrm0));
  PetscCall(VecAXPY(v, -1.0, v0));
  PetscCall(VecNorm(v, NORM_2, &nrm));
  *init = PetscMax(*init, nrm / (1 + nrm0));

  PetscCall(MechSystemGetMass(sys, &M));
  PetscCall(VecDuplicate(q0, &qs));
  PetscCall(VecDuplicate(q0, &vs));
  PetscCall(VecDuplicate(q0, &a));
  PetscCall(VecDuplicate(q0, &va));
  PetscCall(VecDuplicate(q0, &Ma));
  PetscCall(VecDuplicate(q0, &f));
  for (it = 0; it < (PetscInt)(sizeof(times) / sizeof(times[0])); it++) {
    PetscCall(VecSet(a, 0.0));
    PetscCall(VecSet(va, 0.0));
    for (j = 0; j < 5; j++) {
      PetscCall(MechSystemComputeExactSolution(sys, times[it] + (j - 2) * h, qs, vs, NULL));
      PetscCall(VecAXPY(a, c2[j] / (h * h), qs));
      PetscCall(VecAXPY(va, c1[j] / h, qs));
    }
    PetscCall(MechSystemComputeExactSolution(sys, times[it], q, v, NULL));
    PetscCall(MechSystemComputeForce(sys, times[it], q, v, f));
    PetscCall(MatMult(M, a, Ma));
    PetscCall(VecNorm(Ma, NORM_2, &nrm));
    asum += nrm * nrm;
    PetscCall(VecAXPY(Ma, 1.0, f));
    PetscCall(VecNorm(Ma, NORM_2, &nrm));
    rsum += nrm * nrm;
    PetscCall(VecNorm(v, NORM_2, &nrm));
    vsum += nrm * nrm;
    PetscCall(VecAXPY(va, -1.0, v));
    PetscCall(VecNorm(va, NORM_2, &nrm));
    dvsum += nrm * nrm;
  }
  *ode = PetscMax(PetscSqrtReal(rsum / asum), PetscSqrtReal(dvsum / vsum));

  PetscCall(MechSystemGetNumInvariants(sys, &ninv));
  for (i = 0; i < ninv; i++) {
    PetscCall(MechSystemComputeInvariant(sys, i, 0.0, q0, v0, NULL, &l0));
    for (it = 0; it < (PetscInt)(sizeof(times) / sizeof(times[0])); it++) {
      PetscCall(MechSystemComputeExactSolution(sys, times[it], q, v, NULL));
      PetscCall(MechSystemComputeInvariant(sys, i, times[it], q, v, NULL, &l));
      *inv = PetscMax(*inv, PetscAbsReal(l - l0) / PetscMax(PetscAbsReal(l0), 1));
    }
  }
  PetscCall(VecDestroy(&q0));
  PetscCall(VecDestroy(&v0));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&qs));
  PetscCall(VecDestroy(&vs));
  PetscCall(VecDestroy(&a));
  PetscCall(VecDestroy(&va));
  PetscCall(VecDestroy(&Ma));
  PetscCall(VecDestroy(&f));
  PetscFunctionReturn(0);
}

/*
  The same model on one rank, at the same state, must give bit-identical forces: the models
  promise results independent of the partition. Returns max |f_parallel - f_serial|.
*/
static PetscErrorCode CheckPartitionIndependence(const Config *cfg, MechSystem sys, Vec q, Vec v, PetscReal *diff)
{
  MechSystem         self;
  Vec                f, qs, vs, fs, qall, vall, fall;
  VecScatter         sct;
  const PetscScalar *a;
  const PetscScalar *b;
  PetscScalar       *c;
  PetscInt           n, i;
  PetscReal          d = 0;

  PetscFunctionBegin;
  PetscCall(MechCreateModel(PETSC_COMM_SELF, cfg->model, &self));
  PetscCall(MechSystemCreateState(self, &qs, &vs));
  PetscCall(VecDuplicate(qs, &fs));
  PetscCall(VecDuplicate(q, &f));
  PetscCall(MechSystemComputeForce(sys, 0.25, q, v, f));
  PetscCall(VecScatterCreateToAll(q, &sct, &qall));
  PetscCall(VecDuplicate(qall, &vall));
  PetscCall(VecDuplicate(qall, &fall));
  PetscCall(VecScatterBegin(sct, q, qall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sct, q, qall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterBegin(sct, v, vall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sct, v, vall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterBegin(sct, f, fall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sct, f, fall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetLocalSize(qs, &n));
  PetscCall(VecGetArrayRead(qall, &a));
  PetscCall(VecGetArray(qs, &c));
  for (i = 0; i < n; i++) c[i] = a[i];
  PetscCall(VecRestoreArray(qs, &c));
  PetscCall(VecRestoreArrayRead(qall, &a));
  PetscCall(VecGetArrayRead(vall, &a));
  PetscCall(VecGetArray(vs, &c));
  for (i = 0; i < n; i++) c[i] = a[i];
  PetscCall(VecRestoreArray(vs, &c));
  PetscCall(VecRestoreArrayRead(vall, &a));
  PetscCall(MechSystemComputeForce(self, 0.25, qs, vs, fs));
  PetscCall(VecGetArrayRead(fall, &a));
  PetscCall(VecGetArrayRead(fs, &b));
  for (i = 0; i < n; i++) d = PetscMax(d, PetscAbsScalar(a[i] - b[i]));
  PetscCall(VecRestoreArrayRead(fs, &b));
  PetscCall(VecRestoreArrayRead(fall, &a));
  PetscCall(MPIU_Allreduce(&d, diff, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)q)));
  PetscCall(VecScatterDestroy(&sct));
  PetscCall(VecDestroy(&qall));
  PetscCall(VecDestroy(&vall));
  PetscCall(VecDestroy(&fall));
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&qs));
  PetscCall(VecDestroy(&vs));
  PetscCall(VecDestroy(&fs));
  PetscCall(MechSystemDestroy(&self));
  PetscFunctionReturn(0);
}

/* Error paths: an unknown model name and an out-of-range option must return the documented codes. */
static PetscErrorCode CheckErrors(PetscInt *nfail)
{
  MechSystem     sys = NULL;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MechCreateModel(PETSC_COMM_WORLD, "nosuchmodel", &sys);
  PetscCall(PetscPopErrorHandler());
  if (ierr != PETSC_ERR_ARG_UNKNOWN_TYPE) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL unknown model name returned %d, expected PETSC_ERR_ARG_UNKNOWN_TYPE\n", (int)ierr));
    (*nfail)++;
  }
  PetscCall(PetscOptionsSetValue(NULL, "-chain_k", "-1"));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MechCreateModel(PETSC_COMM_WORLD, "chain", &sys);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscOptionsClearValue(NULL, "-chain_k"));
  if (ierr != PETSC_ERR_ARG_OUTOFRANGE) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL -chain_k -1 returned %d, expected PETSC_ERR_ARG_OUTOFRANGE\n", (int)ierr));
    (*nfail)++;
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscRandom rnd;
  PetscInt    c, nfail = 0;
  PetscMPIInt size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(FDRandomCreate(PETSC_COMM_WORLD, 20240601, &rnd));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-28s %9s %9s %9s %9s %9s %9s %9s %9s\n", "model", "K", "D", "linear", "potential", "exact ode", "exact t=0", "invariant", "partition"));
  for (c = 0; c < (PetscInt)(sizeof(configs) / sizeof(configs[0])); c++) {
    const Config *cfg = &configs[c];
    MechSystem    sys;
    Vec           q, v, dq;
    PetscReal     errK, errD, errV, errL, ode = 0, init = 0, inv = 0, part = 0;
    PetscBool     has, ok, chain, linear;
    char          lin[16] = "-";

    PetscCall(PetscOptionsInsertString(NULL, cfg->options));
    PetscCall(MechCreateModel(PETSC_COMM_WORLD, cfg->model, &sys));
    PetscCall(MechSystemCreateState(sys, &q, &v));
    /* a random state near the initial one; v random too, so velocity-dependent terms are active */
    PetscCall(VecDuplicate(q, &dq));
    PetscCall(VecSetRandom(dq, rnd));
    PetscCall(VecAXPY(q, cfg->amplitude, dq));
    PetscCall(VecSetRandom(v, rnd));
    PetscCall(MechSystemApplyFixed(sys, q, v));

    PetscCall(FDCheckTangents(sys, q, v, rnd, 1e-6, 1e-6, &errK, &errD, &linear, &errL, NULL));
    if (linear) PetscCall(PetscSNPrintf(lin, sizeof(lin), "%.2e", (double)errL));
    PetscCall(FDCheckPotential(sys, q, rnd, 1e-6, 2, &errV));
    PetscCall(CheckExact(sys, &has, &ode, &init, &inv));
    PetscCall(PetscStrcmp(cfg->model, "chain", &chain));
    if (chain && size > 1) PetscCall(CheckPartitionIndependence(cfg, sys, q, v, &part));

    ok = errK <= TOL && errD <= TOL && errL <= 1e-10 && errV <= TOL && ode <= TOL && init <= 1e-12 && inv <= 1e-10 && part == 0 ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-28s %9.2e %9.2e %9s %9.2e %9.2e %9.2e %9.2e %9.2e %s\n", cfg->label, (double)errK, (double)errD, lin, (double)errV, (double)ode, (double)init, (double)inv, (double)part, ok ? "ok" : "FAIL"));
    if (!ok) nfail++;

    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(VecDestroy(&dq));
    PetscCall(MechSystemDestroy(&sys));
    PetscCall(TestClearOptions(cfg->options));
  }
  PetscCall(CheckErrors(&nfail));
  PetscCall(PetscRandomDestroy(&rnd));
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " check(s) failed (tolerance %g)\n", nfail, (double)TOL));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
