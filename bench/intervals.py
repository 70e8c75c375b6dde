#!/usr/bin/env python3
"""Every interval of concbench's documents and screens, held to what its quantity can be: no
negative bound on a time, a memory size or a ratio of positive quantities (issue 40).

Usage: python3 bench/intervals.py [--concbench BIN] RUN.json [RUN.json ...]

For each result document:
  * the JSON: every result's median and ci95 (and overhead.difference / difference_ci95), every
    check's estimate, ci95 and boundary, every pooled check's estimate and ci95, every drift
    entry's own_ci95 — in a unit that cannot be negative (ns, us, ms, s, KiB, MiB, B, x, .../s);
  * the screens, rendered by the build given (default target/release/concbench): the terminal
    (`report FILE --all`), the markdown and the HTML page: every figure written "2.65 µs
    [2.61, 2.70]", "0.53x [-0.30, 1.84]" or "[lo, hi] µs" whose bound is negative.
A difference's min/max/mean (over its rounds' differences) may be below zero and are not read;
shares and counts (a difference of two iowait shares) may be negative and are not read either.
Prints each negative bound found with where it is; exits 1 if there is any.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

TIME = {"ns", "us", "µs", "ms", "s"}
SIZE = {"KiB", "MiB", "GiB", "B", "bytes"}


def cannot_be_negative(unit):
    return unit in TIME or unit in SIZE or unit == "x" or unit.endswith("/s")


def negative(values):
    return [v for v in values if isinstance(v, (int, float)) and v < 0]


def pair(x):
    return x if isinstance(x, list) and len(x) == 2 else []


def json_findings(doc):
    found = []
    for r in doc.get("results", []):
        unit = r.get("unit", "")
        if not cannot_be_negative(unit):
            continue
        where = f"result {r['id']} {json.dumps(r.get('params', {}), sort_keys=True)}"
        bad = negative([r.get("median")] + pair(r.get("ci95")))
        o = r.get("overhead") or {}
        bad += negative([o.get("difference")] + pair(o.get("difference_ci95")))
        if bad:
            found.append(f"{where}: {bad} {unit}")
    for v in doc.get("verdicts", []):
        for c in v.get("checks", []):
            if cannot_be_negative(c.get("unit", "")):
                bad = negative([c.get("estimate")] + pair(c.get("ci95")) + pair(c.get("boundary")))
                if bad:
                    found.append(f"check {v['source']} / {c['condition']}: {bad} {c['unit']}")
    history = doc.get("history") or {}
    for v in history.get("verdicts", []):
        for c in v.get("checks", []):
            if cannot_be_negative(c.get("unit", "")):
                bad = negative([c.get("estimate")] + pair(c.get("ci95")))
                if bad:
                    found.append(f"pooled check {v['source']} / {c['condition']}: {bad} {c['unit']}")
    for d in history.get("drift", []):
        bad = negative(pair(d.get("own_ci95")))
        if bad:
            found.append(f"drift {d['id']}: {bad}")
    return found


NUMBER = r"[-+]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?"
UNIT = r"(?:ns|µs|us|ms|s|KiB|MiB|GiB|B|x|[A-Za-z]+/s)"
# "2.65 µs [2.61, 2.70]", "0.53x [-0.30, 1.84]", "12.0 KiB [5.18, 29.0]".
FIGURE_THEN_INTERVAL = re.compile(rf"({NUMBER})\s?({UNIT})\s*\[\s*({NUMBER}),\s*({NUMBER})\s*\]")
# "[2.61, 2.70] µs" (an interval cell, its unit after it).
INTERVAL_THEN_UNIT = re.compile(rf"\[\s*({NUMBER}),\s*({NUMBER})\s*\]\s?({UNIT})\b")


def to_float(text):
    return float(text.replace(",", ""))


def text_findings(text, where):
    found = []
    for m in FIGURE_THEN_INTERVAL.finditer(text):
        lo, hi = to_float(m.group(3)), to_float(m.group(4))
        if lo < 0 or hi < 0:
            found.append(f"{where}: {m.group(0)}")
    for m in INTERVAL_THEN_UNIT.finditer(text):
        lo, hi = to_float(m.group(1)), to_float(m.group(2))
        if lo < 0 or hi < 0:
            found.append(f"{where}: {m.group(0)}")
    return found


def screens(binary, path):
    """The terminal (--all), the markdown and the HTML page of one document, as text."""
    out = {}
    env = dict(os.environ, COLUMNS="200")
    with tempfile.TemporaryDirectory() as tmp:
        term = subprocess.run([binary, "report", path, "--all"], capture_output=True, text=True, env=env)
        out["terminal"] = term.stdout
        md, html = os.path.join(tmp, "r.md"), os.path.join(tmp, "r.html")
        subprocess.run([binary, "report", path, "--markdown", md, "--html", html],
                       capture_output=True, text=True, env=env)
        for name, f in (("markdown", md), ("html", html)):
            if os.path.exists(f):
                text = open(f, encoding="utf-8").read()
                if name == "html":
                    text = re.sub(r"<[^>]+>", " ", text).replace("&#x2f;", "/").replace("&#x27;", "'")
                out[name] = text
    return out


def main(args):
    binary = "target/release/concbench"
    if args[:1] == ["--concbench"]:
        binary, args = args[1], args[2:]
    if not args:
        print(__doc__)
        return 2
    total = 0
    for path in args:
        with open(path) as f:
            doc = json.load(f)
        if doc.get("schema") != "concbench/result/v1":
            print(f"{path}: not a result document (schema {doc.get('schema')!r}), skipped")
            continue
        found = json_findings(doc)
        if os.path.exists(binary):
            for name, text in screens(binary, path).items():
                found += text_findings(text, name)
        else:
            print(f"warning: {binary} not found: the screens of {path} were not read")
        total += len(found)
        print(f"{path}: {len(found)} negative bound(s) on a time, size or ratio")
        for f in found:
            print(f"  {f}")
    print(f"\n{total} in {len(args)} document(s)")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
