// SPDX-License-Identifier: MIT OR Apache-2.0
// What the two targets that drive the simulator (schedule_fuzzer,
// reads_from_fuzzer) share: their --scenario option, which must name a
// scenario the schedule header can draw, and the report of a failing run
// (the verdict, the state dump and the command that converts the input into
// a reproducer), after which the target aborts so that libFuzzer (or the
// standalone driver) writes the input out.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "target_env.hpp"
#include "wsstress/sim/fuzz_input.hpp"

namespace wsstress::fuzz {

// The pinned scenario (empty: byte 0 of each input picks); a scenario the
// target cannot fuzz ends the process with exit 2 and one line.
inline std::string pinned_scenario(const GivenFlags& given, const core::RunSpec& options, const char* target) {
  if (given.count("--scenario") == 0) return {};
  const std::vector<std::string>& allowed = sim::schedule_fuzz_scenarios();
  if (std::find(allowed.begin(), allowed.end(), options.scenario) == allowed.end()) {
    std::string list;
    for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
    std::fprintf(stderr, "%s: --scenario '%s' is not a scenario it fuzzes (%s)\n", target, options.scenario.c_str(),
                 list.c_str());
    std::exit(2);
  }
  return options.scenario;
}

// A simulator target's options (target_env.hpp): --mutant, and --scenario to
// pin one of the scenarios it fuzzes (empty: byte 0 of each input picks).
struct SimulatorTargetOptions {
  std::string mutant = "none";
  std::string scenario;
};

inline SimulatorTargetOptions simulator_target_options(int* argc, char*** argv, const char* target) {
  core::RunSpec options;
  const GivenFlags given = target_options(argc, argv, target, core::kScheduleFuzzer, options);
  return {options.mutant, pinned_scenario(given, options, target)};
}

// A failing run: its report on stderr (lines starting "== wsstress", which
// `wsstress fuzz` shows), then abort. `target` is `wsstress fuzz`'s name of it.
[[noreturn]] inline void report_finding(const std::string& target, const sim::ScheduleInput& in,
                                        const sim::SimResult& r, const std::string& mutant, const std::string& scenario,
                                        const std::vector<std::string>& also = {}) {
  std::fprintf(stderr, "\n== wsstress %s_fuzzer: %s: %s (scenario %s, mutant %s, %s, %llu steps)\n", target.c_str(),
               core::verdict_name(r.verdict.kind), r.verdict.message.c_str(), in.spec.scenario.c_str(), mutant.c_str(),
               sim::memory_name(in.config.memory), static_cast<unsigned long long>(r.steps));
  for (const std::string& line : also) std::fprintf(stderr, "== wsstress %s_fuzzer %s\n", target.c_str(), line.c_str());
  if (!r.verdict.dump.empty()) std::fprintf(stderr, "== state dump:\n%s\n", r.verdict.dump.c_str());
  std::fprintf(stderr, "== convert to a reproducer: %s\n",
               core::fuzz_command({.target = target, .convert = "<this input>", .mutant = mutant, .scenario = scenario})
                   .c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace wsstress::fuzz
