#!/usr/bin/env python3
"""Fidelity of io.read (issue 5), side by side in one run, on the same directory:
  * concbench `io.read` model=threads, cold, 4 files x 128 MiB, 4 KiB reads (the point the full
    sweep carries for this comparison, selected with --where);
  * fio --rw=read --numjobs=4 --thread --size=128m --invalidate=1, with its defaults spelled out
    (--bs=4k --ioengine=psync) and --group_reporting for the aggregate bandwidth.
Both drop the files' cached pages with POSIX_FADV_DONTNEED before reading (fio: --invalidate=1).
Rounds alternate (concbench, fio, concbench, ...) so drift hits both alike; the target is MiB/s
within 15%.
Usage: bench/fidelity/io.py [ROUNDS] [DIR]   (DIR on a disk, default /var/tmp; needs fio:
apt-get install fio)"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

from common import build, concbench, find, report, require

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
base = sys.argv[2] if len(sys.argv) > 2 else "/var/tmp"
require("fio", "apt-get install fio")
build()
work = tempfile.mkdtemp(prefix="concbench-fidelity-io-", dir=base)
fio_dir = os.path.join(work, "fio")
os.mkdir(fio_dir)
FIO = ["fio", "--name=cbfio", f"--directory={fio_dir}", "--rw=read", "--numjobs=4", "--thread",
       "--size=128m", "--invalidate=1", "--bs=4k", "--ioengine=psync", "--group_reporting",
       "--output-format=json"]

ours, theirs, shares = [], [], []
try:
    # Lay fio's files out once (the first fio run writes them) so no round pays for creation.
    subprocess.run(FIO, check=True, capture_output=True)
    for r in range(rounds):
        # --keep-io-files: concbench's data directory under `work` is reused by the next round.
        doc = concbench("io.read", ["--where", "files=4", "--where", "file_mib=128",
                                    "--io-dir", work, "--keep-io-files"])
        res = find(doc, "io.read", model="threads", files=4, file_mib=128, cache="cold")
        ours.append(res["counters"]["mib_per_s"])
        shares.append(res["counters"].get("device_read_share", float("nan")))
        out = subprocess.run(FIO, check=True, capture_output=True, text=True).stdout
        theirs.append(json.loads(out)["jobs"][0]["read"]["bw"] / 1024)
        print(f"round {r + 1}/{rounds}: concbench {ours[-1]:.0f} MiB/s (device share "
              f"{shares[-1]:.2f}) vs fio {theirs[-1]:.0f} MiB/s", file=sys.stderr)
finally:
    shutil.rmtree(work, ignore_errors=True)

report([("io.read threads 4x128MiB cold vs fio", ours, theirs, "MiB/s")])
ratio = sorted(ours)[len(ours) // 2] / sorted(theirs)[len(theirs) // 2]
print(f"within 15%: {'yes' if abs(ratio - 1) <= 0.15 else 'NO'} (ratio of medians {ratio:.3f})")
