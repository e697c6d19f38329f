/*
  Probes of the solid: named points of the reference configuration whose displacement, velocity
  and stress the output records at every step (MechSystemAddRecords(): /monitor/probe/NAME/u, v,
  stress, von_mises).

    -probe tip,mid                 the probes' names
    -probe_tip_point 1,0.05,0.05   a point, or
    -probe_mid_group mid           a node of the mesh: a selection of exactly one (select.c:
                                   _label/_value, _group or _where)

  Each probe is located once, in the cell that contains it (of the smallest rank-independent number
  when several do: a point on a face or a node), on the rank that owns that cell: its reference
  coordinates by Newton's method on the isoparametric map X(xi) = sum_a X_a N_a(xi), and the cell's
  shape functions there (PETSc's Lagrange element of the layout: P1, P2, Q1, Q2). At every step the
  owner interpolates u = sum_a N_a (q_a - X_a) and v = sum_a N_a v_a, and takes the cell's stress and
  von Mises stress (the cell averages of /fields/stress); a probe at a node (within 1e-12 of the
  cell's size) takes that node's values as they are, so it equals the node's /fields/q bitwise. A
  point outside the body is refused with its distance to the nearest cell.
*/
/* strtok_r() is POSIX */
#define _POSIX_C_SOURCE 200809L
#include "solidimpl.h"
#include <ctype.h>

/*MC
  SolidProbes - probes of the solid (src/models/solid/probes.c)

  Options Database Keys:
+ -probe <names>                 - the probes, comma-separated (letters, digits and _)
- -probe_<name>_point <x,y,z>    - a point of the reference configuration; or a node of the mesh, given by
                                   the selection -probe_<name>_label, _value, _group or _where (`SolidSelection`),
                                   which must select exactly one

  Level: intermediate

  Notes:
  Records at every step /monitor/probe/NAME/u (the displacement), v (the velocity), stress (the
  containing cell's Cauchy stress, xx, yy, zz, yz, xz, xy) and von_mises, interpolated with the
  element's own shape functions. A point outside the body is refused with its distance to the
  nearest cell.

.seealso: `MechCreateSolid()`, `SolidSelection`
M*/

#define SOLID_PROBE_NVAL 13 /* u (3), v (3), stress (6), von Mises */

struct _n_SolidProbe {
  char      name[64];
  PetscReal X[3];
  PetscInt  cell;             /* on the owner: the local cell, else -1 */
  PetscInt  node;             /* the cell's node the probe sits on (values as they are), -1: interpolated */
  PetscReal N[SOLID_MAX_NEN]; /* the shape functions there, in the layout's node order */
};

/* X(xi) and dX/dxi of cell c at the reference point xi, with the shape functions N (layout order) */
static PetscErrorCode CellMap(Solid *s, PetscInt c, const PetscScalar X[], const PetscReal xi[3], PetscReal x[3], PetscReal J[9], PetscReal N[])
{
  PetscTabulation T;

  PetscFunctionBegin;
  PetscCall(PetscFECreateTabulation(s->fe, 1, 1, xi, 1, &T));
  for (PetscInt i = 0; i < 3; i++) x[i] = 0;
  for (PetscInt i = 0; i < 9; i++) J[i] = 0;
  for (PetscInt a = 0; a < s->nen; a++) {
    const PetscInt   o = s->loff[s->nen * c + a];
    const PetscReal *D = &T->T[1][3 * s->perm[a]];

    N[a] = T->T[0][s->perm[a]];
    for (PetscInt i = 0; i < 3; i++) {
      x[i] += N[a] * PetscRealPart(X[o + i]);
      for (PetscInt j = 0; j < 3; j++) J[3 * i + j] += PetscRealPart(X[o + i]) * D[j];
    }
  }
  PetscCall(PetscTabulationDestroy(&T));
  PetscFunctionReturn(0);
}

/* The Euclidean projection of xi onto the reference cell (PETSc's: [-1, 1]^3, or the simplex
   xi_i >= -1, sum xi_i <= -1: with y = xi + 1, y >= 0 and sum y <= 2, by sorting (Held et al. 1974)) */
static void ProjectReference(DMPolytopeType ct, PetscReal xi[3])
{
  if (ct != DM_POLYTOPE_TETRAHEDRON) {
    for (PetscInt i = 0; i < 3; i++) xi[i] = PetscMax(-1, PetscMin(1, xi[i]));
    return;
  }
  {
    PetscReal y[3], u[3], sum = 0, theta = 0, cum = 0;

    for (PetscInt i = 0; i < 3; i++) {
      y[i] = xi[i] + 1;
      sum += PetscMax(0, y[i]);
    }
    if (sum > 2) {
      /* onto sum y = 2, y >= 0: y - theta clamped, theta from the sorted values */
      for (PetscInt i = 0; i < 3; i++) u[i] = y[i];
      for (PetscInt i = 0; i < 3; i++)
        for (PetscInt j = i + 1; j < 3; j++)
          if (u[j] > u[i]) {
            const PetscReal tmp = u[i];
            u[i]                = u[j];
            u[j]                = tmp;
          }
      for (PetscInt k = 0; k < 3; k++) {
        cum += u[k];
        if (u[k] - (cum - 2) / (k + 1) > 0) theta = (cum - 2) / (k + 1);
      }
      for (PetscInt i = 0; i < 3; i++) y[i] -= theta;
    }
    for (PetscInt i = 0; i < 3; i++) xi[i] = PetscMax(0, y[i]) - 1;
  }
}

/*
  Locates P in local cell c: Newton on X(xi) = P from the cell's centre; inside: xi in the reference
  cell within 1e-10; else dist: the distance from P to X of xi projected onto the reference cell
*/
static PetscErrorCode LocateInCell(Solid *s, PetscInt c, const PetscScalar X[], const PetscReal P[3], PetscBool *inside, PetscReal xi[3], PetscReal *dist)
{
  const PetscBool tet = s->ct == DM_POLYTOPE_TETRAHEDRON ? PETSC_TRUE : PETSC_FALSE;
  PetscReal       x[3], J[9], Ji[9], N[SOLID_MAX_NEN], r[3], h = PetscCbrtReal(s->vol[c]);

  PetscFunctionBegin;
  for (PetscInt i = 0; i < 3; i++) xi[i] = tet ? -0.5 : 0;
  for (PetscInt it = 0; it < 30; it++) {
    PetscReal det, nr;

    PetscCall(CellMap(s, c, X, xi, x, J, N));
    for (PetscInt i = 0; i < 3; i++) r[i] = x[i] - P[i];
    nr  = PetscSqrtReal(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    det = SolidDet3(J);
    if (nr <= 1e-15 * h || !(det > 0)) break;
    SolidInv3(J, det, Ji);
    for (PetscInt i = 0; i < 3; i++) xi[i] -= Ji[3 * i] * r[0] + Ji[3 * i + 1] * r[1] + Ji[3 * i + 2] * r[2];
    /* far outside a curved cell the map need not be invertible: keep the iterate near the cell */
    for (PetscInt i = 0; i < 3; i++) xi[i] = PetscMax(-10, PetscMin(10, xi[i]));
  }
  {
    PetscReal c3[3] = {xi[0], xi[1], xi[2]};

    ProjectReference(s->ct, c3);
    *inside = PetscAbsReal(c3[0] - xi[0]) + PetscAbsReal(c3[1] - xi[1]) + PetscAbsReal(c3[2] - xi[2]) <= 1e-10 ? PETSC_TRUE : PETSC_FALSE;
    *dist   = 0;
    if (*inside) PetscFunctionReturn(0);
    /* outside: the nearest point of the cell, by projected gradient steps on |X(xi) - P|^2 / 2 (the
       refusal's distance; exact for straight cells, where the problem is a convex quadratic) */
    for (PetscInt it = 0; it < 500; it++) {
      PetscReal g[3], L = 0;

      PetscCall(CellMap(s, c, X, c3, x, J, N));
      for (PetscInt i = 0; i < 3; i++) r[i] = x[i] - P[i];
      for (PetscInt j = 0; j < 3; j++) g[j] = J[j] * r[0] + J[3 + j] * r[1] + J[6 + j] * r[2];
      for (PetscInt i = 0; i < 9; i++) L += J[i] * J[i];
      if (!(L > 0)) break;
      for (PetscInt j = 0; j < 3; j++) c3[j] -= g[j] / L;
      ProjectReference(s->ct, c3);
    }
    PetscCall(CellMap(s, c, X, c3, x, J, N));
    *dist = PetscSqrtReal(PetscSqr(x[0] - P[0]) + PetscSqr(x[1] - P[1]) + PetscSqr(x[2] - P[2]));
  }
  PetscFunctionReturn(0);
}

/*
  Locates probe p at its point: the containing cell of the smallest rank-independent number over all
  ranks (its owner keeps it), or, outside, the refusal with the distance to the nearest cell. opt
  names the probe's option. Collective.
*/
static PetscErrorCode LocateProbe(Solid *s, struct _n_SolidProbe *p, const char opt[], const char what[])
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)s->dm);
  const PetscScalar *X;
  PetscInt           best = -1, bestid = PETSC_MAX_INT;
  PetscReal          bestxi[3] = {0, 0, 0}, dmin = PETSC_MAX_REAL;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(s->Xref, &X));
  /* first the cells whose bounding box holds the point; the distances only for a point outside */
  for (PetscInt pass = 0; pass < 2; pass++) {
    PetscInt id;

    for (PetscInt c = 0; c < s->ncells; c++) {
      PetscReal lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[3] = {PETSC_MIN_REAL, PETSC_MIN_REAL, PETSC_MIN_REAL}, gap = 0, xi[3], dist;
      PetscBool inside = PETSC_FALSE;

      for (PetscInt a = 0; a < s->nen; a++)
        for (PetscInt i = 0; i < 3; i++) {
          lo[i] = PetscMin(lo[i], PetscRealPart(X[s->loff[s->nen * c + a] + i]));
          hi[i] = PetscMax(hi[i], PetscRealPart(X[s->loff[s->nen * c + a] + i]));
        }
      /* the distance to the cell's bounding box: a lower bound of the distance to the cell */
      for (PetscInt i = 0; i < 3; i++) gap += PetscSqr(PetscMax(0, PetscMax(lo[i] - p->X[i], p->X[i] - hi[i])));
      gap = PetscSqrtReal(gap);
      if (pass == 0 ? gap > 1e-10 * (hi[0] - lo[0] + hi[1] - lo[1] + hi[2] - lo[2]) : gap >= dmin) continue;
      PetscCall(LocateInCell(s, c, X, p->X, &inside, xi, &dist));
      dmin = PetscMin(dmin, dist);
      if (inside && s->cellid[c] < bestid) {
        best   = c;
        bestid = s->cellid[c];
        for (PetscInt i = 0; i < 3; i++) bestxi[i] = xi[i];
      }
    }
    id = bestid;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &id, 1, MPIU_INT, MPI_MIN, comm));
    if (bestid != id) best = -1;
    if (id < PETSC_MAX_INT) break;
    if (pass == 1) {
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &dmin, 1, MPIU_REAL, MPIU_MIN, comm));
      PetscCall(VecRestoreArrayRead(s->Xref, &X));
      SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %g,%g,%g: the point is outside %s, at %g from its nearest cell", opt, (double)p->X[0], (double)p->X[1], (double)p->X[2], what, (double)dmin);
    }
  }
  p->cell = best;
  p->node = -1;
  if (best >= 0) {
    PetscReal x[3], J[9];

    PetscCall(CellMap(s, best, X, bestxi, x, J, p->N));
    /* at a node: its values as they are */
    for (PetscInt a = 0; a < s->nen; a++) {
      const PetscInt o = s->loff[s->nen * best + a];

      if (PetscSqr(PetscRealPart(X[o]) - p->X[0]) + PetscSqr(PetscRealPart(X[o + 1]) - p->X[1]) + PetscSqr(PetscRealPart(X[o + 2]) - p->X[2]) <= PetscSqr(1e-12 * PetscCbrtReal(s->vol[best]))) p->node = a;
    }
  }
  PetscCall(VecRestoreArrayRead(s->Xref, &X));
  PetscFunctionReturn(0);
}

/* A probe given by a selection of one node: its reference position (every rank) */
static PetscErrorCode NodeOfSelection(Solid *s, const SolidSelection *sel, const char what[], PetscReal P[3])
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)s->dm);
  Vec                X;
  PetscInt          *mark, n, count;
  const PetscScalar *x;

  PetscFunctionBegin;
  PetscCall(DMGetGlobalVector(s->dm, &X));
  PetscCall(DMLocalToGlobal(s->dm, s->Xref, INSERT_VALUES, X));
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(PetscCalloc1(n / 3 + 1, &mark));
  PetscCall(SolidSelectNodes(s, sel, X, mark, &count));
  PetscCheck(count == 1, comm, PETSC_ERR_ARG_WRONG, "%s: selects %" PetscInt_FMT " nodes of %s; a probe is one node (or give its _point)", sel->text, count, what);
  P[0] = P[1] = P[2] = 0;
  PetscCall(VecGetArrayRead(X, &x));
  for (PetscInt i = 0; i < n / 3; i++)
    if (mark[i])
      for (PetscInt k = 0; k < 3; k++) P[k] = PetscRealPart(x[3 * i + k]);
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, P, 3, MPIU_REAL, MPIU_SUM, comm));
  PetscCall(PetscFree(mark));
  PetscCall(DMRestoreGlobalVector(s->dm, &X));
  PetscFunctionReturn(0);
}

/* The records (MechSystemAddRecords()): per probe u, v, stress, von Mises, from its owner to every rank */
static PetscErrorCode SolidProbeRecords(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal values[], void *ctx)
{
  Solid             *s = (Solid *)ctx;
  Vec                ql, vl;
  const PetscScalar *x, *w, *X;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  PetscCall(PetscArrayzero(values, SOLID_PROBE_NVAL * s->nprobes));
  PetscCall(SolidGetLocal(s, q, &ql, &x));
  PetscCall(SolidGetLocal(s, v, &vl, &w));
  PetscCall(VecGetArrayRead(s->Xref, &X));
  for (PetscInt k = 0; k < s->nprobes; k++) {
    const struct _n_SolidProbe *p   = &s->probes[k];
    PetscReal                  *val = &values[SOLID_PROBE_NVAL * k], J;

    if (p->cell < 0) continue;
    for (PetscInt a = 0; a < s->nen; a++) {
      const PetscInt o = s->loff[s->nen * p->cell + a];

      if (p->node >= 0 && a != p->node) continue;
      for (PetscInt i = 0; i < 3; i++) {
        if (p->node >= 0) {
          val[i]     = PetscRealPart(x[o + i] - X[o + i]);
          val[3 + i] = PetscRealPart(w[o + i]);
        } else {
          val[i] += p->N[a] * PetscRealPart(x[o + i] - X[o + i]);
          val[3 + i] += p->N[a] * PetscRealPart(w[o + i]);
        }
      }
    }
    SolidCellAverage(s, p->cell, x, &val[6], &val[12], &J);
  }
  PetscCall(VecRestoreArrayRead(s->Xref, &X));
  PetscCall(SolidRestoreLocal(s, &vl, &w));
  PetscCall(SolidRestoreLocal(s, &ql, &x));
  /* each probe's values on one rank, zeros elsewhere: the sum is exact */
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, values, SOLID_PROBE_NVAL * s->nprobes, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)s->dm)));
  PetscFunctionReturn(0);
}

/*
  The probes (-probe and -probe_NAME_*): located, recorded in the system's parameters (their points:
  a restart with other probes is refused naming them) and given to the output as records. what names
  the mesh in messages, hmin its smallest cell size. Collective.
*/
PetscErrorCode SolidSetUpProbes(Solid *s, MechSystem sys, const char what[], PetscReal hmin)
{
  MPI_Comm  comm       = PetscObjectComm((PetscObject)sys);
  char      list[1024] = "", *tok, *save = NULL, **rnames;
  PetscBool set;
  PetscInt  n = 1, *rncomp;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "Probes of the solid (SolidProbes)", "MechCreateSolid");
  PetscCall(MechOptionsString("-probe", "Probes by name (comma-separated); each with -probe_NAME_point x,y,z or a node (_label/_group/_where)", "SolidProbes", list, list, sizeof(list), &set));
  PetscOptionsEnd();
  if (!set) PetscFunctionReturn(0);
  PetscCheck(list[0] != ',' && list[strlen(list) - 1] != ',' && !strstr(list, ",,"), comm, PETSC_ERR_ARG_WRONG, "-probe %s: a name in the list is empty", list);
  for (const char *p = list; *p; p++) n += *p == ',';
  PetscCall(PetscCalloc1(n, &s->probes));
  for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    struct _n_SolidProbe *p = &s->probes[s->nprobes];
    char                  opt[160], prefix[96], pname[160], title[256];
    PetscBool             setp;
    PetscInt              ngiven;
    SolidSelection        sel;

    for (char *c = tok; *c; c++) PetscCheck(isalnum((unsigned char)*c) || *c == '_', comm, PETSC_ERR_ARG_WRONG, "-probe %s: a probe's name has letters, digits and underscores only", tok);
    PetscCheck(strlen(tok) < sizeof(p->name), comm, PETSC_ERR_ARG_WRONG, "-probe %s: a name has at most %d characters", tok, (int)sizeof(p->name) - 1);
    for (PetscInt k = 0; k < s->nprobes; k++) PetscCheck(strcmp(s->probes[k].name, tok), comm, PETSC_ERR_ARG_WRONG, "-probe: the name %s is given twice", tok);
    PetscCall(PetscStrncpy(p->name, tok, sizeof(p->name)));
    s->nprobes++;
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-probe_%s_point", tok));
    PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "-probe_%s", tok));
    PetscCall(PetscSNPrintf(title, sizeof(title), "The probe %s (SolidProbes)", tok));
    PetscOptionsBegin(comm, NULL, title, "MechCreateSolid");
    PetscCall(MechOptionsRealList(opt, "The probe's point in the reference configuration", "SolidProbes", p->X, 3, &setp));
    PetscOptionsEnd();
    PetscCall(SolidSelectionFromOptions(s, prefix, what, 1e-3 * hmin, &ngiven, &sel));
    PetscCheck((setp ? 1 : 0) + ngiven == 1, comm, PETSC_ERR_ARG_WRONG, "-probe %s: give its %s or a node with one of %s_label (with %s_value), %s_group or %s_where%s", tok, opt, prefix, prefix, prefix, prefix, (setp ? 1 : 0) + ngiven ? ", not several" : "");
    if (!setp) PetscCall(NodeOfSelection(s, &sel, what, p->X));
    PetscCall(SolidSelectionDestroy(&sel));
    PetscCall(LocateProbe(s, p, setp ? opt : prefix, what));
    for (PetscInt i = 0; i < 3; i++) {
      PetscCall(PetscSNPrintf(pname, sizeof(pname), "probe_%s_%c", p->name, "xyz"[i]));
      PetscCall(MechSystemAddParameter(sys, pname, p->X[i]));
    }
  }
  PetscCall(MechSystemAddParameter(sys, "probes", (PetscReal)s->nprobes));
  /* the records: /monitor/probe/NAME/u, v, stress, von_mises */
  PetscCall(PetscMalloc2(4 * s->nprobes, &rnames, 4 * s->nprobes, &rncomp));
  for (PetscInt k = 0; k < s->nprobes; k++) {
    const char *const field[4] = {"u", "v", "stress", "von_mises"};
    const PetscInt    nc[4]    = {3, 3, 6, 1};

    for (PetscInt j = 0; j < 4; j++) {
      char name[160];

      PetscCall(PetscSNPrintf(name, sizeof(name), "probe/%s/%s", s->probes[k].name, field[j]));
      PetscCall(PetscStrallocpy(name, &rnames[4 * k + j]));
      rncomp[4 * k + j] = nc[j];
    }
  }
  PetscCall(MechSystemAddRecords(sys, 4 * s->nprobes, (const char *const *)rnames, rncomp, SolidProbeRecords, s));
  for (PetscInt k = 0; k < 4 * s->nprobes; k++) PetscCall(PetscFree(rnames[k]));
  PetscCall(PetscFree2(rnames, rncomp));
  PetscFunctionReturn(0);
}

PetscErrorCode SolidProbesDestroy(Solid *s)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(s->probes));
  s->nprobes = 0;
  PetscFunctionReturn(0);
}
