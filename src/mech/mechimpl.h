/* Private definition of the MechSystem object, shared by src/mech and src/ts. */
#ifndef TSMECH_MECHIMPL_H
#define TSMECH_MECHIMPL_H

#include <tsmech.h>
#include <petsc/private/petscimpl.h>

#define MECH_MAX_INVARIANTS 8
#define MECH_MAX_PARAMS     192 /* the solid: about 30, and 5 per named constraint (at most 16) */
/* per-cell output fields (MechSystemSetCellFields()) and text parameters (MechSystemAddTextParameter()) */
#define MECH_MAX_CELL_FIELDS 8
#define MECH_MAX_TEXT_NAME   127 /* characters of a text parameter's name (the solid's per-constraint records: bc_<63>_vertices) */
#define MECH_MAX_TEXT_LEN    255 /* characters of a text parameter's value (a checkpoint attribute of at most 256 bytes) */

struct _MechSystemOps {
  PetscErrorCode (*unused)(void);
};

struct _p_MechSystem {
  PETSCHEADER(struct _MechSystemOps);
  Mat       M;        /* user mass matrix */
  Mat       Mfix;     /* M with fixed rows and columns decoupled (diagonal kept) */
  Vec       Mdiag;    /* diagonal of Mfix when M is diagonal, else NULL */
  PetscBool massdiag; /* M is diagonal: M solves and M additions are pointwise */
  KSP       massksp;  /* solves with Mfix */

  MechForceFn             force;
  void                   *forcectx;
  MechTangentFn           tangent;
  void                   *tangentctx;
  Mat                     Jpattern;  /* sparsity of K + D + M; may be lent as an operator (MechSystemCreateOperator()) */
  MechTangentPatternFn    patternfn; /* optional: builds the full pattern again, or a reduced one */
  void                   *patternctx;
  MechTangentFn           tangentdef; /* optional semidefinite approximation, for preconditioning */
  void                   *tangentdefctx;
  MechTangentLinearizeFn  linearize; /* optional tangent action (matrix-free operators) */
  MechTangentApplyFn      apply;
  void                   *actionctx;
  MechOperatorLinearizeFn oplinearize; /* optional: the action applies cM M too (operatormass.c) */
  MechPatchFn             patch;       /* optional: force and tangent on a patch of points */
  void                   *patchctx;
  PetscBool               hasdamping;

  /* ---- the linearization held, a model's own multigrid (mgoperator.c) ---- */
  PetscObjectId          linshell;   /* the operator shell whose linearization the model holds (its last) */
  MechTangentDiagonalFn  diagonal;   /* optional: the diagonal blocks of cK K + cD D without assembly */
  PetscInt               diagonalbs; /* their size */
  void                  *diagonalctx;
  MechMultigridSetUpFn   mgsetup; /* optional: the model's coarse levels below its operator */
  MechMultigridUpdateFn  mgupdate;
  MechMultigridDestroyFn mgdestroy;
  void                  *mgctx;
  /* ---- end of the model's own multigrid ---- */

  /* ---- discrete gradient (MechSystemSetDiscreteGradient(), discgrad.c) ---- */
  MechDiscreteGradientFn         discgrad;
  MechDiscreteGradientJacobianFn discgradjac;
  void                          *discgradctx;
  PetscBool                      discgradframe;
  /* ---- end of the discrete gradient ---- */

  /* ---- what the reactions and the energy balance need of the model (reaction.c) and the
     per-step records of the output (records.c); each file composes its data on the system in
     a container, freed with it ---- */
  struct _n_MechBalanceModel *balance;
  struct _n_MechRecords      *records;
  /* ---- end ---- */

  MechStateCheckFn statecheck; /* optional: which states the model can take */
  void            *statecheckctx;

  MechFixedMotionFn motion; /* optional: a prescribed motion of the fixed dofs */
  void             *motionctx;
  Mat               Mcouple;   /* with a motion and a non-diagonal mass: M - Mfix, the inertial coupling */
  Vec               apresc;    /* with a motion: the prescribed acceleration (fixed entries) */
  Vec               Mdiagfix;  /* with a motion: the diagonal of Mfix */
  Vec               qm, vm;    /* with a motion: the state with the fixed dofs where prescribed */
  char             *nonsymwhy; /* the tangent is not symmetric (MechSystemSetTangentNonsymmetric()): why; NULL: symmetric */

  IS        fixed;       /* fixed dofs, global indices owned by this rank */
  Vec       fixedvalues; /* prescribed values (full-size), NULL: keep the initial state */
  PetscBool linear;

  MechPotentialFn potential;
  void           *potentialctx;
  MechExactFn     exact;
  void           *exactctx;
  PetscInt        ninvariants;
  char           *invname[MECH_MAX_INVARIANTS];
  MechInvariantFn invariant[MECH_MAX_INVARIANTS];
  void           *invariantctx[MECH_MAX_INVARIANTS];

  char     *modelname;
  PetscInt  nparams;
  char     *paramname[MECH_MAX_PARAMS];
  PetscReal paramvalue[MECH_MAX_PARAMS];

  /* ---- text parameters (MechSystemAddTextParameter()) ---- */
  PetscInt ntextparams;
  PetscInt textparamcap; /* the arrays grow as parameters are added */
  char   **textparamname;
  char   **textparamvalue;
  /* ---- end of the text parameters ---- */

  /* ---- per-cell output fields (MechSystemSetCellFields()) ---- */
  PetscInt         ncellfields;
  char            *cellfieldname[MECH_MAX_CELL_FIELDS];
  PetscInt         cellfieldncomp[MECH_MAX_CELL_FIELDS];
  MechCellFieldsFn cellfields;
  void            *cellfieldsctx;
  /* per-node fields (MechSystemSetNodeFields()) */
  PetscInt         nnodefields;
  char            *nodefieldname[MECH_MAX_CELL_FIELDS];
  PetscInt         nodefieldncomp[MECH_MAX_CELL_FIELDS];
  MechNodeFieldsFn nodefields;
  void            *nodefieldsctx;
  /* ---- end of the per-cell output fields ---- */

  DM dm;
  /* rank-independent I/O (MechSystemSetIOOrdering(), MechSystemSetIOMesh()) */
  VecScatter ioscatter;  /* state order -> I/O order, NULL: the state's own order */
  Vec        iomesh;     /* reference vertex coordinates (state layout), NULL: no mesh */
  PetscInt   ioncells;   /* local tetrahedra */
  PetscInt  *iocells;    /* 1 + ionper per cell: its number, its nodes' numbers (I/O order) */
  PetscInt   ionper;     /* nodes per cell of the I/O mesh (MechSystemSetIOMeshCells()) */
  char       iotopo[32]; /* their XDMF topology: Tetrahedron, Tetrahedron_10, Hexahedron, Hexahedron_27 */
  Vec        q0, v0;
  Vec        work;
  Vec        scalework[3]; /* MechSystemComputeResidualScale() */

  void *appctx;
  PetscErrorCode (*appdestroy)(void *);

  /* ---- static equilibrium (statics.c) ---- */
  PetscBool  atrest;        /* evaluations at rest: a prescribed motion gives the fixed dofs their positions only, no velocity or acceleration (static2, the equilibrium report) */
  Vec        rest;          /* a zero velocity (MechSystemComputeStaticForce()) */
  PetscBool  lineardamping; /* the damping force is D v, D constant and symmetric (MechSystemSetDampingLinear()) */
  Vec        fixedmass;     /* diag(Mfix) on the fixed dofs, zero elsewhere (MechSystemAddFixedMass_Private()); NULL: not built */
  PetscInt   nkinks, maxkinks;
  PetscReal *kinks; /* sorted: times where a time function of the loads or motions has a kink (MechSystemAddKinks()) */
  /* ---- end of static equilibrium ---- */

  PetscBool setupcalled;
  /* test hook (-mech_test_force_error rank,time): the force fails on that rank from that time on */
  PetscMPIInt testerrrank;
  PetscReal   testerrtime;
  MPI_Comm    agreecomm;    /* MechSystemAgree()'s own communicator */
  PetscReal   agreetimeout; /* how long a failing rank waits for the others (-mech_agree_timeout) */
};

/* data of another file composed on the system in a container, freed with it by destroy */
PETSC_INTERN PetscErrorCode MechSystemComposeData_Private(MechSystem, const char name[], void *data, PetscErrorCode (*destroy)(void *));
/* the model's discrete gradient, fixed rows not zeroed (the reactions of discgrad2; reaction.c) */
PETSC_INTERN PetscErrorCode MechSystemComputeDiscreteGradientRaw_Private(MechSystem, PetscReal, Vec, Vec, Vec, Vec, PetscBool *);
/* a model callback's error made collective: every rank raises the failing rank's error and message
   (erroragree.c) */
PETSC_INTERN PetscErrorCode MechSystemAgree(MechSystem, PetscErrorCode, const char[]);

/* -log_view events: force evaluations, operator assemblies, mass solves, linearizations and
   applications of the matrix-free operator */
PETSC_INTERN PetscLogEvent MECH_Force, MECH_Operator, MECH_MassSolve, MECH_Linearize, MECH_Apply, MECH_Galerkin, MECH_Patch;
/* -log_view stages: operator assembly and linearization; HDF5 output and checkpoints */
PETSC_INTERN PetscLogStage MECH_StageAssembly, MECH_StageIO;

PETSC_INTERN PetscErrorCode MechSystemSetUp(MechSystem);
/* The matrix of MechSystemSetTangent(), built again if it was released (not a new reference) */
PETSC_INTERN PetscErrorCode MechSystemGetPattern(MechSystem, Mat *);
/* the multigrid operator (mgoperator.c): whether a matrix is one, its "assembly" at a state, and
   the PCMG of a model with coarse levels of its own (MechSystemSetUpPCMG()) */
PETSC_INTERN PetscErrorCode MechOperatorIsMultigrid_Private(Mat, PetscBool *);
PETSC_INTERN PetscErrorCode MechOperatorMultigridCompute_Private(MechSystem, PetscReal, Vec, Vec, PetscReal, PetscReal, PetscReal, Mat);
PETSC_INTERN PetscErrorCode MechSystemSetUpPCMGModel_Private(MechSystem, PC);
/* the next assembly of a multigrid operator renews its finest level only (a lagged rebuild, newton2.c) */
PETSC_INTERN PetscErrorCode MechOperatorMultigridKeepCoarse_Private(Mat, PetscBool);
/* the operator shell whose products the multigrid operator's are (the Newton operator of the matrix-free mode) */
PETSC_INTERN PetscErrorCode MechOperatorMultigridGetShell_Private(Mat, Mat *);
/* J += cM M with the decoupled mass (MechSystemComputeOperator() and the discrete gradient's) */
PETSC_INTERN PetscErrorCode MechSystemAddMass_Private(MechSystem, PetscReal, Mat);
/* Mfix (PETSC_FALSE) or Mcouple (PETSC_TRUE) as shells over a mass given as a shell (massfixed.c) */
PETSC_INTERN PetscErrorCode MechMassCreateFixedShell_Private(MechSystem, PetscBool, Mat *);
/* fixed.c: the state at which a system with a prescribed motion is evaluated: the fixed dofs at
   their prescribed position and velocity at t (work copies), or q and v themselves; a (may be
   NULL) gets the prescribed acceleration in its fixed entries */
PETSC_INTERN PetscErrorCode MechSystemMotionState(MechSystem, PetscReal, Vec, Vec, Vec *, Vec *, Vec);
/* fixed.c: diag(Mfix) on the fixed dofs (zero elsewhere), and a copy of the fixed entries */
PETSC_INTERN PetscErrorCode MechSystemGetFixedMass_Private(MechSystem, Vec *);
PETSC_INTERN PetscErrorCode MechSystemCopyFixed_Private(MechSystem, Vec src, Vec dst);
/* static equilibrium (statics.c): evaluations at rest, J += c diag(M) on the fixed rows only (a
   stage without inertia), and the same for an operator shell's products */
PETSC_INTERN PetscErrorCode MechSystemSetAtRest_Private(MechSystem, PetscBool);
PETSC_INTERN PetscErrorCode MechSystemAddFixedMass_Private(MechSystem, PetscReal, Mat);
PETSC_INTERN PetscErrorCode MechSystemSetOperatorShellFixedMass_Private(Mat, PetscReal);

/* operatormass.c: the mass inside the model's action (MechSystemSetOperatorLinearize()) */
PETSC_INTERN PetscErrorCode MechOperatorLinearize_Private(MechSystem, PetscReal, Vec, Vec, PetscReal, PetscReal, PetscReal, PetscBool *);
PETSC_INTERN PetscErrorCode MechOperatorFixedMass_Private(MechSystem, PetscReal, Vec *, Vec, Vec);

#endif
