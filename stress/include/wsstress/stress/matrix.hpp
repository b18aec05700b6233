// The mutant matrix: every catalog mutant (and the clean pool) run by an
// engine for a time budget, each in a forked child process of its own (a
// mutant may crash or hang the process), reporting whether and how fast it
// was caught. The matrix asks an engine through its library API (a
// MatrixEngine) and reads back a typed EngineResult; it spells no command
// line and parses no report.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "wsstress/stress/catalog.hpp"
#include "wsstress/stress/scenario.hpp"

namespace wsstress::stress {

struct MatrixSpec {
  std::string engine = "stress";  // stress, sim-sc, sim-tso, relacy, tsan, ...
  std::size_t sim_iterations = 3;
  double budget_s = 60;          // per mutant
  double hang_timeout_s = 2;     // no progress for this long in a child = a hang
  RunSpec base;                  // threads, pools, iterations, noise for every child
  std::vector<std::string> only; // empty: the whole catalog
  // Overrides of the catalog's expected failure kinds (`--expect-kind`), to
  // check the checker: a catch of another kind must be reported.
  std::map<std::string, FailureKinds> expect_kinds;
};

// What an engine found for one mutant, as a row needs it.
struct EngineResult {
  bool caught = false;
  std::string outcome;          // caught: the verdict ("bug", "hang", "DEADLOCK"); else "pass", "empty (no seed ran)", "error (...)"
  std::string message;          // the failure's one line (or the error's)
  std::uint64_t first_seed = 0; // the failing seed (Relacy: the failing execution)
  std::uint64_t runs = 0;       // seeds, executions or inputs run
  double at_seconds = -1;       // when the catch came (< 0: the child's whole time)
  std::string replay;           // the command that shows the catch again
};

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

// An engine the matrix can ask. `run` executes in the row's child process
// (`dir` is the matrix's scratch folder) and returns the result, or ends the
// process through `deliver`. The child is killed at budgets x budget_s +
// hang_factor x hang timeout + slack_s.
struct MatrixEngine {
  std::function<EngineResult(const MatrixSpec&, const MutantInfo&, const std::string& dir, const Deliver&)> run;
  double budgets = 1;   // Relacy runs one search per model that targets the mutant
  double slack_s = 30;  // a fuzz engine converts its finding after the budget
  // The column measures (a strategy or a fuzzer the catalog's expectations
  // were not set with): only the clean pool and the negative controls are
  // judged there (no finding).
  bool measure_only = false;
  // The engine's own hang timeout, in matrix hang timeouts (TSan runs 5x slower).
  double hang_factor = 1;
};

// The engines built into stress/: "stress" (real threads), "sim-sc",
// "sim-tso" (the simulator's PCT sweep), and under SC "sim-random" (the
// uniform random walk), "sim-sleep-first" and "sim-portfolio"; nullptr for
// another name.
const MatrixEngine* builtin_engine(const std::string& name);

// "tsan": the mutant's scenario on real threads in wsstress-tsan, the
// scenarios built with ThreadSanitizer (found beside the running executable,
// or at $WSSTRESS_TSAN_RUNNER); a TSan report is a `race` row.
const MatrixEngine& tsan_matrix_engine();
// The whole file at `path` ("" if it cannot be read): what an engine's child wrote.
std::string slurp(const std::string& path);

// A TSan report's one line for that row: its kind and, for each of its two
// accesses, the first frame of the project's own code ("ThreadSanitizer: data
// race: Read of size 1 by thread T2 in JobResult::into_return_value at
// job.hpp:112; Previous write ...").
std::string summarize_tsan_report(const std::string& log);

// What a fuzz engine's child writes to its stderr before it converts a
// finding in process: a conversion that crashes the child (ASan ends it, the
// pool under test crashed) still reports how many executions found it and
// when. Followed by "<executions> executions in <seconds> s".
inline constexpr const char* kFuzzFindingMarker = "wsstress: fuzz finding after ";

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

// Runs the matrix with `engine` (spec.engine names it, and says which of the
// catalog's expectations judge the rows); `on_row` is called as
// each row completes (for progress).
MatrixReport run_matrix(const MatrixSpec& spec, const MatrixEngine& engine,
                        const std::function<void(const MatrixRow&)>& on_row);

}  // namespace wsstress::stress
