# SPDX-License-Identifier: MIT OR Apache-2.0
"""Side-by-side benchmark of wsstress's pool, rayon-core 1.10.1 and oneTBB.

Called by `compare` (which installs what it needs first). Builds the three
programs, runs them in alternating order for several passes on this machine,
and reports, per workload and thread count, each library's median over the
passes, the spread (max-min over median), and the ratio wsstress / rayon-core
with a bootstrap 95 % interval and its verdict (stats.py). It refuses to start
on a busy machine (--allow-busy runs anyway and flags the table), and records
the CPU model, the steal time and the CPU other processes used.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

import stats

WORKLOADS = [
    ("fib25", "fib(25) through join, no cutoff", "ns"),
    ("fib30", "fib(30) through join, no cutoff", "ns"),
    ("empty_join", "empty join on a worker", "ns"),
    ("cold_install", "install(empty) from outside, idle pool", "ns"),
    ("cross_install", "install(empty) from a worker of another pool", "ns"),
    ("wake_latency", "spawn into a sleeping pool until the job runs (median)", "ns"),
    ("broadcast", "broadcast(empty) from outside", "ns"),
    ("scope_100k", "scope spawning 100 000 empty jobs", "ns"),
    ("idle_cpu", "CPU burned by an idle pool", "ms/s"),
]


def fail(msg):
    print(f"compare: error: {msg}", file=sys.stderr)
    sys.exit(2)


def run(cmd, cwd=None, capture=True):
    try:
        res = subprocess.run(cmd, cwd=cwd, check=True, text=True,
                             stdout=subprocess.PIPE if capture else None)
    except FileNotFoundError:
        fail(f"cannot run {cmd[0]}: not found")
    except subprocess.CalledProcessError as e:
        fail(f"{' '.join(cmd)} exited with {e.returncode}")
    return res.stdout


def build(root):
    run(["cmake", "--preset", "default"], cwd=root, capture=False)
    run(["cmake", "--build", "--preset", "default", "--target", "pool_bench", "tbb_bench"], cwd=root, capture=False)
    # The tuned peer (codegen-units = 1) and cargo's default release profile.
    for profile in ("release", "release-cgu16"):
        run(["cargo", "build", "--profile", profile, "--offline", "--quiet",
             "--target-dir", os.path.join(root, "build", "rayon-peer")],
            cwd=os.path.join(root, "pool", "bench", "rayon-peer"), capture=False)


def key_of(name):
    # Google Benchmark names look like "fib25/2/real_time" or
    # "wake_latency/1/iterations:1/manual_time"; keep "workload/threads".
    parts = name.split("/")
    return parts[0], int(parts[1])


def parse(output):
    if not output.strip():
        return {}  # Google Benchmark prints nothing when --filter matches none of its workloads
    data = json.loads(output)
    out = {}
    for b in data.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        value = b.get("cpu_ms_per_s", b["real_time"])
        unit = "ms/s" if "cpu_ms_per_s" in b else b.get("time_unit", "ns")
        scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}.get(unit, 1.0) if unit != "ms/s" else 1.0
        out[key_of(b["name"])] = value * scale
    return out


def machine_line(meta):
    share = lambda v: "?" if v is None else f"{v * 100:.1f} %"
    line = (f"Load average before: {meta['load_before']}; during the run, steal {share(meta['steal_share'])}, "
            f"other processes {share(meta['other_share'])} of the CPUs.")
    if meta["busy"]:
        line += " **BUSY MACHINE: " + "; ".join(meta["busy"]) + ": read the ratios with care.**"
    return line


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--root", required=True)
    ap.add_argument("--passes", type=int, default=10)
    ap.add_argument("--allow-busy", action="store_true", help="run on a busy machine and flag the table")
    ap.add_argument("--min-time", type=float, default=0.2)
    ap.add_argument("--filter", default="")
    ap.add_argument("--json", default=None)
    ap.add_argument("--markdown", default=None)
    ap.add_argument("--no-build", action="store_true")
    a = ap.parse_args()
    if a.passes < 1 or a.passes > 100:
        fail(f"--passes {a.passes}: expected 1 to 100")
    if not (0.001 <= a.min_time <= 10):
        fail(f"--min-time {a.min_time}: expected 0.001 to 10 seconds")
    root = a.root
    if not a.no_build:
        build(root)
    ours = os.path.join(root, "build", "default", "pool", "bench", "pool_bench")
    tbb = os.path.join(root, "build", "default", "pool", "bench", "tbb_bench")
    peer = os.path.join(root, "build", "rayon-peer", "release", "rayon-peer")
    peer16 = os.path.join(root, "build", "rayon-peer", "release-cgu16", "rayon-peer")
    for path in (ours, peer, peer16):
        if not os.path.exists(path):
            fail(f"{path} is missing; run without --no-build")
    have_tbb = os.path.exists(tbb)

    gb_args = [f"--benchmark_min_time={a.min_time}", "--benchmark_format=json"]
    if a.filter:
        gb_args.append(f"--benchmark_filter={a.filter}")
    peer_args = ["--min-time", str(a.min_time)] + (["--filter", a.filter] if a.filter else [])
    runners = {
        "wsstress": lambda: parse(run([ours] + gb_args)),
        "rayon-core": lambda: parse(run([peer] + peer_args)),
        "rayon-core-cgu16": lambda: parse(run([peer16] + peer_args)),
    }
    if have_tbb:
        runners["oneTBB"] = lambda: parse(run([tbb] + gb_args))

    load_before = stats.load_average()
    if load_before is not None and load_before > stats.LOAD_LIMIT and not a.allow_busy:
        fail(f"the machine is busy (load average {load_before:.2f} > {stats.LOAD_LIMIT}); "
             "wait, or give --allow-busy to run anyway with the table flagged")
    watch = stats.MachineWatch()
    samples = {lib: {} for lib in runners}
    order = list(runners)
    for p in range(a.passes):
        # Alternate the order so no library always runs first (or last).
        seq = order if p % 2 == 0 else list(reversed(order))
        for lib in seq:
            print(f"compare: pass {p + 1}/{a.passes}: {lib}", file=sys.stderr, flush=True)
            for k, v in runners[lib]().items():
                samples[lib].setdefault(k, []).append(v)

    machine = watch.finish()
    busy = stats.busy_reasons(load_before, machine)
    if not samples["wsstress"]:
        fail(f"--filter {a.filter!r} matches no workload")
    rows = []
    for name, what, unit in WORKLOADS:
        for threads in (1, 2):
            k = (name, threads)
            row = {"workload": name, "threads": threads, "what": what, "unit": unit}
            for lib in runners:
                vals = samples[lib].get(k)
                if vals:
                    med = statistics.median(vals)
                    row[lib] = {"median": med, "min": min(vals), "max": max(vals),
                                "spread": (max(vals) - min(vals)) / med if med else 0.0, "passes": len(vals)}
            ours_v, ray_v = samples["wsstress"].get(k), samples["rayon-core"].get(k)
            interval = stats.ratio_interval(ours_v, ray_v) if ours_v and ray_v else None
            row["ratio"] = interval[0] if interval else None
            row["ratio_ci95"] = [interval[1], interval[2]] if interval else None
            row["verdict"] = stats.verdict(interval)
            if "wsstress" in row or "rayon-core" in row:
                rows.append(row)

    cpu = stats.cpu_model()
    meta = {"load_before": load_before, "steal_share": machine["steal_share"],
            "other_share": machine["other_share"], "busy": busy,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": f"{cpu}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}",
            "passes": a.passes, "min_time_s": a.min_time}

    def fmt(v, unit):
        if v is None:
            return "—"
        if unit == "ms/s":
            return f"{v:.2f} ms/s"
        if v >= 1e6:
            return f"{v / 1e6:.2f} ms"
        if v >= 1e3:
            return f"{v / 1e3:.2f} µs"
        return f"{v:.1f} ns"

    def cell(row, lib):
        d = row.get(lib)
        if not d:
            return "—"
        return f"{fmt(d['median'], row['unit'])} (±{d['spread'] * 50:.0f}%)"

    lines = [f"Measured {meta['date']} on {meta['machine']}; median of {a.passes} interleaved passes "
             f"(± half the max-min spread); ratio = wsstress / rayon-core (tuned: opt-level 3, codegen-units 1), "
             f"below 1 is faster, with its bootstrap 95 % interval over the passes: 'at par' when it holds 1.00; "
             f"the cgu16 column is cargo's default release profile. {machine_line(meta)}", "",
             "| workload | threads | rayon-core 1.10.1 | wsstress | ratio | rayon-core cgu16 | oneTBB |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = "—" if r["ratio"] is None else \
            f"{r['ratio']:.2f} [{r['ratio_ci95'][0]:.2f}, {r['ratio_ci95'][1]:.2f}] {r['verdict']}"
        lines.append(f"| {r['workload']} | {r['threads']} | {cell(r, 'rayon-core')} | {cell(r, 'wsstress')} | "
                     f"{ratio} | {cell(r, 'rayon-core-cgu16')} | {cell(r, 'oneTBB')} |")
    table = "\n".join(lines)
    print(table)

    report = {"meta": meta, "workloads": {n: w for n, w, _ in WORKLOADS}, "rows": rows}
    json_path = a.json or os.path.join(root, "build", "bench", "compare.json")
    md_path = a.markdown or os.path.join(root, "build", "bench", "compare.md")
    for path, text in ((json_path, json.dumps(report, indent=2) + "\n"), (md_path, table + "\n")):
        d = os.path.dirname(os.path.abspath(path))
        os.makedirs(d, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)  # atomic: a reader never sees half a report
    print(f"compare: wrote {json_path} and {md_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
