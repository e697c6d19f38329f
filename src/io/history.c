/*
  The start of the last step of the types that keep it (the theta2 family; scheme.h, the
  family's history), which a checkpoint holds: its position and time, recorded by a TSMonitor (the monitor of step k sees the state at which step k + 1
  starts) in a Tracker shared by the checkpointer and the TS (see checkpoint.c).
*/
#include <petsc/private/viewerhdf5impl.h> /* first, as it must precede <hdf5.h> */
#include "checkpointimpl.h"

#if defined(PETSC_HAVE_HDF5)

/* Whether the TS's type keeps the start of the last step, which a checkpoint holds (its family says) */
PETSC_INTERN PetscErrorCode MechCkptKeepsHistory(TS ts, PetscBool *flg)
{
  TSType   type;
  PetscInt family;

  PetscFunctionBegin;
  PetscCall(TSGetType(ts, &type));
  PetscCall(TSMechSchemeFamilyOfType(type, &family));
  PetscCall(TSMechSchemeFamilyKeepsHistory(family, flg));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MechCkptTrackerRelease(Tracker **tr)
{
  PetscInt k;

  PetscFunctionBegin;
  if (!*tr) PetscFunctionReturn(0);
  if (--(*tr)->refct == 0) {
    for (k = 0; k < 2; k++) PetscCall(VecDestroy(&(*tr)->q[k]));
    PetscCall(PetscFree(*tr));
  }
  *tr = NULL;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MechCkptTrackerMonitorDestroy(void **ctx)
{
  PetscFunctionBegin;
  PetscCall(MechCkptTrackerRelease((Tracker **)ctx));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MechCkptTrackerRecord(Tracker *tr, PetscInt step, PetscReal t, Vec q)
{
  PetscInt k;

  PetscFunctionBegin;
  k = (tr->last >= 0 && tr->step[tr->last] == step) ? tr->last : (tr->last == 0 ? 1 : 0);
  if (!tr->q[k]) PetscCall(VecDuplicate(q, &tr->q[k]));
  PetscCall(VecCopy(q, tr->q[k]));
  tr->step[k] = step;
  tr->time[k] = t;
  tr->last    = k;
  PetscFunctionReturn(0);
}

/* The entry of the given step, if any (slot -1 if none) */
PETSC_INTERN PetscInt MechCkptTrackerFind(Tracker *tr, PetscInt step)
{
  PetscInt k;

  for (k = 0; k < 2; k++)
    if (tr->q[k] && tr->step[k] == step) return k;
  return -1;
}

/* The monitor of step k sees the state (and time) at which step k + 1 starts */
PETSC_INTERN PetscErrorCode MechCkptTrackerMonitor(TS ts, PetscInt step, PetscReal t, Vec X, void *ctx)
{
  Tracker  *tr = (Tracker *)ctx;
  PetscBool history;
  Vec       q;

  PetscFunctionBegin;
  (void)X;
  if (step < 0) PetscFunctionReturn(0);
  /* after a failed step TSSolve() calls the monitors once more, with the step counter advanced
     but the state of the start of the failed step: not a step */
  {
    TSConvergedReason reason;
    PetscCall(TSGetConvergedReason(ts, &reason));
    if (reason < 0) PetscFunctionReturn(0);
  }
  PetscCall(MechCkptKeepsHistory(ts, &history));
  if (!history) PetscFunctionReturn(0);
  PetscCall(TS2GetSolution(ts, &q, NULL));
  PetscCall(MechCkptTrackerRecord(tr, step, t, q));
  PetscFunctionReturn(0);
}

#endif
