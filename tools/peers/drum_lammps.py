#!/usr/bin/env python3
"""The rotating drum, mixsim against LAMMPS (issue 25): the dynamic angle of repose in both codes.

One description (below: drum radius, fill, discs, material, dt, Froude numbers, seeds, settling
time, turned angle) becomes a mixsim drum scene (tools/walls_validate.py's builders) and a
LAMMPS input of the same physics (tools/peers/validate_lammps.py's mapping of the contact law).
Per Fr and seed:

- mixsim places the lattice (`--steps 0 --dump`): LAMMPS starts from those positions, radii,
  masses and velocities;
- mixsim runs the settling time (rounded up to a whole number of frame intervals: steps_of)
  in the still drum (the scene without `rotate`) and dumps the bed,
  then runs the turning drum from that dump (`[small] file`, `rotate = 0, 0, omega` from t = 0 of
  that run) writing CSV frames;
- LAMMPS runs both stages in one input: the drum is `region drum cylinder z 0 0 R ... side in`
  with `rotate v_theta 0 0 0 0 0 1`, theta = omega (t - t_settle) after the settling time and 0
  before, and the particles meet it through `fix wall/gran/region granular` with the walls'
  law of validate_lammps.py. `fix wall/gran/region` takes the wall's velocity at the contact
  from the region's motion (LAMMPS's Region::velocity_contact, from the change of theta over a
  step), so the rotating wall drags the bed as mixsim's does. Frames (`dump custom x y radius`)
  at the same times as mixsim's;
- both are measured by walls_validate.surface_angle() on the same frames: those after the drum
  has turned half of the turned angle. A run's angle is the median over those frames.

It prints, per Fr, each seed's angle in both codes, the medians and spreads (max - min over the
seeds), the difference of the medians and whether it is within 2 degrees; and, per run, the
sanity figures: the settled bed's centre of mass and translational kinetic energy at the end of
the settling time in both codes (the same lattice settling in the same still drum), and the
bed's centre of mass x over the measured frames (the rotating wall drags the bed to +x, the
direction of the bottom's motion for omega > 0).

usage: drum_lammps.py --mixsim EXE [--device cpu] [--lmp lmp] [--quick] [--fr 1e-2,1e-3,1e-4]
                      [--seeds 1,2,3] [--turn RAD] [--settle S] [--dt S] [--R M]
                      [--plot OUT.png] [--keep DIR]
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
import pymods  # noqa: E402
import validate_lammps as vl  # noqa: E402
import walls_validate as wv  # noqa: E402

G = 9.81

# The drum: R = 10 cm (25 mean diameters), a lattice of 4 mm +-10 % discs (493) up to
# y = fill_top settling into about a quarter of the drum; the walls experiments' material (walls_validate.py:
# stiffness 4000 N/m, e 0.5, mu 0.5, mu_r 0.05, wall friction 0.8, 2500 kg/m^3 discs 1 cm thick).
DEFAULTS = {
    "R": 0.1,
    "fill_top": 0.015,
    "count": None,             # discs: None, as many as the lattice region holds
    "r_min": wv.SMALL_R[0], "r_max": wv.SMALL_R[1],
    "density": 2500.0,         # kg/m^3
    "thickness": wv.THICKNESS,  # m: areal density = density * thickness
    "k_n": 4000.0,
    "restitution": 0.5,
    "kt_ratio": 1.0 / 3.0,     # mixsim's default tangential_stiffness
    "mu": 0.5,
    "mu_r": 0.05,
    "mu_wall": 0.8,
    "dt": 2e-5,
    "fr": [1e-2, 1e-3, 1e-4],
    "seeds": [1, 2, 3],
    "settle": 0.3,             # s in the still drum
    "turn": 2.0,               # rad turned after it; measured over the second half
    "frames": 30,              # frames over the turning
}
QUICK = {"R": 0.03, "fill_top": 0.0, "fr": [1e-2], "seeds": [1], "settle": 0.04, "turn": 0.12,
         "frames": 6}


def fmt(x):
    return "%.17g" % x


def material(d):
    return ("[material]\nstiffness = %s\nrestitution = %s\ntangential_stiffness = %s\n"
            "friction = %s\nrolling_friction = %s\nwall_friction = %s\n" % (
                fmt(d["k_n"]), fmt(d["restitution"]), fmt(d["kt_ratio"]), fmt(d["mu"]),
                fmt(d["mu_r"]), fmt(d["mu_wall"])))


def mixsim_scenes(d, seed, omega, settle_steps, turn_steps):
    """(settling scene, turning scene) from walls_validate's drum builder with the description's
    discs, material and dt: the first without `rotate`, the second reading its bed from
    settled.csv (the first's dump) with `rotate = 0, 0, omega`."""
    saved = (wv.DT, wv.SMALL_R, wv.DENSITY, wv.THICKNESS, wv.MATERIAL)
    wv.DT, wv.SMALL_R = d["dt"], (d["r_min"], d["r_max"])
    wv.DENSITY, wv.THICKNESS = "%s kg/m^3" % fmt(d["density"]), d["thickness"]
    wv.MATERIAL = material(d)
    try:
        text = wv.drum_scene_n(d["R"], omega, settle_steps, seed, d["fill_top"])
        if d.get("count") is not None:
            n = wv.lattice_count(d["R"], d["fill_top"])
            text = text.replace("count = %d\n" % n, "count = %d\n" % d["count"], 1)
    finally:
        wv.DT, wv.SMALL_R, wv.DENSITY, wv.THICKNESS, wv.MATERIAL = saved
    settle = "\n".join(l for l in text.splitlines() if not l.startswith("rotate")) + "\n"
    out, skip = [], False
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("["):
            skip = s == "[small]"
            if skip:
                out += ["[small]", "file = settled.csv", ""]
        if not skip:
            out.append(line.replace("steps = %d" % settle_steps, "steps = %d" % turn_steps))
    return settle, "\n".join(out) + "\n"


def region_line(d):
    """The drum in LAMMPS: the inside of a z cylinder turned by v_theta about the z axis."""
    return ("region drum cylinder z 0 0 %s -0.5 0.5 side in units box "
            "rotate v_theta 0 0 0 0 0 1" % fmt(d["R"]))


def wall_law(d):
    """validate_lammps's law of a mean disc at a wall (m_eff = m, I = m r^2 / 2, R_eff = r)."""
    r = 0.5 * (d["r_min"] + d["r_max"])
    m = d["density"] * d["thickness"] * math.pi * r * r
    return vl.lammps_law(d, d["mu_wall"], d["mu_r"], m, m * r * r / 2, r)


def pair_law(d):
    r = 0.5 * (d["r_min"] + d["r_max"])
    m = d["density"] * d["thickness"] * math.pi * r * r
    return vl.lammps_law(d, d["mu"], d["mu_r"], m / 2, m * r * r / 4, r / 2)


def write_lammps(d, omega, settle_steps, turn_steps, every, initial, out_dir):
    """data.lammps and in.lammps: settle_steps in the still drum (settled.dump at their end),
    then turn_steps of the drum turning at omega, frames.dump every `every` steps."""
    box = round(d["R"] * 1.04, 4)
    with open(os.path.join(out_dir, "data.lammps"), "w") as f:
        f.write("drum from tools/peers/drum_lammps.py\n\n%d atoms\n1 atom types\n\n" % len(initial))
        f.write("%s %s xlo xhi\n%s %s ylo yhi\n-0.5 0.5 zlo zhi\n\nAtoms # sphere\n\n" % (
            fmt(-box), fmt(box), fmt(-box), fmt(box)))
        for i, (x, y, r, _, _, m, _) in enumerate(initial, 1):
            # read_data takes mass = 4/3 pi r^3 density even in 2D (validate_lammps.py)
            f.write("%d 1 %s %s %s %s 0\n" % (i, fmt(2 * r), fmt(m / (4.0 / 3.0 * math.pi * r ** 3)),
                                               fmt(x), fmt(y)))
        f.write("\nVelocities\n\n")
        for i, (_, _, _, vx, vy, _, _) in enumerate(initial, 1):
            f.write("%d %s %s 0 0 0 0\n" % (i, fmt(vx), fmt(vy)))
    r_max = max(p[2] for p in initial)
    with open(os.path.join(out_dir, "in.lammps"), "w") as f:
        f.write("""# drum from tools/peers/drum_lammps.py: R %g m, omega %g rad/s after %d still steps
units si
dimension 2
boundary f f p
atom_style sphere
atom_modify map array
comm_modify vel yes
newton off
read_data data.lammps
neighbor %s bin
neigh_modify delay 0 every 1 check yes
pair_style granular
pair_coeff * * %s
variable theta equal "(step>%d)*(step-%d)*%s"
%s
fix move all nve/sphere disc
fix wall all wall/gran/region granular %s region drum
fix g all gravity %s vector 0 -1 0
fix 2d all enforce2d
timestep %s
compute ke all ke
thermo_style custom step c_ke
thermo %d
run %d
write_dump all custom settled.dump id x y radius vx vy omegaz modify sort id
dump frames all custom %d frames.dump id x y radius vx vy
dump_modify frames sort id
run %d
""" % (d["R"], omega, settle_steps, fmt(0.3 * r_max), pair_law(d), settle_steps, settle_steps,
       fmt(omega * d["dt"]), region_line(d), wall_law(d), fmt(G), fmt(d["dt"]), every,
       settle_steps, every, turn_steps))


def read_lammps_dump(path):
    """[(step, rows)] of a LAMMPS dump custom file, rows dicts with x, y, r (and vx, vy)."""
    frames, lines = [], open(path).read().splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("ITEM: TIMESTEP"):
            step = int(lines[i + 1])
            n = int(lines[i + 3])
            cols = lines[i + 8].split()[2:]
            rows = []
            for line in lines[i + 9:i + 9 + n]:
                v = dict(zip(cols, line.split()))
                rows.append({"kind": "small", "x": float(v["x"]), "y": float(v["y"]),
                             "r": float(v["radius"]), "vx": float(v.get("vx", 0)),
                             "vy": float(v.get("vy", 0))})
            frames.append((step, rows))
            i += 9 + n
        else:
            i += 1
    return frames


def bed_state(rows, masses):
    """(centre of mass x, y; translational kinetic energy) of a bed, masses in row order."""
    m = sum(masses)
    cx = sum(q["x"] * w for q, w in zip(rows, masses)) / m
    cy = sum(q["y"] * w for q, w in zip(rows, masses)) / m
    ke = sum(0.5 * w * (q.get("vx", 0) ** 2 + q.get("vy", 0) ** 2) for q, w in zip(rows, masses))
    return cx, cy, ke


def run_cmd(cmd, cwd, what):
    t = time.time()
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    if p.returncode != 0:
        log = os.path.join(cwd, "log.lammps")
        tail = open(log).read()[-3000:] if what == "LAMMPS" and os.path.exists(log) else ""
        sys.exit("drum_lammps: %s failed (%d) in %s:\n%s%s" % (" ".join(cmd), p.returncode, cwd,
                                                              p.stdout[-3000:], tail))
    return time.time() - t


def mixsim_frames(out):
    """[(time, rows)] of mixsim's CSV frames in folder out (walls_validate's reader)."""
    return wv.read_frames(out)


def median(v):
    return wv.median(v) if v else float("nan")


def angle_of(rows, R):
    """walls_validate.surface_angle(), NaN where the surface has fewer than 2 columns (a bed
    too small to have one: the sanity runs of one disc)."""
    try:
        return wv.surface_angle(rows, R)
    except ZeroDivisionError:
        return float("nan")


def steps_of(d, fr):
    """(omega, settle_steps, turn_steps, every) of one Fr: `frames` frames over the turning,
    every `every` steps; the settling time is rounded up to a whole number of frame intervals
    (LAMMPS writes its frames at multiples of `every` of its own step count, which runs on
    from the settling), the turning down to one."""
    omega = float("%.6g" % math.sqrt(fr * G / d["R"]))  # as walls_validate writes it
    turn_steps = int(round(d["turn"] / omega / d["dt"]))
    every = max(1, turn_steps // d["frames"])
    settle_steps = -(-int(round(d["settle"] / d["dt"])) // every) * every
    return omega, settle_steps, every * (turn_steps // every), every


def run_case(d, fr, seed, a, exe, work):
    """Both codes on one Fr and seed; a dict of the figures."""
    R, dt = d["R"], d["dt"]
    omega, settle_steps, turn_steps, every = steps_of(d, fr)
    case = os.path.join(work, "fr%g_s%d" % (fr, seed))
    os.makedirs(case, exist_ok=True)
    settle_ini, turn_ini = mixsim_scenes(d, seed, omega, settle_steps, turn_steps)
    with open(os.path.join(case, "settle.ini"), "w") as f:
        f.write(settle_ini)
    with open(os.path.join(case, "turn.ini"), "w") as f:
        f.write(turn_ini)
    dev = ["--device", a.device] if a.device else []
    base = [exe, "-q", "--headless"] + dev
    run_cmd(base + ["--steps", "0", "--dump", "initial.csv", "settle.ini"], case, "mixsim")
    t_mix = run_cmd(base + ["--dump", "settled.csv", "settle.ini"], case, "mixsim")
    t_mix += run_cmd(base + ["--output", "frames", "--output-format", "csv", "--output-every",
                             str(every), "--output-clear", "turn.ini"], case, "mixsim")
    initial = vl.read_dump_csv(os.path.join(case, "initial.csv"))
    masses = [p[5] for p in initial]
    write_lammps(d, omega, settle_steps, turn_steps, every, initial, case)
    t_lmp = run_cmd([a.lmp, "-in", "in.lammps", "-log", "log.lammps", "-screen", "none"], case,
                    "LAMMPS")

    # the settled beds (the same lattice, the same still drum)
    settled_m = [{"x": p[0], "y": p[1], "r": p[2], "vx": p[3], "vy": p[4]}
                 for p in vl.read_dump_csv(os.path.join(case, "settled.csv"))]
    mass_m = [p[5] for p in vl.read_dump_csv(os.path.join(case, "settled.csv"))]
    settled_l = read_lammps_dump(os.path.join(case, "settled.dump"))[0][1]
    # frames: mixsim's times from the turning run's start; LAMMPS's steps from the settling's
    fm = mixsim_frames(os.path.join(case, "frames"))
    fl = [((s - settle_steps) * dt, rows) for s, rows in
          read_lammps_dump(os.path.join(case, "frames.dump"))]
    t_steady = 0.5 * turn_steps * dt
    win_m = [(t, rows) for t, rows in fm if t >= t_steady - 0.5 * dt]
    win_l = [(t, rows) for t, rows in fl if t >= t_steady - 0.5 * dt]
    if [round(t / dt) for t, _ in win_m] != [round(t / dt) for t, _ in win_l]:
        sys.exit("drum_lammps: the codes' frames are at different times: %s / %s" % (
            [t for t, _ in win_m], [t for t, _ in win_l]))
    res = {"fr": fr, "seed": seed, "omega": omega, "discs": len(initial), "turn": d["turn"],
           "settle": settle_steps * dt,
           "t_turn": turn_steps * dt, "frames": len(win_m), "seconds": {"mixsim": t_mix,
                                                                        "LAMMPS": t_lmp}}
    for code, settled, smass, win in (("mixsim", settled_m, mass_m, win_m),
                                      ("LAMMPS", settled_l, masses, win_l)):
        per = [v for v in (angle_of(rows, R) for _, rows in win) if v == v]
        cxs = [bed_state(rows, smass if code == "mixsim" else masses)[0] for _, rows in win]
        cx, cy, ke = bed_state(settled, smass)
        res[code] = {"angle": median(per), "lo": min(per, default=float("nan")),
                     "hi": max(per, default=float("nan")), "per_frame": per,
                     "settled_com": [cx, cy], "settled_ke": ke, "com_x_turning": sum(cxs) / len(cxs)}
    if not a.keep_all:
        for sub in ("frames",):
            shutil.rmtree(os.path.join(case, sub), ignore_errors=True)
    return res


def summarise(rows_fr):
    """Per Fr: medians, spreads (max - min over seeds), the difference of medians."""
    m = [r["mixsim"]["angle"] for r in rows_fr]
    lm = [r["LAMMPS"]["angle"] for r in rows_fr]
    return {"mixsim_median": median(m), "mixsim_spread": max(m) - min(m),
            "LAMMPS_median": median(lm), "LAMMPS_spread": max(lm) - min(lm),
            "difference": median(m) - median(lm)}


def print_tables(d, results):
    print("drum: dynamic angle of repose (degrees), mixsim against LAMMPS; R = %g m, %d discs, "
          "dt %g s, settled in the still drum (--settle %g s, rounded up to a whole frame "
          "interval), then turned, measured on the frames of the second half of the turning" % (
              d["R"], results[0]["discs"], d["dt"], d["settle"]))
    print()
    print("| Fr | omega (rad/s) | settled (s) | turned (rad) | seed: mixsim / LAMMPS | mixsim median (spread) | "
          "LAMMPS median (spread) | difference | within 2° |")
    print("|---|---|---|---|---|---|---|---|---|")
    summary = {}
    for fr in d["fr"]:
        rs = [r for r in results if r["fr"] == fr]
        s = summarise(rs)
        summary[fr] = s
        per = ", ".join("%d: %.1f / %.1f" % (r["seed"], r["mixsim"]["angle"], r["LAMMPS"]["angle"])
                        for r in rs)
        print("| %g | %.3f | %.3f | %g | %s | %.1f (%.1f) | %.1f (%.1f) | %+.1f | %s |" % (
            fr, rs[0]["omega"], rs[0]["settle"], rs[0]["turn"], per, s["mixsim_median"], s["mixsim_spread"], s["LAMMPS_median"],
            s["LAMMPS_spread"], s["difference"], "yes" if abs(s["difference"]) <= 2 else "no"))
    print()
    print("per run: angle (frames' range); settled bed: centre of mass (mm) and translational KE; "
          "centre of mass x (mm) over the measured frames; run time (s)")
    print("| Fr | seed | code | angle (range) | settled com x, y | settled KE (J) | com x turning "
          "| run (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        for code in ("mixsim", "LAMMPS"):
            v = r[code]
            print("| %g | %d | %s | %.1f (%.1f..%.1f) | %.2f, %.2f | %.2g | %+.2f | %.0f |" % (
                r["fr"], r["seed"], code, v["angle"], v["lo"], v["hi"],
                1e3 * v["settled_com"][0], 1e3 * v["settled_com"][1], v["settled_ke"],
                1e3 * v["com_x_turning"], r["seconds"][code]))
    return summary


def draw(path, d, results, summary):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for k, (code, mark) in enumerate((("mixsim", "o"), ("LAMMPS", "s"))):
        shift = 0.93 if k == 0 else 1.07  # the two codes' seeds side by side
        for fr in d["fr"]:
            rs = [r for r in results if r["fr"] == fr]
            ax.plot([fr * shift] * len(rs), [r[code]["angle"] for r in rs], mark, color="C%d" % k,
                    alpha=0.6, label=None)
        ax.plot(d["fr"], [summary[fr][code + "_median"] for fr in d["fr"]], "-" + mark,
                color="C%d" % k, label=code + " (median of seeds)")
    ax.set_xscale("log")
    ax.set_xlabel("Fr = ω²R/g")
    ax.set_ylabel("dynamic angle of repose (°)")
    ax.set_title("drum R = %g m, %d discs" % (d["R"], results[0]["discs"]), fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


floats = vl.floats


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mixsim", required=True, help="the mixsim executable")
    ap.add_argument("--device", default="cpu", help="mixsim's --device (cpu: pocl)")
    ap.add_argument("--lmp", default="lmp")
    ap.add_argument("--quick", action="store_true", help="a tiny drum for tests (seconds)")
    ap.add_argument("--fr", type=floats, help="comma list of Froude numbers (1e-2,1e-3,1e-4)")
    ap.add_argument("--seeds", help="comma list (1,2,3)")
    ap.add_argument("--turn", type=float, help="radians turned after settling (2)")
    ap.add_argument("--settle", type=float, help="seconds in the still drum (0.3)")
    ap.add_argument("--dt", type=float, help="time step of both codes (2e-5)")
    ap.add_argument("--R", type=float, help="drum radius, m (0.1)")
    ap.add_argument("--fill-top", type=float, help="the lattice's top y, m (0.015)")
    ap.add_argument("--frames", type=int, help="frames over the turning (30)")
    ap.add_argument("--count", type=int, help="discs (as many as the lattice region holds)")
    ap.add_argument("--plot", help="draw angle against Fr, both codes, to this PNG")
    ap.add_argument("--keep", help="keep the scenes, inputs, dumps and logs in this folder")
    ap.add_argument("--replot", help="run nothing: the tables (and --plot) of these "
                    "drum_lammps.json files of earlier --keep runs, a comma list, merged")
    ap.add_argument("--keep-frames", dest="keep_all", action="store_true",
                    help="with --keep, keep mixsim's CSV frames too")
    a = ap.parse_args()
    if a.plot:  # before the runs: require() may run the tool again under another Python
        pymods.require("drum_lammps.py", "matplotlib")
    d = dict(DEFAULTS)
    if a.quick:
        d.update(QUICK)
    for key, val in (("fr", a.fr), ("turn", a.turn), ("settle", a.settle), ("dt", a.dt),
                     ("R", a.R), ("fill_top", a.fill_top), ("count", a.count), ("frames", a.frames)):
        if val is not None:
            d[key] = val
    if a.seeds:
        d["seeds"] = [int(s) for s in a.seeds.split(",")]
    if d["frames"] < 2:
        ap.error("--frames takes 2 or more")
    if not d["fr"] or any(not (f > 0 and math.isfinite(f)) for f in d["fr"]):
        ap.error("--fr takes finite values > 0")
    if a.replot:
        results, frs = [], []
        for path in a.replot.split(","):
            saved = json.load(open(path))
            for r in saved["runs"]:
                r.setdefault("turn", saved["description"]["turn"])
                r.setdefault("settle", steps_of(saved["description"], r["fr"])[1]
                             * saved["description"]["dt"])
                results.append(r)
            frs += [f for f in saved["description"]["fr"] if f not in frs]
            d = dict(saved["description"], fr=frs)
        summary = print_tables(d, results)
        if a.plot:
            draw(a.plot, d, results, summary)
            print("\npicture: " + a.plot)
        return 0
    exe = os.path.abspath(a.mixsim)
    work = a.keep or tempfile.mkdtemp(prefix="drum_lammps.")
    os.makedirs(work, exist_ok=True)
    try:
        results = []
        for fr in d["fr"]:
            for seed in d["seeds"]:
                r = run_case(d, fr, seed, a, exe, work)
                results.append(r)
                print("Fr %g seed %d: mixsim %.1f deg (%.0f s), LAMMPS %.1f deg (%.0f s)" % (
                    fr, seed, r["mixsim"]["angle"], r["seconds"]["mixsim"], r["LAMMPS"]["angle"],
                    r["seconds"]["LAMMPS"]), flush=True)
        print()
        summary = print_tables(d, results)
        with open(os.path.join(work, "drum_lammps.json"), "w") as f:
            json.dump({"description": d, "runs": results,
                       "summary": {"%g" % k: v for k, v in summary.items()}}, f, indent=1)
        if a.plot:
            draw(a.plot, d, results, summary)
            print("\npicture: " + a.plot)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
