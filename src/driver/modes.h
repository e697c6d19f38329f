/* The tsmech program's modal analysis (src/driver/modes.c): -modes N, -modes_at */
#ifndef TSMECH_DRIVER_MODES_H
#define TSMECH_DRIVER_MODES_H

#include <tsmech.h>

typedef struct _n_DriverModes *DriverModes;

/* Reads -modes and -modes_at (inside the driver's options); *dm NULL without -modes */
PetscErrorCode DriverModesCreate(MPI_Comm, DriverModes *);
/* Whether the run is the modal analysis only (-modes without -ts_max_steps, -ts_max_time, -restart
   or -modes_at end); NULL: no */
PetscBool DriverModesOnly(DriverModes);
/* After the model and the TS are made: the checks of the request (before anything is written), the
   modes of the initial state computed and printed, the TS given no step for a modal analysis only */
PetscErrorCode DriverModesSetUp(DriverModes, MechSystem, TS, Vec q, Vec v);
/* After the run and the output's close: the modes of the final state (-modes_at end) computed and
   printed, the modes written into the output (out may be NULL) */
PetscErrorCode DriverModesFinish(DriverModes, MechSystem, TS, MechOutput);
PetscErrorCode DriverModesDestroy(DriverModes *);

#endif
