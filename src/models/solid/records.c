/*
  What the solid's checkpoints and outputs record of where its constraints and loads act, so
  that a restart with another selection, another time function or another load is refused naming
  the constraint or load and what changed (ckheader.c compares the text parameters):

    bc_NAME_vertices   where x=0: 25 nodes (checksum 1a2b3c4d)    the nodes a constraint holds
    bc_NAME_time       ramp:1, or a table of 12 rows, t from 0 to 2, CRC-32 ...   its phi(t)
    load_NAME          pressure 20000 (or traction 0,0,-1, force 0,0,-5)         its value
    load_NAME_faces    where z=0.1: 8 faces (checksum ...)          the boundary faces it acts on
    load_NAME_time     its phi(t)

  The checksums are over the reference coordinates of the selected nodes (a face: of its corners),
  summed in integer arithmetic so that they do not depend on the partition (each node or face is
  counted by the rank that owns it). Any future selection (a region) records itself the same way
  (SolidRecordNodes()).
*/
#include "solidimpl.h"

/* Records "what: count unit (checksum)" under pname; what is shortened so that the record fits a
   text parameter (MechSystemAddTextParameter(): 255 characters) */
static PetscErrorCode RecordSet(MechSystem sys, const char pname[], const char what[], PetscInt count, const char unit[], uint64_t sum)
{
  char rec[256], shown[160];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(rec, sizeof(rec), "%s: %" PetscInt_FMT " %s (checksum %08x)", MechOptionsShortValue(what, shown, sizeof(shown)), count, unit, (unsigned int)((sum ^ (sum >> 32)) & 0xFFFFFFFFu)));
  PetscCall(MechSystemAddTextParameter(sys, pname, rec));
  PetscFunctionReturn(0);
}

/*
  Records the nodes (3 dofs each in X, the reference positions; mark[i] != 0: node i is selected,
  owned by this rank) that the selection `what` ("where x=0", "label Face Sets = 1", ...) chose, as
  the text parameter pname. Collective.
*/
PetscErrorCode SolidRecordNodes(MechSystem sys, const char pname[], const char what[], Vec X, const PetscInt mark[])
{
  const PetscScalar *x;
  PetscInt           n, count = 0;
  uint64_t           sum = 0;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArrayRead(X, &x));
  for (PetscInt i = 0; i < n / 3; i++) {
    PetscReal p[3] = {PetscRealPart(x[3 * i]), PetscRealPart(x[3 * i + 1]), PetscRealPart(x[3 * i + 2])};

    if (!mark[i]) continue;
    sum += SolidPointHash(p);
    count++;
  }
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_UINT64_T, MPI_SUM, PetscObjectComm((PetscObject)X)));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &count, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)X)));
  PetscCall(RecordSet(sys, pname, what, count, count == 1 ? "node" : "nodes", sum));
  PetscFunctionReturn(0);
}

/* Records a time function (MechTimeFunctionGetRecord()) as the text parameter pname */
PetscErrorCode SolidRecordTime(MechSystem sys, const char pname[], MechTimeFunction tf)
{
  char rec[256];

  PetscFunctionBegin;
  PetscCall(MechTimeFunctionGetRecord(tf, rec, sizeof(rec)));
  PetscCall(MechSystemAddTextParameter(sys, pname, rec));
  PetscFunctionReturn(0);
}

/*
  Records a load: its value, its faces (selected by `what`; each face by its corners, the first
  of its nodes in ld->X) and its time function. Collective.
*/
PetscErrorCode SolidRecordLoad(MechSystem sys, const SolidLoad *ld, const char what[])
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)sys);
  const PetscInt nc   = ld->nfn == 3 || ld->nfn == 6 ? 3 : 4;
  uint64_t       sum  = 0;
  char           pname[128], rec[256];

  PetscFunctionBegin;
  if (ld->ops->nvalues == 1) PetscCall(PetscSNPrintf(rec, sizeof(rec), "%s %.17g", ld->ops->name, (double)ld->p));
  else PetscCall(PetscSNPrintf(rec, sizeof(rec), "%s %.17g,%.17g,%.17g", ld->ops->name, (double)ld->value[0], (double)ld->value[1], (double)ld->value[2]));
  PetscCall(PetscSNPrintf(pname, sizeof(pname), "load_%s", ld->name));
  PetscCall(MechSystemAddTextParameter(sys, pname, rec));
  for (PetscInt f = 0; f < ld->nf; f++) {
    uint64_t h = 0;

    /* the corners in any order: a sum, then an odd multiplier (a bijection), so that a face is
       not the sum of its corners' contributions to other faces */
    for (PetscInt a = 0; a < nc; a++) h += SolidPointHash(&ld->X[3 * (ld->nfn * f + a)]);
    sum += h * 0x9e3779b97f4a7c15ULL;
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_UINT64_T, MPI_SUM, comm));
  PetscCall(PetscSNPrintf(pname, sizeof(pname), "load_%s_faces", ld->name));
  PetscCall(RecordSet(sys, pname, what, ld->NF, ld->NF == 1 ? "face" : "faces", sum));
  PetscCall(PetscSNPrintf(pname, sizeof(pname), "load_%s_time", ld->name));
  PetscCall(SolidRecordTime(sys, pname, ld->tf));
  PetscFunctionReturn(0);
}
