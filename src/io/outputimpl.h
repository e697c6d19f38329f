/* Private interface between the HDF5 output (output.c) and its XDMF companion (xdmf.c). */
#ifndef TSMECH_OUTPUTIMPL_H
#define TSMECH_OUTPUTIMPL_H

#include <tsmech.h>
#include <signal.h>

/* -log_view stage of the HDF5 output and the checkpoints (registered with the package) */
PETSC_INTERN PetscLogStage MECH_StageIO;

/*
  Writes the XDMF description of the snapshots in /fields of an HDF5 file: a temporal collection
  of structured grids (2DSMesh for dim 2, 3DSMesh for dim 3), one per snapshot, geometry from
  /fields/q and a node vector attribute "velocity" from /fields/v.

  xmfpath - the file to write (serial: call on one rank)
  h5name  - the HDF5 file as the XDMF should reference it (relative name)
  grid    - the grid's name in the XDMF (the model's name)
  dim     - 2 or 3
  shape   - shape of one snapshot, slowest first: [N, M, dof] (dim 2) or [P, N, M, dof] (dim 3)
  nsnap   - number of snapshots; times their times
*/
PETSC_INTERN PetscErrorCode MechOutputWriteXDMF(const char xmfpath[], const char h5name[], const char grid[], PetscInt dim, const PetscInt shape[], PetscInt nsnap, const PetscReal times[]);

/*
  New state vectors for the I/O of a system's (q, v): global vectors of the system's DMDA if it
  has one (VecView writes them in natural ordering with the grid's shape, VecLoad reads them on
  any number of ranks), else vectors like the system's state. dim (0 without a DMDA) and shape
  (one snapshot, slowest first: [(P,) (N,) M, dof]) may be NULL. Collective.
*/
PETSC_INTERN PetscErrorCode MechIOCreateStateVectors(MechSystem, Vec *q, Vec *v, PetscInt *dim, PetscInt shape[4]);

/* Test hook shared by the checkpoint writer and the driver (see checkpoint.c); exported so the
   tsmech program can call it, not part of the public API */
PETSC_EXTERN PetscErrorCode MechTestPause(MPI_Comm, const char[], volatile sig_atomic_t *);

/* What an existing file is (MechIOFileKind()) */
typedef enum {
  MECH_IO_MISSING,    /* no such file */
  MECH_IO_EMPTY,      /* a file of size 0 */
  MECH_IO_NOT_HDF5,   /* no HDF5 signature at its start */
  MECH_IO_DAMAGED,    /* the HDF5 signature, but HDF5 cannot open it (truncated, damaged) */
  MECH_IO_CHECKPOINT, /* a tsmech checkpoint (group /checkpoint) */
  MECH_IO_OUTPUT,     /* a tsmech output (attribute /model and group /monitor) */
  MECH_IO_HDF5,       /* another HDF5 file */
  MECH_IO_OTHER       /* not a regular file, or unreadable */
} MechIOKind;

/* Checks made before a run writes anything (files.c), exported for the tsmech program: why path
   cannot be written ("" if it can; a probe file is created in its directory and removed), and
   what an existing file is. Collective; rank 0 looks. */
PETSC_EXTERN PetscErrorCode MechIOCheckWritable(MPI_Comm, const char path[], char problem[], size_t len);
PETSC_EXTERN PetscErrorCode MechIOFileKind(MPI_Comm, const char path[], MechIOKind *);

/* Closes an output without writing anything more, for a run that failed before completing a
   step: a new file (still under its temporary name) is removed, a continued file that has not
   been changed yet stays as it was. Collective. */
PETSC_EXTERN PetscErrorCode MechOutputDiscard(MechOutput *);

#endif
