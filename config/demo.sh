#!/bin/sh
# make demo: the cloth on 2 ranks with midpoint2, its HDF5/XDMF output, pictures and an animation.
set -e
BUILD=${1:-build}
PY=/usr/bin/python3
PLOT=tools/tsmech_plot.py
mkdir -p results
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpiexec -n 2 "$BUILD/tsmech" -options_file config/cloth.opts -output results/cloth.h5
$PY $PLOT snapshot results/cloth.h5 -o results/cloth.png
# draped over the sphere, before it slides off (config/cloth.opts: a snapshot every 0.05)
$PY $PLOT snapshot results/cloth.h5 --time 0.45 -o results/cloth_contact.png
$PY $PLOT energy results/cloth.h5 -o results/cloth_energy.png
$PY $PLOT animate results/cloth.h5 -o results/cloth.gif
echo "demo results:"
echo "  results/cloth.h5          HDF5 output (h5py, h5dump)"
echo "  results/cloth.xmf         open in ParaView (animated surface)"
echo "  results/cloth.png         the cloth and the sphere at the last snapshot"
echo "  results/cloth_contact.png the cloth draped over the sphere (t = 0.45)"
echo "  results/cloth_energy.png  energy against time: total, kinetic, potential; its change"
echo "  results/cloth.gif         animation of the run (every snapshot, 10 per second)"
