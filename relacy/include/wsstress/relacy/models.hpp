// SPDX-License-Identifier: MIT OR Apache-2.0
// The Relacy models: what each one claims, which mutants it targets, and how
// to run one (model x mutant x search) and get its verdict. The models
// themselves live in src/models/, one file per model or family of models, each instantiating
// the pool's own templates over RelacyPlatform for the clean pool and for the
// mutants it targets; they are linked into their own program, wsstress-relacy
// (src/runner_main.cpp), which wsstress runs for every search. So the tool
// builds, and `wsstress smoke` runs, without compiling a model,
// and a search always runs in a process of its own.
//
// Two libraries: wsstress_relacy_client (client.cpp; in wsstress, through the
// Relacy engine, matrix/src/engines/relacy.cpp) asks the runner, and wsstress_relacy
// (table.cpp and the models, each registering itself; in the runner and the
// model tests) answers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wsstress/core/registry.hpp"
#include "wsstress/core/result.hpp"

namespace wsstress::relacy {

enum class Search { Random, Bound, Full };
const char* search_name(Search s);
std::optional<Search> parse_search(const std::string& text);

struct SearchSpec {
  Search kind = Search::Bound;
  unsigned context_bound = 2;         // Bound: at most this many preemptions
  std::uint64_t iterations = 200000;  // Random: executions; Full and Bound ignore it
  double max_seconds = 600;           // the run is killed past this (Full and Bound cannot be cut short)
  double max_gib = 8;                 // ... or past this much resident memory, so a search too big for the
                                      // machine is reported instead of being OOM-killed
};

// A catalog mutant a model is run against, and what the model does with it.
struct Target {
  std::string mutant;
  bool expect_fail = true;  // false: the mutant is equivalent under the model, or not shown by it
  std::string note;         // why, when it is not expected to fail
};

struct ModelInfo {
  std::string name;
  std::string claim;            // what a pass means
  std::string config;           // the model's sizes and knobs
  std::vector<Target> targets;  // the catalog mutants this model is run against
  SearchSpec ci;                // the search ctest and `wsstress relacy` run by default
};

// ---- the client (wsstress_relacy_client) ----

// The models as the runner lists them (`wsstress-relacy list`, asked once per
// process); empty when the runner cannot be run, and runner_error() says why.
const std::vector<ModelInfo>& models();
const ModelInfo* find_model(const std::string& name);
std::string runner_error();
// The runner: $WSSTRESS_RELACY_RUNNER, else wsstress-relacy beside this program.
std::string runner_path();

enum class Outcome { Pass, Fail, Timeout, MemoryLimit, Error };
const char* outcome_name(Outcome o);

struct ModelResult {
  std::string model, mutant;
  SearchSpec search;
  Outcome outcome = Outcome::Error;
  std::string relacy_result;     // Relacy's own name for it: DEADLOCK, DATA RACE, USER ASSERT FAILED...
  std::uint64_t executions = 0;  // executions run (on a failure: the failing one's number)
  bool exhaustive = false;       // Full/Bound search finished: every execution within the bound
  double seconds = 0;
  std::string trace;  // Relacy's history of the failing execution
  // For a hang (DEADLOCK, LIVELOCK): why the sleeping worker was never woken,
  // the simulator's explanation of the failing execution's pool events (one
  // line each; steps are the history's numbers); empty otherwise.
  std::vector<std::string> explanation{};
};

// Runs one model in the runner, a child process (so a search past its time
// limit is killed, and a Relacy internal abort is reported, not fatal). A bad
// model or mutant name is refused in one line.
Result<ModelResult> run_model(const std::string& model, const std::string& mutant, const SearchSpec& search);

// ---- what the client asks and the runner answers (protocol.cpp) ----

// One search as the client asks the runner for it:
//   wsstress-relacy run MODEL MUTANT SEARCH BOUND EXECUTIONS
// spelled (to_args) and read (from_args) here only, so the two sides cannot
// drift. The limits stay with the client, which enforces them.
struct RunRequest {
  std::string model, mutant;
  SearchSpec search;  // its kind, context_bound and iterations
  std::vector<std::string> to_args() const;
  // The arguments after the program's name; the error says what is wrong.
  static Result<RunRequest> from_args(const std::vector<std::string>& args);
};

// What one search reports.
struct RawResult {
  bool passed = false;
  std::string relacy_result;
  std::uint64_t executions = 0;
  std::string output;
  std::vector<std::string> explanation{};  // ModelResult::explanation
};
std::string encode(const RawResult& r);
bool decode(const std::string& text, RawResult& r);
std::string encode(const std::vector<ModelInfo>& models);
Result<std::vector<ModelInfo>> decode_models(const std::string& text);

// ---- the runner (wsstress_relacy) ----

// The entry of one (model, mutant) instantiation.
using ModelFn = RawResult (*)(const SearchSpec& search);
struct ModelEntry {
  const char* model;
  const char* mutant;
  ModelFn run;
  bool expect_fail = true;  // for "none" (the clean pool): false
  const char* note = "";
};

// A mutant a model is run against, as the model's file declares it.
struct MutantEntry {
  const char* mutant;
  ModelFn run;
  bool expect_fail = true;  // Target::expect_fail
  const char* note = "";    // Target::note
};

// A model as its own file declares it, beside its code, and registers it
// (WSSTRESS_REGISTER_MODEL): what a pass claims, the configuration, the
// search ctest and `wsstress relacy` run by default, and its instantiations.
// The CI searches are sized from measurements on 2 cores (README): the
// registry-level models are too big for a context-bound search to finish, so
// they run a random search of 10^5 executions; the small models run the
// exhaustive context-bound search at the largest bound that finishes in
// seconds (the README's table has the next bound's time).
struct ModelDecl {
  int rank;  // the model's place in the table (--list, --mutant all): ascending,
             // as files register in no set order
  const char* name;
  const char* claim;
  const char* config;
  SearchSpec ci;
  ModelFn clean;                     // the model on the clean pool, which must pass
  std::vector<MutantEntry> mutants;  // the catalog mutants it targets, in the order they run
};
// How the registry reads a model's name and rank (core/registry.hpp).
inline const char* registry_name(const ModelDecl& m) noexcept { return m.name; }
inline int registry_rank(const ModelDecl& m) noexcept { return m.rank; }
// The registry the model files add their declarations to (WSSTRESS_REGISTER_MODEL);
// two models of one name or one rank end the program (a build mistake).
core::Registry<ModelDecl>& model_registry();

// Every (model, mutant) instantiation, by rank, each model's clean pool first.
const std::vector<ModelEntry>& model_table();
// The models, built in this process from the registered declarations (the runner's `list`).
const std::vector<ModelInfo>& model_infos();
// Runs one entry in this process (the runner's `run`).
RawResult run_entry_here(const std::string& model, const std::string& mutant, const SearchSpec& search);

}  // namespace wsstress::relacy

// Registers a model from its own file (src/models/): `var` is a name unique
// in the model files, the rest a ModelDecl's initializer (WSSTRESS_REGISTER,
// core/registry.hpp).
#define WSSTRESS_REGISTER_MODEL(var, ...) \
  WSSTRESS_REGISTER(::wsstress::relacy::model_registry(), ::wsstress::relacy::ModelDecl, var, __VA_ARGS__)
