/*
  The solid's stresses for the output (MechSystemSetCellFields()): per cell, at the cell's uniform
  deformation gradient F (P1 tetrahedra), the Cauchy stress

      sigma = P F^T / J,  J = det F                   (P the material's first Piola-Kirchhoff stress)

  (Bonet and Wood, Nonlinear Continuum Mechanics for Finite Element Analysis, 2nd ed., the
  chapter on stress; docs/solid.md §11), its von Mises equivalent (von Mises 1913)

      s_vm = sqrt(((s11 - s22)^2 + (s22 - s33)^2 + (s33 - s11)^2 + 6 (s12^2 + s23^2 + s13^2)) / 2)

  and J. The linear material's stress is the small-strain stress P itself (P = S = sigma in that
  theory; P F^T / J would add terms of the order of |F - I| |P| that the theory drops, and would not
  be symmetric). P F^T is symmetric for an isotropic hyperelastic material (balance of angular
  momentum); its mean with its transpose removes the rounding of the product. A cell whose material
  has no stress there (J <= 0 for the neo-Hookean family: a state the model refuses anyway) gets
  NaN stresses and its J. Quadratic cells report the volume average over their quadrature points.
  MechSystemSetNodeFields(): the same three recovered at the nodes (SolidNodeFields(), docs/solid.md
  §11, (11.4)).
*/
#include "solidimpl.h"

/* The fields, in the order of the callback's values */
static const char *const SolidCellFieldNames[] = {"stress", "von_mises", "J"};
static const PetscInt    SolidCellFieldComps[] = {6, 1, 1};
/* and their recovery at the nodes (SolidNodeFields()) */
static const char *const SolidNodeFieldNames[] = {"stress_vertex", "von_mises_vertex", "J_vertex"};

/* sigma (Voigt order xx, yy, zz, yz, xz, xy), von Mises and J at F of a cell of region r */
static void CellStress(const SolidRegion *r, const PetscReal F[9], PetscReal sig[6], PetscReal *vm, PetscReal *J)
{
  SolidPoint p;
  PetscReal  P[9], T[9];

  *J = SolidDet3(F);
  if (!r->mat->setup(&r->mod, F, &p)) {
    for (PetscInt i = 0; i < 6; i++) sig[i] = (PetscReal)NAN;
    *vm = (PetscReal)NAN;
    return;
  }
  r->mat->stress(&r->mod, &p, P, NULL);
  if (r->mat->linear) {
    for (PetscInt i = 0; i < 9; i++) T[i] = P[i];
  } else {
    /* T = P F^T / J */
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) T[3 * i + j] = (P[3 * i] * F[3 * j] + P[3 * i + 1] * F[3 * j + 1] + P[3 * i + 2] * F[3 * j + 2]) / *J;
  }
  sig[0] = T[0];
  sig[1] = T[4];
  sig[2] = T[8];
  sig[3] = 0.5 * (T[5] + T[7]);
  sig[4] = 0.5 * (T[2] + T[6]);
  sig[5] = 0.5 * (T[1] + T[3]);
  *vm    = PetscSqrtReal(0.5 * ((sig[0] - sig[1]) * (sig[0] - sig[1]) + (sig[1] - sig[2]) * (sig[1] - sig[2]) + (sig[2] - sig[0]) * (sig[2] - sig[0])) + 3 * (sig[3] * sig[3] + sig[4] * sig[4] + sig[5] * sig[5]));
}

/* The volume averages over cell c of the quadrature points' sigma, von Mises stress and J (x: the ghosted local state) */
void SolidCellAverage(const Solid *s, PetscInt c, const PetscScalar x[], PetscReal sig[6], PetscReal *vm, PetscReal *J)
{
  PetscReal F[9];

  for (PetscInt i = 0; i < 6; i++) sig[i] = 0;
  *vm = *J = 0;
  for (PetscInt k = 0; k < s->nq; k++) {
    const PetscReal w = SolidWeight(s, c, k) / s->vol[c];
    PetscReal       sk[6], vmk, Jk;

    SolidDeformationAt(s, c, k, x, F);
    CellStress(SolidCellRegion(s, c), F, sk, &vmk, &Jk);
    if (s->nq == 1) {
      /* P1 tetrahedra: as before, bit for bit */
      for (PetscInt i = 0; i < 6; i++) sig[i] = sk[i];
      *vm = vmk;
      *J  = Jk;
      return;
    }
    for (PetscInt i = 0; i < 6; i++) sig[i] += w * sk[i];
    *vm += w * vmk;
    *J += w * Jk;
  }
}

/* The MechCellFieldsFn of the solid: its cells are those of MechSystemSetIOMesh() (SolidSetIOOrdering()), in the same order */
static PetscErrorCode SolidCellFields(MechSystem sys, PetscReal t, Vec q, Vec v, PetscInt ncells, PetscReal *values[], void *ctx)
{
  Solid             *s = (Solid *)ctx;
  Vec                ql;
  const PetscScalar *x;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCheck(ncells == s->ncells, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The output asks for %" PetscInt_FMT " cells, the solid has %" PetscInt_FMT " on this rank", ncells, s->ncells);
  PetscCall(SolidGetLocal(s, q, &ql, &x));
  for (PetscInt c = 0; c < s->ncells; c++) SolidCellAverage(s, c, x, &values[0][6 * c], &values[1][c], &values[2][c]);
  PetscCall(SolidRestoreLocal(s, &ql, &x));
  PetscFunctionReturn(0);
}

/*
  The MechNodeFieldsFn of the solid (docs/solid.md §11): at a vertex v, the average of the cell
  averages of the cells around it weighted by their reference volumes,

      sigma_v = sum_{c ∋ v} V_c sigma_c / sum_{c ∋ v} V_c,

  likewise von Mises and J; at an edge, face or cell node (order 2) the mean of its edge's, face's
  or cell's vertices' values (the linear interpolant of the vertex values there). Sums over the
  ranks by DMLocalToGlobal() (ADD_VALUES) on three vectors of the state's layout: (sxx, syy, szz),
  (syz, sxz, sxy), (von Mises, J, V), each weighted by V.
*/
static PetscErrorCode SolidNodeFields(MechSystem sys, PetscReal t, Vec q, Vec v, PetscInt nnodes, PetscReal *values[], void *ctx)
{
  Solid             *s  = (Solid *)ctx;
  DM                 dm = s->dm;
  Vec                ql, L[3], G[3];
  const PetscScalar *x;
  PetscScalar       *l[3], *g[3];
  PetscSection       ls, gs;
  const PetscInt     nvc = s->cell->ncorner;
  PetscInt           pStart, pEnd, vStart, vEnd, rstart, n;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(VecGetLocalSize(q, &n));
  PetscCheck(3 * nnodes == n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The output asks for %" PetscInt_FMT " nodes, the solid has %" PetscInt_FMT " on this rank", nnodes, n / 3);
  PetscCall(VecGetOwnershipRange(q, &rstart, NULL));
  PetscCall(DMGetLocalSection(dm, &ls));
  PetscCall(DMGetGlobalSection(dm, &gs));
  PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  for (PetscInt i = 0; i < 3; i++) {
    PetscCall(DMGetLocalVector(dm, &L[i]));
    PetscCall(DMGetGlobalVector(dm, &G[i]));
    PetscCall(VecZeroEntries(L[i]));
    PetscCall(VecZeroEntries(G[i]));
    PetscCall(VecGetArray(L[i], &l[i]));
  }
  PetscCall(SolidGetLocal(s, q, &ql, &x));
  for (PetscInt c = 0; c < s->ncells; c++) {
    const PetscReal w = s->vol[c];
    PetscReal       sig[6], vm, J;

    SolidCellAverage(s, c, x, sig, &vm, &J);
    for (PetscInt a = 0; a < nvc; a++) {
      const PetscInt o = s->loff[s->nen * c + a];

      for (PetscInt i = 0; i < 3; i++) {
        l[0][o + i] += w * sig[i];
        l[1][o + i] += w * sig[3 + i];
      }
      l[2][o] += w * vm;
      l[2][o + 1] += w * J;
      l[2][o + 2] += w;
    }
  }
  PetscCall(SolidRestoreLocal(s, &ql, &x));
  for (PetscInt i = 0; i < 3; i++) {
    PetscCall(VecRestoreArray(L[i], &l[i]));
    PetscCall(DMLocalToGlobal(dm, L[i], ADD_VALUES, G[i]));
    PetscCall(VecGetArray(G[i], &g[i]));
  }
  /* the owned vertices' averages */
  for (PetscInt p = vStart; p < vEnd; p++) {
    PetscInt  dof, off;
    PetscReal W;

    PetscCall(PetscSectionGetDof(gs, p, &dof));
    if (dof <= 0) continue;
    PetscCall(PetscSectionGetOffset(gs, p, &off));
    off -= rstart;
    W = g[2][off + 2];
    PetscCheck(W > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Vertex %" PetscInt_FMT " belongs to no cell", p);
    for (PetscInt i = 0; i < 3; i++) {
      g[0][off + i] /= W;
      g[1][off + i] /= W;
    }
    g[2][off] /= W;
    g[2][off + 1] /= W;
    g[2][off + 2] = 1;
  }
  /* the vertices' values on the ghosts too, for the other nodes */
  for (PetscInt i = 0; i < 3; i++) {
    PetscCall(VecRestoreArray(G[i], &g[i]));
    PetscCall(DMGlobalToLocal(dm, G[i], INSERT_VALUES, L[i]));
    PetscCall(VecGetArray(L[i], &l[i]));
  }
  for (PetscInt p = pStart; p < pEnd; p++) {
    PetscInt  dof, goff, node, *cl = NULL, ncl, nv = 0;
    PetscReal val[8] = {0, 0, 0, 0, 0, 0, 0, 0};

    PetscCall(PetscSectionGetDof(gs, p, &dof));
    if (dof <= 0) continue;
    PetscCall(PetscSectionGetOffset(gs, p, &goff));
    node = (goff - rstart) / 3;
    PetscCheck(node >= 0 && node < nnodes, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Point %" PetscInt_FMT ": node %" PetscInt_FMT " out of range", p, node);
    PetscCall(DMPlexGetTransitiveClosure(dm, p, PETSC_TRUE, &ncl, &cl));
    for (PetscInt k = 0; k < ncl; k++) {
      PetscInt off;

      if (cl[2 * k] < vStart || cl[2 * k] >= vEnd) continue;
      PetscCall(PetscSectionGetOffset(ls, cl[2 * k], &off));
      for (PetscInt i = 0; i < 3; i++) {
        val[i] += PetscRealPart(l[0][off + i]);
        val[3 + i] += PetscRealPart(l[1][off + i]);
      }
      val[6] += PetscRealPart(l[2][off]);
      val[7] += PetscRealPart(l[2][off + 1]);
      nv++;
    }
    PetscCall(DMPlexRestoreTransitiveClosure(dm, p, PETSC_TRUE, &ncl, &cl));
    PetscCheck(nv > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Point %" PetscInt_FMT " has no vertices", p);
    for (PetscInt i = 0; i < 6; i++) values[0][6 * node + i] = val[i] / nv;
    values[1][node] = val[6] / nv;
    values[2][node] = val[7] / nv;
  }
  for (PetscInt i = 0; i < 3; i++) {
    PetscCall(VecRestoreArray(L[i], &l[i]));
    PetscCall(DMRestoreLocalVector(dm, &L[i]));
    PetscCall(DMRestoreGlobalVector(dm, &G[i]));
  }
  PetscFunctionReturn(0);
}

/* Gives the system the solid's per-cell output fields (stress [6], von_mises and J) and their
   recovery at the nodes (stress_vertex [6], von_mises_vertex, J_vertex) */
PetscErrorCode SolidSetCellFields(Solid *s, MechSystem sys)
{
  PetscFunctionBegin;
  PetscCall(MechSystemSetCellFields(sys, 3, SolidCellFieldNames, SolidCellFieldComps, SolidCellFields, s));
  PetscCall(MechSystemSetNodeFields(sys, 3, SolidNodeFieldNames, SolidCellFieldComps, SolidNodeFields, s));
  PetscFunctionReturn(0);
}
