#!/usr/bin/env bash
# An output that blocks never makes a run deaf to signals: a FIFO that nobody opens
# (--stats, --dump, --checkpoint, --trace, --screenshot, a frame of --output, both modes),
# `--dump -` into a pipe that nobody reads (a --resume FIFO is no checkpoint: refused at
# once, exit 2). SIGTERM or SIGINT ends the run within LIMIT seconds, exit 143 or 130, naming the output cut short,
# and the outputs that can be written (checkpoint, report, stats, dump) are written and
# valid. `timeout` bounds every run, so a hang fails the test rather than hanging it.
# usage: blocking_outputs.sh MIXSIM SOURCE_ROOT HAVE_PREVIEW(0|1) [filter]
set -u
exe=$(realpath "$1")
root=$2
have_preview=$3
filter=${4:-}
scene=$root/tests/scenes/tiny_friction.ini
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1

LIMIT=3 # seconds from the signal to the exit

fresh() { # each test in a folder of its own, so no file of another one is waited for
  rm -rf "$tmp/$1" && mkdir "$tmp/$1" && cd "$tmp/$1"
}

is_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$1"; }

gravity_scene() { # file
  printf '[simulation]\nmode = gravity\ndt = 0.001\nsteps = 40\nseed = 9\n[gravity]\nbodies = plummer\ncount = 300\nsoftening = 0.01\ndiagnostics_every = 10\n' >"$1"
}

# Starts mixsim in the background under a hard bound (timeout passes our signals on to
# it); $pid is timeout's. Standard output goes to `out` unless the caller redirects it.
start() {
  timeout -s KILL 300 "$exe" "$@" 2>err &
  pid=$!
}


await_text() { # file, text, seconds
  local i
  for i in $(seq $(($3 * 20))); do
    grep -qsF -- "$2" "$1" && return 0
    sleep 0.05
  done
  echo "    '$2' never appeared in $1"
  return 1
}

# A run that never got ready: ended, mixsim first (timeout, killed, passes nothing on).
abandon() {
  pkill -KILL -P $pid
  kill -KILL $pid
  wait $pid
  cat err
  return 1
}

running() { # pid: neither gone nor a zombie
  local state
  state=$(awk '{print $3}' /proc/"$1"/stat 2>/dev/null)
  [ -n "$state" ] && [ "$state" != Z ]
}

# Sends signal $1 and waits up to LIMIT seconds for the run to end (a run still blocked
# then is killed and fails); $code is its exit code.
signal_and_wait() {
  local t0 i ms
  t0=$(date +%s%N)
  kill -"$1" $pid
  for i in $(seq $((LIMIT * 20))); do
    running $pid || break
    sleep 0.05
  done
  if running $pid; then
    echo "    still running $LIMIT s after SIG$1: killed"
    abandon
    return 1
  fi
  wait $pid
  code=$?
  ms=$((($(date +%s%N) - t0) / 1000000))
  cat err
  echo "    SIG$1: exit $code after $ms ms"
}

stopped_output_named() { # option, path
  grep -q -- "$1 not written: cannot write .*$2.*stopped (SIGINT/SIGTERM)" err ||
    { echo "    no message naming $1 ($2) as stopped"; return 1; }
}

# The checkpoint resumes to the state of the report in $2 (file) of scene $3.
resumes_to_report() { # checkpoint, report, scene
  local at
  at=$(sed -n 's/^state hash [0-9a-f]* (step \([0-9]*\)).*/\1/p' "$2")
  [ -n "$at" ] || { echo "    no report in $2"; return 1; }
  timeout -s KILL 120 "$exe" -q -n "$at" --resume "$1" "$3" >resumed || return 1
  echo "    report: $(hash_of "$2") at step $at, checkpoint resumed: $(hash_of resumed)"
  [ "$(hash_of "$2")" = "$(hash_of resumed)" ]
}

stats_of_report() { # stats file, report file
  is_json "$1" && grep -q "\"state_hash\": \"$(hash_of "$2")\"" "$1" ||
    { echo "    $1 is not the report's stats"; return 1; }
}

dump_rows() { # file, rows wanted (header excluded)
  local n
  n=$(($(wc -l <"$1") - 1))
  [ "$n" -eq "$2" ] || { echo "    $1 holds $n rows, not $2"; return 1; }
}

test_stats_fifo_without_reader() {
  fresh stats_fifo_without_reader || return 1
  mkfifo ff
  start -q --checkpoint ck --dump d.csv --stats ff "$scene" >out
  await_file ck 120 || abandon || return 1
  sleep 0.3
  signal_and_wait TERM || return 1
  [ $code -eq 143 ] && stopped_output_named --stats ff && resumes_to_report ck out "$scene" &&
    dump_rows d.csv 205 && [ -p ff ]
}

test_dump_fifo_without_reader() {
  fresh dump_fifo_without_reader || return 1
  mkfifo ff
  start -q --checkpoint ck --stats st.json --dump ff "$scene" >out
  await_file st.json 120 || abandon || return 1
  sleep 0.3
  signal_and_wait TERM || return 1
  [ $code -eq 143 ] && stopped_output_named --dump ff && stats_of_report st.json out &&
    resumes_to_report ck out "$scene"
}

# A periodic checkpoint blocks in the middle of the run; the stop ends it and the run.
test_checkpoint_fifo_without_reader() {
  fresh checkpoint_fifo_without_reader || return 1
  mkfifo ff
  start -n 100000000 --checkpoint ff --checkpoint-every 50 --stats st.json --dump d.csv "$scene" >out
  await_text err "running headless" 120 || abandon || return 1
  sleep 1
  signal_and_wait TERM || return 1
  [ $code -eq 143 ] && stopped_output_named --checkpoint-every ff &&
    ! grep -q "checkpoint written" err && stats_of_report st.json out && dump_rows d.csv 205
}

test_trace_fifo_without_reader_sigint() {
  fresh trace_fifo_without_reader_sigint || return 1
  mkfifo ff
  start -q --checkpoint ck --stats st.json --dump d.csv --trace ff "$scene" >out
  await_file d.csv 120 || abandon || return 1
  sleep 0.3
  signal_and_wait INT || return 1
  [ $code -eq 130 ] && stopped_output_named --trace ff && stats_of_report st.json out &&
    dump_rows d.csv 205 && resumes_to_report ck out "$scene"
}

# Nothing ran: nothing is written (a checkpoint of the scene's start would replace one).
# A --resume FIFO nobody writes is no checkpoint: refused at once (exit 2), never waited on.
test_resume_fifo_without_writer() {
  fresh resume_fifo_without_writer || return 1
  mkfifo ff
  timeout -s KILL 20 "$exe" -q --resume ff --checkpoint ck --stats st.json "$scene" >out 2>err
  local rc=$?
  cat err
  [ $rc -eq 2 ] && grep -q "cannot open checkpoint 'ff': a FIFO, not a regular file" err &&
    [ ! -e st.json ] && [ ! -e ck ]
}

# Standard output into a pipe whose reader never reads: the dump fills it and waits.
test_dump_to_pipe_never_read() {
  fresh dump_to_pipe_never_read || return 1
  local big=$root/scenes/mixed.ini
  start -q -n 20 --checkpoint ck --stats st.json --dump - "$big" > >(exec sleep 30 >/dev/null 2>&1)
  await_file st.json 120 || abandon || return 1
  sleep 0.5
  signal_and_wait TERM || return 1
  # (the report goes to stderr when --dump takes standard output)
  [ $code -eq 143 ] && stopped_output_named --dump "standard output" && stats_of_report st.json err &&
    resumes_to_report ck err "$big"
}

# The writer thread of --output meets a FIFO where the last frame goes (planted while
# the run is paused: the folder's check before the run would refuse it).
test_output_frame_fifo_without_reader() {
  fresh output_frame_fifo_without_reader || return 1
  start -q -n 6000 --output o --output-every 1000 --checkpoint ck --stats st.json "$root/tests/scenes/tiny.ini" >out
  await_file o/frame_000000.vtp 120 || abandon || return 1
  kill -STOP "$(pgrep -P $pid)"
  [ ! -e o/frame_006000.vtp ] && mkfifo o/frame_006000.vtp
  local planted=$?
  kill -CONT "$(pgrep -P $pid)"
  [ $planted -eq 0 ] || { echo "    the run reached step 6000 before the FIFO was planted"; abandon; return 1; }
  # The checkpoint comes after the last frame was handed to the writer.
  await_file ck 120 || abandon || return 1
  sleep 0.3
  signal_and_wait TERM || return 1
  [ $code -eq 143 ] && stopped_output_named --output o/frame_006000.vtp &&
    resumes_to_report ck out "$root/tests/scenes/tiny.ini" && stats_of_report st.json out &&
    grep -q 'file="frame_005000.vtp"' o/frames.pvd
}

test_screenshot_fifo_without_reader() {
  fresh screenshot_fifo_without_reader || return 1
  [ "$have_preview" = 1 ] || { echo "    built without SDL2: no screenshot"; return 0; }
  mkfifo shot.png
  start -q -n 100000000 --screenshot shot.png --checkpoint ck --checkpoint-every 50 --stats st.json \
    "$scene" >out
  await_file ck 120 || abandon || return 1
  signal_and_wait TERM || return 1
  [ $code -eq 143 ] && stopped_output_named --screenshot shot.png && stats_of_report st.json out &&
    resumes_to_report ck out "$scene"
}

test_gravity_stats_fifo_without_reader() {
  fresh gravity_stats_fifo_without_reader || return 1
  gravity_scene g.ini
  mkfifo ff
  start -q --checkpoint gk --dump gd.csv --stats ff g.ini >out
  await_file gk 120 || abandon || return 1
  sleep 0.3
  signal_and_wait TERM || return 1
  [ $code -eq 143 ] && stopped_output_named --stats ff && dump_rows gd.csv 300 &&
    resumes_to_report gk out g.ini
}

test_gravity_resume_fifo_without_writer() {
  fresh gravity_resume_fifo_without_writer || return 1
  gravity_scene g.ini
  mkfifo ff
  timeout -s KILL 20 "$exe" -q --resume ff --checkpoint gk g.ini >out 2>err
  local rc=$?
  cat err
  [ $rc -eq 2 ] && grep -q "cannot open checkpoint 'ff': a FIFO, not a regular file" err && [ ! -e gk ]
}

check test_stats_fifo_without_reader
check test_dump_fifo_without_reader
check test_checkpoint_fifo_without_reader
check test_trace_fifo_without_reader_sigint
check test_resume_fifo_without_writer
check test_dump_to_pipe_never_read
check test_output_frame_fifo_without_reader
check test_screenshot_fifo_without_reader
check test_gravity_stats_fifo_without_reader
check test_gravity_resume_fifo_without_writer
finish
