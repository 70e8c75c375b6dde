#!/usr/bin/env python3
"""Fidelity of the probes (issue 8): the seed articles' own C programs, run by the C probe, beside
concbench's native measurement of the same thing, in the same run of concbench:
  * probes.c.pipe_token vs switch.pipe.process (same-cpu, SCHED_OTHER, no working set): per
    one-way switch; the target is agreement within 15%;
  * probes.c.ring (raw, per hop) vs switch.ring.thread (raw median, before its self-test is
    subtracted);
  * probes.c.thread_100k / process_100k vs create.thread_100k / process_100k (per unit, --quick).
A pair whose concbench side is not in this build is reported as missing, not failed. Each
concbench run gives a pair: the first round of the probe and of its native counterpart (a
fresh worker each), which concbench interleaves (common.one_round).
Usage: bench/fidelity/probes.py [ROUNDS]   (default 7; needs cc; run on a quiet machine)"""

import subprocess
import sys

from common import BIN, build, concbench, first_round, one_round, report, require
from verdict import Target, check

TOLERANCE = 0.15
SWITCH_PAIRS = [  # (probe id, native id, native params, use the raw median)
    ("probes.c.pipe_token", "switch.pipe.process", {"placement": "same-cpu"}, False),
    ("probes.c.ring", "switch.ring.thread", {"placement": "same-cpu"}, True),
]
CREATE_PAIRS = [
    ("probes.c.thread_100k", "create.thread_100k", {}, False),
    ("probes.c.process_100k", "create.process_100k", {}, False),
]
BASELINE = {"working_set_kib": 0, "sched": "other"}


def known_ids():
    out = subprocess.run([BIN, "list"], capture_output=True, text=True, check=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def pick(doc, rid, params):
    """The plain variant of `rid`: given params, and no working set / real-time policy if present."""
    for r in doc["results"]:
        p = r["params"]
        if r["id"] == rid and all(p.get(k) == v for k, v in params.items()) and all(
                p.get(k, v) == v for k, v in BASELINE.items()):
            return r
    raise SystemExit(f"{rid} {params} not in the run (see its skipped/failed list)")


def value(result, raw):
    """The figure of the result's first round: raw (before its self-test is subtracted) or not."""
    return first_round(result, raw)


def rounds_of(pairs, rounds, extra):
    """[(label, concbench values, probe values, unit)] for the pairs whose native id exists."""
    present = [p for p in pairs if p[1] in ids]
    for probe, native, _, _ in pairs:
        if native not in ids:
            print(f"missing: {native} is not in this build; {probe} has nothing to compare with", file=sys.stderr)
    if not present:
        return []
    only = ",".join(x for p in present for x in p[:2])
    series = [([], []) for _ in present]
    for r in range(rounds):
        doc = concbench(only, [*one_round("20s"), *extra])
        for (probe, native, params, raw), (ours, theirs) in zip(present, series):
            ours.append(value(pick(doc, native, params), raw) / 1000)
            theirs.append(first_round(pick(doc, probe, {"placement": "same-cpu"})) / 1000)
        print(f"round {r + 1}/{rounds} ({only})", file=sys.stderr)
    return [(f"{native} vs {probe}", ours, theirs, "us")
            for (probe, native, _, _), (ours, theirs) in zip(present, series)]


rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
require("cc", "apt-get install gcc")
build()
ids = known_ids()
# Every switch pair has a same-cpu variant, the one compared: --where keeps the others out of
# the run (they would only put time between the two sides of a pair).
rows = (rounds_of(SWITCH_PAIRS, rounds, ("--where", "placement=same-cpu"))
        + rounds_of(CREATE_PAIRS, rounds, ("--quick",)))
if not rows:
    sys.exit("nothing to compare: none of the native ids is in this build")
report(rows)
for label, ours, theirs, _ in rows:
    target = Target.within(TOLERANCE) if label.startswith("switch.pipe.process") else Target.none()
    check(label, ours, theirs, target)
