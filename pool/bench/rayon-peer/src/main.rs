// SPDX-License-Identifier: MIT OR Apache-2.0
//! rayon-core 1.10.1 side of `pool/bench/compare`. Each workload mirrors one in
//! pool/bench/pool_bench.cpp, and results are printed in Google Benchmark's JSON
//! shape ({"benchmarks":[{"name", "real_time", "time_unit"}]}) so that one
//! script reads both. Usage: rayon-peer [--min-time SECONDS] [--filter A|B|...]
//! [--iterations N] (exactly N iterations after one warm-up, as pool_bench's
//! --iterations=N: `counts` differences two runs into per-operation counts).

use rayon_core::{join, scope, ThreadPool, ThreadPoolBuilder};
use std::hint::black_box;
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn fib(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let (a, b) = join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn pool(threads: usize) -> ThreadPool {
    ThreadPoolBuilder::new().num_threads(threads).build().unwrap()
}

/// Runs `iter(n)` (which performs n iterations and returns the time they took)
/// with n doubling until one run lasts `min_time`, like Google Benchmark; or
/// exactly ITERATIONS times when --iterations is given.
static ITERATIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn measure(min_time: f64, mut iter: impl FnMut(u64) -> Duration) -> f64 {
    iter(1); // warm-up
    let fixed = ITERATIONS.load(std::sync::atomic::Ordering::Relaxed);
    if fixed > 0 {
        return iter(fixed).as_secs_f64() * 1e9 / fixed as f64;
    }
    let mut n: u64 = 1;
    loop {
        let t = iter(n).as_secs_f64();
        if t >= min_time || n >= 1 << 30 {
            return t * 1e9 / n as f64;
        }
        let scale = if t <= 0.0 { 10.0 } else { (min_time * 1.4 / t).min(10.0).max(2.0) };
        n = ((n as f64) * scale).ceil() as u64;
    }
}

fn timed(n: u64, mut f: impl FnMut()) -> Duration {
    let t0 = Instant::now();
    for _ in 0..n {
        f();
    }
    t0.elapsed()
}

fn process_cpu() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut min_time = 0.2;
    let mut filter = String::new();
    let mut i = 1;
    while i < args.len() {
        match args[i].as_str() {
            "--min-time" => {
                min_time = args.get(i + 1).and_then(|s| s.parse().ok()).unwrap_or_else(|| {
                    eprintln!("rayon-peer: --min-time needs a number of seconds");
                    std::process::exit(2)
                });
                i += 2;
            }
            "--iterations" => {
                let n: u64 = args.get(i + 1).and_then(|s| s.parse().ok()).unwrap_or_else(|| {
                    eprintln!("rayon-peer: --iterations needs a count");
                    std::process::exit(2)
                });
                ITERATIONS.store(n, std::sync::atomic::Ordering::Relaxed);
                i += 2;
            }
            "--filter" => {
                filter = args.get(i + 1).cloned().unwrap_or_default();
                i += 2;
            }
            other => {
                eprintln!("rayon-peer: unknown argument '{}'", other);
                std::process::exit(2);
            }
        }
    }

    let mut results: Vec<(String, f64, &'static str)> = Vec::new();
    let mut record = |name: String, value: f64, unit: &'static str| {
        eprintln!("{:<24} {:>14.1} {}", name, value, unit);
        results.push((name, value, unit));
    };
    // Like Google Benchmark's --benchmark_filter for the simple cases used here:
    // alternatives separated by '|', each matched as a substring.
    let wanted = |name: &str| filter.is_empty() || filter.split('|').any(|f| name.contains(f));

    for threads in [1usize, 2] {
        let p = pool(threads);
        for n in [25u32, 30] {
            let name = format!("fib{}/{}", n, threads);
            if wanted(&name) {
                let ns = measure(min_time, |k| timed(k, || { black_box(p.install(|| fib(black_box(n)))); }));
                record(name, ns, "ns");
            }
        }

        let name = format!("empty_join/{}", threads);
        if wanted(&name) {
            let ns = measure(min_time, |k| {
                p.install(|| timed(k, || { black_box(join(|| black_box(()), || black_box(()))); }))
            });
            record(name, ns, "ns");
        }

        let name = format!("cold_install/{}", threads);
        if wanted(&name) {
            let ns = measure(min_time, |k| timed(k, || { black_box(p.install(|| black_box(()))); }));
            record(name, ns, "ns");
        }

        let name = format!("cross_install/{}", threads);
        if wanted(&name) {
            let other = pool(threads);
            let ns = measure(min_time, |k| {
                p.install(|| timed(k, || { black_box(other.install(|| black_box(()))); }))
            });
            record(name, ns, "ns");
        }

        let name = format!("broadcast/{}", threads);
        if wanted(&name) {
            let ns = measure(min_time, |k| timed(k, || { black_box(p.broadcast(|_| black_box(()))); }));
            record(name, ns, "ns");
        }

        let name = format!("scope_100k/{}", threads);
        if wanted(&name) {
            let ns = measure(min_time, |k| {
                timed(k, || {
                    p.install(|| {
                        scope(|s| {
                            for _ in 0..100_000 {
                                s.spawn(|_| { black_box(()); });
                            }
                        })
                    })
                })
            });
            record(name, ns, "ns");
        }

        let name = format!("wake_latency/{}", threads);
        if wanted(&name) {
            // Each sample lets the pool fall asleep (5 ms), then times spawn ->
            // first instruction of the job.
            let mut samples = Vec::new();
            let deadline = Instant::now() + Duration::from_secs_f64(min_time.max(0.05) * 2.0);
            while samples.len() < 20 || Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
                let (tx, rx) = mpsc::channel();
                let t0 = Instant::now();
                p.spawn(move || {
                    tx.send(Instant::now()).unwrap();
                });
                let t1 = rx.recv().unwrap();
                samples.push((t1 - t0).as_nanos() as f64);
                if samples.len() >= 1000 {
                    break;
                }
            }
            samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
            record(name, samples[samples.len() / 2], "ns");
        }
        drop(p);

        let name = format!("idle_cpu/{}", threads);
        if wanted(&name) {
            // CPU burned by a pool with nothing to do, over one second, after a
            // job woke every worker (ms of CPU per s of wall time).
            let p = pool(threads);
            p.broadcast(|_| ());
            std::thread::sleep(Duration::from_millis(50));
            let c0 = process_cpu();
            let t0 = Instant::now();
            std::thread::sleep(Duration::from_secs(1));
            let cpu = (process_cpu() - c0).as_secs_f64();
            let wall = t0.elapsed().as_secs_f64();
            record(name, cpu * 1e3 / wall, "ms/s");
            drop(p);
        }
    }

    let mut out = String::from("{\n  \"context\": {\"library\": \"rayon-core 1.10.1\"},\n  \"benchmarks\": [\n");
    for (k, (name, value, unit)) in results.iter().enumerate() {
        out.push_str(&format!(
            "    {{\"name\": \"{}\", \"real_time\": {:.3}, \"time_unit\": \"{}\"}}{}\n",
            name,
            value,
            unit,
            if k + 1 < results.len() { "," } else { "" }
        ));
    }
    out.push_str("  ]\n}\n");
    print!("{}", out);
}
