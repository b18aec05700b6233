// SPDX-License-Identifier: MIT OR Apache-2.0
// Benchmarks of the production pool (wsstress::ThreadPool over StdPlatform),
// one Google Benchmark per workload and thread count (/1, /2). The same
// workloads run over rayon-core in rayon-peer/ and over oneTBB in
// tbb_bench.cpp; `compare` runs them side by side.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "workloads.hpp"
#include "wsstress/pool.hpp"

namespace {

std::uint64_t fib(unsigned n) {
  if (n < 2) return n;
  auto [a, b] = wsstress::join([&] { return fib(n - 1); }, [&] { return fib(n - 2); });
  return a + b;
}

wsstress::ThreadPool make_pool(benchmark::State& state) {
  return wsstress::ThreadPool(wsstress::ThreadPoolBuilder().num_threads(static_cast<std::size_t>(state.range(0))));
}

// One pool per thread count for the whole program, as rayon-peer builds its
// `p`: Google Benchmark calls a benchmark once per estimation run, and pools
// built anew for each run start where the kernel put two new threads at
// once, often on one CPU, for the first tens of milliseconds of the measured
// run (README, "Benchmark against rayon-core"). `Tag` keeps cross_install's
// second pool apart.
template <class Tag = void>
wsstress::ThreadPool& kept_pool(benchmark::State& state) {
  static std::map<std::int64_t, wsstress::ThreadPool> pools;
  auto it = pools.find(state.range(0));
  if (it == pools.end()) it = pools.emplace(state.range(0), make_pool(state)).first;
  return it->second;
}

// fib(n) through join with no sequential cutoff: one join per call.
template <unsigned N>
void fib_join(benchmark::State& state) {
  auto& pool = kept_pool(state);
  for (auto _ : state) benchmark::DoNotOptimize(pool.install([] { return fib(N); }));
}

// An empty join on a worker: the fast path (push, run A, pop B, run B inline).
void empty_join(benchmark::State& state) {
  auto& pool = kept_pool(state);
  pool.install([&] {
    for (auto _ : state) {
      auto r = wsstress::join([] {}, [] {});
      benchmark::DoNotOptimize(r);
    }
  });
}

// install of an empty closure from a thread outside every pool (cold path).
void cold_install(benchmark::State& state) {
  auto& pool = kept_pool(state);
  for (auto _ : state) pool.install([] {});
}

// install from a worker of one pool into another (cross path), round trip.
void cross_install(benchmark::State& state) {
  auto& pool = kept_pool(state);
  auto& other = kept_pool<struct Other>(state);
  pool.install([&] {
    for (auto _ : state) other.install([] {});
  });
}

// broadcast of an empty operation from outside the pool, round trip.
void broadcast(benchmark::State& state) {
  auto& pool = kept_pool(state);
  for (auto _ : state) benchmark::DoNotOptimize(pool.broadcast([](wsstress::BroadcastContext) {}));
}

// A scope that spawns 100 000 empty jobs, entered with install.
void scope_100k(benchmark::State& state) {
  auto& pool = kept_pool(state);
  for (auto _ : state) {
    pool.install([] {
      wsstress::scope([](wsstress::Scope& s) {
        for (int i = 0; i < 100000; ++i) s.spawn([](wsstress::Scope&) {});
      });
    });
  }
}

// Time from spawn into a sleeping pool to the first instruction of the job.
void wake_latency(benchmark::State& state) {
  auto& pool = kept_pool(state);
  wsstress::bench::run_wake_latency(state, [&] {
    std::atomic<std::int64_t> t1{0};
    const auto t0 = std::chrono::steady_clock::now();
    pool.spawn([&t1] {
      t1.store(std::chrono::steady_clock::now().time_since_epoch().count());
      t1.notify_one();
    });
    // Block (a futex wait), as the Rust peer's channel recv does, rather than
    // spin on a core the woken worker may need.
    t1.wait(0);
    const std::int64_t seen = t1.load();
    return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::duration(seen) - t0.time_since_epoch())
                                   .count());
  });
}

// CPU burned by an idle pool.
void idle_cpu(benchmark::State& state) {
  wsstress::bench::run_idle_cpu(state, [&] {
    auto pool = std::make_unique<wsstress::ThreadPool>(make_pool(state));
    pool->broadcast([](wsstress::BroadcastContext) {});
    return pool;
  });
}

// Every workload at 1 and 2 threads. With `iterations` > 0 each runs exactly
// that many iterations (no estimation runs), so `counts` can difference two
// runs into per-operation event counts; 0 lets Google Benchmark decide.
void register_all(benchmark::IterationCount iterations) {
  const auto add = [&](const char* name, void (*fn)(benchmark::State&)) {
    auto* b = benchmark::RegisterBenchmark(name, fn)->Arg(1)->Arg(2)->UseRealTime();
    if (iterations > 0) b->Iterations(iterations);
  };
  add("fib25", fib_join<25>);
  add("fib30", fib_join<30>);
  add("empty_join", empty_join);
  add("cold_install", cold_install);
  add("cross_install", cross_install);
  add("broadcast", broadcast);
  add("scope_100k", scope_100k);
  // Sample-based: one iteration holds the samples (workloads.hpp).
  benchmark::RegisterBenchmark("wake_latency", wake_latency)->Arg(1)->Arg(2)->UseManualTime()->Iterations(1);
  benchmark::RegisterBenchmark("idle_cpu", idle_cpu)->Arg(1)->Arg(2)->UseManualTime()->Iterations(1);
}

// `--iterations=N` (ours, taken out before Google Benchmark reads the rest).
benchmark::IterationCount take_iterations(int& argc, char** argv) {
  benchmark::IterationCount n = 0;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--iterations=")) {
      n = std::stoll(std::string(arg.substr(13)));
    } else {
      argv[out++] = argv[i];
    }
  }
  argc = out;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  register_all(take_iterations(argc, argv));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
