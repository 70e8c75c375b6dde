#!/usr/bin/env bash
# The CI job of docs/CI.md, run against two stored result documents: compare them with the gate,
# write the JSON and the markdown a review comment gets, export both runs for Bencher and
# benchstat — and check the exit codes the job relies on.
#
#   bench/ci-gate.sh                      # the SYNTHETIC fixture against itself (must pass) and
#                                           # against a copy with the create family 1.5x slower
#                                           # (must fail naming those results)
#   bench/ci-gate.sh BASELINE.json CURRENT.json   # two real runs: prints the gate's verdict
#
# CONCBENCH names the binary (default: target/debug/concbench, built if missing). OUT keeps the
# files written (default: a temporary folder, removed at exit). benchstat reads the exports
# when `go` is on PATH (go run golang.org/x/perf/cmd/benchstat@latest; skipped without Go).
set -euo pipefail
cd "$(dirname "$0")/.."

CONCBENCH=${CONCBENCH:-target/debug/concbench}
[ -x "$CONCBENCH" ] || cargo build -q -p concbench
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
else
  OUT=$(mktemp -d)
  trap 'rm -rf "$OUT"' EXIT
fi

# The job's gate step, as docs/CI.md shows it. Returns compare's exit code.
gate() {
  local baseline=$1 current=$2 name=$3
  local code=0
  "$CONCBENCH" compare "$baseline" "$current" \
    --fail-if 'slower>10%' --fail-if verdict-changed \
    --json "$OUT/$name.compare.json" --markdown "$OUT/$name.compare.md" || code=$?
  return "$code"
}

# The job's export step: both runs in the formats Bencher and benchstat read.
export_runs() {
  local baseline=$1 current=$2
  "$CONCBENCH" report "$current" --format bencher > "$OUT/current.bmf.json"
  "$CONCBENCH" report "$baseline" --format benchstat > "$OUT/baseline.bench.txt"
  "$CONCBENCH" report "$current" --format benchstat > "$OUT/current.bench.txt"
  if command -v go >/dev/null 2>&1; then
    echo "== benchstat baseline.bench.txt current.bench.txt (first lines)"
    go run golang.org/x/perf/cmd/benchstat@latest \
      "$OUT/baseline.bench.txt" "$OUT/current.bench.txt" > "$OUT/benchstat.txt"
    head -n 12 "$OUT/benchstat.txt"
  else
    echo "== go not found: benchstat not run (the exports are in $OUT)"
  fi
}

expect() {
  local want=$1 got=$2 what=$3
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $what exited $got, expected $want" >&2
    exit 1
  fi
  echo "ok: $what exited $got"
}

if [ $# -eq 2 ]; then
  code=0
  gate "$1" "$2" real || code=$?
  echo "== markdown for the review comment ($(wc -l < "$OUT/real.compare.md") lines):"
  cat "$OUT/real.compare.md"
  export_runs "$1" "$2"
  exit "$code"
fi
[ $# -eq 0 ] || { echo "usage: $0 [BASELINE.json CURRENT.json]" >&2; exit 2; }

fixture=crates/concbench-report/tests/fixtures/synthetic-all-families.json
# One family's figures times 1.5: what a 50% regression of process creation looks like.
python3 bench/scale-family.py "$fixture" create 1.5 "$OUT/slower.json"

code=0; gate "$fixture" "$fixture" same || code=$?
expect 0 "$code" "A/A compare --fail-if 'slower>10%'"
code=0; gate "$fixture" "$OUT/slower.json" slower 2> "$OUT/slower.stderr" || code=$?
cat "$OUT/slower.stderr"
expect 1 "$code" "compare of a copy with create x1.5"
n=$(grep -c 'breach (B against A): slower>10%: create\.' "$OUT/slower.stderr" || true)
[ "$n" -gt 0 ] || { echo "FAIL: no create result named" >&2; exit 1; }
echo "ok: $n create results named"
grep -q '"passed": false' "$OUT/slower.compare.json" || { echo "FAIL: JSON says passed" >&2; exit 1; }
echo "== markdown for the review comment ($(wc -l < "$OUT/slower.compare.md") lines):"
cat "$OUT/slower.compare.md"
export_runs "$fixture" "$OUT/slower.json"
echo "ok: the CI job's commands behave as docs/CI.md says"
