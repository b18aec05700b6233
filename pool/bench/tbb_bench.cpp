// SPDX-License-Identifier: MIT OR Apache-2.0
// The oneTBB peer of pool_bench.cpp, for the workloads that map onto TBB: fib
// and the empty join through parallel_invoke inside a task_arena of T threads,
// the 100 000-job scope through a task_group, wake latency through
// task_arena::enqueue, and idle CPU. TBB has no analogue of rayon's cold entry
// (task_arena::execute runs the functor on the calling thread when it can
// join the arena), of cross-pool install or of broadcast, so those rows of the
// comparison have no TBB figure.
#include <benchmark/benchmark.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

#include "workloads.hpp"

namespace {

std::uint64_t fib(unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0, b = 0;
  tbb::parallel_invoke([&] { a = fib(n - 1); }, [&] { b = fib(n - 2); });
  return a + b;
}

int threads(benchmark::State& state) { return static_cast<int>(state.range(0)); }

template <unsigned N>
void fib_join(benchmark::State& state) {
  tbb::task_arena arena(threads(state));
  for (auto _ : state) {
    std::uint64_t r = 0;
    arena.execute([&] { r = fib(N); });
    benchmark::DoNotOptimize(r);
  }
}

void empty_join(benchmark::State& state) {
  tbb::task_arena arena(threads(state));
  arena.execute([&] {
    for (auto _ : state) tbb::parallel_invoke([] {}, [] {});
  });
}

void scope_100k(benchmark::State& state) {
  tbb::task_arena arena(threads(state));
  for (auto _ : state) {
    arena.execute([] {
      tbb::task_group g;
      for (int i = 0; i < 100000; ++i) g.run([] {});
      g.wait();
    });
  }
}

void wake_latency(benchmark::State& state) {
  tbb::task_arena arena(threads(state));
  arena.execute([] {});
  wsstress::bench::run_wake_latency(state, [&] {
    std::atomic<std::int64_t> t1{0};
    const auto t0 = std::chrono::steady_clock::now();
    arena.enqueue([&t1] {
      t1.store(std::chrono::steady_clock::now().time_since_epoch().count());
      t1.notify_one();
    });
    t1.wait(0);
    const std::int64_t seen = t1.load();
    return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::duration(seen) - t0.time_since_epoch())
                                   .count());
  });
}

void idle_cpu(benchmark::State& state) {
  wsstress::bench::run_idle_cpu(state, [&] {
    auto arena = std::make_unique<tbb::task_arena>(threads(state));
    arena->execute([] { tbb::parallel_invoke([] {}, [] {}); });
    return arena;
  });
}

#define THREADS Arg(1)->Arg(2)->UseRealTime()
BENCHMARK(fib_join<25>)->Name("fib25")->THREADS;
BENCHMARK(fib_join<30>)->Name("fib30")->THREADS;
BENCHMARK(empty_join)->THREADS;
BENCHMARK(scope_100k)->THREADS;
BENCHMARK(wake_latency)->Arg(1)->Arg(2)->UseManualTime()->Iterations(1);
BENCHMARK(idle_cpu)->Arg(1)->Arg(2)->UseManualTime()->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
