#!/usr/bin/env python3
"""The capacity table for this machine, the machine's memory and tasks before and after, and a
Ctrl-C in the middle that must leave nothing behind (issue 45's closing figures).

Usage: python3 bench/capacity.py [--concbench PATH] [--out DIR] [-- CAPACITY ARGS...]

Run it as root on a quiet machine (nothing else heavy: the models take a quarter of MemAvailable
each and up to 90% of the free pids); as an ordinary user the models run without a control group
and the script says so. It:
  1. prints MemAvailable, the machine's task count, concbench's control groups and the processes;
  2. runs `concbench capacity --json DIR/capacity.json --markdown DIR/capacity.md` (the default
     budget, every model; extra arguments after `--` are passed on) and prints its table;
  3. prints the same readings after, and fails if a concbench group or process is left;
  4. starts `concbench capacity --models process,thread,coroutine`, sends SIGINT once the first
     model holds units, and checks exit 130, every process of its tree gone, no group left.
Exits 1 when anything was left behind.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def tasks():
    """Tasks (threads) on the machine: /proc/loadavg's running/total."""
    return int(Path("/proc/loadavg").read_text().split()[3].split("/")[1])


def mem_available_mib():
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) // 1024
    return -1


def concbench_groups():
    """concbench's control groups (cells) anywhere under /sys/fs/cgroup."""
    found = []
    for root, dirs, _ in os.walk("/sys/fs/cgroup"):
        for d in dirs:
            if d.startswith("concbench-") and d.split("-")[1].isdigit():
                found.append(os.path.join(root, d))
        # Do not descend into the cells themselves.
        dirs[:] = [d for d in dirs if not d.startswith("concbench-")]
    return found


def processes():
    """(pid, start time) of every live process."""
    out = {}
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            stat = (p / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z":
            out[int(p.name)] = (int(fields[1]), int(fields[19]))
    return out


def tree(root, procs):
    """`root` and its descendants, as (pid, start time)."""
    kids = {}
    for pid, (ppid, _) in procs.items():
        kids.setdefault(ppid, []).append(pid)
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        if pid in procs:
            out.append((pid, procs[pid][1]))
        todo.extend(kids.get(pid, []))
    return out


def state(label):
    groups = concbench_groups()
    print(f"{label}: MemAvailable {mem_available_mib()} MiB, {tasks()} tasks, "
          f"{len(groups)} concbench groups{': ' + ', '.join(groups) if groups else ''}")
    return groups


def table(concbench, out, extra):
    print(f"\n$ {concbench} capacity --json {out}/capacity.json {' '.join(extra)}", flush=True)
    started = time.time()
    run = subprocess.run([concbench, "capacity", "--json", f"{out}/capacity.json",
                          "--markdown", f"{out}/capacity.md", *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    print(run.stdout)
    print(f"(exit {run.returncode}, {time.time() - started:.0f} s)")
    if run.returncode != 0:
        print(run.stderr[-3000:])
    return run.returncode == 0


def interrupted(concbench, out):
    print("\nCtrl-C in the middle:", flush=True)
    child = subprocess.Popen([concbench, "capacity", "--models", "process,thread,coroutine",
                              "--json", f"{out}/interrupted.json"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    for line in child.stderr:
        if " held, " in line or time.time() > deadline:
            break
    during = tree(child.pid, processes())
    child.send_signal(signal.SIGINT)
    rest = child.stderr.read()
    code = child.wait()
    time.sleep(0.5)
    now = processes()
    left = [(p, s) for p, s in during if p in now and now[p][1] == s]
    groups = [g for g in concbench_groups() if f"concbench-{child.pid}-" in g]
    doc = json.loads(Path(f"{out}/interrupted.json").read_text())
    held = [f"{m['model']} {m['units']}" for m in doc["capacity"]["models"]]
    print(f"  SIGINT with {len(during)} processes in its tree ({', '.join(held)} held): exit {code}, "
          f"{len(left)} processes left, {len(groups)} groups left")
    if code != 130:
        print(rest[-2000:])
    return code == 130 and not left and not groups


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--concbench", default="concbench")
    ap.add_argument("--out", default="concbench-results/capacity-bench")
    ap.add_argument("extra", nargs="*")
    a = ap.parse_args()
    Path(a.out).mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("CONCBENCH_LOCK", "/tmp/concbench-capacity-bench.lock")
    if os.geteuid() != 0:
        print("not root: the models run without a control group (the document says why)")
    before = state("before")
    ok = table(a.concbench, a.out, a.extra)
    time.sleep(1)
    after = state("after")
    ok &= len(after) <= len(before)
    ok &= interrupted(a.concbench, a.out)
    state("at the end")
    print("\nnothing left behind" if ok else "\nSOMETHING WAS LEFT BEHIND or a run failed")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
