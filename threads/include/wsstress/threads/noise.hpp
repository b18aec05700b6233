// SPDX-License-Identifier: MIT OR Apache-2.0
// NoisyPlatform: the real-thread platform of `wsstress run`.
//
// It is StdPlatform with three things switched on, none of which exists in the
// production instantiation:
//   - noise: at the pool's race windows (each gate of sleep(), announcing
//     sleepy, registering as sleeping, latch sets, injections, broadcasts,
//     wake-ups, and just before a condvar wait) a seeded per-thread generator
//     may yield or sleep a few microseconds, in the spirit of rr's chaos mode,
//     to widen the windows lost wake-ups live in; and a condvar wait may
//     return without a notification, as the standard allows and glibc almost
//     never does, so a waiter that does not re-check its condition is caught;
//   - the worker table (worker_state.hpp), which its events keep up to date
//     for the hang watchdog;
//   - invariant checks (WSSTRESS_CHECK in the pool), whose failures go to a
//     handler the campaign installs, and a progress counter the watchdog reads.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "wsstress/core/progress.hpp"
#include "wsstress/core/worker_state.hpp"
#include "wsstress/pool/platform/std.hpp"
#include "wsstress/pool/trace.hpp"

namespace wsstress::threads {

// The real-thread engine speaks core's vocabulary: specs, verdicts, seeds, dumps.
using namespace core;

using pool::Event;
using pool::EventKind;
using pool::SrcLoc;

// Noise settings of the current run; level 0 turns noise off.
struct Noise {
  static void configure(int level, std::uint64_t seed) noexcept;
  static int level() noexcept;
  // Maybe yields or sleeps at a race window, depending on the level and the
  // calling thread's generator. `weight` scales the probability (1 = normal).
  static void point(unsigned weight = 1) noexcept;
  // Whether this condvar wait wakes up spuriously (1 in 16, 8, 4 by level).
  static bool spurious() noexcept;
};

// Where invariant failures go. The campaign installs a handler that writes the
// report and exits; it must not return.
using InvariantHandler = void (*)(const char* what, SrcLoc loc);
void set_invariant_handler(InvariantHandler handler) noexcept;

// A condition variable that may pause (holding the lock) just before waiting,
// widening the window between a waiter's check and its wait, and may wake up
// spuriously: release the lock, let others run, take it back and return.
class NoisyCondVar {
 public:
  void wait(std::unique_lock<pool::StdPlatform::Mutex>& lock) {
    Noise::point(2);
    if (Noise::spurious()) {
      lock.unlock();
      std::this_thread::yield();
      lock.lock();
      return;
    }
    cv_.wait(lock);
  }
  void notify_one() noexcept { cv_.notify_one(); }
  void notify_all() noexcept { cv_.notify_all(); }

 private:
  pool::StdPlatform::CondVar cv_;
};

struct NoisyPlatform : pool::StdPlatform {
  using CondVar = NoisyCondVar;
  template <class T>
  using Cell = pool::PlainCell<T>;
  static constexpr bool kTraced = true;
  static constexpr bool kCheckInvariants = true;
  static constexpr bool kCheckSyncInvariants = false;  // WSSTRESS_CHECK_SYNC (concept.hpp)

  static void on_event(const Event& e, SrcLoc loc) noexcept;
  [[noreturn]] static void invariant_failed(const char* what, SrcLoc loc) noexcept;
};

static_assert(pool::Platform<NoisyPlatform>);

}  // namespace wsstress::threads
