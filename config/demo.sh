#!/bin/sh
# make demo: the cloth on 2 ranks with midpoint2, its HDF5/XDMF output and two pictures.
set -e
BUILD=${1:-build}
PY=/usr/bin/python3
mkdir -p results
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpiexec -n 2 "$BUILD/tsmech" -options_file config/cloth.opts -output results/cloth.h5
$PY tools/tsmech_plot.py snapshot results/cloth.h5 -o results/cloth.png
$PY tools/tsmech_plot.py energy results/cloth.h5 -o results/cloth_energy.png
echo "demo results:"
echo "  results/cloth.h5          HDF5 output (h5py, h5dump)"
echo "  results/cloth.xmf         open in ParaView (animated surface)"
echo "  results/cloth.png         the cloth at its last snapshot"
echo "  results/cloth_energy.png  energy against time"
