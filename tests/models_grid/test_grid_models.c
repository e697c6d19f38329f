static const char help[] = "Checks the grid models (cloth, lattice): tangents and potentials against finite differences, the linear flag, and forces bit for bit against a one-rank twin.\n";

/*
  For each configuration, at a random state near the initial one (generated on rank 0 in the
  DMDA's natural ordering, so the state is the same on any number of ranks) and along random
  directions w (zero on fixed dofs, whose rows and columns the system decouples):

    K w   vs  (f(q + h w, v) - f(q - h w, v)) / 2h            relative error <= 1e-6 (h = 1e-6)
    D w   vs  (f(q, v + h w) - f(q, v - h w)) / 2h            relative error <= 1e-6 (h = 1e-3)
    f.w   vs  dV/dh along w (fourth-order difference) at v = 0  relative error <= 1e-6
              (damping and drag vanish at v = 0, so only the conservative forces act)

  For systems marked linear the same differences with step 1 must match to round-off, and the
  linear flag must be the expected one. K must be symmetric when the springs are undamped.
  The same model built on PETSC_COMM_SELF on rank 0 at the same state must give the very same
  force (compared in natural ordering, tolerance 0) and the same potential (1e-13 relative).
  The sphere configurations check that some particles do penetrate the sphere at the test state.
  Exits non-zero when any check fails.
*/
#include <petscdmda.h>
#include "fdcheck.h"
#include "testutil.h"

#define TOL 1e-6

typedef struct {
  const char *label;
  const char *model;
  const char *options;   /* inserted before creation, cleared afterwards */
  PetscReal   amplitude; /* random perturbation of q, relative to the spacing h */
  PetscInt    linear;    /* expected linear flag */
  PetscInt    nfixed;    /* expected number of fixed dofs */
  PetscReal   sphere[4]; /* centre and radius of the sphere to penetrate (radius 0: none) */
} Config;

/* Particles are kept well apart (amplitude 0.1 h), so no spring comes near zero length. n = 6 with
   bend springs: every rank of 3 then owns at least 2 layers, as a stencil of width 2 requires. */
static const Config configs[] = {
    {"cloth nonlinear",          "cloth",   "-cloth_n 6 -cloth_c 2 -cloth_drag 0.5",                                                                                    0.1, 0, 6,   {0}                     },
    {"cloth nonlinear undamped", "cloth",   "-cloth_n 6 -cloth_c 0 -cloth_drag 0",                                                                                      0.1, 0, 6,   {0}                     },
    {"cloth rectangular edge",   "cloth",   "-cloth_n 6 -da_grid_y 7 -cloth_pin edge -cloth_c 1 -cloth_k_shear 50 -cloth_k_bend 5",                                     0.1, 0, 18,  {0}                     },
    {"cloth no bend n=5",        "cloth",   "-cloth_n 5 -cloth_k_bend 0 -cloth_c 1",                                                                                    0.1, 0, 6,   {0}                     },
    {"cloth structural only",    "cloth",   "-cloth_n 5 -cloth_k_bend 0 -cloth_k_shear 0 -cloth_linear -cloth_pin edge",                                                0.1, 1, 15,  {0}                     },
    {"cloth linear",             "cloth",   "-cloth_n 6 -cloth_linear",                                                                                                 0.1, 1, 6,   {0}                     },
    {"cloth linear damped",      "cloth",   "-cloth_n 6 -cloth_linear -cloth_c 1.5",                                                                                    0.1, 0, 6,   {0}                     },
    {"cloth sphere",             "cloth",   "-cloth_n 6 -cloth_c 1 -cloth_sphere -cloth_sphere_center 0.45,0.55,-0.2 -cloth_sphere_radius 0.35 -cloth_sphere_k 3e3",    0.1, 0, 6,   {0.45, 0.55, -0.2, 0.35}},
    {"cloth linear sphere",      "cloth",   "-cloth_n 6 -cloth_linear -cloth_sphere -cloth_sphere_center 0.45,0.55,-0.2 -cloth_sphere_radius 0.35 -cloth_sphere_k 3e3", 0.1, 0, 6,   {0.45, 0.55, -0.2, 0.35}},
    {"lattice no bend n=3",      "lattice", "-lattice_n 3 -lattice_k_bend 0 -lattice_c 1 -lattice_v0 0.5,0,0",                                                          0.1, 0, 27,  {0}                     },
    {"lattice linear n=3",       "lattice", "-lattice_n 3 -lattice_k_bend 0 -lattice_linear",                                                                           0.1, 1, 27,  {0}                     },
    {"lattice nonlinear n=6",    "lattice", "-lattice_n 6 -lattice_c 2 -lattice_drag 0.5",                                                                              0.1, 0, 108, {0}                     },
    {"lattice undamped n=6",     "lattice", "-lattice_n 6 -lattice_c 0 -lattice_drag 0",                                                                                0.1, 0, 108, {0}                     },
    {"lattice linear n=6",       "lattice", "-lattice_n 6 -lattice_linear",                                                                                             0.1, 1, 108, {0}                     },
};

static PetscErrorCode GetParameter(MechSystem sys, const char name[], PetscReal *value)
{
  PetscInt           n, i;
  const char *const *names;
  const PetscReal   *values;
  PetscBool          match;

  PetscFunctionBegin;
  PetscCall(MechSystemGetParameters(sys, &n, &names, &values));
  for (i = 0; i < n; i++) {
    PetscCall(PetscStrcmp(names[i], name, &match));
    if (match) {
      *value = values[i];
      PetscFunctionReturn(0);
    }
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The system records no parameter %s", name);
}

/* x (global, DMDA ordering) -> xall: the whole vector in natural ordering on rank 0 (empty elsewhere) */
static PetscErrorCode GatherNatural(DM da, Vec x, Vec *xall)
{
  Vec        xn;
  VecScatter sct;

  PetscFunctionBegin;
  PetscCall(DMDACreateNaturalVector(da, &xn));
  PetscCall(DMDAGlobalToNaturalBegin(da, x, INSERT_VALUES, xn));
  PetscCall(DMDAGlobalToNaturalEnd(da, x, INSERT_VALUES, xn));
  PetscCall(VecScatterCreateToZero(xn, &sct, xall));
  PetscCall(VecScatterBegin(sct, xn, *xall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sct, xn, *xall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterDestroy(&sct));
  PetscCall(VecDestroy(&xn));
  PetscFunctionReturn(0);
}

/* The reverse of GatherNatural */
static PetscErrorCode ScatterNatural(DM da, Vec xall, Vec x)
{
  Vec        xn, tmp;
  VecScatter sct;

  PetscFunctionBegin;
  PetscCall(DMDACreateNaturalVector(da, &xn));
  PetscCall(VecScatterCreateToZero(xn, &sct, &tmp));
  PetscCall(VecScatterBegin(sct, xall, xn, INSERT_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(sct, xall, xn, INSERT_VALUES, SCATTER_REVERSE));
  PetscCall(DMDANaturalToGlobalBegin(da, xn, INSERT_VALUES, x));
  PetscCall(DMDANaturalToGlobalEnd(da, xn, INSERT_VALUES, x));
  PetscCall(VecScatterDestroy(&sct));
  PetscCall(VecDestroy(&tmp));
  PetscCall(VecDestroy(&xn));
  PetscFunctionReturn(0);
}

/*
  A random state: q = q0 + amp r1, v = r2 with r1, r2 uniform in [-1, 1], drawn on rank 0 in
  natural ordering with a fixed seed (the same state on any number of ranks). qall, vall: the
  state in natural ordering on rank 0.
*/
static PetscErrorCode RandomState(MechSystem sys, PetscReal amp, Vec *q, Vec *v, Vec *qall, Vec *vall)
{
  DM           da;
  PetscRandom  rnd;
  PetscScalar *a;
  PetscInt     n, i;

  PetscFunctionBegin;
  PetscCall(MechSystemGetDM(sys, &da));
  PetscCall(MechSystemCreateState(sys, q, v));
  PetscCall(GatherNatural(da, *q, qall));
  PetscCall(VecDuplicate(*qall, vall));
  PetscCall(FDRandomCreate(PETSC_COMM_SELF, 4242, &rnd));
  PetscCall(VecGetLocalSize(*qall, &n));
  PetscCall(VecGetArray(*qall, &a));
  for (i = 0; i < n; i++) {
    PetscReal r;

    PetscCall(PetscRandomGetValueReal(rnd, &r));
    a[i] += amp * r;
  }
  PetscCall(VecRestoreArray(*qall, &a));
  PetscCall(VecGetArray(*vall, &a));
  for (i = 0; i < n; i++) PetscCall(PetscRandomGetValueReal(rnd, &a[i]));
  PetscCall(VecRestoreArray(*vall, &a));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(ScatterNatural(da, *qall, *q));
  PetscCall(ScatterNatural(da, *vall, *v));
  PetscCall(MechSystemApplyFixed(sys, *q, *v));
  PetscFunctionReturn(0);
}

/* Particles strictly inside the sphere (centre, radius) at q */
static PetscErrorCode CountInside(MechSystem sys, Vec q, const PetscReal sphere[4], PetscInt *count)
{
  DM                 da;
  PetscInt           xs, ys, zs, xm, ym, zm, i, j, k, c, local = 0;
  const PetscScalar *a, *p;

  PetscFunctionBegin;
  PetscCall(MechSystemGetDM(sys, &da));
  /* a 2-D DMDA reports zm = 1; owned entries are contiguous, 3 per particle */
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArrayRead(q, &a));
  for (k = 0; k < zm; k++)
    for (j = 0; j < ym; j++)
      for (i = 0; i < xm; i++) {
        PetscReal r2 = 0;

        p = a + 3 * ((k * ym + j) * xm + i);
        for (c = 0; c < 3; c++) r2 += PetscSqr(PetscRealPart(p[c]) - sphere[c]);
        if (r2 < PetscSqr(sphere[3])) local++;
      }
  PetscCall(VecRestoreArrayRead(q, &a));
  PetscCall(MPIU_Allreduce(&local, count, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)q)));
  PetscFunctionReturn(0);
}

/*
  The same model on PETSC_COMM_SELF on rank 0 at the same (natural) state: max |f_parallel -
  f_serial| / max |f_serial| and the relative difference of the potentials.
*/
static PetscErrorCode CheckPartition(const Config *cfg, MechSystem sys, Vec q, Vec v, Vec qall, Vec vall, PetscReal *fdiff, PetscReal *vdiff)
{
  DM          da;
  Vec         f, fall;
  PetscMPIInt rank;
  PetscReal   res[2] = {0, 0}, Vpar, Vser;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)sys), &rank));
  PetscCall(MechSystemGetDM(sys, &da));
  PetscCall(VecDuplicate(q, &f));
  PetscCall(MechSystemComputeForce(sys, 0.25, q, v, f));
  PetscCall(MechSystemComputeEnergy(sys, 0.25, q, v, NULL, &Vpar));
  PetscCall(GatherNatural(da, f, &fall));
  if (rank == 0) {
    MechSystem         self;
    Vec                qs, vs, fs;
    const PetscScalar *a, *b;
    PetscInt           n, i;
    PetscReal          d = 0, m = 0;

    PetscCall(MechCreateModel(PETSC_COMM_SELF, cfg->model, &self));
    PetscCall(MechSystemCreateState(self, &qs, &vs));
    PetscCall(VecDuplicate(qs, &fs));
    PetscCall(VecCopy(qall, qs));
    PetscCall(VecCopy(vall, vs));
    PetscCall(MechSystemApplyFixed(self, qs, vs));
    PetscCall(MechSystemComputeForce(self, 0.25, qs, vs, fs));
    PetscCall(MechSystemComputeEnergy(self, 0.25, qs, vs, NULL, &Vser));
    PetscCall(VecGetLocalSize(fs, &n));
    PetscCall(VecGetArrayRead(fall, &a));
    PetscCall(VecGetArrayRead(fs, &b));
    for (i = 0; i < n; i++) {
      d = PetscMax(d, PetscAbsScalar(a[i] - b[i]));
      m = PetscMax(m, PetscAbsScalar(b[i]));
    }
    PetscCall(VecRestoreArrayRead(fs, &b));
    PetscCall(VecRestoreArrayRead(fall, &a));
    res[0] = m > 0 ? d / m : d;
    res[1] = PetscAbsReal(Vpar - Vser) / PetscMax(PetscAbsReal(Vser), 1e-300);
    PetscCall(VecDestroy(&qs));
    PetscCall(VecDestroy(&vs));
    PetscCall(VecDestroy(&fs));
    PetscCall(MechSystemDestroy(&self));
  }
  PetscCallMPI(MPI_Bcast(res, 2, MPIU_REAL, 0, PetscObjectComm((PetscObject)sys)));
  *fdiff = res[0];
  *vdiff = res[1];
  PetscCall(VecDestroy(&fall));
  PetscCall(VecDestroy(&f));
  PetscFunctionReturn(0);
}

/* Invalid options must be refused with PETSC_ERR_ARG_OUTOFRANGE (or _SIZ for a short array) */
static PetscErrorCode CheckErrors(PetscInt *nfail)
{
  const struct {
    const char    *model, *options;
    PetscErrorCode expected;
  } cases[] = {
      {"cloth",   "-cloth_n 1",                             PETSC_ERR_ARG_OUTOFRANGE},
      {"cloth",   "-cloth_k 0",                             PETSC_ERR_ARG_OUTOFRANGE},
      {"cloth",   "-cloth_mass -1",                         PETSC_ERR_ARG_OUTOFRANGE},
      {"cloth",   "-cloth_k_bend -1",                       PETSC_ERR_ARG_OUTOFRANGE},
      {"cloth",   "-cloth_sphere -cloth_sphere_radius 0",   PETSC_ERR_ARG_OUTOFRANGE},
      {"cloth",   "-cloth_sphere -cloth_sphere_center 1,2", PETSC_ERR_ARG_SIZ       },
      {"lattice", "-lattice_n 1",                           PETSC_ERR_ARG_OUTOFRANGE},
      {"lattice", "-lattice_k_shear -2",                    PETSC_ERR_ARG_OUTOFRANGE},
      {"lattice", "-lattice_drag -1",                       PETSC_ERR_ARG_OUTOFRANGE},
      {"lattice", "-lattice_v0 1",                          PETSC_ERR_ARG_SIZ       },
  };
  PetscInt       c;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  for (c = 0; c < (PetscInt)(sizeof(cases) / sizeof(cases[0])); c++) {
    MechSystem sys = NULL;

    PetscCall(PetscOptionsInsertString(NULL, cases[c].options));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MechCreateModel(PETSC_COMM_WORLD, cases[c].model, &sys);
    PetscCall(PetscPopErrorHandler());
    PetscCall(TestClearOptions(cases[c].options));
    if (ierr != cases[c].expected) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s %s returned %d, expected %d\n", cases[c].model, cases[c].options, (int)ierr, (int)cases[c].expected));
      (*nfail)++;
      if (!ierr) PetscCall(MechSystemDestroy(&sys));
    }
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscRandom rnd;
  PetscInt    c, nfail = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  PetscCall(FDRandomCreate(PETSC_COMM_WORLD, 20240601, &rnd));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-26s %9s %9s %9s %9s %5s %6s %9s %9s\n", "model", "K", "D", "linear", "potential", "symm", "inside", "f ranks", "V ranks"));
  for (c = 0; c < (PetscInt)(sizeof(configs) / sizeof(configs[0])); c++) {
    const Config *cfg = &configs[c];
    MechSystem    sys;
    Vec           q, v, qall, vall;
    IS            fixed;
    PetscReal     errK, errD, errV, errL, h, size, n, cdamp, fdiff = -1, vdiff = -1;
    PetscInt      nfix, inside = -1;
    PetscBool     ok, linear, symm = PETSC_TRUE;
    char          lin[16] = "-", ins[16] = "-";

    PetscCall(PetscOptionsInsertString(NULL, cfg->options));
    PetscCall(MechCreateModel(PETSC_COMM_WORLD, cfg->model, &sys));
    PetscCall(GetParameter(sys, "size", &size));
    PetscCall(GetParameter(sys, "n", &n));
    PetscCall(GetParameter(sys, "c", &cdamp));
    h = size / (n - 1);
    PetscCall(RandomState(sys, cfg->amplitude * h, &q, &v, &qall, &vall));

    /* f is affine in v in both models (spring dampers and drag are linear in the velocities), so
       a larger step for D loses nothing to truncation and keeps round-off below the small drag terms */
    PetscCall(FDCheckTangents(sys, q, v, rnd, 1e-6, 1e-3, &errK, &errD, &linear, &errL, cdamp == 0 ? &symm : NULL));
    if (linear) PetscCall(PetscSNPrintf(lin, sizeof(lin), "%.2e", (double)errL));
    /* The potential is a sum of thousands of spring energies while f.w is small near equilibrium, so
       a second-order difference at h = 1e-6 loses ~1e-7 to cancellation and at larger h as much to
       truncation; the fourth-order difference at h = 1e-4 avoids both. */
    PetscCall(FDCheckPotential(sys, q, rnd, 1e-4, 4, &errV));
    PetscCall(MechSystemGetFixed(sys, &fixed));
    PetscCall(ISGetSize(fixed, &nfix));
    if (cfg->sphere[3] > 0) {
      PetscCall(CountInside(sys, q, cfg->sphere, &inside));
      PetscCall(PetscSNPrintf(ins, sizeof(ins), "%" PetscInt_FMT, inside));
    }
    PetscCall(CheckPartition(cfg, sys, q, v, qall, vall, &fdiff, &vdiff));

    ok = errK <= TOL && errD <= TOL && errL <= 1e-10 && errV <= TOL && symm && (PetscInt)linear == cfg->linear && nfix == cfg->nfixed && inside != 0 && fdiff == 0 && vdiff <= 1e-13 ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-26s %9.2e %9.2e %9s %9.2e %5s %6s %9.2e %9.2e %s\n", cfg->label, (double)errK, (double)errD, lin, (double)errV, cdamp == 0 ? (symm ? "yes" : "NO") : "-", ins, (double)fdiff, (double)vdiff, ok ? "ok" : "FAIL"));
    if ((PetscInt)linear != cfg->linear) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  linear flag %d, expected %d\n", (int)linear, (int)cfg->linear));
    if (nfix != cfg->nfixed) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %" PetscInt_FMT " fixed dofs, expected %" PetscInt_FMT "\n", nfix, cfg->nfixed));
    if (!ok) nfail++;

    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(VecDestroy(&qall));
    PetscCall(VecDestroy(&vall));
    PetscCall(MechSystemDestroy(&sys));
    PetscCall(TestClearOptions(cfg->options));
  }
  PetscCall(CheckErrors(&nfail));
  PetscCall(PetscRandomDestroy(&rnd));
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " check(s) failed (tolerance %g)\n", nfail, (double)TOL));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all grid model checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
