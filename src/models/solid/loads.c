/*
  Loads on the solid's boundary faces, any number, each named (docs/solid.md §5, "Loads"):

    -solid_load tip,root                       the loads' names
    -solid_load_tip_label NAME -solid_load_tip_value V   the boundary faces of a mesh label, or
    -solid_load_tip_group NAME                 those of a Gmsh physical group, or
    -solid_load_tip_where x=1                  the boundary faces on a coordinate plane
    -solid_load_tip_traction tx,ty,tz          a dead traction (force per reference area), or
    -solid_load_tip_pressure p                 a follower pressure on the deformed face, or
    -solid_load_tip_force Fx,Fy,Fz             a total force spread over the faces by reference area
    -solid_load_tip_time SPEC                  its time function phi(t) (MechTimeFunctionCreate())

  On a linear triangle with reference area A0 the dead traction t0 gives every vertex A0 t0 / 3;
  the follower pressure p gives every vertex -p n da / 3 with n da = (x2 - x1) x (x3 - x1) / 2 on
  the current face (outward), and its derivative, the load stiffness, is not symmetric. With the
  force on the left-hand side (M q'' + f = 0) an external load enters as f -= phi(t) F_ext.

  Each boundary face belongs to one rank: a face on the partition boundary is shared by two ranks
  (it is in the point SF) and is inside the body, so it carries no load.
*/
#include "solidimpl.h"
#include <ctype.h>

/*MC
  SolidLoadOptions - loads on the solid's boundary faces: dead tractions, follower pressures and
  total forces, each with its time function (src/models/solid/loads.c, docs/solid.md §5)

  Options Database Keys:
+ -solid_load <name1,name2,...> - the loads, each named (letters, digits and _; at most 16); each selects its faces with -solid_load_<name>_label and _value (e.g. "Face Sets"), _group or _where (`SolidSelection`: the boundary faces of a label, of a Gmsh physical group, or on a coordinate plane, within 1e-3 of the smallest cell size)
. -solid_load_<name>_traction <tx,ty,tz> - a dead traction, force per reference area (one of these three)
. -solid_load_<name>_pressure <p> - a follower pressure on the deformed faces (pushing against the outward normal), with its load stiffness
. -solid_load_<name>_force <Fx,Fy,Fz> - a total force spread over the faces by reference area (the traction F / A0)
- -solid_load_<name>_time <constant> - its time function: constant, ramp:T, hat:T1,T2, sin:OMEGA, table:FILE (as -solid_bc_<name>_time)

  Level: intermediate

  Notes:
  A load's faces must be boundary faces: a label that marks faces inside the body, only cells or no
  face at all is refused, as are an unknown label or group, a plane without boundary faces, a
  malformed or non-increasing time function (one line, exit status 2). A follower pressure makes the
  tangent non-symmetric: the exact load stiffness is in the assembled Jacobian and in the matrix-free
  action, and the solvers that need a symmetric operator (the CG family, Chebyshev, Cholesky, ICC,
  found by a probe of what each type does, `MechSolverNeedsSymmetric()`) are refused with the reason:
  use GMRES or BiCGStab with GAMG or ILU. Checkpoints record each load (load_NAME: its value,
  load_NAME_faces: its selection, face count and a rank-independent checksum of its faces,
  load_NAME_time: its time function), so a restart with another load, time function or selection is
  refused naming it and both values. The energy includes a dead load's potential -phi(t) F.(q - X)
  and, for a follower pressure, phi(t) p (V(q) - V(X)) with V the volume its faces enclose with the
  origin (an open surface's pressure has no potential, docs/solid.md §5). The faces of every element
  (3- and 6-node triangles, 4- and 9-node quadrangles) carry every kind of load, integrated exactly
  by PETSc's face rules (docs/solid.md §13).

.seealso: `MechCreateSolid()`, `SolidSelection`, `SolidConstraintOptions`
M*/

#define SOLID_MAX_LOADS 16

static const char SolidLoadAxes[] = "xyz";

/* the load kinds (the table at the end) */
#define SOLID_NLOADKINDS 3
static const SolidLoadOps SolidLoadKinds[SOLID_NLOADKINDS];

/* Frees the loads (SolidDestroy()) */
PetscErrorCode SolidLoadsDestroy(Solid *s)
{
  PetscFunctionBegin;
  for (PetscInt l = 0; l < s->nloads; l++) {
    SolidLoad *ld = &s->loads[l];

    PetscCall(MechTimeFunctionDestroy(&ld->tf));
    PetscCall(PetscFree4(ld->lo, ld->go, ld->X, ld->A));
    PetscCall(PetscFree(ld->W));
    PetscCall(PetscFree3(ld->qw, ld->qN, ld->qdN));
    PetscCall(PetscFree(ld->xs));
  }
  PetscCall(PetscFree(s->loads));
  PetscCall(DMDestroy(&s->facedm));
  s->nloads = 0;
  PetscFunctionReturn(0);
}

/*
  The shape functions of a face with nfn nodes in the order of SolidLoadFindFaces() (corners in
  outward cyclic order, then the edge nodes of edges (0,1), (1,2), ... , then a quadrangle's centre)
  at the reference point (xi, eta): triangles on the unit triangle with L = (1 - xi - eta, xi, eta),
  quadrangles on [-1, 1]^2 with corners (-1,-1), (1,-1), (1,1), (-1,1). N, and dN[2 a], dN[2 a + 1]
  the derivatives of N_a by xi and eta.
*/
static void SolidFaceShape(PetscInt nfn, PetscReal xi, PetscReal eta, PetscReal N[], PetscReal dN[])
{
  if (nfn == 3 || nfn == 6) {
    const PetscReal L[3] = {
        1 - xi - eta, xi, eta
    },
                    dL[3][2] = {{-1, -1}, {1, 0}, {0, 1}};

    for (PetscInt a = 0; a < 3; a++) {
      N[a] = nfn == 3 ? L[a] : L[a] * (2 * L[a] - 1);
      for (PetscInt d = 0; d < 2; d++) dN[2 * a + d] = nfn == 3 ? dL[a][d] : (4 * L[a] - 1) * dL[a][d];
    }
    for (PetscInt e = 0; e < 3 && nfn == 6; e++) {
      const PetscInt i = e, j = (e + 1) % 3;

      N[3 + e] = 4 * L[i] * L[j];
      for (PetscInt d = 0; d < 2; d++) dN[2 * (3 + e) + d] = 4 * (L[i] * dL[j][d] + L[j] * dL[i][d]);
    }
  } else {
    static const PetscInt ref[9][2] = {
        {-1, -1},
        {1,  -1},
        {1,  1 },
        {-1, 1 },
        {0,  -1},
        {1,  0 },
        {0,  1 },
        {-1, 0 },
        {0,  0 }
    };
    const PetscReal x[2] = {xi, eta};

    for (PetscInt a = 0; a < nfn; a++) {
      PetscReal l[2], dl[2];

      for (PetscInt d = 0; d < 2; d++) {
        const PetscInt at = ref[a][d];

        if (nfn == 4) {
          l[d]  = 0.5 * (1 + at * x[d]);
          dl[d] = 0.5 * at;
        } else if (at == 0) {
          l[d]  = 1 - x[d] * x[d];
          dl[d] = -2 * x[d];
        } else {
          l[d]  = 0.5 * x[d] * (x[d] + at);
          dl[d] = x[d] + 0.5 * at;
        }
      }
      N[a]          = l[0] * l[1];
      dN[2 * a]     = dl[0] * l[1];
      dN[2 * a + 1] = l[0] * dl[1];
    }
  }
}

/*
  The face quadrature of a load with nfn > 3 nodes per face: PETSc's rules (PetscDTStroudConicalQuadrature()
  on triangles, PetscDTGaussTensorQuadrature() on quadrangles), 3 points per direction: exact to
  degree 5, so the follower pressure's force N_a (x_xi x x_eta), its tangent and its potential
  x . (x_xi x x_eta) / 3 are integrated exactly on 6-node triangles (degree 4) and 9-node
  quadrangles (degree 5 per direction)
*/
static PetscErrorCode SolidLoadFaceRule(SolidLoad *ld)
{
  PetscQuadrature  q;
  const PetscReal *pts, *wts;
  PetscInt         nq;
  const PetscBool  tri = ld->nfn == 6 ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBegin;
  if (tri) PetscCall(PetscDTStroudConicalQuadrature(2, 1, 3, -1.0, 1.0, &q));
  else PetscCall(PetscDTGaussTensorQuadrature(2, 1, 3, -1.0, 1.0, &q));
  PetscCall(PetscQuadratureGetData(q, NULL, NULL, &nq, &pts, &wts));
  ld->nq = nq;
  PetscCall(PetscMalloc3(nq, &ld->qw, nq * ld->nfn, &ld->qN, 2 * nq * ld->nfn, &ld->qdN));
  for (PetscInt k = 0; k < nq; k++) {
    /* PETSc's reference triangle (-1,-1), (1,-1), (-1,1) to the unit triangle */
    const PetscReal xi = tri ? 0.5 * (pts[2 * k] + 1) : pts[2 * k], eta = tri ? 0.5 * (pts[2 * k + 1] + 1) : pts[2 * k + 1];

    ld->qw[k] = tri ? 0.25 * wts[k] : wts[k];
    SolidFaceShape(ld->nfn, xi, eta, &ld->qN[k * ld->nfn], &ld->qdN[2 * k * ld->nfn]);
  }
  PetscCall(PetscQuadratureDestroy(&q));
  PetscFunctionReturn(0);
}

/* x_xi and x_eta at point k of face f from positions x (3 nfn) */
static inline void SolidFaceTangents(const SolidLoad *ld, PetscInt k, const PetscReal x[], PetscReal xs[3], PetscReal xe[3])
{
  const PetscReal *dN = &ld->qdN[2 * k * ld->nfn];

  for (PetscInt i = 0; i < 3; i++) xs[i] = xe[i] = 0;
  for (PetscInt a = 0; a < ld->nfn; a++)
    for (PetscInt i = 0; i < 3; i++) {
      xs[i] += dN[2 * a] * x[3 * a + i];
      xe[i] += dN[2 * a + 1] * x[3 * a + i];
    }
}

static inline void SolidCross(const PetscReal u[3], const PetscReal v[3], PetscReal w[3])
{
  w[0] = u[1] * v[2] - u[2] * v[1];
  w[1] = u[2] * v[0] - u[0] * v[2];
  w[2] = u[0] * v[1] - u[1] * v[0];
}

/* The face's nodes' positions (3 nfn) from the local array x */
static inline void SolidFaceGather(const SolidLoad *ld, PetscInt f, const PetscScalar x[], PetscReal xf[])
{
  for (PetscInt a = 0; a < ld->nfn; a++)
    for (PetscInt i = 0; i < 3; i++) xf[3 * a + i] = PetscRealPart(x[ld->lo[ld->nfn * f + a] + i]);
}

/*
  The corners fv[0..nc) of face f of idm in cyclic order, along the face's edges (a triangle's
  closure order is one)
*/
static PetscErrorCode SolidFaceCorners(DM idm, PetscInt f, PetscInt nc, PetscInt vStart, PetscInt vEnd, PetscInt fv[4])
{
  PetscInt       *closure = NULL, ncl, nv = 0;
  const PetscInt *cone;

  PetscFunctionBegin;
  PetscCall(DMPlexGetCone(idm, f, &cone));
  PetscCall(DMPlexGetTransitiveClosure(idm, f, PETSC_TRUE, &ncl, &closure));
  for (PetscInt j = 0; j < ncl; j++)
    if (closure[2 * j] >= vStart && closure[2 * j] < vEnd && nv < 4) fv[nv++] = closure[2 * j];
  PetscCall(DMPlexRestoreTransitiveClosure(idm, f, PETSC_TRUE, &ncl, &closure));
  PetscCheck(nv == nc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Face %" PetscInt_FMT " has %" PetscInt_FMT " vertices", f, nv);
  if (nc == 4) {
    PetscInt cyc[4] = {fv[0], -1, -1, -1};

    for (PetscInt j = 1; j < 4; j++)
      for (PetscInt e = 0; e < 4 && cyc[j] < 0; e++) {
        const PetscInt *ev;

        PetscCall(DMPlexGetCone(idm, cone[e], &ev));
        if ((ev[0] == cyc[j - 1] || ev[1] == cyc[j - 1]) && (j == 1 || (ev[0] != cyc[j - 2] && ev[1] != cyc[j - 2]))) cyc[j] = ev[0] == cyc[j - 1] ? ev[1] : ev[0];
      }
    for (PetscInt j = 0; j < 4; j++) fv[j] = cyc[j];
  }
  PetscFunctionReturn(0);
}

/*
  Turns the face's corners fv and their positions X to the outward order (the centroid of the corners
  of the face's cell, cell, lies behind it: the right-hand rule's normal n points away from it);
  n is the normal (u x w of the diagonals or edges) after the check. xr, ls: the reference
  positions and the local section of s->dm, whose vertex v is idm's vertex v - vshift.
*/
static PetscErrorCode SolidFaceOrientOutward(DM idm, PetscInt cell, PetscSection ls, const PetscScalar xr[], PetscInt vshift, PetscInt nc, PetscInt fv[4], PetscReal X[][3], PetscReal n[3])
{
  PetscInt *closure = NULL, ncl, vStart, vEnd, ncv = 0;
  PetscReal ctr[3] = {0, 0, 0}, fc[3] = {0, 0, 0}, d[3], u[3], w[3];

  PetscFunctionBegin;
  PetscCall(DMPlexGetDepthStratum(idm, 0, &vStart, &vEnd));
  PetscCall(DMPlexGetTransitiveClosure(idm, cell, PETSC_TRUE, &ncl, &closure));
  for (PetscInt j = 0; j < ncl; j++) {
    const PetscInt p = closure[2 * j];

    if (p >= vStart && p < vEnd) {
      PetscInt off;

      PetscCall(PetscSectionGetOffset(ls, p + vshift, &off));
      for (PetscInt i = 0; i < 3; i++) ctr[i] += PetscRealPart(xr[off + i]);
      ncv++;
    }
  }
  PetscCall(DMPlexRestoreTransitiveClosure(idm, cell, PETSC_TRUE, &ncl, &closure));
  for (PetscInt i = 0; i < 3; i++) {
    for (PetscInt a = 0; a < nc; a++) fc[i] += X[a][i] / nc;
    d[i] = ctr[i] / ncv - fc[i];
    u[i] = X[nc == 3 ? 1 : 2][i] - X[0][i];
    w[i] = X[nc == 3 ? 2 : 3][i] - X[nc == 3 ? 0 : 1][i];
  }
  SolidCross(u, w, n);
  if (n[0] * d[0] + n[1] * d[1] + n[2] * d[2] > 0) {
    /* reversed: corners 0, nc-1, ..., 1 */
    for (PetscInt a = 1; a <= (nc - 1) / 2; a++) {
      const PetscInt t = fv[a];

      fv[a]      = fv[nc - a];
      fv[nc - a] = t;
      for (PetscInt i = 0; i < 3; i++) {
        const PetscReal x = X[a][i];

        X[a][i]      = X[nc - a][i];
        X[nc - a][i] = x;
      }
    }
  }
  PetscFunctionReturn(0);
}

/*
  The quadratic face's further nodes after its nc corners fv: the edge (a, a+1) of the cycle (the
  edge of face f with these two vertices), then the face itself when it carries a node (nfn = 2 nc + 1)
*/
static PetscErrorCode SolidFaceEdgeNodes(DM idm, PetscInt f, PetscInt nc, PetscInt nfn, const PetscInt fv[4], PetscInt node[9])
{
  const PetscInt *cone;

  PetscFunctionBegin;
  PetscCall(DMPlexGetCone(idm, f, &cone));
  for (PetscInt a = 0; a < nc; a++) {
    PetscInt fe = -1;

    for (PetscInt e = 0; e < nc; e++) {
      const PetscInt *ev;

      PetscCall(DMPlexGetCone(idm, cone[e], &ev));
      if ((ev[0] == fv[a] && ev[1] == fv[(a + 1) % nc]) || (ev[1] == fv[a] && ev[0] == fv[(a + 1) % nc])) fe = cone[e];
    }
    PetscCheck(fe >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Face %" PetscInt_FMT ": no edge between two of its corners", f);
    node[nc + a] = fe;
  }
  if (nfn == 2 * nc + 1) node[2 * nc] = f;
  PetscFunctionReturn(0);
}

/*
  Stores face nf of ld: its nodes' local and global dof offsets and reference positions X, its
  area A (a triangle's from its normal n: |n| / 2) and the nodes' weights W_a = int N_a dA0 by the
  face rule (their sum the area)
*/
static PetscErrorCode SolidLoadStoreFace(SolidLoad *ld, PetscInt nf, PetscSection ls, PetscSection gs, const PetscInt node[9], PetscReal X[][3], const PetscReal n[3])
{
  const PetscInt nfn = ld->nfn;

  PetscFunctionBegin;
  for (PetscInt a = 0; a < nfn; a++) {
    PetscInt off;

    PetscCall(PetscSectionGetOffset(ls, node[a], &ld->lo[nfn * nf + a]));
    PetscCall(PetscSectionGetOffset(gs, node[a], &off));
    ld->go[nfn * nf + a] = off >= 0 ? off : -(off + 1);
    for (PetscInt i = 0; i < 3; i++) ld->X[3 * nfn * nf + 3 * a + i] = X[a][i];
  }
  if (nfn == 3) ld->A[nf] = 0.5 * PetscSqrtReal(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  else {
    const PetscReal *Xf = &ld->X[3 * nfn * nf];
    PetscReal       *W  = &ld->W[nfn * nf];

    ld->A[nf] = 0;
    for (PetscInt a = 0; a < nfn; a++) W[a] = 0;
    for (PetscInt q = 0; q < ld->nq; q++) {
      PetscReal xs[3], xe[3], m[3], da;

      SolidFaceTangents(ld, q, Xf, xs, xe);
      SolidCross(xs, xe, m);
      da = ld->qw[q] * PetscSqrtReal(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
      for (PetscInt a = 0; a < nfn; a++) W[a] += da * ld->qN[q * nfn + a];
    }
    for (PetscInt a = 0; a < nfn; a++) ld->A[nf] += W[a];
  }
  PetscFunctionReturn(0);
}

/*
  The nodes of a face of idm (the layout is one kind of cell): its corners, its edges' and its own
  (those of s->dm's local section that carry dofs)
*/
static PetscErrorCode SolidFaceNodeCount(Solid *s, DM idm, PetscInt *nfn)
{
  PetscSection ls;
  PetscInt     fStart, fEnd, ncone, dof;

  PetscFunctionBegin;
  *nfn = 0;
  PetscCall(DMGetLocalSection(s->dm, &ls));
  PetscCall(DMPlexGetHeightStratum(idm, 1, &fStart, &fEnd));
  if (fEnd > fStart) {
    PetscCall(DMPlexGetConeSize(idm, fStart, &ncone));
    *nfn = ncone;
    if (idm == s->dm) {
      const PetscInt *cone;

      PetscCall(DMPlexGetCone(idm, fStart, &cone));
      PetscCall(PetscSectionGetDof(ls, cone[0], &dof));
      if (dof > 0) *nfn += ncone;
      PetscCall(PetscSectionGetDof(ls, fStart, &dof));
      if (dof > 0) (*nfn)++;
    }
  }
  PetscFunctionReturn(0);
}

/*
  The points of idm shared with other ranks: leaves of the point SF here (leaf[p - pStart]), or
  roots that other ranks hold as leaves (degree[p - pStart] > 0, p - pStart < nroots; degree NULL
  without an SF graph)
*/
static PetscErrorCode SolidSharedPoints(DM idm, PetscBool **leaf, const PetscInt **degree, PetscInt *nroots)
{
  PetscSF         sf;
  const PetscInt *ilocal = NULL;
  PetscInt        nleaves, pStart, pEnd;

  PetscFunctionBegin;
  *degree = NULL;
  PetscCall(DMPlexGetChart(idm, &pStart, &pEnd));
  PetscCall(PetscCalloc1(pEnd - pStart + 1, leaf));
  PetscCall(DMGetPointSF(idm, &sf));
  PetscCall(PetscSFGetGraph(sf, nroots, &nleaves, &ilocal, NULL));
  if (*nroots >= 0) {
    for (PetscInt k = 0; k < nleaves; k++) (*leaf)[(ilocal ? ilocal[k] : k) - pStart] = PETSC_TRUE;
    PetscCall(PetscSFComputeDegreeBegin(sf, degree));
    PetscCall(PetscSFComputeDegreeEnd(sf, degree));
  }
  PetscFunctionReturn(0);
}

/*
  The faces of load ld in the interpolated DM idm (s->dm or an interpolated copy of the beam, whose
  vertex point v is s->dm's vertex v + vshift): with label (not NULL) the boundary faces of its
  stratum value, else those whose corners the selection sel holds (select.c). Fills ld's
  face arrays (this rank's faces): per face its nodes in outward order (the corners in cyclic
  order, the outward normal by the right-hand rule; then the nodes of its edges (0,1), (1,2), ...;
  then the face's own node), their dof offsets (the local section of s->dm: the nodes of the
  element layout, solidimpl.h) and reference positions (s->Xref). nother counts the label's points
  that are no face, ninside its faces that are inside the body (each counted by the rank that owns
  it).
*/
static PetscErrorCode SolidLoadFindFaces(Solid *s, DM idm, PetscInt vshift, DMLabel label, PetscInt value, const SolidSelection *sel, SolidLoad *ld, PetscInt *nother, PetscInt *ninside)
{
  PetscSection       ls, gs;
  const PetscScalar *xr;
  const PetscInt    *degree = NULL, *pts = NULL;
  PetscInt           nroots, pStart, pEnd, fStart, fEnd, vStart, vEnd, cStart, cEnd, npts = 0, nf = 0, nfn = 0;
  PetscBool         *leaf;
  IS                 is = NULL;

  PetscFunctionBegin;
  *nother = *ninside = 0;
  PetscCall(DMGetLocalSection(s->dm, &ls));
  PetscCall(DMGetGlobalSection(s->dm, &gs));
  PetscCall(DMPlexGetChart(idm, &pStart, &pEnd));
  PetscCall(DMPlexGetHeightStratum(idm, 1, &fStart, &fEnd));
  PetscCall(DMPlexGetHeightStratum(idm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(idm, 0, &vStart, &vEnd));
  PetscCall(SolidSharedPoints(idm, &leaf, &degree, &nroots));
  if (label) {
    PetscCall(DMLabelGetStratumIS(label, value, &is));
    if (is) {
      PetscCall(ISGetLocalSize(is, &npts));
      PetscCall(ISGetIndices(is, &pts));
    }
  } else npts = fEnd - fStart;
  PetscCall(SolidFaceNodeCount(s, idm, &nfn));
  ld->nfn = nfn;
  PetscCall(PetscMalloc4(nfn * npts + 1, &ld->lo, nfn * npts + 1, &ld->go, 3 * nfn * npts + 1, &ld->X, npts + 1, &ld->A));
  PetscCall(PetscMalloc1(nfn * npts + 1, &ld->W));
  if (nfn > 3) PetscCall(SolidLoadFaceRule(ld));
  PetscCall(VecGetArrayRead(s->Xref, &xr));
  for (PetscInt k = 0; k < npts; k++) {
    const PetscInt  f  = label ? pts[k] : fStart + k;
    const PetscInt  nc = nfn == 3 || nfn == 6 ? 3 : 4;
    PetscBool       shared;
    PetscInt        ss, fv[4], node[9], ncone;
    const PetscInt *supp;
    PetscReal       X[9][3], n[3] = {0, 0, 0};

    if (f < fStart || f >= fEnd) {
      (*nother)++;
      continue;
    }
    shared = leaf[f - pStart] || (degree && f - pStart < nroots && degree[f - pStart] > 0) ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(DMPlexGetSupportSize(idm, f, &ss));
    PetscCall(DMPlexGetSupport(idm, f, &supp));
    PetscCall(DMPlexGetConeSize(idm, f, &ncone));
    PetscCheck(ncone == nc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Face %" PetscInt_FMT " has %" PetscInt_FMT " edges, %" PetscInt_FMT " expected", f, ncone, nc);
    PetscCall(SolidFaceCorners(idm, f, nc, vStart, vEnd, fv));
    for (PetscInt a = 0; a < nc; a++) {
      PetscInt off;

      PetscCall(PetscSectionGetOffset(ls, fv[a] + vshift, &off));
      for (PetscInt i = 0; i < 3; i++) X[a][i] = PetscRealPart(xr[off + i]);
    }
    if (!label && !SolidSelectionHoldsFace(sel, (const PetscReal(*)[3])X, nc)) continue;
    if (ss != 1 || shared) {
      /* inside the body: counted once, by the rank that owns the face */
      if (label && !leaf[f - pStart]) (*ninside)++;
      continue;
    }
    PetscCheck(supp[0] >= cStart && supp[0] < cEnd, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Face %" PetscInt_FMT " is not on a cell", f);
    PetscCall(SolidFaceOrientOutward(idm, supp[0], ls, xr, vshift, nc, fv, X, n));
    for (PetscInt a = 0; a < nc; a++) node[a] = fv[a] + vshift;
    if (nfn > nc) {
      PetscCall(SolidFaceEdgeNodes(idm, f, nc, nfn, fv, node));
      for (PetscInt a = nc; a < nfn; a++) {
        PetscInt off;

        PetscCall(PetscSectionGetOffset(ls, node[a], &off));
        for (PetscInt i = 0; i < 3; i++) X[a][i] = PetscRealPart(xr[off + i]);
      }
    }
    PetscCall(SolidLoadStoreFace(ld, nf, ls, gs, node, X, n));
    nf++;
  }
  PetscCall(VecRestoreArrayRead(s->Xref, &xr));
  if (is) {
    PetscCall(ISRestoreIndices(is, &pts));
    PetscCall(ISDestroy(&is));
  }
  PetscCall(PetscFree(leaf));
  ld->nf = nf;
  PetscFunctionReturn(0);
}

/*
  Reads the options of the loads (-solid_load NAMES and -solid_load_NAME_*), finds their faces,
  records them in the system's parameters (each load's value, faces and time function:
  records.c) and marks the tangent non-symmetric when a follower pressure acts. what names the
  mesh in messages; tol is the plane tolerance of -solid_load_NAME_where.
*/
PetscErrorCode SolidSetUpLoads(Solid *s, MechSystem sys, const char what[], PetscReal tol)
{
  MPI_Comm  comm       = PetscObjectComm((PetscObject)sys);
  char      list[1024] = "", *names[SOLID_MAX_LOADS];
  PetscBool set;
  PetscInt  n      = 0, depth;
  DM        idm    = NULL; /* an interpolated copy of the beam: s->facedm, freed on any error */
  PetscInt  vshift = 0;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "Loads of the solid", "MechCreateSolid");
  PetscCall(MechOptionsString("-solid_load", "Names of the loads on boundary faces (comma-separated)", "MechCreateSolid", list, list, sizeof(list), &set));
  PetscOptionsEnd();
  if (!set) PetscFunctionReturn(0);
  /* the names: letters, digits and underscores, distinct */
  for (char *p = list, *q; p;) {
    q = strchr(p, ',');
    if (q) *q = 0;
    PetscCheck(n < SOLID_MAX_LOADS, comm, PETSC_ERR_ARG_OUTOFRANGE, "-solid_load: at most %d loads; %.64s is load %d", SOLID_MAX_LOADS, p, (int)n + 1);
    PetscCheck(*p, comm, PETSC_ERR_ARG_WRONG, "-solid_load: a name in the list is empty");
    for (char *c = p; *c; c++) PetscCheck(isalnum((unsigned char)*c) || *c == '_', comm, PETSC_ERR_ARG_WRONG, "-solid_load %s: a load's name has letters, digits and underscores only", p);
    PetscCheck(strlen(p) < sizeof(s->loads[0].name), comm, PETSC_ERR_ARG_WRONG, "-solid_load %s: a name has at most %d characters", p, (int)sizeof(s->loads[0].name) - 1);
    for (PetscInt k = 0; k < n; k++) PetscCheck(strcmp(names[k], p), comm, PETSC_ERR_ARG_WRONG, "-solid_load: the name %s is given twice", p);
    names[n++] = p;
    p          = q ? q + 1 : NULL;
  }
  PetscCall(PetscCalloc1(n, &s->loads));
  PetscCall(DMPlexGetDepth(s->dm, &depth));
  for (PetscInt l = 0; l < n; l++) {
    SolidLoad     *ld = &s->loads[l];
    char           opt[8][96], prefix[96], spec[PETSC_MAX_PATH_LEN + 16] = "constant", title[160];
    PetscBool      setk[3], settime;
    PetscInt       nother, ninside, nsel, axis, nset = 0;
    PetscReal      pvalue, val[3][3] = {{0}}, area;
    DMLabel        label = NULL;
    SolidSelection where;
    const char    *sel = where.text;

    s->nloads = l + 1; /* what SolidLoadsDestroy() frees on an error below */
    PetscCall(PetscStrncpy(ld->name, names[l], sizeof(ld->name)));
    {
      const char *suffix[8] = {"label", "value", "group", "where", SolidLoadKinds[0].name, SolidLoadKinds[1].name, SolidLoadKinds[2].name, "time"};

      for (PetscInt k = 0; k < 8; k++) PetscCall(PetscSNPrintf(opt[k], sizeof(opt[k]), "-solid_load_%s_%s", ld->name, suffix[k]));
    }
    /* its faces: _label/_value, _group or _where (select.c) */
    PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "-solid_load_%s", ld->name));
    PetscCall(SolidSelectionFromOptions(s, prefix, what, tol, &nsel, &where));
    PetscCheck(nsel == 1, comm, PETSC_ERR_ARG_WRONG, "-solid_load %s: give its faces with one of %s (with %s), %s or %s%s", ld->name, opt[0], opt[1], opt[2], opt[3], nsel ? ", not several" : "");
    PetscCall(PetscSNPrintf(title, sizeof(title), "The load %s of the solid", ld->name));
    PetscOptionsBegin(comm, NULL, title, "MechCreateSolid");
    for (PetscInt k = 0; k < SOLID_NLOADKINDS; k++) {
      if (SolidLoadKinds[k].nvalues == 1) PetscCall(MechOptionsReal(opt[4 + k], SolidLoadKinds[k].help, "MechCreateSolid", val[k][0], &val[k][0], &setk[k]));
      else PetscCall(MechOptionsRealList(opt[4 + k], SolidLoadKinds[k].help, "MechCreateSolid", val[k], 3, &setk[k]));
    }
    PetscCall(MechOptionsString(opt[7], "Time function: constant, ramp:T, hat:T1,T2, sin:OMEGA, table:FILE", "MechCreateSolid", spec, spec, sizeof(spec), &settime));
    PetscOptionsEnd();
    for (PetscInt k = 0; k < SOLID_NLOADKINDS; k++) {
      if (!setk[k]) continue;
      ld->ops = &SolidLoadKinds[k];
      nset++;
    }
    PetscCheck(nset == 1, comm, PETSC_ERR_ARG_WRONG, "-solid_load %s: give one of %s, %s or %s", ld->name, opt[4], opt[5], opt[6]);
    for (PetscInt k = 0; k < SOLID_NLOADKINDS; k++) {
      const PetscReal *v = val[k];

      for (PetscInt i = 0; i < SolidLoadKinds[k].nvalues; i++) {
        if (SolidLoadKinds[k].nvalues == 1) PetscCheck(PetscIsNormalReal(v[i]) || v[i] == 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %g: must be finite", opt[4 + k], (double)v[0]);
        else PetscCheck(PetscIsNormalReal(v[i]) || v[i] == 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %g,%g,%g: each must be finite", opt[4 + k], (double)v[0], (double)v[1], (double)v[2]);
      }
    }
    {
      const PetscReal *v = val[ld->ops - SolidLoadKinds];

      ld->p = ld->ops->nvalues == 1 ? v[0] : 0;
      for (PetscInt i = 0; i < 3; i++) ld->value[i] = ld->ops->nvalues == 3 ? v[i] : 0;
    }
    PetscCall(MechTimeFunctionCreate(comm, spec, opt[7], &ld->tf));
    PetscCall(MechSystemAddTimeFunctionKinks(sys, ld->tf));

    /* the faces: of a label, a physical group or a plane, in an interpolated mesh (the beam is
       built without faces: an interpolated copy gives them, its vertices those of the beam) */
    if (depth != 3 && !idm) {
      PetscInt v0, v1, w0, w1;

      PetscCall(DMPlexInterpolate(s->dm, &s->facedm));
      idm = s->facedm;
      PetscCall(DMPlexGetDepthStratum(s->dm, 0, &v0, &v1));
      PetscCall(DMPlexGetDepthStratum(idm, 0, &w0, &w1));
      PetscCheck(v1 - v0 == w1 - w0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The interpolated mesh has %" PetscInt_FMT " vertices, the mesh %" PetscInt_FMT, w1 - w0, v1 - v0);
      vshift = v0 - w0;
    }
    if (where.kind == SOLID_SELECT_LABEL) {
      PetscCall(DMGetLabel(idm ? idm : s->dm, where.label, &label));
      PetscCheck(label, comm, PETSC_ERR_ARG_WRONG, "%s %s: %s has no such label", opt[0], where.label, what);
    }
    PetscCall(SolidLoadFindFaces(s, idm ? idm : s->dm, vshift, label, where.value, &where, ld, &nother, &ninside));
    {
      PetscInt loc[3] = {ld->nf, nother, ninside}, tot[3];

      PetscCall(MPIU_Allreduce(loc, tot, 3, MPIU_INT, MPI_SUM, comm));
      ld->NF = tot[0];
      if (tot[2]) {
        SETERRQ(comm, PETSC_ERR_ARG_WRONG, "%s: marks faces inside %s; a load acts on boundary faces", sel, what);
      }
      if (!tot[0]) {
        if (SolidSelectionIsPlane(&where, &axis, &pvalue)) SETERRQ(comm, PETSC_ERR_ARG_WRONG, "%s: no boundary face of %s lies on the plane %c = %g", sel, what, SolidLoadAxes[axis], (double)pvalue);
        if (where.kind != SOLID_SELECT_LABEL) SETERRQ(comm, PETSC_ERR_ARG_WRONG, "%s: no boundary face of %s satisfies it", sel, what);
        SETERRQ(comm, PETSC_ERR_ARG_WRONG, "%s: marks no face of %s%s; a load acts on boundary faces", sel, what, tot[1] ? " (only cells, edges or vertices)" : "");
      }
    }
    PetscCall(SolidSelectionDestroy(&where));
    area = 0;
    for (PetscInt k = 0; k < ld->nf; k++) area += ld->A[k];
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &area, 1, MPIU_REAL, MPIU_SUM, comm));
    ld->area = area;
    /* a total force becomes the traction F / A0 of the faces' reference area */
    for (PetscInt i = 0; i < 3; i++) ld->t0[i] = ld->ops->total ? ld->value[i] / area : ld->value[i];
    if (ld->ops->follower) s->follower = PETSC_TRUE;
    /* a restart with another load is refused: the checkpoint records its value, faces and time (records.c) */
    PetscCall(SolidRecordLoad(sys, ld, sel));
    PetscCall(PetscInfo(s->dm, "load %s: %s, %" PetscInt_FMT " faces of reference area %g\n", ld->name, sel, ld->NF, (double)area));
  }
  PetscCall(DMDestroy(&s->facedm));
  if (s->follower) {
    char why[256];

    for (PetscInt l = 0; l < n; l++)
      if (s->loads[l].ops->follower) {
        PetscCall(PetscSNPrintf(why, sizeof(why), "-solid_load %s is a follower pressure, whose load stiffness makes the tangent non-symmetric", s->loads[l].name));
        break;
      }
    PetscCall(MechSystemSetTangentNonsymmetric(sys, why));
  }
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* The load kinds: dead (a traction, or a total force spread as one) and follower pressure     */
/* ------------------------------------------------------------------------------------------ */

/* y (the local force array) += a dead load's part of f, phi times its traction t0 */
static void DeadAddForce(const SolidLoad *ld, PetscReal phi, const PetscScalar x[], PetscScalar y[])
{
  (void)x;
  if (ld->nfn > 3) {
    /* quadratic triangles, quadrangles: node a gets W_a t0 */
    const PetscInt nfn = ld->nfn;

    for (PetscInt k = 0; k < ld->nf; k++) {
      const PetscInt *o = &ld->lo[nfn * k];

      for (PetscInt a = 0; a < nfn; a++)
        for (PetscInt i = 0; i < 3; i++) y[o[a] + i] -= phi * ld->W[nfn * k + a] * ld->t0[i];
    }
    return;
  }
  /* every vertex A0 t0 / 3, moved to the left-hand side */
  for (PetscInt k = 0; k < ld->nf; k++) {
    const PetscReal c = -phi * ld->A[k] / 3;

    for (PetscInt a = 0; a < 3; a++)
      for (PetscInt i = 0; i < 3; i++) y[ld->lo[3 * k + a] + i] += c * ld->t0[i];
  }
}

/* y (the local force array) += a follower pressure's part of f at the positions x (local array) */
static void PressureAddForce(const SolidLoad *ld, PetscReal phi, const PetscScalar x[], PetscScalar y[])
{
  if (ld->nfn > 3) {
    /* quadratic triangles, quadrangles: p int N_a (x_xi x x_eta) */
    const PetscInt nfn = ld->nfn;

    for (PetscInt k = 0; k < ld->nf; k++) {
      const PetscInt *o = &ld->lo[nfn * k];
      PetscReal       xf[27];

      SolidFaceGather(ld, k, x, xf);
      for (PetscInt q = 0; q < ld->nq; q++) {
        PetscReal xs[3], xe[3], n[3];

        SolidFaceTangents(ld, q, xf, xs, xe);
        SolidCross(xs, xe, n);
        for (PetscInt a = 0; a < nfn; a++) {
          const PetscReal c = phi * ld->p * ld->qw[q] * ld->qN[q * nfn + a];

          for (PetscInt i = 0; i < 3; i++) y[o[a] + i] += c * n[i];
        }
      }
    }
    return;
  }
  {
    /* every vertex p (x2 - x1) x (x3 - x1) / 6 on the left-hand side */
    const PetscReal c = phi * ld->p / 6;

    for (PetscInt k = 0; k < ld->nf; k++) {
      const PetscInt *o = &ld->lo[3 * k];
      PetscReal       u[3], w[3], n[3];

      for (PetscInt i = 0; i < 3; i++) {
        u[i] = x[o[1] + i] - x[o[0] + i];
        w[i] = x[o[2] + i] - x[o[0] + i];
      }
      n[0] = u[1] * w[2] - u[2] * w[1];
      n[1] = u[2] * w[0] - u[0] * w[2];
      n[2] = u[0] * w[1] - u[1] * w[0];
      for (PetscInt a = 0; a < 3; a++)
        for (PetscInt i = 0; i < 3; i++) y[o[a] + i] += c * n[i];
    }
  }
}

/*
  A follower pressure's load stiffness, scale times d f / d q at phi, added into J (not assembled).
  With f_a = c (x2 - x1) x (x3 - x1), c = phi p / 6, for every vertex a of the face
  d f_a / d x_b = c [d_b]x, d_b = x_{b+2} - x_{b+1} (cyclic), [d]x w = d x w: the same block row
  for the three vertices, so the block (a, b) and the block (b, a) differ: not symmetric.
*/
static PetscErrorCode PressureAddTangent(const SolidLoad *ld, PetscReal scale, PetscReal phi, const PetscScalar x[], Mat J)
{
  PetscReal Ke[81];
  PetscInt  idx[9];

  PetscFunctionBegin;
  if (ld->nfn > 3) {
    /* K_ab = c sum_q w_q N_a (dN_b/deta [x_xi]x - dN_b/dxi [x_eta]x), c = scale phi p */
    const PetscInt nfn = ld->nfn;
    PetscReal     *Kf;
    PetscInt       idf[27];

    PetscCall(PetscMalloc1(9 * nfn * nfn, &Kf));
    for (PetscInt k = 0; k < ld->nf; k++) {
      PetscReal xf[27];

      SolidFaceGather(ld, k, x, xf);
      PetscCall(PetscArrayzero(Kf, 9 * nfn * nfn));
      for (PetscInt q = 0; q < ld->nq; q++) {
        PetscReal        xs[3], xe[3];
        const PetscReal *dN = &ld->qdN[2 * q * nfn];

        SolidFaceTangents(ld, q, xf, xs, xe);
        for (PetscInt b = 0; b < nfn; b++) {
          PetscReal m[3], S[9];

          /* [m]x with m = dN_b/deta x_xi - dN_b/dxi x_eta */
          for (PetscInt i = 0; i < 3; i++) m[i] = dN[2 * b + 1] * xs[i] - dN[2 * b] * xe[i];
          S[0] = 0;
          S[1] = -m[2];
          S[2] = m[1];
          S[3] = m[2];
          S[4] = 0;
          S[5] = -m[0];
          S[6] = -m[1];
          S[7] = m[0];
          S[8] = 0;
          for (PetscInt a = 0; a < nfn; a++) {
            const PetscReal c = scale * phi * ld->p * ld->qw[q] * ld->qN[q * nfn + a];

            for (PetscInt i = 0; i < 3; i++)
              for (PetscInt j = 0; j < 3; j++) Kf[(3 * a + i) * 3 * nfn + 3 * b + j] += c * S[3 * i + j];
          }
        }
      }
      for (PetscInt a = 0; a < nfn; a++)
        for (PetscInt i = 0; i < 3; i++) idf[3 * a + i] = ld->go[nfn * k + a] + i;
      PetscCall(MatSetValues(J, 3 * nfn, idf, 3 * nfn, idf, Kf, ADD_VALUES));
    }
    PetscCall(PetscFree(Kf));
    PetscFunctionReturn(0);
  }
  for (PetscInt k = 0; k < ld->nf; k++) {
    const PetscInt *o = &ld->lo[3 * k];
    const PetscReal c = scale * phi * ld->p / 6;

    for (PetscInt b = 0; b < 3; b++) {
      const PetscInt b1 = (b + 1) % 3, b2 = (b + 2) % 3;
      PetscReal      d[3], S[9];

      for (PetscInt i = 0; i < 3; i++) d[i] = c * (x[o[b2] + i] - x[o[b1] + i]);
      S[0] = 0;
      S[1] = -d[2];
      S[2] = d[1];
      S[3] = d[2];
      S[4] = 0;
      S[5] = -d[0];
      S[6] = -d[1];
      S[7] = d[0];
      S[8] = 0;
      for (PetscInt a = 0; a < 3; a++)
        for (PetscInt i = 0; i < 3; i++)
          for (PetscInt j = 0; j < 3; j++) Ke[(3 * a + i) * 9 + 3 * b + j] = S[3 * i + j];
    }
    for (PetscInt a = 0; a < 3; a++)
      for (PetscInt i = 0; i < 3; i++) idx[3 * a + i] = ld->go[3 * k + a] + i;
    PetscCall(MatSetValues(J, 9, idx, 9, idx, Ke, ADD_VALUES));
  }
  PetscFunctionReturn(0);
}

/* Keeps what a follower pressure's stiffness action needs: the faces' positions and cK phi p (/ 6) */
static PetscErrorCode PressureLinearize(SolidLoad *ld, PetscReal cK, PetscReal phi, const PetscScalar x[])
{
  PetscFunctionBegin;
  ld->clin = ld->nfn > 3 ? cK * phi * ld->p : cK * phi * ld->p / 6;
  if (!ld->xs) PetscCall(PetscMalloc1(3 * ld->nfn * ld->nf + 1, &ld->xs));
  for (PetscInt k = 0; k < ld->nf; k++) SolidFaceGather(ld, k, x, &ld->xs[3 * ld->nfn * k]);
  PetscFunctionReturn(0);
}

/* y (local array) += a follower pressure's stiffness at the last linearization applied to w (local array) */
static void PressureApply(const SolidLoad *ld, const PetscScalar w[], PetscScalar y[])
{
  if (ld->nfn > 3) {
    /* y_a += clin sum_q w_q N_a (dx_xi x x_eta + x_xi x dx_eta), dx from w */
    const PetscInt nfn = ld->nfn;

    for (PetscInt k = 0; k < ld->nf; k++) {
      const PetscInt  *o  = &ld->lo[nfn * k];
      const PetscReal *xf = &ld->xs[3 * nfn * k];
      PetscReal        wf[27];

      SolidFaceGather(ld, k, w, wf);
      for (PetscInt q = 0; q < ld->nq; q++) {
        PetscReal xs[3], xe[3], ws[3], we[3], m1[3], m2[3];

        SolidFaceTangents(ld, q, xf, xs, xe);
        SolidFaceTangents(ld, q, wf, ws, we);
        SolidCross(ws, xe, m1);
        SolidCross(xs, we, m2);
        for (PetscInt a = 0; a < nfn; a++) {
          const PetscReal c = ld->clin * ld->qw[q] * ld->qN[q * nfn + a];

          for (PetscInt i = 0; i < 3; i++) y[o[a] + i] += c * (m1[i] + m2[i]);
        }
      }
    }
    return;
  }
  for (PetscInt k = 0; k < ld->nf; k++) {
    const PetscInt  *o    = &ld->lo[3 * k];
    const PetscReal *xs   = &ld->xs[9 * k];
    PetscReal        r[3] = {0, 0, 0};

    for (PetscInt b = 0; b < 3; b++) {
      const PetscInt   b1 = (b + 1) % 3, b2 = (b + 2) % 3;
      const PetscReal  d[3] = {xs[3 * b2] - xs[3 * b1], xs[3 * b2 + 1] - xs[3 * b1 + 1], xs[3 * b2 + 2] - xs[3 * b1 + 2]};
      const PetscReal *wb   = &w[o[b]];

      r[0] += d[1] * wb[2] - d[2] * wb[1];
      r[1] += d[2] * wb[0] - d[0] * wb[2];
      r[2] += d[0] * wb[1] - d[1] * wb[0];
    }
    for (PetscInt a = 0; a < 3; a++)
      for (PetscInt i = 0; i < 3; i++) y[o[a] + i] += ld->clin * r[i];
  }
}

/* This rank's part of a dead load's potential at phi: -phi F_ext . (q - X), -phi sum_a W_a t0 . (x_a - X_a) */
static PetscReal DeadPotential(const SolidLoad *ld, PetscReal phi, const PetscScalar x[])
{
  PetscReal sum = 0;

  for (PetscInt k = 0; k < ld->nf && ld->nfn > 3; k++) {
    const PetscInt   nfn = ld->nfn;
    const PetscReal *X   = &ld->X[3 * nfn * k];
    PetscReal        xf[27];

    SolidFaceGather(ld, k, x, xf);
    for (PetscInt a = 0; a < nfn; a++)
      for (PetscInt i = 0; i < 3; i++) sum -= ld->W[nfn * k + a] * ld->t0[i] * (xf[3 * a + i] - X[3 * a + i]);
  }
  for (PetscInt k = 0; k < ld->nf && ld->nfn == 3; k++) {
    const PetscInt  *o = &ld->lo[3 * k];
    const PetscReal *X = &ld->X[9 * k];

    for (PetscInt a = 0; a < 3; a++)
      for (PetscInt i = 0; i < 3; i++) sum -= ld->A[k] / 3 * ld->t0[i] * (x[o[a] + i] - X[3 * a + i]);
  }
  return phi * sum;
}

/*
  This rank's part of a follower pressure's potential at phi: phi p (V(q) - V(X)), V = sum over its
  faces of x1 . (x2 x x3) / 6 (quadratic faces: int x . (x_xi x x_eta) / 3), the potential of a
  pressure on a closed surface (for an open one there is none: docs/solid.md §5)
*/
static PetscReal PressurePotential(const SolidLoad *ld, PetscReal phi, const PetscScalar x[])
{
  PetscReal sum = 0;

  for (PetscInt k = 0; k < ld->nf && ld->nfn > 3; k++) {
    const PetscInt   nfn = ld->nfn;
    const PetscReal *X   = &ld->X[3 * nfn * k];
    PetscReal        xf[27];

    SolidFaceGather(ld, k, x, xf);
    for (PetscInt q = 0; q < ld->nq; q++)
      for (PetscInt r = 0; r < 2; r++) {
        const PetscReal *y = r ? X : xf;
        PetscReal        xs[3], xe[3], n[3], xq[3] = {0, 0, 0};

        SolidFaceTangents(ld, q, y, xs, xe);
        SolidCross(xs, xe, n);
        for (PetscInt a = 0; a < nfn; a++)
          for (PetscInt i = 0; i < 3; i++) xq[i] += ld->qN[q * nfn + a] * y[3 * a + i];
        sum += (r ? -1 : 1) * ld->qw[q] * (xq[0] * n[0] + xq[1] * n[1] + xq[2] * n[2]) / 3;
      }
  }
  for (PetscInt k = 0; k < ld->nf && ld->nfn == 3; k++) {
    const PetscInt    *o  = &ld->lo[3 * k];
    const PetscReal   *X  = &ld->X[9 * k];
    const PetscScalar *x1 = &x[o[0]], *x2 = &x[o[1]], *x3 = &x[o[2]];
    const PetscReal   *X1 = &X[0], *X2 = &X[3], *X3 = &X[6];

    sum += (x1[0] * (x2[1] * x3[2] - x2[2] * x3[1]) + x1[1] * (x2[2] * x3[0] - x2[0] * x3[2]) + x1[2] * (x2[0] * x3[1] - x2[1] * x3[0])) / 6;
    sum -= (X1[0] * (X2[1] * X3[2] - X2[2] * X3[1]) + X1[1] * (X2[2] * X3[0] - X2[0] * X3[2]) + X1[2] * (X2[0] * X3[1] - X2[1] * X3[0])) / 6;
  }
  return phi * ld->p * sum;
}

/*
  The load kinds, in the order their options are read (-solid_load_NAME_traction, _pressure,
  _force): a new kind is a line here and its functions (a NULL part: none)
*/
static const SolidLoadOps SolidLoadKinds[SOLID_NLOADKINDS] = {
    {"traction", "Dead traction (force per reference area)",             3, PETSC_FALSE, PETSC_FALSE, DeadAddForce,     NULL,               NULL,              NULL,          DeadPotential    },
    {"pressure", "Follower pressure on the deformed faces",              1, PETSC_TRUE,  PETSC_FALSE, PressureAddForce, PressureAddTangent, PressureLinearize, PressureApply, PressurePotential},
    {"force",    "Total force, spread over the faces by reference area", 3, PETSC_FALSE, PETSC_TRUE,  DeadAddForce,     NULL,               NULL,              NULL,          DeadPotential    },
};

/* y (the local force array) += the loads' part of f at time t and positions x (local array) */
PetscErrorCode SolidLoadsAddForce(Solid *s, PetscReal t, const PetscScalar x[], PetscScalar y[])
{
  PetscFunctionBegin;
  for (PetscInt l = 0; l < s->nloads; l++) {
    SolidLoad *ld = &s->loads[l];
    PetscReal  phi;

    PetscCall(MechTimeFunctionEvaluate(ld->tf, t, &phi, NULL, NULL));
    if (phi == 0) continue;
    ld->ops->addforce(ld, phi, x, y);
  }
  PetscFunctionReturn(0);
}

/* The loads' stiffness (follower loads), scale times d f / d q, added into J (not assembled) */
PetscErrorCode SolidLoadsAddTangent(Solid *s, PetscReal t, const PetscScalar x[], PetscReal scale, Mat J)
{
  PetscFunctionBegin;
  for (PetscInt l = 0; l < s->nloads; l++) {
    SolidLoad *ld = &s->loads[l];
    PetscReal  phi;

    if (!ld->ops->addtangent) continue;
    PetscCall(MechTimeFunctionEvaluate(ld->tf, t, &phi, NULL, NULL));
    if (phi == 0) continue;
    PetscCall(ld->ops->addtangent(ld, scale, phi, x, J));
  }
  PetscFunctionReturn(0);
}

/* Keeps what the loads' stiffness action needs at time t, positions x, with the factor cK */
PetscErrorCode SolidLoadsLinearize(Solid *s, PetscReal t, const PetscScalar x[], PetscReal cK)
{
  PetscFunctionBegin;
  for (PetscInt l = 0; l < s->nloads; l++) {
    SolidLoad *ld = &s->loads[l];
    PetscReal  phi;

    ld->clin = 0;
    if (!ld->ops->linearize) continue;
    PetscCall(MechTimeFunctionEvaluate(ld->tf, t, &phi, NULL, NULL));
    PetscCall(ld->ops->linearize(ld, cK, phi, x));
  }
  PetscFunctionReturn(0);
}

/* y (local array) += the loads' stiffness at the last linearization applied to w (local array) */
PetscErrorCode SolidLoadsApply(Solid *s, const PetscScalar w[], PetscScalar y[])
{
  PetscFunctionBegin;
  for (PetscInt l = 0; l < s->nloads; l++) {
    SolidLoad *ld = &s->loads[l];

    if (!ld->ops->apply || ld->clin == 0) continue;
    ld->ops->apply(ld, w, y);
  }
  PetscFunctionReturn(0);
}

/* This rank's part of the loads' potential at time t */
PetscErrorCode SolidLoadsPotential(Solid *s, PetscReal t, const PetscScalar x[], PetscReal *e)
{
  PetscFunctionBegin;
  *e = 0;
  for (PetscInt l = 0; l < s->nloads; l++) {
    SolidLoad *ld = &s->loads[l];
    PetscReal  phi;

    PetscCall(MechTimeFunctionEvaluate(ld->tf, t, &phi, NULL, NULL));
    if (phi == 0) continue;
    *e += ld->ops->potential(ld, phi, x);
  }
  PetscFunctionReturn(0);
}
