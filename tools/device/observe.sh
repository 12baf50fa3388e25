#!/usr/bin/env bash
# On the GPU machine: the observation features on the GPU (docs/trace.md, docs/output.md).
# Builds mixsim; checks that the GPU and the machine's pocl still give every shipped scene
# one state hash; runs the trace, diagnostics and output tests against the GPU (a test
# whose Python module is missing there skips with 77); traces scenes/mixed.ini on the GPU
# in both pipelines, checks the traces and draws their Fig 10.4 strips; and times a run of
# one million small particles with and without --output (every 50 steps) and with
# --diagnostics, interleaved, to show what output costs the simulation threads.
#   OUT=results REPEAT=3 tools/device/observe.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-device-results}
mkdir -p "$out"
. tools/device/build.sh bd
nvidia-smi -L
for dev in gpu cpu; do
  MIXSIM_DEVICE=$dev tools/scene_hashes.sh bd/mixsim -n 500 >"$out/hashes_$dev.txt" 2>&1
done
cmp -s "$out/hashes_gpu.txt" "$out/hashes_cpu.txt" && echo "same hashes on the GPU and pocl" ||
  { echo "HASHES DIFFER"; diff "$out/hashes_gpu.txt" "$out/hashes_cpu.txt"; }
for t in trace diagnostics output_vtk; do
  MIXSIM_DEVICE=gpu bash "tests/$t.sh" bd/mixsim . >"$out/test_$t.txt" 2>&1
  echo "tests/$t.sh on the GPU: exit $? ($(tail -1 "$out/test_$t.txt"))"
done
for p in naive reordered; do
  bd/mixsim scenes/mixed.ini -q --headless -n 300 --device gpu -p $p --exchange full \
    --trace "$out/trace_$p.json" --trace-steps 100:110 | tail -1
  python3 tests/trace_check.py "$out/trace_$p.json" --window 100:110
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['otherData'])" "$out/trace_$p.json"
  python3 tools/timeline.py "$out/trace_$p.json" --iterations 100:103 --out "$out/timeline_$p.png" \
    --title "scenes/mixed.ini on the H200, $p" || true
done
python3 tools/sweep_scene.py --small "${SMALL:-1048576}" --large 1000 --ratio 10 --out "$out/big.ini"
for r in $(seq "${REPEAT:-3}"); do
  for v in none output diagnostics; do
    rm -rf "$out/frames_$v"
    case $v in
    none) o=() ;;
    output) o=(--output "$out/frames_$v" --output-every 50) ;;
    diagnostics) o=(--output "$out/frames_$v" --output-every 50 --diagnostics) ;;
    esac
    bd/mixsim "$out/big.ini" -q --headless -n 300 --device gpu --stats "$out/stats_${v}_$r.json" \
      "${o[@]}" >/dev/null 2>&1 || echo "run $v $r failed"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], '%.4f ms/iteration' % d['ms_per_iteration'], d['state_hash'], d.get('writer', ''))" "$out/stats_${v}_$r.json" "$v"
  done
done
rm -rf "$out"/frames_*
