// SPDX-License-Identifier: MIT OR Apache-2.0
// Partial order sampling (POS): Yuan, Yang and Gu, "Partial Order Aware
// Concurrency Sampling", CAV 2018, as Fray and shuttle ship it. Each fiber
// holds a random priority and the highest runnable one runs; after it runs,
// its priority is drawn anew, and so is that of every runnable fiber whose
// next operation races with the one just taken (the same object, one of the
// two a write). The other fibers keep theirs, raised by a small decay so none
// waits forever. A random walk puts a fiber's event after another fiber's
// run of n independent events with probability 2^-n; POS does not flip a coin
// at each independent event, so every order of the racing events keeps a
// fair share (the sampling is over partial orders, not interleavings).
//
// Our choices: an event's object is the address the simulator's scheduling
// point names (Fiber::next_addr: an atomic, a mutex, a condvar); a load reads,
// every other operation on an object writes it (a lock, an unlock, a wait and
// a notify change the object's state); fences, yields, starts and exits race
// with nothing. A fiber blocked on a mutex or condvar is not runnable, so its
// priority waits unchanged until it is. TSO flushes, spurious wake-ups and
// cpp-memory reads are the random walk's (flush_or_spurious, stale_or_newest).
#include "../strategy.hpp"

namespace wsstress::sim {
namespace {

// shuttle's default: a kept priority climbs to the top in about 10 000 steps.
constexpr std::uint32_t kDecay = 214748;

bool writes(Op op) { return op != Op::Load; }

bool racing(const Fiber& a, const Fiber& b) {
  return a.next_addr != nullptr && a.next_addr == b.next_addr && (writes(a.last_op) || writes(b.last_op));
}

class Pos final : public Strategy {
 public:
  Pos(const SimConfig& config, SplitMix64& rng) : config_(config), rng_(rng) {}

  void on_spawn(std::uint32_t fiber, std::uint64_t draw) override {
    if (priority_.size() <= fiber) priority_.resize(fiber + 1, 0);
    priority_[fiber] = static_cast<std::uint32_t>(draw);
  }

  std::optional<Action> choose(const ReadyView& view) override {
    if (auto a = flush_or_spurious(view, config_, rng_)) return a;
    const Action* best = &view.runnable.front();
    for (const Action& a : view.runnable) {
      if (priority_[a.fiber] > priority_[best->fiber]) best = &a;
    }
    const Fiber& chosen = *view.fibers[best->fiber];
    for (const Action& a : view.runnable) {
      std::uint32_t& p = priority_[a.fiber];
      if (a.fiber == best->fiber || racing(*view.fibers[a.fiber], chosen)) {
        p = static_cast<std::uint32_t>(rng_.next());
      } else {
        p = p > UINT32_MAX - kDecay ? UINT32_MAX : p + kDecay;
      }
    }
    return *best;
  }

  std::optional<std::uint32_t> choose_read(std::uint32_t n, std::size_t) override {
    return stale_or_newest(n, config_, rng_);
  }

 private:
  const SimConfig& config_;
  SplitMix64& rng_;
  std::vector<std::uint32_t> priority_;  // by fiber id
};

std::unique_ptr<Strategy> make_pos(const SimConfig& config, SplitMix64& rng) {
  return std::make_unique<Pos>(config, rng);
}

}  // namespace

WSSTRESS_REGISTER_STRATEGY(pos_strategy, {.kind = StrategyKind{"pos"},
                                          .rank = 35,
                                          .help = "partial order sampling: random priorities, redrawn for the "
                                                  "fiber that ran and the fibers racing with it (POS, CAV 2018)",
                                          .make = make_pos})

}  // namespace wsstress::sim
