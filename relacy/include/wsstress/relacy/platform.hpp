// SPDX-License-Identifier: MIT OR Apache-2.0
// RelacyPlatform: the pool's platform policy mapped onto Relacy, so the models
// search the C++ memory model over the pool's own Registry, Sleep,
// AtomicCounters, latches and deques rather than over a re-typed copy.
//
// Every atomic is an rl::atomic (Relacy keeps a short history of stores per
// atomic, so a load may return a stale value the C++ model allows), fences are
// rl::atomic_thread_fence, locks and condition variables are Relacy's (with
// spurious wake-ups on). Threads: the pool's spawn_thread becomes a Relacy
// dynamic thread, so the harness owns every thread while the algorithms start
// theirs as usual; a model's test suite reserves the dynamic threads. The
// platform's yield is a no-op on purpose: rl::yield makes a thread re-read the
// newest values, which hides exactly the stale reads the handshake bugs need.
// The pool's events (trace.hpp) go to the execution's EventLog (event_log.hpp)
// and, while Relacy replays a failure for its report, into its history: the
// lambdas that make them read no atomic, so tracing adds no scheduling point.
//
// Relacy's umbrella header redefines memory_order_*, new and delete as macros,
// which would rewrite the pool, so only the sub-headers are included, after
// every standard header the pool uses.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "wsstress/explain/explain.hpp"
#include "wsstress/pool/platform/concept.hpp"
#include "wsstress/pool/trace.hpp"
#include "wsstress/relacy/event_log.hpp"

// Relacy's sub-headers in the order its umbrella relacy.hpp includes them
// (context_base_impl.hpp, for one, does not compile on its own), kept out of
// include sorting.
// clang-format off
#include <relacy/base.hpp>
#include <relacy/context.hpp>
#include <relacy/context_base_impl.hpp>
#include <relacy/backoff.hpp>
#include <relacy/atomic_fence.hpp>
#include <relacy/atomic.hpp>
#include <relacy/var.hpp>
#include <relacy/test_suite.hpp>
#include <relacy/dyn_thread.hpp>
#include <relacy/stdlib/mutex.hpp>
#include <relacy/stdlib/condition_variable.hpp>
#include <relacy/stdlib/semaphore.hpp>
#include <relacy/stdlib/event.hpp>
// clang-format on

namespace wsstress::relacy {

using pool::SrcLoc;

inline rl::memory_order to_rl(std::memory_order o) noexcept {
  switch (o) {
    case std::memory_order_relaxed: return rl::mo_relaxed;
    case std::memory_order_consume: return rl::mo_consume;
    case std::memory_order_acquire: return rl::mo_acquire;
    case std::memory_order_release: return rl::mo_release;
    case std::memory_order_acq_rel: return rl::mo_acq_rel;
    case std::memory_order_seq_cst: return rl::mo_seq_cst;
  }
  return rl::mo_seq_cst;
}

// Relacy's history names the pool's line that performed the operation.
inline rl::debug_info info(SrcLoc loc) noexcept { return rl::debug_info("", loc.file, static_cast<int>(loc.line)); }

// A failure rl's failure-order rules reject (stronger than success) cannot
// come from the pool, which always passes a weaker or equal failure order.
// Relacy has no view of plain heap memory, so each synchronisation object
// carries a liveness stamp that its destructor clears: an operation on a
// destroyed one (the cross-pool keep-alive bug: notifying through a registry
// already freed) fails the model instead of reading freed memory silently.
class Liveness {
 public:
  Liveness() noexcept = default;
  Liveness(const Liveness&) = delete;
  Liveness& operator=(const Liveness&) = delete;
  ~Liveness() { stamp_ = 0; }
  void check(SrcLoc loc) const {
    if (stamp_ != kAlive) {
      rl::ctx().fail_test("use of a pool object after it was destroyed", rl::test_result_access_to_freed_memory,
                          info(loc));
    }
  }

 private:
  static constexpr std::uint64_t kAlive = 0x5ca1ab1e0ddba11ull;
  volatile std::uint64_t stamp_ = kAlive;
};

template <class T>
class RlAtomic {
 public:
  RlAtomic() noexcept : a_(T{}) {}
  RlAtomic(T v) noexcept : a_(v) {}  // NOLINT: mirrors std::atomic
  RlAtomic(const RlAtomic&) = delete;
  RlAtomic& operator=(const RlAtomic&) = delete;

  T load(std::memory_order o, SrcLoc loc = SrcLoc::here()) const {
    live_.check(loc);
    return a_.load(to_rl(o), info(loc));
  }
  void store(T v, std::memory_order o, SrcLoc loc = SrcLoc::here()) {
    live_.check(loc);
    a_.store(v, to_rl(o), info(loc));
  }
  T exchange(T v, std::memory_order o, SrcLoc loc = SrcLoc::here()) {
    live_.check(loc);
    return a_.exchange(v, to_rl(o), info(loc));
  }
  bool compare_exchange_strong(T& expected, T desired, std::memory_order s, std::memory_order f,
                               SrcLoc loc = SrcLoc::here()) {
    live_.check(loc);
    return a_.compare_exchange_strong(expected, desired, to_rl(s), info(loc), to_rl(f), info(loc));
  }
  bool compare_exchange_weak(T& expected, T desired, std::memory_order s, std::memory_order f,
                             SrcLoc loc = SrcLoc::here()) {
    live_.check(loc);
    return a_.compare_exchange_weak(expected, desired, to_rl(s), info(loc), to_rl(f), info(loc));
  }
  template <class U>
  T fetch_add(U v, std::memory_order o, SrcLoc loc = SrcLoc::here()) {
    live_.check(loc);
    return a_.fetch_add(v, to_rl(o), info(loc));
  }
  template <class U>
  T fetch_sub(U v, std::memory_order o, SrcLoc loc = SrcLoc::here()) {
    live_.check(loc);
    return a_.fetch_sub(v, to_rl(o), info(loc));
  }

 private:
  Liveness live_;
  mutable rl::atomic<T> a_;
};

// The pool's plain shared memory (platform/cell.hpp) under Relacy: the T
// itself, plus an rl::var that every access goes through, so that Relacy's
// happens-before check sees a read of a job's result or closure that no
// release and acquire order after its write (a weakened latch or queue order:
// "data race detected", with the line of the pool that made the access).
template <class T>
class RlCell {
 public:
  template <class... A>
  explicit RlCell(A&&... args) : value_(std::forward<A>(args)...), shadow_(0) {}
  RlCell(const RlCell&) = delete;
  RlCell& operator=(const RlCell&) = delete;

  T& write(SrcLoc loc = SrcLoc::here()) {
    shadow_(info(loc)).store(1);
    return value_;
  }
  T& read(SrcLoc loc = SrcLoc::here()) {
    (void)shadow_(info(loc)).load();
    return value_;
  }

 private:
  T value_;
  rl::var<int> shadow_;
};

class RlMutex {
 public:
  void lock(SrcLoc loc = SrcLoc::here()) {
    live_.check(loc);
    m_.lock(info(loc));
  }
  void unlock(SrcLoc loc = SrcLoc::here()) {
    live_.check(loc);
    m_.unlock(info(loc));
  }
  bool try_lock(SrcLoc loc = SrcLoc::here()) {
    live_.check(loc);
    return m_.try_lock(info(loc));
  }
  rl::mutex& raw() noexcept { return m_; }

 private:
  Liveness live_;
  rl::mutex m_;
};

class RlCondVar {
 public:
  void wait(std::unique_lock<RlMutex>& lock, SrcLoc loc = SrcLoc::here()) {
    live_.check(loc);
    cv_.wait(lock.mutex()->raw(), info(loc));
  }
  void notify_one(SrcLoc loc = SrcLoc::here()) {
    live_.check(loc);
    cv_.notify_one(info(loc));
  }
  void notify_all(SrcLoc loc = SrcLoc::here()) {
    live_.check(loc);
    cv_.notify_all(info(loc));
  }

 private:
  Liveness live_;
  rl::condition_variable cv_;
};

// Per-iteration state the platform keeps outside the pool: thread-local slots
// and the seed counter. Relacy replays a failing execution to print its
// history and insists the replay is identical, so all of it is reset when an
// iteration begins (RelacyPlatform::begin_iteration, from a model's before()).
class IterationState {
 public:
  static IterationState& get() {
    static IterationState s;
    return s;
  }
  // Slots are created on first use and destroyed at the iteration's end, since
  // Relacy counts an rl object alive past the iteration as a leak.
  // Fixed storage: Relacy counts heap memory still allocated when an
  // iteration ends as a leak, so the table itself must not allocate.
  void* slot(const void* key, std::size_t thread, void* (*make)(), void (*destroy)(void*)) {
    for (std::size_t i = 0; i < n_; ++i) {
      if (slots_[i].key == key && slots_[i].thread == thread) return slots_[i].ptr;
    }
    if (n_ == slots_.size()) {
      rl::ctx().fail_test("RelacyPlatform: too many thread-local slots", rl::test_result_user_assert_failed, $);
    }
    slots_[n_] = Slot{key, thread, make(), destroy};
    return slots_[n_++].ptr;
  }
  // At an iteration's normal end: newest first, as a later slot may refer to
  // an older one.
  void destroy_all() {
    while (n_ > 0) {
      Slot s = slots_[--n_];
      s.destroy(s.ptr);
    }
    seed_ = 0;
  }
  // At an iteration's start: anything left belongs to an iteration Relacy cut
  // short, whose rl objects died with its context, so it is dropped unrun.
  void abandon() {
    n_ = 0;
    seed_ = 0;
  }
  std::uint64_t next_seed() noexcept { return ++seed_ * 0x9e3779b97f4a7c15ull | 1; }

 private:
  struct Slot {
    const void* key;
    std::size_t thread;
    void* ptr;
    void (*destroy)(void*);
  };
  std::array<Slot, 64> slots_{};
  std::size_t n_ = 0;
  std::uint64_t seed_ = 0;
};

struct RelacyPlatform {
  template <class T>
  using Atomic = RlAtomic<T>;
  using Mutex = RlMutex;
  using CondVar = RlCondVar;
  template <class T>
  using Cell = RlCell<T>;

  static constexpr bool kTraced = true;
  static constexpr bool kCheckInvariants = true;
  static constexpr bool kCheckSyncInvariants = false;  // WSSTRESS_CHECK_SYNC (concept.hpp)

  static void fence(std::memory_order order, SrcLoc loc = SrcLoc::here()) {
    rl::atomic_thread_fence(to_rl(order), info(loc));
  }
  // A no-op (see the file comment): yielding would refresh stale reads.
  static void yield_now() noexcept {}
  // The Injector's spin-waits (pool/backoff.hpp) do yield to Relacy: they wait
  // for another thread's write, so they must let it run and must see it; a
  // context-bound search would otherwise spend its preemptions on the spin.
  static void spin_loop_hint(SrcLoc loc = SrcLoc::here()) { rl::yield(1, info(loc)); }

  template <class Tag, class T>
  static T& thread_local_slot() {
    static const char key = 0;
    return *static_cast<T*>(IterationState::get().slot(
        &key, rl::thread_index(), [] { return static_cast<void*>(new T{}); },
        [](void* p) { delete static_cast<T*>(p); }));
  }
  static std::uint64_t next_rng_seed() noexcept { return IterationState::get().next_seed(); }
  static std::size_t default_num_threads() noexcept { return 1; }
  // Outside a simulated thread (no Relacy context, or its main fiber) an
  // event has no thread to belong to and is dropped.
  static void on_event(const pool::Event& e, SrcLoc loc) noexcept {
    if (!rl::is_ctx() || rl::ctx().threadx_ == nullptr) return;
    rl::context& c = rl::ctx();
    EventLog::get().add(static_cast<std::uint32_t>(rl::thread_index()), e, loc);
    if (c.collecting_history()) {
      char line[200] = "pool event ";
      explain::format_event(line + 11, sizeof line - 11, e, true);
      c.exec_log_msg(info(loc), line);
    }
  }
  static void invariant_failed(const char* what, SrcLoc loc) {
    rl::ctx().fail_test(what, rl::test_result_user_assert_failed, info(loc));
  }
  // The pool's abort is the model's failure, with Relacy's history, not the
  // search process's death (which the command could only call a crash).
  // fail_test switches to Relacy's main fiber and never comes back here.
  [[noreturn]] static void abort_pool(const char* why, SrcLoc loc) {
    char text[600];
    std::snprintf(text, sizeof text, "wsstress pool: %s; aborting", why);
    rl::ctx().fail_test(text, rl::test_result_user_assert_failed, info(loc));
    std::abort();  // unreachable: the failed execution is not resumed
  }

  // A worker becomes a Relacy dynamic thread; the model's suite must reserve
  // one per worker (dynamic_thread_count), or Relacy stops the test.
  template <class F>
  static std::error_code spawn_thread(const pool::ThreadOptions&, F&& body) {
    using Body = std::decay_t<F>;
    auto* b = new Body(std::forward<F>(body));
    rl::ctx().create_thread(
        [](void* arg) -> void* {
          std::unique_ptr<Body> owned(static_cast<Body*>(arg));
          (*owned)();
          return nullptr;
        },
        b);
    return {};
  }

  static void begin_iteration() { IterationState::get().abandon(); }
  static void end_iteration() { IterationState::get().destroy_all(); }
};

static_assert(pool::Platform<RelacyPlatform>);

}  // namespace wsstress::relacy
