/*
  Test hooks of the library and the tsmech program: MechTestPause() stops a run at a chosen
  point (midway through a checkpoint write, or in the driver) so that a test can kill it there.
*/
#define _POSIX_C_SOURCE 200809L
#include "outputimpl.h"
#include <stdio.h>
#include <time.h>
#include <unistd.h>

/*
  MechTestPause - Test hook: writes `marker` (the process ids of all ranks, one a line, written to
  a temporary name and renamed, so it appears complete) and waits, up to a minute, to be killed
  or, when stop is given, until *stop becomes non-zero (a signal handler's flag). Collective.
*/
PetscErrorCode MechTestPause(MPI_Comm comm, const char marker[], volatile sig_atomic_t *stop)
{
  PetscMPIInt size, rank, i;
  int         pid = (int)getpid(), *pids = NULL;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) PetscCall(PetscMalloc1(size, &pids));
  PetscCallMPI(MPI_Gather(&pid, 1, MPI_INT, pids, 1, MPI_INT, 0, comm));
  if (rank == 0) {
    char  tmp[PETSC_MAX_PATH_LEN];
    FILE *fp;

    PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp", marker));
    fp = fopen(tmp, "w");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write the test marker %s", tmp);
    for (i = 0; i < size; i++) fprintf(fp, "%d\n", pids[i]);
    fclose(fp);
    PetscCheck(!rename(tmp, marker), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename %s", tmp);
    PetscCall(PetscFree(pids));
  }
  for (i = 0; i < 6000 && !(stop && *stop); i++) {
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
  }
  PetscFunctionReturn(0);
}
