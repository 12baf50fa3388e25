# Shared by the shell tests (sourced): a temporary folder removed at exit, a runner for
# test functions with an optional name filter ($filter), the state hash of a report or of a run,
# and the closing "N passed, N failed" line with the exit code.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
passes=0

# Tests of the device-only path (large_on = device) that a script names in $device_only are
# left out under ThreadSanitizer (MIXSIM_SANITIZER=thread: tools/dev/sanitize.sh's CI pass):
# that path runs the GPU manager alone on the calling thread, no worker, no syncs, no pool,
# so TSan has no race of ours to find there and its instrumented loops cost minutes. The
# plain and ASan passes run them; tools/dev/soak.sh does under TSan too (SANITIZE_ALL=1).
device_only=""

elapsed() { # seconds since $1 (an $EPOCHREALTIME), to a tenth: where a test's time goes
  awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}

check() { # name of a test function, which must succeed
  local name=$1
  [ -n "${filter:-}" ] && [[ $name != *"$filter"* ]] && return
  if [ "${MIXSIM_SANITIZER:-}" = thread ] && [[ " ${device_only//$'\n'/ } " == *" $name "* ]]; then
    echo "--   $name (the device-only path: left out under ThreadSanitizer)"
    return
  fi
  local t0=$EPOCHREALTIME t
  if "$name"; then
    t=$(elapsed "$t0")
    echo "ok   $name ($t s)"
    passes=$((passes + 1))
  else
    t=$(elapsed "$t0")
    echo "FAIL $name ($t s)"
    fails=$((fails + 1))
  fi
}

hash_of() { sed -n 's/^state hash \([0-9a-f]*\).*/\1/p' "$1"; }

# scene steps [options...]: prints the state hash of a quiet run of $exe; fails when the
# run fails or prints no hash.
hash_run() {
  local scene=$1 steps=$2 h
  shift 2
  "$exe" -q -n "$steps" "$@" "$scene" >"$tmp/hash_run.out" || return 1
  h=$(hash_of "$tmp/hash_run.out")
  [ -n "$h" ] && echo "$h"
}

# Waits up to $2 seconds for file $1 to exist.
await_file() {
  local i
  for i in $(seq $(($2 * 20))); do
    [ -e "$1" ] && return 0
    sleep 0.05
  done
  echo "    no $1 after $2 s"
  return 1
}

# scene_from_dump SCENE DUMP OUT: SCENE with its particle sections replaced by DUMP read back
# as [small] file and [large_file.all] file (DUMP as OUT names it: relative to OUT's folder).
scene_from_dump() {
  python3 - "$@" <<'PY'
import sys
src, dump, out = sys.argv[1:4]
text, skip = [], False
for line in open(src):
    s = line.strip()
    if s.startswith('['):
        skip = s == '[small]' or s.startswith('[large')
    if not skip:
        text.append(line)
open(out, 'w').write(''.join(text) + '[small]\nfile = %s\n[large_file.all]\nfile = %s\n' % (dump, dump))
PY
}

# A dependency that tools/deps.sh installs is missing: the test is skipped (77), except
# under CI (CI=true), where a skip would hide a machine that is not set up: there it fails.
skip_missing() { # what is missing and what installs it
  echo "skipped: $1"
  if [ "${CI:-}" = true ]; then
    echo "CI=true: a test skipped for a missing dependency fails the run"
    exit 1
  fi
  exit 77
}

# For one check of several: true (skip it, saying so) where command $1 is missing; under CI
# never, so that the check fails where it runs the command.
skip_without() { # command package
  command -v "$1" >/dev/null 2>&1 && return 1
  if [ "${CI:-}" = true ]; then
    echo "    no $1 (tools/deps.sh test installs $2): not skipped under CI=true"
    return 1
  fi
  echo "    no $1: skipped (tools/deps.sh test installs $2)"
}

# Sets $py to a Python that imports every module named: the one first on PATH may lack
# the distribution's packages (a pyenv or a virtual environment), Debian's has them.
need_python() { # module...
  local p m
  for p in python3 /usr/bin/python3; do
    command -v "$p" >/dev/null 2>&1 || continue
    for m in "$@"; do "$p" -c "import $m" >/dev/null 2>&1 || continue 2; done
    py=$p
    return 0
  done
  skip_missing "no Python has the modules $* (tools/deps.sh test installs $(python_packages "$@"))"
}

python_packages() { # the Debian packages of the modules named
  local m out=""
  for m in "$@"; do
    case $m in
      vtkmodules*) out+=" python3-vtk9 (or python3-paraview)" ;;
      scipy*) out+=" python3-scipy" ;;
      *) out+=" python3-${m%%.*}" ;;
    esac
  done
  echo "${out# }"
}

finish() { # exit 77 (skipped) when the filter left nothing to run
  echo "$passes passed, $fails failed"
  [ $passes -gt 0 ] || [ $fails -gt 0 ] || exit 77
  [ $fails -eq 0 ]
}
