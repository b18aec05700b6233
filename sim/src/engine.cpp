// The simulator engine: the DFS driver, reproducer files and the shrinker.
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

// ---- DFS ----

DfsReport dfs_explore(SimRunFn run, const core::RunSpec& spec, SimConfig config, std::uint64_t max_executions,
                      double max_seconds) {
  return dfs_explore([&](const SimConfig& c) { return run(spec, c); }, std::move(config), max_executions, max_seconds);
}

DfsReport dfs_explore(const SimProgram& run, SimConfig config, std::uint64_t max_executions, double max_seconds) {
  struct Node {
    std::vector<std::uint32_t> alts;  // alts[0] is the default
    std::set<std::uint32_t> tried;
    std::uint32_t chosen;
    unsigned preempt_before;
  };
  DfsReport report;
  config.strategy = StrategyKind::DFS;
  config.spurious_wakeup_per_mille = 0;
  std::vector<std::uint32_t> prefix;
  std::vector<Node> nodes;
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    config.forced = prefix;
    SimResult r = run(config);
    ++report.executions;
    report.steps += r.steps;
    if (r.verdict.kind != core::VerdictKind::Pass) {
      report.failing_config = config;
      report.failing_config.forced = r.schedule;
      report.failure = std::move(r);
      return report;
    }
    // Extend the tree with this execution's decisions past the prefix.
    nodes.resize(prefix.size());
    unsigned preempt = 0;
    for (std::size_t i = 0; i < r.decisions.size() && i < r.schedule.size(); ++i) {
      if (i < nodes.size()) {
        preempt = nodes[i].preempt_before + (nodes[i].chosen != nodes[i].alts.front() ? 1 : 0);
        continue;
      }
      Node n{r.decisions[i], {r.schedule[i]}, r.schedule[i], preempt};
      preempt += r.schedule[i] != r.decisions[i].front() ? 1 : 0;
      nodes.push_back(std::move(n));
    }
    // Backtrack to the deepest decision with an untried alternative in bound.
    bool advanced = false;
    for (std::size_t i = nodes.size(); i-- > 0 && !advanced;) {
      Node& n = nodes[i];
      for (std::uint32_t alt : n.alts) {
        if (n.tried.count(alt)) continue;
        const unsigned cost = alt != n.alts.front() ? 1 : 0;
        if (n.preempt_before + cost > config.preemption_bound) continue;
        n.tried.insert(alt);
        n.chosen = alt;
        prefix.assign(r.schedule.begin(), r.schedule.begin() + static_cast<std::ptrdiff_t>(i));
        // Earlier decisions keep their recorded choices.
        for (std::size_t k = 0; k < i; ++k) prefix[k] = nodes[k].chosen;
        prefix.push_back(alt);
        nodes.resize(i + 1);
        advanced = true;
        break;
      }
    }
    if (!advanced) {
      report.exhausted = true;
      return report;
    }
    if (report.executions >= max_executions) return report;
    if (max_seconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= max_seconds) {
      return report;
    }
  }
}

// ---- shrinking ----

std::size_t count_preemptions(SimRunFn run, const Repro& r) {
  SimConfig c = r.config;
  c.strategy = StrategyKind::DFS;
  SimResult res = run(r.spec, c);
  std::size_t n = 0;
  for (std::size_t i = 0; i < res.decisions.size() && i < res.schedule.size(); ++i) {
    n += res.schedule[i] != res.decisions[i].front() ? 1 : 0;
  }
  return n;
}

namespace {

// The state of one shrink: the failure it must keep, the smallest reproducer
// so far and its run. A candidate is kept if it fails the same way; its
// executed schedule (and decision alternatives, under DFS continuation)
// become the new state.
struct Shrinker {
  SimRunFn run;
  core::VerdictKind want;
  ShrinkReport& rep;
  Repro cur;
  SimResult cur_res;

  bool try_run(const core::RunSpec& spec, const SimConfig& cfg, SimResult& out) {
    ++rep.attempts;
    out = run(spec, cfg);
    return out.verdict.kind == want && out.divergence.empty();
  }

  // Smaller programs than `spec`: fewer iterations, threads, pools.
  static std::vector<core::RunSpec> smaller(const core::RunSpec& spec) {
    std::vector<core::RunSpec> out;
    core::RunSpec s = spec;
    if (spec.iterations > 1) {
      s.iterations = 1;
      out.push_back(s);
      s.iterations = spec.iterations / 2;
      if (s.iterations >= 1) out.push_back(s);
    }
    if (spec.threads > 1) {
      s = spec;
      s.threads -= 1;
      out.push_back(s);
    }
    if (spec.pools > 1) {
      s = spec;
      s.pools -= 1;
      out.push_back(s);
    }
    return out;
  }

  // 1. The program, rerun with the original strategy and seed.
  void shrink_program(const SimConfig& original) {
    for (bool progress = true; progress;) {
      progress = false;
      for (const core::RunSpec& s : smaller(cur.spec)) {
        SimConfig cfg = original;
        cfg.forced.clear();
        SimResult r;
        if (try_run(s, cfg, r)) {
          // The smaller run is what the reproducer now records: its
          // schedule, and what it showed (a replay checks both).
          cur.spec = s;
          cur.config.forced = r.schedule;
          cur.verdict = core::verdict_name(r.verdict.kind);
          cur.message = r.verdict.message;
          cur.trace_hash = r.trace_hash;
          progress = true;
          break;
        }
      }
    }
  }

  // The shortest prefix of the schedule that still fails, the rest replayed
  // with the non-preemptive default.
  std::vector<std::uint32_t> shortest_prefix(const SimConfig& base) {
    std::size_t lo = 0, hi = cur.config.forced.size();
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      SimConfig c = base;
      c.forced.assign(cur.config.forced.begin(), cur.config.forced.begin() + static_cast<std::ptrdiff_t>(mid));
      SimResult r;
      if (try_run(cur.spec, c, r)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return {cur.config.forced.begin(), cur.config.forced.begin() + static_cast<std::ptrdiff_t>(lo)};
  }

  // 2. The schedule: the shortest failing prefix, then each remaining
  //    preemption replaced by the default where the failure survives. False
  //    if the failure needs what DFS continuation does not do (spurious
  //    wake-ups, flushes): the schedule is then kept as it is.
  bool shrink_schedule(const SimConfig& base) {
    SimResult r;
    if (!try_run(cur.spec, base, r)) return false;
    cur.config.forced = r.schedule;
    cur_res = r;
    std::vector<std::uint32_t> prefix = shortest_prefix(base);
    SimConfig c = base;
    c.forced = prefix;
    if (try_run(cur.spec, c, r)) cur_res = r;
    for (std::size_t i = 0; i < prefix.size() && i < cur_res.decisions.size(); ++i) {
      const std::uint32_t def = cur_res.decisions[i].front();
      if (prefix[i] == def) continue;
      c.forced = prefix;
      c.forced[i] = def;
      if (try_run(cur.spec, c, r)) {
        prefix = c.forced;
        cur_res = r;
      }
    }
    return true;
  }
};

}  // namespace

ShrinkReport shrink(const Repro& failing) {
  ShrinkReport rep;
  rep.before = failing;
  const SimRunFn run = find_sim_runner(failing.spec.mutant);
  const core::VerdictKind want = failing.verdict == "hang" ? core::VerdictKind::Hang : core::VerdictKind::Bug;
  Shrinker sh{run, want, rep, failing, {}};
  sh.shrink_program(failing.config);
  SimConfig base = sh.cur.config;
  base.strategy = StrategyKind::DFS;
  base.spurious_wakeup_per_mille = 0;
  if (!sh.shrink_schedule(base)) {
    rep.after = sh.cur;
    return rep;
  }
  Repro& cur = sh.cur;
  cur.config = base;
  cur.config.forced = sh.cur_res.schedule;
  cur.config.strategy = StrategyKind::DFS;
  cur.verdict = core::verdict_name(sh.cur_res.verdict.kind);
  cur.message = sh.cur_res.verdict.message;
  cur.trace_hash = sh.cur_res.trace_hash;
  rep.preemptions_before = count_preemptions(run, failing);
  rep.preemptions_after = count_preemptions(run, cur);
  // The header tells the truth: the schedule's own preemption count, and
  // where it came from (its strategy is DFS only for what follows it).
  cur.config.preemption_bound = static_cast<unsigned>(rep.preemptions_after);
  cur.shrunk_from = "seed " + std::to_string(failing.config.seed) + ", strategy " + strategy_name(failing.config.strategy) +
                    ", " + std::to_string(failing.config.forced.size()) + " decisions, " +
                    std::to_string(rep.preemptions_before) + " preemptions; the schedule below has " +
                    std::to_string(rep.preemptions_after) +
                    " (preemption-bound), then replays the non-preemptive default (strategy dfs)";
  rep.after = cur;
  return rep;
}

// ---- campaigns ----

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
  const core::SweepOutcome swept = core::sweep(plan, [&](std::uint64_t seed) {
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
  }, progress);
  report.budget_exhausted = swept.budget_exhausted;
  report.stopped_by_signal = swept.stopped_by_signal;
  report.elapsed_s = elapsed();
  return report;
}

}  // namespace wsstress::sim
