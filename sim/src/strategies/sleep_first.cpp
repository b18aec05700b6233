// SPDX-License-Identifier: MIT OR Apache-2.0
// "Drive everyone to sleep first" (after Coyote's
// portfolio of biased strategies): while some pool worker is still active or
// idle, run workers, so they spin through their idle rounds and gates; once
// every worker is sleepy, asleep or on its way into the condvar, run the
// other fibers, whose next step is the event under test (an injection, a
// latch set, a termination). That is the moment the lost wake-ups of the sleep
// handshake need, and a uniform walk rarely lines it up. One decision in four
// is a uniform pick, so no fiber starves and spin-waits end.
#include "../strategy.hpp"

namespace wsstress::sim {
namespace {

class SleepFirst final : public Strategy {
 public:
  SleepFirst(const SimConfig& config, SplitMix64& rng) : config_(config), rng_(rng) {}

  std::optional<Action> choose(const ReadyView& view) override {
    if (auto a = flush_or_spurious(view, config_, rng_)) return a;
    if (rng_.next() % 4 == 0) return view.runnable[rng_.next() % view.runnable.size()];
    std::vector<Action> workers, others;
    for (const Action& a : view.runnable) (is_worker(*view.fibers[a.fiber]) ? workers : others).push_back(a);
    const bool quiet = all_workers_quiet(view);
    const std::vector<Action>& first = quiet ? others : workers;
    const std::vector<Action>& pool = first.empty() ? view.runnable : first;
    return pool[rng_.next() % pool.size()];
  }
  std::optional<std::uint32_t> choose_read(std::uint32_t n, std::size_t) override {
    return stale_or_newest(n, config_, rng_);
  }

 private:
  static bool is_worker(const Fiber& f) { return f.slot != nullptr; }

  // Every live worker has announced itself sleepy or gone further.
  static bool all_workers_quiet(const ReadyView& view) {
    for (const Fiber* f : view.live) {
      if (f->slot == nullptr) continue;
      const core::Phase p = f->slot->phase.load(std::memory_order_relaxed);
      if (p == core::Phase::Active || p == core::Phase::Idle) return false;
    }
    return true;
  }

  const SimConfig& config_;
  SplitMix64& rng_;
};

std::unique_ptr<Strategy> make_sleep_first(const SimConfig& config, SplitMix64& rng) {
  return std::make_unique<SleepFirst>(config, rng);
}

}  // namespace

WSSTRESS_REGISTER_STRATEGY(sleep_first_strategy, {.kind = StrategyKind::SleepFirst,
                                                  .rank = 50,
                                                  .help = "the workers until all are asleep, then the others",
                                                  .make = make_sleep_first})

}  // namespace wsstress::sim
