#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages a job needs, if any are missing, and never removes one:
#   tools/deps.sh run    build mixsim and run a scene in the preview (tools/run.sh)
#   tools/deps.sh test   and the test suite's peers and readers (tools/test.sh)
#   tools/deps.sh dev    and the fuzzer's clang (.ci/run, tools/dev/fuzz.sh)
#   tools/deps.sh --list JOB   prints the job's packages, installs nothing
set -euo pipefail
list=0
[ "${1:-}" = --list ] && { list=1; shift; }
job=${1:-test}
run=(meson ninja-build pkg-config gcc python3 ocl-icd-opencl-dev opencl-headers
     pocl-opencl-icd clinfo libinih-dev zlib1g-dev
     libsdl2-dev libsdl2-ttf-dev libpng-dev fonts-dejavu-core) # this line: the preview
test=(xvfb xauth # the preview's tests make their own display
      lammps python3-matplotlib python3-scipy # the LAMMPS peer; tools/ plots and bench.py's verdicts
      python3-vtk9 # the --output frames read back with VTK
      python3-venv # tests/tools_python.sh: a bare virtual environment
      libopenmpi-dev openmpi-bin) # gravity mode over MPI ranks (-Dmpi, tests/mpi.sh)
dev=(clang libclang-rt-dev) # libFuzzer
case $job in
  run) pkgs=("${run[@]}") ;;
  test) pkgs=("${run[@]}" "${test[@]}") ;;
  dev) pkgs=("${run[@]}" "${test[@]}" "${dev[@]}") ;;
  *) echo "usage: tools/deps.sh [--list] [run|test|dev]" >&2; exit 2 ;;
esac
[ $list = 1 ] && { printf '%s\n' "${pkgs[@]}"; exit 0; }
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in "${pkgs[@]}"; do
  # python3-vtk9 and ParaView's python3-paraview conflict; the latter's vtkmodules read the
  # frames as well (tests/read_vtp.py), so a ParaView user keeps it.
  if [ "$p" = python3-vtk9 ] && installed python3-paraview; then
    echo "tools/deps.sh: python3-paraview is installed, so python3-vtk9 (which conflicts with it) is not: ParaView's VTK modules read the frames"
    continue
  fi
  installed "$p" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "tools/deps.sh: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# --no-remove: were any installed package to go (a conflict), apt stops instead.
$sudo apt-get install -y -qq --no-install-recommends --no-remove "${missing[@]}"
