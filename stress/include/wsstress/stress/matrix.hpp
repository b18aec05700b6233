// The mutant matrix: every catalog mutant (and the clean pool) run by an
// engine for a time budget, each in a child process of its own (a mutant may
// crash or hang the process), reporting whether and how fast it was caught.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "wsstress/stress/catalog.hpp"
#include "wsstress/stress/scenario.hpp"

namespace wsstress::stress {

struct MatrixSpec {
  std::string engine = "stress";  // stress, sim-sc, sim-tso, relacy
  std::size_t sim_iterations = 3;
  double budget_s = 60;          // per mutant
  double hang_timeout_s = 2;     // no progress for this long in a child = a hang
  RunSpec base;                  // threads, pools, iterations, noise for every child
  std::vector<std::string> only; // empty: the whole catalog
  std::string self;              // path of the wsstress executable to run children with
  // Overrides of the catalog's expected failure kinds (`--expect-kind`), to
  // check the checker: a catch of another kind must be reported.
  std::map<std::string, FailureKinds> expect_kinds;
};

struct MatrixRow {
  MutantInfo mutant;
  std::string scenario;
  bool caught = false;
  std::string outcome;        // "bug", "hang", "crash (signal 6)", "pass" ...
  std::string message;        // the first failure's message, if any
  std::uint64_t first_seed = 0;
  std::uint64_t runs = 0;     // seeds run (to the first catch, or in the budget)
  double seconds = 0;         // to the first catch, or the whole budget
  std::string replay;         // the child's replay command for the catch
  FailureKind kind = FailureKind::None;  // what the catch was (classify_failure)
  bool kind_as_expected = true;          // the catch's kind is one the catalog allows
  bool as_expected = true;    // per the catalog's Expect: caught if Catch, clean if Pass; and of an allowed kind
};

struct MatrixReport {
  MatrixSpec spec;
  std::vector<MatrixRow> rows;
  int stopped_by_signal = 0;  // StopSignals ended it before the last row
  double elapsed_s = 0;
};

// Runs the matrix; `on_row` is called as each row completes (for progress).
MatrixReport run_matrix(const MatrixSpec& spec, const std::function<void(const MatrixRow&)>& on_row);

}  // namespace wsstress::stress
