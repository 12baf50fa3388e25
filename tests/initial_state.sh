#!/usr/bin/env bash
# The initial state as a file, and particles from files, through the command line:
# --steps 0 (and steps = 0) writes the outputs of the placed state without stepping, in
# both modes; a --dump read back as [small] file + [large_file.NAME] is the same state
# (same particles to the last digit, same hash, and with its NAME.state.csv it runs on as
# the original did, a polydisperse bed too);
# a density that looks like a bulk one is warned about.
# usage: initial_state.sh MIXSIM SOURCE_ROOT HAVE_PREVIEW [filter]
set -u
exe=$1
root=$2
have_preview=$3
filter=${4:-}
. "$(dirname "$0")/lib.sh"

# JSON that parses, with no NaN/Inf anywhere, and the given step.
json_ok() { # FILE STEP
  python3 - "$1" "$2" <<'PY'
import json, math, sys
def bad(c): raise ValueError("not finite: " + c)
d = json.load(open(sys.argv[1]), parse_constant=bad)
assert d["step"] == int(sys.argv[2]), d["step"]
def walk(v):
    if isinstance(v, float): assert math.isfinite(v)
    elif isinstance(v, dict): [walk(x) for x in v.values()]
    elif isinstance(v, list): [walk(x) for x in v]
walk(d)
PY
}

test_steps_zero_collision_writes_initial_state() {
  local shot=()
  [ "$have_preview" = 1 ] && shot=(--screenshot "$tmp/c0.png")
  "$exe" -q -n 0 --stats "$tmp/c0.json" --dump "$tmp/c0.csv" --checkpoint "$tmp/c0.ck" \
    "${shot[@]}" "$root/tests/scenes/tiny.ini" >"$tmp/c0.out" 2>"$tmp/c0.err" || return 1
  grep -q "state hash [0-9a-f]* (step 0)" "$tmp/c0.out" && grep -q "^run *0 iterations" "$tmp/c0.out" &&
    json_ok "$tmp/c0.json" 0 && [ "$(wc -l <"$tmp/c0.csv")" -eq 206 ] && [ -s "$tmp/c0.ck" ] ||
    return 1
  [ "$have_preview" != 1 ] || [ -s "$tmp/c0.png" ] || return 1
  # the checkpoint of step 0 resumes to the hash of a run from the start
  "$exe" -q -n 30 --resume "$tmp/c0.ck" "$root/tests/scenes/tiny.ini" >"$tmp/r.out" || return 1
  "$exe" -q -n 30 "$root/tests/scenes/tiny.ini" >"$tmp/d.out" || return 1
  [ "$(hash_of "$tmp/r.out")" = "$(hash_of "$tmp/d.out")" ]
}

test_scene_steps_zero() {
  sed 's/^steps = 500/steps = 0/' "$root/tests/scenes/tiny.ini" >"$tmp/zero.ini"
  grep -q "^steps = 0" "$tmp/zero.ini" || return 1
  "$exe" -q --dump "$tmp/z.csv" "$tmp/zero.ini" >"$tmp/z.out" || return 1
  grep -q "(step 0)" "$tmp/z.out" && [ "$(wc -l <"$tmp/z.csv")" -eq 206 ]
}

test_steps_zero_gravity_writes_initial_state() {
  "$exe" -q -n 0 --stats "$tmp/g0.json" --dump "$tmp/g0.csv" --checkpoint "$tmp/g0.ck" \
    "$root/tests/scenes/bodies.ini" >"$tmp/g0.out" || return 1
  grep -q "state hash [0-9a-f]* (step 0)" "$tmp/g0.out" && json_ok "$tmp/g0.json" 0 &&
    [ -s "$tmp/g0.ck" ] || return 1
  # the dump is the body file's state
  python3 - "$root/tests/scenes/bodies.csv" "$tmp/g0.csv" <<'PY' || return 1
import csv, sys
def rows(p):
    return [list(map(float, r)) for r in csv.reader(l for l in open(p) if l.strip() and not l.startswith("#")) if r[0] != "x"]
a, b = rows(sys.argv[1]), rows(sys.argv[2])
assert len(a) == len(b) and all(abs(x - y) <= 1e-6 * max(1.0, abs(x)) for r, s in zip(a, b) for x, y in zip(r, s)), (a, b)
PY
  "$exe" -q -n 20 --resume "$tmp/g0.ck" "$root/tests/scenes/bodies.ini" >"$tmp/gr.out" || return 1
  "$exe" -q -n 20 "$root/tests/scenes/bodies.ini" >"$tmp/gd.out" || return 1
  [ "$(hash_of "$tmp/gr.out")" = "$(hash_of "$tmp/gd.out")" ]
}

# The scene of a dump: tiny.ini's box and material, every particle from the dump.
dump_scene() { # DUMP SCENE
  cat >"$2" <<EOS
[simulation]
dt = 1e-4
seed = 7
gravity = 0, -9.81
[box]
min = 0, 0
max = 0.3, 0.3
[material]
stiffness = 1e5
restitution = 0.5
[small]
file = $(basename "$1")
[large_file.dumped]
file = $(basename "$1")
EOS
}

test_dump_round_trip() {
  "$exe" -q -n 400 --dump "$tmp/run.csv" "$root/tests/scenes/tiny.ini" >"$tmp/run.out" || return 1
  dump_scene "$tmp/run.csv" "$tmp/again.ini"
  "$exe" -q -n 0 --dump "$tmp/again.csv" "$tmp/again.ini" >"$tmp/again.out" || return 1
  python3 - "$tmp/run.csv" "$tmp/again.csv" <<'PY' || return 1
import csv, sys
a, b = list(csv.DictReader(open(sys.argv[1]))), list(csv.DictReader(open(sys.argv[2])))
assert len(a) == len(b) == 205, (len(a), len(b))
for r, s in zip(a, b):
    for k in r:
        if k in ("kind", "index", "static"):
            assert r[k] == s[k], (k, r, s)
        else:
            x, y = float(r[k]), float(s[k])
            assert abs(x - y) <= 1e-15 * abs(x), (k, r, s)
PY
  # the same state: the same hash, and it runs on as the original does
  [ "$(hash_of "$tmp/run.out")" = "$(hash_of "$tmp/again.out")" ] || return 1
  "$exe" -q -n 100 "$tmp/again.ini" >"$tmp/on.out" || return 1
  "$exe" -q -n 500 "$root/tests/scenes/tiny.ini" >"$tmp/orig.out" || return 1
  echo "    continued $(hash_of "$tmp/on.out"), uninterrupted $(hash_of "$tmp/orig.out")"
  [ "$(hash_of "$tmp/on.out")" = "$(hash_of "$tmp/orig.out")" ]
}

# A polydisperse bed (tests/scenes/ls_stream.ini: radii drawn in 3.5..4 mm, the grid sized
# by radius_max = 4 mm, which no disc reaches): its dump's NAME.state.csv holds the grid's
# radius, and the dump runs on to the uninterrupted hash; without it, to another, unwarned
# (no friction: nothing else is lost).
test_polydisperse_dump_runs_on() {
  local sc=$root/tests/scenes/ls_stream.ini
  "$exe" -q -n 300 --dump "$tmp/ls.csv" "$sc" >/dev/null || return 1
  head -1 "$tmp/ls.state.csv" | grep -q "grid radius 0.00400000019 m; step 300;" || return 1
  scene_from_dump "$sc" ls.csv "$tmp/ls.ini" || return 1
  "$exe" -q -n 600 "$sc" >"$tmp/ls_full" && "$exe" -q -n 300 "$tmp/ls.ini" >"$tmp/ls_on" || return 1
  echo "    step 600: $(hash_of "$tmp/ls_full"), from the dump of step 300: $(hash_of "$tmp/ls_on")"
  [ "$(hash_of "$tmp/ls_on")" = "$(hash_of "$tmp/ls_full")" ] || return 1
  rm "$tmp/ls.state.csv"
  "$exe" -n 300 --headless "$tmp/ls.ini" >"$tmp/ls_off" 2>"$tmp/err" || return 1
  [ "$(hash_of "$tmp/ls_off")" != "$(hash_of "$tmp/ls_full")" ] && ! grep -q "state" "$tmp/err"
}

test_bulk_looking_density_warned() {
  "$exe" -n 0 --headless "$root/tests/scenes/tiny.ini" >/dev/null 2>"$tmp/w.err" || return 1
  grep -F "tiny.ini:25: [small] density: 1000 kg/m^2 (areal) on discs of radius 0.005 m is as heavy as spheres of 150000 kg/m^3" "$tmp/w.err" &&
    grep -qF "write density = 1000 kg/m^3 with thickness = T" "$tmp/w.err" || return 1
  # explicit units say what is meant: no warning; --quiet silences it
  sed 's/^density = 1000$/density = 1000 kg\/m^2/' "$root/tests/scenes/tiny.ini" >"$tmp/areal.ini"
  "$exe" -n 0 --headless "$tmp/areal.ini" >/dev/null 2>"$tmp/a.err" || return 1
  ! grep -q "density" "$tmp/a.err" || return 1
  "$exe" -q -n 0 "$root/tests/scenes/tiny.ini" >/dev/null 2>"$tmp/q.err" || return 1
  ! grep -q "warning" "$tmp/q.err"
}

# A dump given to [small] file alone: its large rows are not loaded, and that is said.
test_rows_no_section_takes_warned() {
  "$exe" -q -n 10 --dump "$tmp/both.csv" "$root/tests/scenes/tiny.ini" >/dev/null || return 1
  dump_scene "$tmp/both.csv" "$tmp/small_only.ini"
  sed -i '/^\[large_file/,$d' "$tmp/small_only.ini"
  "$exe" -n 0 --headless "$tmp/small_only.ini" >"$tmp/so.out" 2>"$tmp/so.err" || return 1
  cat "$tmp/so.err"
  grep -q "200 small + 0 large" "$tmp/so.out" &&
    grep -qF "small_only.ini:12: [small] file: $tmp/both.csv has 5 rows of kind large, which are not loaded (a [large_file.NAME] section reads them)" "$tmp/so.err"
}

check test_steps_zero_collision_writes_initial_state
check test_scene_steps_zero
check test_steps_zero_gravity_writes_initial_state
check test_dump_round_trip
check test_polydisperse_dump_runs_on
check test_bulk_looking_density_warned
check test_rows_no_section_takes_warned
finish
