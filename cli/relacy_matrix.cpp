// The matrix's Relacy column (`wsstress mutants check --engine relacy`): the
// searches `wsstress relacy --mutant M` runs, as one row. Without the Relacy
// models (the sanitizer and fuzz presets) the column is an engine error. Its
// expectations are engines/relacy_expectations.hpp's table.
#include <algorithm>
#include <string>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "relacy_search.hpp"
#include "wsstress/engines/engine.hpp"
#include "wsstress/engines/relacy_expectations.hpp"

namespace wsstress::cli {

#if WSSTRESS_HAVE_RELACY

namespace relacy_search {
namespace {

// The matrix's Relacy column: what `wsstress relacy --mutant M --max-seconds B`
// runs (every model that targets M; for the clean pool every model), judged
// alike; the first failing search is the row's catch.
stress::EngineResult relacy_row(const stress::MatrixSpec& spec, const stress::MutantInfo& m) {
  if (const std::string missing = rel::runner_error(); !missing.empty()) return stress::engine_error(3, missing);
  RelacyOptions o;
  if (m.name != "none") o.mutant = m.name;
  o.time_limit = spec.budget_s;
  const Result<std::vector<Planned>> plan = plan_searches(o);
  if (!plan) return stress::engine_error(2, plan.error());
  stress::EngineResult row;
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
  if (!done) return stress::engine_error(3, done.error());
  if (row.caught) return row;
  std::string summary;
  const int code = exit_code(o, *done, summary);
  // A search stopped by its budget without a verdict found nothing in that
  // budget, as a sweep that runs out of time: "-" with its executions.
  row.outcome = code == kOk || code == kHang ? "pass" : "error (exit " + std::to_string(code) + ")";
  if (code != kOk) row.message = summary;
  return row;
}

}  // namespace
}  // namespace relacy_search

namespace {
stress::EngineResult relacy_column_row(const stress::MatrixSpec& spec, const stress::MutantInfo& m) {
  return relacy_search::relacy_row(spec, m);
}
// One search per model that targets the mutant, each up to the budget; the
// clean row runs every model.
double relacy_column_budgets() {
  return static_cast<double>(std::max<std::size_t>(1, relacy_search::rel::models().size()));
}
}  // namespace

#else

namespace {
stress::EngineResult relacy_column_row(const stress::MatrixSpec&, const stress::MutantInfo&) {
  return stress::engine_error(3,
                              "this build has no Relacy models (the asan, tsan and fuzz presets leave them out; "
                              "use the default or relacy preset)");
}
double relacy_column_budgets() { return 1; }
}  // namespace

#endif

namespace {

class RelacyEngine final : public engines::Engine {
 public:
  std::string_view name() const override { return "relacy"; }
  int rank() const override { return 80; }
  engines::Limits limits() const override { return {.budgets = relacy_column_budgets()}; }
  stress::EngineResult run(const stress::MatrixSpec& spec, const stress::MutantInfo& m, const std::string&,
                           const stress::Deliver&) const override {
    return relacy_column_row(spec, m);
  }
  engines::Expect expect(const stress::MutantInfo& m) const override { return engines::relacy_expect(m.id); }
  // No model targets the mutant: nothing to run.
  std::optional<std::string> skip(const stress::MutantInfo& m) const override {
    if (expect(m) != engines::Expect::Cannot) return std::nullopt;
    return "not modelled";
  }
  // Relacy's "seed" is the number of the failing execution of its search,
  // and its verdict is several words (DATA RACE).
  std::string cell(const stress::MatrixRow& row) const override {
    if (row.outcome == "not modelled") return "n/m";
    if (engines::is_engine_error(row)) return row.outcome + " !";
    return engines::with_judgement(row.caught ? row.outcome + ", exec " + std::to_string(row.first_seed) + ", " +
                                                    engines::seconds_text(row.seconds)
                                              : "- (" + std::to_string(row.runs) + " execs)",
                                   row);
  }
};

}  // namespace

WSSTRESS_REGISTER_ENGINE(relacy_engine, RelacyEngine{})

}  // namespace wsstress::cli
