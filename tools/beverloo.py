#!/usr/bin/env python3
"""The silo's discharge against the 2D Beverloo law (docs/validation.md, "Beverloo").

A flat-bottomed 2D silo of width L with an orifice of width D in the middle of its floor (two
floor walls leaving a gap), an outflow region below the floor that removes the discs that fall
through, and an inflow at the top that pours new discs in so that the fill height stays above
2 D; the silo starts filled with a lattice of discs. For each D/d in --widths (4, 6, 9, 13, 20;
d the mean small diameter, 2 mm) the tool writes the scene and runs mixsim on it.

  run   writes the scenes (silo_D<D/d>.ini) into OUT and, unless --write-only, runs mixsim on
        each (--jobs at once), frames and diagnostics.csv in OUT/silo_D<D/d>/.
  fit   reads each run's diagnostics.csv (outflow_<NAME>_mass: the mass removed since the
        previous row) and frames: the discharge rate W of each run is the slope of a linear fit
        of the cumulative removed mass against time over the steady window (below), its
        uncertainty the standard error of the slopes of --subwindows equal sub-windows; the
        bulk density rho = phi * sigma (sigma the discs' areal density, phi the packing
        fraction measured in the silo's body from the frames of the window). Then
        W = C rho sqrt(g) (D - k d)^{3/2} is fitted by nonlinear least squares (C, k and their
        standard errors), and a table (beverloo.md) and a figure (beverloo.png: W^{2/3} against
        D, a line whose intercept with the D axis is k d) are written to the output folder.

The steady window of a run is [--t0, end of run], cut where the fill height (measured from the
frames: the highest bin of 2 d across the silo whose packing fraction exceeds 0.4) falls below
floor + 2 D or rises into the inflow's region, and where fewer than 3 rows are left the run is
reported and left out of the fit.

usage: beverloo.py run --mixsim EXE --out DIR [--widths 4,6,9,13,20] [--time S] [--jobs N]
                       [--write-only] [--mixsim-args "--device gpu --cpu-threads 2"]
       beverloo.py fit --out DIR [--t0 S] [--subwindows N] [--no-phi]
"""
import argparse
import concurrent.futures
import csv
import glob
import math
import os
import shlex
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the tools
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pymods  # noqa: E402

G = 9.81
D_SMALL = 0.002             # mean small diameter d, m
R_SPREAD = 0.05             # radii uniform in d/2 (1 +- R_SPREAD)
SIGMA = 25.0                # areal density of the discs, kg/m^2 (2500 kg/m^3, 1 cm thick)
PHI_GUESS = 0.82            # packing fraction for the inflow's rate only
WIDTHS = (4, 6, 9, 13, 20)  # D / d
SILO_W = 60                 # silo width L / d (L > 2.5 D and L > D + 30 d for D <= 20 d)
FLOOR_Y = 12                # floor height / d (the outflow region below it)
FILL = 110                  # initial fill height above the floor / d
SILO_H = 200                # box height / d
INFLOW_H = 20               # the inflow pours into the box's top INFLOW_H d
MATERIAL = {"stiffness": 1.0e4, "restitution": 0.5, "friction": 0.5, "wall_friction": 0.5}
DT = 1.0e-5
OUTFLOW = "exit"

# Published values beside the fit (docs/validation.md, "Beverloo", gives the sources and what
# was checked in each).
PUBLISHED = [
    ("Beverloo's exponent in d dimensions: d - 1/2, 3/2 in 2D; hard-disc hopper simulations "
     "give an offset k up to ~3.5 (\"Hopper flows of deformable particles\", arXiv)",
     "exponent 3/2", "k <= ~3.5"),
    ("Wang, Zhu, Shi & Zheng 2020, Chin. Phys. B 29, 044502: 2D discs (d = 11 mm), Janda's "
     "form C' x (1 - alpha e^{-beta x})", "C' = 0.95", "(alpha 0.74, beta 0.19)"),
]


def law1(D, C, k, rho=SIGMA, d=D_SMALL):
    """The 2D Beverloo law W = C rho sqrt(g) (D - k d)^{3/2}, kg/s per m of thickness, for one
    D (no numpy: the scenes need none); 0 where D < k d."""
    return C * rho * math.sqrt(G) * max(0.0, D - k * d) ** 1.5


def law(D, C, k, rho=SIGMA, d=D_SMALL):
    """law1 over an array of D (numpy)."""
    import numpy as np
    x = np.clip(np.asarray(D, dtype=float) - k * d, 0.0, None)
    return C * rho * math.sqrt(G) * x ** 1.5


# ---------------------------------------------------------------- scenes
def geometry(width_d):
    """Lengths of the silo of orifice width_d * d, m: L, floor y, orifice x0, x1, box height."""
    L, yf = SILO_W * D_SMALL, FLOOR_Y * D_SMALL
    D = width_d * D_SMALL
    H = SILO_H * D_SMALL
    return {"L": L, "yf": yf, "D": D, "x0": 0.5 * (L - D), "x1": 0.5 * (L + D), "H": H,
            "top": H - (INFLOW_H + 2) * D_SMALL}


def inflow_rate(width_d, factor=1.0):
    """Discs per second the inflow pours: factor times the estimate C = 1, k = 1.5."""
    D = width_d * D_SMALL
    m = SIGMA * math.pi * (0.5 * D_SMALL) ** 2
    return factor * law1(D, 1.0, 1.5, PHI_GUESS * SIGMA) / m


def scene(width_d, run_time, seed=1, every=0.02, refill=1.0):
    """The silo scene's text for orifice width width_d * d."""
    g = geometry(width_d)
    rmin, rmax = 0.5 * D_SMALL * (1 - R_SPREAD), 0.5 * D_SMALL * (1 + R_SPREAD)
    L, yf, H = g["L"], g["yf"], g["H"]
    top = yf + FILL * D_SMALL
    steps = int(round(run_time / DT))
    m = MATERIAL
    text = f"""; tools/beverloo.py: 2D silo, orifice D = {width_d} d (d = {D_SMALL} m)
[simulation]
dt = {DT}
steps = {steps}
seed = {seed}
gravity = 0, -{G}

[box]
min = 0, 0
max = {L:.6g}, {H:.6g}

[material]
stiffness = {m['stiffness']}
restitution = {m['restitution']}
friction = {m['friction']}
wall_friction = {m['wall_friction']}

[small]
count = 1000000
radius_min = {rmin:.6g}
radius_max = {rmax:.6g}
density = {SIGMA} kg/m^2
placement = lattice
spacing = 1.05
region = {rmax:.6g}, {yf + rmax:.6g}, {L - rmax:.6g}, {top:.6g}
velocity_spread = 0.01

[wall.floor_left]
segments = 0, {yf:.6g}, {g['x0']:.6g}, {yf:.6g}

[wall.floor_right]
segments = {g['x1']:.6g}, {yf:.6g}, {L:.6g}, {yf:.6g}

[outflow.{OUTFLOW}]
region = 0, 0, {L:.6g}, {yf - 3 * D_SMALL:.6g}
"""
    if refill > 0:
        text += f"""
[inflow.top]
region = {rmax:.6g}, {H - INFLOW_H * D_SMALL:.6g}, {L - rmax:.6g}, {H - rmax:.6g}
rate = {inflow_rate(width_d, refill):.6g}
radius_min = {rmin:.6g}
radius_max = {rmax:.6g}
density = {SIGMA} kg/m^2
velocity = 0, -0.5
velocity_spread = 0.05
"""
    text += f"""
[output]
dir = silo_D{width_d:g}
every = {max(1, int(round(every / DT)))}
format = csv
diagnostics = true
"""
    return lattice_count(text, width_d)


def lattice_count(text, width_d):
    """The scene with [small] count set to the sites of its lattice region (spacing 1.05 of the
    largest diameter), as mixsim places them."""
    g = geometry(width_d)
    pitch = 2 * 0.5 * D_SMALL * (1 + R_SPREAD) * 1.05
    rmax = 0.5 * D_SMALL * (1 + R_SPREAD)
    nx = int((g["L"] - 2 * rmax) / pitch)
    ny = int((FILL * D_SMALL - rmax) / pitch)
    return text.replace("count = 1000000", f"count = {nx * ny}")


def run_one(exe, out, width_d, extra):
    """Runs mixsim on silo_D<w>.ini in folder out; returns (width, seconds, return code, log)."""
    cmd = [exe, "--headless", "--quiet", "--output-clear", f"silo_D{width_d:g}.ini"] + extra
    t = time.time()
    p = subprocess.run(cmd, cwd=out, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return width_d, time.time() - t, p.returncode, p.stdout[-2000:]


def cmd_run(a):
    os.makedirs(a.out, exist_ok=True)
    for w in a.widths:
        with open(os.path.join(a.out, f"silo_D{w:g}.ini"), "w") as f:
            f.write(scene(w, a.time, a.seed, a.every, a.refill))
        print(f"wrote {os.path.join(a.out, f'silo_D{w:g}.ini')}")
    if a.write_only:
        return 0
    if not a.mixsim:
        sys.exit("beverloo.py run: --mixsim EXE is needed (or --write-only)")
    exe, extra = os.path.abspath(a.mixsim), shlex.split(a.mixsim_args or "")
    bad = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for w, secs, rc, log in pool.map(lambda w: run_one(exe, a.out, w, extra), a.widths):
            print(f"D = {w:g} d: {'ok' if rc == 0 else 'FAILED (%d)' % rc} in {secs:.0f} s")
            if rc:
                bad += 1
                print(log)
    return 1 if bad else 0


# ---------------------------------------------------------------- measurement
def read_diagnostics(path, outflow=OUTFLOW):
    """(times, removed mass per row) of a diagnostics.csv: outflow_<outflow>_mass plus every
    open side's open_*_mass (discs lost through an open side leave the silo too)."""
    times, mass = [], []
    with open(path) as f:
        rows = csv.DictReader(f)
        cols = [c for c in rows.fieldnames if c == f"outflow_{outflow}_mass"
                or (c.startswith("open_") and c.endswith("_mass"))]
        if f"outflow_{outflow}_mass" not in cols:
            sys.exit(f"beverloo.py: {path} has no column outflow_{outflow}_mass")
        for r in rows:
            times.append(float(r["time"]))
            mass.append(sum(float(r[c]) for c in cols))
    return times, mass


def cumulative(mass_per_row):
    """The removed mass up to each row (the first row counts what went before it)."""
    out, s = [], 0.0
    for m in mass_per_row:
        s += m
        out.append(s)
    return out


def slope(ts, ms):
    """Least-squares slope of ms against ts."""
    n = len(ts)
    mt, mm = sum(ts) / n, sum(ms) / n
    stt = sum((t - mt) ** 2 for t in ts)
    return sum((t - mt) * (m - mm) for t, m in zip(ts, ms)) / stt


def discharge_rate(times, cum, t0, t1, parts=4):
    """W over [t0, t1]: the slope of the cumulative mass over the window's rows, and its
    uncertainty: the standard error of the slopes of `parts` equal sub-windows (their standard
    deviation / sqrt(parts)); also the sub-windows' slopes. None where the window has fewer
    than 3 rows."""
    sel = [(t, m) for t, m in zip(times, cum) if t0 - 1e-12 <= t <= t1 + 1e-12]
    if len(sel) < 3:
        return None
    ts, ms = [t for t, _ in sel], [m for _, m in sel]
    w = slope(ts, ms)
    subs = []
    edges = [t0 + (t1 - t0) * i / parts for i in range(parts + 1)]
    for lo, hi in zip(edges[:-1], edges[1:]):
        q = [(t, m) for t, m in sel if lo - 1e-12 <= t <= hi + 1e-12]
        if len(q) >= 2:
            subs.append(slope([t for t, _ in q], [m for _, m in q]))
    if len(subs) >= 2:
        mean = sum(subs) / len(subs)
        sd = math.sqrt(sum((s - mean) ** 2 for s in subs) / (len(subs) - 1))
        err = sd / math.sqrt(len(subs))
    else:
        err = float("nan")
    return {"W": w, "err": err, "subs": subs, "rows": len(sel), "t0": ts[0], "t1": ts[-1]}


def disc_strip_area(yc, r, lo, hi):
    """Area of the discs (centres yc, radii r: arrays) between the heights lo and hi."""
    import numpy as np
    yc, r = np.asarray(yc, dtype=float), np.asarray(r, dtype=float)

    def below(h):  # area of each disc below y = h
        u = np.clip((h - yc) / r, -1.0, 1.0)
        return r * r * (np.arcsin(u) + u * np.sqrt(1 - u * u) + 0.5 * math.pi)
    return below(hi) - below(lo)


def packing_profile(x, y, r, x0, x1, y0, y1, bin_h):
    """(bin centres, packing fraction) of the discs in the columns x0 < x < x1 (by centre),
    heights y0..y1 in bins of bin_h, the discs' areas split exactly between bins."""
    import numpy as np
    x, y, r = (np.asarray(v, dtype=float) for v in (x, y, r))
    keep = (x > x0) & (x < x1)
    y, r = y[keep], r[keep]
    n = max(1, int(round((y1 - y0) / bin_h)))
    edges = np.linspace(y0, y1, n + 1)
    phi = np.array([disc_strip_area(y, r, lo, hi).sum() for lo, hi in zip(edges[:-1], edges[1:])])
    return 0.5 * (edges[:-1] + edges[1:]), phi / ((x1 - x0) * (edges[1:] - edges[:-1]))


def fill_height(x, y, r, x0, x1, y0, y1, bin_h, phi_min=0.4):
    """The bed's top: the upper edge of the highest bin whose packing fraction exceeds phi_min
    (falling discs above the bed are too sparse to count); y0 where none does."""
    zc, phi = packing_profile(x, y, r, x0, x1, y0, y1, bin_h)
    dense = [i for i, p in enumerate(phi) if p > phi_min]
    return float(zc[dense[-1]] + 0.5 * bin_h) if dense else y0


def read_csv_frames(folder):
    """[(time, x, y, r)] of mixsim's CSV frames in folder (frames.csv and frame_*.csv)."""
    out = []
    index = os.path.join(folder, "frames.csv")
    if not os.path.exists(index):
        return out
    with open(index) as f:
        for row in csv.DictReader(f):
            xs, ys, rs = [], [], []
            with open(os.path.join(folder, row["file"])) as g:
                for q in csv.DictReader(g):
                    xs.append(float(q["x"]))
                    ys.append(float(q["y"]))
                    rs.append(float(q["radius"]))
            out.append((float(row["time"]), xs, ys, rs))
    return out


def bed_top(x, y, r, g):
    """The fill height of one frame: fill_height over the silo's body (5 d from the sides),
    from the floor up to 2 d below the inflow's region (whose own rain of discs is not bed)."""
    return fill_height(x, y, r, 5 * D_SMALL, g["L"] - 5 * D_SMALL, g["yf"], g["top"],
                       2 * D_SMALL)


def steady_window(frames, g, t0, t_end):
    """[t0, t1] with t1 the first frame time from t0 on where the fill height is out of
    [floor + 2 D, 2 d below the inflow's region); t_end where none is or without frames.
    Also why it ends and [(t, height)]."""
    heights = []
    lo, hi = g["yf"] + 2 * g["D"], g["top"] - 2 * D_SMALL
    t1, why = t_end, "end of run"
    for t, x, y, r in frames:
        h = bed_top(x, y, r, g)
        heights.append((t, h))
        if t >= t0 and not lo <= h <= hi and why == "end of run":
            t1, why = t, ("fill below 2 D" if h < lo else "fill at the inflow")
    return t0, min(t1, t_end), why, heights


def body_phi(frames, g, t0, t1):
    """Mean packing fraction of the silo's body over the window's frames: columns 5 d from the
    side walls, heights from floor + 1.5 D + 5 d over 20 d (below the bed's top)."""
    vals = []
    for t, x, y, r in frames:
        if not t0 <= t <= t1:
            continue
        top = bed_top(x, y, r, g)
        y0 = g["yf"] + 1.5 * g["D"] + 5 * D_SMALL
        y1 = min(y0 + 20 * D_SMALL, top - 3 * D_SMALL)
        if y1 - y0 < 4 * D_SMALL:
            continue
        _, phi = packing_profile(x, y, r, 5 * D_SMALL, g["L"] - 5 * D_SMALL, y0, y1, y1 - y0)
        vals.append(float(phi[0]))
    return sum(vals) / len(vals) if vals else float("nan")


# ---------------------------------------------------------------- the fit
def fit_beverloo(D, W, W_err, rho, d=D_SMALL):
    """Nonlinear least squares of W = C rho sqrt(g) (D - k d)^{3/2}: (C, k, their standard
    errors, reduced chi^2). The errors are curve_fit's covariance scaled by the residuals
    (absolute_sigma=False): the weights are the runs' W uncertainties, relative."""
    import numpy as np
    from scipy.optimize import curve_fit
    D, W = np.asarray(D, dtype=float), np.asarray(W, dtype=float)
    err = np.asarray(W_err, dtype=float)
    err = np.where(np.isfinite(err) & (err > 0), err, np.nanmax(np.r_[err[np.isfinite(err)],
                                                                    1e-3 * W.max()]))
    # a start from the straight line W^{2/3} = (C rho sqrt g)^{2/3} (D - k d)
    a, b = np.polyfit(D, W ** (2.0 / 3.0), 1)
    k0 = -b / a / d
    c0 = a ** 1.5 / (rho * math.sqrt(G))
    f = lambda x, C, k: law(x, C, k, rho, d)  # noqa: E731
    p, cov = curve_fit(f, D, W, p0=(c0, min(k0, 0.9 * D.min() / d)), sigma=err,
                       absolute_sigma=False, maxfev=20000)
    dof = max(1, len(D) - 2)
    chi2 = float(np.sum(((W - f(D, *p)) / err) ** 2) / dof)
    se = np.sqrt(np.diag(cov))
    return {"C": float(p[0]), "k": float(p[1]), "C_err": float(se[0]), "k_err": float(se[1]),
            "chi2_red": chi2, "line": (float(a), float(b))}


def measure_run(folder, width_d, t0, parts, use_phi):
    """One run's figures from its diagnostics.csv and frames (a dict; 'W' None when its
    steady window has under 3 rows)."""
    g = geometry(width_d)
    times, mass = read_diagnostics(os.path.join(folder, "diagnostics.csv"))
    cum = cumulative(mass)
    frames = read_csv_frames(folder) if use_phi else []
    w0, w1, why, heights = steady_window(frames, g, t0, times[-1])
    res = discharge_rate(times, cum, w0, w1, parts)
    phi = body_phi(frames, g, w0, w1) if frames else float("nan")
    out = {"D_d": width_d, "D": g["D"], "window": (w0, w1), "ends": why, "phi": phi,
           "heights": heights,
           "removed": cum[-1], "W": None}
    if res:
        out.update(res)
    return out


def cmd_fit(a):
    runs = []
    for ini in sorted(glob.glob(os.path.join(a.out, "silo_D*.ini"))):
        w = float(os.path.basename(ini)[len("silo_D"):-len(".ini")])
        folder = os.path.join(a.out, f"silo_D{w:g}")
        if not os.path.exists(os.path.join(folder, "diagnostics.csv")):
            print(f"D = {w:g} d: no {folder}/diagnostics.csv, left out")
            continue
        runs.append(measure_run(folder, w, a.t0, a.subwindows, not a.no_phi))
    runs.sort(key=lambda r: r["D"])
    return report(runs, a.out, a.no_phi)


def report(runs, out, no_phi=False):
    """Fits the runs that have a W, writes beverloo.md and beverloo.png to out, prints both."""
    pymods.require("beverloo.py", "numpy", "scipy", "matplotlib")
    import numpy as np
    good = [r for r in runs if r["W"] is not None and r["W"] > 0]
    for r in runs:
        if r not in good:
            print(f"D = {r['D_d']:g} d: no steady window of 3 rows or more, left out of the fit")
    if len(good) < 3:
        sys.exit("beverloo.py fit: fewer than 3 runs with a discharge rate: no fit")
    phis = [r["phi"] for r in good if r["phi"] == r["phi"]]
    phi = float(np.mean(phis)) if phis and not no_phi else 1.0
    rho = phi * SIGMA
    fit = fit_beverloo([r["D"] for r in good], [r["W"] for r in good],
                       [r["err"] for r in good], rho)
    lines = ["# The silo's discharge: 2D Beverloo fit", "",
             f"d = {D_SMALL} m (radii +-{R_SPREAD * 100:g} %), sigma = {SIGMA} kg/m^2, "
             f"silo {SILO_W} d wide; rho = phi sigma with phi = {phi:.4f} "
             + ("(mean over the runs' body, from the frames)" if phi != 1.0 else
                "(1: phi folded into C)") + f" = {rho:.3f} kg/m^2", "",
             "| D/d | window (s) | window ends | rows | W (kg/s/m) | W err | sub-window spread "
             "| phi (body) |",
             "|---|---|---|---|---|---|---|---|"]
    for r in runs:
        if r["W"] is None:
            lines.append(f"| {r['D_d']:g} | - | {r['ends']} | - | - | - | - | - |")
            continue
        spread = max(r["subs"]) - min(r["subs"]) if r["subs"] else float("nan")
        lines.append(f"| {r['D_d']:g} | {r['t0']:.3f}-{r['t1']:.3f} | {r['ends']} | {r['rows']} | "
                     f"{r['W']:.5g} | {r['err']:.2g} | {spread:.2g} | {r['phi']:.4f} |")
    lines += ["", "W = C rho sqrt(g) (D - k d)^{3/2}, nonlinear least squares:", "",
              "| | C | k | reduced chi^2 |", "|---|---|---|---|",
              f"| mixsim | {fit['C']:.4f} +- {fit['C_err']:.4f} | {fit['k']:.3f} +- "
              f"{fit['k_err']:.3f} | {fit['chi2_red']:.2f} |"]
    for src, c, k in PUBLISHED:
        lines.append(f"| {src} | {c} | {k} | |")
    text = "\n".join(lines) + "\n"
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "beverloo.md"), "w") as f:
        f.write(text)
    print(text)
    draw(good, fit, rho, os.path.join(out, "beverloo.png"))
    print("figure: " + os.path.join(out, "beverloo.png"))
    return 0


def draw(runs, fit, rho, path):
    import numpy as np
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    D = np.array([r["D"] for r in runs])
    W = np.array([r["W"] for r in runs])
    err = np.array([r["err"] if r["err"] == r["err"] else 0 for r in runs])
    fig, ax = plt.subplots(figsize=(5.5, 4))
    y = W ** (2 / 3)
    ax.errorbar(D / D_SMALL, y, yerr=(2 / 3) * W ** (-1 / 3) * err, fmt="o", label="mixsim")
    xx = np.linspace(fit["k"] * D_SMALL, D.max() * 1.05, 100)
    ax.plot(xx / D_SMALL, law(xx, fit["C"], fit["k"], rho) ** (2 / 3), "-",
            label=f"Beverloo: C = {fit['C']:.3f}, k = {fit['k']:.2f}")
    ax.set_xlim(0, None)
    ax.set_ylim(0, None)
    ax.set_xlabel("orifice width D / d")
    ax.set_ylabel("W^{2/3}  ((kg/s per m)^{2/3})")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def floats(text):
    try:
        v = [float(s) for s in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of numbers: {text}")
    if not v or any(x <= 0 or x != x for x in v):
        raise argparse.ArgumentTypeError("--widths takes positive numbers")
    return v


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="write the silo scenes and run mixsim on them")
    r.add_argument("--mixsim", help="the mixsim executable")
    r.add_argument("--out", required=True, help="folder of the scenes and runs")
    r.add_argument("--widths", type=floats, default=list(WIDTHS), help="D/d (4,6,9,13,20)")
    r.add_argument("--time", type=float, default=4.0, help="simulated seconds per run (4)")
    r.add_argument("--every", type=float, default=0.02, help="s between frames/rows (0.02)")
    r.add_argument("--refill", type=float, default=1.3,
                   help="the inflow's rate over the Beverloo estimate C = 1, k = 1.5 (1.3; "
                   "0: no inflow, the silo drains)")
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--jobs", type=int, default=1, help="runs at once (1)")
    r.add_argument("--write-only", action="store_true", help="write the scenes, run nothing")
    r.add_argument("--mixsim-args", help="extra mixsim arguments, e.g. \"--device gpu "
                   "--cpu-threads 2\"")
    f = sub.add_parser("fit", help="measure W per run and fit Beverloo's law")
    f.add_argument("--out", required=True, help="the folder `run` wrote")
    f.add_argument("--t0", type=float, default=0.5,
                   help="start of the steady window, s (0.5: after the flow is established)")
    f.add_argument("--subwindows", type=int, default=4,
                   help="sub-windows whose slopes' spread gives W's uncertainty (4)")
    f.add_argument("--no-phi", action="store_true",
                   help="rho = sigma (phi folded into C) instead of measuring phi from frames")
    a = p.parse_args(argv)
    if a.cmd == "fit":
        pymods.require("beverloo.py", "numpy", "scipy", "matplotlib")
        return cmd_fit(a)
    return cmd_run(a)


if __name__ == "__main__":
    sys.exit(main())
