#!/usr/bin/env bash
# On the GPU machine: the friction figures of docs/friction.md. Builds mixsim, checks that
# the GPU and pocl give every shipped scene the same state hash (the CPU worker and the
# device-only path, 500 steps), then measures friction's cost at one million small particles
# with tools/studies/friction_cost.py, frictional and frictionless runs interleaved, in the hybrid
# pipeline and with the large particles on the device.
#   OUT=results REPEAT=5 SMALL=1048576 tools/device/friction.sh
# PART=wlist instead measures the CPU worker's large-small list (docs/friction.md): the full
# exchange with the list and with the cell walk, and the zone exchange, interleaved
# (tools/sweep.py), on generated scenes with and without friction (POINTS="SMALL LARGE RATIO;...").
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-device-results}
mkdir -p "$out"
. tools/device/build.sh bd
nvidia-smi -L
lscpu | grep -E "^Model name|^CPU\(s\)"
if [ "${PART:-cost}" = wlist ]; then
  IFS=';' read -r -a points <<<"${POINTS:-1048576 1000 10;1048576 20000 4;65536 1000 10}"
  for point in "${points[@]}"; do
    set -- $point
    for fr in off on; do
      scene=$out/scene_$1_$2_$3_$fr.ini
      python3 - "$1" "$2" "$3" "$fr" "$scene" <<'PY' || exit 1
import sys
sys.path.insert(0, "tools"); sys.path.insert(0, "tools/studies")
import friction_cost, sweep_scene
n, m, r, fr, path = sys.argv[1:]
text = sweep_scene.scene(int(n), int(m), float(r))
if fr == "on":
    text = friction_cost.with_friction(text, 0.5, 0.05, 0.5)
open(path, "w").write(text)
PY
      python3 tools/sweep.py --mixsim bd/mixsim --scene "$scene" --steps "${STEPS:-300}" \
        --repeat "${REPEAT:-3}" --device gpu --variant "list=--exchange full --worker-list on" \
        --variant "walk=--exchange full --worker-list off" --variant "zone=--exchange zone" \
        --out "$out/wlist_$1_$2_$3_$fr"
    done
  done
  exit 0
fi
if [ -z "${NO_HASHES:-}" ]; then
  for where in "gpu" "cpu" "gpu --large-on device" "cpu --large-on device"; do
    set -- $where
    dev=$1
    shift
    MIXSIM_DEVICE=$dev tools/scene_hashes.sh bd/mixsim -n "${HASH_STEPS:-500}" "$@" \
      >"$out/hashes_${dev}${1:+_device}.txt" 2>&1
  done
  for f in "$out"/hashes_gpu*.txt; do
    c=${f/hashes_gpu/hashes_cpu}
    if cmp -s "$f" "$c"; then echo "same hashes: $(basename "$f") $(basename "$c")"
    else echo "HASHES DIFFER: $(basename "$f") $(basename "$c")"; diff "$f" "$c"; fi
  done
  cat "$out/hashes_gpu.txt"
fi
small=${SMALL:-1048576}
for opts in "" "--large-on device"; do
  python3 tools/studies/friction_cost.py --mixsim bd/mixsim --small "$small" --large "${LARGE:-1000}" \
    --ratio "${RATIO:-10}" --steps "${STEPS:-300}" --repeat "${REPEAT:-5}" --device gpu \
    ${opts:+--options "$opts"} --csv "$out/friction_cost_${small}${opts:+_device}.csv"
done
