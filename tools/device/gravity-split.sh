#!/usr/bin/env bash
# On the GPU machine (two GPUs): gravity mode's multi-device split. Builds, then runs
# Plummer spheres of N = 16K, 64K, 256K and 1M on one GPU, on both GPUs and on every
# device (`--devices all`: the GPUs and the host CPU through pocl), 3 runs each,
# interleaved, through tools/gravity-split-bench.sh: interactions/s, the final shares and
# the hash of each into $OUT/split.txt (a Markdown table for docs/gravity.md). The steps
# per N keep the whole under 8 minutes. DEVICES overrides the three lists (e.g.
# DEVICES="cpu cpu,cpu" runs it on pocl alone); GRAVITY_N, REPEAT and STEPS_<N> too;
# MIXSIM=path uses that build instead of making one (to try the script on pocl here).
#   OUT=results REPEAT=3 tools/device/gravity-split.sh
set -uo pipefail
[ -n "${MIXSIM:-}" ] && MIXSIM=$(realpath "$MIXSIM")
[ -n "${OUT:-}" ] && OUT=$(realpath -m "$OUT")
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-device-results}
mkdir -p "$out"
build="build-gravity-split"
exe=${MIXSIM:-$build/mixsim}
[ -n "${MIXSIM:-}" ] || . tools/device/build.sh --log "$out/split-build.log" "$build"
$exe --list-devices | tee "$out/split-devices.txt"
gpus=$(awk '$2 == "gpu" {print $1}' "$out/split-devices.txt" | paste -sd, -)
first=${gpus%%,*}
devices=${DEVICES:-$first $gpus all}
echo "device lists: $devices" | tee "$out/split.txt"
# The controller's decisions of every run, for $out/split-log.txt (docs/gravity.md).
export MIXSIM_BALANCE_LOG=${MIXSIM_BALANCE_LOG:-1}
# Steps per N: enough for the controller to settle (about a dozen steps) and to measure.
# 1M gets more time: a run of 30 steps there is about 20 s with its start-up. Worst case
# (every N at its limit) about 8 minutes; expected about 3.
for n in ${GRAVITY_N:-16384 65536 262144 1048576}; do
  limit=80
  case $n in
    16384) steps=${STEPS_16384:-400} ;;
    65536) steps=${STEPS_65536:-200} ;;
    262144) steps=${STEPS_262144:-60} ;;
    *) steps=${STEPS_OTHER:-30} limit=220 ;;
  esac
  echo "== N $n, $steps steps" | tee -a "$out/split.txt"
  CONFIGS="$devices" GRAVITY_N=$n STEPS=$steps REPEAT=${REPEAT:-3} BURST=10 LOG=$out/split-log.txt \
    timeout $limit tools/gravity-split-bench.sh "$exe" 2>&1 | tee -a "$out/split.txt"
done
