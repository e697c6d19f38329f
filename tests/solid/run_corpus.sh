#!/bin/sh
# run_corpus.sh PYTHON make_corpus.py MESHDIR OUTDIR test_meshes MPIEXEC: writes the corpus of
# damaged meshes, then every file is read in-process on 1 rank and on 2 (one mpiexec)
set -e
"$1" "$2" "$3" "$4"
"$5" -corpus "$4"
"$6" -n 2 "$5" -corpus "$4"
