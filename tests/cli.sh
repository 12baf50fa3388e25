#!/usr/bin/env bash
# End-to-end checks of the mixsim command: the pocl thread count does not change the
# hash, outputs are complete files, bad input and a missing OpenCL platform give the
# documented exit codes and messages.
# usage: cli.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$1
root=$2
filter=${3:-}
. "$(dirname "$0")/lib.sh"

test_hash_pocl_1_vs_2_threads() {
  POCL_MAX_PTHREAD_COUNT=1 "$exe" -q -n 100 "$root/scenes/mixed.ini" >"$tmp/t1" || return 1
  POCL_MAX_PTHREAD_COUNT=2 "$exe" -q -n 100 "$root/scenes/mixed.ini" >"$tmp/t2" || return 1
  local a b
  a=$(hash_of "$tmp/t1")
  b=$(hash_of "$tmp/t2")
  echo "    1 thread: $a, 2 threads: $b"
  [ -n "$a" ] && [ "$a" = "$b" ]
}

test_stats_and_dump_written() {
  "$exe" -q -n 20 --stats "$tmp/s.json" --dump "$tmp/d.csv" "$root/tests/scenes/tiny.ini" \
    >"$tmp/out" || return 1
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
assert d['iterations']==20 and d['state_hash']==sys.argv[2] and 'cpu_worker' in d['threads']" \
    "$tmp/s.json" "$(hash_of "$tmp/out")" || return 1
  # The idle share of each thread, the contacts and the kinetic energy, as the report says them.
  python3 - "$tmp/s.json" "$tmp/out" <<'PY' || return 1
import json, re, sys
d = json.load(open(sys.argv[1]))
report = open(sys.argv[2]).read()
idle = d['idle_fraction']
assert all(0.0 <= idle[k] <= 1.0 for k in ('gpu_manager', 'cpu_worker')), idle
shown = [float(x) for x in re.findall(r'idle +([0-9.]+) %', report)]
assert len(shown) == 2 and abs(shown[0] - 100 * idle['gpu_manager']) < 0.06, (shown, idle)
c = d['contacts']
m = re.search(r'contacts +(\d+) small-small, (\d+) large-small, (\d+) large-large, (\d+) at walls; '
              r'kinetic energy ([0-9.e+-]+)', report)
assert m and [int(x) for x in m.groups()[:4]] == [c['small_small'], c['large_small'],
                                                  c['large_large'], c['wall']], (m, c)
assert sum(c.values()) > 0 and d['kinetic_energy'] > 0
assert abs(float(m.group(5)) / d['kinetic_energy'] - 1) < 1e-8
PY
  local n
  n=$(python3 -c "import json;d=json.load(open('$tmp/s.json'));print(d['small_particles']+d['large_particles']+1)")
  [ "$(wc -l <"$tmp/d.csv")" -eq "$n" ] && ! ls "$tmp"/*.tmp* >/dev/null 2>&1
}

test_bad_scene_exit_2_names_line() {
  printf '[simulation]\ndt = 1e-4\n[box]\nmin = 0, 0\nmax = 1, 1\n[material]\nstiffness = 1e4\nrestitution = fast\n' \
    >"$tmp/bad.ini"
  "$exe" --stats "$tmp/never.json" "$tmp/bad.ini" >/dev/null 2>"$tmp/err"
  local rc=$?
  cat "$tmp/err"
  [ $rc -eq 2 ] && grep -q "bad.ini:8:" "$tmp/err" && grep -q restitution "$tmp/err" &&
    [ ! -e "$tmp/never.json" ]
}

test_bad_option_exit_2() {
  "$exe" --steps -3 "$root/tests/scenes/tiny.ini" 2>"$tmp/err" >/dev/null
  local rc=$?
  [ $rc -eq 2 ] && grep -q -- "--steps" "$tmp/err" || return 1
  "$exe" --pipeline sideways "$root/tests/scenes/tiny.ini" 2>"$tmp/err" >/dev/null
  rc=$?
  [ $rc -eq 2 ] && grep -q -- "--pipeline" "$tmp/err" || return 1
  "$exe" --device 9:9 "$root/tests/scenes/tiny.ini" 2>"$tmp/err" >/dev/null
  rc=$?
  [ $rc -eq 2 ] && grep -q "no such device" "$tmp/err" || return 1
  "$exe" --large-on gpu "$root/tests/scenes/tiny.ini" 2>"$tmp/err" >/dev/null
  rc=$?
  [ $rc -eq 2 ] && grep -q "^mixsim: --large-on: expected cpu, device or auto, got 'gpu'$" "$tmp/err"
}

test_no_platform_exit_3() {
  mkdir -p "$tmp/empty"
  OCL_ICD_VENDORS="$tmp/empty" OCL_ICD_FILENAMES="" "$exe" "$root/tests/scenes/tiny.ini" \
    2>"$tmp/err" >/dev/null
  local rc=$?
  cat "$tmp/err"
  [ $rc -eq 3 ] && grep -q "pocl-opencl-icd" "$tmp/err"
}

test_list_devices() {
  "$exe" --list-devices >"$tmp/list" || return 1
  cat "$tmp/list"
  grep -q "^0:0 " "$tmp/list"
}

test_kernel_dir_same_hash_and_build_log() {
  "$exe" -q -n 30 "$root/tests/scenes/tiny.ini" >"$tmp/embedded" || return 1
  MIXSIM_KERNEL_DIR="$root/kernels" "$exe" -q -n 30 "$root/tests/scenes/tiny.ini" >"$tmp/disk" ||
    return 1
  [ "$(hash_of "$tmp/embedded")" = "$(hash_of "$tmp/disk")" ] || return 1
  # A kernel that does not compile: exit 1, the failing call and the build log.
  cp -r "$root/kernels" "$tmp/broken"
  echo "this is not OpenCL C;" >>"$tmp/broken/collide.cl"
  MIXSIM_KERNEL_DIR="$tmp/broken" "$exe" -q -n 1 "$root/tests/scenes/tiny.ini" >/dev/null 2>"$tmp/err"
  local rc=$?
  head -3 "$tmp/err"
  [ $rc -eq 1 ] && grep -q "clBuildProgram failed" "$tmp/err" && grep -q "build log" "$tmp/err" &&
    grep -q "collide" "$tmp/err"
}

# The report's kernel table lists the kernels that ran, and only those: with friction and
# the large particles on the device the long _fric names are there, the frictionless and
# zone kernels are not; every row's figure ends in the same column.
test_kernel_table_lists_what_ran_aligned() {
  "$exe" -q -n 5 --large-on device "$root/tests/scenes/tiny_friction.ini" >"$tmp/k.out" || return 1
  sed -n '/^  kernels (OpenCL profiling)$/,/^grid /p' "$tmp/k.out" | sed '1d;$d' >"$tmp/k.rows"
  cat "$tmp/k.rows"
  grep -q "^    large_small_react_fric  *[0-9.]* ms/it$" "$tmp/k.rows" &&
    grep -q "^    collide_small_fric  *[0-9.]* ms/it$" "$tmp/k.rows" || return 1
  ! grep -q "^    \(collide_small\|large_small_react\|zone_[a-z]*\) " "$tmp/k.rows" || return 1
  [ "$(awk '{ print index($0, " ms/it") }' "$tmp/k.rows" | sort -u | wc -l)" -eq 1 ] &&
    [ "$(wc -l <"$tmp/k.rows")" -ge 10 ]
}

# --profile: off leaves the kernels untimed (the report says so, the JSON's times are 0 and
# kernels_profiled false), on times them; the state is the same. Bad values and gravity
# scenes are refused with exit 2.
test_profile_on_off() {
  local s=$root/tests/scenes/tiny.ini
  "$exe" -q -n 30 --profile off --stats "$tmp/off.json" "$s" >"$tmp/off" || return 1
  "$exe" -q -n 30 --profile on --stats "$tmp/on.json" "$s" >"$tmp/on" || return 1
  grep "kernels" "$tmp/off"
  grep -q "^  kernels: not timed (--profile on times them" "$tmp/off" &&
    grep -q "^  kernels (OpenCL profiling)$" "$tmp/on" || return 1
  [ -n "$(hash_of "$tmp/on")" ] && [ "$(hash_of "$tmp/on")" = "$(hash_of "$tmp/off")" ] || return 1
  python3 - "$tmp/off.json" "$tmp/on.json" <<'PY' || return 1
import json, sys
off, on = (json.load(open(p)) for p in sys.argv[1:3])
assert off["kernels_profiled"] is False and on["kernels_profiled"] is True
assert all(k["total_s"] == 0 for k in off["kernels"].values())
assert on["kernels"]["collide_small"]["total_s"] > 0
PY
  "$exe" -q -n 1 --profile yes "$s" >/dev/null 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 2 ] && grep -q "^mixsim: --profile: expected on, off or auto, got 'yes'$" "$tmp/err" ||
    return 1
  "$exe" -q -n 1 --profile on "$root/scenes/plummer.ini" >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] && grep -q "^mixsim: --profile: expected a scene with mode = collision" "$tmp/err"
}

check test_hash_pocl_1_vs_2_threads
check test_profile_on_off
check test_kernel_dir_same_hash_and_build_log
check test_stats_and_dump_written
check test_bad_scene_exit_2_names_line
check test_bad_option_exit_2
check test_no_platform_exit_3
check test_list_devices
check test_kernel_table_lists_what_ran_aligned
finish
