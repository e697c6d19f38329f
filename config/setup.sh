#!/bin/sh
# Installs the Debian 12 packages tsmech needs; takes a second when they are all present.
set -e
PKGS="petsc-dev libslepc-real3.18-dev python3-slepc4py libhdf5-openmpi-dev openmpi-bin meson ninja-build pkg-config gcc make hdf5-tools python3-h5py python3-numpy python3-matplotlib python3-pil python3-petsc4py python3-pytest valgrind"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "tsmech setup: installing$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $missing
