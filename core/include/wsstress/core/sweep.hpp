// SPDX-License-Identifier: MIT OR Apache-2.0
// The seed loop every engine's campaign runs, once: which seeds a shard owns,
// the time budget, stopping at the first failure, and progress at most ten
// times a second; and the one rule that folds many verdicts into one.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "wsstress/core/scenario.hpp"

namespace wsstress::core {

struct SeedRange {
  std::uint64_t from = 0, to = 0;  // inclusive
};

// Shard `index` of `count` runs the seeds s with (s - from) % count == index.
struct Shard {
  std::uint64_t index = 0, count = 1;
};

// How many seeds of `seeds` shard `shard` owns.
std::uint64_t seeds_in_shard(const SeedRange& seeds, const Shard& shard) noexcept;

struct SweepPlan {
  SeedRange seeds;
  Shard shard;
  double max_seconds = 0;  // 0: no time budget
  bool stop_on_failure = true;
};

struct SweepOutcome {
  std::uint64_t planned = 0;  // seeds in the shard
  std::uint64_t runs = 0;     // seeds run
  bool budget_exhausted = false;
  int stopped_by_signal = 0;  // SIGINT, SIGTERM or SIGHUP ended the sweep early (StopSignals)
  double elapsed_s = 0;
};

// While one exists, the first SIGINT, SIGTERM or SIGHUP asks the sweep to
// stop after the seed in progress (as --max-seconds does); another within a
// second of it is the same request (`timeout` signals the process and its
// group), and one after that ends the process as the signal would. Destroying it restores the handlers
// that were in place before.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  // The signal that asked to stop, or 0.
  static int requested() noexcept;
};

// "SIGINT", "SIGTERM", "SIGHUP" (or "signal N").
std::string signal_name(int sig);

using ProgressFn = std::function<void(std::uint64_t done, std::uint64_t total, double elapsed_s)>;

// Runs run_seed(seed) for each seed of the shard in order; it
// returns true if the seed failed. Progress is reported at most ten times a
// second and once at the end.
SweepOutcome sweep(const SweepPlan& plan, const std::function<bool(std::uint64_t seed)>& run_seed,
                   const ProgressFn& progress);

// The verdict of many runs: internal beats hang beats crash beats bug beats pass.
VerdictKind worse(VerdictKind a, VerdictKind b) noexcept;

}  // namespace wsstress::core
