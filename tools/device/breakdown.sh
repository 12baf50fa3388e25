#!/usr/bin/env bash
# On the GPU machine: the case study's Fig 10.5 (docs/breakdown_gpu.png), where each
# thread's time per iteration goes, for shared/copied x naive/reordered, the zone exchange
# against the full one, and the large particles on the device against the hybrid split, on
# scenes/mixed.ini and on a generated scene of one million small particles. Builds mixsim
# (as tools/device/friction.sh does), runs tools/bench.py (interleaved runs, medians,
# spreads, Mann-Whitney verdicts) and tools/plot_breakdown.py; writes to $OUT the tables
# (bench_*.txt), the JSON (bench_*.json) and the figures (breakdown_*.png).
#   OUT=results REPEAT=7 SMALL=1048576 tools/device/breakdown.sh
# Settings: REPEAT (runs per configuration, 5 at least for a verdict), STEPS_MIXED,
# STEPS_BIG (iterations per run), SMALL, LARGE, RATIO (the generated scene), DEVICE (gpu),
# MIXSIM (an existing build: skips the build and the device setup, e.g. to try the script
# on pocl with MIXSIM=build/mixsim DEVICE=cpu SMALL=3000 STEPS_MIXED=20 STEPS_BIG=5
# REPEAT=2), PYTHON (a Python with scipy for the verdicts; matplotlib too for the figures).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-device-results}
mkdir -p "$out"
repeat=${REPEAT:-7}
device=${DEVICE:-gpu}

py=${PYTHON:-}
if [ -z "$py" ]; then # the first Python that has scipy
  for p in python3 /usr/bin/python3; do
    if "$p" -c "import scipy.stats" 2>/dev/null; then py=$p; break; fi
  done
fi
if [ -z "$py" ]; then # the runs and figures are still worth having; the verdicts are not there
  py=python3
  echo "tools/device/breakdown.sh: no Python here has the module 'scipy' (Debian: python3-scipy):" \
    "bench.py reports without its Mann-Whitney verdicts" >&2
fi
plots=1
"$py" -c "import matplotlib" 2>/dev/null || {
  plots=0
  echo "tools/device/breakdown.sh: $py lacks the module 'matplotlib': JSON and tables only;" \
    "draw the figures elsewhere with tools/plot_breakdown.py $out/bench_*.json" >&2
}

exe=${MIXSIM:-}
if [ -z "$exe" ]; then
  . tools/device/build.sh bd
  exe=bd/mixsim
fi
{
  command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L
  lscpu | grep -E "^Model name|^CPU\(s\)"
  "$exe" --list-devices
} 2>&1 | tee "$out/machine.txt"

# Every configuration names all four choices, so none depends on the scene's defaults:
# full exchange and large particles on the CPU unless the variant says otherwise.
variants=()
for p in naive reordered; do
  for b in shared copied; do
    variants+=(--variant "$p/$b=-p $p -b $b --exchange full --large-on cpu")
  done
done
variants+=(--variant "zone=-p reordered -b shared --exchange zone --large-on cpu")
variants+=(--variant "device-only=-p reordered -b shared --large-on device")
compare=(--compare naive/shared reordered/shared --compare naive/copied reordered/copied
  --compare reordered/shared reordered/copied --compare reordered/shared zone
  --compare reordered/shared device-only)

small=${SMALL:-1048576}
"$py" tools/sweep_scene.py --small "$small" --large "${LARGE:-1000}" --ratio "${RATIO:-10}" \
  --out "$out/scene_${small}.ini" || exit 1

status=0
for job in "mixed scenes/mixed.ini ${STEPS_MIXED:-2000}" "${small} $out/scene_${small}.ini ${STEPS_BIG:-200}"; do
  set -- $job
  name=$1 scene=$2 steps=$3
  echo "== $scene: $steps iterations x $repeat runs"
  if "$py" tools/bench.py "$exe" "$scene" --device "$device" --steps "$steps" --repeat "$repeat" \
    "${variants[@]}" "${compare[@]}" --json "$out/bench_$name.json" >"$out/bench_$name.txt" 2>&1; then
    cat "$out/bench_$name.txt"
    if [ $plots = 1 ]; then
      "$py" tools/plot_breakdown.py "$out/bench_$name.json" --out "$out/breakdown_$name.png" || status=1
    fi
  else
    cat "$out/bench_$name.txt"
    echo "tools/device/breakdown.sh: bench.py failed on $scene (above)" >&2
    status=1
  fi
done
exit $status
