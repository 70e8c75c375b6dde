#!/usr/bin/env python3
"""The README's picture of the product, redone from a current build: the HTML page's screenshot
(docs/report.png) and the first screen's excerpt between the README's `first-screen` markers.

    python3 bench/screenshot.py [--doc RUN.json] [--bin target/release/concbench]

Without --doc it measures a quick run first, in a home of its own (its own history, cache and
run lock: the user's are never touched). Then `concbench report DOC` (the first screen, 100
columns, cut after the verdicts) goes into README.md, and `concbench report DOC --html` is
photographed by headless Chromium into docs/report.png. Why a script: the page changes with the
product, and a picture two designs old (issue 44) misleads more than none.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEGIN = "<!-- first-screen: bench/screenshot.py writes this block -->"
END = "<!-- /first-screen -->"
VERDICT_LINES = 5  # of the verdicts, in the README's excerpt


def isolated_env(home: Path) -> dict:
    """The environment of a run that touches nothing of the user's."""
    env = dict(os.environ)
    env.update(
        HOME=str(home),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CACHE_HOME=str(home / "cache"),
        CONCBENCH_CACHE=str(home / "cache" / "concbench"),
        CONCBENCH_DB=str(home / "history.sqlite"),
        CONCBENCH_LOCK=str(home / "run.lock"),
        COLUMNS="100",
        NO_COLOR="1",
    )
    return env


def quick_run(binary: str, home: Path) -> Path:
    doc = home / "quick.json"
    print(f"measuring a quick run (about a minute) into {doc}", file=sys.stderr)
    subprocess.run(
        [binary, "run", "--quick", "--json", str(doc)],
        env=isolated_env(home),
        stdout=subprocess.DEVNULL,
        check=True,
    )
    return doc


def first_screen(binary: str, doc: Path, home: Path) -> str:
    """The terminal's answer for `doc`, up to and including the verdicts."""
    out = subprocess.run(
        [binary, "report", str(doc)],
        env=isolated_env(home),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines = out.rstrip("\n").split("\n")
    # Keep the unit table, the cards and the first verdicts: enough to read, short enough for
    # a README (the whole screen is one `concbench report` away).
    start = next(
        (i for i, line in enumerate(lines) if line.startswith("Verdicts")), len(lines)
    )
    end = min(start + 1 + VERDICT_LINES, len(lines))
    cut = "\n".join(lines[:end])
    return cut + "\n ..." if end < len(lines) else cut


def splice_readme(screen: str, doc: Path) -> None:
    readme = ROOT / "README.md"
    text = readme.read_text()
    if BEGIN not in text or END not in text:
        sys.exit(f"README.md has no {BEGIN} ... {END} block to fill")
    block = f"{BEGIN}\n```\n{screen}\n```\n{END}"
    text = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, text, flags=re.S)
    readme.write_text(text)
    print(f"README.md: first screen from {doc.name}", file=sys.stderr)


def photograph(binary: str, doc: Path, home: Path, out: Path) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        sys.exit("no chromium on PATH (Debian: apt-get install chromium): docs/report.png not redone")
    page = home / "report.html"
    subprocess.run(
        [binary, "report", str(doc), "--html", str(page)],
        env=isolated_env(home),
        capture_output=True,
        check=True,
    )
    subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1280,1600",
            f"--screenshot={out}",
            page.as_uri(),
        ],
        capture_output=True,
        check=True,
        timeout=120,
    )
    print(f"{out.relative_to(ROOT)}: the page of {doc.name}", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--doc", type=Path, help="a result document (default: measure a quick run)")
    ap.add_argument("--bin", default=str(ROOT / "target/release/concbench"))
    ap.add_argument("--out", type=Path, default=ROOT / "docs/report.png")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="concbench-screenshot-") as tmp:
        home = Path(tmp)
        doc = args.doc.resolve() if args.doc else quick_run(args.bin, home)
        splice_readme(first_screen(args.bin, doc, home), doc)
        photograph(args.bin, doc, home, args.out.resolve())


if __name__ == "__main__":
    main()
