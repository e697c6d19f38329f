static const char help[] = "Note 004's closed forms, applied step by step in plain C doubles, against the TS types:\n"
                           "one particle (Hooke + gravity + drag): implicit Euler (beuler2), symplectic Euler\n"
                           "(symeuler2), explicit Euler (euler2, theta2 with theta = 0); two particles joined by a\n"
                           "zero-rest-length spring under gravity: symplectic, implicit and explicit Euler.\n"
                           "  -steps <200>  -dt <0.01>  -tol <1e-12>\n";

#include "integ.h"

/*
  Note 004 writes m x'' = F_phys with F_phys = m g_vec - k x - D v; tsmech's oscillator is
  m q'' + f = 0 with f = k q + c q' + m g, i.e. F_phys = -f: g_vec = -g (gravity pulls toward -q)
  and D = c. The note's formulas, with x = q:
    implicit:   (1 + h^2 k/m + h D/m) v+ = v + h g_vec - h k x / m,  x+ = x + h v+
    symplectic: v+ = v + (h/m) F_phys(x, v),                        x+ = x + h v+
    explicit:   v+ = v + (h/m) F_phys(x, v),                        x+ = x + h v
*/
typedef enum {
  EXPLICIT,
  SYMPLECTIC,
  IMPLICIT
} Scheme;
static const char *const SchemeNames[] = {"explicit", "symplectic", "implicit"};

static void OscillatorSteps(Scheme s, PetscInt N, PetscReal h, PetscReal m, PetscReal k, PetscReal D, PetscReal g, PetscReal *x, PetscReal *v)
{
  const PetscReal gvec = -g;
  for (PetscInt i = 0; i < N; i++) {
    PetscReal xn = *x, vn = *v, v1, x1;
    switch (s) {
    case IMPLICIT:
      v1 = (vn + h * gvec - h * k * xn / m) / (1 + h * h * k / m + h * D / m);
      x1 = xn + h * v1;
      break;
    case SYMPLECTIC:
      v1 = vn + (h / m) * (m * gvec - k * xn - D * vn);
      x1 = xn + h * v1;
      break;
    default:
      v1 = vn + (h / m) * (m * gvec - k * xn - D * vn);
      x1 = xn + h * vn;
      break;
    }
    *x = x1;
    *v = v1;
  }
}

/*
  Two particles, zero rest length: F_0 = k (x1 - x0) + m0 g_vec, F_1 = k (x0 - x1) + m1 g_vec,
  g_vec = (0, 0, -g). Symplectic Euler: v_i+ = v_i + h F_i / m_i, x_i+ = x_i + h v_i+ (the note's
  v1 line has a typo, v0 for v1). Implicit Euler: (M - h^2 K_phys) v+ = M v + h F(x), K_phys =
  k [-I I; I -I], x+ = x + h v+: per coordinate c the 2 x 2 system
    [m0 + h^2 k, -h^2 k; -h^2 k, m1 + h^2 k] (v0+, v1+) = (m0 v0 + h F0, m1 v1 + h F1).
  q = (x0, x1) and v = (v0, v1), 6 entries each.
*/
static void PairSteps(Scheme s, PetscInt N, PetscReal h, PetscReal m0, PetscReal m1, PetscReal k, PetscReal g, PetscReal q[6], PetscReal v[6])
{
  for (PetscInt n = 0; n < N; n++) {
    PetscReal q1[6], v1[6];
    for (PetscInt c = 0; c < 3; c++) {
      const PetscReal gv = c == 2 ? -g : 0;
      const PetscReal F0 = k * (q[3 + c] - q[c]) + m0 * gv, F1 = k * (q[c] - q[3 + c]) + m1 * gv;
      if (s == IMPLICIT) {
        const PetscReal a = m0 + h * h * k, b = -h * h * k, d = m1 + h * h * k;
        const PetscReal r0 = m0 * v[c] + h * F0, r1 = m1 * v[3 + c] + h * F1, det = a * d - b * b;
        v1[c]     = (d * r0 - b * r1) / det;
        v1[3 + c] = (a * r1 - b * r0) / det;
      } else {
        v1[c]     = v[c] + h * F0 / m0;
        v1[3 + c] = v[3 + c] + h * F1 / m1;
      }
      q1[c]     = q[c] + h * (s == EXPLICIT ? v[c] : v1[c]);
      q1[3 + c] = q[3 + c] + h * (s == EXPLICIT ? v[3 + c] : v1[3 + c]);
    }
    for (PetscInt i = 0; i < 6; i++) {
      q[i] = q1[i];
      v[i] = v1[i];
    }
  }
}

typedef struct {
  const char *type, *opts;
  Scheme      scheme;
} Case;

static const Case cases[] = {
    {"beuler2",   "",                                     IMPLICIT  },
    {"theta2",    "-ts_theta_theta 1",                    IMPLICIT  },
    {"theta2",    "-ts_theta_theta 1 -ts_theta_endpoint", IMPLICIT  },
    {"symeuler2", "",                                     SYMPLECTIC},
    {"euler2",    "",                                     EXPLICIT  },
    {"theta2",    "-ts_theta_theta 0",                    EXPLICIT  },
};

/* Run every case on sys and compare the final state with the closed form (n dofs). */
static PetscErrorCode Compare(MechSystem sys, const char *label, PetscInt ndof, PetscInt N, PetscReal h, PetscReal tol, const PetscReal q0[], const PetscReal v0[], void (*closed)(Scheme, PetscInt, PetscReal, const void *, PetscReal *, PetscReal *), const void *par, PetscReal *worst, PetscInt *failures)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)sys);

  PetscFunctionBegin;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const Case *c = &cases[i];
    Vec         q, v;
    PetscReal   x[12], ref[12], rel;
    char        opts[256];

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -ksp_type preonly -pc_type lu -snes_rtol 1e-15 -snes_atol 1e-15", c->opts));
    PetscCall(TestIntegrate(sys, c->type, opts, h, N * h, &q, &v, NULL, NULL));
    PetscCall(IntegVecToArray(q, x));
    PetscCall(IntegVecToArray(v, x + ndof));
    for (PetscInt j = 0; j < ndof; j++) {
      ref[j]        = q0[j];
      ref[ndof + j] = v0[j];
    }
    closed(c->scheme, N, h, par, ref, ref + ndof);
    rel = IntegRelDiffArray(2 * ndof, x, ref);
    PetscCall(PetscPrintf(comm, "%-10s %-10s %-38s vs docs/schemes.md §5 %-10s after %" PetscInt_FMT " steps: q[0] %+.15f  rel diff %.3e\n", label, c->type, c->opts, SchemeNames[c->scheme], N, (double)x[0], (double)rel));
    *worst = PetscMax(*worst, rel);
    if (!(rel <= tol)) {
      (*failures)++;
      PetscCall(PetscPrintf(comm, "FAILED: %.3e > %.1e\n", (double)rel, (double)tol));
    }
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
  }
  PetscFunctionReturn(0);
}

typedef struct {
  PetscReal m, k, c, g;
} OscPar;
typedef struct {
  PetscReal m0, m1, k, g;
} PairPar;

static void OscClosed(Scheme s, PetscInt N, PetscReal h, const void *par, PetscReal *q, PetscReal *v)
{
  const OscPar *p = (const OscPar *)par;
  OscillatorSteps(s, N, h, p->m, p->k, p->c, p->g, q, v);
}

static void PairClosed(Scheme s, PetscInt N, PetscReal h, const void *par, PetscReal *q, PetscReal *v)
{
  const PairPar *p = (const PairPar *)par;
  PairSteps(s, N, h, p->m0, p->m1, p->k, p->g, q, v);
}

int main(int argc, char **argv)
{
  MPI_Comm   comm;
  MechSystem sys;
  PetscInt   N = 200, failures = 0;
  PetscReal  h = 0.01, tol = 1e-12, worst = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &N, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-dt", &h, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));

  {
    const OscPar    p     = {2.0, 30.0, 0.7, 9.81};
    const PetscReal q0[1] = {1.0}, v0[1] = {0.3};
    PetscCall(IntegCreateModel(comm, "oscillator", "-oscillator_m 2 -oscillator_k 30 -oscillator_c 0.7 -oscillator_g 9.81 -oscillator_q0 1 -oscillator_v0 0.3", &sys));
    PetscCall(Compare(sys, "oscillator", 1, N, h, tol, q0, v0, OscClosed, &p, &worst, &failures));
    PetscCall(MechSystemDestroy(&sys));
  }
  {
    const PairPar   p     = {1.0, 2.0, 10.0, 9.81};
    const PetscReal q0[6] = {0, 0, 0, 1.0, 0.5, 0}, v0[6] = {0, 0, 0, 0, 0.3, 0};
    PetscCall(IntegCreateModel(comm, "pair", "-pair_m0 1 -pair_m1 2 -pair_k 10 -pair_L 0 -pair_c 0 -pair_g 9.81 -pair_v1 0.3", &sys));
    PetscCall(Compare(sys, "pair", 6, N, h, tol, q0, v0, PairClosed, &p, &worst, &failures));
    PetscCall(MechSystemDestroy(&sys));
  }
  TestCheck(comm, !failures, "%" PetscInt_FMT " closed-form checks failed", failures);
  PetscCall(PetscPrintf(comm, "all closed forms of docs/schemes.md §5 reproduced: largest relative difference %.3e (tolerance %.1e)\n", (double)worst, (double)tol));
  PetscCall(PetscFinalize());
  return 0;
}
