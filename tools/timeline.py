#!/usr/bin/env python3
"""Draws the timeline strip of the case study's Fig 10.4 A/B from a --trace file
(docs/trace.md): one row per track (GPU manager, CPU worker, pool threads, the queues),
each phase a coloured bar, each sync point a vertical line across the rows, for a few
iterations.

usage: timeline.py TRACE.json --out strip.png [--iterations A:B] [--title TEXT]
(default: the trace's first 3 complete iterations after its first)"""
import argparse
import json
import sys

import pymods

pymods.require("timeline.py", "matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

# The phases' colours; device commands by kernel name prefix.
COLOURS = {
    "wait device": "#d9d9d9", "grid build": "#4c72b0", "small-small": "#dd8452",
    "integrate small": "#55a868",
    "map": "#c44e52", "read copies": "#c44e52", "large-small": "#8172b3",
    "unmap": "#937860", "write F_ls": "#937860", "large-large": "#da8bc3",
    "integrate large": "#8c8c8c", "wait sync1": "#eeeeee", "wait sync2": "#eeeeee",
    "chunk": "#8172b3",
}
DEVICE_COLOURS = [("grid", "#4c72b0"), ("nlist", "#4c72b0"), ("collide", "#dd8452"),
                  ("integrate", "#55a868"), ("zone", "#c44e52"), ("large", "#da8bc3")]
ORDER = ["GPU manager", "queue: main", "CPU worker", "queue: zone"]


def colour(e):
    if e["cat"] == "device":
        for prefix, c in DEVICE_COLOURS:
            if e["name"].startswith(prefix):
                return c
        return "#bbbbbb"
    return COLOURS.get(e["name"], "#bbbbbb")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--out", required=True)
    ap.add_argument("--iterations", help="A:B, iterations A to B-1")
    ap.add_argument("--title")
    a = ap.parse_args()
    with open(a.trace) as f:
        ev = json.load(f)["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    spans = [e for e in ev if e["ph"] == "X" and "iteration" in e.get("args", {})]
    its = sorted({e["args"]["iteration"] for e in spans})
    if not its:
        sys.exit("timeline.py: no iterations in " + a.trace)
    if a.iterations:
        lo, hi = (int(v) for v in a.iterations.split(":"))
    else:
        lo = its[1] if len(its) > 4 else its[0]
        hi = lo + 3
    keep = [e for e in spans if lo <= e["args"]["iteration"] < hi]
    if not keep:
        sys.exit("timeline.py: no events of iterations %d..%d" % (lo, hi - 1))
    tracks = sorted({e["tid"] for e in keep},
                    key=lambda t: (ORDER.index(names[t]) if names[t] in ORDER else len(ORDER), names[t]))
    row = {t: i for i, t in enumerate(reversed(tracks))}
    t0 = min(e["ts"] for e in keep)
    ms = lambda ts: (ts - t0) / 1000.0  # noqa: E731
    fig, ax = plt.subplots(figsize=(12, 0.6 * len(tracks) + 1.6))
    for e in keep:
        y = row[e["tid"]]
        ax.broken_barh([(ms(e["ts"]), e["dur"] / 1000.0)], (y - 0.35, 0.7), facecolors=colour(e),
                       edgecolors="#555555", linewidth=0.3)
    # Sync points: where the waiting thread was released.
    for e in ev:
        if e["ph"] == "i" and lo <= e.get("args", {}).get("iteration", -1) < hi:
            ax.axvline(ms(e["ts"]), color="black", linewidth=0.8,
                       linestyle="-" if e["name"] == "sync1" else "--")
    # Iteration starts: the manager's first event of each.
    for it in range(lo, hi):
        starts = [e["ts"] for e in keep if e["args"]["iteration"] == it]
        if starts:
            ax.text(ms(min(starts)), len(tracks) - 0.45, "it %d" % it, fontsize=8, va="bottom")
    ax.set_yticks(range(len(tracks)))
    ax.set_yticklabels([names[t] for t in reversed(tracks)])
    ax.set_xlabel("ms")
    ax.set_ylim(-0.6, len(tracks) + 0.1)
    legend = [Patch(facecolor=c, edgecolor="#555555", label=n) for n, c in COLOURS.items()
              if any(e["name"] == n for e in keep)]
    legend += [plt.Line2D([], [], color="black", label="sync1"),
               plt.Line2D([], [], color="black", linestyle="--", label="sync2")]
    ax.legend(handles=legend, fontsize=7, ncol=6, loc="upper center", bbox_to_anchor=(0.5, -0.25))
    ax.set_title(a.title or "%s: iterations %d..%d" % (a.trace, lo, hi - 1), fontsize=10)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)


if __name__ == "__main__":
    main()
