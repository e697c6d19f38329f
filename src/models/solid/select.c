/*
  The solid's one selector of mesh entities, shared by its constraints (nodes), loads (boundary
  faces), regions (cells) and probes (a node): every selection is given by the options

    <prefix>_label NAME <prefix>_value V    the points of a mesh label and value (their closures' nodes,
                                            the faces or the cells among them),
    <prefix>_group NAME                     or those of a Gmsh physical group by its $PhysicalNames name,
    <prefix>_where COND[,COND...]           or conditions on the reference coordinates, all of which
                                            must hold: a plane x=1.5, an inequality y<0.5, z>=-2
                                            (also <=, >), or all (everything), or box (the surface of
                                            the mesh's bounding box: nodes and faces only)

  A node holds a condition when its reference position does within the plane tolerance, 1e-3 of the
  smallest cell size (an inequality with it: x<0.5 holds up to 0.5 + tol); a face when all its
  corners do (box: all on one of the box's six planes); a cell when its centroid (the mean of its
  vertices) does, so that x<0.5 and x>0.5 split a mesh without overlap or gap wherever its cells are
  (MOOSE's SubdomainBoundingBoxGenerator also decides by the centroid). A plane does not select
  cells. The numbers of a condition must be finite and not subnormal, as every option's
  (MechOptionsCheckNumbers()): before this file, the constraints' parser took x=1e-310 and the
  loads' refused it.
*/
/* strtok_r() is POSIX */
#define _POSIX_C_SOURCE 200809L
#include "solidimpl.h"
#include <ctype.h>
#include <stdlib.h>

static const char SolidSelectAxes[] = "xyz";

/*MC
  SolidSelection - how the solid's constraints, loads, regions and probes name the part of the mesh
  they act on (src/models/solid/select.c)

  Options Database Keys:
+ -solid_bc_<name>_label <label>, -solid_load_<name>_label <label>, -solid_region_<name>_label <label>, -probe_<name>_label <label> - the points of a mesh label (Gmsh physical groups: "Cell Sets", "Face Sets",
                         "Edge Sets", "Vertex Sets", with the group's number as value)
. -solid_bc_<name>_value <1>, -solid_load_<name>_value <1>, -solid_region_<name>_value <1>, -probe_<name>_value <1> - the label's value
. -solid_bc_<name>_group <group>, -solid_load_<name>_group <group>, -solid_region_<name>_group <group>, -probe_<name>_group <group> - the points of the Gmsh physical group of that name ($PhysicalNames)
- -solid_bc_<name>_where <cond>, -solid_load_<name>_where <cond>, -solid_region_<name>_where <cond>, -probe_<name>_where <cond> - conditions on the reference coordinates, all of which must hold: x=1.5 (a
                         plane, within 1e-3 of the smallest cell size), y<0.5, z>=-2 (also <=, >), joined
                         by commas; all; box (the six planes of the bounding box: the whole surface, nodes
                         and faces only)

  Level: intermediate

  Notes:
  The same four options select the nodes of a constraint (-solid_bc_<name>_*), the boundary faces of
  a load (-solid_load_<name>_*), the cells of a material region (-solid_region_<name>_*) and the node
  of a probe (-probe_<name>_*); give one of label (with value), group or where.
  A node is selected when its reference position satisfies the conditions, a boundary face when
  all its corners do, a cell when its centroid does (a plane selects no cell).

.seealso: `MechCreateSolid()`
M*/

/* Parses "x<0.5", "y=1", "Z>=-2" into c; PETSC_FALSE if it is no condition with a finite, normal (or zero) number */
static PetscBool ParseCondition(const char w[], SolidSelectCond *c)
{
  const char *p = w, *num;
  char       *end;
  PetscReal   v;

  while (*p == ' ') p++;
  c->axis = -1;
  for (PetscInt a = 0; a < 3; a++)
    if (tolower((unsigned char)*p) == SolidSelectAxes[a]) c->axis = a;
  if (c->axis < 0) return PETSC_FALSE;
  p++;
  while (*p == ' ') p++;
  if (!strncmp(p, "<=", 2) || !strncmp(p, ">=", 2) || !strncmp(p, "==", 2)) {
    c->op = p[0] == '<' ? SOLID_SELECT_LE : (p[0] == '>' ? SOLID_SELECT_GE : SOLID_SELECT_EQ);
    num   = p + 2;
  } else if (*p == '<' || *p == '>' || *p == '=') {
    c->op = p[0] == '<' ? SOLID_SELECT_LE : (p[0] == '>' ? SOLID_SELECT_GE : SOLID_SELECT_EQ);
    num   = p + 1;
  } else return PETSC_FALSE;
  v = strtod(num, &end);
  if (end == num) return PETSC_FALSE;
  while (*end == ' ') end++;
  if (*end) return PETSC_FALSE;
  if (!(PetscIsNormalReal(v) || v == 0)) return PETSC_FALSE;
  c->value = v;
  return PETSC_TRUE;
}

/*
  Parses a where-expression (opt names the option in messages): all, box, or conditions joined by
  commas. Refuses anything else with one line naming the option and the forms allowed.
*/
PetscErrorCode SolidSelectionParseWhere(MPI_Comm comm, const char opt[], const char where[], SolidSelection *sel)
{
  PetscInt n = 1;
  char     buf[512], *tok, *save = NULL;

  PetscFunctionBegin;
  PetscCall(PetscFree(sel->cond));
  sel->ncond = 0;
  if (!strcmp(where, "all") || !strcmp(where, "box")) {
    sel->kind = where[0] == 'a' ? SOLID_SELECT_ALL : SOLID_SELECT_BOX;
    PetscFunctionReturn(0);
  }
  for (const char *p = where; *p; p++) n += *p == ',';
  PetscCall(PetscStrncpy(buf, where, sizeof(buf)));
  PetscCall(PetscMalloc1(n, &sel->cond));
  sel->kind = SOLID_SELECT_WHERE;
  for (const char *p = where; *p; p++)
    if (p[0] == ',' && (p[1] == ',' || !p[1])) n = -1;
  if (where[0] == ',') n = -1;
  for (tok = n > 0 ? strtok_r(buf, ",", &save) : NULL; tok && n > 0; tok = strtok_r(NULL, ",", &save)) {
    if (!ParseCondition(tok, &sel->cond[sel->ncond])) n = -1;
    else sel->ncond++;
  }
  PetscCheck(n > 0 && sel->ncond > 0, comm, PETSC_ERR_ARG_WRONG, "%s %s: expected a coordinate plane such as x=0, y=1.5 or z=-2, an inequality such as x<0.5 or y>=0.1 (several joined by commas: all must hold), all or box; each number finite and not subnormal", opt, where);
  PetscFunctionReturn(0);
}

/* Parses a single plane "x=1.5" (-solid_fix); PETSC_FALSE if it is not one */
PetscBool SolidSelectionParsePlane(const char w[], PetscInt *axis, PetscReal *value)
{
  SolidSelectCond c;

  if (!ParseCondition(w, &c) || c.op != SOLID_SELECT_EQ || strchr(w, ',')) return PETSC_FALSE;
  *axis  = c.axis;
  *value = c.value;
  return PETSC_TRUE;
}

/* Whether the selection is the single plane axis = value (the constraints' and loads' messages name it) */
PetscBool SolidSelectionIsPlane(const SolidSelection *sel, PetscInt *axis, PetscReal *value)
{
  if (sel->kind != SOLID_SELECT_WHERE || sel->ncond != 1 || sel->cond[0].op != SOLID_SELECT_EQ) return PETSC_FALSE;
  if (axis) *axis = sel->cond[0].axis;
  if (value) *value = sel->cond[0].value;
  return PETSC_TRUE;
}

/* Whether the reference point x satisfies the where-conditions (within the tolerance; ALL: yes; box: on one of its planes) */
PetscBool SolidSelectionHolds(const SolidSelection *sel, const PetscReal x[3])
{
  const PetscReal tol = sel->tol;

  if (sel->kind == SOLID_SELECT_ALL) return PETSC_TRUE;
  if (sel->kind == SOLID_SELECT_BOX) {
    for (PetscInt d = 0; d < 3; d++)
      if (PetscAbsReal(x[d] - sel->lo[d]) <= tol || PetscAbsReal(x[d] - sel->hi[d]) <= tol) return PETSC_TRUE;
    return PETSC_FALSE;
  }
  for (PetscInt k = 0; k < sel->ncond; k++) {
    const SolidSelectCond *c = &sel->cond[k];
    const PetscReal        d = x[c->axis] - c->value;

    if (c->op == SOLID_SELECT_EQ && !(PetscAbsReal(d) <= tol)) return PETSC_FALSE;
    if (c->op == SOLID_SELECT_LE && !(d <= tol)) return PETSC_FALSE;
    if (c->op == SOLID_SELECT_GE && !(d >= -tol)) return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

/* Whether a face with corners X[0..n-1] is selected: every corner holds (box: all on one of its planes) */
PetscBool SolidSelectionHoldsFace(const SolidSelection *sel, const PetscReal X[][3], PetscInt n)
{
  if (sel->kind == SOLID_SELECT_BOX) {
    for (PetscInt d = 0; d < 3; d++)
      for (PetscInt side = 0; side < 2; side++) {
        const PetscReal plane = side ? sel->hi[d] : sel->lo[d];
        PetscBool       on    = PETSC_TRUE;

        for (PetscInt a = 0; a < n && on; a++)
          if (!(PetscAbsReal(X[a][d] - plane) <= sel->tol)) on = PETSC_FALSE;
        if (on) return PETSC_TRUE;
      }
    return PETSC_FALSE;
  }
  for (PetscInt a = 0; a < n; a++)
    if (!SolidSelectionHolds(sel, X[a])) return PETSC_FALSE;
  return PETSC_TRUE;
}

PetscErrorCode SolidSelectionDestroy(SolidSelection *sel)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(sel->cond));
  sel->ncond = 0;
  sel->kind  = SOLID_SELECT_NONE;
  PetscFunctionReturn(0);
}

/*
  Reads the selection options of prefix (-solid_bc_NAME: _label, _value, _group, _where) in an
  options block of its own and resolves them: a group to its label and value, a label checked to
  exist, a where-expression parsed, box given the mesh's bounding box. *ngiven counts the ways given
  (label, group, where), for the caller's own check and message (a constraint needs exactly one);
  with none the selection is SOLID_SELECT_NONE. what names the mesh in messages, tol is the plane
  tolerance. sel->text is how the options named it ("-solid_bc_a_where x=0": the loads' checksum
  hashes it). Collective.
*/
PetscErrorCode SolidSelectionFromOptions(Solid *s, const char prefix[], const char what[], PetscReal tol, PetscInt *ngiven, SolidSelection *sel)
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)s->dm);
  char      opt[4][160], label[256] = "", group[256] = "", where[512] = "", title[256];
  PetscInt  value = 1;
  PetscBool setl, setv, setg, setw;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(sel, sizeof(*sel)));
  sel->tol = tol;
  {
    const char *suffix[4] = {"label", "value", "group", "where"};

    for (PetscInt k = 0; k < 4; k++) PetscCall(PetscSNPrintf(opt[k], sizeof(opt[k]), "%s_%s", prefix, suffix[k]));
  }
  /* a title of its own: -help prints the options of a block whose title it printed before not again */
  PetscCall(PetscSNPrintf(title, sizeof(title), "Selection of mesh entities %s_* (SolidSelection)", prefix));
  PetscOptionsBegin(comm, NULL, title, "MechCreateSolid");
  PetscCall(MechOptionsString(opt[0], "The mesh label of the points selected", "SolidSelection", label, label, sizeof(label), &setl));
  PetscCall(MechOptionsInt(opt[1], "The label's value", "SolidSelection", value, &value, &setv));
  PetscCall(MechOptionsString(opt[2], "The Gmsh physical group of the points selected, by name", "SolidSelection", group, group, sizeof(group), &setg));
  PetscCall(MechOptionsString(opt[3], "Conditions on the reference coordinates: x=0 (a plane), y<0.5, z>=1 (joined by commas), all, or box", "SolidSelection", where, where, sizeof(where), &setw));
  PetscOptionsEnd();
  *ngiven = (setl ? 1 : 0) + (setg ? 1 : 0) + (setw ? 1 : 0);
  PetscCheck(!setv || setl, comm, PETSC_ERR_ARG_WRONG, "%s: needs %s", opt[1], opt[0]);
  if (*ngiven != 1) PetscFunctionReturn(0);
  if (setw) {
    PetscCall(SolidSelectionParseWhere(comm, opt[3], where, sel));
    PetscCall(PetscSNPrintf(sel->text, sizeof(sel->text), "%s %s", opt[3], where));
    if (sel->kind == SOLID_SELECT_BOX) {
      /* the bounding box of every node (the local vector holds the ghosts too) */
      const PetscScalar *x;
      PetscInt           n;
      PetscReal          b[6] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL};

      PetscCall(VecGetLocalSize(s->Xref, &n));
      PetscCall(VecGetArrayRead(s->Xref, &x));
      for (PetscInt i = 0; i < n; i += 3)
        for (PetscInt d = 0; d < 3; d++) {
          b[d]     = PetscMin(b[d], PetscRealPart(x[i + d]));
          b[3 + d] = PetscMin(b[3 + d], -PetscRealPart(x[i + d]));
        }
      PetscCall(VecRestoreArrayRead(s->Xref, &x));
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, b, 6, MPIU_REAL, MPIU_MIN, comm));
      for (PetscInt d = 0; d < 3; d++) {
        sel->lo[d] = b[d];
        sel->hi[d] = -b[3 + d];
      }
    }
    PetscFunctionReturn(0);
  }
  sel->kind  = SOLID_SELECT_LABEL;
  sel->value = value;
  if (setg) {
    const char *lname;
    PetscBool   found;

    PetscCall(SolidMeshGetPhysicalGroup(s->dm, group, &lname, &sel->value, &found));
    PetscCheck(found, comm, PETSC_ERR_ARG_WRONG, "%s %s: %s has no Gmsh physical group of that name", opt[2], group, what);
    PetscCall(PetscStrncpy(sel->label, lname, sizeof(sel->label)));
    PetscCall(PetscSNPrintf(sel->text, sizeof(sel->text), "%s %s", opt[2], group));
  } else {
    PetscCall(PetscStrncpy(sel->label, label, sizeof(sel->label)));
    PetscCall(PetscSNPrintf(sel->text, sizeof(sel->text), "%s %s %s %" PetscInt_FMT, opt[0], label, opt[1], value));
  }
  {
    DMLabel l;

    PetscCall(DMGetLabel(s->dm, sel->label, &l));
    PetscCheck(l, comm, PETSC_ERR_ARG_WRONG, "%s %s: %s has no such label", opt[0], sel->label, what);
  }
  PetscFunctionReturn(0);
}

/*
  Marks (mark[i] = 1, i an owned node of the global vector X of reference positions, 3 entries a
  node) the nodes selected: those of the closures of a label's points, or those whose position
  holds the conditions. count: how many, over all ranks (each node once). Collective.
*/
PetscErrorCode SolidSelectNodes(Solid *s, const SolidSelection *sel, Vec X, PetscInt mark[], PetscInt *count)
{
  const PetscScalar *x;
  PetscInt           n, k = 0;

  PetscFunctionBegin;
  if (sel->kind == SOLID_SELECT_LABEL) {
    PetscCall(SolidMarkLabel(s, sel->label, sel->value, mark, count));
    PetscFunctionReturn(0);
  }
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArrayRead(X, &x));
  for (PetscInt i = 0; i < n; i += 3) {
    const PetscReal p[3] = {PetscRealPart(x[i]), PetscRealPart(x[i + 1]), PetscRealPart(x[i + 2])};

    if (!SolidSelectionHolds(sel, p)) continue;
    if (!mark[i / 3]) k++;
    mark[i / 3] = 1;
  }
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(MPIU_Allreduce(&k, count, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)X)));
  PetscFunctionReturn(0);
}

/*
  Marks (mark[c] = 1, c a local cell) the cells selected: those of a label's stratum, or those whose
  centroid holds the conditions (a plane or box selects none: refused, naming the option). count: how
  many over all ranks. Collective.
*/
PetscErrorCode SolidSelectCells(Solid *s, const SolidSelection *sel, PetscInt mark[], PetscInt *count)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)s->dm);
  PetscInt k    = 0;

  PetscFunctionBegin;
  if (sel->kind == SOLID_SELECT_LABEL) {
    DMLabel         label;
    IS              is;
    const PetscInt *pts;
    PetscInt        npts = 0, cStart, cEnd;

    PetscCall(DMPlexGetHeightStratum(s->dm, 0, &cStart, &cEnd));
    PetscCall(DMGetLabel(s->dm, sel->label, &label));
    PetscCall(DMLabelGetStratumIS(label, sel->value, &is));
    if (is) {
      PetscCall(ISGetLocalSize(is, &npts));
      PetscCall(ISGetIndices(is, &pts));
      for (PetscInt j = 0; j < npts; j++)
        if (pts[j] >= cStart && pts[j] < cEnd && !mark[pts[j] - cStart]) {
          mark[pts[j] - cStart] = 1;
          k++;
        }
      PetscCall(ISRestoreIndices(is, &pts));
      PetscCall(ISDestroy(&is));
    }
  } else {
    PetscBool plane = PETSC_FALSE;

    for (PetscInt j = 0; j < sel->ncond; j++) plane = plane || sel->cond[j].op == SOLID_SELECT_EQ ? PETSC_TRUE : PETSC_FALSE;
    PetscCheck(!plane && sel->kind != SOLID_SELECT_BOX, comm, PETSC_ERR_ARG_WRONG, "%s: cells are selected by inequalities on their centroid (x<0.5, y>=0.1), not by a plane or the box", sel->text);
    for (PetscInt c = 0; c < s->ncells; c++)
      if (SolidSelectionHolds(sel, &s->ctr[3 * c]) && !mark[c]) {
        mark[c] = 1;
        k++;
      }
  }
  PetscCall(MPIU_Allreduce(&k, count, 1, MPIU_INT, MPI_SUM, comm));
  PetscFunctionReturn(0);
}
