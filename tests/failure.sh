#!/usr/bin/env bash
# Faults injected from outside: an exploding system, a NaN planted in a checkpoint, a
# grid larger than the device can allocate. Each must stop with the documented exit
# code and a message naming what went wrong — and nothing silently lost: the last good
# state is finite and resumes in every pipeline x buffer mode, and no failure hangs.
# usage: failure.sh MIXSIM SOURCE_ROOT
set -u
exe=$(realpath "$1")
root=$2
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1

test_exploding_scene_exit_4_and_last_good_state() {
  "$exe" -q --checkpoint "$tmp/x.ck" "$root/tests/scenes/exploding.ini" >/dev/null 2>err
  local rc=$?
  cat err
  [ $rc -eq 4 ] && grep -q "step [0-9]*: large particle \[large\.rock\] moves faster than max_speed" err &&
    grep -q "last good state (step" err || return 1
  local at
  at=$(sed -n "s/.*last good state (step \([0-9]*\)).*/\1/p" err)
  # The last good state loads and is good: resuming it to its own step succeeds.
  "$exe" -q -n "$at" --resume "$tmp/x.ck" "$root/tests/scenes/exploding.ini" >out || return 1
  grep -q "(step $at)" out
}

test_overflow_to_nan_exit_4_names_particle() {
  "$exe" -q --checkpoint "$tmp/o.ck" "$root/tests/scenes/overflow_nan.ini" >/dev/null 2>err
  local rc=$?
  cat err
  [ $rc -eq 4 ] && grep -q "step [0-9]*: small particle #[0-9]* has a non-finite position" err &&
    grep -q "last good state (step" err || return 1
  # The last good state is finite: it loads (a non-finite one would be refused).
  local at
  at=$(sed -n "s/.*last good state (step \([0-9]*\)).*/\1/p" err)
  "$exe" -q -n "$at" --resume "$tmp/o.ck" "$root/tests/scenes/overflow_nan.ini" >/dev/null
}

test_nan_planted_in_checkpoint_refused() {
  local scene=$root/tests/scenes/tiny.ini
  "$exe" -q -n 5 --checkpoint "$tmp/n.ck" "$scene" >/dev/null || return 1
  # A NaN in small particle #7's x, with valid checksums, as a corrupt state would be.
  python3 - "$tmp/n.ck" <<'PY' || return 1
import struct, sys, zlib
p = sys.argv[1]
d = bytearray(open(p, 'rb').read())
head = 40
fixed = 4 + 4 + 8 + 4 + 4 + 8 * 4  # counts, step, capacity, overflow, four counters
struct.pack_into('<d', d, head + fixed + 7 * 16, float('nan'))  # x of #7 (x, y doubles)
struct.pack_into('<I', d, 32, zlib.crc32(bytes(d[head:])))
struct.pack_into('<I', d, 36, zlib.crc32(bytes(d[:36])))
open(p, 'wb').write(d)
PY
  "$exe" -q -n 10 --resume "$tmp/n.ck" "$scene" >/dev/null 2>err
  local rc=$?
  cat err
  [ $rc -eq 2 ] && grep -q "non-finite" err
}

test_grid_beyond_device_limit_exit_1_names_sizes() {
  cat >big.ini <<'INI'
[simulation]
dt = 1e-5
[box]
min = 0, 0
max = 40, 40
[material]
stiffness = 1e4
restitution = 0.5
[grid]
capacity = 4096
[small]
count = 1
radius = 0.005
region = 0, 0, 1, 1
INI
  "$exe" -q -n 1 big.ini >/dev/null 2>err
  local rc=$?
  cat err
  [ $rc -eq 1 ] && grep -q "grid index" err && grep -q "CL_DEVICE_MAX_MEM_ALLOC_SIZE" err
}

# The last good state after a failure, in all four pipeline x buffer modes: the same
# step in each, and it resumes (a non-finite state would be refused on loading).
last_good_every_mode() { # scene, expected message
  local scene=$root/tests/scenes/$1 want=$2 p b e at first= msg first_msg=
  for p in naive reordered; do
    for b in shared copied; do
      # (overflow_nan.ini overflows a cell at step 6: the zone follows the grown grid)
      for e in full zone; do
        rm -f "$tmp/m.ck"
        timeout -s KILL 120 "$exe" -q -p $p -b $b --exchange $e --checkpoint "$tmp/m.ck" "$scene" \
          >/dev/null 2>err
        local rc=$?
        at=$(sed -n "s/.*last good state (step \([0-9]*\)).*/\1/p" err)
        msg=$(grep -o "step [0-9]*: .*" err | head -1)
        echo "    $1 $p/$b/$e: exit $rc, last good step ${at:-none}"
        [ $rc -eq 4 ] && grep -q "$want" err && [ -n "$at" ] || { cat err; return 1; }
        [ -z "$first" ] && first=$at first_msg=$msg
        [ "$at" = "$first" ] && [ "$msg" = "$first_msg" ] || { cat err; return 1; }
        timeout -s KILL 120 "$exe" -q -p $p -b $b --exchange $e -n "$at" --resume "$tmp/m.ck" "$scene" \
          >out 2>err || { cat err; return 1; }
        grep -q "(step $at)" out || return 1
      done
    done
  done
}

test_last_good_state_resumes_in_every_mode() {
  last_good_every_mode overflow_nan.ini "has a non-finite position" &&
    last_good_every_mode exploding.ini "moves faster than max_speed"
}

# A numerical failure while the other thread waits at a sync point used to leave the
# rendezvous half-counted, and the replay for the last good state deadlocked at 0 % CPU,
# deaf to signals. Each run must end with exit 4 (not time out).
ends_with_4() { # scene, then options
  local scene=$1 rc
  shift
  timeout -s KILL 120 "$exe" -q "$@" "$scene" >/dev/null 2>err
  rc=$?
  echo "    $(basename "$scene") $*: exit $rc"
  [ $rc -eq 4 ] && grep -q "last good state (step" err || { cat err; return 1; }
}

test_exit_4_never_hangs() {
  sed '/^\[simulation\]/a max_speed = 0.3' "$root/tests/scenes/mixed_frictionless.ini" >slow.ini
  local p b
  for p in naive reordered; do
    for b in shared copied; do
      ends_with_4 slow.ini -n 2000 -p $p -b $b || return 1
      ends_with_4 slow.ini -n 2000 -p $p -b $b --checkpoint "$tmp/h.ck" || return 1
    done
  done
}

# Two more ways to blow the mixed scene up. Either the run ends with exit 4, or the
# value is refused up front (exit 2, naming its line); it never hangs.
ends_with_4_or_refused() { # scene, key
  timeout -s KILL 120 "$exe" -q -n 2000 "$1" >/dev/null 2>err
  local rc=$?
  echo "    $2: exit $rc"
  [ $rc -eq 4 ] || { [ $rc -eq 2 ] && grep -q "$2" err; } || { cat err; return 1; }
}

test_huge_velocity_and_tiny_restitution_end() {
  sed 's/^velocity = 0, 0$/velocity = 3e38, 0/' "$root/tests/scenes/mixed_frictionless.ini" >fast.ini
  sed 's/^restitution = .*/restitution = 1e-300/' "$root/tests/scenes/mixed_frictionless.ini" >soft.ini
  grep -q "^velocity = 3e38, 0" fast.ini && ends_with_4_or_refused fast.ini velocity &&
    ends_with_4_or_refused soft.ini restitution
}

# A periodic box blown apart sideways (gravity 1e30 along x, no speed limit): the large
# particle's rectangle was taken back by one period only and its cells fell off the grid
# (the worker's walk, the zone, the device-only list, the summary read and wrote past
# them). Every path ends the run with a state and its report.
test_periodic_blowup_stays_on_the_grid() {
  sed -e 's/^gravity = 0, -2000/gravity = 1e30, -2000/' -e '/^max_speed/d' \
    -e 's/^\[box\]/[box]\nperiodic = x/' "$root/tests/scenes/exploding.ini" >wide.ini
  grep -q "^periodic = x" wide.ini && grep -q "^gravity = 1e30" wide.ini || return 1
  local opts rc
  for opts in "" "--exchange zone" "--large-on device"; do
    timeout -s KILL 120 "$exe" -q -n 300 $opts wide.ini >out 2>err
    rc=$?
    echo "    ${opts:-default}: exit $rc"
    [ $rc -eq 0 ] && grep -q "^contacts " out && grep -q "state hash" out || { cat err; return 1; }
  done
}

check test_exploding_scene_exit_4_and_last_good_state
check test_overflow_to_nan_exit_4_names_particle
check test_nan_planted_in_checkpoint_refused
check test_grid_beyond_device_limit_exit_1_names_sizes
check test_last_good_state_resumes_in_every_mode
check test_exit_4_never_hangs
check test_huge_velocity_and_tiny_restitution_end
check test_periodic_blowup_stays_on_the_grid
finish
