// SPDX-License-Identifier: MIT OR Apache-2.0
// The shrinker (engine.hpp): a failing reproducer made smaller (the program,
// then the schedule), keeping only changes under which it still fails the
// same way.
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
  cur.shrunk_from = "seed " + std::to_string(failing.config.seed) + ", strategy " +
                    strategy_name(failing.config.strategy) + ", " + std::to_string(failing.config.forced.size()) +
                    " decisions, " + std::to_string(rep.preemptions_before) + " preemptions; the schedule below has " +
                    std::to_string(rep.preemptions_after) +
                    " (preemption-bound), then replays the non-preemptive default (strategy dfs)";
  rep.after = cur;
  return rep;
}

}  // namespace wsstress::sim
