#!/usr/bin/env bash
# On the GPU machine: the open systems' experiments (docs/validation.md). The 2D silo's
# discharge at five orifice widths (tools/beverloo.py, TIME_SILO simulated seconds, 3) and
# the periodic chute at two inclinations (tools/chute.py, TIME_CHUTE, 4), all at once on
# the GPU; then, where the machine's python3 has numpy, scipy and matplotlib, their fits,
# else the runs' diagnostics and a tenth of the frames, packed, for a fit elsewhere.
# Results under OUT.
#   OUT=results tools/device/open_validate.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-device-results}
mkdir -p "$out"
. tools/device/build.sh --keep bo
python3 tools/beverloo.py run --mixsim bo/mixsim --out "$out/silo" --time "${TIME_SILO:-3}" \
  --every 0.05 --jobs 5 --mixsim-args "--device gpu --cpu-threads 2" >"$out/silo_run.txt" 2>&1 &
python3 tools/chute.py run --mixsim bo/mixsim --out "$out/chute" --time "${TIME_CHUTE:-4}" \
  --every 0.05 --jobs 2 --mixsim-args "--device gpu --cpu-threads 2" >"$out/chute_run.txt" 2>&1 &
wait
tail -3 "$out/silo_run.txt" "$out/chute_run.txt"
if python3 -c 'import numpy, scipy, matplotlib' 2>/dev/null; then
  python3 tools/beverloo.py fit --out "$out/silo" >"$out/silo_fit.txt" 2>&1
  python3 tools/chute.py analyse --out "$out/chute" >"$out/chute_fit.txt" 2>&1
  tail -20 "$out/silo_fit.txt" "$out/chute_fit.txt"
else
  echo "no numpy/scipy/matplotlib here: packing the runs"
fi
tar czf "$out/runs.tgz" -C "$out" --exclude='*.vtp' silo chute 2>/dev/null
ls -la "$out/runs.tgz"
rm -rf "$out/silo" "$out/chute"
