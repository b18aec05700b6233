// What the subcommands share on the command line: the usage-error line, the
// option validators, the seed/seeds/shard trio, reading a program file.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "wsstress/result.hpp"
#include "wsstress/stress/sweep.hpp"

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
// completion (`wsstress generate bash` reads them back; issue #39 item 11).
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

// The options every subcommand spells the same way (issue #17's one
// vocabulary; old spellings in vocabulary.hpp). Each returns the option.
inline constexpr std::size_t kMaxThreads = 64;  // one range for every engine (the simulator's limit)
CLI::Option* add_threads(CLI::App* cmd, std::size_t& threads, std::size_t lo = 1, const char* what = "worker threads per pool");
CLI::Option* add_max_seconds(CLI::App* cmd, double& seconds, const std::string& what, double lo = 0, double hi = 1e9);
CLI::Option* add_hang_timeout(CLI::App* cmd, double& seconds, double hi = 3600);
CLI::Option* add_json(CLI::App* cmd, std::string& path, const std::string& what);
CLI::Option* add_quiet(CLI::App* cmd, bool& quiet, const std::string& what);
CLI::Option* add_mutant(CLI::App* cmd, std::string& mutant);
CLI::Option* add_scenario(CLI::App* cmd, std::string& scenario);
// --threads, --pools, --iterations (programs per seed) of a scenario run.
void add_run_shape(CLI::App* cmd, std::size_t& threads, std::size_t& pools, std::size_t& iterations,
                   std::size_t max_iterations);

// "A..B" (inclusive) or "N".
Result<stress::SeedRange> parse_seed_range(const std::string& text);
// "I/N" with 0 <= I < N.
Result<stress::Shard> parse_shard(const std::string& text);

// --seed N | --seeds A..B, and --shard I/N.
struct SeedOptions {
  std::string seed, seeds, shard;
  CLI::Option *seed_opt = nullptr, *seeds_opt = nullptr, *shard_opt = nullptr;
  void add_to(CLI::App* cmd);
  // Fills the range and the shard; a usage error names the option.
  Result<void> resolve(stress::SeedRange& range, stress::Shard& shard_out) const;
};

// --input FILE: a program's bytes for --scenario program (at most 64 KiB).
Result<void> read_input(const std::string& path, std::string& scenario, bool scenario_given,
                        std::string& input);

}  // namespace wsstress::cli
