// The words of the simulator's configuration (memory model, strategy), as
// reproducers, reports and the CLI spell them, and the registry of strategies
// (strategies.hpp) the strategy files fill. Apart from simulate.cpp so that
// the parsers library (reproducers, programs) needs nothing of the scheduler.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "wsstress/sim/engine.hpp"

namespace wsstress::sim {

const char* memory_name(MemoryModel m) noexcept {
  switch (m) {
    case MemoryModel::SC: return "sc";
    case MemoryModel::TSO: return "tso";
    case MemoryModel::CPP: return "cpp";
  }
  return "?";
}

std::vector<std::string> memory_names() {
  std::vector<std::string> out;
  for (MemoryModel m : kMemoryModels) out.emplace_back(memory_name(m));
  return out;
}

std::optional<MemoryModel> parse_memory(std::string_view word) noexcept {
  for (MemoryModel m : kMemoryModels) {
    if (word == memory_name(m)) return m;
  }
  return std::nullopt;
}

namespace {

// Function-local, so that it exists before the first strategy file's
// initializer runs, whichever file that is.
std::vector<const StrategyEntry*>& registry() {
  static std::vector<const StrategyEntry*> entries;
  return entries;
}

}  // namespace

bool add_strategy(const StrategyEntry& e) {
  auto& entries = registry();
  if (find_strategy(e.kind) != nullptr) {
    std::fprintf(stderr, "wsstress: two strategies are named '%s'\n", e.kind.name());
    std::abort();
  }
  entries.push_back(&e);
  // By rank, then name: one order whatever order the files registered in.
  std::sort(entries.begin(), entries.end(), [](const StrategyEntry* a, const StrategyEntry* b) {
    return a->rank != b->rank ? a->rank < b->rank : std::string_view(a->kind.name()) < b->kind.name();
  });
  return true;
}

const std::vector<const StrategyEntry*>& all_strategies() { return registry(); }

const StrategyEntry* find_strategy(StrategyKind s) noexcept {
  for (const StrategyEntry* e : registry()) {
    if (e->kind == s) return e;
  }
  return nullptr;
}

const char* strategy_name(StrategyKind s) noexcept { return s.name(); }

std::optional<StrategyKind> parse_strategy(std::string_view word) noexcept {
  for (const StrategyEntry* e : registry()) {
    if (word == e->kind.name()) return e->kind;
  }
  return std::nullopt;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> out;
  for (const StrategyEntry* e : registry()) {
    if (!e->help.empty()) out.emplace_back(e->kind.name());
  }
  return out;
}

std::string strategy_help() {
  std::string out;
  for (const StrategyEntry* e : registry()) {
    if (!e->help.empty()) out += (out.empty() ? "" : "; ") + std::string(e->kind.name()) + ": " + std::string(e->help);
  }
  return out;
}

}  // namespace wsstress::sim
