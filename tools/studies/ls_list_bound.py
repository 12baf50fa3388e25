#!/usr/bin/env python3
"""What a Verlet list could save the large-small search: visits against list lengths.

The CPU worker (and the device-only path's large_small_react) finds each large particle's
contacts by walking every small particle in the grid cells under its reach, a rectangle of
cells. A Verlet list would keep, per large particle, only the small particles within
r_L + r_s + skin, and walk those. This tool runs a scene, dumps the state, and counts per
iteration on that state:
  visits   small particles in the cell rectangles (what the walk checks),
  listed   those within r_L + r_s + skin (what a list would check),
  touching those within r_L + r_s (the contacts).
With the run's measured large-small time it prints the most a list could save: the time of
the visits it would skip, at the walk's cost per visit (an upper bound: the list's rebuilds,
its memory and its scattered reads of small particles by index are not charged).

usage: ls_list_bound.py --mixsim EXE --scene S [--steps 300] [--device gpu]
                        [--options '...'] [--skin-ratio 0.3]
       ls_list_bound.py --mixsim EXE --small N --large M --ratio R [...]
"""
import argparse
import configparser
import csv
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_here, os.path.dirname(_here)]  # this folder and tools/ (sweep_scene, sweep)
import friction_cost  # noqa: E402
import sweep_scene  # noqa: E402


def axis(p, inv_cell, n):
    """The cell coordinate, clamped as kernels/shared/grid.h's ms_grid_axis does."""
    f = math.floor(p * inv_cell)
    return 0 if f < 0 else n - 1 if f >= n else int(f)


def count(dump, box_min, grid, skin):
    """(visits, listed, touching, large) over the dumped state."""
    small, large = [], []
    with open(dump) as f:
        for row in csv.DictReader(f):
            p = (float(row["x"]) - box_min[0], float(row["y"]) - box_min[1], float(row["radius"]))
            (small if row["kind"] == "small" else large).append(p)
    nx, ny, inv_cell = grid
    cells = {}
    for p in small:
        cells.setdefault((axis(p[0], inv_cell, nx), axis(p[1], inv_cell, ny)), []).append(p)
    r_max = max(p[2] for p in small)
    visits = listed = touching = 0
    for x, y, r in large:
        reach = r + r_max
        for cy in range(axis(y - reach, inv_cell, ny), axis(y + reach, inv_cell, ny) + 1):
            for cx in range(axis(x - reach, inv_cell, nx), axis(x + reach, inv_cell, nx) + 1):
                for sx, sy, sr in cells.get((cx, cy), ()):
                    visits += 1
                    d2 = (sx - x) ** 2 + (sy - y) ** 2
                    if d2 < (r + sr + skin) ** 2:
                        listed += 1
                        if d2 < (r + sr) ** 2:
                            touching += 1
    return visits, listed, touching, len(large)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mixsim", required=True)
    ap.add_argument("--scene")
    ap.add_argument("--small", type=int, default=65536)
    ap.add_argument("--large", type=int, default=1000)
    ap.add_argument("--ratio", type=float, default=10.0)
    ap.add_argument("--friction", action="store_true",
                    help="add friction 0.5, rolling 0.05, walls 0.5 to a generated scene")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--device")
    ap.add_argument("--options", default="")
    ap.add_argument("--skin-ratio", type=float, default=0.3,
                    help="the list's skin over the largest small radius (collision/device/nlist.h)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if a.scene:
            scene = os.path.abspath(a.scene)
            label = a.scene
        else:
            text = sweep_scene.scene(a.small, a.large, a.ratio)
            if a.friction:
                text = friction_cost.with_friction(text, 0.5, 0.05, 0.5)
            scene = os.path.join(tmp, "scene.ini")
            with open(scene, "w") as f:
                f.write(text)
            label = "%d small + %d large, ratio %g%s" % (a.small, a.large, a.ratio,
                                                        ", friction" if a.friction else "")
        stats, dump = os.path.join(tmp, "stats.json"), os.path.join(tmp, "dump.csv")
        cmd = [a.mixsim, "-q", "--headless", "-n", str(a.steps), "--stats", stats,
               "--dump", dump] + shlex.split(a.options)
        if a.device:
            cmd += ["--device", a.device]
        p = subprocess.run(cmd + [scene], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
        if p.returncode != 0:
            raise SystemExit("ls_list_bound.py: mixsim failed: %s" % p.stderr.strip()[-400:])
        with open(stats) as f:
            st = json.load(f)
        ini = configparser.ConfigParser(inline_comment_prefixes=(";", "#"), strict=False)
        ini.read(scene)
        box_min = [float(v) for v in ini["box"]["min"].split(",")]
        box_max = [float(v) for v in ini["box"]["max"].split(",")]
        nx, ny = st["grid"]["nx"], st["grid"]["ny"]
        # The grid's cell: ceil(width / cell) cells across (collision/sim.c).
        with open(dump) as f:
            r_small = max(float(r["radius"]) for r in csv.DictReader(f) if r["kind"] == "small")
        skin = a.skin_ratio * r_small
        fric = st.get("nlist", {}).get("capacity", 0) > 0
        cell = 2.0 * r_small + (skin if fric else 0.0)
        if math.ceil((box_max[0] - box_min[0]) / cell) != nx:
            raise SystemExit("ls_list_bound.py: the grid's %d columns do not match a cell of %g"
                             % (nx, cell))
        visits, listed, touching, n_large = count(dump, box_min, (nx, ny, 1.0 / cell), skin)
    ls_ms = st["threads"]["cpu_worker"].get("large_small", {}).get("ms_per_iteration", 0.0)
    it_ms = st["ms_per_iteration"]
    saved = ls_ms * (1.0 - listed / visits) if visits else 0.0
    print("%s, %d iterations, device %s, exchange %s, %d worker threads%s" % (
        label, a.steps, st["device"], st["exchange"], st["cpu_threads"],
        (" options " + a.options) if a.options else ""))
    print("  large particles %d; per iteration: visits %d, within reach + skin %d (%.1f %%), "
          "touching %d" % (n_large, visits, listed, 100.0 * listed / max(visits, 1), touching))
    print("  worker large-small %.4f ms of %.4f ms/iteration; a list could save at most "
          "%.4f ms (%.1f %% of the iteration)" % (ls_ms, it_ms, saved, 100.0 * saved / it_ms))
    return 0


if __name__ == "__main__":
    sys.exit(main())
