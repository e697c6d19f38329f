/*
  What a checkpoint holds of a run's reactions and energy balance (src/ts/balance.c): the group
  /checkpoint/balance with the attributes flags (1 the reactions are recorded, 2 the energy balance)
  and accumulated (the initial energy and the external, prescribed and damping work summed so far),
  so that a restart continues the balance's histories exactly. A checkpoint without the group was
  written without a balance; a restart whose balance differs from the checkpoint's is refused,
  naming the option (its output's /monitor would lose or gain histories midway).
*/
#define _POSIX_C_SOURCE 200809L
#include <petsc/private/viewerhdf5impl.h> /* PetscCallHDF5(); first, as it must precede <hdf5.h> */
#include "checkpointimpl.h"
#include "../ts/balanceimpl.h"

#if defined(PETSC_HAVE_HDF5)

/* The balance's state at the TS's step, into the header (CheckpointWrite()) */
PetscErrorCode MechCkptGetBalance(TS ts, Header *h)
{
  PetscFunctionBegin;
  PetscCall(TSMechBalanceGetCheckpoint(ts, &h->balflags, h->balacc));
  PetscFunctionReturn(0);
}

/* Writes /checkpoint/balance into the checkpoint group (collective: every rank the same calls and data) */
PetscErrorCode MechCkptWriteBalance(hid_t checkpoint, const Header *h)
{
  hid_t   group, space, attr;
  hsize_t n     = TSMECH_BALANCE_NSTATE;
  int64_t flags = h->balflags;

  PetscFunctionBegin;
  if (!h->balflags) PetscFunctionReturn(0);
  PetscCallHDF5Return(group, H5Gcreate2, (checkpoint, "balance", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  PetscCallHDF5Return(space, H5Screate, (H5S_SCALAR));
  PetscCallHDF5Return(attr, H5Acreate2, (group, "flags", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT));
  PetscCallHDF5(H5Awrite, (attr, H5T_NATIVE_INT64, &flags));
  PetscCallHDF5(H5Aclose, (attr));
  PetscCallHDF5(H5Sclose, (space));
  PetscCallHDF5Return(space, H5Screate_simple, (1, &n, NULL));
  PetscCallHDF5Return(attr, H5Acreate2, (group, "accumulated", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT));
  PetscCallHDF5(H5Awrite, (attr, H5T_NATIVE_DOUBLE, h->balacc));
  PetscCallHDF5(H5Aclose, (attr));
  PetscCallHDF5(H5Sclose, (space));
  PetscCallHDF5(H5Gclose, (group));
  PetscFunctionReturn(0);
}

/* Reads /checkpoint/balance if the file has it (else no balance); not collective */
PetscErrorCode MechCkptReadBalance(hid_t fileid, Header *h)
{
  htri_t  e;
  hid_t   group, attr;
  int64_t flags = 0;

  PetscFunctionBegin;
  h->balflags = 0;
  PetscCallHDF5Return(e, H5Lexists, (fileid, "/checkpoint/balance", H5P_DEFAULT));
  if (e <= 0) PetscFunctionReturn(0);
  PetscCallHDF5Return(group, H5Gopen2, (fileid, "/checkpoint/balance", H5P_DEFAULT));
  PetscCallHDF5Return(attr, H5Aopen, (group, "flags", H5P_DEFAULT));
  PetscCallHDF5(H5Aread, (attr, H5T_NATIVE_INT64, &flags));
  PetscCallHDF5(H5Aclose, (attr));
  PetscCallHDF5Return(attr, H5Aopen, (group, "accumulated", H5P_DEFAULT));
  PetscCallHDF5(H5Aread, (attr, H5T_NATIVE_DOUBLE, h->balacc));
  PetscCallHDF5(H5Aclose, (attr));
  PetscCallHDF5(H5Gclose, (group));
  PetscCheck(flags >= 1 && flags <= 3, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "The checkpoint's /checkpoint/balance has flags %lld (the file is damaged)", (long long)flags);
  h->balflags = (PetscInt)flags;
  PetscFunctionReturn(0);
}

/* A restart: the same balance as the checkpoint's (refused naming the option otherwise), continued from what it accumulated */
PetscErrorCode MechCkptRestoreBalance(MechCheckpoint ck, TS ts)
{
  PetscInt       flags;
  PetscReal      acc[TSMECH_BALANCE_NSTATE];
  const char    *opt[2] = {"-monitor_reactions", "-monitor_energy_balance"}, *what[2] = {"the reactions", "the energy balance"};
  const PetscInt bit[2] = {1, 2};

  PetscFunctionBegin;
  PetscCall(TSMechBalanceGetCheckpoint(ts, &flags, acc));
  for (PetscInt k = 0; k < 2; k++) PetscCheck((flags & bit[k]) == (ck->balflags & bit[k]), ck->comm, PETSC_ERR_ARG_INCOMP, "Cannot restart from %s: its run recorded %s%s (%s) and this one %s", ck->path, ck->balflags & bit[k] ? "" : "no ", what[k], opt[k], flags & bit[k] ? "does" : "does not");
  if (ck->balflags & 2) PetscCall(TSMechBalanceSetCheckpoint(ts, ck->balacc));
  PetscFunctionReturn(0);
}

#endif
