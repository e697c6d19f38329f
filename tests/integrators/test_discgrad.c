static const char help[] = "discgrad2 and the discrete gradients (docs/schemes.md, \"discgrad2\").\n"
                           "Each model's discrete gradient on random states: V(q1) - V(q0) = fbar . (q1 - q0), fbar(q, q) = f(q),\n"
                           "its derivative against central differences, frame invariance (with the generic midpoint one as the\n"
                           "negative control); then runs: energy to the Newton tolerance (Kepler e = 0.9, nonlinear chain, cloth,\n"
                           "free spinning solid of each material) where midpoint2 drifts, momenta to Newton's residual, monotone\n"
                           "energy with damping, observed order 2; the solid's exact derivative for every material and element\n"
                           "(both branches of its discrete stress) and Newton's quadratic convergence with it.\n"
                           "  -long: 10^4 steps for Kepler and the chain (default 2000)\n"
                           "  -steps <n>: that many steps instead; -serial_models <true>: false skips the runs of the one-rank models\n";

#include "integ.h"
#include "fdcheck.h"
#include <stdio.h>
#include <string.h>

typedef struct {
  const char *model, *opts;
  PetscInt    dim;     /* 2: q holds 2-D points (Kepler), 3: 3-D points */
  PetscBool   frame;   /* the discrete gradient must be frame-invariant */
  PetscBool   shift;   /* translations are a symmetry (no fixed centre) */
  PetscBool   generic; /* drop the model's own: Gonzalez's generic midpoint one */
  PetscBool   free;    /* no fixed dofs, no external field: sum fbar = 0 and sum qm x fbar = 0 must hold
                          (only the torque about the origin for the 2-D Kepler) */
  PetscBool exact;     /* the model gives the exact derivative of fbar: checked against central differences */
  PetscBool near;      /* the solid: q1 so close to q0 (|dC| < 1e-3 |C| at every point) that its discrete
                          stress takes the Gauss bracket (materials.c), differenced with a smaller step */
} DGCase;

/* The net force and the net torque about the origin of fbar at the midpoint positions (what
   changes the linear and angular momentum over a step), relative to sum |fbar_i| |qm_i| */
static PetscErrorCode NetForceTorque(Vec q0, Vec q1, Vec fb, PetscInt dim, PetscReal *force, PetscReal *torque)
{
  const PetscScalar *x0, *x1, *f;
  PetscReal          loc[7] = {0, 0, 0, 0, 0, 0, 0}, g[7], xm[3] = {0, 0, 0}, fi[3] = {0, 0, 0};
  PetscInt           n, p, i;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(q0, &n));
  PetscCall(VecGetArrayRead(q0, &x0));
  PetscCall(VecGetArrayRead(q1, &x1));
  PetscCall(VecGetArrayRead(fb, &f));
  for (p = 0; p < n; p += dim) {
    PetscReal nx = 0, nf = 0;
    for (i = 0; i < dim; i++) {
      xm[i] = 0.5 * PetscRealPart(x0[p + i] + x1[p + i]);
      fi[i] = PetscRealPart(f[p + i]);
      loc[i] += fi[i];
      nx += xm[i] * xm[i];
      nf += fi[i] * fi[i];
    }
    loc[3] += xm[1] * fi[2] - xm[2] * fi[1];
    loc[4] += xm[2] * fi[0] - xm[0] * fi[2];
    loc[5] += xm[0] * fi[1] - xm[1] * fi[0];
    loc[6] += PetscSqrtReal(nx * nf) + PetscSqrtReal(nf);
  }
  PetscCall(VecRestoreArrayRead(fb, &f));
  PetscCall(VecRestoreArrayRead(q1, &x1));
  PetscCall(VecRestoreArrayRead(q0, &x0));
  PetscCall(MPIU_Allreduce(loc, g, 7, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)q0)));
  *force  = PetscSqrtReal(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) / g[6];
  *torque = PetscSqrtReal(g[3] * g[3] + g[4] * g[4] + g[5] * g[5]) / g[6];
  PetscFunctionReturn(0);
}

/* q <- R q + c per point (dim 2: rotation about z, no translation); v (may be NULL) <- R v */
static PetscErrorCode Rotate(Vec q, PetscInt dim, PetscBool shift, PetscBool vector)
{
  const PetscReal a = 0.7, b = -0.4, c = 1.1; /* Euler angles */
  const PetscReal t[3] = {0.3, -1.2, 0.8};
  PetscReal       R[9], Rz[9] = {PetscCosReal(a), -PetscSinReal(a), 0, PetscSinReal(a), PetscCosReal(a), 0, 0, 0, 1};
  PetscReal       Ry[9] = {PetscCosReal(b), 0, PetscSinReal(b), 0, 1, 0, -PetscSinReal(b), 0, PetscCosReal(b)};
  PetscReal       Rx[9] = {1, 0, 0, 0, PetscCosReal(c), -PetscSinReal(c), 0, PetscSinReal(c), PetscCosReal(c)}, T[9];
  PetscScalar    *x;
  PetscInt        n, p, i, j;

  PetscFunctionBegin;
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) T[3 * i + j] = Ry[3 * i] * Rx[j] + Ry[3 * i + 1] * Rx[3 + j] + Ry[3 * i + 2] * Rx[6 + j];
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) R[3 * i + j] = dim == 2 ? Rz[3 * i + j] : Rz[3 * i] * T[j] + Rz[3 * i + 1] * T[3 + j] + Rz[3 * i + 2] * T[6 + j];
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArray(q, &x));
  for (p = 0; p < n; p += dim) {
    PetscReal y[3] = {0, 0, 0};
    for (i = 0; i < dim; i++)
      for (j = 0; j < dim; j++) y[i] += R[3 * i + j] * PetscRealPart(x[p + j]);
    for (i = 0; i < dim; i++) x[p + i] = y[i] + (shift && !vector ? t[i] : 0);
  }
  PetscCall(VecRestoreArray(q, &x));
  PetscFunctionReturn(0);
}

/* The checks of one discrete gradient on random states; returns the frame-invariance error */
static PetscErrorCode CheckDiscreteGradient(const DGCase *c, PetscRandom rnd, PetscReal *frameerr, PetscReal *momerr)
{
  MPI_Comm    comm = PETSC_COMM_WORLD;
  MechSystem  sys;
  Vec         q0, q1, v, zero, fb, fb2, f, d, w, Jw, fp, fm;
  Mat         J;
  PetscReal   V0, V1, err, nrm, h = 1e-6, t = 0.25, scale;
  PetscScalar fd;
  PetscBool   exact, has, frame;

  PetscFunctionBegin;
  PetscCall(IntegCreateModel(comm, c->model, c->opts, &sys));
  if (c->generic) PetscCall(MechSystemSetDiscreteGradient(sys, NULL, NULL, PETSC_FALSE, NULL));
  PetscCall(MechSystemGetDiscreteGradient(sys, &has, &frame, &exact));
  TestCheck(comm, has == !c->generic && frame == (c->frame && !c->generic), "%s %s: discrete gradient reported has %d frame-invariant %d", c->model, c->opts, (int)has, (int)frame);
  TestCheck(comm, exact == (c->exact && !c->generic), "%s %s: the derivative of fbar reported %s", c->model, c->opts, exact ? "exact" : "not exact");
  if (c->near) h = 1e-8;
  PetscCall(MechSystemCreateState(sys, &q0, &v));
  PetscCall(VecNorm(q0, NORM_INFINITY, &scale));
  scale = PetscMax(scale, 1.0);
  /* the solid's tetrahedra are small against its extent: small perturbations, no inverted element */
  if (!strcmp(c->model, "solid")) scale *= 0.02;
  /* and the step's end on the branch of the exact energy difference (|dC| > 1e-3 |C|), see materials.c */
  PetscCall(VecDuplicate(q0, &q1));
  PetscCall(VecDuplicate(q0, &zero));
  PetscCall(VecDuplicate(q0, &fb));
  PetscCall(VecDuplicate(q0, &fb2));
  PetscCall(VecDuplicate(q0, &f));
  PetscCall(VecDuplicate(q0, &d));
  PetscCall(VecDuplicate(q0, &w));
  PetscCall(VecDuplicate(q0, &Jw));
  PetscCall(VecDuplicate(q0, &fp));
  PetscCall(VecDuplicate(q0, &fm));
  PetscCall(VecZeroEntries(zero));
  /* random nearby states, the fixed dofs where they are held */
  PetscCall(VecSetRandom(d, rnd));
  PetscCall(VecAXPY(q0, 0.05 * scale, d));
  PetscCall(VecSetRandom(d, rnd));
  PetscCall(VecWAXPY(q1, (c->near ? 3e-3 : 1.0) * 0.05 * scale, d, q0));
  PetscCall(VecSetRandom(v, rnd));
  PetscCall(MechSystemApplyFixed(sys, q0, v));
  PetscCall(MechSystemApplyFixed(sys, q1, v));

  /* the energy identity, without the dissipative forces (v = 0) */
  PetscCall(MechSystemComputeDiscreteGradient(sys, t, q0, q1, zero, fb));
  PetscCall(MechSystemComputeEnergy(sys, t, q0, zero, NULL, &V0));
  PetscCall(MechSystemComputeEnergy(sys, t, q1, zero, NULL, &V1));
  PetscCall(VecWAXPY(d, -1.0, q0, q1));
  PetscCall(VecDot(fb, d, &fd));
  err = PetscAbsReal(V1 - V0 - PetscRealPart(fd)) / (PetscAbsReal(V0) + PetscAbsReal(V1));
  PetscCall(PetscPrintf(comm, "%-8s %-44s %s: |V1 - V0 - fbar.dq| / (|V0| + |V1|) = %.2e (V1 - V0 = %.3e)", c->model, c->opts, c->generic ? "generic" : "model's", (double)err, (double)(V1 - V0)));
  /* near states: the Gauss bracket integrates S, exact to O(|dC|^7), while V carries the rounding of
     W itself, eps mu per point against W ~ 1e-4 mu here (docs/schemes.md §11) */
  TestCheck(comm, err <= (c->near ? 1e-11 : 1e-13), "%s: the energy identity fails: %g", c->model, (double)err);
  TestCheck(comm, PetscAbsReal(V1 - V0) > 1e3 * err * (PetscAbsReal(V0) + PetscAbsReal(V1)), "%s: the states are too close for the identity to mean anything", c->model);

  /* fbar(q, q, v) = f(q, v) */
  PetscCall(MechSystemComputeDiscreteGradient(sys, t, q0, q0, v, fb));
  PetscCall(MechSystemComputeForce(sys, t, q0, v, f));
  PetscCall(FDRelativeError(fb, f, d, &err));
  PetscCall(PetscPrintf(comm, "; fbar(q,q) vs f %.2e", (double)err));
  TestCheck(comm, err <= 1e-13, "%s: fbar(q, q, v) differs from f(q, v) by %g", c->model, (double)err);

  /* the derivative against central differences, in q1 and in v */
  if (exact) {
    PetscReal errK, errD;

    PetscCall(MechSystemCreateOperator(sys, &J));
    PetscCall(VecSetRandom(w, rnd));
    PetscCall(MechSystemApplyFixed(sys, zero, w)); /* zero on the fixed dofs */
    PetscCall(VecZeroEntries(zero));
    PetscCall(MechSystemComputeDiscreteGradientOperator(sys, t, q0, q1, v, 1.0, 0.0, 0.0, J, NULL));
    PetscCall(MatMult(J, w, Jw));
    PetscCall(VecWAXPY(d, h, w, q1));
    PetscCall(MechSystemComputeDiscreteGradient(sys, t, q0, d, v, fp));
    PetscCall(VecWAXPY(d, -h, w, q1));
    PetscCall(MechSystemComputeDiscreteGradient(sys, t, q0, d, v, fm));
    PetscCall(VecAXPY(fp, -1.0, fm));
    PetscCall(VecScale(fp, 0.5 / h));
    PetscCall(FDRelativeError(Jw, fp, d, &errK));
    PetscCall(MechSystemComputeDiscreteGradientOperator(sys, t, q0, q1, v, 0.0, 1.0, 0.0, J, NULL));
    PetscCall(MatMult(J, w, Jw));
    PetscCall(VecWAXPY(d, h, w, v));
    PetscCall(MechSystemComputeDiscreteGradient(sys, t, q0, q1, d, fp));
    PetscCall(VecWAXPY(d, -h, w, v));
    PetscCall(MechSystemComputeDiscreteGradient(sys, t, q0, q1, d, fm));
    PetscCall(VecAXPY(fp, -1.0, fm));
    PetscCall(VecScale(fp, 0.5 / h));
    PetscCall(VecNorm(fp, NORM_2, &nrm));
    PetscCall(FDRelativeError(Jw, fp, d, &errD));
    PetscCall(PetscPrintf(comm, "; dfbar/dq1 %.2e, dfbar/dv %.2e", (double)errK, (double)errD));
    TestCheck(comm, errK <= 1e-7 && errD <= 1e-7, "%s: the derivative of fbar differs from central differences: %g (q1), %g (v)", c->model, (double)errK, (double)errD);
    PetscCall(MatDestroy(&J));
  }

  /* frame invariance: fbar(R q0 + c, R q1 + c, R v) = R fbar(q0, q1, v) */
  PetscCall(MechSystemComputeDiscreteGradient(sys, t, q0, q1, v, fb));
  *momerr = 0;
  if (c->free) {
    PetscReal force = 0, torque = 0;

    PetscCall(NetForceTorque(q0, q1, fb, c->dim, &force, &torque));
    *momerr = c->dim == 2 ? torque : PetscMax(force, torque);
    PetscCall(PetscPrintf(comm, "; net force %.2e, torque %.2e", (double)force, (double)torque));
  }
  PetscCall(Rotate(fb, c->dim, c->shift, PETSC_TRUE));
  PetscCall(Rotate(q0, c->dim, c->shift, PETSC_FALSE));
  PetscCall(Rotate(q1, c->dim, c->shift, PETSC_FALSE));
  PetscCall(Rotate(v, c->dim, c->shift, PETSC_TRUE));
  PetscCall(MechSystemComputeDiscreteGradient(sys, t, q0, q1, v, fb2));
  PetscCall(FDRelativeError(fb, fb2, d, frameerr));
  PetscCall(PetscPrintf(comm, "; frame %.2e\n", (double)*frameerr));

  PetscCall(VecDestroy(&q0));
  PetscCall(VecDestroy(&q1));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&zero));
  PetscCall(VecDestroy(&fb));
  PetscCall(VecDestroy(&fb2));
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&Jw));
  PetscCall(VecDestroy(&fp));
  PetscCall(VecDestroy(&fm));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

/* Energy (and the first invariant, if any) along a run */
typedef struct {
  MechSystem  sys;
  PetscReal   E0, content, maxdrift, maxrise, Eprev, L0, maxL;
  PetscReal   P0[6], maxP, maxA; /* linear and angular momentum of a 3-D system */
  PetscBool   first, momentum;
  PetscReal   trel, Erel, maxrel; /* the drift from the energy at the first time >= trel (a load's release) */
  PetscBool   released;
  PetscInt    its;    /* Newton iterations of the run */
  PetscReal   rsum;   /* the sum over the steps of Newton's final residual norm */
  PetscReal   qmax;   /* the largest |q|_inf along the run */
  PetscInt    N;      /* unknowns */
  PetscInt    nsteps; /* with view: the TS's -ts_view written at the last step to the file view */
  const char *view;
} Watch;

/* P[0..2]: sum of M v per component; P[3..5]: sum of x x (M v) over the 3-D points */
static PetscErrorCode Momenta(MechSystem sys, Vec q, Vec v, PetscReal P[6])
{
  Mat                M;
  Vec                Mv;
  const PetscScalar *a, *x;
  PetscReal          loc[6] = {0, 0, 0, 0, 0, 0};
  PetscInt           n, i;

  PetscFunctionBegin;
  PetscCall(MechSystemGetMass(sys, &M));
  PetscCall(VecDuplicate(v, &Mv));
  PetscCall(MatMult(M, v, Mv));
  PetscCall(VecGetLocalSize(Mv, &n));
  PetscCall(VecGetArrayRead(Mv, &a));
  PetscCall(VecGetArrayRead(q, &x));
  for (i = 0; i < n; i += 3) {
    loc[0] += PetscRealPart(a[i]);
    loc[1] += PetscRealPart(a[i + 1]);
    loc[2] += PetscRealPart(a[i + 2]);
    loc[3] += PetscRealPart(x[i + 1] * a[i + 2] - x[i + 2] * a[i + 1]);
    loc[4] += PetscRealPart(x[i + 2] * a[i] - x[i] * a[i + 2]);
    loc[5] += PetscRealPart(x[i] * a[i + 1] - x[i + 1] * a[i]);
  }
  PetscCall(VecRestoreArrayRead(q, &x));
  PetscCall(VecRestoreArrayRead(Mv, &a));
  PetscCall(VecDestroy(&Mv));
  PetscCall(MPIU_Allreduce(loc, P, 6, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)v)));
  PetscFunctionReturn(0);
}

static PetscErrorCode WatchMonitor(TS ts, PetscInt step, PetscReal t, Vec X, void *ctx)
{
  Watch    *w = (Watch *)ctx;
  Vec       q, v;
  PetscReal K, V, E, L = 0, P[6];
  PetscInt  ninv;

  PetscFunctionBegin;
  (void)step;
  (void)X;
  PetscCall(TS2GetSolution(ts, &q, &v));
  PetscCall(MechSystemComputeEnergy(w->sys, t, q, v, &K, &V));
  PetscCall(MechSystemGetNumInvariants(w->sys, &ninv));
  if (ninv) PetscCall(MechSystemComputeInvariant(w->sys, 0, t, q, v, NULL, &L));
  if (w->momentum) PetscCall(Momenta(w->sys, q, v, P));
  E = K + V;
  if (w->momentum) {
    SNES      snes;
    PetscReal fnorm, qn;

    /* what Newton left of the residual moves the momenta (docs/schemes.md §11) */
    PetscCall(TSGetSNES(ts, &snes));
    PetscCall(SNESGetFunctionNorm(snes, &fnorm));
    if (step > 0) w->rsum += fnorm;
    PetscCall(VecNorm(q, NORM_INFINITY, &qn));
    PetscCall(VecGetSize(q, &w->N));
    w->qmax = PetscMax(w->qmax, qn);
  }
  if (w->view && step == w->nsteps) {
    PetscViewer viewer;

    PetscCall(PetscViewerASCIIOpen(PetscObjectComm((PetscObject)ts), w->view, &viewer));
    PetscCall(TSView(ts, viewer));
    PetscCall(PetscViewerDestroy(&viewer));
  }
  if (w->first) {
    w->E0 = w->Eprev = E;
    w->L0            = L;
    w->first         = PETSC_FALSE;
    if (w->momentum)
      for (PetscInt i = 0; i < 6; i++) w->P0[i] = P[i];
  }
  w->content  = PetscMax(w->content, K + PetscAbsReal(V));
  w->maxdrift = PetscMax(w->maxdrift, PetscAbsReal(E - w->E0));
  w->maxrise  = PetscMax(w->maxrise, E - w->Eprev);
  w->maxL     = PetscMax(w->maxL, PetscAbsReal(L - w->L0));
  if (w->momentum) {
    for (PetscInt i = 0; i < 3; i++) w->maxP = PetscMax(w->maxP, PetscAbsReal(P[i] - w->P0[i]));
    for (PetscInt i = 3; i < 6; i++) w->maxA = PetscMax(w->maxA, PetscAbsReal(P[i] - w->P0[i]));
  }
  if (w->trel > 0 && t >= w->trel - 1e-12) {
    if (!w->released) w->Erel = E;
    w->released = PETSC_TRUE;
    w->maxrel   = PetscMax(w->maxrel, PetscAbsReal(E - w->Erel));
  }
  w->Eprev = E;
  PetscFunctionReturn(0);
}

static PetscErrorCode RunWatchView(const char model[], const char mopts[], const char type[], const char opts[], PetscReal dt, PetscInt n, PetscBool momentum, PetscReal trel, const char view[], Watch *w)
{
  MechSystem sys;
  Vec        q, v;

  PetscFunctionBegin;
  PetscCall(IntegCreateModel(PETSC_COMM_WORLD, model, mopts, &sys));
  PetscCall(PetscMemzero(w, sizeof(*w)));
  w->view     = view;
  w->nsteps   = n;
  w->sys      = sys;
  w->first    = PETSC_TRUE;
  w->momentum = momentum;
  w->trel     = trel;
  PetscCall(IntegRun(sys, type, opts, dt, n, WatchMonitor, w, &q, &v, &w->its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-9s %-6s %-58s %5" PetscInt_FMT " steps of %-6g: energy drift %.2e of its content %.4g, largest rise per step %.2e, invariant drift %.2e%s", type, model, mopts, n, (double)dt, (double)(w->maxdrift / w->content), (double)w->content, (double)(w->maxrise / w->content), (double)w->maxL, momentum ? "" : "\n"));
  if (momentum) PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", linear momentum drift %.2e, angular %.2e\n", (double)w->maxP, (double)w->maxA));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunWatch(const char model[], const char mopts[], const char type[], const char opts[], PetscReal dt, PetscInt n, PetscBool momentum, PetscReal trel, Watch *w)
{
  PetscFunctionBegin;
  PetscCall(RunWatchView(model, mopts, type, opts, dt, n, momentum, trel, NULL, w));
  PetscFunctionReturn(0);
}

/* The error at t = T of Kepler (e = 0.6) against the exact solution, with n steps */
static PetscErrorCode KeplerError(PetscInt n, PetscReal T, PetscReal *err)
{
  MechSystem sys;
  Vec        q, v, qe, ve;
  PetscReal  rel;

  PetscFunctionBegin;
  PetscCall(IntegCreateModel(PETSC_COMM_WORLD, "kepler", "-kepler_e 0.6", &sys));
  PetscCall(IntegRun(sys, "discgrad2", "-snes_rtol 1e-14 -snes_atol 1e-15 -snes_stol 0", T / n, n, NULL, NULL, &q, &v, NULL));
  PetscCall(VecDuplicate(q, &qe));
  PetscCall(VecDuplicate(v, &ve));
  PetscCall(MechSystemComputeExactSolution(sys, T, qe, ve, NULL));
  PetscCall(TestRelDiff(q, v, qe, ve, &rel));
  *err = rel;
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&qe));
  PetscCall(VecDestroy(&ve));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm        comm;
  PetscRandom     rnd;
  PetscBool       islong = PETSC_FALSE, serial = PETSC_TRUE;
  PetscInt        nlong;
  Watch           w, wm;
  const char     *newton = "-snes_rtol 1e-10 -snes_atol 1e-13 -snes_stol 0";
  const PetscReal rtol   = 1e-10;
  PetscReal       frameerr, momerr, e1, e2, order;
  /* the last two rows: the solid's derivative with its clamped end (fixed dofs) and Rayleigh damping
     (dfbar/dv: alpha M, beta K0; heavy, for central differences in v above the rounding of the
     elastic forces), with gravity where the discrete gradient is not frame-invariant anyway */
  const DGCase cases[] = {
      {"pair",    "-pair_L 0.7 -pair_c 0.3 -pair_g 0",                                                                         3, PETSC_TRUE,  PETSC_TRUE,  PETSC_FALSE, PETSC_TRUE,  PETSC_TRUE,  PETSC_FALSE},
      {"kepler",  "-kepler_e 0.9",                                                                                             2, PETSC_TRUE,  PETSC_FALSE, PETSC_FALSE, PETSC_TRUE,  PETSC_TRUE,  PETSC_FALSE},
      {"chain",   "-chain_n 9 -chain_g 0 -chain_drag 0",                                                                       3, PETSC_TRUE,  PETSC_TRUE,  PETSC_FALSE, PETSC_FALSE, PETSC_TRUE,  PETSC_FALSE},
      {"cloth",   "-cloth_n 5 -cloth_g 0 -cloth_drag 0 -cloth_c 0.2",                                                          3, PETSC_TRUE,  PETSC_TRUE,  PETSC_FALSE, PETSC_FALSE, PETSC_TRUE,  PETSC_FALSE},
      {"lattice", "-lattice_n 4 -lattice_g 0 -lattice_drag 0",                                                                 3, PETSC_TRUE,  PETSC_TRUE,  PETSC_FALSE, PETSC_FALSE, PETSC_TRUE,  PETSC_FALSE},
      {"cloth",   "-cloth_n 5 -cloth_sphere -cloth_sphere_center 0.5,0.5,0.05 -cloth_sphere_radius 0.3",                       3, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
      {"pair",    "-pair_L 0.7 -pair_c 0.3 -pair_g 0",                                                                         3, PETSC_FALSE, PETSC_TRUE,  PETSC_TRUE,  PETSC_TRUE,  PETSC_FALSE, PETSC_FALSE},
      {"kepler",  "-kepler_e 0.9",                                                                                             2, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE,  PETSC_TRUE,  PETSC_FALSE, PETSC_FALSE},
      {"solid",   "-solid_beam_cells 2,1,1 -solid_fix none -solid_g 0,0,0 -solid_material neohookean",                         3, PETSC_FALSE, PETSC_TRUE,  PETSC_TRUE,  PETSC_TRUE,  PETSC_FALSE, PETSC_FALSE},
      {"solid",   "-solid_beam_cells 2,1,1 -solid_order 2 -solid_g 0,0,0 -solid_rayleigh 2e3,0 -solid_material mooney_rivlin", 3, PETSC_TRUE,  PETSC_TRUE,  PETSC_FALSE, PETSC_FALSE, PETSC_TRUE,  PETSC_FALSE},
      {"solid",   "-solid_beam_cells 2,1,1 -solid_cell hex -solid_rayleigh 2e3,1e-3 -solid_material linear",                   3, PETSC_FALSE, PETSC_TRUE,  PETSC_FALSE, PETSC_FALSE, PETSC_TRUE,  PETSC_FALSE},
  };
  /* the solid's own, with its exact derivative: every material on P1 and P2 tetrahedra and Q1 and Q2
     hexahedra, far apart states (Gonzalez's formula) and, for the energies with a bracket, near ones
     (the Gauss bracket) */
  const char *solidmats[]  = {"linear", "svk", "neohookean", "neohookean_split", "mooney_rivlin -solid_c1 2e5 -solid_c2 1e5"};
  const char *solidcells[] = {"", "-solid_order 2", "-solid_cell hex", "-solid_cell hex -solid_order 2"};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-long", &islong, NULL));
  nlong = islong ? 10000 : 2000;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &nlong, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-serial_models", &serial, NULL));
  PetscCall(FDRandomCreate(comm, 31, &rnd));

  /* 1. the discrete gradients */
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    PetscCall(CheckDiscreteGradient(&cases[i], rnd, &frameerr, &momerr));
    if (cases[i].frame) TestCheck(comm, frameerr <= 1e-11, "%s %s: the discrete gradient is not frame-invariant: %g", cases[i].model, cases[i].opts, (double)frameerr);
    if (cases[i].free && !cases[i].generic) TestCheck(comm, momerr <= 1e-14, "%s %s: the discrete gradient has a net force or torque %g: momenta not conserved", cases[i].model, cases[i].opts, (double)momerr);
    /* the generic one (its correction along M (q1 - q0)) has both: the check can fail */
    if (cases[i].free && cases[i].generic) TestCheck(comm, momerr >= 1e-6, "%s: the generic discrete gradient passed the momentum check (%g): the check is blind", cases[i].model, (double)momerr);
  }
  for (size_t e = 0; e < sizeof(solidcells) / sizeof(solidcells[0]); e++) {
    for (size_t m = 0; m < sizeof(solidmats) / sizeof(solidmats[0]); m++) {
      for (PetscInt near = 0; near < (m > 1 ? 2 : 1); near++) {
        char   opts[256];
        DGCase c = {"solid", opts, 3, m > 0 ? PETSC_TRUE : PETSC_FALSE, PETSC_TRUE, PETSC_FALSE, m > 0 ? PETSC_TRUE : PETSC_FALSE, PETSC_TRUE, near ? PETSC_TRUE : PETSC_FALSE};

        PetscCall(PetscSNPrintf(opts, sizeof(opts), "-solid_beam_cells 2,1,1 -solid_fix none -solid_g 0,0,0 %s -solid_material %s", solidcells[e], solidmats[m]));
        PetscCall(CheckDiscreteGradient(&c, rnd, &frameerr, &momerr));
        if (c.frame) TestCheck(comm, frameerr <= 1e-11, "%s %s: the discrete gradient is not frame-invariant: %g", c.model, c.opts, (double)frameerr);
        if (c.free) TestCheck(comm, momerr <= 1e-14, "%s %s: the discrete gradient has a net force or torque %g: momenta not conserved", c.model, c.opts, (double)momerr);
      }
    }
  }

  /* 2. energy to the Newton tolerance where midpoint2 drifts; angular momentum of Kepler */
  if (serial) {
    PetscCall(RunWatch("kepler", "-kepler_e 0.9", "discgrad2", newton, 0.005, nlong, PETSC_FALSE, 0, &w));
    PetscCall(RunWatch("kepler", "-kepler_e 0.9", "midpoint2", newton, 0.005, nlong, PETSC_FALSE, 0, &wm));
    TestCheck(comm, w.maxdrift / w.content <= 10 * rtol, "discgrad2 on Kepler: energy drift %g above 10 -snes_rtol", (double)(w.maxdrift / w.content));
    TestCheck(comm, w.maxL <= 1e-12 * PetscAbsReal(w.L0) + 1e-14, "discgrad2 on Kepler: angular momentum drift %g", (double)w.maxL);
    TestCheck(comm, wm.maxdrift / wm.content >= 1e3 * w.maxdrift / w.content, "midpoint2 on Kepler drifts only %g: no contrast with discgrad2", (double)(wm.maxdrift / wm.content));
  }
  PetscCall(RunWatch("chain", "-chain_n 20 -chain_c 0 -chain_drag 0", "discgrad2", newton, 1e-3, nlong, PETSC_FALSE, 0, &w));
  PetscCall(RunWatch("chain", "-chain_n 20 -chain_c 0 -chain_drag 0", "midpoint2", newton, 1e-3, nlong, PETSC_FALSE, 0, &wm));
  TestCheck(comm, w.maxdrift / w.content <= 10 * rtol, "discgrad2 on the chain: energy drift %g", (double)(w.maxdrift / w.content));
  TestCheck(comm, wm.maxdrift / wm.content >= 1e3 * w.maxdrift / w.content, "midpoint2 on the chain drifts only %g", (double)(wm.maxdrift / wm.content));
  PetscCall(RunWatch("cloth", "-cloth_n 10 -cloth_c 0 -cloth_drag 0", "discgrad2", newton, 1e-2, 200, PETSC_FALSE, 0, &w));
  TestCheck(comm, w.maxdrift / w.content <= 10 * rtol, "discgrad2 on the cloth: energy drift %g", (double)(w.maxdrift / w.content));
  /* linear and angular momentum of a free pair with a rest length (frame-invariant discrete gradient) */
  if (serial) PetscCall(RunWatch("pair", "-pair_L 0.5 -pair_g 0 -pair_v1 3", "discgrad2", newton, 0.02, 500, PETSC_TRUE, 0, &w));
  if (serial) TestCheck(comm, w.maxP <= 1e-12 && w.maxA <= 1e-12 && w.maxdrift / w.content <= 10 * rtol, "discgrad2 on the pair: linear momentum drift %g, angular %g, energy %g", (double)w.maxP, (double)w.maxA, (double)(w.maxdrift / w.content));
  /* damping: the energy never rises */
  PetscCall(RunWatch("chain", "-chain_n 20 -chain_c 0.5 -chain_drag 0.05", "discgrad2", newton, 1e-3, PetscMin(nlong, 1000), PETSC_FALSE, 0, &w));
  TestCheck(comm, w.maxrise <= 10 * rtol * w.content, "discgrad2 with damping: the energy rose by %g of its content in a step", (double)(w.maxrise / w.content));
  /* the free spinning solid, each material (Gonzalez's generic discrete gradient) */
  {
    const char *mats[] = {"linear", "svk", "neohookean", "neohookean_split", "mooney_rivlin"};
    char        mopts[256];

    for (size_t i = 0; i < sizeof(mats) / sizeof(mats[0]); i++) {
      PetscCall(PetscSNPrintf(mopts, sizeof(mopts), "-solid_fix none -solid_g 0,0,0 -solid_spin 0,0,20 -solid_beam_cells 4,1,1 -solid_material %s", mats[i]));
      PetscCall(RunWatch("solid", mopts, "discgrad2", "-snes_rtol 1e-10 -snes_atol 1e-11 -snes_stol 0", 1e-3, 200, PETSC_TRUE, 0, &w));
      TestCheck(comm, w.maxdrift / w.content <= 10 * rtol, "discgrad2 on the spinning %s solid: energy drift %g", mats[i], (double)(w.maxdrift / w.content));
      /* momenta move with Newton's residual R only: the change of sum M v is sum R, that of
         sum q x M v is sum qm x R, so the drifts are bounded by sqrt(N) (1 + |q|) times the sum of
         the final residual norms of the steps (to round-off); a frame-variant fbar (the generic
         one: net force 1e-4 of |f|) drifts by orders more */
      if (i > 0) {
        const PetscReal L0 = PetscSqrtReal(w.P0[3] * w.P0[3] + w.P0[4] * w.P0[4] + w.P0[5] * w.P0[5]);
        const PetscReal rb = PetscSqrtReal((PetscReal)w.N) * w.rsum;

        PetscCall(PetscPrintf(comm, "  %s: Newton's residuals sum to %.2e: bounds %.2e (linear), %.2e (angular)\n", mats[i], (double)w.rsum, (double)rb, (double)(PetscSqrtReal(3.0) * w.qmax * rb)));
        TestCheck(comm, w.maxA <= 1e-12 * L0 + PetscSqrtReal(3.0) * w.qmax * rb && w.maxP <= 1e-11 * L0 + rb, "discgrad2 on the spinning %s solid: angular momentum drift %g of %g, linear %g, beyond Newton's residuals (sum %g)", mats[i], (double)w.maxA, (double)L0, (double)w.maxP, (double)w.rsum);
      }
    }
  }

  /* with Newton to round-off (no absolute tolerance: the round-off floor stops it, where it
     stagnates within TSMECH_ROUNDOFF_STUCK eps times the residual scale) the momenta of the
     frame-invariant discrete gradients hold to 1e-12 of the angular momentum */
  {
    const char *mats[] = {"svk", "neohookean", "mooney_rivlin -solid_c1 2e5 -solid_c2 1e5"};
    char        mopts[256];

    for (size_t i = 0; i < sizeof(mats) / sizeof(mats[0]); i++) {
      PetscReal L0;

      PetscCall(PetscSNPrintf(mopts, sizeof(mopts), "-solid_fix none -solid_g 0,0,0 -solid_spin 0,0,20 -solid_beam_cells 4,1,1 -solid_material %s", mats[i]));
      PetscCall(RunWatch("solid", mopts, "discgrad2", "-snes_rtol 1e-14 -snes_atol 1e-50 -snes_stol 0 -ksp_rtol 1e-14", 1e-3, 200, PETSC_TRUE, 0, &w));
      L0 = PetscSqrtReal(w.P0[3] * w.P0[3] + w.P0[4] * w.P0[4] + w.P0[5] * w.P0[5]);
      PetscCall(PetscPrintf(comm, "  %s, Newton to round-off: angular momentum drift %.2e of %.3g, linear %.2e\n", mats[i], (double)w.maxA, (double)L0, (double)w.maxP));
      TestCheck(comm, w.maxA <= 1e-12 * L0 && w.maxP <= 1e-12 * L0, "discgrad2 on the spinning %s solid, Newton to round-off: angular momentum drift %g of %g, linear %g", mats[i], (double)w.maxA, (double)L0, (double)w.maxP);
    }
  }

  /* Newton with the solid's exact derivative of fbar converges quadratically: 2 iterations a step
     with accurate linear solves, fewer than the differenced Jacobian (3) and the midpoint tangent
     (4, linear convergence: what "assembled" was before the solid had its derivative) */
  {
    const char *orders[] = {"", "-solid_order 2"};
    char        mopts[256];
    PetscInt    its[2];

    for (size_t o = 0; o < 2; o++) {
      const PetscInt n = 50;

      PetscCall(PetscSNPrintf(mopts, sizeof(mopts), "-solid_fix none -solid_g 0,0,0 -solid_spin 0,0,20 -solid_beam_cells 4,1,1 -solid_material neohookean %s", orders[o]));
      for (PetscInt j = 0; j < 2; j++) {
        PetscCall(RunWatch("solid", mopts, "discgrad2", j ? "-snes_rtol 1e-10 -snes_stol 0 -ksp_rtol 1e-12 -ts_discgrad2_jacobian mf" : "-snes_rtol 1e-10 -snes_stol 0 -ksp_rtol 1e-12 -ts_discgrad2_jacobian assembled", 1e-3, n, PETSC_FALSE, 0, &w));
        its[j] = w.its;
        TestCheck(comm, w.maxdrift / w.content <= 10 * rtol, "discgrad2 -ts_discgrad2_jacobian %s on the spinning solid %s: energy drift %g", j ? "mf" : "assembled", orders[o], (double)(w.maxdrift / w.content));
      }
      PetscCall(PetscPrintf(comm, "discgrad2 on the spinning neo-Hookean solid %s, %" PetscInt_FMT " steps: %" PetscInt_FMT " Newton iterations with the exact Jacobian, %" PetscInt_FMT " with the differenced one\n", orders[o], n, its[0], its[1]));
      TestCheck(comm, 2 * its[0] < 5 * n && its[0] < its[1], "discgrad2 -ts_discgrad2_jacobian assembled on the spinning solid %s: %" PetscInt_FMT " Newton iterations in %" PetscInt_FMT " steps (mf: %" PetscInt_FMT "): not quadratic", orders[o], its[0], n, its[1]);
    }
  }

  /* the solid released from a large hat-shaped traction pair (zero net force): constant energy
     after the release at t = 0.01, at a step where midpoint2's grows without bound (docs/schemes.md) */
  PetscCall(RunWatch("solid",
                     "-solid_fix none -solid_g 0,0,0 -solid_material svk -solid_beam_cells 8,1,1 -solid_load a,b -solid_load_a_where x=0 -solid_load_a_traction -1e6,0,0 -solid_load_a_time hat:0.005,0.01 -solid_load_b_where x=1 -solid_load_b_traction 1e6,0,0 -solid_load_b_time hat:0.005,0.01",
                     "discgrad2", "-snes_rtol 1e-10 -snes_atol 1e-10 -snes_stol 0", 4e-3, PetscMin(nlong, 100), PETSC_FALSE, 0.01, &w));
  PetscCall(PetscPrintf(comm, "released solid: energy after the release %.6g, drift %.2e of it\n", (double)w.Erel, (double)(w.maxrel / w.Erel)));
  TestCheck(comm, w.released && w.Erel > 100 && w.maxrel <= 1e-8 * w.Erel, "discgrad2, released solid: energy %g drifts by %g after the release", (double)w.Erel, (double)w.maxrel);

  /* 4. through the shared Newton object (newton2.c, docs/solvers.md §7): the differenced Jacobian,
     preconditioned by the midpoint's one-stage operator M + tau/2 D + tau^2/4 K assembled only
     when the linear iterations grow, conserves the energy as the exact Jacobian does */
  {
    PetscInt rebuilds = -1;

    PetscCall(RunWatchView("cloth", "-cloth_n 10 -cloth_c 0 -cloth_drag 0", "discgrad2", "-snes_rtol 1e-10 -snes_atol 1e-13 -snes_stol 0 -ts_discgrad2_matrix_free", 1e-2, 200, PETSC_FALSE, 0, "test_discgrad_view.txt", &w));
    PetscCall(IntegNumberAfter(comm, "test_discgrad_view.txt", "preconditioning matrix assembled ", &rebuilds));
    PetscCall(PetscPrintf(comm, "discgrad2 -ts_discgrad2_matrix_free on the cloth: %" PetscInt_FMT " Newton iterations, the preconditioning matrix assembled %" PetscInt_FMT " times\n", w.its, rebuilds));
    TestCheck(comm, w.maxdrift / w.content <= 10 * rtol, "discgrad2 -ts_discgrad2_matrix_free on the cloth: energy drift %g", (double)(w.maxdrift / w.content));
    TestCheck(comm, rebuilds >= 1 && rebuilds < w.its / 2, "discgrad2 -ts_discgrad2_matrix_free: the preconditioning matrix assembled %" PetscInt_FMT " times in %" PetscInt_FMT " Newton iterations: not lagged by the Newton object", rebuilds, w.its);
  }

  /* 3. order 2 on Kepler */
  if (serial) {
    PetscCall(KeplerError(200, 2.0, &e1));
    PetscCall(KeplerError(400, 2.0, &e2));
    order = PetscLog2Real(e1 / e2);
    PetscCall(PetscPrintf(comm, "discgrad2 on Kepler e = 0.6 to t = 2: error %.3e (200 steps), %.3e (400 steps): observed order %.3f\n", (double)e1, (double)e2, (double)order));
    TestCheck(comm, order > 1.9 && order < 2.1, "discgrad2: observed order %g, not 2", (double)order);
  }

  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(comm, "all discgrad2 checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
