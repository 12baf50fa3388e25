#!/usr/bin/env bash
# The loader's time-step warning on the command line: printed on stderr at the dt line
# with a suggested dt, silenced by --quiet, gone once that dt is pasted back; the run
# itself goes ahead either way.
# usage: timestep_cli.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$1
root=$2
filter=${3:-}
. "$(dirname "$0")/lib.sh"

# Two discs in zero gravity: t_c = 12.8 ms for the pair, so dt = 1 ms (t_c/12.8) puts e = 0.5
# up to 9 % off; the hard limit (t_c/10) lets it through.
scene=$tmp/pair.ini
cat >"$scene" <<'INI'
[simulation]
dt = 1e-3
gravity = 0, 0
[box]
min = 0, 0
max = 1, 1
[material]
stiffness = 1e4
restitution = 0.5
[small]
count = 2
radius = 0.01
region = 0.1, 0.1, 0.2, 0.2
velocity_spread = 0.1
INI

test_large_error_warns_with_a_dt() {
  "$exe" --headless -d cpu -n 10 "$scene" >"$tmp/out" 2>"$tmp/err" || return 1
  grep "warning" "$tmp/err" | sed 's/^/    /'
  grep -q "^mixsim: warning: $scene:2: \[simulation\] dt: .*(small-small, .*use dt <= " \
    "$tmp/err" && grep -q "state hash" "$tmp/out"
}

test_quiet_silences_it() {
  "$exe" --headless -d cpu -q -n 10 "$scene" >"$tmp/out" 2>"$tmp/err" || return 1
  ! grep -q "warning" "$tmp/err" && grep -q "state hash" "$tmp/out"
}

test_suggested_dt_pasted_back_does_not_warn() {
  "$exe" --headless -d cpu -n 10 "$scene" >"$tmp/out" 2>"$tmp/err" || return 1
  local dt
  dt=$(sed -n 's/.*use dt <= \([0-9.e+-]*\) .*/\1/p' "$tmp/err")
  [ -n "$dt" ] || return 1
  sed "s/^dt = 1e-3/dt = $dt/" "$scene" >"$tmp/pasted.ini"
  grep -q "^dt = $dt" "$tmp/pasted.ini" || return 1
  "$exe" --headless -d cpu -n 10 "$tmp/pasted.ini" >"$tmp/out" 2>"$tmp/err" || return 1
  echo "    dt = $dt: $(grep -c warning "$tmp/err") warning(s)"
  ! grep -q "warning" "$tmp/err"
}

check test_large_error_warns_with_a_dt
check test_quiet_silences_it
check test_suggested_dt_pasted_back_does_not_warn
finish
