/*
  The files of a run, planned before anything is written: every path a run will write is derived
  from its output, checkpoint (and the number of checkpoints kept) and restart file, checked, and
  locked against other runs for as long as the run lasts.

  The paths: the output FILE.h5, its temporary FILE.h5.tmp-<pid>, its XDMF companion FILE.xmf
  and that one's temporary; the checkpoint C, its temporary C.tmp-<pid> and the rotation slots
  C.1 ... C.<keep-1>; the restart file. The checks, in this order:

    lengths     what the I/O stack takes: the file system's PATH_MAX and NAME_MAX for every
                derived name (and for the lock files), and for the files opened through MPI-IO
                (the temporaries, a continued output, the restart file) Open MPI's limits, which
                are far smaller (see MpiioLimits());
    collisions  no two roles may name one file (canonical paths, and for existing files the
                same device and inode: hard links), except that the restart file may be the
                checkpoint or one of its slots (it is read whole before the first write);
    locks       an exclusive lock on every file the run writes, a shared one on the restart file
                (runs that branch from one checkpoint may read it together, none may write it
                meanwhile), taken before anything that another run could change (LockOne());
    contents    an existing file must be writable (not a directory, not append-only or
                immutable) and of the kind the run replaces: an output for the output, a
                checkpoint for the checkpoint and its slots, an XDMF file tsmech wrote for the
                .xmf, a file of ours (or a damaged or empty one) for a temporary name;
    room        the file system of every directory written must have room for a small file.

  Rank 0 does all of it (the other ranks need not see the same file system view, and a decision
  that leads to collective calls must be taken once): every rank gets the verdict.
*/
#define _POSIX_C_SOURCE 200809L
#include <petsc/private/petscimpl.h> /* PetscValidPointer() */
#include "outputimpl.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest process id of Linux (PID_MAX_LIMIT, 2^22 = 4194304): temporary names are counted
   with 7 digits, so that a path accepted once is accepted in every run */
#define PID_DIGITS 7
/* The suffix of a temporary name: ".tmp-" and the process id of rank 0 */
#define TMP_SUFFIX (5 + PID_DIGITS)

/* What a derived path is to the run */
typedef enum {
  ROLE_OUTPUT,     /* -output: replaced (a new file) or continued (a restart) */
  ROLE_OUTPUT_TMP, /* its temporary name, opened through MPI-IO */
  ROLE_XDMF,       /* its XDMF companion, replaced at the end */
  ROLE_XDMF_TMP,   /* the XDMF's temporary name */
  ROLE_CKPT,       /* -checkpoint */
  ROLE_CKPT_TMP,   /* its temporary name, opened through MPI-IO */
  ROLE_SLOT,       /* a rotation slot C.k (-checkpoint_keep) */
  ROLE_RESTART     /* -restart, read through MPI-IO */
} Role;

typedef struct {
  Role        role;
  int         group;  /* 0 output, 1 checkpoint, 2 restart: collisions are between groups */
  const char *given;  /* the option's value the path derives from */
  size_t      suffix; /* characters the path adds to `given`, counting a pid of PID_DIGITS */
  PetscInt    slot;   /* ROLE_SLOT: k */
  PetscBool   mpiio;  /* opened through MPI-IO */
  PetscBool   lock;   /* locked: exclusively, or shared for the restart file, which is only read */
  char        path[PETSC_MAX_PATH_LEN], canon[PETSC_MAX_PATH_LEN];
} Entry;

struct _n_MechIOPlan {
  MPI_Comm    comm;
  PetscMPIInt rank;
  PetscInt    nlock; /* rank 0: the locks held */
  int        *fd;
  char      **lockpath;
  PetscBool  *shared; /* a shared lock (a file only read) */
  PetscInt    ntmp;   /* rank 0: the temporary names of this run (FILE.tmp-<pid>), removed if a signal ends it */
  char      **tmppath;
};

/* ------------------------------------------------------------------------------------------ */
/* Names                                                                                      */
/* ------------------------------------------------------------------------------------------ */

static const char *Base(const char path[])
{
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* An absolute form of a path that may not exist yet: its directory resolved (symbolic links,
   "." and ".."), the file name as given; relative to the working directory if the directory
   does not exist either (the path is refused later) */
static void Canonical(const char path[], char canon[], size_t len)
{
  char dir[PETSC_MAX_PATH_LEN], real[PATH_MAX];

  MechIODirName(path, dir, sizeof(dir));
  if (realpath(dir, real)) (void)PetscSNPrintf(canon, len, "%s%s%s", real, strcmp(real, "/") ? "/" : "", Base(path));
  else if (path[0] != '/' && getcwd(real, sizeof(real))) (void)PetscSNPrintf(canon, len, "%s/%s", real, path);
  else (void)PetscStrncpy(canon, path, len);
}

/* A long path shortened for a message: its first and last 36 characters */
static const char *Short(const char path[], char buf[], size_t len)
{
  size_t n = strlen(path);

  if (n <= 96) return path;
  (void)PetscSNPrintf(buf, len, "%.36s...%s", path, path + n - 36);
  return buf;
}

/* The entry as a message names it */
static void Describe(const Entry *e, PetscInt keep, char buf[], size_t len)
{
  char a[128], b[128];

  switch (e->role) {
  case ROLE_OUTPUT:
    (void)PetscSNPrintf(buf, len, "-output %s", Short(e->given, a, sizeof(a)));
    break;
  case ROLE_OUTPUT_TMP:
    (void)PetscSNPrintf(buf, len, "the temporary file %s.tmp-<pid> of -output %s", Short(e->given, a, sizeof(a)), Short(e->given, b, sizeof(b)));
    break;
  case ROLE_XDMF:
    (void)PetscSNPrintf(buf, len, "the XDMF file %s of -output %s", Short(e->path, a, sizeof(a)), Short(e->given, b, sizeof(b)));
    break;
  case ROLE_XDMF_TMP:
    (void)PetscSNPrintf(buf, len, "the temporary XDMF file of -output %s", Short(e->given, a, sizeof(a)));
    break;
  case ROLE_CKPT:
    (void)PetscSNPrintf(buf, len, "-checkpoint %s", Short(e->given, a, sizeof(a)));
    break;
  case ROLE_CKPT_TMP:
    (void)PetscSNPrintf(buf, len, "the temporary file %s.tmp-<pid> of -checkpoint %s", Short(e->given, a, sizeof(a)), Short(e->given, b, sizeof(b)));
    break;
  case ROLE_SLOT:
    (void)PetscSNPrintf(buf, len, "the rotation slot %s of -checkpoint %s (-checkpoint_keep %" PetscInt_FMT ")", Short(e->path, a, sizeof(a)), Short(e->given, b, sizeof(b)), keep);
    break;
  case ROLE_RESTART:
    (void)PetscSNPrintf(buf, len, "-restart %s", Short(e->given, a, sizeof(a)));
    break;
  }
}

/* The entry as a message about its own option names it: "its rotation slot C.1 (...)" */
static void DescribeOwn(const Entry *e, PetscInt keep, char buf[], size_t len)
{
  char a[128];

  switch (e->role) {
  case ROLE_OUTPUT_TMP:
  case ROLE_CKPT_TMP:
  case ROLE_XDMF_TMP:
    (void)PetscSNPrintf(buf, len, "its temporary name %s", Short(e->path, a, sizeof(a)));
    break;
  case ROLE_XDMF:
    (void)PetscSNPrintf(buf, len, "its XDMF file %s", Short(e->path, a, sizeof(a)));
    break;
  case ROLE_SLOT:
    (void)PetscSNPrintf(buf, len, "its rotation slot %s (-checkpoint_keep %" PetscInt_FMT ")", Short(e->path, a, sizeof(a)), keep);
    break;
  default:
    (void)PetscSNPrintf(buf, len, "the file");
  }
}

static const char *OptionOf(const Entry *e)
{
  return e->group == 0 ? "-output" : (e->group == 1 ? "-checkpoint" : "-restart");
}

/* ------------------------------------------------------------------------------------------ */
/* Lengths                                                                                    */
/* ------------------------------------------------------------------------------------------ */

static int Digits(long n)
{
  int d = 1;
  while (n >= 10) {
    n /= 10;
    d++;
  }
  return d;
}

/*
  The longest path and file name that MPI-IO opens on `size` ranks, 0 for no limit beyond the
  file system's. Open MPI (up to 5.0; fixed in its main branch in commit a0593ad, Dec. 2025):
  OMPIO's shared-file-pointer components, queried at every MPI_File_open(), build names in
  fixed or file-system-limited buffers:
    sharedfp/lockedfile  "<path>.locktest.<rank>" in char[256] with sprintf(): a longer path
                         overflows it (glibc's fortify aborts: "buffer overflow detected");
    sharedfp/sm          "<session dir>/<file name>_cid-<communicator id>-<pid of rank 0>.sm",
                         opened: a file name beyond NAME_MAX makes MPI_File_open() fail.
  The communicator id is counted with 10 digits (a 32-bit int), the pid with PID_DIGITS.
*/
static void MpiioLimits(PetscMPIInt size, size_t *path, size_t *base)
{
#if defined(OMPI_MAJOR_VERSION)
  *path = 255 - strlen(".locktest.") - (size_t)Digits((long)size - 1);
  *base = NAME_MAX - strlen("_cid-") - 10 - strlen("-") - PID_DIGITS - strlen(".sm");
#else
  (void)size;
  *path = 0;
  *base = 0;
#endif
}

/* The derived name an entry adds to its option's value, as a message shows it */
static void Label(const Entry *e, PetscBool lock, char buf[], size_t len)
{
  char name[PETSC_MAX_PATH_LEN];

  switch (e->role) {
  case ROLE_OUTPUT_TMP:
  case ROLE_CKPT_TMP:
    (void)PetscSNPrintf(name, sizeof(name), "its temporary name FILE.tmp-<pid>");
    break;
  case ROLE_XDMF:
    (void)PetscSNPrintf(name, sizeof(name), "its XDMF file %s", Base(e->path));
    break;
  case ROLE_XDMF_TMP:
    (void)PetscSNPrintf(name, sizeof(name), "its XDMF file's temporary %s.tmp-<pid>", Base(e->path));
    break;
  case ROLE_SLOT:
    (void)PetscSNPrintf(name, sizeof(name), "its rotation slot FILE.%" PetscInt_FMT, e->slot);
    break;
  default:
    (void)PetscSNPrintf(name, sizeof(name), "it");
  }
  if (lock) (void)PetscSNPrintf(buf, len, "its lock file .%s.lock (%zu characters more)", e->role == ROLE_XDMF ? Base(e->path) : "FILE", e->suffix + 6);
  else if (e->suffix) (void)PetscSNPrintf(buf, len, "%s (%zu characters more)%s", name, e->suffix, e->mpiio ? " through MPI-IO" : "");
  else (void)PetscSNPrintf(buf, len, "%s%s", name, e->mpiio ? " through MPI-IO" : "");
}

/*
  Whether the option values are short enough for every name derived from them. For each entry
  and each limit that applies to it (the file system's PATH_MAX and NAME_MAX, for its lock file
  too, and Open MPI's for a file opened through MPI-IO), the longest value its option may have is
  the limit less what the entry adds; the smallest is the option's. One message for the first
  option found too long, naming the name and the limit that bind.
*/
static void CheckLengths(const Entry e[], PetscInt n, PetscMPIInt size, char msg[], size_t len)
{
  size_t mpath, mbase, cwdlen = 0;
  char   cwd[PATH_MAX];
  int    g;

  msg[0] = 0;
  MpiioLimits(size, &mpath, &mbase);
  if (getcwd(cwd, sizeof(cwd))) cwdlen = strlen(cwd);
  for (g = 0; g < 3 && !msg[0]; g++) {
    const Entry *pe = NULL, *be = NULL; /* the entries that bind the path and the name */
    PetscBool    plock = PETSC_FALSE, block = PETSC_FALSE;
    const char  *pwhy = "", *bwhy = "", *given = NULL, *option = "";
    size_t       maxpath = (size_t)-1, maxbase = (size_t)-1, glen, gbase;
    PetscInt     i;
    char         label[PETSC_MAX_PATH_LEN], a[128];

    for (i = 0; i < n; i++) {
      struct {
        size_t      limit;
        PetscBool   path, lock;
        const char *why;
      } lim[6];
      int nl = 0, l;

      if (e[i].group != g) continue;
      given         = e[i].given;
      option        = OptionOf(&e[i]);
      lim[nl].limit = PATH_MAX - 1;
      lim[nl].path  = PETSC_TRUE;
      lim[nl].lock  = PETSC_FALSE;
      lim[nl++].why = "the file system takes paths of at most PATH_MAX - 1 characters";
      lim[nl].limit = NAME_MAX;
      lim[nl].path  = PETSC_FALSE;
      lim[nl].lock  = PETSC_FALSE;
      lim[nl++].why = "the file system takes file names of at most NAME_MAX characters";
      if (e[i].lock) {
        lim[nl].limit = PATH_MAX - 1 - 6;
        lim[nl].path  = PETSC_TRUE;
        lim[nl].lock  = PETSC_TRUE;
        lim[nl++].why = "the file system takes paths of at most PATH_MAX - 1 characters";
        lim[nl].limit = NAME_MAX - 6;
        lim[nl].path  = PETSC_FALSE;
        lim[nl].lock  = PETSC_TRUE;
        lim[nl++].why = "the file system takes file names of at most NAME_MAX characters";
      }
      if (e[i].mpiio && mpath) {
        size_t mp = mpath;
        /* Open MPI makes a relative path absolute in a buffer of PATH_MAX (opal_os_path()) */
        if (e[i].path[0] != '/' && cwdlen && PATH_MAX - 2 - cwdlen < mp) mp = PATH_MAX - 2 - cwdlen;
        lim[nl].limit = mp;
        lim[nl].path  = PETSC_TRUE;
        lim[nl].lock  = PETSC_FALSE;
        lim[nl++].why = mp < mpath ? "Open MPI's MPI-IO takes paths of at most PATH_MAX - 2 characters with the working directory in front" : "Open MPI's MPI-IO (OMPIO) overflows a buffer of 256 characters on longer paths";
        lim[nl].limit = mbase;
        lim[nl].path  = PETSC_FALSE;
        lim[nl].lock  = PETSC_FALSE;
        lim[nl++].why = "Open MPI's MPI-IO (OMPIO) fails to open longer file names";
      }
      for (l = 0; l < nl; l++) {
        size_t m = lim[l].limit > e[i].suffix ? lim[l].limit - e[i].suffix : 0;

        if (lim[l].path && m < maxpath) {
          maxpath = m;
          pe      = &e[i];
          plock   = lim[l].lock;
          pwhy    = lim[l].why;
        } else if (!lim[l].path && m < maxbase) {
          maxbase = m;
          be      = &e[i];
          block   = lim[l].lock;
          bwhy    = lim[l].why;
        }
      }
    }
    if (!given) continue;
    glen  = strlen(given);
    gbase = strlen(Base(given));
    if (glen <= maxpath && gbase <= maxbase) continue;
    if (glen > maxpath) {
      Label(pe, plock, label, sizeof(label));
      (void)PetscSNPrintf(msg, len, "%s %s: the path is too long (%zu%s characters): the run %s %s, and %s, so the path may have at most %zu characters", option, Short(given, a, sizeof(a)), glen, glen >= PETSC_MAX_PATH_LEN - 1 ? " or more" : "", pe->mpiio && !plock ? "opens" : "writes", label, pwhy, maxpath);
    } else {
      Label(be, block, label, sizeof(label));
      (void)PetscSNPrintf(msg, len, "%s %s: the file name is too long (%zu characters): the run %s %s, and %s, so the file name may have at most %zu characters", option, Short(given, a, sizeof(a)), gbase, be->mpiio && !block ? "opens" : "writes", label, bwhy, maxbase);
    }
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Locks                                                                                      */
/* ------------------------------------------------------------------------------------------ */

/* The lock file of a canonical path: ".<name>.lock" beside it */
static void LockPath(const char canon[], char lock[], size_t len)
{
  char dir[PETSC_MAX_PATH_LEN];

  MechIODirName(canon, dir, sizeof(dir));
  (void)PetscSNPrintf(lock, len, "%s/.%s.lock", dir, Base(canon));
}

/*
  Takes an fcntl() lock, exclusive or shared, on the lock file `path`, created if needed. fcntl()
  locks die with their process, so the lock of a run that was killed blocks nothing: its lock
  file stays, and the next run locks it. The last holder removes the lock file when it releases
  it (Release()), while it still holds the lock: a run that opened the file before the removal
  and locks it after finds by its inode that the file is no longer the one at `path`, and
  starts again. Returns 0 (locked, *fd set), EBUSY (another process holds it: *holder is its
  process id, 0 if unknown) or the errno of a failure to create the file.
*/
static int LockOne(const char path[], PetscBool shared, int *fd, long *holder)
{
  int tries;

  *fd     = -1;
  *holder = 0;
  for (tries = 0; tries < 100; tries++) {
    struct flock fl;
    struct stat  a, b;
    int          f = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);

    if (f < 0) return errno;
    memset(&fl, 0, sizeof(fl));
    fl.l_type   = shared ? F_RDLCK : F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(f, F_SETLK, &fl)) {
      int e = errno;

      if (e == EACCES || e == EAGAIN) {
        memset(&fl, 0, sizeof(fl));
        fl.l_type   = shared ? F_RDLCK : F_WRLCK;
        fl.l_whence = SEEK_SET;
        if (!fcntl(f, F_GETLK, &fl) && fl.l_type != F_UNLCK) {
          *holder = (long)fl.l_pid;
          if (*holder <= 0) {
            /* a lock of another host (NFS): the process id it wrote */
            char    buf[64] = "";
            ssize_t r       = pread(f, buf, sizeof(buf) - 1, 0);
            if (r > 0) buf[r] = 0;
            *holder = strtol(buf, NULL, 10);
          }
          (void)close(f);
          return EBUSY;
        }
        (void)close(f); /* released meanwhile: try again */
        continue;
      }
      (void)close(f);
      return e;
    }
    if (fstat(f, &a) || stat(path, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
      (void)close(f); /* removed by its holder meanwhile */
      continue;
    }
    /* the process id, for a run on another host whose lock fcntl() cannot name; only
       informative: a full disk that refuses it does not stop the lock */
    if (!shared) {
      char buf[64];
      int  n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
      if (ftruncate(f, 0) || pwrite(f, buf, (size_t)n, 0) != (ssize_t)n) errno = 0;
    }
    *fd = f;
    return 0;
  }
  return EBUSY;
}

/*
  The lock files this process holds, in all its plans (rank 0). fcntl() locks belong to the
  process, so a second plan of the same process would "get" a file the first holds, and its
  release (closing its descriptor drops every lock the process has on the file) would take the
  first plan's lock with it: a program with two writers of one file (a library or Python program
  that plans each output and checkpoint on its own) is refused instead; reading a file the program
  writes (the restart file, under a shared lock) is covered by the lock it holds.
*/
static char   **HeldLocks    = NULL;
static PetscInt NumHeldLocks = 0, MaxHeldLocks = 0;

static PetscBool HeldByThisProcess(const char path[])
{
  for (PetscInt i = 0; i < NumHeldLocks; i++)
    if (!strcmp(HeldLocks[i], path)) return PETSC_TRUE;
  return PETSC_FALSE;
}

static void SetHeld(const char path[], PetscBool held)
{
  if (held) {
    if (NumHeldLocks == MaxHeldLocks) {
      char   **more;
      PetscInt n = 2 * MaxHeldLocks + 8;

      if (PetscMalloc1(n, &more)) return;
      for (PetscInt i = 0; i < NumHeldLocks; i++) more[i] = HeldLocks[i];
      (void)PetscFree(HeldLocks);
      HeldLocks    = more;
      MaxHeldLocks = n;
    }
    HeldLocks[NumHeldLocks++] = (char *)path;
    return;
  }
  for (PetscInt i = 0; i < NumHeldLocks; i++)
    if (HeldLocks[i] == path) {
      HeldLocks[i] = HeldLocks[--NumHeldLocks];
      break;
    }
  if (!NumHeldLocks) {
    (void)PetscFree(HeldLocks);
    MaxHeldLocks = 0;
  }
}

/* The plan whose lock files a signal that ends the run removes (MechIOPlanRemoveLocksOnSignal()) */
static MechIOPlan volatile signalplan = NULL;

/* Releases the locks; a shared one's lock file is removed only by its last holder, which the
   lock turning exclusive shows */
static void Release(MechIOPlan plan)
{
  PetscInt i;

  if (signalplan == plan) signalplan = NULL;
  for (i = plan->nlock - 1; i >= 0; i--) {
    struct flock fl;

    memset(&fl, 0, sizeof(fl));
    fl.l_type   = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (!plan->shared[i] || !fcntl(plan->fd[i], F_SETLK, &fl)) (void)unlink(plan->lockpath[i]);
    (void)close(plan->fd[i]);
    SetHeld(plan->lockpath[i], PETSC_FALSE);
    (void)PetscFree(plan->lockpath[i]);
  }
  plan->nlock = 0;
}

static int CompareStrings(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
  Locks every entry marked for it, in the order of their lock files' paths: two runs that share
  several files then meet first at the same one, so that one of them gets them all and the
  other none (in any other order each could get one and both be refused). Entries whose lock
  file cannot be created are left unlocked in *missing (the checks that follow say why); the
  restart file's directory may be read-only.
*/
static void TakeLocks(MechIOPlan plan, const Entry e[], PetscInt n, PetscInt keep, PetscBool missing[], char msg[], size_t len)
{
  char    **paths;
  PetscBool shared;
  PetscInt  i, j, np = 0;

  msg[0] = 0;
  if (PetscMalloc1(n, &paths)) {
    (void)PetscSNPrintf(msg, len, "out of memory");
    return;
  }
  for (i = 0; i < n; i++) {
    char lock[PETSC_MAX_PATH_LEN + 8];

    missing[i] = PETSC_FALSE;
    if (!e[i].lock) continue;
    LockPath(e[i].canon, lock, sizeof(lock));
    for (j = 0; j < np; j++)
      if (!strcmp(paths[j], lock)) break;
    if (j == np && PetscStrallocpy(lock, &paths[np++])) np--;
  }
  qsort(paths, (size_t)np, sizeof(char *), CompareStrings);
  for (j = 0; j < np && !msg[0]; j++) {
    int  fd, err;
    long holder;
    char dir[PETSC_MAX_PATH_LEN];

    /* a lock file could not be removed from an append-only directory: none is made there (the
       checks that follow refuse the directory) */
    MechIODirName(paths[j], dir, sizeof(dir));
    /* shared if only the restart file has it (it may also be the checkpoint) */
    shared = PETSC_TRUE;
    for (i = 0; i < n; i++) {
      char lock[PETSC_MAX_PATH_LEN + 8];

      if (!e[i].lock || e[i].role == ROLE_RESTART) continue;
      LockPath(e[i].canon, lock, sizeof(lock));
      if (!strcmp(lock, paths[j])) shared = PETSC_FALSE;
    }
    holder = 0;
    /* a file this program writes may be read between its writes (a restart from its own
       checkpoint): the lock it holds covers that */
    if (HeldByThisProcess(paths[j]) && shared) continue;
    if (HeldByThisProcess(paths[j])) err = EBUSY;
    else err = MechIOProtection(dir) ? EPERM : LockOne(paths[j], shared, &fd, &holder);
    if (!err) {
      plan->fd[plan->nlock]         = fd;
      plan->shared[plan->nlock]     = shared;
      plan->lockpath[plan->nlock++] = paths[j];
      SetHeld(paths[j], PETSC_TRUE);
      paths[j] = NULL;
      continue;
    }
    for (i = 0; i < n; i++) {
      char lock[PETSC_MAX_PATH_LEN + 8], what[512];

      if (!e[i].lock) continue;
      LockPath(e[i].canon, lock, sizeof(lock));
      if (strcmp(lock, paths[j])) continue;
      if (err == EBUSY) {
        Describe(&e[i], keep, what, sizeof(what));
        if (HeldByThisProcess(paths[j])) (void)PetscSNPrintf(msg, len, "%s is written by this program already (an output or checkpoint it has not closed): two writers must not share one file; close the other first or give another name", what);
        else if (holder > 0) (void)PetscSNPrintf(msg, len, "%s is in use by another run (process %ld): two runs must not write one file; wait for it to end or give another name", what, holder);
        else (void)PetscSNPrintf(msg, len, "%s is in use by another run: two runs must not write one file; wait for it to end or give another name", what);
        break;
      }
      /* no lock where the file system has none (ENOLCK: NFS without its lock service) */
      if (err != ENOLCK && err != EOPNOTSUPP && err != ENOSYS && e[i].role != ROLE_RESTART) missing[i] = PETSC_TRUE;
    }
  }
  for (j = 0; j < np; j++) (void)PetscFree(paths[j]);
  (void)PetscFree(paths);
  if (msg[0]) Release(plan);
}

/* ------------------------------------------------------------------------------------------ */
/* Contents                                                                                   */
/* ------------------------------------------------------------------------------------------ */

static const char *KindName(MechIOKind kind)
{
  switch (kind) {
  case MECH_IO_EMPTY:
    return "an empty file";
  case MECH_IO_NOT_HDF5:
    return "a file that is not HDF5";
  case MECH_IO_DAMAGED:
    return "a damaged HDF5 file";
  case MECH_IO_CHECKPOINT:
    return "a tsmech checkpoint";
  case MECH_IO_OUTPUT:
    return "a tsmech output";
  case MECH_IO_HDF5:
    return "an HDF5 file of another kind";
  case MECH_IO_OTHER:
    return "not a regular file";
  default:
    return "missing";
  }
}

/* The checks of one entry's path: writable, and an existing file of the kind the run replaces */
static void CheckEntry(const Entry *e, PetscInt keep, char msg[], size_t len)
{
  char        problem[PETSC_MAX_PATH_LEN + 256], what[512], a[128];
  const char *given = Short(e->given, a, sizeof(a));
  struct stat st;
  MechIOKind  kind;

  msg[0] = 0;
  DescribeOwn(e, keep, what, sizeof(what));
  switch (e->role) {
  case ROLE_OUTPUT:
    MechIOCheckWritableLocal(e->path, problem, sizeof(problem));
    if (problem[0]) {
      (void)PetscSNPrintf(msg, len, "-output %s cannot be written: %s", given, problem);
      return;
    }
    kind = MechIOFileKindLocal(e->path);
    if (kind == MECH_IO_CHECKPOINT) (void)PetscSNPrintf(msg, len, "-output %s: it is a tsmech checkpoint, which the output would overwrite; give another file name", given);
    else if (kind == MECH_IO_NOT_HDF5) (void)PetscSNPrintf(msg, len, "-output %s: the file exists and is not an HDF5 file; it is not overwritten (remove it or give another file name)", given);
    else if (kind == MECH_IO_HDF5) (void)PetscSNPrintf(msg, len, "-output %s: the file exists and is an HDF5 file but not a tsmech output; it is not overwritten (remove it or give another file name)", given);
    return;
  case ROLE_CKPT:
    MechIOCheckWritableLocal(e->path, problem, sizeof(problem));
    if (problem[0]) {
      (void)PetscSNPrintf(msg, len, "-checkpoint %s cannot be written: %s", given, problem);
      return;
    }
    kind = MechIOFileKindLocal(e->path);
    if (kind == MECH_IO_OUTPUT) (void)PetscSNPrintf(msg, len, "-checkpoint %s: it is a tsmech output file, which a checkpoint would replace; give another file name", given);
    else if (kind == MECH_IO_NOT_HDF5) (void)PetscSNPrintf(msg, len, "-checkpoint %s: the file exists and is not an HDF5 file; it is not overwritten (remove it or give another file name)", given);
    else if (kind == MECH_IO_HDF5) (void)PetscSNPrintf(msg, len, "-checkpoint %s: the file exists and is an HDF5 file but not a tsmech checkpoint; it is not overwritten (remove it or give another file name)", given);
    return;
  case ROLE_RESTART:
    return; /* read, and checked against the model, by MechCheckpointLoad() */
  default:
    break;
  }
  /* the derived names: side files the run replaces (a slot, the XDMF) or creates (temporaries) */
  if (lstat(e->path, &st)) {
    if (errno == ENOENT) return;
    (void)PetscSNPrintf(msg, len, "%s %s: %s cannot be written (%s)", OptionOf(e), given, what, strerror(errno));
    return;
  }
  if (S_ISDIR(st.st_mode)) {
    (void)PetscSNPrintf(msg, len, "%s %s: %s is a directory: the run cannot write it", OptionOf(e), given, what);
    return;
  }
  MechIOCheckWritableLocal(e->path, problem, sizeof(problem));
  if (problem[0]) {
    (void)PetscSNPrintf(msg, len, "%s %s: %s cannot be written: %s", OptionOf(e), given, what, problem);
    return;
  }
  kind = MechIOFileKindLocal(e->path);
  switch (e->role) {
  case ROLE_SLOT:
    if (kind != MECH_IO_CHECKPOINT) (void)PetscSNPrintf(msg, len, "-checkpoint %s: %s is %s, not an earlier tsmech checkpoint; it is not replaced (remove it, or give another -checkpoint or -checkpoint_keep)", given, what, KindName(kind));
    break;
  case ROLE_XDMF:
  case ROLE_XDMF_TMP:
    if (!MechIOIsOwnXDMF(e->path, Base(e->given))) (void)PetscSNPrintf(msg, len, "-output %s: %s exists and is not an XDMF file written by tsmech; it is not overwritten (remove it or give another -output)", given, what);
    break;
  case ROLE_OUTPUT_TMP:
  case ROLE_CKPT_TMP:
    /* a temporary of a run that was killed with the same process id: ours to replace */
    if (!(kind == MECH_IO_EMPTY || kind == MECH_IO_DAMAGED || kind == (e->role == ROLE_OUTPUT_TMP ? MECH_IO_OUTPUT : MECH_IO_CHECKPOINT))) (void)PetscSNPrintf(msg, len, "%s %s: %s is taken by %s; it is not overwritten (remove it)", OptionOf(e), given, what, KindName(kind));
    break;
  default:
    break;
  }
}

/*
  Files of different roles must be different files: by canonical path, and for existing files
  by device and inode (hard links). The restart file may be the checkpoint or a slot of it.
*/
static void CheckCollisions(const Entry e[], PetscInt n, PetscInt keep, char msg[], size_t len)
{
  PetscInt i, j;

  msg[0] = 0;
  for (i = 0; i < n && !msg[0]; i++) {
    for (j = i + 1; j < n && !msg[0]; j++) {
      const Entry *x = &e[i], *y = &e[j];
      struct stat  sx, sy;
      PetscBool    same, link = PETSC_FALSE;
      char         dx[512], dy[512], a[128], b[128];

      if (x->group == y->group) continue;
      if (x->group == 2 || y->group == 2) {
        const Entry *o = x->group == 2 ? y : x;
        if (o->role == ROLE_CKPT || o->role == ROLE_SLOT) continue;
      }
      same = strcmp(x->canon, y->canon) ? PETSC_FALSE : PETSC_TRUE;
      if (!same && !stat(x->path, &sx) && !stat(y->path, &sy) && sx.st_dev == sy.st_dev && sx.st_ino == sy.st_ino) same = link = PETSC_TRUE;
      if (!same) continue;
      /* the option itself first, -output before -checkpoint */
      if ((y->role == ROLE_OUTPUT || y->role == ROLE_CKPT || y->role == ROLE_RESTART) && !((x->role == ROLE_OUTPUT || x->role == ROLE_CKPT) && x->group < y->group)) {
        const Entry *t = x;
        x              = y;
        y              = t;
      }
      if ((x->role == ROLE_OUTPUT && y->role == ROLE_RESTART) || (x->role == ROLE_RESTART && y->role == ROLE_OUTPUT)) {
        const Entry *o = x->role == ROLE_OUTPUT ? x : y, *r = x->role == ROLE_OUTPUT ? y : x;
        (void)PetscSNPrintf(msg, len, "-output %s and -restart %s %s: -restart takes the checkpoint (-checkpoint FILE), -output the results", Short(o->given, a, sizeof(a)), Short(r->given, b, sizeof(b)), link ? "are the same file (hard links)" : "name the same file");
        return;
      }
      Describe(x, keep, dx, sizeof(dx));
      Describe(y, keep, dy, sizeof(dy));
      (void)PetscSNPrintf(msg, len, "%s and %s %s: give them different %s", dx, dy, link ? "are the same file (hard links)" : "name the same file", link ? "files" : "names");
    }
  }
}

/* Room for at least a small file in every directory the run writes */
static void CheckRoom(const Entry e[], PetscInt n, char msg[], size_t len)
{
  PetscInt i;

  msg[0] = 0;
  for (i = 0; i < n && !msg[0]; i++) {
    long long avail;
    char      dir[PETSC_MAX_PATH_LEN], a[128];

    if (e[i].role != ROLE_OUTPUT && e[i].role != ROLE_CKPT) continue;
    avail = MechIOFreeBytes(e[i].path);
    MechIODirName(e[i].path, dir, sizeof(dir));
    if (avail >= 0 && avail < MECH_IO_MARGIN) (void)PetscSNPrintf(msg, len, "%s %s cannot be written: no space left on device (%lld bytes free in %s)", OptionOf(&e[i]), Short(e[i].given, a, sizeof(a)), avail, dir);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* The plan                                                                                   */
/* ------------------------------------------------------------------------------------------ */

static void AddEntry(Entry e[], PetscInt *n, Role role, int group, const char given[], const char path[], size_t suffix, PetscBool mpiio, PetscBool lock, PetscInt slot)
{
  Entry *x = &e[(*n)++];

  x->role   = role;
  x->group  = group;
  x->given  = given;
  x->suffix = suffix;
  x->mpiio  = mpiio;
  x->lock   = lock;
  x->slot   = slot;
  (void)PetscStrncpy(x->path, path, sizeof(x->path));
  Canonical(path, x->canon, sizeof(x->canon));
}

/* Rank 0's work: the entries, then the checks in order; the first problem ends it */
static void Plan(MechIOPlan plan, const char output[], const char ckpt[], PetscInt keep, const char restart[], PetscMPIInt size, int pid, PetscErrorCode *code, char msg[], size_t len)
{
  Entry    *e = NULL;
  PetscBool missing[2 * MECH_IO_MAX_KEEP + 8];
  PetscInt  n = 0, i, k;
  char      path[PETSC_MAX_PATH_LEN + 32], xmf[PETSC_MAX_PATH_LEN + 8];

  *code  = 0;
  msg[0] = 0;
  if (PetscCalloc1(keep + 8, &e) || PetscMalloc1(keep + 8, &plan->fd) || PetscCalloc1(keep + 8, &plan->lockpath) || PetscCalloc1(keep + 8, &plan->shared) || PetscCalloc1(keep + 8, &plan->tmppath)) {
    *code = PETSC_ERR_MEM;
    (void)PetscSNPrintf(msg, len, "out of memory");
    (void)PetscFree(e);
    return;
  }
  if (output) {
    size_t n0 = strlen(output), nx;

    AddEntry(e, &n, ROLE_OUTPUT, 0, output, output, 0, PETSC_TRUE, PETSC_TRUE, 0);
    (void)PetscSNPrintf(path, sizeof(path), "%s.tmp-%d", output, pid);
    AddEntry(e, &n, ROLE_OUTPUT_TMP, 0, output, path, TMP_SUFFIX, PETSC_TRUE, PETSC_FALSE, 0);
    MechIOXDMFPath(output, xmf, sizeof(xmf));
    nx = strlen(xmf) - n0;
    AddEntry(e, &n, ROLE_XDMF, 0, output, xmf, nx, PETSC_FALSE, PETSC_TRUE, 0);
    (void)PetscSNPrintf(path, sizeof(path), "%s.tmp-%d", xmf, pid);
    AddEntry(e, &n, ROLE_XDMF_TMP, 0, output, path, nx + TMP_SUFFIX, PETSC_FALSE, PETSC_FALSE, 0);
  }
  if (ckpt) {
    AddEntry(e, &n, ROLE_CKPT, 1, ckpt, ckpt, 0, PETSC_FALSE, PETSC_TRUE, 0);
    (void)PetscSNPrintf(path, sizeof(path), "%s.tmp-%d", ckpt, pid);
    AddEntry(e, &n, ROLE_CKPT_TMP, 1, ckpt, path, TMP_SUFFIX, PETSC_TRUE, PETSC_FALSE, 0);
    for (k = 1; k < keep; k++) {
      (void)PetscSNPrintf(path, sizeof(path), "%s.%" PetscInt_FMT, ckpt, k);
      AddEntry(e, &n, ROLE_SLOT, 1, ckpt, path, 1 + (size_t)Digits((long)k), PETSC_FALSE, PETSC_TRUE, k);
    }
  }
  if (restart) AddEntry(e, &n, ROLE_RESTART, 2, restart, restart, 0, PETSC_TRUE, PETSC_TRUE, 0);

  CheckLengths(e, n, size, msg, len);
  if (msg[0]) {
    *code = PETSC_ERR_ARG_WRONG;
    goto done;
  }
  CheckCollisions(e, n, keep, msg, len);
  if (msg[0]) {
    *code = PETSC_ERR_ARG_INCOMP;
    goto done;
  }
  /* the locks first: another run could create or change any file checked below */
  TakeLocks(plan, e, n, keep, missing, msg, len);
  if (msg[0]) {
    *code = PETSC_ERR_FILE_OPEN;
    goto done;
  }
  for (i = 0; i < n && !msg[0]; i++) CheckEntry(&e[i], keep, msg, len);
  if (msg[0]) {
    *code = strstr(msg, "cannot be written") ? PETSC_ERR_FILE_OPEN : PETSC_ERR_ARG_WRONG;
    goto done;
  }
  for (i = 0; i < n && !msg[0]; i++) {
    char lock[PETSC_MAX_PATH_LEN + 8], what[512];

    if (!missing[i]) continue;
    LockPath(e[i].canon, lock, sizeof(lock));
    Describe(&e[i], keep, what, sizeof(what));
    (void)PetscSNPrintf(msg, len, "%s cannot be locked against other runs: its lock file %s cannot be created", what, lock);
    *code = PETSC_ERR_FILE_OPEN;
  }
  if (msg[0]) goto done;
  CheckRoom(e, n, msg, len);
  if (msg[0]) *code = PETSC_ERR_FILE_OPEN;
  /* the temporary names carry this run's process id: only this run writes them */
  for (i = 0; i < n && !msg[0]; i++)
    if ((e[i].role == ROLE_OUTPUT_TMP || e[i].role == ROLE_XDMF_TMP || e[i].role == ROLE_CKPT_TMP) && !PetscStrallocpy(e[i].canon, &plan->tmppath[plan->ntmp])) plan->ntmp++;
done:
  if (msg[0]) Release(plan);
  (void)PetscFree(e);
}

/*@C
  MechIOPlanFiles - Derives every file a run will write from its output, checkpoint and restart
  files, checks them all before anything is written, and locks them against other runs.

  Collective

  Input Parameters:
+ comm       - the communicator of the run
. output     - the HDF5 output (-output), NULL or "" for none
. checkpoint - the checkpoint (-checkpoint), NULL or "" for none
. keep       - the number of checkpoints kept (-checkpoint_keep, 1 to MECH_IO_MAX_KEEP): the
               checkpoint's rotation slots are checkpoint.1 ... checkpoint.<keep-1>
- restart    - the checkpoint the run restarts from (-restart), NULL or "" for none

  Output Parameter:
. plan - holds the locks; release them with `MechIOPlanDestroy()` when the run has ended

  Notes:
  The files: the output, its temporary name (output.tmp-<pid>), its XDMF companion
  (MechIOXDMFPath()) and that one's temporary, the checkpoint, its temporary and its rotation
  slots, and the restart file. Refused with one message naming the option and the file:
+ a path longer than the I/O stack takes, counting the longest name derived from it (Open MPI's
  MPI-IO: paths of 244 characters on up to 10 ranks, file names of 229; see MpiioLimits() in
  src/io/runfiles.c);
. two roles naming one file (canonical paths, or hard links), except that the restart file
  may be the checkpoint or one of its slots;
. a file another run holds (the message gives its process id);
. a path that cannot be written (MechIOCheckWritable(): also an append-only or immutable file
  or directory), an existing file of another kind than the run replaces (an output for the
  output, a checkpoint for the checkpoint and its slots, an XDMF file tsmech wrote for the .xmf);
- a file system without room for a small file.

  The locks are fcntl() locks on lock files ".<name>.lock" beside every file written
  (exclusive) and the restart file (shared: runs that branch from one checkpoint may start
  together; none may write it meanwhile), taken by rank 0 in one order (so of two runs sharing
  files exactly one gets them), and removed by MechIOPlanDestroy(). A killed run's lock dies
  with it: its lock file is left behind and blocks nothing. The XDMF companion is checked and locked for every output,
  as the model that decides whether it is written may not exist yet. A file that another plan of
  this process holds is refused too (the program's own second writer of it): fcntl() locks belong
  to the process, which would otherwise get the file twice and lose both locks with either plan.

  The Python package (python/tsmech) plans every `tsmech.Output` and checkpoint path this way; its
  messages name the Python arguments instead of the options.

  Level: intermediate

.seealso: `MechIOPlanDestroy()`, `MechIOCheckWritable()`, `MechIOFileKind()`, `MechIOSameFile()`
@*/
PetscErrorCode MechIOPlanFiles(MPI_Comm comm, const char output[], const char checkpoint[], PetscInt keep, const char restart[], MechIOPlan *planp)
{
  MechIOPlan     plan;
  PetscMPIInt    size;
  PetscErrorCode code = 0;
  int            pid  = (int)getpid();
  char           msg[2 * PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscValidPointer(planp, 6);
  *planp = NULL;
  if (output && !output[0]) output = NULL;
  if (checkpoint && !checkpoint[0]) checkpoint = NULL;
  if (restart && !restart[0]) restart = NULL;
  if (!checkpoint) keep = 1;
  PetscCheck(keep >= 1 && keep <= MECH_IO_MAX_KEEP, comm, PETSC_ERR_ARG_OUTOFRANGE, "-checkpoint_keep %" PetscInt_FMT ": must be between 1 and %d", keep, MECH_IO_MAX_KEEP);
  PetscCall(PetscNew(&plan));
  plan->comm = comm;
  PetscCallMPI(MPI_Comm_rank(comm, &plan->rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  /* the temporary names carry rank 0's process id */
  PetscCallMPI(MPI_Bcast(&pid, 1, MPI_INT, 0, comm));
  msg[0] = 0;
  if (plan->rank == 0) Plan(plan, output, checkpoint, keep, restart, size, pid, &code, msg, sizeof(msg));
  /* rank 0 holds the locks from here: a signal while it waits for the other ranks removes them */
  if (plan->rank == 0 && !code) signalplan = plan;
  PetscCallMPI(MPI_Bcast(&code, 1, MPI_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)sizeof(msg), MPI_CHAR, 0, comm));
  if (code) {
    PetscCall(MechIOPlanDestroy(&plan));
    SETERRQ(comm, code, "%s", msg);
  }
  *planp = plan;
  PetscFunctionReturn(0);
}

/*@C
  MechIOPlanRemoveLocksOnSignal - Removes the lock files of the run's plan (the last one
  `MechIOPlanFiles()` made, until `MechIOPlanDestroy()`) from a signal handler, as `Release()` does
  (a shared lock's file only if no other run shares it), and the run's temporary names (which
  carry its process id: no other run writes them), before the signal ends the process: a run
  killed by a signal it handles leaves no lock file and no temporary. Uses only async-signal-safe
  calls (fcntl(), unlink()).

  Not Collective

  Level: developer

.seealso: `MechIOPlanFiles()`, `MechIOPlanDestroy()`
@*/
void MechIOPlanRemoveLocksOnSignal(void)
{
  MechIOPlan plan = signalplan;

  if (!plan) return;
  signalplan = NULL;
  for (PetscInt i = plan->nlock - 1; i >= 0; i--) {
    struct flock fl;

    memset(&fl, 0, sizeof(fl));
    fl.l_type   = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (!plan->shared[i] || !fcntl(plan->fd[i], F_SETLK, &fl)) (void)unlink(plan->lockpath[i]);
  }
  for (PetscInt i = 0; i < plan->ntmp; i++) (void)unlink(plan->tmppath[i]);
}

/*@C
  MechIOPlanDestroy - Releases the locks of a plan (`MechIOPlanFiles()`), removes its lock files
  and frees it.

  Collective

  Input Parameter:
. plan - address of the plan (it may hold NULL); set to NULL on return

  Level: intermediate

.seealso: `MechIOPlanFiles()`
@*/
PetscErrorCode MechIOPlanDestroy(MechIOPlan *plan)
{
  PetscFunctionBegin;
  if (!*plan) PetscFunctionReturn(0);
  Release(*plan);
  for (PetscInt i = 0; i < (*plan)->ntmp; i++) PetscCall(PetscFree((*plan)->tmppath[i]));
  PetscCall(PetscFree((*plan)->tmppath));
  PetscCall(PetscFree((*plan)->fd));
  PetscCall(PetscFree((*plan)->lockpath));
  PetscCall(PetscFree((*plan)->shared));
  PetscCall(PetscFree(*plan));
  PetscFunctionReturn(0);
}

/*@C
  MechIOSameFile - Whether two paths name the same file: the same canonical path (directories
  resolved, for files that may not exist yet), or, for existing files, the same device and
  inode (hard links).

  Collective

  Input Parameters:
+ comm - the communicator (rank 0 looks, every rank gets the answer)
. a    - a path
- b    - another path

  Output Parameter:
. same - the answer

  Level: developer

.seealso: `MechIOPlanFiles()`
@*/
PetscErrorCode MechIOSameFile(MPI_Comm comm, const char a[], const char b[], PetscBool *same)
{
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  *same = PETSC_FALSE;
  if (rank == 0) {
    char        ca[PETSC_MAX_PATH_LEN], cb[PETSC_MAX_PATH_LEN];
    struct stat sa, sb;

    Canonical(a, ca, sizeof(ca));
    Canonical(b, cb, sizeof(cb));
    if (!strcmp(ca, cb)) *same = PETSC_TRUE;
    else if (!stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino) *same = PETSC_TRUE;
  }
  PetscCallMPI(MPI_Bcast(same, 1, MPIU_BOOL, 0, comm));
  PetscFunctionReturn(0);
}
