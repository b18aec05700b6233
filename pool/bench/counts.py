# SPDX-License-Identifier: MIT OR Apache-2.0
"""Per-operation event counts of wsstress's pool and rayon-core 1.10.1, side by side.

Issue #43 item 2: where a microsecond row's time goes is hard to see in wall
time on a shared 2-vCPU VM, but how many futex calls, yields, context switches
and wake-ups each operation makes is a count, not a time. Each program runs one
workload for exactly N and then 2N iterations under `perf stat` (software
events and tracepoints, which a VM without hardware counters still has); the
difference divided by N is the per-operation cost with every fixed cost (pool
start, warm-up, the other workloads' setup) cancelled. Passes alternate the
programs, and the table gives each count's median over the passes.

Called by `counts` (next to `compare`, which builds the programs).
"""
import argparse
import os
import statistics
import subprocess
import sys

import stats

EVENTS = [
    ("syscalls:sys_enter_futex", "futex calls"),
    ("syscalls:sys_enter_sched_yield", "sched_yield calls"),
    ("sched:sched_switch", "context switches"),
    ("sched:sched_wakeup", "wake-ups"),
    ("task-clock", "CPU µs"),
]


def fail(msg):
    print(f"counts: error: {msg}", file=sys.stderr)
    sys.exit(2)


def parse_perf(text):
    """{event: value} from `perf stat -x ,` output (task-clock turned from ms into µs)."""
    out = {}
    for line in text.splitlines():
        f = line.split(",")
        if len(f) >= 3 and f[2] in dict(EVENTS):
            if f[0].startswith("<"):
                fail(f"perf cannot count {f[2]} here ({f[0]}); run as root with tracepoints enabled")
            value = float(f[0])
            out[f[2]] = value * 1e3 if f[2] == "task-clock" else value
    missing = [e for e, _ in EVENTS if e not in out]
    if missing:
        fail(f"perf printed no count for {', '.join(missing)}")
    return out


def perf_counts(cmd):
    """Runs cmd under perf stat; returns its counts (parse_perf)."""
    events = ",".join(e for e, _ in EVENTS)
    try:
        res = subprocess.run(["perf", "stat", "-x", ",", "-e", events, "--"] + cmd,
                             text=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    except FileNotFoundError:
        fail("perf is not installed (Debian: linux-perf)")
    if res.returncode != 0:
        fail(f"{' '.join(cmd)} exited with {res.returncode}: {res.stderr.strip()[-300:]}")
    return parse_perf(res.stderr)


def per_op(cmd_for, n, count=perf_counts):
    """Per-operation counts: (counts at 2n - counts at n) / n."""
    one, two = count(cmd_for(n)), count(cmd_for(2 * n))
    return {e: (two[e] - one[e]) / n for e, _ in EVENTS}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--workload", default="cold_install/1",
                    help="NAME/THREADS, as compare names rows (default cold_install/1)")
    ap.add_argument("--iterations", type=int, default=20000)
    ap.add_argument("--passes", type=int, default=5)
    a = ap.parse_args()
    if a.passes < 1 or a.passes > 100:
        fail(f"--passes {a.passes}: expected 1 to 100")
    if a.iterations < 100:
        fail(f"--iterations {a.iterations}: expected at least 100")
    name, _, threads = a.workload.partition("/")
    if threads not in ("1", "2") or not name.replace("_", "").isalnum():
        fail(f"--workload {a.workload!r}: expected NAME/1 or NAME/2 (a row of compare's table)")
    ours = os.path.join(a.root, "build", "default", "pool", "bench", "pool_bench")
    peer = os.path.join(a.root, "build", "rayon-peer", "release", "rayon-peer")
    for path in (ours, peer):
        if not os.path.exists(path):
            fail(f"{path} is missing; run pool/bench/compare once to build it")
    programs = {
        "rayon-core": lambda n: [peer, "--iterations", str(n), "--filter", a.workload],
        "wsstress": lambda n: [ours, f"--iterations={n}", f"--benchmark_filter=^{name}/{threads}/"],
    }
    samples = {lib: {e: [] for e, _ in EVENTS} for lib in programs}
    for p in range(a.passes):
        for lib in (list(programs) if p % 2 == 0 else list(reversed(programs))):
            for e, v in per_op(programs[lib], a.iterations).items():
                samples[lib][e].append(v)

    print(f"{a.workload}, per operation, median of {a.passes} passes of {a.iterations} and "
          f"{2 * a.iterations} iterations differenced; {stats.cpu_model()}, load average "
          f"{stats.load_average() or 0:.2f}")
    print("| count | rayon-core 1.10.1 | wsstress | ratio |")
    print("|---|---|---|---|")
    for e, what in EVENTS:
        r, w = statistics.median(samples["rayon-core"][e]), statistics.median(samples["wsstress"][e])
        ratio = f"{w / r:.2f}" if abs(r) > 1e-3 else "—"
        print(f"| {what} | {r:.2f} | {w:.2f} | {ratio} |")


if __name__ == "__main__":
    main()
