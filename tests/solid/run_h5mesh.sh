#!/bin/sh
# run_h5mesh.sh TSMECH TEST_MESHES MPIEXEC BEAM.msh WORKDIR: a DMPlex HDF5 mesh written by PETSc,
# damaged (truncated at two places, a block in its middle overwritten), is refused by tsmech on 1
# and 2 ranks with exit status 2 and one line of output: no HDF5 error stack, no file left.
# The undamaged file is read (exit 0).
set -u
tsmech=$1 tm=$2 mpiexec=$3 beam=$4 work=$5
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
"$tm" -write_plex plex.h5 -from "$beam" > /dev/null || exit 1
size=$(wc -c < plex.h5)
head -c $((size / 2)) plex.h5 > half.h5
head -c 4096 plex.h5 > head.h5
cp plex.h5 holed.h5
dd if=/dev/zero of=holed.h5 bs=1 seek=$((size / 3)) count=8192 conv=notrunc 2> /dev/null
fail=0
"$tsmech" -quiet -model solid -solid_mesh plex.h5 -ts_max_steps 1 > out.txt 2>&1 || { echo "FAILED: the undamaged plex.h5 was refused: $(cat out.txt)"; fail=1; }
for f in half.h5 head.h5 holed.h5; do
  for np in 1 2; do
    before=$(ls | sort | tr '\n' ' ')
    if [ $np = 1 ]; then "$tsmech" -quiet -model solid -solid_mesh $f -ts_max_steps 1 -output run.h5 > out.txt 2>&1; st=$?
    else "$mpiexec" -q -n 2 "$tsmech" -quiet -model solid -solid_mesh $f -ts_max_steps 1 -output run.h5 > out.txt 2>&1; st=$?; fi
    lines=$(grep -c . out.txt)
    after=$(ls | sort | tr '\n' ' ')
    echo "$f on $np rank(s): exit $st, $lines line(s): $(head -1 out.txt)"
    if [ $st != 2 ] || [ $lines != 1 ] || ! grep -q "^tsmech: error: -solid_mesh $f: " out.txt || [ "$before" != "$after" ]; then
      echo "FAILED: $f on $np rank(s): expected exit 2, one line naming the file, no file left"; cat out.txt; fail=1
    fi
  done
done
exit $fail
