# Shared by the shell tests (sourced): a temporary folder removed at exit, a runner for
# test functions with an optional name filter ($filter), the state hash of a report,
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

finish() { # exit 77 (skipped) when the filter left nothing to run
  echo "$passes passed, $fails failed"
  [ $passes -gt 0 ] || [ $fails -gt 0 ] || exit 77
  [ $fails -eq 0 ]
}
