#!/usr/bin/env bash
# tools/peers/silo_lammps.py, the 2D silo of tools/beverloo.py in LAMMPS, in seconds: the input
# maps the silo (side walls, the floor's two blocks leaving the orifice, the outflow region
# below it, discs in 2D with areal masses, validate_lammps.py's contact law), the thermo and
# dump readers, and the --quick run (a silo 24 d wide, D = 6 d and 8 d, 0.1 s) gives a positive,
# finite discharge rate for each width. The LAMMPS run is skipped where LAMMPS is not installed
# (never under CI=true: tools/deps.sh test installs it).
#   silo_lammps.sh MIXSIM SOURCE_ROOT [filter]
set -u
root=$2
filter=${3:-}
. "$root/tests/lib.sh"
tool=$root/tools/peers/silo_lammps.py

need_python numpy
pyrun() { PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$root/tools/peers:$root/tools" "$py" - "$@"; }

# The input: floor blocks end at the orifice's edges (L -+ D) / 2, the outflow region 3 d
# below the floor, the discs' masses from their areal density, the pair law validate_lammps's.
test_input_maps_the_silo() {
  pyrun "$tmp" <<'PY'
import math, sys, silo_lammps as sl, validate_lammps as vl
p = dict(sl.DEFAULTS)
g = sl.write_input(p, 9, sys.argv[1])
text = open(sys.argv[1] + "/in.lammps").read()
d = p["d"]
L = p["silo_w"] * d
assert abs(g["x0"] - (L - 9 * d) / 2) < 1e-15 and abs(g["x1"] - (L + 9 * d) / 2) < 1e-15, g
lines = {l.split()[1]: l for l in text.splitlines() if l.startswith("region ")}
fl, fr = lines["floorl"].split(), lines["floorr"].split()
assert float(fl[4]) == float(sl.fmt(g["x0"])) and float(fr[3]) == float(sl.fmt(g["x1"])), (fl, fr)
assert float(fl[6]) == float(sl.fmt(g["yf"])) and float(fr[6]) == float(sl.fmt(g["yf"])), (fl, fr)
assert "region floor union 2 floorl floorr" in text
ex = lines["exit"].split()
assert abs(float(ex[6]) - (g["yf"] - 3 * d)) < 1e-12, ex
assert "fix floor all wall/gran/region granular" in text and "region floor\n" in text
assert "fix evap all evaporate" in text and " exit " in text
assert "set type 1 density/disc 25" in text and "dimension 2" in text
assert "fix 2d all enforce2d" in text
pair, wall = sl.laws(p)
r = 0.5 * d
m = p["sigma"] * math.pi * r * r
assert pair == vl.lammps_law(p, p["mu"], 0.0, m / 2, m * r * r / 4, r / 2)
assert "pair_coeff * * " + pair in text and "rolling" not in pair
assert "hooke 10000 " in pair and "linear_history" in pair, pair
print("    input as expected")
PY
}

# The readers: a thermo block and a dump written here read back.
test_readers() {
  pyrun "$tmp" <<'PY'
import sys, silo_lammps as sl
t = sys.argv[1]
open(t + "/log.lammps", "w").write("x\nStep v_t v_n v_m f_evap \n 0 0 10 1.5 0\n 100 0.001 9 1.4 1\n"
                                   "Loop time of 1\n")
assert sl.read_thermo(t + "/log.lammps") == [(0, 0.0, 10, 1.5), (100, 0.001, 9, 1.4)]
open(t + "/f.dump", "w").write("ITEM: TIMESTEP\n200\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS ff ff pp\n"
                               "0 1\n0 1\n-0.5 0.5\nITEM: ATOMS id x y radius\n1 0.1 0.2 0.001\n2 0.3 0.4 0.001\n")
f = sl.read_dump_frames(t + "/f.dump", 1e-5)
assert len(f) == 1 and abs(f[0][0] - 0.002) < 1e-15 and f[0][1] == [0.1, 0.3] and f[0][2] == [0.2, 0.4]
PY
}

# --quick: both widths give a positive, finite W over a window of several rows.
test_quick_rate() {
  skip_without lmp lammps && return 0
  PYTHONDONTWRITEBYTECODE=1 "$py" "$tool" --quick --keep "$tmp/q" >"$tmp/q.log" 2>&1 ||
    { cat "$tmp/q.log"; return 1; }
  cat "$tmp/q.log"
  pyrun "$tmp/q/silo_lammps.json" <<'PY' || return 1
import json, math, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert [r["D_d"] for r in runs] == [6, 8], runs
for r in runs:
    assert r["W"] is not None and math.isfinite(r["W"]) and r["W"] > 0, r
    assert r["rows"] >= 5 and r["removed_total"] > 0, r
PY
}

test_bad_widths_refused() {
  "$py" "$tool" --widths 0,-1 >/dev/null 2>"$tmp/e" && return 1
  grep -q -- "--widths takes" "$tmp/e"
}

# --mixsim-runs: mixsim's W of the same width (from a synthetic diagnostics.csv at 0.1 kg/s/m)
# beside LAMMPS's (0.08), the ratio 1.25; a width without a run says so.
test_compare_with_mixsim() {
  pyrun "$tmp" >"$tmp/c.out" <<'PY' || { cat "$tmp/c.out"; return 1; }
import os, sys, silo_lammps as sl
run = os.path.join(sys.argv[1], "runs", "silo_D6")
os.makedirs(run)
with open(run + "/diagnostics.csv", "w") as f:
    f.write("step,time,outflow_exit_count,outflow_exit_mass\n")
    for i in range(101):
        f.write("%d,%r,0,%r\n" % (2000 * i, 0.02 * i, 0.1 * 0.02 * (1 + 0.01 * (-1) ** i) if i else 0.0))
sl.compare([{"D_d": 6, "W": 0.08, "err": 0.002}, {"D_d": 13, "W": 0.3, "err": 0.01}],
           os.path.join(sys.argv[1], "runs"), 0.5)
PY
  cat "$tmp/c.out"
  grep -qE '^\| 6 \| 0\.1(000[0-9]*)? \+- [0-9.e-]+ \| 0\.08 \+- 0\.002 \| 1\.2[45][0-9]* \+- ' "$tmp/c.out" &&
    grep -q '^| 13 | (no run in ' "$tmp/c.out"
}

check test_input_maps_the_silo
check test_readers
check test_quick_rate
check test_bad_widths_refused
check test_compare_with_mixsim
finish
