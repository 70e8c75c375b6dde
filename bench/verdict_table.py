#!/usr/bin/env python3
"""Each claim's sentence, its deciding rules (now, and at an earlier revision), and its verdict in
each of several runs: the table a change to `data/published.toml` is reviewed with.

Usage: python3 bench/verdict_table.py [--before REV] [--claims ID,ID..] [--changed] RUN.json..

  --before REV   also show each claim's deciding rules in data/published.toml at git revision REV
                 ("new" for a claim that did not exist there)
  --claims IDS   only these claims (comma-separated ids)
  --changed      only the claims whose text or deciding rules differ from --before
  --text N       cut each claim's sentence to its first N characters (default: whole)

Prints a markdown table, runs oldest first: "partly: X" is a verdict some deciding check of which
the run did not measure (or measured only by a stand-in); "-" a claim the run did not judge;
"not judged" a claim `data/published.toml` lists as not judged here. The rules are the first
check of each facet (the article's own program) and every check without one, beside checks left
out: "thread / process less 1.119 (COUNT 5, 10, 50, 100)".
"""
import argparse
import os
import subprocess
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stability import PUBLISHED, load  # noqa: E402

NUMBER = {"greater": "min_effect", "less": "min_effect", "equivalent": "margin",
          "about": "band", "at_least": "bound", "at_most": "bound"}


def rule_text(check):
    """'thread / process less 1.119 (count 5, 10, 50, 100)'."""
    number = check.get(NUMBER.get(check["rule"], ""), "?")
    if isinstance(number, list):
        number = "[" + ", ".join(f"{x:g}" for x in number) + "]"
    text = f'{check["quantity"]} {check["rule"]} {number}'
    takes = {sel.get("take", "reported")
             for spec in check.get("use", {}).values()
             for sel in (spec if isinstance(spec, list) else [spec])}
    if takes != {"reported"}:
        text += " [" + "/".join(sorted(takes)) + "]"
    only = ", ".join(f'{k} {", ".join(str(v) for v in vals)}'
                     for k, vals in check.get("for_values", {}).items())
    return f"{text} ({only})" if only else text


def deciding_rules(claim):
    """The rules of the checks that decide the claim when everything is measured."""
    if claim.get("unjudged"):
        return ["not judged"]
    seen, out = set(), []
    for c in claim.get("check", []):
        if not c.get("decides", True):
            continue
        facet = c.get("facet")
        if facet is not None:
            if facet in seen:
                continue
            seen.add(facet)
        out.append(rule_text(c))
    return list(dict.fromkeys(out))


def claims_at(rev):
    """{id: claim} of data/published.toml, at a git revision or as it stands."""
    if rev is None:
        text = PUBLISHED.read_text()
    else:
        root = PUBLISHED.parent.parent
        text = subprocess.run(["git", "-C", str(root), "show", f"{rev}:data/published.toml"],
                              check=True, capture_output=True, text=True).stdout
    return {c["id"]: c for c in tomllib.loads(text).get("claim", [])}


def verdict_cell(doc, claim_id, unjudged):
    if unjudged:
        return "not judged"
    for v in doc.get("verdicts", []):
        if v["source"] == claim_id:
            return f'partly: {v["verdict"]}' if v.get("unmeasured") else v["verdict"]
    return "-"


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", help="result documents (concbench run --json)")
    ap.add_argument("--before", help="git revision to show the deciding rules at")
    ap.add_argument("--claims", help="only these claim ids, comma-separated")
    ap.add_argument("--changed", action="store_true", help="only claims changed since --before")
    ap.add_argument("--text", type=int, default=0, help="cut each sentence to N characters")
    args = ap.parse_args()
    if args.changed and not args.before:
        ap.error("--changed needs --before REV")
    now = claims_at(None)
    before = claims_at(args.before) if args.before else None
    docs = load(args.runs)
    wanted = args.claims.split(",") if args.claims else list(now)
    header = ["claim", "what it judges now", "rules now"]
    if before is not None:
        header.append(f"rules at {args.before}")
    header += [Path(p).name for p, _ in docs]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for cid in wanted:
        claim = now.get(cid)
        if claim is None:
            sys.exit(f"no claim {cid} in {PUBLISHED}")
        rules = deciding_rules(claim)
        text = claim["text"]
        if args.text and len(text) > args.text:
            text = text[: args.text].rstrip() + "…"
        row = [cid, cell(text), cell("; ".join(rules))]
        if before is not None:
            old = before.get(cid)
            old_rules = deciding_rules(old) if old else ["new"]
            if args.changed and old and old["text"] == claim["text"] and old_rules == rules:
                continue
            row.append(cell("; ".join(old_rules)))
        row += [verdict_cell(d, cid, bool(claim.get("unjudged"))) for _, d in docs]
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
