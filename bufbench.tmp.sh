#!/usr/bin/env bash
set -u
. tools/device/build.sh bo >/dev/null 2>&1 || { echo build failed; exit 1; }
python3 tools/sweep_scene.py --small 1048576 --large 1000 --ratio 10 --shape box --out /tmp/b.ini >/dev/null
bo/mixsim /tmp/b.ini -q --headless -n 2000 --device gpu --checkpoint /tmp/b.ck >/dev/null 2>&1
for r in 1 2 3; do
  for o in "" "--buffers copied" "--buffers copied --pipeline naive" "--exchange full"; do
    tag=$(echo "x$o" | tr -d ' -')
    bo/mixsim /tmp/b.ini --headless --resume /tmp/b.ck -n 2300 --device gpu $o --stats $OUT/b_${tag}_$r.json >/dev/null 2>&1
    bo/mixsim scenes/mixed.ini --headless -n 2000 --device gpu $o --stats $OUT/m_${tag}_$r.json >/dev/null 2>&1
  done
done
python3 - <<'PY'
import json, os, statistics, glob
out = os.environ["OUT"]
for sc in ("b", "m"):
    for tag in ("x", "xbufferscopied", "xbufferscopiedpipelinenaive", "xexchangefull"):
        v = []
        for r in (1, 2, 3):
            try:
                d = json.load(open("%s/%s_%s_%d.json" % (out, sc, tag, r)))
                v.append(d["ms_per_iteration"])
            except Exception:
                pass
        if v:
            d = json.load(open("%s/%s_%s_1.json" % (out, sc, tag)))
            print("%s %-30s %.4f ms/it (%.4f-%.4f) %s %s %s host_in %.3f" % (sc, tag, statistics.median(v), min(v), max(v), d["buffers"], d["pipeline"], d["exchange"], d["threads"]["cpu_worker"].get("host_in", {}).get("ms_per_iteration", 0)))
PY
