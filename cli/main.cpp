// `wsstress`: the command-line front end. It wires the subcommands (each in
// its own file, see commands.hpp) into one parser, parses, runs the chosen one
// and maps a parse error to the documented usage exit code (exit_codes.hpp).
#include <unistd.h>

#include <climits>
#include <string>
#include <vector>

#include "commands.hpp"
#include "exit_codes.hpp"

namespace {

// The path of this executable, for the commands that run it as a child.
std::string self_path(const char* argv0) {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) return std::string(buf, static_cast<std::size_t>(n));
  return argv0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace wsstress::cli;
  CLI::App app{"wsstress: rayon-core's work-stealing pool in C++20, and the tool that tries to break it.\n"
               "Exit codes: 0 ok, 1 bug found, 2 usage error, 3 internal error, 4 hang."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "wsstress 0.1.0");
  const std::string self = self_path(argv[0]);
  const std::vector<Subcommand> commands = {add_smoke(app), add_run(app),          add_sim(app),
                                            add_replay(app), add_fuzz(app, self), add_relacy(app),
                                            add_mutants(app, self)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    for (char& c : what) {
      if (c == '\n') c = ' ';
    }
    return usage_error(what);
  }
  for (const Subcommand& c : commands) {
    if (c.app->parsed()) return c.run();
  }
  return kUsage;
}
