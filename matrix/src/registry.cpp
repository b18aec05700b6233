// SPDX-License-Identifier: MIT OR Apache-2.0
// The registry of engines: every file of engines/ adds its object before
// main (WSSTRESS_REGISTER_ENGINE), and the matrix and the CLI read the list,
// in rank order whatever order the linker ran the files' initializers in.
// Also the default rendering of a cell, which most engines keep.
#include <cstdio>

#include "wsstress/matrix/engine.hpp"

namespace wsstress::matrix {

core::Registry<Engine>& engine_registry() {
  // Function-local, so that it exists before the first engine file's
  // initializer runs, whichever file that is.
  static core::Registry<Engine> registry("wsstress", "engines");
  return registry;
}

const std::vector<const Engine*>& all_engines() { return engine_registry().all(); }

const Engine* find_engine(std::string_view name) { return engine_registry().find(name); }

bool is_engine_error(const MatrixRow& row) { return row.outcome.rfind("error", 0) == 0; }

bool is_incomplete(const MatrixRow& row) { return !row.caught && row.outcome == kIncomplete; }

std::string verdict_word(const MatrixRow& row) { return row.outcome.substr(0, row.outcome.find(' ')); }

std::string seconds_text(double seconds) {
  char b[64];
  std::snprintf(b, sizeof b, "%.1f s", seconds);
  return b;
}

std::string with_judgement(std::string cell, const MatrixRow& row) { return row.as_expected ? cell : cell + " !"; }

std::string Engine::cell(const MatrixRow& row) const {
  if (is_engine_error(row)) return row.outcome + " !";
  return with_judgement(row.caught ? verdict_word(row) + ", seed " + std::to_string(row.first_seed) + ", " +
                                         seconds_text(row.seconds)
                                   : "- (" + std::to_string(row.runs) + " seeds)",
                        row);
}

}  // namespace wsstress::matrix
