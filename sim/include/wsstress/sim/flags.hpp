// SPDX-License-Identifier: MIT OR Apache-2.0
// `wsstress sim`'s own flags, defined once, beside the
// run's table (wsstress/stress/run_flags.hpp) and with its types: each row is
// a RunFlag (names, kind, range, help, the words it takes) plus how it reads
// and sets a simulator campaign's spec. From the rows: `sim`'s CLI11 options
// (cli/options.cpp: add_sim_flags; through CLI11 the man page and the
// completions), and every command line the tool spells for a simulated run
// (sim_command_line: the matrix's replay lines). --strategy's values and help
// come from the strategy registry (strategies.hpp), --memory's from the
// memory models' words, so a new strategy or model needs no edit here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wsstress/core/run_flags.hpp"
#include "wsstress/sim/engine.hpp"

namespace wsstress::sim {

struct SimFlag {
  core::RunFlag flag;  // taken by core::kSimCommand
  // Its value in `spec`, as a command line spells it.
  std::string (*get)(const SimCampaignSpec& spec) = nullptr;
  // Sets it from a text core::check_flag_value accepted.
  void (*set)(SimCampaignSpec& spec, const std::string& text) = nullptr;
};

// Every row, in the order `sim --help` and command lines show them.
const std::vector<SimFlag>& sim_flags();
// What `wsstress sim` runs with where a row's flag is absent: the portfolio,
// and the initializers of SimConfig and SimCampaignSpec for the rest.
const SimCampaignSpec& sim_command_defaults();
// The rows' flags whose values in `spec` differ from sim_command_defaults(),
// in the table's order: {"--strategy", "pct", ...}.
std::vector<std::string> sim_arguments(const SimCampaignSpec& spec);
// "wsstress sim" with the flags that run `seed` of `spec` again: the run
// table's (core::run_arguments for kSimCommand), then sim_arguments.
std::string sim_command_line(const SimCampaignSpec& spec, std::uint64_t seed);

}  // namespace wsstress::sim
