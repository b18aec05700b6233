// wsstress-tsan: the scenarios on real threads, compiled with ThreadSanitizer:
// the runner of `wsstress mutants check --engine tsan` (tsan_engine.cpp), and
// the replay of its findings. It takes the options of `wsstress run` that shape
// a run and sweeps the seeds with the same campaign (hang watchdog included).
// A TSan report ends the process from inside the pool (the engine sets
// halt_on_error), so the seed in flight is named on stdout before each seed.
// Its stdout is a small line protocol the engine reads:
//   seed N                     seed N starts
//   fail N WORD SECONDS\tLINE  seed N failed without a TSan report (WORD: bug, hang, crash)
//   done RUNS                  every seed passed (or the budget ran out)
// Exit codes: 0 done, 1 a failure, 2 a bad option; a TSan report exits with
// TSAN_OPTIONS' exitcode (66 by default).
#include <sys/prctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "wsstress/stress/campaign.hpp"
#include "wsstress/stress/catalog.hpp"
#include "wsstress/stress/scenarios.hpp"

namespace {

using namespace wsstress::stress;

// The engine's process may be killed at its deadline; this one goes with it.
// The engine names itself in WSSTRESS_TSAN_PARENT: if another process is the
// parent already (it died before the prctl, and a reaper adopted this one), end.
void die_with_parent() {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (const char* parent = std::getenv("WSSTRESS_TSAN_PARENT"); parent != nullptr) {
    if (std::to_string(getppid()) != parent) _exit(1);
  }
}

void print_failure(const SeedFailure& f) {
  std::string line = f.verdict.message;
  for (char& c : line) {
    if (c == '\n' || c == '\t') c = ' ';
  }
  std::printf("fail %llu %s %.3f\t%s\n", static_cast<unsigned long long>(f.seed), to_string(f.verdict.kind),
              f.at_seconds, line.c_str());
  if (!f.verdict.dump.empty()) std::fprintf(stderr, "%s\n", f.verdict.dump.c_str());
  std::fflush(stdout);
}

int run(const CampaignSpec& spec) {
  CampaignHooks hooks;
  hooks.seed_started = [](std::uint64_t seed) {
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    std::fflush(stdout);
  };
  // A hang or a broken invariant: the pool's threads are stuck, end here.
  hooks.fatal = [](const CampaignReport& report) {
    print_failure(report.failures.back());
    std::fflush(stderr);
    _exit(1);
  };
  StopSignals stop;
  const CampaignReport report = run_campaign(spec, hooks);
  if (!report.failures.empty()) {
    print_failure(report.failures.front());
    return 1;
  }
  std::printf("done %llu\n", static_cast<unsigned long long>(report.runs));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  die_with_parent();
  CLI::App app{"wsstress-tsan: wsstress's scenarios on real threads under ThreadSanitizer"};
  app.require_subcommand(1);
  CLI::App* cmd = app.add_subcommand("run", "sweep seeds of one scenario (the options of `wsstress run`)");
  CampaignSpec spec;
  spec.program = "wsstress-tsan";
  std::uint64_t seed = 0, seed_to = 0;
  cmd->add_option("--scenario", spec.run.scenario, "what to run")->check(CLI::IsMember(scenario_names()));
  cmd->add_option("--mutant", spec.run.mutant, "a catalog mutant, or none")->check([](const std::string& m) {
    return find_mutant(m) == nullptr ? "unknown mutant '" + m + "'" : std::string();
  });
  auto* from = cmd->add_option("--seed", seed, "the first (or only) seed");
  cmd->add_option("--seed-to", seed_to, "the last seed (inclusive)")->needs(from);
  cmd->add_option("--threads", spec.run.threads, "workers per pool")->check(CLI::Range(1, 64));
  cmd->add_option("--pools", spec.run.pools, "pools a scenario may use")->check(CLI::Range(1, 8));
  cmd->add_option("--iterations", spec.run.iterations, "programs per seed")->check(CLI::Range(1, 100000));
  cmd->add_option("--noise", spec.run.noise, "0 = off .. 3 = heavy")->check(CLI::Range(0, 3));
  cmd->add_option("--hang-timeout", spec.run.timeout_s, "no progress for this long = a hang")
      ->check(CLI::Range(0.1, 86400.0));
  cmd->add_option("--max-seconds", spec.max_seconds, "time budget (0: none)")->check(CLI::Range(0.0, 1e9));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (seed_to < seed) seed_to = seed;
  if (seed_to - seed == UINT64_MAX) {
    std::fprintf(stderr, "wsstress-tsan: --seed-to: 2^64 seeds cannot be counted\n");
    return 2;
  }
  spec.seeds = {seed, seed_to};
  return run(spec);
}
