// One vocabulary across subcommands (issue #17): the option names that used to
// differ by subcommand (`--budget`, `--time`, `--time-limit` for a time budget;
// `--timeout` for the hang timeout; fuzz's `--seed` for libFuzzer's seed;
// relacy's `--iterations` for executions) are still accepted for one release:
// they are rewritten to the shared name before parsing, with a note on stderr.
// Also here: naming a misspelt subcommand, which CLI11 reports only as "A
// subcommand is required".
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace wsstress::cli {

struct Rename {
  const char* command;  // the (innermost) subcommand it belongs to
  const char* old_name;
  const char* new_name;
};

// Every old spelling and its replacement, in one table.
inline constexpr Rename kRenames[] = {
    {"smoke", "--timeout", "--hang-timeout"},  {"run", "--timeout", "--hang-timeout"},
    {"check", "--budget", "--max-seconds"},    {"fuzz", "--time", "--max-seconds"},
    {"fuzz", "--seed", "--fuzzer-seed"},        {"relacy", "--time-limit", "--max-seconds"},
    {"relacy", "--iterations", "--executions"},
};

// argv with old spellings replaced (also in `--old=value` form); a note per
// replaced spelling goes to stderr.
std::vector<std::string> modern_arguments(int argc, char** argv);

// The subcommand of `level` called `name` (hidden ones too), or nullptr.
CLI::App* find_subcommand(CLI::App& level, const std::string& name);

// The first argument that should name a subcommand of `app` (or of one of its
// subcommands that requires one) but names none: "unknown subcommand 'x'
// (choose from: a, b)". Nothing if every such argument is known.
std::optional<std::string> unknown_subcommand(CLI::App& app, const std::vector<std::string>& args);

}  // namespace wsstress::cli
