// SPDX-License-Identifier: MIT OR Apache-2.0
// The subcommands by name. See subcommands.hpp.
#include "subcommands.hpp"
#include "wsstress/core/shown.hpp"

namespace wsstress::cli {

CLI::App* find_subcommand(CLI::App& level, const std::string& name) {
  for (CLI::App* s : level.get_subcommands([](CLI::App*) { return true; })) {
    if (s->check_name(name)) return s;
  }
  return nullptr;
}

namespace {
// The visible subcommands of `level`, "a, b, c".
std::string subcommand_names(CLI::App* level) {
  std::string names;
  for (CLI::App* s : level->get_subcommands([](CLI::App*) { return true; })) {
    if (!s->get_group().empty()) names += (names.empty() ? "" : ", ") + s->get_name();  // not the hidden ones
  }
  return names;
}
}  // namespace

std::optional<std::string> unknown_subcommand(CLI::App& app, const std::vector<std::string>& args) {
  CLI::App* level = &app;
  bool options = false;  // --help, --version: CLI11 answers them
  for (std::size_t i = 1; i < args.size(); ++i) {
    const auto subs = level->get_subcommands([](CLI::App*) { return true; });
    if (subs.empty()) break;
    if (args[i].rfind('-', 0) == 0) {
      options = true;
      continue;
    }
    CLI::App* next = find_subcommand(*level, args[i]);
    if (next == nullptr) {
      const std::string of = level == &app ? "" : " of " + shown(level->get_name());
      return "unknown subcommand " + shown(args[i]) + of + " (choose from: " + subcommand_names(level) + ")";
    }
    level = next;
  }
  // `wsstress mutants` alone: name what it needs, not CLI11's "A subcommand is required".
  if (level != &app && !options && level->get_require_subcommand_min() > 0) {
    return "'" + level->get_name() + "' needs a subcommand (choose from: " + subcommand_names(level) + ")";
  }
  return std::nullopt;
}

}  // namespace wsstress::cli
