// The ReadyView's queries, the noise the random strategies share, and the
// one place a configuration becomes a Strategy.
#include "strategy.hpp"

namespace wsstress::sim {

std::vector<std::uint32_t> ReadyView::with_stores() const {
  std::vector<std::uint32_t> out;
  for (const Fiber* f : live) {
    if (!f->buffer.empty()) out.push_back(f->id);
  }
  return out;
}

std::vector<std::uint32_t> ReadyView::cond_waiters() const {
  std::vector<std::uint32_t> out;
  for (const Fiber* f : live) {
    if (f->state == FiberState::BlockedCond) out.push_back(f->id);
  }
  return out;
}

bool ReadyView::can(const Action& a) const {
  if (a.fiber >= fibers.size()) return false;
  const Fiber& f = *fibers[a.fiber];
  if (a.kind == Action::Flush) return !f.buffer.empty();
  if (a.kind == Action::Spurious) return f.state == FiberState::BlockedCond;
  if (a.kind != Action::Run) return false;
  for (const Action& r : runnable) {
    if (r.fiber == a.fiber) return true;
  }
  return false;
}

Action ReadyView::keep_running() const {
  for (const Action& a : runnable) {
    if (a.fiber == last_run) return a;
  }
  return runnable.front();
}

namespace {

// One of the fibers `pick` accepts, in id order, drawn from `rng` (no draw
// when there is none): what picking from with_stores() or cond_waiters()
// would draw, without building the list at every decision.
template <class Pick>
std::optional<std::uint32_t> draw_fiber(const ReadyView& view, SplitMix64& rng, Pick pick) {
  std::uint64_t n = 0;
  for (const Fiber* f : view.live) n += pick(*f) ? 1 : 0;
  if (n == 0) return std::nullopt;
  std::uint64_t k = rng.next() % n;
  for (const Fiber* f : view.live) {
    if (pick(*f) && k-- == 0) return f->id;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Action> flush_or_spurious(const ReadyView& view, const SimConfig& config, SplitMix64& rng) {
  if (view.tso && rng.next() % 100 < config.flush_percent) {
    if (auto f = draw_fiber(view, rng, [](const Fiber& x) { return !x.buffer.empty(); })) {
      return Action{*f, Action::Flush};
    }
  }
  if (config.spurious_wakeup_per_mille > 0 && rng.next() % 1000 < config.spurious_wakeup_per_mille) {
    if (auto f = draw_fiber(view, rng, [](const Fiber& x) { return x.state == FiberState::BlockedCond; })) {
      return Action{*f, Action::Spurious};
    }
  }
  return std::nullopt;
}

std::unique_ptr<Strategy> make_strategy(const SimConfig& config, SplitMix64& rng) {
  std::unique_ptr<Strategy> s;
  switch (config.strategy) {
    case StrategyKind::Random: s = make_random(config, rng); break;
    case StrategyKind::PCT: s = make_pct(config, rng); break;
    case StrategyKind::DFS: s = make_dfs(); break;
    case StrategyKind::Fuzz: s = make_fuzz(config, rng); break;
    case StrategyKind::SleepFirst: s = make_sleep_first(config, rng); break;
    case StrategyKind::Portfolio: s = make_random(config, rng); break;  // resolved before (resolve_strategy)
  }
  if (!config.forced.empty()) s = make_replay(config.forced, std::move(s));
  return s;
}

}  // namespace wsstress::sim
