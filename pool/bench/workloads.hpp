// SPDX-License-Identifier: MIT OR Apache-2.0
// Shared pieces of the benchmark programs: the sample-based measurements
// (wake latency, idle CPU) that Google Benchmark's iteration loop does not fit,
// written once for the wsstress and oneTBB programs, and mirrored in the Rust
// peer (rayon-peer/src/main.rs).
#pragma once

#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

namespace wsstress::bench {

inline double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Median of `wake_once()`'s results (nanoseconds), each taken after 5 ms of
// quiet so the pool's workers have gone to sleep; at least 20 samples, for at
// least twice the min time. Reported as the benchmark's (manual) time.
template <class WakeOnce>
void run_wake_latency(benchmark::State& state, WakeOnce wake_once) {
  for (auto _ : state) {
    std::vector<double> samples;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(400);
    while (samples.size() < 20 || std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      samples.push_back(wake_once());
      if (samples.size() >= 1000) break;
    }
    std::sort(samples.begin(), samples.end());
    state.SetIterationTime(samples[samples.size() / 2] * 1e-9);
  }
}

// CPU burned by an idle pool over one second of wall time, after a job woke
// every worker; reported in the counter cpu_ms_per_s.
template <class MakeBusyThenIdle>
void run_idle_cpu(benchmark::State& state, MakeBusyThenIdle busy_then_idle) {
  for (auto _ : state) {
    auto keep = busy_then_idle();  // the pool, kept alive for the measurement
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const double c0 = process_cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const double cpu = process_cpu_seconds() - c0;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.counters["cpu_ms_per_s"] = cpu * 1e3 / wall;
    state.SetIterationTime(wall);
  }
}

}  // namespace wsstress::bench
