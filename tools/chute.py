#!/usr/bin/env python3
"""The inclined chute: Bagnold's velocity profile and the mu(I) rheology
(docs/validation.md, "The inclined chute").

A layer of small discs (d = 2 mm, radii +-10 %, so that the layer does not crystallise), a
lattice 26 diameters deep at the start that settles to a flowing layer about 18 d deep, flows
down a rough incline in a box periodic in x, 40 diameters long. The incline is the box's x axis with gravity tilted by theta: g = (g sin theta,
-g cos theta). The rough base is a row of static discs of diameter d, touching, their centres
d / 2 above a flat base wall (a straight segment from one periodic side to the other), written as
[large.baseN] sections with static = true: a fixed roughness of one diameter, the usual rough
base of chute simulations. The top of the box is a wall far above the free surface.

  run      writes chute_<theta>.ini for each angle (--angles, default 20,24) into OUT and,
           unless --write-only, runs mixsim (VTK frames every --every s).
  analyse  reads the frames after --t0 (default: half the run) and time-averages, in bins of
           --bin diameters of the height z above the base's tops: the packing fraction phi(z)
           (each disc's area split exactly between bins), the velocity v_x(z) (area-weighted),
           the shear rate dv/dz; the flow height h (where phi falls to half its bulk value); a
           fit of Bagnold's profile v(z) = A [h^{3/2} - (h - z)^{3/2}] + v_slip (A, v_slip,
           R^2, rms residual); the pressure P(z) = int_z^top sigma phi g cos theta dz' (sigma the
           discs' areal density; force per length in 2D), tau = tan(theta) P (steady, uniform
           flow), I(z) = gamma_dot d / sqrt(P / sigma). mu = tan(theta) against the inertial
           number of the bulk (z in [0.25 h, 0.75 h]) is fitted by mu(I) = mu_s + (mu_2 - mu_s)
           / (1 + I_0 / I) (Jop, Forterre & Pouliquen 2006): all three with three angles or more,
           mu_2 held at --mu2 with two. Steadiness is checked: the mean v_x of the first and
           second halves of the window must agree within 5 %.
           Writes chute.md (tables) and chute_profiles.png, chute_mu_I.png.

usage: chute.py run --mixsim EXE --out DIR [--angles 20,24] [--time S] [--write-only]
                    [--jobs N] [--mixsim-args "--device gpu"]
       chute.py analyse --out DIR [--t0 S] [--bin 0.5] [--mu2 0.64]
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
D_SMALL = 0.002     # mean diameter d, m
R_SPREAD = 0.10     # radii uniform in d/2 (1 +- R_SPREAD)
SIGMA = 25.0        # areal density, kg/m^2
LENGTH = 40         # period / d
DEPTH = 26          # the lattice's initial depth / d (the layer settles to about 0.7 of it)
BASE_Y = 2          # the base wall's height / d
MATERIAL = {"stiffness": 1.0e4, "restitution": 0.5, "friction": 0.5, "wall_friction": 0.5}
DT = 1.0e-5
ANGLES = (20.0, 24.0)
MU2_JOP = 0.64      # tan(32.76 deg), Jop et al. 2006 (glass beads): the default for --mu2


# ---------------------------------------------------------------- scenes
def base_top():
    """Height of the base discs' tops (z = 0 of the profiles), m."""
    return (BASE_Y + 1) * D_SMALL


def scene(theta_deg, run_time, every, seed=1, length=LENGTH, depth=DEPTH):
    """The chute scene's text at inclination theta_deg."""
    th = math.radians(theta_deg)
    d = D_SMALL
    L = length * d
    yb = BASE_Y * d
    H = base_top() + 2.5 * depth * d + 10 * d
    rmin, rmax = 0.5 * d * (1 - R_SPREAD), 0.5 * d * (1 + R_SPREAD)
    pitch = 2 * rmax * 1.05
    y0, y1 = base_top() + rmax + 0.1 * d, base_top() + depth * d
    count = int(L / pitch) * int((y1 - y0) / pitch)
    m = MATERIAL
    text = f"""; tools/chute.py: 2D chute, theta = {theta_deg:g} deg, rough base of static discs
[simulation]
dt = {DT}
steps = {int(round(run_time / DT))}
seed = {seed}
gravity = {G * math.sin(th):.9g}, {-G * math.cos(th):.9g}

[box]
min = 0, 0
max = {L:.6g}, {H:.6g}
periodic = x

[material]
stiffness = {m['stiffness']}
restitution = {m['restitution']}
friction = {m['friction']}
wall_friction = {m['wall_friction']}

[small]
count = {count}
radius_min = {rmin:.6g}
radius_max = {rmax:.6g}
density = {SIGMA} kg/m^2
placement = lattice
spacing = 1.05
region = 0, {y0:.6g}, {L:.6g}, {y1:.6g}
velocity_spread = 0.05

[wall.base]
segments = 0, {yb:.6g}, {L:.6g}, {yb:.6g}
"""
    for i in range(int(round(length))):
        text += f"""
[large.base{i}]
position = {(i + 0.5) * d:.6g}, {yb + 0.5 * d:.6g}
radius = {0.5 * d:.6g}
density = {SIGMA} kg/m^2
static = true
"""
    text += f"""
[output]
dir = chute_{theta_deg:g}
every = {max(1, int(round(every / DT)))}
format = vtk
diagnostics = true
"""
    return text


def run_one(exe, out, theta, extra):
    cmd = [exe, "--headless", "--quiet", "--output-clear", f"chute_{theta:g}.ini"] + extra
    t = time.time()
    p = subprocess.run(cmd, cwd=out, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return theta, time.time() - t, p.returncode, p.stdout[-2000:]


def cmd_run(a):
    os.makedirs(a.out, exist_ok=True)
    for th in a.angles:
        path = os.path.join(a.out, f"chute_{th:g}.ini")
        with open(path, "w") as f:
            f.write(scene(th, a.time, a.every, a.seed))
        print(f"wrote {path}")
    if a.write_only:
        return 0
    if not a.mixsim:
        sys.exit("chute.py run: --mixsim EXE is needed (or --write-only)")
    exe, extra = os.path.abspath(a.mixsim), shlex.split(a.mixsim_args or "")
    bad = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for th, secs, rc, log in pool.map(lambda t: run_one(exe, a.out, t, extra), a.angles):
            print(f"theta = {th:g}: {'ok' if rc == 0 else 'FAILED (%d)' % rc} in {secs:.0f} s")
            if rc:
                bad += 1
                print(log)
    return 1 if bad else 0


# ---------------------------------------------------------------- frames
def read_frames(folder):
    """[(time, y, r, vx, kind)] of a run's frames: VTK (frames.pvd, vtkmodules) or CSV
    (frames.csv)."""
    if os.path.exists(os.path.join(folder, "frames.csv")):
        return read_csv_frames(folder)
    pymods.require("chute.py", "vtkmodules")
    from vtkmodules.vtkIOXML import vtkXMLPolyDataReader
    from vtkmodules.util.numpy_support import vtk_to_numpy
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "frame_*.vtp"))):
        rd = vtkXMLPolyDataReader()
        rd.SetFileName(path)
        rd.Update()
        pd = rd.GetOutput()
        pts = vtk_to_numpy(pd.GetPoints().GetData())
        pt = pd.GetPointData()
        t = float(vtk_to_numpy(pd.GetFieldData().GetArray("TimeValue"))[0])
        out.append((t, pts[:, 1], vtk_to_numpy(pt.GetArray("radius")),
                    vtk_to_numpy(pt.GetArray("velocity"))[:, 0], vtk_to_numpy(pt.GetArray("kind"))))
    return out


def read_csv_frames(folder):
    import numpy as np
    out = []
    with open(os.path.join(folder, "frames.csv")) as f:
        for row in csv.DictReader(f):
            ys, rs, vs, ks = [], [], [], []
            with open(os.path.join(folder, row["file"])) as g:
                for q in csv.DictReader(g):
                    ys.append(float(q["y"]))
                    rs.append(float(q["radius"]))
                    vs.append(float(q["vx"]))
                    ks.append(0 if q["kind"] in ("0", "small") else 2)
            out.append((float(row["time"]), np.array(ys), np.array(rs), np.array(vs),
                        np.array(ks)))
    return out


# ---------------------------------------------------------------- profiles (arrays)
def strip_areas(yc, r, edges):
    """[bins x discs] areas of each disc between consecutive edges (exact circle strips)."""
    import numpy as np
    yc, r = np.asarray(yc, dtype=float), np.asarray(r, dtype=float)
    u = np.clip((np.asarray(edges, dtype=float)[:, None] - yc[None, :]) / r[None, :], -1, 1)
    below = r[None, :] ** 2 * (np.arcsin(u) + u * np.sqrt(1 - u * u) + 0.5 * math.pi)
    return np.diff(below, axis=0)


def profiles(frames, z0, length, top, bin_h):
    """Time-averaged profiles over the frames [(t, y, r, vx, kind)] of the moving discs
    (kind 0): z (bin centres above z0), phi(z), v_x(z) (area-weighted; NaN where empty), and
    the per-half means of v_x for the steadiness check."""
    import numpy as np
    n = max(1, int(math.ceil((top - z0) / bin_h)))
    edges = z0 + bin_h * np.arange(n + 1)
    area = np.zeros(n)
    mom = np.zeros(n)
    halves = []
    for t, y, r, vx, kind in frames:
        keep = np.asarray(kind) == 0
        a = strip_areas(np.asarray(y)[keep], np.asarray(r)[keep], edges)
        area += a.sum(axis=1)
        mom += a @ np.asarray(vx)[keep]
        halves.append(float(np.mean(np.asarray(vx)[keep])))
    nf = max(1, len(frames))
    phi = area / (nf * length * bin_h)
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.where(area > 0, mom / area, np.nan)
    z = 0.5 * (edges[:-1] + edges[1:]) - z0
    k = len(halves) // 2
    split = (float(np.mean(halves[:k])) if k else float("nan"),
             float(np.mean(halves[k:])) if halves[k:] else float("nan"))
    return z, phi, v, split


def flow_height(z, phi):
    """The free surface h: the height where phi, going up, last falls below half its bulk
    value (the median of phi over the bins between 20 % and 60 % of the highest bin with
    phi > 0.05), by linear interpolation between bins."""
    import numpy as np
    z, phi = np.asarray(z), np.asarray(phi)
    filled = np.nonzero(phi > 0.05)[0]
    if not len(filled):
        return float("nan")
    ztop = z[filled[-1]]
    core = (z >= 0.2 * ztop) & (z <= 0.6 * ztop)
    half = 0.5 * float(np.median(phi[core])) if core.any() else 0.5 * float(phi.max())
    above = np.nonzero(phi >= half)[0]
    i = above[-1]
    if i + 1 >= len(z):
        return float(z[i])
    return float(z[i] + (phi[i] - half) / (phi[i] - phi[i + 1]) * (z[i + 1] - z[i]))


def bagnold(z, A, h, v_slip):
    import numpy as np
    zz = np.clip(np.asarray(z, dtype=float), 0.0, h)
    return A * (h ** 1.5 - (h - zz) ** 1.5) + v_slip


def fit_bagnold(z, v, h, fit_h=False):
    """Bagnold's profile fitted to v(z) for 0 <= z <= h: A, v_slip (and h with fit_h), their
    standard errors, R^2 and the rms residual over the surface velocity."""
    import numpy as np
    from scipy.optimize import curve_fit
    z, v = np.asarray(z, dtype=float), np.asarray(v, dtype=float)
    sel = (z >= 0) & (z <= h) & np.isfinite(v)
    zs, vs = z[sel], v[sel]
    a0 = (vs.max() - vs.min()) / h ** 1.5 if vs.max() > vs.min() else 1.0
    if fit_h:
        p, cov = curve_fit(lambda x, A, hh, s: bagnold(x, A, hh, s), zs, vs, p0=(a0, h, vs.min()))
        A, hh, s = p
        se = np.sqrt(np.diag(cov))
        errs = {"A_err": se[0], "h_err": se[1], "v_slip_err": se[2]}
    else:
        p, cov = curve_fit(lambda x, A, s: bagnold(x, A, h, s), zs, vs, p0=(a0, vs.min()))
        (A, s), hh = p, h
        se = np.sqrt(np.diag(cov))
        errs = {"A_err": se[0], "v_slip_err": se[1]}
    res = vs - bagnold(zs, A, hh, s)
    ss = float(np.sum((vs - vs.mean()) ** 2))
    out = {"A": float(A), "h": float(hh), "v_slip": float(s), "n": int(sel.sum()),
           "r2": 1 - float(np.sum(res ** 2)) / ss if ss > 0 else float("nan"),
           "rms_rel": float(np.sqrt(np.mean(res ** 2)) / max(abs(vs).max(), 1e-300))}
    out.update({k: float(x) for k, x in errs.items()})
    return out


def pressure(z, phi, theta_deg, sigma=SIGMA):
    """P(z) = int_z^top sigma phi g cos(theta) dz' (per unit length in 2D): the weight of the
    layer above z, by the trapezoid rule from the top bin down."""
    import numpy as np
    z, phi = np.asarray(z, dtype=float), np.asarray(phi, dtype=float)
    w = sigma * phi * G * math.cos(math.radians(theta_deg))
    p = np.zeros_like(z)
    dz = np.diff(z)
    p[:-1] = np.cumsum((0.5 * (w[:-1] + w[1:]) * dz)[::-1])[::-1]
    return p + 0.5 * w[-1] * (dz[-1] if len(dz) else 0)


def inertial_number(z, v, P, d=D_SMALL, sigma=SIGMA):
    """(shear rate dv/dz, I = gamma_dot d / sqrt(P / sigma)) on the bins."""
    import numpy as np
    gd = np.gradient(np.asarray(v, dtype=float), np.asarray(z, dtype=float))
    with np.errstate(invalid="ignore", divide="ignore"):
        inr = np.abs(gd) * d / np.sqrt(np.asarray(P, dtype=float) / sigma)
    return gd, inr


def bulk_mean(z, x, h, lo=0.25, hi=0.75):
    import numpy as np
    z, x = np.asarray(z), np.asarray(x)
    sel = (z >= lo * h) & (z <= hi * h) & np.isfinite(x)
    return float(np.mean(x[sel])) if sel.any() else float("nan")


def mu_of_I(inr, mu_s, mu_2, i0):
    import numpy as np
    inr = np.asarray(inr, dtype=float)
    return mu_s + (mu_2 - mu_s) / (1 + i0 / inr)


def fit_mu_I(inr, mu, mu2_fixed=MU2_JOP):
    """mu(I) fitted to the points (I, mu): mu_s, mu_2, I_0 with 3 points or more; with 2, mu_2
    held at mu2_fixed. Returns the parameters, their standard errors (NaN where exact) and
    which were fitted."""
    import warnings
    import numpy as np
    from scipy.optimize import curve_fit, OptimizeWarning
    warnings.simplefilter("ignore", OptimizeWarning)  # exact fits have no covariance: NaN
    inr, mu = np.asarray(inr, dtype=float), np.asarray(mu, dtype=float)
    if len(inr) >= 3:
        p0 = (mu.min() - 0.02, max(mu.max() + 0.1, mu2_fixed), float(np.median(inr)))
        p, cov = curve_fit(mu_of_I, inr, mu, p0=p0, maxfev=20000)
        se = np.sqrt(np.diag(cov)) if len(inr) > 3 else np.full(3, np.nan)
        return {"mu_s": p[0], "mu_2": p[1], "I_0": p[2], "mu_s_err": se[0], "mu_2_err": se[1],
                "I_0_err": se[2], "fitted": "mu_s, mu_2, I_0"}
    if len(inr) == 2:
        f = lambda x, ms, i0: mu_of_I(x, ms, mu2_fixed, i0)  # noqa: E731
        p, _ = curve_fit(f, inr, mu, p0=(mu.min() - 0.02, float(np.mean(inr))), maxfev=20000)
        return {"mu_s": p[0], "mu_2": mu2_fixed, "I_0": p[1], "mu_s_err": float("nan"),
                "mu_2_err": float("nan"), "I_0_err": float("nan"),
                "fitted": f"mu_s, I_0 (mu_2 held at {mu2_fixed:g})"}
    raise ValueError("fit_mu_I needs two points or more")


def analyse_profile(z, phi, v, theta_deg, d=D_SMALL, sigma=SIGMA):
    """Everything measured on one angle's time-averaged profiles (arrays)."""
    import numpy as np
    h = flow_height(z, phi)
    bag = fit_bagnold(z, v, h)
    P = pressure(z, phi, theta_deg, sigma)
    vv = np.where(np.isfinite(v), v, 0.0)
    gd, inr = inertial_number(z, vv, P, d, sigma)
    return {"theta": theta_deg, "mu": math.tan(math.radians(theta_deg)), "h": h,
            "phi_bulk": bulk_mean(z, phi, h), "I_bulk": bulk_mean(z, inr, h),
            "gamma_bulk": bulk_mean(z, gd, h), "bagnold": bag, "P": P, "I": inr,
            "gamma": gd}


# ---------------------------------------------------------------- analyse
def cmd_analyse(a):
    pymods.require("chute.py", "numpy", "scipy", "matplotlib")
    results = []
    for ini in sorted(glob.glob(os.path.join(a.out, "chute_*.ini")),
                      key=lambda p: float(os.path.basename(p)[6:-4])):
        th = float(os.path.basename(ini)[6:-4])
        folder = os.path.join(a.out, f"chute_{th:g}")
        frames = read_frames(folder) if os.path.isdir(folder) else []
        if not frames:
            print(f"theta = {th:g}: no frames in {folder}, left out")
            continue
        t_end = frames[-1][0]
        t0 = a.t0 if a.t0 is not None else 0.5 * t_end
        use = [f for f in frames if f[0] >= t0]
        z, phi, v, split = profiles(use, base_top(), LENGTH * D_SMALL,
                                    base_top() + 3 * DEPTH * D_SMALL, a.bin * D_SMALL)
        r = analyse_profile(z, phi, v, th)
        r.update({"z": z, "phi": phi, "v": v, "split": split, "frames": len(use),
                  "window": (use[0][0], use[-1][0])})
        r["steady"] = abs(split[1] - split[0]) <= 0.05 * max(abs(split[1]), 1e-12)
        results.append(r)
    if not results:
        sys.exit("chute.py analyse: no run with frames")
    return report(results, a.out, a.mu2)


def report(results, out, mu2):
    import numpy as np
    lines = ["# The inclined chute: Bagnold and mu(I)", "",
             f"d = {D_SMALL} m (radii +-{R_SPREAD * 100:g} %), sigma = {SIGMA} kg/m^2, period "
             f"{LENGTH} d, rough base of static discs of diameter d; z from the base's tops", "",
             "| theta | frames (window, s) | h / d | phi bulk | v_x halves (m/s) | steady | "
             "Bagnold A | v_slip (m/s) | R^2 | rms / v_max | I bulk |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        b = r["bagnold"]
        lines.append(
            f"| {r['theta']:g} | {r['frames']} ({r['window'][0]:.2f}-{r['window'][1]:.2f}) | "
            f"{r['h'] / D_SMALL:.2f} | {r['phi_bulk']:.3f} | {r['split'][0]:.4g} / "
            f"{r['split'][1]:.4g} | {'yes' if r['steady'] else 'NO'} | {b['A']:.4g} +- "
            f"{b['A_err']:.2g} | {b['v_slip']:.4g} +- {b['v_slip_err']:.2g} | {b['r2']:.4f} | "
            f"{b['rms_rel']:.3f} | {r['I_bulk']:.4f} |")
    fit = None
    pts = [(r["I_bulk"], r["mu"]) for r in results if r["I_bulk"] == r["I_bulk"]]
    if len(pts) >= 2:
        fit = fit_mu_I([p[0] for p in pts], [p[1] for p in pts], mu2)
        lines += ["", "mu(I) = mu_s + (mu_2 - mu_s) / (1 + I_0 / I), fitted "
                  f"({fit['fitted']}):", "", "| | mu_s | mu_2 | I_0 |", "|---|---|---|---|",
                  f"| mixsim | {fit['mu_s']:.4f} +- {fit['mu_s_err']:.2g} | {fit['mu_2']:.4f} "
                  f"+- {fit['mu_2_err']:.2g} | {fit['I_0']:.4f} +- {fit['I_0_err']:.2g} |",
                  "| Jop, Forterre & Pouliquen 2006 (glass beads, 3D) | tan 20.9 deg = 0.382 | "
                  "tan 32.76 deg = 0.643 | 0.279 |"]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "chute.md"), "w") as f:
        f.write(text)
    print(text)
    draw(results, fit, out)
    print("figures: " + ", ".join(os.path.join(out, n) for n in ("chute_profiles.png",
                                                                 "chute_mu_I.png")))
    return 0


def draw(results, fit, out):
    import numpy as np
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 3, figsize=(11, 4), sharey=True)
    for n, r in enumerate(results):
        c, z = f"C{n}", r["z"] / D_SMALL
        ax[0].plot(r["phi"], z, "-", color=c, label=f"θ = {r['theta']:g}°")
        ax[1].plot(r["v"], z, "o", ms=3, color=c)
        b = r["bagnold"]
        zz = np.linspace(0, r["h"], 100)
        ax[1].plot(bagnold(zz, b["A"], b["h"], b["v_slip"]), zz / D_SMALL, "-", color=c,
                   label=f"Bagnold, R² = {b['r2']:.3f}")
        ax[2].plot(r["gamma"], z, "-", color=c)
        for a_ in ax:
            a_.axhline(r["h"] / D_SMALL, color=c, lw=0.5, ls=":")
    ax[0].set_xlabel("φ")
    ax[1].set_xlabel("v_x (m/s)")
    ax[2].set_xlabel("dv_x/dz (1/s)")
    ax[0].set_ylabel("z / d above the base")
    ax[0].legend(fontsize=8)
    ax[1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "chute_profiles.png"), dpi=110)
    fig, ax = plt.subplots(figsize=(5, 4))
    for n, r in enumerate(results):
        sel = (r["z"] >= 0.25 * r["h"]) & (r["z"] <= 0.75 * r["h"])
        ax.plot(r["I"][sel], np.full(sel.sum(), r["mu"]), ".", color=f"C{n}", alpha=0.4)
        ax.plot([r["I_bulk"]], [r["mu"]], "o", color=f"C{n}", label=f"θ = {r['theta']:g}°")
    if fit:
        ii = np.logspace(-3, 0, 200)
        ax.plot(ii, mu_of_I(ii, fit["mu_s"], fit["mu_2"], fit["I_0"]), "-", color="k",
                label="μ(I) fit")
        ax.plot(ii, mu_of_I(ii, 0.382, 0.643, 0.279), "--", color="grey",
                label="Jop et al. 2006 (3D beads)")
    ax.set_xscale("log")
    ax.set_xlabel("I")
    ax.set_ylabel("μ = tan θ")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "chute_mu_I.png"), dpi=110)


def angles(text):
    try:
        v = [float(s) for s in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--angles takes comma-separated degrees: {text}")
    if not v or any(not 0 < x < 60 for x in v):
        raise argparse.ArgumentTypeError("--angles takes degrees between 0 and 60")
    return v


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="write the chute scenes and run mixsim on them")
    r.add_argument("--mixsim", help="the mixsim executable")
    r.add_argument("--out", required=True, help="folder of the scenes and runs")
    r.add_argument("--angles", type=angles, default=list(ANGLES), help="degrees (20,24)")
    r.add_argument("--time", type=float, default=10.0, help="simulated seconds per run (10)")
    r.add_argument("--every", type=float, default=0.05, help="s between frames (0.05)")
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--jobs", type=int, default=1, help="runs at once (1)")
    r.add_argument("--write-only", action="store_true", help="write the scenes, run nothing")
    r.add_argument("--mixsim-args", help="extra mixsim arguments, e.g. \"--device gpu\"")
    a_ = sub.add_parser("analyse", help="profiles, Bagnold and mu(I) from the frames")
    a_.add_argument("--out", required=True, help="the folder `run` wrote")
    a_.add_argument("--t0", type=float, help="start of the steady window, s (half the run)")
    a_.add_argument("--bin", type=float, default=0.5, help="bin height / d (0.5)")
    a_.add_argument("--mu2", type=float, default=MU2_JOP,
                    help="mu_2 held in the mu(I) fit when there are only two angles (0.64)")
    a = p.parse_args(argv)
    return cmd_run(a) if a.cmd == "run" else cmd_analyse(a)


if __name__ == "__main__":
    sys.exit(main())
