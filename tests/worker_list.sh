#!/usr/bin/env bash
# The CPU worker's large-small list (--worker-list, the worker_list key; collision/worker/ls_list.h):
# the same state hash with it on and off on the scenes with large particles, with and
# without friction, in both pipelines and buffer modes on 1 and 3 worker threads; large
# particles flying into a resting bed and a bed streaming against static pegs, where a
# list rebuilt too late loses contacts (only the large, or only the small, particles'
# moves can call for the rebuild there); a checkpoint resumed with the list equals the
# straight run; the report and the stats JSON; bad values named.
# usage: worker_list.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$1
root=$2
filter=${3:-}
. "$(dirname "$0")/lib.sh"

# A scene with pair and rolling friction added to its [material].
frictional() {
  sed 's/^restitution = \(.*\)/restitution = \1\nfriction = 0.5\nrolling_friction = 0.02/' "$1" >"$2"
}

# The hash with the list off, then on in four combinations of pipeline, buffers and
# threads (3 threads with one large particle a chunk, so the split paths run too). Under
# ThreadSanitizer (MIXSIM_SANITIZER=thread: tools/dev/sanitize.sh's CI round) only the two
# on 3 threads, where the pool splits the list; the plain pass runs all four.
on_equals_off() { # scene steps
  local scene=$1 n=$2 ref h
  ref=$(hash_run "$scene" "$n" --exchange full --worker-list off) || return 1
  local combos=("-p naive -b shared --cpu-threads 1" "-p reordered -b copied --cpu-threads 3"
                "-p naive -b copied --cpu-threads 3" "-p reordered -b shared --cpu-threads 1")
  [ "${MIXSIM_SANITIZER:-}" = thread ] && combos=("${combos[1]}" "${combos[2]}")
  for c in "${combos[@]}"; do
    # shellcheck disable=SC2086
    h=$(MIXSIM_CPU_GRAIN=1 hash_run "$scene" "$n" --exchange full --worker-list on $c) || return 1
    if [ "$h" != "$ref" ]; then
      echo "    $(basename "$scene") $c: on $h, off $ref"
      return 1
    fi
  done
  echo "    $(basename "$scene"): $ref"
}

test_same_hash_shipped_frictionless() {
  on_equals_off "$root/tests/scenes/many_large.ini" 300 &&
    on_equals_off "$root/tests/scenes/squeeze.ini" 150 &&
    on_equals_off "$root/tests/scenes/mixed_frictionless.ini" 300
}

test_same_hash_shipped_friction() {
  on_equals_off "$root/scenes/mixed.ini" 300 &&
    on_equals_off "$root/tests/scenes/friction_pour.ini" 300
}

# The lists are rebuilt as the particles move, neither once nor every iteration.
builds_between() { # stats.json iterations
  python3 -c "import json,sys; w=json.load(open(sys.argv[1]))['worker_list']; n=int(sys.argv[2]); \
print('    builds', w['builds'], 'of', w['iterations'], 'iterations'); \
assert w['on'] and w['iterations'] == n and 1 < w['builds'] < n, w" "$1" "$2"
}

fast_scene() { # scene name: on == off, with and without friction, and builds counted
  local sc=$root/tests/scenes/$1.ini
  frictional "$sc" "$tmp/$1_f.ini"
  on_equals_off "$sc" 400 && on_equals_off "$tmp/$1_f.ini" 400 || return 1
  "$exe" -q -n 400 --exchange full --stats "$tmp/s.json" "$sc" >/dev/null || return 1
  builds_between "$tmp/s.json" 400 || return 1
  "$exe" -q -n 400 --exchange full --stats "$tmp/s.json" "$tmp/$1_f.ini" >/dev/null || return 1
  builds_between "$tmp/s.json" 400
}

test_same_hash_large_flying_into_bed() { fast_scene ls_fast; }
test_same_hash_bed_streaming_at_pegs() { fast_scene ls_stream; }

test_checkpoint_resume_with_list() {
  local sc=$root/tests/scenes/ls_fast.ini
  frictional "$root/tests/scenes/ls_stream.ini" "$tmp/st_f.ini"
  for s in "$sc" "$tmp/st_f.ini"; do
    "$exe" -q -n 400 --exchange full --worker-list off "$s" >"$tmp/straight" || return 1
    "$exe" -q -n 170 --exchange full --checkpoint "$tmp/c.ck" "$s" >/dev/null || return 1
    "$exe" -q -n 400 --exchange full --resume "$tmp/c.ck" "$s" >"$tmp/resumed" || return 1
    local a b
    a=$(hash_of "$tmp/straight")
    b=$(hash_of "$tmp/resumed")
    echo "    $(basename "$s"): straight (list off) $a, resumed (on) $b"
    [ -n "$a" ] && [ "$a" = "$b" ] || return 1
  done
}

# The zone keeps walking its slots: the list is not used there, and the hash is the same.
test_zone_does_not_use_it() {
  local sc=$root/tests/scenes/ls_fast.ini
  "$exe" -q -n 100 --exchange zone --stats "$tmp/z.json" "$sc" >"$tmp/z" || return 1
  "$exe" -q -n 100 --exchange full "$sc" >"$tmp/f" || return 1
  [ "$(hash_of "$tmp/z")" = "$(hash_of "$tmp/f")" ] || return 1
  python3 -c "import json,sys; w=json.load(open(sys.argv[1]))['worker_list']; \
assert w['on'] and w['iterations'] == 0 and w['builds'] == 0, w" "$tmp/z.json"
}

test_report_json_and_key() {
  local sc=$root/tests/scenes/ls_fast.ini
  "$exe" -n 50 --exchange full --stats "$tmp/on.json" "$sc" >"$tmp/out" 2>/dev/null || return 1
  grep -q "^wlist     on, [0-9]* builds in the 50 iterations that used it, [0-9.]* entries per large particle$" \
    "$tmp/out" || return 1
  sed 's/^seed = 5/seed = 5\nworker_list = off/' "$sc" >"$tmp/k.ini"
  "$exe" -n 50 --exchange full --stats "$tmp/k.json" "$tmp/k.ini" >"$tmp/kout" 2>/dev/null || return 1
  grep -q "^wlist     off, 0 builds" "$tmp/kout" || return 1
  "$exe" -q -n 50 --exchange full --worker-list on --stats "$tmp/o.json" "$tmp/k.ini" >/dev/null ||
    return 1
  python3 -c "import json,sys; on, k, o = (json.load(open(p))['worker_list'] for p in sys.argv[1:]); \
assert on['on'] and on['builds'] > 0 and on['entries_per_large'] >= 0, on; \
assert not k['on'] and k['builds'] == 0 and k['iterations'] == 0, k; \
assert o['on'] and o['builds'] > 0, o" "$tmp/on.json" "$tmp/k.json" "$tmp/o.json"
}

test_bad_option_named() {
  "$exe" -q -n 1 --worker-list yes "$root/tests/scenes/ls_fast.ini" >/dev/null 2>"$tmp/err"
  local rc=$?
  cat "$tmp/err"
  [ $rc -eq 2 ] && grep -q "^mixsim: --worker-list: expected on or off, got 'yes'$" "$tmp/err"
}

test_bad_key_names_file_line() {
  printf '[simulation]\ndt = 1e-4\nworker_list = maybe\n' >"$tmp/b.ini"
  "$exe" -q -n 1 "$tmp/b.ini" >/dev/null 2>"$tmp/err"
  local rc=$?
  cat "$tmp/err"
  [ $rc -eq 2 ] && grep -q "b.ini:3: .*worker_list.*expected on or off, got 'maybe'" "$tmp/err"
}

test_gravity_refuses_worker_list() {
  "$exe" -q -n 1 --worker-list off "$root/tests/scenes/bodies.ini" >/dev/null 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 2 ] && grep -q "^mixsim: --worker-list: expected a scene with mode = collision" "$tmp/err"
}

check test_same_hash_shipped_frictionless
check test_same_hash_shipped_friction
check test_same_hash_large_flying_into_bed
check test_same_hash_bed_streaming_at_pegs
check test_checkpoint_resume_with_list
check test_zone_does_not_use_it
check test_report_json_and_key
check test_bad_option_named
check test_bad_key_names_file_line
check test_gravity_refuses_worker_list
finish
