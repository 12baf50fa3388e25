#!/usr/bin/env bash
# The device-only baseline, --large-on device (collision/device_only/device_large.h, kernels/large.cl):
# the same state hash as the CPU worker's on the shipped scenes, with every pipeline and
# buffer mode and pocl on 1 or 2 threads; through a large cell list that outgrows its
# first capacity; the same failure (exit 4, step, message, last good state); checkpoints
# written and resumed under either; the key, the report and the JSON; with friction on
# (kernels/large_friction.cl) the worker's hash too, through checkpoints, and auto timing
# the device.
# usage: large_on.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$(realpath "$1")
root=$(realpath "$2")
filter=${3:-}
. "$(dirname "$0")/lib.sh"

# Runs the scene $1 for $2 steps with the rest of the arguments; prints the hash.
# The CPU worker's hash, then the device's under each combination given as one word of
# comma-separated options (POCL=N sets pocl's thread count): all must be equal.
same_as_cpu() {
  local scene=$1 steps=$2
  shift 2
  local want got combo
  want=$(hash_run "$scene" "$steps" --large-on cpu) || return 1
  echo "    cpu $want"
  [ -n "$want" ] || return 1
  for combo in "$@"; do
    local args=() pocl=
    IFS=, read -ra parts <<<"$combo"
    for p in "${parts[@]}"; do
      case $p in POCL=*) pocl=${p#POCL=} ;; *) args+=("$p") ;; esac
    done
    if [ -n "$pocl" ]; then
      got=$(POCL_MAX_PTHREAD_COUNT=$pocl hash_run "$scene" "$steps" --large-on device "${args[@]}")
    else
      got=$(hash_run "$scene" "$steps" --large-on device "${args[@]}")
    fi
    echo "    device $combo: $got"
    [ "$got" = "$want" ] || return 1
  done
}

test_mixed_2000_steps() {
  local got
  got=$(hash_run "$root/tests/scenes/mixed_frictionless.ini" 2000 --large-on device) || return 1
  echo "    device: $got (the CPU worker's is 4fe41352)"
  [ "$got" = 4fe41352 ]
}

test_many_large_matrix() {
  same_as_cpu "$root/tests/scenes/many_large.ini" 500 "-p,reordered,-b,shared,POCL=1" \
    "-p,naive,-b,copied,--exchange,zone,POCL=2"
}

test_squeeze_matrix() {
  same_as_cpu "$root/tests/scenes/squeeze.ini" 500 "-p,reordered,-b,shared,POCL=1" \
    "-p,reordered,-b,copied,POCL=2" "-p,naive,-b,shared,POCL=2" "-p,naive,-b,copied,POCL=1"
}

# A 3 x 3 block of touching large discs hardly larger than the small ones: each covers
# about three cells per axis, so a cell under the block is in up to nine particles'
# rectangles, past the list's first capacity (4).
crowd_scene() {
  cat >"$tmp/crowd.ini" <<'INI'
[simulation]
dt = 1.5e-5
gravity = 0, -9.81
[box]
min = 0, 0
max = 0.1, 0.1
[material]
stiffness = 2500
restitution = 0.5
[small]
count = 100
radius = 0.002
density = 25
placement = lattice
region = 0, 0, 0.1, 0.02
spacing = 1.0
INI
  local i j
  for i in 0 1 2; do
    for j in 0 1 2; do
      awk -v i="$i" -v j="$j" 'BEGIN { printf "[large.b%d%d]\nposition = %.4f, %.4f\n" \
        "radius = 0.0021\ndensity = 25\nvelocity = %.1f, 0\n", i, j, 0.04 + 0.0042 * i,
        0.04 + 0.0042 * j, 0.1 * (i - 1) }' >>"$tmp/crowd.ini"
    done
  done
}

test_cell_list_overflow_grows_same_hash() {
  crowd_scene
  "$exe" -q -n 400 --large-on device --stats "$tmp/crowd.json" "$tmp/crowd.ini" >"$tmp/dev" ||
    return 1
  "$exe" -q -n 400 --large-on cpu "$tmp/crowd.ini" >"$tmp/cpu" || return 1
  local a b
  a=$(hash_of "$tmp/cpu")
  b=$(hash_of "$tmp/dev")
  echo "    cpu $a, device $b"
  [ -n "$a" ] && [ "$a" = "$b" ] || return 1
  python3 -c "import json,sys; l=json.load(open(sys.argv[1]))['large_list']; print('   ', l); \
assert l['growths'] >= 1 and l['capacity'] > 4" "$tmp/crowd.json"
}

# Hundreds of large discs in contact at once, periodic in x, with a wall and static pegs,
# with friction and without: each disc's large-large terms (and contact histories) in the
# worker sweep's order, both when the device holds a disc's partners and when it scans for
# them in several passes (MS_LL_HELD set to 1 in a copy of the kernels: a pass per partner),
# and with the cell list built by several work-items per particle, as on a GPU.
test_large_pile_same_as_cpu() {
  local scene=$root/tests/scenes/large_pile.ini plain=$tmp/large_pile_frictionless.ini
  grep -v friction "$scene" >"$plain"
  same_as_cpu "$scene" 600 "-p,reordered,-b,shared,POCL=2" "-p,naive,-b,copied,POCL=1" || return 1
  same_as_cpu "$plain" 600 "-p,reordered,-b,shared" || return 1
  MIXSIM_DL_WIDTH=5 same_as_cpu "$scene" 600 "-p,reordered" || return 1
  rm -rf "$tmp/kernels"
  cp -r "$root/kernels" "$tmp/kernels"
  sed -i 's/^#define MS_LL_HELD [0-9]*$/#define MS_LL_HELD 1/' "$tmp/kernels/large.cl"
  grep -q '^#define MS_LL_HELD 1$' "$tmp/kernels/large.cl" || return 1
  # The worker's path does not run large.cl: its hash comes from the embedded kernels, and
  # only the device's runs compile the changed copy.
  held_one "$scene" && held_one "$plain"
}

# The device's hash with MS_LL_HELD cut to 1 (kernels in $tmp/kernels) against the worker's.
held_one() {
  local want got
  want=$(hash_run "$1" 600 --large-on cpu) || return 1
  got=$(MIXSIM_KERNEL_DIR=$tmp/kernels hash_run "$1" 600 --large-on device -p reordered) || return 1
  echo "    cpu $want, device with one partner held per pass $got"
  [ -n "$want" ] && [ "$got" = "$want" ]
}

# A box periodic both ways whose period holds a single large-large cell (a disc nearly half
# the period across): the 3 x 3 cells round a disc are one cell nine times, each partner
# taken once.
test_one_cell_period_same_as_cpu() {
  cat >"$tmp/tight.ini" <<'INI'
[simulation]
dt = 1.5e-5
seed = 5
gravity = 3, -5
[box]
min = 0, 0
max = 0.2, 0.2
periodic = xy
[material]
stiffness = 2500
restitution = 0.5
friction = 0.4
rolling_friction = 0.02
[small]
count = 60
radius = 0.002
density = 25
placement = lattice
region = 0, 0, 0.2, 0.01
[large_random.big]
count = 1
radius_min = 0.085
radius_max = 0.09
region = 0, 0, 0.2, 0.2
density = 25
velocity_spread = 2
[large_random.grains]
count = 30
radius_min = 0.005
radius_max = 0.01
region = 0, 0, 0.2, 0.2
density = 25
velocity_spread = 3
INI
  grep -v friction "$tmp/tight.ini" >"$tmp/tight_plain.ini"
  same_as_cpu "$tmp/tight.ini" 1500 "-p,reordered" || return 1
  same_as_cpu "$tmp/tight_plain.ini" 1500 "-p,naive"
}

# exit 4 at the same step with the same message, and the same last good state.
test_failure_same_as_cpu() {
  local scene w
  for scene in exploding exploding_group; do
    for w in cpu device; do
      (cd "$tmp" && "$exe" -q --large-on "$w" --checkpoint "$tmp/$w.ck" \
        "$root/tests/scenes/$scene.ini" >/dev/null 2>"$tmp/$w.err")
      echo $? >"$tmp/$w.rc"
    done
    head -2 "$tmp/device.err"
    [ "$(cat "$tmp/device.rc")" = 4 ] && [ "$(cat "$tmp/cpu.rc")" = 4 ] || return 1
    grep -q "step [0-9]*: large particle .* moves faster than max_speed" "$tmp/device.err" ||
      return 1
    sed "s/cpu\.ck/X/" "$tmp/cpu.err" >"$tmp/cpu.e2"
    sed "s/device\.ck/X/" "$tmp/device.err" >"$tmp/device.e2"
    cmp -s "$tmp/cpu.e2" "$tmp/device.e2" || { diff "$tmp/cpu.e2" "$tmp/device.e2"; return 1; }
    cmp -s "$tmp/cpu.ck" "$tmp/device.ck" || { echo "    last good states differ"; return 1; }
  done
}

test_checkpoint_resume() {
  local scene=$root/tests/scenes/squeeze.ini a b c
  a=$(hash_run "$scene" 300 --large-on cpu) || return 1
  "$exe" -q -n 120 --large-on device --checkpoint "$tmp/d.ck" "$scene" >/dev/null || return 1
  b=$(hash_run "$scene" 300 --large-on device --resume "$tmp/d.ck") || return 1
  "$exe" -q -n 120 --large-on cpu --checkpoint "$tmp/c.ck" "$scene" >/dev/null || return 1
  c=$(hash_run "$scene" 300 --large-on device -p naive --resume "$tmp/c.ck") || return 1
  echo "    straight $a, device->device $b, cpu->device $c"
  [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" = "$c" ]
}

# The key, the option over the key, the run line, the JSON and the kernel table.
test_key_report_and_json() {
  local scene=$root/tests/scenes/squeeze.ini
  sed 's/^steps = 150/steps = 150\nlarge_on = device/' "$scene" >"$tmp/k.ini"
  "$exe" -n 5 --stats "$tmp/k.json" "$tmp/k.ini" >"$tmp/out" 2>/dev/null || return 1
  "$exe" -n 5 --large-on cpu --stats "$tmp/o.json" "$tmp/k.ini" >/dev/null 2>&1 || return 1
  "$exe" -n 5 --stats "$tmp/d.json" "$scene" >/dev/null 2>&1 || return 1
  grep -q "^run .*, large on device, pipeline" "$tmp/out" || return 1
  local k
  for k in large_list_insert large_small_react large_small_apply large_large large_walls \
    integrate_large; do
    grep -q "^    $k  *[0-9.]* ms/it" "$tmp/out" || return 1
  done
  python3 -c "import json,sys; k, o, d = (json.load(open(p)) for p in sys.argv[1:]); \
r = (k['large_on'], o['large_on'], d['large_on']); assert r == ('device', 'cpu', 'cpu'), r; \
assert k['kernels']['large_small_apply']['total_s'] > 0 and k['large_list']['builds'] > 0" \
    "$tmp/k.json" "$tmp/o.json" "$tmp/d.json"
}

test_bad_key_names_file_line() {
  printf '[simulation]\ndt = 1e-4\nlarge_on = gpu\n' >"$tmp/b.ini"
  "$exe" -q -n 1 "$tmp/b.ini" >/dev/null 2>"$tmp/err"
  local rc=$?
  cat "$tmp/err"
  [ $rc -eq 2 ] && grep -q "b.ini:3: .*large_on.*expected cpu, device or auto, got 'gpu'" "$tmp/err"
}

test_gravity_refuses_large_on() {
  "$exe" -q -n 1 --large-on device "$root/tests/scenes/bodies.ini" >/dev/null 2>"$tmp/err"
  local rc=$?
  cat "$tmp/err"
  [ $rc -eq 2 ] && grep -q "^mixsim: --large-on: expected a scene with mode = collision" "$tmp/err"
}

# A scene with friction: tiny.ini with [material] friction (and a rolling and wall
# friction), large_on given by $1 ("" for none).
friction_scene() {
  sed -e 's/^restitution = 0.5$/restitution = 0.5\nfriction = 0.4\nrolling_friction = 0.01\nwall_friction = 0.3/' \
    -e "s/^seed = 7\$/seed = 7${1:+\\nlarge_on = $1}/" "$root/tests/scenes/tiny.ini" >"$tmp/f.ini"
}

# With friction on, the device-only path gives the CPU worker's hash: the key and the
# option; a frictional pour (peg, rocks, walls) on both of the worker's pipelines against
# the device on 1 and 2 pocl threads; a bed of pegs and rocks (large-small,
# large-large, walls) the same way.
test_friction_device_same_as_cpu() {
  friction_scene device
  local key opt cpu
  key=$(hash_run "$tmp/f.ini" 400) || return 1
  friction_scene ""
  opt=$(hash_run "$tmp/f.ini" 400 --large-on device) || return 1
  cpu=$(hash_run "$tmp/f.ini" 400 --large-on cpu) || return 1
  echo "    tiny with friction: key $key, option $opt, cpu $cpu"
  [ -n "$cpu" ] && [ "$key" = "$cpu" ] && [ "$opt" = "$cpu" ] || return 1
  local naive
  naive=$(hash_run "$root/tests/scenes/friction_pour.ini" 1000 --large-on cpu -p naive) || return 1
  echo "    pour: cpu naive $naive"
  same_as_cpu "$root/tests/scenes/friction_pour.ini" 1000 "-p,reordered,POCL=1" "-p,naive,POCL=2" || return 1
  [ "$(hash_run "$root/tests/scenes/friction_pour.ini" 1000 --large-on device)" = "$naive" ] || return 1
  same_as_cpu "$root/tests/scenes/friction_bed.ini" 250 "POCL=1" "-b,copied,POCL=2"
}

# With friction on, checkpoints carry the rotation and the histories across the two
# paths: written on the device and resumed there or on the worker, written on the worker
# and resumed on the device, each the uninterrupted run's hash.
test_friction_checkpoint_resume() {
  local scene=$root/tests/scenes/friction_bed.ini a b c d
  a=$(hash_run "$scene" 240 --large-on cpu) || return 1
  "$exe" -q -n 120 --large-on device --checkpoint "$tmp/fd.ck" "$scene" >/dev/null || return 1
  b=$(hash_run "$scene" 240 --large-on device --resume "$tmp/fd.ck") || return 1
  c=$(hash_run "$scene" 240 --large-on cpu --resume "$tmp/fd.ck") || return 1
  "$exe" -q -n 120 --large-on cpu --checkpoint "$tmp/fc.ck" "$scene" >/dev/null || return 1
  d=$(hash_run "$scene" 240 --large-on device -p naive --resume "$tmp/fc.ck") || return 1
  echo "    straight $a, device->device $b, device->cpu $c, cpu->device $d"
  [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" = "$c" ] && [ "$a" = "$d" ]
}

# With friction on, large_on = auto (key or option) times the CPU worker and the device.
test_friction_auto_times_device() {
  friction_scene auto
  "$exe" -n 1000 "$tmp/f.ini" >"$tmp/out" 2>&1 || return 1
  grep "^auto" "$tmp/out"
  # each candidate: its median (range[, dropped after round R]), or its cut warm-up's figure
  local n='[0-9.e+-]*' why='\(([0-9.e+-]*(, dropped after round [1-3])?|cut in its warm-up)\)'
  grep -Eq "^auto      large_on cpu $n ms/it $why, device $n $why -> " "$tmp/out" || return 1
  friction_scene ""
  "$exe" -n 1000 --large-on auto "$tmp/f.ini" >"$tmp/out2" 2>&1 || return 1
  grep -Eq "^auto      large_on cpu $n ms/it $why, device $n $why -> " "$tmp/out2" || return 1
  [ "$(hash_of "$tmp/out")" = "$(hash_of "$tmp/out2")" ]
}

check test_mixed_2000_steps
check test_many_large_matrix
check test_squeeze_matrix
check test_cell_list_overflow_grows_same_hash
# MIXSIM_DL_WIDTH, the list's work-items per large particle, refuses what is not 1..1024.
test_dl_width_refused() {
  local v rc
  for v in abc 0 1025; do
    MIXSIM_DL_WIDTH=$v "$exe" -q -n 2 --large-on device "$root/tests/scenes/tiny.ini" \
      >/dev/null 2>"$tmp/err"
    rc=$?
    head -1 "$tmp/err"
    [ $rc -eq 2 ] && grep -q "^mixsim: MIXSIM_DL_WIDTH: .*1024.*$v" "$tmp/err" || return 1
  done
}

check test_large_pile_same_as_cpu
check test_dl_width_refused
check test_one_cell_period_same_as_cpu
check test_failure_same_as_cpu
check test_checkpoint_resume
check test_key_report_and_json
check test_bad_key_names_file_line
check test_gravity_refuses_large_on
check test_friction_device_same_as_cpu
check test_friction_checkpoint_resume
check test_friction_auto_times_device
finish
