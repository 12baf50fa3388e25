#!/usr/bin/env python3
"""The 2D silo of tools/beverloo.py in LAMMPS: the discharge rate W per orifice width.

The same silo (width, floor with a central orifice of width D, discs of d = 2 mm +-5 %,
sigma = 25 kg/m^2, the material of beverloo.py: k_n, restitution, friction mu between discs
and at the walls, no rolling resistance) as a LAMMPS input:

- `dimension 2`, `atom_style sphere`, `pair_style granular` with tools/peers/validate_lammps.py's
  mapping of mixsim's contact law (hooke k_n with tsuji damping for the restitution, tangential
  linear_history k_t = k_n / 3 and a third of the damping, Coulomb mu);
- the side walls are `fix wall/gran ... xplane 0 L`, the floor the union of two blocks
  (`region floor union 2 left right`) met through `fix wall/gran/region`, leaving the orifice
  between x0 = (L - D) / 2 and x1 = (L + D) / 2;
- the discs start on a square lattice (pitch 1.05 of the largest diameter) filling the silo to
  --fill diameters, their diameters uniform in d (1 +- 0.05) (`set ... diameter v_dia`, an
  atom-style variable of random()), their mass from the areal density (`set density/disc`);
- `fix evaporate` removes every disc whose centre is 3 d below the floor (the outflow region
  of beverloo.py) every --every-evap steps; no refill: the silo drains, and the window
  measured is [--t0, the time the fill height falls below floor + 2 D];
- thermo prints time and the discs' total mass; the removed mass is the initial mass less
  it; W is the slope of a least-squares line of the removed mass against time over the window
  (beverloo.discharge_rate, with its sub-window uncertainty); the fill height comes from dumps
  (beverloo.fill_height).

It prints a table (D/d, window, rows, W, its uncertainty) and writes silo_lammps.json to --keep;
with --mixsim-runs DIR (the folder of `tools/beverloo.py run`) also mixsim's W of the same
widths (beverloo.measure_run, its window from --mixsim-t0) and the ratio of the two.

What differs from mixsim's silo: LAMMPS's silo is not refilled (it drains from 150 d; W does
not depend on the fill height while it stays above 2 D, which the window ensures), its discs
start on LAMMPS's lattice with LAMMPS's random radii (the same distribution, not the same
discs), and the integrators differ (velocity Verlet in double; docs/validation.md, "The same
physics in both codes").

usage: silo_lammps.py [--lmp lmp] [--widths 6,13] [--time S] [--quick] [--keep DIR]
                      [--mixsim-runs DIR] [--mixsim-t0 S]
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the tools
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_here, os.path.dirname(_here)]  # this folder and tools/
import beverloo as bv  # noqa: E402
import pymods  # noqa: E402
import validate_lammps as vl  # noqa: E402

G = bv.G
DEFAULTS = {
    "d": bv.D_SMALL, "spread": bv.R_SPREAD, "sigma": bv.SIGMA,
    "k_n": bv.MATERIAL["stiffness"], "restitution": bv.MATERIAL["restitution"],
    "kt_ratio": 1.0 / 3.0, "mu": bv.MATERIAL["friction"], "mu_wall": bv.MATERIAL["wall_friction"],
    "dt": bv.DT, "silo_w": bv.SILO_W, "floor": bv.FLOOR_Y, "fill": 150, "widths": [6, 13],
    "time": 3.0, "t0": 0.5, "every": 0.02, "seed": 1,
}
QUICK = {"silo_w": 24, "floor": 6, "fill": 30, "widths": [6, 8], "time": 0.1, "t0": 0.03,
         "every": 0.005, "dt": 2e-5, "k_n": 4000.0}


def fmt(x):
    return "%.10g" % x


def laws(p):
    """(pair law, wall law) for a mean disc: validate_lammps.lammps_law without rolling."""
    r = 0.5 * p["d"]
    m = p["sigma"] * math.pi * r * r
    return (vl.lammps_law(p, p["mu"], 0.0, m / 2, m * r * r / 4, r / 2),
            vl.lammps_law(p, p["mu_wall"], 0.0, m, m * r * r / 2, r))


def geometry(p, width_d):
    d = p["d"]
    L, yf, D = p["silo_w"] * d, p["floor"] * d, width_d * d
    return {"L": L, "yf": yf, "D": D, "x0": 0.5 * (L - D), "x1": 0.5 * (L + D),
            "H": yf + (p["fill"] + 10) * d}


def write_input(p, width_d, out_dir):
    """in.lammps of one orifice width; the disc count comes from the lattice."""
    g = geometry(p, width_d)
    d, dt = p["d"], p["dt"]
    rmax = 0.5 * d * (1 + p["spread"])
    pitch = 2 * rmax * 1.05
    steps = int(round(p["time"] / dt))
    every = max(1, int(round(p["every"] / dt)))
    pair, wall = laws(p)
    text = f"""# 2D silo from tools/peers/silo_lammps.py: D = {width_d:g} d
units si
dimension 2
boundary f f p
atom_style sphere
atom_modify map array
comm_modify vel yes
newton off
region box block 0 {fmt(g['L'])} {fmt(-2 * d)} {fmt(g['H'])} -0.5 0.5 units box
create_box 1 box
lattice sq {fmt(pitch)} origin 0.5 0.5 0
region fill block {fmt(rmax)} {fmt(g['L'] - rmax)} {fmt(g['yf'] + rmax)} {fmt(g['yf'] + p['fill'] * d)} {fmt(-0.25 * pitch)} {fmt(0.25 * pitch)} units box
create_atoms 1 region fill
variable dia atom {fmt(d * (1 - p['spread']))}+{fmt(2 * d * p['spread'])}*random(0,1,{p['seed']})
set type 1 diameter v_dia
set type 1 density/disc {fmt(p['sigma'])}
velocity all create 0 {p['seed']}
neighbor {fmt(0.3 * rmax)} bin
neigh_modify delay 0 every 1 check yes
pair_style granular
pair_coeff * * {pair}
region floorl block 0 {fmt(g['x0'])} {fmt(g['yf'] - 2 * d)} {fmt(g['yf'])} -0.5 0.5 units box
region floorr block {fmt(g['x1'])} {fmt(g['L'])} {fmt(g['yf'] - 2 * d)} {fmt(g['yf'])} -0.5 0.5 units box
region floor union 2 floorl floorr
region exit block INF INF INF {fmt(g['yf'] - 3 * d)} INF INF units box
fix move all nve/sphere disc
fix sides all wall/gran granular {wall} xplane 0 {fmt(g['L'])}
fix floor all wall/gran/region granular {wall} region floor
fix g all gravity {fmt(G)} vector 0 -1 0
fix 2d all enforce2d
fix evap all evaporate {max(1, every // 20)} 1000000 exit {p['seed']}
timestep {fmt(dt)}
variable t equal time
variable m equal mass(all)
variable n equal count(all)
thermo_style custom step v_t v_n v_m f_evap
thermo_modify format float %.10g norm no lost ignore
thermo {every}
dump frames all custom {every} frames.dump id x y radius
dump_modify frames sort id
run {steps}
"""
    with open(os.path.join(out_dir, "in.lammps"), "w") as f:
        f.write(text)
    return g


def read_thermo(log):
    """[(step, time, count, mass)] from the thermo block of a log.lammps."""
    rows, on = [], False
    for line in open(log):
        w = line.split()
        if w[:4] == ["Step", "v_t", "v_n", "v_m"]:
            on = True
            continue
        if on:
            if w and w[0] == "Loop":
                on = False
                continue
            try:
                rows.append((int(w[0]), float(w[1]), int(float(w[2])), float(w[3])))
            except (ValueError, IndexError):
                pass
    return rows


def read_dump_frames(path, dt):
    """[(time, x, y, r)] from a LAMMPS dump custom (id x y radius) file."""
    out, lines, i = [], open(path).read().splitlines(), 0
    while i < len(lines):
        if lines[i].startswith("ITEM: TIMESTEP"):
            step, n = int(lines[i + 1]), int(lines[i + 3])
            cols = lines[i + 8].split()[2:]
            xs, ys, rs = [], [], []
            for line in lines[i + 9:i + 9 + n]:
                v = dict(zip(cols, line.split()))
                xs.append(float(v["x"]))
                ys.append(float(v["y"]))
                rs.append(float(v["radius"]))
            out.append((step * dt, xs, ys, rs))
            i += 9 + n
        else:
            i += 1
    return out


def measure(p, width_d, case):
    """W of one run (beverloo's measurement on LAMMPS's thermo and dumps)."""
    g = geometry(p, width_d)
    rows = read_thermo(os.path.join(case, "log.lammps"))
    if not rows:
        sys.exit(f"silo_lammps: no thermo rows in {case}/log.lammps")
    m0 = rows[0][3]
    times = [t for _, t, _, _ in rows]
    removed = [m0 - m for _, _, _, m in rows]
    frames = read_dump_frames(os.path.join(case, "frames.dump"), p["dt"])
    lo = g["yf"] + 2 * g["D"]
    t1 = times[-1]
    heights = []
    for t, x, y, r in frames:
        h = bv.fill_height(x, y, r, 2 * p["d"], g["L"] - 2 * p["d"], g["yf"], g["H"], 2 * p["d"])
        heights.append((t, h))
        if t >= p["t0"] and h < lo and t1 == times[-1]:
            t1 = t
    res = bv.discharge_rate(times, removed, p["t0"], t1, 4)
    out = {"D_d": width_d, "D": g["D"], "discs": rows[0][2], "removed_total": removed[-1],
           "heights": heights, "W": None}
    if res:
        out.update(res)
    return out


def run_case(p, width_d, lmp, work):
    case = os.path.join(work, f"D{width_d:g}")
    os.makedirs(case, exist_ok=True)
    write_input(p, width_d, case)
    t = time.time()
    proc = subprocess.run([lmp, "-in", "in.lammps", "-log", "log.lammps", "-screen", "none"],
                          cwd=case, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          env=dict(os.environ, OMP_NUM_THREADS="1"))
    if proc.returncode != 0:
        log = os.path.join(case, "log.lammps")
        tail = open(log).read()[-3000:] if os.path.exists(log) else ""
        sys.exit(f"silo_lammps: {lmp} failed ({proc.returncode}) in {case}:\n"
                 f"{proc.stdout[-2000:]}{tail}")
    res = measure(p, width_d, case)
    res["seconds"] = time.time() - t
    return res


def compare(results, folder, t0):
    """Prints mixsim's W (beverloo.measure_run on folder/silo_D<w>) beside LAMMPS's."""
    print("\n| D/d | W mixsim (kg/s/m) | W LAMMPS (kg/s/m) | mixsim / LAMMPS |")
    print("|---|---|---|---|")
    for r in results:
        run = os.path.join(folder, f"silo_D{r['D_d']:g}")
        if not os.path.exists(os.path.join(run, "diagnostics.csv")):
            print(f"| {r['D_d']:g} | (no run in {run}) | {r['W'] or float('nan'):.5g} | - |")
            continue
        m = bv.measure_run(run, r["D_d"], t0, 4, True)
        wm, wl = m["W"], r["W"]
        ratio = f"{wm / wl:.3f} +- {abs(wm / wl) * math.hypot(m['err'] / wm, r['err'] / wl):.3f}" \
            if wm and wl else "-"
        print(f"| {r['D_d']:g} | {wm if wm is not None else float('nan'):.5g} +- "
              f"{m.get('err', float('nan')):.2g} | {wl if wl is not None else float('nan'):.5g} +- "
              f"{r.get('err', float('nan')):.2g} | {ratio} |")


def floats(text):
    try:
        v = [float(s) for s in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--widths takes comma-separated numbers: {text}")
    if not v or any(not x > 0 for x in v):
        raise argparse.ArgumentTypeError("--widths takes positive numbers")
    return v


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lmp", default="lmp", help="the LAMMPS executable (lmp)")
    ap.add_argument("--widths", type=floats, help="orifice widths D/d (6,13)")
    ap.add_argument("--time", type=float, help="simulated seconds (3)")
    ap.add_argument("--t0", type=float, help="start of the measured window, s (0.5)")
    ap.add_argument("--fill", type=float, help="initial fill height / d (150)")
    ap.add_argument("--quick", action="store_true",
                    help="a tiny silo (24 d wide, D = 6 d and 8 d, 0.1 s): for the tests")
    ap.add_argument("--keep", help="keep inputs, logs, dumps and silo_lammps.json here")
    ap.add_argument("--mixsim-runs", help="tools/beverloo.py's run folder: compare its W")
    ap.add_argument("--mixsim-t0", type=float, default=0.5,
                    help="start of mixsim's window, s (0.5, as beverloo.py fit)")
    a = ap.parse_args(argv)
    pymods.require("silo_lammps.py", "numpy")
    p = dict(DEFAULTS)
    if a.quick:
        p.update(QUICK)
    for key in ("widths", "time", "t0", "fill"):
        if getattr(a, key) is not None:
            p[key] = getattr(a, key)
    if shutil.which(a.lmp) is None and not os.access(a.lmp, os.X_OK):
        sys.exit(f"silo_lammps: no LAMMPS executable '{a.lmp}' (tools/deps.sh test installs lammps)")
    work = os.path.abspath(a.keep) if a.keep else tempfile.mkdtemp(prefix="silo_lammps.")
    os.makedirs(work, exist_ok=True)
    try:
        results = [run_case(p, w, a.lmp, work) for w in p["widths"]]
        print(f"LAMMPS 2D silo: L = {p['silo_w']:g} d, d = {p['d']} m, sigma = {p['sigma']} "
              f"kg/m^2, k_n = {p['k_n']:g}, e = {p['restitution']}, mu = {p['mu']}, "
              f"dt = {p['dt']:g}, {p['time']:g} s")
        print("| D/d | discs | window (s) | rows | W (kg/s/m) | W err | run (s) |")
        print("|---|---|---|---|---|---|---|")
        for r in results:
            if r["W"] is None:
                print(f"| {r['D_d']:g} | {r['discs']} | - | - | - | - | {r['seconds']:.0f} |")
            else:
                print(f"| {r['D_d']:g} | {r['discs']} | {r['t0']:.3f}-{r['t1']:.3f} | "
                      f"{r['rows']} | {r['W']:.5g} | {r['err']:.2g} | {r['seconds']:.0f} |")
        if a.mixsim_runs:
            compare(results, a.mixsim_runs, a.mixsim_t0)
        with open(os.path.join(work, "silo_lammps.json"), "w") as f:
            json.dump({"parameters": p, "runs": [{k: v for k, v in r.items() if k != "heights"}
                                                 for r in results]}, f, indent=1)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
