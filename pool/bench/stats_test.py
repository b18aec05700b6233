# SPDX-License-Identifier: MIT OR Apache-2.0
"""Checks of compare's statistics (stats.py), on made-up samples: the
interval is at par when both libraries draw from one distribution, and
says slower or faster when one is shifted by more than the noise; a pass
where one library is missing is left out of the pairs; a busy machine is
named. No timing is measured here (ctest bench.stats)."""
import random
import sys
import unittest

import stats


def noisy(rng, centre, spread, n):
    return [centre * (1 + rng.uniform(-spread, spread)) for _ in range(n)]


class RatioInterval(unittest.TestCase):
    def test_one_distribution_is_at_par(self):
        rng = random.Random(7)
        ours, theirs = noisy(rng, 100, 0.3, 12), noisy(rng, 100, 0.3, 12)
        point, lo, hi = stats.ratio_interval(ours, theirs)
        self.assertLessEqual(lo, 1.0)
        self.assertGreaterEqual(hi, 1.0)
        self.assertLess(lo, point)
        self.assertGreater(hi, point)
        self.assertEqual(stats.verdict((point, lo, hi)), "at par")

    def test_a_shift_beyond_the_noise_is_named(self):
        rng = random.Random(8)
        slow = stats.ratio_interval(noisy(rng, 130, 0.05, 12), noisy(rng, 100, 0.05, 12))
        fast = stats.ratio_interval(noisy(rng, 70, 0.05, 12), noisy(rng, 100, 0.05, 12))
        self.assertGreater(slow[1], 1.0)
        self.assertEqual(stats.verdict(slow), "slower")
        self.assertLess(fast[2], 1.0)
        self.assertEqual(stats.verdict(fast), "faster")

    def test_the_same_samples_give_the_same_interval(self):
        ours, theirs = [1.0, 1.2, 0.9, 1.1], [1.0, 1.0, 1.1, 0.95]
        self.assertEqual(stats.ratio_interval(ours, theirs), stats.ratio_interval(ours, theirs))

    def test_missing_passes_are_left_out(self):
        self.assertEqual(stats.ratio_interval([2.0, None], [1.0, 1.0]), (2.0, 2.0, 2.0))
        self.assertIsNone(stats.ratio_interval([None], [1.0]))
        self.assertEqual(stats.verdict(None), "-")


class Busy(unittest.TestCase):
    def test_each_reason_is_named(self):
        quiet = stats.busy_reasons(0.1, {"steal_share": 0.0, "other_share": 0.01})
        self.assertEqual(quiet, [])
        loud = stats.busy_reasons(3.0, {"steal_share": 0.1, "other_share": 0.4})
        self.assertEqual(len(loud), 3)
        self.assertIn("load average 3.00", loud[0])
        self.assertIn("40.0 %", loud[1])
        self.assertIn("steal time 10.0 %", loud[2])

    def test_the_machine_is_read(self):
        watch = stats.MachineWatch().finish()
        self.assertIn("steal_share", watch)
        self.assertNotEqual(stats.cpu_model(), "")


if __name__ == "__main__":
    sys.exit(unittest.main())
