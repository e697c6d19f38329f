/*
  Rope of N particles in 3-D: neighbours joined by springs with damping along the spring,
  gravity along -z, linear drag, particle 0 pinned. The particles are distributed with a 1-D
  DMDA (3 dofs per particle, stencil width 1); in 1-D the DMDA's global ordering is the natural
  one, so particle i owns the dofs 3 i, 3 i + 1, 3 i + 2.
*/
#include <tsmech.h>
#include <petscdmda.h>
#include "models/springs.h"

#if defined(PETSC_USE_COMPLEX)
#error "The chain model needs a real PETSc build (PetscScalar == PetscReal)"
#endif

typedef struct {
  DM         da;
  PetscInt   n;
  MechSpring spring;
  PetscReal  mass; /* of one particle */
  PetscReal  g, drag;
} Chain;

static PetscErrorCode ChainDestroy(void *ctx)
{
  Chain *ch = (Chain *)ctx;

  PetscFunctionBegin;
  PetscCall(DMDestroy(&ch->da));
  PetscCall(PetscFree(ch));
  PetscFunctionReturn(0);
}

/* Ghosted local copies of a state vector: each rank needs the neighbours across its borders */
static PetscErrorCode ChainGetLocal(DM da, Vec x, Vec *xl, const PetscScalar ***a)
{
  PetscFunctionBegin;
  PetscCall(DMGetLocalVector(da, xl));
  PetscCall(DMGlobalToLocalBegin(da, x, INSERT_VALUES, *xl));
  PetscCall(DMGlobalToLocalEnd(da, x, INSERT_VALUES, *xl));
  PetscCall(DMDAVecGetArrayDOFRead(da, *xl, (void *)a));
  PetscFunctionReturn(0);
}

static PetscErrorCode ChainRestoreLocal(DM da, Vec *xl, const PetscScalar ***a)
{
  PetscFunctionBegin;
  PetscCall(DMDAVecRestoreArrayDOFRead(da, *xl, (void *)a));
  PetscCall(DMRestoreLocalVector(da, xl));
  PetscFunctionReturn(0);
}

/*
  Each rank computes the rows of its own particles, evaluating both springs next to each of them:
  a spring on a rank border is evaluated twice, but every row is summed in the same order (left
  spring, right spring, gravity, drag) whatever the partition, so results do not depend on the
  number of ranks.
*/
static PetscErrorCode ChainForce(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
{
  const Chain        *ch = (const Chain *)ctx;
  Vec                 ql, vl;
  const PetscScalar **x, **u;
  PetscScalar       **fa;
  PetscReal           fs[3];
  PetscInt            xs, xm, i, c;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  PetscCall(ChainGetLocal(ch->da, q, &ql, &x));
  PetscCall(ChainGetLocal(ch->da, v, &vl, &u));
  PetscCall(DMDAVecGetArrayDOF(ch->da, f, &fa));
  PetscCall(DMDAGetCorners(ch->da, &xs, NULL, NULL, &xm, NULL, NULL));
  for (i = xs; i < xs + xm; i++) {
    for (c = 0; c < 3; c++) fa[i][c] = 0;
    if (i > 0) {
      /* the kernel returns the force on the spring's first end, here particle i - 1 */
      PetscCall(MechSpringEvaluate(&ch->spring, x[i - 1], x[i], u[i - 1], u[i], fs, NULL, NULL, NULL));
      for (c = 0; c < 3; c++) fa[i][c] -= fs[c];
    }
    if (i < ch->n - 1) {
      PetscCall(MechSpringEvaluate(&ch->spring, x[i], x[i + 1], u[i], u[i + 1], fs, NULL, NULL, NULL));
      for (c = 0; c < 3; c++) fa[i][c] += fs[c];
    }
    fa[i][2] += ch->mass * ch->g;
    for (c = 0; c < 3; c++) fa[i][c] += ch->drag * u[i][c];
  }
  PetscCall(DMDAVecRestoreArrayDOF(ch->da, f, &fa));
  PetscCall(ChainRestoreLocal(ch->da, &vl, &u));
  PetscCall(ChainRestoreLocal(ch->da, &ql, &x));
  PetscFunctionReturn(0);
}

static PetscErrorCode ChainTangent(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  const Chain        *ch = (const Chain *)ctx;
  Vec                 ql, vl;
  const PetscScalar **x, **u;
  PetscReal           K[9], D[9];
  PetscScalar         diag[9], off[9];
  PetscInt            xs, xm, i, c;
  MatStencil          row, col;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  PetscCall(ChainGetLocal(ch->da, q, &ql, &x));
  PetscCall(ChainGetLocal(ch->da, v, &vl, &u));
  PetscCall(DMDAGetCorners(ch->da, &xs, NULL, NULL, &xm, NULL, NULL));
  for (i = xs; i < xs + xm; i++) {
    row.i = i;
    for (c = 0; c < 9; c++) diag[c] = 0;
    for (c = 0; c < 3; c++) diag[4 * c] = cD * ch->drag;
    /* For either spring the particle's own block is +B and its neighbour's is -B (springs.h) */
    if (i > 0) {
      PetscCall(MechSpringEvaluate(&ch->spring, x[i - 1], x[i], u[i - 1], u[i], NULL, K, D, NULL));
      for (c = 0; c < 9; c++) {
        diag[c] += cK * K[c] + cD * D[c];
        off[c] = -(cK * K[c] + cD * D[c]);
      }
      col.i = i - 1;
      PetscCall(MatSetValuesBlockedStencil(J, 1, &row, 1, &col, off, ADD_VALUES));
    }
    if (i < ch->n - 1) {
      PetscCall(MechSpringEvaluate(&ch->spring, x[i], x[i + 1], u[i], u[i + 1], NULL, K, D, NULL));
      for (c = 0; c < 9; c++) {
        diag[c] += cK * K[c] + cD * D[c];
        off[c] = -(cK * K[c] + cD * D[c]);
      }
      col.i = i + 1;
      PetscCall(MatSetValuesBlockedStencil(J, 1, &row, 1, &col, off, ADD_VALUES));
    }
    col.i = i;
    PetscCall(MatSetValuesBlockedStencil(J, 1, &row, 1, &col, diag, ADD_VALUES));
  }
  PetscCall(ChainRestoreLocal(ch->da, &vl, &u));
  PetscCall(ChainRestoreLocal(ch->da, &ql, &x));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* Spring (i, i + 1) is counted by the owner of particle i, so each spring enters once. */
static PetscErrorCode ChainPotential(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *potential, void *ctx)
{
  const Chain        *ch = (const Chain *)ctx;
  Vec                 ql;
  const PetscScalar **x;
  PetscReal           e = 0, es;
  PetscInt            xs, xm, i;

  PetscFunctionBegin;
  (void)sys;
  (void)t;
  (void)v;
  PetscCall(ChainGetLocal(ch->da, q, &ql, &x));
  PetscCall(DMDAGetCorners(ch->da, &xs, NULL, NULL, &xm, NULL, NULL));
  for (i = xs; i < xs + xm; i++) {
    if (i < ch->n - 1) {
      PetscCall(MechSpringEvaluate(&ch->spring, x[i], x[i + 1], NULL, NULL, NULL, NULL, NULL, &es));
      e += es;
    }
    e += ch->mass * ch->g * x[i][2];
  }
  PetscCall(ChainRestoreLocal(ch->da, &ql, &x));
  PetscCall(MPIU_Allreduce(&e, potential, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)q)));
  PetscFunctionReturn(0);
}

/*
  MechCreateChain - a rope of N particles in 3-D on a 1-D DMDA, pinned at particle 0.

  Collective

  Options:
+ -chain_n <20>        - number of particles (the DMDA options, e.g. -da_grid_x, may change it)
. -chain_length <1>    - rest length of the whole rope
. -chain_mass <1>      - total mass, lumped equally on the particles
. -chain_k <1e3>       - spring stiffness
. -chain_c <0.1>       - spring damping along each spring
. -chain_drag <0.01>   - linear drag on each particle
. -chain_g <9.81>      - gravity along -z
. -chain_linear        - zero-rest-length springs (otherwise the rest length is the spacing)
- -chain_stretch <1>   - initial spacing over the rest spacing length/(N-1)

  The system is linear only with -chain_linear and -chain_c 0: the spring damper acts along the
  spring direction, which turns with the motion even for zero-rest-length springs.
*/
PetscErrorCode MechCreateChain(MPI_Comm comm, MechSystem *sys)
{
  PetscInt      n      = 20, xs, xm, i, c;
  PetscReal     length = 1, mass = 1, k = 1e3, cdamp = 0.1, drag = 0.01, g = 9.81, stretch = 1, h;
  PetscBool     zerorest = PETSC_FALSE;
  Chain        *ch;
  MechSystem    s;
  DM            da;
  Vec           q, v;
  Mat           M, J;
  IS            fixed;
  PetscScalar **x;
  PetscInt      rstart, rend;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "Chain model options", "MechSystem");
  PetscCall(PetscOptionsInt("-chain_n", "Number of particles", "MechCreateChain", n, &n, NULL));
  PetscCall(PetscOptionsReal("-chain_length", "Rest length of the rope", "MechCreateChain", length, &length, NULL));
  PetscCall(PetscOptionsReal("-chain_mass", "Total mass, lumped on the particles", "MechCreateChain", mass, &mass, NULL));
  PetscCall(PetscOptionsReal("-chain_k", "Spring stiffness", "MechCreateChain", k, &k, NULL));
  PetscCall(PetscOptionsReal("-chain_c", "Spring damping along the springs", "MechCreateChain", cdamp, &cdamp, NULL));
  PetscCall(PetscOptionsReal("-chain_drag", "Linear drag on each particle", "MechCreateChain", drag, &drag, NULL));
  PetscCall(PetscOptionsReal("-chain_g", "Gravity along -z", "MechCreateChain", g, &g, NULL));
  PetscCall(PetscOptionsBool("-chain_linear", "Zero-rest-length springs", "MechCreateChain", zerorest, &zerorest, NULL));
  PetscCall(PetscOptionsReal("-chain_stretch", "Initial spacing over rest spacing", "MechCreateChain", stretch, &stretch, NULL));
  PetscOptionsEnd();
  PetscCheck(n >= 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "-chain_n %" PetscInt_FMT " must be at least 2", n);
  PetscCheck(length > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-chain_length %g must be positive", (double)length);
  PetscCheck(mass > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-chain_mass %g must be positive", (double)mass);
  PetscCheck(k > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-chain_k %g must be positive", (double)k);
  PetscCheck(cdamp >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-chain_c %g must be non-negative", (double)cdamp);
  PetscCheck(drag >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-chain_drag %g must be non-negative", (double)drag);
  PetscCheck(stretch > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-chain_stretch %g must be positive", (double)stretch);

  PetscCall(DMDACreate1d(comm, DM_BOUNDARY_NONE, n, 3, 1, NULL, &da));
  PetscCall(DMSetMatType(da, MATAIJ));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  /* DMDA options (-da_grid_x, -da_refine) may have changed the size */
  PetscCall(DMDAGetInfo(da, NULL, &n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCheck(n >= 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "The chain needs at least 2 particles, the DMDA has %" PetscInt_FMT, n);
  h = length / (n - 1);

  PetscCall(PetscNew(&ch));
  ch->da       = da;
  ch->n        = n;
  ch->spring.k = k;
  ch->spring.L = zerorest ? 0 : h;
  ch->spring.c = cdamp;
  ch->mass     = mass / n;
  ch->g        = g;
  ch->drag     = drag;

  PetscCall(MechSystemCreate(comm, &s));
  PetscCall(MechSystemSetApplicationContext(s, ch, ChainDestroy));
  PetscCall(MechSystemSetModelName(s, "chain"));
  PetscCall(MechSystemAddParameter(s, "n", (PetscReal)n));
  PetscCall(MechSystemAddParameter(s, "length", length));
  PetscCall(MechSystemAddParameter(s, "mass", mass));
  PetscCall(MechSystemAddParameter(s, "k", k));
  PetscCall(MechSystemAddParameter(s, "c", cdamp));
  PetscCall(MechSystemAddParameter(s, "drag", drag));
  PetscCall(MechSystemAddParameter(s, "g", g));
  PetscCall(MechSystemAddParameter(s, "linear", zerorest ? 1.0 : 0.0));
  PetscCall(MechSystemAddParameter(s, "stretch", stretch));
  PetscCall(MechSystemSetDM(s, da));

  PetscCall(DMCreateGlobalVector(da, &q));
  PetscCall(VecGetOwnershipRange(q, &rstart, &rend));
  PetscCall(MatCreateAIJ(comm, rend - rstart, rend - rstart, 3 * n, 3 * n, 1, NULL, 0, NULL, &M));
  for (i = rstart; i < rend; i++) PetscCall(MatSetValue(M, i, i, ch->mass, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MechSystemSetMass(s, M));

  /* The DMDA matrix carries the full 3x3-block tridiagonal pattern, explicit zeros included */
  PetscCall(DMCreateMatrix(da, &J));
  PetscCall(MechSystemSetForce(s, ChainForce, ch));
  PetscCall(MechSystemSetTangent(s, J, cdamp > 0 || drag > 0 ? PETSC_TRUE : PETSC_FALSE, ChainTangent, ch));
  PetscCall(MechSystemSetPotential(s, ChainPotential, ch));
  PetscCall(MechSystemSetLinear(s, zerorest && cdamp == 0 ? PETSC_TRUE : PETSC_FALSE));

  PetscCall(DMDAGetCorners(da, &xs, NULL, NULL, &xm, NULL, NULL));
  PetscCall(ISCreateStride(comm, xs == 0 ? 3 : 0, 0, 1, &fixed));
  PetscCall(MechSystemSetFixed(s, fixed, NULL));

  PetscCall(DMDAVecGetArrayDOF(da, q, &x));
  for (i = xs; i < xs + xm; i++) {
    x[i][0] = i * stretch * h;
    for (c = 1; c < 3; c++) x[i][c] = 0;
  }
  PetscCall(DMDAVecRestoreArrayDOF(da, q, &x));
  PetscCall(VecDuplicate(q, &v));
  PetscCall(VecSet(v, 0.0));
  PetscCall(MechSystemSetInitialState(s, q, v));

  PetscCall(ISDestroy(&fixed));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&M));
  PetscCall(MatDestroy(&J));
  *sys = s;
  PetscFunctionReturn(0);
}
