/*
  The solid's cell types, one record each (SolidCellType): what the element layout, the I/O mesh,
  the stresses' recovery, the mass and the body force need to know of a kind of cell and its order,
  in one table instead of branches on the polytope and the order in each file. A new cell type is
  its line here (and its shape functions, which PetscFE provides for simplices and tensor cells).
*/
#include "solidimpl.h"

static const SolidCellType SolidCellTypes[] = {
  /* name  polytope                 order nen corners xdmf              simplex      fusemass     spatial */
    {"tet", DM_POLYTOPE_TETRAHEDRON, 1, 4,  4, "Tetrahedron",    PETSC_TRUE,  PETSC_TRUE,  PETSC_TRUE },
    {"tet", DM_POLYTOPE_TETRAHEDRON, 2, 10, 4, "Tetrahedron_10", PETSC_TRUE,  PETSC_FALSE, PETSC_FALSE},
    {"hex", DM_POLYTOPE_HEXAHEDRON,  1, 8,  8, "Hexahedron",     PETSC_FALSE, PETSC_TRUE,  PETSC_FALSE},
    {"hex", DM_POLYTOPE_HEXAHEDRON,  2, 27, 8, "Hexahedron_27",  PETSC_FALSE, PETSC_TRUE,  PETSC_FALSE},
};

/* The record of cells ct of that order, or NULL */
const SolidCellType *SolidCellTypeGet(DMPolytopeType ct, PetscInt order)
{
  for (size_t i = 0; i < sizeof(SolidCellTypes) / sizeof(SolidCellTypes[0]); i++)
    if (SolidCellTypes[i].ct == ct && SolidCellTypes[i].order == order) return &SolidCellTypes[i];
  return NULL;
}

/*
  A quadrature on the reference cell exact for the mass (extra = 0: degree 2 order) or one degree
  more per extra: a simplex's rule of degree 2 order + 2 extra, or a tensor cell's Gauss rule with
  order + 1 + extra points per direction
*/
PetscErrorCode SolidCellQuadrature(const SolidCellType *cell, PetscInt extra, PetscQuadrature *quad)
{
  PetscFunctionBegin;
  if (cell->simplex) PetscCall(PetscDTSimplexQuadrature(3, 2 * cell->order + 2 * extra, PETSCDTSIMPLEXQUAD_DEFAULT, quad));
  else PetscCall(PetscDTGaussTensorQuadrature(3, 1, cell->order + 1 + extra, -1.0, 1.0, quad));
  PetscFunctionReturn(0);
}
