#!/usr/bin/env python3
"""mixsim against LAMMPS on the same scene: same particles, physics and dt.

Takes a collision scene (or generates one with tools/sweep_scene.py), has mixsim write its
initial state (`--steps 0 --dump`), and builds the LAMMPS run of the same physics: 2D discs
(atom_style sphere, areal densities giving mixsim's masses), pair_style granular with `hooke`
and `damping tsuji`, the Tsuji coefficient solved so that its damping alpha sqrt(m_eff k)
equals mixsim's 2 zeta(e) sqrt(k m_eff) (0.4114 for e = 0.5); without friction `tangential
linear_nohistory 0 0`, with it (the scene's [material] friction, or --friction MU on a generated
scene) `tangential linear_history k_t x_gammat mu` and, with rolling_friction, `rolling sds`, as
tools/peers/validate_lammps.py maps mixsim's law (the walls with wall_friction); the four walls
as fix wall/gran with the same law, static large particles frozen (fix freeze: infinite mass
in the pair's m_eff, as in mixsim), gravity, nve/sphere disc with the same dt. Then runs both `--repeat` times, interleaved, and prints ms per
step (median, min-max; LAMMPS's "Loop time", mixsim's stepping loop) and the kinetic energy
each ends with (equal while the runs have not yet diverged chaotically).

usage: lammps_compare.py --mixsim EXE (--scene S | --small N --large M --ratio R [--friction MU])
                         [--steps 1000] [--repeat 3] [--device cpu] [--lmp lmp] [--out DIR]
                         [--json FILE]
"""
import argparse
import configparser
import csv
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_here, os.path.dirname(_here)]  # this folder and tools/ (sweep_scene, sweep)
import sweep_scene  # noqa: E402


def tsuji_alpha(c):
    return (1.2728 - 4.2783 * c + 11.087 * c ** 2 - 22.348 * c ** 3 + 27.467 * c ** 4
            - 18.022 * c ** 5 + 4.8218 * c ** 6)


def tsuji_coefficient(e):
    """The coefficient whose Tsuji damping equals ours, 2 zeta(e) (alpha is decreasing)."""
    if e >= 1.0:
        return 1.0
    le = math.log(e)
    target = 2.0 * (-le / math.sqrt(math.pi ** 2 + le * le))
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if tsuji_alpha(mid) > target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def read_scene(path):
    cp = configparser.ConfigParser(inline_comment_prefixes=(";", "#"), strict=False)
    cp.optionxform = str
    with open(path) as f:
        cp.read_string(f.read())
    sim = cp["simulation"]
    mat = cp["material"]
    vec = lambda s: [float(x) for x in s.split(",")]
    num = lambda key, default: float(mat.get(key, default).split()[0])
    return {
        "mu": num("friction", "0"),
        "mu_r": num("rolling_friction", "0"),
        "mu_wall": num("wall_friction", "0"),
        "kt_ratio": num("tangential_stiffness", str(1.0 / 3.0)),
        "dt": float(sim["dt"]),
        "gravity": vec(sim.get("gravity", "0, -9.81")),
        "k": float(cp["material"]["stiffness"]),
        "e": float(cp["material"]["restitution"]),
        "box_min": vec(cp["box"]["min"]),
        "box_max": vec(cp["box"]["max"]),
    }


def friction_on(params):
    return params["mu"] > 0 or params["mu_r"] > 0 or params["mu_wall"] > 0


def contact_laws(params, rows):
    """pair_coeff and wall/gran arguments: frictionless, or validate_lammps.py's mapping of
    mixsim's frictional law (its rolling springs sized for a pair of the mean small disc)."""
    c = tsuji_coefficient(params["e"])
    if not friction_on(params):
        law = "hooke %.17g %.17g damping tsuji tangential linear_nohistory 0 0" % (params["k"], c)
        return law, law
    import validate_lammps  # (here: it imports this module's tsuji_coefficient)
    d = {"k_n": params["k"], "restitution": params["e"], "kt_ratio": params["kt_ratio"]}
    small = [r for r in rows if r["kind"] == "small"] or rows
    r_mean = statistics.mean(float(r["radius"]) for r in small)
    m_mean = statistics.mean(float(r["mass"]) for r in small)
    i_mean = 0.5 * m_mean * r_mean ** 2
    pair = validate_lammps.lammps_law(d, params["mu"], params["mu_r"], m_mean / 2.0, i_mean / 2.0,
                                      r_mean / 2.0)
    wall = validate_lammps.lammps_law(d, params["mu_wall"], params["mu_r"], m_mean, i_mean,
                                      r_mean)
    return pair, wall


def write_lammps(params, dump_csv, steps, out_dir):
    rows = list(csv.DictReader(open(dump_csv)))
    lo, hi = params["box_min"], params["box_max"]
    r_max = max(float(r["radius"]) for r in rows)
    data = os.path.join(out_dir, "data.lammps")
    with open(data, "w") as f:
        f.write("mixsim scene as LAMMPS data (tools/peers/lammps_compare.py)\n\n%d atoms\n2 atom types\n\n"
                % len(rows))
        f.write("%.17g %.17g xlo xhi\n%.17g %.17g ylo yhi\n-0.5 0.5 zlo zhi\n\nAtoms # sphere\n\n"
                % (lo[0], hi[0], lo[1], hi[1]))
        for i, r in enumerate(rows, 1):
            rad, m = float(r["radius"]), float(r["mass"])
            typ = 2 if r["static"] in ("1", "true") else 1
            # read_data takes mass = 4/3 pi r^3 density even in 2D: the density that
            # gives mixsim's mass (nve/sphere disc only changes the unused moment of inertia).
            f.write("%d %d %.17g %.17g %.17g %.17g 0\n" % (
                i, typ, 2 * rad, m / (4.0 / 3.0 * math.pi * rad ** 3), float(r["x"]),
                float(r["y"])))
        f.write("\nVelocities\n\n")
        for i, r in enumerate(rows, 1):
            vx, vy = (0.0, 0.0) if r["static"] in ("1", "true") else (float(r["vx"]), float(r["vy"]))
            f.write("%d %.17g %.17g 0 0 0 0\n" % (i, vx, vy))
    law, wall_law = contact_laws(params, rows)
    g = params["gravity"]
    gmag = math.hypot(g[0], g[1])
    inp = os.path.join(out_dir, "in.lammps")
    with open(inp, "w") as f:
        f.write("""# mixsim scene as a LAMMPS run (tools/peers/lammps_compare.py)
units si
dimension 2
boundary f f p
atom_style sphere
atom_modify map array
comm_modify vel yes
newton off
read_data %s
group mobile type 1
group fixed type 2
neighbor %.17g bin
neigh_modify delay 0 every 1 check yes
pair_style granular
pair_coeff * * %s
fix freeze fixed freeze
fix move mobile nve/sphere disc
fix wx mobile wall/gran granular %s xplane %.17g %.17g
fix wy mobile wall/gran granular %s yplane %.17g %.17g
""" % (os.path.basename(data), 0.2 * r_max, law, wall_law, lo[0], hi[0], wall_law, lo[1], hi[1]))
        if gmag > 0:
            f.write("fix g mobile gravity %.17g vector %.17g %.17g 0\n" % (gmag, g[0] / gmag,
                                                                           g[1] / gmag))
        f.write("fix 2d all enforce2d\ntimestep %.17g\ncompute kea all ke/atom\n"
                "compute ke all reduce sum c_kea\nthermo_style custom step c_ke\n"
                "thermo %d\nrun %d\n" % (params["dt"], steps, steps))
    return inp


def run_lammps(lmp, inp):
    d = os.path.dirname(inp)
    p = subprocess.run([lmp, "-in", os.path.basename(inp), "-log", "log.lammps"], cwd=d,
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("LAMMPS failed:\n" + p.stdout[-2000:] + p.stderr[-2000:])
    m = re.search(r"Loop time of ([0-9.e+-]+) on \d+ procs for (\d+) steps", p.stdout)
    ke = None
    lines = p.stdout.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"\s*Step\s+c_ke", line):
            last = [x for x in lines[i + 1:] if re.match(r"\d+\s+\S+$", x.strip())]
            if last:
                ke = float(last[-1].split()[1])
    return 1e3 * float(m.group(1)) / int(m.group(2)), ke


def run_mixsim(exe, scene, steps, device, out_dir):
    stats = os.path.join(out_dir, "stats.json")
    cmd = [exe, "-q", "--headless", "-n", str(steps), "--stats", stats, scene]
    if device:
        cmd += ["--device", device]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    d = json.load(open(stats))
    return d["ms_per_iteration"], d.get("kinetic_energy"), d


def spread(v):
    return "%.4f (%.4f-%.4f)" % (statistics.median(v), min(v), max(v))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mixsim", required=True)
    ap.add_argument("--scene")
    ap.add_argument("--small", type=int)
    ap.add_argument("--large", type=int, default=0)
    ap.add_argument("--ratio", type=float, default=10.0)
    ap.add_argument("--friction", type=float, default=0.0,
                    help="a generated scene's friction (and wall friction) coefficient")
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--lmp", default="lmp")
    ap.add_argument("--out")
    ap.add_argument("--json", help="also write the figures here")
    a = ap.parse_args()
    out = a.out or tempfile.mkdtemp(prefix="mixsim_lammps_")
    os.makedirs(out, exist_ok=True)
    scene = a.scene
    if not scene:
        if a.small is None:
            ap.error("give --scene or --small (with --large, --ratio)")
        scene = os.path.join(out, "scene.ini")
        text = sweep_scene.scene(a.small, a.large, a.ratio)
        if a.friction > 0:
            text = text.replace("[material]\n", "[material]\nfriction = %g\nwall_friction = %g\n"
                                % (a.friction, a.friction), 1)
        with open(scene, "w") as f:
            f.write(text)
    scene = os.path.abspath(scene)
    dump = os.path.join(out, "initial.csv")
    subprocess.run([a.mixsim, "-q", "--headless", "--steps", "0", "--dump", dump, scene],
                   check=True, stdout=subprocess.DEVNULL)
    inp = write_lammps(read_scene(scene), dump, a.steps, out)
    mix, lam, ke_mix, ke_lam, info = [], [], None, None, None
    for _ in range(a.repeat):
        ms, ke_mix, info = run_mixsim(a.mixsim, scene, a.steps, a.device, out)
        mix.append(ms)
        ms, ke_lam = run_lammps(a.lmp, inp)
        lam.append(ms)
    print("scene %s: %d small + %d large, %d steps x %d runs each, interleaved" % (
        scene, info["small_particles"], info["large_particles"], a.steps, a.repeat))
    params = read_scene(scene)
    print("mixsim on %s [%s]; LAMMPS serial (%s), pair granular hooke + tsuji %.4f, %s" % (
        info["device"], info["platform"], a.lmp, tsuji_coefficient(params["e"]),
        "friction mu %g, mu_r %g, wall mu %g (linear_history)" % (
            params["mu"], params["mu_r"], params["mu_wall"]) if friction_on(params)
        else "frictionless"))
    print()
    print("| code | ms/step median (min-max) | kinetic energy at the end (J/m) |")
    print("|---|---|---|")
    print("| mixsim | %s | %.6g |" % (spread(mix), ke_mix))
    print("| LAMMPS | %s | %.6g |" % (spread(lam), ke_lam if ke_lam is not None else float("nan")))
    print()
    print("LAMMPS / mixsim time per step: %.2f (input and data in %s)" % (
        statistics.median(lam) / statistics.median(mix), out))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"scene": scene, "steps": a.steps, "mixsim_ms": mix, "lammps_ms": lam,
                       "mixsim_kinetic_energy": ke_mix, "lammps_kinetic_energy": ke_lam}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
