// SPDX-License-Identifier: MIT OR Apache-2.0
// A simulator campaign (engine.hpp): a range of seeds (one shard of it), each
// one execution per repeat or a whole DFS tree, within a time budget.
#include "wsstress/sim/engine.hpp"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "journal.hpp"
#include "strategy.hpp"
#include "wsstress/core/catalog.hpp"

namespace wsstress::sim {

core::VerdictKind SimCampaignReport::overall() const {
  core::VerdictKind worst = core::VerdictKind::Pass;
  for (const SimFailure& f : failures) worst = core::worse(worst, f.result.verdict.kind);
  return worst;
}

namespace {

// One seed: one execution per repeat, or a whole DFS tree. A failure comes
// back with the configuration that replays it.
std::optional<SimResult> run_sim_seed(const SimCampaignSpec& spec, SimRunFn run, SimConfig& cfg, double seconds_left,
                                      SimCampaignReport& report) {
  if (cfg.strategy == StrategyKind::DFS) {
    DfsReport d = dfs_explore(run, spec.base.run, cfg, spec.max_executions, seconds_left);
    report.executions += d.executions;
    report.steps += d.steps;
    report.dfs_exhausted = report.dfs_exhausted && d.exhausted;
    if (d.failure) cfg = d.failing_config;
    return std::move(d.failure);
  }
  for (std::uint64_t rep = 0; rep < spec.base.repeat; ++rep) {
    SimResult r = run(spec.base.run, cfg);
    ++report.executions;
    report.steps += r.steps;
    if (r.verdict.kind != core::VerdictKind::Pass) {
      cfg.forced = r.schedule;
      return r;
    }
  }
  return std::nullopt;
}

}  // namespace

SimFailure make_sim_failure(const core::RunSpec& run, std::uint64_t seed, const SimConfig& cfg, SimResult result,
                            double at_seconds) {
  Repro repro;
  repro.spec = run;
  repro.config = resolve_strategy(cfg);  // the portfolio's member that ran
  repro.config.record_trace = false;
  repro.verdict = core::verdict_name(result.verdict.kind);
  repro.message = result.verdict.message;
  repro.trace_hash = result.trace_hash;
  return {seed, std::move(result), std::move(repro), at_seconds};
}

SimCampaignReport run_sim_campaign(const SimCampaignSpec& spec, const core::ProgressFn& progress) {
  if (spec.crash_guard) return run_guarded_campaign(spec, progress);
  CrashJournal* journal = CrashJournal::active();  // set in a guarded campaign's child
  SimCampaignReport report;
  report.spec = spec;
  const auto& b = spec.base;
  report.seeds_planned = core::seeds_in_shard(b.seeds, b.shard);
  SimRunFn run = find_sim_runner(b.run.mutant);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const core::SweepPlan plan{b.seeds, b.shard, b.max_seconds, b.stop_on_failure};
  const core::SweepOutcome swept = core::sweep(
      plan,
      [&](std::uint64_t seed) {
        SimConfig cfg = spec.config;
        cfg.seed = seed;
        const double left = b.max_seconds > 0 ? b.max_seconds - elapsed() : 0;
        if (journal != nullptr) journal->header().seed = seed;
        std::optional<SimResult> failed = run_sim_seed(spec, run, cfg, left, report);
        ++report.runs;
        if (journal != nullptr) journal_seed_done(*journal, report);
        if (!failed) return false;
        report.failures.push_back(make_sim_failure(b.run, seed, cfg, std::move(*failed), elapsed()));
        return true;
      },
      progress);
  report.budget_exhausted = swept.budget_exhausted;
  report.stopped_by_signal = swept.stopped_by_signal;
  report.elapsed_s = elapsed();
  return report;
}

}  // namespace wsstress::sim
