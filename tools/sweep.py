#!/usr/bin/env python3
"""Scaling sweep: runs mixsim over generated scenes (tools/sweep_scene.py) for every
combination of small count, large count and size ratio, and every variant (a name and the
mixsim options that select it, e.g. exchange, buffers, where large particles run), and
writes one CSV row per (scene, variant) with ms/iteration (median, min, max over the
repeats, which are interleaved across variants), the threads' idle fractions and the
kernels' time, plus PNG plots (matplotlib) of ms/iteration and idle fractions against the
small count. A variant mixsim refuses is recorded with its message, not fatal.

usage: sweep.py --mixsim EXE --small 8192,65536 --large 10,1000 --ratio 10
                --variant 'shared=-b shared' --variant 'copied=-b copied'
                [--variant 'landed=@OTHER/mixsim -b shared']   (another build)
                [--steps 200] [--repeat 3] [--device gpu] --out DIR
       sweep.py --mixsim EXE --scene scenes/mixed.ini [--scene ...] --variant ... --out DIR
                (the given scenes instead of generated ones; small/large/ratio columns 0)
A variant with auto options records the candidate it chose (column `chosen`).
"""
import argparse
import csv
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pymods  # noqa: E402
import sweep_scene  # noqa: E402

FIELDS = ["scene", "small", "large", "ratio", "variant", "options", "ms_median", "ms_min",
          "ms_max", "runs", "idle_gpu_manager", "idle_cpu_worker", "kernels_ms", "chosen",
          "state_hash", "worker_ls_ms", "worker_list_builds", "error"]


def ints(text):
    return [int(x) for x in text.split(",") if x]


def floats(text):
    return [float(x) for x in text.split(",") if x]


def run_once(exe, scene, options, steps, device):
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "stats.json")
        cmd = [exe, "-q", "--headless", "-n", str(steps), "--stats", stats] + options
        if device:
            cmd += ["--device", device]
        cmd.append(scene)
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            lines = p.stderr.strip().splitlines()
            said = [x for x in lines if x.startswith("mixsim:")] or lines or ["exit %d" % p.returncode]
            return None, said[0]
        with open(stats) as f:
            return json.load(f), None


def chosen_of(stats):
    auto = stats.get("auto")
    if not auto:
        return ""
    return "/".join(str(v) for v in auto.get("chosen", {}).values())


def row_of(point, name, options, runs, error):
    small, large, ratio, scene = point
    row = {"scene": scene, "small": small, "large": large, "ratio": ratio, "variant": name,
           "options": " ".join(options), "error": error or ""}
    if runs:
        ms = [r["ms_per_iteration"] for r in runs]
        med = sorted(runs, key=lambda r: r["ms_per_iteration"])[len(runs) // 2]
        idle = med.get("idle_fraction", {})
        row.update(ms_median=statistics.median(ms), ms_min=min(ms), ms_max=max(ms),
                   runs=len(ms), idle_gpu_manager=idle.get("gpu_manager", ""),
                   idle_cpu_worker=idle.get("cpu_worker", ""),
                   kernels_ms=sum(k["ms_per_iteration"] for k in med["kernels"].values()),
                   chosen=" ".join(sorted({chosen_of(r) for r in runs} - {""})),
                   state_hash=med["state_hash"],
                   worker_ls_ms=med.get("threads", {}).get("cpu_worker", {})
                   .get("large_small", {}).get("ms_per_iteration", ""),
                   worker_list_builds=med.get("worker_list", {}).get("builds", ""))
    return row


def plot(rows, out_dir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(pymods.advice("sweep.py", ["matplotlib"]) + "; CSV only", file=sys.stderr)
        return []
    made = []
    groups = sorted({(r["large"], r["ratio"]) for r in rows if not r["scene"]})
    for large, ratio in groups:
        sel = [r for r in rows if r["large"] == large and r["ratio"] == ratio and not r["error"]
               and not r["scene"]]
        if not sel:
            continue
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
        for v in sorted({r["variant"] for r in sel}):
            pts = sorted((r["small"], r) for r in sel if r["variant"] == v)
            xs = [p[0] for p in pts]
            ax1.errorbar(xs, [p[1]["ms_median"] for p in pts],
                         yerr=[[p[1]["ms_median"] - p[1]["ms_min"] for p in pts],
                               [p[1]["ms_max"] - p[1]["ms_median"] for p in pts]],
                         marker="o", capsize=3, label=v)
            ax2.plot(xs, [float(p[1]["idle_gpu_manager"] or 0) for p in pts], marker="o",
                     label=v + " (GPU manager)")
            ax2.plot(xs, [float(p[1]["idle_cpu_worker"] or 0) for p in pts], marker="x",
                     linestyle="--", label=v + " (CPU worker)")
        ax1.set_xscale("log")
        ax1.set_yscale("log")
        ax1.set_xlabel("small particles")
        ax1.set_ylabel("ms per iteration (median, min-max)")
        ax1.set_title("%d large, radius ratio %g" % (large, ratio))
        ax1.legend(fontsize=8)
        ax2.set_xscale("log")
        ax2.set_ylim(0, 1)
        ax2.set_xlabel("small particles")
        ax2.set_ylabel("idle fraction (waits at sync 1 and 2)")
        ax2.legend(fontsize=7)
        fig.tight_layout()
        path = os.path.join(out_dir, "sweep_large%d_ratio%g.png" % (large, ratio))
        fig.savefig(path, dpi=110)
        plt.close(fig)
        made.append(path)
    return made


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mixsim", required=True)
    ap.add_argument("--small", type=ints, default=[8192, 65536])
    ap.add_argument("--large", type=ints, default=[10, 1000])
    ap.add_argument("--ratio", type=floats, default=[10.0])
    ap.add_argument("--variant", action="append", default=[],
                    help="NAME=OPTIONS (repeatable); default: shared and copied buffers")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--device", default=None)
    ap.add_argument("--scene", action="append", default=[],
                    help="an existing scene to run instead of generated ones (repeatable)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    variants = []
    for v in a.variant or ["shared=-b shared", "copied=-b copied"]:
        name, _, opts = v.partition("=")
        if not name:
            ap.error("--variant needs NAME=OPTIONS, got %r" % v)
        variants.append((name, shlex.split(opts)))
    os.makedirs(a.out, exist_ok=True)
    rows = []
    scratch = tempfile.mkdtemp(prefix="sweep-")
    points = [(0, 0, 0.0, path) for path in a.scene]
    if not points:
        points = [(small, large, ratio, "") for small in a.small for large in a.large
                  for ratio in a.ratio]
    for point in points:
        small, large, ratio, scene = point
        if not scene:  # rewritable by tools/sweep_scene.py, so not kept
            scene = os.path.join(scratch, "scene_%d_%d_%g.ini" % point[:3])
            with open(scene, "w") as f:
                f.write(sweep_scene.scene(small, large, ratio))
        runs = {name: [] for name, _ in variants}
        errors = {}
        for _ in range(a.repeat):
            for name, opts in variants:
                if name in errors:
                    continue
                exe = a.mixsim
                if opts and opts[0].startswith("@"):  # another build: @PATH
                    exe, opts = opts[0][1:], opts[1:]
                got, err = run_once(exe, scene, opts, a.steps, a.device)
                if err:
                    errors[name] = err
                else:
                    runs[name].append(got)
        for name, opts in variants:
            row = row_of(point, name, opts, runs[name], errors.get(name))
            rows.append(row)
            label = point[3] or "%8d small %6d large ratio %-4g" % point[:3]
            print("%s %-14s %s%s" % (
                label, name,
                "%.4f ms (%.4f-%.4f, %d runs)" % (row["ms_median"], row["ms_min"], row["ms_max"],
                                                  row["runs"])
                if not row["error"] else "ERROR " + row["error"],
                (" chose " + row["chosen"]) if row.get("chosen") else ""), flush=True)
    shutil.rmtree(scratch, ignore_errors=True)
    csv_path = os.path.join(a.out, "sweep.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow(r)
    print("wrote %s" % csv_path)
    for p in plot(rows, a.out):
        print("wrote %s" % p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
