#!/bin/sh
# The package tsmech (python/tsmech, ctypes over libtsmech.so): a model built by name from petsc4py,
# its TS and its HDF5 output (examples/python/model_from_python.py) against the tsmech program with
# the same options: the files' /fields and /monitor must agree to 1e-12 (direct solves, tight
# Newton tolerances), for a tsmech type on 3 ranks and a PETSc first-order type on 1; a run with
# another step must not (the control that the comparison can fail).
#
# Without its library (TSMECH_LIB naming a missing file) the package says so.
#
#   ctypes.sh PYTHON MPIEXEC PYTHONPATH TSMECH EXAMPLE
set -u
python=$1 mpiexec=$2 tsmech=$4 example=$5
export PYTHONPATH=$3
fail() {
  echo "FAILED: $*" >&2
  exit 1
}
work=$(mktemp -d "${TMPDIR:-/tmp}/tsmech-ctypes.XXXXXX") || fail "cannot create a directory"
trap 'rm -rf "$work"' EXIT
cd "$work" || fail "cannot enter $work"
run() {
  echo "+ $*"
  "$@" || fail "$* exited with status $?"
}
# compare A.h5 B.h5: the largest difference of /fields/q, /fields/v, /monitor/energy, relative to B's size
compare() {
  "$python" - "$1" "$2" <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
d = 0.0
for k in ("fields/q", "fields/v", "monitor/energy", "monitor/time"):
    x, y = a[k][()], b[k][()]
    if x.shape != y.shape:
        print(f"{k}: shapes {x.shape} and {y.shape}")
        sys.exit(1)
    d = max(d, float(np.max(np.abs(x - y)) / max(np.max(np.abs(y)), 1e-300)))
print(f"{sys.argv[1]} vs {sys.argv[2]}: largest relative difference {d:.3e}")
sys.exit(0 if d <= 1e-12 else 1)
PY
}
solve="-ksp_type preonly -pc_type redundant -snes_rtol 1e-14 -snes_atol 1e-12 -snes_stol 0"
common="-model chain -chain_n 20 -ts_max_steps 30 -output_every 10 $solve"

run "$mpiexec" -n 3 "$python" "$example" $common -ts_type cn2 -ts_dt 0.01 -output py_cn2.h5
run "$mpiexec" -n 1 "$tsmech" $common -ts_type cn2 -ts_dt 0.01 -output c_cn2.h5 -quiet
compare py_cn2.h5 c_cn2.h5 || fail "cn2 from Python (3 ranks) differs from the tsmech program"

run "$mpiexec" -n 1 "$python" "$example" $common -ts_type beuler -ts_dt 0.01 -output py_beuler.h5
run "$mpiexec" -n 2 "$tsmech" $common -ts_type beuler -ts_dt 0.01 -output c_beuler.h5 -quiet
compare py_beuler.h5 c_beuler.h5 || fail "PETSc's beuler on [q; v] from Python differs from the tsmech program"

run "$mpiexec" -n 1 "$tsmech" $common -ts_type cn2 -ts_dt 0.0101 -output c_other.h5 -quiet
echo "+ compare with a run of another step (must differ)"
if compare py_cn2.h5 c_other.h5; then fail "runs with different steps compare equal: the comparison proves nothing"; fi

echo "+ TSMECH_LIB=$work/none.so $python $example (no library: must fail)"
if TSMECH_LIB=$work/none.so "$python" "$example" $common >out.txt 2>&1; then fail "ran without the library"; fi
cat out.txt
grep -q "tsmech: libtsmech.so not found at $work/none.so (from TSMECH_LIB)" out.txt || fail "no clear message without the library"
echo "ecosystem ctypes: OK"
