// What the fuzz targets read from the environment at start-up: the mutant
// (WSSTRESS_FUZZ_MUTANT, default none), and schedule_fuzzer's scenario pin
// (WSSTRESS_FUZZ_SCENARIO). A bad name ends the process with exit 2 and one
// line naming it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "wsstress/stress/catalog.hpp"

namespace wsstress::fuzz {

inline std::string mutant_from_env(const char* target) {
  std::string name = "none";
  if (const char* m = std::getenv("WSSTRESS_FUZZ_MUTANT"); m != nullptr && *m != '\0') name = m;
  if (stress::find_mutant(name) == nullptr) {
    std::fprintf(stderr, "%s: unknown mutant '%s' in WSSTRESS_FUZZ_MUTANT (see `wsstress mutants list`)\n", target,
                 name.c_str());
    std::exit(2);
  }
  return name;
}

// schedule_fuzzer's scenario pin (WSSTRESS_FUZZ_SCENARIO, default none: byte
// 0 of each input picks it). A name it cannot fuzz ends the process, exit 2.
inline std::string scenario_from_env(const char* target, const std::vector<std::string>& allowed) {
  const char* s = std::getenv("WSSTRESS_FUZZ_SCENARIO");
  if (s == nullptr || *s == '\0') return {};
  for (const std::string& a : allowed) {
    if (a == s) return a;
  }
  std::string list;
  for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
  std::fprintf(stderr, "%s: WSSTRESS_FUZZ_SCENARIO '%s' is not a scenario it fuzzes (%s)\n", target, s, list.c_str());
  std::exit(2);
}

}  // namespace wsstress::fuzz
