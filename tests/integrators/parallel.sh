#!/bin/sh
# Runs test_parallel on 1 rank to write a reference, compares runs on 2 and 3 ranks with it, and
# checks that the comparison rejects a slightly different model (-chain_k changed by 1e-6
# relative), so that a comparison that accepts anything cannot pass.
# usage: parallel.sh <mpiexec> <test_parallel>
set -u
mpiexec=$1
exe=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT INT TERM
ref="$dir/reference.txt"

run() {
  echo "+ mpiexec -n $*"
  "$mpiexec" -n "$@"
}

run 1 "$exe" -ref "$ref" -write || { echo "FAILED: reference run on 1 rank"; exit 1; }
for n in 2 3; do
  run "$n" "$exe" -ref "$ref" || { echo "FAILED: the run on $n ranks differs from the run on 1 rank"; exit 1; }
done
if run 2 "$exe" -ref "$ref" -chain_k 1000.001 >"$dir/control.log" 2>&1; then
  cat "$dir/control.log"
  echo "FAILED: the comparison accepted a run with a different spring stiffness"
  exit 1
fi
grep 'relative difference' "$dir/control.log"
echo "negative control: a run with -chain_k 1000.001 was rejected, as it must be"
echo "all rank checks passed"
