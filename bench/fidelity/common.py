"""Shared helpers for the side-by-side fidelity scripts: build concbench, run it, run a reference
tool pinned to the same CPU, interleave rounds, and print medians and paired ratios (the TARGET
line and its statistics are in verdict.py)."""

import atexit
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

from verdict import paired_ratio

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# CONCBENCH_BIN: a concbench binary to compare as it is (say, a fresh clone's release build);
# otherwise this checkout's, built first where `cargo build --release` puts it.
BIN = os.environ.get("CONCBENCH_BIN") or os.path.join(
    ROOT, os.environ.get("CARGO_TARGET_DIR", "target"), "release", "concbench")


def build():
    if not os.environ.get("CONCBENCH_BIN"):
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)


def pinned_cpu(result=None):
    """The CPU concbench pinned `result`'s worker to (its `cpus`), so a reference runs on the
    same one; without a result (or `cpus`), the one it pins same-cpu variants to: the highest
    allowed."""
    if result and result.get("cpus"):
        return result["cpus"][0]
    return max(os.sched_getaffinity(0))


def require(tool, how):
    """Exit with how to install `tool` when it is missing (the scripts install nothing
    themselves, except server.py, which installs wrk and nginx from Debian)."""
    if shutil.which(tool) is None:
        sys.exit(f"{tool} is missing: {how}")


def one_round(budget="10s"):
    """concbench's arguments for one round of each variant (a fresh worker each), the round a
    pair uses (`first_round`). `--rounds 1` still lets a run add rounds to its undecided
    verdicts (up to 30 a variant): the budget bounds that tail, and the scripts run each
    reference before concbench, so the tail falls after the pair. It must leave room for the
    first pass (the io round takes seconds)."""
    return ["--rounds", "1", "--budget", budget]


def earliest(result):
    """`result`'s first clean round (the one right after the reference's run)."""
    clean = [r for r in result["rounds"] if not r.get("excluded")] or result["rounds"]
    return min(clean, key=lambda r: r["pass"])


def first_round(result, raw=False):
    """The figure of `result`'s first round, in the unit of its median: its value, less its
    method overhead (`baseline`) unless `raw`."""
    r = earliest(result)
    value = r["value"]
    if not raw and r.get("baseline") is not None:
        value -= r["baseline"]
    return value


def operations_timed(result):
    """How many operations concbench timed in `result`'s first round: iterations per sample x
    samples (a reference making as many covers as much of the machine's time)."""
    rnd = earliest(result)
    return int(rnd.get("iterations", result["iterations"])) * int(rnd.get("samples", 1))


def parent_shape(result):
    """(anonymous KiB, mappings) of the process `result`'s first round forked from: create.fork's
    `parent_anon_kib` and `parent_vmas` counters, or None for a build that does not record them."""
    counters = earliest(result).get("counters", {})
    if "parent_anon_kib" not in counters or "parent_vmas" not in counters:
        return None
    return round(counters["parent_anon_kib"]), round(counters["parent_vmas"])


def parse_fork_loop(out):
    """fork_loop.c's output, "NS ANON_KIB PTE_KIB VMAS", as a dict (us per fork and the shape it
    forked from); exits showing the output when it is not that."""
    fields = out.split()
    try:
        ns, anon, pte, vmas = (float(f) for f in fields)
    except ValueError:
        sys.exit(f"cannot read fork_loop's output: {out!r}")
    return {"us": ns / 1000, "anon_kib": anon, "pte_kib": pte, "vmas": vmas}


def scratch_dir():
    """A temporary directory for the references' binaries, removed when the script exits (also
    on an error or Ctrl-C)."""
    d = tempfile.mkdtemp(prefix="concbench-fidelity-")
    atexit.register(shutil.rmtree, d, True)
    return d


def perf_usecs_per_op(out):
    """The "N usecs/op" figure of a `perf bench` output, or exit showing the output."""
    m = re.search(r"([\d.]+) usecs/op", out)
    if not m:
        sys.exit(f"cannot read perf bench's output:\n{out}")
    return float(m.group(1))


def concbench(only, extra=(), binary=None):
    """Run concbench (`binary`, default BIN) on `only` and return its result document.

    Not stored in the history (a fidelity run is not a measurement of the machine), and
    `--settle 0`: a round and the reference's run that follows it form a pair only if nothing
    waits between them; the reference tools do not wait for a quiet machine either."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.json")
        subprocess.run([binary or BIN, "run", "--only", only, "--json", out, "--no-store", "--settle", "0",
                        *extra], check=True,
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
    """rows: [(label, concbench_values, reference_values, unit)], round i of both lists one pair
    -> prints each side's median and the paired ratio (median of concbench / reference per
    round) with its 95% interval, as the TARGET lines do."""
    print(f"{'comparison':56} {'concbench':>12} {'reference':>12} {'ratio':>7}  95% interval")
    for label, ours, ref, unit in rows:
        a, b = statistics.median(ours), statistics.median(ref)
        ratio, interval = paired_ratio(ours, ref)
        span = f"[{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "(needs 6 rounds)"
        print(f"{label:56} {a:10.1f}{unit:>2} {b:10.1f}{unit:>2} {ratio:7.3f}  {span}")
