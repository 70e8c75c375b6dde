#!/usr/bin/env python3
"""How well N concbench runs agree: what a reader of one run can expect from the next.

Usage: python3 bench/stability.py RUN.json RUN.json [RUN.json ...]
       python3 bench/stability.py --run QUICK FULL DIR [--concbench BIN]

The second form measures first: QUICK back-to-back `run --quick`, then FULL full runs, one at a
time, each written to DIR/q-N.json or DIR/f-N.json and stored in DIR/history.sqlite (never the
user's history; run lock DIR/run.lock), then reads them all. Issue 40's closing figures are
`--run 10 3 DIR` on a quiet machine: about 12 minutes for the quick runs, 30 for the full ones.

Prints, for the run documents given (oldest first):
  * contradictions: a check confirmed in one run and refuted in another (should be none);
  * one quantity per result: a result (id and params) that holds the difference from its
    baseline in one run and the raw figure in another (should be none), and the medians of
    switch.pipe.process working_set_kib=4096 in every run, with what each holds;
  * S0.dualcore.speedup's process workers at COUNT 1000: each run's figure and decision, and the
    CPUs other processes used around its all-CPU rounds (the run-level condition that withholds
    it);
  * changes between a decision and "inconclusive", per check, and whether the check was
    labelled "at the margin" in a run where it was decided (the label says a rerun may well
    say "inconclusive"; a change on an unlabelled check is a surprise the report did not warn of);
  * rerun capture: over the results with a 95% interval, how often another run's median lies
    inside a run's interval (two equally noisy medians: about 83%), and the same for checks;
  * inconclusive claims per run;
  * pooled verdicts: each check over all the runs, the run as the top level (a random-effects
    interval — DerSimonian-Laird with the Hartung-Knapp variance and a t quantile — over the
    runs' estimates, each with the standard error its 95% interval implies, on logarithms for
    positive quantities), decided against the rule's numbers and combined as the claim says.
Exits 1 if any check is contradicted or a result holds two quantities.

To evaluate this build's pooled verdicts, typical-half-width labels and drift-widened intervals on
recorded documents without measuring, replay them as a host meets them first:
    cargo run --release -p concbench-analysis --example replay_history -- OUT q-*.json
    python3 bench/stability.py OUT/q-*.json
Documents of runs that pooled with their history carry `history`; the pooled verdicts of the
newest (`history.verdicts`) are printed after this script's own pooling when present.
"""
import itertools
import json
import math
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

# What the note of an inconclusive check says when its refutation fell to the correction across the
# claim's conditions (not its margin): a change the report explained in that run.
CORRECTED = "not once the correction for the claim's"
PUBLISHED = Path(__file__).resolve().parent.parent / "data" / "published.toml"
# Seconds per unit, for rules written in a time unit other than the check's.
TIME = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
# Student t 0.975 quantiles for 1..30 degrees of freedom (normal beyond).
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(df):
    return T975[df - 1] if df <= len(T975) else 1.96


def load(paths):
    docs = []
    for p in paths:
        with open(p) as f:
            docs.append((p, json.load(f)))
    docs.sort(key=lambda d: d[1].get("started_at", ""))
    return docs


def checks(doc):
    """(claim, condition) -> check, for the checks that decide (not shown beside another)."""
    out = {}
    for v in doc.get("verdicts", []):
        for c in v.get("checks", []):
            if not c.get("beside"):
                out[(v["source"], c["condition"])] = c
    return out


def result_key(r):
    return (r["id"], json.dumps(r.get("params", {}), sort_keys=True))


def contradictions_and_changes(docs):
    per = [checks(d) for _, d in docs]
    keys = sorted(set().union(*[set(p) for p in per]))
    contradicted, changed = [], []
    for k in keys:
        seen = [(i, p[k]) for i, p in enumerate(per) if k in p]
        decisions = {c["decision"] for _, c in seen}
        if {"confirmed", "refuted"} <= decisions:
            contradicted.append((k, seen))
        if "inconclusive" in decisions and decisions - {"inconclusive"}:
            labelled = [i for i, c in seen if c["decision"] != "inconclusive" and c.get("at_margin")]
            corrected = [i for i, c in seen if c["decision"] == "inconclusive" and CORRECTED in c.get("note", "")]
            changed.append((k, seen, labelled, corrected))
    return contradicted, changed


def capture(docs):
    """(inside, pairs) for results and for checks: run j's median inside run i's interval."""
    res = [{result_key(r): r for r in d.get("results", [])} for _, d in docs]
    chk = [checks(d) for _, d in docs]
    out = []
    for maps, est, ci in ((res, "median", "ci95"), (chk, "estimate", "ci95")):
        inside = pairs = 0
        for i, j in itertools.permutations(range(len(docs)), 2):
            for k, a in maps[i].items():
                b = maps[j].get(k)
                if not a.get(ci) or b is None or b.get(est) is None:
                    continue
                lo, hi = a[ci]
                pairs += 1
                inside += lo <= b[est] <= hi
        out.append((inside, pairs))
    return out


def region(rule, unit):
    """The accepted region (low, high) from a rule's text, in the check's unit; None if unread."""
    nums = [(float(x), u) for x, u in re.findall(r"(-?[0-9.]+(?:e-?[0-9]+)?)\s*(ns|us|µs|ms|s)?\b", rule)]

    def conv(x, u):
        if u and unit in TIME:
            return x * TIME[u] / TIME[unit]
        return x

    m = re.search(r"within \[([^\]]+)\]", rule)
    if m:
        parts = re.findall(r"(-?[0-9.]+(?:e-?[0-9]+)?)\s*(ns|us|µs|ms|s)?", m.group(1))
        if len(parts) == 2:
            (a, ua), (b, ub) = parts
            return conv(float(a), ua), conv(float(b), ub)
    m = re.search(r">=\s*(-?[0-9.]+(?:e-?[0-9]+)?)\s*(ns|us|µs|ms|s)?", rule)
    if m:
        return conv(float(m.group(1)), m.group(2)), math.inf
    m = re.search(r"<=\s*(-?[0-9.]+(?:e-?[0-9]+)?)\s*(ns|us|µs|ms|s)?", rule)
    if m:
        return -math.inf, conv(float(m.group(1)), m.group(2))
    return None if not nums else None


def random_effects(points):
    """points: [(estimate, standard error)] -> (estimate, lo, hi, tau) or None."""
    k = len(points)
    if k < 2:
        return None
    w = [1 / max(se, 1e-12) ** 2 for _, se in points]
    sw = sum(w)
    mean = sum(wi * e for wi, (e, _) in zip(w, points)) / sw
    q = sum(wi * (e - mean) ** 2 for wi, (e, _) in zip(w, points))
    c = sw - sum(wi * wi for wi in w) / sw
    tau2 = max(0.0, (q - (k - 1)) / c) if c > 0 else 0.0
    ws = [1 / (max(se, 1e-12) ** 2 + tau2) for _, se in points]
    tot = sum(ws)
    est = sum(wi * e for wi, (e, _) in zip(ws, points)) / tot
    hk = sum(wi * (e - est) ** 2 for wi, (e, _) in zip(ws, points)) / ((k - 1) * tot)
    half = t975(k - 1) * math.sqrt(max(hk, 1 / tot))
    return est, est - half, est + half, math.sqrt(tau2)


def decide(lo, hi, low, high):
    if lo >= low and hi <= high:
        return "confirmed"
    if hi < low or lo > high:
        return "refuted"
    return "inconclusive"


def combine(how, decisions):
    if not decisions:
        return None
    if how == "all":
        if "refuted" in decisions:
            return "refuted"
        return "inconclusive" if "inconclusive" in decisions else "confirmed"
    if "confirmed" in decisions and "refuted" in decisions:
        return "depends"
    if "refuted" in decisions:
        return "refuted"
    return "inconclusive" if "inconclusive" in decisions else "confirmed"


def pooled(docs):
    combines = {}
    if PUBLISHED.exists():
        with open(PUBLISHED, "rb") as f:
            for c in tomllib.load(f).get("claim", []):
                combines[c["id"]] = c.get("combine", "conditions")
    per = [checks(d) for _, d in docs]
    by_claim = {}
    for k in sorted(set().union(*[set(p) for p in per])):
        runs = [p[k] for p in per if k in p and p[k].get("ci95") and p[k].get("estimate") is not None]
        if not runs:
            rule = next(p[k]["rule"] for p in per if k in p)
            by_claim.setdefault(k[0], []).append((k[1], rule, "inconclusive", "no run has an interval"))
            continue
        unit, rule = runs[0]["unit"], runs[0]["rule"]
        reg = region(rule, unit)
        positive = all(c["estimate"] > 0 and c["ci95"][0] > 0 for c in runs)
        f = math.log if positive else (lambda x: x)
        inv = math.exp if positive else (lambda x: x)
        pts = [(f(c["estimate"]), (f(c["ci95"][1]) - f(c["ci95"][0])) / (2 * 1.96)) for c in runs]
        re_ = random_effects(pts)
        if re_ is None or reg is None:
            decision, text = "inconclusive", "one run with an interval, or a rule this script cannot read"
        else:
            est, lo, hi, tau = re_
            decision = decide(inv(lo), inv(hi), *reg)
            text = f"{inv(est):.4g} [{inv(lo):.4g}, {inv(hi):.4g}] {unit} over {len(runs)} runs, tau {tau:.3f}"
        by_claim.setdefault(k[0], []).append((k[1], rule, decision, text))
    out = []
    for claim, cs in by_claim.items():
        verdict = combine(combines.get(claim, "conditions"), [d for _, _, d, _ in cs])
        out.append((claim, verdict, cs))
    return out


def quantity(r):
    """What a result's statistics hold: its `quantity`, or for documents from before the field,
    the difference when it subtracted a distinguishable baseline (the raw figure otherwise)."""
    if r.get("quantity"):
        return r["quantity"]
    o = r.get("overhead")
    return "difference" if o and o.get("distinguishable", True) else "measured"


def quantities(docs):
    """(result key -> [(run index, quantity, median, distinguishable)]) for every result."""
    out = {}
    for i, (_, d) in enumerate(docs):
        for r in d.get("results", []):
            o = r.get("overhead") or {}
            out.setdefault(result_key(r), []).append(
                (i, quantity(r), r.get("median"), o.get("distinguishable", True)))
    return out


def print_quantities(docs):
    per = quantities(docs)
    mixed = {k: v for k, v in per.items() if len({q for _, q, _, _ in v}) > 1}
    print(f"\nOne quantity per result: {len(mixed)} of {len(per)} results hold more than one")
    for (rid, params), seen in mixed.items():
        held = ", ".join(f"run {i + 1} {q}" for i, q, _, _ in seen)
        print(f"  {rid} {params}: {held}")
    for (rid, params), seen in per.items():
        p = json.loads(params)
        if rid == "switch.pipe.process" and p.get("working_set_kib") == 4096 and p.get("placement") == "same-cpu":
            print(f"\n{rid} {params}, median per run:")
            for i, q, m, distinguishable in seen:
                told = "" if distinguishable else ", not distinguishable from zero"
                print(f"  run {i + 1}: {m * 1e-3:.3g} µs ({q}{told})")
    return len(mixed)


def print_dualcore(docs):
    print("\nS0.dualcore.speedup, process workers at COUNT = 1000 (one CPU's time over all CPUs'):")
    for i, (_, d) in enumerate(docs):
        check = next((c for v in d.get("verdicts", []) if v["source"] == "S0.dualcore.speedup"
                      for c in v.get("checks", [])
                      if c["condition"].startswith("process workers, COUNT = 1000")), None)
        interference = []
        for r in d.get("results", []):
            p = r.get("params", {})
            if (r["id"] == "workload.print" and p.get("model") == "process" and p.get("count") == 1000
                    and p.get("placement") == "unpinned" and p.get("sink") == "pipe"):
                interference = [x.get("interference") for x in r.get("rounds", [])
                                if x.get("interference") is not None]
        others = f"{sorted(interference)[len(interference) // 2]:.2f}" if interference else "-"
        if check is None:
            print(f"  run {i + 1}: not judged; other processes' CPUs around its all-CPU rounds {others}")
            continue
        est, ci = check.get("estimate"), check.get("ci95") or [None, None]
        figure = "-" if est is None else f"{est:.3g}x [{ci[0]:.3g}, {ci[1]:.3g}]" if ci[0] is not None else f"{est:.3g}x"
        print(f"  run {i + 1}: {figure} {check['decision']}{' (withheld)' if check.get('withheld') else ''}; "
              f"other processes' CPUs around its all-CPU rounds (median) {others}")


def measure(quick, full, folder, binary):
    """Run `quick` quick runs then `full` full ones into `folder`, one at a time, in a history of
    their own; the documents' paths."""
    os.makedirs(folder, exist_ok=True)
    env = dict(os.environ, CONCBENCH_DB=os.path.join(folder, "history.sqlite"),
               CONCBENCH_LOCK=os.path.join(folder, "run.lock"))
    paths = []
    for kind, n, flags in (("q", quick, ["--quick"]), ("f", full, [])):
        for i in range(1, n + 1):
            path = os.path.join(folder, f"{kind}-{i}.json")
            print(f"== {' '.join(['run'] + flags)} -> {path}", flush=True)
            with open(path[:-5] + ".txt", "w") as out, open(path[:-5] + ".err", "w") as err:
                code = subprocess.run([binary, "run", *flags, "--json", path], stdout=out,
                                      stderr=err, env=env).returncode
            if code != 0 or not os.path.exists(path):
                print(f"   exited {code}; see {path[:-5]}.err")
            if os.path.exists(path):
                paths.append(path)
    return paths


def main(args):
    if args[:1] == ["--run"]:
        if len(args) < 4:
            print(__doc__)
            return 2
        binary = "target/release/concbench"
        if "--concbench" in args:
            binary = args[args.index("--concbench") + 1]
        paths = measure(int(args[1]), int(args[2]), args[3], binary)
    else:
        paths = args
    if len(paths) < 2:
        print(__doc__)
        return 2
    docs = load(paths)
    print(f"{len(docs)} runs: " + ", ".join(d.get("started_at", p) for p, d in docs))
    contradicted, changed = contradictions_and_changes(docs)
    total = len(set().union(*[set(checks(d)) for _, d in docs]))
    print(f"\nContradictions (confirmed in one run, refuted in another): {len(contradicted)} of {total} checks")
    for (claim, cond), seen in contradicted:
        print(f"  {claim} / {cond}: " + ", ".join(f"run {i + 1} {c['decision']}" for i, c in seen))
    unlabelled = [c for c in changed if not c[2]]
    unexplained = [c for c in unlabelled if not c[3]]
    print(f"\nChanges between a decision and inconclusive: {len(changed)} of {total} checks, "
          f"{len(changed) - len(unlabelled)} labelled at the margin in a run where they were decided, "
          f"{len(unlabelled) - len(unexplained)} more held back by the correction across the claim's "
          f"conditions (said in the note), {len(unexplained)} unexplained")
    for (claim, cond), seen, labelled, corrected in changed:
        if labelled:
            mark = f"labelled in run(s) {', '.join(str(i + 1) for i in labelled)}"
        elif corrected:
            mark = f"not labelled; the correction held it back in run(s) {', '.join(str(i + 1) for i in corrected)}"
        else:
            mark = "NOT LABELLED"
        runs = " ".join(f"{c['decision'][:4]}" for _, c in seen)
        print(f"  {claim} / {cond}: {runs} — {mark}")
    (ri, rp), (ci, cp) = capture(docs)
    pct = lambda a, b: f"{100 * a / b:.1f}%" if b else "-"
    print(f"\nRerun capture (another run's median inside a run's 95% interval): results {ri} of {rp} "
          f"ordered pairs ({pct(ri, rp)}), checks {ci} of {cp} ({pct(ci, cp)})")
    print("\nInconclusive claims per run: " + ", ".join(
        str(sum(v["verdict"] == "inconclusive" for v in d.get("verdicts", []))) for _, d in docs))
    pool = pooled(docs)
    inconclusive = sum(v == "inconclusive" for _, v, _ in pool)
    print(f"\nPooled verdicts over {len(docs)} runs ({inconclusive} inconclusive):")
    for claim, verdict, cs in pool:
        print(f"  {claim}: {verdict}")
        for cond, rule, decision, text in cs:
            print(f"      {cond}: {rule}; {text} -> {decision}")
    newest = docs[-1][1].get("history")
    if newest:
        left = [v for v in newest["verdicts"] if v["verdict"] == "inconclusive"]
        print(f"\nThe newest run's own verdicts over its history ({newest['runs']} runs): "
              f"{len(left)} inconclusive")
        for v in left:
            for c in v["checks"]:
                if not c.get("beside") and c["decision"] == "inconclusive":
                    ci = c.get("ci95") or [None, None]
                    est = c.get("estimate")
                    text = "no estimate" if est is None else f"{est:.4g} [{ci[0]:.4g}, {ci[1]:.4g}]"
                    print(f"  {v['source']} / {c['condition']}: {c['rule']}; {text}"
                          + (f" ({c['note']})" if c.get("note") else ""))
            if not [c for c in v["checks"] if not c.get("beside")]:
                print(f"  {v['source']}: no deciding check measured (partly judged)")
    mixed = print_quantities(docs)
    print_dualcore(docs)
    return 1 if contradicted or mixed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
