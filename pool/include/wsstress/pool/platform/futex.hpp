// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rust Project Developers; The wsstress developers
// The locks rayon-core 1.10.1 takes on Linux: Rust std's futex-based Mutex and
// Condvar (library/std/src/sys/sync/mutex/futex.rs and condvar/futex.rs),
// ported step for step for StdPlatform on Linux.
//
// glibc's pthread mutex and condition variable keep the same contract with
// other steps: a thread woken in pthread_cond_wait relocks its mutex as
// contended, so its next unlock is a futex syscall that wakes nobody
// (pool/README.md, item 16). Rust's Mutex is three states in one word; its
// Condvar is a counter of notifications.
#pragma once

#if defined(__linux__)

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <mutex>

#include "wsstress/pool/platform/spin_loop.hpp"

namespace wsstress::pool {

namespace futex {

inline std::uint32_t* word(std::atomic<std::uint32_t>& a) noexcept {
  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
  return reinterpret_cast<std::uint32_t*>(&a);
}

// Rust's futex_wait with no timeout: FUTEX_WAIT_BITSET, private, all bits;
// returns at once if the word already changed, and again after EINTR.
inline void wait(std::atomic<std::uint32_t>& a, std::uint32_t expected) noexcept {
  for (;;) {
    if (a.load(std::memory_order_relaxed) != expected) return;
    const long r = syscall(SYS_futex, word(a), FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, expected, nullptr, nullptr,
                           FUTEX_BITSET_MATCH_ANY);
    if (r < 0 && errno == EINTR) continue;
    return;
  }
}

inline void wake(std::atomic<std::uint32_t>& a, int n) noexcept {
  syscall(SYS_futex, word(a), FUTEX_WAKE | FUTEX_PRIVATE_FLAG, n);
}

}  // namespace futex

// std::sync::Mutex on Linux: 0 unlocked, 1 locked, 2 locked with waiters.
class FutexMutex {
 public:
  FutexMutex() = default;
  FutexMutex(const FutexMutex&) = delete;
  FutexMutex& operator=(const FutexMutex&) = delete;

  bool try_lock() noexcept {
    std::uint32_t expected = kUnlocked;
    return state_.compare_exchange_strong(expected, kLocked, std::memory_order_acquire, std::memory_order_relaxed);
  }
  void lock() noexcept {
    if (!try_lock()) lock_contended();
  }
  void unlock() noexcept {
    // One waiter is woken; it marks the lock contended again when it takes it,
    // so the others are woken in turn.
    if (state_.exchange(kUnlocked, std::memory_order_release) == kContended) futex::wake(state_, 1);
  }

 private:
  static constexpr std::uint32_t kUnlocked = 0;
  static constexpr std::uint32_t kLocked = 1;
  static constexpr std::uint32_t kContended = 2;

  [[gnu::cold, gnu::noinline]] void lock_contended() noexcept {
    std::uint32_t state = spin();
    if (state == kUnlocked) {
      if (state_.compare_exchange_strong(state, kLocked, std::memory_order_acquire, std::memory_order_relaxed)) {
        return;
      }
    }
    for (;;) {
      // Only write the contended mark if it is not there yet (kinder to the cache).
      if (state != kContended && state_.exchange(kContended, std::memory_order_acquire) == kUnlocked) return;
      futex::wait(state_, kContended);
      state = spin();
    }
  }

  // Up to 100 loads while the holder has no waiters, as Rust's spin().
  std::uint32_t spin() noexcept {
    for (int spin = 100;; --spin) {
      const std::uint32_t state = state_.load(std::memory_order_relaxed);
      if (state != kLocked || spin == 0) return state;
      spin_loop();
    }
  }

  std::atomic<std::uint32_t> state_{kUnlocked};
};

// std::sync::Condvar on Linux: a counter bumped by every notification, read
// before the mutex is released, so a notification between the unlock and the
// futex wait is not lost. Wake-ups may be spurious; callers wait in a loop.
class FutexCondVar {
 public:
  FutexCondVar() = default;
  FutexCondVar(const FutexCondVar&) = delete;
  FutexCondVar& operator=(const FutexCondVar&) = delete;

  void wait(std::unique_lock<FutexMutex>& lock) noexcept {
    const std::uint32_t seen = counter_.load(std::memory_order_relaxed);
    lock.unlock();
    futex::wait(counter_, seen);
    lock.lock();
  }
  void notify_one() noexcept {
    counter_.fetch_add(1, std::memory_order_relaxed);
    futex::wake(counter_, 1);
  }
  void notify_all() noexcept {
    counter_.fetch_add(1, std::memory_order_relaxed);
    futex::wake(counter_, INT_MAX);
  }

 private:
  std::atomic<std::uint32_t> counter_{0};
};

}  // namespace wsstress::pool

#endif  // __linux__
