/*
  Rope of N particles in 3-D: neighbours joined by springs with damping along the spring,
  gravity along -z, linear drag, particle 0 pinned. The particles are distributed with a 1-D
  DMDA (3 dofs per particle, stencil width 1); in 1-D the DMDA's global ordering is the natural
  one, so particle i owns the dofs 3 i, 3 i + 1, 3 i + 2. Forces, tangents and potential are
  those of the spring grid of gridsprings.h with structural springs only: every row is summed in
  the same order (left spring, right spring, gravity, drag) whatever the partition, so results do
  not depend on the number of ranks.
*/
#include "models/gridsprings.h"

/*@
  MechCreateChain - Creates the chain model: a rope of N particles in 3-D joined by springs,
  pinned at particle 0, on a 1-D `DMDA`.

  Collective

  Input Parameter:
. comm - the communicator of the model

  Output Parameter:
. sys - the new mechanical system, named "chain"

  Options Database Keys:
+ -chain_n <20> - number of particles, at least 2 (the `DMDA` options, e.g. -da_grid_x, may change it)
. -chain_length <1> - rest length of the whole rope
. -chain_mass <1> - total mass, lumped equally on the particles
. -chain_k <1e3> - spring stiffness
. -chain_c <0.1> - damping of each spring along its direction
. -chain_drag <0.01> - linear drag coefficient of each particle
. -chain_g <9.81> - gravity along -z
. -chain_linear <false> - zero-rest-length springs (otherwise the rest length is the spacing length/(N-1))
- -chain_stretch <1> - initial spacing over the rest spacing length/(N-1)

  Level: beginner

  Notes:
  The particles are distributed with a 1-D `DMDA` (3 dofs per particle, stencil width 1, the
  system's `DM`): particle i owns the dofs 3 i, 3 i + 1, 3 i + 2. The rope starts along x with
  the stretched spacing, at rest, particle 0 fixed. Every row is summed in the same order whatever
  the partition, so results do not depend on the number of ranks.

  The system is linear only with -chain_linear and -chain_c 0: the spring damper acts along the
  spring direction, which turns with the motion even for zero-rest-length springs. It has damping
  when -chain_c or -chain_drag is positive. The parameters n, length, mass, k, c, drag, g, linear
  and stretch are recorded (`MechSystemAddParameter()`).

.seealso: `MechCreateModel()`, `MechCreateCloth()`, `MechCreateLattice()`, `TSMechSetSystem()`
@*/
PetscErrorCode MechCreateChain(MPI_Comm comm, MechSystem *sys)
{
  PetscInt        n      = 20;
  PetscReal       length = 1, mass = 1, k = 1e3, cdamp = 0.1, drag = 0.01, g = 9.81, stretch = 1, h;
  const PetscReal v0[3]    = {0, 0, 0};
  PetscBool       zerorest = PETSC_FALSE;
  MechSpringGrid *grid;
  MechSystem      s;
  DM              da;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "Chain model options", "MechSystem");
  PetscCall(MechOptionsInt("-chain_n", "Number of particles", "MechCreateChain", n, &n, NULL));
  PetscCall(MechOptionsReal("-chain_length", "Rest length of the rope", "MechCreateChain", length, &length, NULL));
  PetscCall(MechOptionsReal("-chain_mass", "Total mass, lumped on the particles", "MechCreateChain", mass, &mass, NULL));
  PetscCall(MechOptionsReal("-chain_k", "Spring stiffness", "MechCreateChain", k, &k, NULL));
  PetscCall(MechOptionsReal("-chain_c", "Spring damping along the springs", "MechCreateChain", cdamp, &cdamp, NULL));
  PetscCall(MechOptionsReal("-chain_drag", "Linear drag on each particle", "MechCreateChain", drag, &drag, NULL));
  PetscCall(MechOptionsReal("-chain_g", "Gravity along -z", "MechCreateChain", g, &g, NULL));
  PetscCall(MechOptionsBool("-chain_linear", "Zero-rest-length springs", "MechCreateChain", zerorest, &zerorest, NULL));
  PetscCall(MechOptionsReal("-chain_stretch", "Initial spacing over rest spacing", "MechCreateChain", stretch, &stretch, NULL));
  PetscOptionsEnd();
  PetscCheck(n >= 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "-chain_n %" PetscInt_FMT " must be at least 2", n);
  PetscCheck(length > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-chain_length %g must be positive", (double)length);
  PetscCheck(mass > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-chain_mass %g must be positive", (double)mass);
  PetscCheck(k > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-chain_k %g must be positive", (double)k);
  PetscCheck(cdamp >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-chain_c %g must be non-negative", (double)cdamp);
  PetscCheck(drag >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-chain_drag %g must be non-negative", (double)drag);
  PetscCheck(stretch > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-chain_stretch %g must be positive", (double)stretch);

  PetscCall(DMDACreate1d(comm, DM_BOUNDARY_NONE, n, 3, 1, NULL, &da));
  PetscCall(MechSpringGridSetUpDMDA(da, "chain"));
  /* DMDA options (-da_grid_x, -da_refine) may have changed the size */
  PetscCall(DMDAGetInfo(da, NULL, &n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCheck(n >= 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "The chain needs at least 2 particles, the DMDA has %" PetscInt_FMT, n);
  h = length / (n - 1);

  {
    const PetscReal kfam[3] = {k, 0, 0};

    PetscCall(MechSpringGridCreate(da, kfam, 1.0, cdamp, h, zerorest, &grid));
  }
  grid->weight = mass / n * g;
  grid->drag   = drag;

  PetscCall(MechSystemCreate(comm, &s));
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

  PetscCall(MechSpringGridSetUpSystem(grid, s, mass / n, cdamp > 0 || drag > 0 ? PETSC_TRUE : PETSC_FALSE));
  PetscCall(MechSystemSetLinear(s, zerorest && cdamp == 0 ? PETSC_TRUE : PETSC_FALSE));
  /* particle 0 pinned; start along x with spacing stretch h, at rest */
  PetscCall(MechSpringGridSetFixedBase(grid, s, PETSC_FALSE));
  PetscCall(MechSpringGridSetInitialState(grid, s, h, stretch, v0));
  PetscCall(DMDestroy(&da));
  *sys = s;
  PetscFunctionReturn(0);
}
