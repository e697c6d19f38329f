#!/bin/sh
# Checkpoints of a solid with loads (src/models/solid/loads.c): a run stopped after step 23 and
# restarted to step 40 is bit for bit the uninterrupted run on the same ranks (2), and agrees to
# 1e-10 restarted on 1 and 3; a restart with another load, another time function or without the
# loads is refused naming the load and what changed (the checkpoint records each load's value,
# faces and time function: load_NAME, load_NAME_faces, load_NAME_time; records.c).
#
#   run_checkpoint.sh TSMECH MPIEXEC PYTHON CHECK_CHECKPOINT_PY WORKDIR
set -u
exe=$1 mpiexec=$2 python=$3 checkpy=$4 work=$5
check="$python $checkpy"
solve="-ksp_type preonly -pc_type redundant -snes_rtol 1e-14 -snes_atol 1e-12 -snes_stol 0"
loads="-solid_load tip,side -solid_load_tip_where x=1 -solid_load_tip_pressure 2e4 -solid_load_tip_time hat:2e-3,4e-3 -solid_load_side_where z=0.1 -solid_load_side_traction 0,1e4,-5e3 -solid_load_side_time sin:2000"
opts="-model solid -solid_beam_cells 4,1,1 -ts_dt 1e-4 $solve"

fail() {
  echo "FAILED: $*" >&2
  exit 1
}
tsmech() {
  np=$1
  shift
  echo "+ $mpiexec -n $np $exe -quiet $*"
  "$mpiexec" -n "$np" "$exe" -quiet "$@" </dev/null || fail "tsmech $*"
}
must_fail() {
  pat=$1 np=$2
  shift 2
  echo "+ $mpiexec -n $np $exe $* (must fail saying: $pat)"
  if "$mpiexec" -n "$np" "$exe" -quiet "$@" </dev/null >log.txt 2>&1; then
    cat log.txt
    fail "tsmech $* succeeded"
  fi
  cat log.txt
  grep -E "$pat" log.txt >/dev/null || fail "tsmech $* did not say: $pat"
}
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
tsmech 2 $opts $loads -ts_max_steps 40 -checkpoint ref.h5
tsmech 2 $opts $loads -ts_max_steps 23 -checkpoint ck.h5
cp ck.h5 ck23.h5
tsmech 2 $opts $loads -ts_max_steps 40 -checkpoint ck.h5 -restart ck.h5
$check same ref.h5 ck.h5 || fail "the restart on the same ranks is not bit for bit the uninterrupted run"
for np in 1 3; do
  cp ck23.h5 ck$np.h5
  tsmech $np $opts $loads -ts_max_steps 40 -checkpoint ck$np.h5 -restart ck$np.h5
  $check same ref.h5 ck$np.h5 --rtol 1e-10 || fail "the restart on $np ranks differs from the run on 2 by more than 1e-10"
done
must_fail "load_tip = pressure 20000, this run has load_tip = pressure 30000" 2 $opts $(echo "$loads" | sed 's/pressure 2e4/pressure 3e4/') -ts_max_steps 40 -restart ck23.h5
must_fail "load_tip_time = hat:2e-3,4e-3, this run has load_tip_time = hat:2e-3,5e-3" 2 $opts $(echo "$loads" | sed 's/hat:2e-3,4e-3/hat:2e-3,5e-3/') -ts_max_steps 40 -restart ck23.h5
must_fail "load_side_faces = -solid_load_side_where z=0.1: 8 faces .*, this run has load_side_faces = -solid_load_side_where y=0.1: 8 faces" 2 $opts $(echo "$loads" | sed 's/where z=0.1/where y=0.1/') -ts_max_steps 40 -restart ck23.h5
must_fail "model parameter load_tip" 2 $opts -ts_max_steps 40 -restart ck23.h5
echo "checkpoints with loads: all checks passed"
