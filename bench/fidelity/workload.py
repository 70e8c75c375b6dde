#!/usr/bin/env python3
"""Fidelity of issue 4's families, side by side, rounds interleaved (concbench, C, ...):
  * workload.print (P = 255, pipe sink, one CPU) at COUNT 10, 100, 1000, processes and threads,
    vs print_ref.c — the seed's fork.c/thread.c with the terminal replaced by a pipe the parent
    drains — pinned with taskset to the CPU concbench pins to;
  * memory.process and memory.thread (default stack), 1000 units, PSS KiB per unit, vs
    memory_ref.c reading smaps_rollup the same way.
concbench runs with --quick (its subset covers exactly these points); a pair is a C program's
run and concbench's first round of the same point right after (common.one_round). No target: each row ends with a `TARGET none`
line, its paired ratio and interval.
Usage: bench/fidelity/workload.py [ROUNDS]   (default 6)"""

import os
import subprocess
import sys

from common import build, concbench, find, first_round, one_round, pinned_cpu, report, require, scratch_dir
from verdict import Target, check

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 6
require("cc", "apt-get install gcc")
build()
cpu = str(pinned_cpu())
here = os.path.dirname(os.path.abspath(__file__))
tmp = scratch_dir()
bins = {}
for name in ("print_ref", "memory_ref"):
    bins[name] = os.path.join(tmp, name)
    subprocess.run(["cc", "-O2", "-pthread", "-o", bins[name], os.path.join(here, name + ".c")], check=True)


def c_run(*args, pin=True):
    cmd = (["taskset", "-c", cpu] if pin else []) + [str(a) for a in args]
    return float(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)


PRINT = [(model, count) for count in (10, 100, 1000) for model in ("process", "thread")]
MEMORY = ("process", "thread")
ours = {k: [] for k in PRINT + list(MEMORY)}
ref = {k: [] for k in ours}
for r in range(rounds):
    # The C references first, then concbench's first round of each (see one_round).
    for model, count in PRINT:
        ref[(model, count)].append(c_run(bins["print_ref"], model, 255, count, 12))
    for model in MEMORY:
        ref[model].append(c_run(bins["memory_ref"], model, 1000))
    doc = concbench("workload.print,memory.process,memory.thread", ["--quick", *one_round("30s")])
    for model, count in PRINT:
        ours[(model, count)].append(first_round(find(doc, "workload.print", model=model, workers=255, count=count,
                                                     line_bytes=12, sink="pipe", placement="same-cpu")))
    ours["process"].append(first_round(find(doc, "memory.process", units=1000)))
    ours["thread"].append(first_round(find(doc, "memory.thread", units=1000, stack="default")))
    print(f"round {r + 1}/{rounds} done", file=sys.stderr)

rows = ([(f"print {m} P=255 COUNT={c} (vs print_ref.c)", [v * 1e3 for v in ours[(m, c)]],
          [v * 1e3 for v in ref[(m, c)]], "ms") for m, c in PRINT]
        + [(f"memory.{m} KiB/unit, 1000 (vs memory_ref.c)", ours[m], ref[m], "K") for m in MEMORY])
report(rows)
for label, a, b, _ in rows:
    check(label, a, b, Target.none())
