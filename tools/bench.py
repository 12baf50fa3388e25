#!/usr/bin/env python3
"""Benchmarks mixsim on a scene, for any list of configurations, and says only what the
noise allows.

A configuration is a name and the mixsim options that select it (`--variant NAME=OPTIONS`,
repeatable, as in tools/sweep.py; `@PATH` first runs another build). Without variants the
four pipeline x buffers combinations are run. The runs are interleaved (every
configuration once, then again, `--repeat` times) so that drift in the machine's load hits
all of them alike. For each configuration the table gives the median ms/iteration, the
spread (min-max and interquartile range) and the number of runs; a machine block says
where it ran (CPU model, cores, load average at the start and the end, OpenCL device and
driver). Each compared pair gets a verdict from a two-sided Mann-Whitney U test: "A faster
than B by X %" only at p < 0.05, else "no difference measurable at this noise"; with fewer
than 5 runs each no test is possible and it says so. The per-phase breakdown of each
configuration's median run follows, and `--json OUT` keeps everything (every run's stats,
the summaries, the machine, the verdicts) for tools/plot_breakdown.py.

usage: bench.py MIXSIM SCENE [--variant NAME=OPTIONS ...] [--compare A B ...]
                [--steps N] [--repeat R] [--device DEV] [--json OUT]
"""
import argparse
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile

MIN_RUNS_FOR_TEST = 5
ALPHA = 0.05
DEFAULT_VARIANTS = ["%s/%s=-p %s -b %s" % (p, b, p, b)
                    for p in ("naive", "reordered") for b in ("shared", "copied")]


MISSING_SCIPY = ("the Python module 'scipy' is missing for %s (Debian: apt-get install "
                 "python3-scipy, or run bench.py with the /usr/bin/python3 that has it)"
                 % sys.executable)


def find_mannwhitneyu():
    """scipy.stats.mannwhitneyu, or None (said on stderr at once): the runs are still worth
    having, the verdicts are withheld."""
    try:
        from scipy.stats import mannwhitneyu
    except ImportError:
        sys.stderr.write("bench.py: %s: no verdicts\n" % MISSING_SCIPY)
        return None
    return mannwhitneyu


def parse_variants(specs, error):
    out = []
    for v in specs:
        name, eq, opts = v.partition("=")
        if not name or not eq:
            error("--variant needs NAME=OPTIONS, got %r" % v)
        if name in (n for n, _ in out):
            error("--variant %s given twice" % name)
        out.append((name, shlex.split(opts)))
    return out


def run_once(exe, scene, options, steps, device):
    """One run's stats JSON, or raises RuntimeError with mixsim's own message."""
    if options and options[0].startswith("@"):  # another build: @PATH
        exe, options = options[0][1:], options[1:]
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "stats.json")
        cmd = [exe, "-q", "--headless", "-n", str(steps), "--stats", stats] + options
        if device:
            cmd += ["--device", device]
        cmd.append(scene)
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            lines = p.stderr.strip().splitlines() or ["exit status %d" % p.returncode]
            said = [x for x in lines if x.startswith("mixsim:")] or lines
            raise RuntimeError("%s: %s" % (" ".join(shlex.quote(c) for c in cmd), said[0]))
        with open(stats) as f:
            return json.load(f)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_average():
    try:
        return list(os.getloadavg())
    except OSError:
        return None


def summary(ms):
    """Median, min, max, quartiles (the 'inclusive' method: defined from 2 runs on)."""
    s = sorted(ms)
    q1, q3 = (statistics.quantiles(s, n=4, method="inclusive")[::2] if len(s) > 1
              else (s[0], s[0]))
    return {"runs": len(s), "median": statistics.median(s), "min": s[0], "max": s[-1],
            "q1": q1, "q3": q3, "iqr": q3 - q1}


def verdict(a, b, ms_a, ms_b, mannwhitneyu):
    """The comparison of two configurations that the noise cannot flip."""
    n = min(len(ms_a), len(ms_b))
    out = {"a": a, "b": b, "n_a": len(ms_a), "n_b": len(ms_b), "p": None}
    if n < MIN_RUNS_FOR_TEST:
        out["text"] = ("%s vs %s: no test possible with %d and %d runs (a Mann-Whitney test "
                       "needs at least %d each)" % (a, b, len(ms_a), len(ms_b), MIN_RUNS_FOR_TEST))
        return out
    if mannwhitneyu is None:
        out["text"] = "%s vs %s: no test possible: %s" % (a, b, MISSING_SCIPY)
        return out
    p = float(mannwhitneyu(ms_a, ms_b, alternative="two-sided").pvalue)
    out["p"] = p
    ma, mb = statistics.median(ms_a), statistics.median(ms_b)
    nn = "n = %d + %d" % (len(ms_a), len(ms_b))
    if p < ALPHA and ma != mb:
        fast, slow, mf, msl = (a, b, ma, mb) if ma < mb else (b, a, mb, ma)
        out["faster"] = fast
        out["percent"] = 100.0 * (1.0 - mf / msl)
        out["text"] = ("%s faster than %s by %.1f %% (p = %.3g, Mann-Whitney U, %s)" % (
            fast, slow, out["percent"], p, nn))
    else:
        out["text"] = "%s vs %s: no difference measurable at this noise (p = %.3g, %s)" % (
            a, b, p, nn)
    return out


def machine_block(m):
    la = lambda v: "%.2f %.2f %.2f" % tuple(v) if v else "unknown"  # noqa: E731
    return ["machine:",
            "  CPU          %s, %d cores" % (m["cpu_model"], m["cores"]),
            "  load average %s at start, %s at end (1, 5, 15 min)" % (la(m["load_start"]),
                                                                      la(m["load_end"])),
            "  OpenCL       %s [%s], driver %s" % (m["device"], m["platform"],
                                                   m["driver_version"])]


def breakdown_lines(name, med):
    def phases(thread):
        return ", ".join("%s %.4f" % (k, v["ms_per_iteration"])
                         for k, v in med["threads"][thread].items())
    lines = ["- %s (the median run, %.4f ms/iteration)" % (name, med["ms_per_iteration"]),
             "  - GPU manager: " + phases("gpu_manager"),
             "  - CPU worker: " + phases("cpu_worker")]
    busy = med.get("cpu_threads_busy_ms_per_iteration")
    if busy:
        lines.append("  - worker pool busy: " + ", ".join("%.4f" % x for x in busy))
    kern = [(k, v["ms_per_iteration"]) for k, v in med.get("kernels", {}).items()
            if v["ms_per_iteration"] > 0]
    if kern:
        lines.append("  - kernels: " + ", ".join("%s %.4f" % kv for kv in kern))
    return lines


def median_run(runs):
    return sorted(runs, key=lambda r: r["ms_per_iteration"])[(len(runs) - 1) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("exe")
    ap.add_argument("scene")
    ap.add_argument("--variant", action="append", default=[],
                    help="NAME=OPTIONS (repeatable); default: pipeline x buffers")
    ap.add_argument("--compare", nargs=2, action="append", default=[], metavar=("A", "B"),
                    help="compare two configurations (repeatable); default: the first against "
                         "each other (naive vs reordered, shared vs copied by default)")
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--device", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    variants = parse_variants(args.variant or DEFAULT_VARIANTS, ap.error)
    names = [n for n, _ in variants]
    for a, b in args.compare:
        for n in (a, b):
            if n not in names:
                ap.error("--compare %s: no such configuration (have: %s)" % (n, ", ".join(names)))
    if args.repeat < 1 or args.steps < 1:
        ap.error("--repeat and --steps must be at least 1")
    pairs = [tuple(p) for p in args.compare]
    if not pairs and not args.variant:  # the case study's two questions, each both ways round
        pairs = [("naive/shared", "reordered/shared"), ("naive/copied", "reordered/copied"),
                 ("reordered/shared", "reordered/copied")]
    elif not pairs:  # the first configuration is the baseline
        pairs = [(names[0], n) for n in names[1:]]
    mannwhitneyu = find_mannwhitneyu()

    machine = {"cpu_model": cpu_model(), "cores": os.cpu_count() or 0,
               "load_start": load_average(), "host": platform.node()}
    runs = {n: [] for n in names}
    try:
        for _ in range(args.repeat):
            for name, opts in variants:
                runs[name].append(run_once(args.exe, args.scene, opts, args.steps, args.device))
    except RuntimeError as e:
        print("bench.py: %s" % e, file=sys.stderr)
        return 1
    machine["load_end"] = load_average()
    first = runs[names[0]][0]
    machine.update(device=first.get("device", "?"), platform=first.get("platform", "?"),
                   driver_version=first.get("driver_version", "unknown"))

    stats = {n: summary([r["ms_per_iteration"] for r in runs[n]]) for n in names}
    verdicts = [verdict(a, b, [r["ms_per_iteration"] for r in runs[a]],
                        [r["ms_per_iteration"] for r in runs[b]], mannwhitneyu) for a, b in pairs]

    print("scene %s, %d iterations x %d runs per configuration, interleaved" % (
        args.scene, args.steps, args.repeat))
    print("\n".join(machine_block(machine)))
    print()
    print("| configuration | median ms/iteration | min-max | IQR | runs | iterations/s | hash |")
    print("|---|---|---|---|---|---|---|")
    for n in names:
        s = stats[n]
        print("| %s | %.4f | %.4f-%.4f | %.4f | %d | %.0f | %s |" % (
            n, s["median"], s["min"], s["max"], s["iqr"], s["runs"], 1e3 / s["median"],
            median_run(runs[n])["state_hash"]))
    print()
    print("Verdicts (two-sided Mann-Whitney U, p < %.2f):" % ALPHA)
    for v in verdicts:
        print("- " + v["text"])
    print()
    print("Per-phase breakdown (ms/iteration):")
    for n in names:
        print("\n".join(breakdown_lines(n, median_run(runs[n]))))
    sys.stdout.flush()

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"scene": args.scene, "steps": args.steps, "repeat": args.repeat,
                       "machine": machine, "configurations": names,
                       "options": {n: o for n, o in variants}, "stats": stats,
                       "verdicts": verdicts, "runs": runs}, f, indent=1)
    unsteady = [n for n in names if len({r["state_hash"] for r in runs[n]}) != 1]
    if unsteady:  # one configuration, one state: anything else is a determinism bug
        print("ERROR: runs of one configuration end on different state hashes: %s"
              % ", ".join(unsteady))
        return 1
    hashes = {}
    for n in names:
        for r in runs[n]:
            hashes.setdefault(r["state_hash"], set()).add(n)
    if len(hashes) != 1:
        # Not fatal: configurations may run different physics on purpose; say so.
        print("note: the configurations end on different state hashes: %s" % "; ".join(
            "%s (%s)" % (h, ", ".join(sorted(ns))) for h, ns in sorted(hashes.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
