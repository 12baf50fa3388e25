#!/usr/bin/env bash
# tools/plot_diagnostics.py: draws a PNG from a collision run's diagnostics.csv and from a
# gravity run's, and refuses a file with no rows. Skipped (77) without matplotlib (failed
# under CI), as tests/bench_tools.sh is.
# usage: plot_diagnostics.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$1
root=$2
filter=${3:-}
. "$(dirname "$0")/lib.sh"
plot=$root/tools/plot_diagnostics.py

need_python matplotlib

is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }

test_collision_png() {
  "$exe" -d cpu -q "$root/tests/scenes/diag_box_friction.ini" -n 400 --output "$tmp/c" \
    --output-every 100 --diagnostics >/dev/null &&
    "$py" "$plot" "$tmp/c/diagnostics.csv" --out "$tmp/c.png" --title box && is_png "$tmp/c.png"
}

test_gravity_png() {
  "$exe" -d cpu -q "$root/scenes/kepler.ini" -n 200 --output "$tmp/g" --output-every 50 \
    --diagnostics >/dev/null &&
    "$py" "$plot" "$tmp/g/diagnostics.csv" --out "$tmp/g.png" && is_png "$tmp/g.png"
}

test_empty_refused() {
  head -1 "$tmp/c/diagnostics.csv" >"$tmp/empty.csv"
  ! "$py" "$plot" "$tmp/empty.csv" --out "$tmp/e.png" 2>"$tmp/err" && grep -q "no rows" "$tmp/err" &&
    [ ! -e "$tmp/e.png" ]
}

check test_collision_png
check test_gravity_png
check test_empty_refused
finish
