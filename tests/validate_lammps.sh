#!/usr/bin/env bash
# tools/peers/validate_lammps.py, the heap against LAMMPS, in seconds: the angle measurement on
# heaps of known slope, the LAMMPS input's mapping of mixsim's law (tangential history,
# dashpot, rolling springs, disc inertia), one disc sliding into rolling under LAMMPS with the
# script's wall law, and a tiny end-to-end run of both codes. The LAMMPS parts are skipped
# where LAMMPS is not installed.
#   validate_lammps.sh MIXSIM SOURCE_ROOT
set -u
exe=$(realpath "$1")
root=$2
filter=${3:-}
. "$root/tests/lib.sh"
tool=$root/tools/peers/validate_lammps.py

need_python matplotlib
pyrun() { PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$root/tools/peers:$root/tools" "$py" - "$@"; }

# A heap whose surface is a triangle of known slope (one disc per millimetre of x with its
# top on the surface, on floor discs), with a pile against the right wall beyond the toe
# that is not part of it: both flanks measure the slope.
test_angle_of_known_heap() {
  pyrun <<'PY'
import math, validate_lammps as v
d = dict(v.DEFAULTS)
r = 0.002
floor = [(0.002 + 0.004 * i, 0.002, r, True) for i in range(100)]
for slope, top in ((25.0, 0.045), (12.0, 0.03)):
    t = math.tan(math.radians(slope))
    heap = list(floor)
    for i in range(1, 400):
        x = 0.001 * i
        h = 0.03 if x > 0.39 else max(0.0, top - t * abs(x - 0.2))
        if h > 0:
            heap.append((x, 0.004 + h - r, r, False))
    (left, right, mean), _, _ = v.repose_angle(heap, d)
    print("    %g deg: measured %.3f / %.3f" % (slope, left, right))
    assert abs(left - slope) < 0.5 and abs(right - slope) < 0.5, (left, right)
PY
}

# The LAMMPS input carries mixsim's law: k_t = k_n / 3 with a third of the normal damping,
# the rolling springs as stiff as the normal mode (2 k_n for two mean discs, k_n / 2 at a
# wall), disc inertia, frozen floor discs, the case's mu on the walls.
test_lammps_input_maps_the_law() {
  pyrun "$tmp" <<'PY'
import sys, validate_lammps as v
d = dict(v.DEFAULTS)
out = sys.argv[1]
init = [(0.1, 0.1, 0.002, 0, 0, 3e-4, False), (0.2, 0.002, 0.002, 0, 0, 3e-4, True)]
v.write_lammps(d, 0.4, 0.1, 0.3, init, out)
text = open(out + "/in.lammps").read()
k = d["k_n"]
pair = [l for l in text.splitlines() if l.startswith("pair_coeff 1 1")][0].split()
wall = [l for l in text.splitlines() if l.startswith("fix wy")][0].split()
def after(words, key, n):
    i = words.index(key)
    return [float(w) for w in words[i + 1:i + 1 + n]]
def close(a, b):
    return all(abs(x / y - 1) < 1e-12 for x, y in zip(a, b))
assert close(after(pair, "linear_history", 3), [k / 3, 1 / 3, 0.4]), pair
assert close(after(wall, "linear_history", 3), [k / 3, 1 / 3, 0.3]), wall
kr, gr, mur = after(pair, "sds", 3)
assert abs(kr / (2 * k) - 1) < 1e-12 and mur == 0.1, pair
kw, gw, muw = after(wall, "sds", 3)
assert abs(kw / (k / 2) - 1) < 1e-12 and muw == 0.1, wall
assert "fix move mobile nve/sphere disc" in text and "fix freeze fixed freeze" in text
data = open(out + "/data.lammps").read()
assert "\n2 2 " in data and "\n1 1 " in data, data  # the static disc is type 2
PY
}

# One disc sliding along the floor with no spin, under LAMMPS with the script's wall law:
# friction turns it to rolling at 2/3 of its speed (a disc; a sphere would keep 5/7).
test_lammps_disc_slides_into_rolling() {
  skip_without lmp lammps && return 0
  pyrun "$tmp" <<'PY' || return 1
import math, subprocess, sys, validate_lammps as v
d = dict(v.DEFAULTS, box=(0.0, 0.0, 0.4, 0.1), steps=20000, base_radius=0.0)
out = sys.argv[1]
m = d["density"] * math.pi * 0.002 ** 2
v.write_lammps(d, 0.5, 0.0, 0.5, [(0.05, 0.002, 0.002, 0.1, 0.0, m, False)], out)
subprocess.run(["lmp", "-in", "in.lammps", "-log", "log.lammps", "-screen", "none"], cwd=out,
               check=True, stdout=subprocess.DEVNULL)
body = open(out + "/final.dump").read().split("ITEM: ATOMS")[1].splitlines()
row = dict(zip(body[0].split(), body[1].split()))
vx, w = float(row["vx"]), float(row["omegaz"])
print("    v = %.6f m/s (2/3 v0 = %.6f), -w r / v = %.6f" % (vx, 0.2 / 3, -w * 0.002 / vx))
assert abs(vx / (0.2 / 3) - 1) < 1e-3 and abs(-w * 0.002 / vx - 1) < 1e-3
PY
}

# Both codes on a heap of 40 discs for 2000 steps: the table has both angles, the picture
# and the JSON are written.
test_tiny_run_of_both_codes() {
  skip_without lmp lammps && return 0
  PYTHONDONTWRITEBYTECODE=1 "$py" "$tool" --mixsim "$exe" --device cpu --quick --n 40 \
    --steps 2000 --mu 0.5 --out "$tmp/run" >"$tmp/log" 2>&1 || { cat "$tmp/log"; return 1; }
  grep -q '^| 0.5 | 0 | 0.5 | ' "$tmp/log" && [ -s "$tmp/run/heap_lammps.png" ] &&
    [ -s "$tmp/run/angles.json" ] && [ -s "$tmp/run/mu0.5_mur0/final.dump" ] &&
    [ -s "$tmp/run/mu0.5_mur0/final.csv" ] || { cat "$tmp/log"; return 1; }
}

# Bad lists are refused by the option.
test_bad_lists_refused() {
  "$py" "$tool" --mixsim "$exe" --mu=-0.1 >/dev/null 2>"$tmp/e" && return 1
  grep -q -- "--mu and --mu-r" "$tmp/e"
}

check test_angle_of_known_heap
check test_lammps_input_maps_the_law
check test_lammps_disc_slides_into_rolling
check test_tiny_run_of_both_codes
check test_bad_lists_refused
finish
