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

#include "gmshimpl.h"

/* Gmsh's element types (the corner nodes come first in every one) */
const GmshType GmshTypes[GMSH_NTYPES] = {
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

const GmshType *GmshTypeFind(PetscInt64 type)
{
  for (size_t i = 0; i < GMSH_NTYPES; i++)
    if (GmshTypes[i].type == type) return &GmshTypes[i];
  return NULL;
}

/* Frees everything a reader holds (also after an error half-way) */
PetscErrorCode GmshReaderDestroy(GmshReader *r)
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

/*
  $Elements (4.0 and 4.1): entity blocks of elements of one type (dimension, entity tag, type,
  count), each element its tag and nodes; ints in 4.0, sizes in 4.1
*/
static PetscErrorCode GmshReadElements4(GmshReader *r)
{
  const PetscBool v40                                                = r->version == 40 ? PETSC_TRUE : PETSC_FALSE;
  PetscErrorCode (*number)(GmshReader *, const char[], PetscInt64 *) = v40 ? GmshInt : GmshSize;
  PetscInt64 nb, n, dim, etag, type, m, tag, ntags[128];
  PetscInt   done = 0, poff, pcnt;

  PetscFunctionBegin;
  PetscCall(GmshReadSectionHead4(r, "$Elements", &nb, &n));
  PetscCall(GmshCheckCount(r, nb, GmshItemBytes(r, 3, 1, 0), "$Elements (blocks)"));
  PetscCall(GmshCheckCount(r, n, v40 ? GmshItemBytes(r, 2, 0, 0) : GmshItemBytes(r, 0, 2, 0), "$Elements"));
  for (PetscInt64 b = 0; b < nb; b++) {
    const GmshType *t;

    PetscCall(GmshReadBlockHead4(r, "$Elements", &dim, &etag, &type, &m));
    t = GmshTypeFind(type);
    PetscCheck(t, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Elements: unknown Gmsh element type %lld", (long long)type);
    PetscCheck(dim == t->dim, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Elements: a block of dimension %lld holds elements of type %d (%s, dimension %d)", (long long)dim, t->type, t->name, t->dim);
    PetscCall(GmshEntityFind(r, dim, etag, "$Elements", &poff, &pcnt));
    PetscCheck(m <= n - done, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "$Elements: the blocks hold more than the %lld elements the section announces", (long long)n);
    PetscCall(GmshCheckCount(r, m, v40 ? GmshItemBytes(r, 1 + t->nnodes, 0, 0) : GmshItemBytes(r, 0, 1 + t->nnodes, 0), "$Elements"));
    for (PetscInt64 e = 0; e < m; e++) {
      const PetscInt nl = r->binary ? 1 + t->nnodes : GmshLineNumbers(r);

      PetscCall(number(r, "$Elements (tag)", &tag));
      PetscCall(GmshCheckElementLine(t, tag, nl));
      for (int k = 0; k < t->nnodes; k++) PetscCall(number(r, "$Elements (nodes)", &ntags[k]));
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
PetscErrorCode GmshParse(GmshReader *r, const char file[])
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
        if (r->version == 41 || r->version == 40) PetscCall(GmshReadElements4(r));
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
