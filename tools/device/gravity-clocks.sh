#!/usr/bin/env bash
# Samples the GPU's SM clock and power while the gravity kernel runs at N = 1M, to put
# the measured interactions/s against what the FP32 pipes allow at the clock held.
#   OUT=results KERNEL=tiled4 tools/device/gravity-clocks.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-device-results}
mkdir -p "$out"
# tools/device/gravity.sh's build where it is there.
. tools/device/build.sh --keep --log "$out/clocks-build.log" build-gravity-device
exe=build-gravity-device/mixsim
printf '[simulation]\nmode = gravity\ndt = 0.0001\nsteps = 12\nseed = 1\n[gravity]\nbodies = plummer\ncount = 1048576\nsoftening = 0.01\nenergy = off\ndiagnostics_every = 0\n' >"$out/clocks.ini"
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu \
  --format=csv,noheader -lms 250 >"$out/clocks.csv" &
smi=$!
$exe -q --device gpu --gravity-kernel ${KERNEL:-tiled4} "$out/clocks.ini" | grep -E "interactions|state hash"
kill $smi
echo "SM clock MHz, max, power, limit, temp during the run (every 250 ms):"
sort "$out/clocks.csv" | uniq -c | sort -rn | head -8
