/* leapfrog2 (leapfrog2.c): a TS type of one's own, for TSMechRegister() and the driver's -dll_append */
#ifndef LEAPFROG2_H
#define LEAPFROG2_H

#include <tsmech.h>

PetscErrorCode TSCreate_Leapfrog2(TS);
/* explicit, order 2, second-order form, restarts exactly at fixed steps */
PetscErrorCode Leapfrog2Properties(TS, TSMechProperties *);
/* what it says of itself at its registration: a one-line description and its options that take a value */
extern const char        Leapfrog2Description[];
extern const char *const Leapfrog2Valued[];

#endif
