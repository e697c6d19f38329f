#!/bin/sh
# rank_error.py on 2 and 3 ranks: a Python exception on one rank ends the job within seconds with
# that rank's traceback (examples/python/tsmech.py's excepthook); a model error on one rank is
# raised on every rank (MechSystemAgree()), each prints it and the program ends with status 3.
#   rank_error.sh PYTHON MPIEXEC LIBTSMECH EXAMPLES_DIR SCRIPT
set -u
python=$1 mpiexec=$2 lib=$3 examples=$4 script=$5
out=$(mktemp "${TMPDIR:-/tmp}/tsmech-rankerr.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT
fail() { cat "$out"; echo "FAILED: $*"; exit 1; }
for n in 2 3; do
  last=$((n - 1))
  start=$(date +%s)
  TSMECH_EXAMPLES=$examples timeout 60 "$mpiexec" -n $n "$python" "$script" "$lib" monitor >"$out" 2>&1
  status=$? elapsed=$(( $(date +%s) - start ))
  echo "monitor raising on rank $last of $n: status $status after $elapsed s"
  [ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "status $status"
  [ "$elapsed" -le 15 ] || fail "$elapsed s"
  grep -q "\[rank $last\] uncaught exception" "$out" || fail "no traceback of rank $last"
  grep -q "monitor: bad value on rank $last" "$out" || fail "no message of rank $last"
  start=$(date +%s)
  TSMECH_EXAMPLES=$examples timeout 60 "$mpiexec" -n $n "$python" "$script" "$lib" model >"$out" 2>&1
  status=$? elapsed=$(( $(date +%s) - start ))
  echo "model failing on rank $last of $n: status $status after $elapsed s"
  [ "$status" -eq 3 ] || fail "status $status, expected 3"
  [ "$elapsed" -le 15 ] || fail "$elapsed s"
  [ "$(grep -c "ts.solve raised PETSc error" "$out")" -eq $n ] || fail "not every rank raised"
  grep -q "every rank raised the model's error" "$out" || fail "no barrier after the error"
done
echo "rank errors from Python: OK"
