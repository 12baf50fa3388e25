#!/usr/bin/env bash
# --diagnostics (docs/output.md, "diagnostics.csv"): the energy balance of a damped closed
# box closes, frictionless and with friction (small and large discs, so the device's
# kernels and the CPU worker both accumulate the dissipated energy), and fails when the
# dissipated or the elastic term is left out; the columns and the rows' steps; the state
# hash with diagnostics on equals the hash without; gravity mode's CSV; a resumed run
# starts a fresh file; the large particles on the device (--large-on device and auto,
# frictionless and with friction): the balance closes, the rows are the CPU worker's; the
# refusal (no --output) and --output-clear.
# usage: diagnostics.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$1
root=$2
filter=${3:-}
. "$(dirname "$0")/lib.sh"
device_only="test_device_balance_frictionless test_device_balance_friction
  test_device_rows_equal_cpu test_device_friction_runs"
checker=$root/tests/check_diagnostics.py
box=$root/tests/scenes/diag_box.ini
fbox=$root/tests/scenes/diag_box_friction.ini
rocks=$root/tests/scenes/diag_rocks_friction.ini # friction: large-large and large-wall
run() { "$exe" -d cpu -q "$@"; }
every200=$(seq -s, 0 200 4000)

# Tolerance 3 % of the initial energy: symplectic Euler's energy error with the dashpots is
# first order in dt; on these scenes (dt = t_c / 36 for the lightest pair) the largest
# |E - E0| measured 1.5 % of E0 (frictionless) and 1.6 % (friction), and 0.74 % and 0.78 %
# at half the dt: the drift is the integrator's O(dt) error, not a missing term. About
# 60 % of E0 is dissipated by the end, and the elastic energy of the settling bed is 7-8 %
# of E0, so leaving either term out breaks the 3 % bound (checked below).
balance() { # scene, folder, extra checker arguments
  run "$1" --output "$2" --output-every 200 --diagnostics >"$2.out" &&
    python3 "$checker" "$2/diagnostics.csv" --steps "$every200" --tol 0.03 \
      --min-dissipated 0.3 "${@:3}"
}

test_balance_frictionless() {
  balance "$box" "$tmp/b" --positive contacts_ls,contacts_wall,dissipated || return 1
  # the negative controls: without the dissipated or the elastic energy it must fail
  ! python3 "$checker" "$tmp/b/diagnostics.csv" --steps "$every200" --without dissipated &&
    ! python3 "$checker" "$tmp/b/diagnostics.csv" --steps "$every200" --without elastic_normal
}

test_balance_friction() {
  balance "$fbox" "$tmp/f" --positive ke_rotational,elastic_tangential,contacts_ls || return 1
  ! python3 "$checker" "$tmp/f/diagnostics.csv" --steps "$every200" --without dissipated
}

# The state with diagnostics on is the state without, bit for bit (the accumulators are
# side outputs; the kernels built with MS_DIAG compute the same forces), on the device-only
# path too, with friction as without.
test_hash_unchanged() {
  local s
  for s in "$box" "$fbox" "$box --large-on device" "$fbox --large-on device" \
    "$rocks --large-on device"; do
    # shellcheck disable=SC2086 # the scene and its options
    run $s -n 600 >"$tmp/off" && run $s -n 600 --output "$tmp/h" --output-every 300 \
      --output-clear --diagnostics >"$tmp/on" || return 1
    [ -n "$(hash_of "$tmp/off")" ] && [ "$(hash_of "$tmp/off")" = "$(hash_of "$tmp/on")" ] || {
      echo "$s: hash $(hash_of "$tmp/off") without, $(hash_of "$tmp/on") with diagnostics"
      return 1
    }
  done
}

# The large particles on the device (kernels/large.cl, large_friction.cl): the balance
# closes, and the rows are the CPU worker's to the last digit: each kernel books a pair's
# share as the worker does (a large-small pair all to the large particle, half of a
# large-large pair to each) and in the worker's order (large-small, large-large in the
# sweep's order, walls); with friction the slip work and what the springs stored too.
# mixed_frictionless and diag_rocks_friction have large-large and wall contacts, the
# boxes large-small ones.
test_device_balance_frictionless() {
  run "$box" --large-on device --output "$tmp/bd" --output-every 200 --diagnostics \
    >"$tmp/bd.out" &&
    python3 "$checker" "$tmp/bd/diagnostics.csv" --steps "$every200" --tol 0.03 \
      --min-dissipated 0.3 --positive contacts_ls,contacts_wall,dissipated
}

# The same 3 % as the CPU worker's test_balance_friction.
test_device_balance_friction() {
  run "$fbox" --large-on device --output "$tmp/fd" --output-every 200 --diagnostics \
    >"$tmp/fd.out" &&
    python3 "$checker" "$tmp/fd/diagnostics.csv" --steps "$every200" --tol 0.03 \
      --min-dissipated 0.3 --positive ke_rotational,elastic_tangential,contacts_ls || return 1
  run "$rocks" --large-on device --output "$tmp/rd" --output-every 200 --diagnostics \
    >"$tmp/rd.out" &&
    python3 "$checker" "$tmp/rd/diagnostics.csv" --steps "$every200" --tol 0.03 \
      --min-dissipated 0.3 --positive ke_rotational,elastic_tangential,contacts_wall
}

test_device_rows_equal_cpu() {
  local s on
  # diag_box to its end (the rocks reach the walls), mixed_frictionless for 1000 steps;
  # with friction (the tangential springs' column too) the boxes to their ends
  for s in "$box" "$root/tests/scenes/mixed_frictionless.ini -n 1000" "$fbox" "$rocks"; do
    for on in cpu device; do
      # shellcheck disable=SC2086 # the scene and its options
      run $s --large-on $on --output "$tmp/e_$on" --output-every 500 --output-clear \
        --diagnostics >/dev/null || return 1
    done
    # the physics columns (the grid's and the zone's counters belong to the path)
    cmp <(cut -d, -f1-15 "$tmp/e_cpu/diagnostics.csv") \
      <(cut -d, -f1-15 "$tmp/e_device/diagnostics.csv") || return 1
    [ "$(cut -d, -f8 "$tmp/e_device/diagnostics.csv" | sort -g | tail -1)" != 0 ] || return 1
  done
}

# auto: the tuner's timed batches run on both candidates, each booking into its own
# accumulators (both summed), so the totals are the CPU worker's but for the summation
# order of the split: a relative 1e-12. With friction the histories pass between the two
# at every batch's end (docs/friction.md), so the springs' share carries over: the
# tangential springs' column is the worker's to the last digit.
test_device_auto() {
  local s
  for s in "$root/tests/scenes/mixed_frictionless.ini -n 1000" "$rocks -n 1000"; do
    # shellcheck disable=SC2086 # the scene and its options
    run $s --large-on cpu --output "$tmp/a_cpu" --output-every 250 --output-clear \
      --diagnostics >/dev/null &&
      run $s --large-on auto --output "$tmp/a_auto" --output-every 250 --output-clear \
        --diagnostics >/dev/null || return 1
    python3 - "$tmp/a_cpu/diagnostics.csv" "$tmp/a_auto/diagnostics.csv" <<'PY' || return 1
import csv, sys
a, b = (list(csv.DictReader(open(f))) for f in sys.argv[1:3])
assert [r["step"] for r in a] == [r["step"] for r in b], (a, b)
for ra, rb in zip(a, b):
    x, y = float(ra["dissipated"]), float(rb["dissipated"])
    assert abs(x - y) <= 1e-12 * abs(x), (ra["step"], x, y)
    assert ra["elastic_tangential"] == rb["elastic_tangential"], ra["step"]
assert float(a[-1]["dissipated"]) > 0
PY
  done
}

# The exchange, the buffers and the worker's thread count change no sum: the rows are the
# same (but for the zone's own counters).
test_paths_agree() {
  run "$fbox" -n 1000 --output "$tmp/p1" --output-every 250 --diagnostics >/dev/null &&
    run "$fbox" -n 1000 --exchange zone -b copied --cpu-threads 3 --output "$tmp/p2" \
      --output-every 250 --diagnostics >/dev/null &&
    cmp <(cut -d, -f1-20 "$tmp/p1/diagnostics.csv") <(cut -d, -f1-20 "$tmp/p2/diagnostics.csv")
}

# Rows at the frames' steps, the last state's included off the beat.
test_rows_at_frame_steps() {
  run "$box" -n 250 --output "$tmp/r" --output-every 100 --diagnostics >/dev/null &&
    python3 "$checker" "$tmp/r/diagnostics.csv" --steps 0,100,200,250 --min-dissipated 0 &&
    [ "$(ls "$tmp/r"/frame_*.vtp | wc -l)" -eq 4 ]
}

test_gravity_csv() {
  run "$root/scenes/kepler.ini" -n 200 --output "$tmp/g" --output-every 100 \
    --diagnostics >/dev/null || return 1
  python3 - "$tmp/g/diagnostics.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert list(rows[0]) == ["step", "time", "kinetic", "potential", "energy", "energy_error",
                         "px", "py", "pz", "lx", "ly", "lz", "virial_ratio"], list(rows[0])
assert [int(r["step"]) for r in rows] == [0, 100, 200], rows
e = [float(r["energy"]) for r in rows]
assert e[0] < 0 and all(abs(x - e[0]) < 1e-2 * abs(e[0]) for x in e), e  # leapfrog: bounded
assert float(rows[0]["energy_error"]) == 0.0
PY
}

# The scene's [output] diagnostics = true asks for the same.
test_scene_key() {
  { cat "$box"; printf '[output]\ndir = %s\nevery = 100\ndiagnostics = true\n' "$tmp/k"; } \
    >"$tmp/key.ini" &&
    run "$tmp/key.ini" -n 200 >/dev/null &&
    python3 "$checker" "$tmp/k/diagnostics.csv" --steps 0,100,200 --min-dissipated 0
}

# A resumed run into a fresh folder starts its own file, from the resumed step, with the
# dissipated energy counted from there.
test_resume_fresh_file() {
  run "$box" -n 100 --checkpoint "$tmp/k.ck" >/dev/null &&
    run "$box" -n 300 --resume "$tmp/k.ck" --output "$tmp/s" --output-every 100 \
      --diagnostics >/dev/null &&
    python3 "$checker" "$tmp/s/diagnostics.csv" --steps 100,200,300 --min-dissipated 0 &&
    [ "$(sed -n 2p "$tmp/s/diagnostics.csv" | cut -d, -f8)" = 0 ]
}

# A run stopped by SIGTERM leaves complete rows only, the stopped state's last.
test_stopped_run_complete_rows() {
  "$exe" -d cpu -q "$box" -n 1000000 --output "$tmp/t" --output-every 50 --diagnostics \
    >"$tmp/t.out" 2>"$tmp/t.err" &
  local pid=$! waited=0
  while [ "$(cat "$tmp/t/diagnostics.csv" 2>/dev/null | wc -l)" -lt 4 ] && [ $waited -lt 600 ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
  kill -TERM $pid
  wait $pid
  local rc=$? last
  [ $rc -eq 143 ] || { echo "exit $rc"; return 1; }
  last=$(sed -n 's/^mixsim: stopped by signal 15 at step \([0-9]*\).*/\1/p' "$tmp/t.err")
  python3 - "$tmp/t/diagnostics.csv" "$last" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert all(len(r) == len(rows[0]) for r in rows), "a row is cut"
assert rows[-1][0] == sys.argv[2], (rows[-1][0], sys.argv[2])
PY
}

refused() { # expected text, then the arguments
  local want=$1
  shift
  run "$@" >"$tmp/out" 2>&1
  local rc=$?
  [ $rc -eq 2 ] && grep -q -- "$want" "$tmp/out" || {
    echo "exit $rc:"
    cat "$tmp/out"
    return 1
  }
}

test_refusals() {
  refused "--diagnostics: expected --output DIR" "$box" -n 10 --diagnostics
}

# Friction with the large particles on the device was refused before its kernels
# accumulated: now --large-on device and auto (and the scene's key) run and write their rows.
test_device_friction_runs() {
  local on
  sed 's/^\[simulation\]$/&\nlarge_on = device/' "$fbox" >"$tmp/dkey.ini" || return 1
  for on in "--large-on device" "--large-on auto" ""; do
    # shellcheck disable=SC2086 # the option, or none: the scene's key
    run "$tmp/dkey.ini" -n 20 $on --output "$tmp/x" --output-every 10 --output-clear \
      --diagnostics >"$tmp/x.out" 2>&1 || { cat "$tmp/x.out"; return 1; }
    python3 "$checker" "$tmp/x/diagnostics.csv" --steps 0,10,20 --min-dissipated 0 || return 1
  done
}

# diagnostics.csv is one of the run's files: an older one is refused, --output-clear
# removes it.
test_output_clear() {
  run "$box" -n 10 --output "$tmp/c" --diagnostics >/dev/null &&
    refused "holds frames of an earlier run" "$box" -n 10 --output "$tmp/c" --diagnostics &&
    rm "$tmp/c"/frame_* "$tmp/c"/frames.pvd "$tmp/c"/walls.vtp &&
    refused "'diagnostics.csv'" "$box" -n 10 --output "$tmp/c" &&
    run "$box" -n 10 --output "$tmp/c" --output-clear >/dev/null &&
    [ ! -e "$tmp/c/diagnostics.csv" ]
}

check test_balance_frictionless
check test_balance_friction
check test_hash_unchanged
check test_device_balance_frictionless
check test_device_balance_friction
check test_device_rows_equal_cpu
check test_device_auto
check test_paths_agree
check test_rows_at_frame_steps
check test_gravity_csv
check test_scene_key
check test_resume_fresh_file
check test_stopped_run_complete_rows
check test_refusals
check test_device_friction_runs
check test_output_clear
finish
