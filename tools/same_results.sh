#!/bin/bash
# Runs the tsmech programs of two builds on the same set of runs and requires bitwise the same
# /fields and /monitor (tests/reliability/same_results.py): the check that a refactoring changed
# no result. Each run writes an output, some a checkpoint that a second run restarts from.
#
#   tools/same_results.sh OLD_BUILD_DIR NEW_BUILD_DIR [WORKDIR]
#
# SAME_RUNS (name|ranks|options|restart options, one run a line) replaces the run list below
# (tools/same_solid.sh: the solid's element kinds, materials, loads and constraints).
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
blowup|1|-model chain -ts_type euler2 -ts_dt 0.05 -ts_max_steps 200
cloth_asm|2|-model cloth -cloth_n 12 -cloth_sphere -ts_type midpoint2 -ts_max_steps 30 -ksp_type cg -pc_type jacobi
cloth_asm_def|2|-ts_view -model cloth -cloth_n 12 -cloth_sphere -ts_type midpoint2 -ts_theta_pc_definite -ts_max_steps 30 -ksp_type cg -pc_type bjacobi -sub_pc_type icc
cloth_mf_def|2|-model cloth -cloth_n 12 -cloth_sphere -ts_type cn2 -ts_theta_matrix_free -ts_theta_pc_definite -ts_max_steps 30 -ksp_type cg -pc_type bjacobi -sub_pc_type icc
cloth_mf_red|2|-ts_view -model cloth -cloth_n 12 -ts_type midpoint2 -ts_theta_matrix_free -ts_theta_pc_reduced -ts_theta_pc_definite -ts_max_steps 30 -ksp_type cg -pc_type jacobi|-ts_max_steps 40
cloth_mf_grow0|1|-model cloth -cloth_n 12 -ts_type beuler2 -ts_theta_matrix_free -ts_theta_pc_rebuild_growth 0 -ts_max_steps 20 -ksp_type cg
cloth_ew|2|-ts_view -options_file CONFIG/cloth.opts -cloth_n 16 -ts_max_steps 40 -ts_theta_initial_guess_extrapolate|-ts_max_steps 50
cloth_ew_off|1|-options_file CONFIG/cloth.opts -cloth_n 16 -ts_max_steps 30 -ts_theta_ew_safeguard 0
cloth_mg_lag|2|-ts_view -model cloth -cloth_n 32 -ts_type midpoint2 -ts_theta_matrix_free -ts_theta_initial_guess_extrapolate -snes_ksp_ew -ksp_type cg -pc_type mg -mg_levels_ksp_type chebyshev -mg_levels_pc_type pbjacobi -mg_levels_ksp_max_it 1 -mg_levels_esteig_ksp_type cg -mg_levels_ksp_chebyshev_esteig_steps 5 -ts_max_steps 25
cloth_mg_nolag|1|-model cloth -cloth_n 32 -ts_type midpoint2 -ts_theta_matrix_free -ts_theta_pc_lag_coarse 0 -ksp_type cg -pc_type mg -mg_levels_ksp_type chebyshev -mg_levels_pc_type pbjacobi -ts_max_steps 15
cloth_mg_asm|1|-model cloth -cloth_n 32 -ts_type cn2 -ksp_type cg -pc_type mg -mg_levels_ksp_type chebyshev -mg_levels_pc_type pbjacobi -ts_max_steps 10
cloth_ne|2|-ts_view -model cloth -cloth_n 24 -ts_type midpoint2 -ts_theta_matrix_free -ts_theta_ne -ts_theta_initial_guess_extrapolate -ksp_type cg -pc_type bjacobi -sub_pc_type icc -ts_max_steps 20|-ts_max_steps 26
cloth_ne_depth|1|-model cloth -cloth_n 16 -ts_type cn2 -ts_theta_ne_depth 3 -ksp_type cg -pc_type jacobi -ts_max_steps 20
chain_ne|2|-model chain -chain_n 60 -ts_type beuler2 -ts_theta_ne -ts_max_steps 30
lattice_mf|2|-options_file CONFIG/lattice.opts -lattice_n 6 -ts_max_steps 20
lattice_red|1|-model lattice -lattice_n 5 -ts_type midpoint2 -ts_theta_matrix_free -ts_theta_pc_reduced -ksp_type cg -pc_type jacobi -ts_max_steps 15
solid_mf|2|-ts_view -options_file CONFIG/solid.opts -solid_beam_cells 8,2,2 -ts_max_steps 8
solid_asm_def|1|-model solid -solid_material svk -ts_type cn2 -ts_theta_pc_definite -ksp_type cg -pc_type gamg -ts_max_steps 6
kepler_cfg|1|-options_file CONFIG/kepler.opts -ts_max_steps 300|-ts_max_steps 400
osc_lin_zero|1|-ts_view -model oscillator -ts_type beuler2 -ts_theta_linearized -ts_theta_linearized_guess zero -ts_max_steps 40
osc_lin_pred|1|-model oscillator -ts_type theta2 -ts_theta_theta 0.7 -ts_theta_linearized -ts_theta_linearized_guess predictor -ts_max_steps 40
chain_lin_pz|2|-model chain -ts_type cn2 -ts_theta_linearized -ts_theta_linearized_guess predictor_zero -ts_max_steps 40
chain_lin_pe|2|-model chain -ts_type midpoint2 -ts_theta_linearized -ts_theta_linearized_guess predictor_extrapolate -ts_max_steps 40|-ts_max_steps 50
cloth_lin_mf|2|-model cloth -cloth_n 12 -ts_type beuler2 -ts_theta_linearized -ts_theta_matrix_free -ts_theta_pc_reduced -ksp_type cg -pc_type jacobi -ts_max_steps 20
pair_adapt|1|-model pair -ts_type midpoint2 -ts_adapt_type basic -ts_theta_initial_guess_extrapolate -ts_max_time 2
cloth_adapt|2|-model cloth -cloth_n 12 -ts_type midpoint2 -ts_theta_matrix_free -ts_adapt_type basic -ksp_type cg -ts_max_time 0.05|-ts_max_time 0.08
chain_theta0|1|-ts_view -model chain -ts_type theta2 -ts_theta_theta 0 -ts_dt 1e-4 -ts_max_steps 40'
runs=${SAME_RUNS:-$runs}
# the wall-clock times and mpiexec's job names differ between any two runs
filter() { sed -e 's/[0-9.]* s wall//' -e '/Process name:/d' "$1"; }
status=0 count=0 differ=0 notes=0
while IFS='|' read -r name np args more; do
  for side in old new; do
    dir=$old; [ $side = new ] && dir=$new
    mkdir -p "$work/$side" && cd "$work/$side" || exit 1
    rm -f "$name.h5" "$name.xmf" "${name}_ck.h5"
    args=${args//TESTS/$here/tests}
    mpiexec --oversubscribe -n "$np" "$dir/tsmech" ${args//CONFIG/$here/config} -quiet -output "$name.h5" -output_every 5 -checkpoint "${name}_ck.h5" -checkpoint_every 7 >"$name.log" 2>&1 </dev/null
    echo "exit $?" >>"$name.log"
    # a restart from the last checkpoint, continuing the same output further
    if [ -n "$more" ]; then
      mpiexec --oversubscribe -n "$np" "$dir/tsmech" ${args//CONFIG/$here/config} $more -quiet -output "$name.h5" -output_every 5 -checkpoint "${name}_ck.h5" -restart "${name}_ck.h5" >>"$name.log" 2>&1 </dev/null
      echo "restart exit $?" >>"$name.log"
    fi
  done
  # the messages too, but the wall-clock times in them
  # (sorted: mpiexec interleaves stdout and stderr in no fixed order)
  if ! diff <(filter "$work/old/$name.log" | sort) <(filter "$work/new/$name.log" | sort) >"$work/$name.msgdiff"; then
    echo "note  $name: the messages differ:"
    notes=$((notes + 1))
    cat "$work/$name.msgdiff"
  fi
  if [ -f "$work/old/$name.h5" ] && $same "$work/old/$name.h5" "$work/new/$name.h5"; then
    echo "same  $name"
  elif [ ! -f "$work/old/$name.h5" ] && [ ! -f "$work/new/$name.h5" ]; then
    echo "same  $name (no output on either side: $(tail -2 "$work/new/$name.log" | head -1))"
  else
    echo "DIFFERENT $name"
    differ=$((differ + 1))
    status=1
  fi
  count=$((count + 1))
done <<<"$runs"
# a plain I2Function/I2Jacobian without a MechSystem (the Jacobian through TSComputeI2Jacobian()):
# tests/integrators/dll_client loads each build's library; its last solution is compared
client=$new/tests/integrators/dll_client
plain='-ts_type cn2
-ts_type midpoint2 -ts_theta_initial_guess_extrapolate -snes_ksp_ew
-ts_type beuler2 -ts_theta_linearized -ts_theta_linearized_guess predictor -expected_order 1
-ts_type theta2 -ts_theta_theta 0.7 -ts_theta_endpoint -expected_order 1'
if [ -x "$client" ]; then
  while read -r args; do
    for side in old new; do
      dir=$old; [ $side = new ] && dir=$new
      "$client" -dll_append "$dir/libtsmech.so" $args -ts_view_solution "binary:$work/$side/plain.bin" >"$work/$side/plain.log" 2>&1 </dev/null
    done
    if cmp -s "$work/old/plain.bin" "$work/new/plain.bin" && [ -s "$work/new/plain.bin" ]; then
      echo "same  plain I2Function: $args"
    else
      echo "DIFFERENT plain I2Function: $args"
      differ=$((differ + 1))
      status=1
    fi
    count=$((count + 1))
  done <<<"$plain"
fi
echo "$count runs: $((count - differ)) bitwise the same, $differ different; messages differ in $notes"
exit $status
