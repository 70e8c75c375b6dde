#!/usr/bin/env python3
"""Fidelity of the spine, side by side in one run (issue 2):
  * syscall.getppid vs `perf bench syscall basic` (both pinned to the same CPU);
  * create.fork (single-threaded parent) vs fork_loop.c compiled with -O2, and vs the same
    loop linked against libgcc_s and libm as every Rust binary is: fork copies every mapping, so
    two more shared libraries alone make the same C loop ~15% slower on a 2-CPU KVM guest. The
    second reference has concbench's process shape; the first is the issue's 20-line C loop.
Rounds are interleaved (concbench, perf, C, concbench, ...) so drift hits all three alike.
Usage: bench/fidelity/create.py [ROUNDS]   (needs perf: apt-get install linux-perf)"""

import os
import re
import subprocess
import sys
import tempfile

from common import build, concbench, find, pinned_cpu, report, require

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
require("perf", "apt-get install linux-perf")
require("cc", "apt-get install gcc")
build()
cpu = str(pinned_cpu())
here = os.path.dirname(os.path.abspath(__file__))
tmp = tempfile.mkdtemp()
fork_loop = os.path.join(tmp, "fork_loop")
fork_loop_libs = os.path.join(tmp, "fork_loop_libs")
source = os.path.join(here, "fork_loop.c")
subprocess.run(["cc", "-O2", "-o", fork_loop, source], check=True)
subprocess.run(["cc", "-O2", "-o", fork_loop_libs, source, "-Wl,--no-as-needed", "-lgcc_s", "-lm"], check=True)

ours_sys, ours_fork, perf_sys, c_fork, c_fork_libs = [], [], [], [], []
for r in range(rounds):
    doc = concbench("syscall.getppid,create.fork")
    ours_sys.append(find(doc, "syscall.getppid")["median"])
    ours_fork.append(find(doc, "create.fork", parent="single-threaded")["median"] / 1000)
    out = subprocess.run(["taskset", "-c", cpu, "perf", "bench", "syscall", "basic"], capture_output=True, text=True, check=True).stdout
    perf_sys.append(float(re.search(r"([\d.]+) usecs/op", out).group(1)) * 1000)
    out = subprocess.run(["taskset", "-c", cpu, fork_loop, "5000"], capture_output=True, text=True, check=True).stdout
    c_fork.append(float(out) / 1000)
    out = subprocess.run(["taskset", "-c", cpu, fork_loop_libs, "5000"], capture_output=True, text=True, check=True).stdout
    c_fork_libs.append(float(out) / 1000)
    print(f"round {r + 1}/{rounds}: getppid {ours_sys[-1]:.1f} vs {perf_sys[-1]:.1f} ns; fork {ours_fork[-1]:.1f} vs {c_fork[-1]:.1f} (C) / {c_fork_libs[-1]:.1f} (C + Rust's libs) us", file=sys.stderr)

report([
    ("syscall.getppid vs perf bench syscall basic", ours_sys, perf_sys, "ns"),
    ("create.fork vs C fork/_exit/waitpid -O2", ours_fork, c_fork, "us"),
    ("create.fork vs the same C loop + libgcc_s, libm", ours_fork, c_fork_libs, "us"),
])
