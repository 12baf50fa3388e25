#!/usr/bin/env python3
"""Measures, with the real program, the restitution an isolated head-on contact gives
against dt / t_c (docs/time-step.md).

For each contact kind (small-small, small-wall, large-small with mass ratio 10), each e
and each dt / t_c it writes tiny gravity-free collision scenes, runs `mixsim` headless
with --dump and reads e = -(relative normal speed after) / (before) from the dumped
velocities. Where a contact starts within a step depends on the initial gap, so the
gap is swept over one step's travel (--phases gaps): the table gives min, mean and max
of e over them, the relative error, and the range the loader's model predicts over 64
phases (the isolated contact stepped with the same force law and integrator, here in
double precision; src/scene/contact_time.c does it in the program's single precision).

  tools/studies/restitution_dt.py --mixsim build/mixsim [--phases 16] [--plot out.png]

Layouts (r = 1 cm discs, k = 1e4 N/m, density 1000 kg/m^2):
  small-wall   one disc flying at the left wall; one run per phase.
  large-small  a column of discs at rest, each hit by its own large disc (radius 2r,
               density 2500: ten times the mass) from a different gap; one run.
  small-small  two discs A, B at rest; a large disc (ten times the mass) launches A into
               B; the A-B gap sets the phase. Per phase, one run stops between the two
               contacts (A's speed before), one after A-B (B's speed; A's follows from
               momentum, which the pair force conserves).
Stopping times come from stepping each layout's extreme rows in the same 1D model.
"""
import argparse
import csv
import math
import os
import struct
import subprocess
import sys
import tempfile

K = 1e4
R = 0.01
RHO = 1000.0
ES = (0.1, 0.5, 0.9)
RATIOS = (5, 10, 15, 20, 30, 50, 100, 1000)


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def zeta(e):
    l = math.log(e)
    return -l / math.sqrt(math.pi * math.pi + l * l)


def contact_time(e, m_eff):
    return math.pi / (math.sqrt(K / m_eff) * math.sqrt(1.0 - zeta(e) ** 2))


def damping(e, m_eff):
    return 2.0 * zeta(e) * math.sqrt(K * m_eff)


M_SMALL = f32(RHO * math.pi * f32(R) ** 2)
R_F = f32(R)


# ---- the 1D model: bodies on a line, the linear spring-dashpot, symplectic Euler ----

def step_model(bodies, e, dt, steps, on_step=None):
    """bodies: dicts x, v, r, m (None: fixed). Returns, per pair (i, j), the list of
    steps at which they were in contact."""
    pairs = [(i, j) for i in range(len(bodies)) for j in range(i + 1, len(bodies))]
    coeff = {}
    for i, j in pairs:
        mi, mj = bodies[i]["m"], bodies[j]["m"]
        m_eff = mj if mi is None else mi if mj is None else mi * mj / (mi + mj)
        coeff[(i, j)] = damping(e, m_eff)
    contact = {p: [] for p in pairs}
    for n in range(steps):
        force = [0.0] * len(bodies)
        for i, j in pairs:
            a, b = bodies[i], bodies[j]
            dist = abs(b["x"] - a["x"])
            overlap = a["r"] + b["r"] - dist
            if overlap <= 0.0:
                continue
            contact[(i, j)].append(n)
            nx = 1.0 if b["x"] > a["x"] else -1.0  # from a to b
            approach = (a.get("v", 0.0) - b.get("v", 0.0)) * nx
            fn = K * overlap + coeff[(i, j)] * approach
            force[i] -= fn * nx
            force[j] += fn * nx
        for b, f in zip(bodies, force):
            if b["m"] is not None:
                b["v"] += f / b["m"] * dt
                b["x"] += b["v"] * dt
    return contact


def model_range(e, m_eff, dt, phases=64):
    """What the loader predicts: the isolated contact stepped at each phase."""
    got = []
    for p in range(phases):
        v0 = 0.05 * math.sqrt(K / m_eff)
        body = {"x": -(p + 0.5) / phases * v0 * dt, "v": -v0}  # touching at x = 0
        c = damping(e, m_eff)
        for _ in range(int(4 * contact_time(e, m_eff) / dt) + 16):
            overlap = -body["x"]
            if overlap <= 0.0 and body["v"] > 0.0:
                break
            f = K * overlap - c * body["v"] if overlap > 0.0 else 0.0
            body["v"] += f / m_eff * dt
            body["x"] += body["v"] * dt
        got.append(body["v"] / v0)
    return min(got), max(got)


def span(steps_list):
    return (steps_list[0], steps_list[-1]) if steps_list else (None, None)


def intervals(steps_list):
    """Runs of consecutive steps: [(first, last), ...]."""
    out = []
    for n in steps_list:
        if out and n == out[-1][1] + 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


# ---- scenes and runs ----

def header(dt, e, box_max):
    return ("[simulation]\ndt = %r\ngravity = 0, 0\n[box]\nmin = 0, 0\nmax = %r, %r\n"
            "[material]\nstiffness = %r\nrestitution = %r\n" % (dt, box_max[0], box_max[1],
                                                                K, e))


def run(mixsim, text, steps, tmp):
    scene = os.path.join(tmp, "scene.ini")
    dump = os.path.join(tmp, "dump.csv")
    with open(scene, "w") as f:
        f.write(text)
    cmd = [mixsim, scene, "--steps", str(steps), "--headless", "-q", "--dump", dump]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit("mixsim failed (%d): %s\n%s" % (res.returncode, " ".join(cmd), res.stderr))
    with open(dump) as f:
        rows = list(csv.DictReader(f))
    small = [r for r in rows if r["kind"] == "small"]
    large = [r for r in rows if r["kind"] == "large"]
    return small, large


def lattice_y(y0, pitch, j):
    return f32(f32(y0) + R_F + j * pitch)


def small_wall(mixsim, e, ratio, phases, tmp):
    e = f32(e)  # as the loader keeps it
    m_eff = M_SMALL
    t_c = contact_time(e, m_eff)
    dt = t_c / ratio * (1 - 1e-9)  # at t_c / 10 exactly, not a rounding above
    v = 0.02 * R * math.sqrt(K / m_eff)
    out = []
    for p in range(phases):
        gap = (1.0 + (p + 0.5) / phases) * v * dt
        x0 = f32(gap)
        x = f32(x0 + R_F)
        model = [{"x": 0.0, "r": 0.0, "m": None}, {"x": x, "v": -v, "r": R_F, "m": m_eff}]
        hits = step_model(model, e, dt, int(3 * ratio) + 10)[(0, 1)]
        stop = span(hits)[1] + 3
        text = header(dt, e, (1.0, 1.0)) + (
            "[small]\ncount = 1\nradius = %r\nregion = %r, 0.5, %r, 0.53\n"
            "velocity = %r, 0\n" % (R, x0, x0 + 3 * R, -v))
        small, _ = run(mixsim, text, stop, tmp)
        out.append(float(small[0]["vx"]) / v)
    return out


def large_small(mixsim, e, ratio, phases, tmp):
    e = f32(e)  # as the loader keeps it
    m_l = 10.0 * M_SMALL
    m_eff = M_SMALL * m_l / (M_SMALL + m_l)
    t_c = contact_time(e, m_eff)
    dt = t_c / ratio * (1 - 1e-9)  # at t_c / 10 exactly, not a rounding above
    # With two small discs or more, the loader also checks dt against the small-small
    # contact, which is shorter: where that refuses dt, one run per phase (one disc).
    if dt <= contact_time(e, M_SMALL / 2) / 10:
        return large_small_rows(mixsim, e, dt, m_eff, list(range(phases)), phases, tmp)
    return [x for p in range(phases)
            for x in large_small_rows(mixsim, e, dt, m_eff, [p], phases, tmp)]


def large_small_rows(mixsim, e, dt, m_eff, rows, phases, tmp):
    m_l = 10.0 * M_SMALL
    v = 0.02 * R * math.sqrt(K / m_eff)
    x0, y0, spacing = 5 * R, 0.05, 3.0
    pitch = spacing * 2.0 * R_F
    xs = f32(f32(x0) + R_F)
    gaps = [(1.0 + (p + 0.5) / phases) * v * dt for p in rows]
    stop = 0
    for g in (gaps[0], gaps[-1]):
        model = [{"x": xs - 3 * R_F - g, "v": v, "r": 2 * R_F, "m": m_l},
                 {"x": xs, "v": 0.0, "r": R_F, "m": M_SMALL}]
        steps = int(3 * contact_time(e, m_eff) / dt) + 10
        stop = max(stop, span(step_model(model, e, dt, steps)[(0, 1)])[1] + 3)
    n = len(rows)
    text = header(dt, e, (1.0, y0 + n * pitch + 0.05)) + (
        "[small]\ncount = %d\nradius = %r\nregion = %r, %r, %r, %r\nspacing = %r\n"
        "velocity = 0, 0\n" % (n, R, x0, y0, x0 + 2 * R + 0.5 * pitch, y0 + n * pitch,
                               spacing))
    for i, g in enumerate(gaps):
        text += ("[large.p%d]\nposition = %r, %r\nradius = %r\ndensity = 2500\n"
                 "velocity = %r, 0\n" % (i, f32(xs - 3 * R_F - g), lattice_y(y0, pitch, i),
                                         2 * R, v))
    small, large = run(mixsim, text, stop, tmp)
    return [(float(s["vx"]) - float(l["vx"])) / v for s, l in zip(small, large)]


def small_small(mixsim, e, ratio, phases, tmp):
    e = f32(e)  # as the loader keeps it
    t_c = contact_time(e, M_SMALL / 2)
    dt = t_c / ratio * (1 - 1e-9)  # at t_c / 10 exactly, not a rounding above
    return [small_small_run(mixsim, e, ratio, dt, (p + 0.5) / phases, tmp)
            for p in range(phases)]


def small_small_run(mixsim, e, ratio, dt, phase, tmp):
    """One row: a large disc launches A into B (both at rest). The A-B gap sets the
    phase; each row is its own run, as float positions round a flight's steps alike
    in every row, so rows launched at slightly different speeds would all meet at
    the same phase."""
    m_l = 10.0 * M_SMALL
    t_c = contact_time(e, M_SMALL / 2)
    u = 0.02 * R * math.sqrt(K / (M_SMALL / 2))
    v_a = (1 + e) * m_l / (m_l + M_SMALL) * u  # about A's speed after the launch
    x0, y0 = 5 * R, 0.05
    for flight in (6, 12, 24, 48):  # A-B gap in t_c of flight: long enough to isolate A-B
        d = (flight * t_c / dt + phase) * v_a * dt  # plus the phase
        spacing = (d + 2 * R_F) / (2 * R_F)
        pitch = spacing * 2.0 * R_F
        xa, xb = f32(f32(x0) + R_F), f32(f32(x0) + R_F + pitch)
        gap = 1.5 * u * dt
        x_l = f32(xa - 3 * R_F - gap)
        model = [{"x": x_l, "v": u, "r": 2 * R_F, "m": m_l},
                 {"x": xa, "v": 0.0, "r": R_F, "m": M_SMALL},
                 {"x": xb, "v": 0.0, "r": R_F, "m": M_SMALL}]
        hits = step_model(model, e, dt, int((3 * flight + 30) * t_c / dt) + 50)
        la, ab = intervals(hits[(0, 1)]), intervals(hits[(1, 2)])
        if not ab:
            continue
        # the launcher leaves A (for good, before A-B) ...
        launch_end = max(iv[1] for iv in la if iv[0] < ab[0][0])
        # ... and B's next contact after A-B, or A's with the launcher, comes later
        later = [iv[0] for iv in ab[1:] + intervals(hits[(0, 2)])]
        later += [iv[0] for iv in la if iv[0] > launch_end] + [ab[0][1] + 20 * int(ratio)]
        before = (launch_end + 2, ab[0][0])
        after = (ab[0][1] + 2, min(later) - 1)
        if before[0] <= before[1] and after[0] <= after[1]:
            break
    else:
        sys.exit("small-small e=%g t_c/%g: no window to stop in" % (e, ratio))
    text = header(dt, e, (1.0, 0.2)) + (
        "[small]\ncount = 2\nradius = %r\nregion = %r, %r, %r, %r\nspacing = %r\n"
        "velocity = 0, 0\n[large.launcher]\nposition = %r, %r\nradius = %r\n"
        "density = 2500\nvelocity = %r, 0\n"
        % (R, x0, y0, x0 + 2 * R + 1.5 * pitch, y0 + 2 * R + 0.5 * pitch, spacing, x_l,
           lattice_y(y0, pitch, 0), 2 * R, u))
    s1, _ = run(mixsim, text, (before[0] + before[1]) // 2, tmp)
    s2, _ = run(mixsim, text, (after[0] + after[1]) // 2, tmp)
    va = float(s1[0]["vx"])  # B is at rest before
    vb2 = float(s2[1]["vx"])
    va2 = va - vb2  # momentum (equal masses)
    return (vb2 - va2) / va


KINDS = {
    "small-small": (small_small, lambda: M_SMALL / 2),
    "small-wall": (small_wall, lambda: M_SMALL),
    "large-small": (large_small, lambda: M_SMALL * 10 / 11),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mixsim", default="build/mixsim", help="the program (build/mixsim)")
    ap.add_argument("--phases", type=int, default=16, help="initial gaps over one step (16)")
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated contact kinds")
    ap.add_argument("--e", default=",".join(map(str, ES)), help="restitutions (0.1,0.5,0.9)")
    ap.add_argument("--ratios", default=",".join(map(str, RATIOS)),
                    help="t_c / dt values (5,10,15,20,30,50,100,1000)")
    ap.add_argument("--plot", metavar="PNG", help="also plot the error band (matplotlib)")
    args = ap.parse_args()
    kinds = args.kinds.split(",")
    es = [float(x) for x in args.e.split(",")]
    ratios = [float(x) for x in args.ratios.split(",")]
    if args.plot:
        try:
            import matplotlib  # noqa: F401  (checked before the runs, used at the end)
        except ImportError:
            sys.exit("--plot needs matplotlib")
    for k in kinds:
        if k not in KINDS:
            sys.exit("unknown kind %r (expected %s)" % (k, ", ".join(KINDS)))
    print("| kind | e | dt | e min | e mean | e max | error min | error max "
          "| model min..max |")
    print("|---|---|---|---|---|---|---|---|---|")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind in kinds:
            fn, m_eff = KINDS[kind]
            for e in es:
                for ratio in ratios:
                    m_lo, m_hi = model_range(e, m_eff(), contact_time(e, m_eff()) / ratio)
                    if ratio < 10:  # the loader refuses dt > t_c / 10
                        print("| %s | %g | t_c/%g | refused | | | | | %.4f..%.4f |"
                              % (kind, e, ratio, m_lo, m_hi), flush=True)
                        continue
                    got = fn(args.mixsim, e, ratio, args.phases, tmp)
                    lo, hi, mean = min(got), max(got), sum(got) / len(got)
                    results.append((kind, e, ratio, lo, hi))
                    print("| %s | %g | t_c/%g | %.4f | %.4f | %.4f | %+.2f %% | %+.2f %% "
                          "| %.4f..%.4f |" % (kind, e, ratio, lo, mean, hi,
                                              100 * (lo / e - 1), 100 * (hi / e - 1), m_lo,
                                              m_hi), flush=True)
    if args.plot:
        plot(results, args.plot)


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for kind in sorted({r[0] for r in results}):
        for e in sorted({r[1] for r in results}):
            rows = sorted((r for r in results if r[0] == kind and r[1] == e),
                          key=lambda r: -r[2])
            x = [1.0 / r[2] for r in rows]
            ax.fill_between(x, [100 * (r[3] / e - 1) for r in rows],
                            [100 * (r[4] / e - 1) for r in rows], alpha=0.3,
                            label="%s, e = %g" % (kind, e))
    ax.set_xscale("log")
    ax.set_xlabel("dt / t_c")
    ax.set_ylabel("restitution error, %")
    ax.axhline(0, color="k", lw=0.5)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
