// `wsstress`: the command-line front end. It parses (CLI11, kept to this one
// translation unit because it is slow to compile), runs the chosen subcommand
// and maps every outcome to a documented exit code (exit_codes.hpp).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "exit_codes.hpp"
#include "smoke.hpp"

int main(int argc, char** argv) {
  using namespace wsstress::cli;
  CLI::App app{"wsstress: rayon-core's work-stealing pool in C++20, and the tool that tries to break it"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "wsstress 0.1.0");

  SmokeOptions smoke;
  CLI::App* smoke_cmd = app.add_subcommand("smoke", "quick end-to-end run of the pool: join, install, cross-pool, "
                                                    "broadcast, spawn, termination");
  smoke_cmd->add_option("--threads", smoke.threads, "worker threads per pool (0: RAYON_NUM_THREADS or CPU count)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{65535}));
  smoke_cmd->add_option("--fib", smoke.fib, "compute fib(N) with join")->check(CLI::Range(1, 40));
  smoke_cmd->add_option("--rounds", smoke.rounds, "repeat each step this many times")->check(CLI::Range(1, 100000));
  smoke_cmd->add_option("--timeout", smoke.timeout_seconds, "seconds before the watchdog declares a hang")
      ->check(CLI::Range(1, 86400));

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
    std::fprintf(stderr, "wsstress: error: %s (see --help)\n", what.c_str());
    return kUsage;
  }

  if (smoke_cmd->parsed()) return run_smoke(smoke);
  return kUsage;
}
