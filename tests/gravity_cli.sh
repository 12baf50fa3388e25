#!/usr/bin/env bash
# The mixsim command on gravity scenes: the report and its figures, stats JSON and a
# dump that loads back as bodies = file, the same hash across devices and bursts, and
# the documented exit codes for bad options.
# usage: gravity_cli.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$1
root=$2
filter=${3:-}
. "$(dirname "$0")/lib.sh"

small_scene() { # file, extra [gravity] lines
  printf '[simulation]\nmode = gravity\ndt = 0.001\nsteps = 20\nseed = 9\n[gravity]\nbodies = plummer\ncount = 700\nsoftening = 0.01\ndiagnostics_every = 10\n%s' "${2:-}" >"$1"
}

test_kepler_report() {
  "$exe" -n 400 "$root/scenes/kepler.ini" >"$tmp/out" || return 1
  cat "$tmp/out"
  grep -q "^step      400 " "$tmp/out" && grep -q "interactions/s" "$tmp/out" &&
    grep -q "dE/E" "$tmp/out" && [ -n "$(hash_of "$tmp/out")" ]
}

test_stats_json_and_dump_round_trip() {
  small_scene "$tmp/a.ini"
  "$exe" -q --stats "$tmp/s.json" --dump "$tmp/d.csv" "$tmp/a.ini" >"$tmp/out" || return 1
  python3 - "$tmp/s.json" "$(hash_of "$tmp/out")" <<'EOF' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "gravity" and d["bodies"] == 700 and d["steps"] == 20, d
assert d["state_hash"] == sys.argv[2]
assert d["interactions_per_s"] > 0 and abs(d["gflops"] - 20e-9 * d["interactions_per_s"]) < 1e-6
assert len(d["diagnostics"]) == 3 and d["energy"]["mode"] == "auto"
assert abs(d["energy"]["relative_error"]) < 1e-4 and 0.8 < d["virial_ratio"] < 1.2
EOF
  [ "$(wc -l <"$tmp/d.csv")" -eq 701 ] || return 1
  # the dump is a bodies file: zero more steps from it give the same state
  printf '[simulation]\nmode = gravity\ndt = 0.001\nsteps = 1\n[gravity]\nbodies = file\nfile = d.csv\nsoftening = 0.01\n' >"$tmp/b.ini"
  "$exe" -q -n 1 --dump "$tmp/d2.csv" "$tmp/b.ini" >/dev/null || return 1
  "$exe" -q -n 21 --dump "$tmp/d3.csv" "$tmp/a.ini" >/dev/null || return 1
  cmp "$tmp/d2.csv" "$tmp/d3.csv" && ! ls "$tmp"/*.tmp* >/dev/null 2>&1
}

test_same_hash_devices_and_bursts() {
  small_scene "$tmp/c.ini"
  local ref h spec kernel
  "$exe" -q --stats "$tmp/c.json" "$tmp/c.ini" >"$tmp/o1" || return 1
  ref=$(hash_of "$tmp/o1")
  read -r spec kernel < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["devices"][0]; print(d["spec"], d["kernel"])' "$tmp/c.json")
  for args in "--burst 1" "--burst 20" "--devices $spec,$spec" "--devices $spec/2 --burst 3"; do
    # shellcheck disable=SC2086
    "$exe" -q --gravity-kernel "$kernel" $args "$tmp/c.ini" >"$tmp/o2" 2>"$tmp/err" || {
      [[ $args == *"/2"* ]] && grep -q clCreateSubDevices "$tmp/err" && continue # not partitionable
      return 1
    }
    h=$(hash_of "$tmp/o2")
    echo "    $args: $h (single device $spec, $kernel: $ref)"
    [ "$h" = "$ref" ] || return 1
  done
}

# An empty item of a --devices list is refused naming its position, not skipped.
test_devices_empty_items_refused() {
  local list pos
  for list in ":1" "cpu,:2" ",cpu:1" "cpu,,cpu:2" ",:1"; do
    pos=${list##*:}
    list=${list%:*}
    "$exe" -q --devices "$list" "$root/scenes/kepler.ini" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    echo "    --devices '$list' -> $rc: $(cat "$tmp/err")"
    [ $rc -eq 2 ] && grep -qF -- "--devices: item $pos of '$list' is empty" "$tmp/err" &&
      ! grep -q "state hash" "$tmp/out" || return 1
  done
}

test_bad_options_exit_2() {
  local opt rc
  for opt in "--gravity-kernel fastest" "--devices gpu;cpu" "--burst 0" "--devices 9:9"; do
    # shellcheck disable=SC2086
    "$exe" -q $opt "$root/scenes/kepler.ini" >/dev/null 2>"$tmp/err"
    rc=$?
    cat "$tmp/err"
    [ $rc -eq 2 ] || return 1
  done
  "$exe" -q --gravity-kernel soa16 "$root/tests/scenes/tiny.ini" >/dev/null 2>"$tmp/err"
  rc=$?
  cat "$tmp/err"
  [ $rc -eq 2 ] && grep -q "mode = gravity" "$tmp/err"
}

test_bad_csv_exit_2_names_csv_line() {
  printf 'x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n1,0,0,0,0,0,nan\n' >"$tmp/bad.csv"
  printf '[simulation]\nmode = gravity\ndt = 0.01\n[gravity]\nbodies = file\nfile = bad.csv\nsoftening = 0.1\n' >"$tmp/bad.ini"
  "$exe" "$tmp/bad.ini" >/dev/null 2>"$tmp/err"
  local rc=$?
  cat "$tmp/err"
  [ $rc -eq 2 ] && grep -q "bad.csv:3: column m: NaN/Inf not allowed" "$tmp/err"
}

test_runaway_exit_4() {
  # two heavy bodies 1e-9 apart and a huge step: the first kick overflows a float
  printf '0,0,0,0,0,0,1e20\n1e-9,0,0,0,0,0,1e20\n' >"$tmp/close.csv"
  printf '[simulation]\nmode = gravity\ndt = 1e20\nsteps = 5\n[gravity]\nbodies = file\nfile = close.csv\nsoftening = 1e-6\ndt_check = off\n' >"$tmp/close.ini"
  "$exe" -q --checkpoint "$tmp/lg.ck" "$tmp/close.ini" >/dev/null 2>"$tmp/err"
  local rc=$?
  cat "$tmp/err"
  [ $rc -eq 4 ] && grep -q "no longer finite" "$tmp/err" &&
    grep -q "last good state (step" "$tmp/err" || return 1
  # The last good state is finite (a non-finite one would be refused): it loads, and
  # the next step fails again, the same way.
  local at
  at=$(sed -n "s/.*last good state (step \([0-9]*\)).*/\1/p" "$tmp/err")
  "$exe" -q -n $((at + 1)) --resume "$tmp/lg.ck" "$tmp/close.ini" >/dev/null 2>"$tmp/err2"
  rc=$?
  cat "$tmp/err2"
  [ $rc -eq 4 ] && grep -q "no longer finite" "$tmp/err2" && ! grep -q refused "$tmp/err2"
}

test_broken_kernel_exit_1_with_log() {
  cp -r "$root/kernels" "$tmp/kernels"
  printf '\n__kernel void broken(void) { undeclared_name = 1; }\n' >>"$tmp/kernels/gravity.cl"
  MIXSIM_KERNEL_DIR="$tmp/kernels" "$exe" -q -n 1 "$root/scenes/kepler.ini" >/dev/null 2>"$tmp/err"
  local rc=$?
  head -c 600 "$tmp/err"
  [ $rc -eq 1 ] && grep -q "clBuildProgram failed" "$tmp/err" && grep -q "undeclared_name" "$tmp/err"
}

check test_kepler_report
check test_stats_json_and_dump_round_trip
check test_same_hash_devices_and_bursts
check test_devices_empty_items_refused
check test_bad_options_exit_2
check test_bad_csv_exit_2_names_csv_line
check test_runaway_exit_4
check test_broken_kernel_exit_1_with_log
finish
