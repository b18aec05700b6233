// SPDX-License-Identifier: MIT OR Apache-2.0
// The registry of strategies (strategies.hpp) the files of strategies/ fill,
// and the strategies' names as reproducers, reports and the CLI spell them:
// parse_strategy, a portfolio spec's name, --strategy's names, help and
// errors. In the parsers library, apart from simulate.cpp, so that
// reproducers parse without the scheduler.
#include <mutex>
#include <set>

#include "wsstress/core/shown.hpp"
#include "wsstress/sim/engine.hpp"

namespace wsstress::sim {

core::Registry<StrategyEntry>& strategy_registry() {
  // Function-local, so that it exists before the first strategy file's
  // initializer runs, whichever file that is.
  static core::Registry<StrategyEntry> registry("wsstress", "strategies");
  return registry;
}

const std::vector<const StrategyEntry*>& all_strategies() { return strategy_registry().all(); }

namespace {

// The entry whose name is `word` up to its first colon, if it takes a spec.
const StrategyEntry* spec_taker(std::string_view word) noexcept {
  const auto colon = word.find(':');
  if (colon == std::string_view::npos) return nullptr;
  for (const StrategyEntry* e : all_strategies()) {
    if (word.substr(0, colon) == e->kind.name()) return e->spec_error != nullptr ? e : nullptr;
  }
  return nullptr;
}

// A spec's name for the program's life (StrategyKind keeps a pointer); one
// copy per spelling, so that names compare as the registered ones do.
StrategyKind interned(std::string_view word) {
  static std::mutex lock;
  static std::set<std::string, std::less<>> names;
  const std::lock_guard<std::mutex> hold(lock);
  return StrategyKind(names.emplace(word).first->c_str());
}

}  // namespace

const StrategyEntry* find_strategy(StrategyKind s) noexcept {
  if (const StrategyEntry* e = strategy_registry().find(s.name())) return e;
  return spec_taker(s.name());
}

const char* strategy_name(StrategyKind s) noexcept { return s.name(); }

std::optional<StrategyKind> parse_strategy(std::string_view word) noexcept {
  if (const StrategyEntry* e = strategy_registry().find(word)) return e->kind;
  if (const StrategyEntry* e = spec_taker(word); e != nullptr && e->spec_error(word).empty()) return interned(word);
  return std::nullopt;
}

std::string strategy_error(std::string_view word) {
  if (parse_strategy(word)) return {};
  if (const StrategyEntry* e = spec_taker(word)) return e->spec_error(word);
  std::string list;
  for (const std::string& n : strategy_names()) list += (list.empty() ? "" : ", ") + n;
  return "unknown strategy " + shown(word) + " (strategies: " + list + ")";
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> out;
  for (const StrategyEntry* e : all_strategies()) {
    if (!e->help.empty()) out.emplace_back(e->kind.name());
  }
  return out;
}

std::string strategy_help() {
  std::string out;
  for (const StrategyEntry* e : all_strategies()) {
    if (!e->help.empty()) out += (out.empty() ? "" : "; ") + std::string(e->kind.name()) + ": " + std::string(e->help);
  }
  return out;
}

}  // namespace wsstress::sim
