/*
  tsmech: PETSc time steppers for mechanical systems

      M q'' + f(t, q, q') = 0,    M constant, symmetric positive definite.

  Sign convention: f is the force moved to the left-hand side, so a stretched spring gives an f
  pointing into the stretch, gravity enters as -M g and drag as +c q'. The tangents
  K = df/dq and D = df/dq' are then positive (semi)definite for ordinary springs and dampers.
*/
#ifndef TSMECH_H
#define TSMECH_H

#include <petscts.h>
#include <petscdm.h>

#define TSMECH_VERSION "0.1.0"

/* ------------------------------------------------------------------------------------------ */
/* Package                                                                                    */
/* ------------------------------------------------------------------------------------------ */

/* Registers the MechSystem class, its log events and stages (src/mech/package.c); called by
   MechSystemCreate() and TSMechInitializePackage(), safe to call more than once. */
PETSC_EXTERN PetscErrorCode MechInitializePackage(void);
PETSC_EXTERN PetscErrorCode MechFinalizePackage(void);
/* Registers the TS types of tsmech (after the mech package): a program calls it after
   PetscInitialize() and before setting a tsmech type; PetscDLLibraryRegister_tsmech() calls it
   under -dll_append. Safe to call more than once. */
PETSC_EXTERN PetscErrorCode TSMechInitializePackage(void);
/* Undoes TSMechInitializePackage(); registered with PetscRegisterFinalize(). */
PETSC_EXTERN PetscErrorCode TSMechFinalizePackage(void);

/* ------------------------------------------------------------------------------------------ */
/* TS types                                                                                   */
/* ------------------------------------------------------------------------------------------ */

#define TSTHETA2    "theta2"    /* theta method in velocity form, one-leg or endpoint */
#define TSBEULER2   "beuler2"   /* theta2 with theta = 1 */
#define TSCN2       "cn2"       /* theta2 with theta = 1/2, endpoint (trapezoidal) form */
#define TSMIDPOINT2 "midpoint2" /* theta2 with theta = 1/2, one-leg form: symplectic midpoint */
#define TSEULER2    "euler2"    /* explicit Euler (theta2 with theta = 0) */
#define TSSYMEULER2 "symeuler2" /* symplectic Euler */
#define TSGAUSS2    "gauss2"    /* Gauss-Legendre collocation in velocity form, s = 1, 2, 3 stages */
#define TSDISCGRAD2 "discgrad2" /* energy-momentum: discrete gradient in velocity form (src/ts/discgrad2.c) */
#define TSSTATIC2   "static2"   /* quasi-static: equilibrium f(t, q, 0) = 0 at each step's end (src/ts/static2.c) */

/* Automatic incrementation (src/ts/adaptincrement.c): a failed step cut back and retried, easy steps
   growing, quasi-static steps landing on the kinks of the loads' time functions */
#define TSADAPTINCREMENT "increment"
/* Backtracking on the incremental potential of a tsmech type's step (src/ts/linesearch2.c) */
#define SNESLINESEARCHPOTENTIAL "potential"

/* static2: the residual of equilibrium |f(t, q, 0)| against the load |f(t, X, 0)| after the last accepted step */
PETSC_EXTERN PetscErrorCode TSStatic2GetEquilibrium(TS, PetscBool *has, PetscReal *t, PetscReal *residual, PetscReal *load);

/* Initial guesses of the linearized (single linear solve) mode (docs/schemes.md §4). */
typedef enum {
  TSTHETA2_GUESS_ZERO,                  /* q0 = q,            v0 = 0,        R_q omitted */
  TSTHETA2_GUESS_VELOCITY,              /* q0 = q,            v0 = v                    */
  TSTHETA2_GUESS_PREDICTOR,             /* q0 = q + tau v,    v0 = v                    */
  TSTHETA2_GUESS_PREDICTOR_ZERO,        /* q0 = q + tau v,    v0 = 0                    */
  TSTHETA2_GUESS_PREDICTOR_EXTRAPOLATE, /* q0 = q + tau v,   v0 = 2v - v_prev          */
  TSTHETA2_GUESS_EXTRAPOLATE            /* q0 = q + tau v0,   v0 = 2v - v_prev          */
} TSTheta2Guess;
PETSC_EXTERN const char *const TSTheta2Guesses[];

/* gauss2: the number of stages, 1 (midpoint rule), 2 or 3 (orders 2, 4, 6) */
PETSC_EXTERN PetscErrorCode TSGauss2SetStages(TS, PetscInt);
PETSC_EXTERN PetscErrorCode TSGauss2GetStages(TS, PetscInt *);

/* theta in [0, 1] */
PETSC_EXTERN PetscErrorCode TSTheta2SetTheta(TS, PetscReal);
PETSC_EXTERN PetscErrorCode TSTheta2GetTheta(TS, PetscReal *);
/* PETSC_TRUE: endpoint (trapezoidal in f) form; PETSC_FALSE (default): one-leg form */
PETSC_EXTERN PetscErrorCode TSTheta2SetEndpoint(TS, PetscBool);
PETSC_EXTERN PetscErrorCode TSTheta2GetEndpoint(TS, PetscBool *);
/* Newton's initial guess for v+ extrapolated from the previous step */
PETSC_EXTERN PetscErrorCode TSTheta2SetInitialGuessExtrapolate(TS, PetscBool);
PETSC_EXTERN PetscErrorCode TSTheta2GetInitialGuessExtrapolate(TS, PetscBool *);
/* Exactly one linear solve per step from the given guess (docs/schemes.md §4) */
PETSC_EXTERN PetscErrorCode TSTheta2SetLinearized(TS, PetscBool, TSTheta2Guess);
PETSC_EXTERN PetscErrorCode TSTheta2GetLinearized(TS, PetscBool *, TSTheta2Guess *);
/* The velocity at the start of the previous step (used by the extrapolating guesses); for
   checkpoint and restart. Get copies into the given Vec and tells whether one is known. */
PETSC_EXTERN PetscErrorCode TSTheta2GetPreviousVelocity(TS, Vec, PetscBool *);
PETSC_EXTERN PetscErrorCode TSTheta2SetPreviousVelocity(TS, Vec);
/* The Newton settings every implicit type of tsmech shares (src/ts/newtonapi.c: the type's Newton
   object; a type without one ignores the setters). The options carry the type's prefix:
   -ts_theta_ (theta2 family), -ts_gauss2_, -ts_discgrad2_. */
/* Matrix-free Jacobian through the system's tangent action, the assembled operator only as the
   preconditioning matrix, rebuilt when the linear iterations grow by the given factor
   (-ts_theta_matrix_free, -ts_theta_pc_rebuild_growth under the theta2 family's prefix); Get also returns the number of
   assemblies of the preconditioning matrix. */
PETSC_EXTERN PetscErrorCode TSMechSetMatrixFree(TS, PetscBool, PetscReal);
PETSC_EXTERN PetscErrorCode TSMechGetMatrixFree(TS, PetscBool *, PetscReal *, PetscInt *);
/* The preconditioning matrix from the system's semidefinite tangent approximation
   (MechSystemSetTangentDefinite()) while the Jacobian stays exact: with the matrix-free Jacobian
   it is the assembled matrix; with the assembled Jacobian a second matrix (-ts_theta_pc_definite) */
PETSC_EXTERN PetscErrorCode TSMechSetPCDefinite(TS, PetscBool);
PETSC_EXTERN PetscErrorCode TSMechGetPCDefinite(TS, PetscBool *);
/* With the matrix-free Jacobian: the preconditioning matrix of the system's reduced pattern
   (MechSystemCreateOperatorReduced()), the full pattern freed: less memory, more linear
   iterations (-ts_theta_pc_reduced) */
PETSC_EXTERN PetscErrorCode TSMechSetPCReduced(TS, PetscBool);
PETSC_EXTERN PetscErrorCode TSMechGetPCReduced(TS, PetscBool *);
/* With the matrix-free Jacobian and -pc_type mg: a rebuild for growing iterations renews the
   finest multigrid level only, the coarse levels lagged (-ts_theta_pc_lag_coarse) */
PETSC_EXTERN PetscErrorCode TSMechSetPCLagCoarse(TS, PetscBool);
PETSC_EXTERN PetscErrorCode TSMechGetPCLagCoarse(TS, PetscBool *, PetscInt *);
/* With -snes_ksp_ew: a linear solve stops below this fraction of Newton's tolerance, Kelley's
   safeguard against oversolving (-ts_theta_ew_safeguard, default 0.5) */
PETSC_EXTERN PetscErrorCode TSMechSetEWSafeguard(TS, PetscReal);
PETSC_EXTERN PetscErrorCode TSMechGetEWSafeguard(TS, PetscReal *);
/* Newton on the points near the fixed dofs before each step's Newton solve (nonlinear elimination) */
PETSC_EXTERN PetscErrorCode TSMechSetNonlinearElimination(TS, PetscBool, PetscInt depth, PetscReal reach);
PETSC_EXTERN PetscErrorCode TSMechGetNonlinearElimination(TS, PetscBool *, PetscInt *depth, PetscInt *its);
/* the former names of the Newton settings, when they were the theta2 family's */
#define TSTheta2SetMatrixFree           TSMechSetMatrixFree
#define TSTheta2GetMatrixFree           TSMechGetMatrixFree
#define TSTheta2SetPCDefinite           TSMechSetPCDefinite
#define TSTheta2GetPCDefinite           TSMechGetPCDefinite
#define TSTheta2SetPCReduced            TSMechSetPCReduced
#define TSTheta2GetPCReduced            TSMechGetPCReduced
#define TSTheta2SetPCLagCoarse          TSMechSetPCLagCoarse
#define TSTheta2GetPCLagCoarse          TSMechGetPCLagCoarse
#define TSTheta2SetEWSafeguard          TSMechSetEWSafeguard
#define TSTheta2GetEWSafeguard          TSMechGetEWSafeguard
#define TSTheta2SetNonlinearElimination TSMechSetNonlinearElimination
#define TSTheta2GetNonlinearElimination TSMechGetNonlinearElimination

/* ------------------------------------------------------------------------------------------ */
/* The mechanical system                                                                      */
/* ------------------------------------------------------------------------------------------ */

typedef struct _p_MechSystem *MechSystem;
PETSC_EXTERN PetscClassId     MECHSYSTEM_CLASSID;

/* f(t, q, v): fill f (the whole vector; entries of fixed dofs are zeroed afterwards). */
typedef PetscErrorCode (*MechForceFn)(MechSystem, PetscReal t, Vec q, Vec v, Vec f, void *ctx);
/* J = cK K(t, q, v) + cD D(t, q, v). J is zeroed on entry; set or add values and assemble. */
typedef PetscErrorCode (*MechTangentFn)(MechSystem, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx);
/* Linearize the tangent action at (t, q, v): prepare y = (cK K + cD D) w for the apply callback. */
typedef PetscErrorCode (*MechTangentLinearizeFn)(MechSystem, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, void *ctx);
/* y = (cK K + cD D) w at the state and coefficients of the last linearization (no fixed dofs:
   the system decouples them). */
typedef PetscErrorCode (*MechTangentApplyFn)(MechSystem, Vec w, Vec y, void *ctx);
/* Potential energy (kinetic energy is 1/2 v^T M v, computed by the system). */
typedef PetscErrorCode (*MechPotentialFn)(MechSystem, PetscReal t, Vec q, Vec v, PetscReal *potential, void *ctx);
/* Exact solution, where the model has one. */
typedef PetscErrorCode (*MechExactFn)(MechSystem, PetscReal t, Vec q, Vec v, void *ctx);
/* A scalar invariant of the motion (angular momentum, ...). */
typedef PetscErrorCode (*MechInvariantFn)(MechSystem, PetscReal t, Vec q, Vec v, PetscReal *value, void *ctx);
/* Whether the model can take the state (t, q, v) (e.g. no inverted element), with the reason if not;
   with q NULL: why the latest force evaluation at a time >= t failed ("" if none). Collective:
   every rank returns the same answer. */
typedef PetscErrorCode (*MechStateCheckFn)(MechSystem, PetscReal t, Vec q, Vec v, PetscBool *admissible, char why[], size_t len, void *ctx);

/* Create an empty system; then give M, f and the tangents. */
PETSC_EXTERN PetscErrorCode MechSystemCreate(MPI_Comm, MechSystem *);
PETSC_EXTERN PetscErrorCode MechSystemDestroy(MechSystem *);
PETSC_EXTERN PetscErrorCode MechSystemView(MechSystem, PetscViewer);
/* The constant mass matrix (assembled, lumped or consistent); the system keeps a reference. */
PETSC_EXTERN PetscErrorCode MechSystemSetMass(MechSystem, Mat);
PETSC_EXTERN PetscErrorCode MechSystemGetMass(MechSystem, Mat *);
/* The force callback. */
PETSC_EXTERN PetscErrorCode MechSystemSetForce(MechSystem, MechForceFn, void *);
/* The tangent callback and a preallocated matrix with the sparsity of K + D + M; hasdamping
   false means D = 0 (the callback is then never asked for D). The matrix must hold every entry
   the callback will ever set, and the diagonal, from the start: the system zeroes it before each
   call (keeping its structure), adds M and decouples fixed dofs in place, so an entry inserted
   later is a new nonzero (an error or a reallocation, and missing from the first-order form,
   whose pattern is copied from this matrix). A coupling whose value
   is zero now (a slack spring) must be there as an explicit zero: preallocation alone does not
   create entries. MechSystemCreateTangentMatrix() builds such a matrix from the couplings. */
PETSC_EXTERN PetscErrorCode MechSystemSetTangent(MechSystem, Mat, PetscBool hasdamping, MechTangentFn, void *);
/* A matrix for MechSystemSetTangent() (set M first): M's pattern, the diagonal and all couplings
   among the nodes of each element (bs dofs per node, nper nodes per element, global node
   numbers in conn, negative ones skipped; nper = 2 for coupled pairs), as explicit zeros; an
   entry outside it is an error. Any rank may list any element (src/mech/preallocate.c). */
PETSC_EXTERN PetscErrorCode MechSystemCreateTangentMatrix(MechSystem, PetscInt bs, PetscInt nelem, PetscInt nper, const PetscInt conn[], Mat *);
/* Optional: the tangent applied by the model's own kernel, for matrix-free operators
   (MechSystemCreateOperatorShell()); it must equal the assembled tangent. */
PETSC_EXTERN PetscErrorCode MechSystemSetTangentAction(MechSystem, MechTangentLinearizeFn, MechTangentApplyFn, void *);
PETSC_EXTERN PetscErrorCode MechSystemHasTangentAction(MechSystem, PetscBool *);
/* Optional, with a tangent action: a linearization that also gives the coefficient cM of the mass,
   after which the action's apply callback returns y = (cK K + cD D + cM M) w, the mass applied
   inside the model's own element loop (src/mech/operatormass.c). */
typedef PetscErrorCode (*MechOperatorLinearizeFn)(MechSystem, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, void *ctx);
PETSC_EXTERN PetscErrorCode MechSystemSetOperatorLinearize(MechSystem, MechOperatorLinearizeFn);
/* Optional: the diagonal (bs 1: d[0]) or the diagonal blocks (bs x bs, bs that of
   MechSystemSetTangentDiagonal(): a node's dofs) of cK K + cD D at (t, q, v), without assembly, for
   the smoothers of matrix-free operators: d[i] (zeroed by the caller) gets row i of every block,
   entry bs n + k of d[i] the block (i, k) of block row n; the fixed dofs are the system's business */
typedef PetscErrorCode (*MechTangentDiagonalFn)(MechSystem, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscInt bs, Vec d[], void *ctx);
PETSC_EXTERN PetscErrorCode MechSystemSetTangentDiagonal(MechSystem, PetscInt bs, MechTangentDiagonalFn, void *);
/* Optional: a model's own multigrid below its matrix-free operator (the solid's p-multigrid).
   setup gives a PCMG its levels below the finest (interpolations, coarse operators, their
   solvers) and returns the model's data of those levels; update computes the coarse operators
   of cK K + cD D + cM M at a state and, if d is not NULL, the diagonal of cK K + cD D into d (zeroed
   by the caller; in the same pass over the cells); destroy frees the data. */
typedef PetscErrorCode (*MechMultigridSetUpFn)(MechSystem, PC pc, void **levels, void *ctx);
typedef PetscErrorCode (*MechMultigridUpdateFn)(MechSystem, void *levels, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, Vec d, void *ctx);
typedef PetscErrorCode (*MechMultigridDestroyFn)(void **levels);
PETSC_EXTERN PetscErrorCode MechSystemSetMultigrid(MechSystem, MechMultigridSetUpFn, MechMultigridUpdateFn, MechMultigridDestroyFn, void *);
PETSC_EXTERN PetscErrorCode MechSystemHasMultigrid(MechSystem, PetscBool *);
/* The matrix-free operator whose diagonal and coarse levels are the model's (-pc_type mg) */
PETSC_EXTERN PetscErrorCode MechSystemCreateOperatorMultigrid(MechSystem, Mat *);
/*
  MechSystemSetTangentDefinite - Optional: a second tangent callback that assembles a positive
  semidefinite approximation of cK K + cD D into the matrix of MechSystemSetTangent() (same
  signature and duties as the exact callback), used only to build preconditioning matrices.

  Compressed springs with a rest length (and penalty contacts) have an indefinite tangent, which
  can make M + theta tau D + theta^2 tau^2 K indefinite and stop CG with incomplete Cholesky or
  algebraic multigrid (KSP_DIVERGED_INDEFINITE_PC). The clamped spring tangent
  k [max(0, 1 - L/l)(I - n n^T) + n n^T] (Choi & Ko, SIGGRAPH 2002), or for elements the
  element tangent projected onto its semidefinite part (Teran et al., SCA 2005), is definite; as
  preconditioning matrix only it leaves Newton's answer unchanged. The grid models (chain, cloth,
  lattice) provide it. MechSystemComputeOperatorDefinite() assembles cK K~ + cD D~ + cM M with it
  (fixed dofs decoupled), or with the exact tangent for a model that gives none.
  TSMechSetPCDefinite() (-ts_theta_pc_definite) makes the implicit types use it.

  Level: intermediate

.seealso: MechSystemSetTangent(), MechSystemComputeOperatorDefinite(), TSMechSetPCDefinite()
*/
PETSC_EXTERN PetscErrorCode MechSystemSetTangentDefinite(MechSystem, MechTangentFn, void *);
PETSC_EXTERN PetscErrorCode MechSystemHasTangentDefinite(MechSystem, PetscBool *);
/* Builds the matrix of MechSystemSetTangent() again (reduced false), or (reduced true) a sparser
   one, a subset of its couplings, for cheaper preconditioning matrices: same layout, the
   diagonal and M's pattern present, every entry an explicit zero; NULL if the model has none). */
typedef PetscErrorCode (*MechTangentPatternFn)(MechSystem, PetscBool reduced, Mat *J, void *ctx);
/* Optional: the builder of the tangent's patterns. With it the system may let go of the matrix of
   MechSystemSetTangent() while no operator uses it (and build it again when one is asked for),
   and MechSystemCreateOperatorReduced() gives preconditioning matrices with fewer couplings. */
PETSC_EXTERN PetscErrorCode MechSystemSetTangentPattern(MechSystem, MechTangentPatternFn, void *);
PETSC_EXTERN PetscErrorCode MechSystemHasTangentPattern(MechSystem, PetscBool *);
/*
  Force and tangent on a patch of points (nonlinear elimination, TSMechSetNonlinearElimination()).
  ql and vl are local (ghosted) vectors of the system's DM; a point is a block of the DM's block
  size bs. pts[] are the n patch points, as block indices of the local vectors, each owned by this
  rank; patch[] gives every block of the local vectors its row in the patch, or -1. f (bs n reals,
  or NULL) gets f(t, q, v) on each patch point, the same values as the rows of the force callback;
  J (n x n blocks of bs, or NULL) gets cK K + cD D of the patch rows and columns added, the
  couplings to points outside the patch left out. Only this rank's data are used: not collective.
*/
typedef PetscErrorCode (*MechPatchFn)(MechSystem, PetscReal t, Vec ql, Vec vl, PetscInt n, const PetscInt pts[], const PetscInt patch[], PetscReal cK, PetscReal cD, PetscScalar f[], Mat J, void *ctx);
PETSC_EXTERN PetscErrorCode MechSystemSetPatch(MechSystem, MechPatchFn, void *);
PETSC_EXTERN PetscErrorCode MechSystemHasPatch(MechSystem, PetscBool *);
PETSC_EXTERN PetscErrorCode MechSystemComputePatch(MechSystem, PetscReal t, Vec ql, Vec vl, PetscInt n, const PetscInt pts[], const PetscInt patch[], PetscReal cK, PetscReal cD, PetscScalar f[], Mat J);
/* The tangent is not symmetric (a follower load), why in a phrase naming the option; linear solvers
   that need a symmetric operator (CG and its kin, Cholesky, ICC) are then refused at set-up
   (MechSystemCheckSolver(), called by TSMechSetSolution()) */
PETSC_EXTERN PetscErrorCode MechSystemSetTangentNonsymmetric(MechSystem, const char why[]);
PETSC_EXTERN PetscErrorCode MechSystemGetTangentNonsymmetric(MechSystem, PetscBool *, const char **);
PETSC_EXTERN PetscErrorCode MechSystemCheckSolver(MechSystem, KSP);
/* Fixed degrees of freedom (global indices, each rank its own) with prescribed values
   (a full-size Vec, only its fixed entries are read; NULL: the values of the initial state). */
PETSC_EXTERN PetscErrorCode MechSystemSetFixed(MechSystem, IS, Vec);
PETSC_EXTERN PetscErrorCode MechSystemGetFixed(MechSystem, IS *);
/* A prescribed motion of the fixed dofs: the callback sets the fixed entries of q, v and a (any
   may be NULL) to their prescribed position, velocity and acceleration at time t */
typedef PetscErrorCode (*MechFixedMotionFn)(MechSystem, PetscReal t, Vec q, Vec v, Vec a, void *ctx);
PETSC_EXTERN PetscErrorCode MechSystemSetFixedMotion(MechSystem, MechFixedMotionFn, void *);
PETSC_EXTERN PetscErrorCode MechSystemHasFixedMotion(MechSystem, PetscBool *);
PETSC_EXTERN PetscErrorCode MechSystemApplyFixedAt(MechSystem, PetscReal t, Vec q, Vec v);
PETSC_EXTERN PetscErrorCode MechSystemComputeFixedMotion(MechSystem, PetscReal t, Vec q, Vec v, Vec a);
/* The potential energy callback. It is called on every rank with the distributed q and v and
   must return the GLOBAL potential, the same value on every rank (sum the local parts with
   MPIU_Allreduce() or use VecDot()/VecSum(), which already return global values): the energy
   drives decisions every rank must take alike (blow-up detection, output, monitors). */
PETSC_EXTERN PetscErrorCode MechSystemSetPotential(MechSystem, MechPotentialFn, void *);
PETSC_EXTERN PetscErrorCode MechSystemSetExactSolution(MechSystem, MechExactFn, void *);
/* A named invariant (at most 8). Like the potential, its callback must return the global value,
   the same on every rank. */
PETSC_EXTERN PetscErrorCode MechSystemAddInvariant(MechSystem, const char name[], MechInvariantFn, void *);
/* f affine in (q, v): K and D constant; integrators then skip repeated assembly. */
/* A check of the states the model can take: the integrators refuse a step that ends outside them
   (a failed stage: rejected and retried under an adaptive controller), and failure reports say why */
PETSC_EXTERN PetscErrorCode MechSystemSetStateCheck(MechSystem, MechStateCheckFn, void *);
PETSC_EXTERN PetscErrorCode MechSystemCheckState(MechSystem, PetscReal t, Vec q, Vec v, PetscBool *admissible, char why[], size_t len);
PETSC_EXTERN PetscErrorCode MechSystemSetLinear(MechSystem, PetscBool);
PETSC_EXTERN PetscErrorCode MechSystemGetLinear(MechSystem, PetscBool *);
/* Optional DM the state lives on (grid models); the system keeps a reference. */
PETSC_EXTERN PetscErrorCode MechSystemSetDM(MechSystem, DM);
PETSC_EXTERN PetscErrorCode MechSystemGetDM(MechSystem, DM *);
/* geometric multigrid on the system's DMDA grid: levels, interpolations, Galerkin coarse operators */
PETSC_EXTERN PetscErrorCode MechSystemSetUpPCMG(MechSystem, PC);
/* the Galerkin coarse operator P^T A P of one level of that hierarchy: cheaper than MatPtAP() in parallel, and for MATBAIJ (which MatPtAP() lacks) */
PETSC_EXTERN PetscErrorCode MechGridGalerkin(Mat A, Mat P, MatReuse, PetscReal fill, Mat *Ac);
PETSC_EXTERN PetscErrorCode MechSystemSetIOOrdering(MechSystem, IS);
PETSC_EXTERN PetscErrorCode MechSystemSetIOMesh(MechSystem, Vec, PetscInt, const PetscInt[]);
PETSC_EXTERN PetscErrorCode MechSystemGetIOMesh(MechSystem, VecScatter *, Vec *, PetscInt *, const PetscInt *[]);
PETSC_EXTERN PetscErrorCode MechSystemSetIOMeshCells(MechSystem, Vec, PetscInt, PetscInt, const char[], const PetscInt[]);
PETSC_EXTERN PetscErrorCode MechSystemGetIOMeshCells(MechSystem, PetscInt *, const char **);
/* ---- per-cell output fields (src/mech/mechsystem.c) ---- */
/* Fills, for the ncells local cells of MechSystemSetIOMesh() in its order, the values of every
   field at the state (t, q, v): values[f][ncomp[f] c + j] is component j of field f on local cell
   c. Collective (it may read ghost values); an error on any rank ends every rank. */
typedef PetscErrorCode (*MechCellFieldsFn)(MechSystem, PetscReal t, Vec q, Vec v, PetscInt ncells, PetscReal *values[], void *ctx);
/* Per-cell fields the HDF5 output writes at every snapshot as /fields/<name> [nsnap, nc] (ncomp 1)
   or [nsnap, nc, ncomp] in the rank-independent cell order of MechSystemSetIOMesh(), and its XDMF
   shows as cell attributes: ncomp 1 a scalar, 3 a vector, 6 a symmetric tensor in the order xx,
   yy, zz, yz, xz, xy (six scalars name_xx, ...). At most 8 fields; names are copied. */
PETSC_EXTERN PetscErrorCode MechSystemSetCellFields(MechSystem, PetscInt nfields, const char *const names[], const PetscInt ncomp[], MechCellFieldsFn, void *ctx);
PETSC_EXTERN PetscErrorCode MechSystemGetCellFields(MechSystem, PetscInt *nfields, const char *const **names, const PetscInt **ncomp);
/* Evaluates the fields at (t, q, v) into values[f] (ncomp[f] reals per local cell). Collective. */
PETSC_EXTERN PetscErrorCode MechSystemComputeCellFields(MechSystem, PetscReal t, Vec q, Vec v, PetscReal *values[]);
/* Fills, for the nnodes nodes of this rank's part of the state (node i: entries 3i .. 3i+2 of q),
   the values of every field at (t, q, v): values[f][ncomp[f] i + j] is component j of field f at
   node i. Collective; an error on any rank ends every rank. */
typedef PetscErrorCode (*MechNodeFieldsFn)(MechSystem, PetscReal t, Vec q, Vec v, PetscInt nnodes, PetscReal *values[], void *ctx);
/* Per-node fields of a system with a mesh: /fields/<name> [nsnap, nn] or [nsnap, nn, ncomp] in the
   node order of /fields/q (the I/O order), node-centred attributes of the XDMF; names, components
   and limits as for the cell fields, distinct from theirs. */
PETSC_EXTERN PetscErrorCode MechSystemSetNodeFields(MechSystem, PetscInt nfields, const char *const names[], const PetscInt ncomp[], MechNodeFieldsFn, void *ctx);
PETSC_EXTERN PetscErrorCode MechSystemGetNodeFields(MechSystem, PetscInt *nfields, const char *const **names, const PetscInt **ncomp);
/* Evaluates the node fields at (t, q, v) into values[f] (ncomp[f] reals per local node, state order). Collective. */
PETSC_EXTERN PetscErrorCode MechSystemComputeNodeFields(MechSystem, PetscReal t, Vec q, Vec v, PetscReal *values[]);
/* ---- end of the per-cell output fields ---- */
/* Initial state (copied). */
PETSC_EXTERN PetscErrorCode MechSystemSetInitialState(MechSystem, Vec q, Vec v);
/* New vectors holding the initial state (or zero if none was given). */
PETSC_EXTERN PetscErrorCode MechSystemCreateState(MechSystem, Vec *q, Vec *v);
/* A model's private data, destroyed with the system. */
PETSC_EXTERN PetscErrorCode MechSystemSetApplicationContext(MechSystem, void *, PetscErrorCode (*)(void *));
PETSC_EXTERN PetscErrorCode MechSystemGetApplicationContext(MechSystem, void *);
/* Model name and parameters (for output metadata): "key=value" appended by the model. */
PETSC_EXTERN PetscErrorCode MechSystemSetModelName(MechSystem, const char[]);
PETSC_EXTERN PetscErrorCode MechSystemGetModelName(MechSystem, const char **);
PETSC_EXTERN PetscErrorCode MechSystemAddParameter(MechSystem, const char name[], PetscReal value);
/* The value of a parameter recorded already (a value resolved after the system exists) */
PETSC_EXTERN PetscErrorCode MechSystemSetParameter(MechSystem, const char name[], PetscReal value);
PETSC_EXTERN PetscErrorCode MechSystemGetParameters(MechSystem, PetscInt *n, const char *const **names, const PetscReal **values);
/* ---- text parameters (src/mech/mechsystem.c) ---- */
/* A model parameter whose value is a name (a material, a mesh, ...): recorded as a string attribute
   of the output (listed in model_text_parameters) and in checkpoints; a restart with another value
   is refused. name: 1 to 63 characters, no comma; text: 1 to 255 printable ASCII characters. At
   most 16. */
PETSC_EXTERN PetscErrorCode MechSystemAddTextParameter(MechSystem, const char name[], const char text[]);
PETSC_EXTERN PetscErrorCode MechSystemGetTextParameters(MechSystem, PetscInt *n, const char *const **names, const char *const **texts);
/* ---- end of the text parameters ---- */

/* ---- discrete gradients (src/mech/discgrad.c, docs/schemes.md §11) ---- */
/* fbar = a discrete gradient of the potential between q0 and q1 (V(q1) - V(q0) = fbar . (q1 - q0)
   exactly, fbar(q, q) = grad V(q)) plus the non-conservative forces at ((q0 + q1)/2, v), at time t */
typedef PetscErrorCode (*MechDiscreteGradientFn)(MechSystem, PetscReal t, Vec q0, Vec q1, Vec v, Vec fbar, void *ctx);
/* J = cK dfbar/dq1 + cD dfbar/dv at (t, q0, q1, v); J (the tangent's pattern) is zeroed on entry */
typedef PetscErrorCode (*MechDiscreteGradientJacobianFn)(MechSystem, PetscReal t, Vec q0, Vec q1, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx);
/* The model's discrete gradient, its derivative (may be NULL) and whether it is frame-invariant
   (fbar of rotated and translated states is fbar rotated: linear and angular momentum conserved) */
PETSC_EXTERN PetscErrorCode MechSystemSetDiscreteGradient(MechSystem, MechDiscreteGradientFn, MechDiscreteGradientJacobianFn, PetscBool frameinvariant, void *);
/* has: the model gives one (else Gonzalez's generic midpoint one is used, energy exact only);
   frameinvariant, exactjacobian: its properties (each may be NULL) */
PETSC_EXTERN PetscErrorCode MechSystemGetDiscreteGradient(MechSystem, PetscBool *has, PetscBool *frameinvariant, PetscBool *exactjacobian);
/* fbar(t, q0, q1, v), fixed dofs zeroed: the model's, or Gonzalez's generic midpoint discrete gradient */
PETSC_EXTERN PetscErrorCode MechSystemComputeDiscreteGradient(MechSystem, PetscReal t, Vec q0, Vec q1, Vec v, Vec fbar);
/* J = cK dfbar/dq1 + cD dfbar/dv + cM M, fixed dofs decoupled, in a matrix of MechSystemCreateOperator();
   without the model's derivative: the midpoint tangent cK/2 K + cD D at ((q0 + q1)/2, v) (exact: PETSC_FALSE) */
PETSC_EXTERN PetscErrorCode MechSystemComputeDiscreteGradientOperator(MechSystem, PetscReal t, Vec q0, Vec q1, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, Mat J, PetscBool *exact);
/* ---- end of the discrete gradients ---- */

/* ---- what the reactions and the energy balance need of a model (src/mech/reaction.c) ---- */
/* The parts of a model's force the energy balance tells apart */
typedef enum {
  MECH_FORCE_ALL,      /* the whole force f(t, q, v) */
  MECH_FORCE_EXTERNAL, /* the applied loads' part, -F_ext (gravity, loads on faces, body forces) */
  MECH_FORCE_DAMPING   /* the damping forces' part, D v */
} MechForcePart;
/* f = that part at (t, q, v), fixed rows not zeroed; fixedonly: only the fixed rows need to be right */
typedef PetscErrorCode (*MechForcePartFn)(MechSystem, PetscReal t, Vec q, Vec v, MechForcePart part, PetscBool fixedonly, Vec f, void *ctx);
PETSC_EXTERN PetscErrorCode MechSystemSetForcePart(MechSystem, MechForcePartFn, void *);
PETSC_EXTERN PetscErrorCode MechSystemComputeForcePart(MechSystem, PetscReal t, Vec q, Vec v, MechForcePart, PetscBool fixedonly, Vec f);
/* The potential of the internal forces alone (a solid's strain energy); the global value on every rank */
PETSC_EXTERN PetscErrorCode MechSystemSetStoredEnergy(MechSystem, MechPotentialFn, void *);
PETSC_EXTERN PetscErrorCode MechSystemComputeStoredEnergy(MechSystem, PetscReal t, Vec q, Vec v, PetscReal *);
/* Named groups of the fixed dofs (per local fixed dof its group, in the fixed IS's order) and the
   points their moments are taken about (hasabout NULL or false: the group's centroid) */
PETSC_EXTERN PetscErrorCode MechSystemSetFixedGroups(MechSystem, PetscInt n, const char *const names[], const PetscInt group[], const PetscReal about[], const PetscBool hasabout[]);
PETSC_EXTERN PetscErrorCode MechSystemGetFixedGroups(MechSystem, PetscInt *n, const char *const **names, const PetscInt **group, const PetscReal **about);
/* ---- per-step records of the output, /monitor/<name> (src/mech/records.c) ---- */
/* values[]: every record's ncomp components one after the other, the same on every rank */
typedef PetscErrorCode (*MechRecordsFn)(MechSystem, PetscReal t, Vec q, Vec v, PetscReal values[], void *ctx);
PETSC_EXTERN PetscErrorCode MechSystemAddRecords(MechSystem, PetscInt n, const char *const names[], const PetscInt ncomp[], MechRecordsFn, void *ctx);
PETSC_EXTERN PetscErrorCode MechSystemRemoveRecords(MechSystem, void *ctx);
PETSC_EXTERN PetscErrorCode MechSystemGetRecords(MechSystem, PetscInt *n, const char *const **names, const PetscInt **ncomp);
PETSC_EXTERN PetscErrorCode MechSystemComputeRecords(MechSystem, PetscReal t, Vec q, Vec v, PetscReal values[]);
/* ---- end of the reactions' and records' system part ---- */

/* Evaluations (fixed dofs applied: zero force, decoupled rows/columns). */
PETSC_EXTERN PetscErrorCode MechSystemComputeForce(MechSystem, PetscReal, Vec q, Vec v, Vec f);
/* ---- static equilibrium (src/mech/statics.c) ---- */
/* f(t, q, 0) at rest: the fixed dofs where prescribed at t, no velocity, no inertia of a moving support */
PETSC_EXTERN PetscErrorCode MechSystemComputeStaticForce(MechSystem, PetscReal t, Vec q, Vec f);
/* |f(t, q, 0)| against the load |f(t, X, 0)| at the initial state X (either may be NULL) */
PETSC_EXTERN PetscErrorCode MechSystemComputeEquilibrium(MechSystem, PetscReal t, Vec q, PetscReal *residual, PetscReal *load);
/* The damping force is D v with D constant and symmetric (Rayleigh): it has a dissipation potential */
PETSC_EXTERN PetscErrorCode MechSystemSetDampingLinear(MechSystem, PetscBool);
/* The rigid motions the constraints leave free at (t, q): how many, and in words */
PETSC_EXTERN PetscErrorCode MechSystemGetFreeMotions(MechSystem, PetscReal t, Vec q, PetscInt *nfree, char desc[], size_t len);
/* Times where the loads or prescribed motions have a kink (automatic incrementation lands on them) */
PETSC_EXTERN PetscErrorCode MechSystemAddKinks(MechSystem, PetscInt n, const PetscReal times[]);
PETSC_EXTERN PetscErrorCode MechSystemGetKinks(MechSystem, PetscInt *n, const PetscReal *times[]);
/* ---- end of static equilibrium ---- */
/* ||M v|| + tau (||f|| + ||K d||/h): the size of a step's residual terms, eps times it is round-off */
PETSC_EXTERN PetscErrorCode MechSystemComputeResidualScale(MechSystem, PetscReal t, Vec q, Vec v, PetscReal tau, PetscReal *scale);
/* Newton of the tsmech types converges at a residual of at most this factor times eps times that
   scale; the scale is evaluated where the residual is within TSMECH_ROUNDOFF_GATE of that floor */
#define TSMECH_ROUNDOFF_FACTOR 4
#define TSMECH_ROUNDOFF_GATE   2
/* ... and, where Newton stagnates (the residual not halved by an iteration), at most this factor */
#define TSMECH_ROUNDOFF_STUCK 32
/* J = cK K + cD D + cM M */
PETSC_EXTERN PetscErrorCode MechSystemComputeOperator(MechSystem, PetscReal, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, Mat J);
/* P = cK K~ + cD D~ + cM M with the semidefinite approximation of MechSystemSetTangentDefinite()
   (the exact tangent if the model gives none): a preconditioning matrix */
PETSC_EXTERN PetscErrorCode MechSystemComputeOperatorDefinite(MechSystem, PetscReal, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, Mat P);
/* A new matrix with the sparsity of the operator above. */
PETSC_EXTERN PetscErrorCode MechSystemCreateOperator(MechSystem, Mat *);
/* A new matrix with the reduced sparsity of MechSystemSetTangentPattern(), for preconditioning:
   MechSystemComputeOperator() fills it with the operator's entries on that sparsity (the others
   are dropped). */
PETSC_EXTERN PetscErrorCode MechSystemCreateOperatorReduced(MechSystem, Mat *);
/* Frees the tangent's pattern matrix if the system can build it again and no operator holds it. */
PETSC_EXTERN PetscErrorCode MechSystemReleasePattern(MechSystem);
/* A MATSHELL applying J = cK K + cD D + cM M (fixed dofs decoupled) through the tangent action,
   without assembly; MechSystemLinearizeOperatorShell() sets its state and coefficients. */
PETSC_EXTERN PetscErrorCode MechSystemCreateOperatorShell(MechSystem, Mat *);
PETSC_EXTERN PetscErrorCode MechSystemLinearizeOperatorShell(MechSystem, PetscReal, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, Mat A);
/* Solve M x = b (fixed dofs decoupled) with the system's mass KSP (prefix <prefix>mass_). */
PETSC_EXTERN PetscErrorCode MechSystemSolveMass(MechSystem, Vec b, Vec x);
PETSC_EXTERN PetscErrorCode MechSystemComputeEnergy(MechSystem, PetscReal, Vec q, Vec v, PetscReal *kinetic, PetscReal *potential);
PETSC_EXTERN PetscErrorCode MechSystemComputeExactSolution(MechSystem, PetscReal, Vec q, Vec v, PetscBool *has);
PETSC_EXTERN PetscErrorCode MechSystemGetNumInvariants(MechSystem, PetscInt *);
PETSC_EXTERN PetscErrorCode MechSystemComputeInvariant(MechSystem, PetscInt, PetscReal, Vec q, Vec v, const char **name, PetscReal *value);
/* Set the fixed entries of q to their prescribed values and of v to zero. */
PETSC_EXTERN PetscErrorCode MechSystemApplyFixed(MechSystem, Vec q, Vec v);
PETSC_EXTERN PetscErrorCode MechSystemSetOptionsPrefix(MechSystem, const char[]);

/* ------------------------------------------------------------------------------------------ */
/* Attaching a system to a TS                                                                 */
/* ------------------------------------------------------------------------------------------ */

/* Attach the system: installs the I2Function/I2Jacobian (TSALPHA2 and tsmech types) and marks
   the problem linear when the system is. Call before TSSetFromOptions(). */
PETSC_EXTERN PetscErrorCode TSMechSetSystem(TS, MechSystem);
PETSC_EXTERN PetscErrorCode TSMechGetSystem(TS, MechSystem *);
/* Give the initial state once the type is known (after TSSetFromOptions()): second-order types
   get (q, v) through TS2SetSolution(); PETSc's first-order types get the automatic form
   X = [q; v] (2N unknowns; IFunction/IJacobian, or RHSFunction for explicit types). */
PETSC_EXTERN PetscErrorCode TSMechSetSolution(TS, Vec q, Vec v);
/* Copy the current state of the TS into q and v, whichever form it runs. */
PETSC_EXTERN PetscErrorCode TSMechGetSolution(TS, Vec q, Vec v);
/* Whether the TS type integrates the second-order form directly. */
PETSC_EXTERN PetscErrorCode TSMechIsSecondOrder(TS, PetscBool *);
/* Whether the TS steps explicitly (no Newton solve: its stability limits the step) */
PETSC_EXTERN PetscErrorCode TSMechIsExplicit(TS, PetscBool *);

/* How a restart from a checkpoint continues a run of a TS type */
typedef enum {
  TSMECH_RESTART_FIRST_STEP, /* it keeps history a checkpoint does not hold: restarts as at a first step */
  TSMECH_RESTART_FIXED_STEP, /* it keeps nothing between steps: exact, but only at fixed steps */
  TSMECH_RESTART_EXACT       /* its history is saved in the checkpoint and given back */
} TSMechRestart;

/* What a TS type reports of itself for its current settings (TSMechGetProperties()) */
typedef struct {
  PetscBool     explicit_;       /* no Newton solve: its stability limits the step */
  PetscInt      order;           /* of the scheme on smooth problems (0: not known) */
  PetscBool     secondorder;     /* integrates M q'' + f = 0 directly (TS2SetSolution()), not [q; v] */
  TSMechRestart restart;         /* how a restart from a checkpoint continues it */
  PetscBool     ownfixed;        /* puts the fixed dofs on their prescribed motion itself */
  PetscBool     owncoarse;       /* forms a PCMG's coarse operators itself (tsmech's Newton object) */
  PetscBool     quasistatic;     /* solves static equilibrium at each step (time a load parameter): no inertia, no accuracy in time to keep */
  char          restartnote[96]; /* why a restart continues only to the solver tolerance ("" if not) */
} TSMechProperties;

/* The properties of the TS's type (tsmech's types report their own; PETSc's known ones too) */
PETSC_EXTERN PetscErrorCode TSMechGetProperties(TS, TSMechProperties *);
/* Registers a TS type of one's own (TSRegister()) with a one-line description, the properties it
   reports and its options that take a value (NULL-terminated, NULL: none), so that tsmech
   (TSMechSetSolution(), the run guard, checkpoints, the driver) treats it as it says */
PETSC_EXTERN PetscErrorCode TSMechRegister(const char name[], const char description[], PetscErrorCode (*)(TS), PetscErrorCode (*)(TS, TSMechProperties *), const char *const valued[]);
/* The TS types of tsmech and of TSMechRegister(), with their descriptions (each type gives its own) */
PETSC_EXTERN PetscErrorCode TSMechGetTypeNames(PetscInt *n, const char *const **names, const char *const **descriptions);
/* The options of the TS types that take a value (each type lists its own), for MechOptionsCheckValuesGiven() */
PETSC_EXTERN PetscErrorCode TSMechGetValuedOptions(PetscInt *n, const char *const **names);

/* Reactions and the energy balance of a run (src/ts/balance.c, docs/balance.md): at every step the
   force and moment each group of fixed dofs exerts (/monitor/reaction/NAME/force, /moment) and the
   energy terms TSMechEnergyNames (/monitor/balance/NAME), from the step's own discrete quantities */
#define TSMECH_ENERGY_N 7
PETSC_EXTERN const char *const TSMechEnergyNames[TSMECH_ENERGY_N];
PETSC_EXTERN PetscErrorCode    TSMechSetBalance(TS, PetscBool reactions, PetscBool energy);
PETSC_EXTERN PetscErrorCode    TSMechGetReaction(TS, const char name[], PetscReal force[3], PetscReal moment[3]);
PETSC_EXTERN PetscErrorCode    TSMechGetEnergyBalance(TS, PetscReal e[TSMECH_ENERGY_N]);

/* The run guard (src/ts/guard.c): after every step the state is checked (finite; for explicit
   types no energy blow-up: a gain of more than TSMECH_GUARD_BLOWUP_FACTOR times what the state
   holds otherwise) and kept; a non-finite state under an adaptive controller is retried with a
   quarter of the step, any other failure ends the run with a failed converged reason. */
#define TSMECH_GUARD_BLOWUP_FACTOR 1e6
typedef struct _n_TSMechGuard *TSMechGuard;
typedef enum {
  TSMECH_GUARD_NONE,      /* no failure */
  TSMECH_GUARD_TS,        /* the TS gave up on a step (its converged reason is negative) */
  TSMECH_GUARD_NONFINITE, /* a state that is not finite (NaN or Inf) */
  TSMECH_GUARD_BLOWUP,    /* the energy of an explicit method grew without bound */
  TSMECH_GUARD_REFUSED    /* the model's state check refused the state (MechSystemSetStateCheck()) */
} TSMechGuardFailure;
PETSC_EXTERN const char *const TSMechGuardFailures[];
PETSC_EXTERN PetscErrorCode    TSMechSetGuard(TS, TSMechGuard *);
PETSC_EXTERN PetscErrorCode    TSMechGuardSetPostStep(TSMechGuard, PetscErrorCode (*)(TS, void *), void *);
PETSC_EXTERN PetscErrorCode    TSMechGuardGetFailure(TSMechGuard, TSMechGuardFailure *, PetscReal *dt, PetscReal *energy, const char **why);
PETSC_EXTERN PetscErrorCode    TSMechGuardGetInfo(TSMechGuard, PetscReal *E0, PetscReal *content, PetscInt *startstep, PetscInt *goodstep, PetscReal *goodtime, PetscInt *rejects);
PETSC_EXTERN PetscErrorCode    TSMechGuardRestore(TSMechGuard, PetscBool beforegrowth);

/* ------------------------------------------------------------------------------------------ */
/* Models (options read with the model's name as prefix, e.g. -chain_n)                       */
/* ------------------------------------------------------------------------------------------ */

/* 1-D spring-damper with gravity, exact solution (docs/schemes.md §5) */
PETSC_EXTERN PetscErrorCode MechCreateOscillator(MPI_Comm, MechSystem *);
/* Two particles joined by a spring (docs/schemes.md §5) */
PETSC_EXTERN PetscErrorCode MechCreatePair(MPI_Comm, MechSystem *);
/* Rope of N particles in 3-D, rest-length springs, damping, gravity, drag, one end pinned */
PETSC_EXTERN PetscErrorCode MechCreateChain(MPI_Comm, MechSystem *);
/* The Kepler problem (Hairer, Lubich & Wanner 2006, §I.2): GM = 1, eccentricity -kepler_e, starts at pericentre, period 2 pi */
PETSC_EXTERN PetscErrorCode MechCreateKepler(MPI_Comm, MechSystem *);
/* n x n cloth on a 2-D DMDA (-cloth_n): structural, shear and bend springs, gravity, drag,
   pinned top corners or edge, optional sphere collision; -cloth_linear: zero rest lengths */
PETSC_EXTERN PetscErrorCode MechCreateCloth(MPI_Comm, MechSystem *);
/* n x n x n soft body on a 3-D DMDA (-lattice_n), same spring families, base fixed */
PETSC_EXTERN PetscErrorCode MechCreateLattice(MPI_Comm, MechSystem *);
/* Hyperelastic solid of linear tetrahedra on a distributed DMPlex: a mesh file (-solid_mesh) or a
   built-in cantilever beam; materials linear, svk, neohookean; consistent or lumped mass */
PETSC_EXTERN PetscErrorCode MechCreateSolid(MPI_Comm, MechSystem *);
/* Create a registered model by name (oscillator, pair, chain, ...; src/models/models.c) */
PETSC_EXTERN PetscErrorCode MechCreateModel(MPI_Comm, const char name[], MechSystem *);
/* Register a model of one's own under a name; the list of registered models (for PetscOptionsFList()) */
PETSC_EXTERN PetscErrorCode    MechModelRegister(const char name[], PetscErrorCode (*)(MPI_Comm, MechSystem *));
PETSC_EXTERN PetscErrorCode    MechModelRegisterAll(void);
PETSC_EXTERN PetscErrorCode    MechModelFinalizePackage(void);
PETSC_EXTERN PetscFunctionList MechModelList;
/* The registered models' names, in registration order, NULL-terminated (owned by the library) */
PETSC_EXTERN PetscErrorCode MechModelGetNames(PetscInt *n, const char *const **names);
/* Whether every rank of a communicator has reached its error path, waiting at most `seconds`
   (MechErrorAgree(), not collective), after MechErrorAgreeSetUp() (collective) prepared its
   communicator of its own: collective clean-up after an error may follow only if it has
   (src/mech/erroragree.c; the README's "An error on some ranks only") */
PETSC_EXTERN PetscErrorCode MechErrorAgreeSetUp(MPI_Comm);
PETSC_EXTERN PetscErrorCode MechErrorAgree(MPI_Comm, PetscReal seconds, PetscBool *all);
/* Refuses option values no option can take (NaN, Inf, overflow, subnormal, integers PetscInt
   would wrap), naming the option; prefix NULL checks every option (src/mech/optionscheck.c) */
PETSC_EXTERN PetscErrorCode MechOptionsCheckNumbers(MPI_Comm, const char prefix[]);
/* Refuses any of the options names[] given without a value (src/mech/optionscheck.c) */
PETSC_EXTERN PetscErrorCode MechOptionsCheckValuesGiven(MPI_Comm, PetscInt, const char *const[]);
/* Options that must be given with a value, used inside a PetscOptionsBegin() block like PETSc's:
   an option given without one (PETSc reads "-solid_g" and "-solid_g ''" alike and keeps the
   default) is refused, and a list needs exactly n comma-separated values (PETSc drops extra ones
   silently). src/mech/optionscheck.c */
PETSC_EXTERN PetscErrorCode MechOptionsReal_Private(PetscOptionItems *, const char opt[], const char text[], const char man[], PetscReal cur, PetscReal *value, PetscBool *set);
PETSC_EXTERN PetscErrorCode MechOptionsInt_Private(PetscOptionItems *, const char opt[], const char text[], const char man[], PetscInt cur, PetscInt *value, PetscBool *set);
PETSC_EXTERN PetscErrorCode MechOptionsString_Private(PetscOptionItems *, const char opt[], const char text[], const char man[], const char cur[], char value[], size_t len, PetscBool *set);
PETSC_EXTERN PetscErrorCode MechOptionsEList_Private(PetscOptionItems *, const char opt[], const char text[], const char man[], const char *const *list, PetscInt ntext, const char cur[], PetscInt *value, PetscBool *set);
PETSC_EXTERN PetscErrorCode MechOptionsRealList_Private(PetscOptionItems *, const char opt[], const char text[], const char man[], PetscReal value[], PetscInt n, PetscBool *set);
PETSC_EXTERN PetscErrorCode MechOptionsIntList_Private(PetscOptionItems *, const char opt[], const char text[], const char man[], PetscInt value[], PetscInt n, PetscBool *set);
PETSC_EXTERN PetscErrorCode MechOptionsBool_Private(PetscOptionItems *, const char opt[], const char text[], const char man[], PetscBool cur, PetscBool *value, PetscBool *set);
PETSC_EXTERN PetscErrorCode MechOptionsFList_Private(PetscOptionItems *, const char opt[], const char ltext[], const char man[], PetscFunctionList list, const char cur[], char value[], size_t len, PetscBool *set);
#define MechOptionsReal(opt, text, man, cur, value, set)               MechOptionsReal_Private(PetscOptionsObject, opt, text, man, cur, value, set)
#define MechOptionsInt(opt, text, man, cur, value, set)                MechOptionsInt_Private(PetscOptionsObject, opt, text, man, cur, value, set)
#define MechOptionsString(opt, text, man, cur, value, len, set)        MechOptionsString_Private(PetscOptionsObject, opt, text, man, cur, value, len, set)
#define MechOptionsEList(opt, text, man, list, ntext, cur, value, set) MechOptionsEList_Private(PetscOptionsObject, opt, text, man, list, ntext, cur, value, set)
#define MechOptionsRealList(opt, text, man, value, n, set)             MechOptionsRealList_Private(PetscOptionsObject, opt, text, man, value, n, set)
#define MechOptionsIntList(opt, text, man, value, n, set)              MechOptionsIntList_Private(PetscOptionsObject, opt, text, man, value, n, set)
#define MechOptionsBool(opt, text, man, cur, value, set)               MechOptionsBool_Private(PetscOptionsObject, opt, text, man, cur, value, set)
#define MechOptionsFList(opt, ltext, man, list, cur, value, len, set)  MechOptionsFList_Private(PetscOptionsObject, opt, ltext, man, list, cur, value, len, set)
/* The value of a global option (no prefix) read outside an options block, with the same checks
   (a value longer than len - 1 characters is refused, not cut) */
PETSC_EXTERN PetscErrorCode MechOptionsGetString(MPI_Comm, const char opt[], char value[], size_t len, PetscBool *set);
/* An option's value or a path as messages show it: at most about 100 characters */
PETSC_EXTERN const char *MechOptionsShortValue(const char value[], char buf[], size_t len);
/* Input files (src/mech/readfile.c): every file the program reads is a regular, readable file of
   a size its reader can hold, checked before it is opened (a FIFO would block the run) */
PETSC_EXTERN void               MechFileProblem(const char path[], unsigned long long maxbytes, char why[], size_t len);
PETSC_EXTERN unsigned long long MechFileMemoryLimit(void);
PETSC_EXTERN PetscErrorCode     MechFileCheckRead(MPI_Comm, const char option[], const char prefix[], const char path[], unsigned long long maxbytes);
PETSC_EXTERN PetscErrorCode     MechFileReadAll(const char path[], unsigned long long maxbytes, char **buf, size_t *size, char why[], size_t len);
/* Whether a KSP or PC type needs a symmetric operator, by a probe of what it does (src/mech/solverprobe.c);
   the refusal of such a solver for an operator that is not symmetric, naming the option and why */
PETSC_EXTERN PetscErrorCode MechSolverNeedsSymmetric(const char type[], PetscBool ispc, PetscBool *needs);
PETSC_EXTERN PetscErrorCode MechKSPCheckSymmetric(KSP, const char why[]);
/* The solid's inverted elements (J <= 0) at q, or (q NULL) at the last force evaluation that met
   any: how many, the smallest rank-independent element number (the mesh file's tetrahedron, from
   0) and the time of that evaluation */
PETSC_EXTERN PetscErrorCode MechSolidGetInverted(MechSystem, Vec q, PetscInt *count, PetscInt *element, PetscReal *time);
/* ---- the solid's body force and error norms (src/models/solid/bodyforce.c, docs/solid.md §14) ---- */
/* b(t, X): the body force per unit reference volume at time t and reference point X (b[0..2]) */
typedef PetscErrorCode (*MechSolidBodyForceFn)(PetscReal t, const PetscReal X[], PetscReal b[], void *ctx);
/* The solid's body force: f_a -= int N_a b dV0 on every cell type and order, in the residual, the
   potential (-int b . u dV0) and the discrete gradient; a second call replaces it. Collective. */
PETSC_EXTERN PetscErrorCode MechSolidSetBodyForce(MechSystem, MechSolidBodyForceFn, void *ctx);
/* u(t, X) and gradu[3 i + j] = du_i/dX_j: an exact displacement field */
typedef PetscErrorCode (*MechSolidExactFn)(PetscReal t, const PetscReal X[], PetscReal u[], PetscReal gradu[], void *ctx);
/* The L2 norm and the H1 seminorm (either may be NULL) of u_h - u, u_h = q - X the displacement of
   the positions q in the elements' own interpolation, over the reference body. Collective. */
PETSC_EXTERN PetscErrorCode MechSolidComputeError(MechSystem, PetscReal t, Vec q, MechSolidExactFn, void *ctx, PetscReal *l2, PetscReal *h1);
/* ---- end of the solid's body force ---- */

/* Time functions phi(t) of loads and prescribed motions: constant, ramp:T, hat:T1,T2, sin:OMEGA,
   table:FILE (src/mech/timefunction.c) */
typedef struct _n_MechTimeFunction *MechTimeFunction;
PETSC_EXTERN PetscErrorCode         MechTimeFunctionCreate(MPI_Comm, const char spec[], const char option[], MechTimeFunction *);
PETSC_EXTERN PetscErrorCode         MechTimeFunctionEvaluate(MechTimeFunction, PetscReal t, PetscReal *phi, PetscReal *dphi, PetscReal *ddphi);
PETSC_EXTERN PetscErrorCode         MechTimeFunctionGetDescription(MechTimeFunction, const char **spec);
PETSC_EXTERN PetscErrorCode         MechTimeFunctionGetChecksum(MechTimeFunction, PetscReal *);
PETSC_EXTERN PetscErrorCode         MechTimeFunctionGetRecord(MechTimeFunction, char rec[], size_t len);
PETSC_EXTERN PetscErrorCode         MechTimeFunctionDestroy(MechTimeFunction *);
/* The times where phi has a kink (ramp's end, hat's corners, a table's rows), owned by the function */
PETSC_EXTERN PetscErrorCode MechTimeFunctionGetKinks(MechTimeFunction, PetscInt *n, const PetscReal *times[]);
/* Declares a time function's kinks to the system (MechSystemAddKinks()) */
PETSC_EXTERN PetscErrorCode MechSystemAddTimeFunctionKinks(MechSystem, MechTimeFunction);

/* ------------------------------------------------------------------------------------------ */
/* HDF5 output (layout documented in the README)                                              */
/* ------------------------------------------------------------------------------------------ */

typedef struct _n_MechOutput *MechOutput;

/* Creates FILE.h5 (collective; refuses a path that cannot be written) and records on / the
   model name, parameters and text parameters, the TS type and parameters, dt, the number of ranks and the
   tsmech version. Fields are written every `every` steps (the first and last always). The file
   is written as FILE.h5.tmp-<pid> and takes its name when the first completed step is recorded
   (or at the close), so an existing FILE.h5 survives a run that fails before its first step. */
PETSC_EXTERN PetscErrorCode MechOutputCreate(MechSystem, TS, const char filename[], PetscInt every, MechOutput *);
/* Records the current state of ts: /monitor scalars every call, /fields every `every` steps.
   Usable as a TSMonitor through TSMonitorMechOutput. */
PETSC_EXTERN PetscErrorCode MechOutputRecord(MechOutput, TS);
PETSC_EXTERN PetscErrorCode TSMonitorMechOutput(TS, PetscInt, PetscReal, Vec, void *);
/* Writes the last snapshot if it is not written yet, the /monitor datasets and, for grid models,
   the XDMF file beside FILE.h5; then closes the file. */
PETSC_EXTERN PetscErrorCode MechOutputClose(MechOutput, TS);
PETSC_EXTERN PetscErrorCode MechOutputDestroy(MechOutput *);

/* The files of a run, planned before anything is written (src/io/runfiles.c): every path a run
   writes is derived from its output, checkpoint (with its `keep` rotation slots) and restart
   file, checked (lengths, collisions, kinds: a run never overwrites a file that is not of the
   kind it replaces, writability, room) and locked against other runs and other writers of this
   program until MechIOPlanDestroy(). -checkpoint_keep is at most MECH_IO_MAX_KEEP. Collective;
   rank 0 looks and holds the locks. The tsmech program and the Python package use it. */
#define MECH_IO_MAX_KEEP 100
typedef struct _n_MechIOPlan *MechIOPlan;
PETSC_EXTERN PetscErrorCode   MechIOPlanFiles(MPI_Comm, const char output[], const char checkpoint[], PetscInt keep, const char restart[], MechIOPlan *);
PETSC_EXTERN PetscErrorCode   MechIOPlanDestroy(MechIOPlan *);

/* ------------------------------------------------------------------------------------------ */
/* Checkpoint and restart                                                                     */
/* ------------------------------------------------------------------------------------------ */

/*
  A checkpoint is an HDF5 file (written in parallel through PetscViewerHDF5) holding everything
  the next step depends on: q, v, the start of the last step (time, velocity and position: the
  extrapolating guesses and the error estimate of the theta2 family), t, the step number, the
  next dt, the TSAdapt state, the TS type and its parameters, the model and its parameters, the
  iteration counters, a checksum of every vector and a format version. It is written to
  FILE.tmp-<pid> and renamed over FILE only when complete, so a crash during the write leaves the
  previous checkpoint intact. The layout is documented in the README.

  Restart (same number of ranks, deterministic solvers): the run continues bit for bit. On
  another number of ranks the grid vectors are redistributed (natural ordering in the file) and
  the run agrees to solver round-off.

  Typical use (what the tsmech program does):
      MechCheckpointCreate(sys, ts, &ck);              before TSSetFromOptions()
      MechCheckpointLoad(ck, ts, "run.h5");            restart only: validate, TS type defaults
      TSSetFromOptions(ts);
      MechCheckpointRestore(ck, ts, q, v);             restart, else TSMechSetSolution(ts, q, v)
      ... TSSolve() with MechCheckpointWrite(ck, ts, "run.h5") between steps (TSSetPostStep) ...
      MechCheckpointDestroy(&ck);
*/
typedef struct _n_MechCheckpoint *MechCheckpoint;

/* The format version this tsmech writes; it also reads version 2 (without text parameters) */
#define MECH_CHECKPOINT_FORMAT_VERSION 3

/* Creates the checkpointer of a run (collective on ts). sys NULL: the system attached to ts. It
   installs a TSMonitor keeping the position and time at the start of the last step (the theta2
   family's error estimate needs them after a restart): create it before TSSolve(), destroy it
   after the TS. Test hook: -checkpoint_test_pause_in_write STEP makes the write at that step
   stop midway (the file FILE.pause lists the ranks' process ids) so that a test can kill it. */
PETSC_EXTERN PetscErrorCode MechCheckpointCreate(MechSystem, TS, MechCheckpoint *);
PETSC_EXTERN PetscErrorCode MechCheckpointDestroy(MechCheckpoint *);
/* How many checkpoints are kept: FILE, FILE.1, ..., FILE.<keep-1>, newest first (default 1) */
PETSC_EXTERN PetscErrorCode MechCheckpointSetKeep(MechCheckpoint, PetscInt);
/* Writes the state of ts between two steps (after TSSolve() or in a TSPostStep) to path,
   atomically. After a failed step (the TS's converged reason is negative; the caller has given
   the TS its last good state back) the checkpoint is marked failed_step and holds no history:
   the restart starts as at a first step, with a -ts_dt given on its command line. Collective. */
PETSC_EXTERN PetscErrorCode MechCheckpointWrite(MechCheckpoint, TS, const char path[]);
/* Reads a checkpoint and validates it against the system attached to ts: format version,
   completeness, model name, every model parameter, state size, vector checksums; refuses a
   mismatch, a truncated or corrupted file with a message naming the file and what differs. Then
   makes its TS type, TS parameters and TSAdapt type the defaults of ts, so call it before
   TSSetFromOptions() (command-line options still win). Changes nothing else. Collective. */
PETSC_EXTERN PetscErrorCode MechCheckpointLoad(MechCheckpoint, TS, const char path[]);
/* Gives ts the loaded state: copies q and v into the given vectors (from MechSystemCreateState())
   and sets them with TSMechSetSolution(), then the time, step number, dt, TSAdapt state,
   iteration counters and the start of the last step. Call after TSSetFromOptions(); notes on
   stdout the TS settings that differ from the checkpoint's. Collective. */
PETSC_EXTERN PetscErrorCode MechCheckpointRestore(MechCheckpoint, TS, Vec q, Vec v);
/* Step number and time of the checkpoint last loaded or written (-1 and 0 if none) */
PETSC_EXTERN PetscErrorCode MechCheckpointGetLast(MechCheckpoint, PetscInt *, PetscReal *);

/* Reads q (and v, if not NULL) from a snapshot (index, or the one at *time) of a tsmech output of the
   same model, the parameters match[] equal in the file (those that fix the mesh); opt names the
   file's option in messages (src/io/initialstate.c). Collective. */
PETSC_EXTERN PetscErrorCode MechOutputReadState(MechSystem, const char path[], const char opt[], PetscInt nmatch, const char *const match[], PetscInt index, const PetscReal *time, Vec q, Vec v, PetscReal *tsnap, PetscInt *ksnap);
/* its former name (the reader of an output file is I/O, src/io, not the system's) */

/* Continues the HDF5 output of an interrupted run after MechCheckpointRestore(): the records of
   the steps after the restart step are removed and the run appends from there, so /monitor has
   every step once (a missing file is created). Refuses, changing nothing, a file of another
   model, parameters, text parameters or size, without the system's per-cell fields, or one whose
   /monitor does not reach the restart step. */
PETSC_EXTERN PetscErrorCode MechOutputContinue(MechSystem, TS, const char filename[], PetscInt every, MechOutput *);
/* Writes the pending /monitor records and flushes the file (done before every checkpoint) */
PETSC_EXTERN PetscErrorCode MechOutputFlush(MechOutput);

/* ------------------------------------------------------------------------------------------ */
/* Modal analysis (src/mech/modes.c, docs/modes.md)                                            */
/* ------------------------------------------------------------------------------------------ */

/* The natural frequencies and mode shapes of K(t, q, v) x = omega^2 M x on the free dofs, by SLEPc
   (options under the prefix modes_: -modes_eps_type, -modes_st_ksp_type, ...) */
typedef struct _n_MechModes *MechModes;
typedef enum {
  MECH_MODES_LOWEST, /* shift-and-invert below zero: the rigid-body modes first, at 0 Hz */
  MECH_MODES_HIGHEST /* Krylov-Schur on M^-1 K: the explicit integrators' stable step */
} MechModesWhich;
PETSC_EXTERN PetscErrorCode MechModesCreate(MechSystem, MechModes *);
PETSC_EXTERN PetscErrorCode MechModesDestroy(MechModes *);
PETSC_EXTERN PetscErrorCode MechModesSetDimension(MechModes, PetscInt);
PETSC_EXTERN PetscErrorCode MechModesSetWhich(MechModes, MechModesWhich);
PETSC_EXTERN PetscErrorCode MechModesSetOptionsPrefix(MechModes, const char[]);
PETSC_EXTERN PetscErrorCode MechModesSetUp(MechModes, Vec q);
PETSC_EXTERN PetscErrorCode MechModesCompute(MechModes, PetscReal t, Vec q, Vec v);
PETSC_EXTERN PetscErrorCode MechModesGetSize(MechModes, PetscInt *n, PetscInt *nfree);
PETSC_EXTERN PetscErrorCode MechModesGetFrequency(MechModes, PetscInt i, PetscReal *hz, PetscReal *lambda, PetscBool *rigid);
PETSC_EXTERN PetscErrorCode MechModesGetShape(MechModes, PetscInt i, Vec x);
PETSC_EXTERN PetscErrorCode MechModesGetResidual(MechModes, PetscInt i, PetscReal *residual);
PETSC_EXTERN PetscErrorCode MechModesGetParticipation(MechModes, PetscInt i, PetscReal gamma[3], PetscReal meff[3], PetscReal mass[3]);
PETSC_EXTERN PetscErrorCode MechModesGetInfo(MechModes, PetscReal *t, const char **problem, char solver[], size_t len, PetscReal *target, PetscReal *residual, PetscReal *seconds);
PETSC_EXTERN PetscErrorCode MechModesView(MechModes, PetscViewer);
/* Writes /modes (frequency, eigenvalue, shape, participation, effective_mass, rigid) into the closed
   output file of `out` and a grid of one attribute per mode into its XDMF (src/io/modesio.c) */
PETSC_EXTERN PetscErrorCode MechOutputWriteModes(MechOutput, MechModes);

/* ------------------------------------------------------------------------------------------ */
/* Step-size stability                                                                        */
/* ------------------------------------------------------------------------------------------ */

/* The largest frequency omega = sqrt(lambda_max(M^{-1} K)) of the system linearized at (t, q, v),
   the highest mode by SLEPc (src/mech/modes.c), and the damping rate x^T D x / x^T M x
   of that mode (damping may be NULL). Collective. */
PETSC_EXTERN PetscErrorCode MechSystemEstimateMaxFrequency(MechSystem, PetscReal t, Vec q, Vec v, PetscReal *omega, PetscReal *damping);
/* The growth per step (spectral radius of the one-step matrix) of the scheme of ts (its type and
   parameters) on q'' + c q' + omega^2 q = 0 at step dt, measured by one step of that type. */
PETSC_EXTERN PetscErrorCode TSMechComputeAmplification(TS, PetscReal omega, PetscReal c, PetscReal dt, PetscReal *rho);
/* The largest step at which the scheme of ts keeps the highest mode of the system at (t, q, v)
   from growing: 2/omega for symplectic Euler, c/omega^2 for explicit Euler (0 undamped), the
   stability region's reach for RK types, PETSC_MAX_REAL for A-stable schemes. omega and damping
   (the mode's, may be NULL) as for MechSystemEstimateMaxFrequency(). Collective. */
PETSC_EXTERN PetscErrorCode TSMechEstimateStableStep(TS, MechSystem, PetscReal t, Vec q, Vec v, PetscReal *dtmax, PetscReal *omega, PetscReal *damping);
/* its former name (a MechSystem function belongs to src/mech; this one needs the TS types) */
#define MechSystemEstimateStableStep(sys, ts, t, q, v, dtmax, omega, damping) TSMechEstimateStableStep(ts, sys, t, q, v, dtmax, omega, damping)

#endif
