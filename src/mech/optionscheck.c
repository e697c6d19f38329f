/*
  Values of the options database that no option should take: numbers that are not finite, that
  overflow or underflow a double, that are subnormal, and integers that PETSc's 32-bit PetscInt
  would wrap (PETSc 3.18 reads "4294967301" as 5). PETSc parses each option only when it is read
  and accepts all of these; checking the database's text once, before anything reads it, refuses
  them with the option's name and the value as given.
*/
/* strtok_r() is POSIX */
#define _POSIX_C_SOURCE 200809L
#include <tsmech.h>
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Options whose values are names (files, types, prefixes), never numbers: "inf" is a file name there */
static PetscBool TakesName(const char name[])
{
  static const char *const suffixes[] = {"_type", "file", "output", "checkpoint", "restart", "_mesh", "prefix", "model", "_label", "_view", "_monitor", "help"};
  size_t                   n          = strlen(name), i;

  for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
    size_t m = strlen(suffixes[i]);
    if (n >= m && !strcmp(name + n - m, suffixes[i])) return PETSC_TRUE;
  }
  return PETSC_FALSE;
}

/* Whether a token is a decimal integer literal (an optional sign and digits) */
static PetscBool IsIntegerLiteral(const char tok[])
{
  const char *c = tok;

  if (*c == '+' || *c == '-') c++;
  if (!*c) return PETSC_FALSE;
  for (; *c; c++)
    if (!isdigit((unsigned char)*c)) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* Whether the whole token reads as a number (strtod(): decimal, hexadecimal, inf, nan) */
static PetscBool IsNumber(const char tok[])
{
  char *end;

  (void)strtod(tok, &end);
  return end != tok && !*end ? PETSC_TRUE : PETSC_FALSE;
}

/* Why a token that reads as a number is not one an option may take ("" if it may) */
static void CheckToken(const char tok[], char why[], size_t len)
{
  char  *end;
  double x;

  why[0] = 0;
  if (!tok[0]) return;
  errno = 0;
  x     = strtod(tok, &end);
  if (*end) return; /* not a number: a name, a list of names, a boolean */
  if (isnan(x) || isinf(x)) {
    if (errno == ERANGE) (void)PetscSNPrintf(why, len, "overflows a double (largest %g)", DBL_MAX);
    else (void)PetscSNPrintf(why, len, "not a finite number");
  } else if (x != 0 && fabs(x) < DBL_MIN) {
    (void)PetscSNPrintf(why, len, "below the smallest normal double %g (a subnormal number has lost its precision)", DBL_MIN);
  } else if (x == 0 && errno == ERANGE) {
    (void)PetscSNPrintf(why, len, "underflows a double to 0 (smallest normal %g)", DBL_MIN);
  } else if (IsIntegerLiteral(tok)) {
    long long i;

    errno = 0;
    i     = strtoll(tok, NULL, 10);
    if (errno == ERANGE || i > (long long)PETSC_MAX_INT || i < -(long long)PETSC_MAX_INT - 1)
      (void)PetscSNPrintf(why, len, "too large for PETSc's 32-bit integers (at most %d; a real value this large is written as %.1e)", (int)PETSC_MAX_INT, x);
  }
}

/*@C
  MechOptionsCheckNumbers - Refuses option values that read as numbers no option can take: NaN,
  infinities, values that overflow or underflow a double or are subnormal, and integer literals
  beyond PETSc's 32-bit `PetscInt` (which PETSc would wrap silently). Every comma-separated element
  of a value is checked; options whose values are names (files, types, prefixes) are skipped.

  Collective (every rank holds the same options database; each raises the same error)

  Input Parameters:
+ comm   - the communicator of the error
- prefix - check only the options whose names start with this (e.g. "-chain_"), or NULL for all

  Level: intermediate

  Notes:
  Call it before the options are read: PETSc accepts "-oscillator_m 1e-320" and "-chain_n 4294967298"
  (read as 2) without a word. `MechCreateModel()` calls it for the model's prefix.

.seealso: `MechCreateModel()`
@*/
PetscErrorCode MechOptionsCheckNumbers(MPI_Comm comm, const char prefix[])
{
  char     *all = NULL, *tok, *save = NULL, name[256] = "", why[256];
  PetscBool valid = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetAll(NULL, &all));
  for (tok = strtok_r(all, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    char *elem, *esave = NULL, copy[4096];

    /* an option name: "-" and what does not read as a number (-1e3 and -inf are values, as for PETSc) */
    if (tok[0] == '-' && !IsNumber(tok)) {
      PetscCall(PetscStrncpy(name, tok, sizeof(name)));
      valid = (!prefix || !strncmp(name, prefix, strlen(prefix))) && !TakesName(name) ? PETSC_TRUE : PETSC_FALSE;
      continue;
    }
    if (!valid) continue;
    PetscCall(PetscStrncpy(copy, tok, sizeof(copy)));
    for (elem = strtok_r(copy, ",", &esave); elem; elem = strtok_r(NULL, ",", &esave)) {
      CheckToken(elem, why, sizeof(why));
      if (why[0]) {
        char msg[4608];

        PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s %s: %s%s%s%s", name, tok, strcmp(elem, tok) ? "the element " : "", strcmp(elem, tok) ? elem : "", strcmp(elem, tok) ? " is " : "", why));
        PetscCall(PetscFree(all));
        SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "%s", msg);
      }
    }
  }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}

/*@C
  MechOptionsCheckValuesGiven - Refuses any of the options `names` given without a value: PETSc reads
  "-ts_dt", "-ts_dt ''" and no -ts_dt alike and keeps the default. Reads the database's text, which
  marks no option used (the report of unused options stays right).

  Collective (every rank holds the same options database; each raises the same error)

  Input Parameters:
+ comm  - the communicator of the error
. n     - the number of names
- names - the options that take a value, with their "-"

  Level: intermediate

.seealso: `MechOptionsCheckNumbers()`, `MechOptionsReal()`
@*/
PetscErrorCode MechOptionsCheckValuesGiven(MPI_Comm comm, PetscInt n, const char *const names[])
{
  char *all = NULL, *tok, *next, *save = NULL, name[256];

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetAll(NULL, &all));
  for (tok = strtok_r(all, " ", &save); tok; tok = next) {
    next = strtok_r(NULL, " ", &save);
    /* a name followed by another name (as MechOptionsCheckNumbers() tells them) or by nothing */
    if (tok[0] != '-' || IsNumber(tok) || (next && !(next[0] == '-' && !IsNumber(next)))) continue;
    for (PetscInt i = 0; i < n; i++) {
      if (strcmp(tok, names[i])) continue;
      PetscCall(PetscStrncpy(name, tok, sizeof(name)));
      PetscCall(PetscFree(all));
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "%s: needs a value; an empty value would keep the default", name);
    }
  }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}

/*
  An option of the block that must carry a value: refused when given without one, and (n > 0) when
  its value is not a list of exactly n non-empty comma-separated elements
*/
static PetscErrorCode OptionValueCheck(PetscOptionItems *items, const char opt[], PetscInt n, const char what[])
{
  const char *value;
  PetscBool   set;
  PetscInt    count = 1;
  const char *c;

  PetscFunctionBegin;
  PetscCall(PetscOptionsFindPair(items->options, items->prefix, opt, &value, &set));
  if (!set) PetscFunctionReturn(0);
  PetscCheck(value && value[0], items->comm, PETSC_ERR_ARG_WRONG, "%s%s: needs a value (%s); an empty value would keep the default", items->prefix ? items->prefix : "", opt, what);
  if (n <= 0) PetscFunctionReturn(0);
  for (c = value; *c; c++)
    if (*c == ',') count++;
  PetscCheck(count == n, items->comm, PETSC_ERR_ARG_SIZ, "%s %s: needs %" PetscInt_FMT " comma-separated values (%s), got %" PetscInt_FMT, opt, value, n, what, count);
  PetscCheck(value[0] != ',' && value[strlen(value) - 1] != ',' && !strstr(value, ",,"), items->comm, PETSC_ERR_ARG_WRONG, "%s %s: an element of the list is empty", opt, value);
  PetscFunctionReturn(0);
}

/*@C
  MechOptionsReal - `PetscOptionsReal()` for an option that must be given with a value: "-opt" or
  "-opt ''" is refused instead of keeping the default. Use it inside `PetscOptionsBegin()`.

  Level: intermediate

.seealso: `MechOptionsRealList()`, `MechOptionsCheckNumbers()`
@*/
PetscErrorCode MechOptionsReal_Private(PetscOptionItems *PetscOptionsObject, const char opt[], const char text[], const char man[], PetscReal cur, PetscReal *value, PetscBool *set)
{
  PetscFunctionBegin;
  PetscCall(OptionValueCheck(PetscOptionsObject, opt, 0, "a real number"));
  PetscCall(PetscOptionsReal(opt, text, man, cur, value, set));
  PetscFunctionReturn(0);
}

/*@C
  MechOptionsInt - `PetscOptionsInt()` for an option that must be given with a value.

  Level: intermediate

.seealso: `MechOptionsReal()`
@*/
PetscErrorCode MechOptionsInt_Private(PetscOptionItems *PetscOptionsObject, const char opt[], const char text[], const char man[], PetscInt cur, PetscInt *value, PetscBool *set)
{
  PetscFunctionBegin;
  PetscCall(OptionValueCheck(PetscOptionsObject, opt, 0, "an integer"));
  PetscCall(PetscOptionsInt(opt, text, man, cur, value, set));
  PetscFunctionReturn(0);
}

/*@C
  MechOptionsString - `PetscOptionsString()` for an option that must be given with a non-empty
  value (a file, a plane, a label): "-solid_mesh ''" is refused instead of meaning "none".

  Level: intermediate

.seealso: `MechOptionsReal()`
@*/
PetscErrorCode MechOptionsString_Private(PetscOptionItems *PetscOptionsObject, const char opt[], const char text[], const char man[], const char cur[], char value[], size_t len, PetscBool *set)
{
  PetscFunctionBegin;
  PetscCall(OptionValueCheck(PetscOptionsObject, opt, 0, "a name"));
  PetscCall(PetscOptionsString(opt, text, man, cur, value, len, set));
  PetscFunctionReturn(0);
}

/*@C
  MechOptionsEList - `PetscOptionsEList()` for an option that must be given with one of its values.

  Level: intermediate

.seealso: `MechOptionsReal()`
@*/
PetscErrorCode MechOptionsEList_Private(PetscOptionItems *PetscOptionsObject, const char opt[], const char text[], const char man[], const char *const *list, PetscInt ntext, const char cur[], PetscInt *value, PetscBool *set)
{
  PetscFunctionBegin;
  PetscCall(OptionValueCheck(PetscOptionsObject, opt, 0, "one of its choices"));
  PetscCall(PetscOptionsEList(opt, text, man, list, ntext, cur, value, set));
  PetscFunctionReturn(0);
}

/*@C
  MechOptionsRealList - `PetscOptionsRealArray()` for a list of exactly n reals: a list with more
  or fewer elements (PETSc drops extra ones silently), an empty element or no value is refused.

  Level: intermediate

.seealso: `MechOptionsIntList()`, `MechOptionsReal()`
@*/
PetscErrorCode MechOptionsRealList_Private(PetscOptionItems *PetscOptionsObject, const char opt[], const char text[], const char man[], PetscReal value[], PetscInt n, PetscBool *set)
{
  PetscInt nread = n;

  PetscFunctionBegin;
  PetscCall(OptionValueCheck(PetscOptionsObject, opt, n, n == 3 ? "x,y,z" : "real numbers"));
  PetscCall(PetscOptionsRealArray(opt, text, man, value, &nread, set));
  PetscCheck(!(set && *set) || nread == n, PetscOptionsObject->comm, PETSC_ERR_ARG_SIZ, "%s: needs %" PetscInt_FMT " comma-separated values, got %" PetscInt_FMT, opt, n, nread);
  PetscFunctionReturn(0);
}

/*@C
  MechOptionsIntList - `PetscOptionsIntArray()` for a list of exactly n integers.

  Level: intermediate

.seealso: `MechOptionsRealList()`
@*/
PetscErrorCode MechOptionsIntList_Private(PetscOptionItems *PetscOptionsObject, const char opt[], const char text[], const char man[], PetscInt value[], PetscInt n, PetscBool *set)
{
  PetscInt nread = n;

  PetscFunctionBegin;
  PetscCall(OptionValueCheck(PetscOptionsObject, opt, n, n == 3 ? "x,y,z" : "integers"));
  PetscCall(PetscOptionsIntArray(opt, text, man, value, &nread, set));
  PetscCheck(!(set && *set) || nread == n, PetscOptionsObject->comm, PETSC_ERR_ARG_SIZ, "%s: needs %" PetscInt_FMT " comma-separated values, got %" PetscInt_FMT, opt, n, nread);
  PetscFunctionReturn(0);
}
