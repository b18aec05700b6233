// The registry of engines: every engine file adds its object before main
// (WSSTRESS_REGISTER_ENGINE), and the matrix and the CLI read the list, sorted
// by each engine's rank so that the help and completions keep one order
// whatever order the linker ran the files' initializers in. Also the default
// rendering of a cell, which most engines keep.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "wsstress/matrix/engine.hpp"

namespace wsstress::matrix {
namespace {

// Function-local, so that it exists before the first engine file's
// initializer runs, whichever file that is.
std::vector<const Engine*>& registry() {
  static std::vector<const Engine*> engines;
  return engines;
}

}  // namespace

bool add_engine(const Engine& e) {
  auto& engines = registry();
  if (find_engine(e.name()) != nullptr) {
    std::fprintf(stderr, "wsstress: two engines are named '%.*s'\n", static_cast<int>(e.name().size()),
                 e.name().data());
    std::abort();
  }
  engines.push_back(&e);
  std::stable_sort(engines.begin(), engines.end(), [](const Engine* a, const Engine* b) { return a->rank() < b->rank(); });
  return true;
}

const std::vector<const Engine*>& all_engines() { return registry(); }

const Engine* find_engine(std::string_view name) {
  for (const Engine* e : registry()) {
    if (e->name() == name) return e;
  }
  return nullptr;
}

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
