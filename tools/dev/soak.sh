#!/usr/bin/env bash
# The long repetition CI has no time for: run it before you touch the pipeline's threads
# (the syncs, the worker pool, the writer, signals) and say in the change that it passed.
#   tools/dev/soak.sh [ROUNDS]   (default 20)
# 1. ThreadSanitizer: the threaded suites, ROUNDS rounds of the two-thread pipeline
#    ('determinism') and ROUNDS/5 (at least 3) of the others, whose races show only now and
#    then (through tools/dev/sanitize.sh's build, on the plain suite's kernel caches).
# 2. The plain build: the suites whose runs are stopped or fail at a moment a clock picks
#    ('checkpoint': SIGINT/SIGTERM, stops, the failure path), ROUNDS/5 rounds (at least 3).
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-20}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "usage: tools/dev/soak.sh [ROUNDS]" >&2; exit 2; }
few=$((rounds / 5 > 3 ? rounds / 5 : 3))
plain=${MIXSIM_BUILD_DIR:-build}
[ -f "$plain/build.ninja" ] || tools/test.sh # the plain build and its kernel caches
SANITIZE_ALL=1 SANITIZE_ONLY=tsan TSAN_REPEAT=$few tools/dev/sanitize.sh
if [ "$rounds" -gt "$few" ]; then
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tools/dev/tsan.supp" \
    meson test -C build-tsan --print-errorlogs --suite determinism --repeat $((rounds - few))
fi
meson test -C "$plain" --print-errorlogs --suite checkpoint --repeat "$few"
echo "tools/dev/soak.sh: $rounds ThreadSanitizer rounds of the pipeline, $few of every threaded suite and of the checkpoint suite clean"
