/*
  Mesh input of the solid model (src/models/solid/gmsh.c): tsmech's own reader of Gmsh files, the
  Gmsh physical-group table kept with the DM, and PETSc's DMPlex HDF5 reader without HDF5's error
  stack. Private to the library and its tests.
*/
#ifndef TSMECH_SOLID_GMSH_H
#define TSMECH_SOLID_GMSH_H

#include <petscdmplex.h>

/* Reads a Gmsh .msh file (2.2 or 4.1, ASCII or binary) on rank 0 into an interpolated DMPlex of the
   cells' corners (tetrahedra or hexahedra) with PETSc's labels; every rank gets the same verdict
   ("what: reason" if refused) */
PETSC_EXTERN PetscErrorCode SolidMeshReadGmsh(MPI_Comm, const char[], const char[], DM *);
/*
  The cells of a mesh read by SolidMeshReadGmsh() (found PETSC_FALSE: another DM): their kind and
  order and nodes per cell (every rank), and on rank 0 the count and every node's coordinates, per
  cell in file order, 3 reals a node, in Gmsh's node order (Gmsh's reference manual, "Node
  ordering", checked against Gmsh 4.8's gmsh.model.mesh.getElementProperties()):

    4-node tetrahedron  corners 0 1 2 3 (Gmsh's orientation: (1-0, 2-0, 3-0) right-handed)
    10-node             then the edge nodes 4..9 on edges (0,1) (1,2) (2,0) (3,0) (3,2) (3,1)
    8-node hexahedron   corners 0 1 2 3 (bottom, counter-clockwise seen from the top), 4 5 6 7 above
    27-node             then the edge nodes 8..19 on edges (0,1) (0,3) (0,4) (1,2) (1,5) (2,3)
                        (2,6) (3,7) (4,5) (4,7) (5,6) (6,7), the face nodes 20..25 on faces
                        (0,1,2,3) (0,1,5,4) (0,3,7,4) (1,2,6,5) (2,3,7,6) (4,5,6,7), the centre 26

  The DM's cells hold the corners only, in PETSc's orientation (DMPlexInvertCell()).
*/
PETSC_EXTERN PetscErrorCode SolidMeshGetGmshCells(DM, PetscBool *, DMPolytopeType *, PetscInt *, PetscInt *, PetscInt *, const PetscReal **);
/* PETSc's DMPlex HDF5 reader, HDF5's automatic error printing switched off around it */
PETSC_EXTERN PetscErrorCode SolidMeshReadHDF5(MPI_Comm, const char[], const char[], DM *);
/* The label and value of the Gmsh physical group called name (found PETSC_FALSE: no such group) */
PETSC_EXTERN PetscErrorCode SolidMeshGetPhysicalGroup(DM, const char[], const char **, PetscInt *, PetscBool *);
/* Frees rank 0's copy of the file's nodes (SolidMeshGetGmshCells() then gives none) */
PETSC_EXTERN PetscErrorCode SolidMeshReleaseGmshNodes(DM);
/* The file's edge, face and centre nodes to the model's layout for -solid_order 2 (mesh.c) */
PETSC_EXTERN PetscErrorCode SolidMeshUseGmshNodes(DM, PetscInt, const PetscInt[]);
/* Carries the physical-group table and the file's cells from one DM to another (after a permutation
   or distribution) */
PETSC_EXTERN PetscErrorCode SolidMeshCopyPhysicalGroups(DM, DM);

#endif
