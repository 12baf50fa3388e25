#!/usr/bin/env bash
# On the GPU machine: set up, build, run the tests on the GPU and on pocl, and the
# collision benchmark on every device. Results go to $OUT (or ./device-results).
#   OUT=results STEPS=4000 REPEAT=3 tools/device/bench.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-device-results}
mkdir -p "$out"
export MIXSIM_BUILD_DIR=build-device
. tools/device/build.sh --log "$out/build.log" build-device
tail -5 "$out/build.log"
exe=build-device/mixsim
$exe --list-devices | tee "$out/devices.txt"
for dev in gpu cpu; do
  echo "== tests on $dev"
  MIXSIM_DEVICE=$dev build-device/tests/test_determinism "" . 2>&1 | tee "$out/determinism-$dev.txt"
  MIXSIM_DEVICE=$dev build-device/tests/test_physics 2>&1 | tee "$out/physics-$dev.txt"
done
for dev in gpu cpu; do
  echo "== bench on $dev"
  python3 tools/bench.py $exe scenes/mixed.ini --steps "${STEPS:-4000}" --repeat "${REPEAT:-3}" \
    --device $dev --json "$out/bench-$dev.json" | tee "$out/bench-$dev.md"
done
