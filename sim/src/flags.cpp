// SPDX-License-Identifier: MIT OR Apache-2.0
// The table of `wsstress sim`'s own flags and their spelling. See
// wsstress/sim/flags.hpp. A new knob of the simulator's configuration is one
// row here (and its field in SimConfig or SimCampaignSpec).
#include "wsstress/sim/flags.hpp"

#include <cstdlib>
#include <type_traits>

namespace wsstress::sim {

namespace {

// A row's field, in SimConfig or in the campaign's spec around it.
template <class S, class T>
auto& field(S& s, T SimConfig::*f) {
  return s.config.*f;
}
template <class S, class T>
auto& field(S& s, T SimCampaignSpec::*f) {
  return s.*f;
}

template <auto F>
std::string number_text(const SimCampaignSpec& s) {
  return std::to_string(field(s, F));
}
template <auto F>
void set_number(SimCampaignSpec& s, const std::string& text) {
  auto& v = field(s, F);
  v = static_cast<std::remove_reference_t<decltype(v)>>(std::strtoull(text.c_str(), nullptr, 10));
}

// A registered name or a spec such as "portfolio:pos=6,pct=1" (strategies.hpp).
std::string check_strategy(const std::string& text) { return strategy_error(text); }
std::string strategy_text(const SimCampaignSpec& s) { return strategy_name(s.config.strategy); }
void set_strategy(SimCampaignSpec& s, const std::string& text) {
  s.config.strategy = parse_strategy(text).value_or(s.config.strategy);
}
std::string memory_text(const SimCampaignSpec& s) { return memory_name(s.config.memory); }
void set_memory(SimCampaignSpec& s, const std::string& text) {
  s.config.memory = parse_memory(text).value_or(s.config.memory);
}

std::vector<SimFlag> make_sim_table() {
  using K = core::FlagKind;
  constexpr unsigned kSim = core::kSimCommand;
  // Built on the first call, after every strategy file has registered.
  static const std::string strategy_help_text = sim::strategy_help();
  return {
      {{.names = "--strategy",
        .help = strategy_help_text,
        .takers = kSim,
        .words = strategy_names,
        .check = check_strategy},
       strategy_text,
       set_strategy},
      {{.names = "--memory",
        .help = "sequentially consistent, x86-TSO store buffers, or the C++ memory model (loads may read older "
                "stores; plain memory race-checked)",
        .takers = kSim,
        .words = memory_names},
       memory_text,
       set_memory},
      {{.names = "--pct-depth", .kind = K::Whole, .lo = 1, .hi = 64, .help = "PCT: bug depth d", .takers = kSim},
       number_text<&SimConfig::pct_depth>,
       set_number<&SimConfig::pct_depth>},
      {{.names = "--preemption-bound",
        .kind = K::Whole,
        .lo = 0,
        .hi = 64,
        .help = "DFS: preemptions per schedule",
        .takers = kSim},
       number_text<&SimConfig::preemption_bound>,
       set_number<&SimConfig::preemption_bound>},
      {{.names = "--max-executions",
        .kind = K::Whole,
        .lo = 1,
        .hi = 1e9,
        .help = "DFS: schedules per seed at most",
        .takers = kSim},
       number_text<&SimCampaignSpec::max_executions>,
       set_number<&SimCampaignSpec::max_executions>},
      {{.names = "--step-budget",
        .kind = K::Whole,
        .lo = 1000,
        .hi = 1e12,
        .help = "scheduling points before a livelock report",
        .takers = kSim},
       number_text<&SimConfig::step_budget>,
       set_number<&SimConfig::step_budget>},
  };
}

}  // namespace

const std::vector<SimFlag>& sim_flags() {
  static const std::vector<SimFlag> table = make_sim_table();
  return table;
}

const SimCampaignSpec& sim_command_defaults() {
  static const SimCampaignSpec defaults = [] {
    SimCampaignSpec s;
    s.config.strategy = StrategyKind::Portfolio;
    return s;
  }();
  return defaults;
}

std::vector<std::string> sim_arguments(const SimCampaignSpec& spec) {
  std::vector<std::string> out;
  for (const SimFlag& f : sim_flags()) {
    std::string v = f.get(spec);
    if (v == f.get(sim_command_defaults())) continue;
    out.emplace_back(f.flag.long_name());
    out.push_back(std::move(v));
  }
  return out;
}

std::string sim_command_line(const SimCampaignSpec& spec, std::uint64_t seed) {
  std::string cmd = "wsstress sim";
  for (const std::string& a : core::run_arguments(spec.base.run, core::kSimCommand, seed)) cmd += " " + a;
  for (const std::string& a : sim_arguments(spec)) cmd += " " + a;
  return cmd;
}

}  // namespace wsstress::sim
