# SPDX-License-Identifier: MIT OR Apache-2.0
"""The statistics and machine checks behind `compare`.

A ratio wsstress / rayon-core is reported with a bootstrap 95 % interval over
the passes: the passes are resampled with replacement (both libraries' values
of a pass together, since they ran side by side), the ratio of the medians is
taken each time, and the 2.5th and 97.5th percentiles bound it. The verdict
says "at par" only when the interval contains 1.00. The machine checks read
/proc: the CPU model, the load before the run, and, over the run, the steal
time and the CPU that processes other than the benchmark used, so a table
taken on a busy machine says so. Tested by stats_test.py (ctest bench.stats).
"""
import os
import random
import statistics
import time

RESAMPLES = 4000


def ratio_interval(ours, theirs, seed=1, resamples=RESAMPLES):
    """(ratio of medians, low, high) of ours/theirs over paired passes."""
    pairs = [(a, b) for a, b in zip(ours, theirs) if a is not None and b]
    if not pairs:
        return None
    point = statistics.median(a for a, _ in pairs) / statistics.median(b for _, b in pairs)
    if len(pairs) < 2:
        return point, point, point
    rng = random.Random(seed)  # a fixed seed: the same samples give the same interval
    ratios = []
    for _ in range(resamples):
        pick = [pairs[rng.randrange(len(pairs))] for _ in pairs]
        ratios.append(statistics.median(a for a, _ in pick) / statistics.median(b for _, b in pick))
    ratios.sort()
    lo = ratios[int(0.025 * (len(ratios) - 1))]
    hi = ratios[int(0.975 * (len(ratios) - 1))]
    return point, lo, hi


def verdict(interval, lower_is_better=True):
    """'at par', 'faster' or 'slower' for wsstress, from a ratio interval."""
    if interval is None:
        return "-"
    _, lo, hi = interval
    if lo <= 1.0 <= hi:
        return "at par"
    better = hi < 1.0 if lower_is_better else lo > 1.0
    return "faster" if better else "slower"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def load_average():
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def cpu_jiffies():
    """(busy, steal, total) jiffies of all CPUs from /proc/stat's first line."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal guest guest_nice
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    steal = fields[7] if len(fields) > 7 else 0
    total = sum(fields[:8])
    return total - idle - steal, steal, total


def children_cpu_seconds():
    t = os.times()
    return t.children_user + t.children_system


class MachineWatch:
    """The CPU others used while the benchmark ran, and the steal time."""

    def __init__(self):
        self.start = cpu_jiffies()
        self.children = children_cpu_seconds()
        self.wall = time.monotonic()

    def finish(self):
        end = cpu_jiffies()
        if self.start is None or end is None:
            return {"steal_share": None, "other_share": None}
        hz = os.sysconf("SC_CLK_TCK")
        busy = (end[0] - self.start[0]) / hz
        steal = end[1] - self.start[1]
        total = max(end[2] - self.start[2], 1)
        ours = children_cpu_seconds() - self.children
        capacity = (time.monotonic() - self.wall) * (os.cpu_count() or 1)
        other = max(busy - ours, 0.0) / capacity if capacity > 0 else None
        return {"steal_share": steal / total, "other_share": other}


# A run is flagged busy above these: 5 % of the machine used by others, or 2 % stolen.
OTHER_LIMIT = 0.05
STEAL_LIMIT = 0.02
# Before starting: a 1-minute load average above this means something else runs.
LOAD_LIMIT = 0.5


def busy_reasons(load_before, watch):
    reasons = []
    if load_before is not None and load_before > LOAD_LIMIT:
        reasons.append(f"load average {load_before:.2f} before the run (above {LOAD_LIMIT})")
    if watch.get("other_share") is not None and watch["other_share"] > OTHER_LIMIT:
        reasons.append(f"other processes used {watch['other_share'] * 100:.1f} % of the CPUs during the run")
    if watch.get("steal_share") is not None and watch["steal_share"] > STEAL_LIMIT:
        reasons.append(f"steal time {watch['steal_share'] * 100:.1f} % during the run")
    return reasons
