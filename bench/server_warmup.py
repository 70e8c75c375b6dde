#!/usr/bin/env python3
"""Seed S2's servers from their first request (issue 41): requests/s per one-second window for
60 s — Netty at both readings of the article (its printed code's default 4 worker loops, its
prose's 2) and PHP + Swoole, without blocking and with the 10 ms blocking call — with the JVM's
JIT share of a CPU, compilations and GC pauses per window, and where each series levels by the
steady-state criterion a run uses (`concbench warmup`, which starts each server as a run does:
on every allowed CPU but the load generator's, two at most; 1000 keep-alive connections).

Run it on a quiet machine: nothing else running (a build, a test run, another benchmark). Each
series takes its seconds plus a JVM's start; the six take about seven minutes at 60 s.

Usage: bench/server_warmup.py [SECONDS] [OUT_DIR]   (default 60 s; JSON series into OUT_DIR,
default ./server-warmup-<time>/). Needs Java (Netty is fetched by Maven on first use) and Swoole
(PHP builds it from CONCBENCH_SWOOLE_SRC); a server that cannot run here
is reported and skipped."""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "fidelity"))
from common import BIN, build  # noqa: E402

seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 60
out_dir = sys.argv[2] if len(sys.argv) > 2 else time.strftime("server-warmup-%Y%m%dT%H%M%S")
SERVERS = [
    ("netty", ["--event-loops", "4"], "Netty, the printed code (4 worker loops)"),
    ("netty", ["--event-loops", "2"], "Netty, the prose (2 worker loops)"),
    ("swoole", [], "PHP + Swoole (2 workers)"),
]
SCENARIOS = [(0, "no blocking"), (10, "10 ms blocking")]


def series(server, extra, blocking_ms, path):
    cmd = [BIN, "warmup", server, *extra, "--blocking-ms", str(blocking_ms),
           "--seconds", str(seconds), "--json", path]
    done = subprocess.run(cmd, capture_output=True, text=True)
    sys.stderr.write(done.stdout)
    if done.returncode != 0:
        return None, done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed"
    return json.load(open(path)), None


def where(w):
    if w["steady_after_s"] is not None:
        return f"levels after {w['steady_after_s']:.0f} s"
    return w.get("not_steady") or "not steady"


def tail_median(rates, n=10):
    tail = sorted(rates[-n:])
    return tail[len(tail) // 2] if tail else 0.0


build()
os.makedirs(out_dir, exist_ok=True)
print(f"S2's servers from the first request, {seconds} one-second windows each "
      f"(load: {os.getloadavg()[0]:.2f} before the first)")
rows = []
for blocking_ms, scenario in SCENARIOS:
    for server, extra, label in SERVERS:
        name = f"{server}{''.join(extra).replace('--event-loops', '-')}-{blocking_ms}ms"
        w, failed = series(server, extra, blocking_ms, os.path.join(out_dir, name + ".json"))
        if failed:
            rows.append((scenario, label, f"not measured: {failed}", ""))
            continue
        rates = [round(r) for r in w["rates"]]
        print(f"\n{label}, {scenario}: req/s per second from the first request")
        print("  " + ", ".join(str(r) for r in rates))
        if w.get("jit_compilations"):
            print("  JIT compilations per second: " + ", ".join(str(n) for n in w["jit_compilations"]))
            print("  GC pauses per second: " + ", ".join(str(n) for n in w.get("gc_pauses", [])))
        rows.append((scenario, label, where(w), f"last 10 s: {tail_median(w['rates']):.0f} req/s"))
print("\nWhere each levels (concbench's criterion: " +
      "the last 3 windows within 10% of the 3 before and of each other, the JIT under 1% of a CPU, "
      "1000 responses; cap 60 s):")
for scenario, label, level, tail in rows:
    print(f"  {scenario:15} {label:45} {level:35} {tail}")
print(f"\nSeries (JSON, the record a run keeps): {out_dir}/ (load after: {os.getloadavg()[0]:.2f})")
