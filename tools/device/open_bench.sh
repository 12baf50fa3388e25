#!/usr/bin/env bash
# On the GPU machine: what open systems cost (docs/open-systems.md). The same particles
# (SMALL small discs, default 1048576, and LARGE large ones of radius ratio 10, default 1000,
# tools/sweep_scene.py --shape box) in three boxes: with four walls (box), periodic along x
# (periodic), and with walls plus an inflow of RATE discs a second (1000) falling from the
# top onto an outflow above the bed (flows), and with walls plus an outflow in a corner no
# disc reaches (idle: the exchanges every millisecond with nothing to exchange, their fixed
# cost). Each first runs WARM iterations (12500, 0.5 s:
# the bed settles, the poured discs reach the outflow) into a checkpoint; then STEPS
# iterations (300) from it, REPEAT (3) runs of each interleaved: median (min-max)
# ms/iteration and the ratios to the box. Results under OUT.
#   SMALL=1048576 REPEAT=3 OUT=results tools/device/open_bench.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-device-results}
mkdir -p "$out"
if [ -n "${REUSE:-}" ] && [ -x bo/mixsim ]; then
  . tools/device/build.sh --keep bo
else
  . tools/device/build.sh bo
fi
nvidia-smi -L
python3 tools/sweep_scene.py --small "${SMALL:-1048576}" --large "${LARGE:-1000}" --ratio 10 \
  --shape box --out "$out/box.ini" || exit 1
python3 - "$out" "${RATE:-1000}" <<'PY'
import re, sys
out, rate = sys.argv[1], sys.argv[2]
box = open(out + "/box.ini").read()
w = float(re.search(r"max = ([0-9.e+-]+),", box).group(1))
open(out + "/periodic.ini", "w").write(box.replace("[box]\n", "[box]\nperiodic = x\n", 1))
flows = box + """
[inflow.rain]
region = %g, %g, %g, %g
rate = %s
radius = 0.005
density = 25 kg/m^2
velocity = 0, -5

[outflow.catch]
region = 0, %g, %g, %g
""" % (0.1 * w, 0.94 * w, 0.9 * w, 0.99 * w, rate, 0.84 * w, 0.999 * w, 0.88 * w)
open(out + "/flows.ini", "w").write(flows)
idle = box + """
[outflow.corner]
region = %g, %g, %g, %g
""" % (0.999 * w, 0.999 * w, w, w)
open(out + "/idle.ini", "w").write(idle)
PY
warm=${WARM:-12500}
cases=${CASES:-box periodic flows idle}
for s in $cases; do
  bo/mixsim "$out/$s.ini" -q --headless -n "$warm" --device gpu --checkpoint "/tmp/$s.ck" \
    >"$out/${s}_warm.txt" 2>&1 || { echo "$s warm-up failed"; tail -3 "$out/${s}_warm.txt"; }
  grep -E '^(contacts|flow) ' "$out/${s}_warm.txt"
done
for r in $(seq "${REPEAT:-3}"); do
  for s in $cases; do
    bo/mixsim "$out/$s.ini" --headless --resume "/tmp/$s.ck" -n $((warm + ${STEPS:-300})) \
      --device gpu ${ARGS:-} --stats "$out/${s}_$r.json" >"$out/${s}_$r.txt" 2>&1 ||
      { echo "$s run $r failed"; tail -3 "$out/${s}_$r.txt"; }
  done
done
python3 - "$out" "${REPEAT:-3}" $cases <<'PY'
import json, statistics, sys
out, n, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
med = {}
for s in cases:
    runs = []
    for r in range(1, n + 1):
        try:
            runs.append(json.load(open("%s/%s_%d.json" % (out, s, r))))
        except (OSError, ValueError):
            pass
    if not runs:
        print("%-8s no run" % s)
        continue
    t = sorted(x["ms_per_iteration"] for x in runs)
    med[s] = statistics.median(t)
    mid = min(runs, key=lambda x: abs(x["ms_per_iteration"] - med[s]))
    print("%-8s %.4f ms/iteration (%.4f-%.4f, %d runs), hash %s%s" % (
        s, med[s], t[0], t[-1], len(runs), mid["state_hash"],
        "" if s == "box" or "box" not in med else ", %.3fx the box" % (med[s] / med["box"])))
    if "flows" in mid:
        print("         flows: %s" % mid["flows"])
PY
