#!/usr/bin/env bash
# Scale: a million large particles load and run (the first sweep order is sorted in
# linear time, not by an insertion sort from the scene's order, which took minutes),
# the same on both pipelines; a grid of more than 2^31 slots is refused naming the
# buffer, its size and the device's limit, not wrapped or crashed.
# usage: large_scale.sh MIXSIM SOURCE_ROOT
set -u
exe=$(realpath "$1")
root=$2
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1

test_million_large_particles_run() {
  cat >million.ini <<'INI'
; 1,000,000 large discs (radius 1-2 cm) scattered over a 200 m x 20 m box, no small ones.
[simulation]
dt = 1e-5
steps = 3
seed = 5
[box]
min = 0, 0
max = 200, 20
[material]
stiffness = 1e5
restitution = 0.5
[small]
count = 0
[large_random.scatter]
count = 1000000
radius_min = 0.01
radius_max = 0.02
region = 0, 0, 200, 20
INI
  local p
  for p in reordered naive; do
    # A bound far above the run's few seconds; the quadratic first sort took minutes.
    timeout -s KILL 150 "$exe" -q -p $p million.ini >"out.$p" 2>err
    local rc=$?
    cat err
    [ $rc -eq 0 ] || { echo "    $p: exit $rc"; return 1; }
    grep -q "0 small + 1000000 large" "out.$p" && grep -q "(step 3)" "out.$p" || return 1
  done
  echo "    reordered $(hash_of out.reordered), naive $(hash_of out.naive)"
  [ -n "$(hash_of out.reordered)" ] && [ "$(hash_of out.reordered)" = "$(hash_of out.naive)" ]
}

test_grid_beyond_2_31_slots_refused() {
  # About 10^8 cells (1 cm cells over 100 m x 100 m) x 4096 slots: 4.1e11 slots, 1.6 TB.
  cat >huge.ini <<'INI'
[simulation]
dt = 1e-5
[box]
min = 0, 0
max = 100, 100
[material]
stiffness = 1e4
restitution = 0.5
[grid]
capacity = 4096
[small]
count = 1
radius = 0.005
region = 0, 0, 1, 1
INI
  "$exe" -q -n 1 huge.ini >/dev/null 2>err
  local rc=$?
  cat err
  [ $rc -eq 1 ] && grep -q "buffer 'grid index' needs 16[0-9]\{11\} bytes" err &&
    grep -q "(1000[0-9]\{5\} cells x 4096 slots x 4)" err && grep -q "CL_DEVICE_MAX_MEM_ALLOC_SIZE" err
}

check test_million_large_particles_run
check test_grid_beyond_2_31_slots_refused
finish
