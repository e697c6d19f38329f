#!/bin/bash
# Runs the tsmech programs of two builds on the same set of runs and requires bitwise the same
# /fields and /monitor (tests/reliability/same_results.py): the check that a refactoring changed
# no result. Each run writes an output, some a checkpoint that a second run restarts from.
#
#   tools/same_results.sh OLD_BUILD_DIR NEW_BUILD_DIR [WORKDIR]
set -u
old=$1 new=$2 work=${3:-$(mktemp -d)}
here=$(cd "$(dirname "$0")/.." && pwd)
same="/usr/bin/python3 $here/tests/reliability/same_results.py"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
runs='chain_mid|1|-model chain -ts_max_steps 40
chain_cn2|2|-model chain -ts_type cn2 -ts_max_steps 40
chain_theta|2|-model chain -ts_type theta2 -ts_theta_theta 0.6 -ts_theta_endpoint -ts_max_steps 40
chain_lin|2|-model chain -ts_type beuler2 -ts_theta_linearized -ts_theta_linearized_guess extrapolate -ts_max_steps 40|-ts_max_steps 60
chain_restart|2|-model chain -ts_type theta2 -ts_theta_theta 0.7 -ts_theta_initial_guess_extrapolate -ts_max_steps 40|-ts_max_steps 55
chain_extra|1|-model chain -ts_type midpoint2 -ts_theta_initial_guess_extrapolate -ts_max_steps 40
chain_euler2|1|-model chain -ts_type euler2 -ts_dt 1e-4 -ts_max_steps 40
chain_sym|2|-model chain -ts_type symeuler2 -ts_dt 1e-4 -ts_max_steps 40
chain_alpha2|2|-model chain -ts_type alpha2 -ts_max_steps 40
chain_pcn|2|-model chain -ts_type cn -ts_max_steps 40
chain_adapt|1|-model chain -ts_type beuler2 -ts_adapt_type basic -ts_max_time 0.2|-ts_max_time 0.3
kepler_adapt|1|-model kepler -ts_type theta2 -ts_theta_theta 0.6 -ts_adapt_type basic -ts_max_time 3
pair|1|-model pair -ts_type cn2 -ts_max_steps 40
osc|1|-model oscillator -ts_type midpoint2 -ts_max_steps 40
cloth_mf|2|-model cloth -cloth_n 12 -cloth_sphere -ts_type midpoint2 -ts_theta_matrix_free -ts_max_steps 30
lattice|2|-model lattice -lattice_n 5 -ts_type cn2 -ts_max_steps 20
solid|2|-model solid -ts_type midpoint2 -ts_max_steps 10
blowup|1|-model chain -ts_type euler2 -ts_dt 0.05 -ts_max_steps 200'
# the wall-clock times and mpiexec's job names differ between any two runs
filter() { sed -e 's/[0-9.]* s wall//' -e '/Process name:/d' "$1"; }
status=0
while IFS='|' read -r name np args more; do
  for side in old new; do
    dir=$old; [ $side = new ] && dir=$new
    mkdir -p "$work/$side" && cd "$work/$side" || exit 1
    rm -f "$name.h5" "$name.xmf" "${name}_ck.h5"
    mpiexec --oversubscribe -n "$np" "$dir/tsmech" $args -quiet -output "$name.h5" -output_every 5 -checkpoint "${name}_ck.h5" -checkpoint_every 7 >"$name.log" 2>&1 </dev/null
    echo "exit $?" >>"$name.log"
    # a restart from the last checkpoint, continuing the same output further
    if [ -n "$more" ]; then
      mpiexec --oversubscribe -n "$np" "$dir/tsmech" $args $more -quiet -output "$name.h5" -output_every 5 -checkpoint "${name}_ck.h5" -restart "${name}_ck.h5" >>"$name.log" 2>&1 </dev/null
      echo "restart exit $?" >>"$name.log"
    fi
  done
  # the messages too, but the wall-clock times in them
  if ! diff <(filter "$work/old/$name.log") <(filter "$work/new/$name.log") >"$work/$name.msgdiff"; then
    echo "note  $name: the messages differ:"
    cat "$work/$name.msgdiff"
  fi
  if [ -f "$work/old/$name.h5" ] && $same "$work/old/$name.h5" "$work/new/$name.h5"; then
    echo "same  $name"
  elif [ ! -f "$work/old/$name.h5" ] && [ ! -f "$work/new/$name.h5" ]; then
    echo "same  $name (no output on either side: $(tail -2 "$work/new/$name.log" | head -1))"
  else
    echo "DIFFERENT $name"
    status=1
  fi
done <<<"$runs"
exit $status
