// SPDX-License-Identifier: MIT OR Apache-2.0
// Text and JSON renderings of every report the engines return (campaigns on
// real threads, simulator campaigns, the mutant matrix). The JSON schemas
// (wsstress.run/2, wsstress.sim/1, wsstress.mutants/3) are documented in the README.
#include "report.hpp"
#include "version.hpp"

#include "wsstress/core/run_flags.hpp"
#include "wsstress/matrix/engine.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

namespace wsstress::cli {

using core::VerdictKind;

namespace {
std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
// Why a sweep ended before its last seed, if it did.
std::string stop_text(bool budget_exhausted, int signal) {
  if (signal != 0) return ", stopped by " + core::signal_name(signal);
  return budget_exhausted ? ", stopped by --max-seconds" : "";
}
nlohmann::json stop_json(int signal) {
  return signal != 0 ? nlohmann::json(core::signal_name(signal)) : nlohmann::json();
}
std::string seeds_text(const core::CampaignSpec& s) {
  std::string t = s.seeds.from == s.seeds.to
                      ? "seed " + std::to_string(s.seeds.from)
                      : "seeds " + std::to_string(s.seeds.from) + ".." + std::to_string(s.seeds.to);
  if (s.shard.count > 1) t += " shard " + std::to_string(s.shard.index) + "/" + std::to_string(s.shard.count);
  return t;
}
}  // namespace

namespace {
std::string figure_text(const threads::ParallelismFigure& f) {
  return std::to_string(f.asleep_beside_work) + " of " + std::to_string(f.samples) + " samples (" +
         fmt("%.2f", 100 * f.rate()) + " %), " + std::to_string(f.windows) + " window(s), the longest ~" +
         std::to_string(f.longest) + " ms";
}

// The parallelism figure: a rate, never a verdict.
std::string parallelism_text(const threads::CampaignReport& r) {
  std::string out = "parallelism: a worker asleep while a job waited in its pool: " + figure_text(r.parallelism) + "\n";
  if (r.control) {
    out += "control (clean pool, same seeds): " + figure_text(*r.control) + "\n";
    out += std::string("parallelism: the window rate is ") + (r.parallelism_above_control ? "ABOVE" : "not above") +
           " the clean pool's (one-sided Poisson test at 1 %, p = " + fmt("%.2g", r.parallelism_p) + ")\n";
  }
  return out;
}

nlohmann::json figure_json(const threads::ParallelismFigure& f) {
  return {{"samples", f.samples},
          {"asleep_beside_work", f.asleep_beside_work},
          {"windows", f.windows},
          {"longest_ms", f.longest},
          {"rate", f.rate()}};
}
}  // namespace

SweepVerdict verdict_of(const threads::CampaignReport& r) noexcept {
  return sweep_verdict(r.overall(), r.runs, r.stopped_by_signal);
}
SweepVerdict verdict_of(const sim::SimCampaignReport& r) noexcept {
  return sweep_verdict(r.overall(), r.runs, r.stopped_by_signal);
}

std::string run_report_text(const threads::CampaignReport& r, bool with_dumps) {
  const auto& s = r.spec;
  std::string out = "run: scenario " + s.run.scenario + ", mutant " + s.run.mutant + ", " + seeds_text(s) + ", " +
                    std::to_string(s.run.threads) + " threads x " + std::to_string(s.run.pools) + " pools, " +
                    std::to_string(s.run.iterations) + " iterations, noise " + std::to_string(s.run.noise) + "\n";
  out += "run: " + std::to_string(r.runs) + " of " + std::to_string(r.seeds_planned) + " seeds in " +
         fmt("%.1f", r.elapsed_s) + " s (" + fmt("%.1f", r.elapsed_s > 0 ? r.runs / r.elapsed_s : 0) + " seeds/s)" +
         stop_text(r.budget_exhausted, r.stopped_by_signal) + "\n";
  out += parallelism_text(r);
  for (const auto& f : r.failures) {
    out += "\nFAILED seed " + std::to_string(f.seed) + ": " + core::verdict_name(f.verdict.kind) + ": " +
           f.verdict.message + "\n";
    if (with_dumps && !f.verdict.dump.empty()) out += "state when it was detected:\n" + f.verdict.dump;
    out += "replay: " + f.replay + "\n";
    if (f.verdict.kind != VerdictKind::Internal) {
      out += "        (real threads repeat the program and the noise, not the interleaving: add --repeat 100 to "
             "retry it)\n";
    }
  }
  out += std::string("verdict: ") + verdict_of(r).word + "\n";
  return out;
}

std::string run_report_json(const threads::CampaignReport& r) {
  const auto& s = r.spec;
  nlohmann::json failures = nlohmann::json::array();
  for (const auto& f : r.failures) {
    failures.push_back({{"seed", f.seed},
                        {"verdict", core::verdict_name(f.verdict.kind)},
                        {"message", f.verdict.message},
                        {"dump", f.verdict.dump},
                        {"replay", f.replay},
                        {"at_seconds", f.at_seconds}});
  }
  nlohmann::json j = {
      {"schema", "wsstress.run/2"},
      {"tool", kToolVersion},
      {"engine", "threads"},
      {"scenario", s.run.scenario},
      {"mutant", s.run.mutant},
      {"params",
       {{"threads", s.run.threads},
        {"pools", s.run.pools},
        {"iterations", s.run.iterations},
        {"noise", s.run.noise},
        {"hang_timeout_s", s.run.hang_timeout_s},
        {"max_seconds", s.max_seconds},
        {"repeat", s.repeat}}},
      {"seeds",
       {{"from", s.seeds.from},
        {"to", s.seeds.to},
        {"shard", {{"index", s.shard.index}, {"count", s.shard.count}}},
        {"planned", r.seeds_planned}}},
      {"runs", r.runs},
      {"elapsed_s", r.elapsed_s},
      {"budget_exhausted", r.budget_exhausted},
      {"stopped_by", stop_json(r.stopped_by_signal)},
      {"verdict", verdict_of(r).word},
      {"failures", failures},
      {"parallelism", figure_json(r.parallelism)},
      {"control", r.control ? figure_json(*r.control) : nlohmann::json()},
      {"parallelism_above_control", r.control ? nlohmann::json(r.parallelism_above_control) : nlohmann::json()},
      {"parallelism_p", r.control ? nlohmann::json(r.parallelism_p) : nlohmann::json()},
  };
  return j.dump(2) + "\n";
}

std::string matrix_row_text(const std::string& engine, const matrix::MatrixRow& row) {
  std::string out = engine + " " + row.mutant.name + ": ";
  if (row.caught) {
    out +=
        "caught (" + row.outcome + ") at seed " + std::to_string(row.first_seed) + " in " + fmt("%.1f s", row.seconds);
  } else {
    out += "not caught (" + row.outcome + "): " + std::to_string(row.runs) + " seeds in " + fmt("%.0f s", row.seconds);
  }
  if (!row.kind_as_expected) {
    out += std::string("  <- NOT AS EXPECTED: a ") + core::failure_kind_name(row.kind) + ", the catalog expects " +
           core::to_string_set(row.mutant.kinds) + "\n";
  } else {
    out += row.as_expected ? "\n" : "  <- NOT AS EXPECTED\n";
  }
  return out;
}

std::string matrix_cell(const std::string& engine, const matrix::MatrixRow& row) {
  // Each engine spells its own cells (Relacy counts executions, a fuzzer its inputs).
  const matrix::Engine* e = matrix::find_engine(engine);
  return e != nullptr ? e->cell(row) : row.outcome;
}

// " (relacy: per search)": the engines whose budget is not the whole row's.
std::string budget_units(const std::vector<matrix::MatrixReport>& per_engine) {
  std::string out;
  for (const auto& m : per_engine) {
    const matrix::Engine* e = matrix::find_engine(m.spec.engine);
    if (e == nullptr || e->budget_unit() == "mutant") continue;
    out += (out.empty() ? " (" : ", ") + m.spec.engine + ": per " + std::string(e->budget_unit());
  }
  return out.empty() ? out : out + ")";
}

std::string matrix_text(const std::vector<matrix::MatrixReport>& per_engine) {
  if (per_engine.empty()) return "";
  const auto& first = per_engine.front();
  std::string out = "mutant matrix: budget " + fmt("%g", first.spec.budget_s) + " s per mutant and engine" +
                    budget_units(per_engine) + ", " + std::to_string(first.spec.base.threads) + " threads x " +
                    std::to_string(first.spec.base.pools) + " pools\n\n| mutant | scenario |";
  for (const auto& m : per_engine) out += " " + m.spec.engine + " |";
  out += "\n|---|---|";
  for (std::size_t i = 0; i < per_engine.size(); ++i) out += "---|";
  out += "\n";
  int unexpected = 0;
  double elapsed = 0;
  for (const auto& m : per_engine) elapsed += m.elapsed_s;
  for (std::size_t r = 0; r < first.rows.size(); ++r) {
    out += "| " + first.rows[r].mutant.name + " | " + first.rows[r].scenario + " |";
    for (const auto& m : per_engine) {
      if (r < m.rows.size()) {
        out += " " + matrix_cell(m.spec.engine, m.rows[r]) + " |";
        unexpected += m.rows[r].as_expected ? 0 : 1;
      }
    }
    out += "\n";
  }
  out += "\ncells: how it was caught (hang, bug, crash), the first failing seed and the seconds to it; '-' not "
         "caught, with the seeds run (relacy: the failing execution, or the executions run); 'incomplete' a search "
         "stopped at its limit without a verdict; 'n/m' no Relacy model targets it; fuzz columns: the fuzzer's "
         "executions to its first finding; '!' not as the catalog expects\n";
  std::string replays;
  for (const auto& m : per_engine) {
    for (const auto& row : m.rows) {
      if (row.caught && !row.replay.empty())
        replays += "  " + m.spec.engine + " " + row.mutant.name + ": " + row.replay + "\n";
    }
  }
  if (!replays.empty()) out += "replay a catch:\n" + replays;
  for (const auto& m : per_engine) {
    for (const auto& row : m.rows) {
      if (row.outcome.rfind("error", 0) == 0) {
        out += "engine error: " + row.mutant.name + " on " + m.spec.engine + ": " + row.message + "\n";
        continue;
      }
      if (matrix::is_incomplete(row)) {
        out += "incomplete: " + row.mutant.name + " on " + m.spec.engine + ": " + row.message + "\n";
        continue;
      }
      if (row.kind_as_expected) continue;
      out += "not as expected: " + row.mutant.name + " on " + m.spec.engine + " failed as a " +
             core::failure_kind_name(row.kind) + " (" + row.outcome + "), the catalog expects " +
             core::to_string_set(row.mutant.kinds) + "\n";
    }
  }
  out += "matrix: " + std::to_string(first.rows.size()) + " mutants x " + std::to_string(per_engine.size()) +
         " engines in " + fmt("%.0f", elapsed) + " s, " + std::to_string(unexpected) + " not as expected\n";
  for (const auto& m : per_engine) {
    if (m.stopped_by_signal != 0) {
      out += "matrix: stopped by " + core::signal_name(m.stopped_by_signal) + " during engine " + m.spec.engine +
             "; the rows above are the ones that finished\n";
    }
  }
  return out;
}

int matrix_exit_code(const std::vector<matrix::MatrixReport>& per_engine, int stopped_by_signal) {
  int code = kOk;
  for (const auto& m : per_engine) {
    for (const auto& row : m.rows) {
      // An engine that could not run a row leaves the matrix incomplete: the tool's failure.
      if (row.outcome.rfind("error", 0) == 0) code = kInternal;
      if (!row.as_expected && code == kOk) code = kFailed;
    }
  }
  return code == kOk && stopped_by_signal != 0 ? 128 + stopped_by_signal : code;
}

std::string matrix_json(const std::vector<matrix::MatrixReport>& per_engine) {
  nlohmann::json engines = nlohmann::json::array();
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& m : per_engine) engines.push_back(m.spec.engine);
  if (!per_engine.empty()) {
    for (std::size_t i = 0; i < per_engine.front().rows.size(); ++i) {
      const auto& info = per_engine.front().rows[i].mutant;
      nlohmann::json results = nlohmann::json::object();
      for (const auto& m : per_engine) {
        if (i >= m.rows.size()) continue;
        const auto& r = m.rows[i];
        results[m.spec.engine] = {{"caught", r.caught},
                                  {"outcome", r.outcome},
                                  {"message", r.message},
                                  {"first_seed", r.first_seed},
                                  {"runs", r.runs},
                                  {"seconds", r.seconds},
                                  {"replay", r.replay},
                                  {"as_expected", r.as_expected},
                                  {"kind", r.caught ? core::failure_kind_name(r.kind) : ""},
                                  {"kind_as_expected", r.kind_as_expected}};
      }
      rows.push_back({{"mutant", info.name},
                      {"history", info.history},
                      {"failure", info.failure},
                      {"negative_control", info.negative_control},
                      {"expected_kinds", core::to_string_set(info.kinds)},
                      {"scenario", per_engine.front().rows[i].scenario},
                      {"results", results}});
    }
  }
  const auto& s = per_engine.empty() ? matrix::MatrixSpec{} : per_engine.front().spec;
  int stopped = 0;
  for (const auto& m : per_engine) stopped = stopped != 0 ? stopped : m.stopped_by_signal;
  nlohmann::json j = {{"schema", "wsstress.mutants/3"},
                      {"stopped_by", stop_json(stopped)},
                      {"tool", kToolVersion},
                      {"engines", engines},
                      {"budget_s", s.budget_s},
                      {"hang_timeout_s", s.hang_timeout_s},
                      {"params",
                       {{"threads", s.base.threads},
                        {"pools", s.base.pools},
                        {"iterations", s.base.iterations},
                        {"sim_iterations", s.sim_iterations},
                        {"noise", s.base.noise}}},
                      {"rows", rows}};
  return j.dump(2) + "\n";
}

std::string catalog_text() {
  std::string out;
  for (const auto& m : core::mutant_catalog()) {
    out += m.name + (m.negative_control ? "  (negative control)" : "") + "\n";
    out += "    history:  " + m.history + "\n";
    out += "    failure:  " + m.failure + "\n";
    out += "    scenario: " + m.scenario + "\n";
    // What an engine says of it (real threads: what they can do with it).
    for (const matrix::Engine* e : matrix::all_engines()) {
      if (!e->note_heading().empty()) {
        out += "    " + std::string(e->note_heading()) + ": " + std::string(e->note(m)) + "\n";
      }
    }
  }
  return out;
}

std::string hash_text(std::uint64_t h) {
  char b[32];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
  return b;
}

std::string sim_report_header_text(const sim::SimCampaignReport& rep) {
  const auto& b = rep.spec.base;
  const auto& cfg = rep.spec.config;
  std::string text =
      "sim: scenario " + b.run.scenario + ", mutant " + b.run.mutant + ", strategy " +
      sim::strategy_name(cfg.strategy) + ", memory " + sim::memory_name(cfg.memory) + ", seeds " +
      std::to_string(b.seeds.from) + ".." + std::to_string(b.seeds.to) +
      (b.shard.count > 1 ? " shard " + std::to_string(b.shard.index) + "/" + std::to_string(b.shard.count) : "") +
      ", " + std::to_string(b.run.threads) + " threads x " + std::to_string(b.run.pools) + " pools, " +
      std::to_string(b.run.iterations) + " iterations\n";
  text += "sim: " + std::to_string(rep.runs) + " of " + std::to_string(rep.seeds_planned) + " seeds, " +
          std::to_string(rep.executions) + " executions, " + std::to_string(rep.steps) + " scheduling points in " +
          fmt("%.2f", rep.elapsed_s) + " s (" + fmt("%.0f", rep.elapsed_s > 0 ? rep.steps / rep.elapsed_s : 0) +
          " points/s, " + fmt("%.1f", rep.elapsed_s > 0 ? rep.runs / rep.elapsed_s : 0) + " seeds/s)" +
          stop_text(rep.budget_exhausted, rep.stopped_by_signal) + "\n";
  if (cfg.strategy == sim::StrategyKind::DFS) {
    text += "dfs: " + std::to_string(rep.executions) + " interleavings with at most " +
            std::to_string(cfg.preemption_bound) + " preemptions " +
            (rep.dfs_exhausted ? "- every one of them (exhaustive within the bound)"
                               : "- not all: a limit stopped the search") +
            (rep.failures.empty() ? "; none failed" : "") + "\n";
  }
  return text;
}

std::string explanation_text(const std::vector<std::string>& lines) {
  if (lines.empty()) return "";
  std::string text = "why it was never woken:\n";
  for (const std::string& line : lines) text += "  " + line + "\n";
  return text;
}

std::string explanation_text(const core::Verdict& v) { return explanation_text(v.explanation); }

std::string sim_failure_text(const sim::SimFailure& f) {
  std::string text = "\nFAILED seed " + std::to_string(f.seed) + ": " + core::verdict_name(f.result.verdict.kind) +
                     ": " + f.result.verdict.message + "\n";
  text += explanation_text(f.result.verdict);
  if (!f.result.verdict.dump.empty()) text += "state when it was detected:\n" + f.result.verdict.dump;
  return text;
}

std::string sim_reproducer_text(const std::string& path, const sim::Repro& repro) {
  if (repro.verdict == "crash") {  // no trace: the replay crashes too
    return "reproducer: " + path + " (" + std::to_string(repro.config.forced.size()) +
           " decisions up to the crash)\nreplay: " + core::repro_replay_command(path) + "\n";
  }
  return "reproducer: " + path + " (" + std::to_string(repro.config.forced.size()) + " decisions, trace hash " +
         hash_text(repro.trace_hash) + ")\nreplay: " + core::repro_replay_command(path, true) + "\n";
}

std::string sim_report_json(const sim::SimCampaignReport& rep, const std::vector<std::string>& repro_paths) {
  const auto& b = rep.spec.base;
  const auto& cfg = rep.spec.config;
  nlohmann::json failures = nlohmann::json::array();
  for (std::size_t i = 0; i < rep.failures.size(); ++i) {
    const auto& f = rep.failures[i];
    const std::string path = i < repro_paths.size() ? repro_paths[i] : "";
    failures.push_back({{"seed", f.seed},
                        {"verdict", core::verdict_name(f.result.verdict.kind)},
                        {"message", f.result.verdict.message},
                        {"dump", f.result.verdict.dump},
                        {"explanation", f.result.verdict.explanation},
                        {"steps", f.result.steps},
                        {"trace_hash", hash_text(f.result.trace_hash)},
                        {"reproducer", path},
                        {"replay", core::repro_replay_command(path)},
                        {"at_seconds", f.at_seconds}});
  }
  nlohmann::json j = {
      {"schema", "wsstress.sim/1"},
      {"tool", kToolVersion},
      {"engine", std::string("sim-") + sim::memory_name(cfg.memory)},
      {"scenario", b.run.scenario},
      {"mutant", b.run.mutant},
      {"strategy", sim::strategy_name(cfg.strategy)},
      {"memory", sim::memory_name(cfg.memory)},
      {"params",
       {{"threads", b.run.threads},
        {"pools", b.run.pools},
        {"iterations", b.run.iterations},
        {"pct_depth", cfg.pct_depth},
        {"preemption_bound", cfg.preemption_bound},
        {"step_budget", cfg.step_budget},
        {"max_seconds", b.max_seconds}}},
      {"seeds",
       {{"from", b.seeds.from},
        {"to", b.seeds.to},
        {"shard", {{"index", b.shard.index}, {"count", b.shard.count}}},
        {"planned", rep.seeds_planned}}},
      {"runs", rep.runs},
      {"executions", rep.executions},
      {"steps", rep.steps},
      {"elapsed_s", rep.elapsed_s},
      {"budget_exhausted", rep.budget_exhausted},
      {"stopped_by", stop_json(rep.stopped_by_signal)},
      {"dfs_exhausted", cfg.strategy == sim::StrategyKind::DFS ? nlohmann::json(rep.dfs_exhausted) : nlohmann::json()},
      {"verdict", verdict_of(rep).word},
      {"failures", failures},
  };
  return j.dump(2) + "\n";
}

}  // namespace wsstress::cli
