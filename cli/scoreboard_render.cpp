// SPDX-License-Identifier: MIT OR Apache-2.0
// The scoreboard as text and JSON (scoreboard_render.hpp). The text is a
// Markdown table, one row per target and model, one column per strategy, so
// the README quotes it as printed.
#include "scoreboard_render.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "exit_codes.hpp"

namespace wsstress::cli {

using matrix::ScoreboardReport;
using matrix::ScoreCell;
using matrix::ScoreStats;

namespace {

std::string list_of(const std::vector<sim::StrategyKind>& ss) {
  std::string s;
  for (auto k : ss) s += (s.empty() ? "" : ",") + std::string(sim::strategy_name(k));
  return s;
}
std::string list_of(const std::vector<sim::MemoryModel>& ms) {
  std::string s;
  for (auto m : ms) s += (s.empty() ? "" : ",") + std::string(sim::memory_name(m));
  return s;
}

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// A cell of the schedules table: "median / p90 / misses" ("-" beyond the
// budget); a clean target: "pass" or how many runs failed it.
}  // namespace

std::string scoreboard_cell_text(const ScoreStats& s, bool expect_failure) {
  if (!expect_failure)
    return s.found == 0 ? "pass" : "FAILED " + std::to_string(s.found) + "/" + std::to_string(s.runs);
  auto q = [](const std::optional<std::uint64_t>& v) { return v ? std::to_string(*v) : std::string("-"); };
  return q(s.median) + " / " + q(s.p90) + " / " + std::to_string(s.misses);
}
namespace {

std::string seconds_cell(const ScoreStats& s, bool expect_failure) {
  if (!expect_failure) return s.found == 0 ? "pass" : "FAILED";
  auto q = [](const std::optional<double>& v) { return v ? fixed(*v, 3) : std::string("-"); };
  return q(s.median_seconds) + " / " + q(s.p90_seconds);
}

// Rows of cells as a Markdown table, its columns padded to one width each.
std::string markdown(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t i = 0; i < rows[r].size(); ++i)
      out += "| " + rows[r][i] + std::string(width[i] - rows[r][i].size(), ' ') + " ";
    out += "|\n";
    if (r == 0) {
      for (std::size_t w : width) out += "|" + std::string(w + 2, '-');
      out += "|\n";
    }
  }
  return out;
}

// One table: a row per target and model, a column per strategy; a stopped
// board leaves out the cells it did not finish.
std::string table(const ScoreboardReport& r, bool seconds) {
  std::vector<std::vector<std::string>> rows{{"target", "memory"}};
  for (auto s : r.spec.strategies) rows[0].push_back(sim::strategy_name(s));
  for (std::size_t t = 0; t < r.spec.targets.size(); ++t) {
    const matrix::ScoreTarget& target = r.spec.targets[t];
    for (sim::MemoryModel m : r.spec.memories) {
      std::vector<std::string> row{target.name, sim::memory_name(m)};
      bool any = false;
      for (sim::StrategyKind s : r.spec.strategies) {
        const ScoreCell* c = matrix::find_cell(r, t, s, m);
        any = any || c != nullptr;
        if (c == nullptr) {
          row.emplace_back("");
          continue;
        }
        const ScoreStats st = matrix::score_stats(*c, target);
        row.push_back(seconds ? seconds_cell(st, target.expect_failure)
                              : scoreboard_cell_text(st, target.expect_failure));
      }
      if (any) rows.push_back(std::move(row));
    }
  }
  return markdown(rows);
}

}  // namespace

std::string scoreboard_header_text(const matrix::ScoreboardSpec& spec, std::size_t total_runs) {
  const auto& run = spec.base.base.run;
  return "scoreboard: " + std::to_string(spec.targets.size()) + " targets, strategies " + list_of(spec.strategies) +
         ", memory " + list_of(spec.memories) + ", " + std::to_string(spec.runs) + " runs per cell of at most " +
         std::to_string(spec.budget) + " schedules" +
         (spec.run_seconds > 0 ? " or " + fixed(spec.run_seconds, 1) + " s" : std::string()) + ", seed " +
         std::to_string(spec.seed) + ", " + std::to_string(run.threads) + " threads x " + std::to_string(run.pools) +
         " pools, " + std::to_string(run.iterations) + " iterations; " + std::to_string(total_runs) + " runs, " +
         std::to_string(spec.jobs) + (spec.jobs == 1 ? " job" : " jobs");
}

std::string scoreboard_text(const ScoreboardReport& r) {
  std::string out = "\nschedules to the first failure: median / 90th percentile / runs that missed within " +
                    std::to_string(r.spec.budget) + " (-: beyond the budget)\n\n" + table(r, false) +
                    "\nseconds to the first failure: median / 90th percentile\n\n" + table(r, true) +
                    "\nsummary (targets expected to fail):\n";
  for (const matrix::StrategySummary& s : matrix::strategy_summaries(r)) {
    char line[256];
    std::snprintf(
        line, sizeof line, "  %-4s %-12s found %zu/%zu runs, %zu/%zu targets in every run, best median on %zu\n",
        sim::memory_name(s.memory), sim::strategy_name(s.strategy), s.found, s.runs, s.always_found, s.targets, s.best);
    out += line;
  }
  for (const ScoreCell& c : r.cells) {
    const ScoreStats st = matrix::score_stats(c, r.spec.targets[c.target]);
    if (!st.unexpected.empty()) {
      out += "NOT AS EXPECTED: " + r.spec.targets[c.target].name + ", " + sim::memory_name(c.memory) + ", " +
             sim::strategy_name(c.strategy) + ": " + st.unexpected + "\n";
    }
  }
  out += "scoreboard: " + std::to_string(r.cells.size()) + " cells in " + fixed(r.elapsed_s, 1) + " s";
  if (r.stopped_by_signal != 0)
    out += "; stopped by " + core::signal_name(r.stopped_by_signal) + ", finished cells only";
  return out + "\n";
}

std::string scoreboard_json(const ScoreboardReport& r) {
  using nlohmann::json;
  const auto& run = r.spec.base.base.run;
  json j{{"schema", "wsstress.scoreboard/1"},
         {"runs", r.spec.runs},
         {"budget", r.spec.budget},
         {"budget_seconds", r.spec.run_seconds},
         {"seed", r.spec.seed},
         {"strategies", json::array()},
         {"memories", json::array()},
         {"threads", run.threads},
         {"pools", run.pools},
         {"iterations", run.iterations},
         {"elapsed_s", r.elapsed_s},
         {"stopped_by_signal", r.stopped_by_signal},
         {"targets", json::array()},
         {"cells", json::array()},
         {"summary", json::array()}};
  for (auto s : r.spec.strategies) j["strategies"].push_back(sim::strategy_name(s));
  for (auto m : r.spec.memories) j["memories"].push_back(sim::memory_name(m));
  for (const auto& t : r.spec.targets) {
    j["targets"].push_back({{"name", t.name},
                            {"scenario", t.scenario},
                            {"mutant", t.mutant},
                            {"expect", t.expect_failure ? "fails" : "passes"}});
  }
  auto opt = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  for (const ScoreCell& c : r.cells) {
    const ScoreStats st = matrix::score_stats(c, r.spec.targets[c.target]);
    json cell{{"target", r.spec.targets[c.target].name},
              {"strategy", sim::strategy_name(c.strategy)},
              {"memory", sim::memory_name(c.memory)},
              {"found", st.found},
              {"misses", st.misses},
              {"median", opt(st.median)},
              {"p90", opt(st.p90)},
              {"median_seconds", opt(st.median_seconds)},
              {"p90_seconds", opt(st.p90_seconds)},
              {"unexpected", st.unexpected},
              {"runs", json::array()}};
    for (const matrix::ScoreRun& run : c.runs) {
      json rj{
          {"first_seed", run.first_seed}, {"found", run.found}, {"schedules", run.schedules}, {"seconds", run.seconds}};
      if (!run.verdict.empty()) {
        rj.update({{"seed", run.seed}, {"verdict", run.verdict}, {"message", run.message}, {"replay", run.replay}});
      }
      cell["runs"].push_back(std::move(rj));
    }
    j["cells"].push_back(std::move(cell));
  }
  for (const matrix::StrategySummary& s : matrix::strategy_summaries(r)) {
    j["summary"].push_back({{"strategy", sim::strategy_name(s.strategy)},
                            {"memory", sim::memory_name(s.memory)},
                            {"runs", s.runs},
                            {"found", s.found},
                            {"targets", s.targets},
                            {"always_found", s.always_found},
                            {"best_median", s.best}});
  }
  return j.dump(1) + "\n";
}

int scoreboard_exit_code(const ScoreboardReport& r) {
  bool internal = false, clean_failed = false;
  for (const ScoreCell& c : r.cells) {
    const matrix::ScoreTarget& t = r.spec.targets[c.target];
    for (const matrix::ScoreRun& run : c.runs) {
      internal = internal || (!run.found && !run.verdict.empty());
      clean_failed = clean_failed || (run.found && !t.expect_failure);
    }
  }
  if (internal) return kInternal;
  if (clean_failed) return kFailed;
  if (r.stopped_by_signal != 0) return 128 + r.stopped_by_signal;
  return kOk;
}

}  // namespace wsstress::cli
