#!/usr/bin/env bash
# Gravity mode as a user runs it: dt checked at load (refused with a dt that passes when
# pasted back), runaway energies and max_energy_error stop the run with exit 4 and a
# resumable last good state, a non-finite state named at its exact step, a resumed run's
# rates and E0, body files with their columns in any order, --steps 0 with a display,
# and kepler.ini's diagnostics off the orbit's period.
# usage: gravity_user.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$1
root=$2
filter=${3:-}
. "$(dirname "$0")/lib.sh"

# scenes/disk.ini as it was shipped: softening 0.01 under a central mass of 10, dt 0.002
old_disk() { # file, dt
  printf '[simulation]\nmode = gravity\ndt = %s\nsteps = 1000\nseed = 7\n[gravity]\nbodies = disk\ncount = 8193\nmass = 1\ncentral_mass = 10\nradius = 1\nthickness = 0.02\nsoftening = 0.01\n' "$2" >"$1"
}

test_dt_refused_suggestion_passes() {
  old_disk "$tmp/disk.ini" 0.002
  "$exe" -q -n 0 "$tmp/disk.ini" >/dev/null 2>"$tmp/err"
  local rc=$? dt
  cat "$tmp/err"
  [ $rc -eq 2 ] && grep -q "disk.ini:3: \[simulation\] dt: dt = 0.002 is too large" "$tmp/err" &&
    grep -q "tau" "$tmp/err" || return 1
  dt=$(sed -n 's/.*use dt <= \([0-9.e+-]*\) .*/\1/p' "$tmp/err")
  old_disk "$tmp/disk2.ini" "$dt"
  "$exe" -n 0 "$tmp/disk2.ini" >/dev/null 2>"$tmp/err2" || return 1
  ! grep -q "dt" "$tmp/err2" || return 1
  # the expert's way round it, and the shipped scene as it is now
  printf 'dt_check = off\n' >>"$tmp/disk.ini"
  "$exe" -q -n 0 "$tmp/disk.ini" >/dev/null || return 1
  "$exe" -n 0 "$root/scenes/disk.ini" >/dev/null 2>"$tmp/err3" || return 1
  ! grep -q "warning" "$tmp/err3"
}

# A cold collapse with a softening of 1e-6: bodies meet at speeds leapfrog cannot follow,
# all finite; |dE/E| reaches about 50.
collapse() { # file, extra [gravity] lines
  printf '[simulation]\nmode = gravity\ndt = 0.01\nsteps = 200\n[gravity]\nbodies = uniform\ncount = 500\nsoftening = 1e-6\ndiagnostics_every = 50\ndt_check = off\n%b' "${2:-}" >"$1"
}

test_runaway_energy_exit_4_without_a_bound() {
  collapse "$tmp/c.ini"
  "$exe" -q --stats "$tmp/c.json" --checkpoint "$tmp/c.ck" "$tmp/c.ini" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  cat "$tmp/err"
  [ $rc -eq 4 ] && grep -q "energy error at step 50, |dE/E| = .* exceeds \[gravity\] max_energy_error = 1" "$tmp/err" &&
    grep -q "last good state (step 0, dE/E +0) is in '.*c.ck'" "$tmp/err" && [ ! -e "$tmp/c.json" ] || return 1
  # off: the run is the user's to judge
  collapse "$tmp/c2.ini" 'max_energy_error = off\n'
  "$exe" -q "$tmp/c2.ini" >/dev/null
}

test_max_energy_error_stops_at_sample() {
  # Kepler e = 0.5, lines every 37 steps: |dE/E| reaches 2.7e-3 near pericentre
  sed 's/^diagnostics_every.*/diagnostics_every = 37\nmax_energy_error = 2.6e-3/' "$root/scenes/kepler.ini" >"$tmp/k.ini"
  "$exe" -q --checkpoint "$tmp/k.ck" "$tmp/k.ini" >"$tmp/out" 2>"$tmp/err"
  local rc=$? at good
  cat "$tmp/err"
  [ $rc -eq 4 ] || return 1
  at=$(sed -n 's/.*energy error at step \([0-9]*\), |dE\/E| = \([0-9.e+-]*\), exceeds.*/\1/p' "$tmp/err")
  good=$(sed -n "s/.*last good state (step \([0-9]*\), dE\/E .*) is in '.*k.ck'.*/\1/p" "$tmp/err")
  [ -n "$at" ] && [ -n "$good" ] && [ $((at % 37)) -eq 0 ] && [ "$good" -eq $((at - 37)) ] || return 1
  # the last good state is the sample before, resumable, within the bound
  "$exe" --resume "$tmp/k.ck" -n "$good" "$tmp/k.ini" >"$tmp/out2" 2>&1 || return 1
  grep -q "^state hash .* (step $good)" "$tmp/out2" &&
    python3 - "$tmp/out2" <<'EOF'
import re, sys
line = [l for l in open(sys.argv[1]) if l.startswith("energy")][0]
err = abs(float(re.search(r"dE/E ([-+0-9.e]+)", line).group(1)))
assert err <= 2.6e-3, line
EOF
}

test_nonfinite_named_at_exact_step() {
  # two heavy bodies 1e-9 apart and a huge step: the first kick overflows a float
  printf '0,0,0,0,0,0,1e20\n1e-9,0,0,0,0,0,1e20\n' >"$tmp/close.csv"
  printf '[simulation]\nmode = gravity\ndt = 1e20\nsteps = 40\n[gravity]\nbodies = file\nfile = close.csv\nsoftening = 1e-6\ndt_check = off\nburst = 50\n' >"$tmp/close.ini"
  "$exe" -q --checkpoint "$tmp/lg.ck" "$tmp/close.ini" >/dev/null 2>"$tmp/err"
  local rc=$?
  cat "$tmp/err"
  [ $rc -eq 4 ] && grep -q "no longer finite at step 1 " "$tmp/err" &&
    grep -q "last good state (step 0)" "$tmp/err"
}

test_resume_rates_and_e0() {
  "$exe" -q -n 1000 --checkpoint "$tmp/k1000.ck" "$root/scenes/kepler.ini" >/dev/null || return 1
  "$exe" -q -n 1010 --stats "$tmp/w.json" "$root/scenes/kepler.ini" >"$tmp/whole" || return 1
  "$exe" -q -n 1010 --resume "$tmp/k1000.ck" --stats "$tmp/r.json" "$root/scenes/kepler.ini" >"$tmp/resumed" || return 1
  grep "^energy\|^run" "$tmp/whole" "$tmp/resumed"
  # the same E0 (step 0's) and error as the uninterrupted run (whose largest error over
  # its lines is its own)
  [ "$(grep '^energy' "$tmp/whole" | sed 's/, max.*//')" = "$(grep '^energy' "$tmp/resumed" | sed 's/, max.*//')" ] &&
    grep -q "10 of them in this run, from step 1000" "$tmp/resumed" || return 1
  python3 - "$tmp/r.json" "$tmp/w.json" <<'EOF'
import json, sys
d, w = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert d["steps"] == 1010 and d["steps_run"] == 10, d
assert abs(d["steps_per_s"] * d["wall_s"] - 10) < 1e-6, (d["steps_per_s"], d["wall_s"])
assert abs(d["interactions_per_s"] * d["wall_s"] - 4 * 10) < 1e-6, d["interactions_per_s"]
assert d["energy"]["initial"] == w["energy"]["initial"] == w["diagnostics"][0]["energy"], d["energy"]
assert d["energy"]["relative_error"] == w["energy"]["relative_error"], (d["energy"], w["energy"])
EOF
}

test_csv_columns_in_any_order() {
  printf '[simulation]\nmode = gravity\ndt = 0.001\nsteps = 3\nseed = 9\n[gravity]\nbodies = plummer\ncount = 100\nsoftening = 0.01\n' >"$tmp/p.ini"
  "$exe" -q -n 0 --dump "$tmp/p.csv" "$tmp/p.ini" >/dev/null || return 1
  # the same bodies, the columns reversed and upper case
  awk -F, 'BEGIN { OFS = "," } { print toupper($7), $6, $5, $4, $3, $2, $1 }' "$tmp/p.csv" >"$tmp/q.csv"
  head -2 "$tmp/q.csv"
  printf '[simulation]\nmode = gravity\ndt = 0.001\nsteps = 3\n[gravity]\nbodies = file\nfile = %s\nsoftening = 0.01\n' p.csv >"$tmp/a.ini"
  printf '[simulation]\nmode = gravity\ndt = 0.001\nsteps = 3\n[gravity]\nbodies = file\nfile = %s\nsoftening = 0.01\n' q.csv >"$tmp/b.ini"
  "$exe" -q "$tmp/a.ini" >"$tmp/oa" && "$exe" -q "$tmp/b.ini" >"$tmp/ob" || return 1
  [ -n "$(hash_of "$tmp/oa")" ] && [ "$(hash_of "$tmp/oa")" = "$(hash_of "$tmp/ob")" ]
}

test_steps_0_with_a_display() {
  if skip_without xvfb-run "xvfb xauth"; then
    return 0
  fi
  # the window would step; --steps 0 writes step 0's outputs, in both modes
  timeout 120 xvfb-run -a "$exe" -n 0 --dump "$tmp/g.csv" --stats "$tmp/g.json" --script 3:Q \
    "$root/scenes/kepler.ini" >"$tmp/g.out" 2>"$tmp/g.err" || return 1
  grep -q "^state hash .* (step 0)" "$tmp/g.out" && [ -s "$tmp/g.csv" ] && [ -s "$tmp/g.json" ] || return 1
  timeout 120 xvfb-run -a "$exe" -n 0 --dump "$tmp/c.csv" --script 3:Q \
    "$root/tests/scenes/tiny.ini" >"$tmp/c.out" 2>"$tmp/c.err" || return 1
  grep -q "^state hash .* (step 0)" "$tmp/c.out" && [ -s "$tmp/c.csv" ] &&
    grep -q "running headless (--steps 0" "$tmp/c.err"
}

test_kepler_lines_off_the_period() {
  "$exe" --headless "$root/scenes/kepler.ini" >"$tmp/k.out" 2>/dev/null || return 1
  python3 - "$tmp/k.out" <<'EOF'
import re, sys
rows = [(int(m.group(1)), abs(float(m.group(2)))) for m in
        (re.match(r"step\s+(\d+) .*dE/E ([-+0-9.e]+)", l) for l in open(sys.argv[1])) if m]
assert len(rows) > 20, rows
assert any(s % 200 for s, _ in rows[1:]), "every line at the same phase of the orbit"
early = max(e for s, e in rows if s <= 400)
late = max(e for s, e in rows if s >= 1600)
print("    largest |dE/E|: orbits 1-2 %.3g, orbits 9-10 %.3g" % (early, late))
assert early > 2e-3 and abs(late / early - 1) < 0.1, (early, late)
EOF
}

check test_dt_refused_suggestion_passes
check test_runaway_energy_exit_4_without_a_bound
check test_max_energy_error_stops_at_sample
check test_nonfinite_named_at_exact_step
check test_resume_rates_and_e0
check test_csv_columns_in_any_order
check test_steps_0_with_a_display
check test_kepler_lines_off_the_period
finish
