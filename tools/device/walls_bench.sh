#!/usr/bin/env bash
# On the GPU machine: the walls' cost. The same particles (SMALL small discs, default
# 1048576, and LARGE large ones of radius ratio 10, default 1000) in the lower half of a
# drum turning at 1 rad/s and without the drum (tools/sweep_scene.py --shape drum|box).
# Each scene first runs WARM iterations (25000, 1 s: the bed falls onto the drum's rim, or
# the box's floor, and the drum turns by a radian) into a checkpoint; then STEPS
# iterations (300) from it, REPEAT (7) runs of each interleaved: median (min-max)
# ms/iteration per scene, the ratio drum/box, and the CPU worker's phases of each median
# run (the walls' share is in its large-small and host_in phases). Results under OUT.
# ARGS: more options for the timed runs (e.g. --buffers copied); REUSE=1 takes the build
# and the checkpoints an earlier call left on the machine.
#   SMALL=1048576 REPEAT=7 WARM=25000 OUT=results tools/device/walls_bench.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-device-results}
mkdir -p "$out"
# REUSE=1: the build and the warm-ups' checkpoints of an earlier call on this machine
if [ -n "${REUSE:-}" ] && [ -x bw/mixsim ]; then
  . tools/device/build.sh --keep bw
else
  . tools/device/build.sh bw
fi
nvidia-smi -L
for s in box drum; do
  python3 tools/sweep_scene.py --small "${SMALL:-1048576}" --large "${LARGE:-1000}" --ratio 10 \
    --shape $s --out "$out/$s.ini" || exit 1
done
warm=${WARM:-25000}
for s in box drum; do
  [ -n "${REUSE:-}" ] && [ -f "/tmp/$s.ck" ] && continue
  bw/mixsim "$out/$s.ini" -q --headless -n "$warm" --device gpu --checkpoint "/tmp/$s.ck" \
    >"$out/${s}_warm.txt" 2>&1 || { echo "$s warm-up failed"; tail "$out/${s}_warm.txt"; }
  grep -E '^(contacts|wall) ' "$out/${s}_warm.txt"
done
for r in $(seq "${REPEAT:-7}"); do
  for s in box drum; do
    bw/mixsim "$out/$s.ini" -q --headless --resume "/tmp/$s.ck" -n $((warm + ${STEPS:-300})) \
      --device gpu ${ARGS:-} --stats "$out/${s}_$r.json" >"$out/${s}_$r.txt" 2>&1 ||
      echo "$s run $r failed"
  done
done
python3 - "$out" "${REPEAT:-7}" <<'PY'
import json, statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
med = {}
for s in ("box", "drum"):
    runs = [json.load(open("%s/%s_%d.json" % (out, s, r))) for r in range(1, n + 1)]
    t = sorted(x["ms_per_iteration"] for x in runs)
    med[s] = statistics.median(t)
    mid = min(runs, key=lambda x: abs(x["ms_per_iteration"] - med[s]))
    print("%-5s %.4f ms/iteration (%.4f-%.4f, %d runs), hash %s" % (s, med[s], t[0], t[-1], n,
                                                                  mid["state_hash"]))
    for th in ("gpu_manager", "cpu_worker"):
        ph = mid["threads"][th]
        print("      %s: %s" % (th, ", ".join("%s %.4f" % (k, v["ms_per_iteration"])
                                               for k, v in ph.items())))
    if "walls_busy_ms_per_iteration" in mid:  # the walls' items' share of the pool's time
        w, b = sum(mid["walls_busy_ms_per_iteration"]), sum(mid["cpu_threads_busy_ms_per_iteration"])
        print("      walls' items: %.4f ms/it over the threads, %.1f%% of their busy time"
              % (w, 100.0 * w / b if b else 0.0))
print("drum/box %.3f" % (med["drum"] / med["box"]))
PY
