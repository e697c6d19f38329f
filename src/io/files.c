/*
  Checks of the files a run will write, made before any work: whether a path can be written
  (its directory exists and accepts a new file, the path is not a directory, neither is
  append-only or immutable), what an existing file is (a tsmech output, a tsmech checkpoint,
  another HDF5 file, not HDF5), so that a run never overwrites a file of another kind, and
  whether its file system has room for a write. Rank 0 looks, every rank gets the answer.
  And the path helpers and the commit every file written under a temporary name shares: the
  directory of a path (MechIODirName()) and the atomic rename of the temporary file over its
  name, with fsync() and the rotation of kept versions for the checkpoints (MechIOCommitFile()).
*/
#define _POSIX_C_SOURCE 200809L
#include <petscsys.h>
#if defined(PETSC_HAVE_HDF5)
#include <petsc/private/viewerhdf5impl.h> /* <hdf5.h>, after PETSc's HDF5 configuration */
#endif
#include "outputimpl.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/ioctl.h>
#include <linux/fs.h> /* FS_IOC_GETFLAGS: the attributes chattr sets */
#endif

/* The directory part of a path ("." for a bare name, "/" for a file in the root) */
void MechIODirName(const char path[], char dir[], size_t len)
{
  const char *slash = strrchr(path, '/');

  if (!slash) (void)PetscStrncpy(dir, ".", len);
  else if (slash == path) (void)PetscStrncpy(dir, "/", len);
  else (void)PetscStrncpy(dir, path, PetscMin(len, (size_t)(slash - path) + 1));
}

/*
  The attributes of a file or directory that forbid replacing it (chattr +a, +i): a file that is
  append-only or immutable cannot be renamed over, removed or truncated, a directory that is
  cannot have its entries replaced or removed. NULL where the file system has no such attributes.
*/
const char *MechIOProtection(const char path[])
{
#if defined(__linux__) && defined(FS_IOC_GETFLAGS)
  int fd, flags = 0, ok;

  fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return NULL;
  ok = ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
  (void)close(fd);
  if (!ok) return NULL;
  if (flags & FS_IMMUTABLE_FL) return "immutable (chattr +i)";
  if (flags & FS_APPEND_FL) return "append-only (chattr +a)";
#else
  (void)path;
#endif
  return NULL;
}

/* Rank 0's part of MechIOCheckWritable(): the reason path cannot be written, "" if it can */
void MechIOCheckWritableLocal(const char path[], char problem[], size_t len)
{
  struct stat st;
  char        dir[PETSC_MAX_PATH_LEN], probe[PETSC_MAX_PATH_LEN + 64];
  const char *prot;
  int         fd;

  problem[0] = 0;
  if (!path[0]) {
    (void)PetscSNPrintf(problem, len, "the file name is empty");
    return;
  }
  if (!stat(path, &st)) {
    if (S_ISDIR(st.st_mode)) {
      (void)PetscSNPrintf(problem, len, "it is a directory, not a file");
      return;
    }
    if (!S_ISREG(st.st_mode)) {
      (void)PetscSNPrintf(problem, len, "it exists and is not a regular file");
      return;
    }
    if ((prot = MechIOProtection(path))) {
      (void)PetscSNPrintf(problem, len, "it exists and is %s: it cannot be replaced", prot);
      return;
    }
    if (access(path, R_OK | W_OK)) {
      (void)PetscSNPrintf(problem, len, "it exists and cannot be read and written (%s)", strerror(errno));
      return;
    }
  } else if (errno == ENAMETOOLONG) {
    (void)PetscSNPrintf(problem, len, "%s", strerror(errno));
    return;
  }
  MechIODirName(path, dir, sizeof(dir));
  if (stat(dir, &st)) {
    (void)PetscSNPrintf(problem, len, "its directory %s does not exist", dir);
    return;
  }
  if (!S_ISDIR(st.st_mode)) {
    (void)PetscSNPrintf(problem, len, "%s is not a directory", dir);
    return;
  }
  /* a file written to a temporary name is renamed over the old one, which an append-only
     directory forbids although a new file can be created there */
  if ((prot = MechIOProtection(dir))) {
    (void)PetscSNPrintf(problem, len, "its directory %s is %s: files there cannot be replaced", dir, prot);
    return;
  }
  /* the files are written under a temporary name in the same directory and renamed: a file is
     created there and removed (access() alone is wrong for root and read-only file systems) */
  (void)PetscSNPrintf(probe, sizeof(probe), "%s/.tsmech-probe-%d", dir, (int)getpid());
  fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    (void)PetscSNPrintf(problem, len, "no file can be created in its directory %s (%s)", dir, strerror(errno));
    return;
  }
  (void)close(fd);
  if (unlink(probe)) (void)PetscSNPrintf(problem, len, "a file created in its directory %s cannot be removed (%s)", dir, strerror(errno));
}

/*@C
  MechIOCheckWritable - Whether a file can be written at path, checked without leaving anything
  behind: the path is not a directory or a special file, an existing file can be read and
  written, and its directory exists and a new file can be created there.

  Collective

  Input Parameters:
+ comm - the communicator (rank 0 checks, every rank gets the answer)
. path - the file
- len  - the size of problem

  Output Parameter:
. problem - why the file cannot be written, "" if it can

  Level: developer

.seealso: `MechIOFileKind()`, `MechIOCheckSpace()`, `MechIOPlanFiles()`
@*/
PetscErrorCode MechIOCheckWritable(MPI_Comm comm, const char path[], char problem[], size_t len)
{
  PetscMPIInt rank;
  char        buf[PETSC_MAX_PATH_LEN + 256];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) MechIOCheckWritableLocal(path, buf, sizeof(buf));
  PetscCallMPI(MPI_Bcast(buf, (PetscMPIInt)sizeof(buf), MPI_CHAR, 0, comm));
  PetscCall(PetscStrncpy(problem, buf, len));
  PetscFunctionReturn(0);
}

/* Rank 0's part of MechIOFileKind() */
MechIOKind MechIOFileKindLocal(const char path[])
{
  static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  unsigned char              head[8];
  struct stat                st;
  FILE                      *fp;
  size_t                     n;
  MechIOKind                 kind = MECH_IO_HDF5;

  if (stat(path, &st)) return MECH_IO_MISSING;
  if (!S_ISREG(st.st_mode)) return MECH_IO_OTHER;
  if (st.st_size == 0) return MECH_IO_EMPTY;
  fp = fopen(path, "rb");
  if (!fp) return MECH_IO_OTHER;
  n = fread(head, 1, sizeof(head), fp);
  (void)fclose(fp);
  if (n < sizeof(head) || memcmp(head, sig, sizeof(sig))) return MECH_IO_NOT_HDF5;
#if defined(PETSC_HAVE_HDF5)
  {
    hid_t       file, root;
    H5E_auto2_t efunc;
    void       *edata;

    /* HDF5's own error stack is silenced: a damaged file is an answer, not an error */
    (void)H5Eget_auto2(H5E_DEFAULT, &efunc, &edata);
    (void)H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    kind = MECH_IO_DAMAGED;
    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file >= 0) {
      kind = MECH_IO_HDF5;
      if (H5Lexists(file, "/checkpoint", H5P_DEFAULT) > 0) kind = MECH_IO_CHECKPOINT;
      else {
        root = H5Gopen2(file, "/", H5P_DEFAULT);
        if (root >= 0) {
          if (H5Aexists(root, "model") > 0 && H5Lexists(file, "/monitor", H5P_DEFAULT) > 0) kind = MECH_IO_OUTPUT;
          (void)H5Gclose(root);
        }
      }
      (void)H5Fclose(file);
    }
    (void)H5Eset_auto2(H5E_DEFAULT, efunc, edata);
  }
#endif
  return kind;
}

/*@C
  MechIOFileKind - What the file at path is: missing, empty, not HDF5, an HDF5 file that cannot
  be opened (truncated or damaged), a tsmech checkpoint, a tsmech output, another HDF5 file, or
  something other than a regular file.

  Collective

  Input Parameters:
+ comm - the communicator (rank 0 looks, every rank gets the answer)
- path - the file

  Output Parameter:
. kind - the kind

  Level: developer

.seealso: `MechIOCheckWritable()`, `MechIOPlanFiles()`
@*/
PetscErrorCode MechIOFileKind(MPI_Comm comm, const char path[], MechIOKind *kind)
{
  PetscMPIInt rank;
  int         k = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) k = (int)MechIOFileKindLocal(path);
  PetscCallMPI(MPI_Bcast(&k, 1, MPI_INT, 0, comm));
  *kind = (MechIOKind)k;
  PetscFunctionReturn(0);
}

/* The bytes a write may use in the directory of path (the unprivileged user's share), -1 if unknown */
long long MechIOFreeBytes(const char path[])
{
  char           dir[PETSC_MAX_PATH_LEN];
  struct statvfs sv;

  MechIODirName(path, dir, sizeof(dir));
  if (statvfs(dir, &sv)) return -1;
  return (long long)sv.f_bavail * (long long)sv.f_frsize;
}

/*@C
  MechIOCheckSpace - Whether the file system of path has room for a write of about `bytes`
  bytes, checked before the write: a write that runs out of space midway leaves HDF5 unable to
  close the file (HDF5 1.10 then crashes at exit), and Open MPI prints its own messages.

  Collective

  Input Parameters:
+ comm  - the communicator (rank 0 looks, every rank gets the answer)
. path  - the file to be written (its directory's file system is asked)
. bytes - the data the write adds; MECH_IO_MARGIN is added for HDF5's metadata
- len   - the size of problem

  Output Parameter:
. problem - "no space left on device (...)" if the room is short, "" otherwise (also when the
            file system does not tell)

  Notes:
  The free space is that of statvfs(), which does not know of quotas: a write past a quota
  still fails in the write itself.

  Level: developer

.seealso: `MechIOCheckWritable()`, `MechIODescribeWriteFailure()`
@*/
PetscErrorCode MechIOCheckSpace(MPI_Comm comm, const char path[], long long bytes, char problem[], size_t len)
{
  PetscMPIInt rank;
  char        buf[PETSC_MAX_PATH_LEN + 256] = "";

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    long long avail = MechIOFreeBytes(path), need = bytes + MECH_IO_MARGIN;
    char      dir[PETSC_MAX_PATH_LEN];

    MechIODirName(path, dir, sizeof(dir));
    if (avail >= 0 && avail < need) (void)PetscSNPrintf(buf, sizeof(buf), "no space left on device (%lld bytes free in %s, the write needs about %lld)", avail, dir, need);
  }
  PetscCallMPI(MPI_Bcast(buf, (PetscMPIInt)sizeof(buf), MPI_CHAR, 0, comm));
  PetscCall(PetscStrncpy(problem, buf, len));
  PetscFunctionReturn(0);
}

/*@C
  MechIODescribeWriteFailure - After a write of path failed, why, as far as it can be told:
  "no space left on device (...)" or "disk quota exceeded" when the write's errno says so on
  some rank or the file system has less room than MECH_IO_MARGIN (HDF5 and MPI-IO report a full
  disk only as a failed write), else "".

  Collective

  Input Parameters:
+ comm - the communicator
. path - the file
. err  - errno after the failed write on this rank (set to 0 before it)
- len  - the size of what

  Output Parameter:
. what - the reason, or ""

  Level: developer

.seealso: `MechIOCheckSpace()`, `MechIOAgree()`
@*/
PetscErrorCode MechIODescribeWriteFailure(MPI_Comm comm, const char path[], int err, char what[], size_t len)
{
  int e = err == ENOSPC ? 2 : (err == EDQUOT ? 1 : 0);

  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &e, 1, MPI_INT, MPI_MAX, comm));
  PetscCall(MechIOCheckSpace(comm, path, 0, what, len));
  if (!what[0] && e == 2) PetscCall(PetscSNPrintf(what, len, "no space left on device"));
  if (!what[0] && e == 1) PetscCall(PetscSNPrintf(what, len, "disk quota exceeded"));
  PetscFunctionReturn(0);
}

/* The reason a write of path failed as this rank alone can tell it: from its errno, else from
   the room left (rank-local MechIODescribeWriteFailure(), for when the ranks cannot agree) */
void MechIODescribeWriteFailureLocal(const char path[], int err, char what[], size_t len)
{
  long long avail = MechIOFreeBytes(path);
  char      dir[PETSC_MAX_PATH_LEN];

  what[0] = 0;
  MechIODirName(path, dir, sizeof(dir));
  if (avail >= 0 && avail < MECH_IO_MARGIN) (void)PetscSNPrintf(what, len, "no space left on device (%lld bytes free in %s)", avail, dir);
  else if (err == ENOSPC) (void)PetscSNPrintf(what, len, "no space left on device");
  else if (err == EDQUOT) (void)PetscSNPrintf(what, len, "disk quota exceeded");
}

/*@C
  MechIOAgree - The ranks agree whether a write succeeded everywhere, waiting at most `seconds`
  for the others.

  Collective

  Input Parameters:
+ comm    - a communicator used for nothing else meanwhile (a duplicate: an agreement that timed
            out leaves its operation pending)
. seconds - how long to wait for the other ranks
- ok      - whether the write succeeded on this rank

  Output Parameters:
+ ok  - whether it succeeded on every rank
- all - whether every rank answered in time

  Notes:
  Parallel HDF5 does not fail on all ranks alike: when a write of rank 0's fails (a full disk),
  rank 0 returns the error while the others wait in a barrier of HDF5's that rank 0 never
  reaches. A blocking agreement would then wait for ever; with this one rank 0 gives up after
  `seconds` and returns its error, and the caller's error handling ends the job (the tsmech
  program aborts a run whose ranks do not all reach its error path).

  Level: developer

.seealso: `MechIODescribeWriteFailure()`, `MechIODiscardViewer()`
@*/
PetscErrorCode MechIOAgree(MPI_Comm comm, double seconds, PetscBool *ok, PetscBool *all)
{
  MPI_Request req;
  int        *v, done = 0;
  double      waited = 0;

  PetscFunctionBegin;
  /* on the heap: a request that does not complete here may complete later, into this buffer */
  PetscCall(PetscMalloc1(1, &v));
  *v = *ok ? 1 : 0;
  PetscCallMPI(MPI_Iallreduce(MPI_IN_PLACE, v, 1, MPI_INT, MPI_MIN, comm, &req));
  PetscCallMPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
  while (!done && waited < seconds) {
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
    waited += 2e-4;
    PetscCallMPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
  }
  *all = done ? PETSC_TRUE : PETSC_FALSE;
  if (!done) {
    *ok = PETSC_FALSE;
    PetscFunctionReturn(0); /* v stays allocated */
  }
  *ok = *v ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscFree(v));
  PetscFunctionReturn(0);
}

/* The XDMF companion of an HDF5 output: FILE.h5 -> FILE.xmf, any other name -> NAME.xmf */
void MechIOXDMFPath(const char h5[], char xmf[], size_t len)
{
  size_t n = strlen(h5);

  if (n >= 3 && !strcmp(h5 + n - 3, ".h5")) (void)PetscSNPrintf(xmf, len, "%.*sxmf", (int)(n - 2), h5);
  else (void)PetscSNPrintf(xmf, len, "%s.xmf", h5);
}

/*
  Whether the file at xmf is an XDMF description tsmech wrote (rank 0): its marker comment
  (MECH_XDMF_MARKER), or, for files of versions before the marker, an Xdmf element whose grids
  read /fields/q of h5name, the output beside it.
*/
PetscBool MechIOIsOwnXDMF(const char xmf[], const char h5name[])
{
  char      buf[65536], ref[PETSC_MAX_PATH_LEN + 32];
  FILE     *fp = fopen(xmf, "rb");
  size_t    n;
  PetscBool own;

  if (!fp) return PETSC_FALSE;
  n = fread(buf, 1, sizeof(buf) - 1, fp);
  (void)fclose(fp);
  buf[n] = 0;
  if (strlen(buf) != n || !strstr(buf, "<Xdmf")) return PETSC_FALSE; /* binary, or not XDMF */
  (void)PetscSNPrintf(ref, sizeof(ref), ">%s:/fields/q<", h5name);
  own = (strstr(buf, MECH_XDMF_MARKER) || strstr(buf, ref)) ? PETSC_TRUE : PETSC_FALSE;
  return own;
}

#if defined(PETSC_HAVE_HDF5)
/*@C
  MechIODiscardViewer - Closes the HDF5 viewer of a file that is being given up after a failed
  write, and removes the file.

  Collective

  Input Parameters:
+ viewer - the viewer (set to NULL)
- path   - its file

  Notes:
  HDF5 1.10 cannot close a file whose metadata it cannot write (a full disk): H5Fclose() fails,
  keeps a file id it has half destroyed, and HDF5 crashes when it closes that id at exit. So the
  file is first cut to length 0, which frees its blocks for what the close still writes, then
  closed with HDF5's error stack silenced, then removed. Errors are ignored: the file is lost
  anyway.

  Level: developer

.seealso: `MechIOAgree()`, `MechIODescribeWriteFailure()`
@*/
PetscErrorCode MechIODiscardViewer(PetscViewer *viewer, const char path[])
{
  MPI_Comm    comm;
  PetscMPIInt rank;
  H5E_auto2_t efunc;
  void       *edata;

  PetscFunctionBegin;
  if (!*viewer) PetscFunctionReturn(0);
  PetscCall(PetscObjectGetComm((PetscObject)*viewer, &comm));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Barrier(comm));
  if (rank == 0 && truncate(path, 0)) PetscCall(PetscInfo(NULL, "Cannot cut %s to length 0: %s\n", path, strerror(errno)));
  PetscCallMPI(MPI_Barrier(comm));
  (void)H5Eget_auto2(H5E_DEFAULT, &efunc, &edata);
  (void)H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  {
    PetscViewer_HDF5 *hdf5 = (PetscViewer_HDF5 *)(*viewer)->data;

    /* closed here, so that PetscViewerDestroy() neither fails on it nor closes it twice */
    if (hdf5->file_id > 0) (void)H5Fclose(hdf5->file_id);
    hdf5->file_id = 0;
  }
  (void)H5Eset_auto2(H5E_DEFAULT, efunc, edata);
  PetscCall(PetscViewerDestroy(viewer));
  if (rank == 0) (void)remove(path);
  PetscFunctionReturn(0);
}
#endif

/* fsync() of a file or directory: errno of a failure that means the data are not safe (the disk
   is full, or failed), 0 otherwise (not every file system supports fsync() of a directory) */
static int SyncPath(const char path[])
{
  int fd = open(path, O_RDONLY), err = 0;

  if (fd >= 0) {
    if (fsync(fd) && (errno == ENOSPC || errno == EDQUOT || errno == EIO)) err = errno;
    (void)close(fd);
  }
  return err;
}

/*
  The commit of a file written under a temporary name (one process, rank 0 of a parallel write):
  moves `tmp` to `path`, keeping `keep` versions. With sync, tmp is first synced to disk
  (fsync(); a failure that means its data are not safe is returned) and path's directory after
  the rename. The older versions move up (FILE.i -> FILE.i+1, renames that replace atomically),
  the current FILE gets a second name FILE.1 (a hard link, so FILE itself never disappears; a
  rename where links are not supported), and the rename of tmp over FILE is the commit. Returns
  errno (0 on success) and the failed operation in `what`. Used by the checkpoints (synced, with
  their -checkpoint_keep), the HDF5 output and its XDMF companion (keep 1, not synced).
*/
int MechIOCommitFile(const char tmp[], const char path[], PetscInt keep, PetscBool sync, char what[], size_t len)
{
  char      older[PETSC_MAX_PATH_LEN], newer[PETSC_MAX_PATH_LEN], dir[PETSC_MAX_PATH_LEN];
  PetscInt  i;
  PetscBool exists;
  int       err;

  if (sync && (err = SyncPath(tmp))) {
    (void)PetscSNPrintf(what, len, "writing %s to disk", tmp);
    return err;
  }
  if (keep > 1 && !access(path, F_OK)) {
    for (i = keep - 1; i >= 2; i--) {
      (void)PetscSNPrintf(newer, sizeof(newer), "%s.%" PetscInt_FMT, path, i - 1);
      (void)PetscSNPrintf(older, sizeof(older), "%s.%" PetscInt_FMT, path, i);
      exists = access(newer, F_OK) ? PETSC_FALSE : PETSC_TRUE;
      if (exists && rename(newer, older)) {
        (void)PetscSNPrintf(what, len, "rename %s to %s", newer, older);
        return errno;
      }
    }
    (void)PetscSNPrintf(older, sizeof(older), "%s.1", path);
    if (!access(older, F_OK) && unlink(older)) {
      (void)PetscSNPrintf(what, len, "remove %s", older);
      return errno;
    }
    if (link(path, older) && rename(path, older)) {
      (void)PetscSNPrintf(what, len, "rename %s to %s", path, older);
      return errno;
    }
  }
  if (rename(tmp, path)) {
    (void)PetscSNPrintf(what, len, "rename %s to %s", tmp, path);
    return errno;
  }
  if (sync) {
    MechIODirName(path, dir, sizeof(dir));
    (void)SyncPath(dir);
  }
  return 0;
}
