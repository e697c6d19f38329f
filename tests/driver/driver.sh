#!/bin/sh
# The tsmech program: every config runs (briefly) on 2 ranks; bad input gives a clear message
# naming the option, a non-zero exit, and no output file.
# usage: driver.sh path/to/tsmech path/to/config
set -u
TSMECH=$1
CONFIG=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
run() { mpiexec -n 2 "$TSMECH" "$@" > "$tmp/out" 2>&1; }

for cfg in "$CONFIG"/*.opts; do
  name=$(basename "$cfg" .opts)
  # a quasi-static configuration takes the whole run as one step unless given a step
  step=""
  grep -q "^-ts_type static2" "$cfg" && step="-ts_dt 0.2"
  if run -options_file "$cfg" -ts_max_steps 5 $step -output "$tmp/$name.h5" -output_every 2; then
    grep -q "^tsmech: .* 5 steps" "$tmp/out" || { echo "FAIL $name: no summary line"; cat "$tmp/out"; fail=1; }
    [ -s "$tmp/$name.h5" ] || { echo "FAIL $name: no output file"; fail=1; }
    echo "ok   $name"
  else
    echo "FAIL $name: exit code"; cat "$tmp/out"; fail=1
  fi
done

# -help: prints every option (the models among the choices of -model) and exits 0 without
# running or writing anything
if run -help -model chain -output "$tmp/help.h5" -checkpoint "$tmp/helpck.h5"; then
  if ! grep -q -- "-model <now chain.*oscillator pair chain kepler cloth lattice solid" "$tmp/out"; then
    echo "FAIL -help: the choices of -model are not listed"; fail=1
  elif ! grep -q -- "-chain_n" "$tmp/out" || ! grep -q -- "-ts_theta_matrix_free" "$tmp/out"; then
    echo "FAIL -help: the model's or the integrator's options are missing"; fail=1
  elif grep -q "^tsmech: midpoint2" "$tmp/out" || [ -e "$tmp/help.h5" ] || [ -e "$tmp/helpck.h5" ]; then
    echo "FAIL -help: a run was made or a file written"; fail=1
  else
    echo "ok   -help lists the options and runs nothing"
  fi
else
  echo "FAIL -help: exit code"; fail=1
fi

# -help lists the TS types as their registration describes them (TSMechGetTypeNames()): tsmech's
# 8 (at least) in one line, then one line each
if run -help -model chain; then
  types=$(grep "^TS types (-ts_type): .*, alpha2, or PETSc's first-order types$" "$tmp/out" | sed 's/^TS types (-ts_type)://')
  missing=""
  for t in theta2 beuler2 cn2 midpoint2 euler2 symeuler2 gauss2 discgrad2; do
    case "$types," in *" $t,"*) ;; *) missing="$missing $t" ;; esac
  done
  if [ -z "$types" ] || [ -n "$missing" ]; then
    echo "FAIL -help: the line of the registered TS types lacks:${missing:- the line}"; fail=1
  elif ! grep -q "^  gauss2: Gauss-Legendre collocation" "$tmp/out" || ! grep -q "^  discgrad2: discrete gradient" "$tmp/out"; then
    echo "FAIL -help: the types' descriptions are missing"; fail=1
  else
    echo "ok   -help lists the registered TS types"
  fi
else
  echo "FAIL -help (types): exit code"; fail=1
fi

# bad input: expected words in the message, non-zero exit, no output file created
bad() {
  expect=$1; shift
  rm -f "$tmp/bad.h5"
  if run "$@" -output "$tmp/bad.h5"; then
    echo "FAIL: '$*' exited 0"; fail=1
  elif ! grep -q -- "$expect" "$tmp/out"; then
    echo "FAIL: '$*' message lacks '$expect'"; cat "$tmp/out"; fail=1
  elif [ -e "$tmp/bad.h5" ]; then
    echo "FAIL: '$*' created the output file"; fail=1
  else
    echo "ok   refused: $*"
  fi
}
bad "-model" -model bogus
bad "-output_every" -model chain -output_every 0
bad "-ts_dt" -model chain -ts_dt -1
bad "-ts_theta_theta" -model chain -ts_type theta2 -ts_theta_theta 1.5
bad "-chain_n" -model chain -chain_n 1
bad "-ts_theta_linearized_guess" -model chain -ts_type theta2 -ts_theta_linearized -ts_theta_linearized_guess bogus
# the types' own options that take a value (TSMechGetValuedOptions()), given without one
bad "-ts_gauss2_pc_rebuild_growth: needs a value" -model chain -ts_type gauss2 -ts_gauss2_pc_rebuild_growth
bad "-ts_discgrad2_ew_safeguard: needs a value" -model chain -ts_type discgrad2 -ts_discgrad2_ew_safeguard
bad "-ts_theta_ne_rtol: needs a value" -model chain -ts_type midpoint2 -ts_theta_ne_rtol
bad "-ts_alpha_beta: needs a value" -model chain -ts_type alpha2 -ts_alpha_beta
# PCMG's own Galerkin products (TSALPHA2's) have no BAIJ version: refused at set-up with the reason
bad "-dm_mat_type baij with -pc_type mg" -model cloth -cloth_n 16 -ts_type alpha2 -ksp_type cg -pc_type mg -dm_mat_type baij
exit $fail
