#!/usr/bin/env python3
"""The CI gate on A/A pairs: two back-to-back runs of one build, `compare --fail-if 'slower>10%'`,
which must exit 0 (no change) in at least 9 of 10 pairs (issue 40; docs/CI.md).

Usage: python3 bench/aa-gate.py DIR [--pairs N] [--concbench BIN] [--only-pairs]

Measures, one run at a time (never two at once; each stored in DIR/history.sqlite, never the
user's history; run lock DIR/run.lock):
  * N pairs (default 10) of back-to-back `run --quick`,
  * N pairs of back-to-back `run --quick --only syscall,create,switch`,
then compares each pair twice, as a CI job would:
  * without a history (`--db DIR/no-history.sqlite`: the stated floor of run-to-run variation),
  * with the history of the runs measured so far (`--db DIR/history.sqlite`: each result's own
    spread once five other runs hold it; the pair itself is left out of it),
and prints every pair's exit codes and each breach with its change, interval and q (the gate
names them; the `compare` JSON beside them in DIR says which spread each result counted).
With --only-pairs it reads the runs already in DIR instead of measuring.

About 75 s a quick run and 35 s an `--only` run on the 2-CPU development VM: 10 pairs of each
take about 40 minutes. Measure on a quiet machine (docs/CI.md).
"""
import glob
import os
import subprocess
import sys

GATE = ["--fail-if", "slower>10%"]


def run(binary, env, path, extra):
    with open(path[:-5] + ".err", "w") as err:
        code = subprocess.run([binary, "run", "--quick", *extra, "--json", path],
                              stdout=subprocess.DEVNULL, stderr=err, env=env).returncode
    if code != 0:
        print(f"   {path}: run exited {code} (see {path[:-5]}.err)", flush=True)
    return os.path.exists(path)


def compare(binary, env, a, b, db, name):
    out = os.path.join(os.path.dirname(a), f"{name}.compare.json")
    proc = subprocess.run([binary, "compare", a, b, "--db", db, *GATE, "--json", out],
                          capture_output=True, text=True, env=env)
    breaches = [l for l in proc.stderr.splitlines() if "breach (" in l]
    counted = next((l for l in proc.stdout.splitlines() if l.startswith("Run-to-run variation")), "")
    return proc.returncode, breaches, counted


def main(args):
    if not args or args[0].startswith("-"):
        print(__doc__)
        return 2
    folder = args[0]
    pairs = int(args[args.index("--pairs") + 1]) if "--pairs" in args else 10
    binary = args[args.index("--concbench") + 1] if "--concbench" in args else "target/release/concbench"
    measure = "--only-pairs" not in args
    os.makedirs(folder, exist_ok=True)
    env = dict(os.environ, CONCBENCH_DB=os.path.join(folder, "history.sqlite"),
               CONCBENCH_LOCK=os.path.join(folder, "run.lock"))
    kinds = (("quick", []), ("only", ["--only", "syscall,create,switch"]))
    if measure:
        for i in range(1, pairs + 1):
            for kind, extra in kinds:
                for side in ("a", "b"):
                    path = os.path.join(folder, f"{kind}-{i:02}-{side}.json")
                    print(f"== pair {i} ({kind}) {side.upper()} -> {path}", flush=True)
                    run(binary, env, path, extra)
    summary = []
    for kind, _ in kinds:
        found = sorted(glob.glob(os.path.join(folder, f"{kind}-*-a.json")))
        zero = {"floor": 0, "history": 0}
        print(f"\n{kind} pairs ({'run --quick' if kind == 'quick' else 'run --quick --only syscall,create,switch'}):")
        for a in found:
            b = a[:-7] + "-b.json"
            if not os.path.exists(b):
                continue
            name = os.path.basename(a)[:-7]
            for source, db in (("floor", os.path.join(folder, "no-history.sqlite")),
                               ("history", os.path.join(folder, "history.sqlite"))):
                code, breaches, counted = compare(binary, env, a, b, db, f"{name}.{source}")
                zero[source] += code == 0
                print(f"  {name} ({source}): exit {code}, {len(breaches)} breach(es)")
                if source == "history" and counted:
                    print(f"    {counted}")
                for line in breaches:
                    print(f"    {line}")
        n = len(found)
        summary.append(f"{kind}: exit 0 in {zero['floor']} of {n} pairs with the floor, "
                       f"{zero['history']} of {n} with the history")
    print("\n" + "\n".join(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
