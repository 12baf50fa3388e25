#!/usr/bin/env bash
# On the GPU machine: the cost of the double-precision state (issue 10), side by side
# with the float build it replaced, plus the cross-device hash and precision checks.
# Needs the float build's sources as .deps/before.tar (git archive --prefix=before/ REV)
# and the .deps packages (tools/device/setup.sh). Results go to $OUT.
#   OUT=results BENCH=1 tools/device/precision.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-device-results}
mkdir -p "$out"
. tools/device/build.sh --log "$out/build.log" --before bb bd
echo "== hashes (mixed.ini, 6000 steps)" | tee "$out/hashes.txt"
for dev in gpu cpu; do
  for p in naive reordered; do
    for b in shared copied; do
      h=$(bd/mixsim -q -n 6000 -d $dev -p $p -b $b scenes/mixed.ini | tail -1)
      echo "$dev $p/$b: $h" | tee -a "$out/hashes.txt"
    done
  done
done
for dev in gpu cpu; do
  MIXSIM_DEVICE=$dev timeout 300 bd/tests/test_precision >"$out/precision-$dev.txt" 2>&1
  echo "precision on $dev: exit $?"
  MIXSIM_DEVICE=$dev timeout 300 bd/tests/test_determinism "" . >"$out/determinism-$dev.txt" 2>&1
  echo "determinism on $dev: exit $?"
done
MIXSIM_DEVICE=gpu timeout 300 bd/tests/test_physics >"$out/physics-gpu.txt" 2>&1
echo "physics on gpu: exit $?"
cost() { python3 tools/studies/precision_cost.py --before bb/mixsim --after bd/mixsim "$@"; }
cost --device gpu --small 1000000 --steps ${GPU_STEPS:-300} --repeat 5 --json "$out/cost-gpu.json" | tee "$out/cost-gpu.md"
cost --device gpu --small 1000000 --steps ${GPU_STEPS:-300} --repeat 3 --buffers copied | tee "$out/cost-gpu-copied.md"
cost --device cpu --small 1000000 --steps ${CPU_STEPS:-20} --repeat 3 --json "$out/cost-pocl.json" | tee "$out/cost-pocl.md"
echo "== layout_bench (float / double / cell-relative)"
bd/tools/layout_bench --device gpu --small 1000000 | tee "$out/layouts-gpu.md"
bd/tools/layout_bench --device cpu --small 1000000 --steps 20 --repeat 3 | tee "$out/layouts-pocl.md"
if [ -n "${BENCH:-}" ]; then
  for dev in gpu cpu; do
    python3 tools/bench.py bd/mixsim scenes/mixed.ini --steps 6000 --repeat 5 --device $dev \
      | tee "$out/bench-$dev.md"
  done
fi
