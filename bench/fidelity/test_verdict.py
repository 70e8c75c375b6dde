"""Tests of verdict.py (the ratio, interval and TARGET line of the fidelity scripts), on known
inputs. Run: python3 -m unittest discover -s bench/fidelity -p 'test_*.py'"""

import io
import contextlib
import math
import unittest

from verdict import (Target, check, check_value, coverage, median_interval, paired_ratio,
                     parse_target_line, target_line)


class Interval(unittest.TestCase):
    def test_coverage_matches_the_binomial(self):
        self.assertAlmostEqual(coverage(5, 1), 1 - 2 / 32)
        self.assertAlmostEqual(coverage(6, 1), 1 - 2 / 64)
        self.assertAlmostEqual(coverage(10, 2), 1 - 2 * 11 / 1024)
        self.assertEqual(coverage(4, 3), 0.0)
        self.assertEqual(coverage(4, 0), 1.0)

    def test_five_values_give_no_95_percent_interval_and_six_do(self):
        # The same known values as concbench-stats' order_interval tests.
        self.assertIsNone(median_interval([1, 2, 3, 4, 5]))
        lo, hi = median_interval([6, 5, 4, 3, 2, 1])
        self.assertAlmostEqual(lo, 1.357, places=3)
        self.assertAlmostEqual(hi, 5.643, places=3)

    def test_interval_of_many_ranks_is_narrow_around_the_median(self):
        lo, hi = median_interval([float(i) for i in range(1, 102)])
        self.assertTrue(lo < 51 < hi)
        self.assertTrue(15 < hi - lo < 25, (lo, hi))

    def test_a_value_that_is_not_finite_gives_no_interval(self):
        self.assertIsNone(median_interval([1, 2, 3, 4, 5, math.nan]))


class PairedRatio(unittest.TestCase):
    def test_a_scaled_sample_gives_the_scale_exactly(self):
        ref = [float(i) for i in range(1, 11)]
        ratio, (lo, hi) = paired_ratio([3 * x for x in ref], ref)
        self.assertAlmostEqual(ratio, 3.0)
        self.assertAlmostEqual(lo, 3.0)
        self.assertAlmostEqual(hi, 3.0)

    def test_drift_shared_by_a_pair_cancels(self):
        # The machine runs 1.0x, 1.3x, 1.0x, ... in turn: the medians of each side mix the two
        # states, each pair's ratio does not.
        drift = [1.0, 1.3] * 4
        ours = [216 * d for d in drift]
        ref = [240 * d for d in drift]
        ratio, (lo, hi) = paired_ratio(ours, ref)
        self.assertAlmostEqual(ratio, 0.9)
        self.assertAlmostEqual(lo, 0.9)
        self.assertAlmostEqual(hi, 0.9)

    def test_unpaired_lists_are_refused(self):
        with self.assertRaises(ValueError):
            paired_ratio([1.0, 2.0], [1.0])
        with self.assertRaises(ValueError):
            paired_ratio([1.0], [0.0])


class Decide(unittest.TestCase):
    def test_within(self):
        t = Target.within(0.05)
        self.assertEqual(t.decide((0.96, 1.04)), "met")
        self.assertEqual(t.decide((0.90, 0.94)), "missed")
        self.assertEqual(t.decide((1.06, 1.20)), "missed")
        self.assertEqual(t.decide((0.93, 1.01)), "inconclusive")
        self.assertEqual(t.decide(None), "inconclusive")

    def test_at_least_and_under(self):
        self.assertEqual(Target.at_least(1).decide((1.0, 1.3)), "met")
        self.assertEqual(Target.at_least(1).decide((0.8, 0.99)), "missed")
        self.assertEqual(Target.at_least(1).decide((0.95, 1.1)), "inconclusive")
        self.assertEqual(Target.under(50, "ns").decide((1.2, 2.0)), "met")
        self.assertEqual(Target.under(50, "ns").decide((51, 60)), "missed")

    def test_no_target(self):
        self.assertEqual(Target.none().decide((0.5, 2.0)), "none")
        self.assertEqual(Target.none().decide(None), "none")


class Line(unittest.TestCase):
    def test_line_round_trips(self):
        line = target_line("syscall.getppid vs perf", Target.within(0.05), 0.984,
                           (0.951, 1.02), 7)
        self.assertEqual(line, "TARGET met: ratio 0.984 [0.951, 1.020] "
                               "(target within 5%; syscall.getppid vs perf; 7 rounds)")
        p = parse_target_line(line)
        self.assertEqual((p["outcome"], p["kind"], p["point"], p["lo"], p["hi"]),
                         ("met", "ratio", 0.984, 0.951, 1.02))
        self.assertEqual(p["target"], "target within 5%")
        self.assertEqual(p["label"], "syscall.getppid vs perf")

    def test_too_few_rounds_is_inconclusive_and_says_why(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            line = check("x vs y", [1.0] * 5, [1.0] * 5, Target.within(0.05))
        self.assertEqual(out.getvalue().strip(), line)
        p = parse_target_line(line)
        self.assertEqual((p["outcome"], p["lo"], p["hi"]), ("inconclusive", None, None))
        self.assertIn("needs 6", p["rounds"])

    def test_value_line(self):
        with contextlib.redirect_stdout(io.StringIO()):
            line = check_value("switch.coroutine", [1.8, 1.3, 2.2, 1.5, 1.9, 1.7],
                               Target.under(50, "ns"))
        p = parse_target_line(line)
        self.assertEqual((p["outcome"], p["kind"]), ("met", "value"))
        self.assertEqual(p["target"], "target under 50 ns")

    def test_a_label_with_the_separator_is_refused(self):
        with self.assertRaises(ValueError):
            target_line("a; b", Target.none(), 1.0, None, 3)

    def test_other_output_is_not_a_target_line(self):
        self.assertIsNone(parse_target_line("round 1/3: getppid 217.1 vs 249.5 ns"))


if __name__ == "__main__":
    unittest.main()
