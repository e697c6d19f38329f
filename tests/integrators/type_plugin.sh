#!/bin/sh
# A TS type of one's own loaded into the driver with -dll_append (leapfrog2.c, registered by its
# PetscDLLibraryRegister_leapfrog2() with TSMechRegister()): the driver lists it in -help with its
# description, refuses its option given without a value (exit 2, no file) and runs it. Nothing of
# the driver names the type: it reads the registered types (TSMechGetTypeNames(),
# TSMechGetValuedOptions()).
# usage: type_plugin.sh mpiexec path/to/tsmech path/to/libleapfrog2.so
set -u
# absolute paths: the runs are made in a scratch directory
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
MPIEXEC=$1
TSMECH=$(abs "$2")
PLUGIN=$(abs "$3")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
run() { (cd "$tmp" && "$MPIEXEC" -n 2 "$TSMECH" -dll_append "$PLUGIN" "$@") > "$tmp/out" 2>&1; }

if run -help -model oscillator; then
  if ! grep -q "^TS types (-ts_type): theta2, .*, discgrad2, static2, leapfrog2, alpha2, or PETSc's first-order types$" "$tmp/out"; then
    echo "FAIL -help: leapfrog2 is not in the line of TS types"; grep "^TS types" "$tmp/out"; fail=1
  elif ! grep -q "^  leapfrog2: Stormer-Verlet (leapfrog) in velocity form, explicit, order 2$" "$tmp/out"; then
    echo "FAIL -help: leapfrog2's description is missing"; fail=1
  else
    echo "ok   -help lists leapfrog2 with its description"
  fi
else
  echo "FAIL -help: exit code"; cat "$tmp/out"; fail=1
fi

run -model oscillator -ts_type leapfrog2 -ts_leapfrog2_substeps -ts_max_steps 10 -output run.h5
status=$?
if [ "$status" -ne 2 ]; then
  echo "FAIL -ts_leapfrog2_substeps without a value: exit $status, expected 2"; cat "$tmp/out"; fail=1
elif ! grep -q "^tsmech: error: -ts_leapfrog2_substeps: needs a value" "$tmp/out" || [ "$(grep -c "^tsmech" "$tmp/out")" -ne 1 ] || grep -q "PETSC ERROR" "$tmp/out"; then
  echo "FAIL -ts_leapfrog2_substeps without a value: not the one-line message"; cat "$tmp/out"; fail=1
elif [ -e "$tmp/run.h5" ]; then
  echo "FAIL -ts_leapfrog2_substeps without a value: the output was created"; fail=1
else
  echo "ok   -ts_leapfrog2_substeps without a value refused"
fi

if run -model oscillator -ts_type leapfrog2 -ts_leapfrog2_substeps 2 -ts_dt 0.01 -ts_max_steps 10 -output run.h5; then
  if ! grep -q "^tsmech: .* 10 steps" "$tmp/out" || [ ! -s "$tmp/run.h5" ]; then
    echo "FAIL leapfrog2 run: no summary line or no output"; cat "$tmp/out"; fail=1
  else
    echo "ok   leapfrog2 runs in the driver"
  fi
else
  echo "FAIL leapfrog2 run: exit code"; cat "$tmp/out"; fail=1
fi
exit $fail
