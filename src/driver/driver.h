/* The tsmech program's jobs besides its main file (src/driver/tsmech_main.c) */
#ifndef TSMECH_DRIVER_H
#define TSMECH_DRIVER_H

#include <tsmech.h>
#include <stdio.h>

/* messages.c: printf-formatted text (the C library's formats: PETSc's turn %g of 3 into "3."),
   printed by rank 0 to fd; the one line of an error ierr (withoption: naming the option its message
   concerns); whether an error code is of the kind that bad input raises */
#if defined(__GNUC__)
PetscErrorCode Format(char buf[], size_t len, const char fmt[], ...) __attribute__((format(printf, 3, 4)));
PetscErrorCode Say(MPI_Comm comm, FILE *fd, const char fmt[], ...) __attribute__((format(printf, 3, 4)));
#else
PetscErrorCode Format(char buf[], size_t len, const char fmt[], ...);
PetscErrorCode Say(MPI_Comm comm, FILE *fd, const char fmt[], ...);
#endif
void      ErrorLine(PetscErrorCode ierr, PetscBool withoption, char line[], size_t len);
PetscBool IsInputError(PetscErrorCode ierr);

/* balance.c: the reactions and the energy balance (-monitor_reactions, -monitor_energy_balance, -report_energy_balance) */
typedef struct {
  PetscBool reactions, energy, report;
} DriverBalance;
PetscErrorCode DriverBalanceOptions(MPI_Comm, DriverBalance *);
PetscErrorCode DriverBalanceSetUp(DriverBalance *, TS);
PetscErrorCode DriverBalanceReport(DriverBalance *, TS, MPI_Comm);

#endif
