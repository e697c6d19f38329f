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
  otherwise. Forces, tangents and potential are those of the spring grid of gridsprings.h (rows
  of the sheet are its slabs), with the sphere as the model's own term per particle.
*/
#include "models/gridsprings.h"

/* The penalty sphere: centre, radius and stiffness per particle */
typedef struct {
  PetscReal center[3], radius, ksp;
} ClothSphere;

/*
  Sphere penalty on one particle at x. Inside the sphere (distance r < R from the centre) the
  physical force ks (R - r) e pushes the particle out along e = (x - c) / r, so f gets
  ks (r - R) e, the gradient of the energy 1/2 ks (r - R)^2. Its derivative is
  ks [I - (R / r)(I - e e^T)]; both are only continuous at the surface, where they vanish.
  Inside, its part across e, ks (1 - R / r), is negative: with definite it is clamped at zero,
  leaving ks e e^T, as for a compressed spring (springs.h). Adds to f and scale * derivative to K
  (each may be NULL); returns the energy.
*/
static PetscReal ClothSpherePenalty(void *ctx, const PetscReal x[], PetscReal f[], PetscReal scale, PetscReal K[], PetscBool definite)
{
  const ClothSphere *sp = (const ClothSphere *)ctx;
  PetscReal          d[3], r, pen;
  PetscInt           a, b;

  for (a = 0; a < 3; a++) d[a] = x[a] - sp->center[a];
  r = PetscSqrtReal(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  /* at the very centre the direction is undefined: no push (a measure-zero case) */
  if (r >= sp->radius || r == 0) return 0;
  pen = r - sp->radius;
  if (f)
    for (a = 0; a < 3; a++) f[a] += sp->ksp * pen * d[a] / r;
  if (K)
    for (a = 0; a < 3; a++)
      for (b = 0; b < 3; b++) K[3 * a + b] += scale * sp->ksp * (definite ? (d[a] / r) * (d[b] / r) : (a == b ? 1.0 - sp->radius / r : 0.0) + sp->radius / r * (d[a] / r) * (d[b] / r));
  return 0.5 * sp->ksp * pen * pen;
}

static const char *const ClothPinTypes[] = {"corners", "edge", "ClothPin", "CLOTH_PIN_", NULL};

/*@
  MechCreateCloth - Creates the cloth model: an nx x ny sheet of particles on a 2-D `DMDA`,
  joined by structural, shear and bend springs, hanging from its edge j = 0.

  Collective

  Input Parameter:
. comm - the communicator of the model

  Output Parameter:
. sys - the new mechanical system, named "cloth"

  Options Database Keys:
+ -cloth_n <32> - particles per side, at least 2 (the `DMDA` options, e.g. -da_grid_x, -da_refine, may change it)
. -cloth_size <1> - side length along x; the spacing h = size / (nx - 1) is the same along y
. -cloth_mass <1> - total mass, lumped equally on the particles
. -cloth_k <1e3> - stiffness of each structural spring; in a square lattice this is also the
                   in-plane stiffness of the whole sheet, so it does not depend on n
. -cloth_k_shear <100> - stiffness of each shear (diagonal) spring, 0: none
. -cloth_k_bend <10> - stiffness of each bend spring (distance 2), 0: none (then the stencil width is 1)
. -cloth_c <0.1> - damping of every spring along its direction (default 0 with -cloth_linear)
. -cloth_drag <0.1> - total linear air drag coefficient, lumped equally on the particles like the mass
. -cloth_g <9.81> - gravity along -z
. -cloth_linear <false> - zero-rest-length springs (otherwise the rest lengths are those of the flat start)
. -cloth_pin <corners> - pinned particles: corners, the corners (0, 0) and (nx - 1, 0), or edge, the edge j = 0
. -cloth_sphere <false> - a penalty sphere to collide with
. -cloth_sphere_center <size/2,size/2,-size/2> - its centre, 3 values: in the path of the swing
. -cloth_sphere_radius <size/4> - its radius
- -cloth_sphere_k <1e5> - total penalty stiffness, lumped equally on the particles (so the contact
                          frequency sqrt(k / mass) does not depend on n)

  Level: beginner

  Notes:
  The sheet starts flat in the plane z = 0, particle (i, j) at (i h, j h, 0), at rest; released, it
  falls and swings about the x axis, through the default sphere. The particles live on a 2-D
  `DMDA` with 3 dofs and a box stencil (the system's `DM`).

  The system is linear (`MechSystemSetLinear()`) only with -cloth_linear, -cloth_c 0 and no sphere:
  the spring damper acts along the spring direction, which turns with the motion even for
  zero-rest-length springs, and the penalty is piecewise. -cloth_linear therefore makes 0 the
  default of -cloth_c. The system has damping when -cloth_c or -cloth_drag is positive.

  With bend springs the `DMDA`'s stencil width is 2, so every rank must own at least 2 particles
  along each direction it is split in (`DMDA`'s check); -cloth_k_bend 0 lowers that to 1.

.seealso: `MechCreateModel()`, `MechCreateLattice()`, `MechCreateChain()`, `TSMechSetSystem()`
@*/
PetscErrorCode MechCreateCloth(MPI_Comm comm, MechSystem *sys)
{
  /* k: stiffness of the structural, shear and bend springs, as MechSpringGridCreate() takes them */
  MechSpringGridOptions o = {
      32, 1, 1, {1e3, 100, 10},
         0.1, 0.1, 9.81, PETSC_FALSE
  };
  const char *const help[] = {"Particles per side", "Side length", "Total mass, lumped on the particles", "Structural spring stiffness", "Shear (diagonal) spring stiffness, 0: none", "Bend (distance 2) spring stiffness, 0: none", "Damping of every spring along its direction", "Total linear air drag, lumped on the particles"};
  PetscInt          nx, ny, sw, c, pin = 0, mx = PETSC_DECIDE, my = PETSC_DECIDE;
  PetscReal         h, center[3], radius, ksphere = 1e5;
  const PetscReal   v0[3]  = {0, 0, 0};
  PetscBool         sphere = PETSC_FALSE, set;
  MechSpringGrid   *grid;
  MechSystem        sy;
  DM                da;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "Cloth model options", "MechSystem");
  PetscCall(MechSpringGridReadOptions(PetscOptionsObject, "cloth", "MechCreateCloth", help, &o));
  PetscCall(MechOptionsEList("-cloth_pin", "Pinned particles", "MechCreateCloth", ClothPinTypes, 2, ClothPinTypes[pin], &pin, NULL));
  PetscCall(MechOptionsBool("-cloth_sphere", "Collide with a penalty sphere", "MechCreateCloth", sphere, &sphere, NULL));
  center[0] = o.size / 2;
  center[1] = o.size / 2;
  center[2] = -o.size / 2;
  radius    = o.size / 4;
  PetscCall(MechOptionsRealList("-cloth_sphere_center", "Centre of the sphere", "MechCreateCloth", center, 3, &set));
  PetscCall(MechOptionsReal("-cloth_sphere_radius", "Radius of the sphere", "MechCreateCloth", radius, &radius, NULL));
  PetscCall(MechOptionsReal("-cloth_sphere_k", "Total penalty stiffness of the sphere, lumped on the particles", "MechCreateCloth", ksphere, &ksphere, NULL));
  PetscOptionsEnd();
  /* checked after PetscOptionsEnd(), which must run to free the options object */
  PetscCall(MechSpringGridCheckParameters(comm, "cloth", o.n, o.size, o.mass, o.k, o.c, o.drag));
  PetscCheck(!sphere || radius > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cloth_sphere_radius %g must be positive", (double)radius);
  PetscCheck(!sphere || ksphere > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cloth_sphere_k %g must be positive", (double)ksphere);

  /* bend springs reach two particles away: the ghost layer must be as wide */
  sw = o.k[2] > 0 ? 2 : 1;
  /* PETSc's default process grid of a square grid is one column of ranks for 2, 3, 5, ... ranks:
     both pinned corners, (0, 0) and (nx - 1, 0), then sit on the first rank, which alone does the
     work of nonlinear elimination near them (-ts_theta_ne). A row of ranks cuts the grid as long
     and gives them to the first and the last rank. -da_processors_x and _y still decide. */
  {
    PetscMPIInt size;
    PetscInt    pm;
    PetscBool   px, py;

    PetscCallMPI(MPI_Comm_size(comm, &size));
    PetscCall(PetscOptionsHasName(NULL, NULL, "-da_processors_x", &px));
    PetscCall(PetscOptionsHasName(NULL, NULL, "-da_processors_y", &py));
    pm = (PetscInt)(0.5 + PetscSqrtReal((PetscReal)size));
    while (pm > 1 && size % pm) pm--;
    if (pin == 0 && size > 1 && pm == 1 && o.n >= sw * size && !px && !py) {
      mx = size;
      my = 1;
    }
  }
  PetscCall(DMDACreate2d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, o.n, o.n, mx, my, 3, sw, NULL, NULL, &da));
  PetscCall(MechSpringGridSetUpDMDA(da, "cloth"));
  /* DMDA options (-da_grid_x, -da_refine) may have changed the size */
  PetscCall(DMDAGetInfo(da, NULL, &nx, &ny, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCheck(nx >= 2 && ny >= 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "The cloth needs at least 2 x 2 particles, the DMDA has %" PetscInt_FMT " x %" PetscInt_FMT, nx, ny);
  h = o.size / (nx - 1);

  PetscCall(MechSpringGridCreate(da, o.k, 1.0, o.c, h, o.linear, &grid));
  grid->weight = o.mass / (nx * ny) * o.g;
  grid->drag   = o.drag / (nx * ny);
  if (sphere) {
    ClothSphere *sp;

    PetscCall(PetscNew(&sp));
    for (c = 0; c < 3; c++) sp->center[c] = center[c];
    sp->radius     = radius;
    sp->ksp        = ksphere / (nx * ny);
    grid->extra    = ClothSpherePenalty;
    grid->extractx = sp;
  }

  PetscCall(MechSystemCreate(comm, &sy));
  PetscCall(MechSystemSetModelName(sy, "cloth"));
  PetscCall(MechSystemAddParameter(sy, "n", (PetscReal)nx));
  PetscCall(MechSystemAddParameter(sy, "ny", (PetscReal)ny));
  PetscCall(MechSpringGridAddParameters(sy, &o));
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

  PetscCall(MechSpringGridSetUpSystem(grid, sy, o.mass / (nx * ny), o.c > 0 || o.drag > 0 ? PETSC_TRUE : PETSC_FALSE));
  PetscCall(MechSystemSetLinear(sy, o.linear && o.c == 0 && !sphere ? PETSC_TRUE : PETSC_FALSE));
  /* pinned: the corners (0, 0) and (nx - 1, 0), or the edge j = 0; flat start in z = 0 at rest */
  PetscCall(MechSpringGridSetFixedBase(grid, sy, pin == 0 ? PETSC_TRUE : PETSC_FALSE));
  PetscCall(MechSpringGridSetInitialState(grid, sy, h, 1.0, v0));
  PetscCall(DMDestroy(&da));
  *sys = sy;
  PetscFunctionReturn(0);
}
