/*
  The tsmech program's messages: one-line errors from PETSc's (its dots and traceback left out, the
  option they concern found), printed once from rank 0, and which errors are bad input.
*/
/* strtok_r() is POSIX */
#define _POSIX_C_SOURCE 200809L
#include "driver.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The C library's printf formats: PETSc's turn %g of 3 into "3." */
PetscErrorCode Format(char buf[], size_t len, const char fmt[], ...)
{
  va_list ap;

  PetscFunctionBegin;
  va_start(ap, fmt);
  (void)vsnprintf(buf, len, fmt, ap);
  va_end(ap);
  PetscFunctionReturn(0);
}

/* Prints on rank 0 of comm */
PetscErrorCode Say(MPI_Comm comm, FILE *fd, const char fmt[], ...)
{
  va_list ap;
  char    buf[4096];

  PetscFunctionBegin;
  va_start(ap, fmt);
  (void)vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  /* what is said on stdout comes before what follows on stderr, and the other way round */
  (void)fflush(fd == PETSC_STDERR ? PETSC_STDOUT : PETSC_STDERR);
  PetscCall(PetscFPrintf(comm, fd, "%s", buf));
  (void)fflush(fd);
  PetscFunctionReturn(0);
}

/* Undoes PETSc's "3." for %g in a message: the dot ending a number that stands alone (after a
   space, '=', '(' or ',', before a space, ')', ',', ';', ':' or the end), not one in a file name */
static void StripPetscDots(char s[])
{
  size_t i, j = 0, k;

  for (i = 0; s[i]; i++) {
    if (s[i] == '.' && i > 0 && isdigit((unsigned char)s[i - 1]) && (!s[i + 1] || strchr(" ),;:", s[i + 1]))) {
      for (k = i; k > 0 && (isdigit((unsigned char)s[k - 1]) || strchr("+-.e", s[k - 1])); k--) {}
      if (k == 0 || strchr(" =(,", s[k - 1])) continue;
    }
    /* and "inf." and "nan." */
    if (s[i] == '.' && i >= 3 && (!strncmp(s + i - 3, "inf", 3) || !strncmp(s + i - 3, "nan", 3)) && (!s[i + 1] || strchr(" ),;:", s[i + 1]))) continue;
    s[j++] = s[i];
  }
  s[j] = 0;
}

/*
  The option a PETSc message is about, when it does not say: "Input string X has no numeric
  value" and "Unable to find requested KSP type X" name the value only. Returns "-name value: "
  for the option whose value is X (exactly, for "Input string X"; as a whole non-numeric word of
  the message otherwise), "" if none or several.
*/
static void OptionOfMessage(const char msg[], char prefix[], size_t len)
{
  char     *all = NULL, *tok, *save = NULL, name[256] = "", found[512] = "", exact[256] = "", foundname[256] = "", candidates[512] = "";
  int       nfound = 0;
  PetscBool valid  = PETSC_FALSE;
  /* PETSc's messages that give the value, and what follows it */
  static const char *const givers[][2] = {
      {"Input string ",           " "},
      {"Unknown logical value: ", "" }
  };

  prefix[0] = 0;
  for (size_t g = 0; g < sizeof(givers) / sizeof(givers[0]); g++) {
    const char *p = msg + strlen(givers[g][0]), *e;
    size_t      n;

    if (strncmp(msg, givers[g][0], strlen(givers[g][0]))) continue;
    e = givers[g][1][0] ? strstr(p, givers[g][1]) : NULL;
    n = e ? (size_t)(e - p) : strlen(p);
    if (n < sizeof(exact)) {
      memcpy(exact, p, n);
      exact[n] = 0;
    }
  }
  if (PetscOptionsGetAll(NULL, &all)) return;
  for (tok = strtok_r(all, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    if (tok[0] == '-' && !(tok[1] >= '0' && tok[1] <= '9') && tok[1] != '.') {
      (void)PetscStrncpy(name, tok, sizeof(name));
      valid = PETSC_TRUE;
      continue;
    }
    if (!valid) continue;
    valid = PETSC_FALSE; /* one value per option */
    if (exact[0]) {
      /* the value, or an element of a list (PETSc names the element it could not read) */
      const char *hit = strstr(tok, exact);
      size_t      n   = strlen(exact);

      while (hit && !((hit == tok || hit[-1] == ',') && (!hit[n] || hit[n] == ','))) hit = strstr(hit + 1, exact);
      if (!hit) continue;
    } else {
      const char *hit = strstr(msg, tok);
      size_t      n   = strlen(tok);
      char       *end;
      (void)strtod(tok, &end);
      if (!*end) continue; /* a number: too many messages contain numbers */
      if (!hit || (hit > msg && (isalnum((unsigned char)hit[-1]) || hit[-1] == '_')) || isalnum((unsigned char)hit[n]) || hit[n] == '_') continue;
    }
    nfound++;
    (void)PetscSNPrintf(found, sizeof(found), "%s %s: ", name, tok);
    (void)PetscStrncpy(foundname, name, sizeof(foundname));
    /* several options with the value PETSc names: each is named */
    if (exact[0] && strlen(candidates) + strlen(name) + strlen(tok) + 8 < sizeof(candidates)) {
      char one[600];

      (void)PetscSNPrintf(one, sizeof(one), "%s%s %s", candidates[0] ? " or " : "", name, tok);
      (void)PetscStrlcat(candidates, one, sizeof(candidates));
    }
  }
  (void)PetscFree(all);
  if (nfound == 1 && !strstr(msg, foundname)) (void)PetscStrncpy(prefix, found, len);
  else if (nfound > 1 && exact[0]) (void)PetscSNPrintf(prefix, len, "%s: ", candidates);
}

/* The message of error `ierr` (the one raised first), on one line, with the option it is about */
void ErrorLine(PetscErrorCode ierr, PetscBool withoption, char line[], size_t len)
{
  const char *text     = NULL;
  char       *specific = NULL, prefix[512] = "";
  size_t      i;

  (void)PetscErrorMessage(ierr, &text, &specific);
  if (!specific || !specific[0]) specific = (char *)(text ? text : "unknown error");
  if (withoption) OptionOfMessage(specific, prefix, sizeof(prefix));
  (void)PetscSNPrintf(line, len, "%s%s", prefix, specific);
  /* PETSc writes %g as "1." and messages may hold newlines */
  for (i = 0; line[i]; i++)
    if (line[i] == '\n' || line[i] == '\r' || line[i] == '\t') line[i] = ' ';
  for (i = strlen(line); i > 0 && line[i - 1] == ' '; i--) line[i - 1] = 0;
  StripPetscDots(line);
}

/* Whether an error code is of the kind that bad input raises (an argument, a type, an option) */
PetscBool IsInputError(PetscErrorCode ierr)
{
  switch (ierr) {
  case PETSC_ERR_SUP:
  case PETSC_ERR_ARG_WRONG:
  case PETSC_ERR_ARG_OUTOFRANGE:
  case PETSC_ERR_ARG_INCOMP:
  case PETSC_ERR_ARG_UNKNOWN_TYPE:
  case PETSC_ERR_ARG_SIZ:
  case PETSC_ERR_ARG_WRONGSTATE:
  case PETSC_ERR_USER_INPUT:
  case PETSC_ERR_FILE_OPEN:
  case PETSC_ERR_ORDER: /* a PETSc object missing a setting no option gives (at the first step) */
    return PETSC_TRUE;
  default:
    return PETSC_FALSE;
  }
}
