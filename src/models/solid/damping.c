/*
  Rayleigh damping from two modal damping ratios (docs/modes.md §5): D = alpha M + beta K0 damps
  the undamped mode of angular frequency omega with the ratio

      zeta(omega) = alpha / (2 omega) + beta omega / 2                                   (Hughes 2000, §9.2)

  exactly (the modes of K0 and M diagonalize D), so two ratios at two frequencies give alpha and
  beta by a 2 x 2 solve:

      alpha = 2 w_i w_j (zeta_i w_j - zeta_j w_i) / (w_j^2 - w_i^2),
      beta  = 2 (zeta_j w_j - zeta_i w_i) / (w_j^2 - w_i^2).

  The frequencies are given (-solid_damping_frequencies) or those of two modes of the undamped
  model at its reference state (-solid_damping_modes i,j: the modal analysis of src/mech/modes.c
  with the options prefix solid_damping_). The resolved alpha and beta replace the recorded
  rayleigh_alpha and rayleigh_beta (rounded to 10 significant digits, so that a restart on other
  ranks, whose eigensolver differs in the last bits, resolves the same values).
*/
#include "solidimpl.h"
#include <stdio.h>
#include <stdlib.h>

/* 10 significant digits: the same value from eigenvalues that differ in their last bits */
static PetscReal Round10(PetscReal x)
{
  char buf[64];

  (void)snprintf(buf, sizeof(buf), "%.9e", (double)x);
  return (PetscReal)strtod(buf, NULL);
}

/* The angular frequencies of modes i and j (from 1) of the undamped system at its reference state */
static PetscErrorCode ModeFrequencies(MechSystem sy, const PetscInt modes[2], PetscReal w[2])
{
  MechModes m;
  Vec       q, v;

  PetscFunctionBegin;
  PetscCall(MechSystemCreateState(sy, &q, &v));
  PetscCall(VecZeroEntries(v));
  PetscCall(MechModesCreate(sy, &m));
  PetscCall(MechModesSetOptionsPrefix(m, "solid_damping_"));
  PetscCall(MechModesSetDimension(m, PetscMax(modes[0], modes[1])));
  PetscCall(MechModesCompute(m, 0.0, q, v));
  for (PetscInt k = 0; k < 2; k++) {
    PetscReal hz;
    PetscBool rigid;

    PetscCall(MechModesGetFrequency(m, modes[k] - 1, &hz, NULL, &rigid));
    PetscCheck(!rigid && hz > 0, PetscObjectComm((PetscObject)sy), PETSC_ERR_ARG_OUTOFRANGE, "-solid_damping_modes %" PetscInt_FMT ",%" PetscInt_FMT ": mode %" PetscInt_FMT " is a rigid-body mode (0 Hz), which Rayleigh damping cannot be given a ratio at", modes[0], modes[1], modes[k]);
    w[k] = 2 * PETSC_PI * hz;
  }
  PetscCall(MechModesDestroy(&m));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}

/*MC
  SolidDampingOptions - Rayleigh damping of the solid from two modal damping ratios (docs/modes.md §5),
  instead of its coefficients (-solid_rayleigh)

  Options Database Keys:
+ -solid_damping_ratio <z[,z2]>          - the damping ratio of both modes, or of each (0 <= z < 1)
. -solid_damping_modes <i,j>             - the modes (from 1, in ascending frequency, of the undamped model at its
                                           reference state) that get those ratios; their frequencies must differ
. -solid_damping_frequencies <f1,f2>     - or the two frequencies in Hz (positive, distinct)
- -solid_damping_solver <direct>, -solid_damping_eps_*, -solid_damping_st_* - the eigensolver of -solid_damping_modes
    (`MechModesCompute()`'s -modes_solver and SLEPc's options, under this prefix)

  Notes:
  alpha and beta follow from zeta(omega) = alpha / (2 omega) + beta omega / 2 at the two frequencies;
  a pair whose alpha or beta would be negative (a mode between them would be undamped or amplified)
  is refused, as is -solid_rayleigh with these options, a ratio without its modes or frequencies, and
  both of those. The resolved values are recorded as the model parameters rayleigh_alpha and
  rayleigh_beta (the output's attributes, the checkpoint), with the options as damping_ratio_i,
  damping_ratio_j and damping_mode_i, damping_mode_j or damping_frequency_i, damping_frequency_j.

  Level: intermediate

.seealso: `MechCreateSolid()`, `MechModesCompute()`
M*/
PetscErrorCode SolidSetUpDampingRatios(Solid *s, MechSystem sy)
{
  MPI_Comm  comm    = PetscObjectComm((PetscObject)sy);
  PetscReal zeta[2] = {0, 0}, freq[2] = {0, 0}, w[2], alpha, beta;
  PetscInt  modes[2] = {0, 0}, nz = 2;
  PetscBool setz, setm, setf;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "Rayleigh damping from modal ratios (SolidDampingOptions)", "MechCreateSolid");
  PetscCall(PetscOptionsRealArray("-solid_damping_ratio", "Damping ratio of the two modes (one value) or of each (two)", "MechCreateSolid", zeta, &nz, &setz));
  PetscCall(MechOptionsIntList("-solid_damping_modes", "The two modes (from 1) of -solid_damping_ratio", "MechCreateSolid", modes, 2, &setm));
  PetscCall(MechOptionsRealList("-solid_damping_frequencies", "The two frequencies (Hz) of -solid_damping_ratio", "MechCreateSolid", freq, 2, &setf));
  PetscOptionsEnd();
  if (!setz && !setm && !setf) PetscFunctionReturn(0);
  PetscCheck(setz, comm, PETSC_ERR_ARG_WRONG, "%s: needs -solid_damping_ratio", setm ? "-solid_damping_modes" : "-solid_damping_frequencies");
  PetscCheck(nz == 1 || nz == 2, comm, PETSC_ERR_ARG_SIZ, "-solid_damping_ratio: needs one ratio or two comma-separated ones");
  if (nz == 1) zeta[1] = zeta[0];
  for (PetscInt r = 0; r < s->nreg; r++) PetscCheck(s->reg[r].alpha == 0 && s->reg[r].beta == 0, comm, PETSC_ERR_ARG_INCOMP, "-solid_damping_ratio and %s%s%s: give the damping either as ratios or as alpha,beta, not both", r ? "-solid_region_" : "-solid_rayleigh", r ? s->reg[r].name : "", r ? "_rayleigh" : "");
  PetscCheck(setm || setf, comm, PETSC_ERR_ARG_WRONG, "-solid_damping_ratio: needs the two modes (-solid_damping_modes i,j) or frequencies (-solid_damping_frequencies f1,f2) it applies to");
  PetscCheck(!(setm && setf), comm, PETSC_ERR_ARG_INCOMP, "-solid_damping_modes and -solid_damping_frequencies: give the modes or the frequencies, not both");
  for (PetscInt k = 0; k < 2; k++) PetscCheck(zeta[k] >= 0 && zeta[k] < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-solid_damping_ratio %g: a ratio must be at least 0 and below 1", (double)zeta[k]);
  if (setm) {
    PetscCheck(modes[0] >= 1 && modes[1] >= 1 && modes[0] != modes[1], comm, PETSC_ERR_ARG_OUTOFRANGE, "-solid_damping_modes %" PetscInt_FMT ",%" PetscInt_FMT ": two different modes, each at least 1", modes[0], modes[1]);
    PetscCall(ModeFrequencies(sy, modes, w));
  } else {
    PetscCheck(freq[0] > 0 && freq[1] > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-solid_damping_frequencies %g,%g: both must be positive", (double)freq[0], (double)freq[1]);
    for (PetscInt k = 0; k < 2; k++) w[k] = 2 * PETSC_PI * freq[k];
  }
  PetscCheck(PetscAbsReal(w[1] - w[0]) > 1e-6 * PetscMax(w[0], w[1]), comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: the two frequencies are equal (%g Hz): two ratios at one frequency do not determine alpha and beta", setm ? "-solid_damping_modes" : "-solid_damping_frequencies", (double)(w[0] / (2 * PETSC_PI)));
  alpha = 2 * w[0] * w[1] * (zeta[0] * w[1] - zeta[1] * w[0]) / (w[1] * w[1] - w[0] * w[0]);
  beta  = 2 * (zeta[1] * w[1] - zeta[0] * w[0]) / (w[1] * w[1] - w[0] * w[0]);
  PetscCheck(alpha >= 0 && beta >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-solid_damping_ratio %g,%g at %g and %g Hz gives alpha = %g, beta = %g: a negative coefficient would leave some modes undamped or amplified", (double)zeta[0], (double)zeta[1], (double)(w[0] / (2 * PETSC_PI)), (double)(w[1] / (2 * PETSC_PI)), (double)alpha, (double)beta);
  s->alpha = Round10(alpha);
  s->beta  = Round10(beta);
  /* one pair for the whole body: every region's, so that the kernels that read a region's see it */
  for (PetscInt r = 0; r < s->nreg; r++) {
    s->reg[r].alpha = s->alpha;
    s->reg[r].beta  = s->beta;
  }
  PetscCall(PetscInfo(sy, "Rayleigh damping from ratios %g, %g at %g, %g Hz: alpha = %g, beta = %g\n", (double)zeta[0], (double)zeta[1], (double)(w[0] / (2 * PETSC_PI)), (double)(w[1] / (2 * PETSC_PI)), (double)s->alpha, (double)s->beta));
  if (s->beta != 0) {
    PetscCall(SolidCreatePattern(s, PETSC_FALSE, &s->K0));
    PetscCall(MatDestroy(&s->graph));
    PetscCall(SolidAddElementTangents(s, 0, NULL, 1.0, s->K0));
  }
  PetscCall(MechSystemSetTangent(sy, NULL, PETSC_TRUE, SolidTangent, s));
  PetscCall(MechSystemSetParameter(sy, "rayleigh_alpha", s->alpha));
  PetscCall(MechSystemSetParameter(sy, "rayleigh_beta", s->beta));
  PetscCall(MechSystemAddParameter(sy, "damping_ratio_i", zeta[0]));
  PetscCall(MechSystemAddParameter(sy, "damping_ratio_j", zeta[1]));
  if (setm) {
    PetscCall(MechSystemAddParameter(sy, "damping_mode_i", (PetscReal)modes[0]));
    PetscCall(MechSystemAddParameter(sy, "damping_mode_j", (PetscReal)modes[1]));
  } else {
    PetscCall(MechSystemAddParameter(sy, "damping_frequency_i", freq[0]));
    PetscCall(MechSystemAddParameter(sy, "damping_frequency_j", freq[1]));
  }
  PetscFunctionReturn(0);
}
