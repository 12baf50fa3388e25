#!/usr/bin/env bash
# --trace (docs/trace.md): on a mixed scene with every exchange, buffer mode and pipeline,
# with the pool's helpers, with the --output writer, on the device-only path and on a gravity scene, the trace
# parses, holds every phase of every kept iteration on its track, no track's events
# overlap, the device's commands lie inside their iteration, --trace-steps keeps exactly
# its window, and the state hash is the run's without --trace. A stopped and a failing
# run still write theirs; bad --trace-steps values are refused naming the option; the
# checker refuses doctored traces.
# usage: trace.sh MIXSIM SOURCE_ROOT [FILTER]
set -u
mixsim=$(realpath "$1")
root=$(realpath "$2")
filter=${3:-}
. "$root/tests/lib.sh"
export MIXSIM_DEVICE=${MIXSIM_DEVICE:-cpu}
checker="$root/tests/trace_check.py"

# traced NAME PHASES SCENE STEPS WINDOW [OPTIONS...]: the traced run's hash equals the
# untraced one's, and the checker accepts the trace.
traced() {
  local name=$1 phases=$2 scene=$3 steps=$4 window=$5
  shift 5
  "$mixsim" "$scene" --steps "$steps" -q --headless "$@" >"$tmp/$name.plain" 2>&1 || return 1
  "$mixsim" "$scene" --steps "$steps" -q --headless "$@" --trace "$tmp/$name.json" \
    --trace-steps "$window" >"$tmp/$name.traced" 2>&1 || return 1
  local a b
  a=$(hash_of "$tmp/$name.plain")
  b=$(hash_of "$tmp/$name.traced")
  [ -n "$a" ] && [ "$a" = "$b" ] || { echo "hash $a without --trace, $b with"; return 1; }
  python3 "$checker" "$tmp/$name.json" --window "$window" --phases "$phases"
}

mixed="$root/scenes/mixed.ini"
full_shared_naive() { traced fsn collision "$mixed" 40 10:20 --exchange full --buffers shared --pipeline naive; }
full_copied_reordered() { traced fcr collision "$mixed" 40 10:20 --exchange full --buffers copied --pipeline reordered; }
zone_shared_reordered() { traced zsr collision "$mixed" 40 10:20 --exchange zone --buffers shared --pipeline reordered; }
zone_copied_naive() { traced zcn collision "$mixed" 40 10:20 --exchange zone --buffers copied --pipeline naive --cpu-threads 2; }
device_only() { traced dev device "$mixed" 40 10:20 --large-on device; }
# (the window ends the run: its read-back, with its device event "read pos", is in it)
gravity() { traced grav gravity "$root/scenes/kepler.ini" 40 30:40; }

# The worker's pool helpers get a track each (many large particles: the job is split).
pool_threads() {
  traced pool collision "$root/tests/scenes/many_large.ini" 30 10:20 --cpu-threads 2 &&
    grep -q '"name":"pool thread 1"' "$tmp/pool.json"
}

# With --output the writer thread's frames get a track of their own (checked like the rest).
writer_track() {
  traced wri collision "$mixed" 40 10:20 --output "$tmp/frames" --output-every 10 --output-clear &&
    grep -q '"name":"writer"' "$tmp/wri.json" && grep -q '"name":"write frame"' "$tmp/wri.json"
}

# The default window is the first 200 iterations (fewer when the run is shorter).
default_window() {
  "$mixsim" "$mixed" --steps 30 -q --headless --trace "$tmp/dw.json" >/dev/null 2>&1 &&
    python3 "$checker" "$tmp/dw.json" --window 0:30
}

# A stopped run (SIGTERM) and a failing one still write what they recorded.
signal_writes() {
  "$mixsim" "$mixed" --steps 100000000 -q --headless --trace "$tmp/sig.json" >/dev/null 2>&1 &
  local pid=$!
  sleep 1 # (when it arrives does not matter: before the first iteration, none is kept)
  kill -TERM $pid
  wait $pid
  [ $? -eq $((128 + 15)) ] && python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/sig.json"
}

failing_writes() {
  (cd "$tmp" && "$mixsim" "$root/tests/scenes/exploding.ini" -q --headless \
    --trace "$tmp/fail.json" >"$tmp/fail.out" 2>&1)
  [ $? -ne 0 ] && python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/fail.json"
}

# The checker itself: a trace with a phase removed, two spans overlapping, a kernel
# moved out of its iteration, or one transfer of the exchange (an unmap, a read or a
# write on a queue track) removed is refused.
checker_catches() {
  traced cc collision "$mixed" 30 10:20 || return 1
  local how
  for how in drop overlap outside transfer; do
    python3 - "$tmp/cc.json" "$tmp/cc-$how.json" "$how" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
x = [e for e in ev if e["ph"] == "X"]
how = sys.argv[3]
if how == "drop":
    ev.remove(next(e for e in x if e["name"] == "large-small" and e["args"]["iteration"] == 15))
elif how == "overlap":
    e = next(e for e in x if e["name"] == "small-small" and e["args"]["iteration"] == 12)
    e["dur"] += 1e6
elif how == "transfer":
    ev.remove(next(e for e in x if e["cat"] == "device" and e["args"]["iteration"] == 14 and
                   e["name"].split(" ")[0] in ("map", "unmap", "read", "write")))
else:
    e = next(e for e in x if e["cat"] == "device" and e["args"]["iteration"] == 11)
    e["ts"] += 1e7
json.dump(d, open(sys.argv[2], "w"))
PY
    if python3 "$checker" "$tmp/cc-$how.json" --window 10:20 >/dev/null 2>&1; then
      echo "the checker passed a trace with '$how'"
      return 1
    fi
  done
}

bad_window() {
  local v out
  for v in 5 5:5 7:3 -1:4 a:b 3: :9; do
    out=$("$mixsim" "$mixed" --steps 5 -q --headless --trace "$tmp/b.json" --trace-steps "$v" 2>&1)
    [ $? -eq 2 ] && [[ $out == *"--trace-steps"* ]] || { echo "'$v' accepted: $out"; return 1; }
  done
  out=$("$mixsim" "$mixed" --steps 5 -q --headless --trace-steps 1:2 2>&1)
  [ $? -eq 2 ] && [[ $out == *"--trace-steps needs --trace"* ]] && [ ! -e "$tmp/b.json" ] ||
    { echo "$out"; return 1; }
  out=$("$mixsim" "$mixed" --steps 5 -q --headless --trace "$tmp/no/such/t.json" 2>&1)
  [ $? -eq 2 ] && [[ $out == *"--trace:"* ]] || { echo "$out"; return 1; }
}

check full_shared_naive
check full_copied_reordered
check zone_shared_reordered
check zone_copied_naive
check device_only
check gravity
check pool_threads
check writer_track
check default_window
check signal_writes
check failing_writes
check bad_window
check checker_catches
finish
