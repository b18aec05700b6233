// SPDX-License-Identifier: MIT OR Apache-2.0
// The uniform random walk: at each decision any runnable fiber, with the
// shared TSO flushes and spurious wake-ups first.
#include "../strategy.hpp"

namespace wsstress::sim {
namespace {

class Random final : public Strategy {
 public:
  Random(const SimConfig& config, SplitMix64& rng) : config_(config), rng_(rng) {}

  std::optional<Action> choose(const ReadyView& view) override {
    if (auto a = flush_or_spurious(view, config_, rng_)) return a;
    return view.runnable[rng_.next() % view.runnable.size()];
  }
  std::optional<std::uint32_t> choose_read(std::uint32_t n, std::size_t) override {
    return stale_or_newest(n, config_, rng_);
  }

 private:
  const SimConfig& config_;
  SplitMix64& rng_;
};

std::unique_ptr<Strategy> make_random(const SimConfig& config, SplitMix64& rng) {
  return std::make_unique<Random>(config, rng);
}

}  // namespace

WSSTRESS_REGISTER_STRATEGY(
    random_strategy, {.kind = StrategyKind::Random, .rank = 20, .help = "the uniform random walk", .make = make_random})

}  // namespace wsstress::sim
