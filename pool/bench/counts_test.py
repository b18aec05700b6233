# SPDX-License-Identifier: MIT OR Apache-2.0
"""Tests of counts.py's reading of perf's output and its differencing, on made-up text (no perf run)."""
import unittest

import counts

PERF = """5000,,syscalls:sys_enter_futex,1000,100.00,,
12,,syscalls:sys_enter_sched_yield,1000,100.00,,
4000,,sched:sched_switch,1000,100.00,,
2000,,sched:sched_wakeup,1000,100.00,,
250.5,msec,task-clock,250500000,100.00,1.9,CPUs utilized
"""


class CountsTest(unittest.TestCase):
    def test_parse_reads_every_event_and_turns_ms_into_us(self):
        c = counts.parse_perf(PERF)
        self.assertEqual(c["syscalls:sys_enter_futex"], 5000)
        self.assertEqual(c["sched:sched_wakeup"], 2000)
        self.assertAlmostEqual(c["task-clock"], 250500)

    def test_an_uncounted_event_is_an_error(self):
        with self.assertRaises(SystemExit):
            counts.parse_perf(PERF.replace("12,,syscalls", "<not supported>,,syscalls"))
        with self.assertRaises(SystemExit):
            counts.parse_perf("\n".join(PERF.splitlines()[:-1]))

    def test_per_op_cancels_fixed_costs(self):
        # 7 futex calls of setup plus 5 per iteration: the difference says 5.
        def fake(cmd):
            n = int(cmd[-1])
            return {e: (7 + 5 * n if e == "syscalls:sys_enter_futex" else 3.0) for e, _ in counts.EVENTS}
        per = counts.per_op(lambda n: ["prog", str(n)], 1000, count=fake)
        self.assertAlmostEqual(per["syscalls:sys_enter_futex"], 5.0)
        self.assertAlmostEqual(per["task-clock"], 0.0)


if __name__ == "__main__":
    unittest.main()
