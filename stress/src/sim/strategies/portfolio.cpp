// The portfolio (issue #18 point 6, as Coyote's): no strategy finds every
// bug first, so a sweep gives each seed one member in turn, chosen by the seed
// alone, and a seed still fixes its run. Members: the uniform walk, PCT at
// depths 2, 3 and 5 (one, two, four priority change points), and the
// sleep-first bias. A reproducer records the member, not "portfolio".
#include "../strategy.hpp"

namespace wsstress::sim {

SimConfig resolve_strategy(const SimConfig& config) {
  if (config.strategy != StrategyKind::Portfolio) return resolve_memory_rates(config);
  SimConfig member = resolve_memory_rates(config);
  switch (config.seed % 5) {
    case 0: member.strategy = StrategyKind::Random; break;
    case 1: member.strategy = StrategyKind::PCT; member.pct_depth = 2; break;
    case 2: member.strategy = StrategyKind::PCT; member.pct_depth = 3; break;
    case 3: member.strategy = StrategyKind::PCT; member.pct_depth = 5; break;
    default: member.strategy = StrategyKind::SleepFirst;
  }
  return member;
}

}  // namespace wsstress::sim
