#!/bin/sh
# Run-to-run reproducibility (docs/program.md, "Reproducibility"; docs/solvers.md §5): each configuration the
# section calls bitwise reproducible runs twice with identical options on 2 ranks (block Jacobi and
# the geometric multigrid also on 3, MUMPS on 1 rank), and the
# two outputs must hold bitwise the same fields and monitor series (same_results.py). PETSc's own
# solvers (CG with block Jacobi, GMRES on the first-order form, the matrix-free multigrid of
# config/cloth.opts, GAMG of config/solid.opts) and SuperLU_dist with one OpenMP thread, here under
# PETSc's beuler on the first-order form (which failed before: the factor kept the N x N size).
# A negative control: a run with another -ksp_rtol must differ, or the comparison proves nothing.
# usage: run_determinism.sh TSMECH MPIEXEC PYTHON CHECK_PY CONFIGDIR WORKDIR
set -u
TSMECH=$1 MPIEXEC=$2 PY=$3 CHECK=$4 CONF=$5 DIR=$6
rm -rf "$DIR"
mkdir -p "$DIR"
fail=0

run() { # name ranks args...: writes $DIR/name.h5 (sh has no local variables: r_ names)
  r_name=$1 r_np=$2
  shift 2
  timeout 120 "$MPIEXEC" -n "$r_np" -x OMP_NUM_THREADS=1 "$TSMECH" "$@" -quiet -output_every 4 -output "$DIR/$r_name.h5" > "$DIR/$r_name.log" 2>&1
  status=$?
  if [ $status -ne 0 ]; then
    echo "FAIL $r_name: exit status $status"
    tail -3 "$DIR/$r_name.log"
    fail=1
    return 1
  fi
  return 0
}

twice() { # name ranks args...: two identical runs, bitwise equal
  name=$1 np=$2
  shift 2
  run "$name.a" "$np" "$@" && run "$name.b" "$np" "$@" || return
  if "$PY" "$CHECK" "$DIR/$name.a.h5" "$DIR/$name.b.h5"; then
    echo "ok   $name: two runs on $np rank(s) bitwise equal"
  else
    echo "FAIL $name: two identical runs on $np rank(s) differ"
    fail=1
  fi
}

CLOTH="-model cloth -cloth_n 17 -ts_max_steps 16"
twice cg_bjacobi 2 $CLOTH -ksp_type cg -pc_type bjacobi -ksp_rtol 1e-8
twice cloth_opts 2 -options_file "$CONF/cloth.opts" -cloth_n 17 -ts_max_steps 16
twice cg_bjacobi_3ranks 3 $CLOTH -ksp_type cg -pc_type bjacobi -ksp_rtol 1e-8
twice cloth_opts_3ranks 3 -options_file "$CONF/cloth.opts" -cloth_n 17 -ts_max_steps 16
twice solid_opts 2 -options_file "$CONF/solid.opts" -solid_beam_cells 8,2,2 -ts_max_steps 16
twice beuler_gmres 2 $CLOTH -ts_type beuler -ksp_type gmres -pc_type bjacobi
twice beuler_superlu_dist 2 -model cloth -cloth_n 9 -ts_max_steps 16 -ts_type beuler -ksp_type preonly -pc_type lu -pc_factor_mat_solver_type superlu_dist
twice midpoint2_mumps_1rank 1 $CLOTH -ksp_type preonly -pc_type lu -pc_factor_mat_solver_type mumps

# negative control: another linear tolerance changes the bits
if run control 2 $CLOTH -ksp_type cg -pc_type bjacobi -ksp_rtol 1e-9; then
  if "$PY" "$CHECK" "$DIR/cg_bjacobi.a.h5" "$DIR/control.h5" > /dev/null; then
    echo "FAIL control: runs with -ksp_rtol 1e-8 and 1e-9 compare equal: the comparison sees nothing"
    fail=1
  else
    echo "ok   control: -ksp_rtol 1e-8 and 1e-9 differ"
  fi
fi
exit $fail
