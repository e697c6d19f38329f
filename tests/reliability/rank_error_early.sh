#!/bin/sh
# A model whose tangent fails on one rank before its own assembly (a collective operation the
# other ranks then wait in): the failing rank ends the job after -mech_agree_timeout seconds with
# its message on stderr and status 3, well before the test's time limit, without a core dump.
#   rank_error_early.sh MPIEXEC TEST_RANK_ERROR
set -u
mpiexec=$1 prog=$2
out=$(mktemp "${TMPDIR:-/tmp}/tsmech-early.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT
start=$(date +%s)
"$mpiexec" -n 2 "$prog" -fail_rank 1 -early -mech_agree_timeout 2 >"$out" 2>&1
status=$?
elapsed=$(( $(date +%s) - start ))
cat "$out"
echo "status $status after $elapsed s"
[ "$status" -eq 3 ] || { echo "FAILED: status $status, expected 3"; exit 1; }
[ "$elapsed" -le 20 ] || { echo "FAILED: $elapsed s"; exit 1; }
grep -q "tsmech: error on rank 1: oscillator tangent: no value on this rank" "$out" || { echo "FAILED: no message of the failing rank"; exit 1; }
if grep -qi "segmentation\|core dumped\|signal" "$out"; then echo "FAILED: a signal"; exit 1; fi
echo "rank error before a collective: OK"
