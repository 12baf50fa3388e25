#!/usr/bin/env bash
# Walls end to end: one state hash for a scene with every kind of wall (a turning drum, a
# static funnel, a force-driven lid, a turning and shaking closed paddle, a moving sweeper;
# friction on) whatever the pipeline, buffer mode, exchange, worker list, worker threads
# and pocl threads, the same on the device-only path (large_on = device) with friction and
# without, resumed from checkpoints written on either path, and the same forces on the
# walls there, and --diagnostics' energy; particles stay in the drum.
# usage: walls.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$1
root=$2
filter=${3:-}
. "$(dirname "$0")/lib.sh"
device_only="test_device_only_same_hash test_device_only_wall_forces test_device_only_diagnostics"

scene=$root/tests/scenes/walls_every.ini
frictionless=$root/tests/scenes/walls_every_frictionless.ini
drum=$root/tests/scenes/walls_drum.ini

test_one_hash_in_every_mode() {
  local want got opts
  want=$(hash_run "$scene" 1500 --headless) || return 1
  [ -n "$want" ] || return 1
  for opts in "--pipeline naive" "--buffers copied" "--exchange zone" "--exchange full" \
    "--exchange zone --buffers copied --pipeline naive" "--worker-list off" \
    "--cpu-threads 1" "--cpu-threads 3" "--cpu-threads 8 --exchange zone" \
    "--large-on device"; do
    # shellcheck disable=SC2086 # the options split on purpose
    got=$(hash_run "$scene" 1500 --headless $opts) || return 1
    [ "$got" = "$want" ] || { echo "    $opts: $got, default: $want"; return 1; }
  done
  # (the tests run pocl on one thread: tests/meson.build)
  got=$(POCL_MAX_PTHREAD_COUNT=2 hash_run "$scene" 1500 --headless) || return 1
  [ "$got" = "$want" ] || { echo "    2 pocl threads: $got, default: $want"; return 1; }
  echo "    $want in every mode"
}

# The device-only path (large_on = device) against the CPU worker: the same state hash for
# the scene with friction and without, over enough steps for the bed to land on the rim,
# the lid on the bed and the ball to roll on the funnel; and resumed from checkpoints
# written on one path in the middle of the drum's turn and resumed on the other, the hash
# of the uninterrupted run.
test_device_only_same_hash() {
  local want got sc a b c d
  for sc in "$frictionless" "$scene"; do
    want=$(hash_run "$sc" 6000 --headless --large-on cpu) || return 1
    got=$(hash_run "$sc" 6000 --headless --large-on device) || return 1
    [ -n "$want" ] && [ "$got" = "$want" ] || { echo "    $sc device: $got, cpu: $want"; return 1; }
    echo "    $(basename "$sc"): $want with large_on = cpu and device"
  done
  "$exe" -q --headless -n 4500 --large-on device --checkpoint "$tmp/d.ck" "$scene" >/dev/null ||
    return 1
  "$exe" -q --headless -n 4500 --large-on cpu --checkpoint "$tmp/c.ck" "$scene" >/dev/null ||
    return 1
  want=$(hash_run "$scene" 6000 --headless --large-on cpu) || return 1
  a=$(hash_run "$scene" 6000 --headless --large-on cpu --resume "$tmp/d.ck") || return 1
  b=$(hash_run "$scene" 6000 --headless --large-on device --resume "$tmp/c.ck") || return 1
  c=$(hash_run "$scene" 6000 --headless --large-on device --resume "$tmp/d.ck") || return 1
  d=$(hash_run "$scene" 6000 --headless --large-on cpu --resume "$tmp/c.ck") || return 1
  echo "    resumed: cpu->cpu $d, device->cpu $a, cpu->device $b, device->device $c;" \
    "uninterrupted $want"
  [ -n "$want" ] && [ "$a" = "$want" ] && [ "$b" = "$want" ] && [ "$c" = "$want" ] &&
    [ "$d" = "$want" ]
}

# What each wall receives (the report's wall lines: contacts, force, torque) is the same on
# the device-only path as on the CPU worker, with friction and without (four walls or more
# touched at the last step).
test_device_only_wall_forces() {
  local sc
  for sc in "$frictionless" "$scene"; do
    "$exe" -q --headless -n 6000 --large-on cpu "$sc" | grep '^wall ' >"$tmp/wc" || return 1
    "$exe" -q --headless -n 6000 --large-on device "$sc" | grep '^wall ' >"$tmp/wd" || return 1
    [ "$(wc -l <"$tmp/wc")" = 5 ] && [ "$(grep -vc ': 0 contacts' "$tmp/wc")" -ge 4 ] &&
      cmp -s "$tmp/wc" "$tmp/wd" || { diff "$tmp/wc" "$tmp/wd"; cat "$tmp/wc"; return 1; }
  done
  sed 's/^/    /' "$tmp/wd"
}

# --diagnostics on the device-only path: diagnostics.csv (the energy balance, the walls'
# work and losses in it) and walls.csv the same to the bit as the CPU worker's, with friction
# and without; the walls did work and their contacts dissipated energy.
test_device_only_diagnostics() {
  local sc n
  for sc in "$frictionless" "$scene"; do
    n=$(basename "$sc" .ini)
    for on in cpu device; do
      "$exe" -q --headless -n 3000 --large-on $on --diagnostics --output "$tmp/$n-$on" \
        --output-every 500 "$sc" >"$tmp/out" 2>&1 || { cat "$tmp/out"; return 1; }
    done
    cmp "$tmp/$n-cpu/diagnostics.csv" "$tmp/$n-device/diagnostics.csv" &&
      cmp "$tmp/$n-cpu/walls.csv" "$tmp/$n-device/walls.csv" || return 1
    python3 - "$tmp/$n-device/diagnostics.csv" <<'PY' || return 1
import csv, sys
last = list(csv.DictReader(open(sys.argv[1])))[-1]
print("    %s: wall work %s J/m, dissipated %s J/m" % (sys.argv[1].split("/")[-2], last["wall_work"],
                                                   last["dissipated"]))
sys.exit(0 if float(last["wall_work"]) != 0.0 and float(last["dissipated"]) > 0.0 else 1)
PY
  done
}

# Discs outside a drum, clear of its rim, touch nothing: the same hash and no contact with
# the drum on both paths (the device tests every disc against the circle, the worker only
# those in the band along the rim).
test_outside_the_drum() {
  local on sc=$root/tests/scenes/walls_outside.ini
  for on in cpu device; do
    "$exe" -q --headless -n 400 --large-on $on "$sc" >"$tmp/o-$on" || return 1
    grep -q '^wall      drum: 0 contacts, force (0, 0) N/m' "$tmp/o-$on" || { cat "$tmp/o-$on"; return 1; }
  done
  [ -n "$(hash_of "$tmp/o-cpu")" ] && [ "$(hash_of "$tmp/o-cpu")" = "$(hash_of "$tmp/o-device")" ]
}

test_particles_stay_in_the_drum() {
  "$exe" -q --headless -n 3000 --dump "$tmp/d.csv" "$drum" >/dev/null || return 1
  python3 - "$tmp/d.csv" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
out = [r for r in rows if math.hypot(float(r['x']) - 0.25, float(r['y']) - 0.25) + float(r['radius']) > 0.2405]
print('    %d particles, %d beyond the rim' % (len(rows), len(out)))
sys.exit(1 if out or len(rows) < 400 else 0)
PY
}

for t in test_one_hash_in_every_mode test_device_only_same_hash test_device_only_wall_forces \
  test_device_only_diagnostics test_outside_the_drum \
  test_particles_stay_in_the_drum; do
  check "$t"
done
finish
