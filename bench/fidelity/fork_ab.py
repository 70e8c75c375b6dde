#!/usr/bin/env python3
"""create.fork from two builds of concbench, round by round: what a change to the worker's shape
(the binary linked as a PIE or not, the heap trimmed or not) does to the figure.

A round is one concbench run of each build, `--rounds 1`, the order alternating (A B, B A, ...)
so that neither always comes second; the pair's ratio is B / A on their first rounds (a fresh
worker each), and the TARGET line (no target) gives the median ratio with its 95% interval,
verdict.py's statistics. Each round's line shows the shape each worker forked from
(create.fork's parent_anon_kib and parent_vmas counters).
Usage: bench/fidelity/fork_ab.py BIN_A BIN_B [ROUNDS]   (default 20), e.g. a PIE build against
this one:
  CONCBENCH_PIE=1 CARGO_TARGET_DIR=/tmp/pie cargo build --release -p concbench
  bench/fidelity/fork_ab.py /tmp/pie/release/concbench target/release/concbench 20"""

import sys

from common import concbench, find, first_round, one_round, parent_shape, report
from verdict import Target, check

if len(sys.argv) < 3:
    sys.exit(__doc__)
a_bin, b_bin = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 20


def fork_round(binary):
    """(µs per fork, the shape it forked from) of `binary`'s first round."""
    doc = concbench("create.fork", [*one_round("2s"), "--where", "parent=single-threaded"], binary)
    result = find(doc, "create.fork", parent="single-threaded")
    return first_round(result) / 1000, parent_shape(result)


a_us, b_us = [], []
for r in range(rounds):
    order = [(a_bin, a_us), (b_bin, b_us)]
    shapes = {}
    for binary, values in order if r % 2 == 0 else reversed(order):
        us, shapes[binary] = fork_round(binary)
        values.append(us)
    print(f"round {r + 1}/{rounds}: A {a_us[-1]:.1f} us {shapes[a_bin]}, B {b_us[-1]:.1f} us "
          f"{shapes[b_bin]} (KiB anon, maps)", file=sys.stderr)

report([("create.fork, B vs A", b_us, a_us, "us")])
check("create.fork single-threaded, B / A", b_us, a_us, Target.none())
