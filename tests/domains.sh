#!/usr/bin/env bash
# Collision mode over several devices (docs/domains.md) on pocl: `--devices cpu,cpu` and
# `cpu,cpu,cpu` end in the one device's state hash on mixed.ini, a frictional bed, a
# periodic chute flow, a rotating drum (particles crossing the cuts all the time), open
# systems (inflows, outflows, an open side) and a force-driven piston (its report lines
# too), in both pipelines, both exchanges and with the large particles on the device, and
# through the incremental meeting (frictionless mixtures, a periodic gas, many large
# particles, large discs handed over every iteration across the cuts; its view settled
# for checkpoints and for --output, whose frames are the one device's; its cut moved by the
# balance); and
# --output's frames, walls and diagnostics are the one device's. Without the halo (the
# test hook MIXSIM_DOMAINS_NO_HALO) the hash moves, so the check sees a missing one. A
# checkpoint written under one decomposition resumes under another (and on one device) to
# the same hash; SIGINT stops the run with the report and a checkpoint of its step; a
# blow-up fails with the one device's message and last good state; the cut follows
# measured time (a domain made slow by the test hook MIXSIM_DOMAINS_SLOW sheds particles,
# MIXSIM_BALANCE_LOG prints the decisions); auto tunes the domains' advances. Bad lists and
# bad hook values are refused with one message and exit 2.
# usage: domains.sh MIXSIM SOURCE_ROOT [FILTER]
set -u
exe=$1
root=$2
filter=${3:-}
. "$root/tests/lib.sh"

# scene steps [options...]: one device's hash, then cpu,cpu's and cpu,cpu,cpu's, all equal.
# Under a sanitizer (MIXSIM_SANITIZER, tools/dev/sanitize.sh's CI pass) two domains' hash
# stands for the one device's, whose run the rest of that pass checks: what it is there for
# is the domains' code, and the plain pass compares with the one device.
same_hash() {
  local scene=$1 steps=$2 path=$root/$1 one two three
  [[ $scene == /* ]] && path=$scene
  shift 2
  two=$(hash_run "$path" "$steps" --headless --devices cpu,cpu "$@") || return 1
  if [ -n "${MIXSIM_SANITIZER:-}" ]; then
    one=$two
    echo "    (under $MIXSIM_SANITIZER: no one-device run)"
  else
    one=$(hash_run "$path" "$steps" --headless -d cpu "$@") || return 1
  fi
  [ -n "$one" ] &&
    three=$(hash_run "$path" "$steps" --headless --devices cpu,cpu,cpu "$@") || return 1
  echo "    $scene $*: one device $one, two $two, three $three"
  [ "$one" = "$two" ] && [ "$one" = "$three" ]
}

mixed_same_hash() {
  same_hash scenes/mixed.ini 150 &&
    same_hash scenes/mixed.ini 100 --pipeline naive --exchange full --buffers shared &&
    same_hash scenes/mixed.ini 100 --large-on device
}

# (and with a domain counted slow, MIXSIM_DOMAINS_SLOW: the cut moves, the domains shed
# slots, and a lay's histories must not name the slots a domain had before)
frictional_bed_same_hash() {
  local one moved
  same_hash tests/scenes/friction_bed.ini 150 &&
    same_hash tests/scenes/friction_bed.ini 100 --exchange full --pipeline naive &&
    same_hash tests/scenes/friction_bed.ini 100 --large-on device || return 1
  one=$(hash_run "$root/tests/scenes/friction_bed.ini" 150 --headless -d cpu) &&
    moved=$(MIXSIM_DOMAINS_SLOW=0:5 hash_run "$root/tests/scenes/friction_bed.ini" 150 \
      --headless --devices cpu,cpu,cpu) || return 1
  echo "    friction_bed.ini, domain 0 counted 5 times slow: one device $one, three $moved"
  [ "$one" = "$moved" ]
}

# Tilted gravity along the periodic x: the bed flows through the seam and every cut.
periodic_flow_same_hash() { same_hash tests/scenes/periodic_bed.ini 200; }

# A drum of [wall.NAME]s turning: the discs cross the cuts, its walls hold histories.
drum_same_hash() { same_hash tests/scenes/walls_drum.ini 200; }

# A force-driven piston pressing a bed: domain 0 holds every wall's band and sums its
# reaction as one device does; the report's wall lines (contacts, force, torque) agree too.
piston_same_hash_and_walls() {
  local scene=$root/tests/scenes/walls_piston.ini
  "$exe" -q -n 1200 --headless -d cpu "$scene" >"$tmp/p1" &&
    "$exe" -q -n 1200 --headless --devices cpu,cpu,cpu "$scene" >"$tmp/p3" || return 1
  grep '^wall\|^state hash' "$tmp/p1" "$tmp/p3"
  [ -n "$(hash_of "$tmp/p1")" ] && [ "$(hash_of "$tmp/p1")" = "$(hash_of "$tmp/p3")" ] &&
    grep -q '^wall .*piston: [1-9][0-9]* contact' "$tmp/p1" &&
    [ "$(grep '^wall' "$tmp/p1")" = "$(grep '^wall' "$tmp/p3")" ]
}

# Inflows, an outflow and an open side: the view makes the exchanges on the whole state.
open_system_same_hash() {
  same_hash tests/scenes/open_flow.ini 300 && same_hash scenes/hopper.ini 300
}

# --output with --diagnostics: every frame, the walls' files and the diagnostics are the
# one device's byte for byte, but the grid's counters (the domains' grids are not its).
outputs_as_on_one_device() {
  local scene=$root/tests/scenes/open_flow.ini f d
  "$exe" -q -n 1200 --headless -d cpu --output "$tmp/o1" --output-every 150 --diagnostics \
    "$scene" >/dev/null || return 1
  for d in cpu,cpu,cpu; do
    rm -rf "$tmp/o2"
    "$exe" -q -n 1200 --headless --devices $d --output "$tmp/o2" --output-every 150 \
      --diagnostics "$scene" >/dev/null || return 1
    for f in "$tmp"/o1/*; do
      [ "${f##*/}" = diagnostics.csv ] && continue
      cmp "$f" "$tmp/o2/${f##*/}" || return 1
    done
    python3 - "$tmp/o1/diagnostics.csv" "$tmp/o2/diagnostics.csv" <<'PY' || return 1
import csv, sys
a, b = (list(csv.DictReader(open(p))) for p in sys.argv[1:])
assert len(a) == len(b) == 9, (len(a), len(b))
for ra, rb in zip(a, b):
    for k in ra:
        if not k.startswith('grid_'):
            assert ra[k] == rb[k], (ra['step'], k, ra[k], rb[k])
flows = {k: v for k, v in a[-1].items() if k.endswith('_count')}
print('    diagnostics: %d frames alike, dissipated %s, %s' % (len(a), a[-1]['dissipated'], flows))
assert float(a[-1]['dissipated']) > 0 and any(int(v) > 0 for v in flows.values()), flows
PY
    echo "    $d: $(ls "$tmp/o1" | wc -l) files alike"
  done
}

# auto: the tuner times the domains' advances, which follow its choices; the hash stays.
auto_over_domains() {
  local one got
  one=$(hash_run "$root/tests/scenes/many_large.ini" 800 --headless -d cpu) || return 1
  "$exe" -q -n 800 --headless --devices cpu,cpu --exchange auto \
    "$root/tests/scenes/many_large.ini" >"$tmp/auto.out" || return 1
  got=$(hash_of "$tmp/auto.out")
  grep '^auto' "$tmp/auto.out" | cut -c1-160
  echo "    auto over two domains: $got (one device: $one)"
  [ -n "$one" ] && [ "$got" = "$one" ] && grep -q '^auto      exchange .* -> ' "$tmp/auto.out"
}

# The incremental meeting (frictionless closed scenes without [wall.NAME]s): the domains
# keep their particles between iterations and meet by records; the hash is the one
# device's in both pipelines, both exchanges (full walks the worker's list, which orders a
# cell's particles by global slot) and buffer modes, with the records laid into shuffled
# free slots (MIXSIM_SPLIT_SHUFFLE: where a record lands must not matter), laid and freed by
# several pool threads (MIXSIM_SPLIT_GRAIN: chunks of 7 slots), with a domain's first
# large-large pair right past its parked large particles (parked_pair.ini), with many large
# particles (most parked in the domains far from them), and through a periodic seam; it
# runs with one lay from the whole state (no domain short of slots) and one settle.
incremental_same_hash() {
  local f=$tmp/periodic_frictionless.ini
  sed -e 's/^friction = .*/friction = 0/' -e 's/^rolling_friction = .*/rolling_friction = 0/' \
    "$root/tests/scenes/periodic_gas.ini" >"$f"
  same_hash tests/scenes/mixed_frictionless.ini 200 --exchange zone &&
    same_hash tests/scenes/mixed_frictionless.ini 100 --pipeline naive --exchange zone \
      --buffers shared &&
    MIXSIM_SPLIT_SHUFFLE=7 same_hash tests/scenes/mixed_frictionless.ini 100 --exchange full &&
    same_hash tests/scenes/many_large.ini 150 --exchange zone &&
    MIXSIM_SPLIT_SHUFFLE=3 same_hash tests/scenes/many_large.ini 150 --exchange full &&
    MIXSIM_SPLIT_GRAIN=7 same_hash tests/scenes/many_large.ini 150 --exchange zone \
      --cpu-threads 3 &&
    same_hash tests/scenes/parked_pair.ini 100 --exchange zone &&
    same_hash "$f" 300 --exchange zone || return 1
  "$exe" -n 200 --headless --devices cpu,cpu,cpu --exchange zone \
    "$root/tests/scenes/mixed_frictionless.ini" >"$tmp/inc.out" || return 1
  grep '^  incremental' "$tmp/inc.out" | cut -c1-160
  grep -q '^  incremental meeting: .* 1 lay(s) from the whole state (.*), 1 settle(s)' "$tmp/inc.out"
}

# Meeting every k iterations: the windows are deep enough that every own particle steps
# as on one device. Forced (MIXSIM_MEET_EVERY) on the periodic gas, whose hash moves when
# the windows are not deepened, and on the mixture; chosen on its own on the long bed
# (two domains of 300 columns: k = 7, three: k = 4, the large particles handed over; with
# the windows grown by the largest radius, MIXSIM_LARGE_HANDOVER=0, k = 2 and 1). A blow-up
# inside a block of 4 is made again meeting every iteration, and fails as on one device
# (failure_named_as_on_one_device).
incremental_meets_every_k() {
  local f=$tmp/periodic_frictionless.ini
  sed -e 's/^friction = .*/friction = 0/' -e 's/^rolling_friction = .*/rolling_friction = 0/' \
    "$root/tests/scenes/periodic_gas.ini" >"$f"
  MIXSIM_MEET_EVERY=4 same_hash "$f" 300 --exchange zone &&
    MIXSIM_MEET_EVERY=3 same_hash tests/scenes/mixed_frictionless.ini 150 --exchange zone &&
    same_hash tests/scenes/wide_bed.ini 300 --exchange zone || return 1
  local d k h
  for d in 1:cpu,cpu:7 1:cpu,cpu,cpu:4 0:cpu,cpu:2 0:cpu,cpu,cpu:1; do
    h=${d%%:*} d=${d#*:}
    MIXSIM_LARGE_HANDOVER=$h "$exe" -n 20 --headless --devices "${d%:*}" --exchange zone \
      "$root/tests/scenes/wide_bed.ini" >"$tmp/k.out" || return 1
    k=$(sed -n 's/^  incremental meeting: every \([0-9]*\) iteration(s).*/\1/p' "$tmp/k.out")
    echo "    wide bed on ${d%:*}, hand-over $h: a meeting every $k iteration(s)"
    [ "$k" = "${d#*:}" ] || return 1
  done
}

# The large particles handed over every iteration (src/domains/lockstep.h): a domain's
# windows grow by a small contact an iteration, and its copies of the large discs others own
# are the owners' at every step. In handover.ini large discs of twenty small radii sunk in a
# bed reach small discs past the other domain's window within a block of 2 or 3 iterations:
# with the copies left out, three domains ended in other hashes (bfa1b94b at k = 2, a4b0361b
# at 3). Here the one device's hash in both pipelines and exchanges, the report's line on the
# hand-over, and without it (MIXSIM_LARGE_HANDOVER=0) windows as deep as before.
incremental_hands_large_over() {
  local scene=$root/tests/scenes/handover.ini w1 w0
  MIXSIM_MEET_EVERY=2 same_hash tests/scenes/handover.ini 200 --exchange zone &&
    MIXSIM_MEET_EVERY=3 same_hash tests/scenes/handover.ini 150 --exchange zone \
      --pipeline naive --buffers shared &&
    MIXSIM_MEET_EVERY=8 same_hash tests/scenes/handover.ini 100 --exchange full || return 1
  MIXSIM_MEET_EVERY=3 "$exe" -n 30 --headless --devices cpu,cpu,cpu "$scene" >"$tmp/h1.out" &&
    MIXSIM_MEET_EVERY=3 MIXSIM_LARGE_HANDOVER=0 "$exe" -n 30 --headless --devices cpu,cpu,cpu \
      "$scene" >"$tmp/h0.out" || return 1
  grep -h '^  large particles handed' "$tmp/h1.out" | cut -c1-120
  w1=$(sed -n 's/^  incremental meeting: .*, a window of \([0-9]*\) columns.*/\1/p' "$tmp/h1.out")
  w0=$(sed -n 's/^  incremental meeting: .*, a window of \([0-9]*\) columns.*/\1/p' "$tmp/h0.out")
  echo "    windows meeting every 3 iterations: $w1 columns with the hand-over, $w0 without"
  grep -q '^  large particles handed over every iteration .* 30 hand-overs$' "$tmp/h1.out" &&
    ! grep -q '^  large particles handed' "$tmp/h0.out" && [ "$w1" -lt "$w0" ]
}

# A domain's grid spans its own columns and its windows only (collision/split.h): its clear,
# sort and zone sweeps visit those, here through the periodic seam of a gas four times as wide
# as periodic_gas.ini (three domains: every domain's span wraps or borders the seam), with no
# build finding a particle outside; the one device's hash. Spans too narrow to hold the
# windows (MIXSIM_GRID_SPAN=0) make every domain build over the whole grid, the hash the same.
incremental_grids_over_their_columns() {
  local f=$tmp/periodic_strip.ini one three narrow
  sed -e 's/^friction = .*/friction = 0/' -e 's/^rolling_friction = .*/rolling_friction = 0/' \
    -e 's/^max = 1.4, -1.6/max = 2.6, -1.6/' -e 's/^count = 700/count = 2800/' \
    -e 's/^region = 1, -2, 1.4, -1.6/region = 1, -2, 2.6, -1.6/' \
    -e 's/^position = 1.39, -1.81/position = 2.59, -1.81/' \
    "$root/tests/scenes/periodic_gas.ini" >"$f"
  one=$(hash_run "$f" 200 --headless -d cpu --exchange zone) || return 1
  "$exe" -n 200 --headless --devices cpu,cpu,cpu --exchange zone "$f" >"$tmp/span.out" || return 1
  MIXSIM_GRID_SPAN=0 "$exe" -n 200 --headless --devices cpu,cpu --exchange zone "$f" \
    >"$tmp/narrow.out" || return 1
  three=$(hash_of "$tmp/span.out")
  narrow=$(hash_of "$tmp/narrow.out")
  grep -h '^  incremental' "$tmp/span.out" "$tmp/narrow.out" | sed 's/;.*//'
  echo "    periodic strip: one device $one, three domains $three, spans of 0 columns $narrow"
  [ "$one" = "$three" ] && [ "$one" = "$narrow" ] &&
    grep -q '^  incremental meeting: .*, grids over 15 (0 build(s) over the whole grid)' \
      "$tmp/span.out" &&
    grep -q '^  incremental meeting: .*, grids over 0 ([1-9][0-9]* build(s) over the whole grid)' \
      "$tmp/narrow.out"
}

# --output over the incremental meeting: each frame's forces, those of the step that made
# it, are kept from the domains before their meeting moves the slots, and gathered with the
# state: every file is the one device's byte for byte over two and three domains meeting
# every 3 and 8 iterations (the large discs handed over), the view is settled for the frames
# due alone, and the last frame's forces are finite and push small and large particles (so
# the files are not alike in NaNs).
incremental_outputs_as_on_one_device() {
  local scene=$root/tests/scenes/handover.ini f d k
  "$exe" -q -n 120 --headless -d cpu --output "$tmp/i1" --output-every 40 "$scene" \
    >/dev/null || return 1
  for d in cpu,cpu cpu,cpu,cpu; do
    for k in 3 8; do
      rm -rf "$tmp/i2"
      MIXSIM_MEET_EVERY=$k "$exe" -n 120 --headless --devices $d --output "$tmp/i2" \
        --output-every 40 "$scene" >"$tmp/i2.out" 2>&1 || { cat "$tmp/i2.out"; return 1; }
      # (settled for the 3 frames due alone, not after every chunk of the run loop)
      grep -q "^  incremental meeting: every $k iteration(s), .* 3 settle(s)" "$tmp/i2.out" ||
        return 1
      for f in "$tmp"/i1/*; do
        cmp "$f" "$tmp/i2/${f##*/}" || return 1
      done
    done
    echo "    $d, meeting every 3 and 8: $(ls "$tmp/i1" | wc -l) files alike"
  done
  # (a subshell: need_python leaves it with 77 where no Python reads VTK, outside CI)
  (need_python vtkmodules.vtkIOXML numpy && "$py" "$root/tests/read_vtp.py" pushed \
    "$tmp/i2/frame_000120.vtp")
  local rc=$?
  [ $rc = 0 ] || [ $rc = 77 ]
}

# --checkpoint-every reads the view every chunk: it is settled each time, the hash stays,
# and a checkpoint of the way resumes on one device to the uninterrupted hash.
incremental_settles_for_checkpoints() {
  local scene=$root/tests/scenes/mixed_frictionless.ini want got
  want=$(hash_run "$scene" 300 --headless -d cpu) || return 1
  "$exe" -n 300 --headless --devices cpu,cpu --exchange zone --checkpoint "$tmp/inc.ck" \
    --checkpoint-every 100 "$scene" >"$tmp/inc.out" || return 1
  [ "$(hash_of "$tmp/inc.out")" = "$want" ] || return 1
  "$exe" -q -n 200 --headless --devices cpu,cpu --exchange zone --checkpoint "$tmp/inc200.ck" \
    "$scene" >/dev/null || return 1
  got=$(hash_run "$scene" 300 --headless -d cpu --resume "$tmp/inc200.ck")
  echo "    $(grep '^  incremental' "$tmp/inc.out" | cut -c1-140)"
  echo "    hash $(hash_of "$tmp/inc.out"), step 200's checkpoint resumed on one device: $got ($want)"
  [ "$got" = "$want" ] &&
    grep -q '^  incremental meeting: .* \([3-9]\|[1-9][0-9]\) settle(s)' "$tmp/inc.out"
}

# The control: a domain without its halo computes its edge particles' sums short.
no_halo_differs() {
  local one cut
  one=$(hash_run "$root/tests/scenes/squeeze.ini" 150 --headless -d cpu) &&
    cut=$(MIXSIM_DOMAINS_NO_HALO=1 hash_run "$root/tests/scenes/squeeze.ini" 150 --headless \
      --devices cpu,cpu,cpu) || return 1
  echo "    squeeze: one device $one, three domains without halo $cut"
  [ -n "$one" ] && [ -n "$cut" ] && [ "$one" != "$cut" ]
}

# The cut follows measured time: a domain counted 4 times slow (MIXSIM_DOMAINS_SLOW) ends
# with fewer own particles than at the start and than either other, decisions logged
# every 50 iterations (MIXSIM_BALANCE_LOG), the hash the one device's.
balance_moves_the_cut() { cut_follows_time scenes/mixed.ini; }
# (the incremental meeting's: its records move the particles the cut moves)
incremental_balance_moves_the_cut() {
  cut_follows_time tests/scenes/mixed_frictionless.ini --exchange zone
}

cut_follows_time() { # scene, options
  local scene=$1 one got first last
  shift
  one=$(hash_run "$root/$scene" 300 --headless -d cpu) || return 1
  MIXSIM_BALANCE_LOG=1 MIXSIM_DOMAINS_SLOW=1:4 "$exe" -n 300 --headless --devices cpu,cpu,cpu \
    "$@" "$root/$scene" >"$tmp/bal.out" 2>"$tmp/bal.err" || return 1
  got=$(hash_of "$tmp/bal.out")
  grep 'domains balance' "$tmp/bal.err" | cut -c1-300
  [ "$(grep -c '^mixsim: domains balance at step [0-9]*: 0: ' "$tmp/bal.err")" = 6 ] || return 1
  first=$(grep -m1 'domains balance' "$tmp/bal.err" | sed 's/.* 1: [0-9.]* ms\/it, \([0-9]*\) own.*/\1/')
  last=$(grep 'domains balance' "$tmp/bal.err" | tail -1)
  echo "    hash $got (one device $one); domain 1 owned $first at first"
  [ "$got" = "$one" ] && python3 - "$last" "$first" <<'PY'
import re, sys
own = [float(x) for x in re.findall(r'\d+: [0-9.]+ ms/it, ([0-9]+) own', sys.argv[1])]
print('    last window: own', own)
assert own[1] < 0.5 * float(sys.argv[2]) and own[1] < min(own[0], own[2]), own
PY
}

bad_hook_refused() {
  MIXSIM_DOMAINS_SLOW=5:2 "$exe" -q -n 5 --headless --devices cpu,cpu "$root/scenes/mixed.ini" \
    >/dev/null 2>"$tmp/err"
  local rc=$?
  cat "$tmp/err"
  [ $rc = 2 ] && grep -q "MIXSIM_DOMAINS_SLOW '5:2': expected D:F" "$tmp/err" || return 1
  MIXSIM_DOMAINS_NO_HALO=yes "$exe" -q -n 5 --headless --devices cpu,cpu "$root/scenes/mixed.ini" \
    >/dev/null 2>"$tmp/err"
  rc=$?
  cat "$tmp/err"
  [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q "MIXSIM_DOMAINS_NO_HALO 'yes': expected 0 or 1" "$tmp/err" || return 1
  MIXSIM_MEET_EVERY=0 "$exe" -q -n 5 --headless --devices cpu,cpu --exchange zone \
    "$root/tests/scenes/mixed_frictionless.ini" >/dev/null 2>"$tmp/err"
  rc=$?
  cat "$tmp/err"
  [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q "MIXSIM_MEET_EVERY '0': expected 1..64 iterations" "$tmp/err" || return 1
  MIXSIM_SPLIT_SHUFFLE=-1 "$exe" -q -n 5 --headless --devices cpu,cpu \
    "$root/tests/scenes/mixed_frictionless.ini" >/dev/null 2>"$tmp/err"
  rc=$?
  cat "$tmp/err"
  [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q "MIXSIM_SPLIT_SHUFFLE '-1': expected a seed 1..1e9" "$tmp/err" || return 1
  MIXSIM_SPLIT_GRAIN=0 "$exe" -q -n 5 --headless --devices cpu,cpu \
    "$root/tests/scenes/mixed_frictionless.ini" >/dev/null 2>"$tmp/err"
  rc=$?
  cat "$tmp/err"
  [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q 'MIXSIM_SPLIT_GRAIN: must be between 1 and 1000000 (got 0)' "$tmp/err" ||
    return 1
  MIXSIM_LARGE_HANDOVER=2 "$exe" -q -n 5 --headless --devices cpu,cpu \
    "$root/tests/scenes/mixed_frictionless.ini" >/dev/null 2>"$tmp/err"
  rc=$?
  cat "$tmp/err"
  [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q 'MIXSIM_LARGE_HANDOVER: must be between 0 and 1 (got 2)' "$tmp/err" || return 1
  MIXSIM_GRID_SPAN=wide "$exe" -q -n 5 --headless --devices cpu,cpu --exchange zone \
    "$root/tests/scenes/mixed_frictionless.ini" >/dev/null 2>"$tmp/err"
  rc=$?
  cat "$tmp/err"
  [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q "MIXSIM_GRID_SPAN: expected an integer between 0 and 1000000, got 'wide'" "$tmp/err"
}

checkpoints_cross_decompositions() {
  local scene=$root/tests/scenes/friction_bed.ini want got
  want=$(hash_run "$scene" 200 --headless -d cpu) || return 1
  "$exe" -q -n 100 --headless --devices cpu,cpu --checkpoint "$tmp/two.ck" "$scene" >/dev/null &&
    "$exe" -q -n 100 --headless -d cpu --checkpoint "$tmp/one.ck" "$scene" >/dev/null || return 1
  for pair in "two.ck cpu,cpu,cpu" "two.ck cpu" "one.ck cpu,cpu"; do
    set -- $pair
    if [ "$2" = cpu ]; then
      got=$(hash_run "$scene" 200 --headless -d cpu --resume "$tmp/$1")
    else
      got=$(hash_run "$scene" 200 --headless --devices "$2" --resume "$tmp/$1")
    fi
    echo "    written by ${1%.ck}, resumed on $2: $got (uninterrupted $want)"
    [ -n "$want" ] && [ "$got" = "$want" ] || return 1
  done
}

# A blow-up: every decomposition fails at the one device's step with its message (the
# chunk is replayed on one device, which names the particles as it does) and leaves the
# same last good state.
failure_named_as_on_one_device() {
  local plain=$root/tests/scenes/overflow_nan.ini fr=$tmp/overflow_friction.ini
  sed 's/^\[material\]$/[material]\nfriction = 0.3/' "$plain" >"$fr"
  # (with friction: the whole state's meeting; without: the incremental one, which rewinds
  # its domains, there also meeting every 4 iterations)
  local case scene want
  for case in "$fr cpu,cpu" "$plain cpu,cpu,cpu" "$plain cpu,cpu 4"; do
    set -- $case
    scene=$1
    "$exe" -q --headless -d cpu --checkpoint "$tmp/f1.ck" "$scene" >/dev/null 2>"$tmp/f1.err"
    [ $? = 4 ] || return 1
    want=$(tail -1 "$tmp/f1.err")
    MIXSIM_MEET_EVERY=${3:-} "$exe" -q --headless --devices "$2" --checkpoint "$tmp/f.ck" \
      "$scene" >/dev/null 2>"$tmp/f.err"
    local rc=$?
    echo "    ${scene##*/} on $2${3:+, meeting every $3}: rc $rc: $(tail -1 "$tmp/f.err")"
    [ $rc = 4 ] && [ "$(tail -1 "$tmp/f.err")" = "$want" ] &&
      [ "$(hash_run "$scene" 14 --headless -d cpu --resume "$tmp/f.ck")" = \
        "$(hash_run "$scene" 14 --headless -d cpu --resume "$tmp/f1.ck")" ] || return 1
  done
}

# SIGINT during a run over domains: it stops after an iteration with the report and the
# checkpoint of that step, which one device resumes to the same hash.
sigint_stops_with_checkpoint() {
  # (the incremental meeting's run: its advance stops between iterations and checks its state;
  # tests/mpi.sh signals the whole state's)
  local scene=$root/tests/scenes/mixed_frictionless.ini step got
  rm -f "$tmp/sig.ck"
  "$exe" -n 100000000 --headless --devices cpu,cpu --exchange zone --checkpoint "$tmp/sig.ck" \
    --checkpoint-every 100 "$scene" >"$tmp/sig.out" 2>"$tmp/sig.err" &
  local pid=$! i=0
  while [ ! -s "$tmp/sig.ck" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
  kill -INT $pid
  wait $pid
  local rc=$?
  step=$(sed -n 's/^state hash [0-9a-f]* (step \([0-9]*\))$/\1/p' "$tmp/sig.out")
  tail -1 "$tmp/sig.err"
  [ $rc = 130 ] && [ -n "$step" ] && [ "$step" -gt 0 ] || { echo "    rc $rc, step '$step'"; return 1; }
  got=$(hash_run "$scene" "$step" --headless -d cpu --resume "$tmp/sig.ck")
  echo "    stopped at step $step: $(hash_of "$tmp/sig.out"), its checkpoint on one device: $got"
  [ "$got" = "$(hash_of "$tmp/sig.out")" ] &&
    grep -q "^mixsim: stopped by signal 2 at step $step; checkpoint written$" "$tmp/sig.err"
}

refused() { # words, then the command's arguments
  local words=$1
  shift
  "$exe" -q -n 5 --headless "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  echo "    $*: rc $rc: $(head -c 300 "$tmp/err")"
  [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q -- "$words" "$tmp/err" &&
    [ ! -s "$tmp/out" ]
}

bad_launches_refused() {
  local s=$root/scenes/mixed.ini
    refused "a comma-separated list" --devices cpu,,cpu "$s" &&
    refused "a trailing comma" --devices cpu, "$s" &&
    refused "no sub-devices in collision mode" --devices 0:0/2 "$s" &&
    refused "at most one device a column" --devices "$(printf 'cpu,%.0s' $(seq 40))cpu" \
      "$root/tests/scenes/tiny.ini"
}

check mixed_same_hash
check frictional_bed_same_hash
check periodic_flow_same_hash
check drum_same_hash
check open_system_same_hash
check piston_same_hash_and_walls
check auto_over_domains
check outputs_as_on_one_device
check incremental_same_hash
check incremental_meets_every_k
check incremental_hands_large_over
check incremental_grids_over_their_columns
check incremental_settles_for_checkpoints
check incremental_outputs_as_on_one_device
check no_halo_differs
check balance_moves_the_cut
check incremental_balance_moves_the_cut
check bad_hook_refused
check checkpoints_cross_decompositions
check failure_named_as_on_one_device
check sigint_stops_with_checkpoint
check bad_launches_refused
finish
