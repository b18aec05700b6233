// The simulator's strategy registry and its flag table (issue #40): every
// strategy file registered itself (none dropped by the static archive), in
// rank order whatever order they registered in; the portfolio still resolves
// seed s to member s % 5; `sim`'s flags spell a spec back as a command line
// that leaves out what `wsstress sim` assumes anyway.
#include <gtest/gtest.h>

#include <algorithm>

#include "wsstress/sim/flags.hpp"

namespace {
using namespace wsstress;
using sim::StrategyKind;

// Reaches the portfolio's resolution as the scheduler does.
sim::SimConfig resolved(std::uint64_t seed) {
  sim::SimConfig c;
  c.strategy = StrategyKind::Portfolio;
  c.seed = seed;
  return sim::find_strategy(StrategyKind::Portfolio)->resolve(c);
}

TEST(StrategyRegistry, EveryStrategyFileRegisteredInRankOrder) {
  EXPECT_EQ(sim::strategy_names(), (std::vector<std::string>{"portfolio", "random", "pct", "pos", "surw", "surw-sleep", "dfs", "sleep-first"}));
  for (const sim::StrategyEntry* e : sim::all_strategies()) {
    EXPECT_EQ(sim::parse_strategy(e->kind.name()), e->kind);
    EXPECT_TRUE(e->make != nullptr || e->resolve != nullptr) << e->kind.name();
  }
  ASSERT_TRUE(sim::parse_strategy("fuzz"));  // reproducers may name it; --strategy does not offer it
  EXPECT_FALSE(sim::parse_strategy("bfs"));
  EXPECT_STREQ(sim::strategy_name(StrategyKind::SleepFirst), "sleep-first");
}

TEST(StrategyRegistry, ThePortfolioGivesSeedSMemberSMod5) {
  EXPECT_EQ(resolved(0).strategy, StrategyKind::Random);
  EXPECT_EQ(resolved(1).strategy, StrategyKind::PCT);
  EXPECT_EQ(resolved(1).pct_depth, 2u);
  EXPECT_EQ(resolved(2).pct_depth, 3u);
  EXPECT_EQ(resolved(3).pct_depth, 5u);
  EXPECT_EQ(resolved(9).strategy, StrategyKind::SleepFirst);
}

TEST(SimFlags, ASpecIsSpelledWithWhatDiffersFromTheCommandsDefaults) {
  sim::SimCampaignSpec c = sim::sim_command_defaults();
  EXPECT_TRUE(sim::sim_arguments(c).empty());
  c.base.run.scenario = "cross";
  c.base.run.mutant = "cross_is_cold";
  c.base.run.threads = 2;
  c.base.run.pools = 2;
  c.base.run.iterations = 3;
  c.config.strategy = StrategyKind::PCT;
  c.config.memory = sim::MemoryModel::TSO;
  c.config.step_budget = 7000;
  EXPECT_EQ(sim::sim_command_line(c, 11),
            "wsstress sim --scenario cross --seed 11 --threads 2 --pools 2 --iterations 3 --mutant cross_is_cold "
            "--strategy pct --memory tso --step-budget 7000");
}

TEST(SimFlags, EveryRowSetsWhatItSpells) {
  for (const sim::SimFlag& f : sim::sim_flags()) {
    sim::SimCampaignSpec c = sim::sim_command_defaults();
    const std::string value = f.flag.words != nullptr ? f.flag.words().back() : std::to_string(static_cast<std::uint64_t>(f.flag.lo) + 1);
    ASSERT_EQ(stress::check_flag_value(f.flag, stress::kSimCommand, value), "") << f.flag.long_name();
    f.set(c, value);
    EXPECT_EQ(f.get(c), value) << f.flag.long_name();
    const std::vector<std::string> args = sim::sim_arguments(c);
    EXPECT_NE(std::find(args.begin(), args.end(), std::string(f.flag.long_name())), args.end()) << f.flag.long_name();
  }
}

}  // namespace
