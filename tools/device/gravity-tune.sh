#!/usr/bin/env bash
# GPU tuning of the gravity force kernels: builds, saves the PTX NVIDIA's compiler made
# of each tiled variant, and measures them under extra build options and work-group
# sizes (MIXSIM_GRAVITY_OPTIONS, MIXSIM_GRAVITY_WG). Results go to $OUT.
#   OUT=results TUNE_N=262144 tools/device/gravity-tune.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-device-results}
mkdir -p "$out"
build="build-gravity-device"
# tools/device/gravity.sh's build where it is there.
. tools/device/build.sh --keep --log "$out/tune-build.log" $build
exe=$build/mixsim
n=${TUNE_N:-262144}
printf '[simulation]\nmode = gravity\ndt = 0.0001\nsteps = 2\nseed = 1\n[gravity]\nbodies = plummer\ncount = 65536\nsoftening = 0.01\nenergy = off\ndiagnostics_every = 0\n' >"$out/tune.ini"
for k in tiled tiled4; do
  for o in "" "-D MS_NATIVE_RSQRT"; do
    tag=$k${o:+-native}
    MIXSIM_GRAVITY_OPTIONS="$o" MIXSIM_DUMP_BINARY="$out/$tag.ptx" $exe -q --device gpu \
      --gravity-kernel $k "$out/tune.ini" >/dev/null 2>&1
    # The inner loop's instruction mix, from the PTX.
    echo "$tag: $(grep -cE '^\s+fma.rn.f32' "$out/$tag.ptx") fma, $(grep -cE '^\s+(mul|add|sub).(rn.)?f32' "$out/$tag.ptx") mul/add, $(grep -cE 'rsqrt|sqrt' "$out/$tag.ptx") rsqrt/sqrt, $(grep -cE 'ld.shared' "$out/$tag.ptx") ld.shared"
  done
done | tee "$out/tune-ptx.txt"
for o in "" "-D MS_NATIVE_RSQRT" "-cl-fast-relaxed-math"; do
  for wg in 128 256 512; do
    echo "== options '$o' wg $wg"
    MIXSIM_GRAVITY_OPTIONS="$o" MIXSIM_GRAVITY_WG=$wg python3 tools/gravity_bench.py $exe \
      --device gpu --n "$n" --kernels tiled,tiled2,tiled4 --seconds 1.5 --repeat 1 |
      grep -E "^\| [0-9]"
  done
done 2>&1 | tee "$out/tune-bench.txt"
