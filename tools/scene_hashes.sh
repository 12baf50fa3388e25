#!/usr/bin/env bash
# Prints the state hash of every shipped collision scene after N steps (default 500), on the
# device and with the options given after the binary: the record a change that must not
# alter the physics is checked against.
#   tools/scene_hashes.sh build/mixsim [-n N] [mixsim options...]
set -uo pipefail
cd "$(dirname "$0")/.."
exe=$1
shift
steps=500
if [ "${1:-}" = "-n" ]; then
  steps=$2
  shift 2
fi
for scene in scenes/*.ini tests/scenes/*.ini; do
  grep -q '^mode *= *gravity' "$scene" && continue
  out=$("$exe" -q --headless -n "$steps" "$@" "$scene" 2>&1 | tail -1)
  echo "$scene: $out"
done
