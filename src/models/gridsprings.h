/*
  Spring networks on a DMDA, shared by the chain (1-D), the cloth (2-D) and the lattice (3-D).

  The particles are the points of a DMDA with 3 dofs (x, y, z). Each is joined through the kernel
  of springs.h to the points at the offsets of a stencil, in up to three families:

    structural  one step along one axis                        rest length h
    shear       the other neighbours of the unit box           rest length sqrt(2) h, sqrt(3) h
    bend        two steps along one axis                       rest length 2 h

  with gravity along -z (f gets +m g e_z), linear drag (f gets +c_drag v) and, optionally, one
  more term per particle given by the model (the cloth's sphere).

  Each rank computes the rows of its own particles only, summing the terms of a particle in one
  fixed order (its springs in stencil order, natural order of the offsets; gravity; drag; the
  model's term), so that every entry is computed by the same operations on any number of ranks:
  forces are bitwise independent of the partition.

  Each spring is evaluated once (not once per end): the kernel's results for the two ends are
  exact negatives (force) or equal (tangent block) bit for bit, because swapping the ends only
  flips signs. A particle evaluates its forward springs (to the stencil entries after itself);
  the results of the last sw + 1 slabs are kept in a small buffer, from which the rows of the
  backward partners are read. A spring with an end on another rank is evaluated by both ranks.

  Internally a point is (i, j, k), i along the fastest and k along the slowest direction of the
  DMDA's storage: (x, y, z) of a 3-D DMDA, (x, -, y) of a 2-D one and (-, -, x) of a 1-D one, "-"
  of extent 1. A slab, the unit of the buffer, is one k: a plane of the lattice, a row of the
  cloth, a particle of the chain.
*/
#ifndef TSMECH_GRIDSPRINGS_H
#define TSMECH_GRIDSPRINGS_H

#include <tsmech.h>
#include <petscdmda.h>
#include "models/springs.h"

/* The particle itself, the 26 neighbours of the unit box and 6 bend partners */
#define MECH_GRID_STENCIL 33

/*
  A model's own term on one particle at x: adds its force to f and scale times its derivative
  to K (each may be NULL) and returns its energy. With definite, K gets a positive semidefinite
  approximation of the derivative instead (for the preconditioning matrix,
  MechSystemSetTangentDefinite()).
*/
typedef PetscReal (*MechGridParticleFn)(void *ctx, const PetscReal x[], PetscReal f[], PetscReal scale, PetscReal K[], PetscBool definite);

typedef struct {
  DM         da;
  PetscInt   n[3];                      /* points along i, j, k */
  PetscInt   xs[3], xm[3];              /* owned box: start and widths */
  PetscInt   gs[3], gm[3];              /* ghosted box */
  PetscInt   nst;                       /* stencil entries in use (the particle itself included) */
  PetscInt   self;                      /* position of the particle itself in the stencil */
  PetscInt   d[MECH_GRID_STENCIL][3];   /* offsets (i, j, k), in natural order */
  PetscInt   goff[MECH_GRID_STENCIL];   /* the same offsets in points of the ghosted array */
  MechSpring spring[MECH_GRID_STENCIL]; /* the spring to each stencil entry (unused at self) */
  PetscInt   nfw;                       /* forward entries: self + 1, ..., nst - 1 */
  PetscInt   sw;                        /* reach of the farthest spring */
  PetscInt   reach[3];                  /* the same along i, j, k (0 along a direction of extent 1) */
  PetscInt   bent[MECH_GRID_STENCIL];   /* buffer entry of the spring to each stencil entry, relative to the
                                           particle's first forward spring in the slab of the spring's first end */
  PetscInt   b0[2], bm[2];              /* buffered points: i in [b0[0], b0[0] + bm[0]), j likewise */
  PetscReal *buf;                       /* forward spring results of the last sw + 1 slabs: slab slot,
                                           j, i, forward entry, then 3 (force) or 9 (tangent) reals */
  PetscReal  weight, drag;              /* per particle: m g and the drag coefficient */
  PetscBool  constant;                  /* all springs of zero rest length and undamped: blocks k I */
  PetscInt   k0;                        /* first slab of the store */
  PetscBool  damped;                    /* the springs have damping c > 0 */
  PetscReal *store;                     /* matrix-free tangent: coefficients of MechSpringTangentAction() of the
                                           forward springs of the slabs k0, ..., last owned */
  Vec                xlin, ulin;        /* and the ghosted state they were computed at (ulin: damped only) */
  PetscReal         *ext;               /* and cK times the derivative of the model's term, per owned particle */
  PetscReal          cK, cD;            /* coefficients of the last linearization */
  PetscReal         *yl;                /* ghosted work array of the spring-by-spring product */
  MechGridParticleFn extra;             /* the model's own term, or NULL */
  void              *extractx;          /* its context, freed with PetscFree() by MechSpringGridDestroy() */
} MechSpringGrid;

/* Sets up a DMDA created for a grid model: AIJ matrices, the DMDA options, field names x, y, z.
   Before DMSetUp() the layout is checked on every rank (size within 32-bit indices, a process
   grid of the run's ranks, every rank at least the stencil width along each direction), with
   messages that name -<model>_n or -da_processors_<x>. */
PETSC_INTERN PetscErrorCode MechSpringGridSetUpDMDA(DM da, const char model[]);
/*
  Checks the options of a grid model with the given prefix (-<prefix>_n, _size, _mass, _k,
  _k_shear, _k_bend, _c, _drag; k[3] as in MechSpringGridCreate()): at least 2 particles per side,
  positive size, mass and structural stiffness, the rest non-negative.
*/
/* The options the 2-D and 3-D grid models share, <model>_n, _size, _mass, _k, _k_shear, _k_bend,
   _linear, _c, _drag, _g, read inside the model's options block with its help texts (help[0..7]:
   n, size, mass, k, k_shear, k_bend, c, drag); the values given are the defaults. c is 0 by
   default with -<model>_linear. */
typedef struct {
  PetscInt  n;
  PetscReal size, mass, k[3], c, drag, g;
  PetscBool linear;
} MechSpringGridOptions;
PETSC_INTERN PetscErrorCode MechSpringGridReadOptions(PetscOptionItems *, const char model[], const char man[], const char *const help[8], MechSpringGridOptions *);
/* Adds them to the system as its parameters size, mass, k, k_shear, k_bend, c, drag, g, linear */
PETSC_INTERN PetscErrorCode MechSpringGridAddParameters(MechSystem, const MechSpringGridOptions *);
PETSC_INTERN PetscErrorCode MechSpringGridCheckParameters(MPI_Comm comm, const char prefix[], PetscInt n, PetscReal size, PetscReal mass, const PetscReal k[3], PetscReal c, PetscReal drag);
/*
  Creates the springs of the DMDA da (3 dofs; its stencil width must reach the farthest spring),
  keeping a reference to it. k[3]: stiffness of the structural, shear and bend families (0: no
  such springs), each multiplied by scale, as is the damping c of every spring; rest lengths
  h |offset|, or 0 with zerorest. Gravity, drag and the model's term start out absent.
*/
PETSC_INTERN PetscErrorCode MechSpringGridCreate(DM da, const PetscReal k[3], PetscReal scale, PetscReal c, PetscReal h, PetscBool zerorest, MechSpringGrid **grid);
/* Destroys a grid; the signature of an application context's destroy function */
PETSC_INTERN PetscErrorCode MechSpringGridDestroy(void *grid);
/*
  Makes the grid the application context of sys and gives sys its lumped mass (pmass on every
  particle), force, tangent (with the exact spring couplings as pattern; damped: whether D can be
  nonzero), its clamped positive semidefinite approximation (MechSystemSetTangentDefinite(),
  springs.h), the matrix-free tangent action and potential.
*/
PETSC_INTERN PetscErrorCode MechSpringGridSetUpSystem(MechSpringGrid *grid, MechSystem sys, PetscReal pmass, PetscBool damped);
/* Fixes the particles of the slab k = 0 (all of them, or with ends only those with i = 0 or n - 1) */
PETSC_INTERN PetscErrorCode MechSpringGridSetFixedBase(MechSpringGrid *grid, MechSystem sys, PetscBool ends);
/*
  The initial state of sys: the DMDA point (a, b, c) at (a stretch h, b h, c h), the slab k = 0
  at rest and every other particle with velocity v0.
*/
PETSC_INTERN PetscErrorCode MechSpringGridSetInitialState(MechSpringGrid *grid, MechSystem sys, PetscReal h, PetscReal stretch, const PetscReal v0[3]);

#endif
