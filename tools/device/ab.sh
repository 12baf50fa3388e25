#!/usr/bin/env bash
# On the GPU machine: this tree against an older one (.deps/before.tar, made with
#   git archive --prefix=before/ REV >.deps/before.tar), side by side. Every shipped scene's
# state hash from both builds on the GPU and from this one on pocl (HASH_STEPS, 500), then
# ms/iteration of each configuration in CONFIGS, REPEAT (5) runs of each build interleaved:
# median (min-max) per build, and the ratio of the medians; every run's figure stays in
# OUT/runs.tsv (configuration, build, ms/iteration) for tests of their own.
#   CONFIGS="mixed.ini:4000:;big:300:--large-on device" REPEAT=5 OUT=results tools/device/ab.sh
# A config is SCENE:STEPS:OPTIONS; SCENE 'big' is a generated scene of SMALL (1048576) small
# and 1000 large discs of radius ratio 10; other names are scenes/NAME.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-device-results}
mkdir -p "$out"
. tools/device/build.sh --before bb bd
nvidia-smi -L
for b in bd bb; do
  MIXSIM_DEVICE=gpu tools/scene_hashes.sh $b/mixsim -n "${HASH_STEPS:-500}" >"$out/hashes_gpu_$b.txt" 2>&1
done
MIXSIM_DEVICE=cpu tools/scene_hashes.sh bd/mixsim -n "${HASH_STEPS:-500}" >"$out/hashes_cpu_bd.txt" 2>&1
for f in hashes_gpu_bb hashes_cpu_bd; do
  cmp -s "$out/hashes_gpu_bd.txt" "$out/$f.txt" && echo "hashes: $f = this build on the GPU" ||
    { echo "HASHES DIFFER: $f"; diff "$out/hashes_gpu_bd.txt" "$out/$f.txt"; }
done
python3 tools/sweep_scene.py --small "${SMALL:-1048576}" --large 1000 --ratio 10 --out "$out/big.ini"
IFS=';' read -ra configs <<<"${CONFIGS:-mixed.ini:4000:;mixed.ini:4000:--large-on device;big:300:;big:300:--large-on device}"
for c in "${configs[@]}"; do
  IFS=: read -r scene steps opts <<<"$c"
  [ "$scene" = big ] && path=$out/big.ini || path=scenes/$scene
  for r in $(seq "${REPEAT:-5}"); do
    for b in bd bb; do
      # shellcheck disable=SC2086 # the options split on purpose
      $b/mixsim "$path" -q --headless -n "$steps" --device gpu $opts --stats "$out/s.json" >/dev/null 2>&1 &&
        python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['ms_per_iteration'])" "$out/s.json" \
          >>"$out/t_$b" || echo "$b $c run $r failed"
    done
  done
  python3 - "$c" "$out/t_bd" "$out/t_bb" <<'EOF'
import statistics, sys
m = {}
for name, path in (("this", sys.argv[2]), ("before", sys.argv[3])):
    t = [float(x) for x in open(path)]
    m[name] = statistics.median(t)
    print("%-40s %-6s %.4f ms/iteration (%.4f-%.4f, %d runs)" % (sys.argv[1], name, m[name], min(t), max(t), len(t)))
print("%-40s this/before %.3f" % (sys.argv[1], m["this"] / m["before"]))
EOF
  for b in bd bb; do
    [ $b = bd ] && name=this || name=before
    sed "s|^|$c\t$name\t|" "$out/t_$b" >>"$out/runs.tsv"
  done
  rm -f "$out/t_bd" "$out/t_bb" "$out/s.json"
done
