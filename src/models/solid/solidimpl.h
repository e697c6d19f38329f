/*
  Private definitions of the solid model (src/models/solid/): the model's context, the material
  record, the element kernels shared by its files. One job per file:

    solid.c       MechCreateSolid(): options, assembly of the system
    mesh.c        the built-in beam, mesh input, checks, distribution, the element layout below,
                  rank-independent numbering
    gmsh.c        tsmech's own Gmsh reader and the physical-group table (gmsh.h)
    materials.c   the materials, one record each (SolidMaterialOps), chosen by name
    elements.c    forces, tangents (assembled and matrix-free), energy, momenta, inverted elements
    constraints.c constraints (Dirichlet conditions) by label, Gmsh group or plane, per component,
                  with prescribed motions u phi(t)
    loads.c       loads on boundary faces: dead tractions and forces, follower pressures, their options
    bodyforce.c   the body force b(t, X) of MechSolidSetBodyForce(), the error norms of MechSolidComputeError()
    stress.c      the per-cell output fields: Cauchy stress, von Mises stress, J, and their
                  recovery at the nodes
    iocells.c     the output's cells of quadratic tetrahedra and hexahedra (XDMF node order)

  THE ELEMENT LAYOUT (mesh.c, SolidSetUpCells(); docs/solid.md "Quadratic elements")

  - s->dm is an interpolated DMPlex (cells, faces, edges, vertices) of tetrahedra or hexahedra
    (s->ct), never mixed. Its local section has 3 dofs on every node: each vertex, and for order
    2 (s->order) each edge (P2 tetrahedra, 10 nodes) or each edge, face and the cell (Q2
    hexahedra, 27 nodes). The dofs are the node's current position (q = positions).
  - s->Xref, a local vector with that section, holds the reference positions of all nodes (the
    initial q). The geometry is isoparametric: X(xi) = sum_a X_a N_a(xi), so a curved edge of a
    mesh file is kept. Built-in meshes place the edge, face and cell nodes at the centroids of
    their vertices; a mesh file may supply them (SolidMeshSetNodes(), on rank 0 before the
    distribution, which carries them to their ranks with DMPlexDistributeField()).
  - Per cell, its s->nen nodes in a fixed order: its vertices in the order of DMPlex's closure
    (that of PETSc's reference cell), then its edges in the order of the reference cell's edges,
    then its faces likewise, then the cell (edges, faces and cell identified by their vertices,
    so the order does not depend on how the closure orients them). s->loff[nen c + a] and
    s->goff[nen c + a] are node a's first dof in the local and the global vector (owned or not:
    the global offset is always non-negative).
  - The shape functions are PETSc's Lagrange elements (PetscFECreateLagrange()), tabulated at a
    quadrature rule (PetscDTSimplexQuadrature(), degree 2 (order - 1) for the stiffness, or
    Gauss-Legendre with order + 1 points per direction for hexahedra): s->nq points per cell.
    Per cell and point, s->grad holds the reference gradients dN_a/dX (nen x 3, node-major:
    SolidGrad()) and s->wdet the weight times det dX/dxi (SolidWeight()); s->vol[c] is their sum.
    The element loops go "per cell, per quadrature point: F, weight, gradients".
  - P1 tetrahedra keep their one-point form bit for bit: g_1..g_3 the rows of Dm^-1,
    g_0 = -(g_1 + g_2 + g_3), weight V0.
*/
#ifndef TSMECH_SOLIDIMPL_H
#define TSMECH_SOLIDIMPL_H

#include <tsmech.h>
#include <petscdmplex.h>
#include <petscsf.h>
#include <stdint.h>
#include <string.h>
#include "gmsh.h"

#if defined(PETSC_USE_COMPLEX)
#error "The solid model needs a real PETSc build (PetscScalar == PetscReal)"
#endif

/* The moduli every material reads what it needs from */
typedef struct {
  PetscReal mu, lambda, kappa, c1, c2;
} SolidModuli;

/* What the stress and its derivative at F need, computed once per point by the material's setup */
typedef struct {
  PetscReal F[9], FinvT[9], J, lnJ;
  PetscReal S[9];         /* svk: the second Piola-Kirchhoff stress */
  PetscReal I1, I2, a, b; /* isochoric materials: invariants of C, J^-2/3, J^-4/3 */
} SolidPoint;

/*
  A material: its name (the option's value and what outputs and checkpoints record), whether the
  force is linear, whether it needs J > 0 (no energy otherwise: such a state is refused), and what
  the matrix-free action keeps per cell (nstate reals; spatial: the neo-Hookean kernel's spatial
  gradients, SolidApplyNeoHookean(); otherwise unpack() gives back the point for dstress())
*/
/* Cells per batch of the vectorized kernels (sumfact.c): 8 doubles, one AVX-512 register */
#define SOLID_LANES 8

/* The moduli a material is given by: E, nu or mu, lambda; E, nu or mu, kappa; c1, c2 and kappa */
typedef enum {
  SOLID_MODULI_LAME,
  SOLID_MODULI_MU_KAPPA,
  SOLID_MODULI_MOONEY_RIVLIN
} SolidModuliKind;

typedef struct {
  const char     *name;
  const char     *help;
  SolidModuliKind moduli;
  PetscBool       linear, positiveJ, spatial;
  PetscInt        nstate;
  PetscBool (*setup)(const SolidModuli *, const PetscReal F[9], SolidPoint *);
  void (*stress)(const SolidModuli *, const SolidPoint *, PetscReal P[9], PetscReal *W);
  void (*dstress)(const SolidModuli *, const SolidPoint *, const PetscReal dF[9], PetscReal dP[9]);
  void (*pack)(const SolidModuli *, const SolidPoint *, PetscReal st[]);
  void (*unpack)(const SolidModuli *, const PetscReal st[], SolidPoint *);
  /* the discrete stress (discgrad.c, docs/schemes.md §11): Pbar with
     W(F1) - W(F0) = Pbar : (F1 - F0); PETSC_FALSE where W is undefined (J <= 0) */
  PetscBool (*discstress)(const SolidModuli *, const PetscReal F0[9], const PetscReal F1[9], PetscReal Pbar[9]);
  /* and its derivative: Pbar and dPbar/dF1 (9 x 9 row-major, dPbar_p / dF1_r at 9 p + r), failing where discstress does */
  PetscBool (*discstressjac)(const SolidModuli *, const PetscReal F0[9], const PetscReal F1[9], PetscReal Pbar[9], PetscReal dPbar[81]);
  /* optional: dstress for a batch of SOLID_LANES points, lanes innermost (st[i][lane]: the packed state) */
  void (*dstressbatch)(const SolidModuli *, const PetscReal *st, const PetscReal dF[][SOLID_LANES], PetscReal dP[][SOLID_LANES]);
  /* c1, c2 materials: c2 does not enter the small-strain shear modulus (mu = 2 c1, not 2 (c1 + c2)) */
  PetscBool c2notshear;
} SolidMaterialOps;

/* The isochoric-volumetric materials' parts (materials.c), for materials in files of their own */
PETSC_INTERN PetscBool SolidIsochoricSetUp(const SolidModuli *, const PetscReal F[9], SolidPoint *);
PETSC_INTERN void      SolidInvariantStress(PetscReal c1, PetscReal c2, PetscReal kappa, const SolidPoint *, PetscReal P[9], PetscReal *W);
PETSC_INTERN void      SolidInvariantStressDiff(PetscReal c1, PetscReal c2, PetscReal kappa, const SolidPoint *, const PetscReal dF[9], PetscReal dP[9]);
PETSC_INTERN void      SolidInvariantPack(const SolidModuli *, const SolidPoint *, PetscReal st[]);
PETSC_INTERN void      SolidInvariantUnpack(const SolidModuli *, const PetscReal st[], SolidPoint *);
/* the discrete stress (and its derivative) of a material given by setup, stress (and dstress) through C */
PETSC_INTERN PetscBool SolidDiscreteStressC(const SolidModuli *, PetscBool (*)(const SolidModuli *, const PetscReal[9], SolidPoint *), void (*)(const SolidModuli *, const SolidPoint *, PetscReal[9], PetscReal *), PetscBool, const PetscReal F0[9], const PetscReal F1[9], PetscReal Pbar[9]);
PETSC_INTERN PetscBool SolidDiscreteStressCJacobian(const SolidModuli *, PetscBool (*)(const SolidModuli *, const PetscReal[9], SolidPoint *), void (*)(const SolidModuli *, const SolidPoint *, PetscReal[9], PetscReal *), void (*)(const SolidModuli *, const SolidPoint *, const PetscReal[9], PetscReal[9]), PetscBool, const PetscReal F0[9], const PetscReal F1[9], PetscReal Pbar[9], PetscReal A[81]);
/* The materials (materialtable.c registers them): the five of materials.c, yeoh.c's */
#define SOLID_NMATERIALS_BUILTIN 5
PETSC_INTERN const SolidMaterialOps SolidMaterialsBuiltin[SOLID_NMATERIALS_BUILTIN];
PETSC_INTERN const SolidMaterialOps SolidMaterialYeoh;

PETSC_INTERN const SolidMaterialOps *SolidMaterialFind(const char[]);
PETSC_INTERN void                    SolidMaterialNames(char[], size_t);
PETSC_INTERN PetscErrorCode          SolidModuliFromOptions(MPI_Comm, const char prefix[], const SolidMaterialOps *, PetscBool, PetscReal, PetscBool, PetscReal, PetscBool, PetscReal, PetscBool, PetscReal, PetscBool, PetscReal, PetscBool, PetscReal, PetscBool, PetscReal, SolidModuli *, PetscReal *, PetscReal *);

/* One selection of mesh entities (select.c): a label and value (a Gmsh group's), or conditions on
   the reference coordinates */
typedef enum {
  SOLID_SELECT_NONE,
  SOLID_SELECT_LABEL, /* the points of a label's stratum (and their closures' nodes) */
  SOLID_SELECT_ALL,   /* everything */
  SOLID_SELECT_BOX,   /* the surface of the mesh's bounding box (nodes, faces) */
  SOLID_SELECT_WHERE  /* conditions, all of which hold */
} SolidSelectKind;
typedef enum {
  SOLID_SELECT_EQ,
  SOLID_SELECT_LE,
  SOLID_SELECT_GE
} SolidSelectOp;
typedef struct {
  PetscInt      axis;
  SolidSelectOp op;
  PetscReal     value;
} SolidSelectCond;
typedef struct {
  SolidSelectKind  kind;
  char             label[256]; /* LABEL: the label (a Gmsh group's) and its value */
  PetscInt         value;
  PetscInt         ncond; /* WHERE: the conditions */
  SolidSelectCond *cond;
  PetscReal        lo[3], hi[3]; /* BOX: the bounding box */
  PetscReal        tol;          /* the plane tolerance */
  char             text[640];    /* how the options gave it ("-solid_bc_a_where x=0") */
} SolidSelection;

/*
  A material region (regions.c): the material, moduli, density and Rayleigh coefficients of its
  cells. Region 0 holds the cells of no named region, with the global options (-solid_material,
  -solid_E, ...); the kernels take each cell's (SolidCellRegion()).
*/
typedef struct {
  char                    name[64]; /* "" for region 0 */
  const SolidMaterialOps *mat;
  SolidModuli             mod;
  PetscReal               E, nu; /* as recorded (derived from the moduli given) */
  PetscReal               rho, alpha, beta;
  PetscInt                ncells; /* over all ranks */
} SolidRegion;

/* The material options of the body or of a region, as given (regions.c) */
typedef struct {
  char      material[64];
  PetscBool setmat, setE, setnu, setmu, setlambda, setkappa, setc1, setc2, setrho, setray;
  PetscReal E, nu, mu, lambda, kappa, c1, c2, rho, ray[2];
} SolidMaterialInput;

/* A cell type and order (celltypes.c) */
typedef struct {
  const char    *name;     /* -solid_cell's value and the recorded "cell" */
  DMPolytopeType ct;       /* DM_POLYTOPE_TETRAHEDRON or DM_POLYTOPE_HEXAHEDRON */
  PetscInt       order;    /* 1 or 2 */
  PetscInt       nen;      /* nodes per cell (the element layout's) */
  PetscInt       ncorner;  /* vertices per cell */
  const char    *xdmf;     /* the XDMF topology of the I/O mesh */
  PetscBool      simplex;  /* quadrature rules: a simplex's, else Gauss's (SolidCellQuadrature()) */
  PetscBool      fusemass; /* the consistent mass inside the tangent action costs less than the assembled mass's product */
  PetscBool      spatial;  /* the neo-Hookean spatial-gradient kernel applies (P1 tetrahedra) */
} SolidCellType;
PETSC_INTERN const SolidCellType *SolidCellTypeGet(DMPolytopeType, PetscInt);
PETSC_INTERN PetscErrorCode       SolidCellQuadrature(const SolidCellType *, PetscInt, PetscQuadrature *);

typedef struct _n_Solid             Solid;
typedef struct _n_SolidTensor      *SolidTensor;
typedef struct _n_SolidConstraints *SolidConstraints;
typedef struct _n_SolidBody        *SolidBody;

/* A load on boundary faces (loads.c): a dead traction (a total force becomes one) or a follower pressure */
typedef struct _n_SolidLoadOps SolidLoadOps;

typedef struct _n_SolidLoad {
  char                name[64];
  const SolidLoadOps *ops;      /* its kind (loads.c) */
  PetscReal           value[3]; /* the traction or the total force as given */
  PetscReal           t0[3];    /* the dead traction per reference area */
  PetscReal           p;        /* the follower pressure */
  MechTimeFunction    tf;       /* phi(t) */
  PetscInt            nf, NF;   /* this rank's faces, all faces */
  PetscReal           area;     /* the reference area of all faces */
  PetscInt            nfn;      /* nodes per face: 3 (linear triangles), 6, 4 or 9 (loads.c) */
  PetscInt           *lo, *go;  /* per face, its nfn nodes' dof offsets (local, global), outward order */
  PetscReal          *X;        /* per face, the nfn nodes' reference positions */
  PetscReal          *A;        /* per face, its reference area */
  PetscReal          *W;        /* per face and node (nfn > 3), the integral of its shape function dA0 */
  PetscInt            nq;       /* nfn > 3: the face quadrature's points, weights, N and dN/dxi, dN/deta */
  PetscReal          *qw, *qN, *qdN;
  PetscReal          *xs;   /* follower: per face, the positions at the last linearization */
  PetscReal           clin; /* follower: cK phi p (/ 6 on linear triangles) at the last linearization */
} SolidLoad;

/*
  A load kind (loads.c, SolidLoadKinds[]): the option -solid_load_NAME_<name> with its help, its
  value's count (1: ld->p, 3: ld->value), whether it acts on the current faces (follower: the force
  is not affine in q, the tangent not symmetric) or is a total force (spread as the traction F / A0),
  and its parts of the force (phi: its time function's value), the assembled tangent, the tangent
  action (linearize, apply) and the potential; NULL: no part
*/
struct _n_SolidLoadOps {
  const char *name, *help;
  PetscInt    nvalues;
  PetscBool   follower, total;
  void (*addforce)(const SolidLoad *, PetscReal phi, const PetscScalar x[], PetscScalar y[]);
  PetscErrorCode (*addtangent)(const SolidLoad *, PetscReal scale, PetscReal phi, const PetscScalar x[], Mat J);
  PetscErrorCode (*linearize)(SolidLoad *, PetscReal cK, PetscReal phi, const PetscScalar x[]);
  void (*apply)(const SolidLoad *, const PetscScalar w[], PetscScalar y[]);
  PetscReal (*potential)(const SolidLoad *, PetscReal phi, const PetscScalar x[]);
};

/* Context of one invariant: which component of which momentum */
typedef struct {
  Solid   *s;
  PetscInt comp; /* 0, 1, 2: linear momentum; 3, 4, 5: angular momentum */
} SolidInvariant;

struct _n_Solid {
  DM                    dm;
  PetscInt              nreg; /* material regions (regions.c): region 0 and the named ones */
  SolidRegion          *reg;
  PetscInt             *creg;              /* per local cell, its region */
  PetscInt              nstate;            /* the most reals a material keeps per point for the tangent action */
  PetscReal             alpha, beta, g[3]; /* the damping D = alpha Ma + beta K0 */
  Mat                   Ma;                /* the regions' alpha rho-weighted mass when their alphas differ (alpha 1), NULL: M */
  PetscBool             K0weighted;        /* K0 holds each cell's beta (the regions' betas differ; beta 1) */
  PetscInt              nprobes;           /* probes (probes.c) */
  struct _n_SolidProbe *probes;
  Vec                   ecache; /* the positions of the last strain energy (parts.c) */
  PetscReal             estrain;
  PetscBool             ecached;
  PetscInt              nbccells; /* the local cells with a constrained node (parts.c), -1: not found yet */
  PetscInt             *bccells;
  PetscInt              ncells;   /* local cells */
  DMPolytopeType        ct;       /* DM_POLYTOPE_TETRAHEDRON or DM_POLYTOPE_HEXAHEDRON */
  PetscInt              order;    /* 1 or 2 */
  const SolidCellType  *cell;     /* the record of ct and order (celltypes.c) */
  PetscInt              nen;      /* nodes per cell: 4, 10 (tetrahedra), 8, 27 (hexahedra) */
  PetscInt              nq;       /* quadrature points per cell */
  PetscInt             *loff;     /* per cell, nen offsets of the nodes' dofs in the local vector */
  PetscInt             *goff;     /* the same in the global numbering */
  PetscReal            *grad;     /* per cell and point, the nen x 3 reference gradients dN_a/dX */
  PetscReal            *wdet;     /* per cell and point, the weight times det dX/dxi */
  PetscReal            *vol;      /* per cell, the reference volume */
  Vec                   Xref;     /* local: the reference positions of all nodes */
  PetscFE               fe;       /* the Lagrange element (scalar) of the cells */
  PetscInt             *perm;     /* node a of the layout is basis function perm[a] of fe */
  PetscReal            *ctr;      /* per cell, the reference centroid (names an inverted element) */
  PetscInt             *cellid;   /* per cell, its rank-independent number (order in the mesh file or beam) */
  PetscInt              ninv;     /* J <= 0 elements at this rank's last force evaluation that met any */
  PetscInt              firstinv; /* the smallest cellid among them (-1: none) */
  PetscReal             Jinv;     /* and its J */
  PetscReal             tinv;     /* and the time of that force evaluation */
  PetscInt              erefused; /* the last state the state check refused: its first inverted element */
  PetscReal             trefused; /* and its time (PETSC_MIN_REAL: none) */
  Mat                   M, K0;    /* mass and reference tangent (K0 only with beta != 0) */
  Vec                   fg;       /* gravity force -M g */
  Vec                   work;     /* global work vector */
  MatNullSpace          nullsp;   /* rigid-body modes of the reference configuration */
  PetscReal            *store;    /* tangent action: per cell, what dP(dF) needs (mat->nstate reals) */
  PetscReal             cK, cD;   /* coefficients of the last linearization */
  PetscReal             cM;       /* and of the mass applied inside the action (SolidOperatorLinearize()) */
  PetscBool             curved;   /* cells of a second-order mesh file with curved edges (their own rules) */
  PetscBool             fusemass; /* the action can apply the consistent mass cell by cell */
  SolidTensor           tensor;   /* hexahedra: sum factorization (sumfact.c) */
  Mat                   graph;    /* while the patterns are made: the graph of the nodes (SolidCreatePattern()) */
  PetscInt              nloads;   /* loads on boundary faces (loads.c) */
  SolidLoad            *loads;
  PetscBool             follower; /* a follower pressure acts: the tangent is not symmetric */
  DM                    facedm;   /* while the loads are set up: the beam interpolated (its faces) */
  SolidInvariant        inv[6];
  SolidConstraints      bc;    /* constraints.c */
  MechTimeFunction      gtime; /* gravity's time function (NULL: constant) */
  SolidBody             body;  /* the body force b(t, X) (bodyforce.c; NULL: none) */
  /* direct insertion into a sequential AIJ matrix (elements.c, SolidCellMatrixSetUp()): per cell
     and node pair (a, b), where node b's first column lies in node a's rows, from the row's start;
     valid for the matrix of id aijid in the nonzero state aijstate */
  PetscInt        *aijoff;
  PetscObjectId    aijid;
  PetscObjectState aijstate;
  /* the p-multigrid's linear level (pmg.c, -solid_pmg_coarse): 0 Galerkin, 1 rediscretized */
  PetscInt pmgcoarse;
};

static inline PetscReal SolidDet3(const PetscReal A[9])
{
  return A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
}

/* B = A^-1 given det A */
static inline void SolidInv3(const PetscReal A[9], PetscReal det, PetscReal B[9])
{
  B[0] = (A[4] * A[8] - A[5] * A[7]) / det;
  B[1] = (A[2] * A[7] - A[1] * A[8]) / det;
  B[2] = (A[1] * A[5] - A[2] * A[4]) / det;
  B[3] = (A[5] * A[6] - A[3] * A[8]) / det;
  B[4] = (A[0] * A[8] - A[2] * A[6]) / det;
  B[5] = (A[2] * A[3] - A[0] * A[5]) / det;
  B[6] = (A[3] * A[7] - A[4] * A[6]) / det;
  B[7] = (A[1] * A[6] - A[0] * A[7]) / det;
  B[8] = (A[0] * A[4] - A[1] * A[3]) / det;
}

/* C = A B (3 x 3, row-major) */
static inline void SolidMul3(const PetscReal A[9], const PetscReal B[9], PetscReal C[9])
{
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* The reference gradients (nen x 3, node-major) at quadrature point k of cell c */
static inline const PetscReal *SolidGrad(const Solid *s, PetscInt c, PetscInt k)
{
  return &s->grad[((size_t)c * s->nq + k) * 3 * s->nen];
}

/* FNV-1a of bytes, continued from h (start from SOLID_HASH_SEED): what the checkpoints record of the
   loads, regions and probes, as a double parameter of its low 48 bits (SOLID_HASH_PARAM) */
#define SOLID_HASH_SEED     1469598103934665603ULL
#define SOLID_HASH_PARAM(h) ((PetscReal)((h)&0xFFFFFFFFFFFFULL))
static inline uint64_t SolidHash(uint64_t h, const void *buf, size_t len)
{
  const unsigned char *b = (const unsigned char *)buf;

  for (size_t k = 0; k < len; k++) h = (h ^ b[k]) * 1099511628211ULL;
  return h;
}

/* SolidHash() of a point's reference coordinates as doubles (-0 as +0): the mesh checksum's and
   the constraint records' (records.c) hash of a node */
static inline uint64_t SolidPointHash(const PetscReal X[3])
{
  uint64_t h = SOLID_HASH_SEED;

  for (int c = 0; c < 3; c++) {
    double d = (double)X[c];

    if (d == 0) d = 0;
    h = SolidHash(h, &d, sizeof(d));
  }
  return h;
}

/* The material region of local cell c (regions.c) */
static inline const SolidRegion *SolidCellRegion(const Solid *s, PetscInt c)
{
  return &s->reg[s->creg[c]];
}

/* The matrix the Rayleigh alpha multiplies (alpha Ma, or alpha M) */
static inline Mat SolidDampingMass(const Solid *s)
{
  return s->Ma ? s->Ma : s->M;
}

/* The weight times det dX/dxi at quadrature point k of cell c */
static inline PetscReal SolidWeight(const Solid *s, PetscInt c, PetscInt k)
{
  return s->wdet[(size_t)c * s->nq + k];
}

/* F = sum_a x_a g_a^T at quadrature point k of cell c from the ghosted local array x; g: the gradients */
static inline void SolidDeformationAt(const Solid *s, PetscInt c, PetscInt k, const PetscScalar x[], PetscReal F[9])
{
  const PetscInt  *o = &s->loff[s->nen * c];
  const PetscReal *g = SolidGrad(s, c, k);

  for (PetscInt i = 0; i < 9; i++) F[i] = 0;
  for (PetscInt a = 0; a < s->nen; a++)
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) F[3 * i + j] += x[o[a] + i] * g[3 * a + j];
}

/* y_a += V P g_a for every node a of cell c at quadrature point k */
static inline void SolidAddStress(const Solid *s, PetscInt c, PetscInt k, PetscReal V, const PetscReal P[9], PetscScalar y[])
{
  const PetscInt  *o = &s->loff[s->nen * c];
  const PetscReal *g = SolidGrad(s, c, k);

  for (PetscInt a = 0; a < s->nen; a++)
    for (PetscInt i = 0; i < 3; i++) y[o[a] + i] += V * (P[3 * i] * g[3 * a] + P[3 * i + 1] * g[3 * a + 1] + P[3 * i + 2] * g[3 * a + 2]);
}

/* The global indices of the 3 nen dofs of cell c */
static inline void SolidCellIndices(const Solid *s, PetscInt c, PetscInt idx[])
{
  for (PetscInt a = 0; a < s->nen; a++)
    for (PetscInt i = 0; i < 3; i++) idx[3 * a + i] = s->goff[s->nen * c + a] + i;
}

/* The most nodes of a cell (Q2 hexahedra) */
#define SOLID_MAX_NEN 27

/* The ghosted local form of a global vector x of s->dm and its array (every element loop's input) */
static inline PetscErrorCode SolidGetLocal(const Solid *s, Vec x, Vec *xl, const PetscScalar **a)
{
  PetscFunctionBegin;
  PetscCall(DMGetLocalVector(s->dm, xl));
  PetscCall(DMGlobalToLocalBegin(s->dm, x, INSERT_VALUES, *xl));
  PetscCall(DMGlobalToLocalEnd(s->dm, x, INSERT_VALUES, *xl));
  PetscCall(VecGetArrayRead(*xl, a));
  PetscFunctionReturn(0);
}

static inline PetscErrorCode SolidRestoreLocal(const Solid *s, Vec *xl, const PetscScalar **a)
{
  PetscFunctionBegin;
  PetscCall(VecRestoreArrayRead(*xl, a));
  PetscCall(DMRestoreLocalVector(s->dm, xl));
  PetscFunctionReturn(0);
}

/* elements.c */
PETSC_INTERN PetscReal      SolidStrainEnergy(const Solid *, const PetscScalar[]);
PETSC_INTERN PetscErrorCode SolidStrainEnergyCached(Solid *, Vec, const PetscScalar[], PetscReal *);
PETSC_INTERN PetscErrorCode SolidForce(MechSystem, PetscReal, Vec, Vec, Vec, void *);
PETSC_INTERN void           SolidAddElementForces(const Solid *, const PetscScalar[], PetscInt, const PetscInt[], PetscScalar[], PetscInt *, PetscInt *, PetscReal *);
PETSC_INTERN PetscErrorCode SolidAddElementTangents(Solid *, PetscReal, const PetscScalar[], PetscReal, Mat);
PETSC_INTERN PetscErrorCode SolidAddDeadLoadsAndDamping(Solid *, PetscReal, Vec, Vec);
PETSC_INTERN PetscErrorCode SolidAddDeadLoads(Solid *, PetscReal, Vec);
PETSC_INTERN PetscErrorCode SolidAddDamping(Solid *, Vec, Vec);
PETSC_INTERN PetscErrorCode SolidAddDampingTangent(Solid *, PetscReal, Mat);
/* element matrices into an assembled matrix: in place on one rank (elements.c), else MatSetValues() */
PETSC_INTERN PetscErrorCode SolidCellMatrixSetUp(Solid *, Mat, PetscScalar **, const PetscInt **);
PETSC_INTERN PetscErrorCode SolidCellMatrixAdd(const Solid *, PetscInt, const PetscReal[], PetscScalar *, const PetscInt *, Mat);
PETSC_INTERN PetscErrorCode SolidCellMatrixEnd(Mat, PetscScalar **, const PetscInt **);
PETSC_INTERN PetscErrorCode SolidTangent(MechSystem, PetscReal, Vec, Vec, PetscReal, PetscReal, Mat, void *);
PETSC_INTERN PetscErrorCode SolidTangentLinearize(MechSystem, PetscReal, Vec, Vec, PetscReal, PetscReal, void *);
PETSC_INTERN PetscErrorCode SolidTangentApply(MechSystem, Vec, Vec, void *);
PETSC_INTERN PetscErrorCode SolidOperatorLinearize(MechSystem, PetscReal, Vec, Vec, PetscReal, PetscReal, PetscReal, void *);
/* sumfact.c */
/* The vertices in the closure of mesh point p (mesh.c), at most 8 */
PETSC_INTERN PetscErrorCode SolidClosureVertices(DM, PetscInt p, PetscInt *nv, PetscInt v[8]);
PETSC_INTERN PetscErrorCode SolidTensorSetUp(Solid *, PetscInt, const PetscReal[][3]);
PETSC_INTERN PetscErrorCode SolidTensorDestroy(Solid *);
PETSC_INTERN PetscErrorCode SolidTensorUseRegions(Solid *);
PETSC_INTERN PetscErrorCode SolidTensorLinearize(Solid *, const PetscScalar *);
PETSC_INTERN PetscErrorCode SolidTensorApply(const Solid *, PetscReal, PetscReal, const PetscScalar *, PetscScalar *);
PETSC_INTERN void           SolidLinearStressDiffBatch(const SolidModuli *, const PetscReal *, const PetscReal[][SOLID_LANES], PetscReal[][SOLID_LANES]);
PETSC_INTERN void           SolidNeoHookeanStressDiffBatch(const SolidModuli *, const PetscReal *, const PetscReal[][SOLID_LANES], PetscReal[][SOLID_LANES]);
PETSC_INTERN PetscErrorCode SolidPotential(MechSystem, PetscReal, Vec, Vec, PetscReal *, void *);
PETSC_INTERN PetscErrorCode SolidMomentum(MechSystem, PetscReal, Vec, Vec, PetscReal *, void *);
PETSC_INTERN PetscErrorCode SolidStateCheck(MechSystem, PetscReal, Vec, Vec, PetscBool *, char[], size_t, void *);
PETSC_INTERN PetscErrorCode SolidCreatePattern(Solid *, PetscBool mass, Mat *);
/* Rayleigh damping from two modal damping ratios (damping.c): alpha and beta resolved, K0 built and
   the tangent declared damped when the options ask for it */
PETSC_INTERN PetscErrorCode SolidSetUpDampingRatios(Solid *, MechSystem);
PETSC_INTERN PetscErrorCode SolidAssembleMass(Solid *, PetscBool lumped, PetscBool damping, Mat);
PETSC_INTERN PetscErrorCode SolidNodeGraph(Solid *, PetscInt, PetscInt, Mat *);
PETSC_INTERN PetscErrorCode SolidNodeGraphLocal(Solid *, PetscInt, PetscInt, Mat *, PetscBool *);
/* the mass stored as M_s x I3 (massshell.c, -solid_mass_matrix scalar) */
PETSC_INTERN PetscErrorCode SolidCreateMassScalar(Solid *, PetscBool damping, Mat *);
PETSC_INTERN PetscErrorCode SolidMassGetScalar(Mat, Mat *);

/* select.c */
PETSC_INTERN PetscErrorCode SolidSelectionFromOptions(Solid *, const char prefix[], const char what[], PetscReal tol, PetscInt *ngiven, SolidSelection *);
PETSC_INTERN PetscErrorCode SolidSelectionParseWhere(MPI_Comm, const char opt[], const char where[], SolidSelection *);
PETSC_INTERN PetscBool      SolidSelectionParsePlane(const char[], PetscInt *, PetscReal *);
PETSC_INTERN PetscBool      SolidSelectionIsPlane(const SolidSelection *, PetscInt *, PetscReal *);
PETSC_INTERN PetscBool      SolidSelectionHolds(const SolidSelection *, const PetscReal[3]);
PETSC_INTERN PetscBool      SolidSelectionHoldsFace(const SolidSelection *, const PetscReal[][3], PetscInt);
PETSC_INTERN PetscErrorCode SolidSelectionDestroy(SolidSelection *);
PETSC_INTERN PetscErrorCode SolidSelectNodes(Solid *, const SolidSelection *, Vec, PetscInt[], PetscInt *);
PETSC_INTERN PetscErrorCode SolidSelectCells(Solid *, const SolidSelection *, PetscInt[], PetscInt *);
/* regions.c */
PETSC_INTERN PetscErrorCode SolidRegionFromInput(MPI_Comm, const char prefix[], const SolidMaterialInput *, SolidRegion *);
PETSC_INTERN PetscErrorCode SolidSetUpRegions(Solid *, MechSystem, const SolidMaterialInput *, const char what[], PetscReal hmin);
PETSC_INTERN PetscErrorCode SolidRegionsFlags(const Solid *, PetscBool *linear, PetscBool *positiveJ, PetscBool *frameinvariant);
PETSC_INTERN PetscErrorCode SolidRegionsDestroy(Solid *);
PETSC_INTERN PetscErrorCode SolidSetUpDamping(Solid *, PetscBool lumped);
/* parts.c */
PETSC_INTERN PetscErrorCode SolidSetUpBalance(Solid *, MechSystem);
/* initial.c */
PETSC_INTERN PetscErrorCode SolidSetUpInitialState(Solid *, MechSystem, Vec, Vec);
/* constraints.c */
PETSC_INTERN PetscErrorCode SolidSetUpConstraints(Solid *, MechSystem, PetscBool, PetscReal, const char[], Vec, Vec);
PETSC_INTERN PetscErrorCode SolidConstraintsEvaluate(SolidConstraints, PetscReal, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode SolidConstraintsDestroy(SolidConstraints *);
/* loads.c */
PETSC_INTERN PetscErrorCode SolidSetUpLoads(Solid *, MechSystem, const char[], PetscReal);
PETSC_INTERN PetscErrorCode SolidLoadsDestroy(Solid *);
/* What checkpoints and outputs record of where constraints and loads act (records.c) */
PETSC_INTERN PetscErrorCode SolidRecordNodes(MechSystem, const char pname[], const char what[], Vec X, const PetscInt mark[]);
PETSC_INTERN PetscErrorCode SolidRecordTime(MechSystem, const char pname[], MechTimeFunction);
PETSC_INTERN PetscErrorCode SolidRecordLoad(MechSystem, const SolidLoad *, const char what[]);
PETSC_INTERN PetscErrorCode SolidLoadsAddForce(Solid *, PetscReal, const PetscScalar[], PetscScalar[]);
PETSC_INTERN PetscErrorCode SolidLoadsAddTangent(Solid *, PetscReal, const PetscScalar[], PetscReal, Mat);
PETSC_INTERN PetscErrorCode SolidLoadsLinearize(Solid *, PetscReal, const PetscScalar[], PetscReal);
PETSC_INTERN PetscErrorCode SolidLoadsApply(Solid *, const PetscScalar[], PetscScalar[]);
PETSC_INTERN PetscErrorCode SolidLoadsPotential(Solid *, PetscReal, const PetscScalar[], PetscReal *);
/* bodyforce.c */
PETSC_INTERN PetscErrorCode SolidBodyAddForce(Solid *, PetscReal, Vec);
PETSC_INTERN PetscErrorCode SolidBodyPotential(Solid *, PetscReal, Vec, PetscReal *);
PETSC_INTERN PetscErrorCode SolidBodyDestroy(SolidBody *);
/* discgrad.c */
PETSC_INTERN PetscErrorCode SolidSetUpDiscreteGradient(Solid *, MechSystem);
/* pmg.c: the tangent's diagonal and, for quadratic elements, the p-multigrid */
PETSC_INTERN PetscErrorCode SolidSetUpMultigrid(Solid *, MechSystem);
/* stress.c */
PETSC_INTERN PetscErrorCode SolidSetCellFields(Solid *, MechSystem);
PETSC_INTERN void           SolidCellAverage(const Solid *, PetscInt, const PetscScalar[], PetscReal[6], PetscReal *, PetscReal *);
/* probes.c */
PETSC_INTERN PetscErrorCode SolidSetUpProbes(Solid *, MechSystem, const char what[], PetscReal hmin);
PETSC_INTERN PetscErrorCode SolidProbesDestroy(Solid *);

/* mesh.c */
PETSC_INTERN PetscErrorCode SolidCreateMesh(MPI_Comm, const char[], const PetscInt[3], const PetscReal[3], DMPolytopeType, PetscInt order, DM *, PetscInt **, PetscInt **);
PETSC_INTERN PetscErrorCode SolidCheckMesh(DM, const char[], const PetscInt[], DMPolytopeType *);
PETSC_INTERN PetscErrorCode SolidMeshSetNodes(DM, PetscInt, PetscInt, const PetscInt[], const PetscReal[]);
PETSC_INTERN PetscErrorCode SolidDistribute(DM *, PetscInt, PetscInt **, PetscInt **, Vec *, const char[]);
PETSC_INTERN PetscErrorCode SolidSetUpCells(Solid *, const char[], PetscReal *);
PETSC_INTERN PetscErrorCode SolidMarkLabel(Solid *, const char[], PetscInt, PetscInt[], PetscInt *);
PETSC_INTERN PetscErrorCode SolidMeshChecksum(Vec, PetscReal *);
PETSC_INTERN PetscErrorCode SolidSetIOOrdering(Solid *, MechSystem, const PetscInt[], Vec);
/* iocells.c */
PETSC_INTERN PetscErrorCode SolidSetIOCells(Solid *, MechSystem, Vec);

#endif
