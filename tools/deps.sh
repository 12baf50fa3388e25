#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages mixsim needs to build and test, if any are missing.
set -euo pipefail
pkgs=(meson ninja-build pkg-config gcc python3 ocl-icd-opencl-dev opencl-headers
      pocl-opencl-icd clinfo libinih-dev zlib1g-dev libsdl2-dev clang libclang-rt-dev
      libsdl2-ttf-dev libpng-dev fonts-dejavu-core xvfb xauth # this line: the preview
      lammps python3-matplotlib python3-scipy # the peer that tests/lammps.sh runs against; tools/ plots and bench.py's test
      python3-vtk9 # tests/output_vtk.sh reads the --output frames back with VTK
      libopenmpi-dev openmpi-bin) # gravity mode over MPI ranks (-Dmpi, tests/mpi.sh)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "tools/deps.sh: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
