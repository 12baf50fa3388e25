#!/usr/bin/env bash
# On the GPU machine: the figures of docs/scaling.md. Builds mixsim (and, when its sources
# are carried as .deps/before.tar = git archive --prefix=before/ REV, the build before the
# exchange work, as the variant `landed`), then runs tools/sweep.py, every variant
# interleaved with the others, REPEAT times:
#   PART=targets  the issue's four generated scenes and scenes/mixed.ini (default; POINTS=
#                 "SMALL LARGE RATIO;..." picks the generated ones, MIXED= leaves mixed.ini out)
#   PART=sweep    small 8K..1M x large 10/1000/20000 (ratio 10; SMALL=8192,65536 picks),
#                 and ratios 2/50 at 1M + 1000 (NO_RATIO=1 leaves them out)
#   NO_LANDED=1   leaves the build before out
# Results (CSV, PNG, the printed table) go to $OUT (default device-results/).
#   PART=sweep REPEAT=2 tools/device/scaling.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-device-results}
mkdir -p "$out"
python3 -c "import matplotlib" 2>/dev/null || pip install -q matplotlib >/dev/null 2>&1 || true
before=()
[ -f .deps/before.tar ] && before=(--before bb)
. tools/device/build.sh "${before[@]}" bd
nvidia-smi -L
lscpu | grep -E "^Model name|^CPU\(s\)"
default="zone-copied=--exchange zone -b copied;zone-shared=--exchange zone -b shared"
default+=";full-copied=--exchange full -b copied;full-shared=--exchange full -b shared"
default+=";device=--large-on device"
IFS=';' read -r -a vs <<<"${VARIANTS:-$default}"
args=()
for v in "${vs[@]}"; do args+=(--variant "$v"); done
[ -x bb/mixsim ] && [ -z "${NO_LANDED:-}" ] && args+=(--variant "landed=@bb/mixsim -b shared")
# auto times 5 candidates over a tenth of the run (2000 iterations at least): 6000.
auto=(--variant "auto=-b auto --exchange auto --large-on auto -n 6000")
case ${PART:-targets} in
targets)
  [ -n "${MIXED-1}" ] &&
    python3 tools/sweep.py --mixsim bd/mixsim --scene scenes/mixed.ini --steps 6000 \
      --repeat "${REPEAT:-3}" --device gpu "${args[@]}" "${auto[@]}" \
      --out "$out/mixed"
  IFS=';' read -r -a points <<<"${POINTS:-1048576 1000 10;4194304 4000 10;1048576 20000 4;65536 1000 10}"
  for point in "${points[@]}"; do
    set -- $point
    python3 tools/sweep.py --mixsim bd/mixsim --small "$1" --large "$2" --ratio "$3" \
      --steps "${STEPS:-300}" --repeat "${REPEAT:-3}" --device gpu "${args[@]}" "${auto[@]}" \
      --out "$out/target_$1_$2"
  done
  ;;
sweep)
  python3 tools/sweep.py --mixsim bd/mixsim --small "${SMALL:-8192,65536,262144,1048576}" \
    --large 10,1000,20000 --ratio 10 --steps "${STEPS:-200}" --repeat "${REPEAT:-2}" \
    --device gpu "${args[@]}" --out "$out/sweep"
  [ -z "${NO_RATIO:-}" ] && python3 tools/sweep.py --mixsim bd/mixsim --small 1048576 --large 1000 --ratio 2,50 \
    --steps "${STEPS:-200}" --repeat "${REPEAT:-2}" --device gpu "${args[@]}" \
    --out "$out/ratio"
  ;;
*) echo "PART must be targets or sweep" >&2; exit 2 ;;
esac
