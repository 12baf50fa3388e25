#!/usr/bin/env python3
"""Checks a collision run's DIR/diagnostics.csv (tests/diagnostics.sh): every row has
every column, the steps are the expected ones, and the energy balance closes:
|E(t) - E(0)| <= tol * E(0) for every row, E = kinetic (translational + rotational) +
potential + elastic (normal + tangential) + dissipated - the work the scene's walls did
(wall_work), summed here from the columns (not read from `total`), with at least
`--min-dissipated` of E(0) dissipated by the end.
--without COLUMN leaves a term out of the sum (the test's own negative control: the
balance must then fail).
usage: check_diagnostics.py FILE --steps 0,200,... [--tol 0.03] [--min-dissipated 0.3]
       [--without dissipated|elastic_normal|wall_work|...]"""
import argparse
import csv
import sys

COLUMNS = ["step", "time", "ke_translational", "ke_rotational", "potential",
           "elastic_normal", "elastic_tangential", "dissipated", "total", "px", "py",
           "contacts_ss", "contacts_ls", "contacts_ll", "contacts_wall", "max_overlap",
           "coordination", "grid_builds", "grid_overflow_builds", "grid_capacity",
           "zone_iterations", "zone_cells_mean", "zone_particles_mean", "wall_work"]
# the terms of E and their signs: the walls' work came in from outside
ENERGY = {"ke_translational": 1, "ke_rotational": 1, "potential": 1, "elastic_normal": 1,
          "elastic_tangential": 1, "dissipated": 1, "wall_work": -1}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--steps", required=True)
    ap.add_argument("--tol", type=float, default=0.03)
    ap.add_argument("--min-dissipated", type=float, default=0.3)
    ap.add_argument("--without", default="")
    ap.add_argument("--positive", default="", help="columns that must end > 0")
    a = ap.parse_args()
    with open(a.file, newline="") as f:
        rows = list(csv.reader(f))
    if rows[0] != COLUMNS:
        sys.exit(f"header {rows[0]} != {COLUMNS}")
    body = [dict(zip(COLUMNS, r)) for r in rows[1:]]
    for r in rows[1:]:
        if len(r) != len(COLUMNS):
            sys.exit(f"row with {len(r)} fields: {r}")
    steps = [int(r["step"]) for r in body]
    want = [int(s) for s in a.steps.split(",")]
    if steps != want:
        sys.exit(f"steps {steps} != {want}")
    terms = [c for c in ENERGY if c != a.without]
    e = [sum(ENERGY[c] * float(r[c]) for c in terms) for r in body]
    e0 = e[0]
    worst = max(abs(x - e0) for x in e) / e0
    lost = float(body[-1]["dissipated"]) / e0
    print(f"E0 {e0:.6g} J/m, largest |E - E0| / E0 {worst:.4f} (tol {a.tol}), "
          f"dissipated {lost:.3f} of E0")
    for c in a.positive.split(",") if a.positive else []:
        if not float(body[-1][c]) > 0:
            sys.exit(f"{c} is {body[-1][c]} at the end, expected > 0")
    if lost < a.min_dissipated:
        sys.exit(f"only {lost:.3f} of E0 dissipated: the run does not test the balance")
    if worst > a.tol:
        sys.exit("the energy balance does not close")


main()
