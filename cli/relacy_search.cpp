// The searches behind `wsstress relacy` and the matrix's Relacy column
// (relacy_search.hpp): planning, running and judging them.
#include "relacy_search.hpp"
#include "wsstress/shown.hpp"

#if WSSTRESS_HAVE_RELACY

#include <algorithm>

#include "exit_codes.hpp"
#include "wsstress/relacy/stop.hpp"
#include "wsstress/stress/catalog.hpp"
#include "wsstress/stress/sweep.hpp"

namespace wsstress::cli::relacy_search {

std::string search_text(const rel::SearchSpec& s) {
  switch (s.kind) {
    case rel::Search::Random: return "random search, " + std::to_string(s.iterations) + " executions";
    case rel::Search::Bound: return "context-bound search, bound " + std::to_string(s.context_bound);
    case rel::Search::Full: return "full search";
  }
  return "?";
}

// The models and mutants asked for, as the searches to run.
Result<std::vector<Planned>> plan_searches(const RelacyOptions& o) {
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
  const auto* info = stress::find_mutant(p.mutant);
  if (j.failed) j.kind = stress::classify_failure(j.r.relacy_result, "");
  j.kind_ok = !j.failed || (info != nullptr && stress::contains(info->kinds, j.kind));
  j.expected = p.expect_fail ? j.failed && j.kind_ok : j.r.outcome == rel::Outcome::Pass;
  return j;
}

// The exit code: --mutant all is the models' self-test, which passes when
// every mutant did what the model table expects of it.
int exit_code(const RelacyOptions& o, const std::vector<Judged>& done, std::string& summary) {
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
  rel::set_stop_check([] { return stress::StopSignals::requested() != 0; });
  for (const Planned& p : plan) {
    if (stress::StopSignals::requested() != 0) break;
    Result<rel::ModelResult> r = rel::run_model(p.model, p.mutant, p.search);
    if (!r) {
      rel::set_stop_check(nullptr);
      return fail(r.error());
    }
    if (stress::StopSignals::requested() != 0) break;
    on_done(done.emplace_back(judge(p, std::move(*r))));
  }
  rel::set_stop_check(nullptr);
  return done;
}

}  // namespace wsstress::cli::relacy_search

#endif  // WSSTRESS_HAVE_RELACY
