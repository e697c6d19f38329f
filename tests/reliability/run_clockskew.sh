#!/bin/sh
# Parallel discipline: a decision that leads to a collective call is never taken from one rank's
# clock. The cloth runs on 2 ranks with -checkpoint_interval and the progress line on, once with
# every clock true and then with one rank's clock (MPI_Wtime, which PetscTime() reads) frozen or
# running 1000 times fast (clockskew.c, preloaded). Each run must finish (no hang: timeout) and
# write bitwise the same fields and monitor series as the run with true clocks.
# usage: run_clockskew.sh TSMECH MPIEXEC SHIM PYTHON CHECK_PY WORKDIR
set -u
TSMECH=$1 MPIEXEC=$2 SHIM=$3 PY=$4 CHECK=$5 DIR=$6
rm -rf "$DIR"
mkdir -p "$DIR"
fail=0
ARGS="-model cloth -cloth_n 12 -ts_type midpoint2 -ts_dt 2e-3 -ts_max_steps 120 -output_every 7 -checkpoint_every 0 -checkpoint_interval 0.02"

run() { # name rank rate [ranks]
  name=$1
  np=${4:-2}
  shift 1
  if [ "$1" = none ]; then
    env_args=""
  else
    env_args="-x LD_PRELOAD=$SHIM -x TSMECH_SKEW_RANK=$1 -x TSMECH_SKEW_RATE=$2"
  fi
  # shellcheck disable=SC2086
  timeout 180 "$MPIEXEC" -n "$np" $env_args "$TSMECH" $ARGS -output "$DIR/$name.h5" -checkpoint "$DIR/$name.ck.h5" > "$DIR/$name.log" 2>&1
  status=$?
  if [ $status -ne 0 ]; then
    echo "FAIL $name: exit status $status (124: timed out after 180 s, a hang)"
    tail -5 "$DIR/$name.log"
    fail=1
    return
  fi
  lines=$(tr '\r' '\n' < "$DIR/$name.log" | grep -c '^step ')
  echo "ok   $name finished ($lines progress lines)"
}

run reference none
for rank in 0 1; do
  for rate in 0 1000; do
    run "skew_r${rank}_x${rate}" "$rank" "$rate"
    [ -f "$DIR/skew_r${rank}_x${rate}.h5" ] || continue
    if "$PY" "$CHECK" "$DIR/reference.h5" "$DIR/skew_r${rank}_x${rate}.h5"; then
      echo "ok   skew_r${rank}_x${rate}: identical to the reference"
    else
      fail=1
    fi
  done
done
# 3 ranks, the last one's clock fast: compared with a 3-rank run of true clocks (rank counts
# change the reductions' rounding)
run reference3 none none 3
run skew3_r2_x1000 2 1000 3
if [ -f "$DIR/skew3_r2_x1000.h5" ] && "$PY" "$CHECK" "$DIR/reference3.h5" "$DIR/skew3_r2_x1000.h5"; then
  echo "ok   skew3_r2_x1000: identical to the reference on 3 ranks"
else
  fail=1
fi
# negative control: the comparison must see a change of the model
"$MPIEXEC" -n 2 "$TSMECH" $ARGS -cloth_k 1000.001 -output "$DIR/control.h5" > "$DIR/control.log" 2>&1
if "$PY" "$CHECK" "$DIR/reference.h5" "$DIR/control.h5" > /dev/null 2>&1; then
  echo "FAIL: the comparison accepted a run with another spring stiffness"
  fail=1
else
  echo "ok   negative control: a run with another stiffness differs"
fi
exit $fail
