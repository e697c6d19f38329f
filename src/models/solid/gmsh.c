/*
  Mesh input of the solid model: a Gmsh reader of tsmech's own, and PETSc's DMPlex HDF5 reader
  made quiet.

  The Gmsh reader reads formats 2.2, 4.0 and 4.1, ASCII and binary (little-endian, the marker checked),
  with any unknown section skipped ($Comments before or after $MeshFormat, $Periodic, ...),
  parametric nodes ($ParametricNodes in 2.2, the parametric flag in 4.1) and sparse node tags
  (docs/solid.md cites the format's description). It trusts nothing the file claims: the whole
  file is read on rank 0 into memory, every count is checked against the bytes left before
  anything is allocated for it, node tags are mapped through a table no larger than a few times
  the node count (or a sorted list), every element's node and entity is resolved, tag counts are
  bounded, coordinates must be finite, no element repeats a node, and every cell has a positive
  Jacobian at its reference corners (GmshBuild()). Rank 0 alone reads; the verdict (or the one-line
  reason) is broadcast, so every rank fails together.

  Cells: 4- and 10-node tetrahedra (Gmsh types 4, 11) and 8- and 27-node hexahedra (5, 12), all of
  one type; other cells (prisms, pyramids, serendipity or cubic elements) and mixed meshes are
  refused naming the first such element. Boundary faces for the labels: 3- and 6-node triangles
  (2, 9), 4- and 9-node quadrangles (3, 10); lines and points of any order; all by their corners.

  The mesh is built on rank 0 with DMPlexCreateFromCellListPetsc() from the cells' corners (the
  other ranks have no cells; the solid model distributes it), in the numbering PETSc's own Gmsh
  reader uses: cells are the file's cells in file order, vertices the corner nodes of the cells in
  file order, each cell's corners in Gmsh's order turned into PETSc's orientation by
  DMPlexInvertCell(). It is interpolated and labelled like PETSc's reader does: "Cell Sets" on the
  cells by physical tag, "Face Sets" on the faces given by triangles or quadrangles, "Edge Sets" on
  the edges given by lines, "Vertex Sets" on the vertices given by point elements.
  Lower-dimensional elements that do not lie on the body (a circle's centre point) are skipped. The
  $PhysicalNames table is kept with the DM (SolidMeshGetPhysicalGroup()), and so are the cells'
  kind, order and, on rank 0, all their nodes' coordinates in Gmsh's order
  (SolidMeshGetGmshCells()): the edge and face nodes of a quadratic mesh, curved edges included,
  are for the model to place (gmsh.h gives the order).
*/
#include "solidimpl.h"
#include <hdf5.h>
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Gmsh's element types (the corner nodes come first in every one) */
static const GmshType GmshTypes[] = {
    {1,  1, 2,   1, GK_LINE,    "line"                           },
    {2,  2, 3,   1, GK_TRI,     "triangle"                       },
    {3,  2, 4,   1, GK_QUAD,    "quadrangle"                     },
    {4,  3, 4,   1, GK_TET,     "tetrahedron"                    },
    {5,  3, 8,   1, GK_HEX,     "hexahedron"                     },
    {6,  3, 6,   1, GK_PRISM,   "prism"                          },
    {7,  3, 5,   1, GK_PYRAMID, "pyramid"                        },
    {8,  1, 3,   2, GK_LINE,    "3-node line"                    },
    {9,  2, 6,   2, GK_TRI,     "6-node triangle"                },
    {10, 2, 9,   2, GK_QUAD,    "9-node quadrangle"              },
    {11, 3, 10,  2, GK_TET,     "10-node (quadratic) tetrahedron"},
    {12, 3, 27,  2, GK_HEX,     "27-node hexahedron"             },
    {13, 3, 18,  2, GK_PRISM,   "18-node prism"                  },
    {14, 3, 14,  2, GK_PYRAMID, "14-node pyramid"                },
    {15, 0, 1,   1, GK_POINT,   "point"                          },
    {16, 2, 8,   2, GK_QUAD,    "8-node quadrangle"              },
    {17, 3, 20,  2, GK_HEX,     "20-node hexahedron"             },
    {18, 3, 15,  2, GK_PRISM,   "15-node prism"                  },
    {19, 3, 13,  2, GK_PYRAMID, "13-node pyramid"                },
    {20, 2, 9,   3, GK_TRI,     "9-node triangle"                },
    {21, 2, 10,  3, GK_TRI,     "10-node triangle"               },
    {22, 2, 12,  4, GK_TRI,     "12-node triangle"               },
    {23, 2, 15,  4, GK_TRI,     "15-node triangle"               },
    {24, 2, 15,  5, GK_TRI,     "15-node triangle"               },
    {25, 2, 21,  5, GK_TRI,     "21-node triangle"               },
    {26, 1, 4,   3, GK_LINE,    "4-node line"                    },
    {27, 1, 5,   4, GK_LINE,    "5-node line"                    },
    {28, 1, 6,   5, GK_LINE,    "6-node line"                    },
    {29, 3, 20,  3, GK_TET,     "20-node (cubic) tetrahedron"    },
    {30, 3, 35,  4, GK_TET,     "35-node tetrahedron"            },
    {31, 3, 56,  5, GK_TET,     "56-node tetrahedron"            },
    {92, 3, 64,  3, GK_HEX,     "64-node hexahedron"             },
    {93, 3, 125, 4, GK_HEX,     "125-node hexahedron"            },
};

static const GmshType *GmshTypeFind(PetscInt64 type)
{
  for (size_t i = 0; i < sizeof(GmshTypes) / sizeof(GmshTypes[0]); i++)
    if (GmshTypes[i].type == type) return &GmshTypes[i];
  return NULL;
}

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
  const GmshType *celltype;                                          /* the type of the first cell: every cell must have it */
  PetscInt        ncellof[sizeof(GmshTypes) / sizeof(GmshTypes[0])]; /* the supported cells of each type */
  PetscInt64      firstof[sizeof(GmshTypes) / sizeof(GmshTypes[0])]; /* and the first one's tag */
  /* the mesh for DMPlex: the cells' corners (PETSc's orientation) and the corners' coordinates */
  PetscInt   nc, nv, ncorner;
  PetscInt  *cells, *vnum; /* vnum: per node its vertex number or -1 */
  PetscReal *coords;
  PetscReal *cellX; /* per cell in file order, the coordinates of all its nodes in Gmsh's order */
} GmshReader;

/* Frees everything a reader holds (also after an error half-way) */
static PetscErrorCode GmshReaderDestroy(GmshReader *r)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(r->buf));
  PetscCall(PetscFree(r->ntag));
  PetscCall(PetscFree(r->X));
  PetscCall(PetscFree(r->dense));
  PetscCall(PetscFree(r->sorted));
  for (int d = 0; d < 4; d++) {
    PetscCall(PetscFree(r->etag[d]));
    PetscCall(PetscFree(r->epoff[d]));
    PetscCall(PetscFree(r->epcnt[d]));
  }
  PetscCall(PetscFree(r->phys));
  for (PetscInt i = 0; i < r->nnames; i++) PetscCall(PetscFree(r->pname[i]));
  PetscCall(PetscFree3(r->pdim, r->ptag, r->pname));
  for (int k = 0; k < GS_N; k++) PetscCall(PetscFree4(r->set[k].tag, r->set[k].node, r->set[k].poff, r->set[k].pcnt));
  PetscCall(PetscFree(r->cells));
  PetscCall(PetscFree(r->vnum));
  PetscCall(PetscFree(r->coords));
  PetscCall(PetscFree(r->cellX));
  PetscFunctionReturn(0);
}

/* Up to 24 characters at the reader's position, non-printable ones as '?' (for a message) */
static const char *GmshShow(const GmshReader *r, char s[32])
{
  size_t k = 0;

  for (size_t p = r->pos; p < r->len && k < 24; p++) {
    const unsigned char c = (unsigned char)r->buf[p];

    if (c == '\n' && k) break;
    s[k++] = (c >= 32 && c < 127) ? (char)c : '?';
  }
  s[k] = 0;
  return s;
}

static inline void GmshSkipSpace(GmshReader *r)
{
  while (r->pos < r->len && isspace((unsigned char)r->buf[r->pos])) r->pos++;
}

/* Consumes the rest of the current line and its newline (binary data start on the next byte) */
static PetscErrorCode GmshEndLine(GmshReader *r, const char what[])
{
  PetscFunctionBegin;
  while (r->pos < r->len && r->buf[r->pos] != '\n') {
    PetscCheck(isspace((unsigned char)r->buf[r->pos]), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "unexpected text after %s at byte %lld", what, (long long)r->pos);
    r->pos++;
  }
  PetscCheck(r->pos < r->len, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "the file ends after %s (truncated?)", what);
  r->pos++;
  PetscFunctionReturn(0);
}

/*
  ASCII: the numbers on the line that starts at the next number (blank lines skipped). Elements
  and nodes are one a line: a line with a number too few or too many is refused as such, not read
  on into the next line (whose numbers would then be taken for nodes, tags or a type).
*/
static PetscInt GmshLineNumbers(GmshReader *r)
{
  PetscInt n = 0;
  size_t   p;

  GmshSkipSpace(r);
  for (p = r->pos; p < r->len && r->buf[p] != '\n';) {
    while (p < r->len && (r->buf[p] == ' ' || r->buf[p] == '\t' || r->buf[p] == '\r')) p++;
    if (p >= r->len || r->buf[p] == '\n') break;
    n++;
    while (p < r->len && !isspace((unsigned char)r->buf[p])) p++;
  }
  return n;
}

static PetscErrorCode GmshAsciiInt(GmshReader *r, const char what[], PetscInt64 *v)
{
  size_t     p;
  PetscInt64 x   = 0;
  PetscBool  neg = PETSC_FALSE;
  char       s[32];

  PetscFunctionBegin;
  GmshSkipSpace(r);
  PetscCheck(r->pos < r->len, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "the file ends inside %s (truncated?)", what);
  p = r->pos;
  if (r->buf[p] == '-' || r->buf[p] == '+') neg = r->buf[p++] == '-' ? PETSC_TRUE : PETSC_FALSE;
  PetscCheck(p < r->len && isdigit((unsigned char)r->buf[p]), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: expected an integer at byte %lld, found \"%s\"", what, (long long)r->pos, GmshShow(r, s));
  while (p < r->len && isdigit((unsigned char)r->buf[p])) {
    PetscCheck(x <= (INT64_MAX - 9) / 10, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: the integer at byte %lld is too large", what, (long long)r->pos);
    x = 10 * x + (r->buf[p++] - '0');
  }
  PetscCheck(p == r->len || isspace((unsigned char)r->buf[p]), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: expected an integer at byte %lld, found \"%s\"", what, (long long)r->pos, GmshShow(r, s));
  r->pos = p;
  *v     = neg ? -x : x;
  PetscFunctionReturn(0);
}

static PetscErrorCode GmshAsciiDouble(GmshReader *r, const char what[], double *v)
{
  char *end, s[32];

  PetscFunctionBegin;
  GmshSkipSpace(r);
  PetscCheck(r->pos < r->len, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "the file ends inside %s (truncated?)", what);
  /* the buffer ends with a zero: strtod stops there at the latest */
  *v = strtod(r->buf + r->pos, &end);
  PetscCheck(end != r->buf + r->pos && (size_t)(end - r->buf) <= r->len && ((size_t)(end - r->buf) == r->len || isspace((unsigned char)*end)), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: expected a number at byte %lld, found \"%s\"", what, (long long)r->pos, GmshShow(r, s));
  r->pos = (size_t)(end - r->buf);
  PetscFunctionReturn(0);
}

static PetscErrorCode GmshBytes(GmshReader *r, size_t n, const char what[], const char **p)
{
  PetscFunctionBegin;
  PetscCheck(r->len - r->pos >= n, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "the file ends inside %s (truncated?)", what);
  *p = r->buf + r->pos;
  r->pos += n;
  PetscFunctionReturn(0);
}

/* An int of the format (binary: 4 bytes) */
static PetscErrorCode GmshInt(GmshReader *r, const char what[], PetscInt64 *v)
{
  const char *p = NULL;
  int32_t     i;

  PetscFunctionBegin;
  if (!r->binary) PetscCall(GmshAsciiInt(r, what, v));
  else {
    PetscCall(GmshBytes(r, 4, what, &p));
    memcpy(&i, p, 4);
    *v = i;
  }
  PetscFunctionReturn(0);
}

/* A size_t of format 4.1 (binary: data-size bytes), never negative */
static PetscErrorCode GmshSize(GmshReader *r, const char what[], PetscInt64 *v)
{
  const char *p = NULL;

  PetscFunctionBegin;
  if (!r->binary) PetscCall(GmshAsciiInt(r, what, v));
  else if (r->dsize == 8) {
    uint64_t u;

    PetscCall(GmshBytes(r, 8, what, &p));
    memcpy(&u, p, 8);
    PetscCheck(u <= (uint64_t)INT64_MAX, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: %llu is too large", what, (unsigned long long)u);
    *v = (PetscInt64)u;
  } else {
    uint32_t u;

    PetscCall(GmshBytes(r, 4, what, &p));
    memcpy(&u, p, 4);
    *v = u;
  }
  PetscCheck(*v >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: %lld is negative", what, (long long)*v);
  PetscFunctionReturn(0);
}

static PetscErrorCode GmshDouble(GmshReader *r, const char what[], double *v)
{
  const char *p = NULL;

  PetscFunctionBegin;
  if (!r->binary) PetscCall(GmshAsciiDouble(r, what, v));
  else {
    PetscCall(GmshBytes(r, 8, what, &p));
    memcpy(v, p, 8);
  }
  PetscFunctionReturn(0);
}

/* Whether count items can follow: each takes at least `bytes` bytes of the file (an ASCII number
   at least 2, a digit and a separator), so no count the file merely claims is ever allocated */
static PetscErrorCode GmshCheckCount(GmshReader *r, PetscInt64 count, size_t bytes, const char what[])
{
  const size_t left = r->len - r->pos + 1;

  PetscFunctionBegin;
  PetscCheck(count >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: the count %lld is negative", what, (long long)count);
  PetscCheck((uint64_t)count <= left / bytes, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: %lld claimed, but the %lld bytes left in the file cannot hold them (truncated or damaged)", what, (long long)count, (long long)(left - 1));
  PetscCheck(count <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: the count %lld is larger than tsmech's indices (%d)", what, (long long)count, PETSC_MAX_INT);
  PetscFunctionReturn(0);
}

/* Bytes an item of ni ints, ns size_t's and nd doubles takes at least */
static inline size_t GmshItemBytes(const GmshReader *r, int ni, int ns, int nd)
{
  if (!r->binary) return (size_t)(2 * (ni + ns + nd));
  return (size_t)(4 * ni + r->dsize * ns + 8 * nd);
}

/* Appends n physical tags; returns their offset */
static PetscErrorCode GmshAddPhys(GmshReader *r, PetscInt n, const int tags[], PetscInt *off)
{
  PetscFunctionBegin;
  if (r->nphys + n > r->physcap) {
    PetscInt cap = PetscMax(2 * r->physcap, r->nphys + n + 64);

    PetscCall(PetscRealloc(sizeof(int) * (size_t)cap, &r->phys));
    r->physcap = cap;
  }
  *off = r->nphys;
  for (PetscInt i = 0; i < n; i++) r->phys[r->nphys++] = tags[i];
  PetscFunctionReturn(0);
}

static PetscErrorCode GmshSetAdd(GmshSet *s, PetscInt64 tag, const PetscInt node[], PetscInt poff, PetscInt pcnt)
{
  PetscFunctionBegin;
  if (s->n == s->cap) {
    PetscInt    cap = PetscMax(2 * s->cap, 64);
    PetscInt64 *t;
    PetscInt   *nd, *po, *pc;

    PetscCall(PetscMalloc4(cap, &t, cap * s->nv, &nd, cap, &po, cap, &pc));
    if (s->n) {
      PetscCall(PetscArraycpy(t, s->tag, s->n));
      PetscCall(PetscArraycpy(nd, s->node, s->n * s->nv));
      PetscCall(PetscArraycpy(po, s->poff, s->n));
      PetscCall(PetscArraycpy(pc, s->pcnt, s->n));
    }
    PetscCall(PetscFree4(s->tag, s->node, s->poff, s->pcnt));
    s->tag  = t;
    s->node = nd;
    s->poff = po;
    s->pcnt = pc;
    s->cap  = cap;
  }
  s->tag[s->n] = tag;
  for (PetscInt k = 0; k < s->nv; k++) s->node[s->n * s->nv + k] = node[k];
  s->poff[s->n] = poff;
  s->pcnt[s->n] = pcnt;
  s->n++;
  PetscFunctionReturn(0);
}

static int GmshTagIdxCompare(const void *a, const void *b)
{
  const PetscInt64 x = ((const GmshTagIdx *)a)->tag, y = ((const GmshTagIdx *)b)->tag;

  return x < y ? -1 : x > y ? 1
                            : 0;
}

/* The map from node tags to node indices: a table when the tags are dense, else a sorted list */
static PetscErrorCode GmshNodeMapBuild(GmshReader *r)
{
  PetscInt64 tmin = INT64_MAX, tmax = INT64_MIN;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < r->nn; i++) {
    PetscCheck(r->ntag[i] > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Nodes: node tag %lld is not positive", (long long)r->ntag[i]);
    tmin = PetscMin(tmin, r->ntag[i]);
    tmax = PetscMax(tmax, r->ntag[i]);
  }
  if (!r->nn) PetscFunctionReturn(0);
  if (tmax - tmin < 4 * (PetscInt64)r->nn + 1024) {
    r->mapmin = tmin;
    r->mapn   = tmax - tmin + 1;
    PetscCall(PetscMalloc1(r->mapn, &r->dense));
    for (PetscInt64 i = 0; i < r->mapn; i++) r->dense[i] = -1;
    for (PetscInt i = 0; i < r->nn; i++) {
      PetscInt *slot = &r->dense[r->ntag[i] - tmin];

      PetscCheck(*slot < 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Nodes: node tag %lld appears twice", (long long)r->ntag[i]);
      *slot = i;
    }
  } else {
    PetscCall(PetscMalloc1(r->nn, &r->sorted));
    for (PetscInt i = 0; i < r->nn; i++) {
      r->sorted[i].tag = r->ntag[i];
      r->sorted[i].idx = i;
    }
    qsort(r->sorted, (size_t)r->nn, sizeof(GmshTagIdx), GmshTagIdxCompare);
    for (PetscInt i = 1; i < r->nn; i++) PetscCheck(r->sorted[i].tag != r->sorted[i - 1].tag, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Nodes: node tag %lld appears twice", (long long)r->sorted[i].tag);
  }
  PetscFunctionReturn(0);
}

/* The index of the node with this tag, -1 if none */
static inline PetscInt GmshNodeFind(const GmshReader *r, PetscInt64 tag)
{
  if (r->dense) return (tag >= r->mapmin && tag - r->mapmin < r->mapn) ? r->dense[tag - r->mapmin] : -1;
  if (r->sorted) {
    PetscInt lo = 0, hi = r->nn - 1;

    while (lo <= hi) {
      const PetscInt mid = lo + (hi - lo) / 2;

      if (r->sorted[mid].tag == tag) return r->sorted[mid].idx;
      if (r->sorted[mid].tag < tag) lo = mid + 1;
      else hi = mid - 1;
    }
  }
  return -1;
}

/* The physical tags of the entity (dim, tag) of format 4.1 */
static PetscErrorCode GmshEntityFind(GmshReader *r, PetscInt64 dim, PetscInt64 tag, const char what[], PetscInt *poff, PetscInt *pcnt)
{
  PetscInt lo = 0, hi;

  PetscFunctionBegin;
  PetscCheck(dim >= 0 && dim <= 3, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: entity dimension %lld is not 0, 1, 2 or 3", what, (long long)dim);
  PetscCheck(r->seenEntities, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: names entity (dimension %lld, tag %lld) but no $Entities section comes before", what, (long long)dim, (long long)tag);
  hi = r->nent[dim] - 1;
  while (lo <= hi) {
    const PetscInt mid = lo + (hi - lo) / 2;

    if (r->etag[dim][mid] == tag) {
      *poff = r->epoff[dim][mid];
      *pcnt = r->epcnt[dim][mid];
      PetscFunctionReturn(0);
    }
    if (r->etag[dim][mid] < tag) lo = mid + 1;
    else hi = mid - 1;
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: names entity (dimension %lld, tag %lld), which $Entities does not declare", what, (long long)dim, (long long)tag);
}

/* $MeshFormat: version, file type, data size and (binary) the endianness marker */
static PetscErrorCode GmshReadFormat(GmshReader *r)
{
  double     v;
  PetscInt64 ft, ds;
  int        ver;

  PetscFunctionBegin;
  PetscCheck(!r->seenFormat, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "two $MeshFormat sections");
  PetscCall(GmshAsciiDouble(r, "$MeshFormat (version)", &v));
  PetscCall(GmshAsciiInt(r, "$MeshFormat (file type)", &ft));
  PetscCall(GmshAsciiInt(r, "$MeshFormat (data size)", &ds));
  PetscCheck(v > 0 && v < 100, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$MeshFormat: version %g is not a Gmsh format", v);
  ver = (int)(10 * v + 0.5);
  PetscCheck(ver == 22 || ver == 40 || ver == 41, PETSC_COMM_SELF, PETSC_ERR_SUP, "Gmsh format %.1f is not read: tsmech reads formats 2.2, 4.0 and 4.1 (gmsh -format msh22, msh40 or msh41)", v);
  PetscCheck(ft == 0 || ft == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$MeshFormat: file type %lld is neither 0 (ASCII) nor 1 (binary)", (long long)ft);
  if (ver == 22) PetscCheck(ds == 8, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$MeshFormat: data size %lld, not 8", (long long)ds);
  else PetscCheck(ds == 4 || ds == 8, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$MeshFormat: data size %lld, neither 4 nor 8", (long long)ds);
  r->version = ver;
  r->binary  = ft ? PETSC_TRUE : PETSC_FALSE;
  r->dsize   = (int)ds;
  if (r->binary) {
    const char *p = NULL;
    int32_t     one;

    PetscCall(GmshEndLine(r, "$MeshFormat"));
    PetscCall(GmshBytes(r, 4, "$MeshFormat (endianness marker)", &p));
    memcpy(&one, p, 4);
    if (one != 1) {
      const uint32_t u = (uint32_t)one, s = (u >> 24) | ((u >> 8) & 0xff00) | ((u << 8) & 0xff0000) | (u << 24);

      PetscCheck(s != 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "a binary file of the other byte order (big-endian): not read, write it on this machine or as ASCII");
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$MeshFormat: the endianness marker is %d, not 1", (int)one);
    }
  }
  r->seenFormat = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* $PhysicalNames: dimension, tag and "name" of each group (always ASCII) */
static PetscErrorCode GmshReadPhysicalNames(GmshReader *r)
{
  PetscInt64 n, dim, tag;

  PetscFunctionBegin;
  PetscCheck(!r->nnames, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "two $PhysicalNames sections");
  PetscCall(GmshAsciiInt(r, "$PhysicalNames (count)", &n));
  PetscCall(GmshCheckCount(r, n, 7, "$PhysicalNames"));
  PetscCall(PetscCalloc3(n, &r->pdim, n, &r->ptag, n, &r->pname));
  for (PetscInt i = 0; i < n; i++) {
    size_t b, e;

    PetscCall(GmshAsciiInt(r, "$PhysicalNames (dimension)", &dim));
    PetscCall(GmshAsciiInt(r, "$PhysicalNames (tag)", &tag));
    PetscCheck(dim >= 0 && dim <= 3, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$PhysicalNames: dimension %lld is not 0, 1, 2 or 3", (long long)dim);
    PetscCheck(tag > INT32_MIN && tag < INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$PhysicalNames: tag %lld out of range", (long long)tag);
    while (r->pos < r->len && (r->buf[r->pos] == ' ' || r->buf[r->pos] == '\t')) r->pos++;
    PetscCheck(r->pos < r->len && r->buf[r->pos] == '"', PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$PhysicalNames: the name of group %lld does not start with '\"'", (long long)tag);
    b = ++r->pos;
    while (r->pos < r->len && r->buf[r->pos] != '"' && r->buf[r->pos] != '\n') r->pos++;
    PetscCheck(r->pos < r->len && r->buf[r->pos] == '"', PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$PhysicalNames: the name of group %lld does not end with '\"' on its line", (long long)tag);
    e = r->pos++;
    PetscCheck(e - b < GMSH_MAX_NAME, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$PhysicalNames: the name of group %lld is longer than %d characters", (long long)tag, GMSH_MAX_NAME - 1);
    PetscCall(PetscMalloc1(e - b + 1, &r->pname[i]));
    memcpy(r->pname[i], r->buf + b, e - b);
    r->pname[i][e - b] = 0;
    r->pdim[i]         = (int)dim;
    r->ptag[i]         = (int)tag;
    r->nnames          = i + 1;
  }
  PetscFunctionReturn(0);
}

/* $Entities (4.0, 4.1): every entity's tag and physical tags; bounding boxes and boundaries
   skipped (a point has a box of 6 numbers in 4.0, its 3 coordinates in 4.1) */
static PetscErrorCode GmshReadEntities(GmshReader *r)
{
  PetscInt64 count[4], v;
  double     x;
  int        tags[64];

  PetscFunctionBegin;
  PetscCheck(r->version != 22, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "an $Entities section in a file of format 2.2");
  PetscCheck(!r->seenEntities, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "two $Entities sections");
  for (int d = 0; d < 4; d++) PetscCall(GmshSize(r, "$Entities (counts)", &count[d]));
  for (int d = 0; d < 4; d++) {
    PetscInt *perm;
    PetscInt *t, *po, *pc;
    const int nbox = d || r->version == 40 ? 6 : 3;

    PetscCall(GmshCheckCount(r, count[d], GmshItemBytes(r, 1, d ? 2 : 1, nbox), "$Entities"));
    PetscCall(PetscMalloc1(count[d], &r->etag[d]));
    PetscCall(PetscMalloc1(count[d], &r->epoff[d]));
    PetscCall(PetscMalloc1(count[d], &r->epcnt[d]));
    r->nent[d] = (PetscInt)count[d];
    for (PetscInt i = 0; i < count[d]; i++) {
      PetscInt64 np, nb;

      PetscCall(GmshInt(r, "$Entities (tag)", &v));
      r->etag[d][i] = (PetscInt)v;
      for (int k = 0; k < nbox; k++) PetscCall(GmshDouble(r, "$Entities (box)", &x));
      PetscCall(GmshSize(r, "$Entities (number of physical tags)", &np));
      PetscCall(GmshCheckCount(r, np, GmshItemBytes(r, 1, 0, 0), "$Entities (physical tags)"));
      r->epoff[d][i] = r->nphys;
      r->epcnt[d][i] = (PetscInt)np;
      for (PetscInt64 k = 0; k < np; k += 64) {
        const PetscInt m = (PetscInt)PetscMin(64, np - k);
        PetscInt       off;

        for (PetscInt j = 0; j < m; j++) {
          PetscCall(GmshInt(r, "$Entities (physical tag)", &v));
          tags[j] = (int)v;
        }
        PetscCall(GmshAddPhys(r, m, tags, &off));
      }
      if (!d) continue;
      PetscCall(GmshSize(r, "$Entities (number of bounding entities)", &nb));
      PetscCall(GmshCheckCount(r, nb, GmshItemBytes(r, 1, 0, 0), "$Entities (bounding entities)"));
      for (PetscInt64 k = 0; k < nb; k++) PetscCall(GmshInt(r, "$Entities (bounding entity)", &v));
    }
    /* sorted by tag for the lookups of the node and element blocks */
    PetscCall(PetscMalloc1(count[d], &perm));
    for (PetscInt i = 0; i < count[d]; i++) perm[i] = i;
    PetscCall(PetscSortIntWithPermutation((PetscInt)count[d], r->etag[d], perm));
    PetscCall(PetscMalloc3(count[d], &t, count[d], &po, count[d], &pc));
    for (PetscInt i = 0; i < count[d]; i++) {
      t[i]  = r->etag[d][perm[i]];
      po[i] = r->epoff[d][perm[i]];
      pc[i] = r->epcnt[d][perm[i]];
      PetscCheck(!i || t[i] != t[i - 1], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Entities: entity (dimension %d, tag %d) is declared twice", d, t[i]);
    }
    for (PetscInt i = 0; i < count[d]; i++) {
      r->etag[d][i]  = t[i];
      r->epoff[d][i] = po[i];
      r->epcnt[d][i] = pc[i];
    }
    PetscCall(PetscFree3(t, po, pc));
    PetscCall(PetscFree(perm));
  }
  r->seenEntities = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* One node's coordinates (and, parametric, its np parameters, skipped); finite or refused */
static PetscErrorCode GmshReadCoords(GmshReader *r, PetscInt i, PetscInt np)
{
  double x[3], u;

  PetscFunctionBegin;
  for (int k = 0; k < 3; k++) PetscCall(GmshDouble(r, "$Nodes (coordinates)", &x[k]));
  for (PetscInt k = 0; k < np; k++) PetscCall(GmshDouble(r, "$Nodes (parametric coordinates)", &u));
  for (int k = 0; k < 3; k++) {
    PetscCheck(!PetscIsInfOrNanReal(x[k]), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "node %lld has a coordinate that is not a finite number (NaN or infinite)", (long long)r->ntag[i]);
    r->X[3 * i + k] = x[k];
  }
  PetscFunctionReturn(0);
}

/* $Nodes (2.2, and $ParametricNodes with parametric) */
static PetscErrorCode GmshReadNodes22(GmshReader *r, PetscBool parametric)
{
  PetscInt64 n, v;

  PetscFunctionBegin;
  PetscCall(GmshAsciiInt(r, "$Nodes (count)", &n));
  if (r->binary) PetscCall(GmshEndLine(r, "$Nodes (count)"));
  PetscCall(GmshCheckCount(r, n, GmshItemBytes(r, parametric ? 3 : 1, 0, 3), "$Nodes"));
  PetscCall(PetscMalloc1(n, &r->ntag));
  PetscCall(PetscMalloc1(3 * n, &r->X));
  r->nn = (PetscInt)n;
  for (PetscInt i = 0; i < n; i++) {
    PetscInt64 gdim = 0;
    PetscInt   nl   = r->binary || parametric ? 4 : GmshLineNumbers(r);

    PetscCall(GmshInt(r, "$Nodes (tag)", &r->ntag[i]));
    PetscCheck(nl == 4, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Nodes: the line of node %lld holds %" PetscInt_FMT " numbers, not 4 (its tag and x y z): damaged", (long long)r->ntag[i], nl);
    if (!parametric) {
      PetscCall(GmshReadCoords(r, i, 0));
      continue;
    }
    /* x y z, the dimension and tag of the model entity, then u (curves) or u v (surfaces) */
    {
      double x[3], u;

      for (int k = 0; k < 3; k++) PetscCall(GmshDouble(r, "$ParametricNodes (coordinates)", &x[k]));
      PetscCall(GmshInt(r, "$ParametricNodes (entity dimension)", &gdim));
      PetscCall(GmshInt(r, "$ParametricNodes (entity tag)", &v));
      PetscCheck(gdim >= 0 && gdim <= 3, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$ParametricNodes: node %lld on an entity of dimension %lld", (long long)r->ntag[i], (long long)gdim);
      for (PetscInt64 k = 0; k < (gdim == 1 || gdim == 2 ? gdim : 0); k++) PetscCall(GmshDouble(r, "$ParametricNodes (parameters)", &u));
      for (int k = 0; k < 3; k++) {
        PetscCheck(!PetscIsInfOrNanReal(x[k]), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "node %lld has a coordinate that is not a finite number (NaN or infinite)", (long long)r->ntag[i]);
        r->X[3 * i + k] = x[k];
      }
    }
  }
  PetscFunctionReturn(0);
}

/* The head of $Nodes or $Elements of format 4 (what: the section): the number of blocks and of
   nodes or elements (4.1 adds the smallest and largest tags, not used) */
static PetscErrorCode GmshReadSectionHead4(GmshReader *r, const char what[], PetscInt64 *nb, PetscInt64 *n)
{
  char       s[64];
  PetscInt64 t;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(s, sizeof(s), "%s (number of blocks)", what));
  PetscCall(GmshSize(r, s, nb));
  PetscCall(PetscSNPrintf(s, sizeof(s), "%s (count)", what));
  PetscCall(GmshSize(r, s, n));
  if (r->version == 41) {
    PetscCall(PetscSNPrintf(s, sizeof(s), "%s (smallest tag)", what));
    PetscCall(GmshSize(r, s, &t));
    PetscCall(PetscSNPrintf(s, sizeof(s), "%s (largest tag)", what));
    PetscCall(GmshSize(r, s, &t));
  }
  PetscFunctionReturn(0);
}

/* The head of a block of $Nodes or $Elements of format 4: its entity's dimension and tag (4.0
   gives the tag first, 4.1 the dimension), the parametric flag or element type, and its count */
static PetscErrorCode GmshReadBlockHead4(GmshReader *r, const char what[], PetscInt64 *dim, PetscInt64 *etag, PetscInt64 *kind, PetscInt64 *m)
{
  char s[64];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(s, sizeof(s), "%s (block entity)", what));
  PetscCall(GmshInt(r, s, r->version == 40 ? etag : dim));
  PetscCall(GmshInt(r, s, r->version == 40 ? dim : etag));
  PetscCall(PetscSNPrintf(s, sizeof(s), "%s (block kind)", what));
  PetscCall(GmshInt(r, s, kind));
  PetscCall(PetscSNPrintf(s, sizeof(s), "%s (block size)", what));
  PetscCall(GmshSize(r, s, m));
  PetscFunctionReturn(0);
}

/*
  $Nodes (4.0 and 4.1): entity blocks (dimension, entity tag, parametric flag, count) of nodes. In
  4.1 a block holds its nodes' tags (sizes), then their coordinates (and parameters if parametric);
  in 4.0 each node is its tag (an int) and coordinates on one line.
*/
static PetscErrorCode GmshReadNodes4(GmshReader *r)
{
  const PetscBool v40 = r->version == 40 ? PETSC_TRUE : PETSC_FALSE;
  PetscInt64      nb, n, dim, etag, par, m;
  PetscInt        filled = 0, poff, pcnt;

  PetscFunctionBegin;
  PetscCall(GmshReadSectionHead4(r, "$Nodes", &nb, &n));
  PetscCall(GmshCheckCount(r, nb, GmshItemBytes(r, 3, 1, 0), "$Nodes (blocks)"));
  PetscCall(GmshCheckCount(r, n, v40 ? GmshItemBytes(r, 1, 0, 3) : GmshItemBytes(r, 0, 1, 3), "$Nodes"));
  PetscCall(PetscMalloc1(n, &r->ntag));
  PetscCall(PetscMalloc1(3 * n, &r->X));
  r->nn = (PetscInt)n;
  for (PetscInt64 b = 0; b < nb; b++) {
    PetscCall(GmshReadBlockHead4(r, "$Nodes", &dim, &etag, &par, &m));
    PetscCall(GmshEntityFind(r, dim, etag, "$Nodes", &poff, &pcnt));
    PetscCheck(par == 0 || par == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Nodes: parametric flag %lld is neither 0 nor 1", (long long)par);
    PetscCheck(m <= n - filled, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Nodes: the blocks hold more than the %lld nodes the section announces", (long long)n);
    if (v40) {
      for (PetscInt64 k = 0; k < m; k++) {
        const PetscInt np = par ? (PetscInt)dim : 0, nl = r->binary ? 4 + np : GmshLineNumbers(r);

        PetscCall(GmshInt(r, "$Nodes (tag)", &r->ntag[filled + k]));
        PetscCheck(nl == 4 + np, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Nodes: the line of node %lld holds %" PetscInt_FMT " numbers, not %" PetscInt_FMT " (its tag and coordinates): damaged", (long long)r->ntag[filled + k], nl, 4 + np);
        PetscCall(GmshReadCoords(r, filled + (PetscInt)k, np));
      }
    } else {
      for (PetscInt64 k = 0; k < m; k++) {
        PetscInt nl = r->binary ? 1 : GmshLineNumbers(r);

        PetscCall(GmshSize(r, "$Nodes (tag)", &r->ntag[filled + k]));
        PetscCheck(nl == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Nodes: the line of the tag of node %lld holds %" PetscInt_FMT " numbers, not 1: damaged", (long long)r->ntag[filled + k], nl);
      }
      for (PetscInt64 k = 0; k < m; k++) {
        const PetscInt np = par ? (PetscInt)dim : 0, nl = r->binary ? 3 + np : GmshLineNumbers(r);

        PetscCheck(nl == 3 + np, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Nodes: the coordinates of node %lld are %" PetscInt_FMT " numbers on their line, not %" PetscInt_FMT ": damaged", (long long)r->ntag[filled + k], nl, 3 + np);
        PetscCall(GmshReadCoords(r, filled + (PetscInt)k, np));
      }
    }
    filled += (PetscInt)m;
  }
  PetscCheck(filled == n, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Nodes: the section announces %lld nodes, its blocks hold %" PetscInt_FMT, (long long)n, filled);
  PetscFunctionReturn(0);
}

/* Corners of an element of this kind (they come first in Gmsh's node order) */
static int GmshCorners(GmshKind k)
{
  switch (k) {
  case GK_POINT:
    return 1;
  case GK_LINE:
    return 2;
  case GK_TRI:
    return 3;
  case GK_QUAD:
  case GK_TET:
    return 4;
  case GK_PYRAMID:
    return 5;
  case GK_PRISM:
    return 6;
  case GK_HEX:
    return 8;
  }
  return 0;
}

/* Cells the solid model reads: 4- and 10-node tetrahedra, 8- and 27-node hexahedra */
static inline PetscBool GmshCellSupported(const GmshType *t)
{
  return (t->kind == GK_TET || t->kind == GK_HEX) && t->order <= 2 && t->nnodes != 20 ? PETSC_TRUE : PETSC_FALSE;
}

/* One element: its nodes resolved and distinct, kept by kind (or counted: cells of other kinds,
   cells of another kind or order than the first cell) */
static PetscErrorCode GmshAddElement(GmshReader *r, const GmshType *t, PetscInt64 tag, const PetscInt64 ntags[], PetscInt poff, PetscInt pcnt)
{
  PetscInt node[128];

  PetscFunctionBegin;
  for (int k = 0; k < t->nnodes; k++) {
    node[k] = GmshNodeFind(r, ntags[k]);
    PetscCheck(node[k] >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "element %lld refers to node %lld, which $Nodes does not define", (long long)tag, (long long)ntags[k]);
  }
  /* every node of an element is a different point (also the edge and face nodes) */
  for (int a = 0; a < t->nnodes; a++)
    for (int b = 0; b < a; b++) PetscCheck(node[a] != node[b], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "element %lld (a %s) has node %lld twice", (long long)tag, t->name, (long long)ntags[a]);
  r->nelem++;
  if (t->dim == 3) {
    if (!GmshCellSupported(t)) {
      if (!r->nother++) {
        r->othertag  = tag;
        r->othertype = t;
      }
    } else if (r->celltype && r->celltype != t) {
      if (!r->ncellof[t - GmshTypes]++) r->firstof[t - GmshTypes] = tag;
      r->nmixed++;
    } else {
      if (!r->ncellof[t - GmshTypes]++) r->firstof[t - GmshTypes] = tag;
      if (!r->celltype) {
        r->celltype        = t;
        r->set[GS_CELL].nv = t->nnodes;
      }
      PetscCall(GmshSetAdd(&r->set[GS_CELL], tag, node, poff, pcnt));
    }
  } else {
    const int s = t->kind == GK_POINT ? GS_POINT : t->kind == GK_LINE ? GS_LINE
                                               : t->kind == GK_TRI    ? GS_TRI
                                                                      : GS_QUAD;

    if (t->dim == 2) r->n2d++;
    PetscCall(GmshSetAdd(&r->set[s], tag, node, poff, pcnt));
  }
  PetscFunctionReturn(0);
}

/* $Elements (2.2): ASCII one a line, binary in blocks of one type */
static PetscErrorCode GmshReadElements22(GmshReader *r)
{
  PetscInt64 n, v, ntags[128];
  PetscInt   done = 0;

  PetscFunctionBegin;
  PetscCall(GmshAsciiInt(r, "$Elements (count)", &n));
  if (r->binary) PetscCall(GmshEndLine(r, "$Elements (count)"));
  PetscCall(GmshCheckCount(r, n, 8, "$Elements")); /* at least a tag and a node */
  while (done < n) {
    PetscInt64      type, nfollow = 1, ntag, tag = 0;
    const GmshType *t;

    PetscInt nl = 0;

    if (r->binary) {
      PetscCall(GmshInt(r, "$Elements (block type)", &type));
      PetscCall(GmshInt(r, "$Elements (block size)", &nfollow));
      PetscCall(GmshInt(r, "$Elements (block tag count)", &ntag));
    } else {
      nl = GmshLineNumbers(r);
      PetscCall(GmshInt(r, "$Elements (tag)", &tag));
      PetscCall(GmshInt(r, "$Elements (type)", &type));
      PetscCall(GmshInt(r, "$Elements (tag count)", &ntag));
    }
    t = GmshTypeFind(type);
    PetscCheck(t, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Elements: unknown Gmsh element type %lld", (long long)type);
    PetscCheck(ntag >= 0 && ntag <= GMSH_MAX_TAGS, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Elements: %lld tags for one element (at most %d)", (long long)ntag, GMSH_MAX_TAGS);
    PetscCheck(r->binary || nl == 3 + ntag + t->nnodes, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Elements: the line of element %lld holds %" PetscInt_FMT " numbers; a %s (Gmsh type %d) with %lld tags needs %lld (its tag, type, tag count, tags and %d nodes): damaged", (long long)tag, nl, t->name, t->type, (long long)ntag, (long long)(3 + ntag + t->nnodes), t->nnodes);
    PetscCheck(nfollow >= 1 && nfollow <= n - done, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Elements: a block of %lld elements where %lld are left", (long long)nfollow, (long long)(n - done));
    PetscCall(GmshCheckCount(r, nfollow, GmshItemBytes(r, (int)(r->binary ? 1 + ntag + t->nnodes : ntag + t->nnodes), 0, 0), "$Elements"));
    for (PetscInt64 e = 0; e < nfollow; e++) {
      PetscInt64 phys = 0;
      PetscInt   poff = 0;
      int        p;

      if (r->binary) PetscCall(GmshInt(r, "$Elements (tag)", &tag));
      for (PetscInt64 k = 0; k < ntag; k++) {
        PetscCall(GmshInt(r, "$Elements (tags)", &v));
        if (!k) phys = v;
      }
      for (int k = 0; k < t->nnodes; k++) PetscCall(GmshInt(r, "$Elements (nodes)", &ntags[k]));
      p = (int)phys;
      if (ntag) PetscCall(GmshAddPhys(r, 1, &p, &poff));
      PetscCall(GmshAddElement(r, t, tag, ntags, poff, ntag ? 1 : 0));
      done++;
    }
  }
  PetscFunctionReturn(0);
}

/* ASCII 4.x: an element's line holds its tag and its nodes */
static PetscErrorCode GmshCheckElementLine(const GmshType *t, PetscInt64 tag, PetscInt nl)
{
  PetscFunctionBegin;
  PetscCheck(nl == 1 + t->nnodes, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Elements: the line of element %lld holds %" PetscInt_FMT " numbers; a %s (Gmsh type %d) needs %d (its tag and %d nodes): damaged", (long long)tag, nl, t->name, t->type, 1 + t->nnodes, t->nnodes);
  PetscFunctionReturn(0);
}

/* $Elements (4.0): entity blocks (entity tag, dimension, type, count) of elements, each its tag
   and nodes (ints) */
static PetscErrorCode GmshReadElements40(GmshReader *r)
{
  PetscInt64 nb, n, dim, etag, type, m, tag, ntags[128];
  PetscInt   done = 0, poff, pcnt;

  PetscFunctionBegin;
  PetscCall(GmshReadSectionHead4(r, "$Elements", &nb, &n));
  PetscCall(GmshCheckCount(r, nb, GmshItemBytes(r, 3, 1, 0), "$Elements (blocks)"));
  PetscCall(GmshCheckCount(r, n, GmshItemBytes(r, 2, 0, 0), "$Elements"));
  for (PetscInt64 b = 0; b < nb; b++) {
    const GmshType *t;

    PetscCall(GmshReadBlockHead4(r, "$Elements", &dim, &etag, &type, &m));
    t = GmshTypeFind(type);
    PetscCheck(t, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Elements: unknown Gmsh element type %lld", (long long)type);
    PetscCheck(dim == t->dim, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Elements: a block of dimension %lld holds elements of type %d (%s, dimension %d)", (long long)dim, t->type, t->name, t->dim);
    PetscCall(GmshEntityFind(r, dim, etag, "$Elements", &poff, &pcnt));
    PetscCheck(m <= n - done, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Elements: the blocks hold more than the %lld elements the section announces", (long long)n);
    PetscCall(GmshCheckCount(r, m, GmshItemBytes(r, 1 + t->nnodes, 0, 0), "$Elements"));
    for (PetscInt64 e = 0; e < m; e++) {
      const PetscInt nl = r->binary ? 1 + t->nnodes : GmshLineNumbers(r);

      PetscCall(GmshInt(r, "$Elements (tag)", &tag));
      PetscCall(GmshCheckElementLine(t, tag, nl));
      for (int k = 0; k < t->nnodes; k++) PetscCall(GmshInt(r, "$Elements (nodes)", &ntags[k]));
      PetscCall(GmshAddElement(r, t, tag, ntags, poff, pcnt));
    }
    done += (PetscInt)m;
  }
  PetscCheck(done == n, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Elements: the section announces %lld elements, its blocks hold %" PetscInt_FMT, (long long)n, done);
  PetscFunctionReturn(0);
}

/* $Elements (4.1): entity blocks of one type */
static PetscErrorCode GmshReadElements41(GmshReader *r)
{
  PetscInt64 nb, n, dim, etag, type, m, tag, ntags[128];
  PetscInt   done = 0, poff, pcnt;

  PetscFunctionBegin;
  PetscCall(GmshReadSectionHead4(r, "$Elements", &nb, &n));
  PetscCall(GmshCheckCount(r, nb, GmshItemBytes(r, 3, 1, 0), "$Elements (blocks)"));
  PetscCall(GmshCheckCount(r, n, GmshItemBytes(r, 0, 2, 0), "$Elements"));
  for (PetscInt64 b = 0; b < nb; b++) {
    const GmshType *t;

    PetscCall(GmshReadBlockHead4(r, "$Elements", &dim, &etag, &type, &m));
    t = GmshTypeFind(type);
    PetscCheck(t, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Elements: unknown Gmsh element type %lld", (long long)type);
    PetscCheck(dim == t->dim, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Elements: a block of dimension %lld holds elements of type %d (%s, dimension %d)", (long long)dim, t->type, t->name, t->dim);
    PetscCall(GmshEntityFind(r, dim, etag, "$Elements", &poff, &pcnt));
    PetscCheck(m <= n - done, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Elements: the blocks hold more than the %lld elements the section announces", (long long)n);
    PetscCall(GmshCheckCount(r, m, GmshItemBytes(r, 0, 1 + t->nnodes, 0), "$Elements"));
    for (PetscInt64 e = 0; e < m; e++) {
      const PetscInt nl = r->binary ? 1 + t->nnodes : GmshLineNumbers(r);

      PetscCall(GmshSize(r, "$Elements (tag)", &tag));
      PetscCall(GmshCheckElementLine(t, tag, nl));
      for (int k = 0; k < t->nnodes; k++) PetscCall(GmshSize(r, "$Elements (nodes)", &ntags[k]));
      PetscCall(GmshAddElement(r, t, tag, ntags, poff, pcnt));
    }
    done += (PetscInt)m;
  }
  PetscCheck(done == n, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Elements: the section announces %lld elements, its blocks hold %" PetscInt_FMT, (long long)n, done);
  PetscFunctionReturn(0);
}

/* Skips an unknown section: up to its $End line */
static PetscErrorCode GmshSkipSection(GmshReader *r, const char name[])
{
  char   end[GMSH_MAX_NAME + 8];
  size_t el;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(end, sizeof(end), "$End%s", name));
  el = strlen(end);
  for (size_t p = r->pos; p + el <= r->len; p++) {
    const char *q = memchr(r->buf + p, '$', r->len - p);

    if (!q) break;
    p = (size_t)(q - r->buf);
    if (p + el <= r->len && !memcmp(q, end, el) && (p + el == r->len || isspace((unsigned char)q[el])) && (p == 0 || q[-1] == '\n' || q[-1] == '\r')) {
      r->pos = p + el;
      PetscFunctionReturn(0);
    }
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "section $%s has no $End%s (truncated?)", name, name);
}

/* Reads the file into memory and parses every section */
static PetscErrorCode GmshParse(GmshReader *r, const char file[])
{
  char name[GMSH_MAX_NAME], s[32], why[256];

  PetscFunctionBegin;
  /* a regular file the reader can hold whole (the caller checked it; read from what was checked) */
  PetscCall(MechFileReadAll(file, MechFileMemoryLimit(), &r->buf, &r->len, why, sizeof(why)));
  PetscCheck(r->buf, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "%s", why);
  PetscCheck(r->len > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "the file is empty");
  /* the faces, lines and points keep their corners; the cells all nodes (set by the first) */
  for (int k = 0; k < GS_N; k++) r->set[k].nv = k == GS_POINT ? 1 : k == GS_LINE ? 2
                                                                : k == GS_TRI    ? 3
                                                                : k == GS_QUAD   ? 4
                                                                                 : 0;

  while (PETSC_TRUE) {
    size_t    b;
    PetscBool body;

    GmshSkipSpace(r);
    if (r->pos >= r->len) break;
    PetscCheck(r->buf[r->pos] == '$', PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "expected a section ($Name) at byte %lld, found \"%s\"", (long long)r->pos, GmshShow(r, s));
    b = ++r->pos;
    while (r->pos < r->len && !isspace((unsigned char)r->buf[r->pos])) r->pos++;
    PetscCheck(r->pos - b > 0 && r->pos - b < sizeof(name), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "a section name at byte %lld is empty or too long", (long long)(b - 1));
    memcpy(name, r->buf + b, r->pos - b);
    name[r->pos - b] = 0;
    PetscCheck(strncmp(name, "End", 3), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$%s at byte %lld ends no section", name, (long long)(b - 1));
    body = !strcmp(name, "Nodes") || !strcmp(name, "ParametricNodes") || !strcmp(name, "Elements") || !strcmp(name, "Entities") || !strcmp(name, "PhysicalNames");
    if (!strcmp(name, "MeshFormat")) {
      PetscCall(GmshEndLine(r, "$MeshFormat"));
      PetscCall(GmshReadFormat(r));
    } else if (!strcmp(name, "PartitionedEntities")) {
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "a partitioned mesh ($PartitionedEntities): not read, save it unpartitioned");
    } else if (!body) {
      PetscCall(GmshSkipSection(r, name));
      continue;
    } else {
      PetscCheck(r->seenFormat, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "section $%s before $MeshFormat: not a Gmsh mesh", name);
      PetscCall(GmshEndLine(r, name));
      if (!strcmp(name, "PhysicalNames")) PetscCall(GmshReadPhysicalNames(r));
      else if (!strcmp(name, "Entities")) PetscCall(GmshReadEntities(r));
      else if (!strcmp(name, "Elements")) {
        PetscCheck(r->seenNodes, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Elements before $Nodes");
        PetscCheck(!r->seenElements, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "two $Elements sections");
        if (r->version == 41) PetscCall(GmshReadElements41(r));
        else if (r->version == 40) PetscCall(GmshReadElements40(r));
        else PetscCall(GmshReadElements22(r));
        r->seenElements = PETSC_TRUE;
      } else {
        const PetscBool par = !strcmp(name, "ParametricNodes") ? PETSC_TRUE : PETSC_FALSE;

        PetscCheck(!r->seenNodes, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "two $Nodes sections");
        PetscCheck(!par || r->version == 22, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$ParametricNodes in a file of format 4");
        if (r->version == 41 || r->version == 40) PetscCall(GmshReadNodes4(r));
        else PetscCall(GmshReadNodes22(r, par));
        PetscCall(GmshNodeMapBuild(r));
        r->seenNodes = PETSC_TRUE;
      }
    }
    GmshSkipSpace(r);
    {
      char   end[GMSH_MAX_NAME + 8];
      size_t el;

      PetscCall(PetscSNPrintf(end, sizeof(end), "$End%s", name));
      el = strlen(end);
      PetscCheck(r->len - r->pos >= el && !memcmp(r->buf + r->pos, end, el) && (r->pos + el == r->len || isspace((unsigned char)r->buf[r->pos + el])), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
                 "section $%s does not end with %s where its counts say (byte %lld, found \"%s\"): damaged or truncated", name, end, (long long)r->pos, GmshShow(r, s));
      r->pos += el;
    }
  }
  PetscCheck(r->seenFormat, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "no $MeshFormat section: not a Gmsh mesh");
  PetscCheck(r->seenNodes, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "no $Nodes section (truncated?)");
  PetscCheck(r->seenElements, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "no $Elements section (truncated?)");
  PetscFunctionReturn(0);
}

/* The reference coordinates of the nodes of Gmsh's hexahedra, in Gmsh's order (Gmsh's reference
   manual, "Node ordering"; checked against gmsh.model.mesh.getElementProperties() of Gmsh 4.8):
   corners, the 12 edge nodes, the 6 face nodes, the centre; the 8-node one uses the corners */
static const signed char GmshHexRef[27][3] = {
    {-1, -1, -1},
    {1,  -1, -1},
    {1,  1,  -1},
    {-1, 1,  -1},
    {-1, -1, 1 },
    {1,  -1, 1 },
    {1,  1,  1 },
    {-1, 1,  1 },
    {0,  -1, -1},
    {-1, 0,  -1},
    {-1, -1, 0 },
    {1,  0,  -1},
    {1,  -1, 0 },
    {0,  1,  -1},
    {1,  1,  0 },
    {-1, 1,  0 },
    {0,  -1, 1 },
    {-1, 0,  1 },
    {1,  0,  1 },
    {0,  1,  1 },
    {0,  0,  -1},
    {0,  -1, 0 },
    {-1, 0,  0 },
    {1,  0,  0 },
    {0,  1,  0 },
    {0,  0,  1 },
    {0,  0,  0 }
};

/* The edges of the 10-node tetrahedron, by corners, in the order of its nodes 4..9 (Gmsh's order) */
static const int GmshTet10Edge[6][2] = {
    {0, 1},
    {1, 2},
    {2, 0},
    {3, 0},
    {3, 2},
    {3, 1}
};

/* A 1-D Lagrange basis function on the nodes {-1, 1} (order 1) or {-1, 0, 1} (order 2) at x, the
   node's coordinate being at, and its derivative */
static inline void GmshLagrange1(int order, int at, PetscReal x, PetscReal *l, PetscReal *dl)
{
  if (order == 1) {
    *l  = 0.5 * (1 + at * x);
    *dl = 0.5 * at;
  } else if (at == 0) {
    *l  = 1 - x * x;
    *dl = -2 * x;
  } else {
    *l  = 0.5 * x * (x + at);
    *dl = x + 0.5 * at;
  }
}

/* det dX/dxi of a cell (t: a supported type, X: its nodes' coordinates in Gmsh's order) at the
   reference point xi (tetrahedra: Gmsh's unit tetrahedron, hexahedra: [-1, 1]^3) */
static PetscReal GmshDetJ(const GmshType *t, const PetscReal *X, const PetscReal xi[3])
{
  PetscReal J[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};

  for (int n = 0; n < t->nnodes; n++) {
    PetscReal d[3];

    if (t->kind == GK_TET) {
      const PetscReal L[4]     = {1 - xi[0] - xi[1] - xi[2], xi[0], xi[1], xi[2]};
      const PetscReal dL[4][3] = {
          {-1, -1, -1},
          {1,  0,  0 },
          {0,  1,  0 },
          {0,  0,  1 }
      };

      for (int a = 0; a < 3; a++) {
        if (t->order == 1) d[a] = dL[n][a];
        else if (n < 4) d[a] = (4 * L[n] - 1) * dL[n][a];
        else {
          const int i = GmshTet10Edge[n - 4][0], j = GmshTet10Edge[n - 4][1];

          d[a] = 4 * (L[i] * dL[j][a] + L[j] * dL[i][a]);
        }
      }
    } else {
      PetscReal l[3], dl[3];

      for (int a = 0; a < 3; a++) GmshLagrange1(t->order, GmshHexRef[n][a], xi[a], &l[a], &dl[a]);
      d[0] = dl[0] * l[1] * l[2];
      d[1] = l[0] * dl[1] * l[2];
      d[2] = l[0] * l[1] * dl[2];
    }
    for (int i = 0; i < 3; i++)
      for (int a = 0; a < 3; a++) J[3 * i + a] += X[3 * n + i] * d[a];
  }
  return J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) + J[2] * (J[3] * J[7] - J[4] * J[6]);
}

/* A higher-order node of a cell: the corners (node indices, sorted, -1 padding) of the edge or
   face it lies on, the node, and the cell's place in the set */
typedef struct {
  PetscInt corner[4];
  PetscInt node, cell;
} GmshSharedNode;

static int GmshSharedCompare(const void *a, const void *b)
{
  const GmshSharedNode *x = (const GmshSharedNode *)a, *y = (const GmshSharedNode *)b;

  for (int k = 0; k < 4; k++)
    if (x->corner[k] != y->corner[k]) return x->corner[k] < y->corner[k] ? -1 : 1;
  return x->node < y->node ? -1 : x->node > y->node;
}

static int GmshSharedCompareNode(const void *a, const void *b)
{
  const GmshSharedNode *x = (const GmshSharedNode *)a, *y = (const GmshSharedNode *)b;

  if (x->node != y->node) return x->node < y->node ? -1 : 1;
  return GmshSharedCompare(a, b);
}

/* The corners of the higher-order node k (>= the corner count) of a quadratic cell, in the cell's
   node order: a 10-node tetrahedron's edges, a 27-node hexahedron's edges and faces (the corners
   whose reference coordinates agree with the node's where the node's are not 0); the centre: 0 */
static PetscInt GmshNodeCorners(const GmshType *t, PetscInt k, PetscInt c[4])
{
  PetscInt n = 0;

  if (t->kind == GK_TET) {
    c[0] = GmshTet10Edge[k - 4][0];
    c[1] = GmshTet10Edge[k - 4][1];
    return 2;
  }
  for (PetscInt v = 0; v < 8; v++) {
    PetscBool on = PETSC_TRUE;

    for (int a = 0; a < 3; a++)
      if (GmshHexRef[k][a] && GmshHexRef[k][a] != GmshHexRef[v][a]) on = PETSC_FALSE;
    if (on && n < 4) c[n] = v;
    n += on;
  }
  return n > 4 ? 0 : n;
}

/*
  A quadratic mesh must be conforming: the cells that share an edge (10-node tetrahedra) or a
  face (27-node hexahedra) give it the same higher-order node, and a node lies on one edge or face
  only. Otherwise (a mesh glued from parts, or damaged) the model would merge the cells' nodes
  silently; the first pair of cells that disagree is named with the nodes' tags.
*/
static PetscErrorCode GmshCheckConforming(GmshReader *r)
{
  const GmshSet  *cs = &r->set[GS_CELL];
  const GmshType *t  = r->celltype;
  const PetscInt  nn = t->nnodes, ncorner = GmshCorners(t->kind);
  GmshSharedNode *e;
  PetscInt        ne = 0;

  PetscFunctionBegin;
  if (t->order != 2) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1((size_t)cs->n * (nn - ncorner) + 1, &e));
  for (PetscInt c = 0; c < cs->n; c++) {
    for (PetscInt k = ncorner; k < nn; k++) {
      PetscInt corner[4], m = GmshNodeCorners(t, k, corner);

      if (!m) continue; /* the centre of a hexahedron is its own */
      for (PetscInt a = 0; a < 4; a++) e[ne].corner[a] = a < m ? cs->node[nn * c + corner[a]] : -1;
      PetscCall(PetscSortInt(m, e[ne].corner));
      e[ne].node = cs->node[nn * c + k];
      e[ne].cell = c;
      ne++;
    }
  }
  /* one node per edge or face */
  qsort(e, (size_t)ne, sizeof(*e), GmshSharedCompare);
  for (PetscInt i = 1; i < ne; i++) {
    const GmshSharedNode *a = &e[i - 1], *b = &e[i];
    char                  corners[128] = "";

    if (memcmp(a->corner, b->corner, sizeof(a->corner)) || a->node == b->node) continue;
    for (PetscInt k = 0; k < 4 && a->corner[k] >= 0; k++) {
      size_t l = strlen(corners);

      PetscCall(PetscSNPrintf(corners + l, sizeof(corners) - l, "%s%lld", k ? ", " : "", (long long)r->ntag[a->corner[k]]));
    }
    {
      const PetscInt64 ta = cs->tag[a->cell], tb = cs->tag[b->cell], na = r->ntag[a->node], nb = r->ntag[b->node];

      PetscCall(PetscFree(e));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "the mesh is not conforming: elements %lld and %lld share the %s of nodes %s but give it different %s nodes, %lld and %lld (a quadratic mesh must share them)", (long long)ta, (long long)tb, a->corner[2] < 0 ? "edge" : "face", corners, a->corner[2] < 0 ? "mid-edge" : "mid-face", (long long)na, (long long)nb);
    }
  }
  /* one edge or face per node */
  qsort(e, (size_t)ne, sizeof(*e), GmshSharedCompareNode);
  for (PetscInt i = 1; i < ne; i++) {
    const GmshSharedNode *a = &e[i - 1], *b = &e[i];

    if (a->node != b->node || !memcmp(a->corner, b->corner, sizeof(a->corner))) continue;
    {
      const PetscInt64 ta = cs->tag[a->cell], tb = cs->tag[b->cell], nd = r->ntag[a->node];

      PetscCall(PetscFree(e));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "the mesh is not conforming: node %lld is a higher-order node of element %lld and of element %lld, but on other edges or faces of the two", (long long)nd, (long long)ta, (long long)tb);
    }
  }
  PetscCall(PetscFree(e));
  PetscFunctionReturn(0);
}

/*
  The cells' kinds and shapes; then the cells' corners (PETSc's orientation), the corners'
  coordinates, numbered in file order, and every cell's nodes' coordinates.

  Shapes: det dX/dxi at the corners of the reference cell (and a tetrahedron's centroid), where a
  valid element of Gmsh's positive orientation has it positive. A cell is degenerate if one of
  them is below 1e-12 of the largest in the mesh (round-off), inverted if all are negative, and
  distorted otherwise (an edge node too far from its edge's midpoint, a hexahedron not convex).
  For linear tetrahedra this is the sign of the volume.
*/
static PetscErrorCode GmshBuild(GmshReader *r)
{
  const GmshSet  *cs       = &r->set[GS_CELL];
  const GmshType *t        = r->celltype;
  const PetscInt  ncells   = cs->n + r->nother + r->nmixed;
  PetscInt        nbad[3]  = {0, 0, 0}, np, nn;
  PetscInt64      first[3] = {0, 0, 0};
  PetscReal       vmax     = 0, *det, xi[9][3];
  const char     *kind;

  PetscFunctionBegin;
  PetscCheck(ncells || !r->n2d, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "the mesh is 2-D (no 3-D elements); the solid model needs a 3-D mesh of tetrahedra or hexahedra");
  PetscCheck(ncells, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "the mesh has no cells (no 3-D elements)");
  PetscCheck(!r->nother, PETSC_COMM_SELF, PETSC_ERR_SUP, "%" PetscInt_FMT " of the %" PetscInt_FMT " cells are neither tetrahedra nor hexahedra of order 1 or 2 (the first, element %lld, is a %s, Gmsh element type %d); the solid model reads 4- and 10-node tetrahedra and 8- and 27-node hexahedra", r->nother, ncells, (long long)r->othertag, r->othertype->name, r->othertype->type);
  if (r->nmixed) {
    char   list[1024] = "";
    size_t len        = 0;

    /* every kind with its count and first element, in the order of Gmsh's types */
    for (size_t i = 0; i < sizeof(GmshTypes) / sizeof(GmshTypes[0]); i++) {
      if (!r->ncellof[i]) continue;
      PetscCall(PetscSNPrintf(list + len, sizeof(list) - len, "%s%s: %" PetscInt_FMT " (Gmsh type %d, %selement %lld)", len ? ", " : "", GmshTypes[i].name, r->ncellof[i], GmshTypes[i].type, r->ncellof[i] > 1 ? "the first " : "", (long long)r->firstof[i]));
      len = strlen(list);
    }
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "mixed cells: of the %" PetscInt_FMT " cells, %s; the solid model reads meshes of one kind and order of cell", ncells, list);
  }
  nn   = t->nnodes;
  kind = t->kind == GK_TET ? "tetrahedra" : "hexahedra";
  if (t->kind == GK_TET) {
    const PetscReal p[5][3] = {
        {0,    0,    0   },
        {1,    0,    0   },
        {0,    1,    0   },
        {0,    0,    1   },
        {0.25, 0.25, 0.25}
    };

    np = t->order == 1 ? 1 : 5;
    for (int k = 0; k < np; k++)
      for (int a = 0; a < 3; a++) xi[k][a] = p[k][a];
  } else {
    np = 8;
    for (int k = 0; k < np; k++)
      for (int a = 0; a < 3; a++) xi[k][a] = GmshHexRef[k][a];
  }
  PetscCall(PetscMalloc1(np * cs->n, &det));
  for (PetscInt c = 0; c < cs->n; c++) {
    PetscReal X[27 * 3];

    for (PetscInt k = 0; k < nn; k++)
      for (int i = 0; i < 3; i++) X[3 * k + i] = r->X[3 * cs->node[nn * c + k] + i];
    for (PetscInt k = 0; k < np; k++) {
      PetscReal d = GmshDetJ(t, X, xi[k]);

      if (PetscIsInfOrNanReal(d)) d = 0; /* overflow: no volume to trust */
      det[np * c + k] = d;
      vmax            = PetscMax(vmax, PetscAbsReal(d));
    }
  }
  for (PetscInt c = 0; c < cs->n; c++) {
    PetscInt nneg = 0, nzero = 0, k;

    for (PetscInt j = 0; j < np; j++) {
      if (PetscAbsReal(det[np * c + j]) <= 1e-12 * vmax) nzero++;
      else if (det[np * c + j] < 0) nneg++;
    }
    k = nzero ? 0 : nneg == np ? 1
                : nneg         ? 2
                               : -1;
    if (k >= 0 && !nbad[k]++) first[k] = cs->tag[c];
  }
  PetscCall(PetscFree(det));
  PetscCheck(!nbad[0], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%" PetscInt_FMT " degenerate (zero-volume) %s, the first element %lld", nbad[0], kind, (long long)first[0]);
  PetscCheck(!nbad[1], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%" PetscInt_FMT " inverted (negative-volume) %s, the first element %lld", nbad[1], kind, (long long)first[1]);
  PetscCheck(!nbad[2], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%" PetscInt_FMT " distorted %s (the Jacobian of the element's map changes sign: an edge or face node far off, or not convex), the first element %lld", nbad[2], kind, (long long)first[2]);
  PetscCall(GmshCheckConforming(r));

  r->ncorner = GmshCorners(t->kind);
  PetscCall(PetscMalloc1(r->nn, &r->vnum));
  for (PetscInt i = 0; i < r->nn; i++) r->vnum[i] = -1;
  for (PetscInt c = 0; c < cs->n; c++)
    for (PetscInt k = 0; k < r->ncorner; k++) r->vnum[cs->node[nn * c + k]] = 0;
  r->nv = 0;
  for (PetscInt i = 0; i < r->nn; i++)
    if (!r->vnum[i]) r->vnum[i] = r->nv++;
  r->nc = cs->n;
  PetscCall(PetscMalloc1(r->ncorner * r->nc, &r->cells));
  PetscCall(PetscMalloc1(3 * r->nv, &r->coords));
  PetscCall(PetscMalloc1(3 * nn * r->nc, &r->cellX));
  for (PetscInt c = 0; c < r->nc; c++) {
    for (PetscInt a = 0; a < r->ncorner; a++) r->cells[r->ncorner * c + a] = r->vnum[cs->node[nn * c + a]];
    /* Gmsh's order to PETSc's reference cell, as PETSc's Gmsh reader does */
    PetscCall(DMPlexInvertCell(t->kind == GK_TET ? DM_POLYTOPE_TETRAHEDRON : DM_POLYTOPE_HEXAHEDRON, &r->cells[r->ncorner * c]));
    for (PetscInt k = 0; k < nn; k++)
      for (int i = 0; i < 3; i++) r->cellX[3 * (nn * c + k) + i] = r->X[3 * cs->node[nn * c + k] + i];
  }
  for (PetscInt i = 0; i < r->nn; i++)
    if (r->vnum[i] >= 0)
      for (int k = 0; k < 3; k++) r->coords[3 * r->vnum[i] + k] = r->X[3 * i + k];
  PetscFunctionReturn(0);
}

/* On rank 0, after the mesh is built: the labels of the physical tags (see the file's comment) */
static PetscErrorCode GmshLabel(GmshReader *r, DM dm, PetscBool made[4])
{
  static const char *names[4] = {"Vertex Sets", "Edge Sets", "Face Sets", "Cell Sets"};
  static const int   sets[5]  = {GS_POINT, GS_LINE, GS_TRI, GS_QUAD, GS_CELL};
  static const int   dims[5]  = {0, 1, 2, 2, 3};
  static const char *what[5]  = {"point", "line", "triangle", "quadrangle", "cell"};
  PetscInt           vStart, vEnd, cStart, cEnd;

  PetscFunctionBegin;
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  for (int d = 0; d < 4; d++) made[d] = PETSC_FALSE;
  for (int k = 0; k < 5; k++) {
    const GmshSet *s     = &r->set[sets[k]];
    const int      d     = dims[k];
    DMLabel        label = NULL;

    for (PetscInt e = 0; e < s->n; e++) {
      PetscInt pt = -1, v[4], nv = s->nv;

      if (!s->pcnt[e]) continue;
      if (d == 3) pt = cStart + e;
      else {
        PetscBool on = PETSC_TRUE;

        /* by the corners: a quadratic face's or line's other nodes are no vertices */
        for (PetscInt j = 0; j < nv; j++) {
          const PetscInt vn = r->vnum[s->node[nv * e + j]];

          if (vn < 0) on = PETSC_FALSE;
          v[j] = vStart + vn;
        }
        if (!on) continue; /* not on the body (e.g. the centre point of a circle) */
        if (d == 0) pt = v[0];
        else {
          const PetscInt *join = NULL;
          PetscInt        nj;

          if (d == 2) PetscCall(DMPlexGetFullJoin(dm, nv, v, &nj, &join));
          else PetscCall(DMPlexGetJoin(dm, nv, v, &nj, &join));
          pt = nj == 1 ? join[0] : -1;
          PetscCall(DMPlexRestoreJoin(dm, nv, v, &nj, &join));
          /* four corners of a hexahedron that are not one of its faces join in the cell */
          if (pt >= 0) {
            PetscInt depth;

            PetscCall(DMPlexGetPointDepth(dm, pt, &depth));
            if (depth != d) pt = -1;
          }
          PetscCheck(pt >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "element %lld (a %s) has its corners on the cells but is not one of their %s", (long long)s->tag[e], what[k], d == 2 ? "faces" : "edges");
        }
      }
      if (!label) {
        PetscCall(DMCreateLabel(dm, names[d]));
        PetscCall(DMGetLabel(dm, names[d], &label));
      }
      for (PetscInt j = 0; j < s->pcnt[e]; j++) PetscCall(DMLabelSetValue(label, pt, r->phys[s->poff[e] + j]));
    }
    if (label) made[d] = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/* The physical-group table kept with the DM */
typedef struct {
  PetscInt n;
  int     *dim, *tag;
  char    *names; /* n zero-terminated names, one after the other */
  PetscInt len;
} GmshGroups;

static PetscErrorCode GmshGroupsDestroy(void *ctx)
{
  GmshGroups *g = (GmshGroups *)ctx;

  PetscFunctionBegin;
  PetscCall(PetscFree3(g->dim, g->tag, g->names));
  PetscCall(PetscFree(g));
  PetscFunctionReturn(0);
}

/* The table from rank 0's reader to every rank, composed with dm */
static PetscErrorCode GmshGroupsAttach(GmshReader *r, DM dm)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)dm);
  PetscMPIInt    rank;
  PetscInt       sz[2] = {0, 0};
  GmshGroups    *g;
  PetscContainer c;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    sz[0] = r->nnames;
    for (PetscInt i = 0; i < r->nnames; i++) sz[1] += (PetscInt)strlen(r->pname[i]) + 1;
  }
  PetscCallMPI(MPI_Bcast(sz, 2, MPIU_INT, 0, comm));
  PetscCall(PetscNew(&g));
  g->n   = sz[0];
  g->len = sz[1];
  PetscCall(PetscMalloc3(g->n + 1, &g->dim, g->n + 1, &g->tag, g->len + 1, &g->names));
  if (rank == 0) {
    char *p = g->names;

    for (PetscInt i = 0; i < r->nnames; i++) {
      const size_t l = strlen(r->pname[i]) + 1;

      g->dim[i] = r->pdim[i];
      g->tag[i] = r->ptag[i];
      memcpy(p, r->pname[i], l);
      p += l;
    }
  }
  PetscCallMPI(MPI_Bcast(g->dim, (PetscMPIInt)g->n, MPI_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(g->tag, (PetscMPIInt)g->n, MPI_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(g->names, (PetscMPIInt)g->len, MPI_CHAR, 0, comm));
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, g));
  PetscCall(PetscContainerSetUserDestroy(c, GmshGroupsDestroy));
  PetscCall(PetscObjectCompose((PetscObject)dm, "TSMechGmshPhysicalGroups", (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  PetscFunctionReturn(0);
}

/* The file's cells kept with the DM (SolidMeshGetGmshCells()) */
typedef struct {
  DMPolytopeType ct;
  PetscInt       order, nnodes, nc;
  PetscReal     *X; /* rank 0: per cell in file order, its nodes' coordinates in Gmsh's order */
} GmshCells;

static PetscErrorCode GmshCellsDestroy(void *ctx)
{
  GmshCells *g = (GmshCells *)ctx;

  PetscFunctionBegin;
  PetscCall(PetscFree(g->X));
  PetscCall(PetscFree(g));
  PetscFunctionReturn(0);
}

/* The cells' kind and order (every rank) and nodes (rank 0, taken from the reader) composed with dm */
static PetscErrorCode GmshCellsAttach(GmshReader *r, DM dm, const PetscInt info[3])
{
  GmshCells     *g;
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(PetscNew(&g));
  g->ct     = info[0] == GK_TET ? DM_POLYTOPE_TETRAHEDRON : DM_POLYTOPE_HEXAHEDRON;
  g->order  = info[1];
  g->nnodes = info[2];
  g->nc     = r->nc;
  g->X      = r->cellX;
  r->cellX  = NULL;
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, g));
  PetscCall(PetscContainerSetUserDestroy(c, GmshCellsDestroy));
  PetscCall(PetscObjectCompose((PetscObject)dm, "TSMechGmshCells", (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  PetscFunctionReturn(0);
}

/*
  SolidMeshGetGmshCells - What a mesh read by SolidMeshReadGmsh() held: found PETSC_FALSE for any
  other DM. ct (DM_POLYTOPE_TETRAHEDRON or DM_POLYTOPE_HEXAHEDRON), order (1 or 2) and nnodes
  (nodes per cell in the file: 4, 10, 8 or 27) on every rank; on rank 0, nc (the file's cells) and
  X (per cell in file order, 3 nnodes coordinates: its nodes in Gmsh's order, corners first, see
  gmsh.h), which stay owned by the DM; nc = 0 and X = NULL on the other ranks, and on every rank
  once SolidMeshUseGmshNodes() has used them. The DM's cell c of
  rank 0 before any permutation is the file's cell c. Not collective; any output may be NULL.
*/
PetscErrorCode SolidMeshGetGmshCells(DM dm, PetscBool *found, DMPolytopeType *ct, PetscInt *order, PetscInt *nnodes, PetscInt *nc, const PetscReal **X)
{
  PetscObject c;
  GmshCells  *g = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)dm, "TSMechGmshCells", &c));
  if (c) PetscCall(PetscContainerGetPointer((PetscContainer)c, (void **)&g));
  if (found) *found = g ? PETSC_TRUE : PETSC_FALSE;
  if (ct) *ct = g ? g->ct : DM_POLYTOPE_UNKNOWN;
  if (order) *order = g ? g->order : 0;
  if (nnodes) *nnodes = g ? g->nnodes : 0;
  if (nc) *nc = g ? g->nc : 0;
  if (X) *X = g ? g->X : NULL;
  PetscFunctionReturn(0);
}

/*
  SolidMeshUseGmshNodes - The glue of the file's higher-order nodes and the model: with order 2
  (-solid_order 2) and a file of 10- or 27-node cells, their edge, face and centre nodes (curved
  edges as the file has them) go to the model's element layout (SolidMeshSetNodes(), mesh.c);
  cellid[c] is the file's number of the DM's cell c (after the model's permutation). Order 2 on a
  linear file: the model puts the nodes at their entities' centroids (straight). Order 1 on a
  quadratic file: the cells' corners make the linear mesh, the other nodes are left out. A DM not
  read by SolidMeshReadGmsh() is left alone. Collective.
*/
PetscErrorCode SolidMeshUseGmshNodes(DM dm, PetscInt order, const PetscInt cellid[])
{
  PetscBool        found;
  PetscInt         forder, nnodes, nc, *given = NULL;
  const PetscReal *X;

  PetscFunctionBegin;
  PetscCall(SolidMeshGetGmshCells(dm, &found, NULL, &forder, &nnodes, &nc, &X));
  if (!found) PetscFunctionReturn(0);
  if (order == 2 && forder == 2) {
    /* the k-th cell given (the file's cell k) is the DM's cell given[k] */
    PetscCall(PetscMalloc1(nc + 1, &given));
    for (PetscInt c = 0; c < nc; c++) given[cellid[c]] = c;
    PetscCall(SolidMeshSetNodes(dm, nc, nnodes, given, X));
    PetscCall(PetscFree(given));
  }
  /* the nodes are copied or not needed: rank 0 does not keep a second copy of them with the DM
     (the kind and order stay, SolidMeshGetGmshCells() gives nc = 0 and X = NULL from now on) */
  {
    PetscObject c;
    GmshCells  *g;

    PetscCall(PetscObjectQuery((PetscObject)dm, "TSMechGmshCells", &c));
    PetscCall(PetscContainerGetPointer((PetscContainer)c, (void **)&g));
    PetscCall(PetscFree(g->X));
    g->nc = 0;
  }
  PetscFunctionReturn(0);
}

/*
  SolidMeshCopyPhysicalGroups - The Gmsh physical-group table and the file's cells
  (SolidMeshGetGmshCells()) of `from` (if any) kept with `to` as well: DMPlexPermute() and
  DMPlexDistribute() make new DMs, which carry the labels but not them.
*/
PetscErrorCode SolidMeshCopyPhysicalGroups(DM from, DM to)
{
  PetscObject c;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)from, "TSMechGmshPhysicalGroups", &c));
  if (c) PetscCall(PetscObjectCompose((PetscObject)to, "TSMechGmshPhysicalGroups", c));
  PetscCall(PetscObjectQuery((PetscObject)from, "TSMechGmshCells", &c));
  if (c) PetscCall(PetscObjectCompose((PetscObject)to, "TSMechGmshCells", c));
  PetscFunctionReturn(0);
}

/*
  SolidMeshGetPhysicalGroup - The label ("Cell Sets", "Face Sets", "Edge Sets" or "Vertex Sets",
  by the group's dimension) and value (its tag) of the Gmsh physical group `name` of a mesh read by
  SolidMeshReadGmsh(); found PETSC_FALSE if the file named no such group. Not collective. A name
  given to groups of two dimensions is an error (it names no single set of points).
*/
PetscErrorCode SolidMeshGetPhysicalGroup(DM dm, const char name[], const char **label, PetscInt *value, PetscBool *found)
{
  static const char *names[4] = {"Vertex Sets", "Edge Sets", "Face Sets", "Cell Sets"};
  PetscObject        c;
  GmshGroups        *g = NULL;
  PetscInt           k = -1;

  PetscFunctionBegin;
  *found = PETSC_FALSE;
  if (label) *label = NULL;
  if (value) *value = -1;
  PetscCall(PetscObjectQuery((PetscObject)dm, "TSMechGmshPhysicalGroups", &c));
  if (!c) PetscFunctionReturn(0);
  PetscCall(PetscContainerGetPointer((PetscContainer)c, (void **)&g));
  for (PetscInt i = 0, off = 0; i < g->n; off += (PetscInt)strlen(g->names + off) + 1, i++) {
    if (strcmp(g->names + off, name)) continue;
    PetscCheck(k < 0 || g->dim[k] == g->dim[i], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Gmsh physical name \"%s\" names groups of dimensions %d and %d", name, g->dim[k], g->dim[i]);
    if (k < 0) k = i;
  }
  if (k < 0) PetscFunctionReturn(0);
  *found = PETSC_TRUE;
  if (label) *label = names[g->dim[k]];
  if (value) *value = g->tag[k];
  PetscFunctionReturn(0);
}

/* The message of the error ierr (caught with PetscReturnErrorHandler) */
static PetscErrorCode GmshErrorText(PetscErrorCode ierr, char msg[], size_t len)
{
  const char *text     = NULL;
  char       *specific = NULL;

  PetscFunctionBegin;
  PetscCall(PetscErrorMessage(ierr, &text, &specific));
  PetscCall(PetscStrncpy(msg, specific && specific[0] ? specific : (text ? text : "unknown error"), len));
  for (char *p = msg; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  PetscFunctionReturn(0);
}

/* Every rank learns rank 0's verdict; a refusal ends every rank with the same line */
static PetscErrorCode GmshVerdict(MPI_Comm comm, PetscErrorCode ierr, const char what[])
{
  char     msg[512] = "";
  PetscInt bad      = ierr ? 1 : 0;

  PetscFunctionBegin;
  if (ierr) PetscCall(GmshErrorText(ierr, msg, sizeof(msg)));
  PetscCallMPI(MPI_Bcast(&bad, 1, MPIU_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)sizeof(msg), MPI_CHAR, 0, comm));
  PetscCheck(!bad, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: %s", what, msg);
  PetscFunctionReturn(0);
}

/*
  SolidMeshReadGmsh - Reads a Gmsh mesh of tetrahedra or hexahedra, linear or quadratic (see the
  top of this file) into an interpolated DMPlex of the cells' corners on comm, all of it on rank 0,
  with the file's cells (SolidMeshGetGmshCells()). what names the file in messages
  ("-solid_mesh FILE"); a file refused is one line "what: reason". Collective.
*/
PetscErrorCode SolidMeshReadGmsh(MPI_Comm comm, const char file[], const char what[], DM *dm)
{
  GmshReader     r;
  PetscMPIInt    rank;
  PetscErrorCode ierr    = 0;
  PetscBool      made[4] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};

  PetscFunctionBegin;
  *dm = NULL;
  PetscCall(PetscMemzero(&r, sizeof(r)));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = GmshParse(&r, file);
    if (!ierr) ierr = GmshBuild(&r);
    PetscCall(PetscPopErrorHandler());
  }
  {
    PetscErrorCode jerr = GmshVerdict(comm, ierr, what);

    if (jerr) {
      PetscCall(GmshReaderDestroy(&r));
      PetscFunctionReturn(jerr);
    }
  }
  /* the cells' kind, order and nodes per cell, for every rank */
  {
    PetscInt info[3] = {0, 0, 0};

    if (rank == 0) {
      info[0] = r.celltype->kind;
      info[1] = r.celltype->order;
      info[2] = r.celltype->nnodes;
    }
    PetscCallMPI(MPI_Bcast(info, 3, MPIU_INT, 0, comm));
    PetscCall(DMPlexCreateFromCellListPetsc(comm, 3, r.nc, r.nv, info[0] == GK_TET ? 4 : 8, PETSC_TRUE, r.cells, 3, r.coords, dm));
    PetscCall(GmshCellsAttach(&r, *dm, info));
  }
  if (rank == 0) {
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = GmshLabel(&r, *dm, made);
    PetscCall(PetscPopErrorHandler());
  }
  {
    PetscErrorCode jerr = GmshVerdict(comm, ierr, what);

    if (jerr) {
      PetscCall(GmshReaderDestroy(&r));
      PetscCall(DMDestroy(dm));
      PetscFunctionReturn(jerr);
    }
  }
  /* the labels exist on every rank, as with PETSc's reader */
  PetscCallMPI(MPI_Bcast(made, 4, MPIU_BOOL, 0, comm));
  {
    static const char *names[4] = {"Vertex Sets", "Edge Sets", "Face Sets", "Cell Sets"};

    for (int d = 0; d < 4; d++)
      if (made[d]) PetscCall(DMCreateLabel(*dm, names[d]));
  }
  PetscCall(GmshGroupsAttach(&r, *dm));
  PetscCall(GmshReaderDestroy(&r));
  PetscFunctionReturn(0);
}

/*
  SolidMeshReadHDF5 - PETSc's DMPlex HDF5 reader (interpolated), with HDF5's automatic printing of
  its error stack switched off around it (and restored): a damaged file is one line "what: PETSc's
  reason". PETSc's reader parses on every rank; on several ranks rank 0 first reads the file alone,
  so that a damaged file cannot leave some ranks waiting in a collective call. Collective.
*/
PetscErrorCode SolidMeshReadHDF5(MPI_Comm comm, const char file[], const char what[], DM *dm)
{
  H5E_auto2_t    func = NULL;
  void          *data = NULL;
  PetscErrorCode ierr = 0;
  PetscMPIInt    rank, size;

  PetscFunctionBegin;
  *dm = NULL;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  (void)H5Eget_auto2(H5E_DEFAULT, &func, &data);
  (void)H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  if (size > 1) {
    if (rank == 0) {
      DM trial = NULL;

      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = DMPlexCreateFromFile(PETSC_COMM_SELF, file, "tsmech_solid", PETSC_TRUE, &trial);
      PetscCall(PetscPopErrorHandler());
      PetscCall(DMDestroy(&trial));
    }
    {
      char           whatr[PETSC_MAX_PATH_LEN + 64];
      PetscErrorCode jerr;

      PetscCall(PetscSNPrintf(whatr, sizeof(whatr), "%s: cannot be read as a mesh", what));
      jerr = GmshVerdict(comm, ierr, whatr);
      if (jerr) {
        (void)H5Eset_auto2(H5E_DEFAULT, func, data);
        PetscFunctionReturn(jerr);
      }
    }
  }
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = DMPlexCreateFromFile(comm, file, "tsmech_solid", PETSC_TRUE, dm);
  PetscCall(PetscPopErrorHandler());
  (void)H5Eset_auto2(H5E_DEFAULT, func, data);
  if (ierr) {
    char msg[512];

    PetscCall(DMDestroy(dm));
    PetscCall(GmshErrorText(ierr, msg, sizeof(msg)));
    SETERRQ(comm, PETSC_ERR_FILE_UNEXPECTED, "%s: cannot be read as a mesh: %s", what, msg);
  }
  PetscFunctionReturn(0);
}
