#!/bin/sh
# Bad parameters must stop the program with a non-zero exit code and a PETSc error message that
# names the option (or says what is missing). Each case is run with its own stderr captured.
# usage: bad_params.sh <bad_params> <dll_client> <path to libtsmech.so>
set -u
prog=$1
client=$2
lib=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT INT TERM
failures=0
n=0

# expect_error <grep pattern (fixed string)> <command...>
expect_error() {
  pattern=$1
  shift
  n=$((n + 1))
  "$@" >"$dir/out" 2>"$dir/err"
  rc=$?
  if [ $rc -eq 0 ]; then
    echo "FAILED: exit code 0 (expected an error naming '$pattern'): $*"
    cat "$dir/out" "$dir/err"
    failures=$((failures + 1))
  elif ! grep -F -q -e "$pattern" "$dir/err"; then
    echo "FAILED: exit code $rc but the error does not contain '$pattern': $*"
    cat "$dir/err"
    failures=$((failures + 1))
  else
    echo "ok (exit $rc): $* -> $(grep -F -m1 -e "$pattern" "$dir/err")"
  fi
}

# expect_success <command...>: the same program runs with good parameters (positive controls)
expect_success() {
  n=$((n + 1))
  if "$@" >"$dir/out" 2>"$dir/err"; then
    echo "ok (exit 0): $*"
  else
    echo "FAILED: a valid run failed: $*"
    cat "$dir/out" "$dir/err"
    failures=$((failures + 1))
  fi
}

expect_success "$prog" -ts_type theta2 -ts_theta_theta 0.3
expect_success "$prog" -ts_type theta2 -ts_theta_linearized -ts_theta_linearized_guess predictor
expect_success "$prog" -ts_type midpoint2 -plain
expect_success "$prog" -ts_type symeuler2
expect_success "$client" -dll_append "$lib" -ts_type midpoint2
expect_success "$prog" -ts_type gauss2 -ts_gauss2_stages 3

expect_error "-ts_theta_theta" "$prog" -ts_type theta2 -ts_theta_theta 1.5
expect_error "-ts_theta_theta" "$prog" -ts_type theta2 -ts_theta_theta -0.25
expect_error "-ts_theta_theta" "$prog" -ts_type theta2 -api_theta 1.5
expect_error "-ts_theta_theta" "$prog" -ts_type theta2 -plain -ts_theta_theta 2
expect_error "ts_theta_linearized_guess" "$prog" -ts_type theta2 -ts_theta_linearized -ts_theta_linearized_guess bogus
expect_error "ts_theta_linearized_guess" "$prog" -ts_type beuler2 -ts_theta_linearized_guess bogus
expect_error "mass matrix" "$prog" -ts_type symeuler2 -plain
expect_error "mass matrix" "$prog" -ts_type euler2 -plain
expect_error "mass matrix" "$prog" -ts_type theta2 -ts_theta_theta 0 -plain
expect_error "mass matrix" "$client" -dll_append "$lib" -ts_type symeuler2
expect_error "mass matrix" "$client" -dll_append "$lib" -ts_type euler2
expect_error "mass matrix" "$client" -dll_append "$lib" -ts_type theta2 -ts_theta_theta 0
expect_error "-ts_gauss2_stages" "$prog" -ts_type gauss2 -ts_gauss2_stages 4
expect_error "MechSystem" "$prog" -ts_type gauss2 -plain
expect_error "MechSystem" "$client" -dll_append "$lib" -ts_type gauss2

if [ $failures -ne 0 ]; then
  echo "$failures of $n checks failed"
  exit 1
fi
echo "all $n checks passed"
