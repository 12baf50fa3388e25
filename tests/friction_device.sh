#!/usr/bin/env bash
# Friction on the device from the command line: the frictional pour gives one hash with
# pocl on 1 thread and on its default, in both pipelines and buffer modes (the work-items
# of the friction kernels may run in any order and on any thread), and friction keys
# leave the frictionless scenes' hashes alone.
# usage: friction_device.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$1
root=$2
filter=${3:-}
. "$(dirname "$0")/lib.sh"
scene=$root/tests/scenes/friction_pour.ini

test_pocl_threads_same_hash() {
  POCL_MAX_PTHREAD_COUNT=2 "$exe" -q -n 600 "$scene" >"$tmp/d" || return 1
  POCL_MAX_PTHREAD_COUNT=1 "$exe" -q -n 600 -p naive "$scene" >"$tmp/one" || return 1
  POCL_MAX_PTHREAD_COUNT=1 "$exe" -q -n 600 -b copied --exchange zone "$scene" >"$tmp/onec" ||
    return 1
  local d one onec
  d=$(hash_of "$tmp/d")
  one=$(hash_of "$tmp/one")
  onec=$(hash_of "$tmp/onec")
  echo "    2 pocl threads $d, 1 pocl thread naive $one, 1 pocl thread copied/zone $onec"
  [ -n "$d" ] && [ "$d" = "$one" ] && [ "$d" = "$onec" ]
}

# Zero coefficients are friction off: the scene runs the frictionless program.
test_zero_coefficients_are_frictionless() {
  sed 's/^restitution = 0.5$/restitution = 0.5\nfriction = 0\nrolling_friction = 0\nwall_friction = 0\ntangential_stiffness = 0.5/' \
    "$root/tests/scenes/tiny.ini" >"$tmp/tiny0.ini"
  grep -q "^wall_friction = 0$" "$tmp/tiny0.ini" || return 1
  "$exe" -q -n 200 "$root/tests/scenes/tiny.ini" >"$tmp/a" 2>/dev/null || return 1
  "$exe" -q -n 200 "$tmp/tiny0.ini" >"$tmp/b" 2>/dev/null || return 1
  [ -n "$(hash_of "$tmp/a")" ] && [ "$(hash_of "$tmp/a")" = "$(hash_of "$tmp/b")" ]
}

check test_pocl_threads_same_hash
check test_zero_coefficients_are_frictionless
finish
