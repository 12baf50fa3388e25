# Shared by the shell tests (sourced): a temporary folder removed at exit, a runner for
# test functions with an optional name filter ($filter), the state hash of a report or of a run,
# and the closing "N passed, N failed" line with the exit code.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
passes=0

check() { # name of a test function, which must succeed
  local name=$1
  [ -n "${filter:-}" ] && [[ $name != *"$filter"* ]] && return
  if "$name"; then
    echo "ok   $name"
    passes=$((passes + 1))
  else
    echo "FAIL $name"
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

finish() { # exit 77 (skipped) when the filter left nothing to run
  echo "$passes passed, $fails failed"
  [ $passes -gt 0 ] || [ $fails -gt 0 ] || exit 77
  [ $fails -eq 0 ]
}
