#!/usr/bin/env python3
"""The walls' validation experiments (docs/validation.md, "Walls").

Each subcommand builds its scenes from the description below, runs mixsim on them (CSV frames
through --output), analyses the frames, prints a table and, with --plot OUT.png, draws it.

  brazil-nut  a bed of small discs with one intruder three small diameters across, on a floor
              wall oscillating vertically at Gamma = A (2 pi f)^2 / g = 3 and 0.5: the
              intruder's depth below the bed's surface over time. Claim: at Gamma = 3 it
              rises to the surface, at 0.5 it does not.
  drum        a rotating drum (a circle wall with `rotate`) a quarter full, at Froude
              numbers Fr = w^2 R / g of 1e-4, 1e-3, 1e-2 (--fr), several seeds each: the
              dynamic angle of repose, a linear fit of the free surface in the middle of the
              drum, on the frames after the drum has turned half of --turn radians. Claim:
              the angle rises with Fr.
  segregation a bidisperse drum (small discs, large ones on top at the start, or among them
              with --mixed): the radial segregation index over time,
              S = (d_large - d_small) / d_all, d the mean distance of a class from the bed's
              centre of mass. Claim: S grows (the small discs gather in the core).

  janssen     a narrow silo: a slot W = 5 cm (12.5 small diameters) between two vertical
              side walls of friction mu_w = 0.5, each side a stack of ten wall sections, on a
              floor wall lowered at 2 mm/s (the wall friction mobilised), filled to H = 0.5 W
              .. 6 W (--fills), one run per fill height and seed; the loads from walls.csv
              (--diagnostics), averaged over the last 0.3 s of 2 s. Claim: the floor's load
              saturates, F(H) = rho_b g W lambda (1 - exp(-H/lambda)), with the fitted lambda
              equal to W / (2 K mu), K = sigma_xx / sigma_yy measured at the side sections
              and mu the measured |F_t| / |F_n| there (also printed: W / (2 K mu_w)).

usage: walls_validate.py SUBCOMMAND MIXSIM [--quick] [--seeds 1,2,3] [--plot OUT.png]
                         [--device cpu] [--keep DIR] [--fr 1e-4,1e-3,1e-2] [--turn RAD]
                         [--steps N] [--mixed] [--fills 0.5,1,2,3,4,5,6] [--floor-v MM/S]
                         [--radius R] [--frames N] [--dt S] [--jobs N] [--cpu-threads N]
                         [--rolling MU_R]
"""
import argparse
import concurrent.futures
import csv
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the tools
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pymods  # noqa: E402

G = 9.81

# The material of every experiment: the scenes' (scenes/drum.ini, scenes/brazil_nut.ini).
MATERIAL = """[material]
stiffness = 4000
restitution = 0.5
friction = 0.5
rolling_friction = {mu_r}
wall_friction = {mu_w}
"""
MU_R = 0.05  # the discs' rolling friction (--rolling)

SMALL_R = (0.0018, 0.0022)  # small discs' radii, m (mean diameter 4 mm)
DENSITY = "2500 kg/m^3"
THICKNESS = 0.01
DT = 2e-5
CPU_THREADS = 0  # --cpu-threads: mixsim's worker threads (0: its default)


def scene_header(steps, seed, box):
    return f"""[simulation]
mode = collision
dt = {DT}
steps = {steps}
iterations_per_frame = 50
seed = {seed}
gravity = 0, -9.81

[box]
min = {box[0]}, {box[1]}
max = {box[2]}, {box[3]}

"""


def small_section(count, region, spread=0.0):
    s = f"""[small]
count = {count}
radius_min = {SMALL_R[0]}
radius_max = {SMALL_R[1]}
density = {DENSITY}
thickness = {THICKNESS}
placement = lattice
region = {region[0]}, {region[1]}, {region[2]}, {region[3]}
spacing = 1.05
"""
    if spread:
        s += f"velocity_spread = {spread}\n"
    return s + "\n"


def run(exe, ini_text, workdir, name, every, device, diagnostics=False):
    """Writes the scene, runs it with CSV frames every `every` steps (and with `diagnostics`
    --diagnostics: DIR/walls.csv); returns the frames as a list of (time, rows), rows a list
    of dicts with kind, x, y, r (radius), vx, vy, m (mass) as floats/str."""
    ini = os.path.join(workdir, name + ".ini")
    out = os.path.join(workdir, name)
    with open(ini, "w") as f:
        f.write(ini_text)
    cmd = [exe, ini, "--device", device, "--headless", "--quiet", "--output", out,
           "--output-format", "csv", "--output-every", str(every), "--output-clear"]
    if CPU_THREADS:
        cmd += ["--cpu-threads", str(CPU_THREADS)]
    cmd += ["--diagnostics"] if diagnostics else []
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.exit(f"walls_validate: {' '.join(cmd)} failed ({p.returncode}):\n{p.stdout[-2000:]}")
    return read_frames(out), time.time() - t0


def read_frames(out):
    """mixsim's CSV frames in folder `out` as [(time, rows)], rows dicts of kind, x, y,
    r (radius), vx, vy, m (mass)."""
    frames = []
    with open(os.path.join(out, "frames.csv")) as f:
        for r in csv.DictReader(f):
            rows = []
            with open(os.path.join(out, r["file"])) as g:
                for q in csv.DictReader(g):
                    rows.append({"kind": q["kind"], "x": float(q["x"]), "y": float(q["y"]),
                                 "r": float(q["radius"]), "vx": float(q["vx"]),
                                 "vy": float(q["vy"]), "m": float(q["mass"])})
            frames.append((float(r["time"]), rows))
    return frames


def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def linfit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    return sxy / sxx, my - sxy / sxx * mx


# ---------------------------------------------------------------- brazil nut
# A shallow, wide bed of small discs (lattice, 4 mm +-10 %, about 15 layers) in a box W wide
# above a floor wall at y = 0.01 oscillating vertically at f = 15 Hz (scenes/brazil_nut.ini's
# 30 Hz halved: at one Gamma the amplitude is four times larger and the rise faster); one intruder of radius 6 mm (three small diameters)
# resting on the floor in the middle. A = Gamma g / (2 pi f)^2.
BN_FREQ = 15.0


def brazil_scene(count, width, steps, seed, gamma):
    amp = gamma * G / (2 * math.pi * BN_FREQ) ** 2
    top = 0.024 + 1.2 * count * (0.0042 * 1.05) ** 2 / (width - 0.004) + 0.02
    box_h = top + 0.05
    return amp, (scene_header(steps, seed, (0, 0, width, round(box_h, 4)))
                 + MATERIAL.format(mu_r=MU_R, mu_w=0.5)
                 + small_section(count, (0.002, 0.024, width - 0.002, round(top, 4)))
                 + f"""[large.intruder]
position = {width / 2}, 0.0165
radius = 0.006
density = {DENSITY}
thickness = {THICKNESS}

[wall.floor]
segments = 0, 0.01, {width}, 0.01
oscillate = 0, {amp:.6g}, {BN_FREQ}
""")


def bed_surface(rows, width):
    """The bed's surface: the mean top (y + r) of the highest small discs, one per small
    diameter of width (the top row), a few flying ones left out."""
    tops = sorted((q["y"] + q["r"] for q in rows if q["kind"] == "small"), reverse=True)
    per_row = max(3, int(width / 0.0042))
    skip = max(1, per_row // 10)
    top = tops[skip:skip + per_row]
    return sum(top) / len(top)


def cmd_brazil(a, exe, work):
    if a.quick:
        count, width, steps, every, seeds = 120, 0.05, 4000, 1000, a.seeds or [3]
    else:
        count, width, steps, every, seeds = 720, 0.2, 250000, 10000, a.seeds or [3]
    table = []
    series = {}
    for gamma in (3.0, 0.5):
        for seed in seeds:
            amp, text = brazil_scene(count, width, steps, seed, gamma)
            frames, wall = run(exe, text, work, f"bn_g{gamma}_s{seed}", every, a.device)
            depth = []
            for t, rows in frames:
                big = [q for q in rows if q["kind"] != "small"][0]
                depth.append((t, (bed_surface(rows, width) - (big["y"] + big["r"])) / 0.004))
            series[(gamma, seed)] = depth
            # the bed settles from its lattice in the first 0.2 s
            d0, d1 = [d for t, d in depth if t >= min(0.2, depth[-1][0])][0], depth[-1][1]
            table.append((gamma, amp, seed, count, steps * DT, d0, min(d for _, d in depth), d1,
                          wall))
    print("brazil-nut: intruder's depth below the bed's surface, in small diameters "
          f"(f = {BN_FREQ:g} Hz, intruder 3 d)")
    print("| Gamma | A (mm) | seed | small discs | t (s) | depth at 0.2 s | min depth | depth at end "
          "| run (s) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for g, amp, seed, n, t, d0, dmin, d1, w in table:
        print(f"| {g:g} | {amp * 1e3:.3f} | {seed} | {n} | {t:g} | {d0:.1f} | {dmin:.1f} | "
              f"{d1:.1f} | {w:.0f} |")
    print("depth over time (t s: depth):")
    for (g, seed), d in series.items():
        print(f"  Gamma {g:g} seed {seed}: " + " ".join(f"{t:.2f}:{v:.1f}" for t, v in d))
    if a.plot:
        pymods.require("walls_validate.py", "matplotlib")
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4))
        for (g, seed), d in series.items():
            ax.plot([t for t, _ in d], [v for _, v in d], label=f"Γ = {g:g}, seed {seed}")
        ax.invert_yaxis()
        ax.set_xlabel("t (s)")
        ax.set_ylabel("depth below the surface (small diameters)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(a.plot, dpi=110)


# ---------------------------------------------------------------- drum
# A drum of radius R (circle wall, rotating anticlockwise about its centre at w), its lower
# part filled with small discs on a lattice; friction 0.5, wall friction 0.8 (drum.ini's).
# It runs 0.3 s still (the bed settles), then turns `turn` radians; the angle is measured
# once it has turned half of that (the first avalanche has gone by), over those frames.
def drum_scene(R, omega, steps, seed, fill_top, large=None):
    h = round(R * 0.68, 4)  # the lattice's square fits inside the circle
    box = round(R * 1.04, 4)
    text = (scene_header(steps, seed, (-box, -box, box, box))
            + MATERIAL.format(mu_r=MU_R, mu_w=0.8)
            + small_section(100000, (-h, -h, h, round(fill_top, 4)), spread=0.01))
    if large:
        n, r, y0, y1 = large
        text += f"""[large_random.coarse]
count = {n}
radius_min = {r}
radius_max = {r}
density = {DENSITY}
thickness = {THICKNESS}
region = {-h}, {y0}, {h}, {y1}

"""
    text += f"""[wall.drum]
circle = 0, 0, {R}
rotate = 0, 0, {omega:.6g}
"""
    return text


def lattice_count(R, fill_top):
    """How many lattice sites the region of drum_scene holds (the count it places)."""
    h = round(R * 0.68, 4)
    step = 2 * SMALL_R[1] * 1.05
    return int((2 * h) / step) * int((fill_top + h) / step)


def drum_scene_n(R, omega, steps, seed, fill_top, large=None):
    return drum_scene(R, omega, steps, seed, fill_top, large).replace(
        "count = 100000", f"count = {lattice_count(R, fill_top)}")


def surface_angle(rows, R):
    """The free surface's angle, degrees: in columns two small diameters wide over the middle
    of the drum (|x| < R/2), the surface is the top of the second-highest disc (one flying
    disc left out), at that disc's x; a line through them, atan of its slope."""
    w = 0.0084
    cols = {}
    for q in rows:
        if abs(q["x"]) < 0.5 * R:
            cols.setdefault(int(math.floor(q["x"] / w)), []).append((q["y"] + q["r"], q["x"]))
    xs, ys = [], []
    for c, v in cols.items():
        if len(v) >= 3:
            v.sort(reverse=True)
            xs.append(v[1][1])
            ys.append(v[1][0])
    slope, _ = linfit(xs, ys)
    return math.degrees(math.atan(slope))


def drum_run(a, exe, work, R, fill_top, turn, fr, seed):
    """One drum run: (seed, median angle, min, max, run time, discs)."""
    omega = math.sqrt(fr * G / R)
    # a settling time, then `turn` radians of the drum (quick: a fixed short run)
    steps = 3000 if a.quick else int((0.3 + turn / omega) / DT)
    every = max(500, steps // a.frames)
    frames, wall = run(exe, drum_scene_n(R, omega, steps, seed, fill_top), work,
                       f"drum_fr{fr:g}_s{seed}", every, a.device)
    # steady: once the drum has turned half of `turn` after the settling time
    t_steady = 0.5 * frames[-1][0] if a.quick else 0.3 + 0.5 * turn / omega
    half = [f for f in frames if f[0] >= t_steady]
    per_frame = [surface_angle(rows, R) for _, rows in half]
    return (seed, median(per_frame), min(per_frame), max(per_frame), wall, len(frames[0][1]))


def cmd_drum(a, exe, work):
    frs = a.fr or (1e-4, 1e-3, 1e-2)
    if a.quick:
        R, seeds, fill_top, turn = 0.03, a.seeds or [1], 0.0, None
    else:
        R, seeds, turn = a.radius or 0.06, a.seeds or [1, 2, 3], a.turn or 1.2
        fill_top = round(0.2 * R, 4)  # the lattice's top: the bed about a quarter of the drum
    # every run at once on --jobs workers (each mixsim its own process)
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        runs = {(fr, seed): pool.submit(drum_run, a, exe, work, R, fill_top, turn, fr, seed)
                for fr in frs for seed in seeds}
        table = []
        for fr in frs:
            omega = math.sqrt(fr * G / R)
            steps = 3000 if a.quick else int((0.3 + turn / omega) / DT)
            table.append((fr, omega, steps, [runs[(fr, seed)].result() for seed in seeds]))
    print(f"drum: dynamic angle of repose (degrees), R = {R} m, frames after the drum turned "
          f"{0.5 * turn if turn else 0:g} rad")
    print("| Fr | omega (rad/s) | t (s) | discs | seed: angle (frame range) | median | spread "
          "(max - min) |")
    print("|---|---|---|---|---|---|---|")
    for fr, omega, steps, angles in table:
        per = ", ".join(f"{s}: {m:.1f} ({lo:.1f}..{hi:.1f})" for s, m, lo, hi, _, _ in angles)
        meds = [m for _, m, _, _, _, _ in angles]
        print(f"| {fr:g} | {omega:.3f} | {steps * DT:.2f} | {angles[0][5]} | {per} | "
              f"{median(meds):.1f} | {max(meds) - min(meds):.1f} |")
    print("run times (s): " + ", ".join(f"Fr {fr:g}: " + "/".join(f"{w:.0f}" for *_, w, _ in
                                                                 ang) for fr, _, _, ang in table))
    if a.plot:
        pymods.require("walls_validate.py", "matplotlib")
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(5, 4))
        for fr, _, _, angles in table:
            ax.plot([fr] * len(angles), [m for _, m, *_ in angles], "o", color="C0")
        ax.plot([t[0] for t in table], [median([m for _, m, *_ in t[3]]) for t in table], "-",
                color="C1", label="median")
        ax.set_xscale("log")
        ax.set_xlabel("Fr = ω²R/g")
        ax.set_ylabel("dynamic angle of repose (°)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(a.plot, dpi=110)


def fit_small_count(exe, text, work, device):
    """The scene with [small] count lowered to what fits on the lattice around the large
    discs (mixsim says how many when it refuses the count)."""
    ini = os.path.join(work, "fit.ini")
    with open(ini, "w") as f:
        f.write(text)
    p = subprocess.run([exe, ini, "--steps", "0", "--device", device, "--headless", "--quiet"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    m = re.search(r"only (\d+) of (\d+) small particles fit", p.stdout)
    if m:
        text = text.replace(f"count = {m.group(2)}\n", f"count = {m.group(1)}\n", 1)
    return text


def segregation_index(rows):
    pts = [(q["x"], q["y"], q["r"] ** 2, q["kind"]) for q in rows]
    m = sum(p[2] for p in pts)
    cx = sum(p[0] * p[2] for p in pts) / m
    cy = sum(p[1] * p[2] for p in pts) / m

    def mean_d(sel):
        d = [math.hypot(p[0] - cx, p[1] - cy) for p in pts if sel(p)]
        return sum(d) / len(d)
    ds, dl, da = mean_d(lambda p: p[3] == "small"), mean_d(lambda p: p[3] != "small"), \
        mean_d(lambda p: True)
    return (dl - ds) / da


def cmd_segregation(a, exe, work):
    if a.quick:
        R, fill_top, large, steps = 0.03, -0.005, (4, 0.004, 0.0, 0.018), 3000
        seeds = a.seeds or [1]
    else:
        R, fill_top, large, steps, seeds = 0.08, 0.0, (40, 0.004, 0.008, 0.05), 250000, \
            a.seeds or [1]
    if a.steps:
        steps = a.steps
    if a.mixed:  # the large discs among the small ones, not on top of them
        large = (large[0], large[1], -round(R * 0.68, 4), fill_top)
        fill_top = round(fill_top + 0.25 * R, 4)
    fr = 1e-2
    omega = math.sqrt(fr * G / R)
    every = max(500, steps // 25)
    series = {}
    for seed in seeds:
        text = drum_scene_n(R, omega, steps, seed, fill_top, large)
        if a.mixed:
            text = fit_small_count(exe, text, work, a.device)
        frames, wall = run(exe, text, work, f"seg_s{seed}", every, a.device)
        series[seed] = ([(t, segregation_index(rows)) for t, rows in frames], wall,
                        sum(1 for q in frames[0][1] if q["kind"] == "small"),
                        sum(1 for q in frames[0][1] if q["kind"] != "small"))
    print(f"segregation: S = (d_large - d_small) / d_all about the bed's centre of mass; "
          f"R = {R} m, Fr = {fr:g} (omega {omega:.3f} rad/s), large radius {large[1]} m")
    print("| seed | small | large | t (s) | turns | S at 0 | S at t/2 | S at end | run (s) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for seed, (s, wall, ns, nl) in series.items():
        mid = min(s, key=lambda p: abs(p[0] - 0.5 * s[-1][0]))
        print(f"| {seed} | {ns} | {nl} | {s[-1][0]:g} | {omega * s[-1][0] / (2 * math.pi):.2f} "
              f"| {s[0][1]:+.3f} | {mid[1]:+.3f} | {s[-1][1]:+.3f} | {wall:.0f} |")
    print("S over time (t s: S):")
    for seed, (s, *_) in series.items():
        print(f"  seed {seed}: " + " ".join(f"{t:.2f}:{v:+.3f}" for t, v in s))
    if a.plot:
        pymods.require("walls_validate.py", "matplotlib")
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4))
        for seed, (s, *_) in series.items():
            ax.plot([t for t, _ in s], [v for _, v in s], label=f"seed {seed}")
        ax.set_xlabel("t (s)")
        ax.set_ylabel("segregation index S")
        ax.legend()
        fig.tight_layout()
        fig.savefig(a.plot, dpi=110)


# ---------------------------------------------------------------- Janssen silo
# A slot W wide between two vertical side walls of friction MU_W (each side a stack of
# [wall.leftI] / [wall.rightI] sections SEC_H high, so that walls.csv gives each section's
# normal force fx and friction force fy, and one [wall.left_top] / [wall.right_top] above
# them up to the box's top), closed below by [wall.floor], whose -fy is the floor's load. The
# discs are placed on a lattice filling the slot from the floor up (count for the fill height
# wanted) and fall onto the floor.
#
# The floor moves down at JS_FLOOR_V for the whole run. Janssen's solution assumes the wall
# friction fully mobilised (|F_t| = mu_w |F_n| everywhere, pointing up on the grains); a bed
# that has only settled between fixed walls leaves it at whatever the settling left, anywhere
# between -mu_w and +mu_w. Lowering the floor slowly (2 mm/s, 4 mm in a run: a quasi-static
# inertial number, far below the settling speeds) makes the whole bed slide down along the
# walls, so that every wall contact reaches its Coulomb limit in the same direction: the
# "active" state of Janssen's analysis. The measured |F_t|/|F_n| per section checks this.
#
# Measurements, averaged over the frames of the last JS_AVG seconds (the bed moves with the
# floor then: its speed relative to the floor is printed against sqrt(g d)):
#   floor load F = -fy(floor); fill height H = the bed's surface above the floor;
#   hydrostatic load M g = rho_b g W H (rho_b = M / (W H), M the discs' mass, per metre);
#   per side section inside the bed: sigma_xx = the two sides' mean |fx| over the section's
#   height, sigma_yy at its mid-height = (weight of the discs above it - the friction the
#   sections above carry, half of this one's) / W, K = sigma_xx / sigma_yy, and the mobilised
#   friction |fy| / |fx|;
#   lambda fitted to F(H) / (rho_b g W) = lambda (1 - exp(-H / lambda)) (least squares, a
#   1-D search), against W / (2 K mu) with the median K and the measured mobilised friction.
JS_MU_W = 0.5
JS_WALL_Y0 = 0.006  # the side walls' bottom: 2 mm below where the floor ends the run
JS_FLOOR_V = 0.002  # m/s, downwards
JS_MARGIN = 0.004  # between the box's sides and the slot's walls
JS_AVG = 0.3  # s
JS_SPREAD = 0.1  # m/s: the lattice's columns would otherwise fall straight, never touching a wall


def janssen_floor_y(steps):
    """The floor's height at the start: it ends the run 2 mm above the side walls' bottom."""
    return round(JS_WALL_Y0 + 0.002 + JS_FLOOR_V * steps * DT, 6)


def janssen_geometry(width, n_sec, sec_h, box_h, floor_y):
    """The walls' text and the sections' (name, y0, y1) on each side (bottom up)."""
    xl, xr = JS_MARGIN, round(JS_MARGIN + width, 6)
    y0 = JS_WALL_Y0
    text, secs = "", []
    for i in range(n_sec):
        a, b = round(y0 + i * sec_h, 6), round(y0 + (i + 1) * sec_h, 6)
        secs.append((i, a, b))
        text += (f"[wall.left{i}]\nsegments = {xl}, {a}, {xl}, {b}\n\n"
                 f"[wall.right{i}]\nsegments = {xr}, {a}, {xr}, {b}\n\n")
    top = round(y0 + n_sec * sec_h, 6)
    text += (f"[wall.left_top]\nsegments = {xl}, {top}, {xl}, {box_h}\n\n"
             f"[wall.right_top]\nsegments = {xr}, {top}, {xr}, {box_h}\n\n"
             f"[wall.floor]\nsegments = {xl}, {floor_y}, {xr}, {floor_y}\n"
             + (f"velocity = 0, {-JS_FLOOR_V}\n" if JS_FLOOR_V else ""))
    return text, secs


def janssen_scene(width, fill, n_sec, sec_h, steps, seed):
    """The scene for a bed about `fill` high (m): (text, sections, disc count)."""
    mean_r2 = (SMALL_R[1] ** 3 - SMALL_R[0] ** 3) / (3 * (SMALL_R[1] - SMALL_R[0]))
    count = max(4, round(0.82 * width * fill / (math.pi * mean_r2)))
    pitch = 2 * SMALL_R[1] * 1.05
    cols = int((width - 0.0002) / pitch)
    lattice_h = math.ceil(count / cols) * pitch
    floor_y = janssen_floor_y(steps)
    box_h = round(max(floor_y + 0.003 + lattice_h + 0.02, JS_WALL_Y0 + n_sec * sec_h + 0.005), 4)
    walls, secs = janssen_geometry(width, n_sec, sec_h, box_h, floor_y)
    text = (scene_header(steps, seed, (0, 0, round(width + 2 * JS_MARGIN, 6), box_h))
            + MATERIAL.format(mu_r=MU_R, mu_w=JS_MU_W)
            + small_section(count, (JS_MARGIN + 0.0001, floor_y + 0.0003,
                                    round(JS_MARGIN + width - 0.0001, 6),
                                    round(box_h - 0.01, 6)), spread=JS_SPREAD)
            + walls)
    return text, secs, count


def read_walls_csv(out):
    """DIR/walls.csv as {step: {wall: (fx, fy)}}."""
    walls = {}
    with open(os.path.join(out, "walls.csv")) as f:
        for r in csv.DictReader(f):
            walls.setdefault(int(r["step"]), {})[r["wall"]] = (float(r["fx"]), float(r["fy"]))
    return walls


def janssen_curve(h, lam):
    """lambda (1 - exp(-H / lambda)): the floor's load over rho_b g W."""
    return lam * -math.expm1(-h / lam)


def janssen_fit(hs, loads):
    """The lambda minimising sum (load - lambda (1 - exp(-H/lambda)))^2, loads in units of
    rho_b g W (metres of bed): a log-spaced scan, then a golden-section search around the best
    point. Returns (lambda, rms residual)."""
    def cost(lam):
        return sum((y - janssen_curve(h, lam)) ** 2 for h, y in zip(hs, loads))
    top = 1000 * max(hs)
    grid = [1e-3 * max(hs) * (top / (1e-3 * max(hs))) ** (i / 400) for i in range(401)]
    k = min(range(len(grid)), key=lambda i: cost(grid[i]))
    a, b = math.log(grid[max(0, k - 1)]), math.log(grid[min(len(grid) - 1, k + 1)])
    gr = (math.sqrt(5) - 1) / 2
    c, d = b - gr * (b - a), a + gr * (b - a)
    for _ in range(100):
        if cost(math.exp(c)) < cost(math.exp(d)):
            b = d
        else:
            a = c
        c, d = b - gr * (b - a), a + gr * (b - a)
    lam = math.exp(0.5 * (a + b))
    return lam, math.sqrt(cost(lam) / len(hs))


def section_measures(masses, forces, secs, floor_y, surface, width):
    """Per side section, K and the mobilised friction from one averaged state.

    masses: [(y, m)] of the discs (m per metre of thickness); forces: {name: (fx, fy)} the
    walls' mean forces; secs: [(i, y0, y1)] bottom up (walls left{i}, right{i}). Returns, per
    section that the bed covers, a dict: i, y0, y1, covered (the height the bed covers), sxx,
    syy, K, ratio (|fy| / |fx| of both sides together), inside (covered whole, more than two
    small diameters below the surface, and not the lowest one, the floor's corner)."""
    out = []
    for i, a, b in secs:
        lo, hi = max(a, floor_y), min(b, surface)
        if hi <= lo:
            continue
        fl, fr = forces[f"left{i}"], forces[f"right{i}"]
        normal = 0.5 * (abs(fl[0]) + abs(fr[0]))
        sxx = normal / (hi - lo)
        mid = 0.5 * (lo + hi)
        weight = G * sum(m for y, m in masses if y > mid)
        # the friction the walls exert upwards on the grains above mid: -fy of each wall
        carried = 0.0
        for j, a2, b2 in secs:
            lo2, hi2 = max(a2, floor_y), min(b2, surface)
            if j > i and hi2 > lo2:
                carried -= forces[f"left{j}"][1] + forces[f"right{j}"][1]
        carried -= 0.5 * (fl[1] + fr[1])
        syy = (weight - carried) / width
        out.append({"i": i, "y0": a, "y1": b, "covered": hi - lo, "sxx": sxx, "syy": syy,
                    "K": sxx / syy if syy > 0 else float("nan"),
                    "ratio": (abs(fl[1]) + abs(fr[1])) / (abs(fl[0]) + abs(fr[0]))
                    if abs(fl[0]) + abs(fr[0]) > 0 else float("nan"),
                    "inside": a >= floor_y - 1e-9 and i > 0 and b <= surface - 0.0084
                    and lo > floor_y})
    return out


def janssen_run(a, exe, work, width, fill, n_sec, sec_h, steps, every, seed):
    text, secs, count = janssen_scene(width, fill, n_sec, sec_h, steps, seed)
    name = f"js_h{fill:.3f}_s{seed}"
    frames, wall = run(exe, text, work, name, every, a.device, diagnostics=True)
    walls = read_walls_csv(os.path.join(work, name))
    t_end = frames[-1][0]
    use = [(t, rows) for t, rows in frames if t >= t_end - JS_AVG - 1e-9 and t > 0]
    steps_used = [round(t / DT) for t, _ in use]
    names = list(walls[steps_used[0]].keys())
    mean_f = {n: tuple(sum(walls[s][n][k] for s in steps_used) / len(steps_used)
                       for k in (0, 1)) for n in names}
    floor_y = janssen_floor_y(steps) - JS_FLOOR_V * 0.5 * (use[0][0] + use[-1][0])
    surf = sum(bed_surface(rows, width) for _, rows in use) / len(use)
    mass = sum(q["m"] for q in use[-1][1])
    h = surf - floor_y
    # the discs' speed relative to the floor, rms over the frames used, in sqrt(g d)
    rel = [math.hypot(q["vx"], q["vy"] + JS_FLOOR_V) for _, rows in use for q in rows]
    vrms = math.sqrt(sum(v * v for v in rel) / len(rel)) / math.sqrt(G * 0.004)
    # how much of the floor's motion the bed follows (1: all of it, sliding at the walls)
    follow = (-sum(q["vy"] for _, rows in use for q in rows) / len(rel) / JS_FLOOR_V
              if JS_FLOOR_V else float("nan"))
    masses = [(q["y"], q["m"]) for q in use[-1][1]]
    sections = section_measures(masses, mean_f, secs, floor_y, surf, width)
    load = -mean_f["floor"][1]
    wall_carry = -sum(f[1] for n, f in mean_f.items() if n != "floor")
    return {"fill": fill, "seed": seed, "count": len(use[-1][1]), "H": h, "load": load,
            "weight": mass * G, "rho_b": mass / (width * h), "carry": wall_carry,
            "vrms": vrms, "follow": follow, "sections": sections, "wall": wall, "t": t_end}


def janssen_measure(runs, width):
    """From one seed's runs: lambda fitted, the median K and mobilised friction over the
    sections inside the bed (all runs), lambda predicted with them and with mu_w."""
    hs = [r["H"] for r in runs]
    ys = [r["load"] / (r["rho_b"] * G * width) for r in runs]
    lam, rms = janssen_fit(hs, ys)
    inside = [s for r in runs for s in r["sections"] if s["inside"]]
    k = median([s["K"] for s in inside]) if inside else float("nan")
    mob = median([s["ratio"] for s in inside]) if inside else float("nan")
    pred = width / (2 * k * mob) if k * mob > 0 else float("nan")
    pred_mu = width / (2 * k * JS_MU_W) if k > 0 else float("nan")
    return {"lam": lam, "rms": rms, "K": k, "mob": mob, "pred": pred, "pred_mu": pred_mu,
            "n_inside": len(inside)}


def cmd_janssen(a, exe, work):
    global JS_FLOOR_V
    if a.floor_v is not None:
        JS_FLOOR_V = a.floor_v * 1e-3
    if a.quick:
        width, fills, n_sec, steps, every = 0.025, (1.0, 3.0), 3, 10000, 500
        seeds = a.seeds or [1]
    else:
        width, fills, n_sec, steps, every = 0.05, (0.5, 1, 2, 3, 4, 5, 6), 10, 100000, 500
        seeds = a.seeds or [1, 2, 3]
    if a.steps:
        steps = a.steps
    fills = a.fills or fills
    sec_h = round((max(fills) + 0.6) * width / n_sec, 6)
    per_seed = {}
    for seed in seeds:
        per_seed[seed] = [janssen_run(a, exe, work, width, f * width, n_sec, sec_h, steps,
                                      every, seed) for f in fills]
    d = 0.004
    print(f"janssen: slot W = {width} m ({width / d:g} small diameters), wall friction "
          f"mu_w = {JS_MU_W}, {n_sec} sections {sec_h * 1e3:.1f} mm high a side, floor "
          f"lowered at {JS_FLOOR_V * 1e3:g} mm/s; loads per metre of thickness, mean of the "
          f"last {JS_AVG:g} s of {steps * DT:g} s")
    print("| seed | discs | H (m) | H/W | floor load (N/m) | rho_b g W H (N/m) | ratio "
          "| walls carry / weight | v_rel rms / sqrt(g d) | v_bed / v_floor | run (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for seed, runs in per_seed.items():
        for r in runs:
            print(f"| {seed} | {r['count']} | {r['H']:.4f} | {r['H'] / width:.2f} | "
                  f"{r['load']:.3f} | {r['weight']:.3f} | {r['load'] / r['weight']:.3f} | "
                  f"{r['carry'] / r['weight']:.3f} | {r['vrms']:.4f} | {r['follow']:.2f} | "
                  f"{r['wall']:.0f} |")
    gone = [r for runs in per_seed.values() for r in runs if r["load"] < 0.05 * r["weight"]]
    if gone:
        print(f"warning: in {len(gone)} runs the floor carries under 5 % of the weight: it has "
              "left the bed, which hangs on the walls (a slower --floor-v)")
    print("sections of the tallest fill (y from the box's floor; * inside the bed):")
    print("| seed | section | y (mm) | sigma_xx (Pa) | sigma_yy (Pa) | K | |F_t|/|F_n| |")
    print("|---|---|---|---|---|---|---|")
    for seed, runs in per_seed.items():
        for s in runs[-1]["sections"]:
            print(f"| {seed} | {s['i']}{'*' if s['inside'] else ''} | "
                  f"{s['y0'] * 1e3:.0f}-{s['y1'] * 1e3:.0f} | {s['sxx']:.2f} | {s['syy']:.2f} | "
                  f"{s['K']:.3f} | {s['ratio']:.3f} |")
    print(f"Janssen length (median K and |F_t|/|F_n| over the sections inside the bed, all "
          f"fills; mu_w = {JS_MU_W}):")
    print("| seed | lambda fit (m) | fit rms (m) | K | |F_t|/|F_n| | W/(2 K mob) (m) "
          "| fit / predicted | W/(2 K mu_w) (m) | lambda fit / W | sections |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    results = {}
    for seed, runs in per_seed.items():
        m = janssen_measure(runs, width)
        results[seed] = m
        print(f"| {seed} | {m['lam']:.4f} | {m['rms']:.4f} | {m['K']:.3f} | {m['mob']:.3f} | "
              f"{m['pred']:.4f} | "
              f"{m['lam'] / m['pred'] if m['pred'] > 0 else float('nan'):.3f} | "
              f"{m['pred_mu']:.4f} | "
              f"{m['lam'] / width:.2f} | {m['n_inside']} |")
    if a.plot:
        pymods.require("walls_validate.py", "matplotlib")
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4))
        hmax = max(r["H"] for runs in per_seed.values() for r in runs)
        for n, (seed, runs) in enumerate(per_seed.items()):
            rho = sum(r["rho_b"] for r in runs) / len(runs)
            ax.plot([r["H"] / width for r in runs], [r["load"] for r in runs], "o",
                    color=f"C{n}", label=f"seed {seed}")
            lam = results[seed]["lam"]
            hh = [hmax * i / 100 for i in range(101)]
            ax.plot([h / width for h in hh], [rho * G * width * janssen_curve(h, lam)
                                              for h in hh], "-", color=f"C{n}",
                    label=f"Janssen fit, λ = {lam / width:.2f} W")
            if n == 0:
                ax.plot([h / width for h in hh], [rho * G * width * h for h in hh], "--",
                        color="grey", label="hydrostatic ρ_b g W H")
        ax.set_ylim(0, 1.3 * max(r["load"] for runs in per_seed.values() for r in runs))
        ax.set_xlabel("fill height H / W")
        ax.set_ylabel("floor load (N per m of thickness)")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(a.plot, dpi=110)


def main():
    global DT, CPU_THREADS, MU_R
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("experiment", choices=["brazil-nut", "drum", "segregation", "janssen"])
    p.add_argument("mixsim", help="the mixsim executable (build-v/mixsim)")
    p.add_argument("--quick", action="store_true", help="a tiny size for tests (seconds)")
    p.add_argument("--seeds", help="comma-separated seeds (default: per experiment)")
    p.add_argument("--plot", help="draw the result to this PNG")
    p.add_argument("--steps", type=int,
                   help="segregation, janssen: the runs' steps (250000, 100000)")
    p.add_argument("--mixed", action="store_true",
                   help="segregation: the large discs start among the small ones (on top)")
    p.add_argument("--fills", help="janssen: comma-separated fill heights in slot widths "
                   "(0.5,1,2,3,4,5,6)")
    p.add_argument("--floor-v", type=float, help="janssen: the floor's downward speed, mm/s "
                   "(2; 0: a floor at rest)")
    p.add_argument("--fr", help="drum: comma-separated Froude numbers (1e-4,1e-3,1e-2)")
    p.add_argument("--turn", type=float, help="drum: radians the drum turns (1.2)")
    p.add_argument("--radius", type=float, help="drum: its radius, m (0.06: 15 small diameters)")
    p.add_argument("--frames", type=int, default=30, help="drum: frames a run writes (30)")
    p.add_argument("--dt", type=float, help="the time step, s (2e-5)")
    p.add_argument("--rolling", type=float, help="the discs' rolling friction mu_r (0.05)")
    p.add_argument("--jobs", type=int, default=1, help="drum: runs at once (1)")
    p.add_argument("--cpu-threads", type=int, default=0,
                   help="mixsim's --cpu-threads (default: mixsim's own)")
    p.add_argument("--device", default="cpu", help="mixsim's --device (cpu)")
    p.add_argument("--keep", help="keep the scenes and frames in this folder")
    a = p.parse_args()
    if a.dt:
        DT = a.dt
    CPU_THREADS = a.cpu_threads
    if a.rolling is not None:
        MU_R = a.rolling
    a.seeds = [int(s) for s in a.seeds.split(",")] if a.seeds else None
    a.fr = [float(s) for s in a.fr.split(",")] if a.fr else None
    a.fills = [float(s) for s in a.fills.split(",")] if a.fills else None
    if a.plot:  # before the runs: require() may run the tool again under another Python
        pymods.require("walls_validate.py", "matplotlib")
    exe = os.path.abspath(a.mixsim)
    work = a.keep or tempfile.mkdtemp(prefix="walls_validate.")
    os.makedirs(work, exist_ok=True)
    try:
        {"brazil-nut": cmd_brazil, "drum": cmd_drum, "segregation": cmd_segregation,
         "janssen": cmd_janssen}[
            a.experiment](a, exe, work)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
