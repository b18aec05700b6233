// SPDX-License-Identifier: MIT OR Apache-2.0
// The scheduler's fibers, their scheduling points and the loop that asks the
// strategy what happens next. See scheduler.hpp.
#include "scheduler.hpp"

#include <algorithm>
#include <atomic>
#include <boost/context/stack_context.hpp>

#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "wsstress/sim/asan.hpp"
#include "wsstress/sim/observer.hpp"

namespace wsstress::sim {

namespace bctx = boost::context;
using core::Verdict;
using core::VerdictKind;

namespace {

// A simulated thread's stack. ASan's redzones make frames several times
// larger: a program nesting broadcasts in scope waits overflowed 512 KiB
// under ASan (schedule_fuzzer, fuzz/corpus/schedule/deep_nesting_asan) and
// not in the default build. rayon-core's workers get 2 MiB by default.
constexpr std::size_t kStackSize = (WSSTRESS_ASAN ? 2048 : 512) * 1024;

// Fiber stacks are reused across runs: a campaign or a DFS search creates
// fibers by the million, and a fresh 512 KiB block each time costs an mmap,
// page faults and, under ASan, the poisoning of its shadow (100x slower
// litmus searches before this cache). Per thread, so no locking.
class StackCache {
 public:
  StackCache() = default;
  StackCache(const StackCache&) = delete;
  StackCache& operator=(const StackCache&) = delete;
  ~StackCache() {
    for (void* b : free_) std::free(b);
  }
  void* take() {
    if (free_.empty()) return std::malloc(kStackSize);
    void* b = free_.back();
    free_.pop_back();
    return b;
  }
  // A stack's frames may leave ASan redzones behind; the next fiber must
  // start on clean memory. A fiber whose body returned has popped every frame
  // but its entry frames at the top of the stack, so only the top needs it
  // (the whole 2 MiB each time halved schedule_fuzzer's executions per
  // second); an abandoned fiber's whole stack does.
  void give_back(void* b, bool returned) noexcept {
    if (returned) {
      asan::unpoison(static_cast<char*>(b) + kStackSize - kEntryFrames, kEntryFrames);
    } else {
      asan::unpoison(b, kStackSize);
    }
    if (free_.size() < kKeep) {
      free_.push_back(b);
    } else {
      std::free(b);
    }
  }

 private:
  static constexpr std::size_t kKeep = 64;
  static constexpr std::size_t kEntryFrames = 64 * 1024;
  std::vector<void*> free_;
};

thread_local StackCache t_stacks;

// Records the stack a fiber got, for ASan's fiber annotations.
struct RecordingStack {
  Fiber* f;
  bctx::stack_context allocate() {
    void* block = t_stacks.take();
    if (block == nullptr) throw std::bad_alloc();
    bctx::stack_context sc;
    sc.size = kStackSize;
    sc.sp = static_cast<char*>(block) + kStackSize;
    f->stack_bottom = block;
    f->stack_size = kStackSize;
    return sc;
  }
  void deallocate(bctx::stack_context& sc) noexcept {
    t_stacks.give_back(static_cast<char*>(sc.sp) - sc.size, f->returned);
  }
};

}  // namespace

Scheduler::Scheduler(const SimConfig& cfg, const Strategy* taught, bool trial)
    : cfg_(resolve_strategy(cfg)), rng_(cfg.seed ^ 0x5bd1e995u), seed_stream_(cfg.seed),
      strategy_(make_strategy(cfg_, rng_, taught)), journal_(trial ? nullptr : CrashJournal::active()), trial_(trial) {}

SimResult Scheduler::run(const std::function<Verdict()>& body) {
  if (journal_ != nullptr) journal_->begin_execution();
  Verdict main_verdict;
  spawn_fiber("main", [&] { main_verdict = body(); });
  loop();
  SimResult r;
  r.verdict = failure_ ? *failure_ : main_verdict;
  r.steps = steps_;
  r.trace_hash = hash_;
  r.schedule = std::move(schedule_);
  r.trace = std::move(trace_);
  r.divergence = strategy_->divergence();
  r.decisions = strategy_->take_decisions();
  for (auto& f : fibers_) r.fiber_names.push_back(f->name);
  abandon_stuck_fibers();
  return r;
}

namespace {
// A file under /usr/ (the standard library's headers): strncmp inline, as
// this runs at every scheduling point; it stops at the first difference.
bool in_system_header(const char* f) noexcept {
  return f[0] == '/' && f[1] == 'u' && f[2] == 's' && f[3] == 'r' && f[4] == '/';
}
}  // namespace

void Scheduler::point(Op op, const void* addr, SrcLoc loc) {
  Fiber* f = current_;
  if (f == nullptr) return;  // the scheduler itself (a state dump) is not a fiber
  f->loc = loc;
  const bool in_std = in_system_header(loc.file);
  if (!in_std) f->pool_loc = loc;
  f->last_op = op;
  f->next_addr = addr;
  // A trace names the pool's line, not <unique_lock.h>'s, for a lock taken there.
  const bool at_pool_line = in_std && f->pool_loc.line != 0;
  record(f->id, op, at_pool_line ? f->pool_loc : loc, reinterpret_cast<std::uintptr_t>(addr));
  if (at_pool_line && cfg_.record_trace) trace_.back().after_pool_line = true;
  to_scheduler();
}

namespace {
std::atomic<EventObserver> g_observer{nullptr};
}  // namespace

void set_event_observer(EventObserver observer) noexcept { g_observer.store(observer, std::memory_order_release); }

void Scheduler::event(const Event& e, SrcLoc loc) {
  Fiber* f = current_;
  if (f == nullptr) return;
  if (EventObserver observe = trial_ ? nullptr : g_observer.load(std::memory_order_acquire)) observe(f->id, e);
  f->pool_loc = loc;  // the pool's line nearest to a lock taken inside <unique_lock.h>
  if (cfg_.record_trace) {
    trace_.push_back({steps_, f->id, Op::Event, loc.file, loc.line, static_cast<std::uint64_t>(e.kind), e.a, e.b});
  }
  // The kinds appended after StealRetry (trace.hpp) came after reproducers
  // were first stored: they stay out of the hash, so those still replay.
  if (e.kind <= pool::EventKind::StealRetry) mix(0xe7e7 ^ static_cast<std::uint64_t>(e.kind));
  const RecordedEvent rec{steps_, f->id, e, loc};
  if (events_.size() < kEventRing) {
    if (events_.empty()) events_.reserve(kEventRing);
    events_.push_back(rec);
  } else {
    events_[n_events_ % kEventRing] = rec;
  }
  ++n_events_;
  f->slot = core::apply_event(f->slot, e);
}

// The hash covers who ran and what they did, not source lines: a reproducer
// must still say "same interleaving" after an edit that only moves code.
void Scheduler::record(std::uint32_t fiber, Op op, SrcLoc loc, std::uint64_t detail) {
  mix(fiber);
  mix(static_cast<std::uint64_t>(op));
  if (cfg_.record_trace) trace_.push_back({steps_, fiber, op, loc.file, loc.line, detail});
}

Fiber* Scheduler::spawn_fiber(std::string name, std::function<void()> body) {
  auto f = std::make_unique<Fiber>();
  Fiber* raw = f.get();
  raw->id = static_cast<std::uint32_t>(fibers_.size());
  if (current_ != nullptr) raw->parent = current_->id;
  raw->name = std::move(name) + "#" + std::to_string(raw->id);
  if (cpp()) mem_.start(raw->mem, raw->id, current_ != nullptr ? &current_->mem : nullptr);
  raw->body = std::move(body);
  // One draw per fiber whatever the strategy, so a seed's stream (and every
  // reproducer's trace hash) does not depend on which strategy looks at it.
  strategy_->on_spawn(raw->id, rng_.next());
  raw->ctx = bctx::fiber(std::allocator_arg, RecordingStack{raw}, [this, raw](bctx::fiber&& sink) {
    sink_ = std::move(sink);
    after_switch_in_fiber(raw);
    try {
      raw->body();
    } catch (const std::exception& e) {
      // On real threads std::terminate would abort the process: a finding
      // about the program under test, not a failure of the tool.
      fail(Verdict{VerdictKind::Bug, "std::terminate: a thread let an exception escape: " + std::string(e.what()), {}});
    } catch (...) {
      fail(Verdict{VerdictKind::Bug, "std::terminate: a thread let a non-standard exception escape", {}});
    }
    // TSO: the exit drains the store buffer, but not before other fibers
    // (and flushes) may run: without this point a thread's last load and
    // the drain of its earlier stores were one step, which hid store
    // buffering's 00 in a thread that ends right after (litmus tests).
    if (tso() && !raw->buffer.empty()) point(Op::Exit, nullptr, SrcLoc{"(thread exit)", 0});
    finish(raw);
    raw->returned = true;
    before_switch_from_fiber(raw, /*exiting=*/true);
    return std::move(sink_);
  });
  fibers_.push_back(std::move(f));
  live_.push_back(raw);
  return raw;
}

void Scheduler::finish(Fiber* f) {
  if (tso()) f->buffer.drain();
  for (auto it = f->tls.rbegin(); it != f->tls.rend(); ++it) it->destroy(it->value);  // as thread_locals: reverse order
  f->tls.clear();
  if (f->slot) {
    core::WorkerTable::get().release(f->slot);
    f->slot = nullptr;
  }
  f->state = FiberState::Done;
  live_.erase(std::find(live_.begin(), live_.end(), f));
  wake_all(FiberState::BlockedJoin, f);
}

// ---- switching (with ASan's fiber annotations) ----

void Scheduler::to_scheduler() {
  Fiber* f = current_;
  before_switch_from_fiber(f, false);
  sink_ = std::move(sink_).resume();
  after_switch_in_fiber(f);
}

void Scheduler::before_switch_from_fiber(Fiber* f, bool exiting) {
  asan::start_switch(exiting ? nullptr : &f->fake_stack, main_bottom_, main_size_);
}

void Scheduler::after_switch_in_fiber(Fiber* f) {
  const void* bottom = nullptr;
  std::size_t size = 0;
  asan::finish_switch(f->fake_stack, &bottom, &size);
  if (main_bottom_ == nullptr) {  // the first switch in tells where the scheduler's stack is
    main_bottom_ = bottom;
    main_size_ = size;
  }
}

void Scheduler::resume(Fiber* f) {
  current_ = f;
  asan::start_switch(&main_fake_, f->stack_bottom, f->stack_size);
  f->ctx = std::move(f->ctx).resume();
  asan::finish_switch(main_fake_, nullptr, nullptr);
  current_ = nullptr;
}

// ---- the choice of what runs next ----

const std::vector<Action>& Scheduler::enabled() {
  runnable_.clear();
  for (Fiber* f : live_) {
    if (f->state == FiberState::Sleeping && f->wake_at <= vtime_) make_runnable(f);
    if (f->state == FiberState::Runnable) runnable_.push_back({f->id, Action::Run});
  }
  return runnable_;
}

// Nothing can run: moves virtual time to the earliest sleeper's wake-up.
// False if no fiber sleeps (every fiber has finished, or the run is stuck).
bool Scheduler::advance_time() {
  std::uint64_t earliest = UINT64_MAX;
  for (Fiber* f : live_) {
    if (f->state == FiberState::Sleeping) earliest = std::min(earliest, f->wake_at);
  }
  if (earliest == UINT64_MAX) return false;
  vtime_ = earliest;
  return true;
}

void Scheduler::loop() {
  while (!failure_) {
    const std::vector<Action>& runnable = enabled();
    if (runnable.empty()) {
      if (advance_time()) continue;
      const int alive = unfinished();
      if (alive == 0) return;
      std::string dump = state_dump();
      fail(Verdict{VerdictKind::Hang, stall_message(alive), std::move(dump), explain()});
      return;
    }
    const ReadyView view{runnable, fibers_, live_, schedule_.size(), steps_, last_run_, tso()};
    strategy_->observe(view);
    const std::optional<Action> a = strategy_->choose(view);
    if (!a) {
      fail(Verdict{VerdictKind::Internal, strategy_->divergence(), state_dump()});
      return;
    }
    take(*a);
    if (steps_ >= cfg_.step_budget && !failure_) {
      fail(Verdict{VerdictKind::Hang, livelock_message(), state_dump(), explain()});
      return;
    }
  }
}

void Scheduler::take(const Action& a) {
  schedule_.push_back(a.code());
  if (journal_ != nullptr) journal_->decision(a.code());
  Fiber* f = fibers_[a.fiber].get();
  switch (a.kind) {
    case Action::Flush: {
      void* addr = f->buffer.flush_one();
      record(f->id, Op::Flush, SrcLoc{"(store buffer)", 0}, reinterpret_cast<std::uintptr_t>(addr));
      return;
    }
    case Action::Spurious: make_runnable(f); return;
    default:
      // Trace only: the strategy switched away from a fiber that could go on.
      if (cfg_.record_trace && a.fiber != last_run_ && last_run_ < fibers_.size() &&
          fibers_[last_run_]->state == FiberState::Runnable) {
        trace_.push_back({steps_, last_run_, Op::Preempt, "", 0, a.fiber});
      }
      last_run_ = a.fiber;
      ++steps_;
      ++vtime_;
      resume(f);
  }
}

}  // namespace wsstress::sim
