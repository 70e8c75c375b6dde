#!/usr/bin/env python3
"""Unconstrained, `--cpus 1` (a quota) and `--cpus 1 --cpus-mode cpuset` side by side: what each
runtime sized itself for, the throttling, the servers' requests/s and p99, and the hand-over
(issue 45's closing figures).

Usage: python3 bench/cpus.py [--concbench PATH] [--out DIR] [--only LIST] [--full]
       python3 bench/cpus.py --from ALL.json QUOTA.json CPUSET.json

Run as root on a quiet machine. Each run is `concbench run --quick --alone --no-store
--only LIST` (default: server.keepalive and switch.pipe; --full drops --quick) with `--cpus all`,
`--cpus 1` and `--cpus 1 --cpus-mode cpuset`, in that order; the documents go to DIR. `--from`
prints the table of documents already written.
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

RUNS = [
    ("unconstrained", ["--cpus", "all"]),
    ("quota 1", ["--cpus", "1"]),
    ("cpuset 1", ["--cpus", "1", "--cpus-mode", "cpuset"]),
]


def measure(concbench, out, only, full):
    docs = []
    for name, flags in RUNS:
        path = Path(out) / f"cpus-{name.replace(' ', '-')}.json"
        cmd = [concbench, "run", *([] if full else ["--quick"]), "--alone", "--no-store",
               "--only", only, *flags, "--json", str(path)]
        print("$", " ".join(cmd), flush=True)
        run = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if run.returncode not in (0, 1):
            print(run.stderr[-3000:])
            sys.exit(run.returncode)
        docs.append(path)
    return docs


def cell(v):
    return "-" if v is None else v


def fmt(v, unit=""):
    if v is None:
        return "-"
    if abs(v) >= 100:
        return f"{v:,.0f}{unit}"
    return f"{v:.3g}{unit}"


def row(label, values, width=26):
    print(f"{label:<{width}}" + "".join(f"{v:>22}" for v in values))


def side_by_side(paths):
    docs = [json.loads(Path(p).read_text()) for p in paths]
    names = [d.get("container", {}).get("limit", {}).get("mode", "?") for d in docs]
    row("", [f"{n} ({Path(p).stem})"[:21] for n, p in zip(names, paths)])
    row("host cpu_quota", [fmt(d["host"].get("cpu_quota")) for d in docs])
    row("host cpus_allowed", [",".join(map(str, d["host"].get("cpus_allowed", []))) for d in docs])
    print("\nWhat each runtime sized itself for:")
    runtimes = []
    for d in docs:
        for r in d.get("container", {}).get("runtimes", []):
            if r["runtime"] not in runtimes:
                runtimes.append(r["runtime"])
    for rt in runtimes:
        vals = []
        for d in docs:
            r = next((x for x in d.get("container", {}).get("runtimes", []) if x["runtime"] == rt), None)
            if r is None or r.get("value") is None:
                vals.append("-")
            else:
                vals.append(fmt(r["value"]) + (" (over)" if r.get("oversized") else ""))
        row(f"  {rt}", vals)
    print("\nThrottling over the run:")
    for key, label in [("periods", "periods"), ("throttled_periods", "throttled periods"),
                       ("throttled_s", "held back (s)")]:
        row(f"  {label}", [fmt((d.get("container", {}).get("throttling") or {}).get(key)) for d in docs])
    print("\nServers (median req/s across rounds; p99 µs):")
    skipped = set()
    keys = []
    for d in docs:
        for r in d["results"]:
            if r["unit"] == "req/s":
                k = (r["id"], json.dumps(r["params"], sort_keys=True))
                if k not in keys:
                    keys.append(k)
    for rid, params in keys:
        p = json.loads(params)
        label = f"  {rid.split('.')[1]} {p.get('design', '')}"
        vals = []
        for d in docs:
            r = next((x for x in d["results"] if x["id"] == rid and json.dumps(x["params"], sort_keys=True) == params), None)
            if r is None:
                # A skipped variant's params lack what a run records (the CPU pair's class).
                why = next((s["reason"] for s in d.get("skipped", []) if s["id"] == rid
                            and all(s.get("params", {}).get(k) == p.get(k)
                                    for k in ("design", "placement"))), None)
                vals.append("skipped" if why else "-")
                if why:
                    skipped.add(why)
            else:
                p99 = r["counters"].get("latency_p99_us")
                vals.append(f"{fmt(r['median'])} / {fmt(p99)}")
        row(label, vals)
    for why in sorted(skipped):
        print(f"  skipped: {why}")
    print("\nHand-over (median per operation, ns):")
    keys = []
    for d in docs:
        for r in d["results"]:
            if r["id"].startswith("switch.pipe"):
                k = (r["id"], r["params"].get("placement", ""))
                if k not in keys:
                    keys.append(k)
    for rid, placement in keys:
        vals = []
        for d in docs:
            r = next((x for x in d["results"] if x["id"] == rid and x["params"].get("placement", "") == placement), None)
            vals.append(fmt(r["median"]) if r else "-")
        row(f"  {rid} {placement}", vals, 26)
    print("\nIn words:")
    for d in docs:
        for r in d.get("container", {}).get("runtimes", []):
            if r.get("oversized"):
                print(f"  [{d['container']['limit']['mode']}] {r['note']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--concbench", default="concbench")
    ap.add_argument("--out", default="concbench-results/cpus-bench")
    ap.add_argument("--only", default="server.keepalive,switch.pipe")
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--from", dest="docs", nargs=3)
    a = ap.parse_args()
    if a.docs:
        side_by_side(a.docs)
        return
    if os.geteuid() != 0:
        print("--cpus needs root here (concbench refuses it otherwise, exit 2)")
        sys.exit(2)
    Path(a.out).mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("CONCBENCH_LOCK", "/tmp/concbench-cpus-bench.lock")
    side_by_side(measure(a.concbench, a.out, a.only, a.full))


if __name__ == "__main__":
    main()
