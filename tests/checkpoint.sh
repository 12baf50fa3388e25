#!/usr/bin/env bash
# Checkpoint and restart from the command line: a resumed run ends with the hash of the
# uninterrupted one in every buffer/pipeline setting; damaged, foreign or other-version
# checkpoints are refused; SIGINT/SIGTERM stop at an iteration with a loadable
# checkpoint; a kill during writes never leaves a checkpoint that cannot be loaded.
# usage: checkpoint.sh MIXSIM SOURCE_ROOT
set -u
exe=$1
root=$2
scene=$root/tests/scenes/mixed_frictionless.ini
. "$(dirname "$0")/lib.sh"

test_resume_equals_uninterrupted() {
  "$exe" -q -n 240 "$scene" >"$tmp/full" || return 1
  "$exe" -q -n 90 --checkpoint "$tmp/k.ck" "$scene" >/dev/null || return 1
  local want got
  want=$(hash_of "$tmp/full")
  for p in naive reordered; do
    for b in shared copied; do
      "$exe" -q -n 240 -p $p -b $b --resume "$tmp/k.ck" "$scene" >"$tmp/r" || return 1
      got=$(hash_of "$tmp/r")
      echo "    $p/$b: $got (uninterrupted $want)"
      [ -n "$want" ] && [ "$got" = "$want" ] || return 1
    done
  done
}

test_checkpoint_every_k() {
  "$exe" -q -n 120 --checkpoint "$tmp/e.ck" --checkpoint-every 50 "$scene" >"$tmp/full" || return 1
  # The periodic checkpoints end with the final state; resuming it runs nothing more.
  "$exe" -q -n 120 --resume "$tmp/e.ck" "$scene" >"$tmp/r" || return 1
  [ "$(hash_of "$tmp/full")" = "$(hash_of "$tmp/r")" ] && grep -q "(step 120)" "$tmp/r"
}

refused() { # file, expected words
  "$exe" -q -n 1 --resume "$1" "$scene" >/dev/null 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 2 ] && grep -q "$2" "$tmp/err" || { echo "    $1: rc $rc: $(cat "$tmp/err")"; return 1; }
}

test_damaged_checkpoints_refused() {
  "$exe" -q -n 10 --checkpoint "$tmp/g.ck" "$scene" >/dev/null || return 1
  local size
  size=$(stat -c %s "$tmp/g.ck")
  for cut in 0 7 20 39 40 41 1000 $((size / 2)) $((size - 1)); do
    head -c $cut "$tmp/g.ck" >"$tmp/cut.ck"
    refused "$tmp/cut.ck" "refused" || return 1
  done
  for at in 0 9 13 17 25 33 37 40 100 $((size / 3)) $((size - 1)); do
    python3 -c "import sys; d=bytearray(open(sys.argv[1],'rb').read()); d[int(sys.argv[2])]^=0x40; open(sys.argv[3],'wb').write(d)" \
      "$tmp/g.ck" $at "$tmp/flip.ck"
    refused "$tmp/flip.ck" "refused" || return 1
  done
  printf 'extra' | cat "$tmp/g.ck" - >"$tmp/long.ck"
  refused "$tmp/long.ck" "trailing bytes" || return 1
  # Another format version, with a valid header checksum.
  python3 -c "
import struct, sys, zlib
d = bytearray(open(sys.argv[1], 'rb').read())
struct.pack_into('<I', d, 8, 99)
struct.pack_into('<I', d, 36, zlib.crc32(bytes(d[:36])))
open(sys.argv[2], 'wb').write(d)" "$tmp/g.ck" "$tmp/ver.ck"
  refused "$tmp/ver.ck" "format version 99" || return 1
  # Version 1 held the collision state in single precision: refused, saying so.
  python3 -c "
import struct, sys, zlib
d = bytearray(open(sys.argv[1], 'rb').read())
struct.pack_into('<I', d, 8, 1)
struct.pack_into('<I', d, 36, zlib.crc32(bytes(d[:36])))
open(sys.argv[2], 'wb').write(d)" "$tmp/g.ck" "$tmp/v1.ck"
  refused "$tmp/v1.ck" "format version 1 holds single-precision positions" || return 1
  # Another scene (the same scene file with one byte more is another scene).
  cp "$scene" "$tmp/other.ini" && echo "; changed" >>"$tmp/other.ini"
  "$exe" -q -n 1 --resume "$tmp/g.ck" "$tmp/other.ini" >/dev/null 2>"$tmp/err"
  [ $? -eq 2 ] && grep -q "another scene" "$tmp/err"
}

test_signal_leaves_loadable_checkpoint() {
  local sig code
  for sig in INT TERM; do
    rm -f "$tmp/s.ck"
    "$exe" -q -n 100000000 --checkpoint "$tmp/s.ck" --checkpoint-every 40 "$scene" \
      >"$tmp/out" 2>"$tmp/err" &
    local pid=$!
    # Signal once the run is under way (its first periodic checkpoint exists).
    for _ in $(seq 600); do [ -e "$tmp/s.ck" ] && break; sleep 0.1; done
    sleep 0.3
    kill -$sig $pid
    wait $pid
    code=$?
    cat "$tmp/err"
    [ $sig = INT ] && [ $code -ne 130 ] && return 1
    [ $sig = TERM ] && [ $code -ne 143 ] && return 1
    local at
    at=$(sed -n 's/^state hash [0-9a-f]* (step \([0-9]*\)).*/\1/p' "$tmp/out")
    [ -n "$at" ] && [ "$at" -gt 0 ] || return 1
    # Resuming that checkpoint to the same step reproduces the state exactly.
    "$exe" -q -n "$at" --resume "$tmp/s.ck" "$scene" >"$tmp/r" || return 1
    [ "$(hash_of "$tmp/out")" = "$(hash_of "$tmp/r")" ] || return 1
  done
  # And from scratch to that step: the uninterrupted run agrees.
  "$exe" -q -n "$at" "$scene" >"$tmp/full" || return 1
  [ "$(hash_of "$tmp/full")" = "$(hash_of "$tmp/out")" ]
}

loads() { # checkpoint: resumes to its own step (which a run to step 1 names when past it)
  local at
  "$exe" -q -n 1 --resume "$1" "$scene" >/dev/null 2>"$tmp/err" && return 0
  at=$(sed -n "s/.* is at step \([0-9]*\), past this run's end.*/\1/p" "$tmp/err")
  [ -n "$at" ] && "$exe" -q -n "$at" --resume "$1" "$scene" >/dev/null 2>"$tmp/err" ||
    { cat "$tmp/err"; return 1; }
}

test_kill_during_writes_keeps_checkpoint_loadable() {
  rm -f "$tmp/w.ck"
  "$exe" -q -n 3 --checkpoint "$tmp/w.ck" "$scene" >/dev/null || return 1
  for delay in 0.3 0.55 0.8 1.05 1.3; do
    "$exe" -q -n 100000000 --checkpoint "$tmp/w.ck" --checkpoint-every 1 "$scene" >/dev/null 2>&1 &
    local pid=$!
    sleep $delay
    kill -KILL $pid
    wait $pid 2>/dev/null
    loads "$tmp/w.ck" || return 1
  done
}

test_gravity_resume_equals_uninterrupted() {
  printf '[simulation]\nmode = gravity\ndt = 0.001\nsteps = 300\nseed = 3\n[gravity]\nbodies = plummer\ncount = 512\nsoftening = 0.01\nburst = 7\n' \
    >"$tmp/p.ini"
  sed 's/^burst = 7/burst = 7\nintegrator = taylor/' "$tmp/p.ini" >"$tmp/t.ini"
  local want got scene devs
  for scene in "$tmp/p.ini" "$tmp/t.ini" "$root/scenes/kepler.ini"; do
    "$exe" -q -n 300 "$scene" >"$tmp/full" || return 1
    "$exe" -q -n 110 --checkpoint "$tmp/gk.ck" "$scene" >/dev/null || return 1
    want=$(hash_of "$tmp/full")
    for devs in cpu cpu,cpu; do
      "$exe" -q -n 300 --devices $devs --resume "$tmp/gk.ck" "$scene" >"$tmp/r" || return 1
      got=$(hash_of "$tmp/r")
      echo "    $(basename "$scene") on $devs: $got (uninterrupted $want)"
      [ -n "$want" ] && [ "$got" = "$want" ] || return 1
    done
  done
  # A collision checkpoint does not resume a gravity scene.
  "$exe" -q -n 10 --checkpoint "$tmp/c.ck" "$scene" >/dev/null 2>&1
  "$exe" -q -n 1 --resume "$tmp/gk.ck" "$root/scenes/mixed.ini" >/dev/null 2>"$tmp/err"
  [ $? -eq 2 ] && grep -q "other simulation mode" "$tmp/err"
}

test_gravity_signal_leaves_loadable_checkpoint() {
  printf '[simulation]\nmode = gravity\ndt = 0.001\nsteps = 100000000\nseed = 3\n[gravity]\nbodies = plummer\ncount = 2048\nsoftening = 0.01\nburst = 5\nenergy = off\ndiagnostics_every = 0\n' \
    >"$tmp/long.ini"
  rm -f "$tmp/gs.ck"
  "$exe" -q --checkpoint "$tmp/gs.ck" --checkpoint-every 20 "$tmp/long.ini" >"$tmp/out" 2>"$tmp/err" &
  local pid=$!
  for _ in $(seq 600); do [ -e "$tmp/gs.ck" ] && break; sleep 0.1; done
  sleep 0.3
  kill -INT $pid
  wait $pid
  local code=$?
  cat "$tmp/err"
  [ $code -eq 130 ] || return 1
  local at
  at=$(sed -n 's/^state hash [0-9a-f]* (step \([0-9]*\)).*/\1/p' "$tmp/out")
  [ -n "$at" ] && [ "$at" -gt 0 ] || return 1
  # the stop names its step, as in collision mode
  grep -q "^mixsim: stopped by signal 2 at step $at; checkpoint written$" "$tmp/err" || return 1
  "$exe" -q -n "$at" --resume "$tmp/gs.ck" "$tmp/long.ini" >"$tmp/r" || return 1
  [ "$(hash_of "$tmp/out")" = "$(hash_of "$tmp/r")" ] || return 1
  "$exe" -q -n "$at" "$tmp/long.ini" >"$tmp/full" || return 1
  [ "$(hash_of "$tmp/full")" = "$(hash_of "$tmp/out")" ]
}

test_resume_past_the_end_refused() {
  "$exe" -q -n 30 --checkpoint "$tmp/p30.ck" "$root/tests/scenes/tiny.ini" >/dev/null || return 1
  "$exe" -q -n 20 --resume "$tmp/p30.ck" "$root/tests/scenes/tiny.ini" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  cat "$tmp/err"
  [ $rc -eq 2 ] && grep -q -- "--resume" "$tmp/err" && grep -q "at step 30" "$tmp/err" &&
    grep -q "step 20" "$tmp/err" && [ ! -s "$tmp/out" ] || return 1
  printf '[simulation]\nmode = gravity\ndt = 0.001\nsteps = 30\n[gravity]\nbodies = plummer\ncount = 128\nsoftening = 0.01\n' \
    >"$tmp/pg.ini"
  "$exe" -q --checkpoint "$tmp/pg.ck" "$tmp/pg.ini" >/dev/null || return 1
  "$exe" -q -n 20 --resume "$tmp/pg.ck" "$tmp/pg.ini" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  cat "$tmp/err"
  [ $rc -eq 2 ] && grep -q "at step 30" "$tmp/err" && grep -q "step 20" "$tmp/err" &&
    [ ! -s "$tmp/out" ]
}

# to_v3 IN OUT: checkpoint IN as format version 3 wrote it, without the record of the
# scene's files (count, 16 bytes and a key per file, CRC-32) that starts version 4's
# payload (nor, in collision mode, version 5's walls section); payload size and both
# checksums fixed.
to_v3() {
  PYTHONPATH="$root/tests" python3 - "$1" "$2" <<'PY'
import sys
from ckpt_bytes import as_format_3
open(sys.argv[2], 'wb').write(as_format_3(open(sys.argv[1], 'rb').read()))
PY
}

other_scene_refused() { # checkpoint scene file-the-message-names key
  "$exe" -q -n 80 --resume "$1" "$2" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 2 ] && grep -qF "checkpoint '$1' refused: written from another scene: '$3' ($4) has changed" \
    "$tmp/err" && [ ! -s "$tmp/out" ] || { echo "    rc $rc: $(cat "$tmp/err")"; return 1; }
}

# A checkpoint records the files its scene reads ([small] file, [large_file.NAME] file,
# [gravity] file): one changed since (a static flag, radii, a body's velocity; the same
# counts) is named, exit 2; put back, the run resumes to the uninterrupted hash. A version 3
# checkpoint (before the record) of a gravity scene, whose payload has not changed since,
# resumes a scene that reads no other file, and is refused, saying why, for one that does; a
# collision one lacks the walls' state of version 5 and is refused (walls_checkpoint.sh has
# version 4).
test_changed_scene_files_refused() {
  local d=$tmp/files
  mkdir -p "$d"
  "$exe" -q -n 100 --dump "$d/run.csv" "$root/tests/scenes/tiny.ini" >/dev/null || return 1
  (head -1 "$d/run.csv" && grep '^small' "$d/run.csv") >"$d/bed.csv"
  (head -1 "$d/run.csv" && grep '^large' "$d/run.csv") >"$d/rocks.csv"
  printf '%s\n' '[simulation]' 'dt = 1e-4' 'seed = 7' 'gravity = 0, -9.81' '[box]' 'min = 0, 0' \
    'max = 0.3, 0.3' '[material]' 'stiffness = 1e5' 'restitution = 0.5' '[small]' \
    'file = bed.csv' '[large_file.rocks]' 'file = rocks.csv' >"$d/s.ini"
  "$exe" -q -n 80 "$d/s.ini" >"$tmp/full" || return 1
  "$exe" -q -n 40 --checkpoint "$d/c.ck" "$d/s.ini" >/dev/null || return 1
  cp "$d/bed.csv" "$d/bed.keep" && cp "$d/rocks.csv" "$d/rocks.keep"
  grep -q '^large,0,.*,1,[0-9]*$' "$d/rocks.csv" &&
    sed -i 's/^\(large,0,.*\),1,\([0-9]*\)$/\1,0,\2/' "$d/rocks.csv" &&
    other_scene_refused "$d/c.ck" "$d/s.ini" "$d/rocks.csv" "[large_file.rocks] file" || return 1
  cp "$d/rocks.keep" "$d/rocks.csv"
  sed -i 's/,0.00499999989,/,0.00489999989,/' "$d/bed.csv" && ! cmp -s "$d/bed.csv" "$d/bed.keep" &&
    other_scene_refused "$d/c.ck" "$d/s.ini" "$d/bed.csv" "[small] file" || return 1
  cp "$d/bed.keep" "$d/bed.csv"
  "$exe" -q -n 80 --resume "$d/c.ck" "$d/s.ini" >"$tmp/r" || return 1
  [ "$(hash_of "$tmp/r")" = "$(hash_of "$tmp/full")" ] || return 1
  # gravity: the body file
  cp "$root/tests/scenes/bodies.ini" "$root/tests/scenes/bodies.csv" "$d/"
  "$exe" -q -n 10 --checkpoint "$d/b.ck" "$d/bodies.ini" >/dev/null || return 1
  sed -i '0,/-0.55,/s/-0.55,/-0.56,/' "$d/bodies.csv" && ! cmp -s "$d/bodies.csv" "$root/tests/scenes/bodies.csv" &&
    other_scene_refused "$d/b.ck" "$d/bodies.ini" "$d/bodies.csv" "[gravity] file" || return 1
  # version 3: no record
  cp "$root/tests/scenes/bodies.csv" "$d/" && to_v3 "$d/b.ck" "$d/b3.ck" || return 1
  "$exe" -q -n 80 --resume "$d/b3.ck" "$d/bodies.ini" >"$tmp/out" 2>"$tmp/err"
  [ $? -eq 2 ] && grep -qF "checkpoint '$d/b3.ck' refused: format version 3 records only the scene file's identity, not that of the files the scene reads" "$tmp/err" &&
    grep -qF "rerun the scene from the start" "$tmp/err" || { cat "$tmp/err"; return 1; }
  local kepler=$root/scenes/kepler.ini
  "$exe" -q -n 40 --checkpoint "$d/k.ck" "$kepler" >/dev/null && to_v3 "$d/k.ck" "$d/k3.ck" || return 1
  "$exe" -q -n 80 --resume "$d/k3.ck" "$kepler" >"$tmp/r" &&
    "$exe" -q -n 80 "$kepler" >"$tmp/full" &&
    [ "$(hash_of "$tmp/r")" = "$(hash_of "$tmp/full")" ] || return 1
  "$exe" -q -n 40 --checkpoint "$d/t.ck" "$root/tests/scenes/tiny.ini" >/dev/null &&
    to_v3 "$d/t.ck" "$d/t3.ck" || return 1
  "$exe" -q -n 80 --resume "$d/t3.ck" "$root/tests/scenes/tiny.ini" >"$tmp/out" 2>"$tmp/err"
  [ $? -eq 2 ] && grep -qF "checkpoint '$d/t3.ck' refused: format version 3 was written by an older mixsim, without the walls' state" "$tmp/err" &&
    [ ! -s "$tmp/out" ] || { cat "$tmp/err"; return 1; }
}

check test_resume_equals_uninterrupted
check test_resume_past_the_end_refused
check test_gravity_resume_equals_uninterrupted
check test_gravity_signal_leaves_loadable_checkpoint
check test_checkpoint_every_k
check test_damaged_checkpoints_refused
check test_changed_scene_files_refused
check test_signal_leaves_loadable_checkpoint
check test_kill_during_writes_keeps_checkpoint_loadable
finish
