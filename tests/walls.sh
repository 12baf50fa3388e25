#!/usr/bin/env bash
# Walls end to end: one state hash for a drum with a baffle (every kind of wall contact,
# friction on) whatever the pipeline, buffer mode, exchange, worker list, worker threads
# and pocl threads; a force-driven piston comes to rest with the floor carrying its force
# and the bed's weight; what walls refuse.
# usage: walls.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$1
root=$2
filter=${3:-}
. "$(dirname "$0")/lib.sh"

scene=$root/tests/scenes/walls_drum.ini

test_one_hash_in_every_mode() {
  local want got opts
  want=$(hash_run "$scene" 1500 --headless) || return 1
  [ -n "$want" ] || return 1
  for opts in "--pipeline naive" "--buffers copied" "--exchange zone" "--exchange full" \
    "--exchange zone --buffers copied --pipeline naive" "--worker-list off" \
    "--cpu-threads 1" "--cpu-threads 3" "--cpu-threads 8 --exchange zone"; do
    # shellcheck disable=SC2086 # the options split on purpose
    got=$(hash_run "$scene" 1500 --headless $opts) || return 1
    [ "$got" = "$want" ] || { echo "    $opts: $got, default: $want"; return 1; }
  done
  got=$(POCL_MAX_PTHREAD_COUNT=1 hash_run "$scene" 1500 --headless) || return 1
  [ "$got" = "$want" ] || { echo "    1 pocl thread: $got, default: $want"; return 1; }
  echo "    $want in every mode"
}

test_device_only_refused() {
  "$exe" -q --headless -n 10 --large-on device "$scene" >"$tmp/out" 2>&1
  local rc=$?
  grep -q "walls run with large_on = cpu only" "$tmp/out" && [ $rc -ne 0 ] || { cat "$tmp/out"; return 1; }
}

test_particles_stay_in_the_drum() {
  "$exe" -q --headless -n 3000 --dump "$tmp/d.csv" "$scene" >/dev/null || return 1
  python3 - "$tmp/d.csv" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
out = [r for r in rows if math.hypot(float(r['x']) - 0.25, float(r['y']) - 0.25) + float(r['radius']) > 0.2405]
print('    %d particles, %d beyond the rim' % (len(rows), len(out)))
sys.exit(1 if out or len(rows) < 400 else 0)
PY
}

for t in test_one_hash_in_every_mode test_device_only_refused test_particles_stay_in_the_drum; do
  check "$t"
done
finish
