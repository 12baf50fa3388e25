#!/usr/bin/env bash
# On the GPU machine: the scaling sweep of the heterogeneous pipeline (tools/sweep.py) and
# the issue-11 target scenes, each variant interleaved, against the build before the
# exchange work when its sources are carried as .deps/before.tar (git archive
# --prefix=before/ REV). Results (CSV, PNG, Markdown) go to $OUT.
#   VARIANTS="zone=--exchange zone;full=--exchange full" POINTS="1048576 1000 10" tools/scaling-device.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-device-results}
mkdir -p "$out"
eval "$(tools/device-setup.sh)"
python3 -c "import matplotlib" 2>/dev/null || pip install -q matplotlib >/dev/null 2>&1 || true
{
  nvidia-smi -L
  rm -rf bd && meson setup bd -Dsdl=disabled --buildtype=release && meson compile -C bd
  if [ -f .deps/before.tar ]; then
    rm -rf before bb && tar xf .deps/before.tar &&
      (cd before && meson setup ../bb -Dsdl=disabled --buildtype=release &&
        meson compile -C ../bb mixsim:executable)
  fi
} >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
IFS=';' read -r -a vs <<<"${VARIANTS:-shared=-b shared;copied=-b copied}"
args=()
for v in "${vs[@]}"; do args+=(--variant "$v"); done
[ -x bb/mixsim ] && args+=(--variant "landed=@bb/mixsim -b shared")
# The targets of issue 11: (small, large, ratio) with the reordered pipeline.
IFS=';' read -r -a points <<<"${POINTS:-1048576 1000 10;4194304 4000 10;1048576 20000 4;65536 1000 10}"
for point in "${points[@]}"; do
  set -- $point
  python3 tools/sweep.py --mixsim bd/mixsim --small "$1" --large "$2" --ratio "$3" \
    --steps "${STEPS:-300}" --repeat "${REPEAT:-3}" --device gpu "${args[@]}" \
    --out "$out/target_$1_$2" 2>&1 | tee -a "$out/targets.md"
done
if [ -n "${SWEEP:-}" ]; then
  python3 tools/sweep.py --mixsim bd/mixsim --small 8192,65536,262144,1048576 \
    --large 10,1000,20000 --ratio 2,10,50 --steps 200 --repeat 3 --device gpu "${args[@]}" \
    --out "$out/sweep" 2>&1 | tee "$out/sweep.md"
fi
