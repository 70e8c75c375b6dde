#!/usr/bin/env python3
"""Run every fidelity script with modest defaults, one after the other, and print one table of
their TARGET lines (verdict.py): comparison, ratio, 95% interval, target, outcome.

Each script's full output (its rounds on stderr, its own table on stdout) goes to
DIR/<script>.txt; a script that could not run (a tool missing, a failure) is a row saying so,
with the last line it printed. The scripts run one at a time: two would measure each other.
Usage: bench/fidelity/all.py [--only create,io,...] [--rounds N] [--out DIR]   (--rounds: every
script's rounds instead of its default, e.g. 1 to check that they run; DIR: default a new
temporary directory, printed at the end). About 21 minutes on a 2-CPU VM (2026-11-27: create 4-5,
probes 6 at 30 rounds, io 4, server 8 at 12 rounds, switch and workload 4); run it on a quiet one."""

import argparse
import os
import subprocess
import sys
import tempfile
import time

from verdict import parse_target_line

HERE = os.path.dirname(os.path.abspath(__file__))
# (script, arguments): six rounds, the fewest that give a 95% interval, where a round is dear;
# servers for 3 s a load (the server table is 13 loads a round). create and switch take 40: a
# round costs seconds there, and their pairs are at the mercy of the machine's slower and faster
# spells (a third of the pairs of 2026-11-27 had perf on one and concbench on the other), so at
# 15 rounds their intervals straddled the targets in most resamplings of those pairs, at 40 in
# about one in five (docs/FIDELITY.md). io takes 10 and probes 30: at six, one disturbed pair is
# the interval's end (2026-11-27: io's [0.541, 1.161], the pipe token's [0.804, 1.176]; the pipe
# token was still [0.846, 1.216] at 12 rounds and [0.971, 1.025] at 30). server takes 12: at six
# the interval is the lowest and highest round, so the generator's ">= 1" needed every round
# above 1 (2026-11-27 11:04 and 11:31: medians 1.113 and 1.094, intervals [0.994, 1.344] and
# [0.949, 1.247], each with one round under 1); at 12 it is the 3rd and 10th of 12.
SCRIPTS = [
    ("create", ["40"]),
    ("switch", ["40"]),
    ("probes", ["30"]),
    ("io", ["10", "/var/tmp"]),
    ("server", ["12", "3"]),
    ("workload", ["6"]),
]


def run(script, args, out_dir):
    """Run one script; (rc, its TARGET lines parsed, its last line, seconds)."""
    path = os.path.join(out_dir, f"{script}.txt")
    start = time.monotonic()
    with open(path, "w") as log:
        proc = subprocess.run([sys.executable, os.path.join(HERE, f"{script}.py"), *args],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        log.write(proc.stdout)
    lines = proc.stdout.splitlines()
    targets = [t for t in map(parse_target_line, lines) if t]
    last = next((line for line in reversed(lines) if line.strip()), "(no output)")
    return proc.returncode, targets, last, time.monotonic() - start


def table(results):
    """The rows of every script, aligned."""
    head = ("script", "comparison", "ratio", "95% interval", "target", "outcome")
    rows = []
    for script, (rc, targets, last, secs) in results:
        if not targets:
            rows.append((script, f"not run (exit {rc}, {secs:.0f} s): {last}", "", "", "", ""))
        for t in targets:
            span = f"[{t['lo']:.3f}, {t['hi']:.3f}]" if t["lo"] is not None else t["rounds"]
            point = f"{t['point']:.3f}" if t["kind"] == "ratio" else f"{t['point']:.3f} (value)"
            rows.append((script, t["label"], point, span, t["target"].removeprefix("target "),
                         t["outcome"]))
    # A "not run" row's message runs past the columns rather than widening them.
    full = [r for r in [head, *rows] if r[2]]
    widths = [max(len(r[i]) for r in full) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [head, *rows])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated scripts, e.g. create,io")
    parser.add_argument("--rounds", type=int, help="rounds for every script (default: each one's)")
    parser.add_argument("--out", help="directory for each script's output")
    a = parser.parse_args()
    wanted = a.only.split(",") if a.only else [s for s, _ in SCRIPTS]
    unknown = set(wanted) - {s for s, _ in SCRIPTS}
    if unknown:
        sys.exit(f"no such fidelity script: {', '.join(sorted(unknown))}")
    out_dir = a.out or tempfile.mkdtemp(prefix="concbench-fidelity-")
    os.makedirs(out_dir, exist_ok=True)
    results = []
    for script, args in SCRIPTS:
        if script in wanted:
            if a.rounds:
                args = [str(a.rounds), *args[1:]]
            print(f"{script}.py {' '.join(args)} ...", file=sys.stderr, flush=True)
            results.append((script, run(script, args, out_dir)))
    print(table(results))
    print(f"each script's output: {out_dir}", file=sys.stderr)


if __name__ == "__main__":
    main()
