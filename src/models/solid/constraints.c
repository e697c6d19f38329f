/*
  The solid's constraints (Dirichlet conditions), any number, each named by the user:

    -solid_bc clamp,sym
    -solid_bc_clamp_label "Face Sets" -solid_bc_clamp_value 1   a label and value,
    -solid_bc_clamp_group clamp                                  or a Gmsh physical group by name,
    -solid_bc_sym_where z=0                                      or a coordinate plane, or all,
                                                                 or box (the mesh's bounding box)
    -solid_bc_sym_components z                                   the components held (default xyz)
    -solid_bc_clamp_u 0,0.01,0 -solid_bc_clamp_time ramp:1       prescribed displacement u phi(t)

  A constrained component i of a vertex with reference position X follows q_i(t) = X_i + u_i phi(t),
  v_i(t) = u_i phi'(t); the system holds these dofs (MechSystemSetFixed()) and, for a prescribed
  motion, gives every integrator their values at any time (MechSystemSetFixedMotion()). -solid_fix
  (a plane) and -solid_fix_label/-solid_fix_value stay as shorthands for a constraint of all three
  components at rest; without any of them the built-in beam is clamped at x = 0.
*/
/* strtok_r() is POSIX */
#define _POSIX_C_SOURCE 200809L
#include "solidimpl.h"
#include <ctype.h>
#include <stdlib.h>

/*MC
  SolidConstraintOptions - the solid's constraints (Dirichlet conditions): held or prescribed
  components of the nodes of a part of the mesh (src/models/solid/constraints.c)

  Options Database Keys:
+ -solid_bc <name1,name2,...> - the constraints, each named (letters, digits and _; any number); any of them replaces the beam's default clamp. Each selects its nodes with -solid_bc_<name>_label and _value, _group or _where (`SolidSelection`)
. -solid_bc_<name>_components <xyz> - the components held (z: plane strain or a symmetry plane)
. -solid_bc_<name>_u <0,0,0> - a prescribed displacement u phi(t) from the reference position
. -solid_bc_<name>_time <constant> - phi: constant, ramp:T (t/T, then 1), hat:T1,T2 (0 -> 1 at T1 -> 0 at T2, then 0), sin:OMEGA, table:FILE (two columns t, phi, t increasing, linear in between; at most 10^6 rows and 64 MiB, a text file: a NUL byte is refused)
- -solid_bc_<name>_moment_about <x,y,z> - the point the reaction's moment is taken about (default: the centroid of its nodes; -monitor_reactions, docs/balance.md §1)

  Level: intermediate

  Notes:
  -solid_fix and -solid_fix_label (`MechCreateSolid()`) are shorthands for a constraint of all three
  components at rest. At every step's end the constrained components of q and v equal X + u phi(t)
  and u phi'(t) exactly, under every tsmech type, TSALPHA2 and PETSc's first-order types (the
  trapezoidal rule's oscillating velocity at a prescribed position is not kept); the constrained
  dofs leave Newton's system as fixed dofs do (`MechSystemSetFixedMotion()`, docs/solid.md §5). Two
  constraints that prescribe one component differently are refused; a checkpoint records each
  constraint's nodes (bc_NAME_vertices, bc_fix_vertices for -solid_fix: a count and a checksum),
  components, u and time function (a table by a checksum of its contents), and a restart with other
  ones is refused by name.

.seealso: `MechCreateSolid()`, `SolidSelection`, `SolidLoadOptions`
M*/

typedef struct {
  char             name[64];
  PetscInt         comps; /* bit c: component c is held */
  PetscReal        u[3];
  MechTimeFunction tf;
  PetscReal        about[3]; /* the point its reaction's moment is taken about (hasabout), else its nodes' centroid */
  PetscBool        hasabout;
} SolidBC;

/* The constraints of a solid: for each held local dof, which constraint holds it */
struct _n_SolidConstraints {
  PetscInt   nbc, maxbc; /* the constraints, in a growing array */
  SolidBC   *bc;
  PetscReal *phi;    /* work: phi, phi', phi'' of each constraint at one time (3 nbc) */
  PetscInt   n;      /* held dofs of this rank */
  PetscInt  *idx;    /* their global indices */
  PetscInt  *which;  /* their constraint */
  PetscReal *X;      /* their reference positions */
  PetscReal *u;      /* and the prescribed displacement's component */
  PetscBool  moving; /* some constraint prescribes a motion that is not constant in time */
};

static const char *const SolidAxes = "xyz";

static PetscErrorCode SolidMotion(MechSystem, PetscReal, Vec, Vec, Vec, void *);

/* The components of "xz" as a bit set; 0 if the text is not a non-empty set of x, y, z */
static PetscInt ParseComponents(const char c[])
{
  PetscInt bits = 0;

  if (!c[0]) return 0;
  for (const char *p = c; *p; p++) {
    const char *a = strchr(SolidAxes, tolower((unsigned char)*p));

    if (!a || !*p || bits & (1 << (a - SolidAxes))) return 0;
    bits |= 1 << (a - SolidAxes);
  }
  return bits;
}

/* One constraint's options (-solid_bc_NAME_...) and the nodes it selects (mark, owned; select.c) and how the options gave them (seltext) */
static PetscErrorCode ReadConstraint(Solid *s, Vec X, const char name[], PetscReal hmin, const char what[], SolidBC *bc, PetscInt mark[], char seltext[], size_t sellen)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)s->dm);
  char           opt[4][128], prefix[96], comps[16] = "xyz", timef[PETSC_MAX_PATH_LEN] = "constant", title[160];
  PetscInt       count = 0, ngiven, axis;
  PetscReal      pv;
  PetscBool      setu;
  SolidSelection sel;

  PetscFunctionBegin;
  for (const char *p = name; *p; p++) PetscCheck(isalnum((unsigned char)*p) || *p == '_', comm, PETSC_ERR_ARG_WRONG, "-solid_bc %s: a constraint's name may hold letters, digits and _ only", name);
  PetscCheck(strlen(name) < sizeof(bc->name), comm, PETSC_ERR_ARG_WRONG, "-solid_bc: the constraint name %.20s... has %zu characters, at most %d", name, strlen(name), (int)sizeof(bc->name) - 1);
  PetscCall(PetscStrncpy(bc->name, name, sizeof(bc->name)));
  bc->u[0] = bc->u[1] = bc->u[2] = 0;
  PetscCall(PetscSNPrintf(title, sizeof(title), "The constraint %s of the solid", name));
  PetscOptionsBegin(comm, NULL, title, "MechSystem");
  PetscCall(PetscSNPrintf(opt[0], sizeof(opt[0]), "-solid_bc_%s_components", name));
  PetscCall(MechOptionsString(opt[0], "Constraint: the components held (x, y, z)", "MechCreateSolid", comps, comps, sizeof(comps), NULL));
  PetscCall(PetscSNPrintf(opt[1], sizeof(opt[1]), "-solid_bc_%s_u", name));
  PetscCall(MechOptionsRealList(opt[1], "Constraint: the prescribed displacement u (times phi(t))", "MechCreateSolid", bc->u, 3, &setu));
  PetscCall(PetscSNPrintf(opt[2], sizeof(opt[2]), "-solid_bc_%s_time", name));
  PetscCall(MechOptionsString(opt[2], "Constraint: the time function phi of u: constant, ramp:T, hat:T1,T2, sin:OMEGA, table:FILE", "MechCreateSolid", timef, timef, sizeof(timef), NULL));
  PetscCall(PetscSNPrintf(opt[3], sizeof(opt[3]), "-solid_bc_%s_moment_about", name));
  PetscCall(MechOptionsRealList(opt[3], "Constraint: the point its reaction's moment is taken about (default: the centroid of its nodes)", "MechCreateSolid", bc->about, 3, &bc->hasabout));
  PetscOptionsEnd();
  bc->comps = ParseComponents(comps);
  PetscCheck(bc->comps, comm, PETSC_ERR_ARG_WRONG, "-solid_bc_%s_components %s: give the components held as letters among x, y, z (e.g. z, xy, xyz), each once", name, comps);
  PetscCall(MechTimeFunctionCreate(comm, timef, opt[2], &bc->tf));
  /* the nodes: by label, Gmsh group or where-conditions (select.c) */
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "-solid_bc_%s", name));
  PetscCall(SolidSelectionFromOptions(s, prefix, what, 1e-3 * hmin, &ngiven, &sel));
  PetscCheck(ngiven == 1, comm, PETSC_ERR_ARG_WRONG, "-solid_bc %s: give exactly one of -solid_bc_%s_label, -solid_bc_%s_group and -solid_bc_%s_where", name, name, name, name);
  PetscCall(SolidSelectNodes(s, &sel, X, mark, &count));
  PetscCall(PetscStrncpy(seltext, sel.text, sellen));
  if (!count && SolidSelectionIsPlane(&sel, &axis, &pv)) {
    PetscCall(SolidSelectionDestroy(&sel));
    SETERRQ(comm, PETSC_ERR_ARG_WRONG, "%s: no vertex of %s lies on the plane %c = %g", sel.text, what, "xyz"[axis], (double)pv);
  }
  PetscCall(SolidSelectionDestroy(&sel));
  PetscCheck(count, comm, PETSC_ERR_ARG_WRONG, "%s: no vertex of %s %s", sel.text, what, sel.kind == SOLID_SELECT_LABEL ? "carries it" : "satisfies it");
  PetscFunctionReturn(0);
}

/*
  The constraints as the system's groups of fixed dofs, whose reactions are told apart (reaction.c):
  each named, its moment taken about -solid_bc_NAME_moment_about or the centroid of its nodes in the
  reference configuration (X, the global vector of reference positions). Collective.
*/
static PetscErrorCode SetGroups(SolidConstraints c, MechSystem sys, Vec X)
{
  const PetscScalar *x;
  const char       **names;
  PetscReal         *sum, *about;
  PetscBool         *has;
  PetscInt           rstart, last = -1, lastb = -1;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(c->nbc, &names));
  PetscCall(PetscCalloc1(4 * c->nbc, &sum));
  PetscCall(PetscMalloc1(3 * c->nbc, &about));
  PetscCall(PetscMalloc1(c->nbc, &has));
  PetscCall(VecGetOwnershipRange(X, &rstart, NULL));
  PetscCall(VecGetArrayRead(X, &x));
  for (PetscInt k = 0; k < c->n; k++) {
    const PetscInt node = (c->idx[k] - rstart) / 3, b = c->which[k];

    if (node == last && b == lastb) continue;
    last  = node;
    lastb = b;
    for (PetscInt i = 0; i < 3; i++) sum[4 * b + i] += PetscRealPart(x[3 * node + i]);
    sum[4 * b + 3] += 1;
  }
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, sum, 4 * c->nbc, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)X)));
  for (PetscInt b = 0; b < c->nbc; b++) {
    names[b] = c->bc[b].name;
    has[b]   = PETSC_TRUE;
    for (PetscInt i = 0; i < 3; i++) about[3 * b + i] = c->bc[b].hasabout ? c->bc[b].about[i] : (sum[4 * b + 3] > 0 ? sum[4 * b + i] / sum[4 * b + 3] : 0);
  }
  PetscCall(MechSystemSetFixedGroups(sys, c->nbc, names, c->which, about, has));
  PetscCall(PetscFree(names));
  PetscCall(PetscFree(sum));
  PetscCall(PetscFree(about));
  PetscCall(PetscFree(has));
  PetscFunctionReturn(0);
}

/*
  What a restart must match of the named constraints (-solid_bc), besides where each acts (its
  nodes, recorded as they are selected: records.c): its components, u and time function (by its
  description, a table's by its contents); hasfix: the first is the shorthands'
*/
static PetscErrorCode RecordConstraints(SolidConstraints c, MechSystem sys, PetscBool hasfix)
{
  PetscFunctionBegin;
  for (PetscInt b = hasfix ? 1 : 0; b < c->nbc; b++) {
    const SolidBC *bc = &c->bc[b];
    char           pname[128];

    PetscCall(PetscSNPrintf(pname, sizeof(pname), "bc_%s_components", bc->name));
    PetscCall(MechSystemAddParameter(sys, pname, (PetscReal)bc->comps));
    for (PetscInt k = 0; k < 3; k++) {
      PetscCall(PetscSNPrintf(pname, sizeof(pname), "bc_%s_u%c", bc->name, SolidAxes[k]));
      PetscCall(MechSystemAddParameter(sys, pname, bc->u[k]));
    }
    PetscCall(PetscSNPrintf(pname, sizeof(pname), "bc_%s_time", bc->name));
    PetscCall(SolidRecordTime(sys, pname, bc->tf));
  }
  PetscFunctionReturn(0);
}

/* A new constraint, zeroed, at the end of c's growing array */
static PetscErrorCode ConstraintsAppend(SolidConstraints c, SolidBC **bc)
{
  PetscFunctionBegin;
  if (c->nbc == c->maxbc) {
    c->maxbc = c->maxbc ? 2 * c->maxbc : 4;
    PetscCall(PetscRealloc(c->maxbc * sizeof(SolidBC), &c->bc));
  }
  *bc = &c->bc[c->nbc++];
  PetscCall(PetscMemzero(*bc, sizeof(SolidBC)));
  PetscFunctionReturn(0);
}

/*
  The shorthands -solid_fix (a coordinate plane) and -solid_fix_label (a label's value) as the
  constraint "fix": all three components held at their reference positions. mark is work space (a
  flag per node); owner receives the constraint of each local dof. Collective.
*/
static PetscErrorCode SetUpFix(Solid *s, MechSystem sys, Vec q, const char fix[], const char flabel[], PetscInt fvalue, PetscReal hmin, const char what[], PetscInt mark[], PetscInt owner[])
{
  MPI_Comm         comm = PetscObjectComm((PetscObject)s->dm);
  SolidConstraints c    = s->bc;
  SolidBC         *bc;
  PetscInt         count = 0, axis, nloc;
  PetscReal        pv    = 0;
  char             sel[600];

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(q, &nloc));
  PetscCall(ConstraintsAppend(c, &bc));
  PetscCall(PetscArrayzero(mark, nloc / 3));
  PetscCall(PetscStrcpy(bc->name, "fix"));
  bc->comps = 7;
  PetscCall(MechTimeFunctionCreate(comm, "constant", "-solid_fix", &bc->tf));
  if (fix[0]) {
    SolidSelection where;

    PetscCheck(SolidSelectionParsePlane(fix, &axis, &pv), comm, PETSC_ERR_ARG_WRONG, "-solid_fix %s: expected a coordinate plane such as x=0, y=1.5 or z=-2, or none", fix);
    PetscCall(PetscMemzero(&where, sizeof(where)));
    where.tol = 1e-3 * hmin;
    PetscCall(SolidSelectionParseWhere(comm, "-solid_fix", fix, &where));
    PetscCall(SolidSelectNodes(s, &where, q, mark, &count));
    PetscCall(SolidSelectionDestroy(&where));
    PetscCheck(count, comm, PETSC_ERR_ARG_WRONG, "-solid_fix %s: no vertex of %s lies on the plane %c = %g", fix, what, SolidAxes[axis], (double)pv);
  } else {
    DMLabel l;

    PetscCall(DMGetLabel(s->dm, flabel, &l));
    PetscCheck(l, comm, PETSC_ERR_ARG_WRONG, "-solid_fix_label %s: the mesh has no such label", flabel);
    PetscCall(SolidMarkLabel(s, flabel, fvalue, mark, &count));
    PetscCheck(count, comm, PETSC_ERR_ARG_WRONG, "-solid_fix_label %s -solid_fix_value %" PetscInt_FMT ": no vertex of %s carries it", flabel, fvalue, what);
  }
  /* what a restart must match: where it acts (records.c) */
  if (fix[0]) PetscCall(PetscSNPrintf(sel, sizeof(sel), "-solid_fix %s", fix));
  else PetscCall(PetscSNPrintf(sel, sizeof(sel), "-solid_fix_label %s = %" PetscInt_FMT, flabel, fvalue));
  PetscCall(SolidRecordNodes(sys, "bc_fix_vertices", sel, q, mark));
  for (PetscInt i = 0; i < nloc / 3; i++)
    if (mark[i])
      for (PetscInt k = 0; k < 3; k++) owner[3 * i + k] = c->nbc - 1;
  PetscFunctionReturn(0);
}

/*
  The constraint named tok of -solid_bc: read (ReadConstraint()), its nodes recorded, its
  components given to it in owner unless an earlier constraint holds them (then only an alike
  prescription agrees). mark is work space. Collective.
*/
static PetscErrorCode SetUpNamedConstraint(Solid *s, MechSystem sys, Vec q, const char tok[], PetscReal hmin, const char what[], PetscInt mark[], PetscInt owner[])
{
  MPI_Comm         comm = PetscObjectComm((PetscObject)s->dm);
  SolidConstraints c    = s->bc;
  SolidBC         *bc;
  PetscInt         nloc, conflicts = 0;
  char             sel[600], pname[128];

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(q, &nloc));
  for (PetscInt b = 0; b < c->nbc; b++) PetscCheck(strcmp(c->bc[b].name, tok), comm, PETSC_ERR_ARG_WRONG, "-solid_bc: the constraint %s is named twice%s", tok, strcmp(tok, "fix") ? "" : " (fix is the name of -solid_fix and -solid_fix_label)");
  PetscCall(ConstraintsAppend(c, &bc));
  PetscCall(PetscArrayzero(mark, nloc / 3));
  PetscCall(ReadConstraint(s, q, tok, hmin, what, bc, mark, sel, sizeof(sel)));
  PetscCall(PetscSNPrintf(pname, sizeof(pname), "bc_%s_vertices", tok));
  PetscCall(SolidRecordNodes(sys, pname, sel, q, mark));
  for (PetscInt i = 0; i < nloc / 3; i++) {
    if (!mark[i]) continue;
    for (PetscInt k = 0; k < 3; k++) {
      const PetscInt d = 3 * i + k;

      if (!(bc->comps & (1 << k))) continue;
      if (owner[d] >= 0) {
        /* held twice: only alike prescriptions agree */
        const SolidBC *o = &c->bc[owner[d]];
        const char    *d1, *d2;

        PetscCall(MechTimeFunctionGetDescription(o->tf, &d1));
        PetscCall(MechTimeFunctionGetDescription(bc->tf, &d2));
        if (!(o->u[k] == bc->u[k] && (bc->u[k] == 0 || !strcmp(d1, d2)))) conflicts++;
        continue;
      }
      owner[d] = c->nbc - 1;
    }
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &conflicts, 1, MPIU_INT, MPI_SUM, comm));
  PetscCheck(!conflicts, comm, PETSC_ERR_ARG_INCOMP, "-solid_bc: the constraint %s prescribes %" PetscInt_FMT " component%s that an earlier constraint prescribes differently", tok, conflicts, conflicts > 1 ? "s" : "");
  PetscFunctionReturn(0);
}

/*
  The held dofs (owner[d] >= 0: the constraint of local dof d) in the global numbering, their
  constraint, reference positions (q) and prescribed displacements; whether some constraint moves
*/
static PetscErrorCode CollectHeldDofs(SolidConstraints c, Vec q, const PetscInt owner[])
{
  const PetscScalar *x;
  PetscInt           nloc, rstart, nheld = 0;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(q, &nloc));
  PetscCall(VecGetOwnershipRange(q, &rstart, NULL));
  for (PetscInt d = 0; d < nloc; d++) nheld += owner[d] >= 0;
  PetscCall(PetscMalloc4(nheld, &c->idx, nheld, &c->which, nheld, &c->X, nheld, &c->u));
  PetscCall(VecGetArrayRead(q, &x));
  for (PetscInt d = 0, k = 0; d < nloc; d++) {
    if (owner[d] < 0) continue;
    c->idx[k]   = rstart + d;
    c->which[k] = owner[d];
    c->X[k]     = PetscRealPart(x[d]);
    c->u[k]     = c->bc[owner[d]].u[d % 3];
    k++;
  }
  PetscCall(VecRestoreArrayRead(q, &x));
  c->n = nheld;
  /* a motion: a non-zero u whose time function is not constant */
  for (PetscInt b = 0; b < c->nbc; b++) {
    const char *desc;

    PetscCall(MechTimeFunctionGetDescription(c->bc[b].tf, &desc));
    if ((c->bc[b].u[0] != 0 || c->bc[b].u[1] != 0 || c->bc[b].u[2] != 0) && strcmp(desc, "constant")) c->moving = PETSC_TRUE;
  }
  PetscCall(PetscMalloc1(3 * c->nbc + 1, &c->phi));
  PetscFunctionReturn(0);
}

/*
  Reads the constraints (-solid_bc and the shorthands -solid_fix, -solid_fix_label), marks the
  held dofs, sets their initial position X + u phi(0) and velocity u phi'(0) in q and v (q holds
  the reference positions on entry), records them in the system and in its parameters. Collective.
*/
PetscErrorCode SolidSetUpConstraints(Solid *s, MechSystem sys, PetscBool builtin, PetscReal hmin, const char what[], Vec q, Vec v)
{
  MPI_Comm         comm = PetscObjectComm((PetscObject)s->dm);
  SolidConstraints c;
  char             list[1024] = "", fix[256] = "", flabel[256] = "";
  PetscInt         fvalue = 1, nloc, *owner, nall;
  PetscBool        setlist, setfix, setflabel, setfvalue;
  PetscInt        *mark;

  PetscFunctionBegin;
  PetscCall(PetscNew(&c));
  s->bc = c;
  PetscOptionsBegin(comm, NULL, "Solid constraints", "MechSystem");
  PetscCall(MechOptionsString("-solid_bc", "Constraints by name (comma-separated); each with -solid_bc_NAME_label/_group/_where, _components, _u, _time", "MechCreateSolid", list, list, sizeof(list), &setlist));
  PetscCall(MechOptionsString("-solid_fix", "Fix the vertices on a plane (x=0, y=1.5, ...) or none", "MechCreateSolid", fix, fix, sizeof(fix), &setfix));
  PetscCall(MechOptionsString("-solid_fix_label", "Fix the vertices of a mesh label", "MechCreateSolid", flabel, flabel, sizeof(flabel), &setflabel));
  PetscCall(MechOptionsInt("-solid_fix_value", "Value of the label -solid_fix_label", "MechCreateSolid", fvalue, &fvalue, &setfvalue));
  PetscOptionsEnd();
  PetscCheck(!(setfix && setflabel), comm, PETSC_ERR_ARG_INCOMP, "Give -solid_fix or -solid_fix_label, not both (-solid_fix none with -solid_fix_label)");
  PetscCheck(!setfvalue || setflabel, comm, PETSC_ERR_ARG_WRONG, "-solid_fix_value: goes with -solid_fix_label");
  if (!strcmp(fix, "none")) fix[0] = 0;
  /* the built-in beam is clamped at x = 0 unless a constraint or -solid_fix says otherwise */
  if (builtin && !setlist && !setfix && !setflabel) PetscCall(PetscStrcpy(fix, "x=0"));
  PetscCall(VecGetLocalSize(q, &nloc));
  PetscCall(PetscMalloc2(nloc / 3, &mark, nloc, &owner));
  for (PetscInt i = 0; i < nloc; i++) owner[i] = -1;
  /* the shorthands first, as the constraint "fix" */
  if (fix[0] || setflabel) PetscCall(SetUpFix(s, sys, q, fix, flabel, fvalue, hmin, what, mark, owner));
  if (setlist) {
    char *save = NULL, *tok;

    PetscCheck(list[0] != ',' && list[strlen(list) - 1] != ',' && !strstr(list, ",,"), comm, PETSC_ERR_ARG_WRONG, "-solid_bc %s: an element of the list is empty", list);
    for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) PetscCall(SetUpNamedConstraint(s, sys, q, tok, hmin, what, mark, owner));
  }
  PetscCall(CollectHeldDofs(c, q, owner));
  PetscCall(PetscFree2(mark, owner));
  /* the initial state of the held dofs: q = X + u phi(0), v = u phi'(0) */
  PetscCall(SolidConstraintsEvaluate(c, 0, q, v, NULL));
  PetscCall(MPIU_Allreduce(&c->n, &nall, 1, MPIU_INT, MPI_SUM, comm));
  if (nall) {
    IS fixed;

    PetscCall(ISCreateGeneral(comm, c->n, c->idx, PETSC_COPY_VALUES, &fixed));
    PetscCall(MechSystemSetFixed(sys, fixed, NULL));
    PetscCall(ISDestroy(&fixed));
    if (c->moving) PetscCall(MechSystemSetFixedMotion(sys, SolidMotion, c));
    PetscCall(SetGroups(c, sys, q));
    /* the kinks of the motions, which automatic incrementation lands on */
    for (PetscInt b = 0; b < c->nbc; b++) PetscCall(MechSystemAddTimeFunctionKinks(sys, c->bc[b].tf));
  }
  /* what a restart must match */
  if (setlist) PetscCall(RecordConstraints(c, sys, fix[0] || setflabel ? PETSC_TRUE : PETSC_FALSE));
  PetscFunctionReturn(0);
}

/* q, v and a of the held dofs at time t: X + u phi(t), u phi'(t), u phi''(t) (any may be NULL) */
PetscErrorCode SolidConstraintsEvaluate(SolidConstraints c, PetscReal t, Vec q, Vec v, Vec a)
{
  PetscScalar *qa = NULL, *va = NULL, *aa = NULL;
  PetscInt     rstart;
  PetscReal   *phi, *dphi, *ddphi;

  PetscFunctionBegin;
  if (!c || !c->n || (!q && !v && !a)) PetscFunctionReturn(0);
  phi   = c->phi;
  dphi  = c->phi + c->nbc;
  ddphi = c->phi + 2 * c->nbc;
  for (PetscInt b = 0; b < c->nbc; b++) PetscCall(MechTimeFunctionEvaluate(c->bc[b].tf, t, &phi[b], &dphi[b], &ddphi[b]));
  PetscCall(VecGetOwnershipRange(q ? q : (v ? v : a), &rstart, NULL));
  if (q) PetscCall(VecGetArray(q, &qa));
  if (v) PetscCall(VecGetArray(v, &va));
  if (a) PetscCall(VecGetArray(a, &aa));
  for (PetscInt k = 0; k < c->n; k++) {
    const PetscInt i = c->idx[k] - rstart, b = c->which[k];

    if (qa) qa[i] = c->X[k] + c->u[k] * phi[b];
    if (va) va[i] = c->u[k] * dphi[b];
    if (aa) aa[i] = c->u[k] * ddphi[b];
  }
  if (q) PetscCall(VecRestoreArray(q, &qa));
  if (v) PetscCall(VecRestoreArray(v, &va));
  if (a) PetscCall(VecRestoreArray(a, &aa));
  PetscFunctionReturn(0);
}

/* The system's prescribed motion (MechSystemSetFixedMotion()) */
static PetscErrorCode SolidMotion(MechSystem sys, PetscReal t, Vec q, Vec v, Vec a, void *ctx)
{
  PetscFunctionBegin;
  (void)sys;
  PetscCall(SolidConstraintsEvaluate((SolidConstraints)ctx, t, q, v, a));
  PetscFunctionReturn(0);
}

PetscErrorCode SolidConstraintsDestroy(SolidConstraints *c)
{
  PetscFunctionBegin;
  if (!*c) PetscFunctionReturn(0);
  for (PetscInt b = 0; b < (*c)->nbc; b++) PetscCall(MechTimeFunctionDestroy(&(*c)->bc[b].tf));
  PetscCall(PetscFree4((*c)->idx, (*c)->which, (*c)->X, (*c)->u));
  PetscCall(PetscFree((*c)->bc));
  PetscCall(PetscFree((*c)->phi));
  PetscCall(PetscFree(*c));
  PetscFunctionReturn(0);
}
