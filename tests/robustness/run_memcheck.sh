#!/bin/sh
# Memory checks: a representative subset of the tests under valgrind memcheck (no invalid access,
# no use of an uninitialised value, no leak: Open MPI's, PETSc's and HDF5's own are suppressed by
# valgrind.supp), and the same tsmech runs natively with PETSc's -malloc_dump, which must report
# nothing (no "[ 0]... bytes" line: every PetscMalloc() freed). One meson test per case (suite
# memcheck).
#
#   run_memcheck.sh CASE TSMECH TEST_ORDER MPIEXEC SRCDIR WORKDIR
#
# CASE: order_tsmech | order_petsc | driver | failures | parallel
set -u
case_=$1 exe=$2 order=$3 mpiexec=$4 srcdir=$5 work=$6
supp="--suppressions=$srcdir/valgrind.supp"
[ -r /usr/share/openmpi/openmpi-valgrind.supp ] && supp="$supp --suppressions=/usr/share/openmpi/openmpi-valgrind.supp"
# 97: valgrind found an error (a status of its own, apart from the program's)
vg="valgrind -q --error-exitcode=97 --leak-check=full --errors-for-leak-kinds=definite,possible --show-leak-kinds=definite,possible --num-callers=50 --track-origins=yes $supp"

if ! command -v valgrind >/dev/null 2>&1; then
  echo "valgrind is not installed (config/setup.sh installs it): skipped"
  exit 77
fi
fail() {
  echo "FAILED: $*" >&2
  exit 1
}
# meson gives the executables relative to the build directory, the current one here
for v in exe order; do
  eval "p=\$$v"
  case $p in /*) ;; *) eval "$v=\$(pwd)/\$p" ;; esac
done
rm -rf "$work" && mkdir -p "$work" && cd "$work" || fail "cannot use $work"

# memcheck STATUS NP PROGRAM ARGS...: the program under valgrind on NP ranks (1: without mpiexec)
# exits with STATUS, valgrind reports nothing
memcheck() {
  want=$1 np=$2
  shift 2
  echo "+ valgrind ($np rank(s)) $* (status $want)"
  if [ "$np" -gt 1 ]; then
    "$mpiexec" -q -n "$np" $vg --log-file=vg.%p.log "$@" </dev/null >run.log 2>&1
  else
    $vg --log-file=vg.%p.log "$@" </dev/null >run.log 2>&1
  fi
  status=$?
  if [ -n "$(cat vg.*.log 2>/dev/null)" ]; then
    cat run.log vg.*.log
    fail "valgrind reported errors: $*"
  fi
  rm -f vg.*.log
  [ $status -eq "$want" ] || {
    cat run.log
    fail "exit status $status, expected $want: $*"
  }
}
# mallocdump STATUS NP ARGS...: tsmech natively with -malloc_dump: status STATUS, no unfreed memory
mallocdump() {
  want=$1 np=$2
  shift 2
  echo "+ tsmech -malloc_dump ($np rank(s)) $* (status $want)"
  "$mpiexec" -q -n "$np" "$exe" -quiet -malloc_dump "$@" </dev/null >dump.log 2>&1
  status=$?
  if grep -E '^\[ *[0-9]+\] *[0-9]+ bytes' dump.log; then
    fail "-malloc_dump reports unfreed memory: $*"
  fi
  [ $status -eq "$want" ] || {
    cat dump.log
    fail "exit status $status, expected $want: $*"
  }
}
# both STATUS NP ARGS...: a tsmech run under valgrind and with -malloc_dump; the files named in
# $RESTORE are put back as they were between the two (a restart continues them, and a second
# restart from the end of the run is refused)
both() {
  b_status=$1 b_np=$2
  shift 2
  for f in ${RESTORE:-}; do cp "$f" "$f.orig"; done
  memcheck "$b_status" "$b_np" "$exe" -quiet "$@"
  for f in ${RESTORE:-}; do mv "$f.orig" "$f"; done
  mallocdump "$b_status" "$b_np" "$@"
}

chain="-model chain -chain_n 12"
case $case_ in
order_tsmech)
  # every tsmech type, with and without damping
  memcheck 0 1 "$order" -suite tsmech
  ;;
order_petsc)
  # PETSc's types on the first-order form (beuler, cn, theta, rk) and alpha2
  memcheck 0 1 "$order" -suite petsc
  ;;
driver)
  # output, checkpoints, restart continuing both; a grid model (assembled and matrix-free); a
  # first-order type
  both 0 1 $chain -ts_max_steps 8 -output o.h5 -checkpoint ck.h5 -checkpoint_every 3 -checkpoint_keep 2 -output_every 3
  rm -f o.h5 ck.h5 ck.h5.1
  both 0 1 $chain -ts_max_steps 8 -output o.h5 -checkpoint ck.h5 -ts_adapt_type basic -ts_theta_initial_guess_extrapolate -ts_dt 0.01
  RESTORE="o.h5 ck.h5"
  both 0 1 $chain -ts_max_steps 12 -output o.h5 -checkpoint ck.h5 -restart ck.h5
  RESTORE=""
  rm -f o.h5 ck.h5
  both 0 1 -model cloth -cloth_n 4 -ts_max_steps 3 -output cl.h5 -ts_type beuler -ksp_type preonly -pc_type lu
  # the matrix-free Jacobian: operator shell, stored blocks, sphere term, lagged preconditioner
  both 0 1 -model cloth -cloth_n 5 -cloth_sphere -ts_max_steps 4 -ts_type midpoint2 -ts_theta_matrix_free -ts_theta_pc_rebuild_growth 1.01
  both 0 1 -model kepler -ts_type rk -ts_max_steps 5 -output k.h5 -bogus_unused 1
  ;;
failures)
  # the error paths: bad input, a damaged file, a diverged Newton solve with its checkpoint of the
  # last good state, an explicit method past its stability limit with the stable-step estimate
  both 2 1 -model bogus
  both 2 1 $chain -ts_type theta2 -ts_theta_theta 2 -output o.h5
  both 2 1 $chain -output /proc/o.h5
  echo "not an HDF5 file" >notes.txt
  both 2 1 $chain -restart notes.txt
  both 3 1 $chain -ts_type beuler2 -ts_dt 0.01 -snes_max_it 2 -ts_adapt_type none -ts_max_steps 20 -output div.h5 -checkpoint divck.h5
  rm -f div.h5 divck.h5
  both 3 1 -model oscillator -oscillator_m 2 -oscillator_k 200 -ts_type symeuler2 -ts_dt 0.25 -ts_max_time 100 -output osc.h5
  rm -f osc.h5
  both 3 1 -model oscillator -oscillator_k 1e300 -ts_type ssp -ts_adapt_type basic -ts_dt 1e10 -ts_max_time 1e12
  both 3 1 -model oscillator -oscillator_m 2 -oscillator_k 200 -ts_type rk -ts_rk_type 4 -ts_adapt_type none -ts_dt 0.35 -ts_max_time 1000
  ;;
parallel)
  # 2 ranks: parallel HDF5 output and checkpoint, a restart, a failure and a refusal
  both 0 2 $chain -ts_max_steps 6 -output o.h5 -checkpoint ck.h5
  RESTORE="o.h5 ck.h5"
  both 0 2 $chain -ts_max_steps 9 -output o.h5 -checkpoint ck.h5 -restart ck.h5
  RESTORE=""
  both 3 2 $chain -ts_type beuler2 -ts_dt 0.01 -snes_max_it 2 -ts_adapt_type none -ts_max_steps 20 -output div.h5 -checkpoint divck.h5
  rm -f div.h5 divck.h5
  both 2 2 -model kepler -restart ck.h5
  ;;
*)
  fail "unknown case $case_"
  ;;
esac
echo "memcheck $case_: OK"
