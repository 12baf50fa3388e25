#!/usr/bin/env bash
# Runs the test suite built with AddressSanitizer + UndefinedBehaviorSanitizer once, and the
# threaded suites built with ThreadSanitizer (TSAN_REPEAT rounds, default 1; the long
# repetition is tools/dev/soak.sh's). Both must be clean. Inside CI's budget both leave out
# the 'validation' suite (long runs against analytic results and peers, over paths the other
# tests take) and 'determinism-long' (the device-side large particles over every pipeline,
# buffer mode and pocl thread count: a matrix of the paths 'determinism' takes); the ASan
# pass leaves the 'threads' suite (command-line matrices) to TSan, and TSan leaves out their
# tests of the device-only path, which runs no thread of ours beside the manager
# (tests/lib.sh). SANITIZE_ALL=1 runs everything under both.
# Suppressions (tools/dev/lsan.supp, tools/dev/tsan.supp) cover only the OpenCL runtime's
# own libraries.
set -euo pipefail
cd "$(dirname "$0")/../.."

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

skip=(--no-suite validation --no-suite determinism-long)
asan_skip=(--no-suite threads) # (the threads suite's command-line matrices: under TSan below)
tsan_scope=thread              # (tests/lib.sh: the device-only path's tests left out under TSan)
asan_scope=address             # (tests/domains.sh: two domains' hash stands for one device's)
[ "${SANITIZE_ALL:-0}" = 1 ] && skip=() && asan_skip=() && tsan_scope="" && asan_scope=""

# SANITIZE_ONLY=tsan skips the ASan pass (tools/dev/soak.sh).
if [ "${SANITIZE_ONLY:-}" != tsan ]; then
  sanitized_build build-asan address,undefined
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  if [ "$warmup" = 1 ]; then
    ASAN_OPTIONS=detect_leaks=0 meson test -C build-asan >/dev/null || true
  fi
  before=$(cache_state)
  MIXSIM_SANITIZER=$asan_scope ASAN_OPTIONS=detect_leaks=1 \
    LSAN_OPTIONS="suppressions=$PWD/tools/dev/lsan.supp" meson test -C build-asan --print-errorlogs \
    "${skip[@]}" "${asan_skip[@]}"
  check_cache "$before" ASan
fi

sanitized_build build-tsan thread
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tools/dev/tsan.supp"
before=$(cache_state)
# Every suite whose tests run threads, TSAN_REPEAT rounds (default 1, what CI runs): the
# two-thread pipeline ('determinism', and 'determinism-long': the device-side large
# particles over every pipeline, buffer mode and pocl thread count), the CPU worker pool's
# thread-count matrices ('pool-threads'), friction's one-hash matrix ('friction-threads'),
# and 'threads': the CPU worker's list, --trace and --diagnostics. Their races show only
# now and then: tools/dev/soak.sh repeats them (20 rounds) before the threads are touched.
# One meson test for all, so that its two test slots stay busy to the end.
repeat=${TSAN_REPEAT:-1}
MIXSIM_SANITIZER=$tsan_scope \
  meson test -C build-tsan --print-errorlogs --repeat "$repeat" --suite determinism \
    --suite pool-threads --suite friction-threads --suite threads "${skip[@]}"
check_cache "$before" TSan
asan="ASan+UBSan suite and "
[ ${#skip[@]} -gt 0 ] && asan="ASan+UBSan suite (but validation, determinism-long, threads) and "
[ "${SANITIZE_ONLY:-}" = tsan ] && asan=""
echo "tools/dev/sanitize.sh: $asan$repeat ThreadSanitizer round(s) of the threaded suites clean"
