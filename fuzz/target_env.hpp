// What both fuzz targets read from the environment at start-up: the mutant
// (WSSTRESS_FUZZ_MUTANT, default none). A name not in the catalog ends the
// process with exit 2 and one line naming it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

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

}  // namespace wsstress::fuzz
