#!/usr/bin/env bash
# Fuzzes the scene loader with libFuzzer (clang, ASan + UBSan) for a bounded time.
# usage: tools/dev/fuzz.sh [SECONDS]   (default 60). Seeds: scenes/, tests/bad/, tests/scenes/
# and the regression corpus tests/fuzz/corpus/. A finding fails the run; its input is
# left in build-fuzz/ — add it to tests/fuzz/corpus/ once fixed.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
out=build-fuzz
mkdir -p "$out/corpus"
clang -std=c11 -g -O1 -ffp-contract=off -D_POSIX_C_SOURCE=200809L \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Iinclude -Ikernels -Isrc tests/fuzz/fuzz_scene.c src/scene/*.c src/core/*.c \
  $(pkg-config --cflags --libs inih zlib) -lm -lpthread -o "$out/fuzz_scene"
cp scenes/*.ini tests/bad/*.ini tests/scenes/*.ini tests/fuzz/corpus/* "$out/corpus/" 2>/dev/null || true
cd "$out"
./fuzz_scene -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 corpus 2>&1 | tee fuzz.log | grep -E "^#[0-9]+ +(INITED|DONE)|ERROR|stat::" || true
if grep -q "ERROR: libFuzzer\|ERROR: AddressSanitizer\|runtime error\|SUMMARY:" fuzz.log; then
  echo "tools/dev/fuzz.sh: a finding; see $out/fuzz.log and $out/crash-* / timeout-* / oom-*"
  exit 1
fi
echo "tools/dev/fuzz.sh: no findings in ${seconds}s"
