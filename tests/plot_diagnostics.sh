#!/usr/bin/env bash
# tools/plot_diagnostics.py: draws a PNG from a collision run's diagnostics.csv and from a
# gravity run's, its title's energy drift is the one the panel plots (computed here from the
# CSV), and it refuses a file with no rows. Skipped (77) without matplotlib (failed under
# CI), as tests/bench_tools.sh is.
# usage: plot_diagnostics.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$1
root=$2
filter=${3:-}
. "$(dirname "$0")/lib.sh"
plot=$root/tools/plot_diagnostics.py

need_python matplotlib

is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }

# A collision run's diagnostics, made once for the tests that read it.
collision_csv() {
  [ -f "$tmp/c/diagnostics.csv" ] ||
    "$exe" -d cpu -q "$root/tests/scenes/diag_box_friction.ini" -n 400 --output "$tmp/c" \
      --output-every 100 --diagnostics >/dev/null
}

test_collision_png() {
  collision_csv &&
    "$py" "$plot" "$tmp/c/diagnostics.csv" --out "$tmp/c.png" --title box && is_png "$tmp/c.png"
}

# The title's drift: max |E - E0| over E0 less the potential's smallest value, the start of
# the total the panel draws (computed here with awk from the CSV's columns).
test_title_drift_is_the_plotted_one() {
  collision_csv &&
    "$py" "$plot" "$tmp/c/diagnostics.csv" --out "$tmp/t.png" --title box >"$tmp/t.out" || return 1
  cat "$tmp/t.out"
  local want got
  want=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { e = $col["total"] + 0; u = $col["potential"] + 0
      if (NR == 2) { e0 = e; umin = u }
      if (u < umin) umin = u
      d = e - e0; if (d < 0) d = -d; if (d > worst) worst = d }
    END { printf "(E0 - %.4g) = %.2f%%", umin, worst / (e0 - umin) * 100 }' "$tmp/c/diagnostics.csv")
  got=$(sed -n 's/^title: box: largest |E - E0| \/ //p' "$tmp/t.out")
  echo "    title: $got, from the CSV: $want"
  [ -n "$got" ] && [ "$got" = "$want" ]
}

test_gravity_png() {
  "$exe" -d cpu -q "$root/scenes/kepler.ini" -n 200 --output "$tmp/g" --output-every 50 \
    --diagnostics >/dev/null &&
    "$py" "$plot" "$tmp/g/diagnostics.csv" --out "$tmp/g.png" && is_png "$tmp/g.png"
}

test_empty_refused() {
  collision_csv && head -1 "$tmp/c/diagnostics.csv" >"$tmp/empty.csv"
  ! "$py" "$plot" "$tmp/empty.csv" --out "$tmp/e.png" 2>"$tmp/err" && grep -q "no rows" "$tmp/err" &&
    [ ! -e "$tmp/e.png" ]
}

check test_collision_png
check test_title_drift_is_the_plotted_one
check test_gravity_png
check test_empty_refused
finish
