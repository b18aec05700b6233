// SPDX-License-Identifier: MIT OR Apache-2.0
// The Relacy engine (`--engine relacy`, and the searches of `wsstress
// relacy`): the Relacy models of relacy/ run through the client that starts
// the wsstress-relacy runner per search (relacy/ is below engines/: the
// models and their runner are programs of their own, built from the pool and
// the shared base, as the TSan runner and the fuzz targets are). The matrix's
// row is what `wsstress relacy --mutant M --max-seconds B` runs (every model
// that targets M; for the clean pool every model; --max-seconds is per
// search), judged alike; the first failing search is the row's catch, and a
// search its limit stopped leaves the row incomplete, never a pass. Without the Relacy models (the sanitizer
// and fuzz presets) the column is an engine error. Its expectations are
// relacy_expectations.hpp's table.
#include "wsstress/matrix/relacy.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "wsstress/core/exit_code.hpp"
#include "wsstress/matrix/engine.hpp"
#include "wsstress/matrix/relacy_expectations.hpp"

#if WSSTRESS_HAVE_RELACY
#include "wsstress/core/catalog.hpp"
#include "wsstress/core/shown.hpp"
#include "wsstress/core/sweep.hpp"
#include "wsstress/relacy/stop.hpp"
#endif

namespace wsstress::matrix {

#if WSSTRESS_HAVE_RELACY

namespace relacy_search {

std::string search_text(const rel::SearchSpec& s) {
  switch (s.kind) {
    case rel::Search::Random: return "random search, " + std::to_string(s.iterations) + " executions";
    case rel::Search::Bound: return "context-bound search, bound " + std::to_string(s.context_bound);
    case rel::Search::Full: return "full search";
  }
  return "?";
}

// The models and mutants asked for, as the searches to run.
Result<std::vector<Planned>> plan_searches(const SearchOptions& o) {
  std::vector<Planned> plan;
  std::vector<const rel::ModelInfo*> chosen;
  for (const rel::ModelInfo& m : rel::models()) {
    if (o.models.empty()) chosen.push_back(&m);
  }
  for (const std::string& name : o.models) {
    const rel::ModelInfo* m = rel::find_model(name);
    if (m == nullptr) {
      std::string names;
      for (const rel::ModelInfo& x : rel::models()) names += (names.empty() ? "" : ", ") + x.name;
      return fail("--model: unknown model " + shown(name) + " (models: " + names + ")");
    }
    if (std::find(chosen.begin(), chosen.end(), m) != chosen.end()) {
      return fail("--model: " + shown(name) + " is given twice");
    }
    chosen.push_back(m);
  }
  for (const rel::ModelInfo* m : chosen) {
    rel::SearchSpec s = m->ci;
    if (o.search) s.kind = *rel::parse_search(*o.search);
    if (o.bound) s.context_bound = *o.bound;
    if (o.iterations) s.iterations = *o.iterations;
    s.max_seconds = o.time_limit;
    s.max_gib = o.memory_limit;
    if (o.mutant.empty() || o.mutant == "none") {
      plan.push_back({m->name, "none", false, "", s});
      continue;
    }
    for (const rel::Target& t : m->targets) {
      if (o.mutant == "all" || o.mutant == t.mutant) plan.push_back({m->name, t.mutant, t.expect_fail, t.note, s});
    }
  }
  if (!plan.empty()) return plan;
  std::vector<std::string> modelled;
  for (const rel::ModelInfo& m : rel::models()) {
    for (const rel::Target& t : m.targets) {
      if (std::find(modelled.begin(), modelled.end(), t.mutant) == modelled.end()) modelled.push_back(t.mutant);
    }
  }
  std::string which;
  for (const std::string& name : modelled) which += (which.empty() ? "" : ", ") + name;
  return fail("--mutant: no chosen model targets " + shown(o.mutant) + " (modelled mutants: " + which + ")");
}

Judged judge(const Planned& p, rel::ModelResult r) {
  Judged j{&p, std::move(r)};
  j.failed = j.r.outcome == rel::Outcome::Fail;
  const auto* info = core::find_mutant(p.mutant);
  if (j.failed) j.kind = core::classify_failure(j.r.relacy_result, "");
  j.kind_ok = !j.failed || (info != nullptr && core::contains(info->kinds, j.kind));
  j.expected = p.expect_fail ? j.failed && j.kind_ok : j.r.outcome == rel::Outcome::Pass;
  return j;
}

// The exit code: --mutant all is the models' self-test, which passes when
// every mutant did what the model table expects of it.
int exit_code(const SearchOptions& o, const std::vector<Judged>& done, std::string& summary) {
  bool fail = false, limit = false, error = false, unexpected = false;
  for (const Judged& j : done) {
    fail |= j.failed;
    limit |= j.r.outcome == rel::Outcome::Timeout || j.r.outcome == rel::Outcome::MemoryLimit;
    error |= j.r.outcome == rel::Outcome::Error;
    unexpected |= !j.expected;
  }
  summary = error               ? "an error stopped a search"
            : o.mutant == "all" ? (unexpected ? "some mutants NOT as expected" : "every mutant as expected")
            : fail              ? "a model failed"
            : limit             ? "a search hit the time or memory limit without a verdict"
                                : "every model passed";
  if (error) return kInternal;
  if (o.mutant == "all") return unexpected ? kFailed : limit ? kHang : kOk;
  return fail ? kFailed : limit ? kHang : kOk;
}

// A failing search as a failure of the report and of the matrix row: its
// one-line message and the command that runs it again.
std::string failure_message(const Judged& j) {
  return "model " + j.plan->model + ": " + j.r.relacy_result + " in execution #" + std::to_string(j.r.executions) +
         " (" + search_text(j.plan->search) + ")";
}
std::string replay_of(const Planned& p) { return "wsstress relacy --model " + p.model + " --mutant " + p.mutant; }

// Runs the planned searches in order, each judged and handed to `on_done`
// as it finishes. A stop signal kills the search in progress (its result is
// dropped) and ends the loop; the error is the environment's (a pipe or a
// fork: plan_searches checked the names).
Result<std::vector<Judged>> run_searches(const std::vector<Planned>& plan,
                                         const std::function<void(const Judged&)>& on_done) {
  std::vector<Judged> done;
  rel::set_stop_check([] { return core::StopSignals::requested() != 0; });
  for (const Planned& p : plan) {
    if (core::StopSignals::requested() != 0) break;
    Result<rel::ModelResult> r = rel::run_model(p.model, p.mutant, p.search);
    if (!r) {
      rel::set_stop_check(nullptr);
      return fail(r.error());
    }
    if (core::StopSignals::requested() != 0) break;
    on_done(done.emplace_back(judge(p, std::move(*r))));
  }
  rel::set_stop_check(nullptr);
  return done;
}

namespace {

// The matrix's Relacy column: what `wsstress relacy --mutant M --max-seconds B`
// runs (every model that targets M; for the clean pool every model), judged
// alike; the first failing search is the row's catch.
EngineResult relacy_row(const MatrixSpec& spec, const MutantInfo& m) {
  if (const std::string missing = rel::runner_error(); !missing.empty()) return engine_error(kInternal, missing);
  SearchOptions o;
  if (m.name != "none") o.mutant = m.name;
  o.time_limit = spec.budget_s;
  const Result<std::vector<Planned>> plan = plan_searches(o);
  if (!plan) return engine_error(kUsage, plan.error());
  EngineResult row;
  double elapsed = 0;
  const Result<std::vector<Judged>> done = run_searches(*plan, [&](const Judged& j) {
    elapsed += j.r.seconds;
    row.runs += j.r.executions;
    if (j.failed && !row.caught) {
      row.caught = true;
      row.outcome = j.r.relacy_result;
      row.message = failure_message(j);
      row.first_seed = j.r.executions;
      row.at_seconds = elapsed;
      row.replay = replay_of(*j.plan);
    }
  });
  if (!done) return engine_error(kInternal, done.error());
  if (row.caught) return row;
  std::string summary;
  const int code = exit_code(o, *done, summary);
  if (code == kHang) {
    // A search stopped by its limit did not pass: it did not finish. The
    // row is incomplete, which no row of the table expects.
    std::size_t stopped = 0;
    std::string models;
    for (const Judged& j : *done) {
      if (j.r.outcome != rel::Outcome::Timeout && j.r.outcome != rel::Outcome::MemoryLimit) continue;
      ++stopped;
      models += (models.empty() ? "" : ", ") + j.plan->model;
    }
    char limits[96];
    std::snprintf(limits, sizeof limits, "%g s per-search limit (or %g GiB)", o.time_limit, o.memory_limit);
    row.outcome = kIncomplete;
    row.message = std::to_string(stopped) + " of " + std::to_string(done->size()) + " searches stopped at the " +
                  limits + " without a verdict: " + models;
    return row;
  }
  row.outcome = code == kOk ? "pass" : "error (exit " + std::to_string(code) + ")";
  if (code != kOk) row.message = summary;
  return row;
}

// One search per model that targets the mutant, each up to the budget; the
// clean row runs every model.
double relacy_budgets() { return static_cast<double>(std::max<std::size_t>(1, rel::models().size())); }

}  // namespace
}  // namespace relacy_search

namespace {
using relacy_search::relacy_budgets;
using relacy_search::relacy_row;
}  // namespace

#else

namespace {
EngineResult relacy_row(const MatrixSpec&, const MutantInfo&) {
  return engine_error(kInternal, "this build has no Relacy models (the asan, tsan and fuzz presets leave them out; "
                                 "use the default or relacy preset)");
}
double relacy_budgets() { return 1; }
}  // namespace

#endif

namespace {

class RelacyEngine final : public Engine {
 public:
  std::string_view name() const override { return "relacy"; }
  int rank() const override { return 80; }
  Limits limits() const override { return {.budgets = relacy_budgets()}; }
  std::string_view budget_unit() const override { return "search"; }
  EngineResult run(const MatrixSpec& spec, const MutantInfo& m, const std::string&, const Deliver&) const override {
    return relacy_row(spec, m);
  }
  Expect expect(const MutantInfo& m) const override { return relacy_expect(m.id); }
  // No model targets the mutant: nothing to run.
  std::optional<std::string> skip(const MutantInfo& m) const override {
    if (expect(m) != Expect::Cannot) return std::nullopt;
    return "not modelled";
  }
  // Relacy's "seed" is the number of the failing execution of its search,
  // and its verdict is several words (DATA RACE); a search its limit stopped
  // leaves the row incomplete.
  std::string cell(const MatrixRow& row) const override {
    if (row.outcome == "not modelled") return "n/m";
    if (is_engine_error(row)) return row.outcome + " !";
    const std::string execs = "(" + std::to_string(row.runs) + " execs)";
    return with_judgement(row.caught ? row.outcome + ", exec " + std::to_string(row.first_seed) + ", " +
                                           seconds_text(row.seconds)
                          : is_incomplete(row) ? std::string(kIncomplete) + " " + execs
                                               : "- " + execs,
                          row);
  }
};

}  // namespace

WSSTRESS_REGISTER_ENGINE(relacy_engine, RelacyEngine{})

}  // namespace wsstress::matrix
