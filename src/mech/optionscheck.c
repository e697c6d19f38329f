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
#include <stdio.h>
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
  char       *all = NULL, *tok, *save = NULL, why[256];
  const char *name  = "";
  PetscBool   valid = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetAll(NULL, &all));
  for (tok = strtok_r(all, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    char *elem, *esave = NULL, *copy;

    /* an option name: "-" and what does not read as a number (-1e3 and -inf are values, as for PETSc) */
    if (tok[0] == '-' && !IsNumber(tok)) {
      name  = tok;
      valid = (!prefix || !strncmp(name, prefix, strlen(prefix))) && !TakesName(name) ? PETSC_TRUE : PETSC_FALSE;
      continue;
    }
    if (!valid) continue;
    PetscCall(PetscStrallocpy(tok, &copy));
    for (elem = strtok_r(copy, ",", &esave); elem; elem = strtok_r(NULL, ",", &esave)) {
      CheckToken(elem, why, sizeof(why));
      if (why[0]) {
        char msg[1024], shown[160], eshown[160];

        PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s %s: %s%s%s%s", name, MechOptionsShortValue(tok, shown, sizeof(shown)), strcmp(elem, tok) ? "the element " : "", strcmp(elem, tok) ? MechOptionsShortValue(elem, eshown, sizeof(eshown)) : "", strcmp(elem, tok) ? " is " : "", why));
        PetscCall(PetscFree(copy));
        PetscCall(PetscFree(all));
        SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "%s", msg);
      }
    }
    PetscCall(PetscFree(copy));
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
  char *all = NULL, *tok, *next, *save = NULL, name[512];

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

/* The longest element of a numeric option (a list's element): longer ones are refused with the
   option's name before PETSc parses them, so that its message (PETSc keeps 1023 characters of an
   error message) is never cut before the reason */
#define MECH_OPTIONS_NUMBER_LEN 255

/*@C
  MechOptionsShortValue - A value of an option or a path as a message shows it: whole when it has
  at most 96 characters, else its first 40 and last 40 characters around "..." and its length, so
  that a message about a 4 KiB value still says what is wrong within the 1023 characters PETSc
  keeps of an error message.

  Not Collective

  Input Parameters:
+ value - the value
- len   - the size of buf

  Output Parameter:
. buf - the value as shown

  Level: developer

.seealso: `MechOptionsString()`, `MechFileCheckRead()`
@*/
const char *MechOptionsShortValue(const char value[], char buf[], size_t len)
{
  size_t n = strlen(value);

  /* plain snprintf(): also used before PetscInitialize() (the driver's -options_file check) */
  if (n <= 96) (void)snprintf(buf, len, "%s", value);
  else (void)snprintf(buf, len, "%.40s...%s (%zu characters)", value, value + n - 40, n);
  return buf;
}

/*
  The one check of an option's value before a reader takes it (every reader of optionscheck.c
  calls it): given with a value (unless it may have none), that value no longer than `room`
  characters (the reader's buffer; 0 no limit: PETSc would cut a longer one silently), each
  element of a numeric option at most MECH_OPTIONS_NUMBER_LEN characters, and (n > 0) a list of
  exactly n non-empty comma-separated elements.
*/
static PetscErrorCode OptionValueCheck(MPI_Comm comm, PetscOptions options, const char prefix[], const char opt[], PetscBool novalue, size_t room, PetscBool numeric, PetscInt n, const char what[])
{
  const char *value;
  PetscBool   set;
  PetscInt    count = 1;
  const char *c, *start;
  char        shown[160];
  size_t      len;

  PetscFunctionBegin;
  PetscCall(PetscOptionsFindPair(options, prefix, opt, &value, &set));
  if (!set) PetscFunctionReturn(0);
  if (novalue && !(value && value[0])) PetscFunctionReturn(0);
  PetscCheck(value && value[0], comm, PETSC_ERR_ARG_WRONG, "%s%s: needs a value (%s); an empty value would keep the default", prefix ? prefix : "", opt, what);
  len = strlen(value);
  PetscCheck(!room || len <= room, comm, PETSC_ERR_ARG_SIZ, "%s%s: the value has %zu characters, more than the %zu this option takes; it is refused, not cut short", prefix ? prefix : "", opt, len, room);
  for (c = start = value;; c++) {
    if (*c == ',' || !*c) {
      PetscCheck(!numeric || (size_t)(c - start) <= MECH_OPTIONS_NUMBER_LEN, comm, PETSC_ERR_ARG_SIZ, "%s%s %s: an element has %zu characters, more than a number has (at most %d)", prefix ? prefix : "", opt, MechOptionsShortValue(value, shown, sizeof(shown)), (size_t)(c - start), MECH_OPTIONS_NUMBER_LEN);
      start = c + 1;
    }
    if (!*c) break;
    if (*c == ',') count++;
  }
  if (n <= 0) PetscFunctionReturn(0);
  PetscCheck(count == n, comm, PETSC_ERR_ARG_SIZ, "%s %s: needs %" PetscInt_FMT " comma-separated values (%s), got %" PetscInt_FMT, opt, MechOptionsShortValue(value, shown, sizeof(shown)), n, what, count);
  PetscCheck(value[0] != ',' && value[len - 1] != ',' && !strstr(value, ",,"), comm, PETSC_ERR_ARG_WRONG, "%s %s: an element of the list is empty", opt, MechOptionsShortValue(value, shown, sizeof(shown)));
  PetscFunctionReturn(0);
}

/* OptionValueCheck() of an option of an options block */
static PetscErrorCode ItemCheck(PetscOptionItems *items, const char opt[], PetscBool novalue, size_t room, PetscBool numeric, PetscInt n, const char what[])
{
  PetscFunctionBegin;
  PetscCall(OptionValueCheck(items->comm, items->options, items->prefix, opt, novalue, room, numeric, n, what));
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
  PetscCall(ItemCheck(PetscOptionsObject, opt, PETSC_FALSE, 0, PETSC_TRUE, 0, "a real number"));
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
  PetscCall(ItemCheck(PetscOptionsObject, opt, PETSC_FALSE, 0, PETSC_TRUE, 0, "an integer"));
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
  PetscCall(ItemCheck(PetscOptionsObject, opt, PETSC_FALSE, len - 1, PETSC_FALSE, 0, "a name"));
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
  PetscCall(ItemCheck(PetscOptionsObject, opt, PETSC_FALSE, 255, PETSC_FALSE, 0, "one of its choices"));
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
  PetscCall(ItemCheck(PetscOptionsObject, opt, PETSC_FALSE, 0, PETSC_TRUE, n, n == 3 ? "x,y,z" : "real numbers"));
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
  PetscCall(ItemCheck(PetscOptionsObject, opt, PETSC_FALSE, 0, PETSC_TRUE, n, n == 3 ? "x,y,z" : "integers"));
  PetscCall(PetscOptionsIntArray(opt, text, man, value, &nread, set));
  PetscCheck(!(set && *set) || nread == n, PetscOptionsObject->comm, PETSC_ERR_ARG_SIZ, "%s: needs %" PetscInt_FMT " comma-separated values, got %" PetscInt_FMT, opt, n, nread);
  PetscFunctionReturn(0);
}

/*@C
  MechOptionsBool - `PetscOptionsBool()` for a logical option: a value that is not one (PETSc says
  "Unknown logical value: 2" without the option's name) is refused naming the option. Use it
  inside `PetscOptionsBegin()`.

  Level: intermediate

.seealso: `MechOptionsReal()`
@*/
PetscErrorCode MechOptionsBool_Private(PetscOptionItems *PetscOptionsObject, const char opt[], const char text[], const char man[], PetscBool cur, PetscBool *value, PetscBool *set)
{
  static const char *const logical[] = {"true", "false", "yes", "no", "on", "off", "1", "0"};
  const char              *given;
  PetscBool                has, known = PETSC_FALSE;
  char                     shown[160];

  PetscFunctionBegin;
  PetscCall(ItemCheck(PetscOptionsObject, opt, PETSC_TRUE, 0, PETSC_FALSE, 0, "true or false"));
  PetscCall(PetscOptionsFindPair(PetscOptionsObject->options, PetscOptionsObject->prefix, opt, &given, &has));
  if (has && given && given[0]) {
    for (size_t i = 0; i < sizeof(logical) / sizeof(logical[0]) && !known; i++) PetscCall(PetscStrcasecmp(given, logical[i], &known));
    PetscCheck(known, PetscOptionsObject->comm, PETSC_ERR_ARG_WRONG, "%s %s: not a logical value; give true or false (yes or no, on or off, 1 or 0), or the option alone for true", opt, MechOptionsShortValue(given, shown, sizeof(shown)));
  }
  PetscCall(PetscOptionsBool(opt, text, man, cur, value, set));
  PetscFunctionReturn(0);
}

/*@C
  MechOptionsFList - `PetscOptionsFList()` for an option that must be given with one of the names
  of a function list, no longer than its buffer.

  Level: intermediate

.seealso: `MechOptionsString()`
@*/
PetscErrorCode MechOptionsFList_Private(PetscOptionItems *PetscOptionsObject, const char opt[], const char ltext[], const char man[], PetscFunctionList list, const char cur[], char value[], size_t len, PetscBool *set)
{
  PetscFunctionBegin;
  PetscCall(ItemCheck(PetscOptionsObject, opt, PETSC_FALSE, len - 1, PETSC_FALSE, 0, "one of its names"));
  PetscCall(PetscOptionsFList(opt, ltext, man, list, cur, value, len, set));
  PetscFunctionReturn(0);
}

/*@C
  MechOptionsGetString - `PetscOptionsGetString()` of the global options database (no prefix) with
  the checks of `MechOptionsString()`: a value longer than len - 1 characters is refused, not cut.

  Collective (every rank holds the same options database; each raises the same error)

  Input Parameters:
+ comm - the communicator of the error
. opt  - the option, with its "-"
- len  - the size of value

  Output Parameters:
+ value - the value, if given
- set   - whether it was given

  Level: intermediate

.seealso: `MechOptionsString()`
@*/
PetscErrorCode MechOptionsGetString(MPI_Comm comm, const char opt[], char value[], size_t len, PetscBool *set)
{
  PetscFunctionBegin;
  PetscCall(OptionValueCheck(comm, NULL, NULL, opt, PETSC_FALSE, len - 1, PETSC_FALSE, 0, "a name"));
  PetscCall(PetscOptionsGetString(NULL, NULL, opt, value, len, set));
  PetscFunctionReturn(0);
}
