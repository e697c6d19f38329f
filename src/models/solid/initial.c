/*
  The solid's initial state from a file (-solid_initial): q, and optionally v, of a snapshot of a
  tsmech output of the same mesh and element order (MechOutputReadState(), src/io/initialstate.c),
  for a release from a settled state or a prestressed start. The snapshot is chosen by its time or
  its index; the run starts at t = 0 from it. What was read is recorded (its time and a checksum of
  the state), so a restart with another initial state is refused naming the parameter.
*/
#include "solidimpl.h"
#include <petscviewerhdf5.h>

/*MC
  SolidInitialState - the solid's initial state read from an output file (src/models/solid/initial.c)

  Options Database Keys:
+ -solid_initial <file.h5>        - an output of tsmech of the same mesh and element order (vertices, cells,
                                    order, cell type and the mesh's checksum must match)
. -solid_initial_time <t>         - the snapshot at that time (within 1e-12 relative)
. -solid_initial_index <-1>       - or the snapshot of that index: 0, 1, ... from the first, -1, -2, ... from the last
- -solid_initial_velocity <true>  - also start from its velocities (false: the model's own, -solid_v0, -solid_spin);
                                    default false for a file of the quasi-static type static2, whose v is the
                                    rate of loading (q_{n+1} - q_n) / tau, not a velocity of the body

  Level: intermediate

  Notes:
  The constrained dofs are put where their constraints hold them at t = 0 whatever the file holds.

.seealso: `MechCreateSolid()`, `MechOutputReadState()`
M*/

/* Reads the options and, if -solid_initial is given, q (and v) from its snapshot; records them in sys's parameters. Collective. */
PetscErrorCode SolidSetUpInitialState(Solid *s, MechSystem sys, Vec q, Vec v)
{
  MPI_Comm                 comm                     = PetscObjectComm((PetscObject)sys);
  char                     file[PETSC_MAX_PATH_LEN] = "";
  PetscBool                set, sett, setk, setv, withv = PETSC_TRUE, quasistatic = PETSC_FALSE;
  Vec                      vown;
  PetscReal                t = 0, tsnap, sum[2] = {0, 0};
  PetscInt                 index   = -1, k;
  static const char *const match[] = {"order=1", "cell=tet", "vertices", "cells", "mesh_checksum"};

  PetscFunctionBegin;
  (void)s;
  PetscOptionsBegin(comm, NULL, "Initial state of the solid from a file (SolidInitialState)", "MechCreateSolid");
  PetscCall(MechOptionsString("-solid_initial", "An output of tsmech on the same mesh and element order to start from", "SolidInitialState", file, file, sizeof(file), &set));
  PetscCall(MechOptionsReal("-solid_initial_time", "The snapshot at this time", "SolidInitialState", t, &t, &sett));
  PetscCall(MechOptionsInt("-solid_initial_index", "The snapshot of this index (negative: from the last)", "SolidInitialState", index, &index, &setk));
  PetscCall(PetscOptionsBool("-solid_initial_velocity", "Start from the snapshot's velocities too", "SolidInitialState", withv, &withv, &setv));
  PetscOptionsEnd();
  PetscCheck(set || (!sett && !setk), comm, PETSC_ERR_ARG_WRONG, "%s: needs -solid_initial FILE.h5", sett ? "-solid_initial_time" : "-solid_initial_index");
  PetscCheck(!(sett && setk), comm, PETSC_ERR_ARG_INCOMP, "Give -solid_initial_time or -solid_initial_index, not both");
  if (!set) PetscFunctionReturn(0);
  PetscCall(VecDuplicate(v, &vown));
  PetscCall(VecCopy(v, vown));
  PetscCall(MechOutputReadState(sys, file, "-solid_initial", (PetscInt)(sizeof(match) / sizeof(match[0])), match, index, sett ? &t : NULL, q, withv ? v : NULL, &tsnap, &k));
  {
    /* the file, checked by MechOutputReadState(): a quasi-static run's v is no velocity of the body */
    PetscViewer vw;
    char       *type = NULL;

    PetscCall(PetscViewerHDF5Open(comm, file, FILE_MODE_READ, &vw));
    PetscCall(PetscViewerHDF5ReadAttribute(vw, "/", "ts_type", PETSC_STRING, NULL, &type));
    PetscCall(PetscViewerDestroy(&vw));
    quasistatic = type && !strcmp(type, TSSTATIC2) ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscFree(type));
  }
  if (quasistatic && !setv && withv) {
    withv = PETSC_FALSE;
    PetscCall(VecCopy(vown, v));
  }
  PetscCall(VecDestroy(&vown));
  PetscCall(SolidMeshChecksum(q, &sum[0]));
  if (withv) PetscCall(SolidMeshChecksum(v, &sum[1]));
  PetscCall(MechSystemAddParameter(sys, "initial_time", tsnap));
  PetscCall(MechSystemAddParameter(sys, "initial_checksum", sum[0]));
  PetscCall(MechSystemAddParameter(sys, "initial_velocity_checksum", sum[1]));
  PetscCall(PetscInfo(sys, "-solid_initial %s: snapshot %" PetscInt_FMT " at t = %g%s\n", file, k, (double)tsnap, withv ? ", with its velocities" : (quasistatic ? ", at rest (a quasi-static run's)" : "")));
  PetscFunctionReturn(0);
}
