/*
  The tsmech program's reactions and energy balance (src/ts/balance.c): its options, the balance
  set on the TS before a restart restores it and before the output is created, and the lines that
  end the run.
*/
#include "driver.h"
#include <stdio.h>

/*MC
  TSMechProgramBalance - the tsmech program's reactions and energy balance (src/driver/balance.c)

  Options Database Keys:
+ -monitor_reactions        - record at every step the reaction force and moment of each constraint (each
                              -solid_bc NAME, the -solid_fix shorthands "fix", another model's fixed dofs
                              "fixed") in the output, /monitor/reaction/NAME/force and /moment, and end the
                              run with a line of them
. -monitor_energy_balance   - record at every step the energy balance, /monitor/balance/kinetic, stored,
                              external_work, prescribed_work, damping, numerical, ratio
- -report_energy_balance    - the energy balance (implies -monitor_energy_balance) in a line at the end

  Level: beginner

.seealso: `TSMechSetBalance()`, `TSMechGetReaction()`, `TSMechGetEnergyBalance()`
M*/
PetscErrorCode DriverBalanceOptions(MPI_Comm comm, DriverBalance *b)
{
  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "Reactions and energy balance (TSMechProgramBalance)", "tsmech");
  PetscCall(PetscOptionsBool("-monitor_reactions", "Record the reaction force and moment of every constraint at every step", "TSMechSetBalance", b->reactions, &b->reactions, NULL));
  PetscCall(PetscOptionsBool("-monitor_energy_balance", "Record the energy balance at every step", "TSMechSetBalance", b->energy, &b->energy, NULL));
  PetscCall(PetscOptionsBool("-report_energy_balance", "Print the energy balance at the end (records it too)", "TSMechSetBalance", b->report, &b->report, NULL));
  PetscOptionsEnd();
  if (b->report) b->energy = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode DriverBalanceSetUp(DriverBalance *b, TS ts)
{
  PetscFunctionBegin;
  if (b->reactions || b->energy) PetscCall(TSMechSetBalance(ts, b->reactions, b->energy));
  PetscFunctionReturn(0);
}

/* The lines that end a run: the reactions of every constraint, the energy balance */
PetscErrorCode DriverBalanceReport(DriverBalance *b, TS ts, MPI_Comm comm)
{
  MechSystem sys;
  PetscReal  t;

  PetscFunctionBegin;
  PetscCall(TSGetTime(ts, &t));
  PetscCall(TSMechGetSystem(ts, &sys));
  if (b->reactions) {
    const char *const *names;
    PetscInt           n;
    char               line[4096], item[512];

    PetscCall(MechSystemGetFixedGroups(sys, &n, &names, NULL, NULL));
    (void)snprintf(line, sizeof(line), "tsmech: reactions at t = %g:%s", (double)t, n ? "" : " no constraints");
    for (PetscInt g = 0; g < n; g++) {
      PetscReal F[3], M[3];

      PetscCall(TSMechGetReaction(ts, names[g], F, M));
      (void)snprintf(item, sizeof(item), "%s %s force (%.6g, %.6g, %.6g) moment (%.6g, %.6g, %.6g)", g ? ";" : "", names[g], (double)F[0], (double)F[1], (double)F[2], (double)M[0], (double)M[1], (double)M[2]);
      PetscCall(PetscStrlcat(line, item, sizeof(line)));
    }
    PetscCall(PetscPrintf(comm, "%s\n", line));
  }
  if (b->report) {
    PetscReal e[TSMECH_ENERGY_N], in;
    char      line[1024];

    PetscCall(TSMechGetEnergyBalance(ts, e));
    in = e[0] + e[1] + e[4] + e[5]; /* E0 + W_ext + W_R, what came in */
    /* the C library's %g (PETSc's writes 8 as "8.") */
    (void)snprintf(line, sizeof(line), "tsmech: energy balance at t = %g: kinetic %.6g + stored %.6g + damping %.6g = %.10g against initial %.6g + external work %.6g + prescribed work %.6g = %.10g: numerical dissipation %.3e, energy ratio %.12g", (double)t, (double)e[0], (double)e[1], (double)e[4], (double)(e[0] + e[1] + e[4]), (double)(in - e[2] - e[3]), (double)e[2], (double)e[3], (double)in, (double)e[5], (double)e[6]);
    PetscCall(PetscPrintf(comm, "%s\n", line));
  }
  PetscFunctionReturn(0);
}
