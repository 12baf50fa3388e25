#!/usr/bin/env python3
"""Draws the case study's Fig 10.5: for each configuration, stacked bars of where each
thread's time per iteration goes (GPU manager, CPU worker), phase by phase, as a PNG.

The phases have the colours of the preview's timing bar (src/preview/render_panel.c):
blue the device's work as the GPU manager sees it, green the CPU worker's own work,
orange moving data between the memories, grey and hatched the waits: at the two syncs,
and the manager's wait for the kernels queued before its grid build (with the large
particles on the device, the iteration's small-small, large-particle and integration
kernels; their own times are in the run's kernel table), apart from the grid build.
Each configuration's median run is drawn (by ms/iteration); with a worker pool of more
than one thread a third, thin bar shows the pool's summed busy time. The title names
the machine and the scene.

usage: plot_breakdown.py BENCH.json --out FIG.png [--title TEXT]
       plot_breakdown.py STATS.json [STATS.json ...] --out FIG.png
           (mixsim --stats files, one configuration each, named by the file's name)
"""
import argparse
import json
import os
import sys

import pymods

# (stats key, label, RGB of render_panel.c's phase_color, is a wait)
PHASES = {
    "gpu_manager": [
        ("wait_device", "wait device (kernels queued before)", (170, 174, 190), True),
        ("grid_build", "grid build", (45, 95, 215), False),
        ("wait_sync1", "wait sync 1", (100, 103, 112), True),
        ("small_small", "small-small", (80, 135, 245), False),
        ("wait_sync2", "wait sync 2", (135, 138, 148), True),
        ("integrate_small", "integrate small", (125, 170, 255), False),
    ],
    "cpu_worker": [
        ("wait_sync1", "wait sync 1", (100, 103, 112), True),
        ("host_in", "map / read", (235, 150, 40), False),
        ("large_small", "large-small", (40, 160, 70), False),
        ("host_out", "unmap / write", (250, 200, 95), False),
        ("large_large", "large-large", (80, 200, 100), False),
        ("wait_sync2", "wait sync 2", (135, 138, 148), True),
        ("integrate_large", "integrate large", (135, 228, 140), False),
    ],
}
THREAD_LABEL = {"gpu_manager": "GPU mgr", "cpu_worker": "CPU worker"}
OTHER_COLOR = (255, 0, 255)  # a phase this script does not know: as the preview shows one


def load(paths):
    """(configurations as [(name, median run)], machine dict or None, scene)."""
    if len(paths) == 1:
        with open(paths[0]) as f:
            doc = json.load(f)
        if "runs" in doc and "configurations" in doc:  # tools/bench.py --json
            confs = [(n, median_run(doc["runs"][n])) for n in doc["configurations"]
                     if doc["runs"].get(n)]
            return confs, doc.get("machine"), doc.get("scene", "")
    confs = []
    for p in paths:
        with open(p) as f:
            doc = json.load(f)
        if "threads" not in doc:
            raise ValueError("%s: neither bench.py --json output nor mixsim --stats output" % p)
        confs.append((os.path.splitext(os.path.basename(p))[0], doc))
    first = confs[0][1]
    machine = {"device": first.get("device", "?"), "platform": first.get("platform", "?"),
               "driver_version": first.get("driver_version", "")}
    return confs, machine, first.get("scene", "")


def median_run(runs):
    return sorted(runs, key=lambda r: r["ms_per_iteration"])[(len(runs) - 1) // 2]


def title_of(machine, scene, n_runs):
    parts = []
    if machine:
        if machine.get("cpu_model"):
            parts.append("%s (%s cores)" % (machine["cpu_model"], machine.get("cores", "?")))
        parts.append("OpenCL: %s%s" % (machine.get("device", "?"),
                                       (", driver " + machine["driver_version"])
                                       if machine.get("driver_version") else ""))
    head = "Time per iteration by thread and phase: %s" % (os.path.basename(scene) or "?")
    if n_runs:
        head += " (median of %d runs)" % n_runs
    return "\n".join([head] + parts)


def rgb(c):
    return tuple(x / 255.0 for x in c)


def plot(confs, machine, scene, out, title=None, n_runs=0):
    pymods.require("plot_breakdown.py", "matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    pooled = any(len(r.get("cpu_threads_busy_ms_per_iteration") or []) > 1 for _, r in confs)
    threads = ["gpu_manager", "cpu_worker"]
    width, gap = 0.38, 0.5
    fig, ax = plt.subplots(figsize=(max(6.0, 1.9 * len(confs) + 2.5), 5.2))
    seen = {}
    centers, ticks = [], []
    for ci, (name, run) in enumerate(confs):
        base_x = ci * (2 * width + (0.2 if pooled else 0) + gap)
        centers.append(base_x + width / 2)
        for ti, th in enumerate(threads):
            x, bottom = base_x + ti * width, 0.0
            known = {k for k, _, _, _ in PHASES[th]}
            extra = [(k, k.replace("_", " "), OTHER_COLOR, False)
                     for k in run["threads"].get(th, {}) if k not in known]
            for key, label, color, wait in PHASES[th] + extra:
                v = run["threads"].get(th, {}).get(key, {}).get("ms_per_iteration", 0.0)
                if v <= 0:
                    continue
                ax.bar(x, v, width * 0.92, bottom=bottom, color=rgb(color),
                       hatch="///" if wait else None, edgecolor="white" if wait else "none",
                       linewidth=0)
                bottom += v
                seen.setdefault((label, color, wait), True)
            if bottom == 0.0:  # e.g. the CPU worker when the device runs everything
                ax.text(x, 0, "no work", ha="center", va="bottom", fontsize=7, rotation=90)
            ticks.append((x, THREAD_LABEL[th]))
        if pooled:
            busy = sum(run.get("cpu_threads_busy_ms_per_iteration") or [])
            ax.bar(base_x + 1.5 * width + 0.02, busy, 0.16, color=rgb((40, 160, 70)),
                   alpha=0.5)
            seen.setdefault(("worker pool busy (sum of its threads)", (40, 160, 70), False), True)
        ax.plot([base_x - width / 2, base_x + 1.5 * width], [run["ms_per_iteration"]] * 2,
                color="black", linewidth=1, linestyle="--")
    ax.set_xticks([x for x, _ in ticks])
    ax.set_xticklabels([t for _, t in ticks], fontsize=7)
    for c, (name, _) in zip(centers, confs):  # the configuration's name under its two bars
        ax.annotate(name, (c, 0), xycoords=("data", "axes fraction"), xytext=(0, -22),
                    textcoords="offset points", ha="center", va="top", fontsize=8,
                    fontweight="bold")
    ax.set_ylabel("ms per iteration")
    ax.set_title(title or title_of(machine, scene, n_runs), fontsize=9)
    handles = [Patch(facecolor=rgb(c), hatch="///" if w else None, edgecolor="white" if w else
                     "none", label=l) for (l, c, w) in seen]
    handles.append(plt.Line2D([], [], color="black", linestyle="--",
                              label="ms/iteration (wall clock)"))
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--title", default=None)
    a = ap.parse_args()
    try:
        confs, machine, scene = load(a.inputs)
    except (OSError, ValueError, KeyError) as e:
        sys.stderr.write("plot_breakdown.py: %s\n" % e)
        return 1
    if not confs:
        sys.stderr.write("plot_breakdown.py: no runs in %s\n" % ", ".join(a.inputs))
        return 1
    n_runs = 0
    if len(a.inputs) == 1:
        with open(a.inputs[0]) as f:
            n_runs = json.load(f).get("repeat", 0)
    rc = plot(confs, machine, scene, a.out, a.title, n_runs)
    if rc == 0:
        print("wrote %s" % a.out)
    return rc


if __name__ == "__main__":
    sys.exit(main())
