#!/usr/bin/env bash
# The benchmark tools: bench.py reports each configuration's median, min-max, IQR and
# runs, the machine it ran on and a verdict for each compared pair (never timings asserted:
# either verdict passes), says when too few runs or a missing scipy allow no test (naming
# the module) and refuses bad configurations; plot_breakdown.py draws a PNG from its JSON
# or from --stats files; the stats JSON carries the OpenCL driver's version; tools/device/breakdown.sh runs
# through on pocl at tiny sizes.
#   bench_tools.sh MIXSIM SOURCE_ROOT PYTHON   (a Python with scipy and matplotlib)
exe=$(realpath "$1")
root=$2
py=${3:-python3}
set -u
filter=${4:-}
. "$root/tests/lib.sh"

"$py" -c "import scipy.stats, matplotlib" 2>/dev/null || need_python scipy.stats matplotlib
bench() { "$py" "$root/tools/bench.py" "$exe" "$root/tests/scenes/tiny.ini" --steps 3 "$@"; }
variants=(--variant "shared=-b shared" --variant "copied=-b copied")

test_bench_reports_spread_machine_and_verdict() {
  bench "${variants[@]}" --repeat 5 --json "$tmp/bench.json" >"$tmp/out" 2>&1 || {
    cat "$tmp/out"
    return 1
  }
  cat "$tmp/out"
  local want
  for want in "^| configuration | median ms/iteration | min-max | IQR | runs |" \
    "^| shared | [0-9.]* | [0-9.]*-[0-9.]* | [0-9.]* | 5 |" "^| copied | [0-9.]* | [0-9.]*-[0-9.]* | [0-9.]* | 5 |" \
    "^machine:" "^  CPU  .*, [0-9]* cores" "^  load average [0-9. ]* at start, [0-9. ]* at end" \
    "^  OpenCL  .*\[.*\], driver ." \
    "^- \(\(shared\|copied\) faster than \(shared\|copied\) by [0-9.]* % (p = [0-9.e-]*, Mann-Whitney U, n = 5 + 5)\|shared vs copied: no difference measurable at this noise (p = [0-9.e-]*, n = 5 + 5)\)$"; do
    grep -q -- "$want" "$tmp/out" || { echo "    missing: $want"; return 1; }
  done
  "$py" - "$tmp/bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["configurations"] == ["shared", "copied"], d["configurations"]
for n in d["configurations"]:
    s = d["stats"][n]
    assert len(d["runs"][n]) == s["runs"] == 5, s
    assert s["min"] <= s["q1"] <= s["median"] <= s["q3"] <= s["max"], s
for k in ("cpu_model", "cores", "load_start", "load_end", "device", "driver_version"):
    assert d["machine"].get(k), (k, d["machine"])
(v,) = d["verdicts"]
assert v["p"] is not None and 0 <= v["p"] <= 1, v
PY
}

test_too_few_runs_no_test() {
  bench "${variants[@]}" --repeat 2 >"$tmp/few" 2>&1 || { cat "$tmp/few"; return 1; }
  grep -q "^- shared vs copied: no test possible with 2 and 2 runs" "$tmp/few" || { cat "$tmp/few"; return 1; }
  grep -q "faster\|no difference" "$tmp/few" && return 1
  return 0
}

test_plot_from_bench_json_and_stats() {
  [ -f "$tmp/bench.json" ] || bench "${variants[@]}" --repeat 1 --json "$tmp/bench.json" >/dev/null 2>&1
  "$py" "$root/tools/plot_breakdown.py" "$tmp/bench.json" --out "$tmp/fig.png" || return 1
  "$exe" -q --headless -n 3 --stats "$tmp/one.json" "$root/tests/scenes/tiny.ini" >/dev/null || return 1
  "$exe" -q --headless -n 3 -b copied --stats "$tmp/two.json" "$root/tests/scenes/tiny.ini" >/dev/null || return 1
  "$py" "$root/tools/plot_breakdown.py" "$tmp/one.json" "$tmp/two.json" --out "$tmp/fig2.png" || return 1
  local f
  for f in "$tmp/fig.png" "$tmp/fig2.png"; do # a PNG, not empty
    [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || return 1
    [ "$(stat -c %s "$f")" -gt 10000 ] || return 1
  done
}

# With the large particles on the device the manager's one blocking wait is mostly the
# iteration's kernels: it is booked as wait_device, apart from grid_build, in both paths,
# and plot_breakdown.py knows every phase of the stats and draws that one as a wait.
test_wait_for_device_apart_from_grid_build() {
  local where
  for where in device cpu; do
    "$exe" -q --headless -n 20 --large-on $where --stats "$tmp/w_$where.json" \
      "$root/tests/scenes/tiny.ini" >/dev/null || return 1
  done
  "$py" - "$root/tools" "$tmp/w_device.json" "$tmp/w_cpu.json" <<'PY' || return 1
import json, sys
sys.path.insert(0, sys.argv[1])
import plot_breakdown as pb
for path in sys.argv[2:]:
    d = json.load(open(path))
    g = d["threads"]["gpu_manager"]
    assert g["wait_device"]["ms_per_iteration"] > 0 and g["grid_build"]["ms_per_iteration"] > 0, g
    for th, phases in d["threads"].items():
        known = {k for k, _, _, _ in pb.PHASES[th]}
        assert set(phases) <= known, (th, set(phases) - known)
waits = {k for k, _, _, w in pb.PHASES["gpu_manager"] if w}
assert "wait_device" in waits and "grid_build" not in waits, waits
PY
  "$py" "$root/tools/plot_breakdown.py" "$tmp/w_device.json" "$tmp/w_cpu.json" --out "$tmp/w.png"
}

test_stats_json_has_driver_version() {
  "$exe" -q --headless -n 2 --stats "$tmp/s.json" "$root/tests/scenes/tiny.ini" >/dev/null || return 1
  "$py" -c 'import json, sys; v = json.load(open(sys.argv[1]))["driver_version"]; assert v.strip(), v' \
    "$tmp/s.json"
}

test_missing_scipy_named() {
  mkdir -p "$tmp/noscipy/scipy"
  echo 'raise ImportError("No module named scipy")' >"$tmp/noscipy/scipy/__init__.py"
  # the runs are still reported; each verdict says why there is none
  PYTHONPATH="$tmp/noscipy" bench "${variants[@]}" --repeat 5 >"$tmp/ns" 2>&1 || { cat "$tmp/ns"; return 1; }
  cat "$tmp/ns"
  grep -q "^bench.py: the Python module 'scipy' is missing for .*python3-scipy.*: no verdicts" "$tmp/ns" &&
    grep -q "^- shared vs copied: no test possible: the Python module 'scipy' is missing" "$tmp/ns" &&
    grep -q "^| copied | " "$tmp/ns" && ! grep -q "faster than\|no difference" "$tmp/ns"
}

test_bad_configurations_refused() {
  bench --variant "noequals" >"$tmp/e1" 2>&1 && return 1
  grep -q -- "--variant needs NAME=OPTIONS, got 'noequals'" "$tmp/e1" || { cat "$tmp/e1"; return 1; }
  bench "${variants[@]}" --compare shared nosuch >"$tmp/e2" 2>&1 && return 1
  grep -q -- "--compare nosuch: no such configuration (have: shared, copied)" "$tmp/e2" || { cat "$tmp/e2"; return 1; }
  bench --variant "bad=--no-such-option" --repeat 1 >"$tmp/e3" 2>&1 && return 1
  grep -q "no-such-option" "$tmp/e3" || { cat "$tmp/e3"; return 1; }
}

test_breakdown_device_script_on_pocl() {
  # tools/device/breakdown.sh's runs and plots at tiny sizes, on an existing build
  MIXSIM="$exe" DEVICE=cpu PYTHON="$py" SMALL=800 STEPS_MIXED=3 STEPS_BIG=3 REPEAT=1 \
    OUT="$tmp/bd" "$root/tools/device/breakdown.sh" >"$tmp/bd.log" 2>&1 || { cat "$tmp/bd.log"; return 1; }
  local f
  for f in machine.txt bench_mixed.txt bench_mixed.json breakdown_mixed.png bench_800.json \
    breakdown_800.png; do
    [ -s "$tmp/bd/$f" ] || { echo "    no $f"; cat "$tmp/bd.log"; return 1; }
  done
  for f in naive/shared naive/copied reordered/shared reordered/copied zone device-only; do
    grep -q "^| $f | " "$tmp/bd/bench_800.txt" || { echo "    no $f row"; return 1; }
  done
}

check test_bench_reports_spread_machine_and_verdict
check test_too_few_runs_no_test
check test_plot_from_bench_json_and_stats
check test_stats_json_has_driver_version
check test_wait_for_device_apart_from_grid_build
check test_missing_scipy_named
check test_bad_configurations_refused
check test_breakdown_device_script_on_pocl
finish
