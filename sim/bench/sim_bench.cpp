// SPDX-License-Identifier: MIT OR Apache-2.0
// The simulator's throughput: scheduling points per second
// over whole runs of a scenario, one seed per iteration, in the default build.
// A point is one switch decision of the scheduler (SimResult::steps), the unit
// `wsstress sim` reports as "points/s". Run: build/default/stress/bench/sim_bench
// (README: "Simulator throughput" has the latest figures).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "wsstress/sim/engine.hpp"

namespace {

namespace sim = wsstress::sim;

// One simulated run per iteration, seeds 0, 1, 2, ... so every iteration is a
// different schedule of the same scenario.
void run_seeds(benchmark::State& state, const std::string& scenario, sim::StrategyKind strategy,
               sim::MemoryModel memory) {
  wsstress::core::RunSpec spec;
  spec.scenario = scenario;
  const sim::SimRunFn run = sim::find_sim_runner("none");
  sim::SimConfig config;
  config.strategy = strategy;
  config.memory = memory;
  std::uint64_t points = 0, seed = 0, failed = 0;
  for (auto _ : state) {
    config.seed = seed++;
    const sim::SimResult r = run(spec, config);
    points += r.steps;
    failed += r.verdict.kind != wsstress::core::VerdictKind::Pass;
  }
  state.counters["points/s"] = benchmark::Counter(static_cast<double>(points), benchmark::Counter::kIsRate);
  state.counters["points/run"] = benchmark::Counter(static_cast<double>(points), benchmark::Counter::kAvgIterations);
  if (failed != 0) state.SkipWithError("a run of the clean pool failed");
}

void mixed_random_sc(benchmark::State& s) { run_seeds(s, "mixed", sim::StrategyKind::Random, sim::MemoryModel::SC); }
void mixed_pct_sc(benchmark::State& s) { run_seeds(s, "mixed", sim::StrategyKind::PCT, sim::MemoryModel::SC); }
void mixed_random_tso(benchmark::State& s) { run_seeds(s, "mixed", sim::StrategyKind::Random, sim::MemoryModel::TSO); }
void mixed_random_cpp(benchmark::State& s) { run_seeds(s, "mixed", sim::StrategyKind::Random, sim::MemoryModel::CPP); }
void join_random_sc(benchmark::State& s) { run_seeds(s, "join", sim::StrategyKind::Random, sim::MemoryModel::SC); }

}  // namespace

BENCHMARK(mixed_random_sc)->Unit(benchmark::kMillisecond);
BENCHMARK(mixed_pct_sc)->Unit(benchmark::kMillisecond);
BENCHMARK(mixed_random_tso)->Unit(benchmark::kMillisecond);
BENCHMARK(mixed_random_cpp)->Unit(benchmark::kMillisecond);
BENCHMARK(join_random_sc)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
