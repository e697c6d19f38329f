/*
  Lattice: a soft box of nx x ny x nz particles (nx = ny = nz = -lattice_n unless the DMDA options
  say otherwise) on a uniform grid of spacing h, joined through the shared kernel of springs.h by

    structural  the 6 axis neighbours                          rest length h
    shear       the 12 face diagonals and the 8 body diagonals rest length sqrt(2) h, sqrt(3) h
    bend        the 6 particles two steps along an axis        rest length 2 h

  with gravity along -z (f gets +m g e_z) and linear drag. The base layer k = 0 is fixed; the
  body starts undeformed, particle (i, j, k) at (i h, j h, k h), with an optional uniform initial
  velocity, and sags and wobbles under gravity.

  In 3-D a spring network of spacing h acts like a material of modulus ~ k_spring / h, so the
  stiffness options are those of the whole box and each spring gets k h / size: the motion then
  does not depend on the resolution (and likewise for the spring damping).

  The particles live on a 3-D DMDA with 3 dofs and a box stencil, of width 2 with bend springs
  and 1 otherwise. As in the cloth, each rank computes the rows of its own particles only,
  summing the springs of a particle in one fixed order, so forces are bitwise independent of the
  partition; each spring is evaluated once, by its end of smaller natural index, and the results
  of the last sw + 1 planes are kept for the partners (see cloth.c).
*/
#include <tsmech.h>
#include <petscdmda.h>
#include "models/springs.h"

#if defined(PETSC_USE_COMPLEX)
#error "The lattice model needs a real PETSc build (PetscScalar == PetscReal)"
#endif

/* The particle itself, 26 neighbours of the unit box and 6 bend partners */
#define LATTICE_STENCIL 33

typedef struct {
  DM         da;
  PetscInt   nx, ny, nz;
  PetscInt   nst;                                                           /* stencil entries in use (the particle itself included) */
  PetscInt   self;                                                          /* position of the particle itself in the stencil */
  PetscInt   di[LATTICE_STENCIL], dj[LATTICE_STENCIL], dk[LATTICE_STENCIL]; /* natural order */
  MechSpring spring[LATTICE_STENCIL];
  PetscInt   nfw;         /* forward entries: self + 1, ..., nst - 1 */
  PetscInt   sw;          /* stencil width */
  PetscInt   cx0, cxm;    /* particles whose springs are buffered: x in [cx0, cx0 + cxm), */
  PetscInt   cy0, cym;    /* y in [cy0, cy0 + cym) */
  PetscReal *buf;         /* forward spring results of the last sw + 1 planes: plane slot, y, x,
                             forward entry, then 3 (force) or 9 (tangent) reals */
  PetscReal weight, drag; /* per particle: m g and the drag coefficient */
} Lattice;

static PetscErrorCode LatticeDestroy(void *ctx)
{
  Lattice *la = (Lattice *)ctx;

  PetscFunctionBegin;
  PetscCall(DMDestroy(&la->da));
  PetscCall(PetscFree(la->buf));
  PetscCall(PetscFree(la));
  PetscFunctionReturn(0);
}

/* Ghosted local copy of a state vector as a [k][j][i][c] array */
static PetscErrorCode LatticeGetLocal(DM da, Vec x, Vec *xl, const PetscScalar *****a)
{
  PetscFunctionBegin;
  PetscCall(DMGetLocalVector(da, xl));
  PetscCall(DMGlobalToLocalBegin(da, x, INSERT_VALUES, *xl));
  PetscCall(DMGlobalToLocalEnd(da, x, INSERT_VALUES, *xl));
  PetscCall(DMDAVecGetArrayDOFRead(da, *xl, (void *)a));
  PetscFunctionReturn(0);
}

static PetscErrorCode LatticeRestoreLocal(DM da, Vec *xl, const PetscScalar *****a)
{
  PetscFunctionBegin;
  PetscCall(DMDAVecRestoreArrayDOFRead(da, *xl, (void *)a));
  PetscCall(DMRestoreLocalVector(da, xl));
  PetscFunctionReturn(0);
}

static inline PetscBool LatticeInside(const Lattice *la, PetscInt i, PetscInt j, PetscInt k)
{
  return i >= 0 && i < la->nx && j >= 0 && j < la->ny && k >= 0 && k < la->nz ? PETSC_TRUE : PETSC_FALSE;
}

static inline PetscBool LatticeOwned(PetscInt i, PetscInt j, PetscInt k, const PetscInt c[], const PetscInt m[])
{
  return i >= c[0] && i < c[0] + m[0] && j >= c[1] && j < c[1] + m[1] && k >= c[2] && k < c[2] + m[2] ? PETSC_TRUE : PETSC_FALSE;
}

/* Buffer entry of forward spring m of particle (i, j, k), of width w reals */
static inline PetscReal *LatticeBuffer(const Lattice *la, PetscInt i, PetscInt j, PetscInt k, PetscInt m, PetscInt w)
{
  return la->buf + ((((k % (la->sw + 1)) * la->cym + (j - la->cy0)) * la->cxm + (i - la->cx0)) * la->nfw + m) * w;
}

/* Forward springs of plane k into the buffer: forces (w = 3) or blocks cK Kaa + cD Daa (w = 9) */
static PetscErrorCode LatticePlaneSprings(const Lattice *la, PetscInt k, const PetscScalar ****x, const PetscScalar ****u, PetscInt w, PetscReal cK, PetscReal cD)
{
  PetscInt  c[3], n[3], i, j, m, a;
  PetscReal K[9] = {0}, D[9] = {0};

  PetscFunctionBegin;
  PetscCall(DMDAGetCorners(la->da, &c[0], &c[1], &c[2], &n[0], &n[1], &n[2]));
  for (j = la->cy0; j < la->cy0 + la->cym; j++) {
    for (i = la->cx0; i < la->cx0 + la->cxm; i++) {
      const PetscBool own = LatticeOwned(i, j, k, c, n);

      for (m = 0; m < la->nfw; m++) {
        const PetscInt s = la->self + 1 + m, ii = i + la->di[s], jj = j + la->dj[s], kk = k + la->dk[s];
        PetscReal     *b;

        if (!LatticeInside(la, ii, jj, kk) || !(own || LatticeOwned(ii, jj, kk, c, n))) continue;
        b = LatticeBuffer(la, i, j, k, m, w);
        if (w == 3) PetscCall(MechSpringEvaluate(&la->spring[s], x[k][j][i], x[kk][jj][ii], u[k][j][i], u[kk][jj][ii], b, NULL, NULL, NULL));
        else {
          PetscCall(MechSpringEvaluate(&la->spring[s], x[k][j][i], x[kk][jj][ii], u[k][j][i], u[kk][jj][ii], NULL, cK != 0 ? K : NULL, cD != 0 ? D : NULL, NULL));
          for (a = 0; a < 9; a++) b[a] = cK * K[a] + cD * D[a];
        }
      }
    }
  }
  PetscFunctionReturn(0);
}

/* f on the owned particles: springs in stencil order (backward ones from the partner's result,
   negated), then gravity and drag */
static PetscErrorCode LatticeForce(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
{
  const Lattice        *la = (const Lattice *)ctx;
  Vec                   ql, vl;
  const PetscScalar ****x, ****u;
  PetscScalar       ****fa;
  PetscReal             fr[3];
  PetscInt              xs, ys, zs, xm, ym, zm, i, j, k, s, c;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  PetscCall(LatticeGetLocal(la->da, q, &ql, &x));
  PetscCall(LatticeGetLocal(la->da, v, &vl, &u));
  PetscCall(DMDAVecGetArrayDOF(la->da, f, &fa));
  PetscCall(DMDAGetCorners(la->da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (k = PetscMax(zs - la->sw, 0); k < zs + zm; k++) {
    PetscCall(LatticePlaneSprings(la, k, x, u, 3, 0, 0));
    if (k < zs) continue;
    for (j = ys; j < ys + ym; j++) {
      for (i = xs; i < xs + xm; i++) {
        fr[0] = fr[1] = fr[2] = 0;
        for (s = 0; s < la->nst; s++) {
          const PetscInt ii = i + la->di[s], jj = j + la->dj[s], kk = k + la->dk[s];

          if (s == la->self || !LatticeInside(la, ii, jj, kk)) continue;
          if (s < la->self) {
            const PetscReal *b = LatticeBuffer(la, ii, jj, kk, la->self - s - 1, 3);

            for (c = 0; c < 3; c++) fr[c] -= b[c];
          } else {
            const PetscReal *b = LatticeBuffer(la, i, j, k, s - la->self - 1, 3);

            for (c = 0; c < 3; c++) fr[c] += b[c];
          }
        }
        fr[2] += la->weight;
        for (c = 0; c < 3; c++) fa[k][j][i][c] = fr[c] + la->drag * u[k][j][i][c];
      }
    }
  }
  PetscCall(DMDAVecRestoreArrayDOF(la->da, f, &fa));
  PetscCall(LatticeRestoreLocal(la->da, &vl, &u));
  PetscCall(LatticeRestoreLocal(la->da, &ql, &x));
  PetscFunctionReturn(0);
}

/*
  The stencil entries of particle (i, j, k) on the grid: positions s in the stencil and global
  block indices through the DMDA's local-to-global map of the ghosted patch (g[0..2] its start,
  gm[0..1] its widths). Columns come out increasing on one rank.
*/
static inline PetscInt LatticeRowStencil(const Lattice *la, PetscInt i, PetscInt j, PetscInt k, const PetscInt gidx[], const PetscInt g[], const PetscInt gm[], PetscInt sidx[], PetscInt cols[])
{
  PetscInt s, nc = 0;

  for (s = 0; s < la->nst; s++) {
    const PetscInt ii = i + la->di[s], jj = j + la->dj[s], kk = k + la->dk[s];

    if (!LatticeInside(la, ii, jj, kk)) continue;
    sidx[nc]   = s;
    cols[nc++] = gidx[((kk - g[2]) * gm[1] + (jj - g[1])) * gm[0] + (ii - g[0])];
  }
  return nc;
}

/* J = cK K + cD D, one block row per owned particle (see ClothTangent) */
static PetscErrorCode LatticeTangent(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  const Lattice         *la = (const Lattice *)ctx;
  Vec                    ql, vl;
  const PetscScalar  ****x, ****u;
  ISLocalToGlobalMapping ltog;
  const PetscInt        *gidx;
  PetscReal              diag[9];
  PetscScalar            vals[9 * LATTICE_STENCIL];
  PetscInt               sidx[LATTICE_STENCIL], cols[LATTICE_STENCIL], g[3], gm[3];
  PetscInt               xs, ys, zs, xm, ym, zm, i, j, k, b, nc, dpos, a, e;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  PetscCall(LatticeGetLocal(la->da, q, &ql, &x));
  PetscCall(LatticeGetLocal(la->da, v, &vl, &u));
  PetscCall(DMDAGetCorners(la->da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(DMDAGetGhostCorners(la->da, &g[0], &g[1], &g[2], &gm[0], &gm[1], &gm[2]));
  PetscCall(DMGetLocalToGlobalMapping(la->da, &ltog));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(ltog, &gidx));
  for (k = PetscMax(zs - la->sw, 0); k < zs + zm; k++) {
    PetscCall(LatticePlaneSprings(la, k, x, u, 9, cK, cD));
    if (k < zs) continue;
    for (j = ys; j < ys + ym; j++) {
      for (i = xs; i < xs + xm; i++) {
        const PetscInt row = gidx[((k - g[2]) * gm[1] + (j - g[1])) * gm[0] + (i - g[0])];

        nc   = LatticeRowStencil(la, i, j, k, gidx, g, gm, sidx, cols);
        dpos = 0;
        for (a = 0; a < 9; a++) diag[a] = 0;
        for (a = 0; a < 3; a++) diag[4 * a] = cD * la->drag;
        /* vals is the 3 x 3nc row-major block row: entry (a, e) of block b at a * 3nc + 3b + e */
        for (b = 0; b < nc; b++) {
          const PetscInt   s = sidx[b];
          const PetscReal *B;

          if (s == la->self) {
            dpos = b;
            continue;
          }
          B = s < la->self ? LatticeBuffer(la, i + la->di[s], j + la->dj[s], k + la->dk[s], la->self - s - 1, 9) : LatticeBuffer(la, i, j, k, s - la->self - 1, 9);
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
  PetscCall(LatticeRestoreLocal(la->da, &vl, &u));
  PetscCall(LatticeRestoreLocal(la->da, &ql, &x));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* Each spring is counted by its end of smaller natural index (the stencil entries after self) */
static PetscErrorCode LatticePotential(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *potential, void *ctx)
{
  const Lattice        *la = (const Lattice *)ctx;
  Vec                   ql;
  const PetscScalar ****x;
  PetscReal             e = 0, es;
  PetscInt              xs, ys, zs, xm, ym, zm, i, j, k, s;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(LatticeGetLocal(la->da, q, &ql, &x));
  PetscCall(DMDAGetCorners(la->da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (k = zs; k < zs + zm; k++) {
    for (j = ys; j < ys + ym; j++) {
      for (i = xs; i < xs + xm; i++) {
        for (s = la->self + 1; s < la->nst; s++) {
          const PetscInt ii = i + la->di[s], jj = j + la->dj[s], kk = k + la->dk[s];

          if (!LatticeInside(la, ii, jj, kk)) continue;
          PetscCall(MechSpringEvaluate(&la->spring[s], x[k][j][i], x[kk][jj][ii], NULL, NULL, NULL, NULL, NULL, &es));
          e += es;
        }
        e += la->weight * x[k][j][i][2];
      }
    }
  }
  PetscCall(LatticeRestoreLocal(la->da, &ql, &x));
  PetscCall(MPIU_Allreduce(&e, potential, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)q)));
  PetscFunctionReturn(0);
}

/* Tangent template with exactly the spring couplings (33 blocks per interior row with bend springs
   instead of the 125 of DMCreateMatrix's box stencil of width 2), explicit zeros, pattern frozen */
static PetscErrorCode LatticeCreateTangentMatrix(Lattice *la, Mat *J)
{
  ISLocalToGlobalMapping ltog;
  const PetscInt        *gidx;
  MatType                mtype;
  PetscInt               xs, ys, zs, xm, ym, zm, i, j, k, b, nc, nloc, N, *dnz, *onz, g[3], gm[3];
  PetscInt               sidx[LATTICE_STENCIL], cols[LATTICE_STENCIL];
  PetscScalar            zeros[9 * LATTICE_STENCIL] = {0};

  PetscFunctionBegin;
  PetscCall(DMDAGetCorners(la->da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(DMDAGetGhostCorners(la->da, &g[0], &g[1], &g[2], &gm[0], &gm[1], &gm[2]));
  PetscCall(DMGetLocalToGlobalMapping(la->da, &ltog));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(ltog, &gidx));
  nloc = xm * ym * zm;
  N    = la->nx * la->ny * la->nz;
  PetscCall(PetscMalloc2(nloc, &dnz, nloc, &onz));
  for (k = zs; k < zs + zm; k++) {
    for (j = ys; j < ys + ym; j++) {
      for (i = xs; i < xs + xm; i++) {
        const PetscInt r = ((k - zs) * ym + (j - ys)) * xm + (i - xs);

        nc     = LatticeRowStencil(la, i, j, k, gidx, g, gm, sidx, cols);
        dnz[r] = onz[r] = 0;
        for (b = 0; b < nc; b++) {
          const PetscInt ii = i + la->di[sidx[b]], jj = j + la->dj[sidx[b]], kk = k + la->dk[sidx[b]];

          if (ii >= xs && ii < xs + xm && jj >= ys && jj < ys + ym && kk >= zs && kk < zs + zm) dnz[r]++;
          else onz[r]++;
        }
      }
    }
  }
  PetscCall(DMGetMatType(la->da, &mtype));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)la->da), J));
  PetscCall(MatSetSizes(*J, 3 * nloc, 3 * nloc, 3 * N, 3 * N));
  PetscCall(MatSetBlockSize(*J, 3));
  PetscCall(MatSetType(*J, mtype));
  PetscCall(MatXAIJSetPreallocation(*J, 3, dnz, onz, NULL, NULL));
  PetscCall(MatSetLocalToGlobalMapping(*J, ltog, ltog));
  PetscCall(PetscFree2(dnz, onz));
  for (k = zs; k < zs + zm; k++) {
    for (j = ys; j < ys + ym; j++) {
      for (i = xs; i < xs + xm; i++) {
        const PetscInt row = gidx[((k - g[2]) * gm[1] + (j - g[1])) * gm[0] + (i - g[0])];

        nc = LatticeRowStencil(la, i, j, k, gidx, g, gm, sidx, cols);
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

/*
  MechCreateLattice - a soft nx x ny x nz box on a 3-D DMDA with its base layer fixed.

  Collective

  Options:
+ -lattice_n <8>          - particles per side (the DMDA options, e.g. -da_grid_z, -da_refine, may change it)
. -lattice_size <1>       - side length along x; the spacing h = size / (nx - 1) is the same along y and z
. -lattice_mass <1>       - total mass, lumped equally on the particles
. -lattice_k <50>         - structural stiffness of the whole box along an axis (each spring: k h / size)
. -lattice_k_shear <25>   - the same for the shear (face and body diagonal) springs, 0: none
. -lattice_k_bend <5>     - the same for the bend springs (distance 2 along an axis), 0: none (stencil width 1)
. -lattice_c <0.1>        - damping along the springs, scaled like k (default 0 with -lattice_linear)
. -lattice_drag <0.1>     - total linear drag coefficient, lumped equally on the particles
. -lattice_g <9.81>       - gravity along -z
. -lattice_linear         - zero-rest-length springs (the body then collapses onto its base)
- -lattice_v0 <0,0,0>     - initial velocity of every free particle

  The system is linear only with -lattice_linear and -lattice_c 0 (hence that default).

  With bend springs the DMDA's stencil width is 2, so every rank must own at least 2 particles
  along each direction it is split in (DMDA's check); -lattice_k_bend 0 lowers that to 1.
*/
PetscErrorCode MechCreateLattice(MPI_Comm comm, MechSystem *sys)
{
  PetscInt               n = 8, nx, ny, nz, sw, xs, ys, zs, xm, ym, zm, i, j, k, c, nfix = 0, nv0 = 3, bs, g[3], gm[3];
  PetscReal              size = 1, mass = 1, ks = 50, kshear = 25, kbend = 5, cdamp = 0.1, drag = 0.1, grav = 9.81, v0[3] = {0, 0, 0}, h, scale;
  PetscBool              zerorest = PETSC_FALSE, set;
  Lattice               *la;
  MechSystem             sy;
  DM                     da;
  Vec                    q, v;
  Mat                    M, J;
  IS                     fixed;
  PetscInt              *fidx;
  PetscScalar        ****x, ****u;
  const PetscInt        *gidx;
  ISLocalToGlobalMapping ltog;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "Lattice model options", "MechSystem");
  PetscCall(PetscOptionsInt("-lattice_n", "Particles per side", "MechCreateLattice", n, &n, NULL));
  PetscCall(PetscOptionsReal("-lattice_size", "Side length", "MechCreateLattice", size, &size, NULL));
  PetscCall(PetscOptionsReal("-lattice_mass", "Total mass, lumped on the particles", "MechCreateLattice", mass, &mass, NULL));
  PetscCall(PetscOptionsReal("-lattice_k", "Structural stiffness of the whole box", "MechCreateLattice", ks, &ks, NULL));
  PetscCall(PetscOptionsReal("-lattice_k_shear", "Shear (diagonal) stiffness of the whole box, 0: none", "MechCreateLattice", kshear, &kshear, NULL));
  PetscCall(PetscOptionsReal("-lattice_k_bend", "Bend (distance 2) stiffness of the whole box, 0: none", "MechCreateLattice", kbend, &kbend, NULL));
  PetscCall(PetscOptionsBool("-lattice_linear", "Zero-rest-length springs", "MechCreateLattice", zerorest, &zerorest, NULL));
  if (zerorest) cdamp = 0;
  PetscCall(PetscOptionsReal("-lattice_c", "Damping along the springs, scaled like the stiffness", "MechCreateLattice", cdamp, &cdamp, NULL));
  PetscCall(PetscOptionsReal("-lattice_drag", "Total linear drag, lumped on the particles", "MechCreateLattice", drag, &drag, NULL));
  PetscCall(PetscOptionsReal("-lattice_g", "Gravity along -z", "MechCreateLattice", grav, &grav, NULL));
  PetscCall(PetscOptionsRealArray("-lattice_v0", "Initial velocity of the free particles", "MechCreateLattice", v0, &nv0, &set));
  PetscOptionsEnd();
  /* checked after PetscOptionsEnd(), which must run to free the options object */
  PetscCheck(!set || nv0 == 3, comm, PETSC_ERR_ARG_SIZ, "-lattice_v0 needs 3 comma-separated values, got %" PetscInt_FMT, nv0);
  PetscCheck(n >= 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "-lattice_n %" PetscInt_FMT " must be at least 2", n);
  PetscCheck(size > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-lattice_size %g must be positive", (double)size);
  PetscCheck(mass > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-lattice_mass %g must be positive", (double)mass);
  PetscCheck(ks > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-lattice_k %g must be positive", (double)ks);
  PetscCheck(kshear >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-lattice_k_shear %g must be non-negative", (double)kshear);
  PetscCheck(kbend >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-lattice_k_bend %g must be non-negative", (double)kbend);
  PetscCheck(cdamp >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-lattice_c %g must be non-negative", (double)cdamp);
  PetscCheck(drag >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-lattice_drag %g must be non-negative", (double)drag);

  /* bend springs reach two particles away: the ghost layer must be as wide */
  sw = kbend > 0 ? 2 : 1;
  PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 3, sw, NULL, NULL, NULL, &da));
  PetscCall(DMSetMatType(da, MATAIJ));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMDASetFieldName(da, 0, "x"));
  PetscCall(DMDASetFieldName(da, 1, "y"));
  PetscCall(DMDASetFieldName(da, 2, "z"));
  PetscCall(DMDAGetInfo(da, NULL, &nx, &ny, &nz, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCheck(nx >= 2 && ny >= 2 && nz >= 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "The lattice needs at least 2 x 2 x 2 particles, the DMDA has %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT, nx, ny, nz);
  h     = size / (nx - 1);
  scale = h / size;

  PetscCall(PetscNew(&la));
  la->da     = da;
  la->nx     = nx;
  la->ny     = ny;
  la->nz     = nz;
  la->weight = mass / (nx * ny * nz) * grav;
  la->drag   = drag / (nx * ny * nz);
  /* the stencil in natural order: offsets sorted by (dk, dj, di); families with zero stiffness left out */
  for (k = -2; k <= 2; k++) {
    for (j = -2; j <= 2; j++) {
      for (i = -2; i <= 2; i++) {
        const PetscInt ai = PetscAbsInt(i), aj = PetscAbsInt(j), ak = PetscAbsInt(k), nnz = (ai > 0) + (aj > 0) + (ak > 0);
        PetscReal      kf;

        if (nnz == 0) kf = -1; /* the particle itself */
        else if (ai <= 1 && aj <= 1 && ak <= 1) kf = nnz == 1 ? ks : kshear;
        else if (nnz == 1 && ai + aj + ak == 2) kf = kbend;
        else continue;
        if (kf == 0) continue;
        if (kf < 0) la->self = la->nst;
        la->di[la->nst]       = i;
        la->dj[la->nst]       = j;
        la->dk[la->nst]       = k;
        la->spring[la->nst].k = kf < 0 ? 0 : kf * scale;
        la->spring[la->nst].L = zerorest ? 0 : h * PetscSqrtReal((PetscReal)(i * i + j * j + k * k));
        la->spring[la->nst].c = cdamp * scale;
        la->nst++;
      }
    }
  }

  /* backward partners sit up to sw behind and 1 ahead (diagonals) in x and y, up to sw planes down */
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  la->nfw = la->nst - la->self - 1;
  la->sw  = sw;
  la->cx0 = PetscMax(xs - sw, 0);
  la->cxm = PetscMin(xs + xm + 1, nx) - la->cx0;
  la->cy0 = PetscMax(ys - sw, 0);
  la->cym = PetscMin(ys + ym + 1, ny) - la->cy0;
  PetscCall(PetscMalloc1((sw + 1) * la->cym * la->cxm * la->nfw * 9, &la->buf));

  PetscCall(MechSystemCreate(comm, &sy));
  PetscCall(MechSystemSetApplicationContext(sy, la, LatticeDestroy));
  PetscCall(MechSystemSetModelName(sy, "lattice"));
  PetscCall(MechSystemAddParameter(sy, "n", (PetscReal)nx));
  PetscCall(MechSystemAddParameter(sy, "ny", (PetscReal)ny));
  PetscCall(MechSystemAddParameter(sy, "nz", (PetscReal)nz));
  PetscCall(MechSystemAddParameter(sy, "size", size));
  PetscCall(MechSystemAddParameter(sy, "mass", mass));
  PetscCall(MechSystemAddParameter(sy, "k", ks));
  PetscCall(MechSystemAddParameter(sy, "k_shear", kshear));
  PetscCall(MechSystemAddParameter(sy, "k_bend", kbend));
  PetscCall(MechSystemAddParameter(sy, "c", cdamp));
  PetscCall(MechSystemAddParameter(sy, "drag", drag));
  PetscCall(MechSystemAddParameter(sy, "g", grav));
  PetscCall(MechSystemAddParameter(sy, "linear", zerorest ? 1.0 : 0.0));
  PetscCall(MechSystemAddParameter(sy, "v0_x", v0[0]));
  PetscCall(MechSystemAddParameter(sy, "v0_y", v0[1]));
  PetscCall(MechSystemAddParameter(sy, "v0_z", v0[2]));
  PetscCall(MechSystemSetDM(sy, da));

  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(DMDAGetGhostCorners(da, &g[0], &g[1], &g[2], &gm[0], &gm[1], &gm[2]));
  PetscCall(DMGetLocalToGlobalMapping(da, &ltog));
  PetscCall(ISLocalToGlobalMappingGetBlockSize(ltog, &bs));
  PetscCheck(bs == 3, comm, PETSC_ERR_PLIB, "Expected a DMDA local-to-global map of block size 3, got %" PetscInt_FMT, bs);

  /* lumped mass: a diagonal AIJ matrix with the DMDA's layout */
  PetscCall(MatCreateAIJ(comm, 3 * xm * ym * zm, 3 * xm * ym * zm, 3 * nx * ny * nz, 3 * nx * ny * nz, 1, NULL, 0, NULL, &M));
  {
    PetscInt rstart, rend;

    PetscCall(MatGetOwnershipRange(M, &rstart, &rend));
    for (i = rstart; i < rend; i++) PetscCall(MatSetValue(M, i, i, mass / (nx * ny * nz), INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MechSystemSetMass(sy, M));

  PetscCall(LatticeCreateTangentMatrix(la, &J));
  PetscCall(MechSystemSetForce(sy, LatticeForce, la));
  PetscCall(MechSystemSetTangent(sy, J, cdamp > 0 || drag > 0 ? PETSC_TRUE : PETSC_FALSE, LatticeTangent, la));
  PetscCall(MechSystemSetPotential(sy, LatticePotential, la));
  PetscCall(MechSystemSetLinear(sy, zerorest && cdamp == 0 ? PETSC_TRUE : PETSC_FALSE));

  /* the base layer k = 0 of this rank, as global dof indices */
  PetscCall(PetscMalloc1(zs == 0 ? 3 * xm * ym : 0, &fidx));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(ltog, &gidx));
  if (zs == 0) {
    for (j = ys; j < ys + ym; j++)
      for (i = xs; i < xs + xm; i++)
        for (c = 0; c < 3; c++) fidx[nfix++] = 3 * gidx[((0 - g[2]) * gm[1] + (j - g[1])) * gm[0] + (i - g[0])] + c;
  }
  PetscCall(ISLocalToGlobalMappingRestoreBlockIndices(ltog, &gidx));
  PetscCall(ISCreateGeneral(comm, nfix, fidx, PETSC_OWN_POINTER, &fixed));
  PetscCall(MechSystemSetFixed(sy, fixed, NULL));

  /* undeformed start; the base at rest, the rest moving with v0 */
  PetscCall(DMCreateGlobalVector(da, &q));
  PetscCall(VecDuplicate(q, &v));
  PetscCall(DMDAVecGetArrayDOF(da, q, &x));
  PetscCall(DMDAVecGetArrayDOF(da, v, &u));
  for (k = zs; k < zs + zm; k++) {
    for (j = ys; j < ys + ym; j++) {
      for (i = xs; i < xs + xm; i++) {
        x[k][j][i][0] = i * h;
        x[k][j][i][1] = j * h;
        x[k][j][i][2] = k * h;
        for (c = 0; c < 3; c++) u[k][j][i][c] = k == 0 ? 0 : v0[c];
      }
    }
  }
  PetscCall(DMDAVecRestoreArrayDOF(da, v, &u));
  PetscCall(DMDAVecRestoreArrayDOF(da, q, &x));
  PetscCall(MechSystemSetInitialState(sy, q, v));

  PetscCall(ISDestroy(&fixed));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&M));
  PetscCall(MatDestroy(&J));
  *sys = sy;
  PetscFunctionReturn(0);
}
