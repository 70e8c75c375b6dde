#!/usr/bin/env python3
"""Fidelity of the switch family, side by side in one run (issue 3):
  * switch.pipe.process (same CPU, SCHED_OTHER, no working set) vs
    `taskset -c <cpu> perf bench sched pipe` on the same CPU. perf reports usecs/op per round
    trip (two one-way switches); it is halved to compare per one-way switch. Target: within 10%.
  * switch.coroutine: target under 50 ns per switch (no reference tool; reported alone).
Rounds are interleaved (concbench, perf, concbench, ...) so drift hits both alike; each
concbench run is one round (`--rounds 1 --budget 0`, a fresh worker), paired with the perf run
after it.
Usage: bench/fidelity/switch.py [ROUNDS]   (default 7; needs perf: apt-get install linux-perf)"""

import subprocess
import sys

from common import ONE_ROUND, build, concbench, find, perf_usecs_per_op, pinned_cpu, report, require
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
for r in range(rounds):
    # The compared variant only (--where): a round of every pipe variant would put seconds
    # between concbench's round and perf's.
    doc = concbench("switch.pipe.process", [*ONE_ROUND, *PLAIN])
    pipe = find(doc, "switch.pipe.process", placement="same-cpu", sched="other", working_set_kib=0)
    ours_pipe.append(pipe["median"])
    cpu = str(pinned_cpu(pipe))  # the CPU concbench pinned both processes to
    out = subprocess.run(["taskset", "-c", cpu, "perf", "bench", "sched", "pipe", "-l", PERF_LOOPS],
                         capture_output=True, text=True, check=True).stdout
    perf_pipe.append(perf_usecs_per_op(out) * 1000 / 2)
    ours_coro.append(find(concbench("switch.coroutine", ONE_ROUND), "switch.coroutine")["median"])
    print(f"round {r + 1}/{rounds}: pipe {ours_pipe[-1]:.0f} vs perf {perf_pipe[-1]:.0f} ns per switch; "
          f"coroutine {ours_coro[-1]:.1f} ns", file=sys.stderr)

report([("switch.pipe.process vs perf bench sched pipe / 2", ours_pipe, perf_pipe, "ns")])
check("switch.pipe.process vs perf bench sched pipe / 2", ours_pipe, perf_pipe, Target.within(0.10))
check_value("switch.coroutine, ns per switch", ours_coro, Target.under(COROUTINE_TARGET_NS, "ns"))
