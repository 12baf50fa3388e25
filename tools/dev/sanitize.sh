#!/usr/bin/env bash
# Runs the test suite built with AddressSanitizer + UndefinedBehaviorSanitizer, and the
# two-thread pipeline tests built with ThreadSanitizer, repeated. Both must be clean.
# Suppressions (tools/dev/lsan.supp, tools/dev/tsan.supp) cover only the OpenCL runtime's
# own libraries.
set -euo pipefail
cd "$(dirname "$0")/../.."
repeat=${TSAN_REPEAT:-20}

# The kernel caches. On a cold cache pocl compiles inside the test's process, and then
# LeakSanitizer's exit-time tracer crashes on pocl's compiler threads and TSan reports
# races in LLVM's C++ runtime that it cannot attribute. pocl's cache key is the kernel
# source, its build options and the device, not the program that asks, so the caches the
# plain suite filled (tools/test.sh, which .ci/run runs first) serve the sanitizer builds
# too: pointed at them (-Dpocl_cache), they start warm and compile nothing, and one ASan
# pass with leak checking and no TSan warm-up pass suffice. Each test keeps its own folder
# there (tests/meson.build: pocl 3.1 races when two processes fill one cache at once); the
# builds sharing them run their suites one after the other, never at once.
# MIXSIM_POCL_CACHE names them where the plain build was set up with its own -Dpocl_cache.
plain=${MIXSIM_BUILD_DIR:-build}
[[ $plain = /* ]] || plain=$PWD/$plain
cache=${MIXSIM_POCL_CACHE:-$plain/tests/pocl-cache}
# Without them (this script run on its own), the sanitizer builds share caches of their
# own, which an ASan pass without leak checking fills first (it runs every test that the
# TSan runs below run); SANITIZE_WARMUP=1 forces that pass.
warmup=${SANITIZE_WARMUP:-0}
if [ ! -d "$cache" ]; then
  echo "tools/dev/sanitize.sh: no kernel caches in $cache (tools/test.sh fills them); warming up build-pocl-cache"
  cache=$PWD/build-pocl-cache
  warmup=1
  mkdir -p "$cache"
fi
# What pocl compiled: its program.bc and .so files. Not counted: the empty tempfile_* that
# pocl 3.1 leaves at the top of a cache for every program it builds, cached or not, and the
# build.log of a failed build (cli and gravity-cli build broken kernels on purpose, from a
# temporary folder, so in every run; a front end's error leaves LSan and TSan quiet).
cache_state() { find "$cache" -type f \( -name program.bc -o -name '*.so' \) | sort | md5sum; }
# A kernel compiled by a sanitized run would mean a test that the plain suite does not run
# alike: said, so that a crash in LeakSanitizer or an unattributed race has its reason.
check_cache() { # STATE-BEFORE WHAT
  [ "$(cache_state)" = "$1" ] ||
    echo "tools/dev/sanitize.sh: note: the $2 run compiled kernels the plain suite had not ($cache grew)"
}

sanitized_build() { # DIR SANITIZERS: configures (once) and builds, on the shared caches
  if [ -f "$1/build.ninja" ]; then
    meson configure "$1" -Dpocl_cache="$cache"
  else
    meson setup "$1" -Db_sanitize="$2" -Db_lundef=false -Dsdl=disabled \
      -Dbuildtype=debugoptimized -Dpocl_cache="$cache"
  fi
  meson compile -C "$1"
}

sanitized_build build-asan address,undefined
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
if [ "$warmup" = 1 ]; then
  ASAN_OPTIONS=detect_leaks=0 meson test -C build-asan >/dev/null || true
fi
before=$(cache_state)
ASAN_OPTIONS=detect_leaks=1 \
  LSAN_OPTIONS="suppressions=$PWD/tools/dev/lsan.supp" meson test -C build-asan --print-errorlogs
check_cache "$before" ASan

sanitized_build build-tsan thread
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tools/dev/tsan.supp"
before=$(cache_state)
# The two-thread pipeline tests, 20 rounds: their races show only now and then. Except
# 'determinism-long', large-on-cli: the device-side large particles (--large-on device) on
# the shipped scenes over every pipeline, buffer mode and pocl thread count, ~75 s a round
# under TSan: half of the 20 rounds' time, on a path where the manager runs alone, with no
# worker thread and no syncs (collision/pipeline.c), whose CPU-worker reference runs the
# other tests repeat. The API's switches between the two paths ('large-on') and
# device-friction stay in the 20. It runs 3 rounds, with the suites below.
meson test -C build-tsan --print-errorlogs --suite determinism --no-suite determinism-long \
  --repeat "$repeat"
# A few rounds each: the CPU worker pool's thread-count matrices (~20 s each under TSan);
# friction's one-hash matrix (pipelines, buffers, exchanges, worker and pocl threads: the
# pool and the pipeline's threads on the friction paths; the other friction tests repeat
# what the determinism suite already runs, on one more kind of contact); the 'threads'
# suite, the CPU worker's list (its rebuild flags cross the two threads at the syncs),
# --trace (every thread records) and --diagnostics, a minute or two each; large-on-cli.
# Suites with one count run in one meson test, so that its two test slots stay busy to
# the end rather than idling at the tail of each suite's own run.
declare -A rounds=()
for s in "pool-threads ${TSAN_POOL_REPEAT:-3}" "friction-threads ${TSAN_FRICTION_REPEAT:-3}" \
  "threads ${TSAN_THREADS_REPEAT:-3}" "determinism-long ${TSAN_LONG_REPEAT:-3}"; do
  rounds[${s#* }]+=" --suite ${s% *}"
done
for n in "${!rounds[@]}"; do
  # shellcheck disable=SC2086 # the --suite words split on purpose
  meson test -C build-tsan --print-errorlogs ${rounds[$n]} --repeat "$n"
done
check_cache "$before" TSan
echo "tools/dev/sanitize.sh: ASan+UBSan suite, $repeat ThreadSanitizer pipeline runs, ${TSAN_POOL_REPEAT:-3} of the worker pool, ${TSAN_FRICTION_REPEAT:-3} of the friction matrix, ${TSAN_THREADS_REPEAT:-3} of the list, trace and diagnostics tests and ${TSAN_LONG_REPEAT:-3} of large-on-cli clean"
