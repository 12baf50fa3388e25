#!/usr/bin/env bash
# Checkpoints of scenes with walls ([wall.NAME]) from the command line: taken while a drum
# turns (its contacts' histories) and while a force-driven piston moves (its displacement
# and rate), they resume to the uninterrupted run's hash in both pipelines with 1 and 3
# worker threads; a format-4 checkpoint (before the walls' state) is refused saying so; a
# damaged walls record, or one no run of the scene could have written, is refused naming
# the field (exit 2).
# usage: walls_checkpoint.sh MIXSIM SOURCE_ROOT
set -u
exe=$(realpath "$1")
root=$2
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1
drum=$root/tests/scenes/walls_drum.ini     # a turning drum and a static baffle, friction on
piston=$root/tests/scenes/walls_piston.ini # a bed under a force-driven piston, friction on

# walls CHECKPOINT: its walls section, one line: n_sw n_lw, then each wall's
# driven:s:s_dot.
walls() {
  PYTHONPATH="$root/tests" python3 - "$1" <<'PY'
import sys
from ckpt_bytes import walls
w = walls(open(sys.argv[1], 'rb').read())
m = w['motion']
print(w['n_sw'], w['n_lw'], ' '.join('%d:%r:%r' % (w['driven'][k], m[2 * k], m[2 * k + 1])
                                     for k in range(w['n'])))
PY
}

# resumes SCENE AT END: a checkpoint at step AT, resumed to END in both pipelines with 1 and
# 3 worker threads, ends on the hash of the run to END.
resumes() {
  local scene=$1 at=$2 end=$3 want got p t
  want=$(hash_run "$scene" "$end") || return 1
  "$exe" -q -n "$at" --checkpoint at.ck "$scene" >/dev/null || return 1
  echo "    walls at step $at: $(walls at.ck)"
  for p in naive reordered; do
    for t in 1 3; do
      got=$(hash_run "$scene" "$end" -p $p --cpu-threads $t --resume at.ck) || return 1
      echo "    $p, $t threads: $got (uninterrupted $want)"
      [ -n "$want" ] && [ "$got" = "$want" ] || return 1
    done
  done
}

test_drum_resumes_mid_rotation() {
  resumes "$drum" 5000 7000 || return 1
  # the checkpoint held the drum's contacts: small-wall histories
  local n_sw
  read -r n_sw _ <<<"$(walls at.ck)"
  [ "$n_sw" -gt 0 ]
}

test_piston_resumes_mid_stroke() {
  resumes "$piston" 1100 2500 || return 1
  # the checkpoint held a moving piston, in contact with the bed and the large disc
  local n_sw n_lw motion s s_dot
  read -r n_sw n_lw motion <<<"$(walls at.ck)"
  IFS=: read -r _ s s_dot <<<"$motion"
  [ "$n_sw" -gt 0 ] && [ "$n_lw" -gt 0 ] && [ "$motion" != "1:0.0:0.0" ] &&
    python3 -c "import sys; sys.exit(not (float(sys.argv[1]) > 0 and float(sys.argv[2]) != 0))" \
      "$s" "$s_dot"
}

refused() { # checkpoint, scene, expected words (grep -E)
  "$exe" -q -n 6000 --resume "$1" "$2" >out 2>err
  local rc=$?
  [ $rc -eq 2 ] && grep -qE "$3" err && [ ! -s out ] ||
    { echo "    $1: exit $rc: $(cat err)"; return 1; }
}

# A format-4 checkpoint has no walls' state: refused, naming the format and what to do,
# for a scene with walls and without (a collision checkpoint's payload is format 5's only).
test_format_4_refused() {
  local scene
  for scene in "$piston" "$root/tests/scenes/tiny.ini"; do
    "$exe" -q -n 20 --checkpoint v5.ck "$scene" >/dev/null || return 1
    PYTHONPATH="$root/tests" python3 - v5.ck v4.ck <<'PY' || return 1
import sys
from ckpt_bytes import as_format_4
open(sys.argv[2], 'wb').write(as_format_4(open(sys.argv[1], 'rb').read()))
PY
    refused v4.ck "$scene" "checkpoint 'v4.ck' refused: format version 4 was written by an older mixsim, without the walls' state" ||
      return 1
    grep -q "this mixsim reads collision checkpoints of versions 5 to 7: rerun the scene from the start" err ||
      return 1
  done
  cat err
}

# edit IN OUT PYTHON: runs PYTHON on the bytearray d with w = its walls section (ckpt_bytes.walls),
# then fixes the payload size and both checksums.
edit() {
  PYTHONPATH="$root/tests" python3 - "$1" "$2" "$3" <<'PY'
import struct, sys
from ckpt_bytes import walls, reseal
d = bytearray(open(sys.argv[1], 'rb').read())
w = walls(d)
exec(sys.argv[3])
reseal(d)
open(sys.argv[2], 'wb').write(d)
PY
}

test_damaged_walls_record_refused() {
  "$exe" -q -n 1100 --checkpoint p.ck "$piston" >/dev/null || return 1
  local size at cut
  # (the walls section's end: the ids follow, which tests/ids.sh damages)
  size=$(PYTHONPATH="$root/tests" python3 -c "import sys; from ckpt_bytes import ids; print(ids(open(sys.argv[1], 'rb').read())['at'])" p.ck)
  at=$(PYTHONPATH="$root/tests" python3 -c "import sys; from ckpt_bytes import walls_at; print(walls_at(open(sys.argv[1], 'rb').read()))" p.ck)
  for cut in $((at + 2)) $((at + 10)) $((at + 22)) $((at + 30)) $((size - 1)); do
    head -c $cut p.ck >cut.ck
    refused cut.ck "$piston" "refused: truncated in field '(walls|.*-wall contacts|force-driven flags|wall motion|.*-wall histories)'" ||
      return 1
  done
  head -c $at p.ck >none.ck # format 5 without its walls section
  refused none.ck "$piston" "refused: truncated in field 'walls'" || return 1
  # a count is checked as it is read (before the arrays it sizes), the rest by the checksum
  for flip in $((at + 1)) $((at + 21)) $((at + 30)) $((size - 2)); do
    python3 -c "import sys; d=bytearray(open(sys.argv[1],'rb').read()); d[int(sys.argv[2])]^=0x40; open(sys.argv[3],'wb').write(d)" \
      p.ck $flip flip.ck
    if [ $flip = $((at + 1)) ]; then
      refused flip.ck "$piston" "refused: field 'walls' = 16385: the scene has 1" || return 1
    else
      refused flip.ck "$piston" "refused: payload checksum mismatch" || return 1
    fi
  done
}

# Valid checksums, fields no run of the scene writes: each refused, naming the field.
test_walls_fields_checked() {
  "$exe" -q -n 1100 --checkpoint p.ck "$piston" >/dev/null || return 1
  "$exe" -q -n 5000 --checkpoint d.ck "$drum" >/dev/null || return 1
  edit p.ck e.ck "struct.pack_into('<i', d, w['at'], 2)" &&
    refused e.ck "$piston" "field 'walls' = 2: the scene has 1" || return 1
  edit p.ck e.ck "struct.pack_into('<q', d, w['at'] + 4, 1 << 40)" &&
    refused e.ck "$piston" "field 'small-wall contacts' = 1099511627776 is more than the small particles times the walls' features" ||
    return 1
  edit p.ck e.ck "struct.pack_into('<i', d, w['driven_at'], 0)" &&
    refused e.ck "$piston" "field 'force-driven flags' entry 0 is 0: \[wall.piston\] is force-driven in the scene" ||
    return 1
  edit d.ck e.ck "struct.pack_into('<i', d, w['driven_at'] + 4, 1)" &&
    refused e.ck "$drum" "field 'force-driven flags' entry 1 is 1: \[wall.baffle\] is prescribed in the scene" ||
    return 1
  edit p.ck e.ck "struct.pack_into('<d', d, w['motion_at'] + 8, float('inf'))" &&
    refused e.ck "$piston" "field 'wall motion' has a non-finite value \(entry 1\)" || return 1
  edit d.ck e.ck "struct.pack_into('<d', d, w['motion_at'], 0.01)" &&
    refused e.ck "$drum" "field 'wall motion' entries 0, 1 \(s, s_dot\) = 0.01, 0: \[wall.drum\] moves as prescribed" ||
    return 1
  # small-wall entries: (wall, small particle, feature, xi)
  edit d.ck e.ck "struct.pack_into('<i', d, w['sw_at'], 2)" &&
    refused e.ck "$drum" "field 'small-wall histories' entry 0 names wall 2 and small particle [0-9]+, outside \[0, 2\) and \[0, 450\)" ||
    return 1
  edit d.ck e.ck "struct.pack_into('<i', d, w['sw_at'] + 4, 450)" &&
    refused e.ck "$drum" "field 'small-wall histories' entry 0 names wall 0 and small particle 450, outside" ||
    return 1
  edit d.ck e.ck "struct.pack_into('<i', d, w['sw_at'] + 8, 1)" &&
    refused e.ck "$drum" "field 'small-wall histories' entry 0 names feature 1 of \[wall.drum\], outside \[0, 1\)" ||
    return 1
  edit d.ck e.ck "d[w['sw_at']:w['sw_at'] + 32] = d[w['sw_at'] + 16:w['sw_at'] + 32] + d[w['sw_at']:w['sw_at'] + 16]" &&
    refused e.ck "$drum" "field 'small-wall histories' entry 1 \(0, [0-9]+, feature 0\) is not after entry 0" ||
    return 1
  edit d.ck e.ck "d[w['sw_at'] + 16:w['sw_at'] + 32] = d[w['sw_at']:w['sw_at'] + 16]" &&
    refused e.ck "$drum" "field 'small-wall histories' entry 1 .* is not after entry 0" || return 1
  edit d.ck e.ck "struct.pack_into('<f', d, w['sw_at'] + 12, float('nan'))" &&
    refused e.ck "$drum" "field 'small-wall histories' has a non-finite value \(entry 0\)" || return 1
  # large-wall entries: (large particle, wall, feature, xi); the piston has 3 segments, 7 features
  edit p.ck e.ck "struct.pack_into('<i', d, w['lw_at'], 1)" &&
    refused e.ck "$piston" "field 'large-wall histories' entry 0 names large particle 1 and wall 0, outside \[0, 1\) and \[0, 1\)" ||
    return 1
  edit p.ck e.ck "struct.pack_into('<i', d, w['lw_at'] + 8, 7)" &&
    refused e.ck "$piston" "field 'large-wall histories' entry 0 names feature 7 of \[wall.piston\], outside \[0, 7\)" ||
    return 1
  # without friction, no histories: one small-wall entry added
  grep -v "friction" "$piston" >plain.ini
  "$exe" -q -n 1100 --checkpoint plain.ck plain.ini >/dev/null || return 1
  edit plain.ck e.ck "struct.pack_into('<q', d, w['at'] + 4, 1); d[w['sw_at']:w['sw_at']] = struct.pack('<iiif', 0, 0, 1, 0.0)" &&
    refused e.ck plain.ini "field 'small-wall contacts' = 1, but the checkpoint holds no friction state" ||
    return 1
  # and the untouched ones resume
  "$exe" -q -n 1101 --resume p.ck "$piston" >/dev/null && "$exe" -q -n 5001 --resume d.ck "$drum" >/dev/null &&
    "$exe" -q -n 1101 --resume plain.ck plain.ini >/dev/null
}

check test_drum_resumes_mid_rotation
check test_piston_resumes_mid_stroke
check test_format_4_refused
check test_damaged_walls_record_refused
check test_walls_fields_checked
finish
