/*
  The scheme of a TS: type, step-size controller and family parameters (scheme.h), and the
  properties and history of its type. Each family has one table (TSMechFamilyOps) that gets, sets
  and lists its parameters and reports its properties and history, the way a PETSc type
  implements view and load: PETSc's families below, tsmech's next to their types, registered by
  TSMechInitializePackage(). The HDF5 output, the checkpoint, the driver and the stability
  analysis go through these functions and never test type names themselves.
*/
#include "scheme.h"
#include <petsc/private/tsimpl.h>
#include <stdio.h>
#include <string.h>

/* The PETSc types tsmech knows something of: the families with recorded parameters and the
   explicit types (tsmech's own types describe themselves in their files) */
static const char *const ThetaTypes[]    = {TSTHETA, TSBEULER, TSCN, NULL};
static const char *const Alpha2Types[]   = {TSALPHA2, NULL};
static const char *const ExplicitTypes[] = {TSEULER, TSRK, TSSSP, TSMPRK, TSGLEE, NULL};

static PetscErrorCode InList(const char type[], const char *const list[], PetscBool *flg)
{
  PetscInt i;

  PetscFunctionBegin;
  *flg = PETSC_FALSE;
  for (i = 0; list[i] && !*flg; i++) PetscCall(PetscStrcmp(type, list[i], flg));
  PetscFunctionReturn(0);
}

/* Declares a parameter of the scheme's family (its value zero), in file order */
PetscErrorCode TSMechSchemeAddParameter(TSMechScheme *s, const char name[], TSMechParamKind kind)
{
  PetscFunctionBegin;
  PetscCheck(s->n < TSMECH_SCHEME_MAXPARAM, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A scheme has more than %d parameters", TSMECH_SCHEME_MAXPARAM);
  PetscCall(PetscMemzero(&s->p[s->n], sizeof(s->p[s->n])));
  s->p[s->n].name = name;
  s->p[s->n].kind = kind;
  s->n++;
  PetscFunctionReturn(0);
}

/* The parameter of that name (an error if the family has none) */
PetscErrorCode TSMechSchemeFindParameter(const TSMechScheme *s, const char name[], TSMechParam **p)
{
  PetscInt i;

  PetscFunctionBegin;
  *p = NULL;
  for (i = 0; i < s->n && !*p; i++)
    if (!strcmp(s->p[i].name, name)) *p = (TSMechParam *)&s->p[i];
  PetscCheck(*p, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The scheme of %s has no parameter %s", s->type, name);
  PetscFunctionReturn(0);
}

/* PETSc's theta family (first-order form): theta in (0, 1] and the form */
static PetscErrorCode ThetaDeclare(TSMechScheme *s)
{
  PetscFunctionBegin;
  PetscCall(TSMechSchemeAddParameter(s, "theta", TSMECH_PARAM_REAL));
  PetscCall(TSMechSchemeAddParameter(s, "endpoint", TSMECH_PARAM_FLAG));
  PetscFunctionReturn(0);
}

static PetscErrorCode ThetaGet(TS ts, TSMechScheme *s)
{
  PetscBool endpoint;

  PetscFunctionBegin;
  PetscCall(ThetaDeclare(s));
  PetscCall(TSThetaGetTheta(ts, &s->p[0].real));
  PetscCall(TSThetaGetEndpoint(ts, &endpoint));
  s->p[1].flag = endpoint;
  PetscFunctionReturn(0);
}

static PetscErrorCode ThetaSet(TS ts, const TSMechScheme *s)
{
  PetscBool flg;

  PetscFunctionBegin;
  /* beuler and cn accept their own theta and form only */
  PetscCall(PetscStrcmp(s->type, TSTHETA, &flg));
  if (flg) {
    PetscCall(TSThetaSetTheta(ts, s->p[0].real));
    PetscCall(TSThetaSetEndpoint(ts, s->p[1].flag ? PETSC_TRUE : PETSC_FALSE));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ThetaCheck(const TSMechScheme *s, char problem[], size_t len)
{
  PetscReal theta = s->p[0].real;

  PetscFunctionBegin;
  if (PetscIsInfOrNanReal(theta) || !(theta > 0 && theta <= 1)) (void)snprintf(problem, len, "its theta %g is outside (0, 1]", (double)theta);
  PetscFunctionReturn(0);
}

/* PETSc's theta types on [q; v]: one-step, nothing kept between steps of a fixed size */
static PetscErrorCode ThetaProperties(TS ts, TSMechProperties *p)
{
  PetscReal theta;

  PetscFunctionBegin;
  PetscCall(TSThetaGetTheta(ts, &theta));
  p->order   = theta == 0.5 ? 2 : 1;
  p->restart = TSMECH_RESTART_FIXED_STEP;
  PetscFunctionReturn(0);
}

/* PETSc's generalized-alpha for second-order systems: its four parameters */
static const char *const Alpha2Names[] = {"alpha_m", "alpha_f", "gamma", "beta"};

static PetscErrorCode Alpha2Declare(TSMechScheme *s)
{
  PetscInt i;

  PetscFunctionBegin;
  for (i = 0; i < 4; i++) PetscCall(TSMechSchemeAddParameter(s, Alpha2Names[i], TSMECH_PARAM_REAL));
  PetscFunctionReturn(0);
}

static PetscErrorCode Alpha2Get(TS ts, TSMechScheme *s)
{
  PetscFunctionBegin;
  PetscCall(Alpha2Declare(s));
  PetscCall(TSAlpha2GetParams(ts, &s->p[0].real, &s->p[1].real, &s->p[2].real, &s->p[3].real));
  PetscFunctionReturn(0);
}

static PetscErrorCode Alpha2Set(TS ts, const TSMechScheme *s)
{
  PetscFunctionBegin;
  PetscCall(TSAlpha2SetParams(ts, s->p[0].real, s->p[1].real, s->p[2].real, s->p[3].real));
  PetscFunctionReturn(0);
}

static PetscErrorCode Alpha2Check(const TSMechScheme *s, char problem[], size_t len)
{
  PetscInt i;

  PetscFunctionBegin;
  for (i = 0; i < 4; i++)
    if (PetscIsInfOrNanReal(s->p[i].real)) (void)snprintf(problem, len, "its alpha2 parameters are not finite numbers");
  PetscFunctionReturn(0);
}

/* TSALPHA2: second order; its acceleration is history a checkpoint does not hold */
static PetscErrorCode Alpha2Properties(TS ts, TSMechProperties *p)
{
  PetscFunctionBegin;
  (void)ts;
  p->order       = 2;
  p->secondorder = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* PETSc's explicit types on [q; v]; explicit Euler keeps nothing between steps, RK's FSAL does */
static PetscErrorCode ExplicitProperties(TS ts, TSMechProperties *p)
{
  PetscBool flg;

  PetscFunctionBegin;
  p->explicit_ = PETSC_TRUE;
  PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSEULER, &flg));
  if (flg) {
    p->order   = 1;
    p->restart = TSMECH_RESTART_FIXED_STEP;
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSRK, &flg));
  if (flg) PetscCall(TSRKGetOrder(ts, &p->order));
  PetscFunctionReturn(0);
}

/* The options of PETSc's types that take a value (their descriptions: PETSc's manual pages) */
static const char *const ThetaValued[]    = {"-ts_theta_theta", NULL};
static const char *const Alpha2Valued[]   = {"-ts_alpha_radius", "-ts_alpha_alpha_m", "-ts_alpha_alpha_f", "-ts_alpha_gamma", "-ts_alpha_beta", NULL};
static const char *const ExplicitValued[] = {"-ts_rk_type", "-ts_ssp_type", "-ts_ssp_nstages", NULL};

static const TSMechFamilyOps FamilyTheta    = {TSMECH_FAMILY_THETA, ThetaTypes, PETSC_FALSE, ThetaDeclare, ThetaGet, ThetaSet, ThetaCheck, ThetaProperties, NULL, NULL, NULL, ThetaValued, TSMechStepEvalTheta};
static const TSMechFamilyOps FamilyAlpha2   = {TSMECH_FAMILY_ALPHA2, Alpha2Types, PETSC_FALSE, Alpha2Declare, Alpha2Get, Alpha2Set, Alpha2Check, Alpha2Properties, NULL, NULL, NULL, Alpha2Valued, TSMechStepEvalAlpha2};
static const TSMechFamilyOps FamilyExplicit = {TSMECH_FAMILY_OTHER, ExplicitTypes, PETSC_FALSE, NULL, NULL, NULL, NULL, ExplicitProperties, NULL, NULL, NULL, ExplicitValued, TSMechStepEvalExplicit};

/*
  The registry of families: PETSc's, then those TSMechInitializePackage() registers (each tsmech
  family's table lives in its type's file). Emptied by TSMechFinalizePackage(), as PETSc's own
  registrations are, so that a new PetscInitialize() registers them again.
*/
#define TSMECH_MAX_FAMILIES   16
#define TSMECH_PETSC_FAMILIES 3
static const TSMechFamilyOps *Families[TSMECH_MAX_FAMILIES] = {&FamilyTheta, &FamilyAlpha2, &FamilyExplicit};
static PetscInt               NumFamilies                   = TSMECH_PETSC_FAMILIES;

/* The room of the lists the accessors give (TSMechGetTypeNames(), TSMechGetValuedOptions()) */
#define TSMECH_MAX_TYPES  64
#define TSMECH_MAX_VALUED 256
static const char *TypeNames[TSMECH_MAX_TYPES + 1], *TypeDescriptions[TSMECH_MAX_TYPES + 1];
static const char *ValuedNames[TSMECH_MAX_VALUED + 1];

/* The number of names before the NULL (0 for no list) */
static PetscInt ListLength(const char *const list[])
{
  PetscInt n = 0;

  while (list && list[n]) n++;
  return n;
}

/*
  The descriptions and the valued options of a family of the types types, as the accessors give
  them: one non-empty line per type, names that begin with "-" and hold no blank, room left in the
  lists (code: the error to raise, PETSC_ERR_PLIB for tsmech's own tables)
*/
static PetscErrorCode FamilyListsCheck(const char *const types[], const char *const descriptions[], const char *const valued[], PetscErrorCode code)
{
  PetscInt ntypes = 0, nvalued = 0;

  PetscFunctionBegin;
  PetscCheck(descriptions && ListLength(descriptions) == ListLength(types), PETSC_COMM_SELF, code, "The TS types of %s need one description each", types[0]);
  for (PetscInt i = 0; types[i]; i++) {
    PetscCheck(descriptions[i] && descriptions[i][0] && !strchr(descriptions[i], '\n'), PETSC_COMM_SELF, code, "The description of the TS type %s must be one non-empty line", types[i]);
  }
  for (PetscInt i = 0; valued && valued[i]; i++) {
    PetscCheck(valued[i][0] == '-' && valued[i][1] && !strpbrk(valued[i], " \t\n"), PETSC_COMM_SELF, code, "The option \"%s\" of the TS type %s that takes a value: an option name begins with \"-\" and holds no blank", valued[i], types[0]);
  }
  for (PetscInt f = TSMECH_PETSC_FAMILIES; f < NumFamilies; f++) ntypes += ListLength(Families[f]->types);
  for (PetscInt f = 0; f < NumFamilies; f++) nvalued += ListLength(Families[f]->valued);
  PetscCheck(ntypes + ListLength(types) <= TSMECH_MAX_TYPES, PETSC_COMM_SELF, code, "More than %d TS types of tsmech registered", TSMECH_MAX_TYPES);
  PetscCheck(nvalued + ListLength(valued) <= TSMECH_MAX_VALUED, PETSC_COMM_SELF, code, "More than %d options of the TS types that take a value registered", TSMECH_MAX_VALUED);
  PetscFunctionReturn(0);
}

/*
  TSMechSchemeRegister - Adds a family of TS types (its table, TSMechFamilyOps): its recorded
  parameters, its properties, its history, the descriptions of its types and its options that take
  a value. A table registered already is skipped; a family number or a type name that another
  table has is refused.
*/
PetscErrorCode TSMechSchemeRegister(const TSMechFamilyOps *ops)
{
  PetscFunctionBegin;
  for (PetscInt f = 0; f < NumFamilies; f++)
    if (Families[f] == ops) PetscFunctionReturn(0);
  PetscCheck(NumFamilies < TSMECH_MAX_FAMILIES, PETSC_COMM_SELF, PETSC_ERR_PLIB, "More than %d families of TS types registered", TSMECH_MAX_FAMILIES);
  PetscCheck(ops->family == TSMECH_FAMILY_OTHER || (ops->declare && ops->get && ops->set && ops->check), PETSC_COMM_SELF, PETSC_ERR_PLIB, "The family %" PetscInt_FMT " of %s records parameters but lacks the operations for them", ops->family, ops->types[0]);
  PetscCheck(!ops->history || (ops->savehistory && ops->loadhistory && ops->family != TSMECH_FAMILY_OTHER), PETSC_COMM_SELF, PETSC_ERR_PLIB, "The family of %s keeps history but lacks savehistory, loadhistory or a family number (checkpoints record the family)", ops->types[0]);
  PetscCall(FamilyListsCheck(ops->types, ops->descriptions, ops->valued, PETSC_ERR_PLIB));
  for (PetscInt f = 0; f < NumFamilies; f++) {
    PetscCheck(ops->family == TSMECH_FAMILY_OTHER || Families[f]->family != ops->family, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The family number %" PetscInt_FMT " of %s is that of %s already: take a free one", ops->family, ops->types[0], Families[f]->types[0]);
    for (PetscInt i = 0; ops->types[i]; i++) {
      PetscBool taken;

      PetscCall(InList(ops->types[i], Families[f]->types, &taken));
      PetscCheck(!taken, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The TS type %s is in two families", ops->types[i]);
    }
  }
  Families[NumFamilies++] = ops;
  PetscFunctionReturn(0);
}

/* A family of one type of a user's (TSMechRegister()): its table, its lists (copies), its properties */
typedef struct {
  TSMechFamilyOps ops;
  const char     *types[2], *descriptions[2];
  char            name[TSMECH_SCHEME_NAMELEN];
  char           *description;
  char          **valued;
  PetscErrorCode (*properties)(TS, TSMechProperties *);
} UserFamily;

static UserFamily *UserFamilies[TSMECH_MAX_FAMILIES];
static PetscInt    NumUserFamilies = 0;

/* The user's properties of the TS's type (its family is the one that lists the type) */
static PetscErrorCode UserProperties(TS ts, TSMechProperties *p)
{
  TSType type;

  PetscFunctionBegin;
  PetscCall(TSGetType(ts, &type));
  for (PetscInt f = 0; f < NumUserFamilies; f++) {
    PetscBool flg;

    PetscCall(PetscStrcmp(type, UserFamilies[f]->name, &flg));
    if (flg) PetscCall((*UserFamilies[f]->properties)(ts, p));
  }
  /* a checkpoint holds no history of its: exact only where there is none */
  if (p->restart == TSMECH_RESTART_EXACT) p->restart = TSMECH_RESTART_FIXED_STEP;
  PetscFunctionReturn(0);
}

/* Frees a user's family with the copies of its description and list */
static PetscErrorCode UserFamilyDestroy(UserFamily **u)
{
  PetscFunctionBegin;
  if (!*u) PetscFunctionReturn(0);
  PetscCall(PetscFree((*u)->description));
  PetscCall(PetscStrArrayDestroy(&(*u)->valued));
  PetscCall(PetscFree(*u));
  PetscFunctionReturn(0);
}

static PetscErrorCode TypeOps(const char[], const TSMechFamilyOps **);

/* TSMechSchemeRegisterType - the registration of TSMechRegister() (register.c), tsmech's families already registered */
PetscErrorCode TSMechSchemeRegisterType(const char name[], const char description[], PetscErrorCode (*create)(TS), PetscErrorCode (*properties)(TS, TSMechProperties *), const char *const valued[])
{
  UserFamily            *u;
  const TSMechFamilyOps *taken;
  const char            *types[2] = {name, NULL}, *descriptions[2] = {description, NULL};
  PetscErrorCode (*fn)(void) = NULL;

  PetscFunctionBegin;
  PetscValidCharPointer(name, 1);
  PetscCheck(NumFamilies < TSMECH_MAX_FAMILIES, PETSC_COMM_SELF, PETSC_ERR_SUP, "TSMechRegister(): at most %d types of one's own", TSMECH_MAX_FAMILIES - (int)(NumFamilies - NumUserFamilies));
  PetscCheck(name[0] && strlen(name) < TSMECH_SCHEME_NAMELEN, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "TSMechRegister(): the name \"%s\" must have 1 to %d characters", name, TSMECH_SCHEME_NAMELEN - 1);
  /* a name of tsmech's or of PETSc's is refused before anything is registered */
  PetscCall(TypeOps(name, &taken));
  PetscCall(PetscFunctionListFind(TSList, name, &fn));
  PetscCheck(!taken && !fn, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "TSMechRegister(): the TS type %s is registered already", name);
  PetscCheck(description && description[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "TSMechRegister(): the TS type %s needs a one-line description", name);
  /* what the accessors would refuse, before anything is registered */
  PetscCall(FamilyListsCheck(types, descriptions, valued, PETSC_ERR_ARG_WRONG));
  PetscCall(PetscNew(&u));
  PetscCall(PetscStrncpy(u->name, name, sizeof(u->name)));
  PetscCall(PetscStrallocpy(description, &u->description));
  PetscCall(PetscStrArrayallocpy(valued ? valued : types + 1, &u->valued));
  u->types[0]                     = u->name;
  u->descriptions[0]              = u->description;
  u->properties                   = properties;
  u->ops.family                   = TSMECH_FAMILY_OTHER;
  u->ops.types                    = u->types;
  u->ops.descriptions             = u->descriptions;
  u->ops.valued                   = (const char *const *)u->valued;
  u->ops.properties               = properties ? UserProperties : NULL;
  UserFamilies[NumUserFamilies++] = u;
  PetscCall(TSMechSchemeRegister(&u->ops));
  PetscCall(TSRegister(name, create));
  PetscFunctionReturn(0);
}

/* TSMechSchemeGetTypeNames - the lists of TSMechGetTypeNames() (register.c) */
PetscErrorCode TSMechSchemeGetTypeNames(PetscInt *n, const char *const **names, const char *const **descriptions)
{
  PetscInt k = 0;

  PetscFunctionBegin;
  PetscValidIntPointer(n, 1);
  for (PetscInt f = TSMECH_PETSC_FAMILIES; f < NumFamilies; f++)
    for (PetscInt i = 0; Families[f]->types[i]; i++) {
      TypeNames[k]          = Families[f]->types[i];
      TypeDescriptions[k++] = Families[f]->descriptions[i];
    }
  TypeNames[k] = TypeDescriptions[k] = NULL;
  *n                                 = k;
  if (names) *names = TypeNames;
  if (descriptions) *descriptions = TypeDescriptions;
  PetscFunctionReturn(0);
}

/* TSMechSchemeGetValuedOptions - the list of TSMechGetValuedOptions() (register.c) */
PetscErrorCode TSMechSchemeGetValuedOptions(PetscInt *n, const char *const **names)
{
  PetscInt k = 0;

  PetscFunctionBegin;
  PetscValidIntPointer(n, 1);
  PetscValidPointer(names, 2);
  for (PetscInt f = 0; f < NumFamilies; f++)
    for (PetscInt i = 0; Families[f]->valued && Families[f]->valued[i]; i++) {
      PetscBool dup = PETSC_FALSE;

      /* -ts_theta_theta is PETSc's theta's and theta2's */
      for (PetscInt j = 0; j < k && !dup; j++) dup = strcmp(ValuedNames[j], Families[f]->valued[i]) ? PETSC_FALSE : PETSC_TRUE;
      if (!dup) ValuedNames[k++] = Families[f]->valued[i];
    }
  ValuedNames[k] = NULL;
  *n             = k;
  *names         = ValuedNames;
  PetscFunctionReturn(0);
}

/* TSMechSchemeRegistryReset - Forgets the registered families but PETSc's (TSMechFinalizePackage()) */
PetscErrorCode TSMechSchemeRegistryReset(void)
{
  PetscFunctionBegin;
  for (PetscInt f = TSMECH_PETSC_FAMILIES; f < NumFamilies; f++) Families[f] = NULL;
  NumFamilies = TSMECH_PETSC_FAMILIES;
  for (PetscInt f = 0; f < NumUserFamilies; f++) PetscCall(UserFamilyDestroy(&UserFamilies[f]));
  NumUserFamilies = 0;
  PetscFunctionReturn(0);
}

/* The operations of a family number, NULL for TSMECH_FAMILY_OTHER and unknown values */
static const TSMechFamilyOps *FamilyOps(PetscInt family)
{
  if (family == TSMECH_FAMILY_OTHER) return NULL;
  for (PetscInt f = 0; f < NumFamilies; f++)
    if (Families[f]->family == family) return Families[f];
  return NULL;
}

/* The table that lists a type name, NULL if none */
static PetscErrorCode TypeOps(const char type[], const TSMechFamilyOps **ops)
{
  PetscBool flg = PETSC_FALSE;

  PetscFunctionBegin;
  *ops = NULL;
  for (PetscInt f = 0; f < NumFamilies && !*ops; f++) {
    PetscCall(InList(type ? type : "", Families[f]->types, &flg));
    if (flg) *ops = Families[f];
  }
  PetscFunctionReturn(0);
}

/*
  The evaluations of f the last step of ts combined (TSMechStepEval, scheme.h): its family's, or,
  for a type that does not tell, the end of the step, marked not exact
*/
PetscErrorCode TSMechSchemeStepEval(TS ts, TSMechStepEval *e)
{
  const TSMechFamilyOps *ops;
  TSType                 type;

  PetscFunctionBegin;
  e->n                = 0;
  e->discgrad         = PETSC_FALSE;
  e->finitedifference = PETSC_FALSE;
  e->exact            = PETSC_FALSE;
  e->quasistatic      = PETSC_FALSE;
  PetscCall(TSGetType(ts, &type));
  PetscCall(TypeOps(type, &ops));
  if (ops && ops->stepeval) PetscCall((*ops->stepeval)(ts, e));
  if (!e->n) PetscCall(TSMechStepEvalAt(e, 0, e->t0 + e->tau, 1, e->q1, e->v1));
  PetscFunctionReturn(0);
}

/* The family (TSMechFamily) of a TS type name */
PetscErrorCode TSMechSchemeFamilyOfType(const char type[], PetscInt *family)
{
  const TSMechFamilyOps *ops;

  PetscFunctionBegin;
  PetscCall(TypeOps(type, &ops));
  *family = ops ? ops->family : TSMECH_FAMILY_OTHER;
  PetscFunctionReturn(0);
}

/* Whether the types of a family (a number read from a file) keep the start of the last step */
PetscErrorCode TSMechSchemeFamilyKeepsHistory(PetscInt family, PetscBool *flg)
{
  const TSMechFamilyOps *ops = FamilyOps(family);

  PetscFunctionBegin;
  *flg = ops && ops->history ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@C
  TSMechGetProperties - What the TS's type reports of itself for its current settings: explicit or
  implicit, order, second-order form, how a restart from a checkpoint continues it.

  Not Collective

  Input Parameter:
. ts - the TS, with its type set

  Output Parameter:
. p - the properties

  Level: intermediate

  Notes:
  Each tsmech type reports its own (its family's table, src/ts/scheme.h), as do the types given
  with `TSMechRegister()`; PETSc's theta, beuler, cn, alpha2, euler, rk, ssp, mprk and glee are
  known. Any other type is taken as an implicit type of the first-order form that restarts as at a
  first step (order 0: not known).

.seealso: `TSMechIsExplicit()`, `TSMechIsSecondOrder()`, `TSMechRegister()`
@*/
PetscErrorCode TSMechGetProperties(TS ts, TSMechProperties *p)
{
  const TSMechFamilyOps *ops;
  TSType                 type;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(p, sizeof(*p)));
  p->restart = TSMECH_RESTART_FIRST_STEP;
  PetscCall(TSGetType(ts, &type));
  PetscCall(TypeOps(type, &ops));
  if (ops && ops->properties) PetscCall((*ops->properties)(ts, p));
  PetscFunctionReturn(0);
}

/* The family operations of ts's type, which must keep history between steps */
static PetscErrorCode HistoryOps(TS ts, const TSMechFamilyOps **ops)
{
  TSType type;

  PetscFunctionBegin;
  PetscCall(TSGetType(ts, &type));
  PetscCall(TypeOps(type, ops));
  PetscCheck(*ops && (*ops)->history, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONG, "TS type %s keeps no history between steps", type ? type : "(none)");
  PetscFunctionReturn(0);
}

/* TSMechSaveHistory - The velocity at the start of the last step of a type that keeps history, and whether there is one */
PetscErrorCode TSMechSaveHistory(TS ts, Vec vprev, PetscBool *has)
{
  const TSMechFamilyOps *ops;

  PetscFunctionBegin;
  PetscCall(HistoryOps(ts, &ops));
  PetscCall((*ops->savehistory)(ts, vprev, has));
  PetscFunctionReturn(0);
}

/*
  TSMechLoadHistory - Gives a type that keeps history the velocity at the start of the last step;
  the position is the TS's solution and the time ptime - time_step at the call.
*/
PetscErrorCode TSMechLoadHistory(TS ts, Vec vprev)
{
  const TSMechFamilyOps *ops;

  PetscFunctionBegin;
  PetscCall(HistoryOps(ts, &ops));
  PetscCall((*ops->loadhistory)(ts, vprev));
  PetscFunctionReturn(0);
}

/* The scheme of ts: its type, its controller's type and its family's parameters */
PetscErrorCode TSMechSchemeGet(TS ts, TSMechScheme *s)
{
  TSType                 type;
  TSAdapt                adapt;
  TSAdaptType            atype = NULL;
  const TSMechFamilyOps *ops;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  PetscCall(TSGetType(ts, &type));
  PetscCall(PetscStrncpy(s->type, type ? type : "", sizeof(s->type)));
  PetscCall(TSGetAdapt(ts, &adapt));
  PetscCall(TSAdaptGetType(adapt, &atype));
  PetscCall(PetscStrncpy(s->adapt, atype ? atype : "", sizeof(s->adapt)));
  PetscCall(TSMechSchemeFamilyOfType(s->type, &s->family));
  ops = FamilyOps(s->family);
  if (ops) PetscCall((*ops->get)(ts, s));
  PetscFunctionReturn(0);
}

/* Makes the scheme s that of ts (before TSSetFromOptions(), which may change it) */
PetscErrorCode TSMechSchemeSet(TS ts, const TSMechScheme *s)
{
  const TSMechFamilyOps *ops = FamilyOps(s->family);

  PetscFunctionBegin;
  PetscCall(TSSetType(ts, s->type));
  if (ops) PetscCall((*ops->set)(ts, s));
  if (s->adapt[0]) {
    TSAdapt adapt;

    PetscCall(TSGetAdapt(ts, &adapt));
    PetscCall(TSAdaptSetType(adapt, s->adapt));
  }
  PetscFunctionReturn(0);
}

/*
  Gives `to` the type and the scheme parameters of `from` (not its controller): the families
  above, and the tableaux of PETSc's explicit Runge-Kutta types, which the stability analysis
  needs and no file records.
*/
PetscErrorCode TSMechSchemeCopy(TS from, TS to)
{
  TSMechScheme s;
  PetscBool    flg;

  PetscFunctionBegin;
  PetscCall(TSMechSchemeGet(from, &s));
  s.adapt[0] = 0;
  PetscCall(TSMechSchemeSet(to, &s));
  PetscCall(PetscObjectTypeCompare((PetscObject)from, TSRK, &flg));
  if (flg) {
    TSRKType rk;

    PetscCall(TSRKGetType(from, &rk));
    PetscCall(TSRKSetType(to, rk));
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)from, TSSSP, &flg));
  if (flg) {
    TSSSPType ssp;
    PetscInt  nstages;

    PetscCall(TSSSPGetType(from, &ssp));
    PetscCall(TSSSPGetNumStages(from, &nstages));
    PetscCall(TSSSPSetType(to, ssp));
    PetscCall(TSSSPSetNumStages(to, nstages));
  }
  PetscFunctionReturn(0);
}

/*
  Calls fn once per parameter of the scheme's family, in the order files store them, with the
  address of its value (a reader fills it in place: a scheme with no parameters yet, as a reader
  has after reading the family, gets the family's declaration first). The names are those of the
  output's and the checkpoint's attributes.
*/
PetscErrorCode TSMechSchemeForEachParameter(TSMechScheme *s, TSMechSchemeParamFn fn, void *ctx)
{
  const TSMechFamilyOps *ops = FamilyOps(s->family);
  PetscInt               i;

  PetscFunctionBegin;
  if (!s->n && ops) PetscCall((*ops->declare)(s));
  for (i = 0; i < s->n; i++) {
    TSMechParam *p = &s->p[i];

    if (p->kind == TSMECH_PARAM_REAL) PetscCall((*fn)(ctx, p->name, p->kind, &p->real));
    else if (p->kind == TSMECH_PARAM_FLAG) PetscCall((*fn)(ctx, p->name, p->kind, &p->flag));
    else PetscCall((*fn)(ctx, p->name, p->kind, p->text));
  }
  PetscFunctionReturn(0);
}

/* Whether name is the name of a parameter of some family (files reserve these names) */
PetscBool TSMechSchemeIsParameterName(const char name[])
{
  TSMechScheme s;
  PetscInt     f, i;

  for (f = 0; f < NumFamilies; f++) {
    if (!Families[f]->declare) continue;
    s.n = 0;
    if ((*Families[f]->declare)(&s)) return PETSC_TRUE; /* cannot happen; refuse the name */
    for (i = 0; i < s.n; i++)
      if (!strcmp(name, s.p[i].name)) return PETSC_TRUE;
  }
  return PETSC_FALSE;
}

/*
  The values a scheme read from a file must have: a type of this tsmech, a family that is the
  type's, flags that are 0 or 1, and the family's own ranges ("" in problem if all hold).
*/
PetscErrorCode TSMechSchemeCheck(const TSMechScheme *s, char problem[], size_t len)
{
  PetscInt               family, i;
  const TSMechFamilyOps *ops;
  PetscErrorCode (*fn)(void) = NULL;

  PetscFunctionBegin;
  problem[0] = 0;
  PetscCall(PetscFunctionListFind(TSList, s->type, &fn));
  if (!fn) {
    (void)snprintf(problem, len, "its ts_type \"%s\" is not a TS type of this tsmech", s->type);
    PetscFunctionReturn(0);
  }
  if (s->adapt[0]) {
    TSAdapt        adapt;
    PetscErrorCode ierr;

    /* PETSc keeps the list of controllers private: the type is tried on a scratch controller */
    PetscCall(TSAdaptCreate(PETSC_COMM_SELF, &adapt));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = TSAdaptSetType(adapt, s->adapt);
    PetscCall(PetscPopErrorHandler());
    PetscCall(TSAdaptDestroy(&adapt));
    if (ierr) {
      (void)snprintf(problem, len, "its adapt_type \"%s\" is not a step-size controller of this tsmech", s->adapt);
      PetscFunctionReturn(0);
    }
  }
  PetscCall(TSMechSchemeFamilyOfType(s->type, &family));
  if (s->family != family) {
    (void)snprintf(problem, len, "its ts_family %" PetscInt_FMT " is not the family of its ts_type %s (%" PetscInt_FMT ")", s->family, s->type, family);
    PetscFunctionReturn(0);
  }
  ops = FamilyOps(family);
  if (!ops) PetscFunctionReturn(0);
  PetscCall((*ops->check)(s, problem, len));
  for (i = 0; i < s->n && !problem[0]; i++)
    if (s->p[i].kind == TSMECH_PARAM_FLAG && s->p[i].flag != 0 && s->p[i].flag != 1) (void)snprintf(problem, len, "its attribute /checkpoint/%s = %" PetscInt_FMT " is not 0 or 1", s->p[i].name, s->p[i].flag);
  PetscFunctionReturn(0);
}

static void AppendItem(char msg[], size_t len, const char item[])
{
  if (msg[0]) (void)PetscStrlcat(msg, ", ", len);
  (void)PetscStrlcat(msg, item, len);
}

/*
  The settings in which b (this run) differs from a (a recorded scheme), "" if none, e.g.
  "theta 0.6 (checkpoint: 0.5), ts_adapt_type basic (checkpoint: none)". The parameters are
  compared only when the types agree (then their families declare the same ones).
*/
PetscErrorCode TSMechSchemeDiff(const TSMechScheme *a, const TSMechScheme *b, char msg[], size_t len)
{
  PetscBool same;
  char      item[256];
  PetscInt  i;

  PetscFunctionBegin;
  msg[0] = 0;
  PetscCall(PetscStrcmp(a->type, b->type, &same));
  if (!same) {
    (void)snprintf(item, sizeof(item), "ts_type %s (checkpoint: %s)", b->type, a->type);
    AppendItem(msg, len, item);
  } else {
    for (i = 0; i < a->n && i < b->n; i++) {
      const TSMechParam *pa = &a->p[i], *pb = &b->p[i];

      item[0] = 0;
      if (pa->kind == TSMECH_PARAM_REAL && pa->real != pb->real) (void)snprintf(item, sizeof(item), "%s %g (checkpoint: %g)", pa->name, (double)pb->real, (double)pa->real);
      if (pa->kind == TSMECH_PARAM_FLAG && pa->flag != pb->flag) (void)snprintf(item, sizeof(item), "%s %d (checkpoint: %d)", pa->name, (int)pb->flag, (int)pa->flag);
      if (pa->kind == TSMECH_PARAM_NAME && strcmp(pa->text, pb->text)) (void)snprintf(item, sizeof(item), "%s %s (checkpoint: %s)", pa->name, pb->text, pa->text);
      if (item[0]) AppendItem(msg, len, item);
    }
  }
  PetscCall(PetscStrcmp(a->adapt, b->adapt, &same));
  if (!same) {
    (void)snprintf(item, sizeof(item), "ts_adapt_type %s (checkpoint: %s)", b->adapt, a->adapt);
    AppendItem(msg, len, item);
  }
  PetscFunctionReturn(0);
}

/*@C
  TSMechIsExplicit - Whether the TS steps explicitly: no Newton solve, so its stability limits the
  step (explicit Euler euler2 and theta2 at theta = 0, symeuler2, PETSc's euler, rk, ssp, mprk
  and glee).

  Not Collective

  Input Parameter:
. ts - the TS, with its type set

  Output Parameter:
. flg - PETSC_TRUE if explicit

  Level: intermediate

  Note:
  The type reports it (the properties of its family, `TSMechSchemeRegister()`).

.seealso: `TSMechIsSecondOrder()`, `TSMechEstimateStableStep()`
@*/
PetscErrorCode TSMechIsExplicit(TS ts, PetscBool *flg)
{
  TSMechProperties p;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscCall(TSMechGetProperties(ts, &p));
  *flg = p.explicit_;
  PetscFunctionReturn(0);
}

/*
  Whether a restart from a checkpoint continues ts bit for bit: the types whose history a
  checkpoint holds, and, at fixed steps (fixedstep: no controller), the one-step types without
  history. The others restart as at a first step.
*/
PetscErrorCode TSMechSchemeRestartsExactly(TS ts, PetscBool fixedstep, PetscBool *flg)
{
  TSMechProperties p;

  PetscFunctionBegin;
  PetscCall(TSMechGetProperties(ts, &p));
  *flg = (p.restart == TSMECH_RESTART_EXACT || (fixedstep && p.restart == TSMECH_RESTART_FIXED_STEP)) ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@C
  TSMechIsSecondOrder - Whether the TS type integrates M q'' + f = 0 directly (TSALPHA2 and the
  tsmech types) rather than through the first-order form.

  Not Collective

  Input Parameter:
. ts - the TS, with its type set

  Output Parameter:
. flg - PETSC_TRUE for TSALPHA2 and the tsmech types, PETSC_FALSE for the first-order types

  Level: intermediate

.seealso: `TSMechSetSystem()`, `TSMechSetSolution()`
@*/
PetscErrorCode TSMechIsSecondOrder(TS ts, PetscBool *flg)
{
  TSMechProperties p;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscCall(TSMechGetProperties(ts, &p));
  *flg = p.secondorder;
  PetscFunctionReturn(0);
}
