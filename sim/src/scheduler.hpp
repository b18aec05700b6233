// SPDX-License-Identifier: MIT OR Apache-2.0
// The simulator's scheduler: fibers and their scheduling points, blocking
// primitives and virtual time, TSO store buffers, and the detection of lost
// wake-ups and livelocks. Who runs next is the Strategy's choice
// (strategy.hpp); the scheduler records each choice as one number, which is
// all a reproducer needs to replay the run.
//
// Control always returns to the scheduler (on the OS thread's own stack)
// between two scheduling points; fibers never switch to each other directly.
// Definitions: scheduler.cpp (fibers, switching, the loop), sync.cpp
// (mutexes, condvars, joins, sleeps), verdicts.cpp (failures and dumps).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fiber.hpp"
#include "journal.hpp"
#include "strategy.hpp"
#include "wsstress/explain/explain.hpp"

namespace wsstress::sim {

using explain::event_text;
using explain::RecordedEvent;
using explain::StallContext;

class Scheduler {
 public:
  // `taught`: the strategy of a trial run this run's strategy learns from
  // (StrategyEntry::after_trial). A `trial` run is one: it journals no
  // decision and shows no event observer its events.
  explicit Scheduler(const SimConfig& cfg, const Strategy* taught = nullptr, bool trial = false);
  SimResult run(const std::function<core::Verdict()>& body);
  // After run(): the strategy, for a run that learns from this one.
  std::unique_ptr<Strategy> take_strategy() noexcept { return std::move(strategy_); }

  // ---- called from fibers (through sim.hpp's detail functions) ----
  Fiber* current() const noexcept { return current_; }
  MemoryModel memory() const noexcept { return cfg_.memory; }
  bool tso() const noexcept { return cfg_.memory == MemoryModel::TSO; }
  bool cpp() const noexcept { return cfg_.memory == MemoryModel::CPP; }
  // cpp memory (cpp_memory.hpp), for the current fiber.
  std::uint64_t cpp_load(detail::History*& h, std::uint64_t latest, std::memory_order o);
  void cpp_store(detail::History*& h, std::uint64_t latest, std::uint64_t bits, std::memory_order o);
  void cpp_rmw(detail::History*& h, std::uint64_t latest, std::uint64_t bits, std::memory_order o, bool writes);
  void cpp_fence(std::memory_order o);
  void cell_access(detail::CellState*& c, bool write, SrcLoc loc);
  void point(Op op, const void* addr, SrcLoc loc);
  void event(const Event& e, SrcLoc loc);
  [[noreturn]] void invariant(const char* what, SrcLoc loc);
  // The calling fiber's run ends in a bug verdict (a broken invariant, the pool's abort).
  [[noreturn]] void fail_fiber(const char* message);
  void still_alive(const SimLiveness& live, const void* object, Op op, SrcLoc loc);
  void use_after_free(Op op, const void* addr, SrcLoc loc);
  StoreBuffer& buffer() noexcept { return current_->buffer; }
  void drain() { current_->buffer.drain(); }

  void mutex_lock(SimMutex* m, SrcLoc loc);
  bool mutex_try_lock(SimMutex* m, SrcLoc loc);
  void mutex_unlock(SimMutex* m, SrcLoc loc);
  void cond_wait(SimCondVar* cv, SimMutex* m, SrcLoc loc);
  void cond_notify(SimCondVar* cv, bool all, SrcLoc loc);
  std::uint32_t spawn(std::string name, std::function<void()> body);
  void join(std::uint32_t id);
  void sleep_ns(std::uint64_t ns);
  void spin_wait(SrcLoc loc);
  void* tls(const void* key, void* (*make)(), void (*destroy)(void*));
  std::uint64_t next_seed() { return seed_stream_.next() | 1; }

 private:
  void mix(std::uint64_t v) noexcept { hash_ = (hash_ ^ v) * 0x100000001b3ull; }
  void record(std::uint32_t fiber, Op op, SrcLoc loc, std::uint64_t detail);
  Fiber* spawn_fiber(std::string name, std::function<void()> body);
  void finish(Fiber* f);

  // switching, with ASan's fiber annotations
  void to_scheduler();
  void before_switch_from_fiber(Fiber* f, bool exiting);
  void after_switch_in_fiber(Fiber* f);
  void resume(Fiber* f);

  // blocking
  void block(FiberState s, const void* on);
  void make_runnable(Fiber* f);
  void wake_all(FiberState s, const void* on);

  // cpp memory: which of `n` stores a load reads, asked of the strategy and
  // recorded as a decision.
  std::uint32_t choose_read(std::uint32_t n);

  // the loop and its decisions
  // The runnable fibers, into runnable_ (reused: no allocation per point).
  const std::vector<Action>& enabled();
  bool advance_time();
  void loop();
  void take(const Action& a);

  // verdicts.cpp
  void fail(core::Verdict v);
  [[noreturn]] void give_up_processor();
  void abandon_stuck_fibers();
  std::string livelock_message() const;
  int unfinished() const;
  std::string state_dump();  // also sets last_stall_
  std::string stall_message(int alive) const;

  SimConfig cfg_;
  SplitMix64 rng_;
  core::PoolStall last_stall_ = core::PoolStall::Other;  // what the last state_dump read
  SplitMix64 seed_stream_;
  std::unique_ptr<Strategy> strategy_;
  cppmem::Memory mem_;
  std::vector<std::unique_ptr<Fiber>> fibers_;  // by id, finished ones too
  // The fibers that have not finished, in id order: what every scan at a
  // scheduling point walks (a run of `mixed` creates hundreds of fibers, and
  // most of them finish early).
  std::vector<Fiber*> live_;
  Fiber* current_ = nullptr;
  boost::context::fiber sink_;
  std::uint64_t steps_ = 0, vtime_ = 0, wait_counter_ = 0;
  std::uint64_t hash_ = 0xcbf29ce484222325ull;
  std::vector<std::uint32_t> schedule_;
  std::vector<Action> runnable_;
  CrashJournal* journal_ = CrashJournal::active();  // a guarded campaign's child: each decision, as it is made
  bool trial_ = false;
  std::vector<TracePoint> trace_;
  // The last kEventRing pool events with their payloads, for a failure's dump
  // (its last kDumpEvents) and a stall's explanation (explain.hpp): plain
  // records in a ring, rendered only when a run fails.
  static constexpr std::size_t kEventRing = 4096;
  static constexpr std::size_t kDumpEvents = 24;
  std::vector<RecordedEvent> events_;
  std::vector<RecordedEvent> events_in_order() const;
  std::vector<std::string> explain() const;
  std::uint64_t n_events_ = 0;
  std::optional<core::Verdict> failure_;
  std::uint32_t last_run_ = 0;
  const void* main_bottom_ = nullptr;
  std::size_t main_size_ = 0;
  void* main_fake_ = nullptr;
};

}  // namespace wsstress::sim
