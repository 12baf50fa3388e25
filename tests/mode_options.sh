#!/usr/bin/env bash
# Options and the scene's mode: options one mode reads are refused in the other (exit 2,
# naming the option) rather than ignored, --device with --devices is refused, and a
# numerical failure names the large particle as the scene does.
# usage: mode_options.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$(realpath "$1")
root=$2
filter=${3:-}
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1

exits_2_naming() { # the option the message must name, then the arguments
  local want=$1
  shift
  "$exe" -q "$@" >out 2>err
  local rc=$?
  cat err
  [ $rc -eq 2 ] && grep -q -- "$want" err && [ ! -s out ]
}

test_collision_options_refused_on_gravity_scene() {
  exits_2_naming "--pipeline" --headless -n 1 --pipeline naive "$root/scenes/kepler.ini" &&
    exits_2_naming "--buffers" --headless -n 1 -b copied "$root/scenes/kepler.ini" &&
    exits_2_naming "--pipeline" --headless -n 1 -p reordered -b shared "$root/scenes/kepler.ini"
}

test_gravity_options_refused_on_collision_scene() { # the reverse, as before
  exits_2_naming "--burst" --headless -n 1 --burst 4 "$root/tests/scenes/tiny.ini"
}

test_device_with_devices_refused() {
  exits_2_naming "--device and --devices" --headless -n 1 -d cpu --devices cpu \
    "$root/scenes/kepler.ini" &&
    exits_2_naming "--device and --devices" --headless -n 1 --devices all -d cpu \
      "$root/tests/scenes/tiny.ini"
}

test_each_alone_still_runs() {
  "$exe" -q --headless -n 2 -d cpu "$root/scenes/kepler.ini" >a || return 1
  "$exe" -q --headless -n 2 --devices cpu "$root/scenes/kepler.ini" >b || return 1
  "$exe" -q --headless -n 2 -p naive -b copied "$root/tests/scenes/tiny.ini" >c || return 1
  [ -n "$(hash_of a)" ] && [ "$(hash_of a)" = "$(hash_of b)" ] && [ -n "$(hash_of c)" ]
}

test_exploding_particle_named_by_its_section() {
  "$exe" -q --headless --checkpoint x.ck "$root/tests/scenes/exploding.ini" >/dev/null 2>err
  local rc=$?
  cat err
  [ $rc -eq 4 ] &&
    grep -q "step [0-9]*: large particle \[large\.rock\] moves faster than max_speed" err
}

test_exploding_group_member_named_by_group_and_number() {
  # [large.peg] is particle 0; the group's first rock is #0 of [large_random.rocks].
  "$exe" -q --headless --checkpoint y.ck "$root/tests/scenes/exploding_group.ini" \
    >/dev/null 2>err
  local rc=$?
  cat err
  [ $rc -eq 4 ] &&
    grep -q "step [0-9]*: large particle \[large_random\.rocks\] #0 moves faster than max_speed" err
}

check test_collision_options_refused_on_gravity_scene
check test_gravity_options_refused_on_collision_scene
check test_device_with_devices_refused
check test_each_alone_still_runs
check test_exploding_particle_named_by_its_section
check test_exploding_group_member_named_by_group_and_number
finish
