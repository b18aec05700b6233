// SPDX-License-Identifier: MIT OR Apache-2.0
// The scoreboard's statistics (scoreboard.hpp), computed once here for every
// renderer: a cell's quantiles with misses counted as beyond the budget, the
// cumulative curve of a strategy, and the summary line per strategy.
#include <algorithm>
#include <cmath>
#include <limits>

#include "wsstress/matrix/scoreboard.hpp"

namespace wsstress::matrix {

namespace {

// Nearest rank: the k-th smallest with k = ceil(q * n); nullopt past the found runs.
template <class T>
std::optional<T> quantile(std::vector<T> found, std::size_t runs, double q) {
  if (runs == 0) return std::nullopt;
  const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(runs) - 1e-9));
  const std::size_t rank = std::max<std::size_t>(k, 1);
  if (rank > found.size()) return std::nullopt;  // a miss: more than the budget
  std::sort(found.begin(), found.end());
  return found[rank - 1];
}

}  // namespace

const ScoreCell* find_cell(const ScoreboardReport& r, std::size_t target, sim::StrategyKind s, sim::MemoryModel m) {
  for (const ScoreCell& c : r.cells) {
    if (c.target == target && c.strategy == s && c.memory == m) return &c;
  }
  return nullptr;
}

ScoreStats score_stats(const ScoreCell& cell, const ScoreTarget& target) {
  ScoreStats s;
  std::vector<std::uint64_t> schedules;
  std::vector<double> seconds;
  for (const ScoreRun& r : cell.runs) {
    ++s.runs;
    if (!r.found) {
      ++s.misses;
      if (!r.verdict.empty()) s.unexpected = "the tool failed: " + r.message;  // an internal verdict
      continue;
    }
    ++s.found;
    schedules.push_back(r.schedules);
    seconds.push_back(r.seconds);
    if (!target.expect_failure && s.unexpected.empty()) {
      s.unexpected = "a clean target failed: seed " + std::to_string(r.seed) + ", " + r.verdict + ": " + r.message;
    }
  }
  s.median = quantile(schedules, s.runs, 0.5);
  s.p90 = quantile(schedules, s.runs, 0.9);
  s.median_seconds = quantile(seconds, s.runs, 0.5);
  s.p90_seconds = quantile(seconds, s.runs, 0.9);
  return s;
}

std::vector<double> found_share(const ScoreboardReport& r, sim::StrategyKind s, sim::MemoryModel m,
                                const std::vector<std::uint64_t>& xs) {
  std::vector<std::uint64_t> firsts;  // the found runs' schedules
  std::size_t pairs = 0;
  for (std::size_t t = 0; t < r.spec.targets.size(); ++t) {
    if (!r.spec.targets[t].expect_failure) continue;
    const ScoreCell* c = find_cell(r, t, s, m);
    if (c == nullptr) continue;
    for (const ScoreRun& run : c->runs) {
      ++pairs;
      if (run.found) firsts.push_back(run.schedules);
    }
  }
  std::sort(firsts.begin(), firsts.end());
  std::vector<double> share;
  for (std::uint64_t x : xs) {
    const auto within = std::upper_bound(firsts.begin(), firsts.end(), x) - firsts.begin();
    share.push_back(pairs == 0 ? 0.0 : static_cast<double>(within) / static_cast<double>(pairs));
  }
  return share;
}

std::vector<StrategySummary> strategy_summaries(const ScoreboardReport& r) {
  std::vector<StrategySummary> out;
  for (sim::MemoryModel m : r.spec.memories) {
    for (sim::StrategyKind s : r.spec.strategies) {
      StrategySummary sum{s, m};
      for (std::size_t t = 0; t < r.spec.targets.size(); ++t) {
        const ScoreTarget& target = r.spec.targets[t];
        const ScoreCell* c = find_cell(r, t, s, m);
        if (!target.expect_failure || c == nullptr) continue;
        const ScoreStats st = score_stats(*c, target);
        ++sum.targets;
        sum.runs += st.runs;
        sum.found += st.found;
        if (st.misses == 0) ++sum.always_found;
        // Best median: no other strategy's is smaller (a miss is beyond every number).
        if (!st.median) continue;
        bool best = true;
        for (sim::StrategyKind other : r.spec.strategies) {
          const ScoreCell* oc = find_cell(r, t, other, m);
          if (oc == nullptr) continue;
          const ScoreStats os = score_stats(*oc, target);
          best = best && (!os.median || *os.median >= *st.median);
        }
        if (best) ++sum.best;
      }
      if (sum.targets > 0) out.push_back(sum);  // a board of clean targets has no line
    }
  }
  return out;
}

}  // namespace wsstress::matrix
