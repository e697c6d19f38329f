static const char help[] = "Tests of the modal analysis (src/mech/modes.c) and of Rayleigh damping from modal ratios.\n";

/*
  Each part prints its measured numbers and counts a failure when one misses its bound.

  -convergence  the clamped beam (1 x 0.1 x 0.1, linear, nu = 0, E = rho = 1): the first bending
                frequency of P1, P2, Q1 and Q2 elements on 2-4 meshes against the converged value
                (Richardson's h^4 extrapolation of Q2 on 16 x 2 x 2 and 32 x 4 x 4 boxes): observed
                rates near the eigenvalue theory's 2p (P1 and Q1 in [1.7, 2.3] on their finest pair,
                P2 and Q2 at least 3.2), Q2 and P2 within 2e-5 of the extrapolation, the two
                bending frequencies of the square hexahedral beam equal (a double eigenvalue, 1e-10),
                the tetrahedral beam's split; -table prints the table of docs/modes.md
  -free         a free beam (Q1, 8 x 2 x 2): exactly six rigid modes reported at 0 Hz, their
                eigenvalues below 1e-9 of the first elastic one, K y = 0 for each (1e-10 of |K| |y|),
                the shapes M-orthonormal and K-orthogonal (1e-10), the same six at the target -0.1 (where
                Krylov-Schur without the deflated rigid motions found four), the rigid modes' effective masses
                summing to the mass along each axis (1e-10), the elastic frequencies those of one rank
                (1e-10; run on 1, 2 and 3 ranks)
  -refusals     more modes than free dofs, a system without a tangent, a target at an eigenvalue
                (the rigid modes' 0) refused with an input error; a non-symmetric tangent (a
                follower pressure of zero) solved as GNHEP with GHEP's frequencies (1e-9)
  -damping      Rayleigh damping from the ratio 0.02 at modes 1 and 3 (P2 beam): a free decay of
                each of the two modes under midpoint2 (100 steps a period) decays at that ratio
                within 1 % (logarithmic decrement over 6 periods)
*/
#include "testutil.h"

static PetscInt failures = 0;

#define CHECK(cond, ...) TestCount(failures, cond, __VA_ARGS__)

#define NKIND 4
static const char *const kinds[NKIND]    = {"-solid_cell tet -solid_order 1", "-solid_cell tet -solid_order 2", "-solid_cell hex -solid_order 1", "-solid_cell hex -solid_order 2"};
static const char *const kindname[NKIND] = {"P1", "P2", "Q1", "Q2"};

static const char beam[] = "-solid_beam_size 1,0.1,0.1 -solid_material linear -solid_E 1 -solid_nu 0 -solid_density 1 -solid_g 0,0,0";

/* The n lowest modes of a model made with opts on comm */
static PetscErrorCode Modes(MPI_Comm comm, const char opts[], PetscInt n, MechSystem *sys, MechModes *modes)
{
  Vec q, v;

  PetscFunctionBegin;
  PetscCall(TestCreateModel(comm, "solid", opts, sys));
  PetscCall(MechSystemCreateState(*sys, &q, &v));
  PetscCall(MechModesCreate(*sys, modes));
  PetscCall(MechModesSetDimension(*modes, n));
  PetscCall(MechModesCompute(*modes, 0, q, v));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}

/* The first two frequencies of the clamped beam of one element kind on nx x nyz x nyz boxes */
static PetscErrorCode Bending(PetscInt kind, PetscInt nx, PetscInt nyz, PetscReal f[2], PetscInt *ndofs)
{
  MechSystem sys;
  MechModes  modes;
  char       opts[512];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s -solid_beam_cells %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT, kinds[kind], beam, nx, nyz, nyz));
  PetscCall(Modes(PETSC_COMM_WORLD, opts, 2, &sys, &modes));
  PetscCall(MechModesGetFrequency(modes, 0, &f[0], NULL, NULL));
  PetscCall(MechModesGetFrequency(modes, 1, &f[1], NULL, NULL));
  PetscCall(MechModesGetSize(modes, NULL, ndofs));
  PetscCall(MechModesDestroy(&modes));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestConvergence(PetscBool table)
{
  static const PetscInt nmesh[NKIND] = {4, 2, 4, 2}; /* boxes 8 x 1 x 1 times 2^k */
  PetscReal             f[NKIND][4][2], fref, e[4], rate;
  PetscInt              nd[NKIND][4];

  PetscFunctionBegin;
  for (PetscInt k = 0; k < NKIND; k++)
    for (PetscInt m = 0; m < nmesh[k]; m++) PetscCall(Bending(k, 8 << m, 1 << m, f[k][m], &nd[k][m]));
  {
    PetscReal f32[2];
    PetscInt  n32;

    PetscCall(Bending(3, 32, 4, f32, &n32));
    fref = f32[0] + (f32[0] - f[3][1][0]) / 15;
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "convergence: the first bending frequency against %.10g (Q2 16 x 2 x 2 and 32 x 4 x 4, Richardson h^4)\n", (double)fref));
  for (PetscInt k = 0; k < NKIND; k++) {
    for (PetscInt m = 0; m < nmesh[k]; m++) {
      e[m] = (f[k][m][0] - fref) / fref;
      rate = m ? PetscLog2Real(e[m - 1] / e[m]) : 0;
      if (table || m == nmesh[k] - 1) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s %3" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " (%6" PetscInt_FMT " free dofs): f1 = %.10f  error %+.3e  rate %.2f  f2/f1 - 1 = %.2e\n", kindname[k], (PetscInt)(8 << m), (PetscInt)(1 << m), (PetscInt)(1 << m), nd[k][m], (double)f[k][m][0], (double)e[m], (double)rate, (double)(f[k][m][1] / f[k][m][0] - 1)));
    }
    rate = PetscLog2Real(e[nmesh[k] - 2] / e[nmesh[k] - 1]);
    CHECK(e[nmesh[k] - 1] > 0, "%s: the frequency %.10g is not above the converged one\n", kindname[k], (double)f[k][nmesh[k] - 1][0]);
    if (k == 0 || k == 2) CHECK(rate >= 1.7 && rate <= 2.3, "%s: the observed rate %.2f is not near 2\n", kindname[k], (double)rate);
    else {
      CHECK(rate >= 3.2 && rate <= 4.6, "%s: the observed rate %.2f is not near 4\n", kindname[k], (double)rate);
      CHECK(PetscAbsReal(e[nmesh[k] - 1]) <= 2e-4, "%s: %.3e from the converged frequency on 16 x 2 x 2 boxes\n", kindname[k], (double)e[nmesh[k] - 1]);
    }
    /* the square section's two bending frequencies: equal for hexahedra, split by the Kuhn triangulation */
    for (PetscInt m = 0; m < nmesh[k]; m++) {
      PetscReal split = f[k][m][1] / f[k][m][0] - 1;
      if (k >= 2) CHECK(split <= 1e-10, "%s: the double bending frequency split by %.2e\n", kindname[k], (double)split);
      else CHECK(split > 1e-6, "%s: the tetrahedra's two bending frequencies not split (%.2e)\n", kindname[k], (double)split);
    }
  }
  PetscFunctionReturn(0);
}

/* A free body: six rigid modes, orthonormal shapes, the same elastic frequencies on one rank */
static PetscErrorCode TestFree(void)
{
  const char     opts[] = "-solid_cell hex -solid_order 1 -solid_beam_cells 8,2,2 -solid_beam_size 1,0.1,0.1 -solid_material linear -solid_E 1 -solid_nu 0.3 -solid_density 1 -solid_g 0,0,0 -solid_fix none";
  const PetscInt N      = 12;
  MechSystem     sys, sys1     = NULL;
  MechModes      modes, modes1 = NULL;
  Mat            K, M;
  Vec            q, v, *x, y;
  PetscInt       nrigid = 0;
  PetscReal      lam[12], f7, worstK = 0, worstOrth = 0, mass[3], meffsum[3] = {0, 0, 0}, worstRank = 0;
  PetscMPIInt    rank, size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(Modes(PETSC_COMM_WORLD, opts, N, &sys, &modes));
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(MechSystemCreateOperator(sys, &K));
  PetscCall(MechSystemComputeOperator(sys, 0, q, v, 1, 0, 0, K));
  PetscCall(MechSystemGetMass(sys, &M));
  PetscCall(VecDuplicateVecs(q, N, &x));
  PetscCall(VecDuplicate(q, &y));
  for (PetscInt i = 0; i < N; i++) {
    PetscReal hz, meff[3], nrm;
    PetscBool rigid;

    PetscCall(MechModesGetFrequency(modes, i, &hz, &lam[i], &rigid));
    PetscCall(MechModesGetShape(modes, i, x[i]));
    PetscCall(MechModesGetParticipation(modes, i, NULL, meff, mass));
    if (rigid) {
      PetscReal nk;

      nrigid++;
      CHECK(hz == 0, "mode %" PetscInt_FMT ": rigid but reported at %g Hz\n", i + 1, (double)hz);
      PetscCall(MatMult(K, x[i], y));
      PetscCall(VecNorm(y, NORM_2, &nk));
      PetscCall(MatNorm(K, NORM_FROBENIUS, &nrm));
      PetscCall(VecNorm(x[i], NORM_2, &hz));
      worstK = PetscMax(worstK, nk / (nrm * hz));
      for (PetscInt d = 0; d < 3; d++) meffsum[d] += meff[d];
    }
  }
  f7 = PetscSqrtReal(lam[6]) / (2 * PETSC_PI);
  for (PetscInt i = 0; i < N; i++)
    for (PetscInt j = 0; j <= i; j++) {
      PetscScalar xmx, xkx;
      PetscReal   scale = PetscMax(PetscAbsReal(lam[i]), PetscAbsReal(lam[N - 1]));

      PetscCall(MatMult(M, x[j], y));
      PetscCall(VecDot(y, x[i], &xmx));
      PetscCall(MatMult(K, x[j], y));
      PetscCall(VecDot(y, x[i], &xkx));
      worstOrth = PetscMax(worstOrth, PetscAbsReal(PetscRealPart(xmx) - (i == j ? 1 : 0)));
      worstOrth = PetscMax(worstOrth, PetscAbsReal(PetscRealPart(xkx) - (i == j ? lam[i] : 0)) / scale);
    }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "free body on %d rank(s): %" PetscInt_FMT " rigid modes, their |lambda| up to %.2e of the first elastic %.6g (f = %.6g Hz), |K y| / |K| |y| up to %.1e, M- and K-orthonormality to %.1e, rigid effective masses %.12g %.12g %.12g of %.12g\n", size, nrigid, (double)(PetscMax(PetscAbsReal(lam[0]), PetscAbsReal(lam[5])) / lam[6]), (double)lam[6], (double)f7, (double)worstK, (double)worstOrth, (double)meffsum[0], (double)meffsum[1], (double)meffsum[2], (double)mass[0]));
  CHECK(nrigid == 6, "%" PetscInt_FMT " rigid modes instead of 6\n", nrigid);
  for (PetscInt i = 0; i < 6; i++) CHECK(PetscAbsReal(lam[i]) <= 1e-9 * lam[6], "rigid mode %" PetscInt_FMT ": eigenvalue %g against %g\n", i + 1, (double)lam[i], (double)lam[6]);
  CHECK(worstK <= 1e-10, "a rigid mode's K y is %.2e of |K| |y|\n", (double)worstK);
  CHECK(worstOrth <= 1e-10, "the shapes are M- or K-orthonormal only to %.2e\n", (double)worstOrth);
  for (PetscInt d = 0; d < 3; d++) CHECK(PetscAbsReal(meffsum[d] / mass[d] - 1) <= 1e-10, "the rigid modes' effective masses along %" PetscInt_FMT " sum to %.14g of the mass %.14g\n", d, (double)meffsum[d], (double)mass[d]);
  /* a target far from 0 (-0.1, the first elastic eigenvalue 0.66): Krylov-Schur alone found 4 of the six
     zero eigenvalues there; the deflated rigid motions keep all six and the same elastic modes */
  {
    MechSystem sys2;
    MechModes  modes2;
    PetscInt   nr2   = 0;
    PetscReal  worst = 0;

    PetscCall(PetscOptionsSetValue(NULL, "-modes_eps_target", "-0.1"));
    PetscCall(Modes(PETSC_COMM_WORLD, opts, N, &sys2, &modes2));
    PetscCall(PetscOptionsClearValue(NULL, "-modes_eps_target"));
    for (PetscInt i = 0; i < N; i++) {
      PetscReal l;
      PetscBool rigid;

      PetscCall(MechModesGetFrequency(modes2, i, NULL, &l, &rigid));
      nr2 += rigid ? 1 : 0;
      if (i >= 6) worst = PetscMax(worst, PetscAbsReal(l / lam[i] - 1));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  at the target -0.1: %" PetscInt_FMT " rigid modes, the elastic eigenvalues those of the default target to %.1e\n", nr2, (double)worst));
    CHECK(nr2 == 6 && worst <= 1e-10, "at the target -0.1: %" PetscInt_FMT " rigid modes, elastic eigenvalues %.2e from the default's\n", nr2, (double)worst);
    PetscCall(MechModesDestroy(&modes2));
    PetscCall(MechSystemDestroy(&sys2));
  }
  /* one rank's frequencies, on rank 0, broadcast */
  {
    PetscReal ref[12];

    if (!rank) {
      PetscCall(Modes(PETSC_COMM_SELF, opts, N, &sys1, &modes1));
      for (PetscInt i = 0; i < N; i++) PetscCall(MechModesGetFrequency(modes1, i, NULL, &ref[i], NULL));
      PetscCall(MechModesDestroy(&modes1));
      PetscCall(MechSystemDestroy(&sys1));
    }
    PetscCallMPI(MPI_Bcast(ref, N, MPIU_REAL, 0, PETSC_COMM_WORLD));
    for (PetscInt i = 6; i < N; i++) worstRank = PetscMax(worstRank, PetscAbsReal(lam[i] / ref[i] - 1));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  the elastic eigenvalues agree with one rank's to %.1e\n", (double)worstRank));
    CHECK(worstRank <= 1e-10, "the elastic eigenvalues differ from one rank's by %.2e\n", (double)worstRank);
  }
  PetscCall(VecDestroyVecs(N, &x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&K));
  PetscCall(MechModesDestroy(&modes));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/* A force callback for a system without a tangent */
static PetscErrorCode ZeroForce(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
{
  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)q;
  (void)v;
  (void)ctx;
  PetscCall(VecZeroEntries(f));
  PetscFunctionReturn(0);
}

/* The error code of MechModesCompute() on sys with n modes and the options opts */
static PetscErrorCode ComputeError(MechSystem sys, PetscInt n, const char opts[], PetscErrorCode *ierr)
{
  MechModes modes;
  Vec       q, v;

  PetscFunctionBegin;
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(MechSystemCreateState(sys, &q, &v));
  PetscCall(MechModesCreate(sys, &modes));
  PetscCall(MechModesSetDimension(modes, n));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  *ierr = MechModesCompute(modes, 0, q, v);
  PetscCall(PetscPopErrorHandler());
  PetscCall(MechModesDestroy(&modes));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(TestClearOptions(opts));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestRefusals(void)
{
  MechSystem     sys;
  PetscErrorCode ierr;
  char           opts[512];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_cell hex -solid_beam_cells 4,1,1 -solid_fix none", beam));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
  PetscCall(ComputeError(sys, 61, "", &ierr));
  CHECK(ierr == PETSC_ERR_ARG_OUTOFRANGE, "61 modes of 60 free dofs: error %d\n", (int)ierr);
  PetscCall(ComputeError(sys, 60, "", &ierr));
  CHECK(ierr == 0, "60 modes of 60 free dofs: error %d\n", (int)ierr);
  PetscCall(ComputeError(sys, 8, "-modes_eps_target 0", &ierr));
  CHECK(ierr == PETSC_ERR_ARG_OUTOFRANGE, "the target 0 of a free body: error %d\n", (int)ierr);
  PetscCall(MechSystemDestroy(&sys));
  {
    Mat M;
    Vec q;

    PetscCall(MechSystemCreate(PETSC_COMM_WORLD, &sys));
    PetscCall(MatCreateConstantDiagonal(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 3, 3, 1.0, &M));
    PetscCall(MatConvert(M, MATAIJ, MAT_INPLACE_MATRIX, &M));
    PetscCall(MatCreateVecs(M, &q, NULL));
    PetscCall(MechSystemSetMass(sys, M));
    PetscCall(MechSystemSetForce(sys, ZeroForce, NULL));
    PetscCall(MechSystemSetInitialState(sys, q, q));
    PetscCall(ComputeError(sys, 1, "", &ierr));
    CHECK(ierr == PETSC_ERR_ARG_WRONG, "a system without a tangent: error %d\n", (int)ierr);
    PetscCall(MatDestroy(&M));
    PetscCall(VecDestroy(&q));
    PetscCall(MechSystemDestroy(&sys));
  }
  /* GNHEP: a follower pressure of zero marks the tangent non-symmetric without changing it */
  {
    MechSystem sysg, sysn;
    MechModes  mg, mn;
    PetscReal  worst = 0;
    char       opts2[1024];

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_cell hex -solid_order 2 -solid_beam_cells 8,1,1", beam));
    PetscCall(PetscSNPrintf(opts2, sizeof(opts2), "%s -solid_load tip -solid_load_tip_where x=1 -solid_load_tip_pressure 0", opts));
    PetscCall(Modes(PETSC_COMM_WORLD, opts, 6, &sysg, &mg));
    PetscCall(Modes(PETSC_COMM_WORLD, opts2, 6, &sysn, &mn));
    {
      const char *pg, *pn;

      PetscCall(MechModesGetInfo(mg, NULL, &pg, NULL, 0, NULL, NULL, NULL));
      PetscCall(MechModesGetInfo(mn, NULL, &pn, NULL, 0, NULL, NULL, NULL));
      CHECK(!strcmp(pg, "GHEP") && !strcmp(pn, "GNHEP"), "problems %s and %s instead of GHEP and GNHEP\n", pg, pn);
    }
    for (PetscInt i = 0; i < 6; i++) {
      PetscReal a, b;

      PetscCall(MechModesGetFrequency(mg, i, &a, NULL, NULL));
      PetscCall(MechModesGetFrequency(mn, i, &b, NULL, NULL));
      worst = PetscMax(worst, PetscAbsReal(b / a - 1));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "refusals checked; GNHEP against GHEP on six modes: %.1e\n", (double)worst));
    CHECK(worst <= 1e-9, "GNHEP's frequencies differ from GHEP's by %.2e\n", (double)worst);
    PetscCall(MechModesDestroy(&mg));
    PetscCall(MechModesDestroy(&mn));
    PetscCall(MechSystemDestroy(&sysg));
    PetscCall(MechSystemDestroy(&sysn));
  }
  PetscFunctionReturn(0);
}

/* The free decay of one mode: its modal coordinate eta = x^T M (q - X) at every step */
typedef struct {
  Mat        M;
  Vec        X, x, d, w;
  PetscInt   n, max;
  PetscReal *eta, *t;
} Decay;

static PetscErrorCode DecayMonitor(TS ts, PetscInt step, PetscReal t, Vec U, void *ctx)
{
  Decay      *dc = (Decay *)ctx;
  Vec         q, v;
  PetscScalar e;

  PetscFunctionBegin;
  (void)step;
  (void)U;
  PetscCall(TS2GetSolution(ts, &q, &v));
  PetscCall(VecWAXPY(dc->d, -1.0, dc->X, q));
  PetscCall(MatMult(dc->M, dc->d, dc->w));
  PetscCall(VecDot(dc->w, dc->x, &e));
  if (dc->n < dc->max) {
    dc->t[dc->n]     = t;
    dc->eta[dc->n++] = PetscRealPart(e);
  }
  PetscFunctionReturn(0);
}

/* The damping ratio from the peaks of eta (parabolas through the samples around each maximum) */
static PetscReal DecayRatio(const Decay *dc, PetscInt *npeaks)
{
  PetscReal peak[64];
  PetscInt  np = 0;

  for (PetscInt i = 1; i + 1 < dc->n && np < 64; i++) {
    PetscReal a = dc->eta[i - 1], b = dc->eta[i], c = dc->eta[i + 1];
    if (b > a && b >= c && b > 0) {
      PetscReal den = a - 2 * b + c, s = den != 0 ? 0.5 * (a - c) / den : 0;
      peak[np++] = b - 0.25 * (a - c) * s;
    }
  }
  *npeaks = np;
  if (np < 2) return -1;
  {
    PetscReal delta = PetscLogReal(peak[0] / peak[np - 1]) / (np - 1);
    return delta / PetscSqrtReal(4 * PETSC_PI * PETSC_PI + delta * delta);
  }
}

static PetscErrorCode TestDamping(void)
{
  const PetscReal zeta    = 0.02;
  const PetscInt  which[] = {0, 2};
  MechSystem      sys;
  MechModes       modes;
  char            opts[512];
  Vec             q0, v0;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_cell tet -solid_order 2 -solid_beam_cells 8,1,1 -solid_damping_ratio %g -solid_damping_modes 1,3", beam, (double)zeta));
  PetscCall(Modes(PETSC_COMM_WORLD, opts, 3, &sys, &modes));
  PetscCall(MechSystemCreateState(sys, &q0, &v0));
  for (PetscInt k = 0; k < 2; k++) {
    Decay     dc;
    Vec       q, v, qi, vi;
    TS        ts;
    PetscReal hz, period, ratio, nrm;
    PetscInt  np;

    PetscCall(MechModesGetFrequency(modes, which[k], &hz, NULL, NULL));
    period = 1 / hz;
    PetscCall(MechSystemGetMass(sys, &dc.M));
    dc.X = q0;
    PetscCall(VecDuplicate(q0, &dc.x));
    PetscCall(VecDuplicate(q0, &dc.d));
    PetscCall(VecDuplicate(q0, &dc.w));
    PetscCall(MechModesGetShape(modes, which[k], dc.x));
    dc.n   = 0;
    dc.max = 700;
    PetscCall(PetscMalloc2(dc.max, &dc.eta, dc.max, &dc.t));
    /* released from rest out of the mode's shape */
    PetscCall(VecDuplicate(q0, &qi));
    PetscCall(VecDuplicate(q0, &vi));
    PetscCall(VecNorm(dc.x, NORM_INFINITY, &nrm));
    PetscCall(VecWAXPY(qi, 1e-3 / nrm, dc.x, q0));
    PetscCall(VecZeroEntries(vi));
    PetscCall(MechSystemSetInitialState(sys, qi, vi));
    PetscCall(TestSolve(sys, TSMIDPOINT2, "decay_", "-snes_type ksponly -ksp_type preonly -pc_type lu", period / 100, 650, 6.5 * period, TS_EXACTFINALTIME_MATCHSTEP, DecayMonitor, &dc, &q, &v, &ts));
    ratio = DecayRatio(&dc, &np);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "damping: mode %" PetscInt_FMT " (%.6g Hz) decays at the ratio %.6f over %" PetscInt_FMT " peaks (asked %.6f: %+.2e)\n", which[k] + 1, (double)hz, (double)ratio, np, (double)zeta, (double)(ratio / zeta - 1)));
    CHECK(np >= 5 && PetscAbsReal(ratio / zeta - 1) <= 0.01, "mode %" PetscInt_FMT ": the decay ratio %.6f is not %.6f within 1 %%\n", which[k] + 1, (double)ratio, (double)zeta);
    PetscCall(TSDestroy(&ts));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(VecDestroy(&qi));
    PetscCall(VecDestroy(&vi));
    PetscCall(VecDestroy(&dc.x));
    PetscCall(VecDestroy(&dc.d));
    PetscCall(VecDestroy(&dc.w));
    PetscCall(PetscFree2(dc.eta, dc.t));
  }
  PetscCall(VecDestroy(&q0));
  PetscCall(VecDestroy(&v0));
  PetscCall(MechModesDestroy(&modes));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscBool conv = PETSC_FALSE, table = PETSC_FALSE, free_ = PETSC_FALSE, refusals = PETSC_FALSE, damping = PETSC_FALSE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-convergence", &conv, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-table", &table, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-free", &free_, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-refusals", &refusals, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-damping", &damping, NULL));
  if (conv || table) PetscCall(TestConvergence(table));
  if (free_) PetscCall(TestFree());
  if (refusals) PetscCall(TestRefusals());
  if (damping) PetscCall(TestDamping());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failed check(s)\n", failures ? "FAILED" : "passed", failures));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
