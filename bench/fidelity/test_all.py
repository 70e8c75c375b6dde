"""Tests of all.py's table (no script is run). Run: python3 -m unittest discover -s bench/fidelity -p 'test_*.py'"""

import re
import unittest

from all import table
from verdict import Target, parse_target_line, target_line


class Table(unittest.TestCase):
    def test_rows_of_targets_and_of_a_script_that_did_not_run(self):
        met = parse_target_line(target_line("getppid vs perf", Target.within(0.05), 0.99, (0.97, 1.01), 7))
        few = parse_target_line(target_line("coroutine", Target.under(50, "ns"), 1.8, None, 3, kind="value"))
        text = table([("create", (0, [met], "TARGET ...", 60.0)),
                      ("switch", (0, [few], "TARGET ...", 20.0)),
                      ("io", (1, [], "fio is missing: apt-get install fio", 0.2))])
        cells = [re.split(r"\s{2,}", line) for line in text.splitlines()]
        self.assertEqual(cells[0], ["script", "comparison", "ratio", "95% interval", "target", "outcome"])
        self.assertEqual(cells[1], ["create", "getppid vs perf", "0.990", "[0.970, 1.010]", "within 5%", "met"])
        self.assertEqual(cells[2], ["switch", "coroutine", "1.800 (value)", "3 rounds, a 95% interval needs 6",
                                    "under 50 ns", "inconclusive"])
        self.assertEqual(cells[3], ["io", "not run (exit 1, 0 s): fio is missing: apt-get install fio"])


if __name__ == "__main__":
    unittest.main()
