/*
  Checks of the files a run will write, made before any work: whether a path can be written
  (its directory exists and accepts a new file, the path is not a directory), and what an
  existing file is (a tsmech output, a tsmech checkpoint, another HDF5 file, not HDF5), so that a
  run never overwrites a file of another kind. Rank 0 looks, every rank gets the answer.
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
#include <unistd.h>

/* The directory part of a path ("." for a bare name, "/" for a file in the root) */
static void DirectoryOf(const char path[], char dir[], size_t len)
{
  const char *slash = strrchr(path, '/');

  if (!slash) (void)PetscStrncpy(dir, ".", len);
  else if (slash == path) (void)PetscStrncpy(dir, "/", len);
  else (void)PetscStrncpy(dir, path, PetscMin(len, (size_t)(slash - path) + 1));
}

/* Rank 0's part of MechIOCheckWritable(): the reason path cannot be written, "" if it can */
static void CheckWritableLocal(const char path[], char problem[], size_t len)
{
  struct stat st;
  char        dir[PETSC_MAX_PATH_LEN], probe[PETSC_MAX_PATH_LEN + 64];
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
    if (access(path, R_OK | W_OK)) {
      (void)PetscSNPrintf(problem, len, "it exists and cannot be read and written (%s)", strerror(errno));
      return;
    }
  }
  DirectoryOf(path, dir, sizeof(dir));
  if (stat(dir, &st)) {
    (void)PetscSNPrintf(problem, len, "its directory %s does not exist", dir);
    return;
  }
  if (!S_ISDIR(st.st_mode)) {
    (void)PetscSNPrintf(problem, len, "%s is not a directory", dir);
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
  (void)unlink(probe);
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
@*/
PetscErrorCode MechIOCheckWritable(MPI_Comm comm, const char path[], char problem[], size_t len)
{
  PetscMPIInt rank;
  char        buf[PETSC_MAX_PATH_LEN + 256];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) CheckWritableLocal(path, buf, sizeof(buf));
  PetscCallMPI(MPI_Bcast(buf, (PetscMPIInt)sizeof(buf), MPI_CHAR, 0, comm));
  PetscCall(PetscStrncpy(problem, buf, len));
  PetscFunctionReturn(0);
}

/* Rank 0's part of MechIOFileKind() */
static MechIOKind FileKindLocal(const char path[])
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
@*/
PetscErrorCode MechIOFileKind(MPI_Comm comm, const char path[], MechIOKind *kind)
{
  PetscMPIInt rank;
  int         k = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) k = (int)FileKindLocal(path);
  PetscCallMPI(MPI_Bcast(&k, 1, MPI_INT, 0, comm));
  *kind = (MechIOKind)k;
  PetscFunctionReturn(0);
}
