/*
  Time functions phi(t) of loads and prescribed motions, parsed from an option's value:

    constant        phi = 1
    ramp:T          phi = t / T up to T, then 1
    hat:T1,T2       0 -> 1 linearly up to T1, 1 -> 0 up to T2, then 0
    sin:OMEGA       phi = sin(OMEGA t)
    table:FILE      two columns t, phi (t strictly increasing, at least two rows); linear in between,
                    the end values held outside

  with phi' and phi'' (those of the piecewise linear functions: phi'' = 0, and phi' at a kink is
  the slope that follows it). A table is read on rank 0 and broadcast; its values are checked
  (finite, t increasing) and its contents summed (CRC-32) so that a checkpoint can refuse a
  restart with another table behind the same name.
*/
#include "mechimpl.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
  MECH_TF_CONSTANT,
  MECH_TF_RAMP,
  MECH_TF_HAT,
  MECH_TF_SIN,
  MECH_TF_TABLE
} MechTimeFunctionType;

struct _n_MechTimeFunction {
  MechTimeFunctionType type;
  PetscReal            a, b;     /* T (ramp), T1, T2 (hat), OMEGA (sin) */
  PetscReal            kinks[2]; /* a hat's T1, T2 (MechTimeFunctionGetKinks()) */
  PetscInt             n;        /* table rows */
  PetscReal           *t, *phi;  /* table */
  char                 spec[PETSC_MAX_PATH_LEN + 64];
  unsigned int         crc; /* a table's contents' CRC-32 */
};

/* Reads one finite real from s (after optional blanks); *end after it */
static PetscBool ParseReal(const char *s, char **end, PetscReal *x)
{
  double v;

  errno = 0;
  v     = strtod(s, end);
  if (*end == s || errno == ERANGE || (!PetscIsNormalReal((PetscReal)v) && v != 0)) return PETSC_FALSE;
  *x = (PetscReal)v;
  return PETSC_TRUE;
}

/* CRC-32 (IEEE 802.3) of a buffer, the table's checksum */
static unsigned int Crc32(const unsigned char *buf, size_t len)
{
  unsigned int crc = 0xFFFFFFFFu;

  for (size_t i = 0; i < len; i++) {
    crc ^= buf[i];
    for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

/* A table's limits: its file (read whole) and its rows, counted before anything is allocated
   from the file's claims */
#define MECH_TF_TABLE_BYTES (64ULL * 1024 * 1024)
#define MECH_TF_TABLE_ROWS  1000000

/*
  The table FILE on rank 0: its rows, or the reason it is refused in why[]. The file is checked
  (a regular file of at most 64 MiB: MechFileReadAll()) and read whole; a NUL byte (a binary file)
  is refused, not taken as the end of the text, and so are more than 10^6 rows.
*/
static PetscErrorCode ReadTable(const char option[], const char file[], PetscInt *n, PetscReal **t, PetscReal **phi, unsigned int *crc, char why[], size_t len)
{
  size_t   size;
  char    *buf  = NULL, fwhy[256], shown[160];
  PetscInt rows = 0, cap = 0, line = 0;
  char    *c, *end;

  PetscFunctionBegin;
  why[0] = 0;
  *n     = 0;
  *t = *phi = NULL;
  PetscCall(MechFileReadAll(file, MECH_TF_TABLE_BYTES, &buf, &size, fwhy, sizeof(fwhy)));
  (void)MechOptionsShortValue(file, shown, sizeof(shown));
  if (!buf) {
    (void)PetscSNPrintf(why, len, "%s table:%s: %s", option, shown, fwhy);
    PetscFunctionReturn(0);
  }
  *crc = Crc32((const unsigned char *)buf, size);
  {
    const char *nul = memchr(buf, 0, size);

    if (nul) {
      PetscInt l = 1;

      for (const char *p = buf; p < nul; p++) l += *p == '\n';
      (void)PetscSNPrintf(why, len, "%s table:%s: line %" PetscInt_FMT " holds a NUL byte (byte %zu): not a text file of two columns t, phi", option, shown, l, (size_t)(nul - buf));
      PetscCall(PetscFree(buf));
      PetscFunctionReturn(0);
    }
  }
  for (c = buf; *c && !why[0];) {
    char     *eol = strchr(c, '\n'), *p;
    PetscReal x, y;

    line++;
    if (eol) *eol = 0;
    p = c;
    while (isspace((unsigned char)*p)) p++;
    if (*p && *p != '#') {
      if (!ParseReal(p, &end, &x) || !(*end == ' ' || *end == '\t' || *end == ',') || !ParseReal(end + (*end == ',' ? 1 : 0), &end, &y)) {
        (void)PetscSNPrintf(why, len, "%s table:%s: line %" PetscInt_FMT " is not two finite numbers t, phi", option, shown, line);
        break;
      }
      while (isspace((unsigned char)*end)) end++;
      if (*end && *end != '#') {
        (void)PetscSNPrintf(why, len, "%s table:%s: line %" PetscInt_FMT " has more than two columns", option, shown, line);
        break;
      }
      if (rows && x <= (*t)[rows - 1]) {
        (void)PetscSNPrintf(why, len, "%s table:%s: line %" PetscInt_FMT ": t = %g does not increase (the row before has t = %g)", option, shown, line, (double)x, (double)(*t)[rows - 1]);
        break;
      }
      if (rows == MECH_TF_TABLE_ROWS) {
        (void)PetscSNPrintf(why, len, "%s table:%s: more than %d rows (line %" PetscInt_FMT ")", option, shown, MECH_TF_TABLE_ROWS, line);
        break;
      }
      if (rows == cap) {
        PetscReal *nt, *np;

        cap = cap ? 2 * cap : 64;
        PetscCall(PetscMalloc2(cap, &nt, cap, &np));
        if (rows) {
          PetscCall(PetscArraycpy(nt, *t, rows));
          PetscCall(PetscArraycpy(np, *phi, rows));
        }
        PetscCall(PetscFree2(*t, *phi));
        *t   = nt;
        *phi = np;
      }
      (*t)[rows]   = x;
      (*phi)[rows] = y;
      rows++;
    }
    if (!eol) break;
    c = eol + 1;
  }
  PetscCall(PetscFree(buf));
  if (!why[0] && rows < 2) (void)PetscSNPrintf(why, len, "%s table:%s: needs at least two rows t, phi (it has %" PetscInt_FMT ")", option, shown, rows);
  if (why[0]) {
    PetscCall(PetscFree2(*t, *phi));
    rows = 0;
  }
  *n = rows;
  PetscFunctionReturn(0);
}

/*@C
  MechTimeFunctionCreate - Creates a time function phi(t) from its description.

  Collective

  Input Parameters:
+ comm   - the communicator (a table file is read on its rank 0)
. spec   - constant, ramp:T, hat:T1,T2, sin:OMEGA or table:FILE
- option - the option the description came from, for the error messages

  Output Parameter:
. tf - the time function

  Level: intermediate

  Notes:
  A description that does not parse, T <= 0, T2 <= T1 <= 0, a table whose t does not increase or
  that holds values that are not finite is refused with one line naming the option.

.seealso: `MechTimeFunctionEvaluate()`, `MechTimeFunctionGetDescription()`, `MechTimeFunctionDestroy()`
@*/
PetscErrorCode MechTimeFunctionCreate(MPI_Comm comm, const char spec[], const char option[], MechTimeFunction *tf)
{
  MechTimeFunction f;
  char            *end, shown[160];
  const char      *arg;

  PetscFunctionBegin;
  PetscValidCharPointer(spec, 2);
  PetscValidPointer(tf, 4);
  *tf = NULL;
  (void)MechOptionsShortValue(spec, shown, sizeof(shown));
  PetscCall(PetscNew(&f));
  arg = strchr(spec, ':') ? strchr(spec, ':') + 1 : NULL;
  if (!strcmp(spec, "constant")) {
    f->type = MECH_TF_CONSTANT;
  } else if (!strncmp(spec, "ramp:", 5)) {
    f->type = MECH_TF_RAMP;
    if (!ParseReal(arg, &end, &f->a) || *end || f->a <= 0) {
      PetscCall(PetscFree(f));
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "%s %s: ramp:T needs a positive time T", option, shown);
    }
  } else if (!strncmp(spec, "hat:", 4)) {
    f->type = MECH_TF_HAT;
    if (!ParseReal(arg, &end, &f->a) || *end != ',' || !ParseReal(end + 1, &end, &f->b) || *end || f->a <= 0 || f->b <= f->a) {
      PetscCall(PetscFree(f));
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "%s %s: hat:T1,T2 needs times 0 < T1 < T2", option, shown);
    }
  } else if (!strncmp(spec, "sin:", 4)) {
    f->type = MECH_TF_SIN;
    if (!ParseReal(arg, &end, &f->a) || *end) {
      PetscCall(PetscFree(f));
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "%s %s: sin:OMEGA needs a finite angular frequency OMEGA", option, shown);
    }
  } else if (!strncmp(spec, "table:", 6) && spec[6]) {
    PetscMPIInt  rank;
    char         why[PETSC_MAX_PATH_LEN + 256] = "";
    unsigned int crc                           = 0;

    f->type = MECH_TF_TABLE;
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    if (rank == 0) PetscCall(ReadTable(option, spec + 6, &f->n, &f->t, &f->phi, &crc, why, sizeof(why)));
    PetscCallMPI(MPI_Bcast(why, (PetscMPIInt)sizeof(why), MPI_CHAR, 0, comm));
    if (why[0]) {
      PetscCall(PetscFree2(f->t, f->phi));
      PetscCall(PetscFree(f));
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "%s", why);
    }
    PetscCallMPI(MPI_Bcast(&f->n, 1, MPIU_INT, 0, comm));
    PetscCallMPI(MPI_Bcast(&crc, 1, MPI_UNSIGNED, 0, comm));
    if (rank) PetscCall(PetscMalloc2(f->n, &f->t, f->n, &f->phi));
    PetscCallMPI(MPI_Bcast(f->t, (PetscMPIInt)f->n, MPIU_REAL, 0, comm));
    PetscCallMPI(MPI_Bcast(f->phi, (PetscMPIInt)f->n, MPIU_REAL, 0, comm));
    f->crc = crc;
    PetscCall(PetscSNPrintf(f->spec, sizeof(f->spec), "%s (crc32 %08x)", spec, crc));
  } else {
    PetscCall(PetscFree(f));
    SETERRQ(comm, PETSC_ERR_ARG_WRONG, "%s %s: unknown time function; allowed: constant, ramp:T, hat:T1,T2, sin:OMEGA, table:FILE", option, shown);
  }
  if (!f->spec[0]) PetscCall(PetscStrncpy(f->spec, spec, sizeof(f->spec)));
  *tf = f;
  PetscFunctionReturn(0);
}

/*@C
  MechTimeFunctionEvaluate - phi(t), phi'(t) and phi''(t).

  Not Collective

  Input Parameters:
+ tf - the time function (NULL: phi = 1)
- t  - the time

  Output Parameters:
+ phi   - phi(t) (may be NULL)
. dphi  - phi'(t) (may be NULL)
- ddphi - phi''(t) (may be NULL)

  Level: intermediate

.seealso: `MechTimeFunctionCreate()`
@*/
PetscErrorCode MechTimeFunctionEvaluate(MechTimeFunction tf, PetscReal t, PetscReal *phi, PetscReal *dphi, PetscReal *ddphi)
{
  PetscReal p = 1, d = 0, dd = 0;

  PetscFunctionBegin;
  if (tf) switch (tf->type) {
    case MECH_TF_CONSTANT:
      break;
    case MECH_TF_RAMP:
      p = t < 0 ? 0 : t < tf->a ? t / tf->a
                                : 1;
      d = t >= 0 && t < tf->a ? 1 / tf->a : 0;
      break;
    case MECH_TF_HAT:
      if (t < 0 || t >= tf->b) p = d = 0;
      else if (t < tf->a) {
        p = t / tf->a;
        d = 1 / tf->a;
      } else {
        p = (tf->b - t) / (tf->b - tf->a);
        d = -1 / (tf->b - tf->a);
      }
      break;
    case MECH_TF_SIN:
      p  = PetscSinReal(tf->a * t);
      d  = tf->a * PetscCosReal(tf->a * t);
      dd = -tf->a * tf->a * p;
      break;
    case MECH_TF_TABLE: {
      PetscInt lo = 0, hi = tf->n - 1;

      if (t <= tf->t[0]) p = tf->phi[0], d = 0;
      else if (t >= tf->t[hi]) p = tf->phi[hi], d = 0;
      else {
        /* the interval [t_lo, t_hi) that holds t */
        while (hi - lo > 1) {
          const PetscInt mid = (lo + hi) / 2;

          if (tf->t[mid] <= t) lo = mid;
          else hi = mid;
        }
        d = (tf->phi[hi] - tf->phi[lo]) / (tf->t[hi] - tf->t[lo]);
        p = tf->phi[lo] + d * (t - tf->t[lo]);
      }
    } break;
    }
  if (phi) *phi = p;
  if (dphi) *dphi = d;
  if (ddphi) *ddphi = dd;
  PetscFunctionReturn(0);
}

/*@C
  MechTimeFunctionGetDescription - The function's description as given, a table's with its
  checksum (what a checkpoint records to refuse a restart with another function).

  Not Collective

  Output Parameter:
. spec - the description, owned by the function

  Level: intermediate

.seealso: `MechTimeFunctionCreate()`
@*/
PetscErrorCode MechTimeFunctionGetDescription(MechTimeFunction tf, const char **spec)
{
  PetscFunctionBegin;
  *spec = tf ? tf->spec : "constant";
  PetscFunctionReturn(0);
}

/*@C
  MechTimeFunctionGetRecord - What a checkpoint or an output records of the function, so that a
  restart with another function is refused saying what changed: its description, a table's by its
  contents (rows, times and CRC-32, not its path: a table moved elsewhere is the same function).

  Not Collective

  Input Parameters:
+ tf  - the time function (NULL: constant)
- len - the size of rec (at least 128)

  Output Parameter:
. rec - the record, at most 255 characters (a text parameter, `MechSystemAddTextParameter()`)

  Level: intermediate

.seealso: `MechTimeFunctionGetDescription()`, `MechSystemAddTextParameter()`
@*/
PetscErrorCode MechTimeFunctionGetRecord(MechTimeFunction tf, char rec[], size_t len)
{
  char shown[160];

  PetscFunctionBegin;
  if (!tf) PetscCall(PetscSNPrintf(rec, len, "constant"));
  else if (tf->type == MECH_TF_TABLE) PetscCall(PetscSNPrintf(rec, len, "a table of %" PetscInt_FMT " rows, t from %.17g to %.17g, CRC-32 %08x", tf->n, (double)tf->t[0], (double)tf->t[tf->n - 1], tf->crc));
  else PetscCall(PetscSNPrintf(rec, len, "%s", MechOptionsShortValue(tf->spec, shown, sizeof(shown))));
  PetscFunctionReturn(0);
}

/*@C
  MechTimeFunctionGetChecksum - A number that stands for the function's description (a table's with
  its contents' checksum), in [0, 2^32): what a model records among its numeric parameters so
  that a restart with another time function is refused.

  Not Collective

  Level: intermediate

.seealso: `MechTimeFunctionGetDescription()`
@*/
PetscErrorCode MechTimeFunctionGetChecksum(MechTimeFunction tf, PetscReal *sum)
{
  const char *desc;

  PetscFunctionBegin;
  PetscCall(MechTimeFunctionGetDescription(tf, &desc));
  *sum = 0;
  for (const unsigned char *p = (const unsigned char *)desc; *p; p++) *sum = PetscFmodReal(*sum * 131 + *p, 4294967291.0);
  PetscFunctionReturn(0);
}

/*@C
  MechTimeFunctionDestroy - Destroys a time function.

  Not Collective

  Level: intermediate

.seealso: `MechTimeFunctionCreate()`
@*/
PetscErrorCode MechTimeFunctionDestroy(MechTimeFunction *tf)
{
  PetscFunctionBegin;
  if (!tf || !*tf) PetscFunctionReturn(0);
  PetscCall(PetscFree2((*tf)->t, (*tf)->phi));
  PetscCall(PetscFree(*tf));
  PetscFunctionReturn(0);
}

/*@C
  MechTimeFunctionGetKinks - The times where phi(t) is not smooth for t > 0: ramp:T at T, hat:T1,T2
  at T1 and T2, a table at every row; none for constant and sin (the kinks automatic incrementation
  lands on, `MechSystemAddTimeFunctionKinks()`).

  Not Collective

  Input Parameter:
. tf - the time function (NULL: constant)

  Output Parameters:
+ n     - how many
- times - the times, increasing, owned by the function (valid until it is destroyed)

  Level: intermediate

.seealso: `MechTimeFunctionCreate()`, `MechSystemAddKinks()`, `TSADAPTINCREMENT`
@*/
PetscErrorCode MechTimeFunctionGetKinks(MechTimeFunction tf, PetscInt *n, const PetscReal *times[])
{
  PetscFunctionBegin;
  PetscValidIntPointer(n, 2);
  PetscValidPointer(times, 3);
  *n     = 0;
  *times = NULL;
  if (!tf) PetscFunctionReturn(0);
  switch (tf->type) {
  case MECH_TF_RAMP:
    *n     = 1;
    *times = &tf->a;
    break;
  case MECH_TF_HAT:
    tf->kinks[0] = tf->a;
    tf->kinks[1] = tf->b;
    *n           = 2;
    *times       = tf->kinks;
    break;
  case MECH_TF_TABLE:
    *n     = tf->n;
    *times = tf->t;
    break;
  default:
    break;
  }
  PetscFunctionReturn(0);
}
