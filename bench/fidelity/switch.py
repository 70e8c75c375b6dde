#!/usr/bin/env python3
"""Fidelity of the switch family, side by side in one run (issue 3):
  * switch.pipe.process (same CPU, SCHED_OTHER, no working set) vs
    `taskset -c <cpu> perf bench sched pipe` on the same CPU. perf reports usecs/op per round
    trip (two one-way switches); it is halved to compare per one-way switch. Target: within 10%.
  * switch.coroutine: target under 50 ns per switch (no reference tool; reported alone).
Rounds are interleaved (perf, concbench, perf, ...) so drift hits both alike; a pair is a perf
run and concbench's first round (a fresh worker) right after it (common.one_round).
Usage: bench/fidelity/switch.py [ROUNDS]   (default 7; needs perf: apt-get install linux-perf)"""

import subprocess
import sys

from common import (build, concbench, find, first_round, one_round, perf_usecs_per_op, pinned_cpu, report,
                    require)
from verdict import Target, check, check_value

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
# perf's round trips per run: about a second at the few microseconds a round trip costs.
PERF_LOOPS = "200000"
COROUTINE_TARGET_NS = 50.0
PLAIN = ["--where", "placement=same-cpu", "--where", "sched=other", "--where", "working_set_kib=0"]
require("perf", "apt-get install linux-perf")
require("taskset", "apt-get install util-linux")
build()

ours_pipe, perf_pipe, ours_coro = [], [], []
cpu = str(pinned_cpu())  # the CPU concbench pins same-cpu variants to (checked on its result)
for r in range(rounds):
    # perf first, then concbench's round (see one_round); only the compared variant (--where):
    # a round of every pipe variant would put seconds between the two.
    out = subprocess.run(["taskset", "-c", cpu, "perf", "bench", "sched", "pipe", "-l", PERF_LOOPS],
                         capture_output=True, text=True, check=True).stdout
    perf_pipe.append(perf_usecs_per_op(out) * 1000 / 2)
    doc = concbench("switch.pipe.process", [*one_round(), *PLAIN])
    pipe = find(doc, "switch.pipe.process", placement="same-cpu", sched="other", working_set_kib=0)
    ours_pipe.append(first_round(pipe))
    cpu = str(pinned_cpu(pipe))  # the CPU concbench pinned both processes to
    ours_coro.append(first_round(find(concbench("switch.coroutine", one_round()), "switch.coroutine")))
    print(f"round {r + 1}/{rounds}: pipe {ours_pipe[-1]:.0f} vs perf {perf_pipe[-1]:.0f} ns per switch; "
          f"coroutine {ours_coro[-1]:.1f} ns", file=sys.stderr)

report([("switch.pipe.process vs perf bench sched pipe / 2", ours_pipe, perf_pipe, "ns")])
check("switch.pipe.process vs perf bench sched pipe / 2", ours_pipe, perf_pipe, Target.within(0.10))
check_value("switch.coroutine, ns per switch", ours_coro, Target.under(COROUTINE_TARGET_NS, "ns"))
