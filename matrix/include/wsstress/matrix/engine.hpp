// SPDX-License-Identifier: MIT OR Apache-2.0
// The matrix's engines behind one interface, and the one registry of them
//. An engine is one class in one file (matrix/src/engines/*.cpp:
// real threads, the simulator, TSan, Relacy, the fuzzers) that says its name,
// how the matrix runs it, what it returns, how its cell reads, what it
// expects of every mutant (its own table, see expect.hpp), and registers
// itself with WSSTRESS_REGISTER_ENGINE (a core::Registry, core/registry.hpp,
// as the strategies and the Relacy models are). The matrix and the CLI
// iterate the registry: no code outside an engine's file compares an
// engine's name, and the build links every file of the folder
// (matrix/CMakeLists.txt), so adding a column is adding a file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wsstress/core/registry.hpp"
#include "wsstress/matrix/expect.hpp"
#include "wsstress/matrix/report.hpp"

namespace wsstress::matrix {

using matrix::Deliver;
using matrix::engine_error;
using matrix::EngineResult;
using matrix::MatrixRow;
using matrix::MatrixSpec;

// How long the matrix lets the row's child run before its backstop kills it:
// budgets x budget_s + hang_factor x hang timeout + slack_s.
struct Limits {
  double budgets = 1;      // Relacy runs one search per model that targets the mutant
  double slack_s = 30;     // a fuzz engine converts its finding after the budget
  double hang_factor = 1;  // the engine's own hang timeout, in matrix hang timeouts (TSan runs 5x slower)
};

class Engine {
 public:
  virtual ~Engine() = default;

  // The column's name: --engine's value, the table's heading, the JSON's key.
  virtual std::string_view name() const = 0;
  // Where the engine stands in --engine's help, choices and completion
  // (ascending); the registry sorts by it, as files register in no set order.
  virtual int rank() const = 0;
  // What --engine's help says after the name, in parentheses ("" for nothing).
  virtual std::string_view gloss() const { return {}; }
  virtual Limits limits() const { return {}; }
  // What --max-seconds is per: "mutant" (the row's whole run), or "search"
  // (Relacy: each of the row's searches has the budget).
  virtual std::string_view budget_unit() const { return "mutant"; }

  // Runs the mutant's scenario (m.scenario) with the mutant for spec.budget_s,
  // from seed 0 until the first failure, in the row's child process (`dir` is
  // the matrix's scratch folder), through the engine's library API, and
  // returns what it found with the command line that shows the catch again
  // (EngineResult::replay, spelled by the engine). An engine that cannot
  // return (a hang: the pool's threads are stuck) ends the child through
  // `deliver`.
  virtual EngineResult run(const MatrixSpec& spec, const MutantInfo& m, const std::string& dir,
                           const Deliver& deliver) const = 0;

  // What the engine expects of `m` within the budget.
  virtual Expect expect(const MutantInfo& m) const = 0;
  // Whether a catch must be of one of the mutant's kinds; a column that only
  // measures (a fuzzer's program finding has no kind of its own) says no.
  virtual bool judges_kinds() const { return true; }
  // The outcome of a row the engine does not run (Relacy: no model targets
  // the mutant), or nullopt to run it.
  virtual std::optional<std::string> skip(const MutantInfo&) const { return std::nullopt; }

  // The row's cell in the text and HTML tables: the verdict's first word, the
  // failing seed and the seconds to it, or "- (N seeds)"; "!" when not as
  // expected.
  virtual std::string cell(const MatrixRow& row) const;
  // What `mutants list` says of a mutant for this engine, under `note_heading`
  // ("" for nothing).
  virtual std::string_view note_heading() const { return {}; }
  virtual std::string_view note(const MutantInfo&) const { return {}; }
};

// A column that measures: expects only that harmless mutants pass, and judges
// no kinds (the simulator's other strategies, the fuzzers).
class MeasuringEngine : public Engine {
 public:
  Expect expect(const MutantInfo& m) const override { return measured(m); }
  bool judges_kinds() const override { return false; }
};

// The cell's pieces, for engines whose cells differ from the default.
bool is_engine_error(const MatrixRow& row);
bool is_incomplete(const MatrixRow& row);        // stopped by its limit without a verdict (kIncomplete)
std::string verdict_word(const MatrixRow& row);  // the outcome's first word ("crash (signal 6)" -> "crash")
std::string seconds_text(double seconds);        // "0.4 s"
std::string with_judgement(std::string cell, const MatrixRow& row);  // "!" appended when not as expected

// How the registry reads an engine's name and rank (core/registry.hpp).
inline std::string_view registry_name(const Engine& e) { return e.name(); }
inline int registry_rank(const Engine& e) { return e.rank(); }
// The registry the engine files add their objects to (WSSTRESS_REGISTER_ENGINE);
// two engines of one name or one rank end the program (a build mistake).
core::Registry<Engine>& engine_registry();
// Every engine this program has, by rank.
const std::vector<const Engine*>& all_engines();
// The engine of that name, or nullptr.
const Engine* find_engine(std::string_view name);

}  // namespace wsstress::matrix

// Registers an engine object from its own file: `var` is a name unique in the
// engine files, the rest its initializer (WSSTRESS_REGISTER, core/registry.hpp).
#define WSSTRESS_REGISTER_ENGINE(var, ...) \
  WSSTRESS_REGISTER(::wsstress::matrix::engine_registry(), auto, var, __VA_ARGS__)
