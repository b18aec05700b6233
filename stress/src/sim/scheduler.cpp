// The simulator's scheduler: fibers, scheduling points, the random / PCT /
// DFS-driven choice of who runs next, TSO store buffers, blocking primitives,
// virtual time, and the detection of lost wake-ups and livelocks.
//
// Control always returns to the scheduler (on the OS thread's own stack)
// between two scheduling points; fibers never switch to each other directly.
// Every decision is recorded as one number (fiber id * 4 + action), which is
// all a reproducer needs to replay the run.
#include <boost/context/fiber.hpp>
#include <boost/context/fixedsize_stack.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <stdexcept>

#include "wsstress/sim/sim.hpp"
#include "wsstress/stress/noise.hpp"

// g++ defines __SANITIZE_ADDRESS__ under ASan; clang 14 only answers
// __has_feature (the fuzz preset), and without the fiber annotations below
// ASan reports false stack errors.
#if defined(__SANITIZE_ADDRESS__)
#define WSSTRESS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WSSTRESS_ASAN 1
#endif
#endif
#ifndef WSSTRESS_ASAN
#define WSSTRESS_ASAN 0
#endif
#if WSSTRESS_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace wsstress::sim {

namespace bctx = boost::context;
using stress::Phase;
using stress::Verdict;
using stress::VerdictKind;

const char* to_string(MemoryModel m) noexcept { return m == MemoryModel::SC ? "sc" : "tso"; }
const char* to_string(Strategy s) noexcept {
  switch (s) {
    case Strategy::Random: return "random";
    case Strategy::PCT: return "pct";
    case Strategy::DFS: return "dfs";
    case Strategy::Fuzz: return "fuzz";
  }
  return "?";
}
const char* to_string(Op op) noexcept {
  switch (op) {
    case Op::Load: return "load";
    case Op::Store: return "store";
    case Op::Rmw: return "rmw";
    case Op::Fence: return "fence";
    case Op::Lock: return "lock";
    case Op::Unlock: return "unlock";
    case Op::Wait: return "wait";
    case Op::Notify: return "notify";
    case Op::Yield: return "yield";
    case Op::Start: return "start";
    case Op::Exit: return "exit";
    case Op::Join: return "join";
    case Op::Sleep: return "sleep";
    case Op::Flush: return "flush";
    case Op::Event: return "event";
    case Op::Wake: return "wake";
  }
  return "?";
}

namespace {

constexpr std::uint32_t kRun = 0, kFlush = 1, kSpurious = 2;
constexpr std::size_t kStackSize = 512 * 1024;

enum class State { Runnable, BlockedMutex, BlockedCond, BlockedJoin, Sleeping, Done };

struct Buffered {
  void* addr;
  std::uint64_t bits;
  void (*apply)(void*, std::uint64_t);
};

struct Fiber {
  std::uint32_t id = 0;
  std::string name;
  bctx::fiber ctx;
  State state = State::Runnable;
  const void* wait_on = nullptr;
  std::uint64_t wait_seq = 0;  // condvar FIFO order
  std::uint64_t wake_at = 0;
  std::function<void()> body;
  std::deque<Buffered> buffer;
  std::map<std::type_index, std::pair<void*, void (*)(void*)>> tls;
  SrcLoc loc{};
  // The last point outside the system headers: a lock taken through
  // std::unique_lock is located in <unique_lock.h>, so a verdict about it
  // names this pool line as well.
  SrcLoc pool_loc{"", 0};
  Op last_op = Op::Start;
  stress::WorkerSlot* slot = nullptr;
  std::uint64_t priority = 0;  // PCT
  // ASan's view of the fiber's stack.
  const void* stack_bottom = nullptr;
  std::size_t stack_size = 0;
  void* fake_stack = nullptr;
};

class Scheduler;
thread_local Scheduler* t_sched = nullptr;

// Records the stack a fiber got, for ASan's fiber annotations.
struct RecordingStack {
  Fiber* f;
  bctx::stack_context allocate() {
    bctx::fixedsize_stack inner(kStackSize);
    bctx::stack_context sc = inner.allocate();
    f->stack_bottom = static_cast<char*>(sc.sp) - sc.size;
    f->stack_size = sc.size;
    return sc;
  }
  void deallocate(bctx::stack_context& sc) noexcept {
    bctx::fixedsize_stack inner(kStackSize);
    inner.deallocate(sc);
  }
};

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

class Scheduler {
 public:
  explicit Scheduler(const SimConfig& cfg) : cfg_(cfg), rng_(cfg.seed ^ 0x5bd1e995u), seed_stream_(cfg.seed) {
    if (cfg_.strategy == Strategy::PCT) {
      for (unsigned i = 1; i < cfg_.pct_depth; ++i) change_points_.push_back(1 + next() % cfg_.pct_steps);
    }
  }

  SimResult run(const std::function<Verdict()>& body) {
    Verdict main_verdict;
    spawn_fiber("main", [&] { main_verdict = body(); });
    loop();
    SimResult r;
    if (failure_) {
      r.verdict = *failure_;
    } else {
      r.verdict = main_verdict;
    }
    r.steps = steps_;
    r.trace_hash = hash_;
    r.schedule = std::move(schedule_);
    r.trace = std::move(trace_);
    r.divergence = divergence_;
    r.decisions = std::move(decisions_);
    for (auto& f : fibers_) r.fiber_names.push_back(f->name);
    abandon_stuck_fibers();
    return r;
  }

  // ---- called from fibers ----

  Fiber* current() const { return current_; }
  bool tso() const { return cfg_.memory == MemoryModel::TSO; }

  void point(Op op, const void* addr, SrcLoc loc) {
    Fiber* f = current_;
    if (f == nullptr) return;  // the scheduler itself (a state dump) is not a fiber
    f->loc = loc;
    if (std::strncmp(loc.file, "/usr/", 5) != 0) f->pool_loc = loc;
    f->last_op = op;
    record(f->id, op, loc, reinterpret_cast<std::uintptr_t>(addr));
    to_scheduler();
  }

  void event(const Event& e, SrcLoc loc) {
    Fiber* f = current_;
    if (f == nullptr) return;
    if (cfg_.record_trace) {
      trace_.push_back({steps_, f->id, Op::Event, loc.file, loc.line, static_cast<std::uint64_t>(e.kind)});
    }
    mix(0xe7e7 ^ static_cast<std::uint64_t>(e.kind));
    last_events_.push_back(std::string(f->name) + ": " + pool::to_string(e.kind) + " at " + loc.file + ":" +
                           std::to_string(loc.line));
    if (last_events_.size() > 24) last_events_.pop_front();
    update_slot(f, e);
  }

  // The run has failed: this fiber (inside the pool, perhaps in a noexcept
  // function) gives up the processor for good; the scheduler stops the run.
  [[noreturn]] void invariant(const char* what, SrcLoc loc) {
    char line[512];
    std::snprintf(line, sizeof line, "pool invariant violated at %s:%u: %s", loc.file, loc.line, what);
    fail(Verdict{VerdictKind::Bug, line, state_dump()});
    to_scheduler();
    std::fprintf(stderr, "wsstress sim: a failed fiber was resumed\n");
    std::abort();
  }

  // An operation on a destroyed pool object. A fiber gives up the processor
  // for good, as for a broken invariant; the scheduler itself (a dump, a
  // store-buffer flush) only records the failure, which ends the run at the
  // next decision.
  void use_after_free(Op op, const void* addr, SrcLoc loc) {
    char line[640];
    Fiber* f = current_;
    const int n = std::snprintf(line, sizeof line, "use after free: %s on a destroyed pool object at %s:%u",
                                to_string(op), loc.file, loc.line);
    if (f != nullptr && n > 0 && static_cast<std::size_t>(n) < sizeof line) {
      std::snprintf(line + n, sizeof line - n, " (%s, whose last pool operation was at %s:%u)", f->name.c_str(),
                    f->pool_loc.file, f->pool_loc.line);
    }
    if (f == nullptr) {
      fail(Verdict{VerdictKind::Bug, line, {}});
      return;
    }
    record(f->id, op, loc, reinterpret_cast<std::uintptr_t>(addr));
    fail(Verdict{VerdictKind::Bug, line, state_dump()});
    to_scheduler();
    std::fprintf(stderr, "wsstress sim: a failed fiber was resumed\n");
    std::abort();
  }

  bool buffered_load(const void* addr, std::uint64_t& bits) {
    const auto& buf = current_->buffer;
    for (auto it = buf.rbegin(); it != buf.rend(); ++it) {
      if (it->addr == addr) {
        bits = it->bits;
        return true;
      }
    }
    return false;
  }
  void buffer_store(void* addr, std::uint64_t bits, void (*apply)(void*, std::uint64_t)) {
    current_->buffer.push_back({addr, bits, apply});
  }
  void drain() { drain(current_); }

  void mutex_lock(SimMutex* m, SrcLoc loc) {
    point(Op::Lock, m, loc);
    if (tso()) drain();
    while (m->owner != 0) block(State::BlockedMutex, m);
    m->owner = current_->id + 1;
  }
  bool mutex_try_lock(SimMutex* m, SrcLoc loc) {
    if (current_ == nullptr) return m->owner == 0;  // a state dump: never block
    point(Op::Lock, m, loc);
    if (tso()) drain();
    if (m->owner != 0) return false;
    m->owner = current_->id + 1;
    return true;
  }
  void mutex_unlock(SimMutex* m, SrcLoc loc) {
    if (current_ == nullptr) {
      m->owner = 0;
      return;
    }
    point(Op::Unlock, m, loc);
    if (tso()) drain();
    m->owner = 0;
    wake_all(State::BlockedMutex, m);
  }
  void cond_wait(SimCondVar* cv, SimMutex* m, SrcLoc loc) {
    point(Op::Wait, cv, loc);
    if (tso()) drain();
    m->owner = 0;
    wake_all(State::BlockedMutex, m);
    current_->wait_seq = ++wait_counter_;
    block(State::BlockedCond, cv);
    while (m->owner != 0) block(State::BlockedMutex, m);
    m->owner = current_->id + 1;
  }
  void cond_notify(SimCondVar* cv, bool all, SrcLoc loc) {
    point(Op::Notify, cv, loc);
    Fiber* first = nullptr;
    for (auto& f : fibers_) {
      if (f->state != State::BlockedCond || f->wait_on != cv) continue;
      if (all) {
        make_runnable(f.get());
      } else if (first == nullptr || f->wait_seq < first->wait_seq) {
        first = f.get();
      }
    }
    if (first) make_runnable(first);
  }

  std::uint32_t spawn(std::string name, std::function<void()> body) {
    Fiber* f = spawn_fiber(std::move(name), std::move(body));
    if (current_ != nullptr) point(Op::Start, nullptr, SrcLoc::here());
    return f->id;
  }
  void join(std::uint32_t id) {
    point(Op::Join, nullptr, SrcLoc::here());
    while (fibers_.at(id)->state != State::Done) block(State::BlockedJoin, fibers_.at(id).get());
  }
  void sleep_ns(std::uint64_t ns) {
    point(Op::Sleep, nullptr, SrcLoc::here());
    if (tso()) drain();
    current_->wake_at = vtime_ + ns;
    block(State::Sleeping, nullptr);
  }
  // A spin-wait (pool/backoff.hpp): off the processor for one tick of virtual
  // time, so every strategy runs some other fiber (perhaps the one awaited)
  // before this one looks again. Unlike sleep_ns it keeps the store buffer:
  // a pause instruction does not drain it.
  void spin_wait(SrcLoc loc) {
    point(Op::Yield, nullptr, loc);
    current_->wake_at = vtime_ + 1;
    block(State::Sleeping, nullptr);
  }
  void* tls(std::type_index key, void* (*make)(), void (*destroy)(void*)) {
    auto& m = current_->tls;
    auto it = m.find(key);
    if (it != m.end()) return it->second.first;
    void* p = make();
    m.emplace(key, std::make_pair(p, destroy));
    return p;
  }
  std::uint64_t next_seed() { return splitmix(seed_stream_) | 1; }

 private:
  std::uint64_t next() { return splitmix(rng_); }

  void mix(std::uint64_t v) { hash_ = (hash_ ^ v) * 0x100000001b3ull; }

  // The hash covers who ran and what they did, not source lines: a reproducer
  // must still say "same interleaving" after an edit that only moves code.
  void record(std::uint32_t fiber, Op op, SrcLoc loc, std::uint64_t detail) {
    mix(fiber);
    mix(static_cast<std::uint64_t>(op));
    if (cfg_.record_trace) trace_.push_back({steps_, fiber, op, loc.file, loc.line, detail});
  }

  Fiber* spawn_fiber(std::string name, std::function<void()> body) {
    auto f = std::make_unique<Fiber>();
    Fiber* raw = f.get();
    raw->id = static_cast<std::uint32_t>(fibers_.size());
    raw->name = std::move(name) + "#" + std::to_string(raw->id);
    raw->body = std::move(body);
    raw->priority = 1000 + (next() % 1000000);
    raw->ctx = bctx::fiber(std::allocator_arg, RecordingStack{raw}, [this, raw](bctx::fiber&& sink) {
      sink_ = std::move(sink);
      after_switch_in_fiber(raw);
      try {
        raw->body();
      } catch (const std::exception& e) {
        fail(Verdict{VerdictKind::Internal, "a fiber let an exception escape: " + std::string(e.what()), {}});
      } catch (...) {
        fail(Verdict{VerdictKind::Internal, "a fiber let a non-standard exception escape", {}});
      }
      // TSO: the exit drains the store buffer, but not before other fibers
      // (and flushes) may run: without this point a thread's last load and
      // the drain of its earlier stores were one step, which hid store
      // buffering's 00 in a thread that ends right after (litmus tests).
      if (tso() && !raw->buffer.empty()) point(Op::Exit, nullptr, SrcLoc{"(thread exit)", 0});
      finish(raw);
      before_switch_from_fiber(raw, /*exiting=*/true);
      return std::move(sink_);
    });
    fibers_.push_back(std::move(f));
    return raw;
  }

  void finish(Fiber* f) {
    if (tso()) drain(f);
    for (auto& [key, entry] : f->tls) entry.second(entry.first);
    f->tls.clear();
    if (f->slot) {
      stress::WorkerTable::get().release(f->slot);
      f->slot = nullptr;
    }
    f->state = State::Done;
    wake_all(State::BlockedJoin, f);
  }

  // ---- switching (with ASan's fiber annotations) ----

  void to_scheduler() {
    Fiber* f = current_;
    before_switch_from_fiber(f, false);
    sink_ = std::move(sink_).resume();
    after_switch_in_fiber(f);
  }

  void before_switch_from_fiber(Fiber* f, bool exiting) {
#if WSSTRESS_ASAN
    __sanitizer_start_switch_fiber(exiting ? nullptr : &f->fake_stack, main_bottom_, main_size_);
#else
    (void)f;
    (void)exiting;
#endif
  }
  void after_switch_in_fiber(Fiber* f) {
#if WSSTRESS_ASAN
    const void* bottom = nullptr;
    std::size_t size = 0;
    __sanitizer_finish_switch_fiber(f->fake_stack, &bottom, &size);
    if (main_bottom_ == nullptr) {
      main_bottom_ = bottom;
      main_size_ = size;
    }
#else
    (void)f;
#endif
  }

  void resume(Fiber* f) {
    current_ = f;
#if WSSTRESS_ASAN
    __sanitizer_start_switch_fiber(&main_fake_, f->stack_bottom, f->stack_size);
#endif
    f->ctx = std::move(f->ctx).resume();
#if WSSTRESS_ASAN
    __sanitizer_finish_switch_fiber(main_fake_, nullptr, nullptr);
#endif
    current_ = nullptr;
  }

  // Gives up the processor until made runnable again.
  void block(State s, const void* on) {
    Fiber* f = current_;
    f->state = s;
    f->wait_on = on;
    to_scheduler();
  }
  void make_runnable(Fiber* f) {
    if (cfg_.record_trace && f->state != State::Runnable && current_ != nullptr) {
      trace_.push_back({steps_, current_->id, Op::Wake, "", 0, f->id});
    }
    f->state = State::Runnable;
    f->wait_on = nullptr;
  }
  void wake_all(State s, const void* on) {
    for (auto& f : fibers_) {
      if (f->state == s && f->wait_on == on) make_runnable(f.get());
    }
  }

  void drain(Fiber* f) {
    while (!f->buffer.empty()) {
      Buffered b = f->buffer.front();
      f->buffer.pop_front();
      b.apply(b.addr, b.bits);
    }
  }

  // ---- failures ----

  void fail(Verdict v) {
    if (!failure_) failure_ = std::move(v);
  }

  // At the end of a failed run some fibers are suspended inside the pool.
  // Unwinding them would run the pool's destructors against a scheduler that
  // is gone, so their stacks are kept (leaked) instead.
  void abandon_stuck_fibers() {
    for (auto& f : fibers_) {
      if (f->state != State::Done && f->ctx) {
        new bctx::fiber(std::move(f->ctx));  // deliberately leaked
      }
    }
  }

  // ---- the choice of what runs next ----

  struct Action {
    std::uint32_t fiber;
    std::uint32_t kind;
    std::uint32_t code() const { return fiber * 4 + kind; }
  };

  std::vector<Action> enabled() {
    std::vector<Action> out;
    for (auto& f : fibers_) {
      if (f->state == State::Sleeping && f->wake_at <= vtime_) make_runnable(f.get());
      if (f->state == State::Runnable) out.push_back({f->id, kRun});
    }
    return out;
  }

  void loop() {
    for (;;) {
      if (failure_) return;
      std::vector<Action> runnable = enabled();
      if (runnable.empty()) {
        std::uint64_t earliest = UINT64_MAX;
        bool any_alive = false;
        for (auto& f : fibers_) {
          if (f->state == State::Sleeping) earliest = std::min(earliest, f->wake_at);
          if (f->state != State::Done) any_alive = true;
        }
        if (!any_alive) return;
        if (earliest != UINT64_MAX) {
          vtime_ = earliest;
          continue;
        }
        fail(Verdict{VerdictKind::Hang, "lost wake-up: no fiber can run, and " + alive_count() + " have not finished",
                     state_dump()});
        return;
      }
      std::optional<Action> a = choose(runnable);
      if (!a) return;  // divergence recorded
      schedule_.push_back(a->code());
      if (a->kind == kFlush) {
        Fiber* f = fibers_[a->fiber].get();
        Buffered b = f->buffer.front();
        f->buffer.pop_front();
        b.apply(b.addr, b.bits);
        record(f->id, Op::Flush, SrcLoc{"(store buffer)", 0}, reinterpret_cast<std::uintptr_t>(b.addr));
        continue;
      }
      if (a->kind == kSpurious) {
        make_runnable(fibers_[a->fiber].get());
        continue;
      }
      ++steps_;
      ++vtime_;
      resume(fibers_[a->fiber].get());
      if (steps_ >= cfg_.step_budget && !failure_) {
        fail(Verdict{VerdictKind::Hang, livelock_message(), state_dump()});
        return;
      }
    }
  }

  Action default_action(const std::vector<Action>& runnable) {
    for (const Action& a : runnable) {
      if (a.fiber == last_run_) return a;
    }
    last_run_ = runnable.front().fiber;
    return runnable.front();
  }

  // DFS needs every decision's alternatives: the runnable fibers and, under
  // TSO, a flush of each non-empty store buffer (spurious wake-ups are left
  // to the random strategies). The first entry is the non-preemptive default.
  void record_decision(const std::vector<Action>& runnable) {
    std::vector<std::uint32_t> alts;
    std::uint32_t def = runnable.front().fiber * 4;
    for (const Action& a : runnable) {
      if (a.fiber == last_run_) def = a.code();
    }
    alts.push_back(def);
    for (const Action& a : runnable) {
      if (a.code() != def) alts.push_back(a.code());
    }
    if (tso()) {
      for (auto& f : fibers_) {
        if (!f->buffer.empty()) alts.push_back(f->id * 4 + kFlush);
      }
    }
    decisions_.push_back(std::move(alts));
  }

  std::optional<Action> choose(const std::vector<Action>& runnable) {
    const std::size_t at = schedule_.size();
    if (cfg_.strategy == Strategy::DFS) record_decision(runnable);
    if (at < cfg_.forced.size()) {
      const std::uint32_t code = cfg_.forced[at];
      const Action a{code / 4, code % 4};
      if (valid(a, runnable)) return a;
      divergence_ = "the recorded schedule diverges at decision " + std::to_string(at) + ": fiber " +
                    std::to_string(a.fiber) + " cannot " +
                    (a.kind == kRun ? "run" : a.kind == kFlush ? "flush a store" : "wake") + " there";
      fail(Verdict{VerdictKind::Internal, divergence_, state_dump()});
      return std::nullopt;
    }
    if (cfg_.strategy == Strategy::DFS) {
      // Past the prefix: keep running the fiber that ran last, if it can (no
      // preemption), else the lowest runnable id.
      return default_action(runnable);
    }
    if (cfg_.strategy == Strategy::Fuzz) return choose_fuzz(runnable);
    // TSO: sometimes flush a buffered store first; sometimes wake a condvar
    // waiter spuriously (the pool must tolerate it).
    if (tso() && next() % 100 < cfg_.flush_percent) {
      std::vector<std::uint32_t> with_stores;
      for (auto& f : fibers_) {
        if (!f->buffer.empty()) with_stores.push_back(f->id);
      }
      if (!with_stores.empty()) return Action{with_stores[next() % with_stores.size()], kFlush};
    }
    if (cfg_.spurious_wakeup_per_mille > 0 && next() % 1000 < cfg_.spurious_wakeup_per_mille) {
      std::vector<std::uint32_t> waiting;
      for (auto& f : fibers_) {
        if (f->state == State::BlockedCond) waiting.push_back(f->id);
      }
      if (!waiting.empty()) return Action{waiting[next() % waiting.size()], kSpurious};
    }
    if (cfg_.strategy == Strategy::PCT) {
      for (std::size_t i = 0; i < change_points_.size(); ++i) {
        if (change_points_[i] == steps_ && last_run_ < fibers_.size()) {
          fibers_[last_run_]->priority = i + 1;  // below every initial priority
        }
      }
      const Action* best = &runnable.front();
      for (const Action& a : runnable) {
        if (fibers_[a.fiber]->priority > fibers_[best->fiber]->priority) best = &a;
      }
      last_run_ = best->fiber;
      return *best;
    }
    const Action a = runnable[next() % runnable.size()];
    last_run_ = a.fiber;
    return a;
  }

  // One input byte a decision, so a fuzzer's mutation of byte i changes
  // decision i and nothing before it: values 0xC0 and up flush a store buffer
  // under TSO (if one holds a store), 0xBF wakes a condvar waiter spuriously,
  // and any other value picks runnable fiber b % n.
  std::optional<Action> choose_fuzz(const std::vector<Action>& runnable) {
    std::uint32_t b;
    if (fuzz_at_ < cfg_.fuzz_bytes.size()) {
      b = cfg_.fuzz_bytes[fuzz_at_++];
    } else {
      b = static_cast<std::uint32_t>(next() & 0xff);
    }
    if (tso() && b >= 0xC0) {
      std::vector<std::uint32_t> with_stores;
      for (auto& f : fibers_) {
        if (!f->buffer.empty()) with_stores.push_back(f->id);
      }
      if (!with_stores.empty()) return Action{with_stores[b % with_stores.size()], kFlush};
    }
    if (b == 0xBF) {
      for (auto& f : fibers_) {
        if (f->state == State::BlockedCond) return Action{f->id, kSpurious};
      }
    }
    const Action a = runnable[b % runnable.size()];
    last_run_ = a.fiber;
    return a;
  }

  bool valid(const Action& a, const std::vector<Action>& runnable) {
    if (a.fiber >= fibers_.size()) return false;
    Fiber* f = fibers_[a.fiber].get();
    if (a.kind == kFlush) return !f->buffer.empty();
    if (a.kind == kSpurious) return f->state == State::BlockedCond;
    for (const Action& r : runnable) {
      if (r.fiber == a.fiber) {
        last_run_ = a.fiber;
        return true;
      }
    }
    return false;
  }

  // ---- reports ----

  // A run out of steps is a livelock, unless every fiber not sleeping in
  // virtual time is blocked for good: then the sleepers are only polling
  // (e.g. waiting for workers to exit) and the real finding is the wake-up
  // that the blocked ones never got.
  std::string livelock_message() {
    int blocked = 0, polling = 0, runnable = 0;
    for (auto& f : fibers_) {
      switch (f->state) {
        case State::BlockedMutex:
        case State::BlockedCond:
        case State::BlockedJoin: ++blocked; break;
        case State::Sleeping: ++polling; break;
        // Just woken from a sleep in virtual time: a poller between two polls.
        case State::Runnable: ++(f->last_op == Op::Sleep ? polling : runnable); break;
        case State::Done: break;
      }
    }
    const std::string steps = std::to_string(steps_) + " scheduling points";
    if (blocked > 0 && runnable == 0) {
      return "lost wake-up: " + std::to_string(blocked) + " fiber(s) blocked for good while " +
             std::to_string(polling) + " poll in virtual time (" + steps + " without finishing)";
    }
    return "livelock: " + steps + " without finishing";
  }

  std::string alive_count() {
    int n = 0;
    for (auto& f : fibers_) n += f->state != State::Done;
    return std::to_string(n);
  }

  static const char* state_name(State s) {
    switch (s) {
      case State::Runnable: return "runnable";
      case State::BlockedMutex: return "blocked on a mutex";
      case State::BlockedCond: return "blocked on a condvar";
      case State::BlockedJoin: return "joining a fiber";
      case State::Sleeping: return "sleeping (virtual time)";
      case State::Done: return "finished";
    }
    return "?";
  }

  std::string state_dump() {
    Fiber* saved = current_;
    current_ = nullptr;  // dumps read pool state without scheduling
    std::string out = "fibers:\n";
    char line[512];
    for (auto& f : fibers_) {
      if (f->state == State::Done) continue;
      std::snprintf(line, sizeof line, "  %s: %s%s at %s:%u (%s)\n", f->name.c_str(), state_name(f->state),
                    f->wait_on ? "" : "", f->loc.file, f->loc.line, to_string(f->last_op));
      out += line;
    }
    out += stress::LiveState::get().dump_pools();
    out += "last events:\n";
    for (const std::string& e : last_events_) out += "  " + e + "\n";
    current_ = saved;
    return out;
  }

  void update_slot(Fiber* f, const Event& e) {
    using pool::EventKind;
    if (e.kind == EventKind::ThreadStart) {
      f->slot = stress::WorkerTable::get().acquire(e.registry, e.worker);
      return;
    }
    stress::WorkerSlot* s = f->slot;
    if (s == nullptr) return;
    switch (e.kind) {
      case EventKind::ThreadTerminate:
        stress::WorkerTable::get().release(s);
        f->slot = nullptr;
        break;
      case EventKind::ThreadIdle:
        s->latch.store(e.a);
        s->rounds.store(0);
        s->gate.store(0);
        s->phase.store(Phase::Idle);
        break;
      case EventKind::ThreadIdleRound: s->rounds.store(static_cast<std::uint32_t>(e.a)); break;
      case EventKind::ThreadSleepy: s->phase.store(Phase::Sleepy); break;
      case EventKind::ThreadSleepGate: s->gate.store(static_cast<std::uint8_t>(e.a)); break;
      case EventKind::ThreadSleeping: s->phase.store(Phase::Sleeping); break;
      case EventKind::ThreadAwoken:
      case EventKind::ThreadSleepInterruptedByLatch:
      case EventKind::ThreadSleepInterruptedByJob:
      case EventKind::ThreadSleepInterruptedByInjected:
        s->phase.store(Phase::Idle);
        s->gate.store(0);
        break;
      case EventKind::ThreadFoundWork:
      case EventKind::ThreadSawLatchSet: s->phase.store(Phase::Active); break;
      default: break;
    }
  }

 private:
  SimConfig cfg_;
  std::uint64_t rng_;
  std::size_t fuzz_at_ = 0;
  std::uint64_t seed_stream_;
  std::vector<std::unique_ptr<Fiber>> fibers_;
  Fiber* current_ = nullptr;
  bctx::fiber sink_;
  std::uint64_t steps_ = 0, vtime_ = 0, wait_counter_ = 0;
  std::uint64_t hash_ = 0xcbf29ce484222325ull;
  std::vector<std::uint32_t> schedule_;
  std::vector<TracePoint> trace_;
  std::deque<std::string> last_events_;
  std::optional<Verdict> failure_;
  std::string divergence_;
  std::vector<std::uint64_t> change_points_;
  std::vector<std::vector<std::uint32_t>> decisions_;
  std::uint32_t last_run_ = 0;
  const void* main_bottom_ = nullptr;
  std::size_t main_size_ = 0;
  void* main_fake_ = nullptr;
};

Scheduler& sched() { return *t_sched; }

}  // namespace

bool SimMutex::try_lock(SrcLoc loc) {
  live.check(Op::Lock, this, loc);
  return sched().mutex_try_lock(this, loc);
}

SimResult simulate(const SimConfig& config, const std::function<Verdict()>& body) {
  if (t_sched != nullptr) throw std::logic_error("simulate() is not reentrant");
  stress::WorkerTable::get().clear();
  stress::LiveState::get().reset();
  Scheduler s(config);
  t_sched = &s;
  SimResult r = s.run(body);
  t_sched = nullptr;
  return r;
}

namespace detail {
void point(Op op, const void* addr, SrcLoc loc) {
  if (t_sched) sched().point(op, addr, loc);
}
void on_event(const Event& e, SrcLoc loc) {
  if (t_sched) sched().event(e, loc);
}
void invariant_failed(const char* what, SrcLoc loc) {
  if (t_sched && sched().current()) sched().invariant(what, loc);
  std::fprintf(stderr, "wsstress sim: pool invariant violated at %s:%u: %s\n", loc.file, loc.line, what);
  std::abort();
}
void use_after_free(Op op, const void* addr, SrcLoc loc) {
  if (t_sched) {
    sched().use_after_free(op, addr, loc);
    return;
  }
  std::fprintf(stderr, "wsstress sim: use after free: %s on a destroyed pool object at %s:%u\n", to_string(op),
               loc.file, loc.line);
  std::abort();
}
bool tso() { return t_sched && sched().tso() && sched().current(); }
bool buffered_load(const void* addr, std::uint64_t& bits) { return sched().buffered_load(addr, bits); }
void buffer_store(void* addr, std::uint64_t bits, void (*apply)(void*, std::uint64_t)) {
  sched().buffer_store(addr, bits, apply);
}
void drain() { sched().drain(); }
void mutex_lock(void* m, SrcLoc loc) { sched().mutex_lock(static_cast<SimMutex*>(m), loc); }
void mutex_unlock(void* m, SrcLoc loc) { sched().mutex_unlock(static_cast<SimMutex*>(m), loc); }
void cond_wait(void* cv, void* m, SrcLoc loc) {
  sched().cond_wait(static_cast<SimCondVar*>(cv), static_cast<SimMutex*>(m), loc);
}
void cond_notify(void* cv, bool all, SrcLoc loc) { sched().cond_notify(static_cast<SimCondVar*>(cv), all, loc); }
std::uint32_t spawn(std::string name, std::function<void()> body) { return sched().spawn(std::move(name), std::move(body)); }
void join(std::uint32_t fiber) { sched().join(fiber); }
void sleep_ns(std::uint64_t ns) { sched().sleep_ns(ns); }
void spin_wait(SrcLoc loc) { sched().spin_wait(loc); }
void* tls(std::type_index key, void* (*make)(), void (*destroy)(void*)) { return sched().tls(key, make, destroy); }
std::uint64_t next_seed() { return t_sched ? sched().next_seed() : 1; }
}  // namespace detail

}  // namespace wsstress::sim
