/*
  Modal analysis of a mechanical system (docs/modes.md): the natural frequencies and mode shapes
  of K(q) x = omega^2 M x linearized at a state (t, q, v), K the system's tangent dF/dq (with the
  geometric stiffness of a prestressed state and the load stiffness of follower loads) and M its
  mass, the fixed dofs removed (the eigenproblem lives on the free rows and columns: no spurious
  modes). SLEPc's EPS solves it: a generalized Hermitian problem (GHEP), or non-Hermitian (GNHEP)
  where the system says its tangent is not symmetric (MechSystemSetTangentNonsymmetric()).

  The lowest modes by shift-and-invert at a target below zero, so that the rigid-body modes of a
  body not fully held (K singular) are found at 0 like any other; the highest (the explicit types'
  stable step, src/ts/stability.c) by Krylov-Schur on M^-1 K. Every EPS, ST and KSP option is read
  under the object's prefix (-modes_eps_type, -modes_st_ksp_type, ...).

  Depends on the mechanical system only (src/mech), never on the integrators.
*/
#include "mechimpl.h"
#include <stdio.h>
#include <slepceps.h>
#include <petscblaslapack.h>

/* which presets of -modes_solver: the measured default first (docs/modes.md §3) */
typedef enum {
  MODES_SOLVER_DIRECT,    /* Krylov-Schur, shift-and-invert, a sparse direct factorization of K - sigma M */
  MODES_SOLVER_ITERATIVE, /* Krylov-Schur, shift-and-invert, CG with GAMG on K - sigma M */
  MODES_SOLVER_LOBPCG     /* LOBPCG preconditioned by GAMG on K - sigma M */
} ModesSolver;
static const char *const ModesSolvers[] = {"direct", "iterative", "lobpcg", "ModesSolver", "MODES_SOLVER_", NULL};

/* a computed eigenvalue this far from 0, relative to the scale tr K / tr M of the spectrum's top,
   is a rigid-body mode; a target this close to an eigenvalue makes K - sigma M singular */
#define MODES_RIGID_TOL    1e-12
#define MODES_SINGULAR_TOL 1e-10
/* the default target, -MODES_TARGET_FACTOR tr K / tr M: below every eigenvalue of a stable state */
#define MODES_TARGET_FACTOR 1e-6

struct _n_MechModes {
  MechSystem     sys;
  MPI_Comm       comm;
  char          *prefix;
  MechModesWhich which;
  PetscInt       nev;    /* asked for */
  PetscInt       n;      /* computed (0 before MechModesCompute()) */
  EPS            eps;    /* of the last computation */
  IS             free;   /* the free dofs (global numbers, this rank's) */
  PetscInt       nfree;  /* their global count */
  PetscReal      scale;  /* tr K_ff / tr M_ff */
  PetscReal      target; /* of the last shift-and-invert solve */
  PetscBool      nonsym;
  PetscReal      t;
  PetscReal     *lambda, *error; /* omega^2 and the relative residual of each mode */
  PetscBool     *rigid;
  Vec           *shape;        /* like the state, M-normalized, zero on the fixed dofs */
  PetscReal     *gamma, *meff; /* 3 per mode: participation factors and effective masses */
  PetscReal      mass[3];      /* r_d^T M r_d: the mass that a rigid translation moves */
  PetscInt       nrigid;       /* rigid-body modes found in the span of the rigid motions (deflated) */
  Vec           *rigidvec;     /* their shapes on the free dofs, M-orthonormal */
  PetscReal     *rigidlambda;  /* and Rayleigh quotients */
  PetscBool      hasmass;      /* the state has block size 3 (points in 3-D): participation defined */
  char           solver[256];  /* the eigensolver of the last computation, described */
  PetscBool      sinvert;      /* it factored or solved K - sigma M (shift-and-invert) */
  PetscLogDouble seconds;
};

/* SLEPc's classes need SlepcInitialize(); after PetscInitialize() it only registers them, and
   its finalization joins PETSc's */
static PetscErrorCode ModesInitializeSLEPc(void)
{
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(SlepcInitialized(&done));
  if (done) PetscFunctionReturn(0);
  PetscCall(SlepcInitialize(NULL, NULL, NULL, NULL));
  PetscCall(PetscRegisterFinalize(SlepcFinalize));
  PetscFunctionReturn(0);
}

static PetscErrorCode ModesFree(MechModes m)
{
  PetscFunctionBegin;
  if (m->shape) PetscCall(VecDestroyVecs(m->n, &m->shape));
  PetscCall(PetscFree5(m->lambda, m->error, m->rigid, m->gamma, m->meff));
  if (m->rigidvec) PetscCall(VecDestroyVecs(m->nrigid, &m->rigidvec));
  PetscCall(PetscFree(m->rigidlambda));
  m->nrigid    = 0;
  m->solver[0] = 0;
  m->sinvert   = PETSC_FALSE;
  m->n         = 0;
  PetscCall(ISDestroy(&m->free));
  PetscCall(EPSDestroy(&m->eps));
  PetscFunctionReturn(0);
}

/*@C
  MechModesCreate - Creates the modal analysis of a mechanical system: its natural frequencies and
  mode shapes, K(q) x = omega^2 M x at a state, with the fixed dofs removed.

  Collective

  Input Parameter:
. sys - the mechanical system (it needs a tangent: `MechSystemSetTangent()`)

  Output Parameter:
. modes - the new object; `MechModesCompute()` computes the modes

  Level: intermediate

.seealso: `MechModesCompute()`, `MechModesSetDimension()`, `MechModesView()`, `MechModesDestroy()`, `MECHMODES`
@*/
PetscErrorCode MechModesCreate(MechSystem sys, MechModes *modes)
{
  MechModes m;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidPointer(modes, 2);
  PetscCall(ModesInitializeSLEPc());
  PetscCall(PetscNew(&m));
  PetscCall(PetscObjectReference((PetscObject)sys));
  m->sys   = sys;
  m->comm  = PetscObjectComm((PetscObject)sys);
  m->which = MECH_MODES_LOWEST;
  m->nev   = 1;
  PetscCall(PetscStrallocpy("modes_", &m->prefix));
  *modes = m;
  PetscFunctionReturn(0);
}

/*@C
  MechModesDestroy - Frees the modal analysis.

  Collective

  Input Parameter:
. modes - the object (NULL allowed); set to NULL

  Level: intermediate

.seealso: `MechModesCreate()`
@*/
PetscErrorCode MechModesDestroy(MechModes *modes)
{
  PetscFunctionBegin;
  if (!*modes) PetscFunctionReturn(0);
  PetscCall(ModesFree(*modes));
  PetscCall(MechSystemDestroy(&(*modes)->sys));
  PetscCall(PetscFree((*modes)->prefix));
  PetscCall(PetscFree(*modes));
  PetscFunctionReturn(0);
}

/*@C
  MechModesSetDimension - How many modes to compute.

  Logically Collective

  Input Parameters:
+ modes - the modal analysis
- n     - the number of modes, at least 1 and at most the number of free dofs (checked by `MechModesCompute()`)

  Level: intermediate

.seealso: `MechModesCompute()`, `MechModesSetWhich()`
@*/
PetscErrorCode MechModesSetDimension(MechModes modes, PetscInt n)
{
  PetscFunctionBegin;
  PetscValidPointer(modes, 1);
  PetscCheck(n >= 1, modes->comm, PETSC_ERR_ARG_OUTOFRANGE, "The number of modes %" PetscInt_FMT " must be at least 1", n);
  modes->nev = n;
  PetscFunctionReturn(0);
}

/*@C
  MechModesSetWhich - Whether the lowest modes (the default) or the highest are computed.

  Logically Collective

  Input Parameters:
+ modes - the modal analysis
- which - `MECH_MODES_LOWEST` or `MECH_MODES_HIGHEST`

  Level: intermediate

  Note:
  The lowest modes come from shift-and-invert at a target below zero, the highest from Krylov-Schur
  on M^-1 K (a mass solve per iteration; the explicit integrators' stable step).

.seealso: `MechModesCompute()`, `MechSystemEstimateMaxFrequency()`
@*/
PetscErrorCode MechModesSetWhich(MechModes modes, MechModesWhich which)
{
  PetscFunctionBegin;
  PetscValidPointer(modes, 1);
  modes->which = which;
  PetscFunctionReturn(0);
}

/*@C
  MechModesSetOptionsPrefix - The prefix of the options of the eigensolver (default "modes_":
  -modes_eps_type, -modes_st_ksp_type, ...).

  Logically Collective

  Input Parameters:
+ modes  - the modal analysis
- prefix - the prefix, without the leading dash

  Level: intermediate

.seealso: `MechModesCompute()`
@*/
PetscErrorCode MechModesSetOptionsPrefix(MechModes modes, const char prefix[])
{
  PetscFunctionBegin;
  PetscValidPointer(modes, 1);
  PetscCall(PetscFree(modes->prefix));
  PetscCall(PetscStrallocpy(prefix, &modes->prefix));
  PetscFunctionReturn(0);
}

/* The free dofs: whole blocks of the state's block size when every fixed dof's block is fixed whole
   (the submatrices keep the block size) */
static PetscErrorCode ModesFreeDofs(MechModes m, Vec q)
{
  IS              fixed;
  PetscInt        rstart, rend, nloc, bs, nf = 0, nfix = 0;
  const PetscInt *idx;
  PetscBool      *isfixed, whole = PETSC_TRUE;
  PetscInt       *list;

  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(q, &rstart, &rend));
  PetscCall(VecGetBlockSize(q, &bs));
  nloc = rend - rstart;
  PetscCall(PetscCalloc1(nloc, &isfixed));
  PetscCall(MechSystemGetFixed(m->sys, &fixed));
  if (fixed) {
    PetscCall(ISGetLocalSize(fixed, &nfix));
    PetscCall(ISGetIndices(fixed, &idx));
    for (PetscInt i = 0; i < nfix; i++) {
      PetscCheck(idx[i] >= rstart && idx[i] < rend, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Fixed dof %" PetscInt_FMT " is not owned by this rank", idx[i]);
      isfixed[idx[i] - rstart] = PETSC_TRUE;
    }
    PetscCall(ISRestoreIndices(fixed, &idx));
  }
  for (PetscInt i = 0; i < nloc; i++)
    if (isfixed[i] != isfixed[i - i % bs]) whole = PETSC_FALSE;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &whole, 1, MPIU_BOOL, MPI_LAND, m->comm));
  PetscCall(PetscMalloc1(nloc, &list));
  if (whole && bs > 1) {
    for (PetscInt i = 0; i < nloc; i += bs)
      if (!isfixed[i]) list[nf++] = (rstart + i) / bs;
    PetscCall(ISCreateBlock(m->comm, bs, nf, list, PETSC_COPY_VALUES, &m->free));
  } else {
    for (PetscInt i = 0; i < nloc; i++)
      if (!isfixed[i]) list[nf++] = rstart + i;
    PetscCall(ISCreateGeneral(m->comm, nf, list, PETSC_COPY_VALUES, &m->free));
  }
  PetscCall(PetscFree(list));
  PetscCall(PetscFree(isfixed));
  PetscCall(ISGetSize(m->free, &m->nfree));
  PetscFunctionReturn(0);
}

/* K's near-null space (the rigid-body modes the model attached) restricted to the free dofs and
   orthonormalized again (MatNullSpaceCreate() wants it so), for GAMG */
static PetscErrorCode ModesNearNullSpace(MechModes m, Mat K, Mat Kf)
{
  MatNullSpace nsp, nspf;
  PetscBool    hasconst;
  PetscInt     nv, nk = 0;
  const Vec   *vecs;
  Vec         *sub;

  PetscFunctionBegin;
  PetscCall(MatGetNearNullSpace(K, &nsp));
  if (!nsp) PetscFunctionReturn(0);
  PetscCall(MatNullSpaceGetVecs(nsp, &hasconst, &nv, &vecs));
  if (hasconst || nv == 0) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(nv, &sub));
  for (PetscInt i = 0; i < nv; i++) {
    Vec         s;
    PetscReal   nrm;
    PetscScalar dot;

    PetscCall(MatCreateVecs(Kf, &sub[nk], NULL));
    PetscCall(VecGetSubVector(vecs[i], m->free, &s));
    PetscCall(VecCopy(s, sub[nk]));
    PetscCall(VecRestoreSubVector(vecs[i], m->free, &s));
    for (PetscInt j = 0; j < nk; j++) {
      PetscCall(VecDot(sub[nk], sub[j], &dot));
      PetscCall(VecAXPY(sub[nk], -dot, sub[j]));
    }
    PetscCall(VecNorm(sub[nk], NORM_2, &nrm));
    if (nrm > PETSC_SQRT_MACHINE_EPSILON) {
      PetscCall(VecScale(sub[nk], 1.0 / nrm));
      nk++;
    } else PetscCall(VecDestroy(&sub[nk]));
  }
  if (nk) {
    PetscCall(MatNullSpaceCreate(m->comm, PETSC_FALSE, nk, sub, &nspf));
    PetscCall(MatSetNearNullSpace(Kf, nspf));
    PetscCall(MatNullSpaceDestroy(&nspf));
  }
  for (PetscInt i = 0; i < nk; i++) PetscCall(VecDestroy(&sub[i]));
  PetscCall(PetscFree(sub));
  PetscFunctionReturn(0);
}

/* Orthonormalizes (Euclid) the candidates y[0..n), dropping dependent ones; returns how many are kept */
static PetscErrorCode ModesOrthonormalize(PetscInt n, Vec y[], PetscInt *kept)
{
  PetscInt k = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar dot;
    PetscReal   nrm, nrm0;

    PetscCall(VecNorm(y[i], NORM_2, &nrm0));
    for (PetscInt j = 0; j < k; j++) {
      PetscCall(VecDot(y[i], y[j], &dot));
      PetscCall(VecAXPY(y[i], -dot, y[j]));
    }
    PetscCall(VecNorm(y[i], NORM_2, &nrm));
    if (nrm > 1e-8 * nrm0 && nrm > 0) {
      Vec tmp = y[k];

      PetscCall(VecScale(y[i], 1.0 / nrm));
      y[k] = y[i];
      y[i] = tmp;
      k++;
    }
  }
  *kept = k;
  PetscFunctionReturn(0);
}

/*
  The rigid-body modes, exactly: the motions of a state of points in 3-D that move no fixed dof
  and strain nothing. Candidates are the six rigid motions about the current positions (block size
  3; else the near-null space the model attached to K) restricted to the free dofs; the projected
  problem Y^T K Y c = mu Y^T M Y c (at most 6 x 6, LAPACK) gives the combinations with mu ~ 0 whose
  K y vanishes too. They are deflated from the eigensolver (EPSSetDeflationSpace()), which then
  finds the elastic modes only: a Krylov method may miss copies of a multiple eigenvalue, and the
  rigid modes of a free body are six copies of 0.
*/
static PetscErrorCode ModesRigid(MechModes m, Vec q, Mat Kf, Mat Mf)
{
  MatNullSpace nsp = NULL;
  PetscInt     bs, nv = 0, nk = 0;
  const Vec   *vecs = NULL;
  Vec          y[6], ky;
  PetscScalar  A[36], B[36], work[64], dot;
  PetscReal    mu[6];
  PetscBLASInt n, one = 1, lwork = 64, info;
  PetscBool    hasconst;

  PetscFunctionBegin;
  PetscCall(VecGetBlockSize(q, &bs));
  if (bs == 3) PetscCall(MatNullSpaceCreateRigidBody(q, &nsp));
  else {
    PetscCall(MatGetNearNullSpace(Kf, &nsp));
    if (nsp) PetscCall(PetscObjectReference((PetscObject)nsp));
  }
  if (nsp) PetscCall(MatNullSpaceGetVecs(nsp, &hasconst, &nv, &vecs));
  nv = PetscMin(nv, 6);
  for (PetscInt i = 0; i < nv; i++) {
    PetscCall(MatCreateVecs(Kf, &y[i], NULL));
    if (bs == 3) {
      Vec s;

      PetscCall(VecGetSubVector(vecs[i], m->free, &s));
      PetscCall(VecCopy(s, y[i]));
      PetscCall(VecRestoreSubVector(vecs[i], m->free, &s));
    } else PetscCall(VecCopy(vecs[i], y[i]));
  }
  PetscCall(MatNullSpaceDestroy(&nsp));
  PetscCall(ModesOrthonormalize(nv, y, &nk));
  for (PetscInt i = nk; i < nv; i++) PetscCall(VecDestroy(&y[i]));
  if (!nk) PetscFunctionReturn(0);
  PetscCall(MatCreateVecs(Kf, &ky, NULL));
  for (PetscInt j = 0; j < nk; j++) {
    PetscCall(MatMult(Kf, y[j], ky));
    for (PetscInt i = 0; i < nk; i++) {
      PetscCall(VecDot(ky, y[i], &dot));
      A[i + nk * j] = dot;
    }
    PetscCall(MatMult(Mf, y[j], ky));
    for (PetscInt i = 0; i < nk; i++) {
      PetscCall(VecDot(ky, y[i], &dot));
      B[i + nk * j] = dot;
    }
  }
  /* a non-symmetric K: its symmetric part; K y = 0 is checked below */
  for (PetscInt i = 0; i < nk; i++)
    for (PetscInt j = 0; j < i; j++) A[i + nk * j] = A[j + nk * i] = 0.5 * (A[i + nk * j] + A[j + nk * i]);
  PetscCall(PetscBLASIntCast(nk, &n));
  PetscCallBLAS("LAPACKsygv", LAPACKsygv_(&one, "V", "U", &n, A, &n, B, &n, mu, work, &lwork, &info));
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK sygv failed (info %d) on the rigid-body motions", (int)info);
  PetscCall(VecDuplicateVecs(ky, nk, &m->rigidvec));
  PetscCall(PetscMalloc1(nk, &m->rigidlambda));
  for (PetscInt i = 0; i < nk; i++) {
    PetscReal nk2, nm2;

    if (PetscAbsReal(mu[i]) > MODES_RIGID_TOL) break; /* Kf is K / s */
    PetscCall(VecSet(m->rigidvec[m->nrigid], 0.0));
    for (PetscInt j = 0; j < nk; j++) PetscCall(VecAXPY(m->rigidvec[m->nrigid], A[j + nk * i], y[j]));
    PetscCall(MatMult(Kf, m->rigidvec[m->nrigid], ky));
    PetscCall(VecNorm(ky, NORM_2, &nk2));
    PetscCall(MatMult(Mf, m->rigidvec[m->nrigid], ky));
    PetscCall(VecNorm(ky, NORM_2, &nm2));
    if (nk2 > PETSC_SQRT_MACHINE_EPSILON * nm2) break;
    m->rigidlambda[m->nrigid++] = mu[i] * m->scale;
  }
  for (PetscInt i = m->nrigid; i < nk; i++) PetscCall(VecDestroy(&m->rigidvec[i]));
  if (!m->nrigid) PetscCall(PetscFree(m->rigidvec));
  for (PetscInt i = 0; i < nk; i++) PetscCall(VecDestroy(&y[i]));
  PetscCall(VecDestroy(&ky));
  PetscFunctionReturn(0);
}

/* The eigensolver's defaults (-<prefix>solver, the target), then its options (EPSSetFromOptions()) */
static PetscErrorCode ModesSetUpSolver(MechModes m, Mat Kf, Mat Mf)
{
  ST          st;
  KSP         ksp;
  PC          pc;
  PetscInt    solver = MODES_SOLVER_DIRECT;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(m->comm, &size));
  PetscCall(EPSCreate(m->comm, &m->eps));
  PetscCall(EPSSetOptionsPrefix(m->eps, m->prefix));
  PetscCall(EPSSetOperators(m->eps, Kf, Mf));
  PetscCall(EPSSetProblemType(m->eps, m->nonsym ? EPS_GNHEP : EPS_GHEP));
  PetscCall(EPSSetDimensions(m->eps, m->nev - m->nrigid, PETSC_DEFAULT, PETSC_DEFAULT));
  if (m->nrigid) PetscCall(EPSSetDeflationSpace(m->eps, m->nrigid, m->rigidvec));
  /* purification (one more application of the operator to each vector) is for a singular M; with M
     definite it only amplifies the round-off along the deflated rigid motions, by 1/|sigma| (residuals
     of 2e-5 on a free beam's double eigenvalues) */
  PetscCall(EPSSetPurify(m->eps, PETSC_FALSE));
  PetscCall(EPSGetST(m->eps, &st));
  PetscCall(STGetKSP(st, &ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  if (m->which == MECH_MODES_HIGHEST) {
    /* Krylov-Schur on M^-1 K: a mass solve per iteration, CG with Jacobi (M is well conditioned) */
    PetscCall(EPSSetWhichEigenpairs(m->eps, EPS_LARGEST_REAL));
    PetscCall(STSetType(st, STSHIFT));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(KSPSetTolerances(ksp, 1e-12, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  } else {
    PetscOptionsBegin(m->comm, m->prefix, "Modal analysis", "MechModes");
    PetscCall(MechOptionsEList("-solver", "How the lowest modes are found: direct (shift-and-invert, sparse factorization), iterative (shift-and-invert, CG with GAMG) or lobpcg (LOBPCG with GAMG)", "MechModesCompute", ModesSolvers, 3, ModesSolvers[solver], &solver, NULL));
    PetscOptionsEnd();
    PetscCall(EPSSetTarget(m->eps, m->target / m->scale));
    PetscCall(EPSSetWhichEigenpairs(m->eps, EPS_TARGET_MAGNITUDE));
    switch (solver) {
    case MODES_SOLVER_DIRECT:
      PetscCall(STSetType(st, STSINVERT));
      PetscCall(KSPSetType(ksp, KSPPREONLY));
      PetscCall(PCSetType(pc, m->nonsym ? PCLU : PCCHOLESKY));
#if defined(PETSC_HAVE_MUMPS)
      PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
#endif
      break;
    case MODES_SOLVER_ITERATIVE:
      PetscCall(STSetType(st, STSINVERT));
      PetscCall(KSPSetType(ksp, m->nonsym ? KSPGMRES : KSPCG));
      PetscCall(PCSetType(pc, PCGAMG));
      PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 10000));
      break;
    default:
      PetscCall(EPSSetType(m->eps, EPSLOBPCG));
      PetscCall(EPSSetWhichEigenpairs(m->eps, EPS_SMALLEST_REAL));
      PetscCall(STSetType(st, STPRECOND));
      PetscCall(STSetShift(st, m->target / m->scale));
      PetscCall(KSPSetType(ksp, KSPPREONLY));
      PetscCall(PCSetType(pc, PCGAMG));
    }
  }
  PetscCall(EPSSetFromOptions(m->eps));
  {
    PetscBool   given, lobpcg;
    PetscScalar target;

    /* a target given (-modes_eps_target) is an eigenvalue of K x = lambda M x: scaled as K */
    PetscCall(PetscOptionsHasName(NULL, m->prefix, "-eps_target", &given));
    if (given && m->which == MECH_MODES_LOWEST) {
      PetscCall(EPSGetTarget(m->eps, &target));
      m->target = PetscRealPart(target);
      PetscCall(EPSSetTarget(m->eps, m->target / m->scale));
      PetscCall(PetscObjectTypeCompare((PetscObject)m->eps, EPSLOBPCG, &lobpcg));
      if (lobpcg) PetscCall(STSetShift(st, m->target / m->scale));
    }
  }
  PetscFunctionReturn(0);
}

/* The eigensolver, its transformation and linear solver in words, and whether it is shift-and-invert */
static PetscErrorCode ModesDescribe(MechModes m)
{
  EPSType     etype;
  STType      stype;
  KSPType     ktype;
  PCType      ptype;
  const char *fac = NULL;
  ST          st;
  KSP         ksp;
  PC          pc;

  PetscFunctionBegin;
  PetscCall(EPSGetType(m->eps, &etype));
  PetscCall(EPSGetST(m->eps, &st));
  PetscCall(STGetType(st, &stype));
  PetscCall(STGetKSP(st, &ksp));
  PetscCall(KSPGetType(ksp, &ktype));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetType(pc, &ptype));
  PetscCall(PCFactorGetMatSolverType(pc, &fac));
  PetscCall(PetscSNPrintf(m->solver, sizeof(m->solver), "%s %s %s %s%s%s", etype, stype, ktype ? ktype : "", ptype ? ptype : "", fac ? " " : "", fac ? fac : ""));
  PetscCall(PetscStrcmp(stype, STSINVERT, &m->sinvert));
  PetscFunctionReturn(0);
}

/* EPSSolve(), its failures told as what they mean: a singular shifted operator is the user's target */
static PetscErrorCode ModesSolve(MechModes m)
{
  PetscErrorCode     ierr;
  ST                 st;
  KSP                ksp;
  KSPConvergedReason reason = KSP_CONVERGED_ITERATING;
  STType             sttype;
  PetscBool          sinvert;

  PetscFunctionBegin;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = EPSSolve(m->eps);
  PetscCall(PetscPopErrorHandler());
  if (!ierr) PetscFunctionReturn(0);
  PetscCall(EPSGetST(m->eps, &st));
  PetscCall(STGetType(st, &sttype));
  PetscCall(PetscStrcmp(sttype, STSINVERT, &sinvert));
  PetscCall(STGetKSP(st, &ksp));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCheck(!(sinvert && reason == KSP_DIVERGED_PC_FAILED), m->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%seps_target %g: K - %g M is singular (its factorization failed): the target must not be an eigenvalue; take one below the lowest, as the default %g does", m->prefix, (double)m->target, (double)m->target, (double)(-MODES_TARGET_FACTOR * m->scale));
  PetscCheck(!(sinvert && reason < 0), m->comm, PETSC_ERR_NOT_CONVERGED, "The linear solver of shift-and-invert (-%sst_ksp_type) failed on K - %g M: %s; it may be singular or indefinite at the target (-%seps_target)", m->prefix, (double)m->target, KSPConvergedReasons[reason], m->prefix);
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* Rank-independent weights of the dofs (a hash of the reference position and the component), by
   which the sign of each shape is fixed: sum_i w_i x_i > 0 */
static PetscReal ModesHash(PetscReal x, PetscInt comp)
{
  unsigned long long h = (unsigned long long)(long long)floor(x * 1048576.0 + 0.5) * 0x9e3779b97f4a7c15ULL + (unsigned long long)comp;
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return 0.5 + (PetscReal)(h >> 11) / 9007199254740992.0;
}

static PetscErrorCode ModesSignWeights(MechModes m, Vec w)
{
  Vec          q0, v0;
  PetscInt     n, bs, rstart;
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(MechSystemCreateState(m->sys, &q0, &v0));
  PetscCall(VecGetLocalSize(q0, &n));
  PetscCall(VecGetBlockSize(q0, &bs));
  PetscCall(VecGetOwnershipRange(q0, &rstart, NULL));
  PetscCall(VecCopy(q0, w));
  PetscCall(VecGetArray(w, &a));
  for (PetscInt i = 0; i < n; i++) a[i] = ModesHash(PetscRealPart(a[i]), (rstart + i) % bs);
  PetscCall(VecRestoreArray(w, &a));
  PetscCall(VecDestroy(&q0));
  PetscCall(VecDestroy(&v0));
  PetscFunctionReturn(0);
}

/* The translations r_d of a state of points in 3-D (block size 3): M r_d, and r_d^T M r_d */
static PetscErrorCode ModesTranslations(MechModes m, Vec q, Vec Mr[3])
{
  Mat          M;
  PetscInt     n, bs;
  Vec          r;
  PetscScalar *a, dot;

  PetscFunctionBegin;
  PetscCall(VecGetBlockSize(q, &bs));
  PetscCall(VecGetLocalSize(q, &n));
  m->hasmass = bs == 3 ? PETSC_TRUE : PETSC_FALSE;
  if (!m->hasmass) PetscFunctionReturn(0);
  PetscCall(MechSystemGetMass(m->sys, &M));
  PetscCall(VecDuplicate(q, &r));
  for (PetscInt d = 0; d < 3; d++) {
    PetscCall(VecGetArray(r, &a));
    for (PetscInt i = 0; i < n; i++) a[i] = i % 3 == d ? 1.0 : 0.0;
    PetscCall(VecRestoreArray(r, &a));
    PetscCall(VecDuplicate(q, &Mr[d]));
    PetscCall(MatMult(M, r, Mr[d]));
    PetscCall(VecDot(Mr[d], r, &dot));
    m->mass[d] = PetscRealPart(dot);
  }
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(0);
}

/* Mode k from its eigenvalue and its vector on the free dofs: the shape on the whole state,
   M-normalized and signed, its rigidity and participation */
static PetscErrorCode ModesExtract(MechModes m, PetscInt k, PetscReal lambda, PetscReal error, Vec xr, Vec w, Vec Mx, Vec Mr[3])
{
  Mat         M;
  PetscScalar dot;
  PetscReal   nrm;

  PetscFunctionBegin;
  PetscCall(MechSystemGetMass(m->sys, &M));
  m->lambda[k] = lambda;
  m->error[k]  = error;
  m->rigid[k]  = PetscAbsReal(lambda) <= MODES_RIGID_TOL * m->scale ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(VecZeroEntries(m->shape[k]));
  PetscCall(VecISCopy(m->shape[k], m->free, SCATTER_FORWARD, xr));
  PetscCall(MatMult(M, m->shape[k], Mx));
  PetscCall(VecDot(Mx, m->shape[k], &dot));
  nrm = PetscSqrtReal(PetscAbsReal(PetscRealPart(dot)));
  PetscCall(VecDot(m->shape[k], w, &dot));
  PetscCheck(nrm > 0, m->comm, PETSC_ERR_PLIB, "Mode %" PetscInt_FMT " has a zero M-norm", k + 1);
  PetscCall(VecScale(m->shape[k], PetscRealPart(dot) < 0 ? -1.0 / nrm : 1.0 / nrm));
  for (PetscInt d = 0; d < 3 && m->hasmass; d++) {
    PetscCall(VecDot(m->shape[k], Mr[d], &dot));
    m->gamma[3 * k + d] = PetscRealPart(dot);
    m->meff[3 * k + d]  = PetscRealPart(dot) * PetscRealPart(dot);
  }
  PetscFunctionReturn(0);
}

/* The rigid modes, then the solver's converged pairs in the order asked for (ascending eigenvalues
   for the lowest modes) */
static PetscErrorCode ModesCollect(MechModes m, Mat Kf, Mat Mf, Vec q)
{
  PetscInt    nconv = 0, its = 0, *perm, nr = PetscMin(m->nrigid, m->nev), want = m->nev - nr;
  PetscReal  *key;
  Vec         xr, xm, w, Mx, Mr[3] = {NULL, NULL, NULL};
  PetscScalar kr, ki;

  PetscFunctionBegin;
  if (m->eps) {
    PetscCall(EPSGetConverged(m->eps, &nconv));
    PetscCall(EPSGetIterationNumber(m->eps, &its));
  }
  PetscCheck(nconv >= want, m->comm, PETSC_ERR_NOT_CONVERGED, "The eigensolver found %" PetscInt_FMT " of the %" PetscInt_FMT " modes asked for in %" PetscInt_FMT " iterations (-%seps_max_it, -%seps_tol, -%seps_ncv)", nconv + nr, m->nev, its, m->prefix, m->prefix, m->prefix);
  PetscCall(PetscMalloc2(nconv + 1, &key, nconv + 1, &perm));
  for (PetscInt j = 0; j < nconv; j++) {
    PetscCall(EPSGetEigenvalue(m->eps, j, &kr, &ki));
    key[j]  = m->which == MECH_MODES_LOWEST ? PetscRealPart(kr) : -PetscRealPart(kr); /* of K / s */
    perm[j] = j;
  }
  PetscCall(PetscSortRealWithPermutation(nconv, key, perm));
  m->n = m->nev;
  PetscCall(PetscCalloc5(m->n, &m->lambda, m->n, &m->error, m->n, &m->rigid, 3 * m->n, &m->gamma, 3 * m->n, &m->meff));
  PetscCall(VecDuplicateVecs(q, m->n, &m->shape));
  PetscCall(MatCreateVecs(Kf, &xr, &xm));
  PetscCall(VecDuplicate(q, &w));
  PetscCall(VecDuplicate(q, &Mx));
  PetscCall(ModesSignWeights(m, w));
  PetscCall(ModesTranslations(m, q, Mr));
  for (PetscInt k = 0; k < nr; k++) PetscCall(ModesExtract(m, k, m->rigidlambda[k], 0.0, m->rigidvec[k], w, Mx, Mr));
  for (PetscInt k = 0; k < want; k++) {
    PetscReal err;

    PetscCall(EPSGetEigenpair(m->eps, perm[k], &kr, &ki, xr, NULL));
    PetscCall(EPSComputeError(m->eps, perm[k], EPS_ERROR_RELATIVE, &err));
    /* M-orthogonal to the rigid modes: the round-off along them removed */
    for (PetscInt r = 0; r < m->nrigid; r++) {
      PetscScalar dot;

      PetscCall(MatMult(Mf, m->rigidvec[r], xm));
      PetscCall(VecDot(xr, xm, &dot));
      PetscCall(VecAXPY(xr, -dot, m->rigidvec[r]));
    }
    PetscCall(ModesExtract(m, nr + k, PetscRealPart(kr) * m->scale, err, xr, w, Mx, Mr));
  }
  for (PetscInt d = 0; d < 3; d++) PetscCall(VecDestroy(&Mr[d]));
  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&xm));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&Mx));
  PetscCall(PetscFree2(key, perm));
  PetscFunctionReturn(0);
}

/* K and M on the free dofs, and the scale tr K_ff / tr M_ff of the top of the spectrum */
static PetscErrorCode ModesOperators(MechModes m, PetscReal t, Vec q, Vec v, Mat *Kf, Mat *Mf)
{
  Mat         K, M;
  Vec         dk, dm;
  PetscScalar trk, trm;

  PetscFunctionBegin;
  PetscCall(MechSystemCreateOperator(m->sys, &K));
  PetscCall(MechSystemComputeOperator(m->sys, t, q, v, 1.0, 0.0, 0.0, K));
  PetscCall(MechSystemGetMass(m->sys, &M));
  PetscCall(MatCreateSubMatrix(K, m->free, m->free, MAT_INITIAL_MATRIX, Kf));
  PetscCall(MatCreateSubMatrix(M, m->free, m->free, MAT_INITIAL_MATRIX, Mf));
  PetscCall(ModesNearNullSpace(m, K, *Kf));
  PetscCall(MatDestroy(&K));
  PetscCall(MatCreateVecs(*Kf, &dk, &dm));
  PetscCall(MatGetDiagonal(*Kf, dk));
  PetscCall(MatGetDiagonal(*Mf, dm));
  PetscCall(VecSum(dk, &trk));
  PetscCall(VecSum(dm, &trm));
  PetscCall(VecDestroy(&dk));
  PetscCall(VecDestroy(&dm));
  PetscCheck(PetscRealPart(trm) > 0, m->comm, PETSC_ERR_ARG_WRONG, "The mass of the free dofs has trace %g: the modal analysis needs a positive definite M", (double)PetscRealPart(trm));
  m->scale = PetscAbsReal(PetscRealPart(trk)) / PetscRealPart(trm);
  if (!(m->scale > 0)) m->scale = 1;
  /* the eigensolver works on K / s, whose eigenvalues are of order 1 and below: a model with moduli of
     1e300 would overflow the norms of its vectors */
  PetscCall(MatScale(*Kf, 1.0 / m->scale));
  PetscFunctionReturn(0);
}

/*@C
  MechModesSetUp - The checks of `MechModesCompute()` without the computation: the system has a
  tangent and at least as many free dofs as modes are asked for. Called by `MechModesCompute()`;
  a program calls it to refuse a bad request before a long run that ends with the modes.

  Collective

  Input Parameters:
+ modes - the modal analysis
- q     - a state vector of the system (its layout)

  Level: intermediate

.seealso: `MechModesCompute()`, `MechModesSetDimension()`
@*/
PetscErrorCode MechModesSetUp(MechModes modes, Vec q)
{
  MechModes   m = modes;
  const char *why, *name;

  PetscFunctionBegin;
  PetscValidPointer(modes, 1);
  PetscValidHeaderSpecific(q, VEC_CLASSID, 2);
  PetscCall(MechSystemGetModelName(m->sys, &name));
  PetscCheck(m->sys->tangent, m->comm, PETSC_ERR_ARG_WRONG, "The model %s has no tangent stiffness (MechSystemSetTangent()), which the modal analysis needs", name ? name : "(unnamed)");
  PetscCall(ModesFree(m));
  PetscCall(MechSystemGetTangentNonsymmetric(m->sys, &m->nonsym, &why));
  PetscCall(ModesFreeDofs(m, q));
  PetscCheck(m->nev <= m->nfree, m->comm, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscInt_FMT " modes asked for: the system has %" PetscInt_FMT " free dofs", m->nev, m->nfree);
  PetscFunctionReturn(0);
}

/*@C
  MechModesCompute - Computes the modes of the system linearized at a state: the lowest (or highest,
  `MechModesSetWhich()`) eigenpairs of K(t, q, v) x = omega^2 M x on the free dofs.

  Collective

  Input Parameters:
+ modes - the modal analysis
. t     - the time (of the loads)
. q     - the positions at which K is taken (the reference state for the modes at rest, the end of a
          run for a prestressed body)
- v     - the velocities (a tangent may depend on them)

  Options Database Keys:
+ -modes_solver <direct>   - the lowest modes by shift-and-invert with a sparse factorization of K - sigma M (MUMPS
                             Cholesky, LU for a non-symmetric K), by shift-and-invert with CG (GMRES) and GAMG
                             (iterative), or by LOBPCG preconditioned by GAMG (lobpcg)
. -modes_eps_target <t>    - the shift sigma (default -1e-6 tr K / tr M: below the rigid-body modes)
. -modes_eps_*             - any option of SLEPc's EPS (-modes_eps_type, -modes_eps_tol, -modes_eps_ncv, -modes_eps_view, ...)
. -modes_st_*              - of its spectral transformation (-modes_st_type sinvert, ...)
- -modes_st_ksp_*, -modes_st_pc_* - of the transformation's linear solver (-modes_st_pc_factor_mat_solver_type, ...)

  Level: intermediate

  Notes:
  K is the system's tangent at (t, q, v) (`MechSystemComputeOperator()` with cK = 1): at a deformed
  state it holds the geometric stiffness of the stresses and the load stiffness of follower loads;
  a tangent marked non-symmetric (`MechSystemSetTangentNonsymmetric()`) makes the problem a
  generalized non-Hermitian one (GNHEP), else Hermitian (GHEP). The fixed dofs are removed (the
  submatrices of the free rows and columns), so no spurious mode appears. The shapes are
  M-normalized (x^T M x = 1) and signed so that a fixed, rank-independent weighting of their
  entries is positive. A mode whose eigenvalue is below 1e-12 tr K / tr M in magnitude is
  rigid (reported at 0 Hz). Repeated frequencies come with their multiplicity. Refused: more modes
  than free dofs, a system without a tangent, a target at which K - sigma M is singular (its
  factorization fails, or an eigenvalue lies within 1e-10 tr K / tr M of it).

.seealso: `MechModesCreate()`, `MechModesGetFrequency()`, `MechModesGetShape()`, `MechModesView()`, `MECHMODES`
@*/
PetscErrorCode MechModesCompute(MechModes modes, PetscReal t, Vec q, Vec v)
{
  MechModes      m = modes;
  Mat            Kf, Mf;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscValidPointer(modes, 1);
  PetscValidHeaderSpecific(q, VEC_CLASSID, 3);
  PetscValidHeaderSpecific(v, VEC_CLASSID, 4);
  PetscCall(PetscTime(&t0));
  PetscCall(MechModesSetUp(m, q));
  PetscCall(ModesOperators(m, t, q, v, &Kf, &Mf));
  m->target = -MODES_TARGET_FACTOR * m->scale;
  if (m->which == MECH_MODES_LOWEST) PetscCall(ModesRigid(m, q, Kf, Mf));
  if (m->nev > m->nrigid) {
    PetscCall(ModesSetUpSolver(m, Kf, Mf));
    PetscCall(ModesSolve(m));
    PetscCall(ModesDescribe(m));
  }
  PetscCall(ModesCollect(m, Kf, Mf, q));
  PetscCall(MatDestroy(&Kf));
  PetscCall(MatDestroy(&Mf));
  /* without a solve (the rigid modes only) no shifted operator was factored */
  for (PetscInt k = 0; k < m->n && m->which == MECH_MODES_LOWEST && m->sinvert; k++) PetscCheck(PetscAbsReal(m->lambda[k] - m->target) > MODES_SINGULAR_TOL * m->scale, m->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%seps_target %g: K - %g M is singular (the eigenvalue %g of mode %" PetscInt_FMT " lies there): take a target below the lowest eigenvalue, as the default %g does", m->prefix, (double)m->target, (double)m->target, (double)m->lambda[k], k + 1, (double)(-MODES_TARGET_FACTOR * m->scale));
  /* the factorization of K - sigma M is not kept: the modes are copied out */
  PetscCall(EPSDestroy(&m->eps));
  m->t = t;
  PetscCall(PetscTime(&t1));
  m->seconds = t1 - t0;
  PetscFunctionReturn(0);
}

/* i is one of the computed modes */
static PetscErrorCode ModesCheckIndex(MechModes modes, PetscInt i)
{
  PetscFunctionBegin;
  PetscCheck(i >= 0 && i < modes->n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Mode %" PetscInt_FMT " is not among the %" PetscInt_FMT " computed", i, modes->n);
  PetscFunctionReturn(0);
}

/*@C
  MechModesGetSize - The number of modes computed (0 before `MechModesCompute()`) and of free dofs.

  Not Collective

  Input Parameter:
. modes - the modal analysis

  Output Parameters:
+ n     - the number of modes (may be NULL)
- nfree - the global number of free dofs (may be NULL)

  Level: intermediate

.seealso: `MechModesCompute()`
@*/
PetscErrorCode MechModesGetSize(MechModes modes, PetscInt *n, PetscInt *nfree)
{
  PetscFunctionBegin;
  PetscValidPointer(modes, 1);
  if (n) *n = modes->n;
  if (nfree) *nfree = modes->nfree;
  PetscFunctionReturn(0);
}

/*@C
  MechModesGetFrequency - The frequency of mode i.

  Not Collective

  Input Parameters:
+ modes - the modal analysis
- i     - the mode, from 0 (in ascending order of frequency; descending for the highest modes)

  Output Parameters:
+ hz     - the frequency omega / 2 pi in Hz (cycles per unit time); 0 for a rigid mode; negative,
           -sqrt(-lambda) / 2 pi, for a negative eigenvalue (a state beyond buckling) (may be NULL)
. lambda - the eigenvalue omega^2 (may be NULL)
- rigid  - whether it is a rigid-body mode (|lambda| below 1e-12 tr K / tr M: 0 Hz) (may be NULL)

  Level: intermediate

.seealso: `MechModesCompute()`, `MechModesGetShape()`
@*/
PetscErrorCode MechModesGetFrequency(MechModes modes, PetscInt i, PetscReal *hz, PetscReal *lambda, PetscBool *rigid)
{
  PetscReal l;

  PetscFunctionBegin;
  PetscValidPointer(modes, 1);
  PetscCall(ModesCheckIndex(modes, i));
  l = modes->lambda[i];
  /* a rigid mode's eigenvalue is the round-off of K applied to a rigid motion, eps tr K / tr M */
  if (hz) *hz = modes->rigid[i] ? 0 : (l >= 0 ? PetscSqrtReal(l) : -PetscSqrtReal(-l)) / (2 * PETSC_PI);
  if (lambda) *lambda = l;
  if (rigid) *rigid = modes->rigid[i];
  PetscFunctionReturn(0);
}

/*@C
  MechModesGetResidual - The relative residual |K x - lambda M x| / |lambda x| of mode i as the
  eigensolver computed it (0 for the rigid modes, which are exact combinations of rigid motions).

  Not Collective

  Input Parameters:
+ modes - the modal analysis
- i     - the mode, from 0

  Output Parameter:
. residual - the relative residual

  Level: intermediate

.seealso: `MechModesCompute()`, `MechModesGetFrequency()`
@*/
PetscErrorCode MechModesGetResidual(MechModes modes, PetscInt i, PetscReal *residual)
{
  PetscFunctionBegin;
  PetscValidPointer(modes, 1);
  PetscCall(ModesCheckIndex(modes, i));
  *residual = modes->error[i];
  PetscFunctionReturn(0);
}

/*@C
  MechModesGetShape - Copies the shape of mode i into a vector like the state.

  Collective

  Input Parameters:
+ modes - the modal analysis
- i     - the mode, from 0

  Output Parameter:
. x - the shape: M-normalized (x^T M x = 1), zero on the fixed dofs

  Level: intermediate

.seealso: `MechModesCompute()`, `MechModesGetFrequency()`
@*/
PetscErrorCode MechModesGetShape(MechModes modes, PetscInt i, Vec x)
{
  PetscFunctionBegin;
  PetscValidPointer(modes, 1);
  PetscCall(ModesCheckIndex(modes, i));
  PetscCall(VecCopy(modes->shape[i], x));
  PetscFunctionReturn(0);
}

/*@C
  MechModesGetParticipation - The participation factors and effective masses of mode i along x, y, z.

  Not Collective

  Input Parameters:
+ modes - the modal analysis
- i     - the mode, from 0

  Output Parameters:
+ gamma - Gamma_d = x^T M r_d, r_d the unit translation along d (may be NULL)
. meff  - the effective modal mass Gamma_d^2 (x is M-normalized) (may be NULL)
- mass  - r_d^T M r_d, the mass a rigid translation moves (the sum of meff over all modes of a free body) (may be NULL)

  Level: intermediate

  Note:
  Defined for a state of points in 3-D (block size 3); zero otherwise.

.seealso: `MechModesCompute()`
@*/
PetscErrorCode MechModesGetParticipation(MechModes modes, PetscInt i, PetscReal gamma[3], PetscReal meff[3], PetscReal mass[3])
{
  PetscFunctionBegin;
  PetscValidPointer(modes, 1);
  PetscCall(ModesCheckIndex(modes, i));
  for (PetscInt d = 0; d < 3; d++) {
    if (gamma) gamma[d] = modes->gamma[3 * i + d];
    if (meff) meff[d] = modes->meff[3 * i + d];
    if (mass) mass[d] = modes->mass[d];
  }
  PetscFunctionReturn(0);
}

/*@C
  MechModesGetInfo - How the last modes were computed.

  Not Collective

  Input Parameter:
. modes - the modal analysis

  Output Parameters:
+ t       - the time of the state (may be NULL)
. problem - "GHEP" or "GNHEP" (may be NULL)
. solver  - the eigensolver, its transformation and linear solver, e.g. "krylovschur sinvert preonly cholesky mumps" (may be NULL)
. target  - the shift of the transformation (may be NULL)
. residual - the largest relative residual |K x - lambda M x| / |lambda x| of the modes (may be NULL)
- seconds - the wall-clock time of the computation on rank 0 (may be NULL)

  Level: intermediate

.seealso: `MechModesCompute()`
@*/
PetscErrorCode MechModesGetInfo(MechModes modes, PetscReal *t, const char **problem, char solver[], size_t len, PetscReal *target, PetscReal *residual, PetscReal *seconds)
{
  PetscFunctionBegin;
  PetscValidPointer(modes, 1);
  if (t) *t = modes->t;
  if (problem) *problem = modes->nonsym ? "GNHEP" : "GHEP";
  if (target) *target = modes->target;
  if (seconds) *seconds = modes->seconds;
  if (residual) {
    *residual = 0;
    for (PetscInt k = 0; k < modes->n; k++) *residual = PetscMax(*residual, modes->error[k]);
  }
  if (solver && len) PetscCall(PetscStrncpy(solver, modes->solver, len));
  PetscFunctionReturn(0);
}

/*@C
  MechModesView - Prints the modes as a table: frequency, eigenvalue, relative residual and the
  effective masses as fractions of the mass a translation moves, with their cumulative sums.

  Collective

  Input Parameters:
+ modes  - the modal analysis
- viewer - an ASCII viewer (NULL: standard output)

  Level: intermediate

.seealso: `MechModesCompute()`
@*/
PetscErrorCode MechModesView(MechModes modes, PetscViewer viewer)
{
  PetscReal   cum[3] = {0, 0, 0}, target, seconds;
  char        solver[256], line[512];
  const char *problem;

  PetscFunctionBegin;
  PetscValidPointer(modes, 1);
  if (!viewer) viewer = PETSC_VIEWER_STDOUT_(modes->comm);
  PetscCall(MechModesGetInfo(modes, NULL, &problem, solver, sizeof(solver), &target, NULL, &seconds));
  /* the C library's %g: PETSc's printf writes 3 as "3." */
  (void)snprintf(line, sizeof(line), "%d %s modes at t = %g of K x = omega^2 M x (%s, %d free dofs): %s, target %.6g, %.3g s\n", (int)modes->n, modes->which == MECH_MODES_LOWEST ? "lowest" : "highest", (double)modes->t, problem, (int)modes->nfree, solver[0] ? solver : "rigid motions only", (double)target, (double)seconds);
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s", line));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  mode  frequency [Hz]      omega^2        residual  %s\n", modes->hasmass ? "effective mass x, y, z (fraction)    cumulative x, y, z" : ""));
  for (PetscInt k = 0; k < modes->n; k++) {
    PetscReal hz;
    char      freq[64], mass[128] = "";

    PetscCall(MechModesGetFrequency(modes, k, &hz, NULL, NULL));
    if (modes->rigid[k]) (void)snprintf(freq, sizeof(freq), "0 (rigid)");
    else (void)snprintf(freq, sizeof(freq), "%.10g", (double)hz);
    if (modes->hasmass) {
      PetscReal f[3];

      for (PetscInt d = 0; d < 3; d++) {
        f[d] = modes->mass[d] > 0 ? modes->meff[3 * k + d] / modes->mass[d] : 0;
        cum[d] += f[d];
      }
      (void)snprintf(mass, sizeof(mass), "%.4f %.4f %.4f   %.4f %.4f %.4f", (double)f[0], (double)f[1], (double)f[2], (double)cum[0], (double)cum[1], (double)cum[2]);
    }
    (void)snprintf(line, sizeof(line), "  %4d  %-18s  %-13.7g  %-8.1e  %s\n", (int)(k + 1), freq, (double)modes->lambda[k], (double)modes->error[k], mass);
    PetscCall(PetscViewerASCIIPrintf(viewer, "%s", line));
  }
  PetscFunctionReturn(0);
}

/*@
  MechSystemEstimateMaxFrequency - The largest frequency of the system linearized at a state,
  omega = sqrt(lambda_max(M^{-1} K)), and the damping rate of that mode.

  Collective

  Input Parameters:
+ sys  - the system
. t    - the time
. q    - the positions (K and D are taken at the state q, v)
- v    - the velocities

  Output Parameters:
+ omega   - the largest frequency (0 if K has no positive eigenvalue)
- damping - the damping rate of the mode, x^T D x / x^T M x with x its shape (may be NULL)

  Options Database Keys:
. -stability_eps_*, -stability_st_ksp_*, -stability_st_pc_* - the eigensolver (`MechModesCompute()` with the prefix stability_)

  Level: advanced

  Notes:
  The highest mode of K x = lambda M x on the free dofs by SLEPc's Krylov-Schur on M^-1 K
  (`MechModesSetWhich()` with `MECH_MODES_HIGHEST`: a mass solve by CG with Jacobi per iteration),
  converged to a relative residual of 1e-8 (-stability_eps_tol), so omega is the largest frequency
  to about that accuracy (power iterations, used before, gave a lower bound that could lie percents
  below it). The largest eigenvalue in the algebraic sense: for an indefinite K (an orbit) the
  largest positive one, omega = 0 if none is positive, or if the eigensolver fails (a state that is
  not finite).

.seealso: `TSMechEstimateStableStep()`, `TSMechComputeAmplification()`, `MechModesCompute()`
@*/
PetscErrorCode MechSystemEstimateMaxFrequency(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *omega, PetscReal *damping)
{
  MechModes      modes;
  PetscReal      lambda;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidHeaderSpecific(q, VEC_CLASSID, 3);
  PetscValidHeaderSpecific(v, VEC_CLASSID, 4);
  PetscValidRealPointer(omega, 5);
  PetscCall(MechModesCreate(sys, &modes));
  PetscCall(MechModesSetWhich(modes, MECH_MODES_HIGHEST));
  PetscCall(MechModesSetOptionsPrefix(modes, "stability_"));
  /* a report after a failure must not fail itself: a state the eigensolver cannot take (not finite)
     gives omega = 0, "not known" */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MechModesCompute(modes, t, q, v);
  PetscCall(PetscPopErrorHandler());
  *omega = 0;
  if (damping) *damping = 0;
  if (ierr) {
    PetscCall(PetscInfo(sys, "The highest mode could not be computed (error %d)\n", (int)ierr));
    PetscCall(MechModesDestroy(&modes));
    PetscFunctionReturn(0);
  }
  PetscCall(MechModesGetFrequency(modes, 0, NULL, &lambda, NULL));
  *omega = lambda > 0 ? PetscSqrtReal(lambda) : 0;
  if (damping) {
    Mat         D;
    Vec         x, y;
    PetscScalar xdx;

    /* x is M-normalized: the rate is x^T D x */
    PetscCall(VecDuplicate(q, &x));
    PetscCall(VecDuplicate(q, &y));
    PetscCall(MechModesGetShape(modes, 0, x));
    PetscCall(MechSystemCreateOperator(sys, &D));
    PetscCall(MechSystemComputeOperator(sys, t, q, v, 0.0, 1.0, 0.0, D));
    PetscCall(MatMult(D, x, y));
    PetscCall(VecDot(y, x, &xdx));
    *damping = PetscMax(PetscRealPart(xdx), 0);
    PetscCall(MatDestroy(&D));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
  }
  PetscCall(MechModesDestroy(&modes));
  PetscFunctionReturn(0);
}
