#!/usr/bin/env bash
# Quick start: installs what is missing, builds, and runs the default scene.
# Extra arguments go to mixsim, e.g. tools/run.sh --steps 500 --pipeline naive
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh run
tools/build.sh
exec build/mixsim scenes/mixed.ini "$@"
