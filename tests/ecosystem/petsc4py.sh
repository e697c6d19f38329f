#!/bin/sh
# The petsc4py example (examples/python/spring_chain.py) against the built libtsmech.so: every
# form of loading it that docs/python.md shows (-chain_dll_only: without the package tsmech, the
# plain PETSc plug-in way; and through the package), on 1 and 3 ranks, each run asserting that the tsmech
# type agrees with PETSc's own first-order type to 1e-8; and the controls: without the library
# (and with the library named only after initialization) the tsmech types are not there and the
# program fails; with a tolerance no computation meets (1e-30) the comparison fails.
#
#   petsc4py.sh PYTHON MPIEXEC LIBTSMECH EXAMPLE
set -u
python=$1 mpiexec=$2 lib=$3 example=$4

fail() {
  echo "FAILED: $*" >&2
  exit 1
}
out=$(mktemp) || fail "cannot create a temporary file"
trap 'rm -f "$out"' EXIT

# must_pass DESCRIPTION COMMAND...: exit 0 and the agreement line
must_pass() {
  what=$1
  shift
  echo "+ $*"
  "$@" >"$out" 2>&1
  status=$?
  cat "$out"
  [ $status -eq 0 ] || fail "$what: exit status $status"
  grep -q "agrees with PETSc's .* to .*(-chain_rtol 1e-08)" "$out" || fail "$what: no agreement line"
}
# must_fail DESCRIPTION MESSAGE COMMAND...: a non-zero exit and the message
must_fail() {
  what=$1 msg=$2
  shift 2
  echo "+ $* (must fail)"
  "$@" >"$out" 2>&1
  status=$?
  cat "$out"
  [ $status -ne 0 ] || fail "$what: exit status 0"
  grep -q "$msg" "$out" || fail "$what: no message '$msg'"
}

short="-chain_steps 40"
must_pass "midpoint2, 1 rank, -dll_append" "$mpiexec" -n 1 "$python" "$example" -chain_dll_only -dll_append "$lib"
must_pass "midpoint2, 3 ranks, -dll_append" "$mpiexec" -n 3 "$python" "$example" -chain_dll_only -dll_append "$lib" $short
must_pass "cn2, 3 ranks" "$mpiexec" -n 3 "$python" "$example" -chain_dll_only -dll_append "$lib" -chain_type cn2 $short
must_pass "beuler2, 1 rank" "$mpiexec" -n 1 "$python" "$example" -chain_dll_only -dll_append "$lib" -chain_type beuler2 $short
must_pass "PETSC_OPTIONS" env PETSC_OPTIONS="-dll_append $lib" "$python" "$example" -chain_dll_only -chain_type cn2 $short
# the package: the build tree's copy, found by the example itself, and TSMECH_LIB naming the library
must_pass "import tsmech, 3 ranks" "$mpiexec" -n 3 "$python" "$example" -chain_type cn2 $short
must_pass "TSMECH_LIB" env TSMECH_LIB="$lib" "$python" "$example" -chain_type beuler2 $short

must_fail "without the library" "TS type midpoint2 is not registered" "$python" "$example" -chain_dll_only $short
must_fail "tolerance 1e-30" "midpoint2 differs from PETSc's theta (theta 0.5) by" "$python" "$example" $short -chain_rtol 1e-30
must_fail "bad -chain_type" "chain_type euler2: allowed are" "$python" "$example" -chain_type euler2

# docs/python.md's warning: an option set after initialization does not load the library.
echo "+ PETSc.Options().setValue('dll_append', ...) after petsc4py.init() (the types must stay unknown)"
"$python" - "$lib" <<'EOF' || fail "a library named after initialization was loaded, or the check failed"
import sys
import petsc4py
petsc4py.init([])
from petsc4py import PETSc
PETSc.Options().setValue("dll_append", sys.argv[1])
ts = PETSc.TS().create()
try:
    ts.setType("midpoint2")
except PETSc.Error:
    print("as documented: midpoint2 is unknown when -dll_append is set after initialization")
    sys.exit(0)
print("midpoint2 was registered by a late -dll_append")
sys.exit(1)
EOF
echo "ecosystem petsc4py: OK"
