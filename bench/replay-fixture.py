#!/usr/bin/env python3
"""Cut a recorded run document down to what the planner's replay test needs.

Usage: python3 bench/replay-fixture.py RUN.json > crates/concbench-session/tests/fixtures/NAME.json

Keeps, per variant of the run (measured or skipped), its id, family, unit and params, and per
round the wall time the round took and the value it measured: the replay
(`crates/concbench-session/tests/replay.rs`) runs the session on a fake worker that takes those
walls and returns those values. A variant the budget left unmeasured gets no rounds: the replay
gives it its measured kin's mean wall, as the session's own guess does. A variant the experiment
skipped (a missing runtime) is marked so, and the replay skips it again.
"""
import json
import sys


def main(path):
    doc = json.load(open(path))
    out = {"source": path.rsplit("/", 1)[-1], "budget_s": doc["settings"]["budget_s"],
           "duration_s": round(doc["duration_s"], 3), "variants": []}
    for r in doc["results"]:
        out["variants"].append({
            "id": r["id"], "family": r["family"], "unit": r["unit"], "params": r["params"],
            "rounds": [[round(x["wall_s"], 4), float("%.5g" % x["value"])] for x in r["rounds"]],
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
