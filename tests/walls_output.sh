#!/usr/bin/env bash
# The scene's walls ([wall.NAME]) in the outputs (docs/output.md), on the rotating drum with
# a baffle and friction (tests/scenes/walls_drum.ini): walls.csv (a row per wall and frame,
# the frames' steps, NaN before any step, the drum pushed), the same reactions in --stats
# and the report; walls_SSSSSS.vtp listed in walls.pvd, read back with VTK (the drum a
# circle of its radius around its centre, the baffle through its points, the cells
# walls.csv's rows), the frames' contacts counting the walls; the energy balance of
# diagnostics.csv closing with the walls' work and dissipation as tightly as
# tests/diagnostics.sh requires without walls (3 %), and failing without either term;
# discs at rest on walls (tests/scenes/walls_rest.ini): each wall carries its disc's weight,
# the springs' energy in elastic_normal and, tilted and with friction, elastic_tangential;
# CSV frames' walls_SSSSSS.csv; an older run's walls files refused and cleared; the hash
# unchanged by the outputs.
# The VTK checks need python3-vtk9 or python3-paraview (tools/deps.sh test): skipped (77)
# without, failed under CI.
# usage: walls_output.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$1
root=$2
filter=${3:-}
. "$(dirname "$0")/lib.sh"
reader=$root/tests/read_vtp.py
checker=$root/tests/check_diagnostics.py

need_python vtkmodules.vtkIOXML numpy

drum=$root/tests/scenes/walls_drum.ini
run() { "$exe" -d cpu -q "$@"; }

# 4000 steps: the discs fall onto the baffle and, from step 3500 or so, into the drum.
drum_run() {
  [ -f "$tmp/d.ok" ] && return 0
  run "$drum" -n 4000 --output "$tmp/d" --output-every 100 --output-clear --diagnostics \
    -s "$tmp/d.json" >"$tmp/d.out" && touch "$tmp/d.ok"
}

test_walls_csv() {
  drum_run || return 1
  "$py" - "$tmp/d/walls.csv" "$tmp/d/diagnostics.csv" <<'PY'
import csv, math, sys
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0] == ["step", "time", "wall", "fx", "fy", "torque", "contacts"], rows[0]
body = [dict(zip(rows[0], r)) for r in rows[1:]]
assert all(len(r) == 7 for r in rows), "a row is cut"
steps = [int(r["step"]) for r in csv.DictReader(open(sys.argv[2]))]
assert steps == list(range(0, 4001, 100)), steps
assert len(body) == 2 * len(steps), (len(body), len(steps))
for i, r in enumerate(body):
    assert int(r["step"]) == steps[i // 2] and r["wall"] == ["drum", "baffle"][i % 2], r
    assert float(r["time"]) == int(r["step"]) * 3.5e-5, r
    f = [float(r[c]) for c in ("fx", "fy", "torque")]
    if i < 2:  # no step of this run made the first state
        assert all(math.isnan(x) for x in f) and r["contacts"] == "-1", r
    else:
        assert all(math.isfinite(x) for x in f) and int(r["contacts"]) >= 0, r
last = body[-2]
assert int(last["contacts"]) > 0 and float(last["fy"]) < 0, last  # the bed's weight, down
print("walls.csv:", len(body), "rows; the drum at the end:", last)
PY
}

# --stats' walls are the last frame's rows (the same doubles); the report has a line each.
test_stats_and_report() {
  drum_run || return 1
  grep -q "^wall      drum: [1-9][0-9]* contacts, force (" "$tmp/d.out" &&
    grep -q "^wall      baffle: " "$tmp/d.out" || return 1
  "$py" - "$tmp/d.json" "$tmp/d/walls.csv" <<'PY'
import csv, json, sys
stats = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))[-2:]
walls = stats["walls"]
assert [w["name"] for w in walls] == ["drum", "baffle"], walls
for w, r in zip(walls, rows):
    for c in ("fx", "fy", "torque"):
        assert w[c] == float(r[c]), (w, r)
    assert w["contacts"] == int(r["contacts"]), (w, r)
assert walls[0]["work"] != 0 and walls[1]["work"] == 0, walls  # the drum turns, the baffle not
assert stats["contacts"]["wall"] >= walls[0]["contacts"], stats["contacts"]
PY
}

# The walls' series: a walls_SSSSSS.vtp per frame in walls.pvd (frames.pvd lists frames
# only), read back by VTK: the drum (line 0) a circle of R = 0.24 around (0.25, 0.25), the
# baffle (line 1) through its three points, the cells the rows of walls.csv.
test_walls_vtp() {
  drum_run || return 1
  local listed='s/.*timestep="\([^"]*\)".*file="[a-z]*_\([0-9]*\).vtp".*/\1 \2/p'
  diff <(sed -n "$listed" "$tmp/d/frames.pvd") <(sed -n "$listed" "$tmp/d/walls.pvd") || return 1
  [ "$(grep -c 'file="walls_' "$tmp/d/walls.pvd")" = 41 ] && ! grep -q walls_ "$tmp/d/frames.pvd" ||
    return 1
  local f
  for f in 000000 004000; do
    "$py" "$reader" circle "$tmp/d/walls_$f.vtp" 0 0.25 0.25 0.24 &&
      "$py" "$reader" polyline "$tmp/d/walls_$f.vtp" 1 0.1,0.4,0.2,0.33,0.3,0.33 &&
      "$py" "$reader" wallcells "$tmp/d/walls_$f.vtp" "$tmp/d/walls.csv" || return 1
  done
}

# A frame's contacts count the walls as diagnostics.csv does: they sum to twice the pairs
# plus the wall contacts, and the drum's are among them.
test_frame_contacts_count_walls() {
  drum_run || return 1
  "$py" - "$tmp/d/frame_004000.vtp" "$tmp/d/diagnostics.csv" <<'PY'
import csv, sys
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOXML import vtkXMLPolyDataReader
r = vtkXMLPolyDataReader()
r.SetFileName(sys.argv[1])
r.Update()
total = int(vtk_to_numpy(r.GetOutput().GetPointData().GetArray("contacts")).sum())
row = list(csv.DictReader(open(sys.argv[2])))[-1]
pairs = sum(int(row[c]) for c in ("contacts_ss", "contacts_ls", "contacts_ll"))
assert int(row["contacts_wall"]) > 1, row  # the box has none: the drum's and the baffle's
assert total == 2 * pairs + int(row["contacts_wall"]), (total, pairs, row["contacts_wall"])
PY
}

# The balance with walls: E = kinetic + potential + elastic + dissipated - the walls' work
# stays within the 3 % of E0 that tests/diagnostics.sh allows without walls (measured 0.8 %
# over 10000 steps, 55 % of E0 dissipated), and fails without the walls' work (16 %), the
# dissipated or the elastic energy (the drum's contacts' springs among it).
test_balance_with_walls() {
  local steps
  steps=$(seq -s, 0 500 10000)
  run "$drum" -n 10000 --output "$tmp/b" --output-every 500 --diagnostics >"$tmp/b.out" &&
    python3 "$checker" "$tmp/b/diagnostics.csv" --steps "$steps" --tol 0.03 \
      --min-dissipated 0.3 --positive contacts_wall,wall_work,elastic_tangential || return 1
  local w
  for w in wall_work dissipated elastic_normal; do
    ! python3 "$checker" "$tmp/b/diagnostics.csv" --steps "$steps" --without $w || return 1
  done
}

# Discs at rest (tests/scenes/walls_rest.ini): the drum carries the small disc's weight and
# the shelf the large one's, its torque about its first point the weight times the lever;
# elastic_normal holds both contacts' springs, (m g)^2 / 2k each (the energy the balance
# needs of a wall contact, too small to show in the drum's), each a contact in the frame.
test_walls_carry_resting_discs() {
  run "$root/tests/scenes/walls_rest.ini" -n 10000 --output "$tmp/r" --output-every 5000 \
    --diagnostics -o "$tmp/r.csv" >/dev/null || return 1
  "$py" - "$tmp/r/walls.csv" "$tmp/r/diagnostics.csv" "$tmp/r.csv" "$tmp/r/frame_010000.vtp" <<'PY'
import csv, sys
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOXML import vtkXMLPolyDataReader
g, k = 9.81, 2500.0
walls = {r["wall"]: r for r in csv.DictReader(open(sys.argv[1])) if r["step"] == "10000"}
diag = list(csv.DictReader(open(sys.argv[2])))[-1]
small, large = csv.DictReader(open(sys.argv[3]))
near = lambda x, y: abs(x - y) <= 1e-4 * abs(y)
for name, disc in (("drum", small), ("shelf", large)):
    w, mg = walls[name], float(disc["mass"]) * g
    assert int(w["contacts"]) == 1 and near(float(w["fy"]), -mg), (w, mg)
    assert abs(float(w["fx"])) < 1e-6 * mg, w
lever = float(large["x"]) - 0.05
assert near(float(walls["shelf"]["torque"]), -lever * float(large["mass"]) * g), walls["shelf"]
spring = sum((float(d["mass"]) * g) ** 2 / (2 * k) for d in (small, large))
assert near(float(diag["elastic_normal"]), spring), (diag["elastic_normal"], spring)
assert diag["contacts_wall"] == "2" and float(diag["max_overlap"]) > 0, diag
r = vtkXMLPolyDataReader()
r.SetFileName(sys.argv[4])
r.Update()
c = list(vtk_to_numpy(r.GetOutput().GetPointData().GetArray("contacts")))
assert c == [1, 1], c
PY
}

# With friction, the shelf tilted by 0.05 (the ball held by friction and rolling
# resistance): elastic_tangential holds the shelf contact's spring, (m g sin a)^2 / 2 k_t
# with k_t = k / 3, within a factor of 2 (it still creeps: measured 5 % over); without the
# walls' histories it would be 0 (no other contact has one).
test_wall_springs_in_elastic_tangential() {
  sed -e 's/^segments = 0.05, 0.3, 0.15, 0.3$/segments = 0.05, 0.3, 0.15, 0.305/' \
    -e 's/^position = 0.1, 0.321$/position = 0.1, 0.3235/' \
    -e 's/^restitution = 0.5$/&\nwall_friction = 0.5\nrolling_friction = 0.1/' \
    "$root/tests/scenes/walls_rest.ini" >"$tmp/tilted.ini" &&
    run "$tmp/tilted.ini" -n 10000 --output "$tmp/t" --output-every 5000 --diagnostics \
      -o "$tmp/t.csv" >/dev/null || return 1
  "$py" - "$tmp/t/diagnostics.csv" "$tmp/t.csv" <<'PY'
import csv, math, sys
row = list(csv.DictReader(open(sys.argv[1])))[-1]
ball = list(csv.DictReader(open(sys.argv[2])))[1]
ft = float(ball["mass"]) * 9.81 * 0.005 / math.hypot(0.1, 0.005)
want, got = ft * ft / (2 * 2500 / 3), float(row["elastic_tangential"])
assert want / 2 < got < 2 * want, (got, want)
PY
}

# CSV frames: walls_SSSSSS.csv beside each frame, the points of each wall in scene
# coordinates (a closed one ending on its first point again); no walls.pvd.
test_csv_frames() {
  run "$drum" -n 200 --output "$tmp/c" --output-every 100 --output-format csv --diagnostics \
    >/dev/null || return 1
  [ "$(ls "$tmp/c" | grep -c '^walls_[0-9]*\.csv$')" = 3 ] && [ ! -e "$tmp/c/walls.pvd" ] &&
    [ -f "$tmp/c/walls.csv" ] || return 1
  "$py" - "$tmp/c/walls_000200.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert list(rows[0]) == ["wall", "point", "x", "y"], list(rows[0])
drum = [r for r in rows if r["wall"] == "drum"]
baffle = [(float(r["x"]), float(r["y"])) for r in rows if r["wall"] == "baffle"]
assert len(drum) == 129 and drum[0]["x"] == drum[-1]["x"] and drum[0]["y"] == drum[-1]["y"]
assert [int(r["point"]) for r in drum] == list(range(129)), drum
for r in drum:
    d = ((float(r["x"]) - 0.25) ** 2 + (float(r["y"]) - 0.25) ** 2) ** 0.5
    assert abs(d - 0.24) < 1e-12, r
assert baffle == [(0.1, 0.4), (0.2, 0.33), (0.3, 0.33)], baffle
PY
}

refused() { # expected text, then the arguments
  local want=$1
  shift
  run "$@" >"$tmp/out" 2>&1
  local rc=$?
  [ $rc -eq 2 ] && grep -q -- "$want" "$tmp/out" || {
    echo "exit $rc:"
    cat "$tmp/out"
    return 1
  }
}

# The walls' files are the run's: an older one is refused, --output-clear removes them,
# and no other output may take their names.
test_older_walls_files() {
  run "$drum" -n 10 --output "$tmp/o" --output-every 5 --diagnostics >/dev/null &&
    rm "$tmp/o"/frame_* "$tmp/o"/frames.pvd "$tmp/o"/walls.vtp "$tmp/o"/diagnostics.csv &&
    refused "holds frames of an earlier run ('walls" "$drum" -n 10 --output "$tmp/o" || return 1
  rm "$tmp/o"/walls_* "$tmp/o"/walls.pvd &&
    refused "('walls.csv')" "$drum" -n 10 --output "$tmp/o" &&
    run "$drum" -n 4 --output "$tmp/o" --output-every 4 --output-clear >/dev/null &&
    [ "$(ls "$tmp/o" | tr '\n' ' ')" = "frame_000000.vtp frame_000004.vtp frames.pvd walls.pvd \
walls.vtp walls_000000.vtp walls_000004.vtp " ] &&
    refused "is a file of the --output folder" "$drum" -n 4 --output "$tmp/o" --output-clear \
      -o "$tmp/o/walls.csv" &&
    refused "is a file of the --output folder" "$drum" -n 4 --output "$tmp/o" --output-clear \
      -s "$tmp/o/walls_000100.vtp"
}

# Sampling the walls for the outputs leaves the state alone.
# The walls' share of the worker's time: the report's line, --stats' per-thread list (within
# each thread's busy time, summing above zero), and --trace's "walls" slices, each inside
# its thread's large-small work (a pool chunk, or the worker's own large-small phase).
test_walls_share() {
  MIXSIM_CPU_GRAIN=1 run "$drum" -n 60 --cpu-threads 3 --stats "$tmp/s.json" \
    --trace "$tmp/s.trace" --trace-steps 20:40 >"$tmp/s.out" || return 1
  grep -qE "^    of which the walls' items \(large-small\): [0-9.]+ ms/it, [0-9.]+% of" "$tmp/s.out" ||
    { cat "$tmp/s.out"; return 1; }
  "$py" - "$tmp/s.json" "$tmp/s.trace" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
walls, busy = stats["walls_busy_ms_per_iteration"], stats["cpu_threads_busy_ms_per_iteration"]
assert len(walls) == len(busy) == 3 and sum(walls) > 0, (walls, busy)
assert all(0 <= w <= b * 1.0001 + 1e-9 for w, b in zip(walls, busy)), (walls, busy)
t = json.load(open(sys.argv[2]))
ev = t["traceEvents"] if isinstance(t, dict) else t
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
         if e.get("ph") == "M" and e.get("name") == "thread_name"}
spans = [e for e in ev if e.get("ph") == "X"]
slices = [e for e in spans if e["name"] == "walls"]
assert len(slices) >= 20, len(slices)
for w in slices:
    outer = [e for e in spans if (e["pid"], e["tid"]) == (w["pid"], w["tid"]) and
             e["name"] in ("chunk", "large-small") and e["ts"] <= w["ts"] + 0.5 and
             w["ts"] + w["dur"] <= e["ts"] + e["dur"] + 0.5]
    assert outer, (names.get((w["pid"], w["tid"])), w)
print("    walls' items: %s ms/it per thread; %d trace slices" % (walls, len(slices)))
PY
}

test_hash_unchanged() {
  run "$drum" -n 400 >"$tmp/h0.out" &&
    run "$drum" -n 400 --output "$tmp/h" --output-every 50 --diagnostics >"$tmp/h1.out" &&
    [ -n "$(hash_of "$tmp/h0.out")" ] && [ "$(hash_of "$tmp/h0.out")" = "$(hash_of "$tmp/h1.out")" ]
}

check test_walls_csv
check test_stats_and_report
check test_walls_vtp
check test_frame_contacts_count_walls
check test_balance_with_walls
check test_walls_carry_resting_discs
check test_wall_springs_in_elastic_tangential
check test_csv_frames
check test_older_walls_files
check test_hash_unchanged
check test_walls_share
finish
