// SPDX-License-Identifier: MIT OR Apache-2.0
// The Relacy engine's searches (matrix/src/engines/relacy.cpp), which `wsstress
// relacy` (cli/relacy_cmd.cpp) and the matrix's Relacy column both run: the
// (model, mutant) searches the options ask for, run one by one through the
// Relacy client (relacy/: it runs each search in the wsstress-relacy runner,
// a child that it holds to its limits), each judged against the model table
// and the mutant catalog, and the one spelling of a search's replay line.
// Without the Relacy models (the sanitizer and fuzz presets) only the options
// are declared; the engine then reports an engine error.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "wsstress/core/result.hpp"

#if WSSTRESS_HAVE_RELACY
#include "wsstress/core/failure_kind.hpp"
#include "wsstress/relacy/models.hpp"
#endif

namespace wsstress::matrix::relacy_search {

// Which searches to run, and their limits.
struct SearchOptions {
  std::vector<std::string> models;    // empty: every model
  std::string mutant;                 // empty or "none": the clean pool; "all": every targeted mutant
  std::optional<std::string> search;  // random, bound, full (default: each model's own)
  std::optional<unsigned> bound;
  std::optional<std::uint64_t> iterations;
  double time_limit = 300;  // per search
  double memory_limit = 8;  // GiB per search
};

#if WSSTRESS_HAVE_RELACY

namespace rel = wsstress::relacy;

std::string search_text(const rel::SearchSpec& s);

struct Planned {
  std::string model, mutant;
  bool expect_fail = false;
  std::string note;
  rel::SearchSpec search;
};

// One finished search, judged against the model table and the catalog.
struct Judged {
  const Planned* plan;
  rel::ModelResult r;
  bool failed = false;
  core::FailureKind kind = core::FailureKind::None;
  bool kind_ok = true;   // a catch of a kind the catalog allows (a DEADLOCK for a lost wake-up)
  bool expected = true;  // what the model table expects (the clean pool: pass)
};

// The models and mutants asked for, as the searches to run.
Result<std::vector<Planned>> plan_searches(const SearchOptions& o);
Judged judge(const Planned& p, rel::ModelResult r);
// The exit code: --mutant all is the models' self-test, which passes when
// every mutant did what the model table expects of it.
int exit_code(const SearchOptions& o, const std::vector<Judged>& done, std::string& summary);
// A failing search as a failure of the report and of the matrix row: its
// one-line message and the command that runs it again.
std::string failure_message(const Judged& j);
std::string replay_of(const Planned& p);
// Runs the planned searches in order, each judged and handed to `on_done`
// as it finishes. A stop signal kills the search in progress (its result is
// dropped) and ends the loop; the error is the environment's (a pipe or a
// fork: plan_searches checked the names).
Result<std::vector<Judged>> run_searches(const std::vector<Planned>& plan,
                                         const std::function<void(const Judged&)>& on_done);

#endif  // WSSTRESS_HAVE_RELACY

}  // namespace wsstress::matrix::relacy_search
