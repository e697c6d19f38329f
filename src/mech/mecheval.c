/*
  The mechanical system's evaluations: the force, the operators cK K + cD D + cM M, the mass
  solve, the energies, the exact solution and the invariants. The system object, its setters and
  its set-up (the fixed dofs imposed once, MechSystemSetUp()) are in mechsystem.c, the fixed dofs
  in fixed.c.
*/
#include "mechimpl.h"
#include <string.h>

/*@
  MechSystemComputeResidualScale - The magnitude of the terms of one step's residual at a state, the
  scale below which the residual is round-off (docs/solvers.md §3).

  Collective

  Input Parameters:
+ sys - the mechanical system
. t   - the time
. q   - the position
. v   - the velocity
- tau - the step

  Output Parameter:
. scale - ||M v|| + tau (||f(t, q, v)|| + ||K d|| / h) (2-norms), with d_i = h |q_i| (-1)^i (i the
          global index) and K d by the difference f(t, q + d, v) - f(t, q, v), h = sqrt(eps)

  Level: advanced

  Notes:
  A step's residual M (v+ - v) + tau f(...) is evaluated from terms of this size: a residual of
  eps times it is what a converged state leaves, and no Newton iteration reduces it further. The
  last term is the one a body at rest has: there f and M v vanish, but the forces are sums of
  spring or element forces that cancel, each as large as a stiffness times coordinate differences
  that round with the magnitude of the coordinates (Higham 2002, §3.5: eps |K||q|). The difference
  quotient along a perturbation of every coordinate by its own relative rounding, alternately up and
  down so that neighbours are pulled apart (a uniform scaling mostly moves the body, which costs no
  force), measures that size through the model's force alone (docs/solvers.md §3). Two force
  evaluations and three norms; the perturbation follows the global index, so the result does not
  depend on the partition beyond the order of the sums.

.seealso: `MechSystemComputeForce()`
@*/
PetscErrorCode MechSystemComputeResidualScale(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal tau, PetscReal *scale)
{
  const PetscReal    h = PetscSqrtReal(PETSC_MACHINE_EPSILON);
  const PetscScalar *qa;
  PetscScalar       *d;
  PetscInt           n, rstart;
  PetscReal          nMv, nf, nKd;
  Vec                f0, f1, qd;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidRealPointer(scale, 6);
  PetscCall(MechSystemSetUp(sys));
  for (PetscInt k = 0; k < 3; k++)
    if (!sys->scalework[k]) PetscCall(VecDuplicate(q, &sys->scalework[k]));
  f0 = sys->scalework[0];
  f1 = sys->scalework[1];
  qd = sys->scalework[2];
  PetscCall(MatMult(sys->Mfix, v, f1));
  PetscCall(VecNorm(f1, NORM_2, &nMv));
  PetscCall(MechSystemComputeForce(sys, t, q, v, f0));
  PetscCall(VecNorm(f0, NORM_2, &nf));
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetOwnershipRange(q, &rstart, NULL));
  PetscCall(VecGetArrayRead(q, &qa));
  PetscCall(VecGetArray(qd, &d));
  for (PetscInt i = 0; i < n; i++) d[i] = qa[i] + ((rstart + i) % 2 ? -h : h) * PetscAbsScalar(qa[i]);
  PetscCall(VecRestoreArray(qd, &d));
  PetscCall(VecRestoreArrayRead(q, &qa));
  PetscCall(MechSystemComputeForce(sys, t, qd, v, f1));
  PetscCall(VecAXPY(f1, -1.0, f0));
  PetscCall(VecNorm(f1, NORM_2, &nKd));
  *scale = nMv + tau * (nf + nKd / h);
  PetscFunctionReturn(0);
}

/*@
  MechSystemComputeForce - Computes the force f(t, q, v), zero on the fixed dofs.

  Collective

  Input Parameters:
+ sys - the mechanical system
. t   - the time
. q   - the position
- v   - the velocity

  Output Parameter:
. f - the force

  Level: intermediate

  Note:
  The first evaluation sets the system up: it checks that the mass, the force and the tangent are
  set and decouples the fixed dofs in a copy of M. It is logged as the event MechForce.

.seealso: `MechSystemSetForce()`, `MechSystemComputeOperator()`
@*/
PetscErrorCode MechSystemComputeForce(MechSystem sys, PetscReal t, Vec q, Vec v, Vec f)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(MechSystemSetUp(sys));
  PetscCall(PetscLogEventBegin(MECH_Force, sys, q, v, f));
  /* with a motion: the state where it is prescribed, and its acceleration a_f in apresc */
  if (sys->apresc) PetscCall(VecZeroEntries(sys->apresc));
  PetscCall(MechSystemMotionState(sys, t, q, v, &q, &v, sys->apresc));
  {
    PetscErrorCode ierr = (*sys->force)(sys, t, q, v, f, sys->forcectx);
    PetscMPIInt    rank;

    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)sys), &rank));
    if (!ierr && rank == sys->testerrrank && t >= sys->testerrtime) ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_LIB, PETSC_ERROR_INITIAL, "Test hook -mech_test_force_error: the force fails on rank %d at t = %g", (int)rank, (double)t);
    PetscCall(MechSystemAgree(sys, ierr, "force"));
  }
  if (sys->fixed) PetscCall(VecISSet(f, sys->fixed, 0.0));
  if (sys->motion && sys->fixed) {
    /* the prescribed acceleration a_f: the fixed rows' force -m_ff a_f, and with a consistent
       mass the inertia M_if a_f of the moving dofs on the free rows */
    if (sys->Mcouple) {
      PetscCall(MatMultAdd(sys->Mcouple, sys->apresc, f, f));
      PetscCall(VecISSet(f, sys->fixed, 0.0));
    }
    PetscCall(VecPointwiseMult(sys->apresc, sys->apresc, sys->Mdiagfix));
    PetscCall(VecAXPY(f, -1.0, sys->apresc));
  }
  PetscCall(PetscLogEventEnd(MECH_Force, sys, q, v, f));
  PetscFunctionReturn(0);
}

/*@
  MechSystemCreateOperator - Creates a matrix with the sparsity of K + D + M, for
  `MechSystemComputeOperator()`.

  Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameter:
. J - a new matrix with the structure of the matrix of `MechSystemSetTangent()`, values not copied

  Level: intermediate

  Notes:
  A new nonzero location in J is an error (`MAT_NEW_NONZERO_LOCATION_ERR`), and zeroing keeps
  its structure. The caller destroys it.

  The sparsity is held once: while no one but the system holds the matrix of
  `MechSystemSetTangent()`, that matrix itself, zeroed, is the new operator (the system keeps
  its reference and later operators copy its structure); otherwise J is a duplicate of its
  structure.

.seealso: `MechSystemComputeOperator()`, `MechSystemSetTangent()`, `MechSystemCreateOperatorShell()`
@*/
PetscErrorCode MechSystemCreateOperator(MechSystem sys, Mat *J)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(MechSystemSetUp(sys));
  PetscCall(MechSystemGetPattern(sys, NULL));
  if (((PetscObject)sys->Jpattern)->refct == 1) {
    /* no other holder: lend the template, so that its pattern and values are not stored twice */
    PetscCall(PetscObjectReference((PetscObject)sys->Jpattern));
    *J = sys->Jpattern;
    PetscCall(MatZeroEntries(*J));
  } else PetscCall(MatDuplicate(sys->Jpattern, MAT_DO_NOT_COPY_VALUES, J));
  PetscCall(MatSetOption(*J, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
  PetscCall(MatSetOption(*J, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/*@
  MechSystemCreateOperatorReduced - Creates a preconditioning matrix with the reduced sparsity of
  the system's pattern builder (`MechSystemSetTangentPattern()`), for `MechSystemComputeOperator()`.

  Collective

  Input Parameter:
. sys - the mechanical system, with a pattern builder

  Output Parameter:
. P - a new matrix with a subset of the couplings of K + D + M (the diagonal and M's pattern kept)

  Level: advanced

  Notes:
  Filled by `MechSystemComputeOperator()` or `MechSystemComputeOperatorDefinite()`, P holds the
  operator's entries on its sparsity: those of the couplings it lacks are dropped
  (`MAT_NEW_NONZERO_LOCATIONS` false), while their share of the diagonal blocks is kept. It
  stores and factors for less memory than the full operator, at the price of a weaker
  preconditioner (more linear iterations); as a preconditioning matrix only, it leaves Newton's
  answer unchanged to the solver tolerance. The theta2 family uses it with
  -ts_theta_matrix_free -ts_theta_pc_reduced (`TSMechSetPCReduced()`). The caller destroys it.

.seealso: `MechSystemSetTangentPattern()`, `MechSystemCreateOperator()`, `MechSystemComputeOperator()`, `TSMechSetPCReduced()`
@*/
PetscErrorCode MechSystemCreateOperatorReduced(MechSystem sys, Mat *P)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidPointer(P, 2);
  PetscCall(MechSystemSetUp(sys));
  PetscCheck(sys->patternfn, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_WRONGSTATE, "Model %s has no reduced tangent pattern (MechSystemSetTangentPattern())", sys->modelname ? sys->modelname : "(unnamed)");
  PetscCall((*sys->patternfn)(sys, PETSC_TRUE, P, sys->patternctx));
  /* a builder of the full pattern only (the solid's) gives none */
  PetscCheck(*P, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_INCOMP, "Model %s has no reduced tangent pattern: its pattern builder gives only the full one (a reduced preconditioning matrix, -pc_reduced, needs cloth or lattice)", sys->modelname ? sys->modelname : "(unnamed)");
  PetscCall(MatSetOption(*P, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
  /* the couplings outside the reduced sparsity are dropped, not inserted */
  PetscCall(MatSetOption(*P, MAT_NEW_NONZERO_LOCATIONS, PETSC_FALSE));
  PetscFunctionReturn(0);
}

/* J = cK K + cD D + cM M at (t, q, v) with the tangent callback fn, fixed dofs decoupled */
static PetscErrorCode MechSystemComputeOperator_Private(MechSystem sys, MechTangentFn fn, void *ctx, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, Mat J)
{
  PetscBool mg;

  PetscFunctionBegin;
  PetscCall(MechSystemSetUp(sys));
  /* the matrix-free multigrid operator: its diagonal and coarse levels (mgoperator.c), exact tangents */
  PetscCall(MechOperatorIsMultigrid_Private(J, &mg));
  if (mg) {
    PetscCall(MechOperatorMultigridCompute_Private(sys, t, q, v, cK, cD, cM, J));
    PetscFunctionReturn(0);
  }
  if (!sys->hasdamping) cD = 0;
  PetscCall(PetscLogStagePush(MECH_StageAssembly));
  PetscCall(PetscLogEventBegin(MECH_Operator, sys, J, 0, 0));
  PetscCall(MatZeroEntries(J));
  if (cK != 0 || cD != 0) {
    PetscCall(MechSystemMotionState(sys, t, q, v, &q, &v, NULL));
    PetscCall(MechSystemAgree(sys, (*fn)(sys, t, q, v, cK, cD, J, ctx), "tangent"));
    if (sys->fixed) PetscCall(MatZeroRowsColumnsIS(J, sys->fixed, 0.0, NULL, NULL));
  } else {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(MechSystemAddMass_Private(sys, cM, J));
  PetscCall(PetscLogEventEnd(MECH_Operator, sys, J, 0, 0));
  PetscCall(PetscLogStagePop());
  PetscFunctionReturn(0);
}

/* J += cM M (the decoupled mass: its diagonal, or its own pattern, a subset of the operator's) */
PetscErrorCode MechSystemAddMass_Private(MechSystem sys, PetscReal cM, Mat J)
{
  PetscFunctionBegin;
  if (cM == 0) PetscFunctionReturn(0);
  if (sys->massdiag) {
    PetscCall(VecAXPBY(sys->work, cM, 0.0, sys->Mdiag));
    PetscCall(MatDiagonalSet(J, sys->work, ADD_VALUES));
  } else {
    PetscBool shell;

    PetscCall(PetscObjectTypeCompare((PetscObject)sys->M, MATSHELL, &shell));
    PetscCheck(!shell, PetscObjectComm((PetscObject)sys), PETSC_ERR_SUP, "An assembled operator needs an assembled mass matrix; the model gave its mass as a shell (the solid: -solid_mass_matrix scalar, for the matrix-free operators only: -ts_theta_matrix_free, -pc_type mg)");
    PetscCall(MatAXPY(J, cM, sys->Mfix, SUBSET_NONZERO_PATTERN));
  }
  PetscFunctionReturn(0);
}

/*@
  MechSystemComputeOperator - Computes J = cK K + cD D + cM M at (t, q, v), with the fixed dofs
  decoupled.

  Collective

  Input Parameters:
+ sys - the mechanical system
. t   - the time
. q   - the position
. v   - the velocity
. cK  - the coefficient of the stiffness K = df/dq
. cD  - the coefficient of the damping D = df/dv (ignored for a system without damping)
- cM  - the coefficient of the mass matrix

  Output Parameter:
. J - the operator, a matrix from `MechSystemCreateOperator()`

  Level: intermediate

  Notes:
  The tangent callback is not called when cK and cD are both zero. On the fixed dofs the rows and
  columns of K and D are zero and M keeps only its diagonal entry, so the fixed rows of J hold
  cM m_ii on the diagonal: symmetric operators stay symmetric. Logged as the event MechOperator
  in the stage "Mech assembly".

.seealso: `MechSystemCreateOperator()`, `MechSystemSetTangent()`, `MechSystemLinearizeOperatorShell()`
@*/
PetscErrorCode MechSystemComputeOperator(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, Mat J)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidHeaderSpecific(J, MAT_CLASSID, 8);
  PetscCall(MechSystemSetUp(sys));
  PetscCall(MechSystemComputeOperator_Private(sys, sys->tangent, sys->tangentctx, t, q, v, cK, cD, cM, J));
  PetscFunctionReturn(0);
}

/*@C
  MechSystemComputeOperatorDefinite - Computes P = cK K~ + cD D~ + cM M at (t, q, v), fixed dofs
  decoupled, with the model's semidefinite approximation K~, D~ of its tangents
  (MechSystemSetTangentDefinite()), or the exact tangents when the model gives none.

  Collective

  Notes:
  With cK, cD >= 0 and cM > 0, P is symmetric positive definite whenever the approximation is
  semidefinite and symmetric: a preconditioning matrix for CG, incomplete Cholesky and algebraic
  multigrid where the exact operator of MechSystemComputeOperator() is indefinite.

.seealso: `MechSystemComputeOperator()`, `MechSystemSetTangentDefinite()`, `TSMechSetPCDefinite()`
@*/
PetscErrorCode MechSystemComputeOperatorDefinite(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal cK, PetscReal cD, PetscReal cM, Mat P)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscValidHeaderSpecific(P, MAT_CLASSID, 8);
  PetscCall(MechSystemSetUp(sys));
  if (sys->tangentdef) PetscCall(MechSystemComputeOperator_Private(sys, sys->tangentdef, sys->tangentdefctx, t, q, v, cK, cD, cM, P));
  else PetscCall(MechSystemComputeOperator_Private(sys, sys->tangent, sys->tangentctx, t, q, v, cK, cD, cM, P));
  PetscFunctionReturn(0);
}

/*@
  MechSystemSolveMass - Solves M x = b, with the fixed dofs decoupled.

  Collective

  Input Parameters:
+ sys - the mechanical system
- b   - the right-hand side

  Output Parameter:
. x - the solution

  Options Database Keys:
+ -mass_ksp_type <cg> - the KSP of the mass solve (preonly for a lumped M)
. -mass_pc_type <jacobi> - its preconditioner
- -mass_ksp_rtol <1e-12> - its relative tolerance

  Level: intermediate

  Notes:
  A lumped (diagonal) M is inverted exactly by one Jacobi application. The KSP is created at the
  first solve with the options prefix <prefix>mass_, <prefix> being that of
  `MechSystemSetOptionsPrefix()` (that of the `TS` after `TSMechSetSystem()`). A solve that does
  not converge is an error. The explicit types (`TSEULER2`, `TSSYMEULER2`) use it at every step.

.seealso: `MechSystemSetMass()`, `MechSystemSetOptionsPrefix()`, `MechSystemView()`
@*/
PetscErrorCode MechSystemSolveMass(MechSystem sys, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(MechSystemSetUp(sys));
  if (!sys->massksp) {
    const char *prefix;
    PC          pc;

    PetscCall(KSPCreate(PetscObjectComm((PetscObject)sys), &sys->massksp));
    PetscCall(PetscObjectGetOptionsPrefix((PetscObject)sys, &prefix));
    PetscCall(KSPSetOptionsPrefix(sys->massksp, prefix));
    PetscCall(KSPAppendOptionsPrefix(sys->massksp, "mass_"));
    PetscCall(KSPGetPC(sys->massksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    /* a diagonal M is inverted exactly by one Jacobi application */
    PetscCall(KSPSetType(sys->massksp, sys->massdiag ? KSPPREONLY : KSPCG));
    PetscCall(KSPSetTolerances(sys->massksp, 1e-12, 1e-50, PETSC_DEFAULT, PETSC_DEFAULT));
    PetscCall(KSPSetOperators(sys->massksp, sys->Mfix, sys->Mfix));
    PetscCall(KSPSetFromOptions(sys->massksp));
  }
  PetscCall(PetscLogEventBegin(MECH_MassSolve, sys, b, x, 0));
  PetscCall(KSPSolve(sys->massksp, b, x));
  PetscCall(PetscLogEventEnd(MECH_MassSolve, sys, b, x, 0));
  {
    KSPConvergedReason reason;
    PetscCall(KSPGetConvergedReason(sys->massksp, &reason));
    PetscCheck(reason >= 0, PetscObjectComm((PetscObject)sys), PETSC_ERR_NOT_CONVERGED, "The mass solve (options prefix mass_) diverged: %s", KSPConvergedReasons[reason]);
  }
  PetscFunctionReturn(0);
}

/*@
  MechSystemComputeEnergy - Computes the kinetic energy 1/2 v^T M v and the model's potential energy.

  Collective

  Input Parameters:
+ sys - the mechanical system
. t   - the time
. q   - the position
- v   - the velocity

  Output Parameters:
+ kinetic   - the kinetic energy (may be NULL)
- potential - the potential energy of `MechSystemSetPotential()`, 0 without one (may be NULL)

  Level: intermediate

  Note:
  The kinetic energy uses M with the fixed dofs decoupled; it equals 1/2 v^T M v when the fixed
  dofs are at rest.

.seealso: `MechSystemSetPotential()`, `MechSystemComputeInvariant()`
@*/
PetscErrorCode MechSystemComputeEnergy(MechSystem sys, PetscReal t, Vec q, Vec v, PetscReal *kinetic, PetscReal *potential)
{
  PetscScalar vMv;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCall(MechSystemSetUp(sys));
  /* the whole M: with a prescribed motion the fixed dofs move, coupled to their neighbours */
  PetscCall(MatMult(sys->M, v, sys->work));
  PetscCall(VecDot(v, sys->work, &vMv));
  if (kinetic) *kinetic = 0.5 * PetscRealPart(vMv);
  if (potential) {
    *potential = 0;
    if (sys->potential) PetscCall(MechSystemAgree(sys, (*sys->potential)(sys, t, q, v, potential, sys->potentialctx), "potential"));
  }
  PetscFunctionReturn(0);
}

/*@
  MechSystemComputeExactSolution - Evaluates the exact solution, if the model has one.

  Collective

  Input Parameters:
+ sys - the mechanical system
- t   - the time

  Output Parameters:
+ q   - the exact position at t (unchanged without an exact solution)
. v   - the exact velocity at t (unchanged without an exact solution)
- has - whether the model has an exact solution (may be NULL)

  Level: intermediate

.seealso: `MechSystemSetExactSolution()`
@*/
PetscErrorCode MechSystemComputeExactSolution(MechSystem sys, PetscReal t, Vec q, Vec v, PetscBool *has)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  if (has) *has = sys->exact ? PETSC_TRUE : PETSC_FALSE;
  if (sys->exact) PetscCall(MechSystemAgree(sys, (*sys->exact)(sys, t, q, v, sys->exactctx), "exact solution"));
  PetscFunctionReturn(0);
}

/*@
  MechSystemGetNumInvariants - Gets the number of named invariants of the model.

  Not Collective

  Input Parameter:
. sys - the mechanical system

  Output Parameter:
. n - the number of invariants added with `MechSystemAddInvariant()`

  Level: intermediate

.seealso: `MechSystemAddInvariant()`, `MechSystemComputeInvariant()`
@*/
PetscErrorCode MechSystemGetNumInvariants(MechSystem sys, PetscInt *n)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  *n = sys->ninvariants;
  PetscFunctionReturn(0);
}

/*@C
  MechSystemComputeInvariant - Evaluates one of the named invariants of the model.

  Collective

  Input Parameters:
+ sys - the mechanical system
. i   - the invariant's number, in [0, n) with n from `MechSystemGetNumInvariants()`
. t   - the time
. q   - the position
- v   - the velocity

  Output Parameters:
+ name  - its name, owned by the system (may be NULL)
- value - its value (may be NULL: the callback is then not called)

  Level: intermediate

.seealso: `MechSystemAddInvariant()`, `MechSystemGetNumInvariants()`, `MechSystemComputeEnergy()`
@*/
PetscErrorCode MechSystemComputeInvariant(MechSystem sys, PetscInt i, PetscReal t, Vec q, Vec v, const char **name, PetscReal *value)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sys, MECHSYSTEM_CLASSID, 1);
  PetscCheck(i >= 0 && i < sys->ninvariants, PetscObjectComm((PetscObject)sys), PETSC_ERR_ARG_OUTOFRANGE, "Invariant %" PetscInt_FMT " does not exist", i);
  if (name) *name = sys->invname[i];
  if (value) PetscCall(MechSystemAgree(sys, (*sys->invariant[i])(sys, t, q, v, value, sys->invariantctx[i]), sys->invname[i]));
  PetscFunctionReturn(0);
}
