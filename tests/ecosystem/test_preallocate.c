static const char help[] = "MechSystemCreateTangentMatrix(): the sparsity of a user's spring network, built from its\n"
                           "spring list on any number of ranks, a run with it, and the errors it reports.\n";

/*
  A planar network of nn nodes (bs = 2 dofs each) with a consistent mass matrix coupling
  neighbouring nodes, rest-length springs along the chain and chords across it, node 0 fixed. Rank
  r lists the springs e with e % size == r, so most springs are given by a rank that owns neither
  of their rows. Checked:
    - the pattern of the created matrix is exactly M's pattern + the diagonal + the springs' 2 x 2
      node blocks, and it is all explicit zeros;
    - midpoint2 runs 10 steps with a tangent callback that only adds values (any new nonzero
      would be an error) and its SNES converges;
    - negative control: a spring missing from the list makes the tangent callback fail with
      "new nonzero" instead of reallocating (on PETSC_COMM_SELF, so no rank waits for another);
    - a node number out of range on one rank is an error on every rank, naming the node;
    - MechSystemView reports the model, the global size, the fixed dofs and the consistent mass.
*/
#include <tsmech.h>

#define BS 2

typedef struct {
  PetscInt   nn, ns;        /* nodes, springs */
  PetscInt  *conn;          /* 2 * ns node numbers */
  PetscReal *rest;          /* rest lengths */
  PetscReal  k;             /* spring stiffness */
  PetscInt   first, stride; /* this rank adds the springs first, first + stride, ... */
  VecScatter toall;
  Vec        qall;
} Net;

static PetscErrorCode NetSprings(Net *net, PetscInt nn, PetscBool dropone)
{
  PetscInt n = 0;

  PetscFunctionBegin;
  net->nn = nn;
  PetscCall(PetscMalloc2(2 * 3 * nn, &net->conn, 3 * nn, &net->rest));
  for (PetscInt i = 0; i + 1 < nn; i++) {
    net->conn[2 * n]     = i;
    net->conn[2 * n + 1] = i + 1;
    n++;
  }
  for (PetscInt i = 0; i < nn; i++) {
    PetscInt j = (7 * i + 3) % nn;
    if (PetscAbsInt(j - i) <= 1) continue;
    net->conn[2 * n]     = i;
    net->conn[2 * n + 1] = j;
    n++;
  }
  net->ns = dropone ? n - 1 : n; /* the last chord is forgotten in the list, not by the callback */
  net->k  = 50;
  PetscFunctionReturn(0);
}

static void Position(PetscInt i, PetscReal x[2])
{
  x[0] = (PetscReal)i;
  x[1] = 0.3 * PetscSinReal((PetscReal)i);
}

/* the springs' ends from the gathered positions */
static PetscErrorCode Gather(Net *net, Vec q, const PetscScalar **a)
{
  PetscFunctionBegin;
  PetscCall(VecScatterBegin(net->toall, q, net->qall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(net->toall, q, net->qall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(net->qall, a));
  PetscFunctionReturn(0);
}

static PetscErrorCode Force(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f, void *ctx)
{
  Net               *net = (Net *)ctx;
  const PetscScalar *x;

  PetscFunctionBegin;
  (void)sys, (void)t, (void)v;
  PetscCall(VecSet(f, 0.0));
  PetscCall(Gather(net, q, &x));
  for (PetscInt e = net->first; e < net->ns; e += net->stride) {
    PetscInt    a = net->conn[2 * e], b = net->conn[2 * e + 1];
    PetscReal   d[2] = {PetscRealPart(x[BS * b] - x[BS * a]), PetscRealPart(x[BS * b + 1] - x[BS * a + 1])};
    PetscReal   l = PetscSqrtReal(d[0] * d[0] + d[1] * d[1]), s = net->k * (l - net->rest[e]) / l;
    PetscInt    rows[4] = {BS * a, BS * a + 1, BS * b, BS * b + 1};
    PetscScalar vals[4] = {-s * d[0], -s * d[1], s * d[0], s * d[1]};
    PetscCall(VecSetValues(f, 4, rows, vals, ADD_VALUES));
  }
  PetscCall(VecRestoreArrayRead(net->qall, &x));
  PetscCall(VecAssemblyBegin(f));
  PetscCall(VecAssemblyEnd(f));
  PetscFunctionReturn(0);
}

/* K only adds, on the matrix the system zeroed: any entry outside the pattern is an error */
static PetscErrorCode Tangent(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, Mat J, void *ctx)
{
  Net               *net = (Net *)ctx;
  const PetscScalar *x;

  PetscFunctionBegin;
  (void)sys, (void)t, (void)v, (void)cD;
  PetscCall(Gather(net, q, &x));
  for (PetscInt e = net->first; e < net->ns; e += net->stride) {
    PetscInt    a = net->conn[2 * e], b = net->conn[2 * e + 1];
    PetscReal   d[2] = {PetscRealPart(x[BS * b] - x[BS * a]), PetscRealPart(x[BS * b + 1] - x[BS * a + 1])};
    PetscReal   l = PetscSqrtReal(d[0] * d[0] + d[1] * d[1]), n[2] = {d[0] / l, d[1] / l}, g = 1 - net->rest[e] / l;
    PetscScalar blk[BS * BS], neg[BS * BS];
    PetscInt    ia[BS] = {BS * a, BS * a + 1}, ib[BS] = {BS * b, BS * b + 1};

    for (PetscInt r = 0; r < BS; r++)
      for (PetscInt c = 0; c < BS; c++) {
        blk[r * BS + c] = cK * net->k * (n[r] * n[c] + g * ((r == c ? 1.0 : 0.0) - n[r] * n[c]));
        neg[r * BS + c] = -blk[r * BS + c];
      }
    PetscCall(MatSetValues(J, BS, ia, BS, ia, blk, ADD_VALUES));
    PetscCall(MatSetValues(J, BS, ib, BS, ib, blk, ADD_VALUES));
    PetscCall(MatSetValues(J, BS, ia, BS, ib, neg, ADD_VALUES));
    PetscCall(MatSetValues(J, BS, ib, BS, ia, neg, ADD_VALUES));
  }
  PetscCall(VecRestoreArrayRead(net->qall, &x));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* The network on comm: consistent mass, node 0 fixed; the tangent matrix from the list. */
static PetscErrorCode NetCreate(MPI_Comm comm, PetscInt nn, PetscBool dropone, Net *net, MechSystem *sys, Mat *J)
{
  PetscMPIInt rank, size;
  PetscInt    nlocal, rstart, rend;
  Mat         M;
  Vec         q, v;
  IS          fixed;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(NetSprings(net, nn, dropone));
  net->first  = rank;
  net->stride = size;
  nlocal      = BS * (nn / size + (rank < nn % size ? 1 : 0));
  /* consistent mass of a 1-D element string: 2/3 on the diagonal, 1/6 to the neighbours */
  PetscCall(MatCreateAIJ(comm, nlocal, nlocal, PETSC_DETERMINE, PETSC_DETERMINE, 3, NULL, 2, NULL, &M));
  PetscCall(MatGetOwnershipRange(M, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt node = i / BS;
    PetscCall(MatSetValue(M, i, i, 2.0 / 3.0, INSERT_VALUES));
    if (node > 0) PetscCall(MatSetValue(M, i, i - BS, 1.0 / 6.0, INSERT_VALUES));
    if (node + 1 < nn) PetscCall(MatSetValue(M, i, i + BS, 1.0 / 6.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));

  PetscCall(MechSystemCreate(comm, sys));
  PetscCall(MechSystemSetModelName(*sys, "springnet"));
  PetscCall(MechSystemSetMass(*sys, M));
  PetscCall(MechSystemSetForce(*sys, Force, net));
  /* this rank's share of the list: the springs it adds in the callbacks */
  {
    PetscInt  nmine = 0;
    PetscInt *mine;
    PetscCall(PetscMalloc1(2 * net->ns, &mine));
    for (PetscInt e = net->first; e < net->ns; e += net->stride) {
      mine[2 * nmine]     = net->conn[2 * e];
      mine[2 * nmine + 1] = net->conn[2 * e + 1];
      nmine++;
    }
    PetscCall(MechSystemCreateTangentMatrix(*sys, BS, nmine, 2, mine, J));
    PetscCall(PetscFree(mine));
  }
  /* the callback adds every spring, also the one a faulty list forgot */
  if (dropone) net->ns++;
  PetscCall(MechSystemSetTangent(*sys, *J, PETSC_FALSE, Tangent, net));

  PetscCall(MatCreateVecs(M, &q, &v));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscReal x[2];
    Position(i / BS, x);
    PetscCall(VecSetValue(q, i, x[i % BS], INSERT_VALUES));
  }
  PetscCall(VecAssemblyBegin(q));
  PetscCall(VecAssemblyEnd(q));
  PetscCall(VecSet(v, 0.0));
  /* rest lengths 0.9 of the initial ones: the network starts stretched and moves */
  for (PetscInt e = 0; e < net->ns; e++) {
    PetscReal xa[2], xb[2];
    Position(net->conn[2 * e], xa);
    Position(net->conn[2 * e + 1], xb);
    net->rest[e] = 0.9 * PetscSqrtReal(PetscSqr(xb[0] - xa[0]) + PetscSqr(xb[1] - xa[1]));
  }
  PetscCall(MechSystemSetInitialState(*sys, q, v));
  PetscCall(ISCreateStride(comm, rank == 0 ? BS : 0, 0, 1, &fixed));
  PetscCall(MechSystemSetFixed(*sys, fixed, NULL));
  PetscCall(VecScatterCreateToAll(q, &net->toall, &net->qall));
  PetscCall(ISDestroy(&fixed));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(0);
}

static PetscErrorCode NetDestroy(Net *net)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(net->conn, net->rest));
  PetscCall(VecScatterDestroy(&net->toall));
  PetscCall(VecDestroy(&net->qall));
  PetscFunctionReturn(0);
}

/* Whether row i of J has exactly the expected columns; counts the mismatches. */
static PetscErrorCode CheckPattern(Net *net, Mat J, PetscInt *mismatches)
{
  PetscInt   rstart, rend, N;
  PetscBool *want;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(J, &rstart, &rend));
  PetscCall(MatGetSize(J, &N, NULL));
  PetscCall(PetscMalloc1(N, &want));
  *mismatches = 0;
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt           a = i / BS, ncols, nwant = 0;
    const PetscInt    *cols;
    const PetscScalar *vals;

    for (PetscInt j = 0; j < N; j++) want[j] = (PetscBool)(PetscAbsInt(j / BS - a) <= 1); /* M and the chain springs */
    for (PetscInt e = 0; e < net->ns; e++) {
      PetscInt p = net->conn[2 * e], r = net->conn[2 * e + 1], other = p == a ? r : r == a ? p
                                                                                           : -1;
      if (other >= 0)
        for (PetscInt c = 0; c < BS; c++) want[BS * other + c] = PETSC_TRUE;
    }
    for (PetscInt j = 0; j < N; j++) nwant += want[j];
    PetscCall(MatGetRow(J, i, &ncols, &cols, &vals));
    if (ncols != nwant) (*mismatches)++;
    for (PetscInt c = 0; c < ncols; c++) {
      if (!want[cols[c]] || vals[c] != 0.0) (*mismatches)++;
    }
    PetscCall(MatRestoreRow(J, i, &ncols, &cols, &vals));
  }
  PetscCall(PetscFree(want));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  PetscMPIInt rank, size;
  PetscInt    nn = 24, bad = 0, gbad;
  Net         net;
  MechSystem  sys;
  Mat         J;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TSMechInitializePackage()); /* the TS types of tsmech, for TSSetType() */
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nodes", &nn, NULL));
  PetscCall(PetscMemzero(&net, sizeof(net)));

  /* 1. the pattern */
  PetscCall(NetCreate(comm, nn, PETSC_FALSE, &net, &sys, &J));
  PetscCall(CheckPattern(&net, J, &bad));
  PetscCall(MPIU_Allreduce(&bad, &gbad, 1, MPIU_INT, MPI_SUM, comm));
  {
    MatInfo info;
    PetscCall(MatGetInfo(J, MAT_GLOBAL_SUM, &info));
    PetscCall(PetscPrintf(comm, "pattern: %" PetscInt_FMT " nodes, %" PetscInt_FMT " springs listed over %d rank(s), %g explicit zeros, %" PetscInt_FMT " rows differing from M + diagonal + springs\n", nn, net.ns, size, (double)info.nz_used, gbad));
  }
  PetscCheck(gbad == 0, comm, PETSC_ERR_PLIB, "the tangent matrix's pattern differs from the expected one in %" PetscInt_FMT " places", gbad);

  /* 2. a run: the tangent callback only adds into the pattern */
  {
    TS                  ts;
    Vec                 q, v;
    SNESConvergedReason reason;
    PetscInt            its;

    PetscCall(TSCreate(comm, &ts));
    PetscCall(TSSetType(ts, TSMIDPOINT2));
    PetscCall(TSMechSetSystem(ts, sys));
    PetscCall(TSSetTimeStep(ts, 0.01));
    PetscCall(TSSetMaxSteps(ts, 10));
    PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
    PetscCall(TSSetFromOptions(ts));
    PetscCall(MechSystemCreateState(sys, &q, &v));
    PetscCall(TSMechSetSolution(ts, q, v));
    PetscCall(TSSolve(ts, NULL));
    PetscCall(TSGetSNESIterations(ts, &its));
    {
      SNES snes;
      PetscCall(TSGetSNES(ts, &snes));
      PetscCall(SNESGetConvergedReason(snes, &reason));
    }
    PetscCall(TSMechGetSolution(ts, q, v));
    PetscCall(PetscPrintf(comm, "midpoint2: 10 steps, %" PetscInt_FMT " Newton iterations, last SNES %s\n", its, SNESConvergedReasons[reason]));
    PetscCheck(reason > 0 && its >= 10, comm, PETSC_ERR_PLIB, "the run did not converge as a nonlinear system should (%" PetscInt_FMT " iterations, %s)", its, SNESConvergedReasons[reason]);
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(TSDestroy(&ts));
  }

  /* 5. the view */
  {
    char        name[PETSC_MAX_PATH_LEN] = "test_preallocate_view.txt", line[512] = "";
    PetscViewer viewer;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-view_file", name, sizeof(name), NULL));
    PetscCall(PetscViewerASCIIOpen(comm, name, &viewer));
    PetscCall(MechSystemView(sys, viewer));
    PetscCall(PetscViewerDestroy(&viewer));
    if (rank == 0) {
      FILE     *fp;
      char      expect[256];
      PetscBool found = PETSC_FALSE;
      PetscCall(PetscSNPrintf(expect, sizeof(expect), "model: springnet, %" PetscInt_FMT " dofs, %d fixed, nonlinear, consistent mass, undamped", BS * nn, BS));
      PetscCall(PetscFOpen(PETSC_COMM_SELF, name, "r", &fp));
      while (fgets(line, sizeof(line), fp))
        if (strstr(line, expect)) found = PETSC_TRUE;
      PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
      PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MechSystemView did not print \"%s\"", expect);
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "view: %s\n", expect));
    }
  }
  PetscCall(MatDestroy(&J));
  PetscCall(MechSystemDestroy(&sys));
  PetscCall(NetDestroy(&net));

  /* 3. negative control: a spring missing from the list (each rank alone) */
  {
    Net            bnet;
    MechSystem     bsys;
    Mat            BJ, A;
    Vec            q, v;
    PetscErrorCode ierr;

    PetscCall(PetscMemzero(&bnet, sizeof(bnet)));
    PetscCall(NetCreate(PETSC_COMM_SELF, 10, PETSC_TRUE, &bnet, &bsys, &BJ));
    PetscCall(CheckPattern(&bnet, BJ, &bad));
    PetscCheck(bad > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the pattern check did not notice the forgotten spring");
    PetscCall(MechSystemCreateOperator(bsys, &A));
    PetscCall(MechSystemCreateState(bsys, &q, &v));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = Tangent(bsys, 0, q, v, 1.0, 0.0, A, &bnet);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == PETSC_ERR_ARG_OUTOFRANGE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "inserting the forgotten spring gave error %d, not the new-nonzero error", (int)ierr);
    PetscCall(PetscPrintf(comm, "negative control: the forgotten spring's entries are refused (error %d, a new nonzero)\n", (int)ierr));
    PetscCall(VecDestroy(&q));
    PetscCall(VecDestroy(&v));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&BJ));
    PetscCall(MechSystemDestroy(&bsys));
    PetscCall(NetDestroy(&bnet));
  }

  /* 4. a node out of range on the last rank only: every rank reports it */
  {
    MechSystem     s2;
    Mat            M, J2 = NULL;
    PetscInt       conn[2] = {0, 1};
    PetscErrorCode ierr;
    PetscMPIInt    failed, allfailed;
    const char    *text, *specific = NULL;

    PetscCall(MatCreateConstantDiagonal(comm, 4, 4, PETSC_DETERMINE, PETSC_DETERMINE, 1.0, &M));
    PetscCall(MatConvert(M, MATAIJ, MAT_INPLACE_MATRIX, &M));
    PetscCall(MechSystemCreate(comm, &s2));
    PetscCall(MechSystemSetMass(s2, M));
    if (rank == size - 1) conn[1] = 2 * size; /* 2 nodes per rank: one past the last */
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MechSystemCreateTangentMatrix(s2, BS, 1, 2, conn, &J2);
    PetscCall(PetscPopErrorHandler());
    failed = ierr == PETSC_ERR_ARG_OUTOFRANGE;
    PetscCallMPI(MPI_Allreduce(&failed, &allfailed, 1, MPI_INT, MPI_MIN, comm));
    PetscCheck(allfailed && !J2, comm, PETSC_ERR_PLIB, "a node out of range was not refused on every rank");
    PetscCall(PetscErrorMessage(ierr, &text, (char **)&specific));
    PetscCheck(specific && strstr(specific, "outside"), comm, PETSC_ERR_PLIB, "the message does not name the node: %s", specific ? specific : "(none)");
    PetscCall(PetscPrintf(comm, "bad node, refused on all ranks: %s\n", specific));
    PetscCall(MechSystemDestroy(&s2));
    PetscCall(MatDestroy(&M));
  }
  PetscCall(PetscPrintf(comm, "preallocate: OK\n"));
  PetscCall(PetscFinalize());
  return 0;
}
