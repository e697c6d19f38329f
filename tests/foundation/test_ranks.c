static const char help[] = "The final state of a long nonlinear chain does not depend on the number of MPI ranks.\n"
                           "  -ranks_ref_file <file>  reference file (PETSc binary)\n"
                           "  -ranks_write            write the reference instead of comparing with it\n"
                           "  -ranks_tol <1e-10>      largest relative difference accepted\n"
                           "Model options (-chain_k, ...) change the model: tests/compare_ranks.sh uses that\n"
                           "to check that a different run is detected.\n";

/*
  A 3-D chain of 1200 particles with rest-length springs (3600 dofs), kicked out of its plane,
  integrated for 20 steps with tsmech's midpoint2 (Newton on v+, N unknowns) and with PETSc's TSCN
  on the first-order form (2N unknowns). The final displacement q - q(0) and velocity v of both
  runs are written to, or compared with, a PETSc binary file. PETSc's binary viewer writes vectors in global order, and the chain's
  1-D DMDA numbers particles naturally, so files written on any number of ranks are comparable.

  The model evaluates forces in the same order whatever the partition (src/models/chain.c), so the
  remaining differences come from the linear solvers (block Jacobi changes with the partition):
  tight tolerances keep them far below the threshold.
*/
#include "foundation.h"

/* ||a - b|| / ||b|| */
static PetscErrorCode RelDiff(Vec a, Vec b, PetscReal *rel)
{
  Vec       d;
  PetscReal nd, nb;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(a, &d));
  PetscCall(VecWAXPY(d, -1.0, b, a));
  PetscCall(VecNorm(d, NORM_2, &nd));
  PetscCall(VecNorm(b, NORM_2, &nb));
  PetscCall(VecDestroy(&d));
  *rel = nb > 0 ? nd / nb : nd;
  PetscFunctionReturn(0);
}

static const char model_opts[]  = "-chain_n 1200 -chain_c 0.5 -chain_stretch 1.05";
static const char solver_opts[] = "-snes_rtol 1e-13 -snes_atol 1e-14 -snes_max_it 20 -ksp_rtol 1e-14 -ksp_atol 1e-18 -ksp_max_it 1000";

typedef struct {
  const char *type;
  PetscReal   dt;
} Run;

static const Run runs[] = {
    {TSMIDPOINT2, 2e-3},
    {TSCN,        2e-3},
};

int main(int argc, char **argv)
{
  char        file[PETSC_MAX_PATH_LEN] = "";
  PetscBool   write                    = PETSC_FALSE, hasfile;
  PetscReal   tol = 1e-10, worst = 0;
  PetscMPIInt size;
  PetscViewer viewer;
  MechSystem  sys;
  Vec         q0, v0;
  char        opts[1024];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-ranks_ref_file", file, sizeof(file), &hasfile));
  PetscCheck(hasfile, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "Give the reference file with -ranks_ref_file");
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-ranks_write", &write, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-ranks_tol", &tol, NULL));

  /* options given on the command line (-chain_k ...) come after the defaults and win */
  {
    char *cmdline = NULL;
    PetscCall(PetscOptionsGetAll(NULL, &cmdline));
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s", model_opts, cmdline));
    PetscCall(PetscFree(cmdline));
  }
  PetscCall(FoundationCreateModel(PETSC_COMM_WORLD, "chain", opts, &sys));
  PetscCall(FoundationKickChain(sys, 0.5));
  PetscCall(MechSystemCreateState(sys, &q0, &v0));

  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, write ? FILE_MODE_WRITE : FILE_MODE_READ, &viewer));
  PetscCall(PetscViewerBinarySetSkipInfo(viewer, PETSC_TRUE));
  for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
    Vec       q, v;
    PetscInt  its, kits;
    PetscReal qnorm;

    PetscCall(TestIntegrate(sys, runs[i].type, solver_opts, runs[i].dt, 20 * runs[i].dt, &q, &v, &its, &kits));
    /* compare displacements: the positions themselves (|q| ~ 21) hardly change in 20 steps */
    PetscCall(VecAXPY(q, -1.0, q0));
    PetscCall(VecNorm(q, NORM_2, &qnorm));
    if (write) {
      PetscCall(VecView(q, viewer));
      PetscCall(VecView(v, viewer));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s on %d rank(s): %" PetscInt_FMT " Newton, %" PetscInt_FMT " Krylov its, |q - q(0)| = %.6e: written to %s\n", runs[i].type, size, its, kits, (double)qnorm, file));
    } else {
      Vec       qref, vref;
      PetscReal relq, relv;

      PetscCall(VecDuplicate(q, &qref));
      PetscCall(VecDuplicate(v, &vref));
      PetscCall(VecLoad(qref, viewer));
      PetscCall(VecLoad(vref, viewer));
      /* q and v separately: |v| is much smaller than |q| and would hide in a joint norm */
      PetscCall(RelDiff(q, qref, &relq));
      PetscCall(RelDiff(v, vref, &relv));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s on %d rank(s): %" PetscInt_FMT " Newton, %" PetscInt_FMT " Krylov its, |q - q(0)| = %.6e: relative difference from %s: q %.3e, v %.3e\n", runs[i].type, size, its, kits, (double)qnorm, file, (double)relq, (double)relv));
      worst = PetscMax(worst, PetscMax(relq, relv));
      if (!(relq <= tol && relv <= tol)) worst = PETSC_INFINITY; /* NaN fails too */
      PetscCall(VecDestroy(&qref));
      PetscCall(VecDestroy(&vref));
    }
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
  }
  PetscCall(PetscViewerDestroy(&viewer));
  PetscCall(VecDestroy(&q0));
  PetscCall(VecDestroy(&v0));
  PetscCall(MechSystemDestroy(&sys));
  PetscCheck(worst <= tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The run on %d rank(s) differs from the reference by more than %g", size, (double)tol);
  if (!write) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "same final state on %d rank(s) as the reference (tolerance %g)\n", size, (double)tol));
  PetscCall(PetscFinalize());
  return 0;
}
