#!/usr/bin/env bash
# Seeds the tests' pocl kernel caches before the suite runs (tools/test.sh).
#   tools/dev/pocl_seed.sh BUILD
# Each test keeps a cache of its own (tests/meson.build: pocl 3.1 races when two processes
# fill one cache at once), so on a fresh machine every test compiled the same two dozen
# programs again: a third of a cold suite's time. Here each is compiled once, by short runs
# of the scenes the tests share in each way of running them, into two seeds filled side by
# side (one process each, so neither races); every test's empty cache is then made of hard
# links to them. pocl only adds files to a cache (a kernel it had not compiled goes in a folder of
# its own), so the tests never write to what they share. A program no run here compiles is
# compiled by the test that needs it, as before: the seed changes no test's outcome.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: tools/dev/pocl_seed.sh BUILD}
exe=$build/mixsim
seed=$build/tests/pocl-seed
[ -x "$exe" ] || { echo "tools/dev/pocl_seed.sh: no $exe (build first)" >&2; exit 2; }

# The tests' cache folders, as meson gives them their environments.
mapfile -t caches < <(meson introspect --tests "$build" | python3 -c '
import json, sys
print("\n".join(sorted({t["env"]["POCL_CACHE_DIR"] for t in json.load(sys.stdin)
                        if "POCL_CACHE_DIR" in t["env"]})))')
missing=()
for c in "${caches[@]}"; do
  [ -d "$c" ] || missing+=("$c")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0 # (every test's cache is there already: a second run of the suite)
fi

# The scenes that two test files or more name, three steps on the CPU device; the collision
# scenes also in every way of running them (each way, and each scene's features, launch
# kernels the others do not). The collision program is every scene's, but the device-only
# path's (--large-on device) is the scene's: its periods and largest radius are constants;
# one that a single test uses is compiled there, once.
scenes=()
for s in scenes/*.ini tests/scenes/*.ini; do
  [ "$(grep -l "${s##*/}" tests/*.sh tests/*.c | wc -l)" -ge 2 ] && scenes+=("$s")
done
ways=("" "--large-on device" "--exchange full" "--exchange zone --buffers shared"
  "--pipeline naive" "--devices cpu,cpu")
fill() { # SEED PART: the scenes whose number is PART modulo 2, each in every way (a scene's
  # programs are the same in every way)
  local n=0 s w
  for s in "${scenes[@]}"; do
    n=$((n + 1))
    [ $((n % 2)) = "$2" ] || continue
    for w in "${ways[@]}"; do
      [ -z "$w" ] || grep -q '^\[large' "$s" || break # (one way for a scene without them)
      if [[ $w == --devices* ]]; then
        # shellcheck disable=SC2086 # (w is a list of options)
        POCL_CACHE_DIR=$1 "$exe" -q --headless -n 3 $w "$s" >/dev/null 2>&1 || true
      else
        # shellcheck disable=SC2086
        POCL_CACHE_DIR=$1 "$exe" -q --headless -n 3 -d cpu $w "$s" >/dev/null 2>&1 || true
      fi
    done
  done
  return 0
}
t0=$SECONDS
rm -rf "$seed"
mkdir -p "$seed/0" "$seed/1"
fill "$seed/0" 0 &
fill "$seed/1" 1
wait
for c in "${missing[@]}"; do
  mkdir -p "$c"
  cp -al "$seed/0/." "$c/"
  cp -aln "$seed/1/." "$c/" 2>/dev/null || true # (a program both compiled: the first's)
done
echo "tools/dev/pocl_seed.sh: ${#missing[@]} test caches seeded with" \
  "$(find "$seed" -name program.bc | wc -l) programs in $((SECONDS - t0)) s"
