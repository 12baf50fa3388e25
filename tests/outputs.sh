#!/usr/bin/env bash
# Output paths (--stats, --dump, --checkpoint, PNGs): a device node, a FIFO or a symlink
# is written, never replaced; '-' is standard output; every path is checked before the
# run; a write that still fails at the end costs only that output; stale temporary
# files of killed runs are removed, nothing else; the JSON stays valid UTF-8.
# usage: outputs.sh MIXSIM SOURCE_ROOT HAVE_PREVIEW(0|1) [filter]
set -u
exe=$1
root=$2
have_preview=$3
filter=${4:-}
scene=$root/tests/scenes/tiny.ini
. "$(dirname "$0")/lib.sh"

gravity_scene() { # file, steps
  printf '[simulation]\nmode = gravity\ndt = 0.001\nsteps = %s\nseed = 9\n[gravity]\nbodies = plummer\ncount = 256\nsoftening = 0.01\ndiagnostics_every = 0\nenergy = off\n' \
    "$2" >"$1"
}

is_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$1"; }

no_temp_files() { # folders
  local d
  for d in "$@"; do
    if ls "$d" | grep -q '\.tmp'; then
      echo "    temporary files left in $d: $(ls "$d" | grep '\.tmp')"
      return 1
    fi
  done
}

# A character device of our own where we may make one (as root a broken writer would
# otherwise replace the machine's /dev/null); else /dev/null itself.
null_device() {
  if [ "$(id -u)" -eq 0 ] && mknod "$tmp/null" c 1 3 2>/dev/null; then
    echo "$tmp/null"
  else
    echo /dev/null
  fi
}

test_device_node_is_written_not_replaced() {
  local dev
  dev=$(null_device)
  echo "    device: $dev"
  "$exe" -q -n 20 --stats "$dev" --dump "$dev" --checkpoint "$dev" "$scene" >"$tmp/out" ||
    return 1
  [ -c "$dev" ] && [ -c /dev/null ] && [ -n "$(hash_of "$tmp/out")" ] || return 1
  gravity_scene "$tmp/g.ini" 10
  "$exe" -q --stats "$dev" --dump "$dev" --checkpoint "$dev" "$tmp/g.ini" >"$tmp/out" || return 1
  [ -c "$dev" ] || return 1
  if [ "$have_preview" = 1 ]; then
    ln -s "$dev" "$tmp/shot.png"
    "$exe" -q -n 8 --screenshot "$tmp/shot.png" "$scene" >/dev/null || return 1
    [ -L "$tmp/shot.png" ] && [ -c "$dev" ] || return 1
  fi
  no_temp_files "$tmp" "$(dirname "$dev")"
}

test_fifo_gets_the_data() {
  mkfifo "$tmp/fifo"
  timeout 120 cat "$tmp/fifo" >"$tmp/fifo.out" &
  local reader=$!
  "$exe" -q -n 20 --stats "$tmp/fifo" "$scene" >"$tmp/out" || return 1
  wait $reader || { echo "    the reader got nothing"; return 1; }
  [ -p "$tmp/fifo" ] && is_json "$tmp/fifo.out" &&
    grep -q "\"state_hash\": \"$(hash_of "$tmp/out")\"" "$tmp/fifo.out"
}

test_symlink_stays_a_link_and_its_target_is_written() {
  mkdir -p "$tmp/real"
  echo old >"$tmp/real/s.json"
  ln -s real/s.json "$tmp/s-link.json"
  ln -s real/d.csv "$tmp/d-link.csv" # dangling until the run writes it
  ln -s s-link.json "$tmp/s-link2.json"
  "$exe" -q -n 20 --stats "$tmp/s-link2.json" --dump "$tmp/d-link.csv" "$scene" >/dev/null ||
    return 1
  [ -L "$tmp/s-link.json" ] && [ -L "$tmp/s-link2.json" ] && [ -L "$tmp/d-link.csv" ] &&
    [ "$(readlink "$tmp/s-link.json")" = real/s.json ] && [ -f "$tmp/real/s.json" ] &&
    is_json "$tmp/real/s.json" && head -1 "$tmp/real/d.csv" | grep -q '^kind,index' &&
    no_temp_files "$tmp" "$tmp/real"
}

test_dash_is_stdout() {
  "$exe" -q -n 20 --stats - "$scene" >"$tmp/s.json" 2>"$tmp/err" || return 1
  python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["state_hash"]==sys.argv[1], d' \
    "$(hash_of "$tmp/err")" <"$tmp/s.json" || return 1
  "$exe" -q -n 20 --dump - "$scene" >"$tmp/d.csv" 2>"$tmp/err" || return 1
  [ "$(head -1 "$tmp/d.csv")" = "kind,index,x,y,vx,vy,radius,mass,static,id" ] &&
    [ "$(wc -l <"$tmp/d.csv")" -eq 206 ] && [ -n "$(hash_of "$tmp/err")" ] || return 1
  gravity_scene "$tmp/g.ini" 10
  "$exe" --stats - "$tmp/g.ini" 2>"$tmp/err" |
    python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["mode"]=="gravity"' || return 1
  # Only one output can have standard output; a checkpoint is never written there.
  "$exe" -q -n 20 --stats - --dump - "$scene" >"$tmp/out" 2>"$tmp/err"
  [ $? -eq 2 ] && grep -q -- "--dump" "$tmp/err" && [ ! -s "$tmp/out" ] || return 1
  "$exe" -q -n 20 --checkpoint - "$scene" >"$tmp/out" 2>"$tmp/err"
  [ $? -eq 2 ] && grep -q -- "--checkpoint" "$tmp/err" && [ ! -s "$tmp/out" ]
}

refused_at_once() { # option, path, expected words, scene
  "$exe" -n 20 "$1" "$2" "$4" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  echo "    $1 $2: rc $rc: $(cat "$tmp/err")"
  [ $rc -eq 2 ] && grep -q -- "$1" "$tmp/err" && grep -qF -- "$2" "$tmp/err" &&
    grep -q -- "$3" "$tmp/err" && [ ! -s "$tmp/out" ]
}

test_outputs_checked_before_the_run() {
  touch "$tmp/plain"
  mkdir -p "$tmp/dir"
  gravity_scene "$tmp/g.ini" 10
  local sc
  for sc in "$scene" "$tmp/g.ini"; do
    refused_at_once --stats "$tmp/missing/s.json" "does not exist" "$sc" &&
      refused_at_once --dump "$tmp/missing/d.csv" "does not exist" "$sc" &&
      refused_at_once --checkpoint "$tmp/missing/x.ck" "does not exist" "$sc" &&
      refused_at_once --checkpoint "$tmp/plain/x.ck" "not a folder" "$sc" &&
      refused_at_once --stats "$tmp/dir" "is a folder" "$sc" &&
      refused_at_once --dump "$tmp/dir/" "folder" "$sc" || return 1
  done
  [ ! -e "$tmp/missing" ] && no_temp_files "$tmp" "$tmp/dir"
}

# Exit 2 before the run, with the message (a fixed string), nothing on stdout.
two_uses_refused() { # scene message options...
  local sc=$1 msg=$2
  shift 2
  "$exe" -q -n 20 "$@" "$sc" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 2 ] && grep -qF -- "$msg" "$tmp/err" && [ ! -s "$tmp/out" ] && return 0
  echo "    $* $sc: rc $rc: $(cat "$tmp/err")"
  return 1
}

# One file for two uses, however spelled (./x, a/../x, a symlink, a hard link): two outputs,
# an output and one of the --output or --frames folder's names (any step's frame), an output
# and what the run reads (the scene, its particle files, the --resume checkpoint, which
# --checkpoint alone may replace), in both modes. Nothing is written.
test_one_file_for_two_outputs_refused() {
  local d=$tmp/two sc
  mkdir -p "$d/sub" "$d/o" "$d/fr"
  ln -s same.json "$d/alias.json"
  ln -s o/walls.vtp "$d/walls_link"
  touch "$d/h1" && ln "$d/h1" "$d/h2"
  gravity_scene "$tmp/g.ini" 10
  for sc in "$scene" "$tmp/g.ini"; do
    cp "$sc" "$d/scene.ini"
    rm -f "$d/r.ck" && "$exe" -q -n 10 --checkpoint "$d/r.ck" "$sc" >/dev/null || return 1
    two_uses_refused "$sc" "--dump: '$d/same.json' is also the --stats file; give each output its own" \
      --stats "$d/same.json" --dump "$d/same.json" &&
      two_uses_refused "$sc" "--checkpoint: '$d/alias.json' is also the --stats file ('$d/same.json')" \
        --stats "$d/same.json" --checkpoint "$d/alias.json" &&
      two_uses_refused "$sc" "--trace: '$d/x.ck' is also the --checkpoint file;" \
        --checkpoint "$d/x.ck" --trace "$d/x.ck" &&
      two_uses_refused "$sc" "--trace: '$d/./x.ck' is also the --checkpoint file ('$d/x.ck')" \
        --checkpoint "$d/x.ck" --trace "$d/./x.ck" &&
      two_uses_refused "$sc" "--dump: '$d/sub/../x.csv' is also the --stats file ('$d/x.csv')" \
        --stats "$d/x.csv" --dump "$d/sub/../x.csv" &&
      two_uses_refused "$sc" "--trace: '$d/h2' is also the --stats file ('$d/h1')" \
        --stats "$d/h1" --trace "$d/h2" &&
      two_uses_refused "$sc" "--stats: '$d/o/frames.pvd' is a file of the --output folder '$d/o'" \
        --output "$d/o" --stats "$d/o/frames.pvd" &&
      two_uses_refused "$sc" "--trace: '$d/o/frames.pvd' is a file of the --output folder '$d/o'" \
        --output "$d/o" --trace "$d/o/frames.pvd" &&
      two_uses_refused "$sc" "--checkpoint: '$d/o/frame_000500.vtp' is a file of the --output folder" \
        --output "$d/o" --checkpoint "$d/o/frame_000500.vtp" &&
      two_uses_refused "$sc" "--dump: '$d/sub/../o/diagnostics.csv' is a file of the --output folder" \
        --output "$d/o" --diagnostics --dump "$d/sub/../o/diagnostics.csv" &&
      two_uses_refused "$sc" "--stats: '$d/./o/frames.csv' is a file of the --output folder" \
        --output "$d/o" --output-format csv --stats "$d/./o/frames.csv" &&
      two_uses_refused "$sc" "--dump: '$d/walls_link' is a file of the --output folder '$d/o'" \
        --output "$d/o" --dump "$d/walls_link" &&
      two_uses_refused "$sc" "--stats: '$d/./r.ck' is the --resume checkpoint ('$d/r.ck'), which this run starts from; only --checkpoint may replace it" \
        --resume "$d/r.ck" --stats "$d/./r.ck" &&
      two_uses_refused "$sc" "--trace: '$d/r.ck' is the --resume checkpoint" \
        --resume "$d/r.ck" --checkpoint "$d/next.ck" --trace "$d/r.ck" &&
      two_uses_refused "$d/scene.ini" "--dump: '$d/sub/../scene.ini' is the scene file ('$d/scene.ini'), which this run reads" \
        --dump "$d/sub/../scene.ini" || return 1
    # (cd: a run without --checkpoint leaves its last good state in the working folder)
    (exe=$(readlink -f "$exe") sc=$(readlink -f "$sc") && cd "$d" && two_uses_refused "$sc" "--trace: 'mixsim-lastgood.ckpt' is also where a numerical failure leaves the last good state" \
      --trace mixsim-lastgood.ckpt) || return 1
    # a resumed run goes on writing its checkpoint
    "$exe" -q -n 20 --resume "$d/r.ck" --checkpoint "$d/./r.ck" "$sc" >/dev/null || return 1
  done
  # a dump's state beside it (collision mode)
  two_uses_refused "$scene" "--stats: '$d/./run.state.csv' is also the --dump's state file ('$d/run.state.csv'); give each output its own" \
    --dump "$d/run.csv" --stats "$d/./run.state.csv" || return 1
  # the files a scene reads: its particles (from a dump)
  "$exe" -q -n 0 --dump "$d/bed.csv" "$scene" >/dev/null || return 1
  printf '%s\n' '[simulation]' 'dt = 1e-4' '[box]' 'min = 0, 0' 'max = 0.3, 0.3' '[material]' \
    'stiffness = 1e5' 'restitution = 0.5' '[small]' 'file = bed.csv' '[large_file.all]' \
    'file = bed.csv' >"$d/f.ini"
  cp "$d/bed.csv" "$d/bed.keep"
  two_uses_refused "$d/f.ini" "--trace: '$d/bed.state.csv' is the scene's [small] file's dump state, which this run reads" \
    --trace "$d/bed.state.csv" || return 1
  two_uses_refused "$d/f.ini" "--dump: '$d/./bed.csv' is the scene's [large_file.all] file ('$d/bed.csv'), which this run reads; an output must not replace it" \
    --dump "$d/./bed.csv" &&
    two_uses_refused "$d/f.ini" "--checkpoint: '$d/sub/../bed.csv' is the scene's [large_file.all] file" \
      --checkpoint "$d/sub/../bed.csv" && cmp "$d/bed.csv" "$d/bed.keep" || return 1
  if [ "$have_preview" = 1 ]; then
    two_uses_refused "$scene" "--screenshot: '$d/fr/frame_000003.png' is a frame of the --frames folder '$d/fr'" \
      --frames "$d/fr" --screenshot "$d/fr/frame_000003.png" || return 1
  fi
  [ ! -e "$d/same.json" ] && [ ! -e "$d/x.ck" ] && [ ! -e "$d/x.csv" ] && [ ! -s "$d/h1" ] &&
    [ -z "$(ls -A "$d/o")$(ls -A "$d/fr")" ] && [ ! -e "$d/mixsim-lastgood.ckpt" ] &&
    [ ! -e "$d/run.csv" ] && cmp -s "$d/scene.ini" "$tmp/g.ini"
}

# The checkpoint's folder is replaced by a file while the run is under way (then the run
# is stopped by SIGINT, so it cannot have ended before): the report, the hash, the stats
# and the dump are still there, the exit code is 1 and the message names --checkpoint.
stop_with_lost_checkpoint() { # scene, extra options...
  local sc=$1
  shift
  rm -rf "$tmp/ck" "$tmp/s.json" "$tmp/d.csv" "$tmp/err" # no message of an earlier run
  mkdir "$tmp/ck"
  "$exe" "$@" --checkpoint "$tmp/ck/run.ck" --stats "$tmp/s.json" --dump "$tmp/d.csv" "$sc" \
    >"$tmp/out" 2>"$tmp/err" &
  local pid=$!
  for _ in $(seq 600); do grep -qs "running headless" "$tmp/err" && break; sleep 0.1; done
  rm -rf "$tmp/ck" && echo "not a folder" >"$tmp/ck"
  kill -INT $pid
  wait $pid
  local rc=$?
  cat "$tmp/err"
  [ $rc -eq 1 ] && grep -q -- "--checkpoint" "$tmp/err" && grep -q "$tmp/ck/run.ck" "$tmp/err" &&
    ! grep -q "checkpoint written" "$tmp/err" && [ -n "$(hash_of "$tmp/out")" ] &&
    is_json "$tmp/s.json" && grep -q "\"state_hash\": \"$(hash_of "$tmp/out")\"" "$tmp/s.json" &&
    [ -s "$tmp/d.csv" ] && no_temp_files "$tmp"
}

test_lost_checkpoint_keeps_report_stats_and_dump() {
  stop_with_lost_checkpoint "$scene" -n 100000000 || return 1
  gravity_scene "$tmp/g.ini" 100000000
  stop_with_lost_checkpoint "$tmp/g.ini"
}

test_stale_temp_files_removed_nothing_else() {
  mkdir -p "$tmp/st"
  local old="$tmp/st/s.json.tmpAb9XyZ" keep
  touch -d '1 hour ago' "$old" "$tmp/st/run.ck.tmp0a1B2c"
  # Not ours, or not stale: another name, 5 or 7 characters, not alphanumeric, newer than
  # the run, a folder.
  keep="$tmp/st/other.json.tmpAb9XyZ $tmp/st/s.json.tmpAb9Xy $tmp/st/s.json.tmpAb9XyZ1
        $tmp/st/s.json.tmpAb-XyZ $tmp/st/s.jsonXtmpAb9XyZ $tmp/st/s.json.tmpNewNew"
  touch -d '1 hour ago' $keep
  touch -d '1 hour' "$tmp/st/s.json.tmpNewNew"
  mkdir "$tmp/st/s.json.tmpDirDir"
  touch -d '1 hour ago' "$tmp/st/s.json.tmpDirDir"
  "$exe" -q -n 5 --stats "$tmp/st/s.json" --checkpoint "$tmp/st/run.ck" "$scene" >/dev/null ||
    return 1
  local f
  for f in $keep "$tmp/st/s.json.tmpDirDir"; do
    [ -e "$f" ] || { echo "    removed $f"; return 1; }
  done
  [ ! -e "$old" ] && [ ! -e "$tmp/st/run.ck.tmp0a1B2c" ] && is_json "$tmp/st/s.json"
}

test_json_escapes_invalid_utf8() {
  # A valid UTF-8 u-umlaut, then the bytes e9 and ff, which are not UTF-8: each such
  # byte is written as \u00XX, so the file is valid JSON (and UTF-8).
  local name=$'s\xc3\xbc-\xe9\xff.ini'
  cp "$scene" "$tmp/$name"
  "$exe" -q -n 5 --stats "$tmp/s.json" "$tmp/$name" >/dev/null || return 1
  gravity_scene "$tmp/g$name" 5
  "$exe" -q --stats "$tmp/g.json" "$tmp/g$name" >/dev/null || return 1
  python3 - "$tmp/s.json" "$tmp/g.json" <<'EOF'
import json, sys
for path, want in zip(sys.argv[1:], ["s\u00fc-\u00e9\u00ff.ini", "gs\u00fc-\u00e9\u00ff.ini"]):
    raw = open(path, "rb").read()
    raw.decode("utf-8")  # strict
    d = json.loads(raw)
    assert d["scene"].endswith("/" + want), (d["scene"], want)
EOF
}

wait_for() { # file, text: up to 60 s for `text` to appear in `file`
  for _ in $(seq 600); do grep -qsF -- "$2" "$1" && return 0; sleep 0.1; done
  echo "    '$2' never appeared in $1"
  return 1
}

# A periodic checkpoint that cannot be written is named, and the run goes on to its report.
test_lost_periodic_checkpoint_run_goes_on() {
  rm -rf "$tmp/pk" "$tmp/pk.gone" "$tmp/p.json" && mkdir "$tmp/pk"
  "$exe" -n 100000000 --checkpoint "$tmp/pk/run.ck" --checkpoint-every 20 --stats "$tmp/p.json" \
    "$scene" >"$tmp/out" 2>"$tmp/err" &
  local pid=$!
  wait_for "$tmp/err" "running headless" && sleep 0.2
  # Moved in one step: checkpoints are being written into it all the while.
  mv "$tmp/pk" "$tmp/pk.gone" && echo "not a folder" >"$tmp/pk"
  wait_for "$tmp/err" "--checkpoint-every"
  local seen=$?
  kill -INT $pid
  wait $pid
  local rc=$?
  cat "$tmp/err"
  [ $seen -eq 0 ] && [ $rc -eq 1 ] && [ -n "$(hash_of "$tmp/out")" ] && is_json "$tmp/p.json"
}

# A screenshot that cannot be written at the end costs only itself.
test_lost_screenshot_keeps_report() {
  [ "$have_preview" = 1 ] || return 0
  rm -rf "$tmp/shot" "$tmp/k" && mkdir "$tmp/shot" "$tmp/k"
  "$exe" -n 100000000 --screenshot "$tmp/shot/x.png" --checkpoint "$tmp/k/x.ck" \
    --checkpoint-every 20 --stats "$tmp/q.json" "$scene" >"$tmp/out" 2>"$tmp/err" &
  local pid=$!
  for _ in $(seq 600); do [ -f "$tmp/k/x.ck" ] && break; sleep 0.1; done
  rm -rf "$tmp/shot" && echo "not a folder" >"$tmp/shot"
  kill -INT $pid
  wait $pid
  local rc=$?
  cat "$tmp/err"
  [ $rc -eq 1 ] && grep -q -- "--screenshot" "$tmp/err" && [ -n "$(hash_of "$tmp/out")" ] &&
    is_json "$tmp/q.json"
}

# The last good state that cannot be written is said so; the failure is still the message.
test_lost_last_good_state_said() {
  mkdir -p "$tmp/lg/mixsim-lastgood.ckpt"
  local abs
  abs=$(realpath "$exe")
  (cd "$tmp/lg" && "$abs" -q "$root/tests/scenes/exploding.ini" >/dev/null 2>"$tmp/err")
  local rc=$?
  cat "$tmp/err"
  [ $rc -eq 4 ] && grep -q "last good state (step [0-9]*) could not be written" "$tmp/err" &&
    grep -q "moves faster than max_speed" "$tmp/err" && [ -d "$tmp/lg/mixsim-lastgood.ckpt" ]
}

check test_device_node_is_written_not_replaced
check test_fifo_gets_the_data
check test_symlink_stays_a_link_and_its_target_is_written
check test_dash_is_stdout
check test_outputs_checked_before_the_run
check test_one_file_for_two_outputs_refused
check test_lost_checkpoint_keeps_report_stats_and_dump
check test_stale_temp_files_removed_nothing_else
check test_json_escapes_invalid_utf8
check test_lost_periodic_checkpoint_run_goes_on
check test_lost_screenshot_keeps_report
check test_lost_last_good_state_said
finish
