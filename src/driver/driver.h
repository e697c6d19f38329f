/* The tsmech program's jobs besides its main file (src/driver/tsmech_main.c) */
#ifndef TSMECH_DRIVER_H
#define TSMECH_DRIVER_H

#include <tsmech.h>

/* balance.c: the reactions and the energy balance (-monitor_reactions, -monitor_energy_balance, -report_energy_balance) */
typedef struct {
  PetscBool reactions, energy, report;
} DriverBalance;
PetscErrorCode DriverBalanceOptions(MPI_Comm, DriverBalance *);
PetscErrorCode DriverBalanceSetUp(DriverBalance *, TS);
PetscErrorCode DriverBalanceReport(DriverBalance *, TS, MPI_Comm);

#endif
