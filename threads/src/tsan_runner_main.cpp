// SPDX-License-Identifier: MIT OR Apache-2.0
// wsstress-tsan: the scenarios on real threads, compiled with ThreadSanitizer:
// the runner of `wsstress mutants check --engine tsan` (tsan_engine.cpp), and
// the replay of its findings. It takes the options of `wsstress run` that shape
// a run, read by the flag table's parser (stress/run_flags.hpp: the same rows,
// checks and messages as `wsstress run`, --seeds A..B included), and sweeps the
// seeds with the same campaign (hang watchdog included).
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

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "wsstress/core/run_flags.hpp"
#include "wsstress/threads/campaign.hpp"

namespace {

using namespace wsstress::threads;

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
  std::printf("fail %llu %s %.3f\t%s\n", static_cast<unsigned long long>(f.seed), verdict_name(f.verdict.kind),
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

// `wsstress-tsan --help`: the flags it takes, from the table.
void print_help() {
  std::printf("wsstress-tsan: wsstress's scenarios on real threads under ThreadSanitizer\n"
              "Usage: wsstress-tsan run [--flag VALUE]...   (the options of `wsstress run` that shape a run)\n");
  for (const RunFlag& f : run_flags()) {
    if (f.taken_by(kTsanRunner)) {
      std::printf("  %-16s %.*s\n", std::string(f.long_name()).c_str(), static_cast<int>(f.help.size()), f.help.data());
    }
  }
}

int usage(const std::string& what) {
  std::fprintf(stderr, "wsstress-tsan: %s\n", what.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  die_with_parent();
  const std::vector<std::string> args(argv + std::min(argc, 2), argv + argc);
  if (argc >= 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    print_help();
    return 0;
  }
  if (argc < 2 || std::string(argv[1]) != "run") return usage("expected the subcommand `run` (see --help)");
  CampaignSpec spec;
  spec.program = "wsstress-tsan";
  const auto given = parse_run_flags(args, kTsanRunner, spec.run);
  if (!given) return usage(given.error());
  if (auto ok = check_external_mutant(spec.run); !ok) return usage(ok.error());
  if (given->count("--seed") > 0 && given->count("--seeds") > 0) return usage("--seed and --seeds exclude each other");
  for (const char* name : {"--seed", "--seeds"}) {
    if (const auto it = given->find(name); it != given->end()) {
      const auto range = parse_seed_range(it->second);
      if (!range) return usage(std::string(name) + ": " + range.error());
      spec.seeds = *range;
    }
  }
  if (spec.seeds.to - spec.seeds.from == UINT64_MAX) return usage("--seeds: 2^64 seeds cannot be counted");
  if (const auto it = given->find("--max-seconds"); it != given->end()) {
    spec.max_seconds = std::strtod(it->second.c_str(), nullptr);
  }
  return run(spec);
}
