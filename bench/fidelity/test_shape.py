"""Tests of the same-shape fork reference: common.py's parsing of create.fork's recorded shape and
of fork_loop.c's output, and fork_loop.c itself growing to a shape (compiled when `cc` is
there). Run: python3 -m unittest discover -s bench/fidelity -p 'test_*.py'"""

import os
import shutil
import subprocess
import tempfile
import unittest

from common import operations_timed, parent_shape, parse_fork_loop

HERE = os.path.dirname(os.path.abspath(__file__))


def result(rounds, iterations=40):
    return {"iterations": iterations, "rounds": rounds}


class Shape(unittest.TestCase):
    def test_the_shape_is_the_first_clean_rounds(self):
        r = result([
            {"pass": 2, "counters": {"parent_anon_kib": 900.0, "parent_vmas": 40.0}},
            {"pass": 0, "excluded": "interference", "counters": {"parent_anon_kib": 1.0, "parent_vmas": 1.0}},
            {"pass": 1, "counters": {"parent_anon_kib": 388.4, "parent_vmas": 35.0}},
        ])
        self.assertEqual(parent_shape(r), (388, 35))

    def test_a_build_without_the_counters_has_no_shape(self):
        self.assertIsNone(parent_shape(result([{"pass": 0, "counters": {"minor_faults_per_op": 9.0}}])))
        self.assertIsNone(parent_shape(result([{"pass": 0}])))

    def test_operations_timed_are_iterations_times_samples(self):
        self.assertEqual(operations_timed(result([{"pass": 0, "iterations": 45, "samples": 5}])), 225)
        self.assertEqual(operations_timed(result([{"pass": 0}], iterations=7)), 7)

    def test_fork_loop_output_is_time_and_shape(self):
        out = parse_fork_loop("236656.8 392 52 35\n")
        self.assertAlmostEqual(out.pop("us"), 236.6568)
        self.assertEqual(out, {"anon_kib": 392.0, "pte_kib": 52.0, "vmas": 35.0})

    def test_fork_loop_output_of_another_form_ends_the_script(self):
        with self.assertRaises(SystemExit):
            parse_fork_loop("236656.8\n")


@unittest.skipUnless(shutil.which("cc") and os.path.exists("/proc/self/status"), "needs cc and Linux")
class ForkLoop(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.binary = os.path.join(cls.dir.name, "fork_loop")
        subprocess.run(["cc", "-O2", "-o", cls.binary, os.path.join(HERE, "fork_loop.c")], check=True)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def fork_loop(self, *args):
        out = subprocess.run([self.binary, *map(str, args)], capture_output=True, text=True, check=True)
        return parse_fork_loop(out.stdout)

    def test_it_grows_to_the_anonymous_memory_and_mappings_asked(self):
        plain = self.fork_loop(20)
        want_anon, want_vmas = int(plain["anon_kib"]) + 512, int(plain["vmas"]) + 10
        grown = self.fork_loop(20, want_anon, want_vmas)
        self.assertGreater(plain["us"], 0)
        # Grown a page at a time (a malloc block of a page spans two).
        self.assertGreaterEqual(grown["anon_kib"], want_anon)
        self.assertLess(grown["anon_kib"], want_anon + 16)
        self.assertGreaterEqual(grown["vmas"], want_vmas)
        self.assertLessEqual(grown["vmas"], want_vmas + 2)

    def test_with_samples_it_reports_a_median_of_sample_means_of_the_same_shape(self):
        # 0 0: no growth; 4 samples of 5 forks after a warm-up of 5. The time is a machine's, so
        # only its form and the shape are checked.
        plain, sampled = self.fork_loop(20), self.fork_loop(20, 0, 0, 4)
        self.assertGreater(sampled["us"], 0)
        self.assertEqual(sampled["vmas"], plain["vmas"])
        self.assertLess(abs(sampled["anon_kib"] - plain["anon_kib"]), 16)

if __name__ == "__main__":
    unittest.main()
