// SPDX-License-Identifier: MIT OR Apache-2.0
// The subcommands of `wsstress`, one file each (smoke.cpp, run_cmd.cpp,
// sim_cmd.cpp for sim and replay, fuzz_cmd.cpp, relacy_cmd.cpp,
// mutants_cmd.cpp, oracle_cmd.cpp): each registers its options on the parser and returns how
// to run it. main.cpp only wires them together.
#pragma once

#include <string>

#include "options.hpp"

namespace wsstress::cli {

Subcommand add_smoke(CLI::App& parent);
Subcommand add_run(CLI::App& parent);
Subcommand add_sim(CLI::App& parent);
Subcommand add_replay(CLI::App& parent);
// `self`: this executable, which the fuzz and mutants commands start as children.
Subcommand add_fuzz(CLI::App& parent, const std::string& self);
Subcommand add_relacy(CLI::App& parent);
Subcommand add_mutants(CLI::App& parent, const std::string& self);
// `oracle`: programs on the port and on rayon-core 1.10.1, compared (oracle_cmd.cpp).
Subcommand add_oracle(CLI::App& parent);
// `report merge`: the shard reports of one run or sim campaign as one (report_merge.cpp).
Subcommand add_report(CLI::App& parent);
// `scoreboard`: schedules to the first failure per strategy, model and mutant (scoreboard_cmd.cpp).
Subcommand add_scoreboard(CLI::App& parent);

// Hidden: completions and man page sections from the parser (generate.cpp).
Subcommand add_generate(CLI::App& app);

}  // namespace wsstress::cli
