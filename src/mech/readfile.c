/*
  Files the program reads (time-function tables, meshes, checkpoints, continued outputs, files of
  options, initial states): every one is checked here, in one place, before it is read. It must
  be a regular file (a FIFO would block the open until a writer comes, a directory reads as a
  file of 2^63 bytes, a device as an endless one), readable, and no larger than its reader can
  hold. The check opens the file without blocking (O_NONBLOCK) and looks at what it opened
  (fstat()), so that a path replaced by a FIFO between a check and the open cannot hang the run;
  MechFileReadAll() reads from that same descriptor.
*/
/* open(), fstat() and sysconf() are POSIX */
#define _POSIX_C_SOURCE 200809L
#include "mechimpl.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A size in bytes for a message: "70 MiB", "3 GiB", "512 bytes" */
static void SizeText(unsigned long long bytes, char buf[], size_t len)
{
  if (bytes >= 1ULL << 30) (void)snprintf(buf, len, "%.3g GiB", (double)bytes / (double)(1ULL << 30));
  else if (bytes >= 1ULL << 20) (void)snprintf(buf, len, "%.3g MiB", (double)bytes / (double)(1ULL << 20));
  else (void)snprintf(buf, len, "%llu bytes", bytes);
}

/* What a file of this mode is, for a file that is not regular */
static const char *KindOf(mode_t mode)
{
  if (S_ISDIR(mode)) return "a directory, not a file";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe), not a regular file: reading it would wait for a writer";
  if (S_ISCHR(mode)) return "a character device, not a regular file";
  if (S_ISBLK(mode)) return "a block device, not a regular file";
  if (S_ISSOCK(mode)) return "a socket, not a regular file";
  return "not a regular file";
}

/*
  Opens path for reading without blocking and checks what was opened: *fd the descriptor (-1 on a
  refusal), *size its size; why[] the reason of a refusal ("" if none). maxbytes 0: no limit.
*/
static void OpenChecked(const char path[], unsigned long long maxbytes, int *fd, unsigned long long *size, char why[], size_t len)
{
  struct stat st;
  int         f;

  why[0] = 0;
  *fd    = -1;
  *size  = 0;
  /* lstat-free: a symbolic link to a regular file is a regular file; stat() first, so that a FIFO
     is never opened at all (opening one without a writer succeeds with O_NONBLOCK, but needs none) */
  if (stat(path, &st)) {
    if (errno == ENOENT) (void)snprintf(why, len, "the file does not exist");
    else if (errno == ENOTDIR) (void)snprintf(why, len, "the file does not exist (a part of its path is not a directory)");
    else if (errno == ENAMETOOLONG) (void)snprintf(why, len, "the path is too long for the file system");
    else (void)snprintf(why, len, "the file cannot be read (%s)", strerror(errno));
    return;
  }
  if (!S_ISREG(st.st_mode)) {
    (void)snprintf(why, len, "it is %s", KindOf(st.st_mode));
    return;
  }
  f = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (f < 0) {
    (void)snprintf(why, len, "the file cannot be read (%s)", strerror(errno));
    return;
  }
  /* what was opened, not what the path named a moment before */
  if (fstat(f, &st) || !S_ISREG(st.st_mode)) {
    (void)snprintf(why, len, "it is %s", KindOf(st.st_mode));
    (void)close(f);
    return;
  }
  if (maxbytes && (unsigned long long)st.st_size > maxbytes) {
    char a[32], b[32];

    SizeText((unsigned long long)st.st_size, a, sizeof(a));
    SizeText(maxbytes, b, sizeof(b));
    (void)snprintf(why, len, "the file has %s, more than the %s this input may have", a, b);
    (void)close(f);
    return;
  }
  /* back to blocking reads of a regular file */
  (void)fcntl(f, F_SETFL, fcntl(f, F_GETFL) & ~O_NONBLOCK);
  *fd   = f;
  *size = (unsigned long long)st.st_size;
}

/*@C
  MechFileProblem - Why a file cannot be read as an input ("" if it can): it must exist, be a
  regular file (not a directory, a FIFO, a device or a socket), be readable and have at most
  maxbytes bytes. Opens nothing that could block.

  Not Collective (uses no PETSc object; callable before `PetscInitialize()`)

  Input Parameters:
+ path     - the file
. maxbytes - the largest size accepted (0: any)
- len      - the size of why

  Output Parameter:
. why - the reason, or "" if the file can be read

  Level: developer

.seealso: `MechFileCheckRead()`, `MechFileReadAll()`
@*/
void MechFileProblem(const char path[], unsigned long long maxbytes, char why[], size_t len)
{
  int                fd;
  unsigned long long size;

  OpenChecked(path, maxbytes, &fd, &size, why, len);
  if (fd >= 0) (void)close(fd);
}

/*@C
  MechFileMemoryLimit - The largest input file a reader that holds it whole in memory accepts: a
  quarter of the machine's physical memory (the reader's arrays take a few times the file).

  Not Collective

  Level: developer

.seealso: `MechFileCheckRead()`
@*/
unsigned long long MechFileMemoryLimit(void)
{
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);

  if (pages <= 0 || page <= 0) return 1ULL << 34; /* 16 GiB if the system does not say */
  return (unsigned long long)pages * (unsigned long long)page / 4;
}

/*@C
  MechFileCheckRead - Checks on rank 0 that a file an option names can be read as an input
  (`MechFileProblem()`) and refuses it on every rank with one line naming the option and the file.

  Collective

  Input Parameters:
+ comm     - the communicator
. option   - the option that names the file (e.g. "-solid_mesh"), for the message
. prefix   - what precedes the path in the option's value (e.g. "table:"), or NULL
. path     - the file
- maxbytes - the largest size accepted (0: any)

  Level: developer

  Notes:
  The message shows a long path shortened (`MechOptionsShortValue()`), so that its reason is never
  cut off. The error is `PETSC_ERR_FILE_OPEN`.

.seealso: `MechFileProblem()`, `MechFileReadAll()`
@*/
PetscErrorCode MechFileCheckRead(MPI_Comm comm, const char option[], const char prefix[], const char path[], unsigned long long maxbytes)
{
  PetscMPIInt rank;
  char        why[256] = "", shown[160];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) MechFileProblem(path, maxbytes, why, sizeof(why));
  PetscCallMPI(MPI_Bcast(why, (PetscMPIInt)sizeof(why), MPI_CHAR, 0, comm));
  PetscCheck(!why[0], comm, PETSC_ERR_FILE_OPEN, "%s %s%s: %s", option, prefix ? prefix : "", MechOptionsShortValue(path, shown, sizeof(shown)), why);
  PetscFunctionReturn(0);
}

/*@C
  MechFileReadAll - Reads a whole input file into memory after the checks of `MechFileProblem()`,
  from the descriptor it checked; a zero byte follows the contents.

  Not Collective

  Input Parameters:
+ path     - the file
. maxbytes - the largest size accepted (0: any)
- len      - the size of why

  Output Parameters:
+ buf   - the contents (free with `PetscFree()`), NULL if refused
. size  - their length in bytes
- why   - the reason of a refusal, "" if the file was read

  Level: developer

  Notes:
  A refusal is no error: the caller (often rank 0 alone) broadcasts it. Errors are only those of
  the memory allocation.

.seealso: `MechFileProblem()`, `MechFileCheckRead()`
@*/
PetscErrorCode MechFileReadAll(const char path[], unsigned long long maxbytes, char **buf, size_t *size, char why[], size_t len)
{
  int                fd;
  unsigned long long n, got = 0;

  PetscFunctionBegin;
  *buf  = NULL;
  *size = 0;
  OpenChecked(path, maxbytes, &fd, &n, why, len);
  if (fd < 0) PetscFunctionReturn(0);
  if (n + 1 > (unsigned long long)SIZE_MAX || PetscMalloc1((size_t)n + 1, buf)) {
    char a[32];

    SizeText(n, a, sizeof(a));
    (void)PetscSNPrintf(why, len, "no memory to read its %s", a);
    (void)close(fd);
    *buf = NULL;
    PetscFunctionReturn(0);
  }
  errno = 0;
  while (got < n) {
    ssize_t r = read(fd, *buf + got, (size_t)PetscMin(n - got, 1ULL << 30));

    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (unsigned long long)r;
  }
  (void)close(fd);
  if (got != n) {
    (void)PetscSNPrintf(why, len, "the file cannot be read (%llu of its %llu bytes read%s%s)", got, n, errno ? ": " : "", errno ? strerror(errno) : "");
    PetscCall(PetscFree(*buf));
    PetscFunctionReturn(0);
  }
  (*buf)[n] = 0;
  *size     = (size_t)n;
  PetscFunctionReturn(0);
}
