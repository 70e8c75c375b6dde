#!/usr/bin/env python3
"""Copy a result document with one family's figures multiplied by a factor: what a regression of
that family looks like, for testing a `compare --fail-if` gate (bench/ci-gate.sh, docs/CI.md).
The copy is test data, not a measurement.

    python3 bench/scale-family.py RUN.json create 1.5 SLOWER.json
"""
import json
import sys


def scale(doc, family, factor):
    n = 0
    for r in doc["results"]:
        if r["family"] != family:
            continue
        n += 1
        for k in ("median", "min", "max", "mad", "mean"):
            r[k] *= factor
        if r.get("ci95"):
            r["ci95"] = [v * factor for v in r["ci95"]]
        r["samples"] = [v * factor for v in r["samples"]]
        for rd in r.get("rounds", []):
            rd["value"] *= factor
            if rd.get("baseline") is not None:
                rd["baseline"] *= factor
        o = r.get("overhead")
        if o:
            for k in ("median", "raw_median"):
                if isinstance(o.get(k), (int, float)):
                    o[k] *= factor
            o["samples"] = [v * factor for v in o.get("samples", [])]
    return n


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    src, family, factor, dst = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    with open(src) as f:
        doc = json.load(f)
    n = scale(doc, family, factor)
    if n == 0:
        sys.exit(f"no result of family '{family}' in {src}")
    with open(dst, "w") as f:
        json.dump(doc, f)
    print(f"{dst}: {n} {family} results scaled by {factor}", file=sys.stderr)


if __name__ == "__main__":
    main()
