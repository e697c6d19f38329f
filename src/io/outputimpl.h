/* Private interface of src/io: the HDF5 output (output.c, outputheader.c, outputcontinue.c), its XDMF companion
   (xdmf.c), the checkpoints (checkpoint.c), the strict HDF5 reader (h5read.c), the checks and
   commit of files (files.c), the plan of a run's files (runfiles.c) and the test hooks
   (testhooks.c). */
#ifndef TSMECH_OUTPUTIMPL_H
#define TSMECH_OUTPUTIMPL_H

#include <tsmech.h>
#include <signal.h>
#include "../ts/scheme.h" /* TSMechParamKind */

/* -log_view stage of the HDF5 output and the checkpoints (registered with the package) */
PETSC_INTERN PetscLogStage MECH_StageIO;

/*
  Writes the XDMF description of the snapshots in /fields of an HDF5 file: a temporal collection
  of grids, one per snapshot, geometry from /fields/q, a node vector attribute "velocity" from
  /fields/v, and "displacement", the difference of /fields/q and its first snapshot (an XDMF
  Function of two hyperslabs). The grids are structured (3DSMesh) for a DMDA (dim 2 or 3), or
  unstructured cells for a mesh (ncells > 0, dim 0): linear tetrahedra from /mesh/tetrahedra, the
  other kinds (Tetrahedron_10, Hexahedron, Hexahedron_27: MechSystemSetIOMeshCells()) from
  /mesh/cells, their nodes in XDMF's (VTK's) order.

  xmfpath - the file to write (serial: call on one rank)
  h5name  - the HDF5 file as the XDMF should reference it (relative name)
  grid    - the grid's name in the XDMF (the model's name)
  dim     - 2 or 3 (a DMDA), 0 (a tetrahedral mesh)
  shape   - shape of one snapshot, slowest first: [N, M, dof] (dim 2), [P, N, M, dof] (dim 3), [nv, 3] (a mesh)
  ncells  - the number of cells of a mesh, 0 for a DMDA
  nper, topology - a mesh's nodes per cell and XDMF topology (4, "Tetrahedron", ...)
  nsnap   - number of snapshots; times their times
  nfields, fields, ncomp - the per-cell fields of a mesh (/fields/<name>, MechSystemSetCellFields()):
            cell attributes, a scalar (ncomp 1), a vector (3) or six scalars <name>_xx, _yy, _zz,
            _yz, _xz, _xy (a symmetric tensor, 6)
  nnode, nodefields, nodencomp - the per-node fields of a mesh (MechSystemSetNodeFields()): node
            attributes likewise, over the shape[0] nodes of /fields/q
*/
PETSC_INTERN PetscErrorCode MechOutputWriteXDMF(const char xmfpath[], const char h5name[], const char grid[], PetscInt dim, const PetscInt shape[], PetscInt ncells, PetscInt nper, const char topology[], PetscInt nsnap, const PetscReal times[], PetscInt nfields, const char *const fields[], const PetscInt ncomp[], PetscInt nnode, const char *const nodefields[], const PetscInt nodencomp[]);

/*
  New state vectors for the I/O of a system's (q, v): global vectors of the system's DMDA if it
  has one (VecView writes them in natural ordering with the grid's shape, VecLoad reads them on
  any number of ranks), else vectors like the system's state. dim (0 without a DMDA) and shape
  (one snapshot, slowest first: [(P,) (N,) M, dof]) may be NULL. Collective.
*/
PETSC_INTERN PetscErrorCode MechIOCreateStateVectors(MechSystem, Vec *q, Vec *v, PetscInt *dim, PetscInt shape[4]);

/*
  Puts a vector like the state into the system's rank-independent I/O order (SCATTER_FORWARD,
  before a write) or back into the state's order (SCATTER_REVERSE, after a read), in place; does
  nothing for a system without one (MechSystemSetIOOrdering()). Collective.
*/
PETSC_INTERN PetscErrorCode MechIOPermute(MechSystem, Vec, ScatterMode);

/* Test hook shared by the checkpoint writer and the driver (testhooks.c); exported so the
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

/* Rank 0's parts of the two checks above, for callers that look at many files on rank 0 */
PETSC_INTERN void       MechIOCheckWritableLocal(const char path[], char problem[], size_t len);
PETSC_INTERN MechIOKind MechIOFileKindLocal(const char path[]);
/* The directory part of a path ("." for a bare name, "/" for a file in the root) */
PETSC_INTERN void MechIODirName(const char path[], char dir[], size_t len);
/* The atomic commit of a file written under a temporary name (rank 0): fsync() (if sync), the
   rotation of `keep` versions FILE.1 ... FILE.<keep-1>, the rename of tmp over path, the fsync()
   of the directory (if sync). Returns errno, 0 on success, and the operation that failed. */
PETSC_INTERN int MechIOCommitFile(const char tmp[], const char path[], PetscInt keep, PetscBool sync, char what[], size_t len);
/* "append-only (chattr +a)" or "immutable (chattr +i)" for a file or directory that is, else NULL */
PETSC_INTERN const char *MechIOProtection(const char path[]);

/* Room for a write (files.c): what HDF5 may add to a write's data besides it (metadata, the
   chunks a growing dataset allocates); the free bytes of path's file system (rank 0, -1 if
   unknown); the check before a write and the diagnosis after a failed one from its errno and
   the room left ("no space left on device (...)", "disk quota exceeded" or ""). Collective. */
#define MECH_IO_MARGIN 65536
PETSC_INTERN long long      MechIOFreeBytes(const char path[]);
PETSC_INTERN PetscErrorCode MechIOCheckSpace(MPI_Comm, const char path[], long long bytes, char problem[], size_t len);
PETSC_INTERN PetscErrorCode MechIODescribeWriteFailure(MPI_Comm, const char path[], int err, char what[], size_t len);
PETSC_INTERN void           MechIODescribeWriteFailureLocal(const char path[], int err, char what[], size_t len);
/* Whether a write succeeded on every rank, waiting at most `seconds` for the others (all: they
   answered; parallel HDF5 may leave them in a collective call after rank 0 failed) */
#define MECH_IO_AGREE_SECONDS 30.0
PETSC_INTERN PetscErrorCode MechIOAgree(MPI_Comm, double seconds, PetscBool *ok, PetscBool *all);
/* Closes the viewer of a file given up after a failed write and removes the file (collective) */
PETSC_INTERN PetscErrorCode MechIODiscardViewer(PetscViewer *, const char path[]);

/* The XDMF companion of an output (FILE.h5 -> FILE.xmf), the comment that marks the XDMF files
   tsmech writes, and whether a file is one of them (rank 0; h5name: the output's file name) */
#define MECH_XDMF_MARKER "<!-- tsmech: the XDMF description of "
PETSC_INTERN void      MechIOXDMFPath(const char h5[], char xmf[], size_t len);
PETSC_INTERN PetscBool MechIOIsOwnXDMF(const char xmf[], const char h5name[]);

/* The files of a run (runfiles.c; MechIOPlanFiles() in tsmech.h): MechIOSameFile() compares
   two paths as files (canonical paths, hard links). Collective; rank 0 looks. */
PETSC_EXTERN PetscErrorCode MechIOSameFile(MPI_Comm, const char a[], const char b[], PetscBool *);
/* Removes the run's lock files and temporaries from a signal handler (runfiles.c) */
PETSC_EXTERN void MechIOPlanRemoveLocksOnSignal(void);

/* Closes an output without writing anything more, for a run that failed before completing a
   step: a new file (still under its temporary name) is removed, a continued file that has not
   been changed yet stays as it was. Collective. */
PETSC_EXTERN PetscErrorCode MechOutputDiscard(MechOutput *);

/* An integrator's parameter (TSMechSchemeForEachParameter()) written as an
   attribute of / of the output viewer ctx (output.c; a continued output's too) */
PETSC_INTERN PetscErrorCode MechOutputWriteSchemeParameter(void *ctx, const char name[], TSMechParamKind kind, void *value);

/* The HDF5 output (output.c), shared with its continuation (outputcontinue.c) and its guarded
   file (outputguard.c) */
#define MECH_OUTPUT_NREAL 5 /* time, dt, kinetic, potential, energy; the invariants follow */
#define MECH_OUTPUT_NINT  3 /* step, snes_its, ksp_its */

struct _n_MechOutput {
  MechSystem  sys;
  PetscViewer viewer; /* NULL once closed */
  MPI_Comm    comm;
  MPI_Comm    agree; /* a duplicate of comm for MechIOAgree() only */
  PetscMPIInt rank;
  char       *h5path, *xmfpath, *h5name; /* h5name: the .h5 relative to the .xmf */
  char       *tmppath;                   /* a new file's temporary name until it is renamed, else NULL */
  PetscInt    every;
  PetscBool   failed;       /* a write failed: nothing more is written, the file is closed as it is */
  char        failmsg[512]; /* why */
  PetscInt    flushstep;    /* the step of the last record in the file, -1 if none */

  /* a continued file, not opened for writing yet (MechOutputContinue()): the records and
     snapshots to keep and the new restart count */
  PetscBool pending;
  PetscInt  pending_nrec, pending_nsnap, pending_restarts;
  void     *pending_scheme; /* the continuing run's integrator (a TSMechScheme), for the attributes of / */

  Vec      q, v;     /* the state copied out of the TS; DMDA global vectors for grid models */
  PetscInt dim;      /* dimension of the system's DMDA, 0 without one */
  PetscInt shape[4]; /* one snapshot, slowest first: [(P,) (N,) M, dof] */
  PetscInt ncells;   /* cells of the system's mesh (MechSystemSetIOMesh()), 0 without one */
  PetscInt nper;     /* and its nodes per cell (MechSystemSetIOMeshCells()) */

  /* per-cell fields (MechSystemSetCellFields()): the callback's values of this rank's cells, and
     one vector per field in the rank-independent cell order (a block of rows per rank, block size
     ncomp, named as the field: VecView() appends [nc(, ncomp)] to /fields/<name>) */
  PetscInt    ncf;
  Vec        *cf;
  PetscReal **cfval;
  PetscSF     cfsf; /* this rank's cells -> their rows of the vectors */
  /* per-node fields (MechSystemSetNodeFields()) follow the cell fields in cf and cfval: cf[j],
     ncellf <= j < ncf, has ncomp rows per node of the state, in the I/O order of /fields/q, and
     cfval[j] the callback's values in the state's order; nfwork, a vector like the state, carries
     one component at a time through the I/O order */
  PetscInt ncellf;
  Vec      nfwork;

  /* /monitor: one record per step; the values are kept on rank 0 only, the counts everywhere.
     Rank 0 holds records [base, nrec) in memory (base > 0 for an output continued after a
     restart: the records before it are in the file only). */
  PetscInt    nrec, maxrec, nflushed, base;
  PetscInt    nreal;  /* MECH_OUTPUT_NREAL + number of invariants */
  PetscReal **real;   /* nreal columns */
  PetscReal  *invval; /* work: the invariants of one record */
  PetscInt   *ints[MECH_OUTPUT_NINT];
  char      **invname;
  PetscInt    laststep;
  PetscReal   lasttime;
  PetscInt    lastsnes, lastksp; /* the cumulative TS counters at the previous record */

  /* the system's per-step records (MechSystemAddRecords(), outputrecords.c) */
  struct _n_MechOutputRecords *records;

  /* /fields: snapshot times and steps (on every rank) */
  PetscInt   nsnap, maxsnap;
  PetscReal *snaptime;
  PetscInt  *snapstep;
};

#if defined(PETSC_HAVE_HDF5)
#include <petscviewerhdf5.h>
/* outputheader.c: the names of the /monitor datasets of the reals (the invariants follow) and the
   integers; the attributes of / and the mesh a new file gets; the attribute of / of a model
   parameter; whether a continued file holds the text parameters of this run (problem "" if so) */
PETSC_INTERN const char *const MechOutputRealNames[MECH_OUTPUT_NREAL];
PETSC_INTERN const char *const MechOutputIntNames[MECH_OUTPUT_NINT];
PETSC_INTERN PetscErrorCode    MechOutputWriteHeader(MechOutput, TS);
PETSC_INTERN PetscErrorCode    MechOutputWriteMesh(MechOutput);
PETSC_INTERN PetscErrorCode    MechOutputParameterAttributeName(const char pname[], char name[], size_t len);
PETSC_INTERN PetscErrorCode    MechOutputCheckTextParameters(MechSystem, hid_t root, char problem[], size_t len);
/* output.c: the checks of MechOutputCreate() and MechOutputContinue() (caller), a new output
   prepared for filename, its memory freed */
PETSC_INTERN PetscErrorCode MechOutputCheckArguments(MechSystem *, TS, const char filename[], MechOutput *, const char caller[], MPI_Comm *, PetscMPIInt *);
PETSC_INTERN PetscErrorCode MechOutputNew(MPI_Comm, PetscMPIInt, MechSystem, PetscInt every, const char filename[], MechOutput *);
PETSC_INTERN PetscErrorCode MechOutputFree(MechOutput);
/* outputrecords.c: the system's per-step records in /monitor (set up, recorded, flushed, checked and cut back for a continuation, freed) */
PETSC_INTERN PetscErrorCode MechOutputRecordsSetUp(MechOutput);
PETSC_INTERN PetscErrorCode MechOutputRecordsRecord(MechOutput, PetscReal);
PETSC_INTERN PetscErrorCode MechOutputRecordsFlush(MechOutput, PetscInt from, PetscInt n);
PETSC_INTERN PetscErrorCode MechOutputRecordsInspect(MechOutput, hid_t, hsize_t, char[], size_t);
PETSC_INTERN PetscErrorCode MechOutputRecordsTruncate(MechOutput, hid_t, PetscInt);
PETSC_INTERN PetscErrorCode MechOutputRecordsFree(MechOutput);
PETSC_INTERN PetscErrorCode MechOutputPathExists(hid_t, const char[], htri_t *);
/* output.c: a continued file (outputcontinue.c) opened for writing and cut back at its first write */
PETSC_INTERN PetscErrorCode MechOutputEnsureOpen(MechOutput);
/* outputguard.c: the new file opened under its temporary name path, the guarded writes (HDF5's
   error reporting saved meanwhile) and the rename of a new file to its name */
PETSC_INTERN PetscErrorCode MechOutputOpenFile(MPI_Comm, PetscMPIInt, const char filename[], const char path[], PetscViewer *);
/* Writes of the file are guarded (see MechOutputBeginWrite() and MechOutputEndWrite()): HDF5's
   error reporting, saved while a write runs silenced */
typedef struct {
  H5E_auto2_t efunc;
  void       *edata;
} MechOutputQuiet;
PETSC_INTERN PetscErrorCode MechOutputBeginWrite(MechOutput, long long, MechOutputQuiet *);
PETSC_INTERN PetscErrorCode MechOutputEndWrite(MechOutput, MechOutputQuiet *, PetscErrorCode);
PETSC_INTERN PetscErrorCode MechOutputCommit(MechOutput);
#endif

#if defined(PETSC_HAVE_HDF5)
#include <petscviewerhdf5.h>
/* Strict reading of a file's metadata (h5read.c), for the checkpoint and the continued
   output: an attribute read with its datatype and dataspace checked exactly, a dataset's
   datatype, layout and shape checked, the shape VecView() gives a vector, and the objects a
   failed read left open closed. Problems go to `problem`, HDF5 failures are returned. */
typedef enum {
  MECH_IO_ATTR_INT64,  /* H5T_STD_I64LE into int64_t */
  MECH_IO_ATTR_INT,    /* H5T_STD_I32LE or H5T_STD_I64LE (PETSC_INT) into int64_t */
  MECH_IO_ATTR_REAL,   /* H5T_IEEE_F64LE into double */
  MECH_IO_ATTR_STRING, /* fixed-length NUL-terminated printable ASCII into char[len] */
} MechIOAttrKind;
PETSC_INTERN PetscErrorCode MechIOReadAttribute(hid_t obj, const char objname[], const char name[], MechIOAttrKind, void *value, size_t len, PetscBool *found, char problem[], size_t plen);
PETSC_INTERN PetscErrorCode MechIOCheckDataset(hid_t loc, const char locname[], const char name[], hid_t type, int ndims, const hsize_t dims[], PetscBool extendible, hsize_t *rows, PetscBool *found, char problem[], size_t plen);
PETSC_INTERN PetscErrorCode MechIOVecDims(Vec, int *ndims, hsize_t dims[4]);
PETSC_INTERN void           MechIOCloseObjects(hid_t file);
PETSC_INTERN PetscErrorCode MechIOQuietExit(void);
PETSC_INTERN hid_t          MechIOOpenReadOnly(const char path[]);
PETSC_INTERN PetscErrorCode MechIOAgreeProblem(MPI_Comm, PetscBool *ok, char problem[], size_t len);
#endif

#endif
