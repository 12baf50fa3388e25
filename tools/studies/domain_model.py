#!/usr/bin/env python3
"""The particle count at which P GPUs keep an efficiency (docs/scaling.md, "Collision mode
on many GPUs, on paper"): t(P) = a + b N/P + L + bytes (2/B_pcie + 1/B_net), where bytes
are a domain's window of discs going out and coming in as records, for slabs (a window each
side of every cut) or a grid of domains (four sides), over a bed of the given density and
aspect. Meeting every k iterations (docs/domains.md), the window grows by --grow columns an
iteration of k, and the meeting's fixed cost, its host cost a record (--record-ns) and its
bytes are paid once in k; the k of the shortest iteration (up to --max-every) is taken.
--step-ms adds a domain's own fixed cost to every iteration of P > 1. Solves t(1) / (P t(P))
= efficiency for N by bisection and prints a table row per (P, layout). Standard library only.

  python3 tools/studies/domain_model.py --latency-ms 1.15 --record-ns 92 --grow 9
"""
import argparse
import math


def window_discs(n, p, grid, o, columns):
    cells = n / o.density
    if grid:
        px = int(round(math.sqrt(p)))
        while p % px:
            px -= 1
        py = p // px
        nx = math.sqrt(cells / o.aspect) / px
        ny = math.sqrt(cells * o.aspect) / py
        return columns * (2 * nx + 2 * ny) * o.density + 4 * columns ** 2 * o.density
    return 2 * columns * math.sqrt(cells * o.aspect) * o.density


def iteration_every(n, p, grid, o, k):
    window = window_discs(n, p, grid, o, o.window + (k - 1) * o.grow)
    data = 2 * window * o.record  # out and in
    meet = (o.latency_ms * 1e-3 + window * o.record_ns * 1e-9 +
            data * (2 / (o.pcie_gbs * 1e9) + 1 / (o.net_gbs * 1e9))) / k
    step = o.a_ms * 1e-3 + o.b_ns * 1e-9 * n / p + o.step_ms * 1e-3
    return step + meet, meet, window, k


def iteration(n, p, grid, o):
    return min((iteration_every(n, p, grid, o, k) for k in range(1, o.max_every + 1)),
               key=lambda r: r[0])


def solve(p, grid, o):
    lo, hi = 1e3, 1e15
    for _ in range(300):
        n = math.sqrt(lo * hi)
        t = iteration(n, p, grid, o)[0]
        if (o.a_ms * 1e-3 + o.b_ns * 1e-9 * n) / (p * t) < o.efficiency:
            lo = n
        else:
            hi = n
    return hi


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a-ms", type=float, default=0.085, help="one GPU's fixed time an iteration")
    ap.add_argument("--b-ns", type=float, default=0.233, help="one GPU's time a disc")
    ap.add_argument("--latency-ms", type=float, default=1.25, help="the meeting's fixed cost")
    ap.add_argument("--step-ms", type=float, default=0.0,
                    help="a domain's fixed cost every iteration beside one GPU's (the large "
                         "particles' hand-over: the wait for the slowest domain)")
    ap.add_argument("--window", type=int, default=6, help="columns held each side of a cut")
    ap.add_argument("--record", type=int, default=64, help="bytes a disc's record")
    ap.add_argument("--record-ns", type=float, default=0.0,
                    help="the host's time a record, beside the bytes' transfer")
    ap.add_argument("--grow", type=float, default=9.0,
                    help="columns the window grows an iteration of k")
    ap.add_argument("--max-every", type=int, default=1, help="the largest k tried")
    ap.add_argument("--density", type=float, default=0.77, help="discs a cell")
    ap.add_argument("--aspect", type=float, default=35.5 / 61.4, help="box height / width")
    ap.add_argument("--pcie-gbs", type=float, default=25.0)
    ap.add_argument("--net-gbs", type=float, default=25.0)
    ap.add_argument("--efficiency", type=float, default=0.8)
    ap.add_argument("--gpus", default="2,4,64,512")
    o = ap.parse_args()
    print("| GPUs | domains | N | per GPU | k | window's discs a domain | meeting ms an iteration "
          "| iteration ms |")
    print("|---|---|---|---|---|---|---|---|")
    for p in (int(x) for x in o.gpus.split(",")):
        for grid in ((0, 1) if p >= 16 else (0,)):
            n = solve(p, grid, o)
            t, meet, window, k = iteration(n, p, grid, o)
            print("| %d | %s | %.2g | %.2g | %d | %d | %.2f | %.2f |" % (
                p, "grid" if grid else "slabs", n, n / p, k, window, 1e3 * meet, 1e3 * t))


if __name__ == "__main__":
    main()
