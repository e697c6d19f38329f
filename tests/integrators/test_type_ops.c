/* dup(), dup2() and fileno() are POSIX */
#define _POSIX_C_SOURCE 200809L
static const char help[] = "The properties a TS type reports of itself (TSMechGetProperties()), and a type of one's own\n"
                           "registered with TSMechRegister() that tsmech then treats as it says.\n";

/*
  1. The properties of every tsmech type and of the PETSc types tsmech knows, for several settings,
     against a table: explicit, order, second-order form, how a restart continues it, whether it
     puts prescribed motions and multigrid coarse operators itself, and the restart note of the
     matrix-free Newton object on a nonlinear problem (none on a linear one).
  2. leapfrog2 (leapfrog2.c), Stormer-Verlet in velocity form written with the public API only,
       v1/2 = v - tau/2 M^{-1} f(t, q, v),  q+ = q + tau v1/2,  v+ = v1/2 - tau/2 M^{-1} f(t + tau, q+, v1/2),
     registered with TSMechRegister() as explicit, second order, second-order form. tsmech must then
     give it the state as (q, v) (TSMechSetSolution()): on the oscillator q'' + 4 q = 0 its error
     against the exact solution falls 4-fold when the step is halved, and on the distributed chain
     it agrees with midpoint2 to O(tau^2). Registered with TSRegister() alone (what a new type had
     before its properties were its own), TSMechSetSolution() takes it for a first-order type and
     hands it [q; v]: the run fails (checked with -plain_register, which must fail).
     Its option -ts_leapfrog2_substeps (substeps of tau/n per step: 2 substeps at dt = 0.05 give
     the run at dt = 0.025) is one that takes a value.
  3. A second TSMechRegister() of a name taken is refused, as is a bad list (an option without its
     "-", no description).
  4. The types say themselves what they are (issue 31: adding a type touches its file and its
     registration, no list elsewhere): TSMechGetTypeNames() lists tsmech's 8 types with a
     description each, and leapfrog2 after its registration; TSMechGetValuedOptions() holds the
     options the types gave (gauss2's and discgrad2's Newton options under their prefixes,
     leapfrog2's), each once, and the driver's check (MechOptionsCheckValuesGiven()) with that
     list refuses -ts_leapfrog2_substeps given without a value and accepts it with one.
  5. The lists are complete: every option that takes a value which a type's options block prints
     under -help (theirs, besides those a PETSc type with the same prefix prints too) is in
     TSMechGetValuedOptions(). A type that reads a new valued option and does not list it fails.
*/
#include <tsmech.h>
#include <petsc/private/tsimpl.h>
#include "testutil.h"
#include "leapfrog2.h"
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define Check(cond, ...) PetscCheck(cond, PETSC_COMM_WORLD, PETSC_ERR_PLIB, __VA_ARGS__)

/* ---- the properties table ---- */
typedef struct {
  const char   *model, *type, *opts;
  PetscBool     explicit_;
  PetscInt      order;
  PetscBool     secondorder;
  TSMechRestart restart;
  PetscBool     ownfixed, owncoarse;
  const char   *note; /* a substring of the restart note, "" none */
} Expected;

static const Expected Table[] = {
    {"chain",      "midpoint2", "",                                                          PETSC_FALSE, 2, PETSC_TRUE,  TSMECH_RESTART_EXACT,      PETSC_TRUE,  PETSC_TRUE,  ""                     },
    {"chain",      "midpoint2", "-ts_theta_matrix_free",                                     PETSC_FALSE, 2, PETSC_TRUE,  TSMECH_RESTART_EXACT,      PETSC_TRUE,  PETSC_TRUE,  "-ts_theta_matrix_free"},
    {"oscillator", "midpoint2", "-ts_theta_matrix_free",                                     PETSC_FALSE, 2, PETSC_TRUE,  TSMECH_RESTART_EXACT,      PETSC_TRUE,  PETSC_TRUE,  ""                     },
    {"chain",      "cn2",       "",                                                          PETSC_FALSE, 2, PETSC_TRUE,  TSMECH_RESTART_EXACT,      PETSC_TRUE,  PETSC_TRUE,  ""                     },
    {"chain",      "beuler2",   "",                                                          PETSC_FALSE, 1, PETSC_TRUE,  TSMECH_RESTART_EXACT,      PETSC_TRUE,  PETSC_TRUE,  ""                     },
    {"chain",      "theta2",    "-ts_theta_theta 0.7",                                       PETSC_FALSE, 1, PETSC_TRUE,  TSMECH_RESTART_EXACT,      PETSC_TRUE,  PETSC_TRUE,  ""                     },
    {"chain",      "theta2",    "-ts_theta_theta 0",                                         PETSC_TRUE,  1, PETSC_TRUE,  TSMECH_RESTART_EXACT,      PETSC_TRUE,  PETSC_TRUE,  ""                     },
    {"chain",      "theta2",    "-ts_theta_linearized",                                      PETSC_FALSE, 2, PETSC_TRUE,  TSMECH_RESTART_EXACT,      PETSC_TRUE,  PETSC_TRUE,  ""                     },
    {"chain",      "theta2",    "-ts_theta_linearized -ts_theta_linearized_guess predictor", PETSC_FALSE, 1, PETSC_TRUE,  TSMECH_RESTART_EXACT,      PETSC_TRUE,  PETSC_TRUE,  ""                     },
    {"chain",      "euler2",    "",                                                          PETSC_TRUE,  1, PETSC_TRUE,  TSMECH_RESTART_EXACT,      PETSC_TRUE,  PETSC_TRUE,  ""                     },
    {"chain",      "symeuler2", "",                                                          PETSC_TRUE,  1, PETSC_TRUE,  TSMECH_RESTART_FIXED_STEP, PETSC_TRUE,  PETSC_FALSE, ""                     },
    {"chain",      "alpha2",    "",                                                          PETSC_FALSE, 2, PETSC_TRUE,  TSMECH_RESTART_FIRST_STEP, PETSC_FALSE, PETSC_FALSE, ""                     },
    {"chain",      "cn",        "",                                                          PETSC_FALSE, 2, PETSC_FALSE, TSMECH_RESTART_FIXED_STEP, PETSC_FALSE, PETSC_FALSE, ""                     },
    {"chain",      "beuler",    "",                                                          PETSC_FALSE, 1, PETSC_FALSE, TSMECH_RESTART_FIXED_STEP, PETSC_FALSE, PETSC_FALSE, ""                     },
    {"chain",      "euler",     "",                                                          PETSC_TRUE,  1, PETSC_FALSE, TSMECH_RESTART_FIXED_STEP, PETSC_FALSE, PETSC_FALSE, ""                     },
    {"chain",      "rk",        "-ts_rk_type 4",                                             PETSC_TRUE,  4, PETSC_FALSE, TSMECH_RESTART_FIRST_STEP, PETSC_FALSE, PETSC_FALSE, ""                     },
    {"chain",      "bdf",       "",                                                          PETSC_FALSE, 0, PETSC_FALSE, TSMECH_RESTART_FIRST_STEP, PETSC_FALSE, PETSC_FALSE, ""                     },
    {"chain",      "leapfrog2", "",                                                          PETSC_TRUE,  2, PETSC_TRUE,  TSMECH_RESTART_FIXED_STEP, PETSC_FALSE, PETSC_FALSE, ""                     },
};

/* A TS of the type on the model, set up from the options given (cleared afterwards) */
static PetscErrorCode CreateTS(const char model[], const char modelopts[], const char type[], const char opts[], MechSystem *sys, TS *ts)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsClear(NULL));
  PetscCall(PetscOptionsInsertString(NULL, modelopts));
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(MechCreateModel(PETSC_COMM_WORLD, model, sys));
  PetscCall(TSCreate(PETSC_COMM_WORLD, ts));
  PetscCall(TSMechSetSystem(*ts, *sys));
  PetscCall(TSSetType(*ts, type));
  PetscCall(TSSetExactFinalTime(*ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetFromOptions(*ts));
  PetscCall(PetscOptionsClear(NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckTable(void)
{
  PetscFunctionBegin;
  for (size_t i = 0; i < sizeof(Table) / sizeof(Table[0]); i++) {
    const Expected  *e = &Table[i];
    MechSystem       sys;
    TS               ts;
    TSMechProperties p;
    PetscBool        flg;

    Vec q, v;

    PetscCall(CreateTS(e->model, "-chain_n 12", e->type, e->opts, &sys, &ts));
    /* the state given (a linear system's problem becomes TS_LINEAR there) */
    PetscCall(MechSystemCreateState(sys, &q, &v));
    PetscCall(TSMechSetSolution(ts, q, v));
    PetscCall(TSMechGetProperties(ts, &p));
    Check(p.explicit_ == e->explicit_, "%s %s: explicit %d, expected %d", e->type, e->opts, (int)p.explicit_, (int)e->explicit_);
    Check(p.order == e->order, "%s %s: order %" PetscInt_FMT ", expected %" PetscInt_FMT, e->type, e->opts, p.order, e->order);
    Check(p.secondorder == e->secondorder, "%s %s: second-order form %d, expected %d", e->type, e->opts, (int)p.secondorder, (int)e->secondorder);
    Check(p.restart == e->restart, "%s %s: restart %d, expected %d", e->type, e->opts, (int)p.restart, (int)e->restart);
    Check(p.ownfixed == e->ownfixed && p.owncoarse == e->owncoarse, "%s %s: own fixed motion %d, own coarse operators %d", e->type, e->opts, (int)p.ownfixed, (int)p.owncoarse);
    Check(e->note[0] ? strstr(p.restartnote, e->note) != NULL : !p.restartnote[0], "%s %s: restart note \"%s\"", e->type, e->opts, p.restartnote);
    /* the public questions answer alike */
    PetscCall(TSMechIsExplicit(ts, &flg));
    Check(flg == e->explicit_, "%s: TSMechIsExplicit() disagrees", e->type);
    PetscCall(TSMechIsSecondOrder(ts, &flg));
    Check(flg == e->secondorder, "%s: TSMechIsSecondOrder() disagrees", e->type);
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(TSDestroy(&ts));
    PetscCall(MechSystemDestroy(&sys));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "properties of %d settings of %d types as expected\n", (int)(sizeof(Table) / sizeof(Table[0])), 15));
  PetscFunctionReturn(0);
}

/* The state of a run of the type to time T with step dt */
static PetscErrorCode Run(const char model[], const char modelopts[], const char type[], PetscReal dt, PetscReal T, Vec *q, Vec *v)
{
  MechSystem sys;
  TS         ts;
  char       opts[128];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-ts_dt %.17g -ts_max_time %.17g", (double)dt, (double)T));
  PetscCall(CreateTS(model, modelopts, type, opts, &sys, &ts));
  PetscCall(MechSystemCreateState(sys, q, v));
  PetscCall(TSMechSetSolution(ts, *q, *v));
  PetscCall(TSSolve(ts, NULL));
  PetscCall(TSMechGetSolution(ts, *q, *v));
  PetscCall(TSDestroy(&ts));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/* leapfrog2 on the oscillator q'' + 4 q = 0 from q = 1, v = 0: the error at T = 1 against cos(2 t) */
static PetscErrorCode OscillatorError(PetscReal dt, const char extra[], PetscReal *err)
{
  Vec                q, v;
  const PetscScalar *qa, *va;
  PetscInt           n;
  PetscReal          mine = 0;
  char               opts[256];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-oscillator_m 1 -oscillator_k 4 -oscillator_c 0 -oscillator_g 0 -oscillator_q0 1 -oscillator_v0 0 %s", extra));
  PetscCall(Run("oscillator", opts, "leapfrog2", dt, 1.0, &q, &v));
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArrayRead(q, &qa));
  PetscCall(VecGetArrayRead(v, &va));
  if (n) mine = PetscMax(PetscAbsReal(PetscRealPart(qa[0]) - PetscCosReal(2.0)), PetscAbsReal(PetscRealPart(va[0]) + 2.0 * PetscSinReal(2.0)));
  PetscCall(VecRestoreArrayRead(q, &qa));
  PetscCall(VecRestoreArrayRead(v, &va));
  PetscCall(MPIU_Allreduce(&mine, err, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckLeapfrog(void)
{
  PetscReal e1, e2, es, rel;
  Vec       q, v, qm, vm;

  PetscFunctionBegin;
  PetscCall(OscillatorError(0.05, "", &e1));
  PetscCall(OscillatorError(0.025, "", &e2));
  Check(e1 < 1e-2 && e1 / e2 > 3.6 && e1 / e2 < 4.4, "leapfrog2 on the oscillator: errors %g and %g at dt 0.05 and 0.025 (ratio %g, expected 4)", (double)e1, (double)e2, (double)(e1 / e2));
  /* its option is read: two substeps of 0.025 make the step of 0.05 */
  PetscCall(OscillatorError(0.05, "-ts_leapfrog2_substeps 2", &es));
  Check(PetscAbsReal(es - e2) <= 1e-10 * e2, "leapfrog2 with -ts_leapfrog2_substeps 2 at dt 0.05: error %g, at dt 0.025: %g", (double)es, (double)e2);
  /* the distributed chain, undamped, at half its stable step: leapfrog2 and midpoint2 agree to O(tau^2) */
  PetscCall(Run("chain", "-chain_n 24 -chain_c 0 -chain_drag 0", "leapfrog2", 1e-4, 0.05, &q, &v));
  PetscCall(Run("chain", "-chain_n 24 -chain_c 0 -chain_drag 0", "midpoint2", 1e-4, 0.05, &qm, &vm));
  PetscCall(TestRelDiff(q, v, qm, vm, &rel));
  Check(rel < 1e-5, "leapfrog2 and midpoint2 on the chain differ by %g", (double)rel);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "leapfrog2: oscillator errors %.3e, %.3e (ratio %.3f); chain against midpoint2 %.2e\n", (double)e1, (double)e2, (double)(e1 / e2), (double)rel));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&qm));
  PetscCall(VecDestroy(&vm));
  PetscFunctionReturn(0);
}

/* Whether list (n names) holds name, and how often */
static PetscInt Count(PetscInt n, const char *const list[], const char name[])
{
  PetscInt c = 0;

  for (PetscInt i = 0; i < n; i++)
    if (!strcmp(list[i], name)) c++;
  return c;
}

/* Whether the driver's check with the types' list refuses the option given without a value (and accepts it with one) */
static PetscErrorCode RefusedWithoutValue(const char opt[], PetscBool *refused)
{
  const char *const *valued;
  const char        *text = NULL, *specific = NULL;
  PetscInt           n;
  PetscErrorCode     ierr;
  char               expect[128];

  PetscFunctionBegin;
  PetscCall(TSMechGetValuedOptions(&n, &valued));
  PetscCall(PetscOptionsSetValue(NULL, opt, NULL));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MechOptionsCheckValuesGiven(PETSC_COMM_WORLD, n, valued);
  PetscCall(PetscPopErrorHandler());
  *refused = ierr ? PETSC_TRUE : PETSC_FALSE;
  if (ierr) {
    /* the driver's message, naming the option */
    PetscCall(PetscErrorMessage(ierr, &text, (char **)&specific));
    PetscCall(PetscSNPrintf(expect, sizeof(expect), "%s: needs a value", opt));
    Check(specific && strstr(specific, expect), "%s given without a value: the message is \"%s\", expected \"%s\"", opt, specific ? specific : "", expect);
  }
  PetscCall(PetscOptionsSetValue(NULL, opt, "2"));
  PetscCall(MechOptionsCheckValuesGiven(PETSC_COMM_WORLD, n, valued));
  PetscCall(PetscOptionsClearValue(NULL, opt));
  PetscFunctionReturn(0);
}

/*
  The lists the types give of themselves, before (registered false) and after leapfrog2's
  registration: the names with a description each, the valued options, and the driver's check
*/
static PetscErrorCode CheckTypeLists(PetscBool registered)
{
  static const char *const own[]    = {TSTHETA2, TSBEULER2, TSCN2, TSMIDPOINT2, TSEULER2, TSSYMEULER2, TSGAUSS2, TSDISCGRAD2};
  static const char *const valued[] = {"-ts_theta_theta", "-ts_theta_linearized_guess", "-ts_theta_ne_depth", "-ts_gauss2_stages", "-ts_gauss2_pc_rebuild_growth", "-gauss2_pc_type", "-ts_discgrad2_jacobian", "-ts_discgrad2_ew_safeguard", "-ts_alpha_radius"};
  static PetscInt          nbefore  = -1;
  const char *const *names, *const *descriptions, *const *opts;
  PetscInt  n, nopts;
  PetscBool refused;

  PetscFunctionBegin;
  PetscCall(TSMechGetTypeNames(&n, &names, &descriptions));
  Check(!names[n] && !descriptions[n], "TSMechGetTypeNames(): the lists are not NULL-terminated");
  /* the 8 types of tsmech are a floor: a new one is listed by its registration alone */
  for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) Check(Count(n, names, own[i]) == 1, "TSMechGetTypeNames() lists %s %d times", own[i], (int)Count(n, names, own[i]));
  for (PetscInt i = 0; i < n; i++) Check(descriptions[i] && descriptions[i][0] && !strchr(descriptions[i], '\n'), "TSMechGetTypeNames(): %s has no one-line description", names[i]);
  Check(Count(n, names, "leapfrog2") == (registered ? 1 : 0), "TSMechGetTypeNames() lists leapfrog2 %d times (registered: %d)", (int)Count(n, names, "leapfrog2"), (int)registered);
  if (!registered) nbefore = n;
  else {
    Check(n == nbefore + 1 && !strcmp(names[n - 1], "leapfrog2") && !strcmp(descriptions[n - 1], Leapfrog2Description), "TSMechGetTypeNames() after TSMechRegister(): %d types (before %d), the last %s: %s", (int)n, (int)nbefore, names[n - 1], descriptions[n - 1]);
  }
  PetscCall(TSMechGetValuedOptions(&nopts, &opts));
  Check(!opts[nopts], "TSMechGetValuedOptions(): the list is not NULL-terminated");
  for (size_t i = 0; i < sizeof(valued) / sizeof(valued[0]); i++) Check(Count(nopts, opts, valued[i]) == 1, "TSMechGetValuedOptions() holds %s %d times", valued[i], (int)Count(nopts, opts, valued[i]));
  for (PetscInt i = 0; i < nopts; i++) Check(Count(nopts, opts, opts[i]) == 1 && opts[i][0] == '-', "TSMechGetValuedOptions(): %s is not an option listed once", opts[i]);
  Check(Count(nopts, opts, "-ts_leapfrog2_substeps") == (registered ? 1 : 0), "TSMechGetValuedOptions() holds -ts_leapfrog2_substeps %d times (registered: %d)", (int)Count(nopts, opts, "-ts_leapfrog2_substeps"), (int)registered);
  /* the driver's check takes the types' list: a type's own option is refused once it is registered */
  PetscCall(RefusedWithoutValue("-ts_leapfrog2_substeps", &refused));
  Check(refused == registered, "-ts_leapfrog2_substeps given without a value: refused %d, leapfrog2 registered %d", (int)refused, (int)registered);
  PetscCall(RefusedWithoutValue("-ts_gauss2_pc_rebuild_growth", &refused));
  Check(refused, "-ts_gauss2_pc_rebuild_growth given without a value was accepted");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s leapfrog2's registration: %d types listed with their descriptions, %d valued options\n", registered ? "after" : "before", (int)n, (int)nopts));
  PetscFunctionReturn(0);
}

/* -help's text of the options blocks, captured (PetscHelpPrintf) */
static char   HelpText[1 << 18];
static size_t HelpLen = 0;

/* PetscHelpPrintf while the options are read: appends to HelpText (every rank: the same text) */
static PetscErrorCode CaptureHelp(MPI_Comm comm, const char format[], ...)
{
  va_list ap;
  int     len;

  (void)comm;
  va_start(ap, format);
  len = vsnprintf(HelpText + HelpLen, sizeof(HelpText) - HelpLen, format, ap);
  va_end(ap);
  if (len > 0) HelpLen = PetscMin(HelpLen + (size_t)len, sizeof(HelpText) - 1);
  return 0;
}

/*
  The options that take a value which TSSetFromOptions() of a TS of the type prints under -help (an
  option block's line "  -<prefix>name <value : default>: ..."; a flag prints "-name: <...>"), under
  the prefix given, which is taken off; NULL-terminated, freed by PetscStrArrayDestroy(). PETSc
  prints the choices of an object's type (-ts_type, -ksp_type: generic) to stdout itself, not
  through PetscHelpPrintf: stdout is silenced meanwhile, and those are not seen.
*/
static PetscErrorCode HelpValuedOptions(const char type[], const char prefix[], char ***opts)
{
  PetscErrorCode (*saved)(MPI_Comm, const char[], ...) = PetscHelpPrintf;
  TS       ts;
  char    *line, *next, *list[512], want[64];
  PetscInt n   = 0;
  int      out = -1, null = -1;

  PetscFunctionBegin;
  HelpLen     = 0;
  HelpText[0] = 0;
  PetscCall(PetscOptionsSetValue(NULL, "-help", NULL));
  PetscHelpPrintf = CaptureHelp;
  PetscCheck(fflush(stdout) == 0 && (out = dup(fileno(stdout))) >= 0 && (null = open("/dev/null", O_WRONLY)) >= 0 && dup2(null, fileno(stdout)) >= 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "cannot silence stdout");
  PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
  PetscCall(TSSetOptionsPrefix(ts, prefix));
  PetscCall(TSSetType(ts, type));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(TSDestroy(&ts));
  PetscCheck(fflush(stdout) == 0 && dup2(out, fileno(stdout)) >= 0 && close(out) == 0 && close(null) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "cannot restore stdout");
  PetscHelpPrintf = saved;
  PetscCall(PetscOptionsClearValue(NULL, "-help"));
  PetscCall(PetscSNPrintf(want, sizeof(want), "-%s", prefix));
  for (line = HelpText; line && *line; line = next) {
    char *name = line + strspn(line, " "), *end;

    next = strchr(line, '\n');
    if (next) *next++ = 0;
    if (strncmp(name, want, strlen(want))) continue;
    end = strchr(name, ' ');
    if (!end || end[1] != '<' || end[-1] == ':') continue;
    /* "-h3_ts_theta_ne_rtol" -> "-ts_theta_ne_rtol" */
    *end = 0;
    Check(n < 511, "%s: more options than the test holds", type);
    list[n]    = name + strlen(want) - 1;
    list[n][0] = '-';
    n++;
  }
  list[n] = NULL;
  PetscCall(PetscStrArrayallocpy((const char *const *)list, opts));
  PetscFunctionReturn(0);
}

/* Every valued option a registered type's block prints under -help is in TSMechGetValuedOptions() */
static PetscErrorCode CheckValuedComplete(void)
{
  const char *const *names, *const *valued;
  PetscInt n, nvalued, nown = 0;
  char   **ref, **opts, prefix[32];

  PetscFunctionBegin;
  /* what PETSc's beuler prints too (TS, SNES, KSP, PC, controller) is no type's own */
  PetscCall(HelpValuedOptions(TSBEULER, "href_", &ref));
  Check(ref[0], "no option of beuler's seen under -help: the test reads the help text wrongly");
  PetscCall(TSMechGetTypeNames(&n, &names, NULL));
  PetscCall(TSMechGetValuedOptions(&nvalued, &valued));
  for (PetscInt t = 0; t < n; t++) {
    PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "h%d_", (int)t));
    PetscCall(HelpValuedOptions(names[t], prefix, &opts));
    for (PetscInt i = 0; opts[i]; i++) {
      PetscBool generic = PETSC_FALSE;

      for (PetscInt j = 0; ref[j] && !generic; j++) generic = strcmp(ref[j], opts[i]) ? PETSC_FALSE : PETSC_TRUE;
      if (generic) continue;
      nown++;
      Check(Count(nvalued, valued, opts[i]) == 1, "%s reads %s, which takes a value, but does not list it (its family's table, TSMechGetValuedOptions())", names[t], opts[i]);
    }
    PetscCall(PetscStrArrayDestroy(&opts));
  }
  PetscCall(PetscStrArrayDestroy(&ref));
  /* theta2's, the Newton object's under three prefixes, gauss2's stages, discgrad2's Jacobian, leapfrog2's substeps: many */
  Check(nown >= 20, "only %d valued options of the types seen under -help", (int)nown);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d valued options the types print under -help, all in their lists\n", (int)nown));
  PetscFunctionReturn(0);
}

/* TSMechRegister() refuses a bad description or list before it registers anything */
static PetscErrorCode CheckBadRegistrations(void)
{
  static const char *const nodash[] = {"ts_leapfrog3_substeps", NULL};
  PetscErrorCode           ierr[4];
  PetscErrorCode (*fn)(void) = NULL;
  const char *const *names;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr[0] = TSMechRegister("leapfrog3", Leapfrog2Description, TSCreate_Leapfrog2, Leapfrog2Properties, nodash);
  ierr[1] = TSMechRegister("leapfrog3", NULL, TSCreate_Leapfrog2, Leapfrog2Properties, NULL);
  ierr[2] = TSMechRegister("leapfrog3", "two\nlines", TSCreate_Leapfrog2, Leapfrog2Properties, NULL);
  ierr[3] = TSMechRegister(TSBDF, Leapfrog2Description, TSCreate_Leapfrog2, Leapfrog2Properties, NULL);
  PetscCall(PetscPopErrorHandler());
  Check(ierr[0] && ierr[1] && ierr[2], "TSMechRegister() accepted an option without its \"-\" (%d), no description (%d) or one of two lines (%d)", (int)!ierr[0], (int)!ierr[1], (int)!ierr[2]);
  Check(ierr[3], "TSMechRegister() of PETSc's bdf was accepted");
  PetscCall(PetscFunctionListFind(TSList, "leapfrog3", &fn));
  PetscCall(TSMechGetTypeNames(&n, &names, NULL));
  Check(!fn && !Count(n, names, "leapfrog3"), "a refused TSMechRegister() left leapfrog3 registered");
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscBool plain = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-plain_register", &plain, NULL));
  PetscCall(TSMechInitializePackage());
  if (plain) {
    /* the negative control: a type registered without its properties is given [q; v] */
    PetscCall(TSRegister("leapfrog2", TSCreate_Leapfrog2));
    PetscCall(CheckLeapfrog());
  } else {
    PetscErrorCode ierr;

    PetscCall(CheckTypeLists(PETSC_FALSE));
    PetscCall(TSMechRegister("leapfrog2", Leapfrog2Description, TSCreate_Leapfrog2, Leapfrog2Properties, Leapfrog2Valued));
    PetscCall(CheckTypeLists(PETSC_TRUE));
    PetscCall(CheckValuedComplete());
    PetscCall(CheckTable());
    PetscCall(CheckLeapfrog());
    /* a name taken is refused, tsmech's own too */
    PetscErrorCode ierr2;

    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr  = TSMechRegister("leapfrog2", Leapfrog2Description, TSCreate_Leapfrog2, Leapfrog2Properties, Leapfrog2Valued);
    ierr2 = TSMechRegister(TSMIDPOINT2, Leapfrog2Description, TSCreate_Leapfrog2, Leapfrog2Properties, NULL);
    PetscCall(PetscPopErrorHandler());
    Check(ierr, "a second TSMechRegister() of leapfrog2 was accepted");
    Check(ierr2, "TSMechRegister() of midpoint2 was accepted");
    PetscCall(CheckBadRegistrations());
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "names taken and bad lists refused\n"));
  }
  PetscCall(PetscFinalize());
  return 0;
}
