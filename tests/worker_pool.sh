#!/usr/bin/env bash
# The CPU worker pool (--cpu-threads, cpu_threads): the state hash does not depend on the
# thread count in any pipeline and buffer mode, and is the one a single thread gave
# before the pool existed; a failing run names the same step and particle whatever the
# count; the report and the stats say the count; bad counts are refused naming the option.
# usage: worker_pool.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$(realpath "$1")
root=$2
filter=${3:-}
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1

# Every thread count in every pipeline and buffer mode must give `want`, the hash of the
# one-thread worker before the pool (recorded on main). $grain, when set, is
# MIXSIM_CPU_GRAIN: 1 splits every phase however few large particles there are.
same_hash_every_count() { # want, then the scene and its arguments
  local want=$1 p b t got
  shift
  for p in naive reordered; do
    for b in shared copied; do
      for t in 1 2 3 8; do
        MIXSIM_CPU_GRAIN=${grain:-} "$exe" -q -d cpu -p "$p" -b "$b" --cpu-threads "$t" "$@" \
          >out 2>err || { cat err; return 1; }
        got=$(hash_of out)
        if [ "$got" != "$want" ]; then
          echo "$* -p $p -b $b --cpu-threads $t: hash $got, want $want"
          return 1
        fi
      done
    done
  done
}

test_mixed_same_hash_for_1_2_3_8_threads() {
  same_hash_every_count b13fd7b0 -n 200 "$root/tests/scenes/mixed_frictionless.ini" &&
    grain=1 same_hash_every_count 26b4e1df -n 100 "$root/tests/scenes/mixed_frictionless.ini"
}

# MIXSIM_POOL_SPIN_US: threads that poll between jobs (the default on a GPU) step alike;
# a bad value is refused naming the variable.
test_options_polling_keeps_the_hash() {
  local got
  MIXSIM_POOL_SPIN_US=300 MIXSIM_CPU_GRAIN=1 "$exe" -q -d cpu --cpu-threads 3 -n 100 \
    "$root/tests/scenes/mixed_frictionless.ini" >out 2>err || { cat err; return 1; }
  got=$(hash_of out)
  [ "$got" = 26b4e1df ] || { echo "polling: hash $got, want 26b4e1df"; return 1; }
  MIXSIM_POOL_SPIN_US=2000000 "$exe" -q -d cpu "$root/tests/scenes/tiny.ini" >out 2>err
  local rc=$?
  [ $rc -eq 2 ] && grep -q "^mixsim: MIXSIM_POOL_SPIN_US: must be between 0 and 1000000" err &&
    [ ! -s out ] || { echo "MIXSIM_POOL_SPIN_US=2000000: exit $rc"; cat err; return 1; }
}

test_packed_same_hash_for_1_2_3_8_threads() {
  grain=1 same_hash_every_count e425b87e "$root/tests/scenes/packed.ini"
}

# One small disc squeezed by three large ones, each in its own chunk from 3 threads on, and
# one large disc by three others: each sum is of three floats, which only the one-thread
# order gives bit for bit (adding the chunks' lists in another order changes the hash).
test_squeeze_same_hash_for_1_2_3_8_threads() {
  grain=1 same_hash_every_count ad9eef9e "$root/tests/scenes/squeeze.ini"
}

# 2000 large particles touching walls, each other and small ones sunk between them.
test_many_large_same_hash_for_1_2_3_8_threads() {
  same_hash_every_count 85a9736b -n 50 "$root/tests/scenes/many_large.ini"
}

# The same exit code and message (step and particle) for every count; in
# exploding_group.ini three rocks fail at once, so with 4 or more threads the first one
# in index order is in a later chunk than the static peg's and other chunks fail too.
same_failure_every_count() { # scene
  local t ref=""
  for t in 1 2 3 4 8; do
    MIXSIM_CPU_GRAIN=1 "$exe" -q -d cpu --headless --cpu-threads "$t" "$1" >out 2>err
    local rc=$?
    [ $rc -eq 4 ] || { echo "--cpu-threads $t: exit $rc, want 4"; cat err; return 1; }
    local msg
    msg=$(grep -v "last good state" err)
    [ -n "$msg" ] || { echo "--cpu-threads $t: no message"; return 1; }
    [ -z "$ref" ] && ref=$msg
    [ "$msg" = "$ref" ] || { echo "--cpu-threads $t: '$msg', with 1 thread '$ref'"; return 1; }
  done
  echo "$ref"
}

test_failure_same_step_and_particle_for_every_count() {
  same_failure_every_count "$root/tests/scenes/exploding_group.ini" >msg || { cat msg; return 1; }
  grep -q "step 14: large particle \[large_random.rocks\] #0 moves faster" msg || { cat msg; return 1; }
  same_failure_every_count "$root/tests/scenes/exploding.ini" >msg || { cat msg; return 1; }
  same_failure_every_count "$root/tests/scenes/overflow_nan.ini" >msg || { cat msg; return 1; }
}

test_options_report_and_stats_give_the_count() {
  "$exe" -q -d cpu -n 5 --cpu-threads 3 -s stats.json "$root/tests/scenes/tiny.ini" >out 2>err \
    || { cat err; return 1; }
  grep -q "^run .*, 3 CPU worker threads$" out || { cat out; return 1; }
  python3 -c "import json,sys; d=json.load(open('stats.json'))
assert d['cpu_threads'] == 3, d['cpu_threads']
busy = d['cpu_threads_busy_ms_per_iteration']
assert len(busy) == 3 and all(b >= 0 for b in busy), busy" || { cat stats.json; return 1; }
  grep -q "^  CPU worker's threads, busy" out || { cat out; return 1; }
  # The scene's key when no option is given; the option over the key.
  sed 's/^\[simulation\]$/[simulation]\ncpu_threads = 2/' "$root/tests/scenes/tiny.ini" >two.ini
  "$exe" -q -d cpu -n 5 two.ini >out 2>err || { cat err; return 1; }
  grep -q "^run .*, 2 CPU worker threads$" out || { cat out; return 1; }
  "$exe" -q -d cpu -n 5 --cpu-threads 1 two.ini >out 2>err || { cat err; return 1; }
  grep -q "^run .*, 1 CPU worker thread$" out || { cat out; return 1; }
}

# A checkpoint written with one thread count resumes with another to the uninterrupted hash.
test_resume_with_another_count() {
  local scene=$root/tests/scenes/squeeze.ini
  MIXSIM_CPU_GRAIN=1 "$exe" -q -d cpu -n 150 --cpu-threads 3 "$scene" >whole 2>err || { cat err; return 1; }
  "$exe" -q -d cpu -n 70 --cpu-threads 1 --checkpoint half.ck "$scene" >/dev/null 2>err || { cat err; return 1; }
  MIXSIM_CPU_GRAIN=1 "$exe" -q -d cpu -n 150 --cpu-threads 8 --resume half.ck "$scene" >resumed 2>err \
    || { cat err; return 1; }
  [ "$(hash_of whole)" = ad9eef9e ] && [ "$(hash_of resumed)" = ad9eef9e ] || {
    echo "whole $(hash_of whole), resumed $(hash_of resumed), want ad9eef9e"
    return 1
  }
}

# A stop request (SIGINT) still ends a run with helpers at an iteration boundary: exit 130,
# and the state it reports is the one-thread state of that step. The waits are bounded.
test_stop_with_helpers() {
  local scene=$root/tests/scenes/squeeze.ini i
  MIXSIM_CPU_GRAIN=1 "$exe" -q -d cpu --headless -n 100000000 --cpu-threads 3 \
    --checkpoint s.ck --checkpoint-every 50 "$scene" >out 2>err &
  local pid=$!
  for i in $(seq 1200); do [ -e s.ck ] || ! kill -0 $pid 2>/dev/null && break; sleep 0.1; done
  kill -INT $pid
  for i in $(seq 600); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  if kill -0 $pid 2>/dev/null; then
    echo "still running 60 s after SIGINT"
    kill -KILL $pid
    wait $pid
    return 1
  fi
  wait $pid
  local code=$? at
  at=$(sed -n 's/^state hash [0-9a-f]* (step \([0-9]*\)).*/\1/p' out)
  [ $code -eq 130 ] && [ -n "$at" ] || { echo "exit $code, step '$at'"; cat err; return 1; }
  "$exe" -q -d cpu -n "$at" --cpu-threads 1 "$scene" >one || return 1
  echo "    stopped at step $at: $(hash_of out), one thread: $(hash_of one)"
  [ "$(hash_of out)" = "$(hash_of one)" ]
}

refused() { # the value, then the words the message must hold
  "$exe" -q -d cpu --cpu-threads "$1" "$root/tests/scenes/tiny.ini" >out 2>err
  local rc=$?
  [ $rc -eq 2 ] && grep -q -- "^mixsim: --cpu-threads: $2" err && [ ! -s out ] || {
    echo "--cpu-threads '$1': exit $rc"
    cat err
    return 1
  }
}

test_options_bad_counts_refused_naming_the_option() {
  MIXSIM_CPU_GRAIN=0 "$exe" -q -d cpu "$root/tests/scenes/tiny.ini" >out 2>err
  local rc=$?
  [ $rc -eq 2 ] && grep -q "^mixsim: MIXSIM_CPU_GRAIN: must be between 1 and" err && [ ! -s out ] || {
    echo "MIXSIM_CPU_GRAIN=0: exit $rc"
    cat err
    return 1
  }
  refused 0 "must be between 1 and 256 (got 0)" &&
    refused -3 "must be between 1 and 256 (got -3)" &&
    refused 257 "must be between 1 and 256 (got 257)" &&
    refused two "expected an integer between 1 and 256, got 'two'" &&
    refused "" "expected an integer" &&
    refused 1.5 "expected an integer"
}

check test_mixed_same_hash_for_1_2_3_8_threads
check test_options_polling_keeps_the_hash
check test_packed_same_hash_for_1_2_3_8_threads
check test_squeeze_same_hash_for_1_2_3_8_threads
check test_many_large_same_hash_for_1_2_3_8_threads
check test_failure_same_step_and_particle_for_every_count
check test_resume_with_another_count
check test_stop_with_helpers
check test_options_report_and_stats_give_the_count
check test_options_bad_counts_refused_naming_the_option
finish
