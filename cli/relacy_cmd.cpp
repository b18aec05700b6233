// SPDX-License-Identifier: MIT OR Apache-2.0
// `wsstress relacy`: choose models and mutants, run each (model, mutant)
// search through the Relacy engine (wsstress/engines/relacy.hpp), and render
// the verdicts as text and JSON. Built only where the Relacy models are (not
// in the sanitizer presets); elsewhere the command says so and exits 3.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "output.hpp"
#include "report.hpp"
#include "wsstress/matrix/relacy.hpp"

#if WSSTRESS_HAVE_RELACY
#include "wsstress/core/catalog.hpp"
#include "wsstress/core/sweep.hpp"
#endif

namespace wsstress::cli {

// A namespace of its own, so that the using-directive stays in this file (a
// unity build merges files).
namespace relacy_cmd {

using namespace matrix::relacy_search;

// The engine's options and the command's own.
struct RelacyOptions : SearchOptions {
  std::string json_path, trace_out;
  bool list = false, quiet = false, full_trace = false;
};

#if WSSTRESS_HAVE_RELACY

namespace {

// Relacy's report: a few header lines, "execution history (N):" with one
// line per event, then the same events again per thread. The failure is at
// the end of the history, so show the header and its last `keep` events.
std::string trace_tail(const std::string& report, std::size_t keep) {
  const auto hist = report.find("execution history");
  if (hist == std::string::npos) return report;
  const auto body = report.find('\n', hist);
  if (body == std::string::npos) return report;
  auto end = report.find("\n\n", body);
  end = end == std::string::npos ? report.size() : end + 1;
  std::vector<std::size_t> starts;
  for (std::size_t at = body + 1; at < end;) {
    starts.push_back(at);
    const auto nl = report.find('\n', at);
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  const bool per_thread = end < report.size();
  if (starts.size() <= keep && !per_thread) return report;
  const std::size_t cut = starts.size() <= keep ? body + 1 : starts[starts.size() - keep];
  std::string out = report.substr(0, body + 1);
  if (starts.size() > keep) {
    out += "  ... " + std::to_string(starts.size() - keep) + " earlier events left out ...\n";
  }
  out += report.substr(cut, end - cut);
  out += "  (--full-trace prints the whole report, with each thread's own history; --trace-out FILE writes it)\n";
  return out;
}

std::string list_text() {
  std::string out;
  for (const rel::ModelInfo& m : rel::models()) {
    out += m.name + "\n  claim:   " + m.claim + "\n  config:  " + m.config + "\n  search:  " + search_text(m.ci) +
           "\n  mutants:";
    if (m.targets.empty()) out += " (none)";
    out += "\n";
    for (const rel::Target& t : m.targets) {
      out += "    " + t.mutant + (t.expect_fail ? "  (expected: caught)" : "  (expected: passes)") + "\n";
      if (!t.note.empty()) out += "      " + t.note + "\n";
    }
  }
  return out;
}

// The verdict line of one search, its notes and (failing) Relacy's report.
void print_judged(const Judged& j, const RelacyOptions& o) {
  const Planned& p = *j.plan;
  std::string cover;
  if (j.failed) {
    cover = "failing execution #" + std::to_string(j.r.executions);
  } else if (j.r.outcome == rel::Outcome::Pass && p.search.kind != rel::Search::Random) {
    cover = std::to_string(j.r.executions) + " executions, exhaustive within the bound";
  }
  std::fprintf(text_out(), "%-10s %-26s %-7s %-18s %-62s %7.2f s%s\n", p.model.c_str(), p.mutant.c_str(),
               rel::outcome_name(j.r.outcome), j.r.relacy_result.c_str(),
               (search_text(p.search) + (cover.empty() ? "" : "; " + cover)).c_str(), j.r.seconds,
               p.mutant == "none" ? ""
               : j.expected       ? "  (as expected)"
                                  : "  (NOT as expected)");
  if (const auto* info = core::find_mutant(p.mutant); !j.kind_ok && info != nullptr) {
    std::fprintf(text_out(), "           a %s, the catalog expects %s\n", core::failure_kind_name(j.kind),
                 core::to_string_set(info->kinds).c_str());
  }
  if (!p.note.empty() && !o.quiet) std::fprintf(text_out(), "           note: %s\n", p.note.c_str());
  // A hang's explanation (the simulator's, from the pool's events), then the history it cites.
  if (!o.quiet) std::fputs(explanation_text(j.r.explanation).c_str(), text_out());
  if ((j.failed || j.r.outcome == rel::Outcome::Error) && !o.quiet && !j.r.trace.empty()) {
    const std::string shown = o.full_trace ? j.r.trace : trace_tail(j.r.trace, 60);
    std::fprintf(text_out(), "----- Relacy's report of the failing execution -----\n%s", shown.c_str());
    if (shown.back() != '\n') std::fprintf(text_out(), "\n");
    std::fprintf(text_out(), "----- end of report -----\n");
  }
}

nlohmann::json judged_json(const Judged& j) {
  const Planned& p = *j.plan;
  return {{"model", p.model},
          {"mutant", p.mutant},
          {"search", rel::search_name(p.search.kind)},
          {"context_bound", p.search.context_bound},
          {"iterations", p.search.iterations},
          {"verdict", rel::outcome_name(j.r.outcome)},
          {"relacy_result", j.r.relacy_result},
          {"executions", j.r.executions},
          {"exhaustive", j.r.exhaustive},
          {"seconds", j.r.seconds},
          {"expected", p.expect_fail ? "fail" : "pass"},
          {"as_expected", j.expected},
          {"kind", j.failed ? core::failure_kind_name(j.kind) : ""},
          {"note", p.note},
          {"trace", j.r.trace},
          {"explanation", j.r.explanation}};
}

}  // namespace

static int relacy_command(const RelacyOptions& o) {
  if (const std::string missing = rel::runner_error(); !missing.empty()) {
    std::fprintf(stderr, "wsstress: error: %s\n", missing.c_str());
    return kInternal;
  }
  if (o.list) {
    const std::string text = list_text();
    std::fwrite(text.data(), 1, text.size(), text_out());
    return kOk;
  }
  const Result<std::vector<Planned>> planned = plan_searches(o);
  if (!planned) return usage_error(planned.error());
  const std::vector<Planned>& plan = *planned;
  bool trace_unwritten = false;
  nlohmann::json runs = nlohmann::json::array(), failures = nlohmann::json::array();
  std::uint64_t executions = 0;
  double elapsed = 0;
  // The first SIGINT/SIGTERM/SIGHUP kills the search in progress (its result
  // is dropped) and ends the command with what finished; the second kills.
  const core::StopSignals stop;
  const Result<std::vector<Judged>> searched = run_searches(plan, [&](const Judged& j) {
    elapsed += j.r.seconds;
    executions += j.r.executions;
    print_judged(j, o);
    // --trace-out keeps the first failing execution's report (later ones are in --json).
    if (j.failed && !o.trace_out.empty() && failures.empty()) {
      if (const Result<void> written = write_output(o.trace_out, j.r.trace); !written) {
        std::fprintf(stderr, "wsstress: error: --trace-out: %s\n",
                     written.error().c_str());  // the verdicts still stand
        trace_unwritten = true;
      } else {
        std::fprintf(text_out(), "the whole report of %s/%s is in %s\n", j.plan->model.c_str(), j.plan->mutant.c_str(),
                     o.trace_out.c_str());
      }
    }
    std::fflush(text_out());
    runs.push_back(judged_json(j));
    if (j.failed) {
      failures.push_back({{"verdict", j.r.relacy_result},
                          {"message", failure_message(j)},
                          {"seed", j.r.executions},
                          {"at_seconds", elapsed},
                          {"replay", replay_of(*j.plan)},
                          {"explanation", j.r.explanation}});
    }
  });
  if (!searched) {
    std::fprintf(stderr, "wsstress: error: %s\n", searched.error().c_str());
    return kInternal;
  }
  const std::vector<Judged>& done = *searched;
  std::string summary;
  int code = exit_code(o, done, summary);
  if (trace_unwritten && code == kOk) code = kInternal;
  // A signal after the last search finished stopped nothing.
  const int stopped_by = done.size() < plan.size() ? core::StopSignals::requested() : 0;
  if (const int sig = stopped_by; sig != 0) {
    summary = "stopped by " + core::signal_name(sig) + " after " + std::to_string(done.size()) + " of " +
              std::to_string(plan.size()) + " searches" + (done.empty() ? "" : "; of those, " + summary);
    if (code == kOk || code == kHang) code = 128 + sig;  // a failure found before the signal keeps its code
  }
  std::fprintf(text_out(), "relacy: %zu search(es), %llu executions, %.1f s: %s\n", done.size(),
               static_cast<unsigned long long>(executions), elapsed, summary.c_str());
  if (!o.json_path.empty()) {
    bool all_as_expected = true;
    for (const Judged& j : done) all_as_expected &= j.expected;
    const nlohmann::json doc = {
        {"schema", "wsstress.relacy/1"},
        {"runs_detail", runs},
        {"runs", executions},
        {"failures", failures},
        {"seconds", elapsed},
        {"all_as_expected", all_as_expected},
        {"stopped_by", stopped_by != 0 ? nlohmann::json(core::signal_name(stopped_by)) : nlohmann::json()}};
    return write_report("--json", o.json_path, doc.dump(2) + "\n", code);
  }
  return code;
}

#else

static int relacy_command(const RelacyOptions&) {
  std::fprintf(stderr,
               "wsstress: error: this build has no Relacy models (the asan, tsan and fuzz presets leave them out; "
               "use the default or relacy preset)\n");
  return kInternal;
}

#endif

}  // namespace relacy_cmd

Subcommand add_relacy(CLI::App& parent) {
  struct Args {
    relacy_cmd::RelacyOptions o;
    std::string search;
    unsigned bound = 0;
    std::uint64_t iterations = 0;
    CLI::Option *search_opt = nullptr, *bound_opt = nullptr, *iter_opt = nullptr;
  };
  auto a = std::make_shared<Args>();
  relacy_cmd::RelacyOptions& o = a->o;
  CLI::App* cmd = parent.add_subcommand(
      "relacy",
      "Relacy models of the sleep handshake, latches, cross-pool wake, broadcast, termination and deque, "
      "compiled from the pool's sources; exit 0 pass, 1 a model failed, 4 time or memory limit without a verdict");
  std::vector<std::string> mutants = {"all"};
  for (const std::string& m : mutant_names()) mutants.push_back(m);
  // The models are the runner's (wsstress-relacy list): asked only when a completion is generated.
  completes(cmd->add_option("--model", o.models, "a model to run (repeatable; default: all; see --list)"),
            std::function<std::vector<std::string>()>([] {
              std::vector<std::string> models;
#if WSSTRESS_HAVE_RELACY  // a build without Relacy (the fuzz preset) has no models to offer
              for (const relacy::ModelInfo& m : relacy::models()) models.push_back(m.name);
#endif
              return models;
            }));
  completes(cmd->add_option("--mutant", o.mutant,
                            "run the models against this mutant instead of the clean pool; 'all': the self-test of "
                            "every targeted mutant (exit 0 iff each did what the model table expects)"),
            mutants);
  a->search_opt =
      one_of(cmd->add_option("--search", a->search, "override the model's search"), {"random", "bound", "full"});
  a->bound_opt = cmd->add_option("--bound", a->bound, "context bound for --search bound")->check(whole_range(0, 20));
  a->iter_opt = cmd->add_option("--executions", a->iterations, "executions for --search random")
                    ->check(whole_range(1, 1000000000));
  add_max_seconds(cmd, o.time_limit, "seconds per search before it is stopped", 1.0, 86400.0);
  cmd->add_option("--memory-limit", o.memory_limit, "GiB of resident memory per search before it is stopped")
      ->check(finite_range(0.001, 1024.0))
      ->capture_default_str();
  add_json(cmd, o.json_path, "write the verdicts as JSON (schema wsstress.relacy/1)");
  cmd->add_option("--trace-out", o.trace_out, "write the first failing execution's whole Relacy report to FILE")
      ->check(output_path());
  cmd->add_flag("--full-trace", o.full_trace, "print the whole report, not its last 60 events");
  cmd->add_flag("--list", o.list, "list the models: claim, configuration, search, mutants");
  add_quiet(cmd, o.quiet, "verdict lines only, no notes or traces");
  cmd->footer("Examples:\n"
              "  wsstress relacy --list\n"
              "  wsstress relacy --model inject --mutant no_inject_fence_acq_rel --trace-out f.txt\n"
              "  wsstress relacy --mutant all --max-seconds 60   # every model against the mutants it targets");
  return {cmd, [a] {
            if (auto ok = claim_stdout({{"--json", &a->o.json_path}, {"--trace-out", &a->o.trace_out}}); !ok)
              return usage_error(ok.error());
            if (a->search_opt->count() > 0) a->o.search = a->search;
            if (a->bound_opt->count() > 0) a->o.bound = a->bound;
            if (a->iter_opt->count() > 0) a->o.iterations = a->iterations;
            return relacy_cmd::relacy_command(a->o);
          }};
}

}  // namespace wsstress::cli
