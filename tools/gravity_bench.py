#!/usr/bin/env python3
"""Benchmarks gravity mode: interactions/s and GFLOP/s per body count and kernel variant.

For each N and variant it writes a Plummer scene (energy diagnostics off, one read-back
at the end), runs it once briefly to size the run to about --seconds, then --repeat
times, and prints the median as a Markdown table: interactions/s over the wall time of
the stepping (what a user sees) and over the force kernels' profiled time (what the
kernel does), and GFLOP/s at 20 flops per interaction. Absolute figures count only on
the machine they were taken on.

On a CPU device shared with other work, wall-clock figures drop with the load; the
last column, interactions per CPU-second of the mixsim process (from the difference
between a long and a short run, so set-up cancels out), stays put: times the number of
cores it is what the device does when it has them to itself.

usage: gravity_bench.py MIXSIM [--n 16384,65536] [--kernels all|K1,K2] [--device DEV]
                        [--devices LIST] [--seconds S] [--repeat R] [--json OUT]
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile

KERNELS = ["simple", "tiled", "tiled2", "tiled4", "jsplit4", "soa8", "soa16"]
FLOPS = 20

SCENE = """[simulation]
mode = gravity
dt = 0.0001
steps = {steps}
seed = 1
[gravity]
bodies = plummer
count = {n}
softening = 0.01
energy = off
diagnostics_every = 0
burst = {steps}
"""


def run_once(exe, tmp, n, kernel, steps, args):
    scene = os.path.join(tmp, "bench.ini")
    stats = os.path.join(tmp, "stats.json")
    with open(scene, "w") as f:
        f.write(SCENE.format(n=n, steps=steps))
    cmd = [exe, "-q", "--stats", stats, scene]
    if kernel != "default":
        cmd += ["--gravity-kernel", kernel]
    if args.devices:
        cmd += ["--devices", args.devices]
    elif args.device:
        cmd += ["--device", args.device]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(stats) as f:
        r = json.load(f)
    r["cpu_s"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return r


def measure(exe, tmp, n, kernel, args):
    probe = run_once(exe, tmp, n, kernel, 2, args)
    rate = max(probe["interactions_per_s"], 1.0)
    steps = int(min(max(args.seconds * rate / (n * n), 3), 100000))
    runs = [run_once(exe, tmp, n, kernel, steps, args) for _ in range(args.repeat)]
    runs.sort(key=lambda r: r["interactions_per_s"])
    median = runs[len(runs) // 2]
    extra_cpu = min(r["cpu_s"] for r in runs) - probe["cpu_s"]
    # with few steps the difference is mostly noise
    median["per_cpu_s"] = (steps - 2) * n * n / extra_cpu if extra_cpu > 0 and steps >= 10 else 0.0
    return median


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("--n", default="16384,65536", help="comma-separated body counts")
    ap.add_argument("--kernels", default="all", help="all, default, or a comma-separated list")
    ap.add_argument("--device", default=None, help="gpu | cpu | P:D")
    ap.add_argument("--devices", default=None, help="a --devices list (multi-device run)")
    ap.add_argument("--seconds", type=float, default=2.0, help="aim for this long per run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    counts = [int(x) for x in args.n.split(",")]
    kernels = KERNELS if args.kernels == "all" else args.kernels.split(",")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in counts:
            for k in kernels:
                try:
                    r = measure(args.exe, tmp, n, k, args)
                except subprocess.CalledProcessError as e:
                    print("%s at N=%d failed (exit %d)" % (k, n, e.returncode), file=sys.stderr)
                    continue
                results.append((n, k, r))
                print("  N=%d %s: %.3g interactions/s" % (n, k, r["interactions_per_s"]),
                      file=sys.stderr, flush=True)
    if not results:
        return 1
    devs = results[0][2]["devices"]
    print("device%s: %s" % ("s" if len(devs) > 1 else "",
                            "; ".join("%s [%s]" % (d["name"], d["platform"]) for d in devs)))
    print()
    print("| N | kernel | steps | interactions/s (wall) | GFLOP/s | interactions/s (kernel) "
          "| ms/step | interactions per CPU-s |")
    print("|---|---|---|---|---|---|---|---|")
    for n, k, r in results:
        used = ",".join(sorted({d["kernel"] for d in r["devices"]}))
        name = k if k != "default" else "default (%s)" % used
        per_cpu = "%.3g" % r["per_cpu_s"] if r["per_cpu_s"] > 0 else "-"
        print("| %d | %s | %d | %.3g | %.1f | %.3g | %.2f | %s |" % (
            n, name, r["steps"], r["interactions_per_s"], r["gflops"],
            r["kernel_interactions_per_s"], 1e3 / r["steps_per_s"], per_cpu))
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"n": n, "kernel": k, "stats": r} for n, k, r in results], f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
