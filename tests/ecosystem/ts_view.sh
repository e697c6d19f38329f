#!/bin/sh
# -ts_view of the tsmech types shows the attached MechSystem: model, global size, fixed dofs, the
# linear flag, lumped or consistent mass; symeuler2's also shows the mass solver's KSP, gauss2's its
# stages, its stage solver (prefix gauss2_) and its blocks' solver (the user's -ksp/-pc). PETSc's
# own alpha2 does not know the system: its view must not show it (the control that the greps can
# fail).
#
#   ts_view.sh MPIEXEC TSMECH
set -u
mpiexec=$1 tsmech=$2
fail() {
  echo "FAILED: $*" >&2
  exit 1
}
out=$(mktemp) || fail "cannot create a temporary file"
trap 'rm -f "$out"' EXIT

view() {
  echo "+ $*"
  "$@" -ts_max_steps 2 -ts_view -quiet >"$out" 2>&1 || {
    cat "$out"
    fail "$* failed"
  }
}
has() {
  grep -qF -- "$1" "$out" || {
    cat "$out"
    fail "no line with '$1'"
  }
  echo "  found: $1"
}

view "$mpiexec" -n 2 "$tsmech" -model chain -ts_type midpoint2
has "type: midpoint2"
has "MechSystem Object: 2 MPI processes"
has "model: chain, 60 dofs, 3 fixed, nonlinear, lumped mass, damped"

view "$mpiexec" -n 1 "$tsmech" -model oscillator -ts_type cn2
has "model: oscillator, 1 dofs, 0 fixed, linear, lumped mass"

view "$mpiexec" -n 2 "$tsmech" -model chain -ts_type symeuler2 -ts_dt 1e-4
has "type: symeuler2"
has "model: chain, 60 dofs, 3 fixed, nonlinear, lumped mass, damped"
has "mass solver (M x = b):"
has "KSP Object: (mass_) 2 MPI processes"
has "PC Object: (mass_) 2 MPI processes"

view "$mpiexec" -n 2 "$tsmech" -model chain -ts_type gauss2 -ts_gauss2_stages 3 -ksp_type cg -pc_type jacobi
has "type: gauss2"
has "Gauss-Legendre collocation, 3 stages (order 6), velocity form"
has "preconditioner: 2 block operators cM M + tau D + cK tau^2 K"
has "KSP Object: (gauss2_) 2 MPI processes"
has "PC Object: 2 MPI processes"
has "type: jacobi"
has "model: chain, 60 dofs, 3 fixed, nonlinear, lumped mass, damped"

view "$mpiexec" -n 1 "$tsmech" -model chain -ts_type alpha2
has "type: alpha2"
if grep -q "MechSystem Object" "$out"; then fail "PETSc's alpha2 view shows a MechSystem: the greps above prove nothing"; fi
echo "  alpha2 (PETSc's): no MechSystem in its view, as expected"
echo "ecosystem ts_view: OK"
