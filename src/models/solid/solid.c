/*
  Solid: a hyperelastic body meshed with linear (P1) tetrahedra on a distributed DMPlex, or with
  P2 tetrahedra, Q1 or Q2 hexahedra (-solid_order, -solid_cell: the element layout of solidimpl.h,
  docs/solid.md §12); this file reads the options and assembles the system (the other jobs:
  solidimpl.h). The formulas below are those of P1 tetrahedra; the other elements sum the same
  terms over their quadrature points (elements.c).

  q holds the current position of every vertex (3 dofs per vertex), the mesh coordinates are the
  reference configuration. On a tetrahedron with reference vertices X0..X3 and current x0..x3

      Dm = [X1 - X0, X2 - X0, X3 - X0],  Ds = [x1 - x0, ...],  F = Ds Dm^-1,  V0 = |det Dm| / 6,

  and the nodal forces (moved to the left-hand side, f = dW/dq) are f_a = V0 P(F) g_a, with g_a
  (a = 1, 2, 3) the rows of Dm^-1 and g_0 = -(g_1 + g_2 + g_3): the gradients of the linear shape
  functions. P = dW/dF is the first Piola-Kirchhoff stress of the material:

      linear       P = lambda tr(eps) I + 2 mu eps,  eps = (H + H^T)/2, H = F - I
      svk          P = F S,  S = lambda tr(E) I + 2 mu E,  E = (F^T F - I)/2
      neohookean   P = mu (F - F^-T) + lambda ln J F^-T,  J = det F

  (docs/solid.md, §1 and §3; Bonet and Wood, Nonlinear Continuum Mechanics for Finite Element
  Analysis, 2nd ed., the chapter on hyperelasticity). The consistent tangent (§4)
  K_{ai,bk} = V0 (dP/dF)_{ijkl} g_aj g_bl comes from the directional derivatives dP of each law,
  evaluated for dF = e_k g_b^T.

  Each cell belongs to exactly one rank (no overlap); element contributions are summed in local
  vectors and added into the global ones (DMLocalToGlobal with ADD_VALUES), and matrices are
  assembled with global indices.

  Rayleigh damping D = alpha M + beta K0 (K0 the tangent at the reference configuration),
  gravity -M g, an initial velocity uniform plus a rigid spin about the centroid. Invariants:
  the three components of the linear momentum sum_i (M v)_i and of the angular momentum
  sum_i q_i x (M v)_i (§5, §8). The rigid-body modes are the tangent's near-null space (§6); an
  inverted element fails the stage (§7).
*/
#include "solidimpl.h"

static const char *const SolidMassTypes[]    = {"consistent", "lumped", "SolidMass", "SOLID_MASS_", NULL};
static const char *const SolidMassStorages[] = {"assembled", "scalar", "SolidMassStorage", "SOLID_MASS_STORAGE_", NULL};
static const char *const SolidCellTypes[]    = {"tet", "hex", "SolidCell", "SOLID_CELL_", NULL};

static PetscErrorCode SolidDestroy(void *ctx)
{
  Solid *s = (Solid *)ctx;

  PetscFunctionBegin;
  PetscCall(DMDestroy(&s->dm));
  PetscCall(PetscFree6(s->loff, s->goff, s->grad, s->wdet, s->vol, s->ctr));
  PetscCall(SolidRegionsDestroy(s));
  PetscCall(PetscFree(s->perm));
  PetscCall(PetscFEDestroy(&s->fe));
  PetscCall(VecDestroy(&s->Xref));
  PetscCall(PetscFree(s->cellid));
  PetscCall(MatDestroy(&s->M));
  PetscCall(MatDestroy(&s->K0));
  PetscCall(VecDestroy(&s->fg));
  PetscCall(MechTimeFunctionDestroy(&s->gtime));
  PetscCall(VecDestroy(&s->work));
  PetscCall(MatNullSpaceDestroy(&s->nullsp));
  PetscCall(PetscFree(s->store));
  PetscCall(MatDestroy(&s->graph));
  PetscCall(SolidTensorDestroy(s));
  PetscCall(PetscFree(s->aijoff));
  PetscCall(PetscFree(s->bccells));
  PetscCall(SolidProbesDestroy(s));
  PetscCall(VecDestroy(&s->ecache));
  PetscCall(SolidConstraintsDestroy(&s->bc));
  PetscCall(SolidLoadsDestroy(s));
  PetscCall(SolidBodyDestroy(&s->body));
  PetscCall(PetscFree(s));
  PetscFunctionReturn(0);
}

/*
  The tangent's pattern, built when first asked for (MechSystemSetTangentPattern()): a run whose
  operators are matrix-free and whose preconditioner assembles no quadratic matrix (-pc_type mg,
  pmg.c) never holds it. The solid has no sparser pattern.
*/
static PetscErrorCode SolidTangentPattern(MechSystem sys, PetscBool reduced, Mat *J, void *ctx)
{
  Solid *s = (Solid *)ctx;

  PetscFunctionBegin;
  (void)sys;
  *J = NULL;
  if (reduced) PetscFunctionReturn(0);
  PetscCall(SolidCreatePattern(s, PETSC_FALSE, J));
  PetscCall(MatDestroy(&s->graph));
  PetscCall(MatSetNearNullSpace(*J, s->nullsp));
  PetscFunctionReturn(0);
}

/*
  What the system takes after its state (q, v) and mass (s->M): the constraints, the discrete
  gradient, the loads, force, tangent and potential, the force's parts, the probes, the state check,
  the invariants, the cell fields and the initial state (a file's, -solid_initial, replaces q and v).
  beam: the built-in beam (its default clamp). Collective.
*/
static PetscErrorCode SolidSetUpSystem(Solid *s, MechSystem sy, Vec q, Vec v, PetscBool beam, PetscReal hmin, const char what[], PetscBool linear, PetscBool positiveJ, PetscBool stressout)
{
  PetscFunctionBegin;
  /* constraints: -solid_bc and the shorthands -solid_fix, -solid_fix_label (constraints.c) */
  PetscCall(SolidSetUpConstraints(s, sy, beam, hmin, what, q, v));
  /* the discrete gradient (discgrad.c) holds for conservative loads only: discgrad2 refuses a
     follower pressure through the nonsymmetric tangent its load marks */
  PetscCall(SolidSetUpDiscreteGradient(s, sy));
  /* loads on boundary faces (loads.c) */
  PetscCall(SolidSetUpLoads(s, sy, what, 1e-3 * hmin));
  PetscCall(MechSystemSetMass(sy, s->M));
  PetscCall(MechSystemSetForce(sy, SolidForce, s));
  PetscCall(MechSystemSetTangentPattern(sy, SolidTangentPattern, s));
  PetscCall(MechSystemSetTangent(sy, NULL, s->alpha != 0 || s->beta != 0 ? PETSC_TRUE : PETSC_FALSE, SolidTangent, s));
  PetscCall(MechSystemSetDampingLinear(sy, PETSC_TRUE)); /* Rayleigh: alpha M + beta K_0 */
  PetscCall(MechSystemSetTangentAction(sy, SolidTangentLinearize, SolidTangentApply, s));
  if (s->fusemass) PetscCall(MechSystemSetOperatorLinearize(sy, SolidOperatorLinearize));
  /* the element-wise diagonal; quadratic elements: the p-multigrid of -pc_type mg (pmg.c) */
  PetscCall(SolidSetUpMultigrid(s, sy));
  PetscCall(MechSystemSetPotential(sy, SolidPotential, s));
  /* the force's parts and the strain energy, for the reactions and the energy balance (parts.c) */
  PetscCall(SolidSetUpBalance(s, sy));
  /* probes (probes.c) */
  PetscCall(SolidSetUpProbes(s, sy, what, hmin));
  /* a follower pressure's force depends on the current face: not affine in q */
  PetscCall(MechSystemSetLinear(sy, linear && !s->follower ? PETSC_TRUE : PETSC_FALSE));
  /* a neo-Hookean element has no energy at J <= 0: such a state is refused, not accepted */
  s->trefused = PETSC_MIN_REAL;
  if (positiveJ) PetscCall(MechSystemSetStateCheck(sy, SolidStateCheck, s));
  for (PetscInt c = 0; c < 6; c++) {
    const char *names[] = {"momentum_x", "momentum_y", "momentum_z", "angular_momentum_x", "angular_momentum_y", "angular_momentum_z"};

    s->inv[c].s    = s;
    s->inv[c].comp = c;
    PetscCall(MechSystemAddInvariant(sy, names[c], SolidMomentum, &s->inv[c]));
  }
  /* the stresses multiply the output's size by about 5 (8 values a cell against 6 a vertex) */
  if (stressout) PetscCall(SolidSetCellFields(s, sy));
  /* recorded either way, so that an output (and a checkpoint) is continued by runs that write what
     it holds: a restart that changes it is refused with both values */
  PetscCall(MechSystemAddParameter(sy, "output_stress", stressout ? 1 : 0));
  /* an initial state from a file (initial.c) */
  PetscCall(SolidSetUpInitialState(s, sy, q, v));
  PetscCall(MechSystemSetInitialState(sy, q, v));
  /* Rayleigh damping from two modal ratios (damping.c): the modes of the system built so far */
  PetscCall(SolidSetUpDampingRatios(s, sy));
  PetscFunctionReturn(0);
}

/* The options of MechCreateSolid() but the constraints', loads', regions' and probes' */
typedef struct {
  char               file[PETSC_MAX_PATH_LEN], gtime[PETSC_MAX_PATH_LEN];
  PetscInt           cells[3], masstype, massstore, order, celltype;
  PetscReal          size[3], g[3], v0[3], w[3];
  PetscBool          hasfile, stressout;
  SolidMaterialInput min; /* the material of the cells in no region */
} SolidOptions;

/* Reads and checks the options of MechCreateSolid() (its manual block documents them). Collective. */
static PetscErrorCode SolidReadOptions(MPI_Comm comm, SolidOptions *o)
{
  PetscBool set, setcell;
  char      names[256];

  PetscFunctionBegin;
  PetscCall(PetscMemzero(o, sizeof(*o)));
  PetscCall(PetscStrcpy(o->gtime, "constant"));
  PetscCall(PetscStrcpy(o->min.material, "neohookean"));
  o->order     = 1;
  o->stressout = PETSC_TRUE;
  o->g[2]      = -9.81;
  o->min.E     = 1e7;
  o->min.nu    = 0.3;
  o->min.rho   = 1000;
  for (PetscInt i = 0; i < 3; i++) {
    const PetscInt  cells[3] = {20, 2, 2};
    const PetscReal size[3]  = {1, 0.1, 0.1};

    o->cells[i] = cells[i];
    o->size[i]  = size[i];
  }
  PetscOptionsBegin(comm, NULL, "Solid model options", "MechSystem");
  PetscCall(MechOptionsString("-solid_mesh", "Mesh file of tetrahedra or hexahedra (Gmsh .msh, DMPlex HDF5); default: the built-in beam", "MechCreateSolid", o->file, o->file, sizeof(o->file), &o->hasfile));
  PetscCall(MechOptionsIntList("-solid_beam_cells", "Boxes of the built-in beam along x, y, z", "MechCreateSolid", o->cells, 3, &set));
  PetscCall(MechOptionsRealList("-solid_beam_size", "Extent of the built-in beam along x, y, z", "MechCreateSolid", o->size, 3, &set));
  PetscCall(MechOptionsEList("-solid_cell", "Cells of the built-in beam: tet (6 per box) or hex", "MechCreateSolid", SolidCellTypes, 2, SolidCellTypes[o->celltype], &o->celltype, &setcell));
  PetscCall(MechOptionsInt("-solid_order", "Order of the elements: 1 (P1 tetrahedra, Q1 hexahedra) or 2 (P2 tetrahedra, Q2 hexahedra)", "MechCreateSolid", o->order, &o->order, NULL));
  SolidMaterialNames(names, sizeof(names));
  PetscCall(MechOptionsString("-solid_material", names, "MechCreateSolid", o->min.material, o->min.material, sizeof(o->min.material), &o->min.setmat));
  PetscCall(MechOptionsReal("-solid_E", "Young's modulus", "MechCreateSolid", o->min.E, &o->min.E, &o->min.setE));
  PetscCall(MechOptionsReal("-solid_nu", "Poisson's ratio", "MechCreateSolid", o->min.nu, &o->min.nu, &o->min.setnu));
  PetscCall(MechOptionsReal("-solid_mu", "Lame's shear modulus (instead of E, nu)", "MechCreateSolid", o->min.mu, &o->min.mu, &o->min.setmu));
  PetscCall(MechOptionsReal("-solid_lambda", "Lame's first parameter (instead of E, nu)", "MechCreateSolid", o->min.lambda, &o->min.lambda, &o->min.setlambda));
  PetscCall(MechOptionsReal("-solid_kappa", "Bulk modulus of neohookean_split, mooney_rivlin and yeoh (instead of nu)", "MechCreateSolid", o->min.kappa, &o->min.kappa, &o->min.setkappa));
  PetscCall(MechOptionsReal("-solid_c1", "Mooney-Rivlin c1 or Yeoh C10 (instead of E)", "MechCreateSolid", o->min.c1, &o->min.c1, &o->min.setc1));
  PetscCall(MechOptionsReal("-solid_c2", "Mooney-Rivlin c2 or Yeoh C20", "MechCreateSolid", o->min.c2, &o->min.c2, &o->min.setc2));
  PetscCall(MechOptionsReal("-solid_density", "Density (mass per reference volume)", "MechCreateSolid", o->min.rho, &o->min.rho, &o->min.setrho));
  PetscCall(MechOptionsEList("-solid_mass", "Mass matrix", "MechCreateSolid", SolidMassTypes, 2, SolidMassTypes[o->masstype], &o->masstype, NULL));
  PetscCall(MechOptionsEList("-solid_mass_matrix", "Storage of the consistent mass: assembled (AIJ) or scalar (M_s x I3, MATMAIJ; matrix-free operators only)", "MechCreateSolid", SolidMassStorages, 2, SolidMassStorages[o->massstore], &o->massstore, NULL));
  PetscCall(MechOptionsRealList("-solid_rayleigh", "Rayleigh damping alpha,beta: D = alpha M + beta K0", "MechCreateSolid", o->min.ray, 2, &o->min.setray));
  PetscCall(MechOptionsRealList("-solid_g", "Gravity gx,gy,gz", "MechCreateSolid", o->g, 3, &set));
  PetscCall(MechOptionsBool("-solid_output_stress", "Write each cell's Cauchy stress, von Mises stress and J with the output (/fields/stress, von_mises, J) and their recovery at the nodes (/fields/stress_vertex, von_mises_vertex, J_vertex)", "MechCreateSolid", o->stressout, &o->stressout, &set));
  PetscCall(MechOptionsString("-solid_g_time", "Gravity's time function: constant, ramp:T, hat:T1,T2, sin:OMEGA, table:FILE", "MechCreateSolid", o->gtime, o->gtime, sizeof(o->gtime), NULL));
  PetscCall(MechOptionsRealList("-solid_v0", "Uniform initial velocity", "MechCreateSolid", o->v0, 3, &set));
  PetscCall(MechOptionsRealList("-solid_spin", "Initial rigid spin about the centroid", "MechCreateSolid", o->w, 3, &set));
  PetscOptionsEnd();
  /* checked after PetscOptionsEnd(), which must run to free the options object */
  PetscCheck(o->order == 1 || o->order == 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "-solid_order %" PetscInt_FMT ": the elements' order must be 1 or 2", o->order);
  PetscCheck(!(o->hasfile && setcell), comm, PETSC_ERR_ARG_INCOMP, "-solid_cell: only for the built-in beam; the cells of -solid_mesh %s are the file's", o->file);
  PetscCheck(o->cells[0] >= 1 && o->cells[1] >= 1 && o->cells[2] >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-solid_beam_cells %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ": each must be at least 1", o->cells[0], o->cells[1], o->cells[2]);
  if (!o->hasfile) {
    /* the beam's 6 n0 n1 n2 tetrahedra (4 vertices each) and 3 (n0 + 1)(n1 + 1)(n2 + 1) unknowns
       are counted in PETSc's 32-bit indices: a larger beam would wrap them */
    /* order 2: a node on every grid point of the twice finer grid (Kuhn's edges and Q2's nodes alike);
       the DM's points (cells, faces, edges, vertices) are about 24 per box */
    const PetscInt *cells = o->cells, order = o->order;
    const double    tets = 6.0 * cells[0] * cells[1] * cells[2], dofs = 3.0 * (order * cells[0] + 1.0) * (order * cells[1] + 1.0) * (order * cells[2] + 1.0), pts = 24.0 * cells[0] * cells[1] * cells[2];

    PetscCheck(4 * tets <= PETSC_MAX_INT && dofs <= PETSC_MAX_INT && pts <= PETSC_MAX_INT, comm, PETSC_ERR_ARG_OUTOFRANGE, "-solid_beam_cells %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ": the beam would have %.0f tetrahedra and %.0f unknowns, more than PETSc's 32-bit indices can count (%d)", cells[0], cells[1], cells[2], tets, dofs, (int)PETSC_MAX_INT);
  }
  PetscCheck(o->size[0] > 0 && o->size[1] > 0 && o->size[2] > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-solid_beam_size %g,%g,%g: each must be positive", (double)o->size[0], (double)o->size[1], (double)o->size[2]);
  PetscFunctionReturn(0);
}

/*
  The solid on its mesh: the mesh read or built, checked and distributed (mesh.c), its cells' geometry
  (SolidSetUpCells()), the work vector of the DM's global layout. vertid: the vertices' numbers in
  the file (or the beam). On an error nothing is left to free. Collective.
*/
static PetscErrorCode SolidCreateOnMesh(MPI_Comm comm, const SolidOptions *o, const SolidRegion *reg0, const char what[], Solid **solid, PetscInt **vertid, PetscReal *hmin)
{
  const DMPolytopeType celltype = o->celltype == 1 ? DM_POLYTOPE_HEXAHEDRON : DM_POLYTOPE_TETRAHEDRON;
  DMPolytopeType       ct       = DM_POLYTOPE_TETRAHEDRON;
  PetscInt            *cellid   = NULL, n;
  Vec                  Xref     = NULL, g;
  DM                   dm;
  Solid               *s;
  PetscErrorCode       ierr;

  PetscFunctionBegin;
  *solid = NULL;
  /* the mesh: 3 dofs per vertex; the section exists before the distribution so that the natural
     (file) order of the vertices can be recovered */
  PetscCall(SolidCreateMesh(comm, o->file, o->cells, o->size, celltype, o->order, &dm, &cellid, vertid));
  /* a Gmsh file's higher-order nodes (curved edges) for order 2 (gmsh.c) */
  ierr = SolidMeshUseGmshNodes(dm, o->order, cellid);
  if (!ierr) ierr = SolidCheckMesh(dm, what, cellid, &ct);
  if (!ierr) ierr = SolidDistribute(&dm, o->order, &cellid, vertid, &Xref, what);
  if (ierr) {
    PetscCall(PetscFree(cellid));
    PetscCall(PetscFree(*vertid));
    PetscCall(DMDestroy(&dm));
    PetscFunctionReturn(ierr);
  }
  PetscCall(PetscNew(&s));
  s->dm       = dm;
  s->ct       = ct;
  s->order    = o->order;
  s->cell     = SolidCellTypeGet(ct, o->order);
  s->Xref     = Xref;
  s->cellid   = cellid;
  s->firstinv = -1;
  s->nreg     = 1;
  PetscCall(PetscMalloc1(1, &s->reg));
  s->reg[0] = *reg0;
  for (PetscInt i = 0; i < 3; i++) s->g[i] = o->g[i];
  PetscCall(MechTimeFunctionCreate(comm, o->gtime, "-solid_g_time", &s->gtime));
  ierr = SolidSetUpCells(s, what, hmin);
  if (ierr) {
    PetscCall(PetscFree(*vertid));
    PetscCall(SolidDestroy(s));
    PetscFunctionReturn(ierr);
  }
  PetscCall(DMGetGlobalVector(dm, &g));
  PetscCall(VecGetLocalSize(g, &n));
  PetscCall(DMRestoreGlobalVector(dm, &g));
  PetscCall(VecCreateMPI(comm, n, PETSC_DETERMINE, &s->work));
  PetscCall(VecSetBlockSize(s->work, 3));
  *solid = s;
  PetscFunctionReturn(0);
}

/* The parameters of the mesh, the material of region 0, the mass and gravity, as the system records them */
static PetscErrorCode SolidRecordParameters(Solid *s, MechSystem sy, const SolidOptions *o)
{
  const SolidRegion *reg0 = &s->reg[0];
  PetscInt           nc   = s->ncells, NC, nvtx, NV;
  const char        *desc;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(s->work, &nvtx));
  nvtx /= 3;
  PetscCall(MPIU_Allreduce(&nc, &NC, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)sy)));
  PetscCall(MPIU_Allreduce(&nvtx, &NV, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)sy)));
  PetscCall(MechSystemAddParameter(sy, "vertices", (PetscReal)NV));
  PetscCall(MechSystemAddParameter(sy, "cells", (PetscReal)NC));
  if (!o->hasfile) {
    for (PetscInt i = 0; i < 3; i++) {
      const char *cn[] = {"beam_nx", "beam_ny", "beam_nz"}, *sn[] = {"beam_lx", "beam_ly", "beam_lz"};

      PetscCall(MechSystemAddParameter(sy, cn[i], (PetscReal)o->cells[i]));
      PetscCall(MechSystemAddParameter(sy, sn[i], o->size[i]));
    }
  }
  /* by name, which stays meaningful whatever the table's order (a numeric code would not) */
  PetscCall(MechSystemAddTextParameter(sy, "material", reg0->mat->name));
  /* recorded only when not P1 tetrahedra: older runs have neither */
  if (o->order != 1) PetscCall(MechSystemAddParameter(sy, "order", (PetscReal)o->order));
  if (!s->cell->simplex) PetscCall(MechSystemAddTextParameter(sy, "cell", s->cell->name));
  PetscCall(MechSystemAddParameter(sy, "E", reg0->E));
  PetscCall(MechSystemAddParameter(sy, "nu", reg0->nu));
  if (reg0->mat->moduli != SOLID_MODULI_LAME) PetscCall(MechSystemAddParameter(sy, "kappa", reg0->mod.kappa));
  if (reg0->mat->moduli == SOLID_MODULI_MOONEY_RIVLIN) {
    PetscCall(MechSystemAddParameter(sy, "c1", reg0->mod.c1));
    PetscCall(MechSystemAddParameter(sy, "c2", reg0->mod.c2));
  }
  PetscCall(MechSystemAddParameter(sy, "density", reg0->rho));
  PetscCall(MechSystemAddParameter(sy, "lumped", (PetscReal)o->masstype));
  PetscCall(MechSystemAddParameter(sy, "rayleigh_alpha", reg0->alpha));
  PetscCall(MechSystemAddParameter(sy, "rayleigh_beta", reg0->beta));
  PetscCall(MechSystemAddParameter(sy, "gx", o->g[0]));
  PetscCall(MechSystemAddParameter(sy, "gy", o->g[1]));
  PetscCall(MechSystemAddParameter(sy, "gz", o->g[2]));
  /* recorded (by its description, records.c) only when given: older runs have none */
  PetscCall(MechTimeFunctionGetDescription(s->gtime, &desc));
  if (strcmp(desc, "constant")) PetscCall(SolidRecordTime(sy, "g_time", s->gtime));
  PetscFunctionReturn(0);
}

/*
  The reference positions of all nodes as a plain vector q with the DM's layout (a vector of a
  DMPlex would be viewed, in output and checkpoints, by DMPlex's own HDF5 writer in its own layout):
  the initial q, the rigid-body modes, the mesh checksum, and the I/O order (the vertices' numbers
  vertid in the mesh file or the beam, so that the output and the checkpoints do not depend on the
  partition: docs/solid.md §12). Collective.
*/
static PetscErrorCode SolidCreateReference(Solid *s, MechSystem sy, const PetscInt vertid[], Vec *reference)
{
  PetscInt  nloc;
  PetscReal sum = 0;
  Vec       q;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(s->work, &nloc));
  PetscCall(VecCreateMPI(PetscObjectComm((PetscObject)sy), nloc, PETSC_DETERMINE, &q));
  PetscCall(VecSetBlockSize(q, 3));
  /* the reference positions of all nodes (mesh.c, SolidDistribute()) */
  PetscCall(DMLocalToGlobalBegin(s->dm, s->Xref, INSERT_VALUES, q));
  PetscCall(DMLocalToGlobalEnd(s->dm, s->Xref, INSERT_VALUES, q));
  PetscCall(MatNullSpaceCreateRigidBody(q, &s->nullsp));
  PetscCall(SolidMeshChecksum(q, &sum));
  PetscCall(MechSystemAddParameter(sy, "mesh_checksum", sum));
  PetscCall(SolidSetIOOrdering(s, sy, vertid, q));
  *reference = q;
  PetscFunctionReturn(0);
}

/*
  The initial velocity v: uniform v0 plus the rigid spin w about the centroid of the mass (row sums
  rs of the mass matrix), at the reference positions q. Collective.
*/
static PetscErrorCode SolidInitialVelocity(const SolidOptions *o, Vec q, Vec rs, Vec v)
{
  const PetscReal   *v0 = o->v0, *w = o->w;
  PetscScalar       *u;
  const PetscScalar *x, *m;
  PetscReal          loc[4] = {0, 0, 0, 0}, tot[4], cen[3];
  PetscInt           nloc;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(q, &nloc));
  PetscCall(VecGetArrayRead(q, &x));
  PetscCall(VecGetArrayRead(rs, &m));
  for (PetscInt i = 0; i < nloc; i += 3) {
    for (PetscInt c = 0; c < 3; c++) loc[c] += m[i] * x[i + c];
    loc[3] += m[i];
  }
  PetscCall(MPIU_Allreduce(loc, tot, 4, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)q)));
  for (PetscInt c = 0; c < 3; c++) cen[c] = tot[c] / tot[3];
  PetscCall(VecGetArray(v, &u));
  for (PetscInt i = 0; i < nloc; i += 3) {
    const PetscReal r[3] = {x[i] - cen[0], x[i + 1] - cen[1], x[i + 2] - cen[2]};

    u[i]     = v0[0] + w[1] * r[2] - w[2] * r[1];
    u[i + 1] = v0[1] + w[2] * r[0] - w[0] * r[2];
    u[i + 2] = v0[2] + w[0] * r[1] - w[1] * r[0];
  }
  PetscCall(VecRestoreArray(v, &u));
  PetscCall(VecRestoreArrayRead(rs, &m));
  PetscCall(VecRestoreArrayRead(q, &x));
  PetscFunctionReturn(0);
}

/*
  The initial velocity (uniform plus the spin about the mass centroid) and gravity's force
  s->fg = -M g (none without gravity), from the mass matrix s->M. Collective.
*/
static PetscErrorCode SolidSetUpMotionAndGravity(Solid *s, const SolidOptions *o, Vec q, Vec v)
{
  Vec      rs;
  PetscInt nloc;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(q, &rs));
  if (o->massstore == 1 && o->masstype == 0) {
    /* the shell has no rows: its product with ones, the same sums */
    PetscCall(VecSet(v, 1.0));
    PetscCall(MatMult(s->M, v, rs));
  } else PetscCall(MatGetRowSum(s->M, rs));
  PetscCall(SolidInitialVelocity(o, q, rs, v));
  if (o->g[0] != 0 || o->g[1] != 0 || o->g[2] != 0) {
    PetscScalar *a;

    PetscCall(VecGetLocalSize(q, &nloc));
    PetscCall(VecDuplicate(q, &s->fg));
    PetscCall(VecGetArray(rs, &a));
    for (PetscInt i = 0; i < nloc; i += 3)
      for (PetscInt c = 0; c < 3; c++) a[i + c] = -o->g[c];
    PetscCall(VecRestoreArray(rs, &a));
    PetscCall(MatMult(s->M, rs, s->fg));
  }
  PetscCall(VecDestroy(&rs));
  PetscFunctionReturn(0);
}

/*
  The mass matrix on the exact vertex couplings of the mesh, block size 3 (the tangent's pattern
  is built at its first use), and the Rayleigh damping of the regions, alpha Ma + beta K0 (regions.c)
*/
static PetscErrorCode SolidSetUpMass(Solid *s, PetscBool lumped, PetscBool scalar)
{
  PetscFunctionBegin;
  /* scalar: M_s once for the three components (massshell.c) */
  if (scalar && !lumped) PetscCall(SolidCreateMassScalar(s, PETSC_FALSE, &s->M));
  else {
    PetscCall(SolidCreatePattern(s, PETSC_TRUE, &s->M));
    PetscCall(SolidAssembleMass(s, lumped, PETSC_FALSE, s->M));
  }
  PetscCall(SolidSetUpDamping(s, lumped));
  /* the node graph is large; the tangent's pattern rebuilds it at its first use (SolidTangentPattern()) */
  PetscCall(MatDestroy(&s->graph));
  /* the consistent mass inside the action where it costs less than the assembled mass's product:
     hexahedra (on the values at the points the action has), P1 tetrahedra (rho V / 20 (1 + delta_ab));
     a P2 tetrahedron's dense element mass (300 multiply-adds a cell, 10 cells a node) costs more
     (bench/README.md, "The matrix-free operator"), and curved cells have their own rules */
  s->fusemass = !lumped && !s->curved && s->cell->fusemass ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@
  MechCreateSolid - Creates a hyperelastic solid of linear or quadratic tetrahedra or hexahedra on a
  distributed DMPlex: a mesh read from a file, or a cantilever beam built in.

  Collective

  Input Parameter:
. comm - the MPI communicator of the system

  Output Parameter:
. sys - the new mechanical system, with its mass, force, tangent, initial state and fixed dofs set

  Options Database Keys:
+ -solid_mesh <file>                  - a mesh of tetrahedra or hexahedra (4, 10, 8 or 27 nodes, all of one kind): Gmsh .msh
                                        (formats 2.2, 4.0, 4.1, ASCII or binary) or PETSc's DMPlex HDF5;
                                        without it, the built-in beam below, clamped at x = 0
. -solid_beam_cells <20,2,2>          - the beam's boxes along x, y, z (each split into 6 tetrahedra, or one hexahedron; each at least 1)
. -solid_cell <tet>                   - the beam's cells: tet (6 per box) or hex (one per box); a mesh file's are its own
. -solid_order <1>                    - the elements' order: 1 (P1 tetrahedra, Q1 hexahedra) or 2 (10-node P2 tetrahedra,
                                        27-node Q2 hexahedra; the nodes of the edges, faces and cells are unknowns)
. -solid_beam_size <1,0.1,0.1>        - the beam's extent along x, y, z (each positive)
. -solid_material <neohookean>        - linear (small strain; the system is then linear), svk, neohookean,
                                        neohookean_split, mooney_rivlin (materials.c) or yeoh (yeoh.c)
. -solid_E <1e7>                      - Young's modulus (> 0)
. -solid_nu <0.3>                     - Poisson's ratio (-1 < nu < 1/2)
. -solid_mu <mu>                      - Lame's shear modulus (mu > 0), with -solid_lambda instead of E and nu
. -solid_lambda <lambda>              - Lame's first parameter (3 lambda + 2 mu > 0), with -solid_mu
. -solid_kappa <kappa>                - bulk modulus of neohookean_split, mooney_rivlin and yeoh (> 0), with -solid_mu
                                        (neohookean_split) or -solid_c1, -solid_c2 (mooney_rivlin, yeoh)
. -solid_c1 <c1>, -solid_c2 <c2>      - Mooney-Rivlin constants, or Yeoh's C10 and C20 (W = c1 (I1b - 3) + c2 (I1b - 3)^2
                                        + kappa/4 (J^2 - 1 - 2 ln J), I1b = J^-2/3 I1; mu = 2 c1) (c1, c2 >= 0,
                                        c1 + c2 > 0; default mu/2 and 0)
. -solid_density <1000>               - mass per unit reference volume (> 0)
. -solid_mass <consistent>            - consistent or lumped mass matrix
. -solid_mass_matrix <assembled>      - how the consistent mass M = M_s x I3 is stored: assembled (AIJ) or
                                        scalar (M_s once, applied to the three components by MATMAIJ: a third
                                        of the memory, no copy for the fixed dofs; for the matrix-free
                                        operators only: -ts_theta_matrix_free, -pc_type mg; config/solid_quadratic.opts)
. -solid_rayleigh <0,0>               - Rayleigh damping alpha,beta (both >= 0): D = alpha M + beta K0 (K0: the
                                        tangent at the reference)
. -solid_g <0,0,-9.81>                - gravity (the force -M g is moved to the left-hand side)
. -solid_output_stress <true>         - write the cells' stresses, and their recovery at the nodes, with the
                                        output (docs/solid.md §11)
. -solid_g_time <constant>            - gravity's time function phi(t) (the force -phi(t) M g): ramp:T loads a static
                                        analysis gradually
. -solid_v0 <0,0,0>                   - uniform initial velocity
. -solid_spin <0,0,0>                 - initial rigid spin about the centroid (added to v0)
. -solid_fix <x=0 | none>             - fix the vertices on a coordinate plane (tolerance 1e-3 of the smallest
                                        cell size); default x=0 for the beam, none for a mesh file
. -solid_fix_label <name>             - fix the vertices of the points of a mesh label (Gmsh physical groups:
                                        "Cell Sets", "Face Sets", "Vertex Sets"); not with -solid_fix
- -solid_fix_value <1>                - the value of that label

  Constraints, loads, material regions, probes, a start from an earlier run and Rayleigh damping from
  modal ratios have option pages of their own: `SolidConstraintOptions`, `SolidLoadOptions`,
  `SolidRegions`, `SolidProbes`, `SolidInitialState`, `SolidDampingOptions` (their places selected by
  `SolidSelection`).

  Level: intermediate

  Notes:
  The mesh is distributed with `DMPlexDistribute()` (-petscpartitioner_type); the vertices' and
  cells' numbers in the mesh file (or the beam) travel with them, and the output and checkpoints
  use them (`MechSystemSetIOOrdering()`, `MechSystemSetIOMesh()`): files in the file's vertex order,
  the same on any number of ranks. A mesh that is not 3-D, has
  cells other than tetrahedra or hexahedra (or both kinds) or inverted or degenerate cells is refused, as is a fixing that
  catches no vertex. A neo-Hookean element that inverts (J <= 0) during a Newton iterate makes the
  force non-finite: the stage fails; -info and `MechSolidGetInverted()` name the element by its
  rank-independent number (its place among the mesh file's cells, from 0). midpoint2 does
  not evaluate the force at the step's end: a TS domain check (`TSSetFunctionDomainError()`) with
  `MechSolidGetInverted()` rejects an endpoint that inverts an element (tests/solid/test_solid.c).

.seealso: `MechCreateModel()`, `MechSolidGetInverted()`, `MechSystemSetTangentAction()`, `MechSystemView()`
@*/
PetscErrorCode MechCreateSolid(MPI_Comm comm, MechSystem *sys)
{
  SolidOptions   o;
  SolidRegion    reg0;
  PetscBool      linear, positiveJ, frame;
  MechSystem     sy;
  PetscInt      *vertid = NULL;
  PetscReal      hmin;
  Solid         *s;
  Vec            q, v;
  char           what[PETSC_MAX_PATH_LEN + 32], shown[160];
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(SolidReadOptions(comm, &o));
  /* the material of the cells in no region (regions.c) */
  PetscCall(PetscMemzero(&reg0, sizeof(reg0)));
  PetscCall(SolidRegionFromInput(comm, "-solid", &o.min, &reg0));
  PetscCall(PetscSNPrintf(what, sizeof(what), o.hasfile ? "-solid_mesh %s" : "the built-in beam%s", MechOptionsShortValue(o.file, shown, sizeof(shown))));
  PetscCall(SolidCreateOnMesh(comm, &o, &reg0, what, &s, &vertid, &hmin));

  PetscCall(MechSystemCreate(comm, &sy));
  PetscCall(MechSystemSetApplicationContext(sy, s, SolidDestroy));
  PetscCall(MechSystemSetModelName(sy, "solid"));
  PetscCall(MechSystemAddTimeFunctionKinks(sy, s->gtime));
  PetscCall(SolidRecordParameters(s, sy, &o));
  PetscCall(MechSystemSetDM(sy, s->dm));
  /* the material regions (regions.c): each cell's material, recorded */
  ierr = SolidSetUpRegions(s, sy, &o.min, what, hmin);
  if (ierr) {
    PetscCall(PetscFree(vertid));
    PetscCall(MechSystemDestroy(&sy));
    PetscFunctionReturn(ierr);
  }
  PetscCall(SolidRegionsFlags(s, &linear, &positiveJ, &frame));
  PetscCall(SolidTensorUseRegions(s));
  PetscCall(SolidSetUpMass(s, o.masstype == 1 ? PETSC_TRUE : PETSC_FALSE, o.massstore == 1 ? PETSC_TRUE : PETSC_FALSE));

  /* the reference positions: the initial q and the rigid-body modes, then v and gravity */
  PetscCall(SolidCreateReference(s, sy, vertid, &q));
  PetscCall(PetscFree(vertid));
  PetscCall(VecDuplicate(q, &v));
  PetscCall(SolidSetUpMotionAndGravity(s, &o, q, v));
  /* what the system takes after its state and matrices */
  ierr = SolidSetUpSystem(s, sy, q, v, o.hasfile ? PETSC_FALSE : PETSC_TRUE, hmin, what, linear, positiveJ, o.stressout);
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  if (ierr) {
    PetscCall(MechSystemDestroy(&sy));
    PetscFunctionReturn(ierr);
  }
  *sys = sy;
  PetscFunctionReturn(0);
}
