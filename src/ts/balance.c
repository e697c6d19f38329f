/*
  The reactions and the energy balance of a run (TSMechSetBalance()), computed at every step with
  the step's own discrete quantities (docs/balance.md).

  The step. Every tsmech type and PETSc's implicit ones satisfy, on the free rows, to the
  solver's residual,

      M (v1 - v0) = -tau f,    f = sum_i w_i f(t_i, q_i, v_i)

  with its own evaluations (the family's stepeval, scheme.h: the midpoint rule's one stage, the
  trapezoidal rule's two ends, Gauss-Legendre's s stages, discgrad2's discrete gradient). The
  reaction on a constrained row c is that row's residual, the force the constraint exerts:

      R_c = f_c + [M (v1 - v0)]_c / tau + m_c ((v1 - v0)_c / tau - a^_c),

  f_c the model's force on the row (before the system zeroes it, MechSystemComputeForcePart()),
  M the whole mass, m_c the mass coupling of dof c to the free dofs and a^_c the prescribed
  acceleration the free rows' inertia coupling used (zero at rest; the last term vanishes for
  discgrad2, whose coupling is (v1 - v0)_c / tau). A quasi-static step (static2) has no inertia:
  R_c = f_c(t1, q1, 0), and no kinetic energy. Summed over all rows the internal forces cancel,
  so the change of the total momentum P = 1^T M v is

      (P1 - P0) / tau = F_ext + sum_c R_c      (per component, to the free rows' residual).

  The energy. Each term from the same quantities, dq = q1 - q0 and vbar = (v0 + v1)/2:

      kinetic K = 1/2 v^T M v,  stored V (the model's strain energy),
      external work     W_ext  += sum_i w_i dq . F_ext(t_i, q_i, v_i)       (the loads as applied)
      prescribed work   W_R    += sum_c dq_c f_c + tau vbar_c (R_c - f_c)   (the constraints')
      damping           D      += sum_i w_i dq . (D v)(t_i, q_i, v_i)
      numerical         E0 + W_ext + W_R - K - V - D                         (what is left)
      ratio             (K + V + D) / (E0 + W_ext + W_R)                      (LS-DYNA's energy ratio;
                                                                              NaN where nothing came in)

  For discgrad2, V(q1) - V(q0) = dq . fbar and K1 - K0 = vbar^T M (v1 - v0) make what is left the
  free rows' residual: the balance closes to round-off. For the midpoint rule it is
  V(q1) - V(q0) - dq . f(q_mid), of third order per step. The work of the constraints' inertia is
  taken along tau vbar_c, the step's kinetic energy change (along dq_c it would differ by the
  mismatch of a prescribed position and velocity, dq_c - tau vbar_c = O(tau^3)).

  The values are the TS's records (MechSystemAddRecords(): the output's /monitor/reaction/NAME/force,
  /moment and /monitor/balance/NAME), updated at every step by a TSMonitor and on demand when the
  output or a checkpoint records a step first; what accumulates (E0, W_ext, W_R, D) is in the
  checkpoints, so a restart continues every history exactly.
*/
#include "tsimpl2.h"
#include "scheme.h"
#include "balanceimpl.h"
#include "../mech/mechimpl.h"

const char *const TSMechEnergyNames[TSMECH_ENERGY_N] = {"kinetic", "stored", "external_work", "prescribed_work", "damping", "numerical", "ratio"};

typedef struct {
  TS                 ts;
  MechSystem         sys;
  PetscBool          reactions, energy, motion;
  PetscInt           step; /* of the last record, -1 none */
  PetscReal          t;
  Vec                q, v, q1, v1, f, g, w, a; /* the last record's state, the new one, work */
  TSMechStepEval     e;
  PetscInt           ngroups, nfix, bs, rstart;
  const char *const *names;
  const PetscInt    *group, *idx; /* per fixed dof of this rank: its group, its global index */
  const PetscReal   *about;
  PetscReal         *mfree, *ahat, *R; /* per fixed dof: mass coupling to the free dofs (a motion and a consistent mass), a^, the reaction */
  PetscReal         *fm;               /* per group: force and moment (6) */
  PetscReal          E[TSMECH_ENERGY_N];
  PetscReal          acc[TSMECH_BALANCE_NSTATE]; /* E0, W_ext, W_R, D */
  PetscBool          restored;                   /* acc given by a checkpoint */
  PetscInt           nrec;
  char             **rnames;
  PetscInt          *rncomp;
} Balance;

/* The state vectors and the constrained dofs, at the first record */
static PetscErrorCode BalanceSetUp(Balance *b)
{
  IS fixed;

  PetscFunctionBegin;
  if (b->q) PetscFunctionReturn(0);
  PetscCall(MechSystemCreateState(b->sys, &b->q, &b->v));
  PetscCall(VecGetBlockSize(b->q, &b->bs));
  PetscCall(VecGetOwnershipRange(b->q, &b->rstart, NULL));
  PetscCall(VecDuplicate(b->q, &b->q1));
  PetscCall(VecDuplicate(b->q, &b->v1));
  PetscCall(VecDuplicate(b->q, &b->f));
  PetscCall(VecDuplicate(b->q, &b->g));
  PetscCall(VecDuplicate(b->q, &b->w));
  PetscCall(VecDuplicate(b->q, &b->a));
  for (PetscInt i = 0; i < TSMECH_STEP_MAXEVAL; i++) {
    PetscCall(VecDuplicate(b->q, &b->e.q[i]));
    PetscCall(VecDuplicate(b->q, &b->e.v[i]));
  }
  PetscCall(MechSystemSetUp(b->sys));
  PetscCall(MechSystemGetFixed(b->sys, &fixed));
  b->nfix = 0;
  if (fixed) {
    PetscCall(ISGetLocalSize(fixed, &b->nfix));
    PetscCall(ISGetIndices(fixed, &b->idx));
  }
  PetscCall(PetscCalloc3(b->nfix + 1, &b->ahat, b->nfix + 1, &b->R, b->nfix + 1, &b->mfree));
  PetscCall(MechSystemHasFixedMotion(b->sys, &b->motion));
  if (b->motion && !b->sys->massdiag) {
    const PetscScalar *y;

    /* m_c = sum over the free rows f of M_fc = (M 1_free)_c, M symmetric */
    PetscCall(VecSet(b->w, 1.0));
    PetscCall(VecISSet(b->w, fixed, 0.0));
    PetscCall(MatMult(b->sys->M, b->w, b->g));
    PetscCall(VecGetArrayRead(b->g, &y));
    for (PetscInt k = 0; k < b->nfix; k++) b->mfree[k] = PetscRealPart(y[b->idx[k] - b->rstart]);
    PetscCall(VecRestoreArrayRead(b->g, &y));
  }
  PetscFunctionReturn(0);
}

/* f (on the fixed rows) = the step's force, sum_i w_i f(t_i, q_i, v_i) or discgrad2's discrete gradient */
static PetscErrorCode StepForce(Balance *b)
{
  TSMechStepEval *e = &b->e;

  PetscFunctionBegin;
  if (e->discgrad) {
    PetscBool exact;

    PetscCall(MechSystemComputeDiscreteGradientRaw_Private(b->sys, e->t[0], e->q0, e->q[0], e->v[0], b->f, &exact));
    e->exact = e->exact && exact ? PETSC_TRUE : PETSC_FALSE;
    PetscFunctionReturn(0);
  }
  PetscCall(VecZeroEntries(b->f));
  for (PetscInt i = 0; i < e->n; i++) {
    PetscCall(MechSystemComputeForcePart(b->sys, e->t[i], e->q[i], e->v[i], MECH_FORCE_ALL, PETSC_TRUE, b->g));
    PetscCall(VecAXPY(b->f, e->w[i], b->g));
  }
  PetscFunctionReturn(0);
}

/* a^ on the fixed dofs: the prescribed accelerations the free rows' coupling used, sum_i w_i a(t_i) */
static PetscErrorCode PrescribedAcceleration(Balance *b)
{
  const PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(b->ahat, b->nfix));
  if (!b->motion || b->e.finitedifference) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < b->e.n; i++) {
    PetscCall(VecZeroEntries(b->a));
    PetscCall(MechSystemComputeFixedMotion(b->sys, b->e.t[i], NULL, NULL, b->a));
    PetscCall(VecGetArrayRead(b->a, &a));
    for (PetscInt k = 0; k < b->nfix; k++) b->ahat[k] += b->e.w[i] * PetscRealPart(a[b->idx[k] - b->rstart]);
    PetscCall(VecRestoreArrayRead(b->a, &a));
  }
  PetscFunctionReturn(0);
}

/*
  The reactions R (per fixed dof) of the step of size tau from (q, v) to (q1, v1), f holding its
  force (tau 0: the first record, R = f), their sums per group into fm, and this rank's part of the
  constraints' work (wpres). Collective.
*/
static PetscErrorCode Reactions(Balance *b, PetscReal tau, PetscReal *wpres)
{
  const PetscScalar *f, *Mdv, *dv, *x, *q0, *v0, *v1;
  PetscReal          work = 0;

  PetscFunctionBegin;
  if (tau > 0) {
    PetscCall(VecWAXPY(b->w, -1.0, b->v, b->v1));
    PetscCall(MatMult(b->sys->M, b->w, b->g));
    PetscCall(PrescribedAcceleration(b));
  }
  PetscCall(PetscArrayzero(b->fm, 6 * b->ngroups));
  PetscCall(VecGetArrayRead(b->f, &f));
  PetscCall(VecGetArrayRead(b->g, &Mdv));
  PetscCall(VecGetArrayRead(b->w, &dv));
  PetscCall(VecGetArrayRead(b->q1, &x));
  PetscCall(VecGetArrayRead(b->q, &q0));
  PetscCall(VecGetArrayRead(b->v, &v0));
  PetscCall(VecGetArrayRead(b->v1, &v1));
  for (PetscInt k = 0; k < b->nfix; k++) {
    const PetscInt   i = b->idx[k] - b->rstart, comp = b->idx[k] % b->bs, g = b->group[k];
    const PetscReal *c = &b->about[3 * g];
    PetscReal        R = PetscRealPart(f[i]), *fm = &b->fm[6 * g];

    if (tau > 0 && !b->e.quasistatic) R += PetscRealPart(Mdv[i]) / tau + (b->e.finitedifference ? 0 : b->mfree[k] * (PetscRealPart(dv[i]) / tau - b->ahat[k]));
    b->R[k] = R;
    if (comp < 3) fm[comp] += R;
    if (b->bs == 3) {
      /* (x - c) x (R e_comp), x the node's end position */
      const PetscReal r[3] = {PetscRealPart(x[i - comp]) - c[0], PetscRealPart(x[i - comp + 1]) - c[1], PetscRealPart(x[i - comp + 2]) - c[2]};

      fm[3] += comp == 1 ? -r[2] * R : (comp == 2 ? r[1] * R : 0);
      fm[4] += comp == 0 ? r[2] * R : (comp == 2 ? -r[0] * R : 0);
      fm[5] += comp == 0 ? -r[1] * R : (comp == 1 ? r[0] * R : 0);
    }
    if (tau > 0) {
      const PetscReal dq = PetscRealPart(x[i] - q0[i]), vbar = 0.5 * PetscRealPart(v0[i] + v1[i]);

      work += dq * PetscRealPart(f[i]) + tau * vbar * (R - PetscRealPart(f[i]));
    }
  }
  PetscCall(VecRestoreArrayRead(b->v1, &v1));
  PetscCall(VecRestoreArrayRead(b->v, &v0));
  PetscCall(VecRestoreArrayRead(b->q, &q0));
  PetscCall(VecRestoreArrayRead(b->q1, &x));
  PetscCall(VecRestoreArrayRead(b->w, &dv));
  PetscCall(VecRestoreArrayRead(b->g, &Mdv));
  PetscCall(VecRestoreArrayRead(b->f, &f));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, b->fm, 6 * b->ngroups, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)b->sys)));
  PetscCall(MPIU_Allreduce(&work, wpres, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)b->sys)));
  PetscFunctionReturn(0);
}

/* sum_i w_i dq . part(t_i, q_i, v_i), dq = q1 - q (the loads' -F_ext, the damping's D v) */
static PetscErrorCode PartWork(Balance *b, MechForcePart part, PetscReal *work)
{
  PetscFunctionBegin;
  *work = 0;
  PetscCall(VecWAXPY(b->w, -1.0, b->q, b->q1));
  for (PetscInt i = 0; i < b->e.n; i++) {
    PetscScalar d;

    PetscCall(MechSystemComputeForcePart(b->sys, b->e.t[i], b->e.q[i], b->e.v[i], part, PETSC_FALSE, b->g));
    PetscCall(VecDot(b->g, b->w, &d));
    *work += b->e.w[i] * PetscRealPart(d);
  }
  PetscFunctionReturn(0);
}

/* K and V at the new state, and the terms of the balance from the accumulated work */
static PetscErrorCode Energies(Balance *b, PetscReal t)
{
  PetscReal  *E = b->E, *acc = b->acc, den;
  PetscScalar vMv;

  PetscFunctionBegin;
  /* a quasi-static step's v is (q1 - q0) / tau, a rate of loading, not a velocity of mass */
  if (b->e.quasistatic) E[0] = 0;
  else {
    PetscCall(MatMult(b->sys->M, b->v1, b->g));
    PetscCall(VecDot(b->v1, b->g, &vMv));
    E[0] = 0.5 * PetscRealPart(vMv);
  }
  PetscCall(MechSystemComputeStoredEnergy(b->sys, t, b->q1, b->v1, &E[1]));
  if (b->step < 0 && !b->restored) {
    acc[0] = E[0] + E[1];
    acc[1] = acc[2] = acc[3] = 0;
  }
  E[2] = acc[1];
  E[3] = acc[2];
  E[4] = acc[3];
  E[5] = acc[0] + acc[1] + acc[2] - E[0] - E[1] - acc[3];
  den  = acc[0] + acc[1] + acc[2];
  /* no energy in or at the start (a body at rest, or a model whose potential counts its loads): no ratio */
  E[6] = PetscAbsReal(den) > 64 * PETSC_MACHINE_EPSILON * (PetscAbsReal(acc[0]) + PetscAbsReal(acc[1]) + PetscAbsReal(acc[2]) + E[0] + PetscAbsReal(E[1]) + PetscAbsReal(acc[3])) ? (E[0] + E[1] + acc[3]) / den : (PetscReal)NAN;
  PetscFunctionReturn(0);
}

/* Brings the balance to the TS's current step: the step from the last record, or a first record. Collective. */
static PetscErrorCode BalanceUpdate(Balance *b)
{
  PetscInt  k;
  PetscReal t, wpres = 0;
  PetscBool first;

  PetscFunctionBegin;
  PetscCall(TSGetStepNumber(b->ts, &k));
  PetscCall(TSGetTime(b->ts, &t));
  if (k == b->step && b->step >= 0) PetscFunctionReturn(0);
  PetscCall(BalanceSetUp(b));
  PetscCall(TSMechGetSolution(b->ts, b->q1, b->v1));
  /* the first record, after a restart, or after a gap (a guard that went back): no step to balance */
  first = b->step < 0 || k != b->step + 1 ? PETSC_TRUE : PETSC_FALSE;
  if (first) {
    if (b->step >= 0) b->restored = PETSC_TRUE; /* keep what accumulated */
    b->step = -1;
    if (b->reactions && b->ngroups) {
      PetscCall(MechSystemComputeForcePart(b->sys, t, b->q1, b->v1, MECH_FORCE_ALL, PETSC_TRUE, b->f));
      PetscCall(Reactions(b, 0, &wpres));
    }
  } else {
    TSMechStepEval *e = &b->e;

    e->t0  = b->t;
    e->tau = t - b->t;
    e->q0  = b->q;
    e->v0  = b->v;
    e->q1  = b->q1;
    e->v1  = b->v1;
    PetscCall(TSMechSchemeStepEval(b->ts, e));
    if (b->ngroups) {
      PetscCall(StepForce(b));
      PetscCall(Reactions(b, e->tau, &wpres));
    }
    if (b->energy) {
      PetscReal wext, wdamp;

      PetscCall(PartWork(b, MECH_FORCE_EXTERNAL, &wext));
      PetscCall(PartWork(b, MECH_FORCE_DAMPING, &wdamp));
      b->acc[1] -= wext;
      b->acc[2] += wpres;
      b->acc[3] += wdamp;
    }
  }
  if (b->energy) PetscCall(Energies(b, t));
  PetscCall(VecCopy(b->q1, b->q));
  PetscCall(VecCopy(b->v1, b->v));
  b->t    = t;
  b->step = k;
  PetscFunctionReturn(0);
}

/* The TSMonitor: every step (not the call after a failed step, nor TSSolve()'s interpolation) */
static PetscErrorCode BalanceMonitor(TS ts, PetscInt step, PetscReal t, Vec X, void *ctx)
{
  TSConvergedReason reason;

  PetscFunctionBegin;
  (void)t;
  (void)X;
  if (step < 0) PetscFunctionReturn(0);
  PetscCall(TSGetConvergedReason(ts, &reason));
  if (reason < 0) PetscFunctionReturn(0);
  PetscCall(BalanceUpdate((Balance *)ctx));
  PetscFunctionReturn(0);
}

/* The records (MechSystemAddRecords()): per group its force and moment, then the energy terms */
static PetscErrorCode BalanceRecords(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal values[], void *ctx)
{
  Balance *b = (Balance *)ctx;
  PetscInt n = 0;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)q;
  (void)v;
  PetscCall(BalanceUpdate(b));
  for (PetscInt g = 0; g < b->ngroups && b->reactions; g++)
    for (PetscInt i = 0; i < 6; i++) values[n++] = b->fm[6 * g + i];
  for (PetscInt i = 0; i < TSMECH_ENERGY_N && b->energy; i++) values[n++] = b->E[i];
  PetscFunctionReturn(0);
}

static PetscErrorCode BalanceDestroy(void *ctx)
{
  Balance *b = (Balance *)ctx;

  PetscFunctionBegin;
  PetscCall(MechSystemRemoveRecords(b->sys, b));
  if (b->idx) {
    IS fixed;

    PetscCall(MechSystemGetFixed(b->sys, &fixed));
    PetscCall(ISRestoreIndices(fixed, &b->idx));
  }
  PetscCall(VecDestroy(&b->q));
  PetscCall(VecDestroy(&b->v));
  PetscCall(VecDestroy(&b->q1));
  PetscCall(VecDestroy(&b->v1));
  PetscCall(VecDestroy(&b->f));
  PetscCall(VecDestroy(&b->g));
  PetscCall(VecDestroy(&b->w));
  PetscCall(VecDestroy(&b->a));
  for (PetscInt i = 0; i < TSMECH_STEP_MAXEVAL; i++) {
    PetscCall(VecDestroy(&b->e.q[i]));
    PetscCall(VecDestroy(&b->e.v[i]));
  }
  PetscCall(PetscFree3(b->ahat, b->R, b->mfree));
  PetscCall(PetscFree(b->fm));
  for (PetscInt i = 0; i < b->nrec; i++) PetscCall(PetscFree(b->rnames[i]));
  PetscCall(PetscFree(b->rnames));
  PetscCall(PetscFree(b->rncomp));
  PetscCall(MechSystemDestroy(&b->sys));
  PetscCall(PetscFree(b));
  PetscFunctionReturn(0);
}

static PetscErrorCode GetBalance(TS ts, Balance **b)
{
  PetscContainer c;

  PetscFunctionBegin;
  *b = NULL;
  PetscCall(PetscObjectQuery((PetscObject)ts, "TSMechBalance", (PetscObject *)&c));
  if (c) PetscCall(PetscContainerGetPointer(c, (void **)b));
  PetscFunctionReturn(0);
}

/*@
  TSMechSetBalance - Computes, at every step, the reaction forces and moments of the system's
  constraints and the energy balance, with the step's own discrete quantities.

  Collective

  Input Parameters:
+ ts        - the TS, with its system attached (`TSMechSetSystem()`)
. reactions - record the reactions of every group of fixed dofs (`MechSystemSetFixedGroups()`)
- energy    - record the energy balance

  Level: intermediate

  Notes:
  The reaction of a constraint is the force it exerts on the body: on each constrained row the
  step's residual, so that the change of the total momentum over a step is tau times the applied
  loads plus the reactions, to the solver's residual, for every tsmech type and PETSc's theta,
  beuler, cn, euler and alpha2 at radius 1 (alpha2 otherwise, and rk, ssp, ...: an estimate from the
  step's end). Its moment is taken about the group's point, with the nodes' end positions.
  The energy balance (`TSMechEnergyNames`): kinetic, stored (the model's strain energy), the
  external work of the loads, the work of the constraints (prescribed motions), the damping's
  dissipation, what is left (the integrator's numerical dissipation) and the energy ratio
  (kinetic + stored + damping) / (initial + external + prescribed work). docs/balance.md has the
  formulas. The values are records of the system (`MechSystemAddRecords()`): the HDF5 output writes
  them at every step (/monitor/reaction/NAME/force, /moment, /monitor/balance/NAME), and
  checkpoints hold what accumulates, so a restart continues them exactly. Call before
  `MechOutputCreate()`. The balance is destroyed with the TS.

.seealso: `TSMechGetReaction()`, `TSMechGetEnergyBalance()`, `MechSystemSetFixedGroups()`, `MechSystemSetForcePart()`
@*/
PetscErrorCode TSMechSetBalance(TS ts, PetscBool reactions, PetscBool energy)
{
  Balance       *b;
  MechSystem     sys;
  PetscContainer c;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscCall(TSMechGetSystem(ts, &sys));
  PetscCheck(sys, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONGSTATE, "TSMechSetBalance() needs a MechSystem attached to the TS (TSMechSetSystem())");
  PetscCall(GetBalance(ts, &b));
  PetscCheck(!b, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONGSTATE, "The TS has its balance already");
  if (!reactions && !energy) PetscFunctionReturn(0);
  PetscCall(PetscNew(&b));
  b->ts        = ts;
  b->sys       = sys;
  b->reactions = reactions;
  b->energy    = energy;
  b->step      = -1;
  PetscCall(PetscObjectReference((PetscObject)sys));
  PetscCall(MechSystemGetFixedGroups(sys, &b->ngroups, &b->names, &b->group, &b->about));
  PetscCall(PetscCalloc1(6 * b->ngroups + 1, &b->fm));
  /* the records: per group its force and moment, then the energy terms */
  b->nrec = (reactions ? 2 * b->ngroups : 0) + (energy ? TSMECH_ENERGY_N : 0);
  PetscCall(PetscCalloc1(b->nrec + 1, &b->rnames));
  PetscCall(PetscCalloc1(b->nrec + 1, &b->rncomp));
  b->nrec = 0;
  for (PetscInt g = 0; g < b->ngroups && reactions; g++)
    for (PetscInt k = 0; k < 2; k++) {
      char name[256];

      PetscCall(PetscSNPrintf(name, sizeof(name), "reaction/%s/%s", b->names[g], k ? "moment" : "force"));
      PetscCall(PetscStrallocpy(name, &b->rnames[b->nrec]));
      b->rncomp[b->nrec++] = 3;
    }
  for (PetscInt i = 0; i < TSMECH_ENERGY_N && energy; i++) {
    char name[256];

    PetscCall(PetscSNPrintf(name, sizeof(name), "balance/%s", TSMechEnergyNames[i]));
    PetscCall(PetscStrallocpy(name, &b->rnames[b->nrec]));
    b->rncomp[b->nrec++] = 1;
  }
  PetscCall(MechSystemAddRecords(sys, b->nrec, (const char *const *)b->rnames, b->rncomp, BalanceRecords, b));
  PetscCall(PetscContainerCreate(PetscObjectComm((PetscObject)ts), &c));
  PetscCall(PetscContainerSetPointer(c, b));
  PetscCall(PetscContainerSetUserDestroy(c, BalanceDestroy));
  PetscCall(PetscObjectCompose((PetscObject)ts, "TSMechBalance", (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  PetscCall(TSMonitorSet(ts, BalanceMonitor, b, NULL));
  PetscFunctionReturn(0);
}

/*@C
  TSMechGetReaction - The reaction force and moment of a group of fixed dofs at the TS's current
  step (`TSMechSetBalance()`).

  Collective

  Input Parameters:
+ ts   - the TS
- name - the group (a constraint's name: -solid_bc NAME, "fix"; "fixed" for a model's unnamed fixed dofs)

  Output Parameters:
+ force  - the force the constraint exerts on the body (3 components; may be NULL)
- moment - its moment about the group's point (may be NULL)

  Level: intermediate

.seealso: `TSMechSetBalance()`, `MechSystemGetFixedGroups()`
@*/
PetscErrorCode TSMechGetReaction(TS ts, const char name[], PetscReal force[3], PetscReal moment[3])
{
  Balance *b;
  PetscInt g;

  PetscFunctionBegin;
  PetscCall(GetBalance(ts, &b));
  PetscCheck(b && b->reactions, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONGSTATE, "No reactions: call TSMechSetBalance() with reactions (the program's -monitor_reactions)");
  for (g = 0; g < b->ngroups; g++)
    if (!strcmp(b->names[g], name)) break;
  PetscCheck(g < b->ngroups, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONG, "No constraint (group of fixed dofs) named %s", name);
  PetscCall(BalanceUpdate(b));
  for (PetscInt i = 0; i < 3; i++) {
    if (force) force[i] = b->fm[6 * g + i];
    if (moment) moment[i] = b->fm[6 * g + 3 + i];
  }
  PetscFunctionReturn(0);
}

/*@C
  TSMechGetEnergyBalance - The energy balance at the TS's current step (`TSMechSetBalance()`): the
  terms of `TSMechEnergyNames`, kinetic, stored, external_work, prescribed_work, damping, numerical
  and ratio.

  Collective

  Level: intermediate

.seealso: `TSMechSetBalance()`
@*/
PetscErrorCode TSMechGetEnergyBalance(TS ts, PetscReal e[TSMECH_ENERGY_N])
{
  Balance *b;

  PetscFunctionBegin;
  PetscCall(GetBalance(ts, &b));
  PetscCheck(b && b->energy, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONGSTATE, "No energy balance: call TSMechSetBalance() with energy (the program's -monitor_energy_balance)");
  PetscCall(BalanceUpdate(b));
  for (PetscInt i = 0; i < TSMECH_ENERGY_N; i++) e[i] = b->E[i];
  PetscFunctionReturn(0);
}

/* What a checkpoint holds of the balance (balanceimpl.h): whether there is one and what accumulates, at the current step */
PetscErrorCode TSMechBalanceGetCheckpoint(TS ts, PetscInt *flags, PetscReal acc[TSMECH_BALANCE_NSTATE])
{
  Balance *b;

  PetscFunctionBegin;
  PetscCall(GetBalance(ts, &b));
  *flags = b ? (b->reactions ? 1 : 0) + (b->energy ? 2 : 0) : 0;
  for (PetscInt i = 0; i < TSMECH_BALANCE_NSTATE; i++) acc[i] = 0;
  if (!b || !b->energy) PetscFunctionReturn(0);
  PetscCall(BalanceUpdate(b));
  for (PetscInt i = 0; i < TSMECH_BALANCE_NSTATE; i++) acc[i] = b->acc[i];
  PetscFunctionReturn(0);
}

/* A restart: the balance continues from what the checkpoint accumulated */
PetscErrorCode TSMechBalanceSetCheckpoint(TS ts, const PetscReal acc[TSMECH_BALANCE_NSTATE])
{
  Balance *b;

  PetscFunctionBegin;
  PetscCall(GetBalance(ts, &b));
  if (!b) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < TSMECH_BALANCE_NSTATE; i++) b->acc[i] = acc[i];
  b->restored = PETSC_TRUE;
  b->step     = -1;
  PetscFunctionReturn(0);
}
