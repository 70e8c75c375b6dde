#!/usr/bin/env python3
"""Scan concbench result documents for numbers that cannot be right.

Usage: python3 bench/scan.py RUN.json [RUN.json ...]

Checks every result (not the `invalid` list, which is where such numbers belong) for:
  * a negative or non-finite value: median, interval, min, max, samples, round values, baselines;
  * a figure per operation (unit ns or us) from fewer than 10 operations per sample;
  * a placement that disagrees with the CPUs: same-cpu on anything but one CPU, cross-cpu on
    anything but two different ones, unpinned while the process was allowed a single CPU;
  * an interval from fewer than 6 values (rounds).
Prints each problem and a summary; exits 1 if any was found.
"""
import json
import math
import sys

MIN_OPERATIONS = 10
MIN_VALUES = 6


def problems(doc):
    allowed = doc.get("host", {}).get("cpus_allowed", [])
    for r in doc.get("results", []):
        name = f'{r["id"]} {json.dumps(r.get("params", {}), sort_keys=True)}'
        ci = r.get("ci95") or []
        values = [r.get("median"), r.get("min"), r.get("max"), *ci, *r.get("samples", [])]
        for rd in r.get("rounds", []):
            values.append(rd.get("value"))
            if rd.get("baseline") is not None:
                values.append(rd["baseline"])
        bad = [v for v in values if v is None or not math.isfinite(v) or v < 0]
        if bad:
            yield f"{name}: impossible value {bad[0]}"
        if r.get("unit") in ("ns", "us", "µs") and r.get("iterations", 0) < MIN_OPERATIONS:
            yield f'{name}: per-operation figure from {r.get("iterations")} operation(s) per sample'
        placement = r.get("params", {}).get("placement")
        cpus = r.get("cpus", [])
        ok = {
            "same-cpu": len(cpus) == 1,
            "cross-cpu": len(cpus) == 2 and cpus[0] != cpus[1],
            "unpinned": not cpus and len(allowed) != 1,
        }.get(placement, True)
        if not ok:
            yield f"{name}: placement {placement} with CPUs {cpus} (allowed {allowed})"
        rounds = len(r.get("rounds", [])) or len(r.get("samples", []))
        if ci and rounds < MIN_VALUES:
            yield f"{name}: an interval from {rounds} values"


def main(paths):
    found = 0
    checked = 0
    invalid = 0
    for p in paths:
        doc = json.load(open(p))
        checked += len(doc.get("results", []))
        invalid += len(doc.get("invalid", []))
        for line in problems(doc):
            print(f"{p}: {line}")
            found += 1
    print(f"scanned {len(paths)} document(s), {checked} results: {found} problem(s); "
          f"{invalid} measurement(s) reported as invalid with their reason")
    return 1 if found else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
