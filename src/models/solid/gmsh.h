/*
  Mesh input of the solid model (src/models/solid/gmsh.c): tsmech's own reader of Gmsh files, the
  Gmsh physical-group table kept with the DM, and PETSc's DMPlex HDF5 reader without HDF5's error
  stack. Private to the library and its tests.
*/
#ifndef TSMECH_SOLID_GMSH_H
#define TSMECH_SOLID_GMSH_H

#include <petscdmplex.h>

/* Reads a Gmsh .msh file (2.2 or 4.1, ASCII or binary) on rank 0 into an interpolated DMPlex of
   tetrahedra with PETSc's labels; every rank gets the same verdict ("what: reason" if refused) */
PETSC_EXTERN PetscErrorCode SolidMeshReadGmsh(MPI_Comm, const char[], const char[], DM *);
/* PETSc's DMPlex HDF5 reader, HDF5's automatic error printing switched off around it */
PETSC_EXTERN PetscErrorCode SolidMeshReadHDF5(MPI_Comm, const char[], const char[], DM *);
/* The label and value of the Gmsh physical group called name (found PETSC_FALSE: no such group) */
PETSC_EXTERN PetscErrorCode SolidMeshGetPhysicalGroup(DM, const char[], const char **, PetscInt *, PetscBool *);
/* Carries the physical-group table from one DM to another (after a permutation or distribution) */
PETSC_EXTERN PetscErrorCode SolidMeshCopyPhysicalGroups(DM, DM);

#endif
