static const char help[] = "docs/schemes.md §7: the theta2 family equals PETSc's theta methods on the first-order form\n"
                           "[q; v], on a nonlinear 3-D spring network (chain with rest-length springs, damping,\n"
                           "drag and gravity), to solver tolerance.\n"
                           "  -n <30>        particles\n"
                           "  -steps <50>    time steps\n"
                           "  -dt <2e-3>     step (theta < 1/2 is only conditionally stable)\n"
                           "  -tol <1e-8>    largest relative difference of the final (q, v) allowed\n";

#include "integ.h"

typedef struct {
  const char *tsmech, *tsmech_opts; /* tsmech type and options */
  const char *petsc, *petsc_opts;   /* PETSc type on [q; v] and options */
} Pair;

static const Pair pairs[] = {
    {"theta2",    "-ts_theta_theta 0.3",                    "theta",  "-ts_theta_theta 0.3"                   },
    {"theta2",    "-ts_theta_theta 0.3 -ts_theta_endpoint", "theta",  "-ts_theta_theta 0.3 -ts_theta_endpoint"},
    {"theta2",    "-ts_theta_theta 0.5",                    "theta",  "-ts_theta_theta 0.5"                   },
    {"theta2",    "-ts_theta_theta 0.5 -ts_theta_endpoint", "theta",  "-ts_theta_theta 0.5 -ts_theta_endpoint"},
    {"theta2",    "-ts_theta_theta 0.5 -ts_theta_endpoint", "cn",     ""                                      },
    {"theta2",    "-ts_theta_theta 1",                      "theta",  "-ts_theta_theta 1"                     },
    {"theta2",    "-ts_theta_theta 1 -ts_theta_endpoint",   "theta",  "-ts_theta_theta 1 -ts_theta_endpoint"  },
    {"theta2",    "-ts_theta_theta 1",                      "beuler", ""                                      },
    {"theta2",    "-ts_theta_theta 1 -ts_theta_endpoint",   "beuler", ""                                      },
    {"beuler2",   "",                                       "beuler", ""                                      },
    {"cn2",       "",                                       "cn",     ""                                      },
    {"midpoint2", "",                                       "theta",  "-ts_theta_theta 0.5"                   },
    {"midpoint2", "",                                       "theta",  ""                                      },
};

int main(int argc, char **argv)
{
  MechSystem  sys;
  PetscInt    n = 30, steps = 50, failures = 0;
  PetscReal   dt = 2e-3, tol = 1e-8, worst = 0;
  char        model[256];
  const char *solver = "-snes_type newtonls -snes_rtol 1e-14 -snes_atol 1e-14 -ksp_type preonly -pc_type lu";
  MPI_Comm    comm;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &steps, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-dt", &dt, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  /* rest-length springs stretched by 10 %, spring damping, drag and gravity: nonlinear in q and v */
  PetscCall(PetscSNPrintf(model, sizeof(model), "-chain_n %" PetscInt_FMT " -chain_stretch 1.1 -chain_c 0.5 -chain_drag 0.2 -chain_g 9.81", n));
  PetscCall(IntegCreateModel(comm, "chain", model, &sys));
  {
    PetscBool linear;
    PetscCall(MechSystemGetLinear(sys, &linear));
    TestCheck(comm, !linear, "The chain of this test must be nonlinear");
  }
  PetscCall(IntegKickChain(sys, n, 3));
  PetscCall(PetscPrintf(comm, "chain of %" PetscInt_FMT " particles (%s), %" PetscInt_FMT " steps of %g; solver %s\n", n, model, steps, (double)dt, solver));
  for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
    const Pair *p = &pairs[i];
    Vec         qa, va, qb, vb, dq, dv;
    PetscInt    itsa, itsb;
    PetscReal   rel, moved;
    char        oa[512], ob[512];

    PetscCall(PetscSNPrintf(oa, sizeof(oa), "%s %s", p->tsmech_opts, solver));
    PetscCall(PetscSNPrintf(ob, sizeof(ob), "%s %s", p->petsc_opts, solver));
    PetscCall(TestIntegrate(sys, p->tsmech, oa, dt, steps * dt, &qa, &va, &itsa, NULL));
    PetscCall(TestIntegrate(sys, p->petsc, ob, dt, steps * dt, &qb, &vb, &itsb, NULL));
    PetscCall(TestRelDiff(qa, va, qb, vb, &rel));
    /* how far the state moved, so that agreement is not trivial */
    PetscCall(MechSystemCreateState(sys, &dq, &dv));
    PetscCall(VecAXPY(dq, -1.0, qa));
    PetscCall(VecNorm(dq, NORM_INFINITY, &moved));
    PetscCall(PetscPrintf(comm, "%-9s %-40s vs %-6s %-38s rel diff %.3e  (Newton its %3" PetscInt_FMT " / %3" PetscInt_FMT ", max |dq| %.3f)\n", p->tsmech, p->tsmech_opts, p->petsc, p->petsc_opts, (double)rel, itsa, itsb, (double)moved));
    worst = PetscMax(worst, rel);
    if (!(rel <= tol)) {
      failures++;
      PetscCall(PetscPrintf(comm, "FAILED: relative difference %.3e > %.1e\n", (double)rel, (double)tol));
    }
    TestCheck(comm, itsa > steps, "%s did not iterate: Newton iterations %" PetscInt_FMT " for %" PetscInt_FMT " steps on a nonlinear problem", p->tsmech, itsa, steps);
    PetscCall(VecDestroy(&dq));
    PetscCall(VecDestroy(&dv));
    PetscCall(VecDestroy(&qa));
    PetscCall(VecDestroy(&va));
    PetscCall(VecDestroy(&qb));
    PetscCall(VecDestroy(&vb));
  }
  PetscCall(MechSystemDestroy(&sys));
  TestCheck(comm, !failures, "%" PetscInt_FMT " equivalence checks failed", failures);
  PetscCall(PetscPrintf(comm, "all equivalences hold: largest relative difference %.3e (tolerance %.1e)\n", (double)worst, (double)tol));
  PetscCall(PetscFinalize());
  return 0;
}
