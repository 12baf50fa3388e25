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
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-device-results}
mkdir -p "$out"
. tools/device/build.sh --target mixsim:executable bd
nvidia-smi -L
mapfile -t gpus < <(bd/mixsim --list-devices | sed -n 's/^ *\([0-9]*:[0-9]*\)  *gpu .*/\1/p')
echo "GPUs: ${gpus[*]}"
lists=("${gpus[0]}")
[ ${#gpus[@]} -ge 2 ] && lists+=("${gpus[0]},${gpus[1]}")
[ ${#gpus[@]} -ge 4 ] && lists+=("${gpus[0]},${gpus[1]},${gpus[2]},${gpus[3]}")
IFS=';' read -r -a points <<<"${POINTS:-1048576 1000 400;4194304 4000 300;8388608 8000 200;16777216 16000 200}"
table=$out/domains.txt
printf '| small | large | steps | devices | ms/iteration | beside the lays | hash |\n|---|---|---|---|---|---|---|\n' >"$table"
for point in "${points[@]}"; do
  set -- $point
  scene=$out/bed_$1.ini
  python3 tools/sweep_scene.py --shape bed --small "$1" --large "$2" --ratio 10 --out "$scene" || exit 1
  for ((r = 0; r < ${REPEAT:-2}; r++)); do
    for list in "${lists[@]}"; do
      n=$(($(tr -cd ',' <<<"$list" | wc -c) + 1))
      rep=$out/run_$1_${n}_$r.txt
      if [ "$n" = 1 ]; then opt=(-d "$list"); else opt=(--devices "$list"); fi
      timeout 550 bd/mixsim -q --headless -n "$3" "${opt[@]}" "$scene" >"$rep" 2>&1
      ms=$(sed -n 's/^speed .*, \([0-9.]*\) ms\/iteration$/\1/p' "$rep")
      steady=$(sed -n 's/.*; \([0-9.]*\) ms\/iteration beside the lays;.*/\1/p' "$rep")
      hash=$(sed -n 's/^state hash \([0-9a-f]*\).*/\1/p' "$rep")
      printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$n" "${ms:-?}" "${steady:-$ms}" \
        "${hash:-?}" | tee -a "$table"
      grep '^domains\|^  domain\|^  meeting' "$rep"
    done
  done
done
cat "$table"
