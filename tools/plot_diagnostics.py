#!/usr/bin/env python3
"""Plots a run's DIR/diagnostics.csv (mixsim --output DIR --diagnostics; docs/output.md)
as a PNG.

Collision mode, three panels over time: the energies stacked (kinetic, rotational,
potential above its smallest value, elastic normal and tangential, dissipated so far)
with their total as a line (the stack less the work the scene's walls did, drawn dotted
when they did any), so a closing balance shows as a flat line; the momentum (px, py);
the contacts by kind and the mean coordination number. The title gives the total's
largest drift relative to its start as plotted (E0 less the potential's smallest value).
Gravity mode, two panels: kinetic, potential and total energy with the relative drift,
and the momentum. The title is also printed ("title: ...") after the file's name.

usage: plot_diagnostics.py DIR/diagnostics.csv --out FIG.png [--title TEXT]
"""
import argparse
import csv
import sys

import pymods


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{path}: no rows")
    cols = {}
    for k in rows[0]:
        cols[k] = [float(r[k]) if r[k] != "" else float("nan") for r in rows]
    return cols


def drift_title(c, u0, title):
    """The largest drift of the total energy relative to its start as plotted, E0 - u0 (the
    potential less its smallest value): the offset cancels in E - E0 but not in E0, and
    relative to the raw E0 the figure would be smaller than what the panel shows."""
    e0 = c["total"][0]
    ref = e0 - u0
    worst = max(abs(x - e0) for x in c["total"])
    if ref:
        text = f"largest |E - E0| / (E0 - {u0:.4g}) = {worst / abs(ref):.2%}"
    else:  # at rest at its lowest, nothing stored: no scale to compare with
        text = f"largest |E - E0| = {worst:.3g} J/m"
    return f"{title}: {text}" if title else text


def collision(c, plt, title):
    t = c["time"]
    fig, ax = plt.subplots(3, 1, figsize=(8, 9), sharex=True)
    # The potential energy is relative to the box's min corner; its smallest value in the
    # run is taken off, so the stack shows what changes.
    u0 = min(c["potential"])
    parts = [
        ("kinetic (translational)", c["ke_translational"], "#4477aa"),
        ("kinetic (rotational)", c["ke_rotational"], "#66ccee"),
        (f"potential - {u0:.4g}", [u - u0 for u in c["potential"]], "#228833"),
        ("elastic (normal)", c["elastic_normal"], "#ccbb44"),
        ("elastic (tangential)", c["elastic_tangential"], "#ee9944"),
        ("dissipated so far", c["dissipated"], "#aa3377"),
    ]
    ax[0].stackplot(t, *[p[1] for p in parts], labels=[p[0] for p in parts],
                    colors=[p[2] for p in parts], alpha=0.85)
    ax[0].plot(t, [x - u0 for x in c["total"]], "k-", lw=1.2, label=f"total - {u0:.4g}")
    if any(c.get("wall_work", [])):  # the scene's walls put energy in: total = stack - it
        ax[0].plot(t, c["wall_work"], "k:", lw=1.2, label="work of the walls (total: stack - it)")
    ax[0].set_ylabel("energy (J/m)")
    ax[0].legend(loc="lower left", fontsize=7, ncol=2)
    ax[0].set_title(drift_title(c, u0, title), fontsize=10)
    ax[1].plot(t, c["px"], label="px")
    ax[1].plot(t, c["py"], label="py")
    ax[1].set_ylabel("momentum (kg m/s per m)")
    ax[1].legend(fontsize=8)
    for k, lab in (("contacts_ss", "small-small"), ("contacts_ls", "large-small"),
                   ("contacts_ll", "large-large"), ("contacts_wall", "wall")):
        ax[2].plot(t, c[k], label=lab)
    ax[2].set_ylabel("contacts")
    ax[2].legend(loc="upper left", fontsize=8)
    z = ax[2].twinx()
    z.plot(t, c["coordination"], "k--", lw=1, label="coordination")
    z.set_ylabel("mean coordination (dashed)")
    ax[2].set_xlabel("time (s)")
    return fig


def gravity(c, plt, title):
    t = c["time"]
    fig, ax = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for k in ("kinetic", "potential", "energy"):
        ax[0].plot(t, c[k], label=k)
    ax[0].set_ylabel("energy")
    ax[0].legend(fontsize=8)
    d = ax[0].twinx()
    d.plot(t, c["energy_error"], "k:", lw=1)
    d.set_ylabel("(E - E0) / |E0| (dotted)")
    if title:
        ax[0].set_title(title, fontsize=10)
    for k in ("px", "py", "pz"):
        ax[1].plot(t, c[k], label=k)
    ax[1].set_ylabel("momentum")
    ax[1].legend(fontsize=8)
    ax[1].set_xlabel("time")
    return fig


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--out", required=True)
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    pymods.require("plot_diagnostics.py", "matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    c = read(a.csv)
    fig = gravity(c, plt, a.title) if "virial_ratio" in c else collision(c, plt, a.title)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(f"wrote {a.out}")
    print(f"title: {fig.axes[0].get_title()}")


if __name__ == "__main__":
    main()
