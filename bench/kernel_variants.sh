#!/bin/bash
# The vectorized kernels (src/models/solid/sumfact.c) compiled with other options, each variant
# a copy of the build's libtsmech with only that file recompiled, for bench/kernels.py:
#
#   bench/kernel_variants.sh BUILD OUTDIR
#   /usr/bin/python3 bench/kernels.py --builds $(ls -d OUTDIR/* | paste -sd,) --kinds 2,3
#
# Variants (OUTDIR/NAME): o2 (the project's -O2, clones for x86-64, -v3, -v4), o3, o3fma (-O3
# -ffp-contract=fast, the default kernel_args), and without clones (-DSOLID_NO_CLONES): base (-O2
# -march=x86-64: Debian's default, SSE2), v3 (-O3 -ffp-contract=fast -march=x86-64-v3: AVX2, FMA),
# native (-O3 -ffp-contract=fast -march=native).
set -eu
build=$(cd "$1" && pwd) out=$2
src=$(cd "$(dirname "$0")/.." && pwd)
args=$(sed -n '/^build libtsmechkernels.a.p\/src_models_solid_sumfact.c.o:/,/ARGS/p' "$build/build.ninja" | sed -n 's/^ ARGS = //p' | sed 's/ -O3//; s/ -ffp-contract=fast//; s/-fdiagnostics-color=always//')
libs=$(sed -n '/^build libtsmech.so.0.1.0:/,/LINK_ARGS/p' "$build/build.ninja" | sed -n 's/^ LINK_ARGS = //p' | sed 's/-Wl,--whole-archive libtsmechkernels.a -Wl,--no-whole-archive//')
variants='o2|-O2
o3|-O3
o3fma|-O3 -ffp-contract=fast
base|-O2 -march=x86-64 -DSOLID_NO_CLONES
v3|-O3 -ffp-contract=fast -march=x86-64-v3 -DSOLID_NO_CLONES
native|-O3 -ffp-contract=fast -march=native -DSOLID_NO_CLONES'
while IFS='|' read -r name flags; do
  d=$out/$name
  mkdir -p "$d/tests/solid"
  (cd "$build" && gcc $args $flags -c "$src/src/models/solid/sumfact.c" -o "$d/sumfact.o")
  (cd "$build" && gcc -o "$d/libtsmech.so.0" libtsmech.so.0.1.0.p/*.o "$d/sumfact.o" $libs)
  cp "$build/tests/solid/test_elements" "$d/tests/solid/"
  echo "$d: $flags"
done <<<"$variants"
