#!/usr/bin/env python3
"""Replay the adaptive rounds' stopping rules on measured rounds: how often would runs agree?

For eight checks that sit near their margins, the rounds of every given run are pooled; each
simulated run draws six rounds, then one more per look until its interval (the same
interpolated order-statistic interval and rule as concbench) decides the check, the cap is
reached, or a futility rule stops it. Printed per rule: the share of simulated runs confirming,
refuting and undecided, the chance that five runs all agree, and the mean rounds spent; last,
the chance that five runs agree on all eight at once.

The rules: `projection` (the rule before: the interval expected at four times the rounds,
centred on the estimate, must clear the margin), `chance 5%` (concbench's: the rounds still
allowed must have at least a 5% chance to decide it), `none` (no futility stop).
`--level L` decides at every look with an L interval instead of concbench's 95% (a stricter
level is the simplest guard against repeated looks, as a Pocock boundary is; at 99% a first
look needs eight rounds, the fewest whose [min, max] covers 99%), and prints the expected
number of these checks a run leaves undecided.
Pooling leaves out drift between runs and the run's budget: a run's budget ends some checks
earlier than the cap. It compares rules; it is not a forecast of a run.

Usage: bench/futility/replay.py [--cap N] [--level L] RUN.json...
       (the run's cap: `settings.max_rounds`)
"""
import argparse
import json
import math
import random
import sys
from pathlib import Path

# The interval concbench uses, ported once (bench/fidelity/verdict.py, tested there).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fidelity"))
from verdict import coverage, median_interval as interval  # noqa: E402

INF = math.inf


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def quantile(s, q):
    pos = q * (len(s) - 1)
    i = int(math.floor(pos))
    f = pos - i
    return s[i] if i + 1 >= len(s) else s[i] * (1 - f) + s[i + 1] * f


def decide(region, ci):
    if ci is None:
        return "I"
    lo, hi = ci
    a, b = region
    if lo >= a and hi <= b:
        return "C"
    if hi < a or lo > b:
        return "R"
    return "I"


def scale(xs):
    s = sorted(xs)
    return math.sqrt(math.pi / 2) * (quantile(s, 0.75) - quantile(s, 0.25)) / 1.349


def phi(z):
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


def projection(region, xs, cap):
    m, h = median(xs), 1.96 * scale(xs) / math.sqrt(4 * len(xs))
    return decide(region, (m - h, m + h)) == "I"


def chance(region, xs, cap):
    """concbench_stats::decision_chance below 5%."""
    n = len(xs)
    if cap <= n:
        return True
    sc = scale(xs)
    h = 1.96 * sc / math.sqrt(cap)
    sd = max(sc * math.sqrt((cap - n) / (cap * n)), 1e-300)
    m = median(xs)
    a, b = region
    below = lambda x: phi((x - m) / sd)
    inside = below(b - h) - below(a + h) if a + h < b - h else 0.0
    return inside + below(a - h) + (1 - below(b + h)) < 0.05


def no_stop(region, xs, cap):
    return False


RULES = [("projection", projection), ("chance 5%", chance), ("none", no_stop)]


def first_look(level):
    """The fewest rounds with a finite `level` interval: six at 95%, eight at 99%."""
    return next(n for n in range(2, 64) if coverage(n, 1) >= level)


def one_run(pop, region, futile, cap, rng, level=0.95):
    xs = [rng.choice(pop) for _ in range(first_look(level))]
    while True:
        d = decide(region, interval(xs, level))
        if d != "I":
            return d, len(xs)
        if len(xs) >= cap or (len(xs) >= 10 and futile(region, xs, cap)):
            return "I", len(xs)
        xs.append(rng.choice(pop))


def get(doc, id, less_baseline=False, **params):
    """One variant's clean rounds by pass. `less_baseline`: the figure a verdict reads for a
    result with a subtracted method overhead (`switch.alone.*`: the hand-over less its pipe
    transport), which the round stores as `value` and `baseline`."""
    for r in doc["results"]:
        if r["id"] == id and all(str(r["params"].get(k)) == str(v) for k, v in params.items()):
            return {x["pass"]: x["value"] - ((x.get("baseline") or 0) if less_baseline else 0)
                    for x in r["rounds"] if not x.get("excluded")}
    return {}


def ratio(num, den):
    return lambda d: [num(d)[p] / den(d)[p] for p in num(d) if p in den(d) and den(d)[p] > 0]


def stevens(d):
    f, a, b = (get(d, "server.stevens", design=x) for x in ("prefork-fdpass", "prefork-flock", "prefork-mutex"))
    return [f[p] / max(a[p], b[p]) for p in f if p in a and p in b]


PRINT_255 = dict(workers=255, count=1000, sink="pipe", placement="same-cpu", writer="write")

CHECKS = [
    ("switch alone: process / thread, same CPU >= 1.15 (read by four claims)", (1.15, INF),
     ratio(lambda d: get(d, "switch.alone.process", True, placement="same-cpu"),
           lambda d: get(d, "switch.alone.thread", True, placement="same-cpu"))),
    ("S0.table.memory_cpu CPU: process / thread, 255 x 1000 lines >= 1.15", (1.15, INF),
     ratio(lambda d: get(d, "workload.print", model="process", **PRINT_255),
           lambda d: get(d, "workload.print", model="thread", **PRINT_255))),
    ("S0.create.per_process: fork probe (ns) vs the table's 0.087 ms x/ 2", (43.4e3, 174e3),
     lambda d: list(get(d, "probes.c.process_100k").values())),
    ("S0.table.sharing: shm / thread at 4 MiB <= 1.15", (-INF, 1.15),
     ratio(lambda d: get(d, "share.shm.process", bytes=4194304, placement="same-cpu"),
           lambda d: get(d, "share.memory.thread", bytes=4194304, placement="same-cpu"))),
    ("S1.lock: t100 / t2 >= 0.87", (0.87, INF),
     ratio(lambda d: get(d, "contend.lock", lock="mutex", threads=100),
           lambda d: get(d, "contend.lock", lock="mutex", threads=2))),
    ("S0.print: thread / process at COUNT = 1000 >= 0.87", (0.87, INF),
     ratio(lambda d: get(d, "workload.print", model="thread", count=1000, writer="write"),
           lambda d: get(d, "workload.print", model="process", count=1000, writer="write"))),
    ("S2.no_blocking: tokio (one thread) / epoll in [0.87, 1.15]", (0.87, 1.15),
     ratio(lambda d: get(d, "server.keepalive", design="tokio-current"),
           lambda d: get(d, "server.keepalive", design="epoll"))),
    ("S0.stevens.order: fdpass / max(flock, mutex) >= 1.15", (1.15, INF), stevens),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cap", type=int, help="the round cap (default: the first run's max_rounds)")
    ap.add_argument("--sims", type=int, default=3000)
    ap.add_argument("--level", type=float, default=0.95,
                    help="the interval's level at every look (concbench: 0.95)")
    ap.add_argument("runs", nargs="+")
    args = ap.parse_args()
    docs = [json.load(open(f)) for f in args.runs]
    if args.cap is None:
        args.cap = docs[0].get("settings", {}).get("max_rounds", 20)
    joint = {rule: 1.0 for rule, _ in RULES}
    undecided = {rule: 0.0 for rule, _ in RULES}
    for name, region, values in CHECKS:
        pop = [x for d in docs for x in values(d)]
        if len(pop) < 6:
            print(f"== {name}: too few rounds in these runs")
            continue
        print(f"== {name}: {len(pop)} rounds from {len(docs)} runs, pooled median {median(pop):.4g}")
        for rule, futile in RULES:
            rng = random.Random(1)
            counts = {"C": 0, "R": 0, "I": 0}
            rounds = 0
            for _ in range(args.sims):
                d, n = one_run(pop, region, futile, args.cap, rng, args.level)
                counts[d] += 1
                rounds += n
            p = {k: v / args.sims for k, v in counts.items()}
            agree = sum(v ** 5 for v in p.values())
            joint[rule] *= agree
            undecided[rule] += p["I"]
            print(f"   {rule:11} confirmed {p['C']:.2f} refuted {p['R']:.2f} undecided {p['I']:.2f}"
                  f"   five runs agree {agree:.2f}   mean rounds {rounds / args.sims:.1f}")
    # Checks drawn independently, so the chance that five runs agree on all of them is the
    # product: what the done-when line "five runs, the same decision on every claim" asks.
    print("== five runs agree on every check above: "
          + ", ".join(f"{rule} {p:.2g}" for rule, p in joint.items()))
    print("== of these checks, a run leaves undecided on average: "
          + ", ".join(f"{rule} {n:.1f}" for rule, n in undecided.items()))


if __name__ == "__main__":
    main()
