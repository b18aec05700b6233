// The portfolio (issue #18 point 6, as Coyote's): no strategy finds every
// bug first, so a sweep gives each seed one member in turn, chosen by the seed
// alone, and a seed still fixes its run. Members: the uniform walk, PCT at
// depths 2, 3 and 5 (one, two, four priority change points), and the
// sleep-first bias. A reproducer records the member, not "portfolio".
#include "../strategy.hpp"

namespace wsstress::sim {
namespace {

SimConfig member_for_seed(const SimConfig& config) {
  SimConfig member = config;
  switch (config.seed % 5) {
    case 0: member.strategy = StrategyKind::Random; break;
    case 1: member.strategy = StrategyKind::PCT; member.pct_depth = 2; break;
    case 2: member.strategy = StrategyKind::PCT; member.pct_depth = 3; break;
    case 3: member.strategy = StrategyKind::PCT; member.pct_depth = 5; break;
    default: member.strategy = StrategyKind::SleepFirst;
  }
  return member;
}

}  // namespace

// No `make`: the scheduler runs the member (resolve_strategy).
WSSTRESS_REGISTER_STRATEGY(portfolio_strategy,
                           {.kind = StrategyKind::Portfolio, .rank = 10,
                            .help = "each seed one of random, pct at depth 2, 3, 5, sleep-first (by seed % 5)",
                            .resolve = member_for_seed})

}  // namespace wsstress::sim
