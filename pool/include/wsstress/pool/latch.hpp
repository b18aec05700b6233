// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// The latch family (latch.rs): one-shot signals a thread waits on.
//
// CoreLatch is the four-state word that lets a waiting worker go to sleep on it:
//   UNSET -> SLEEPY -> SLEEPING -> UNSET   (the owner, inside Sleep::sleep)
//   any   -> SET                           (the setter, one swap)
// Because the owner's two CASes and the setter's swap are read-modify-writes of
// one atomic, they are totally ordered: either the owner sees SET and does not
// sleep (gates 1 and 3 of `sleep()`), or the setter's swap returns SLEEPING and
// the setter must wake the owner. That is how a set latch can never be lost
// without any help from the jobs event counter (sleep/README.md §3).
//
// SpinLatch: a CoreLatch owned by one worker, which the setter wakes through the
// owner's registry; `SpinLatch::cross` additionally keeps that registry alive
// across the set, for a waiter in another pool (sleep/README.md §8). LockLatch: mutex + condvar, for
// threads outside any pool. CountLatch / CountLockLatch: set when a counter
// reaches zero. LatchRef: a borrowed latch (rayon-core's `impl Latch for &L`).
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>

#include "wsstress/pool/mutants.hpp"
#include "wsstress/pool/platform/concept.hpp"
#include "wsstress/pool/trace.hpp"

namespace wsstress::pool {

template <class P, class M>
class Registry;
template <class P, class M>
class WorkerThread;

template <class P, class M = NoMutants>
class CoreLatch {
 public:
  static constexpr std::size_t UNSET = 0;     // not set, owner awake
  static constexpr std::size_t SLEEPY = 1;    // not set, owner about to sleep on it
  static constexpr std::size_t SLEEPING = 2;  // not set, owner asleep: a setter must wake it
  static constexpr std::size_t SET = 3;

  CoreLatch() noexcept : state_(UNSET) {}
  CoreLatch(const CoreLatch&) = delete;
  CoreLatch& operator=(const CoreLatch&) = delete;

  // Gate 1 of sleep(): false if the latch was set since the owner last looked.
  bool get_sleepy() noexcept {
    std::size_t expected = UNSET;
    return state_.compare_exchange_strong(expected, SLEEPY, std::memory_order_seq_cst, std::memory_order_relaxed);
  }

  // Gate 3 of sleep(), under the is_blocked lock: false if set meanwhile.
  bool fall_asleep() noexcept {
    std::size_t expected = SLEEPY;
    return state_.compare_exchange_strong(expected, SLEEPING, std::memory_order_seq_cst, std::memory_order_relaxed);
  }

  // The owner is awake again; leaves SET alone.
  void wake_up() noexcept {
    if (!probe()) {
      std::size_t expected = SLEEPING;
      state_.compare_exchange_strong(expected, UNSET, std::memory_order_seq_cst, std::memory_order_relaxed);
    }
  }

  // Sets the latch; true if the owner was SLEEPING and must be woken. AcqRel as
  // in 1.10.1: the swap is ordered against the owner's CASes by being an RMW on
  // the same word, so it needs no SeqCst.
  // (A mutant's order is a branch, so that each call has a constant order.)
  bool set() noexcept {
    if (M::kCoreLatchSetSeqCst) return state_.exchange(SET, std::memory_order_seq_cst) == SLEEPING;
    return state_.exchange(SET, std::memory_order_acq_rel) == SLEEPING;
  }

  // Once true, everything before the set() is visible.
  bool probe() const noexcept {
    if (M::kLatchProbeRelaxed) return state_.load(std::memory_order_relaxed) == SET;
    return state_.load(std::memory_order_acquire) == SET;
  }

  // For state dumps.
  std::size_t state_relaxed() const noexcept { return state_.load(std::memory_order_relaxed); }

 private:
  typename P::template Atomic<std::size_t> state_;
};

// A latch owned by one worker of `registry`, which set() wakes if it sleeps.
template <class P, class M>
class SpinLatch {
 public:
  // Owned by `thread`, the only thread that may wait on it.
  explicit SpinLatch(const WorkerThread<P, M>& thread) noexcept;
  // For a waiter that belongs to another pool than the setter: set() holds a
  // reference to the waiter's registry until the wake-up is sent.
  static SpinLatch cross(const WorkerThread<P, M>& thread) noexcept;

  SpinLatch(SpinLatch&& other) noexcept
      : registry_(other.registry_), target_worker_index_(other.target_worker_index_), cross_(other.cross_) {}

  bool probe() const noexcept { return core_latch_.probe(); }
  CoreLatch<P, M>& as_core_latch() noexcept { return core_latch_; }
  void set() noexcept;

 private:
  SpinLatch(Registry<P, M>* registry, std::size_t index, bool cross) noexcept
      : registry_(registry), target_worker_index_(index), cross_(cross) {}

  CoreLatch<P, M> core_latch_;
  // The Registry itself, not the waiter's handle to it: the handle lives in the
  // waiting WorkerThread, which may be gone once the latch is set (rayon #913).
  Registry<P, M>* registry_;
  std::size_t target_worker_index_;
  bool cross_;
};

// Mutex + condvar latch for threads outside any pool.
template <class P, class M = NoMutants>
class LockLatch {
 public:
  LockLatch() = default;
  LockLatch(const LockLatch&) = delete;
  LockLatch& operator=(const LockLatch&) = delete;

  // The flag is stored and notified under the mutex, so a waiter between its
  // check and its wait cannot miss the notification.
  void set() noexcept {
    if (M::kLockLatchSetOutsideMutex) {
      // The bug: a waiter between its check and its wait misses this notify.
      reinterpret_cast<volatile bool&>(set_.write()) = true;
      v_.notify_all();
    } else {
      std::unique_lock<typename P::Mutex> guard(m_);
      set_.write() = true;
      v_.notify_all();
    }
  }

  void wait() {
    std::unique_lock<typename P::Mutex> guard(m_);
    wait_until_set(guard);
  }

  // Waits, then resets so a thread-local latch can serve the next cold call.
  void wait_and_reset() {
    std::unique_lock<typename P::Mutex> guard(m_);
    wait_until_set(guard);
    set_.write() = false;
  }

  bool probe() {
    std::unique_lock<typename P::Mutex> guard(m_);
    return set_.read();
  }

 private:
  // A condvar may wake up spuriously: the flag is checked again each time.
  void wait_until_set(std::unique_lock<typename P::Mutex>& guard) {
    if (M::kLockLatchWaitOnce) {
      if (!set_.read()) v_.wait(guard);  // the bug: one spurious wake-up and the wait is over
    } else {
      while (!set_.read()) v_.wait(guard);
    }
  }

  typename P::Mutex m_;
  typename P::CondVar v_;
  typename P::template Cell<bool> set_{false};  // under m_ (a platform cell: Relacy checks that)
};

// Set when its counter reaches zero. Does not hold a registry: the registry
// owns the terminate CountLatches, so the setter passes it in.
template <class P, class M = NoMutants>
class CountLatch {
 public:
  explicit CountLatch(std::size_t count = 1) noexcept : counter_(count) {}

  void increment() noexcept {
    WSSTRESS_CHECK_SYNC(P, !core_latch_.probe(), "CountLatch incremented after it was set");
    counter_.fetch_add(1, std::memory_order_relaxed);
  }

  // Decrements; true if this set the latch.
  bool set() noexcept {
    return set([]() noexcept {});
  }

  // Decrements; if that reaches zero, calls before_set() and then sets the latch
  // (true). Between the two the waiter cannot have seen the latch set, so
  // before_set may still read state the waiter owns (ScopeLatch takes its
  // registry reference there, only on the last decrement).
  template <class BeforeSet>
  bool set(BeforeSet&& before_set) noexcept {
    const std::size_t before = M::kCountLatchSubRelaxed ? counter_.fetch_sub(1, std::memory_order_relaxed)
                                                        : counter_.fetch_sub(1, std::memory_order_seq_cst);
    if (before == 1) {
      before_set();
      [[maybe_unused]] const bool owner_slept = core_latch_.set();
      trace<P>([&] {
        return Event{EventKind::CountLatchSet, nullptr, Event::kNoWorker,
                     reinterpret_cast<std::uintptr_t>(&core_latch_), owner_slept};
      });
      return true;
    }
    return false;
  }

  // Decrements, and if that set the latch, wakes its owner in `registry`.
  template <class R>
  void set_and_tickle_one(R& registry, std::size_t target_worker_index) noexcept {
    if (set()) registry.notify_worker_latch_is_set(target_worker_index);
  }

  bool probe() const noexcept { return core_latch_.probe(); }
  CoreLatch<P, M>& as_core_latch() noexcept { return core_latch_; }

 private:
  CoreLatch<P, M> core_latch_;
  typename P::template Atomic<std::size_t> counter_;
};

template <class P, class M = NoMutants>
class CountLockLatch {
 public:
  explicit CountLockLatch(std::size_t count) noexcept : counter_(count) {}
  void increment() noexcept { counter_.fetch_add(1, std::memory_order_relaxed); }
  void set() noexcept {
    const std::size_t before = M::kCountLatchSubRelaxed ? counter_.fetch_sub(1, std::memory_order_relaxed)
                                                        : counter_.fetch_sub(1, std::memory_order_seq_cst);
    if (before == 1) lock_latch_.set();
  }
  void wait() { lock_latch_.wait(); }

 private:
  LockLatch<P, M> lock_latch_;
  typename P::template Atomic<std::size_t> counter_;
};

// A borrowed latch.
template <class L>
class LatchRef {
 public:
  explicit LatchRef(L& latch) noexcept : latch_(&latch) {}
  void set() noexcept { latch_->set(); }
  L& get() const noexcept { return *latch_; }

 private:
  L* latch_;
};

}  // namespace wsstress::pool
