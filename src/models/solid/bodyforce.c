/*
  The solid's body force b(t, X) per unit reference volume (MechSolidSetBodyForce()) and the error
  of a displacement against an exact field (MechSolidComputeError()), docs/solid.md §14.

  Both integrate over the cells of the element layout (solidimpl.h) with a rule of their own,
  finer than the stiffness's: degree 2 order + 2 on tetrahedra (PetscDTSimplexQuadrature()),
  order + 2 Gauss points per direction on hexahedra. The stiffness's rule (one point on P1
  tetrahedra) integrates N_a b exactly only for constant b. A rule exact to degree 2 order - 2
  keeps the H1 rate (Ciarlet 1978, Theorem 4.1.6; docs/solid.md §10); this one, exact for the
  shape functions times fields of degree order + 2 on affine cells, keeps the load's quadrature
  error below the discretization's in both norms, and the error norms measure the solution, not
  the rule. The geometry is the layout's isoparametric one, X(xi) = sum_a X_a N_a(xi), curved
  cells of a mesh file included.

  With the force on the left-hand side (M q'' + f = 0) the body force enters as
  f_a -= int N_a b(t, X) dV0: the vector fb(t) = -int N_a b dV0 is assembled when the force is first
  asked for at a time t and kept until t changes. It does not depend on q: its tangent is zero, its
  potential -int b . u dV0 = fb(t) . (q - X) (exact in the discrete gradient, discgrad.c).
*/
#include "solidimpl.h"

struct _n_SolidBody {
  MechSolidBodyForceFn fn;
  void                *ctx;
  PetscQuadrature      quad;
  PetscTabulation      T;     /* s->fe's values and reference derivatives at quad's points */
  Vec                  fb;    /* global: -int N_a b(tb, X) dV0 */
  Vec                  Xg;    /* global: the reference positions */
  PetscReal            tb;    /* the time of fb */
  PetscReal            fbX;   /* fb . Xg */
  PetscBool            valid; /* fb holds b at tb */
};

/* The rule of this file and its tabulation of s->fe (value and first derivatives) */
static PetscErrorCode SolidBodyRule(const Solid *s, PetscQuadrature *quad, PetscTabulation *T)
{
  const PetscReal *qp;
  PetscInt         nq;

  PetscFunctionBegin;
  PetscCall(SolidCellQuadrature(s->cell, 1, quad));
  PetscCall(PetscQuadratureGetData(*quad, NULL, NULL, &nq, &qp, NULL));
  PetscCall(PetscFECreateTabulation(s->fe, 1, nq, qp, 1, T));
  PetscFunctionReturn(0);
}

/*
  At point k of the rule on cell c, from the reference positions X (local array of s->Xref): the
  point's reference position Xq, its weight times det dX/dxi (w), and (G not NULL) the gradients
  dN_a/dX of the layout's nodes (nen x 3, node-major)
*/
static void SolidBodyPoint(const Solid *s, PetscTabulation T, const PetscReal qw[], const PetscScalar X[], PetscInt c, PetscInt k, PetscReal Xq[3], PetscReal *w, PetscReal G[])
{
  const PetscInt   nen = s->nen, *o = &s->loff[nen * c];
  const PetscReal *B = &T->T[0][k * nen], *D = &T->T[1][k * nen * 3];
  PetscReal        Jm[9] = {0}, det;

  for (PetscInt i = 0; i < 3; i++) Xq[i] = 0;
  for (PetscInt a = 0; a < nen; a++)
    for (PetscInt i = 0; i < 3; i++) {
      Xq[i] += PetscRealPart(X[o[a] + i]) * B[s->perm[a]];
      for (PetscInt j = 0; j < 3; j++) Jm[3 * i + j] += PetscRealPart(X[o[a] + i]) * D[3 * s->perm[a] + j];
    }
  det = SolidDet3(Jm);
  *w  = qw[k] * det;
  if (G) {
    PetscReal Ji[9];

    /* dN/dX_j = sum_l dN/dxi_l (dX/dxi)^-1_lj */
    SolidInv3(Jm, det, Ji);
    for (PetscInt a = 0; a < nen; a++)
      for (PetscInt j = 0; j < 3; j++) G[3 * a + j] = D[3 * s->perm[a]] * Ji[j] + D[3 * s->perm[a] + 1] * Ji[3 + j] + D[3 * s->perm[a] + 2] * Ji[6 + j];
  }
}

/*
  A user callback's failure made collective before the caller's next collective operation (the
  other ranks would otherwise wait in it): ierr and msg are this rank's outcome; on return code
  and msg are those of the lowest failing rank on every rank (code 0: none failed), for the
  caller to raise after its clean-up
*/
static PetscErrorCode SolidBodyAgree(MPI_Comm comm, PetscErrorCode ierr, char msg[], size_t len, PetscErrorCode *code)
{
  PetscMPIInt rank, size, mine, first;
  int         c = (int)ierr;

  PetscFunctionBegin;
  *code = 0;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  mine = ierr ? rank : size;
  PetscCall(MPIU_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)len, MPI_CHAR, first, comm));
  PetscCallMPI(MPI_Bcast(&c, 1, MPI_INT, first, comm));
  msg[len - 1] = 0;
  *code        = (PetscErrorCode)c;
  PetscFunctionReturn(0);
}

/* The message of the error ierr (its specific text if any) */
static void SolidBodyMessage(PetscErrorCode ierr, char msg[], size_t len)
{
  const char *text     = NULL;
  char       *specific = NULL;

  (void)PetscErrorMessage(ierr, &text, &specific);
  (void)PetscStrncpy(msg, specific && specific[0] ? specific : (text ? text : "unknown error"), len);
}

/* y (local array) -= int N_a b(t, X) dV0 over this rank's cells, no communication; uerr, msg:
   the failure of the user's function (or a value not finite), 0 if none */
static PetscErrorCode SolidBodyIntegrate(const Solid *s, SolidBody body, PetscReal t, PetscScalar y[], PetscErrorCode *uerr, char msg[], size_t len)
{
  const PetscScalar *X;
  const PetscReal   *qw;
  PetscInt           nq;
  PetscErrorCode     ierr = 0;

  PetscFunctionBegin;
  PetscCall(PetscQuadratureGetData(body->quad, NULL, NULL, &nq, NULL, &qw));
  PetscCall(VecGetArrayRead(s->Xref, &X));
  for (PetscInt c = 0; c < s->ncells && !ierr; c++) {
    const PetscInt *o = &s->loff[s->nen * c];

    for (PetscInt k = 0; k < nq && !ierr; k++) {
      const PetscReal *N = &body->T->T[0][k * s->nen];
      PetscReal        Xq[3], w, b[3] = {0, 0, 0};

      SolidBodyPoint(s, body->T, qw, X, c, k, Xq, &w, NULL);
      /* the user's function: its error is reported by every rank (SolidBodyAgree()) */
      ierr = (*body->fn)(t, Xq, b, body->ctx);
      if (ierr) SolidBodyMessage(ierr, msg, len);
      else if (!PetscIsInfOrNanReal(b[0] + b[1] + b[2])) {
        for (PetscInt a = 0; a < s->nen; a++)
          for (PetscInt i = 0; i < 3; i++) y[o[a] + i] -= w * N[s->perm[a]] * b[i];
      } else {
        ierr = PETSC_ERR_FP;
        (void)PetscSNPrintf(msg, len, "MechSolidSetBodyForce(): the body force is not finite at t = %g, X = (%g, %g, %g)", (double)t, (double)Xq[0], (double)Xq[1], (double)Xq[2]);
      }
    }
  }
  PetscCall(VecRestoreArrayRead(s->Xref, &X));
  *uerr = ierr;
  PetscFunctionReturn(0);
}

/* Assembles fb at time t unless it holds that time already (t is the same on every rank) */
static PetscErrorCode SolidBodyUpdate(Solid *s, PetscReal t)
{
  SolidBody      body = s->body;
  Vec            fl;
  PetscScalar   *y;
  PetscErrorCode ierr      = 0, code;
  char           msg[1024] = "";

  PetscFunctionBegin;
  if (body->valid && body->tb == t) PetscFunctionReturn(0);
  PetscCall(DMGetLocalVector(s->dm, &fl));
  PetscCall(VecZeroEntries(fl));
  PetscCall(VecGetArray(fl, &y));
  PetscCall(SolidBodyIntegrate(s, body, t, y, &ierr, msg, sizeof(msg)));
  PetscCall(VecRestoreArray(fl, &y));
  PetscCall(SolidBodyAgree(PetscObjectComm((PetscObject)s->dm), ierr, msg, sizeof(msg), &code));
  if (code) PetscCall(DMRestoreLocalVector(s->dm, &fl));
  PetscCheck(!code, PETSC_COMM_SELF, code, "%s", msg);
  PetscCall(VecZeroEntries(body->fb));
  PetscCall(DMLocalToGlobalBegin(s->dm, fl, ADD_VALUES, body->fb));
  PetscCall(DMLocalToGlobalEnd(s->dm, fl, ADD_VALUES, body->fb));
  PetscCall(DMRestoreLocalVector(s->dm, &fl));
  PetscCall(VecDot(body->fb, body->Xg, &body->fbX));
  body->tb    = t;
  body->valid = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* f (global) += fb(t): the body force moved to the left-hand side. Collective. */
PetscErrorCode SolidBodyAddForce(Solid *s, PetscReal t, Vec f)
{
  PetscFunctionBegin;
  if (!s->body) PetscFunctionReturn(0);
  PetscCall(SolidBodyUpdate(s, t));
  PetscCall(VecAXPY(f, 1.0, s->body->fb));
  PetscFunctionReturn(0);
}

/* e = the body force's potential at (t, q): fb(t) . (q - X) = -int b . u dV0, on every rank. Collective. */
PetscErrorCode SolidBodyPotential(Solid *s, PetscReal t, Vec q, PetscReal *e)
{
  PetscScalar d;

  PetscFunctionBegin;
  *e = 0;
  if (!s->body) PetscFunctionReturn(0);
  PetscCall(SolidBodyUpdate(s, t));
  PetscCall(VecDot(s->body->fb, q, &d));
  *e = PetscRealPart(d) - s->body->fbX;
  PetscFunctionReturn(0);
}

/* Frees the body force (SolidDestroy()) */
PetscErrorCode SolidBodyDestroy(SolidBody *body)
{
  PetscFunctionBegin;
  if (!*body) PetscFunctionReturn(0);
  PetscCall(PetscTabulationDestroy(&(*body)->T));
  PetscCall(PetscQuadratureDestroy(&(*body)->quad));
  PetscCall(VecDestroy(&(*body)->fb));
  PetscCall(VecDestroy(&(*body)->Xg));
  PetscCall(PetscFree(*body));
  PetscFunctionReturn(0);
}

/* The solid of sys, or an error naming the caller */
static PetscErrorCode SolidFromSystem(MechSystem sys, const char caller[], Solid **s)
{
  const char *model;
  PetscBool   solid = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MechSystemGetModelName(sys, &model));
  if (model) PetscCall(PetscStrcmp(model, "solid", &solid));
  PetscCheck(solid, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_WRONG, "%s() needs a system of MechCreateSolid(), not of model %s", caller, model ? model : "(unnamed)");
  PetscCall(MechSystemGetApplicationContext(sys, s));
  PetscFunctionReturn(0);
}

/*@C
  MechSolidSetBodyForce - Gives the solid a body force b(t, X) per unit reference volume (a
  centrifugal load, a manufactured solution's source), which may vary in space and time.

  Collective

  Input Parameters:
+ sys - a system of `MechCreateSolid()`
. fn  - b(t, X, b, ctx): fills b[0..2] at time t and reference point X[0..2]; it is called at the
        quadrature points of this rank's cells, the same on every rank for the same (t, X)
- ctx - its context (may be NULL), kept, not copied

  Level: intermediate

  Notes:
  The nodal forces are f_a -= int N_a b(t, X) dV0 over the reference body, with the quadrature of
  src/models/solid/bodyforce.c (degree 2 order + 2 on tetrahedra, order + 2 Gauss points per
  direction on hexahedra), on every cell type and order. They do not depend on the state: the
  tangent is unchanged (a linear material stays linear), the potential energy gains
  -int b(t) . u dV0 (u = q - X) and the discrete gradient (discgrad2) adds them exactly. fn is
  evaluated when the force is first asked for at a time t and its integral kept until t changes:
  call MechSolidSetBodyForce() again after changing what ctx holds.
  A b that varies in time makes the potential depend on t, as a load's time function does
  (docs/solid.md §5): the energy then changes by the work of that variation.

  An error of fn, or a value that is not finite, on any rank ends the force evaluation on every
  rank with the message of the lowest rank that failed. A second call replaces the function; fn
  NULL is refused (give a function returning zero). The model parameter body_force (1) is
  recorded at the first call, so that a checkpoint of a run with a body force is not continued
  without one: make that call before creating the run's output or checkpoint, which record the
  parameters. The function itself is not recorded: set it, the same, before a restart.

.seealso: `MechCreateSolid()`, `MechSolidComputeError()`, `MechSystemComputeForce()`
@*/
PetscErrorCode MechSolidSetBodyForce(MechSystem sys, MechSolidBodyForceFn fn, void *ctx)
{
  Solid *s;

  PetscFunctionBegin;
  PetscCall(SolidFromSystem(sys, "MechSolidSetBodyForce", &s));
  PetscCheck(fn, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_NULL, "MechSolidSetBodyForce(): the function is NULL; give one returning zero to remove the body force");
  if (!s->body) {
    SolidBody body;

    /* first, so that a system whose parameter table is full is refused unchanged */
    PetscCall(MechSystemAddParameter(sys, "body_force", 1.0));
    PetscCall(PetscNew(&body));
    PetscCall(SolidBodyRule(s, &body->quad, &body->T));
    PetscCall(VecDuplicate(s->work, &body->fb));
    PetscCall(VecDuplicate(s->work, &body->Xg));
    PetscCall(DMLocalToGlobalBegin(s->dm, s->Xref, INSERT_VALUES, body->Xg));
    PetscCall(DMLocalToGlobalEnd(s->dm, s->Xref, INSERT_VALUES, body->Xg));
    s->body = body;
  }
  s->body->fn    = fn;
  s->body->ctx   = ctx;
  s->body->valid = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@C
  MechSolidComputeError - The L2 norm and the H1 seminorm of the error of the displacement
  u_h = q - X of a state against an exact displacement field, over the reference body.

  Collective

  Input Parameters:
+ sys   - a system of `MechCreateSolid()`
. t     - the time passed to exact
. q     - the positions (a state vector of the system, as from `MechSystemCreateState()`)
. exact - exact(t, X, u, gradu, ctx): the exact displacement u[0..2] and its gradient
          gradu[3 i + j] = du_i/dX_j at the reference point X
- ctx   - its context (may be NULL)

  Output Parameters:
+ l2 - (int |u_h - u|^2 dV0)^1/2 (or NULL)
- h1 - (int |grad u_h - grad u|^2 dV0)^1/2, the Frobenius norm (or NULL)

  Level: intermediate

  Notes:
  The integrals use the rule of `MechSolidSetBodyForce()` on the element layout's isoparametric
  cells (curved ones included), with the shape functions of the layout, so that the error of P2
  tetrahedra and Q2 hexahedra is measured with their own interpolation. PETSc's
  DMComputeL2Diff() needs a PetscFE field, which the solid's DM (its section the layout's own)
  does not carry: on a clone given PETSc's Lagrange element it returns the same L2 error on
  straight cells (tests/solid/test_mms.c), but integrates on the straight cells of the DM's
  vertex coordinates where a mesh file's are curved, and the H1 seminorm would take three more
  passes. An error of exact on any rank ends the call on every rank with its message.

.seealso: `MechSolidSetBodyForce()`, `MechCreateSolid()`
@*/
PetscErrorCode MechSolidComputeError(MechSystem sys, PetscReal t, Vec q, MechSolidExactFn exact, void *ctx, PetscReal *l2, PetscReal *h1)
{
  Solid             *s;
  PetscQuadrature    quad;
  PetscTabulation    T;
  const PetscReal   *qw;
  PetscInt           nq;
  Vec                ql;
  const PetscScalar *x, *X;
  PetscReal          sum[2]    = {0, 0}, G[3 * SOLID_MAX_NEN];
  PetscErrorCode     ierr      = 0, code;
  char               msg[1024] = "";

  PetscFunctionBegin;
  PetscCall(SolidFromSystem(sys, "MechSolidComputeError", &s));
  PetscCheck(exact, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_NULL, "MechSolidComputeError(): the exact function is NULL");
  PetscCall(SolidBodyRule(s, &quad, &T));
  PetscCall(PetscQuadratureGetData(quad, NULL, NULL, &nq, NULL, &qw));
  PetscCall(SolidGetLocal(s, q, &ql, &x));
  PetscCall(VecGetArrayRead(s->Xref, &X));
  for (PetscInt c = 0; c < s->ncells && !ierr; c++) {
    const PetscInt *o = &s->loff[s->nen * c];

    for (PetscInt k = 0; k < nq && !ierr; k++) {
      const PetscReal *N = &T->T[0][k * s->nen];
      PetscReal        Xq[3], w, uh[3] = {0, 0, 0}, Gh[9] = {0}, u[3] = {0, 0, 0}, gu[9] = {0};

      SolidBodyPoint(s, T, qw, X, c, k, Xq, &w, G);
      for (PetscInt a = 0; a < s->nen; a++)
        for (PetscInt i = 0; i < 3; i++) {
          const PetscReal d = PetscRealPart(x[o[a] + i] - X[o[a] + i]);

          uh[i] += N[s->perm[a]] * d;
          for (PetscInt j = 0; j < 3; j++) Gh[3 * i + j] += d * G[3 * a + j];
        }
      ierr = (*exact)(t, Xq, u, gu, ctx);
      if (ierr) {
        SolidBodyMessage(ierr, msg, sizeof(msg));
        break;
      }
      for (PetscInt i = 0; i < 3; i++) sum[0] += w * PetscSqr(uh[i] - u[i]);
      for (PetscInt i = 0; i < 9; i++) sum[1] += w * PetscSqr(Gh[i] - gu[i]);
    }
  }
  PetscCall(VecRestoreArrayRead(s->Xref, &X));
  PetscCall(SolidRestoreLocal(s, &ql, &x));
  PetscCall(PetscTabulationDestroy(&T));
  PetscCall(PetscQuadratureDestroy(&quad));
  PetscCall(SolidBodyAgree(PetscObjectComm((PetscObject)sys), ierr, msg, sizeof(msg), &code));
  PetscCheck(!code, PETSC_COMM_SELF, code, "%s", msg);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, sum, 2, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)sys)));
  if (l2) *l2 = PetscSqrtReal(sum[0]);
  if (h1) *h1 = PetscSqrtReal(sum[1]);
  PetscFunctionReturn(0);
}
