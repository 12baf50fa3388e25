#!/usr/bin/env python3
"""Cost of the double-precision state: two mixsim builds side by side on one scene.

Builds a settling scene of N small discs (one size, so both builds read it) under N/1000
large ones, runs the `--before` and `--after` binaries alternately `--repeat` times each
(so drift in machine load hits both alike) and prints, as a Markdown table, ms/iteration
and the per-kernel device times (OpenCL profiling) of each: median, min and max, and
the after/before ratio of the medians. Ratios count on any machine; absolute figures
only on the one they were taken on.

usage: precision_cost.py --before OLD --after NEW [--small N] [--steps S] [--repeat R]
                         [--device DEV] [--pipeline P] [--buffers B] [--json OUT]
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

SCENE = """[simulation]
dt = 1e-4
steps = 100
gravity = 0, -9.81
seed = 9
[box]
min = 0, 0
max = {w:.6f}, {h:.6f}
[material]
stiffness = 1e5
restitution = 0.5
[grid]
capacity = 8
[small]
count = {n}
radius = 0.005
density = 1000
placement = lattice
region = 0, 0, {w:.6f}, {bed:.6f}
spacing = 1.05
velocity_spread = 0.01
[large_random.rocks]
count = {rocks}
radius_min = 0.015
radius_max = 0.03
region = 0, {bed:.6f}, {w:.6f}, {h:.6f}
density = 1000
velocity_spread = 0.05
"""


def scene_text(n):
    """A square-ish bed of n sites of pitch 1.05 x 1 cm, and one rock per 1000 small
    discs dropped onto it from a band above with room for them."""
    per_row = int(math.ceil(math.sqrt(n)))
    w = per_row * 0.0105 + 0.001
    bed = (int(math.ceil(n / per_row)) + 1) * 0.0105
    rocks = max(10, n // 1000)
    band = max(0.3, rocks * 0.011 / w)
    return SCENE.format(n=n, w=w, h=bed + band, bed=bed, rocks=rocks)


def times_kernels_on_request(exe):
    """Whether `exe` has --profile (older builds always timed their kernels)."""
    out = subprocess.run([exe, "--help"], capture_output=True, text=True).stdout
    return "--profile" in out


def run_once(exe, scene, args):
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "stats.json")
        cmd = [exe, "-q", "--headless", "-n", str(args.steps), "-p", args.pipeline, "-b",
               args.buffers, "--stats", stats, scene]
        if args.device:
            cmd += ["--device", args.device]
        if times_kernels_on_request(exe):  # a build that times a GPU's kernels when asked
            cmd += ["--profile", "on"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(stats) as f:
            return json.load(f)


def spread(values):
    return statistics.median(values), min(values), max(values)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--small", type=int, default=100000)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--device", default=None)
    ap.add_argument("--pipeline", default="reordered")
    ap.add_argument("--buffers", default="shared")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        scene = os.path.join(tmp, "cost.ini")
        with open(scene, "w") as f:
            f.write(scene_text(args.small))
        runs = {"before": [], "after": []}
        for _ in range(args.repeat):
            for which in ("before", "after"):
                runs[which].append(run_once(getattr(args, which), scene, args))

    first = runs["after"][0]
    print("%d small + %d large, %d iterations x %d runs each, %s/%s, device: %s [%s]" % (
        args.small, first["large_particles"], args.steps, args.repeat, args.pipeline, args.buffers, first["device"],
        first["platform"]))
    print()
    print("| figure (ms/iteration) | before: median (min-max) | after: median (min-max) | after/before |")
    print("|---|---|---|---|")
    rows = [("whole iteration", lambda r: r["ms_per_iteration"])]
    for k in first["kernels"]:
        rows.append(("kernel " + k, lambda r, k=k: r["kernels"][k]["ms_per_iteration"]))
    for name, get in rows:
        b = spread([get(r) for r in runs["before"]])
        a = spread([get(r) for r in runs["after"]])
        ratio = a[0] / b[0] if b[0] > 0 else float("nan")
        print("| %s | %.4f (%.4f-%.4f) | %.4f (%.4f-%.4f) | %.3f |" % (name, *b, *a, ratio))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(runs, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
