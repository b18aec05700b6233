// SPDX-License-Identifier: MIT OR Apache-2.0
// The ReadyView's queries, the noise the random strategies share, and the
// one place a configuration becomes a Strategy (through the registry).
#include "strategy.hpp"

#include <cstdio>
#include <cstdlib>
#include <iterator>

namespace wsstress::sim {

namespace {

// How many live fibers `pick` accepts.
template <class Pick>
std::uint64_t count_fibers(const ReadyView& view, Pick pick) {
  std::uint64_t n = 0;
  for (const Fiber* f : view.live) n += pick(*f) ? 1 : 0;
  return n;
}

// The k-th (from 0) live fiber that `pick` accepts, in id order; k must be
// below count_fibers().
template <class Pick>
std::uint32_t nth_fiber(const ReadyView& view, std::uint64_t k, Pick pick) {
  for (const Fiber* f : view.live) {
    if (pick(*f) && k-- == 0) return f->id;
  }
  return view.live.back()->id;  // not reached
}

bool has_stores(const Fiber& f) { return !f.buffer.empty(); }
bool waits_on_cond(const Fiber& f) { return f.state == FiberState::BlockedCond; }

// One of the fibers `pick` accepts, drawn from `rng` (no draw when there is
// none): what picking from with_stores() would draw, without the list.
template <class Pick>
std::optional<std::uint32_t> draw_fiber(const ReadyView& view, SplitMix64& rng, Pick pick) {
  const std::uint64_t n = count_fibers(view, pick);
  if (n == 0) return std::nullopt;
  return nth_fiber(view, rng.next() % n, pick);
}

}  // namespace

std::vector<std::uint32_t> ReadyView::with_stores() const {
  std::vector<std::uint32_t> out;
  for (const Fiber* f : live) {
    if (has_stores(*f)) out.push_back(f->id);
  }
  return out;
}

std::optional<std::uint32_t> ReadyView::nth_with_stores(std::uint64_t k) const {
  const std::uint64_t n = count_fibers(*this, has_stores);
  if (n == 0) return std::nullopt;
  return nth_fiber(*this, k % n, has_stores);
}

std::optional<std::uint32_t> ReadyView::first_cond_waiter() const {
  for (const Fiber* f : live) {
    if (waits_on_cond(*f)) return f->id;
  }
  return std::nullopt;
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

SimConfig resolve_memory_rates(const SimConfig& config) {
  if (config.flush_percent != 0 && config.stale_percent != 0) return config;
  SimConfig c = config;
  SplitMix64 h(config.seed ^ 0xf1a5b0ff11ull);
  const std::uint64_t draw = h.next();
  if (c.flush_percent == 0) c.flush_percent = kFlushPercents[draw % std::size(kFlushPercents)];
  if (c.stale_percent == 0) c.stale_percent = kStalePercents[h.next() % std::size(kStalePercents)];
  return c;
}

std::uint32_t stale_or_newest(std::uint32_t n, const SimConfig& config, SplitMix64& rng) {
  if (n < 2 || rng.next() % 100 >= config.stale_percent) return 0;
  return 1 + static_cast<std::uint32_t>(rng.next() % (n - 1));
}

std::optional<Action> flush_or_spurious(const ReadyView& view, const SimConfig& config, SplitMix64& rng) {
  if (view.tso && rng.next() % 100 < config.flush_percent) {
    if (auto f = draw_fiber(view, rng, has_stores)) {
      return Action{*f, Action::Flush};
    }
  }
  if (config.spurious_wakeup_per_mille > 0 && rng.next() % 1000 < config.spurious_wakeup_per_mille) {
    if (auto f = draw_fiber(view, rng, waits_on_cond)) {
      return Action{*f, Action::Spurious};
    }
  }
  return std::nullopt;
}

SimConfig resolve_strategy(const SimConfig& config) {
  const SimConfig c = resolve_memory_rates(config);
  const StrategyEntry* e = find_strategy(c.strategy);
  return e != nullptr && e->resolve != nullptr ? e->resolve(c) : c;
}

std::unique_ptr<Strategy> make_strategy(const SimConfig& config, SplitMix64& rng, const Strategy* taught) {
  const StrategyEntry* e = find_strategy(config.strategy);
  if (e == nullptr || e->make == nullptr) {  // parse_strategy gives registered names; resolve_strategy ran
    std::fprintf(stderr, "wsstress: internal error: strategy '%s' cannot run (not registered, or not resolved)\n",
                 strategy_name(config.strategy));
    std::abort();
  }
  std::unique_ptr<Strategy> s =
      taught != nullptr && e->after_trial != nullptr ? e->after_trial(config, rng, *taught) : e->make(config, rng);
  if (!config.forced.empty()) s = make_replay(config.forced, std::move(s), config.forced_then_keep_running);
  return s;
}

}  // namespace wsstress::sim
