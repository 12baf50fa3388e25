#!/usr/bin/env bash
# The --output time series (docs/output.md): the last .vtp read back with VTK's own
# reader equals --dump of the same step (positions, velocities, radii, masses, spins and
# ids; a frictional scene), frames.pvd lists every frame with increasing timesteps, the
# same in gravity mode, the CSV format, the forces (at rest: m g; summed in free flight:
# zero; the same on every path), the box's walls (walls.vtp), docs/output.md's kind
# categories against the frames' kinds, an older run's frames refused and then cleared
# with --output-clear (only our files), the [output] keys, and the state hash with output
# on equal to the hash without. The VTK checks need python3-vtk9 or ParaView's
# python3-paraview (tools/deps.sh test); without either the test is skipped (77), failed under CI.
# usage: output_vtk.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$1
root=$2
filter=${3:-}
. "$(dirname "$0")/lib.sh"
reader=$root/tests/read_vtp.py

need_python vtkmodules.vtkIOXML numpy

fric=$root/tests/scenes/tiny_friction.ini
run() { "$exe" -d cpu -q "$@"; }

test_last_frame_equals_dump() {
  run "$fric" -n 120 --output "$tmp/f" --output-every 40 -o "$tmp/f.csv" >"$tmp/f.out" &&
    "$py" "$reader" frame "$tmp/f/frame_000120.vtp" "$tmp/f.csv" &&
    "$py" "$reader" series "$tmp/f" 4
}

# A run that does not end on a multiple of K still writes its last state.
test_last_state_written_off_the_beat() {
  run "$fric" -n 50 --output "$tmp/o" --output-every 40 -o "$tmp/o.csv" >/dev/null &&
    "$py" "$reader" series "$tmp/o" 3 && [ -f "$tmp/o/frame_000050.vtp" ] &&
    "$py" "$reader" frame "$tmp/o/frame_000050.vtp" "$tmp/o.csv"
}

test_hash_unchanged_by_output() {
  run "$fric" -n 120 >"$tmp/plain.out" &&
    run "$fric" -n 120 --output "$tmp/h" --output-every 1 >"$tmp/h.out" &&
    [ -n "$(hash_of "$tmp/plain.out")" ] && [ "$(hash_of "$tmp/plain.out")" = "$(hash_of "$tmp/h.out")" ] &&
    [ "$(ls "$tmp/h" | grep -c '^frame_.*\.vtp$')" = 121 ]
}

test_report_has_writer_block() {
  run "$fric" -n 20 --output "$tmp/r" --output-every 10 -s "$tmp/r.json" >"$tmp/r.out" &&
    grep -q "writer thread (--output)" "$tmp/r.out" &&
    "$py" -c 'import json,sys; w=json.load(open(sys.argv[1]))["writer"]; assert w["frames"] == 3, w' "$tmp/r.json"
}

test_gravity_frame_equals_dump() {
  run "$root/scenes/kepler.ini" --headless -n 100 --output "$tmp/g" --output-every 40 \
    -o "$tmp/g.csv" >/dev/null &&
    "$py" "$reader" gravity "$tmp/g/frame_000100.vtp" "$tmp/g.csv" &&
    "$py" "$reader" series "$tmp/g" 4
}

# Gravity mode: the force on each body is m a, the gravity of the other (G = 1 in
# kepler.ini), at the first frame and after steps; the output leaves the hash alone.
test_gravity_force() {
  run "$root/scenes/kepler.ini" --headless -n 100 >"$tmp/gk.out" &&
    run "$root/scenes/kepler.ini" --headless -n 100 --output "$tmp/gk" --output-every 50 >"$tmp/gk2.out" &&
    [ -n "$(hash_of "$tmp/gk.out")" ] && [ "$(hash_of "$tmp/gk.out")" = "$(hash_of "$tmp/gk2.out")" ] &&
    "$py" "$reader" kepler "$tmp/gk/frame_000000.vtp" &&
    "$py" "$reader" kepler "$tmp/gk/frame_000100.vtp" &&
    run "$root/scenes/kepler.ini" --headless -n 100 --output "$tmp/gkc" --output-every 50 \
      --output-format csv >/dev/null &&
    head -1 "$tmp/gkc/frame_000100.csv" | grep -q ',id,fx,fy,fz$'
}

test_csv_frames() {
  run "$fric" -n 40 --output "$tmp/c" --output-every 20 --output-format csv -o "$tmp/c.csv" >/dev/null &&
    [ "$(cat "$tmp/c/frames.csv")" = "$(printf 'step,time,file\n0,0,frame_000000.csv\n20,0.002,frame_000020.csv\n40,0.0040000000000000001,frame_000040.csv')" ] &&
    # the --dump columns, then contacts and the force
    diff <(cut -d, -f1-12 "$tmp/c/frame_000040.csv") "$tmp/c.csv" &&
    head -1 "$tmp/c/frame_000040.csv" | grep -q ',omega,id,contacts,fx,fy$' &&
    run "$fric" -n 40 --output "$tmp/cv" --output-every 20 >/dev/null &&
    "$py" "$reader" csvforce "$tmp/cv/frame_000040.vtp" "$tmp/c/frame_000040.csv" &&
    head -1 "$tmp/c/frame_000000.csv" | grep -q ',contacts,fx,fy$' &&
    sed -n 2p "$tmp/c/frame_000000.csv" | grep -q ',nan,nan$'
}

# The force of a particle at rest on the floor is the floor's push, m g upwards (gravity
# itself is not in it), for a small and a large disc, the large ones on the worker and on
# the device; the first frame, which no step made, has NaN.
test_force_at_rest_is_m_g() {
  local where
  for where in cpu device; do
    run "$root/tests/scenes/force_rest.ini" --large-on $where --output "$tmp/rest_$where" \
      --output-every 3000 >/dev/null &&
      "$py" "$reader" rest "$tmp/rest_$where/frame_003000.vtp" 9.81 &&
      "$py" "$reader" unknown "$tmp/rest_$where/frame_000000.vtp" || return 1
  done
}

# No gravity, no wall reached: the contact forces cancel pairwise (small-small, large-small
# and large-large), so they sum to zero over all particles.
test_forces_cancel_in_free_flight() {
  run "$root/tests/scenes/force_cloud.ini" --output "$tmp/cloud" --output-every 100 >/dev/null &&
    "$py" "$reader" cancel "$tmp/cloud/frame_000100.vtp" &&
    "$py" "$reader" cancel "$tmp/cloud/frame_000200.vtp"
}

# Every path gives the same state bit for bit, so the same forces: each frame's file is
# the same, byte for byte, with and without friction (scenes with large-small and
# large-large contacts at those steps).
test_force_same_on_every_path() {
  local sc o i s
  for sc in squeeze friction_bed; do
    i=0
    for o in "--exchange full" "--exchange zone" "--large-on device" \
      "--exchange zone -p naive -b copied" "--exchange full -p naive -b copied --worker-list off"; do
      run "$root/tests/scenes/$sc.ini" -n 100 --output "$tmp/p_${sc}_$i" --output-every 50 $o \
        >/dev/null || return 1
      if [ $i -gt 0 ]; then
        for s in 000050 000100; do
          cmp "$tmp/p_${sc}_0/frame_$s.vtp" "$tmp/p_${sc}_$i/frame_$s.vtp" ||
            { echo "    $sc $o: frame $s differs"; return 1; }
        done
      fi
      i=$((i + 1))
    done
    "$py" "$reader" pushed "$tmp/p_${sc}_0/frame_000050.vtp" &&
      "$py" "$reader" pushed "$tmp/p_${sc}_0/frame_000100.vtp" || return 1
  done
}

# The box's walls: DIR/walls.vtp, once, in either format, its corners the scene's box (a box
# away from the origin: the frames' scene coordinates) around the frames' particles; none
# in gravity mode (no box); another output may not take its name.
test_walls_written_once_at_the_box() {
  printf '%s\n' '[simulation]' 'dt = 1e-4' 'seed = 7' 'gravity = 0, -9.81' '[box]' \
    'min = -0.5, 2.25' 'max = 0.25, 2.75' '[material]' 'stiffness = 1e5' 'restitution = 0.5' \
    '[small]' 'count = 60' 'radius = 0.005' 'density = 1000' 'placement = lattice' \
    'region = -0.5, 2.25, 0.25, 2.35' '[large.rock]' 'position = -0.1, 2.6' 'radius = 0.02' \
    >"$tmp/box.ini"
  local f
  for f in vtk csv; do
    run "$tmp/box.ini" -n 30 --output "$tmp/box_$f" --output-every 10 --output-format $f \
      >/dev/null || return 1
    [ "$(ls "$tmp/box_$f" | grep -c '^walls')" = 1 ] || return 1
  done
  "$py" "$reader" walls "$tmp/box_vtk/walls.vtp" -0.5 2.25 0.25 2.75 \
    "$tmp/box_vtk/frame_000030.vtp" &&
    cmp "$tmp/box_vtk/walls.vtp" "$tmp/box_csv/walls.vtp" &&
    ! grep -q walls "$tmp/box_vtk/frames.pvd" &&
    "$py" "$reader" series "$tmp/box_vtk" 4 || return 1
  run "$root/scenes/kepler.ini" --headless -n 10 --output "$tmp/gw" >/dev/null &&
    [ ! -e "$tmp/gw/walls.vtp" ] || return 1
  run "$tmp/box.ini" -n 10 --output "$tmp/box_vtk" --output-clear -o "$tmp/box_vtk/walls.vtp" \
    >/dev/null 2>"$tmp/wd.err"
  [ $? -eq 2 ] && grep -q -- "--dump: '$tmp/box_vtk/walls.vtp' is a file of the --output folder" \
    "$tmp/wd.err" && [ -f "$tmp/box_vtk/frame_000030.vtp" ]
}

# docs/output.md's categorical colour map for kind names each value the frames hold as what
# those particles are (small, dynamic large, static large: all three in tiny.ini).
test_kind_categories_in_docs_match_the_frames() {
  run "$root/tests/scenes/tiny.ini" -n 20 --output "$tmp/kc" --output-every 20 \
    -o "$tmp/kc.csv" >/dev/null &&
    "$py" "$reader" annotations "$tmp/kc/frame_000020.vtp" "$tmp/kc.csv" "$root/docs/output.md"
}

test_older_frames_refused_then_cleared() {
  mkdir -p "$tmp/old" && echo keep >"$tmp/old/notes.txt" &&
    run "$fric" -n 10 --output "$tmp/old" --output-every 5 >/dev/null || return 1
  run "$fric" -n 10 --output "$tmp/old" >/dev/null 2>"$tmp/old.err"
  [ $? -eq 2 ] && grep -q "'$tmp/old' holds frames of an earlier run" "$tmp/old.err" &&
    grep -q -- "--output-clear" "$tmp/old.err" || return 1
  run "$fric" -n 4 --output "$tmp/old" --output-every 4 --output-clear >/dev/null &&
    [ "$(ls "$tmp/old" | tr '\n' ' ')" = \
      "frame_000000.vtp frame_000004.vtp frames.pvd notes.txt walls.vtp " ]
}

test_foreign_vtp_refused_even_with_clear() {
  mkdir -p "$tmp/foreign" && echo x >"$tmp/foreign/mesh.vtp"
  run "$fric" -n 4 --output "$tmp/foreign" --output-clear >/dev/null 2>"$tmp/foreign.err"
  [ $? -eq 2 ] && grep -q "'mesh.vtp'" "$tmp/foreign.err" && [ -f "$tmp/foreign/mesh.vtp" ]
}

test_folder_made_with_parents() {
  run "$fric" -n 2 --output "$tmp/deep/er/still" --output-every 1 >/dev/null &&
    [ -f "$tmp/deep/er/still/frames.pvd" ]
}

test_output_keys_and_overrides() {
  cp "$fric" "$tmp/keys.ini" && printf '[output]\ndir = %s\nevery = 30\nformat = csv\n' "$tmp/k" >>"$tmp/keys.ini" &&
    run "$tmp/keys.ini" -n 60 >/dev/null && [ -f "$tmp/k/frame_000030.csv" ] &&
    run "$tmp/keys.ini" -n 60 --output "$tmp/k2" --output-every 20 --output-format vtk >/dev/null &&
    "$py" "$reader" series "$tmp/k2" 4
}

test_bad_options() {
  run "$fric" --output-every 5 >/dev/null 2>&1; [ $? -eq 2 ] || return 1
  run "$fric" --output "$tmp/b" --output-format vtu >/dev/null 2>"$tmp/b.err"
  [ $? -eq 2 ] && grep -q -- "--output-format: expected vtk or csv" "$tmp/b.err" || return 1
  echo x >"$tmp/afile"
  run "$fric" --output "$tmp/afile" >/dev/null 2>&1; [ $? -eq 2 ]
}

# A frame that cannot be written stops the run with exit 1 and a message naming the file,
# and leaves no temporary file behind: a folder put where frame 5000 is to go (after the
# run started, so the folder check passes; works as root too) makes its rename fail.
test_failed_write_stops_the_run() {
  "$exe" -d cpu -q "$fric" -n 100000000 --output "$tmp/w" --output-every 200 >"$tmp/w.out" 2>"$tmp/w.err" &
  local pid=$! i
  for i in $(seq 600); do [ -f "$tmp/w/frame_000200.vtp" ] && break; sleep 0.1; done
  mkdir "$tmp/w/frame_005000.vtp"
  for i in $(seq 600); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  kill -0 $pid 2>/dev/null && { echo "    still running after 60 s"; kill -KILL $pid; }
  wait $pid
  local rc=$?
  cat "$tmp/w.err"
  [ $rc -eq 1 ] && grep -q "frame_005000.vtp" "$tmp/w.err" && ! ls "$tmp/w" | grep -q '\.tmp' &&
    grep -q 'file="frame_004800.vtp"' "$tmp/w/frames.pvd" && ! grep -q 'frame_005000' "$tmp/w/frames.pvd"
}

# SIGINT: the run stops at an iteration, the writer writes what it was given and the
# state the run stopped at, and frames.pvd lists it last (a bounded wait, no timing).
test_signal_writes_the_stopped_state() {
  "$exe" -d cpu -q "$fric" -n 100000000 --output "$tmp/s" --output-every 200 >"$tmp/s.out" 2>&1 &
  local pid=$! i
  for i in $(seq 600); do [ -f "$tmp/s/frame_000400.vtp" ] && break; sleep 0.1; done
  kill -INT $pid
  for i in $(seq 600); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  kill -0 $pid 2>/dev/null && { echo "    still running 60 s after SIGINT"; kill -KILL $pid; }
  wait $pid
  local rc=$? step
  step=$(sed -n 's/^state hash [0-9a-f]* (step \([0-9]*\)).*/\1/p' "$tmp/s.out")
  echo "    exit $rc, stopped at step $step"
  [ $rc -eq 130 ] && [ -n "$step" ] &&
    tail -3 "$tmp/s/frames.pvd" | grep -q "file=\"$(printf 'frame_%06d.vtp' "$step")\"" &&
    "$py" "$reader" series "$tmp/s" "$(ls "$tmp/s" | grep -c '^frame_.*\.vtp$')"
}

check test_last_frame_equals_dump
check test_signal_writes_the_stopped_state
check test_last_state_written_off_the_beat
check test_hash_unchanged_by_output
check test_report_has_writer_block
check test_gravity_frame_equals_dump
check test_gravity_force
check test_csv_frames
check test_force_at_rest_is_m_g
check test_forces_cancel_in_free_flight
check test_force_same_on_every_path
check test_walls_written_once_at_the_box
check test_kind_categories_in_docs_match_the_frames
check test_older_frames_refused_then_cleared
check test_foreign_vtp_refused_even_with_clear
check test_folder_made_with_parents
check test_output_keys_and_overrides
check test_bad_options
check test_failed_write_stops_the_run
finish
