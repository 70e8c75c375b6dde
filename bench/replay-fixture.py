#!/usr/bin/env python3
"""Cut a recorded run document down to what the planner's replay test needs.

Usage: python3 bench/replay-fixture.py RUN.json > crates/concbench-session/tests/fixtures/NAME.json

Keeps, per variant of the run (measured or skipped), its id, family, unit and params, and per
round `[wall_s, value]`, then `prepared_s` and the round's counters that `data/published.toml`
names when there are any: the replay (`crates/concbench-session/tests/replay.rs`) runs the
session on a fake worker that takes those walls and returns those values and counters, so the
verdicts (S4's guards and counters among them) are judged as in the run. A variant the budget left
unmeasured gets no rounds: the replay gives it its measured kin's mean wall, as the session's own
guess does. A variant the experiment skipped (a missing runtime) is marked so, and the replay
skips it again.

`prepared_s` is the part of a round's wall spent making what later rounds reuse (the io data
files). Documents recorded before rounds carried it (2026-11-27 and earlier) get it estimated
for `io.read`, whose round is one batch of reads: its wall less its value (the read) is the
worker's start and setup, the same few hundredths of a second in every round but the one that
created the files; the excess over the document's median is taken as the creation.
"""
import json
import re
import statistics
import sys


def counter_names():
    text = open(__file__.rsplit("/", 2)[0] + "/data/published.toml").read()
    return set(re.findall(r'"([a-z0-9_]+)"', text))


def main(path):
    doc = json.load(open(path))
    named = counter_names()
    io_excess = [x["wall_s"] - x["value"] / 1e3 for r in doc["results"] if r["id"] == "io.read"
                 for x in r["rounds"]]
    typical = statistics.median(io_excess) if io_excess else 0.0
    out = {"source": path.rsplit("/", 1)[-1], "budget_s": doc["settings"]["budget_s"],
           "duration_s": round(doc["duration_s"], 3), "variants": []}
    for r in doc["results"]:
        rounds = []
        for x in r["rounds"]:
            prepared = x.get("prepared_s")
            if prepared is None and r["id"] == "io.read":
                excess = x["wall_s"] - x["value"] / 1e3 - typical
                prepared = excess if excess > 1.0 else 0.0
            row = [round(x["wall_s"], 4), float("%.5g" % x["value"])]
            counters = {k: float("%.5g" % v) for k, v in x.get("counters", {}).items()
                        if k in named}
            if prepared or counters:
                row.append(round(prepared or 0.0, 4))
            if counters:
                row.append(counters)
            rounds.append(row)
        out["variants"].append({
            "id": r["id"], "family": r["family"], "unit": r["unit"], "params": r["params"],
            "rounds": rounds,
        })
    for s in doc["skipped"]:
        budget = s["reason"].startswith("not measured: the run's budget")
        out["variants"].append({
            "id": s["id"], "family": s["id"].split(".")[0], "unit": "",
            "params": s["params"], "rounds": [], "skipped": not budget,
        })
    json.dump(out, sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
