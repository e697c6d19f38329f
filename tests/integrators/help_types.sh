#!/bin/sh
# The Newton object's options under -help are those the type honours, in its words
# (TSMechNewtonSetType(), src/ts/newton2.c): theta2 and midpoint2 list nonlinear elimination
# (-ts_theta_ne*), the lagged coarse levels and "theta tau"; gauss2 lists neither elimination nor
# pc_lag_coarse, names no theta and no TSTheta2 function, and lists its direct mode; discgrad2 lists
# pc_lag_coarse but no elimination and no theta. The options a type does not honour are refused
# with exit 2 and a line naming them, not ignored; so are a negative -ts_gauss2_direct_max and
# -gauss2_pc_type none in the direct mode.
# usage: help_types.sh <tsmech>
set -u
tsmech=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT INT TERM
failures=0

fail() {
  echo "FAILED: $*"
  failures=$((failures + 1))
}

# help <type>: the lines of the type's own options (prefix -ts_theta_, -ts_gauss2_, -ts_discgrad2_) in $dir/<type>
help() {
  t=$1
  case $t in
  gauss2) p=-ts_gauss2_ ;;
  discgrad2) p=-ts_discgrad2_ ;;
  *) p=-ts_theta_ ;;
  esac
  (cd "$dir" && "$tsmech" -model kepler -ts_type "$t" -help >"$dir/$t.all" 2>&1) || fail "-ts_type $t -help: exit code $?"
  grep -e "^ *$p" "$dir/$t.all" >"$dir/$t"
  [ -s "$dir/$t" ] || fail "-ts_type $t -help lists no $p option: the checks below would prove nothing"
  echo "-ts_type $t -help: $(wc -l <"$dir/$t") options $p*"
}

# has <type> <fixed string> / hasnot <type> <extended regexp>
has() { grep -F -q -e "$2" "$dir/$1" || fail "-ts_type $1 -help does not list '$2'"; }
hasnot() {
  if grep -E -i -e "$2" "$dir/$1" >"$dir/hit"; then
    fail "-ts_type $1 -help lists '$2':"
    cat "$dir/hit"
  fi
}

for t in theta2 midpoint2; do
  help $t
  has $t "-ts_theta_ne:"
  has $t "-ts_theta_ne_depth"
  has $t "-ts_theta_pc_lag_coarse"
  has $t "theta tau"
  has $t "(TSMechSetMatrixFree)"
done

help gauss2
hasnot gauss2 "-ts_gauss2_ne"
hasnot gauss2 "lag_coarse"
hasnot gauss2 "theta|TSTheta2"
has gauss2 "-ts_gauss2_matrix_free"
has gauss2 "-ts_gauss2_pc_reduced"
has gauss2 "-ts_gauss2_ew_safeguard"
has gauss2 "-ts_gauss2_direct_max"
has gauss2 "preconditioner's blocks"

help discgrad2
hasnot discgrad2 "-ts_discgrad2_ne"
hasnot discgrad2 "theta|TSTheta2"
has discgrad2 "-ts_discgrad2_pc_lag_coarse"
has discgrad2 "until tau changes"

# refused, not ignored: exit 2, one line naming the option, no output file
refuse() {
  opt=$1
  shift
  (cd "$dir" && "$tsmech" -model chain -ts_max_steps 2 -output refused.h5 "$@" >"$dir/out" 2>"$dir/err")
  rc=$?
  if [ $rc -ne 2 ] || ! grep -F -q -e "$opt: not an option of" "$dir/err" || [ -e "$dir/refused.h5" ]; then
    fail "$*: exit $rc (expected 2, a line naming $opt, no output file)"
    cat "$dir/err"
  else
    echo "ok (exit 2): $* -> $(head -n 1 "$dir/err")"
  fi
}
refuse -ts_gauss2_ne_rtol -ts_type gauss2 -ts_gauss2_ne_rtol 0.1
refuse -ts_gauss2_pc_lag_coarse -ts_type gauss2 -ts_gauss2_pc_lag_coarse 0
refuse -ts_discgrad2_ne_max_it -ts_type discgrad2 -ts_discgrad2_ne_max_it 2
# gauss2's own checks at set-up, the same way: a negative -ts_gauss2_direct_max, and no
# preconditioner in the direct mode (its KSP is preonly)
refuse_msg() {
  pattern=$1
  shift
  (cd "$dir" && "$tsmech" -model kepler -ts_type gauss2 -ts_max_steps 2 -output refused.h5 "$@" >"$dir/out" 2>"$dir/err")
  rc=$?
  if [ $rc -ne 2 ] || ! grep -F -q -e "$pattern" "$dir/err" || [ -e "$dir/refused.h5" ]; then
    fail "$*: exit $rc (expected 2, a line with '$pattern', no output file)"
    cat "$dir/err"
  else
    echo "ok (exit 2): $* -> $(head -n 1 "$dir/err")"
  fi
}
refuse_msg "-ts_gauss2_direct_max -1 must be non-negative" -ts_gauss2_direct_max -1
refuse_msg "-gauss2_pc_type none with the direct mode" -gauss2_pc_type none

if [ $failures -ne 0 ]; then
  echo "help_types: $failures failure(s)"
  exit 1
fi
echo "help_types: OK"
