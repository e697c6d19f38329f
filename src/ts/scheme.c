/*
  The scheme of a TS: type, step-size controller and family parameters (scheme.h). Each family
  has one entry below that gets, sets and lists its parameters, the way a PETSc type implements
  view and load; the HDF5 output, the checkpoint and the stability analysis go through these
  functions and never test type names themselves.
*/
#include "scheme.h"
#include <petsc/private/tsimpl.h>
#include <stdio.h>

/* The types of each family with recorded parameters, and PETSc's explicit types */
static const char *const Theta2Types[] = {TSTHETA2, TSBEULER2, TSCN2, TSMIDPOINT2, TSEULER2, NULL};
static const char *const ThetaTypes[]  = {TSTHETA, TSBEULER, TSCN, NULL};
static const char *const Alpha2Types[] = {TSALPHA2, NULL};
static const char *const SecondOrder[] = {TSALPHA2, TSTHETA2, TSBEULER2, TSCN2, TSMIDPOINT2, TSEULER2, TSSYMEULER2, NULL};
/* one-step types that keep no history between steps of a fixed size */
static const char *const NoHistoryTypes[] = {TSSYMEULER2, TSEULER, TSBEULER, TSCN, TSTHETA, NULL};
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

/* The family (TSMechFamily) of a TS type name */
PetscErrorCode TSMechSchemeFamilyOfType(const char type[], PetscInt *family)
{
  PetscBool flg;

  PetscFunctionBegin;
  *family = TSMECH_FAMILY_OTHER;
  PetscCall(InList(type, Theta2Types, &flg));
  if (flg) *family = TSMECH_FAMILY_THETA2;
  PetscCall(InList(type, ThetaTypes, &flg));
  if (flg) *family = TSMECH_FAMILY_THETA;
  PetscCall(InList(type, Alpha2Types, &flg));
  if (flg) *family = TSMECH_FAMILY_ALPHA2;
  PetscFunctionReturn(0);
}

/* The scheme of ts: its type, its controller's type and its family's parameters */
PetscErrorCode TSMechSchemeGet(TS ts, TSMechScheme *s)
{
  TSType      type;
  TSAdapt     adapt;
  TSAdaptType atype = NULL;
  PetscBool   endpoint, linearized, extrapolate;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  PetscCall(TSGetType(ts, &type));
  PetscCall(PetscStrncpy(s->type, type ? type : "", sizeof(s->type)));
  PetscCall(TSGetAdapt(ts, &adapt));
  PetscCall(TSAdaptGetType(adapt, &atype));
  PetscCall(PetscStrncpy(s->adapt, atype ? atype : "", sizeof(s->adapt)));
  PetscCall(TSMechSchemeFamilyOfType(s->type, &s->family));
  switch (s->family) {
  case TSMECH_FAMILY_THETA2: {
    TSTheta2Guess guess;

    PetscCall(TSTheta2GetTheta(ts, &s->theta));
    PetscCall(TSTheta2GetEndpoint(ts, &endpoint));
    PetscCall(TSTheta2GetLinearized(ts, &linearized, &guess));
    PetscCall(TSTheta2GetInitialGuessExtrapolate(ts, &extrapolate));
    s->endpoint    = endpoint;
    s->linearized  = linearized;
    s->extrapolate = extrapolate;
    PetscCall(PetscStrncpy(s->guess, TSTheta2Guesses[guess], sizeof(s->guess)));
  } break;
  case TSMECH_FAMILY_THETA:
    PetscCall(TSThetaGetTheta(ts, &s->theta));
    PetscCall(TSThetaGetEndpoint(ts, &endpoint));
    s->endpoint = endpoint;
    break;
  case TSMECH_FAMILY_ALPHA2:
    PetscCall(TSAlpha2GetParams(ts, &s->alpha_m, &s->alpha_f, &s->gamma, &s->beta));
    break;
  default:
    break;
  }
  PetscFunctionReturn(0);
}

/* Makes the scheme s that of ts (before TSSetFromOptions(), which may change it). The fixed
   members of the theta2 family (beuler2, ...) accept their own theta and form only. */
PetscErrorCode TSMechSchemeSet(TS ts, const TSMechScheme *s)
{
  PetscFunctionBegin;
  PetscCall(TSSetType(ts, s->type));
  switch (s->family) {
  case TSMECH_FAMILY_THETA2: {
    PetscInt  g;
    PetscBool flg = PETSC_FALSE;

    PetscCall(PetscStrcmp(s->type, TSTHETA2, &flg));
    if (flg) {
      PetscCall(TSTheta2SetTheta(ts, s->theta));
      PetscCall(TSTheta2SetEndpoint(ts, s->endpoint ? PETSC_TRUE : PETSC_FALSE));
    }
    for (g = 0, flg = PETSC_FALSE; g <= (PetscInt)TSTHETA2_GUESS_EXTRAPOLATE && !flg; g++) PetscCall(PetscStrcmp(s->guess, TSTheta2Guesses[g], &flg));
    if (flg) PetscCall(TSTheta2SetLinearized(ts, s->linearized ? PETSC_TRUE : PETSC_FALSE, (TSTheta2Guess)(g - 1)));
    PetscCall(TSTheta2SetInitialGuessExtrapolate(ts, s->extrapolate ? PETSC_TRUE : PETSC_FALSE));
  } break;
  case TSMECH_FAMILY_THETA: {
    PetscBool flg;

    PetscCall(PetscStrcmp(s->type, TSTHETA, &flg));
    if (flg) {
      PetscCall(TSThetaSetTheta(ts, s->theta));
      PetscCall(TSThetaSetEndpoint(ts, s->endpoint ? PETSC_TRUE : PETSC_FALSE));
    }
  } break;
  case TSMECH_FAMILY_ALPHA2:
    PetscCall(TSAlpha2SetParams(ts, s->alpha_m, s->alpha_f, s->gamma, s->beta));
    break;
  default:
    break;
  }
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
  address of its value (a reader fills it in place). The names are those of the output's and the
  checkpoint's attributes.
*/
PetscErrorCode TSMechSchemeForEachParameter(TSMechScheme *s, TSMechSchemeParamFn fn, void *ctx)
{
  PetscFunctionBegin;
  if (s->family == TSMECH_FAMILY_THETA2 || s->family == TSMECH_FAMILY_THETA) {
    PetscCall((*fn)(ctx, "theta", TSMECH_PARAM_REAL, &s->theta));
    PetscCall((*fn)(ctx, "endpoint", TSMECH_PARAM_FLAG, &s->endpoint));
  }
  if (s->family == TSMECH_FAMILY_THETA2) {
    PetscCall((*fn)(ctx, "linearized", TSMECH_PARAM_FLAG, &s->linearized));
    PetscCall((*fn)(ctx, "guess", TSMECH_PARAM_NAME, s->guess));
    PetscCall((*fn)(ctx, "extrapolate", TSMECH_PARAM_FLAG, &s->extrapolate));
  }
  if (s->family == TSMECH_FAMILY_ALPHA2) {
    PetscCall((*fn)(ctx, "alpha_m", TSMECH_PARAM_REAL, &s->alpha_m));
    PetscCall((*fn)(ctx, "alpha_f", TSMECH_PARAM_REAL, &s->alpha_f));
    PetscCall((*fn)(ctx, "gamma", TSMECH_PARAM_REAL, &s->gamma));
    PetscCall((*fn)(ctx, "beta", TSMECH_PARAM_REAL, &s->beta));
  }
  PetscFunctionReturn(0);
}

/* Whether name is the name of a parameter of some family (files reserve these names) */
PetscBool TSMechSchemeIsParameterName(const char name[])
{
  static const char *const names[] = {"theta", "endpoint", "linearized", "guess", "extrapolate", "alpha_m", "alpha_f", "gamma", "beta", NULL};
  PetscInt                 i;

  for (i = 0; names[i]; i++)
    if (!strcmp(name, names[i])) return PETSC_TRUE;
  return PETSC_FALSE;
}

/*
  The values a scheme read from a file must have: a type of this tsmech, a family that is the
  type's, and parameters in their ranges ("" in problem if all hold).
*/
PetscErrorCode TSMechSchemeCheck(const TSMechScheme *s, char problem[], size_t len)
{
  PetscInt  family, g;
  PetscBool flg;
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
  if (family == TSMECH_FAMILY_THETA2 || family == TSMECH_FAMILY_THETA) {
    if (PetscIsInfOrNanReal(s->theta) || s->theta < 0 || s->theta > 1 || (family == TSMECH_FAMILY_THETA && s->theta == 0)) {
      (void)snprintf(problem, len, "its theta %g is outside %s", (double)s->theta, family == TSMECH_FAMILY_THETA2 ? "[0, 1]" : "(0, 1]");
      PetscFunctionReturn(0);
    }
  }
  {
    struct {
      const char *name;
      PetscInt    v;
      PetscBool   used;
    } flags[] = {
        {"endpoint",    s->endpoint,    family == TSMECH_FAMILY_THETA2 || family == TSMECH_FAMILY_THETA},
        {"linearized",  s->linearized,  family == TSMECH_FAMILY_THETA2                                 },
        {"extrapolate", s->extrapolate, family == TSMECH_FAMILY_THETA2                                 }
    };
    size_t i;

    for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
      if (flags[i].used && flags[i].v != 0 && flags[i].v != 1) {
        (void)snprintf(problem, len, "its attribute /checkpoint/%s = %" PetscInt_FMT " is not 0 or 1", flags[i].name, flags[i].v);
        PetscFunctionReturn(0);
      }
    }
  }
  if (family == TSMECH_FAMILY_THETA2) {
    for (g = 0, flg = PETSC_FALSE; g <= (PetscInt)TSTHETA2_GUESS_EXTRAPOLATE && !flg; g++) PetscCall(PetscStrcmp(s->guess, TSTheta2Guesses[g], &flg));
    if (!flg) {
      (void)snprintf(problem, len, "its guess \"%s\" is not a linearized guess of theta2", s->guess);
      PetscFunctionReturn(0);
    }
  }
  if (family == TSMECH_FAMILY_ALPHA2 && (PetscIsInfOrNanReal(s->alpha_m) || PetscIsInfOrNanReal(s->alpha_f) || PetscIsInfOrNanReal(s->gamma) || PetscIsInfOrNanReal(s->beta))) (void)snprintf(problem, len, "its alpha2 parameters are not finite numbers");
  PetscFunctionReturn(0);
}

/* One parameter of a scheme, as TSMechSchemeForEachParameter() lists it */
typedef struct {
  const char     *name;
  TSMechParamKind kind;
  void           *value;
} Param;

typedef struct {
  Param    p[16];
  PetscInt n;
} ParamList;

static PetscErrorCode CollectParam(void *ctx, const char name[], TSMechParamKind kind, void *value)
{
  ParamList *l = (ParamList *)ctx;

  PetscFunctionBegin;
  PetscCheck(l->n < 16, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A scheme has more than 16 parameters");
  l->p[l->n].name  = name;
  l->p[l->n].kind  = kind;
  l->p[l->n].value = value;
  l->n++;
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
  compared only when the types agree.
*/
PetscErrorCode TSMechSchemeDiff(const TSMechScheme *a, const TSMechScheme *b, char msg[], size_t len)
{
  TSMechScheme sa = *a, sb = *b;
  ParamList    la, lb;
  PetscBool    same;
  char         item[256];
  PetscInt     i;

  PetscFunctionBegin;
  msg[0] = 0;
  PetscCall(PetscStrcmp(a->type, b->type, &same));
  if (!same) {
    (void)snprintf(item, sizeof(item), "ts_type %s (checkpoint: %s)", b->type, a->type);
    AppendItem(msg, len, item);
  } else {
    la.n = lb.n = 0;
    PetscCall(TSMechSchemeForEachParameter(&sa, CollectParam, &la));
    PetscCall(TSMechSchemeForEachParameter(&sb, CollectParam, &lb));
    for (i = 0; i < la.n && i < lb.n; i++) {
      const Param *pa = &la.p[i], *pb = &lb.p[i];

      item[0] = 0;
      if (pa->kind == TSMECH_PARAM_REAL && *(PetscReal *)pa->value != *(PetscReal *)pb->value) (void)snprintf(item, sizeof(item), "%s %g (checkpoint: %g)", pa->name, (double)*(PetscReal *)pb->value, (double)*(PetscReal *)pa->value);
      if (pa->kind == TSMECH_PARAM_FLAG && *(PetscInt *)pa->value != *(PetscInt *)pb->value) (void)snprintf(item, sizeof(item), "%s %d (checkpoint: %d)", pa->name, (int)*(PetscInt *)pb->value, (int)*(PetscInt *)pa->value);
      /* the guess matters only to a linearized step */
      if (pa->kind == TSMECH_PARAM_NAME && b->linearized && strcmp((char *)pa->value, (char *)pb->value)) (void)snprintf(item, sizeof(item), "%s %s (checkpoint: %s)", pa->name, (char *)pb->value, (char *)pa->value);
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

.seealso: TSMechIsSecondOrder(), MechSystemEstimateStableStep()
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
  PetscCall(TypeInList(ts, Theta2Types, flg));
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

.seealso: TSMechSetSystem(), TSMechSetSolution()
@*/
PetscErrorCode TSMechIsSecondOrder(TS ts, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscCall(TypeInList(ts, SecondOrder, flg));
  PetscFunctionReturn(0);
}
