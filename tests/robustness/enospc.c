/*
  LD_PRELOAD shim for tests/robustness/run_diskfull.py where no small file system can be mounted:
  a directory whose "disk" holds ENOSPC_BYTES bytes. Writes to files under ENOSPC_DIR (write,
  pwrite, writev, pwritev and their 64-bit names: what Open MPI's MPI-IO and HDF5 use) count
  against the budget, shared by all processes through the 8-byte counter file ENOSPC_COUNTER;
  a write that would exceed it fails with ENOSPC. statvfs() of a path under ENOSPC_DIR reports
  what is left, as a full file system would. Writes through stdio's internal calls are not seen.
*/
/* both the 32- and the 64-bit offset names are defined here: none may stand for the other */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <unistd.h>

static const char    *dir;
static long long      budget = -1;
static int64_t       *used;
static pthread_once_t once_init;

static void Init(void)
{
  const char *b = getenv("ENOSPC_BYTES"), *c = getenv("ENOSPC_COUNTER");
  int         fd;

  dir = getenv("ENOSPC_DIR");
  if (!dir || !b || !c) return;
  fd = open(c, O_RDWR);
  if (fd < 0) return;
  used = mmap(NULL, sizeof(int64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (used == MAP_FAILED) {
    used = NULL;
    return;
  }
  budget = atoll(b);
}

static int Under(const char path[])
{
  size_t n = strlen(dir);
  return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/* Whether a write of n bytes to fd may go on (counted), else errno is ENOSPC */
static int Allow(int fd, size_t n)
{
  char    link[64], path[PATH_MAX];
  ssize_t len;

  pthread_once(&once_init, Init);
  if (budget < 0) return 1;
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  len = readlink(link, path, sizeof(path) - 1);
  if (len <= 0) return 1;
  path[len] = 0;
  if (!Under(path)) return 1;
  if (__atomic_add_fetch(used, (int64_t)n, __ATOMIC_SEQ_CST) > budget) {
    __atomic_sub_fetch(used, (int64_t)n, __ATOMIC_SEQ_CST);
    errno = ENOSPC;
    return 0;
  }
  return 1;
}

static size_t IovBytes(const struct iovec *iov, int cnt)
{
  size_t n = 0;
  for (int i = 0; i < cnt; i++) n += iov[i].iov_len;
  return n;
}

#define NEXT(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

ssize_t write(int fd, const void *buf, size_t n)
{
  return Allow(fd, n) ? NEXT(write)(fd, buf, n) : -1;
}
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
  return Allow(fd, n) ? NEXT(pwrite)(fd, buf, n, off) : -1;
}
ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
  return Allow(fd, n) ? NEXT(pwrite64)(fd, buf, n, off) : -1;
}
ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
  return Allow(fd, IovBytes(iov, cnt)) ? NEXT(writev)(fd, iov, cnt) : -1;
}
ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
  return Allow(fd, IovBytes(iov, cnt)) ? NEXT(pwritev)(fd, iov, cnt, off) : -1;
}
ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
  return Allow(fd, IovBytes(iov, cnt)) ? NEXT(pwritev64)(fd, iov, cnt, off) : -1;
}

/* The bytes left where path is, -1 if it is not under ENOSPC_DIR */
static long long Left(const char path[])
{
  char      abs[PATH_MAX];
  long long left;

  pthread_once(&once_init, Init);
  if (budget < 0 || !realpath(path, abs) || !Under(abs)) return -1;
  left = budget - (long long)__atomic_load_n(used, __ATOMIC_SEQ_CST);
  return left < 0 ? 0 : left;
}

int statvfs(const char *path, struct statvfs *b)
{
  int       e    = NEXT(statvfs)(path, b);
  long long left = e ? -1 : Left(path);
  if (left >= 0) b->f_bavail = b->f_bfree = (fsblkcnt_t)(left / (long long)(b->f_frsize ? b->f_frsize : 4096));
  return e;
}

int statvfs64(const char *path, struct statvfs64 *b)
{
  int       e    = NEXT(statvfs64)(path, b);
  long long left = e ? -1 : Left(path);
  if (left >= 0) b->f_bavail = b->f_bfree = (fsblkcnt64_t)(left / (long long)(b->f_frsize ? b->f_frsize : 4096));
  return e;
}
