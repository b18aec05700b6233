// SPDX-License-Identifier: MIT OR Apache-2.0
// How the simulator picks what happens next. At each decision the scheduler
// shows a Strategy the runnable fibers (a ReadyView) and the strategy returns
// an Action: run a fiber to its next scheduling point, flush the oldest store
// of a fiber's TSO buffer, or wake a condvar waiter spuriously. Each strategy
// lives in its own file under strategies/, after shuttle's Scheduler trait,
// and registers itself (wsstress/sim/strategies.hpp).
//
// Every strategy draws from the scheduler's one seeded generator, so a seed
// and a strategy fix the run; the decisions made are recorded as numbers
// (Action::code) and the Replay strategy follows such a record.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fiber.hpp"
#include "wsstress/pool/platform/splitmix64.hpp"
#include "wsstress/sim/strategies.hpp"

namespace wsstress::sim {

struct Action {
  // Read (cpp memory): the load in progress reads the store `fiber` places
  // back from the newest in modification order (the field holds that index).
  enum Kind : std::uint32_t { Run = 0, Flush = 1, Spurious = 2, Read = 3 };
  std::uint32_t fiber;
  std::uint32_t kind;
  std::uint32_t code() const noexcept { return fiber * 4 + kind; }
  static Action from_code(std::uint32_t code) noexcept { return {code / 4, code % 4}; }
};

// What a strategy may see at one decision.
struct ReadyView {
  const std::vector<Action>& runnable;                // one Run action per runnable fiber, in id order; never empty
  const std::vector<std::unique_ptr<Fiber>>& fibers;  // by id
  const std::vector<Fiber*>& live;                    // the unfinished ones, in id order
  std::size_t decision;                               // how many decisions came before this one
  std::uint64_t steps;                                // how many times a fiber has run
  std::uint32_t last_run;                             // the fiber of the last Run action
  bool tso;

  // Fibers whose store buffer holds a store (TSO), in id order.
  std::vector<std::uint32_t> with_stores() const;
  // with_stores()[k % its size], or none when it is empty, without building
  // the list: the fuzz strategy asks at every decision.
  std::optional<std::uint32_t> nth_with_stores(std::uint64_t k) const;
  // The first fiber waiting on a condvar, in id order, or none.
  std::optional<std::uint32_t> first_cond_waiter() const;
  // Whether `a` can be taken here (a replayed decision must be).
  bool can(const Action& a) const;
  // The non-preemptive choice: the last fiber again if it can run, else the
  // lowest runnable id.
  Action keep_running() const;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  // A fiber was created; `draw` is one number of the seed's stream, drawn for
  // every fiber whatever the strategy (PCT makes it the fiber's priority).
  virtual void on_spawn(std::uint32_t /*fiber*/, std::uint64_t /*draw*/) {}
  // Every decision, before any replayed prefix is followed (DFS records the
  // alternatives of each).
  virtual void observe(const ReadyView& /*view*/) {}
  // nullopt: the strategy cannot go on (a replay diverged; see divergence()).
  virtual std::optional<Action> choose(const ReadyView& view) = 0;
  // cpp memory: a load may read any of `n` >= 2 stores, 0 the newest in
  // modification order; `decision` counts the decisions before this one.
  // observe_read sees every such choice first (DFS records its alternatives).
  virtual void observe_read(std::uint32_t /*n*/) {}
  virtual std::optional<std::uint32_t> choose_read(std::uint32_t n, std::size_t decision) = 0;
  virtual std::string divergence() const { return {}; }
  // DFS: per decision, its alternatives, the non-preemptive default first.
  virtual std::vector<std::vector<std::uint32_t>> take_decisions() { return {}; }
};

// The strategy a configuration asks for (its registry entry's factory,
// strategies.hpp; the configuration is resolved already), replaying
// `config.forced` first if it is not empty. `rng` is the scheduler's generator
// and outlives it. `taught`: a trial run's strategy, which the entry's
// after_trial learns from (null: the entry's `make`).
std::unique_ptr<Strategy> make_strategy(const SimConfig& config, SplitMix64& rng, const Strategy* taught = nullptr);

// PCT's pick (strategies/pct.cpp), for PCT and for the fuzz strategy's PCT
// encoding: at a change point the fiber that ran last drops below every
// initial priority (to i + 1 for change point i), then the highest runs.
Action pct_pick(const ReadyView& view, const std::vector<std::uint64_t>& change_points,
                std::vector<std::uint64_t>& priority);
// A fiber's initial PCT priority from its spawn draw: above every change point's.
inline std::uint64_t pct_initial_priority(std::uint64_t draw) noexcept { return 1000 + draw % 1000000; }

// The configuration a run actually runs: the memory rates drawn for its seed
// (resolve_memory_rates), and for a strategy that runs another per seed (the
// portfolio) that member (its entry's `resolve`).
SimConfig resolve_strategy(const SimConfig& config);
// Follows `forced`, then hands over to `then` (strategies/replay.cpp; not in
// the registry: it wraps the strategy a reproducer names).
// With `keep_running`, a decision it cannot take starts the non-preemptive
// rule instead of ending the run (SimConfig::forced_then_keep_running).
std::unique_ptr<Strategy> make_replay(std::vector<std::uint32_t> forced, std::unique_ptr<Strategy> then,
                                      bool keep_running = false);

// The TSO flush rate of config.seed's run: config.flush_percent if set, else
// one of kFlushPercents chosen by a hash of the seed (not the seed's stream,
// whose draws the other decisions use). At a fixed 30 % a buffered store lived
// about three decisions, too short for a thief to steal twice while the
// owner's store of `back` waited, so deque_pop_no_fence went unseen;
// a run at 1-4 % keeps stores buffered for tens to hundreds of decisions.
inline constexpr unsigned kFlushPercents[] = {1, 2, 4, 8, 16, 32};
// Likewise the share of cpp-memory loads that read an older store than the
// newest, when config.stale_percent is 0.
inline constexpr unsigned kStalePercents[] = {2, 5, 10, 25, 50};
SimConfig resolve_memory_rates(const SimConfig& config);

// The random strategies' noise before their pick: under TSO flush a buffered
// store (flush_percent % of decisions), and sometimes wake a condvar waiter
// spuriously (the pool must tolerate it).
std::optional<Action> flush_or_spurious(const ReadyView& view, const SimConfig& config, SplitMix64& rng);
// The random strategies' read under cpp memory: an older store than the
// newest in stale_percent % of the loads that have one, uniformly among them.
std::uint32_t stale_or_newest(std::uint32_t n, const SimConfig& config, SplitMix64& rng);

}  // namespace wsstress::sim
