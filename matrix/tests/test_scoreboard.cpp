// SPDX-License-Identifier: MIT OR Apache-2.0
// The scoreboard's statistics (engines/scoreboard.hpp) on hand-made reports:
// nearest-rank quantiles with misses beyond the budget, what makes a cell
// unexpected, the cumulative share over the targets expected to fail, the
// best-median count with ties, the runs' seed ranges, and the catalog's
// default targets. The runs themselves are checked against `wsstress sim`
// by cli/tests/scoreboard.sh.
#include <gtest/gtest.h>

#include <set>

#include "wsstress/matrix/scoreboard.hpp"

namespace {

using namespace wsstress::matrix;
using wsstress::sim::MemoryModel;
using wsstress::sim::StrategyKind;

ScoreRun found_at(std::uint64_t schedules) {
  ScoreRun r;
  r.found = true;
  r.schedules = schedules;
  r.seconds = static_cast<double>(schedules) / 100;
  r.verdict = "hang";
  return r;
}
ScoreRun miss(std::uint64_t budget) {
  ScoreRun r;
  r.schedules = budget;
  return r;
}

TEST(Scoreboard, QuantilesAreNearestRankWithMissesBeyondTheBudget) {
  ScoreCell c;
  c.runs = {found_at(3), miss(10), found_at(1), found_at(7), miss(10)};
  const ScoreStats s = score_stats(c, ScoreTarget{"m", "join", "m", true, {}});
  EXPECT_EQ(s.runs, 5u);
  EXPECT_EQ(s.found, 3u);
  EXPECT_EQ(s.misses, 2u);
  ASSERT_TRUE(s.median.has_value());
  EXPECT_EQ(*s.median, 7u);         // rank ceil(0.5 * 5) = 3 of {1, 3, 7}
  EXPECT_FALSE(s.p90.has_value());  // rank 5: a miss
  EXPECT_DOUBLE_EQ(*s.median_seconds, 0.07);
  EXPECT_TRUE(s.unexpected.empty());
}

TEST(Scoreboard, ACleanTargetThatFailsOrAToolFailureIsUnexpected) {
  ScoreCell c;
  c.runs = {miss(10), found_at(4)};
  EXPECT_NE(score_stats(c, ScoreTarget{"none", "mixed", "none", false, {}}).unexpected, "");
  ScoreRun internal = miss(10);
  internal.verdict = "internal";
  internal.message = "no child";
  c.runs = {miss(10), internal};
  const ScoreStats s = score_stats(c, ScoreTarget{"m", "join", "m", true, {}});
  EXPECT_EQ(s.found, 0u);
  EXPECT_EQ(s.unexpected, "the tool failed: no child");
}

// Two targets under SC: a mutant (runs found at 2 and 50, one miss) and the
// clean pool, which the curves leave out; strategy PCT ties random on the
// mutant's median, POS misses it.
ScoreboardReport small_report() {
  ScoreboardReport r;
  r.spec.targets = {{"m", "join", "m", true, {}}, {"none", "mixed", "none", false, {}}};
  r.spec.strategies = {StrategyKind::Random, StrategyKind::PCT, StrategyKind("pos")};
  r.spec.memories = {MemoryModel::SC};
  r.spec.runs = 3;
  r.spec.budget = 100;
  r.cells = {{0, StrategyKind::Random, MemoryModel::SC, {found_at(2), found_at(50), miss(100)}},
             {0, StrategyKind::PCT, MemoryModel::SC, {found_at(50), found_at(1), found_at(90)}},
             {0, StrategyKind("pos"), MemoryModel::SC, {miss(100), miss(100), found_at(1)}},
             {1, StrategyKind::Random, MemoryModel::SC, {miss(100), miss(100), miss(100)}}};
  return r;
}

TEST(Scoreboard, FoundShareCountsTheTargetsExpectedToFail) {
  const ScoreboardReport r = small_report();
  const std::vector<double> share = found_share(r, StrategyKind::Random, MemoryModel::SC, {1, 2, 49, 50, 100});
  const std::vector<double> want = {0.0, 1.0 / 3, 1.0 / 3, 2.0 / 3, 2.0 / 3};
  ASSERT_EQ(share.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_DOUBLE_EQ(share[i], want[i]) << i;
}

TEST(Scoreboard, SummariesCountTiedBestMediansForEach) {
  const std::vector<StrategySummary> sums = strategy_summaries(small_report());
  ASSERT_EQ(sums.size(), 3u);
  EXPECT_EQ(sums[0].best, 1u);     // random: median 50
  EXPECT_EQ(sums[1].best, 1u);     // PCT: median 50, a tie
  EXPECT_EQ(sums[2].best, 0u);     // POS: median beyond the budget
  EXPECT_EQ(sums[0].targets, 1u);  // the clean pool is no target here
  EXPECT_EQ(sums[1].always_found, 1u);
  EXPECT_EQ(sums[2].found, 1u);
}

TEST(Scoreboard, RunsOwnDisjointSeedRangesFixedByTheSeed) {
  std::set<std::uint64_t> firsts;
  for (std::size_t run = 0; run < 1000; ++run) {
    const std::uint64_t first = run_first_seed(7, run);
    EXPECT_EQ(first & 0xffffffffu, 0u);  // a run's budget (< 2^32) stays in its range
    firsts.insert(first);
  }
  EXPECT_EQ(firsts.size(), 1000u);
  EXPECT_EQ(run_first_seed(7, 3), run_first_seed(7, 3));
  EXPECT_NE(run_first_seed(7, 0), run_first_seed(8, 0));
}

TEST(Scoreboard, CatalogTargetsAreTheCleanPoolAndMutantsToFind) {
  const std::vector<MemoryModel> all = {MemoryModel::SC, MemoryModel::TSO, MemoryModel::CPP};
  const std::vector<ScoreTarget> targets = catalog_targets(all);
  ASSERT_FALSE(targets.empty());
  EXPECT_EQ(targets.front().name, "none");
  EXPECT_FALSE(targets.front().expect_failure);
  for (const ScoreTarget& t : targets) {
    if (t.name == "none") continue;
    EXPECT_TRUE(t.expect_failure) << t.name;  // no negative control
    EXPECT_FALSE(t.models.empty()) << t.name;
  }
}

}  // namespace
