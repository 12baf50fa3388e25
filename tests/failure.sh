#!/usr/bin/env bash
# Faults injected from outside: an exploding system, a NaN planted in a checkpoint, a
# grid larger than the device can allocate. Each must stop with the documented exit
# code and a message naming what went wrong — and nothing silently lost.
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
struct.pack_into('<f', d, head + fixed + 7 * 8, float('nan'))
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

check test_exploding_scene_exit_4_and_last_good_state
check test_overflow_to_nan_exit_4_names_particle
check test_nan_planted_in_checkpoint_refused
check test_grid_beyond_device_limit_exit_1_names_sizes
finish
