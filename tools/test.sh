#!/usr/bin/env bash
# Installs what the tests need (tools/deps.sh test), builds, and runs the test suite on the
# CPU OpenCL device. The pocl kernel caches it fills (BUILD/tests/pocl-cache) are the ones
# tools/dev/sanitize.sh then runs its sanitizer builds on, warm.
# Under CI (CI=true) a skipped test fails the run: after tools/deps.sh none may skip.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${MIXSIM_BUILD_DIR:-build}
# A build configured before the test packages came (tools/run.sh's) looks for them again:
# -Dmpi=auto finds Open MPI only then.
installed=$(tools/deps.sh test | tee /dev/stderr)
if [[ $installed == *"tools/deps.sh: installing"* ]] && [ -f "$dir/build.ninja" ]; then
  meson setup --reconfigure "$dir"
fi
tools/build.sh
bash tools/dev/pocl_seed.sh "$dir" # (each kernel program compiled once, not in every test)
meson test -C "$dir" --print-errorlogs "$@"
if [ "${CI:-}" = true ]; then
  skipped=$(sed -n 's/^{"name": "\([^"]*\)".*"result": "SKIP".*/\1/p' "$dir/meson-logs/testlog.json")
  if [ -n "$skipped" ]; then
    echo "tools/test.sh: CI=true, and these tests were skipped (a missing dependency?):" >&2
    echo "$skipped" >&2
    exit 1
  fi
fi
