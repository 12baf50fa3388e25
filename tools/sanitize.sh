#!/usr/bin/env bash
# Runs the test suite built with AddressSanitizer + UndefinedBehaviorSanitizer, and the
# two-thread pipeline tests built with ThreadSanitizer, repeated. Both must be clean.
# Suppressions (tools/lsan.supp, tools/tsan.supp) cover only the OpenCL runtime's
# own libraries.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat=${TSAN_REPEAT:-20}

[ -f build-asan/build.ninja ] ||
  meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dsdl=disabled \
    -Dbuildtype=debugoptimized
meson compile -C build-asan
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# On a cold kernel cache pocl compiles inside the process, and LeakSanitizer's exit-time
# tracer crashes on pocl's compiler threads; a first pass without leak checking fills
# the cache, the second pass checks for leaks.
ASAN_OPTIONS=detect_leaks=0 meson test -C build-asan --print-errorlogs
ASAN_OPTIONS=detect_leaks=1 \
  LSAN_OPTIONS="suppressions=$PWD/tools/lsan.supp" meson test -C build-asan --print-errorlogs

[ -f build-tsan/build.ninja ] ||
  meson setup build-tsan -Db_sanitize=thread -Db_lundef=false -Dsdl=disabled \
    -Dbuildtype=debugoptimized
meson compile -C build-tsan
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tools/tsan.supp"
# Each test has its own pocl kernel cache (tests/meson.build). As for ASan above, a first
# pass fills it, here with TSan's reports off: a cold cache means pocl compiling inside
# the process, and LLVM's C++ runtime then shows races in frames TSan cannot attribute.
# The counted runs below compile nothing and report everything.
TSAN_OPTIONS="$TSAN_OPTIONS report_bugs=0" meson test -C build-tsan --suite determinism >/dev/null ||
  true
meson test -C build-tsan --print-errorlogs --suite determinism --repeat "$repeat"
# The CPU worker pool's thread-count matrices: seconds each under TSan, so fewer rounds.
TSAN_OPTIONS="$TSAN_OPTIONS report_bugs=0" meson test -C build-tsan --suite pool-threads >/dev/null ||
  true
meson test -C build-tsan --print-errorlogs --suite pool-threads --repeat "${TSAN_POOL_REPEAT:-3}"
# Friction's one-hash matrix (pipelines, buffers, exchanges, worker and pocl threads): the
# pool and the pipeline's threads on the friction paths. The other friction tests repeat
# what the determinism suite already runs under TSan, on one more kind of contact.
TSAN_OPTIONS="$TSAN_OPTIONS report_bugs=0" meson test -C build-tsan --suite friction-threads >/dev/null ||
  true
meson test -C build-tsan --print-errorlogs --suite friction-threads --repeat "${TSAN_FRICTION_REPEAT:-3}"
# The CPU worker's list (its rebuild flags cross the two threads at the syncs) and
# --trace (every thread records): a minute or two each under TSan, so three rounds.
TSAN_OPTIONS="$TSAN_OPTIONS report_bugs=0" meson test -C build-tsan --suite threads >/dev/null ||
  true
meson test -C build-tsan --print-errorlogs --suite threads --repeat "${TSAN_THREADS_REPEAT:-3}"
echo "tools/sanitize.sh: ASan+UBSan suite, $repeat ThreadSanitizer pipeline runs, ${TSAN_POOL_REPEAT:-3} of the worker pool, ${TSAN_FRICTION_REPEAT:-3} of the friction matrix and ${TSAN_THREADS_REPEAT:-3} of the list and trace tests clean"
