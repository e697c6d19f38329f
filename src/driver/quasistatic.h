/* The driver's quasi-static behaviours (quasistatic.c), hooked into tsmech_main.c */
#ifndef TSMECH_DRIVER_QUASISTATIC_H
#define TSMECH_DRIVER_QUASISTATIC_H

#include <tsmech.h>

PETSC_INTERN PetscErrorCode DriverQuasiStaticStep(TS, PetscBool restart);
PETSC_INTERN PetscErrorCode DriverEquilibriumColumn(TS, char text[], size_t len);
PETSC_INTERN PetscErrorCode DriverReportEquilibrium(MPI_Comm, MechSystem, TS);

#endif
