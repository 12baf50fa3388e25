#!/usr/bin/env bash
# Checkpoints with valid checksums whose fields no run could have written: each field is
# checked against what the scene and the device allow, and a refusal names the file
# and the field (exit 2) before anything is allocated for it: counters within a run's
# reach, values finite, masses normal floats (centres far outside the box are said). A
# grid capacity at the documented limit is accepted and changes nothing.
# usage: checkpoint_fields.sh MIXSIM SOURCE_ROOT
set -u
exe=$(realpath "$1")
root=$2
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1
tiny=$root/tests/scenes/tiny.ini # 200 small particles, 30 x 30 cells, capacity 8

# patch IN OUT FIELD VALUE: a copy of checkpoint IN with one field of the collision
# payload set, checksums recomputed (header 40 bytes; payload: the record of the scene's
# files (a count, 16 bytes and a key per file, its CRC-32), then n_small i32, n_large i32,
# step i64, capacity i32, largest overflow i32, then four i64 counters).
patch() {
  PYTHONPATH="$root/tests" python3 - "$@" <<'PY'
import struct, sys
from ckpt_bytes import fields_at, reseal
src, dst, name, value = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
fields = {'n_small': (0, '<i'), 'n_large': (4, '<i'), 'step': (8, '<q'), 'capacity': (16, '<i'),
          'max_overflow': (20, '<i'), 'grid_builds': (24, '<q'), 'overflow_builds': (32, '<q'),
          'capacity_growths': (40, '<q'), 'outside_events': (48, '<q'),
          'gravity_step': (4, '<q')}
d = bytearray(open(src, 'rb').read())
at, fmt = fields[name]
struct.pack_into(fmt, d, fields_at(d) + at, value)
reseal(d)
open(dst, 'wb').write(d)
PY
}

# poke IN OUT FORMAT OFFSET VALUE: a copy of checkpoint IN with one value of struct FORMAT
# at OFFSET after the record of the scene's files, a Python expression of ns and nl (the collision counts: small
# positions at 56, velocities at 56 + 16 ns, the large state at 56 + 32 ns, 4 doubles each;
# gravity: n i32, step i64, e0 f64, then 4 floats a body from 20), checksums recomputed.
poke() {
  PYTHONPATH="$root/tests" python3 - "$@" <<'PY'
import struct, sys
from ckpt_bytes import fields_at, reseal
src, dst, fmt, offset, value = sys.argv[1:6]
d = bytearray(open(src, 'rb').read())
base = fields_at(d)
ns, nl = struct.unpack_from('<ii', d, base)
value = float(value) if fmt[-1] in 'df' else int(value)
struct.pack_into(fmt, d, base + eval(offset), value)
reseal(d)
open(dst, 'wb').write(d)
PY
}

refused_field() { # checkpoint, scene, expected words
  "$exe" -q -n 20 --resume "$1" "$2" >/dev/null 2>err
  local rc=$?
  [ $rc -eq 2 ] && grep -q "checkpoint '$1' refused: $3" err ||
    { echo "    $1: exit $rc: $(cat err)"; return 1; }
}

test_capacity_beyond_limit_refused() {
  "$exe" -q -n 5 --checkpoint good.ck "$tiny" >/dev/null || return 1
  local cap
  for cap in 2147483647 4097 0 -8; do
    patch good.ck cap.ck capacity $cap || return 1
    refused_field "$tmp/cap.ck" "$tiny" "field 'grid capacity' = $cap is outside \[1, 4096\]" ||
      return 1
  done
}

test_capacity_at_limit_accepted_same_hash() {
  "$exe" -q -n 20 "$tiny" >full || return 1
  "$exe" -q -n 5 --checkpoint good.ck "$tiny" >/dev/null || return 1
  patch good.ck max.ck capacity 4096 || return 1
  "$exe" -q -n 20 --resume max.ck "$tiny" >r 2>err || { cat err; return 1; }
  grep -q "capacity 4096" r && [ "$(hash_of full)" = "$(hash_of r)" ]
}

test_capacity_beyond_device_refused() {
  # 5000 x 5000 cells: capacity 1 is 100 MB of grid index; 4096, within the [grid]
  # capacity limit, would be 410 GB, more than any device allocates.
  cat >wide.ini <<'INI'
[simulation]
dt = 1e-5
[box]
min = 0, 0
max = 50, 50
[material]
stiffness = 1e4
restitution = 0.5
[grid]
capacity = 1
[small]
count = 10
radius = 0.005
region = 0, 0, 1, 1
INI
  "$exe" -q -n 1 --checkpoint w.ck wide.ini >/dev/null || return 1
  patch w.ck wcap.ck capacity 4096 || return 1
  refused_field "$tmp/wcap.ck" wide.ini "field 'grid capacity' = 4096 does not fit the device: buffer 'grid index' needs [0-9]* bytes" &&
    grep -q "CL_DEVICE_MAX_MEM_ALLOC_SIZE" err
}

test_counters_out_of_range_refused() {
  "$exe" -q -n 5 --checkpoint good.ck "$tiny" >/dev/null || return 1
  patch good.ck f.ck step -1 && refused_field "$tmp/f.ck" "$tiny" "field 'step' = -1 is negative" || return 1
  patch good.ck f.ck max_overflow 201 &&
    refused_field "$tmp/f.ck" "$tiny" "field 'largest overflow' = 201 is more than the number of small particles" || return 1
  patch good.ck f.ck grid_builds -3 &&
    refused_field "$tmp/f.ck" "$tiny" "field 'grid builds' = -3 is negative" || return 1
  patch good.ck f.ck overflow_builds 1000 &&
    refused_field "$tmp/f.ck" "$tiny" "field 'overflowed builds' = 1000 is more than the grid builds" || return 1
  patch good.ck f.ck capacity_growths 1 &&
    refused_field "$tmp/f.ck" "$tiny" "field 'capacity growths' = 1 is more than the overflowed builds" || return 1
  patch good.ck f.ck outside_events -1 &&
    refused_field "$tmp/f.ck" "$tiny" "field 'outside-box events' = -1 is negative" || return 1
  patch good.ck f.ck n_small 199 &&
    refused_field "$tmp/f.ck" "$tiny" "field 'n_small' = 199: particle counts differ" || return 1
  patch good.ck f.ck n_large 2147483647 &&
    refused_field "$tmp/f.ck" "$tiny" "field 'n_large' = 2147483647: particle counts differ"
}

# Counters past any run's (INT64_MAX overflowed the next grid build: UBSan).
test_counters_beyond_any_run_refused() {
  "$exe" -q -n 5 --checkpoint good.ck "$tiny" >/dev/null || return 1
  patch good.ck f.ck grid_builds 9223372036854775807 &&
    refused_field "$tmp/f.ck" "$tiny" "field 'grid builds' = 9223372036854775807 is more than 2^53" ||
    return 1
  patch good.ck f.ck outside_events 9007199254740993 &&
    refused_field "$tmp/f.ck" "$tiny" "field 'outside-box events' = 9007199254740993 is more than 2^53" ||
    return 1
  patch good.ck f.ck step 1000000000000001 &&
    refused_field "$tmp/f.ck" "$tiny" "field 'step' = 1000000000000001 is more than the most steps a run takes" ||
    return 1
  patch good.ck f.ck step 9223372036854775807 &&
    refused_field "$tmp/f.ck" "$tiny" "field 'step' = 9223372036854775807 is more than" || return 1
  local scene=$root/scenes/kepler.ini
  "$exe" -q -n 5 --checkpoint g.ck "$scene" >/dev/null || return 1
  patch g.ck gf.ck gravity_step 9223372036854775807 &&
    refused_field "$tmp/gf.ck" "$scene" "field 'step' = 9223372036854775807 is more than the most steps"
}

# Centres far outside the box load, with a warning naming the field and the particle: no
# run stops a particle that leaves the box, and the last good state of a failing run can
# hold one 1e32 m away (tests/failure.sh resumes it). Non-finite values are refused.
test_positions_far_outside_said_and_nonfinite_refused() {
  "$exe" -q -n 5 --checkpoint good.ck "$tiny" >/dev/null || return 1
  poke good.ck f.ck '<d' 56 1e12 || return 1
  "$exe" -n 6 --resume f.ck "$tiny" >r 2>err || { cat err; return 1; }
  grep -q "warning: checkpoint 'f.ck': field 'small positions' has 1 particle(s) more than the box's width or height outside the box (0, 0 .. 0.3, 0.3), first #0 at (1000000000000," err ||
    { cat err; return 1; }
  poke good.ck f.ck '<d' '56 + 32 * ns + 32 * 2' -1e15 || return 1
  "$exe" -n 6 --resume f.ck "$tiny" >r 2>err || { cat err; return 1; }
  grep -q "field 'large state' has 1 particle(s) .*first #2 at (-1000000000000000," err ||
    { cat err; return 1; }
  # a little past a wall, as the walls allow: no word from the checkpoint
  poke good.ck near.ck '<d' 56 -0.002 || return 1
  "$exe" -n 6 --resume near.ck "$tiny" >r 2>err || { cat err; return 1; }
  ! grep -q "warning: checkpoint" err && [ -n "$(hash_of r)" ] || return 1
  poke good.ck f.ck '<d' '56 + 16 * ns + 8' nan &&
    refused_field "$tmp/f.ck" "$tiny" "field 'small velocities' has a non-finite value (entry 1)" ||
    return 1
  poke good.ck f.ck '<d' '56 + 32 * ns + 4 * 8 + 3 * 8' inf &&
    refused_field "$tmp/f.ck" "$tiny" "field 'large state' has a non-finite value (entry 7)"
}

# Gravity bodies: positions finite, masses 0 or normal floats, not all 0.
test_gravity_bodies_refused() {
  local scene=$root/scenes/kepler.ini
  "$exe" -q -n 5 --checkpoint g.ck "$scene" >/dev/null || return 1
  poke g.ck gf.ck '<f' 20 inf &&
    refused_field "$tmp/gf.ck" "$scene" "field 'positions' has a non-finite value (entry 0)" || return 1
  poke g.ck gf.ck '<f' '20 + 12' 1e-40 &&
    refused_field "$tmp/gf.ck" "$scene" "field 'positions' has a mass of [0-9.e-]* (body 0), a denormal float" ||
    return 1
  poke g.ck g0.ck '<f' '20 + 12' 0 && poke g0.ck gf.ck '<f' '20 + 16 + 12' 0 &&
    refused_field "$tmp/gf.ck" "$scene" "field 'positions' has no body with a mass"
}

test_gravity_step_negative_refused() {
  local scene=$root/scenes/kepler.ini
  "$exe" -q -n 5 --checkpoint g.ck "$scene" >/dev/null || return 1
  patch g.ck gf.ck gravity_step -5 && refused_field "$tmp/gf.ck" "$scene" "field 'step' = -5 is negative"
}

check test_capacity_beyond_limit_refused
check test_capacity_at_limit_accepted_same_hash
check test_capacity_beyond_device_refused
check test_counters_out_of_range_refused
check test_counters_beyond_any_run_refused
check test_positions_far_outside_said_and_nonfinite_refused
check test_gravity_bodies_refused
check test_gravity_step_negative_refused
finish
