// SPDX-License-Identifier: MIT OR Apache-2.0
// The scoreboard: for each strategy x memory model x
// target, the schedules (and seconds) to the first failure over many
// independent runs, as a distribution. A target is a scenario with a mutant
// (or none) and what it should do: fail (a bug to find) or pass (every run
// must miss). The default targets are the catalog's mutants the simulator's
// columns expect to catch and the clean pool; the table takes other entries
// (a scenario of its own: an external program and its fixed twin) without a
// change here. Run r of a cell sweeps the seeds run_first_seed(seed, r) + k,
// k < budget, so runs are disjoint, one --seed fixes the board, and every
// first failure has its replay line. run_scoreboard returns one
// structure; cli/ renders it as text, JSON, SVG and HTML from the statistics
// below, computed once here.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "wsstress/matrix/expect.hpp"
#include "wsstress/sim/engine.hpp"
#include "wsstress/sim/strategies.hpp"

namespace wsstress::matrix {

struct ScoreTarget {
  std::string name;      // the row's label: the mutant's name, or the program's
  std::string scenario;  // what runs
  std::string mutant = "none";
  bool expect_failure = true;  // false: a clean program, every run must pass
  // The memory models it runs under (the simulator cannot show some bugs in
  // some models: those cells would only count misses). Empty: every model.
  std::vector<sim::MemoryModel> models{};
};

// What the simulator's columns expect of `m` under `memory` (the matrix's
// table, matrix/src/engines/simulator.cpp).
Expect simulator_expects(const MutantInfo& m, sim::MemoryModel memory);

// The catalog's targets: the clean pool (must pass) and every mutant some
// simulator column of `memories` expects to catch, each under the models of
// `memories` where it is not `Cannot`.
std::vector<ScoreTarget> catalog_targets(const std::vector<sim::MemoryModel>& memories);
// One catalog mutant as a target (its scenario, its models among `memories`).
ScoreTarget mutant_target(const MutantInfo& m, const std::vector<sim::MemoryModel>& memories);

struct ScoreboardSpec {
  std::vector<ScoreTarget> targets;
  std::vector<sim::StrategyKind> strategies;
  std::vector<sim::MemoryModel> memories;
  std::uint64_t runs = 20;      // independent runs per cell
  std::uint64_t budget = 1000;  // schedules per run
  double run_seconds = 0;       // and wall seconds per run (0: none; a run it ends is a miss)
  std::uint64_t seed = 0;       // the board's seed: every run's seeds derive from it
  unsigned jobs = 1;            // worker processes
  sim::SimCampaignSpec base;    // sizes and knobs every run shares (`sim`'s defaults)
};

// The first seed of run `run` of every cell: the high 32 bits are
// mix(seed)'s plus `run` (mod 2^32), the low 32 bits zero, so the runs of a
// board never share a seed (budget < 2^32) and boards of different seeds
// start far apart.
std::uint64_t run_first_seed(std::uint64_t seed, std::size_t run);

// One run of a cell: its seeds and its first failure, if any.
struct ScoreRun {
  std::uint64_t first_seed = 0;  // the run's seed range starts here
  bool found = false;
  std::uint64_t schedules = 0;   // executions to the first failure (found) or run (a miss)
  double seconds = 0;            // wall time to the first failure, or of the whole run
  std::uint64_t seed = 0;        // the failing seed
  std::string verdict, message;  // the failure's verdict word and first line
  std::string replay;            // the command that shows it again
};

struct ScoreCell {
  std::size_t target = 0;  // index into spec.targets
  sim::StrategyKind strategy = sim::StrategyKind::Random;
  sim::MemoryModel memory = sim::MemoryModel::SC;
  std::vector<ScoreRun> runs;  // in run order
};

struct ScoreboardReport {
  ScoreboardSpec spec;
  std::vector<ScoreCell> cells;  // target-major, then memory, then strategy; skipped models absent
  double elapsed_s = 0;
  int stopped_by_signal = 0;  // an unfinished report keeps only the finished cells
};

// Runs every cell's runs in `spec.jobs` worker processes (the mutants switch
// process-wide state, and a crash of the pool under test must not end the
// board: each run is a crash-guarded `sim` campaign). `progress` is told of
// each finished run (cells done, cells in all).
ScoreboardReport run_scoreboard(const ScoreboardSpec& spec,
                                const std::function<void(std::size_t done, std::size_t total)>& progress);

// The cell of a target (its index), strategy and model; nullptr if the board has none.
const ScoreCell* find_cell(const ScoreboardReport& r, std::size_t target, sim::StrategyKind s, sim::MemoryModel m);

// A cell's distribution. Misses count as beyond the budget, so a quantile
// that lands on a miss is none (nullopt): "more than the budget".
// Quantiles are nearest-rank: the smallest value with at least q of the runs
// at or below it.
struct ScoreStats {
  std::size_t runs = 0, found = 0, misses = 0;
  std::optional<std::uint64_t> median, p90;           // schedules
  std::optional<double> median_seconds, p90_seconds;  // seconds, same rule
  std::string unexpected;  // "" or why the cell is not as the target expects (a clean target failed)
};
ScoreStats score_stats(const ScoreCell& cell, const ScoreTarget& target);

// The cumulative curve of one strategy under one model over the targets
// expected to fail: for each x in `xs`, the share of (target, run) pairs
// whose first failure came within x schedules.
std::vector<double> found_share(const ScoreboardReport& r, sim::StrategyKind s, sim::MemoryModel m,
                                const std::vector<std::uint64_t>& xs);

// One line per strategy and model: runs found of those expected to fail,
// targets found in every run, targets whose median it had (alone or tied)
// best among the strategies; none where the model has no such target.
struct StrategySummary {
  sim::StrategyKind strategy = sim::StrategyKind::Random;
  sim::MemoryModel memory = sim::MemoryModel::SC;
  std::size_t runs = 0, found = 0, targets = 0, always_found = 0, best = 0;
};
std::vector<StrategySummary> strategy_summaries(const ScoreboardReport& r);

}  // namespace wsstress::matrix
