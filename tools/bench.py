#!/usr/bin/env python3
"""Benchmarks mixsim on a scene for every pipeline x buffer combination.

Runs each combination `--repeat` times, interleaved so that drift in machine load
hits all of them alike, and prints the median iterations/s and ms/iteration with the
per-phase breakdown of the median run, as a Markdown table. Ratios between the
combinations come from the same invocation; absolute figures count only on the
machine they were taken on.

usage: bench.py MIXSIM SCENE [--steps N] [--repeat R] [--device DEV] [--json OUT]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

COMBOS = [(p, b) for p in ("naive", "reordered") for b in ("shared", "copied")]


def run_once(exe, scene, pipeline, buffers, steps, device, env):
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "stats.json")
        cmd = [exe, "-q", "--headless", "-n", str(steps), "-p", pipeline, "-b", buffers,
               "--stats", stats, scene]
        if device:
            cmd += ["--device", device]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
        with open(stats) as f:
            return json.load(f)


def phase_line(run, thread):
    phases = run["threads"][thread]
    return ", ".join("%s %.3f" % (k, v["ms_per_iteration"]) for k, v in phases.items())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("scene")
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--device", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    env = dict(os.environ)
    runs = {c: [] for c in COMBOS}
    for _ in range(args.repeat):
        for c in COMBOS:
            runs[c].append(run_once(args.exe, args.scene, c[0], c[1], args.steps, args.device, env))

    first = runs[COMBOS[0]][0]
    print("scene %s, %d iterations x %d runs, device: %s [%s]" % (
        args.scene, args.steps, args.repeat, first["device"], first["platform"]))
    print()
    print("| pipeline | buffers | iterations/s | ms/iteration | hash |")
    print("|---|---|---|---|---|")
    medians = {}
    for c in COMBOS:
        ms = sorted(r["ms_per_iteration"] for r in runs[c])
        med = statistics.median(ms)
        medians[c] = med
        print("| %s | %s | %.0f | %.4f | %s |" % (c[0], c[1], 1e3 / med, med, runs[c][0]["state_hash"]))
    print()
    for b in ("shared", "copied"):
        n, r = medians[("naive", b)], medians[("reordered", b)]
        print("%s buffers: reordered takes %.1f%% %s time per iteration than naive" % (
            b, abs(100.0 * (1 - r / n)), "less" if r < n else "MORE"))
    print()
    print("Per-phase breakdown of the median run (ms/iteration):")
    for c in COMBOS:
        ordered = sorted(runs[c], key=lambda r: r["ms_per_iteration"])
        med = ordered[len(ordered) // 2]
        print("- %s/%s" % c)
        print("  - GPU manager: " + phase_line(med, "gpu_manager"))
        print("  - CPU worker: " + phase_line(med, "cpu_worker"))
        print("  - kernels: " + ", ".join(
            "%s %.4f" % (k, v["ms_per_iteration"]) for k, v in med["kernels"].items()))
    hashes = {r["state_hash"] for c in COMBOS for r in runs[c]}
    if len(hashes) != 1:
        print("ERROR: the combinations disagree on the state hash: %s" % sorted(hashes))
        return 1
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"%s/%s" % c: runs[c] for c in COMBOS}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
