// SPDX-License-Identifier: MIT OR Apache-2.0
// The simulator's strategies by name, and the one registry of them (issue
// #40). A strategy is one file under sim/src/strategies/ that defines its
// Strategy class (sim/src/strategy.hpp) and registers itself with
// WSSTRESS_REGISTER_STRATEGY: its name as the CLI and reproducers spell it,
// its place and one line in `wsstress sim --strategy`'s help, and its
// factory. parse_strategy, the names in reports, --strategy's values, help
// and completion, and the scheduler's choice of a Strategy all read the
// registry (a core::Registry, core/registry.hpp, as the matrix's engines and
// the Relacy models are), so adding a strategy is adding a file: the build
// links every file of the folder (sim/CMakeLists.txt).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wsstress/core/registry.hpp"
#include "wsstress/pool/platform/splitmix64.hpp"

namespace wsstress::sim {

struct SimConfig;
class Strategy;  // sim/src/strategy.hpp

// A strategy, as a value: the registered name it stands for, compared by
// name. The constants are the strategies other code asks for by name (the
// DFS tree, the matrix's columns, the portfolio's members, the schedule
// fuzzer); a strategy nothing else names needs none.
class StrategyKind {
 public:
  // A name from static storage (a literal): strategy_name() hands it out as is.
  constexpr explicit StrategyKind(const char* name) noexcept : name_(name) {}
  constexpr const char* name() const noexcept { return name_; }
  constexpr bool operator==(const StrategyKind& o) const noexcept { return std::string_view(name_) == o.name_; }

  static const StrategyKind Random, PCT, DFS, Fuzz, SleepFirst, Portfolio;

 private:
  const char* name_;
};
inline constexpr StrategyKind StrategyKind::Random{"random"};
inline constexpr StrategyKind StrategyKind::PCT{"pct"};
inline constexpr StrategyKind StrategyKind::DFS{"dfs"};
inline constexpr StrategyKind StrategyKind::Fuzz{"fuzz"};
inline constexpr StrategyKind StrategyKind::SleepFirst{"sleep-first"};
inline constexpr StrategyKind StrategyKind::Portfolio{"portfolio"};

// One strategy's entry in the registry.
struct StrategyEntry {
  StrategyKind kind;
  // Its place in --strategy's values, help and completion (ascending): the
  // registry sorts by it, as files register in no set order.
  int rank = 0;
  // What --strategy's help says of it; "" keeps it off the command line (the
  // fuzz strategy reads a fuzzer's input, which `wsstress sim` has none of).
  std::string_view help{};
  // The strategy for a configuration; `rng` is the scheduler's generator.
  std::unique_ptr<Strategy> (*make)(const SimConfig& config, SplitMix64& rng) = nullptr;
  // A strategy that runs another one per seed (the portfolio): the
  // configuration actually run, whose strategy has a `make`. Null for the rest.
  SimConfig (*resolve)(const SimConfig& config) = nullptr;
  // A strategy that learns from a trial run of the same seed (SURW's event
  // counts): simulate() first runs the program under `make`'s strategy, then
  // under this one, made from the trial's. Null for the rest.
  std::unique_ptr<Strategy> (*after_trial)(const SimConfig& config, SplitMix64& rng, const Strategy& trial) = nullptr;
  // A strategy that takes a spec after its name and a colon (the portfolio's
  // weights: "portfolio:pos=6,pct=1"): "" if `word` is a valid one, else why
  // not, in one line. parse_strategy takes a valid one as a strategy named by
  // the whole word, which this entry runs. Null for the rest.
  std::string (*spec_error)(std::string_view word) = nullptr;
};

const char* strategy_name(StrategyKind s) noexcept;  // its name
// The registered strategy of that name, or a valid spec NAME:... of an entry
// that takes one (its name kept for the program's life); nullopt for another word.
std::optional<StrategyKind> parse_strategy(std::string_view word) noexcept;
// "" if parse_strategy takes `word`, else why not in one line, for the CLI's
// errors: an unknown name lists --strategy's names; a bad spec says what is wrong.
std::string strategy_error(std::string_view word);
// How the registry reads an entry's name and rank (core/registry.hpp).
inline const char* registry_name(const StrategyEntry& e) noexcept { return e.kind.name(); }
inline int registry_rank(const StrategyEntry& e) noexcept { return e.rank; }
// The registry the strategy files add their entries to (WSSTRESS_REGISTER_STRATEGY);
// two strategies of one name or one rank end the program (a build mistake).
core::Registry<StrategyEntry>& strategy_registry();
// Every registered strategy, by rank; the entry of one (nullptr:
// none; a spec's is its entry's).
const std::vector<const StrategyEntry*>& all_strategies();
const StrategyEntry* find_strategy(StrategyKind s) noexcept;
// The names --strategy takes, by rank (the entries with a help line).
std::vector<std::string> strategy_names();
// --strategy's help: "name: help" for each of them, by rank.
std::string strategy_help();

}  // namespace wsstress::sim

// Registers a strategy from its own file: `var` is a name unique in the
// program's strategy files, the rest a StrategyEntry's initializer
// (WSSTRESS_REGISTER, core/registry.hpp).
#define WSSTRESS_REGISTER_STRATEGY(var, ...) \
  WSSTRESS_REGISTER(::wsstress::sim::strategy_registry(), ::wsstress::sim::StrategyEntry, var, __VA_ARGS__)
