#!/usr/bin/env bash
# On the GPU machine, gravity mode: build, run the gravity tests on the GPU, benchmark
# every kernel variant for several N, and try the multi-device split (the GPU opened
# twice, and GPU + CPU where a CPU OpenCL device exists). Results go to $OUT (or
# ./device-results). Stages can be picked: STAGES="build test bench multi" (default all);
# GRAVITY_N (default 16384,65536,262144,1048576), GRAVITY_KERNELS (default
# simple,tiled,tiled2,tiled4,jsplit4), SECONDS_PER_RUN (2), REPEAT (3).
#   OUT=results STAGES="build test bench" REPEAT=2 tools/device/gravity.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-device-results}
mkdir -p "$out"
stages=${STAGES:-build test bench cpubench multi}
build="build-gravity-device"
exe=$build/mixsim
has() { [[ " $stages " == *" $1 "* ]]; }

# Without the build stage, the existing build is kept (built only if missing).
if has build; then
  . tools/device/build.sh --log "$out/gravity-build.log" "$build"
  tail -3 "$out/gravity-build.log"
else
  . tools/device/build.sh --keep --log "$out/gravity-build.log" "$build"
fi
$exe --list-devices | tee "$out/gravity-devices.txt"
cpu=$(awk '$2 == "cpu" {print $1; exit}' "$out/gravity-devices.txt")

if has test; then
  echo "== gravity tests on the GPU"
  for t in kepler reference hash bodies options; do
    MIXSIM_DEVICE=gpu $build/tests/test_gravity $t . 2>&1
  done | tee "$out/gravity-tests-gpu.txt"
  MIXSIM_DEVICE=gpu bash tests/gravity_cli.sh "$exe" . 2>&1 | tee -a "$out/gravity-tests-gpu.txt"
fi

if has bench; then
  echo "== gravity benchmark on the GPU"
  python3 tools/gravity_bench.py "$exe" --device gpu --n "${GRAVITY_N:-16384,65536,262144,1048576}" \
    --kernels "${GRAVITY_KERNELS:-simple,tiled,tiled2,tiled4,jsplit4},default" \
    --seconds "${SECONDS_PER_RUN:-2}" --repeat "${REPEAT:-3}" --json "$out/gravity-bench-gpu.json" \
    | tee "$out/gravity-bench-gpu.md"
fi

if has cpubench && [ -n "$cpu" ]; then
  echo "== gravity benchmark on the host CPU through pocl ($cpu)"
  python3 tools/gravity_bench.py "$exe" --device "$cpu" --n "${CPU_GRAVITY_N:-65536,262144}" \
    --kernels "${CPU_GRAVITY_KERNELS:-simple,soa16},default" \
    --seconds "${SECONDS_PER_RUN:-2}" --repeat "${REPEAT:-3}" --json "$out/gravity-bench-cpu.json" \
    | tee "$out/gravity-bench-cpu.md"
fi

if has multi; then
  echo "== multi-device: the GPU twice (two contexts), then GPU + CPU"
  n=${MULTI_N:-262144}
  printf '[simulation]\nmode = gravity\ndt = 0.0001\nsteps = 20\nseed = 1\n[gravity]\nbodies = plummer\ncount = %s\nsoftening = 0.01\nenergy = off\ndiagnostics_every = 0\n' \
    "$n" >"$out/gravity-multi.ini"
  for devs in gpu gpu,gpu ${cpu:+gpu,$cpu}; do
    echo "-- --devices $devs"
    $exe -q --devices "$devs" --stats "$out/gravity-multi-${devs//[,:]/_}.json" \
      "$out/gravity-multi.ini" | grep -E "^device|^speed|exchange|state hash"
  done 2>&1 | tee "$out/gravity-multi.txt"
fi
