#!/usr/bin/env bash
# Persistent particle ids (docs/output.md, "Particle ids"): a dump read back keeps its ids;
# a particle file's id column gives the ids of the VTK and CSV frames and of the dump; an
# id given twice is refused at its line; a checkpoint resumes with the ids and the next id
# of the uninterrupted run (a version 5 one, without ids, with the scene's); damaged ids
# in a checkpoint are refused; ids leave the state hash alone.
# usage: ids.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$1
root=$2
filter=${3:-}
. "$(dirname "$0")/lib.sh"
reader=$root/tests/read_vtp.py
tiny=$root/tests/scenes/tiny.ini
fric=$root/tests/scenes/tiny_friction.ini
run() { "$exe" -d cpu -q "$@"; }

need_python vtkmodules.vtkIOXML numpy

ids_of() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "id") c = i; next } { print $c }' "$1"; }

# $1: a dump of SCENE $2 with ids 1000 + 7 k (k: the row) -> $3.ini reading it as $3.csv
with_ids() {
  awk -F, 'BEGIN { OFS = "," } NR == 1 { print; next } { $NF = 1000 + 7 * (NR - 2); print }' \
    "$1" >"$3.csv" && scene_from_dump "$2" "$(basename "$3").csv" "$3.ini"
}

# A scene's own particles are numbered small 0 .. Ns-1, then large; the dump read back as the
# scene's particles keeps those ids, and a dump with other ids keeps those.
test_dump_reload_keeps_ids() {
  run "$fric" -n 30 -o "$tmp/a.csv" >/dev/null || return 1
  [ "$(ids_of "$tmp/a.csv" | tr '\n' ' ')" = "$(seq 0 204 | tr '\n' ' ')" ] || return 1
  scene_from_dump "$fric" a.csv "$tmp/a.ini" && run "$tmp/a.ini" -n 10 -o "$tmp/a2.csv" >/dev/null &&
    cmp <(ids_of "$tmp/a.csv") <(ids_of "$tmp/a2.csv") || return 1
  with_ids "$tmp/a.csv" "$fric" "$tmp/b" && run "$tmp/b.ini" -n 10 -o "$tmp/b2.csv" >/dev/null &&
    cmp <(ids_of "$tmp/b.csv") <(ids_of "$tmp/b2.csv") &&
    [ "$(ids_of "$tmp/b2.csv" | tail -1)" = $((1000 + 7 * 204)) ]
}

# The file's ids in the frames: the .vtp's Int64 id array is the dump's id column (read_vtp.py
# frame), the CSV frame's id column the same; the hash is the one without the id column.
test_file_ids_in_frames() {
  run "$fric" -n 30 -o "$tmp/f.csv" >/dev/null && with_ids "$tmp/f.csv" "$fric" "$tmp/g" || return 1
  run "$tmp/g.ini" -n 40 --output "$tmp/gv" --output-every 20 -o "$tmp/g2.csv" >"$tmp/g.out" &&
    cmp <(ids_of "$tmp/g.csv") <(ids_of "$tmp/g2.csv") &&
    "$py" "$reader" frame "$tmp/gv/frame_000040.vtp" "$tmp/g2.csv" || return 1
  run "$tmp/g.ini" -n 40 --output "$tmp/gc" --output-every 20 --output-format csv >/dev/null &&
    head -1 "$tmp/gc/frame_000040.csv" | grep -q ',omega,id,contacts,fx,fy$' &&
    cmp <(ids_of "$tmp/gc/frame_000000.csv") <(ids_of "$tmp/g.csv") || return 1
  # the same particles without the id column: the same hash
  cut -d, -f1-11 "$tmp/g.csv" >"$tmp/h.csv" && sed 's/g\.csv/h.csv/' "$tmp/g.ini" >"$tmp/h.ini" &&
    run "$tmp/h.ini" -n 40 >"$tmp/h.out" && [ -n "$(hash_of "$tmp/h.out")" ] &&
    [ "$(hash_of "$tmp/h.out")" = "$(hash_of "$tmp/g.out")" ]
}

# An id given twice, across the [small] and the [large_file.NAME] rows of one dump: refused
# at the second giving's line, naming the first; so is a negative one.
test_duplicate_id_refused() {
  run "$tiny" -n 5 -o "$tmp/d.csv" >/dev/null && scene_from_dump "$tiny" dd.csv "$tmp/dd.ini" || return 1
  awk -F, 'BEGIN { OFS = "," } NR == 204 { $NF = 5 } { print }' "$tmp/d.csv" >"$tmp/dd.csv"
  run "$tmp/dd.ini" -n 5 >"$tmp/out" 2>"$tmp/err"
  [ $? -eq 2 ] && grep -qF "[large_file.all] file: $tmp/dd.csv:204: column id: id 5 is given twice (also at $tmp/dd.csv:7)" "$tmp/err" ||
    { cat "$tmp/err"; return 1; }
  awk -F, 'BEGIN { OFS = "," } NR == 3 { $NF = -4 } { print }' "$tmp/d.csv" >"$tmp/dd.csv"
  run "$tmp/dd.ini" -n 5 >"$tmp/out" 2>"$tmp/err"
  [ $? -eq 2 ] && grep -qF "[small] file: $tmp/dd.csv:3: column id: expected a whole number" "$tmp/err" ||
    { cat "$tmp/err"; return 1; }
}

# A checkpoint holds the ids and the next id: resumed, the dump is the uninterrupted run's
# (ids included); written as version 5 (no ids), it resumes with the scene's ids; as version 6
# (no large slots' section), with the scene's large particles.
test_checkpoint_keeps_ids() {
  run "$fric" -n 30 -o "$tmp/c.csv" >/dev/null && with_ids "$tmp/c.csv" "$fric" "$tmp/k" || return 1
  run "$tmp/k.ini" -n 80 -o "$tmp/full.csv" >/dev/null &&
    run "$tmp/k.ini" -n 40 --checkpoint "$tmp/k.ck" >/dev/null &&
    run "$tmp/k.ini" -n 80 --resume "$tmp/k.ck" -o "$tmp/res.csv" >/dev/null &&
    cmp "$tmp/full.csv" "$tmp/res.csv" || return 1
  PYTHONPATH="$root/tests" python3 - "$tmp/k.ck" "$tmp/k5.ck" <<'PY' || return 1
import sys
from ckpt_bytes import ids, as_format_5, as_format_6
d = open(sys.argv[1], 'rb').read()
r = ids(d)
want = [1000 + 7 * k for k in range(205)]
assert r['small'] + r['large'] == want, (r['small'][:3], r['large'])
assert r['next'] == want[-1] + 1, r['next']
open(sys.argv[2], 'wb').write(as_format_5(d))
open(sys.argv[2].replace('k5', 'k6'), 'wb').write(as_format_6(d))
PY
  run "$tmp/k.ini" -n 80 --resume "$tmp/k5.ck" -o "$tmp/res5.csv" >/dev/null &&
    cmp "$tmp/full.csv" "$tmp/res5.csv" &&
    run "$tmp/k.ini" -n 80 --resume "$tmp/k6.ck" -o "$tmp/res6.csv" >/dev/null &&
    cmp "$tmp/full.csv" "$tmp/res6.csv"
}

# ck_edit IN OUT PYTHON: PYTHON runs on bytearray d with r = its ids section, then reseals.
ck_edit() {
  PYTHONPATH="$root/tests" python3 - "$@" <<'PY'
import struct, sys
from ckpt_bytes import ids, reseal
d = bytearray(open(sys.argv[1], 'rb').read())
r = ids(d)
exec(sys.argv[3])
reseal(d)
open(sys.argv[2], 'wb').write(d)
PY
}

refused() { # checkpoint, expected words
  run "$tiny" -n 80 --resume "$1" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 2 ] && grep -qF "$2" "$tmp/err" && [ ! -s "$tmp/out" ] ||
    { echo "    $1: exit $rc: $(cat "$tmp/err")"; return 1; }
}

# Valid checksums, ids no run writes: each refused, naming the field; a cut in the ids too.
test_damaged_ids_refused() {
  run "$tiny" -n 40 --checkpoint "$tmp/t.ck" >/dev/null || return 1
  ck_edit "$tmp/t.ck" "$tmp/e.ck" "struct.pack_into('<q', d, r['small_at'] + 8, 0)" &&
    refused "$tmp/e.ck" "field 'small ids' and 'large ids' hold id 0 twice" || return 1
  ck_edit "$tmp/t.ck" "$tmp/e.ck" "struct.pack_into('<q', d, r['at'], 100)" &&
    refused "$tmp/e.ck" "field 'small ids' entry 100 = 100 is outside [0, next id = 100)" || return 1
  ck_edit "$tmp/t.ck" "$tmp/e.ck" "struct.pack_into('<q', d, r['at'], -1)" &&
    refused "$tmp/e.ck" "field 'next id' = -1 is negative" || return 1
  ck_edit "$tmp/t.ck" "$tmp/e.ck" "struct.pack_into('<i', d, r['end'] + 8 * len(r['large']), 2)" &&
    refused "$tmp/e.ck" "field 'large static' entry 0 = 2: 0 or 1" || return 1
  ck_edit "$tmp/t.ck" "$tmp/e.ck" "struct.pack_into('<f', d, r['end'], -1.0)" &&
    refused "$tmp/e.ck" "field 'large shapes' entry 0 = (-1, " || return 1
  head -c $(($(stat -c %s "$tmp/t.ck") - 4)) "$tmp/t.ck" >"$tmp/cut.ck" &&
    refused "$tmp/cut.ck" "truncated in field 'large static'"
}

check test_dump_reload_keeps_ids
check test_file_ids_in_frames
check test_duplicate_id_refused
check test_checkpoint_keeps_ids
check test_damaged_ids_refused
finish
