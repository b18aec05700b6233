// SPDX-License-Identifier: MIT OR Apache-2.0
// Depth-first search, one execution at a time: past the prefix the engine
// replays (sim/engine.cpp, which walks the tree under a preemption bound),
// keep running the fiber that ran last if it can (no preemption), else the
// lowest runnable id. Every decision's alternatives are recorded so the
// engine can extend the tree: the runnable fibers and, under TSO, a flush of
// each non-empty store buffer (spurious wake-ups are left to the random
// strategies), the non-preemptive default first; under cpp memory, each
// store a load may read, the newest first.
#include "../strategy.hpp"

namespace wsstress::sim {
namespace {

class Dfs final : public Strategy {
 public:
  void observe(const ReadyView& view) override {
    const std::uint32_t def = view.keep_running().code();
    std::vector<std::uint32_t> alts{def};
    for (const Action& a : view.runnable) {
      if (a.code() != def) alts.push_back(a.code());
    }
    if (view.tso) {
      for (std::uint32_t f : view.with_stores()) alts.push_back(Action{f, Action::Flush}.code());
    }
    decisions_.push_back(std::move(alts));
  }

  std::optional<Action> choose(const ReadyView& view) override { return view.keep_running(); }

  // A load's alternatives: the newest store (the default, as SC would read)
  // and each older one it may read, each older one costing one preemption.
  void observe_read(std::uint32_t n) override {
    std::vector<std::uint32_t> alts;
    for (std::uint32_t k = 0; k < n; ++k) alts.push_back(Action{k, Action::Read}.code());
    decisions_.push_back(std::move(alts));
  }
  std::optional<std::uint32_t> choose_read(std::uint32_t, std::size_t) override { return 0; }

  std::vector<std::vector<std::uint32_t>> take_decisions() override { return std::move(decisions_); }

 private:
  std::vector<std::vector<std::uint32_t>> decisions_;
};

std::unique_ptr<Strategy> make_dfs(const SimConfig&, SplitMix64&) { return std::make_unique<Dfs>(); }

}  // namespace

WSSTRESS_REGISTER_STRATEGY(dfs_strategy, {.kind = StrategyKind::DFS,
                                          .rank = 40,
                                          .help = "depth-first search of every schedule with at most "
                                                  "--preemption-bound preemptions, --max-executions per seed",
                                          .make = make_dfs})

}  // namespace wsstress::sim
