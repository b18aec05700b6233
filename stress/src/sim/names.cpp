// The words of the simulator's configuration (memory model, strategy), as
// reproducers, reports and the CLI spell them. Apart from simulate.cpp so that
// the parsers library (reproducers, programs) needs nothing of the scheduler.
#include "wsstress/sim/engine.hpp"

namespace wsstress::sim {

const char* to_string(MemoryModel m) noexcept {
  switch (m) {
    case MemoryModel::SC: return "sc";
    case MemoryModel::TSO: return "tso";
    case MemoryModel::CPP: return "cpp";
  }
  return "?";
}

std::vector<std::string> memory_names() {
  std::vector<std::string> out;
  for (MemoryModel m : kMemoryModels) out.emplace_back(to_string(m));
  return out;
}

std::optional<MemoryModel> parse_memory(std::string_view word) noexcept {
  for (MemoryModel m : kMemoryModels) {
    if (word == to_string(m)) return m;
  }
  return std::nullopt;
}

const char* to_string(StrategyKind s) noexcept {
  switch (s) {
    case StrategyKind::Random: return "random";
    case StrategyKind::PCT: return "pct";
    case StrategyKind::DFS: return "dfs";
    case StrategyKind::Fuzz: return "fuzz";
    case StrategyKind::SleepFirst: return "sleep-first";
    case StrategyKind::Portfolio: return "portfolio";
  }
  return "?";
}

std::optional<StrategyKind> parse_strategy(std::string_view word) noexcept {
  for (StrategyKind s : {StrategyKind::Random, StrategyKind::PCT, StrategyKind::DFS, StrategyKind::Fuzz,
                         StrategyKind::SleepFirst, StrategyKind::Portfolio}) {
    if (word == to_string(s)) return s;
  }
  return std::nullopt;
}

}  // namespace wsstress::sim
