#!/usr/bin/env bash
# The scaling-sweep tools: every generated scene loads and runs (small and large counts,
# size ratios from 2 to 50), and the runner writes one CSV row per scene and variant,
# recording a variant mixsim refuses instead of stopping; friction_cost.py runs one scene
# with and without friction and reports both.
#   sweep.sh MIXSIM SOURCE_ROOT
exe=$(realpath "$1")
root=$2
set -u
filter=${3:-}
. "$root/tests/lib.sh"

test_generated_scenes_run() {
  local args
  for args in "--small 500 --large 0 --ratio 2" "--small 2000 --large 40 --ratio 2" \
    "--small 3000 --large 30 --ratio 10" "--small 1500 --large 4 --ratio 50"; do
    # shellcheck disable=SC2086
    python3 "$root/tools/sweep_scene.py" $args --out "$tmp/s.ini" || return 1
    "$exe" -q -n 3 "$tmp/s.ini" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; return 1; }
    grep -q "warning" "$tmp/err" && { cat "$tmp/err"; return 1; }
    grep -q "^state hash .* (step 3)" "$tmp/out" || return 1
    echo "    $args: $(hash_of "$tmp/out")"
  done
}

test_runner_writes_rows() {
  python3 "$root/tools/sweep.py" --mixsim "$exe" --small 600,1200 --large 5 --ratio 4 \
    --steps 3 --repeat 2 --variant "shared=-b shared" --variant "copied=-b copied" \
    --variant "unknown=--no-such-option" --out "$tmp/sweep" >"$tmp/log" 2>&1 || {
    cat "$tmp/log"
    return 1
  }
  python3 - "$tmp/sweep/sweep.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 6, rows
good = [r for r in rows if r["variant"] != "unknown"]
assert all(not r["error"] and float(r["ms_min"]) <= float(r["ms_median"]) <= float(r["ms_max"])
           for r in good), good
for small in ("600", "1200"):  # both buffer modes end on the same state
    assert len({r["state_hash"] for r in good if r["small"] == small}) == 1, good
bad = [r for r in rows if r["variant"] == "unknown"]
assert all("no-such-option" in r["error"] for r in bad), bad
PY
}

test_friction_cost_runs_both() {
  # The frozen frictionless demo, run as it is and with friction added: the first must
  # give the scene's own hash, the second another.
  python3 "$root/tools/studies/friction_cost.py" --mixsim "$exe" --scene "$root/tests/scenes/mixed_frictionless.ini" \
    --steps 3 --repeat 2 --csv "$tmp/cost.csv" >"$tmp/log" 2>&1 || { cat "$tmp/log"; return 1; }
  cat "$tmp/log"
  grep -q "friction / frictionless: [0-9.]*$" "$tmp/log" || return 1
  "$exe" -q -n 3 "$root/tests/scenes/mixed_frictionless.ini" >"$tmp/plain" || return 1
  python3 - "$tmp/cost.csv" "$(hash_of "$tmp/plain")" <<'PY'
import csv, sys
rows = {r["variant"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert set(rows) == {"frictionless", "friction"}, rows
assert rows["frictionless"]["state_hash"] == sys.argv[2], (rows, sys.argv[2])
assert rows["friction"]["state_hash"] != sys.argv[2], rows
assert all(int(r["runs"]) == 2 and float(r["ms_min"]) <= float(r["ms_median"]) <= float(r["ms_max"])
           for r in rows.values()), rows
PY
}

check test_generated_scenes_run
check test_runner_writes_rows
check test_friction_cost_runs_both
finish
