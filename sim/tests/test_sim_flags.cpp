// SPDX-License-Identifier: MIT OR Apache-2.0
// The simulator's strategy registry and its flag table: every
// strategy file registered itself (none dropped by the static archive), in
// rank order whatever order they registered in, and the registry refuses a
// second strategy of one name or rank; the portfolio resolves a seed
// to its member by the seed alone, for the default table and for a spec
// "portfolio:pos=2,...", and a bad spec is one line; `sim`'s flags spell a spec back as a command line
// that leaves out what `wsstress sim` assumes anyway.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

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
  EXPECT_EQ(sim::strategy_names(), (std::vector<std::string>{"portfolio", "random", "pct", "pos", "surw", "surw-sleep",
                                                             "dfs", "sleep-first"}));
  for (const sim::StrategyEntry* e : sim::all_strategies()) {
    EXPECT_EQ(sim::parse_strategy(e->kind.name()), e->kind);
    EXPECT_TRUE(e->make != nullptr || e->resolve != nullptr) << e->kind.name();
  }
  ASSERT_TRUE(sim::parse_strategy("fuzz"));  // reproducers may name it; --strategy does not offer it
  EXPECT_FALSE(sim::parse_strategy("bfs"));
  EXPECT_STREQ(sim::strategy_name(StrategyKind::SleepFirst), "sleep-first");
}

// The registry the strategies share with the engines and the Relacy models
// (core::Registry): rank order whatever the order of the adds, and
// a second entry of one name or one rank ends the program, in one line.
TEST(StrategyRegistry, OneRegistryKeepsRankOrderAndRefusesADuplicateNameOrRank) {
  const sim::StrategyEntry a{.kind = StrategyKind{"a"}, .rank = 2};
  const sim::StrategyEntry b{.kind = StrategyKind{"b"}, .rank = 1};
  const sim::StrategyEntry same_name{.kind = StrategyKind{"a"}, .rank = 3};
  const sim::StrategyEntry same_rank{.kind = StrategyKind{"c"}, .rank = 2};
  core::Registry<sim::StrategyEntry> r("wsstress", "strategies");
  r.add(a);
  r.add(b);
  EXPECT_EQ(r.all(), (std::vector<const sim::StrategyEntry*>{&b, &a}));
  EXPECT_EQ(r.find("a"), &a);
  EXPECT_EQ(r.find("c"), nullptr);
  EXPECT_DEATH(r.add(same_name), "wsstress: two strategies have the name 'a'");
  EXPECT_DEATH(r.add(same_rank), "wsstress: two strategies have the rank 2");
}

TEST(StrategyRegistry, ThePortfolioGivesEachSeedItsMemberByTheTable) {
  // pos=5, surw-sleep=5, sleep-first=4, pct@2=2, pct@3=2, pct@5=2: a cycle of 20.
  EXPECT_STREQ(sim::strategy_name(resolved(0).strategy), "pos");
  EXPECT_STREQ(sim::strategy_name(resolved(1).strategy), "surw-sleep");
  EXPECT_EQ(resolved(2).strategy, StrategyKind::SleepFirst);
  EXPECT_EQ(resolved(3).strategy, StrategyKind::PCT);
  EXPECT_EQ(resolved(3).pct_depth, 2u);
  std::map<std::string, int> count;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const sim::SimConfig c = resolved(seed);
    ++count[std::string(sim::strategy_name(c.strategy)) +
            (c.strategy == StrategyKind::PCT ? "@" + std::to_string(c.pct_depth) : "")];
    EXPECT_EQ(resolved(seed + 20).strategy, c.strategy) << seed;  // the cycle repeats
  }
  EXPECT_EQ(count, (std::map<std::string, int>{
                       {"pos", 5}, {"surw-sleep", 5}, {"sleep-first", 4}, {"pct@2", 2}, {"pct@3", 2}, {"pct@5", 2}}));
}

// The member seed `seed` runs under the portfolio spec `spec`.
sim::SimConfig member(const std::string& spec, std::uint64_t seed) {
  sim::SimConfig c;
  c.strategy = *sim::parse_strategy(spec);
  c.seed = seed;
  return sim::find_strategy(c.strategy)->resolve(c);
}

TEST(StrategyRegistry, APortfolioSpecIsAStrategyOfItsOwnName) {
  const std::string spec = "portfolio:pos=2,sleep-first=1,pct@5=1";
  const auto kind = sim::parse_strategy(spec);
  ASSERT_TRUE(kind);
  EXPECT_EQ(std::string(sim::strategy_name(*kind)), spec);
  EXPECT_EQ(sim::parse_strategy(spec), kind);  // one name, compared equal
  EXPECT_EQ(sim::find_strategy(*kind), sim::find_strategy(StrategyKind::Portfolio));
  EXPECT_EQ(sim::strategy_error(spec), "");
  // A seed fixes its member: slots 0..3 of the cycle of 4, spread (pos gets 2 of 4, not 2 in a row).
  const std::vector<std::string> cycle = {"pos", "sleep-first", "pct", "pos"};
  for (std::uint64_t seed = 0; seed < 12; ++seed) {
    const sim::SimConfig m = member(spec, seed);
    EXPECT_EQ(sim::strategy_name(m.strategy), cycle[seed % 4]) << seed;
    EXPECT_EQ(member(spec, seed).strategy, m.strategy) << seed;
    if (m.strategy == StrategyKind::PCT) EXPECT_EQ(m.pct_depth, 5u);
  }
  // The default's table, spelled as a spec (the scoreboard's column P-b), seed for seed.
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    const sim::SimConfig a = member("portfolio:pos=5,surw-sleep=5,sleep-first=4,pct@2=2,pct@3=2,pct@5=2", seed),
                         b = resolved(seed);
    EXPECT_EQ(a.strategy, b.strategy) << seed;
    EXPECT_EQ(a.pct_depth, b.pct_depth) << seed;
  }
  EXPECT_EQ(member("portfolio:pct=1", 7).pct_depth, 3u);  // no @D: the configuration's --pct-depth
  EXPECT_EQ(sim::strategy_name(member("portfolio:surw=0,random=3", 1).strategy), std::string("random"));
}

TEST(StrategyRegistry, ABadPortfolioSpecIsRefusedInOneLine) {
  const std::pair<const char*, const char*> bad[] = {
      {"portfolio:bfs=1", "unknown member 'bfs'"},
      {"portfolio:dfs=1", "unknown member 'dfs'"},
      {"portfolio:portfolio=1", "unknown member 'portfolio'"},
      {"portfolio:pos=x", "the weight of 'pos', 'x', is not a number from 0 to 1000"},
      {"portfolio:pos=-1", "'-1', is not a number"},
      {"portfolio:pos=1001", "'1001', is not a number"},
      {"portfolio:pos", "'pos' is not MEMBER=WEIGHT"},
      {"portfolio:pos=0,random=0", "the weights add up to 0"},
      {"portfolio:", "an empty member"},
      {"portfolio:pos=1,,random=1", "an empty member"},
      {"portfolio:pos=1,pos=2", "a member given twice"},
      {"portfolio:pct@0=1", "PCT's depth is a number from 1 to 64"},
      {"portfolio:pct@x=1", "PCT's depth"},
  };
  for (const auto& [spec, why] : bad) {
    EXPECT_FALSE(sim::parse_strategy(spec)) << spec;
    const std::string e = sim::strategy_error(spec);
    EXPECT_NE(e.find(why), std::string::npos) << spec << ": " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    EXPECT_EQ(e.rfind("bad portfolio '", 0), 0u) << e;
  }
  EXPECT_EQ(sim::strategy_error("bfs").rfind("unknown strategy 'bfs' (strategies: portfolio, ", 0), 0u);
  EXPECT_FALSE(sim::parse_strategy("pct:pos=1"));                 // only the portfolio takes a spec
  ASSERT_TRUE(sim::parse_strategy("portfolio:pct@2=1,pct@3=1"));  // one strategy at two depths: two members
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
    const std::string value =
        f.flag.words != nullptr ? f.flag.words().back() : std::to_string(static_cast<std::uint64_t>(f.flag.lo) + 1);
    ASSERT_EQ(core::check_flag_value(f.flag, core::kSimCommand, value), "") << f.flag.long_name();
    f.set(c, value);
    EXPECT_EQ(f.get(c), value) << f.flag.long_name();
    const std::vector<std::string> args = sim::sim_arguments(c);
    EXPECT_NE(std::find(args.begin(), args.end(), std::string(f.flag.long_name())), args.end()) << f.flag.long_name();
  }
}

}  // namespace
