/*
  Time functions (src/mech/timefunction.c): phi, phi' against closed forms and central differences
  away from kinks, a table's linear interpolation and held ends, the description a checkpoint
  records (a table's checksum changes with its contents), and the refusals: descriptions that do not
  parse, T <= 0, T2 <= T1, a table that is missing, too short, not increasing, not two finite
  columns. On several ranks the table read on rank 0 gives every rank the same values.
*/
#include <tsmech.h>
#include <stdio.h>
#include <string.h>

static const char help[] = "Time functions of loads and prescribed motions.\n";

static PetscErrorCode Check(const char spec[], PetscReal t, PetscReal phi, PetscReal dphi)
{
  MechTimeFunction tf;
  PetscReal        p, d, pp, pm, h = 1e-6;

  PetscFunctionBegin;
  PetscCall(MechTimeFunctionCreate(PETSC_COMM_WORLD, spec, "-test_time", &tf));
  PetscCall(MechTimeFunctionEvaluate(tf, t, &p, &d, NULL));
  PetscCall(MechTimeFunctionEvaluate(tf, t + h, &pp, NULL, NULL));
  PetscCall(MechTimeFunctionEvaluate(tf, t - h, &pm, NULL, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-22s t = %-6g phi = %-12.9g (expected %-12.9g) phi' = %-12.9g (expected %-12.9g, differences %.9g)\n", spec, (double)t, (double)p, (double)phi, (double)d, (double)dphi, (double)((pp - pm) / (2 * h))));
  PetscCheck(PetscAbsReal(p - phi) <= 1e-14 * (1 + PetscAbsReal(phi)), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s at %g: phi %g, expected %g", spec, (double)t, (double)p, (double)phi);
  PetscCheck(PetscAbsReal(d - dphi) <= 1e-13 * (1 + PetscAbsReal(dphi)), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s at %g: phi' %g, expected %g", spec, (double)t, (double)d, (double)dphi);
  PetscCheck(PetscAbsReal((pp - pm) / (2 * h) - dphi) <= 1e-6 * (1 + PetscAbsReal(dphi)), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s at %g: phi' %g is not the derivative %g", spec, (double)t, (double)d, (double)((pp - pm) / (2 * h)));
  PetscCall(MechTimeFunctionDestroy(&tf));
  PetscFunctionReturn(0);
}

static PetscErrorCode Refused(const char spec[], const char expect[])
{
  MechTimeFunction tf = NULL;
  PetscErrorCode   ierr;
  const char      *text;
  char            *msg = NULL;

  PetscFunctionBegin;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MechTimeFunctionCreate(PETSC_COMM_WORLD, spec, "-test_time", &tf);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr && !tf, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s was accepted", spec);
  PetscCall(PetscErrorMessage(ierr, &text, &msg));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  refused %-28s %s\n", spec, msg));
  PetscCheck(msg && strstr(msg, expect) && strstr(msg, "-test_time"), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the message '%s' lacks '%s' or the option", spec, msg ? msg : "", expect);
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteFile(const char path[], const char text[])
{
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank == 0) {
    FILE *fp = fopen(path, "w");

    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s", path);
    fputs(text, fp);
    fclose(fp);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const PetscReal  w = 2.5;
  char             tab[PETSC_MAX_PATH_LEN], spec[PETSC_MAX_PATH_LEN + 8], d1[512], d2[512];
  MechTimeFunction tf;
  const char      *desc;
  PetscMPIInt      rank;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(Check("constant", 3.0, 1, 0));
  PetscCall(Check("ramp:2", 0.5, 0.25, 0.5));
  PetscCall(Check("ramp:2", 3, 1, 0));
  PetscCall(Check("hat:2.5,5", 1, 0.4, 0.4));
  PetscCall(Check("hat:2.5,5", 3, 0.8, -0.4));
  PetscCall(Check("hat:2.5,5", 6, 0, 0));
  PetscCall(Check("sin:2.5", 0.3, PetscSinReal(w * 0.3), w * PetscCosReal(w * 0.3)));
  {
    PetscReal dd;

    PetscCall(MechTimeFunctionCreate(PETSC_COMM_WORLD, "sin:2.5", "-test_time", &tf));
    PetscCall(MechTimeFunctionEvaluate(tf, 0.3, NULL, NULL, &dd));
    PetscCheck(PetscAbsReal(dd + w * w * PetscSinReal(w * 0.3)) < 1e-14, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "sin: phi'' %g", (double)dd);
    PetscCall(MechTimeFunctionDestroy(&tf));
  }
  PetscCall(PetscSNPrintf(tab, sizeof(tab), "test_timefunction_%d.txt", 0));
  PetscCall(WriteFile(tab, "# t phi\n0 0\n1, 2\n  3 -2   # a comment\n"));
  PetscCall(PetscSNPrintf(spec, sizeof(spec), "table:%s", tab));
  PetscCall(Check(spec, 0.5, 1, 2));
  PetscCall(Check(spec, 2, 0, -2));
  PetscCall(Check(spec, -1, 0, 0));
  PetscCall(Check(spec, 4, -2, 0));
  PetscCall(MechTimeFunctionCreate(PETSC_COMM_WORLD, spec, "-test_time", &tf));
  PetscCall(MechTimeFunctionGetDescription(tf, &desc));
  PetscCall(PetscStrncpy(d1, desc, sizeof(d1)));
  PetscCall(MechTimeFunctionDestroy(&tf));
  PetscCall(WriteFile(tab, "# t phi\n0 0\n1, 2\n  3 -2.5\n"));
  PetscCall(MechTimeFunctionCreate(PETSC_COMM_WORLD, spec, "-test_time", &tf));
  PetscCall(MechTimeFunctionGetDescription(tf, &desc));
  PetscCall(PetscStrncpy(d2, desc, sizeof(d2)));
  PetscCall(MechTimeFunctionDestroy(&tf));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  descriptions: %s / %s\n", d1, d2));
  PetscCheck(strstr(d1, "crc32") && strcmp(d1, d2), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the description does not follow the table's contents");

  PetscCall(Refused("bogus", "unknown time function; allowed: constant, ramp:T"));
  PetscCall(Refused("ramp:0", "ramp:T needs a positive time T"));
  PetscCall(Refused("ramp:abc", "ramp:T needs a positive time T"));
  PetscCall(Refused("ramp:1x", "ramp:T needs a positive time T"));
  PetscCall(Refused("hat:2,1", "hat:T1,T2 needs times 0 < T1 < T2"));
  PetscCall(Refused("hat:2", "hat:T1,T2 needs times 0 < T1 < T2"));
  PetscCall(Refused("sin:nan", "sin:OMEGA needs a finite angular frequency"));
  PetscCall(Refused("sin:1e999", "sin:OMEGA needs a finite angular frequency"));
  PetscCall(Refused("table:", "unknown time function"));
  PetscCall(Refused("table:no_such_file.txt", "the file does not exist"));
  PetscCall(WriteFile(tab, "0 0\n1 1\n1 2\n"));
  PetscCall(Refused(spec, "line 3: t = 1"));
  PetscCall(WriteFile(tab, "0 0\n1 nan\n"));
  PetscCall(Refused(spec, "line 2 is not two finite numbers"));
  PetscCall(WriteFile(tab, "0 0 7\n1 1\n"));
  PetscCall(Refused(spec, "line 1 has more than two columns"));
  PetscCall(WriteFile(tab, "0 0\n"));
  PetscCall(Refused(spec, "needs at least two rows"));
  PetscCall(WriteFile(tab, ""));
  PetscCall(Refused(spec, "needs at least two rows"));
  if (rank == 0) (void)remove(tab);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "time functions: OK\n"));
  PetscCall(PetscFinalize());
  return 0;
}
