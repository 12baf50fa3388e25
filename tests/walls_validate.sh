#!/usr/bin/env bash
# tools/walls_validate.py, the walls' validation experiments, at their --quick sizes (seconds):
# the measurements on beds of known shape, and the shape of each subcommand's table and plot.
# The physics claims need the full sizes (docs/validation.md, "Walls").
#   walls_validate.sh MIXSIM SOURCE_ROOT [FILTER]
set -u
exe=$(realpath "$1")
root=$2
filter=${3:-}
. "$root/tests/lib.sh"
tool=$root/tools/walls_validate.py

need_python matplotlib
pyrun() { PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$root/tools" "$py" - "$@"; }

# The drum's surface fit on a packed bed of known slope (with one disc flying above it), and
# the segregation index of beds with the large discs outside, inside and mixed.
test_measurements_on_known_beds() {
  pyrun <<'PY'
import math, walls_validate as w
R, r = 0.06, 0.002
for slope in (0.0, 20.0, 35.0):
    t = math.tan(math.radians(slope))
    rows = [{"kind": "small", "x": x * 0.004 - R, "y": y * 0.004 - R, "r": r}
            for x in range(31) for y in range(31)
            if y * 0.004 - R + r <= t * (x * 0.004 - R) + 1e-9]
    rows.append({"kind": "small", "x": 0.0, "y": 0.05, "r": r})
    a = w.surface_angle(rows, R)
    print("    %g deg: measured %.2f" % (slope, a))
    assert abs(a - slope) < 1.5, (slope, a)
ring = lambda n, rad, kind: [{"kind": kind, "x": rad * math.cos(2 * math.pi * i / n),
                              "y": rad * math.sin(2 * math.pi * i / n), "r": 0.002}
                             for i in range(n)]
out = w.segregation_index(ring(20, 0.01, "small") + ring(20, 0.03, "large"))
inn = w.segregation_index(ring(20, 0.03, "small") + ring(20, 0.01, "large"))
mix = w.segregation_index(ring(20, 0.02, "small") + ring(20, 0.02, "large"))
print("    S: large outside %+.3f, inside %+.3f, mixed %+.3f" % (out, inn, mix))
assert out > 0.9 and inn < -0.9 and abs(mix) < 1e-9
PY
}

# Each subcommand's quick run: its table's header and rows, numbers in them, the plot.
num='[-+]?[0-9]+(\.[0-9]+)?'
test_brazil_nut_quick() {
  "$py" "$tool" brazil-nut "$exe" --quick --plot "$tmp/bn.png" >"$tmp/bn" 2>&1 ||
    { cat "$tmp/bn"; return 1; }
  grep -q '^| Gamma | A (mm) | seed |' "$tmp/bn" &&
    [ "$(grep -cE "^\| (3|0\.5) \| $num \| 3 \| 120 \| $num \| $num \| $num \| $num \|" "$tmp/bn")" = 2 ] &&
    grep -q "^  Gamma 3 seed 3: 0.00:" "$tmp/bn" && [ -s "$tmp/bn.png" ] ||
    { cat "$tmp/bn"; return 1; }
}

test_drum_quick() {
  "$py" "$tool" drum "$exe" --quick --plot "$tmp/drum.png" >"$tmp/drum" 2>&1 ||
    { cat "$tmp/drum"; return 1; }
  grep -q '^| Fr | omega (rad/s) |' "$tmp/drum" &&
    [ "$(grep -cE "^\| 0\.0+1 \| $num \| $num \| [0-9]+ \| 1: $num \(" "$tmp/drum")" = 3 ] &&
    [ -s "$tmp/drum.png" ] || { cat "$tmp/drum"; return 1; }
}

test_segregation_quick() {
  "$py" "$tool" segregation "$exe" --quick --seeds 2 --plot "$tmp/seg.png" >"$tmp/seg" 2>&1 ||
    { cat "$tmp/seg"; return 1; }
  grep -q '^| seed | small | large |' "$tmp/seg" &&
    grep -qE "^\| 2 \| [0-9]+ \| 4 \| $num \| $num \| $num \| $num \| $num \|" "$tmp/seg" &&
    grep -q '^  seed 2: 0.00:' "$tmp/seg" && [ -s "$tmp/seg.png" ] || { cat "$tmp/seg"; return 1; }
}

# An unknown experiment is refused by the parser.
test_unknown_experiment_refused() {
  "$py" "$tool" janssen "$exe" --quick >/dev/null 2>"$tmp/e" && return 1
  grep -q "invalid choice" "$tmp/e"
}

check test_measurements_on_known_beds
check test_brazil_nut_quick
check test_drum_quick
check test_segregation_quick
check test_unknown_experiment_refused
finish
