static const char help[] = "Mesh files for the solid model: every valid one read alike on any number of ranks, every damaged one refused in one line.\n";
/*
  test_meshes -dir MESHDIR [-corpus DIR] [-valid] [-write_plex OUT.h5 -from MESH.msh]

  -valid   the meshes Gmsh wrote with various options and the hand-made ones (tests/solid/meshes,
           make_meshes.sh): each read on all ranks and on one gives the same final state of a short
           run (vertices matched by their reference positions, <= 1e-10); every variant of the unit
           box gives the final state of box_msh22.msh (<= 1e-12: ASCII coordinates carry 16
           digits); the physical groups (SolidMeshGetPhysicalGroup()) name the labels and values
           PETSc's reader would make, and those labels hold the right points.
  -quadratic  the quadratic and hexahedral meshes Gmsh wrote (cyl_tet10_*: a cylinder of 10-node
           tetrahedra with curved edges, hex8_*, hex27_*: a box of hexahedra; 2.2 and 4.1, ASCII
           and binary) read by SolidMeshReadGmsh(): the kind, order and node count it reports, the
           cells' nodes in the order gmsh.h documents (a hexahedron's nodes at the trilinear image
           of their reference points, a tetrahedron's edge nodes at their edges' midpoints or, on
           the curved side, on the cylinder), identical in every format, the corners in PETSc's
           orientation (positive volumes summing to the box's), the face labels of quadrangles and
           6-node triangles on the right planes.
  -corpus  every file of DIR/manifest.txt (make_corpus.py): refused with one line "-solid_mesh
           FILE: ..." containing the expected text, or accepted, as the manifest says; counts per
           family. No file may crash the reader or take long.
*/
#include <tsmech.h>
#include <petscdmplex.h>
#include <petscbt.h>
#include <petscsf.h>
#include <petscviewerhdf5.h>
#include "testutil.h"
#include "../../src/models/solid/gmsh.h"

static PetscInt failures = 0;

#define CHECK(cond, ...) TestCount(failures, cond, __VA_ARGS__)

static const char run[]   = "-solid_fix x=0 -solid_E 1e5 -solid_material svk -solid_v0 0,0,-0.5";
static const char tight[] = "-snes_rtol 1e-14 -snes_atol 1e-13 -snes_stol 0 -snes_max_it 30 -ksp_type gmres -ksp_rtol 1e-15 -ksp_atol 1e-16 -ksp_max_it 2000 -pc_type jacobi";

/* The final states of the same 20-step midpoint2 run of a and b, compared vertex by vertex, the
   vertices matched by reference position within `match`: the relative difference (largest over
   the ranks) and how many vertices of b have no match in a */
static PetscErrorCode Compare(MechSystem a, MechSystem b, PetscReal match, PetscReal *rel, PetscInt *unmatched)
{
  Vec Xa, Xb, w, qa, va, qb, vb, XA, QA, VA, XB, QB, VB;

  PetscFunctionBegin;
  PetscCall(MechSystemCreateState(a, &Xa, &w));
  PetscCall(VecDestroy(&w));
  PetscCall(MechSystemCreateState(b, &Xb, &w));
  PetscCall(VecDestroy(&w));
  PetscCall(TestIntegrate(a, TSMIDPOINT2, tight, 2e-3, 0.04, &qa, &va, NULL, NULL));
  PetscCall(TestIntegrate(b, TSMIDPOINT2, tight, 2e-3, 0.04, &qb, &vb, NULL, NULL));
  PetscCall(TestGatherAll(Xa, &XA));
  PetscCall(TestGatherAll(qa, &QA));
  PetscCall(TestGatherAll(va, &VA));
  PetscCall(TestGatherAll(Xb, &XB));
  PetscCall(TestGatherAll(qb, &QB));
  PetscCall(TestGatherAll(vb, &VB));
  PetscCall(TestCompareByPosition(XA, QA, VA, XB, QB, VB, match, rel, unmatched));
  {
    Vec *all[] = {&Xa, &Xb, &qa, &va, &qb, &vb, &XA, &QA, &VA, &XB, &QB, &VB};

    for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++) PetscCall(VecDestroy(all[k]));
  }
  PetscFunctionReturn(0);
}

/* Points of the label's stratum over all ranks (each counted by its owner), and whether every vertex of their closures has
   coordinate `axis` equal to `at` (axis < 0: not checked) */
static PetscErrorCode LabelStratum(DM dm, const char label[], PetscInt value, PetscInt axis, PetscReal at, PetscInt *count, PetscBool *on)
{
  DMLabel            l;
  IS                 is;
  const PetscInt    *pts;
  PetscInt           n = 0, off = 0, vStart, vEnd, bad = 0;
  Vec                coords;
  PetscSection       cs;
  const PetscScalar *xa;

  PetscFunctionBegin;
  PetscCall(DMGetLabel(dm, label, &l));
  PetscCheck(l, PETSC_COMM_SELF, PETSC_ERR_PLIB, "no label %s", label);
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMGetCoordinatesLocal(dm, &coords));
  PetscCall(DMGetCoordinateSection(dm, &cs));
  PetscCall(VecGetArrayRead(coords, &xa));
  PetscCall(DMLabelGetStratumIS(l, value, &is));
  if (is) {
    PetscSF         sf;
    PetscInt        nleaves, pStart, pEnd, m;
    const PetscInt *leaves;
    PetscBT         ghost;

    PetscCall(ISGetLocalSize(is, &m));
    PetscCall(ISGetIndices(is, &pts));
    /* a point shared by several ranks is a leaf of the point SF on all but its owner */
    PetscCall(DMGetPointSF(dm, &sf));
    PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
    PetscCall(PetscBTCreate(pEnd - pStart, &ghost));
    PetscCall(PetscSFGetGraph(sf, NULL, &nleaves, &leaves, NULL));
    for (PetscInt k = 0; k < nleaves && nleaves > 0; k++) PetscCall(PetscBTSet(ghost, (leaves ? leaves[k] : k) - pStart));
    for (PetscInt k = 0; k < m; k++)
      if (!PetscBTLookup(ghost, pts[k] - pStart)) n++;
    PetscCall(PetscBTDestroy(&ghost));
    for (PetscInt k = 0; k < m && axis >= 0; k++) {
      PetscInt *cl = NULL, ncl;

      PetscCall(DMPlexGetTransitiveClosure(dm, pts[k], PETSC_TRUE, &ncl, &cl));
      for (PetscInt j = 0; j < ncl; j++)
        if (cl[2 * j] >= vStart && cl[2 * j] < vEnd) {
          PetscCall(PetscSectionGetOffset(cs, cl[2 * j], &off));
          if (PetscAbsReal(PetscRealPart(xa[off + axis]) - at) > 1e-12) bad++;
        }
      PetscCall(DMPlexRestoreTransitiveClosure(dm, pts[k], PETSC_TRUE, &ncl, &cl));
    }
    PetscCall(ISRestoreIndices(is, &pts));
    PetscCall(ISDestroy(&is));
  }
  PetscCall(VecRestoreArrayRead(coords, &xa));
  PetscCall(MPIU_Allreduce(&n, count, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  *on = bad ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode ExpectGroup(DM dm, const char file[], const char name[], const char label[], PetscInt value)
{
  const char *l = NULL;
  PetscInt    v = -1;
  PetscBool   found, same = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(SolidMeshGetPhysicalGroup(dm, name, &l, &v, &found));
  if (found && label) PetscCall(PetscStrcmp(l, label, &same));
  if (!label) CHECK(!found, "%s: physical group \"%s\" found (%s %" PetscInt_FMT ") though the file has none of that name\n", file, name, l, v);
  else CHECK(found && same && v == value, "%s: physical group \"%s\" gave found %d, %s %" PetscInt_FMT "; expected %s %" PetscInt_FMT "\n", file, name, (int)found, l ? l : "(none)", v, label, value);
  PetscFunctionReturn(0);
}

/* The Gmsh-written and hand-made meshes */
static PetscErrorCode TestValid(const char dir[])
{
  const char *box[]   = {"box_msh22.msh", "box_msh22_bin.msh", "box_msh40.msh", "box_msh40_bin.msh", "box_msh40_param.msh", "box_msh41.msh", "box_msh41_bin.msh", "box_msh41_saveall.msh", "box_msh22_saveall_bin.msh", "box_msh41_param.msh", "box_msh22_param.msh", "box_msh41_param_bin.msh", "box_comments.msh", "box_sparse.msh", "box_mixed.msh"};
  const char *other[] = {"twovol_msh41.msh", "twovol_msh22_bin.msh"};
  char        opts[PETSC_MAX_PATH_LEN + 512];
  PetscMPIInt size;
  MechSystem  ref, par, ser;
  PetscReal   rel;
  PetscInt    unmatched;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-solid_mesh %s/box_msh22.msh %s", dir, run));
  PetscCall(TestCreateModel(PETSC_COMM_SELF, "solid", opts, &ref));
  for (size_t k = 0; k < sizeof(box) / sizeof(box[0]) + sizeof(other) / sizeof(other[0]); k++) {
    const PetscBool isbox = k < sizeof(box) / sizeof(box[0]) ? PETSC_TRUE : PETSC_FALSE;
    const char     *file  = isbox ? box[k] : other[k - sizeof(box) / sizeof(box[0])];
    PetscReal       relb  = 0;
    PetscInt        unb   = 0;

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-solid_mesh %s/%s %s", dir, file, run));
    PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &par));
    PetscCall(TestCreateModel(PETSC_COMM_SELF, "solid", opts, &ser));
    PetscCall(Compare(par, ser, 0, &rel, &unmatched));
    if (isbox) PetscCall(Compare(ser, ref, 1e-14, &relb, &unb));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "valid %-26s %d rank%s against 1: %.1e (%" PetscInt_FMT " unmatched)%s", file, size, size > 1 ? "s" : " ", (double)rel, unmatched, isbox ? "" : "\n"));
    if (isbox) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "; against box_msh22.msh: %.1e (%" PetscInt_FMT " unmatched)\n", (double)relb, unb));
    CHECK(!unmatched && rel <= 1e-10, "%s: %d ranks differ from 1 by %.2e (%" PetscInt_FMT " vertices unmatched)\n", file, size, (double)rel, unmatched);
    CHECK(!unb && relb <= 1e-12, "%s: differs from box_msh22.msh by %.2e (%" PetscInt_FMT " vertices unmatched)\n", file, (double)relb, unb);
    PetscCall(MechSystemDestroy(&par));
    PetscCall(MechSystemDestroy(&ser));
  }
  PetscCall(MechSystemDestroy(&ref));

  /* the physical groups by name, and the labels' points */
  for (int k = 0; k < 4; k++) {
    const char *file = box[k];
    DM          dm;
    PetscInt    n;
    PetscBool   on;

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-solid_mesh %s/%s %s", dir, file, run));
    PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &par));
    PetscCall(MechSystemGetDM(par, &dm));
    PetscCall(ExpectGroup(dm, file, "clamped", "Face Sets", 1));
    PetscCall(ExpectGroup(dm, file, "loaded", "Face Sets", 2));
    PetscCall(ExpectGroup(dm, file, "edge", "Edge Sets", 5));
    PetscCall(ExpectGroup(dm, file, "corner", "Vertex Sets", 6));
    PetscCall(ExpectGroup(dm, file, "body", "Cell Sets", 7));
    PetscCall(ExpectGroup(dm, file, "bogus", NULL, 0));
    /* OpenCASCADE's box: surface 1 is x = 0, surface 2 x = 1, curve 1 and point 1 at x = 0 */
    PetscCall(LabelStratum(dm, "Face Sets", 1, 0, 0.0, &n, &on));
    CHECK(n > 0 && on, "%s: Face Sets 1 has %" PetscInt_FMT " faces, %s on x = 0\n", file, n, on ? "all" : "not all");
    PetscCall(LabelStratum(dm, "Face Sets", 2, 0, 1.0, &n, &on));
    CHECK(n > 0 && on, "%s: Face Sets 2 has %" PetscInt_FMT " faces, %s on x = 1\n", file, n, on ? "all" : "not all");
    PetscCall(LabelStratum(dm, "Vertex Sets", 6, 0, 0.0, &n, &on));
    CHECK(n == 1 && on, "%s: Vertex Sets 6 has %" PetscInt_FMT " vertices (1 expected)\n", file, n);
    PetscCall(LabelStratum(dm, "Edge Sets", 5, 0, 0.0, &n, &on));
    CHECK(n > 0 && on, "%s: Edge Sets 5 has %" PetscInt_FMT " edges, %s on x = 0\n", file, n, on ? "all" : "not all");
    PetscCall(LabelStratum(dm, "Cell Sets", 7, -1, 0, &n, &on));
    {
      PetscInt cStart, cEnd, nc;

      PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
      nc = cEnd - cStart;
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &nc, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
      CHECK(n == nc, "%s: Cell Sets 7 has %" PetscInt_FMT " of the %" PetscInt_FMT " cells\n", file, n, nc);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "groups %-25s clamped, loaded, edge, corner, body, bogus as the file names them; Cell Sets 7: %" PetscInt_FMT " of %" PetscInt_FMT " cells\n", file, n, nc));
    }
    PetscCall(MechSystemDestroy(&par));
  }
  {
    DM        dm;
    PetscInt  nl, nr;
    PetscBool on;

    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-solid_mesh %s/twovol_msh41.msh %s", dir, run));
    PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &par));
    PetscCall(MechSystemGetDM(par, &dm));
    PetscCall(ExpectGroup(dm, "twovol_msh41.msh", "left", "Cell Sets", 7));
    PetscCall(ExpectGroup(dm, "twovol_msh41.msh", "right", "Cell Sets", 8));
    PetscCall(LabelStratum(dm, "Cell Sets", 7, -1, 0, &nl, &on));
    PetscCall(LabelStratum(dm, "Cell Sets", 8, -1, 0, &nr, &on));
    CHECK(nl > 0 && nr > 0, "twovol_msh41.msh: %" PetscInt_FMT " left and %" PetscInt_FMT " right cells\n", nl, nr);
    PetscCall(MechSystemDestroy(&par));
  }
  PetscFunctionReturn(0);
}

/* Gmsh's reference hexahedron (the order gmsh.h documents, written out again to check it) */
static const int HexRef[27][3] = {
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
static const int Tet10Edge[6][2] = {
    {0, 1},
    {1, 2},
    {2, 0},
    {3, 0},
    {3, 2},
    {3, 1}
};

/* One quadratic or hexahedral mesh read by the reader itself: see the top of the file. X0 (rank 0):
   the first format's nodes, which every other format must give again */
static PetscErrorCode CheckQuadraticMesh(const char dir[], const char file[], DMPolytopeType ect, PetscInt eorder, PetscInt ennodes, PetscInt enc, PetscReal **X0)
{
  char             path[PETSC_MAX_PATH_LEN];
  DM               dm;
  PetscBool        found, on;
  DMPolytopeType   ct;
  PetscInt         order, nnodes, nc, cStart, cEnd, ncl, n, curved = 0, badnode = 0, badJ = 0;
  const PetscReal *X;
  PetscReal        vol = 0, diff = 0;
  PetscMPIInt      rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", dir, file));
  PetscCall(SolidMeshReadGmsh(PETSC_COMM_WORLD, path, file, &dm));
  PetscCall(SolidMeshGetGmshCells(dm, &found, &ct, &order, &nnodes, &nc, &X));
  CHECK(found && ct == ect && order == eorder && nnodes == ennodes, "%s: reported found %d, %s, order %" PetscInt_FMT ", %" PetscInt_FMT " nodes; expected %s, order %" PetscInt_FMT ", %" PetscInt_FMT " nodes\n", file, (int)found, DMPolytopeTypes[ct], order, nnodes, DMPolytopeTypes[ect], eorder, ennodes);
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  ncl = cEnd - cStart;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ncl, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  CHECK(ncl == enc && (rank || nc == enc) && (!rank || (nc == 0 && !X)), "%s: %" PetscInt_FMT " cells in the DM, %" PetscInt_FMT " reported on rank %d; expected %" PetscInt_FMT "\n", file, ncl, nc, rank, enc);
  if (rank == 0 && found && nnodes == ennodes && nc == enc) {
    for (PetscInt c = 0; c < nc; c++) {
      const PetscReal *x = &X[3 * nnodes * c];

      if (ct == DM_POLYTOPE_HEXAHEDRON) {
        /* the box's cells are straight: node k at the trilinear image of its reference point */
        for (PetscInt k = 0; k < nnodes; k++)
          for (int i = 0; i < 3; i++) {
            PetscReal y = 0;

            for (int a = 0; a < 8; a++) y += x[3 * a + i] * (1 + HexRef[a][0] * HexRef[k][0]) * (1 + HexRef[a][1] * HexRef[k][1]) * (1 + HexRef[a][2] * HexRef[k][2]) / 8;
            if (PetscAbsReal(y - x[3 * k + i]) > 1e-12) badnode++;
          }
      } else
        for (PetscInt e = 0; e < 6 && nnodes == 10; e++) {
          const PetscReal *p = &x[3 * Tet10Edge[e][0]], *q = &x[3 * Tet10Edge[e][1]], *m = &x[3 * (4 + e)];
          PetscReal        d = 0, rp = PetscSqrtReal(p[0] * p[0] + p[1] * p[1]), rq = PetscSqrtReal(q[0] * q[0] + q[1] * q[1]), rm = PetscSqrtReal(m[0] * m[0] + m[1] * m[1]);

          for (int i = 0; i < 3; i++) d = PetscMax(d, PetscAbsReal(m[i] - 0.5 * (p[i] + q[i])));
          /* straight, or curved on the cylinder's side r = 0.5 with both corners (or on its top or bottom circle) */
          if (d > 1e-12) {
            curved++;
            if (PetscAbsReal(rm - 0.5) > 1e-6 || PetscAbsReal(rp - 0.5) > 1e-6 || PetscAbsReal(rq - 0.5) > 1e-6 || d > 0.1) badnode++;
          }
        }
      if (!*X0) continue;
      for (PetscInt k = 0; k < 3 * nnodes; k++) diff = PetscMax(diff, PetscAbsReal(x[k] - (*X0)[3 * nnodes * c + k]));
    }
    if (!*X0) {
      PetscCall(PetscMalloc1(3 * nnodes * nc, X0));
      PetscCall(PetscArraycpy(*X0, X, 3 * nnodes * nc));
    }
  }
  CHECK(!badnode, "%s: %" PetscInt_FMT " node coordinates not where Gmsh's node order puts them\n", file, badnode);
  CHECK(ct != DM_POLYTOPE_TETRAHEDRON || rank || curved > 0, "%s: no curved edge: the edge nodes were not kept\n", file);
  CHECK(diff <= 1e-14, "%s: the nodes differ from the first format's by %.1e\n", file, (double)diff);
  /* the DM's corners in PETSc's orientation: positive Jacobians at the centroid, total volume */
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscReal v, ctr[3], nrm[3], v0[3], J[9], iJ[9], detJ;

    PetscCall(DMPlexComputeCellGeometryFVM(dm, c, &v, ctr, nrm));
    PetscCall(DMPlexComputeCellGeometryFEM(dm, c, NULL, v0, J, iJ, &detJ));
    if (!(detJ > 0 && v > 0)) badJ++;
    vol += v;
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &vol, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &badJ, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  CHECK(!badJ, "%s: %" PetscInt_FMT " cells not positively oriented in PETSc's numbering\n", file, badJ);
  if (ct == DM_POLYTOPE_HEXAHEDRON) {
    CHECK(PetscAbsReal(vol - 2) < 1e-12, "%s: the cells' volume is %.15g, not 2\n", file, (double)vol);
    PetscCall(LabelStratum(dm, "Face Sets", 1, 0, 0.0, &n, &on));
    CHECK(n == 4 && on, "%s: Face Sets 1 has %" PetscInt_FMT " faces (4 expected), %s on x = 0\n", file, n, on ? "all" : "not all");
    PetscCall(LabelStratum(dm, "Face Sets", 2, 0, 2.0, &n, &on));
    CHECK(n == 4 && on, "%s: Face Sets 2 has %" PetscInt_FMT " faces (4 expected), %s on x = 2\n", file, n, on ? "all" : "not all");
  } else {
    /* the corners' polyhedron lies inside the cylinder, close to it */
    CHECK(vol < PETSC_PI / 4 && vol > 0.8 * PETSC_PI / 4, "%s: the cells' volume is %g, pi/4 = %g\n", file, (double)vol, (double)(PETSC_PI / 4));
    PetscCall(LabelStratum(dm, "Face Sets", 3, 2, 0.0, &n, &on));
    CHECK(n > 0 && on, "%s: Face Sets 3 has %" PetscInt_FMT " faces, %s on z = 0\n", file, n, on ? "all" : "not all");
    PetscCall(LabelStratum(dm, "Face Sets", 2, 2, 1.0, &n, &on));
    CHECK(n > 0 && on, "%s: Face Sets 2 has %" PetscInt_FMT " faces, %s on z = 1\n", file, n, on ? "all" : "not all");
  }
  PetscCall(LabelStratum(dm, "Cell Sets", 7, -1, 0, &n, &on));
  CHECK(n == enc, "%s: Cell Sets 7 has %" PetscInt_FMT " of the %" PetscInt_FMT " cells\n", file, n, enc);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "quadratic %-24s %s order %" PetscInt_FMT ", %" PetscInt_FMT " nodes, %" PetscInt_FMT " cells, volume %.12f, %" PetscInt_FMT " curved edges on rank 0, against the first format %.1e\n", file, DMPolytopeTypes[ct], order, nnodes, ncl, (double)vol, curved, (double)diff));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(0);
}

/*
  The patch test on a mesh file with -solid_order 2: q = F X at every node (F uniform) gives every
  node inside the body no force (|f_a| <= 1e-12 of the largest), the curved edges included; inside:
  the reference position strictly inside the box [lo, hi], or (cylinder) off its side r = 0.5
*/
static PetscErrorCode QuadraticPatch(const char dir[], const char file[], PetscBool cylinder, const PetscReal lo[3], const PetscReal hi[3], PetscReal *rel)
{
  const PetscReal    Fu[9] = {1.1, 0.05, -0.02, 0.03, 0.95, 0.04, -0.01, 0.02, 1.02};
  char               opts[PETSC_MAX_PATH_LEN + 256];
  MechSystem         sys;
  Vec                X, v, q, f;
  const PetscScalar *x, *fa;
  PetscScalar       *qa;
  PetscInt           n, nin = 0;
  PetscReal          fin = 0, fmax = 0;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-solid_mesh %s/%s -solid_order 2 -solid_material svk -solid_E 100 -solid_g 0,0,0 -solid_fix none", dir, file));
  PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &sys));
  PetscCall(MechSystemCreateState(sys, &X, &v));
  PetscCall(VecDuplicate(X, &q));
  PetscCall(VecDuplicate(X, &f));
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(VecGetArray(q, &qa));
  for (PetscInt i = 0; i < n; i += 3)
    for (int a = 0; a < 3; a++) qa[i + a] = Fu[3 * a] * x[i] + Fu[3 * a + 1] * x[i + 1] + Fu[3 * a + 2] * x[i + 2];
  PetscCall(VecRestoreArray(q, &qa));
  PetscCall(MechSystemComputeForce(sys, 0, q, v, f));
  PetscCall(VecGetArrayRead(f, &fa));
  for (PetscInt i = 0; i < n; i += 3) {
    const PetscReal fn = PetscSqrtReal(PetscRealPart(fa[i] * fa[i] + fa[i + 1] * fa[i + 1] + fa[i + 2] * fa[i + 2]));
    PetscBool       in = PETSC_TRUE;

    for (int a = 0; a < 3; a++)
      if (!(x[i + a] > lo[a] + 1e-9 && x[i + a] < hi[a] - 1e-9)) in = PETSC_FALSE;
    if (cylinder && PetscSqrtReal(PetscRealPart(x[i] * x[i] + x[i + 1] * x[i + 1])) > 0.5 - 1e-9) in = PETSC_FALSE;
    fmax = PetscMax(fmax, fn);
    if (in) {
      fin = PetscMax(fin, fn);
      nin++;
    }
  }
  PetscCall(VecRestoreArrayRead(f, &fa));
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &fin, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &fmax, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &nin, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  *rel = fmax > 0 ? fin / fmax : 1;
  if (cylinder) {
    /* the file's curved edges are kept: the nodes on the side r = 0.5 are the vertices and all the
       edge nodes there (many more than with the vertices alone, -solid_order 1) */
    PetscInt side[2] = {0, 0};

    for (int o = 0; o < 2; o++) {
      MechSystem s1;
      Vec        X1, v1;

      PetscCall(PetscSNPrintf(opts, sizeof(opts), "-solid_mesh %s/%s -solid_order %d -solid_fix none", dir, file, 2 - o));
      PetscCall(TestCreateModel(PETSC_COMM_WORLD, "solid", opts, &s1));
      PetscCall(MechSystemCreateState(s1, &X1, &v1));
      PetscCall(VecGetLocalSize(X1, &n));
      PetscCall(VecGetArrayRead(X1, &x));
      for (PetscInt i = 0; i < n; i += 3)
        if (PetscAbsReal(PetscSqrtReal(PetscRealPart(x[i] * x[i] + x[i + 1] * x[i + 1])) - 0.5) < 1e-9) side[o]++;
      PetscCall(VecRestoreArrayRead(X1, &x));
      PetscCall(VecDestroy(&X1));
      PetscCall(VecDestroy(&v1));
      PetscCall(MechSystemDestroy(&s1));
    }
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, side, 2, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "quadratic patch %-22s nodes on the curved side r = 0.5: %" PetscInt_FMT " with -solid_order 2, %" PetscInt_FMT " vertices (-solid_order 1)\n", file, side[0], side[1]));
    CHECK(side[0] > 3 * side[1], "%s: %" PetscInt_FMT " nodes on the curved side with -solid_order 2, %" PetscInt_FMT " vertices: the file's curved edges were not kept\n", file, side[0], side[1]);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "quadratic patch %-22s -solid_order 2, q = F X: %" PetscInt_FMT " nodes inside, largest |f| there %.2e of the largest\n", file, nin, (double)*rel));
  CHECK(nin > 0 && *rel <= 1e-12, "%s: the patch test leaves %.2e of the largest force on the inner nodes (%" PetscInt_FMT " of them)\n", file, (double)*rel, nin);
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&f));
  PetscCall(MechSystemDestroy(&sys));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestQuadratic(const char dir[])
{
  const char          *fmt[]   = {"msh22", "msh22_bin", "msh40", "msh40_bin", "msh41", "msh41_bin"};
  const char          *base[]  = {"cyl_tet10", "hex8", "hex27"};
  const DMPolytopeType ct[]    = {DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_HEXAHEDRON, DM_POLYTOPE_HEXAHEDRON};
  const PetscInt       order[] = {2, 1, 2}, nnodes[] = {10, 8, 27}, nc[] = {66, 16, 16};

  PetscFunctionBegin;
  for (int b = 0; b < 3; b++) {
    PetscReal *X0 = NULL;

    for (size_t f = 0; f < sizeof(fmt) / sizeof(fmt[0]); f++) {
      char file[64];

      PetscCall(PetscSNPrintf(file, sizeof(file), "%s_%s.msh", base[b], fmt[f]));
      PetscCall(CheckQuadraticMesh(dir, file, ct[b], order[b], nnodes[b], nc[b], &X0));
    }
    PetscCall(PetscFree(X0));
  }
  {
    const PetscReal clo[3] = {-1, -1, 0}, chi[3] = {1, 1, 1}, blo[3] = {0, 0, 0}, bhi[3] = {2, 1, 1};
    PetscReal       rel;

    PetscCall(QuadraticPatch(dir, "cyl_tet10_msh41_bin.msh", PETSC_TRUE, clo, chi, &rel));
    PetscCall(QuadraticPatch(dir, "hex27_msh22.msh", PETSC_FALSE, blo, bhi, &rel));
  }
  PetscFunctionReturn(0);
}

static char lastError[1024];

static PetscErrorCode CatchError(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  (void)comm;
  (void)line;
  (void)fun;
  (void)file;
  (void)ctx;
  if (p == PETSC_ERROR_INITIAL && mess) PetscStrncpy(lastError, mess, sizeof(lastError));
  return n;
}

/* Every file of the corpus: refused in one line naming it, or accepted, as the manifest says */
static PetscErrorCode TestCorpus(const char dir[])
{
  char           path[PETSC_MAX_PATH_LEN], line[1024], fam[64][32];
  PetscInt       nfam = 0, tried[64] = {0}, held[64] = {0};
  FILE          *fp;
  PetscMPIInt    size;
  PetscLogDouble t0, t1, worst = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/manifest.txt", dir));
  fp = fopen(path, "r");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open %s", path);
  while (fgets(line, sizeof(line), fp)) {
    char          *name = line, *mode, *text, *nl, opts[PETSC_MAX_PATH_LEN + 64], prefix[PETSC_MAX_PATH_LEN + 32], *at = NULL;
    MechSystem     sys = NULL;
    PetscErrorCode ierr;
    PetscBool      ok, oneline;
    PetscInt       f;
    size_t         lp;

    if ((nl = strchr(line, '\n'))) *nl = 0;
    if (!line[0]) continue;
    mode = strchr(name, '\t');
    PetscCheck(mode, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "bad manifest line %s", line);
    *mode++ = 0;
    text    = strchr(mode, '\t');
    PetscCheck(text, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "bad manifest line %s", line);
    *text++ = 0;
    for (f = 0; f < nfam; f++)
      if (!strncmp(fam[f], name, strcspn(name, "_")) && strlen(fam[f]) == strcspn(name, "_")) break;
    if (f == nfam) {
      PetscCheck(nfam < 64, PETSC_COMM_SELF, PETSC_ERR_PLIB, "too many families");
      PetscCall(PetscStrncpy(fam[nfam], name, PetscMin(sizeof(fam[0]), strcspn(name, "_") + 1)));
      nfam++;
    }
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-solid_mesh %s/%s", dir, name));
    PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "-solid_mesh %s/%s: ", dir, name));
    lastError[0] = 0;
    PetscCall(PetscOptionsInsertString(NULL, opts));
    PetscCall(PetscTime(&t0));
    PetscCall(PetscPushErrorHandler(CatchError, NULL));
    ierr = MechCreateModel(PETSC_COMM_WORLD, "solid", &sys);
    PetscCall(PetscPopErrorHandler());
    PetscCall(PetscTime(&t1));
    worst = PetscMax(worst, t1 - t0);
    PetscCall(TestClearOptions(opts));
    PetscCall(MechSystemDestroy(&sys));
    lp      = strlen(prefix);
    oneline = strchr(lastError, '\n') ? PETSC_FALSE : PETSC_TRUE;
    if (ierr) {
      PetscCall(PetscStrstr(lastError, text, &at));
      ok = (!strcmp(mode, "refuse") || !strcmp(mode, "either")) && !strncmp(lastError, prefix, lp) && oneline && at ? PETSC_TRUE : PETSC_FALSE;
    } else ok = !strcmp(mode, "accept") || !strcmp(mode, "either") ? PETSC_TRUE : PETSC_FALSE;
    tried[f]++;
    if (ok) held[f]++;
    CHECK(ok, "%s (%s \"%s\"): %s %s\n", name, mode, text, ierr ? "refused:" : "accepted", ierr ? lastError : "");
    if (strncmp(name, "trunc", 5)) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "corpus %-34s %s%s\n", name, ierr ? "refused: " : "accepted", ierr ? lastError + lp : ""));
  }
  (void)fclose(fp);
  for (PetscInt f = 0; f < nfam; f++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "corpus family %-8s on %d rank%s: %3" PetscInt_FMT " tried, %3" PetscInt_FMT " held\n", fam[f], size, size > 1 ? "s" : "", tried[f], held[f]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "corpus: the slowest file took %.3f s\n", worst));
  CHECK(worst < 5, "a corpus file took %.1f s\n", worst);
  PetscFunctionReturn(0);
}

/* A DMPlex HDF5 mesh of `msh` written by PETSc (for run_h5mesh.sh, which damages it) */
static PetscErrorCode WritePlex(const char msh[], const char out[])
{
  DM          dm;
  PetscViewer v;

  PetscFunctionBegin;
  PetscCall(DMPlexCreateFromFile(PETSC_COMM_WORLD, msh, "plex", PETSC_TRUE, &dm));
  PetscCall(PetscObjectSetName((PetscObject)dm, "plex"));
  PetscCall(PetscViewerHDF5Open(PETSC_COMM_WORLD, out, FILE_MODE_WRITE, &v));
  PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_HDF5_PETSC));
  PetscCall(DMView(dm, v));
  PetscCall(PetscViewerPopFormat(v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char      dir[PETSC_MAX_PATH_LEN] = ".", corpus[PETSC_MAX_PATH_LEN] = "";
  char      plex[PETSC_MAX_PATH_LEN] = "", msh[PETSC_MAX_PATH_LEN] = "";
  PetscBool valid = PETSC_FALSE, quadratic = PETSC_FALSE, hascorpus, hasplex;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dir", dir, sizeof(dir), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-corpus", corpus, sizeof(corpus), &hascorpus));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-valid", &valid, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-quadratic", &quadratic, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-write_plex", plex, sizeof(plex), &hasplex));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-from", msh, sizeof(msh), NULL));
  if (hasplex) PetscCall(WritePlex(msh, plex));
  if (valid) PetscCall(TestValid(dir));
  if (quadratic) PetscCall(TestQuadratic(dir));
  if (hascorpus) PetscCall(TestCorpus(corpus));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failure%s\n", failures ? "FAILED" : "passed", failures, failures == 1 ? "" : "s"));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
