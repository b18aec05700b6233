// The shared option names and the subcommand check. See vocabulary.hpp.
#include "vocabulary.hpp"
#include "wsstress/core/shown.hpp"

#include <cstdio>

namespace wsstress::cli {

namespace {

// The subcommand path of argv: the leading arguments that are not options
// (top-level and `mutants` take no option values before their subcommand).
std::vector<std::string> command_path(const std::vector<std::string>& args, std::size_t& end) {
  std::vector<std::string> path;
  std::size_t i = 1;
  for (; i < args.size() && path.size() < 2; ++i) {
    if (args[i].rfind('-', 0) == 0) continue;
    path.push_back(args[i]);
    if (args[i] != "mutants") {
      ++i;
      break;
    }
  }
  end = i;
  return path;
}

}  // namespace

std::vector<std::string> modern_arguments(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  std::size_t first = 0;
  const std::vector<std::string> path = command_path(args, first);
  if (path.empty()) return args;
  for (std::size_t i = first; i < args.size(); ++i) {
    if (args[i] == "--") break;  // what follows is not ours to rename
    for (const Rename& r : kRenames) {
      if (path.back() != r.command) continue;
      const std::string old_name = r.old_name;
      if (args[i] != old_name && args[i].rfind(old_name + "=", 0) != 0) continue;
      args[i] = r.new_name + args[i].substr(old_name.size());
      std::fprintf(stderr, "wsstress: note: %s %s is now %s (the old name goes in the next release)\n",
                   r.command, r.old_name, r.new_name);
      break;
    }
  }
  return args;
}

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
  // `wsstress mutants` alone: name what it needs (issue #39), not CLI11's "A subcommand is required".
  if (level != &app && !options && level->get_require_subcommand_min() > 0) {
    return "'" + level->get_name() + "' needs a subcommand (choose from: " + subcommand_names(level) + ")";
  }
  return std::nullopt;
}

}  // namespace wsstress::cli
