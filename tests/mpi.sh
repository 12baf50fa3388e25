#!/usr/bin/env bash
# Gravity mode and collision mode's domains over several MPI ranks (mpirun --oversubscribe
# on pocl, one CPU OpenCL device per rank with one pocl thread): 2 and 3 ranks give the
# single process's hash (gravity: with the same kernel variant; collision: on mixed.ini, a
# frictional bed, a drum and an open system, and a frictionless mixture through the
# incremental meeting, whose --output frames are the single process's), checkpoints cross
# between MPI and
# single-process runs, only rank 0 writes, and bad launches (ranks given different scenes,
# a rank without a device, a rank given a bad list of devices) fail on every rank
# with one message and a non-zero exit, within a bounded time; SIGTERM to mpirun ends the
# run with rank 0's report (collision: every rank stops after the same step). Two devices
# per rank (the devices' controller within each rank's range, one of them dropped) keep
# the hash, and a burst that ends non-finite is rerun step by step on every rank alike.
# usage: mpi.sh MIXSIM SOURCE_ROOT MPIRUN [filter]
set -u
exe=$(realpath "$1")
root=$2
mpirun=$3
filter=${4:-}
. "$(dirname "$0")/lib.sh"

# Open MPI refuses root unless told; the tests run as whoever runs meson test.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# One pocl thread per rank: POCL_MAX_PTHREAD_COUNT (pocl 3), POCL_CPU_MAX_CU_NUM (pocl 4+).
export POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_NUM=1
limit=90 # seconds any launch may take before it counts as a hang
# A job that a rank's failure aborts: mpirun (Open MPI 4) signals the ranks left, kills them
# this many seconds later and waits as long again, ranks gone or not (the default, 1, is a
# short grace for a loaded machine's ranks to write their exit codes; 5 cost 10 s a case).
export OMPI_MCA_odls_base_sigkill_timeout=2

# The wrapper mpirun starts: each rank its own pocl kernel cache and working folder
# ($tmp/rank.R, so that outputs named relative to it show who wrote them), rank 1 the
# scene $RANK1_SCENE instead of the one named and the devices $RANK1_DEVICES if set;
# every rank's exit code lands in $tmp/rc.R.
cat >"$tmp/wrap.sh" <<'EOF'
#!/usr/bin/env bash
r=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-0}}
mkdir -p "$TMP/in.$r" && cd "$TMP/in.$r" || exit 99
# (per rank, kept between runs under the test's own cache: two processes never fill one
# cache at once, and the launches after the first compile nothing)
export POCL_CACHE_DIR=${POCL_CACHE_DIR:-$TMP/pocl}/rank.$r
# In an ASan build, no leak check in the ranks: Open MPI's components allocate at MPI_Init
# and are unloaded by MPI_Finalize, so LeakSanitizer reports frames of unknown modules that
# no suppression can name. The same code outside mpirun (the single-process runs here and
# every other test) is checked.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
args=()
for a in "$@"; do
  if [ "$r" = 1 ] && [ -n "${RANK1_SCENE:-}" ] && [ "$a" = "$SCENE" ]; then a=$RANK1_SCENE; fi
  if [ "$r" = 1 ] && [ -n "${RANK1_DEVICES:-}" ] && [ "$a" = "$DEVICES" ]; then a=$RANK1_DEVICES; fi
  args+=("$a")
done
# mixsim runs as a child that the wrapper's signals reach: mpirun signals the process it
# started, and bash, waiting in the foreground, would die of SIGTERM and leave mixsim
# running unsignalled until mpirun's kill.
"${args[@]}" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null' TERM
trap 'kill -INT "$child" 2>/dev/null' INT
wait "$child"
rc=$?
while kill -0 "$child" 2>/dev/null; do # a trapped signal ended the wait, not the child
  wait "$child"
  rc=$?
done
echo "$rc" >"$TMP/rc.$r"
exit "$rc"
EOF
chmod +x "$tmp/wrap.sh"
export TMP=$tmp SCENE=$tmp/p.ini DEVICES=cpu

printf '[simulation]\nmode = gravity\ndt = 0.001\nsteps = 30\nseed = 3\n[gravity]\nbodies = plummer\ncount = 1000\nsoftening = 0.01\nburst = 7\ndiagnostics_every = 10\n' >"$tmp/p.ini"
sed 's/seed = 3/seed = 4/' "$tmp/p.ini" >"$tmp/p4.ini"
sed 's/^\[gravity\]$/[gravity]\nintegrator = taylor/' "$tmp/p.ini" >"$tmp/t.ini"

ranks() { # NP ARGS...: mixsim on NP ranks through the wrapper, stdout+stderr in $tmp/out
  local np=$1
  shift
  rm -rf "$tmp"/in.* "$tmp"/rc.*
  timeout "$limit" "$mpirun" --oversubscribe -np "$np" "$tmp/wrap.sh" "$exe" "$@" >"$tmp/out" 2>&1
}

single() { # ARGS...: one process, report in $tmp/one
  "$exe" -d cpu -q "$@" >"$tmp/one" 2>&1
}

every_rank_failed() { # NP: each rank wrote a non-zero exit code
  local r
  for ((r = 0; r < $1; r++)); do
    [ -s "$tmp/rc.$r" ] && [ "$(cat "$tmp/rc.$r")" != 0 ] || { echo "    rank $r: rc '$(cat "$tmp/rc.$r" 2>/dev/null)'"; return 1; }
  done
}

one_message() { # exactly one line of ours, containing $1
  cat "$tmp/out"
  [ "$(grep -c '^mixsim:' "$tmp/out")" = 1 ] && grep -q "^mixsim: .*$1" "$tmp/out"
}

# References from one process: the hash at step 15 and 30 (leapfrog) and 30 (Taylor), and a
# checkpoint and --output frames with diagnostics to step 15. Every rank runs the same kernel variant (pocl's default).
single -n 15 --checkpoint "$tmp/b.ckpt" --output "$tmp/frames" --diagnostics "$tmp/p.ini" &&
  ref15=$(hash_of "$tmp/one")
single "$tmp/p.ini" && ref30=$(hash_of "$tmp/one")
single "$tmp/t.ini" && ref_taylor=$(hash_of "$tmp/one")
echo "one process: step 15 ${ref15:-?}, step 30 ${ref30:-?}, Taylor ${ref_taylor:-?}"

# 2 ranks to step 15 with every output, named relative to each rank's own folder: the
# single hash, only rank 0's folder has the outputs, the checkpoint, frames and diagnostics
# are the single process's byte for byte; one process resumes the checkpoint.
test_two_ranks_hash_outputs_and_checkpoint_to_single() {
  ranks 2 --devices cpu -q -n 15 --stats s.json --dump d.csv --checkpoint c.ckpt --trace t.json \
    --output frames --diagnostics "$tmp/p.ini" || { cat "$tmp/out"; return 1; }
  echo "    2 ranks, step 15: $(hash_of "$tmp/out") (one process: $ref15)"
  [ -n "$ref15" ] && [ "$(hash_of "$tmp/out")" = "$ref15" ] || return 1
  [ "$(grep -c '^state hash' "$tmp/out")" = 1 ] && grep -q "of which MPI .*(2 ranks" "$tmp/out" || return 1
  ls -R "$tmp/in.0" "$tmp/in.1"
  [ -s "$tmp/in.0/s.json" ] && [ -s "$tmp/in.0/d.csv" ] && [ -s "$tmp/in.0/c.ckpt" ] &&
    [ -s "$tmp/in.0/t.json" ] && [ -s "$tmp/in.0/frames/frames.pvd" ] || return 1
  [ -z "$(ls -A "$tmp/in.1")" ] || return 1
  cmp "$tmp/in.0/c.ckpt" "$tmp/b.ckpt" || return 1
  local f
  for f in "$tmp"/frames/*; do cmp "$f" "$tmp/in.0/frames/${f##*/}" || return 1; done
  python3 - "$tmp/in.0/s.json" "$ref15" <<'EOF2' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["state_hash"] == sys.argv[2] and d["bodies"] == 1000, d
assert len(d["diagnostics"]) == 3 and d["diagnostics"][0]["energy"] < 0, d["diagnostics"]
EOF2
  single --resume "$tmp/in.0/c.ckpt" "$tmp/p.ini" || return 1
  echo "    MPI checkpoint -> one process: $(hash_of "$tmp/one") (uninterrupted: $ref30)"
  [ "$(hash_of "$tmp/one")" = "$ref30" ]
}

# 3 ranks, one device each by their node-local rank, resume one process's checkpoint.
test_three_ranks_local_rank_resume_single_checkpoint() {
  ranks 3 --devices local-rank -q --resume "$tmp/b.ckpt" "$tmp/p.ini" || { cat "$tmp/out"; return 1; }
  echo "    one process's checkpoint -> 3 ranks: $(hash_of "$tmp/out") (uninterrupted: $ref30)"
  [ -n "$ref30" ] && [ "$(hash_of "$tmp/out")" = "$ref30" ]
}

test_three_ranks_taylor() {
  ranks 3 --devices cpu -q "$tmp/t.ini" || { cat "$tmp/out"; return 1; }
  echo "    Taylor, 3 ranks: $(hash_of "$tmp/out") (one process: $ref_taylor)"
  [ -n "$ref_taylor" ] && [ "$(hash_of "$tmp/out")" = "$ref_taylor" ]
}

test_ranks_with_different_scenes_fail_together() {
  RANK1_SCENE=$tmp/p4.ini ranks 2 --devices cpu -q "$tmp/p.ini"
  local rc=$?
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && every_rank_failed 2 &&
    one_message "rank 1's scene or options differ from rank 0's" && [ "$(cat "$tmp/rc.0")" = 2 ]
}

test_rank_that_cannot_read_its_scene() {
  RANK1_SCENE=$tmp/missing.ini ranks 3 --devices cpu -q "$tmp/p.ini"
  local rc=$?
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && every_rank_failed 3 &&
    one_message "rank 1: cannot open scene '$tmp/missing.ini'"
}

test_rank_without_a_device_fails_together() {
  RANK1_DEVICES=9:0 ranks 2 --devices cpu -q "$tmp/p.ini"
  local rc=$?
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && every_rank_failed 2 && one_message "rank 1: .*9:0"
}

# SIGTERM to mpirun alone once rank 0 wrote its first checkpoint CKPT (the kernels are
# built, steps run), on 2 ranks running ARGS...; waits for it (timeout --foreground: plain
# timeout would also signal its whole process group, the ranks included, racing mpirun's
# own shutdown of them). The output is in $tmp/out, each rank's exit code in $tmp/rc.R.
term_after_checkpoint() { # CKPT ARGS...
  local ck=$1 i=0
  shift
  rm -rf "$tmp"/in.* "$tmp"/rc.* "$ck"
  # On SIGTERM mpirun (Open MPI 4) passes it on to the ranks after this many seconds and
  # kills them as many seconds later (default 1: too short a grace on a loaded machine).
  OMPI_MCA_odls_base_sigkill_timeout=5 \
    timeout --foreground "$limit" "$mpirun" --oversubscribe -np 2 "$tmp/wrap.sh" "$exe" "$@" \
    >"$tmp/out" 2>&1 &
  local pid=$!
  while [ ! -s "$ck" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
  kill -TERM "$pid"
  wait "$pid"
}

stat_of() { # JSON KEY: a field of a --stats file
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"
}

# Collision mode's domains over ranks (docs/domains.md): 2 and 3 ranks, and 2 ranks of two
# devices each, give one process's hash on mixed.ini, a frictional bed, a drum of walls and
# an open system; rank 0 alone writes the checkpoint, which one process resumes, and 3
# ranks resume one process's.
collision_hash() { # NAME SCENE STEPS: one process's hash of SCENE into ref_NAME
  "$exe" -d cpu -q -n "$3" --headless "$2" >"$tmp/one" 2>&1
  printf -v "ref_$1" '%s' "$(hash_of "$tmp/one")"
}
collision_hash mixed "$root/scenes/mixed.ini" 100
collision_hash mixedf "$root/tests/scenes/mixed_frictionless.ini" 100
collision_hash mixedf60 "$root/tests/scenes/mixed_frictionless.ini" 60
collision_hash bed "$root/tests/scenes/friction_bed.ini" 150
collision_hash bed60 "$root/tests/scenes/friction_bed.ini" 60
collision_hash bed300 "$root/tests/scenes/friction_bed.ini" 300
collision_hash handover60 "$root/tests/scenes/handover.ini" 60
collision_hash drum "$root/tests/scenes/walls_drum.ini" 150
collision_hash open "$root/tests/scenes/open_flow.ini" 300
echo "one process, collision: mixed $ref_mixed, bed $ref_bed/$ref_bed300, drum $ref_drum, open $ref_open"

test_collision_ranks_keep_the_hash() {
  local np scene want got
  # (mixed_frictionless: the incremental meeting, each give's records sent to their domain's rank)
  for case in "2 mixed scenes/mixed.ini 100" "3 mixedf tests/scenes/mixed_frictionless.ini 100 zone" \
      "3 bed tests/scenes/friction_bed.ini 150" \
      "3 drum tests/scenes/walls_drum.ini 150" "2 open tests/scenes/open_flow.ini 300"; do
    set -- $case
    ranks "$1" --devices cpu -q -n "$4" ${5:+--exchange "$5"} "$root/$3" || { cat "$tmp/out"; return 1; }
    want=ref_$2
    got=$(hash_of "$tmp/out")
    echo "    $3, $1 ranks: $got (one process: ${!want})"
    [ -n "${!want}" ] && [ "$got" = "${!want}" ] && [ "$(grep -c '^state hash' "$tmp/out")" = 1 ] ||
      return 1
  done
  # (past the cut's first balance decision, at step 50: every rank weighs alike)
  ranks 2 --devices cpu,cpu -n 60 --headless "$root/tests/scenes/friction_bed.ini" || { cat "$tmp/out"; return 1; }
  echo "    friction_bed, 2 ranks x 2 devices: $(hash_of "$tmp/out") (one process: $ref_bed60)"
  [ "$(hash_of "$tmp/out")" = "$ref_bed60" ] && grep -q '^domains   4 on all ranks' "$tmp/out" &&
    grep -Eq '^  meeting: .*, shared among the ranks [0-9]+\.[0-9]+ ms/it;' "$tmp/out" || return 1
  # (meeting every 3 iterations: the ranks share records of deeper windows)
  MIXSIM_MEET_EVERY=3 ranks 2 --devices cpu,cpu -n 60 --headless --exchange zone \
    "$root/tests/scenes/mixed_frictionless.ini" || { cat "$tmp/out"; return 1; }
  echo "    mixed_frictionless, 2 ranks x 2 devices meeting every 3: $(hash_of "$tmp/out") (one process: $ref_mixedf60)"
  [ "$(hash_of "$tmp/out")" = "$ref_mixedf60" ] &&
    grep -q '^  incremental meeting: every 3 iteration(s), .* 1 lay(s)' "$tmp/out" || return 1
  # (3 ranks meeting every 5: windows of 60 columns, each give's runs to their ranks alone)
  MIXSIM_MEET_EVERY=5 ranks 3 --devices cpu -n 60 --headless --exchange zone \
    "$root/tests/scenes/mixed_frictionless.ini" || { cat "$tmp/out"; return 1; }
  echo "    mixed_frictionless, 3 ranks meeting every 5: $(hash_of "$tmp/out") (one process: $ref_mixedf60)"
  [ "$(hash_of "$tmp/out")" = "$ref_mixedf60" ] &&
    grep -q '^  incremental meeting: every 5 iteration(s), .* 1 lay(s)' "$tmp/out" || return 1
  # (3 ranks meeting every 3, the large particles handed over every iteration among the ranks:
  # large discs of twenty small radii across the cuts, windows of 16 columns, one lay)
  MIXSIM_MEET_EVERY=3 ranks 3 --devices cpu -n 60 --headless --exchange zone \
    "$root/tests/scenes/handover.ini" || { cat "$tmp/out"; return 1; }
  echo "    handover, 3 ranks meeting every 3: $(hash_of "$tmp/out") (one process: $ref_handover60)"
  [ "$(hash_of "$tmp/out")" = "$ref_handover60" ] &&
    grep -q '^  incremental meeting: every 3 iteration(s), a window of 16 columns.* 1 lay(s)' \
      "$tmp/out" && grep -q '^  large particles handed over every iteration .* 60 hand-overs$' "$tmp/out"
}

# --output over the incremental meeting across ranks: every rank settles the view when rank
# 0 writes a frame (the settle is collective), and the frames, forces and all, are the one
# process's byte for byte (3 ranks meeting every 3, the large particles handed over).
test_collision_incremental_output_over_ranks() {
  local scene=$root/tests/scenes/handover.ini f
  single -n 60 --headless --exchange zone --output "$tmp/hf" --output-every 20 "$scene" ||
    return 1
  MIXSIM_MEET_EVERY=3 ranks 3 --devices cpu -n 60 --headless --exchange zone --output hf \
    --output-every 20 "$scene" || { cat "$tmp/out"; return 1; }
  echo "    handover, 3 ranks meeting every 3 with --output: $(hash_of "$tmp/out")"
  [ "$(hash_of "$tmp/out")" = "$ref_handover60" ] &&
    grep -q '^  incremental meeting: every 3 iteration(s)' "$tmp/out" || return 1
  [ "$(ls "$tmp/hf" | wc -l)" = 6 ] || return 1
  for f in "$tmp"/hf/*; do cmp "$f" "$tmp/in.0/hf/${f##*/}" || return 1; done
}

test_collision_checkpoints_cross_ranks() {
  local scene=$root/tests/scenes/friction_bed.ini
  ranks 2 --devices cpu -q -n 150 --checkpoint c.ck --stats s.json "$scene" || { cat "$tmp/out"; return 1; }
  [ -s "$tmp/in.0/c.ck" ] && [ -s "$tmp/in.0/s.json" ] && [ -z "$(ls -A "$tmp/in.1")" ] || return 1
  cp "$tmp/in.0/c.ck" "$tmp/two.ck"
  "$exe" -d cpu -q -n 300 --headless --resume "$tmp/two.ck" "$scene" >"$tmp/one" 2>&1
  echo "    2 ranks' checkpoint -> one process: $(hash_of "$tmp/one") (uninterrupted: $ref_bed300)"
  [ -n "$ref_bed300" ] && [ "$(hash_of "$tmp/one")" = "$ref_bed300" ] || return 1
  "$exe" -d cpu -q -n 150 --headless --checkpoint "$tmp/one.ck" "$scene" >/dev/null 2>&1 &&
    ranks 3 --devices cpu -q -n 300 --resume "$tmp/one.ck" "$scene" || { cat "$tmp/out"; return 1; }
  echo "    one process's checkpoint -> 3 ranks: $(hash_of "$tmp/out")"
  [ "$(hash_of "$tmp/out")" = "$ref_bed300" ]
}

test_collision_bad_launch_fails_together() {
  RANK1_DEVICES=9:0 ranks 2 --devices cpu -q "$root/tests/scenes/tiny.ini"
  local rc=$?
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && every_rank_failed 2 && one_message "rank 1: .*9:0" || return 1
  RANK1_DEVICES=cpu,,cpu ranks 3 --devices cpu -q "$root/tests/scenes/tiny.ini"
  rc=$?
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && every_rank_failed 3 &&
    one_message "rank 1: --devices 'cpu,,cpu': expected all, or a comma-separated list" &&
    [ "$(cat "$tmp/rc.2")" = 2 ]
}

# A collision blow-up over 2 ranks meeting every 4 iterations: the block fails, every rank
# makes the advance again meeting every iteration, fails with the one process's message,
# and rank 0 writes the same last good state (resumed, the one process's hash).
test_collision_blow_up_fails_together() {
  local scene=$root/tests/scenes/overflow_nan.ini
  single --checkpoint "$tmp/b1.ck" "$scene"
  [ $? = 4 ] || { cat "$tmp/one"; return 1; }
  MIXSIM_MEET_EVERY=4 ranks 2 --devices cpu -q --checkpoint b.ck "$scene"
  local rc=$?
  cat "$tmp/out"
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$(cat "$tmp/rc.0")" = 4 ] && [ "$(cat "$tmp/rc.1")" = 4 ] ||
    return 1
  [ "$(grep 'non-finite' "$tmp/out" | sort -u)" = "$(grep 'non-finite' "$tmp/one")" ] &&
    grep -q "^mixsim: the last good state (step 14) is in 'b.ck'" "$tmp/out" &&
    [ ! -e "$tmp/in.1/b.ck" ] || return 1
  "$exe" -d cpu -q -n 14 --headless --resume "$tmp/in.0/b.ck" "$scene" >"$tmp/r0" 2>&1
  "$exe" -d cpu -q -n 14 --headless --resume "$tmp/b1.ck" "$scene" >"$tmp/r1" 2>&1
  echo "    rank 0's last good state: $(hash_of "$tmp/r0"), one process's: $(hash_of "$tmp/r1")"
  [ -n "$(hash_of "$tmp/r1")" ] && [ "$(hash_of "$tmp/r0")" = "$(hash_of "$tmp/r1")" ]
}

# SIGTERM to mpirun during a collision run: every rank stops after the same iteration, rank
# 0 writes the checkpoint of that step, which resumes to the hash its stats name.
test_collision_sigterm_stops_every_rank() {
  term_after_checkpoint "$tmp/cs.ck" --devices cpu -q -n 100000000 --checkpoint "$tmp/cs.ck" \
    --checkpoint-every 20 --stats "$tmp/cstop.json" "$root/tests/scenes/friction_bed.ini"
  echo "    exit codes: $(cat "$tmp"/rc.* 2>/dev/null | tr '\n' ' ')"
  [ "$(cat "$tmp/rc.0" 2>/dev/null)" = 143 ] && [ "$(cat "$tmp/rc.1" 2>/dev/null)" = 143 ] || return 1
  local step hash
  step=$(stat_of "$tmp/cstop.json" step) && hash=$(stat_of "$tmp/cstop.json" state_hash) || return 1
  "$exe" -d cpu -q --headless --resume "$tmp/cs.ck" -n "$step" "$root/tests/scenes/friction_bed.ini" >"$tmp/r" 2>&1
  echo "    stopped at step $step ($hash), checkpoint: $(grep '^state hash' "$tmp/r")"
  [ "$step" -gt 0 ] && grep -q "^state hash $hash (step $step)" "$tmp/r"
}

# One file for two outputs (here --trace a spelling of the checkpoint's path) under mpirun:
# rank 0, which writes every output, refuses it before the run; every rank fails with it.
test_one_file_for_two_outputs_refused_on_every_rank() {
  ranks 2 --devices cpu -q --checkpoint c.ckpt --trace ./c.ckpt "$tmp/p.ini"
  local rc=$?
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && every_rank_failed 2 &&
    one_message "--trace: './c.ckpt' is also the --checkpoint file ('c.ckpt')" &&
    [ "$(cat "$tmp/rc.0")" = 2 ] && [ ! -e "$tmp/in.0/c.ckpt" ]
}

# SIGTERM to mpirun alone.
test_sigterm_to_mpirun_reports() {
  rm -f "$tmp/stop.json"
  term_after_checkpoint "$tmp/s.ckpt" --devices cpu -q -n 100000000 --checkpoint "$tmp/s.ckpt" \
    --checkpoint-every 50 --stats "$tmp/stop.json" "$tmp/p.ini"
  cat "$tmp/out"
  # What rank 0 writes to files, not its stdout: mpirun, once signalled, may drop what
  # the ranks print while it shuts down (seen here under load: an empty output). Every
  # rank exits 143; rank 0's stats are the stopped step's, and its checkpoint that step's.
  echo "    exit codes: $(cat "$tmp"/rc.* 2>/dev/null | tr '\n' ' ')"
  [ "$(cat "$tmp/rc.0" 2>/dev/null)" = 143 ] && [ "$(cat "$tmp/rc.1" 2>/dev/null)" = 143 ] &&
    [ -s "$tmp/s.ckpt" ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
assert d['step'] > 0 and d['state_hash'], d" "$tmp/stop.json" || return 1
  local step
  step=$(stat_of "$tmp/stop.json" step)
  # rank 0's stop line, where mpirun passed it on, names the step as a single process's does
  if grep -q "stopped by signal" "$tmp/out"; then
    grep -q "^mixsim: stopped by signal 15 at step $step; checkpoint written$" "$tmp/out" || return 1
  fi
  "$exe" --devices cpu -q --resume "$tmp/s.ckpt" -n "$step" "$tmp/p.ini" >"$tmp/r" 2>&1
  echo "    stats $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['step'], d['state_hash'])" "$tmp/stop.json"), checkpoint: $(grep '^state hash' "$tmp/r")"
  grep -q "^state hash $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['state_hash'], '(step', d['step'])" "$tmp/stop.json")" "$tmp/r"
}

# Two devices per rank: the devices' controller works within each rank's range (its
# first split, its moves), also once it is down to one device there (MIXSIM_GRAVITY_SLOW
# makes each rank's second device slow): that rank still exchanges with the others.
# (100000 times slow: at 1000 times, a sanitizer build's fixed costs per step made the
# model keep a few bodies there.) The controller drops it (rank 0's balance log); at
# the end it holds nothing, or only its probe of one granule (64 bodies): a busy machine
# can move the step time enough for the controller to measure the dropped device again.
test_two_devices_per_rank_keep_the_hash() {
  ranks 2 --devices cpu,cpu -q "$tmp/p.ini" || { cat "$tmp/out"; return 1; }
  echo "    2 ranks x 2 devices: $(hash_of "$tmp/out") (one process: $ref30)"
  [ -n "$ref30" ] && [ "$(hash_of "$tmp/out")" = "$ref30" ] || return 1
  MIXSIM_BALANCE_LOG=1 MIXSIM_GRAVITY_SLOW=1:100000 ranks 3 --devices cpu,cpu "$tmp/p.ini" ||
    { cat "$tmp/out"; return 1; }
  grep '^device\|^state hash' "$tmp/out"
  echo "    3 ranks x 2 devices, one dropped: $(hash_of "$tmp/out")"
  [ "$(hash_of "$tmp/out")" = "$ref30" ] || return 1
  local drops slow
  # the second device's share in each decision, as "from->to ("
  drops=$(grep '^mixsim: balance: ' "$tmp/out" | while read -r line; do
    grep -o ' [0-9]*->[0-9]* (' <<<"$line" | sed -n 2p
  done | grep -c -- ' [1-9][0-9]*->0 (')
  slow=$(grep '^device ' "$tmp/out" | sed -n 2p)
  echo "    decisions dropping the slow device: $drops; at the end: ${slow##*kernel soa8, }"
  [ "$drops" -ge 1 ] || return 1
  case $slow in
  *"no bodies"*) return 0 ;;
  *" bodies "*..*) ;;
  *) return 1 ;;
  esac
  local range=${slow#* bodies } first last
  range=${range%% *}
  first=${range%..*}
  last=${range#*..}
  [ $((last - first + 1)) -le 64 ]
}

# A body flies off to infinity at step 4 (x += 1e38 a step) inside a burst of 40: every
# rank holds the whole state, finds it at the burst's end, reruns the burst from its start
# one step at a time in lockstep (through the ranks' rebalances at steps 2 and 4) and names
# step 4 as one process does; rank 0 writes the same last good state.
test_nonfinite_burst_rerun_on_every_rank() {
  python3 -c "
print('0,0,0,1e30,0,0,1')
for i in range(399): print(f'{10 + i % 20},{10 + i // 20},0,0,0,0,1')" >"$tmp/fast.csv"
  printf '[simulation]\nmode = gravity\ndt = 1e8\nsteps = 40\n[gravity]\nbodies = file\nfile = fast.csv\nsoftening = 0.1\ndt_check = off\nburst = 50\n' >"$tmp/fast.ini"
  single --checkpoint "$tmp/f1.ck" "$tmp/fast.ini"
  [ $? = 4 ] && grep -q "no longer finite at step 4 " "$tmp/one" || { cat "$tmp/one"; return 1; }
  ranks 2 --devices cpu,cpu -q --checkpoint f.ck "$tmp/fast.ini"
  local rc=$?
  cat "$tmp/out"
  [ $rc = 4 ] && [ "$(cat "$tmp/rc.0")" = 4 ] && [ "$(cat "$tmp/rc.1")" = 4 ] || return 1
  [ "$(grep -c '^mixsim:' "$tmp/out")" = 2 ] &&
    [ "$(grep 'no longer finite' "$tmp/out")" = "$(grep 'no longer finite' "$tmp/one")" ] &&
    grep -q "^mixsim: the last good state (step 3) is in 'f.ck'" "$tmp/out" &&
    cmp "$tmp/in.0/f.ck" "$tmp/f1.ck" && [ ! -e "$tmp/in.1/f.ck" ]
}

check test_two_ranks_hash_outputs_and_checkpoint_to_single
check test_two_devices_per_rank_keep_the_hash
check test_nonfinite_burst_rerun_on_every_rank
check test_three_ranks_local_rank_resume_single_checkpoint
check test_three_ranks_taylor
check test_ranks_with_different_scenes_fail_together
check test_rank_that_cannot_read_its_scene
check test_rank_without_a_device_fails_together
check test_collision_ranks_keep_the_hash
check test_collision_incremental_output_over_ranks
check test_collision_checkpoints_cross_ranks
check test_collision_bad_launch_fails_together
check test_collision_blow_up_fails_together
check test_collision_sigterm_stops_every_rank
check test_one_file_for_two_outputs_refused_on_every_rank
check test_sigterm_to_mpirun_reports
finish
