static const char help[] = "Tests of the solid's loads: tangents, uniform stress, follower pressure under rotation, closed surfaces, Lame's sphere, ranks.\n";

/*
  Every check prints its measured number and counts a failure when it misses its bound (meshes in
  tests/solid/loads, -dir; made by make_meshes.py):

  tangents   a dead traction, a total force and a follower pressure with time functions on a small
             neo-Hookean beam: K against central differences of f (<= 1e-6), not symmetric with the
             follower, the matrix-free action against the assembled tangent (<= 1e-13), f against
             the potential with dead loads only (<= 1e-6), linear flag (dead: linear; follower: not).
  bar        a free bar (linear material, nu = 0.3) pulled by a traction on one end and the same
             total force (-solid_load_NAME_force) on the other: the static solution's Cauchy stress
             is (T, 0, 0; 0 ...) in every cell to 1e-10 relative (bar.msh with Gmsh groups, and the
             built-in beam with -solid_load_NAME_where); on 1 rank and (-mpi) on several.
  rotation   the bar turned rigidly by 90 degrees: the follower pressure's nodal forces turn with it
             (f(R X) = R f(X), the load stays normal to the face), a dead traction's do not (<= 1e-13).
  closed     a follower pressure on the inner surface of a hollow sphere at a state turned through
             a large rotation and deformed: zero net force and torque (<= 1e-10 of p A and p A b),
             K against differences and f against the potential (a closed surface has one).
  lame       the hollow sphere a = 1, b = 1.5 under an internal pressure (linear material): the
             vertices' radial displacement against Lame's closed form, the error (rigid motions
             removed) shrinking at an observed rate >= 1.5 over three meshes.
  quadratic  the faces of quadratic tetrahedra (6-node triangles) and of hexahedra (4- and 9-node
             quadrangles), the built-in beam with -solid_order 2 and/or -solid_cell hex: the
             tangents as above; the total force of a traction on x = 1 equals traction x area
             (0.5 x 0.4) and that of -solid_load_NAME_force the force (<= 1e-14); the bar's uniform
             stress (both orders and cells); on the cylinder of curved 10-node tetrahedra (Gmsh,
             tests/solid/meshes) a follower pressure on its whole surface (three groups) at a state
             turned and deformed: zero net force and torque (<= 1e-12), K against differences, f
             against the potential; its top's area by the faces' quadrature against pi/4 (2e-3, and 10 times closer than the
             polygon of the corners).
  ranks      (-mpi) a dynamic run with every kind of load on all ranks against the same run on one
             rank, vertex by vertex (<= 1e-10 relative).

  The static solutions: a free body under a self-equilibrated load is determined up to a rigid
  motion, and the linear material's stiffness K has exactly the six rigid-body modes as its null
  space. K u = F is solved by CG with that null space attached (MatSetNullSpace(); F has no
  component along it): the solution orthogonal to the rigid modes, no constraint that would
  disturb the uniform stress. K is the tangent of the same body without its loads (the linear
  theory: the follower pressure at the reference configuration acts as the dead p N dA).
*/
#include <petscdmplex.h>
#include "fdcheck.h"
#include "testutil.h"

static PetscInt failures = 0;

#define CHECK(cond, ...) TestCount(failures, cond, __VA_ARGS__)

static char dir[PETSC_MAX_PATH_LEN] = ".";

/* The loads' part of the force at q: f(q) of the loaded system minus that of the unloaded twin */
static PetscErrorCode LoadForce(MechSystem loaded, MechSystem plain, PetscReal t, Vec q, Vec fl)
{
  Vec f0, v;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(q, &f0));
  PetscCall(VecDuplicate(q, &v));
  PetscCall(VecZeroEntries(v));
  PetscCall(MechSystemComputeForce(loaded, t, q, v, fl));
  PetscCall(MechSystemComputeForce(plain, t, q, v, f0));
  PetscCall(VecAXPY(fl, -1.0, f0));
  PetscCall(VecDestroy(&f0));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}

/*
  The static displacement u of the free linear body under its loads at t: K u = F with
  F = -(load part of f at X), K the tangent of the unloaded twin, the rigid-body modes its null
  space (CG, Jacobi, 1e-14). X is the reference (initial q).
*/
static PetscErrorCode StaticLinear(MechSystem loaded, MechSystem plain, PetscReal t, Vec *X, Vec *u)
{
  Vec          v, F;
  Mat          K;
  MatNullSpace nsp;
  KSP          ksp;

  PetscFunctionBegin;
  PetscCall(MechSystemCreateState(plain, X, &v));
  PetscCall(VecDuplicate(*X, &F));
  PetscCall(VecDuplicate(*X, u));
  PetscCall(LoadForce(loaded, plain, t, *X, F));
  PetscCall(VecScale(F, -1.0));
  PetscCall(MechSystemCreateOperator(plain, &K));
  PetscCall(MechSystemComputeOperator(plain, t, *X, v, 1.0, 0.0, 0.0, K));
  PetscCall(MatGetNearNullSpace(K, &nsp));
  PetscCheck(nsp, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The solid's tangent has no near-null space");
  PetscCall(MatSetNullSpace(K, nsp));
  PetscCall(MatNullSpaceRemove(nsp, F));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)K), &ksp));
  PetscCall(KSPSetOperators(ksp, K, K));
  PetscCall(KSPSetType(ksp, KSPCG));
  {
    PC pc;

    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
  }
  PetscCall(KSPSetTolerances(ksp, 1e-14, 0, PETSC_DEFAULT, 20000));
  PetscCall(KSPSolve(ksp, F, *u));
  {
    KSPConvergedReason reason;

    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "The static solve did not converge: %s", KSPConvergedReasons[reason]);
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&K));
  PetscCall(VecDestroy(&F));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}

/*
  The largest over the cells of |sigma - S| / |S|_max, sigma the linear material's Cauchy stress
  lambda tr(eps) I + 2 mu eps of the displacement u (eps from the cell's vertices, computed here
  from the DM, independently of the model), S the expected uniform stress
*/
static PetscErrorCode CellStressError(MechSystem sys, Vec u, PetscReal E, PetscReal nu, const PetscReal S[9], PetscReal *err)
{
  DM                 dm, cdm;
  PetscSection       ls, cs;
  Vec                ul, coords;
  const PetscScalar *ua, *ca;
  PetscInt           cStart, cEnd, vStart, vEnd;
  PetscReal          mu = E / (2 * (1 + nu)), lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), smax = 0, e = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < 9; i++) smax = PetscMax(smax, PetscAbsReal(S[i]));
  PetscCall(MechSystemGetDM(sys, &dm));
  PetscCall(DMGetLocalSection(dm, &ls));
  PetscCall(DMGetCoordinateDM(dm, &cdm));
  PetscCall(DMGetLocalSection(cdm, &cs));
  PetscCall(DMGetCoordinatesLocal(dm, &coords));
  PetscCall(DMGetLocalVector(dm, &ul));
  PetscCall(DMGlobalToLocalBegin(dm, u, INSERT_VALUES, ul));
  PetscCall(DMGlobalToLocalEnd(dm, u, INSERT_VALUES, ul));
  PetscCall(VecGetArrayRead(ul, &ua));
  PetscCall(VecGetArrayRead(coords, &ca));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt *cl = NULL, ncl, nv = 0;
    PetscReal X[4][3], U[4][3], A[9], B[9], Ainv[9], H[9], det, eps[9], tr, sig[9];

    PetscCall(DMPlexGetTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
    for (PetscInt j = 0; j < ncl; j++) {
      const PetscInt p = cl[2 * j];
      PetscInt       o, co;

      if (p < vStart || p >= vEnd) continue;
      PetscCall(PetscSectionGetOffset(ls, p, &o));
      PetscCall(PetscSectionGetOffset(cs, p, &co));
      for (PetscInt i = 0; i < 3; i++) {
        X[nv][i] = ca[co + i];
        U[nv][i] = ua[o + i];
      }
      nv++;
    }
    PetscCall(DMPlexRestoreTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
    /* H = [U1 - U0, ...] [X1 - X0, ...]^-1 (columns) */
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt a = 0; a < 3; a++) {
        A[3 * i + a] = X[a + 1][i] - X[0][i];
        B[3 * i + a] = U[a + 1][i] - U[0][i];
      }
    det     = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
    Ainv[0] = (A[4] * A[8] - A[5] * A[7]) / det;
    Ainv[1] = (A[2] * A[7] - A[1] * A[8]) / det;
    Ainv[2] = (A[1] * A[5] - A[2] * A[4]) / det;
    Ainv[3] = (A[5] * A[6] - A[3] * A[8]) / det;
    Ainv[4] = (A[0] * A[8] - A[2] * A[6]) / det;
    Ainv[5] = (A[2] * A[3] - A[0] * A[5]) / det;
    Ainv[6] = (A[3] * A[7] - A[4] * A[6]) / det;
    Ainv[7] = (A[1] * A[6] - A[0] * A[7]) / det;
    Ainv[8] = (A[0] * A[4] - A[1] * A[3]) / det;
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) H[3 * i + j] = B[3 * i] * Ainv[j] + B[3 * i + 1] * Ainv[3 + j] + B[3 * i + 2] * Ainv[6 + j];
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) eps[3 * i + j] = 0.5 * (H[3 * i + j] + H[3 * j + i]);
    tr = eps[0] + eps[4] + eps[8];
    for (PetscInt i = 0; i < 9; i++) {
      sig[i] = 2 * mu * eps[i] + (i % 4 == 0 ? lambda * tr : 0);
      e      = PetscMax(e, PetscAbsReal(sig[i] - S[i]) / smax);
    }
  }
  PetscCall(VecRestoreArrayRead(coords, &ca));
  PetscCall(VecRestoreArrayRead(ul, &ua));
  PetscCall(DMRestoreLocalVector(dm, &ul));
  PetscCall(MPIU_Allreduce(&e, err, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscFunctionReturn(0);
}

/* A small free neo-Hookean beam with the three kinds of load and time functions: tangents, action, potential */
static PetscErrorCode TestTangents(void)
{
  const char *const base    = "-solid_beam_cells 3,2,2 -solid_beam_size 1,0.5,0.4 -solid_density 1 -solid_g 0,0,0 -solid_fix none -solid_E 1 -solid_nu 0.3";
  const char *const loads[] = {"-solid_load a,b,c -solid_load_a_where y=0 -solid_load_a_pressure 0.3 -solid_load_a_time ramp:1 -solid_load_b_where x=1 -solid_load_b_traction 0.1,-0.2,0.3 -solid_load_b_time hat:0.2,0.5 -solid_load_c_where z=0.4 -solid_load_c_force 0.02,0.01,-0.03 -solid_load_c_time sin:2",
                               "-solid_load b,c -solid_load_b_where x=1 -solid_load_b_traction 0.1,-0.2,0.3 -solid_load_b_time hat:0.2,0.5 -solid_load_c_where z=0.4 -solid_load_c_force 0.02,0.01,-0.03 -solid_load_c_time sin:2"};
  const char *const mats[]  = {"neohookean", "linear"};
  PetscRandom       rnd;

  PetscFunctionBegin;
  PetscCall(FDRandomCreate(PETSC_COMM_WORLD, 11, &rnd));
  for (PetscInt m = 0; m < 2; m++) {
    for (PetscInt k = 0; k < 2; k++) {
      MechSystem sys;
      Vec        q, v, r;
      PetscReal  errK, errD, errL, errV = 0, erra;
      PetscBool  linear, sym;
      char       opts[1024];

      PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_material %s %s", base, mats[m], loads[k]));
      PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
      PetscCall(MechSystemCreateState(sys, &q, &v));
      PetscCall(VecDuplicate(q, &r));
      PetscCall(VecSetRandom(r, rnd));
      PetscCall(VecAXPY(q, 0.03, r));
      PetscCall(VecDestroy(&r));
      PetscCall(FDCheckTangents(sys, q, v, rnd, 1e-6, 1e-6, &errK, &errD, &linear, &errL, &sym));
      if (k == 1) PetscCall(FDCheckPotential(sys, q, rnd, 1e-4, 4, &errV));
      PetscCall(FDCheckOperatorShell(sys, 0.25, q, v, 0.7, 1.3, 2.1, rnd, &erra, NULL));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "tangents %-10s %-17s |K - FD| %.2e  symmetric %s  linear %s  |f - dV| %.2e  |action - assembled| %.2e\n", mats[m], k ? "dead loads" : "dead and follower", (double)errK, sym ? "yes" : "no", linear ? "yes" : "no", (double)errV, (double)erra));
      CHECK(errK <= 1e-6, "%s with loads: tangent error %.2e > 1e-6\n", mats[m], (double)errK);
      CHECK(erra <= 1e-13, "%s with loads: the action differs from the assembled tangent by %.2e\n", mats[m], (double)erra);
      CHECK(k == 1 || !sym, "%s with a follower pressure: the tangent is symmetric\n", mats[m]);
      CHECK(k == 0 || errV <= 1e-6, "%s with dead loads: f is not the gradient of the potential: %.2e\n", mats[m], (double)errV);
      CHECK((m == 1 && k == 1) == (linear == PETSC_TRUE), "%s %s: declared %s\n", mats[m], k ? "dead loads" : "follower", linear ? "linear" : "nonlinear");
      CHECK(!linear || errL <= 1e-9, "%s with dead loads is not linear: %.2e\n", mats[m], (double)errL);
      PetscCall(VecDestroy(&q));
      PetscCall(VecDestroy(&v));
      PetscCall(MechSystemDestroy(&sys));
    }
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

/* The free bar pulled at both ends: uniform Cauchy stress T e_x e_x in every cell */
static PetscErrorCode TestBar(const char label[], const char geom[], const char loads[], PetscReal T)
{
  MechSystem  loaded, plain;
  Vec         X, u;
  PetscReal   err, S[9] = {T, 0, 0, 0, 0, 0, 0, 0, 0};
  PetscMPIInt size;
  char        opts[2048];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_material linear -solid_E 1 -solid_nu 0.3 -solid_g 0,0,0 -solid_fix none %s", geom, loads));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &loaded));
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_material linear -solid_E 1 -solid_nu 0.3 -solid_g 0,0,0 -solid_fix none", geom));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &plain));
  PetscCall(StaticLinear(loaded, plain, 0.0, &X, &u));
  PetscCall(CellStressError(plain, u, 1.0, 0.3, S, &err));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bar %-28s %d rank(s): max over cells |sigma - T e_x e_x| / T = %.2e\n", label, size, (double)err));
  CHECK(err <= 1e-10, "%s: the stress is not the uniform traction: %.2e\n", label, (double)err);
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&u));
  PetscCall(MechSystemDestroy(&loaded));
  PetscCall(MechSystemDestroy(&plain));
  PetscFunctionReturn(0);
}

/* R X for the rotation by 90 degrees about z: (x, y, z) -> (-y, x, z), per vertex */
static PetscErrorCode Rotate90(Vec x, Vec y)
{
  const PetscScalar *a;
  PetscScalar       *b;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(x, &a));
  PetscCall(VecGetArray(y, &b));
  for (PetscInt i = 0; i < n; i += 3) {
    b[i]     = -a[i + 1];
    b[i + 1] = a[i];
    b[i + 2] = a[i + 2];
  }
  PetscCall(VecRestoreArray(y, &b));
  PetscCall(VecRestoreArrayRead(x, &a));
  PetscFunctionReturn(0);
}

/* The bar turned by 90 degrees: the follower pressure turns with it, a dead traction does not */
static PetscErrorCode TestRotation(void)
{
  char       geom[PETSC_MAX_PATH_LEN + 256], opts[2048];
  MechSystem follower, dead, plain;
  Vec        X, v, RX, f0, f1, Rf0, w;
  PetscReal  errf, errd, n0, total[3];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(geom, sizeof(geom), "-solid_mesh %s/bar.msh -solid_material svk -solid_E 1 -solid_nu 0.3 -solid_g 0,0,0 -solid_fix none", dir));
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_load r -solid_load_r_group right -solid_load_r_pressure 2", geom));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &follower));
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_load r -solid_load_r_group right -solid_load_r_traction -2,0,0", geom));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &dead));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", geom, &plain));
  PetscCall(MechSystemCreateState(plain, &X, &v));
  PetscCall(VecDuplicate(X, &RX));
  PetscCall(VecDuplicate(X, &f0));
  PetscCall(VecDuplicate(X, &f1));
  PetscCall(VecDuplicate(X, &Rf0));
  PetscCall(VecDuplicate(X, &w));
  PetscCall(Rotate90(X, RX));
  /* the follower: f(R X) = R f(X); at X it equals the dead traction -p e_x (the outward normal is e_x) */
  PetscCall(LoadForce(follower, plain, 0, X, f0));
  PetscCall(LoadForce(follower, plain, 0, RX, f1));
  PetscCall(Rotate90(f0, Rf0));
  PetscCall(FDRelativeError(f1, Rf0, w, &errf));
  PetscCall(VecStrideSumAll(f0, total));
  PetscCall(VecNorm(f0, NORM_2, &n0));
  PetscCall(LoadForce(dead, plain, 0, X, Rf0));
  PetscCall(FDRelativeError(f0, Rf0, w, &errd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "rotation: follower |f(RX) - R f(X)| / |f| = %.2e, at X = the dead traction -p e_x to %.2e, total force of p = 2 on 0.04: (%g, %g, %g)\n", (double)errf, (double)errd, (double)total[0], (double)total[1], (double)total[2]));
  CHECK(errf <= 1e-13 && n0 > 0, "the follower pressure does not turn with the face: %.2e\n", (double)errf);
  CHECK(errd <= 1e-13, "the follower pressure at the reference is not the dead traction -p N: %.2e\n", (double)errd);
  /* the left-hand side holds -F_ext: the pressure pushes the body by -p A e_x, f sums to p A e_x */
  CHECK(PetscAbsReal(total[0] - 2 * 0.04) <= 1e-13 && PetscAbsReal(total[1]) <= 1e-13 && PetscAbsReal(total[2]) <= 1e-13, "the pressure's total is (%g, %g, %g), not p A e_x on the left-hand side\n", (double)total[0], (double)total[1], (double)total[2]);
  /* the dead traction stays as it was */
  PetscCall(LoadForce(dead, plain, 0, RX, f1));
  PetscCall(FDRelativeError(f1, Rf0, w, &errd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "rotation: dead traction |f(RX) - f(X)| / |f| = %.2e\n", (double)errd));
  CHECK(errd <= 1e-13, "the dead traction changed under the rotation: %.2e\n", (double)errd);
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&RX));
  PetscCall(VecDestroy(&f0));
  PetscCall(VecDestroy(&f1));
  PetscCall(VecDestroy(&Rf0));
  PetscCall(VecDestroy(&w));
  PetscCall(MechSystemDestroy(&follower));
  PetscCall(MechSystemDestroy(&dead));
  PetscCall(MechSystemDestroy(&plain));
  PetscFunctionReturn(0);
}

/* A pressure on the closed inner surface of the hollow sphere: no net force or torque at a turned, deformed state */
/* q = R q: R turns by 2.5 rad about (1, 2, 3)/|.| (Rodrigues) */
static PetscErrorCode RotateLarge(Vec q)
{
  const PetscReal th = 2.5, nn = PetscSqrtReal(14.0), k[3] = {1 / nn, 2 / nn, 3 / nn}, c = PetscCosReal(th), s = PetscSinReal(th);
  PetscScalar    *x;
  PetscInt        n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArray(q, &x));
  for (PetscInt i = 0; i < n; i += 3) {
    const PetscReal y[3] = {x[i], x[i + 1], x[i + 2]}, kd = k[0] * y[0] + k[1] * y[1] + k[2] * y[2];
    const PetscReal kx[3] = {k[1] * y[2] - k[2] * y[1], k[2] * y[0] - k[0] * y[2], k[0] * y[1] - k[1] * y[0]};

    for (PetscInt j = 0; j < 3; j++) x[i + j] = y[j] * c + kx[j] * s + k[j] * kd * (1 - c);
  }
  PetscCall(VecRestoreArray(q, &x));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestClosed(void)
{
  char            geom[PETSC_MAX_PATH_LEN + 256], opts[2048];
  MechSystem      loaded, plain;
  Vec             q, v, r, f;
  PetscRandom     rnd;
  PetscReal       loc[6] = {0, 0, 0, 0, 0, 0}, tot[6], fmax, tmax, errK, errD, errL, errV;
  PetscBool       linear, sym;
  const PetscReal p = 3.0, area = 4 * PETSC_PI, b = 1.5;

  PetscFunctionBegin;
  PetscCall(FDRandomCreate(PETSC_COMM_WORLD, 5, &rnd));
  PetscCall(PetscSNPrintf(geom, sizeof(geom), "-solid_mesh %s/sphere_h0.35.msh -solid_material svk -solid_E 100 -solid_nu 0.3 -solid_g 0,0,0", dir));
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_load in -solid_load_in_group inner -solid_load_in_pressure %g", geom, (double)p));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &loaded));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", geom, &plain));
  PetscCall(MechSystemCreateState(plain, &q, &v));
  PetscCall(VecDuplicate(q, &r));
  PetscCall(VecDuplicate(q, &f));
  /* q = R (X + 0.05 r): R turns by 2.5 rad about (1, 2, 3)/|.| (Rodrigues) */
  PetscCall(VecSetRandom(r, rnd));
  PetscCall(VecAXPY(q, 0.05, r));
  {
    const PetscReal th = 2.5, nn = PetscSqrtReal(14.0), k[3] = {1 / nn, 2 / nn, 3 / nn}, c = PetscCosReal(th), s = PetscSinReal(th);
    PetscScalar    *x;
    PetscInt        n;

    PetscCall(VecGetLocalSize(q, &n));
    PetscCall(VecGetArray(q, &x));
    for (PetscInt i = 0; i < n; i += 3) {
      const PetscReal y[3] = {x[i], x[i + 1], x[i + 2]}, kd = k[0] * y[0] + k[1] * y[1] + k[2] * y[2];
      const PetscReal kx[3] = {k[1] * y[2] - k[2] * y[1], k[2] * y[0] - k[0] * y[2], k[0] * y[1] - k[1] * y[0]};

      for (PetscInt j = 0; j < 3; j++) x[i + j] = y[j] * c + kx[j] * s + k[j] * kd * (1 - c);
    }
    PetscCall(VecRestoreArray(q, &x));
  }
  PetscCall(LoadForce(loaded, plain, 0, q, f));
  {
    const PetscScalar *x, *y;
    PetscInt           n;

    PetscCall(VecGetLocalSize(q, &n));
    PetscCall(VecGetArrayRead(q, &x));
    PetscCall(VecGetArrayRead(f, &y));
    for (PetscInt i = 0; i < n; i += 3) {
      for (PetscInt j = 0; j < 3; j++) loc[j] += y[i + j];
      loc[3] += x[i + 1] * y[i + 2] - x[i + 2] * y[i + 1];
      loc[4] += x[i + 2] * y[i] - x[i] * y[i + 2];
      loc[5] += x[i] * y[i + 1] - x[i + 1] * y[i];
    }
    PetscCall(VecRestoreArrayRead(f, &y));
    PetscCall(VecRestoreArrayRead(q, &x));
  }
  PetscCall(MPIU_Allreduce(loc, tot, 6, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  fmax = PetscMax(PetscMax(PetscAbsReal(tot[0]), PetscAbsReal(tot[1])), PetscAbsReal(tot[2])) / (p * area);
  tmax = PetscMax(PetscMax(PetscAbsReal(tot[3]), PetscAbsReal(tot[4])), PetscAbsReal(tot[5])) / (p * area * b);
  PetscCall(FDCheckTangents(loaded, q, v, rnd, 1e-6, 1e-6, &errK, &errD, &linear, &errL, &sym));
  PetscCall(FDCheckPotential(loaded, q, rnd, 1e-4, 4, &errV));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "closed: pressure on the sphere's inner surface, turned by 2.5 rad and deformed: |net force| / (p A) = %.2e, |net torque| / (p A b) = %.2e, |K - FD| %.2e, |f - dV| %.2e\n", (double)fmax, (double)tmax, (double)errK, (double)errV));
  {
    PetscReal fn;

    /* p A / 3 on each vertex of a face: the vertices' forces are of order p A / n_faces, not zero */
    PetscCall(VecNorm(f, NORM_1, &fn));
    CHECK(fn >= 0.5 * p * area, "the pressure on the sphere's inner surface gives nodal forces of total size %.2e, not about p A = %.2e\n", (double)fn, (double)(p * area));
  }
  CHECK(fmax <= 1e-10 && tmax <= 1e-10, "the pressure on a closed surface has a net force %.2e or torque %.2e\n", (double)fmax, (double)tmax);
  CHECK(errK <= 1e-6, "the tangent with the pressure differs from differences: %.2e\n", (double)errK);
  CHECK(errV <= 1e-6, "the pressure on a closed surface is not the gradient of the potential: %.2e\n", (double)errV);
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&f));
  PetscCall(MechSystemDestroy(&loaded));
  PetscCall(MechSystemDestroy(&plain));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

/* Sum over the nodes of the loads' force (the 3 components) and of x x f (the torque about 0) */
static PetscErrorCode NetForce(MechSystem loaded, MechSystem plain, Vec q, PetscReal tot[6])
{
  Vec                f;
  const PetscScalar *x, *y;
  PetscInt           n;
  PetscReal          loc[6] = {0, 0, 0, 0, 0, 0};

  PetscFunctionBegin;
  PetscCall(VecDuplicate(q, &f));
  PetscCall(LoadForce(loaded, plain, 1, q, f));
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArrayRead(q, &x));
  PetscCall(VecGetArrayRead(f, &y));
  for (PetscInt i = 0; i < n; i += 3) {
    for (PetscInt j = 0; j < 3; j++) loc[j] += y[i + j];
    loc[3] += x[i + 1] * y[i + 2] - x[i + 2] * y[i + 1];
    loc[4] += x[i + 2] * y[i] - x[i] * y[i + 2];
    loc[5] += x[i] * y[i + 1] - x[i + 1] * y[i];
  }
  PetscCall(VecRestoreArrayRead(f, &y));
  PetscCall(VecRestoreArrayRead(q, &x));
  PetscCall(MPIU_Allreduce(loc, tot, 6, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  PetscCall(VecDestroy(&f));
  PetscFunctionReturn(0);
}

/* Loads on the faces of quadratic tetrahedra and of hexahedra (see the top of the file) */
static PetscErrorCode TestQuadratic(void)
{
  const char *const elems[] = {"-solid_order 2", "-solid_cell hex", "-solid_cell hex -solid_order 2"};
  const char *const base    = "-solid_beam_cells 3,2,2 -solid_beam_size 1,0.5,0.4 -solid_density 1 -solid_g 0,0,0 -solid_fix none -solid_E 1 -solid_nu 0.3";
  const char *const loads   = "-solid_load a,b,c -solid_load_a_where y=0 -solid_load_a_pressure 0.3 -solid_load_a_time ramp:1 -solid_load_b_where x=1 -solid_load_b_traction 0.1,-0.2,0.3 -solid_load_b_time hat:0.2,0.5 -solid_load_c_where z=0.4 -solid_load_c_force 0.02,0.01,-0.03 -solid_load_c_time sin:2";
  PetscRandom       rnd;
  char              opts[2048], plainopts[1024];

  PetscFunctionBegin;
  PetscCall(FDRandomCreate(PETSC_COMM_WORLD, 13, &rnd));
  for (PetscInt e = 0; e < 3; e++) {
    MechSystem      sys, plain;
    Vec             q, v, r;
    PetscReal       errK, errD, errL, errV, erra, tot[6], ft = 0, ff = 0;
    PetscBool       linear, sym;
    const PetscReal t[3] = {0.1, -0.2, 0.3}, F[3] = {0.02, 0.01, -0.03};

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s -solid_material neohookean %s", base, elems[e], loads));
    PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
    PetscCall(MechSystemCreateState(sys, &q, &v));
    PetscCall(VecDuplicate(q, &r));
    PetscCall(VecSetRandom(r, rnd));
    PetscCall(VecAXPY(q, 0.03, r));
    PetscCall(VecDestroy(&r));
    PetscCall(FDCheckTangents(sys, q, v, rnd, 1e-6, 1e-6, &errK, &errD, &linear, &errL, &sym));
    PetscCall(FDCheckOperatorShell(sys, 0.25, q, v, 0.7, 1.3, 2.1, rnd, &erra, NULL));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(MechSystemDestroy(&sys));
    /* dead loads alone: the potential, and the total forces at t = 1 (phi = 1 for constant) */
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s -solid_material neohookean -solid_load b,c -solid_load_b_where x=1 -solid_load_b_traction 0.1,-0.2,0.3 -solid_load_c_where z=0.4 -solid_load_c_force 0.02,0.01,-0.03", base, elems[e]));
    PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
    PetscCall(MechSystemCreateState(sys, &q, &v));
    PetscCall(VecDuplicate(q, &r));
    PetscCall(VecSetRandom(r, rnd));
    PetscCall(VecAXPY(q, 0.03, r));
    PetscCall(FDCheckPotential(sys, q, rnd, 1e-4, 4, &errV));
    PetscCall(VecDestroy(&r));
    PetscCall(MechSystemDestroy(&sys));
    for (PetscInt k = 0; k < 2; k++) {
      PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s -solid_material neohookean -solid_load b -solid_load_b_where %s -solid_load_b_%s %s", base, elems[e], k ? "z=0.4" : "x=1", k ? "force" : "traction", k ? "0.02,0.01,-0.03" : "0.1,-0.2,0.3"));
      PetscCall(PetscSNPrintf(plainopts, sizeof(plainopts), "%s %s -solid_material neohookean", base, elems[e]));
      PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
      PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", plainopts, &plain));
      PetscCall(NetForce(sys, plain, q, tot));
      /* f on the left-hand side: the load's nodal forces sum to minus the applied force */
      for (PetscInt i = 0; i < 3; i++) {
        if (k) ff = PetscMax(ff, PetscAbsReal(tot[i] + F[i]) / 0.03);
        else ft = PetscMax(ft, PetscAbsReal(tot[i] + 0.2 * t[i]) / (0.2 * 0.3));
      }
      PetscCall(MechSystemDestroy(&sys));
      PetscCall(MechSystemDestroy(&plain));
    }
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "quadratic %-30s |K - FD| %.2e  symmetric %s  |action - assembled| %.2e  dead |f - dV| %.2e  total force: traction x area %.1e, force %.1e\n", elems[e], (double)errK, sym ? "yes" : "no", (double)erra, (double)errV, (double)ft, (double)ff));
    CHECK(errK <= 1e-6, "%s with loads: tangent error %.2e > 1e-6\n", elems[e], (double)errK);
    CHECK(erra <= 1e-13, "%s with loads: the action differs from the assembled tangent by %.2e\n", elems[e], (double)erra);
    CHECK(!sym, "%s with a follower pressure: the tangent is symmetric\n", elems[e]);
    CHECK(errV <= 1e-6, "%s with dead loads: f is not the gradient of the potential: %.2e\n", elems[e], (double)errV);
    CHECK(ft <= 1e-14 && ff <= 1e-14, "%s: the total force of a traction differs from traction x area by %.2e, of a force from the force by %.2e\n", elems[e], (double)ft, (double)ff);
  }
  {
    /* the cylinder of curved 10-node tetrahedra: a pressure on its whole surface */
    const PetscReal p = 2.0, area = PETSC_PI * (1 + 0.5 * 0.5 * 2) / 1, R = 0.5;
    MechSystem      loaded, plain;
    Vec             q, v, r;
    PetscReal       tot[6], fmax, tmax, errK, errD, errL, errV, top[6], top1[6];
    PetscBool       linear, sym;
    char            geom[PETSC_MAX_PATH_LEN + 256];

    PetscCall(PetscSNPrintf(geom, sizeof(geom), "-solid_mesh %s/../meshes/cyl_tet10_msh41_bin.msh -solid_order 2 -solid_material svk -solid_E 100 -solid_nu 0.3 -solid_g 0,0,0 -solid_fix none", dir));
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_load s,t,b -solid_load_s_group side -solid_load_t_group top -solid_load_b_group bottom -solid_load_s_pressure %g -solid_load_t_pressure %g -solid_load_b_pressure %g", geom, (double)p, (double)p, (double)p));
    PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &loaded));
    PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", geom, &plain));
    PetscCall(MechSystemCreateState(plain, &q, &v));
    PetscCall(VecDuplicate(q, &r));
    PetscCall(VecSetRandom(r, rnd));
    PetscCall(VecAXPY(q, 0.03, r));
    PetscCall(RotateLarge(q));
    PetscCall(NetForce(loaded, plain, q, tot));
    fmax = PetscMax(PetscMax(PetscAbsReal(tot[0]), PetscAbsReal(tot[1])), PetscAbsReal(tot[2])) / (p * area);
    tmax = PetscMax(PetscMax(PetscAbsReal(tot[3]), PetscAbsReal(tot[4])), PetscAbsReal(tot[5])) / (p * area * R);
    PetscCall(FDCheckTangents(loaded, q, v, rnd, 1e-6, 1e-6, &errK, &errD, &linear, &errL, &sym));
    PetscCall(FDCheckPotential(loaded, q, rnd, 1e-4, 4, &errV));
    PetscCall(MechSystemDestroy(&loaded));
    /* the top's area: a unit traction's total force at the reference state */
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_load t -solid_load_t_group top -solid_load_t_traction 0,0,1", geom));
    PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &loaded));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(MechSystemCreateState(plain, &q, &v));
    PetscCall(NetForce(loaded, plain, q, top));
    {
      /* the same with the corners alone (-solid_order 1): the polygon's area */
      MechSystem l1, p1;
      Vec        q1, v1;
      char       o1[sizeof(opts) + 32];

      PetscCall(PetscSNPrintf(o1, sizeof(o1), "%s -solid_order 1", opts));
      PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", o1, &l1));
      PetscCall(PetscSNPrintf(o1, sizeof(o1), "%s -solid_order 1", geom));
      PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", o1, &p1));
      PetscCall(MechSystemCreateState(p1, &q1, &v1));
      PetscCall(NetForce(l1, p1, q1, top1));
      PetscCall(VecDestroy(&q1));
      PetscCall(VecDestroy(&v1));
      PetscCall(MechSystemDestroy(&l1));
      PetscCall(MechSystemDestroy(&p1));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "quadratic cylinder of curved 10-node tetrahedra, pressure on its surface, turned and deformed: |net force| / (p A) = %.2e, |net torque| / (p A R) = %.2e, |K - FD| %.2e, |f - dV| %.2e; top area %.8f, corners alone %.8f (pi/4 = %.8f)\n", (double)fmax, (double)tmax, (double)errK, (double)errV, (double)-top[2], (double)-top1[2], (double)(PETSC_PI / 4)));
    CHECK(fmax <= 1e-12 && tmax <= 1e-12, "the pressure on the cylinder's closed surface has a net force %.2e or torque %.2e\n", (double)fmax, (double)tmax);
    CHECK(errK <= 1e-6, "the tangent with the pressure on quadratic faces differs from differences: %.2e\n", (double)errK);
    CHECK(errV <= 1e-6, "the pressure on the cylinder is not the gradient of the potential: %.2e\n", (double)errV);
    /* the curved edges: the disc's area 10 times closer to pi/4 than the polygon of the corners */
    CHECK(PetscAbsReal(-top[2] - PETSC_PI / 4) <= 0.1 * PetscAbsReal(-top1[2] - PETSC_PI / 4) && PetscAbsReal(-top[2] - PETSC_PI / 4) <= 2e-3 * PETSC_PI / 4 && PetscAbsReal(top[0]) + PetscAbsReal(top[1]) <= 1e-14, "the cylinder's top: area %.8f, with the corners alone %.8f, pi/4 = %.8f, force %g, %g\n", (double)-top[2], (double)-top1[2], (double)(PETSC_PI / 4), (double)top[0], (double)top[1]);
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(VecDestroy(&r));
    PetscCall(MechSystemDestroy(&loaded));
    PetscCall(MechSystemDestroy(&plain));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

/*
  Lame's thick sphere a < r < b under the internal pressure p (linear material):
  u(r) = p a^3 / (E (b^3 - a^3)) ((1 - 2 nu) r + (1 + nu) b^3 / (2 r^2)). The error: the largest
  over the vertices of |u_h - u(r) X / r| (the difference with its rigid-motion part removed),
  divided by u(a).
*/
static PetscErrorCode LameError(const char mesh[], PetscReal *err, PetscReal *rms, PetscInt *nv)
{
  const PetscReal p = 1e-3, E = 1, nu = 0.3, a = 1, b = 1.5, c = p * a * a * a / (E * (b * b * b - a * a * a));
  char            geom[PETSC_MAX_PATH_LEN + 256], opts[2048];
  MechSystem      loaded, plain;
  Vec             X, u, d;
  Mat             K;
  MatNullSpace    nsp;
  PetscReal       e = 0, e2 = 0, ua = c * ((1 - 2 * nu) * a + (1 + nu) * b * b * b / (2 * a * a));

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(geom, sizeof(geom), "-solid_mesh %s/%s -solid_material linear -solid_E %g -solid_nu %g -solid_g 0,0,0", dir, mesh, (double)E, (double)nu));
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -solid_load in -solid_load_in_group inner -solid_load_in_pressure %g", geom, (double)p));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &loaded));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", geom, &plain));
  PetscCall(StaticLinear(loaded, plain, 0, &X, &u));
  PetscCall(VecDuplicate(u, &d));
  {
    const PetscScalar *x;
    PetscScalar       *y;
    PetscInt           n;

    PetscCall(VecGetLocalSize(X, &n));
    PetscCall(VecGetArrayRead(X, &x));
    PetscCall(VecGetArray(d, &y));
    for (PetscInt i = 0; i < n; i += 3) {
      const PetscReal r = PetscSqrtReal(x[i] * x[i] + x[i + 1] * x[i + 1] + x[i + 2] * x[i + 2]), ur = c * ((1 - 2 * nu) * r + (1 + nu) * b * b * b / (2 * r * r));

      for (PetscInt j = 0; j < 3; j++) y[i + j] = ur * x[i + j] / r;
    }
    PetscCall(VecRestoreArray(d, &y));
    PetscCall(VecRestoreArrayRead(X, &x));
    PetscCall(VecGetSize(X, nv));
    *nv /= 3;
  }
  PetscCall(VecAYPX(d, -1.0, u));
  PetscCall(MechSystemCreateOperator(plain, &K));
  PetscCall(MechSystemComputeOperator(plain, 0, X, X, 1.0, 0.0, 0.0, K));
  PetscCall(MatGetNearNullSpace(K, &nsp));
  PetscCall(MatNullSpaceRemove(nsp, d));
  {
    const PetscScalar *y;
    PetscInt           n;

    PetscCall(VecGetLocalSize(d, &n));
    PetscCall(VecGetArrayRead(d, &y));
    for (PetscInt i = 0; i < n; i += 3) {
      e = PetscMax(e, PetscSqrtReal(y[i] * y[i] + y[i + 1] * y[i + 1] + y[i + 2] * y[i + 2]));
      e2 += y[i] * y[i] + y[i + 1] * y[i + 1] + y[i + 2] * y[i + 2];
    }
    PetscCall(VecRestoreArrayRead(d, &y));
  }
  PetscCall(MPIU_Allreduce(&e, err, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(&e2, rms, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  *err /= ua;
  *rms = PetscSqrtReal(*rms / *nv) / ua;
  PetscCall(MatDestroy(&K));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&d));
  PetscCall(MechSystemDestroy(&loaded));
  PetscCall(MechSystemDestroy(&plain));
  PetscFunctionReturn(0);
}

/*
  The meshes' errors and the observed rates from their vertex counts n (h ~ n^-1/3):
  rate = 3 log(e_{k-1} / e_k) / log(n_k / n_{k-1})
*/
static PetscErrorCode TestLame(PetscInt nm, char *meshes[], PetscBool check)
{
  PetscReal e[16], r[16], rate = 0, rrate = 0;
  PetscInt  nv[16];

  PetscFunctionBegin;
  for (PetscInt k = 0; k < nm; k++) {
    PetscCall(LameError(meshes[k], &e[k], &r[k], &nv[k]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "lame: %-18s %7" PetscInt_FMT " vertices  max |u_h - u| / u(a) = %.3e  rms %.3e", meshes[k], nv[k], (double)e[k], (double)r[k]));
    if (k) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  rates %.2f %.2f", (double)(3 * PetscLogReal(e[k - 1] / e[k]) / PetscLogReal((PetscReal)nv[k] / nv[k - 1])), (double)(3 * PetscLogReal(r[k - 1] / r[k]) / PetscLogReal((PetscReal)nv[k] / nv[k - 1]))));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  }
  if (!check) PetscFunctionReturn(0);
  rate  = 3 * PetscLogReal(e[0] / e[nm - 1]) / PetscLogReal((PetscReal)nv[nm - 1] / nv[0]);
  rrate = 3 * PetscLogReal(r[0] / r[nm - 1]) / PetscLogReal((PetscReal)nv[nm - 1] / nv[0]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "lame: observed rates over the meshes: max %.2f, rms %.2f\n", (double)rate, (double)rrate));
  CHECK(rrate >= 1.5 && r[nm - 1] < r[0], "Lame's sphere: the error does not converge at the element's rate (rms rate %.2f)\n", (double)rrate);
  PetscFunctionReturn(0);
}

/* A dynamic run with every kind of load on all ranks and on one: the final states vertex by vertex */
static PetscErrorCode TestRanks(void)
{
  const char  tight[] = "-snes_rtol 1e-14 -snes_atol 1e-13 -snes_stol 0 -snes_max_it 30 -ksp_type gmres -ksp_rtol 1e-15 -ksp_atol 1e-16 -ksp_max_it 2000 -pc_type jacobi";
  char        opts[2048];
  MechSystem  par, ser;
  Vec         X, Xs, v0, q, v, qs, vs, Xa, qa, va;
  PetscInt    n, N, unmatched = 0;
  PetscReal   rel;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscSNPrintf(opts, sizeof(opts),
                          "-solid_mesh %s/bar.msh -solid_material neohookean -solid_E 100 -solid_nu 0.3 -solid_density 1 -solid_g 0,0,-1 -solid_fix x=0 "
                          "-solid_load r,top,side -solid_load_r_group right -solid_load_r_pressure 0.5 -solid_load_r_time hat:0.02,0.05 "
                          "-solid_load_top_where z=0.2 -solid_load_top_traction 0,0.2,-0.1 -solid_load_top_time sin:40 -solid_load_side_where y=0 -solid_load_side_force 0,0.01,0 -solid_load_side_time ramp:0.03",
                          dir));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &par));
  PetscCall(TestCreateModel(PETSC_COMM_SELF, "solid", opts, &ser));
  PetscCall(MechSystemCreateState(par, &X, &v0));
  PetscCall(VecDestroy(&v0));
  PetscCall(MechSystemCreateState(ser, &Xs, &v0));
  PetscCall(VecDestroy(&v0));
  PetscCall(TestIntegrate(par, TSMIDPOINT2, tight, 2e-3, 0.06, &q, &v, NULL, NULL));
  PetscCall(TestIntegrate(ser, TSMIDPOINT2, tight, 2e-3, 0.06, &qs, &vs, NULL, NULL));
  PetscCall(TestGatherAll(X, &Xa));
  PetscCall(TestGatherAll(q, &qa));
  PetscCall(TestGatherAll(v, &va));
  PetscCall(VecGetSize(Xs, &n));
  PetscCall(VecGetSize(Xa, &N));
  /* the same mesh: vertices matched exactly */
  PetscCall(TestCompareByPosition(Xa, qa, va, Xs, qs, vs, 0, &rel, &unmatched));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ranks: %d ranks against 1, bar with a follower pressure, a traction and a force (hat, sin, ramp), 30 midpoint2 steps: |(u, v) - (u, v)_serial| / |(u, v)_serial| = %.2e\n", size, (double)rel));
  CHECK(N == n && !unmatched, "%" PetscInt_FMT " vertices of the serial mesh are not in the distributed one\n", unmatched);
  CHECK(rel <= 1e-10, "%d ranks differ from 1 by %.2e\n", size, (double)rel);
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&Xs));
  PetscCall(VecDestroy(&Xa));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&qs));
  PetscCall(VecDestroy(&vs));
  PetscCall(VecDestroy(&qa));
  PetscCall(VecDestroy(&va));
  PetscCall(MechSystemDestroy(&par));
  PetscCall(MechSystemDestroy(&ser));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscBool mpi = PETSC_FALSE;
  char      geom[PETSC_MAX_PATH_LEN + 64], loads[1024];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-mpi", &mpi, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dir", dir, sizeof(dir), NULL));
  if (!mpi) {
    PetscCall(TestTangents());
    PetscCall(TestRotation());
    PetscCall(TestClosed());
    PetscCall(TestQuadratic());
    char     *list[16], *defaults[] = {"sphere_h0.35.msh", "sphere_h0.25.msh", "sphere_h0.18.msh"};
    PetscInt  nm = 16;
    PetscBool set;

    /* -lame_meshes a.msh,b.msh,...: the table of docs/solid.md on finer meshes (not checked) */
    PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-lame_meshes", list, &nm, &set));
    PetscCall(TestLame(set ? nm : 3, set ? list : defaults, set ? PETSC_FALSE : PETSC_TRUE));
    if (set)
      for (PetscInt k = 0; k < nm; k++) PetscCall(PetscFree(list[k]));
  }
  /* the bar: T = 0.01 on the right end, the same total force 0.01 * 0.04 on the left */
  PetscCall(PetscSNPrintf(geom, sizeof(geom), "-solid_mesh %s/bar.msh", dir));
  PetscCall(PetscSNPrintf(loads, sizeof(loads), "-solid_load r,l -solid_load_r_group right -solid_load_r_traction 0.01,0,0 -solid_load_l_label \"Face Sets\" -solid_load_l_value 1 -solid_load_l_force -4e-4,0,0"));
  PetscCall(TestBar("bar.msh, groups", geom, loads, 0.01));
  PetscCall(TestBar("built-in beam, planes", "-solid_beam_cells 6,2,2 -solid_beam_size 1,0.2,0.2",
                    "-solid_load r,l -solid_load_r_where x=1 -solid_load_r_traction 0.01,0,0 -solid_load_l_where x=0 -solid_load_l_force -4e-4,0,0", 0.01));
  /* the bar's uniform stress with quadratic tetrahedra and hexahedra: their faces' loads */
  PetscCall(TestBar("built-in beam, P2 tetrahedra", "-solid_beam_cells 6,2,2 -solid_beam_size 1,0.2,0.2 -solid_order 2",
                    "-solid_load r,l -solid_load_r_where x=1 -solid_load_r_traction 0.01,0,0 -solid_load_l_where x=0 -solid_load_l_force -4e-4,0,0", 0.01));
  PetscCall(TestBar("built-in beam, Q1 hexahedra", "-solid_beam_cells 6,2,2 -solid_beam_size 1,0.2,0.2 -solid_cell hex",
                    "-solid_load r,l -solid_load_r_where x=1 -solid_load_r_traction 0.01,0,0 -solid_load_l_where x=0 -solid_load_l_force -4e-4,0,0", 0.01));
  PetscCall(TestBar("built-in beam, Q2 hexahedra", "-solid_beam_cells 6,2,2 -solid_beam_size 1,0.2,0.2 -solid_cell hex -solid_order 2",
                    "-solid_load r,l -solid_load_r_where x=1 -solid_load_r_traction 0.01,0,0 -solid_load_l_where x=0 -solid_load_l_force -4e-4,0,0", 0.01));
  if (mpi) PetscCall(TestRanks());
  if (failures) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " check(s) FAILED\n", failures));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
