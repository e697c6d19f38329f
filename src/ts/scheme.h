/*
  The scheme a TS integrates with: its type, its step-size controller and the parameters of its
  family, captured from a TS, given to another, listed by name for the files that record them
  (output attributes, checkpoint headers) and compared, and the properties and history of a TS
  type. Each family of types describes itself in a TSMechFamilyOps table next to its code and
  registers it; src/io and the rest of src/ts ask through the functions below.
*/
#ifndef TSMECH_SCHEME_H
#define TSMECH_SCHEME_H

#include <tsmech.h>

/* The numbers of the families whose parameters are recorded (stored in checkpoints and outputs:
   keep them; a new family takes the next free number, in its own file) */
typedef enum {
  TSMECH_FAMILY_OTHER  = 0, /* no recorded parameters */
  TSMECH_FAMILY_THETA2 = 1, /* theta2, beuler2, cn2, midpoint2, euler2 (theta2.c) */
  TSMECH_FAMILY_THETA  = 2, /* PETSc's theta, beuler, cn (first-order form) */
  TSMECH_FAMILY_ALPHA2 = 3  /* PETSc's alpha2 */
  /* 4 and 5 are reserved for gauss2 and discgrad2 (issue 31), defined in their own files */
} TSMechFamily;

#define TSMECH_SCHEME_NAMELEN  64
#define TSMECH_SCHEME_MAXPARAM 16

/* The kinds of a scheme parameter, as files store them */
typedef enum {
  TSMECH_PARAM_REAL, /* PetscReal */
  TSMECH_PARAM_FLAG, /* PetscInt, 0 or 1 */
  TSMECH_PARAM_NAME  /* char[TSMECH_SCHEME_NAMELEN] */
} TSMechParamKind;

typedef struct {
  const char     *name; /* a literal of the family's code */
  TSMechParamKind kind;
  PetscReal       real;                        /* TSMECH_PARAM_REAL */
  PetscInt        flag;                        /* TSMECH_PARAM_FLAG (an integer: a damaged file may hold any) */
  char            text[TSMECH_SCHEME_NAMELEN]; /* TSMECH_PARAM_NAME */
} TSMechParam;

typedef struct {
  char        type[TSMECH_SCHEME_NAMELEN], adapt[TSMECH_SCHEME_NAMELEN];
  PetscInt    family; /* a TSMechFamily (an integer: a damaged file may hold any value) */
  PetscInt    n;      /* the family's parameters, in the order files store them */
  TSMechParam p[TSMECH_SCHEME_MAXPARAM];
} TSMechScheme;

/*
  What a family of TS types implements, once, next to its types (theta2.c, symeuler2.c), and
  registers with TSMechSchemeRegister() from its TSMechRegister<X>() (tsimpl2.h, called by
  TSMechInitializePackage()): nothing else of tsmech knows the types.

  - family: the number files record (ts_family; 0: the family records no parameters). A new
    family takes the next free number; TSMechSchemeRegister() refuses a number or type taken.
  - history: its types keep the start of the last step (position, velocity, time), which a
    checkpoint holds (v_previous, q_previous, previous_time) and gives back.
  - declare, get, set, check: its recorded parameters (names and kinds, in file order, with
    TSMechSchemeAddParameter()), read from a TS, given to a TS, checked when read from a file
    (problem "" if they hold); NULL when family is 0. Adding a parameter touches these only.
  - properties: what TSMechGetProperties() reports of a TS of the family (called with the
    defaults of an implicit first-order-form type that restarts as at a first step).
  - savehistory, loadhistory (with history): the velocity at the start of the last step, and
    whether there is one; the position is the TS's solution and the time ptime - time_step when
    loadhistory is called (the checkpoint sets them for the call).
  - descriptions: one line per type, in the order of types, NULL-terminated (TSMechGetTypeNames(): the driver's
    -help, the Python package's TS_TYPES).
  - valued: its options that take a value, with their "-", NULL-terminated (NULL: none): the
    driver refuses them given without one (TSMechGetValuedOptions()), since PETSc then keeps the
    default silently.
  - stepeval: the force evaluations the last step combined (TSMechStepEval above), NULL if not known.
*/
/*
  The force evaluations a step combined, for its reactions and energy balance (src/ts/balance.c): on
  the free rows a converged step satisfies M (v1 - v0) = -tau f with f = sum_i w_i f(t_i, q_i, v_i)
  (or, discgrad, f = the discrete gradient between q0 and q[0] at v[0], t[0]). The caller sets the
  step (t0, tau, q0, v0, q1, v1) and gives the work vectors q[], v[]; the type's stepeval fills the
  rest from what its solve used (tsmech's types recompute their stages from the converged unknowns,
  bitwise as the solve had them; PETSc's from the step's ends). finitedifference: the prescribed
  motion's inertia on the free rows was M_fc (v1 - v0)_c / tau (else the prescribed acceleration at
  the t_i); exact: the balance holds to the solver's residual (else the evaluation is an estimate);
  quasistatic: the step is an equilibrium f = 0 without inertia (static2): the reaction is f_c alone
  and there is no kinetic energy.
*/
#define TSMECH_STEP_MAXEVAL 3
typedef struct {
  PetscReal t0, tau;
  Vec       q0, v0, q1, v1;
  PetscInt  n;
  PetscReal t[TSMECH_STEP_MAXEVAL], w[TSMECH_STEP_MAXEVAL];
  Vec       q[TSMECH_STEP_MAXEVAL], v[TSMECH_STEP_MAXEVAL];
  PetscBool discgrad, finitedifference, exact, quasistatic;
} TSMechStepEval;

typedef struct {
  PetscInt           family;
  const char *const *types; /* NULL-terminated */
  PetscBool          history;
  PetscErrorCode (*declare)(TSMechScheme *);
  PetscErrorCode (*get)(TS, TSMechScheme *);
  PetscErrorCode (*set)(TS, const TSMechScheme *);
  PetscErrorCode (*check)(const TSMechScheme *, char problem[], size_t len);
  PetscErrorCode (*properties)(TS, TSMechProperties *);
  PetscErrorCode (*savehistory)(TS, Vec vprev, PetscBool *has);
  PetscErrorCode (*loadhistory)(TS, Vec vprev);
  const char *const *descriptions;                  /* NULL-terminated, as many as types */
  const char *const *valued;                        /* NULL-terminated, or NULL */
  PetscErrorCode (*stepeval)(TS, TSMechStepEval *); /* NULL: the end of the step stands in (not exact) */
} TSMechFamilyOps;

PETSC_INTERN PetscErrorCode TSMechSchemeRegister(const TSMechFamilyOps *);
PETSC_INTERN PetscErrorCode TSMechSchemeRegistryReset(void);
PETSC_INTERN PetscErrorCode TSMechSaveHistory(TS, Vec vprev, PetscBool *has);
PETSC_INTERN PetscErrorCode TSMechLoadHistory(TS, Vec vprev);
PETSC_INTERN PetscErrorCode TSMechSchemeFamilyKeepsHistory(PetscInt family, PetscBool *);

/* Called once per parameter of a scheme's family, in a fixed order, with the address of its value */
typedef PetscErrorCode (*TSMechSchemeParamFn)(void *ctx, const char name[], TSMechParamKind, void *value);

PETSC_INTERN PetscErrorCode TSMechSchemeAddParameter(TSMechScheme *, const char name[], TSMechParamKind);
PETSC_INTERN PetscErrorCode TSMechSchemeFindParameter(const TSMechScheme *, const char name[], TSMechParam **);
PETSC_INTERN PetscErrorCode TSMechSchemeFamilyOfType(const char type[], PetscInt *family);
PETSC_INTERN PetscErrorCode TSMechSchemeGet(TS, TSMechScheme *);
PETSC_INTERN PetscErrorCode TSMechSchemeSet(TS, const TSMechScheme *);
PETSC_INTERN PetscErrorCode TSMechSchemeCopy(TS from, TS to);
PETSC_INTERN PetscErrorCode TSMechSchemeForEachParameter(TSMechScheme *, TSMechSchemeParamFn, void *ctx);
PETSC_INTERN PetscErrorCode TSMechSchemeCheck(const TSMechScheme *, char problem[], size_t len);
/* the registry's part of TSMechRegister(), TSMechGetTypeNames() and TSMechGetValuedOptions(), whose
   public functions (register.c) register tsmech's families first */
PETSC_INTERN PetscErrorCode TSMechSchemeRegisterType(const char[], const char[], PetscErrorCode (*)(TS), PetscErrorCode (*)(TS, TSMechProperties *), const char *const[]);
PETSC_INTERN PetscErrorCode TSMechSchemeGetTypeNames(PetscInt *, const char *const **, const char *const **);
PETSC_INTERN PetscErrorCode TSMechSchemeGetValuedOptions(PetscInt *, const char *const **);
PETSC_INTERN PetscErrorCode TSMechSchemeDiff(const TSMechScheme *a, const TSMechScheme *b, char msg[], size_t len);
PETSC_INTERN PetscErrorCode TSMechSchemeRestartsExactly(TS, PetscBool fixedstep, PetscBool *);
PETSC_INTERN PetscBool      TSMechSchemeIsParameterName(const char name[]);
/* The evaluations of the last step (the family's stepeval, else the step's end; stepeval.c has PETSc's) */
PETSC_INTERN PetscErrorCode TSMechSchemeStepEval(TS, TSMechStepEval *);
PETSC_INTERN PetscErrorCode TSMechStepEvalTheta(TS, TSMechStepEval *);
PETSC_INTERN PetscErrorCode TSMechStepEvalAlpha2(TS, TSMechStepEval *);
PETSC_INTERN PetscErrorCode TSMechStepEvalExplicit(TS, TSMechStepEval *);
PETSC_INTERN PetscErrorCode TSMechStepEvalAt(TSMechStepEval *, PetscInt i, PetscReal t, PetscReal w, Vec q, Vec v);
PETSC_INTERN PetscErrorCode TSMechStepEvalBetween(TSMechStepEval *, PetscInt i, PetscReal c, PetscReal t, PetscReal w);

#endif
