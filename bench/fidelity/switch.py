#!/usr/bin/env python3
"""Fidelity of the switch family, side by side in one run (issue 3):
  * switch.pipe.process (same CPU, SCHED_OTHER, no working set) vs
    `taskset -c <cpu> perf bench sched pipe` on the same CPU. perf reports usecs/op per round
    trip (two one-way switches); it is halved to compare per one-way switch. Target: within 10%.
  * switch.coroutine: target under 50 ns per switch (no reference tool; reported alone).
Rounds are interleaved (concbench, perf, concbench, ...) so drift hits both alike.
Usage: bench/fidelity/switch.py [ROUNDS]   (needs perf: apt-get install linux-perf)"""

import re
import statistics
import subprocess
import sys

from common import build, concbench, find, pinned_cpu, report, require

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
# perf's round trips per run: about a second at the few microseconds a round trip costs.
PERF_LOOPS = "200000"
COROUTINE_TARGET_NS = 50.0
require("perf", "apt-get install linux-perf")
require("taskset", "apt-get install util-linux")
build()
cpu = str(pinned_cpu())

ours_pipe, perf_pipe, ours_coro = [], [], []
for r in range(rounds):
    doc = concbench("switch.pipe.process,switch.coroutine")
    ours_pipe.append(find(doc, "switch.pipe.process", placement="same-cpu", sched="other", working_set_kib=0)["median"])
    ours_coro.append(find(doc, "switch.coroutine")["median"])
    out = subprocess.run(["taskset", "-c", cpu, "perf", "bench", "sched", "pipe", "-l", PERF_LOOPS],
                         capture_output=True, text=True, check=True).stdout
    perf_pipe.append(float(re.search(r"([\d.]+) usecs/op", out).group(1)) * 1000 / 2)
    print(f"round {r + 1}/{rounds}: pipe {ours_pipe[-1]:.0f} vs perf {perf_pipe[-1]:.0f} ns per switch; "
          f"coroutine {ours_coro[-1]:.1f} ns", file=sys.stderr)

report([("switch.pipe.process vs perf bench sched pipe / 2", ours_pipe, perf_pipe, "ns")])
ratio = statistics.median(ours_pipe) / statistics.median(perf_pipe)
coro = statistics.median(ours_coro)
print(f"pipe ping-pong within 10% of perf: {'yes' if abs(ratio - 1) <= 0.10 else 'NO'} ({ratio:.3f})")
print(f"switch.coroutine {coro:.1f} ns per switch, under {COROUTINE_TARGET_NS:.0f} ns: "
      f"{'yes' if coro < COROUTINE_TARGET_NS else 'NO'}")
