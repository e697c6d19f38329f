/*
  Cloth: an nx x ny sheet of particles (nx = ny = -cloth_n unless the DMDA options say otherwise)
  joined by three families of springs, all through the shared kernel of springs.h:

    structural  (i, j)-(i +- 1, j), (i, j +- 1)       rest length h
    shear       (i, j)-(i +- 1, j +- 1)               rest length sqrt(2) h
    bend        (i, j)-(i +- 2, j), (i, j +- 2)       rest length 2 h

  plus gravity along -z (f gets +m g e_z), linear air drag (f gets +c_drag v) and an optional
  penalty sphere. The sheet starts flat in the plane z = 0, particle (i, j) at (i h, j h, 0), and
  hangs from the edge j = 0 (its two corners, or all of it): released, it falls and swings about
  the x axis, through the default sphere.

  The particles live on a 2-D DMDA with 3 dofs (x, y, z) and a box stencil, of width 2 when there
  are bend springs (so that every spring of an owned particle reaches a ghost at most) and 1
  otherwise. Each rank computes the rows of its own particles only, summing the springs of a
  particle in one fixed order (its stencil, in natural order), so that every entry is computed
  by the same operations on any number of ranks: forces are bitwise independent of the partition.

  Each spring is evaluated once (not once per end): the kernel's results for the two ends are
  exact negatives (force) or equal (tangent block) bit for bit, because swapping the ends only
  flips signs. A particle evaluates its forward springs (to the stencil entries after itself);
  the results of the last sw + 1 rows are kept in a small buffer, from which the rows of the
  backward partners are read. A spring with an end on another rank is evaluated by both ranks.
*/
#include <tsmech.h>
#include <petscdmda.h>
#include "models/springs.h"

#if defined(PETSC_USE_COMPLEX)
#error "The cloth model needs a real PETSc build (PetscScalar == PetscReal)"
#endif

/* The particle itself and its 12 possible spring partners */
#define CLOTH_STENCIL 13

typedef struct {
  DM         da;
  PetscInt   nx, ny;
  PetscInt   nst;               /* stencil entries in use (the particle itself included) */
  PetscInt   self;              /* position of the particle itself in the stencil */
  PetscInt   di[CLOTH_STENCIL]; /* stencil offsets, in natural order (j first, then i) */
  PetscInt   dj[CLOTH_STENCIL];
  MechSpring spring[CLOTH_STENCIL]; /* the spring to each stencil entry (unused at self) */
  PetscInt   nfw;                   /* forward entries: self + 1, ..., nst - 1 */
  PetscInt   sw;                    /* stencil width, the reach of the farthest spring */
  PetscInt   cx0, cxm;              /* particles whose springs are buffered: x in [cx0, cx0 + cxm) */
  PetscReal *buf;                   /* forward spring results of the last sw + 1 rows: row slot,
                                       x, forward entry, then 3 (force) or 9 (tangent) reals */
  PetscReal weight, drag;           /* per particle: m g and the drag coefficient */
  PetscBool sphere;
  PetscReal center[3], radius, ksp; /* ksp: penalty stiffness per particle */
} Cloth;

static PetscErrorCode ClothDestroy(void *ctx)
{
  Cloth *cl = (Cloth *)ctx;

  PetscFunctionBegin;
  PetscCall(DMDestroy(&cl->da));
  PetscCall(PetscFree(cl->buf));
  PetscCall(PetscFree(cl));
  PetscFunctionReturn(0);
}

/* Ghosted local copy of a state vector as a [j][i][c] array */
static PetscErrorCode ClothGetLocal(DM da, Vec x, Vec *xl, const PetscScalar ****a)
{
  PetscFunctionBegin;
  PetscCall(DMGetLocalVector(da, xl));
  PetscCall(DMGlobalToLocalBegin(da, x, INSERT_VALUES, *xl));
  PetscCall(DMGlobalToLocalEnd(da, x, INSERT_VALUES, *xl));
  PetscCall(DMDAVecGetArrayDOFRead(da, *xl, (void *)a));
  PetscFunctionReturn(0);
}

static PetscErrorCode ClothRestoreLocal(DM da, Vec *xl, const PetscScalar ****a)
{
  PetscFunctionBegin;
  PetscCall(DMDAVecRestoreArrayDOFRead(da, *xl, (void *)a));
  PetscCall(DMRestoreLocalVector(da, xl));
  PetscFunctionReturn(0);
}

/*
  Sphere penalty on one particle at x. Inside the sphere (distance r < R from the centre) the
  physical force ks (R - r) e pushes the particle out along e = (x - c) / r, so f gets
  ks (r - R) e, the gradient of the energy 1/2 ks (r - R)^2. Its derivative is
  ks [I - (R / r)(I - e e^T)]; both are only continuous at the surface, where they vanish.
  Adds to f and scale * derivative to K (each may be NULL); returns the energy.
*/
static PetscReal ClothSphere(const Cloth *cl, const PetscScalar x[], PetscReal f[], PetscReal scale, PetscReal K[])
{
  PetscReal d[3], r, pen;
  PetscInt  a, b;

  for (a = 0; a < 3; a++) d[a] = x[a] - cl->center[a];
  r = PetscSqrtReal(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  /* at the very centre the direction is undefined: no push (a measure-zero case) */
  if (r >= cl->radius || r == 0) return 0;
  pen = r - cl->radius;
  if (f)
    for (a = 0; a < 3; a++) f[a] += cl->ksp * pen * d[a] / r;
  if (K)
    for (a = 0; a < 3; a++)
      for (b = 0; b < 3; b++) K[3 * a + b] += scale * cl->ksp * ((a == b ? 1.0 - cl->radius / r : 0.0) + cl->radius / r * (d[a] / r) * (d[b] / r));
  return 0.5 * cl->ksp * pen * pen;
}

static inline PetscBool ClothInside(const Cloth *cl, PetscInt i, PetscInt j)
{
  return i >= 0 && i < cl->nx && j >= 0 && j < cl->ny ? PETSC_TRUE : PETSC_FALSE;
}

static inline PetscBool ClothOwned(PetscInt i, PetscInt j, PetscInt xs, PetscInt ys, PetscInt xm, PetscInt ym)
{
  return i >= xs && i < xs + xm && j >= ys && j < ys + ym ? PETSC_TRUE : PETSC_FALSE;
}

/* Buffer entry of forward spring m of particle (i, j), of width w reals */
static inline PetscReal *ClothBuffer(const Cloth *cl, PetscInt i, PetscInt j, PetscInt m, PetscInt w)
{
  return cl->buf + (((j % (cl->sw + 1)) * cl->cxm + (i - cl->cx0)) * cl->nfw + m) * w;
}

/*
  Forward springs of row j (particles x in [cx0, cx0 + cxm)) into the buffer: forces (w = 3), or
  blocks B = cK Kaa + cD Daa (w = 9). Only springs with an owned end are needed.
*/
static PetscErrorCode ClothRowSprings(const Cloth *cl, PetscInt j, const PetscScalar ***x, const PetscScalar ***u, PetscInt w, PetscReal cK, PetscReal cD)
{
  PetscInt  xs, ys, xm, ym, i, m, a;
  PetscReal K[9] = {0}, D[9] = {0};

  PetscFunctionBegin;
  PetscCall(DMDAGetCorners(cl->da, &xs, &ys, NULL, &xm, &ym, NULL));
  for (i = cl->cx0; i < cl->cx0 + cl->cxm; i++) {
    const PetscBool own = ClothOwned(i, j, xs, ys, xm, ym);

    for (m = 0; m < cl->nfw; m++) {
      const PetscInt s = cl->self + 1 + m, ii = i + cl->di[s], jj = j + cl->dj[s];
      PetscReal     *b;

      if (!ClothInside(cl, ii, jj) || !(own || ClothOwned(ii, jj, xs, ys, xm, ym))) continue;
      b = ClothBuffer(cl, i, j, m, w);
      if (w == 3) PetscCall(MechSpringEvaluate(&cl->spring[s], x[j][i], x[jj][ii], u[j][i], u[jj][ii], b, NULL, NULL, NULL));
      else {
        PetscCall(MechSpringEvaluate(&cl->spring[s], x[j][i], x[jj][ii], u[j][i], u[jj][ii], NULL, cK != 0 ? K : NULL, cD != 0 ? D : NULL, NULL));
        for (a = 0; a < 9; a++) b[a] = cK * K[a] + cD * D[a];
      }
    }
  }
  PetscFunctionReturn(0);
}

/*
  f on the owned particles: springs in stencil order, then gravity, drag and the sphere. A
  backward spring's force is the negative of its partner's forward result. Fixed particles are
  computed too (the system zeroes them); it keeps the loop free of tests.
*/
static PetscErrorCode ClothForce(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
{
  const Cloth         *cl = (const Cloth *)ctx;
  Vec                  ql, vl;
  const PetscScalar ***x, ***u;
  PetscScalar       ***fa;
  PetscReal            fr[3];
  PetscInt             xs, ys, xm, ym, i, j, s, c;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  PetscCall(ClothGetLocal(cl->da, q, &ql, &x));
  PetscCall(ClothGetLocal(cl->da, v, &vl, &u));
  PetscCall(DMDAVecGetArrayDOF(cl->da, f, &fa));
  PetscCall(DMDAGetCorners(cl->da, &xs, &ys, NULL, &xm, &ym, NULL));
  for (j = PetscMax(ys - cl->sw, 0); j < ys + ym; j++) {
    PetscCall(ClothRowSprings(cl, j, x, u, 3, 0, 0));
    if (j < ys) continue;
    for (i = xs; i < xs + xm; i++) {
      fr[0] = fr[1] = fr[2] = 0;
      for (s = 0; s < cl->nst; s++) {
        const PetscInt ii = i + cl->di[s], jj = j + cl->dj[s];

        if (s == cl->self || !ClothInside(cl, ii, jj)) continue;
        if (s < cl->self) {
          const PetscReal *b = ClothBuffer(cl, ii, jj, cl->self - s - 1, 3);

          for (c = 0; c < 3; c++) fr[c] -= b[c];
        } else {
          const PetscReal *b = ClothBuffer(cl, i, j, s - cl->self - 1, 3);

          for (c = 0; c < 3; c++) fr[c] += b[c];
        }
      }
      fr[2] += cl->weight;
      for (c = 0; c < 3; c++) fr[c] += cl->drag * u[j][i][c];
      if (cl->sphere) (void)ClothSphere(cl, x[j][i], fr, 0, NULL);
      for (c = 0; c < 3; c++) fa[j][i][c] = fr[c];
    }
  }
  PetscCall(DMDAVecRestoreArrayDOF(cl->da, f, &fa));
  PetscCall(ClothRestoreLocal(cl->da, &vl, &u));
  PetscCall(ClothRestoreLocal(cl->da, &ql, &x));
  PetscFunctionReturn(0);
}

/*
  The stencil entries of particle (i, j) that lie on the grid: their positions s in the stencil
  and the global block indices (through the DMDA's local-to-global map gidx of the ghosted patch
  starting at (gxs, gys), gxm wide). Columns come out in increasing order on one rank, which
  keeps AIJ insertion cheap.
*/
static inline PetscInt ClothRowStencil(const Cloth *cl, PetscInt i, PetscInt j, const PetscInt gidx[], PetscInt gxs, PetscInt gys, PetscInt gxm, PetscInt sidx[], PetscInt cols[])
{
  PetscInt s, nc = 0;

  for (s = 0; s < cl->nst; s++) {
    const PetscInt ii = i + cl->di[s], jj = j + cl->dj[s];

    if (!ClothInside(cl, ii, jj)) continue;
    sidx[nc]   = s;
    cols[nc++] = gidx[(jj - gys) * gxm + (ii - gxs)];
  }
  return nc;
}

/*
  J = cK K + cD D, one block row per owned particle in a single MatSetValuesBlocked call. For a
  spring to partner b the particle's own block gets +B and column b gets -B, B = cK Kaa + cD Daa
  (springs.h; the same block seen from either end); drag and sphere add to the own block.
*/
static PetscErrorCode ClothTangent(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  const Cloth           *cl = (const Cloth *)ctx;
  Vec                    ql, vl;
  const PetscScalar   ***x, ***u;
  ISLocalToGlobalMapping ltog;
  const PetscInt        *gidx;
  PetscReal              diag[9];
  PetscScalar            vals[9 * CLOTH_STENCIL];
  PetscInt               sidx[CLOTH_STENCIL], cols[CLOTH_STENCIL];
  PetscInt               xs, ys, xm, ym, gxs, gys, gxm, i, j, b, nc, dpos, a, e;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  PetscCall(ClothGetLocal(cl->da, q, &ql, &x));
  PetscCall(ClothGetLocal(cl->da, v, &vl, &u));
  PetscCall(DMDAGetCorners(cl->da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAGetGhostCorners(cl->da, &gxs, &gys, NULL, &gxm, NULL, NULL));
  PetscCall(DMGetLocalToGlobalMapping(cl->da, &ltog));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(ltog, &gidx));
  for (j = PetscMax(ys - cl->sw, 0); j < ys + ym; j++) {
    PetscCall(ClothRowSprings(cl, j, x, u, 9, cK, cD));
    if (j < ys) continue;
    for (i = xs; i < xs + xm; i++) {
      const PetscInt row = gidx[(j - gys) * gxm + (i - gxs)];

      nc   = ClothRowStencil(cl, i, j, gidx, gxs, gys, gxm, sidx, cols);
      dpos = 0;
      for (a = 0; a < 9; a++) diag[a] = 0;
      for (a = 0; a < 3; a++) diag[4 * a] = cD * cl->drag;
      /* vals is the 3 x 3nc row-major block row: entry (a, e) of block b at a * 3nc + 3b + e */
      for (b = 0; b < nc; b++) {
        const PetscInt   s = sidx[b];
        const PetscReal *B;

        if (s == cl->self) {
          dpos = b;
          continue;
        }
        B = s < cl->self ? ClothBuffer(cl, i + cl->di[s], j + cl->dj[s], cl->self - s - 1, 9) : ClothBuffer(cl, i, j, s - cl->self - 1, 9);
        for (a = 0; a < 3; a++) {
          for (e = 0; e < 3; e++) {
            diag[3 * a + e] += B[3 * a + e];
            vals[a * 3 * nc + 3 * b + e] = -B[3 * a + e];
          }
        }
      }
      if (cl->sphere) (void)ClothSphere(cl, x[j][i], NULL, cK, diag);
      for (a = 0; a < 3; a++)
        for (e = 0; e < 3; e++) vals[a * 3 * nc + 3 * dpos + e] = diag[3 * a + e];
      PetscCall(MatSetValuesBlocked(J, 1, &row, nc, cols, vals, ADD_VALUES));
    }
  }
  PetscCall(ISLocalToGlobalMappingRestoreBlockIndices(ltog, &gidx));
  PetscCall(ClothRestoreLocal(cl->da, &vl, &u));
  PetscCall(ClothRestoreLocal(cl->da, &ql, &x));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/*
  Springs enter once: each is counted by its end of smaller natural index, i.e. a particle counts
  the stencil entries after itself. Plus m g z and the sphere's penalty energy.
*/
static PetscErrorCode ClothPotential(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *potential, void *ctx)
{
  const Cloth         *cl = (const Cloth *)ctx;
  Vec                  ql;
  const PetscScalar ***x;
  PetscReal            e = 0, es;
  PetscInt             xs, ys, xm, ym, i, j, s;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(ClothGetLocal(cl->da, q, &ql, &x));
  PetscCall(DMDAGetCorners(cl->da, &xs, &ys, NULL, &xm, &ym, NULL));
  for (j = ys; j < ys + ym; j++) {
    for (i = xs; i < xs + xm; i++) {
      for (s = cl->self + 1; s < cl->nst; s++) {
        const PetscInt ii = i + cl->di[s], jj = j + cl->dj[s];

        if (!ClothInside(cl, ii, jj)) continue;
        PetscCall(MechSpringEvaluate(&cl->spring[s], x[j][i], x[jj][ii], NULL, NULL, NULL, NULL, NULL, &es));
        e += es;
      }
      e += cl->weight * x[j][i][2];
      if (cl->sphere) e += ClothSphere(cl, x[j][i], NULL, 0, NULL);
    }
  }
  PetscCall(ClothRestoreLocal(cl->da, &ql, &x));
  PetscCall(MPIU_Allreduce(&e, potential, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)q)));
  PetscFunctionReturn(0);
}

/*
  The tangent template: exactly the spring couplings (13 blocks per row in the interior, fewer
  without shear or bend springs), preallocated exactly and filled with explicit zeros so the
  pattern is fixed before the first evaluation. DMCreateMatrix would give the full box stencil
  (25 blocks with width 2), nearly doubling the memory traffic of every product.
*/
static PetscErrorCode ClothCreateTangentMatrix(Cloth *cl, Mat *J)
{
  ISLocalToGlobalMapping ltog;
  const PetscInt        *gidx;
  MatType                mtype;
  PetscInt               xs, ys, xm, ym, gxs, gys, gxm, i, j, b, nc, *dnz, *onz;
  PetscInt               sidx[CLOTH_STENCIL], cols[CLOTH_STENCIL];
  PetscScalar            zeros[9 * CLOTH_STENCIL] = {0};

  PetscFunctionBegin;
  PetscCall(DMDAGetCorners(cl->da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAGetGhostCorners(cl->da, &gxs, &gys, NULL, &gxm, NULL, NULL));
  PetscCall(DMGetLocalToGlobalMapping(cl->da, &ltog));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(ltog, &gidx));
  PetscCall(PetscMalloc2(xm * ym, &dnz, xm * ym, &onz));
  for (j = ys; j < ys + ym; j++) {
    for (i = xs; i < xs + xm; i++) {
      const PetscInt r = (j - ys) * xm + (i - xs);

      nc     = ClothRowStencil(cl, i, j, gidx, gxs, gys, gxm, sidx, cols);
      dnz[r] = onz[r] = 0;
      for (b = 0; b < nc; b++) {
        const PetscInt ii = i + cl->di[sidx[b]], jj = j + cl->dj[sidx[b]];

        if (ii >= xs && ii < xs + xm && jj >= ys && jj < ys + ym) dnz[r]++;
        else onz[r]++;
      }
    }
  }
  PetscCall(DMGetMatType(cl->da, &mtype));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)cl->da), J));
  PetscCall(MatSetSizes(*J, 3 * xm * ym, 3 * xm * ym, 3 * cl->nx * cl->ny, 3 * cl->nx * cl->ny));
  PetscCall(MatSetBlockSize(*J, 3));
  PetscCall(MatSetType(*J, mtype));
  PetscCall(MatXAIJSetPreallocation(*J, 3, dnz, onz, NULL, NULL));
  PetscCall(MatSetLocalToGlobalMapping(*J, ltog, ltog));
  PetscCall(PetscFree2(dnz, onz));
  for (j = ys; j < ys + ym; j++) {
    for (i = xs; i < xs + xm; i++) {
      const PetscInt row = gidx[(j - gys) * gxm + (i - gxs)];

      nc = ClothRowStencil(cl, i, j, gidx, gxs, gys, gxm, sidx, cols);
      PetscCall(MatSetValuesBlocked(*J, 1, &row, nc, cols, zeros, INSERT_VALUES));
    }
  }
  PetscCall(ISLocalToGlobalMappingRestoreBlockIndices(ltog, &gidx));
  PetscCall(MatAssemblyBegin(*J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(*J, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscFunctionReturn(0);
}

static const char *const ClothPinTypes[] = {"corners", "edge", "ClothPin", "CLOTH_PIN_", NULL};

/*
  MechCreateCloth - an nx x ny cloth on a 2-D DMDA, hanging from its edge j = 0.

  Collective

  Options:
+ -cloth_n <32>              - particles per side (the DMDA options, e.g. -da_grid_x, -da_refine, may change it)
. -cloth_size <1>            - side length along x; the spacing h = size / (nx - 1) is the same along y
. -cloth_mass <1>            - total mass, lumped equally on the particles
. -cloth_k <1e3>             - stiffness of each structural spring; in a square lattice this is also the
                               in-plane stiffness of the whole sheet, so it does not depend on n
. -cloth_k_shear <100>       - stiffness of each shear (diagonal) spring, 0: none
. -cloth_k_bend <10>         - stiffness of each bend spring (distance 2), 0: none (then the stencil width is 1)
. -cloth_c <0.1>             - damping of every spring along its direction (default 0 with -cloth_linear)
. -cloth_drag <0.1>          - total linear air drag coefficient, lumped equally on the particles like the mass
. -cloth_g <9.81>            - gravity along -z
. -cloth_linear              - zero-rest-length springs (otherwise the rest lengths are those of the flat start)
. -cloth_pin <corners>       - pinned particles: corners (0, 0) and (nx - 1, 0), or the edge j = 0
. -cloth_sphere              - a penalty sphere to collide with
. -cloth_sphere_center <x,y,z> - its centre, default (size/2, size/2, -size/2): in the path of the swing
. -cloth_sphere_radius <size/4> - its radius
- -cloth_sphere_k <1e5>      - total penalty stiffness, lumped equally on the particles (so the contact
                               frequency sqrt(k / mass) does not depend on n)

  The system is linear (MechSystemSetLinear()) only with -cloth_linear, -cloth_c 0 and no sphere:
  the spring damper acts along the spring direction, which turns with the motion even for
  zero-rest-length springs, and the penalty is piecewise. -cloth_linear therefore makes 0 the
  default of -cloth_c.

  With bend springs the DMDA's stencil width is 2, so every rank must own at least 2 particles
  along each direction it is split in (DMDA's check); -cloth_k_bend 0 lowers that to 1.
*/
PetscErrorCode MechCreateCloth(MPI_Comm comm, MechSystem *sys)
{
  PetscInt               n = 32, nx, ny, sw, xs, ys, xm, ym, gxs, gys, gxm, i, j, c, nfix = 0, pin = 0, ncenter = 3;
  PetscReal              size = 1, mass = 1, k = 1e3, kshear = 100, kbend = 10, cdamp = 0.1, drag = 0.1, g = 9.81, h;
  PetscReal              center[3], radius, ksphere = 1e5;
  PetscBool              zerorest = PETSC_FALSE, sphere = PETSC_FALSE, set;
  Cloth                 *cl;
  MechSystem             sy;
  DM                     da;
  Vec                    q, v;
  Mat                    M, J;
  IS                     fixed;
  PetscInt              *fidx;
  PetscScalar         ***x;
  const PetscInt        *gidx;
  ISLocalToGlobalMapping ltog;
  PetscInt               bs;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "Cloth model options", "MechSystem");
  PetscCall(PetscOptionsInt("-cloth_n", "Particles per side", "MechCreateCloth", n, &n, NULL));
  PetscCall(PetscOptionsReal("-cloth_size", "Side length", "MechCreateCloth", size, &size, NULL));
  PetscCall(PetscOptionsReal("-cloth_mass", "Total mass, lumped on the particles", "MechCreateCloth", mass, &mass, NULL));
  PetscCall(PetscOptionsReal("-cloth_k", "Structural spring stiffness", "MechCreateCloth", k, &k, NULL));
  PetscCall(PetscOptionsReal("-cloth_k_shear", "Shear (diagonal) spring stiffness, 0: none", "MechCreateCloth", kshear, &kshear, NULL));
  PetscCall(PetscOptionsReal("-cloth_k_bend", "Bend (distance 2) spring stiffness, 0: none", "MechCreateCloth", kbend, &kbend, NULL));
  PetscCall(PetscOptionsBool("-cloth_linear", "Zero-rest-length springs", "MechCreateCloth", zerorest, &zerorest, NULL));
  if (zerorest) cdamp = 0;
  PetscCall(PetscOptionsReal("-cloth_c", "Damping of every spring along its direction", "MechCreateCloth", cdamp, &cdamp, NULL));
  PetscCall(PetscOptionsReal("-cloth_drag", "Total linear air drag, lumped on the particles", "MechCreateCloth", drag, &drag, NULL));
  PetscCall(PetscOptionsReal("-cloth_g", "Gravity along -z", "MechCreateCloth", g, &g, NULL));
  PetscCall(PetscOptionsEList("-cloth_pin", "Pinned particles", "MechCreateCloth", ClothPinTypes, 2, ClothPinTypes[pin], &pin, NULL));
  PetscCall(PetscOptionsBool("-cloth_sphere", "Collide with a penalty sphere", "MechCreateCloth", sphere, &sphere, NULL));
  center[0] = size / 2;
  center[1] = size / 2;
  center[2] = -size / 2;
  radius    = size / 4;
  PetscCall(PetscOptionsRealArray("-cloth_sphere_center", "Centre of the sphere", "MechCreateCloth", center, &ncenter, &set));
  PetscCall(PetscOptionsReal("-cloth_sphere_radius", "Radius of the sphere", "MechCreateCloth", radius, &radius, NULL));
  PetscCall(PetscOptionsReal("-cloth_sphere_k", "Total penalty stiffness of the sphere, lumped on the particles", "MechCreateCloth", ksphere, &ksphere, NULL));
  PetscOptionsEnd();
  /* checked after PetscOptionsEnd(), which must run to free the options object */
  PetscCheck(!set || ncenter == 3, comm, PETSC_ERR_ARG_SIZ, "-cloth_sphere_center needs 3 comma-separated values, got %" PetscInt_FMT, ncenter);
  PetscCheck(n >= 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cloth_n %" PetscInt_FMT " must be at least 2", n);
  PetscCheck(size > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cloth_size %g must be positive", (double)size);
  PetscCheck(mass > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cloth_mass %g must be positive", (double)mass);
  PetscCheck(k > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cloth_k %g must be positive", (double)k);
  PetscCheck(kshear >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cloth_k_shear %g must be non-negative", (double)kshear);
  PetscCheck(kbend >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cloth_k_bend %g must be non-negative", (double)kbend);
  PetscCheck(cdamp >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cloth_c %g must be non-negative", (double)cdamp);
  PetscCheck(drag >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cloth_drag %g must be non-negative", (double)drag);
  PetscCheck(!sphere || radius > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cloth_sphere_radius %g must be positive", (double)radius);
  PetscCheck(!sphere || ksphere > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cloth_sphere_k %g must be positive", (double)ksphere);

  /* bend springs reach two particles away: the ghost layer must be as wide */
  sw = kbend > 0 ? 2 : 1;
  PetscCall(DMDACreate2d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, n, n, PETSC_DECIDE, PETSC_DECIDE, 3, sw, NULL, NULL, &da));
  PetscCall(DMSetMatType(da, MATAIJ));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMDASetFieldName(da, 0, "x"));
  PetscCall(DMDASetFieldName(da, 1, "y"));
  PetscCall(DMDASetFieldName(da, 2, "z"));
  /* DMDA options (-da_grid_x, -da_refine) may have changed the size */
  PetscCall(DMDAGetInfo(da, NULL, &nx, &ny, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCheck(nx >= 2 && ny >= 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "The cloth needs at least 2 x 2 particles, the DMDA has %" PetscInt_FMT " x %" PetscInt_FMT, nx, ny);
  h = size / (nx - 1);

  PetscCall(PetscNew(&cl));
  cl->da     = da;
  cl->nx     = nx;
  cl->ny     = ny;
  cl->weight = mass / (nx * ny) * g;
  cl->drag   = drag / (nx * ny);
  cl->sphere = sphere;
  for (c = 0; c < 3; c++) cl->center[c] = center[c];
  cl->radius = radius;
  cl->ksp    = ksphere / (nx * ny);
  /* the stencil in natural order: offsets sorted by (dj, di); families with zero stiffness left out */
  for (j = -2; j <= 2; j++) {
    for (i = -2; i <= 2; i++) {
      const PetscInt ai = PetscAbsInt(i), aj = PetscAbsInt(j);
      PetscReal      ks;

      if (ai + aj == 0) ks = -1; /* the particle itself */
      else if (ai <= 1 && aj <= 1) ks = ai + aj == 1 ? k : kshear;
      else if (ai + aj == 2 && (ai == 0 || aj == 0)) ks = kbend;
      else continue;
      if (ks == 0) continue;
      if (ks < 0) cl->self = cl->nst;
      cl->di[cl->nst]       = i;
      cl->dj[cl->nst]       = j;
      cl->spring[cl->nst].k = ks < 0 ? 0 : ks;
      cl->spring[cl->nst].L = zerorest ? 0 : h * PetscSqrtReal((PetscReal)(i * i + j * j));
      cl->spring[cl->nst].c = cdamp;
      cl->nst++;
    }
  }

  /* backward partners sit up to sw to the left and 1 to the right (shear), up to sw rows up */
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  cl->nfw = cl->nst - cl->self - 1;
  cl->sw  = sw;
  cl->cx0 = PetscMax(xs - sw, 0);
  cl->cxm = PetscMin(xs + xm + 1, nx) - cl->cx0;
  PetscCall(PetscMalloc1((sw + 1) * cl->cxm * cl->nfw * 9, &cl->buf));

  PetscCall(MechSystemCreate(comm, &sy));
  PetscCall(MechSystemSetApplicationContext(sy, cl, ClothDestroy));
  PetscCall(MechSystemSetModelName(sy, "cloth"));
  PetscCall(MechSystemAddParameter(sy, "n", (PetscReal)nx));
  PetscCall(MechSystemAddParameter(sy, "ny", (PetscReal)ny));
  PetscCall(MechSystemAddParameter(sy, "size", size));
  PetscCall(MechSystemAddParameter(sy, "mass", mass));
  PetscCall(MechSystemAddParameter(sy, "k", k));
  PetscCall(MechSystemAddParameter(sy, "k_shear", kshear));
  PetscCall(MechSystemAddParameter(sy, "k_bend", kbend));
  PetscCall(MechSystemAddParameter(sy, "c", cdamp));
  PetscCall(MechSystemAddParameter(sy, "drag", drag));
  PetscCall(MechSystemAddParameter(sy, "g", g));
  PetscCall(MechSystemAddParameter(sy, "linear", zerorest ? 1.0 : 0.0));
  PetscCall(MechSystemAddParameter(sy, "pin_edge", (PetscReal)pin));
  PetscCall(MechSystemAddParameter(sy, "sphere", sphere ? 1.0 : 0.0));
  if (sphere) {
    PetscCall(MechSystemAddParameter(sy, "sphere_x", center[0]));
    PetscCall(MechSystemAddParameter(sy, "sphere_y", center[1]));
    PetscCall(MechSystemAddParameter(sy, "sphere_z", center[2]));
    PetscCall(MechSystemAddParameter(sy, "sphere_radius", radius));
    PetscCall(MechSystemAddParameter(sy, "sphere_k", ksphere));
  }
  PetscCall(MechSystemSetDM(sy, da));

  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAGetGhostCorners(da, &gxs, &gys, NULL, &gxm, NULL, NULL));
  PetscCall(DMGetLocalToGlobalMapping(da, &ltog));
  PetscCall(ISLocalToGlobalMappingGetBlockSize(ltog, &bs));
  PetscCheck(bs == 3, comm, PETSC_ERR_PLIB, "Expected a DMDA local-to-global map of block size 3, got %" PetscInt_FMT, bs);

  /* lumped mass: a diagonal AIJ matrix with the DMDA's layout */
  PetscCall(MatCreateAIJ(comm, 3 * xm * ym, 3 * xm * ym, 3 * nx * ny, 3 * nx * ny, 1, NULL, 0, NULL, &M));
  {
    PetscInt rstart, rend;

    PetscCall(MatGetOwnershipRange(M, &rstart, &rend));
    for (i = rstart; i < rend; i++) PetscCall(MatSetValue(M, i, i, mass / (nx * ny), INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MechSystemSetMass(sy, M));

  PetscCall(ClothCreateTangentMatrix(cl, &J));
  PetscCall(MechSystemSetForce(sy, ClothForce, cl));
  PetscCall(MechSystemSetTangent(sy, J, cdamp > 0 || drag > 0 ? PETSC_TRUE : PETSC_FALSE, ClothTangent, cl));
  PetscCall(MechSystemSetPotential(sy, ClothPotential, cl));
  PetscCall(MechSystemSetLinear(sy, zerorest && cdamp == 0 && !sphere ? PETSC_TRUE : PETSC_FALSE));

  /* pinned particles of this rank, as global dof indices */
  PetscCall(PetscMalloc1(3 * xm, &fidx));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(ltog, &gidx));
  if (ys == 0) {
    for (i = xs; i < xs + xm; i++) {
      if (pin == 0 && i != 0 && i != nx - 1) continue;
      for (c = 0; c < 3; c++) fidx[nfix++] = 3 * gidx[(0 - gys) * gxm + (i - gxs)] + c;
    }
  }
  PetscCall(ISLocalToGlobalMappingRestoreBlockIndices(ltog, &gidx));
  PetscCall(ISCreateGeneral(comm, nfix, fidx, PETSC_OWN_POINTER, &fixed));
  PetscCall(MechSystemSetFixed(sy, fixed, NULL));

  /* flat start in z = 0 at rest */
  PetscCall(DMCreateGlobalVector(da, &q));
  PetscCall(DMDAVecGetArrayDOF(da, q, &x));
  for (j = ys; j < ys + ym; j++) {
    for (i = xs; i < xs + xm; i++) {
      x[j][i][0] = i * h;
      x[j][i][1] = j * h;
      x[j][i][2] = 0;
    }
  }
  PetscCall(DMDAVecRestoreArrayDOF(da, q, &x));
  PetscCall(VecDuplicate(q, &v));
  PetscCall(VecSet(v, 0.0));
  PetscCall(MechSystemSetInitialState(sy, q, v));

  PetscCall(ISDestroy(&fixed));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&M));
  PetscCall(MatDestroy(&J));
  *sys = sy;
  PetscFunctionReturn(0);
}
