#!/usr/bin/env bash
# Numbers on the command line are read by the scene loader's parser with the scene's
# limits: out of range, wrapped-around, trailing text, blanks or a '+' sign and empty
# values all exit 2 naming the option and the accepted range, before anything runs.
# usage: cli_numbers.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$1
root=$2
filter=${3:-}
. "$(dirname "$0")/lib.sh"

scene=$root/tests/scenes/tiny.ini

gravity_scene() {
  printf '[simulation]\nmode = gravity\ndt = 0.001\nsteps = 2\n[gravity]\nbodies = plummer\ncount = 64\nsoftening = 0.01\n' \
    >"$tmp/g.ini"
}

# refused SCENE WORDS ARGS...: exit 2 within 60 s, stderr holds WORDS, no report.
refused() {
  local file=$1 words=$2
  shift 2
  timeout -k 5 60 "$exe" -q "$@" "$file" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  echo "    $* -> $rc: $(head -c 300 "$tmp/err")"
  [ $rc -eq 2 ] && grep -qF -- "$words" "$tmp/err" && ! grep -q "state hash" "$tmp/out"
}

test_steps_range() {
  refused "$scene" "--steps: must be between 0 and 1000000000000000 (got 99999999999999999999)" \
    -n 99999999999999999999 &&
    refused "$scene" "--steps: must be between 0 and" -n 1000000000000001 &&
    refused "$scene" "--steps: must be between 0 and" -n -3 &&
    refused "$scene" "--steps: expected an integer between 0 and" -n 5x &&
    refused "$scene" "--steps: expected an integer between 0 and" -n " 5" &&
    refused "$scene" "--steps: expected an integer between 0 and" -n ""
}

test_every_and_checkpoint_every_range() {
  refused "$scene" "--every: must be between 1 and" --every 0 &&
    refused "$scene" "--every: must be between 1 and" --every 18446744073709551617 &&
    refused "$scene" "--checkpoint-every: must be between 1 and" --checkpoint-every -1 &&
    refused "$scene" "--checkpoint-every: expected an integer between 1 and" \
      --checkpoint-every 1e3
}

test_burst_same_limits_as_scene() {
  gravity_scene
  refused "$tmp/g.ini" "--burst: must be between 1 and 1000000 (got 1000001)" --burst 1000001 &&
    refused "$tmp/g.ini" "--burst: must be between 1 and 1000000" --burst 99999999999999999999 &&
    refused "$tmp/g.ini" "--burst: expected an integer between 1 and 1000000" --burst 10k || return 1
  # the scene's own limit is accepted
  "$exe" -q --burst 1000000 "$tmp/g.ini" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; return 1; }
  grep -q "state hash" "$tmp/out"
}

test_device_indices_do_not_wrap() {
  refused "$scene" "--device 4294967296:0: P and D must be between 0 and 63" -d 4294967296:0 &&
    refused "$scene" "P and D must be between 0 and 63" -d 0:99999999999999999999 &&
    refused "$scene" "--device: expected gpu, cpu or P:D" -d 0:0x &&
    refused "$scene" "--device: expected gpu, cpu or P:D" -d +0:0 &&
    refused "$scene" "--device: expected gpu, cpu or P:D" -d 0:
}

test_devices_list_sub_device_count() {
  gravity_scene
  refused "$tmp/g.ini" "K between 1 and 16" --devices 0:0/99999999999 &&
    ! grep -q 1215752191 "$tmp/err" &&
    refused "$tmp/g.ini" "K between 1 and 16" --devices 0:0/0 &&
    refused "$tmp/g.ini" "P and D must be between 0 and 63" --devices cpu,4294967296:0 &&
    refused "$tmp/g.ini" "got '0:0/2x'" --devices 0:0/2x
}

# One rule for every number an option takes: the number alone, no blanks around it and
# no '+' sign (' 1:2' and '+1:+2' were taken by --trace-steps, '1:2 ' was not).
test_one_number_rule_for_every_option() {
  gravity_scene
  local v
  for v in " 5" "5 " "+5"; do
    refused "$scene" "--steps: expected an integer between 0 and" -n "$v" &&
      refused "$scene" "--checkpoint-every: expected an integer between 1 and" \
        --checkpoint-every "$v" &&
      refused "$scene" "--cpu-threads: expected an integer between 1 and 256" --cpu-threads "$v" &&
      refused "$scene" "--output-every: expected an integer between 1 and" --output-every "$v" &&
      refused "$tmp/g.ini" "--burst: expected an integer between 1 and 1000000" --burst "$v" ||
      return 1
  done
  for v in " 1:2" "1:2 " "+1:+2" "1:+2" "1: 2" "-1:2" "2:1"; do
    refused "$scene" "--trace-steps: expected A:B with 0 <= A < B" --trace "$tmp/t.json" \
      --trace-steps "$v" || return 1
  done
  "$exe" -q -n 3 --trace "$tmp/t.json" --trace-steps 1:2 "$scene" >"$tmp/out" 2>"$tmp/err" &&
    grep -q "state hash" "$tmp/out" || { cat "$tmp/err"; return 1; }
}

check test_steps_range
check test_every_and_checkpoint_every_range
check test_burst_same_limits_as_scene
check test_device_indices_do_not_wrap
check test_devices_list_sub_device_count
check test_one_number_rule_for_every_option
finish
