#!/usr/bin/env python3
"""Checks a --trace file (docs/trace.md): it parses; every phase of every traced
iteration is on its track; events on one track do not overlap (equal endpoints allowed);
every device event of iteration n lies within n's host span (its first host event's
start .. the later of its last host event's end and the next iteration's grid build end:
the manager's blocking grid read waits for the queue), give or take the calibration's
uncertainty; and, with --window A:B, the iterations are exactly A..B-1 (a last one holding
only the manager's grid build, the check of the final state, aside); in collision mode
every iteration holds, on a "queue: ..." track, the transfers of the exchange in use
(full/shared: the maps and unmaps; full/copied: the reads and the F_ls write; zone: its
reads or maps of totals and spans and its writes of rectangles and bases), each inside its
iteration's host span like every device event; in gravity mode each read-back has its
"read pos" device event. --exchange says which (default: zone when
the trace holds zone kernels, else full); the buffer mode is the worker's phase names'.

usage: trace_check.py TRACE.json [--window A:B] [--phases collision|device|gravity]
                      [--exchange full|zone]
Exit 0 when it holds, 1 with the reasons on stderr otherwise."""
import collections
import json
import sys

MANAGER = ["wait device", "grid build", "wait sync1", "small-small", "wait sync2",
           "integrate small"]
WORKER_SHARED = ["wait sync1", "map", "large-small", "unmap", "wait sync2", "large-large",
                 "integrate large"]
WORKER_COPIED = ["wait sync1", "read copies", "large-small", "write F_ls", "wait sync2",
                 "large-large", "integrate large"]
DEVICE_ONLY = ["wait device", "grid build", "small-small", "integrate small"]
GRAVITY = ["enqueue step"]
FULL = ["pos", "vel", "grid count", "grid index"]
TRANSFERS = {
    ("full", "shared"): ["map " + b for b in FULL + ["f_ls"]] + ["unmap " + b for b in FULL + ["f_ls"]],
    ("full", "copied"): ["read " + b for b in FULL] + ["write F_ls"],
    ("zone", "shared"): ["map zone spans", "map zone records", "unmap zone spans",
                         "unmap zone records", "write zone owners"],
    ("zone", "copied"): ["read zone spans", "read zone records", "write zone owners"],
}


def fail(msgs):
    for m in msgs[:20]:
        print("trace_check: " + m, file=sys.stderr)
    sys.exit(1)


def main(argv):
    path = argv[1]
    window = None
    mode = "collision"
    exchange = None
    i = 2
    while i < len(argv):
        if argv[i] == "--window":
            a, b = argv[i + 1].split(":")
            window = (int(a), int(b))
        elif argv[i] == "--phases":
            mode = argv[i + 1]
        elif argv[i] == "--exchange":
            exchange = argv[i + 1]
        i += 2
    with open(path) as f:
        doc = json.load(f)
    evs = doc["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "thread_name"}
    spans = [e for e in evs if e["ph"] == "X"]
    errs = []
    if not spans:
        fail(["no spans"])
    by_track = collections.defaultdict(list)
    for e in spans:
        by_track[e["tid"]].append(e)
    for tid, lst in by_track.items():
        lst.sort(key=lambda e: (e["ts"], e["ts"] + e["dur"]))
        for a, b in zip(lst, lst[1:]):
            if b["ts"] < a["ts"] + a["dur"] - 1e-3:
                errs.append("%s: '%s' (iteration %s) overlaps '%s' (iteration %s) at %.3f us" % (
                    names.get(tid), a["name"], a.get("args", {}).get("iteration"), b["name"],
                    b.get("args", {}).get("iteration"), b["ts"]))
    iters = collections.defaultdict(lambda: collections.defaultdict(set))
    for e in spans:
        it = e.get("args", {}).get("iteration")
        if it is not None and e["cat"] == "host":
            iters[it][names[e["tid"]]].add(e["name"])
    if not iters:
        fail(errs + ["no iterations"])
    # The transfers: device events on a queue track, by iteration.
    moved = collections.defaultdict(set)
    for e in spans:
        it = e.get("args", {}).get("iteration")
        if it is not None and e["cat"] == "device" and names[e["tid"]].startswith("queue: "):
            moved[it].add(e["name"])
    if exchange is None:
        zone_kernels = any(e["cat"] == "device" and e["name"].startswith("zone_") for e in spans)
        exchange = "zone" if zone_kernels else "full"
    its = sorted(iters)
    # The run's end: the manager builds the grid of the iteration after the last to check
    # the final state; that iteration never runs.
    if len(its) > 1 and mode != "gravity" and \
            dict(iters[its[-1]]) == {"GPU manager": {"wait device", "grid build"}}:
        its.pop()
    if window and its != list(range(window[0], window[1])):
        errs.append("iterations %d..%d (%d), want exactly %d..%d" % (its[0], its[-1], len(its),
                                                                       window[0], window[1] - 1))
    # The manager's grid build of the window's last iteration + 1 is not kept; every
    # other iteration must be whole.
    for it in its:
        got = iters[it]
        if mode == "collision":
            want = {"GPU manager": MANAGER,
                    "CPU worker": WORKER_COPIED if "read copies" in got.get("CPU worker", ()) else WORKER_SHARED}
        elif mode == "device":
            want = {"GPU manager": DEVICE_ONLY}
        else:
            want = {"driver": GRAVITY}
        for track, phases in want.items():
            missing = [p for p in phases if p not in got.get(track, ())]
            if missing:
                errs.append("iteration %d: %s lacks %s" % (it, track, ", ".join(missing)))
        if mode == "collision":
            buffers = "copied" if "read copies" in got.get("CPU worker", ()) else "shared"
            missing = [t for t in TRANSFERS[(exchange, buffers)] if t not in moved[it]]
            if missing:
                errs.append("iteration %d: no queue track holds the %s/%s exchange's %s" % (
                    it, exchange, buffers, ", ".join(missing)))
    if mode == "gravity":
        # A read-back reads the positions on each device's track (a device event).
        dev_reads = collections.defaultdict(set)
        for e in spans:
            if e["cat"] == "device" and e["name"].startswith("read "):
                dev_reads[e.get("args", {}).get("iteration")].add(e["name"])
        for it in its:
            if "read-back" in iters[it].get("driver", ()) and "read pos" not in dev_reads[it]:
                errs.append("iteration %d: a read-back without its device event 'read pos'" % it)
    if mode != "gravity":
        calib = doc["otherData"]["calibration"]
        host = collections.defaultdict(lambda: [float("inf"), -float("inf")])
        grid_end = collections.defaultdict(lambda: -float("inf"))
        for e in spans:
            it = e.get("args", {}).get("iteration")
            if it is None or e["cat"] != "host":
                continue
            h = host[it]
            h[0] = min(h[0], e["ts"])
            h[1] = max(h[1], e["ts"] + e["dur"])
            if e["name"] == "grid build":
                grid_end[it] = max(grid_end[it], e["ts"] + e["dur"])
        last_ts = max(e["ts"] + e["dur"] for e in spans)
        for e in spans:
            if e["cat"] != "device":
                continue
            it = e["args"]["iteration"]
            u = calib[names[e["tid"]]]["uncertainty_us"]
            lo = host[it][0]
            hi = max(host[it][1], grid_end.get(it + 1, last_ts if it == its[-1] else -1))
            if e["ts"] < lo - u or e["ts"] + e["dur"] > hi + u:
                errs.append("%s '%s' of iteration %d at %.1f..%.1f us, outside its host span "
                            "%.1f..%.1f (+-%.1f)" % (names[e["tid"]], e["name"], it, e["ts"],
                                                     e["ts"] + e["dur"], lo, hi, u))
    if errs:
        fail(errs)
    print("trace_check: %d spans on %d tracks, iterations %d..%d" % (len(spans), len(by_track),
                                                                    its[0], its[-1]))


if __name__ == "__main__":
    main(sys.argv)
