"""Targets of the fidelity scripts: the paired ratio, its interval, and the one `TARGET` line
every script ends with (read by all.py).

The ratio is the median of the per-round ratios concbench / reference. Rounds are interleaved
(concbench, reference, concbench, ...), so a pair shares the machine's state and slow drift
cancels in its ratio. The interval is the distribution-free order-statistic interval of that
median, interpolated as Hettmansperger and Sheather (1986) proposed: the same method as
concbench's own (`crates/concbench-stats/src/order_interval.rs`, `paired_ratio`), so a fidelity
figure and a concbench verdict rest on the same statistics. Five values give no 95% interval
(even [min, max] covers the median only 93.75% of the time); six are the fewest.

Noise is the interval's job, never the target's: a target is met when the whole interval lies
within it, missed when the whole interval lies outside it, and inconclusive otherwise (more
rounds narrow the interval)."""

import math
import re
import statistics

LEVEL = 0.95
MIN_VALUES = 6


def coverage(n, k):
    """Coverage of [x_(k), x_(n-k+1)] (1-based order statistics): P(k <= B <= n-k), B ~ Bin(n, 1/2)."""
    if k == 0:
        return 1.0
    if 2 * k > n:
        return 0.0
    below = sum(math.comb(n, i) for i in range(k)) / 2 ** n
    return 1.0 - 2.0 * below


def median_interval(xs, level=LEVEL):
    """The interpolated order-statistic interval of the median of xs, or None when no pair of
    order statistics reaches `level` (fewer than six values at 95%) or a value is not finite."""
    n = len(xs)
    if n < 2 or not all(math.isfinite(x) for x in xs) or coverage(n, 1) < level:
        return None
    s = sorted(xs)
    k = 1
    while 2 * (k + 1) <= n and coverage(n, k + 1) >= level:
        k += 1
    gk, gk1 = coverage(n, k), coverage(n, k + 1)
    lam = 0.0
    if gk > gk1:
        i = (gk - level) / (gk - gk1)
        lam = (n - k) * i / (k + (n - 2 * k) * i)
    lo = (1 - lam) * s[k - 1] + lam * s[k]
    hi = (1 - lam) * s[n - k] + lam * s[n - k - 1]
    return min(lo, hi), max(lo, hi)


def paired_ratio(ours, ref):
    """(median of ours[i] / ref[i], its interval or None). Round i of both lists is one pair."""
    if len(ours) != len(ref) or not ours or any(r <= 0 for r in ref):
        raise ValueError(f"paired rounds need equal, non-empty lists and positive references: "
                         f"{len(ours)} vs {len(ref)} values")
    ratios = [a / b for a, b in zip(ours, ref)]
    return statistics.median(ratios), median_interval(ratios)


class Target:
    """What a comparison must show: `within(0.05)` (ratio in [0.95, 1.05]), `at_least(1.0)`
    (ratio >= 1) or `under(50, "ns")` (a value, not a ratio, below 50 ns); `none()` for a figure
    shown with its interval but no target."""

    def __init__(self, lo, hi, text):
        self.lo, self.hi, self.text = lo, hi, text

    @classmethod
    def within(cls, tolerance):
        return cls(1 - tolerance, 1 + tolerance, f"within {tolerance:.0%}")

    @classmethod
    def at_least(cls, bound):
        return cls(bound, math.inf, f">= {bound:g}")

    @classmethod
    def under(cls, bound, unit):
        return cls(-math.inf, bound, f"under {bound:g} {unit}")

    @classmethod
    def none(cls):
        return cls(None, None, "no target")

    def decide(self, interval):
        """'met', 'missed' or 'inconclusive' for an interval (None: too few rounds); 'none'
        when there is no target."""
        if self.lo is None:
            return "none"
        if interval is None:
            return "inconclusive"
        lo, hi = interval
        if self.lo <= lo and hi <= self.hi:
            return "met"
        if hi < self.lo or lo > self.hi:
            return "missed"
        return "inconclusive"


def target_line(label, target, point, interval, rounds, kind="ratio"):
    """The one-line summary: `TARGET met: ratio 0.984 [0.951, 1.020] (target within 5%; LABEL;
    7 rounds)`. `kind` is "ratio" (concbench / reference) or "value" (a figure alone)."""
    if ";" in label:
        raise ValueError(f"a TARGET label cannot hold ';' (it separates the fields): {label}")
    outcome = target.decide(interval)
    span = f"[{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "[-, -]"
    why = f"{rounds} rounds" if interval else f"{rounds} rounds, a 95% interval needs {MIN_VALUES}"
    goal = target.text if target.lo is None else f"target {target.text}"
    return f"TARGET {outcome}: {kind} {point:.3f} {span} ({goal}; {label}; {why})"


LINE = re.compile(r"^TARGET (met|missed|inconclusive|none): (ratio|value) (\S+) "
                  r"\[(\S+), (\S+)\] \((.*); (.*); (.*)\)$")


def parse_target_line(line):
    """The fields of a `target_line` (dict), or None when `line` is not one."""
    m = LINE.match(line.strip())
    if not m:
        return None
    outcome, kind, point, lo, hi, goal, label, rounds = m.groups()
    num = lambda s: None if s == "-" else float(s)
    return {"outcome": outcome, "kind": kind, "point": float(point), "lo": num(lo),
            "hi": num(hi), "target": goal, "label": label, "rounds": rounds}


def check(label, ours, ref, target):
    """Print and return the TARGET line of a paired comparison."""
    point, interval = paired_ratio(ours, ref)
    line = target_line(label, target, point, interval, len(ours))
    print(line)
    return line


def check_value(label, values, target):
    """Print and return the TARGET line of a figure with no reference (its median)."""
    line = target_line(label, target, statistics.median(values), median_interval(values),
                       len(values), kind="value")
    print(line)
    return line
