/* What a checkpoint holds of a run's reactions and energy balance (balance.c; src/io/checkpoint.c) */
#ifndef TSMECH_BALANCEIMPL_H
#define TSMECH_BALANCEIMPL_H

#include <tsmech.h>

/* the accumulated terms: the initial energy, the external work, the constraints' work, the damping's */
#define TSMECH_BALANCE_NSTATE 4

/* flags: 1 the reactions are recorded, 2 the energy balance (0: no balance); acc: its terms at the TS's step */
PETSC_INTERN PetscErrorCode TSMechBalanceGetCheckpoint(TS, PetscInt *flags, PetscReal acc[TSMECH_BALANCE_NSTATE]);
/* a restart continues the balance from acc */
PETSC_INTERN PetscErrorCode TSMechBalanceSetCheckpoint(TS, const PetscReal acc[TSMECH_BALANCE_NSTATE]);

#endif
