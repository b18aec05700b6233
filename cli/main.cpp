// SPDX-License-Identifier: MIT OR Apache-2.0
// `wsstress`: the command-line front end. It wires the subcommands (each in
// its own file, see commands.hpp) into one parser, parses, runs the chosen one
// and maps a parse error to the documented usage exit code (exit_codes.hpp).
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "output.hpp"
#include "subcommands.hpp"
#include "version.hpp"
#include "wsstress/core/shown.hpp"

namespace {

using namespace wsstress::cli;

// The path of this executable, for the commands that run it as a child.
std::string self_path(const char* argv0) {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) return std::string(buf, static_cast<std::size_t>(n));
  return argv0;
}

// `wsstress help [SUBCOMMAND...]`: the same text as --help, on stdout.
Subcommand add_help(CLI::App& app) {
  auto topic = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand("help", "show the help of wsstress or of a subcommand");
  cmd->add_option("subcommand", *topic, "e.g. `run`, or `mutants check`");
  cmd->footer("Example:\n  wsstress help mutants check");
  return {cmd, [&app, topic] {
            CLI::App* target = &app;
            std::string path;  // the names before the target's, for its usage line
            for (const std::string& name : *topic) {
              path += (path.empty() ? "" : " ") + target->get_name();
              CLI::App* next = find_subcommand(*target, name);
              if (next == nullptr) return usage_error("help: no subcommand " + wsstress::shown(name));
              target = next;
            }
            // App::help() would show the selected subcommand (this one): ask the formatter.
            const std::string name = path.empty() ? target->get_name() : path + " " + target->get_name();
            std::fputs(target->get_formatter()->make_help(target, name, CLI::AppFormatMode::Normal).c_str(), stdout);
            return static_cast<int>(kOk);
          }};
}

int parse_error(const CLI::ParseError& e) {
  std::string what = e.what();
  for (char& c : what) {
    if (c == '\n') c = ' ';
  }
  return usage_error(what);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace wsstress::cli;
  reserve_standard_streams();
  CLI::App app{"wsstress: rayon-core's work-stealing pool in C++20, and the tool that tries to break it.\n"
               "Exit codes: 0 ok, 1 bug found, 2 usage error, 3 internal error, 4 hang, 5 nothing ran;\n"
               "128+N stopped by signal N.",
               "wsstress"};
  app.require_subcommand(1);
  app.set_version_flag("--version", kToolVersion);
  app.option_defaults()->always_capture_default();
  app.footer("Run `wsstress help SUBCOMMAND` (or `wsstress SUBCOMMAND --help`) for its options and examples.");
  const std::string self = self_path(argv[0]);
  const std::vector<Subcommand> commands = {add_smoke(app),         add_run(app),        add_sim(app),
                                            add_replay(app),        add_fuzz(app, self), add_relacy(app),
                                            add_mutants(app, self), add_oracle(app),     add_report(app),
                                            add_scoreboard(app),    add_help(app),       add_generate(app)};
  if (auto bad = unknown_subcommand(app, std::vector<std::string>(argv, argv + argc))) return usage_error(*bad);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return text_report_code(app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    return text_report_code(app.exit(e));
  } catch (const CLI::CallForVersion& e) {
    return text_report_code(app.exit(e));
  } catch (const CLI::ParseError& e) {
    return parse_error(e);
  }
  for (const Subcommand& c : commands) {
    if (c.app->parsed()) return text_report_code(c.run());
  }
  return kUsage;
}
