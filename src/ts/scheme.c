/*
  The scheme of a TS: type, step-size controller and family parameters (scheme.h). Each family
  has one entry below that gets, sets and lists its parameters, the way a PETSc type implements
  view and load; the HDF5 output, the checkpoint and the stability analysis go through these
  functions and never test type names themselves.
*/
#include "scheme.h"
#include <petsc/private/tsimpl.h>
#include <stdio.h>
#include <string.h>

/* The types of PETSc's families with recorded parameters (the theta2 family's are in theta2.c),
   the second-order types, and the explicit ones */
static const char *const ThetaTypes[]  = {TSTHETA, TSBEULER, TSCN, NULL};
static const char *const Alpha2Types[] = {TSALPHA2, NULL};
/* second order besides the theta2 family */
static const char *const SecondOrder[] = {TSALPHA2, TSSYMEULER2, TSDISCGRAD2, NULL};
/* one-step types that keep no history between steps of a fixed size */
static const char *const NoHistoryTypes[] = {TSSYMEULER2, TSDISCGRAD2, TSEULER, TSBEULER, TSCN, TSTHETA, NULL};
/* explicit in any case (no Newton solve: their stability limits the step); theta2 at theta = 0 too */
static const char *const ExplicitTypes[] = {TSEULER2, TSSYMEULER2, TSEULER, TSRK, TSSSP, TSMPRK, TSGLEE, NULL};

static PetscErrorCode InList(const char type[], const char *const list[], PetscBool *flg)
{
  PetscInt i;

  PetscFunctionBegin;
  *flg = PETSC_FALSE;
  for (i = 0; list[i] && !*flg; i++) PetscCall(PetscStrcmp(type, list[i], flg));
  PetscFunctionReturn(0);
}

static PetscErrorCode TypeInList(TS ts, const char *const list[], PetscBool *flg)
{
  TSType type;

  PetscFunctionBegin;
  PetscCall(TSGetType(ts, &type));
  PetscCall(InList(type ? type : "", list, flg));
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

static const TSMechFamilyOps FamilyTheta  = {ThetaTypes, ThetaDeclare, ThetaGet, ThetaSet, ThetaCheck};
static const TSMechFamilyOps FamilyAlpha2 = {Alpha2Types, Alpha2Declare, Alpha2Get, Alpha2Set, Alpha2Check};

/* The operations of a family, NULL for TSMECH_FAMILY_OTHER and unknown values */
static const TSMechFamilyOps *FamilyOps(PetscInt family)
{
  switch (family) {
  case TSMECH_FAMILY_THETA2:
    return &TSMechFamilyTheta2;
  case TSMECH_FAMILY_THETA:
    return &FamilyTheta;
  case TSMECH_FAMILY_ALPHA2:
    return &FamilyAlpha2;
  default:
    return NULL;
  }
}

/* The family (TSMechFamily) of a TS type name */
PetscErrorCode TSMechSchemeFamilyOfType(const char type[], PetscInt *family)
{
  PetscInt  f;
  PetscBool flg;

  PetscFunctionBegin;
  *family = TSMECH_FAMILY_OTHER;
  for (f = TSMECH_FAMILY_THETA2; f <= TSMECH_FAMILY_ALPHA2; f++) {
    PetscCall(InList(type, FamilyOps(f)->types, &flg));
    if (flg) *family = f;
  }
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

  for (f = TSMECH_FAMILY_THETA2; f <= TSMECH_FAMILY_ALPHA2; f++) {
    s.n = 0;
    if ((*FamilyOps(f)->declare)(&s)) return PETSC_TRUE; /* cannot happen; refuse the name */
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
  PetscCall(TSInitializePackage());
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

.seealso: `TSMechIsSecondOrder()`, `MechSystemEstimateStableStep()`
@*/
PetscErrorCode TSMechIsExplicit(TS ts, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscCall(TypeInList(ts, ExplicitTypes, flg));
  if (!*flg) {
    PetscBool theta2;

    PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSTHETA2, &theta2));
    if (theta2) {
      PetscReal theta;

      PetscCall(TSTheta2GetTheta(ts, &theta));
      *flg = theta == 0 ? PETSC_TRUE : PETSC_FALSE;
    }
  }
  PetscFunctionReturn(0);
}

/*
  Whether a restart from a checkpoint continues ts bit for bit: the theta2 family, whose history
  a checkpoint holds, and, at fixed steps (fixedstep: no controller), the one-step types without
  history. The others restart as at a first step.
*/
PetscErrorCode TSMechSchemeRestartsExactly(TS ts, PetscBool fixedstep, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscCall(TypeInList(ts, TSMechFamilyTheta2.types, flg));
  if (!*flg && fixedstep) PetscCall(TypeInList(ts, NoHistoryTypes, flg));
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
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscCall(TypeInList(ts, TSMechFamilyTheta2.types, flg));
  if (!*flg) PetscCall(TypeInList(ts, SecondOrder, flg));
  PetscFunctionReturn(0);
}
