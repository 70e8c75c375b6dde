#!/usr/bin/env python3
"""What the verdicts over a host's history add to a run, with 20 stored runs.

Usage: python3 bench/pool_timing.py [--bin target/release/concbench] RUN.json ...

Builds a temporary history of 20 quick runs from the documents given (each stored again with its
start shifted by whole days until there are 20; `concbench push`), then times `concbench report
--runs 20` against `report --runs 1` on it, five times each: both list the store, load the newest
run and re-judge it; only the first also loads the 19 others, checks they are compatible, labels,
widens the intervals and pools every check — what `concbench run` adds after measuring. Prints
the medians and their difference (the figure to hold under 2 s). Leaves nothing behind.
"""
import argparse
import datetime as dt
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 20


def shifted(doc, days):
    t = dt.datetime.fromisoformat(doc["started_at"].replace("Z", "+00:00")) + dt.timedelta(days=days)
    out = dict(doc)
    out["started_at"] = t.strftime("%Y-%m-%dT%H:%M:%SZ")
    return out


def timed(cmd, repeat=5):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="target/release/concbench")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    docs = [json.load(open(f)) for f in a.files]
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "history.sqlite"
        paths = []
        for i in range(RUNS):
            p = Path(tmp) / f"run-{i:02}.json"
            p.write_text(json.dumps(shifted(docs[i % len(docs)], i // len(docs))))
            paths.append(str(p))
        subprocess.run([a.bin, "push", *paths, "--db", str(db)], check=True, stdout=subprocess.DEVNULL)
        one = timed([a.bin, "report", "--runs", "1", "--db", str(db)])
        pooled = timed([a.bin, "report", "--runs", str(RUNS), "--db", str(db)])
    print(f"report --runs 1: {one:.3f} s; --runs {RUNS}: {pooled:.3f} s (medians of 5)")
    print(f"the pooled verdicts over {RUNS} runs add {pooled - one:.3f} s")
    return 0 if pooled - one < 2.0 else 1


if __name__ == "__main__":
    sys.exit(main())
