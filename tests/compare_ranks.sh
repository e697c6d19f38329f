#!/bin/sh
# Runs a test program on 1 rank to write a reference, compares runs on 2 and 3 ranks with it, and
# checks that the comparison rejects a run of a slightly different model (-chain_k changed by
# 1e-6 relative), so that a comparison that accepts anything cannot pass.
# usage: compare_ranks.sh <mpiexec> <program> <reference file option> <write option>
#   e.g. compare_ranks.sh mpiexec test_ranks -ranks_ref_file -ranks_write
set -u
mpiexec=$1
exe=$2
refopt=$3
writeopt=$4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT INT TERM
ref="$dir/reference"

run() {
  echo "+ mpiexec -n $*"
  "$mpiexec" -n "$@"
}

run 1 "$exe" "$refopt" "$ref" "$writeopt" || { echo "FAILED: reference run on 1 rank"; exit 1; }
for n in 2 3; do
  run "$n" "$exe" "$refopt" "$ref" || { echo "FAILED: the run on $n ranks differs from the run on 1 rank"; exit 1; }
done
if run 2 "$exe" "$refopt" "$ref" -chain_k 1000.001 >"$dir/control.log" 2>&1; then
  cat "$dir/control.log"
  echo "FAILED: the comparison accepted a run with a different spring stiffness"
  exit 1
fi
grep 'relative difference' "$dir/control.log"
echo "negative control: a run with -chain_k 1000.001 was rejected, as it must be"
echo "all rank checks passed"
