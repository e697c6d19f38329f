/*
  LD_PRELOAD shim for the clock-skew test: MPI_Wtime() (what PetscTime() reads) of one rank runs
  at another rate than the others' clocks. TSMECH_SKEW_RANK names the rank (OMPI_COMM_WORLD_RANK),
  TSMECH_SKEW_RATE the rate: 0 freezes that rank's clock, 1000 makes a millisecond look like a
  second. A decision that leads to a collective call and is taken from a rank's own clock then
  differs between the ranks, which hangs or crashes the run.
*/
#include <mpi.h>
#include <stdlib.h>

double MPI_Wtime(void)
{
  static int    init = 0, skewed = 0;
  static double start = 0, rate = 1;
  double        now = PMPI_Wtime();

  if (!init) {
    const char *r = getenv("TSMECH_SKEW_RANK"), *me = getenv("OMPI_COMM_WORLD_RANK"), *s = getenv("TSMECH_SKEW_RATE");

    init   = 1;
    skewed = r && me && atoi(r) == atoi(me);
    rate   = s ? atof(s) : 1;
    start  = now;
  }
  return skewed ? start + rate * (now - start) : now;
}
