// SPDX-License-Identifier: MIT OR Apache-2.0
// The bounded depth-first search (engine.hpp): every schedule within a
// preemption bound, re-executed from the start, until one fails or the
// space or a limit is exhausted.
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

}  // namespace wsstress::sim
