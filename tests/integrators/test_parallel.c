static const char help[] = "Same results on any number of MPI ranks: theta2 (one-leg and endpoint), the linearized mode,\n"
                           "symeuler2, gauss2 (s = 2, 3) and discgrad2 on a nonlinear 3-D chain. The final states are gathered to rank 0\n"
                           "(VecScatterCreateToZero) and written to, or compared with, a text reference file.\n"
                           "  -ref <file>     reference file\n"
                           "  -write          write the reference instead of comparing\n"
                           "  -tol <1e-10>    largest relative difference accepted\n"
                           "  -n <200> -steps <40> -dt <1e-3>; model options (-chain_k, ...) are passed on\n";

#include "integ.h"

/*
  Only stable variants are compared: some linearized variants (theta = 1/2 with the predictor or
  extrapolating guesses, theta = 1 with the extrapolate guess) amplify perturbations on this
  chain, and with them round-off differences between partitions, which would make the
  comparison a test of the amplification rather than of the parallel implementation.
*/

static const char *const cases[][2] = {
    {"theta2",    "-ts_theta_theta 0.5"                                                                            },
    {"theta2",    "-ts_theta_theta 0.5 -ts_theta_endpoint"                                                         },
    {"theta2",    "-ts_theta_theta 1 -ts_theta_initial_guess_extrapolate"                                          },
    {"theta2",    "-ts_theta_theta 1 -ts_theta_linearized -ts_theta_linearized_guess velocity"                     },
    {"theta2",    "-ts_theta_theta 0.5 -ts_theta_endpoint -ts_theta_linearized -ts_theta_linearized_guess velocity"},
    {"beuler2",   "-ts_theta_linearized -ts_theta_linearized_guess predictor_extrapolate"                          },
    {"beuler2",   "-ts_theta_linearized -ts_theta_linearized_guess zero"                                           },
    {"symeuler2", ""                                                                                               },
    {"gauss2",    "-ts_gauss2_stages 2"                                                                            },
    {"gauss2",    "-ts_gauss2_stages 3 -ts_gauss2_matrix_free"                                                     },
    {"gauss2",    "-ts_gauss2_stages 3 -ts_gauss2_direct_max 100000"                                               },
    {"discgrad2", ""                                                                                               },
    {"discgrad2", "-ts_discgrad2_jacobian mf"                                                                      },
};

/* The final (q, v) on rank 0 as one array [q; v] (length 2N; NULL elsewhere). */
static PetscErrorCode GatherToZero(Vec q, Vec v, PetscInt *N, PetscReal **a)
{
  Vec         x[2] = {q, v};
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)q), &rank));
  PetscCall(VecGetSize(q, N));
  *a = NULL;
  if (rank == 0) PetscCall(PetscMalloc1(2 * *N, a));
  for (PetscInt k = 0; k < 2; k++) {
    VecScatter         sc;
    Vec                z;
    const PetscScalar *za;

    PetscCall(VecScatterCreateToZero(x[k], &sc, &z));
    PetscCall(VecScatterBegin(sc, x[k], z, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(sc, x[k], z, INSERT_VALUES, SCATTER_FORWARD));
    if (rank == 0) {
      PetscCall(VecGetArrayRead(z, &za));
      for (PetscInt i = 0; i < *N; i++) (*a)[k * *N + i] = PetscRealPart(za[i]);
      PetscCall(VecRestoreArrayRead(z, &za));
    }
    PetscCall(VecScatterDestroy(&sc));
    PetscCall(VecDestroy(&z));
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  MechSystem  sys;
  PetscInt    n = 200, steps = 40, failures = 0, N = 0;
  PetscReal   dt = 1e-3, tol = 1e-10, worst = 0;
  PetscBool   write                   = PETSC_FALSE;
  char        ref[PETSC_MAX_PATH_LEN] = "", model[256];
  PetscMPIInt rank, size;
  FILE       *fp     = NULL;
  const char *solver = "-snes_rtol 1e-13 -snes_atol 1e-15 -ksp_type gmres -pc_type jacobi -ksp_rtol 1e-14 -ksp_atol 1e-50 -ksp_max_it 1000";

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-ref", ref, sizeof(ref), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-write", &write, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &steps, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-dt", &dt, NULL));
  TestCheck(comm, ref[0], "Give the reference file with -ref");
  /* The model options of the command line (e.g. -chain_k for the negative control) stay in the
     database and win over nothing here: only -chain_n, -chain_stretch are set by the test */
  PetscCall(PetscSNPrintf(model, sizeof(model), "-chain_n %" PetscInt_FMT " -chain_stretch 1.05 -chain_c 0.2", n));
  PetscCall(IntegCreateModel(comm, "chain", model, &sys));
  PetscCall(IntegKickChain(sys, n, 5));
  if (rank == 0) {
    fp = fopen(ref, write ? "w" : "r");
    TestCheck(PETSC_COMM_SELF, fp, "Cannot open the reference file %s", ref);
  }
  PetscCall(PetscPrintf(comm, "%s on %d rank(s): chain %s, %" PetscInt_FMT " steps of %g\n", write ? "writing the reference" : "comparing with the reference", (int)size, model, steps, (double)dt));
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    Vec        q, v;
    PetscReal *a;
    PetscReal  rel = 0;
    char       opts[512];

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s", cases[c][1], solver));
    PetscCall(IntegRun(sys, cases[c][0], opts, dt, steps, NULL, NULL, &q, &v, NULL));
    PetscCall(GatherToZero(q, v, &N, &a));
    if (rank == 0) {
      if (write) {
        fprintf(fp, "%s %s %d\n", cases[c][0], cases[c][1][0] ? cases[c][1] : "-", (int)(2 * N));
        for (PetscInt i = 0; i < 2 * N; i++) fprintf(fp, "%.17e\n", (double)a[i]);
      } else {
        char      line[1024];
        PetscReal dmax = 0, nmax = 0;
        int       len = 0;
        TestCheck(PETSC_COMM_SELF, fgets(line, sizeof(line), fp), "Reference file %s ends before case %d", ref, (int)c);
        {
          char *last = strrchr(line, ' ');
          TestCheck(PETSC_COMM_SELF, last && sscanf(last, "%d", &len) == 1 && len == 2 * N, "Reference file %s: case %d has %d values, expected %d (%s)", ref, (int)c, len, (int)(2 * N), line);
        }
        for (PetscInt i = 0; i < 2 * N; i++) {
          double r;
          TestCheck(PETSC_COMM_SELF, fscanf(fp, "%lg\n", &r) == 1, "Reference file %s: cannot read value %d of case %d", ref, (int)i, (int)c);
          dmax = PetscMax(dmax, PetscAbsReal(a[i] - (PetscReal)r));
          nmax = PetscMax(nmax, PetscAbsReal((PetscReal)r));
        }
        rel = nmax > 0 ? dmax / nmax : dmax;
      }
    }
    PetscCallMPI(MPI_Bcast(&rel, 1, MPIU_REAL, 0, comm));
    if (!write) {
      PetscCall(PetscPrintf(comm, "%-9s %-72s relative difference to 1 rank %.3e\n", cases[c][0], cases[c][1], (double)rel));
      worst = PetscMax(worst, rel);
      if (!(rel <= tol)) {
        failures++;
        PetscCall(PetscPrintf(comm, "FAILED: %.3e > %.1e\n", (double)rel, (double)tol));
      }
    }
    PetscCall(PetscFree(a));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
  }
  if (fp) fclose(fp);
  PetscCall(MechSystemDestroy(&sys));
  TestCheck(comm, !failures, "%" PetscInt_FMT " cases differ on %d ranks from 1 rank", failures, (int)size);
  if (!write) PetscCall(PetscPrintf(comm, "same results on %d ranks: largest relative difference %.3e (tolerance %.1e)\n", (int)size, (double)worst, (double)tol));
  PetscCall(PetscFinalize());
  return 0;
}
