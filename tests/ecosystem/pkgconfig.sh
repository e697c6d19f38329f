#!/bin/sh
# Builds the examples as a user of the installed library would: the build tree is installed into
# a staging directory (meson install --destdir), its tsmech.pc is relocated there, and every
# examples/*.c is compiled outside the tree with nothing but `pkg-config --cflags --libs tsmech`.
# One example then runs on 2 ranks against the staged libtsmech.so. A negative control checks
# that a tsmech.pc requiring only PETSc (Debian's PETSc.pc carries no MPI flags) cannot build
# the same program, so the test would catch that mistake coming back.
#
#   pkgconfig.sh MESON BUILDDIR SRCDIR CC MPIEXEC PREFIX LIBDIR
#
# It works in a new directory under $TMPDIR (outside the source tree), removed when the test
# passes and kept, with its path printed, when it fails.
set -u
meson=$1 build=$2 src=$3 cc=$4 mpiexec=$5 prefix=$6 libdir=$7

fail() {
  echo "FAILED: $*" >&2
  [ -n "${work:-}" ] && echo "(files kept in $work)" >&2
  exit 1
}

case $libdir in /*) ;; *) libdir=$prefix/$libdir ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/tsmech-pkgconfig.XXXXXX") || fail "cannot create a directory in ${TMPDIR:-/tmp}"
mkdir -p "$work/pc" "$work/bin" || fail "cannot use $work"
stage=$work/stage

echo "+ $meson install -C $build --destdir $stage --no-rebuild"
"$meson" install -C "$build" --destdir "$stage" --no-rebuild >"$work/install.log" 2>&1 || {
  cat "$work/install.log"
  fail "meson install --destdir failed"
}
pc=$stage$libdir/pkgconfig/tsmech.pc
test -f "$pc" || fail "the install has no $libdir/pkgconfig/tsmech.pc"
test -f "$stage$prefix/include/tsmech.h" || fail "the install has no include/tsmech.h"
test -f "$stage$libdir/libtsmech.so" || fail "the install has no libtsmech.so"

# What a user installing with --prefix=$stage$prefix would get: the same file, another prefix.
grep -q "^prefix=$prefix\$" "$pc" || fail "tsmech.pc does not start from prefix=$prefix: $(cat "$pc")"
sed "s|^prefix=.*|prefix=$stage$prefix|" "$pc" >"$work/pc/tsmech.pc"
grep -q '^Requires:.*ompi-c' "$work/pc/tsmech.pc" || fail "tsmech.pc does not require ompi-c: $(grep Requires "$pc")"
export PKG_CONFIG_PATH="$work/pc"
flags=$(pkg-config --cflags --libs tsmech) || fail "pkg-config --cflags --libs tsmech failed"
echo "pkg-config --cflags --libs tsmech: $flags"
case $flags in *"$src"* | *"$build"*) fail "the flags point into the source or build tree" ;; esac
case $flags in *"-I$stage$prefix/include"*) ;; *) fail "the flags lack the installed include directory" ;; esac

# the examples, each as a user would compile it, warnings as errors
cd "$work/bin" || fail "cannot enter $work/bin"
n=0
for c in "$src"/examples/*.c; do
  exe=$(basename "$c" .c)
  echo "+ $cc -Wall -Wextra -Werror $exe.c -o $exe \$(pkg-config --cflags --libs tsmech)"
  # shellcheck disable=SC2086 # the flags are a list of words
  "$cc" -Wall -Wextra -Werror "$c" -o "$exe" $flags || fail "$exe.c does not build with pkg-config alone"
  n=$((n + 1))
done
[ $n -ge 2 ] || fail "found $n examples in $src/examples"

# it runs against the staged library, not the build tree's
export LD_LIBRARY_PATH="$stage$libdir"
ldd ./two_particles | grep "libtsmech.so" | grep -q "$stage" || fail "two_particles does not load the staged libtsmech.so: $(ldd ./two_particles | grep tsmech)"
echo "+ $mpiexec -n 2 ./two_particles -drift_tol 1e-10 -error_tol 5e-3"
"$mpiexec" -n 2 -x LD_LIBRARY_PATH ./two_particles -drift_tol 1e-10 -error_tol 5e-3 >run.txt 2>&1
status=$?
cat run.txt
[ $status -eq 0 ] || fail "two_particles on 2 ranks exited with status $status"
grep -q "MechSystem Object: 2 MPI processes" run.txt || fail "two_particles did not run on 2 ranks"
grep -q "^midpoint2, 1000 steps to t = 10" run.txt || fail "two_particles did not report its 1000 midpoint2 steps"
echo "+ ./spring_damper -error_tol 5e-4"
./spring_damper -error_tol 5e-4 || fail "spring_damper failed"

# negative control: the tsmech.pc of before (PETSc only) does not build a program
sed -e 's/^Requires:.*/Requires: PETSc/' -e '/^Requires.private:/d' "$work/pc/tsmech.pc" >"$work/pc/tsmech_petsconly.pc"
# shellcheck disable=SC2046 # the flags are a list of words
if "$cc" "$src/examples/two_particles.c" -o control $(pkg-config --cflags --libs tsmech_petsconly) 2>control.txt; then
  fail "the negative control built without the MPI flags: this test cannot tell"
fi
grep -q "mpi.h" control.txt || fail "the negative control failed for another reason: $(head -3 control.txt)"
echo "negative control (Requires: PETSc only): $(grep -m1 mpi.h control.txt)"
cd / && rm -rf "$work"
echo "ecosystem pkgconfig: OK ($n examples built outside the tree)"
