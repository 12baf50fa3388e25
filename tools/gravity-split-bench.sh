#!/usr/bin/env bash
# Gravity mode's multi-device split against one device: Plummer spheres of each N in
# GRAVITY_N, every device list in CONFIGS run in turn, REPEAT rounds interleaved (each
# round starts one list later) so that drift in the machine's load hits all of them
# alike. Per N and list: interactions/s over the wall time of the stepping (median, min
# and max of the runs); on a machine shared with other work, interactions per CPU-second
# of the whole mixsim process too (user + system, start-up included: it depends less on
# what else runs, and with all cores busy it is the figure to compare); the rebalances,
# the final shares of the devices, and the state hashes; then a row per run. The tables
# are Markdown, on stdout and in $RESULT when set. LOG=file collects every run's stderr
# under a header line (with MIXSIM_BALANCE_LOG=1 in the environment: the controller's
# decisions).
# usage: tools/gravity-split-bench.sh MIXSIM
#   CONFIGS ("cpu cpu,cpu"), GRAVITY_N (16384), STEPS (60), BURST (10), REPEAT (5)
set -uo pipefail
exe=${1:?usage: gravity-split-bench.sh MIXSIM}
read -r -a configs <<<"${CONFIGS:-cpu cpu,cpu}"
repeat=${REPEAT:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ns=${GRAVITY_N:-16384}
for n in ${ns//,/ }; do
  printf '[simulation]\nmode = gravity\ndt = 0.0001\nsteps = %s\nseed = 1\n[gravity]\nbodies = plummer\ncount = %s\nsoftening = 0.01\nenergy = off\ndiagnostics_every = 0\n' \
    "${STEPS:-60}" "$n" >"$work/p$n.ini"
  for ((r = 0; r < repeat; r++)); do
    for ((c = 0; c < ${#configs[@]}; c++)); do
      devs=${configs[$(((c + r) % ${#configs[@]}))]}
      run=$work/$n-${devs//[^A-Za-z0-9]/_}-$r
      /usr/bin/time -f '%U %S' -o "$run.cpu" "$exe" -q --headless --devices "$devs" --burst "${BURST:-10}" \
        --stats "$run.json" "$work/p$n.ini" >/dev/null 2>"$work/err" ||
        { echo "N=$n --devices $devs failed:"; cat "$work/err"; rm -f "$run.json"; }
      [ -n "${LOG:-}" ] && { echo "== N $n --devices $devs round $r"; cat "$work/err"; } >>"$LOG"
    done
  done
done

python3 - "$work" "$ns" "${configs[@]}" <<'PY' | tee ${RESULT:+"$RESULT"}
import glob, json, os, re, statistics, sys
work, ns, configs = sys.argv[1], sys.argv[2].replace(",", " ").split(), sys.argv[3:]
every = []
print("| N | --devices | interactions/s: median (min - max, runs) | vs first | per CPU-s: median (min - max) | vs first | rebalances | final shares | state hash |")
print("|---|---|---|---|---|---|---|---|---|")
for n in ns:
    base = cbase = None
    for devs in configs:
        key = re.sub(r"[^A-Za-z0-9]", "_", devs)
        files = sorted(glob.glob(os.path.join(work, "%s-%s-*.json" % (n, key))))
        runs = [json.load(open(f)) for f in files]
        if not runs:
            print("| %s | %s | failed | | | | | | |" % (n, devs))
            continue
        rates = sorted(r["interactions_per_s"] for r in runs)
        med = statistics.median(rates)
        base = base or med
        cpu = []
        for f, r in zip(files, runs):
            user, system = open(f[:-5] + ".cpu").read().split()[-2:]
            cpu.append(float(r["bodies"]) ** 2 * r["steps"] / (float(user) + float(system)))
        cpu.sort()
        cmed = statistics.median(cpu)
        cbase = cbase or cmed
        rebalances = sorted({r["phases"]["rebalances"] for r in runs})
        shares = sorted({" / ".join("%.1f %%" % (100.0 * d["count"] / r["bodies"]) for d in r["devices"])
                         for r in runs})
        hashes = sorted({r["state_hash"] for r in runs})
        print("| %s | %s | %.3g (%.3g - %.3g, %d) | %.2fx | %.3g (%.3g - %.3g) | %.2fx | %s | %s | %s |" % (
            n, devs, med, rates[0], rates[-1], len(rates), med / base, cmed, cpu[0], cpu[-1],
            cmed / cbase, ", ".join(map(str, rebalances)), "; ".join(shares), " ".join(hashes)))
        for f, r in zip(files, runs):
            every.append("| %s | %s | %s | %.3g | %d | %s | %s |" % (
                n, devs, f.rsplit("-", 1)[1][:-5], r["interactions_per_s"], r["phases"]["rebalances"],
                " / ".join("%.1f %%" % (100.0 * d["count"] / r["bodies"]) for d in r["devices"]),
                r["state_hash"]))
print()
print("Every run (round: the interleaved round it ran in):")
print()
print("| N | --devices | round | interactions/s | rebalances | final shares | state hash |")
print("|---|---|---|---|---|---|---|")
print("\n".join(every))
PY
