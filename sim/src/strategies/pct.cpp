// SPDX-License-Identifier: MIT OR Apache-2.0
// PCT (Burckhardt, Kothari, Musuvathi, Nagarakatte: "A randomized scheduler
// with probabilistic guarantees of finding bugs", ASPLOS 2010): every fiber
// gets a random priority and the highest runnable one runs; at d - 1 random
// steps out of k the running fiber drops below every initial priority. A bug
// of depth d is found with probability at least 1 / (n * k^(d-1)) per run.
#include "../strategy.hpp"

namespace wsstress::sim {
namespace {

class Pct final : public Strategy {
 public:
  Pct(const SimConfig& config, SplitMix64& rng) : config_(config), rng_(rng) {
    for (unsigned i = 1; i < config.pct_depth; ++i) change_points_.push_back(1 + rng_.next() % config.pct_steps);
  }

  void on_spawn(std::uint32_t, std::uint64_t draw) override { priority_.push_back(pct_initial_priority(draw)); }

  std::optional<Action> choose(const ReadyView& view) override {
    if (auto a = flush_or_spurious(view, config_, rng_)) return a;
    return pct_pick(view, change_points_, priority_);
  }
  std::optional<std::uint32_t> choose_read(std::uint32_t n, std::size_t) override {
    return stale_or_newest(n, config_, rng_);
  }

 private:
  const SimConfig& config_;
  SplitMix64& rng_;
  std::vector<std::uint64_t> change_points_;
  std::vector<std::uint64_t> priority_;  // by fiber id
};

}  // namespace

Action pct_pick(const ReadyView& view, const std::vector<std::uint64_t>& change_points,
                std::vector<std::uint64_t>& priority) {
  for (std::size_t i = 0; i < change_points.size(); ++i) {
    if (change_points[i] == view.steps && view.last_run < priority.size()) {
      priority[view.last_run] = i + 1;  // below every initial priority
    }
  }
  const Action* best = &view.runnable.front();
  for (const Action& a : view.runnable) {
    if (priority[a.fiber] > priority[best->fiber]) best = &a;
  }
  return *best;
}

namespace {

std::unique_ptr<Strategy> make_pct(const SimConfig& config, SplitMix64& rng) {
  return std::make_unique<Pct>(config, rng);
}

}  // namespace

WSSTRESS_REGISTER_STRATEGY(pct_strategy, {.kind = StrategyKind::PCT,
                                          .rank = 30,
                                          .help = "random priorities with --pct-depth - 1 change points (PCT)",
                                          .make = make_pct})

}  // namespace wsstress::sim
