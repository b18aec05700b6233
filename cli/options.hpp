// SPDX-License-Identifier: MIT OR Apache-2.0
// What the subcommands share on the command line: the usage-error line, the
// option validators, the seed/seeds/shard trio, reading a program file.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "wsstress/core/result.hpp"
#include "wsstress/core/run_flags.hpp"
#include "wsstress/core/sweep.hpp"
#include "wsstress/sim/flags.hpp"

namespace wsstress::cli {

// A subcommand of `wsstress`: it has registered its options on the parser;
// `run` checks what CLI11 cannot and runs it, returning an exit code.
struct Subcommand {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// One line on stderr naming the problem; returns the usage exit code.
int usage_error(const std::string& what);

// The catalog's mutant names, for --mutant's check.
std::vector<std::string> mutant_names();

// A decimal option's check: a finite number in [lo, hi], written in decimal
// digits ([-]D[.D][eN]: no blanks, no hex, no nan, no inf).
CLI::Validator finite_range(double lo, double hi);
// A whole-number option's check: digits only (no 1.5, no -1, no 1e3) in [lo, hi].
CLI::Validator whole_range(std::uint64_t lo, std::uint64_t hi);

// The words an option takes, kept once for its check and for the shell
// completion (`wsstress generate bash` reads them back).
// one_of: the option accepts exactly these (CLI11's IsMember); completes: a
// list option or one with its own check, completed with these words (or with
// what `words` returns when the completion is generated, for lists another
// program holds: the Relacy models); completes_files: completed with file
// names (output_path() options are found by their check, without this).
CLI::Option* one_of(CLI::Option* opt, const std::vector<std::string>& words);
CLI::Option* completes(CLI::Option* opt, const std::vector<std::string>& words);
CLI::Option* completes(CLI::Option* opt, std::function<std::vector<std::string>()> words);
CLI::Option* completes_files(CLI::Option* opt);
struct Completion {
  bool files = false;
  std::function<std::vector<std::string>()> words;
};
// How `opt` completes (nullptr: it was not registered).
const Completion* completion_of(const CLI::Option* opt);

// The options every subcommand spells the same way (one
// vocabulary). Each returns the option.
inline constexpr std::size_t kMaxThreads = 64;  // one range for every engine (the simulator's limit)
CLI::Option* add_threads(CLI::App* cmd, std::size_t& threads, std::size_t lo = 1,
                         const char* what = "worker threads per pool");
CLI::Option* add_max_seconds(CLI::App* cmd, double& seconds, const std::string& what, double lo = 0, double hi = 1e9);
CLI::Option* add_json(CLI::App* cmd, std::string& path, const std::string& what);
CLI::Option* add_quiet(CLI::App* cmd, bool& quiet, const std::string& what);

// The flag table's rows (stress/run_flags.hpp) as CLI11 options: the row's
// names, help and check (its range for `taker`), and its words for the
// completion. add_table_option binds one row to any variable of its type;
// add_run_flags binds, in the table's order, every row `taker` takes to its
// RunSpec field, and hands the rows without one (the seeds, --input) to
// `own`, which registers them (nullptr: not taken here); rows in `skip` are
// left to the caller (the matrix keeps its own hang timeout). Returns the
// options by long name.
CLI::Option* with_table_check(CLI::Option* opt, const core::RunFlag& f, unsigned taker);
template <class T>
CLI::Option* add_table_option(CLI::App* cmd, std::string_view long_name, unsigned taker, T& target) {
  const core::RunFlag& f = core::run_flag(long_name);
  return with_table_check(cmd->add_option(std::string(f.names), target, std::string(f.help)), f, taker);
}
using OwnFlagBinder = std::function<CLI::Option*(const core::RunFlag&)>;
using FlagOptions = std::map<std::string, CLI::Option*, std::less<>>;
FlagOptions add_run_flags(CLI::App* cmd, core::RunSpec& spec, unsigned taker, const OwnFlagBinder& own = {},
                          const std::vector<std::string_view>& skip = {});

// `wsstress sim`'s own table (wsstress/sim/flags.hpp) as CLI11 options, each
// setting its part of `spec` (its current value shown as the default), in the
// table's order.
void add_sim_flags(CLI::App* cmd, sim::SimCampaignSpec& spec);

using core::parse_seed_range;
using core::parse_shard;

// What `run` and `sim` sweep when neither --seed nor --seeds is given: seeds
// from 0 until the first failure, for at most kDefaultSweepSeconds unless
// --max-seconds says how long (one seed is not a search).
inline constexpr core::SeedRange kDefaultSweep{0, UINT64_MAX - 1};
inline constexpr double kDefaultSweepSeconds = 60;

// --seed N | --seeds A..B, and --shard I/N.
struct SeedOptions {
  std::string seed, seeds, shard;
  CLI::Option *seed_opt = nullptr, *seeds_opt = nullptr, *shard_opt = nullptr;
  void add_to(CLI::App* cmd);
  // For add_run_flags' `own`: the table's --seed row adds the three, --seeds
  // is among them; nullptr for another row.
  CLI::Option* bind(CLI::App* cmd, const core::RunFlag& f);
  // Fills the range and the shard; a usage error names the option.
  Result<void> resolve(core::SeedRange& range, core::Shard& shard_out) const;
  // For `run` and `sim`: the help says what no seed option means, and
  // default_sweep sets it (kDefaultSweep; kDefaultSweepSeconds unless
  // `max_seconds_opt` was given). Returns whether it did.
  void describe_default_sweep();
  bool default_sweep(core::SeedRange& range, double& max_seconds, const CLI::Option* max_seconds_opt) const;
};

// --input FILE: a program's bytes for --scenario program (at most 64 KiB).
Result<void> read_input(const std::string& path, std::string& scenario, bool scenario_given, std::string& input);

}  // namespace wsstress::cli
