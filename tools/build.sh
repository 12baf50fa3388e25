#!/usr/bin/env bash
# Configures (once) and builds mixsim into build/ (or $MIXSIM_BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${MIXSIM_BUILD_DIR:-build}
[ -f "$dir/build.ninja" ] || meson setup "$dir" "$@"
meson compile -C "$dir"
