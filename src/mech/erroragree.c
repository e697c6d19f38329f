/*
  Agreement on an error path: whether every rank of a communicator has reached its error path, so
  that collective clean-up (closing a parallel HDF5 file, destroying objects) may follow there. An
  error on some ranks only leaves the others elsewhere, in a collective operation of the run that
  the failing ranks will never join; entering another collective operation on the failing ranks
  would wait forever. The answer comes from an MPI_Ibarrier() on a duplicate of the communicator
  kept for this alone (made beforehand, collectively, by MechErrorAgreeSetUp()), waited for at most
  a given time on the caller's clock.

  The README's "An error on some ranks only" gives the policy: a rank whose error has no partner
  tells its message and ends the job. The tsmech program applies it with its own communicator;
  the Python package (python/tsmech) calls these functions on its error paths.

  MechSystemAgree() (below) makes a model callback's outcome collective the same way, on the
  system's own communicator: every rank raises the failing rank's error, or a rank left alone ends
  the job.
*/
#define _POSIX_C_SOURCE 200809L
#include "mechimpl.h"
#include <stdio.h>
#include <time.h>

/* The attribute of a communicator that holds the duplicate: an MPI_Comm in PETSc memory */
static PetscMPIInt ErrorAgreeKeyval = MPI_KEYVAL_INVALID;

static PetscMPIInt MPIAPI ErrorAgreeDelete(MPI_Comm comm, PetscMPIInt keyval, void *attr, void *extra)
{
  MPI_Comm *dup = (MPI_Comm *)attr;

  (void)comm;
  (void)keyval;
  (void)extra;
  if (*dup != MPI_COMM_NULL) (void)MPI_Comm_free(dup);
  (void)PetscFree(dup);
  return MPI_SUCCESS;
}

/* Frees the duplicates of PETSC_COMM_WORLD and PETSC_COMM_SELF before MPI ends (the others go
   with their communicators); registered with PetscRegisterFinalize() */
static PetscErrorCode ErrorAgreeFinalize(void)
{
  PetscFunctionBegin;
  if (ErrorAgreeKeyval != MPI_KEYVAL_INVALID) {
    void       *attr;
    PetscMPIInt flag;

    PetscCallMPI(MPI_Comm_get_attr(PETSC_COMM_WORLD, ErrorAgreeKeyval, &attr, &flag));
    if (flag) PetscCallMPI(MPI_Comm_delete_attr(PETSC_COMM_WORLD, ErrorAgreeKeyval));
    PetscCallMPI(MPI_Comm_get_attr(PETSC_COMM_SELF, ErrorAgreeKeyval, &attr, &flag));
    if (flag) PetscCallMPI(MPI_Comm_delete_attr(PETSC_COMM_SELF, ErrorAgreeKeyval));
    PetscCallMPI(MPI_Comm_free_keyval(&ErrorAgreeKeyval));
  }
  PetscFunctionReturn(0);
}

/*@C
  MechErrorAgreeSetUp - Prepares the agreement of `MechErrorAgree()` on a communicator: a
  duplicate of it used for nothing else, kept with the communicator (an MPI attribute, freed with
  it). Does nothing when it is prepared already.

  Collective

  Input Parameter:
. comm - the communicator

  Level: developer

  Note:
  Call it where every rank of comm passes (creating the objects of a run, before a solve): the
  error path, where it is needed, may be reached by some ranks only.

.seealso: `MechErrorAgree()`
@*/
PetscErrorCode MechErrorAgreeSetUp(MPI_Comm comm)
{
  MPI_Comm   *dup;
  void       *attr;
  PetscMPIInt flag;

  PetscFunctionBegin;
  if (ErrorAgreeKeyval == MPI_KEYVAL_INVALID) {
    PetscCallMPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, ErrorAgreeDelete, &ErrorAgreeKeyval, NULL));
    PetscCall(PetscRegisterFinalize(ErrorAgreeFinalize));
  }
  PetscCallMPI(MPI_Comm_get_attr(comm, ErrorAgreeKeyval, &attr, &flag));
  if (flag) PetscFunctionReturn(0);
  PetscCall(PetscNew(&dup));
  PetscCallMPI(MPI_Comm_dup(comm, dup));
  PetscCallMPI(MPI_Comm_set_attr(comm, ErrorAgreeKeyval, dup));
  PetscFunctionReturn(0);
}

/*@C
  MechErrorAgree - Whether every rank of a communicator has reached its error path: called there
  on each rank, it waits at most `seconds` for the others to call it too.

  Not Collective (every rank that reaches its error path calls it)

  Input Parameters:
+ comm    - the communicator, prepared with `MechErrorAgreeSetUp()`
- seconds - how long to wait for the others: an error raised on every rank finds them all there
            within milliseconds; a rank whose error is its own waits the whole time

  Output Parameter:
. all - `PETSC_TRUE` if every rank has called it: collective clean-up may follow; `PETSC_FALSE`
        if some rank did not call it within the time: the others are in an operation this rank
        will never join, and the caller should tell its error and end the job (`MPI_Abort()`),
        as the README's "An error on some ranks only" says

  Level: developer

  Notes:
  One communicator of size 1 answers at once. After a `PETSC_FALSE` answer the agreement of comm
  is spent (a barrier is left pending): end the job.

  The tsmech Python package calls it when `tsmech.solve()` or a `with tsmech.Output(...)` block
  ends in an exception.

.seealso: `MechErrorAgreeSetUp()`
@*/
PetscErrorCode MechErrorAgree(MPI_Comm comm, PetscReal seconds, PetscBool *all)
{
  MPI_Comm   *dup;
  MPI_Request req;
  PetscMPIInt size, flag;
  int         done = 0;
  double      t0   = MPI_Wtime();

  PetscFunctionBegin;
  *all = PETSC_TRUE;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size == 1) PetscFunctionReturn(0);
  flag = 0;
  if (ErrorAgreeKeyval != MPI_KEYVAL_INVALID) PetscCallMPI(MPI_Comm_get_attr(comm, ErrorAgreeKeyval, &dup, &flag));
  PetscCheck(flag, PETSC_COMM_SELF, PETSC_ERR_ORDER, "MechErrorAgree(): the communicator was not prepared with MechErrorAgreeSetUp()");
  PetscCallMPI(MPI_Ibarrier(*dup, &req));
  PetscCallMPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
  while (!done && MPI_Wtime() - t0 < seconds) {
    struct timespec pause = {0, 1000000};

    (void)nanosleep(&pause, NULL);
    PetscCallMPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
  }
  *all = done ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*
  MechSystemAgree - Makes the outcome of a model callback collective: ierr is what the callback
  returned on this rank. A callback that fails on some ranks only (a Python exception, a check of
  local data) would leave the other ranks in the integrator's next collective operation, waiting
  forever; here every rank learns of the failure at once and raises the same error, with the
  error code and message of the lowest failing rank, which then every program (the driver, a C or
  petsc4py program) sees on every rank. One reduction per callback on several ranks (on a
  communicator of its own, so that it can match no other operation), none on one.

  A callback that fails before a collective operation of its own (an assembly) leaves the other
  ranks inside it, where no agreement reaches them: a failing rank that has waited
  -mech_agree_timeout seconds (5) for the others tells its message on stderr and ends the job
  (MPI_Abort() with status 3, as a failed integration). The wait is on this rank's own clock,
  but it decides no collective operation: only whether this rank ends every rank.
*/
PetscErrorCode MechSystemAgree(MechSystem sys, PetscErrorCode ierr, const char what[])
{
  MPI_Comm    comm = sys->agreecomm;
  PetscMPIInt size, rank, mine, first = 0;
  MPI_Request req;
  int         code = (int)ierr, done = 0;
  char        msg[1024] = "";

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size == 1) {
    PetscCall(ierr);
    PetscFunctionReturn(0);
  }
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  mine = ierr ? rank : size;
  PetscCallMPI(MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm, &req));
  if (ierr) {
    const char *text     = NULL;
    char       *specific = NULL;
    double      t0       = MPI_Wtime();

    (void)PetscErrorMessage(ierr, &text, &specific);
    (void)PetscStrncpy(msg, specific && specific[0] ? specific : (text ? text : "unknown error"), sizeof(msg));
    while (!done) {
      PetscCallMPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
      if (!done && MPI_Wtime() - t0 > sys->agreetimeout) {
        (void)fprintf(stderr, "tsmech: error on rank %d: %s (the model's %s failed on this rank only; the other ranks did not follow within %g s: ending the job)\n", (int)rank, msg, what, (double)sys->agreetimeout);
        (void)fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
      if (!done) {
        struct timespec pause = {0, 1000000};
        (void)nanosleep(&pause, NULL);
      }
    }
  } else PetscCallMPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  if (first == size) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Bcast(&code, 1, MPI_INT, first, comm));
  PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)sizeof(msg), MPI_CHAR, first, comm));
  SETERRQ(PetscObjectComm((PetscObject)sys), (PetscErrorCode)code, "%s (the model's %s failed on rank %d)", msg, what, (int)first);
}
