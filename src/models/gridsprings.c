#include "models/gridsprings.h"

#if defined(PETSC_USE_COMPLEX)
#error "The grid spring models need a real PETSc build (PetscScalar == PetscReal)"
#endif

/* Position of point (i, j, k) in the ghosted local array, in points */
static inline PetscInt GridGhost(const MechSpringGrid *g, PetscInt i, PetscInt j, PetscInt k)
{
  return ((k - g->gs[2]) * g->gm[1] + (j - g->gs[1])) * g->gm[0] + (i - g->gs[0]);
}

/* Position of the owned point (i, j, k) in the rank's part of a global vector, in points */
static inline PetscInt GridOwnedIndex(const MechSpringGrid *g, PetscInt i, PetscInt j, PetscInt k)
{
  return ((k - g->xs[2]) * g->xm[1] + (j - g->xs[1])) * g->xm[0] + (i - g->xs[0]);
}

/* Whether point (i, j, k) is on the grid */
static inline PetscBool GridInside(const MechSpringGrid *g, PetscInt i, PetscInt j, PetscInt k)
{
  return i >= 0 && i < g->n[0] && j >= 0 && j < g->n[1] && k >= 0 && k < g->n[2] ? PETSC_TRUE : PETSC_FALSE;
}

/* Whether the whole stencil of point (i, j, k) is on the grid: then the loops skip GridInside() */
static inline PetscBool GridInterior(const MechSpringGrid *g, PetscInt i, PetscInt j, PetscInt k)
{
  return i >= g->reach[0] && i < g->n[0] - g->reach[0] && j >= g->reach[1] && j < g->n[1] - g->reach[1] && k >= g->reach[2] && k < g->n[2] - g->reach[2] ? PETSC_TRUE : PETSC_FALSE;
}

/* Whether point (i, j, k) is owned by this rank */
static inline PetscBool GridOwned(const MechSpringGrid *g, PetscInt i, PetscInt j, PetscInt k)
{
  return i >= g->xs[0] && i < g->xs[0] + g->xm[0] && j >= g->xs[1] && j < g->xs[1] + g->xm[1] && k >= g->xs[2] && k < g->xs[2] + g->xm[2] ? PETSC_TRUE : PETSC_FALSE;
}

/*
  The buffer holds one entry (3 or 9 reals) per forward spring: slab slot k % (sw + 1), then j,
  i, forward spring. Start of slab k's part, in entries:
*/
static inline PetscInt GridSlabStart(const MechSpringGrid *g, PetscInt k)
{
  return (k % (g->sw + 1)) * g->bm[1] * g->bm[0] * g->nfw;
}

/* Entry of the first forward spring of point (i, j) within its slab */
static inline PetscInt GridPointStart(const MechSpringGrid *g, PetscInt i, PetscInt j)
{
  return ((j - g->b0[1]) * g->bm[0] + (i - g->b0[0])) * g->nfw;
}

/* sb[dk + sw] = start of slab k + dk, dk = -sw, ..., 0: the slabs where the springs a particle of
   slab k reads were buffered. Once per slab, to keep the modulo out of the particle loops. */
static inline void GridSlabStarts(const MechSpringGrid *g, PetscInt k, PetscInt sb[])
{
  PetscInt dk;

  for (dk = -g->sw; dk <= 0; dk++) sb[dk + g->sw] = k + dk >= 0 ? GridSlabStart(g, k + dk) : 0;
}

/*
  The buffered result (w reals) of the spring from a particle of slab k to its stencil entry s:
  its partner's forward spring (in slab k + dk) if s is backward, its own otherwise. sb: the
  slab starts of GridSlabStarts(), pb: the particle's GridPointStart().
*/
static inline const PetscReal *GridSpringResult(const MechSpringGrid *g, const PetscInt sb[], PetscInt pb, PetscInt s, PetscInt w)
{
  return g->buf + w * (sb[(s < g->self ? g->d[s][2] : 0) + g->sw] + pb + g->bent[s]);
}

/* fr = the sum over the springs of point (i, j, k) of their forces on it, from the slab results
   (sb, pb as for GridSpringResult()); all: the point is interior, every neighbour exists */
static inline void GridSumSprings(const MechSpringGrid *g, const PetscInt sb[], PetscInt pb, PetscInt i, PetscInt j, PetscInt k, PetscBool all, PetscReal fr[3])
{
  fr[0] = fr[1] = fr[2] = 0;
  for (PetscInt s = 0; s < g->nst; s++) {
    const PetscReal *b;

    if (s == g->self || !(all || GridInside(g, i + g->d[s][0], j + g->d[s][1], k + g->d[s][2]))) continue;
    b = GridSpringResult(g, sb, pb, s, 3);
    if (s < g->self)
      for (PetscInt c = 0; c < 3; c++) fr[c] -= b[c];
    else
      for (PetscInt c = 0; c < 3; c++) fr[c] += b[c];
  }
}

/* Entries of one slab of forward springs */
static inline PetscInt GridSlabEntries(const MechSpringGrid *g)
{
  return g->bm[1] * g->bm[0] * g->nfw;
}

/* What GridSlabSprings() writes for each forward spring, and how many reals */
typedef enum {
  GRID_FORCE,  /* f_a */
  GRID_BLOCK,  /* B = cK Kaa + cD Daa, row-major */
  GRID_ACTION, /* the coefficients of MechSpringTangentAction() */
} GridSpringKind;
static const PetscInt GridKindWidth[] = {3, 9, 3};

/* Ghosted local copy of a state vector, as a flat array of 3 reals per point */
static PetscErrorCode GridGetLocal(DM da, Vec x, Vec *xl, const PetscScalar **a)
{
  PetscFunctionBegin;
  PetscCall(DMGetLocalVector(da, xl));
  PetscCall(DMGlobalToLocalBegin(da, x, INSERT_VALUES, *xl));
  PetscCall(DMGlobalToLocalEnd(da, x, INSERT_VALUES, *xl));
  PetscCall(VecGetArrayRead(*xl, a));
  PetscFunctionReturn(0);
}

static PetscErrorCode GridRestoreLocal(DM da, Vec *xl, const PetscScalar **a)
{
  PetscFunctionBegin;
  PetscCall(VecRestoreArrayRead(*xl, a));
  PetscCall(DMRestoreLocalVector(da, xl));
  PetscFunctionReturn(0);
}

/*
  The checks DMSetUp() makes on some ranks only, made on every rank before it: a process grid
  whose size is not the number of ranks, and a rank with fewer points along a direction than the
  stencil width (the springs' reach) would raise an error on some ranks and leave the others in
  a collective call. PETSc's own choice of the process grid is read from a scratch DMDA of one
  dof and no ghosts, which cannot fail these checks; its ownership ranges are known to every rank.
*/
static PetscErrorCode CheckDMDALayout(DM da, const char model[])
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)da);
  PetscMPIInt     size;
  PetscInt        dim, N[3] = {1, 1, 1}, p[3] = {1, 1, 1}, sw, d, i, dof;
  const PetscInt *own[3] = {NULL, NULL, NULL};
  DM              scratch;
  const char     *axis     = "xyz";
  char            grid[64] = "";

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(DMDAGetInfo(da, &dim, &N[0], &N[1], &N[2], &p[0], &p[1], &p[2], &dof, &sw, NULL, NULL, NULL, NULL));
  {
    /* the global size must fit PETSc's 32-bit indices (counted wide) */
    long long total = (long long)dof;
    for (d = 0; d < dim; d++) total *= (long long)N[d];
    PetscCheck(total <= (long long)PETSC_MAX_INT, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%s_n %" PetscInt_FMT ": the %s would have %lld unknowns, more than PETSc's 32-bit indices can count (%d)", model, N[0], model, total, (int)PETSC_MAX_INT);
  }
  /* a 1-D DMDA is created with as many processes as ranks; the other counts are the user's or the
     model's (the cloth's row of ranks), PETSC_DECIDE otherwise */
  for (d = 0; d < dim; d++) {
    char         opt[32];
    const char  *prefix;
    PetscOptions options;
    PetscBool    given;

    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-da_processors_%c", axis[d]));
    PetscCall(PetscObjectGetOptions((PetscObject)da, &options));
    PetscCall(DMGetOptionsPrefix(da, &prefix));
    PetscCall(PetscOptionsHasName(options, prefix, opt, &given));
    if (!given && dim == 1) p[d] = PETSC_DECIDE;
  }
  for (d = 0; d < dim; d++) {
    PetscCheck(p[d] == PETSC_DECIDE || (p[d] >= 1 && p[d] <= size), comm, PETSC_ERR_ARG_OUTOFRANGE, "-da_processors_%c %" PetscInt_FMT ": must be between 1 and the number of ranks, %d", axis[d], p[d], (int)size);
  }
  if (dim == 2 && p[0] > 0 && p[1] > 0) PetscCheck(p[0] * p[1] == size, comm, PETSC_ERR_ARG_INCOMP, "-da_processors_x %" PetscInt_FMT " -da_processors_y %" PetscInt_FMT ": a grid of %" PetscInt_FMT " processes, but the run has %d ranks", p[0], p[1], p[0] * p[1], (int)size);
  if (dim == 3 && p[0] > 0 && p[1] > 0 && p[2] > 0) PetscCheck(p[0] * p[1] * p[2] == size, comm, PETSC_ERR_ARG_INCOMP, "-da_processors_x %" PetscInt_FMT " -da_processors_y %" PetscInt_FMT " -da_processors_z %" PetscInt_FMT ": a grid of %" PetscInt_FMT " processes, but the run has %d ranks", p[0], p[1], p[2], p[0] * p[1] * p[2], (int)size);
  for (d = 0; d < dim; d++) {
    PetscCheck(p[d] == PETSC_DECIDE || p[d] <= N[d], comm, PETSC_ERR_ARG_OUTOFRANGE, "-da_processors_%c %" PetscInt_FMT ": more processes than the %" PetscInt_FMT " particles along %c", axis[d], p[d], N[d], axis[d]);
  }
  PetscCheck(N[0] * N[1] * N[2] >= size, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%s_n %" PetscInt_FMT " on %d ranks: fewer particles than ranks; use at most %" PetscInt_FMT " ranks", model, N[0], (int)size, N[0] * N[1] * N[2]);
  if (dim == 1) PetscCall(DMDACreate1d(comm, DM_BOUNDARY_NONE, N[0], 1, 0, NULL, &scratch));
  else if (dim == 2) PetscCall(DMDACreate2d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, N[0], N[1], p[0], p[1], 1, 0, NULL, NULL, &scratch));
  else PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, N[0], N[1], N[2], p[0], p[1], p[2], 1, 0, NULL, NULL, NULL, &scratch));
  PetscCall(DMSetUp(scratch));
  PetscCall(DMDAGetInfo(scratch, NULL, NULL, NULL, NULL, &p[0], &p[1], &p[2], NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetOwnershipRanges(scratch, &own[0], &own[1], &own[2]));
  for (d = 0; d < dim; d++) {
    PetscInt fewest = N[d];

    for (i = 0; i < p[d]; i++) fewest = PetscMin(fewest, own[d][i]);
    if (fewest < sw && N[d] > 1) {
      if (dim == 1) PetscCall(PetscSNPrintf(grid, sizeof(grid), "%" PetscInt_FMT, p[0]));
      else if (dim == 2) PetscCall(PetscSNPrintf(grid, sizeof(grid), "%" PetscInt_FMT " x %" PetscInt_FMT, p[0], p[1]));
      else PetscCall(PetscSNPrintf(grid, sizeof(grid), "%" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT, p[0], p[1], p[2]));
      PetscCall(DMDestroy(&scratch));
      SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "-%s_n %" PetscInt_FMT " on %d ranks: the %s process grid leaves a rank %" PetscInt_FMT " particle%s along %c, fewer than the %" PetscInt_FMT " the springs reach; use fewer ranks or a larger -%s_n", model, N[0], (int)size, grid, fewest, fewest == 1 ? "" : "s", axis[d], sw, model);
    }
  }
  PetscCall(DMDestroy(&scratch));
  PetscFunctionReturn(0);
}

PetscErrorCode MechSpringGridSetUpDMDA(DM da, const char model[])
{
  MatType   mtype;
  PetscBool sym;

  PetscFunctionBegin;
  PetscCall(DMSetMatType(da, MATAIJ));
  PetscCall(DMSetFromOptions(da));
  /* the assembly sets both triangles, and a damped spring's block is not symmetric */
  PetscCall(DMGetMatType(da, &mtype));
  PetscCall(PetscStrendswith(mtype, "sbaij", &sym));
  PetscCheck(!sym, PetscObjectComm((PetscObject)da), PETSC_ERR_SUP, "-dm_mat_type %s: the %s's tangent is assembled with both triangles and is not symmetric when its springs are damped; use aij (the default) or baij", mtype, model);
  PetscCall(CheckDMDALayout(da, model));
  PetscCall(DMSetUp(da));
  PetscCall(DMDASetFieldName(da, 0, "x"));
  PetscCall(DMDASetFieldName(da, 1, "y"));
  PetscCall(DMDASetFieldName(da, 2, "z"));
  PetscFunctionReturn(0);
}

/* The options of the 2-D and 3-D grid models (gridsprings.h), inside the model's options block */
PetscErrorCode MechSpringGridReadOptions(PetscOptionItems *PetscOptionsObject, const char model[], const char man[], const char *const help[8], MechSpringGridOptions *o)
{
  const char *const names[] = {"k", "k_shear", "k_bend"};
  char              opt[64];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%s_n", model));
  PetscCall(MechOptionsInt(opt, help[0], man, o->n, &o->n, NULL));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%s_size", model));
  PetscCall(MechOptionsReal(opt, help[1], man, o->size, &o->size, NULL));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%s_mass", model));
  PetscCall(MechOptionsReal(opt, help[2], man, o->mass, &o->mass, NULL));
  for (PetscInt f = 0; f < 3; f++) {
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%s_%s", model, names[f]));
    PetscCall(MechOptionsReal(opt, help[3 + f], man, o->k[f], &o->k[f], NULL));
  }
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%s_linear", model));
  PetscCall(MechOptionsBool(opt, "Zero-rest-length springs", man, o->linear, &o->linear, NULL));
  if (o->linear) o->c = 0;
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%s_c", model));
  PetscCall(MechOptionsReal(opt, help[6], man, o->c, &o->c, NULL));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%s_drag", model));
  PetscCall(MechOptionsReal(opt, help[7], man, o->drag, &o->drag, NULL));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%s_g", model));
  PetscCall(MechOptionsReal(opt, "Gravity along -z", man, o->g, &o->g, NULL));
  PetscFunctionReturn(0);
}

/* The shared options as the system's parameters (recorded in outputs and checkpoints) */
PetscErrorCode MechSpringGridAddParameters(MechSystem sy, const MechSpringGridOptions *o)
{
  const char *const names[]  = {"size", "mass", "k", "k_shear", "k_bend", "c", "drag", "g", "linear"};
  const PetscReal   values[] = {o->size, o->mass, o->k[0], o->k[1], o->k[2], o->c, o->drag, o->g, o->linear ? 1.0 : 0.0};

  PetscFunctionBegin;
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) PetscCall(MechSystemAddParameter(sy, names[i], values[i]));
  PetscFunctionReturn(0);
}

PetscErrorCode MechSpringGridCheckParameters(MPI_Comm comm, const char prefix[], PetscInt n, PetscReal size, PetscReal mass, const PetscReal k[3], PetscReal c, PetscReal drag)
{
  PetscFunctionBegin;
  PetscCheck(n >= 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%s_n %" PetscInt_FMT " must be at least 2", prefix, n);
  PetscCheck(size > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%s_size %g must be positive", prefix, (double)size);
  PetscCheck(mass > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%s_mass %g must be positive", prefix, (double)mass);
  PetscCheck(k[0] > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%s_k %g must be positive", prefix, (double)k[0]);
  PetscCheck(k[1] >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%s_k_shear %g must be non-negative", prefix, (double)k[1]);
  PetscCheck(k[2] >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%s_k_bend %g must be non-negative", prefix, (double)k[2]);
  PetscCheck(c >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%s_c %g must be non-negative", prefix, (double)c);
  PetscCheck(drag >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%s_drag %g must be non-negative", prefix, (double)drag);
  PetscFunctionReturn(0);
}

PetscErrorCode MechSpringGridCreate(DM da, const PetscReal k[3], PetscReal scale, PetscReal c, PetscReal h, PetscBool zerorest, MechSpringGrid **grid)
{
  MechSpringGrid        *g;
  ISLocalToGlobalMapping ltog;
  PetscInt               dim, width, bs, n[3], s[3], m[3], gs[3], gm[3], reach[3] = {0, 0, 0}, a, di, dj, dk;

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(da, &dim, &n[0], &n[1], &n[2], NULL, NULL, NULL, NULL, &width, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &s[0], &s[1], &s[2], &m[0], &m[1], &m[2]));
  PetscCall(DMDAGetGhostCorners(da, &gs[0], &gs[1], &gs[2], &gm[0], &gm[1], &gm[2]));
  PetscCall(DMGetLocalToGlobalMapping(da, &ltog));
  PetscCall(ISLocalToGlobalMappingGetBlockSize(ltog, &bs));
  PetscCheck(bs == 3, PetscObjectComm((PetscObject)da), PETSC_ERR_PLIB, "Expected a DMDA local-to-global map of block size 3, got %" PetscInt_FMT, bs);

  PetscCall(PetscNew(&g));
  PetscCall(PetscObjectReference((PetscObject)da));
  g->da = da;
  /* the slowest direction of the DMDA becomes k, so that a slab is always one k */
  for (a = 0; a < 3; a++) {
    g->n[a]  = 1;
    g->xs[a] = g->gs[a] = 0;
    g->xm[a] = g->gm[a] = 1;
  }
  for (a = 0; a < dim; a++) {
    const PetscInt sl = a == dim - 1 ? 2 : a;

    g->n[sl]  = n[a];
    g->xs[sl] = s[a];
    g->xm[sl] = m[a];
    g->gs[sl] = gs[a];
    g->gm[sl] = gm[a];
    reach[sl] = 2;
  }

  /* the stencil in natural order: offsets sorted by (dk, dj, di); families with zero stiffness left out */
  for (dk = -reach[2]; dk <= reach[2]; dk++) {
    for (dj = -reach[1]; dj <= reach[1]; dj++) {
      for (di = -reach[0]; di <= reach[0]; di++) {
        const PetscInt ai = PetscAbsInt(di), aj = PetscAbsInt(dj), ak = PetscAbsInt(dk), nnz = (ai > 0) + (aj > 0) + (ak > 0);
        PetscReal      kf;

        if (nnz == 0) kf = -1; /* the particle itself */
        else if (ai <= 1 && aj <= 1 && ak <= 1) kf = nnz == 1 ? k[0] : k[1];
        else if (nnz == 1 && ai + aj + ak == 2) kf = k[2];
        else continue;
        if (kf == 0) continue;
        if (kf < 0) g->self = g->nst;
        g->d[g->nst][0]     = di;
        g->d[g->nst][1]     = dj;
        g->d[g->nst][2]     = dk;
        g->goff[g->nst]     = (dk * g->gm[1] + dj) * g->gm[0] + di;
        g->spring[g->nst].k = kf < 0 ? 0 : kf * scale;
        g->spring[g->nst].L = zerorest ? 0 : h * PetscSqrtReal((PetscReal)(di * di + dj * dj + dk * dk));
        g->spring[g->nst].c = c * scale;
        g->sw               = PetscMax(g->sw, PetscMax(ai, PetscMax(aj, ak)));
        g->nst++;
      }
    }
  }
  if (width < g->sw) {
    PetscCall(MechSpringGridDestroy(g));
    SETERRQ(PetscObjectComm((PetscObject)da), PETSC_ERR_ARG_INCOMP, "The springs reach %" PetscInt_FMT " points, the DMDA's stencil width is only %" PetscInt_FMT, g->sw, width);
  }

  for (a = 0; a < 3; a++) g->reach[a] = reach[a] ? g->sw : 0;
  /* backward partners sit up to sw behind and 1 ahead (diagonals) along i and j, up to sw slabs back */
  g->nfw = g->nst - g->self - 1;
  for (a = 0; a < 2; a++) {
    g->b0[a] = PetscMax(g->xs[a] - g->sw, 0);
    g->bm[a] = PetscMin(g->xs[a] + g->xm[a] + 1, g->n[a]) - g->b0[a];
  }
  /* a backward spring is its partner's forward spring to the mirrored entry nst - 1 - s, forward
     spring number self - s - 1 since the stencil is symmetric */
  for (a = 0; a < g->nst; a++) g->bent[a] = a < g->self ? (g->d[a][1] * g->bm[0] + g->d[a][0]) * g->nfw + g->self - a - 1 : a - g->self - 1;
  PetscCall(PetscMalloc1((g->sw + 1) * g->bm[1] * g->bm[0] * g->nfw * 9, &g->buf));
  /* zero-rest-length springs without damping have the constant blocks k I */
  g->constant = zerorest && c == 0 ? PETSC_TRUE : PETSC_FALSE;
  g->damped   = c * scale != 0 ? PETSC_TRUE : PETSC_FALSE;
  g->k0       = PetscMax(g->xs[2] - g->sw, 0);
  *grid       = g;
  PetscFunctionReturn(0);
}

PetscErrorCode MechSpringGridDestroy(void *ctx)
{
  MechSpringGrid *g = (MechSpringGrid *)ctx;

  PetscFunctionBegin;
  PetscCall(DMDestroy(&g->da));
  PetscCall(PetscFree(g->buf));
  PetscCall(PetscFree(g->store));
  PetscCall(VecDestroy(&g->xlin));
  PetscCall(VecDestroy(&g->ulin));
  PetscCall(PetscFree(g->ext));
  PetscCall(PetscFree(g->yl));
  PetscCall(PetscFree(g->extractx));
  PetscCall(PetscFree(g));
  PetscFunctionReturn(0);
}

/*
  Forward springs of slab k (points with (i, j) in the buffered range) into slab, the slab's part
  of the buffer or of the store: forces, blocks B = cK Kaa + cD Daa (with definite the clamped Kaa
  of MechSpringTangentDefinite()) or B's three coefficients. Only springs with an owned end are needed.
*/
static PetscErrorCode GridSlabSprings(const MechSpringGrid *g, PetscInt k, const PetscScalar x[], const PetscScalar u[], GridSpringKind kind, PetscReal cK, PetscReal cD, PetscBool definite, PetscReal *slab, PetscInt *nclamped)
{
  const PetscInt w = GridKindWidth[kind];
  PetscInt       i, j, m, a;
  PetscReal      K[9] = {0}, D[9] = {0};

  PetscFunctionBegin;
  for (j = g->b0[1]; j < g->b0[1] + g->bm[1]; j++) {
    for (i = g->b0[0]; i < g->b0[0] + g->bm[0]; i++) {
      const PetscBool own = GridOwned(g, i, j, k), all = GridInterior(g, i, j, k);
      const PetscInt  p = GridGhost(g, i, j, k);

      for (m = 0; m < g->nfw; m++) {
        const PetscInt s = g->self + 1 + m, ii = i + g->d[s][0], jj = j + g->d[s][1], kk = k + g->d[s][2], pp = p + g->goff[s];
        PetscReal     *b;

        if (!(all || GridInside(g, ii, jj, kk)) || !(own || GridOwned(g, ii, jj, kk))) continue;
        b = slab + (GridPointStart(g, i, j) + m) * w;
        if (kind == GRID_FORCE) PetscCall(MechSpringForce(&g->spring[s], &x[3 * p], &x[3 * pp], &u[3 * p], &u[3 * pp], b));
        else if (kind == GRID_ACTION) PetscCall(MechSpringTangentAction(&g->spring[s], &x[3 * p], &x[3 * pp], u ? &u[3 * p] : NULL, u ? &u[3 * pp] : NULL, cK, cD, b));
        else {
          PetscCall(MechSpringEvaluate(&g->spring[s], &x[3 * p], &x[3 * pp], &u[3 * p], &u[3 * pp], NULL, cK != 0 && !definite ? K : NULL, cD != 0 ? D : NULL, NULL));
          if (cK != 0 && definite) {
            PetscBool clamped;

            PetscCall(MechSpringTangentDefinite(&g->spring[s], &x[3 * p], &x[3 * pp], K, &clamped));
            if (clamped && nclamped) (*nclamped)++;
          }
          for (a = 0; a < 9; a++) b[a] = cK * K[a] + cD * D[a];
        }
      }
    }
  }
  PetscFunctionReturn(0);
}

/*
  f on the owned particles: springs in stencil order, then gravity, drag and the model's term. A
  backward spring's force is the negative of its partner's forward result. Fixed particles are
  computed too (the system zeroes them); it keeps the loop free of tests.
*/
static PetscErrorCode GridForce(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
{
  const MechSpringGrid *g = (const MechSpringGrid *)ctx;
  Vec                   ql, vl;
  const PetscScalar    *x, *u;
  PetscScalar          *fa;
  PetscReal             fr[3];
  PetscInt              i, j, k, c, r = 0, sb[3]; /* sw <= 2 */

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  PetscCall(GridGetLocal(g->da, q, &ql, &x));
  PetscCall(GridGetLocal(g->da, v, &vl, &u));
  PetscCall(VecGetArray(f, &fa));
  /* r runs through the owned points in the order of the global vector */
  for (k = PetscMax(g->xs[2] - g->sw, 0); k < g->xs[2] + g->xm[2]; k++) {
    PetscCall(GridSlabSprings(g, k, x, u, GRID_FORCE, 0, 0, PETSC_FALSE, g->buf + 3 * GridSlabStart(g, k), NULL));
    if (k < g->xs[2]) continue;
    GridSlabStarts(g, k, sb);
    for (j = g->xs[1]; j < g->xs[1] + g->xm[1]; j++) {
      for (i = g->xs[0]; i < g->xs[0] + g->xm[0]; i++) {
        const PetscInt  p = GridGhost(g, i, j, k), pb = GridPointStart(g, i, j);
        const PetscBool all = GridInterior(g, i, j, k);

        GridSumSprings(g, sb, pb, i, j, k, all, fr);
        fr[2] += g->weight;
        for (c = 0; c < 3; c++) fr[c] += g->drag * u[3 * p + c];
        if (g->extra) (void)g->extra(g->extractx, &x[3 * p], fr, 0, NULL, PETSC_FALSE);
        for (c = 0; c < 3; c++) fa[3 * r + c] = fr[c];
        r++;
      }
    }
  }
  PetscCall(VecRestoreArray(f, &fa));
  PetscCall(GridRestoreLocal(g->da, &vl, &u));
  PetscCall(GridRestoreLocal(g->da, &ql, &x));
  PetscFunctionReturn(0);
}

/*
  The stencil entries of point (i, j, k) that lie on the grid: their positions s in the stencil
  and their global block indices (through the DMDA's local-to-global map gidx of the ghosted
  box). Columns come out in increasing order on one rank, which keeps AIJ insertion cheap.
*/
static inline PetscInt GridRowStencil(const MechSpringGrid *g, PetscInt i, PetscInt j, PetscInt k, const PetscInt gidx[], PetscInt sidx[], PetscInt cols[])
{
  const PetscInt  p   = GridGhost(g, i, j, k);
  const PetscBool all = GridInterior(g, i, j, k);
  PetscInt        s, nc = 0;

  for (s = 0; s < g->nst; s++) {
    if (!(all || GridInside(g, i + g->d[s][0], j + g->d[s][1], k + g->d[s][2]))) continue;
    sidx[nc]   = s;
    cols[nc++] = gidx[p + g->goff[s]];
  }
  return nc;
}

/*
  J = cK K + cD D, one block row per owned particle in a single MatSetValuesBlocked call. For a
  spring to partner b the particle's own block gets +B and column b gets -B, B = cK Kaa + cD Daa
  (springs.h; the same block seen from either end); drag and the model's term add to the own block.
  With definite, every Kaa and the model's term are their clamped semidefinite versions.
*/
static PetscErrorCode GridTangentAssemble(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscBool definite, Mat J, void *ctx)
{
  const MechSpringGrid  *g = (const MechSpringGrid *)ctx;
  Vec                    ql, vl;
  const PetscScalar     *x, *u;
  ISLocalToGlobalMapping ltog;
  const PetscInt        *gidx;
  PetscReal              diag[9];
  PetscScalar            vals[9 * MECH_GRID_STENCIL];
  PetscInt               sidx[MECH_GRID_STENCIL], cols[MECH_GRID_STENCIL];
  PetscInt               nclamped = 0;                      /* compressed springs of the slabs k >= xs[2], some counted by two ranks */
  PetscInt               i, j, k, b, nc, dpos, a, e, sb[3]; /* sw <= 2 */

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  PetscCall(GridGetLocal(g->da, q, &ql, &x));
  PetscCall(GridGetLocal(g->da, v, &vl, &u));
  PetscCall(DMGetLocalToGlobalMapping(g->da, &ltog));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(ltog, &gidx));
  for (k = PetscMax(g->xs[2] - g->sw, 0); k < g->xs[2] + g->xm[2]; k++) {
    PetscCall(GridSlabSprings(g, k, x, u, GRID_BLOCK, cK, cD, definite, g->buf + 9 * GridSlabStart(g, k), k >= g->xs[2] ? &nclamped : NULL));
    if (k < g->xs[2]) continue;
    GridSlabStarts(g, k, sb);
    for (j = g->xs[1]; j < g->xs[1] + g->xm[1]; j++) {
      for (i = g->xs[0]; i < g->xs[0] + g->xm[0]; i++) {
        const PetscInt p = GridGhost(g, i, j, k), row = gidx[p], pb = GridPointStart(g, i, j);

        nc   = GridRowStencil(g, i, j, k, gidx, sidx, cols);
        dpos = 0;
        for (a = 0; a < 9; a++) diag[a] = 0;
        for (a = 0; a < 3; a++) diag[4 * a] = cD * g->drag;
        /* vals is the 3 x 3nc row-major block row: entry (a, e) of block b at a * 3nc + 3b + e */
        for (b = 0; b < nc; b++) {
          const PetscInt   s = sidx[b];
          const PetscReal *B;

          if (s == g->self) {
            dpos = b;
            continue;
          }
          B = GridSpringResult(g, sb, pb, s, 9);
          for (a = 0; a < 3; a++) {
            for (e = 0; e < 3; e++) {
              diag[3 * a + e] += B[3 * a + e];
              vals[a * 3 * nc + 3 * b + e] = -B[3 * a + e];
            }
          }
        }
        if (g->extra) (void)g->extra(g->extractx, &x[3 * p], NULL, cK, diag, definite);
        for (a = 0; a < 3; a++)
          for (e = 0; e < 3; e++) vals[a * 3 * nc + 3 * dpos + e] = diag[3 * a + e];
        PetscCall(MatSetValuesBlocked(J, 1, &row, nc, cols, vals, ADD_VALUES));
      }
    }
  }
  PetscCall(ISLocalToGlobalMappingRestoreBlockIndices(ltog, &gidx));
  PetscCall(GridRestoreLocal(g->da, &vl, &u));
  PetscCall(GridRestoreLocal(g->da, &ql, &x));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  if (definite) PetscCall(PetscInfo(g->da, "Semidefinite tangent: %" PetscInt_FMT " compressed springs clamped on this rank\n", nclamped));
  PetscFunctionReturn(0);
}

/*
  The discrete gradient's counterpart of GridSlabSprings(): forward springs of slab k between the
  states x0 and x1, with the damping at the midpoint and velocity u, as forces (w = 3) or blocks
  B = cK Kaa + cD Daa of MechSpringDiscreteGradient() (w = 9).
*/
static PetscErrorCode GridSlabSpringsDG(const MechSpringGrid *g, PetscInt k, const PetscScalar x0[], const PetscScalar x1[], const PetscScalar u[], PetscInt w, PetscReal cK, PetscReal cD, PetscReal *slab)
{
  PetscInt  i, j, m, a;
  PetscReal K[9], D[9];

  PetscFunctionBegin;
  for (j = g->b0[1]; j < g->b0[1] + g->bm[1]; j++) {
    for (i = g->b0[0]; i < g->b0[0] + g->bm[0]; i++) {
      const PetscBool own = GridOwned(g, i, j, k), all = GridInterior(g, i, j, k);
      const PetscInt  p = GridGhost(g, i, j, k);

      for (m = 0; m < g->nfw; m++) {
        const PetscInt s = g->self + 1 + m, ii = i + g->d[s][0], jj = j + g->d[s][1], kk = k + g->d[s][2], pp = p + g->goff[s];
        PetscReal     *b;

        if (!(all || GridInside(g, ii, jj, kk)) || !(own || GridOwned(g, ii, jj, kk))) continue;
        b = slab + (GridPointStart(g, i, j) + m) * w;
        if (w == 3) PetscCall(MechSpringDiscreteGradient(&g->spring[s], &x0[3 * p], &x0[3 * pp], &x1[3 * p], &x1[3 * pp], &u[3 * p], &u[3 * pp], b, NULL, NULL));
        else {
          PetscCall(MechSpringDiscreteGradient(&g->spring[s], &x0[3 * p], &x0[3 * pp], &x1[3 * p], &x1[3 * pp], &u[3 * p], &u[3 * pp], NULL, K, D));
          for (a = 0; a < 9; a++) b[a] = cK * K[a] + cD * D[a];
        }
      }
    }
  }
  PetscFunctionReturn(0);
}

/*
  The discrete gradient (MechDiscreteGradientFn, docs/schemes.md §11): GridForce()'s loop
  with each spring's exact discrete gradient, gravity (linear: exact as it is), the drag at the
  velocity v, and the model's own term by the generic midpoint discrete gradient of that one
  particle, f(xm) + [E(x1) - E(x0) - f(xm) . d] d / |d|^2 (energy exact; its fixed obstacle
  conserves no momentum anyway).
*/
static PetscErrorCode GridDiscreteGradient(MechSystem sys, PetscReal t, Vec q0, Vec q1, Vec v, Vec f, void *ctx)
{
  const MechSpringGrid *g = (const MechSpringGrid *)ctx;
  Vec                   q0l, q1l, vl;
  const PetscScalar    *x0, *x1, *u;
  PetscScalar          *fa;
  PetscReal             fr[3];
  PetscInt              i, j, k, c, r = 0, sb[3];

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  PetscCall(GridGetLocal(g->da, q0, &q0l, &x0));
  PetscCall(GridGetLocal(g->da, q1, &q1l, &x1));
  PetscCall(GridGetLocal(g->da, v, &vl, &u));
  PetscCall(VecGetArray(f, &fa));
  for (k = PetscMax(g->xs[2] - g->sw, 0); k < g->xs[2] + g->xm[2]; k++) {
    PetscCall(GridSlabSpringsDG(g, k, x0, x1, u, 3, 0, 0, g->buf + 3 * GridSlabStart(g, k)));
    if (k < g->xs[2]) continue;
    GridSlabStarts(g, k, sb);
    for (j = g->xs[1]; j < g->xs[1] + g->xm[1]; j++) {
      for (i = g->xs[0]; i < g->xs[0] + g->xm[0]; i++) {
        const PetscInt  p = GridGhost(g, i, j, k), pb = GridPointStart(g, i, j);
        const PetscBool all = GridInterior(g, i, j, k);

        GridSumSprings(g, sb, pb, i, j, k, all, fr);
        fr[2] += g->weight;
        for (c = 0; c < 3; c++) fr[c] += g->drag * u[3 * p + c];
        if (g->extra) {
          PetscReal xm[3], d[3], fe[3] = {0, 0, 0}, e0, e1, dd = 0, fd = 0;

          for (c = 0; c < 3; c++) {
            xm[c] = 0.5 * (x0[3 * p + c] + x1[3 * p + c]);
            d[c]  = x1[3 * p + c] - x0[3 * p + c];
          }
          (void)g->extra(g->extractx, xm, fe, 0, NULL, PETSC_FALSE);
          e0 = g->extra(g->extractx, &x0[3 * p], NULL, 0, NULL, PETSC_FALSE);
          e1 = g->extra(g->extractx, &x1[3 * p], NULL, 0, NULL, PETSC_FALSE);
          for (c = 0; c < 3; c++) {
            dd += d[c] * d[c];
            fd += fe[c] * d[c];
          }
          for (c = 0; c < 3; c++) fr[c] += fe[c] + (dd > 0 ? (e1 - e0 - fd) / dd * d[c] : 0);
        }
        for (c = 0; c < 3; c++) fa[3 * r + c] = fr[c];
        r++;
      }
    }
  }
  PetscCall(VecRestoreArray(f, &fa));
  PetscCall(GridRestoreLocal(g->da, &vl, &u));
  PetscCall(GridRestoreLocal(g->da, &q1l, &x1));
  PetscCall(GridRestoreLocal(g->da, &q0l, &x0));
  PetscFunctionReturn(0);
}

/* Its derivative cK dfbar/dq1 + cD dfbar/dv, GridTangentAssemble()'s loop with the blocks of
   MechSpringDiscreteGradient() (exact only without the model's own term, which has none here) */
static PetscErrorCode GridDiscreteGradientJacobian(MechSystem sys, PetscReal t, Vec q0, Vec q1, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  const MechSpringGrid  *g = (const MechSpringGrid *)ctx;
  Vec                    q0l, q1l, vl;
  const PetscScalar     *x0, *x1, *u;
  ISLocalToGlobalMapping ltog;
  const PetscInt        *gidx;
  PetscReal              diag[9];
  PetscScalar            vals[9 * MECH_GRID_STENCIL];
  PetscInt               sidx[MECH_GRID_STENCIL], cols[MECH_GRID_STENCIL];
  PetscInt               i, j, k, b, nc, dpos, a, e, sb[3];

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  PetscCheck(!g->extra, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The grid's own particle term has no discrete gradient derivative");
  PetscCall(GridGetLocal(g->da, q0, &q0l, &x0));
  PetscCall(GridGetLocal(g->da, q1, &q1l, &x1));
  PetscCall(GridGetLocal(g->da, v, &vl, &u));
  PetscCall(DMGetLocalToGlobalMapping(g->da, &ltog));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(ltog, &gidx));
  for (k = PetscMax(g->xs[2] - g->sw, 0); k < g->xs[2] + g->xm[2]; k++) {
    PetscCall(GridSlabSpringsDG(g, k, x0, x1, u, 9, cK, cD, g->buf + 9 * GridSlabStart(g, k)));
    if (k < g->xs[2]) continue;
    GridSlabStarts(g, k, sb);
    for (j = g->xs[1]; j < g->xs[1] + g->xm[1]; j++) {
      for (i = g->xs[0]; i < g->xs[0] + g->xm[0]; i++) {
        const PetscInt row = gidx[GridGhost(g, i, j, k)], pb = GridPointStart(g, i, j);

        nc   = GridRowStencil(g, i, j, k, gidx, sidx, cols);
        dpos = 0;
        for (a = 0; a < 9; a++) diag[a] = 0;
        for (a = 0; a < 3; a++) diag[4 * a] = cD * g->drag;
        for (b = 0; b < nc; b++) {
          const PetscInt   s = sidx[b];
          const PetscReal *B;

          if (s == g->self) {
            dpos = b;
            continue;
          }
          B = GridSpringResult(g, sb, pb, s, 9);
          for (a = 0; a < 3; a++) {
            for (e = 0; e < 3; e++) {
              diag[3 * a + e] += B[3 * a + e];
              vals[a * 3 * nc + 3 * b + e] = -B[3 * a + e];
            }
          }
        }
        for (a = 0; a < 3; a++)
          for (e = 0; e < 3; e++) vals[a * 3 * nc + 3 * dpos + e] = diag[3 * a + e];
        PetscCall(MatSetValuesBlocked(J, 1, &row, nc, cols, vals, ADD_VALUES));
      }
    }
  }
  PetscCall(ISLocalToGlobalMappingRestoreBlockIndices(ltog, &gidx));
  PetscCall(GridRestoreLocal(g->da, &vl, &u));
  PetscCall(GridRestoreLocal(g->da, &q1l, &x1));
  PetscCall(GridRestoreLocal(g->da, &q0l, &x0));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/*
  Force and tangent on a patch of owned points (MechPatchFn of MechSystemSetPatch(), for nonlinear
  elimination). Each spring of a patch point is evaluated from that point's end: swapping a
  spring's ends only flips signs, and the terms are summed in GridForce()'s order, so the forces
  are those of GridForce() bit for bit and the blocks those of GridTangentAssemble().
*/
static PetscErrorCode GridPatch(MechSystem sys, PetscReal t, Vec ql, Vec vl, PetscInt n, const PetscInt pts[], const PetscInt patch[], PetscReal cK, PetscReal cD, PetscScalar f[], Mat J, void *ctx)
{
  const MechSpringGrid *g = (const MechSpringGrid *)ctx;
  const PetscScalar    *x, *u;
  PetscReal             fr[3], b[3], K[9], D[9], diag[9];
  PetscScalar           vals[9 * MECH_GRID_STENCIL];
  PetscInt              cols[MECH_GRID_STENCIL];
  PetscInt              r, s, a, e;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  PetscCall(VecGetArrayRead(ql, &x));
  PetscCall(VecGetArrayRead(vl, &u));
  for (r = 0; r < n; r++) {
    const PetscInt  p = pts[r], i = g->gs[0] + p % g->gm[0], j = g->gs[1] + (p / g->gm[0]) % g->gm[1], k = g->gs[2] + p / (g->gm[0] * g->gm[1]);
    const PetscBool all = GridInterior(g, i, j, k);
    PetscInt        nc = 0, dpos = 0;

    PetscCheck(p >= 0 && p < g->gm[0] * g->gm[1] * g->gm[2] && GridOwned(g, i, j, k), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Grid patch: local point %" PetscInt_FMT " is not one of this rank's points", p);
    if (f) {
      for (a = 0; a < 3; a++) fr[a] = 0;
      for (s = 0; s < g->nst; s++) {
        const PetscInt pp = p + g->goff[s];

        if (s == g->self || !(all || GridInside(g, i + g->d[s][0], j + g->d[s][1], k + g->d[s][2]))) continue;
        PetscCall(MechSpringForce(&g->spring[s], &x[3 * p], &x[3 * pp], &u[3 * p], &u[3 * pp], b));
        for (a = 0; a < 3; a++) fr[a] += b[a];
      }
      fr[2] += g->weight;
      for (a = 0; a < 3; a++) fr[a] += g->drag * u[3 * p + a];
      if (g->extra) (void)g->extra(g->extractx, &x[3 * p], fr, 0, NULL, PETSC_FALSE);
      for (a = 0; a < 3; a++) f[3 * r + a] = fr[a];
    }
    if (!J) continue;
    for (a = 0; a < 9; a++) diag[a] = K[a] = D[a] = 0;
    for (a = 0; a < 3; a++) diag[4 * a] = cD * g->drag;
    for (s = 0; s < g->nst; s++) {
      const PetscInt pp = p + g->goff[s];

      if (s != g->self && !(all || GridInside(g, i + g->d[s][0], j + g->d[s][1], k + g->d[s][2]))) continue;
      if (s == g->self) {
        dpos       = nc;
        cols[nc++] = r;
        continue;
      }
      PetscCall(MechSpringEvaluate(&g->spring[s], &x[3 * p], &x[3 * pp], &u[3 * p], &u[3 * pp], NULL, cK != 0 ? K : NULL, cD != 0 ? D : NULL, NULL));
      for (a = 0; a < 9; a++) diag[a] += cK * K[a] + cD * D[a];
      if (patch[pp] < 0) continue;
      /* vals: the 3 x 3 MECH_GRID_STENCIL row-major block row, compacted below */
      for (a = 0; a < 3; a++)
        for (e = 0; e < 3; e++) vals[a * 3 * MECH_GRID_STENCIL + 3 * nc + e] = -(cK * K[3 * a + e] + cD * D[3 * a + e]);
      cols[nc++] = patch[pp];
    }
    if (g->extra) (void)g->extra(g->extractx, &x[3 * p], NULL, cK, diag, PETSC_FALSE);
    for (a = 0; a < 3; a++)
      for (e = 0; e < 3; e++) vals[a * 3 * MECH_GRID_STENCIL + 3 * dpos + e] = diag[3 * a + e];
    for (a = 1; a < 3; a++)
      for (e = 0; e < 3 * nc; e++) vals[a * 3 * nc + e] = vals[a * 3 * MECH_GRID_STENCIL + e];
    PetscCall(MatSetValuesBlocked(J, 1, &r, nc, cols, vals, ADD_VALUES));
  }
  PetscCall(VecRestoreArrayRead(vl, &u));
  PetscCall(VecRestoreArrayRead(ql, &x));
  PetscFunctionReturn(0);
}

/* The exact tangent: MechTangentFn of MechSystemSetTangent() */
static PetscErrorCode GridTangent(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(GridTangentAssemble(sys, t, q, v, cK, cD, PETSC_FALSE, J, ctx));
  PetscFunctionReturn(0);
}

/* The clamped semidefinite tangent: MechTangentFn of MechSystemSetTangentDefinite() */
static PetscErrorCode GridTangentDefinite(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(GridTangentAssemble(sys, t, q, v, cK, cD, PETSC_TRUE, J, ctx));
  PetscFunctionReturn(0);
}

/*
  The matrix-free tangent. The linearization keeps, for every slab from k0 on, the three
  coefficients of MechSpringTangentAction() of the forward springs together with the ghosted
  state (positions; velocities if the springs are damped), from which the spring block
  B = cK Kaa + cD Daa is applied without being stored: 3 reals per spring instead of 9, and fewer
  bytes read per product, which is bound by memory traffic. It keeps also cK times the derivative
  of the model's term per owned particle; with constant springs (zero rest length, no damping)
  B = cK k I needs no store at all. Row p of the assembled tangent has the diagonal block
  sum_s B_s + E_p and -B_s at partner s, so
      y_p = sum_s B_s (w_p - w_s) + E_p w_p,   E_p = cD drag I + cK (model's term)'.
*/
static PetscErrorCode GridTangentLinearize(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, void *ctx)
{
  MechSpringGrid    *g    = (MechSpringGrid *)ctx;
  const PetscInt     nloc = g->xm[0] * g->xm[1] * g->xm[2];
  const PetscScalar *x, *u = NULL;
  Vec                xl;
  PetscInt           i, j, k, a, r = 0;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  g->cK = cK;
  g->cD = cD;
  if (g->constant && !g->extra) PetscFunctionReturn(0);
  /* the positions are kept for the product unless the springs are constant */
  if (g->constant) PetscCall(DMGetLocalVector(g->da, &xl));
  else {
    if (!g->xlin) PetscCall(DMCreateLocalVector(g->da, &g->xlin));
    xl = g->xlin;
  }
  PetscCall(DMGlobalToLocalBegin(g->da, q, INSERT_VALUES, xl));
  PetscCall(DMGlobalToLocalEnd(g->da, q, INSERT_VALUES, xl));
  PetscCall(VecGetArrayRead(xl, &x));
  if (!g->constant) {
    if (g->damped) {
      if (!g->ulin) PetscCall(DMCreateLocalVector(g->da, &g->ulin));
      PetscCall(DMGlobalToLocalBegin(g->da, v, INSERT_VALUES, g->ulin));
      PetscCall(DMGlobalToLocalEnd(g->da, v, INSERT_VALUES, g->ulin));
      PetscCall(VecGetArrayRead(g->ulin, &u));
    }
    if (!g->store) PetscCall(PetscMalloc1((g->xs[2] + g->xm[2] - g->k0) * GridSlabEntries(g) * 3, &g->store));
    for (k = g->k0; k < g->xs[2] + g->xm[2]; k++) PetscCall(GridSlabSprings(g, k, x, u, GRID_ACTION, cK, cD, PETSC_FALSE, g->store + 3 * (k - g->k0) * GridSlabEntries(g), NULL));
    if (u) PetscCall(VecRestoreArrayRead(g->ulin, &u));
  }
  if (g->extra) {
    if (!g->ext) PetscCall(PetscMalloc1(9 * nloc, &g->ext));
    for (k = g->xs[2]; k < g->xs[2] + g->xm[2]; k++) {
      for (j = g->xs[1]; j < g->xs[1] + g->xm[1]; j++) {
        for (i = g->xs[0]; i < g->xs[0] + g->xm[0]; i++, r++) {
          for (a = 0; a < 9; a++) g->ext[9 * r + a] = 0;
          (void)g->extra(g->extractx, &x[3 * GridGhost(g, i, j, k)], NULL, cK, &g->ext[9 * r], PETSC_FALSE);
        }
      }
    }
  }
  PetscCall(VecRestoreArrayRead(xl, &x));
  if (g->constant) PetscCall(DMRestoreLocalVector(g->da, &xl));
  PetscFunctionReturn(0);
}

/*
  The stored tangent applied spring by spring: the spring from p to its forward partner b adds
  B (w_p - w_b) to row p and its negative to row b, in a ghosted work array, B from its three
  coefficients and the stored state (springs.h). Rows of ghost points are dropped: a spring with
  an end on another rank is also stored there.
*/
static PetscErrorCode GridApplyStored(MechSpringGrid *g, const PetscScalar w[], PetscReal yl[])
{
  const PetscInt     nfw = g->nfw, self = g->self;
  const PetscScalar *x, *u              = NULL;
  PetscInt           i, j, k, m;

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(yl, 3 * g->gm[0] * g->gm[1] * g->gm[2]));
  PetscCall(VecGetArrayRead(g->xlin, &x));
  if (g->ulin) PetscCall(VecGetArrayRead(g->ulin, &u));
  for (k = g->k0; k < g->xs[2] + g->xm[2]; k++) {
    const PetscReal *slab = g->store + 3 * (k - g->k0) * GridSlabEntries(g);

    for (j = g->b0[1]; j < g->b0[1] + g->bm[1]; j++) {
      for (i = g->b0[0]; i < g->b0[0] + g->bm[0]; i++) {
        const PetscInt   p   = GridGhost(g, i, j, k);
        const PetscBool  own = GridOwned(g, i, j, k), all = GridInterior(g, i, j, k);
        const PetscReal *cp = slab + 3 * GridPointStart(g, i, j);
        const PetscReal *wp = &w[3 * p], *xp = &x[3 * p];
        PetscReal       *yp = &yl[3 * p];

        for (m = 0; m < nfw; m++) {
          const PetscInt   s = self + 1 + m, b = p + g->goff[s];
          const PetscReal *c = cp + 3 * m, *wb = &w[3 * b], *xb = &x[3 * b];
          PetscReal        e0, e1, e2, d0, d1, d2, f, t0, t1, t2;

          if (!(all && own) && (!(all || GridInside(g, i + g->d[s][0], j + g->d[s][1], k + g->d[s][2])) || !(own || GridOwned(g, i + g->d[s][0], j + g->d[s][1], k + g->d[s][2])))) continue;
          e0 = wp[0] - wb[0];
          e1 = wp[1] - wb[1];
          e2 = wp[2] - wb[2];
          d0 = xb[0] - xp[0];
          d1 = xb[1] - xp[1];
          d2 = xb[2] - xp[2];
          f  = c[1] * (d0 * e0 + d1 * e1 + d2 * e2);
          if (u) f += c[2] * ((u[3 * b] - u[3 * p]) * e0 + (u[3 * b + 1] - u[3 * p + 1]) * e1 + (u[3 * b + 2] - u[3 * p + 2]) * e2);
          t0 = c[0] * e0 + f * d0;
          t1 = c[0] * e1 + f * d1;
          t2 = c[0] * e2 + f * d2;
          yp[0] += t0;
          yp[1] += t1;
          yp[2] += t2;
          yl[3 * b] -= t0;
          yl[3 * b + 1] -= t1;
          yl[3 * b + 2] -= t2;
        }
      }
    }
  }
  if (u) PetscCall(VecRestoreArrayRead(g->ulin, &u));
  PetscCall(VecRestoreArrayRead(g->xlin, &x));
  PetscFunctionReturn(0);
}

static PetscErrorCode GridTangentApply(MechSystem sys, Vec w, Vec y, void *ctx)
{
  MechSpringGrid    *g = (MechSpringGrid *)ctx;
  Vec                wl;
  const PetscScalar *x;
  PetscScalar       *ya;
  PetscReal          kc[MECH_GRID_STENCIL], ksum = 0, yr[3];
  PetscInt           goff[MECH_GRID_STENCIL], ns = 0;
  PetscInt           i, j, k, s, a, e, r = 0;

  PetscFunctionBegin;
  (void)sys;
  /* the stencil without the particle itself: stiffness of the constant springs, ghost offsets */
  for (s = 0; s < g->nst; s++) {
    if (s == g->self) continue;
    kc[ns]   = g->cK * g->spring[s].k;
    goff[ns] = g->goff[s];
    ksum += kc[ns];
    ns++;
  }
  PetscCall(GridGetLocal(g->da, w, &wl, &x));
  if (!g->constant) {
    if (!g->yl) PetscCall(PetscMalloc1(3 * g->gm[0] * g->gm[1] * g->gm[2], &g->yl));
    PetscCall(GridApplyStored(g, x, g->yl));
  }
  PetscCall(VecGetArray(y, &ya));
  for (k = g->xs[2]; k < g->xs[2] + g->xm[2]; k++) {
    for (j = g->xs[1]; j < g->xs[1] + g->xm[1]; j++) {
      for (i = g->xs[0]; i < g->xs[0] + g->xm[0]; i++, r++) {
        const PetscInt   p  = GridGhost(g, i, j, k);
        const PetscReal *wp = &x[3 * p];

        for (a = 0; a < 3; a++) yr[a] = g->cD * g->drag * wp[a];
        if (g->ext)
          for (a = 0; a < 3; a++)
            for (e = 0; e < 3; e++) yr[a] += g->ext[9 * r + 3 * a + e] * wp[e];
        if (!g->constant) {
          for (a = 0; a < 3; a++) yr[a] += g->yl[3 * p + a];
        } else if (GridInterior(g, i, j, k)) {
          /* constant springs, the whole stencil on the grid: no tests, the sums in registers */
          PetscReal y0 = yr[0] + ksum * wp[0], y1 = yr[1] + ksum * wp[1], y2 = yr[2] + ksum * wp[2];

          for (s = 0; s < ns; s++) {
            const PetscReal *ws = wp + 3 * goff[s], c = kc[s];

            y0 -= c * ws[0];
            y1 -= c * ws[1];
            y2 -= c * ws[2];
          }
          yr[0] = y0;
          yr[1] = y1;
          yr[2] = y2;
        } else {
          PetscInt t = 0;

          for (s = 0; s < g->nst; s++) {
            if (s == g->self) continue;
            if (GridInside(g, i + g->d[s][0], j + g->d[s][1], k + g->d[s][2]))
              for (a = 0; a < 3; a++) yr[a] += kc[t] * (wp[a] - wp[3 * goff[t] + a]);
            t++;
          }
        }
        for (a = 0; a < 3; a++) ya[3 * r + a] = yr[a];
      }
    }
  }
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(GridRestoreLocal(g->da, &wl, &x));
  PetscFunctionReturn(0);
}

/*
  Springs enter once: each is counted by its end of smaller natural index, i.e. a particle counts
  the stencil entries after itself. Plus m g z and the model's energy.
*/
static PetscErrorCode GridPotential(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *potential, void *ctx)
{
  const MechSpringGrid *g = (const MechSpringGrid *)ctx;
  Vec                   ql;
  const PetscScalar    *x;
  PetscReal             e = 0, es;
  PetscInt              i, j, k, s;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(GridGetLocal(g->da, q, &ql, &x));
  for (k = g->xs[2]; k < g->xs[2] + g->xm[2]; k++) {
    for (j = g->xs[1]; j < g->xs[1] + g->xm[1]; j++) {
      for (i = g->xs[0]; i < g->xs[0] + g->xm[0]; i++) {
        const PetscInt  p   = GridGhost(g, i, j, k);
        const PetscBool all = GridInterior(g, i, j, k);

        for (s = g->self + 1; s < g->nst; s++) {
          if (!(all || GridInside(g, i + g->d[s][0], j + g->d[s][1], k + g->d[s][2]))) continue;
          PetscCall(MechSpringEvaluate(&g->spring[s], &x[3 * p], &x[3 * (p + g->goff[s])], NULL, NULL, NULL, NULL, NULL, &es));
          e += es;
        }
        e += g->weight * x[3 * p + 2];
        if (g->extra) e += g->extra(g->extractx, &x[3 * p], NULL, 0, NULL, PETSC_FALSE);
      }
    }
  }
  PetscCall(GridRestoreLocal(g->da, &ql, &x));
  PetscCall(MPIU_Allreduce(&e, potential, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)q)));
  PetscFunctionReturn(0);
}

/* Whether stencil entry s couples nearest neighbours (or is the particle itself) */
static inline PetscBool GridNearest(const MechSpringGrid *g, PetscInt s)
{
  return PetscAbsInt(g->d[s][0]) + PetscAbsInt(g->d[s][1]) + PetscAbsInt(g->d[s][2]) <= 1 ? PETSC_TRUE : PETSC_FALSE;
}

/* The row stencil of GridRowStencil(), with reduced only its nearest-neighbour entries */
static inline PetscInt GridRowPattern(const MechSpringGrid *g, PetscInt i, PetscInt j, PetscInt k, const PetscInt gidx[], PetscBool reduced, PetscInt sidx[], PetscInt cols[])
{
  PetscInt nc = GridRowStencil(g, i, j, k, gidx, sidx, cols), b, m = 0;

  if (!reduced) return nc;
  for (b = 0; b < nc; b++) {
    if (!GridNearest(g, sidx[b])) continue;
    sidx[m]   = sidx[b];
    cols[m++] = cols[b];
  }
  return m;
}

/*
  The tangent template: exactly the spring couplings (13 blocks per interior row of the cloth, 33
  of the lattice with bend springs), preallocated exactly and filled with explicit zeros so the
  pattern is fixed before the first evaluation. DMCreateMatrix would give the full box stencil
  (25 and 125 blocks with width 2), multiplying the memory traffic of every product. With
  reduced, only the nearest-neighbour couplings (5 blocks per interior row of the cloth, 7 of the
  lattice): the sparser pattern of reduced preconditioning matrices (MechSystemSetTangentPattern()).
*/
static PetscErrorCode GridCreateTangentMatrix(const MechSpringGrid *g, PetscBool reduced, Mat *J)
{
  ISLocalToGlobalMapping ltog;
  const PetscInt        *gidx;
  MatType                mtype;
  PetscInt               i, j, k, b, nc, nloc, N, *dnz, *onz;
  PetscInt               sidx[MECH_GRID_STENCIL], cols[MECH_GRID_STENCIL];
  PetscScalar            zeros[9 * MECH_GRID_STENCIL] = {0};

  PetscFunctionBegin;
  PetscCall(DMGetLocalToGlobalMapping(g->da, &ltog));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(ltog, &gidx));
  nloc = g->xm[0] * g->xm[1] * g->xm[2];
  N    = g->n[0] * g->n[1] * g->n[2];
  PetscCall(PetscMalloc2(nloc, &dnz, nloc, &onz));
  for (k = g->xs[2]; k < g->xs[2] + g->xm[2]; k++) {
    for (j = g->xs[1]; j < g->xs[1] + g->xm[1]; j++) {
      for (i = g->xs[0]; i < g->xs[0] + g->xm[0]; i++) {
        const PetscInt r = GridOwnedIndex(g, i, j, k);

        nc     = GridRowPattern(g, i, j, k, gidx, reduced, sidx, cols);
        dnz[r] = onz[r] = 0;
        for (b = 0; b < nc; b++) {
          if (GridOwned(g, i + g->d[sidx[b]][0], j + g->d[sidx[b]][1], k + g->d[sidx[b]][2])) dnz[r]++;
          else onz[r]++;
        }
      }
    }
  }
  PetscCall(DMGetMatType(g->da, &mtype));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)g->da), J));
  PetscCall(MatSetSizes(*J, 3 * nloc, 3 * nloc, 3 * N, 3 * N));
  PetscCall(MatSetBlockSize(*J, 3));
  PetscCall(MatSetType(*J, mtype));
  PetscCall(MatXAIJSetPreallocation(*J, 3, dnz, onz, NULL, NULL));
  PetscCall(MatSetLocalToGlobalMapping(*J, ltog, ltog));
  PetscCall(PetscFree2(dnz, onz));
  for (k = g->xs[2]; k < g->xs[2] + g->xm[2]; k++) {
    for (j = g->xs[1]; j < g->xs[1] + g->xm[1]; j++) {
      for (i = g->xs[0]; i < g->xs[0] + g->xm[0]; i++) {
        const PetscInt row = gidx[GridGhost(g, i, j, k)];

        nc = GridRowPattern(g, i, j, k, gidx, reduced, sidx, cols);
        PetscCall(MatSetValuesBlocked(*J, 1, &row, nc, cols, zeros, INSERT_VALUES));
      }
    }
  }
  PetscCall(ISLocalToGlobalMappingRestoreBlockIndices(ltog, &gidx));
  PetscCall(MatAssemblyBegin(*J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(*J, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* MechTangentPatternFn: the template again, or its nearest-neighbour part */
static PetscErrorCode GridTangentPattern(MechSystem sys, PetscBool reduced, Mat *J, void *ctx)
{
  PetscFunctionBegin;
  (void)sys;
  PetscCall(GridCreateTangentMatrix((const MechSpringGrid *)ctx, reduced, J));
  PetscFunctionReturn(0);
}

PetscErrorCode MechSpringGridSetUpSystem(MechSpringGrid *g, MechSystem sys, PetscReal pmass, PetscBool damped)
{
  const PetscInt nloc = g->xm[0] * g->xm[1] * g->xm[2], N = g->n[0] * g->n[1] * g->n[2];
  PetscInt       rstart, rend, r;
  Mat            M, J;

  PetscFunctionBegin;
  PetscCall(MechSystemSetApplicationContext(sys, g, MechSpringGridDestroy));
  /* lumped mass: a diagonal AIJ matrix with the DMDA's layout */
  PetscCall(MatCreateAIJ(PetscObjectComm((PetscObject)g->da), 3 * nloc, 3 * nloc, 3 * N, 3 * N, 1, NULL, 0, NULL, &M));
  PetscCall(MatGetOwnershipRange(M, &rstart, &rend));
  for (r = rstart; r < rend; r++) PetscCall(MatSetValue(M, r, r, pmass, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MechSystemSetMass(sys, M));
  PetscCall(GridCreateTangentMatrix(g, PETSC_FALSE, &J));
  PetscCall(MechSystemSetForce(sys, GridForce, g));
  PetscCall(MechSystemSetTangent(sys, J, damped, GridTangent, g));
  PetscCall(MechSystemSetTangentDefinite(sys, GridTangentDefinite, g));
  PetscCall(MechSystemSetTangentAction(sys, GridTangentLinearize, GridTangentApply, g));
  PetscCall(MechSystemSetTangentPattern(sys, GridTangentPattern, g));
  PetscCall(MechSystemSetPotential(sys, GridPotential, g));
  PetscCall(MechSystemSetPatch(sys, GridPatch, g));
  /* the springs' discrete gradient is exact and frame-invariant; the model's own term (the cloth's
     fixed sphere) gets a per-particle generic one, without a derivative or momentum conservation */
  PetscCall(MechSystemSetDiscreteGradient(sys, GridDiscreteGradient, g->extra ? NULL : GridDiscreteGradientJacobian, g->extra ? PETSC_FALSE : PETSC_TRUE, g));
  PetscCall(MatDestroy(&M));
  PetscCall(MatDestroy(&J));
  PetscFunctionReturn(0);
}

PetscErrorCode MechSpringGridSetFixedBase(MechSpringGrid *g, MechSystem sys, PetscBool ends)
{
  ISLocalToGlobalMapping ltog;
  const PetscInt        *gidx;
  PetscInt              *fidx, nfix = 0, i, j, c;
  IS                     fixed;

  PetscFunctionBegin;
  PetscCall(DMGetLocalToGlobalMapping(g->da, &ltog));
  PetscCall(PetscMalloc1(g->xs[2] == 0 ? 3 * g->xm[1] * g->xm[0] : 0, &fidx));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(ltog, &gidx));
  if (g->xs[2] == 0) {
    for (j = g->xs[1]; j < g->xs[1] + g->xm[1]; j++) {
      for (i = g->xs[0]; i < g->xs[0] + g->xm[0]; i++) {
        if (ends && i != 0 && i != g->n[0] - 1) continue;
        for (c = 0; c < 3; c++) fidx[nfix++] = 3 * gidx[GridGhost(g, i, j, 0)] + c;
      }
    }
  }
  PetscCall(ISLocalToGlobalMappingRestoreBlockIndices(ltog, &gidx));
  PetscCall(ISCreateGeneral(PetscObjectComm((PetscObject)g->da), nfix, fidx, PETSC_OWN_POINTER, &fixed));
  PetscCall(MechSystemSetFixed(sys, fixed, NULL));
  PetscCall(ISDestroy(&fixed));
  PetscFunctionReturn(0);
}

PetscErrorCode MechSpringGridSetInitialState(MechSpringGrid *g, MechSystem sys, PetscReal h, PetscReal stretch, const PetscReal v0[3])
{
  Vec          q, v;
  PetscScalar *x, *u;
  PetscInt     dim, i, j, k, c;

  PetscFunctionBegin;
  PetscCall(DMGetDimension(g->da, &dim));
  PetscCall(DMCreateGlobalVector(g->da, &q));
  PetscCall(VecDuplicate(q, &v));
  PetscCall(VecGetArray(q, &x));
  PetscCall(VecGetArray(v, &u));
  for (k = g->xs[2]; k < g->xs[2] + g->xm[2]; k++) {
    for (j = g->xs[1]; j < g->xs[1] + g->xm[1]; j++) {
      for (i = g->xs[0]; i < g->xs[0] + g->xm[0]; i++) {
        /* back from (i, j, k) to the DMDA's (x, y, z), see gridsprings.h */
        const PetscInt p = GridOwnedIndex(g, i, j, k), pt[3] = {dim == 1 ? k : i, dim == 3 ? j : (dim == 2 ? k : 0), dim == 3 ? k : 0};

        x[3 * p]     = pt[0] * stretch * h;
        x[3 * p + 1] = pt[1] * h;
        x[3 * p + 2] = pt[2] * h;
        for (c = 0; c < 3; c++) u[3 * p + c] = k == 0 ? 0 : v0[c];
      }
    }
  }
  PetscCall(VecRestoreArray(v, &u));
  PetscCall(VecRestoreArray(q, &x));
  PetscCall(MechSystemSetInitialState(sys, q, v));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}
