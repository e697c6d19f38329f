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
  and 1 otherwise. Forces, tangents and potential are those of the spring grid of gridsprings.h
  (as in the cloth): bitwise independent of the partition, each spring evaluated once.
*/
#include "models/gridsprings.h"

/*@
  MechCreateLattice - Creates the lattice model: a soft nx x ny x nz box of particles on a 3-D
  `DMDA`, joined by structural, shear and bend springs, with its base layer fixed.

  Collective

  Input Parameter:
. comm - the communicator of the model

  Output Parameter:
. sys - the new mechanical system, named "lattice"

  Options Database Keys:
+ -lattice_n <8> - particles per side, at least 2 (the `DMDA` options, e.g. -da_grid_z, -da_refine, may change it)
. -lattice_size <1> - side length along x; the spacing h = size / (nx - 1) is the same along y and z
. -lattice_mass <1> - total mass, lumped equally on the particles
. -lattice_k <50> - structural stiffness of the whole box along an axis (each spring: k h / size)
. -lattice_k_shear <25> - the same for the shear (face and body diagonal) springs, 0: none
. -lattice_k_bend <5> - the same for the bend springs (distance 2 along an axis), 0: none (stencil width 1)
. -lattice_c <0.1> - damping along the springs, scaled like k (default 0 with -lattice_linear)
. -lattice_drag <0.1> - total linear drag coefficient, lumped equally on the particles
. -lattice_g <9.81> - gravity along -z
. -lattice_linear <false> - zero-rest-length springs (the body then collapses onto its base)
- -lattice_v0 <0,0,0> - initial velocity of every free particle, 3 values

  Level: beginner

  Notes:
  The body starts undeformed, particle (i, j, k) at (i h, j h, k h); the base layer k = 0 is fixed
  and at rest, the other particles move with -lattice_v0. It sags and wobbles under gravity. The
  stiffness and damping options are those of the whole box, so the motion does not depend on the
  resolution. The particles live on a 3-D `DMDA` with 3 dofs and a box stencil (the system's `DM`).

  The system is linear only with -lattice_linear and -lattice_c 0 (hence that default). With bend
  springs the `DMDA`'s stencil width is 2, so every rank must own at least 2 particles along each
  direction it is split in (`DMDA`'s check); -lattice_k_bend 0 lowers that to 1.

.seealso: `MechCreateModel()`, `MechCreateCloth()`, `MechCreateChain()`, `TSMechSetSystem()`
@*/
PetscErrorCode MechCreateLattice(MPI_Comm comm, MechSystem *sys)
{
  /* k: stiffness of the structural, shear and bend springs of the whole box */
  MechSpringGridOptions o = {
      8, 1, 1, {50, 25, 5},
         0.1, 0.1, 9.81, PETSC_FALSE
  };
  const char *const help[] = {"Particles per side", "Side length", "Total mass, lumped on the particles", "Structural stiffness of the whole box", "Shear (diagonal) stiffness of the whole box, 0: none", "Bend (distance 2) stiffness of the whole box, 0: none", "Damping along the springs, scaled like the stiffness", "Total linear drag, lumped on the particles"};
  PetscInt          nx, ny, nz, sw;
  PetscReal         v0[3] = {0, 0, 0}, h, scale;
  PetscBool         set;
  MechSpringGrid   *grid;
  MechSystem        sy;
  DM                da;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "Lattice model options", "MechSystem");
  PetscCall(MechSpringGridReadOptions(PetscOptionsObject, "lattice", "MechCreateLattice", help, &o));
  PetscCall(MechOptionsRealList("-lattice_v0", "Initial velocity of the free particles", "MechCreateLattice", v0, 3, &set));
  PetscOptionsEnd();
  /* checked after PetscOptionsEnd(), which must run to free the options object */
  PetscCall(MechSpringGridCheckParameters(comm, "lattice", o.n, o.size, o.mass, o.k, o.c, o.drag));

  /* bend springs reach two particles away: the ghost layer must be as wide */
  sw = o.k[2] > 0 ? 2 : 1;
  PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, o.n, o.n, o.n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 3, sw, NULL, NULL, NULL, &da));
  PetscCall(MechSpringGridSetUpDMDA(da, "lattice"));
  PetscCall(DMDAGetInfo(da, NULL, &nx, &ny, &nz, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCheck(nx >= 2 && ny >= 2 && nz >= 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "The lattice needs at least 2 x 2 x 2 particles, the DMDA has %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT, nx, ny, nz);
  h     = o.size / (nx - 1);
  scale = h / o.size;

  PetscCall(MechSpringGridCreate(da, o.k, scale, o.c, h, o.linear, &grid));
  grid->weight = o.mass / (nx * ny * nz) * o.g;
  grid->drag   = o.drag / (nx * ny * nz);

  PetscCall(MechSystemCreate(comm, &sy));
  PetscCall(MechSystemSetModelName(sy, "lattice"));
  PetscCall(MechSystemAddParameter(sy, "n", (PetscReal)nx));
  PetscCall(MechSystemAddParameter(sy, "ny", (PetscReal)ny));
  PetscCall(MechSystemAddParameter(sy, "nz", (PetscReal)nz));
  PetscCall(MechSpringGridAddParameters(sy, &o));
  PetscCall(MechSystemAddParameter(sy, "v0_x", v0[0]));
  PetscCall(MechSystemAddParameter(sy, "v0_y", v0[1]));
  PetscCall(MechSystemAddParameter(sy, "v0_z", v0[2]));
  PetscCall(MechSystemSetDM(sy, da));

  PetscCall(MechSpringGridSetUpSystem(grid, sy, o.mass / (nx * ny * nz), o.c > 0 || o.drag > 0 ? PETSC_TRUE : PETSC_FALSE));
  PetscCall(MechSystemSetLinear(sy, o.linear && o.c == 0 ? PETSC_TRUE : PETSC_FALSE));
  /* the base layer k = 0 fixed; undeformed start, the base at rest, the rest moving with v0 */
  PetscCall(MechSpringGridSetFixedBase(grid, sy, PETSC_FALSE));
  PetscCall(MechSpringGridSetInitialState(grid, sy, h, 1.0, v0));
  PetscCall(DMDestroy(&da));
  *sys = sy;
  PetscFunctionReturn(0);
}
