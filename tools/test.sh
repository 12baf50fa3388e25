#!/usr/bin/env bash
# Installs what is missing, builds, and runs the test suite on the CPU OpenCL device.
# The pocl kernel caches it fills (BUILD/tests/pocl-cache) are the ones tools/dev/sanitize.sh
# then runs its sanitizer builds on, warm.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh
tools/build.sh
meson test -C "${MIXSIM_BUILD_DIR:-build}" --print-errorlogs "$@"
