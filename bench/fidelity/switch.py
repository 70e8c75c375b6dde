#!/usr/bin/env python3
"""Fidelity of the switch family, side by side in one run (issue 3):
  * switch.pipe.process (same CPU, SCHED_OTHER, no working set) vs
    `taskset -c <cpu> perf bench sched pipe` on the same CPU. perf reports usecs/op per round
    trip (two one-way switches); it is halved to compare per one-way switch. Target: within 10%.
    perf makes as many round trips as concbench timed hand-overs in its round before (halved):
    some 6,000, 50 ms, where perf's 200,000 (1.7 s) would average over the machine's slower
    and faster spells while a concbench round lands on one (as getppid, create.py).
  * switch.coroutine: target under 50 ns per switch (no reference tool; reported alone).
Rounds are interleaved (perf, concbench, perf, ...) so drift hits both alike; a pair is a perf
run and concbench's first round (a fresh worker) right after it (common.one_round).
Usage: bench/fidelity/switch.py [ROUNDS]   (default 40; needs perf: apt-get install linux-perf)"""

import subprocess
import sys

from common import (build, concbench, find, first_round, one_round, operations_timed, perf_usecs_per_op,
                    pinned_cpu, report, require)
from verdict import Target, check, check_value

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 40
# Fewest round trips of a perf run: a mean over fewer would be a few scheduler ticks' luck.
MIN_PERF_LOOPS = 1000
COROUTINE_TARGET_NS = 50.0
PLAIN = ["--where", "placement=same-cpu", "--where", "sched=other", "--where", "working_set_kib=0"]
require("perf", "apt-get install linux-perf")
require("taskset", "apt-get install util-linux")
build()



def pipe_round():
    """One concbench round of the compared variant only (--where): a round of every pipe
    variant would put seconds between it and perf."""
    doc = concbench("switch.pipe.process", [*one_round("2s"), *PLAIN])
    return find(doc, "switch.pipe.process", placement="same-cpu", sched="other", working_set_kib=0)


# Each round's perf run is matched to concbench's round before: the CPU it pinned both
# processes to, half its hand-overs in round trips. The first round's come from a run not counted.
pipe = pipe_round()
ours_pipe, perf_pipe, ours_coro = [], [], []
for r in range(rounds):
    cpu, loops = str(pinned_cpu(pipe)), max(MIN_PERF_LOOPS, operations_timed(pipe) // 2)
    # perf first, then concbench's round (see one_round).
    out = subprocess.run(["taskset", "-c", cpu, "perf", "bench", "sched", "pipe", "-l", str(loops)],
                         capture_output=True, text=True, check=True).stdout
    perf_pipe.append(perf_usecs_per_op(out) * 1000 / 2)
    pipe = pipe_round()
    ours_pipe.append(first_round(pipe))
    ours_coro.append(first_round(find(concbench("switch.coroutine", one_round("2s")), "switch.coroutine")))
    print(f"round {r + 1}/{rounds} (cpu {cpu}): pipe {ours_pipe[-1]:.0f} vs perf {perf_pipe[-1]:.0f} ns per "
          f"switch ({loops} round trips); coroutine {ours_coro[-1]:.1f} ns", file=sys.stderr)

report([("switch.pipe.process vs perf bench sched pipe / 2", ours_pipe, perf_pipe, "ns")])
check("switch.pipe.process vs perf bench sched pipe / 2, same round trips and CPU", ours_pipe, perf_pipe, Target.within(0.10))
check_value("switch.coroutine, ns per switch", ours_coro, Target.under(COROUTINE_TARGET_NS, "ns"))
