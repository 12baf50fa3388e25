#!/usr/bin/env python3
"""Bars of ms/iteration per variant (median, whiskers min-max) for each scene of one or more
sweep CSVs (tools/sweep.py), one panel per scene: the figures of docs/scaling.md for the
issue's target scenes and for the radius ratios.

usage: plot_variants.py CSV [CSV ...] --out PNG [--title TEXT] [--skip VARIANT,...]
"""
import argparse
import csv
import math
import sys

import pymods


def label(row):
    if row.get("scene"):
        return row["scene"].split("/")[-1]
    return "%s small + %s large, ratio %g" % (
        f"{int(row['small']):,}", f"{int(row['large']):,}", float(row["ratio"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--title", default="")
    ap.add_argument("--skip", default="", help="variants to leave out, comma-separated")
    a = ap.parse_args()
    skip = set(filter(None, a.skip.split(",")))
    panels = {}
    for path in a.csv:
        with open(path) as f:
            for row in csv.DictReader(f):
                if row["error"] or row["variant"] in skip:
                    continue
                panels.setdefault(label(row), []).append(row)
    pymods.require("plot_variants.py", "matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter
    names = sorted({r["variant"] for sel in panels.values() for r in sel})
    color = {v: "C%d" % (i % 10) for i, v in enumerate(names)}
    n = len(panels)
    cols = min(n, 3)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.0 * rows), squeeze=False)
    for ax, (name, sel) in zip(axes.flat, panels.items()):
        sel = sorted(sel, key=lambda r: float(r["ms_median"]))
        med = [float(r["ms_median"]) for r in sel]
        lo = [m - float(r["ms_min"]) for m, r in zip(med, sel)]
        hi = [float(r["ms_max"]) - m for m, r in zip(med, sel)]
        ys = range(len(sel))
        ax.barh(ys, med, xerr=[lo, hi], capsize=3,
                color=[color[r["variant"]] for r in sel])
        ax.set_yticks(list(ys))
        ax.set_yticklabels([r["variant"] + (" (%s)" % r["chosen"] if r.get("chosen") else "")
                            for r in sel], fontsize=7)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("ms per iteration (median, min-max)", fontsize=8)
        for y, m in zip(ys, med):
            ax.text(m, y, " %.3g" % m, va="center", fontsize=7)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    if a.title:
        fig.suptitle(a.title, fontsize=10)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print("wrote %s" % a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
