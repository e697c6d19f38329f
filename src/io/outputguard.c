/*
  The file of an HDF5 output kept safe from failures: a new file is created under its temporary
  name after the checks of its path and room (MechOutputOpenFile()), every write is guarded
  (MechOutputBeginWrite(), MechOutputEndWrite(): the room checked first, HDF5's error stack
  silenced, the ranks agreeing on the outcome, a failure one message and a file not yet renamed
  removed), and the new file takes its name once a step is completed (MechOutputCommit()).
*/
#define _POSIX_C_SOURCE 200809L
#include <petsc/private/viewerhdf5impl.h> /* PetscCallHDF5(); first, as it must precede <hdf5.h> */
#include "outputimpl.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

#if defined(PETSC_HAVE_HDF5)

/*
  Opens a new file at `path` (the temporary name of `filename`): refuses up front a `filename`
  that cannot be written (MechIOCheckWritable()), and turns a failure of the HDF5 open itself into
  an error naming the file (HDF5's own error stack is silenced meanwhile). Removes a file the
  failed attempt may have created.
*/
PETSC_INTERN PetscErrorCode MechOutputOpenFile(MPI_Comm comm, PetscMPIInt rank, const char filename[], const char path[], PetscViewer *viewer)
{
  PetscErrorCode ierr;
  PetscBool      ok = PETSC_TRUE;
  H5E_auto2_t    efunc;
  void          *edata;
  char           problem[PETSC_MAX_PATH_LEN + 256];

  PetscFunctionBegin;
  PetscCall(MechIOCheckWritable(comm, filename, problem, sizeof(problem)));
  PetscCheck(!problem[0], comm, PETSC_ERR_FILE_OPEN, "Cannot create the HDF5 output file %s: %s", filename, problem);
  /* the header and HDF5's first metadata */
  PetscCall(MechIOCheckSpace(comm, filename, 0, problem, sizeof(problem)));
  PetscCheck(!problem[0], comm, PETSC_ERR_FILE_WRITE, "Cannot create the HDF5 output file %s: %s", filename, problem);
  PetscCallHDF5(H5Eget_auto2, (H5E_DEFAULT, &efunc, &edata));
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, NULL, NULL));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  /* no PetscViewerSetFromOptions(): -viewer_hdf5_sp_output or _base_dimension2 would change the
     documented layout */
  *viewer = NULL;
  ierr    = PetscViewerCreate(comm, viewer);
  if (!ierr) ierr = PetscViewerSetType(*viewer, PETSCVIEWERHDF5);
  if (!ierr) ierr = PetscViewerFileSetMode(*viewer, FILE_MODE_WRITE);
  if (!ierr) ierr = PetscViewerFileSetName(*viewer, path);
  if (ierr) ok = PETSC_FALSE;
  PetscCall(PetscPopErrorHandler());
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, efunc, edata));
  if (!ok) {
    /* PETSc 3.18 keeps the negative id of the failed H5Fcreate() and would flush and close it
       when the viewer is destroyed */
    if (*viewer && ((PetscViewer_HDF5 *)(*viewer)->data)->file_id < 0) ((PetscViewer_HDF5 *)(*viewer)->data)->file_id = 0;
    PetscCall(PetscViewerDestroy(viewer));
    if (rank == 0) (void)remove(path);
    SETERRQ(comm, PETSC_ERR_FILE_OPEN, "Cannot create the HDF5 output file %s", filename);
  }
  PetscFunctionReturn(0);
}

/*
  Begins a write of about `bytes` bytes: refused, and the output marked failed, if an earlier
  write failed or if the file system lacks the room (MechIOCheckSpace(): a write that runs out
  of space midway leaves a file HDF5 cannot close). Until MechOutputEndWrite(), HDF5's error stack is
  silenced and PETSc's errors are returned, not printed: a failure becomes one message.
*/
PETSC_INTERN PetscErrorCode MechOutputBeginWrite(MechOutput out, long long bytes, MechOutputQuiet *q)
{
  char problem[PETSC_MAX_PATH_LEN + 256];

  PetscFunctionBegin;
  PetscCheck(!out->failed, out->comm, PETSC_ERR_FILE_WRITE, "Cannot write the HDF5 output %s: %s", out->h5path, out->failmsg);
  PetscCall(MechIOCheckSpace(out->comm, out->h5path, bytes, problem, sizeof(problem)));
  if (problem[0]) {
    out->failed = PETSC_TRUE;
    PetscCall(PetscStrncpy(out->failmsg, problem, sizeof(out->failmsg)));
    if (out->tmppath) {
      PetscCall(MechIODiscardViewer(&out->viewer, out->tmppath));
      PetscCall(PetscFree(out->tmppath));
    }
    SETERRQ(out->comm, PETSC_ERR_FILE_WRITE, "Cannot write the HDF5 output %s: %s", out->h5path, problem);
  }
  PetscCallHDF5(H5Eget_auto2, (H5E_DEFAULT, &q->efunc, &q->edata));
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, NULL, NULL));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  errno = 0; /* a write that fails on a full disk leaves ENOSPC */
  PetscFunctionReturn(0);
}

/*
  Ends a write begun with MechOutputBeginWrite(), whose result on this rank is ierr. The ranks agree on
  the outcome (MechIOAgree()); a failure marks the output failed, gives up a file not yet
  renamed from its temporary name (MechIODiscardViewer()), and is raised as one error naming the
  file: "no space left on device" when the file system is full, else the first error's own
  message. When the other ranks do not answer (parallel HDF5 left them in a collective call),
  this rank raises its error alone, after removing a temporary file.
*/
PETSC_INTERN PetscErrorCode MechOutputEndWrite(MechOutput out, MechOutputQuiet *q, PetscErrorCode ierr)
{
  PetscBool   ok = ierr ? PETSC_FALSE : PETSC_TRUE;
  char        what[PETSC_MAX_PATH_LEN + 256];
  const char *text     = NULL;
  char       *specific = NULL;
  int         err      = errno;
  PetscBool   all;

  PetscFunctionBegin;
  PetscCall(PetscPopErrorHandler());
  PetscCallHDF5(H5Eset_auto2, (H5E_DEFAULT, q->efunc, q->edata));
  PetscCall(MechIOAgree(out->agree, MECH_IO_AGREE_SECONDS, &ok, &all));
  if (ok) PetscFunctionReturn(0);
  out->failed = PETSC_TRUE;
  if (!all) {
    MechIODescribeWriteFailureLocal(out->tmppath ? out->tmppath : out->h5path, err, what, sizeof(what));
    if (!what[0]) {
      if (ierr) (void)PetscErrorMessage(ierr, &text, &specific);
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s", specific && specific[0] ? specific : "the write failed"));
    }
    if (out->rank == 0 && out->tmppath) (void)remove(out->tmppath);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write the HDF5 output %s: %s (the other ranks did not end the write)", out->h5path, what);
  }
  PetscCall(MechIODescribeWriteFailure(out->comm, out->h5path, err, what, sizeof(what)));
  if (!what[0]) {
    if (ierr) (void)PetscErrorMessage(ierr, &text, &specific);
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s", specific && specific[0] ? specific : (ierr ? (text ? text : "the write failed") : "the write failed on another rank")));
  }
  PetscCall(PetscStrncpy(out->failmsg, what, sizeof(out->failmsg)));
  if (out->tmppath) {
    PetscCall(MechIODiscardViewer(&out->viewer, out->tmppath));
    PetscCall(PetscFree(out->tmppath));
  }
  SETERRQ(out->comm, PETSC_ERR_FILE_WRITE, "Cannot write the HDF5 output %s: %s", out->h5path, what);
}

/* Renames a new file from its temporary name to its name, once. Collective. */
PETSC_INTERN PetscErrorCode MechOutputCommit(MechOutput out)
{
  int err = 0;

  PetscFunctionBegin;
  if (!out->tmppath) PetscFunctionReturn(0);
  if (out->rank == 0) {
    char what[2 * PETSC_MAX_PATH_LEN + 64];

    err = MechIOCommitFile(out->tmppath, out->h5path, 1, PETSC_FALSE, what, sizeof(what));
  }
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, out->comm));
  PetscCheck(!err, out->comm, PETSC_ERR_FILE_WRITE, "Cannot rename the HDF5 output %s to %s: %s", out->tmppath, out->h5path, strerror(err));
  PetscCall(PetscFree(out->tmppath));
  PetscFunctionReturn(0);
}

#endif
