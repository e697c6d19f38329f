/*
  The force evaluations of a step of PETSc's types (TSMechStepEval, scheme.h), from the step's ends:
  the reactions and the energy balance of src/ts/balance.c take the step's force as the type
  combined it. tsmech's own types give theirs in their files, recomputed from their converged
  unknowns.

    theta, one-leg     f(t + theta tau, (1 - theta) x0 + theta x1)                 x = [q; v]
    theta, endpoint    (1 - theta) f(t, x0) + theta f(t + tau, x1)                  (cn, beuler)
    alpha2             f(t + alpha_f tau, x0 + alpha_f (x1 - x0)); its momentum balance
                       M (v1 - v0) / tau = M ((1 - gamma) a0 + gamma a1) holds with that force only
                       where gamma = alpha_m (radius 1: the midpoint rule)
    euler              f(t, x0)
  Other explicit types (rk, ssp, ...) combine stages these ends do not give: the end stands in.
*/
#include "scheme.h"
#include <petsc/private/tsimpl.h>

/* Evaluation i of e: time t, weight w, the state (q, v) copied into e's work vectors */
PetscErrorCode TSMechStepEvalAt(TSMechStepEval *e, PetscInt i, PetscReal t, PetscReal w, Vec q, Vec v)
{
  PetscFunctionBegin;
  PetscCheck(i >= 0 && i < TSMECH_STEP_MAXEVAL, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A step's force evaluation %" PetscInt_FMT " of at most %d: raise TSMECH_STEP_MAXEVAL (scheme.h)", i, TSMECH_STEP_MAXEVAL);
  e->t[i] = t;
  e->w[i] = w;
  if (q != e->q[i]) PetscCall(VecCopy(q, e->q[i]));
  if (v != e->v[i]) PetscCall(VecCopy(v, e->v[i]));
  e->n = PetscMax(e->n, i + 1);
  PetscFunctionReturn(0);
}

/* Evaluation i at time t, weight w and the state (1 - c) x0 + c x1 */
PetscErrorCode TSMechStepEvalBetween(TSMechStepEval *e, PetscInt i, PetscReal c, PetscReal t, PetscReal w)
{
  PetscFunctionBegin;
  PetscCall(VecAXPBYPCZ(e->q[i], 1 - c, c, 0.0, e->q0, e->q1));
  PetscCall(VecAXPBYPCZ(e->v[i], 1 - c, c, 0.0, e->v0, e->v1));
  PetscCall(TSMechStepEvalAt(e, i, t, w, e->q[i], e->v[i]));
  PetscFunctionReturn(0);
}

PetscErrorCode TSMechStepEvalTheta(TS ts, TSMechStepEval *e)
{
  PetscReal theta;
  PetscBool endpoint;

  PetscFunctionBegin;
  PetscCall(TSThetaGetTheta(ts, &theta));
  PetscCall(TSThetaGetEndpoint(ts, &endpoint));
  if (endpoint && theta < 1) {
    PetscCall(TSMechStepEvalAt(e, 0, e->t0, 1 - theta, e->q0, e->v0));
    PetscCall(TSMechStepEvalAt(e, 1, e->t0 + e->tau, theta, e->q1, e->v1));
  } else PetscCall(TSMechStepEvalBetween(e, 0, theta, e->t0 + theta * e->tau, 1));
  e->exact = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode TSMechStepEvalAlpha2(TS ts, TSMechStepEval *e)
{
  PetscReal am, af, gamma, beta;

  PetscFunctionBegin;
  PetscCall(TSAlpha2GetParams(ts, &am, &af, &gamma, &beta));
  PetscCall(TSMechStepEvalBetween(e, 0, af, e->t0 + af * e->tau, 1));
  e->exact = gamma == am ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode TSMechStepEvalExplicit(TS ts, TSMechStepEval *e)
{
  PetscBool euler;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSEULER, &euler));
  if (!euler) PetscFunctionReturn(0);
  PetscCall(TSMechStepEvalAt(e, 0, e->t0, 1, e->q0, e->v0));
  e->exact = PETSC_TRUE;
  PetscFunctionReturn(0);
}
