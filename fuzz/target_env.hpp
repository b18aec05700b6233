// SPDX-License-Identifier: MIT OR Apache-2.0
// What a fuzz target reads at start-up: its own options, from the flag table
// (stress/run_flags.hpp, the same rows, checks and messages as `wsstress`),
// given after libFuzzer's `-ignore_remaining_args=1` (which makes libFuzzer,
// and the standalone driver, leave the rest of the command line alone; its
// fork mode passes them on to its children):
//   program_fuzzer CORPUS -ignore_remaining_args=1 --mutant NAME --hang-timeout S
//   schedule_fuzzer CORPUS -ignore_remaining_args=1 --mutant NAME --scenario S
// A bad option ends the process with exit 2 and one line naming it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "wsstress/core/run_flags.hpp"

namespace wsstress::fuzz {

using GivenFlags = std::map<std::string, std::string, std::less<>>;

// Fills `spec` from the options after -ignore_remaining_args=1 in argv.
inline GivenFlags target_options(int* argc, char*** argv, const char* target, unsigned taker, core::RunSpec& spec) {
  std::vector<std::string> args;
  bool ours = false;
  for (int i = 1; argc != nullptr && argv != nullptr && i < *argc; ++i) {
    const std::string a = (*argv)[i];
    if (ours) args.push_back(a);
    if (a == "-ignore_remaining_args=1") ours = true;
  }
  if (core::run_flag("--hang-timeout").taken_by(taker)) spec.hang_timeout_s = core::default_hang_timeout(taker);
  auto given = core::parse_run_flags(args, taker, spec);
  if (!given) {
    std::fprintf(stderr, "%s: %s\n", target, given.error().c_str());
    std::exit(2);
  }
  return *given;
}

}  // namespace wsstress::fuzz
