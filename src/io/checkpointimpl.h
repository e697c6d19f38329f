/* Private interface of the checkpoints (checkpoint.c): their header (ckheader.c) and the
   start of the last step of the types that keep it (history.c). */
#ifndef TSMECH_CHECKPOINTIMPL_H
#define TSMECH_CHECKPOINTIMPL_H

#include "outputimpl.h"
#include "../ts/scheme.h"
#include <stdint.h>

#if defined(PETSC_HAVE_HDF5)

#define MECH_CHECKPOINT_FORMAT "tsmech-checkpoint"
#define MECH_CKPT_NVEC         4

/* the names of the vectors, in the order of the checkpointer's vec[] (ckheader.c) */
PETSC_INTERN const char *const MechCkptVecNames[MECH_CKPT_NVEC];

/* The start of the last step: (step, time, position) of the two latest monitor calls */
typedef struct {
  PetscInt  refct; /* held by the checkpointer and by the TS's monitor */
  PetscInt  step[2];
  PetscReal time[2];
  Vec       q[2];
  PetscInt  last; /* slot of the newest entry, -1 if none */
} Tracker;

struct _n_MechCheckpoint {
  MPI_Comm    comm;
  PetscMPIInt rank;
  MechSystem  sys;
  PetscInt    keep;
  PetscInt    pause_in_write; /* test hook: the step whose write stops midway, -1 none */
  Tracker    *tr;
  Vec         vec[MECH_CKPT_NVEC]; /* q, v, v_previous, q_previous in the I/O layout */

  /* the checkpoint last loaded (for MechCheckpointRestore()) */
  PetscBool    loaded;
  char         path[PETSC_MAX_PATH_LEN];
  PetscReal    time, dt, tprev;
  PetscInt     step;
  PetscBool    hasvprev, hasqprev;
  TSMechScheme tsp; /* the TS settings recorded (a restart takes them as defaults) */
  PetscInt     snes_its, ksp_its, reject, snes_failures, adapt_decrease;
  PetscInt     failed;    /* it was written after a failed step */
  PetscInt     balflags;  /* the reactions and energy balance it holds (ckbalance.c) */
  PetscReal    balacc[4]; /* and what the balance accumulated */

  PetscInt  last_step; /* of the last checkpoint loaded or written, -1 none */
  PetscReal last_time;
};

/* What one checkpoint holds besides the vectors */
typedef struct {
  PetscInt     step, nvec;
  PetscReal    time, dt, tprev;
  PetscBool    hasvprev, hasqprev;
  TSMechScheme tsp; /* the TS settings recorded (a restart takes them as defaults) */
  PetscInt     snes_its, ksp_its, reject, snes_failures, adapt_decrease;
  PetscInt     failed; /* written after a failed step (attribute failed_step) */
  uint64_t     sum[MECH_CKPT_NVEC];
  PetscInt     balflags; /* the balance of reactions and energy (ckbalance.c, /checkpoint/balance) */
  PetscReal    balacc[4];
} Header;

#define MECH_CKPT_STRLEN  256   /* the longest string attribute, with its NUL */
#define MECH_CKPT_LISTLEN 16384 /* the longest model_parameters list, with its NUL */

/* Everything the attributes of a checkpoint hold */
typedef struct {
  char       format[MECH_CKPT_STRLEN], tsmech_version[MECH_CKPT_STRLEN], petsc_version[MECH_CKPT_STRLEN], model[MECH_CKPT_STRLEN];
  PetscInt   version, nranks, global_size;
  char       plist[MECH_CKPT_LISTLEN]; /* the model's parameter names, comma separated */
  PetscInt   np;                       /* their number */
  PetscReal *pvalues;                  /* their values, in plist's order */
  char       tlist[MECH_CKPT_LISTLEN]; /* the text parameters' names (format version 3 on) */
  PetscInt   nt;                       /* their number */
  char (*tvalues)[MECH_CKPT_STRLEN];   /* their values, in tlist's order */
  char   sum[MECH_CKPT_NVEC][MECH_CKPT_STRLEN];
  Header h;
} HeaderFile;

/*
  The header is written and read by one function, MechCkptHeaderFields(), so that writer and reader see
  the same attributes in the same order. Each value also enters a digest: a chain of the
  splitmix64 finalizer over (attribute name, type tag, value), each step a bijection of the
  state, so that a change of any one value always changes the digest. The attribute
  checksum_header holds it (16 hex digits); the datatypes are checked exactly by the reads.
*/
typedef struct {
  PetscBool write;
  hid_t     group, params, texts; /* /checkpoint, /checkpoint/model_parameters and /checkpoint/model_text_parameters */
  uint64_t  digest, count;
  char     *problem; /* reading: the first problem found ("" none) */
  size_t    plen;
} HeaderIO;

#define MECH_CKPT_DIGEST_SEED 0x243f6a8885a308d3ULL
/* the oldest format version read: 2 (version 3 added the text parameters) */
#define MECH_CKPT_OLDEST_VERSION 2

/* The reactions' and energy balance's record (ckbalance.c) */
PETSC_INTERN PetscErrorCode MechCkptGetBalance(TS, Header *);
PETSC_INTERN PetscErrorCode MechCkptWriteBalance(hid_t, const Header *);
PETSC_INTERN PetscErrorCode MechCkptReadBalance(hid_t, Header *);
PETSC_INTERN PetscErrorCode MechCkptRestoreBalance(MechCheckpoint, TS);

/* The start of the last step (history.c): the TSMonitor that records it, its context */
PETSC_INTERN PetscErrorCode MechCkptKeepsHistory(TS, PetscBool *);
PETSC_INTERN PetscErrorCode MechCkptTrackerRelease(Tracker **);
PETSC_INTERN PetscErrorCode MechCkptTrackerMonitorDestroy(void **);
PETSC_INTERN PetscErrorCode MechCkptTrackerRecord(Tracker *, PetscInt step, PetscReal t, Vec q);
PETSC_INTERN PetscInt       MechCkptTrackerFind(Tracker *, PetscInt step);
PETSC_INTERN PetscErrorCode MechCkptTrackerMonitor(TS, PetscInt, PetscReal, Vec, void *);

/* The header (ckheader.c): splitmix64's finalizer (also of the vectors' checksums), the
   attributes written and read in one order, and the read and validation of a whole header */
PETSC_INTERN uint64_t       MechCkptMix64(uint64_t);
PETSC_INTERN PetscErrorCode MechCkptIOInt(HeaderIO *, const char name[], PetscInt *value);
PETSC_INTERN PetscErrorCode MechCkptIOString(HeaderIO *, const char name[], char value[], size_t len);
PETSC_INTERN PetscErrorCode MechCkptHeaderFields(HeaderIO *, HeaderFile *);
PETSC_INTERN PetscErrorCode MechCkptReadHeader(MechCheckpoint, hid_t fileid, HeaderFile *, char problem[], size_t len);

#endif
#endif
