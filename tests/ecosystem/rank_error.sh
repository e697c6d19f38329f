#!/bin/sh
# rank_error.py on 2 and 3 ranks: a Python exception on one rank ends the job within seconds with
# that rank's message and traceback (tsmech.solve() waits 1 s for the other ranks on its error
# path, then ends every rank); a model error on one rank, of a C model
# or of a model written in Python, is raised on every rank (MechSystemAgree()), each prints it
# (for the Python model with the exception's text) and the program ends with status 3.
#   rank_error.sh PYTHON MPIEXEC PYTHONPATH SCRIPT
set -u
python=$1 mpiexec=$2 pythonpath=$3 script=$4
out=$(mktemp "${TMPDIR:-/tmp}/tsmech-rankerr.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT
fail() { cat "$out"; echo "FAILED: $*"; exit 1; }
export PYTHONPATH=$pythonpath
for n in 2 3; do
  last=$((n - 1))
  start=$(date +%s)
  timeout 60 "$mpiexec" -n $n "$python" "$script" monitor >"$out" 2>&1
  status=$? elapsed=$(( $(date +%s) - start ))
  echo "monitor raising on rank $last of $n: status $status after $elapsed s"
  [ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "status $status"
  [ "$elapsed" -le 15 ] || fail "$elapsed s"
  grep -q "\[rank $last\] tsmech: RuntimeError: monitor: bad value on rank $last" "$out" || fail "no message of rank $last"
  grep -q "raised on this rank only" "$out" || fail "rank $last did not say the others did not follow"
  grep -q "^Traceback" "$out" || fail "no traceback of rank $last"
  grep -q "monitor: bad value on rank $last" "$out" || fail "no message of rank $last"
  for case in model python; do
    start=$(date +%s)
    timeout 60 "$mpiexec" -n $n "$python" "$script" $case >"$out" 2>&1
    status=$? elapsed=$(( $(date +%s) - start ))
    echo "$case failing on rank $last of $n: status $status after $elapsed s"
    [ "$status" -eq 3 ] || fail "status $status, expected 3"
    [ "$elapsed" -le 15 ] || fail "$elapsed s"
    [ "$(grep -o "ts.solve raised PETSc error" "$out" | wc -l)" -eq $n ] || fail "not every rank raised"
    grep -q "every rank raised the model's error" "$out" || fail "no barrier after the error"
  done
  # the Python model's message reaches every rank, and the failing rank keeps its exception
  [ "$(grep -o "Python force callback raised ValueError: bad state on rank $last" "$out" | wc -l)" -ge $n ] || fail "not every rank has the Python exception's text"
  grep -q "rank $last keeps the exception: ValueError" "$out" || fail "the failing rank lost its exception"
done
echo "rank errors from Python: OK"
