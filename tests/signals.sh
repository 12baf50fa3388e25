#!/usr/bin/env bash
# SIGINT/SIGTERM end every kind of run at the next iteration, with the report, the
# checkpoint if asked for, and exit 130/143: offscreen frames, a screenshot run, the
# collision window and the gravity window (under Xvfb). Offscreen runs also resume and
# checkpoint like headless ones: a frames run resumed from a checkpoint ends on the hash
# of an uninterrupted headless run.
# usage: signals.sh MIXSIM SOURCE_ROOT HAVE_PREVIEW(0|1)
set -u
exe=$(realpath "$1")
root=$2
have_preview=$3
scene=$root/tests/scenes/tiny.ini
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1

if [ "$have_preview" != 1 ]; then
  echo "skipped: built without SDL2 (no offscreen frames, no window)"
  exit 77
fi


# The same for any file matching the pattern $1.
await_glob() {
  local i
  for i in $(seq $(($2 * 10))); do
    compgen -G "$1" >/dev/null && return 0
    sleep 0.1
  done
  echo "    nothing matches $1 after $2 s"
  return 1
}

# Waits up to $2 seconds for our child $1 to end; sets $code. A run that ignores the
# signal is killed (process $3 too, the program under a wrapper) and fails the test.
await_exit() {
  local pid=$1 i state
  for i in $(seq $(($2 * 10))); do
    state=$(awk '{print $3}' /proc/"$pid"/stat 2>/dev/null)
    [ -z "$state" ] || [ "$state" = Z ] && break
    sleep 0.1
  done
  state=$(awk '{print $3}' /proc/"$pid"/stat 2>/dev/null)
  if [ -n "$state" ] && [ "$state" != Z ]; then
    echo "    still running $2 s after the signal"
    [ -n "${3:-}" ] && kill -KILL "$3"
    kill -KILL "$pid"
    wait "$pid"
    return 1
  fi
  wait "$pid"
  code=$?
}

# The checkpoint a stopped run left resumes to the state it reported.
resumes_to_report() { # checkpoint, report
  local at
  at=$(sed -n 's/^state hash [0-9a-f]* (step \([0-9]*\)).*/\1/p' "$2")
  [ -n "$at" ] && [ "$at" -gt 0 ] || { echo "    no report"; return 1; }
  "$exe" -q -n "$at" --resume "$1" "$scene" >resumed || return 1
  echo "    stopped at step $at: $(hash_of "$2"), resumed: $(hash_of resumed)"
  [ "$(hash_of "$2")" = "$(hash_of resumed)" ]
}

test_frames_run_stops_on_sigterm() {
  mkdir -p fr
  "$exe" -q -n 100000000 --frames fr --every 25 --checkpoint f.ck "$scene" >out 2>err &
  local pid=$!
  await_file fr/frame_000002.png 120 || { kill -KILL $pid; wait $pid; return 1; }
  kill -TERM $pid
  await_exit $pid 60 || return 1
  cat err
  echo "    exit $code"
  [ $code -eq 143 ] && grep -q "stopped by signal 15" err && resumes_to_report f.ck out
}

test_screenshot_run_stops_on_sigint() {
  "$exe" -q -n 100000000 --screenshot shot.png --checkpoint s.ck --checkpoint-every 50 \
    "$scene" >out 2>err &
  local pid=$!
  await_file s.ck 120 || { kill -KILL $pid; wait $pid; return 1; }
  kill -INT $pid
  await_exit $pid 60 || return 1
  cat err
  echo "    exit $code"
  # The screenshot shows where the run stopped.
  [ $code -eq 130 ] && [ -s shot.png ] && resumes_to_report s.ck out
}

test_frames_resume_and_checkpoint() {
  "$exe" -q -n 60 --headless "$scene" >full || return 1
  mkdir -p a b
  "$exe" -q -n 24 --frames a --checkpoint c1.ck "$scene" >/dev/null || return 1
  # Resumed at step 24: frames from there (24, 28, ..., 60), checkpoints every 12 steps.
  "$exe" -q -n 60 --frames b --resume c1.ck --checkpoint c2.ck --checkpoint-every 12 \
    "$scene" >out 2>err || { cat err; return 1; }
  local frames
  frames=$(ls b | wc -l)
  echo "    resumed frames run: $(hash_of out) in $frames frames; headless: $(hash_of full)"
  [ "$frames" -eq 10 ] && [ "$(hash_of out)" = "$(hash_of full)" ] && grep -q "(step 60)" out ||
    return 1
  "$exe" -q -n 60 --resume c2.ck "$scene" >r2 || return 1
  [ "$(hash_of r2)" = "$(hash_of full)" ] || return 1
  # The screenshot run resumes too.
  "$exe" -q -n 60 --screenshot r.png --resume c1.ck "$scene" >shot || return 1
  [ -s r.png ] && [ "$(hash_of shot)" = "$(hash_of full)" ]
}

# A window under Xvfb, signalled once it has drawn (F12 wrote a screenshot).
window_stops_on_sigterm() { # scene, then a name for the files
  local sc=$1 name=$2
  mkdir -p "$name" && cd "$name" || return 1
  timeout -s KILL 300 xvfb-run -a -s "-screen 0 1280x1024x24" \
    sh -c '"$@" & echo $! >pid; wait $!; echo $? >code' sh "$exe" --script "10:F12" "$sc" \
    >out 2>err &
  local pid=$!
  if ! await_file pid 60 || ! await_glob 'mixsim-*.png' 120; then
    cat err
    [ -s pid ] && kill -KILL "$(cat pid)"
    kill -KILL $pid
    wait $pid
    cd "$tmp" && return 1
  fi
  kill -TERM "$(cat pid)"
  await_exit $pid 60 "$(cat pid)"
  local ok=$?
  # mixsim's own exit code: xvfb-run's may report its clean-up instead.
  code=$(cat code 2>/dev/null || echo none)
  cat err out
  echo "    exit $code"
  cd "$tmp" || return 1
  [ $ok -eq 0 ] && [ $code -eq 143 ] && ! grep -q "running headless" "$name/err" &&
    grep -q "^state hash [0-9a-f]* (step [0-9]*)" "$name/out"
}

test_window_stops_on_sigterm() {
  command -v xvfb-run >/dev/null 2>&1 || { echo "    xvfb-run is missing"; [ -z "${CI:-}" ]; return; }
  window_stops_on_sigterm "$scene" win || return 1
  # The window's report is the state it stopped at, as a headless run of as many steps.
  local at
  at=$(sed -n 's/^state hash [0-9a-f]* (step \([0-9]*\)).*/\1/p' win/out)
  "$exe" -q --headless -n "$at" "$scene" >head || return 1
  echo "    window: $(hash_of win/out), headless: $(hash_of head)"
  [ "$(hash_of win/out)" = "$(hash_of head)" ]
}

test_gravity_window_stops_on_sigterm() {
  command -v xvfb-run >/dev/null 2>&1 || { echo "    xvfb-run is missing"; [ -z "${CI:-}" ]; return; }
  window_stops_on_sigterm "$root/scenes/kepler.ini" gwin
}

# Q applies the keys pressed before it, here 40 resets: a SIGTERM once the first is done
# stops the window after the one under way (preview.c checks the signal between orders),
# with the report, not after all 40.
test_window_signal_cuts_q_short() {
  command -v xvfb-run >/dev/null 2>&1 || { echo "    xvfb-run is missing"; [ -z "${CI:-}" ]; return; }
  local keys="5:F12" i
  for i in $(seq 40); do keys="$keys,6:R"; done
  mkdir -p drain && cd drain || return 1
  timeout -s KILL 300 xvfb-run -a -s "-screen 0 1280x1024x24" \
    sh -c '"$@" & echo $! >pid; wait $!; echo $? >code' sh "$exe" --script "$keys,6:Q" "$scene" \
    >out 2>err &
  local pid=$! n
  for i in $(seq 1200); do
    grep -q 'preview: step [0-9]*: reset' err 2>/dev/null && break
    sleep 0.05
  done
  [ -s pid ] && kill -TERM "$(cat pid)"
  await_exit $pid 120 "$(cat pid 2>/dev/null)"
  local ok=$?
  n=$(grep -c 'preview: step [0-9]*: reset' err)
  code=$(cat code 2>/dev/null || echo none)
  echo "    $n of 40 resets applied before the signal stopped the window; exit $code"
  cd "$tmp" || return 1
  [ $ok -eq 0 ] && [ "$code" = 143 ] && [ "$n" -ge 1 ] && [ "$n" -le 3 ] &&
    grep -q "^state hash [0-9a-f]* (step [0-9]*)" drain/out
}

check test_frames_run_stops_on_sigterm
check test_screenshot_run_stops_on_sigint
check test_frames_resume_and_checkpoint
check test_window_stops_on_sigterm
check test_gravity_window_stops_on_sigterm
check test_window_signal_cuts_q_short
finish
