#!/usr/bin/env python3
"""The cost of friction: one scene run with and without it, side by side.

Takes a scene (or generates one with tools/sweep_scene.py), writes a frictionless copy (the
friction keys removed) and a frictional one (friction, rolling_friction and wall_friction set),
runs both the given number of times, interleaved so that a noisy machine charges both alike,
and prints ms/iteration (median, min-max), the ratio of the medians, and each kernel's share
from the median run's profile. With --csv, one row per variant.

usage: friction_cost.py --mixsim EXE [--scene S | --small N --large M --ratio R]
                        [--mu 0.5] [--mu-r 0.05] [--mu-wall 0.5]
                        [--steps 300] [--repeat 5] [--device cpu|gpu] [--options '-b copied']
                        [--csv out.csv]
"""
import argparse
import csv
import os
import re
import shlex
import statistics
import sys
import tempfile

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_here, os.path.dirname(_here)]  # this folder and tools/ (sweep_scene, sweep)
import sweep  # noqa: E402
import sweep_scene  # noqa: E402

FRICTION_KEYS = ("friction", "rolling_friction", "wall_friction", "tangential_stiffness")


def without_friction(text):
    """The scene with every friction key of [material] dropped."""
    out, section = [], ""
    for line in text.splitlines():
        m = re.match(r"\s*\[([^\]]*)\]", line)
        if m:
            section = m.group(1).strip()
        key = line.split("=", 1)[0].strip()
        if section == "material" and "=" in line and key in FRICTION_KEYS:
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def with_friction(text, mu, mu_r, mu_wall):
    """The frictionless scene with the given coefficients added to [material]."""
    lines = without_friction(text).splitlines()
    for i, line in enumerate(lines):
        if re.match(r"\s*\[material\]", line):
            lines[i + 1:i + 1] = ["friction = %g" % mu, "rolling_friction = %g" % mu_r,
                                  "wall_friction = %g" % mu_wall]
            return "\n".join(lines) + "\n"
    raise SystemExit("friction_cost.py: the scene has no [material] section")


def kernel_shares(stats):
    k = stats.get("kernels", {})
    return " ".join("%s %.3f" % (name, v["ms_per_iteration"])
                    for name, v in sorted(k.items(), key=lambda kv: -kv[1]["ms_per_iteration"])
                    if v["ms_per_iteration"] > 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mixsim", required=True)
    ap.add_argument("--scene")
    ap.add_argument("--small", type=int, default=65536)
    ap.add_argument("--large", type=int, default=1000)
    ap.add_argument("--ratio", type=float, default=10.0)
    ap.add_argument("--mu", type=float, default=0.5)
    ap.add_argument("--mu-r", type=float, default=0.05)
    ap.add_argument("--mu-wall", type=float, default=0.5)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--device", default=None)
    ap.add_argument("--options", default="", help="more mixsim options for both runs")
    ap.add_argument("--csv")
    a = ap.parse_args()
    if a.scene:
        with open(a.scene) as f:
            text = f.read()
        label = a.scene
    else:
        text = sweep_scene.scene(a.small, a.large, a.ratio)
        label = "%d small + %d large, ratio %g" % (a.small, a.large, a.ratio)
    opts = shlex.split(a.options)
    with tempfile.TemporaryDirectory() as tmp:
        # Both copies sit beside each other; a scene naming particle files needs its own
        # folder, so those are run from the original's folder instead.
        where = os.path.dirname(os.path.abspath(a.scene)) if a.scene else tmp
        paths = {}
        for name, body in (("frictionless", without_friction(text)),
                           ("friction", with_friction(text, a.mu, a.mu_r, a.mu_wall))):
            fd, paths[name] = tempfile.mkstemp(prefix=".friction_cost_%s_" % name, suffix=".ini",
                                               dir=where)
            with os.fdopen(fd, "w") as f:
                f.write(body)
        try:
            runs = {name: [] for name in paths}
            for _ in range(a.repeat):
                for name, path in paths.items():
                    got, err = sweep.run_once(a.mixsim, path, opts, a.steps, a.device)
                    if err:
                        raise SystemExit("friction_cost.py: %s run failed: %s" % (name, err))
                    runs[name].append(got)
        finally:
            for path in paths.values():
                os.unlink(path)
    print("%s, %d iterations x %d interleaved runs, device %s%s" % (
        label, a.steps, a.repeat, a.device or "default", (" options " + a.options) if opts else ""))
    rows, med = [], {}
    for name, rs in runs.items():
        ms = [r["ms_per_iteration"] for r in rs]
        med[name] = statistics.median(ms)
        mid = sorted(rs, key=lambda r: r["ms_per_iteration"])[len(rs) // 2]
        print("  %-12s %.4f ms/iteration (%.4f-%.4f)  hash %s" % (
            name, med[name], min(ms), max(ms), mid["state_hash"]))
        print("  %-12s kernels: %s" % ("", kernel_shares(mid)))
        rows.append({"scene": label, "variant": name, "ms_median": med[name], "ms_min": min(ms),
                     "ms_max": max(ms), "runs": len(ms), "state_hash": mid["state_hash"]})
    ratio = med["friction"] / med["frictionless"]
    print("  friction / frictionless: %.3f" % ratio)
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
