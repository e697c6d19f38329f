/* Private interface of src/io: the HDF5 output (output.c, outputheader.c, outputcontinue.c), its XDMF companion
   (xdmf.c), the checkpoints (checkpoint.c), the strict HDF5 reader (h5read.c), the checks and
   commit of files (files.c), the plan of a run's files (runfiles.c) and the test hooks
   (testhooks.c). */
#ifndef TSMECH_OUTPUTIMPL_H
#define TSMECH_OUTPUTIMPL_H

#include <tsmech.h>
#include <signal.h>
#include "../ts/scheme.h" /* TSMechParamKind */

/*MC
  MechOutputFormat - the HDF5 output of a run (-output FILE.h5 -output_every N, `MechOutputCreate()`,
  Python's tsmech.Output), and the XDMF file FILE.xmf beside it

  Level: beginner

  Notes:
  Strings are fixed-length ASCII (h5py returns bytes). The datasets:
.vb
  /monitor/step                  int64 [steps+1]     step numbers, step 0 (the initial state) included
  /monitor/time, /monitor/dt     float64 [steps+1]   time; the step actually taken, time[k] - time[k-1] (0 for step 0)
  /monitor/kinetic, /potential, /energy  float64 [steps+1]  1/2 v^T M v, the potential, their sum
  /monitor/snes_its, /ksp_its    int64 [steps+1]     Newton and KSP iterations of each step (0 for step 0)
  /monitor/<invariant>           float64 [steps+1]   the model's invariants (kepler: angular_momentum;
                                                     the solid: momentum_x ... angular_momentum_z)
  /monitor/reaction/NAME/force, /moment  float64 [steps+1, 3]  the force each constraint exerts on the
                                                     body and its moment (-monitor_reactions, docs/balance.md §1)
  /monitor/probe/NAME/u, v, stress, von_mises  float64 [steps+1, 3 / 3 / 6 / -]  a probe's displacement,
                                                     velocity, its cell's stress and von Mises stress (-probe)
  /monitor/balance/<term>        float64 [steps+1]   kinetic, stored, external_work, prescribed_work, damping,
                                                     numerical, ratio (-monitor_energy_balance, docs/balance.md §3)
  /fields/q, /fields/v           float64 [nsnap, ...]  positions and velocities at the steps that are multiples
                                                     of N, and the first and the last step
  /fields/time, /fields/step     [nsnap]             the snapshots' times and steps
  /fields/<name>                 float64 [nsnap, nc(, ncomp)] or [nsnap, nn(, ncomp)]  per-cell and per-node
                                                     fields of a model on a mesh, at the same snapshots
  /mesh/vertices                 float64 [nv, 3]     (the solid) reference coordinates, in the mesh's vertex order
  /mesh/tetrahedra               int64 [nc, 4]       (P1 tetrahedra) 0-based vertex numbers, the cells in file
                                                     (or build) order
  /mesh/cells                    int64 [nc, 10, 8 or 27]  (quadratic tetrahedra, hexahedra) the cells, attribute
                                                     topology (Tetrahedron_10, Hexahedron, Hexahedron_27), nodes
                                                     in XDMF's (VTK's) order
  /modes/...                     the modal analysis of -modes (docs/modes.md)
.ve
  Shapes of /fields/q (and v), independent of the number of ranks (natural ordering): chain
  [nsnap, n, 3], cloth [nsnap, ny, nx, 3], lattice [nsnap, nz, ny, nx, 3], oscillator, pair, kepler
  [nsnap, N] (N = 1, 6, 2), solid [nsnap, nn, 3] in the mesh's node order (the vertices first, then
  the edge, face and cell nodes of quadratic elements in a rank-independent order).

  The solid's fields: /fields/stress [nsnap, nc, 6], each cell's Cauchy stress sigma = P F^T / J (the
  linear material: its small-strain stress; quadratic cells: the quadrature-point average),
  components xx, yy, zz, yz, xz, xy; /fields/von_mises [nsnap, nc],
  sqrt(((s11 - s22)^2 + (s22 - s33)^2 + (s33 - s11)^2 + 6 (s12^2 + s23^2 + s13^2))/2); /fields/J
  [nsnap, nc], det F; /fields/stress_vertex [nsnap, nn, 6], von_mises_vertex, J_vertex [nsnap, nn], the
  same recovered at the nodes (at a vertex the mean of the cell values around it weighted by their
  reference volumes; at an edge, face or cell node the mean of its vertices' values; docs/solid.md
  §11). -solid_output_stress false leaves them out (they make the file about 5 times larger).

  Per-cell fields of any model on a mesh: `MechSystemSetCellFields()` (1 a scalar, 3 a vector, 6 a
  symmetric tensor in the order xx, yy, zz, yz, xz, xy); the output sends each cell's values to its
  rank-independent number (a PetscSF reduction into a vector of the cells' order, written by
  `VecView()` like q), so row c belongs to row c of /mesh/tetrahedra (or /mesh/cells) on any number
  of ranks; a continued output cuts and extends them with the others. In FILE.xmf they are cell
  attributes of every snapshot: a Scalar, a Vector, or six scalars <name>_xx, _yy, _zz, _yz, _xz,
  _xy. Per-node fields: `MechSystemSetNodeFields()` (ncomp values for each node of the rank's part
  of the state, node i being entries 3i .. 3i+2 of q), carried through the I/O order
  (`MechSystemSetIOOrdering()`), with the rows of /fields/q on any number of ranks, and node
  attributes in FILE.xmf (names distinct from the cell fields'; the solid's are the recovered
  stresses, <name>_vertex).

  Attributes on /: model, one float64 per model parameter (names listed in model_parameters), one
  string per text parameter (names listed in model_text_parameters, " " if none;
  `MechSystemAddTextParameter()`: the solid's material), ts_type, dt, nranks, every, tsmech_version,
  petsc_version, restarts (the continuations of the file, `MechOutputContinue()`); for the theta2
  family theta, endpoint, linearized, guess, extrapolate; for PETSc's theta, beuler, cn theta,
  endpoint; for alpha2 alpha_m, alpha_f, gamma, beta; for gauss2 gauss2_stages.

  The file is flushed at every snapshot: a run killed mid-way leaves a readable file with /fields up
  to its last snapshot and /monitor up to that step. A new file is written as FILE.h5.tmp-<pid> and
  renamed to FILE.h5 once the first step is done, so a run that fails or is killed before that
  leaves an existing FILE.h5 as it was (and possibly a stale .tmp-* file).

  FILE.xmf (written at the end, to FILE.xmf.tmp-<pid> renamed over it; only a file tsmech wrote is
  replaced) opens in ParaView: for the cloth and the lattice an animated surface (a one-layer
  structured mesh) or volume; for the solid an unstructured grid per snapshot (topology Tetrahedron
  from /mesh/tetrahedra, or the quadratic and hexahedral cells of /mesh/cells, geometry /fields/q[k],
  the deformed body), with cell attributes stress_xx ... stress_xy, von_mises, J and node attributes
  stress_vertex_xx ... stress_vertex_xy, von_mises_vertex, J_vertex (hyperslabs of snapshot k; six
  scalars for a tensor, as XDMF's Tensor6 leaves the order of its components to the reader). Every
  grid has two node vectors: velocity (/fields/v) and displacement, the position minus the first
  snapshot's (an XDMF Function item $0 - $1 of two hyperslabs of /fields/q, so the file stores no
  third field).

.seealso: `MechOutputCreate()`, `MechOutputContinue()`, `MechCheckpointFormat`, `TSMechDriverOptions`
M*/

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
