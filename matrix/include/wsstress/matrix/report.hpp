// SPDX-License-Identifier: MIT OR Apache-2.0
// The mutant matrix's data: what a row asks of an engine (MatrixSpec), what
// the engine returns (EngineResult, typed: the matrix spells no command line
// and parses no report), and the rows and report the matrix makes of it
// (engines/matrix.hpp runs it, each engine is an matrix::Engine). Every
// catalog mutant (and the clean pool) runs for a time budget, each in a
// forked child process of its own, as a mutant may crash or hang the process.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "wsstress/core/catalog.hpp"
#include "wsstress/core/scenario.hpp"

namespace wsstress::matrix {

// The matrix speaks core's vocabulary: the catalog, specs, failure kinds.
using namespace core;

struct MatrixSpec {
  std::string engine;  // the column's engine (matrix::Engine::name)
  std::string self;    // this executable, which some engines start as a child
  std::size_t sim_iterations = 3;
  double budget_s = 60;                                          // per mutant
  double hang_timeout_s = default_hang_timeout(kMatrixCommand);  // no progress for this long in a child = a hang
  RunSpec base;                                                  // threads, pools, iterations, noise for every child
  std::vector<std::string> only;                                 // empty: the whole catalog
  // Overrides of the catalog's expected failure kinds (`--expect-kind`), to
  // check the checker: a catch of another kind must be reported.
  std::map<std::string, FailureKinds> expect_kinds;
};

// What an engine found for one mutant, as a row needs it.
struct EngineResult {
  bool caught = false;
  std::string outcome;           // caught: the verdict ("bug", "hang", "DEADLOCK"); else "pass", "empty (no seed ran)",
                                 // "incomplete" (kIncomplete), "error (...)"
  std::string message;           // the failure's one line (or the error's)
  std::uint64_t first_seed = 0;  // the failing seed (Relacy: the failing execution)
  std::uint64_t runs = 0;        // seeds, executions or inputs run
  double at_seconds = -1;        // when the catch came (< 0: the child's whole time)
  std::string replay;            // the command that shows the catch again
};

// The outcome of a row whose search was stopped by its limit before it
// reached a verdict (a Relacy search): nothing found, but nothing shown
// either, so never what an engine expects of a row (run_matrix's judge).
inline constexpr const char* kIncomplete = "incomplete";

// A campaign of `runs` seeds that caught nothing ("empty" when none ran).
inline EngineResult nothing_caught(std::uint64_t runs) {
  EngineResult r;
  r.outcome = runs == 0 ? "empty (no seed ran)" : "pass";
  r.runs = runs;
  return r;
}

// A row the engine could not run: "error (exit N)", with the exit code
// `wsstress` gives that failure, and what went wrong.
inline EngineResult engine_error(int exit_code, std::string message) {
  EngineResult r;
  r.outcome = "error (exit " + std::to_string(exit_code) + ")";
  r.message = std::move(message);
  return r;
}

// Hands the result to the matrix and ends the child process; for an engine
// that cannot return (a hang: the pool's threads are stuck).
using Deliver = std::function<void(const EngineResult&)>;

// What a fuzz engine's child writes to its stderr before it converts a
// finding in process: a conversion that crashes the child (ASan ends it, the
// pool under test crashed) still reports how many executions found it and
// when. Followed by "<executions> executions in <seconds> s".
inline constexpr const char* kFuzzFindingMarker = "wsstress: fuzz finding after ";

struct MatrixRow {
  MutantInfo mutant;
  std::string scenario;
  bool caught = false;
  std::string outcome;  // "bug", "hang", "crash (signal 6)", "pass" ...
  std::string message;  // the first failure's message, if any
  std::uint64_t first_seed = 0;
  std::uint64_t runs = 0;                // seeds run (to the first catch, or in the budget)
  double seconds = 0;                    // to the first catch, or the whole budget
  std::string replay;                    // the child's replay command for the catch
  FailureKind kind = FailureKind::None;  // what the catch was (classify_failure)
  bool kind_as_expected = true;          // the catch's kind is one the catalog allows
  bool as_expected = true;  // per the engine's Expect: caught if Catch, clean if Pass; and of an allowed kind
};

struct MatrixReport {
  MatrixSpec spec;
  std::vector<MatrixRow> rows;
  int stopped_by_signal = 0;  // StopSignals ended it before the last row
  double elapsed_s = 0;
};

// run_matrix (engines/matrix.hpp) runs the rows; the engines (engines/engine.hpp) fill them.

}  // namespace wsstress::matrix
