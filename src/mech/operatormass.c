/*
  The mass inside the model's own action. A matrix-free operator J = cK K + cD D + cM M applied
  as the model's action plus a product with the assembled mass streams the mass's entries at
  every Krylov iteration (a third of the operator's cost for P2 tetrahedra: bench/README.md, "The
  solid's kernels"); a model that integrates the mass in its element loop, where it already has
  the direction's values, adds it for a few operations per point. The fixed dofs are decoupled as
  in MechSystemComputeOperator(): the model sees the direction with its fixed entries zeroed, its
  fixed rows are replaced by cM Mfix_ii w_i.
*/
#include "mechimpl.h"

/*@C
  MechSystemSetOperatorLinearize - Lets the model's tangent action apply the mass too: the
  linearization gets the coefficient cM and the action's apply callback then returns
  y = (cK K + cD D + cM M) w.

  Logically Collective

  Input Parameters:
+ sys         - the mechanical system, with a tangent action (`MechSystemSetTangentAction()`)
- oplinearize - the linearization with the mass's coefficient, or NULL to remove it

  Calling sequence of oplinearize:
$ PetscErrorCode oplinearize(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, void *ctx)
+ t, q, v    - the state to linearize at
. cK, cD, cM - the coefficients of K, D and M: the apply callback adds cM M w from now on
- ctx        - the context of `MechSystemSetTangentAction()`

  Level: advanced

  Notes:
  `MechSystemLinearizeOperatorShell()` calls it instead of the tangent action's linearize when
  cK or cD is not zero and the mass is not diagonal (a diagonal mass is one pass over the vector
  already); otherwise it calls the tangent action's linearize, after which apply must return
  (cK K + cD D) w again (cM = 0). The mass applied must be the mass matrix of
  `MechSystemSetMass()`, to round-off: the sums come in another order than the matrix's product.

.seealso: `MechSystemSetTangentAction()`, `MechSystemCreateOperatorShell()`, `MechSystemLinearizeOperatorShell()`
@*/
PetscErrorCode MechSystemSetOperatorLinearize(MechSystem sys, MechOperatorLinearizeFn oplinearize)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCheck(!oplinearize || sys->apply, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_WRONGSTATE, "MechSystemSetOperatorLinearize() needs a tangent action first (MechSystemSetTangentAction())");
  sys->oplinearize = oplinearize;
  PetscFunctionReturn(0);
}

/* The model's linearization for J = cK K + cD D + cM M; fused: whether its apply now adds cM M */
PetscErrorCode MechOperatorLinearize_Private(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, PetscBool *fused)
{
  PetscFunctionBegin;
  *fused = sys->oplinearize && cM != 0 && !sys->massdiag ? PETSC_TRUE : PETSC_FALSE;
  if (*fused) PetscCall(MechSystemAgree(sys, (*sys->oplinearize)(sys, t, q, v, cK, cD, cM, sys->actionctx), "tangent linearization"));
  else PetscCall(MechSystemAgree(sys, (*sys->linearize)(sys, t, q, v, cK, cD, sys->actionctx), "tangent linearization"));
  PetscFunctionReturn(0);
}

/*
  The fixed rows of J w when the model applied cM M itself: y_i = cM Mfix_ii w_i (Mfix keeps a
  fixed dof's own mass on its decoupled row), the same bits as the product with Mfix there.
  dfix: Mfix's diagonal, made on first use.
*/
PetscErrorCode MechOperatorFixedMass_Private(MechSystem sys, PetscReal cM, Vec *dfix, Vec w, Vec y)
{
  const PetscInt    *idx;
  PetscInt           nfix, rstart;
  const PetscScalar *wa, *da;
  PetscScalar       *ya;

  PetscFunctionBegin;
  if (!sys->fixed) PetscFunctionReturn(0);
  if (!*dfix) {
    PetscCall(MatCreateVecs(sys->Mfix, dfix, NULL));
    PetscCall(MatGetDiagonal(sys->Mfix, *dfix));
  }
  PetscCall(ISGetLocalSize(sys->fixed, &nfix));
  PetscCall(ISGetIndices(sys->fixed, &idx));
  PetscCall(VecGetOwnershipRange(y, &rstart, NULL));
  PetscCall(VecGetArrayRead(w, &wa));
  PetscCall(VecGetArrayRead(*dfix, &da));
  PetscCall(VecGetArray(y, &ya));
  for (PetscInt k = 0; k < nfix; k++) {
    const PetscInt i = idx[k] - rstart;

    ya[i] += cM * (da[i] * wa[i]);
  }
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(VecRestoreArrayRead(*dfix, &da));
  PetscCall(VecRestoreArrayRead(w, &wa));
  PetscCall(ISRestoreIndices(sys->fixed, &idx));
  PetscFunctionReturn(0);
}
