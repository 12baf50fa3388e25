#!/usr/bin/env bash
# tools/peers/drum_lammps.py, the rotating drum against LAMMPS, in seconds: the LAMMPS input's
# drum (a rotating region cylinder, wall/gran/region with validate_lammps.py's wall law) and the
# two mixsim scenes (still, then turning from the settled dump at the same omega), the dump
# reader and the measurement on a bed of known slope, one disc in both codes (it rests where it
# rests in the other and the turning wall drags it to +x in both), and the --quick table's shape.
# The LAMMPS parts are skipped where LAMMPS is not installed.
#   drum_lammps.sh MIXSIM SOURCE_ROOT
set -u
exe=$(realpath "$1")
root=$2
filter=${3:-}
. "$root/tests/lib.sh"
tool=$root/tools/peers/drum_lammps.py

need_python matplotlib
pyrun() { PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$root/tools/peers:$root/tools" "$py" - "$@"; }

# The LAMMPS input: the drum is the inside of a z cylinder of radius R turned by v_theta about
# the z axis, theta 0 during the settling steps and omega dt per step after them; the wall law
# is validate_lammps's for walls (k_t = k_n / 3, a third of the damping, mu_wall, the rolling
# spring k_n / 2 of a disc at a wall), the pair law its pairs' (2 k_n); the mixsim scenes: the
# settling one without rotate, the turning one from settled.csv with rotate at the same omega.
test_inputs_map_the_drum() {
  pyrun "$tmp" <<'PY'
import math, re, sys, drum_lammps as dl, validate_lammps as vl
d = dict(dl.DEFAULTS)
out = sys.argv[1]
init = [(0.01, -0.05, 0.002, 0.0, 0.0, 3e-4, False), (0.02, -0.06, 0.0021, 0.0, 0.0, 3.3e-4, False)]
omega = 0.3132
dl.write_lammps(d, omega, 15000, 60000, 2000, init, out)
text = open(out + "/in.lammps").read()
lines = text.splitlines()
region = [l for l in lines if l.startswith("region drum")][0].split()
assert region[2:6] == ["cylinder", "z", "0", "0"] and float(region[6]) == d["R"], region
assert " side in " in " ".join(region) + " " and region[-8:] == ["rotate", "v_theta", "0", "0",
                                                             "0", "0", "0", "1"], region
theta = [l for l in lines if l.startswith("variable theta")][0]
m = re.fullmatch(r'variable theta equal "\(step>15000\)\*\(step-15000\)\*(\S+)"', theta)
assert m and abs(float(m.group(1)) / (omega * d["dt"]) - 1) < 1e-12, theta
wall = [l for l in lines if l.startswith("fix wall all wall/gran/region granular ")][0]
assert wall.endswith(" region drum"), wall
r = 0.5 * (d["r_min"] + d["r_max"])
mass = d["density"] * d["thickness"] * math.pi * r * r
law = vl.lammps_law(d, d["mu_wall"], d["mu_r"], mass, mass * r * r / 2, r)
assert wall == "fix wall all wall/gran/region granular " + law + " region drum", (wall, law)
w = wall.split()
def after(words, key, n):
    i = words.index(key)
    return [float(x) for x in words[i + 1:i + 1 + n]]
k = d["k_n"]
assert after(w, "hooke", 1) == [k], w
assert all(abs(a / b - 1) < 1e-12 for a, b in zip(after(w, "linear_history", 3), [k / 3, 1 / 3, 0.8])), w
kr, gr, mur = after(w, "sds", 3)
assert abs(kr / (k / 2) - 1) < 1e-12 and mur == d["mu_r"], w
pair = [l for l in lines if l.startswith("pair_coeff * *")][0].split()
assert abs(after(pair, "sds", 1)[0] / (2 * k) - 1) < 1e-12 and after(pair, "linear_history", 3)[2] == 0.5
for piece in ("fix move all nve/sphere disc", "fix 2d all enforce2d", "run 15000",
              "write_dump all custom settled.dump", "dump frames all custom 2000 frames.dump",
              "run 60000"):
    assert piece in text, piece
assert text.index("run 15000") < text.index("dump frames") < text.index("run 60000")
data = open(out + "/data.lammps").read()
# read_data's density of a disc of mass m: m / (4/3 pi r^3)
rho = float(data.split("Atoms # sphere")[1].split()[3])
assert abs(rho * 4 / 3 * math.pi * 0.002 ** 3 / 3e-4 - 1) < 1e-12, rho
settle, turn = dl.mixsim_scenes(d, 7, omega, 15000, 60000)
assert "rotate" not in settle and "steps = 15000" in settle and "seed = 7" in settle, settle
assert "circle = 0, 0, %g" % d["R"] in settle and "wall_friction = 0.8" in settle, settle
assert "rotate = 0, 0, 0.3132" in turn and "steps = 60000" in turn, turn
assert "[small]\nfile = settled.csv\n" in turn and "placement" not in turn, turn
print("    region, theta, wall and pair laws, scenes as expected")
PY
}

# The dump reader and the measurement: a bed whose surface is a line at 20 degrees (and a flat
# one), written as a LAMMPS dump of two frames, reads back with its steps and measures 20 and
# 0 degrees; bed_state gives the known centre of mass and kinetic energy.
test_measurement_of_known_beds() {
  pyrun "$tmp" <<'PY'
import math, sys, drum_lammps as dl
R, r = 0.1, 0.002
def bed(slope):
    t = math.tan(math.radians(slope))
    rows = []
    for i in range(-24, 25):
        x = 0.002 * i
        top = -0.02 + t * x
        for j in range(4):
            rows.append((x, top - r - 0.004 * j))
    return rows
path = sys.argv[1] + "/known.dump"
with open(path, "w") as f:
    for step, slope in ((100, 20.0), (200, 0.0)):
        rows = bed(slope)
        f.write("ITEM: TIMESTEP\n%d\nITEM: NUMBER OF ATOMS\n%d\nITEM: BOX BOUNDS ff ff pp\n"
                "-0.1 0.1\n-0.1 0.1\n-0.5 0.5\nITEM: ATOMS id x y radius vx vy\n" % (step, len(rows)))
        for i, (x, y) in enumerate(rows, 1):
            f.write("%d %r %r %r 0.5 0\n" % (i, x, y, r))
frames = dl.read_lammps_dump(path)
assert [s for s, _ in frames] == [100, 200], [s for s, _ in frames]
a20, a0 = (dl.angle_of(rows, R) for _, rows in frames)
print("    20 deg: measured %.3f; 0 deg: %.3f" % (a20, a0))
assert abs(a20 - 20) < 0.3 and abs(a0) < 0.3, (a20, a0)
assert dl.angle_of(frames[0][1][:1], R) != dl.angle_of(frames[0][1][:1], R)  # one disc: NaN
rows = frames[1][1]
cx, cy, ke = dl.bed_state(rows, [2.0] * len(rows))
my = sum(q["y"] for q in rows) / len(rows)
assert abs(cx) < 1e-12 and abs(cy - my) < 1e-12, (cx, cy)
assert abs(ke - len(rows) * 0.5 * 2.0 * 0.25) < 1e-9, ke
PY
}

# One disc dropped in the drum of R = 3 cm: after 1 s in the still drum both codes have it
# rocking about the bottom at the same place, and as the drum turns anticlockwise (Fr 1e-2)
# both carry it to +x (about (R - r) mu_r = 1.4 mm for a disc rolling on the wall).
test_one_disc_in_both_codes() {
  skip_without lmp lammps && return 0
  PYTHONDONTWRITEBYTECODE=1 "$py" "$tool" --mixsim "$exe" --device cpu --R 0.03 --fill-top 0 \
    --count 1 --fr 1e-2 --seeds 1 --settle 1 --turn 1 --keep "$tmp/one" >"$tmp/one.log" 2>&1 ||
    { cat "$tmp/one.log"; return 1; }
  pyrun "$tmp/one/drum_lammps.json" <<'PY' || { cat "$tmp/one.log"; return 1; }
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
m, l = run["mixsim"], run["LAMMPS"]
print("    settled at (%.2f, %.2f) / (%.2f, %.2f) mm; x while turning %+.2f / %+.2f mm" % (
    1e3 * m["settled_com"][0], 1e3 * m["settled_com"][1], 1e3 * l["settled_com"][0],
    1e3 * l["settled_com"][1], 1e3 * m["com_x_turning"], 1e3 * l["com_x_turning"]))
assert run["discs"] == 1
assert abs(m["settled_com"][1] - l["settled_com"][1]) < 3e-4, (m, l)
assert abs(m["settled_com"][0] - l["settled_com"][0]) < 2e-3, (m, l)
assert m["settled_com"][1] < -0.027 and l["settled_com"][1] < -0.027, (m, l)
assert 5e-4 < m["com_x_turning"] < 4e-3 and 5e-4 < l["com_x_turning"] < 4e-3, (m, l)
PY
}

# --quick runs both codes on a tiny drum: the summary row (Fr, omega, settled, turned, seed: both
# angles, medians with spreads, the difference, within 2 degrees), one row per code per run,
# the picture and the JSON, from which --replot prints the same rows.
test_quick_table() {
  skip_without lmp lammps && return 0
  PYTHONDONTWRITEBYTECODE=1 "$py" "$tool" --mixsim "$exe" --device cpu --quick --keep "$tmp/q" \
    --plot "$tmp/q.png" >"$tmp/q.log" 2>&1 || { cat "$tmp/q.log"; return 1; }
  local num='-?[0-9]+\.[0-9]'
  grep -Eq "^\| 0\.01 \| 1\.808 \| 0\.044 \| 0\.12 \| 1: $num / $num \| $num \(0\.0\) \| $num \(0\.0\) \| [+-][0-9]+\.[0-9] \| (yes|no) \|$" \
    "$tmp/q.log" && [ "$(grep -c '^| 0.01 | 1 | \(mixsim\|LAMMPS\) | ' "$tmp/q.log")" = 2 ] &&
    [ -s "$tmp/q.png" ] && [ -s "$tmp/q/drum_lammps.json" ] && [ -s "$tmp/q/fr0.01_s1/frames.dump" ] ||
    { cat "$tmp/q.log"; return 1; }
  # --replot prints the same table from the JSON, running nothing
  "$py" "$tool" --mixsim /nonexistent --replot "$tmp/q/drum_lammps.json" >"$tmp/r.log" 2>&1 &&
    diff <(grep '^| 0.01 |' "$tmp/q.log") <(grep '^| 0.01 |' "$tmp/r.log") ||
    { cat "$tmp/r.log"; return 1; }
}

# Bad Froude numbers are refused by the option.
test_bad_fr_refused() {
  "$py" "$tool" --mixsim "$exe" --fr=0,-1 >/dev/null 2>"$tmp/e" && return 1
  grep -q -- "--fr takes" "$tmp/e"
}

check test_inputs_map_the_drum
check test_measurement_of_known_beds
check test_one_disc_in_both_codes
check test_quick_table
check test_bad_fr_refused
finish
