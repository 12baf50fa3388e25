#!/usr/bin/env bash
# On the GPU machine: the rotating drum's dynamic angle of repose at a size where the
# rolling regime has room: tools/walls_validate.py drum with a drum of RADIUS m (0.2: 50
# small diameters, about 2200 discs), at the Froude numbers FR (1e-4,1e-3,1e-2), seeds
# SEEDS (1,2,3), turning TURN rad (1.2) after settling, time step DT (2e-5), every run at
# once (JOBS, 9) on DEVICE (cpu: the machine's 16 cores through pocl, one pocl thread and
# CPU_THREADS=1 worker thread a run, measured faster for nine runs of this size at once
# than nine on the one GPU). The table goes to OUT/drum_angle.txt (docs/validation.md).
#   FR=1e-4 TURN=2 DT=4e-5 OUT=results tools/device/drum_angle.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-device-results}
mkdir -p "$out"
. tools/device/build.sh bd
nvidia-smi -L
POCL_MAX_PTHREAD_COUNT=${POCL_MAX_PTHREAD_COUNT:-1} python3 tools/walls_validate.py drum bd/mixsim --radius "${RADIUS:-0.2}" --turn "${TURN:-1.2}" \
  --jobs "${JOBS:-9}" --device "${DEVICE:-cpu}" --seeds "${SEEDS:-1,2,3}" \
  --fr "${FR:-1e-4,1e-3,1e-2}" --frames "${FRAMES:-40}" --dt "${DT:-2e-5}" \
  --cpu-threads "${CPU_THREADS:-1}" | tee "$out/drum_angle.txt"
