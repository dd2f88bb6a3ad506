#!/usr/bin/env python3
"""tools/device/alternation_table.py on a hand-made table (expected values worked out by hand in the comments)."""
import unittest

from script_runner import run_on_text

ROUNDS = """\
A rep 1: 100.0 200.0 300.0 | 4 slots 400.0
B rep 1: 110.0 190.0 300.0 | 4 slots 420.0
t=10
B rep 2: 100.0 210.0 310.0 | 4 slots 410.0
A rep 2: 105.0 200.0 300.0 | 4 slots 400.0
A rep 3: 90.0 200.0 300.0 | 4 slots 400.0
B rep 3: 95.0 220.0 320.0 | 4 slots 430.0
A rep 4: 120.0 200.0 300.0 | 4 slots 400.0
B rep 4: | 4 slots
"""


def run(*args):
    return run_on_text("device/alternation_table.py", ROUNDS, ".txt", *args)


class AlternationTable(unittest.TestCase):
    def test_medians_over_each_variants_complete_runs(self):
        out = run("A", "B")
        # A, 1 row: 100, 105, 90, 120 -> (100 + 105) / 2; B's rep 4 has no numbers: 110, 100, 95 -> 100.
        self.assertRegex(out, r"\nA +102\.5 +200\.0 +300\.0 +400\.0 +4\n")
        self.assertRegex(out, r"\nB +100\.0 +210\.0 +310\.0 +420\.0 +3\n")

    def test_pairs_only_the_shared_repetitions(self):
        out = run("A", "B")
        self.assertIn("A against B, 3 repetitions:", out)
        # 1 row: 100 < 110 yes, 105 < 100 no, 90 < 95 yes: 2 of 3. Differences -9.09%, +5%, -5.26%: median -5.26%.
        # Sign test: the smaller tail P(X <= 1) of Binomial(3, 1/2) = 4/8, doubled: 1.
        self.assertRegex(out, r"1 row +faster in +2 of 3, median paired difference +-5\.26%, sign test p = 1\.000")
        # 4 slots: 400 < 420, 400 < 410, 400 < 430: 3 of 3; p = 2 x 1/8 = 0.25; differences -4.76, -2.44, -6.98.
        self.assertRegex(out, r"4 slots +faster in +3 of 3, median paired difference +-4\.76%, sign test p = 0\.250")
        # 16 rows: 300 < 300 is a tie, not a win: 2 of 3 (310, 320).
        self.assertRegex(out, r"16 rows +faster in +2 of 3")

    def test_every_variant_in_first_appearance_order_when_none_named(self):
        out = run()
        self.assertIn("A against B, 3 repetitions:", out)


if __name__ == "__main__":
    unittest.main()
