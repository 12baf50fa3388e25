#!/usr/bin/env bash
# The analysis of tools/beverloo.py and tools/chute.py on synthetic data with known answers:
# the discharge rate and its window from a diagnostics.csv of a known W, the packing fraction
# and fill height of known beds, the Beverloo fit recovering C and k from a known W(D), the
# fit's report and figure from synthetic runs; the chute's exact disc strips, the flow height,
# the Bagnold fit recovering A and v_slip, the pressure of a uniform layer, the inertial number
# of a linear profile, the mu(I) fit recovering mu_s, mu_2, I_0; the scenes' shapes; and, run by
# a Python without numpy, a clear message instead of a traceback.
#   validate_tools.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$(realpath "$1")
root=$2
filter=${3:-}
. "$root/tests/lib.sh"
need_python numpy scipy matplotlib
pyrun() { PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$root/tools" "$py" - "$@"; }

# diagnostics.csv of a silo draining at W = 0.05 kg/s/m after a transient of 0.4 s (no outflow
# before), rows every 0.02 s, plus a small open side's loss: W comes back within its error,
# the sub-windows are four, and a window of two rows gives none.
test_discharge_rate_from_diagnostics() {
  pyrun "$tmp" <<'PY'
import random, sys, beverloo as bv
t = sys.argv[1]
random.seed(3)
with open(t + "/diagnostics.csv", "w") as f:
    f.write("step,time,ke_translational,outflow_exit_count,outflow_exit_mass,open_top_count,open_top_mass\n")
    for i in range(201):
        tt = 0.02 * i
        m = 0.0 if tt <= 0.4 else 0.05 * 0.02 * (1 + 0.2 * (random.random() - 0.5))
        f.write("%d,%r,0,%d,%r,0,%r\n" % (2000 * i, tt, round(m / 7.85e-5), m, 1e-6 if i == 100 else 0.0))
times, mass = bv.read_diagnostics(t + "/diagnostics.csv")
cum = bv.cumulative(mass)
assert len(times) == 201 and abs(cum[-1] - sum(mass)) < 1e-15
r = bv.discharge_rate(times, cum, 0.5, 4.0, 4)
print("    W = %.5f +- %.5f (true 0.05)" % (r["W"], r["err"]))
assert abs(r["W"] - 0.05) < max(3 * r["err"], 1e-3) and len(r["subs"]) == 4 and r["err"] > 0, r
assert bv.discharge_rate(times, cum, 1.0, 1.02, 4) is None
# the transient included: a lower rate, which is why the window starts later
assert bv.discharge_rate(times, cum, 0.0, 4.0, 4)["W"] < 0.049
PY
}

# A diagnostics.csv without the outflow's column is refused by name.
test_missing_outflow_column() {
  printf 'step,time,ke_translational\n0,0,0\n' >"$tmp/d.csv"
  pyrun "$tmp/d.csv" >"$tmp/o" 2>&1 <<'PY' && return 1
import sys, beverloo as bv
bv.read_diagnostics(sys.argv[1])
PY
  grep -q "has no column outflow_exit_mass" "$tmp/o"
}

# A square lattice of discs (pitch 2 r, phi = pi / 4) below y = 0.05 and nothing above: the
# packing profile is pi/4 inside, 0 above; the fill height is 0.05 within a bin; the exact
# strips of one disc add up to its area.
test_packing_and_fill_height() {
  pyrun <<'PY'
import math, numpy as np, beverloo as bv
r = 0.001
xs, ys = np.meshgrid(np.arange(0.001, 0.1, 0.002), np.arange(0.011, 0.05, 0.002))
x, y = xs.ravel(), ys.ravel()
rr = np.full(x.shape, r)
z, phi = bv.packing_profile(x, y, rr, 0.0, 0.1, 0.01, 0.08, 0.004)
inside = (z > 0.014) & (z < 0.046)
assert np.allclose(phi[inside], math.pi / 4, rtol=0.02), phi
assert np.all(phi[z > 0.052] == 0), phi
h = bv.fill_height(x, y, rr, 0.0, 0.1, 0.01, 0.1, 0.004)
assert abs(h - 0.05) <= 0.004, h
a = bv.disc_strip_area([0.0], [r], -0.0004, 0.0003) + bv.disc_strip_area([0.0], [r], 0.0003, 1) \
    + bv.disc_strip_area([0.0], [r], -1, -0.0004)
assert abs(a[0] - math.pi * r * r) < 1e-15, a
print("    phi %.4f (pi/4 %.4f), fill height %.4f m" % (phi[inside].mean(), math.pi / 4, h))
PY
}

# W(D) made from C = 0.62, k = 1.4 with 2 % noise, errors 2 %: the fit gives both back within
# three standard errors, and the straight line W^{2/3}(D) crosses the D axis near k d.
test_beverloo_fit_recovers_C_and_k() {
  pyrun <<'PY'
import numpy as np, beverloo as bv
rng = np.random.default_rng(7)
D = np.array([4, 6, 9, 13, 20]) * bv.D_SMALL
rho = 0.83 * bv.SIGMA
W0 = bv.law(D, 0.62, 1.4, rho)
W = W0 * (1 + 0.02 * rng.standard_normal(len(D)))
f = bv.fit_beverloo(D, W, 0.02 * W0, rho)
print("    C = %.4f +- %.4f (0.62), k = %.3f +- %.3f (1.4), chi2 %.2f" % (
    f["C"], f["C_err"], f["k"], f["k_err"], f["chi2_red"]))
assert abs(f["C"] - 0.62) < 3 * f["C_err"] and abs(f["k"] - 1.4) < 3 * f["k_err"], f
assert f["C_err"] < 0.05 and f["k_err"] < 0.5, f
a, b = f["line"]
assert abs(-b / a / bv.D_SMALL - 1.4) < 0.5, f["line"]
# exact data: exact parameters
g = bv.fit_beverloo(D, W0, 0.01 * W0, rho)
assert abs(g["C"] - 0.62) < 1e-6 and abs(g["k"] - 1.4) < 1e-5, g
PY
}

# The fit subcommand on five synthetic run folders (scenes written by `run --write-only`,
# diagnostics.csv of the law's W, CSV frames of a square-lattice bed): the table has a row per
# width, C and k near the truth, the measured phi pi/4, and a PNG.
test_fit_subcommand_on_synthetic_runs() {
  "$py" "$root/tools/beverloo.py" run --out "$tmp/bev" --write-only >/dev/null || return 1
  pyrun "$tmp/bev" <<'PY' || return 1
import math, os, sys, numpy as np, beverloo as bv
out = sys.argv[1]
for w in bv.WIDTHS:
    g = bv.geometry(w)
    W = float(bv.law(g["D"], 0.6, 1.5, bv.SIGMA * math.pi / 4))
    run = os.path.join(out, "silo_D%g" % w)
    os.makedirs(run, exist_ok=True)
    with open(run + "/diagnostics.csv", "w") as f:
        f.write("step,time,outflow_exit_count,outflow_exit_mass\n")
        for i in range(101):
            f.write("%d,%r,0,%r\n" % (2000 * i, 0.02 * i, W * 0.02 * (1 + 0.01 * (-1) ** i) if i else 0.0))
    # a bed of touching discs of d on a square lattice up to 100 d above the floor
    xs, ys = np.meshgrid(np.arange(0.5, bv.SILO_W, 1.0) * bv.D_SMALL,
                         g["yf"] + np.arange(0.5, 100, 1.0) * bv.D_SMALL)
    with open(run + "/frames.csv", "w") as f:
        f.write("step,time,file\n")
        for i in range(0, 101, 10):
            f.write("%d,%r,frame_%06d.csv\n" % (2000 * i, 0.02 * i, 2000 * i))
            with open(run + "/frame_%06d.csv" % (2000 * i), "w") as g2:
                g2.write("kind,index,x,y,vx,vy,radius,mass,static\n")
                for x, y in zip(xs.ravel(), ys.ravel()):
                    g2.write("small,0,%r,%r,0,0,%r,0,0\n" % (x, y, 0.5 * bv.D_SMALL))
PY
  "$py" "$root/tools/beverloo.py" fit --out "$tmp/bev" --t0 0.2 >"$tmp/fit.log" 2>&1 ||
    { cat "$tmp/fit.log"; return 1; }
  cat "$tmp/fit.log" | sed -n '/^| mixsim/p'
  [ "$(grep -cE '^\| (4|6|9|13|20) \| 0\.2[0-9]*-[0-9.]+ \| end of run \|' "$tmp/fit.log")" = 5 ] &&
    grep -qE '^\| mixsim \| 0\.(59|60|61)[0-9]* \+- [0-9.e-]+ \| 1\.[45][0-9]* \+-' "$tmp/fit.log" &&
    grep -q "phi = 0.785" "$tmp/fit.log" && [ -s "$tmp/bev/beverloo.png" ] && [ -s "$tmp/bev/beverloo.md" ] ||
    { cat "$tmp/fit.log"; return 1; }
}

# The scenes: the silo's floor leaves a gap of D in the middle, the outflow lies below it; the
# chute's gravity is tilted by theta, its base discs touch and span the period.
test_scene_shapes() {
  pyrun <<'PY'
import math, re, beverloo as bv, chute as ch
s = bv.scene(9, 1.0)
l = [float(v) for v in re.search(r"\[wall.floor_left\]\nsegments = (.*)", s).group(1).split(",")]
r = [float(v) for v in re.search(r"\[wall.floor_right\]\nsegments = (.*)", s).group(1).split(",")]
assert abs((r[0] - l[2]) - 9 * bv.D_SMALL) < 1e-9 and abs(l[2] + r[0] - bv.SILO_W * bv.D_SMALL) < 1e-9
o = [float(v) for v in re.search(r"\[outflow.exit\]\nregion = (.*)", s).group(1).split(",")]
assert o[3] < l[1], (o, l)
assert "rate = " in s and "[inflow.top]" in s and "[inflow.top]" not in bv.scene(9, 1.0, refill=0)
c = ch.scene(24, 1.0, 0.05)
gx, gy = (float(v) for v in re.search(r"gravity = (.*)", c).group(1).split(","))
assert abs(math.degrees(math.atan2(gx, -gy)) - 24) < 1e-6 and abs(math.hypot(gx, gy) - 9.81) < 1e-6
xs = [float(v) for v in re.findall(r"position = ([-0-9.e]+),", c)]
assert len(xs) == ch.LENGTH and abs(xs[1] - xs[0] - ch.D_SMALL) < 1e-12 and "periodic = x" in c
PY
}

# The chute's profile analysis on arrays: a layer of phi 0.8 up to h = 16 d with a Bagnold
# profile (A, v_slip known): the flow height, the fit (R^2 ~ 1), the pressure of the layer
# (sigma phi g cos theta (h - z)) and I of a linear profile.
test_chute_profile_analysis() {
  pyrun <<'PY'
import math, numpy as np, chute as ch
d = ch.D_SMALL
z = (np.arange(0, 40) + 0.5) * 0.5 * d
h = 16 * d
phi = np.where(z < h, 0.8, 0.0)
A, vs = 40.0, 0.05
v = np.where(z <= h, ch.bagnold(z, A, h, vs), np.nan)
hh = ch.flow_height(z, phi)
assert abs(hh - h) <= 0.5 * d, (hh, h)
b = ch.fit_bagnold(z, v, h)
assert abs(b["A"] / A - 1) < 1e-6 and abs(b["v_slip"] - vs) < 1e-8 and b["r2"] > 0.999999, b
rng = np.random.default_rng(1)
bn = ch.fit_bagnold(z, v + 0.002 * rng.standard_normal(len(z)), h)
assert abs(bn["A"] - A) < 4 * bn["A_err"] and abs(bn["v_slip"] - vs) < 4 * bn["v_slip_err"], bn
bh = ch.fit_bagnold(z, v, h * 1.05, fit_h=True)
assert abs(bh["h"] / h - 1) < 1e-3, bh
P = ch.pressure(z, phi, 22.0)
ref = ch.SIGMA * 0.8 * 9.81 * math.cos(math.radians(22)) * (h - z)
inside = z < h - d
assert np.allclose(P[inside], ref[inside], rtol=0.03), (P[inside], ref[inside])
gd, I = ch.inertial_number(z, 3.0 * z, P)
assert np.allclose(gd, 3.0)
assert np.allclose(I[inside], 3.0 * d / np.sqrt(P[inside] / ch.SIGMA))
r = ch.analyse_profile(z, phi, v, 22.0)
assert abs(r["phi_bulk"] - 0.8) < 1e-12 and r["I_bulk"] > 0 and abs(r["mu"] - math.tan(math.radians(22))) < 1e-15
print("    h %.2f d, A %.3f, R2 %.6f, I bulk %.4f" % (hh / d, b["A"], b["r2"], r["I_bulk"]))
PY
}

# mu(I) from four points on a known curve: the three parameters back; from two, mu_2 held.
test_mu_I_fit() {
  pyrun <<'PY'
import numpy as np, chute as ch
I = np.array([0.02, 0.05, 0.12, 0.3, 0.6])
mu = ch.mu_of_I(I, 0.3, 0.6, 0.2)
f = ch.fit_mu_I(I, mu)
assert abs(f["mu_s"] - 0.3) < 1e-5 and abs(f["mu_2"] - 0.6) < 1e-4 and abs(f["I_0"] - 0.2) < 1e-4, f
g = ch.fit_mu_I(I[[1, 3]], mu[[1, 3]], mu2_fixed=0.6)
assert abs(g["mu_s"] - 0.3) < 1e-5 and abs(g["I_0"] - 0.2) < 1e-4 and "held" in g["fitted"], g
PY
}

# The analyse subcommand on synthetic CSV frames (a Bagnold layer of discs on the base, two
# angles): the table's rows, steady, and both figures.
test_chute_analyse_on_synthetic_frames() {
  "$py" "$root/tools/chute.py" run --out "$tmp/ch" --write-only --angles 20,24 >/dev/null || return 1
  pyrun "$tmp/ch" <<'PY' || return 1
import math, os, sys, numpy as np, chute as ch
out, d = sys.argv[1], ch.D_SMALL
for th, A in ((20, 30.0), (24, 60.0)):
    run = os.path.join(out, "chute_%g" % th)
    os.makedirs(run, exist_ok=True)
    with open(run + "/frames.csv", "w") as f:
        f.write("step,time,file\n")
        for i in range(10):
            name = "frame_%06d.csv" % (1000 * i)
            f.write("%d,%r,%s\n" % (1000 * i, 0.1 * i, name))
            rows = ["kind,index,x,y,vx,vy,radius,mass,static"]
            for j in range(16):
                for k in range(ch.LENGTH):
                    zc = (j + 0.5) * d
                    x = (k + 0.5 * (j % 2)) * d
                    rows.append("small,0,%r,%r,%r,0,%r,0,0" % (x, ch.base_top() + zc,
                                float(ch.bagnold(zc, A, 16 * d, 0.02)), 0.5 * d))
            for k in range(ch.LENGTH):
                rows.append("large,0,%r,%r,0,0,%r,0,1" % ((k + 0.5) * d, ch.base_top() - 0.5 * d, 0.5 * d))
            open(os.path.join(run, name), "w").write("\n".join(rows) + "\n")
PY
  "$py" "$root/tools/chute.py" analyse --out "$tmp/ch" --t0 0 >"$tmp/ch.log" 2>&1 ||
    { cat "$tmp/ch.log"; return 1; }
  grep -E '^\| (20|24) \|' "$tmp/ch.log"
  [ "$(grep -cE '^\| (20|24) \| 10 \(0\.00-0\.90\) \| 1[56]\.[0-9]+ \| 0\.[0-9]+ \| .* \| yes \| ' "$tmp/ch.log")" = 2 ] &&
    grep -q "mu_2 held at 0.64" "$tmp/ch.log" && [ -s "$tmp/ch/chute_profiles.png" ] &&
    [ -s "$tmp/ch/chute_mu_I.png" ] || { cat "$tmp/ch.log"; return 1; }
}

# Run by a Python without numpy (a bare virtual environment) where no other Python has it
# either, `fit` stops with a message naming the package, not a traceback.
test_missing_numpy_named() {
  "$py" -m venv --without-pip "$tmp/venv" || return 1
  mkdir -p "$tmp/nonp/numpy"
  echo 'raise ImportError("No module named numpy")' >"$tmp/nonp/numpy/__init__.py"
  PYTHONPATH="$tmp/nonp" "$tmp/venv/bin/python" "$root/tools/beverloo.py" fit --out "$tmp" \
    >"$tmp/n.out" 2>&1 && return 1
  cat "$tmp/n.out"
  ! grep -q Traceback "$tmp/n.out" &&
    grep -q "^beverloo.py: the Python modules\? .*numpy.* missing for .*: install python3-numpy" "$tmp/n.out"
}

# mixsim itself: the chute scene runs (periodic box, static base discs) for 0.02 s with VTK
# frames, and `analyse` reads them (vtkmodules) into a table row and both figures.
test_chute_end_to_end() {
  "$py" "$root/tools/chute.py" run --mixsim "$exe" --out "$tmp/e2e" --angles 22 --time 0.02 \
    --every 0.005 --mixsim-args "--device cpu" >"$tmp/e2e.log" 2>&1 || { cat "$tmp/e2e.log"; return 1; }
  [ -s "$tmp/e2e/chute_22/frame_002000.vtp" ] || { ls "$tmp/e2e/chute_22"; return 1; }
  "$py" "$root/tools/chute.py" analyse --out "$tmp/e2e" --t0 0 >"$tmp/e2e.out" 2>&1 ||
    { cat "$tmp/e2e.out"; return 1; }
  grep -E '^\| 22 \| 5 \(0\.00-0\.02\) \| [0-9]+\.[0-9]+ \| 0\.[0-9]+ \|' "$tmp/e2e.out" &&
    [ -s "$tmp/e2e/chute_profiles.png" ] || { cat "$tmp/e2e.out"; return 1; }
}

# mixsim on the silo scene of D = 20 d for 0.06 s: the run succeeds and writes diagnostics.csv;
# where this mixsim has the outflows of issue 26 (the column outflow_exit_mass), discs have left
# through the orifice by then.
test_silo_end_to_end() {
  "$py" "$root/tools/beverloo.py" run --mixsim "$exe" --out "$tmp/s2e" --widths 20 --time 0.06 \
    --mixsim-args "--device cpu" >"$tmp/s2e.log" 2>&1 || { cat "$tmp/s2e.log"; return 1; }
  local diag=$tmp/s2e/silo_D20/diagnostics.csv
  [ -s "$diag" ] || return 1
  if head -1 "$diag" | grep -q outflow_exit_mass; then
    pyrun "$diag" <<'PY'
import sys, beverloo as bv
t, m = bv.read_diagnostics(sys.argv[1])
print("    removed by 0.06 s: %.3g kg/m" % sum(m))
assert abs(t[-1] - 0.06) < 1e-9 and sum(m) > 0, (t[-1], sum(m))
PY
  else
    echo "    this mixsim writes no outflow columns yet (issue 26): the run alone is checked"
  fi
}

check test_discharge_rate_from_diagnostics
check test_missing_outflow_column
check test_packing_and_fill_height
check test_beverloo_fit_recovers_C_and_k
check test_fit_subcommand_on_synthetic_runs
check test_scene_shapes
check test_chute_profile_analysis
check test_mu_I_fit
check test_chute_analyse_on_synthetic_frames
check test_missing_numpy_named
check test_chute_end_to_end
check test_silo_end_to_end
finish
