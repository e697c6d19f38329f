/*
  In-process fuzzing of a restart (run by fuzz_restart.py under mpiexec): for each case of a list,
  a copy of a checkpoint (alone), or of an output file (with the intact checkpoint), with one byte
  changed is given to the restart path of the tsmech program (MechCheckpointLoad(), MechCheckpointRestore(), MechOutputContinue(),
  TSSolve() to the end, MechOutputClose()), all in this one process, so that thousands of cases
  take seconds. Each case is reported on one line of the report file:

    KIND OFFSET XOR refused MESSAGE   the load (or the continuation) refused it
    KIND OFFSET XOR same              accepted, and the final q and v are bit for bit those of
                                      the restart from the intact files
    KIND OFFSET XOR DIFFERENT         accepted with another result (a failure)
    KIND OFFSET XOR ERROR MESSAGE     an error after the file was accepted (a failure)
    KIND OFFSET XOR LEFT_OPEN MESSAGE HDF5 objects stayed open after the case (a failure: HDF5
                                      would loop over them at the program's exit)
    KIND OFFSET XOR NOISE TEXT        something was printed on a rank's stderr during the case
                                      (a failure: tsmech's refusal is one line, its own)

  KIND is ck or out. Before each case "start KIND OFFSET XOR" is written (and flushed), so a crash
  names its case. An accepted output is kept as DIR/out_OFFSET_XOR.h5 for the caller's checks.

  Options: -fuzz_checkpoint CK.h5 -fuzz_output OUT.h5 -fuzz_final REF.h5 (the uninterrupted run's
  final checkpoint: the restart from the intact files must end there) -fuzz_cases FILE (lines
  "KIND OFFSET XOR") -fuzz_dir DIR -fuzz_report FILE -fuzz_every N (-output_every of the runs),
  and the model and TS options of the runs. A case line may name a file after KIND OFFSET XOR:
  that file is then the checkpoint (or output) of the case, as it is.
*/
#include <tsmech.h>
#include <petscviewerhdf5.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
  MPI_Comm    comm;
  PetscMPIInt rank;
  char        model[64], ck[PETSC_MAX_PATH_LEN], out[PETSC_MAX_PATH_LEN], dir[PETSC_MAX_PATH_LEN];
  PetscInt    every;
  MechSystem  sys;
  Vec         qref, vref; /* the final state of the restart from the intact files */
} Fuzz;

/* rank 0: src with the byte at offset XORed into dst (offset < 0: an intact copy) */
static PetscErrorCode MutatedCopy(Fuzz *fz, const char src[], const char dst[], long offset, int xor)
{
  FILE          *in, *out;
  unsigned char *buf;
  long           n;

  PetscFunctionBegin;
  if (fz->rank == 0) {
    in = fopen(src, "rb");
    PetscCheck(in, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot read %s", src);
    fseek(in, 0, SEEK_END);
    n = ftell(in);
    fseek(in, 0, SEEK_SET);
    PetscCall(PetscMalloc1(n + 1, &buf));
    PetscCheck((long)fread(buf, 1, n, in) == n, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Cannot read %s", src);
    fclose(in);
    PetscCheck(offset < n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Offset %ld beyond the %ld bytes of %s", offset, n, src);
    if (offset >= 0) buf[offset] ^= (unsigned char)xor;
    out = fopen(dst, "wb");
    PetscCheck(out, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s", dst);
    PetscCheck((long)fwrite(buf, 1, n, out) == n, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write %s", dst);
    fclose(out);
    PetscCall(PetscFree(buf));
  }
  PetscCallMPI(MPI_Barrier(fz->comm));
  PetscFunctionReturn(0);
}

/* The last error's message, on one line if it is one line */
static void ErrorText(PetscErrorCode ierr, char msg[], size_t len)
{
  const char *text     = NULL;
  char       *specific = NULL;

  (void)PetscErrorMessage(ierr, &text, &specific);
  (void)PetscSNPrintf(msg, len, "%s", specific && specific[0] ? specific : (text ? text : "unknown error"));
}

/* What one restart creates */
typedef struct {
  TS             ts;
  MechCheckpoint ck;
  MechOutput     out;
} Run;

/*
  One restart, as the tsmech program makes it: from the checkpoint ckfile and, if outfile is
  given, continuing that output. *stage tells where an error came: 0 the checkpoint was refused,
  1 after it was accepted, 2 the output was refused, 3 after both were accepted; 4: the run
  completed (q, v: its final state).
*/
static PetscErrorCode Restart(Fuzz *fz, Run *r, const char ckfile[], const char outfile[], Vec q, Vec v, int *stage)
{
  TSAdapt     adapt;
  TSAdaptType atype;
  PetscBool   none;

  PetscFunctionBegin;
  *stage = 0;
  PetscCall(TSCreate(fz->comm, &r->ts));
  PetscCall(TSSetType(r->ts, TSMIDPOINT2));
  PetscCall(TSMechSetSystem(r->ts, fz->sys));
  PetscCall(TSSetTimeStep(r->ts, 1e-3));
  PetscCall(TSSetMaxTime(r->ts, 1.0));
  PetscCall(TSSetMaxSteps(r->ts, PETSC_MAX_INT));
  PetscCall(TSSetExactFinalTime(r->ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(MechCheckpointCreate(fz->sys, r->ts, &r->ck));
  PetscCall(MechCheckpointLoad(r->ck, r->ts, ckfile));
  *stage = 1;
  PetscCall(TSSetFromOptions(r->ts));
  PetscCall(TSSetErrorIfStepFails(r->ts, PETSC_FALSE));
  PetscCall(TSGetAdapt(r->ts, &adapt));
  PetscCall(TSAdaptGetType(adapt, &atype));
  PetscCall(PetscStrcmp(atype, TSADAPTNONE, &none));
  if (!none) PetscCall(TSSetMaxSNESFailures(r->ts, -1));
  PetscCall(MechCheckpointRestore(r->ck, r->ts, q, v));
  PetscCall(TSSetUp(r->ts));
  *stage = 2;
  if (outfile) PetscCall(MechOutputContinue(fz->sys, r->ts, outfile, fz->every, &r->out));
  *stage = 3;
  if (r->out) PetscCall(TSMonitorSet(r->ts, TSMonitorMechOutput, r->out, NULL));
  PetscCall(TSSolve(r->ts, NULL));
  if (r->out) PetscCall(MechOutputClose(r->out, r->ts));
  PetscCall(TSMechGetSolution(r->ts, q, v));
  *stage = 4;
  PetscFunctionReturn(0);
}

/* Restart() with its errors returned silently; what it created is destroyed in any case */
static PetscErrorCode TryRestart(Fuzz *fz, const char ckfile[], const char outfile[], Vec q, Vec v, int *stage, char msg[], size_t len)
{
  PetscErrorCode ierr;
  Run            r = {NULL, NULL, NULL};

  PetscFunctionBegin;
  msg[0] = 0;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = Restart(fz, &r, ckfile, outfile, q, v, stage);
  if (ierr) ErrorText(ierr, msg, len);
  (void)MechOutputDestroy(&r.out);
  (void)MechCheckpointDestroy(&r.ck);
  (void)TSDestroy(&r.ts);
  PetscCall(PetscPopErrorHandler());
  PetscFunctionReturn(0);
}

static PetscErrorCode RunCase(Fuzz *fz, FILE *report, const char kind[], long offset, int xor, const char source[])
{
  char      ckfile[PETSC_MAX_PATH_LEN], outfile[PETSC_MAX_PATH_LEN], msg[4096];
  Vec       q, v;
  int       stage;
  PetscBool isck, same = PETSC_FALSE, sv;
  ssize_t   nopen;
  char      errname[PETSC_MAX_PATH_LEN], noisetext[512] = "on another rank";
  int       saved, fd, noise;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(kind, "ck", &isck));
  if (fz->rank == 0) {
    fprintf(report, "start %s %ld %d\n", kind, offset, xor);
    fflush(report);
  }
  PetscCall(PetscSNPrintf(ckfile, sizeof(ckfile), "%s/ck_%ld_%d.h5", fz->dir, offset, xor));
  PetscCall(PetscSNPrintf(outfile, sizeof(outfile), "%s/out_%ld_%d.h5", fz->dir, offset, xor));
  /* a case with a source file of its own takes it as it is, in place of the damaged copy */
  PetscCall(MutatedCopy(fz, isck && source[0] ? source : fz->ck, ckfile, isck && !source[0] ? offset : -1, xor));
  if (!isck) PetscCall(MutatedCopy(fz, source[0] ? source : fz->out, outfile, source[0] ? -1 : offset, xor));
  PetscCall(MechSystemCreateState(fz->sys, &q, &v));
  /* the case's stderr, of every rank, goes to a file of its own */
  PetscCall(PetscSNPrintf(errname, sizeof(errname), "%s/stderr_%d.txt", fz->dir, (int)fz->rank));
  fflush(stderr);
  saved = dup(2);
  fd    = open(errname, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  PetscCheck(saved >= 0 && fd >= 0 && dup2(fd, 2) >= 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "Cannot redirect stderr to %s", errname);
  close(fd);
  PetscCall(TryRestart(fz, ckfile, isck ? NULL : outfile, q, v, &stage, msg, sizeof(msg)));
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  {
    struct stat st;
    FILE       *fe;

    noise = (!stat(errname, &st) && st.st_size > 0) ? 1 : 0;
    if (noise && (fe = fopen(errname, "r"))) {
      size_t k     = fread(noisetext, 1, sizeof(noisetext) - 1, fe);
      noisetext[k] = 0;
      fclose(fe);
    }
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &noise, 1, MPI_INT, MPI_MAX, fz->comm));
  }
  if (stage == 4) {
    PetscCall(VecEqual(q, fz->qref, &same));
    PetscCall(VecEqual(v, fz->vref, &sv));
    same = same && sv ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  /* nothing stays open: a file left open would make HDF5 loop at the program's exit */
  nopen = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE | H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE | H5F_OBJ_ATTR);
  if (nopen > 0) {
    hid_t  *ids;
    ssize_t k, m;

    /* closed here, so that the next cases start clean */
    PetscCall(PetscMalloc1(nopen, &ids));
    m = H5Fget_obj_ids(H5F_OBJ_ALL, H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE | H5F_OBJ_ATTR, nopen, ids);
    for (k = 0; k < m; k++) (void)(H5Iget_type(ids[k]) == H5I_ATTR ? H5Aclose(ids[k]) : H5Oclose(ids[k]));
    m = H5Fget_obj_ids(H5F_OBJ_ALL, H5F_OBJ_FILE, nopen, ids);
    for (k = 0; k < m; k++) (void)H5Fclose(ids[k]);
    PetscCall(PetscFree(ids));
  }
  if (fz->rank == 0) {
    const char *result = noise ? "NOISE" : nopen    ? "LEFT_OPEN"
                                       : stage == 4 ? (same ? "same" : "DIFFERENT")
                                                    : ((stage == 0 || stage == 2) ? "refused" : "ERROR");
    char       *nl;

    /* a message of more than one line is reported as such */
    if (noise) PetscCall(PetscStrncpy(msg, noisetext, sizeof(msg)));
    while ((nl = strchr(msg, '\n'))) *nl = '|';
    fprintf(report, "%s %ld %d %s %s\n", kind, offset, xor, result, msg);
    fflush(report);
    (void)remove(ckfile);
    /* an accepted output stays for the caller's checks */
    if (stage != 4 || isck) (void)remove(outfile);
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Fuzz        fz;
  char        cases[PETSC_MAX_PATH_LEN], final[PETSC_MAX_PATH_LEN], reportname[PETSC_MAX_PATH_LEN], msg[4096], line[256];
  FILE       *report = NULL, *list = NULL;
  PetscViewer viewer;
  Vec         q, v;
  int         stage;
  PetscBool   same, sv;
  long        n = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(TSMechInitializePackage());
  PetscCall(PetscMemzero(&fz, sizeof(fz)));
  fz.comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(fz.comm, &fz.rank));
  PetscCall(PetscStrncpy(fz.model, "chain", sizeof(fz.model)));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-model", fz.model, sizeof(fz.model), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-fuzz_checkpoint", fz.ck, sizeof(fz.ck), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-fuzz_output", fz.out, sizeof(fz.out), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-fuzz_final", final, sizeof(final), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-fuzz_cases", cases, sizeof(cases), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-fuzz_dir", fz.dir, sizeof(fz.dir), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-fuzz_report", reportname, sizeof(reportname), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-fuzz_every", &fz.every, NULL));
  PetscCall(MechCreateModel(fz.comm, fz.model, &fz.sys));

  /* the restart from the intact files ends where the uninterrupted run ended */
  PetscCall(MechSystemCreateState(fz.sys, &fz.qref, &fz.vref));
  PetscCall(MechSystemCreateState(fz.sys, &q, &v));
  PetscCall(PetscViewerHDF5Open(fz.comm, final, FILE_MODE_READ, &viewer));
  PetscCall(PetscViewerHDF5PushGroup(viewer, "/checkpoint"));
  PetscCall(PetscObjectSetName((PetscObject)q, "q"));
  PetscCall(PetscObjectSetName((PetscObject)v, "v"));
  PetscCall(VecLoad(q, viewer));
  PetscCall(VecLoad(v, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  {
    char intact[PETSC_MAX_PATH_LEN];

    PetscCall(PetscSNPrintf(intact, sizeof(intact), "%s/intact.h5", fz.dir));
    PetscCall(MutatedCopy(&fz, fz.ck, intact, -1, 0));
    PetscCall(TryRestart(&fz, intact, NULL, fz.qref, fz.vref, &stage, msg, sizeof(msg)));
    PetscCheck(stage == 4, fz.comm, PETSC_ERR_PLIB, "The restart from the intact checkpoint failed: %s", msg);
    if (fz.rank == 0) (void)remove(intact);
  }
  PetscCall(VecEqual(q, fz.qref, &same));
  PetscCall(VecEqual(v, fz.vref, &sv));
  PetscCheck(same && sv, fz.comm, PETSC_ERR_PLIB, "The restart from the intact checkpoint does not end in the state of %s", final);
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));

  if (fz.rank == 0) {
    report = fopen(reportname, "w");
    PetscCheck(report, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s", reportname);
    list = fopen(cases, "r");
    PetscCheck(list, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot read %s", cases);
  }
  for (;;) {
    char kind[8] = "", source[1024];
    long offset  = 0;
    int xor = 0, got = 0;

    source[0] = 0;
    if (fz.rank == 0) got = fgets(line, sizeof(line), list) && sscanf(line, "%7s %ld %d %1023s", kind, &offset, &xor, source) >= 3;
    PetscCallMPI(MPI_Bcast(&got, 1, MPI_INT, 0, fz.comm));
    if (!got) break;
    PetscCallMPI(MPI_Bcast(kind, sizeof(kind), MPI_CHAR, 0, fz.comm));
    PetscCallMPI(MPI_Bcast(&offset, 1, MPI_LONG, 0, fz.comm));
    PetscCallMPI(MPI_Bcast(&xor, 1, MPI_INT, 0, fz.comm));
    PetscCallMPI(MPI_Bcast(source, sizeof(source), MPI_CHAR, 0, fz.comm));
    PetscCall(RunCase(&fz, report, kind, offset, xor, source));
    n++;
  }
  if (fz.rank == 0) {
    fprintf(report, "done %ld\n", n);
    fclose(report);
    fclose(list);
  }
  PetscCall(VecDestroy(&fz.qref));
  PetscCall(VecDestroy(&fz.vref));
  PetscCall(MechSystemDestroy(&fz.sys));
  PetscCall(PetscFinalize());
  return 0;
}
