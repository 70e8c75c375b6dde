#!/usr/bin/env python3
"""How far each result moves between runs of one build on one machine: the run-to-run spread
that `concbench compare` counts (crates/concbench-analysis/src/variation.rs).

Usage: python3 bench/run-variation.py [--floor] RUN.json RUN.json RUN.json [...]   (3 or more runs
of one build and mode, back to back, on the machine the gate will run on)

For each result (id and params) found in at least 3 of the runs with the same quantity, the
run-level standard deviation tau of its median, on logarithms: DerSimonian-Laird over the runs'
medians, each with the standard error of its rounds (sqrt(pi/2) x IQR/1.349 / sqrt(n), as
concbench-stats' random_effects). Prints the quantiles of tau by class — on one CPU (same-cpu or
no placement) and across CPUs (cross-cpu or unpinned), the classes `compare` keeps a floor for —
then the results with the largest tau. The floor concbench states (variation.rs, FLOOR) is the
90th percentile of tau per family and class (the class's for a family with fewer than 5 results);
with --floor the script prints that table from these runs, in variation.rs's form, to set beside
the stated one (docs/CI.md).
"""
import json
import math
import statistics
import sys

MIN_RUNS = 3
MIN_CLEAN_ROUNDS = 6


def usable(rounds):
    """The rounds a result's statistics use (concbench_core::usable_rounds)."""
    clean = [r for r in rounds if not r.get("excluded")]
    return clean if len(clean) >= min(MIN_CLEAN_ROUNDS, len(rounds)) else rounds


def quantity(r):
    q = r.get("quantity")
    if q:
        return q
    o = r.get("overhead")
    return "difference" if o and o.get("distinguishable", True) else "measured"


def log_values(r):
    difference = quantity(r) == "difference"
    vals = [x["value"] - (x.get("baseline") or 0.0) if difference else x["value"]
            for x in usable(r.get("rounds", []))]
    if not vals or any(v <= 0 or not math.isfinite(v) for v in vals):
        return None
    return [math.log(v) for v in vals]


def quantile(sorted_xs, q):
    pos = q * (len(sorted_xs) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


def scale(xs):
    s = sorted(xs)
    return math.sqrt(math.pi / 2) * (quantile(s, 0.75) - quantile(s, 0.25)) / 1.349


def tau(runs):
    """The DerSimonian-Laird run-level standard deviation of runs of log values."""
    if len({x for r in runs for x in r}) == 1:
        return 0.0
    medians = [statistics.median(r) for r in runs]
    own = [scale(r) if len(r) >= 2 and scale(r) > 0 else None for r in runs]
    known = [s for s in own if s]
    fallback = statistics.median(known) if known else max(max(medians) - min(medians), 1e-300)
    variances = [max((s or fallback) ** 2 / len(r), 1e-300) for s, r in zip(own, runs)]
    w = [1 / v for v in variances]
    sw = sum(w)
    mean = sum(wi * m for wi, m in zip(w, medians)) / sw
    q = sum(wi * (m - mean) ** 2 for wi, m in zip(w, medians))
    c = sw - sum(wi * wi for wi in w) / sw
    return math.sqrt(max(0.0, (q - (len(runs) - 1)) / c)) if c > 0 else 0.0


def across(params):
    return params.get("placement") in ("cross-cpu", "unpinned")


def floor_table(rows):
    """(family, across, tau): the 90th percentile per family and class, families of >= 5 results."""
    groups = {}
    for t, rid, p, _, _ in rows:
        groups.setdefault((rid.split(".")[0], across(p)), []).append(t)
    out = []
    for (family, acr), taus in sorted(groups.items(), key=lambda g: (g[0][1], g[0][0])):
        if len(taus) >= 5:
            out.append((family, acr, quantile(sorted(taus), 0.9)))
    return out


def main(args):
    floor = "--floor" in args
    paths = [a for a in args if a != "--floor"]
    if len(paths) < MIN_RUNS:
        print(__doc__)
        return 2
    docs = [json.load(open(p)) for p in paths]
    builds = {(d["tool"]["version"], bool(d.get("settings", {}).get("quick"))) for d in docs}
    if len(builds) > 1:
        print(f"warning: the runs are of several builds or modes {sorted(builds)}; tau mixes them")
    by_key = {}
    for d in docs:
        for r in d.get("results", []):
            key = (r["id"], json.dumps(r.get("params", {}), sort_keys=True))
            logs = log_values(r)
            if logs is None:
                continue
            by_key.setdefault(key, {}).setdefault(quantity(r), []).append(logs)
    rows = []
    for (rid, params), per_quantity in by_key.items():
        for q, runs in per_quantity.items():
            if len(runs) >= MIN_RUNS:
                rows.append((tau(runs), rid, json.loads(params), q, len(runs)))
    print(f"{len(docs)} runs; {len(rows)} results in at least {MIN_RUNS} of them")
    for name, pick in (("on one CPU", lambda p: not across(p)), ("across CPUs or unpinned", across)):
        taus = sorted(t for t, _, p, _, _ in rows if pick(p))
        if not taus:
            continue
        qs = ", ".join(f"{int(q * 100)}th {quantile(taus, q):.3f}" for q in (0.5, 0.75, 0.9, 0.95))
        print(f"  {name}: {len(taus)} results; tau (log scale) {qs}, max {taus[-1]:.3f}")
    if floor:
        print("\npub const FLOOR: &[(&str, bool, f64)] = &[")
        for family, acr, t in floor_table(rows):
            print(f'    ("{family}", {"true" if acr else "false"}, {t:.3f}),')
        print("];")
    print("\nThe largest:")
    for t, rid, p, q, n in sorted(rows, key=lambda row: row[0], reverse=True)[:15]:
        compact = " ".join(f"{k}={v}" for k, v in sorted(p.items()))
        print(f"  {t:.3f}  {rid} {compact} ({q}, {n} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
