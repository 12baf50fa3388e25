#!/usr/bin/env bash
# The --exchange option and the exchange key from the command line: zone and full give
# one hash (pocl with 1 and 2 threads too), the report and stats JSON show the zone,
# bad values name the option or the file:line, and checkpoints are unaffected (written
# under one exchange, resumed under the other).
# usage: exchange.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$1
root=$2
filter=${3:-}
. "$(dirname "$0")/lib.sh"
scene=$root/tests/scenes/many_large.ini

test_cli_zone_equals_full() {
  local f z1 z2
  f=$(hash_run "$scene" 30 --exchange full) || return 1
  z1=$(POCL_MAX_PTHREAD_COUNT=1 hash_run "$scene" 30 --exchange zone) || return 1
  z2=$(POCL_MAX_PTHREAD_COUNT=2 hash_run "$scene" 30 --exchange zone -b copied) || return 1
  echo "    full $f, zone (1 pocl thread) $z1, zone copied (2) $z2"
  [ -n "$f" ] && [ "$f" = "$z1" ] && [ "$f" = "$z2" ]
}

test_report_and_json_show_the_zone() {
  "$exe" -n 10 --exchange zone --stats "$tmp/s.json" "$scene" >"$tmp/out" 2>/dev/null || return 1
  grep -q "exchange zone, [0-9]* CPU worker thread" "$tmp/out" || return 1
  grep -q "^exchange .* zone .* cells, .* small particles/iteration" "$tmp/out" || return 1
  for k in zone_mark zone_blocks zone_scan zone_gather zone_spans zone_scatter; do grep -q "$k" "$tmp/out" || return 1; done
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); e=d['exchange_stats']; \
assert d['exchange'] == 'zone' and e['zone_iterations'] == 10 and e['zone_cells_max'] > 0; \
assert e['bytes_per_iteration'] > 0 and e['zone_particles_max'] > 0 and 'zone_gather' in d['kernels']" "$tmp/s.json"
}

# The key wins over the device type's default (full on pocl's CPU device), the option
# over the key.
test_scene_key_and_default() {
  sed 's/^seed = 7/seed = 7\nexchange = zone/' "$scene" >"$tmp/k.ini"
  "$exe" -n 5 --stats "$tmp/k.json" "$tmp/k.ini" >/dev/null 2>&1 || return 1
  "$exe" -n 5 --stats "$tmp/d.json" "$scene" >/dev/null 2>&1 || return 1
  "$exe" -n 5 --exchange full --stats "$tmp/o.json" "$tmp/k.ini" >/dev/null 2>&1 || return 1
  python3 -c "import json,sys; k, d, o = (json.load(open(p)) for p in sys.argv[1:]); \
assert not d['device_is_gpu']; \
r = (k['exchange'], d['exchange'], o['exchange']); assert r == ('zone', 'full', 'full'), r" \
    "$tmp/k.json" "$tmp/d.json" "$tmp/o.json"
}

test_bad_option_named() {
  "$exe" -q -n 1 --exchange automatic "$scene" >/dev/null 2>"$tmp/err"
  local rc=$?
  cat "$tmp/err"
  [ $rc -eq 2 ] && grep -q "^mixsim: --exchange: expected zone, full or auto, got 'automatic'$" "$tmp/err"
}

test_bad_key_names_file_line() {
  printf '[simulation]\ndt = 1e-4\nexchange = zoned\n' >"$tmp/b.ini"
  "$exe" -q -n 1 "$tmp/b.ini" >/dev/null 2>"$tmp/err"
  local rc=$?
  cat "$tmp/err"
  [ $rc -eq 2 ] && grep -q "b.ini:3: .*exchange.*expected zone, full or auto, got 'zoned'" "$tmp/err"
}

test_gravity_refuses_exchange() {
  "$exe" -q -n 1 --exchange zone "$root/tests/scenes/bodies.ini" >/dev/null 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 2 ] && grep -q "^mixsim: --exchange: expected a scene with mode = collision" "$tmp/err"
}

test_checkpoint_across_exchanges() {
  "$exe" -q -n 30 --exchange full "$scene" >"$tmp/straight" || return 1
  "$exe" -q -n 12 --exchange zone --checkpoint "$tmp/c.ck" "$scene" >/dev/null || return 1
  "$exe" -q -n 30 --exchange full --resume "$tmp/c.ck" "$scene" >"$tmp/r1" || return 1
  "$exe" -q -n 12 --exchange full --checkpoint "$tmp/d.ck" "$scene" >/dev/null || return 1
  "$exe" -q -n 30 --exchange zone -p naive --resume "$tmp/d.ck" "$scene" >"$tmp/r2" || return 1
  local a b c
  a=$(hash_of "$tmp/straight")
  b=$(hash_of "$tmp/r1")
  c=$(hash_of "$tmp/r2")
  echo "    straight $a, zone->full $b, full->zone $c"
  [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" = "$c" ]
}

check test_cli_zone_equals_full
check test_report_and_json_show_the_zone
check test_scene_key_and_default
check test_bad_option_named
check test_bad_key_names_file_line
check test_gravity_refuses_exchange
check test_checkpoint_across_exchanges
finish
