/*
  The scheme a TS integrates with: its type, its step-size controller and the parameters of its
  family, captured from a TS, given to another, listed by name for the files that record them
  (output attributes, checkpoint headers) and compared. This is the one place that knows which
  TS types form a family and which parameters each family has; adding a parameter to a family
  touches its entry here and nothing in src/io.
*/
#ifndef TSMECH_SCHEME_H
#define TSMECH_SCHEME_H

#include <tsmech.h>

/* The families whose parameters are recorded (the values are stored in checkpoints: keep them) */
typedef enum {
  TSMECH_FAMILY_OTHER  = 0, /* no recorded parameters */
  TSMECH_FAMILY_THETA2 = 1, /* theta2, beuler2, cn2, midpoint2, euler2 */
  TSMECH_FAMILY_THETA  = 2, /* PETSc's theta, beuler, cn (first-order form) */
  TSMECH_FAMILY_ALPHA2 = 3, /* PETSc's alpha2 */
  TSMECH_FAMILY_GAUSS2 = 4  /* gauss2 */
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
  What a family implements, once, next to its type: declare its parameters (names and kinds, in
  file order) with TSMechSchemeAddParameter(), read them from a TS, give them to a TS, and check
  values read from a file (problem "" if they hold). Adding a parameter to a family touches these
  functions only.
*/
typedef struct {
  const char *const *types; /* NULL-terminated */
  PetscErrorCode (*declare)(TSMechScheme *);
  PetscErrorCode (*get)(TS, TSMechScheme *);
  PetscErrorCode (*set)(TS, const TSMechScheme *);
  PetscErrorCode (*check)(const TSMechScheme *, char problem[], size_t len);
} TSMechFamilyOps;

/* The theta2 family's (theta2.c) */
PETSC_INTERN const TSMechFamilyOps TSMechFamilyTheta2;
/* The gauss2 family's (gauss2.c) */
PETSC_INTERN const TSMechFamilyOps TSMechFamilyGauss2;
/* The last family (the loops over families end here) */
#define TSMECH_FAMILY_LAST TSMECH_FAMILY_GAUSS2

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
PETSC_INTERN PetscErrorCode TSMechSchemeDiff(const TSMechScheme *a, const TSMechScheme *b, char msg[], size_t len);
PETSC_INTERN PetscErrorCode TSMechSchemeRestartsExactly(TS, PetscBool fixedstep, PetscBool *);
PETSC_INTERN PetscBool      TSMechSchemeIsParameterName(const char name[]);

#endif
