"""Shared helpers for the side-by-side fidelity scripts: build concbench, run it, run a reference
tool pinned to the same CPU, interleave rounds, and print medians and ratios."""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.join(ROOT, "target", "release", "concbench")


def build():
    subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)


def pinned_cpu():
    """The CPU concbench pins same-cpu variants to: the highest allowed one."""
    return max(os.sched_getaffinity(0))


def require(tool, how):
    if shutil.which(tool) is None:
        sys.exit(f"{tool} is missing: {how}")


def concbench(only, extra=()):
    """Run concbench on `only` and return {(id, params-json): result}."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.json")
        subprocess.run([BIN, "run", "--only", only, "--json", out, *extra], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "CI": "true"})
        with open(out) as f:
            doc = json.load(f)
    return doc


def find(doc, rid, **params):
    for r in doc["results"]:
        if r["id"] == rid and all(r["params"].get(k) == v for k, v in params.items()):
            return r
    raise SystemExit(f"{rid} {params} not in the run")


def report(rows):
    """rows: [(label, concbench_values, reference_values, unit)] -> prints medians and ratio."""
    print(f"{'comparison':44} {'concbench':>12} {'reference':>12} {'ratio':>7}")
    for label, ours, ref, unit in rows:
        a, b = statistics.median(ours), statistics.median(ref)
        print(f"{label:44} {a:10.1f}{unit:>2} {b:10.1f}{unit:>2} {a / b:7.3f}")
