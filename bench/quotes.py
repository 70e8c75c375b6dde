#!/usr/bin/env python3
"""Check that every quotation in data/published.toml is literal: found verbatim in the seed
articles (their Chinese originals).

Usage: python3 bench/quotes.py SEEDS_DIR   (the directory of the seeds' .txt files)

A quotation is text in 「…」, or an escaped "…" holding Chinese; one written with "..." or "……"
between its parts is checked part by part. Prints each quotation that is not literal (full-width
punctuation where a seed prints ASCII is the usual cause) and exits 1 if any is.
"""
import re
import sys
from pathlib import Path

PUBLISHED = Path(__file__).resolve().parent.parent / "data" / "published.toml"


def quotations(text):
    brackets = re.findall(r"「(.*?)」", text)
    escaped = [q for q in re.findall(r'\\"(.*?)\\"', text) if re.search(r"[\u4e00-\u9fff]", q)]
    return sorted(set(brackets + escaped))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    seeds = "".join(p.read_text() for p in sorted(Path(sys.argv[1]).glob("*.txt")))
    if not seeds:
        sys.exit(f"no seed articles (*.txt) in {sys.argv[1]}")
    bad = 0
    quoted = quotations(PUBLISHED.read_text())
    for q in quoted:
        parts = [p for p in re.split(r"\.\.\.|…+", q) if p.strip()]
        missing = [p for p in parts if p not in seeds]
        if missing:
            bad += 1
            print(f"not literal: 「{q}」 (not in the seeds: {missing[0]!r})")
    print(f"{len(quoted)} quotations, {bad} not literal")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
