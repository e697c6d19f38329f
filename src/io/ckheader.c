/*
  The header of a checkpoint: every attribute of /checkpoint, written and read in one order by
  one function (MechCkptHeaderFields()), with its datatype checked exactly, its value against its range
  and the header as a whole against its checksum (a digest of splitmix64 steps), and the read and
  validation of a checkpoint's header against this run (MechCkptReadHeader()).
*/
#define _POSIX_C_SOURCE 200809L
#include <petsc/private/viewerhdf5impl.h> /* PetscCallHDF5(); first, as it must precede <hdf5.h> */
#include "checkpointimpl.h"
#include <stdio.h>
#include <string.h>

#if defined(PETSC_HAVE_HDF5)

const char *const MechCkptVecNames[MECH_CKPT_NVEC] = {"q", "v", "v_previous", "q_previous"};

/* splitmix64's finalizer */
PETSC_INTERN uint64_t MechCkptMix64(uint64_t x)
{
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

enum {
  DIGEST_INT    = 1,
  DIGEST_REAL   = 2,
  DIGEST_STRING = 3
};

static void DigestWord(HeaderIO *io, uint64_t w)
{
  io->count++;
  io->digest = MechCkptMix64(io->digest ^ (w + io->count * 0x9e3779b97f4a7c15ULL));
}

/* the length, then the bytes in little-endian words of 8, the last one padded with zeros */
static void DigestBytes(HeaderIO *io, const char s[], size_t n)
{
  size_t i, k;

  DigestWord(io, (uint64_t)n);
  for (i = 0; i < n; i += 8) {
    uint64_t w = 0;
    for (k = 0; k < 8 && i + k < n; k++) w |= (uint64_t)(unsigned char)s[i + k] << (8 * k);
    DigestWord(io, w);
  }
}

static void DigestName(HeaderIO *io, const char prefix[], const char name[], int tag)
{
  char full[2 * MECH_CKPT_STRLEN];

  (void)snprintf(full, sizeof(full), "%s%s", prefix, name);
  DigestBytes(io, full, strlen(full));
  DigestWord(io, (uint64_t)tag);
}

static PetscErrorCode WriteAttr(hid_t obj, const char name[], hid_t ftype, hid_t mtype, const void *value)
{
  hid_t space, attr;

  PetscFunctionBegin;
  PetscCallHDF5Return(space, H5Screate, (H5S_SCALAR));
  PetscCallHDF5Return(attr, H5Acreate2, (obj, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT));
  PetscCallHDF5(H5Awrite, (attr, mtype, value));
  PetscCallHDF5(H5Aclose, (attr));
  PetscCallHDF5(H5Sclose, (space));
  PetscFunctionReturn(0);
}

/* An integer attribute of /checkpoint: 64-bit little-endian signed, within PetscInt's range */
PETSC_INTERN PetscErrorCode MechCkptIOInt(HeaderIO *io, const char name[], PetscInt *value)
{
  int64_t v = 0;

  PetscFunctionBegin;
  if (io->write) {
    v = (int64_t)*value;
    PetscCall(WriteAttr(io->group, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v));
  } else {
    if (io->problem[0]) PetscFunctionReturn(0);
    PetscCall(MechIOReadAttribute(io->group, "/checkpoint", name, MECH_IO_ATTR_INT64, &v, 0, NULL, io->problem, io->plen));
    if (io->problem[0]) PetscFunctionReturn(0);
    if (v < (int64_t)PETSC_MIN_INT || v > (int64_t)PETSC_MAX_INT) {
      PetscCall(PetscSNPrintf(io->problem, io->plen, "its attribute /checkpoint/%s = %lld is out of the range of PetscInt", name, (long long)v));
      PetscFunctionReturn(0);
    }
    *value = (PetscInt)v;
  }
  DigestName(io, "", name, DIGEST_INT);
  DigestWord(io, (uint64_t)v);
  PetscFunctionReturn(0);
}

static PetscErrorCode IOBool(HeaderIO *io, const char name[], PetscBool *value)
{
  PetscInt v = *value ? 1 : 0;

  PetscFunctionBegin;
  PetscCall(MechCkptIOInt(io, name, &v));
  /* the range (0 or 1) is checked with the others, after the digest */
  if (!io->write) *value = (PetscBool)v;
  PetscFunctionReturn(0);
}

/* A real attribute of group (/checkpoint or prefix "model_parameters/"): 64-bit little-endian */
static PetscErrorCode IORealIn(HeaderIO *io, hid_t group, const char prefix[], const char name[], PetscReal *value)
{
  double   v = 0;
  uint64_t bits;

  PetscFunctionBegin;
  if (io->write) {
    v = (double)*value;
    PetscCall(WriteAttr(group, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v));
  } else {
    char where[MECH_CKPT_STRLEN];

    if (io->problem[0]) PetscFunctionReturn(0);
    PetscCall(PetscSNPrintf(where, sizeof(where), "/checkpoint/%s", prefix));
    PetscCall(MechIOReadAttribute(group, where, name, MECH_IO_ATTR_REAL, &v, 0, NULL, io->problem, io->plen));
    if (io->problem[0]) PetscFunctionReturn(0);
    *value = (PetscReal)v;
  }
  memcpy(&bits, &v, sizeof(bits));
  DigestName(io, prefix, name, DIGEST_REAL);
  DigestWord(io, bits);
  PetscFunctionReturn(0);
}

static PetscErrorCode IOReal(HeaderIO *io, const char name[], PetscReal *value)
{
  PetscFunctionBegin;
  PetscCall(IORealIn(io, io->group, "", name, value));
  PetscFunctionReturn(0);
}

/* A string attribute of group (/checkpoint, or prefix "model_text_parameters/"), of at most len
   bytes with its NUL (an empty one is stored as a string of one byte, the NUL) */
static PetscErrorCode IOStringIn(HeaderIO *io, hid_t group, const char prefix[], const char name[], char value[], size_t len)
{
  PetscFunctionBegin;
  if (io->write) {
    hid_t  type;
    size_t n = strlen(value);

    PetscCheck(n < len, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The checkpoint attribute %s (%s) is longer than %zu characters", name, value, len - 1);
    PetscCallHDF5Return(type, H5Tcopy, (H5T_C_S1));
    PetscCallHDF5(H5Tset_size, (type, n + 1));
    PetscCallHDF5(H5Tset_strpad, (type, H5T_STR_NULLTERM));
    PetscCallHDF5(H5Tset_cset, (type, H5T_CSET_ASCII));
    PetscCall(WriteAttr(group, name, type, type, value));
    PetscCallHDF5(H5Tclose, (type));
  } else {
    char where[MECH_CKPT_STRLEN];

    if (io->problem[0]) PetscFunctionReturn(0);
    PetscCall(PetscSNPrintf(where, sizeof(where), "/checkpoint/%s", prefix));
    PetscCall(MechIOReadAttribute(group, where, name, MECH_IO_ATTR_STRING, value, len, NULL, io->problem, io->plen));
    if (io->problem[0]) PetscFunctionReturn(0);
  }
  DigestName(io, prefix, name, DIGEST_STRING);
  DigestBytes(io, value, strlen(value));
  PetscFunctionReturn(0);
}

/* A string attribute of /checkpoint, of at most len bytes with its NUL */
PETSC_INTERN PetscErrorCode MechCkptIOString(HeaderIO *io, const char name[], char value[], size_t len)
{
  PetscFunctionBegin;
  PetscCall(IOStringIn(io, io->group, "", name, value, len));
  PetscFunctionReturn(0);
}

/* A parameter of the TS family (TSMechSchemeForEachParameter()) */
static PetscErrorCode IOSchemeParameter(void *ctx, const char name[], TSMechParamKind kind, void *value)
{
  HeaderIO *io = (HeaderIO *)ctx;

  PetscFunctionBegin;
  if (kind == TSMECH_PARAM_REAL) PetscCall(IOReal(io, name, (PetscReal *)value));
  else if (kind == TSMECH_PARAM_FLAG) PetscCall(MechCkptIOInt(io, name, (PetscInt *)value));
  else PetscCall(MechCkptIOString(io, name, (char *)value, TSMECH_SCHEME_NAMELEN));
  PetscFunctionReturn(0);
}

/* The next name of a comma-separated list (from *pos; false at its end) */
static PetscBool NextName(const char list[], size_t *pos, char name[], size_t len)
{
  size_t i = *pos, n = 0;

  if (!list[i]) return PETSC_FALSE;
  while (list[i] && list[i] != ',') {
    if (n + 1 < len) name[n++] = list[i];
    i++;
  }
  name[n] = 0;
  *pos    = list[i] ? i + 1 : i;
  return PETSC_TRUE;
}

/* The number of names of a comma-separated list of parameter names; -1 if one is empty or too long */
static PetscInt CountNames(const char list[])
{
  char     name[MECH_CKPT_STRLEN];
  size_t   pos = 0, l;
  PetscInt n   = 0;

  while (NextName(list, &pos, name, sizeof(name))) {
    l = strlen(name);
    if (!l || l + 1 >= sizeof(name)) return -1;
    n++;
  }
  return n;
}

/*
  The text parameters (format version 3 on): the list model_text_parameters of /checkpoint, then
  one string attribute per name in the group /checkpoint/model_text_parameters
*/
static PetscErrorCode IOTextParameters(HeaderIO *io, HeaderFile *f)
{
  PetscInt i;
  size_t   pos;
  char     name[MECH_CKPT_STRLEN];

  PetscFunctionBegin;
  PetscCall(MechCkptIOString(io, "model_text_parameters", f->tlist, sizeof(f->tlist)));
  if (io->problem[0]) PetscFunctionReturn(0);
  if (!io->write) {
    f->nt = CountNames(f->tlist);
    if (f->nt < 0) {
      f->nt = 0;
      PetscCall(PetscSNPrintf(io->problem, io->plen, "its attribute /checkpoint/model_text_parameters is not a list of parameter names (the file is damaged)"));
      PetscFunctionReturn(0);
    }
    PetscCall(PetscFree(f->tvalues));
    PetscCall(PetscCalloc1(f->nt + 1, &f->tvalues));
    if (f->nt) {
      htri_t e;

      PetscCallHDF5Return(e, H5Lexists, (io->group, "model_text_parameters", H5P_DEFAULT));
      if (!e) {
        PetscCall(PetscSNPrintf(io->problem, io->plen, "it lacks the group /checkpoint/model_text_parameters"));
        PetscFunctionReturn(0);
      }
      PetscCallHDF5Return(io->texts, H5Gopen2, (io->group, "model_text_parameters", H5P_DEFAULT));
    }
  }
  for (i = 0, pos = 0; NextName(f->tlist, &pos, name, sizeof(name)); i++) PetscCall(IOStringIn(io, io->texts, "model_text_parameters/", name, f->tvalues[i], sizeof(f->tvalues[i])));
  PetscFunctionReturn(0);
}

/*
  All attributes of a checkpoint (but format and format_version, written first, and
  checksum_header and complete, written last), written or read and digested in one order. The
  attributes a TS family implies follow its ts_family.
*/
PETSC_INTERN PetscErrorCode MechCkptHeaderFields(HeaderIO *io, HeaderFile *f)
{
  Header  *h = &f->h;
  PetscInt i;
  size_t   pos;
  char     name[MECH_CKPT_STRLEN];

  PetscFunctionBegin;
  PetscCall(MechCkptIOString(io, "tsmech_version", f->tsmech_version, sizeof(f->tsmech_version)));
  PetscCall(MechCkptIOString(io, "petsc_version", f->petsc_version, sizeof(f->petsc_version)));
  PetscCall(MechCkptIOInt(io, "nranks", &f->nranks));
  PetscCall(MechCkptIOString(io, "model", f->model, sizeof(f->model)));
  PetscCall(MechCkptIOString(io, "model_parameters", f->plist, sizeof(f->plist)));
  if (io->problem[0]) PetscFunctionReturn(0);
  if (!io->write) {
    /* names that are attribute names: not empty, not too long */
    f->np = 0;
    for (pos = 0; NextName(f->plist, &pos, name, sizeof(name));) {
      size_t l;
      PetscCall(PetscStrlen(name, &l));
      if (!l || l + 1 >= sizeof(name)) {
        PetscCall(PetscSNPrintf(io->problem, io->plen, "its attribute /checkpoint/model_parameters is not a list of parameter names (the file is damaged)"));
        PetscFunctionReturn(0);
      }
      f->np++;
    }
    PetscCall(PetscFree(f->pvalues));
    PetscCall(PetscCalloc1(f->np + 1, &f->pvalues));
    if (f->np) {
      htri_t e;

      PetscCallHDF5Return(e, H5Lexists, (io->group, "model_parameters", H5P_DEFAULT));
      if (!e) {
        PetscCall(PetscSNPrintf(io->problem, io->plen, "it lacks the group /checkpoint/model_parameters"));
        PetscFunctionReturn(0);
      }
      PetscCallHDF5Return(io->params, H5Gopen2, (io->group, "model_parameters", H5P_DEFAULT));
    }
  }
  for (i = 0, pos = 0; NextName(f->plist, &pos, name, sizeof(name)); i++) PetscCall(IORealIn(io, io->params, "model_parameters/", name, &f->pvalues[i]));
  if (f->version >= 3) PetscCall(IOTextParameters(io, f));
  else {
    /* format version 2 had no text parameters */
    f->tlist[0] = 0;
    f->nt       = 0;
  }
  PetscCall(MechCkptIOInt(io, "global_size", &f->global_size));
  PetscCall(MechCkptIOInt(io, "step", &h->step));
  PetscCall(IOReal(io, "time", &h->time));
  PetscCall(IOReal(io, "dt", &h->dt));
  PetscCall(MechCkptIOString(io, "ts_type", h->tsp.type, sizeof(h->tsp.type)));
  PetscCall(MechCkptIOString(io, "adapt_type", h->tsp.adapt, sizeof(h->tsp.adapt)));
  PetscCall(MechCkptIOInt(io, "ts_family", &h->tsp.family));
  if (io->problem[0]) PetscFunctionReturn(0);
  PetscCall(TSMechSchemeForEachParameter(&h->tsp, IOSchemeParameter, io));
  PetscCall(IOBool(io, "has_previous", &h->hasvprev));
  PetscCall(IOBool(io, "has_previous_position", &h->hasqprev));
  PetscCall(IOReal(io, "previous_time", &h->tprev));
  PetscCall(MechCkptIOInt(io, "snes_its", &h->snes_its));
  PetscCall(MechCkptIOInt(io, "ksp_its", &h->ksp_its));
  PetscCall(MechCkptIOInt(io, "rejected", &h->reject));
  PetscCall(MechCkptIOInt(io, "snes_failures", &h->snes_failures));
  PetscCall(MechCkptIOInt(io, "adapt_decrease_count", &h->adapt_decrease));
  PetscCall(MechCkptIOInt(io, "failed_step", &h->failed));
  if (io->problem[0]) PetscFunctionReturn(0);
  for (i = 0; i < MECH_CKPT_NVEC; i++) {
    if ((i == 2 && !h->hasvprev) || (i == 3 && !h->hasqprev)) continue;
    PetscCall(PetscSNPrintf(name, sizeof(name), "checksum_%s", MechCkptVecNames[i]));
    PetscCall(MechCkptIOString(io, name, f->sum[i], sizeof(f->sum[i])));
  }
  PetscFunctionReturn(0);
}

/* 16 lowercase hexadecimal digits, as the writer prints a checksum */
static PetscBool ParseHex(const char s[], uint64_t *v)
{
  size_t i;

  *v = 0;
  for (i = 0; i < 16; i++) {
    char c = s[i];
    if (c >= '0' && c <= '9') *v = (*v << 4) | (uint64_t)(c - '0');
    else if (c >= 'a' && c <= 'f') *v = (*v << 4) | (uint64_t)(c - 'a' + 10);
    else return PETSC_FALSE;
  }
  return s[16] ? PETSC_FALSE : PETSC_TRUE;
}

/*
  The values of a header whose checksum matched, against the ranges they must have: a file
  written by something else than tsmech's writer (or by a faulty one) is refused as well.
*/
static PetscErrorCode CheckRanges(HeaderFile *f, char problem[], size_t len)
{
  Header  *h = &f->h;
  PetscInt i;

#define MECH_CKPT_BAD(...)                     \
  do {                                         \
    (void)snprintf(problem, len, __VA_ARGS__); \
    PetscFunctionReturn(0);                    \
  } while (0)
#define MECH_CKPT_FLAG(name, v) \
  if ((v) != 0 && (v) != 1) MECH_CKPT_BAD("its attribute /checkpoint/%s = %" PetscInt_FMT " is not 0 or 1", name, (PetscInt)(v))
#define MECH_CKPT_COUNT(name, v) \
  if ((v) < 0) MECH_CKPT_BAD("its attribute /checkpoint/%s = %" PetscInt_FMT " is negative", name, (PetscInt)(v))

  PetscFunctionBegin;
  if (f->nranks < 1) MECH_CKPT_BAD("its attribute /checkpoint/nranks = %" PetscInt_FMT " is not positive", f->nranks);
  if (h->step < 0 || h->step == PETSC_MAX_INT) MECH_CKPT_BAD("its step %" PetscInt_FMT " is not a step a run can continue from", h->step);
  if (PetscIsInfOrNanReal(h->time)) MECH_CKPT_BAD("its time %g is not a finite number", (double)h->time);
  if (PetscIsInfOrNanReal(h->dt) || !(h->dt > 0)) MECH_CKPT_BAD("its dt %g is not a finite positive number", (double)h->dt);
  if (PetscIsInfOrNanReal(h->tprev)) MECH_CKPT_BAD("its previous_time %g is not a finite number", (double)h->tprev);
  /* the scheme: its type, controller, family and parameters (the types and families of tsmech
     registered first: a program that only reads a file) */
  PetscCall(TSMechInitializePackage());
  PetscCall(TSMechSchemeCheck(&h->tsp, problem, len));
  if (problem[0]) PetscFunctionReturn(0);
  MECH_CKPT_FLAG("has_previous", h->hasvprev);
  MECH_CKPT_FLAG("has_previous_position", h->hasqprev);
  MECH_CKPT_FLAG("failed_step", h->failed);
  if (h->hasqprev && !h->hasvprev) MECH_CKPT_BAD("it has a previous position but no previous velocity");
  {
    PetscBool history;

    PetscCall(TSMechSchemeFamilyKeepsHistory(h->tsp.family, &history));
    if (h->hasvprev && (!history || h->failed)) MECH_CKPT_BAD("it has a previous velocity, which only a checkpoint of a type that keeps history (the theta2 family) after a successful step has");
  }
  if (h->hasvprev && !(h->tprev <= h->time)) MECH_CKPT_BAD("its previous_time %g is after its time %g", (double)h->tprev, (double)h->time);
  MECH_CKPT_COUNT("snes_its", h->snes_its);
  MECH_CKPT_COUNT("ksp_its", h->ksp_its);
  MECH_CKPT_COUNT("rejected", h->reject);
  MECH_CKPT_COUNT("snes_failures", h->snes_failures);
  MECH_CKPT_COUNT("adapt_decrease_count", h->adapt_decrease);
  h->nvec = 2 + (h->hasvprev ? 1 : 0) + (h->hasqprev ? 1 : 0);
  for (i = 0; i < h->nvec; i++)
    if (!ParseHex(f->sum[i], &h->sum[i])) MECH_CKPT_BAD("its attribute /checkpoint/checksum_%s is not a checksum", MechCkptVecNames[i]);
#undef MECH_CKPT_COUNT
#undef MECH_CKPT_FLAG
#undef MECH_CKPT_BAD
  PetscFunctionReturn(0);
}

/* The header against this run: the model, each of its parameters, the state's size */
static PetscErrorCode CheckRun(MechCheckpoint ck, HeaderFile *f, char problem[], size_t len)
{
  const char        *model;
  const char *const *pnames, *const *tnames, *const *texts;
  const PetscReal *pvalues;
  PetscInt         np, nt, i, k, N;
  size_t           pos;
  char             name[MECH_CKPT_STRLEN];

  PetscFunctionBegin;
  PetscCall(MechSystemGetModelName(ck->sys, &model));
  if (!model) model = "user";
  if (strcmp(f->model, model)) {
    PetscCall(PetscSNPrintf(problem, len, "it was written for model %s, this run is model %s", f->model, model));
    PetscFunctionReturn(0);
  }
  PetscCall(MechSystemGetParameters(ck->sys, &np, &pnames, &pvalues));
  PetscCall(MechSystemGetTextParameters(ck->sys, &nt, &tnames, &texts));
  /* a parameter this run records by name that an older checkpoint holds as a number (a code) */
  for (k = 0, pos = 0; NextName(f->plist, &pos, name, sizeof(name)); k++) {
    for (i = 0; i < nt; i++)
      if (!strcmp(name, tnames[i])) break;
    if (i < nt) {
      PetscCall(PetscSNPrintf(problem, len, "it records the model parameter %s as the number %g (an older format), this run records it by name, %s = %s; finish that run with the tsmech that wrote it, or start it anew", name, (double)f->pvalues[k], name, texts[i]));
      PetscFunctionReturn(0);
    }
  }
  for (pos = 0; NextName(f->plist, &pos, name, sizeof(name));) {
    for (i = 0; i < np; i++)
      if (!strcmp(name, pnames[i])) break;
    if (i == np) {
      PetscCall(PetscSNPrintf(problem, len, "it has the model parameter %s, which this run's %s does not have", name, model));
      PetscFunctionReturn(0);
    }
  }
  for (i = 0; i < np; i++) {
    for (k = 0, pos = 0; NextName(f->plist, &pos, name, sizeof(name)); k++)
      if (!strcmp(name, pnames[i])) break;
    if (k == f->np) {
      PetscCall(PetscSNPrintf(problem, len, "it lacks the model parameter %s of this run", pnames[i]));
      PetscFunctionReturn(0);
    }
    if (!(f->pvalues[k] == pvalues[i])) {
      PetscCall(PetscSNPrintf(problem, len, "it was written with the model parameter %s = %.17g, this run has %s = %.17g", pnames[i], (double)f->pvalues[k], pnames[i], (double)pvalues[i]));
      PetscFunctionReturn(0);
    }
  }
  if (f->np != np) {
    PetscCall(PetscSNPrintf(problem, len, "it has %" PetscInt_FMT " model parameters, this run %" PetscInt_FMT, f->np, np));
    PetscFunctionReturn(0);
  }
  /* the text parameters, each named with both values */
  for (k = 0, pos = 0; NextName(f->tlist, &pos, name, sizeof(name)); k++) {
    for (i = 0; i < nt; i++)
      if (!strcmp(name, tnames[i])) break;
    if (i == nt) {
      PetscCall(PetscSNPrintf(problem, len, "it has the model parameter %s = %s, which this run's %s does not have", name, f->tvalues[k], model));
      PetscFunctionReturn(0);
    }
  }
  for (i = 0; i < nt; i++) {
    for (k = 0, pos = 0; NextName(f->tlist, &pos, name, sizeof(name)); k++)
      if (!strcmp(name, tnames[i])) break;
    if (k == f->nt) {
      PetscCall(PetscSNPrintf(problem, len, "it lacks the model parameter %s of this run (%s = %s)%s", tnames[i], tnames[i], texts[i], f->version < 3 ? ": it was written by a tsmech that recorded no text parameters" : ""));
      PetscFunctionReturn(0);
    }
    if (strcmp(f->tvalues[k], texts[i])) {
      PetscCall(PetscSNPrintf(problem, len, "it was written with the model parameter %s = %s, this run has %s = %s", tnames[i], f->tvalues[k], tnames[i], texts[i]));
      PetscFunctionReturn(0);
    }
  }
  PetscCall(VecGetSize(ck->vec[0], &N));
  if (f->global_size != N) PetscCall(PetscSNPrintf(problem, len, "its state has %" PetscInt_FMT " values, this run's %" PetscInt_FMT, f->global_size, N));
  PetscFunctionReturn(0);
}

/* MechCkptReadHeader() on the open group /checkpoint (io->group) */
static PetscErrorCode ReadHeaderGroup(MechCheckpoint ck, HeaderIO *io, HeaderFile *f)
{
  char     *problem = io->problem, hex[MECH_CKPT_STRLEN];
  size_t    len     = io->plen;
  PetscBool found;
  int64_t   v = 0;
  uint64_t  sum;
  PetscInt  i;

  PetscFunctionBegin;
  PetscCall(MechIOReadAttribute(io->group, "/checkpoint", "format", MECH_IO_ATTR_STRING, f->format, sizeof(f->format), &found, problem, len));
  if (problem[0]) PetscFunctionReturn(0);
  if (!found || strcmp(f->format, MECH_CHECKPOINT_FORMAT)) {
    PetscCall(PetscSNPrintf(problem, len, "it is not a tsmech checkpoint (no /checkpoint group with format \"%s\")", MECH_CHECKPOINT_FORMAT));
    PetscFunctionReturn(0);
  }
  /* the version first, of either integer size, for a clear message about another version */
  PetscCall(MechIOReadAttribute(io->group, "/checkpoint", "format_version", MECH_IO_ATTR_INT, &v, 0, NULL, problem, len));
  if (problem[0]) PetscFunctionReturn(0);
  if (v < MECH_CKPT_OLDEST_VERSION || v > MECH_CHECKPOINT_FORMAT_VERSION) {
    if (v == 1) PetscCall(PetscSNPrintf(problem, len, "its format version is 1, this tsmech (%s) reads versions %d to %d: version 1 has no checksum of its header, so it cannot be continued safely; finish the run with the tsmech that wrote it, or start it anew", TSMECH_VERSION, MECH_CKPT_OLDEST_VERSION, MECH_CHECKPOINT_FORMAT_VERSION));
    else PetscCall(PetscSNPrintf(problem, len, "its format version is %lld, this tsmech (%s) reads versions %d to %d", (long long)v, TSMECH_VERSION, MECH_CKPT_OLDEST_VERSION, MECH_CHECKPOINT_FORMAT_VERSION));
    PetscFunctionReturn(0);
  }
  PetscCall(MechIOReadAttribute(io->group, "/checkpoint", "complete", MECH_IO_ATTR_INT64, &v, 0, &found, problem, len));
  if (problem[0]) PetscFunctionReturn(0);
  if (!found || v != 1) {
    PetscCall(PetscSNPrintf(problem, len, "it is incomplete (its write was interrupted)"));
    PetscFunctionReturn(0);
  }

  /* every attribute, its datatype checked, and the digest of their values */
  io->digest = MECH_CKPT_DIGEST_SEED;
  io->count  = 0;
  PetscCall(MechCkptIOString(io, "format", f->format, sizeof(f->format)));
  PetscCall(MechCkptIOInt(io, "format_version", &f->version));
  PetscCall(MechCkptHeaderFields(io, f));
  if (problem[0]) PetscFunctionReturn(0);
  PetscCall(MechIOReadAttribute(io->group, "/checkpoint", "checksum_header", MECH_IO_ATTR_STRING, hex, sizeof(hex), NULL, problem, len));
  if (problem[0]) PetscFunctionReturn(0);
  if (!ParseHex(hex, &sum) || sum != io->digest) {
    PetscCall(PetscSNPrintf(problem, len, "its header does not match its checksum /checkpoint/checksum_header (the file is corrupted)"));
    PetscFunctionReturn(0);
  }
  PetscCall(CheckRanges(f, problem, len));
  if (problem[0]) PetscFunctionReturn(0);
  PetscCall(CheckRun(ck, f, problem, len));
  if (problem[0]) PetscFunctionReturn(0);

  /* the datasets: their datatype and shape, before VecLoad() reads them */
  for (i = 0; i < MECH_CKPT_NVEC; i++) {
    int     ndims;
    hsize_t dims[4];

    if ((i == 2 && !f->h.hasvprev) || (i == 3 && !f->h.hasqprev)) continue;
    PetscCall(MechIOVecDims(ck->vec[i], &ndims, dims));
    PetscCall(MechIOCheckDataset(io->group, "/checkpoint", MechCkptVecNames[i], H5T_IEEE_F64LE, ndims, dims, PETSC_FALSE, NULL, NULL, problem, len));
    if (problem[0]) PetscFunctionReturn(0);
  }
  PetscFunctionReturn(0);
}

/*
  Reads the header of an open checkpoint and validates it (datatypes, checksum, ranges) and
  against the system: sets `problem` (empty if none) for a file that is not a complete, intact
  checkpoint of this format, model, parameters and size. Errors of the reads themselves are
  returned (a damaged file). Not collective: every rank reads the same.
*/
PETSC_INTERN PetscErrorCode MechCkptReadHeader(MechCheckpoint ck, hid_t fileid, HeaderFile *f, char problem[], size_t len)
{
  hid_t      obj;
  htri_t     e;
  H5I_type_t type = H5I_BADID;
  HeaderIO   io;

  PetscFunctionBegin;
  problem[0] = 0;
  PetscCallHDF5Return(e, H5Lexists, (fileid, "checkpoint", H5P_DEFAULT));
  if (e) {
    PetscCallHDF5Return(obj, H5Oopen, (fileid, "checkpoint", H5P_DEFAULT));
    PetscCallHDF5Return(type, H5Iget_type, (obj));
    PetscCallHDF5(H5Oclose, (obj));
  }
  if (type != H5I_GROUP) {
    PetscCall(PetscSNPrintf(problem, len, "it is not a tsmech checkpoint (no /checkpoint group with format \"%s\")", MECH_CHECKPOINT_FORMAT));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMemzero(&io, sizeof(io)));
  io.problem = problem;
  io.plen    = len;
  io.params  = -1;
  io.texts   = -1;
  PetscCallHDF5Return(io.group, H5Gopen2, (fileid, "checkpoint", H5P_DEFAULT));
  PetscCall(ReadHeaderGroup(ck, &io, f));
  if (io.params >= 0) PetscCallHDF5(H5Gclose, (io.params));
  if (io.texts >= 0) PetscCallHDF5(H5Gclose, (io.texts));
  PetscCallHDF5(H5Gclose, (io.group));
  PetscFunctionReturn(0);
}

#endif
