/* The Gmsh reader's private types (gmsh.c parses a file, gmshbuild.c makes the DMPlex of it) */
#ifndef TSMECH_SOLID_GMSHIMPL_H
#define TSMECH_SOLID_GMSHIMPL_H
#include "solidimpl.h"

#define GMSH_MAX_TAGS 1024 /* 2.2: tags of one element (physical, elementary, partitions) */
#define GMSH_MAX_NAME 256  /* a physical name, with its terminating zero */

typedef enum {
  GK_POINT,
  GK_LINE,
  GK_TRI,
  GK_QUAD,
  GK_TET,
  GK_HEX,
  GK_PRISM,
  GK_PYRAMID
} GmshKind;

typedef struct {
  int         type, dim, nnodes, order;
  GmshKind    kind;
  const char *name;
} GmshType;

/* Gmsh's element types (gmsh.c), their number and the one of a type number (NULL: unknown) */
#define GMSH_NTYPES 33
PETSC_INTERN const GmshType  GmshTypes[GMSH_NTYPES];
PETSC_INTERN const GmshType *GmshTypeFind(PetscInt64);

/* Elements of one kind kept for the mesh: their file tags, nv nodes each (indices into the node
   arrays) and their physical tags (phys[poff[e]], ..., pcnt[e] of them) */
typedef struct {
  PetscInt    n, cap, nv;
  PetscInt64 *tag;
  PetscInt   *node, *poff, *pcnt;
} GmshSet;

/* Kept elements: points, lines, triangles and quadrangles by their corners (the labels need no
   more), cells with all their nodes */
enum {
  GS_POINT,
  GS_LINE,
  GS_TRI,
  GS_QUAD,
  GS_CELL,
  GS_N
};

typedef struct {
  PetscInt64 tag;
  PetscInt   idx;
} GmshTagIdx;

typedef struct {
  char     *buf; /* the whole file, and a terminating zero */
  size_t    len, pos;
  PetscBool binary;
  int       version; /* 22, 40 or 41 */
  int       dsize;   /* 4.1 binary: bytes of a size_t */
  PetscBool seenFormat, seenNodes, seenElements, seenEntities;
  /* nodes, in file order */
  PetscInt    nn;
  PetscInt64 *ntag;
  PetscReal  *X;
  PetscInt64  mapmin; /* dense map: node index of tag mapmin + i, or -1 */
  PetscInt64  mapn;
  PetscInt   *dense;
  GmshTagIdx *sorted; /* otherwise the tags sorted */
  /* entities (4.1), per dimension sorted by tag */
  PetscInt  nent[4];
  PetscInt *etag[4];
  PetscInt *epoff[4], *epcnt[4];
  /* physical tags of entities (4.1) and elements (2.2) */
  PetscInt nphys, physcap;
  int     *phys;
  /* $PhysicalNames */
  PetscInt nnames;
  int     *pdim, *ptag;
  char   **pname;
  /* elements */
  GmshSet         set[GS_N];
  PetscInt        nelem, n2d, nother, nmixed;
  PetscInt64      othertag;
  const GmshType *othertype;
  const GmshType *celltype;             /* the type of the first cell: every cell must have it */
  PetscInt        ncellof[GMSH_NTYPES]; /* the supported cells of each type */
  PetscInt64      firstof[GMSH_NTYPES]; /* and the first one's tag */
  /* the mesh for DMPlex: the cells' corners (PETSc's orientation) and the corners' coordinates */
  PetscInt   nc, nv, ncorner;
  PetscInt  *cells, *vnum; /* vnum: per node its vertex number or -1 */
  PetscReal *coords;
  PetscReal *cellX; /* per cell in file order, the coordinates of all its nodes in Gmsh's order */
} GmshReader;

/* gmsh.c: the file parsed into r (rank 0), and everything r holds freed */
PETSC_INTERN PetscErrorCode GmshParse(GmshReader *, const char file[]);
PETSC_INTERN PetscErrorCode GmshReaderDestroy(GmshReader *);
#endif
